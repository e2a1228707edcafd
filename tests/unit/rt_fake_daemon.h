/* SPDX-License-Identifier: MIT */
/*
 * rt_fake_daemon.h - the daemon side of the runtime's protocol, just enough to test
 * libutrace without utracefs: a memfd area with a control page, a listening socket
 * that answers HELLO with WELCOME + the memfd (twice: as the control page's and as
 * the area's) and records ACK/TASK/TRACING
 * messages, generation bumps with futex wake-ups, and a consuming, validating
 * reader of the rings (no-overwrite mode) that counts function events per
 * (tid, ip, parent) and keeps print texts.  Included by test_runtime*.c only.
 */
#ifndef RT_FAKE_DAEMON_H
#define RT_FAKE_DAEMON_H

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "output/print_fmt.h"
#include "ut_ctl.h"
#include "ut_ring_write.h"
#include "ut_sel.h"
#include "ut_wire.h"

#define FD_MAX_CONN 32
#define FD_MAX_FUNCS 256
#define FD_MAX_PRINTS 16
#define FD_RING_PAGES 512

struct fd_conn {
	int fd, alive;
	int32_t pid;
	uint32_t acked;
};

struct fd_func {
	uint32_t tid;
	uint8_t flags;
	uint64_t ip, parent, count;
};

struct fake_daemon {
	char dir[128], tracing[160], sock[176];
	int lfd, memfd;
	unsigned int nr_cpus;
	void *area;
	struct ut_ctl *ctl;
	pthread_t th, rd;
	volatile int stop, paused; /* paused: the reader thread leaves the rings alone */
	int receiving;		   /* the server is between a recv and its handling */
	pthread_mutex_t mu;	   /* everything below */
	struct fd_conn conns[FD_MAX_CONN];
	int nconn, hellos, tasks, tracing_msgs, last_tracing, maps_msgs;
	int32_t hello_pids[FD_MAX_CONN];
	uint32_t task_tids[64];
	char task_comm[64][16];
	uint64_t read_vpage[UT_RB_MAX_CPUS];
	struct fd_func funcs[FD_MAX_FUNCS];
	int nfuncs, nprints;
	char prints[FD_MAX_PRINTS][256];
	uint64_t print_ip[FD_MAX_PRINTS];
	uint8_t print_type[FD_MAX_PRINTS]; /* UT_EV_PRINT, UT_EV_BPRINT or UT_EV_BPUTS */
	/* the texts UT_MSG_PRINTK_FMT told (bprint and bputs records name them) */
	int nfmts;
	uint64_t fmt_addr[FD_MAX_PRINTS];
	char fmt_text[FD_MAX_PRINTS][256];
	uint64_t stacks, bad, other;
	uint64_t stack_ip, stack_parent, stack_matches; /* stacks starting [ip, parent] */
	uint32_t ring_flags;				/* RB_F_* for fd_reset_rings */
	uint64_t events[UT_RB_MAX_CPUS];		/* events read per CPU */
};

static uint64_t fd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A bprint or bputs record as a print: its text through utracefs's own renderer. */
static void fd_bprint(struct fake_daemon *d, const struct ut_ev *e)
{
	const struct ut_ev_bprint *bp = (const void *)e;
	uint64_t addr = e->type == UT_EV_BPRINT ? bp->fmt : ((const struct ut_ev_bputs *)e)->str;
	const char *text = NULL;
	struct tfs_pfmt_env env = {0};
	struct tfs_buf b = {0};

	for (int i = 0; i < d->nfmts; i++)
		if (d->fmt_addr[i] == addr)
			text = d->fmt_text[i];
	if (!text)
		tfs_buf_printf(&b, "(unknown %llx)", (unsigned long long)addr);
	else if (e->type == UT_EV_BPUTS)
		tfs_buf_printf(&b, "%s", text);
	else if (e->len < sizeof(*bp) + bp->size ||
		 tfs_pfmt_render_bin(text, (const unsigned char *)bp->buf, bp->size, &env, &b))
		tfs_buf_printf(&b, "(bad)");
	snprintf(d->prints[d->nprints], sizeof(d->prints[0]), "%s", b.data ? b.data : "");
	tfs_buf_free(&b);
	d->print_type[d->nprints] = e->type;
	d->print_ip[d->nprints++] = bp->ip;
}

static void fd_account(struct fake_daemon *d, unsigned int cpu, const unsigned char *p,
		       unsigned int used)
{
	unsigned int off = 0;

	while (off + sizeof(struct ut_ev) <= used) {
		const struct ut_ev *e = (const void *)(p + off);

		if (e->len < 16 || e->len > used - off || (e->len & 7)) {
			d->bad++;
			return;
		}
		if (e->type == UT_EV_FUNCTION && e->len == 32) {
			const struct ut_ev_func *f = (const void *)e;
			int i;

			for (i = 0; i < d->nfuncs; i++)
				if (d->funcs[i].tid == e->tid && d->funcs[i].ip == f->ip &&
				    d->funcs[i].parent == f->parent_ip &&
				    d->funcs[i].flags == e->flags)
					break;
			if (i == d->nfuncs && d->nfuncs < FD_MAX_FUNCS)
				d->funcs[d->nfuncs++] =
				    (struct fd_func){e->tid, e->flags, f->ip, f->parent_ip, 0};
			if (i < d->nfuncs)
				d->funcs[i].count++;
		} else if (e->type == UT_EV_PRINT && e->len > 24) {
			const struct ut_ev_print *pr = (const void *)e;

			if (d->nprints < FD_MAX_PRINTS) {
				snprintf(d->prints[d->nprints], sizeof(d->prints[0]), "%.*s",
					 (int)(e->len - 24), pr->buf);
				d->print_type[d->nprints] = UT_EV_PRINT;
				d->print_ip[d->nprints++] = pr->ip;
			}
		} else if ((e->type == UT_EV_BPRINT || e->type == UT_EV_BPUTS) &&
			   d->nprints < FD_MAX_PRINTS) {
			fd_bprint(d, e);
		} else if (e->type == UT_EV_KERNEL_STACK && e->len >= 24) {
			const struct ut_ev_stack *st = (const void *)e;

			d->stacks++;
			if (st->nr >= 2 && e->len >= 40 && st->ips[0] == d->stack_ip &&
			    st->ips[1] == d->stack_parent)
				d->stack_matches++;
		} else {
			d->other++;
		}
		off += e->len;
		d->events[cpu]++;
	}
}

/* Consume the finished pages of one CPU (all of them when final).  With d->mu. */
static void fd_consume(struct fake_daemon *d, unsigned int cpu, int final)
{
	static unsigned char copy[UT_RB_PAGE_SIZE];
	struct rb_cpu *rc = ut_rb_cpu(d->area, cpu);

	for (;;) {
		uint64_t w = __atomic_load_n(&rc->wpos, __ATOMIC_ACQUIRE);
		unsigned int rv = (unsigned int)d->read_vpage[cpu] & (RB_VPAGE_MOD - 1);
		int current = rb_wpos_vpage(w) == rv;

		if (current && !final)
			return;
		memcpy(copy,
		       ut_rb_page(d->area, cpu, (unsigned int)(d->read_vpage[cpu] % FD_RING_PAGES)),
		       sizeof(copy));
		struct rb_page *h = (void *)copy;
		unsigned int used = current ? rb_wpos_off(w) : rb_wpos_off(h->commit);

		if (h->vpage != rv || h->magic != UT_RB_PAGE_MAGIC || used > UT_RB_PAGE_DATA)
			d->bad++;
		else
			fd_account(d, cpu, copy + UT_RB_PAGE_HDR, used);
		if (current)
			return;
		d->read_vpage[cpu]++;
		__atomic_store_n(&rc->read_vpage, d->read_vpage[cpu], __ATOMIC_RELEASE);
	}
}

/*
 * Wait (at most 5 s) until the server has handled every packet the connections
 * hold: a process sends a trace_printk format before the record that names it.
 */
static void fd_sync(struct fake_daemon *d)
{
	uint64_t end = fd_now_ms() + 5000;

	while (fd_now_ms() < end) {
		int pending = 0;

		pthread_mutex_lock(&d->mu);
		for (int i = 0; i < d->nconn; i++) {
			int q = 0;

			if (d->conns[i].alive && ioctl(d->conns[i].fd, FIONREAD, &q) == 0 && q > 0)
				pending = 1;
		}
		pthread_mutex_unlock(&d->mu);
		if (!pending && !__atomic_load_n(&d->receiving, __ATOMIC_SEQ_CST))
			return;
		usleep(200);
	}
}

/* Empty the rings and the counts (writers must be quiet or stopped). */
static void fd_drain(struct fake_daemon *d)
{
	fd_sync(d);
	pthread_mutex_lock(&d->mu);
	for (unsigned int c = 0; c < d->nr_cpus; c++)
		fd_consume(d, c,
			   1); /* call once, then fd_reset_rings(): the current page was read */
	pthread_mutex_unlock(&d->mu);
}

static void fd_reset_rings(struct fake_daemon *d)
{
	pthread_mutex_lock(&d->mu);
	for (unsigned int c = 0; c < d->nr_cpus; c++) {
		ut_rb_reset_cpu(d->area, c, FD_RING_PAGES, d->ring_flags);
		d->read_vpage[c] = 0;
		d->events[c] = 0;
		ut_rb_cpu(d->area, c)->enabled = 1;
	}
	d->nfuncs = d->nprints = 0; /* the texts told stay: the process sends each once */
	d->stacks = d->bad = d->other = 0;
	pthread_mutex_unlock(&d->mu);
}

static uint64_t fd_count(struct fake_daemon *d, uint32_t tid, uint64_t ip, uint8_t *flags)
{
	uint64_t n = 0;

	pthread_mutex_lock(&d->mu);
	for (int i = 0; i < d->nfuncs; i++)
		if ((!tid || d->funcs[i].tid == tid) && d->funcs[i].ip == ip) {
			n += d->funcs[i].count;
			if (flags)
				*flags |= d->funcs[i].flags;
		}
	pthread_mutex_unlock(&d->mu);
	return n;
}

static void fd_welcome(struct fake_daemon *d, int fd)
{
	struct ut_msg_welcome w = {.h = {UT_MSG_WELCOME, sizeof(w)},
				   .version = UT_PROTO_VERSION,
				   .nr_cpus = d->nr_cpus,
				   .area_size = ut_area_size(d->nr_cpus)};
	/* the control page and the area: the same file here (its first page is the ctl) */
	int fds[2] = {d->memfd, d->memfd};
	char cbuf[CMSG_SPACE(sizeof(fds))];
	struct iovec iov = {&w, sizeof(w)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	sendmsg(fd, &mh, MSG_NOSIGNAL);
}

static void fd_message(struct fake_daemon *d, struct fd_conn *c, const char *buf, ssize_t n)
{
	const struct ut_msg_hdr *h = (const void *)buf;

	if (n < (ssize_t)sizeof(*h))
		return;
	pthread_mutex_lock(&d->mu);
	if (h->type == UT_MSG_HELLO && n == sizeof(struct ut_msg_hello)) {
		c->pid = ((const struct ut_msg_hello *)buf)->pid;
		if (d->hellos < FD_MAX_CONN)
			d->hello_pids[d->hellos] = c->pid;
		d->hellos++;
		fd_welcome(d, c->fd);
	} else if (h->type == UT_MSG_ACK && n == sizeof(struct ut_msg_ack)) {
		c->acked = ((const struct ut_msg_ack *)buf)->gen;
	} else if (h->type == UT_MSG_TASK && n == sizeof(struct ut_msg_task)) {
		const struct ut_msg_task *t = (const void *)buf;

		if (d->tasks < 64) {
			d->task_tids[d->tasks] = (uint32_t)t->tid;
			memcpy(d->task_comm[d->tasks], t->comm, 16);
			d->task_comm[d->tasks][15] = 0;
		}
		d->tasks++;
	} else if (h->type == UT_MSG_MAPS && n == sizeof(struct ut_msg_maps)) {
		d->maps_msgs++;
	} else if (h->type == UT_MSG_PRINTK_FMT && n > (ssize_t)sizeof(struct ut_msg_printk_fmt) &&
		   d->nfmts < FD_MAX_PRINTS) {
		const struct ut_msg_printk_fmt *m = (const void *)buf;

		d->fmt_addr[d->nfmts] = m->addr;
		snprintf(d->fmt_text[d->nfmts++], sizeof(d->fmt_text[0]), "%.*s",
			 (int)(n - (ssize_t)sizeof(*m)), m->text);
	} else if (h->type == UT_MSG_TRACING && n == sizeof(struct ut_msg_tracing)) {
		d->tracing_msgs++;
		d->last_tracing = (int)((const struct ut_msg_tracing *)buf)->on;
	}
	pthread_mutex_unlock(&d->mu);
}

static void *fd_server(void *arg)
{
	struct fake_daemon *d = arg;

	while (!d->stop) {
		struct pollfd p[FD_MAX_CONN + 1];
		int n = 0;

		p[n++] = (struct pollfd){.fd = d->lfd, .events = POLLIN};
		for (int i = 0; i < d->nconn; i++)
			p[n++] = (struct pollfd){.fd = d->conns[i].alive ? d->conns[i].fd : -1,
						 .events = POLLIN};
		if (poll(p, (nfds_t)n, 20) <= 0)
			continue;
		if ((p[0].revents & POLLIN) && d->nconn < FD_MAX_CONN) {
			int fd = accept4(d->lfd, NULL, NULL, SOCK_CLOEXEC);

			if (fd >= 0) {
				pthread_mutex_lock(&d->mu);
				d->conns[d->nconn++] = (struct fd_conn){.fd = fd, .alive = 1};
				pthread_mutex_unlock(&d->mu);
			}
		}
		for (int i = 1; i < n; i++) {
			struct fd_conn *c = &d->conns[i - 1];
			char buf[2048];

			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			__atomic_store_n(&d->receiving, 1, __ATOMIC_SEQ_CST); /* fd_sync */
			ssize_t r = recv(c->fd, buf, sizeof(buf), 0);

			if (r <= 0) {
				pthread_mutex_lock(&d->mu);
				c->alive = 0;
				close(c->fd);
				pthread_mutex_unlock(&d->mu);
			} else {
				fd_message(d, c, buf, r);
			}
			__atomic_store_n(&d->receiving, 0, __ATOMIC_SEQ_CST);
		}
	}
	return NULL;
}

static void *fd_reader(void *arg)
{
	struct fake_daemon *d = arg;

	while (!d->stop) {
		pthread_mutex_lock(&d->mu);
		for (unsigned int c = 0; c < d->nr_cpus && !d->paused; c++)
			if (ut_rb_cpu(d->area, c)->enabled)
				fd_consume(d, c, 0);
		pthread_mutex_unlock(&d->mu);
		usleep(500);
	}
	return NULL;
}

/* ut_ctl.write_mode as utracefs sets it at start: locked where the kernel has no rseq. */
static void fd_set_write_mode(struct fake_daemon *d, uint32_t mode)
{
	__atomic_store_n(&d->ctl->write_mode, mode, __ATOMIC_SEQ_CST);
}

/* Publish a change: bump gen, wake every process, wait until each live one ACKed. */
static int fd_publish(struct fake_daemon *d, uint32_t tracer, uint32_t opts)
{
	uint64_t end = fd_now_ms() + UT_ACK_TIMEOUT_MS;
	uint32_t gen;

	d->ctl->tracer = tracer;
	d->ctl->opts = opts;
	gen = __atomic_add_fetch(&d->ctl->gen, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &d->ctl->gen, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	while (fd_now_ms() < end) {
		int waiting = 0;

		pthread_mutex_lock(&d->mu);
		for (int i = 0; i < d->nconn; i++)
			if (d->conns[i].alive && d->conns[i].pid &&
			    (int32_t)(d->conns[i].acked - gen) < 0)
				waiting = 1;
		pthread_mutex_unlock(&d->mu);
		if (!waiting)
			return 0;
		usleep(100);
	}
	return -ETIMEDOUT;
}

static int fd_live(struct fake_daemon *d)
{
	int n = 0;

	pthread_mutex_lock(&d->mu);
	for (int i = 0; i < d->nconn; i++)
		n += d->conns[i].alive && d->conns[i].pid;
	pthread_mutex_unlock(&d->mu);
	return n;
}

/* Start serving; dir NULL: a new temporary directory, else reuse that one. */
static int fd_start_in(struct fake_daemon *d, uint32_t tracer, const char *dir)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	memset(d, 0, sizeof(*d));
	pthread_mutex_init(&d->mu, NULL);
	if (dir) {
		snprintf(d->dir, sizeof(d->dir), "%s", dir);
	} else {
		strcpy(d->dir, "/tmp/utrace-rt.XXXXXX");
		if (!mkdtemp(d->dir))
			return -errno;
	}
	snprintf(d->tracing, sizeof(d->tracing), "%s/tracing", d->dir);
	snprintf(d->sock, sizeof(d->sock), "%s.sock", d->tracing);
	d->nr_cpus = (unsigned int)get_nprocs_conf();
	d->memfd = memfd_create("utrace-area", MFD_CLOEXEC);
	if (d->memfd < 0 || ftruncate(d->memfd, (off_t)ut_area_size(d->nr_cpus)))
		return -errno;
	d->area = mmap(NULL, ut_area_size(d->nr_cpus), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_NORESERVE, d->memfd, 0);
	if (d->area == MAP_FAILED)
		return -errno;
	d->ctl = d->area;
	*d->ctl = (struct ut_ctl){.magic = UT_CTL_MAGIC,
				  .version = UT_PROTO_VERSION,
				  .tracer = tracer,
				  .tracing_on = 1,
				  .nr_cpus = d->nr_cpus,
				  .trace_printk = 1,
				  .area_size = ut_area_size(d->nr_cpus),
				  .ftrace_enabled = 1};
	fd_reset_rings(d);
	d->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (strlen(d->sock) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, d->sock, strlen(d->sock) + 1);
	if (d->lfd < 0 || bind(d->lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(d->lfd, 16))
		return -errno;
	setenv("UTRACE_TRACING", d->tracing, 1);
	pthread_create(&d->th, NULL, fd_server, d);
	pthread_create(&d->rd, NULL, fd_reader, d);
	return 0;
}

static int fd_start(struct fake_daemon *d, uint32_t tracer)
{
	return fd_start_in(d, tracer, NULL);
}

/* Stop serving: every connection is closed (the runtimes see EOF).  keep_dir: leave
 * the directory for a daemon that comes back. */
static void fd_stop_keep(struct fake_daemon *d, int keep_dir)
{
	d->stop = 1;
	pthread_join(d->th, NULL);
	pthread_join(d->rd, NULL);
	for (int i = 0; i < d->nconn; i++)
		if (d->conns[i].alive)
			close(d->conns[i].fd);
	close(d->lfd);
	unlink(d->sock);
	if (!keep_dir)
		rmdir(d->dir);
	munmap(d->area, ut_area_size(d->nr_cpus));
	close(d->memfd);
}

static void fd_stop(struct fake_daemon *d)
{
	fd_stop_keep(d, 0);
}

/*
 * The paths of a runtime test, from its own binary (BUILD/tests/test_x): the build
 * directory, its libutrace.so, and the source tree ($UT_TOP, else the build
 * directory's parent).  0, or -1 when the binary's path is unknown.
 */
static int fd_test_paths(char *build, size_t build_size, char *lib, size_t lib_size, char *top,
			 size_t top_size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return -1;
	self[n] = 0;
	snprintf(build, build_size, "%s", dirname(dirname(self)));
	snprintf(lib, lib_size, "%s/lib/libutrace.so", build);
	snprintf(self, sizeof(self), "%s", build);
	snprintf(top, top_size, "%s", getenv("UT_TOP") ? getenv("UT_TOP") : dirname(self));
	return 0;
}

#endif

// SPDX-License-Identifier: MIT
/*
 * registry.c - the control socket (ut_wire.h): which processes are traced, their
 * tasks (saved_cmdlines, saved_tgids) and their acknowledgements.
 *
 * One thread polls the listening socket and every connection.  A peer of another
 * uid is refused (SO_PEERCRED).  Every packet is checked (size, type, NUL-ended
 * strings, the pid it claims); a peer that sends anything else is disconnected,
 * which is also what EOF does: the process is forgotten, while its tasks and
 * maps stay known so that its events still print.  No process may hoard our
 * descriptors: one pid holds at most TFS_CONN_PER_PID connections, one that has
 * not said HELLO within TFS_HELLO_MS is closed, and when accept() runs out of
 * descriptors the listening socket rests a while instead of spinning.
 *
 * tracing_on()/tracing_off() from a program arrive here; applying them waits for
 * the ACKs of every process, including the sender, whose ACK this very thread
 * must read: so they are applied by a separate applier thread.
 *
 * UT_MSG_SITES packets (variable length, up to UT_SITES_PER_MSG offsets) go to the
 * function table (functab.h); when an object is complete, or a process with sites
 * goes, the selection memfd is rewritten and the applier thread bumps gen, for the
 * same reason as above.  WELCOME carries four descriptors: the control page's
 * memfd (sealed against writes), the area's, the selection memfd and the events
 * memfd (both read-only).  UT_MSG_EVENT packets go to event_defs.c; one that is
 * refused there costs its sender that event only, not the connection.
 * UT_MSG_PRINTK_FMT packets (a trace_printk format's text) go to printk_fmt.c.
 *
 * A process may send its sites or maps and exit before this thread has read them;
 * the control files must still see them ("run it once, then set the filter"), as
 * the kernel's files see a module as soon as it is loaded.  So every open of a
 * control file first waits (tfs_registry_sync) until this thread has read all that
 * was already queued on the listening socket and on every connection (or, under
 * churn, made TFS_SYNC_PASSES passes over them: an open must not wait for
 * programs that keep starting).
 *
 * Tasks follow the kernel's saved_cmdlines: saved_cmdlines_size slots used in a
 * circle starting at slot 1, a map from pid mod 32768 to slot, and a lookup that
 * only succeeds when the slot still belongs to that pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control/stack_trace.h"
#include "core.h"
#include "event_defs.h"
#include "functab.h"
#include "latency.h"
#include "printk_fmt.h"
#include "tfs.h"
#include "trace_stat.h"
#include "ut_sel.h"
#include "ut_wire.h"

/*
 * A runtime holds one connection (two for an instant across exec) and says HELLO
 * at once: more, or silence, is a process hoarding what the others need.
 */
#define TFS_CONN_PER_PID 4
#define TFS_HELLO_MS UT_ACK_TIMEOUT_MS
#define TFS_ACCEPT_REST_MS 100 /* after EMFILE/ENFILE */

struct tfs_proc {
	int fd;
	pid_t pid; /* from SO_PEERCRED */
	uint64_t since_ms; /* CLOCK_MONOTONIC at accept: HELLO is due within TFS_HELLO_MS */
	bool hello;
	bool has_ack;
	bool hung; /* missed an ACK deadline: not waited for until it answers */
	bool gone; /* its connection hung up: never waited for again */
	uint32_t acked_queued; /* an ACK of this gen waits unread (tfs_registry_wait_acks) */
	bool sites; /* sent sites: with none by its first ACK, nothing in it is traceable */
	uint32_t acked;
	uint64_t serial; /* order of HELLOs: the newest of a pid is its current image */
	char comm[16];
	char exe[256];
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ack_cond = PTHREAD_COND_INITIALIZER;
static struct tfs_proc *procs;
static unsigned int nr_procs, cap_procs;

static int listen_fd = -1;
static int wake_pipe[2] = {-1, -1};
static pthread_t reg_thread, apply_thread;
static bool reg_running;
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

static pthread_cond_t apply_cond = PTHREAD_COND_INITIALIZER;
static bool apply_pending, apply_stop;
static uint64_t hello_serial; /* reg_lock */
/* tfs_registry_sync: requests made, requests the registry thread took, and done */
static pthread_cond_t sync_cond = PTHREAD_COND_INITIALIZER;
static uint64_t sync_req, sync_taken, sync_done; /* reg_lock */
/* tests: UTRACEFS_TEST_SITES_DELAY_MS makes the naming of every site packet late */
static unsigned int sites_delay_ms;

/* ---- tasks ------------------------------------------------------------------------ */

#define TFS_PID_MAP 32768 /* the kernel's PID_MAX_DEFAULT */
#define TFS_TGID_MAX 65536

struct tfs_slot {
	pid_t pid; /* 0: empty */
	char comm[16];
};

struct tfs_tgid {
	pid_t tid, tgid;
};

static pthread_mutex_t task_lock = PTHREAD_MUTEX_INITIALIZER;
static int pid_to_slot[TFS_PID_MAP]; /* slot + 1; 0: none */
static struct tfs_slot *slots;
static unsigned int nr_slots, slot_idx;
static struct tfs_tgid *tgids; /* sorted by tid */
static unsigned int nr_tgids;

/* Make the table match saved_cmdlines_size; a new size starts empty, as in the kernel. */
static int task_table_sync(void)
{
	unsigned int want = __atomic_load_n(&tfs.saved_cmdlines_size, __ATOMIC_RELAXED);
	struct tfs_slot *s;

	if (!want)
		want = 128;
	if (slots && want == nr_slots)
		return 0;
	s = calloc(want, sizeof(*s));
	if (!s)
		return -ENOMEM;
	free(slots);
	slots = s;
	nr_slots = want;
	slot_idx = 0;
	memset(pid_to_slot, 0, sizeof(pid_to_slot));
	return 0;
}

/* Where tid is, or would go, in the sorted tgids[] (task_lock held). */
static unsigned int tgid_index(pid_t tid)
{
	unsigned int lo = 0, hi = nr_tgids;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (tgids[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void tgid_set(pid_t tid, pid_t tgid)
{
	unsigned int lo = tgid_index(tid);

	if (lo < nr_tgids && tgids[lo].tid == tid) {
		tgids[lo].tgid = tgid;
		return;
	}
	if (nr_tgids == TFS_TGID_MAX)
		return;
	if (!tgids) {
		tgids = calloc(TFS_TGID_MAX, sizeof(*tgids));
		if (!tgids)
			return;
	}
	memmove(&tgids[lo + 1], &tgids[lo], (nr_tgids - lo) * sizeof(*tgids));
	tgids[lo].tid = tid;
	tgids[lo].tgid = tgid;
	nr_tgids++;
}

int tfs_task_record(pid_t tid, pid_t tgid, const char *comm)
{
	unsigned int tpid = (unsigned int)tid & (TFS_PID_MAP - 1);
	int err, idx;

	if (tid <= 0 || !comm)
		return -EINVAL;
	pthread_mutex_lock(&task_lock);
	err = task_table_sync();
	if (err) {
		pthread_mutex_unlock(&task_lock);
		return err;
	}
	idx = pid_to_slot[tpid] - 1;
	if (idx < 0) {
		idx = (int)((slot_idx + 1) % nr_slots);
		pid_to_slot[tpid] = idx + 1;
		slot_idx = (unsigned int)idx;
	}
	slots[idx].pid = tid;
	snprintf(slots[idx].comm, sizeof(slots[idx].comm), "%s", comm);
	if (tgid > 0)
		tgid_set(tid, tgid);
	pthread_mutex_unlock(&task_lock);
	return 0;
}

int tfs_task_comm(pid_t tid, char comm[16])
{
	unsigned int tpid = (unsigned int)tid & (TFS_PID_MAP - 1);
	int ret = -ENOENT;

	if (tid <= 0)
		return -ENOENT;
	pthread_mutex_lock(&task_lock);
	if (task_table_sync() == 0) {
		int idx = pid_to_slot[tpid] - 1;

		if (idx >= 0 && slots[idx].pid == tid) {
			memcpy(comm, slots[idx].comm, 16);
			ret = 0;
		}
	}
	pthread_mutex_unlock(&task_lock);
	return ret;
}

pid_t tfs_task_tgid(pid_t tid)
{
	pid_t tgid = 0;

	pthread_mutex_lock(&task_lock);
	unsigned int lo = tgid_index(tid);

	if (lo < nr_tgids && tgids[lo].tid == tid)
		tgid = tgids[lo].tgid;
	pthread_mutex_unlock(&task_lock);
	return tgid;
}

void tfs_task_foreach(tfs_task_fn fn, void *arg)
{
	struct tfs_slot *copy;
	unsigned int n;

	/* copy first: fn may call tfs_task_tgid() or take other locks */
	pthread_mutex_lock(&task_lock);
	if (task_table_sync()) {
		pthread_mutex_unlock(&task_lock);
		return;
	}
	n = nr_slots;
	copy = malloc(n * sizeof(*copy));
	if (copy)
		memcpy(copy, slots, n * sizeof(*copy));
	pthread_mutex_unlock(&task_lock);
	if (!copy)
		return;
	for (unsigned int i = 0; i < n; i++)
		if (copy[i].pid > 0)
			fn(copy[i].pid, tfs_task_tgid(copy[i].pid), copy[i].comm, arg);
	free(copy);
}

void tfs_task_clear(void)
{
	pthread_mutex_lock(&task_lock);
	free(slots);
	slots = NULL;
	nr_slots = 0;
	free(tgids);
	tgids = NULL;
	nr_tgids = 0;
	pthread_mutex_unlock(&task_lock);
}

static int proc_state(pid_t pid, char *state);

/* ---- acknowledgements ------------------------------------------------------------- */

static bool acked(const struct tfs_proc *p, uint32_t gen)
{
	return p->has_ack && (int32_t)(p->acked - gen) >= 0;
}

/*
 * Whether the packet first in line on fd, not read yet by the registry thread, is
 * an ACK of gen or later: the process has applied gen, the registry thread is
 * late.  Peeked at, not taken: the registry thread reads it as usual.
 */
static bool ack_queued(int fd, uint32_t gen)
{
	struct ut_msg_ack m;
	ssize_t n = recv(fd, &m, sizeof(m), MSG_PEEK | MSG_DONTWAIT);

	return n == (ssize_t)sizeof(m) && m.h.type == UT_MSG_ACK && m.h.len == sizeof(m) &&
	       (int32_t)(m.gen - gen) >= 0;
}

/*
 * Why a process has not acknowledged yet: 0 (it may still answer), 'A' (its ACK
 * waits unread), 'B' (other packets of it wait unread: the registry thread is
 * busy, not the process), 'H' (its
 * connection is closed: it died, maybe by SIGKILL, and the registry thread has
 * not seen the EOF yet), or its state in /proc ('T'/'t' stopped or traced,
 * 'Z'/'X' exiting, '?' gone).
 */
static char proc_cannot_answer(int fd, pid_t pid, uint32_t gen)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN | POLLRDHUP};
	char state;

	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLRDHUP | POLLERR)))
		return 'H';
	if (pfd.revents & POLLIN)
		return ack_queued(fd, gen) ? 'A' : 'B';
	if (proc_state(pid, &state))
		return '?';
	return strchr("TtZX", state) ? state : 0;
}

/* A process that held a change up: on the daemon's stderr and in error_log. */
static void report_hung(pid_t pid, const char *comm, uint32_t gen, bool stopped, int timeout_ms)
{
	char msg[96], who[48];

	if (stopped)
		snprintf(msg, sizeof(msg), "Process is stopped, change %u applied without it",
			 gen);
	else
		snprintf(msg, sizeof(msg), "Process did not acknowledge change %u within %d ms",
			 gen, timeout_ms);
	snprintf(who, sizeof(who), "%s-%d", comm, (int)pid);
	fprintf(stderr, "utracefs: %s: %s\n", who, msg);
	tfs_error_log(&tfs_top, "utracefs", msg, who, 0);
}

/* How often the processes that have not answered yet are looked at while waiting. */
#define ACK_LOOK_MS 10

/*
 * Wait until every registered process acknowledged gen, at most timeout_ms.  No
 * process costs more than one wait: one that misses the deadline, or is found
 * stopped, is marked hung and not waited for again until it answers.  Every
 * ACK_LOOK_MS the ones still silent are looked at, so that a dead process (its
 * connection hung up, the registry thread busy elsewhere) or a stopped one does
 * not hold the write up to the deadline, nor one whose ACK waits unread (the
 * registry thread is busy naming sites, say).  One whose other packets wait unread
 * at the deadline is not blamed: the registry thread was late, not it.
 */
void tfs_registry_wait_acks(uint32_t gen, int timeout_ms)
{
	struct timespec end = tfs_deadline(CLOCK_REALTIME, timeout_ms);

	pthread_mutex_lock(&reg_lock);
	for (;;) {
		struct timespec look = tfs_deadline(CLOCK_REALTIME, ACK_LOOK_MS);
		bool waiting = false, late;
		int rc;

		for (unsigned int i = 0; i < nr_procs; i++)
			if (procs[i].hello && !procs[i].hung && !procs[i].gone &&
			    !acked(&procs[i], gen) && procs[i].acked_queued != gen)
				waiting = true;
		if (!waiting)
			break;
		late = look.tv_sec > end.tv_sec ||
		       (look.tv_sec == end.tv_sec && look.tv_nsec >= end.tv_nsec);
		rc = pthread_cond_timedwait(&ack_cond, &reg_lock, late ? &end : &look);
		if (rc != ETIMEDOUT)
			continue;
		for (unsigned int i = 0; i < nr_procs; i++) {
			struct tfs_proc *p = &procs[i];
			char why;

			if (!p->hello || p->hung || p->gone || acked(p, gen) ||
			    p->acked_queued == gen)
				continue;
			why = proc_cannot_answer(p->fd, p->pid, gen);
			if (why == 'H' || why == 'Z' || why == 'X' || why == '?') {
				p->gone = true; /* the registry thread will see its EOF */
				continue;
			}
			if (why == 'A') {
				p->acked_queued = gen; /* for this wait only: acked is the registry's */
				continue;
			}
			if (why == 'B' || (!why && !late))
				continue; /* its ACK may be there: not its fault */
			p->hung = true;
			report_hung(p->pid, p->comm, gen, why != 0, timeout_ms);
		}
		if (late)
			break;
	}
	pthread_mutex_unlock(&reg_lock);
}

unsigned int tfs_registry_count(void)
{
	unsigned int n = 0;

	pthread_mutex_lock(&reg_lock);
	for (unsigned int i = 0; i < nr_procs; i++)
		n += procs[i].hello;
	pthread_mutex_unlock(&reg_lock);
	return n;
}

/* ---- the applier thread ------------------------------------------------------------- */

static void *apply_main(void *arg)
{
	pthread_mutex_lock(&reg_lock);
	for (;;) {
		while (!apply_pending && !apply_stop)
			pthread_cond_wait(&apply_cond, &reg_lock);
		if (apply_stop)
			break;
		apply_pending = false;
		pthread_mutex_unlock(&reg_lock);
		tfs_apply(&tfs_top);
		pthread_mutex_lock(&reg_lock);
	}
	pthread_mutex_unlock(&reg_lock);
	return NULL;
}

static void apply_later(void)
{
	pthread_mutex_lock(&reg_lock);
	apply_pending = true;
	pthread_cond_signal(&apply_cond);
	pthread_mutex_unlock(&reg_lock);
}

/* ---- connections --------------------------------------------------------------------- */

static struct tfs_proc *proc_of_fd(int fd)
{
	for (unsigned int i = 0; i < nr_procs; i++)
		if (procs[i].fd == fd)
			return &procs[i];
	return NULL;
}

static void apply_later(void);

static void proc_remove(unsigned int i)
{
	pid_t pid;
	bool hello;

	pthread_mutex_lock(&reg_lock);
	pid = procs[i].pid;
	hello = procs[i].hello;
	close(procs[i].fd);
	procs[i] = procs[--nr_procs];
	/* after an exec the new image may have registered before the old one's EOF */
	for (unsigned int j = 0; j < nr_procs; j++)
		if (procs[j].pid == pid && procs[j].hello)
			hello = false;
	pthread_cond_broadcast(&ack_cond); /* nobody waits for it any more */
	pthread_mutex_unlock(&reg_lock);
	/* its functions leave available_filter_functions; its section goes; with
	 * function-fork its id leaves set_ftrace_pid (the kernel's exit probe) */
	if (hello) {
		bool gone = tfs_ft_proc_gone(pid);

		tfs_sym_proc_gone(pid); /* its mappings stay for its events */
		gone |= tfs_pid_exit(pid);
		if (gone && tfs_sel_publish() == 0)
			apply_later();
	}
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * A new connection of process pid: not registered until its HELLO.  0, -EMFILE
 * when pid has TFS_CONN_PER_PID connections already, or -ENOMEM.
 */
static int proc_add(int fd, pid_t pid)
{
	unsigned int same = 0;

	pthread_mutex_lock(&reg_lock);
	for (unsigned int i = 0; i < nr_procs; i++)
		same += procs[i].pid == pid;
	if (same >= TFS_CONN_PER_PID) {
		pthread_mutex_unlock(&reg_lock);
		return -EMFILE;
	}
	if (nr_procs == cap_procs) {
		unsigned int cap = cap_procs ? 2 * cap_procs : 16;
		struct tfs_proc *p = realloc(procs, cap * sizeof(*p));

		if (!p) {
			pthread_mutex_unlock(&reg_lock);
			return -ENOMEM;
		}
		procs = p;
		cap_procs = cap;
	}
	procs[nr_procs++] = (struct tfs_proc){.fd = fd, .pid = pid, .since_ms = now_ms()};
	pthread_mutex_unlock(&reg_lock);
	return 0;
}

/* Accept one connection; -errno when accept() itself failed (EMFILE: rest). */
static int accept_one(void)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.uid != geteuid()) {
		close(fd); /* the mount, the socket and the area are the owner's only */
		return 0;
	}
	if (proc_add(fd, cred.pid))
		close(fd);
	return 0;
}

/*
 * Close the connections whose HELLO is overdue (only this thread changes procs[]);
 * returns how long poll() may wait for the next one to fall due, or -1.
 */
static int expire_silent(void)
{
	uint64_t now = now_ms();
	int wait = -1;

	for (unsigned int i = nr_procs; i-- > 0;) {
		uint64_t due = procs[i].since_ms + TFS_HELLO_MS;

		if (procs[i].hello)
			continue;
		if (now >= due) {
			proc_remove(i);
			continue;
		}
		if (wait < 0 || due - now < (uint64_t)wait)
			wait = (int)(due - now);
	}
	return wait;
}

static int send_welcome(int fd)
{
	struct ut_msg_welcome w = {
	    .h = {.type = UT_MSG_WELCOME, .len = sizeof(w)},
	    .version = UT_PROTO_VERSION,
	    .nr_cpus = tfs.nr_cpus,
	    .area_size = tfs.area_size,
	};
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} cmsg;
	/* the control page (sealed), the area, the selection and the events (read-only) */
	int fds[4] = {tfs.ctl_fd, tfs.area_fd, tfs_sel_fd_ro(), tfs_event_defs_fd_ro()}, ret = 0;
	size_t nfds = fds[3] >= 0 ? 4 : 3; /* no events memfd: processes define none */
	struct iovec iov = {.iov_base = &w, .iov_len = sizeof(w)};
	struct msghdr mh = {
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = cmsg.buf,
	    .msg_controllen = sizeof(cmsg.buf),
	};
	struct cmsghdr *c;

	if (fds[2] < 0) {
		if (fds[3] >= 0)
			close(fds[3]);
		return -EIO;
	}
	c = CMSG_FIRSTHDR(&mh);
	memset(cmsg.buf, 0, sizeof(cmsg.buf));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	if (sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(w))
		ret = -EIO;
	close(fds[2]);
	if (fds[3] >= 0)
		close(fds[3]);
	return ret;
}

static bool str_ok(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

/* Sizes of the messages a process may send; 0: not accepted from a process. */
static size_t msg_size(uint32_t type)
{
	switch (type) {
	case UT_MSG_HELLO:
		return sizeof(struct ut_msg_hello);
	case UT_MSG_ACK:
		return sizeof(struct ut_msg_ack);
	case UT_MSG_TASK:
		return sizeof(struct ut_msg_task);
	case UT_MSG_MAPS:
		return sizeof(struct ut_msg_maps);
	case UT_MSG_TRACING:
		return sizeof(struct ut_msg_tracing);
	case UT_MSG_PROBE:
		return sizeof(struct ut_msg_probe);
	case UT_MSG_NOTE:
		return sizeof(struct ut_msg_note);
	case UT_MSG_OBJECT:
		return sizeof(struct ut_msg_object);
	case UT_MSG_THREAD:
		return sizeof(struct ut_msg_thread);
	case UT_MSG_STACK:
		return sizeof(struct ut_msg_stack);
	case UT_MSG_LATENCY:
		return sizeof(struct ut_msg_latency);
	}
	return 0;
}

/* A SITES packet: its length follows from nr; the rest is checked by the table. */
static bool sites_size_ok(const void *buf, size_t n)
{
	const struct ut_msg_sites *m = buf;

	return n >= sizeof(*m) && m->nr <= UT_SITES_PER_MSG &&
	       n == sizeof(*m) + (size_t)m->nr * sizeof(uint32_t);
}

/*
 * After an exec the new image registers on a new connection while what the old
 * image sent last may not have been read yet: the objects and sites of a pid are
 * the newest image's (its objects would be replaced by the old one's).  True when
 * fd's process is an older image of pid (reg_lock held).
 */
static bool older_image(const struct tfs_proc *p, pid_t pid)
{
	for (unsigned int i = 0; i < nr_procs; i++)
		if (procs[i].pid == pid && procs[i].hello && procs[i].serial > p->serial)
			return true;
	return false;
}

static int on_sites(int fd, pid_t pid, const struct ut_msg_sites *m)
{
	char exe[sizeof(((struct tfs_proc *)0)->exe)];
	struct tfs_proc *p;
	bool older;
	int ret;

	if (!str_ok(m->path, sizeof(m->path)) || (m->total && m->path[0] != '/'))
		return -EPROTO;
	pthread_mutex_lock(&reg_lock);
	p = proc_of_fd(fd);
	p->sites |= m->total > 0;
	memcpy(exe, p->exe, sizeof(exe));
	older = older_image(p, pid);
	pthread_mutex_unlock(&reg_lock);
	if (older)
		return 0;
	if (sites_delay_ms)
		usleep(sites_delay_ms * 1000u);
	if (m->first == 0 && m->total)
		tfs_sym_object_mapped(pid, m->path, m->base, m->tsc, 0);
	else if (m->total == 0)
		tfs_sym_object_unmapped(pid, m->base, m->tsc);
	ret = tfs_ft_sites(pid, m->obj, m->path, !strcmp(m->path, exe), m->base, m->total,
			   m->first, m->nr, m->offsets);
	if (ret < 0)
		return ret == -ENOMEM ? 0 : -EPROTO; /* out of memory: not the peer's fault */
	/* the applier thread waits for the ACKs: this one must go on reading them */
	if (ret == 1 && tfs_sel_publish() == 0)
		apply_later();
	return 0;
}

/* An object the loader mapped or unmapped (with sites or not): placed by its stamp. */
static int on_object(int fd, pid_t pid, const struct ut_msg_object *m)
{
	bool older;

	if (!str_ok(m->path, sizeof(m->path)) || (m->loaded && m->path[0] != '/'))
		return -EPROTO;
	pthread_mutex_lock(&reg_lock);
	older = older_image(proc_of_fd(fd), pid);
	pthread_mutex_unlock(&reg_lock);
	if (older)
		return 0;
	if (m->loaded)
		tfs_sym_object_mapped(pid, m->path, m->base, m->tsc, (ino_t)m->ino);
	else
		tfs_sym_object_unmapped(pid, m->base, m->tsc);
	return 0;
}

static int on_hello(int fd, const struct ut_msg_hello *m)
{
	struct tfs_proc *p;
	bool forked;
	pid_t pid;

	if (m->version != UT_PROTO_VERSION || !str_ok(m->comm, sizeof(m->comm)) ||
	    !str_ok(m->exe, sizeof(m->exe)))
		return -EPROTO;
	pthread_mutex_lock(&reg_lock);
	p = proc_of_fd(fd);
	if (p->hello || m->pid != p->pid) {
		pthread_mutex_unlock(&reg_lock);
		return -EPROTO;
	}
	pid = p->pid;
	memcpy(p->comm, m->comm, sizeof(p->comm));
	memcpy(p->exe, m->exe, sizeof(p->exe));
	pthread_mutex_unlock(&reg_lock);

	tfs_task_record(m->tid > 0 ? m->tid : pid, pid, m->comm);
	tfs_sym_load_maps(pid);
	tfs_ft_proc_gone(pid); /* sites of an image it replaced by exec */
	/* function-fork, event-fork: a child of a selected task is selected (before
	 * its sites come, so that its first section already says so) */
	forked = tfs_pid_fork(pid, m->ptid);
	if (forked)
		tfs_sel_publish();
	if (send_welcome(fd)) {
		/* gone already: proc_remove will not drop what it never registered */
		if (forked && tfs_pid_exit(pid))
			tfs_sel_publish();
		return -EIO;
	}
	/* waited for only from here on: it answers with the gen it then applies */
	pthread_mutex_lock(&reg_lock);
	p = proc_of_fd(fd);
	p->hello = true;
	p->serial = ++hello_serial;
	pthread_mutex_unlock(&reg_lock);
	return 0;
}

/*
 * A program with no patch site traces nothing (built without the flags of `utrace
 * cflags`): said once per program on the console, as the kernel would printk it.
 * Only the registry thread calls it.
 */
static void say_no_sites(pid_t pid, const char *exe)
{
	static char *said[256];
	static unsigned int nr_said;
	unsigned int i;

	for (i = 0; i < nr_said; i++)
		if (!strcmp(said[i], exe))
			return;
	if (nr_said < sizeof(said) / sizeof(said[0]))
		said[nr_said++] = strdup(exe);
	fprintf(stderr,
		"utracefs: %s (pid %d) has no patch sites: none of its functions can be traced "
		"(build it with the flags of 'utrace cflags')\n",
		exe, (int)pid);
}

/*
 * A traced process's runtime has something to say (it never writes to the
 * program's own stderr): one line on the console, as the kernel's own messages go
 * to its console, with anything unprintable replaced.
 */
static int on_note(pid_t pid, const struct ut_msg_note *m)
{
	char text[UT_NOTE_MAX];

	if (!str_ok(m->text, sizeof(m->text)))
		return -EPROTO;
	for (size_t i = 0; i < sizeof(text); i++) {
		unsigned char c = (unsigned char)m->text[i];

		text[i] = c == 0 ? 0 : c < 0x20 || c >= 0x7f ? '?' : (char)c;
		if (!c)
			break;
	}
	fprintf(stderr, "utracefs: process %d, thread %d: %s\n", (int)pid, (int)m->tid, text);
	return 0;
}

/*
 * A snapshot probe fired: swap the buffer of its instance into that instance's
 * snapshot.  An instance's traceon/traceoff fired (the top level's come as
 * UT_MSG_TRACING): its tracing_on file says it from now on.  An instance removed
 * meanwhile is left alone (its probes went with it).
 */
static int on_inst_probe(const struct ut_msg_probe *m)
{
	bool snap = m->cmd == UT_PROBE_SNAPSHOT;
	struct tfs_instance *inst;

	if (!snap && !m->inst)
		return -EPROTO;
	inst = tfs_inst_hold(m->inst);
	if (!inst)
		return 0;
	if (snap) {
		tfs_spare_swap(inst, -1);
	} else {
		tfs_lock();
		inst->tracing_on = m->cmd == UT_PROBE_TRACEON;
		tfs_unlock();
		tfs_apply(inst); /* an instance's page: nobody to wait for */
	}
	tfs_inst_put(inst);
	return 0;
}

static int on_message(int fd, const void *buf, size_t n)
{
	struct ut_msg_hdr h;
	struct tfs_proc *p;
	pid_t pid;
	bool hello;

	if (n < sizeof(h))
		return -EPROTO;
	memcpy(&h, buf, sizeof(h));
	if (h.len != n || (h.type == UT_MSG_SITES	? !sites_size_ok(buf, n)
			   : h.type == UT_MSG_EVENT	? n > UT_EVENT_MSG_MAX
			   : h.type == UT_MSG_PROFILE	? n < sizeof(struct ut_msg_profile)
			   : h.type == UT_MSG_PRINTK_FMT ? n > sizeof(struct ut_msg_printk_fmt) +
								     UT_PRINTK_FMT_MAX
							 : msg_size(h.type) != n))
		return -EPROTO;
	pthread_mutex_lock(&reg_lock);
	p = proc_of_fd(fd);
	pid = p->pid;
	hello = p->hello;
	pthread_mutex_unlock(&reg_lock);
	if (h.type == UT_MSG_HELLO)
		return on_hello(fd, buf);
	if (!hello)
		return -EPROTO;

	switch (h.type) {
	case UT_MSG_ACK: {
		const struct ut_msg_ack *m = buf;
		char exe[sizeof(p->exe)];
		bool no_sites;

		pthread_mutex_lock(&reg_lock);
		p = proc_of_fd(fd);
		/* the first ACK follows the sites it sent when it attached */
		no_sites = !p->has_ack && !p->sites;
		memcpy(exe, p->exe, sizeof(exe));
		p->acked = m->gen;
		p->has_ack = true;
		p->hung = false;
		pthread_cond_broadcast(&ack_cond);
		pthread_mutex_unlock(&reg_lock);
		if (no_sites)
			say_no_sites(pid, exe);
		return 0;
	}
	case UT_MSG_TASK: {
		const struct ut_msg_task *m = buf;

		if (m->pid != pid || m->tid <= 0 || !str_ok(m->comm, sizeof(m->comm)))
			return -EPROTO;
		return tfs_task_record(m->tid, m->pid, m->comm) == -EINVAL ? -EPROTO : 0;
	}
	case UT_MSG_MAPS:
		tfs_sym_maps_changed(pid, ((const struct ut_msg_maps *)buf)->tsc);
		return 0;
	case UT_MSG_SITES:
		return on_sites(fd, pid, buf);
	case UT_MSG_OBJECT:
		return on_object(fd, pid, buf);
	case UT_MSG_TRACING: {
		const struct ut_msg_tracing *m = buf;

		tfs_lock();
		tfs_top.tracing_on = m->on != 0;
		tfs_unlock();
		apply_later();
		return 0;
	}
	case UT_MSG_PROBE: {
		const struct ut_msg_probe *m = buf;
		int cpu = m->cmd == UT_PROBE_CPUDUMP ? m->cpu : -1;

		if (m->inst >= UT_INST_MAX)
			return -EPROTO;
		if (m->cmd == UT_PROBE_SNAPSHOT || m->cmd == UT_PROBE_TRACEON ||
		    m->cmd == UT_PROBE_TRACEOFF)
			return on_inst_probe(m);
		if (m->cmd != UT_PROBE_DUMP && m->cmd != UT_PROBE_CPUDUMP)
			return -EPROTO;
		/* as the kernel's ftrace_dump: tracing stays off, the dump consumes */
		tfs_lock();
		tfs_top.tracing_on = false;
		if (cpu >= (int)tfs.nr_cpus)
			cpu = -1;
		tfs_unlock();
		apply_later();
		tfs_trace_dump(cpu < 0 ? -1 : cpu);
		return 0;
	}
	case UT_MSG_NOTE:
		return on_note(pid, buf);
	case UT_MSG_THREAD: {
		const struct ut_msg_thread *m = buf;

		if (m->tid <= 0 || m->ptid < 0 || m->exit > 1)
			return -EPROTO;
		/* function-fork, event-fork: the kernel's fork and exit probes for a thread */
		if (tfs_pid_thread(pid, m->tid, m->ptid, m->serial, m->exit) &&
		    tfs_sel_publish() == 0)
			apply_later();
		return 0;
	}
	case UT_MSG_EVENT:
		/* a bad definition is refused with a console line; the connection goes on */
		if (tfs_event_announce(pid, buf, n) > 0)
			apply_later(); /* enabled already: the process looks its id up */
		return 0;
	case UT_MSG_PRINTK_FMT:
		return tfs_printk_fmt_msg(pid, buf, n);
	case UT_MSG_STACK:
		return tfs_stack_msg(pid, buf);
	case UT_MSG_LATENCY:
		return tfs_lat_msg(pid, buf);
	case UT_MSG_PROFILE:
		return tfs_profile_msg(pid, buf, n);
	}
	return -EPROTO;
}

/* The fuzzing harness's way in (core.h): what reg_main does with one packet. */
int tfs_registry_adopt(int fd, pid_t pid)
{
	return proc_add(fd, pid);
}

int tfs_registry_packet(int fd, const void *buf, size_t n)
{
	int ret = on_message(fd, buf, n);

	if (ret < 0)
		tfs_registry_drop(fd);
	return ret;
}

void tfs_registry_drop(int fd)
{
	for (unsigned int i = 0; i < nr_procs; i++)
		if (procs[i].fd == fd) {
			proc_remove(i);
			return;
		}
}

/* Read one packet: 1 when one was handled, 0 when none was there, <0 ends the
 * connection (EOF, error, bad packet). */
static int on_readable(int fd)
{
	/* the largest packet: SITES with UT_SITES_PER_MSG offsets (one thread reads) */
	static union {
		char buf[sizeof(struct ut_msg_sites) + UT_SITES_PER_MSG * sizeof(uint32_t)];
		uint64_t align;
	} msg;
	union {
		char buf[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr align;
	} cmsg;
	struct iovec iov = {.iov_base = msg.buf, .iov_len = sizeof(msg.buf)};
	struct msghdr mh = {
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = cmsg.buf,
	    .msg_controllen = sizeof(cmsg.buf),
	};
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	bool had_fds = false;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0)
		return -ECONNRESET;
	/* nobody sends us descriptors: close any, then refuse the packet */
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < nfd; i++) {
				int pfd;

				memcpy(&pfd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				close(pfd);
			}
			had_fds = true;
		}
	}
	if (had_fds || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		return -EPROTO;
	n = on_message(fd, msg.buf, (size_t)n);
	return n < 0 ? (int)n : 1;
}

/* The wake pipe: 'x' stops the thread (true), 's' asks for a sync (taken now). */
static bool wake_read(void)
{
	char c[64];
	ssize_t n = read(wake_pipe[0], c, sizeof(c));
	bool stop = n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR));

	for (ssize_t i = 0; i < n; i++)
		stop |= c[i] == 'x';
	pthread_mutex_lock(&reg_lock);
	sync_taken = sync_req;
	pthread_mutex_unlock(&reg_lock);
	return stop;
}

void tfs_registry_sync(int timeout_ms)
{
	struct timespec end;
	uint64_t want;

	if (!reg_running || pthread_equal(pthread_self(), reg_thread))
		return;
	end = tfs_deadline(CLOCK_REALTIME, timeout_ms);
	pthread_mutex_lock(&reg_lock);
	want = ++sync_req;
	pthread_mutex_unlock(&reg_lock);
	if (write(wake_pipe[1], "s", 1) < 0)
		return; /* the pipe is full: the thread has wake-ups to read already */
	pthread_mutex_lock(&reg_lock);
	while (sync_done < want)
		if (pthread_cond_timedwait(&sync_cond, &reg_lock, &end) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&reg_lock);
}

/*
 * A sync is done once nothing is left to read, or after this many passes over the
 * connections (each reads up to TFS_SYNC_BURST packets of every one that has some):
 * under churn new packets never stop coming, and an open must not wait for them.
 */
#define TFS_SYNC_PASSES 4
#define TFS_SYNC_BURST 64 /* packets of one connection a syncing pass reads */

/* One more pass made for the syncs taken: done with them after TFS_SYNC_PASSES. */
static void sync_pass(bool drained, uint64_t *target, unsigned int *passes)
{
	pthread_mutex_lock(&reg_lock);
	if (drained) {
		sync_done = sync_taken;
	} else if (sync_taken != sync_done) {
		if (*target <= sync_done) { /* syncs taken since: count anew for them */
			*target = sync_taken;
			*passes = 0;
		}
		if (++*passes >= TFS_SYNC_PASSES)
			sync_done = *target;
	}
	pthread_cond_broadcast(&sync_cond);
	pthread_mutex_unlock(&reg_lock);
}

static void *reg_main(void *arg)
{
	struct pollfd *pfd = NULL;
	unsigned int cap = 0, sync_passes = 0;
	uint64_t rest_until = 0; /* accept() ran out of descriptors: not before then */
	uint64_t sync_target = 0; /* the syncs the passes are counted for */

	for (;;) {
		unsigned int n;
		int timeout = expire_silent();
		uint64_t now = now_ms();
		bool syncing;
		int ready;

		pthread_mutex_lock(&reg_lock);
		n = nr_procs;
		if (n + 2 > cap) {
			struct pollfd *q = realloc(pfd, (n + 2) * sizeof(*q));

			if (q) {
				pfd = q;
				cap = n + 2;
			}
		}
		if (n + 2 > cap)
			n = cap >= 2 ? cap - 2 : 0;
		for (unsigned int i = 0; i < n; i++)
			pfd[2 + i] = (struct pollfd){.fd = procs[i].fd, .events = POLLIN};
		pthread_mutex_unlock(&reg_lock);
		if (!pfd)
			break;
		pfd[0] = (struct pollfd){.fd = wake_pipe[0], .events = POLLIN};
		/* a negative fd is not polled: the listening socket rests */
		pfd[1] = (struct pollfd){.fd = now < rest_until ? -1 : listen_fd, .events = POLLIN};
		if (now < rest_until && (timeout < 0 || rest_until - now < (uint64_t)timeout))
			timeout = (int)(rest_until - now);

		pthread_mutex_lock(&reg_lock);
		syncing = sync_taken != sync_done;
		pthread_mutex_unlock(&reg_lock);
		ready = poll(pfd, n + 2, syncing ? 0 : timeout);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (ready == 0) { /* nothing left to read (or a time-out): a sync asked for is done */
			sync_pass(true, &sync_target, &sync_passes);
			continue;
		}
		if (pfd[0].revents && wake_read())
			break;
		/* downwards: removing i moves the last entry, which is done or new */
		for (unsigned int i = n; i-- > 0;) {
			int r = 0;

			if (!pfd[2 + i].revents)
				continue;
			/* a sync reads a process's burst (its registration) at once, not a packet */
			for (unsigned int k = 0; k < (syncing ? TFS_SYNC_BURST : 1u); k++)
				if ((r = on_readable(pfd[2 + i].fd)) <= 0)
					break;
			if (r < 0)
				proc_remove(i);
		}
		if (pfd[1].revents & POLLIN) {
			int err = accept_one();

			if (err == -EMFILE || err == -ENFILE || err == -ENOBUFS || err == -ENOMEM)
				rest_until = now_ms() + TFS_ACCEPT_REST_MS;
		}
		if (syncing)
			sync_pass(false, &sync_target, &sync_passes);
	}
	free(pfd);
	return NULL;
}

/* The directory of the socket: created 0700 when missing; ours (utrace-UID) made 0700. */
static int socket_dir(const char *path)
{
	char dir[sizeof(sock_path)], mine[32];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	snprintf(mine, sizeof(mine), "utrace-%u", (unsigned int)geteuid());
	slash = strrchr(dir, '/');
	if (slash && strcmp(slash + 1, mine) == 0 && chmod(dir, 0700))
		return -errno;
	return 0;
}

/* A socket file left by a daemon that died is removed; a live one is EADDRINUSE. */
static int clear_stale(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
		err = -EADDRINUSE;
	else if (errno == ECONNREFUSED)
		unlink(sa->sun_path);
	close(fd);
	return err;
}

int tfs_registry_start(const char *socket_path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int err;

	if (strlen(socket_path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, socket_path);
	if (getenv("UTRACEFS_TEST_SITES_DELAY_MS"))
		sites_delay_ms = (unsigned int)atoi(getenv("UTRACEFS_TEST_SITES_DELAY_MS")) % 10000;
	err = socket_dir(socket_path);
	if (!err)
		err = clear_stale(&sa);
	if (err)
		return err;

	listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (listen_fd < 0)
		return -errno;
	/* the socket inode's mode (minus umask) is what bind gives the file */
	if (fchmod(listen_fd, 0600) || bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(socket_path, 0600) || listen(listen_fd, 64) || pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK)) {
		err = -errno;
		goto fail;
	}
	strcpy(sock_path, socket_path);
	err = tfs_sel_init();
	if (!err)
		err = tfs_event_defs_init();
	if (err)
		goto fail;
	apply_stop = false;
	err = -pthread_create(&apply_thread, NULL, apply_main, NULL);
	if (err)
		goto fail;
	err = -pthread_create(&reg_thread, NULL, reg_main, NULL);
	if (err) {
		pthread_mutex_lock(&reg_lock);
		apply_stop = true;
		pthread_cond_signal(&apply_cond);
		pthread_mutex_unlock(&reg_lock);
		pthread_join(apply_thread, NULL);
		goto fail;
	}
	reg_running = true;
	return 0;
fail:
	close(listen_fd);
	listen_fd = -1;
	if (sock_path[0] || err != -EADDRINUSE)
		unlink(socket_path);
	sock_path[0] = '\0';
	for (int i = 0; i < 2; i++) {
		if (wake_pipe[i] >= 0)
			close(wake_pipe[i]);
		wake_pipe[i] = -1;
	}
	return err;
}

void tfs_registry_stop(void)
{
	if (!reg_running)
		return;
	if (write(wake_pipe[1], "x", 1) < 0)
		perror("utracefs: registry stop");
	pthread_join(reg_thread, NULL);
	pthread_mutex_lock(&reg_lock);
	apply_stop = true;
	pthread_cond_signal(&apply_cond);
	pthread_mutex_unlock(&reg_lock);
	pthread_join(apply_thread, NULL);

	/* processes see EOF and go dormant */
	while (nr_procs)
		proc_remove(nr_procs - 1);
	free(procs);
	procs = NULL;
	cap_procs = 0;
	close(listen_fd);
	listen_fd = -1;
	unlink(sock_path);
	sock_path[0] = '\0';
	for (int i = 0; i < 2; i++) {
		close(wake_pipe[i]);
		wake_pipe[i] = -1;
	}
	reg_running = false;
}

/*
 * /proc/TID/stat into buf; *rest points after the comm's closing parenthesis (a
 * comm may hold ')' itself: the last one ends it).  0 or -ENOENT.
 */
static int proc_stat_read(pid_t tid, char *buf, size_t size, char **rest)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	*rest = strrchr(buf, ')');
	return *rest ? 0 : -ENOENT;
}

static int proc_state(pid_t pid, char *state)
{
	char buf[1024], *p;

	if (proc_stat_read(pid, buf, sizeof(buf), &p) || p[1] != ' ' || !p[2])
		return -ENOENT;
	*state = p[2];
	return 0;
}

int tfs_proc_stat_field(pid_t tid, unsigned int field, long *val)
{
	char buf[1024], *p;
	unsigned int f = 3; /* the first field after the comm in parentheses */

	if (field < f || proc_stat_read(tid, buf, sizeof(buf), &p))
		return -ENOENT;
	for (p++; f < field && *p; f++) {
		p += strspn(p, " ");
		p += strcspn(p, " ");
	}
	if (f != field || sscanf(p, " %ld", val) != 1)
		return -ENOENT;
	return 0;
}

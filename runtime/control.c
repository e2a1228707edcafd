// SPDX-License-Identifier: MIT
/*
 * control.c - the connection to utracefs and the control thread.
 *
 * Attaching (ut_wire.h): connect to ut_socket_path(), send HELLO, receive WELCOME
 * and the memfds of the control page and of the area (and the selection memfd,
 * ut_sel.h, and the events memfd, ut_event.h: events.c), map the control page read-only and the rest of the area read-write
 * (one contiguous range: the trampoline addresses everything from the control
 * page), send the sites of every object
 * (UT_MSG_SITES), apply the control page and ACK its generation.
 *
 * Applying reads this process's section of the selection memfd (selread.c) into
 * each site's sel, then patches every site the tracer and its UT_SEL_TRACE ask
 * for; only sites whose bytes change are touched.  A process utracefs has no
 * section for yet patches nothing while a filter is set (its section comes once
 * utracefs has named the sites we sent, with a new generation); without a
 * selection memfd (an older utracefs) every site is traced.
 *
 * The control thread (all signals blocked, runs only runtime code, so never
 * traced) then waits on ctl->gen (shared futex, with a timeout so that it also
 * notices the socket's EOF), applies every new generation and ACKs it.  When the
 * daemon goes away it unpatches everything and keeps the old mapping (a thread
 * may still be inside the trampoline with the old pointer), then watches for the
 * socket to appear again (inotify on its directory, and a 1 s poll).
 *
 * The socket's descriptor number never changes once allocated: a new connection
 * is dup3()ed onto it, so that a thread sending a TASK message concurrently can
 * never write into a descriptor the program reused.  Programs that close every
 * descriptor (daemons) may close ours and reuse the number: every use first checks
 * that the descriptor is still our socket (device and inode), and a lost one is
 * treated as the daemon gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "profile.h"
#include "rt.h"
#include "selread.h"
#include "ut_paths.h"
#include "ut_wire.h"

#define CTL_WAIT_MS 200
#define WATCH_POLL_MS 1000

static int sock_fd = -1;
static dev_t sock_dev;
static ino_t sock_ino;
static volatile int attached;
static volatile uint32_t applied_gen;
static char hello_exe[256]; /* the exe HELLO named: the executable's SITES path */

/* The selection memfd, read-only, at a high number like the socket; -1: none. */
static int sel_fd = -1;
static dev_t sel_dev;
static ino_t sel_ino;
uint8_t ut_sel_default = UT_SEL_TRACE;
volatile uint32_t ut_sel_graph_funcs;

/* Is sock_fd still the socket we opened (the program may have closed it)? */
static int sock_is_ours(void)
{
	struct stat st;

	return sock_fd >= 0 && fstat(sock_fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       st.st_dev == sock_dev && st.st_ino == sock_ino;
}

/* Put fd at our descriptor number (a fresh number if the old one is not ours). */
static void sock_install(int fd)
{
	struct stat st;

	if (sock_fd >= 0 && sock_is_ours()) {
		dup3(fd, sock_fd, O_CLOEXEC);
		close(fd);
	} else {
		sock_fd = fd;
	}
	if (fstat(sock_fd, &st) == 0) {
		sock_dev = st.st_dev;
		sock_ino = st.st_ino;
	}
}

int ut_send(const void *msg, size_t len)
{
	int fd = sock_fd;

	if (fd < 0 || !attached || !sock_is_ours())
		return -ENOTCONN;
	return send(fd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)len ? 0 : -errno;
}

void ut_send_task(uint32_t tid)
{
	struct ut_msg_task m = {
	    .h = {UT_MSG_TASK, sizeof(m)}, .tid = (int32_t)tid, .pid = (int32_t)getpid()};

	syscall(SYS_prctl, PR_GET_NAME, m.comm, 0, 0, 0); /* not our prctl(): no dlsym */
	ut_send(&m, sizeof(m));
}

/*
 * The runtime's messages go to utracefs's console, never to the program's stderr;
 * detached, they are lost.  Formatted on the stack: no malloc for integers and
 * strings.
 */
void ut_note(const char *fmt, ...)
{
	struct ut_msg_note m = {.h = {UT_MSG_NOTE, sizeof(m)}, .tid = (int32_t)syscall(SYS_gettid)};
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	ut_send(&m, sizeof(m));
	errno = saved;
}

const char *ut_exe_path(void)
{
	return hello_exe;
}

void ut_send_maps(void)
{
	struct ut_msg_maps m = {.h = {UT_MSG_MAPS, sizeof(m)}, .tsc = __builtin_ia32_rdtsc()};

	ut_send(&m, sizeof(m));
}

/*
 * Keep the socket away from the descriptors a program uses by number: a program
 * started with stdout closed would otherwise print into it.
 */
static int fd_out_of_the_way(int fd)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, 100);

	if (high < 0)
		high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (high < 0)
		return fd;
	close(fd);
	return high;
}

/*
 * Connect only to what cannot be another user's (ut_paths.h): the socket and every
 * directory above it belong to us or root and nobody else can write there, and
 * the daemon that answers runs as our uid (SO_PEERCRED).  Nothing is sent before
 * these checks; a refused socket leaves the process dormant, silently (there is
 * no utracefs of ours to report through).
 */
static pid_t daemon_pid; /* the peer of the last connection (0: not in our pid namespace) */

static int connect_daemon(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = UT_ACK_TIMEOUT_MS / 1000};
	char path[PATH_MAX];
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	int fd, err;

	if (ut_socket_path(path, sizeof(path)))
		return -ENAMETOOLONG;
	err = ut_path_trusted(path, geteuid(), sa.sun_path, sizeof(sa.sun_path), NULL, 0);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	fd = fd_out_of_the_way(fd);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		err = -errno;
	else if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) || cred.uid != geteuid())
		err = -EPERM;
	if (err) {
		close(fd);
		return err;
	}
	daemon_pid = cred.pid;
	return fd;
}

static int send_hello(int fd)
{
	struct ut_msg_hello m = {.h = {UT_MSG_HELLO, sizeof(m)}, .version = UT_PROTO_VERSION};
	ssize_t n;

	m.pid = (int32_t)getpid();
	m.tid = (int32_t)syscall(SYS_gettid);
	m.ptid = ut_evpid_forked_by();
	syscall(SYS_prctl, PR_GET_NAME, m.comm, 0, 0, 0); /* not our prctl(): no dlsym */
	n = readlink("/proc/self/exe", m.exe, sizeof(m.exe) - 1);
	if (n > 0)
		m.exe[n] = 0;
	memcpy(hello_exe, m.exe, sizeof(hello_exe));
	return send(fd, &m, sizeof(m), MSG_NOSIGNAL) == sizeof(m) ? 0 : -EIO;
}

/*
 * WELCOME and its descriptors (ut_wire.h): the control page's memfd in fds[0], the
 * area's in fds[1] (both required), the selection memfd in fds[2] and the events
 * memfd in fds[3] when utracefs sent them, else -1.  0 or -errno (nothing is left
 * open then).
 */
#define WELCOME_FDS 4
static int recv_welcome(int fd, struct ut_msg_welcome *w, int fds[WELCOME_FDS])
{
	union {
		char buf[CMSG_SPACE(WELCOME_FDS * sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = {.iov_base = w, .iov_len = sizeof(*w)};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf.buf,
			    .msg_controllen = sizeof(cbuf.buf)};
	struct cmsghdr *c;
	ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

	fds[0] = fds[1] = fds[2] = fds[3] = -1;
	for (c = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c)) {
		size_t nfd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (i < WELCOME_FDS && fds[i] < 0)
				fds[i] = got;
			else
				close(got); /* more than we take */
		}
	}
	if (n != sizeof(*w) || w->h.type != UT_MSG_WELCOME || w->h.len != sizeof(*w) ||
	    w->version != UT_PROTO_VERSION || fds[0] < 0 || fds[1] < 0 ||
	    (mh.msg_flags & MSG_CTRUNC)) {
		for (int i = 0; i < WELCOME_FDS; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		fds[0] = fds[1] = fds[2] = fds[3] = -1;
		return n < 0 ? -errno : -EPROTO;
	}
	return 0;
}

/* ---- the selection memfd ------------------------------------------------------------ */

/* Close the memfd, unless the program closed it and the number is now its own. */
static void sel_close(void)
{
	struct stat st;

	if (sel_fd >= 0 && !fstat(sel_fd, &st) && st.st_dev == sel_dev && st.st_ino == sel_ino)
		close(sel_fd);
	sel_fd = -1;
}

static void sel_install(int fd)
{
	struct stat st;

	sel_close();
	if (fd < 0)
		return;
	fd = fd_out_of_the_way(fd);
	if (fstat(fd, &st)) {
		close(fd);
		return;
	}
	sel_fd = fd;
	sel_dev = st.st_dev;
	sel_ino = st.st_ino;
}

/* Temporary memory from mmap: the program's malloc may be traced. */
static void *sel_buf(void *old, size_t *cap, size_t want)
{
	size_t n = 4096;
	void *p;

	if (want <= *cap)
		return old;
	while (n < want)
		n *= 2;
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (old)
		munmap(old, *cap);
	*cap = n;
	return p;
}

/*
 * A consistent copy of our section into c (buffers kept between calls), mapping
 * the memfd only while reading.  0, or -errno: no memfd, or none could be read.
 */
static int sel_copy(struct ut_sel_copy *c)
{
	static struct ut_sel_obj objs[UT_MAX_OBJS];
	static uint8_t *flags;
	static size_t flags_cap;
	static struct ut_sel_probe *probes;
	static size_t probes_cap; /* bytes */
	struct stat st;
	void *m = MAP_FAILED;
	size_t mapped = 0;
	int r = -EAGAIN;

	if (sel_fd < 0)
		return -ENOENT;
	/* the program may have closed it and reused the number */
	if (fstat(sel_fd, &st) || st.st_dev != sel_dev || st.st_ino != sel_ino)
		return -EBADF;
	static int32_t itids[(UT_INST_MAX - 1) * UT_SEL_TIDS_MAX];
	static int32_t etids[UT_INST_MAX * UT_SEL_TIDS_MAX];
	static uint8_t *iflags;
	static size_t iflags_cap;

	c->objs = objs;
	c->max_objs = UT_MAX_OBJS;
	c->itids = itids;
	c->etids = etids;
	for (int tries = 0; tries < 2000 && r; tries++) {
		if (m == MAP_FAILED || r == -ERANGE) {
			if (m != MAP_FAILED)
				munmap(m, mapped);
			m = MAP_FAILED;
			if (fstat(sel_fd, &st) || st.st_size < (off_t)sizeof(struct ut_sel_hdr))
				break;
			mapped = (size_t)st.st_size;
			m = mmap(NULL, mapped, PROT_READ, MAP_SHARED, sel_fd, 0);
			if (m == MAP_FAILED)
				break;
		}
		c->flags = flags;
		c->flags_cap = flags_cap;
		c->iflags = iflags;
		c->iflags_cap = iflags_cap;
		c->probes = probes;
		c->max_probes = (uint32_t)(probes_cap / sizeof(*probes));
		r = ut_sel_read(m, mapped, (int32_t)getpid(), c);
		if (r == -ENOSPC) {
			size_t want = (size_t)c->nr_probes * sizeof(*probes);

			if (c->nr_objs > UT_MAX_OBJS)
				break;
			/* each buffer as soon as it is made: sel_buf unmapped the old one */
			if (c->flags_len > flags_cap) {
				uint8_t *f = sel_buf(flags, &flags_cap, c->flags_len);

				if (!f)
					break;
				flags = f;
			}
			if ((uint64_t)c->nr_insts * c->flags_len > iflags_cap) {
				uint8_t *f = sel_buf(iflags, &iflags_cap,
						     (size_t)c->nr_insts * c->flags_len);

				if (!f)
					break;
				iflags = f;
			}
			if (want > probes_cap) {
				struct ut_sel_probe *pr = sel_buf(probes, &probes_cap, want);

				if (!pr)
					break;
				probes = pr;
			}
		} else if (r == -EAGAIN) {
			struct timespec ts = {.tv_nsec = 100000};

			nanosleep(&ts, NULL); /* utracefs is writing it */
		} else if (r && r != -ERANGE) {
			break;
		}
	}
	if (m != MAP_FAILED)
		munmap(m, mapped);
	return r;
}

/* ---- the thread selection (set_ftrace_pid) ------------------------------------------ */

/*
 * The control thread writes it (ut_rt_lock held) under task_seq (odd while
 * writing), then moves ut_rt_task_gen on; a thread whose cached answer is for
 * another generation reads it again in ut_rt_task_check().  The generation
 * starts at 1 so that a new thread (task_ok = task_no = 0) decides once.
 */
volatile uint32_t ut_rt_task_gen = 1;
static uint32_t task_seq;
static uint32_t task_state = UT_SEL_TASKS_ALL, task_nr;
static int32_t task_tids[UT_SEL_TIDS_MAX];
static int task_none;	  /* no thread records: patch nothing */
static int task_filtered; /* the last selection had pid lists */

static void tasks_set(uint32_t state, uint32_t nr, const int32_t *tids)
{
	if (nr > UT_SEL_TIDS_MAX)
		nr = UT_SEL_TIDS_MAX;
	if (state == task_state && nr == task_nr &&
	    (!nr || !memcmp(tids, task_tids, nr * sizeof(*tids))))
		return;
	__atomic_store_n(&task_seq, task_seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (uint32_t i = 0; i < nr; i++)
		__atomic_store_n(&task_tids[i], tids[i], __ATOMIC_RELAXED);
	__atomic_store_n(&task_nr, nr, __ATOMIC_RELAXED);
	__atomic_store_n(&task_state, state, __ATOMIC_RELAXED);
	__atomic_store_n(&task_seq, task_seq + 1, __ATOMIC_RELEASE);
	ut_rt_task_invalidate();
}

void ut_rt_task_invalidate(void)
{
	uint32_t g = ut_rt_task_gen + 1;

	__atomic_store_n(&ut_rt_task_gen, g ? g : 1, __ATOMIC_RELEASE);
}

int ut_rt_task_check(void)
{
	int32_t tid;
	uint32_t g, s, state, nr;
	int on;

	if (ut_notrace_now())
		return 0; /* the runtime's own work: not cached (rt.h) */
	if (__atomic_load_n(&ut_lat_gate, __ATOMIC_ACQUIRE) && !ut_lat_recording()) {
		/* a latency tracer records functions inside sections only (latency.c) */
		ut_thr.task_no = __atomic_load_n(&ut_rt_task_gen, __ATOMIC_ACQUIRE);
		return 0;
	}
	tid = (int32_t)syscall(SYS_gettid);
	for (;;) {
		g = __atomic_load_n(&ut_rt_task_gen, __ATOMIC_ACQUIRE);
		s = __atomic_load_n(&task_seq, __ATOMIC_ACQUIRE);
		if (s & 1)
			continue; /* the control thread is writing it (a few stores) */
		state = __atomic_load_n(&task_state, __ATOMIC_RELAXED);
		nr = __atomic_load_n(&task_nr, __ATOMIC_RELAXED);
		if (nr > UT_SEL_TIDS_MAX)
			nr = UT_SEL_TIDS_MAX;
		on = ut_sel_tasks_take(state, task_tids, nr, tid);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&task_seq, __ATOMIC_RELAXED) == s)
			break;
	}
	if (on)
		ut_thr.task_ok = g;
	else
		ut_thr.task_no = g;
	return on;
}

/* Set every site's sel from the selection memfd (ut_rt_lock held). */
/*
 * sel_complete: the section utracefs published covers every object with sites.
 * sel_pending: not yet, while a selection is in force that leaves such a process
 * untraced until its section comes (a filter, pid lists, graph functions).
 */
static volatile int sel_complete, sel_pending;
/* The last selection could leave new sites otherwise than by default. */
static volatile int sel_selective;
/*
 * A fork child whose parent had its section: the parent's selection (site flags,
 * probes) is the child's too, same objects and sites, object by object until
 * utracefs has named the child's sites and published its whole section.
 */
static int sel_inherited;

static void sel_load(void)
{
	static uint8_t keep[UT_MAX_OBJS]; /* objects whose inherited selection stays */
	struct ut_sel_copy c;
	uint8_t def = UT_SEL_TRACE;
	int r = sel_copy(&c), complete = 1, selective;

	if (r == 0)
		def = c.hdr.filtered ? 0 : UT_SEL_TRACE;
	else if (r != -ENOENT)
		return; /* unreadable for now: keep what we have */
	ut_sel_default = def;
	ut_sel_graph_funcs = r == 0 && c.hdr.graph_funcs;
	/* without a section yet, a stack filter means: none of ours checks (yet) */
	ut_stack_filtered = r == 0 && c.hdr.stack_filtered;
	/* our threads: a section says; without one, pid lists mean not us (yet) */
	task_filtered = r == 0 && c.hdr.tasks_filtered;
	if (r == 0 && c.found)
		tasks_set(c.tasks, c.nr_tids, c.tids);
	else
		tasks_set(task_filtered ? UT_SEL_TASKS_NONE : UT_SEL_TASKS_ALL, 0, NULL);
	task_none = task_state == UT_SEL_TASKS_NONE;
	ut_evpid_load(r == 0 ? &c : NULL, r == 0 && c.found);
	if (r == 0 && !c.found && sel_inherited)
		return; /* a fork child: the parent's selection until ours comes */
	for (uint32_t i = 0; i < ut_nr_objs; i++) {
		struct ut_obj *o = &ut_objs[i];
		const uint8_t *fl = NULL;

		keep[i] = 0;
		if (o->dead)
			continue;
		for (uint32_t j = 0; r == 0 && c.found && j < c.nr_objs; j++)
			/* the object as we sent it (not a previous one of that slot) */
			if (c.objs[j].obj == i && c.objs[j].base == o->base &&
			    c.objs[j].nr_sites == o->nr)
				fl = c.flags + c.objs[j].flags_off;
		if (o->nr && !fl)
			complete = 0;
		if (!fl && sel_inherited) {
			keep[i] = 1; /* not named for us yet: the parent's flags and probes */
			continue;
		}
		for (uint32_t k = 0; k < o->nr; k++)
			ut_sites[o->first + k].sel = fl ? fl[k] : def;
	}
	ut_probes_set(r == 0 && c.found ? c.probes : NULL, r == 0 && c.found ? c.nr_probes : 0,
		      sel_inherited ? keep : NULL);
	ut_route_load(r == 0 && c.found ? &c : NULL, task_state == UT_SEL_TASKS_ALL);
	if (r == 0 && complete)
		sel_inherited = 0;
	__atomic_store_n(&sel_complete, r == 0 && complete, __ATOMIC_RELEASE);
	/* event pid lists: our threads' answer is in our section too (evpid.c) */
	selective = r == 0 && (c.hdr.filtered || c.hdr.stack_filtered || c.hdr.tasks_filtered ||
			       c.hdr.graph_funcs ||
			       c.hdr.graph_notrace || c.hdr.probes || c.hdr.routed ||
			       c.hdr.ev_slots[0] || c.hdr.ev_slots[1]);
	__atomic_store_n(&sel_selective, selective, __ATOMIC_RELEASE);
	__atomic_store_n(&sel_pending, selective && !complete, __ATOMIC_RELEASE);
}

/* ---- UT_MSG_SITES -------------------------------------------------------------------- */

/* What utracefs was told about each object slot. */
static struct {
	uintptr_t base;
	uint32_t first, nr;
	uint8_t sent;
} announced[UT_MAX_OBJS];

int ut_send_wait(const void *msg, size_t len)
{
	if (!attached || !sock_is_ours())
		return -ENOTCONN;
	return send(sock_fd, msg, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -EIO;
}

static int send_obj(uint32_t idx, const struct ut_obj *o, int gone)
{
	static union {
		struct ut_msg_sites m;
		char buf[sizeof(struct ut_msg_sites) + UT_SITES_PER_MSG * sizeof(uint32_t)];
	} pk;
	struct ut_msg_sites *m = &pk.m;
	uint32_t total = gone ? 0 : o->nr, first = 0;

	memset(m, 0, sizeof(*m));
	m->h.type = UT_MSG_SITES;
	m->obj = idx;
	m->total = total;
	m->base = o->base;
	m->tsc = __builtin_ia32_rdtsc(); /* after the (un)mapping, before a new object's code */
	if (!gone) {
		char real[PATH_MAX]; /* realpath() writes up to PATH_MAX bytes */
		const char *path = o->name;

		if (!strcmp(o->name, "/proc/self/exe"))
			path = hello_exe;
		else if (realpath(o->name, real))
			path = real;
		if ((size_t)snprintf(m->path, sizeof(m->path), "%s", path) >= sizeof(m->path))
			return -ENAMETOOLONG; /* a cut path would name another file */
		if (m->path[0] != '/')
			return -EINVAL; /* utracefs would refuse it (and us) */
	}
	do {
		uint32_t nr = total - first < UT_SITES_PER_MSG ? total - first : UT_SITES_PER_MSG;
		size_t len = sizeof(*m) + (size_t)nr * sizeof(uint32_t);

		for (uint32_t k = 0; k < nr; k++)
			m->offsets[k] = (uint32_t)(ut_sites[o->first + first + k].addr - o->base);
		m->first = first;
		m->nr = nr;
		m->h.len = (uint32_t)len;
		if (ut_send_wait(m, len))
			return -EIO;
		first += nr;
	} while (first < total);
	return 0;
}

void ut_sites_announce(void)
{
	pthread_mutex_lock(&ut_rt_lock);
	for (uint32_t i = 0; i < ut_nr_objs && attached; i++) {
		struct ut_obj *o = &ut_objs[i];
		int same = announced[i].sent && announced[i].base == o->base &&
			   announced[i].first == o->first && announced[i].nr == o->nr;

		if (o->dead) {
			if (announced[i].sent && send_obj(i, o, 1) == 0)
				announced[i].sent = 0;
			continue;
		}
		if (same)
			continue;
		announced[i].sent = 0;
		if (send_obj(i, o, 0) == 0)
			announced[i] = (typeof(announced[i])){o->base, o->first, o->nr, 1};
	}
	pthread_mutex_unlock(&ut_rt_lock);
}

/*
 * Map the area, contiguous: the whole memfd read-write, then every instance slot's
 * control page from its own memfd, read-only (sealed: it could not be mapped
 * otherwise), over the first page of that slot's span (ut_ring.h).  Instance i is
 * then addressed as the top is, at base + i * span.
 */
static struct ut_ctl *map_area(int ctlfd, int memfd, const struct ut_msg_welcome *w)
{
	struct stat st, cst;
	uint64_t size = w->area_size, span;
	char *base;

	if (w->nr_cpus == 0 || w->nr_cpus > UT_RB_MAX_CPUS ||
	    size < ut_area_size(w->nr_cpus) || fstat(memfd, &st) ||
	    (uint64_t)st.st_size < size || fstat(ctlfd, &cst) ||
	    cst.st_size < (off_t)UT_CTL_SIZE * UT_INST_MAX)
		return NULL;
	span = ut_inst_span(w->nr_cpus);
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, memfd, 0);
	if (base == MAP_FAILED)
		return NULL;
	for (unsigned int i = 0; i < UT_INST_MAX; i++)
		if (mmap(base + i * span, UT_CTL_SIZE, PROT_READ, MAP_SHARED | MAP_FIXED, ctlfd,
			 (off_t)i * UT_CTL_SIZE) == MAP_FAILED) {
			munmap(base, size);
			return NULL;
		}
	struct ut_ctl *ctl = (struct ut_ctl *)base;

	if (ctl->magic != UT_CTL_MAGIC || ctl->version != UT_PROTO_VERSION) {
		munmap(base, size);
		return NULL;
	}
	return ctl;
}

/* Apply the control page (patch or unpatch) and ACK the generation applied. */
static void apply(struct ut_ctl *ctl)
{
	uint32_t gen = __atomic_load_n(&ctl->gen, __ATOMIC_ACQUIRE);
	/* the profiler needs the returns: the graph trampoline (profile.c) */
	int graph = ctl->tracer == UT_TRACER_FUNCTION_GRAPH || ctl->profile_on;
	/* a latency tracer with function-trace: the function tracer's sites (latency.c) */
	int func = ctl->tracer == UT_TRACER_FUNCTION ||
		   (ctl->tracer == UT_TRACER_LATENCY && ctl->lat_ftrace);
	int on = (func || graph) && ctl->ftrace_enabled;

	/* tracing_off() here reached utracefs: the tracing_on file says it from now on */
	if (!__atomic_load_n(&ctl->tracing_on, __ATOMIC_ACQUIRE))
		ut_rt_off = 0;
	struct ut_msg_ack ack = {.h = {UT_MSG_ACK, sizeof(ack)}, .gen = gen};

	pthread_mutex_lock(&ut_rt_lock);
	sel_load();
	if (task_none)
		on = 0; /* set_ftrace_pid selects none of our threads: zero cost */
	/* the stubs first: a site that becomes a call goes to the right trampoline */
	if (on)
		ut_stubs_set_tramp(graph ? ut_tramp_graph : ut_tramp_function);
	ut_probes_live = ctl->ftrace_enabled != 0; /* whatever the tracer and the pid lists */
	ut_routes_live = ctl->ftrace_enabled != 0; /* instances: whatever the top's tracer */
	ut_stack_apply(ctl); /* the stack tracer: whatever the tracer and the pid lists */
	ut_lat_apply(ctl);   /* before the sites: the gate is up when they call */
	ut_stubs_set_bases(ctl);
	ut_patch_all(!on ? UT_SITE_NOP5 : graph ? UT_SITE_JMP : UT_SITE_CALL);
	ut_events_apply(); /* the events' static keys, whatever the tracer */
	pthread_mutex_unlock(&ut_rt_lock);
	applied_gen = gen;
	ut_prof_report(ctl); /* before the ACK: utracefs has them when the wait ends */
	if (sock_is_ours())
		send(sock_fd, &ack, sizeof(ack), MSG_NOSIGNAL);
}

/* Connect, register, map, apply.  Runs in the constructor, the control thread or a
 * fork child (one thread).  Returns 0 when attached. */
static int attach(void)
{
	struct ut_msg_welcome w;
	struct ut_ctl *ctl;
	int fd = connect_daemon(), fds[WELCOME_FDS], err;

	if (fd < 0)
		return fd;
	err = send_hello(fd) ? -EIO : recv_welcome(fd, &w, fds);
	if (err) {
		close(fd);
		return err;
	}
	ctl = map_area(fds[0], fds[1], &w);
	close(fds[0]);
	close(fds[1]);
	if (!ctl) {
		if (fds[2] >= 0)
			close(fds[2]);
		if (fds[3] >= 0)
			close(fds[3]);
		close(fd);
		return -EPROTO;
	}
	sock_install(fd);
	sel_install(fds[2]);
	ut_rt_nr_cpus = ctl->nr_cpus < w.nr_cpus ? ctl->nr_cpus : w.nr_cpus;
	ut_rt_area_size = w.area_size;
	__atomic_store_n(&ut_rt_ctl, ctl, __ATOMIC_RELEASE);
	attached = 1;
	/* a new connection is a new process for utracefs: it knows none of our objects */
	memset(announced, 0, sizeof(announced));
	ut_printk_fmt_forget();
	ut_sites_announce();
	ut_objects_announce(1);
	ut_events_attach(fds[3]);
	apply(ctl);
	__atomic_store_n(&ut_rt_applied, 1, __ATOMIC_RELEASE);
	return 0;
}

/* The daemon is gone: stop tracing, keep the mapping, keep the descriptor number. */
static void detach(void)
{
	attached = 0;
	__atomic_store_n(&ut_rt_applied, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ut_rt_ctl, NULL, __ATOMIC_RELEASE);
	pthread_mutex_lock(&ut_rt_lock);
	ut_probes_live = 0;
	ut_patch_all(UT_SITE_NOP5);
	ut_probes_set(NULL, 0, NULL);
	sel_close();
	pthread_mutex_unlock(&ut_rt_lock);
	ut_events_detach();
	if (sock_is_ours())
		shutdown(sock_fd, SHUT_RDWR);
}

static int socket_gone(void)
{
	struct pollfd p = {.fd = sock_fd, .events = POLLIN | POLLRDHUP};
	char buf[64];

	if (!sock_is_ours())
		return 1; /* closed by the program: the daemon saw EOF */
	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (p.revents & (POLLHUP | POLLRDHUP | POLLERR))
		return 1;
	return recv(sock_fd, buf, sizeof(buf), MSG_DONTWAIT) == 0; /* data is ignored */
}

static void wait_gen(struct ut_ctl *ctl, uint32_t old)
{
	struct timespec ts = {.tv_nsec = CTL_WAIT_MS * 1000000L};

	syscall(SYS_futex, &ctl->gen, FUTEX_WAIT, old, &ts, NULL, 0);
}

/*
 * Sleep until the socket may have appeared (inotify on its directory) or 1 s.  After
 * a failed attempt (a stale socket file, a daemon that refused) an existing file is
 * not reason enough to try again at once.
 */
static void watch_socket(int failed)
{
	char path[PATH_MAX], *slash;
	struct pollfd p = {.fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK), .events = POLLIN};
	struct stat st0, st;

	/* the program may close every descriptor meanwhile and reuse the number */
	if (p.fd >= 0 && fstat(p.fd, &st0)) {
		close(p.fd);
		p.fd = -1;
	}
	if (p.fd >= 0 && !ut_socket_path(path, sizeof(path)) && (slash = strrchr(path, '/'))) {
		*slash = 0;
		inotify_add_watch(p.fd, *path ? path : "/", IN_CREATE | IN_MOVED_TO);
	}
	if (!failed && !ut_socket_path(path, sizeof(path)) && access(path, F_OK) == 0)
		goto out; /* appeared before the watch was in place */
	poll(&p, p.fd >= 0 ? 1 : 0, WATCH_POLL_MS);
out:
	if (p.fd >= 0 && !fstat(p.fd, &st) && st.st_dev == st0.st_dev && st.st_ino == st0.st_ino)
		close(p.fd);
}

static void *control_thread(void *arg)
{
	int failed = (int)(intptr_t)arg;

	ut_notrace_enter(); /* for its whole life: it runs nothing of the program's */
	/*
	 * The system call, not the interposed prctl(), whose first call looks the real
	 * one up with dlsym(), which waits for the dynamic loader's lock: a thread
	 * inside dlopen() may be waiting for this one (ut_sel_wait_objects).
	 */
	syscall(SYS_prctl, PR_SET_NAME, "utrace-ctl", 0, 0, 0);
	for (;;) {
		struct ut_ctl *ctl = ut_rt_ctl;

		if (!attached || !ctl) {
			watch_socket(failed);
			failed = attach() != 0;
			continue;
		}
		wait_gen(ctl, applied_gen);
		if (socket_gone()) {
			detach();
			continue;
		}
		if (__atomic_load_n(&ctl->gen, __ATOMIC_ACQUIRE) != applied_gen)
			apply(ctl);
	}
	return NULL;
}

/* failed: the last attempt to attach failed (do not retry at once). */
static int start_thread(int failed)
{
	sigset_t all, old;
	pthread_t th;
	pthread_attr_t at;
	int err;

	sigfillset(&all);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 * 1024);
	ut_real_sigprocmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&th, &at, control_thread, (void *)(intptr_t)failed);
	ut_real_sigprocmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&at);
	return -err;
}

/* Wait (at most ms) until the control thread applied a generation other than old. */
static void wait_applied(uint32_t old, int ms)
{
	struct ut_ctl *ctl = ut_rt_ctl;

	for (int i = 0; i < ms && ctl; i++) {
		struct timespec ts = {.tv_nsec = 1000000};
		uint32_t gen = __atomic_load_n(&ctl->gen, __ATOMIC_ACQUIRE);

		if (gen != old && applied_gen == gen)
			return;
		nanosleep(&ts, NULL);
	}
}

/*
 * `utrace record -g` (cmd/record.c): set_graph_function can only name functions
 * utracefs knows, that is, functions of a process that sent its sites.  So the
 * process waits, before main(), until utracefs has named its sites (the section it
 * published covers every object: not just any new generation, which another
 * process or a filter write may have caused), says "r" on the descriptor record gave it
 * (UTRACE_RECORD_HOLD=FD) and waits for record's "g" (or the end of the stream);
 * record writes the filters meanwhile, which the control thread, still running,
 * applies and acknowledges; that generation is then applied before main() runs.
 * A process with no patch sites at all says "n" instead and goes on.
 * The descriptor is closed in every case, so the program never sees it.
 */
/*
 * utracefs is stopped (SIGSTOP, a debugger) or gone: nothing it would publish can
 * come while that lasts.  Unknown (another pid namespace) counts as running.
 */
static int daemon_stopped(void)
{
	char path[64], buf[256], *rp;
	ssize_t n;
	int fd;

	if (daemon_pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)daemon_pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	rp = strrchr(buf, ')'); /* the state follows the command name, which may hold ')' */
	return rp && rp[1] == ' ' && (rp[2] == 'T' || rp[2] == 't' || rp[2] == 'Z' || rp[2] == 'X');
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Wait until utracefs published this process's section: it comes once utracefs has
 * read the process's objects, however long a loaded machine makes that.  The wait
 * ends early when the connection is lost, or after UT_ACK_TIMEOUT_MS during which
 * utracefs is seen stopped or gone; UT_SEL_WAIT_MAX_MS bounds a utracefs that runs
 * but never answers.
 */
static void wait_sel_complete(void)
{
	int64_t start = now_ms(), stopped_since = -1;

	for (unsigned int i = 0; attached && !__atomic_load_n(&sel_complete, __ATOMIC_ACQUIRE);
	     i++) {
		struct timespec ts = {.tv_nsec = 1000000};
		int64_t t = now_ms();

		if (t - start >= UT_SEL_WAIT_MAX_MS)
			return;
		if (i % 16 == 0) {
			if (!daemon_stopped())
				stopped_since = -1;
			else if (stopped_since < 0)
				stopped_since = t;
			else if (t - stopped_since >= UT_ACK_TIMEOUT_MS)
				return;
		}
		nanosleep(&ts, NULL);
	}
}

void ut_sel_objects_added(void)
{
	__atomic_store_n(&sel_complete, 0, __ATOMIC_RELEASE);
}

/*
 * The section is complete and its sites patched.  The control thread reads the
 * section and patches under ut_rt_lock, and says the section is complete before
 * it patches: taking the lock once after that waits for the patching to end (a
 * loaded machine can keep the control thread off the CPU for milliseconds in
 * between, long enough for a short main() to run on unpatched sites).
 */
static void wait_sel_applied(void)
{
	wait_sel_complete();
	pthread_mutex_lock(&ut_rt_lock);
	pthread_mutex_unlock(&ut_rt_lock);
}

/*
 * The objects just announced (dlopen, before their constructors run) get their
 * flags from utracefs with a new generation: wait until they are patched.
 */
void ut_sel_wait_objects(void)
{
	if (!attached || !__atomic_load_n(&sel_selective, __ATOMIC_ACQUIRE))
		return;
	wait_sel_applied();
}

static void hold_for_record(int fd)
{
	uint32_t gen0;
	int any = 0;
	char c;

	for (uint32_t i = 0; i < ut_nr_objs; i++)
		any |= announced[i].sent;
	if (attached && any) {
		wait_sel_complete();
		gen0 = applied_gen;
		if (send(fd, "r", 1, MSG_NOSIGNAL) == 1)
			while (read(fd, &c, 1) < 0 && errno == EINTR)
				;
		if (ut_rt_ctl && __atomic_load_n(&ut_rt_ctl->gen, __ATOMIC_ACQUIRE) != gen0)
			wait_applied(gen0, UT_ACK_TIMEOUT_MS);
	} else if (attached && !ut_nr_objs) {
		/* no patch sites at all: record tells its user why the trace is empty */
		if (send(fd, "n", 1, MSG_NOSIGNAL) != 1) {
			/* record is gone: nobody to tell */
		}
	}
	close(fd); /* nothing to select: record sees the stream end and just waits */
}

/*
 * A relative $UTRACE_TRACING names another place in every working directory: the
 * runtime refuses it and stays dormant.  This is the one message the runtime
 * writes to the program's stderr, once, at start: the user's configuration is
 * wrong, and no utracefs can be found to report through (error_log or console).
 */
static int refused;

static void refuse_relative(void)
{
	char line[512];
	const char *env = getenv("UTRACE_TRACING");
	int n = snprintf(line, sizeof(line),
			 "libutrace: UTRACE_TRACING=%.300s is not an absolute path: "
			 "this program is not traced\n",
			 env ? env : "");

	refused = 1;
	if (n > 0 && (size_t)n < sizeof(line) && write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* nowhere else to say it */
	}
}

int ut_control_start(void)
{
	char path[PATH_MAX];
	const char *h = getenv("UTRACE_RECORD_HOLD");
	char *end;
	long hold = h ? strtol(h, &end, 10) : -1;
	int failed = 0, err;

	if (h) {
		if (*h == '\0' || *end != '\0' || hold < 0 || hold > INT_MAX)
			hold = -1;
		unsetenv("UTRACE_RECORD_HOLD"); /* not for the programs it runs */
	}
	if (ut_socket_path(path, sizeof(path)) == -EINVAL) {
		refuse_relative();
		if (hold >= 0)
			close((int)hold);
		return -EINVAL;
	}
	if (!ut_socket_path(path, sizeof(path)) && access(path, F_OK) == 0)
		failed = attach() != 0;
	err = start_thread(failed);
	if (hold >= 0 && !err)
		hold_for_record((int)hold);
	else if (hold >= 0)
		close((int)hold);
	/*
	 * Under a filter a process traces nothing until utracefs has named its sites and
	 * published its section: wait for it before main(), so that a short program is
	 * traced from its start as under the kernel (bounded: a stopped utracefs costs 2 s).
	 */
	else if (!err && attached && __atomic_load_n(&sel_pending, __ATOMIC_ACQUIRE))
		wait_sel_applied();
	return err;
}

/*
 * fork child (one thread): the parent's connection must not be shared, so register
 * anew at once (the child keeps its inherited patched sites and mapping meanwhile).
 */
void ut_control_after_fork_child(void)
{
	ut_probes_after_fork_child();
	ut_prof_fork_child();
	/* the parent's thread selection is not ours: record nothing until told */
	if (task_filtered)
		tasks_set(UT_SEL_TASKS_NONE, 0, NULL);
	if (attached) {
		attached = 0;
		sel_inherited = __atomic_load_n(&sel_complete, __ATOMIC_ACQUIRE);
		if (attach()) {
			int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

			/* let go of the parent's connection without shutting it down */
			if (fd >= 0)
				sock_install(fd);
			__atomic_store_n(&ut_rt_ctl, NULL, __ATOMIC_RELEASE);
			ut_probes_live = ut_routes_live = 0;
			ut_patch_all(UT_SITE_NOP5);
			ut_probes_set(NULL, 0, NULL);
			sel_close(); /* the parent's */
			sel_inherited = 0; /* a later utracefs is another one */
			ut_events_detach();
		}
	}
	if (!refused)
		start_thread(0);
}

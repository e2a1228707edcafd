// SPDX-License-Identifier: MIT
/*
 * control.c - the connection to utracefs and the control thread.
 *
 * Attaching (ut_wire.h): connect to ut_socket_path(), send HELLO, receive WELCOME
 * and the memfd of the area, map its control page read-only and the rest
 * read-write (one contiguous range: the trampoline addresses everything from the
 * control page), apply the control page and ACK its generation.
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

#include "rt.h"
#include "ut_paths.h"
#include "ut_wire.h"

#define CTL_WAIT_MS 200
#define WATCH_POLL_MS 1000

static int sock_fd = -1;
static dev_t sock_dev;
static ino_t sock_ino;
static volatile int attached;
static uint32_t applied_gen;

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

	prctl(PR_GET_NAME, m.comm, 0, 0, 0);
	ut_send(&m, sizeof(m));
}

void ut_send_maps(void)
{
	struct ut_msg_maps m = {.h = {UT_MSG_MAPS, sizeof(m)}};

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

static int connect_daemon(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = UT_ACK_TIMEOUT_MS / 1000};
	int fd;

	if (ut_socket_path(sa.sun_path, sizeof(sa.sun_path)))
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	fd = fd_out_of_the_way(fd);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int send_hello(int fd)
{
	struct ut_msg_hello m = {.h = {UT_MSG_HELLO, sizeof(m)}, .version = UT_PROTO_VERSION};
	ssize_t n;

	m.pid = (int32_t)getpid();
	m.tid = (int32_t)syscall(SYS_gettid);
	prctl(PR_GET_NAME, m.comm, 0, 0, 0);
	n = readlink("/proc/self/exe", m.exe, sizeof(m.exe) - 1);
	if (n > 0)
		m.exe[n] = 0;
	return send(fd, &m, sizeof(m), MSG_NOSIGNAL) == sizeof(m) ? 0 : -EIO;
}

/* WELCOME and its memfd; returns the memfd or -errno. */
static int recv_welcome(int fd, struct ut_msg_welcome *w)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = w, .iov_len = sizeof(*w)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c;
	int memfd = -1;
	ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

	for (c = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&memfd, CMSG_DATA(c), sizeof(int));
	if (n != sizeof(*w) || w->h.type != UT_MSG_WELCOME || w->h.len != sizeof(*w) ||
	    w->version != UT_PROTO_VERSION || memfd < 0) {
		if (memfd >= 0)
			close(memfd);
		return n < 0 ? -errno : -EPROTO;
	}
	return memfd;
}

/* Map the area: control page read-only, the rest read-write, contiguous. */
static struct ut_ctl *map_area(int memfd, const struct ut_msg_welcome *w)
{
	struct stat st;
	uint64_t size = w->area_size;
	char *base;

	if (w->nr_cpus == 0 || w->nr_cpus > UT_RB_MAX_CPUS || size < ut_rb_area_size(w->nr_cpus) ||
	    fstat(memfd, &st) || (uint64_t)st.st_size < size)
		return NULL;
	base = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	if (mmap(base, UT_CTL_SIZE, PROT_READ, MAP_SHARED | MAP_FIXED, memfd, 0) == MAP_FAILED ||
	    mmap(base + UT_CTL_SIZE, size - UT_CTL_SIZE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED | MAP_NORESERVE, memfd, UT_CTL_SIZE) == MAP_FAILED) {
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
	int graph = ctl->tracer == UT_TRACER_FUNCTION_GRAPH;
	int on = (ctl->tracer == UT_TRACER_FUNCTION || graph) && ctl->ftrace_enabled;
	struct ut_msg_ack ack = {.h = {UT_MSG_ACK, sizeof(ack)}, .gen = gen};

	pthread_mutex_lock(&ut_rt_lock);
	/* the stubs first: a site that becomes a call goes to the right trampoline */
	if (on)
		ut_stubs_set_tramp(graph ? ut_tramp_graph : ut_tramp_function);
	ut_patch_all(!on ? UT_SITE_NOP5 : graph ? UT_SITE_JMP : UT_SITE_CALL);
	pthread_mutex_unlock(&ut_rt_lock);
	applied_gen = gen;
	if (sock_is_ours())
		send(sock_fd, &ack, sizeof(ack), MSG_NOSIGNAL);
}

/* Connect, register, map, apply.  Runs in the constructor, the control thread or a
 * fork child (one thread).  Returns 0 when attached. */
static int attach(void)
{
	struct ut_msg_welcome w;
	struct ut_ctl *ctl;
	int fd = connect_daemon(), memfd;

	if (fd < 0)
		return fd;
	memfd = send_hello(fd) ? -EIO : recv_welcome(fd, &w);
	if (memfd < 0) {
		close(fd);
		return memfd;
	}
	ctl = map_area(memfd, &w);
	close(memfd);
	if (!ctl) {
		close(fd);
		return -EPROTO;
	}
	sock_install(fd);
	ut_rt_nr_cpus = ctl->nr_cpus < w.nr_cpus ? ctl->nr_cpus : w.nr_cpus;
	__atomic_store_n(&ut_rt_ctl, ctl, __ATOMIC_RELEASE);
	attached = 1;
	apply(ctl);
	return 0;
}

/* The daemon is gone: stop tracing, keep the mapping, keep the descriptor number. */
static void detach(void)
{
	attached = 0;
	__atomic_store_n(&ut_rt_ctl, NULL, __ATOMIC_RELEASE);
	pthread_mutex_lock(&ut_rt_lock);
	ut_patch_all(UT_SITE_NOP5);
	pthread_mutex_unlock(&ut_rt_lock);
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

	if (p.fd >= 0 && !ut_socket_path(path, sizeof(path)) && (slash = strrchr(path, '/'))) {
		*slash = 0;
		inotify_add_watch(p.fd, *path ? path : "/", IN_CREATE | IN_MOVED_TO);
	}
	if (!failed && !ut_socket_path(path, sizeof(path)) && access(path, F_OK) == 0)
		goto out; /* appeared before the watch was in place */
	poll(&p, p.fd >= 0 ? 1 : 0, WATCH_POLL_MS);
out:
	if (p.fd >= 0)
		close(p.fd);
}

static void *control_thread(void *arg)
{
	int failed = (int)(intptr_t)arg;

	prctl(PR_SET_NAME, "utrace-ctl", 0, 0, 0);
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

int ut_control_start(void)
{
	char path[PATH_MAX];
	int failed = 0;

	if (!ut_socket_path(path, sizeof(path)) && access(path, F_OK) == 0)
		failed = attach() != 0;
	return start_thread(failed);
}

/*
 * fork child (one thread): the parent's connection must not be shared, so register
 * anew at once (the child keeps its inherited patched sites and mapping meanwhile).
 */
void ut_control_after_fork_child(void)
{
	if (attached) {
		attached = 0;
		if (attach()) {
			int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

			/* let go of the parent's connection without shutting it down */
			if (fd >= 0)
				sock_install(fd);
			__atomic_store_n(&ut_rt_ctl, NULL, __ATOMIC_RELEASE);
			ut_patch_all(UT_SITE_NOP5);
		}
	}
	start_thread(0);
}

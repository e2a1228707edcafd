// SPDX-License-Identifier: MIT
/*
 * hostile.c - a traced process that tries to break tracing for the others
 * (tests/integration/90_hostile.sh).  It speaks the wire protocol itself
 * (ut_wire.h), so it holds every descriptor utracefs gives a process.
 *
 *   hostile SOCKET seal       try every way to write the control page (the first
 *                             descriptor of WELCOME) and the selection memfd (the
 *                             third); write garbage wherever it could; prints
 *                             "writable N" (ways that worked)
 *   hostile SOCKET scribble   garbage over every page it can map writable: the
 *                             per-CPU writer state, the first pages of every ring,
 *                             the probe counters, the area's unused first page
 *   hostile SOCKET wire       malformed and out-of-order packets, each on a new
 *                             connection: prints "NAME closed" when utracefs
 *                             dropped the connection, "NAME open" when not
 *   hostile SOCKET die        die (SIGKILL) at every step of a registration
 *   hostile SOCKET bomb N     N processes register at once and die
 *   hostile SOCKET hoard N    register N times at once from this one process:
 *                             prints "kept K", the registrations utracefs kept
 *   hostile SOCKET silent     connect and say nothing: prints "silent closed" when
 *                             utracefs closed the connection (within 10 s)
 *   hostile SOCKET latency TID  a latency tracer's report (UT_MSG_LATENCY) of a
 *                             10 ms section of thread TID, which is not ours:
 *                             prints "latency open" or "latency closed"
 *   hostile SOCKET events     trace event announcements (UT_MSG_EVENT, ut_event.h):
 *                             malformed definitions and garbage on one connection
 *                             ("bad open", "garbage open": refused, the connection
 *                             stays), then a sound one, ut_hostile:fine; an
 *                             oversized packet on another ("oversize closed")
 *
 * Prints "end" last.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../common/ut_ctl.h"
#include "../../common/ut_event.h"
#include "../../common/ut_ring.h"
#include "../../common/ut_sel.h"
#include "../../common/ut_wire.h"

static const char *sock_path;
static uint64_t rnd = 0x9e3779b97f4a7c15ull;

static uint64_t rand64(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 7;
	rnd ^= rnd << 17;
	return rnd;
}

static int conn(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("hostile: connect");
		exit(1);
	}
	return fd;
}

static void hello_msg(struct ut_msg_hello *h)
{
	memset(h, 0, sizeof(*h));
	*h = (struct ut_msg_hello){.h = {UT_MSG_HELLO, sizeof(*h)}, .version = UT_PROTO_VERSION};
	h->pid = getpid();
	h->tid = getpid();
	strcpy(h->comm, "hostile");
	strcpy(h->exe, "/bin/hostile");
}

/* Register on fd; fds[4] get WELCOME's descriptors (-1 where none).  0 or -1. */
static int hello(int fd, struct ut_msg_welcome *w, int fds[4])
{
	struct ut_msg_hello h;
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = {.iov_base = w, .iov_len = sizeof(*w)};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf.buf,
			    .msg_controllen = sizeof(cbuf.buf)};

	fds[0] = fds[1] = fds[2] = fds[3] = -1;
	hello_msg(&h);
	if (send(fd, &h, sizeof(h), MSG_NOSIGNAL) != sizeof(h) ||
	    recvmsg(fd, &mh, MSG_CMSG_CLOEXEC) != sizeof(*w))
		return -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		for (size_t i = 0; i < n && i < 4; i++)
			memcpy(&fds[i], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	}
	return 0;
}

/* ---- seal --------------------------------------------------------------------------- */

/* Every way to get a writable view of fd's first page; garbage into each that works. */
static int try_write(int fd, const char *name)
{
	char path[64];
	int ways = 0, rw;
	char *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);

	if (m != MAP_FAILED && !mprotect(m, 4096, PROT_READ | PROT_WRITE)) {
		printf("%s: mprotect(PROT_WRITE) worked\n", name);
		memset(m, 0xa5, 4096);
		ways++;
	}
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m != MAP_FAILED) {
		printf("%s: a writable map worked\n", name);
		memset(m, 0x5a, 4096);
		ways++;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rw = open(path, O_RDWR);
	if (rw >= 0) {
		char junk[4096];

		memset(junk, 0x3c, sizeof(junk));
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, rw, 0);
		if (m != MAP_FAILED) {
			printf("%s: a writable map of a reopened descriptor worked\n", name);
			memset(m, 0xc3, 4096);
			ways++;
		}
		if (pwrite(rw, junk, sizeof(junk), 0) > 0) {
			printf("%s: write(2) worked\n", name);
			ways++;
		}
		if (ftruncate(rw, 0) == 0) {
			printf("%s: ftruncate worked\n", name);
			ways++;
		}
		close(rw);
	}
	return ways;
}

static void do_seal(void)
{
	struct ut_msg_welcome w;
	int fd = conn(), fds[4], ways = 0;

	if (hello(fd, &w, fds)) {
		printf("no welcome\n");
		return;
	}
	if (fds[0] >= 0)
		ways += try_write(fds[0], "control page");
	if (fds[2] >= 0)
		ways += try_write(fds[2], "selection");
	if (fds[3] >= 0)
		ways += try_write(fds[3], "events");
	printf("writable %d\n", ways);
	close(fd);
}

/* ---- scribble ------------------------------------------------------------------------ */

static void garbage(void *p, size_t n)
{
	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t v = rand64();

		memcpy((char *)p + i, &v, 8);
	}
}

static void do_scribble(void)
{
	struct ut_msg_welcome w;
	int fd = conn(), fds[4];
	char *a;

	if (hello(fd, &w, fds) || fds[1] < 0) {
		printf("no welcome\n");
		return;
	}
	a = mmap(NULL, w.area_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fds[1], 0);
	if (a == MAP_FAILED || w.nr_cpus == 0 || w.nr_cpus > UT_RB_MAX_CPUS) {
		printf("no area\n");
		return;
	}
	/* every instance slot's span: the top's and those of instances/NAME alike */
	for (unsigned int i = 0; i < UT_INST_MAX; i++) {
		char *span = ut_inst_area(a, w.nr_cpus, i);

		if (ut_probe_counts_off(w.nr_cpus) > w.area_size)
			break;
		garbage(span, UT_CTL_SIZE); /* the span's first page (control pages are elsewhere) */
		for (unsigned int cpu = 0; cpu < w.nr_cpus; cpu++) {
			struct rb_cpu *rc = ut_rb_cpu(span, cpu);

			garbage(rc, sizeof(*rc));
			rc->enabled = 0;
			rc->lock = (uint32_t)getpid(); /* a live "holder" */
			for (unsigned int s = 0; s < 8; s++)
				garbage(ut_rb_page(span, cpu, s), UT_RB_PAGE_SIZE);
		}
	}
	/* the function probes' counters, after the spans */
	if (ut_probe_counts_off(w.nr_cpus) < w.area_size)
		garbage(a + ut_probe_counts_off(w.nr_cpus),
			w.area_size - ut_probe_counts_off(w.nr_cpus));
	printf("scribbled %u cpus\n", w.nr_cpus);
	close(fd);
}

/* ---- wire ----------------------------------------------------------------------------- */

/* Did utracefs close the connection (within tries x 50 ms)? */
static int closed_within(int fd, int tries)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char buf[256];

	for (int i = 0; i < tries; i++) {
		if (poll(&p, 1, 50) > 0) {
			ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

			if (n == 0 || (n < 0 && errno != EAGAIN))
				return 1;
		}
	}
	return 0;
}

static int closed(int fd)
{
	return closed_within(fd, 100);
}

static void verdict(const char *name, int fd)
{
	printf("%s %s\n", name, closed(fd) ? "closed" : "open");
	fflush(stdout);
	close(fd);
}

static void send_raw(int fd, const void *buf, size_t len)
{
	if (send(fd, buf, len, MSG_NOSIGNAL) < 0)
		; /* a closed connection is what we test for */
}

/* A fresh connection, registered (the WELCOME's descriptors closed). */
static int registered(void)
{
	struct ut_msg_welcome w;
	int fd = conn(), fds[4];

	if (hello(fd, &w, fds))
		return fd;
	for (int i = 0; i < 4; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return fd;
}

static void sites_msg(struct ut_msg_sites *m, uint32_t total, uint32_t first, uint32_t nr)
{
	memset(m, 0, sizeof(*m));
	m->h.type = UT_MSG_SITES;
	m->h.len = (uint32_t)(sizeof(*m) + nr * sizeof(uint32_t));
	m->total = total;
	m->first = first;
	m->nr = nr;
	m->base = 0x400000;
	strcpy(m->path, "/bin/hostile");
}

static void do_wire(void)
{
	static union {
		struct ut_msg_sites s;
		char buf[65536];
	} big;
	struct ut_msg_hello h;
	struct ut_msg_ack ack = {.h = {UT_MSG_ACK, sizeof(ack)}};
	struct ut_msg_task task = {.h = {UT_MSG_TASK, sizeof(task)}, .tid = 1, .pid = 1};
	struct ut_msg_probe probe = {.h = {UT_MSG_PROBE, sizeof(probe)}, .cmd = 77};
	uint32_t hdr[2];
	int fd;

	fd = conn();
	send_raw(fd, "abcd", 4);
	verdict("short", fd);

	fd = conn();
	hello_msg(&h);
	h.h.len = sizeof(h) + 8;
	send_raw(fd, &h, sizeof(h));
	verdict("bad-len", fd);

	fd = conn();
	hdr[0] = 99;
	hdr[1] = sizeof(hdr);
	send_raw(fd, hdr, sizeof(hdr));
	verdict("bad-type", fd);

	fd = conn();
	send_raw(fd, &ack, sizeof(ack));
	verdict("ack-before-hello", fd);

	fd = conn();
	sites_msg(&big.s, 1, 0, 1);
	send_raw(fd, &big, big.s.h.len);
	verdict("sites-before-hello", fd);

	fd = conn();
	hello_msg(&h);
	h.version = 1;
	send_raw(fd, &h, sizeof(h));
	verdict("old-version", fd);

	fd = conn();
	hello_msg(&h);
	h.pid = 1;
	send_raw(fd, &h, sizeof(h));
	verdict("other-pid", fd);

	fd = conn();
	hello_msg(&h);
	memset(h.comm, 'x', sizeof(h.comm));
	send_raw(fd, &h, sizeof(h));
	verdict("comm-no-nul", fd);

	fd = registered();
	hello_msg(&h);
	send_raw(fd, &h, sizeof(h));
	verdict("hello-twice", fd);

	fd = registered();
	sites_msg(&big.s, 20000, 0, UT_SITES_PER_MSG + 1);
	send_raw(fd, &big, sizeof(big.s) + 100 * sizeof(uint32_t));
	verdict("sites-bad-nr", fd);

	fd = registered();
	sites_msg(&big.s, 1, 0, 1);
	strcpy(big.s.path, "relative/path");
	send_raw(fd, &big, big.s.h.len);
	verdict("sites-relative-path", fd);

	fd = registered();
	sites_msg(&big.s, 1, 0, 1);
	memset(big.s.path, 'p', sizeof(big.s.path));
	big.s.path[0] = '/';
	send_raw(fd, &big, big.s.h.len);
	verdict("sites-path-no-nul", fd);

	fd = registered();
	task.pid = 1;
	send_raw(fd, &task, sizeof(task));
	verdict("task-other-pid", fd);

	fd = registered();
	send_raw(fd, &probe, sizeof(probe));
	verdict("probe-bad-cmd", fd);

	fd = registered();
	{
		int pass = open("/dev/null", O_RDONLY);
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} cbuf;
		struct iovec iov = {.iov_base = &ack, .iov_len = sizeof(ack)};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cbuf.buf,
				    .msg_controllen = sizeof(cbuf.buf)};
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass, sizeof(int));
		sendmsg(fd, &mh, MSG_NOSIGNAL);
		close(pass);
	}
	verdict("descriptor-attached", fd);

	fd = registered();
	memset(&big, 0, sizeof(big));
	big.s.h.type = UT_MSG_SITES;
	big.s.h.len = sizeof(big);
	send_raw(fd, &big, sizeof(big));
	verdict("oversize", fd);

	/* out of order, but well formed: utracefs may keep or drop the peer; it must live */
	fd = registered();
	sites_msg(&big.s, 5, 3, 2); /* a middle chunk with no first one */
	send_raw(fd, &big, big.s.h.len);
	sites_msg(&big.s, 9, 0, 2); /* another total for the same object */
	send_raw(fd, &big, big.s.h.len);
	sites_msg(&big.s, 2, 1, 2); /* past the end */
	send_raw(fd, &big, big.s.h.len);
	ack.gen = 0x7fffffff; /* a generation far ahead */
	send_raw(fd, &ack, sizeof(ack));
	closed(fd);
	close(fd);
	printf("out-of-order sent\n");
}

/* ---- die, bomb ------------------------------------------------------------------------- */

/* Run step in a child that then dies at once (SIGKILL: no clean-up). */
static void child_dies(int step)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct ut_msg_welcome w;
		struct ut_msg_hello h;
		int fd = conn(), fds[4];

		switch (step) {
		case 0: /* connected, nothing sent */
			break;
		case 1: /* HELLO sent, WELCOME never read */
			hello_msg(&h);
			send_raw(fd, &h, sizeof(h));
			break;
		case 2: /* registered, never acknowledged */
			hello(fd, &w, fds);
			break;
		case 3: { /* the first packet of an object's sites only */
			static union {
				struct ut_msg_sites s;
				char buf[sizeof(struct ut_msg_sites) + UT_SITES_PER_MSG * 4];
			} pk;

			hello(fd, &w, fds);
			sites_msg(&pk.s, UT_SITES_PER_MSG + 10, 0, UT_SITES_PER_MSG);
			for (uint32_t i = 0; i < UT_SITES_PER_MSG; i++)
				pk.s.offsets[i] = 0x1000 + 16 * i;
			send_raw(fd, &pk, pk.s.h.len);
			break;
		}
		}
		raise(SIGKILL);
	}
	waitpid(pid, NULL, 0);
}

static void do_die(void)
{
	for (int step = 0; step < 4; step++)
		child_dies(step);
	printf("died at every step\n");
}

static void do_bomb(int n)
{
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			child_dies(2 + i % 2); /* and its child dies registered */
			_exit(0);
		}
	}
	while (wait(NULL) > 0 || errno == EINTR)
		;
	printf("bomb %d\n", n);
}

static void do_hoard(int n)
{
	int *fds = calloc((size_t)n, sizeof(int)), kept = 0;

	for (int i = 0; i < n && fds; i++) {
		struct ut_msg_welcome w;
		int got[4];

		fds[i] = conn();
		if (hello(fds[i], &w, got))
			continue;
		for (int k = 0; k < 4; k++)
			if (got[k] >= 0)
				close(got[k]);
	}
	for (int i = 0; i < n && fds; i++)
		kept += !closed_within(fds[i], 1);
	printf("kept %d\n", kept);
}

static void do_silent(void)
{
	int fd = conn();

	printf("silent %s\n", closed_within(fd, 200) ? "closed" : "open");
	close(fd);
}

/* ---- events ---------------------------------------------------------------------------- */

static union {
	struct ut_msg_event m;
	char b[UT_EVENT_MSG_MAX + 64];
	uint64_t align;
} epk;

/* ut_hostile:fine { int v; }, print "v=%d" */
static size_t event_msg(void)
{
	struct ut_msg_event *m = &epk.m;
	size_t len;

	memset(&epk, 0, sizeof(epk));
	m->type = UT_MSG_EVENT;
	m->size = 12;
	strcpy(m->system, "ut_hostile");
	strcpy(m->name, "fine");
	m->nr_fields = 1;
	m->fields[0] = (struct ut_msg_event_field){.offset = 8, .size = 4, .elem_size = 4,
						   .is_signed = 1};
	strcpy(m->fields[0].type, "int");
	strcpy(m->fields[0].name, "v");
	strcpy((char *)&m->fields[1], "\"v=%d\", REC->v");
	m->fmt_len = (uint32_t)strlen((char *)&m->fields[1]) + 1;
	len = sizeof(*m) + sizeof(m->fields[0]) + m->fmt_len;
	m->len = (uint32_t)len;
	return len;
}

static void do_events(void)
{
	int fd = registered();
	size_t n;

	/* each one wrong in one way: refused, one console line each */
	for (int k = 0; k < 8; k++) {
		n = event_msg();
		switch (k) {
		case 0: strcpy(epk.m.system, "bad system"); break;
		case 1: epk.m.fields[0].offset = 2; break;	   /* over the common fields */
		case 2: epk.m.fields[0].offset = 60000; break;	   /* far beyond the record */
		case 3: epk.m.nr_fields = 0xffffffffu; break;	   /* a count to make us loop */
		case 4: epk.m.fmt_len = 0x7fffffffu; break;	   /* a length to make us read */
		case 5: epk.m.name[63] = 'x'; break;		   /* no NUL */
		case 6: ((char *)&epk.m.fields[1])[2] = 27; break; /* escape into the console */
		case 7: strcpy(epk.m.fields[0].type, "int\n"); break;
		}
		send_raw(fd, &epk, n);
	}
	printf("bad %s\n", closed_within(fd, 10) ? "closed" : "open");
	/* garbage of every length that the header allows */
	for (n = 16; n < 2048; n += 8) {
		for (size_t i = 0; i < n; i++)
			epk.b[i] = (char)rand64();
		epk.m.type = UT_MSG_EVENT;
		epk.m.len = (uint32_t)n;
		send_raw(fd, &epk, n);
	}
	printf("garbage %s\n", closed_within(fd, 10) ? "closed" : "open");
	n = event_msg();
	send_raw(fd, &epk, n);
	verdict("fine", fd);
	fd = registered();
	n = UT_EVENT_MSG_MAX + 8;
	memset(&epk, 0, sizeof(epk));
	epk.m.type = UT_MSG_EVENT;
	epk.m.len = (uint32_t)n;
	send_raw(fd, &epk, n);
	verdict("oversize", fd);
}

static void do_latency(int tid)
{
	struct ut_msg_latency m = {.h = {UT_MSG_LATENCY, sizeof(m)}};
	int fd = registered();

	m.tid = tid;
	m.start_tsc = 1000;
	m.end_tsc = m.last_tsc = 1000 + 30000000ull; /* 10 ms at 3 GHz: the longest yet */
	send_raw(fd, &m, sizeof(m));
	verdict("latency", fd);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3) {
		fprintf(stderr, "usage: hostile SOCKET seal|scribble|wire|die|bomb N\n");
		return 2;
	}
	sock_path = argv[1];
	rnd ^= (uint64_t)getpid();
	if (!strcmp(argv[2], "seal"))
		do_seal();
	else if (!strcmp(argv[2], "scribble"))
		do_scribble();
	else if (!strcmp(argv[2], "wire"))
		do_wire();
	else if (!strcmp(argv[2], "die"))
		do_die();
	else if (!strcmp(argv[2], "bomb") && argc > 3)
		do_bomb(atoi(argv[3]));
	else if (!strcmp(argv[2], "hoard") && argc > 3)
		do_hoard(atoi(argv[3]));
	else if (!strcmp(argv[2], "silent"))
		do_silent();
	else if (!strcmp(argv[2], "events"))
		do_events();
	else if (!strcmp(argv[2], "latency") && argc > 3)
		do_latency(atoi(argv[3]));
	else
		return 2;
	printf("end\n");
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * bad_sites.c - a hostile peer on the utracefs control socket, for
 * tests/integration/80_filter.sh.  Modes (argv[1]):
 *
 *   hostile   malformed and out-of-order UT_MSG_SITES packets, one connection each:
 *             prints "closed NAME" or "open NAME" for each (what utracefs did)
 *   huge FSPID  first packets of FT_MAX_OBJS objects announcing 2^22 sites each,
 *             and no offsets: prints how much utracefs's address space grew (MB)
 *   exec      two connections of this pid, as an exec'd image (the second) and the
 *             image it replaced (the first, whose packets were still queued): the
 *             old one's SITES for object 0 must not replace the new one's.  Prints
 *             "sites N", the size of object 0 in our section (the new image sent 2)
 *   hello-close  HELLO, then close at once without waiting for WELCOME; prints
 *             "pid N" (with function-fork, utracefs must not keep N in
 *             set_ftrace_pid after it is gone)
 *
 * No LD_PRELOAD: nothing of the runtime is used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../common/ut_ctl.h"
#include "../../common/ut_sel.h"
#include "../../common/ut_wire.h"
/* the socket path as the runtime finds it (UTRACE_TRACING) */
#include "../../common/ut_paths.c"

__attribute__((noinline)) int bs_one(int x)
{
	return x + 11;
}
__attribute__((noinline)) int bs_two(int x)
{
	return x * 13;
}

static char sock_path[108];
static uint64_t base;
static char exe[256];

static int first_base(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;
}

/* Connect and register; *selfd: the selection memfd (or NULL: closed). */
static int conn(int *selfd)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct ut_msg_hello h = {.h = {UT_MSG_HELLO, sizeof(h)}, .version = UT_PROTO_VERSION};
	struct ut_msg_welcome w;
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = {.iov_base = &w, .iov_len = sizeof(w)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	int fds[4] = {-1, -1, -1, -1}, fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, sock_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("bad_sites: connect");
		exit(1);
	}
	h.pid = getpid();
	h.tid = h.pid;
	strcpy(h.comm, "bad_sites");
	strcpy(h.exe, exe);
	if (send(fd, &h, sizeof(h), 0) != sizeof(h) || recvmsg(fd, &mh, 0) != sizeof(w)) {
		fprintf(stderr, "bad_sites: no WELCOME\n");
		exit(1);
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(fds)))
			memcpy(fds, CMSG_DATA(c), sizeof(fds));
	/* the control page, the area, the selection, the events */
	close(fds[0]);
	close(fds[1]);
	close(fds[3]);
	if (selfd)
		*selfd = fds[2];
	else
		close(fds[2]);
	return fd;
}

static union {
	struct ut_msg_sites m;
	char buf[sizeof(struct ut_msg_sites) + (UT_SITES_PER_MSG + 16) * sizeof(uint32_t)];
} pk;

/* A SITES packet of nr offsets (all `off`), its len field as it should be. */
static size_t sites(uint32_t obj, uint32_t total, uint32_t first, uint32_t nr, uint32_t off)
{
	size_t len = sizeof(pk.m) + (size_t)nr * sizeof(uint32_t);

	memset(&pk.m, 0, sizeof(pk.m));
	pk.m.h.type = UT_MSG_SITES;
	pk.m.h.len = (uint32_t)len;
	pk.m.obj = obj;
	pk.m.total = total;
	pk.m.first = first;
	pk.m.nr = nr;
	pk.m.base = base;
	strcpy(pk.m.path, exe);
	for (uint32_t i = 0; i < nr && i < UT_SITES_PER_MSG + 16; i++)
		pk.m.offsets[i] = off + i;
	return len;
}

static void put(int fd, size_t len)
{
	if (send(fd, pk.buf, len, MSG_NOSIGNAL) != (ssize_t)len && errno != EPIPE &&
	    errno != ECONNRESET)
		perror("bad_sites: send");
}

/* Did utracefs close the connection (within 1 s)? */
static int closed(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char c[64];

	if (poll(&p, 1, ms) <= 0)
		return 0;
	return recv(fd, c, sizeof(c), MSG_DONTWAIT) <= 0;
}

static void report(const char *name, int fd, int legal)
{
	/* a legal packet leaves the connection open: waiting 200 ms is enough to see */
	printf("%s %s\n", closed(fd, legal ? 200 : 2000) ? "closed" : "open", name);
	fflush(stdout);
	close(fd);
}

static void hostile(void)
{
	uint32_t off = (uint32_t)((uintptr_t)bs_one - base);
	int fd;
	size_t len;

	/* SITES before HELLO */
	{
		struct sockaddr_un sa = {.sun_family = AF_UNIX};

		strcpy(sa.sun_path, sock_path);
		fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			exit(1);
		put(fd, sites(0, 1, 0, 1, off));
		report("before-hello", fd, 0);
	}
	fd = conn(NULL);
	len = sites(0, 1, 0, 1, off);
	pk.m.h.len = (uint32_t)len + 4;
	put(fd, len);
	report("len-mismatch", fd, 0);

	fd = conn(NULL);
	len = sites(0, UT_SITES_PER_MSG + 1, 0, UT_SITES_PER_MSG + 1, off);
	put(fd, len);
	report("nr-too-large", fd, 0);

	fd = conn(NULL);
	len = sites(0, 1, 0, 1, off);
	memset(pk.m.path, 'a', sizeof(pk.m.path));
	put(fd, len);
	report("path-unterminated", fd, 0);

	fd = conn(NULL);
	len = sites(0, 1, 0, 1, off);
	strcpy(pk.m.path, "relative");
	put(fd, len);
	report("path-relative", fd, 0);

	fd = conn(NULL);
	put(fd, sites(0, 1, 2, 0, off));
	report("first-past-total", fd, 0);

	fd = conn(NULL);
	put(fd, sites(0, 3, 2, 2, off));
	report("nr-past-total", fd, 0);

	fd = conn(NULL);
	put(fd, sites(0, 0xffffffffu, 0, 1, off));
	report("total-huge", fd, 0);

	fd = conn(NULL);
	put(fd, sites(0, 0, 0, 1, off));
	report("unload-with-offsets", fd, 0);

	fd = conn(NULL);
	put(fd, sites(0, 3, 0, 1, off));
	put(fd, sites(0, 3, 2, 1, off));
	report("chunk-out-of-order", fd, 0);

	fd = conn(NULL);
	put(fd, sites(0, 3, 0, 1, off));
	put(fd, sites(0, 4, 1, 1, off));
	report("chunk-other-total", fd, 0);

	fd = conn(NULL);
	put(fd, sites(0, 3, 0, 1, off));
	len = sites(0, 3, 1, 1, off);
	pk.m.base = base + 4096;
	put(fd, len);
	report("chunk-other-base", fd, 0);

	fd = conn(NULL);
	put(fd, sites(5, 3, 1, 1, off));
	report("chunk-never-started", fd, 0);

	fd = conn(NULL);
	put(fd, sites(0, 1, 0, 1, off));
	put(fd, sites(0, 1, 1, 0, off));
	report("chunk-after-complete", fd, 0);

	fd = conn(NULL);
	pk.m.h.type = UT_MSG_SITES;
	pk.m.h.len = 6;
	if (send(fd, pk.buf, 6, 0) != 6)
		perror("send");
	report("short-packet", fd, 0);

	fd = conn(NULL);
	len = sites(0, UT_SITES_PER_MSG + 16, 0, UT_SITES_PER_MSG + 16, off);
	put(fd, len);
	report("oversized-packet", fd, 0);

	/* legal, if odd: the connection stays */
	fd = conn(NULL);
	put(fd, sites(0, 3, 0, 1, off));
	put(fd, sites(0, 2, 0, 2, off)); /* restarted before it was complete */
	put(fd, sites(0, 2, 0, 2, 0xfffffff0u)); /* replaced, sites at no function */
	put(fd, sites(7, 0, 0, 0, off)); /* unloading an object never sent */
	put(fd, sites(0, 0, 0, 0, off)); /* unloading a sent one */
	put(fd, sites(1, 5, 0, 2, off)); /* and gone with an object incomplete */
	report("odd-but-legal", fd, 1);
}

static void huge(const char *fspid)
{
	char path[64], line[256];
	long before = -1, peak = 0;
	int fd = conn(NULL);

	snprintf(path, sizeof(path), "/proc/%s/status", fspid);
	for (int round = 0; round < 20; round++) {
		FILE *f = fopen(path, "r");
		long kb = -1;

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "VmSize: %ld", &kb) == 1)
				break;
		if (f)
			fclose(f);
		if (before < 0) {
			before = kb;
			for (uint32_t obj = 0; obj < 4096; obj++)
				put(fd, sites(obj, 1u << 22, 0, 0, 0));
		} else if (kb - before > peak) {
			peak = kb - before;
		}
		usleep(20000);
	}
	printf("grew %ld MB\n", peak / 1024);
	close(fd);
}

/* Object 0's size in our section of the memfd, once one is there (-1: none). */
static long section_sites(int selfd)
{
	for (int tries = 0; tries < 200; tries++) {
		struct stat st;
		const char *m;
		const struct ut_sel_hdr *h;
		long n = -1;

		if (fstat(selfd, &st))
			return -1;
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, selfd, 0);
		if (m == MAP_FAILED)
			return -1;
		h = (const void *)m;
		uint32_t seq = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);

		if (!(seq & 1) && h->size <= (uint64_t)st.st_size) {
			const struct ut_sel_proc *p = (const void *)(m + h->procs_off);

			for (uint32_t i = 0; i < h->nr_procs; i++)
				if (p[i].pid == getpid() && p[i].nr_objs)
					n = ((const struct ut_sel_obj *)(m + p[i].objs_off))->nr_sites;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&h->seq, __ATOMIC_RELAXED) != seq)
			n = -2;
		munmap((void *)m, (size_t)st.st_size);
		if (n >= 0)
			return n;
		usleep(10000);
	}
	return -1;
}

static void exec_race(void)
{
	uint32_t one = (uint32_t)((uintptr_t)bs_one - base);
	uint32_t two = (uint32_t)((uintptr_t)bs_two - base);
	int selfd, old = conn(NULL), new = conn(&selfd);
	size_t len;

	len = sites(0, 2, 0, 2, one);
	pk.m.offsets[1] = two;
	put(new, len);
	if (section_sites(selfd) != 2) {
		printf("no section for the new image\n");
		return;
	}
	put(old, sites(0, 1, 0, 1, one));
	pk.m.h.type = 99; /* then the old one goes: its EOF says its packets were read */
	put(old, sizeof(pk.m));
	closed(old, 2000);
	printf("sites %ld\n", section_sites(selfd));
	close(old);
	close(new);
}

static void hello_close(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct ut_msg_hello h = {.h = {UT_MSG_HELLO, sizeof(h)}, .version = UT_PROTO_VERSION};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, sock_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		exit(1);
	h.pid = getpid();
	h.tid = h.pid;
	strcpy(h.comm, "bad_sites");
	strcpy(h.exe, exe);
	if (send(fd, &h, sizeof(h), 0) != sizeof(h))
		exit(1);
	close(fd);
	printf("pid %d\n", (int)getpid());
}

int main(int argc, char **argv)
{
	if (argc < 2 || ut_socket_path(sock_path, sizeof(sock_path)))
		return 2;
	dl_iterate_phdr(first_base, &base);
	if (!realpath("/proc/self/exe", exe))
		return 2;
	if (!strcmp(argv[1], "hostile"))
		hostile();
	else if (!strcmp(argv[1], "huge") && argc > 2)
		huge(argv[2]);
	else if (!strcmp(argv[1], "exec"))
		exec_race();
	else if (!strcmp(argv[1], "hello-close"))
		hello_close();
	else
		return 2;
	return 0;
}

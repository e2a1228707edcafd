// SPDX-License-Identifier: MIT
/*
 * fake_sites.c - a stand-in for a traced process on the utracefs control socket,
 * for tests/integration/80_filter.sh: HELLO as the runtime sends it, WELCOME with
 * its two descriptors (the area, the selection memfd), then UT_MSG_SITES for its
 * own executable with the sites of five of its functions (fs_delta's 4 bytes in,
 * as after an endbr64).  A thread waits on ctl->gen; at every new generation it
 * prints its section of the selection memfd, one line:
 *
 *   gen G filtered F fs_alpha=FLAGS fs_alpha_two=FLAGS ...   (or "... nosection")
 *
 * then acknowledges, so that a filter write returns after the line is out.  It
 * exits when stdin closes.  Nothing of the runtime is used: no LD_PRELOAD.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
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

__attribute__((noinline)) int fs_alpha(int x)
{
	return x + 1;
}
__attribute__((noinline)) int fs_alpha_two(int x)
{
	return x * 3;
}
__attribute__((noinline)) int fs_beta(int x)
{
	return x - 7;
}
__attribute__((noinline)) int fs_gamma(int x)
{
	return x ^ 5;
}
__attribute__((noinline)) int fs_delta(int x)
{
	return x << 2;
}

static const struct {
	const char *name;
	int (*fn)(int);
	unsigned int skip; /* bytes from the symbol to the site */
} funcs[] = {
    {"fs_alpha", fs_alpha, 0}, {"fs_alpha_two", fs_alpha_two, 0}, {"fs_beta", fs_beta, 0},
    {"fs_gamma", fs_gamma, 0}, {"fs_delta", fs_delta, 4},
};
#define NR_FUNCS (sizeof(funcs) / sizeof(funcs[0]))

static int sock = -1;
static const struct ut_ctl *ctl;
static int sel_fd = -1;
static uint64_t base;

static int first_base(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(uint64_t *)arg = info->dlpi_addr; /* the executable comes first */
	return 1;
}

static int welcome(void)
{
	struct ut_msg_hello h = {.h = {UT_MSG_HELLO, sizeof(h)}, .version = UT_PROTO_VERSION};
	struct ut_msg_welcome w;
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = {.iov_base = &w, .iov_len = sizeof(w)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	int fds[4] = {-1, -1, -1, -1}; /* the control page, the area, the selection, the events */
	ssize_t n;

	h.pid = getpid();
	h.tid = (int32_t)syscall(SYS_gettid);
	prctl(PR_GET_NAME, h.comm, 0, 0, 0);
	n = readlink("/proc/self/exe", h.exe, sizeof(h.exe) - 1);
	if (n > 0)
		h.exe[n] = '\0';
	if (send(sock, &h, sizeof(h), 0) != sizeof(h))
		return -1;
	n = recvmsg(sock, &mh, 0);
	for (struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(4 * sizeof(int)))
			memcpy(fds, CMSG_DATA(c), sizeof(fds));
	if (n != sizeof(w) || w.h.type != UT_MSG_WELCOME || fds[0] < 0 || fds[2] < 0) {
		fprintf(stderr, "fake_sites: no WELCOME with four descriptors\n");
		return -1;
	}
	ctl = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fds[0], 0);
	close(fds[1]);
	close(fds[3]);
	sel_fd = fds[2];
	/* the selection memfd must come read-only */
	if (mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, sel_fd, 0) != MAP_FAILED) {
		fprintf(stderr, "fake_sites: the selection memfd is writable\n");
		return -1;
	}
	return ctl == MAP_FAILED ? -1 : 0;
}

static int send_sites(void)
{
	struct {
		struct ut_msg_sites m;
		uint32_t offs[NR_FUNCS];
	} s = {.m = {.h = {UT_MSG_SITES, 0}, .obj = 0, .total = NR_FUNCS, .nr = NR_FUNCS}};
	/* exactly the header and the offsets: not the struct's tail padding */
	size_t len = sizeof(s.m) + NR_FUNCS * sizeof(uint32_t);

	dl_iterate_phdr(first_base, &base);
	if (!realpath("/proc/self/exe", s.m.path))
		return -1;
	s.m.base = base;
	s.m.h.len = (uint32_t)len;
	for (unsigned int i = 0; i < NR_FUNCS; i++)
		s.offs[i] = (uint32_t)((uintptr_t)funcs[i].fn + funcs[i].skip - base);
	return send(sock, &s, len, 0) == (ssize_t)len ? 0 : -1;
}

/* Print this process's section: a consistent copy under hdr.seq. */
static void print_section(uint32_t gen)
{
	char line[1024];
	int len;

	for (int tries = 0; tries < 1000; tries++) {
		struct stat st;
		const char *m;
		const struct ut_sel_hdr *h;
		uint32_t seq;

		if (fstat(sel_fd, &st) || st.st_size < (off_t)sizeof(*h))
			break;
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, sel_fd, 0);
		if (m == MAP_FAILED)
			break;
		h = (const void *)m;
		seq = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
		len = snprintf(line, sizeof(line), "gen %u filtered %u", gen, h->filtered);
		if (seq & 1 || h->magic != UT_SEL_MAGIC || h->size > (uint64_t)st.st_size)
			goto retry;
		const struct ut_sel_proc *p = NULL;

		for (uint32_t i = 0; i < h->nr_procs; i++) {
			const struct ut_sel_proc *q = (const void *)(m + h->procs_off) + 0;

			q += i;
			if (h->procs_off + (i + 1) * sizeof(*q) > h->size)
				break;
			if (q->pid == getpid())
				p = q;
		}
		if (!p) {
			len += snprintf(line + len, sizeof(line) - len, " nosection");
		} else {
			const struct ut_sel_obj *o = (const void *)(m + p->objs_off);

			if (p->nr_objs != 1 || p->objs_off + sizeof(*o) > h->size ||
			    o->nr_sites != NR_FUNCS || o->flags_off + NR_FUNCS > h->size)
				goto retry;
			for (unsigned int i = 0; i < NR_FUNCS; i++)
				len += snprintf(line + len, sizeof(line) - len, " %s=%u",
						funcs[i].name, m[o->flags_off + i]);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&h->seq, __ATOMIC_RELAXED) == seq) {
			munmap((void *)m, (size_t)st.st_size);
			printf("%s\n", line);
			fflush(stdout);
			return;
		}
	retry:
		munmap((void *)m, (size_t)st.st_size);
		usleep(1000);
	}
	printf("gen %u unreadable\n", gen);
	fflush(stdout);
}

static void *watch(void *arg)
{
	uint32_t seen = 0;

	for (;;) {
		uint32_t gen = __atomic_load_n(&ctl->gen, __ATOMIC_ACQUIRE);
		struct ut_msg_ack a = {.h = {UT_MSG_ACK, sizeof(a)}};

		if (gen == seen) {
			syscall(SYS_futex, &ctl->gen, FUTEX_WAIT, gen, NULL, NULL, 0);
			continue;
		}
		seen = gen;
		print_section(gen);
		a.gen = gen;
		send(sock, &a, sizeof(a), MSG_NOSIGNAL);
	}
	return NULL;
}

int main(void)
{
	const char *dir = getenv("UTRACE_TRACING");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct ut_msg_ack a = {.h = {UT_MSG_ACK, sizeof(a)}};
	pthread_t t;
	char buf[256];

	if (!dir ||
	    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s.sock", dir) >= (int)sizeof(sa.sun_path))
		return 2;
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa)) || welcome())
		return 1;
	/* acknowledge the generation we start at, as the runtime does */
	a.gen = __atomic_load_n(&ctl->gen, __ATOMIC_ACQUIRE);
	send(sock, &a, sizeof(a), MSG_NOSIGNAL);
	if (send_sites())
		return 1;
	printf("base %#llx\n", (unsigned long long)base);
	fflush(stdout);
	pthread_create(&t, NULL, watch, NULL);
	while (fgets(buf, sizeof(buf), stdin))
		; /* keep the functions alive: they are only ever named */
	return fs_alpha(0) + fs_alpha_two(0) + fs_beta(7) + fs_gamma(5) + fs_delta(0) - 1;
}

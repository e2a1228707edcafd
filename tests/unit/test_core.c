// SPDX-License-Identifier: MIT
/*
 * test_core.c - the core of utracefs without FUSE: parsing, the shared area and
 * its rings, the registry (a real socket with fake processes in threads), ACK
 * waiting in tfs_apply, tracer switching and the saved_cmdlines table.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core.h"
#include "functab.h"
#include "ring_read.h"
#include "settings.h"
#include "tfs.h"
#include "ut_sel.h"
#include "ut_ring_write.h"
#include "ut_wire.h"

#include "seccomp_deny.h"

#define NR_CPUS 2

static char tmpdir[64];
static char sockpath[128];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- parse.c ----------------------------------------------------------------------- */

static void test_parse_ulong(void **state)
{
	static const struct {
		const char *in;
		int err;
		unsigned long val;
	} cases[] = {
	    /* what the kernel's tracing_on answers to echo (newline included) */
	    {"5\n", 0, 5},
	    {"0\n", 0, 0},
	    {"+1\n", 0, 1},
	    {"1", 0, 1},
	    {" 1\n", -EINVAL, 0},
	    {"-1\n", -EINVAL, 0},
	    {"0x1\n", -EINVAL, 0},
	    {"1 \n", -EINVAL, 0},
	    {"abc\n", -EINVAL, 0},
	    {"\n", -EINVAL, 0},
	    {"1\n\n", -EINVAL, 0},
	    {"99999999999999999999999\n", -ERANGE, 0},
	    {"18446744073709551615\n", 0, ULONG_MAX},
	    {"18446744073709551616\n", -ERANGE, 0},
	    {"000000000000000000000000000000000000000000000000000000000000001\n", 0, 1},
	};
	unsigned long v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 12345;
		int err = tfs_parse_ulong(cases[i].in, strlen(cases[i].in), &v);

		if (err != cases[i].err)
			fail_msg("'%s': got %d, want %d", cases[i].in, err, cases[i].err);
		if (!err)
			assert_int_equal(v, cases[i].val);
	}
	/* only the first 66 bytes count: 70 zeros then "1" reads as 0 */
	char longz[80];

	memset(longz, '0', 70);
	strcpy(longz + 70, "1\n");
	assert_int_equal(tfs_parse_ulong(longz, strlen(longz), &v), 0);
	assert_int_equal(v, 0);
	/* an embedded NUL ends the text */
	assert_int_equal(tfs_parse_ulong("1\0junk", 6, &v), 0);
	assert_int_equal(v, 1);
}

static void test_strip(void **state)
{
	char out[8];

	assert_int_equal(tfs_strip("  nop \n", 7, out, sizeof(out)), 0);
	assert_string_equal(out, "nop");
	assert_int_equal(tfs_strip("\n", 1, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(tfs_strip("function\n", 9, out, sizeof(out)), -EINVAL);
	assert_int_equal(tfs_strip("ab\0cd", 5, out, sizeof(out)), 0);
	assert_string_equal(out, "ab");
}

/* ---- area.c ------------------------------------------------------------------------ */

static struct ut_ev_func fev(uint32_t tid)
{
	struct ut_ev_func e = {.h = {.len = sizeof(e), .type = UT_EV_FUNCTION, .tid = tid}};

	e.ip = 0x1000;
	return e;
}

static void test_kpages(void **state)
{
	/* the kernel's pages: K, plus its reader page (and never fewer than 3) */
	assert_int_equal(tfs_kpages_to_rb_pages(1), 3);
	assert_int_equal(tfs_kpages_to_rb_pages(2), 3); /* buffer_size_kb 4 (reads 7) */
	assert_int_equal(tfs_kpages_to_rb_pages(100), 101);
	assert_int_equal(tfs_kpages_to_rb_pages(354), 355); /* the kernel's 1410 KB */
	for (unsigned int k = 2; k < 5000; k += 37)
		assert_int_equal(tfs_kpages_to_rb_pages(k), k + 1);
}

/*
 * What a hostile process can do with the memfd it is given must not hurt utracefs:
 * the size is sealed, and settings scribbled into the control page are not read back.
 */
static void test_area_hostile(void **state)
{
	struct rb_cpu *rc = ut_rb_cpu(tfs.area, 0);
	struct timespec t0, t1;
	uint32_t gen = tfs_top.ctl->gen;

	assert_true(fcntl(tfs.area_fd, F_GET_SEALS) & F_SEAL_SHRINK);
	assert_int_equal(ftruncate(tfs.area_fd, 0), -1);
	assert_int_equal(errno, EPERM);

	/* a "locked" write mode and a live lock holder: the barrier must not wait on it */
	tfs_top.ctl->write_mode = UT_CTL_WRITE_LOCKED;
	__atomic_store_n(&rc->lock, (uint32_t)getpid(), __ATOMIC_SEQ_CST);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tfs_ring_reset(&tfs_top, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 1);
	__atomic_store_n(&rc->lock, 0, __ATOMIC_SEQ_CST);
	tfs_top.ctl->write_mode = UT_CTL_WRITE_RSEQ;

	/*
	 * In the real locked mode, a word that names a live task but not its start
	 * time (a reused tid, a forged word) is no holder: the reset takes the lock
	 * from it and leaves the ring unlocked.  Also pid 1.
	 */
	tfs_area_set_write_mode(UT_CTL_WRITE_LOCKED);
	for (int i = 0; i < 2; i++) {
		__atomic_store_n(&rc->lock, i ? 1u : (uint64_t)getpid(), __ATOMIC_SEQ_CST);
		assert_int_equal(tfs_ring_reset(&tfs_top, 0), 0);
		assert_int_equal(__atomic_load_n(&rc->lock, __ATOMIC_SEQ_CST), 0);
	}
	tfs_area_set_write_mode(UT_CTL_WRITE_RSEQ);

	/* a scribbled generation does not steer the next one */
	tfs_top.ctl->gen = 12345;
	assert_int_equal(tfs_apply(&tfs_top), 0);
	assert_int_equal(tfs_top.ctl->gen, gen + 1);
}

/*
 * What utracefs alone writes cannot be written by a process, whatever it does with
 * the descriptors it gets: the control page's memfd and the selection memfd are
 * sealed against every later writable mapping (so mprotect of a read-only one
 * fails) and against write(2), even through a descriptor reopened read-write.
 */
static void assert_write_sealed(int fd)
{
	char path[64];
	void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	int rw;

	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m, 4096, PROT_READ | PROT_WRITE), -1);
	munmap(m, 4096);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rw = open(path, O_RDWR);
	assert_true(rw >= 0);
	assert_true(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, rw, 0) == MAP_FAILED);
	assert_int_equal(pwrite(rw, "x", 1, 0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(rw, 0), -1);
	close(rw);
}

static void test_shared_sealed(void **state)
{
	int sel = tfs_sel_fd_ro();
	uint32_t gen = tfs_top.ctl->gen;

	assert_write_sealed(tfs.ctl_fd);
	assert_true(sel >= 0);
	assert_write_sealed(sel);
	close(sel);
	/* utracefs's own maps stay writable: the next change still goes out */
	assert_int_equal(tfs_apply(&tfs_top), 0);
	assert_int_equal(tfs_top.ctl->gen, gen + 1);
	assert_int_equal(tfs_sel_publish(), 0);
}

static void test_area_layout(void **state)
{
	struct stat st;

	assert_non_null(tfs.area);
	assert_int_equal(tfs_top.ctl->magic, UT_CTL_MAGIC);
	assert_int_equal(tfs_top.ctl->version, UT_PROTO_VERSION);
	assert_int_equal(tfs_top.ctl->nr_cpus, NR_CPUS);
	/* every instance slot's span (the rings), then the function probes' counters */
	assert_int_equal(tfs_top.ctl->area_size,
			 UT_INST_MAX * ut_rb_area_size(NR_CPUS) + UT_PROBE_COUNTS_SIZE);
	assert_int_equal(tfs_top.ctl->ftrace_enabled, 1);
	assert_int_equal(tfs_top.ctl->tracing_on, 1);
	assert_int_equal(fstat(tfs.area_fd, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal((uint64_t)st.st_size, tfs.area_size);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct rb_cpu *rc = ut_rb_cpu(tfs.area, cpu);

		/* the kernel's boot buffer, before its first use expands it */
		assert_int_equal(tfs_top.nr_kpages[cpu], TFS_BOOT_KPAGES);
		assert_int_equal(rc->nr_pages, tfs_kpages_to_rb_pages(TFS_BOOT_KPAGES));
		assert_int_equal(rc->enabled, 1);
		assert_int_equal(rc->wpos, 0);
		assert_int_equal(ut_rb_page(tfs.area, cpu, 0)->magic, UT_RB_PAGE_MAGIC);
	}
}

static void test_ring_reset_resize(void **state)
{
	struct ut_ev_func e = fev(42);
	struct rb_cpu *rc = ut_rb_cpu(tfs.area, 1);
	unsigned int old_nr;

	/* fill a few pages of CPU 1, then resize: new size, events kept, enabled */
	for (int i = 0; i < 1000; i++)
		assert_int_equal(ut_rb_write_on_cpu(tfs.area, 1, &e.h), 0);
	assert_true(rb_wpos_vpage(rc->wpos) > 0);
	old_nr = rc->nr_pages;
	assert_true(1000 > (old_nr - 1) * (UT_RB_PAGE_DATA / 32)); /* it overflowed */
	assert_int_equal(tfs_ring_resize(&tfs_top, 1, 100), 0);
	assert_int_equal(rc->nr_pages, 101);
	assert_int_equal(ut_rb_page(tfs.area, 1, rb_wpos_slot(rc->wpos))->base_entries +
			     rb_wpos_entries(rc->wpos),
			 1000);
	/* the old readable window (nr - 1 pages) was kept whole, page for page */
	assert_int_equal(rb_wpos_vpage(rc->wpos), old_nr - 2);
	assert_int_equal(rc->dropped, 0);
	assert_int_equal(rc->read_vpage, 0);
	assert_int_equal(rc->enabled, 1);
	tfs_ring_reset(&tfs_top, 1);
	assert_int_equal(rc->wpos, 0);
	assert_int_equal(ut_rb_write_on_cpu(tfs.area, 1, &e.h), 0);
	assert_int_equal(rb_wpos_entries(rc->wpos), 1);
	assert_int_equal(tfs_ring_resize(&tfs_top, 1, 0), -ENOMEM);
	assert_int_equal(tfs_ring_resize(&tfs_top, NR_CPUS, 10), -EINVAL);

	/* reset of one CPU keeps its size (from tfs_top.nr_kpages) and leaves the other alone */
	tfs_top.nr_kpages[1] = 100;
	assert_int_equal(ut_rb_write_on_cpu(tfs.area, 0, &e.h), 0);
	tfs_ring_reset(&tfs_top, 1);
	assert_int_equal(rc->wpos, 0);
	assert_int_equal(rc->nr_pages, 101);
	assert_int_not_equal(ut_rb_cpu(tfs.area, 0)->wpos, 0);
	tfs_ring_reset(&tfs_top, -1);
	assert_int_equal(ut_rb_cpu(tfs.area, 0)->wpos, 0);

	/* a CPU outside the mask is not written; back in, it is */
	tfs_ring_enable(&tfs_top, 1, false);
	assert_int_equal(ut_rb_write_on_cpu(tfs.area, 1, &e.h), -EAGAIN);
	tfs_ring_enable(&tfs_top, 1, true);
	assert_int_equal(ut_rb_write_on_cpu(tfs.area, 1, &e.h), 0);
	tfs_top.cpumask[0] &= ~2ull;
	tfs_ring_reset(&tfs_top, 1); /* a reset must not re-enable a masked CPU */
	assert_int_equal(rc->enabled, 0);
	tfs_top.cpumask[0] |= 2ull;
	tfs_ring_reset(&tfs_top, 1);
	assert_int_equal(rc->enabled, 1);
	tfs_top.nr_kpages[1] = 354;
	tfs_ring_reset(&tfs_top, -1);
}

/* The events a snapshot of cpu shows, copied into out (at most max); their number. */
static unsigned int snap_events(unsigned int cpu, struct ut_ev_func *out, unsigned int max)
{
	struct tfs_iter it = {.inst = &tfs_top, .cpu_filter = (int)cpu};
	struct tfs_snap *s = tfs_snap_take(&tfs_top, (int)cpu, &it);
	struct tfs_event ev;
	unsigned int n = 0;

	assert_non_null(s);
	while (tfs_snap_next(s, &it, &ev)) {
		assert_int_equal(ev.ev->len, sizeof(*out));
		if (n < max)
			memcpy(&out[n], ev.ev, sizeof(*out));
		n++;
	}
	tfs_snap_free(s);
	return n;
}

/* Resize keeps the newest events that fit, in order, byte for byte (as the kernel). */
static void test_ring_resize_keeps(void **state)
{
	enum { N = 3000 };
	static struct ut_ev_func in[N], got[N], before[N];
	struct tfs_cpu_stats st;
	unsigned int n, n2, refused = 0;

	tfs_top.nr_kpages[1] = 20;
	tfs_ring_reset(&tfs_top, 1);
	tfs_rr_reset(&tfs_top, 1);
	for (unsigned int i = 0; i < N; i++) {
		in[i] = fev(100 + i % 7);
		in[i].h.ts = 1000000 + 10ull * i;
		in[i].ip = 0x400000 + i;
		in[i].parent_ip = 0x500000 + 3ull * i;
		assert_int_equal(ut_rb_write_on_cpu(tfs.area, 1, &in[i].h), 0);
	}
	ut_rb_cpu(tfs.area, 1)->dropped = 5; /* survives, as the kernel's count does */

	/* down: only the newest fit, and they are the last ones written */
	tfs_top.nr_kpages[1] = 3;
	assert_int_equal(tfs_ring_resize(&tfs_top, 1, 3), 0);
	n = snap_events(1, got, N);
	assert_true(n > 0 && n < N);
	assert_true(n >= 3 * UT_KERNEL_PAGE_DATA / sizeof(got[0]) - UT_RB_PAGE_DATA / 32);
	assert_memory_equal(got, &in[N - n], n * sizeof(got[0]));
	assert_int_equal(tfs_rr_stats(&tfs_top, 1, &st), 0);
	assert_int_equal(st.entries, n);
	assert_int_equal(st.written, N);
	assert_int_equal(st.overrun, N - n);
	assert_int_equal(st.dropped, 5);
	assert_int_equal(st.read, 0);

	/* up: everything there survives; new events go after them */
	tfs_top.nr_kpages[1] = 50;
	assert_int_equal(tfs_ring_resize(&tfs_top, 1, 50), 0);
	n2 = snap_events(1, got, N);
	assert_int_equal(n2, n);
	assert_memory_equal(got, &in[N - n], n * sizeof(got[0]));
	assert_int_equal(tfs_rr_stats(&tfs_top, 1, &st), 0);
	assert_int_equal(st.entries, n);
	assert_int_equal(st.written, N);
	assert_int_equal(ut_rb_write_on_cpu(tfs.area, 1, &in[0].h), 0);
	assert_int_equal(snap_events(1, got, N), n + 1);
	assert_memory_equal(&got[n], &in[0], sizeof(got[0]));

	/* no-overwrite mode: the kept events stay, and a full ring refuses new ones */
	__atomic_and_fetch(&tfs_top.opts, ~(1ull << TFS_OPT_OVERWRITE), __ATOMIC_RELAXED);
	tfs_ring_set_overwrite(&tfs_top, false);
	tfs_top.nr_kpages[1] = 3;
	assert_int_equal(tfs_ring_resize(&tfs_top, 1, 3), 0);
	n2 = snap_events(1, got, N);
	assert_true(n2 > 0 && n2 <= n + 1);
	assert_memory_equal(&got[n2 - 1], &in[0], sizeof(got[0]));
	memcpy(before, got, n2 * sizeof(got[0]));
	for (unsigned int i = 0; i < N; i++)
		refused += ut_rb_write_on_cpu(tfs.area, 1, &in[i].h) == -ENOSPC;
	assert_true(refused > 0);
	assert_true(snap_events(1, got, N) >= n2);
	assert_memory_equal(got, before, n2 * sizeof(got[0]));
	__atomic_or_fetch(&tfs_top.opts, 1ull << TFS_OPT_OVERWRITE, __ATOMIC_RELAXED);
	tfs_ring_set_overwrite(&tfs_top, true);

	tfs_top.nr_kpages[1] = 354;
	tfs_ring_reset(&tfs_top, -1);
	tfs_rr_reset(&tfs_top, -1);
}

static int take_any(struct tfs_iter *it, const struct tfs_event *e, void *arg)
{
	return 0;
}

/*
 * A resize keeps the consumer's reader page (overwrite mode: a page a read took
 * out of the ring, ring_read.c) when the pages kept join it: its unread events
 * come first in the new ring, and nothing is counted twice or lost.
 */
static void test_ring_resize_reader_page(void **state)
{
	enum { PER_PAGE = UT_RB_PAGE_DATA / sizeof(struct ut_ev_func), N = 2000 };
	static struct ut_ev_func in[N], got[N];
	struct tfs_iter it = {.pipe = true};
	struct tfs_cpu_stats st;
	unsigned int nr, i, n;

	tfs_top.nr_kpages[1] = 2;
	tfs_ring_reset(&tfs_top, 1);
	tfs_rr_reset(&tfs_top, 1);
	nr = ut_rb_cpu(tfs.area, 1)->nr_pages;
	for (i = 0; i < PER_PAGE + 3; i++) {
		in[i] = fev(7);
		in[i].ip = 0x400000 + i;
		assert_int_equal(ut_rb_write_on_cpu(tfs.area, 1, &in[i].h), 0);
	}
	assert_int_equal(tfs_rr_consume(&tfs_top, 1, &it, 3, take_any, NULL), 3);
	/* the writer goes on until page 0 is out of the ring's window, page 1 not */
	for (; rb_wpos_vpage(ut_rb_cpu(tfs.area, 1)->wpos) < nr - 1 ||
	       rb_wpos_entries(ut_rb_cpu(tfs.area, 1)->wpos) < 5;
	     i++) {
		in[i] = fev(7);
		in[i].ip = 0x400000 + i;
		assert_int_equal(ut_rb_write_on_cpu(tfs.area, 1, &in[i].h), 0);
	}
	assert_int_equal(tfs_rr_stats(&tfs_top, 1, &st), 0);
	assert_int_equal(st.entries, i - 3);
	tfs_top.nr_kpages[1] = 50;
	assert_int_equal(tfs_ring_resize(&tfs_top, 1, 50), 0);
	n = snap_events(1, got, N);
	assert_int_equal(n, i - 3);
	assert_memory_equal(got, &in[3], n * sizeof(got[0]));
	assert_int_equal(tfs_rr_stats(&tfs_top, 1, &st), 0);
	assert_int_equal(st.entries, i - 3);
	assert_int_equal(st.read, 3);
	assert_int_equal(st.overrun, 0);
	assert_int_equal(st.written, i);
	/* the consumer goes on with the event after the ones it took */
	assert_int_equal(tfs_rr_consume(&tfs_top, 1, &it, N, take_any, NULL), i - 3);

	tfs_top.nr_kpages[1] = 354;
	tfs_ring_reset(&tfs_top, -1);
	tfs_rr_reset(&tfs_top, -1);
}

static void test_overwrite_switch(void **state)
{
	struct ut_ev_func e = fev(7);
	struct rb_cpu *rc = ut_rb_cpu(tfs.area, 0);

	tfs_ring_set_overwrite(&tfs_top, true);
	assert_true(rc->flags & RB_F_OVERWRITE);
	/* wrap the ring several times, then stop overwriting: the count starts from
	 * the oldest readable page */
	for (unsigned int i = 0; i < 3 * rc->nr_pages * (UT_RB_PAGE_DATA / sizeof(e)); i++)
		ut_rb_write_on_cpu(tfs.area, 0, &e.h);
	uint64_t before = rc->wpos;

	tfs_ring_set_overwrite(&tfs_top, false);
	assert_false(rc->flags & RB_F_OVERWRITE);
	assert_int_equal(rc->wpos, before); /* not emptied */
	/* no read since the reset: the reader page is not in use (rb_cpu.held), so
	 * the rest of the current page fits, then the buffer is full, as the
	 * kernel's writer meets its head page right after its tail page */
	unsigned int ok = 0;

	assert_int_equal(rc->held, 1);
	while (ut_rb_write_on_cpu(tfs.area, 0, &e.h) == 0 && ok < 100000)
		ok++;
	assert_true(ok < UT_RB_PAGE_DATA / sizeof(e));
	assert_int_equal(rc->dropped, 1);
	tfs_ring_set_overwrite(&tfs_top, true);
	tfs_ring_reset(&tfs_top, -1);
}

static void test_write_print(void **state)
{
	static const char text[] = "hello marker";
	uint64_t seq = 0;
	int found = 0;

	tfs_ring_wait(&seq, 0); /* catch up with earlier kicks */
	assert_int_equal(tfs_write_print(&tfs_top, -1, 4242, UT_IP_MARKER, text, strlen(text), UT_EVF_PREEMPT1),
			 0);
	assert_int_equal(tfs_ring_wait(&seq, 0), 1); /* the write kicked readers */
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct rb_cpu *rc = ut_rb_cpu(tfs.area, cpu);
		const struct ut_ev_marker *p;

		if (!rc->wpos)
			continue;
		/* the marker form: no ip */
		p = (const void *)(ut_rb_page(tfs.area, cpu, 0) + 1);
		assert_int_equal(p->h.type, UT_EV_PRINT);
		assert_int_equal(p->h.tid, 4242);
		assert_int_equal(p->h.flags, UT_EVF_PREEMPT1 | UT_EVF_MARKER);
		assert_int_equal(p->h.len % 8, 0);
		assert_true(p->h.len >= sizeof(*p) + sizeof(text));
		assert_int_equal(ut_ev_print_ip(&p->h), UT_IP_MARKER);
		assert_string_equal(p->buf, text);
		found++;
	}
	assert_int_equal(found, 1);
	/* an untraced writer's comm is not saved: its lines show "<...>" as the kernel's */
	{
		pid_t self = (pid_t)syscall(SYS_gettid);
		char comm[16];

		assert_int_equal(tfs_write_print(&tfs_top, -1, self, UT_IP_MARKER, "x", 1, 0), 0);
		assert_int_equal(tfs_task_comm(self, comm), -ENOENT);
	}
	/* too long for a page: cut, never rejected */
	char big[UT_PRINT_MAX];

	memset(big, 'x', sizeof(big));
	assert_int_equal(tfs_write_print(&tfs_top, -1, 1, UT_IP_MARKER, big, sizeof(big), 0), 0);
	/* no kick for a while: the wait times out */
	assert_int_equal(tfs_ring_wait(&seq, 0), 1);
	assert_int_equal(tfs_ring_wait(&seq, 30), 0);
	tfs_ring_reset(&tfs_top, -1);
}

/* ---- registry.c: fake processes ------------------------------------------------------ */

struct peer {
	int fd;
	struct ut_ctl *ctl;
	uint64_t size;
	pthread_t thread;
	/* stop and ack_delay_ms (set by the test) and seen_* (set by the peer thread):
	 * __atomic loads and stores, both threads use them */
	int stop;
	int ack_delay_ms;
	uint32_t seen_tracer; /* ctl->tracer when it acknowledged the last gen */
	uint32_t seen_on;
	uint32_t gen; /* last applied */
};

static int peer_connect(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, sockpath);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int send_msg(int fd, const void *m, size_t len)
{
	return send(fd, m, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

static void hello_msg(struct ut_msg_hello *h, const char *comm)
{
	memset(h, 0, sizeof(*h));
	h->h.type = UT_MSG_HELLO;
	h->h.len = sizeof(*h);
	h->version = UT_PROTO_VERSION;
	h->pid = getpid();
	h->tid = (int32_t)syscall(SYS_gettid);
	snprintf(h->comm, sizeof(h->comm), "%s", comm);
	snprintf(h->exe, sizeof(h->exe), "/bin/fake");
}

/*
 * HELLO, then WELCOME with the memfds (control page, area, selection), mapped like
 * the runtime does: the control page read-only, the area after it.
 */
static int peer_hello(struct peer *p, const char *comm)
{
	struct ut_msg_hello h;
	struct ut_msg_welcome w;
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} cmsg;
	struct iovec iov = {.iov_base = &w, .iov_len = sizeof(w)};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cmsg.buf,
			    .msg_controllen = sizeof(cmsg.buf)};
	struct cmsghdr *c;
	int fds[4]; /* the control page, the area, the selection, the events */
	char *base;

	hello_msg(&h, comm);
	if (send_msg(p->fd, &h, sizeof(h)))
		return -1;
	if (recvmsg(p->fd, &mh, MSG_CMSG_CLOEXEC) != sizeof(w))
		return -1;
	c = CMSG_FIRSTHDR(&mh);
	if (w.h.type != UT_MSG_WELCOME || !c || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(fds)))
		return -1;
	memcpy(fds, CMSG_DATA(c), sizeof(fds));
	p->size = w.area_size;
	base = mmap(NULL, w.area_size, PROT_READ, MAP_SHARED, fds[1], 0);
	if (base != MAP_FAILED &&
	    mmap(base, UT_CTL_SIZE, PROT_READ, MAP_SHARED | MAP_FIXED, fds[0], 0) == MAP_FAILED) {
		munmap(base, w.area_size);
		base = MAP_FAILED;
	}
	for (int i = 0; i < 4; i++)
		close(fds[i]);
	p->ctl = (void *)base;
	return p->ctl == MAP_FAILED ? -1 : (int)w.nr_cpus;
}

static void send_ack(struct peer *p, uint32_t gen)
{
	struct ut_msg_ack a = {.h = {.type = UT_MSG_ACK, .len = sizeof(a)}, .gen = gen};

	send_msg(p->fd, &a, sizeof(a));
}

static void *peer_main(void *arg);

/* Apply the current state once (synchronously, so no change can be missed), then
 * follow changes in a thread, like the runtime's control thread. */
static int peer_start(struct peer *p)
{
	p->gen = __atomic_load_n(&p->ctl->gen, __ATOMIC_ACQUIRE);
	__atomic_store_n(&p->seen_tracer, p->ctl->tracer, __ATOMIC_RELAXED);
	__atomic_store_n(&p->seen_on, p->ctl->tracing_on, __ATOMIC_RELAXED);
	send_ack(p, p->gen);
	return pthread_create(&p->thread, NULL, peer_main, p);
}

/* The control thread of a fake process: wait on gen, "apply", acknowledge. */
static void *peer_main(void *arg)
{
	struct peer *p = arg;
	uint32_t gen = p->gen;

	while (!__atomic_load_n(&p->stop, __ATOMIC_RELAXED)) {
		struct timespec to = {0, 50 * 1000000L};
		uint32_t g;

		syscall(SYS_futex, &p->ctl->gen, FUTEX_WAIT, gen, &to, NULL, 0);
		g = __atomic_load_n(&p->ctl->gen, __ATOMIC_ACQUIRE);
		if (g == gen)
			continue;
		gen = g;
		int delay_ms = __atomic_load_n(&p->ack_delay_ms, __ATOMIC_RELAXED);

		if (delay_ms)
			usleep(delay_ms * 1000);
		__atomic_store_n(&p->seen_tracer, p->ctl->tracer, __ATOMIC_RELAXED);
		__atomic_store_n(&p->seen_on, p->ctl->tracing_on, __ATOMIC_RELAXED);
		send_ack(p, gen);
	}
	return NULL;
}

static void wait_count(unsigned int n)
{
	for (int i = 0; i < 200 && tfs_registry_count() != n; i++)
		usleep(10000);
	assert_int_equal(tfs_registry_count(), n);
}

static void test_hello_welcome(void **state)
{
	struct peer p = {0};

	p.fd = peer_connect();
	assert_true(p.fd >= 0);
	assert_int_equal(peer_hello(&p, "fakeproc"), NR_CPUS);
	assert_int_equal(p.size, tfs.area_size);
	assert_int_equal(p.ctl->magic, UT_CTL_MAGIC);
	wait_count(1);
	/* the task of the HELLO is known by its comm and tgid */
	char comm[16];
	pid_t tid = (pid_t)syscall(SYS_gettid);

	assert_int_equal(tfs_task_comm(tid, comm), 0);
	assert_string_equal(comm, "fakeproc");
	assert_int_equal(tfs_task_tgid(tid), getpid());

	/* TASK with a foreign pid is a protocol error: disconnected */
	struct ut_msg_task t = {
	    .h = {.type = UT_MSG_TASK, .len = sizeof(t)}, .tid = 99999, .pid = getpid() + 1};

	strcpy(t.comm, "bad");
	assert_int_equal(send_msg(p.fd, &t, sizeof(t)), 0);
	char b;

	assert_int_equal(recv(p.fd, &b, 1, 0), 0); /* EOF */
	wait_count(0);
	assert_int_equal(tfs_task_comm(99999, comm), -ENOENT);
	/* its tasks stay known after it is gone */
	assert_int_equal(tfs_task_comm(tid, comm), 0);
	munmap(p.ctl, p.size);
	close(p.fd);
}

static void test_bad_packets(void **state)
{
	struct ut_msg_hello h;
	char b;
	int fd;

	/* anything before HELLO */
	struct ut_msg_ack a = {.h = {.type = UT_MSG_ACK, .len = sizeof(a)}};

	fd = peer_connect();
	assert_int_equal(send_msg(fd, &a, sizeof(a)), 0);
	assert_int_equal(recv(fd, &b, 1, 0), 0);
	close(fd);
	/* a comm without its NUL */
	fd = peer_connect();
	hello_msg(&h, "x");
	memset(h.comm, 'a', sizeof(h.comm));
	assert_int_equal(send_msg(fd, &h, sizeof(h)), 0);
	assert_int_equal(recv(fd, &b, 1, 0), 0);
	close(fd);
	/* a length that is not the packet's */
	fd = peer_connect();
	hello_msg(&h, "x");
	h.h.len = 12;
	assert_int_equal(send_msg(fd, &h, sizeof(h)), 0);
	assert_int_equal(recv(fd, &b, 1, 0), 0);
	close(fd);
	/* an unknown type */
	fd = peer_connect();
	hello_msg(&h, "x");
	h.h.type = 77;
	assert_int_equal(send_msg(fd, &h, sizeof(h)), 0);
	assert_int_equal(recv(fd, &b, 1, 0), 0);
	close(fd);
	/* a HELLO that claims another pid */
	fd = peer_connect();
	hello_msg(&h, "x");
	h.pid = getpid() + 1;
	assert_int_equal(send_msg(fd, &h, sizeof(h)), 0);
	assert_int_equal(recv(fd, &b, 1, 0), 0);
	close(fd);
	wait_count(0);
}

/* The runtime's messages (UT_MSG_NOTE) end on the console, utracefs's stderr. */
static void test_note(void **state)
{
	char path[] = "/tmp/ut-note-XXXXXX", buf[1024] = "";
	struct ut_msg_note n = {.h = {.type = UT_MSG_NOTE, .len = sizeof(n)}, .tid = 4242};
	struct peer p = {0};
	int log = mkstemp(path), saved = dup(2);
	char b;

	assert_true(log >= 0 && saved >= 0);
	dup2(log, 2);
	p.fd = peer_connect();
	assert_true(p.fd >= 0);
	assert_true(peer_hello(&p, "noteproc") > 0);
	wait_count(1);
	snprintf(n.text, sizeof(n.text), "function_graph: lost\x1b[31m");
	assert_int_equal(send_msg(p.fd, &n, sizeof(n)), 0);
	for (int i = 0; i < 500 && !strstr(buf, "\n"); i++) {
		ssize_t r = pread(log, buf, sizeof(buf) - 1, 0);

		buf[r > 0 ? r : 0] = 0;
		usleep(10000);
	}
	dup2(saved, 2);
	close(saved);
	/* one line, the process and thread named, nothing unprintable passed on */
	char want[128];

	snprintf(want, sizeof(want), "utracefs: process %d, thread 4242: function_graph: lost?[31m\n",
		 (int)getpid());
	assert_string_equal(buf, want);
	wait_count(1); /* still connected */
	/* a text without its NUL: a protocol error */
	memset(n.text, 'a', sizeof(n.text));
	assert_int_equal(send_msg(p.fd, &n, sizeof(n)), 0);
	assert_int_equal(recv(p.fd, &b, 1, 0), 0);
	wait_count(0);
	munmap(p.ctl, p.size);
	close(p.fd);
	close(log);
	unlink(path);
}

static void test_other_uid_refused(void **state)
{
	struct passwd *pw = getpwnam("nobody");
	pid_t pid;
	int status;

	if (geteuid() != 0 || !pw)
		skip();
	/* let the other uid reach the socket: only SO_PEERCRED stands in the way */
	assert_int_equal(chmod(tmpdir, 0755), 0);
	assert_int_equal(chmod(sockpath, 0666), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ut_msg_hello h;
		char b;
		int fd;

		if (setgid(pw->pw_gid) || setuid(pw->pw_uid))
			_exit(3);
		fd = peer_connect();
		if (fd < 0)
			_exit(4);
		hello_msg(&h, "intruder");
		send_msg(fd, &h, sizeof(h));
		/* refused: EOF (or a reset) instead of WELCOME */
		_exit(recv(fd, &b, 1, 0) <= 0 ? 0 : 5);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	chmod(sockpath, 0600);
	chmod(tmpdir, 0700);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(tfs_registry_count(), 0);
}

/* ---- state.c: tfs_apply waits for ACKs -------------------------------------------------- */

static void test_apply_waits_for_acks(void **state)
{
	struct peer p = {0};
	double t0;

	p.fd = peer_connect();
	assert_true(p.fd >= 0);
	assert_true(peer_hello(&p, "acker") > 0);
	p.ack_delay_ms = 200;
	assert_int_equal(peer_start(&p), 0);
	wait_count(1);

	tfs_lock();
	tfs_top.tracing_on = false;
	tfs_unlock();
	t0 = now_s();
	assert_int_equal(tfs_apply(&tfs_top), 0);
	/* returned after the (delayed) ACK, which saw the new state, long before the timeout */
	assert_true(now_s() - t0 >= 0.15);
	assert_true(now_s() - t0 < UT_ACK_TIMEOUT_MS / 1000.0 * 0.75);
	assert_int_equal(__atomic_load_n(&p.seen_on, __ATOMIC_RELAXED), 0);
	assert_int_equal(tfs_top.ctl->tracing_on, 0);

	/* TRACING from the program: applied without blocking the registry */
	struct ut_msg_tracing tr = {.h = {.type = UT_MSG_TRACING, .len = sizeof(tr)}, .on = 1};

	__atomic_store_n(&p.ack_delay_ms, 0, __ATOMIC_RELAXED);
	assert_int_equal(send_msg(p.fd, &tr, sizeof(tr)), 0);
	for (int i = 0; i < 200 && !__atomic_load_n(&p.seen_on, __ATOMIC_RELAXED); i++)
		usleep(10000);
	assert_int_equal(__atomic_load_n(&p.seen_on, __ATOMIC_RELAXED), 1);
	tfs_lock();
	assert_true(tfs_top.tracing_on);
	tfs_unlock();

	__atomic_store_n(&p.stop, 1, __ATOMIC_RELAXED);
	pthread_join(p.thread, NULL);
	close(p.fd);
	wait_count(0);
	munmap(p.ctl, p.size);
}

static void test_apply_hung_process(void **state)
{
	struct peer p = {0};
	double t0;

	p.fd = peer_connect();
	assert_true(peer_hello(&p, "hung") > 0); /* never acknowledges */
	wait_count(1);
	t0 = now_s();
	assert_int_equal(tfs_apply(&tfs_top), 0);
	assert_true(now_s() - t0 >= UT_ACK_TIMEOUT_MS / 1000.0 * 0.9);
	/* left behind: the next change does not wait for it again (a wait would take the
	 * whole timeout; the bound leaves a busy machine most of it) */
	t0 = now_s();
	assert_int_equal(tfs_apply(&tfs_top), 0);
	assert_true(now_s() - t0 < UT_ACK_TIMEOUT_MS / 1000.0 * 0.75);
	close(p.fd);
	wait_count(0);
	munmap(p.ctl, p.size);
}

/* ---- current_tracer.c -------------------------------------------------------------------- */

static int fake_inits, fake_resets;
static int fake_init(struct tfs_instance *inst)
{
	assert_ptr_equal(inst, &tfs_top);
	fake_inits++;
	return 0;
}
static void fake_reset(struct tfs_instance *inst)
{
	assert_ptr_equal(inst, &tfs_top);
	fake_resets++;
}
static const struct tracer fake_function = {
    .name = "fake_function", .id = UT_TRACER_FUNCTION, .init = fake_init, .reset = fake_reset};
static const struct tracer fake_nop = {.name = "fake_nop", .id = UT_TRACER_NOP};

static void test_set_tracer(void **state)
{
	struct peer p = {0};
	struct ut_ev_func e = fev(1);
	const struct tracer *old = tfs_top.tracer;

	p.fd = peer_connect();
	assert_true(peer_hello(&p, "switcher") > 0);
	assert_int_equal(peer_start(&p), 0);
	wait_count(1);

	assert_int_equal(ut_rb_write_on_cpu(tfs.area, 0, &e.h), 0);
	assert_int_equal(tfs_set_tracer(&tfs_top, &fake_function), 0);
	assert_ptr_equal(tfs_top.tracer, &fake_function);
	assert_int_equal(fake_inits, 1);
	assert_int_equal(ut_rb_cpu(tfs.area, 0)->wpos, 0); /* the switch cleared the rings */
	assert_int_equal(tfs_top.ctl->tracer, UT_TRACER_FUNCTION);
	/* returned after the ACK */
	assert_int_equal(__atomic_load_n(&p.seen_tracer, __ATOMIC_RELAXED), UT_TRACER_FUNCTION);

	/* the same tracer again: nothing happens */
	assert_int_equal(ut_rb_write_on_cpu(tfs.area, 0, &e.h), 0);
	assert_int_equal(tfs_set_tracer(&tfs_top, &fake_function), 0);
	assert_int_equal(fake_inits, 1);
	assert_int_not_equal(ut_rb_cpu(tfs.area, 0)->wpos, 0);

	/* busy while trace_pipe is open */
	tfs_top.trace_pipe_readers = 1;
	assert_int_equal(tfs_set_tracer(&tfs_top, &fake_nop), -EBUSY);
	assert_ptr_equal(tfs_top.tracer, &fake_function);
	tfs_top.trace_pipe_readers = 0;

	assert_int_equal(tfs_set_tracer(&tfs_top, &fake_nop), 0);
	assert_int_equal(fake_resets, 1);
	assert_int_equal(__atomic_load_n(&p.seen_tracer, __ATOMIC_RELAXED), UT_TRACER_NOP);
	assert_int_equal(tfs_set_tracer(&tfs_top, old), 0);

	__atomic_store_n(&p.stop, 1, __ATOMIC_RELAXED);
	pthread_join(p.thread, NULL);
	close(p.fd);
	wait_count(0);
	munmap(p.ctl, p.size);
}

/* ---- registry.c: the saved_cmdlines table ---------------------------------------------- */

struct collect {
	pid_t tids[1024];
	char comms[1024][16];
	int n;
};

static void collect(pid_t tid, pid_t tgid, const char *comm, void *arg)
{
	struct collect *c = arg;

	c->tids[c->n] = tid;
	snprintf(c->comms[c->n], 16, "%s", comm);
	c->n++;
}

static void test_task_table(void **state)
{
	static struct collect c;
	char comm[16], name[16];

	tfs_task_clear();
	tfs.saved_cmdlines_size = 4;
	for (int i = 1; i <= 3; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		assert_int_equal(tfs_task_record(1000 + i, 1000, name), 0);
	}
	/* slots are used from 1 on: 1001 in slot 1, 1002 in 2, 1003 in 3 */
	c.n = 0;
	tfs_task_foreach(collect, &c);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.tids[0], 1001);
	assert_int_equal(c.tids[2], 1003);
	/* the 4th goes to slot 0 and prints first; the 5th evicts slot 1 (1001) */
	assert_int_equal(tfs_task_record(1004, 1000, "t4"), 0);
	assert_int_equal(tfs_task_record(1005, 1000, "t5"), 0);
	c.n = 0;
	tfs_task_foreach(collect, &c);
	assert_int_equal(c.n, 4);
	assert_int_equal(c.tids[0], 1004);
	assert_int_equal(c.tids[1], 1005);
	assert_string_equal(c.comms[1], "t5");
	assert_int_equal(tfs_task_comm(1001, comm), -ENOENT);
	assert_int_equal(tfs_task_comm(1005, comm), 0);
	/* a known task renamed keeps its slot */
	assert_int_equal(tfs_task_record(1002, 1000, "renamed"), 0);
	assert_int_equal(tfs_task_comm(1002, comm), 0);
	assert_string_equal(comm, "renamed");
	/* the tgid survives eviction from saved_cmdlines (saved_tgids is separate) */
	assert_int_equal(tfs_task_tgid(1001), 1000);
	assert_int_equal(tfs_task_tgid(4), 0);
	/* a pid that shares pid mod 32768 takes over the slot */
	assert_int_equal(tfs_task_record(1002 + 32768, 1, "alias"), 0);
	assert_int_equal(tfs_task_comm(1002, comm), -ENOENT);
	/* a new size starts empty */
	tfs.saved_cmdlines_size = 128;
	c.n = 0;
	tfs_task_foreach(collect, &c);
	assert_int_equal(c.n, 0);
	assert_int_equal(tfs_task_record(0, 0, "x"), -EINVAL);
}

/* ---- rings changed under writers and readers -------------------------------------- */

static int stop_pipe[2];
static pid_t stopped_child; /* killed by the teardown when a test failed */

static int stopped_child_teardown(void **state)
{
	if (stopped_child > 0) {
		kill(stopped_child, SIGKILL);
		waitpid(stopped_child, NULL, 0);
	}
	stopped_child = 0;
	tfs_area_set_write_mode(UT_CTL_WRITE_RSEQ);
	return 0;
}

/* In the child: holding CPU 1's lock, tell the test and stop there. */
static void stop_holding_hook(void *area, unsigned int cpu)
{
	char c = (char)cpu;

	if (write(stop_pipe[1], &c, 1) != 1)
		_exit(3);
	raise(SIGSTOP);
}

static void pin_to(unsigned int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		_exit(4);
}

/*
 * Locked write mode: a writer stopped while it holds CPU 1's lock.  A resize or a
 * reset cannot know where it is: they are refused (EBUSY, as soon as the holder is
 * seen stopped, not after the give-up delay: a control write must not stall) and
 * leave the ring as it was, so that the write it commits when it resumes lands in
 * the ring it read.  Once it let go, they work.
 */
static void test_locked_stopped_holder(void **state)
{
	struct ut_ev_func e = fev(42);
	struct rb_cpu *rc = ut_rb_cpu(tfs.area, 1);
	struct tfs_cpu_stats st;
	unsigned int nr;
	int status;
	pid_t child;
	char c;

	tfs_area_set_write_mode(UT_CTL_WRITE_LOCKED);
	tfs_top.nr_kpages[1] = 20;
	assert_int_equal(tfs_ring_reset(&tfs_top, 1), 0);
	for (int i = 0; i < 2000; i++) /* well past slot 3: the slot a shrink would leave */
		assert_int_equal(ut_rb_write_on_cpu(tfs.area, 1, &e.h), 0);
	nr = rc->nr_pages;
	assert_true(rb_wpos_slot(rc->wpos) >= 4);
	assert_int_equal(pipe(stop_pipe), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct ut_ev_func e2 = fev(43);

		alarm(60); /* never outlives a failed test */
		pin_to(1);
		ut_rb_locked_hook = stop_holding_hook;
		_exit(ut_rb_write_locked(tfs.area, NR_CPUS, &e2.h) == 0 ? 0 : 5);
	}
	stopped_child = child;
	assert_int_equal(read(stop_pipe[0], &c, 1), 1);
	assert_int_equal(waitpid(child, &status, WUNTRACED), child);
	assert_true(WIFSTOPPED(status));

	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	tfs_top.nr_kpages[1] = 3; /* as buffer_size_kb does before it resizes */
	assert_int_equal(tfs_ring_resize(&tfs_top, 1, 3), -EBUSY);
	tfs_top.nr_kpages[1] = 20;
	assert_int_equal(tfs_ring_reset(&tfs_top, 1), -EBUSY);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* not two give-up delays: the stopped holder was seen as such (a wide margin) */
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 <
		    UT_RB_LOCK_GIVEUP_MS);
	assert_int_equal(rc->nr_pages, nr);
	assert_int_equal(rc->enabled, 1);

	kill(child, SIGCONT);
	assert_int_equal(waitpid(child, &status, 0), child);
	stopped_child = 0;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* its event went into the ring it read: readable, and counted */
	assert_true(rb_wpos_slot(rc->wpos) < rc->nr_pages);
	assert_int_equal(__atomic_load_n(&rc->lock, __ATOMIC_SEQ_CST), 0);
	assert_int_equal(tfs_rr_stats(&tfs_top, 1, &st), 0);
	assert_int_equal(st.written, 2001);
	assert_int_equal(st.entries + st.overrun, 2001);

	tfs_top.nr_kpages[1] = 3;
	assert_int_equal(tfs_ring_resize(&tfs_top, 1, 3), 0);
	assert_true(rb_wpos_slot(rc->wpos) < rc->nr_pages);
	assert_int_equal(tfs_rr_stats(&tfs_top, 1, &st), 0);
	assert_int_equal(st.written, 2001);
	close(stop_pipe[0]);
	close(stop_pipe[1]);
	tfs_area_set_write_mode(UT_CTL_WRITE_RSEQ);
	tfs_top.nr_kpages[1] = 354;
	assert_int_equal(tfs_ring_reset(&tfs_top, 1), 0);
}

struct barrier_job {
	int reset_err, resize_err;
};

/*
 * A thread that may not run on CPU 1 (as under a cpuset that excludes it: its
 * sched_setaffinity fails) cannot pass CPU 1's barrier.
 */
static void *no_affinity_thread(void *arg)
{
	struct barrier_job *j = arg;

	/* this thread's own: the rest of the test process is not affected */
	if (deny_syscall(__NR_sched_setaffinity, EINVAL))
		return (void *)1;
	j->reset_err = tfs_ring_reset(&tfs_top, 1);
	tfs_top.nr_kpages[1] = 30;
	j->resize_err = tfs_ring_resize(&tfs_top, 1, 30);
	if (j->resize_err)
		tfs_top.nr_kpages[1] = 20;
	return NULL;
}

/*
 * rseq mode: where utracefs cannot move a thread onto a CPU, its writers may be
 * inside a sequence that read the old ring: reset and resize are refused and the
 * ring keeps its events and its size.
 */
static void test_barrier_unavailable(void **state)
{
	struct ut_ev_func e = fev(42);
	struct rb_cpu *rc = ut_rb_cpu(tfs.area, 1);
	struct barrier_job j = {0};
	struct tfs_cpu_stats st;
	pthread_t t;
	void *ret;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		skip();
	tfs_top.nr_kpages[1] = 20;
	assert_int_equal(tfs_ring_reset(&tfs_top, 1), 0);
	for (int i = 0; i < 300; i++)
		assert_int_equal(ut_rb_write_on_cpu(tfs.area, 1, &e.h), 0);
	assert_int_equal(pthread_create(&t, NULL, no_affinity_thread, &j), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_null(ret);
	assert_int_equal(j.reset_err, -EBUSY);
	assert_int_equal(j.resize_err, -EBUSY);
	assert_int_equal(rc->nr_pages, tfs_kpages_to_rb_pages(20));
	assert_int_equal(rc->enabled, 1);
	assert_int_equal(tfs_rr_stats(&tfs_top, 1, &st), 0);
	assert_int_equal(st.entries, 300);
	/* from a thread that may go there, both work */
	assert_int_equal(tfs_ring_reset(&tfs_top, 1), 0);
	assert_int_equal(tfs_rr_stats(&tfs_top, 1, &st), 0);
	assert_int_equal(st.entries, 0);
	tfs_top.nr_kpages[1] = 354;
	assert_int_equal(tfs_ring_reset(&tfs_top, 1), 0);
}

/* A 40-byte event numbered seq whose ip field reads as a forged function event. */
static struct ev40 {
	struct ut_ev_gent g;
	uint64_t seq;
} gev(uint64_t seq)
{
	struct ev40 e = {.g = {.h = {.len = sizeof(e), .type = UT_EV_GRAPH_ENT, .tid = 77,
				     .ts = 5000 + seq},
			       .nextra = 1},
			 .seq = seq};
	struct ut_ev forged = {.len = 32, .type = UT_EV_FUNCTION, .tid = 666};

	memcpy(&e.g.ip, &forged, sizeof(e.g.ip));
	e.g.depth = 0;
	return e;
}

struct taken {
	unsigned int n;
	uint64_t seq[64];
	uint8_t type[64];
};

static int take_fn(struct tfs_iter *it, const struct tfs_event *e, void *arg)
{
	struct taken *t = arg;

	if (t->n < 64) {
		t->type[t->n] = e->ev->type;
		t->seq[t->n] = e->ev->type == UT_EV_GRAPH_ENT ? ((const struct ev40 *)e->ev)->seq
							      : ((const struct ut_ev_func *)e->ev)->ip;
	}
	t->n++;
	return 0;
}

static void consume_cpu1(struct taken *t, long max)
{
	struct tfs_iter it = {.inst = &tfs_top};

	assert_true(tfs_rr_consume(&tfs_top, 1, &it, max, take_fn, t) >= 0);
	tfs_iter_release(&it);
}

/*
 * A reset of the rings (trace_clock, current_tracer do it without telling the
 * reader) and a resize move trace_pipe's consumer with them: after a reset it
 * starts at the first new event, never inside one; after a resize it does not
 * hand out again what it had taken.
 */
static void test_ring_change_moves_consumer(void **state)
{
	struct tfs_cpu_stats st;
	struct taken t = {0};

	tfs_top.nr_kpages[1] = 20;
	assert_int_equal(tfs_ring_reset(&tfs_top, 1), 0);
	tfs_rr_reset(&tfs_top, 1);
	for (uint64_t i = 0; i < 10; i++) {
		struct ut_ev_func e = fev(42);

		e.h.ts = 1000 + i;
		e.ip = 100 + i;
		assert_int_equal(ut_rb_write_on_cpu(tfs.area, 1, &e.h), 0);
	}
	consume_cpu1(&t, 3); /* the consumer is at byte 96 */
	assert_int_equal(t.n, 3);

	/* reset: the new events are 40 bytes long; byte 96 is inside the third */
	assert_int_equal(tfs_ring_reset(&tfs_top, 1), 0);
	for (uint64_t i = 0; i < 12; i++) {
		struct ev40 e = gev(i);

		assert_int_equal(ut_rb_write_on_cpu(tfs.area, 1, &e.g.h), 0);
	}
	assert_int_equal(tfs_rr_stats(&tfs_top, 1, &st), 0);
	assert_int_equal(st.entries, 12);
	t.n = 0;
	consume_cpu1(&t, 100);
	assert_int_equal(t.n, 12);
	for (unsigned int i = 0; i < 12; i++) {
		assert_int_equal(t.type[i], UT_EV_GRAPH_ENT);
		assert_int_equal(t.seq[i], i);
	}

	/* resize: what was taken stays taken */
	assert_int_equal(tfs_ring_reset(&tfs_top, 1), 0);
	for (uint64_t i = 0; i < 10; i++) {
		struct ev40 e = gev(i);

		assert_int_equal(ut_rb_write_on_cpu(tfs.area, 1, &e.g.h), 0);
	}
	t.n = 0;
	consume_cpu1(&t, 4);
	assert_int_equal(t.n, 4);
	tfs_top.nr_kpages[1] = 30;
	assert_int_equal(tfs_ring_resize(&tfs_top, 1, 30), 0);
	assert_int_equal(tfs_rr_stats(&tfs_top, 1, &st), 0);
	assert_int_equal(st.entries, 6);
	assert_int_equal(st.read, 4);
	assert_int_equal(st.written, 10);
	t.n = 0;
	consume_cpu1(&t, 100);
	assert_int_equal(t.n, 6);
	for (unsigned int i = 0; i < 6; i++)
		assert_int_equal(t.seq[i], 4 + i);
	assert_int_equal(tfs_rr_stats(&tfs_top, 1, &st), 0);
	assert_int_equal(st.entries + st.overrun + st.read, st.written);
	tfs_top.nr_kpages[1] = 354;
	assert_int_equal(tfs_ring_reset(&tfs_top, 1), 0);
	tfs_rr_reset(&tfs_top, 1);
}

/* ---- instance.c ---------------------------------------------------------------------- */

/* Events readable in inst, every CPU. */
static uint64_t inst_entries(struct tfs_instance *inst)
{
	uint64_t n = 0;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct tfs_cpu_stats st;

		assert_int_equal(tfs_rr_stats(inst, cpu, &st), 0);
		n += st.entries;
	}
	return n;
}

static blkcnt_t area_blocks(void)
{
	struct stat st;

	assert_int_equal(fstat(tfs.area_fd, &st), 0);
	return st.st_blocks;
}

/*
 * mkdir/rmdir of instances with the kernel's errnos, references from open files,
 * 64 at most, and an instance's span: its own rings, laid out as the top's at
 * slot * span, its control page over its first page, its memory given back.
 */
static void test_instances(void **state)
{
	struct tfs_inst_ref ref, ref2;
	struct tfs_instance *a;
	uint64_t top = inst_entries(&tfs_top);
	blkcnt_t before = area_blocks();
	char name[300];

	assert_int_equal(tfs_inst_lookup("a", 1, &ref), -ENOENT);
	assert_int_equal(tfs_inst_mkdir("a", 1), 0);
	assert_int_equal(tfs_inst_mkdir("a", 1), -EEXIST);
	assert_int_equal(tfs_inst_lookup("a", 1, &ref), 0);
	a = ref.inst;
	assert_true(a != &tfs_top && a->slot > 0 && a->slot < UT_INST_MAX);
	assert_ptr_equal(a->area, (char *)tfs.area + a->slot * ut_inst_span(NR_CPUS));
	assert_ptr_equal(a->ctl, a->area);
	assert_int_equal(a->ctl->magic, UT_CTL_MAGIC);
	assert_int_equal(a->ctl->version, UT_PROTO_VERSION);
	/* a kernel instance: expanded at once, nop, on */
	assert_true(a->buffer_expanded);
	assert_int_equal(a->nr_kpages[0], tfs_kb_to_kpages(TFS_TRACE_BUF_SIZE >> 10));
	assert_int_equal(ut_rb_cpu(a->area, 1)->nr_pages, tfs_kpages_to_rb_pages(a->nr_kpages[1]));
	assert_int_equal(a->ctl->tracing_on, 1);
	assert_false(tfs_opt(a, TFS_OPT_TRACE_PRINTK_DEST));
	assert_true(tfs_opt(&tfs_top, TFS_OPT_TRACE_PRINTK_DEST));

	/* its events are its own */
	assert_int_equal(tfs_write_print(a, 1, 4242, UT_IP_MARKER, "in a", 4, 0), 0);
	assert_int_equal(inst_entries(a), 1);
	assert_int_equal(inst_entries(&tfs_top), top);
	assert_true(area_blocks() > before);
	/* function and function_graph are routed there (sel.c) */
	assert_int_equal(tfs_set_tracer(a, tfs_tracer_find("function_graph")), 0);
	assert_ptr_equal(a->tracer, tfs_tracer_find("function_graph"));
	assert_int_equal(a->ctl->tracer, UT_TRACER_FUNCTION_GRAPH);
	assert_int_equal(tfs_set_tracer(a, tfs_tracer_find("function")), 0);
	assert_ptr_equal(a->tracer, tfs_tracer_find("function"));
	assert_ptr_equal(tfs_top.tracer, tfs_tracer_find("nop"));
	assert_int_equal(tfs_set_tracer(a, tfs_tracer_find("nop")), 0);

	/* a reference (an open file) keeps it: EBUSY */
	assert_int_equal(tfs_inst_get(&ref), 0);
	assert_int_equal(tfs_inst_rmdir("a", 1), -EBUSY);
	tfs_inst_put(a);
	assert_int_equal(tfs_inst_rmdir("a", 1), 0);
	assert_int_equal(tfs_inst_rmdir("a", 1), -ENOENT);
	assert_int_equal(tfs_inst_get(&ref), -ENOENT); /* found before, gone since */
	assert_int_equal(area_blocks(), before);	 /* its pages were punched out */

	/* names: up to 255 bytes */
	memset(name, 'n', sizeof(name));
	assert_int_equal(tfs_inst_mkdir(name, 256), -ENAMETOOLONG);
	assert_int_equal(tfs_inst_mkdir(name, 255), 0);
	assert_int_equal(tfs_inst_rmdir(name, 255), 0);

	/* 64 instances, the 65th: ENOMEM; the same name again reuses a slot afresh */
	for (unsigned int i = 0; i < UT_INST_MAX - 1; i++) {
		snprintf(name, sizeof(name), "i%u", i);
		assert_int_equal(tfs_inst_mkdir(name, strlen(name)), 0);
	}
	assert_string_equal(tfs_inst_dir_name(UT_INST_MAX - 2), "i63");
	assert_null(tfs_inst_dir_name(UT_INST_MAX - 1));
	assert_int_equal(tfs_inst_mkdir("more", 4), -ENOMEM);
	assert_int_equal(tfs_inst_lookup("i7", 2, &ref2), 0);
	assert_int_equal(tfs_write_print(ref2.inst, 0, 1, UT_IP_MARKER, "x", 1, 0), 0);
	assert_int_equal(tfs_inst_rmdir("i7", 2), 0);
	assert_int_equal(tfs_inst_mkdir("i7", 2), 0);
	assert_int_equal(tfs_inst_lookup("i7", 2, &ref), 0);
	assert_int_equal(inst_entries(ref.inst), 0);
	for (unsigned int i = 0; i < UT_INST_MAX - 1; i++) {
		snprintf(name, sizeof(name), "i%u", i);
		assert_int_equal(tfs_inst_rmdir(name, strlen(name)), 0);
	}
	assert_null(tfs_inst_dir_name(0));
	assert_int_equal(inst_entries(&tfs_top), top);
}

static int group_setup(void **state)
{
	int err;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_core.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(sockpath, sizeof(sockpath), "%s/tracing.sock", tmpdir);
	tfs_clock_init();
	tfs_state_defaults(NR_CPUS);
	err = tfs_area_init(NR_CPUS);
	if (err)
		return err;
	return tfs_registry_start(sockpath);
}

static int group_teardown(void **state)
{
	struct stat st;

	tfs_registry_stop();
	/* the socket is gone with the registry */
	if (stat(sockpath, &st) == 0)
		return -1;
	tfs_area_fini();
	rmdir(tmpdir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_ulong),
	    cmocka_unit_test(test_strip),
	    cmocka_unit_test(test_kpages),
	    cmocka_unit_test(test_area_hostile),
	    cmocka_unit_test(test_shared_sealed),
	    cmocka_unit_test(test_area_layout),
	    cmocka_unit_test(test_ring_reset_resize),
	    cmocka_unit_test(test_ring_resize_keeps),
	    cmocka_unit_test(test_ring_resize_reader_page),
	    cmocka_unit_test(test_overwrite_switch),
	    cmocka_unit_test_teardown(test_locked_stopped_holder, stopped_child_teardown),
	    cmocka_unit_test(test_barrier_unavailable),
	    cmocka_unit_test(test_ring_change_moves_consumer),
	    cmocka_unit_test(test_write_print),
	    cmocka_unit_test(test_hello_welcome),
	    cmocka_unit_test(test_bad_packets),
	    cmocka_unit_test(test_note),
	    cmocka_unit_test(test_other_uid_refused),
	    cmocka_unit_test(test_apply_waits_for_acks),
	    cmocka_unit_test(test_apply_hung_process),
	    cmocka_unit_test(test_set_tracer),
	    cmocka_unit_test(test_task_table),
	    cmocka_unit_test(test_instances),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

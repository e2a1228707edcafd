// SPDX-License-Identifier: MIT
/*
 * test_reader.c - the ring reader (fs/ring_read.c) against rings built in memory
 * with the reference writer ut_rb_write_on_cpu(): exact counters in overwrite and
 * no-overwrite mode, wrap-around, the consuming reader with losses, merge order
 * across CPUs, resets, a concurrent writer, and garbage that must never crash it.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "core.h"
#include "output/output.h"
#include "ring_read.h"
#include "ut_ring_write.h"

#include "ring_fixture.h"

#define PER_PAGE (UT_RB_PAGE_DATA / sizeof(struct ut_ev_func)) /* 127 */

static void *area;
static size_t area_size;


static void ring_setup(unsigned int nr_cpus, unsigned int nr_pages, unsigned int flags)
{
	if (area)
		munmap(area, area_size);
	area_size = ut_rb_area_size(nr_cpus);
	area = mmap(NULL, area_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(area != MAP_FAILED);
	tfs.area = area;
	tfs_top.area = area; /* the top level's span is the area's start */
	tfs.nr_cpus = nr_cpus;
	tfs_top.clock = TFS_CLOCK_X86_TSC; /* identity: ts printed as written */
	for (unsigned int c = 0; c < nr_cpus; c++) {
		/* the reader trusts only the page count utracefs configured */
		tfs_top.nr_kpages[c] = kpages_for(nr_pages);
		ut_rb_reset_cpu(area, c, nr_pages, flags);
		ut_rb_cpu(area, c)->enabled = 1;
	}
	tfs_rr_reset(&tfs_top, -1);
}

/* A function event whose site address is seq (ip - 5) and time stamp ts. */
static int write_func(unsigned int cpu, uint64_t seq, uint64_t ts)
{
	struct ut_ev_func f = {
		.h = {.len = sizeof(f), .type = UT_EV_FUNCTION, .tid = 42, .ts = ts},
		.ip = seq + UT_SITE_CALL_LEN,
		.parent_ip = 7,
	};

	return ut_rb_write_on_cpu(area, cpu, &f.h);
}

static uint64_t seq_of(const struct tfs_event *e)
{
	return ((const struct ut_ev_func *)e->ev)->ip - UT_SITE_CALL_LEN;
}

static struct tfs_cpu_stats stats(unsigned int cpu)
{
	struct tfs_cpu_stats st;

	assert_int_equal(tfs_rr_stats(&tfs_top, cpu, &st), 0);
	return st;
}

/* Walk a snapshot; returns the number of events and checks their sequence. */
static unsigned long walk(int cpu, uint64_t first_seq, bool check_seq)
{
	struct tfs_iter it = {.inst = &tfs_top};
	struct tfs_snap *s = tfs_snap_take(&tfs_top, cpu, &it);
	struct tfs_event e;
	unsigned long n = 0;

	assert_non_null(s);
	while (tfs_snap_next(s, &it, &e)) {
		if (check_seq)
			assert_int_equal(seq_of(&e), first_seq + n);
		n++;
		assert_int_equal(it.idx, n);
	}
	tfs_snap_free(s);
	return n;
}

static void test_empty(void **state)
{
	ring_setup(2, 8, RB_F_OVERWRITE);
	struct tfs_cpu_stats st = stats(0);

	assert_int_equal(st.entries, 0);
	assert_int_equal(st.overrun, 0);
	assert_int_equal(st.bytes, 0);
	assert_int_equal(st.written, 0);
	assert_int_equal(st.oldest_tsc, 0);
	assert_int_equal(walk(-1, 0, true), 0);
	assert_false(tfs_rr_ready(&tfs_top, -1));
}

static void test_no_wrap(void **state)
{
	ring_setup(1, 8, RB_F_OVERWRITE);
	for (uint64_t i = 0; i < 300; i++)
		assert_int_equal(write_func(0, i, 1000 + i), 0);
	struct tfs_cpu_stats st = stats(0);

	assert_int_equal(st.entries, 300);
	assert_int_equal(st.overrun, 0);
	assert_int_equal(st.written, 300);
	assert_int_equal(st.bytes, 300 * 28); /* 4-byte header + 24 bytes of entry */
	assert_int_equal(st.oldest_tsc, 1000);
	assert_int_equal(walk(0, 0, true), 300);
	/* emptied: the kernel goes on showing the old page's time */
	ut_rb_reset_cpu(area, 0, 8, RB_F_OVERWRITE);
	tfs_rr_reset(&tfs_top, 0);
	st = stats(0);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.oldest_tsc, 1000);
}

static void test_overwrite_wrap(void **state)
{
	const unsigned int nr = 4;

	ring_setup(1, nr, RB_F_OVERWRITE);
	for (uint64_t i = 0; i < 1000; i++)
		assert_int_equal(write_func(0, i, 1000 + i), 0);
	/* the last page is 999 / 127 = 7; pages 5..7 (nr - 1) are readable */
	uint64_t first = (999 / PER_PAGE - (nr - 2)) * PER_PAGE;
	struct tfs_cpu_stats st = stats(0);

	assert_int_equal(st.written, 1000);
	assert_int_equal(st.entries, 1000 - first);
	assert_int_equal(st.overrun, first);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.oldest_tsc, 1000 + first);
	assert_int_equal(walk(0, first, true), 1000 - first);
}

static void test_no_overwrite_drops(void **state)
{
	const unsigned int nr = 4;
	unsigned int dropped = 0;

	ring_setup(1, nr, 0);
	for (uint64_t i = 0; i < 1000; i++)
		if (write_func(0, i, 1000 + i) == -ENOSPC)
			dropped++;
	struct tfs_cpu_stats st = stats(0);

	/*
	 * Never read: nr - 1 pages can be filled before the writer meets the reader,
	 * the last one is the reader page (the kernel: K pages of the K + 1).
	 */
	assert_int_equal(st.entries, (nr - 1) * PER_PAGE);
	assert_int_equal(st.dropped, 1000 - (nr - 1) * PER_PAGE);
	assert_int_equal(dropped, st.dropped);
	assert_int_equal(st.overrun, 0);
	assert_int_equal(walk(0, 0, true), (nr - 1) * PER_PAGE);
}

struct collect {
	uint64_t seq[4096];
	unsigned long lost[4096];
	unsigned int cpu[4096];
	unsigned int n, stop_after;
};

static int collect_fn(struct tfs_iter *it, const struct tfs_event *e, void *arg)
{
	struct collect *c = arg;

	if (c->n >= c->stop_after)
		return 1;
	c->seq[c->n] = seq_of(e);
	c->lost[c->n] = it->lost;
	c->cpu[c->n] = e->cpu;
	c->n++;
	return 0;
}

static long consume(int cpu, struct collect *c, unsigned int max)
{
	struct tfs_iter it = {.inst = &tfs_top, .pipe = true};

	c->n = 0;
	c->stop_after = max;
	return tfs_rr_consume(&tfs_top, cpu, &it, 100000, collect_fn, c);
}

/* The first consuming read puts the reader page in use; a reset takes it back. */
static void test_no_overwrite_reader_page(void **state)
{
	static struct collect c;
	const unsigned int nr = 4;
	unsigned int ok = 0;

	ring_setup(1, nr, 0);
	assert_int_equal(ut_rb_cpu(area, 0)->held, 1);
	assert_int_equal(write_func(0, 0, 1000), 0);
	assert_int_equal(consume(0, &c, 1), 1); /* one event read: page 0 not released */
	assert_int_equal(ut_rb_cpu(area, 0)->held, 0);
	assert_int_equal(ut_rb_cpu(area, 0)->read_vpage, 0);
	while (write_func(0, 1 + ok, 1001 + ok) == 0 && ok < 100000)
		ok++;
	/* all nr pages, less the event read */
	assert_int_equal(ok, nr * PER_PAGE - 1);
	assert_int_equal(stats(0).entries, nr * PER_PAGE - 1);

	/* a reset holds the reader page back again */
	ut_rb_reset_cpu(area, 0, nr, 0);
	ut_rb_cpu(area, 0)->enabled = 1;
	tfs_rr_reset(&tfs_top, 0);
	assert_int_equal(ut_rb_cpu(area, 0)->held, 1);
	ok = 0;
	while (write_func(0, ok, 1000 + ok) == 0 && ok < 100000)
		ok++;
	assert_int_equal(ok, (nr - 1) * PER_PAGE);
}

/*
 * Write events seq from..to-1; with kick, as utracefs does after its own writes,
 * let the reader take out the page a read waits on (tfs_rr_settle).
 */
static void write_range(uint64_t from, uint64_t to, bool kick, unsigned int *dropped)
{
	for (uint64_t i = from; i < to; i++) {
		if (write_func(0, i, 1000 + i) == -ENOSPC && dropped)
			(*dropped)++;
		if (kick)
			tfs_rr_settle();
	}
}

/*
 * Overwrite mode: the page a consuming read takes from leaves the ring, as the
 * kernel's head page goes into its reader page, so that after a read the ring
 * holds one page more: the unread rest of that page, then nr - 1 pages.
 */
static void test_overwrite_reader_page(void **state)
{
	static struct collect c;
	const unsigned int nr = 3; /* buffer_size_kb 4: two kernel pages */
	uint64_t ring = PER_PAGE + (1129 % PER_PAGE + 1); /* pages 7 and 8 of 0..1129 */
	struct tfs_cpu_stats st;

	/* a finished page: taken out at once */
	ring_setup(1, nr, RB_F_OVERWRITE);
	write_range(0, PER_PAGE + 3, false, NULL);
	assert_int_equal(consume(0, &c, 3), 3);
	write_range(PER_PAGE + 3, 1130, false, NULL);
	st = stats(0);
	assert_int_equal(st.entries, PER_PAGE - 3 + ring);
	assert_int_equal(st.read, 3);
	assert_int_equal(st.overrun, 1130 - 3 - st.entries);
	assert_int_equal(walk(0, 0, false), st.entries);
	assert_int_equal(consume(0, &c, 4096), st.entries);
	assert_int_equal(c.seq[0], 3);
	assert_int_equal(c.lost[PER_PAGE - 3], 1130 - ring - PER_PAGE);
	assert_int_equal(c.seq[PER_PAGE - 3], 1130 - ring);

	/* the page being written: taken out when the writer leaves it (kicked) */
	ring_setup(1, nr, RB_F_OVERWRITE);
	write_range(0, 10, false, NULL);
	assert_int_equal(consume(0, &c, 3), 3);
	write_range(10, 1130, true, NULL);
	st = stats(0);
	assert_int_equal(st.entries, PER_PAGE - 3 + ring);
	assert_int_equal(st.overrun, 1130 - 3 - st.entries);
	/* not kicked (a traced process's writes, nobody looking): overwritten */
	ring_setup(1, nr, RB_F_OVERWRITE);
	write_range(0, 10, false, NULL);
	assert_int_equal(consume(0, &c, 3), 3);
	write_range(10, 1130, false, NULL);
	assert_int_equal(stats(0).entries, ring);

	/* a page read to its end holds nothing: nr - 1 pages, as before the read */
	ring_setup(1, nr, RB_F_OVERWRITE);
	write_range(0, PER_PAGE + 3, false, NULL);
	assert_int_equal(consume(0, &c, PER_PAGE), PER_PAGE);
	write_range(PER_PAGE + 3, 1130, true, NULL);
	st = stats(0);
	assert_int_equal(st.entries, ring);
	assert_int_equal(st.entries + st.overrun + st.read, 1130);

	/*
	 * Without overwrite a page read to its end stays out of the writers' way
	 * until a read takes from the next one: nr - 1 pages after it.
	 */
	unsigned int dropped = 0;

	ring_setup(1, nr, 0);
	write_range(0, PER_PAGE + 3, false, NULL);
	assert_int_equal(consume(0, &c, PER_PAGE), PER_PAGE);
	write_range(PER_PAGE + 3, 1130, true, &dropped);
	st = stats(0);
	assert_int_equal(st.entries, (nr - 1) * PER_PAGE);
	assert_int_equal(st.dropped, dropped);
	assert_int_equal(st.entries + st.dropped + st.read, 1130);
}

static void test_consume_releases_pages(void **state)
{
	static struct collect c;
	const unsigned int nr = 4;

	ring_setup(1, nr, 0);
	for (uint64_t i = 0; i < (nr - 1) * PER_PAGE; i++)
		assert_int_equal(write_func(0, i, 1000 + i), 0);
	assert_int_equal(write_func(0, 9999, 9999), -ENOSPC); /* the reader page is held back */

	assert_int_equal(consume(0, &c, 100), 100);
	/* the read put the reader page in use: one page more */
	for (uint64_t i = (nr - 1) * PER_PAGE; i < nr * PER_PAGE; i++)
		assert_int_equal(write_func(0, i, 1000 + i), 0);
	for (unsigned int i = 0; i < 100; i++)
		assert_int_equal(c.seq[i], i);
	struct tfs_cpu_stats st = stats(0);
	assert_int_equal(st.read, 100);
	assert_int_equal(st.entries, nr * PER_PAGE - 100);
	assert_int_equal(st.overrun, 0);
	/* page 0 is not finished yet: still full */
	assert_int_equal(write_func(0, 9999, 9999), -ENOSPC);

	assert_int_equal(consume(0, &c, 2 * PER_PAGE), 2 * PER_PAGE);
	assert_int_equal(c.seq[0], 100);
	assert_int_equal(ut_rb_cpu(area, 0)->read_vpage, 2);
	/* two pages free again */
	for (uint64_t i = 0; i < 2 * PER_PAGE; i++)
		assert_int_equal(write_func(0, nr * PER_PAGE + i, 5000 + i), 0);
	st = stats(0);
	assert_int_equal(st.read, 100 + 2 * PER_PAGE);
	assert_int_equal(st.dropped, 2);
	assert_int_equal(st.entries + st.read + st.overrun, st.written);
	/* the rest comes out in order, nothing lost */
	assert_int_equal(consume(0, &c, 4096), st.entries);
	for (unsigned int i = 0; i < c.n; i++) {
		assert_int_equal(c.seq[i], 100 + 2 * PER_PAGE + i);
		assert_int_equal(c.lost[i], 0);
	}
}

static void test_consume_lost(void **state)
{
	static struct collect c;
	const unsigned int nr = 4;

	ring_setup(1, nr, RB_F_OVERWRITE);
	for (uint64_t i = 0; i < 1000; i++)
		write_func(0, i, 1000 + i);
	uint64_t first = (999 / PER_PAGE - (nr - 2)) * PER_PAGE;

	assert_int_equal(consume(0, &c, 10), 10);
	assert_int_equal(c.seq[0], first);
	assert_int_equal(c.lost[0], first);
	assert_int_equal(c.lost[1], 0);
	/*
	 * The reader falls behind again.  The page it was reading left the ring at
	 * its first read (the kernel's reader page): the rest of it is kept, the
	 * losses are between it and the oldest page of the ring.
	 */
	for (uint64_t i = 1000; i < 2000; i++)
		write_func(0, i, 1000 + i);
	uint64_t first2 = (1999 / PER_PAGE - (nr - 2)) * PER_PAGE;
	struct tfs_cpu_stats st = stats(0);
	assert_int_equal(st.entries, PER_PAGE - 10 + 2000 - first2);
	assert_int_equal(st.overrun, first2 - (first + PER_PAGE) + first);
	assert_int_equal(consume(0, &c, 4096), PER_PAGE - 10 + 2000 - first2);
	assert_int_equal(c.seq[0], first + 10);
	assert_int_equal(c.lost[0], 0);
	assert_int_equal(c.seq[PER_PAGE - 10], first2);
	assert_int_equal(c.lost[PER_PAGE - 10], first2 - (first + PER_PAGE));
	st = stats(0);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.read, PER_PAGE + 2000 - first2);
	assert_int_equal(st.overrun, 2000 - st.read);
	/* a snapshot now shows nothing: everything readable was consumed */
	assert_int_equal(walk(0, 0, false), 0);
}

static void test_stop_keeps_event(void **state)
{
	static struct collect c;

	ring_setup(1, 8, RB_F_OVERWRITE);
	for (uint64_t i = 0; i < 5; i++)
		write_func(0, i, 1000 + i);
	assert_int_equal(consume(0, &c, 2), 2);
	assert_int_equal(consume(0, &c, 1), 1);
	assert_int_equal(c.seq[0], 2);
	assert_int_equal(walk(0, 3, true), 2);
	assert_true(tfs_rr_ready(&tfs_top, 0));
}

static void test_merge_order(void **state)
{
	ring_setup(3, 8, RB_F_OVERWRITE);
	/* cpu c gets time stamps 3k + c, and ties at 100000 on every CPU */
	for (uint64_t k = 0; k < 200; k++)
		for (unsigned int c = 0; c < 3; c++)
			write_func(c, k * 3 + c, k * 3 + c);
	for (unsigned int c = 0; c < 3; c++)
		write_func(c, 1000 + c, 100000);

	struct tfs_iter it = {.inst = &tfs_top};
	struct tfs_snap *s = tfs_snap_take(&tfs_top, -1, &it);
	struct tfs_event e;
	uint64_t n = 0;

	assert_int_equal(it.entries, 603);
	assert_int_equal(it.total, 603);
	while (tfs_snap_next(s, &it, &e)) {
		if (n < 600) {
			assert_int_equal(seq_of(&e), n);
			assert_int_equal(e.cpu, n % 3);
			/* next_ts is the time stamp of the event that follows */
			assert_int_equal(it.next_ts, n + 1 < 600 ? n + 1 : 100000);
		} else {
			assert_int_equal(e.cpu, n - 600); /* ties: lowest CPU first */
		}
		n++;
	}
	assert_int_equal(n, 603);
	tfs_snap_free(s);

	/* one CPU only, but the header counts all of them */
	struct tfs_iter it1 = {.inst = &tfs_top};
	s = tfs_snap_take(&tfs_top, 1, &it1);
	assert_int_equal(it1.entries, 603);
	n = 0;
	while (tfs_snap_next(s, &it1, &e)) {
		assert_int_equal(e.cpu, 1);
		n++;
	}
	assert_int_equal(n, 201);
	tfs_snap_free(s);

	/* the consumer merges the same way */
	static struct collect c;
	assert_int_equal(consume(-1, &c, 4096), 603);
	for (unsigned int i = 0; i < 600; i++)
		assert_int_equal(c.seq[i], i);
}

static void test_bad_event_ends_page(void **state)
{
	ring_setup(1, 8, RB_F_OVERWRITE);
	for (uint64_t i = 0; i < 300; i++)
		write_func(0, i, 1000 + i);
	/* break the 10th event of page 0 */
	struct ut_ev *ev = (struct ut_ev *)((char *)(ut_rb_page(area, 0, 0) + 1) + 9 * 32);
	ev->len = 12;
	struct tfs_cpu_stats st = stats(0);

	assert_int_equal(st.entries, 300); /* the counts come from the headers */
	assert_int_equal(st.bad, PER_PAGE - 9);
	assert_int_equal(st.bytes, (300 - (PER_PAGE - 9)) * 28);
	/* the walk skips the rest of page 0 and goes on with page 1 */
	struct tfs_iter it = {.inst = &tfs_top};
	struct tfs_snap *s = tfs_snap_take(&tfs_top, 0, &it);
	struct tfs_event e;
	unsigned int n = 0;

	while (tfs_snap_next(s, &it, &e)) {
		assert_int_equal(seq_of(&e), n < 9 ? n : n - 9 + PER_PAGE);
		n++;
	}
	assert_int_equal(n, 300 - (PER_PAGE - 9));
	tfs_snap_free(s);

	static struct collect c;
	assert_int_equal(consume(0, &c, 4096), 300 - (PER_PAGE - 9));
	st = stats(0);
	assert_int_equal(st.entries + st.read + st.overrun, st.written);
}

static void test_bad_types_and_payloads(void **state)
{
	union {
		struct ut_ev_print p;
		struct ut_ev_stack s;
		struct ut_ev_raw r;
		unsigned char b[256];
	} u;

	memset(&u, 0, sizeof(u));
	u.p.h = (struct ut_ev){.len = 32, .type = UT_EV_PRINT, .tid = 1};
	memcpy(u.p.buf, "hi\n", 4);
	assert_int_equal(tfs_rr_check_event(&u, 32), 32);
	assert_int_equal(tfs_rr_check_event(&u, 24), -1); /* longer than the room */
	memset(u.p.buf, 'x', 8);			   /* no NUL */
	assert_int_equal(tfs_rr_check_event(&u, 32), -1);
	/* the marker form: the text at once, padded; never without room or a NUL */
	memset(&u, 0, sizeof(u));
	u.p.h = (struct ut_ev){.len = 40, .type = UT_EV_PRINT, .flags = UT_EVF_MARKER, .tid = 1};
	memcpy(u.b + sizeof(struct ut_ev_marker), "hi\n", 4);
	assert_int_equal(tfs_rr_check_event(&u, 64), 40);
	memset(u.b + sizeof(struct ut_ev_marker), 'x', 24);
	assert_int_equal(tfs_rr_check_event(&u, 64), -1);
	u.p.h.len = 16;
	assert_int_equal(tfs_rr_check_event(&u, 64), -1);
	u.s.h = (struct ut_ev){.len = 40, .type = UT_EV_KERNEL_STACK, .tid = 1};
	u.s.nr = 2;
	assert_int_equal(tfs_rr_check_event(&u, 64), 40);
	u.s.nr = 3;
	assert_int_equal(tfs_rr_check_event(&u, 64), -1);
	u.r.h = (struct ut_ev){.len = 32, .type = UT_EV_RAW_DATA, .tid = 1};
	u.r.size = 8;
	assert_int_equal(tfs_rr_check_event(&u, 64), 32);
	u.r.size = 9;
	assert_int_equal(tfs_rr_check_event(&u, 64), -1);
	u.r.size = 0; /* padded as the kernel's page count asks */
	assert_int_equal(tfs_rr_check_event(&u, 64), 32);
	u.r.size = 8;
	u.r.h.type = 77;
	assert_int_equal(tfs_rr_check_event(&u, 64), -1);
	u.r.h.type = UT_EV_FUNCTION;
	assert_int_equal(tfs_rr_check_event(&u, 64), 32);
	u.r.h.len = 40;
	assert_int_equal(tfs_rr_check_event(&u, 64), -1);
}

/* A writer killed mid-event: bytes past the committed offset and a half-made next page. */
static void test_torn_write(void **state)
{
	const unsigned int nr = 4;

	ring_setup(1, nr, RB_F_OVERWRITE);
	for (uint64_t i = 0; i < PER_PAGE; i++)
		write_func(0, i, 1000 + i); /* page 0 exactly full */
	struct rb_cpu *rc = ut_rb_cpu(area, 0);
	struct rb_page *op = ut_rb_page(area, 0, 0), *np = ut_rb_page(area, 0, 1);
	/* the killed writer had stored op->commit and part of the new page header */
	op->commit = rc->wpos;
	np->vpage = 1;
	np->magic = UT_RB_PAGE_MAGIC;
	np->base_entries = 0xdead;
	memset(np + 1, 0xff, 64);
	assert_int_equal(stats(0).entries, PER_PAGE);
	assert_int_equal(walk(0, 0, true), PER_PAGE);
	/* the next writer restarts the sequence and all is well */
	write_func(0, PER_PAGE, 5000);
	struct tfs_cpu_stats st = stats(0);
	assert_int_equal(st.entries, PER_PAGE + 1);
	assert_int_equal(st.written, PER_PAGE + 1);
	assert_int_equal(walk(0, 0, true), PER_PAGE + 1);
}

static void test_reset_detected(void **state)
{
	static struct collect c;

	ring_setup(1, 8, RB_F_OVERWRITE);
	for (uint64_t i = 0; i < 300; i++)
		write_func(0, i, 1000 + i);
	assert_int_equal(consume(0, &c, 200), 200);
	/* emptied behind the reader's back (no tfs_rr_reset) */
	ut_rb_reset_cpu(area, 0, 8, RB_F_OVERWRITE);
	ut_rb_cpu(area, 0)->enabled = 1;
	for (uint64_t i = 0; i < 50; i++)
		write_func(0, 1000 + i, 9000 + i);
	assert_int_equal(consume(0, &c, 4096), 50);
	assert_int_equal(c.seq[0], 1000);
	struct tfs_cpu_stats st = stats(0);
	assert_int_equal(st.read, 50);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.overrun, 0);
}

/* Random bytes everywhere: the reader may find nothing, but must not crash or loop. */
static void test_garbage(void **state)
{
	static struct collect c;
	unsigned int seed = 12345;

	for (int round = 0; round < 200; round++) {
		const unsigned int nr = 3 + round % 5;

		ring_setup(2, nr, round & 1 ? RB_F_OVERWRITE : 0);
		for (unsigned int cpu = 0; cpu < 2; cpu++) {
			for (unsigned int p = 0; p < nr; p++) {
				struct rb_page *pg = ut_rb_page(area, cpu, p);
				uint32_t *w = (uint32_t *)pg;

				for (unsigned int i = 0; i < UT_RB_PAGE_SIZE / 4; i++)
					w[i] = (uint32_t)rand_r(&seed);
				if (rand_r(&seed) & 1) {
					pg->magic = UT_RB_PAGE_MAGIC;
					pg->vpage = (uint32_t)rand_r(&seed) % 8;
				}
				if (rand_r(&seed) % 3 == 0) {
					/* plausible events with random lengths */
					struct ut_ev *ev = (struct ut_ev *)(pg + 1);
					ev->len = (uint16_t)((rand_r(&seed) % 64) * 8);
					ev->type = (uint8_t)(rand_r(&seed) % 24);
				}
			}
			struct rb_cpu *rc = ut_rb_cpu(area, cpu);
			rc->wpos = rb_wpos_make((unsigned int)rand_r(&seed) % 8,
						(unsigned int)rand_r(&seed) % (nr + 1),
						(unsigned int)rand_r(&seed) % 1024,
						(unsigned int)rand_r(&seed) % 4096);
			if (round % 7 == 0)
				rc->nr_pages = (uint32_t)rand_r(&seed);
			rc->read_vpage = (uint64_t)rand_r(&seed) % 16;
		}
		for (unsigned int cpu = 0; cpu < 2; cpu++) {
			struct tfs_cpu_stats st;
			tfs_rr_stats(&tfs_top, cpu, &st);
		}
		walk(-1, 0, false);
		consume(-1, &c, 4096);
		tfs_rr_ready(&tfs_top, -1);
	}
}

/* One writer thread on cpu 0 while the reader consumes: order and counts hold. */
#define WRITER_EVENTS 3000000
static volatile int writer_done;

static void *writer_main(void *arg)
{
	for (uint64_t i = 0; i < WRITER_EVENTS; i++)
		write_func(0, i, 1000 + i);
	__atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static uint64_t last_seq;
static unsigned long total_read, total_lost;

static int check_fn(struct tfs_iter *it, const struct tfs_event *e, void *arg)
{
	uint64_t s = seq_of(e);

	if (total_read)
		assert_true(s > last_seq);
	assert_int_equal(s, total_read + total_lost + it->lost);
	total_lost += it->lost;
	last_seq = s;
	total_read++;
	return 0;
}

static void test_concurrent_writer(void **state)
{
	pthread_t t;

	ring_setup(1, 6, RB_F_OVERWRITE);
	writer_done = 0;
	total_read = total_lost = 0;
	assert_int_equal(pthread_create(&t, NULL, writer_main, NULL), 0);
	for (;;) {
		struct tfs_iter it = {.inst = &tfs_top, .pipe = true};
		int done = __atomic_load_n(&writer_done, __ATOMIC_ACQUIRE);

		tfs_rr_consume(&tfs_top, 0, &it, 1000, check_fn, NULL);
		if (done && !tfs_rr_ready(&tfs_top, 0))
			break;
		/*
		 * A snapshot taken while the writer runs holds consecutive events,
		 * with one gap at most: between the reader page and the ring.
		 */
		struct tfs_iter si = {.inst = &tfs_top};
		struct tfs_snap *s = tfs_snap_take(&tfs_top, 0, &si);
		struct tfs_event e;
		uint64_t prev = 0;
		bool first = true;
		int gaps = 0;

		assert_non_null(s);
		while (tfs_snap_next(s, &si, &e)) {
			if (!first) {
				assert_true(seq_of(&e) > prev);
				gaps += seq_of(&e) != prev + 1;
			}
			prev = seq_of(&e);
			first = false;
		}
		assert_true(gaps <= 1);
		tfs_snap_free(s);
	}
	pthread_join(t, NULL);
	struct tfs_cpu_stats st = stats(0);
	assert_int_equal(st.written, WRITER_EVENTS);
	assert_int_equal(st.read, total_read);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.overrun, total_lost);
	assert_int_equal(total_read + total_lost, WRITER_EVENTS);
}

static void test_kernel_sizes(void **state)
{
	union {
		struct ut_ev_print p;
		struct ut_ev_raw r;
		unsigned char b[512];
	} u;

	memset(&u, 0, sizeof(u));
	u.p.h = (struct ut_ev){.len = 32, .type = UT_EV_PRINT};
	u.p.ip = UT_IP_MARKER;
	strcpy(u.p.buf, "hi\n");
	assert_int_equal(tfs_kfmt_size(&u.p.h), 28); /* as the kernel counts it */
	strcpy(u.p.buf, "x");
	assert_int_equal(tfs_kfmt_size(&u.p.h), 24);
	/* "ab" written without a newline: 16 + 2 + 2 -> 24, not 16 + 3 + 2 -> 28 */
	strcpy(u.p.buf, "ab\n");
	u.p.h.flags = UT_EVF_NL_ADDED;
	assert_int_equal(tfs_kfmt_size(&u.p.h), 24);
	u.p.h.flags = 0;
	assert_int_equal(tfs_kfmt_size(&u.p.h), 28);
	memset(u.p.buf, 'a', 200);
	u.p.buf[200] = 0;
	u.p.h.len = sizeof(u.p) + 208;
	/* long entries carry their length in an extra word */
	assert_int_equal(tfs_kfmt_size(&u.p.h), (16 + 200 + 2 + 4 + 4 + 3) & ~3u);
	/* raw_data: id + payload, as measured on the kernel: 20, 24, 16 bytes */
	u.r.h = (struct ut_ev){.len = 32, .type = UT_EV_RAW_DATA};
	u.r.size = 2;
	assert_int_equal(tfs_kfmt_size(&u.r.h), 20);
	u.r.size = 8;
	assert_int_equal(tfs_kfmt_size(&u.r.h), 24);
	u.r.size = 0;
	assert_int_equal(tfs_kfmt_size(&u.r.h), 16);
}

/* ---- tracing_thresh's rewind under a page copy -------------------------------------- */

static int rewound; /* the hook rewinds once */

/*
 * Half of the page copied: the writer of the tail event takes it back (the
 * runtime's rewind: gen + 1, then wpos back) and another event is written at the
 * same place, so wpos is back at the value the reader saw.
 */
static void rewind_hook(unsigned int cpu, unsigned int vp)
{
	struct rb_cpu *rc = ut_rb_cpu(area, cpu);
	uint64_t w = rc->wpos;

	if (rewound++)
		return;
	__atomic_store_n(&rc->gen, rc->gen + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&rc->wpos, w - 32 - (1ull << RB_WPOS_ENT_SHIFT), __ATOMIC_RELEASE);
	assert_int_equal(write_func(cpu, 999, 5000), 0);
	assert_int_equal(rc->wpos, w);
}

struct ts_check {
	unsigned int n, torn;
	uint64_t last;
};

static int ts_fn(struct tfs_iter *it, const struct tfs_event *e, void *arg)
{
	struct ts_check *t = arg;

	if (e->ev->type == UT_EV_FUNCTION) {
		uint64_t seq = seq_of(e);

		t->torn += e->ev->ts != (seq == 999 ? 5000 : 1000 + seq);
		t->last = seq;
	}
	t->n++;
	return 0;
}

/* A ring whose tail event (seq 61) straddles the middle of page 0. */
static void straddle_setup(void)
{
	struct ut_ev_gret g = {.h = {.len = sizeof(g), .type = UT_EV_GRAPH_RET, .tid = 42, .ts = 999}};

	ring_setup(1, 8, RB_F_OVERWRITE);
	assert_int_equal(ut_rb_write_on_cpu(area, 0, &g.h), 0); /* 48 bytes: the rest is off by 16 */
	for (uint64_t i = 0; i < 62; i++)
		assert_int_equal(write_func(0, i, 1000 + i), 0);
	/* its header ends at byte 2048 of the page, its ip begins there */
	assert_int_equal(UT_RB_PAGE_HDR + rb_wpos_off(ut_rb_cpu(area, 0)->wpos) - 32 + 16,
			 UT_RB_PAGE_SIZE / 2);
	rewound = 0;
}

/*
 * A rewind and a new event at the same place while the reader copies the page:
 * wpos reads the same before and after the copy, which holds the old event's
 * header and the new one's body.  Neither the consuming reader nor a snapshot
 * may take that copy.
 */
static void test_rewind_under_copy(void **state)
{
	struct ts_check t = {0};
	struct tfs_iter it = {.inst = &tfs_top, .pipe = true};
	struct tfs_snap *sn;
	struct tfs_event e;

	straddle_setup();
	tfs_rr_copy_hook = rewind_hook;
	assert_int_equal(tfs_rr_consume(&tfs_top, 0, &it, 1000, ts_fn, &t), 63);
	tfs_rr_copy_hook = NULL;
	assert_true(rewound > 0);
	assert_int_equal(t.torn, 0);
	assert_int_equal(t.last, 999);

	straddle_setup();
	memset(&t, 0, sizeof(t));
	memset(&it, 0, sizeof(it));
	tfs_rr_copy_hook = rewind_hook;
	sn = tfs_snap_take(&tfs_top, 0, &it);
	tfs_rr_copy_hook = NULL;
	assert_non_null(sn);
	assert_true(rewound > 0);
	while (tfs_snap_next(sn, &it, &e))
		ts_fn(&it, &e, &t);
	tfs_snap_free(sn);
	assert_int_equal(t.n, 63);
	assert_int_equal(t.torn, 0);
	assert_int_equal(t.last, 999);
}


static uint64_t fast_seq; /* the next sequence number the fast writer writes */

/* A writer twice as fast as the reader: two pages written during each page copy. */
static void fast_writer_hook(unsigned int cpu, unsigned int vp)
{
	for (unsigned int i = 0; i < 2 * PER_PAGE; i++, fast_seq++)
		assert_int_equal(write_func(cpu, fast_seq, 1000 + fast_seq), 0);
}

/*
 * In overwrite mode a writer faster than the reader overtakes every page the
 * reader copies from the oldest one on: the reader must go on ahead of it (the
 * overtaken pages are lost, counted) rather than start over until it gives up
 * with nothing, which left `trace` and `stats` empty under a busy writer.
 */
static void test_fast_writer_overtakes(void **state)
{
	const unsigned int nr = 64;
	static struct collect c;
	struct tfs_iter it = {.inst = &tfs_top};
	struct tfs_cpu_stats st;
	struct tfs_snap *sn;
	struct tfs_event e;
	uint64_t prev = 0;
	unsigned long n = 0;

	ring_setup(1, nr, RB_F_OVERWRITE);
	for (fast_seq = 0; fast_seq < 10 * nr * PER_PAGE; fast_seq++)
		assert_int_equal(write_func(0, fast_seq, 1000 + fast_seq), 0);
	tfs_rr_copy_hook = fast_writer_hook;
	sn = tfs_snap_take(&tfs_top, 0, &it);
	tfs_rr_copy_hook = NULL;
	assert_non_null(sn);
	while (tfs_snap_next(sn, &it, &e)) {
		/* the walk was overtaken: its first event says events were lost before it */
		assert_int_equal(it.lost, n == 0 ? TFS_LOST_UNKNOWN : 0);
		assert_true(n == 0 || seq_of(&e) > prev); /* in order, each once */
		assert_int_equal(e.ev->ts, 1000 + seq_of(&e)); /* not torn */
		prev = seq_of(&e);
		n++;
	}
	tfs_snap_free(sn);
	assert_true(n >= PER_PAGE);

	tfs_rr_copy_hook = fast_writer_hook;
	assert_int_equal(tfs_rr_stats(&tfs_top, 0, &st), 0);
	tfs_rr_copy_hook = NULL;
	assert_true(st.entries >= PER_PAGE);
	assert_true(st.entries < (uint64_t)nr * PER_PAGE);
	assert_true(st.written > st.entries);
	assert_int_equal(st.entries + st.overrun + st.read, st.written);

	/* the consuming reader too: it gets events, the rest is reported lost */
	tfs_rr_copy_hook = fast_writer_hook;
	n = consume(0, &c, 1);
	tfs_rr_copy_hook = NULL;
	assert_int_equal(n, 1);
	assert_true(c.lost[0] > 0);
	assert_int_equal(c.lost[0], c.seq[0] - 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_no_wrap),
		cmocka_unit_test(test_overwrite_wrap),
		cmocka_unit_test(test_no_overwrite_drops),
		cmocka_unit_test(test_no_overwrite_reader_page),
		cmocka_unit_test(test_consume_releases_pages),
		cmocka_unit_test(test_consume_lost),
		cmocka_unit_test(test_overwrite_reader_page),
		cmocka_unit_test(test_stop_keeps_event),
		cmocka_unit_test(test_merge_order),
		cmocka_unit_test(test_bad_event_ends_page),
		cmocka_unit_test(test_bad_types_and_payloads),
		cmocka_unit_test(test_torn_write),
		cmocka_unit_test(test_reset_detected),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_concurrent_writer),
		cmocka_unit_test(test_kernel_sizes),
		cmocka_unit_test(test_rewind_under_copy),
		cmocka_unit_test(test_fast_writer_overtakes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

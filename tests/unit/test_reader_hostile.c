// SPDX-License-Identifier: MIT
/*
 * test_reader_hostile.c - the ring reader (fs/ring_read.c) against rings that a
 * hostile process wrote into the shared memory: every read must return promptly,
 * do work bounded by the ring utracefs configured, and leave the reader usable.
 * Each read runs in a thread with a deadline, so that a reader that loops fails
 * the test instead of hanging it.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core.h"
#include "output/output.h"
#include "ring_read.h"
#include "ut_ring_write.h"

#include "ring_fixture.h"

#define NR_PAGES 8
#define DEADLINE_S 3

static void *area;
static size_t area_size;


/* One CPU, NR_PAGES pages, as utracefs configures it. */
static void ring_setup(void)
{
	if (area)
		munmap(area, area_size);
	area_size = ut_rb_area_size(1);
	area = mmap(NULL, area_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(area != MAP_FAILED);
	tfs.area = area;
	tfs_top.area = area; /* the top level's span is the area's start */
	tfs.nr_cpus = 1;
	tfs_top.clock = TFS_CLOCK_X86_TSC;
	tfs_top.nr_kpages[0] = kpages_for(NR_PAGES);
	ut_rb_reset_cpu(area, 0, NR_PAGES, RB_F_OVERWRITE);
	ut_rb_cpu(area, 0)->enabled = 1;
	tfs_rr_reset(&tfs_top, -1);
}

/* ---- reads with a deadline ---------------------------------------------------------------- */

enum op { OP_CONSUME, OP_READY, OP_STATS, OP_SNAP };

struct job {
	enum op op;
	long ret;
	struct tfs_cpu_stats st;
	unsigned long snap_events;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
};

static int count_fn(struct tfs_iter *it, const struct tfs_event *e, void *arg)
{
	(void)it;
	(void)e;
	(void)arg;
	return 0;
}

static void *job_run(void *arg)
{
	struct job *j = arg;
	struct tfs_iter it = {.inst = &tfs_top, .cpu_filter = -1, .pipe = true};
	struct tfs_snap *s;
	struct tfs_event e;

	switch (j->op) {
	case OP_CONSUME:
		j->ret = tfs_rr_consume(&tfs_top, 0, &it, 4096, count_fn, NULL);
		break;
	case OP_READY:
		j->ret = tfs_rr_ready(&tfs_top, 0);
		break;
	case OP_STATS:
		j->ret = tfs_rr_stats(&tfs_top, 0, &j->st);
		break;
	case OP_SNAP:
		memset(&it, 0, sizeof(it));
		it.cpu_filter = -1;
		s = tfs_snap_take(&tfs_top, -1, &it);
		j->ret = s ? 0 : -ENOMEM;
		while (s && tfs_snap_next(s, &it, &e))
			j->snap_events++;
		tfs_snap_free(s);
		break;
	}
	pthread_mutex_lock(&j->lock);
	j->done = true;
	pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/*
 * Run one read; fail when it does not return within the deadline (the thread is
 * left behind: the process ends with the test run).
 */
static struct job *run(enum op op)
{
	static struct job j;
	struct timespec until;
	pthread_t t;
	int err = 0;

	memset(&j, 0, sizeof(j));
	j.op = op;
	pthread_mutex_init(&j.lock, NULL);
	pthread_cond_init(&j.cond, NULL);
	assert_int_equal(pthread_create(&t, NULL, job_run, &j), 0);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += DEADLINE_S;
	pthread_mutex_lock(&j.lock);
	while (!j.done && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&j.cond, &j.lock, &until);
	pthread_mutex_unlock(&j.lock);
	if (!j.done)
		fail_msg("reader operation %d did not return within %d s", (int)op, DEADLINE_S);
	pthread_join(t, NULL);
	return &j;
}

/* ---- hostile rings ------------------------------------------------------------------------ */

/*
 * The last NR_PAGES pages up to vpage V, each claiming one 32-byte event that is
 * all zeroes (bad) and base_entries 0, so that no page's numbering follows from
 * the previous one's.
 */
static void write_loop_ring(unsigned int V)
{
	struct rb_cpu *rc = ut_rb_cpu(area, 0);

	for (unsigned int vp = V - (NR_PAGES - 1); vp <= V; vp++) {
		struct rb_page *p = ut_rb_page(area, 0, vp % NR_PAGES);

		memset(p, 0, UT_RB_PAGE_SIZE);
		p->magic = UT_RB_PAGE_MAGIC;
		p->vpage = vp;
		p->commit = rb_wpos_make(vp, vp % NR_PAGES, 1, 32);
		p->base_entries = 0;
	}
	rc->wpos = rb_wpos_make(V, V % NR_PAGES, 1, 32);
}

static void test_bad_pages_unrelated_bases(void **state)
{
	(void)state;
	ring_setup();
	write_loop_ring(1000);
	assert_int_equal(run(OP_CONSUME)->ret, 0);
	/* the reader is still usable: a second read returns as well */
	assert_int_equal(run(OP_CONSUME)->ret, 0);
	assert_false(run(OP_READY)->ret);
	assert_int_equal(run(OP_STATS)->ret, 0);
	assert_int_equal(run(OP_SNAP)->snap_events, 0);
}

/*
 * The writer rewrote the page count to the largest possible and put a valid page
 * far outside the ring utracefs configured: nothing may be read from it, and no
 * read may walk the huge ring.
 */
static void test_huge_nr_pages(void **state)
{
	const unsigned int V = 5000000, slot = UT_RB_MAX_PAGES - 1;
	struct rb_cpu *rc;
	struct rb_page *p;
	struct ut_ev_func f = {
		.h = {.len = sizeof(f), .type = UT_EV_FUNCTION, .tid = 42, .ts = 77},
		.ip = 0x1000,
		.parent_ip = 7,
	};
	struct timespec t0, t1;
	struct job *j;

	(void)state;
	ring_setup();
	rc = ut_rb_cpu(area, 0);
	p = ut_rb_page(area, 0, slot);
	p->magic = UT_RB_PAGE_MAGIC;
	p->vpage = V;
	p->base_entries = 0;
	p->time_stamp = 77;
	memcpy(p + 1, &f, sizeof(f));
	p->commit = rb_wpos_make(V, slot, 1, sizeof(f));
	rc->nr_pages = UT_RB_MAX_PAGES;
	rc->wpos = rb_wpos_make(V, slot, 1, sizeof(f));

	clock_gettime(CLOCK_MONOTONIC, &t0);
	j = run(OP_STATS);
	assert_int_equal(j->ret, 0);
	assert_int_equal(j->st.entries, 0);
	assert_int_equal(run(OP_SNAP)->snap_events, 0);
	assert_int_equal(run(OP_CONSUME)->ret, 0);
	assert_false(run(OP_READY)->ret);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* walking 2^18 pages copies a GiB; the configured ring is 8 pages */
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < 500);
}

/* Random headers and pages: every read returns, again and again. */
static void test_random_rings(void **state)
{
	struct rb_cpu *rc;

	(void)state;
	ring_setup();
	rc = ut_rb_cpu(area, 0);
	srandom(1234);
	for (int round = 0; round < 200; round++) {
		unsigned int V = (unsigned int)random() & (RB_VPAGE_MOD - 1);

		if (round % 3 == 0)
			write_loop_ring(V | NR_PAGES);
		for (unsigned int sl = 0; sl < NR_PAGES; sl++) {
			struct rb_page *p = ut_rb_page(area, 0, sl);

			if (random() % 2)
				p->base_entries = (uint64_t)random() << 20;
			if (random() % 4 == 0)
				p->commit = rb_wpos_make(p->vpage, sl, random() % 200,
							 random() % (UT_RB_PAGE_DATA + 1));
		}
		rc->wpos = rb_wpos_make(V, V % NR_PAGES, random() % 4, random() % 64 * 8);
		rc->read_vpage = (uint64_t)random();
		rc->flags = random() % 2 ? RB_F_OVERWRITE : 0;
		run(OP_CONSUME);
		run(OP_STATS);
		run(OP_SNAP);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_pages_unrelated_bases),
		cmocka_unit_test(test_huge_nr_pages),
		cmocka_unit_test(test_random_rings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

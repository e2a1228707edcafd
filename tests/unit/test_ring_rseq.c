// SPDX-License-Identifier: MIT
/*
 * test_ring_rseq.c - the rseq ring writer ut_rb_write() (common/arch/x86_64/rb_write.S)
 * against the reference algorithm and under concurrency, and the same concurrency
 * tests for the locked writer ut_rb_write_locked() (common/ut_ring_lock.c) used where
 * the kernel has no rseq.
 *
 *  - identical input, one thread pinned to CPU 0: ut_rb_write and ut_rb_write_on_cpu
 *    produce the same bytes (ts is copied from the rseq writer's result);
 *  - several threads and several forked processes write into one shared area with
 *    small rings that wrap, while this process reads with its own validating
 *    reader: every event read is intact, no event is lost or duplicated in
 *    no-overwrite mode, and the counters are exact in both modes;
 *  - writers killed with SIGKILL in the middle leave the rings consistent;
 *  - locked writer: a writer SIGKILLed while it holds a ring's lock (and left
 *    garbage beyond the committed offset) delays the others by the steal delay
 *    only; a signal handler writing while its thread holds a lock gets -EDEADLK;
 *    a lock word naming no live holder (reused tid, forged) is taken over.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ut_ring_write.h"

/* Makes sure the archive member with the real writer is linked (weak stubs exist). */
extern const char ut_rb_write_cs[];

#define NR_PAGES 4
#define NR_THREADS 3
#define NR_PROCS 2
#define NR_WRITERS (NR_THREADS + NR_PROCS)
#define PER_WRITER 60000u

struct test_ev {
	struct ut_ev h;
	uint32_t writer;
	uint32_t len;
	uint64_t seq;
	uint64_t fill[64];
};

/* Shared between the test and its forked writers. */
struct shared {
	uint64_t ok[NR_WRITERS], nospc[NR_WRITERS], eagain[NR_WRITERS];
	volatile int go;
	uint8_t done_bits[NR_WRITERS][PER_WRITER / 8 + 1]; /* writer: seq committed */
	uint8_t seen_bits[NR_WRITERS][PER_WRITER / 8 + 1]; /* reader: seq read */
};

static void *area;
static unsigned int nr_cpus;
static struct shared *sh;
static int have_rseq; /* libc registered rseq: ut_rb_write can be tested */
/* The writer under test: ut_rb_write, or ut_rb_write_locked for the locked tests. */
static int (*write_fn)(void *area, unsigned int nr_cpus, struct ut_ev *ev) = ut_rb_write;

static uint64_t fill_word(uint32_t writer, uint64_t seq, unsigned int i)
{
	return seq * 0x9e3779b97f4a7c15ull ^ ((uint64_t)writer << 48) ^ i;
}

static unsigned int ev_len(uint64_t seq)
{
	return 32 + 8 * (unsigned int)(seq % 30); /* 32..264 */
}

static void make_ev(struct test_ev *e, uint32_t writer, uint64_t seq)
{
	unsigned int len = ev_len(seq);

	e->h.len = len;
	e->h.type = UT_EV_RAW_DATA;
	e->h.flags = 0;
	e->h.tid = writer;
	e->h.ts = 0;
	e->writer = writer;
	e->len = len;
	e->seq = seq;
	for (unsigned int i = 0; i < (len - 32) / 8; i++)
		e->fill[i] = fill_word(writer, seq, i);
}

/* 0 if the event at p (at most room bytes) is one of ours and intact, else -1. */
static int check_ev(const unsigned char *p, unsigned int room, uint32_t *writer, uint64_t *seq)
{
	const struct test_ev *e = (const void *)p;

	if (room < 32 || e->h.len < 32 || e->h.len > room || e->h.len != ev_len(e->seq))
		return -1;
	if (e->writer >= NR_WRITERS || e->h.tid != e->writer || e->len != e->h.len ||
	    e->seq >= PER_WRITER || e->h.type != UT_EV_RAW_DATA || e->h.ts == 0)
		return -1;
	for (unsigned int i = 0; i < (e->len - 32) / 8; i++)
		if (e->fill[i] != fill_word(e->writer, e->seq, i))
			return -1;
	*writer = e->writer;
	*seq = e->seq;
	return 0;
}

static void *map_area(unsigned int cpus)
{
	void *a = mmap(NULL, ut_rb_area_size(cpus), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	assert_true(a != MAP_FAILED);
	return a;
}

static void reset_all(void *a, unsigned int cpus, unsigned int nr_pages, unsigned int flags)
{
	for (unsigned int c = 0; c < cpus; c++) {
		ut_rb_reset_cpu(a, c, nr_pages, flags);
		ut_rb_cpu(a, c)->enabled = 1;
	}
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
}

/* ---- identical input: rseq writer == reference ---------------------------------- */

static void compare_mode(unsigned int flags)
{
	void *a = map_area(1), *b = map_area(1);
	struct test_ev e;
	uint64_t rv = 0;

	reset_all(a, 1, NR_PAGES, flags);
	reset_all(b, 1, NR_PAGES, flags);
	for (uint64_t seq = 0; seq < 2000; seq++) {
		make_ev(&e, 1, seq);
		int ra = ut_rb_write(a, 1, &e.h);
		int rb = ut_rb_write_on_cpu(b, 0, &e.h); /* e.h.ts now holds a's time stamp */

		assert_int_equal(ra, rb);
		if (seq % 97 == 0) { /* a reader advancing, the same on both */
			rv++;
			ut_rb_cpu(a, 0)->read_vpage = rv;
			ut_rb_cpu(b, 0)->read_vpage = rv;
			/* its first read put the reader page in use (rb_cpu.held) */
			ut_rb_cpu(a, 0)->held = rv < 3;
			ut_rb_cpu(b, 0)->held = rv < 3;
		}
	}
	assert_memory_equal(ut_rb_cpu(a, 0), ut_rb_cpu(b, 0), UT_RB_CPU_SIZE);
	assert_memory_equal(ut_rb_page(a, 0, 0), ut_rb_page(b, 0, 0), NR_PAGES * UT_RB_PAGE_SIZE);
	if (!(flags & RB_F_OVERWRITE))
		assert_true(ut_rb_cpu(a, 0)->dropped > 0); /* the case was exercised */

	/* Errors are the same too. */
	e.h.len = 20;
	assert_int_equal(ut_rb_write(a, 1, &e.h), -EINVAL);
	e.h.len = 32;
	ut_rb_cpu(a, 0)->enabled = 0;
	assert_int_equal(ut_rb_write(a, 1, &e.h), -EAGAIN);
	ut_rb_cpu(a, 0)->enabled = 1;
	assert_int_equal(ut_rb_write(a, 0, &e.h), -EAGAIN); /* cpu 0 >= nr_cpus 0 */
	munmap(a, ut_rb_area_size(1));
	munmap(b, ut_rb_area_size(1));
}

/* 32-byte events written on cpu 0 of a until the first -ENOSPC (a no-overwrite ring). */
static unsigned int fill_count(void *a, int ref)
{
	struct test_ev e;
	unsigned int n = 0;
	int r;

	for (;;) {
		make_ev(&e, 1, 0);
		r = ref ? ut_rb_write_on_cpu(a, 0, &e.h) : ut_rb_write(a, 1, &e.h);
		if (r)
			break;
		n++;
	}
	assert_int_equal(r, -ENOSPC);
	return n;
}

/*
 * The no-overwrite capacity rule, the same in the rseq writer and the reference:
 * after a reset the reader page is held back (nr_pages - 1 pages take events);
 * once the reader has read (held 0) the last page fills too; a forged held
 * never lets a writer past the reader.
 */
static void test_capacity_rule(void **state)
{
	const unsigned int per_page = UT_RB_PAGE_DATA / 32;
	cpu_set_t old;

	if (!have_rseq)
		skip();
	sched_getaffinity(0, sizeof(old), &old);
	pin_cpu0();
	for (int ref = 0; ref < 2; ref++) {
		void *a = map_area(1);
		struct rb_cpu *rc = ut_rb_cpu(a, 0);

		reset_all(a, 1, NR_PAGES, 0);
		assert_int_equal(rc->held, 1);
		assert_int_equal(fill_count(a, ref), (NR_PAGES - 1) * per_page);
		assert_int_equal(rc->dropped, 1);
		rc->held = 0; /* the reader's first read */
		assert_int_equal(fill_count(a, ref), per_page);
		assert_int_equal(rb_wpos_vpage(rc->wpos), NR_PAGES - 1);

		reset_all(a, 1, NR_PAGES, 0); /* a reset holds it back again */
		assert_int_equal(rc->held, 1);
		assert_int_equal(fill_count(a, ref), (NR_PAGES - 1) * per_page);

		reset_all(a, 1, NR_PAGES, 0);
		rc->held = 0xffffffffu; /* forged: d + held wraps around */
		assert_int_equal(fill_count(a, ref), per_page);
		assert_int_equal(rb_wpos_vpage(rc->wpos), 0);
		munmap(a, ut_rb_area_size(1));
	}
	sched_setaffinity(0, sizeof(old), &old);
}

static void test_same_as_reference(void **state)
{
	cpu_set_t old;

	if (!have_rseq)
		skip();

	assert_non_null(ut_rb_write_cs);
	sched_getaffinity(0, sizeof(old), &old);
	pin_cpu0();
	compare_mode(RB_F_OVERWRITE);
	compare_mode(0);
	sched_setaffinity(0, sizeof(old), &old);
}

/* ---- the validating reader ------------------------------------------------------ */

struct reader {
	uint64_t read_vpage[UT_RB_MAX_CPUS]; /* no-overwrite: next page to consume */
	uint64_t consumed[UT_RB_MAX_CPUS];
	uint64_t last_seq[UT_RB_MAX_CPUS][NR_WRITERS]; /* seq + 1 of the last seen */
	unsigned long bad, pages_checked;
};

static uint64_t load_wpos(unsigned int cpu)
{
	return __atomic_load_n(&ut_rb_cpu(area, cpu)->wpos, __ATOMIC_ACQUIRE);
}

/* Parse a copied page's first `used` bytes; returns events, counts bad ones. */
static unsigned int parse_page(struct reader *r, unsigned int cpu, const unsigned char *data,
			       unsigned int used, int mark_seen, int check_order)
{
	unsigned int off = 0, n = 0;

	while (off < used) {
		uint32_t w;
		uint64_t seq;

		if (check_ev(data + off, used - off, &w, &seq)) {
			r->bad++;
			break;
		}
		if (check_order && seq + 1 <= r->last_seq[cpu][w])
			r->bad++; /* a writer's events on one CPU come in order, once */
		if (check_order)
			r->last_seq[cpu][w] = seq + 1;
		if (mark_seen) {
			if (sh->seen_bits[w][seq / 8] & (1u << (seq % 8)))
				r->bad++; /* duplicate */
			sh->seen_bits[w][seq / 8] |= 1u << (seq % 8);
		}
		off += ((const struct ut_ev *)(data + off))->len;
		n++;
	}
	return n;
}

/* No-overwrite mode: consume every finished page (all pages when final). */
static void consume(struct reader *r, unsigned int cpu, int final)
{
	static unsigned char copy[UT_RB_PAGE_SIZE];
	struct rb_cpu *rc = ut_rb_cpu(area, cpu);

	for (;;) {
		uint64_t w = load_wpos(cpu);
		unsigned int rv = (unsigned int)r->read_vpage[cpu] & (RB_VPAGE_MOD - 1);
		int current = rb_wpos_vpage(w) == rv;

		if (current && !final)
			return;
		struct rb_page *p =
		    ut_rb_page(area, cpu, (unsigned int)(r->read_vpage[cpu] % NR_PAGES));

		memcpy(copy, p, sizeof(copy));
		struct rb_page *h = (void *)copy;
		unsigned int used = current ? rb_wpos_off(w) : rb_wpos_off(h->commit);

		if (h->vpage != rv || h->magic != UT_RB_PAGE_MAGIC)
			r->bad++;
		r->consumed[cpu] += parse_page(r, cpu, copy + UT_RB_PAGE_HDR, used, 1, 1);
		r->pages_checked++;
		if (current)
			return;
		r->read_vpage[cpu]++;
		__atomic_store_n(&rc->read_vpage, r->read_vpage[cpu], __ATOMIC_RELEASE);
	}
}

/*
 * Overwrite mode: copy the readable window (the last nr_pages - 1 pages) and keep
 * the copies that are still valid afterwards (ut_ring.h, THE READER).  Returns the
 * events in the window when `count` (writers stopped), else 0.
 */
static uint64_t snapshot(struct reader *r, unsigned int cpu, int count, uint64_t *oldest_base)
{
	static unsigned char copy[UT_RB_PAGE_SIZE];
	uint64_t w1 = load_wpos(cpu), total = 0;
	unsigned int cur = rb_wpos_vpage(w1);

	for (unsigned int back = NR_PAGES - 2; back != ~0u; back--) {
		unsigned int v = (cur - back) & (RB_VPAGE_MOD - 1);
		struct rb_page *p = ut_rb_page(area, cpu, v % NR_PAGES);

		if (rb_vpage_sub(cur, v) > cur) /* before vpage 0: never written */
			continue;
		memcpy(copy, p, sizeof(copy));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uint64_t w2 = load_wpos(cpu);
		struct rb_page *h = (void *)copy;

		if (rb_vpage_sub(rb_wpos_vpage(w2), v) >= NR_PAGES - 1 || h->vpage != v)
			continue; /* overwritten meanwhile */
		if (h->magic != UT_RB_PAGE_MAGIC) {
			r->bad++;
			continue;
		}
		if (oldest_base && total == 0)
			*oldest_base = h->base_entries;
		unsigned int used = v == cur ? rb_wpos_off(w1) : rb_wpos_off(h->commit);

		total += parse_page(r, cpu, copy + UT_RB_PAGE_HDR, used, 0, 0);
		r->pages_checked++;
	}
	return count ? total : 0;
}

/* The rseq writer's tests cannot run where libc registered no rseq. */
static void skip_without_writer(void)
{
	if (write_fn == ut_rb_write && !have_rseq)
		skip();
}

/* ---- writers -------------------------------------------------------------------- */

static int run_writer(uint32_t id)
{
	struct test_ev e;

	while (!sh->go)
		;
	for (uint64_t seq = 0; seq < PER_WRITER; seq++) {
		make_ev(&e, id, seq);
		int ret = write_fn(area, nr_cpus, &e.h);

		if (ret == 0) {
			sh->done_bits[id][seq / 8] |= 1u << (seq % 8);
			__atomic_fetch_add(&sh->ok[id], 1, __ATOMIC_RELAXED);
		} else if (ret == -ENOSPC) {
			__atomic_fetch_add(&sh->nospc[id], 1, __ATOMIC_RELAXED);
		} else {
			__atomic_fetch_add(&sh->eagain[id], 1, __ATOMIC_RELAXED);
		}
		if (seq % 512 == 0)
			sched_yield(); /* provoke migrations and preemption */
	}
	return 0;
}

static void *writer_thread(void *arg)
{
	run_writer((uint32_t)(uintptr_t)arg);
	return NULL;
}

struct run {
	pthread_t th[NR_THREADS];
	pid_t pid[NR_PROCS];
};

static void start_writers(struct run *run, unsigned int flags)
{
	reset_all(area, nr_cpus, NR_PAGES, flags);
	memset(sh, 0, sizeof(*sh));
	for (unsigned int i = 0; i < NR_PROCS; i++) {
		run->pid[i] = fork();
		assert_true(run->pid[i] >= 0);
		if (run->pid[i] == 0)
			_exit(run_writer(NR_THREADS + i));
	}
	for (unsigned int i = 0; i < NR_THREADS; i++)
		pthread_create(&run->th[i], NULL, writer_thread, (void *)(uintptr_t)i);
	sh->go = 1;
}

static int writers_running(struct run *run)
{
	int running = 0;

	for (unsigned int i = 0; i < NR_PROCS; i++) {
		int st;

		if (run->pid[i] > 0 && waitpid(run->pid[i], &st, WNOHANG) == 0)
			running = 1;
		else
			run->pid[i] = -1;
	}
	for (unsigned int i = 0; i < NR_THREADS; i++) {
		if (!run->th[i])
			continue;
		if (pthread_tryjoin_np(run->th[i], NULL) == EBUSY)
			running = 1;
		else
			run->th[i] = 0;
	}
	return running;
}

static uint64_t written(unsigned int cpu)
{
	uint64_t w = load_wpos(cpu);
	struct rb_page *p = ut_rb_page(area, cpu, rb_wpos_slot(w));

	if (w == 0 && p->base_entries == 0)
		return 0;
	return p->base_entries + rb_wpos_entries(w);
}

static void test_concurrent_no_overwrite(void **state)
{
	struct run run;
	struct reader *r;
	uint64_t sum_written = 0, sum_dropped = 0, sum_consumed = 0, ok = 0, nospc = 0;

	skip_without_writer();
	r = calloc(1, sizeof(*r));

	start_writers(&run, 0);
	while (writers_running(&run))
		for (unsigned int c = 0; c < nr_cpus; c++)
			consume(r, c, 0);
	for (unsigned int c = 0; c < nr_cpus; c++) {
		consume(r, c, 1);
		sum_written += written(c);
		sum_dropped += ut_rb_cpu(area, c)->dropped;
		sum_consumed += r->consumed[c];
		assert_int_equal(r->consumed[c], written(c));
	}
	for (unsigned int i = 0; i < NR_WRITERS; i++) {
		ok += sh->ok[i];
		nospc += sh->nospc[i];
		assert_int_equal(sh->eagain[i], 0);
		/* every committed event was read exactly once, and nothing else */
		assert_memory_equal(sh->done_bits[i], sh->seen_bits[i], sizeof(sh->done_bits[i]));
	}
	assert_int_equal(r->bad, 0);
	assert_int_equal(sum_written, ok);
	assert_int_equal(sum_dropped, nospc);
	assert_int_equal(ok + nospc, (uint64_t)NR_WRITERS * PER_WRITER);
	assert_int_equal(sum_consumed, ok);
	assert_true(r->pages_checked > NR_PAGES * nr_cpus); /* the rings wrapped */
	free(r);
}

static void test_concurrent_overwrite(void **state)
{
	struct run run;
	struct reader *r;
	uint64_t sum_written = 0, ok = 0;

	skip_without_writer();
	r = calloc(1, sizeof(*r));

	start_writers(&run, RB_F_OVERWRITE);
	while (writers_running(&run))
		for (unsigned int c = 0; c < nr_cpus; c++)
			snapshot(r, c, 0, NULL);
	for (unsigned int c = 0; c < nr_cpus; c++) {
		uint64_t oldest = 0, entries = snapshot(r, c, 1, &oldest);
		uint64_t wr = written(c);

		/* written = entries + overrun, overrun = oldest readable base (nothing read) */
		assert_int_equal(wr, entries + oldest);
		assert_int_equal(ut_rb_cpu(area, c)->dropped, 0);
		sum_written += wr;
	}
	for (unsigned int i = 0; i < NR_WRITERS; i++) {
		ok += sh->ok[i];
		assert_int_equal(sh->nospc[i], 0);
	}
	assert_int_equal(r->bad, 0);
	assert_int_equal(sum_written, ok);
	assert_int_equal(ok, (uint64_t)NR_WRITERS * PER_WRITER);
	free(r);
}

/* Writers killed at random points: what is committed stays intact and countable. */
static void test_sigkill_writers(void **state)
{
	skip_without_writer();
	for (unsigned int round = 0; round < 2; round++) {
		unsigned int flags = round ? RB_F_OVERWRITE : 0;
		struct run run;
		struct reader *r = calloc(1, sizeof(*r));

		start_writers(&run, flags);
		usleep(3000 + 2000 * round);
		for (unsigned int i = 0; i < NR_PROCS; i++)
			kill(run.pid[i], SIGKILL);
		while (writers_running(&run))
			for (unsigned int c = 0; c < nr_cpus; c++)
				if (!flags)
					consume(r, c, 0);
		for (unsigned int c = 0; c < nr_cpus; c++) {
			if (flags) {
				uint64_t oldest = 0, entries = snapshot(r, c, 1, &oldest);

				assert_int_equal(written(c), entries + oldest);
			} else {
				consume(r, c, 1);
				assert_int_equal(r->consumed[c], written(c));
			}
		}
		assert_int_equal(r->bad, 0);
		free(r);
	}
}

static int setup(void **state)
{
	nr_cpus = (unsigned int)get_nprocs_conf();
	area = map_area(nr_cpus);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	write_fn = ut_rb_write;
	return sh == MAP_FAILED;
}

static int setup_locked(void **state)
{
	int err = setup(state);

	write_fn = ut_rb_write_locked;
	return err;
}

/* ---- the locked writer: a dead holder, a nested writer ---------------------------- */

static int hold_fd = -1;

/* In the child: report the lock held, leave garbage beyond wpos, wait to be killed. */
static void hold_hook(void *a, unsigned int cpu)
{
	struct rb_cpu *rc = ut_rb_cpu(a, cpu);
	uint64_t w = rc->wpos;
	unsigned int off = rb_wpos_off(w);
	char c = 1;

	memset((char *)(ut_rb_page(a, cpu, rb_wpos_slot(w)) + 1) + off, 0xa5,
	       UT_RB_PAGE_DATA - off);
	if (write(hold_fd, &c, 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void test_locked_dead_holder(void **state)
{
	unsigned int flags = (unsigned int)(uintptr_t)*state;
	struct reader *r = calloc(1, sizeof(*r));
	uint64_t ok = 0, sum_written = 0;
	int p[2], st;
	struct run run;
	pid_t holder;
	char c;

	reset_all(area, nr_cpus, NR_PAGES, flags);
	assert_int_equal(pipe(p), 0);
	holder = fork();
	assert_true(holder >= 0);
	if (holder == 0) {
		struct test_ev e;

		alarm(30); /* never outlives a failed test */
		pin_cpu0();
		hold_fd = p[1];
		ut_rb_locked_hook = hold_hook;
		make_ev(&e, 0, 0);
		ut_rb_write_locked(area, nr_cpus, &e.h);
		_exit(2);
	}
	int got = (int)read(p[0], &c, 1);
	uint64_t lock = ut_rb_cpu(area, 0)->lock;

	kill(holder, SIGKILL); /* not reaped yet: a zombie holds the lock */
	assert_int_equal(got, 1);
	assert_int_equal((uint32_t)lock, (uint32_t)holder); /* and its start time above */

	uint64_t t0 = now_ms();

	start_writers(&run, flags);
	while (writers_running(&run))
		for (unsigned int c2 = 0; c2 < nr_cpus; c2++)
			if (!flags)
				consume(r, c2, 0);
	uint64_t took = now_ms() - t0;

	assert_int_equal(waitpid(holder, &st, 0), holder);
	for (unsigned int c2 = 0; c2 < nr_cpus; c2++) {
		if (flags) {
			uint64_t oldest = 0, entries = snapshot(r, c2, 1, &oldest);

			assert_int_equal(written(c2), entries + oldest);
		} else {
			consume(r, c2, 1);
			assert_int_equal(r->consumed[c2], written(c2));
		}
		sum_written += written(c2);
		/*
		 * No writer may have come back to CPU 0 after the holder died: utracefs
		 * frees such a lock itself (its kicker calls ut_rb_lock_reap).
		 */
		ut_rb_lock_reap(area, c2);
		assert_int_equal(ut_rb_cpu(area, c2)->lock, 0);
	}
	for (unsigned int i = 0; i < NR_WRITERS; i++) {
		ok += sh->ok[i];
		assert_int_equal(sh->eagain[i], 0);
		if (!flags)
			assert_memory_equal(sh->done_bits[i], sh->seen_bits[i],
					    sizeof(sh->done_bits[i]));
	}
	assert_int_equal(r->bad, 0);
	assert_int_equal(sum_written, ok);
	if (flags)
		assert_int_equal(ok, (uint64_t)NR_WRITERS * PER_WRITER);
	/*
	 * The dead holder's lock was stolen (after the steal delay), not given up on:
	 * no writer saw EAGAIN above.  How long the run took beyond that depends on the
	 * machine's load (a time bound here made the test flaky under sanitizers).
	 */
	assert_true(took >= UT_RB_LOCK_STEAL_MS);
	close(p[0]);
	close(p[1]);
	free(r);
}

/* This thread's start time (clock ticks since boot), as /proc shows it. */
static uint64_t my_start_time(void)
{
	char path[64], buf[1024], *p;
	unsigned int field = 3;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", gettid());
	f = fopen(path, "re");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')') + 2;
	for (; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	return strtoull(p, NULL, 10);
}

/*
 * The lock word names its holder by tid AND start time: a word that names a live
 * task with another start time (its tid was reused), or a word anybody wrote (a
 * live pid, 1), is no holder: the next writer takes the lock from it, as does
 * utracefs (ut_rb_lock_reap).  A real live holder keeps it.  A holder whose lock
 * was taken never frees the new owner's.
 */
static void test_locked_identity(void **state)
{
	struct rb_cpu *rc = ut_rb_cpu(area, 0);
	uint64_t self = (uint32_t)gettid() | (my_start_time() & 0xffffffffull) << 32;
	uint64_t words[] = {(uint64_t)getpid(), 1, self + (1ull << 32), (uint64_t)getppid()};
	struct test_ev e;
	cpu_set_t old;
	int p[2], st;
	pid_t child;
	char c;

	sched_getaffinity(0, sizeof(old), &old);
	pin_cpu0();
	reset_all(area, nr_cpus, NR_PAGES, RB_F_OVERWRITE);
	make_ev(&e, 0, 0);
	for (unsigned int i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		__atomic_store_n(&rc->lock, words[i], __ATOMIC_SEQ_CST);
		assert_int_equal(ut_rb_write_locked(area, nr_cpus, &e.h), 0);
		assert_int_equal(__atomic_load_n(&rc->lock, __ATOMIC_SEQ_CST), 0);
		__atomic_store_n(&rc->lock, words[i], __ATOMIC_SEQ_CST);
		assert_int_equal(ut_rb_lock_reap(area, 0), 1);
		assert_int_equal(__atomic_load_n(&rc->lock, __ATOMIC_SEQ_CST), 0);
	}
	assert_int_equal(written(0), sizeof(words) / sizeof(words[0]));

	/* a live holder keeps its lock; once dead (a zombie), it is freed */
	assert_int_equal(pipe(p), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		alarm(30);
		if (ut_rb_lock(area, 0) || write(p[1], "l", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	assert_int_equal(read(p[0], &c, 1), 1);
	assert_int_equal((uint32_t)rc->lock, (uint32_t)child);
	assert_int_equal(ut_rb_lock_reap(area, 0), 0);
	assert_int_equal((uint32_t)rc->lock, (uint32_t)child);
	kill(child, SIGKILL);
	while (!ut_rb_lock_reap(area, 0)) /* until it is a zombie */
		usleep(1000);
	assert_int_equal(rc->lock, 0);
	assert_int_equal(waitpid(child, &st, 0), child);
	close(p[0]);
	close(p[1]);

	/* the lock taken from us (as from a holder thought gone): our release leaves it */
	assert_int_equal(ut_rb_lock(area, 0), 0);
	assert_int_equal(rc->lock, self);
	__atomic_store_n(&rc->lock, words[0], __ATOMIC_SEQ_CST);
	ut_rb_unlock(area, 0);
	assert_int_equal(rc->lock, words[0]);
	__atomic_store_n(&rc->lock, 0, __ATOMIC_SEQ_CST);
	sched_setaffinity(0, sizeof(old), &old);
}

static int nested_ret = 1;

static void nested_handler(int sig)
{
	struct test_ev e;

	make_ev(&e, 1, 1);
	nested_ret = ut_rb_write_locked(area, nr_cpus, &e.h);
}

static void raise_hook(void *a, unsigned int cpu)
{
	raise(SIGUSR1);
}

static void test_locked_nested(void **state)
{
	struct sigaction sa = {.sa_handler = nested_handler}, old;
	struct test_ev e;
	uint64_t before = 0, after = 0;

	reset_all(area, nr_cpus, NR_PAGES, 0);
	for (unsigned int c = 0; c < nr_cpus; c++)
		before += written(c);
	sigaction(SIGUSR1, &sa, &old);
	ut_rb_locked_hook = raise_hook;
	make_ev(&e, 0, 0);
	assert_int_equal(ut_rb_write_locked(area, nr_cpus, &e.h), 0);
	ut_rb_locked_hook = NULL;
	sigaction(SIGUSR1, &old, NULL);
	assert_int_equal(nested_ret, -EDEADLK); /* gave up instead of waiting for itself */
	for (unsigned int c = 0; c < nr_cpus; c++) {
		after += written(c);
		assert_int_equal(ut_rb_cpu(area, c)->lock, 0);
	}
	assert_int_equal(after - before, 1);
	/* and the thread writes normally afterwards */
	assert_int_equal(ut_rb_write_locked(area, nr_cpus, &e.h), 0);
	e.h.len = 20;
	assert_int_equal(ut_rb_write_locked(area, nr_cpus, &e.h), -EINVAL);
}

int main(void)
{
	struct test_ev probe;

	/* Without rseq only the locked writer can be tested: the others are skipped. */
	make_ev(&probe, 0, 0);
	void *a = map_area(1);

	reset_all(a, 1, NR_PAGES, 0);
	have_rseq = ut_rb_write(a, 1, &probe.h) != -ENOSYS;
	munmap(a, ut_rb_area_size(1));

	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_as_reference),
	    cmocka_unit_test(test_capacity_rule),
	    cmocka_unit_test_setup(test_concurrent_no_overwrite, setup),
	    cmocka_unit_test_setup(test_concurrent_overwrite, setup),
	    cmocka_unit_test_setup(test_sigkill_writers, setup),
	    cmocka_unit_test_setup(test_concurrent_no_overwrite, setup_locked),
	    cmocka_unit_test_setup(test_concurrent_overwrite, setup_locked),
	    cmocka_unit_test_setup(test_sigkill_writers, setup_locked),
	    cmocka_unit_test_prestate_setup_teardown(test_locked_dead_holder, setup_locked, NULL,
						     (void *)0),
	    cmocka_unit_test_prestate_setup_teardown(test_locked_dead_holder, setup_locked, NULL,
						     (void *)(uintptr_t)RB_F_OVERWRITE),
	    cmocka_unit_test_setup(test_locked_nested, setup_locked),
	    cmocka_unit_test_setup(test_locked_identity, setup_locked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

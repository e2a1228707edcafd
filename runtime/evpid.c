// SPDX-License-Identifier: MIT
/*
 * evpid.c - which threads record trace events in each instance: set_event_pid and
 * set_event_notrace_pid (by thread id, as the kernel's lists of tasks), and the
 * option event-fork.
 *
 * utracefs resolves each instance's lists for this process (ut_sel_evpid, ut_sel.h):
 * every thread, none, only the listed ones, or all but the listed ones.  The
 * control thread copies them into the table readers do not use, makes it current
 * (tab_seq + 1, whose low bit names it, as route.c does for the function
 * instances), then moves ut_rt_ev_gen on.  The writer (events.c) keeps one answer
 * per thread, the slots its events go to (ut_thr.ev_ok), computed once per
 * generation.  With no list in any instance the generation is 0 and the writer
 * does not look: one load and one branch.  trace_marker is not an event here
 * (utracefs writes its print itself), so no list touches it, as in the kernel.
 *
 * event-fork, the kernel's fork probe: a task created by a listed one is listed
 * too, from its first instruction on.  utracefs lists it when it hears of it (a
 * fork child's HELLO, a thread's UT_MSG_THREAD), later than that: until the
 * section says utracefs has seen the thread's start (ev_serial reached its
 * serial), a new thread keeps its creator's answer in the event-fork slots
 * (ut_thr.ev_pin, ev_fmask, ev_fok).  Starts are numbered and sent under one lock,
 * so a section that has seen serial n has seen every start before it.  A fork
 * child is serial 1, its HELLO, which utracefs handles before it answers: its
 * first section has seen it.
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"
#include "selread.h"
#include "ut_wire.h"

struct ev_tab {
	uint64_t slots[2]; /* instance slots with lists (bit slot % 64 of word slot / 64) */
	uint64_t fork[2];  /* ... and event-fork set */
	uint32_t serial;   /* the last thread start utracefs has seen (ut_sel_proc.ev_serial) */
	uint32_t tasks[UT_INST_MAX], nr[UT_INST_MAX]; /* enum ut_sel_tasks, listed tids */
};

static struct ev_tab tabs[2];	 /* [tab_seq & 1]: current */
static int32_t *pool;		 /* each table's tids: [2][UT_INST_MAX][UT_SEL_TIDS_MAX] */
static uint32_t tab_seq, gen_last;
volatile uint32_t ut_rt_ev_gen;
static int follow;		 /* some instance follows forks: threads say when they start */
static pthread_mutex_t serial_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t serial_last = 1; /* the HELLO is 1 */
static __thread int32_t fork_tid; /* this thread calls fork() (prepare to after) */
static int32_t forked_by;	 /* a fork child: the thread that forked it */

static int32_t gettid_now(void)
{
	return (int32_t)syscall(SYS_gettid);
}

static int32_t *tids_of(unsigned int buf, unsigned int slot)
{
	return pool + ((size_t)buf * UT_INST_MAX + slot) * UT_SEL_TIDS_MAX;
}

/* Memory from mmap: the program's malloc may be traced. */
static int pool_ready(void)
{
	void *m;

	if (pool)
		return 1;
	m = mmap(NULL, 2 * (size_t)UT_INST_MAX * UT_SEL_TIDS_MAX * sizeof(int32_t),
		 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return 0;
	__atomic_store_n(&pool, (int32_t *)m, __ATOMIC_RELEASE);
	return 1;
}

static int has(const uint64_t *m, unsigned int s)
{
	return (int)(m[s / 64] >> (s % 64) & 1);
}

/*
 * Under the current table, the slots thread tid records events in (ok), and the
 * event-fork slots (fmask, may be NULL); with_pin: tid is the calling thread, whose
 * pin applies (and goes once utracefs has seen it).
 */
static void answer(int32_t tid, int with_pin, uint64_t ok[2], uint64_t *fmask)
{
	for (;;) {
		uint32_t seq = __atomic_load_n(&tab_seq, __ATOMIC_ACQUIRE), buf = seq & 1;
		const struct ev_tab *t = &tabs[buf];
		uint64_t sl[2], fk[2];
		uint32_t serial = __atomic_load_n(&t->serial, __ATOMIC_RELAXED);
		int pinned = with_pin && ut_thr.ev_pin && (int32_t)(serial - ut_thr.ev_pin) < 0;

		for (int w = 0; w < 2; w++) {
			sl[w] = __atomic_load_n(&t->slots[w], __ATOMIC_RELAXED);
			fk[w] = __atomic_load_n(&t->fork[w], __ATOMIC_RELAXED);
			ok[w] = ~sl[w]; /* no lists there: every thread */
		}
		for (unsigned int s = 0; s < UT_INST_MAX; s++) {
			int v;

			if (!has(sl, s))
				continue;
			if (pinned && has(ut_thr.ev_fmask, s))
				v = has(ut_thr.ev_fok, s);
			else
				v = ut_sel_tasks_take(__atomic_load_n(&t->tasks[s], __ATOMIC_RELAXED),
						      tids_of(buf, s),
						      __atomic_load_n(&t->nr[s], __ATOMIC_RELAXED), tid);
			ok[s / 64] |= (uint64_t)v << (s % 64);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&tab_seq, __ATOMIC_RELAXED) != seq)
			continue; /* the control thread made another table current meanwhile */
		if (with_pin && !pinned)
			ut_thr.ev_pin = 0;
		if (fmask)
			memcpy(fmask, fk, sizeof(fk));
		return;
	}
}

void ut_evpid_refresh(uint32_t gen)
{
	uint64_t ok[2];

	answer(ut_thr.tid ? (int32_t)ut_thr.tid : gettid_now(), 1, ok, NULL);
	memcpy(ut_thr.ev_ok, ok, sizeof(ok)); /* a handler meanwhile computed the same */
	ut_thr.ev_gen = gen;
}

/*
 * Fill the lists of table t (buffer buf, t->slots set) from section c.  Readers may
 * be reading this buffer still (two changes while they read): every word is stored
 * once, atomically, and their sequence check throws away what they read.
 */
static void fill(struct ev_tab *t, unsigned int buf, const struct ut_sel_copy *c, int found)
{
	for (unsigned int s = 0; s < UT_INST_MAX; s++) {
		const struct ut_sel_evpid *e = NULL;
		uint32_t tasks = UT_SEL_TASKS_ALL, nr = 0;
		int32_t *tids = tids_of(buf, s);

		for (uint32_t k = 0; has(t->slots, s) && found && k < c->nr_evpids && !e; k++)
			if (c->evpids[k].slot == s)
				e = &c->evpids[k];
		if (e) {
			tasks = e->tasks;
			nr = e->nr_tids;
			for (uint32_t i = 0; i < nr; i++)
				__atomic_store_n(&tids[i], c->etids[e->tids_off + i], __ATOMIC_RELAXED);
		} else if (has(t->slots, s) && has(c->hdr.ev_only, s)) {
			tasks = UT_SEL_TASKS_NONE; /* no word for us yet: our threads are in no list */
		}
		__atomic_store_n(&t->tasks[s], tasks, __ATOMIC_RELAXED);
		__atomic_store_n(&t->nr[s], nr, __ATOMIC_RELAXED);
	}
}

static int same(const struct ev_tab *a, unsigned int abuf, const struct ev_tab *b,
		unsigned int bbuf)
{
	if (memcmp(a, b, sizeof(*a)))
		return 0;
	for (unsigned int s = 0; s < UT_INST_MAX; s++)
		if (a->nr[s] && memcmp(tids_of(abuf, s), tids_of(bbuf, s), a->nr[s] * sizeof(int32_t)))
			return 0;
	return 1;
}

void ut_evpid_load(const struct ut_sel_copy *c, int found)
{
	uint32_t seq = tab_seq, buf = (seq + 1) & 1, g;
	struct ev_tab *t = &tabs[buf];
	const struct ev_tab *cur = &tabs[seq & 1];

	/* without memory for the lists, events are recorded as if there were none */
	int lists = c && (c->hdr.ev_slots[0] | c->hdr.ev_slots[1]) && pool_ready();

	__atomic_store_n(&follow, c && c->hdr.follow, __ATOMIC_RELAXED);
	for (int w = 0; w < 2; w++) {
		__atomic_store_n(&t->slots[w], lists ? c->hdr.ev_slots[w] : 0, __ATOMIC_RELAXED);
		__atomic_store_n(&t->fork[w], lists ? c->hdr.ev_fork[w] & c->hdr.ev_slots[w] : 0,
				 __ATOMIC_RELAXED);
	}
	__atomic_store_n(&t->serial, found ? c->ev_serial : cur->serial, __ATOMIC_RELAXED);
	if (lists)
		fill(t, buf, c, found);
	else
		for (unsigned int s = 0; s < UT_INST_MAX; s++) {
			__atomic_store_n(&t->tasks[s], UT_SEL_TASKS_ALL, __ATOMIC_RELAXED);
			__atomic_store_n(&t->nr[s], 0, __ATOMIC_RELAXED);
		}
	if (same(t, buf, cur, seq & 1))
		return;
	__atomic_store_n(&tab_seq, seq + 1, __ATOMIC_RELEASE);
	g = 0;
	if (t->slots[0] | t->slots[1]) {
		g = ++gen_last;
		if (!g)
			g = ++gen_last;
	}
	__atomic_store_n(&ut_rt_ev_gen, g, __ATOMIC_RELEASE);
}

/* ---- threads and forks ------------------------------------------------------------------- */

void ut_evpid_capture(struct ut_evpid_from *f)
{
	uint32_t g = __atomic_load_n(&ut_rt_ev_gen, __ATOMIC_ACQUIRE);
	uint64_t ok[2];

	*f = (struct ut_evpid_from){0};
	if (!__atomic_load_n(&follow, __ATOMIC_RELAXED))
		return;
	f->ptid = ut_thr.tid ? (int32_t)ut_thr.tid : gettid_now();
	if (!g)
		return; /* no event lists: only function-fork listens */
	answer(f->ptid, 1, ok, f->fmask);
	for (int w = 0; w < 2; w++)
		f->ok[w] = ok[w] & f->fmask[w];
}

void ut_evpid_thread_start(const struct ut_evpid_from *f)
{
	struct ut_msg_thread m = {.h = {UT_MSG_THREAD, sizeof(m)}};

	if (!f->ptid)
		return;
	m.tid = gettid_now();
	m.ptid = f->ptid;
	pthread_mutex_lock(&serial_lock);
	m.serial = ++serial_last;
	if (f->fmask[0] | f->fmask[1]) {
		memcpy(ut_thr.ev_fmask, f->fmask, sizeof(f->fmask));
		memcpy(ut_thr.ev_fok, f->ok, sizeof(f->ok));
		ut_thr.ev_pin = m.serial;
		ut_thr.ev_gen = 0;
	}
	ut_send_wait(&m, sizeof(m)); /* in serial order (one lock), never dropped */
	pthread_mutex_unlock(&serial_lock);
}

void ut_evpid_thread_exit(void)
{
	struct ut_msg_thread m = {.h = {UT_MSG_THREAD, sizeof(m)}, .exit = 1};

	if (!__atomic_load_n(&follow, __ATOMIC_RELAXED))
		return;
	m.tid = gettid_now();
	ut_send_wait(&m, sizeof(m));
}

void ut_evpid_fork_prepare(void)
{
	fork_tid = ut_thr.tid ? (int32_t)ut_thr.tid : gettid_now();
}

void ut_evpid_fork_parent(void)
{
	fork_tid = 0;
}

/*
 * The child's one thread: a new task, listed where the forking thread is under
 * event-fork (kept until its first section, which has seen its HELLO), elsewhere
 * in no list (the forking process's lists name other threads).
 */
void ut_evpid_fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	uint64_t ok[2], fm[2];

	serial_lock = fresh; /* another parent thread may have held it */
	serial_last = 1;
	forked_by = fork_tid;
	fork_tid = 0;
	ut_thr.ev_gen = 0; /* our own answer: asked again at our first event */
	if (!__atomic_load_n(&ut_rt_ev_gen, __ATOMIC_ACQUIRE)) {
		ut_thr.ev_pin = 0;
		return;
	}
	answer(forked_by, 1, ok, fm); /* ut_thr is the forking thread's copy: its pin */
	for (int w = 0; w < 2; w++) {
		ut_thr.ev_fmask[w] = fm[w];
		ut_thr.ev_fok[w] = ok[w] & fm[w];
	}
	ut_thr.ev_pin = 1;
	tabs[0].serial = tabs[1].serial = 0; /* the parent's: nothing seen of us yet */
}

int32_t ut_evpid_forked_by(void)
{
	return forked_by;
}

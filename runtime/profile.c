// SPDX-License-Identifier: MIT
/*
 * profile.c - the function profiler (function_profile_enabled, trace_stat/):
 * calls, total time and the sum of squared times per function and CPU, counted
 * in the traced process, with no ring event per call.
 *
 * It rides on function_graph's shadow return stack (graph.c), which is what
 * gives a return its entry: while ut_ctl.profile_on is set the sites go to the
 * graph trampoline whatever the tracer (control.c), graph.S sends every entry to
 * C but in the fast case below, and graph_enter() pushes a frame marked GF_PROF for every call of a
 * selected function by a selected thread (set_ftrace_filter/notrace decide what
 * is patched, set_ftrace_pid what the thread takes: ut_rt_task_ok).  A frame
 * only the profiler wants is also GF_NOTOP, so the graph tracer, if current,
 * neither writes nor counts a depth for it; under the function tracer the
 * entry writes the function event from C.  The entry stamps the frame
 * (ut_prof_enter); ut_gwrite_exit(), which every popped frame goes through
 * (returns, and frames left by longjmp or exceptions), counts it
 * (ut_prof_exit).
 *
 * The fast paths.  With the profiler alone (tracer nop, sleep-time and graph-time
 * on, no set_graph_function: ut_prof_fast) a frame is a plain one, as
 * function_graph's, stamped with the TSC and no event: graph.S pushes it without
 * C, and its return counts it in the thread's table (.Lr_prof, the same hash as
 * count()), the time in ns from ut_ctl.profile_tsc_mult, which utracefs sets from
 * its own TSC calibration.  What it cannot do (no table of this epoch yet, no
 * rseq, 16 probes without finding the slot) goes to C, which counts a plain frame
 * in the same way (ut_prof_exit_plain).  Every other case is the C path below.
 *
 * Time.  sleep-time on: CLOCK_MONOTONIC, the time from call to return.
 * sleep-time off (UT_CTL_GRAPH_NOSLEEP, the function_graph option the kernel's
 * profiler reads too): CLOCK_THREAD_CPUTIME_ID, the thread's own CPU time during
 * the call, so time the thread spent blocked or waiting for a CPU is left out
 * (the kernel moves the entry time by the time the task was scheduled out: the
 * same thing).  The clock is chosen at the entry (GF_PCPU) so that a change of
 * the option in the middle of a call does not mix them.  graph-time off: the
 * parent's psub collects its children's times and a function's own time is what
 * is left, as the kernel's profiler does.
 *
 * Counting.  Each thread has a table of its own (open addressing on (ip, cpu),
 * PROF_SLOTS entries; a full table drops calls and counts them), so the return
 * takes no lock and no atomic.  Tables are linked on one list (pushed with a
 * compare-and-swap, never freed); a thread that ends gives its table back and
 * a new thread adopts it with its counts, which are summed per process anyway.
 * A table carries the epoch it counts for: when ut_ctl.profile_epoch moves (the
 * profiler was enabled again) the owner clears it at its next count.
 *
 * Exposing.  utracefs asks by bumping ut_ctl.profile_req; the control thread,
 * applying that generation, sends every table of the current epoch as
 * UT_MSG_PROFILE packets before its ACK (ut_prof_report), so that when the
 * daemon's wait for ACKs ends it has every live process's counts; the runtime
 * also sends them at exit().  Counts are read while owners write them: a figure
 * can be one call behind, never torn (aligned 64-bit stores).
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <time.h>

#include "graph.h"
#include "profile.h"
#include "rt.h"
#include "ut_wire.h"

#define PROF_SLOTS 4096u /* a power of two */

struct prof_tab {
	struct prof_tab *next;
	uint32_t epoch;
	uint32_t free; /* 1: its thread ended; a new thread may take it */
	uint64_t dropped;
	struct ut_prof_rec e[PROF_SLOTS]; /* hits == 0: unused */
};

_Static_assert(offsetof(struct prof_tab, epoch) == 8, "graph.S TAB_EPOCH");
_Static_assert(offsetof(struct prof_tab, e) == 24, "graph.S TAB_E");
_Static_assert(sizeof(struct ut_prof_rec) == 40, "graph.S REC_SIZE");
_Static_assert(offsetof(struct ut_prof_rec, hits) == 16, "graph.S REC_HITS");
_Static_assert(offsetof(struct ut_prof_rec, time_ns) == 24, "graph.S REC_TIME");
_Static_assert(offsetof(struct ut_prof_rec, sq_ns) == 32, "graph.S REC_SQ");
_Static_assert(PROF_SLOTS == 4096, "graph.S PROF_SLOTS, the hash's >> 52");

static struct prof_tab *tabs;
/* the calling thread's table: graph.S reads it (ut_prof_mine@gottpoff) */
__thread struct prof_tab *ut_prof_mine __attribute__((visibility("hidden")));
static pthread_key_t tab_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static uint32_t reported_req;

static void tab_release(void *p)
{
	struct prof_tab *t = p;

	/* a count after this (a frame closed at thread exit) takes a table anew */
	ut_prof_mine = NULL;
	__atomic_store_n(&t->free, 1, __ATOMIC_RELEASE);
}

static void key_init(void)
{
	pthread_key_create(&tab_key, tab_release);
}

/* The calling thread's table: one given back by an ended thread, or a new one. */
static struct prof_tab *tab_get(void)
{
	struct prof_tab *t;

	if (ut_prof_mine)
		return ut_prof_mine;
	pthread_once(&key_once, key_init);
	for (t = __atomic_load_n(&tabs, __ATOMIC_ACQUIRE); t; t = t->next) {
		uint32_t one = 1;

		if (__atomic_compare_exchange_n(&t->free, &one, 0, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			break;
	}
	if (!t) {
		t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0);
		if (t == MAP_FAILED)
			return NULL;
		t->next = __atomic_load_n(&tabs, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&tabs, &t->next, t, 1, __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED))
			;
	}
	pthread_setspecific(tab_key, t);
	ut_prof_mine = t;
	return t;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int ut_prof_on(void)
{
	struct ut_ctl *ctl = ut_rt_ctl;

	return ctl && __atomic_load_n(&ctl->profile_on, __ATOMIC_RELAXED) && ctl->ftrace_enabled &&
	       !ut_rt_off;
}

int ut_prof_fast(void)
{
	const struct ut_ctl *ctl = ut_rt_ctl;

	return ctl && ctl->tracer == UT_TRACER_NOP &&
	       !(ctl->graph_opts & (UT_CTL_GRAPH_NOSLEEP | UT_CTL_GRAPH_SELECT)) &&
	       ctl->profile_graph_time && ctl->profile_tsc_mult && ut_prof_on();
}

uint16_t ut_prof_enter(struct ut_gframe *f)
{
	const struct ut_ctl *ctl = ut_rt_ctl;
	int cpu_clock = ctl && (ctl->graph_opts & UT_CTL_GRAPH_NOSLEEP);

	f->psub = 0;
	/* last: the time of the entry's own work is not the function's */
	f->pt0 = clock_ns(cpu_clock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC);
	return (uint16_t)(GF_PROF | (cpu_clock ? GF_PCPU : 0));
}

static void count(struct prof_tab *t, uint64_t ip, uint32_t cpu, uint64_t ns)
{
	uint32_t h = (uint32_t)((ip ^ ((uint64_t)cpu << 40)) * 0x9e3779b97f4a7c15ull >> 52);

	for (uint32_t n = 0; n < PROF_SLOTS; n++, h = (h + 1) & (PROF_SLOTS - 1)) {
		struct ut_prof_rec *r = &t->e[h];

		if (!r->hits) {
			r->ip = ip;
			r->cpu = cpu;
		} else if (r->ip != ip || r->cpu != cpu) {
			continue;
		}
		r->time_ns += ns;
		r->sq_ns += ns * ns;
		__atomic_store_n(&r->hits, r->hits + 1, __ATOMIC_RELEASE);
		return;
	}
	t->dropped++;
}

/* Count a call of ip that lasted ns in the thread's table, cleared for a new epoch. */
static void count_now(const struct ut_ctl *ctl, uint64_t ip, uint64_t ns)
{
	struct prof_tab *t = tab_get();
	uint32_t epoch;
	int cpu;

	if (!t)
		return;
	epoch = __atomic_load_n(&ctl->profile_epoch, __ATOMIC_RELAXED);
	if (t->epoch != epoch) {
		memset(t->e, 0, sizeof(t->e));
		t->dropped = 0;
		__atomic_store_n(&t->epoch, epoch, __ATOMIC_RELEASE);
	}
	cpu = ut_thr.rseq ? (int)ut_thr.rseq->cpu_id : sched_getcpu();
	count(t, ip, cpu < 0 ? 0u : (uint32_t)cpu, ns);
}

void ut_prof_exit(const struct ut_gframe *f)
{
	const struct ut_ctl *ctl = ut_rt_ctl;
	uint64_t now = clock_ns(f->flags & GF_PCPU ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC);
	uint64_t dt = now > f->pt0 ? now - f->pt0 : 0, own = dt;
	struct ut_gframe *fs = ut_thr.gframes;

	if (!ctl || !ut_prof_on())
		return;
	/* f is popped: its parent is the nearest profiled frame below, up to a marker */
	for (uint32_t i = ut_thr.gtop; fs && i > 0; i--) {
		struct ut_gframe *p = &fs[i - 1];

		if (p->flags & GF_MARKER)
			break;
		if ((p->flags & (GF_VALID | GF_PROF)) == (GF_VALID | GF_PROF)) {
			p->psub += dt;
			break;
		}
	}
	if (!ctl->profile_graph_time)
		own = f->psub < dt ? dt - f->psub : 0;
	count_now(ctl, f->ip, own);
}

void ut_prof_exit_plain(const struct ut_gframe *f)
{
	const struct ut_ctl *ctl = ut_rt_ctl;
	uint32_t lo, hi;
	uint64_t now, dt;

	if (!ut_prof_fast())
		return;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	now = ((uint64_t)hi << 32) | lo;
	dt = now > f->calltime ? now - f->calltime : 0;
	count_now(ctl, f->ip, (uint64_t)(((unsigned __int128)dt * ctl->profile_tsc_mult) >> 32));
}

/* Send every table counting for the current epoch; the first packet says so. */
static void report(const struct ut_ctl *ctl)
{
	static union {
		struct ut_msg_profile m;
		char buf[sizeof(struct ut_msg_profile) +
			 UT_PROFILE_PER_MSG * sizeof(struct ut_prof_rec)];
	} pk;
	struct ut_msg_profile *m = &pk.m;
	uint32_t epoch = __atomic_load_n(&ctl->profile_epoch, __ATOMIC_RELAXED);

	memset(m, 0, sizeof(*m));
	m->h.type = UT_MSG_PROFILE;
	m->epoch = epoch;
	m->first = 1;
	for (struct prof_tab *t = __atomic_load_n(&tabs, __ATOMIC_ACQUIRE); t; t = t->next) {
		if (__atomic_load_n(&t->epoch, __ATOMIC_ACQUIRE) != epoch)
			continue;
		for (uint32_t i = 0; i < PROF_SLOTS; i++) {
			struct ut_prof_rec *r = &m->rec[m->nr];

			r->hits = __atomic_load_n(&t->e[i].hits, __ATOMIC_ACQUIRE);
			if (!r->hits)
				continue;
			r->ip = t->e[i].ip;
			r->cpu = t->e[i].cpu;
			r->time_ns = t->e[i].time_ns;
			r->sq_ns = t->e[i].sq_ns;
			if (++m->nr == UT_PROFILE_PER_MSG) {
				m->h.len = (uint32_t)(sizeof(*m) + m->nr * sizeof(*r));
				ut_send_wait(m, m->h.len);
				m->first = 0;
				m->nr = 0;
			}
		}
	}
	m->h.len = (uint32_t)(sizeof(*m) + m->nr * sizeof(struct ut_prof_rec));
	ut_send_wait(m, m->h.len); /* even empty: the set starts anew */
}

/*
 * The control thread (a request) and the thread calling exit() both report:
 * one at a time, as report() fills one buffer and a set of packets must not mix.
 */
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

void ut_prof_report(const struct ut_ctl *ctl)
{
	uint32_t req = __atomic_load_n(&ctl->profile_req, __ATOMIC_ACQUIRE);

	pthread_mutex_lock(&report_lock);
	if (req != reported_req) {
		reported_req = req;
		report(ctl);
	}
	pthread_mutex_unlock(&report_lock);
}

void ut_prof_report_exit(void)
{
	const struct ut_ctl *ctl = ut_rt_ctl;

	pthread_mutex_lock(&report_lock);
	if (ctl && tabs)
		report(ctl);
	pthread_mutex_unlock(&report_lock);
}

void ut_prof_fork_child(void)
{
	/* the parent's counts are the parent's: the child starts from none */
	for (struct prof_tab *t = tabs; t; t = t->next)
		t->epoch = 0;
	reported_req = 0;
	pthread_mutex_init(&report_lock, NULL); /* (the parent's holder is not in the child) */
}

// SPDX-License-Identifier: MIT
/*
 * probe.c - function probes: what `FUNC:traceon`, `traceoff`, `stacktrace`, `dump`,
 * `cpudump` and `snapshot` in set_ftrace_filter do when FUNC runs (ut_sel.h).
 *
 * The control thread keeps this process's probes in a table sorted by site
 * (ut_probes_set, from the selection memfd); a site with probes is patched to
 * `call` the probe stub whatever the tracer, and ut_tramp_probe (probe.S) calls
 * ut_rt_probe_hit with every register saved.  Sites whose function events go to
 * several instances come the same way (route.c): it writes them first; so do
 * sites that function_graph instances take: it makes their shadow frame.  As in
 * the kernel:
 *   - traceon/traceoff act only when tracing is in the other state; a counted one
 *     takes one off its count only when it acts;
 *   - stacktrace records the caller chain while tracing is on; a counted one stops
 *     when its count reaches 0 (a count of -1, from `FUNC:stacktrace:`, never does);
 *   - dump acts once (count 1), cpudump on every hit: tracing goes off and
 *     utracefs writes the buffer (all CPUs, or this one) to its console;
 *   - snapshot asks utracefs to swap the buffer into the snapshot (UT_MSG_PROBE),
 *     whether tracing is on or not; a counted one stops at 0 (-1 never acts).
 *     The swap is made when utracefs reads the message: events this thread
 *     writes meanwhile may still go into the buffer swapped out.
 * Counters are shared by every process (the area memfd), so that N hits act
 * whichever processes they come from.
 *
 * A probe written to an instance's set_ftrace_filter (ut_sel_probe.inst) acts on
 * that instance, as the kernel's acts on its trace array: traceon/traceoff on its
 * tracing_on, stacktrace into its span, snapshot on its snapshot; dump and cpudump
 * dump the top level's buffer, as the kernel's ftrace_dump does.  A counted
 * stacktrace takes its count only while the top level's tracing is on, and an
 * unlimited one writes whenever its instance records (the kernel checks the global
 * tracing_is_on() for the one and nothing for the other).  An instance's
 * traceon/traceoff is told to utracefs (UT_MSG_PROBE with the slot), which sets
 * that instance's tracing_on; meanwhile this process goes by what the probe did
 * (inst_set: the C paths here, route.c and graph.c ask ut_rt_inst_on) until
 * utracefs has written tracing_on again (ut_ctl.on_seq), so that a second hit here
 * neither acts nor takes a count, as the top level's ut_rt_off does.  Sites that
 * feed that instance alone from the assembly fast path (route.c) stop when
 * utracefs has applied it.
 *
 * The table is replaced while other threads may be reading it: a reader counts
 * itself in `readers` before it loads the pointer, and the control thread waits
 * for readers to drain before it unmaps a table it replaced.  A reader never
 * comes back when a signal handler that interrupted it jumped away: after
 * READERS_WAIT_MS the old table is left mapped (a few pages, and only then).  A
 * fork child starts with no reader (only the forking thread goes on).
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "rt.h"
#include "ut_sel.h"
#include "ut_wire.h"

struct probe_ent {
	uint32_t site; /* index in ut_sites */
	uint32_t cmd;  /* enum ut_probe_cmd */
	uint32_t slot; /* counter slot, or UT_PROBE_UNLIMITED */
	uint32_t inst; /* instance slot (0: the top level) */
};

struct probe_tab {
	size_t size; /* bytes mapped */
	uint32_t nr;
	struct probe_ent e[];
};

/* probes of one site taken at a time (6 commands, counted or not, per instance) */
#define HIT_MAX 16
#define READERS_WAIT_MS 100

static struct probe_tab *cur_tab;
static uint32_t readers;
/* by instance slot: what its traceon/traceoff probe made it here: (on_seq + 1) << 1 | on, 0 none */
static uint64_t inst_set[UT_INST_MAX];
static uint8_t inst_busy[UT_INST_MAX]; /* a thread is turning it on or off (turn) */

static struct probe_tab *tab_alloc(uint32_t nr)
{
	size_t size = sizeof(struct probe_tab) + (size_t)nr * sizeof(struct probe_ent);
	struct probe_tab *t;

	size = (size + 4095) & ~(size_t)4095;
	t = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return NULL;
	t->size = size;
	return t;
}

/* The global index of the site (obj, site) as utracefs named it, or UINT32_MAX. */
static uint32_t site_index(uint32_t obj, uint32_t site)
{
	if (obj >= ut_nr_objs || ut_objs[obj].dead || site >= ut_objs[obj].nr)
		return UINT32_MAX;
	return ut_objs[obj].first + site;
}

/* Wait until no thread reads a table: true, or false after READERS_WAIT_MS. */
static bool readers_drained(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (__atomic_load_n(&readers, __ATOMIC_SEQ_CST)) {
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >=
		    READERS_WAIT_MS)
			return false;
	}
	return true;
}

/* Shell sort (no libc: its qsort may allocate with the program's malloc). */
static void sort_by_site(struct probe_ent *e, uint32_t n)
{
	for (uint32_t gap = n / 2; gap; gap /= 2)
		for (uint32_t i = gap; i < n; i++) {
			struct probe_ent x = e[i];
			uint32_t j = i;

			for (; j >= gap && e[j - gap].site > x.site; j -= gap)
				e[j] = e[j - gap];
			e[j] = x;
		}
}

/* Is site s one of an object marked in keep? */
static bool kept(uint32_t s, const uint8_t *keep)
{
	for (uint32_t i = 0; keep && i < ut_nr_objs; i++)
		if (keep[i] && s >= ut_objs[i].first && s < ut_objs[i].first + ut_objs[i].nr)
			return true;
	return false;
}

int ut_probes_set(const struct ut_sel_probe *p, uint32_t nr, const uint8_t *keep)
{
	struct probe_tab *t = NULL, *old = cur_tab; /* only this thread replaces it */
	uint32_t nkeep = 0;
	int err = 0;

	for (uint32_t i = 0; old && keep && i < old->nr; i++)
		nkeep += kept(old->e[i].site, keep);
	if (nr + nkeep) {
		t = tab_alloc(nr + nkeep);
		if (!t) {
			err = -ENOMEM;
		} else {
			t->nr = 0;
			for (uint32_t i = 0; old && keep && i < old->nr; i++)
				if (kept(old->e[i].site, keep))
					t->e[t->nr++] = old->e[i];
			for (uint32_t i = 0; i < nr; i++) {
				uint32_t s = site_index(p[i].obj, p[i].site);

				if (s == UINT32_MAX || kept(s, keep) || !p[i].cmd ||
				    p[i].cmd > UT_PROBE_CMD_MAX || p[i].inst >= UT_INST_MAX ||
				    (p[i].slot != UT_PROBE_UNLIMITED && p[i].slot >= UT_PROBE_SLOTS))
					continue;
				t->e[t->nr++] =
				    (struct probe_ent){s, p[i].cmd, p[i].slot, p[i].inst};
			}
			sort_by_site(t->e, t->nr);
		}
	}
	old = __atomic_exchange_n(&cur_tab, t, __ATOMIC_SEQ_CST);
	if (old && readers_drained())
		munmap(old, old->size);
	return err;
}

void ut_probes_after_fork_child(void)
{
	__atomic_store_n(&readers, 0, __ATOMIC_SEQ_CST);
	/* only the forking thread goes on: none is turning an instance on or off */
	for (unsigned int i = 0; i < UT_INST_MAX; i++)
		__atomic_store_n(&inst_busy[i], 0, __ATOMIC_RELAXED);
}

/* The probes of site s from its from-th on, at most HIT_MAX, copied out of the current table. */
static uint32_t probes_of(uint32_t s, uint32_t from, struct probe_ent *out)
{
	struct probe_tab *t;
	uint32_t n = 0, lo = 0, hi;

	__atomic_add_fetch(&readers, 1, __ATOMIC_SEQ_CST);
	t = __atomic_load_n(&cur_tab, __ATOMIC_SEQ_CST);
	if (t) {
		hi = t->nr;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (t->e[mid].site < s)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (lo += from; lo < t->nr && t->e[lo].site == s && n < HIT_MAX; lo++)
			out[n++] = t->e[lo];
	}
	__atomic_sub_fetch(&readers, 1, __ATOMIC_SEQ_CST);
	return n;
}

static int64_t *counter(const struct ut_ctl *ctl, uint32_t slot)
{
	uint64_t off = ut_probe_counts_off(ut_rt_nr_cpus) + (uint64_t)slot * 8;

	if (ctl->nr_cpus != ut_rt_nr_cpus || off + 8 > ut_rt_area_size)
		return NULL;
	return (int64_t *)((char *)ctl + off);
}

/*
 * Take one off the probe's count: true when it acts.  An unlimited probe always
 * acts; stop_negative: a count <= 0 stops it (else only 0 does, as the kernel's
 * stacktrace does).
 */
static bool take(const struct ut_ctl *ctl, const struct probe_ent *e, bool stop_negative)
{
	int64_t *c, old;

	if (e->slot == UT_PROBE_UNLIMITED)
		return true;
	c = counter(ctl, e->slot);
	if (!c)
		return false;
	old = __atomic_load_n(c, __ATOMIC_RELAXED);
	do {
		if (old == 0 || (stop_negative && old < 0))
			return false;
	} while (!__atomic_compare_exchange_n(c, &old, old - 1, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return true;
}

/*
 * Ask utracefs to act: dump (tracing goes off first, as the kernel's), snapshot,
 * or an instance's traceon/traceoff.
 */
static void send_probe(const struct probe_ent *e, uintptr_t ip)
{
	struct ut_msg_probe m = {.h = {UT_MSG_PROBE, sizeof(m)},
				 .cmd = e->cmd,
				 .cpu = sched_getcpu(),
				 .tid = (int32_t)ut_thr.tid,
				 .inst = e->inst,
				 .ip = ip};

	/*
	 * The kernel's dump leaves the top level's tracing off, whichever instance
	 * its probe is in: this process at once, the others when utracefs reads the
	 * message (it turns tracing_on off before it dumps).
	 */
	if (e->cmd == UT_PROBE_DUMP || e->cmd == UT_PROBE_CPUDUMP)
		ut_rt_off = 1;
	if (ut_send(&m, sizeof(m)))
		__atomic_fetch_add(&ut_rt_lost, 1, __ATOMIC_RELAXED);
}

int ut_rt_inst_on(const struct ut_ctl *ictl, unsigned int slot)
{
	uint64_t set = slot < UT_INST_MAX ? __atomic_load_n(&inst_set[slot], __ATOMIC_RELAXED) : 0;
	uint32_t seq = __atomic_load_n(&ictl->on_seq, __ATOMIC_ACQUIRE);

	if (set && set >> 1 == (uint64_t)seq + 1)
		return (int)(set & 1);
	return __atomic_load_n(&ictl->tracing_on, __ATOMIC_RELAXED) != 0;
}

/*
 * traceon (want) or traceoff: acts only when tracing is in the other state, the
 * top level's as the program's own tracing_on()/off().  Threads of this process
 * that hit an instance's at once: one acts, the others find it busy and do
 * nothing (it is being put in the state they would put it in), so that its count
 * goes down once per change, as the kernel's does.
 */
static void turn(struct ut_ctl *top, struct ut_ctl *ctl, const struct probe_ent *e, uintptr_t ip,
		 bool want)
{
	uint64_t seq;

	if (!e->inst) {
		bool on = __atomic_load_n(&top->tracing_on, __ATOMIC_RELAXED) && !ut_rt_off;

		if (on != want && take(top, e, true)) {
			if (want)
				utrace_tracing_on();
			else
				utrace_tracing_off();
		}
		return;
	}
	if (__atomic_exchange_n(&inst_busy[e->inst], 1, __ATOMIC_ACQUIRE))
		return;
	seq = __atomic_load_n(&ctl->on_seq, __ATOMIC_ACQUIRE);
	if ((ut_rt_inst_on(ctl, e->inst) != 0) != want && take(top, e, true)) {
		__atomic_store_n(&inst_set[e->inst], (seq + 1) << 1 | want, __ATOMIC_RELAXED);
		send_probe(e, ip);
	}
	__atomic_store_n(&inst_busy[e->inst], 0, __ATOMIC_RELEASE);
}

static void act(struct ut_ctl *top, const struct probe_ent *e, uintptr_t *frame, uintptr_t fp)
{
	bool top_on = __atomic_load_n(&top->tracing_on, __ATOMIC_RELAXED) && !ut_rt_off;
	struct ut_ctl *ctl = e->inst ? ut_rt_slot_area(top, e->inst) : top;
	bool records;

	if (!ctl)
		return;
	/* its events stop with tracing_off() here too, as route.c's */
	records = (e->inst ? ut_rt_inst_on(ctl, e->inst) : top_on) && !ut_rt_off;
	switch (e->cmd) {
	case UT_PROBE_TRACEON:
	case UT_PROBE_TRACEOFF:
		turn(top, ctl, e, frame[0], e->cmd == UT_PROBE_TRACEON);
		break;
	case UT_PROBE_STACKTRACE:
		/* a counted one: only while the top level's tracing is on (see above) */
		if (e->slot != UT_PROBE_UNLIMITED && !(top_on && take(top, e, false)))
			break;
		if (records)
			ut_rt_stack_event(frame, fp, ctl);
		break;
	case UT_PROBE_DUMP:
	case UT_PROBE_CPUDUMP:
	case UT_PROBE_SNAPSHOT: /* whether tracing is on or not, as the kernel's */
		if (take(top, e, true))
			send_probe(e, frame[0]);
		break;
	}
}

/* Does the current tracer trace site s? */
static bool traced(const struct ut_site *s)
{
	enum ut_site_state want = ut_patch_current_want();

	return (s->sel & UT_SEL_TRACE) && (want == UT_SITE_CALL || want == UT_SITE_JMP);
}

/* Where the site goes on after its probes: probe.S. */
static uintptr_t go_on(const struct ut_site *s, const struct ut_obj *o)
{
	if (!traced(s))
		return 0;
	if (ut_patch_current_want() == UT_SITE_JMP && o->gstub)
		return (o->gstub + (uintptr_t)(s - (ut_sites + o->first)) * UT_GSTUB_LEN) | 1;
	return ut_stubs_tramp();
}

uintptr_t ut_rt_probe_hit(uintptr_t *frame, uintptr_t fp)
{
	struct probe_ent e[HIT_MAX];
	struct ut_ctl *ctl = ut_rt_ctl;
	struct ut_obj *o;
	struct ut_site *s = ut_site_find(frame[0] - 5, &o);
	int saved = errno;
	bool function_done = false;
	uint32_t n;

	if (!s)
		return 0;
	if (ut_stack_site(s))
		ut_stack_check(frame, fp); /* the stack tracer, whatever else takes the site */
	/* a thread's first event names it; not inside our own slow paths */
	if (!ctl || ut_thr.guard || ut_notrace_now() || !(ut_thr.tid || ut_rt_thread_first())) {
		errno = saved;
		return go_on(s, o);
	}
	/*
	 * The function tracer's event first, then what the probes do, as in the
	 * kernel when the tracer was switched on after the probes were set (the
	 * newest ftrace_ops runs first): a traceoff probe's own call is in the trace.
	 * function_graph's entry comes after them (its trampoline writes it).
	 */
	/* the instances the site feeds (route.c), then the top level's */
	ut_route_write((uint32_t)(s - ut_sites), frame, fp);
	if (ctl->tracer == UT_TRACER_FUNCTION && traced(s)) {
		if (ctl->tracing_on && !ut_rt_off && ut_rt_task_ok())
			ut_rt_func_locked(frame, fp, ctl); /* C's writer, any write mode */
		function_done = true;
	}
	for (uint32_t k = 0; (n = probes_of((uint32_t)(s - ut_sites), k, e)); k += n) {
		for (uint32_t i = 0; i < n; i++)
			act(ctl, &e[i], frame, fp);
		if (n < HIT_MAX)
			break;
	}
	if (ut_route_gmask((uint32_t)(s - ut_sites))) {
		/*
		 * function_graph instances take the site: their entry, and the top's
		 * when it graphs the site too, is one shadow frame made here (graph.c);
		 * frame[1] is the function's return address.
		 */
		ut_graph_entry_routed(&frame[1], frame[0], (uint32_t)(s - ut_sites),
				      ctl->tracer == UT_TRACER_FUNCTION_GRAPH && traced(s));
		errno = saved;
		return 0;
	}
	errno = saved;
	return function_done ? 0 : go_on(s, o);
}

// SPDX-License-Identifier: MIT
/*
 * route.c - which instances (instances/NAME) each site's function events go to,
 * from the instance entries of this process's section of the selection memfd
 * (ut_sel.h ut_sel_inst).
 *
 * The control thread keeps two masks per site (bit slot - 1: the instances whose
 * tracer is `function`, resp. `function_graph`, and whose set_ftrace_filter/
 * notrace take the site) and, per instance, which of this process's threads it
 * records (its pid lists).
 * patch.c then makes a site:
 *   - that feeds the top level alone: `call stub`, as without instances;
 *   - that feeds one instance i alone, which records every thread while the
 *     top's pid lists take every thread too (so that the trampoline's per-thread
 *     check, the top's, says yes): `call stub + UT_INST_STUB_OFF(i)`, which loads
 *     instance i's span into r11 and enters ut_tramp_function after its own load
 *     of the top's (stubs.c): the same fast path with one instruction more,
 *     reading that instance's tracing_on and options from its control page;
 *   - that feeds one function_graph instance alone (no function instance, not
 *     the top), which records every thread while the top's pid lists do too:
 *     `jmp` to the site's instance entry (stubs.c), whose trampoline (graph.S
 *     ut_tramp_graph_isite) finds the instance from the site's graph mask and
 *     keeps its frames and writes its entries and exits in assembly, as the top's;
 *   - that feeds several, or an instance that records only some threads, or a
 *     function_graph instance besides others: the probe stub, whose C (probe.c)
 *     writes the event into each function instance here (ut_route_write), then
 *     the top's as before, then enters the graph of every graph instance (and of the top, if
 *     it graphs the site) in one shadow frame (graph.c ut_graph_entry_routed).
 * A graph frame lives on after its instance stopped graphing (tracer switch,
 * rmdir): each time a slot stops being a graph instance here, ut_route_gone[slot]
 * takes a new generation, and a frame entered before (graph.c and graph.S keep
 * ut_route_gen of its entry) writes no exit there.
 * The masks are read by any thread (64-bit loads) while the control thread
 * rewrites them.  The thread lists are kept twice: the control thread writes the
 * copy readers do not use, then makes it current (task_seq + 1, whose low bit
 * names the current copy); a reader retries only when task_seq moved while it
 * read.  So a control thread preempted while it writes (a loaded machine can keep
 * it off the CPU for milliseconds) never makes a reader wait or give up.
 */
#include <sys/mman.h>

#include "rt.h"
#include "selread.h"

struct route_tasks {
	uint32_t tasks; /* enum ut_sel_tasks; NONE: the instance takes nothing from us */
	uint32_t nr;
	int32_t tids[UT_SEL_TIDS_MAX];
};

/*
 * By site index: UT_MAX_SITES function masks, then as many graph masks (reserved,
 * zero).  graph.S's entry and return of one graph instance read these four
 * themselves (ut_route_gslot[slot]: the slot is a graph instance here; gen, gone:
 * below).
 */
uint64_t *ut_route_masks;
static struct route_tasks tasks[2][UT_INST_MAX]; /* [task_seq & 1]: current */
uint8_t ut_route_gslot[UT_INST_MAX];		 /* the slot is a function_graph instance here */
uint32_t ut_route_gen, ut_route_gone[UT_INST_MAX];
static uint32_t task_seq;
static int top_all; /* the top's pid lists record every thread of ours */
int ut_routes_live; /* ftrace_enabled: instances take events */

static int masks_ready(void)
{
	void *m;

	if (ut_route_masks)
		return 1;
	m = mmap(NULL, 2 * (size_t)UT_MAX_SITES * sizeof(*ut_route_masks), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return 0;
	__atomic_store_n(&ut_route_masks, (uint64_t *)m, __ATOMIC_RELEASE);
	return 1;
}

static void tasks_store(const struct ut_sel_copy *c)
{
	static uint8_t listed[UT_INST_MAX];
	uint32_t seq = task_seq; /* only this thread writes it */
	struct route_tasks *next = tasks[(seq + 1) & 1];

	for (unsigned int s = 0; s < UT_INST_MAX; s++)
		listed[s] = 0;
	for (uint32_t k = 0; c && k < c->nr_insts; k++) {
		const struct ut_sel_inst *e = &c->insts[k];
		struct route_tasks *t = &next[e->slot];

		listed[e->slot] = 1;
		for (uint32_t i = 0; i < e->nr_tids; i++)
			__atomic_store_n(&t->tids[i], c->itids[e->tids_off + i], __ATOMIC_RELAXED);
		__atomic_store_n(&t->nr, e->nr_tids, __ATOMIC_RELAXED);
		__atomic_store_n(&t->tasks, e->tasks, __ATOMIC_RELAXED);
	}
	for (unsigned int s = 1; s < UT_INST_MAX; s++)
		if (!listed[s])
			__atomic_store_n(&next[s].tasks, UT_SEL_TASKS_NONE, __ATOMIC_RELAXED);
	__atomic_store_n(&task_seq, seq + 1, __ATOMIC_RELEASE);
}

/* Which slots are graph instances now; those that stopped get a new generation. */
static void graph_slots_store(const struct ut_sel_copy *c)
{
	uint8_t now[UT_INST_MAX] = {0};

	for (uint32_t k = 0; c && k < c->nr_insts; k++)
		if (c->insts[k].tracer == UT_TRACER_FUNCTION_GRAPH)
			now[c->insts[k].slot] = 1;
	for (unsigned int s = 1; s < UT_INST_MAX; s++) {
		if (ut_route_gslot[s] && !now[s]) {
			uint32_t g = __atomic_add_fetch(&ut_route_gen, 1, __ATOMIC_RELEASE);

			__atomic_store_n(&ut_route_gone[s], g, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&ut_route_gslot[s], now[s], __ATOMIC_RELEASE);
	}
}

void ut_route_load(const struct ut_sel_copy *c, int top_records_all)
{
	top_all = top_records_all;
	tasks_store(c);
	if (!masks_ready()) {
		graph_slots_store(NULL);
		return;
	}
	for (uint32_t i = 0; i < ut_nr_objs; i++) {
		const struct ut_obj *o = &ut_objs[i];
		const struct ut_sel_obj *so = NULL;

		if (o->dead)
			continue;
		for (uint32_t j = 0; c && j < c->nr_objs; j++)
			if (c->objs[j].obj == i && c->objs[j].base == o->base &&
			    c->objs[j].nr_sites == o->nr)
				so = &c->objs[j];
		for (uint32_t k = 0; k < o->nr; k++) {
			uint64_t m = 0, g = 0;

			for (uint32_t e = 0; so && e < c->nr_insts; e++) {
				const struct ut_sel_inst *in = &c->insts[e];

				if (!(c->iflags[in->flags_off + so->flags_off + k] & UT_SEL_TRACE))
					continue;
				if (in->tracer == UT_TRACER_FUNCTION_GRAPH)
					g |= 1ull << (in->slot - 1);
				else
					m |= 1ull << (in->slot - 1);
			}
			__atomic_store_n(&ut_route_masks[o->first + k], m, __ATOMIC_RELAXED);
			__atomic_store_n(&ut_route_masks[UT_MAX_SITES + o->first + k], g,
					 __ATOMIC_RELAXED);
		}
	}
	graph_slots_store(c);
}

void ut_route_clear(uint32_t first, uint32_t nr)
{
	for (uint32_t k = 0; ut_route_masks && k < nr; k++) {
		__atomic_store_n(&ut_route_masks[first + k], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&ut_route_masks[UT_MAX_SITES + first + k], 0, __ATOMIC_RELAXED);
	}
}

uint64_t ut_route_mask(uint32_t site)
{
	uint64_t *m = __atomic_load_n(&ut_route_masks, __ATOMIC_ACQUIRE);

	return m && ut_routes_live ? __atomic_load_n(&m[site], __ATOMIC_RELAXED) : 0;
}

uint64_t ut_route_gmask(uint32_t site)
{
	uint64_t *m = __atomic_load_n(&ut_route_masks, __ATOMIC_ACQUIRE);

	return m && ut_routes_live ? __atomic_load_n(&m[UT_MAX_SITES + site], __ATOMIC_RELAXED) : 0;
}

int ut_route_graph_any(void)
{
	if (!ut_routes_live)
		return 0;
	for (unsigned int s = 1; s < UT_INST_MAX; s++)
		if (__atomic_load_n(&ut_route_gslot[s], __ATOMIC_RELAXED))
			return 1;
	return 0;
}

uint32_t ut_route_ggen(void)
{
	return __atomic_load_n(&ut_route_gen, __ATOMIC_ACQUIRE);
}

int ut_route_graph_since(unsigned int slot, uint32_t gen)
{
	return slot && slot < UT_INST_MAX &&
	       __atomic_load_n(&ut_route_gslot[slot], __ATOMIC_ACQUIRE) &&
	       (int32_t)(__atomic_load_n(&ut_route_gone[slot], __ATOMIC_ACQUIRE) - gen) <= 0;
}

int ut_route_multi(uint64_t mask)
{
	if (!mask || !top_all)
		return 0;
	for (; mask; mask &= mask - 1) {
		unsigned int slot = (unsigned int)__builtin_ctzll(mask) + 1;

		if (__atomic_load_n(&ut_route_gslot[slot], __ATOMIC_RELAXED))
			return 0; /* a graph instance: the C path (graph.c) */
		if (tasks[task_seq & 1][slot].tasks != UT_SEL_TASKS_ALL)
			return 0; /* it picks threads: ut_route_records, in C */
	}
	return 1;
}

unsigned int ut_route_single(uint64_t mask)
{
	if (mask & (mask - 1) || !ut_route_multi(mask))
		return 0;
	return (unsigned int)__builtin_ctzll(mask) + 1;
}

int ut_route_graph_single(uint64_t fmask, uint64_t gmask)
{
	unsigned int slot;

	if (fmask || !gmask || (gmask & (gmask - 1)) || !top_all)
		return 0;
	slot = (unsigned int)__builtin_ctzll(gmask) + 1;
	return ut_route_gslot[slot] && tasks[task_seq & 1][slot].tasks == UT_SEL_TASKS_ALL;
}

/* Does the instance of slot record this thread? (any thread, any time) */
int ut_route_records(unsigned int slot)
{
	int32_t tid = (int32_t)ut_thr.tid;

	for (int tries = 0; tries < 1000; tries++) {
		uint32_t s = __atomic_load_n(&task_seq, __ATOMIC_ACQUIRE);
		const struct route_tasks *t = &tasks[s & 1][slot];
		int on = ut_sel_tasks_take(__atomic_load_n(&t->tasks, __ATOMIC_RELAXED), t->tids,
					   __atomic_load_n(&t->nr, __ATOMIC_RELAXED), tid);

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&task_seq, __ATOMIC_RELAXED) == s)
			return on;
	}
	return 0;
}

void ut_route_write(uint32_t site, uintptr_t *frame, uintptr_t fp)
{
	struct ut_ctl *top = ut_rt_ctl;
	uint64_t m = ut_route_mask(site);

	while (top && m) {
		unsigned int slot = (unsigned int)__builtin_ctzll(m) + 1;
		struct ut_ctl *ctl = ut_rt_slot_area(top, slot);

		m &= m - 1;
		if (ctl && ut_rt_inst_on(ctl, slot) && !ut_rt_off && ut_route_records(slot))
			ut_rt_func_locked(frame, fp, ctl);
	}
}

// SPDX-License-Identifier: MIT
/*
 * graph.c - the function_graph tracer: each thread's shadow return stack.
 *
 * With ctl->tracer == UT_TRACER_FUNCTION_GRAPH every site jumps to its own stub
 * (stubs.c), which calls ut_tramp_graph_site (graph.S); in objects that have no
 * per-site stubs the site calls the object's stub, which points at ut_tramp_graph.
 * At a function's entry the trampoline writes a gent event, pushes a frame {slot
 * (where the return address lives), original return address, ip, calltime, the
 * landing, ...} and stores the frame's landing into the slot: the C of the site's
 * stub, a `jmp ut_return_to_handler` that the return stack predictor expects
 * (stubs.c), or ut_return_to_handler itself without per-site stubs.  The
 * function's `ret` then goes to ut_return_to_handler, which pops the frame, writes
 * the gret event and returns to the original address (with `ret`, predicted, when
 * the frame came through a per-site stub).  graph.S does the common cases without
 * C, for the top level and for a site that one function_graph instance takes
 * alone (route.c; its frames are GF_IONE, graph.h); this file does everything
 * else and all the bookkeeping.
 *
 * The stack: UT_GRAPH_STACK_MAX frames of 64 bytes, mmap'd at the thread's first
 * traced call (ut_thr.gframes, ut_thr.gtop), freed by a pthread key destructor at
 * thread exit (which also writes the exits of frames left behind, e.g. by
 * cancellation).  A full stack: the call is not traced, ut_thr.goverrun counts it
 * and every later gret carries the count (markers, below, may still use a few
 * spare frames beyond).  ctl->max_graph_depth: deeper calls are simply not traced.
 *
 * Signal safety.  A signal handler of the same thread may run at any instruction
 * and use the stack above the top.  So a push raises the top first and fills the
 * frame (flags 0 = "not a frame yet"), marking it valid last; a pop copies the
 * frame, clears its flags, then lowers the top.  A wrapped handler (interpose.c)
 * pushes a marker frame and pops back to it when it returns; nothing ever closes a
 * frame across a marker except a jump that leaves the handler (longjmp).  The
 * marker keeps the guard the handler found: a jump out of a handler that
 * interrupted the runtime (a stack overflow inside ut_graph_entry) clears it.
 *
 * Dead frames.  Frames whose function was left without returning through
 * ut_return_to_handler (longjmp, exceptions, cancellation) are found by their slot:
 * stacks grow down, so at an entry with slot S every frame above the last marker
 * with slot < S is dead, and so is one with slot == S unless S still holds that
 * frame's landing (then the caller made a tail call: its frame stays and the new
 * one is pushed with the same slot; the return pops all frames of that slot).
 * At a return with slot S everything above the topmost frame of slot S is dead.
 * Dead frames get their exit, time "now".
 *
 * Unwinders must see real return addresses: the interposed _Unwind_* functions,
 * backtrace() and __cxa_begin_catch (interpose.c) restore them (restore_all) and
 * hijack again what is still alive afterwards.
 *
 * tracing_thresh: a return that comes sooner than ctl->thresh_tsc after the entry
 * removes the entry instead of writing the exit: if the entry is still the last
 * event of the CPU's current page, wpos goes back by one event (in an rseq sequence
 * on that CPU that checks the tail is still this entry, by its time stamp, and
 * bumps rb_cpu.gen before the commit, so that readers see the rewind even when a
 * new event brings wpos back to the same value); else, on that CPU, the entry becomes UT_EV_DISCARD
 * in place; from another CPU both events stay.  Inner functions return first, so
 * nested short calls unwind the tail one by one.  graph.S does the common cases
 * itself (its entry keeps post and cpu in the frame as ut_graph_entry does; its
 * return writes the exit of a long call, and rewinds the tail for a short call
 * on the entry's CPU when the entry is not its page's first event); what it
 * leaves (DISCARD, another CPU, no entry, RETADDR) comes here, to unwrite_entry.
 *
 * sleep-time off (UT_CTL_GRAPH_NOSLEEP): the entry reads CLOCK_MONOTONIC and
 * CLOCK_THREAD_CPUTIME_ID, the return reads them again; the calltime reported moves
 * later by the time spent off the CPU (converted to TSC ticks with the ratio of
 * the two intervals).  Two clock reads at each end, the CPU-time one a system
 * call (about 0.3 us): opt-in, and the asm fast paths are off meanwhile.
 *
 * fork: the child keeps a copy of the stack and of its frames, and returns through
 * them (exits without entries in its own tid; it never takes back the parent's
 * entries under thresh).  exec: the new image starts clean.
 *
 * glibc's cancellation unwinder (pthread_cancel) calls libgcc directly: it meets
 * a landing (a site stub's C, or ut_return_to_handler) as a return address, whose
 * unwind information (unwind.c) puts the original return addresses back and sends
 * it on to the caller; the frames it unwound are closed late (below), the rest by
 * the thread-exit destructor.
 *
 * Limits.  Jumps made inside glibc (its internal
 * longjmp), stack switches the runtime does not see (hand-written ones; glibc's
 * swapcontext/setcontext are followed, graph_ctx.c) are not followed (a vfork
 * child, which shares the parent's shadow stack, traces nothing: vfork.c): dead
 * frames are then closed late, at the next entry or return below them, and a
 * return no frame knows stops the program (lost_return, with a line on
 * utracefs's console: the program's stderr is never written).  Hardware shadow
 * stacks (CET SHSTK) forbid return-address hijacking (and the site stubs' `lea
 * 8(%rsp), %rsp` after a call): the graph tracer cannot run in a process that
 * enabled them.  A tail call chain or an object without per-site stubs still
 * costs return mispredictions.
 *
 * set_graph_function and set_graph_notrace (ctl->graph_opts UT_CTL_GRAPH_SELECT,
 * the sites' sel from the selection memfd, ut_sel.h), as the kernel: with
 * set_graph_function not empty, a function is traced only inside a frame of a
 * UT_SEL_GRAPH_FUNC function (ut_thr.gfuncs counts them), or when it is one;
 * functions outside are not pushed at all, so such a function shows at depth 0.
 * A UT_SEL_GRAPH_NOTRACE function gets a silent frame (GF_SILENT: no entry, no
 * exit, ut_thr.gnotrace counts them), so that its return is seen; nothing is
 * traced while one is open.  Both counters follow the frames: ut_gpop() lowers them,
 * so longjmp, exceptions and dead frames keep them right (graph.S pops only plain
 * frames, flags == GF_VALID).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "graph.h"
#include "profile.h"
#include "rt.h"
#include "ut_ring_write.h"
#include "ut_sel.h"

_Static_assert(sizeof(struct ut_gframe) == 128, "graph.S indexes frames by << 7");
_Static_assert(sizeof(struct ut_site) == 16, "graph.S SITE_SHIFT");
_Static_assert(offsetof(struct ut_site, sel) == 11, "graph.S SITE_SEL");
_Static_assert(offsetof(struct ut_thread, gfuncs) == 40, "graph.S THR_GFUNCS");
_Static_assert(offsetof(struct ut_thread, gnotrace) == 44, "graph.S THR_GNOTRACE");
_Static_assert(GF_SILENT == 0x10 && GF_GFUNC == 0x20, "graph.S GF_SILENT, GF_GFUNC");
_Static_assert(UT_CTL_GRAPH_SELECT == 8, "graph.S GRAPH_SELECT");
_Static_assert((UT_SEL_GRAPH_FUNC | UT_SEL_GRAPH_NOTRACE) == 6, "graph.S SEL_GRAPH");
_Static_assert(offsetof(struct ut_gframe, landing) == 48, "graph.S GF_LANDING");
_Static_assert(offsetof(struct ut_gframe, cpu) == 40, "graph.S GF_CPU");
_Static_assert(offsetof(struct ut_gframe, evflags) == 42, "graph.S GF_EVFLAGS");
_Static_assert(offsetof(struct ut_gframe, depth) == 44, "graph.S GF_DEPTH");
_Static_assert(offsetof(struct ut_gframe, flags) == 46, "graph.S GF_FLAGS");
_Static_assert(offsetof(struct ut_thread, gframes) == 24, "graph.S THR_GFRAMES");
_Static_assert(offsetof(struct ut_thread, gtop) == 32, "graph.S THR_GTOP");
_Static_assert(offsetof(struct ut_thread, goverrun) == 36, "graph.S THR_GOVERRUN");
_Static_assert(offsetof(struct ut_thread, guard) == 5, "graph.S THR_GUARD");
_Static_assert(offsetof(struct ut_thread, task_ok) == 48, "tramp.S, graph.S THR_TASK_OK");
_Static_assert(offsetof(struct ut_thread, task_no) == 52, "tramp.S, graph.S THR_TASK_NO");
_Static_assert(offsetof(struct ut_gframe, mono_ns) == 64, "graph.S GF_MONO");
_Static_assert(offsetof(struct ut_gframe, imask) == 72, "graph.S GF_IMASK");
_Static_assert(offsetof(struct ut_gframe, isilent) == 80, "graph.S GF_ISILENT");
_Static_assert(offsetof(struct ut_gframe, igen) == 88, "graph.S GF_IGEN");
_Static_assert((GF_VALID | GF_INST | GF_NOTOP | GF_IONE) == 0x1181, "graph.S GF_IFRAME");
_Static_assert(UT_MAX_SITES == 1u << 22, "graph.S ROUTE_GMASKS");

int ut_graph_cas_on_cpu(struct rseq *rs, unsigned int cpu, uint64_t *addr, uint64_t e0,
			uint64_t e1, uint64_t n0);
int ut_graph_rewind_on_cpu(struct rseq *rs, unsigned int cpu, void *area, uint64_t post,
			   uint64_t pre, uint64_t calltime);

static pthread_key_t gkey;
static int gkey_ok;

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The graph tracer is on and recording in this process. */
struct ut_ctl *ut_graph_ctl(void)
{
	struct ut_ctl *ctl = ut_rt_ctl;

	if (!ctl || ctl->tracer != UT_TRACER_FUNCTION_GRAPH || !ctl->tracing_on || ut_rt_off)
		return NULL;
	return ctl;
}

int ut_graph_wanted(void)
{
	return ut_graph_ctl() || ut_route_graph_any() || ut_prof_on();
}

struct ut_gframe *ut_gs_alloc(void)
{
	void *p = mmap(NULL, GSTACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);

	if (p == MAP_FAILED)
		return NULL;
	ut_thr.gtop = 0;
	ut_thr.goverrun = 0;
	ut_thr.gfuncs = 0;
	ut_thr.gnotrace = 0;
	ut_thr.gframes = p;
	if (gkey_ok)
		pthread_setspecific(gkey, p);
	return p;
}

/* The depth of a function called now: one more than the top frame's. */
unsigned int ut_gnext_depth(struct ut_gframe *fs, uint32_t top)
{
	while (top > 0) {
		struct ut_gframe *f = &fs[--top];

		if (f->flags & GF_MARKER)
			return f->depth;
		if ((f->flags & (GF_VALID | GF_NOTOP)) == GF_VALID)
			return f->depth + 1u;
	}
	return 0;
}

/*
 * What the live frames say about the instances of want: each one's depth (the
 * frames it took: as if it ran alone), and whether one of its set_graph_function
 * (in_func) or set_graph_notrace (in_notrace) frames is open.  Frames entered
 * before an instance last stopped graphing (route.c) no longer count for it: its
 * trace starts afresh.  A walk of the stack rather than counters per thread and
 * instance: it stays right whatever pops frames (jumps, unwinders, context
 * switches) and costs the C path only.
 */
struct inst_walk {
	uint16_t depth[UT_INST_MAX];
	uint64_t in_func, in_notrace;
};

/* The instances of m that still graph as they did at generation gen. */
static uint64_t live_since(uint64_t m, uint32_t gen)
{
	uint64_t live = 0;

	for (; m; m &= m - 1)
		if (ut_route_graph_since((unsigned int)__builtin_ctzll(m) + 1, gen))
			live |= m & -m;
	return live;
}

static void inst_walk(const struct ut_gframe *fs, uint32_t top, uint64_t want,
		      struct inst_walk *w)
{
	w->in_func = w->in_notrace = 0;
	for (uint64_t m = want; m; m &= m - 1)
		w->depth[__builtin_ctzll(m) + 1] = 0;
	for (uint32_t i = 0; fs && i < top; i++) {
		const struct ut_gframe *f = &fs[i];
		uint64_t m;

		if ((f->flags & (GF_VALID | GF_MARKER | GF_INST)) != (GF_VALID | GF_INST))
			continue;
		m = live_since((f->imask | f->isilent) & want, f->igen);
		if (f->flags & GF_IGFUNC)
			w->in_func |= m & f->imask;
		w->in_notrace |= m & f->isilent;
		for (m &= f->imask; m; m &= m - 1)
			w->depth[__builtin_ctzll(m) + 1]++;
	}
}

/* Instance slot's control page while it runs function_graph and records, or NULL. */
static struct ut_ctl *inst_ctl(unsigned int slot)
{
	struct ut_ctl *ctl = ut_rt_ctl ? ut_rt_slot_area(ut_rt_ctl, slot) : NULL;

	if (!ctl || __atomic_load_n(&ctl->tracer, __ATOMIC_RELAXED) != UT_TRACER_FUNCTION_GRAPH ||
	    !ut_rt_inst_on(ctl, slot) || ut_rt_off)
		return NULL;
	if ((ctl->graph_opts & UT_CTL_GRAPH_NOIRQS) && ut_thr.sigdepth)
		return NULL;
	return ctl;
}

/* Write ev with the thread's rseq area (or the ring's lock); returns the CPU or < 0. */
static int gwrite(struct ut_ctl *ctl, struct ut_ev *ev, uint64_t *post)
{
	struct rseq *rs = ut_thr.rseq;
	int r;

	if (rs)
		return ut_rb_write_post(ctl, ut_rt_nr_cpus, ev, rs, post);
	ev->ts = rdtsc();
	r = ctl->write_mode == UT_CTL_WRITE_LOCKED ? ut_rb_write_locked(ctl, ut_rt_nr_cpus, ev)
						   : -ENOSYS;
	if (r == -ENOSYS || r == -EDEADLK || r == -EBUSY)
		__atomic_fetch_add(&ut_rt_lost, 1, __ATOMIC_RELAXED);
	return -1; /* written or not, not rewindable */
}

/*
 * tracing_thresh: take the entry of f back.  Returns 1 when it is gone (tail
 * rewound, or turned into DISCARD), 0 when it must stay (another CPU).
 */
static int unwrite_entry(struct ut_ctl *ctl, const struct ut_gframe *f)
{
	struct rseq *rs = ut_thr.rseq;
	unsigned int cpu = f->cpu - 1u, len = sizeof(struct ut_ev_gent);
	uint64_t post = f->post, pre, *ev, e0, n0;
	int r;

	if (!rs || cpu >= ut_rt_nr_cpus || rb_wpos_off(post) < len || !rb_wpos_entries(post))
		return 0;
	if (f->evflags & 0x80) /* RETADDR entry: 40 bytes */
		len += 8;
	pre = post - len - (1ull << RB_WPOS_ENT_SHIFT);
	r = ut_graph_rewind_on_cpu(rs, cpu, ctl, post, pre, f->calltime);
	if (r != 0)
		return r > 0;
	/* not the last event any more: DISCARD in place, if the page still holds it */
	ev = (uint64_t *)((char *)ut_rb_page(ctl, cpu, rb_wpos_slot(post)) + UT_RB_PAGE_HDR +
			  rb_wpos_off(post) - len);
	e0 = (uint64_t)len | ((uint64_t)UT_EV_GRAPH_ENT << 16) |
	     ((uint64_t)(f->evflags & 0x7f) << 24) | ((uint64_t)ut_thr.tid << 32);
	n0 = e0 & ~(0xffull << 16);
	return ut_graph_cas_on_cpu(rs, cpu, ev, e0, f->calltime, n0) > 0;
}

/* f's calltime as ctl reports it: sleep-time off moves it by the time off the CPU. */
static uint64_t exit_calltime(const struct ut_ctl *ctl, const struct ut_gframe *f)
{
	uint64_t calltime = f->calltime;

	if ((ctl->graph_opts & UT_CTL_GRAPH_NOSLEEP) && f->mono_ns) {
		uint64_t now = rdtsc(), cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		uint64_t mono = clock_ns(CLOCK_MONOTONIC), wall = mono - f->mono_ns;
		uint64_t off = (mono - cpu_ns) - f->off_ns; /* ns off the CPU during the call */

		if (wall && off <= wall && now > calltime)
			calltime += (uint64_t)((double)(now - calltime) * ((double)off / (double)wall));
	}
	return calltime;
}

static struct ut_ev_gret gret_event(const struct ut_gframe *f, uint64_t calltime,
				    unsigned int depth, uint64_t retval)
{
	return (struct ut_ev_gret){.h = {.len = sizeof(struct ut_ev_gret),
					 .type = UT_EV_GRAPH_RET,
					 .flags = ut_thr.evflags,
					 .tid = ut_thr.tid},
				   .ip = f->ip,
				   .calltime = calltime,
				   .depth = depth,
				   .overrun = ut_thr.goverrun,
				   .retval = retval};
}

/*
 * The exits of f in the instances that took it and still run function_graph as
 * they did then (a tracer switch or an rmdir since: route.c).  Under
 * tracing_thresh no entry was written (as the kernel's instances do), and only a
 * long call gets its exit.  f has been popped: the frames below give the depth.
 */
static void inst_exits(const struct ut_gframe *f, uint64_t retval)
{
	const struct ut_ctl *top = ut_rt_ctl;
	struct inst_walk w;
	uint64_t post;

	if (!top || !f->imask)
		return;
	inst_walk(ut_thr.gframes, ut_thr.gtop, f->imask, &w);
	for (uint64_t m = live_since(f->imask, f->igen); m; m &= m - 1) {
		unsigned int slot = (unsigned int)__builtin_ctzll(m) + 1;
		struct ut_ctl *ctl = inst_ctl(slot);
		struct ut_ev_gret ev;
		uint64_t calltime;

		if (!ctl)
			continue;
		calltime = exit_calltime(ctl, f);
		if (top->thresh_tsc && rdtsc() - calltime < top->thresh_tsc)
			continue;
		ev = gret_event(f, calltime, w.depth[slot], retval);
		gwrite(ctl, &ev.h, &post);
	}
}

/* The exit of frame f (a copy: the frame itself may be reused already). */
void ut_gwrite_exit(const struct ut_gframe *f, uint64_t retval)
{
	struct ut_ctl *ctl = ut_graph_ctl();
	struct ut_ev_gret ev;
	uint64_t calltime, post;

	if (!ut_thr.tid)
		return;
	if (f->flags & GF_PROF)
		ut_prof_exit(f);
	else if (!(f->flags & (GF_MARKER | GF_SILENT | GF_NOTOP)))
		ut_prof_exit_plain(f); /* graph.S's profiler frames, popped here */
	if (f->flags & GF_INST)
		inst_exits(f, retval);
	if (!ctl || (f->flags & (GF_SILENT | GF_NOTOP)))
		return;
	if ((ctl->graph_opts & UT_CTL_GRAPH_NOIRQS) && ut_thr.sigdepth)
		return;
	calltime = exit_calltime(ctl, f);
	if (ctl->thresh_tsc && rdtsc() - calltime < ctl->thresh_tsc) {
		if (!f->cpu)
			return; /* short, and no entry to take back */
		if (unwrite_entry(ctl, f))
			return;
	}
	ev = gret_event(f, calltime, f->depth, retval);
	gwrite(ctl, &ev.h, &post);
}

/* Pop the top frame (whatever it is); returns a copy in *out. */
void ut_gpop(struct ut_gframe *fs, struct ut_gframe *out)
{
	uint32_t top = ut_thr.gtop;
	struct ut_gframe *f = &fs[top - 1];

	*out = *f;
	barrier();
	f->flags = 0;
	barrier();
	ut_thr.gtop = top - 1;
	barrier();
	if ((out->flags & (GF_VALID | GF_SILENT)) == (GF_VALID | GF_SILENT) && ut_thr.gnotrace)
		ut_thr.gnotrace--;
	if ((out->flags & (GF_VALID | GF_GFUNC)) == (GF_VALID | GF_GFUNC) && ut_thr.gfuncs)
		ut_thr.gfuncs--;
}

/* A marker popped by a jump out of its handler: the thread is back where it was. */
void ut_gleave_marker(const struct ut_gframe *m)
{
	if (m->flags & GF_CTX)
		return; /* a context switch's: no signal state in it */
	ut_thr.sigdepth = (uint8_t)m->post;
	ut_thr.sigblocked = (uint8_t)(m->post >> 8); /* (the guard: ut_graph_longjmp) */
	ut_evflags_update();
}

/* Close frames from the top while they are dead at an entry or return with slot S. */
static void close_dead(struct ut_gframe *fs, uintptr_t S, int keep_equal)
{
	struct ut_gframe c;

	while (ut_thr.gtop > 0) {
		struct ut_gframe *f = &fs[ut_thr.gtop - 1];

		if (f->flags & GF_MARKER)
			return;
		if ((f->flags & GF_VALID) &&
		    (f->slot > S || (f->slot == S && keep_equal)))
			return;
		ut_gpop(fs, &c);
		if (c.flags & GF_VALID)
			ut_gwrite_exit(&c, 0);
	}
}

/* The frame below the top whose slot is S (the real return address of a tail call). */
static struct ut_gframe *find_slot(struct ut_gframe *fs, uintptr_t S)
{
	for (uint32_t i = ut_thr.gtop; i > 0; i--) {
		struct ut_gframe *f = &fs[i - 1];

		if ((f->flags & (GF_VALID | GF_MARKER)) == GF_VALID && f->slot == S)
			return f;
	}
	return NULL;
}

/*
 * The top level's set_graph_function/notrace rule for a call of the site with
 * flags sel: -1 not recorded, else the frame's kind (GF_SILENT, GF_GFUNC or 0).
 */
static int top_kind(const struct ut_ctl *ctl, uint8_t sel)
{
	if (!(ctl->graph_opts & UT_CTL_GRAPH_SELECT))
		return 0;
	if (ut_thr.gnotrace)
		return -1; /* inside a set_graph_notrace function */
	if (ut_sel_graph_funcs && !ut_thr.gfuncs && !(sel & UT_SEL_GRAPH_FUNC))
		return -1; /* outside every set_graph_function function */
	if (sel & UT_SEL_GRAPH_NOTRACE)
		return GF_SILENT;
	return sel & UT_SEL_GRAPH_FUNC ? GF_GFUNC : 0;
}

/*
 * The same rule for each instance of gm (set_graph_function and notrace are
 * global, the open frames each instance's own), with its tracing_on, pid lists,
 * funcgraph-irqs and max_graph_depth: the instances that record the call; those
 * it is a set_graph_notrace function of go to *silent.
 */
static uint64_t inst_take(uint64_t gm, uint8_t sel, const struct inst_walk *w, uint64_t *silent)
{
	uint32_t maxd = ut_rt_ctl ? ut_rt_ctl->max_graph_depth : 0;
	uint64_t take = 0;

	for (uint64_t m = gm; m; m &= m - 1) {
		unsigned int slot = (unsigned int)__builtin_ctzll(m) + 1;
		uint64_t bit = 1ull << (slot - 1);

		if (!inst_ctl(slot) || !ut_route_records(slot) || (w->in_notrace & bit))
			continue;
		if (ut_sel_graph_funcs && !(w->in_func & bit) && !(sel & UT_SEL_GRAPH_FUNC))
			continue;
		if (sel & UT_SEL_GRAPH_NOTRACE)
			*silent |= bit;
		else if (!maxd || w->depth[slot] < maxd)
			take |= bit;
	}
	return take;
}

/* An entry event, with the return address when ctl's funcgraph-retaddr is on. */
struct gent_ev {
	struct ut_ev_gent g;
	uint64_t retaddr;
};

static void gent_event(struct gent_ev *ev, const struct ut_ctl *ctl, uintptr_t ip,
		       unsigned int depth, uintptr_t ret)
{
	ev->g = (struct ut_ev_gent){.h = {.len = sizeof(ev->g),
					  .type = UT_EV_GRAPH_ENT,
					  .flags = ut_thr.evflags,
					  .tid = ut_thr.tid},
				    .ip = ip,
				    .depth = depth};
	if (ctl->graph_opts & UT_CTL_GRAPH_RETADDR) {
		ev->g.h.len += 8;
		ev->g.nextra = 1;
		ev->retaddr = ret;
	}
}

/* The instances' entries (none under tracing_thresh); f->calltime: the first one's. */
static void inst_entries(struct ut_gframe *f, const struct inst_walk *w)
{
	struct gent_ev ev;
	uint64_t post;

	if (!ut_rt_ctl || ut_rt_ctl->thresh_tsc)
		return;
	for (uint64_t m = f->imask; m; m &= m - 1) {
		unsigned int slot = (unsigned int)__builtin_ctzll(m) + 1;
		struct ut_ctl *ctl = inst_ctl(slot);

		if (!ctl)
			continue;
		gent_event(&ev, ctl, f->ip, w->depth[slot], f->ret);
		if (gwrite(ctl, &ev.g.h, &post) >= 0 && !f->calltime)
			f->calltime = ev.g.h.ts;
	}
}

/* Does one of the instances of m want durations without sleep (sleep-time off)? */
static int inst_nosleep(uint64_t m)
{
	for (; m; m &= m - 1) {
		struct ut_ctl *ctl = inst_ctl((unsigned int)__builtin_ctzll(m) + 1);

		if (ctl && (ctl->graph_opts & UT_CTL_GRAPH_NOSLEEP))
			return 1;
	}
	return 0;
}

/*
 * One call's entry for the top level (ctl, NULL: not for it) and the graph
 * instances of gm: one frame for all who take it.  sel: the site's flags, or -1
 * to look them up when the top needs them; igen: ut_route_ggen() read before gm.
 */
static void graph_enter(uintptr_t *slot, uintptr_t ip, uintptr_t landing, struct ut_ctl *ctl,
			uint64_t gm, int sel, uint32_t igen)
{
	uintptr_t S = (uintptr_t)slot, ret;
	struct ut_gframe *fs, *f, *tailf = NULL;
	struct gent_ev ev;
	struct inst_walk w;
	unsigned int depth = 0;
	uint32_t idx;
	int saved = errno, cpu, kind = 0; /* kind: GF_SILENT, GF_GFUNC or 0 (the top's) */
	uint64_t post = 0, take = 0, silent = 0;
	uint16_t iflags = 0, pflags = 0;
	int prof = ut_prof_on();

	if ((!ctl && !gm && !prof) || ut_thr.guard)
		return;
	if (!ut_thr.tid && !ut_rt_thread_first())
		goto out;
	if ((ctl || prof) && !ut_rt_task_ok())
		ctl = NULL, prof = 0; /* set_ftrace_pid: not this thread */
	if (!ctl && !gm && !prof)
		goto out;
	if (prof && ut_rt_ctl->tracer == UT_TRACER_FUNCTION && ut_rt_ctl->tracing_on) {
		/* the profiler sent the function tracer's sites here: its event, from C */
		uintptr_t fr[2] = {ip, *slot};

		ut_rt_func_locked(fr, 0, ut_rt_ctl);
	}
	ut_thr.guard = 1;
	if (ctl && (ctl->graph_opts & UT_CTL_GRAPH_NOIRQS) && ut_thr.sigdepth)
		ctl = NULL;
	if (!ctl && !gm && !prof)
		goto out_guard;
	fs = ut_thr.gframes;
	if (!fs && !(fs = ut_gs_alloc()))
		goto out_guard;
	ret = *slot;
	tailf = find_slot(fs, S);
	if (tailf && ret == tailf->landing) { /* a tail call from the function of that slot */
		close_dead(fs, S, 1);
		tailf = find_slot(fs, S);
		if (!tailf)
			goto out_guard; /* not ours after all: leave it alone */
		ret = tailf->ret;
	} else {
		close_dead(fs, S, 0);
	}
	if (sel < 0 && (gm || (ctl && (ctl->graph_opts & UT_CTL_GRAPH_SELECT)))) {
		struct ut_site *site = ut_site_find(ip - 5, NULL);

		sel = site ? site->sel : 0;
	}
	if (ctl && (kind = top_kind(ctl, (uint8_t)sel)) < 0)
		ctl = NULL;
	idx = ut_thr.gtop;
	if (ctl) {
		depth = ut_gnext_depth(fs, idx);
		if (ctl->max_graph_depth && depth >= ctl->max_graph_depth)
			ctl = NULL;
	}
	if (!ctl)
		kind = 0;
	if (gm) {
		inst_walk(fs, idx, gm, &w);
		take = inst_take(gm, (uint8_t)sel, &w, &silent);
		if (take | silent)
			iflags = (uint16_t)(GF_INST | (ctl ? 0 : GF_NOTOP) |
					    (sel & UT_SEL_GRAPH_FUNC ? GF_IGFUNC : 0));
		/* one instance's plain frame: graph.S's kind, on which its fast path goes on */
		if (iflags == (GF_INST | GF_NOTOP) && !silent && !(take & (take - 1)) && !prof) {
			depth = w.depth[__builtin_ctzll(take) + 1];
			iflags |= GF_IONE;
		}
	}
	if (!ctl && !iflags && !prof)
		goto out_guard;
	if (idx >= UT_GRAPH_STACK_MAX) {
		ut_thr.goverrun++;
		goto out_guard;
	}
	f = &fs[idx];
	ut_thr.gtop = idx + 1;
	barrier();
	f->flags = 0;
	barrier();
	f->slot = S;
	f->ret = ret;
	f->ip = ip;
	f->landing = landing;
	f->depth = (uint16_t)depth;
	f->evflags = ut_thr.evflags;
	f->imask = take;
	f->isilent = silent;
	f->igen = igen;
	f->calltime = 0;
	f->cpu = 0;
	f->post = 0;
	f->mono_ns = 0;
	if (ctl && kind != GF_SILENT) {
		gent_event(&ev, ctl, ip, depth, ret);
		if (ev.g.nextra)
			f->evflags |= 0x80; /* 40-byte entry (unwrite_entry) */
		cpu = gwrite(ctl, &ev.g.h, &post);
		if (cpu >= 0) {
			f->calltime = ev.g.h.ts;
			f->cpu = (uint16_t)(cpu + 1);
			f->post = post;
		}
	}
	if (take)
		inst_entries(f, &w);
	if (!f->calltime)
		f->calltime = rdtsc();
	if ((ctl && kind != GF_SILENT && (ctl->graph_opts & UT_CTL_GRAPH_NOSLEEP)) ||
	    inst_nosleep(take)) {
		uint64_t cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);

		f->mono_ns = clock_ns(CLOCK_MONOTONIC);
		f->off_ns = f->mono_ns - cpu_ns;
	}
	/*
	 * The profiler's frame: a plain one, as graph.S makes it, when the profiler
	 * is alone (profile.c); else one the top does not take (no depth: GF_NOTOP).
	 */
	if (prof && (gm || !ut_prof_fast()))
		pflags = (uint16_t)(ut_prof_enter(f) | (ctl ? 0 : GF_NOTOP));
	barrier();
	f->flags = (uint16_t)(GF_VALID | kind | iflags | pflags);
	barrier();
	if (kind == GF_SILENT)
		ut_thr.gnotrace++;
	else if (kind == GF_GFUNC)
		ut_thr.gfuncs++;
	*slot = landing;
out_guard:
	ut_thr.guard = 0;
out:
	errno = saved;
}

/*
 * The trampolines' slow path: slot = where the return address is, ip = site + 5,
 * landing = what the slot gets (graph.S).
 */
void ut_graph_entry(uintptr_t *slot, uintptr_t ip, uintptr_t landing)
{
	graph_enter(slot, ip, landing, ut_graph_ctl(), 0, -1, 0);
}

void ut_graph_entry_routed(uintptr_t *slot, uintptr_t ip, uint32_t site, int top)
{
	uint32_t igen = ut_route_ggen(); /* before the mask: route.c's order */
	uint64_t gm = ut_route_gmask(site);

	graph_enter(slot, ip, (uintptr_t)ut_return_to_handler, top ? ut_graph_ctl() : NULL, gm,
		    site < ut_nr_sites ? ut_sites[site].sel : 0, igen);
}

/*
 * graph.S's slow path for a site's entry of one instance (UT_SITE_IJMP): the
 * site's stub keeps its index 17 bytes after the landing (stubs.c); the top does
 * not take such a site.
 */
void ut_graph_entry_inst(uintptr_t *slot, uintptr_t ip, uintptr_t landing)
{
	uint32_t igen = ut_route_ggen(), site;
	uint64_t gm;

	if (ut_notrace_now())
		return; /* the runtime's own work, a vfork child: untraced, as probe.c's path */
	/*
	 * The fast path goes by this thread's answer of the top's pid lists, which
	 * take every thread while the site is UT_SITE_IJMP: it is asked here once per
	 * generation, as the top's trampolines ask it.
	 */
	ut_rt_task_ok();
	memcpy(&site, (const void *)(landing + 17), sizeof(site));
	gm = site < ut_nr_sites ? ut_route_gmask(site) : 0;
	graph_enter(slot, ip, landing, NULL, gm, site < ut_nr_sites ? ut_sites[site].sel : 0, igen);
}

/*
 * A function can no longer return here: nothing is left to guess, stop loudly (on
 * utracefs's console: the program's stderr is not ours).
 */
static void __attribute__((noreturn)) lost_return(uintptr_t S)
{
	ut_note("function_graph: no shadow frame for return slot %#lx: aborting",
		(unsigned long)S);
	abort();
}

/*
 * ut_return_to_handler's slow path: regs = the saved rbx r11 r10 r9 r8 rdi rsi rdx
 * rcx rax, then the slot (rsp at the return - 8).  Stores the original return
 * address into the slot, where the trampoline's `ret` takes it.  Returns 1 when
 * that may be a `ret` (the frame came through a per-site stub: the return stack
 * holds the caller's address), 0 for a jump.
 */
int ut_graph_return(uintptr_t *regs)
{
	uintptr_t S = (uintptr_t)&regs[10];
	struct ut_gframe *fs = ut_thr.gframes, c;
	uint8_t guard = ut_thr.guard;
	int saved = errno;
	uint32_t i;
	int use_ret;

	if (!fs)
		lost_return(S);
	for (i = ut_thr.gtop; i > 0; i--)
		if ((fs[i - 1].flags & (GF_VALID | GF_MARKER)) == GF_VALID && fs[i - 1].slot == S)
			break;
	if (i == 0)
		lost_return(S);
	ut_thr.guard = 1;
	regs[10] = fs[i - 1].ret;
	use_ret = fs[i - 1].landing != (uintptr_t)ut_return_to_handler;
	while (ut_thr.gtop > i) { /* dead above it (or handlers left without return) */
		ut_gpop(fs, &c);
		if (c.flags & GF_MARKER)
			ut_gleave_marker(&c);
		else if (c.flags & GF_VALID)
			ut_gwrite_exit(&c, 0);
	}
	/* it, and the frames of tail calls made from the same slot */
	while (ut_thr.gtop > 0) {
		struct ut_gframe *f = &fs[ut_thr.gtop - 1];

		if ((f->flags & GF_VALID) && !(f->flags & GF_MARKER) && f->slot != S)
			break;
		if (f->flags & GF_MARKER)
			break;
		ut_gpop(fs, &c);
		if (c.flags & GF_VALID)
			ut_gwrite_exit(&c, regs[9]);
	}
	ut_thr.guard = guard;
	errno = saved;
	return use_ret;
}

/* ---- signals, jumps, unwinders (called from interpose.c) ---------------------------- */

int ut_graph_sig_enter(void *ucv, uint8_t old_depth, uint8_t old_blocked)
{
	ucontext_t *uc = ucv;
	struct ut_gframe *fs = ut_thr.gframes, *f;
	uint32_t idx;
	stack_t ss;

	if (!fs) {
		struct ut_ctl *ctl = ut_rt_ctl;
		int graph = ctl && (ctl->tracer == UT_TRACER_FUNCTION_GRAPH || ut_route_graph_any() ||
				    ut_prof_on());

		if (!graph || !(fs = ut_gs_alloc()))
			return -1;
	}
	idx = ut_thr.gtop;
	if (idx >= UT_GRAPH_STACK_MAX + GSTACK_SPARE)
		return -1;
	f = &fs[idx];
	ut_thr.gtop = idx + 1;
	barrier();
	f->flags = 0;
	barrier();
	f->slot = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	f->ret = f->ip = 0;
	f->landing = 0;
	f->depth = (uint16_t)ut_gnext_depth(fs, idx);
	/* the guard too: the signal may have come inside the runtime (guard held) */
	f->post = old_depth | (uint64_t)old_blocked << 8 | (uint64_t)ut_thr.guard << 16;
	f->calltime = 0;
	f->cpu = 0;
	if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK)) {
		f->ret = (uintptr_t)ss.ss_sp;
		f->ip = (uintptr_t)ss.ss_sp + ss.ss_size;
	}
	barrier();
	f->flags = GF_MARKER | (f->ip ? GF_ALTSTACK : 0);
	barrier();
	return (int)idx;
}

void ut_graph_sig_leave(int idx)
{
	struct ut_gframe *fs = ut_thr.gframes, c;

	if (idx < 0 || !fs || ut_thr.gtop <= (uint32_t)idx || !(fs[idx].flags & GF_MARKER))
		return; /* already left (a jump out of the handler) */
	while (ut_thr.gtop > (uint32_t)idx + 1) {
		ut_gpop(fs, &c);
		if (c.flags & GF_MARKER)
			ut_gleave_marker(&c);
		else if (c.flags & GF_VALID)
			ut_gwrite_exit(&c, 0);
	}
	ut_gpop(fs, &c);
}

/*
 * The guard of the program's code in the context of the top handler (of the
 * thread's main context: 0): the guard held when that handler was entered.
 */
static uint8_t context_guard(struct ut_gframe *fs)
{
	for (uint32_t i = ut_thr.gtop; i > 0; i--)
		if ((fs[i - 1].flags & (GF_MARKER | GF_CTX)) == GF_MARKER)
			return (uint8_t)(fs[i - 1].post >> 16);
	return 0;
}

/*
 * longjmp to a context whose rsp is sp: close what it jumps over.  A jump out of a
 * handler abandons what the handler interrupted, the runtime included (a stack
 * overflow inside ut_graph_entry): the guard becomes that of the target context.
 */
void ut_graph_longjmp(uintptr_t sp)
{
	struct ut_gframe *fs = ut_thr.gframes, c;
	uint8_t guard = ut_thr.guard;
	int left = 0;

	if (!fs)
		return;
	ut_thr.guard = 1;
	while (ut_thr.gtop > 0) {
		struct ut_gframe *f = &fs[ut_thr.gtop - 1];

		if (f->flags & GF_CTX)
			break; /* another context's frames below: graph_ctx.c */
		if (f->flags & GF_MARKER) {
			int within = f->flags & GF_ALTSTACK ? sp >= f->ret && sp < f->ip : sp < f->slot;

			if (within)
				break; /* a jump inside the handler */
		} else if ((f->flags & GF_VALID) && f->slot >= sp) {
			break;
		}
		ut_gpop(fs, &c);
		if (c.flags & GF_MARKER) {
			ut_gleave_marker(&c);
			left = 1;
		} else if (c.flags & GF_VALID) {
			ut_gwrite_exit(&c, 0);
		}
	}
	ut_thr.guard = left ? context_guard(fs) : guard;
}

/* glibc x86_64: jmp_buf[6] is rsp, mangled: rol 0x11 after xor with the pointer guard. */
uintptr_t ut_graph_jmpbuf_sp(const void *env)
{
	uintptr_t v = ((const uintptr_t *)env)[6], guard;

	__asm__("movq %%fs:0x30, %0" : "=r"(guard));
	v = (v >> 0x11) | (v << (64 - 0x11));
	return v ^ guard;
}

/*
 * What a return address read at slot means: the original one when val is the
 * landing of a live frame of that slot, else val.  Reads the shadow stack only
 * (a frame being pushed or popped has flags 0 and is skipped): async-signal-safe.
 */
uintptr_t ut_graph_real_ret(uintptr_t slot, uintptr_t val)
{
	struct ut_gframe *fs = ut_thr.gframes;

	if (!fs)
		return val;
	for (uint32_t i = ut_thr.gtop; i > 0; i--) {
		const struct ut_gframe *f = &fs[i - 1];

		if ((f->flags & (GF_VALID | GF_MARKER)) == GF_VALID && f->slot == slot &&
		    f->landing == val)
			return f->ret;
	}
	return val;
}

/* Put the original return addresses back where an unwinder will read them. */
void ut_graph_restore_all(void)
{
	struct ut_gframe *fs = ut_thr.gframes;
	uintptr_t last = 0;

	if (!fs)
		return;
	for (uint32_t i = ut_thr.gtop; i > 0; i--) {
		struct ut_gframe *f = &fs[i - 1];
		uintptr_t *slot = (uintptr_t *)f->slot;

		if ((f->flags & (GF_VALID | GF_MARKER)) != GF_VALID || (f->flags & GF_RESTORED))
			continue;
		if (*slot == f->landing) {
			*slot = f->ret;
			f->flags |= GF_RESTORED;
			last = f->slot;
		} else if (f->slot == last && *slot == f->ret) {
			f->flags |= GF_RESTORED; /* the rest of a tail call chain */
		}
	}
}

/*
 * After an unwinder: frames whose slot is below sp are gone (closed); the restored
 * ones that still hold their original address are hijacked again.
 */
void ut_graph_rehijack(uintptr_t sp)
{
	struct ut_gframe *fs = ut_thr.gframes, c;
	uint8_t guard = ut_thr.guard;

	if (!fs)
		return;
	ut_thr.guard = 1;
	if (sp)
		while (ut_thr.gtop > 0) {
			struct ut_gframe *f = &fs[ut_thr.gtop - 1];

			if ((f->flags & GF_MARKER) || ((f->flags & GF_VALID) && f->slot >= sp))
				break;
			ut_gpop(fs, &c);
			if (c.flags & GF_VALID)
				ut_gwrite_exit(&c, 0);
		}
	for (uint32_t i = 0, below = 0; i < ut_thr.gtop; i++) {
		struct ut_gframe *f = &fs[i];
		uintptr_t *slot = (uintptr_t *)f->slot;
		/* a tail call chain: the frame below of the same slot hijacked it already */
		int chained = below && fs[below - 1].slot == f->slot &&
			      *slot == fs[below - 1].landing;

		if ((f->flags & (GF_VALID | GF_MARKER | GF_RESTORED)) != (GF_VALID | GF_RESTORED))
			continue;
		if (*slot == f->ret || *slot == f->landing || chained)
			*slot = f->landing;
		f->flags &= (uint16_t)~GF_RESTORED;
		below = i + 1;
	}
	ut_thr.guard = guard;
}

/*
 * Thread exit: every frame gets its exit, the stack is empty.  (pthread_exit only
 * restores the return addresses: the frames stay until here, so that the cleanup
 * handlers the unwinder runs are seen at the depth of the frame that pushed them.)
 */
void ut_graph_close_all(void)
{
	struct ut_gframe *fs = ut_thr.gframes, c;
	uint8_t guard = ut_thr.guard;

	if (!fs)
		return;
	ut_thr.guard = 1;
	while (ut_thr.gtop > 0) {
		ut_gpop(fs, &c);
		if (c.flags & GF_VALID)
			ut_gwrite_exit(&c, 0);
	}
	ut_thr.guard = guard;
}

static void thread_gone(void *p)
{
	if (p != ut_thr.gframes)
		return;
	ut_graph_close_all();
	ut_thr.gframes = NULL;
	munmap(p, GSTACK_BYTES);
}

void ut_graph_init(void)
{
	gkey_ok = pthread_key_create(&gkey, thread_gone) == 0;
}

/* fork child: its entries were written by the parent (another tid): never take them back. */
void ut_graph_after_fork_child(void)
{
	struct ut_gframe *fs = ut_thr.gframes;

	if (fs) {
		for (uint32_t i = 0; i < ut_thr.gtop; i++)
			fs[i].cpu = 0;
		if (gkey_ok)
			pthread_setspecific(gkey, fs);
	}
}

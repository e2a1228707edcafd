/* SPDX-License-Identifier: MIT */
/*
 * ut_ctl.h - the control page: the first page of each instance's span of the
 * tracing memfd (ut_ring.h); processes act on the top level's (slot 0) alone.
 *
 * utracefs owns it and is its only writer: it is a memfd of its own, sealed with
 * F_SEAL_FUTURE_WRITE, which traced processes can only map read-only.
 * It tells the runtime what to do; the runtime never trusts it for memory safety
 * (cpu numbers and sizes it reads are bounded by what it mapped).
 *
 * Changes: utracefs updates the fields, then increments `gen` and does a
 * FUTEX_WAKE (shared, not private) on it.  Each process's control thread waits on
 * `gen` (FUTEX_WAIT), applies the new state (patches or unpatches its sites) and
 * answers UT_MSG_ACK with the gen it applied.  A write to current_tracer returns
 * once every live process acknowledged, or after UT_ACK_TIMEOUT_MS.
 */
#ifndef UT_CTL_H
#define UT_CTL_H

#include <stdint.h>

#define UT_CTL_MAGIC 0x4c544375u /* "uCTL" */
/*
 * 2: function probes (ut_sel.h, UT_MSG_PROBE); 3: MAPS tsc; 4: UT_MSG_NOTE; 5: SITES tsc;
 * 6: the control page's own memfd; 7: rb_cpu.lock (tid and start time), rb_cpu.gen;
 * 8: rb_cpu.held (the reader page held back from no-overwrite writers until a read);
 * 9: UT_MSG_OBJECT; 10: one span and one control page per instance slot (UT_INST_MAX);
 * 11: UT_MSG_EVENT and the events memfd (ut_event.h); 12: ut_sel_hdr.routed;
 * 13: ut_ctl.printk_slot; 14: ut_sel_inst.tracer (function_graph in instances);
 * 15: event filters after the events memfd's table (ut_event.h, ut_evfilter.h);
 * 16: UT_MSG_PRINTK_FMT and the bprint and bputs records;
 * 17: event pid lists in the selection (ut_sel_evpid), UT_MSG_THREAD, HELLO's ptid;
 * 18: function probes in instances (ut_sel_probe.inst, ut_msg_probe.inst, ut_ctl.on_seq)
 * 19: the stack tracer (ut_ctl.stack_*, UT_SEL_STACK, ut_sel_hdr.stack_filtered, UT_MSG_STACK)
 * 20: the function profiler (ut_ctl.profile_*, UT_MSG_PROFILE)
 * 21: the latency tracers (UT_TRACER_LATENCY, ut_ctl.lat_*, UT_MSG_LATENCY)
 * 22: the wakeup tracers (UT_LAT_WAKEUP*, UT_LATF_ALL_TASKS, UT_EV_CTX, UT_EV_WAKE)
 */
#define UT_PROTO_VERSION 22u
#define UT_ACK_TIMEOUT_MS 2000
/* The longest a new process waits before main() for a utracefs that runs but never
 * publishes its section (runtime/control.c wait_sel_complete). */
#define UT_SEL_WAIT_MAX_MS 30000

enum ut_tracer_id {
	UT_TRACER_NOP = 0,
	UT_TRACER_FUNCTION = 1,
	UT_TRACER_FUNCTION_GRAPH = 2, /* sites call ut_tramp_graph: entry + return hijack */
	/*
	 * irqsoff, preemptoff, preemptirqsoff (ut_ctl.lat_mode says which sections
	 * count): the runtime measures sections; with ut_ctl.lat_ftrace the sites
	 * call ut_tramp_function, which records only inside a section.
	 */
	UT_TRACER_LATENCY = 3,
};

/* ut_ctl.lat_mode: what a latency section is (runtime/latency.c) */
#define UT_LAT_IRQSOFF 0x1u    /* async signals blocked, or a wrapped handler running */
#define UT_LAT_PREEMPTOFF 0x2u /* a pthread mutex, rwlock or spinlock held */
/* the wakeup tracers (runtime/wakeup.c): from a futex-based wake to the wakee's return */
#define UT_LAT_WAKEUP 0x4u     /* every wakee */
#define UT_LAT_WAKEUP_RT 0x8u  /* SCHED_FIFO, SCHED_RR and SCHED_DEADLINE wakees */
#define UT_LAT_WAKEUP_DL 0x10u /* SCHED_DEADLINE wakees */
#define UT_LAT_WAKEUPS (UT_LAT_WAKEUP | UT_LAT_WAKEUP_RT | UT_LAT_WAKEUP_DL)

/* Options the runtime acts on (the rest only change how utracefs prints). */
#define UT_CTL_OPT_FUNC_STACK_TRACE 0x1u /* write a stack event after each function event */

/* function_graph options the runtime acts on (ut_ctl.graph_opts). */
#define UT_CTL_GRAPH_NOIRQS 0x1u  /* funcgraph-irqs off: record nothing inside signal handlers */
#define UT_CTL_GRAPH_NOSLEEP 0x2u /* sleep-time off: durations leave out time off the CPU */
#define UT_CTL_GRAPH_RETADDR 0x4u /* funcgraph-retaddr: entries carry the return address */
#define UT_CTL_GRAPH_SELECT 0x8u  /* set_graph_function or set_graph_notrace set (ut_sel.h) */

/* Frames of a thread's shadow return stack; deeper calls are not traced (overrun). */
#define UT_GRAPH_STACK_MAX 1024u

/*
 * write_mode, decided once by utracefs when it creates the area: RSEQ when the
 * kernel has rseq (every writer uses it; a thread without an area loses its
 * events, counted), LOCKED when it has none (ENOSYS): every writer then takes the
 * per-CPU ring's lock word (rb_cpu.lock, ut_ring.h) instead.  The two never mix.
 */
#define UT_CTL_WRITE_RSEQ 0u
#define UT_CTL_WRITE_LOCKED 1u

struct ut_ctl {
	uint32_t magic;
	uint32_t version;
	uint32_t gen;	     /* futex word, bumped after every change */
	uint32_t tracer;     /* enum ut_tracer_id: which sites are live and where they go */
	uint32_t tracing_on; /* 0: writers record nothing (sites may stay patched) */
	uint32_t opts;	     /* UT_CTL_OPT_* */
	uint32_t nr_cpus;    /* rb_cpu entries and rings in the area */
	uint32_t trace_printk; /* option trace_printk: 0 makes trace_printk() a no-op */
	uint64_t area_size;  /* bytes of the memfd */
	uint32_t ftrace_enabled; /* master switch (issue: dynamic ftrace) */
	uint32_t write_mode; /* UT_CTL_WRITE_*: how writers without rseq serialise */
	/* function_graph */
	uint64_t thresh_tsc;	  /* tracing_thresh in TSC ticks; 0: off (see ut_ev_gent) */
	uint32_t max_graph_depth; /* 0: no limit; else functions at depth >= it are not traced */
	uint32_t graph_opts;	  /* UT_CTL_GRAPH_* */
	/* the top's page: the instance slot trace_printk() writes to (trace_printk_dest) */
	uint32_t printk_slot;
	/*
	 * Bumped (after tracing_on) each time utracefs changes tracing_on: a process
	 * where an instance's traceon/traceoff probe fired goes by what the probe
	 * did until utracefs has written tracing_on again (runtime/probe.c).
	 */
	uint32_t on_seq;
	/*
	 * The stack tracer (stack_tracer_enabled, stack_max_size): stack_on makes
	 * the sites of stack_trace_filter check the stack; stack_max is the deepest
	 * stack any process reported (so that a process reports only deeper ones);
	 * stack_epoch changes when stack_max_size is written: maxima measured
	 * before it no longer count (runtime/stack_tracer.c).
	 */
	uint32_t stack_on;
	uint32_t stack_epoch;
	uint64_t stack_max;
	/*
	 * The function profiler (function_profile_enabled, runtime/profile.c): on,
	 * whatever the tracer; epoch, bumped at each enable (the counts start from
	 * zero); req, bumped when utracefs wants every process's counts (sent as
	 * UT_MSG_PROFILE before the ACK of that generation); graph_time: the
	 * graph-time option (0: a function's time leaves out its children's).
	 */
	uint32_t profile_on;
	uint32_t profile_epoch;
	uint32_t profile_req;
	uint32_t profile_graph_time;
	/* ns per TSC tick << 32 (0: unknown): the fast paths time calls with rdtsc */
	uint64_t profile_tsc_mult;
	/*
	 * The latency tracers (UT_TRACER_LATENCY): lat_mode, UT_LAT_*; lat_ftrace:
	 * option function-trace (functions called inside a section are recorded);
	 * lat_max_tsc: tracing_max_latency in TSC ticks, what a section must exceed
	 * to be reported (with thresh_tsc set, a section of at least thresh_tsc is
	 * reported instead, as the kernel's tracing_thresh); lat_done: futex word,
	 * bumped after each UT_MSG_LATENCY is dealt with, lat_done_tid: whose
	 * (the reporting thread waits for it, so that the max buffer holds its
	 * section before it starts another one).
	 */
	uint32_t lat_mode;
	uint32_t lat_ftrace;
	uint64_t lat_max_tsc;
	uint32_t lat_done;
	int32_t lat_done_tid;
	uint32_t _reserved[990];
};
_Static_assert(sizeof(struct ut_ctl) == 4096, "ut_ctl is one page");
_Static_assert(__builtin_offsetof(struct ut_ctl, tracer) == 12, "asm uses offset 12");
_Static_assert(__builtin_offsetof(struct ut_ctl, tracing_on) == 16, "asm uses offset 16");
_Static_assert(__builtin_offsetof(struct ut_ctl, opts) == 20, "asm uses offset 20");
_Static_assert(__builtin_offsetof(struct ut_ctl, nr_cpus) == 24, "asm uses offset 24");
_Static_assert(__builtin_offsetof(struct ut_ctl, write_mode) == 44, "asm uses offset 44");
_Static_assert(__builtin_offsetof(struct ut_ctl, thresh_tsc) == 48, "asm uses offset 48");
_Static_assert(__builtin_offsetof(struct ut_ctl, max_graph_depth) == 56, "asm uses offset 56");
_Static_assert(__builtin_offsetof(struct ut_ctl, graph_opts) == 60, "asm uses offset 60");
_Static_assert(__builtin_offsetof(struct ut_ctl, stack_max) == 80, "stack_max is aligned");
_Static_assert(__builtin_offsetof(struct ut_ctl, profile_on) == 88, "asm uses offset 88");
_Static_assert(__builtin_offsetof(struct ut_ctl, profile_epoch) == 92, "asm uses offset 92");
_Static_assert(__builtin_offsetof(struct ut_ctl, profile_graph_time) == 100, "asm: offset 100");
_Static_assert(__builtin_offsetof(struct ut_ctl, profile_tsc_mult) == 104, "asm: offset 104");
_Static_assert(__builtin_offsetof(struct ut_ctl, lat_max_tsc) == 120, "lat_max_tsc is aligned");

#endif

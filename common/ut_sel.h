/* SPDX-License-Identifier: MIT */
/*
 * ut_sel.h - which sites are traced (set_ftrace_filter, set_ftrace_notrace,
 * set_graph_function, set_graph_notrace), resolved by utracefs for each process.
 *
 * The runtime knows its sites by address only; utracefs knows names (sym.c).  So:
 *   1. after attaching, and after every dlopen/dlclose, a process sends its sites
 *      object by object (UT_MSG_SITES, ut_wire.h): the object's index in the
 *      process, its path, its load base and the offset (address - base) of every
 *      site, in the order of the process's own site table;
 *   2. utracefs names them, lists them in available_filter_functions, and each
 *      time a filter file or the set of sites changes it rewrites the selection
 *      memfd: for every process a section with one flag byte per site, object by
 *      object, in the order the process sent them;
 *   3. it bumps ctl->gen (ut_ctl.h); each process's control thread reads its own
 *      section again and patches the sites whose UT_SEL_TRACE changed.
 *
 * The memfd is the second descriptor passed with WELCOME.  utracefs alone writes
 * it; processes map it read-only, for as long as they read, and check every offset
 * and count against the size they mapped.  It is rewritten in place under a
 * sequence count: hdr.seq is odd while utracefs writes; a reader takes
 * seq (even), copies what it needs, and retries when seq changed meanwhile.  Its
 * size only grows (ftruncate); hdr.size says how much is in use.
 */
#ifndef UT_SEL_H
#define UT_SEL_H

#include <stdint.h>

#include "ut_ring.h"

#define UT_SEL_MAGIC 0x4c455375u /* "uSEL" */

/* Per-site flags. */
#define UT_SEL_TRACE 0x01	  /* patch it: set_ftrace_filter empty or matching, not notrace */
#define UT_SEL_GRAPH_FUNC 0x02	  /* in set_graph_function */
#define UT_SEL_GRAPH_NOTRACE 0x04 /* in set_graph_notrace */
#define UT_SEL_PROBE 0x08	  /* function probes on it (the process's probe list) */
#define UT_SEL_STACK 0x10	  /* in stack_trace_filter (which holds when stack_filtered) */

struct ut_sel_hdr {
	uint32_t magic;
	uint32_t seq;	      /* odd while being rewritten */
	uint64_t size;	      /* bytes in use */
	uint32_t filtered;    /* set_ftrace_filter or _notrace set: a process with no
			       * section yet patches nothing (its sites are not known yet) */
	uint32_t graph_funcs; /* set_graph_function not empty: function_graph traces
			       * only functions called (directly or not) from a GRAPH_FUNC
			       * site, and those sites themselves */
	uint32_t graph_notrace; /* set_graph_notrace not empty */
	uint32_t tasks_filtered; /* set_ftrace_pid or set_ftrace_notrace_pid not empty: a
				  * process with no section yet records nothing */
	uint32_t probes; /* function probes exist: a process with no section yet waits
			  * for its own before main() as under a filter */
	uint32_t routed; /* an instance traces functions: a process with no section yet
			  * waits for its own (its routes) before main(), as under a filter */
	uint32_t nr_procs;
	uint64_t procs_off; /* nr_procs struct ut_sel_proc, sorted by pid */
	/*
	 * Event pid lists (set_event_pid, set_event_notrace_pid), bit = instance slot
	 * (word slot / 64): ev_slots, the slots with either list not empty; ev_only,
	 * those whose set_event_pid is not empty; ev_fork, those of ev_slots with
	 * event-fork set.  A process with no section yet treats its threads as listed
	 * in neither (ev_only slots record none of them).
	 */
	uint64_t ev_slots[2];
	uint64_t ev_only[2];
	uint64_t ev_fork[2];
	uint32_t follow; /* some instance follows forks (function-fork or event-fork
			  * with its lists not empty): new threads tell utracefs
			  * (UT_MSG_THREAD, ut_wire.h) */
	uint32_t stack_filtered; /* stack_trace_filter set: only UT_SEL_STACK sites check
				  * the stack; a process with no section yet checks none */
};

/*
 * Which threads of a process record function and function_graph events
 * (set_ftrace_pid, set_ftrace_notrace_pid, resolved by utracefs per process).
 * NONE: the process patches nothing at all.  ONLY/EXCEPT: each thread looks
 * its id up in the sorted tid list (once per change, rt.h ut_thread.task_*).
 */
enum ut_sel_tasks {
	UT_SEL_TASKS_ALL = 0,	 /* every thread */
	UT_SEL_TASKS_NONE = 1,	 /* no thread */
	UT_SEL_TASKS_ONLY = 2,	 /* only the listed threads */
	UT_SEL_TASKS_EXCEPT = 3, /* every thread but the listed ones */
};
#define UT_SEL_TIDS_MAX 1024u /* listed threads per process (more: the lowest 1024 ids) */

/*
 * Does a thread selection (state, the nr sorted tids) take thread tid?  Readers of
 * a copy the control thread may be rewriting load each id once (relaxed) and
 * check their sequence count after.
 */
static inline int ut_sel_tasks_take(uint32_t state, const int32_t *tids, uint32_t nr, int32_t tid)
{
	uint32_t lo = 0, hi = nr < UT_SEL_TIDS_MAX ? nr : UT_SEL_TIDS_MAX;
	int in = 0;

	if (state == UT_SEL_TASKS_ALL || state == UT_SEL_TASKS_NONE)
		return state == UT_SEL_TASKS_ALL;
	while (lo < hi && !in) {
		uint32_t mid = lo + (hi - lo) / 2;
		int32_t v = __atomic_load_n(&tids[mid], __ATOMIC_RELAXED);

		in = v == tid;
		if (v < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return state == UT_SEL_TASKS_ONLY ? in : !in;
}

struct ut_sel_proc {
	int32_t pid;
	uint32_t nr_objs;
	uint64_t objs_off; /* nr_objs struct ut_sel_obj */
	uint32_t tasks;	   /* enum ut_sel_tasks */
	uint32_t nr_tids;  /* <= UT_SEL_TIDS_MAX */
	uint64_t tids_off; /* nr_tids int32_t, sorted ascending */
	uint32_t nr_probes; /* <= UT_SEL_PROBES_MAX */
	uint32_t nr_insts;  /* < UT_INST_MAX: the instances its function events go to */
	uint64_t probes_off; /* nr_probes struct ut_sel_probe, sorted by (obj, site, inst) */
	uint64_t insts_off;  /* nr_insts struct ut_sel_inst, by ascending slot */
	uint32_t nr_evpids;  /* <= UT_INST_MAX: one per slot of hdr.ev_slots */
	uint32_t ev_serial;  /* the last UT_MSG_THREAD serial (1: its HELLO) these lists saw */
	uint64_t evpids_off; /* nr_evpids struct ut_sel_evpid, by ascending slot */
};

/*
 * Which threads of the process record events in instance slot (its set_event_pid
 * and set_event_notrace_pid, by thread id as in the kernel: a process id names
 * its main thread alone), and whether that instance has event-fork set: then a
 * thread the process creates, or a process it forks, takes its creator's answer
 * at once (until ev_serial says utracefs has seen it, and listed it or not).
 */
struct ut_sel_evpid {
	uint32_t slot;	   /* 0 .. UT_INST_MAX - 1 */
	uint32_t tasks;	   /* enum ut_sel_tasks */
	uint32_t nr_tids;  /* <= UT_SEL_TIDS_MAX */
	uint32_t fork;	   /* event-fork */
	uint64_t tids_off; /* nr_tids int32_t, sorted ascending */
};

/*
 * Routing function events to instances (instances/NAME, slots 1..UT_INST_MAX-1).
 * The per-site flags above and the proc's tasks are the top level's.  Each
 * instance whose current_tracer is `function` or `function_graph` (`tracer`,
 * while ftrace_enabled is 1) and which records some thread of the process has an
 * entry in the process's list:
 * its own thread selection (its set_ftrace_pid and set_ftrace_notrace_pid), and
 * one byte per site (UT_SEL_TRACE or 0: its set_ftrace_filter and
 * set_ftrace_notrace), for the process's objects in the order of its ut_sel_obj
 * list, each object's nr_sites bytes one after the other.  So a site feeds the
 * top (its own flag byte and the top's tracer say) and every listed instance
 * whose byte says UT_SEL_TRACE: the runtime makes a mask of slots per site, one
 * for the function instances and one for the function_graph ones.
 * set_graph_function and set_graph_notrace are top-level files that apply to
 * every function_graph (the kernel's graph hashes are global): the top's flag
 * bytes (UT_SEL_GRAPH_*) hold them for the instances too.
 */
struct ut_sel_inst {
	uint32_t slot;	    /* 1 .. UT_INST_MAX - 1 */
	uint32_t tasks;	    /* enum ut_sel_tasks: never NONE (no entry then) */
	uint32_t nr_tids;   /* <= UT_SEL_TIDS_MAX */
	uint32_t tracer;    /* UT_TRACER_FUNCTION or UT_TRACER_FUNCTION_GRAPH */
	uint64_t tids_off;  /* nr_tids int32_t, sorted ascending */
	uint64_t flags_off; /* sum of the objects' nr_sites bytes */
};

struct ut_sel_obj {
	uint32_t obj;	   /* the process's object index, as in UT_MSG_SITES */
	uint32_t nr_sites; /* as many as the process sent for it */
	uint64_t base;	   /* the load base it sent */
	uint64_t flags_off; /* nr_sites bytes of UT_SEL_* */
};

/*
 * Function probes: the commands of set_ftrace_filter that act when a function is
 * hit (`FUNC:traceoff:3`).  Their sites carry UT_SEL_PROBE and are patched to the
 * probe trampoline whatever the tracer (nop included) and whatever set_ftrace_pid
 * says, as long as ftrace_enabled is 1; the probe acts, then the site goes on to
 * the current tracer when UT_SEL_TRACE says so.
 *
 * A counted probe (`:N`, and dump/cpudump, which act once) has a counter slot: an
 * int64 in the area memfd (ut_ctl.h, writable by processes) at
 * ut_probe_counts_off(nr_cpus) + 8 * slot.  utracefs sets it when the probe is
 * made; a process acts only when it can take one off a count > 0 (compare and
 * swap), so N hits act across all processes together, as one kernel function's
 * counter would.  A count that reached 0 stays, and reads back as count=0.
 */
enum ut_probe_cmd {
	UT_PROBE_TRACEON = 1,	 /* tracing_on() when tracing is off */
	UT_PROBE_TRACEOFF = 2,	 /* tracing_off() when tracing is on */
	UT_PROBE_STACKTRACE = 3, /* a stack trace event when tracing is on */
	UT_PROBE_DUMP = 4,	 /* tracing off, UT_MSG_PROBE: utracefs dumps every CPU */
	UT_PROBE_CPUDUMP = 5,	 /* the same, this CPU's buffer only */
	UT_PROBE_SNAPSHOT = 6,	 /* UT_MSG_PROBE: utracefs takes a snapshot (swap) */
	UT_PROBE_CMD_MAX = UT_PROBE_SNAPSHOT,
};
#define UT_PROBE_UNLIMITED 0xffffffffu /* ut_sel_probe.slot of a probe without a count */
#define UT_PROBE_SLOTS 65536u	       /* counted probes at a time, over all functions */
#define UT_SEL_PROBES_MAX 65536u       /* probes per process, over all instances */

/*
 * A probe belongs to the instance whose set_ftrace_filter it was written to
 * (inst: 0 the top level, else instances/NAME's slot), as the kernel registers a
 * probe on the trace array of its file: traceon, traceoff, stacktrace and
 * snapshot act on that instance (its control page and span, UT_MSG_PROBE with
 * its slot); dump and cpudump dump the top level's buffer from any instance, as
 * the kernel's ftrace_dump does.
 */
struct ut_sel_probe {
	uint32_t obj;  /* the process's object index, as in UT_MSG_SITES */
	uint32_t site; /* the site's index among that object's sites */
	uint32_t cmd;  /* enum ut_probe_cmd */
	uint32_t slot; /* counter slot, or UT_PROBE_UNLIMITED */
	uint32_t inst; /* instance slot, < UT_INST_MAX */
	uint32_t _pad;
};

/* The probe counters follow the last instance's span in the area memfd. */
static inline uint64_t ut_probe_counts_off(unsigned int nr_cpus)
{
	return UT_INST_MAX * ut_inst_span(nr_cpus);
}
#define UT_PROBE_COUNTS_SIZE ((uint64_t)UT_PROBE_SLOTS * 8u)

/* The whole area memfd: every instance slot's span, then the probe counters. */
static inline uint64_t ut_area_size(unsigned int nr_cpus)
{
	return ut_probe_counts_off(nr_cpus) + UT_PROBE_COUNTS_SIZE;
}

#endif

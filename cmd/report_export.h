/* SPDX-License-Identifier: MIT */
/*
 * report_export.h - the exports of `utrace report`: a Chrome/Perfetto trace-event
 * JSON file and folded stacks for flame graphs.
 *
 * The builder is fed event by event, in time order per thread, and knows nothing
 * of trace.dat: report_dat.c reads the file and calls it, the unit tests call it
 * directly.  Calls are kept per thread as a tree, so that both exports come from
 * the same nesting:
 *
 *   - an exit whose entry is not in the trace (tracing started inside the call)
 *     becomes a call of its own from its call time to its return time, and takes
 *     the calls that ended before it at a greater depth as its children;
 *   - an entry whose exit is not in the trace (tracing ended inside the call)
 *     lasts until the last time stamp the builder saw ("cut").
 */
#ifndef UT_REPORT_EXPORT_H
#define UT_REPORT_EXPORT_H

#include <stdio.h>

struct rx;

struct rx *rx_new(void);
void rx_free(struct rx *rx);

/* The name of thread TID (its comm), for the metadata of the JSON file.  0 or -ENOMEM. */
int rx_comm(struct rx *rx, int tid, const char *comm);
/* A funcgraph_entry: FUNC called at TS (ns) at DEPTH. */
int rx_entry(struct rx *rx, int tid, unsigned long long ts, const char *func, int depth);
/* A funcgraph_exit: FUNC at DEPTH, called at CALLTIME, returned at RETTIME (ns). */
int rx_exit(struct rx *rx, int tid, const char *func, int depth, unsigned long long calltime,
	    unsigned long long rettime);
/* A function event (no graph data): FUNC called by PARENT at TS. */
int rx_func(struct rx *rx, int tid, unsigned long long ts, const char *func, const char *parent);
/* Any other event NAME at TS on CPU: an instant in the JSON file. */
int rx_instant(struct rx *rx, int tid, unsigned long long ts, const char *name, int cpu);

/*
 * {"traceEvents":[...]}: "X" slices for calls (one track per thread: pid and tid
 * are both the thread's), "i" instants for function and other events, and
 * process_name/thread_name metadata.  Times in µs with ns precision.  0 or -errno.
 */
int rx_write_chrome(struct rx *rx, FILE *out);
/*
 * Folded stacks, one "a;b;c WEIGHT" line per distinct stack, sorted: with graph
 * data WEIGHT is the self time in ns of the last frame; with function events only,
 * the number of calls of "parent;func".  0 or -errno.
 */
int rx_write_folded(struct rx *rx, FILE *out);

/*
 * A summary per function: common/ut_fnstat.h's table (calls, total, self, average,
 * shortest and longest time; calls only without graph data), sorted by
 * rx_summary_sort's column (default: total time).  0 or -errno.
 */
int rx_write_summary(struct rx *rx, FILE *out);
/* The column to sort by: total, self, avg, min, max, calls or name.  0 or -EINVAL. */
int rx_summary_sort(struct rx *rx, const char *column);

#endif

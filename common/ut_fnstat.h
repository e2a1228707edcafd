/* SPDX-License-Identifier: MIT */
/*
 * ut_fnstat.h - function-duration statistics from a function_graph trace: per
 * function the calls, total, self (local), average, shortest and longest time,
 * as the "ftd" analysis of function_graph traces reports them.  One builder for
 * both readers: `utrace report --summary` feeds it from a trace.dat
 * (cmd/report_export.c), utracefs from the live buffer
 * (fs/control/graph_stat.c, trace_stat/function_graph).
 *
 * It is fed event by event, in time order per thread, and keeps only a stack of
 * open calls per thread and one row per function name, so a buffer of any size
 * costs memory for its distinct functions and its deepest stacks only.
 *
 *   - total: every call's duration, so a recursive function counts its inner
 *     calls again; self: the duration less the durations of the traced calls
 *     made inside it (what ran in the function itself, or in untraced code, or
 *     off the CPU);
 *   - an exit whose entry is not in the trace (tracing started inside the call,
 *     or tracing_thresh took the entry back) lasts from its call time to its
 *     return time; the calls one level deeper that ended since the last call at
 *     its level are its children;
 *   - an entry whose exit is not in the trace ends at the last time stamp seen
 *     (the end of the trace), or, when a shallower exit or a new entry at its
 *     depth or above comes first, there;
 *   - function events (no graph data) count calls only.
 */
#ifndef UT_FNSTAT_H
#define UT_FNSTAT_H

#include <stdio.h>

struct ut_fnstat;

/* The columns, in the order they are printed; NAME last. */
enum { UT_FNSTAT_TOTAL, UT_FNSTAT_SELF, UT_FNSTAT_AVG, UT_FNSTAT_MIN, UT_FNSTAT_MAX,
       UT_FNSTAT_CALLS, UT_FNSTAT_NAME, UT_FNSTAT_NCOLS };

struct ut_fnstat *ut_fnstat_new(void);
void ut_fnstat_free(struct ut_fnstat *s);

/* A funcgraph_entry of FUNC by thread TID at TS, at DEPTH.  0 or -ENOMEM. */
int ut_fnstat_entry(struct ut_fnstat *s, int tid, unsigned long long ts, const char *func,
		    int depth);
/* A funcgraph_exit: FUNC at DEPTH, called at CALLTIME, returned at RETTIME.  0 or -ENOMEM. */
int ut_fnstat_exit(struct ut_fnstat *s, int tid, const char *func, int depth,
		   unsigned long long calltime, unsigned long long rettime);
/* A function event (no graph data): one call of FUNC.  0 or -ENOMEM. */
int ut_fnstat_call(struct ut_fnstat *s, const char *func);

/* The column called NAME (total, self, avg, min, max, calls, name), or -EINVAL. */
int ut_fnstat_column(const char *name);
/* Its name (COL in range). */
const char *ut_fnstat_column_name(int col);

/*
 * The table, sorted by column COL, largest first (names: alphabetically; ties by
 * name): with graph data the five times ("  1.234 ms", in the largest unit that
 * keeps a digit before the point), the calls and the name; with function events
 * only, the calls and the name (COL then counts as calls unless it is name).  Calls
 * still open end at the last time stamp seen first.  0, -ENOMEM or -EIO.
 */
int ut_fnstat_write(struct ut_fnstat *s, FILE *out, int col);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * profile.h - the function profiler's counting (profile.c), called from the
 * function_graph shadow stack's entry and exit (graph.c) and the control thread.
 */
#ifndef UT_PROFILE_H
#define UT_PROFILE_H

#include <stdint.h>

#include "ut_ctl.h"

struct ut_gframe;

/* The profiler counts in this process now (ut_ctl.profile_on, ftrace_enabled). */
int ut_prof_on(void);
/* The profiler alone, as graph.S's fast paths take it: plain frames, TSC time. */
int ut_prof_fast(void);
/* Count a popped plain frame while ut_prof_fast() (C's side of graph.S's .Lr_prof). */
void ut_prof_exit_plain(const struct ut_gframe *f);
/* Stamp a frame the profiler takes; returns its flags (GF_PROF, GF_PCPU). */
uint16_t ut_prof_enter(struct ut_gframe *f);
/* Count a popped GF_PROF frame (and give its time to its parent's psub). */
void ut_prof_exit(const struct ut_gframe *f);
/* Control thread: send the counts when ctl->profile_req moved. */
void ut_prof_report(const struct ut_ctl *ctl);
/* exit(): send the counts a last time. */
void ut_prof_report_exit(void);
/* fork child: start from no counts. */
void ut_prof_fork_child(void);

#endif

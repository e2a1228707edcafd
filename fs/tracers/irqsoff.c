// SPDX-License-Identifier: MIT
/*
 * irqsoff.c - irqsoff, preemptoff and preemptirqsoff: the longest section of a
 * thread during which, in user-space terms, it could not be interrupted (every
 * asynchronous signal blocked, or a signal handler running) or could not give
 * way (a pthread lock held); preemptirqsoff takes either.  The runtime measures
 * (runtime/latency.c), the core keeps the maximum (latency.c): these tracers only
 * say which sections count (ut_ctl.lat_mode), as the kernel's three share
 * trace_irqsoff.c and differ by their trace_type.
 */
#include "../latency.h"
#include "../output/output.h"
#include "tracers.h"

#define LAT_TRACER(var, tname, mode)                                                               \
	const struct tracer var = {                                                                \
	    .name = tname,                                                                         \
	    .id = UT_TRACER_LATENCY,                                                               \
	    .init = tfs_lat_tracer_init,                                                           \
	    .reset = tfs_lat_tracer_reset,                                                         \
	    .print_header = tfs_out_default_header,                                                \
	    .print_line = tfs_out_line,                                                            \
	    .use_max_tr = true,                                                                    \
	    .print_max = true,                                                                     \
	    .lat_mode = (mode),                                                                    \
	}

LAT_TRACER(tfs_irqsoff_tracer, "irqsoff", UT_LAT_IRQSOFF);
LAT_TRACER(tfs_preemptoff_tracer, "preemptoff", UT_LAT_PREEMPTOFF);
LAT_TRACER(tfs_preemptirqsoff_tracer, "preemptirqsoff", UT_LAT_IRQSOFF | UT_LAT_PREEMPTOFF);

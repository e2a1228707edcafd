/* SPDX-License-Identifier: MIT */
/* tracers.h - the tracers defined in fs/tracers/, one file each. */
#ifndef TFS_TRACERS_H
#define TFS_TRACERS_H

#include "../tfs.h"

extern const struct tracer tfs_nop_tracer;
extern const struct tracer tfs_function_tracer;
extern const struct tracer tfs_function_graph_tracer;
extern const struct tracer tfs_irqsoff_tracer;
extern const struct tracer tfs_preemptoff_tracer;
extern const struct tracer tfs_preemptirqsoff_tracer;
extern const struct tracer tfs_wakeup_tracer;
extern const struct tracer tfs_wakeup_rt_tracer;
extern const struct tracer tfs_wakeup_dl_tracer;
extern const struct tracer tfs_hwlat_tracer;
extern const struct tracer tfs_osnoise_tracer;
extern const struct tracer tfs_timerlat_tracer;

#endif

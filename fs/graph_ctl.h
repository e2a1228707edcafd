/* SPDX-License-Identifier: MIT */
/*
 * graph_ctl.h - the function_graph tracer's control files (graph_ctl.c):
 * tracing_thresh and max_graph_depth, and what state.c publishes of them.
 */
#ifndef TFS_GRAPH_CTL_H
#define TFS_GRAPH_CTL_H

#include <stdint.h>

#include "tfs.h"

extern const struct tfs_file_ops tfs_tracing_thresh_ops, tfs_max_graph_depth_ops;

/* tracing_thresh in ns (the profiler hides averages below it); 0: off. */
uint64_t tfs_graph_thresh_ns(void);
/* Set tracing_thresh (ns), as a write of it does (hwlat's default and restore). */
void tfs_thresh_set_ns(uint64_t ns);
/* tracing_thresh in TSC ticks for the control page; 0: off. */
uint64_t tfs_graph_thresh_tsc(void);
/* max_graph_depth as the runtime applies it (0: no limit). */
uint32_t tfs_graph_max_depth(void);
/* ns -> TSC ticks with the calibration of clock.c. */
uint64_t tfs_graph_ns_to_tsc(uint64_t ns);

#endif

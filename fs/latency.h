/* SPDX-License-Identifier: MIT */
/*
 * latency.h - tracing_max_latency, the largest latency an instance's latency
 * tracer (irqsoff, preemptoff, wakeup, hwlat, ...) has measured: kept in ns and
 * shown in microseconds, as the kernel keeps tr->max_latency (control/max_latency.c).
 */
#ifndef TFS_LATENCY_H
#define TFS_LATENCY_H

#include <stdint.h>

#include "tfs.h"

/* inst's tracing_max_latency in ns (UINT64_MAX: the kernel's -1). */
uint64_t tfs_lat_max(const struct tfs_instance *inst);
/* Set it (a tracer that measured a new maximum; a user's write). */
void tfs_lat_max_set(struct tfs_instance *inst, uint64_t ns);
/*
 * Raise it to ns if ns is larger: true when it was (the caller then owns the
 * new maximum: its snapshot, its task).  Atomic against other raisers.
 */
bool tfs_lat_max_raise(struct tfs_instance *inst, uint64_t ns);

/* "%ld\n" of ns in microseconds, or "-1\n" for UINT64_MAX (tracing_thresh too). */
int tfs_show_nsecs(struct tfs_buf *b, uint64_t ns);

extern const struct tfs_file_ops tfs_tracing_max_latency_ops;

#endif

/* SPDX-License-Identifier: MIT */
/*
 * latency.h - tracing_max_latency, the largest latency an instance's latency
 * tracer (irqsoff, preemptoff, wakeup, hwlat, ...) has measured: kept in ns and
 * shown in microseconds, as the kernel keeps tr->max_latency (control/max_latency.c);
 * and the latency tracers' core (tracers/latency.c): the max buffer and what the
 * latency-format header says of the maximum.
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

/* ---- the latency tracers' core (tracers/latency.c) ---------------------------------- */

/*
 * The maximum the max buffer holds, as the kernel keeps it in max_buffer's
 * trace_array_cpu (saved_latency, comm, pid, uid, nice, policy, rt_priority,
 * critical_start, critical_end) and max_buffer.time_start.  Times are TSC.
 * Which events of the max buffer belong to it: those from start_tsc to
 * last_tsc, and of task tid alone when only_task is set (a thread's section:
 * other threads ran beside it on other CPUs; the wakeup tracer shows every task).
 */
struct tfs_lat_max {
	bool valid;	       /* a maximum was recorded since the tracer became current */
	uint64_t latency_ns;   /* the kernel's saved_latency */
	pid_t tid;
	char comm[16];
	uint32_t uid;
	long nice, policy, rt_prio;
	unsigned int cpu;      /* where it ended: "CPU#" */
	uint64_t start_tsc;    /* time_start: earlier entries are not shown */
	uint64_t last_tsc;     /* after its last event */
	uint64_t start_ip;     /* critical_start: 0 prints no started/ended lines */
	uint64_t end_ip;       /* critical_end */
	bool only_task;
};

/*
 * A latency tracer's init: tracing_max_latency 0, the max buffer allocated and
 * empty, option latency-format set (kept to be put back by the reset).  reset:
 * the option back, the max buffer freed, the maximum forgotten.
 */
int tfs_lat_tracer_init(struct tfs_instance *inst);
void tfs_lat_tracer_reset(struct tfs_instance *inst);
/*
 * A new maximum measured by a tracer of inst (its events written, ts in TSC):
 * raise tracing_max_latency (with tracing_thresh set: at least thresh, and it
 * replaces the maximum whatever it was), swap every CPU's ring into the max
 * buffer and keep m.  m->latency_ns is the latency.  True when it was taken.
 */
bool tfs_lat_update_max(struct tfs_instance *inst, const struct tfs_lat_max *m);
/* The maximum the max buffer holds now (valid false: none). */
void tfs_lat_max_get(struct tfs_instance *inst, struct tfs_lat_max *m);
/* Publish tracing_max_latency to processes (ut_ctl.lat_max_tsc); without tfs.lock. */
void tfs_lat_publish(struct tfs_instance *inst);
/* Does the event of tid at tsc belong to the maximum m (shown by `trace`)? */
bool tfs_lat_shows(const struct tfs_lat_max *m, pid_t tid, uint64_t tsc);
/*
 * A latency tracer (struct tracer, tracers/irqsoff.c and wakeup.c): its core is this one, it differs by the sections the runtime
 * measures (mode: UT_LAT_*).  Needs output/output.h.
 */
#define TFS_LAT_TRACER(var, tname, mode)                                                           \
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

/* UT_MSG_LATENCY from process pid (irqsoff, preemptoff, preemptirqsoff, wakeup*). */
int tfs_lat_msg(pid_t pid, const void *buf);

#endif

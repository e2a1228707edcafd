/* SPDX-License-Identifier: MIT */
/*
 * sampler.h - the threads utracefs runs for the tracers that measure the
 * machine rather than a traced program: hwlat, osnoise and timerlat (the
 * kernel's kthreads hwlatd, osnoise/N, timerlat/N).  sampler.c starts them pinned,
 * named as the kernel names its threads, with every signal blocked (a signal
 * for the daemon must reach its FUSE thread), and stops and joins them.
 *
 * A set is one tracer's threads: started when it becomes current (and tracing
 * is on), stopped when it is no longer current, when tracing_on goes to 0, when
 * its instance is removed and when the daemon ends.  Nothing runs otherwise.
 */
#ifndef TFS_SAMPLER_H
#define TFS_SAMPLER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "tfs.h"

struct tfs_sampler;
typedef void (*tfs_sampler_fn)(struct tfs_sampler *s);

/* One thread. */
struct tfs_sampler {
	struct tfs_sampler_set *set;
	pthread_t thread;
	int cpu;      /* the CPU it is pinned to, -1: the set's mask */
	pid_t tid;    /* its thread id, once it runs (0 before) */
	uint64_t mask[TFS_CPUMASK_WORDS]; /* where it may run (cpu's bit, or the set's mask) */
};

struct tfs_sampler_set {
	pthread_mutex_t lock; /* guards stopping with cond, for the sleeps */
	pthread_cond_t cond;
	bool stopping;
	unsigned int nr;
	tfs_sampler_fn fn;
	void *arg;	/* the tracer's, for fn */
	int fifo_prio;	/* SCHED_FIFO priority when permitted; 0: the default policy */
	struct tfs_sampler thr[UT_RB_MAX_CPUS];
};
#define TFS_SAMPLER_SET_INIT                                                                       \
	{                                                                                          \
		.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER                \
	}

/*
 * Start fn in set: one thread per CPU of cpus (per_cpu; named "NAME/CPU"), or
 * one thread ("NAME") that may run on all of them.  Only CPUs the daemon may
 * run on count.  0 (no CPU at all: no thread), or -errno with nothing left
 * running.  The set must be stopped (or never started).
 */
int tfs_samplers_start(struct tfs_sampler_set *set, const uint64_t *cpus, bool per_cpu,
		       const char *name, tfs_sampler_fn fn, void *arg, int fifo_prio);
/* Ask every thread of set to end and join them (a no-op when none runs). */
void tfs_samplers_stop(struct tfs_sampler_set *set);
/* True once the set is being stopped: the thread returns from fn soon. */
bool tfs_sampler_stopping(const struct tfs_sampler *s);
/* Sleep until CLOCK_MONOTONIC time abs_ns or the stop: true when stopping. */
bool tfs_sampler_sleep_until(struct tfs_sampler *s, uint64_t abs_ns);
/* CLOCK_MONOTONIC (what the samplers read back to back), in ns. */
uint64_t tfs_sampler_now(void);
/* The calling thread now runs on cpu only: 0 or -errno. */
int tfs_sampler_move(int cpu);
/* The CPUs of mask this daemon may run on (the kernel's "online" CPUs for us). */
void tfs_sampler_usable(const uint64_t *mask, uint64_t *out);
/*
 * Write ev (a sample) into inst's ring of the CPU the caller runs on, when
 * inst's tracing is on; kicks trace_pipe readers.  0 or what the ring says.
 */
int tfs_sampler_write(struct tfs_instance *inst, struct ut_ev *ev);

static inline bool tfs_cpu_in(const uint64_t *mask, unsigned int cpu)
{
	return cpu < UT_RB_MAX_CPUS && (mask[cpu / 64] >> (cpu % 64) & 1);
}

#endif

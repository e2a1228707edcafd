// SPDX-License-Identifier: MIT
/*
 * sampler.c - the threads of hwlat, osnoise and timerlat (sampler.h).
 *
 * Each thread is pinned where its tracer says before it runs its function,
 * with every signal blocked: the daemon's signals (SIGTERM ending the mount)
 * must reach the FUSE loop, never a thread that spins.  With fifo_prio the
 * thread asks for SCHED_FIFO at that priority; without the privilege it stays
 * in the default policy (it then shares its CPU with every other thread there,
 * and what it measures includes their time: the tracers say so in the user guide).
 *
 * Stopping sets `stopping` under the lock and wakes every sleeper; a thread
 * spinning checks it between two clock reads, a thread in clock_nanosleep
 * (timerlat) sees it when its period ends, at most a second later.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sampler.h"

uint64_t tfs_sampler_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void mask_to_set(const uint64_t *mask, cpu_set_t *set)
{
	CPU_ZERO(set);
	for (unsigned int cpu = 0; cpu < tfs.nr_cpus && cpu < CPU_SETSIZE; cpu++)
		if (tfs_cpu_in(mask, cpu))
			CPU_SET(cpu, set);
}

void tfs_sampler_usable(const uint64_t *mask, uint64_t *out)
{
	cpu_set_t allowed;

	memset(out, 0, TFS_CPUMASK_WORDS * sizeof(*out));
	/* the daemon's main thread's: a sampler's own is the one CPU it is pinned to */
	if (sched_getaffinity(getpid(), sizeof(allowed), &allowed))
		CPU_ZERO(&allowed);
	for (unsigned int cpu = 0; cpu < tfs.nr_cpus && cpu < CPU_SETSIZE; cpu++)
		if (tfs_cpu_in(mask, cpu) && CPU_ISSET(cpu, &allowed))
			out[cpu / 64] |= 1ull << (cpu % 64);
}

int tfs_sampler_move(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) ? -errno : 0;
}

bool tfs_sampler_stopping(const struct tfs_sampler *s)
{
	return __atomic_load_n(&s->set->stopping, __ATOMIC_RELAXED);
}

bool tfs_sampler_sleep_until(struct tfs_sampler *s, uint64_t abs_ns)
{
	struct tfs_sampler_set *set = s->set;
	struct timespec t = {.tv_sec = (time_t)(abs_ns / 1000000000ull),
			     .tv_nsec = (long)(abs_ns % 1000000000ull)};
	bool stop;

	pthread_mutex_lock(&set->lock);
	while (!set->stopping &&
	       pthread_cond_clockwait(&set->cond, &set->lock, CLOCK_MONOTONIC, &t) == 0)
		;
	stop = set->stopping;
	pthread_mutex_unlock(&set->lock);
	return stop;
}

int tfs_sampler_write(struct tfs_instance *inst, struct ut_ev *ev)
{
	bool on;
	int err;

	tfs_lock(); /* tracing_on is written under it */
	on = inst->tracing_on;
	tfs_unlock();
	if (!on || !inst->area)
		return -EAGAIN;
	err = tfs_ring_write(inst, -1, ev);
	if (!err)
		tfs_ring_kick();
	return err;
}

static void *sampler_main(void *arg)
{
	struct tfs_sampler *s = arg;
	struct tfs_sampler_set *set = s->set;
	cpu_set_t where;

	__atomic_store_n(&s->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	mask_to_set(s->mask, &where);
	sched_setaffinity(0, sizeof(where), &where);
	if (set->fifo_prio > 0) {
		struct sched_param sp = {.sched_priority = set->fifo_prio};

		pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp); /* EPERM: stay as we are */
	}
	set->fn(s);
	return NULL;
}

/* Name the thread as the kernel names its kthread ("hwlatd", "osnoise/1"). */
static void sampler_name(struct tfs_sampler *s, const char *name)
{
	char comm[16];

	if (s->cpu >= 0)
		snprintf(comm, sizeof(comm), "%s/%d", name, s->cpu);
	else
		snprintf(comm, sizeof(comm), "%s", name);
	pthread_setname_np(s->thread, comm);
}

int tfs_samplers_start(struct tfs_sampler_set *set, const uint64_t *cpus, bool per_cpu,
		       const char *name, tfs_sampler_fn fn, void *arg, int fifo_prio)
{
	uint64_t usable[TFS_CPUMASK_WORDS];
	sigset_t all, old;
	int err = 0;

	tfs_sampler_usable(cpus, usable);
	pthread_mutex_lock(&set->lock);
	set->stopping = false;
	pthread_mutex_unlock(&set->lock);
	set->nr = 0;
	set->fn = fn;
	set->arg = arg;
	set->fifo_prio = fifo_prio;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the threads inherit it */
	for (unsigned int cpu = 0; cpu < tfs.nr_cpus && !err; cpu++) {
		struct tfs_sampler *s = &set->thr[set->nr];
		bool any = false;

		if (per_cpu && !tfs_cpu_in(usable, cpu))
			continue;
		memset(s, 0, sizeof(*s));
		s->set = set;
		s->cpu = per_cpu ? (int)cpu : -1;
		if (per_cpu) {
			s->mask[cpu / 64] = 1ull << (cpu % 64);
		} else {
			memcpy(s->mask, usable, sizeof(s->mask));
			for (unsigned int w = 0; w < TFS_CPUMASK_WORDS; w++)
				any |= usable[w] != 0;
			if (!any)
				break;
		}
		err = -pthread_create(&s->thread, NULL, sampler_main, s);
		if (err)
			break;
		sampler_name(s, name);
		set->nr++;
		if (!per_cpu)
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		tfs_samplers_stop(set);
	return err;
}

void tfs_samplers_stop(struct tfs_sampler_set *set)
{
	pthread_mutex_lock(&set->lock);
	__atomic_store_n(&set->stopping, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&set->cond);
	pthread_mutex_unlock(&set->lock);
	for (unsigned int i = 0; i < set->nr; i++)
		pthread_join(set->thr[i].thread, NULL);
	set->nr = 0;
}

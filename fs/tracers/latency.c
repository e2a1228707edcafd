// SPDX-License-Identifier: MIT
/*
 * latency.c - the latency tracers' core: what irqsoff, preemptoff and
 * preemptirqsoff (irqsoff.c) and wakeup, wakeup_rt and wakeup_dl (wakeup.c) share.
 *
 * As the kernel's tracers that use the max buffer (use_max_tr, print_max):
 *
 *  - init sets tracing_max_latency to 0, allocates the max buffer (the snapshot
 *    buffer, tfs_instance.spare) empty, and sets option latency-format, which
 *    reset puts back as it was; reset frees the max buffer.  While such a tracer
 *    is current, `echo 1 > snapshot` is EBUSY (snapshot.c).
 *  - A new maximum (tfs_lat_update_max) raises tracing_max_latency, or with
 *    tracing_thresh set replaces it whatever it was (the kernel's report_latency),
 *    swaps every CPU's ring into the max buffer and keeps what the header shows
 *    of it (struct tfs_lat_max).  A maximum another one overtook meanwhile is
 *    dropped, as the kernel's critical_sequence check drops it.
 *  - `trace` then reads the max buffer: events older than the maximum's start are
 *    skipped and not counted (the kernel's tracing_iter_reset and time_start),
 *    and with only_task set, events of other tasks too: a thread's section may
 *    run on several CPUs while other threads write beside it, where the kernel's
 *    section is one CPU's; the swap takes every CPU (the wakeup tracer's
 *    update_max_tr, not irqsoff's update_max_tr_single) for that reason.
 *
 * The runtime measures and reports (runtime/latency.c, UT_MSG_LATENCY); this
 * file answers each report by bumping ut_ctl.lat_done, which the reporting thread
 * waits for, and publishes tracing_max_latency in TSC ticks (ut_ctl.lat_max_tsc)
 * so that processes report only longer sections.  Top level only: the runtime
 * acts on the top's control page (an instance's latency tracer is EBUSY).
 */
#include <errno.h>
#include <stdio.h>
#include <linux/futex.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../graph_ctl.h"
#include "../latency.h"
#include "../settings.h"
#include "ut_wire.h"

static pthread_mutex_t lat_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	struct tfs_lat_max max;
	bool lat_fmt_was; /* option latency-format before the tracer set it */
	bool armed;	  /* a latency tracer is current: reports may swap */
} lat[UT_INST_MAX];

void tfs_lat_publish(struct tfs_instance *inst)
{
	uint64_t ns = tfs_lat_max(inst);
	uint64_t tsc = ns == UINT64_MAX ? UINT64_MAX : tfs_graph_ns_to_tsc(ns);

	tfs_lock();
	if (inst->ctl)
		__atomic_store_n(&inst->ctl->lat_max_tsc, tsc, __ATOMIC_RELEASE);
	tfs_unlock();
}

static void set_lat_fmt(struct tfs_instance *inst, bool on)
{
	uint64_t bit = 1ull << TFS_OPT_LATENCY_FORMAT;

	if (on)
		__atomic_fetch_or(&inst->opts, bit, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&inst->opts, ~bit, __ATOMIC_RELAXED);
}

int tfs_lat_tracer_init(struct tfs_instance *inst)
{
	int err = tfs_spare_alloc(inst);

	if (err)
		return err;
	tfs_spare_clear(inst, -1); /* an earlier snapshot is no maximum */
	pthread_mutex_lock(&lat_lock);
	memset(&lat[inst->slot].max, 0, sizeof(lat[inst->slot].max));
	lat[inst->slot].lat_fmt_was = tfs_opt(inst, TFS_OPT_LATENCY_FORMAT);
	lat[inst->slot].armed = true;
	pthread_mutex_unlock(&lat_lock);
	set_lat_fmt(inst, true);
	tfs_lat_max_set(inst, 0);
	tfs_lat_publish(inst);
	return 0;
}

void tfs_lat_tracer_reset(struct tfs_instance *inst)
{
	pthread_mutex_lock(&lat_lock);
	memset(&lat[inst->slot].max, 0, sizeof(lat[inst->slot].max));
	lat[inst->slot].armed = false; /* a report still on its way finds nothing to swap */
	set_lat_fmt(inst, lat[inst->slot].lat_fmt_was);
	pthread_mutex_unlock(&lat_lock);
	tfs_spare_free(inst);
}

bool tfs_lat_update_max(struct tfs_instance *inst, const struct tfs_lat_max *m)
{
	uint64_t thresh = tfs_graph_thresh_ns();
	bool take;

	pthread_mutex_lock(&lat_lock);
	if (!lat[inst->slot].armed) {
		pthread_mutex_unlock(&lat_lock);
		return false;
	}
	if (thresh) {
		take = m->latency_ns >= thresh;
		if (take)
			tfs_lat_max_set(inst, m->latency_ns);
	} else {
		take = tfs_lat_max_raise(inst, m->latency_ns);
	}
	if (take && !tfs_spare_swap(inst, -1)) {
		lat[inst->slot].max = *m;
		lat[inst->slot].max.valid = true;
	}
	pthread_mutex_unlock(&lat_lock);
	if (take)
		tfs_lat_publish(inst);
	return take;
}

void tfs_lat_max_get(struct tfs_instance *inst, struct tfs_lat_max *m)
{
	pthread_mutex_lock(&lat_lock);
	*m = lat[inst->slot].max;
	pthread_mutex_unlock(&lat_lock);
}

bool tfs_lat_shows(const struct tfs_lat_max *m, pid_t tid, uint64_t tsc)
{
	if (!m->valid)
		return true;
	return tsc >= m->start_tsc && tsc <= m->last_tsc && (!m->only_task || tid == m->tid);
}

/* The reporting thread waits for this (runtime/latency.c wait_done). */
static void report_done(struct tfs_instance *inst, int32_t tid)
{
	tfs_lock();
	if (inst->ctl) {
		__atomic_store_n(&inst->ctl->lat_done_tid, tid, __ATOMIC_RELAXED);
		__atomic_fetch_add(&inst->ctl->lat_done, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &inst->ctl->lat_done, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
	tfs_unlock();
}

int tfs_lat_msg(pid_t pid, const void *buf)
{
	const struct ut_msg_latency *r = buf;
	struct tfs_instance *inst = &tfs_top;
	const struct tracer *t = __atomic_load_n(&inst->tracer, __ATOMIC_ACQUIRE);
	struct tfs_lat_max m = {0};
	char task[64];

	if (r->tid <= 0 || r->start_tsc > r->end_tsc || r->end_tsc > r->last_tsc)
		return -EPROTO;
	/* a thread of the sender's only: another process's would show in its name */
	snprintf(task, sizeof(task), "/proc/%d/task/%d", (int)pid, (int)r->tid);
	if (t && t->use_max_tr && !access(task, F_OK)) {
		uint64_t s = tfs_clock_ns(TFS_CLOCK_MONO, r->start_tsc);
		uint64_t e = tfs_clock_ns(TFS_CLOCK_MONO, r->end_tsc);

		m.latency_ns = e > s ? e - s : 0;
		m.tid = r->tid;
		if (tfs_task_comm(r->tid, m.comm) || !m.comm[0])
			strcpy(m.comm, "<...>");
		m.uid = (uint32_t)geteuid(); /* processes of another uid are refused */
		m.nice = r->nice;
		m.policy = r->policy;
		m.rt_prio = r->rt_prio;
		m.cpu = r->cpu < tfs.nr_cpus ? r->cpu : 0;
		m.start_tsc = r->start_tsc;
		m.last_tsc = r->last_tsc;
		/* the kernel's parent_ip ? : ip: the primitive's caller */
		m.start_ip = r->start_parent ? r->start_parent : r->start_ip;
		m.end_ip = r->end_parent ? r->end_parent : r->end_ip;
		m.only_task = !(r->flags & UT_LATF_ALL_TASKS);
		tfs_lat_update_max(inst, &m);
	}
	report_done(inst, r->tid);
	return 0;
}

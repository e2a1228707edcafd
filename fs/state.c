// SPDX-License-Identifier: MIT
/*
 * state.c - the daemon's global state `tfs` and how the settings reach traced
 * processes.
 *
 * The state lives in utracefs; the runtime of each process only sees the control
 * page.  tfs_apply() copies what the runtime acts on (tracer, tracing_on, the
 * options it implements) into the page, bumps gen, wakes every waiter on it with
 * a shared FUTEX_WAKE and then waits for the acknowledgements collected by the
 * registry, so that `echo function > current_tracer` returns once every live
 * process traces.  A process that does not answer within UT_ACK_TIMEOUT_MS, or
 * is found stopped before, is reported in error_log and on the daemon's stderr
 * and left behind, and a dead one is not waited for (tfs_registry_wait_acks): a
 * hung program must not hang the file system.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core.h"
#include "functab.h"
#include "graph_ctl.h"
#include "latency.h"
#include "output/output.h"
#include "settings.h"
#include "tfs.h"
#include "tracers/tracers.h"

struct tfs_trace tfs = {.lock = PTHREAD_MUTEX_INITIALIZER, .area_fd = -1, .ctl_fd = -1};

void tfs_lock(void)
{
	pthread_mutex_lock(&tfs.lock);
}

void tfs_unlock(void)
{
	pthread_mutex_unlock(&tfs.lock);
}

unsigned int tfs_possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	unsigned int a, b, max = 0;
	int c;

	if (!f)
		return 1;
	/* a list like "0-3,6,8-9": the number of CPUs is the highest id + 1 */
	while (fscanf(f, "%u", &a) == 1) {
		b = a;
		c = fgetc(f);
		if (c == '-' && fscanf(f, "%u", &b) == 1)
			c = fgetc(f);
		if (b + 1 > max)
			max = b + 1;
		if (c != ',')
			break;
	}
	fclose(f);
	if (!max)
		max = 1;
	return max > UT_RB_MAX_CPUS ? UT_RB_MAX_CPUS : max;
}

void tfs_state_defaults(unsigned int nr_cpus)
{
	tfs_lock();
	tfs.nr_cpus = nr_cpus;
	tfs.ftrace_enabled = true;
	/* the kernel's 128, rounded up as it fills whole pages (6552) */
	tfs.saved_cmdlines_size = tfs_cmdlines_rounded(128);
	tfs_inst_defaults(&tfs_top, true);
	tfs_unlock();
}

/*
 * What the runtime needs of the options.  Computed before taking tfs.lock:
 * tfs_opt() and tfs_tracer_opt() belong to the options code, which may lock.
 */
struct tfs_rt_opts {
	uint32_t ctl_opts;
	bool trace_printk;
	/* function_graph: tracing_thresh, max_graph_depth and its options */
	uint64_t thresh_tsc;
	uint32_t max_graph_depth;
	uint32_t graph_opts;
	uint32_t profile_graph_time; /* the profiler's graph-time (the top's page) */
	/* a latency tracer: which sections, function-trace, tracing_max_latency in ticks */
	uint32_t lat_mode;
	uint32_t lat_ftrace;
	uint64_t lat_max_tsc;
};

static struct tfs_rt_opts tfs_rt_opts(const struct tfs_instance *inst)
{
	struct tfs_rt_opts r = {0};

	if (tfs_tracer_opt(inst, "func_stack_trace"))
		r.ctl_opts |= UT_CTL_OPT_FUNC_STACK_TRACE;
	r.trace_printk = tfs_opt(inst, TFS_OPT_TRACE_PRINTK);

	/* the graph tracer's own option values, kept whichever tracer is current */
	uint64_t g = tfs_tracer_opts_of(inst, &tfs_function_graph_tracer);

	if (!(g & TFS_GRAPH_IRQS))
		r.graph_opts |= UT_CTL_GRAPH_NOIRQS;
	if (!(g & TFS_GRAPH_SLEEP_TIME))
		r.graph_opts |= UT_CTL_GRAPH_NOSLEEP;
	if (g & TFS_GRAPH_RETADDR)
		r.graph_opts |= UT_CTL_GRAPH_RETADDR;
	r.profile_graph_time = (g & TFS_GRAPH_GRAPH_TIME) != 0;
	/* set_graph_function / set_graph_notrace: the sites' flags are in the selection memfd */
	if (tfs_ft_graph_select())
		r.graph_opts |= UT_CTL_GRAPH_SELECT;
	r.thresh_tsc = tfs_graph_thresh_tsc();
	r.max_graph_depth = tfs_graph_max_depth();

	const struct tracer *t = __atomic_load_n(&inst->tracer, __ATOMIC_ACQUIRE);
	uint64_t max = tfs_lat_max(inst);

	r.lat_mode = t ? t->lat_mode : 0;
	r.lat_ftrace = tfs_opt(inst, TFS_OPT_FUNCTION_TRACE);
	r.lat_max_tsc = max == UINT64_MAX ? UINT64_MAX : tfs_graph_ns_to_tsc(max);
	return r;
}

static void tfs_publish_opts_locked(const struct tfs_instance *inst, const struct tfs_rt_opts *r)
{
	struct ut_ctl *ctl = inst->ctl;

	if (!ctl)
		return;
	__atomic_store_n(&ctl->tracer, inst->tracer ? (uint32_t)inst->tracer->id : UT_TRACER_NOP,
			 __ATOMIC_RELAXED);
	if (__atomic_load_n(&ctl->tracing_on, __ATOMIC_RELAXED) != (inst->tracing_on ? 1u : 0u)) {
		/* our own page (sealed against processes): on_seq follows tracing_on */
		__atomic_store_n(&ctl->tracing_on, inst->tracing_on ? 1u : 0u, __ATOMIC_RELAXED);
		__atomic_store_n(&ctl->on_seq, ctl->on_seq + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&ctl->opts, r->ctl_opts, __ATOMIC_RELAXED);
	__atomic_store_n(&ctl->trace_printk, r->trace_printk ? 1u : 0u, __ATOMIC_RELAXED);
	__atomic_store_n(&ctl->thresh_tsc, r->thresh_tsc, __ATOMIC_RELAXED);
	__atomic_store_n(&ctl->max_graph_depth, r->max_graph_depth, __ATOMIC_RELAXED);
	__atomic_store_n(&ctl->graph_opts, r->graph_opts, __ATOMIC_RELAXED);
	__atomic_store_n(&ctl->profile_graph_time, r->profile_graph_time, __ATOMIC_RELAXED);
	__atomic_store_n(&ctl->lat_mode, r->lat_mode, __ATOMIC_RELAXED);
	__atomic_store_n(&ctl->lat_ftrace, r->lat_ftrace, __ATOMIC_RELAXED);
	__atomic_store_n(&ctl->lat_max_tsc, r->lat_max_tsc, __ATOMIC_RELAXED);
	__atomic_store_n(&ctl->ftrace_enabled, tfs.ftrace_enabled ? 1u : 0u, __ATOMIC_RELAXED);
	__atomic_store_n(&ctl->printk_slot, inst == &tfs_top ? tfs.printk_slot : 0u,
			 __ATOMIC_RELAXED);
}

void tfs_publish_locked(void)
{
	/* only for start-up and tests: the option readers do not lock then */
	struct tfs_rt_opts r = tfs_rt_opts(&tfs_top);

	tfs_publish_opts_locked(&tfs_top, &r);
}

int tfs_apply(struct tfs_instance *inst)
{
	struct tfs_rt_opts r = tfs_rt_opts(inst);
	uint32_t gen;

	tfs_lock();
	if (!inst->ctl) {
		tfs_unlock();
		return 0;
	}
	tfs_publish_opts_locked(inst, &r);
	if (inst != &tfs_top) {
		/*
		 * Processes act on the top's page only (the runtime does not route
		 * events to instances yet): nobody to wake, nobody to wait for.
		 */
		tfs_unlock();
		tfs_ring_kick(); /* tracing_on changes what a blocked reader should do */
		return 0;
	}
	/*
	 * The generation is counted here, not read back from the shared page that
	 * any process could scribble on.  Release: a process that sees the new gen
	 * sees the fields written above.
	 */
	static uint32_t last_gen;

	gen = ++last_gen;
	__atomic_store_n(&inst->ctl->gen, gen, __ATOMIC_RELEASE);
	tfs_unlock();

	syscall(SYS_futex, &inst->ctl->gen, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	tfs_ring_kick(); /* tracing_on changes what a blocked reader should do */
	tfs_registry_wait_acks(gen, UT_ACK_TIMEOUT_MS);
	return 0;
}

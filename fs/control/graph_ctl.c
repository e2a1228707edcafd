// SPDX-License-Identifier: MIT
/*
 * graph_ctl.c - tracing_thresh and max_graph_depth, with the kernel's rules.
 *
 *   tracing_thresh   microseconds; kept in ns as the kernel keeps it (a write
 *                    of N stores N * 1000, wrapping as the kernel's unsigned
 *                    long does) and read back as ns / 1000.  The runtime gets
 *                    it in TSC ticks (ut_ctl.thresh_tsc): functions shorter
 *                    than that are removed from the buffer at their exit.
 *   max_graph_depth  an unsigned int written as any unsigned long (truncated)
 *                    and read back with "%d", as the kernel does; 0: no limit.
 *
 * Both take what kstrtoul takes (one trailing newline allowed); anything else
 * is EINVAL, a number over ULONG_MAX ERANGE.  A change is published to the
 * processes at once (tfs_apply), as the kernel restarts its tracer's return
 * handler on a new threshold.
 */
#include <errno.h>
#include <stdio.h>

#include "graph_ctl.h"
#include "latency.h"
#include "settings.h"

static uint64_t thresh_ns;	  /* the kernel's tracing_thresh (ns) */
static uint32_t max_graph_depth; /* the kernel's fgraph_max_depth */

uint64_t tfs_graph_ns_to_tsc(uint64_t ns)
{
	uint64_t t1 = tfs_clock_tsc(), span = 1000000000ull, t0, n0, n1;

	if (!ns)
		return 0;
	/* the rate of the conversion clock.c uses, over the last ~second of ticks */
	t0 = t1 > span ? t1 - span : 0;
	n0 = tfs_clock_ns(TFS_CLOCK_MONO, t0);
	n1 = tfs_clock_ns(TFS_CLOCK_MONO, t1);
	if (n1 <= n0)
		return ns; /* no calibration: one tick a ns */
	unsigned __int128 t = (unsigned __int128)ns * (t1 - t0) / (n1 - n0);

	/* a threshold nothing reaches rather than a wrapped small one */
	return t > UINT64_MAX ? UINT64_MAX : (t ? (uint64_t)t : 1);
}

uint64_t tfs_graph_thresh_ns(void)
{
	return __atomic_load_n(&thresh_ns, __ATOMIC_RELAXED);
}

uint64_t tfs_graph_thresh_tsc(void)
{
	return tfs_graph_ns_to_tsc(__atomic_load_n(&thresh_ns, __ATOMIC_RELAXED));
}

uint32_t tfs_graph_max_depth(void)
{
	return __atomic_load_n(&max_graph_depth, __ATOMIC_RELAXED);
}

/* ---- tracing_thresh ------------------------------------------------------------------ */

static int thresh_show(struct tfs_open *o)
{
	return tfs_show_nsecs(&o->content, __atomic_load_n(&thresh_ns, __ATOMIC_RELAXED));
}

void tfs_thresh_set_ns(uint64_t ns)
{
	__atomic_store_n(&thresh_ns, ns, __ATOMIC_RELAXED);
	tfs_apply(&tfs_top);
}

static ssize_t thresh_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	unsigned long us;
	int err = tfs_parse_ulong(buf, size, &us);

	if (err)
		return err;
	tfs_thresh_set_ns((uint64_t)us * 1000u);
	return (ssize_t)size;
}

const struct tfs_file_ops tfs_tracing_thresh_ops = {
	.show = thresh_show,
	.write = thresh_write,
};

/* ---- max_graph_depth ----------------------------------------------------------------- */

static int depth_show(struct tfs_open *o)
{
	int d = (int)__atomic_load_n(&max_graph_depth, __ATOMIC_RELAXED);

	return tfs_buf_printf(&o->content, "%d\n", d) < 0 ? -ENOMEM : 0;
}

static ssize_t depth_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	unsigned long v;
	int err = tfs_parse_ulong(buf, size, &v);

	if (err)
		return err;
	__atomic_store_n(&max_graph_depth, (uint32_t)v, __ATOMIC_RELAXED);
	tfs_apply(&tfs_top);
	return (ssize_t)size;
}

const struct tfs_file_ops tfs_max_graph_depth_ops = {
	.show = depth_show,
	.write = depth_write,
};

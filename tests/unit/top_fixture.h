/* SPDX-License-Identifier: MIT */
/*
 * top_fixture.h - the top level as the output tests set it up: two CPUs, the
 * local clock, the boot options and tracer t, and one output buffer b.
 */
#ifndef TOP_FIXTURE_H
#define TOP_FIXTURE_H

#include "output/output.h"
#include "settings.h"

static struct tfs_buf b;

static void opt(enum tfs_opt o, bool on)
{
	if (on)
		tfs_top.opts |= 1ull << o;
	else
		tfs_top.opts &= ~(1ull << o);
}

static int top_setup(const struct tracer *t)
{
	tfs.nr_cpus = 2;
	tfs_top.clock = TFS_CLOCK_LOCAL;
	tfs_top.tracer = t;
	tfs_opts_init(&tfs_top, true); /* the top's boot options, every tracer's defaults */
	tfs_buf_reset(&b);
	return 0;
}

#endif

// SPDX-License-Identifier: MIT
/*
 * tracers.c - the list of tracers.  The kernel adds each tracer at the head of
 * its list as it registers it, nop first, so available_tracers prints them in
 * reverse order of registration: the kernel registers function, then irqsoff,
 * preemptoff and preemptirqsoff (trace_irqsoff.c), wakeup, wakeup_rt and
 * wakeup_dl (trace_sched_wakeup.c), then function_graph, so available_tracers
 * reads "function_graph wakeup_dl wakeup_rt wakeup preemptirqsoff preemptoff
 * irqsoff function nop": this array is in that order.
 */
#include <string.h>

#include "tracers.h"

const struct tracer *const tfs_tracers[] = {
	&tfs_function_graph_tracer,
	&tfs_wakeup_dl_tracer,
	&tfs_wakeup_rt_tracer,
	&tfs_wakeup_tracer,
	&tfs_preemptirqsoff_tracer,
	&tfs_preemptoff_tracer,
	&tfs_irqsoff_tracer,
	&tfs_function_tracer,
	&tfs_nop_tracer,
	NULL,
};

const struct tracer *tfs_tracer_find(const char *name)
{
	for (unsigned int i = 0; tfs_tracers[i]; i++)
		if (!strcmp(tfs_tracers[i]->name, name))
			return tfs_tracers[i];
	return NULL;
}

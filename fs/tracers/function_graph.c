// SPDX-License-Identifier: MIT
/*
 * function_graph.c - the function_graph tracer: the runtime writes an entry
 * event when an instrumented function is called and an exit event when it
 * returns (its shadow return stack, ut_ring.h); graph.c draws them as a call
 * graph with durations.
 *
 * Its options are the kernel's, in the kernel's order and with its defaults
 * (the bit of each is its index here: TFS_GRAPH_* in output.h).  The runtime
 * acts on three of them (state.c publishes them): funcgraph-irqs (nothing is
 * recorded in signal handlers when off), sleep-time (durations leave out time
 * off the CPU when off) and funcgraph-retaddr (entries carry the return
 * address).  graph-time and sleep-time also steer the function profiler
 * (runtime/profile.c), as in the kernel, whatever the tracer.  funcgraph-args is left
 * out: utrace has no type information to print arguments with.
 *
 * After the kernel's options comes utrace's own `demangle`, as the function
 * tracer has it (on by default): C++ names are shown demangled, with the
 * parameter list the demangler gives them ("t1(int) {", not "t1(int)() {").
 */
#include "../output/output.h"
#include "tracers.h"

static const struct tfs_opt_def graph_opts[] = {
	{"funcgraph-overrun", false},
	{"funcgraph-cpu", true},
	{"funcgraph-overhead", true},
	{"funcgraph-proc", false},
	{"funcgraph-duration", true},
	{"funcgraph-abstime", false},
	{"funcgraph-irqs", true},
	{"funcgraph-tail", false},
	{"funcgraph-retval", false},
	{"funcgraph-retval-hex", false},
	{"funcgraph-retaddr", false},
	{"sleep-time", true},
	{"graph-time", true},
	{"demangle", true},
	{NULL, false},
};

static uint64_t graph_flags(const struct tfs_iter *it)
{
	return tfs_tracer_opts_of(it->inst, &tfs_function_graph_tracer);
}

static void graph_print_header(struct tfs_iter *it, struct tfs_buf *b)
{
	tfs_graph_header(it, b, graph_flags(it));
}

static int graph_print_line(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b)
{
	return tfs_graph_line(it, e, b, graph_flags(it));
}

const struct tracer tfs_function_graph_tracer = {
	.name = "function_graph",
	.id = UT_TRACER_FUNCTION_GRAPH,
	.print_header = graph_print_header,
	.print_line = graph_print_line,
	.opts = graph_opts,
};

// SPDX-License-Identifier: MIT
/*
 * function.c - the function tracer: every instrumented function entry becomes
 * a line "func <-parent".  Its options, shown in trace_options only while it is
 * current: func_stack_trace (the runtime writes a stack event after each
 * function event; off by default as in the kernel) and demangle (utrace's own:
 * C++ names are printed demangled; on by default).
 */
#include "../output/output.h"

static const struct tfs_opt_def function_opts[] = {
	{"func_stack_trace", false},
	{"demangle", true},
	{NULL, false},
};

static int function_print_line(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b)
{
	return tfs_out_line(it, e, b);
}

const struct tracer tfs_function_tracer = {
	.name = "function",
	.id = UT_TRACER_FUNCTION,
	.print_header = tfs_out_default_header,
	.print_line = function_print_line,
	.opts = function_opts,
};

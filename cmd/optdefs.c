// SPDX-License-Identifier: MIT
/*
 * optdefs.c - the default of every trace option, as Linux sets them at boot.
 * `utrace reset` puts options back to these values and `utrace stat` shows the
 * ones that differ.  Options not listed here (a tracer's new option) are left alone.
 * An instance starts as the top level does but for trace_printk_dest and
 * copy_trace_marker, which are off there.
 */
#include <string.h>

#include "cmd.h"

static const struct {
	const char *name;
	int def;
} defaults[] = {
	/* core options, in trace_options order */
	{"print-parent", 1},	  {"sym-offset", 0},	   {"sym-addr", 0},
	{"verbose", 0},		  {"raw", 0},		   {"hex", 0},
	{"bin", 0},		  {"block", 0},		   {"fields", 0},
	{"trace_printk", 1},	  {"annotate", 1},	   {"userstacktrace", 0},
	{"sym-userobj", 0},	  {"printk-msg-only", 0},  {"context-info", 1},
	{"latency-format", 0},	  {"record-cmd", 1},	   {"record-tgid", 0},
	{"overwrite", 1},	  {"disable_on_free", 0},  {"irq-info", 1},
	{"markers", 1},		  {"event-fork", 0},	   {"trace_printk_dest", 1},
	{"copy_trace_marker", 1}, {"pause-on-trace", 0},   {"hash-ptr", 1},
	{"function-trace", 1},	  {"function-fork", 0},	   {"stacktrace", 0},
	/* utrace's own: C++ names demangled */
	{"demangle", 1},
	/* the function tracer's */
	{"func_stack_trace", 0},  {"func-no-repeats", 0},
	/* the function_graph tracer's */
	{"funcgraph-overrun", 0}, {"funcgraph-cpu", 1},	   {"funcgraph-overhead", 1},
	{"funcgraph-proc", 0},	  {"funcgraph-duration", 1}, {"funcgraph-abstime", 0},
	{"funcgraph-irqs", 1},	  {"funcgraph-tail", 0},   {"sleep-time", 1},
	{"graph-time", 1},	  {"funcgraph-retval", 0}, {"funcgraph-retval-hex", 0},
};

int cli_option_default(const char *name, bool inst)
{
	size_t i;

	/* an instance starts with these off: they belong to one instance at a time */
	if (inst && (!strcmp(name, "trace_printk_dest") || !strcmp(name, "copy_trace_marker")))
		return 0;
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		if (!strcmp(defaults[i].name, name))
			return defaults[i].def;
	return -1;
}

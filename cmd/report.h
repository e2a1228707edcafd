/* SPDX-License-Identifier: MIT */
/*
 * report.h - `utrace report` on a trace.dat file (report_dat.c): what the
 * options ask for, parsed by report.c.
 */
#ifndef UT_REPORT_H
#define UT_REPORT_H

#include <stdbool.h>

#define REPORT_FILTERS_MAX 64
#define REPORT_CPUS_MAX 4096

struct report_opts {
	const char *input;
	/* -F FILTER in order; neg: given after -v (the events they match are hidden) */
	unsigned int nr_filters;
	struct report_filter {
		const char *str;
		bool neg;
	} filters[REPORT_FILTERS_MAX];
	const char *pids; /* --pid PID[,PID...] */
	/* -O [PLUGIN:]OPTION[=VALUE] in order: libtraceevent's plugin options */
	unsigned int nr_plugin_opts;
	char *plugin_opts[REPORT_FILTERS_MAX];
	bool cpu_set; /* --cpu given: only the CPUs in cpus[] */
	bool cpus[REPORT_CPUS_MAX];
	bool latency;	  /* -l */
	bool nsec;	  /* -t */
	bool raw;	  /* -R */
	bool no_plugins;  /* -N */
	bool no_irqs;	  /* -I */
	bool no_softirqs; /* -S */
	bool stat;	  /* --stat */
	bool show_printk; /* -P */
	bool show_funcs;  /* -f */
	bool has_from, has_to;
	unsigned long long from, to; /* --from/--to, ns */
	const char *chrome;	     /* --chrome OUT */
	const char *folded;	     /* --folded OUT */
	const char *summary;	     /* --summary OUT */
	const char *sort;	     /* --sort COLUMN of the summary, or NULL */
};

/* Does the file at PATH start like a trace.dat (the magic and "tracing")? */
bool report_is_tracedat(const char *path);
/* Print or export the trace.dat o->input.  CLI_OK, CLI_FAIL or CLI_USAGE (said). */
int report_tracedat(const struct report_opts *o);
/* "SECS[.FRACTION]" into ns.  0 or -EINVAL. */
int report_parse_secs(const char *arg, unsigned long long *ns);
/* "N[,M|N-M...]" into cpus[].  0 or -EINVAL. */
int report_parse_cpus(const char *arg, bool *cpus, int max);

#endif

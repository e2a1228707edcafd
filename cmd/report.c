// SPDX-License-Identifier: MIT
/*
 * report.c - `utrace report [options] [FILE]`: print a recording.
 *
 * Two kinds of recordings: trace.dat files (trace-cmd's format, versions 6 and 7),
 * printed as `trace-cmd report` prints them, filtered and exported by
 * report_dat.c; and the text recordings older versions of `utrace record` saved
 * (the trace file's text, starting "# tracer: "), printed as they are.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "report.h"
#include "report_export.h"
#include "ut_fnstat.h"

enum {
	OPT_CPU = 256,
	OPT_PID,
	OPT_STAT,
	OPT_FROM,
	OPT_TO,
	OPT_CHROME,
	OPT_FOLDED,
	OPT_SUMMARY,
	OPT_SORT,
};

static const struct option long_opts[] = {
    {"cpu", required_argument, NULL, OPT_CPU},
    {"pid", required_argument, NULL, OPT_PID},
    {"stat", no_argument, NULL, OPT_STAT},
    {"from", required_argument, NULL, OPT_FROM},
    {"to", required_argument, NULL, OPT_TO},
    {"chrome", required_argument, NULL, OPT_CHROME},
    {"folded", required_argument, NULL, OPT_FOLDED},
    {"summary", required_argument, NULL, OPT_SUMMARY},
    {"sort", required_argument, NULL, OPT_SORT},
    {0},
};

/* A text recording: printed whole.  Only a file with a tracer's header is one. */
static int print_text(const char *input)
{
	size_t len;
	char *text;
	int err;

	err = cli_read_file(input, &text, &len);
	if (err)
		return cli_file_error(input, err);
	if (strncmp(text, "# tracer: ", 10)) {
		free(text);
		cli_error("%s: neither a trace.dat nor a utrace text recording", input);
		return CLI_FAIL;
	}
	fwrite(text, 1, len, stdout);
	free(text);
	if (fflush(stdout) || ferror(stdout))
		return cli_file_error("standard output", errno);
	return CLI_OK;
}

/* The options that set a flag alone. */
static const struct {
	int c;
	size_t off;
} flag_opts[] = {
    {OPT_STAT, offsetof(struct report_opts, stat)},
    {'l', offsetof(struct report_opts, latency)},
    {'t', offsetof(struct report_opts, nsec)},
    {'R', offsetof(struct report_opts, raw)},
    {'N', offsetof(struct report_opts, no_plugins)},
    {'I', offsetof(struct report_opts, no_irqs)},
    {'S', offsetof(struct report_opts, no_softirqs)},
    {'P', offsetof(struct report_opts, show_printk)},
    {'f', offsetof(struct report_opts, show_funcs)},
};

/* One option; -1 when parsing goes on, else the exit status.  *dat: a trace.dat option. */
static int option(int c, struct report_opts *o, bool *neg, bool *dat)
{
	size_t i;

	*dat = c != 'i';
	for (i = 0; i < sizeof(flag_opts) / sizeof(flag_opts[0]); i++)
		if (flag_opts[i].c == c) {
			*(bool *)((char *)o + flag_opts[i].off) = true;
			return -1;
		}
	switch (c) {
	case 'i':
		/* trace-cmd merges several -i files; one file at a time here */
		if (o->input)
			return cli_usage_error("one -i FILE at a time");
		o->input = optarg;
		return -1;
	case 'F':
		if (o->nr_filters == REPORT_FILTERS_MAX)
			return cli_usage_error("at most %d filters", REPORT_FILTERS_MAX);
		o->filters[o->nr_filters].str = optarg;
		o->filters[o->nr_filters++].neg = *neg;
		return -1;
	case 'O':
		if (o->nr_plugin_opts == REPORT_FILTERS_MAX)
			return cli_usage_error("at most %d -O", REPORT_FILTERS_MAX);
		o->plugin_opts[o->nr_plugin_opts++] = optarg;
		return -1;
	case 'v':
		if (*neg)
			return cli_usage_error("-v may be given once");
		*neg = true;
		return -1;
	case OPT_CPU:
		o->cpu_set = true;
		if (report_parse_cpus(optarg, o->cpus, REPORT_CPUS_MAX))
			return cli_usage_error("--cpu: bad CPU list '%s'", optarg);
		return -1;
	case OPT_PID:
		o->pids = optarg;
		return -1;
	case OPT_FROM:
	case OPT_TO:
		if (report_parse_secs(optarg, c == OPT_FROM ? &o->from : &o->to))
			return cli_usage_error("--%s: not a time in seconds: '%s'",
					       c == OPT_FROM ? "from" : "to", optarg);
		*(c == OPT_FROM ? &o->has_from : &o->has_to) = true;
		return -1;
	case OPT_CHROME:
		o->chrome = optarg;
		return -1;
	case OPT_FOLDED:
		o->folded = optarg;
		return -1;
	case OPT_SUMMARY:
		o->summary = optarg;
		return -1;
	case OPT_SORT:
		if (ut_fnstat_column(optarg) < 0)
			return cli_usage_error("--sort %s: total, self, avg, min, max, calls or name",
					       optarg);
		o->sort = optarg;
		return -1;
	}
	return CLI_USAGE;
}

static int run(int argc, char **argv)
{
	struct report_opts *o = calloc(1, sizeof(*o));
	bool first = true, neg = false, dat = false, d = false;
	int c, ret = -1;

	if (!o)
		return cli_file_error("options", ENOMEM);
	while (ret < 0 &&
	       (c = cli_getopt_long(argc, argv, "+i:F:O:vltRNISPf", long_opts, &first)) != -1) {
		if (c == 'h')
			ret = cli_print_usage(&cli_cmd_report);
		else
			ret = option(c, o, &neg, &d);
		dat |= d;
	}
	if (ret < 0 && optind < argc) {
		/* trace-cmd report FILE: the file as an operand, instead of -i */
		if (optind + 1 < argc)
			ret = cli_usage_error("unexpected argument '%s'", argv[optind + 1]);
		else if (o->input)
			ret = cli_usage_error("-i FILE and a FILE operand: one file at a time");
		else
			o->input = argv[optind];
	}
	if (!o->input)
		o->input = CLI_RECORD_DEFAULT_OUTPUT;
	if (ret < 0 && o->has_from && o->has_to && o->from > o->to)
		ret = cli_usage_error("--from is after --to");
	if (ret < 0 && report_is_tracedat(o->input))
		ret = report_tracedat(o);
	else if (ret < 0 && dat && access(o->input, R_OK) == 0)
		ret =
		    cli_usage_error("%s: options other than -i are for trace.dat files", o->input);
	else if (ret < 0)
		ret = print_text(o->input);
	free(o);
	return ret;
}

const struct cli_command cli_cmd_report = {
    .name = "report",
    .summary = "print a recording (trace.dat, as trace-cmd report), or export it",
    .run = run,
    .usage = "usage: utrace report [OPTIONS] [-i FILE | FILE]\n"
	     "\n"
	     "Print a recording as 'trace-cmd report' prints it: a first line cpus=N, then\n"
	     "one line per event, COMM-PID [CPU] TIMESTAMP: EVENT: DETAILS, in time order.\n"
	     "FILE is a trace.dat (trace-cmd's format, versions 6 and 7); a text recording\n"
	     "of older versions of 'utrace record' (a file starting '# tracer: ') is\n"
	     "printed as it is, and takes no other option.\n"
	     "\n"
	     "  -i FILE        the recording (default " CLI_RECORD_DEFAULT_OUTPUT ")\n"
	     "  --cpu LIST     only these CPUs: numbers and ranges, as 0,2-3\n"
	     "  --pid PID[,PID...]\n"
	     "                 only events of these tasks, or about them (a pid or\n"
	     "                 next_pid field equal to one)\n"
	     "  -F FILTER      only events the filter matches: EVENT or SYSTEM:EVENT (a\n"
	     "                 regular expression), with ':CONDITION' on its fields, as\n"
	     "                 -F 'sched_switch:next_pid==0'; several -F: any of them\n"
	     "  -v             every -F after it hides what it matches instead\n"
	     "  -I, -S         hide events from hard (-I) or soft (-S) interrupts\n"
	     "  --from SECS, --to SECS\n"
	     "                 only events in this time range, bounds included\n"
	     "                 (seconds, to the nanosecond: -t prints them so)\n"
	     "  -l             latency columns: flags, preempt depth, migrate-disable\n"
	     "  -t             full time stamps (nanoseconds)\n"
	     "  -R             raw: every field as NAME=VALUE instead of the event's format\n"
	     "  -N             without libtraceevent's plugins\n"
	     "  -O [PLUGIN:]OPTION[=VALUE]\n"
	     "                 a plugin's option, as -O parent (function events show\n"
	     "                 their caller) or -O fgraph:tailprint (a graph's '}' names\n"
	     "                 its function)\n"
	     "  --stat         the buffer statistics saved with the recording\n"
	     "  -P             the trace_printk() formats the file holds (the pid\n"
	     "                 filter of trace-cmd record's -P is --pid here)\n"
	     "  -f             the function addresses and names the file holds\n"
	     "  --chrome OUT   write a Chrome/Perfetto trace-event JSON file instead:\n"
	     "                 function_graph calls as slices, one track per thread, other\n"
	     "                 events as instants (OUT '-' is stdout)\n"
	     "  --folded OUT   write folded stacks (\"a;b;c WEIGHT\", for flamegraph.pl\n"
	     "                 or speedscope) instead: WEIGHT is each stack's self time in\n"
	     "                 ns; from function events alone, calls of caller;function\n"
	     "  --summary OUT  write a summary per function instead: total, self,\n"
	     "                 average, shortest and longest time and calls from\n"
	     "                 function_graph data, calls alone from function events\n"
	     "  --sort COL     the summary's order: total (the default), self, avg, min,\n"
	     "                 max, calls or name\n"
	     "\n"
	     "The filters apply to the exports too.  Calls cut by the start of the\n"
	     "recording begin at their call time; calls still running at its end end\n"
	     "at its last event.\n",
};

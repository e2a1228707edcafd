// SPDX-License-Identifier: MIT
/*
 * report_dat.c - `utrace report` on a trace.dat file (versions 6 and 7).
 *
 * Reading and formatting are libtracecmd's and libtraceevent's (Debian's
 * libtracecmd1 and libtraceevent1 with its plugins): the same libraries that
 * `trace-cmd report` uses, so that the event text, the function and
 * function_graph plugins and the filter language are the same.  What this file
 * owns is the line around each event and the order of the events, which are
 * trace-cmd report's:
 *
 *   COMM-PID [CPU] TIME: EVENT: INFO       ("%16s-%-5d [%03d]", name padded to 20)
 *   COMM-PID CPU FLAGS TIME: ...           (-l: "%8.8s-%-5d %3d" and the latency flags)
 *
 * Events come from tracecmd_iterate_events over every CPU, merged by time stamp
 * (the lowest CPU first on a tie); --cpu drops the others' events afterwards
 * instead of not reading them.  That matters: libtracecmd's function_graph
 * handler prints a call as "func();" only when the next record of all CPUs is
 * its exit (which it then consumes), so the other CPUs must advance in time as
 * they do under trace-cmd report for the same calls to be leaves.
 *
 * Filters (-F, --pid, -I, -S, --cpu, --from/--to) apply before printing and
 * before the exports, which get every event that passes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd.h>
#include <event-parse.h>
#include <trace-seq.h>

#include "cmd.h"
#include "report.h"
#include "report_export.h"

/*
 * Exported by libtracecmd.so.1 (3.1.6) but missing from its trace-cmd.h: the
 * flags tell whether time stamps are in ns (trace-cmd prints them as seconds)
 * or raw counts; the stats are the per-CPU buffer statistics saved at the end of
 * the recording, printed as trace-cmd report --stat prints them; the latency
 * reader gives the text of a latency file.
 */
unsigned long tracecmd_get_flags(struct tracecmd_input *handle);
int tracecmd_latency_data_read(struct tracecmd_input *handle, char **buf, size_t *size);
void tracecmd_print_stats(struct tracecmd_input *handle);
#define REPORT_TC_FL_IN_USECS (1 << 2)

/*
 * The function plugin prints the time of a repeated function with this format;
 * it is weak in the plugin so that the reader sets the one of its own lines.
 */
const char *tep_func_repeat_format;

struct report {
	const struct report_opts *o;
	struct tracecmd_input *handle;
	struct tep_handle *tep;
	struct tep_event_filter **filters, **negs;
	unsigned int nfilters, nnegs;
	const char *time_fmt;
	struct rx *rx; /* exports; NULL when printing */
	struct tep_event *fg_entry, *fg_exit, *function;
	int err; /* of the walk */
	/*
	 * The file's other buffers (trace-cmd record -B): handles[0] is the top one,
	 * then one per instance.  With instances each line starts with its buffer's
	 * name ("NAME: ", the top's blank), padded to the longest.
	 */
	struct tracecmd_input **handles;
	const char **names;
	int nhandles, width;
};

bool report_is_tracedat(const char *path)
{
	static const char magic[] = "\x17\x08\x44tracing";
	char buf[sizeof(magic) - 1];
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fread(buf, 1, sizeof(buf), f) == sizeof(buf) && !memcmp(buf, magic, sizeof(buf));
	fclose(f);
	return ok;
}

int report_parse_secs(const char *arg, unsigned long long *ns)
{
	unsigned long long secs = 0, frac = 0, scale = 1000000000ULL;
	const char *p = arg;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (secs > 18000000000ULL)
			return -EINVAL;
		secs = secs * 10 + (unsigned long long)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale > 1) {
				scale /= 10;
				frac += (unsigned long long)(*p - '0') * scale;
			}
		}
	}
	if (*p)
		return -EINVAL;
	*ns = secs * 1000000000ULL + frac;
	return 0;
}

/* trace-cmd's list: numbers and ranges A-B, separated by ',' or ':'. */
int report_parse_cpus(const char *arg, bool *cpus, int max)
{
	const char *p = arg;
	char *end;

	do {
		unsigned long a, b;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		a = b = strtoul(p, &end, 10);
		p = end;
		if (*p == '-') {
			if (p[1] < '0' || p[1] > '9')
				return -EINVAL;
			b = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (a > b || b >= (unsigned long)max)
			return -EINVAL;
		while (a <= b)
			cpus[a++] = true;
		if (*p == ',' || *p == ':')
			p++;
		else if (*p)
			return -EINVAL;
	} while (*p);
	return 0;
}

/* ---- filters ------------------------------------------------------------------- */

static int add_filter(struct report *r, const char *str, bool neg)
{
	struct tep_event_filter ***list = neg ? &r->negs : &r->filters;
	unsigned int *n = neg ? &r->nnegs : &r->nfilters;
	struct tep_event_filter *f, **grown;
	char err[200];
	int ret;

	grown = realloc(*list, (*n + 1) * sizeof(*grown));
	if (!grown)
		return cli_file_error("filter", ENOMEM);
	*list = grown;
	f = tep_filter_alloc(r->tep);
	if (!f)
		return cli_file_error("filter", ENOMEM);
	ret = tep_filter_add_filter_str(f, str);
	if (ret < 0) {
		tep_strerror(r->tep, ret, err, sizeof(err));
		tep_filter_free(f);
		cli_error("bad filter '%s': %s", str, err);
		return CLI_USAGE;
	}
	grown[(*n)++] = f;
	return 0;
}

/* --pid P,Q: trace-cmd's filter, on the task, a "pid" field and sched_switch's next_pid. */
static int add_pid_filter(struct report *r, const char *pids)
{
	char *copy = strdup(pids), *filter = NULL, *tok, *save;
	size_t len = 0;
	int err;

	if (!copy)
		return cli_file_error("filter", ENOMEM);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *more;
		int n = asprintf(&more, "%s%s(common_pid==%s)||(pid==%s)||(next_pid==%s)",
				 filter ? filter : ".*:", filter ? "||" : "", tok, tok, tok);

		free(filter);
		if (n < 0) {
			free(copy);
			return cli_file_error("filter", ENOMEM);
		}
		filter = more;
		len += (size_t)n;
	}
	free(copy);
	if (!len) {
		cli_error("--pid: no process id in '%s'", pids);
		return CLI_USAGE;
	}
	err = add_filter(r, filter, false);
	free(filter);
	return err;
}

/*
 * trace-cmd's rule: an event is shown when some filter matches it or has nothing
 * to say about it; an event no filter knows is hidden.  The negative filters are
 * all tried and the last one's answer counts.
 */
static int test_filters(struct report *r, struct tep_event_filter **fs, unsigned int n,
			struct tep_record *rec, bool neg)
{
	int ret = TEP_ERRNO__NO_FILTER;
	unsigned int i;

	if (r->o->no_irqs || r->o->no_softirqs) {
		int flags = tep_data_flags(r->tep, rec);

		if (r->o->no_irqs && (flags & TRACE_FLAG_HARDIRQ))
			return TEP_ERRNO__FILTER_MISS;
		if (r->o->no_softirqs && (flags & TRACE_FLAG_SOFTIRQ))
			return TEP_ERRNO__FILTER_MISS;
	}
	for (i = 0; i < n; i++) {
		ret = tep_filter_match(fs[i], rec);
		if (!neg && (ret == TEP_ERRNO__NO_FILTER || ret == TEP_ERRNO__FILTER_MATCH))
			break;
	}
	return ret;
}

static bool shown(struct report *r, struct tep_record *rec)
{
	int ret;

	if (r->o->has_from && rec->ts < r->o->from)
		return false;
	if (r->o->has_to && rec->ts > r->o->to)
		return false;
	ret = test_filters(r, r->filters, r->nfilters, rec, false);
	if (ret != TEP_ERRNO__NO_FILTER && ret != TEP_ERRNO__FILTER_MATCH)
		return false;
	return test_filters(r, r->negs, r->nnegs, rec, true) != TEP_ERRNO__FILTER_MATCH;
}

/* ---- printing ------------------------------------------------------------------ */

/* One event's line; prefix: its buffer's name ("" the top's), NULL without instances. */
static void print_record(struct report *r, struct tep_record *rec, const char *prefix)
{
	static const char spaces[] = "                    "; /* names are padded to 20 */
	struct tep_event *event = tep_find_event_by_record(r->tep, rec);
	const char *cfmt = r->o->latency ? "%8.8s-%-5d %3d" : "%16s-%-5d [%03d]";
	struct trace_seq s;
	size_t len;

	trace_seq_init(&s);
	if (prefix) {
		if (*prefix)
			trace_seq_printf(&s, "%*s: ", r->width, prefix);
		else
			trace_seq_printf(&s, "%*s  ", r->width, "");
	}
	if (rec->missed_events > 0)
		trace_seq_printf(&s, "CPU:%d [%lld EVENTS DROPPED]\n", rec->cpu,
				 rec->missed_events);
	else if (rec->missed_events < 0)
		trace_seq_printf(&s, "CPU:%d [EVENTS DROPPED]\n", rec->cpu);
	tep_print_event(r->tep, &s, rec, cfmt, TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU);
	if (r->o->latency) {
		if (r->o->raw)
			trace_seq_printf(&s, "-0x%x", tep_data_flags(r->tep, rec));
		else
			tep_print_event(r->tep, &s, rec, "%s", TEP_PRINT_LATENCY);
	}
	tep_print_event(r->tep, &s, rec, r->time_fmt, TEP_PRINT_TIME);
	if (event) {
		trace_seq_printf(&s, " %s: ", event->name);
		len = strlen(event->name);
		if (len < 20)
			trace_seq_printf(&s, "%.*s", (int)(20 - len), spaces);
	}
	tep_print_event(r->tep, &s, rec, "%s", r->o->raw ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	if (s.len && s.buffer[s.len - 1] == '\n')
		s.len--;
	fwrite(s.buffer, 1, s.len, stdout);
	fputc('\n', stdout);
	trace_seq_destroy(&s);
}

/* ---- exports ------------------------------------------------------------------- */

static unsigned long long field(struct tep_event *event, struct tep_record *rec, const char *name)
{
	struct tep_format_field *f = tep_find_field(event, name);
	unsigned long long v = 0;

	if (f)
		tep_read_number_field(f, rec->data, &v);
	return v;
}

/* A function's name from the file's symbols, else its address as trace-cmd shows it. */
static const char *func_name(struct report *r, unsigned long long addr, char *buf, size_t size)
{
	const char *name = tep_find_function(r->tep, addr);

	if (name)
		return name;
	snprintf(buf, size, "0x%llx", addr);
	return buf;
}

static int export_record(struct report *r, struct tep_record *rec)
{
	struct tep_event *event = tep_find_event_by_record(r->tep, rec);
	int pid = tep_data_pid(r->tep, rec);
	const char *comm = tep_data_comm_from_pid(r->tep, pid);
	char b1[32], b2[32];
	int err = rx_comm(r->rx, pid, comm ? comm : "<...>");

	if (err || !event)
		return err;
	if (event == r->fg_entry)
		return rx_entry(r->rx, pid, rec->ts,
				func_name(r, field(event, rec, "func"), b1, sizeof(b1)),
				(int)field(event, rec, "depth"));
	if (event == r->fg_exit)
		return rx_exit(r->rx, pid, func_name(r, field(event, rec, "func"), b1, sizeof(b1)),
			       (int)field(event, rec, "depth"), field(event, rec, "calltime"),
			       field(event, rec, "rettime"));
	if (event == r->function)
		return rx_func(r->rx, pid, rec->ts,
			       func_name(r, field(event, rec, "ip"), b1, sizeof(b1)),
			       func_name(r, field(event, rec, "parent_ip"), b2, sizeof(b2)));
	return rx_instant(r->rx, pid, rec->ts, event->name, rec->cpu);
}

static int write_export(struct report *r, const char *path, int (*write)(struct rx *, FILE *))
{
	FILE *out = strcmp(path, "-") ? fopen(path, "w") : stdout;
	int err;

	if (!out)
		return cli_file_error(path, errno);
	err = write(r->rx, out);
	if (out != stdout) {
		if (fclose(out) && !err)
			err = -errno;
	} else if (fflush(out) && !err) {
		err = -errno;
	}
	return err ? cli_file_error(path, err) : CLI_OK;
}

/* ---- the merge ----------------------------------------------------------------- */

static int on_record(struct tracecmd_input *handle, struct tep_record *rec, int cpu, void *data)
{
	struct report *r = data;
	const char *prefix = NULL;
	int i, err;

	if (r->o->cpu_set && (rec->cpu >= REPORT_CPUS_MAX || !r->o->cpus[rec->cpu]))
		return 0;
	if (!shown(r, rec))
		return 0;
	if (!r->rx) {
		for (i = 0; i < r->nhandles; i++)
			if (r->handles[i] == handle)
				prefix = r->names[i];
		print_record(r, rec, prefix);
		return 0;
	}
	err = export_record(r, rec);
	if (err)
		r->err = err;
	return err ? -1 : 0;
}

/*
 * Every buffer's events in one time order, as trace-cmd report merges them (the
 * top buffer first on a tie).  Under --cpu trace-cmd report 3.1.6 prints the top
 * buffer's events alone, still with the blank prefix: so do we.
 */
static int walk(struct report *r)
{
	int ret;

	if (r->nhandles > 1 && !r->o->cpu_set)
		ret = tracecmd_iterate_events_multi(r->handles, r->nhandles, on_record, r);
	else
		ret = tracecmd_iterate_events(r->handle, NULL, 0, on_record, r);
	if (ret < 0 && !r->err)
		r->err = -EIO;
	return r->err;
}

/* The handles of the file's instance buffers, after the top one's.  0 or -ENOMEM. */
static int open_instances(struct report *r)
{
	int n = tracecmd_buffer_instances(r->handle), i;

	r->handles = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*r->handles));
	r->names = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*r->names));
	if (!r->handles || !r->names)
		return -ENOMEM;
	r->handles[0] = r->handle;
	r->names[0] = "";
	r->nhandles = 1;
	for (i = 0; i < n; i++) {
		const char *name = tracecmd_buffer_instance_name(r->handle, i);
		struct tracecmd_input *h =
		    name ? tracecmd_buffer_instance_handle(r->handle, i) : NULL;

		if (!h) {
			cli_error("%s: cannot read buffer %d (%s)", r->o->input, i,
				  name ? name : "no name");
			continue;
		}
		r->handles[r->nhandles] = h;
		r->names[r->nhandles++] = name;
		if ((int)strlen(name) > r->width)
			r->width = (int)strlen(name);
	}
	if (r->nhandles == 1)
		r->names[0] = NULL; /* no prefix at all */
	return 0;
}

static int setup(struct report *r)
{
	const struct report_opts *o = r->o;
	unsigned int i;
	int err;

	if (o->nsec)
		tep_set_flag(r->tep, TEP_NSEC_OUTPUT);
	if (tracecmd_get_flags(r->handle) & REPORT_TC_FL_IN_USECS)
		r->time_fmt = o->nsec ? " %9.1d:" : " %6.1000d:";
	else
		r->time_fmt = "%12d:";
	/* the same format without the colon and its leading space */
	tep_func_repeat_format = (tracecmd_get_flags(r->handle) & REPORT_TC_FL_IN_USECS)
				     ? (o->nsec ? "%9.1d" : "%6.1000d")
				     : "%12d";
	for (i = 0; i < o->nr_filters; i++) {
		err = add_filter(r, o->filters[i].str, o->filters[i].neg);
		if (err)
			return err;
	}
	if (o->pids) {
		err = add_pid_filter(r, o->pids);
		if (err)
			return err;
	}
	r->fg_entry = tep_find_event_by_name(r->tep, "ftrace", "funcgraph_entry");
	r->fg_exit = tep_find_event_by_name(r->tep, "ftrace", "funcgraph_exit");
	r->function = tep_find_event_by_name(r->tep, "ftrace", "function");
	return 0;
}

static int run_exports(struct report *r)
{
	int err;

	r->rx = rx_new();
	if (!r->rx)
		return cli_file_error(r->o->input, ENOMEM);
	if (r->o->sort)
		rx_summary_sort(r->rx, r->o->sort); /* checked when parsed */
	err = walk(r);
	if (err)
		return cli_file_error(r->o->input, err);
	if (r->o->chrome) {
		err = write_export(r, r->o->chrome, rx_write_chrome);
		if (err)
			return err;
	}
	if (r->o->folded) {
		err = write_export(r, r->o->folded, rx_write_folded);
		if (err)
			return err;
	}
	if (r->o->summary)
		return write_export(r, r->o->summary, rx_write_summary);
	return CLI_OK;
}

/*
 * A latency recording (`record -p irqsoff` and the other latency tracers): its data is
 * the trace file's text, which trace-cmd report prints after the CPU count, and a
 * newline after it.  1 when it was one (printed), 0 when it has events, or -EIO.
 */
static int print_latency(struct report *r)
{
	char *buf = NULL;
	size_t size = 0;
	/* the reader gives text only from a latency file: -1 for any other */
	int n = tracecmd_latency_data_read(r->handle, &buf, &size);

	if (n < 0) {
		free(buf);
		return 0;
	}
	printf("cpus=%d\n", tep_get_cpus(r->tep));
	for (; n > 0; n = tracecmd_latency_data_read(r->handle, &buf, &size))
		fwrite(buf, 1, (size_t)n, stdout);
	putchar('\n');
	free(buf);
	return n < 0 ? -EIO : 1;
}

static int run(struct report *r)
{
	const struct report_opts *o = r->o;
	int err = setup(r);

	if (err)
		return err;
	if (o->show_funcs) {
		tep_print_funcs(r->tep);
		return CLI_OK;
	}
	if (o->show_printk) {
		tep_print_printk(r->tep);
		return CLI_OK;
	}
	err = print_latency(r);
	if (err)
		return err < 0 ? cli_file_error(o->input, -err) : CLI_OK;
	if (o->chrome || o->folded || o->summary)
		return run_exports(r);
	printf("cpus=%d\n", tep_get_cpus(r->tep));
	if (o->stat) {
		printf("\nKernel buffer statistics:\n"
		       "  Note: \"entries\" are the entries left in the kernel ring buffer and are "
		       "not\n"
		       "        recorded in the trace data. They should all be zero.\n\n");
		fflush(stdout);
		tracecmd_print_stats(r->handle);
		return CLI_OK;
	}
	err = walk(r);
	if (err)
		return cli_file_error(o->input, err);
	return CLI_OK;
}

int report_tracedat(const struct report_opts *o)
{
	struct report r = {.o = o};
	unsigned int i;
	int ret;

	/* before the file is opened: its plugins take their options when they load */
	for (i = 0; i < o->nr_plugin_opts; i++) {
		char *eq = strchr(o->plugin_opts[i], '=');

		if (eq)
			*eq = '\0';
		tep_plugin_add_option(o->plugin_opts[i], eq ? eq + 1 : NULL);
	}
	r.handle = tracecmd_open(o->input, o->no_plugins ? TRACECMD_FL_LOAD_NO_PLUGINS : 0);
	if (!r.handle) {
		cli_error("%s: cannot read this trace.dat", o->input);
		return CLI_FAIL;
	}
	r.tep = tracecmd_get_tep(r.handle);
	ret = open_instances(&r) ? cli_file_error(o->input, ENOMEM) : run(&r);
	for (i = 0; i < r.nfilters; i++)
		tep_filter_free(r.filters[i]);
	for (i = 0; i < r.nnegs; i++)
		tep_filter_free(r.negs[i]);
	free(r.filters);
	free(r.negs);
	rx_free(r.rx);
	for (i = 1; i < (unsigned int)r.nhandles; i++)
		tracecmd_close(r.handles[i]);
	free(r.handles);
	free(r.names);
	tracecmd_close(r.handle);
	if (fflush(stdout) || ferror(stdout))
		return cli_file_error("standard output", errno);
	return ret;
}

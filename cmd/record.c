// SPDX-License-Identifier: MIT
/*
 * record.c - `utrace record [-B NAME] -p TRACER [-g FUNC] [-l FUNC] [-n FUNC] [-P PID]
 * [-e EVENT] [-b KB] [-o FILE | -N HOST:PORT] [--] CMD [ARG...]`: trace one run of a
 * command and save the trace (-N: send it to a `trace-cmd listen` server, rawrec.c and
 * tcmsg.c).
 *
 * The steps are those a user would type: mount if nothing is mounted (and unmount
 * at the end), select the tracer (-b: the buffer size), clear the buffer, turn
 * tracing on, run CMD with libutrace.so preloaded, turn tracing off, copy `trace`
 * to FILE, say which CPUs lost events (before the next step empties the buffer's
 * counters), put the tracer back to nop (and the filters it set back to empty,
 * set_ftrace_pid and the buffer size as they were).  How CMD is started, watched
 * and stopped (SIGTERM, SIGHUP) is in record_run.c.
 *
 * -g, -l, -n (set_graph_function, set_ftrace_filter, set_ftrace_notrace) only take
 * functions utracefs knows, those of processes that sent their sites; CMD's are
 * not known before it runs, nor are its events (-e, set_event).  So CMD starts with UTRACE_RECORD_HOLD=FD, one end of
 * a socket pair: the runtime registers its sites before main(), says "r" and
 * waits; record then writes the filters (which the program's control thread
 * applies and acknowledges at once), clears the buffer and says "g".  -P writes
 * set_ftrace_pid before CMD starts and adds CMD's pid while it waits.  A CMD that
 * closes the socket without a word (not a traced program, or exec'd away) just
 * runs, without the filters; one that says "n" has no patch site, which record
 * tells its user.  The socket is passed on every run (without filters, record
 * answers "g" at once).  Like ftrace, the buffer is global: other traced
 * programs running at the same time are recorded too (unless -P).  The
 * exit status is CMD's.
 *
 * With -B NAME every step acts on instances/NAME instead of the top level: the
 * same files, in the instance's directory (record_session).  Only the mount is
 * common: CMD is pointed at it, whatever session it is recorded into.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"

/*
 * -g, -l, -n and -P may be given several times, as with trace-cmd: the words are
 * joined with spaces into one write, which the file parses as a list.
 */
int cli_add_word(struct cli_word_list *l, const char **dst, const char *word)
{
	size_t used = *dst ? strlen(l->buf) : 0;

	if (!*word || strspn(word, " \t\n") == strlen(word))
		return cli_usage_error("empty argument for %s", l->opt);
	if (used + 1 + strlen(word) >= sizeof(l->buf))
		return cli_usage_error("too many %s arguments", l->opt);
	if (!*dst)
		l->buf[0] = '\0';
	else
		strcat(l->buf, " ");
	strcat(l->buf, word);
	*dst = l->buf;
	return 0;
}

/* -P: process or thread ids, as set_ftrace_pid takes them (checked here for a
 * clear message; utracefs checks again). */
int cli_add_pid(struct cli_word_list *l, const char **dst, const char *arg)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || arg[0] == '+' || v >= 4194304)
		return cli_usage_error("-P %s: not a process id", arg);
	return cli_add_word(l, dst, arg);
}

/* -b KB: a size buffer_size_kb takes (a positive number of KB per CPU). */
static int parse_kb(const char *arg, unsigned long *kb)
{
	char *end;

	errno = 0;
	*kb = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || *kb == 0 || arg[0] == '-' || arg[0] == '+' ||
	    *kb > (1ul << 30))
		return cli_usage_error("-b %s: not a buffer size in KB", arg);
	return 0;
}

/*
 * -B NAME, as trace-cmd's: the options after it are the instance's.  The recording
 * is one text file, one buffer's: so one -B, and none of the options that choose
 * a session's tracing before it (they would be the top level's).  top_opt is the
 * first such option seen, 0 when none.
 */
static int set_instance(struct cli_record_opts *o, const char *name, int top_opt)
{
	if (o->instance)
		return cli_usage_error("-B %s: one -B per record (a recording holds one buffer)",
				       name);
	if (top_opt)
		return cli_usage_error("-%c before -B %s would set the top level: a recording "
				       "holds one buffer; give the options after -B",
				       top_opt, name);
	if (!cli_instance_name_ok(name))
		return cli_usage_error("bad instance name '%s'", name);
	o->instance = name;
	return 0;
}

/*
 * -N HOST:PORT, as trace-cmd takes it; an IPv6 address in brackets ([::1]:PORT), since
 * its own colons would be the port's.  0 or CLI_USAGE (said).
 */
static int parse_net(struct cli_record_opts *o, const char *arg)
{
	const char *colon = strrchr(arg, ':'), *host = arg;
	size_t hlen = colon ? (size_t)(colon - arg) : 0;

	if (arg[0] == '[') {
		const char *rb = strchr(arg, ']');

		if (!rb || rb[1] != ':')
			return cli_usage_error("-N %s: HOST:PORT ([ADDRESS]:PORT for IPv6)", arg);
		host = arg + 1;
		hlen = (size_t)(rb - host);
		colon = rb + 1;
	}
	if (!colon || !hlen || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1))
		return cli_usage_error("-N %s: HOST:PORT (a trace-cmd listen server)", arg);
	if (hlen >= sizeof(o->net_host) || strlen(colon + 1) >= sizeof(o->net_port))
		return cli_usage_error("-N %s: too long", arg);
	memcpy(o->net_host, host, hlen);
	o->net_host[hlen] = '\0';
	strcpy(o->net_port, colon + 1);
	o->net = arg;
	return 0;
}

int cli_record_parse(int argc, char **argv, struct cli_record_opts *o)
{
	bool first = true;
	int c, rc, top_opt = 0;

	static struct cli_word_list graph = {"-g"}, filter = {"-l"}, notrace = {"-n"}, pids = {"-P"},
				events = {"-e"};

	o->tracer = NULL;
	o->graph_funcs = NULL;
	o->filter_funcs = NULL;
	o->notrace_funcs = NULL;
	o->pids = NULL;
	o->events = NULL;
	o->nr_filters = 0;
	o->output = NULL;
	o->net = NULL;
	o->text = false;
	o->file_version = 7;
	o->buffer_kb = 0;
	o->instance = NULL;
	o->cmd = NULL;
	static const struct option longopts[] = {{"text", no_argument, NULL, 'T'},
						 {"file-version", required_argument, NULL, 'V'},
						 {0}};

	while ((c = cli_getopt_long(argc, argv, "+p:g:l:n:P:e:f:o:N:b:B:", longopts, &first)) !=
	       -1) {
		if (!o->instance && !top_opt && c > 0 && strchr("pglnPefb", c))
			top_opt = c;
		switch (c) {
		case 'h':
			return cli_print_usage(&cli_cmd_record);
		case 'p':
			o->tracer = optarg;
			break;
		case 'g':
		case 'l':
		case 'n':
			rc = cli_add_word(c == 'g' ? &graph : c == 'l' ? &filter : &notrace,
				      c == 'g' ? &o->graph_funcs
				      : c == 'l' ? &o->filter_funcs
						 : &o->notrace_funcs,
				      optarg);
			if (rc)
				return rc;
			break;
		case 'P':
			rc = cli_add_pid(&pids, &o->pids, optarg);
			if (rc)
				return rc;
			break;
		case 'e':
			rc = cli_add_word(&events, &o->events, optarg);
			if (rc)
				return rc;
			if (o->nr_filters == CLI_RECORD_FILTERS_MAX)
				return cli_usage_error("too many -e arguments");
			o->filters[o->nr_filters++] = (struct cli_event_filter){optarg, NULL};
			break;
		case 'f':
			if (!o->nr_filters || o->filters[o->nr_filters - 1].filter)
				return cli_usage_error("-f %s: a filter follows the -e EVENT it is for",
						       optarg);
			if (!*optarg)
				return cli_usage_error("empty filter for -f");
			o->filters[o->nr_filters - 1].filter = optarg;
			break;
		case 'o':
			if (!*optarg)
				return cli_usage_error("empty output file name");
			o->output = optarg;
			break;
		case 'N':
			rc = parse_net(o, optarg);
			if (rc)
				return rc;
			break;
		case 'b':
			rc = parse_kb(optarg, &o->buffer_kb);
			if (rc)
				return rc;
			break;
		case 'B':
			rc = set_instance(o, optarg, top_opt);
			if (rc)
				return rc;
			break;
		case 'T':
			o->text = true;
			break;
		case 'V':
			rc = cli_parse_file_version(optarg, &o->file_version);
			if (rc)
				return rc;
			break;
		default:
			return CLI_USAGE;
		}
	}
	/* as trace-cmd: the recording goes to a file or to a listener */
	if (o->net && o->output)
		return cli_usage_error("-N and -o: the recording goes to one of them");
	if (o->net && o->text)
		return cli_usage_error("-N and --text: a listener takes trace.dat only");
	/* the CPU files go where stdout's would (TMPDIR) */
	if (o->net)
		o->output = "-";
	if (!o->output)
		o->output = o->text ? CLI_RECORD_DEFAULT_TEXT : CLI_RECORD_DEFAULT_OUTPUT;
	/* As trace-cmd: a graph function without a tracer means function_graph. */
	if (!o->tracer && o->graph_funcs)
		o->tracer = CLI_GRAPH_TRACER;
	/* and a function filter without one means function */
	if (!o->tracer && (o->filter_funcs || o->notrace_funcs || o->pids))
		o->tracer = "function";
	/* and events alone, no tracer */
	if (!o->tracer && o->events)
		o->tracer = "nop";
	if (!o->tracer)
		return cli_usage_error("no tracer given (-p TRACER; 'utrace list -t' lists them)");
	if (o->graph_funcs && strcmp(o->tracer, CLI_GRAPH_TRACER))
		return cli_usage_error("-g needs the %s tracer, not '%s'", CLI_GRAPH_TRACER,
				       o->tracer);
	/* as trace-cmd: a latency tracer's trace is saved at the end, not sent */
	if (o->net && cli_is_latency_tracer(o->tracer))
		return cli_usage_error("-N: not with a latency tracer (%s): its trace is saved "
				       "at the end, not sent",
				       o->tracer);
	if (optind >= argc)
		return cli_usage_error("no command to run (utrace record -p %s -- CMD [ARG...])",
				       o->tracer);
	o->cmd = argv + optind;
	return -1;
}

bool cli_is_latency_tracer(const char *name)
{
	/* wakeup_dl is not among them: trace-cmd streams it, and so do we */
	static const char *const latency[] = {"irqsoff", "preemptoff", "preemptirqsoff",
					      "wakeup", "wakeup_rt"};

	for (size_t i = 0; i < sizeof(latency) / sizeof(latency[0]); i++)
		if (!strcmp(name, latency[i]))
			return true;
	return false;
}

/* Is NAME one of the words of available_tracers? */
static int check_tracer(const char *dir, const char *name)
{
	char *list, *words, *tok, *save;
	bool found = false;
	int err = cli_read_value(dir, "available_tracers", &list);

	if (err) {
		char path[PATH_MAX];

		cli_path(path, sizeof(path), dir, "available_tracers");
		return cli_file_error(path, err);
	}
	words = strdup(list);
	for (tok = words ? strtok_r(words, " \n", &save) : NULL; tok;
	     tok = strtok_r(NULL, " \n", &save))
		found |= !strcmp(tok, name);
	free(words);
	if (!found)
		cli_usage_error("unknown tracer '%s' (available: %s)", name, list);
	free(list);
	return found ? 0 : CLI_USAGE;
}

/* Copy the live trace to the output file; 0 or CLI_FAIL after a message. */
static int save_trace(const char *dir, const char *output, int fd)
{
	char path[PATH_MAX];
	const char *failed;
	int err;

	cli_path(path, sizeof(path), dir, "trace");
	err = cli_copy(path, fd, &failed);
	if (err)
		return cli_file_error(failed ? failed : output, err);
	return 0;
}

/*
 * `echo VALUE > DIR/NAME`: filter files replace their list only when opened with
 * O_TRUNC (without it a write appends, as `>>`).  An empty VALUE writes nothing:
 * the truncation alone empties the list.  0 or -errno, the close's error included
 * (filters are committed on close).
 */
int cli_write_replace(const char *dir, const char *name, const char *value)
{
	char path[PATH_MAX], line[4200];
	size_t len = strlen(value);
	int fd, err = cli_path(path, sizeof(path), dir, name);

	if (err)
		return err;
	if (len + 2 > sizeof(line))
		return -E2BIG;
	memcpy(line, value, len);
	line[len++] = '\n';
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (len > 1 && write(fd, line, len) != (ssize_t)len)
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/*
 * Write FUNCS to a filter file (set_graph_function for -g, set_ftrace_filter for
 * -l, set_ftrace_notrace for -n).  The file may be missing (an older utracefs) or
 * refuse a pattern that matches no function (EINVAL, as the kernel): say which,
 * rather than a bare errno.  0 or CLI_FAIL.
 */
int cli_set_funcs(const char *dir, const char *file, const char *opt, const char *funcs)
{
	char path[PATH_MAX];
	int err = cli_write_replace(dir, file, funcs);

	if (!err)
		return 0;
	cli_path(path, sizeof(path), dir, file);
	if (err == -ENOENT)
		cli_error("%s %s: this utracefs has no %s (%s: %s)", opt, funcs, file, path,
			  strerror(-err));
	else if (err == -EINVAL)
		cli_error("%s %s: no traceable function matches (%s: %s; "
			  "'utrace list -f' lists them)",
			  opt, funcs, path, strerror(-err));
	else
		cli_error("%s %s: %s: %s", opt, funcs, path, strerror(-err));
	return CLI_FAIL;
}

/*
 * -e: enable the events (set_event), once CMD's own are known.  A name that is
 * no event is EINVAL, as the kernel's: say so.  0 or CLI_FAIL.
 */
static int set_events(const char *dir, const char *events)
{
	char path[PATH_MAX];
	int err = cli_write_replace(dir, "set_event", events);

	if (!err)
		return 0;
	cli_path(path, sizeof(path), dir, "set_event");
	if (err == -EINVAL)
		cli_error("-e %s: no such event (%s: %s; 'utrace list -e' lists them)", events,
			  path, strerror(-err));
	else
		cli_error("-e %s: %s: %s", events, path, strerror(-err));
	return CLI_FAIL;
}

/*
 * The filter file of -e EVENT: events/SYSTEM/EVENT/filter, or events/SYSTEM/filter
 * for a whole system (SYSTEM:*, SYSTEM: or a bare word naming a system).
 */
static void filter_file(const char *dir, const char *event, char *path, size_t size)
{
	const char *colon = strchr(event, ':');
	char sys[256];
	struct stat st;

	if (colon && colon[1] && strcmp(colon + 1, "*")) {
		snprintf(path, size, "%s/events/%.*s/%s/filter", dir, (int)(colon - event), event,
			 colon + 1);
		return;
	}
	snprintf(sys, sizeof(sys), "%.*s", colon ? (int)(colon - event) : (int)strlen(event), event);
	snprintf(path, size, "%s/events/%s/filter", dir, sys);
	if (!colon && stat(path, &st)) { /* a bare event name: find its system */
		glob_t g;
		char pat[PATH_MAX];

		snprintf(pat, sizeof(pat), "%s/events/*/%s/filter", dir, event);
		if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc)
			snprintf(path, size, "%s", g.gl_pathv[0]);
		globfree(&g);
	}
}

/* -f: each filter into its event's (or system's) file; set: how many were written. */
static int set_filters(const struct cli_record_opts *o, const char *dir, unsigned int *set)
{
	char path[PATH_MAX];

	for (unsigned int i = 0; i < o->nr_filters; i++) {
		const struct cli_event_filter *f = &o->filters[i];
		int fd, err = 0;

		if (!f->filter)
			continue;
		filter_file(dir, f->event, path, sizeof(path));
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0 || write(fd, f->filter, strlen(f->filter)) != (ssize_t)strlen(f->filter))
			err = errno;
		if (fd >= 0 && close(fd) && !err)
			err = errno;
		if (err) {
			cli_error("-f %s: %s: %s (error_log says where)", f->filter, path, strerror(err));
			/* the file shows the error now: back to none, as it was */
			fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
			if (fd >= 0) {
				if (write(fd, "0\n", 2) != 2) {
					/* nothing more to do: the message above says it failed */
				}
				close(fd);
			}
			return CLI_FAIL;
		}
		(*set)++;
	}
	return 0;
}

/* Every filter record set back to none. */
static int clear_filters(const struct cli_record_opts *o, const char *dir, unsigned int set)
{
	char path[PATH_MAX];
	int tail = 0;

	for (unsigned int i = 0; i < o->nr_filters && set; i++) {
		int fd;

		if (!o->filters[i].filter)
			continue;
		set--;
		filter_file(dir, o->filters[i].event, path, sizeof(path));
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0 || write(fd, "0\n", 2) != 2)
			tail |= cli_file_error(path, errno);
		if (fd >= 0)
			close(fd);
	}
	return tail;
}

/* What record changed for the run, put back at the end. */
struct setup {
	bool graph, filter, notrace; /* written: emptied again */
	bool pids;		     /* written: old_pids put back */
	bool events;		     /* set_event written: emptied again */
	unsigned int filters;	     /* -f filters written: set back to none */
	char *old_pids;		     /* set_ftrace_pid before ("no pid": empty) */
};

/* Append CMD's pid to set_ftrace_pid (-P: the run traces CMD and the PIDs). */
int cli_add_cmd_pid(const char *dir, pid_t pid)
{
	char path[PATH_MAX], buf[32];
	int fd, len = snprintf(buf, sizeof(buf), "%d\n", (int)pid), err = 0;

	cli_path(path, sizeof(path), dir, "set_ftrace_pid");
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return cli_file_error(path, errno);
	if (write(fd, buf, (size_t)len) != len)
		err = errno;
	if (close(fd) && !err)
		err = errno;
	return err ? cli_file_error(path, err) : 0;
}

/* The filters that need CMD's functions known (CMD is held for them). */
static int held_setup(const struct cli_record_opts *o, const char *dir, pid_t pid,
		      struct setup *st)
{
	int rc = 0;

	if (o->filter_funcs) {
		rc = cli_set_funcs(dir, "set_ftrace_filter", "-l", o->filter_funcs);
		st->filter = !rc;
	}
	if (!rc && o->notrace_funcs) {
		rc = cli_set_funcs(dir, "set_ftrace_notrace", "-n", o->notrace_funcs);
		st->notrace = !rc;
	}
	if (!rc && o->graph_funcs) {
		rc = cli_set_funcs(dir, "set_graph_function", "-g", o->graph_funcs);
		st->graph = !rc;
	}
	if (!rc && o->pids)
		rc = cli_add_cmd_pid(dir, pid);
	if (!rc && o->events && !st->events) {
		rc = set_events(dir, o->events);
		st->events = !rc;
	}
	if (!rc && st->events && !st->filters)
		rc = set_filters(o, dir, &st->filters);
	return rc;
}

/* What CMD's run showed (besides its exit status). */
struct run_result {
	bool ran;      /* exec succeeded */
	bool no_sites; /* CMD said it has no patch sites */
	int fail;      /* CLI_FAIL: a filter could not be set (CMD killed) */
};

/*
 * Run CMD and return its exit status (128 + signal when killed), or -errno.
 * CMD tells on a socket (UTRACE_RECORD_HOLD) whether it has patch sites, and
 * with sites waits before main() until record says "g": with -g, -l, -n or -P
 * the filters are set then (st says which), and a failure there kills it.
 */
static int run_traced(const struct cli_record_opts *o, const char *lib, const char *mnt,
		      const char *dir, struct setup *st, struct cli_output *out,
		      struct cli_rawrec *rr, struct run_result *res)
{
	bool setup = o->graph_funcs || o->filter_funcs || o->notrace_funcs || o->pids || o->events;
	int sv0, err, said;
	pid_t pid;

	*res = (struct run_result){0};
	if (!cli_start_held(o->cmd, lib, mnt, &pid, &sv0, &err))
		return err;
	res->ran = true;
	cli_output_start(out);
	said = cli_wait_ready(sv0, pid);
	res->no_sites = said == 'n';
	if (said == 'r') {
		if (setup) {
			res->fail = held_setup(o, dir, pid, st);
			if (!res->fail)
				res->fail = cli_clear_trace(dir); /* nothing of the wait stays */
		}
		if (res->fail)
			kill(pid, SIGKILL);
		else if (send(sv0, "g", 1, MSG_NOSIGNAL) != 1) /* CMD may be gone */
			said = 0;
	}
	/* the pages are taken from now on: the buffer was cleared for CMD's start */
	if (rr && !res->fail) {
		cli_rawrec_reserve(rr, out->fd);
		if (cli_rawrec_start(rr))
			res->fail = CLI_FAIL;
	}
	close(sv0);
	err = cli_reap(pid);
	if (err < 0)
		return err;
	if (o->events && said != 'r' && !st->events) {
		/* CMD did not wait (not traced, exec'd away): its events from now on */
		fprintf(stderr, "%s: warning: %s did not wait to be set up; -e applied late\n",
			cli_name(), o->cmd[0]);
		st->events = !set_events(dir, o->events);
	}
	if (o->graph_funcs && said != 'r')
		fprintf(stderr, "%s: warning: -g %s: %s did not wait to be set up (not traced?); "
			"set_graph_function not applied\n", cli_name(), o->graph_funcs, o->cmd[0]);
	else if (setup && said != 'r')
		fprintf(stderr, "%s: warning: %s did not wait to be set up (not traced?); "
			"-l/-n/-P not applied to it\n", cli_name(), o->cmd[0]);
	return err;
}

/* buffer_size_kb as it can be written back: "7 (expanded: 1408)" is 1408; NULL: none. */
static char *buffer_size_now(const char *dir)
{
	unsigned long kb = cli_buffer_kb(dir);
	char *val;

	if (!kb || asprintf(&val, "%lu", kb) < 0)
		return NULL;
	return val;
}

/* Select the tracer (and -b's buffer size), empty the buffer, turn tracing on. */
static int prepare(const struct cli_record_opts *o, const char *dir, char **old_kb)
{
	char kb[32];
	int rc = check_tracer(dir, o->tracer);

	if (!rc && o->buffer_kb) {
		*old_kb = buffer_size_now(dir);
		snprintf(kb, sizeof(kb), "%lu", o->buffer_kb);
		rc = cli_set(dir, "buffer_size_kb", kb);
	}
	if (!rc)
		rc = cli_set(dir, "current_tracer", o->tracer);
	if (!rc)
		rc = cli_clear_trace(dir);
	/* a latency tracer keeps the longest section from here on, as trace-cmd starts it */
	if (!rc && cli_is_latency_tracer(o->tracer))
		rc = cli_set(dir, "tracing_max_latency", "0");
	if (!rc)
		rc = cli_set(dir, "tracing_on", "1");
	return rc;
}

/*
 * Events lost to a full buffer: said per CPU, before the tracer is put back (which
 * empties the buffer and its counters, as in ftrace), with the way to keep them.
 */
static void report_lost(const char *dir, const char *output)
{
	char *kb;

	if (!cli_report_lost(dir))
		return;
	kb = buffer_size_now(dir);
	cli_error("%s misses the events lost: the buffer (%s KB per CPU) was too small; "
		  "-b KB makes it larger",
		  output, kb ? kb : "?");
	free(kb);
}

/* After CMD's run: stop tracing, save, say what was lost or could not be traced. */
static int finish(const struct cli_record_opts *o, const char *mnt, const char *dir,
		  struct cli_output *out, struct cli_rawrec *rr, const struct run_result *res)
{
	const char *dest = o->net ? o->net : o->output;
	int rc = cli_set(dir, "tracing_on", "0");

	if (!rc && rr && o->net) {
		cli_rawrec_stop(rr);
		rc = cli_rawrec_send(rr, &(struct cli_rawrec_net){.mnt = mnt,
								  .dir = dir,
								  .host = o->net_host,
								  .port = o->net_port,
								  .dest = o->net,
								  .version = o->file_version});
	} else if (!rc && rr) {
		cli_rawrec_stop(rr);
		rc = cli_rawrec_write(rr, &(struct cli_rawrec_out){.mnt = mnt,
								   .dir = dir,
								   .path = o->output,
								   .fd = out->fd,
								   .version = o->file_version});
	} else if (!rc && !o->text && cli_is_latency_tracer(o->tracer)) {
		rc = cli_latency_write(&(struct cli_rawrec_out){.mnt = mnt,
								.dir = dir,
								.path = o->output,
								.fd = out->fd,
								.version = o->file_version});
	} else if (!rc) {
		rc = save_trace(dir, o->output, out->fd);
	}
	if (!rc && o->net)
		fprintf(stderr, "%s: trace sent to %s\n", cli_name(), o->net);
	else if (!rc && out->fd != STDOUT_FILENO)
		fprintf(stderr, "%s: trace saved to %s\n", cli_name(), o->output);
	if (!rc)
		report_lost(dir, dest);
	/* (a CMD such as `sh -c PROG` has none, while PROG is traced) */
	if (res->no_sites && !(rr ? cli_rawrec_events(rr) : cli_events_written(dir)))
		fprintf(stderr,
			"%s: warning: %s has no patch sites: none of its functions can be traced "
			"(build it with the flags of 'utrace cflags')\n",
			cli_name(), o->cmd[0]);
	if (cli_stop_signal())
		fprintf(stderr, "%s: %s: %s stopped%s\n", cli_name(), strsignal(cli_stop_signal()),
			o->cmd[0], rc ? "" : ", its trace saved");
	return rc;
}

/* Put back what record changed: tracer, tracing_on, filters, pid list, buffer size. */
static int restore(const struct cli_record_opts *o, const char *dir, const char *was_on,
		   struct setup *st, const char *old_kb)
{
	static const char *const files[] = {"set_graph_function", "set_ftrace_filter",
					    "set_ftrace_notrace"};
	const bool set[] = {st->graph, st->filter, st->notrace};
	/* Leave the tracer as trace-cmd does, and tracing_on as it was. */
	int tail = cli_set(dir, "current_tracer", "nop");

	tail |= cli_set(dir, "tracing_on", was_on && !strcmp(was_on, "0") ? "0" : "1");
	/* Emptied, the filters let every function be traced and graphed again. */
	for (int i = 0; i < 3; i++) {
		int err = set[i] ? cli_write_replace(dir, files[i], "") : 0;

		if (err)
			tail |= cli_file_error(files[i], err);
	}
	/* set_ftrace_pid as it was (its ids read back as they are written) */
	if (st->pids) {
		bool none = !st->old_pids || !strncmp(st->old_pids, "no pid", 6);
		char buf[4096];
		int err;

		snprintf(buf, sizeof(buf), "%s", none ? "" : st->old_pids);
		for (char *p = buf; *p; p++)
			if (*p == '\n')
				*p = ' ';
		err = cli_write_replace(dir, "set_ftrace_pid", buf);
		if (err)
			tail |= cli_file_error("set_ftrace_pid", err);
	}
	tail |= clear_filters(o, dir, st->filters);
	if (st->events) {
		int err = cli_write_replace(dir, "set_event", "");

		if (err)
			tail |= cli_file_error("set_event", err);
	}
	if (old_kb)
		tail |= cli_set(dir, "buffer_size_kb", old_kb);
	return tail;
}

/*
 * Trace one run of o->cmd into the session at dir (the mount mnt's top level or one
 * of its instances) and save it to out.
 */
static int record(const struct cli_record_opts *o, const char *mnt, const char *dir,
		  const char *lib, struct cli_output *out)
{
	char *was_on = NULL, *old_kb = NULL;
	struct setup st = {0};
	struct run_result res = {0};
	struct cli_rawrec *rr = NULL;
	int rc, status, tail;

	if (cli_read_value(dir, "tracing_on", &was_on))
		was_on = NULL;
	rc = prepare(o, dir, &old_kb);
	/* (an open trace_pipe_raw keeps the tracer: opened once it is set); a latency
	 * tracer's trace is its trace file's text at the end, as trace-cmd saves it */
	if (!rc && !o->text && !cli_is_latency_tracer(o->tracer))
		rc = cli_rawrec_open(&rr, dir, o->output, "trace_pipe_raw",
				     isatty(STDERR_FILENO));
	if (rc)
		goto out;
	if (o->pids) {
		/* before CMD starts: only the PIDs (and CMD, added when it waits) */
		if (cli_read_value(dir, "set_ftrace_pid", &st.old_pids))
			st.old_pids = NULL;
		rc = cli_write_replace(dir, "set_ftrace_pid", o->pids);
		if (rc) {
			rc = cli_file_error("set_ftrace_pid", rc);
			goto out;
		}
		st.pids = true;
	}
	/* events known already (from earlier runs) are on from CMD's first instruction */
	if (o->events && !cli_write_replace(dir, "set_event", o->events)) {
		st.events = true;
		rc = set_filters(o, dir, &st.filters);
		if (rc)
			goto out;
	}
	status = run_traced(o, lib, mnt, dir, &st, out, rr, &res);
	if (res.fail) {
		rc = res.fail;
		goto out;
	}
	if (status < 0) {
		rc = cli_file_error(o->cmd[0], status);
		goto out;
	}
	if (res.ran)
		rc = finish(o, mnt, dir, out, rr, &res);
	else if (cli_stop_signal())
		cli_error("%s: %s not started, nothing recorded", strsignal(cli_stop_signal()),
			  o->cmd[0]);
	if (status)
		rc = status; /* CMD's failure says more than ours */
out:
	cli_rawrec_free(rr); /* before the tracer is put back */
	tail = restore(o, dir, was_on, &st, old_kb);
	free(st.old_pids);
	free(was_on);
	free(old_kb);
	return rc ? rc : tail ? CLI_FAIL : 0;
}

/*
 * Record into the top level, or into the instance of -B: made for the run when
 * missing and removed again afterwards (one that was there stays), as trace-cmd
 * does.  The top level is not touched then.
 */
static int record_session(const struct cli_record_opts *o, const char *mnt, const char *lib,
			  struct cli_output *out)
{
	char dir[PATH_MAX];
	bool made;
	int rc;

	if (!o->instance)
		return record(o, mnt, mnt, lib, out);
	rc = cli_instance_make(dir, sizeof(dir), mnt, o->instance, &made);
	if (rc)
		return rc;
	rc = record(o, mnt, dir, lib, out);
	if (made && cli_remove_instance(dir))
		rc = rc ? rc : CLI_FAIL;
	return rc;
}

static int run(int argc, char **argv)
{
	struct cli_record_opts o;
	struct cli_output out;
	char dir[PATH_MAX], lib[PATH_MAX];
	int rc = cli_record_parse(argc, argv, &o), mounted, err;

	if (rc >= 0)
		return rc;
	rc = cli_traced_paths(o.cmd[0], dir, lib);
	if (rc >= 0)
		return rc;
	if (o.net)
		out = (struct cli_output){.path = o.net, .fd = -1}; /* nothing to open */
	else if (cli_output_open(&out, o.output))
		return CLI_FAIL;
	cli_catch_stop_signals();
	mounted = cli_mount(dir, NULL);
	if (mounted < 0) {
		rc = CLI_FAIL;
	} else {
		rc = record_session(&o, dir, lib, &out);
		if (!mounted && cli_umount(dir, false))
			rc = rc ? rc : CLI_FAIL;
	}
	err = o.net ? 0 : cli_output_close(&out);
	return rc ? rc : err;
}

const struct cli_command cli_cmd_record = {
	.name = "record",
	.summary = "trace one run of a command and save the trace",
	.run = run,
	.usage = "usage: utrace record [-B NAME] -p TRACER [-g FUNC]... [-l FUNC]...\n"
		 "                     [-n FUNC]... [-P PID]... [-e EVENT [-f FILTER]]... [-b KB]\n"
		 "                     [-o FILE | -N HOST:PORT] [--file-version 6|7] [--text]\n"
		 "                     [--] CMD [ARG...]\n"
		 "\n"
		 "Run CMD with the utrace runtime (libutrace.so) preloaded, trace it with\n"
		 "TRACER and save the trace to FILE.  utracefs is mounted for the run if it\n"
		 "is not mounted yet (and unmounted afterwards).  The tracer is set, the\n"
		 "buffer cleared, tracing turned on; when CMD exits tracing is turned off,\n"
		 "the trace saved and the tracer put back to nop.  The buffer is shared by\n"
		 "every traced program, as in ftrace: others running meanwhile show too.\n"
		 "^C reaches CMD; the trace is saved when it exits.  SIGTERM and SIGHUP\n"
		 "are passed on to CMD, with the same end.  Events lost to a full buffer\n"
		 "are counted per CPU at the end.\n"
		 "\n"
		 "  -p TRACER  the tracer: function, function_graph (calls and returns drawn\n"
		 "             as a call graph with durations), or nop (trace_printk() lines\n"
		 "             only); 'utrace list -t' lists them\n"
		 "  -g FUNC    graph only FUNC and what it calls (set_graph_function; globs\n"
		 "             as in the kernel).  Repeat for more functions.  Implies\n"
		 "             -p function_graph; emptied again at the end\n"
		 "  -l FUNC    trace only FUNC (set_ftrace_filter; globs, !FUNC, mod:...).\n"
		 "             Repeat for more.  Implies -p function; emptied at the end\n"
		 "  -n FUNC    never trace FUNC (set_ftrace_notrace); as -l\n"
		 "  -P PID     trace only CMD and process (or thread) PID, other traced\n"
		 "             programs not (set_ftrace_pid).  Repeat for more; put back as\n"
		 "             it was at the end\n"
		 "  -e EVENT   enable EVENT (set_event: SYSTEM:EVENT, SYSTEM:*, a system or\n"
		 "             an event name), CMD's own events included.  Repeat for more.\n"
		 "             Alone, without -p, records events only (tracer nop);\n"
		 "             disabled again at the end\n"
		 "  -f FILTER  the filter of the -e EVENT before it (its filter file; a\n"
		 "             system's for SYSTEM:*), the kernel's language: 'pid > 10 &&\n"
		 "             comm ~ \"w*\"'; set back to none at the end\n"
		 "  -b KB      buffer_size_kb for the run (KB per CPU); put back at the end\n"
		 "  -B NAME    record into instance NAME (instances/NAME) instead of the top\n"
		 "             level, which is left as it is: the options after -B are the\n"
		 "             instance's (before it they would be the top's: refused, as a\n"
		 "             recording holds one buffer; one -B only).  NAME is made for\n"
		 "             the run if missing and removed at the end; one that was there\n"
		 "             stays\n"
		 "  -o FILE    where to save the trace (default " CLI_RECORD_DEFAULT_OUTPUT
		 ", with --text\n"
		 "             " CLI_RECORD_DEFAULT_TEXT "; - is stdout): a trace-cmd data file\n"
		 "             that 'utrace report', 'trace-cmd report' and KernelShark read.\n"
		 "             The buffers are drained into it while CMD runs (a line on a\n"
		 "             terminal shows events, MB and events lost), so a long run is\n"
		 "             not limited by the buffer size\n"
		 "  -N HOST:PORT\n"
		 "             send the recording to a trace-cmd listen server instead of\n"
		 "             a file ('trace-cmd listen -p PORT' on HOST, trace-cmd 3.x),\n"
		 "             which saves it as a trace.dat named after this client: one\n"
		 "             collector for the traces of many machines.  The data goes at\n"
		 "             the end of the run, not live (kept in files in $TMPDIR\n"
		 "             meanwhile): the symbols the file carries are known only\n"
		 "             after the last page.  [ADDRESS]:PORT for IPv6\n"
		 "  --file-version 6|7\n"
		 "             the trace.dat version (default 7, as trace-cmd 3 writes; 6\n"
		 "             for older readers; both for -N)\n"
		 "  --text     save the text of the trace file instead (what 'cat trace'\n"
		 "             shows at the end, the buffer's size at most); 'utrace\n"
		 "             report' prints it back\n"
		 "\n"
		 "The latency tracers (irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt,\n"
		 "as trace-cmd counts them) are not streamed: tracing_max_latency is set to 0\n"
		 "before CMD runs, and at the end the trace file's text (the longest section,\n"
		 "in the latency format) is saved in FILE as trace-cmd's latency file, which\n"
		 "'utrace report' and 'trace-cmd report' print.  Not with -N.\n"
		 "\n"
		 "The options of the mount (trace_options, such as funcgraph-proc) are used as\n"
		 "they are.  The exit status is CMD's (128+N when signal N killed it; 127 when\n"
		 "it could not be found, 126 when it could not run: then FILE is left as it\n"
		 "was).  Only functions compiled with the flags of 'utrace cflags' are traced\n"
		 "(a CMD with none is warned about).\n",
};

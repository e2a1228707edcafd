// SPDX-License-Identifier: MIT
/*
 * profile.c - `utrace profile [-l FUNC]... [-P PID]... [--] CMD [ARG...]`: run CMD
 * with the function profiler (function_profile_enabled) and print the table of
 * trace_stat/functionN summed over every CPU, sorted by time.
 *
 * CMD starts as record starts it (record_run.c): held before main() until its
 * functions are named, so that -l (set_ftrace_filter) and -P (set_ftrace_pid,
 * CMD added) hold from its first call.  The profiler is enabled (counts from
 * zero) before CMD starts and disabled once it has ended and the table is read;
 * the filters are put back as record puts them back.  The per-CPU tables are read
 * as text: a sum's time keeps the nanoseconds the files show (all of them up
 * to 9999.999 us), and its s^2 is worked back from theirs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd.h"
#include "ut_profile_fmt.h"

struct profile_opts {
	const char *filter_funcs; /* -l */
	const char *pids;	  /* -P */
	char **cmd;
};

static int parse(int argc, char **argv, struct profile_opts *o)
{
	static struct cli_word_list filter = {"-l"}, pids = {"-P"};
	bool first = true;
	int c, rc;

	*o = (struct profile_opts){0};
	while ((c = cli_getopt(argc, argv, "+l:P:", &first)) != -1) {
		switch (c) {
		case 'h':
			return cli_print_usage(&cli_cmd_profile);
		case 'l':
			rc = cli_add_word(&filter, &o->filter_funcs, optarg);
			break;
		case 'P':
			rc = cli_add_pid(&pids, &o->pids, optarg);
			break;
		default:
			return CLI_USAGE;
		}
		if (rc)
			return rc;
	}
	if (optind >= argc)
		return cli_usage_error("no command to profile");
	o->cmd = &argv[optind];
	return -1;
}

/* A duration column ("10291.81 us") back in ns; the rest of the line after it. */
static char *duration_ns(char *s, double *ns)
{
	char *end;

	*ns = strtod(s, &end) * 1000.0;
	if (end == s)
		return NULL;
	return strstr(end, " us") ? strstr(end, " us") + 3 : NULL;
}

/* One row of a trace_stat line; 0, or -1 for a line that is no row. */
static int parse_row(char *line, struct ut_prof_row *r)
{
	char name[sizeof(r->name)], *p;
	unsigned long long hits;
	double t, avg, s2, sq;
	int n;

	if (sscanf(line, " %127s %llu %n", name, &hits, &n) != 2 || !hits)
		return -1;
	p = duration_ns(line + n, &t);
	p = p ? duration_ns(p, &avg) : NULL;
	p = p ? duration_ns(p, &s2) : NULL;
	if (!p)
		return -1;
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->hits = hits;
	r->time_ns = (uint64_t)(t + 0.5);
	/*
	 * s2 (shown in "us") is (n Σx² - (Σx)²) / (n (n - 1) 1000) ns², the file's
	 * figure / 1000, rounded down: Σx² worked back from it is rounded up, so
	 * that one CPU's row prints its s^2 again (never below 0).
	 */
	sq = (s2 * 1000.0 * (double)hits * (double)(hits - 1) + t * t) / (double)hits;
	r->sq_ns = (uint64_t)sq;
	if ((double)r->sq_ns < sq)
		r->sq_ns++;
	return 0;
}

/* Every CPU's rows of dir/trace_stat into *rows (malloc'ed); the count, or -errno. */
static long read_rows(const char *dir, struct ut_prof_row **rows)
{
	size_t n = 0, cap = 0;
	char path[PATH_MAX];

	*rows = NULL;
	for (unsigned int cpu = 0;; cpu++) {
		char *text, *line, *save = NULL;
		size_t len;
		int err;

		if ((size_t)snprintf(path, sizeof(path), "%s/trace_stat/function%u", dir, cpu) >=
		    sizeof(path))
			return -ENAMETOOLONG;
		err = cli_read_file(path, &text, &len);
		if (err == -ENOENT && cpu > 0)
			break;
		if (err)
			return err;
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			struct ut_prof_row r;

			if (parse_row(line, &r))
				continue;
			if (n == cap) {
				struct ut_prof_row *m =
				    realloc(*rows, (cap = cap ? 2 * cap : 64) * sizeof(r));
				if (!m) {
					free(text);
					return -ENOMEM;
				}
				*rows = m;
			}
			(*rows)[n++] = r;
		}
		free(text);
	}
	return (long)n;
}

static int print_table(const char *dir)
{
	struct ut_prof_row *rows;
	long n = read_rows(dir, &rows);
	char line[512];

	if (n < 0)
		return cli_file_error("trace_stat", (int)n);
	n = (long)ut_prof_merge(rows, (size_t)n);
	fputs(UT_PROF_HEADER, stdout);
	for (long i = 0; i < n; i++) {
		ut_prof_line(line, sizeof(line), &rows[i], 0);
		fputs(line, stdout);
	}
	free(rows);
	return fflush(stdout) ? CLI_FAIL : 0;
}

/*
 * Start CMD held; once its functions are named set -l and -P (CMD added), then
 * let it go and wait for it.  *set_filter, *set_pids: what was written.  CMD's
 * exit status, or -errno; *fail: a filter could not be set (CMD killed).
 */
static int run_held(const struct profile_opts *o, const char *lib, const char *mnt,
		    bool *set_filter, int *fail)
{
	int sock, status;
	pid_t pid;

	if (!cli_start_held(o->cmd, lib, mnt, &pid, &sock, &status))
		return status;
	if (cli_wait_ready(sock, pid) == 'r') {
		if (o->filter_funcs) {
			*fail = cli_set_funcs(mnt, "set_ftrace_filter", "-l", o->filter_funcs);
			*set_filter = !*fail;
		}
		if (!*fail && o->pids)
			*fail = cli_add_cmd_pid(mnt, pid);
		if (*fail)
			kill(pid, SIGKILL);
		else
			send(sock, "g", 1, MSG_NOSIGNAL); /* CMD may be gone */
	} else if (o->filter_funcs || o->pids) {
		fprintf(stderr,
			"%s: warning: %s did not wait to be set up (not traced?); "
			"-l/-P not applied to it\n",
			cli_name(), o->cmd[0]);
	}
	close(sock);
	return cli_reap(pid);
}

static int profile(const struct profile_opts *o, const char *mnt, const char *lib)
{
	char *old_pids = NULL;
	bool set_filter = false;
	int rc = 0, fail = 0, status, tail = 0;

	if (o->pids) {
		if (cli_read_value(mnt, "set_ftrace_pid", &old_pids))
			old_pids = NULL;
		if (cli_write_replace(mnt, "set_ftrace_pid", o->pids))
			return cli_file_error("set_ftrace_pid", -EINVAL);
	}
	/* 0 then 1: the counts start from zero even when it was on */
	rc = cli_set(mnt, "function_profile_enabled", "0");
	if (!rc)
		rc = cli_set(mnt, "function_profile_enabled", "1");
	if (rc)
		goto out;
	status = run_held(o, lib, mnt, &set_filter, &fail);
	if (fail)
		rc = fail;
	else if (status < 0)
		rc = cli_file_error(o->cmd[0], status);
	else
		rc = print_table(mnt);
	if (!rc && status > 0)
		rc = status; /* CMD's failure says more than ours */
out:
	tail |= cli_set(mnt, "function_profile_enabled", "0");
	if (set_filter)
		tail |= cli_write_replace(mnt, "set_ftrace_filter", "") ? CLI_FAIL : 0;
	if (o->pids) {
		const char *was = old_pids && strcmp(old_pids, "no pid") ? old_pids : "";

		tail |= cli_write_replace(mnt, "set_ftrace_pid", was) ? CLI_FAIL : 0;
	}
	free(old_pids);
	return rc ? rc : tail ? CLI_FAIL : 0;
}

static int run(int argc, char **argv)
{
	struct profile_opts o;
	char dir[PATH_MAX], lib[PATH_MAX];
	int rc = parse(argc, argv, &o), mounted;

	if (rc >= 0)
		return rc;
	rc = cli_traced_paths(o.cmd[0], dir, lib);
	if (rc >= 0)
		return rc;
	cli_catch_stop_signals();
	mounted = cli_mount(dir, NULL);
	if (mounted < 0)
		return CLI_FAIL;
	rc = profile(&o, dir, lib);
	if (!mounted && cli_umount(dir, false))
		rc = rc ? rc : CLI_FAIL;
	return rc;
}

const struct cli_command cli_cmd_profile = {
    .name = "profile",
    .summary = "run a command with the function profiler and print its table",
    .run = run,
    .usage = "usage: utrace profile [-l FUNC]... [-P PID]... [--] CMD [ARG...]\n"
	     "\n"
	     "Run CMD with the utrace runtime (libutrace.so) preloaded and the function\n"
	     "profiler on (function_profile_enabled), then print, for every function\n"
	     "called, its calls (Hit), total time, average and s^2 (the variance), as\n"
	     "the kernel's trace_stat/functionN files show them, summed over all CPUs and\n"
	     "sorted by time.  utracefs is mounted for the run if it is not mounted yet\n"
	     "(and unmounted afterwards).  The counts start from zero; the profiler is\n"
	     "turned off at the end.  The options sleep-time and graph-time of the mount\n"
	     "are used as they are (sleep-time 0: time off the CPU is not counted;\n"
	     "graph-time 0: a function's time leaves out the functions it calls).\n"
	     "Other traced programs running meanwhile are counted too, unless -P.\n"
	     "\n"
	     "  -l FUNC    profile only FUNC (set_ftrace_filter; globs, !FUNC, mod:...).\n"
	     "             Repeat for more; emptied at the end\n"
	     "  -P PID     profile only CMD and process (or thread) PID (set_ftrace_pid).\n"
	     "             Repeat for more; put back as it was at the end\n"
	     "\n"
	     "The exit status is CMD's (128+N when signal N killed it; 127 when it could\n"
	     "not be found, 126 when it could not run).\n",
};

// SPDX-License-Identifier: MIT
/*
 * record.c - `utrace record -p TRACER [-g FUNC] [-o FILE] [--] CMD [ARG...]`: trace
 * one run of a command and save the trace.
 *
 * The steps are those a user would type: mount if nothing is mounted (and unmount
 * at the end), select the tracer, clear the buffer, turn tracing on, run CMD with
 * libutrace.so preloaded, turn tracing off, copy `trace` to FILE, put the tracer
 * back to nop (and set_graph_function back to empty).
 *
 * -g: set_graph_function only takes functions utracefs knows, those of processes
 * that sent their sites; CMD's are not known before it runs.  So CMD starts with
 * UTRACE_RECORD_HOLD=FD, one end of a socket pair: the runtime registers its sites
 * before main(), says "r" and waits; record then writes set_graph_function (which
 * the program's control thread applies and acknowledges at once), clears the
 * buffer and says "g".  A CMD that closes the socket without a word (not a traced
 * program, or exec'd away) just runs, without the filter.  Like ftrace, the buffer
 * is global: other traced programs running at the same time are recorded too.  The
 * exit status is CMD's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"

/*
 * -g may be given several times, as with trace-cmd: the functions are joined with
 * spaces into one write, which set_graph_function parses as a list.
 */
static int add_graph_func(struct cli_record_opts *o, const char *func)
{
	static char buf[4096];
	size_t used = o->graph_funcs ? strlen(buf) : 0;

	if (!*func || strspn(func, " \t\n") == strlen(func))
		return cli_usage_error("empty function name for -g");
	if (used + 1 + strlen(func) >= sizeof(buf))
		return cli_usage_error("too many -g functions");
	if (!o->graph_funcs)
		buf[0] = '\0';
	else
		strcat(buf, " ");
	strcat(buf, func);
	o->graph_funcs = buf;
	return 0;
}

int cli_record_parse(int argc, char **argv, struct cli_record_opts *o)
{
	bool first = true;
	int c, rc;

	o->tracer = NULL;
	o->graph_funcs = NULL;
	o->output = CLI_RECORD_DEFAULT_OUTPUT;
	o->cmd = NULL;
	while ((c = cli_getopt(argc, argv, "+p:g:o:", &first)) != -1) {
		switch (c) {
		case 'h':
			return cli_print_usage(&cli_cmd_record);
		case 'p':
			o->tracer = optarg;
			break;
		case 'g':
			rc = add_graph_func(o, optarg);
			if (rc)
				return rc;
			break;
		case 'o':
			if (!*optarg)
				return cli_usage_error("empty output file name");
			o->output = optarg;
			break;
		default:
			return CLI_USAGE;
		}
	}
	/* As trace-cmd: a graph function without a tracer means function_graph. */
	if (!o->tracer && o->graph_funcs)
		o->tracer = CLI_GRAPH_TRACER;
	if (!o->tracer)
		return cli_usage_error("no tracer given (-p TRACER; 'utrace list -t' lists them)");
	if (o->graph_funcs && strcmp(o->tracer, CLI_GRAPH_TRACER))
		return cli_usage_error("-g needs the %s tracer, not '%s'", CLI_GRAPH_TRACER,
				       o->tracer);
	if (optind >= argc)
		return cli_usage_error("no command to run (utrace record -p %s -- CMD [ARG...])",
				       o->tracer);
	o->cmd = argv + optind;
	return -1;
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

/* Child side: preload the runtime and become CMD.  Never returns. */
static void exec_traced(char **cmd, const char *lib, int hold_fd)
{
	char preload[8192], fd[16];

	snprintf(fd, sizeof(fd), "%d", hold_fd);
	if (cli_preload_value(preload, sizeof(preload), getenv("LD_PRELOAD"), lib) ||
	    setenv("LD_PRELOAD", preload, 1) ||
	    (hold_fd >= 0 && setenv("UTRACE_RECORD_HOLD", fd, 1))) {
		cli_error("LD_PRELOAD too long");
		_exit(127);
	}
	execvp(cmd[0], cmd);
	cli_error("%s: %s", cmd[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
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
static int write_replace(const char *dir, const char *name, const char *value)
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
 * Write FUNCS to set_graph_function.  The file may be missing (a utracefs without
 * graph filters) or refuse a pattern that matches no function (EINVAL, as the
 * kernel): say which, rather than a bare errno.  0 or CLI_FAIL.
 */
static int set_graph_funcs(const char *dir, const char *funcs)
{
	char path[PATH_MAX];
	int err = write_replace(dir, "set_graph_function", funcs);

	if (!err)
		return 0;
	cli_path(path, sizeof(path), dir, "set_graph_function");
	if (err == -ENOENT)
		cli_error("-g %s: this utracefs has no set_graph_function (%s: %s)", funcs, path,
			  strerror(-err));
	else if (err == -EINVAL)
		cli_error("-g %s: no traceable function matches (%s: %s; 'utrace list -f' lists them)",
			  funcs, path, strerror(-err));
	else
		cli_error("-g %s: %s: %s", funcs, path, strerror(-err));
	return CLI_FAIL;
}

/*
 * -g: wait for CMD's "r" on sock (its sites are known), while watching that it
 * has not ended; 1 when it is waiting for us, 0 when it will not (it closed the
 * socket, or ended).
 */
static int wait_ready(int sock, pid_t pid)
{
	struct pollfd p = {.fd = sock, .events = POLLIN};
	char c;

	for (;;) {
		int n = poll(&p, 1, 100);

		if (n < 0 && errno != EINTR)
			return 0;
		if (n > 0)
			return read(sock, &c, 1) == 1 && c == 'r';
		siginfo_t si = {.si_pid = 0};

		/* ended (not reaped here: run_traced waits for it) */
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid)
			return 0;
	}
}

/*
 * Run CMD and return its exit status (128 + signal when killed), or -errno.  With
 * -g, CMD waits for us once its sites are known (UTRACE_RECORD_HOLD): the graph
 * functions are set then (*graph_set), and a failure there kills it and returns
 * CLI_FAIL through *fail.
 */
static int run_traced(char **cmd, const char *lib, const char *dir, const char *graph_funcs,
		      bool *graph_set, int *fail)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
	int sv[2] = {-1, -1}, status, rc;
	bool held = false;
	pid_t pid;

	*fail = 0;
	if (graph_funcs && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		close(sv[0]);
		close(sv[1]);
		return rc;
	}
	if (!pid) {
		/* the child's end crosses exec (the runtime closes it before main) */
		if (sv[1] >= 0)
			fcntl(sv[1], F_SETFD, 0);
		exec_traced(cmd, lib, sv[1]);
	}
	/* ^C goes to CMD; we live on to save what it left in the buffer (as system(3)). */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	if (graph_funcs) {
		close(sv[1]);
		held = wait_ready(sv[0], pid);
		if (held) {
			*fail = set_graph_funcs(dir, graph_funcs);
			*graph_set = !*fail;
			if (!*fail)
				*fail = cli_clear_trace(dir); /* nothing of the wait stays */
			if (*fail)
				kill(pid, SIGKILL);
			else if (write(sv[0], "g", 1) != 1)
				held = false;
		}
		close(sv[0]);
	}
	while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (rc < 0)
		return -errno;
	if (graph_funcs && !held)
		fprintf(stderr, "%s: warning: -g %s: %s did not wait to be set up (not traced?); "
			"set_graph_function not applied\n", cli_name(), graph_funcs, cmd[0]);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Select the tracer, empty the buffer and turn tracing on (-g: run_traced). */
static int prepare(const char *dir, const char *tracer)
{
	int rc = check_tracer(dir, tracer);

	if (!rc)
		rc = cli_set(dir, "current_tracer", tracer);
	if (!rc)
		rc = cli_clear_trace(dir);
	if (!rc)
		rc = cli_set(dir, "tracing_on", "1");
	return rc;
}

/* Trace one run of o->cmd through the mount at dir and save it to fd. */
static int record(const struct cli_record_opts *o, const char *dir, const char *lib, int fd)
{
	char *was_on = NULL;
	bool graph_set = false;
	int rc, status, tail, fail;

	if (cli_read_value(dir, "tracing_on", &was_on))
		was_on = NULL;
	rc = prepare(dir, o->tracer);
	if (rc)
		goto out;
	status = run_traced(o->cmd, lib, dir, o->graph_funcs, &graph_set, &fail);
	if (fail) {
		rc = fail;
		goto out;
	}
	if (status < 0) {
		rc = cli_file_error(o->cmd[0], status);
		goto out;
	}
	rc = cli_set(dir, "tracing_on", "0");
	if (!rc)
		rc = save_trace(dir, o->output, fd);
	if (!rc && fd != STDOUT_FILENO)
		fprintf(stderr, "%s: trace saved to %s\n", cli_name(), o->output);
	if (status)
		rc = status; /* CMD's failure says more than ours */
out:
	/* Leave the tracer as trace-cmd does, and tracing_on as it was. */
	tail = cli_set(dir, "current_tracer", "nop");
	tail |= cli_set(dir, "tracing_on", was_on && !strcmp(was_on, "0") ? "0" : "1");
	/* Emptied, the filter lets every function be graphed again. */
	if (o->graph_funcs && graph_set) {
		int err = write_replace(dir, "set_graph_function", "");

		if (err)
			tail |= cli_file_error("set_graph_function", err);
	}
	free(was_on);
	return rc ? rc : tail ? CLI_FAIL : 0;
}

static int run(int argc, char **argv)
{
	struct cli_record_opts o;
	char dir[PATH_MAX], lib[PATH_MAX];
	int rc = cli_record_parse(argc, argv, &o), mounted, fd, err;

	if (rc >= 0)
		return rc;
	err = cli_tracing_dir(dir, sizeof(dir), NULL);
	if (!err)
		err = cli_sibling(lib, sizeof(lib), "../lib/libutrace.so");
	if (!err && access(lib, R_OK))
		err = -errno;
	if (err)
		return cli_file_error(err == -ENAMETOOLONG ? "tracing directory" : lib, err);
	fd = strcmp(o.output, "-") ? open(o.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
				   : STDOUT_FILENO;
	if (fd < 0)
		return cli_file_error(o.output, errno);
	mounted = cli_mount(dir);
	if (mounted < 0) {
		rc = CLI_FAIL;
	} else {
		rc = record(&o, dir, lib, fd);
		if (!mounted && cli_umount(dir))
			rc = rc ? rc : CLI_FAIL;
	}
	if (fd != STDOUT_FILENO && close(fd) && !rc)
		rc = cli_file_error(o.output, errno);
	return rc;
}

const struct cli_command cli_cmd_record = {
	.name = "record",
	.summary = "trace one run of a command and save the trace",
	.run = run,
	.usage = "usage: utrace record -p TRACER [-g FUNC]... [-o FILE] [--] CMD [ARG...]\n"
		 "\n"
		 "Run CMD with the utrace runtime (libutrace.so) preloaded, trace it with\n"
		 "TRACER and save the trace to FILE.  utracefs is mounted for the run if it\n"
		 "is not mounted yet (and unmounted afterwards).  The tracer is set, the\n"
		 "buffer cleared, tracing turned on; when CMD exits tracing is turned off,\n"
		 "the trace saved and the tracer put back to nop.  The buffer is shared by\n"
		 "every traced program, as in ftrace: others running meanwhile show too.\n"
		 "^C reaches CMD; the trace is saved when it exits.\n"
		 "\n"
		 "  -p TRACER  the tracer: function, function_graph (calls and returns drawn\n"
		 "             as a call graph with durations), or nop (trace_printk() lines\n"
		 "             only); 'utrace list -t' lists them\n"
		 "  -g FUNC    graph only FUNC and what it calls (set_graph_function; globs\n"
		 "             as in the kernel).  Repeat for more functions.  Implies\n"
		 "             -p function_graph; emptied again at the end\n"
		 "  -o FILE    where to save the trace (default " CLI_RECORD_DEFAULT_OUTPUT
		 "; - is stdout).\n"
		 "             It is the text of the trace file; 'utrace report' prints it\n"
		 "\n"
		 "The options of the mount (trace_options, such as funcgraph-proc) are used as\n"
		 "they are.  The exit status is CMD's (128+N when signal N killed it; 127 when\n"
		 "it could not be found).  Only functions compiled with the flags of 'utrace\n"
		 "cflags' are traced.\n",
};

// SPDX-License-Identifier: MIT
/*
 * record.c - `utrace record -p TRACER [-o FILE] [--] CMD [ARG...]`: trace one run
 * of a command and save the trace.
 *
 * The steps are those a user would type: mount if nothing is mounted (and unmount
 * at the end), select the tracer, clear the buffer, turn tracing on, run CMD with
 * libutrace.so preloaded, turn tracing off, copy `trace` to FILE, put the tracer
 * back to nop.  Like ftrace, the buffer is global: other traced programs running
 * at the same time are recorded too.  The exit status is CMD's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"

int cli_record_parse(int argc, char **argv, struct cli_record_opts *o)
{
	bool first = true;
	int c;

	o->tracer = NULL;
	o->output = CLI_RECORD_DEFAULT_OUTPUT;
	o->cmd = NULL;
	while ((c = cli_getopt(argc, argv, "+p:o:", &first)) != -1) {
		switch (c) {
		case 'h':
			return cli_print_usage(&cli_cmd_record);
		case 'p':
			o->tracer = optarg;
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
	if (!o->tracer)
		return cli_usage_error("no tracer given (-p TRACER; 'utrace list -t' lists them)");
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
static void exec_traced(char **cmd, const char *lib)
{
	char preload[8192];

	if (cli_preload_value(preload, sizeof(preload), getenv("LD_PRELOAD"), lib) ||
	    setenv("LD_PRELOAD", preload, 1)) {
		cli_error("LD_PRELOAD too long");
		_exit(127);
	}
	execvp(cmd[0], cmd);
	cli_error("%s: %s", cmd[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* Run CMD and return its exit status (128 + signal when killed), or -errno. */
static int run_traced(char **cmd, const char *lib)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
	pid_t pid;
	int status, rc;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		exec_traced(cmd, lib);
	/* ^C goes to CMD; we live on to save what it left in the buffer (as system(3)). */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (rc < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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

/* Select the tracer, empty the buffer and turn tracing on. */
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
	int rc, status, tail;

	if (cli_read_value(dir, "tracing_on", &was_on))
		was_on = NULL;
	rc = prepare(dir, o->tracer);
	if (rc)
		goto out;
	status = run_traced(o->cmd, lib);
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
	.usage = "usage: utrace record -p TRACER [-o FILE] [--] CMD [ARG...]\n"
		 "\n"
		 "Run CMD with the utrace runtime (libutrace.so) preloaded, trace it with\n"
		 "TRACER and save the trace to FILE.  utracefs is mounted for the run if it\n"
		 "is not mounted yet (and unmounted afterwards).  The tracer is set, the\n"
		 "buffer cleared, tracing turned on; when CMD exits tracing is turned off,\n"
		 "the trace saved and the tracer put back to nop.  The buffer is shared by\n"
		 "every traced program, as in ftrace: others running meanwhile show too.\n"
		 "^C reaches CMD; the trace is saved when it exits.\n"
		 "\n"
		 "  -p TRACER  the tracer: function, or nop (trace_printk() lines only);\n"
		 "             'utrace list -t' lists them\n"
		 "  -o FILE    where to save the trace (default " CLI_RECORD_DEFAULT_OUTPUT
		 "; - is stdout).\n"
		 "             It is the text of the trace file; 'utrace report' prints it\n"
		 "\n"
		 "The exit status is CMD's (128+N when signal N killed it; 127 when it could\n"
		 "not be found).  Only functions compiled with the flags of 'utrace cflags'\n"
		 "are traced.\n",
};

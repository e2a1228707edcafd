// SPDX-License-Identifier: MIT
/*
 * tracecmd.c - `utrace trace-cmd ARGS...`: run Debian's trace-cmd on the mounted
 * utracefs, as if it were the kernel's tracefs.
 *
 * trace-cmd cannot be told where tracefs is (libtracefs takes the first mount of
 * type tracefs), so it runs with libutrace-tracecmd.so preloaded (cmd/shim/):
 * that points libtracefs at $UTRACE_TRACING and sends trace-cmd's reads of
 * /proc/kallsyms and /proc/sys/kernel/ftrace_enabled to the mount's files.  The
 * programs trace-cmd starts (record CMD) get libutrace.so instead, so that they
 * are traced: the shim hands them $UTRACE_TRACECMD_PRELOAD as their LD_PRELOAD.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

#define TRACECMD "trace-cmd"

/* LD_PRELOAD's value with lib (next to utrace, at rel) added, into buf.  0 or CLI_FAIL. */
static int preload_with(char *buf, size_t size, const char *rel)
{
	char lib[PATH_MAX];
	int err = cli_sibling(lib, sizeof(lib), rel);

	if (!err && access(lib, R_OK))
		err = -errno;
	if (!err)
		err = cli_preload_value(buf, size, getenv("LD_PRELOAD"), lib);
	return err ? cli_file_error(err == -ENAMETOOLONG ? "LD_PRELOAD" : lib, err) : 0;
}

static int run(int argc, char **argv)
{
	char mnt[PATH_MAX], shim[PATH_MAX * 2], child[PATH_MAX * 2];
	int err;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cli_print_usage(&cli_cmd_tracecmd);
	if (argc < 2)
		return cli_usage_error("a trace-cmd command is expected");
	if ((err = cli_mounted_dir(mnt, sizeof(mnt))) ||
	    (err = preload_with(shim, sizeof(shim), "../lib/libutrace-tracecmd.so")) ||
	    (err = preload_with(child, sizeof(child), "../lib/libutrace.so")))
		return err;
	if (setenv("UTRACE_TRACING", mnt, 1) || setenv("UTRACE_TRACECMD_PRELOAD", child, 1) ||
	    setenv("LD_PRELOAD", shim, 1))
		return cli_file_error("environment", -errno);
	argv[0] = TRACECMD;
	execvp(TRACECMD, argv);
	err = errno;
	cli_error("%s: %s%s", TRACECMD, strerror(err),
		  err == ENOENT ? " (Debian's package trace-cmd installs it)" : "");
	return err == ENOENT ? 127 : 126;
}

const struct cli_command cli_cmd_tracecmd = {
	.name = "trace-cmd",
	.summary = "run trace-cmd on the mounted utracefs",
	.run = run,
	.usage = "usage: utrace trace-cmd COMMAND [ARGS]...\n"
		 "\n"
		 "Run trace-cmd (Debian's package trace-cmd, 3.1) with its tracing directory\n"
		 "set to the mounted utracefs instead of the kernel's tracefs: every trace-cmd\n"
		 "command that reads or writes tracefs (stat, list, start, stop, show, reset,\n"
		 "extract, record) acts on the mount.  Its /proc/kallsyms is the mount's\n"
		 "kallsyms file, so the trace.dat files it writes name the functions of\n"
		 "every traced process; `trace-cmd report` reads them as they are.  Programs\n"
		 "that trace-cmd record starts run with libutrace.so preloaded.\n"
		 "\n"
		 "trace-cmd runs with libutrace-tracecmd.so (installed next to libutrace.so)\n"
		 "preloaded and UTRACE_TRACING set to the mount.\n"
		 "\n"
		 "Examples:\n"
		 "    utrace trace-cmd record -p function -o hello.dat ./hello\n"
		 "    trace-cmd report hello.dat\n"
		 "    utrace trace-cmd start -p function_graph; ./run-something\n"
		 "    utrace trace-cmd stop; utrace trace-cmd extract -o run.dat\n",
};

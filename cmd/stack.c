// SPDX-License-Identifier: MIT
/*
 * stack.c - `utrace stack [--start|--stop|--reset]`, as trace-cmd's stack:
 * switch the stack tracer on or off (the mount's stack_tracer_enabled, which
 * stands for the kernel's /proc/sys/kernel/stack_tracer_enabled), start its
 * maximum over (stack_max_size 0), or, without an option, say whether it runs
 * and print stack_trace without its '#' lines.  Given several options, the last
 * one counts, as in trace-cmd.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

enum { OPT_START = 256, OPT_STOP, OPT_RESET, OPT_REPORT };

static const struct option long_opts[] = {
    {"start", no_argument, NULL, OPT_START},
    {"stop", no_argument, NULL, OPT_STOP},
    {"reset", no_argument, NULL, OPT_RESET},
    {NULL, 0, NULL, 0},
};

static int report(const char *mnt)
{
	char path[PATH_MAX], *on = NULL, *text = NULL;
	size_t len;
	int err;

	if ((err = cli_read_value(mnt, "stack_tracer_enabled", &on)))
		return cli_file_error("stack_tracer_enabled", err);
	printf(strcmp(on, "0") ? "(stack tracer running)\n" : "(stack tracer not running)\n");
	free(on);
	if (cli_path(path, sizeof(path), mnt, "stack_trace"))
		return cli_file_error(mnt, ENAMETOOLONG);
	if ((err = cli_read_file(path, &text, &len)))
		return cli_file_error(path, err);
	/* the lines on how to enable it speak of the kernel's switch: left out */
	for (char *line = text, *nl; *line; line = nl + 1) {
		nl = strchrnul(line, '\n');
		if (line[0] != '#')
			printf("%.*s\n", (int)(nl - line), line);
		if (!*nl)
			break;
	}
	free(text);
	return fflush(stdout) ? CLI_FAIL : CLI_OK;
}

static int run(int argc, char **argv)
{
	char mnt[PATH_MAX];
	bool first = true;
	int c, what = OPT_REPORT, rc;

	while ((c = cli_getopt_long(argc, argv, "+", long_opts, &first)) != -1) {
		if (c == 'h')
			return cli_print_usage(&cli_cmd_stack);
		if (c != OPT_START && c != OPT_STOP && c != OPT_RESET)
			return CLI_USAGE;
		what = c;
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	if ((rc = cli_mounted_dir(mnt, sizeof(mnt))))
		return rc;
	switch (what) {
	case OPT_START:
		return cli_set(mnt, "stack_tracer_enabled", "1");
	case OPT_STOP:
		return cli_set(mnt, "stack_tracer_enabled", "0");
	case OPT_RESET:
		return cli_set(mnt, "stack_max_size", "0");
	}
	return report(mnt);
}

const struct cli_command cli_cmd_stack = {
    .name = "stack",
    .summary = "start, stop, reset or show the stack tracer",
    .run = run,
    .usage = "usage: utrace stack [--start | --stop | --reset]\n"
	     "\n"
	     "The stack tracer checks the stack at the entry of every traced function\n"
	     "(those of stack_trace_filter; all when it is empty), whatever the current\n"
	     "tracer, and keeps the deepest stack seen in any traced process.  Without an\n"
	     "option, say whether it runs and print the deepest stack (the file\n"
	     "stack_trace: Depth, Size, Location of each frame).\n"
	     "\n"
	     "  --start  switch it on (echo 1 > stack_tracer_enabled)\n"
	     "  --stop   switch it off (echo 0 > stack_tracer_enabled); the maximum stays\n"
	     "  --reset  forget the maximum (echo 0 > stack_max_size)\n"
	     "\n"
	     "Given several options, the last one counts.\n",
};

// SPDX-License-Identifier: MIT
/*
 * show.c - `utrace show [-B NAME] [-p] [-c CPU]`: print the live trace buffer (the trace
 * file, trace_pipe, or one CPU's) of the top level or of an instance, as `cat` would.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

static int run(int argc, char **argv)
{
	char dir[PATH_MAX], mnt[PATH_MAX], name[64], path[PATH_MAX];
	const char *failed, *inst = NULL;
	bool first = true, pipe = false;
	int c, err, cpu = -1;

	while ((c = cli_getopt(argc, argv, "+pc:B:", &first)) != -1) {
		switch (c) {
		case 'h':
			return cli_print_usage(&cli_cmd_show);
		case 'B':
			inst = optarg;
			break;
		case 'p':
			pipe = true;
			break;
		case 'c':
			if ((err = cli_parse_cpu(optarg, &cpu)))
				return err;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	if ((err = cli_mounted_session(mnt, sizeof(mnt), dir, sizeof(dir), inst)))
		return err;
	if (cli_cpu_file(name, sizeof(name), cpu, pipe ? "trace_pipe" : "trace") ||
	    cli_path(path, sizeof(path), dir, name))
		return cli_file_error(dir, ENAMETOOLONG);
	err = cli_copy(path, STDOUT_FILENO, &failed);
	if (err)
		return cli_file_error(failed ? failed : "standard output", err);
	return CLI_OK;
}

const struct cli_command cli_cmd_show = {
	.name = "show",
	.summary = "print the live trace buffer",
	.run = run,
	.usage = "usage: utrace show [-B NAME] [-p] [-c CPU]\n"
		 "\n"
		 "Print the contents of the trace buffer of the mounted utracefs: the file\n"
		 "'trace' (reading does not consume it).\n"
		 "\n"
		 "  -B NAME the buffer of instance NAME (instances/NAME) instead of the top\n"
		 "  -p      read trace_pipe instead: consumes what it prints and waits for\n"
		 "          more; stop it with ^C\n"
		 "  -c CPU  only that CPU's buffer (per_cpu/cpuCPU/trace or trace_pipe)\n",
};

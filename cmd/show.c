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
	const char *cpu = NULL, *failed, *inst = NULL;
	bool first = true, pipe = false;
	int c, err;

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
			cpu = optarg;
			if (!*cpu || strspn(cpu, "0123456789") != strlen(cpu) || strlen(cpu) > 5)
				return cli_usage_error("bad CPU number '%s'", cpu);
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	if (cli_mounted_dir(mnt, sizeof(mnt)))
		return CLI_FAIL;
	if (!inst)
		snprintf(dir, sizeof(dir), "%s", mnt);
	else if ((err = cli_instance_dir(dir, sizeof(dir), mnt, inst)))
		return err;
	if (cpu)
		snprintf(name, sizeof(name), "per_cpu/cpu%d/%s", atoi(cpu),
			 pipe ? "trace_pipe" : "trace");
	else
		snprintf(name, sizeof(name), "%s", pipe ? "trace_pipe" : "trace");
	if (cli_path(path, sizeof(path), dir, name))
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

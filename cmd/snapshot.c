// SPDX-License-Identifier: MIT
/*
 * snapshot.c - `utrace snapshot [-s] [-r] [-f] [-c CPU] [-B NAME]`: take, clear, free
 * or show the snapshot of the top level or of an instance, as trace-cmd's does, by
 * writing the numbers of the snapshot file (or of per_cpu/cpuN/snapshot with -c):
 * 1 takes one (allocating the buffer if needed), 2 clears it, 0 frees it.  Without
 * an option the file is printed, as `cat` would.
 *
 * -r goes with -s or -f and is done first (clear, then free or take); -s and -f
 * together would take a snapshot only to free it: refused.  What the file refuses
 * (EINVAL for `0` in a per-CPU file, EBUSY while a latency tracer owns the
 * snapshot, ...) is said with the file's name, and the command fails.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "cmd.h"

/* The writes -r, -f and -s stand for, in the order they are done. */
struct action {
	char opt;
	const char *value;
};
static const struct action actions[] = {{'r', "2"}, {'f', "0"}, {'s', "1"}};
#define NR_ACTIONS (sizeof(actions) / sizeof(actions[0]))

static int act(const char *dir, const char *file, const bool *chosen)
{
	for (size_t i = 0; i < NR_ACTIONS; i++)
		if (chosen[i] && cli_set(dir, file, actions[i].value))
			return CLI_FAIL; /* said; what follows depends on it */
	return CLI_OK;
}

static int show(const char *dir, const char *file)
{
	char path[PATH_MAX];
	const char *failed;
	int err;

	if (cli_path(path, sizeof(path), dir, file))
		return cli_file_error(dir, ENAMETOOLONG);
	err = cli_copy(path, STDOUT_FILENO, &failed);
	if (err)
		return cli_file_error(failed ? failed : "standard output", err);
	return CLI_OK;
}

static int run(int argc, char **argv)
{
	char mnt[PATH_MAX], dir[PATH_MAX], file[64];
	const char *inst = NULL;
	bool first = true, chosen[NR_ACTIONS] = {false}, any = false;
	int c, rc, cpu = -1;

	while ((c = cli_getopt(argc, argv, "+srfc:B:", &first)) != -1) {
		switch (c) {
		case 'h':
			return cli_print_usage(&cli_cmd_snapshot);
		case 's':
		case 'r':
		case 'f':
			for (size_t i = 0; i < NR_ACTIONS; i++)
				chosen[i] |= actions[i].opt == c;
			any = true;
			break;
		case 'c':
			if (cpu >= 0)
				return cli_usage_error("one -c at a time");
			if ((rc = cli_parse_cpu(optarg, &cpu)))
				return rc;
			break;
		case 'B':
			if (inst)
				return cli_usage_error("one -B at a time");
			inst = optarg;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (chosen[1] && chosen[2])
		return cli_usage_error("-s takes a snapshot and -f frees it: not both");
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	if ((rc = cli_mounted_session(mnt, sizeof(mnt), dir, sizeof(dir), inst)))
		return rc;
	if (cli_cpu_file(file, sizeof(file), cpu, "snapshot"))
		return cli_file_error(dir, ENAMETOOLONG);
	return any ? act(dir, file, chosen) : show(dir, file);
}

const struct cli_command cli_cmd_snapshot = {
	.name = "snapshot",
	.summary = "take, clear, free or show the snapshot of the buffer",
	.run = run,
	.usage = "usage: utrace snapshot [-s] [-r] [-f] [-c CPU] [-B NAME]\n"
		 "\n"
		 "Without -s, -r or -f, print the snapshot (the file 'snapshot', read as\n"
		 "'trace' is).  Tracing goes on meanwhile.\n"
		 "\n"
		 "  -s       take a snapshot: the buffer and the snapshot are swapped\n"
		 "           (echo 1 > snapshot; the first one allocates the snapshot)\n"
		 "  -r       clear the snapshot, which stays allocated (echo 2 > snapshot);\n"
		 "           with -s or -f, done first\n"
		 "  -f       free the snapshot and its memory (echo 0 > snapshot)\n"
		 "  -c CPU   only that CPU's part (per_cpu/cpuCPU/snapshot; -f is refused\n"
		 "           there, as the file refuses 0)\n"
		 "  -B NAME  the snapshot of instance NAME (instances/NAME) instead of the top\n"
		 "\n"
		 "An error of the file (such as EBUSY while a latency tracer uses the\n"
		 "snapshot) is said with the file's name; the exit status is then 1.\n",
};

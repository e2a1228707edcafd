// SPDX-License-Identifier: MIT
/*
 * reset.c - `utrace reset`: put the mounted utracefs (its top level, or instances as
 * trace-cmd's -B/-a/-d/-t choose) back to how it starts: tracer nop, every known
 * option at its default, no filters, pid lists or function probes, tracing_thresh
 * and max_graph_depth 0, ftrace_enabled and tracing on, buffer empty.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* Each file of options/ that is not at its default is written back to it. */
static int reset_options(const char *dir, bool inst)
{
	char optdir[PATH_MAX], *val;
	struct dirent *d;
	DIR *dp;
	int rc = 0, def;

	cli_path(optdir, sizeof(optdir), dir, "options");
	dp = opendir(optdir);
	if (!dp)
		return cli_file_error(optdir, errno);
	while ((d = readdir(dp))) {
		def = cli_option_default(d->d_name, inst);
		if (def < 0 || cli_read_value(optdir, d->d_name, &val))
			continue; /* not an option we know the default of */
		if (atoi(val) != def)
			rc |= cli_set(optdir, d->d_name, def ? "1" : "0");
		free(val);
	}
	closedir(dp);
	return rc ? CLI_FAIL : 0;
}

/*
 * The function probes: set_ftrace_filter lists them as FUNC:CMD:unlimited or
 * FUNC:CMD:count=N; each kind listed is removed with one `!*:CMD` (`!*:CMD:0` for
 * the counted ones).  Only the kinds listed: removing a kind there is none of is
 * an error (ENODEV), and would fill error_log.
 */
static int reset_probes(const char *dir)
{
	char path[PATH_MAX], *text, *line, *save = NULL;
	char done[64][32];
	unsigned int nr_done = 0;
	size_t len;
	int rc = 0, err;

	cli_path(path, sizeof(path), dir, "set_ftrace_filter");
	err = cli_read_file(path, &text, &len);
	if (err)
		return cli_file_error(path, err);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *last = strrchr(line, ':'), *cmd, kind[32], rm[40];
		bool seen = false;

		if (!last || (strcmp(last, ":unlimited") && strncmp(last, ":count=", 7)))
			continue; /* a function or a mod: command */
		*last = '\0';
		cmd = strrchr(line, ':');
		if (!cmd || strlen(cmd + 1) + 3 > sizeof(kind))
			continue;
		snprintf(kind, sizeof(kind), "%s%s", cmd + 1, last[1] == 'c' ? ":0" : "");
		for (unsigned int i = 0; i < nr_done && !seen; i++)
			seen = !strcmp(done[i], kind);
		if (seen || nr_done == 64)
			continue;
		strcpy(done[nr_done++], kind);
		snprintf(rm, sizeof(rm), "!*:%s", kind);
		rc |= cli_set(dir, "set_ftrace_filter", rm);
	}
	free(text);
	return rc;
}

static int reset_lists(const char *dir)
{
	static const char *const lists[] = {
	    "set_ftrace_filter", "set_ftrace_notrace",	   "set_graph_function",
	    "set_graph_notrace", "set_ftrace_pid",	   "set_ftrace_notrace_pid",
	    "set_event_pid",	 "set_event_notrace_pid",
	};
	static const char *const values[][2] = {
	    {"tracing_thresh", "0"}, {"max_graph_depth", "0"}, {"ftrace_enabled", "1"}};
	int rc = 0;

	/* an instance has some of these files only (as the kernel's) */
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (cli_file_exists(dir, lists[i]))
			rc |= cli_empty_file(dir, lists[i], true);
	rc |= reset_probes(dir);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		if (cli_file_exists(dir, values[i][0]))
			rc |= cli_set(dir, values[i][0], values[i][1]);
	return rc;
}

/* Reset the top level or an instance (dir). */
static int reset_one(const char *dir, bool inst)
{
	/* The tracer first: its own options must be reset while they are not in use. */
	int rc = cli_set(dir, "current_tracer", "nop");

	rc |= reset_options(dir, inst);
	rc |= reset_lists(dir);
	rc |= cli_set(dir, "tracing_on", "1");
	rc |= cli_clear_trace(dir);
	return rc;
}

/* -a: every instance, and with -d removed after its reset. */
static int reset_instance(const char *dir, const char *name, void *del)
{
	int rc = reset_one(dir, true);

	if (!rc && *(bool *)del)
		rc = cli_remove_instance(dir);
	return rc;
}

#define MAX_B 64

static int run(int argc, char **argv)
{
	char mnt[PATH_MAX], dir[PATH_MAX];
	const char *names[MAX_B];
	bool first = true, all = false, del = false, top = false;
	unsigned int nr = 0;
	int c, rc = 0;

	while ((c = cli_getopt(argc, argv, "+B:adt", &first)) != -1) {
		switch (c) {
		case 'h':
			return cli_print_usage(&cli_cmd_reset);
		case 'B':
			if (nr == MAX_B)
				return cli_usage_error("more than %d instances", MAX_B);
			names[nr++] = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'd':
			del = true;
			break;
		case 't':
			top = true;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	if (del && !nr && !all)
		return cli_usage_error("-d removes the instances named with -B or -a");
	if (cli_mounted_dir(mnt, sizeof(mnt)))
		return CLI_FAIL;
	/* every name first: a typo changes nothing */
	for (unsigned int i = 0; i < nr; i++)
		if ((rc = cli_instance_dir(dir, sizeof(dir), mnt, names[i])))
			return rc;
	if (top || (!nr && !all))
		rc |= reset_one(mnt, false);
	for (unsigned int i = 0; i < nr; i++) {
		cli_instance_dir(dir, sizeof(dir), mnt, names[i]);
		rc |= reset_instance(dir, names[i], &del);
	}
	if (all)
		rc |= cli_for_each_instance(mnt, reset_instance, &del);
	return rc ? CLI_FAIL : CLI_OK;
}

const struct cli_command cli_cmd_reset = {
	.name = "reset",
	.summary = "back to the start: tracer nop, default options, no filters, empty buffer",
	.run = run,
	.usage = "usage: utrace reset [-t] [-B NAME]... [-a] [-d]\n"
		 "\n"
		 "Set current_tracer to nop, put every option of options/ back to its\n"
		 "default (the kernel's), empty set_ftrace_filter, set_ftrace_notrace,\n"
		 "set_graph_function, set_graph_notrace and the four pid lists, remove the\n"
		 "function probes, set tracing_thresh and max_graph_depth to 0,\n"
		 "ftrace_enabled and tracing_on to 1, and empty the trace buffer.\n"
		 "Buffer sizes and the trace clock are left as they are.\n"
		 "\n"
		 "Without -B or -a this is done to the top level; an instance gets the same\n"
		 "for the files it has.\n"
		 "  -B NAME  reset instance NAME (instances/NAME); may be repeated\n"
		 "  -a       reset every instance\n"
		 "  -d       remove the instances -B and -a name once reset\n"
		 "  -t       reset the top level too (with -B or -a)\n",
};

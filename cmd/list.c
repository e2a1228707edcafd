// SPDX-License-Identifier: MIT
/*
 * list.c - `utrace list [-t] [-e] [-f] [-o] [PATTERN]`: what the mounted utracefs
 * offers: tracers, events (SYSTEM:EVENT from the events/ tree), functions that can
 * be traced, options; events and functions only those that match the glob PATTERN.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"

enum { LIST_TRACERS = 1, LIST_EVENTS = 2, LIST_FUNCS = 4, LIST_OPTIONS = 8 };

static int cmp_names(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* An event matches pat (a shell glob) as SYSTEM:EVENT or by its name alone. */
static bool event_matches(const char *pat, const char *sys, const char *name)
{
	char full[PATH_MAX];

	if (!pat)
		return true;
	snprintf(full, sizeof(full), "%s:%s", sys, name);
	return !fnmatch(pat, full, 0) || !fnmatch(pat, name, 0);
}

/* Directories under events/SYSTEM that hold a format file are events. */
static void list_system(const char *events, const char *sys, const char *pat)
{
	char sysdir[PATH_MAX], fmt[PATH_MAX];
	struct dirent **ev;
	int n, i;

	if (cli_path(sysdir, sizeof(sysdir), events, sys))
		return;
	n = scandir(sysdir, &ev, NULL, cmp_names);
	for (i = 0; i < n; i++) {
		if (ev[i]->d_name[0] != '.' &&
		    snprintf(fmt, sizeof(fmt), "%s/%s/format", sysdir, ev[i]->d_name) <
			    (int)sizeof(fmt) &&
		    !access(fmt, F_OK) && event_matches(pat, sys, ev[i]->d_name))
			printf("%s:%s\n", sys, ev[i]->d_name);
		free(ev[i]);
	}
	if (n >= 0)
		free(ev);
}

static int list_events(const char *dir, const char *pat)
{
	char events[PATH_MAX];
	struct dirent **sys;
	struct stat st;
	int n, i;

	cli_path(events, sizeof(events), dir, "events");
	n = scandir(events, &sys, NULL, cmp_names);
	if (n < 0)
		return cli_file_error(events, errno);
	for (i = 0; i < n; i++) {
		char sub[PATH_MAX];

		if (sys[i]->d_name[0] != '.' && !cli_path(sub, sizeof(sub), events, sys[i]->d_name) &&
		    !stat(sub, &st) && S_ISDIR(st.st_mode))
			list_system(events, sys[i]->d_name, pat);
		free(sys[i]);
	}
	free(sys);
	return 0;
}

static int list_tracers(const char *dir)
{
	char *list, *tok, *save, path[PATH_MAX];
	int err = cli_read_value(dir, "available_tracers", &list);

	if (err) {
		cli_path(path, sizeof(path), dir, "available_tracers");
		return cli_file_error(path, err);
	}
	for (tok = strtok_r(list, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		printf("%s\n", tok);
	free(list);
	return 0;
}

static int print_file(const char *dir, const char *name)
{
	char path[PATH_MAX];
	const char *failed;
	int err;

	cli_path(path, sizeof(path), dir, name);
	fflush(stdout);
	err = cli_copy(path, STDOUT_FILENO, &failed);
	if (!err)
		return 0;
	if (err == -ENOENT && !strcmp(name, "available_filter_functions")) {
		cli_error("the list of functions is not available yet (%s does not exist)", path);
		return CLI_FAIL;
	}
	return cli_file_error(failed ? failed : "standard output", err);
}

/*
 * The lines of available_filter_functions whose function name (the first word:
 * "name" or "name [object]") matches the glob pat (fnmatch, as the shell's).
 */
static int print_funcs(const char *dir, const char *pat)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	if (!pat)
		return print_file(dir, "available_filter_functions");
	cli_path(path, sizeof(path), dir, "available_filter_functions");
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return print_file(dir, "available_filter_functions"); /* its message */
		return cli_file_error(path, errno);
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		size_t len = strcspn(line, " \n");
		char c = line[len];

		line[len] = '\0';
		if (!fnmatch(pat, line, 0)) {
			line[len] = c;
			fputs(line, stdout);
		}
	}
	free(line);
	if (ferror(f)) {
		int err = errno;

		fclose(f);
		return cli_file_error(path, err);
	}
	fclose(f);
	return 0;
}

static int list(const char *dir, unsigned int what, bool titles, const char *pat)
{
	int rc = 0;

	if (what & LIST_EVENTS) {
		if (titles)
			printf("events:\n");
		rc |= list_events(dir, pat);
	}
	if (what & LIST_TRACERS) {
		if (titles)
			printf("%stracers:\n", what & LIST_EVENTS ? "\n" : "");
		rc |= list_tracers(dir);
	}
	if (what & LIST_OPTIONS) {
		if (titles)
			printf("\noptions:\n");
		fflush(stdout);
		rc |= print_file(dir, "trace_options");
	}
	if (what & LIST_FUNCS) {
		if (titles)
			printf("\nfunctions:\n");
		fflush(stdout);
		rc |= print_funcs(dir, pat);
	}
	fflush(stdout);
	return rc ? CLI_FAIL : CLI_OK;
}

static int run(int argc, char **argv)
{
	char dir[PATH_MAX];
	unsigned int what = 0;
	const char *pat = NULL;
	bool first = true;
	int c;

	while ((c = cli_getopt(argc, argv, "+tefo", &first)) != -1) {
		switch (c) {
		case 'h':
			return cli_print_usage(&cli_cmd_list);
		case 't':
			what |= LIST_TRACERS;
			break;
		case 'e':
			what |= LIST_EVENTS;
			break;
		case 'f':
			what |= LIST_FUNCS;
			break;
		case 'o':
			what |= LIST_OPTIONS;
			break;
		default:
			return CLI_USAGE;
		}
	}
	/* -e and -f take an optional PATTERN, after the options */
	if ((what & (LIST_FUNCS | LIST_EVENTS)) && optind < argc)
		pat = argv[optind++];
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	if (pat && !*pat)
		return cli_usage_error("empty pattern");
	if (cli_mounted_dir(dir, sizeof(dir)))
		return CLI_FAIL;
	if (!what) /* as trace-cmd: everything but the (long) function list */
		return list(dir, LIST_EVENTS | LIST_TRACERS | LIST_OPTIONS, true, NULL);
	/* One list alone is printed bare, for scripts; several get titles. */
	return list(dir, what, what & (what - 1), pat);
}

const struct cli_command cli_cmd_list = {
	.name = "list",
	.summary = "list tracers, events, functions or options",
	.run = run,
	.usage = "usage: utrace list [-t] [-e] [-f] [-o] [PATTERN]\n"
		 "\n"
		 "List what the mounted utracefs offers.  Without options: events,\n"
		 "tracers and options, each under a title.  One option alone prints its\n"
		 "list bare, one item per line.\n"
		 "\n"
		 "  -t  tracers (available_tracers)\n"
		 "  -e  events, as SYSTEM:EVENT (the events/ tree); with PATTERN only those\n"
		 "      that match it as SYSTEM:EVENT or by name ('sched:*', '*fork*')\n"
		 "  -f  functions that can be traced (available_filter_functions); with\n"
		 "      PATTERN only those whose name matches it (a shell glob: 'fm_*',\n"
		 "      '*alloc*', 'f?o')\n"
		 "  -o  options and their state (trace_options: NAME is set, noNAME is not)\n",
};

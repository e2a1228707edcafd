// SPDX-License-Identifier: MIT
/*
 * main.c - the utrace command: finds the subcommand and runs it.  Each subcommand
 * lives in its own file (cmd/<name>.c); `utrace help` lists them.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "ut_version.h"

static const struct cli_command *const commands[] = {
	&cli_cmd_mount, &cli_cmd_umount, &cli_cmd_cflags, &cli_cmd_record, &cli_cmd_report,
	&cli_cmd_show,	&cli_cmd_start,	 &cli_cmd_stop,	  &cli_cmd_reset,  &cli_cmd_list,
	&cli_cmd_stat,	&cli_cmd_snapshot, &cli_cmd_extract, &cli_cmd_tracecmd, &cli_cmd_stack,
	&cli_cmd_profile, NULL,
};

static const struct cli_command *find(const char *name)
{
	const struct cli_command *const *c;

	for (c = commands; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

static void usage(FILE *f)
{
	const struct cli_command *const *c;

	fputs("utrace - ftrace for user-space programs\n\n"
	      "usage: utrace COMMAND [OPTIONS] [ARGS]\n\n"
	      "commands:\n",
	      f);
	for (c = commands; *c; c++)
		fprintf(f, "  %-9s %s\n", (*c)->name, (*c)->summary);
	fputs("\n'utrace help COMMAND' or 'utrace COMMAND -h' describes a command;\n"
	      "'utrace --version' prints the version.\n",
	      f);
}

static int help(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 3) {
		usage(stdout);
		return CLI_OK;
	}
	cmd = find(argv[2]);
	if (!cmd || argc > 3) {
		fprintf(stderr, "utrace help: %s '%s'\nTry 'utrace help' for the list of commands.\n",
			cmd ? "unexpected argument" : "unknown command", argv[cmd ? 3 : 2]);
		return CLI_USAGE;
	}
	return cli_print_usage(cmd);
}

int main(int argc, char **argv)
{
	static char name[64];
	const struct cli_command *cmd;

	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return help(argc, argv);
	if (!strcmp(argv[1], "--version")) {
		printf("utrace %s\n", UT_VERSION);
		return CLI_OK;
	}
	cmd = find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "utrace: unknown command '%s'\n"
				"Try 'utrace help' for the list of commands.\n",
			argv[1]);
		return CLI_USAGE;
	}
	snprintf(name, sizeof(name), "utrace %s", cmd->name);
	cli_set_name(name);
	return cmd->run(argc - 1, argv + 1);
}

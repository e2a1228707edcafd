// SPDX-License-Identifier: MIT
/*
 * report.c - `utrace report [-i FILE]`: print a recording made by `utrace record`.
 * A recording is, for now, the text of the trace file; the binary trace.dat
 * format of trace-cmd comes later.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

static int run(int argc, char **argv)
{
	const char *input = CLI_RECORD_DEFAULT_OUTPUT;
	size_t len;
	bool first = true;
	char *text;
	int c, err;

	while ((c = cli_getopt(argc, argv, "+i:", &first)) != -1) {
		if (c == 'h')
			return cli_print_usage(&cli_cmd_report);
		if (c != 'i')
			return CLI_USAGE;
		input = optarg;
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	err = cli_read_file(input, &text, &len);
	if (err)
		return cli_file_error(input, err);
	/* Every trace starts with its tracer's header: anything else was not recorded here. */
	if (strncmp(text, "# tracer: ", 10)) {
		free(text);
		cli_error("%s: not a utrace recording (no '# tracer:' header)", input);
		return CLI_FAIL;
	}
	fwrite(text, 1, len, stdout);
	free(text);
	if (fflush(stdout) || ferror(stdout))
		return cli_file_error("standard output", errno);
	return CLI_OK;
}

const struct cli_command cli_cmd_report = {
	.name = "report",
	.summary = "print a trace saved by 'utrace record'",
	.run = run,
	.usage = "usage: utrace report [-i FILE]\n"
		 "\n"
		 "Print the trace that 'utrace record' saved.\n"
		 "\n"
		 "  -i FILE  the recording (default " CLI_RECORD_DEFAULT_OUTPUT ")\n"
		 "\n"
		 "Recordings are the text of the trace file for now; the binary trace.dat\n"
		 "format of trace-cmd comes later.\n",
};

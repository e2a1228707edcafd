// SPDX-License-Identifier: MIT
/* start.c - `utrace start`: turn tracing on (tracing_on = 1). */
#include <limits.h>

#include "cmd.h"

static int run(int argc, char **argv)
{
	char dir[PATH_MAX];
	int rc = cli_parse_simple(argc, argv, &cli_cmd_start, 0, NULL);

	if (rc >= 0)
		return rc;
	if (cli_mounted_dir(dir, sizeof(dir)))
		return CLI_FAIL;
	return cli_set(dir, "tracing_on", "1");
}

const struct cli_command cli_cmd_start = {
	.name = "start",
	.summary = "turn tracing on (tracing_on = 1)",
	.run = run,
	.usage = "usage: utrace start\n"
		 "\n"
		 "Turn tracing on: write 1 to tracing_on.  Traced programs write events again.\n",
};

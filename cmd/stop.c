// SPDX-License-Identifier: MIT
/* stop.c - `utrace stop`: turn tracing off (tracing_on = 0). */
#include <limits.h>

#include "cmd.h"

static int run(int argc, char **argv)
{
	char dir[PATH_MAX];
	int rc = cli_parse_simple(argc, argv, &cli_cmd_stop, 0, NULL);

	if (rc >= 0)
		return rc;
	if (cli_mounted_dir(dir, sizeof(dir)))
		return CLI_FAIL;
	return cli_set(dir, "tracing_on", "0");
}

const struct cli_command cli_cmd_stop = {
	.name = "stop",
	.summary = "turn tracing off (tracing_on = 0)",
	.run = run,
	.usage = "usage: utrace stop\n"
		 "\n"
		 "Turn tracing off: write 0 to tracing_on.  The buffer keeps what it holds.\n",
};

// SPDX-License-Identifier: MIT
/* umount.c - `utrace umount [MOUNTPOINT]`: unmount utracefs (its daemon then exits). */
#include <limits.h>

#include "cmd.h"

static int run(int argc, char **argv)
{
	char dir[PATH_MAX], *arg;
	int rc = cli_parse_simple(argc, argv, &cli_cmd_umount, 1, &arg);

	if (rc >= 0)
		return rc;
	if (cli_tracing_dir(dir, sizeof(dir), arg))
		return cli_usage_error("bad mount point '%s'", arg ? arg : "");
	return cli_umount(dir) ? CLI_FAIL : CLI_OK;
}

const struct cli_command cli_cmd_umount = {
	.name = "umount",
	.summary = "unmount utracefs",
	.run = run,
	.usage = "usage: utrace umount [MOUNTPOINT]\n"
		 "\n"
		 "Unmount the utracefs at MOUNTPOINT (default: $UTRACE_TRACING, else\n"
		 "${XDG_RUNTIME_DIR:-/tmp}/utrace-UID/tracing) with fusermount3; its daemon\n"
		 "exits and the trace buffers are freed.  Fails (exit status 1) when no\n"
		 "utracefs is mounted there.\n",
};

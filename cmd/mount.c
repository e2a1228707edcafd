// SPDX-License-Identifier: MIT
/* mount.c - `utrace mount [MOUNTPOINT]`: start utracefs and wait for its mount. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"

static int run(int argc, char **argv)
{
	char dir[PATH_MAX], *arg;
	int rc = cli_parse_simple(argc, argv, &cli_cmd_mount, 1, &arg), err;

	if (rc >= 0)
		return rc;
	err = cli_tracing_dir(dir, sizeof(dir), arg);
	if (err)
		return cli_usage_error("bad mount point '%s'", arg ? arg : "");
	err = cli_mount(dir);
	if (err < 0)
		return CLI_FAIL;
	printf(err ? "utracefs already mounted at %s\n" : "utracefs mounted at %s\n", dir);
	if (!arg && cli_tracing_env_relative())
		cli_error("warning: UTRACE_TRACING=%s is relative: traced programs and other "
			  "directories need UTRACE_TRACING=%s",
			  getenv("UTRACE_TRACING"), dir);
	return CLI_OK;
}

const struct cli_command cli_cmd_mount = {
	.name = "mount",
	.summary = "mount utracefs (the tracing directory)",
	.run = run,
	.usage = "usage: utrace mount [MOUNTPOINT]\n"
		 "\n"
		 "Mount utracefs, utrace's tracefs, and return once it answers.  Without\n"
		 "MOUNTPOINT it goes where traced programs and the other commands look for it:\n"
		 "$UTRACE_TRACING if set, else ${XDG_RUNTIME_DIR:-/tmp}/utrace-UID/tracing.\n"
		 "A relative MOUNTPOINT or $UTRACE_TRACING is taken from the working\n"
		 "directory; the absolute path is printed (traced programs refuse a\n"
		 "relative UTRACE_TRACING).  Missing directories are created with mode 0700.\n"
		 "\n"
		 "If a live utracefs is mounted there already, nothing changes and the exit\n"
		 "status is 0.  A dead mount (its daemon gone) is unmounted and mounted again.\n"
		 "Programs traced through another MOUNTPOINT find it with\n"
		 "UTRACE_TRACING=MOUNTPOINT in their environment.\n",
};

// SPDX-License-Identifier: MIT
/* mount.c - `utrace mount [-o OPTIONS] [MOUNTPOINT]`: start utracefs, wait for its mount. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"

static int run(int argc, char **argv)
{
	char dir[PATH_MAX], *arg, *opts = NULL;
	bool first = true;
	int c, err;

	while ((c = cli_getopt(argc, argv, "+o:", &first)) != -1) {
		if (c == 'h')
			return cli_print_usage(&cli_cmd_mount);
		if (c != 'o')
			return CLI_USAGE;
		opts = optarg; /* utracefs checks them (one -o: the last wins) */
	}
	if (argc - optind > 1)
		return cli_usage_error("unexpected argument '%s'", argv[optind + 1]);
	arg = optind < argc ? argv[optind] : NULL;
	err = cli_tracing_dir(dir, sizeof(dir), arg);
	if (err)
		return cli_usage_error("bad mount point '%s'", arg ? arg : "");
	err = cli_mount(dir, opts);
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
	.usage = "usage: utrace mount [-o OPTIONS] [MOUNTPOINT]\n"
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
		 "UTRACE_TRACING=MOUNTPOINT in their environment.\n"
		 "\n"
		 "  -o OPTIONS  FUSE mount options for utracefs, comma-separated:\n"
		 "              fsname=NAME (the mount table's source), allow_other or\n"
		 "              allow_root (others may then use the tree as far as its\n"
		 "              files' modes let them: nothing until you chmod or chown\n"
		 "              them; a user other than root needs user_allow_other in\n"
		 "              /etc/fuse.conf), default_permissions (always on)\n",
};

// SPDX-License-Identifier: MIT
/* umount.c - `utrace umount [-l] [MOUNTPOINT]`: unmount utracefs (its daemon then exits). */
#include <limits.h>
#include <unistd.h>

#include "cmd.h"

static int run(int argc, char **argv)
{
	char dir[PATH_MAX], *arg;
	bool first = true, lazy = false;
	int c;

	while ((c = cli_getopt(argc, argv, "+l", &first)) != -1) {
		if (c == 'h')
			return cli_print_usage(&cli_cmd_umount);
		if (c != 'l')
			return CLI_USAGE;
		lazy = true;
	}
	if (argc - optind > 1)
		return cli_usage_error("unexpected argument '%s'", argv[optind + 1]);
	arg = optind < argc ? argv[optind] : NULL;
	if (cli_tracing_dir(dir, sizeof(dir), arg))
		return cli_usage_error("bad mount point '%s'", arg ? arg : "");
	return cli_umount(dir, lazy) ? CLI_FAIL : CLI_OK;
}

const struct cli_command cli_cmd_umount = {
	.name = "umount",
	.summary = "unmount utracefs",
	.run = run,
	.usage = "usage: utrace umount [-l] [MOUNTPOINT]\n"
		 "\n"
		 "Unmount the utracefs at MOUNTPOINT (default: $UTRACE_TRACING, else\n"
		 "${XDG_RUNTIME_DIR:-/tmp}/utrace-UID/tracing) with fusermount3; its daemon\n"
		 "exits and the trace buffers are freed.  Fails (exit status 1) when no\n"
		 "utracefs is mounted there, or when it is busy (a file open in it, a shell\n"
		 "in it) without -l.\n"
		 "\n"
		 "  -l  lazy: detach the mount now even if it is busy; the daemon exits\n"
		 "      once the last file in it is closed (fusermount3 -u -z)\n",
};

// SPDX-License-Identifier: MIT
/*
 * extract.c - `utrace extract [-B NAME] [-s] [-o FILE] [--file-version N]`: save
 * what a session's buffers hold now as a trace.dat, as trace-cmd extract does.
 * The buffers are read through per_cpu/cpuN/trace_pipe_raw (snapshot_raw with
 * -s), so what is saved is taken out of them; tracing is left as it is.
 */
#include <getopt.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

static int run(int argc, char **argv)
{
	static const struct option longopts[] = {{"file-version", required_argument, NULL, 'V'},
						 {0}};
	const char *output = CLI_RECORD_DEFAULT_OUTPUT, *instance = NULL;
	char mnt[PATH_MAX], dir[PATH_MAX];
	struct cli_rawrec *rr;
	struct cli_output out;
	bool first = true, snapshot = false;
	int c, version = 7, rc;

	while ((c = cli_getopt_long(argc, argv, "+o:B:s", longopts, &first)) != -1) {
		switch (c) {
		case 'h':
			return cli_print_usage(&cli_cmd_extract);
		case 'o':
			if (!*optarg)
				return cli_usage_error("empty output file name");
			output = optarg;
			break;
		case 'B':
			if (!cli_instance_name_ok(optarg))
				return cli_usage_error("bad instance name '%s'", optarg);
			instance = optarg;
			break;
		case 's':
			snapshot = true;
			break;
		case 'V':
			if (cli_parse_file_version(optarg, &version))
				return CLI_USAGE;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	if (cli_mounted_session(mnt, sizeof(mnt), dir, sizeof(dir), instance))
		return CLI_FAIL;
	if (cli_output_open(&out, output))
		return CLI_FAIL;
	rc = cli_rawrec_open(&rr, dir, output, snapshot ? "snapshot_raw" : "trace_pipe_raw", false);
	if (!rc) {
		cli_output_start(&out);
		cli_rawrec_reserve(rr, out.fd);
		cli_rawrec_stop(rr);
		rc = cli_rawrec_write(rr, &(struct cli_rawrec_out){.mnt = mnt,
								   .dir = dir,
								   .path = output,
								   .fd = out.fd,
								   .version = version});
		cli_rawrec_free(rr);
	}
	c = cli_output_close(&out);
	return rc ? rc : c;
}

const struct cli_command cli_cmd_extract = {
	.name = "extract",
	.summary = "save what the buffers hold now as a trace.dat",
	.run = run,
	.usage = "usage: utrace extract [-B NAME] [-s] [-o FILE] [--file-version 6|7]\n"
		 "\n"
		 "Save the events the buffers hold now to FILE, a trace-cmd data file that\n"
		 "'utrace report' and 'trace-cmd report' read.  They are taken out of the\n"
		 "buffers (read through per_cpu/cpuN/trace_pipe_raw); tracing goes on as it\n"
		 "was.\n"
		 "\n"
		 "  -o FILE    the file (default " CLI_RECORD_DEFAULT_OUTPUT "; - is stdout)\n"
		 "  -B NAME    the buffers of instance NAME instead of the top level's\n"
		 "  -s         the snapshot buffer (snapshot_raw) instead of the live one\n"
		 "  --file-version 6|7\n"
		 "             the trace.dat version (default 7, as trace-cmd 3 writes;\n"
		 "             6 for older readers)\n",
};

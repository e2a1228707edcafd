// SPDX-License-Identifier: MIT
/*
 * cflags.c - `utrace cflags [--ldflags]`: what to add to a build so that its
 * functions can be traced (and, with --ldflags, to link the runtime instead of
 * preloading it).  Paths are found from where the utrace binary is.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* The flag that leaves 5 bytes of NOPs at each function's entry for the runtime. */
#define PATCH_FLAG "-fpatchable-function-entry=5"

/* The directory holding utrace/utrace.h: installed (PREFIX/include) or the source tree. */
static int include_dir(char *buf, size_t size)
{
	static const char *const candidates[] = {"../include", "../../include", NULL};
	char header[PATH_MAX];
	int i;

	for (i = 0; candidates[i]; i++) {
		if (cli_sibling(buf, size, candidates[i]))
			continue;
		if (!cli_path(header, sizeof(header), buf, "utrace/utrace.h") &&
		    !access(header, R_OK))
			return 0;
	}
	return -1;
}

static int print_ldflags(void)
{
	char lib[PATH_MAX], libdir[PATH_MAX];
	int err = cli_sibling(lib, sizeof(lib), "../lib/libutrace.so");

	if (!err && access(lib, R_OK))
		err = -1;
	if (err || cli_sibling(libdir, sizeof(libdir), "../lib")) {
		cli_error("libutrace.so not found next to utrace (expected %s)", lib);
		return CLI_FAIL;
	}
	/*
	 * A program may only refer to the runtime through weak symbols (utrace.h), which
	 * --as-needed (the default of some distributions) would drop: keep it NEEDED.
	 */
	printf("-L%s -Wl,-rpath,%s -Wl,--push-state,--no-as-needed -lutrace -Wl,--pop-state\n",
	       libdir, libdir);
	return CLI_OK;
}

static int run(int argc, char **argv)
{
	char inc[PATH_MAX];
	bool ldflags = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return cli_print_usage(&cli_cmd_cflags);
		if (!strcmp(argv[i], "--ldflags"))
			ldflags = true;
		else if (argv[i][0] == '-')
			return cli_usage_error("unknown option '%s'", argv[i]);
		else
			return cli_usage_error("unexpected argument '%s'", argv[i]);
	}
	if (ldflags)
		return print_ldflags();
	if (include_dir(inc, sizeof(inc)))
		printf("%s\n", PATCH_FLAG);
	else
		printf("%s -I%s\n", PATCH_FLAG, inc);
	return CLI_OK;
}

const struct cli_command cli_cmd_cflags = {
	.name = "cflags",
	.summary = "print the compiler flags that make a program traceable",
	.run = run,
	.usage = "usage: utrace cflags [--ldflags]\n"
		 "\n"
		 "Print the flags to add when compiling a program so that utrace can trace\n"
		 "its functions: " PATCH_FLAG " (room for a call at each\n"
		 "function's entry: a NOP that costs almost nothing until traced), and -I for\n"
		 "<utrace/utrace.h> (trace_printk() and friends).  For example:\n"
		 "\n"
		 "    cc $(utrace cflags) -O2 -o prog prog.c\n"
		 "\n"
		 "  --ldflags  print the flags that link libutrace.so (-L, -rpath, -lutrace)\n"
		 "             for programs that load the runtime themselves instead of\n"
		 "             being started with LD_PRELOAD (utrace record preloads it)\n"
		 "\n"
		 "Only code compiled with the flag can be traced; libraries built without it\n"
		 "simply do not show.\n"
		 "\n"
		 "C++: GCC 12 can fail to link a C++ library made of several files with this\n"
		 "flag (patch records of some inline or template functions point into\n"
		 "discarded COMDAT sections).  clang links them; use clang++ if you hit it.\n",
};

// SPDX-License-Identifier: MIT
/*
 * test_cli.c - the utrace command line without a mount: where it looks for the
 * mount, how it reads mountinfo, argument parsing and exit statuses of every
 * subcommand's misuse, LD_PRELOAD composition, file helpers and stats parsing.
 * (Everything through a real mount is in tests/integration/50_cli.sh.)
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd.h"
#include "ut_paths.h"

static void clear_env(void)
{
	unsetenv("UTRACE_TRACING");
	unsetenv("XDG_RUNTIME_DIR");
}

static void test_tracing_dir_rules(void **state)
{
	char buf[PATH_MAX], want[PATH_MAX];

	clear_env();
	snprintf(want, sizeof(want), "/tmp/utrace-%u/tracing", (unsigned int)getuid());
	assert_int_equal(cli_tracing_dir(buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, want);

	setenv("XDG_RUNTIME_DIR", "/run/user/4242", 1);
	snprintf(want, sizeof(want), "/run/user/4242/utrace-%u/tracing", (unsigned int)getuid());
	assert_int_equal(cli_tracing_dir(buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, want);

	/* An empty UTRACE_TRACING is as if unset. */
	setenv("UTRACE_TRACING", "", 1);
	assert_int_equal(cli_tracing_dir(buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, want);

	setenv("UTRACE_TRACING", "/some/where/tracing", 1);
	assert_int_equal(cli_tracing_dir(buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, "/some/where/tracing");

	/* A MOUNTPOINT operand wins over the environment. */
	assert_int_equal(cli_tracing_dir(buf, sizeof(buf), "/explicit"), 0);
	assert_string_equal(buf, "/explicit");
	assert_int_equal(cli_tracing_dir(buf, sizeof(buf), ""), -EINVAL);
	assert_int_equal(cli_tracing_dir(buf, 8, NULL), -ENAMETOOLONG);
	assert_int_equal(cli_tracing_dir(buf, 4, "/explicit"), -ENAMETOOLONG);

	/* The socket follows the mount. */
	assert_int_equal(ut_socket_path(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/some/where/tracing.sock");
	clear_env();
}

/* A relative $UTRACE_TRACING: the commands make it absolute, the runtime refuses it. */
static void test_tracing_dir_relative(void **state)
{
	char buf[PATH_MAX], cwd[PATH_MAX], want[PATH_MAX + 32];

	clear_env();
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	setenv("UTRACE_TRACING", "rel/tracing/", 1);
	assert_true(cli_tracing_env_relative());
	assert_int_equal(ut_tracing_dir(buf, sizeof(buf)), -EINVAL);
	assert_int_equal(ut_socket_path(buf, sizeof(buf)), -EINVAL);
	snprintf(want, sizeof(want), "%s/rel/tracing", cwd);
	assert_int_equal(cli_tracing_dir(buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, want);
	/* a relative MOUNTPOINT operand too */
	snprintf(want, sizeof(want), "%s/mnt", cwd);
	assert_int_equal(cli_tracing_dir(buf, sizeof(buf), "mnt"), 0);
	assert_string_equal(buf, want);
	setenv("UTRACE_TRACING", "/abs", 1);
	assert_false(cli_tracing_env_relative());
	clear_env();
}

static const char mountinfo[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"40 22 0:35 / /tmp/with\\040space rw,nosuid - fuse.utracefs utracefs rw,user_id=0\n"
	"41 22 0:36 / /tmp/stacked rw - tmpfs tmpfs rw\n"
	"42 41 0:37 / /tmp/stacked rw,nosuid master:3 shared:7 - fuse utracefs rw\n"
	"43 22 0:38 / /tmp/other rw - fuse.sshfs host:/x rw\n";

static void test_mountinfo(void **state)
{
	char type[64], src[64];

	assert_int_equal(cli_mountinfo_find(mountinfo, "/tmp/with space", type, sizeof(type), src,
					    sizeof(src)),
			 1);
	assert_string_equal(type, "fuse.utracefs");
	assert_string_equal(src, "utracefs");
	/* The last mount on a path is the visible one; optional fields are skipped. */
	assert_int_equal(cli_mountinfo_find(mountinfo, "/tmp/stacked", type, sizeof(type), src,
					    sizeof(src)),
			 1);
	assert_string_equal(type, "fuse");
	assert_string_equal(src, "utracefs");
	assert_int_equal(cli_mountinfo_find(mountinfo, "/tmp", type, sizeof(type), src,
					    sizeof(src)),
			 0);
	assert_int_equal(cli_mountinfo_find(mountinfo, "/tmp/with", type, sizeof(type), src,
					    sizeof(src)),
			 0);
	assert_int_equal(cli_mountinfo_find("", "/", type, sizeof(type), src, sizeof(src)), 0);

	assert_true(cli_is_utracefs("fuse.utracefs", "anything"));
	assert_true(cli_is_utracefs("fuse", "utracefs"));
	assert_false(cli_is_utracefs("fuse.sshfs", "host:/x"));
	assert_false(cli_is_utracefs("tmpfs", "utracefs"));
}

static void test_mount_state_without_mount(void **state)
{
	char tmpl[] = "/tmp/test_cli.XXXXXX", sub[PATH_MAX];

	assert_non_null(mkdtemp(tmpl));
	assert_int_equal(cli_mount_state(tmpl), CLI_MNT_NONE);
	snprintf(sub, sizeof(sub), "%s/missing/tracing", tmpl);
	assert_int_equal(cli_mount_state(sub), CLI_MNT_NONE);
	/* "/" is always a mount point and never a utracefs. */
	assert_int_equal(cli_mount_state("/"), CLI_MNT_OTHER);
	/* Commands that need a mount refuse with status 1. */
	assert_int_equal(cli_need_mount(tmpl), CLI_FAIL);
	/* a mount point whose socket name cannot be bound: refused, nothing created */
	snprintf(sub, sizeof(sub), "%s/%0100d/tracing", tmpl, 0);
	assert_int_equal(cli_mount(sub, NULL), -ENAMETOOLONG);
	*strrchr(sub, '/') = '\0';
	assert_int_equal(access(sub, F_OK), -1);
	assert_int_equal(cli_umount(tmpl, false), -EINVAL);
	assert_int_equal(cli_umount(tmpl, true), -EINVAL);
	rmdir(tmpl);
}

static void test_preload(void **state)
{
	char buf[64];

	assert_int_equal(cli_preload_value(buf, sizeof(buf), NULL, "/l/libutrace.so"), 0);
	assert_string_equal(buf, "/l/libutrace.so");
	assert_int_equal(cli_preload_value(buf, sizeof(buf), "", "/l/libutrace.so"), 0);
	assert_string_equal(buf, "/l/libutrace.so");
	/* Appended: a sanitizer runtime that must come first stays first. */
	assert_int_equal(cli_preload_value(buf, sizeof(buf), "libasan.so.8", "/l/libutrace.so"), 0);
	assert_string_equal(buf, "libasan.so.8:/l/libutrace.so");
	assert_int_equal(cli_preload_value(buf, 10, "libasan.so.8", "/l/libutrace.so"),
			 -ENAMETOOLONG);
}

#define ARGV(...) ((char *[]){__VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){__VA_ARGS__}) / sizeof(char *)))
#define PARSE(o, ...) cli_record_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o)

static void test_record_parse(void **state)
{
	struct cli_record_opts o;

	assert_int_equal(PARSE(&o, "record", "-p", "function", "-o", "out.txt", "--", "ls", "-l"),
			 -1);
	assert_string_equal(o.tracer, "function");
	assert_string_equal(o.output, "out.txt");
	assert_string_equal(o.cmd[0], "ls");
	assert_string_equal(o.cmd[1], "-l");
	assert_null(o.cmd[2]);

	/* Without "--": the first operand starts CMD, whose options stay its own. */
	assert_int_equal(PARSE(&o, "record", "-pnop", "prog", "-o", "x"), -1);
	assert_string_equal(o.tracer, "nop");
	assert_string_equal(o.output, CLI_RECORD_DEFAULT_OUTPUT);
	assert_string_equal(o.cmd[0], "prog");
	assert_string_equal(o.cmd[1], "-o");

	assert_int_equal(PARSE(&o, "record", "-h"), CLI_OK);
	assert_int_equal(PARSE(&o, "record", "--help"), CLI_OK);
	assert_int_equal(PARSE(&o, "record", "--", "ls"), CLI_USAGE);		 /* no -p */
	assert_int_equal(PARSE(&o, "record", "-p", "function"), CLI_USAGE);	 /* no CMD */
	assert_int_equal(PARSE(&o, "record", "-p", "function", "--"), CLI_USAGE); /* no CMD */
	assert_int_equal(PARSE(&o, "record", "-p"), CLI_USAGE);		 /* no TRACER */
	assert_int_equal(PARSE(&o, "record", "-x", "-p", "f", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "--bogus", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-p", "f", "-o", "", "ls"), CLI_USAGE);
	/* Parsing starts afresh each time (getopt keeps global state). */
	assert_int_equal(PARSE(&o, "record", "-p", "function", "true"), -1);
	assert_string_equal(o.cmd[0], "true");
	assert_null(o.graph_funcs);
	assert_int_equal(o.buffer_kb, 0);
}

/* -b KB: the buffer size for the run, as trace-cmd's -b. */
static void test_record_parse_events(void **state)
{
	struct cli_record_opts o;

	/* events alone: no tracer (nop); repeated -e joined into one set_event write */
	assert_int_equal(PARSE(&o, "record", "-e", "sched:*", "-e", "ut:x", "ls"), -1);
	assert_string_equal(o.tracer, "nop");
	assert_string_equal(o.events, "sched:* ut:x");
	assert_int_equal(PARSE(&o, "record", "-p", "function", "-e", "a:b", "ls"), -1);
	assert_string_equal(o.tracer, "function");
	assert_string_equal(o.events, "a:b");
	assert_int_equal(PARSE(&o, "record", "-l", "f", "-e", "a:b", "ls"), -1);
	assert_string_equal(o.tracer, "function");
	assert_int_equal(PARSE(&o, "record", "-e", "", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-e", "a:b", "-B", "x", "ls"), CLI_USAGE); /* top's */
	assert_int_equal(PARSE(&o, "record", "-p", "nop", "ls"), -1);
	assert_null(o.events);
	assert_int_equal(o.nr_filters, 0);
	/* -f is the filter of the -e before it */
	assert_int_equal(PARSE(&o, "record", "-e", "a:b", "-f", "x == 1", "-e", "c:*", "ls"), -1);
	assert_int_equal(o.nr_filters, 2);
	assert_string_equal(o.filters[0].event, "a:b");
	assert_string_equal(o.filters[0].filter, "x == 1");
	assert_null(o.filters[1].filter);
	assert_int_equal(PARSE(&o, "record", "-f", "x == 1", "-e", "a:b", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-e", "a:b", "-f", "x", "-f", "y", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-e", "a:b", "-f", "", "ls"), CLI_USAGE);
}

/* -N HOST:PORT: a trace-cmd listener instead of a file; [ADDRESS]:PORT for IPv6. */
static void test_record_parse_net(void **state)
{
	struct cli_record_opts o;

	assert_int_equal(PARSE(&o, "record", "-N", "collector:12345", "-p", "function", "ls"), -1);
	assert_string_equal(o.net, "collector:12345");
	assert_string_equal(o.net_host, "collector");
	assert_string_equal(o.net_port, "12345");
	assert_string_equal(o.output, "-"); /* the CPU files go to TMPDIR */
	assert_int_equal(PARSE(&o, "record", "-N", "[::1]:99", "--file-version", "6", "-p", "f",
			       "ls"),
			 -1);
	assert_string_equal(o.net_host, "::1");
	assert_string_equal(o.net_port, "99");
	assert_int_equal(o.file_version, 6);
	assert_int_equal(PARSE(&o, "record", "-N", "10.0.0.1:7", "-p", "f", "ls"), -1);
	assert_string_equal(o.net_host, "10.0.0.1");
	/* as trace-cmd: a file or a listener; a listener takes trace.dat only */
	assert_int_equal(PARSE(&o, "record", "-N", "h:1", "-o", "x.dat", "-p", "f", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-o", "x.dat", "-N", "h:1", "-p", "f", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-N", "h:1", "--text", "-p", "f", "ls"), CLI_USAGE);
	/* no port, no host, a port that is not a number, an unclosed bracket */
	assert_int_equal(PARSE(&o, "record", "-N", "host", "-p", "f", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-N", ":80", "-p", "f", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-N", "host:", "-p", "f", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-N", "host:http", "-p", "f", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-N", "[::1:80", "-p", "f", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-p", "f", "ls"), -1);
	assert_null(o.net);
}

static void test_record_parse_buffer(void **state)
{
	struct cli_record_opts o;

	assert_int_equal(PARSE(&o, "record", "-p", "function", "-b", "20000", "ls"), -1);
	assert_int_equal(o.buffer_kb, 20000);
	assert_int_equal(PARSE(&o, "record", "-p", "nop", "-b", "0", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-p", "nop", "-b", "-5", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-p", "nop", "-b", "12k", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-p", "nop", "-b"), CLI_USAGE);
}

/*
 * -B NAME: the options after it are the instance's.  A recording holds one
 * buffer: a second -B, or an option before -B that would set the top level's
 * tracing, is bad usage (-o is the recording's, anywhere).
 */
static void test_record_parse_instance(void **state)
{
	struct cli_record_opts o;

	assert_int_equal(PARSE(&o, "record", "-o", "x.txt", "-B", "foo", "-p", "function", "-l",
			       "main", "-b", "100", "ls"),
			 -1);
	assert_string_equal(o.instance, "foo");
	assert_string_equal(o.tracer, "function");
	assert_string_equal(o.filter_funcs, "main");
	assert_int_equal(o.buffer_kb, 100);
	assert_string_equal(o.output, "x.txt");
	assert_int_equal(PARSE(&o, "record", "-Bfoo", "-P", "1", "ls"), -1);
	assert_string_equal(o.instance, "foo");
	assert_string_equal(o.tracer, "function"); /* implied by -P, as without -B */
	assert_int_equal(PARSE(&o, "record", "-p", "function", "ls"), -1);
	assert_null(o.instance);

	for (const char *opt = "pglnPb"; *opt; opt++) {
		char flag[3] = {'-', *opt, '\0'};
		char arg[8];

		strcpy(arg, *opt == 'P' ? "1" : *opt == 'b' ? "10" : "main");

		assert_int_equal(PARSE(&o, "record", flag, arg, "-B", "foo", "ls"), CLI_USAGE);
	}
	assert_int_equal(PARSE(&o, "record", "-B", "a", "-B", "b", "-p", "nop", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-B", "", "-p", "nop", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-B", "a/b", "-p", "nop", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-B", "..", "-p", "nop", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-B"), CLI_USAGE);
	assert_true(cli_instance_name_ok("foo.1"));
	assert_false(cli_instance_name_ok("."));
}

/* -c CPU and per-CPU file names, shared by show and snapshot. */
static void test_cpu_files(void **state)
{
	char buf[64];
	int cpu = -1;

	assert_int_equal(cli_parse_cpu("12", &cpu), 0);
	assert_int_equal(cpu, 12);
	assert_int_equal(cli_parse_cpu("", &cpu), CLI_USAGE);
	assert_int_equal(cli_parse_cpu("-1", &cpu), CLI_USAGE);
	assert_int_equal(cli_parse_cpu("1x", &cpu), CLI_USAGE);
	assert_int_equal(cli_parse_cpu("123456", &cpu), CLI_USAGE);
	assert_int_equal(cli_cpu_file(buf, sizeof(buf), 3, "snapshot"), 0);
	assert_string_equal(buf, "per_cpu/cpu3/snapshot");
	assert_int_equal(cli_cpu_file(buf, sizeof(buf), -1, "snapshot"), 0);
	assert_string_equal(buf, "snapshot");
	assert_int_equal(cli_cpu_file(buf, 8, 3, "snapshot"), -ENAMETOOLONG);
}

/* What record checks before anything is touched: can CMD be run at all? */
static void test_find_program(void **state)
{
	char tmpl[] = "/tmp/test_cli.XXXXXX", path[PATH_MAX];
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	FILE *f;

	assert_non_null(mkdtemp(tmpl));
	assert_int_equal(cli_find_program("sh"), 0);
	assert_int_equal(cli_find_program("/bin/sh"), 0);
	assert_int_equal(cli_find_program("no-such-program-here"), -ENOENT);
	assert_int_equal(cli_find_program(""), -ENOENT);
	assert_int_equal(cli_find_program(tmpl), -EACCES); /* a directory */
	snprintf(path, sizeof(path), "%s/prog", tmpl);
	assert_int_equal(cli_find_program(path), -ENOENT);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	/* found in PATH but not executable: EACCES, as execvp */
	setenv("PATH", tmpl, 1);
	assert_int_equal(cli_find_program("prog"), -EACCES);
	chmod(path, 0755);
	assert_int_equal(cli_find_program("prog"), 0);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	unlink(path);
	rmdir(tmpl);
}

/* The output file is touched only once CMD runs. */
static void test_output_file(void **state)
{
	char tmpl[] = "/tmp/test_cli.XXXXXX", path[PATH_MAX], *text;
	struct cli_output out;
	FILE *f;

	assert_non_null(mkdtemp(tmpl));
	snprintf(path, sizeof(path), "%s/out.txt", tmpl);
	/* a new file CMD never ran for is removed again */
	assert_int_equal(cli_output_open(&out, path), 0);
	assert_int_equal(cli_output_close(&out), 0);
	assert_int_equal(access(path, F_OK), -1);
	/* an old one keeps its content until CMD runs */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("old recording\n", f);
	fclose(f);
	assert_int_equal(cli_output_open(&out, path), 0);
	assert_int_equal(cli_output_close(&out), 0);
	assert_int_equal(cli_read_file(path, &text, NULL), 0);
	assert_string_equal(text, "old recording\n");
	free(text);
	assert_int_equal(cli_output_open(&out, path), 0);
	cli_output_start(&out);
	assert_int_equal(write(out.fd, "new\n", 4), 4);
	assert_int_equal(cli_output_close(&out), 0);
	assert_int_equal(cli_read_file(path, &text, NULL), 0);
	assert_string_equal(text, "new\n");
	free(text);
	/* one that cannot be written fails first */
	snprintf(path, sizeof(path), "%s/missing/out.txt", tmpl);
	assert_int_equal(cli_output_open(&out, path), CLI_FAIL);
	snprintf(path, sizeof(path), "%s/out.txt", tmpl);
	unlink(path);
	rmdir(tmpl);
}

/* The latency tracers, as trace-cmd record counts them; -N refuses them. */
static void test_latency_tracers(void **state)
{
	static const char *const yes[] = {"irqsoff", "preemptoff", "preemptirqsoff", "wakeup",
					  "wakeup_rt"};
	static const char *const no[] = {"wakeup_dl", "hwlat", "function", "nop", "irqsof"};
	char a0[] = "record", a1[] = "-N", a2[] = "localhost:1", a3[] = "-p", a4[] = "wakeup",
	     a5[] = "true";
	char *argv[] = {a0, a1, a2, a3, a4, a5, NULL};
	struct cli_record_opts o;

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(cli_is_latency_tracer(yes[i]));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_false(cli_is_latency_tracer(no[i]));
	optind = 1;
	assert_int_equal(cli_record_parse(6, argv, &o), CLI_USAGE);
}

static void put_text(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/*
 * cli_latency_write: the session's trace file, as it reads at the end, is the data of
 * the file, after "latency" (v6) or in the last section (v7), so the file ends with it.
 */
static void test_latency_write(void **state)
{
	static const char text[] = "# tracer: irqsoff\n#\n# irqsoff latency trace v1.1.5 on x\n";
	char tmpl[] = "/tmp/test_cli.XXXXXX", path[PATH_MAX], *got;
	size_t len;

	assert_non_null(mkdtemp(tmpl));
	for (const char *const *d = (const char *const[]){"events", "per_cpu", "per_cpu/cpu0",
							    "per_cpu/cpu1", NULL};
	     *d; d++) {
		snprintf(path, sizeof(path), "%s/%s", tmpl, *d);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	put_text(tmpl, "events/header_page", "\tfield: u64 timestamp;\n");
	put_text(tmpl, "events/header_event", "# compressed entry header\n");
	put_text(tmpl, "trace_clock", "[local] global\n");
	put_text(tmpl, "trace", text);
	for (int v = 6; v <= 7; v++) {
		snprintf(path, sizeof(path), "%s/lat.dat", tmpl);
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		assert_int_equal(cli_latency_write(&(struct cli_rawrec_out){.mnt = tmpl,
									    .dir = tmpl,
									    .path = path,
									    .fd = fileno(f),
									    .version = v}),
				 0);
		fclose(f);
		assert_int_equal(cli_read_file(path, &got, &len), 0);
		assert_true(len > sizeof(text));
		assert_memory_equal(got + len - (sizeof(text) - 1), text, sizeof(text) - 1);
		if (v == 6) /* "latency  " right before the text */
			assert_memory_equal(got + len - (sizeof(text) - 1) - 10, "latency  ", 10);
		free(got);
	}
	/* no trace file: said, and nothing else */
	snprintf(path, sizeof(path), "%s/trace", tmpl);
	unlink(path);
	snprintf(path, sizeof(path), "%s/lat.dat", tmpl);
	assert_int_equal(cli_latency_write(&(struct cli_rawrec_out){.mnt = tmpl,
								    .dir = tmpl,
								    .path = path,
								    .fd = -1,
								    .version = 7}),
			 CLI_FAIL);
	for (const char *const *f = (const char *const[]){"lat.dat", "trace_clock",
							    "events/header_page",
							    "events/header_event", NULL};
	     *f; f++) {
		snprintf(path, sizeof(path), "%s/%s", tmpl, *f);
		unlink(path);
	}
	for (const char *const *d = (const char *const[]){"events", "per_cpu/cpu0",
							    "per_cpu/cpu1", "per_cpu", NULL};
	     *d; d++) {
		snprintf(path, sizeof(path), "%s/%s", tmpl, *d);
		rmdir(path);
	}
	rmdir(tmpl);
}

/* -g: repeated ones join into one list; alone it selects function_graph. */
static void test_record_parse_graph(void **state)
{
	struct cli_record_opts o;

	assert_int_equal(PARSE(&o, "record", "-p", "function_graph", "-g", "main", "--", "ls"), -1);
	assert_string_equal(o.tracer, "function_graph");
	assert_string_equal(o.graph_funcs, "main");
	assert_int_equal(PARSE(&o, "record", "-g", "a*", "-gb", "-g", "!c", "ls"), -1);
	assert_string_equal(o.tracer, "function_graph");
	assert_string_equal(o.graph_funcs, "a* b !c");
	assert_string_equal(o.cmd[0], "ls");
	assert_int_equal(PARSE(&o, "record", "-p", "function", "-g", "main", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-g", "", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-p", "function_graph", "-g"), CLI_USAGE);
	/* A later parse does not keep the earlier list. */
	assert_int_equal(PARSE(&o, "record", "-p", "function_graph", "ls"), -1);
	assert_null(o.graph_funcs);
}

/* -l, -n, -P: lists like -g, each its own; alone they select function. */
static void test_record_parse_filters(void **state)
{
	struct cli_record_opts o;

	assert_int_equal(PARSE(&o, "record", "-l", "a*", "-n", "ab", "-lb", "-P", "12", "-P34",
			       "--", "ls"),
			 -1);
	assert_string_equal(o.tracer, "function");
	assert_string_equal(o.filter_funcs, "a* b");
	assert_string_equal(o.notrace_funcs, "ab");
	assert_string_equal(o.pids, "12 34");
	assert_null(o.graph_funcs);
	assert_string_equal(o.cmd[0], "ls");
	assert_int_equal(PARSE(&o, "record", "-n", "x", "ls"), -1);
	assert_string_equal(o.tracer, "function");
	assert_null(o.filter_funcs);
	assert_null(o.pids);
	assert_int_equal(PARSE(&o, "record", "-P", "7", "ls"), -1);
	assert_string_equal(o.tracer, "function");
	/* with -g (or an explicit tracer) the tracer is that one */
	assert_int_equal(PARSE(&o, "record", "-g", "m", "-l", "m", "ls"), -1);
	assert_string_equal(o.tracer, "function_graph");
	assert_int_equal(PARSE(&o, "record", "-p", "nop", "-P", "1", "ls"), -1);
	assert_string_equal(o.tracer, "nop");
	/* bad ones */
	assert_int_equal(PARSE(&o, "record", "-l", "", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-n", " ", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-P", "x1", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-P", "-1", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-P", "4194304", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-P", "", "ls"), CLI_USAGE);
	assert_int_equal(PARSE(&o, "record", "-l", "x"), CLI_USAGE); /* no CMD */
	assert_int_equal(PARSE(&o, "record", "-l"), CLI_USAGE);
}

/* Each subcommand's misuse, with no mount: bad usage is 2, a missing mount 1. */
static void test_misuse_exit_status(void **state)
{
	static const char *const report_misuse[][6] = {
		{"report", "a", "b"},
		{"report", "--cpu", "x", "a"},
		{"report", "--from", "1.5x"},
		{"report", "--chrome"},
		{"report", "-i", "a", "-i", "b"},
		{"report", "-i", "a", "b"},
	};
	char tmpl[] = "/tmp/test_cli.XXXXXX";
	size_t i;

	assert_non_null(mkdtemp(tmpl));
	setenv("UTRACE_TRACING", tmpl, 1); /* an empty directory: nothing mounted */
	assert_int_equal(cli_cmd_start.run(ARGC("start", "x"), ARGV("start", "x")), CLI_USAGE);
	assert_int_equal(cli_cmd_stop.run(ARGC("stop", "-q"), ARGV("stop", "-q")), CLI_USAGE);
	assert_int_equal(cli_cmd_reset.run(ARGC("reset", "a"), ARGV("reset", "a")), CLI_USAGE);
	assert_int_equal(cli_cmd_stat.run(ARGC("stat", "-z"), ARGV("stat", "-z")), CLI_USAGE);
	assert_int_equal(cli_cmd_list.run(ARGC("list", "-x"), ARGV("list", "-x")), CLI_USAGE);
	assert_int_equal(cli_cmd_list.run(ARGC("list", "-t", "y"), ARGV("list", "-t", "y")),
			 CLI_USAGE);
	/* a PATTERN only after -f, one only, not empty */
	assert_int_equal(
	    cli_cmd_list.run(ARGC("list", "-f", "a", "b"), ARGV("list", "-f", "a", "b")),
	    CLI_USAGE);
	assert_int_equal(cli_cmd_list.run(ARGC("list", "-f", ""), ARGV("list", "-f", "")),
			 CLI_USAGE);
	assert_int_equal(cli_cmd_list.run(ARGC("list", "-f", "a*"), ARGV("list", "-f", "a*")),
			 CLI_FAIL); /* well formed: no mount */
	assert_int_equal(cli_cmd_show.run(ARGC("show", "-c", "one"), ARGV("show", "-c", "one")),
			 CLI_USAGE);
	assert_int_equal(cli_cmd_show.run(ARGC("show", "-c"), ARGV("show", "-c")), CLI_USAGE);
	/* snapshot: -s with -f, two -c or -B, a bad CPU, an operand */
	assert_int_equal(cli_cmd_snapshot.run(ARGC("snapshot", "-s", "-f"),
					      ARGV("snapshot", "-s", "-f")),
			 CLI_USAGE);
	assert_int_equal(cli_cmd_snapshot.run(ARGC("snapshot", "-c", "0", "-c", "1"),
					      ARGV("snapshot", "-c", "0", "-c", "1")),
			 CLI_USAGE);
	assert_int_equal(cli_cmd_snapshot.run(ARGC("snapshot", "-B", "a", "-B", "b"),
					      ARGV("snapshot", "-B", "a", "-B", "b")),
			 CLI_USAGE);
	assert_int_equal(cli_cmd_snapshot.run(ARGC("snapshot", "-c", "x"),
					      ARGV("snapshot", "-c", "x")),
			 CLI_USAGE);
	assert_int_equal(cli_cmd_snapshot.run(ARGC("snapshot", "now"), ARGV("snapshot", "now")),
			 CLI_USAGE);
	assert_int_equal(cli_cmd_snapshot.run(ARGC("snapshot", "-z"), ARGV("snapshot", "-z")),
			 CLI_USAGE);
	/* report takes one FILE operand, as trace-cmd report does (not two); bad values */
	for (i = 0; i < sizeof(report_misuse) / sizeof(report_misuse[0]); i++) {
		int n = 0;

		while (report_misuse[i][n])
			n++;
		assert_int_equal(cli_cmd_report.run(n, (char **)report_misuse[i]), CLI_USAGE);
	}
	assert_int_equal(cli_cmd_mount.run(ARGC("mount", "a", "b"), ARGV("mount", "a", "b")),
			 CLI_USAGE);
	assert_int_equal(cli_cmd_umount.run(ARGC("umount", "a", "b"), ARGV("umount", "a", "b")),
			 CLI_USAGE);
	assert_int_equal(cli_cmd_cflags.run(ARGC("cflags", "--x"), ARGV("cflags", "--x")),
			 CLI_USAGE);
	/* Well formed, but nothing is mounted. */
	assert_int_equal(cli_cmd_start.run(ARGC("start"), ARGV("start")), CLI_FAIL);
	assert_int_equal(cli_cmd_show.run(ARGC("show"), ARGV("show")), CLI_FAIL);
	assert_int_equal(cli_cmd_list.run(ARGC("list", "-t"), ARGV("list", "-t")), CLI_FAIL);
	assert_int_equal(cli_cmd_stat.run(ARGC("stat"), ARGV("stat")), CLI_FAIL);
	assert_int_equal(cli_cmd_snapshot.run(ARGC("snapshot", "-r", "-s"),
					      ARGV("snapshot", "-r", "-s")),
			 CLI_FAIL);
	assert_int_equal(cli_cmd_umount.run(ARGC("umount"), ARGV("umount")), CLI_FAIL);
	/* A missing recording names the file. */
	assert_int_equal(cli_cmd_report.run(ARGC("report", "-i", "/nonexistent/rec"),
					    ARGV("report", "-i", "/nonexistent/rec")),
			 CLI_FAIL);
	assert_int_equal(cli_cmd_report.run(ARGC("report", "/nonexistent/rec"),
					    ARGV("report", "/nonexistent/rec")),
			 CLI_FAIL);
	/* Help is not an error. */
	assert_int_equal(cli_cmd_stat.run(ARGC("stat", "-h"), ARGV("stat", "-h")), CLI_OK);
	assert_int_equal(cli_cmd_list.run(ARGC("list", "--help"), ARGV("list", "--help")), CLI_OK);
	clear_env();
	rmdir(tmpl);
}

static void test_files(void **state)
{
	char tmpl[] = "/tmp/test_cli.XXXXXX", path[PATH_MAX], *val;
	size_t len;
	FILE *f;

	assert_non_null(mkdtemp(tmpl));
	snprintf(path, sizeof(path), "%s/tracing_on", tmpl);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	/* As echo: the value and a newline. */
	assert_int_equal(cli_write_file(tmpl, "tracing_on", "1"), 0);
	assert_int_equal(cli_read_file(path, &val, &len), 0);
	assert_int_equal(len, 2);
	assert_string_equal(val, "1\n");
	free(val);
	assert_int_equal(cli_read_value(tmpl, "tracing_on", &val), 0);
	assert_string_equal(val, "1");
	free(val);
	assert_int_equal(cli_write_file(tmpl, "missing", "1"), -ENOENT);
	assert_int_equal(cli_set(tmpl, "missing", "1"), CLI_FAIL);
	assert_int_equal(cli_read_value(tmpl, "missing", &val), -ENOENT);

	/* Clearing the trace truncates it. */
	snprintf(path, sizeof(path), "%s/trace", tmpl);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# tracer: nop\n", f);
	fclose(f);
	assert_int_equal(cli_clear_trace(tmpl), 0);
	assert_int_equal(cli_read_file(path, &val, &len), 0);
	assert_int_equal(len, 0);
	free(val);
	unlink(path);
	snprintf(path, sizeof(path), "%s/tracing_on", tmpl);
	unlink(path);
	assert_int_equal(cli_clear_trace(tmpl), CLI_FAIL);
	rmdir(tmpl);
}

static void test_self_paths(void **state)
{
	char self[PATH_MAX], exe[PATH_MAX], sib[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(cli_self_dir(self, sizeof(self)), 0);
	assert_int_equal(strncmp(exe, self, strlen(self)), 0);
	assert_int_equal(exe[strlen(self)], '/');
	assert_null(strchr(exe + strlen(self) + 1, '/'));
	/* Resolved when it exists ("." is the directory itself). */
	assert_int_equal(cli_sibling(sib, sizeof(sib), "."), 0);
	assert_string_equal(sib, self);
	assert_int_equal(cli_sibling(sib, sizeof(sib), "no-such-file"), 0);
	assert_int_equal(strncmp(sib, self, strlen(self)), 0);
	assert_string_equal(sib + strlen(self), "/no-such-file");
}

static void test_stats_and_options(void **state)
{
	static const char stats[] = "entries: 12\n"
				    "overrun: 3\n"
				    "commit overrun: 7\n"
				    "bytes: 4096\n"
				    "oldest event ts:   716.394774\n"
				    "now ts:   727.178524\n"
				    "dropped events: 5\n"
				    "read events: 9\n";
	unsigned long long v = 0;

	assert_int_equal(cli_stats_value(stats, "entries", &v), 0);
	assert_int_equal(v, 12);
	/* "overrun" is its own line, not the end of "commit overrun". */
	assert_int_equal(cli_stats_value(stats, "overrun", &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(cli_stats_value(stats, "commit overrun", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(cli_stats_value(stats, "dropped events", &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(cli_stats_value(stats, "read events", &v), 0);
	assert_int_equal(v, 9);
	assert_int_equal(cli_stats_value(stats, "read", &v), -ENOENT);
	assert_int_equal(cli_stats_value("", "entries", &v), -ENOENT);

	assert_int_equal(cli_option_default("print-parent", false), 1);
	assert_int_equal(cli_option_default("overwrite", false), 1);
	assert_int_equal(cli_option_default("sym-offset", false), 0);
	assert_int_equal(cli_option_default("func_stack_trace", false), 0);
	assert_int_equal(cli_option_default("no-such-option", false), -1);
	assert_int_equal(cli_option_default("trace_printk_dest", false), 1);
	assert_int_equal(cli_option_default("trace_printk_dest", true), 0);
	assert_int_equal(cli_option_default("copy_trace_marker", true), 0);
	assert_int_equal(cli_option_default("overwrite", true), 1);
}

/*
 * ut_path_trusted: a path and every directory above it owned by the user or root
 * and writable by nobody else (a sticky directory may be), no symbolic link last.
 */
static void test_path_trusted(void **state)
{
	char dir[] = "/tmp/utrace-trust.XXXXXX", p[PATH_MAX], real[PATH_MAX], why[PATH_MAX + 64];
	uid_t me = geteuid();

	assert_int_equal(ut_path_trusted("/", me, real, sizeof(real), why, sizeof(why)), 0);
	assert_string_equal(real, "/");
	/* right under / (the last component is kept whole) */
	assert_int_equal(ut_path_trusted("/tmp/", me, real, sizeof(real), why, sizeof(why)), 0);
	assert_string_equal(real, "/tmp");
	assert_int_equal(ut_path_trusted("tmp", me, real, sizeof(real), NULL, 0), -EINVAL);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(ut_path_trusted(dir, me, real, sizeof(real), why, sizeof(why)), 0);
	assert_string_equal(real, dir);
	snprintf(p, sizeof(p), "%s/none", dir);
	assert_int_equal(ut_path_trusted(p, me, real, sizeof(real), why, sizeof(why)), -ENOENT);
	snprintf(p, sizeof(p), "%s/none/deeper", dir);
	assert_int_equal(ut_path_trusted(p, me, real, sizeof(real), why, sizeof(why)), -ENOENT);

	/* a link last: refused, whatever it points to */
	snprintf(p, sizeof(p), "%s/link", dir);
	assert_int_equal(symlink("/tmp", p), 0);
	assert_int_equal(ut_path_trusted(p, me, real, sizeof(real), why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "is a symbolic link"));
	unlink(p);

	/* writable by the group, then by others: refused, for what is below too */
	snprintf(p, sizeof(p), "%s/sock", dir);
	assert_int_equal(chmod(dir, 0770), 0);
	assert_int_equal(ut_path_trusted(dir, me, real, sizeof(real), why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "is writable by its group"));
	assert_int_equal(ut_path_trusted(p, me, real, sizeof(real), why, sizeof(why)), -EPERM);
	assert_int_equal(chmod(dir, 0707), 0);
	assert_int_equal(ut_path_trusted(p, me, real, sizeof(real), why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "is writable by others"));
	/* sticky: only what is not ours below it matters */
	assert_int_equal(chmod(dir, 01777), 0);
	assert_int_equal(ut_path_trusted(dir, me, real, sizeof(real), why, sizeof(why)), 0);
	assert_int_equal(chmod(dir, 0700), 0);

	/* another user's */
	if (me == 0) {
		assert_int_equal(chown(dir, 65534, 65534), 0);
		assert_int_equal(ut_path_trusted(p, 0, real, sizeof(real), why, sizeof(why)), -EPERM);
		snprintf(p, sizeof(p), "%s is owned by uid 65534", dir);
		assert_string_equal(why, p);
		/* but it is its owner's, and root's things are everyone's */
		assert_int_equal(ut_path_trusted(dir, 65534, real, sizeof(real), NULL, 0), 0);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracing_dir_rules),
		cmocka_unit_test(test_tracing_dir_relative),
		cmocka_unit_test(test_path_trusted),
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test(test_mount_state_without_mount),
		cmocka_unit_test(test_preload),
		cmocka_unit_test(test_record_parse),
		cmocka_unit_test(test_record_parse_buffer),
		cmocka_unit_test(test_record_parse_net),
		cmocka_unit_test(test_record_parse_events),
		cmocka_unit_test(test_record_parse_instance),
		cmocka_unit_test(test_cpu_files),
		cmocka_unit_test(test_find_program),
		cmocka_unit_test(test_output_file),
		cmocka_unit_test(test_record_parse_graph),
		cmocka_unit_test(test_latency_tracers),
		cmocka_unit_test(test_latency_write),
		cmocka_unit_test(test_record_parse_filters),
		cmocka_unit_test(test_misuse_exit_status),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_self_paths),
		cmocka_unit_test(test_stats_and_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

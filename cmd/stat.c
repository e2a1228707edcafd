// SPDX-License-Identifier: MIT
/*
 * stat.c - `utrace stat`: the state of the mounted utracefs at a glance, in the
 * manner of `trace-cmd stat`: tracer, tracing on/off, buffer sizes, clock, the
 * options that differ from their defaults, and the counters of each CPU's buffer,
 * for the top level and each instance.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

int cli_stats_value(const char *stats, const char *key, unsigned long long *val)
{
	size_t klen = strlen(key);
	const char *line;

	for (line = stats; *line; line++) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			*val = strtoull(line + klen + 1, NULL, 10);
			return 0;
		}
		line = strchr(line, '\n');
		if (!line)
			break;
	}
	return -ENOENT;
}

/* Print "TITLE: VALUE" from a file; a missing file is shown as such, not fatal. */
static int show_value(const char *dir, const char *file, const char *title)
{
	char *val;
	int err = cli_read_value(dir, file, &val);

	if (err) {
		printf("%s: (%s: %s)\n", title, file, strerror(-err));
		return CLI_FAIL;
	}
	printf("%s: %s\n", title, val);
	free(val);
	return 0;
}

static int show_clock(const char *dir)
{
	char *val, *open, *close;
	int err = cli_read_value(dir, "trace_clock", &val);

	if (err) {
		printf("Clock: (trace_clock: %s)\n", strerror(-err));
		return CLI_FAIL;
	}
	/* "[local] global counter ...": the selected one is in brackets. */
	open = strchr(val, '[');
	close = open ? strchr(open, ']') : NULL;
	if (close) {
		*close = '\0';
		printf("Clock: %s\n", open + 1);
	} else {
		printf("Clock: %s\n", val);
	}
	free(val);
	return 0;
}

/* trace_options lines that are not at the kernel's default. */
static int show_options(const char *dir, bool inst)
{
	char *val, *tok, *save;
	int err = cli_read_value(dir, "trace_options", &val), changed = 0, def;

	if (err) {
		printf("Options: (trace_options: %s)\n", strerror(-err));
		return CLI_FAIL;
	}
	printf("Options not at their defaults:\n");
	for (tok = strtok_r(val, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		bool set = strncmp(tok, "no", 2) != 0;

		def = cli_option_default(set ? tok : tok + 2, inst);
		if (def < 0 && !set) { /* an option whose name starts with "no" */
			def = cli_option_default(tok, inst);
			set = true;
		}
		if (def >= 0 && def != set) {
			printf("   %s\n", tok);
			changed++;
		}
	}
	if (!changed)
		printf("   (none)\n");
	free(val);
	return 0;
}

static int cmp_cpu(const struct dirent **a, const struct dirent **b)
{
	return atoi((*a)->d_name + 3) - atoi((*b)->d_name + 3);
}

static int is_cpu(const struct dirent *d)
{
	return !strncmp(d->d_name, "cpu", 3) && d->d_name[3] >= '0' && d->d_name[3] <= '9';
}

/* Call fn(stats text, CPU number, arg) for each per_cpu/cpuN/stats, in CPU order
 * (stats NULL when unreadable).  0, or -errno when per_cpu cannot be listed. */
static int for_each_cpu_stats(const char *dir, void (*fn)(const char *, const char *, void *),
			      void *arg)
{
	char percpu[PATH_MAX], path[PATH_MAX], *stats;
	struct dirent **cpus;
	int n, i;

	cli_path(percpu, sizeof(percpu), dir, "per_cpu");
	n = scandir(percpu, &cpus, is_cpu, cmp_cpu);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%s/stats", percpu, cpus[i]->d_name) >=
			(int)sizeof(path) ||
		    cli_read_file(path, &stats, NULL))
			stats = NULL;
		fn(stats, cpus[i]->d_name + 3, arg);
		free(stats);
		free(cpus[i]);
	}
	free(cpus);
	return 0;
}

static void show_cpu(const char *stats, const char *cpu, void *arg)
{
	static const char *const keys[] = {"entries", "overrun", "commit overrun",
					   "dropped events", "read events", "bytes"};
	unsigned long long v;
	size_t i;

	if (!stats) {
		printf("  %4s  (per_cpu/cpu%s/stats unreadable)\n", cpu, cpu);
		return;
	}
	printf("  %4s", cpu);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (cli_stats_value(stats, keys[i], &v))
			printf(" %15s", "-");
		else
			printf(" %15llu", v);
	}
	printf("\n");
}

static int show_cpus(const char *dir)
{
	int err;

	printf("Per-CPU buffers (per_cpu/cpuN/stats):\n");
	printf("  %4s %15s %15s %15s %15s %15s %15s\n", "CPU", "entries", "overrun",
	       "commit overrun", "dropped", "read", "bytes");
	err = for_each_cpu_stats(dir, show_cpu, NULL);
	if (err)
		printf("  (%s/per_cpu: %s)\n", dir, strerror(-err));
	return err ? CLI_FAIL : 0;
}

static void lost_cpu(const char *stats, const char *cpu, void *arg)
{
	unsigned long long overrun = 0, dropped = 0, *total = arg;

	if (!stats)
		return;
	cli_stats_value(stats, "overrun", &overrun);
	cli_stats_value(stats, "dropped events", &dropped);
	if (!overrun && !dropped)
		return;
	cli_error("CPU %s: %llu events lost (overrun %llu, dropped %llu)", cpu, overrun + dropped,
		  overrun, dropped);
	*total += overrun + dropped;
}

static void written_cpu(const char *stats, const char *cpu, void *arg)
{
	unsigned long long entries = 0, overrun = 0, *total = arg;

	if (!stats)
		return;
	cli_stats_value(stats, "entries", &entries);
	cli_stats_value(stats, "overrun", &overrun);
	*total += entries + overrun;
}

unsigned long long cli_events_written(const char *dir)
{
	unsigned long long total = 0;

	for_each_cpu_stats(dir, written_cpu, &total);
	return total;
}

unsigned long long cli_report_lost(const char *dir)
{
	unsigned long long total = 0;

	for_each_cpu_stats(dir, lost_cpu, &total);
	return total;
}

/* One session's state: the top level's or an instance's (dir). */
static int show_session(const char *dir, bool inst)
{
	int rc = show_value(dir, "current_tracer", "Tracer");

	rc |= show_value(dir, "tracing_on", "Tracing on");
	rc |= show_clock(dir);
	printf("\n");
	rc |= show_value(dir, "buffer_size_kb", "Buffer size (kb per CPU)");
	rc |= show_value(dir, "buffer_total_size_kb", "Buffer total size (kb)");
	printf("\n");
	rc |= show_options(dir, inst);
	printf("\n");
	rc |= show_cpus(dir);
	return rc;
}

static int show_instance(const char *dir, const char *name, void *arg)
{
	printf("\nInstance: %s\n", name);
	return show_session(dir, true);
}

static int run(int argc, char **argv)
{
	char mnt[PATH_MAX], dir[PATH_MAX];
	const char *inst = NULL;
	bool first = true;
	int c, rc;

	while ((c = cli_getopt(argc, argv, "+B:", &first)) != -1) {
		switch (c) {
		case 'h':
			return cli_print_usage(&cli_cmd_stat);
		case 'B':
			inst = optarg;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	if (cli_mounted_dir(mnt, sizeof(mnt)))
		return CLI_FAIL;
	if (inst) {
		if ((rc = cli_instance_dir(dir, sizeof(dir), mnt, inst)))
			return rc;
		printf("Mount: %s\nInstance: %s\n", mnt, inst);
		return show_session(dir, true) ? CLI_FAIL : CLI_OK;
	}
	printf("Mount: %s\n", mnt);
	rc = show_session(mnt, false);
	rc |= cli_for_each_instance(mnt, show_instance, NULL);
	return rc ? CLI_FAIL : CLI_OK;
}

const struct cli_command cli_cmd_stat = {
	.name = "stat",
	.summary = "show the tracing state: tracer, buffers, clock, options, counters",
	.run = run,
	.usage = "usage: utrace stat [-B NAME]\n"
		 "\n"
		 "Show the state of the mounted utracefs: the current tracer, whether\n"
		 "tracing is on, the clock, buffer sizes, the options that are not at their\n"
		 "defaults, and for each CPU the counters of per_cpu/cpuN/stats (entries in\n"
		 "the buffer, overrun, commit overrun, dropped events, read events, bytes);\n"
		 "the same for every instance (instances/NAME), after the top level.\n"
		 "  -B NAME  instance NAME only\n",
};

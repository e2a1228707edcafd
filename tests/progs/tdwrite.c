// SPDX-License-Identifier: MIT
/*
 * tdwrite - td_write() (common/tracedat.c) over files of raw pages, for the integration
 * test 98_tracedat.sh: a trace.dat made from per_cpu/cpuN/trace_pipe_raw as read with
 * cat, checked there with trace-cmd itself.
 *
 *   tdwrite [-V 6|7] [-k KALLSYMS] [-c CLOCK] [-s] [-P] -d TRACING_DIR -o OUT CPU0 [CPU1...]
 *
 * A CPU file "-" means no data for that CPU.  -s adds each per_cpu/cpuN/stats of
 * TRACING_DIR as a CPUSTAT option, -P frees the CPU files' space as they are copied.
 * -L TEXT writes a latency file instead, whose data is the text of the file TEXT (the
 * CPU files only count the CPUs then: give "-" for each).
 * Prints "written N dropped N" (pages); exits 1 with the error on failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "tracedat.h"

#define MAX_CPUS 256

/* The whole of path into *text (malloc'ed), its length in *len; 0 or -1. */
static int read_all(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 65536, n;

	*text = malloc(cap);
	*len = 0;
	if (!f || !*text)
		return -1;
	while ((n = fread(*text + *len, 1, cap - *len, f)) > 0) {
		*len += n;
		if (*len == cap && !(*text = realloc(*text, cap *= 2)))
			return -1;
	}
	fclose(f);
	return 0;
}

/* per_cpu/cpuN/stats of the tracing dir, or NULL */
static char *read_stats(const char *dir, unsigned int cpu)
{
	char path[4096], *text = calloc(1, 65536);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/stats", dir, cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0 || !text) {
		free(text);
		return NULL;
	}
	n = read(fd, text, 65535);
	close(fd);
	if (n < 0) {
		free(text);
		return NULL;
	}
	return text;
}

int main(int argc, char **argv)
{
	struct td_opts o = {.version = 7, .page_size = 4096, .version_str = "utrace tdwrite"};
	struct td_cpu cpu[MAX_CPUS];
	const char *stats[MAX_CPUS] = {0};
	const char *out = NULL;
	struct td_result res;
	struct utsname u;
	char uts[1024], *latency = NULL;
	bool with_stats = false;
	int c, fd, ret;

	while ((c = getopt(argc, argv, "V:k:c:d:o:sPL:")) != -1) {
		switch (c) {
		case 'L':
			if (read_all(optarg, &latency, &o.latency_len)) {
				perror(optarg);
				return 1;
			}
			o.latency = latency;
			break;
		case 'V':
			o.version = atoi(optarg);
			break;
		case 'k':
			o.kallsyms = optarg;
			break;
		case 'c':
			o.clock = optarg;
			break;
		case 'd':
			o.tracing_dir = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 's':
			with_stats = true;
			break;
		case 'P':
			o.punch = true;
			break;
		default:
			return 2;
		}
	}
	if (!out || !o.tracing_dir || optind >= argc || argc - optind > MAX_CPUS) {
		fprintf(stderr, "usage: tdwrite [-V 6|7] [-k KALLSYMS] [-c CLOCK] [-s] [-P] "
				"[-L TEXT] -d DIR -o OUT CPU0 [CPU1...]\n");
		return 2;
	}
	o.cpus = (unsigned int)(argc - optind);
	for (unsigned int i = 0; i < o.cpus; i++) {
		const char *f = argv[optind + (int)i];

		cpu[i].fd = strcmp(f, "-") ? open(f, o.punch ? O_RDWR : O_RDONLY) : -1;
		if (strcmp(f, "-") && cpu[i].fd < 0) {
			perror(f);
			return 1;
		}
		if (with_stats)
			stats[i] = read_stats(o.tracing_dir, i);
	}
	o.cpu = cpu;
	o.cpu_stats = with_stats ? stats : NULL;
	if (uname(&u) == 0) {
		snprintf(uts, sizeof(uts), "%s %s %s %s", u.sysname, u.nodename, u.release,
			 u.machine);
		o.uname = uts;
	}
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(out);
		return 1;
	}
	ret = td_write(fd, &o, &res);
	close(fd);
	for (unsigned int i = 0; i < o.cpus; i++) {
		free((char *)stats[i]);
		if (cpu[i].fd >= 0)
			close(cpu[i].fd);
	}
	free(latency);
	printf("written %llu dropped %llu\n", res.pages_written, res.pages_dropped);
	if (ret) {
		fprintf(stderr, "tdwrite: %s\n", strerror(-ret));
		return 1;
	}
	return 0;
}

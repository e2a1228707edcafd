// SPDX-License-Identifier: MIT
/*
 * events_prog.c - trace events in an executable, a linked library and a dlopen()ed
 * one (tests/integration/84_events.sh).
 *
 *   events_prog bytes     print the first byte of each of the executable's event
 *                         sites ("sites 0f 0f": NOPs), call every event 1000
 *                         times, print the bytes again
 *   events_prog load      dlopen() the library (every object's events are
 *                         announced) and print "loaded"; nothing is called
 *   events_prog fire      wait (at most 20 s) until every event, the dlopen()ed
 *                         library's too, is enabled, print the sites' bytes, then
 *                         call each event once with known values; dlclose() the
 *                         library, dlopen() it again, wait until its event is
 *                         enabled and call it once more; print "fn ADDRESS" (the
 *                         pointer the ints event carries) and "pid PID"
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "events_defs.h"

int lib_a_enabled(void);
void lib_a_fire(int v);

extern const struct utrace_jump_entry __start_utrace_jump[] __attribute__((weak));
extern const struct utrace_jump_entry __stop_utrace_jump[] __attribute__((weak));

static void print_sites(const char *when)
{
	printf("%s", when);
	for (const struct utrace_jump_entry *e = __start_utrace_jump; e < __stop_utrace_jump; e++)
		printf(" %02x", *((const unsigned char *)&e->site + e->site));
	printf("\n");
	fflush(stdout);
}

static void fire_all(int i)
{
	static const int vals[3] = {7, -8, 9};

	trace_ints(-5, 250, -300, 65000, -70000, 4000000000u, -5000000000ll,
		   18000000000000000000ull, (const void *)print_sites);
	trace_strs(i ? "second" : "first", vals, 3);
	lib_a_fire(42 + i);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	char path[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	int (*dl_enabled)(void);
	void (*dl_fire)(unsigned long);
	void *h;

	if (argc < 2 || n <= 0)
		return 2;
	path[n] = 0;
	slash = strrchr(path, '/');
	strcpy(slash + 1, "lib_events_dl.so");
	if (!strcmp(argv[1], "bytes")) {
		print_sites("before");
		for (int i = 0; i < 1000; i++)
			fire_all(i);
		print_sites("after");
		return 0;
	}
	h = dlopen(path, RTLD_NOW);
	dl_enabled = h ? (int (*)(void))dlsym(h, "lib_dl_enabled") : NULL;
	dl_fire = h ? (void (*)(unsigned long))dlsym(h, "lib_dl_fire") : NULL;
	if (!dl_enabled || !dl_fire) {
		printf("no %s\n", path);
		return 1;
	}
	if (!strcmp(argv[1], "load")) { /* every object's events announced, nothing fired */
		printf("loaded\n");
		return 0;
	}
	for (int i = 0; i < 20000; i++) {
		if (trace_ints_enabled() && trace_strs_enabled() && lib_a_enabled() && dl_enabled())
			break;
		sleep_ms(1);
	}
	printf("enabled %d %d %d %d\n", trace_ints_enabled(), trace_strs_enabled(), lib_a_enabled(),
	       dl_enabled());
	print_sites("sites");
	fire_all(0);
	dl_fire(77);
	/* unloaded and loaded again: its events are forgotten, then found anew */
	dlclose(h);
	h = dlopen(path, RTLD_NOW);
	dl_enabled = h ? (int (*)(void))dlsym(h, "lib_dl_enabled") : NULL;
	dl_fire = h ? (void (*)(unsigned long))dlsym(h, "lib_dl_fire") : NULL;
	for (int i = 0; dl_enabled && i < 20000 && !dl_enabled(); i++)
		sleep_ms(1);
	if (dl_fire)
		dl_fire(78);
	printf("fn %016lx\n", (unsigned long)print_sites);
	printf("pid %d\n", (int)getpid());
	return 0;
}

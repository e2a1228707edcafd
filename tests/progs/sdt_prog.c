// SPDX-License-Identifier: MIT
/*
 * sdt_prog.c - <sys/sdt.h> probes in an executable, a linked library (with a
 * semaphore) and a dlopen()ed one, for tests/integration/95_sdt.sh.
 *
 *   sdt_prog bytes   print the byte at each of the executable's probe sites
 *                    ("before zero=90 ...": the nops), fire every probe 1000 times,
 *                    print them again, and the library's semaphore
 *   sdt_prog load    dlopen() the library (every object's probes are announced)
 *   sdt_prog fire [PROVIDER:NAME...]
 *                    dlopen() the library, wait (at most 20 s per site) until every
 *                    site (or those named) is armed, print the bytes, fire each
 *                    probe once with known values (the library's ut_sdt:imm too,
 *                    with 77 and 1); dlclose() the library, dlopen()
 *                    it again, wait until its probe is armed (unless sites were
 *                    named) and fire it once more; print "sem N", "global ADDR",
 *                    "pid PID"
 *   sdt_prog -l      print "pid PID", then read commands, each answer ending with
 *                    "done": "sem" prints "sem N computed M" (the library's
 *                    semaphore and how often it computed its argument), "fire"
 *                    fires the library's probe and prints "fired"
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "sdt_note.h"
#include "sdt_sites.h"

void lib_sdt_fire(int v);
int lib_sdt_semaphore(void);
int lib_sdt_computed(void);

uint64_t sdt_global = 0x1122334455667788ull;
long sdt_counter = -123456789;
static const uint64_t arr[4] = {11, 22, 33, 44};

static __attribute__((noipa)) void fire_six(int8_t a, uint8_t b, int16_t c, uint16_t d, int32_t e,
					    uint64_t f)
{
	STAP_PROBE6(ut_sdt, six, a, b, c, d, e, f);
}

static __attribute__((noipa)) void fire_mem(long v)
{
	volatile long local = v;

	STAP_PROBE2(ut_sdt, mem, local, sdt_counter);
}

/*
 * Operands a compiler seldom chooses, written by hand in the note's own layout:
 * base and index registers, a displacement with them, sub-registers (%cx, %ah,
 * %r8d), a global by %rip, an immediate, and memory that faults (address 16).  The
 * note's addresses are 0x1000 off, as a prelinked object's are after prelink moved
 * it: only their difference to .stapsdt.base places the site.
 */
static __attribute__((noipa)) void fire_forms(const uint64_t *a, uint64_t idx)
{
	register long r8 __asm__("r8") = -9;

	__asm__ volatile("990: nop\n" SDT_NOTE("ut_sdt", "forms",
						"8@(%%rsi,%%rdi,8) 8@-8(%%rsi,%%rdi,8) -2@%%cx 1@%%ah "
						"-4@%%r8d 8@sdt_global(%%rip) -8@$-42 8@(%%rdx)",
						" + 0x1000", "0")
			 :
			 : "S"(a), "D"(idx), "c"(0xfff6L), "a"(0x7f00L), "r"(r8), "d"(16L)
			 : "memory");
}

static void fire_all(int i)
{
	DTRACE_PROBE(ut_sdt, zero);
	fire_six(-5, 250, -300, 65000, -70000, 18000000000000000000ull);
	fire_mem(-77 - i);
	STAP_PROBE2(ut_sdt, imm, 5, -1);
	fire_forms(arr, 2);
	lib_sdt_fire(7);
}

static void commands(void)
{
	char line[64];

	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "sem", 3)) {
			printf("sem %d computed %d\n", lib_sdt_semaphore(), lib_sdt_computed());
		} else if (!strncmp(line, "fire", 4)) {
			lib_sdt_fire(1);
			printf("fired\n");
		}
		printf("done\n");
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	static const char *const wanted[][2] = {
	    {"ut_sdt", "zero"},	 {"ut_sdt", "six"},	    {"ut_sdt", "mem"},	 {"ut_sdt", "imm"},
	    {"ut_sdt", "forms"}, {"ut_sdt_lib", "counted"}, {"ut_sdt_dl", "hit"}};
	char path[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	void (*dl_fire)(unsigned long);
	void (*dl_imm)(long);
	void *h;

	if (argc < 2 || n <= 0)
		return 2;
	if (!strcmp(argv[1], "-l")) {
		commands();
		return 0;
	}
	path[n] = 0;
	slash = strrchr(path, '/');
	strcpy(slash + 1, "lib_sdt_dl.so");
	if (!strcmp(argv[1], "bytes")) {
		sdt_find();
		sdt_print("before", "ut_sdt");
		for (int i = 0; i < 1000; i++)
			fire_all(i);
		sdt_print("after", "ut_sdt");
		printf("sem %d computed %d\n", lib_sdt_semaphore(), lib_sdt_computed());
		return 0;
	}
	h = dlopen(path, RTLD_NOW);
	dl_fire = h ? (void (*)(unsigned long))dlsym(h, "lib_sdt_dl_fire") : NULL;
	dl_imm = h ? (void (*)(long))dlsym(h, "lib_sdt_dl_imm") : NULL;
	if (!dl_fire || !dl_imm) {
		printf("no %s\n", path);
		return 1;
	}
	if (!strcmp(argv[1], "load")) {
		printf("loaded\n");
		return 0;
	}
	sdt_find();
	for (unsigned int i = 0; argc == 2 && i < sizeof(wanted) / sizeof(wanted[0]); i++)
		if (!sdt_wait_armed(wanted[i][0], wanted[i][1]))
			printf("not armed %s:%s\n", wanted[i][0], wanted[i][1]);
	for (int i = 2; i < argc; i++) {
		char *colon = strchr(argv[i], ':');

		if (colon)
			*colon = 0;
		if (!colon || !sdt_wait_armed(argv[i], colon + 1))
			printf("not armed %s\n", argv[i]);
	}
	sdt_print("sites", "ut_sdt");
	printf("sem %d\n", lib_sdt_semaphore());
	fire_all(0);
	dl_fire(77);
	dl_imm(77);
	/* unloaded and loaded again: its probe is forgotten, then found and armed anew */
	dlclose(h);
	h = dlopen(path, RTLD_NOW);
	dl_fire = h ? (void (*)(unsigned long))dlsym(h, "lib_sdt_dl_fire") : NULL;
	sdt_find();
	if (dl_fire && (argc > 2 || sdt_wait_armed("ut_sdt_dl", "hit")))
		dl_fire(78);
	printf("global %lx\n", (unsigned long)&sdt_global);
	printf("pid %d\n", (int)getpid());
	return 0;
}

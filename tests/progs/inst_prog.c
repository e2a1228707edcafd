// SPDX-License-Identifier: MIT
/*
 * inst_prog.c - a traced program whose function events go to several instances
 * at once, for tests/integration/49_inst_route.sh and 45_inst_graph.sh.
 *
 *   inst_prog -l   prints "pid PID worker TID", then takes commands on stdin, one
 *                  line each, answered by "done":
 *                    run    ip_foo_one, ip_foo_two, ip_bar_one, ip_baz once here
 *                           and once in the worker thread
 *                    tree   ig_top (a small call tree, below) here and in the worker
 *                    hold   a thread enters ig_hold and stays inside it until
 *                           `release` (which waits until it has returned)
 *                    spin   a thread calls ip_foo_one without pause until `stop`;
 *                           prints "spins N" (N calls so far) at every command
 *                    stop   ends it
 *                    NAME   "NAME XX": the first byte of NAME's patch site
 *                    entry NAME  "NAME KIND": the entry of its object's stub page
 *                           NAME's site calls (runtime/rt.h): tracer, probe, inst
 *                           (one instance), multi (a set of spans); or, for a
 *                           site that jumps (function_graph, runtime/stubs.c),
 *                           graph (its own stub) or igraph (its entry of one
 *                           graph instance); or none
 *                    land   "land KIND": where ig_land's return address points
 *                           while it runs: stub, the landing of its own site stub
 *                           (a frame made through that stub), other (hijacked
 *                           elsewhere: ut_return_to_handler, C's landing), or none
 *                           (not hijacked)
 *                    stack  "stack SIZE": how much stack ig_land's tracing took
 *                           below its caller's frame (the trampolines that make
 *                           and pop its frame): small (under 512 bytes: assembly
 *                           only) or large (C ran there: it saves the vector
 *                           state and has frames of its own)
 *                  exits at EOF.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "site_byte.h"

int main(int argc, char **argv);

#define NI __attribute__((noinline, noclone))

static volatile unsigned long sink;

NI void ip_foo_one(void)
{
	sink++;
}
NI void ip_foo_two(void)
{
	sink += 2;
}
NI void ip_bar_one(void)
{
	sink += 3;
}
NI void ip_baz(void)
{
	sink += 4;
}

/*
 * The tree of `tree`, for each thread:
 *   ig_top { ig_outer { ig_inner { ig_leaf ig_leaf } ig_leaf ip_foo_one } ip_baz }
 */
NI void ig_leaf(void)
{
	sink += 5;
}
NI void ig_inner(void)
{
	ig_leaf();
	ig_leaf();
}
NI void ig_outer(void)
{
	ig_inner();
	ig_leaf();
	ip_foo_one();
}
NI void ig_top(void)
{
	ig_outer();
	ip_baz();
}

static volatile int holding, held;
static void *volatile land_ret; /* ig_land's return address as it found it */

NI void ig_land(void)
{
	land_ret = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory"); /* no tail call: the slot is read here */
}

#define STACK_AREA 16384

/*
 * Paint (check 0) the stack below the caller's frame, or tell (check 1) how many
 * bytes of it were written since: the frames of the same function lie at the same
 * place, and what a call made from the caller wrote in between (its trampolines)
 * is below that caller's frame.  Not an ig_ function: the tests leave it untraced.
 */
NI static size_t stack_below(int check)
{
	volatile unsigned char area[STACK_AREA];
	size_t used = 0;

	for (size_t i = 0; i < STACK_AREA; i++) {
		if (!check)
			area[i] = 0xa5;
		else if (!used && area[i] != 0xa5)
			used = STACK_AREA - i; /* area[0] is the deepest byte */
	}
	return used;
}

/* Called once before the hold and once after: a frame that lives while tests change things. */
NI void ig_hold(void)
{
	ig_leaf();
	held = 1;
	while (holding)
		usleep(1000);
	ig_leaf();
}

static void calls(void)
{
	ip_foo_one();
	ip_foo_two();
	ip_bar_one();
	ip_baz();
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int todo, did, tree;
static volatile pid_t worker_tid;
static volatile int spinning;
static volatile unsigned long spins;

static void *worker(void *arg)
{
	(void)arg;
	worker_tid = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(&lock);
	for (;;) {
		while (todo == did)
			pthread_cond_wait(&cond, &lock);
		if (tree)
			ig_top();
		else
			calls();
		did++;
		pthread_cond_broadcast(&cond);
	}
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	while (spinning) {
		ip_foo_one();
		spins++;
	}
	return NULL;
}

static void *holder(void *arg)
{
	(void)arg;
	ig_hold();
	return NULL;
}

static void run_both(int with_tree)
{
	if (with_tree)
		ig_top();
	else
		calls();
	pthread_mutex_lock(&lock);
	tree = with_tree;
	todo++;
	pthread_cond_broadcast(&cond);
	while (did != todo)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

/* The target of the rel32 jmp or call at p. */
static const unsigned char *rel_target(const unsigned char *p)
{
	int32_t rel;

	memcpy(&rel, p + 1, 4);
	return p + 5 + rel;
}

/* The site of NAME, after an endbr64 if there is one, or NULL. */
static const unsigned char *site_of(const char *name)
{
	const unsigned char *p = lookup(name);

	if (p && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;
	return p;
}

/*
 * The landing of a site that jumps to its graph stub (runtime/stubs.c): the stub
 * `A: call *; B: call D; C: ...` lands at C = A + 11; a site's instance entry `E:
 * call *; jmp B` at the same C, B + 5.  NULL when the site does not jump.
 */
static const unsigned char *site_landing(const unsigned char *p)
{
	const unsigned char *a;

	if (!p || p[0] != 0xe9)
		return NULL;
	a = rel_target(p);
	return a[6] == 0xe9 ? rel_target(a + 6) + 5 : a + 11;
}

/* Is p in this program's own code (not in a stub, not in libutrace.so)? */
static int in_program(void *p)
{
	Dl_info here, there;

	return dladdr((void *)main, &here) && dladdr(p, &there) &&
	       here.dli_fbase == there.dli_fbase;
}

/* The stub page entry NAME's site calls, by its offset in the page (runtime/rt.h:
 * the tracer's at 0, UT_PROBE_STUB_OFF 16, UT_INST_STUB_OFF(1 .. 64) from 64,
 * UT_MULTI_STUB_OFF(j) from 1088), or the graph stub it jumps to. */
static void print_entry(const char *name)
{
	const unsigned char *p = site_of(name);
	uintptr_t to, off;

	if (p && p[0] == 0xe9) {
		printf("%s %s\n", name, rel_target(p)[6] == 0xe9 ? "igraph" : "graph");
		return;
	}
	if (!p || p[0] != 0xe8) {
		printf("%s none\n", name);
		return;
	}
	to = (uintptr_t)rel_target(p);
	off = to & 4095;
	printf("%s %s\n", name,
	       off == 0 ? "tracer" : off == 16 ? "probe" : off < 1088 ? "inst" : "multi");
}

static void *lookup(const char *name)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} fns[] = {{"ip_foo_one", ip_foo_one}, {"ip_foo_two", ip_foo_two},
		   {"ip_bar_one", ip_bar_one}, {"ip_baz", ip_baz},
		   {"ig_top", ig_top},	       {"ig_leaf", ig_leaf},
		   {"ig_land", ig_land},       {"ig_hold", ig_hold}};

	for (unsigned int i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(name, fns[i].name))
			return (void *)fns[i].fn;
	return NULL;
}

int main(int argc, char **argv)
{
	char line[1024];
	pthread_t t, spin, hold;

	if (argc < 2 || strcmp(argv[1], "-l"))
		return 2;
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	while (!worker_tid)
		usleep(1000);
	printf("pid %d worker %d\n", (int)getpid(), (int)worker_tid);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		for (char *s, *w = strtok_r(line, " \n", &s); w; w = strtok_r(NULL, " \n", &s)) {
			if (!strcmp(w, "run") || !strcmp(w, "tree")) {
				run_both(!strcmp(w, "tree"));
			} else if (!strcmp(w, "hold") && !holding) {
				holding = 1;
				held = 0;
				if (pthread_create(&hold, NULL, holder, NULL))
					holding = 0;
				while (holding && !held)
					usleep(1000);
			} else if (!strcmp(w, "release") && holding) {
				holding = 0;
				pthread_join(hold, NULL);
			} else if (!strcmp(w, "spin") && !spinning) {
				spinning = 1;
				if (pthread_create(&spin, NULL, spinner, NULL))
					spinning = 0;
			} else if (!strcmp(w, "entry")) {
				w = strtok_r(NULL, " \n", &s);
				if (w)
					print_entry(w);
			} else if (!strcmp(w, "land")) {
				const unsigned char *c = site_landing(site_of("ig_land"));
				ig_land();
				printf("land %s\n", land_ret == (void *)c  ? "stub"
						    : in_program(land_ret) ? "none"
									   : "other");
			} else if (!strcmp(w, "stack")) {
				size_t used;

				stack_below(0);
				ig_land();
				used = stack_below(1);
				printf("stack %s\n", used < 512 ? "small" : "large");
			} else if (!strcmp(w, "stop") && spinning) {
				spinning = 0;
				pthread_join(spin, NULL);
			} else {
				print_site(w);
			}
		}
		if (spinning)
			printf("spins %lu\n", spins);
		printf("done\n");
		fflush(stdout);
	}
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * names_dl.c - addresses whose names depend on when they were mapped, for
 * 42_names.sh.
 *
 *   names_dl DIR   dlopen DIR/lib_names_a.so, call a_entry, dlclose it, then the
 *                  same with DIR/lib_names_b.so and b_entry (usually loaded where
 *                  the first one was); prints "a BASE b BASE" (the load bases);
 *                  then g_jump, which ends with a call to the noreturn g_deep
 *                  (its return address is one past g_jump's last byte).
 *   names_dl DIR wait  the same, but after the first library dlopens
 *                  DIR/lib_names_plain.so (no patch site), calls its plain_call
 *                  with plain_cb, dlcloses it and waits for a line on its
 *                  standard input.
 *
 * main is called from libc, whose symbols are in .dynsym only.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINL __attribute__((noinline))

static jmp_buf env;
volatile int sink;

NOINL __attribute__((noreturn)) void g_deep(void)
{
	longjmp(env, 1);
}

/* The call is its last instruction: nothing follows a noreturn call. */
NOINL void g_jump(void)
{
	sink++;
	g_deep();
}

/* Aligned: g_jump's end is not this function's start (the kernel's rule then names it). */
NOINL __attribute__((aligned(64))) void g_after(void)
{
	sink++;
}

/* Called back from a library without patch sites. */
NOINL void plain_cb(void)
{
	sink++;
}

static NOINL void call_plain(const char *dir)
{
	char path[4096];
	void (*f)(void (*)(void));
	void *h;

	snprintf(path, sizeof(path), "%s/lib_names_plain.so", dir);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		exit(1);
	}
	f = (void (*)(void (*)(void)))dlsym(h, "plain_call");
	if (!f)
		exit(1);
	f(plain_cb);
	dlclose(h);
}

static unsigned long call_lib(const char *dir, const char *lib, const char *fn)
{
	char path[4096];
	struct link_map *lm = NULL;
	unsigned long base = 0;
	void (*f)(void);
	void *h;

	snprintf(path, sizeof(path), "%s/%s", dir, lib);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		exit(1);
	}
	f = (void (*)(void))dlsym(h, fn);
	if (!f)
		exit(1);
	f();
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm)
		base = lm->l_addr;
	dlclose(h);
	return base;
}

int main(int argc, char **argv)
{
	unsigned long a, b;

	if (argc < 2)
		return 2;
	a = call_lib(argv[1], "lib_names_a.so", "a_entry");
	if (argc > 2 && !strcmp(argv[2], "wait")) {
		int c;

		call_plain(argv[1]);

		while ((c = getchar()) != EOF && c != '\n')
			;
	}
	b = call_lib(argv[1], "lib_names_b.so", "b_entry");
	printf("a %#lx b %#lx\n", a, b);
	if (!setjmp(env))
		g_jump();
	g_after();
	return 0;
}

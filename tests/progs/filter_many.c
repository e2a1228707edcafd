// SPDX-License-Identifier: MIT
/*
 * filter_many.c - a traced program with many functions, for the selection tests of
 * tests/integration/80_filter.sh.
 *
 * fm_0 ... fm_999 are small functions that are each called once per round; fm_top
 * calls fm_mid and fm_other, fm_mid calls fm_leaf1 and fm_leaf2, fm_other calls
 * fm_leaf3 (a small tree for set_graph_function and set_graph_notrace).
 *
 *   filter_many [NAME...]   one round, then for each NAME "NAME XX": the first
 *                           byte of its patch site (0f: a NOP, e8/e9: patched)
 *   filter_many -l          commands on stdin, one line each, answered by "done":
 *                           NAME... prints their bytes as above, `run` one round,
 *                           `spin` rounds without end (until `stop`); exits at EOF
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>

#include "site_byte.h"

#define NI __attribute__((noinline, noclone))

static volatile unsigned long sink;

#define F1(n)                                                                                      \
	NI void fm_##n(void)                                                                       \
	{                                                                                          \
		sink += n;                                                                         \
	}
#define F10(n) F1(n##0) F1(n##1) F1(n##2) F1(n##3) F1(n##4) F1(n##5) F1(n##6) F1(n##7) F1(n##8) F1(n##9)
#define F100(n) F10(n##0) F10(n##1) F10(n##2) F10(n##3) F10(n##4) F10(n##5) F10(n##6) F10(n##7) F10(n##8) F10(n##9)
/* fm_0 .. fm_9, fm_10 .. fm_99, fm_100 .. fm_999 */
F1(0) F1(1) F1(2) F1(3) F1(4) F1(5) F1(6) F1(7) F1(8) F1(9)
F10(1) F10(2) F10(3) F10(4) F10(5) F10(6) F10(7) F10(8) F10(9)
F100(1) F100(2) F100(3) F100(4) F100(5) F100(6) F100(7) F100(8) F100(9)

#define R1(n) fm_##n,
#define R10(n) R1(n##0) R1(n##1) R1(n##2) R1(n##3) R1(n##4) R1(n##5) R1(n##6) R1(n##7) R1(n##8) R1(n##9)
#define R100(n) R10(n##0) R10(n##1) R10(n##2) R10(n##3) R10(n##4) R10(n##5) R10(n##6) R10(n##7) R10(n##8) R10(n##9)
static void (*const all[])(void) = {
	R1(0) R1(1) R1(2) R1(3) R1(4) R1(5) R1(6) R1(7) R1(8) R1(9)
	R10(1) R10(2) R10(3) R10(4) R10(5) R10(6) R10(7) R10(8) R10(9)
	R100(1) R100(2) R100(3) R100(4) R100(5) R100(6) R100(7) R100(8) R100(9)
};

NI void fm_leaf1(void) { sink++; }
NI void fm_leaf2(void) { sink += 2; }
NI void fm_leaf3(void) { sink += 3; }
NI void fm_mid(void) { fm_leaf1(); fm_leaf2(); sink++; }
NI void fm_other(void) { fm_leaf3(); sink++; }
NI void fm_top(void) { fm_mid(); fm_other(); sink++; }

static const struct {
	const char *name;
	void (*fn)(void);
} named[] = {
	{"fm_leaf1", fm_leaf1}, {"fm_leaf2", fm_leaf2}, {"fm_leaf3", fm_leaf3},
	{"fm_mid", fm_mid},     {"fm_other", fm_other}, {"fm_top", fm_top},
};

static void round_all(void)
{
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		all[i]();
	fm_top();
}

static void *lookup(const char *name)
{
	if (!strncmp(name, "fm_", 3) && name[3] >= '0' && name[3] <= '9') {
		unsigned long n = strtoul(name + 3, NULL, 10);

		return n < sizeof(all) / sizeof(all[0]) ? (void *)all[n] : NULL;
	}
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(named[i].name, name))
			return (void *)named[i].fn;
	return NULL;
}


int main(int argc, char **argv)
{
	char line[4096];
	int spin = 0;

	if (argc > 1 && !strcmp(argv[1], "-l")) {
		for (;;) {
			struct pollfd pf = {.fd = 0, .events = POLLIN};

			if (spin)
				round_all();
			if (poll(&pf, 1, spin ? 0 : -1) <= 0)
				continue;
			if (!fgets(line, sizeof(line), stdin))
				break;
			for (char *s, *t = strtok_r(line, " \n", &s); t; t = strtok_r(NULL, " \n", &s)) {
				if (!strcmp(t, "run"))
					round_all();
				else if (!strcmp(t, "spin") || !strcmp(t, "stop"))
					spin = t[1] == 'p';
				else
					print_site(t);
			}
			printf("done\n");
			fflush(stdout);
		}
		return 0;
	}
	round_all();
	for (int i = 1; i < argc; i++)
		print_site(argv[i]);
	return 0;
}

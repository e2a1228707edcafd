// SPDX-License-Identifier: MIT
/*
 * graph_bt.c - backtrace() inside traced functions must see the real callers, not
 * the tracer's return trampoline.  The program checks itself with dladdr() (it is
 * linked with -rdynamic so that its functions have dynamic symbols) and prints
 * "graph_bt: ok" or what it found instead.  Expected tree: graph_bt.tree.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <string.h>

#include "graph_common.h"

static int failed;

/* Frame i of a backtrace taken in want[0] must lie in want[i]. */
HELPER void check(const char *const *want, int n)
{
	void *frames[32];
	int got = backtrace(frames, 32);

	if (got < n + 1) {
		printf("graph_bt: FAIL (%d frames)\n", got);
		failed = 1;
		return;
	}
	for (int i = 0; i < n; i++) {
		Dl_info info;
		const char *name = NULL;

		if (dladdr(frames[i], &info) && info.dli_sname)
			name = info.dli_sname;
		if (!name || strcmp(name, want[i])) {
			printf("graph_bt: FAIL (frame %d is %p %s in %s, expected %s)\n", i, frames[i],
			       name ? name : "?", info.dli_fname ? info.dli_fname : "?", want[i]);
			failed = 1;
		}
	}
}

NOINL void bt3(void)
{
	static const char *const want[] = {"bt3", "bt2", "bt1", "main"};

	check(want, 4);
	sink++;
}

NOINL void bt2(void)
{
	bt3();
	sink++;
}

NOINL void bt1(void)
{
	bt2();
	sink++;
}

NOINL void shallow(void)
{
	static const char *const want[] = {"shallow", "main"};

	check(want, 2);
	sink++;
}

int main(void)
{
	bt1();
	shallow();
	bt1();
	if (failed)
		return 1;
	printf("graph_bt: ok\n");
	return 0;
}

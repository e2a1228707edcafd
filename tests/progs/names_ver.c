// SPDX-License-Identifier: MIT
/*
 * names_ver.c - a program rebuilt in place, for 42_names.sh: built as
 * names_ver, and as names_ver2 (-DNAMES_V2) with two new functions ahead of the
 * old ones, so that the old ones move and others take their addresses.
 *
 *   names_ver [wait]   (wait: print "ready" and wait for a line on stdin)
 *   calls (v2: new_second -> new_first,) old_two -> old_one; prints "pid PID"
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NOINL __attribute__((noinline))

volatile int sink;

#ifdef NAMES_V2
NOINL void new_first(void)
{
	sink += 10;
}

NOINL void new_second(void)
{
	new_first();
	sink += 20;
}
#endif

NOINL void old_one(void)
{
	sink += 1;
}

NOINL void old_two(void)
{
	old_one();
	sink += 2;
}

int main(int argc, char **argv)
{
	char line[16];

	if (argc > 1 && !strcmp(argv[1], "wait")) {
		printf("ready\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
#ifdef NAMES_V2
	new_second();
#endif
	old_two();
	printf("pid %d\n", (int)getpid());
	return 0;
}

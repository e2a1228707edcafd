// SPDX-License-Identifier: MIT
/*
 * hello.c - the smallest program worth tracing: a few functions calling each
 * other, and a trace_printk().  Build it with the flags of `utrace cflags`:
 *
 *     cc $(utrace cflags) -O2 -o hello hello.c
 *
 * then run it with the runtime preloaded (LD_PRELOAD=.../libutrace.so ./hello)
 * while the function tracer is on.  The functions are noinline only so that -O2
 * keeps them apart: an inlined function has no entry of its own to trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <utrace/utrace.h>

__attribute__((noinline)) static int square(int x)
{
	return x * x;
}

__attribute__((noinline)) static int sum_of_squares(int n)
{
	int sum = 0;

	for (int i = 1; i <= n; i++)
		sum += square(i);
	return sum;
}

__attribute__((noinline)) static void greet(const char *who)
{
	/* Goes into the trace buffer, not to stdout; a no-op without the runtime. */
	trace_printk("hello, %s\n", who);
	printf("hello, %s\n", who);
}

/* usage: hello [N [NAME]] - greets NAME, sums the squares of 1..N (default 3) */
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	greet(argc > 2 ? argv[2] : "utrace");
	printf("sum of the squares of 1..%d = %d\n", n, sum_of_squares(n));
	return 0;
}

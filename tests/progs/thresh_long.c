/*
 * thresh_long.c - a few long functions among very many short ones, for the
 * tracing_thresh test (tests/integration/71_thresh.sh).
 *
 * usage: thresh_long ROUNDS SHORT LONG_US
 * Each round calls short_call() SHORT times, then long_call(), which spins LONG_US
 * microseconds (spinning, not sleeping, so that sleep-time does not matter) and calls
 * short_call() once more inside, so that its graph has a child that the threshold must
 * remove as well.  Prints "long=N short=M" (the calls it made).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

__attribute__((noinline)) int short_call(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

__attribute__((noinline)) int long_call(int x, double us)
{
	double end = now_us() + us;

	x = short_call(x);
	while (now_us() < end)
		__asm__ volatile("" : "+r"(x));
	return x + 1;
}

int main(int argc, char **argv)
{
	long rounds, shorts, r, i, nshort = 0;
	double us;
	int acc = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: thresh_long ROUNDS SHORT LONG_US\n");
		return 2;
	}
	rounds = atol(argv[1]);
	shorts = atol(argv[2]);
	us = atof(argv[3]);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < shorts; i++)
			acc = short_call(acc);
		acc = long_call(acc, us);
		nshort += shorts + 1;
	}
	printf("long=%ld short=%ld acc=%d\n", rounds, nshort, acc);
	return 0;
}

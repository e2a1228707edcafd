/*
 * bench/micro/thresh.c - a few long functions among very many short ones, for measuring
 * what tracing_thresh gains (bench/thresh.sh).
 *
 * Each round calls short_work() SHORT times (a few nanoseconds each) and then long_work()
 * once, which spins for LONG_US microseconds.  With function_graph and no threshold, the
 * short calls fill the buffer and push the long ones out; with tracing_thresh between the
 * two durations, the runtime removes the short calls' entries at their return and the
 * buffer keeps long functions only.  The program prints how many long calls it made:
 *
 *	rounds=200 long_calls=200 short_calls=2000000
 *
 * Options:
 *	-r ROUNDS	rounds (default 200)
 *	-s SHORT	short calls per round (default 10000)
 *	-l LONG_US	duration of long_work() in microseconds (default 200)
 *	-c CPU		pin to CPU, so that every event lands in one CPU's buffer
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

__attribute__((noinline)) int short_work(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

/* Spins rather than sleeps: the duration is the same whatever the option sleep-time says. */
__attribute__((noinline)) int long_work(int x, double us)
{
	double end = now_us() + us;

	while (now_us() < end)
		__asm__ volatile("" : "+r"(x));
	return x + 1;
}

int main(int argc, char **argv)
{
	long rounds = 200, shorts = 10000, r, i, longs = 0;
	double long_us = 200;
	int opt, acc = 0;
	cpu_set_t set;

	while ((opt = getopt(argc, argv, "r:s:l:c:")) != -1) {
		switch (opt) {
		case 'r':
			rounds = atol(optarg);
			break;
		case 's':
			shorts = atol(optarg);
			break;
		case 'l':
			long_us = atof(optarg);
			break;
		case 'c':
			CPU_ZERO(&set);
			CPU_SET(atoi(optarg), &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				perror("thresh: sched_setaffinity");
			break;
		default:
			fprintf(stderr, "usage: thresh [-r ROUNDS] [-s SHORT] [-l LONG_US] [-c CPU]\n");
			return 2;
		}
	}
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < shorts; i++)
			acc = short_work(acc);
		acc = long_work(acc, long_us);
		longs++;
	}
	printf("rounds=%ld long_calls=%ld short_calls=%ld acc=%d\n", rounds, longs,
	       rounds * shorts, acc);
	return 0;
}

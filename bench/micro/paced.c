/*
 * bench/micro/paced.c - calls to a small function at a set rate, for the recorder's
 * throughput (bench/rec.sh).
 *
 *	paced RATE SECONDS
 *
 * calls bench_leaf() RATE times a second for SECONDS seconds, in batches of a
 * thousandth of a second's calls, each batch started when its time comes (the loop
 * spins on CLOCK_MONOTONIC between them), and prints
 *
 *	calls=N seconds=S rate=R
 *
 * with the calls made and the rate achieved: under a tracer a batch takes longer, and
 * when it takes longer than its slot the rate falls short of RATE (the line says so).
 * Built with -fpatchable-function-entry=5 and run with libutrace.so under the function
 * tracer, every call is one event: RATE is the events per second the recorder must keep
 * up with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void bench_leaf(void)
{
	__asm__ volatile("" ::: "memory");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double rate, secs, start, end;
	long batch, calls = 0;

	if (argc != 3 || (rate = atof(argv[1])) <= 0 || (secs = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: paced RATE SECONDS\n");
		return 2;
	}
	batch = (long)(rate / 1000);
	if (batch < 1)
		batch = 1;
	start = now();
	end = start + secs;
	for (;;) {
		double t = now();

		if (t >= end)
			break;
		/* the batches owed by now, so that a slow one is caught up */
		while ((double)calls < (t - start) * rate) {
			for (long i = 0; i < batch; i++)
				bench_leaf();
			calls += batch;
		}
	}
	printf("calls=%ld seconds=%.3f rate=%.0f\n", calls, now() - start,
	       (double)calls / (now() - start));
	return 0;
}

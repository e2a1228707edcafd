/*
 * bench/micro/swap.c - how long a snapshot swap takes, seen from user space.
 *
 *	swap FILE REPEAT
 *
 * Writes "1\n" to FILE (a `snapshot` file of a utracefs mount) REPEAT times, each as
 * `echo 1 > FILE` does it: open, write, close.  Each round trip through FUSE is timed
 * with clock_gettime(CLOCK_MONOTONIC); the write returns once utracefs has swapped every
 * CPU's buffer with the snapshot.  A shell loop would time its own forks as well, hence
 * this program.  The first swap allocates the snapshot buffer, so WARMUP swaps go
 * untimed first.  Prints one line, in microseconds:
 *
 *	swaps=200 median_us=123.4 q1_us=110.2 q3_us=140.8 min_us=98.7 max_us=400.1
 *
 * A failed open or write prints the error and exits 1: no figure from a swap that did
 * not happen.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WARMUP 10

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One `echo 1 > path`: 0, or -1 after saying why. */
static int swap_once(const char *path)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0 || write(fd, "1\n", 2) != 2) {
		fprintf(stderr, "swap: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (close(fd)) {
		fprintf(stderr, "swap: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	double *us;
	long n;

	if (argc != 3 || (n = strtol(argv[2], NULL, 10)) < 1) {
		fprintf(stderr, "usage: swap FILE REPEAT\n");
		return 2;
	}
	us = calloc((size_t)n, sizeof(*us));
	if (!us)
		return 1;
	for (int i = 0; i < WARMUP; i++)
		if (swap_once(argv[1]))
			return 1;
	for (long i = 0; i < n; i++) {
		double t0 = now_us();

		if (swap_once(argv[1]))
			return 1;
		us[i] = now_us() - t0;
	}
	qsort(us, (size_t)n, sizeof(*us), cmp_double);
	printf("swaps=%ld median_us=%.1f q1_us=%.1f q3_us=%.1f min_us=%.1f max_us=%.1f\n", n,
	       n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2, us[(n - 1) / 4],
	       us[n - 1 - (n - 1) / 4], us[0], us[n - 1]);
	free(us);
	return 0;
}

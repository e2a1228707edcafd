/* SPDX-License-Identifier: MIT */
/*
 * pass_ms.h - for test programs that need a stretch of known length: at least
 * ms milliseconds pass (short sleeps until the monotonic clock says so, as a
 * sleep alone may end early).
 */
#ifndef PASS_MS_H
#define PASS_MS_H

#include <time.h>

static void pass_ms(int ms)
{
	struct timespec t0, t, d = {0, 200000};

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		nanosleep(&d, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) <
		 (long)ms * 1000000L);
}

#endif

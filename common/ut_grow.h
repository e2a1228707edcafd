/* SPDX-License-Identifier: MIT */
/*
 * ut_grow.h - the growing array of the CLI's and the daemon's builders
 * (cmd/report_export.c, common/ut_fnstat.c): room for one more element,
 * doubling, so that appending n elements costs O(n) copies in all.
 */
#ifndef UT_GROW_H
#define UT_GROW_H

#include <errno.h>
#include <stdlib.h>

/* Room for one more element of SIZE bytes in *arr (n used, *cap allocated).  0 or -ENOMEM. */
static inline int ut_grow(void *arr, size_t size, size_t n, size_t *cap)
{
	void **p = arr, *q;
	size_t c = *cap ? *cap * 2 : 16;

	if (n < *cap)
		return 0;
	q = realloc(*p, c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

#endif

// SPDX-License-Identifier: MIT
/*
 * ut_profile_fmt.c - the function profiler's table (ut_profile_fmt.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ut_profile_fmt.h"

size_t ut_graph_duration_str(char *out, size_t size, uint64_t ns)
{
	char usecs[24], nsecs[8];
	size_t len, n;

	snprintf(usecs, sizeof(usecs), "%" PRIu64, ns / 1000);
	len = strlen(usecs);
	n = (size_t)snprintf(out, size, "%s", usecs);
	/* at most 7 digits in all: the fraction gets what is left, up to 3 */
	if (len < 7) {
		size_t room = 8 - len < 5 ? 8 - len : 5;

		snprintf(nsecs, room, "%03u", (unsigned int)(ns % 1000));
		n += (size_t)snprintf(out + n, n < size ? size - n : 0, ".%s", nsecs);
		len += strlen(nsecs) + 1;
	}
	n += (size_t)snprintf(out + n, n < size ? size - n : 0, " us ");
	for (; len < 8; len++)
		n += (size_t)snprintf(out + n, n < size ? size - n : 0, " ");
	return n;
}

static int by_name(const void *a, const void *b)
{
	const struct ut_prof_row *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int by_time(const void *a, const void *b)
{
	const struct ut_prof_row *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns > y->time_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t ut_prof_merge(struct ut_prof_row *rows, size_t n)
{
	size_t out = 0;

	if (!n)
		return 0;
	qsort(rows, n, sizeof(*rows), by_name);
	for (size_t i = 0; i < n; i++) {
		if (out && !strcmp(rows[out - 1].name, rows[i].name)) {
			rows[out - 1].hits += rows[i].hits;
			rows[out - 1].time_ns += rows[i].time_ns;
			rows[out - 1].sq_ns += rows[i].sq_ns;
		} else {
			rows[out++] = rows[i];
		}
	}
	qsort(rows, out, sizeof(*rows), by_time);
	return out;
}

size_t ut_prof_line(char *out, size_t size, const struct ut_prof_row *r, uint64_t thresh_ns)
{
	uint64_t avg, s2 = 0;
	size_t n;

	if (size)
		out[0] = '\0';
	if (!r->hits)
		return 0;
	avg = r->time_ns / r->hits;
	if (thresh_ns && avg < thresh_ns)
		return 0;
	/*
	 * The sample variance, n Σx² - (Σx)² over n (n - 1), in the kernel's
	 * unsigned 64-bit arithmetic, divided by 1000 once here: the duration
	 * printer divides by 1000 again (ns² shown as "us").
	 */
	if (r->hits > 1)
		s2 = (r->hits * r->sq_ns - r->time_ns * r->time_ns) /
		     (r->hits * (r->hits - 1) * 1000);
	n = (size_t)snprintf(out, size, "  %-30.30s  %10" PRIu64 "    ", r->name, r->hits);
	n += ut_graph_duration_str(out + n, n < size ? size - n : 0, r->time_ns);
	n += (size_t)snprintf(out + n, n < size ? size - n : 0, "    ");
	n += ut_graph_duration_str(out + n, n < size ? size - n : 0, avg);
	n += (size_t)snprintf(out + n, n < size ? size - n : 0, "    ");
	n += ut_graph_duration_str(out + n, n < size ? size - n : 0, s2);
	n += (size_t)snprintf(out + n, n < size ? size - n : 0, "\n");
	return n;
}

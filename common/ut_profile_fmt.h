/* SPDX-License-Identifier: MIT */
/*
 * ut_profile_fmt.h - the function profiler's table as the kernel prints its
 * trace_stat/functionN files: utracefs serves them (fs/control/trace_stat.c),
 * `utrace profile` prints the sum over all CPUs (cmd/profile.c).
 */
#ifndef UT_PROFILE_FMT_H
#define UT_PROFILE_FMT_H

#include <stddef.h>
#include <stdint.h>

/* The two header lines, byte for byte the kernel's (with the graph tracer built in). */
#define UT_PROF_HEADER                                                                             \
	"  Function                               Hit    Time            Avg             s^2\n"    \
	"  --------                               ---    ----            ---             ---\n"

struct ut_prof_row {
	char name[128];
	uint32_t cpu;
	uint64_t hits;
	uint64_t time_ns;
	uint64_t sq_ns; /* the sum of the squared durations */
};

/*
 * The kernel's trace_print_graph_duration(): "1.382 us " padded to the column
 * (at most 7 digits, the fraction gets what is left).  Returns the length.
 */
size_t ut_graph_duration_str(char *out, size_t size, uint64_t ns);
/* Sum rows of the same function into one, sort by time (largest first, then by
 * name); returns how many are left. */
size_t ut_prof_merge(struct ut_prof_row *rows, size_t n);
/*
 * One row's line with its newline, as the kernel's function_stat_show(); an
 * empty string for a row the kernel leaves out (no hit, or an average below
 * tracing_thresh, thresh_ns, when set).  Returns the length.
 */
size_t ut_prof_line(char *out, size_t size, const struct ut_prof_row *r, uint64_t thresh_ns);

#endif

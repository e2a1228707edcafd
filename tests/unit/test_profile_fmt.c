// SPDX-License-Identifier: MIT
/*
 * test_profile_fmt.c - the function profiler's table (common/ut_profile_fmt.c)
 * against what the kernel's function_stat_show() prints for the same counts:
 * "  %-30.30s  %10lu", four spaces, then time, average and s^2 each as
 * trace_print_graph_duration() prints a duration ("%lu.%03lu us " padded to 8,
 * at most 7 digits), separated by four spaces; s^2 is
 * (n Σx² - (Σx)²) / (n (n - 1) 1000).  And the merge: rows of one function
 * summed, sorted by time, largest first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ut_profile_fmt.h"

static struct ut_prof_row row(const char *name, uint64_t hits, uint64_t time_ns, uint64_t sq)
{
	struct ut_prof_row r = {.hits = hits, .time_ns = time_ns, .sq_ns = sq};

	strncpy(r.name, name, sizeof(r.name) - 1);
	return r;
}

static void test_header(void **state)
{
	(void)state;
	assert_string_equal(UT_PROF_HEADER,
			    "  Function                               Hit    Time            Avg"
			    "             s^2\n"
			    "  --------                               ---    ----            ---"
			    "             ---\n");
}

static void test_duration(void **state)
{
	char s[64];

	(void)state;
	ut_graph_duration_str(s, sizeof(s), 1382);
	assert_string_equal(s, "1.382 us    "); /* " us " then padded to 8 */
	ut_graph_duration_str(s, sizeof(s), 0);
	assert_string_equal(s, "0.000 us    ");
	ut_graph_duration_str(s, sizeof(s), 10291810);
	assert_string_equal(s, "10291.81 us "); /* 7 digits: two decimals */
	ut_graph_duration_str(s, sizeof(s), 1234567890);
	assert_string_equal(s, "1234567 us  "); /* 7 digits of us: no fraction */
	ut_graph_duration_str(s, sizeof(s), 12345678901ull);
	assert_string_equal(s, "12345678 us ");
}

static void test_line(void **state)
{
	char s[512];
	/* 3 calls of 10, 11 and 12 ms: Σx = 33 ms, Σx² = 363e12 + 2e12 ns² */
	struct ut_prof_row r = row("prof_sleep", 3, 33000000, 365000000000000ull);

	(void)state;
	/* s^2 = (3 * 365e12 - 1089e12) / (3 * 2 * 1000) = 1e12 ns²/1000 -> "1000000 us" */
	ut_prof_line(s, sizeof(s), &r, 0);
	assert_string_equal(s, "  prof_sleep                               3    33000.00 us     "
			       "11000.00 us     1000000 us  \n");
	r = row("leaf", 1, 250, 62500);
	ut_prof_line(s, sizeof(s), &r, 0);
	assert_string_equal(s, "  leaf                                     1    0.250 us        "
			       "0.250 us        0.000 us    \n");
	/* names are cut at 30 columns */
	r = row("a_function_name_longer_than_thirty", 1, 1000, 1000000);
	ut_prof_line(s, sizeof(s), &r, 0);
	assert_memory_equal(s, "  a_function_name_longer_than_th  ", 34);
	/* tracing_thresh hides rows whose average is below it; no hit: no row */
	assert_int_equal(ut_prof_line(s, sizeof(s), &r, 1001), 0);
	assert_string_equal(s, "");
	r.hits = 0;
	assert_int_equal(ut_prof_line(s, sizeof(s), &r, 0), 0);
}

static void test_merge(void **state)
{
	struct ut_prof_row rows[] = {
	    row("b", 2, 100, 5000),  row("a", 1, 300, 90000), row("c", 5, 200, 8000),
	    row("b", 3, 400, 60000), row("d", 1, 200, 40000),
	};
	size_t n;

	(void)state;
	n = ut_prof_merge(rows, 5);
	assert_int_equal(n, 4);
	assert_string_equal(rows[0].name, "b"); /* 500 ns: the two rows summed */
	assert_int_equal(rows[0].hits, 5);
	assert_int_equal(rows[0].time_ns, 500);
	assert_int_equal(rows[0].sq_ns, 65000);
	assert_string_equal(rows[1].name, "a");
	assert_string_equal(rows[2].name, "c"); /* equal times: by name */
	assert_string_equal(rows[3].name, "d");
	assert_int_equal(ut_prof_merge(rows, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_header),
	    cmocka_unit_test(test_duration),
	    cmocka_unit_test(test_line),
	    cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

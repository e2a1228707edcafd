// SPDX-License-Identifier: MIT
/*
 * test_fnstat.c - the function-duration statistics (common/ut_fnstat.c) that
 * `utrace report --summary` and trace_stat/function_graph print: self times of
 * nested calls, exits whose entries are not in the trace (tracing started inside
 * them, or tracing_thresh took them back) with their children, entries cut by the
 * end of the trace, lost exits, the columns and their orders.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ut_fnstat.h"

static char *table(struct ut_fnstat *s, int col)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(ut_fnstat_write(s, f, col), 0);
	fclose(f);
	return buf;
}

/* "CALLS TOTAL SELF MIN MAX" of FUNC's row (times as printed), or NULL. */
static int row(const char *t, const char *func, char *out, size_t size)
{
	char name[64], u[5][4];
	double v[5];
	unsigned long long calls;

	for (const char *l = t; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (sscanf(l, "%lf %3s %lf %3s %lf %3s %lf %3s %lf %3s %llu %63s", &v[0], u[0],
			   &v[1], u[1], &v[2], u[2], &v[3], u[3], &v[4], u[4], &calls, name) != 12)
			continue;
		if (strcmp(name, func))
			continue;
		snprintf(out, size, "%llu %.3f%s %.3f%s %.3f%s %.3f%s", calls, v[0], u[0], v[1], u[1],
			 v[3], u[3], v[4], u[4]);
		return 0;
	}
	return -1;
}

static void expect_row(const char *t, const char *func, const char *want)
{
	char got[256];

	assert_int_equal(row(t, func, got, sizeof(got)), 0);
	assert_string_equal(got, want);
}

/* main(0..1000) calls a(100..400) which calls b(200..300); then a(500..600). */
static void test_nested(void **state)
{
	struct ut_fnstat *s = ut_fnstat_new();
	char *t;

	assert_int_equal(ut_fnstat_entry(s, 1, 0, "main", 0), 0);
	assert_int_equal(ut_fnstat_entry(s, 1, 100, "a", 1), 0);
	assert_int_equal(ut_fnstat_entry(s, 1, 200, "b", 2), 0);
	assert_int_equal(ut_fnstat_exit(s, 1, "b", 2, 200, 300), 0);
	assert_int_equal(ut_fnstat_exit(s, 1, "a", 1, 100, 400), 0);
	assert_int_equal(ut_fnstat_entry(s, 1, 500, "a", 1), 0);
	assert_int_equal(ut_fnstat_exit(s, 1, "a", 1, 500, 600), 0);
	assert_int_equal(ut_fnstat_exit(s, 1, "main", 0, 0, 1000), 0);
	t = table(s, UT_FNSTAT_TOTAL);
	expect_row(t, "main", "1 1.000us 600.000ns 1.000us 1.000us");
	expect_row(t, "a", "2 400.000ns 300.000ns 100.000ns 300.000ns");
	expect_row(t, "b", "1 100.000ns 100.000ns 100.000ns 100.000ns");
	assert_non_null(strstr(t, "main\n"));
	assert_true(strstr(t, " main\n") < strstr(t, " a\n")); /* by total */
	free(t);
	t = table(s, UT_FNSTAT_CALLS);
	assert_true(strstr(t, " a\n") < strstr(t, " b\n"));
	assert_true(strstr(t, " b\n") < strstr(t, " main\n")); /* ties by name */
	free(t);
	ut_fnstat_free(s);
}

/*
 * Exits without entries (tracing_thresh took the entries back, or tracing started
 * inside them): b (depth 2) and c (depth 2) end, then a (depth 1) whose entry is
 * missing takes them as children; then main's exit, whose entry is missing too.
 */
static void test_exits_without_entries(void **state)
{
	struct ut_fnstat *s = ut_fnstat_new();
	char *t;

	assert_int_equal(ut_fnstat_exit(s, 1, "b", 2, 200, 300), 0);
	assert_int_equal(ut_fnstat_exit(s, 1, "c", 2, 400, 600), 0);
	assert_int_equal(ut_fnstat_exit(s, 1, "a", 1, 100, 700), 0);
	assert_int_equal(ut_fnstat_exit(s, 1, "main", 0, 0, 1000), 0);
	t = table(s, UT_FNSTAT_TOTAL);
	expect_row(t, "a", "1 600.000ns 300.000ns 600.000ns 600.000ns");
	expect_row(t, "main", "1 1.000us 400.000ns 1.000us 1.000us");
	free(t);
	ut_fnstat_free(s);
}

/* Entries without exits end at the last time stamp; threads are kept apart. */
static void test_cut_and_threads(void **state)
{
	struct ut_fnstat *s = ut_fnstat_new();
	char *t;

	assert_int_equal(ut_fnstat_entry(s, 1, 100, "run", 0), 0);
	assert_int_equal(ut_fnstat_entry(s, 2, 150, "run", 0), 0);
	assert_int_equal(ut_fnstat_entry(s, 2, 200, "leaf", 1), 0);
	assert_int_equal(ut_fnstat_exit(s, 2, "leaf", 1, 200, 250), 0);
	assert_int_equal(ut_fnstat_exit(s, 1, "other", 3, 900, 1100), 0);
	t = table(s, UT_FNSTAT_TOTAL);
	/* thread 1's run: 100..1100, less other's 200; thread 2's: 150..1100, less 50 */
	expect_row(t, "run", "2 1.950us 1.700us 950.000ns 1.000us");
	free(t);
	ut_fnstat_free(s);
}

/* A lost exit: the deeper call still open ends with its parent's exit. */
static void test_lost_exit(void **state)
{
	struct ut_fnstat *s = ut_fnstat_new();
	char *t;

	assert_int_equal(ut_fnstat_entry(s, 1, 0, "p", 0), 0);
	assert_int_equal(ut_fnstat_entry(s, 1, 100, "q", 1), 0);
	assert_int_equal(ut_fnstat_exit(s, 1, "p", 0, 0, 500), 0);
	t = table(s, UT_FNSTAT_TOTAL);
	expect_row(t, "q", "1 400.000ns 400.000ns 400.000ns 400.000ns");
	expect_row(t, "p", "1 500.000ns 100.000ns 500.000ns 500.000ns");
	free(t);
	ut_fnstat_free(s);
}

static void test_calls_only_and_columns(void **state)
{
	struct ut_fnstat *s = ut_fnstat_new();
	char *t;

	assert_int_equal(ut_fnstat_call(s, "g"), 0);
	assert_int_equal(ut_fnstat_call(s, "f"), 0);
	assert_int_equal(ut_fnstat_call(s, "f"), 0);
	t = table(s, UT_FNSTAT_MIN); /* no times: sorted by calls */
	assert_string_equal(t, "       Calls  Function\n"
			       "  ==========  ====================\n"
			       "           2  f\n"
			       "           1  g\n");
	free(t);
	t = table(s, UT_FNSTAT_NAME);
	assert_true(strstr(t, " f\n") < strstr(t, " g\n"));
	free(t);
	for (int c = 0; c < UT_FNSTAT_NCOLS; c++)
		assert_int_equal(ut_fnstat_column(ut_fnstat_column_name(c)), c);
	assert_int_equal(ut_fnstat_column("bogus"), -EINVAL);
	assert_null(ut_fnstat_column_name(UT_FNSTAT_NCOLS));
	ut_fnstat_free(s);
}

/* Many functions: the table grows its hash and keeps every row apart. */
static void test_many(void **state)
{
	struct ut_fnstat *s = ut_fnstat_new();
	char name[16], *t;
	int lines = 0;

	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		assert_int_equal(ut_fnstat_exit(s, 1, name, 0, 0, (unsigned long long)i + 1), 0);
		assert_int_equal(ut_fnstat_exit(s, 1, name, 0, 0, (unsigned long long)i + 1), 0);
	}
	t = table(s, UT_FNSTAT_TOTAL);
	for (char *p = t; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, 5002);
	assert_non_null(strstr(t, "           2  f4999\n"));
	free(t);
	ut_fnstat_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nested),
	    cmocka_unit_test(test_exits_without_entries),
	    cmocka_unit_test(test_cut_and_threads),
	    cmocka_unit_test(test_lost_exit),
	    cmocka_unit_test(test_calls_only_and_columns),
	    cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * test_report_export.c - the exports of `utrace report` (cmd/report_export.c) fed
 * event by event, without a trace.dat: folded stacks and their self times, the
 * Chrome JSON slices, calls cut by the start or the end of a recording, function
 * events without graph data, threads kept apart.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_export.h"

/* What a writer produced, as a string (freed by the caller). */
static char *written(struct rx *rx, int (*write)(struct rx *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(write(rx, f), 0);
	fclose(f);
	return buf;
}

static void expect_folded(struct rx *rx, const char *want)
{
	char *got = written(rx, rx_write_folded);

	assert_string_equal(got, want);
	free(got);
}

static void test_nested_self_times(void **state)
{
	struct rx *rx = rx_new();

	assert_int_equal(rx_entry(rx, 7, 1000, "a", 0), 0);
	assert_int_equal(rx_entry(rx, 7, 1100, "b", 1), 0);
	assert_int_equal(rx_exit(rx, 7, "b", 1, 1100, 1300), 0);
	assert_int_equal(rx_entry(rx, 7, 1400, "b", 1), 0);
	assert_int_equal(rx_exit(rx, 7, "b", 1, 1400, 1500), 0);
	assert_int_equal(rx_exit(rx, 7, "a", 0, 1000, 2000), 0);
	/* a took 1000 ns, 300 of them in b: two calls of b add up */
	expect_folded(rx, "a 700\na;b 300\n");
	rx_free(rx);
}

/* Tracing started inside c, inside b, inside a: exits only, deepest first. */
static void test_exits_without_entries(void **state)
{
	struct rx *rx = rx_new();
	char *json;

	assert_int_equal(rx_exit(rx, 7, "c", 2, 100, 200), 0);
	assert_int_equal(rx_entry(rx, 7, 250, "d", 2), 0);
	assert_int_equal(rx_exit(rx, 7, "d", 2, 250, 270), 0);
	assert_int_equal(rx_exit(rx, 7, "b", 1, 50, 300), 0);
	assert_int_equal(rx_exit(rx, 7, "a", 0, 0, 1000), 0);
	expect_folded(rx, "a 750\na;b 130\na;b;c 100\na;b;d 20\n");
	json = written(rx, rx_write_chrome);
	/* the call whose entry is missing starts at its call time */
	assert_non_null(strstr(json, "{\"name\":\"b\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":7,"
				     "\"tid\":7,\"ts\":0.050,\"dur\":0.250}"));
	free(json);
	rx_free(rx);
}

/* Tracing ended inside a: it lasts until the last event seen. */
static void test_entries_without_exits(void **state)
{
	struct rx *rx = rx_new();
	char *json;

	assert_int_equal(rx_entry(rx, 7, 1000, "a", 0), 0);
	assert_int_equal(rx_entry(rx, 7, 1100, "b", 1), 0);
	assert_int_equal(rx_exit(rx, 7, "b", 1, 1100, 1150), 0);
	assert_int_equal(rx_entry(rx, 7, 1200, "c", 1), 0);
	assert_int_equal(rx_instant(rx, 8, 3000, "sched_switch", 1), 0);
	expect_folded(rx, "a 150\na;b 50\na;c 1800\n");
	json = written(rx, rx_write_chrome);
	assert_non_null(strstr(json, "\"name\":\"a\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":7,"
				     "\"tid\":7,\"ts\":1.000,\"dur\":2.000,\"args\":{\"cut\":true}}"));
	assert_non_null(strstr(json, "{\"name\":\"sched_switch\",\"cat\":\"event\",\"ph\":\"i\","
				     "\"s\":\"t\",\"pid\":8,\"tid\":8,\"ts\":3.000,"
				     "\"args\":{\"cpu\":1}}"));
	free(json);
	rx_free(rx);
}

/* An exit deeper calls never got (lost events) closes them too. */
static void test_lost_exits(void **state)
{
	struct rx *rx = rx_new();

	assert_int_equal(rx_entry(rx, 7, 0, "a", 0), 0);
	assert_int_equal(rx_entry(rx, 7, 10, "b", 1), 0);
	assert_int_equal(rx_exit(rx, 7, "a", 0, 0, 100), 0);
	expect_folded(rx, "a 10\na;b 90\n");
	rx_free(rx);
}

static void test_threads_apart(void **state)
{
	struct rx *rx = rx_new();
	char *json;

	assert_int_equal(rx_comm(rx, 1, "main \"x\""), 0);
	assert_int_equal(rx_comm(rx, 2, "worker"), 0);
	assert_int_equal(rx_entry(rx, 1, 0, "a", 0), 0);
	assert_int_equal(rx_entry(rx, 2, 5, "w", 0), 0);
	assert_int_equal(rx_entry(rx, 1, 10, "b", 1), 0);
	assert_int_equal(rx_exit(rx, 2, "w", 0, 5, 50), 0);
	assert_int_equal(rx_exit(rx, 1, "b", 1, 10, 20), 0);
	assert_int_equal(rx_exit(rx, 1, "a", 0, 0, 40), 0);
	expect_folded(rx, "a 30\na;b 10\nw 45\n");
	json = written(rx, rx_write_chrome);
	assert_non_null(strstr(json, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,"
				     "\"args\":{\"name\":\"main \\\"x\\\"\"}}"));
	assert_non_null(strstr(json, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"tid\":2,"
				     "\"args\":{\"name\":\"worker\"}}"));
	assert_int_equal(strncmp(json, "{\"traceEvents\":[", 16), 0);
	free(json);
	rx_free(rx);
}

/* Without graph data each function event counts once under its caller. */
static void test_function_events(void **state)
{
	struct rx *rx = rx_new();

	assert_int_equal(rx_func(rx, 1, 10, "f", "main"), 0);
	assert_int_equal(rx_func(rx, 1, 20, "g", "f"), 0);
	assert_int_equal(rx_func(rx, 1, 30, "f", "main"), 0);
	expect_folded(rx, "f;g 1\nmain;f 2\n");
	rx_free(rx);
}

static void test_empty(void **state)
{
	struct rx *rx = rx_new();
	char *json;

	expect_folded(rx, "");
	json = written(rx, rx_write_chrome);
	assert_string_equal(json, "{\"traceEvents\":[\n]}\n");
	free(json);
	rx_free(rx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_self_times),
		cmocka_unit_test(test_exits_without_entries),
		cmocka_unit_test(test_entries_without_exits),
		cmocka_unit_test(test_lost_exits),
		cmocka_unit_test(test_threads_apart),
		cmocka_unit_test(test_function_events),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

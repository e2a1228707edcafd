// SPDX-License-Identifier: MIT
/*
 * test_report_export.c - the exports of `utrace report` (cmd/report_export.c) fed
 * event by event, without a trace.dat: folded stacks and their self times, the
 * Chrome JSON slices, calls cut by the start or the end of a recording, function
 * events without graph data, threads kept apart.
 */
#include <errno.h>
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

/*
 * One call of the builder: 'e' entry of NAME at DEPTH at T0, 'x' exit of NAME at
 * DEPTH called at T0 returned at T1, 'i' instant NAME at T0 on CPU DEPTH, 'f'
 * function event NAME called by PARENT at T0, 'c' comm NAME of thread TID.
 */
struct step {
	char kind;
	int tid;
	const char *name, *parent;
	int depth;
	unsigned long long t0, t1;
};

static struct rx *feed(const struct step *s, size_t n)
{
	struct rx *rx = rx_new();
	size_t i;

	assert_non_null(rx);
	for (i = 0; i < n; i++, s++) {
		int err = -1;

		switch (s->kind) {
		case 'e':
			err = rx_entry(rx, s->tid, s->t0, s->name, s->depth);
			break;
		case 'x':
			err = rx_exit(rx, s->tid, s->name, s->depth, s->t0, s->t1);
			break;
		case 'i':
			err = rx_instant(rx, s->tid, s->t0, s->name, s->depth);
			break;
		case 'f':
			err = rx_func(rx, s->tid, s->t0, s->name, s->parent);
			break;
		case 'c':
			err = rx_comm(rx, s->tid, s->name);
			break;
		}
		assert_int_equal(err, 0);
	}
	return rx;
}

#define FEED(steps) feed(steps, sizeof(steps) / sizeof(steps[0]))

static void expect_json_has(struct rx *rx, const char *const *want, size_t n)
{
	char *json = written(rx, rx_write_chrome);
	size_t i;

	assert_int_equal(strncmp(json, "{\"traceEvents\":[", 16), 0);
	for (i = 0; i < n; i++)
		if (!strstr(json, want[i]))
			fail_msg("no %s in %s", want[i], json);
	free(json);
}

static void test_nested_self_times(void **state)
{
	static const struct step steps[] = {
	    {'e', 7, "a", NULL, 0, 1000},	{'e', 7, "b", NULL, 1, 1100},
	    {'x', 7, "b", NULL, 1, 1100, 1300}, {'e', 7, "b", NULL, 1, 1400},
	    {'x', 7, "b", NULL, 1, 1400, 1500}, {'x', 7, "a", NULL, 0, 1000, 2000},
	};
	struct rx *rx = FEED(steps);

	/* a took 1000 ns, 300 of them in b: two calls of b add up */
	expect_folded(rx, "a 700\na;b 300\n");
	rx_free(rx);
}

/* Tracing started inside c, inside b, inside a: exits only, deepest first. */
static void test_exits_without_entries(void **state)
{
	static const struct step steps[] = {
	    {'x', 7, "c", NULL, 2, 100, 200}, {'e', 7, "d", NULL, 2, 250},
	    {'x', 7, "d", NULL, 2, 250, 270}, {'x', 7, "b", NULL, 1, 50, 300},
	    {'x', 7, "a", NULL, 0, 0, 1000},
	};
	/* the call whose entry is missing starts at its call time */
	static const char *const json[] = {
	    "{\"name\":\"b\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":7,\"tid\":7,"
	    "\"ts\":0.050,\"dur\":0.250}",
	};
	struct rx *rx = FEED(steps);

	expect_folded(rx, "a 750\na;b 130\na;b;c 100\na;b;d 20\n");
	expect_json_has(rx, json, 1);
	rx_free(rx);
}

/* Tracing ended inside a and c: they last until the last event seen. */
static void test_entries_without_exits(void **state)
{
	static const struct step steps[] = {
	    {'e', 7, "a", NULL, 0, 1000},
	    {'e', 7, "b", NULL, 1, 1100},
	    {'x', 7, "b", NULL, 1, 1100, 1150},
	    {'e', 7, "c", NULL, 1, 1200},
	    {'i', 8, "sched_switch", NULL, 1, 3000},
	};
	static const char *const json[] = {
	    "\"name\":\"a\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":7,\"tid\":7,"
	    "\"ts\":1.000,\"dur\":2.000,\"args\":{\"cut\":true}}",
	    "{\"name\":\"sched_switch\",\"cat\":\"event\",\"ph\":\"i\",\"s\":\"t\","
	    "\"pid\":8,\"tid\":8,\"ts\":3.000,\"args\":{\"cpu\":1}}",
	};
	struct rx *rx = FEED(steps);

	expect_folded(rx, "a 150\na;b 50\na;c 1800\n");
	expect_json_has(rx, json, 2);
	rx_free(rx);
}

/* An exit deeper calls never got (lost events) closes them too. */
static void test_lost_exits(void **state)
{
	static const struct step steps[] = {
	    {'e', 7, "a", NULL, 0, 0},
	    {'e', 7, "b", NULL, 1, 10},
	    {'x', 7, "a", NULL, 0, 0, 100},
	};
	struct rx *rx = FEED(steps);

	expect_folded(rx, "a 10\na;b 90\n");
	rx_free(rx);
}

static void test_threads_apart(void **state)
{
	static const struct step steps[] = {
	    {'c', 1, "main \"x\""},	    {'c', 2, "worker"},
	    {'e', 1, "a", NULL, 0, 0},	    {'e', 2, "w", NULL, 0, 5},
	    {'e', 1, "b", NULL, 1, 10},	    {'x', 2, "w", NULL, 0, 5, 50},
	    {'x', 1, "b", NULL, 1, 10, 20}, {'x', 1, "a", NULL, 0, 0, 40},
	};
	static const char *const json[] = {
	    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,"
	    "\"args\":{\"name\":\"main \\\"x\\\"\"}}",
	    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"tid\":2,"
	    "\"args\":{\"name\":\"worker\"}}",
	};
	struct rx *rx = FEED(steps);

	expect_folded(rx, "a 30\na;b 10\nw 45\n");
	expect_json_has(rx, json, 2);
	rx_free(rx);
}

/* Without graph data each function event counts once under its caller. */
static void test_function_events(void **state)
{
	static const struct step steps[] = {
	    {'f', 1, "f", "main", 0, 10},
	    {'f', 1, "g", "f", 0, 20},
	    {'f', 1, "f", "main", 0, 30},
	};
	struct rx *rx = FEED(steps);

	expect_folded(rx, "f;g 1\nmain;f 2\n");
	rx_free(rx);
}

/*
 * The summary: a recursive function counts its inner call again in its total, not in
 * its self time; two threads' calls of one function add up; sorted by total time.
 */
static void test_summary(void **state)
{
	static const struct step steps[] = {
	    {'e', 1, "main", NULL, 0, 0},	   {'e', 1, "fib", NULL, 1, 100},
	    {'e', 1, "fib", NULL, 2, 200},	   {'x', 1, "fib", NULL, 2, 200, 500},
	    {'x', 1, "fib", NULL, 1, 100, 900},	   {'e', 2, "fib", NULL, 0, 1000},
	    {'x', 2, "fib", NULL, 0, 1000, 3000},  {'x', 1, "main", NULL, 0, 0, 2000},
	};
	static const struct step calls[] = {
	    {'f', 1, "f", "main", 0, 10},
	    {'f', 1, "g", "f", 0, 20},
	    {'f', 1, "f", "main", 0, 30},
	};
	struct rx *rx = FEED(steps);
	char *got = written(rx, rx_write_summary);

	assert_string_equal(got, "   Total time    Self time     Avg time     Min time     Max time"
				 "       Calls  Function\n"
				 "  ===========  ===========  ===========  ===========  ==========="
				 "  ==========  ====================\n"
				 "      3.100 us      2.800 us      1.033 us    300.000 ns      2.000 us"
				 "           3  fib\n"
				 "      2.000 us      1.200 us      2.000 us      2.000 us      2.000 us"
				 "           1  main\n");
	free(got);
	/* by the shortest call, then by name */
	assert_int_equal(rx_summary_sort(rx, "min"), 0);
	got = written(rx, rx_write_summary);
	assert_non_null(strstr(got, " main\n      3.100 us"));
	free(got);
	assert_int_equal(rx_summary_sort(rx, "bogus"), -EINVAL);
	rx_free(rx);
	rx = FEED(calls);
	got = written(rx, rx_write_summary);
	assert_string_equal(got, "       Calls  Function\n"
				 "  ==========  ====================\n"
				 "           2  f\n"
				 "           1  g\n");
	free(got);
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
	    cmocka_unit_test(test_summary),
	    cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

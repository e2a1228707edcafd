// SPDX-License-Identifier: MIT
/*
 * test_event_filter.c - the event filter language (fs/event_filter.c): every filter
 * of tests/oracle/kernel_filter.out (the kernel's own answers on sched_switch)
 * gives the kernel's errno, filter file text and error_log entry; and compiled
 * filters accept and refuse records as the kernel's would.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "event_filter.h"

/* sched_switch as the kernel's format file gives it */
static const struct tfs_flt_field sched_switch[] = {
	{"common_type", 0, 2, false, UT_EVF_NUM},
	{"common_flags", 2, 1, false, UT_EVF_NUM},
	{"common_preempt_count", 3, 1, false, UT_EVF_NUM},
	{"common_pid", 4, 4, true, UT_EVF_NUM},
	{"prev_comm", 8, 16, false, UT_EVF_STR_FIXED},
	{"prev_pid", 24, 4, true, UT_EVF_NUM},
	{"prev_prio", 28, 4, true, UT_EVF_NUM},
	{"prev_state", 32, 8, true, UT_EVF_NUM},
	{"next_comm", 40, 16, false, UT_EVF_STR_FIXED},
	{"next_pid", 56, 4, true, UT_EVF_NUM},
	{"next_prio", 60, 4, true, UT_EVF_NUM},
};
#define NR_FIELDS (sizeof(sched_switch) / sizeof(sched_switch[0]))

static FILE *oracle(void)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = 0; /* BUILD/tests */
	snprintf(path, sizeof(path), "%s/../../tests/oracle/kernel_filter.out", exe);
	return fopen(path, "r");
}

/* One case of the oracle: the filter, the write's outcome and what was read back. */
struct kcase {
	char filter[512];
	int rc;
	char errtext[128];
	char f[4096]; /* the filter file (F| lines) */
	char e[4096]; /* error_log (E| lines) */
};

static int next_case(FILE *in, struct kcase *c, char *line, size_t size)
{
	char *close;

	while (line[0] != '=' && fgets(line, (int)size, in))
		;
	if (strncmp(line, "=== [", 5))
		return 0;
	memset(c, 0, sizeof(*c));
	close = strstr(line, "] rc=");
	assert_non_null(close);
	memcpy(c->filter, line + 5, (size_t)(close - line - 5));
	c->rc = atoi(close + 5);
	snprintf(c->errtext, sizeof(c->errtext), "%s", strchr(close + 5, ' ') + 1);
	c->errtext[strcspn(c->errtext, "\n")] = 0;
	while (fgets(line, (int)size, in) && strncmp(line, "=== ", 4)) {
		if (!strncmp(line, "F|", 2))
			strcat(c->f, line + 2);
		else if (!strncmp(line, "E|", 2))
			strcat(c->e, line + 2);
	}
	if (feof(in))
		line[0] = 0;
	return 1;
}

static void test_kernel_answers(void **state)
{
	FILE *in = oracle();
	char line[1024] = "", show[4096], elog[4096];
	struct kcase c;
	unsigned int cases = 0;

	assert_non_null(in);
	while (next_case(in, &c, line, sizeof(line))) {
		struct ut_evf_prog *p = NULL;
		struct tfs_flt_error e;
		size_t n = strlen(c.filter);
		int err;

		cases++;
		/* the kernel keeps the text without its trailing spaces; "0" clears */
		while (n && (c.filter[n - 1] == ' ' || c.filter[n - 1] == '\t'))
			c.filter[--n] = 0;
		if (!strcmp(c.filter, "0"))
			continue;
		err = tfs_flt_compile(c.filter, sched_switch, NR_FIELDS, &p, &e);
		if (c.rc == 0) {
			if (err)
				fail_msg("[%s]: refused (%s), the kernel takes it", c.filter,
					 tfs_flt_err_text(e.code));
			assert_non_null(p);
			free(p);
			continue;
		}
		if (!err)
			fail_msg("[%s]: taken, the kernel refuses it (%s)", c.filter, c.errtext);
		assert_null(p);
		if (strcmp(strerror(-err), c.errtext))
			fail_msg("[%s]: %s, the kernel's %s", c.filter, strerror(-err), c.errtext);
		tfs_flt_error_show(show, sizeof(show), c.filter, &e);
		strcat(show, "\n"); /* the file adds a newline to what it keeps */
		if (strcmp(show, c.f))
			fail_msg("[%s]: the filter file reads\n%s, the kernel's\n%s", c.filter, show,
				 c.f);
		snprintf(elog, sizeof(elog),
			 "[TS] event filter parse error: error: %s\n  Command: %s\n%*s^\n",
			 e.code ? tfs_flt_err_text(e.code) : "Error", c.filter, 11 + (int)e.pos, "");
		if (strcmp(elog, c.e))
			fail_msg("[%s]: error_log\n%s, the kernel's\n%s", c.filter, elog, c.e);
	}
	fclose(in);
	assert_true(cases >= 60);
}

/* A sched_switch record. */
static void rec_fill(unsigned char *r, const char *prev, int prev_pid, long state, const char *next,
		     int next_pid)
{
	memset(r, 0, 64);
	strncpy((char *)r + 8, prev, 16);
	memcpy(r + 24, &prev_pid, 4);
	memcpy(r + 32, &state, 8);
	strncpy((char *)r + 40, next, 16);
	memcpy(r + 56, &next_pid, 4);
}

static bool passes(const char *filter, const unsigned char *r, unsigned int cpu, const char *comm)
{
	struct ut_evf_prog *p;
	struct tfs_flt_error e;
	bool ok;

	if (tfs_flt_compile(filter, sched_switch, NR_FIELDS, &p, &e))
		fail_msg("[%s] does not compile: %s at %u", filter, tfs_flt_err_text(e.code), e.pos);
	ok = ut_evf_match(p, r, 64, cpu, comm);
	free(p);
	return ok;
}

static void test_matching(void **state)
{
	unsigned char r[64];

	rec_fill(r, "bash", 100, 1, "swapper/0", 0);
	assert_true(passes("prev_pid == 100", r, 0, ""));
	assert_false(passes("prev_pid != 100", r, 0, ""));
	assert_true(passes("prev_pid > 99 && prev_pid < 101", r, 0, ""));
	assert_true(passes("prev_pid == 0x64", r, 0, ""));
	assert_true(passes("prev_pid == 0144", r, 0, ""));
	assert_true(passes("prev_state & 1", r, 0, ""));
	assert_false(passes("prev_state & 2", r, 0, ""));
	/* && before ||, ! on a predicate and on a group, a trailing && */
	assert_true(passes("prev_pid == 1 || prev_pid == 100 && next_pid == 0", r, 0, ""));
	assert_false(passes("(prev_pid == 1 || prev_pid == 100) && next_pid == 5", r, 0, ""));
	assert_true(passes("prev_pid == 100 || prev_pid == 1 && next_pid == 5", r, 0, ""));
	assert_true(passes("!prev_pid == 1", r, 0, ""));
	assert_false(passes("!(prev_pid == 100 || next_pid == 7)", r, 0, ""));
	assert_true(passes("!(!(prev_pid == 100))", r, 0, ""));
	assert_true(passes("prev_pid == 100 &&", r, 0, ""));
	/* strings: ==, !=, the glob forms */
	assert_true(passes("prev_comm == \"bash\"", r, 0, ""));
	assert_true(passes("prev_comm != 'bas'", r, 0, ""));
	assert_true(passes("prev_comm ~ \"ba*\"", r, 0, ""));
	assert_true(passes("next_comm ~ \"*app*\"", r, 0, ""));
	assert_true(passes("prev_comm ~ \"b?sh\"", r, 0, ""));
	assert_true(passes("prev_comm ~ \"[a-c]ash\"", r, 0, ""));
	assert_false(passes("prev_comm ~ \"[!a-c]ash\"", r, 0, ""));
	assert_true(passes("prev_comm ~ \"!zsh\"", r, 0, ""));
	/* the kernel's suffix match compares the end of a fixed array, not of its text */
	assert_false(passes("prev_comm ~ \"*sh\"", r, 0, ""));
	/* signed and unsigned comparisons in the field's type */
	rec_fill(r, "x", -5, -1, "y", 3);
	assert_true(passes("prev_pid < 0", r, 0, ""));
	assert_true(passes("prev_pid == -5", r, 0, ""));
	assert_true(passes("prev_state < 0", r, 0, ""));
	assert_true(passes("common_type == 0", r, 0, ""));
	/* the pseudo-fields: where and by whom the event is written */
	assert_true(passes("CPU == 1 && COMM == \"worker\"", r, 1, "worker"));
	assert_false(passes("cpu != 1", r, 1, "worker"));
	assert_true(passes("comm ~ \"work*\"", r, 1, "worker"));
	/* a record shorter than a field never matches it; no program passes everything */
	{
		struct ut_evf_prog *p;
		struct tfs_flt_error e;

		assert_int_equal(tfs_flt_compile("prev_pid == -5", sched_switch, NR_FIELDS, &p, &e), 0);
		assert_true(ut_evf_match(p, r, 64, 0, ""));
		assert_false(ut_evf_match(p, r, 27, 0, ""));
		free(p);
		assert_true(ut_evf_match(NULL, r, 0, 0, ""));
	}
}

/*
 * Random expressions over four predicates (a: prev_pid == 1, b: next_pid == 1,
 * c: prev_prio == 1, d: next_prio == 1), each compiled and run on all sixteen
 * records, against a plain evaluator of the same text (C's precedence).
 */
struct rnd {
	char buf[512];
	size_t len;
	unsigned int seed;
};

static unsigned int rnd_next(struct rnd *r)
{
	r->seed = r->seed * 1103515245u + 12345u;
	return (r->seed >> 16) & 0x7fff;
}

static void rnd_put(struct rnd *r, const char *s)
{
	size_t n = strlen(s);

	memcpy(r->buf + r->len, s, n);
	r->len += n;
	r->buf[r->len] = 0;
}

static void rnd_expr(struct rnd *r, int depth)
{
	static const char *const atoms[] = {"prev_pid == 1", "next_pid == 1", "prev_prio == 1",
					    "next_prio == 1"};
	unsigned int k = rnd_next(r) % (depth > 3 ? 2 : 5);

	if (rnd_next(r) % 4 == 0)
		rnd_put(r, "!");
	if (k < 2) {
		rnd_put(r, atoms[rnd_next(r) % 4]);
	} else if (k == 2) {
		rnd_put(r, "(");
		rnd_expr(r, depth + 1);
		rnd_put(r, ")");
	} else {
		rnd_expr(r, depth + 1);
		rnd_put(r, k == 3 ? " && " : " || ");
		rnd_expr(r, depth + 1);
	}
}

/* the plain evaluator: or := and ('||' and)*; and := un ('&&' un)*; un := '!' un | '(' or ')' | atom */
struct ev {
	const char *s;
	unsigned int bits;
};

static bool ev_or(struct ev *v);

static void ev_space(struct ev *v)
{
	while (*v->s == ' ')
		v->s++;
}

static bool ev_un(struct ev *v)
{
	bool r;

	ev_space(v);
	if (*v->s == '!') {
		v->s++;
		return !ev_un(v);
	}
	if (*v->s == '(') {
		v->s++;
		r = ev_or(v);
		ev_space(v);
		v->s++; /* ) */
		return r;
	}
	r = v->bits >> (!strncmp(v->s, "prev_pid", 8)    ? 0
			: !strncmp(v->s, "next_pid", 8)  ? 1
			: !strncmp(v->s, "prev_prio", 9) ? 2
							 : 3) &
	    1;
	v->s = strstr(v->s, "== 1") + 4;
	return r;
}

static bool ev_and(struct ev *v)
{
	bool r = ev_un(v);

	for (ev_space(v); !strncmp(v->s, "&&", 2); ev_space(v)) {
		v->s += 2;
		r = ev_un(v) && r;
	}
	return r;
}

static bool ev_or(struct ev *v)
{
	bool r = ev_and(v);

	for (ev_space(v); !strncmp(v->s, "||", 2); ev_space(v)) {
		v->s += 2;
		r = ev_and(v) || r;
	}
	return r;
}

static void test_random_expressions(void **state)
{
	struct rnd r = {.seed = 7};

	for (int n = 0; n < 2000; n++) {
		struct ut_evf_prog *p;
		struct tfs_flt_error e;

		r.len = 0;
		rnd_expr(&r, 0);
		if (tfs_flt_compile(r.buf, sched_switch, NR_FIELDS, &p, &e))
			fail_msg("[%s]: %s at %u", r.buf, tfs_flt_err_text(e.code), e.pos);
		for (unsigned int bits = 0; bits < 16; bits++) {
			unsigned char rec[64] = {0};
			int one = 1;
			struct ev v = {.s = r.buf, .bits = bits};

			if (bits & 1)
				memcpy(rec + 24, &one, 4);
			if (bits & 2)
				memcpy(rec + 56, &one, 4);
			if (bits & 4)
				memcpy(rec + 28, &one, 4);
			if (bits & 8)
				memcpy(rec + 60, &one, 4);
			if (ut_evf_match(p, rec, 64, 0, "") != ev_or(&v))
				fail_msg("[%s] with a=%u b=%u c=%u d=%u", r.buf, bits & 1,
					 (bits >> 1) & 1, (bits >> 2) & 1, bits >> 3);
		}
		free(p);
	}
}

static void test_programs_move_forward(void **state)
{
	static const char *const filters[] = {
	    "prev_pid == 1 && !(next_pid > 2 || prev_prio <= 100) || next_prio == 3 && prev_pid != 4",
	    "((prev_pid == 1 || next_pid == 2) && (prev_prio == 3 || next_prio == 4)) || !common_pid "
	    "== 5",
	    "!(!(!(prev_pid == 1)))"};

	for (size_t k = 0; k < sizeof(filters) / sizeof(filters[0]); k++) {
		struct ut_evf_prog *p;
		struct tfs_flt_error e;

		assert_int_equal(tfs_flt_compile(filters[k], sched_switch, NR_FIELDS, &p, &e), 0);
		for (unsigned int i = 0; i < p->nr; i++)
			assert_true(p->p[i].target > i && p->p[i].target <= p->nr + 1 && ut_evf_valid(p, ut_evf_size(p->nr)));
		free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_answers),
		cmocka_unit_test(test_matching),
		cmocka_unit_test(test_programs_move_forward),
		cmocka_unit_test(test_random_expressions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

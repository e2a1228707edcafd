// SPDX-License-Identifier: MIT
/*
 * test_stack_trace.c - the stack tracer's table (fs/control/stack_trace.c): the
 * text of stack_trace as the kernel's t_show prints it ("%3ld) %8d   %5d   %pS",
 * each size the distance to the next frame, the last one its own depth), the
 * comment it adds while the tracer is off and nothing was measured, and the
 * reports a process may send (UT_MSG_STACK) that utracefs refuses.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "control/stack_trace.h"
#include "ut_wire.h"

#define HEAD(n)                                                                                    \
	"        Depth    Size   Location    (" #n " entries)\n"                                   \
	"        -----    ----   --------\n"

static char *table(const struct tfs_stack_max *m, bool enabled)
{
	struct tfs_buf b = {0};

	assert_int_equal(tfs_stack_table(&b, m, enabled), 0);
	return b.data;
}

static void frame(struct tfs_stack_max *m, uint64_t depth, const char *loc)
{
	m->depth[m->nr] = depth;
	snprintf(m->loc[m->nr], sizeof(m->loc[0]), "%s", loc);
	m->nr++;
}

/* The kernel's own example (ftrace.rst): its widths, sizes and last line. */
static void test_table(void **state)
{
	struct tfs_stack_max m = {.size = 4496};
	char *t;

	(void)state;
	frame(&m, 4496, "mutex_lock+0x1e/0x30");
	frame(&m, 4448, "do_sys_open+0x12b/0x1d0");
	frame(&m, 96, "entry_SYSCALL_64_after_hwframe+0x44/0xa9");
	t = table(&m, true);
	assert_string_equal(
	    t, HEAD(3) "  0)     4496      48   mutex_lock+0x1e/0x30\n"
		       "  1)     4448    4352   do_sys_open+0x12b/0x1d0\n"
		       "  2)       96      96   entry_SYSCALL_64_after_hwframe+0x44/0xa9\n");
	free(t);
}

/* Wide numbers and indices keep the kernel's minimum widths, and grow past them. */
static void test_widths(void **state)
{
	struct tfs_stack_max m = {.size = 123456789};
	char *t;

	(void)state;
	for (int i = 0; i < 12; i++)
		frame(&m, 123456789 - (uint64_t)i * 100000, "f+0x5/0x60");
	t = table(&m, true);
	assert_non_null(strstr(t, HEAD(12) "  0) 123456789   100000   f+0x5/0x60\n"));
	assert_non_null(strstr(t, "\n 11) 122356789   122356789   f+0x5/0x60\n"));
	free(t);
}

/* Off with no maximum: the kernel's comment on how to enable it; else not. */
static void test_disabled(void **state)
{
	struct tfs_stack_max m = {0};
	char *t;

	(void)state;
	t = table(&m, false);
	assert_string_equal(t,
			    HEAD(0) "#\n#  Stack tracer disabled\n#\n"
				    "# To enable the stack tracer, either add 'stacktrace' to "
				    "the\n# kernel command line\n"
				    "# or 'echo 1 > /proc/sys/kernel/stack_tracer_enabled'\n#\n");
	free(t);
	t = table(&m, true);
	assert_string_equal(t, HEAD(0));
	free(t);
	m.size = 100; /* a maximum written to stack_max_size: no comment either */
	t = table(&m, false);
	assert_string_equal(t, HEAD(0));
	free(t);
}

/* A report whose frames could not come from a stack is refused. */
static void test_bad_reports(void **state)
{
	struct ut_msg_stack m = {.h = {UT_MSG_STACK, sizeof(m)}, .size = 1000, .nr = 2};

	(void)state;
	m.ent[0].depth = 1000;
	m.ent[1].depth = 992;
	assert_int_equal(tfs_stack_msg(getpid(), &m), 0);
	m.nr = UT_STACK_MAX + 1; /* more frames than it holds */
	assert_int_equal(tfs_stack_msg(getpid(), &m), -EPROTO);
	m.nr = 2;
	m.ent[1].depth = 1000; /* not further out than the frame before */
	assert_int_equal(tfs_stack_msg(getpid(), &m), -EPROTO);
	m.ent[0].depth = 2000; /* deeper than the stack measured */
	m.ent[1].depth = 900;
	assert_int_equal(tfs_stack_msg(getpid(), &m), -EPROTO);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_table),
    cmocka_unit_test(test_widths),
    cmocka_unit_test(test_disabled),
    cmocka_unit_test(test_bad_reports),
};

int main(void)
{
	return cmocka_run_group_tests(tests, NULL, NULL);
}

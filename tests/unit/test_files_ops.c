// SPDX-License-Identifier: MIT
/*
 * test_files_ops.c - the settings files through their ops, on a real shared area:
 * buffer_size_kb (boot size, expansion, X, errnos, free_buffer), tracing_cpumask
 * (rings stop and restart), trace_options and options/NAME (per-tracer values,
 * refusals, overwrite reaching the rings), trace_clock (clears the rings),
 * trace_marker and trace_marker_raw (the events in the ring, the errnos),
 * error_log (8 entries, O_TRUNC), saved_cmdlines*, events/ and README.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core.h"
#include "settings.h"
#include "tfs.h"

#define NR_CPUS 2

/* Open-and-read: what `cat` shows of a file of the given ops (cpu: per_cpu or option index). */
static char *show(const struct tfs_file_ops *ops, int cpu, long arg)
{
	static char text[32768]; /* the README is the longest */
	struct tfs_file f = {.name = "t", .kind = TFS_FILE, .ops = ops, .arg = arg};
	struct tfs_open o = {.inst = &tfs_top, .file = &f, .cpu = cpu};

	assert_int_equal(ops->show(&o), 0);
	snprintf(text, sizeof(text), "%s", o.content.data ? o.content.data : "");
	tfs_buf_free(&o.content);
	return text;
}

/* A write(2) of text (without its NUL) to a file of the given ops. */
static ssize_t put(const struct tfs_file_ops *ops, int cpu, const char *text)
{
	struct tfs_open o = {.inst = &tfs_top, .cpu = cpu, .pid = (pid_t)gettid()};

	return ops->write(&o, text, strlen(text), 0);
}

static int option_index(const char *name)
{
	for (int i = 0; tfs_option_file_name((unsigned int)i); i++)
		if (strcmp(tfs_option_file_name((unsigned int)i), name) == 0)
			return i;
	fail_msg("no option file %s", name);
	return -1;
}

/* The last event of type on any CPU's current page, or NULL. */
static const struct ut_ev *last_event(uint8_t type)
{
	const struct ut_ev *found = NULL;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		uint64_t w = ut_rb_cpu(tfs.area, cpu)->wpos;
		const char *data = (const char *)(ut_rb_page(tfs.area, cpu, rb_wpos_slot(w)) + 1);

		for (unsigned int off = 0; off < rb_wpos_off(w);) {
			const struct ut_ev *ev = (const void *)(data + off);

			if (ev->len < sizeof(*ev))
				break;
			if (ev->type == type)
				found = ev;
			off += ev->len;
		}
	}
	return found;
}

static unsigned int entries_now(void)
{
	unsigned int n = 0;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		n += rb_wpos_entries(ut_rb_cpu(tfs.area, cpu)->wpos);
	return n;
}

/* Back to the state of a freshly booted kernel for the families tested here. */
static int reset_state(void **state)
{
	tfs_state_defaults(NR_CPUS);
	tfs_lock();
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		tfs_top.nr_kpages[cpu] = TFS_BOOT_KPAGES;
	tfs_top.buffer_expanded = false;
	tfs.saved_cmdlines_size = tfs_cmdlines_rounded(128);
	tfs_unlock();
	tfs_ring_reset(&tfs_top, -1);
	return 0;
}

/* What utracefs must look like at start (state.c's defaults). */
static void test_fresh_defaults(void **state)
{
	tfs_state_defaults(NR_CPUS);
	assert_string_equal(show(&tfs_buffer_size_ops, -1, 0), "7 (expanded: 1408)\n");
	assert_string_equal(show(&tfs_buffer_total_ops, -1, 0), "14 (expanded: 2816)\n");
	assert_string_equal(show(&tfs_buffer_size_ops, 1, 0), "7\n");
	assert_string_equal(show(&tfs_saved_cmdlines_size_ops, -1, 0), "6552\n");
	assert_string_equal(show(&tfs_cpumask_ops, -1, 0), "3\n");
	assert_string_equal(show(&tfs_trace_clock_ops, -1, 0),
			    "[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n");
}

static void test_buffer_size(void **state)
{
	assert_string_equal(show(&tfs_buffer_size_ops, -1, 0), "7 (expanded: 1408)\n");
	assert_int_equal(tfs_buffer_expand(&tfs_top), 0);
	assert_string_equal(show(&tfs_buffer_size_ops, -1, 0), "1410\n");
	assert_string_equal(show(&tfs_buffer_total_ops, -1, 0), "2820\n");
	assert_int_equal(ut_rb_cpu(tfs.area, 1)->nr_pages, tfs_kpages_to_rb_pages(354));

	assert_int_equal(put(&tfs_buffer_size_ops, 1, "100\n"), 4);
	assert_string_equal(show(&tfs_buffer_size_ops, -1, 0), "X\n");
	assert_string_equal(show(&tfs_buffer_size_ops, 1, 0), "103\n");
	assert_string_equal(show(&tfs_buffer_total_ops, -1, 0), "1513\n");
	assert_int_equal(ut_rb_cpu(tfs.area, 1)->nr_pages, tfs_kpages_to_rb_pages(26));

	/* bad writes change nothing */
	assert_int_equal(put(&tfs_buffer_size_ops, -1, "0"), -EINVAL);
	assert_int_equal(put(&tfs_buffer_size_ops, -1, "abc"), -EINVAL);
	assert_int_equal(put(&tfs_buffer_size_ops, -1, " 100"), -EINVAL);
	assert_int_equal(put(&tfs_buffer_size_ops, -1, "99999999999999999999"), -ERANGE);
	assert_int_equal(put(&tfs_buffer_size_ops, -1, "1000000000"), -ENOMEM);
	assert_string_equal(show(&tfs_buffer_size_ops, 0, 0), "1410\n");
	assert_string_equal(show(&tfs_buffer_size_ops, 1, 0), "103\n");

	assert_int_equal(put(&tfs_buffer_size_ops, -1, "+50"), 3);
	assert_string_equal(show(&tfs_buffer_size_ops, -1, 0), "51\n");
	assert_int_equal(put(&tfs_buffer_size_ops, -1, "18014398509481984"), 17);
	assert_string_equal(show(&tfs_buffer_size_ops, -1, 0), "7\n");
}

static void test_buffer_size_write_expands(void **state)
{
	/* even a refused size counts as first use, as in the kernel */
	assert_int_equal(put(&tfs_buffer_size_ops, -1, "1000000000"), -ENOMEM);
	assert_string_equal(show(&tfs_buffer_size_ops, -1, 0), "7\n");
	assert_string_equal(show(&tfs_buffer_total_ops, -1, 0), "14\n");
	assert_int_equal(tfs_buffer_expand(&tfs_top), 0); /* expanded already: nothing changes */
	assert_string_equal(show(&tfs_buffer_size_ops, -1, 0), "7\n");
}

static void test_free_buffer(void **state)
{
	struct tfs_open o = {.inst = &tfs_top, .cpu = -1};

	assert_int_equal(put(&tfs_buffer_size_ops, -1, "1408"), 4);
	assert_int_equal(tfs_free_buffer_ops.write(&o, "x", 1, 0), 1);
	assert_int_equal(tfs_free_buffer_ops.read(&o, NULL, 0, 0), -EINVAL);
	assert_string_equal(show(&tfs_buffer_size_ops, -1, 0), "1410\n"); /* not before close */
	assert_int_equal(tfs_free_buffer_ops.release(&o), 0);
	assert_string_equal(show(&tfs_buffer_size_ops, -1, 0), "7\n");
	assert_true(tfs_top.tracing_on);

	assert_int_equal(put(&tfs_option_file_ops, option_index("disable_on_free"), "1"), 1);
	assert_int_equal(tfs_free_buffer_ops.release(&o), 0);
	assert_false(tfs_top.tracing_on);
	tfs_top.tracing_on = true;
}

static void test_cpumask(void **state)
{
	assert_string_equal(show(&tfs_cpumask_ops, -1, 0), "3\n");
	assert_int_equal(put(&tfs_cpumask_ops, -1, "1\n"), 2);
	assert_string_equal(show(&tfs_cpumask_ops, -1, 0), "1\n");
	assert_int_equal(ut_rb_cpu(tfs.area, 0)->enabled, 1);
	assert_int_equal(ut_rb_cpu(tfs.area, 1)->enabled, 0);
	assert_int_equal(put(&tfs_cpumask_ops, -1, "4"), -EOVERFLOW);
	assert_int_equal(put(&tfs_cpumask_ops, -1, "0x3"), -EINVAL);
	assert_string_equal(show(&tfs_cpumask_ops, -1, 0), "1\n");
	assert_int_equal(put(&tfs_cpumask_ops, -1, "3"), 1);
	assert_int_equal(ut_rb_cpu(tfs.area, 1)->enabled, 1);
}

static void test_trace_options(void **state)
{
	const struct tracer *fn = tfs_tracer_find("function");
	int stack = option_index("func_stack_trace");

	assert_non_null(fn);
	assert_string_equal(show(&tfs_option_file_ops, option_index("overwrite"), 0), "1\n");
	assert_int_equal(put(&tfs_trace_options_ops, -1, "nooverwrite\n"), 12);
	assert_false(tfs_opt(&tfs_top, TFS_OPT_OVERWRITE));
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		assert_false(ut_rb_cpu(tfs.area, cpu)->flags & RB_F_OVERWRITE);
	assert_string_equal(show(&tfs_option_file_ops, option_index("overwrite"), 0), "0\n");
	assert_non_null(strstr(show(&tfs_trace_options_ops, -1, 0), "\nnooverwrite\n"));
	assert_int_equal(put(&tfs_option_file_ops, option_index("overwrite"), "1\n"), 2);
	assert_true(ut_rb_cpu(tfs.area, 0)->flags & RB_F_OVERWRITE);

	assert_int_equal(put(&tfs_trace_options_ops, -1, "bogus"), -EINVAL);
	assert_int_equal(put(&tfs_trace_options_ops, -1, "notrace_printk_dest"), -EINVAL);
	assert_int_equal(put(&tfs_option_file_ops, option_index("trace_printk_dest"), "0"), -EINVAL);
	assert_int_equal(put(&tfs_option_file_ops, option_index("print-parent"), "2"), -EINVAL);

	/* a tracer's options: only the current one's in trace_options ... */
	assert_int_equal(put(&tfs_trace_options_ops, -1, "func_stack_trace"), -EINVAL);
	assert_int_equal(put(&tfs_trace_options_ops, -1, "notest_nop_accept"), 17);
	assert_int_equal(put(&tfs_trace_options_ops, -1, "notest_nop_refuse"), -EINVAL);
	assert_int_equal(put(&tfs_option_file_ops, option_index("test_nop_refuse"), "0"), 1);
	assert_int_equal(put(&tfs_option_file_ops, option_index("test_nop_refuse"), "1"), -EINVAL);
	/* ... but every tracer's option file, kept for when it becomes current */
	assert_int_equal(put(&tfs_option_file_ops, stack, "1"), 1);
	assert_string_equal(show(&tfs_option_file_ops, stack, 0), "1\n");
	assert_true(tfs_tracer_opts_of(&tfs_top, fn) & 1);
	assert_false(tfs_tracer_opt(&tfs_top, "func_stack_trace"));
	assert_null(strstr(show(&tfs_trace_options_ops, -1, 0), "func_stack_trace"));
	assert_int_equal(put(&tfs_option_file_ops, stack, "0"), 1);
	assert_false(tfs_tracer_opts_of(&tfs_top, fn) & 1);
}

static void test_trace_clock(void **state)
{
	char raw[8] = {1, 0, 0, 0, 'a', 'b'};
	struct tfs_open o = {.inst = &tfs_top, .cpu = -1};

	assert_int_equal(tfs_trace_marker_raw_ops.write(&o, raw, sizeof(raw), 0), 8);
	assert_true(entries_now() > 0);
	assert_int_equal(put(&tfs_trace_clock_ops, -1, "  global \n"), 10);
	assert_int_equal(tfs_top.clock, TFS_CLOCK_GLOBAL);
	assert_int_equal(entries_now(), 0);
	assert_int_equal(put(&tfs_trace_clock_ops, -1, "TAI"), -EINVAL);
	assert_int_equal(put(&tfs_trace_clock_ops, -1, "[local]"), -EINVAL);
	assert_int_equal(tfs_top.clock, TFS_CLOCK_GLOBAL);
	assert_int_equal(put(&tfs_trace_clock_ops, -1, "tai"), 3);
	assert_int_equal(tfs_top.clock, TFS_CLOCK_TAI);
	assert_int_equal(put(&tfs_trace_clock_ops, -1, "local"), 5);
}

/* The kernel's ring-buffer bytes for an entry of `data` bytes (header, length word, 4-byte alignment). */
static unsigned int kernel_event(unsigned int data)
{
	if (data > 28 * 4)
		data += 4;
	return (data + 4 + 3) & ~3u;
}

/* Some length of ours (a multiple of 8, at least min_len) puts count events in a page. */
static bool count_possible(unsigned int min_len, unsigned int count)
{
	for (unsigned int u = (min_len + 7) & ~7u; u <= UT_RB_PAGE_DATA; u += 8)
		if (UT_RB_PAGE_DATA / u == count)
			return true;
	return false;
}

/*
 * ev holds a text or payload whose kernel entry takes kdata bytes: as many fill
 * one of our pages as the kernel's fill one of its own, or where no length of
 * ours can give that, the nearest count below.
 */
static void check_per_page(const struct ut_ev *ev, unsigned int min_len, unsigned int kdata)
{
	unsigned int want = UT_KERNEL_PAGE_DATA / kernel_event(kdata);
	unsigned int got = UT_RB_PAGE_DATA / ev->len;

	assert_int_equal(ev->len % 8, 0);
	assert_true(ev->len >= min_len);
	assert_true(got <= want);
	if (count_possible(min_len, want))
		assert_int_equal(got, want);
	else
		for (unsigned int c = got + 1; c < want; c++)
			assert_false(count_possible(min_len, c));
}

/* The last event written on CPU 0. */
static const struct ut_ev *last_on_cpu0(void)
{
	uint64_t w = ut_rb_cpu(tfs.area, 0)->wpos;
	const char *data = (const char *)(ut_rb_page(tfs.area, 0, rb_wpos_slot(w)) + 1);
	const struct ut_ev *ev = NULL;

	for (unsigned int off = 0; off < rb_wpos_off(w); off += ev->len)
		ev = (const void *)(data + off);
	return ev;
}

/*
 * trace_marker and trace_marker_raw events fill a page as the kernel's do, at
 * every length: what buffer_size_kb holds is then the same number of events.
 */
static void test_marker_per_page(void **state)
{
	static char text[UT_PRINT_MAX + 8];
	struct tfs_open o = {.inst = &tfs_top, .cpu = -1, .pid = (pid_t)gettid()};
	const struct ut_ev *ev;
	cpu_set_t old, one;

	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0); /* our writes go to CPU 0 */
	memset(text, 'm', sizeof(text));
	for (unsigned int len = 1; len <= tfs_marker_max(); len++) {
		assert_int_equal(tfs_trace_marker_ops.write(&o, text, len, 0), (ssize_t)len);
		ev = last_on_cpu0();
		assert_non_null(ev);
		assert_int_equal(ev->type, UT_EV_PRINT);
		/* the text, the newline added, the NUL; the kernel: entry, text, newline, NUL */
		check_per_page(ev, sizeof(struct ut_ev_marker) + len + 2, 16 + len + 2);
		if (len == 64)
			assert_int_equal(UT_RB_PAGE_DATA / ev->len, 46);
		if (len == 255)
			assert_int_equal(UT_RB_PAGE_DATA / ev->len, 14);
	}
	for (unsigned int size = 4; size <= tfs_marker_raw_max(); size++) {
		assert_int_equal(tfs_trace_marker_raw_ops.write(&o, text, size, 0), (ssize_t)size);
		ev = last_on_cpu0();
		assert_non_null(ev);
		assert_int_equal(ev->type, UT_EV_RAW_DATA);
		assert_int_equal(((const struct ut_ev_raw *)ev)->size, size - 4);
		/* the kernel: entry, the 4-byte id, the payload */
		check_per_page(ev, sizeof(struct ut_ev_raw) + size - 4, 12 + size - 4);
	}
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
}

static void test_trace_marker(void **state)
{
	const struct ut_ev_marker *p;
	const struct ut_ev_raw *r;
	char big[5000];
	struct tfs_open o = {.inst = &tfs_top, .cpu = -1, .pid = 4242};

	assert_int_equal(tfs_trace_marker_ops.write(&o, "hi", 2, 0), 2);
	p = (const void *)last_event(UT_EV_PRINT);
	assert_non_null(p);
	assert_string_equal(p->buf, "hi\n");
	assert_int_equal(p->h.tid, 4242);
	assert_int_equal(ut_ev_print_ip(&p->h), UT_IP_MARKER);
	/* "hi" got its newline from us: marked so that `bytes` counts as the kernel's */
	assert_int_equal(p->h.flags, UT_EVF_PREEMPT1 | UT_EVF_NL_ADDED | UT_EVF_MARKER);
	assert_int_equal(tfs_trace_marker_ops.write(&o, "ho\n", 3, 0), 3);
	p = (const void *)last_event(UT_EV_PRINT);
	assert_string_equal(p->buf, "ho\n");
	assert_int_equal(p->h.flags, UT_EVF_PREEMPT1 | UT_EVF_MARKER);
	memset(big, 'x', sizeof(big));
	assert_int_equal(tfs_trace_marker_ops.write(&o, big, sizeof(big), 0), tfs_marker_max());
	p = (const void *)last_event(UT_EV_PRINT);
	assert_int_equal(strlen(p->buf), tfs_marker_max() + 1);

	assert_int_equal(tfs_trace_marker_raw_ops.write(&o, "\x34\x12\0\0hello", 9, 0), 9);
	r = (const void *)last_event(UT_EV_RAW_DATA);
	assert_non_null(r);
	assert_int_equal(r->id, 0x1234);
	assert_int_equal(r->size, 5);
	assert_memory_equal(r->buf, "hello", 5);
	assert_int_equal(tfs_trace_marker_raw_ops.write(&o, "abc", 3, 0), -EINVAL);
	assert_int_equal(tfs_trace_marker_raw_ops.write(&o, big, tfs_marker_raw_max() + 1, 0),
			 -EINVAL);
	assert_int_equal(tfs_trace_marker_raw_ops.write(&o, big, tfs_marker_raw_max(), 0),
			 tfs_marker_raw_max());

	tfs_top.tracing_on = false;
	assert_int_equal(tfs_trace_marker_ops.write(&o, "off", 3, 0), -EBADF);
	assert_int_equal(tfs_trace_marker_raw_ops.write(&o, "abcd", 4, 0), -EBADF);
	tfs_top.tracing_on = true;
	assert_int_equal(put(&tfs_cpumask_ops, -1, "0"), 1);
	assert_int_equal(tfs_trace_marker_ops.write(&o, "nocpu", 5, 0), -EBADF);
	assert_int_equal(put(&tfs_cpumask_ops, -1, "3"), 1);
	assert_int_equal(put(&tfs_trace_options_ops, -1, "nomarkers"), 9);
	assert_int_equal(tfs_trace_marker_ops.write(&o, "x", 1, 0), -EINVAL);
	assert_int_equal(tfs_trace_marker_raw_ops.write(&o, "abcd", 4, 0), -EINVAL);
	assert_int_equal(tfs_trace_marker_ops.read(&o, big, 10, 0), -EINVAL);
}

static void test_error_log(void **state)
{
	char msg[16];
	struct tfs_open o = {.inst = &tfs_top, .cpu = -1};
	const char *text;

	tfs_error_log_ops.truncate(&o);
	assert_string_equal(show(&tfs_error_log_ops, -1, 0), "");
	for (int i = 0; i < 10; i++) {
		snprintf(msg, sizeof(msg), "bad %d", i);
		tfs_error_log(&tfs_top, "loc", msg, "cmd", 1);
	}
	text = show(&tfs_error_log_ops, -1, 0);
	/* the last 8, oldest first */
	assert_null(strstr(text, "bad 1\n"));
	assert_non_null(strstr(text, "] loc: error: bad 2\n  Command: cmd\n            ^\n["));
	assert_non_null(strstr(text, "bad 9\n"));
	int n = 0;

	for (const char *s = text; (s = strstr(s, "  Command: ")); s++)
		n++;
	assert_int_equal(n, 8);
	assert_int_equal(tfs_error_log_ops.write(&o, "x", 1, 0), 1);
	assert_int_equal(tfs_error_log_ops.truncate(&o), 0);
	assert_string_equal(show(&tfs_error_log_ops, -1, 0), "");
}

static void test_saved_cmdlines(void **state)
{
	assert_int_equal(put(&tfs_saved_cmdlines_size_ops, -1, "1\n"), 2);
	assert_string_equal(show(&tfs_saved_cmdlines_size_ops, -1, 0), "6552\n");
	assert_int_equal(put(&tfs_saved_cmdlines_size_ops, -1, "6553"), 4);
	assert_string_equal(show(&tfs_saved_cmdlines_size_ops, -1, 0), "19659\n");
	assert_int_equal(put(&tfs_saved_cmdlines_size_ops, -1, "0"), -EINVAL);
	assert_int_equal(put(&tfs_saved_cmdlines_size_ops, -1, "32769"), -EINVAL);
	assert_int_equal(put(&tfs_saved_cmdlines_size_ops, -1, "abc"), -EINVAL);
	assert_string_equal(show(&tfs_saved_cmdlines_size_ops, -1, 0), "19659\n");

	assert_int_equal(tfs_task_record(300, 299, "later"), 0);
	assert_int_equal(tfs_task_record(100, 99, "first"), 0);
	assert_non_null(strstr(show(&tfs_saved_cmdlines_ops, -1, 0), "300 later\n"));
	assert_non_null(strstr(show(&tfs_saved_cmdlines_ops, -1, 0), "100 first\n"));
	assert_string_equal(show(&tfs_saved_tgids_ops, -1, 0), ""); /* record-tgid never set */
	assert_int_equal(put(&tfs_trace_options_ops, -1, "record-tgid"), 11);
	assert_string_equal(show(&tfs_saved_tgids_ops, -1, 0), "100 99\n300 299\n");
}

static void test_events(void **state)
{
	assert_string_equal(show(&tfs_event_format_ops, -1, UT_EV_PRINT),
			    "name: print\nID: 5\nformat:\n"
			    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
			    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
			    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
			    "\n"
			    "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
			    "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n"
			    "\n"
			    "print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n");
	assert_non_null(strstr(show(&tfs_event_format_ops, -1, UT_EV_RAW_DATA),
			       "\tfield:unsigned int id;\toffset:8;\tsize:4;\tsigned:0;\n"
			       "\tfield:char buf[];\toffset:12;\tsize:0;\tsigned:0;\n"));
	assert_non_null(strstr(show(&tfs_event_format_ops, -1, UT_EV_FUNCTION), "\nID: 1\n"));
	assert_non_null(strstr(show(&tfs_event_format_ops, -1, UT_EV_KERNEL_STACK), "caller[8]"));
	assert_non_null(strstr(show(&tfs_header_page_ops, -1, 0),
			       "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n"));
	assert_non_null(strstr(show(&tfs_header_event_ops, -1, 0), "\ttime_stamp : type == 31\n"));
}

/* README names every file of the root (files.c's table). */
static void test_readme(void **state)
{
	const char *text = show(&tfs_readme_ops, -1, 0);

	assert_int_equal(strncmp(text, "utrace tracing mini-HOWTO:\n\n", 28), 0);
	for (const struct tfs_file *f = tfs_root.children; f && f->name; f++) {
		char want[64];

		if (strcmp(f->name, "README") == 0)
			continue;
		snprintf(want, sizeof(want), "  %s%s", f->name, f->kind == TFS_DIR ? "/" : "");
		if (!strstr(text, want))
			fail_msg("README does not describe %s", f->name);
	}
}

static int group_setup(void **state)
{
	tfs_clock_init();
	tfs_state_defaults(NR_CPUS);
	return tfs_area_init(NR_CPUS);
}

static int group_teardown(void **state)
{
	tfs_area_fini();
	return 0;
}

#define T(f) cmocka_unit_test_setup(f, reset_state)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh_defaults),
		T(test_buffer_size),
		T(test_buffer_size_write_expands),
		T(test_free_buffer),
		T(test_cpumask),
		T(test_trace_options),
		T(test_trace_clock),
		T(test_trace_marker),
		T(test_marker_per_page),
		T(test_error_log),
		T(test_saved_cmdlines),
		T(test_events),
		T(test_readme),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

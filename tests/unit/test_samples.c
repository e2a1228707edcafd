// SPDX-License-Identifier: MIT
/*
 * test_samples.c - the hwlat, osnoise and timerlat tracers' text and binary
 * forms and their files' rules: the sample lines against the kernel's formats
 * (ftrace.rst's hwlat example line, trace_output.c's osnoise and timerlat
 * formats), option raw, the kernel entries trace_pipe_raw carries, the
 * events/ftrace formats as this machine's kernel prints them, the osnoise and
 * timerlat headers, and hwlat_detector/ and osnoise/ (bounds, errnos, lists).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "le_bytes.h"
#include "output/output.h"
#include "settings.h"
#include "tracers/sampling.h"
#include "tracers/tracers.h"
#include "top_fixture.h"

static int setup(void **state)
{
	return top_setup(&tfs_hwlat_tracer);
}

static const char *line(const struct ut_ev *ev)
{
	struct tfs_iter it = {.inst = &tfs_top};
	struct tfs_event e = {.ev = ev, .cpu = 1, .ts = 678473449123ull};

	tfs_buf_reset(&b);
	assert_int_equal(tfs_out_line(&it, &e, &b), 0);
	return b.data;
}

static struct ut_ev_hwlat hwlat_sample(void)
{
	struct ut_ev_hwlat h;

	memset(&h, 0, sizeof(h));
	h.h = (struct ut_ev){.len = sizeof(h), .type = UT_EV_HWLAT, .flags = UT_EVF_SIGBLOCKED,
			     .tid = 1729};
	h.seqnum = 1;
	h.duration = 11;
	h.outer_duration = 12;
	h.tv_sec = 1581527483;
	h.tv_nsec = 343962693;
	h.count = 6;
	return h;
}

/* ftrace.rst's first hwlat line, with the migrate-disable column of 6.x kernels. */
static void test_hwlat_line(void **state)
{
	struct ut_ev_hwlat h = hwlat_sample();

	assert_string_equal(line(&h.h), "           <...>-1729    [001] d....   678.473449: #1     "
					"inner/outer(us):   11/12    ts:1581527483.343962693 count:6\n");
	h.nmi_count = 1;
	h.nmi_total_ts = 7;
	h.seqnum = 10;
	assert_non_null(strstr(line(&h.h), ": #10    inner/outer(us):   11/12    "
					   "ts:1581527483.343962693 count:6 nmi-total:7 nmi-count:1\n"));
	opt(TFS_OPT_RAW, true);
	assert_string_equal(line(&h.h), "1729 1 678473449123 11 12 1581527483 343962693 10\n");
	opt(TFS_OPT_RAW, false);
}

static void test_osnoise_line(void **state)
{
	struct ut_ev_osnoise n;

	memset(&n, 0, sizeof(n));
	n.h = (struct ut_ev){.len = sizeof(n), .type = UT_EV_OSNOISE, .tid = 859};
	n.runtime = 1000000;
	n.noise = 190;
	n.max_sample = 9;
	n.hw_count = 18;
	n.irq_count = 1007;
	n.softirq_count = 18;
	n.thread_count = 1;
	/* 99.98100: what stays of the runtime, to five decimals */
	assert_string_equal(line(&n.h), "           <...>-859     [001] .....   678.473449: 1000000 "
					"       190  99.98100       9     18      0   1007     18      1\n");
	opt(TFS_OPT_RAW, true);
	assert_string_equal(line(&n.h), "859 1 678473449123 1000000 190 9 18 0 1007 18 1\n");
	opt(TFS_OPT_RAW, false);
}

static void test_timerlat_line(void **state)
{
	struct ut_ev_timerlat t = {.h = {.len = sizeof(t), .type = UT_EV_TIMERLAT, .tid = 42},
				   .seqnum = 3,
				   .context = 1,
				   .timer_latency = 4912};

	assert_string_equal(line(&t.h), "           <...>-42      [001] .....   678.473449: #3     "
					"context thread timer_latency      4912 ns\n");
	opt(TFS_OPT_RAW, true);
	assert_string_equal(line(&t.h), "42 1 678473449123 3 1 4912\n");
	opt(TFS_OPT_RAW, false);
}

static void test_headers(void **state)
{
	struct tfs_iter it = {.inst = &tfs_top};

	tfs_buf_reset(&b);
	tfs_out_timerlat_header(&it, &b);
	assert_string_equal(
	    b.data, "#                                _-----=> irqs-off\n"
		    "#                               / _----=> need-resched\n"
		    "#                              | / _---=> hardirq/softirq\n"
		    "#                              || / _--=> preempt-depth\n"
		    "#                              ||| / _-=> migrate-disable\n"
		    "#                              |||| /     delay\n"
		    "#                              |||||            ACTIVATION\n"
		    "#           TASK-PID      CPU# |||||   TIMESTAMP   ID            CONTEXT          "
		    "       LATENCY\n"
		    "#              | |         |   |||||      |         |                  |          "
		    "             |\n");
	tfs_buf_reset(&b);
	tfs_out_osnoise_header(&it, &b);
	assert_non_null(strstr(b.data, "#           TASK-PID      CPU# |||||   TIMESTAMP    IN US    "
				       "   IN US  AVAILABLE  IN US     HW    NMI    IRQ   SIRQ THREAD\n"));
	assert_int_equal(tfs_osnoise_tracer.print_header, tfs_out_osnoise_header);
}

/* The entries trace_pipe_raw carries: the layout of events/ftrace/X/format. */
static void test_kernel_entries(void **state)
{
	unsigned char out[128];
	struct ut_ev_hwlat h = hwlat_sample();
	struct ut_ev_osnoise n = {.h = {.type = UT_EV_OSNOISE, .tid = 7}, .noise = 5, .runtime = 6,
				  .max_sample = 4, .hw_count = 1, .nmi_count = 2, .irq_count = 3,
				  .softirq_count = 8, .thread_count = 9};
	struct ut_ev_timerlat t = {.h = {.type = UT_EV_TIMERLAT, .tid = 7}, .seqnum = 2,
				   .context = 1, .timer_latency = 77};

	assert_int_equal(tfs_kfmt_entry(&tfs_top, &h.h, out, sizeof(out)), 64);
	assert_int_equal(get32(out) & 0xffff, 16);
	assert_int_equal(out[2], 0x01); /* irqs off */
	assert_int_equal(get32(out + 4), 1729);
	assert_int_equal(get64(out + 8), 11);
	assert_int_equal(get64(out + 16), 12);
	assert_int_equal(get64(out + 32), 1581527483);
	assert_int_equal(get64(out + 40), 343962693);
	assert_int_equal(get32(out + 52), 1);
	assert_int_equal(get32(out + 56), 6);
	assert_int_equal(tfs_kfmt_entry(&tfs_top, &n.h, out, sizeof(out)), 56);
	assert_int_equal(get32(out) & 0xffff, 17);
	assert_int_equal(get64(out + 8), 5);
	assert_int_equal(get64(out + 16), 6);
	assert_int_equal(get64(out + 24), 4);
	assert_int_equal(get32(out + 32), 1);
	assert_int_equal(get32(out + 40), 3);
	assert_int_equal(get32(out + 48), 9);
	assert_int_equal(tfs_kfmt_entry(&tfs_top, &t.h, out, sizeof(out)), 24);
	assert_int_equal(get32(out) & 0xffff, 18);
	assert_int_equal(get32(out + 8), 2);
	assert_int_equal(get32(out + 12), 1);
	assert_int_equal(get64(out + 16), 77);
	/* as many to a page as the kernel's: 68-byte records, 60 to its 4080 bytes */
	assert_int_equal(tfs_kfmt_size(&h.h), 68);
}

static char *show(const struct tfs_file_ops *ops, long arg)
{
	static char text[4096];
	struct tfs_file f = {.name = "t", .kind = TFS_FILE, .ops = ops, .arg = arg};
	struct tfs_open o = {.inst = &tfs_top, .file = &f, .cpu = -1};

	assert_int_equal(ops->show(&o), 0);
	snprintf(text, sizeof(text), "%s", o.content.data ? o.content.data : "");
	tfs_buf_free(&o.content);
	return text;
}

static ssize_t put(const struct tfs_file_ops *ops, long arg, const char *text)
{
	struct tfs_file f = {.name = "t", .kind = TFS_FILE, .ops = ops, .arg = arg};
	struct tfs_open o = {.inst = &tfs_top, .file = &f, .cpu = -1};

	return ops->write(&o, text, strlen(text), 0);
}

/* events/ftrace/hwlat/format as this machine's 6.18 kernel prints it. */
static void test_event_format(void **state)
{
	assert_string_equal(
	    show(&tfs_event_format_ops, UT_EV_HWLAT),
	    "name: hwlat\nID: 16\nformat:\n"
	    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	    "\tfield:u64 duration;\toffset:8;\tsize:8;\tsigned:0;\n"
	    "\tfield:u64 outer_duration;\toffset:16;\tsize:8;\tsigned:0;\n"
	    "\tfield:u64 nmi_total_ts;\toffset:24;\tsize:8;\tsigned:0;\n"
	    "\tfield:s64 tv_sec;\toffset:32;\tsize:8;\tsigned:1;\n"
	    "\tfield:long tv_nsec;\toffset:40;\tsize:8;\tsigned:1;\n"
	    "\tfield:unsigned int nmi_count;\toffset:48;\tsize:4;\tsigned:0;\n"
	    "\tfield:unsigned int seqnum;\toffset:52;\tsize:4;\tsigned:0;\n"
	    "\tfield:unsigned int count;\toffset:56;\tsize:4;\tsigned:0;\n\n"
	    "print fmt: \"cnt:%u\\tts:%010llu.%010lu\\tinner:%llu\\touter:%llu\\tcount:%d\\tnmi-ts:%llu"
	    "\\tnmi-count:%u\\n\", REC->seqnum, REC->tv_sec, REC->tv_nsec, REC->duration, "
	    "REC->outer_duration, REC->count, REC->nmi_total_ts, REC->nmi_count\n");
	assert_non_null(strstr(show(&tfs_event_format_ops, UT_EV_TIMERLAT),
			       "\tfield:u64 timer_latency;\toffset:16;\tsize:8;\tsigned:0;\n\n"
			       "print fmt: \"seq:%u\\tcontext:%d\\ttimer_latency:%llu\\n\", "
			       "REC->seqnum, REC->context, REC->timer_latency\n"));
}

/* width <= window both ways, kstrtoull's errnos, "%llu\n". */
static void test_min_max(void **state)
{
	long width = (long)&tfs_hwlat_width, window = (long)&tfs_hwlat_window;

	assert_string_equal(show(&tfs_min_max_ops, width), "500000\n");
	assert_string_equal(show(&tfs_min_max_ops, window), "1000000\n");
	assert_int_equal(put(&tfs_min_max_ops, width, "1000001\n"), -EINVAL);
	assert_int_equal(put(&tfs_min_max_ops, window, "499999"), -EINVAL);
	assert_int_equal(put(&tfs_min_max_ops, width, " 5"), -EINVAL);
	assert_int_equal(put(&tfs_min_max_ops, width, "99999999999999999999999"), -ERANGE);
	assert_int_equal(put(&tfs_min_max_ops, width, "1000000\n"), 8);
	assert_string_equal(show(&tfs_min_max_ops, width), "1000000\n");
	assert_int_equal(put(&tfs_min_max_ops, width, "500000"), 6);
	/* timerlat_period_us: 100 us to 1 s */
	assert_int_equal(put(&tfs_min_max_ops, (long)&tfs_osn_timerlat_period, "99"), -EINVAL);
	assert_int_equal(put(&tfs_min_max_ops, (long)&tfs_osn_timerlat_period, "1000001"), -EINVAL);
	assert_int_equal(put(&tfs_min_max_ops, (long)&tfs_osn_timerlat_period, "100"), 3);
	assert_int_equal(put(&tfs_min_max_ops, (long)&tfs_osn_timerlat_period, "1000"), 4);
}

static void test_mode_and_options(void **state)
{
	assert_string_equal(show(&tfs_hwlat_mode_ops, 0), "none [round-robin] per-cpu \n");
	assert_int_equal(put(&tfs_hwlat_mode_ops, 0, "per-cpu\n"), 8);
	assert_string_equal(show(&tfs_hwlat_mode_ops, 0), "none round-robin [per-cpu] \n");
	assert_int_equal(put(&tfs_hwlat_mode_ops, 0, "percpu"), -EINVAL);
	assert_int_equal(put(&tfs_hwlat_mode_ops, 0, "round-robin"), 11);

	const char *def = "DEFAULTS OSNOISE_WORKLOAD NO_PANIC_ON_STOP NO_OSNOISE_PREEMPT_DISABLE "
			  "NO_OSNOISE_IRQ_DISABLE NO_TIMERLAT_ALIGN \n";

	assert_string_equal(show(&tfs_osnoise_options_ops, 0), def);
	assert_int_equal(put(&tfs_osnoise_options_ops, 0, "PANIC_ON_STOP\n"), 14);
	assert_string_equal(show(&tfs_osnoise_options_ops, 0),
			    "NO_DEFAULTS OSNOISE_WORKLOAD PANIC_ON_STOP NO_OSNOISE_PREEMPT_DISABLE "
			    "NO_OSNOISE_IRQ_DISABLE NO_TIMERLAT_ALIGN \n");
	assert_int_equal(put(&tfs_osnoise_options_ops, 0, "NO_DEFAULTS"), -EINVAL);
	assert_int_equal(put(&tfs_osnoise_options_ops, 0, "PANIC"), -EINVAL);
	assert_int_equal(put(&tfs_osnoise_options_ops, 0, "DEFAULTS"), 8);
	assert_string_equal(show(&tfs_osnoise_options_ops, 0), def);
}

static void test_cpulist(void **state)
{
	uint64_t m[TFS_CPUMASK_WORDS];

	assert_int_equal(tfs_cpulist_parse("0-2,5\n", 6, 8, m), 0);
	assert_int_equal(m[0], 0x27);
	assert_int_equal(tfs_cpulist_parse("\n", 1, 8, m), 0);
	assert_int_equal(m[0], 0);
	assert_int_equal(tfs_cpulist_parse("3-1", 3, 8, m), -EINVAL);
	assert_int_equal(tfs_cpulist_parse("1,x", 3, 8, m), -EINVAL);
	assert_int_equal(tfs_cpulist_parse("8", 1, 8, m), -ERANGE);
	assert_int_equal(tfs_cpulist_parse("0-8", 3, 8, m), -ERANGE);
	assert_string_equal(show(&tfs_osnoise_cpus_ops, 0), "0-1\n");
	assert_int_equal(put(&tfs_osnoise_cpus_ops, 0, "1"), 1);
	assert_string_equal(show(&tfs_osnoise_cpus_ops, 0), "1\n");
	assert_int_equal(put(&tfs_osnoise_cpus_ops, 0, "2"), -ERANGE);
	assert_int_equal(put(&tfs_osnoise_cpus_ops, 0, "0,1"), 3);
	assert_string_equal(show(&tfs_osnoise_cpus_ops, 0), "0-1\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_hwlat_line, setup),
	    cmocka_unit_test_setup(test_osnoise_line, setup),
	    cmocka_unit_test_setup(test_timerlat_line, setup),
	    cmocka_unit_test_setup(test_headers, setup),
	    cmocka_unit_test_setup(test_kernel_entries, setup),
	    cmocka_unit_test_setup(test_event_format, setup),
	    cmocka_unit_test_setup(test_min_max, setup),
	    cmocka_unit_test_setup(test_mode_and_options, setup),
	    cmocka_unit_test_setup(test_cpulist, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

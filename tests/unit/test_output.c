// SPDX-License-Identifier: MIT
/*
 * test_output.c - the text of headers and lines (fs/output/, fs/tracers/) for
 * each option combination, against lines the kernel printed on this machine's
 * /sys/kernel/tracing (nop tracer, trace_marker, trace_marker_raw) and against
 * the kernel's formats for function and stack events, whose addresses resolve
 * in this test's own process.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "latency.h"
#include "le_bytes.h"
#include "output/output.h"
#include "printk_fmt.h"
#include "settings.h"
#include "tracers/tracers.h"
#include "top_fixture.h"

/* A function to trace: its address is known, its name is in .symtab. */
__attribute__((noinline, used)) int out_anchor(int x)
{
	return x * 3 + 1;
}
__attribute__((noinline, used)) int out_caller(int x)
{
	return out_anchor(x) + 2;
}

static int setup(void **state)
{
	return top_setup(&tfs_nop_tracer);
}

/*
 * A trace_marker event as utracefs writes it, in the marker form (no ip): tid
 * 5456, cpu 0, 671.014606 s.
 */
static union {
	struct ut_ev_marker p;
	unsigned char raw[256];
} marker;

static struct tfs_event marker_event(const char *text)
{
	struct tfs_event e = {.ev = &marker.p.h, .cpu = 0, .ts = 671014606123ull};

	memset(&marker, 0, sizeof(marker));
	marker.p.h.type = UT_EV_PRINT;
	marker.p.h.flags = UT_EVF_PREEMPT1 | UT_EVF_MARKER;
	marker.p.h.tid = 5456;
	strcpy(marker.p.buf, text);
	marker.p.h.len = (uint16_t)((sizeof(marker.p) + strlen(text) + 1 + 7) & ~7u);
	return e;
}

static const char *line(struct tfs_iter *it, const struct tfs_event *e)
{
	tfs_buf_reset(&b);
	assert_int_equal(tfs_out_line(it, e, &b), 0);
	return b.data;
}

static void test_marker_lines(void **state)
{
	struct tfs_iter it = {.inst = &tfs_top};
	struct tfs_event e = marker_event("hi\n");

	/* each expected line was printed by the kernel for `echo hi > trace_marker` */
	assert_string_equal(line(&it, &e),
			    "           <...>-5456    [000] ...1.   671.014606: tracing_mark_write: hi\n");
	opt(TFS_OPT_IRQ_INFO, false);
	assert_string_equal(line(&it, &e),
			    "           <...>-5456    [000]    671.014606: tracing_mark_write: hi\n");
	opt(TFS_OPT_RECORD_TGID, true);
	assert_string_equal(line(&it, &e),
			    "           <...>-5456    (-------) [000]    671.014606: tracing_mark_write: hi\n");
	opt(TFS_OPT_IRQ_INFO, true);
	assert_string_equal(line(&it, &e),
			    "           <...>-5456    (-------) [000] ...1.   671.014606: tracing_mark_write: hi\n");
	opt(TFS_OPT_CONTEXT_INFO, false);
	assert_string_equal(line(&it, &e), "tracing_mark_write: hi\n");
	opt(TFS_OPT_CONTEXT_INFO, true);
	opt(TFS_OPT_RECORD_TGID, false);
	/* the kernel adds the newline a marker write lacks */
	e = marker_event("x");
	assert_string_equal(line(&it, &e),
			    "           <...>-5456    [000] ...1.   671.014606: tracing_mark_write: x\n");
	/* raw: "pid cpu ts # ip text", the ip being utracefs's write op */
	char want[128];

	opt(TFS_OPT_RAW, true);
	e = marker_event("hi\n");
	snprintf(want, sizeof(want), "5456 0 671014606123 # %" PRIx64 " hi\n", tfs_marker_ip());
	assert_string_equal(line(&it, &e), want);
	opt(TFS_OPT_RAW, false);
	/* sym-addr and sym-offset: the kernel's layout around the same name */
	opt(TFS_OPT_SYM_ADDR, true);
	snprintf(want, sizeof(want),
		 "           <...>-5456    [000] ...1.   671.014606: tracing_mark_write <%016" PRIx64
		 ">: hi\n",
		 tfs_marker_ip());
	assert_string_equal(line(&it, &e), want);
	opt(TFS_OPT_SYM_ADDR, false);
	opt(TFS_OPT_SYM_OFFSET, true);
	assert_non_null(strstr(line(&it, &e), ": tracing_mark_write+0x0/0x"));
	opt(TFS_OPT_SYM_OFFSET, false);
	opt(TFS_OPT_PRINTK_MSG_ONLY, true);
	assert_string_equal(line(&it, &e), "hi\n");
}

static void test_flags_and_time(void **state)
{
	struct tfs_iter it = {.inst = &tfs_top};
	struct tfs_event e = marker_event("a\n");

	marker.p.h.flags = UT_EVF_MARKER | UT_EVF_SIGBLOCKED | UT_EVF_SIGHANDLER;
	e.cpu = 1;
	e.ts = 999999500ull; /* rounds up to the next second, as ns2usecs */
	assert_string_equal(line(&it, &e),
			    "           <...>-5456    [001] d.h..     1.000000: tracing_mark_write: a\n");
	tfs_top.clock = TFS_CLOCK_COUNTER;
	e.ts = 1234567;
	assert_string_equal(line(&it, &e),
			    "           <...>-5456    [001] d.h..      1234567: tracing_mark_write: a\n");
}

static void test_latency_line(void **state)
{
	struct tfs_iter it = {.inst = &tfs_top, .lat_fmt = true};
	struct tfs_event e = marker_event("hi\n");

	/* the kernel printed this 408237840 us after its last reset */
	it.time_start = e.ts - 408237840000ull;
	it.next_ts = e.ts;
	assert_string_equal(line(&it, &e),
			    "   <...>-5456      0...1. 408237840us : tracing_mark_write: hi\n");
	it.next_ts = e.ts + 150000; /* 150 us to the next event: '!' */
	assert_string_equal(line(&it, &e),
			    "   <...>-5456      0...1. 408237840us!: tracing_mark_write: hi\n");
	assert_int_equal(tfs_out_mark(1000000001ull), '$');
	assert_int_equal(tfs_out_mark(10001ull), '+');
	assert_int_equal(tfs_out_mark(10000ull), ' ');
}

static void test_raw_data(void **state)
{
	union {
		struct ut_ev_raw r;
		unsigned char b[64];
	} u;
	struct tfs_iter it = {.inst = &tfs_top};
	struct tfs_event e = {.ev = &u.r.h, .cpu = 1, .ts = 820094216000ull};

	memset(&u, 0, sizeof(u));
	u.r.h = (struct ut_ev){.len = 32, .type = UT_EV_RAW_DATA, .flags = UT_EVF_PREEMPT1,
			       .tid = 8574};
	u.r.id = 1;
	u.r.size = 2;
	memcpy(u.r.buf, "ab", 2);
	/* the kernel shows the entry's padding too */
	assert_string_equal(line(&it, &e),
			    "           <...>-8574    [001] ...1.   820.094216: # 1 buf: 61 62 00 00\n");
	u.r.size = 0;
	u.r.id = 3;
	assert_string_equal(line(&it, &e),
			    "           <...>-8574    [001] ...1.   820.094216: # 3 buf:\n");
}

static void test_lost_and_annotate(void **state)
{
	struct tfs_iter it = {.inst = &tfs_top, .pipe = true, .lost = 12};
	struct tfs_event e = marker_event("hi\n");

	assert_string_equal(line(&it, &e),
			    "CPU:0 [LOST 12 EVENTS]\n"
			    "           <...>-5456    [000] ...1.   671.014606: tracing_mark_write: hi\n");
	it.lost = TFS_LOST_UNKNOWN; /* a walk of `trace` the writers overtook */
	assert_string_equal(line(&it, &e),
			    "CPU:0 [LOST EVENTS]\n"
			    "           <...>-5456    [000] ...1.   671.014606: tracing_mark_write: hi\n");
	struct tfs_iter t = {.inst = &tfs_top, .annotate = true, .idx = 1};
	line(&t, &e); /* the first line of the trace gets no banner */
	assert_null(strstr(b.data, "#####"));
	e.cpu = 1;
	t.idx = 2;
	assert_string_equal(line(&t, &e),
			    "##### CPU 1 buffer started ####\n"
			    "           <...>-5456    [001] ...1.   671.014606: tracing_mark_write: hi\n");
	t.idx = 3;
	assert_null(strstr(line(&t, &e), "#####"));
}

static const char *header(struct tfs_iter *it)
{
	tfs_buf_reset(&b);
	tfs_top.tracer->print_header(it, &b);
	return b.data;
}

static void test_headers(void **state)
{
	struct tfs_iter it = {.inst = &tfs_top, .entries = 1, .total = 1};

	assert_string_equal(header(&it),
			    "# entries-in-buffer/entries-written: 1/1   #P:2\n"
			    "#\n"
			    "#                                _-----=> irqs-off/BH-disabled\n"
			    "#                               / _----=> need-resched\n"
			    "#                              | / _---=> hardirq/softirq\n"
			    "#                              || / _--=> preempt-depth\n"
			    "#                              ||| / _-=> migrate-disable\n"
			    "#                              |||| /     delay\n"
			    "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
			    "#              | |         |   |||||     |         |\n");
	opt(TFS_OPT_RECORD_TGID, true);
	assert_string_equal(header(&it),
			    "# entries-in-buffer/entries-written: 1/1   #P:2\n"
			    "#\n"
			    "#                                          _-----=> irqs-off/BH-disabled\n"
			    "#                                         / _----=> need-resched\n"
			    "#                                        | / _---=> hardirq/softirq\n"
			    "#                                        || / _--=> preempt-depth\n"
			    "#                                        ||| / _-=> migrate-disable\n"
			    "#                                        |||| /     delay\n"
			    "#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION\n"
			    "#              | |           |       |   |||||     |         |\n");
	opt(TFS_OPT_IRQ_INFO, false);
	assert_string_equal(header(&it),
			    "# entries-in-buffer/entries-written: 1/1   #P:2\n"
			    "#\n"
			    "#           TASK-PID       TGID    CPU#     TIMESTAMP  FUNCTION\n"
			    "#              | |           |       |         |         |\n");
	opt(TFS_OPT_RECORD_TGID, false);
	assert_string_equal(header(&it),
			    "# entries-in-buffer/entries-written: 1/1   #P:2\n"
			    "#\n"
			    "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
			    "#              | |         |         |         |\n");
	opt(TFS_OPT_CONTEXT_INFO, false);
	assert_string_equal(header(&it), "");
	opt(TFS_OPT_CONTEXT_INFO, true);
	opt(TFS_OPT_VERBOSE, true);
	assert_string_equal(header(&it), "");
}

static void test_latency_header(void **state)
{
	struct tfs_iter it = {.inst = &tfs_top, .entries = 1, .total = 1, .lat_fmt = true};
	char first[256];

	header(&it);
	snprintf(first, sizeof(first), "# nop latency trace v1.1.5 on ");
	assert_memory_equal(b.data, first, strlen(first));
	assert_non_null(strstr(b.data,
			       "\n# --------------------------------------------------------------------\n"
			       "# latency: 0 us, #1/1, CPU#0 | (M:"));
	assert_non_null(strstr(b.data, " VP:0, KP:0, SP:0 HP:0 #P:2)\n"
				       "#    -----------------\n"
				       "#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)\n"
				       "#    -----------------\n"
				       "#\n"
				       "#                    _------=> CPU#            \n"
				       "#                   / _-----=> irqs-off/BH-disabled\n"
				       "#                  | / _----=> need-resched    \n"
				       "#                  || / _---=> hardirq/softirq \n"
				       "#                  ||| / _--=> preempt-depth   \n"
				       "#                  |||| / _-=> migrate-disable \n"
				       "#                  ||||| /     delay           \n"
				       "#  cmd     pid     |||||| time  |   caller     \n"
				       "#     \\   /        ||||||  \\    |    /       \n"));
}

/*
 * A latency tracer's maximum in the header, as print_trace_header prints the max
 * buffer's data (ftrace.rst's irqsoff example: "# latency: 16 us, #4/4, CPU#0 |",
 * "#    | task: swapper/0-0 (uid:0 ...)", "#  => started at: run_timer_softirq").
 */
static void test_latency_header_max(void **state)
{
	struct tfs_lat_max m = {.valid = true,
				.latency_ns = 16999,
				.tid = getpid(),
				.comm = "lat_irq",
				.uid = 1000,
				.nice = -5,
				.policy = 1,
				.rt_prio = 10,
				.cpu = 1,
				.start_ip = (uintptr_t)out_caller,
				.end_ip = (uintptr_t)out_anchor,
				.only_task = true};
	struct tfs_iter it = {.inst = &tfs_top, .entries = 4, .total = 4, .lat_fmt = true,
			      .lat_max = &m};
	char task[128];

	tfs_top.tracer = &tfs_irqsoff_tracer;
	header(&it);
	assert_memory_equal(b.data, "# irqsoff latency trace v1.1.5 on ", 34);
	assert_non_null(strstr(b.data, "\n# latency: 16 us, #4/4, CPU#1 | (M:"));
	snprintf(task, sizeof(task), "#    | task: lat_irq-%d (uid:1000 nice:-5 policy:1 rt_prio:10)\n",
		 (int)getpid());
	assert_non_null(strstr(b.data, task));
	assert_non_null(strstr(b.data, "#    -----------------\n"
				       "#  => started at: out_caller\n"
				       "#  => ended at:   out_anchor\n"
				       "#\n"
				       "#\n"
				       "#                    _------=> CPU#            \n"));
	/* sym-offset names them as every other address */
	opt(TFS_OPT_SYM_OFFSET, true);
	header(&it);
	assert_non_null(strstr(b.data, "#  => started at: out_caller+0x0/0x"));
	opt(TFS_OPT_SYM_OFFSET, false);
	/* a maximum with no events to show: nothing but the tracer line (trace.c) */
	it.entries = it.total = 0;
	assert_string_equal(header(&it), "");
	tfs_top.tracer = &tfs_nop_tracer;
}

/* Which events of the max buffer `trace` shows: the section's, of its task alone. */
static void test_latency_shows(void **state)
{
	struct tfs_lat_max m = {.valid = true, .tid = 42, .start_tsc = 1000, .last_tsc = 2000,
				.only_task = true};

	assert_true(tfs_lat_shows(&m, 42, 1000));
	assert_true(tfs_lat_shows(&m, 42, 2000));
	assert_false(tfs_lat_shows(&m, 42, 999));  /* before time_start */
	assert_false(tfs_lat_shows(&m, 42, 2001)); /* after the report */
	assert_false(tfs_lat_shows(&m, 43, 1500)); /* another thread beside it */
	m.only_task = false;			   /* the wakeup tracers: every task */
	assert_true(tfs_lat_shows(&m, 43, 1500));
	m.valid = false; /* no maximum yet: the buffer is shown as it is */
	assert_true(tfs_lat_shows(&m, 43, 5));
}

/*
 * The wakeup tracers' entries, as the kernel's trace_ctxwake_print and its raw,
 * hex and bin forms print a ctx_switch_entry: waker 2389 (prio 120) woke 2448
 * (SCHED_FIFO 5: prio 94) on CPU 3.
 */
static void test_ctx_lines(void **state)
{
	struct ut_ev_ctx c = {.h = {.len = sizeof(c), .type = UT_EV_WAKE, .tid = 2389},
			      .prev_pid = 2389,
			      .next_pid = (uint32_t)getpid(),
			      .next_cpu = 3,
			      .prev_prio = 120,
			      .next_prio = 94};
	struct tfs_event e = {.ev = &c.h, .cpu = 3, .ts = 5000000000ull};
	struct tfs_iter it = {.inst = &tfs_top};
	char comm[16], want[160];

	tfs_out_comm(getpid(), comm);
	snprintf(want, sizeof(want),
		 "           <...>-2389    [003] .....     5.000000:     2389:120:R   + [003] "
		 "%7d: 94:R %s\n",
		 (int)getpid(), comm);
	assert_string_equal(line(&it, &e), want);
	c.h.type = UT_EV_CTX;
	snprintf(want, sizeof(want), "    2389:120:R ==> [003] %7d: 94:R %s\n", (int)getpid(),
		 comm);
	assert_non_null(strstr(line(&it, &e), want));
	/* the latency format: "%8.8s-%-7d %3d" + flags + time, then the same body */
	it.lat_fmt = true;
	it.time_start = e.ts - 5000;
	it.next_ts = e.ts;
	snprintf(want, sizeof(want),
		 "   <...>-2389      3.....    5us :     2389:120:R ==> [003] %7d: 94:R %s\n",
		 (int)getpid(), comm);
	assert_string_equal(line(&it, &e), want);
	it.lat_fmt = false;
	/* a state past the kernel's list is '?'; a DEADLINE prio (-1) is 255 in its byte */
	c.next_state = 9;
	c.next_prio = 255;
	snprintf(want, sizeof(want), "==> [003] %7d:255:? %s\n", (int)getpid(), comm);
	assert_non_null(strstr(line(&it, &e), want));
	c.next_state = 0;
	c.next_prio = 94;
	/* raw: the wake entry's prev state is '+' */
	opt(TFS_OPT_RAW, true);
	c.h.type = UT_EV_WAKE;
	snprintf(want, sizeof(want), "2389 3 5000000000 2389 120 + 3 %d 94 R\n", (int)getpid());
	assert_string_equal(line(&it, &e), want);
	c.h.type = UT_EV_CTX;
	snprintf(want, sizeof(want), "2389 3 5000000000 2389 120 R 3 %d 94 R\n", (int)getpid());
	assert_string_equal(line(&it, &e), want);
	opt(TFS_OPT_RAW, false);
	/* hex: each field as its hex digits, the states as characters */
	opt(TFS_OPT_HEX, true);
	opt(TFS_OPT_CONTEXT_INFO, false);
	c.next_pid = 0x990;
	assert_string_equal(line(&it, &e), "00000955 78 52 00000003 00000990 5e 52 \n");
	opt(TFS_OPT_HEX, false);
	/* bin: the seven fields' bytes, states as indexes */
	opt(TFS_OPT_BIN, true);
	line(&it, &e);
	assert_int_equal(b.len, 4 + 1 + 1 + 4 + 4 + 1 + 1);
	assert_memory_equal(b.data, "\x55\x09\0\0\x78\0\3\0\0\0\x90\x09\0\0\x5e\0", 16);
	opt(TFS_OPT_BIN, false);
	opt(TFS_OPT_CONTEXT_INFO, true);
	/* trace_pipe_raw: the kernel's 24-byte entry, type 2, the fields in its order */
	unsigned char out[64];

	assert_int_equal(tfs_kfmt_payload(&c.h), 24);
	assert_int_equal(tfs_kfmt_entry(&tfs_top, &c.h, out, sizeof(out)), 24);
	assert_int_equal(out[0], 2);
	assert_int_equal(get32(out + 8), 2389);
	assert_int_equal(get32(out + 12), 0x990);
	assert_int_equal(get32(out + 16), 3);
	assert_memory_equal(out + 20, "\x78\0\x5e\0", 4);
}

static struct tfs_event func_event(struct ut_ev_func *f, uint64_t ip, uint64_t parent)
{
	memset(f, 0, sizeof(*f));
	f->h = (struct ut_ev){.len = sizeof(*f), .type = UT_EV_FUNCTION,
			      .tid = (uint32_t)getpid()};
	f->ip = ip + UT_SITE_CALL_LEN; /* the return address of the site call */
	f->parent_ip = parent;
	return (struct tfs_event){.ev = &f->h, .cpu = 1, .ts = 5000000000ull};
}

static void test_function_lines(void **state)
{
	struct ut_ev_func f;
	struct tfs_iter it = {.inst = &tfs_top};
	uint64_t anchor = (uintptr_t)out_anchor, caller = (uintptr_t)out_caller;
	struct tfs_event e = func_event(&f, anchor, caller + 1);
	char want[512], name[64];
	uint64_t start, size;

	tfs_top.tracer = &tfs_function_tracer;
	opt(TFS_OPT_CONTEXT_INFO, false);
	assert_string_equal(line(&it, &e), "out_anchor <-out_caller\n");
	opt(TFS_OPT_PRINT_PARENT, false);
	assert_string_equal(line(&it, &e), "out_anchor\n");
	opt(TFS_OPT_PRINT_PARENT, true);
	opt(TFS_OPT_SYM_OFFSET, true);
	assert_int_equal(tfs_sym_lookup(getpid(), caller, true, name, sizeof(name), &start, &size), 0);
	uint64_t csize = size;
	assert_int_equal(tfs_sym_lookup(getpid(), anchor, true, name, sizeof(name), &start, &size), 0);
	snprintf(want, sizeof(want), "out_anchor+0x0/0x%" PRIx64 " <-out_caller+0x1/0x%" PRIx64 "\n",
		 size, csize);
	assert_string_equal(line(&it, &e), want);
	opt(TFS_OPT_SYM_ADDR, true);
	snprintf(want, sizeof(want),
		 "out_anchor+0x0/0x%" PRIx64 " <%016" PRIx64 "> <-out_caller+0x1/0x%" PRIx64
		 " <%016" PRIx64 ">\n",
		 size, anchor, csize, caller + 1);
	assert_string_equal(line(&it, &e), want);
	opt(TFS_OPT_SYM_ADDR, false);
	opt(TFS_OPT_SYM_OFFSET, false);
	/* unknown addresses: hex, at least 8 digits; a zero parent is not shown */
	e = func_event(&f, 0x10, 0);
	assert_string_equal(line(&it, &e), "0x00000010\n");
	e = func_event(&f, anchor, 0x1234);
	assert_string_equal(line(&it, &e), "out_anchor <-0x00001234\n");
	opt(TFS_OPT_RAW, true);
	snprintf(want, sizeof(want), "%" PRIx64 " 1234\n", anchor);
	assert_string_equal(line(&it, &e), want);
	opt(TFS_OPT_RAW, false);
	opt(TFS_OPT_CONTEXT_INFO, true);
	/* the whole line with a context: the comm is unknown to the registry */
	snprintf(want, sizeof(want), "           <...>-%-7d [001] .....     5.000000: out_anchor <-0x00001234\n",
		 (int)getpid());
	assert_string_equal(line(&it, &e), want);
}

static void test_stack_lines(void **state)
{
	union {
		struct ut_ev_stack s;
		unsigned char b[128];
	} u;
	struct tfs_iter it = {.inst = &tfs_top};
	struct tfs_event e = {.ev = &u.s.h, .cpu = 0, .ts = 1000};

	u.s.h = (struct ut_ev){.len = sizeof(u.s) + 16, .type = UT_EV_KERNEL_STACK,
			       .tid = (uint32_t)getpid()};
	u.s.nr = 2;
	u.s.ips[0] = (uintptr_t)out_anchor + 3;
	u.s.ips[1] = 0x20;
	opt(TFS_OPT_CONTEXT_INFO, false);
	assert_string_equal(line(&it, &e), "<stack trace>\n => out_anchor\n => 0x00000020\n");
	opt(TFS_OPT_RAW, true);
	assert_string_equal(line(&it, &e), "type: 4\n");
}

static void test_trace_printk_line(void **state)
{
	/* the runtime's form: the caller's ip, then the text */
	static union {
		struct ut_ev_print p;
		unsigned char raw[64];
	} pr;
	struct tfs_iter it = {.inst = &tfs_top};
	struct tfs_event e = {.ev = &pr.p.h, .cpu = 0, .ts = 671014606123ull};

	pr.p.h = (struct ut_ev){.len = 32, .type = UT_EV_PRINT, .tid = (uint32_t)getpid()};
	pr.p.ip = (uintptr_t)out_caller + 4;
	strcpy(pr.p.buf, "value 3\n");
	opt(TFS_OPT_CONTEXT_INFO, false);
	assert_string_equal(line(&it, &e), "out_caller: value 3\n");
}

/*
 * bprint and bputs: the text told by the process (printk_fmt.c) rendered with the
 * record's arguments; a text never told shows what the kernel shows for a pointer
 * it cannot read.  Both as the default line, msg-only, raw and hex.
 */
static void test_bprint_line(void **state)
{
	static union {
		struct ut_ev_bprint p;
		unsigned char raw[64];
	} bp;
	struct ut_ev_bputs bs = {.h = {.len = 32, .type = UT_EV_BPUTS, .tid = (uint32_t)getpid()},
				 .ip = (uintptr_t)out_caller + 4,
				 .str = 0x5000};
	struct tfs_iter it = {.inst = &tfs_top};
	struct tfs_event e = {.ev = &bp.p.h, .cpu = 0, .ts = 671014606123ull};
	struct tfs_event es = {.ev = &bs.h, .cpu = 0, .ts = 671014606123ull};
	int32_t v = -7;

	tfs_printk_fmt_reset();
	bp.p.h = (struct ut_ev){.len = 48, .type = UT_EV_BPRINT, .tid = (uint32_t)getpid(), .ts = 100};
	bs.h.ts = 100;
	bp.p.ip = (uintptr_t)out_caller + 4;
	bp.p.fmt = 0x4000;
	bp.p.size = 8;
	memcpy(bp.p.buf, &v, 4);
	memcpy(bp.p.buf + 1, "ok\0", 4);
	opt(TFS_OPT_CONTEXT_INFO, false);
	assert_string_equal(line(&it, &e), "out_caller: (efault)\n");
	assert_string_equal(line(&it, &es), "out_caller: (efault)\n");
	tfs_printk_fmt_add(getpid(), 0x4000, 50, "v=%d %s\n");
	tfs_printk_fmt_add(getpid(), 0x5000, 50, "puts\n");
	assert_string_equal(line(&it, &e), "out_caller: v=-7 ok\n");
	assert_string_equal(line(&it, &es), "out_caller: puts\n");
	opt(TFS_OPT_PRINTK_MSG_ONLY, true);
	assert_string_equal(line(&it, &e), "v=-7 ok\n");
	opt(TFS_OPT_PRINTK_MSG_ONLY, false);
	opt(TFS_OPT_RAW, true);
	tfs_buf_reset(&b);
	tfs_buf_printf(&b, ": %lx : v=-7 ok\n", (unsigned long)bp.p.ip);
	assert_string_equal(line(&it, &e), b.data);
	opt(TFS_OPT_RAW, false);
	opt(TFS_OPT_HEX, true);
	assert_string_equal(line(&it, &e), "type: 6\n\n");
	assert_string_equal(line(&it, &es), "type: 15\n\n");
	opt(TFS_OPT_HEX, false);
	opt(TFS_OPT_FIELDS, true);
	assert_string_equal(line(&it, &e), "UNKNOWN TYPE 6\n");
	opt(TFS_OPT_FIELDS, false);
	tfs_printk_fmt_reset();
}

/* A C function under a C++ name, ns::foo(int), and the function tracer's demangle option. */
__attribute__((noinline, used)) int out_cxx(int x) __asm__("_ZN2ns3fooEi");
__attribute__((noinline, used)) int out_cxx(int x)
{
	return x + 5;
}

static void set_trace_option(const char *text)
{
	struct tfs_open o = {.inst = &tfs_top, .cpu = -1, .flags = 1 /* O_WRONLY */};

	assert_int_equal(tfs_trace_options_ops.write(&o, text, strlen(text), 0), strlen(text));
}

static void test_demangle_option(void **state)
{
	struct ut_ev_func f;
	struct tfs_iter it = {.inst = &tfs_top};
	struct tfs_event e = func_event(&f, (uintptr_t)out_cxx, 0);

	tfs_top.tracer = &tfs_function_tracer;
	opt(TFS_OPT_CONTEXT_INFO, false);
	assert_true(tfs_tracer_opt(&tfs_top, "demangle")); /* on by default */
	assert_string_equal(line(&it, &e), "ns::foo(int)\n");
	set_trace_option("nodemangle\n");
	assert_string_equal(line(&it, &e), "_ZN2ns3fooEi\n");
	set_trace_option("demangle\n");
	assert_string_equal(line(&it, &e), "ns::foo(int)\n");
	/* other tracers have no such option: names are demangled */
	tfs_top.tracer = &tfs_nop_tracer;
	assert_string_equal(line(&it, &e), "ns::foo(int)\n");
}

/* trace_pipe_raw pages: header, compressed event headers, time extends, losses. */
static void test_kernel_page(void **state)
{
	static struct tfs_kpage pg;
	struct ut_ev_func f;
	struct tfs_event m = marker_event("hi\n"), e;
	const unsigned char *d = pg.page + TFS_KPAGE_HDR;
	uint64_t big = (1ull << 27) + 12345; /* does not fit the 27-bit delta */

	m.ts = 1000;
	tfs_kfmt_page_init(&pg, &tfs_top);
	assert_int_equal(tfs_kfmt_page_add(&pg, &m, 0), 0);
	e = func_event(&f, 0x401000, 0x401234);
	e.ts = 1010;
	assert_int_equal(tfs_kfmt_page_add(&pg, &e, 0), 0);
	e.ts = 1010 + big;
	assert_int_equal(tfs_kfmt_page_add(&pg, &e, 0), 0);
	tfs_kfmt_page_finish(&pg);

	assert_int_equal(get64(pg.page), 1000);		   /* time stamp of the page */
	assert_int_equal(get64(pg.page + 8), 28 + 28 + 8 + 28); /* commit: data bytes */
	/* print: 16 + "hi\n" + 2 = 21 bytes of entry: type_len 6 (24 bytes), delta 0 */
	assert_int_equal(get32(d), 6);
	assert_int_equal(get32(d + 4) & 0xffff, 5);		  /* common_type */
	assert_int_equal(d[4 + 3], 1);				  /* common_preempt_count */
	assert_int_equal(get32(d + 8), 5456);			  /* common_pid */
	assert_int_equal(get64(d + 12), UT_IP_MARKER);		  /* ip */
	assert_memory_equal(d + 20, "hi\n", 4);		  /* buf */
	/* function, 10 ns later: ip is the site address, then the parent */
	assert_int_equal(get32(d + 28), 6 | 10 << 5);
	assert_int_equal(get32(d + 32) & 0xffff, 1);
	assert_int_equal(get64(d + 40), 0x401000);
	assert_int_equal(get64(d + 48), 0x401234);
	/* a time extend, then the event with delta 0 */
	assert_int_equal(get32(d + 56), 30 | (uint32_t)(big & ((1u << 27) - 1)) << 5);
	assert_int_equal(get32(d + 60), big >> 27);
	assert_int_equal(get32(d + 64), 6);
	assert_int_equal(get64(d + 76), 0x401000);

	/* a loss starts a new page, flagged, with the count after the data */
	assert_int_equal(tfs_kfmt_page_add(&pg, &e, 7), 1);
	tfs_kfmt_page_init(&pg, &tfs_top);
	assert_int_equal(tfs_kfmt_page_add(&pg, &e, 7), 0);
	tfs_kfmt_page_finish(&pg);
	assert_int_equal(get64(pg.page + 8), 28 | 1ull << 31 | 1ull << 30);
	assert_int_equal(get64(d + 28), 7);

	/* a page takes what fits in 4080 bytes */
	tfs_kfmt_page_init(&pg, &tfs_top);
	unsigned int n = 0;
	while (tfs_kfmt_page_add(&pg, &e, 0) == 0)
		n++;
	assert_int_equal(n, TFS_KPAGE_DATA / 28);
}

/* What the lookup leaves of a long name in name[size]: its first size - 1 bytes. */
static void fill(char *name, size_t size, const char *s)
{
	size_t n = strlen(s) < size - 1 ? strlen(s) : size - 1;

	memcpy(name, s, n);
	name[n] = '\0';
}

/* A name longer than the lookup buffer is cut after a whole token, marked "...". */
static void test_cut_name(void **state)
{
	char name[32];

	fill(name, sizeof(name), "short<int>(int)");
	tfs_out_cut_name(name, sizeof(name));
	assert_string_equal(name, "short<int>(int)");
	fill(name, sizeof(name), "f<std::__cxx11::basic_string<char, std::char_traits<char> >");
	tfs_out_cut_name(name, sizeof(name));
	assert_string_equal(name, "f<std::__cxx11::...");
	fill(name, sizeof(name), "g(std::vector<int, std::allocator<int> > const&)");
	tfs_out_cut_name(name, sizeof(name));
	assert_string_equal(name, "g(std::vector<int, std::...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_marker_lines, setup),
	    cmocka_unit_test_setup(test_flags_and_time, setup),
	    cmocka_unit_test_setup(test_latency_line, setup),
	    cmocka_unit_test_setup(test_raw_data, setup),
	    cmocka_unit_test_setup(test_lost_and_annotate, setup),
	    cmocka_unit_test_setup(test_headers, setup),
	    cmocka_unit_test_setup(test_latency_header, setup),
	    cmocka_unit_test_setup(test_latency_header_max, setup),
	    cmocka_unit_test_setup(test_latency_shows, setup),
	    cmocka_unit_test_setup(test_function_lines, setup),
	    cmocka_unit_test_setup(test_ctx_lines, setup),
	    cmocka_unit_test(test_cut_name),
	    cmocka_unit_test_setup(test_stack_lines, setup),
	    cmocka_unit_test_setup(test_trace_printk_line, setup),
	    cmocka_unit_test_setup(test_bprint_line, setup),
	    cmocka_unit_test_setup(test_demangle_option, setup),
	    cmocka_unit_test_setup(test_kernel_page, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

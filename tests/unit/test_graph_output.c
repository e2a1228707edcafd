// SPDX-License-Identifier: MIT
/*
 * test_graph_output.c - the function_graph tracer's text (fs/output/graph.c)
 * from synthetic events, against what the kernel's trace_functions_graph.c
 * prints for the same entries and exits: the header for option combinations,
 * the duration column and its marks, leaf / nested / tail lines, comments,
 * the task-switch banner, retval and retaddr, abstime, proc, signal handlers
 * with and without funcgraph-irqs.  Each expected line is built from the
 * kernel's pieces: " %*d) " for the CPU, "comm-pid" centred in 14 columns then
 * " | ", the mark and "%lu.%03lu us " padded to 8 plus "|  ", 2 spaces per
 * depth, then the function.
 *
 * The clock is x86-tsc, so a duration is the difference of the raw stamps.
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

#include "output/output.h"
#include "settings.h"
#include "tracers/tracers.h"

/* Functions to trace: their names are in .symtab. */
__attribute__((noinline, used)) int g_leaf(int x)
{
	return x + 1;
}
__attribute__((noinline, used)) int g_outer(int x)
{
	return g_leaf(x) * 2;
}
__attribute__((noinline, used)) int g_caller(int x)
{
	return g_outer(x) - 1;
}

/*
 * C++ functions, as far as symbols go: C functions under mangled names, which
 * demangle to "t1(int)", "leaf(int)" and "Guard::~Guard()".
 */
__attribute__((noinline, used)) int cxx_t1(int x) __asm__("_Z2t1i");
__attribute__((noinline, used)) int cxx_leaf(int x) __asm__("_Z4leafi");
__attribute__((noinline, used)) void cxx_dtor(void) __asm__("_ZN5GuardD1Ev");
int cxx_leaf(int x)
{
	return x + 2;
}
int cxx_t1(int x)
{
	return cxx_leaf(x) + 1;
}
void cxx_dtor(void)
{
	__asm__ volatile("");
}

int main(void);

#define DEF (TFS_GRAPH_CPU | TFS_GRAPH_OVERHEAD | TFS_GRAPH_DURATION | TFS_GRAPH_IRQS | \
	     TFS_GRAPH_SLEEP_TIME | TFS_GRAPH_GRAPH_TIME | TFS_GRAPH_DEMANGLE)

static uint64_t ip_of(void *fn)
{
	return (uintptr_t)fn + UT_SITE_CALL_LEN;
}

/* ---- a feed of events with the reader's peek, as the snapshot walk gives them ------------ */

#define MAX_EV 32

struct slot {
	union {
		struct ut_ev h;
		struct ut_ev_gent g;
		struct ut_ev_gret r;
		struct ut_ev_print p;
		struct ut_ev_marker m;
		unsigned char raw[128];
	};
	unsigned int cpu;
	bool used; /* shown, or taken with the entry before it */
};

static struct slot evs[MAX_EV];
static unsigned int nev, cur;

static struct slot *add(uint8_t type, pid_t tid, unsigned int cpu, uint64_t ts)
{
	struct slot *s = &evs[nev++];

	memset(s, 0, sizeof(*s));
	s->h.type = type;
	s->h.tid = (uint32_t)tid;
	s->h.ts = ts;
	s->cpu = cpu;
	return s;
}

static void ent(pid_t tid, unsigned int cpu, uint64_t ts, void *fn, unsigned int depth)
{
	struct slot *s = add(UT_EV_GRAPH_ENT, tid, cpu, ts);

	s->h.len = sizeof(s->g);
	s->g.ip = ip_of(fn);
	s->g.depth = depth;
}

static void ent_ra(pid_t tid, uint64_t ts, void *fn, unsigned int depth, uint64_t retaddr)
{
	ent(tid, 0, ts, fn, depth);
	evs[nev - 1].h.len += 8;
	evs[nev - 1].g.nextra = 1;
	evs[nev - 1].g.extra[0] = retaddr;
}

static void ret(pid_t tid, unsigned int cpu, uint64_t call, uint64_t ts, void *fn,
		unsigned int depth, uint64_t retval)
{
	struct slot *s = add(UT_EV_GRAPH_RET, tid, cpu, ts);

	s->h.len = sizeof(s->r);
	s->r.ip = ip_of(fn);
	s->r.calltime = call;
	s->r.depth = depth;
	s->r.retval = retval;
}

/* A print event; a trace_marker one in the marker form, as utracefs writes it. */
static void print(pid_t tid, uint64_t ts, const char *text, uint64_t ip)
{
	struct slot *s = add(UT_EV_PRINT, tid, 0, ts);

	if (ip == UT_IP_MARKER) {
		s->h.flags |= UT_EVF_MARKER;
		strcpy(s->m.buf, text);
		s->h.len = (uint16_t)((sizeof(s->m) + strlen(text) + 1 + 7) & ~7u);
		return;
	}
	s->p.ip = ip;
	strcpy(s->p.buf, text);
	s->h.len = (uint16_t)((sizeof(s->p) + strlen(text) + 1 + 7) & ~7u);
}

static const struct ut_ev *feed_peek(struct tfs_iter *it)
{
	for (unsigned int i = cur + 1; i < nev; i++)
		if (!evs[i].used && evs[i].cpu == it->cpu)
			return &evs[i].h;
	return NULL;
}

static void feed_take(struct tfs_iter *it)
{
	for (unsigned int i = cur + 1; i < nev; i++)
		if (!evs[i].used && evs[i].cpu == it->cpu) {
			evs[i].used = true;
			return;
		}
}

static struct tfs_buf out;
static void set_trace_option(const char *text);
static void handler_graph(void);

/* Format every event (a new reader each time), as `trace` would. */
static const char *run(uint64_t flags)
{
	struct tfs_iter it = {.inst = &tfs_top, .cpu_filter = -1};

	tfs_buf_reset(&out);
	for (unsigned int i = 0; i < nev; i++)
		evs[i].used = false;
	for (cur = 0; cur < nev; cur++) {
		struct tfs_event e = {.ev = &evs[cur].h, .cpu = evs[cur].cpu, .ts = evs[cur].h.ts};

		if (evs[cur].used)
			continue;
		evs[cur].used = true;
		it.cpu = e.cpu;
		it.peek_next = feed_peek;
		it.take_next = feed_take;
		assert_int_equal(tfs_graph_line(&it, &e, &out, flags), 0);
	}
	tfs_iter_release(&it);
	tfs_buf_append(&out, "", 1);
	out.len--;
	return out.data;
}

static const char *header(uint64_t flags, bool lat)
{
	struct tfs_iter it = {.inst = &tfs_top, .cpu_filter = -1, .lat_fmt = lat};

	tfs_buf_reset(&out);
	tfs_graph_header(&it, &out, flags);
	tfs_buf_append(&out, "", 1);
	out.len--;
	return out.data;
}

static int setup(void **state)
{
	tfs.nr_cpus = 4;
	tfs_top.clock = TFS_CLOCK_X86_TSC;
	tfs_top.tracer = &tfs_function_graph_tracer;
	tfs_opts_init(&tfs_top, true); /* the top's boot options, every tracer's defaults */
	nev = 0;
	/* the test's tasks, as threads of this process: names resolve in its maps */
	assert_int_equal(tfs_task_record(100, getpid(), "prog"), 0);
	assert_int_equal(tfs_task_record(101, getpid(), "other"), 0);
	assert_int_equal(tfs_task_record(200, getpid(), "cpu3"), 0);
	assert_int_equal(tfs_task_record(2000, getpid(), "longworker"), 0);
	return 0;
}

/* ---- headers --------------------------------------------------------------------------------- */

static void test_headers(void **state)
{
	/* the kernel's print_graph_headers: '#', then each column's title */
	assert_string_equal(header(DEF, false),
			    "# CPU  DURATION                  FUNCTION CALLS\n"
			    "# |     |   |                     |   |   |   |\n");
	assert_string_equal(header(DEF | TFS_GRAPH_PROC | TFS_GRAPH_ABSTIME, false),
			    "#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
			    "#      |          |     |    |           |   |                     |   |   |   |\n");
	assert_string_equal(header(DEF & ~(TFS_GRAPH_CPU | TFS_GRAPH_DURATION), false),
			    "#               FUNCTION CALLS\n"
			    "#               |   |   |   |\n");
	/* latency-format: the flag legend over the columns, then a flags column */
	const char *h = header(DEF, true);
	const char *cols = strstr(h, "#      _-----=> irqs-off");

	assert_non_null(strstr(h, "# function_graph latency trace v1.1.5 on "));
	assert_non_null(cols);
	assert_string_equal(cols, "#      _-----=> irqs-off        \n"
				  "#     / _----=> need-resched    \n"
				  "#    | / _---=> hardirq/softirq \n"
				  "#    || / _--=> preempt-depth   \n"
				  "#    ||| /                      \n"
				  "# CPU||||     DURATION                  FUNCTION CALLS\n"
				  "# |  ||||      |   |                     |   |   |   |\n");
	/* context-info off: no header at all */
	tfs_top.opts &= ~(1ull << TFS_OPT_CONTEXT_INFO);
	assert_string_equal(header(DEF, false), "");
}

/* ---- durations and marks --------------------------------------------------------------------- */

/* One leaf of the given duration (ns) on CPU 0, at depth 0. */
static const char *leaf_line(uint64_t ns)
{
	nev = 0;
	ent(100, 0, 1000, g_leaf, 0);
	ret(100, 0, 1000, 1000 + ns, g_leaf, 0, 0);
	return run(DEF);
}

static void test_durations(void **state)
{
	/* "%lu" microseconds, then up to 3 digits of ns within 7 digits in all, " us ", pad to 8 */
	assert_string_equal(leaf_line(1382), " 0)   1.382 us    |  g_leaf();\n");
	assert_string_equal(leaf_line(10000), " 0)   10.000 us   |  g_leaf();\n");
	assert_string_equal(leaf_line(10001), " 0) + 10.001 us   |  g_leaf();\n");
	assert_string_equal(leaf_line(100001), " 0) ! 100.001 us  |  g_leaf();\n");
	assert_string_equal(leaf_line(1000001), " 0) # 1000.001 us |  g_leaf();\n");
	assert_string_equal(leaf_line(10000001), " 0) * 10000.00 us |  g_leaf();\n");
	assert_string_equal(leaf_line(100000001), " 0) @ 100000.0 us |  g_leaf();\n");
	assert_string_equal(leaf_line(1000000001), " 0) $ 1000000 us  |  g_leaf();\n");
	assert_string_equal(leaf_line(12345678901ull), " 0) $ 12345678 us |  g_leaf();\n");
	/* overhead off: no mark; duration off: no column */
	assert_string_equal(run(DEF & ~TFS_GRAPH_OVERHEAD), " 0)   12345678 us |  g_leaf();\n");
	assert_string_equal(run(DEF & ~TFS_GRAPH_DURATION), " 0) g_leaf();\n");
	assert_string_equal(run(DEF & ~TFS_GRAPH_CPU), "$ 12345678 us |  g_leaf();\n");
	/* context-info off: only the graph */
	tfs_top.opts &= ~(1ull << TFS_OPT_CONTEXT_INFO);
	assert_string_equal(run(DEF), "g_leaf();\n");
}

/* ---- leaf, nested, tail ------------------------------------------------------------------- */

static void graph_3(void)
{
	nev = 0;
	ent(100, 0, 1000, g_caller, 0);
	ent(100, 0, 2000, g_outer, 1);
	ent(100, 0, 3000, g_leaf, 2);
	ret(100, 0, 3000, 3500, g_leaf, 2, 0);
	ret(100, 0, 2000, 14000, g_outer, 1, 0);
	ret(100, 0, 1000, 150000, g_caller, 0, 0);
}

static void test_nesting(void **state)
{
	graph_3();
	assert_string_equal(run(DEF), " 0)               |  g_caller() {\n"
				      " 0)               |    g_outer() {\n"
				      " 0)   0.500 us    |      g_leaf();\n"
				      " 0) + 12.000 us   |    }\n"
				      " 0) ! 149.000 us  |  }\n");
	/* funcgraph-tail names every closing brace */
	assert_string_equal(run(DEF | TFS_GRAPH_TAIL), " 0)               |  g_caller() {\n"
						       " 0)               |    g_outer() {\n"
						       " 0)   0.500 us    |      g_leaf();\n"
						       " 0) + 12.000 us   |    } /* g_outer */\n"
						       " 0) ! 149.000 us  |  } /* g_caller */\n");
	/* an exit whose entry is not in the buffer is named too */
	nev = 0;
	ret(100, 0, 2000, 14000, g_outer, 1, 0);
	ret(100, 0, 1000, 150000, g_caller, 0, 0);
	assert_string_equal(run(DEF), " 0) + 12.000 us   |    } /* g_outer */\n"
				      " 0) ! 149.000 us  |  } /* g_caller */\n");
	/* an entry followed by another task's exit of the same function is no leaf */
	nev = 0;
	ent(100, 0, 1000, g_leaf, 0);
	ret(101, 0, 900, 1200, g_leaf, 0, 0);
	const char *s = run(DEF);

	assert_non_null(strstr(s, " 0)               |  g_leaf() {\n"));
	/* overruns under the exit */
	graph_3();
	assert_string_equal(strstr(run(DEF | TFS_GRAPH_OVERRUN), " 0) + 12"),
			    " 0) + 12.000 us   |    }\n"
			    " (Overruns: 0)\n"
			    " 0) ! 149.000 us  |  }\n"
			    " (Overruns: 0)\n");
}

/* ---- C++ names and the demangle option ------------------------------------------------- */

static void test_cxx_names(void **state)
{
	nev = 0;
	ent(100, 0, 1000, cxx_t1, 0);
	ent(100, 0, 1100, cxx_leaf, 1);
	ret(100, 0, 1100, 1200, cxx_leaf, 1, 3);
	ent(100, 0, 1300, cxx_dtor, 1);
	ret(100, 0, 1300, 1400, cxx_dtor, 1, 0);
	ret(100, 0, 1000, 2000, cxx_t1, 0, 4);
	/* a demangled name brings its parameter list: no "()" after it */
	assert_string_equal(run(DEF), " 0)               |  t1(int) {\n"
				      " 0)   0.100 us    |    leaf(int);\n"
				      " 0)   0.100 us    |    Guard::~Guard();\n"
				      " 0)   1.000 us    |  }\n");
	assert_string_equal(strstr(run(DEF | TFS_GRAPH_TAIL), " 0)   1.000"),
			    " 0)   1.000 us    |  } /* t1(int) */\n");
	assert_string_equal(run(DEF | TFS_GRAPH_RETVAL),
			    " 0)               |  t1(int) {\n"
			    " 0)   0.100 us    |    leaf(int); /* ret=0x3 */\n"
			    " 0)   0.100 us    |    Guard::~Guard(); /* ret=0x0 */\n"
			    " 0)   1.000 us    |  } /* t1(int) ret=0x4 */\n");
	/* demangle off: the symbols as they are, with the "()" of C names */
	assert_string_equal(run(DEF & ~TFS_GRAPH_DEMANGLE), " 0)               |  _Z2t1i() {\n"
							    " 0)   0.100 us    |    _Z4leafi();\n"
							    " 0)   0.100 us    |    _ZN5GuardD1Ev();\n"
							    " 0)   1.000 us    |  }\n");
	assert_string_equal(strstr(run((DEF & ~TFS_GRAPH_DEMANGLE) | TFS_GRAPH_TAIL), " 0)   1.000"),
			    " 0)   1.000 us    |  } /* _Z2t1i */\n");
	/* C names keep their "()" either way */
	graph_3();
	assert_string_equal(strstr(run(DEF & ~TFS_GRAPH_DEMANGLE), " 0)   0.500"),
			    " 0)   0.500 us    |      g_leaf();\n"
			    " 0) + 12.000 us   |    }\n"
			    " 0) ! 149.000 us  |  }\n");
	/* no symbol: the address as the kernel's %ps gives it, "0x%lx" */
	nev = 0;
	ent(100, 0, 1000, (void *)0x10, 0);
	ret(100, 0, 1000, 1100, (void *)0x10, 0, 0);
	assert_string_equal(run(DEF), " 0)   0.100 us    |  0x10();\n");
}

/* The tracer's demangle option, set through trace_options, reaches the graph. */
static void test_demangle_option(void **state)
{
	const struct tracer *t = &tfs_function_graph_tracer;
	struct tfs_iter it = {.inst = &tfs_top, .cpu_filter = -1};
	struct tfs_event e;

	nev = 0;
	ent(100, 0, 1000, cxx_leaf, 0);
	ret(100, 0, 1000, 1100, cxx_leaf, 0, 0);
	e = (struct tfs_event){.ev = &evs[0].h, .cpu = 0, .ts = 1000};
	assert_true(tfs_tracer_opts_of(&tfs_top, t) & TFS_GRAPH_DEMANGLE);
	set_trace_option("nodemangle\n");
	assert_false(tfs_tracer_opts_of(&tfs_top, t) & TFS_GRAPH_DEMANGLE);
	tfs_buf_reset(&out);
	assert_int_equal(t->print_line(&it, &e, &out), 0);
	tfs_buf_append(&out, "", 1);
	assert_string_equal(out.data, " 0)               |  _Z4leafi() {\n");
	set_trace_option("demangle\n");
	tfs_buf_reset(&out);
	tfs_iter_release(&it);
	it = (struct tfs_iter){.inst = &tfs_top, .cpu_filter = -1};
	assert_int_equal(t->print_line(&it, &e, &out), 0);
	tfs_buf_append(&out, "", 1);
	assert_string_equal(out.data, " 0)               |  leaf(int) {\n");
	tfs_iter_release(&it);
}

/* ---- comments, banner, abstime, proc --------------------------------------------------------- */

static void test_comments(void **state)
{
	nev = 0;
	ent(100, 0, 1000, g_caller, 0);
	print(100, 1100, "top\n", UT_IP_MARKER); /* depth 0: not indented (depth > 0 only) */
	ent(100, 0, 2000, g_outer, 1);
	print(100, 2100, "inside", UT_IP_MARKER); /* inside depth 1: at (1 + 1) * 2 */
	ent(100, 0, 3000, g_leaf, 2);
	ret(100, 0, 3000, 3500, g_leaf, 2, 0);
	print(100, 3600, "after leaf\n", 0x1234); /* a leaf keeps its own depth */
	ret(100, 0, 2000, 14000, g_outer, 1, 0);
	print(100, 14100, "after brace", UT_IP_MARKER); /* at the brace's depth */
	ret(100, 0, 1000, 150000, g_caller, 0, 0);
	assert_string_equal(run(DEF), " 0)               |  g_caller() {\n"
				      " 0)               |  /* top */\n"
				      " 0)               |    g_outer() {\n"
				      " 0)               |      /* inside */\n"
				      " 0)   0.500 us    |      g_leaf();\n"
				      " 0)               |      /* after leaf */\n"
				      " 0) + 12.000 us   |    }\n"
				      " 0)               |  /* after brace */\n"
				      " 0) ! 149.000 us  |  }\n");
}

static void test_banner_proc_abstime(void **state)
{
	nev = 0;
	ent(100, 0, 671014606123ull, g_leaf, 0);
	ret(100, 0, 671014606123ull, 671014607123ull, g_leaf, 0, 0);
	ent(2000, 0, 671014608123ull, g_outer, 0);
	/* "comm-pid", comm cut to 7, centred in 14 columns (extra space after) */
	assert_string_equal(run(DEF), " 0)   1.000 us    |  g_leaf();\n"
				      " ------------------------------------------\n"
				      " 0)    prog-100    =>  longwor-2000 \n"
				      " ------------------------------------------\n"
				      "\n"
				      " 0)               |  g_outer() {\n");
	assert_string_equal(run(DEF | TFS_GRAPH_PROC | TFS_GRAPH_ABSTIME),
			    "  671.014606 |   0)    prog-100    |   1.000 us    |  g_leaf();\n"
			    " ------------------------------------------\n"
			    " 0)    prog-100    =>  longwor-2000 \n"
			    " ------------------------------------------\n"
			    "\n"
			    "  671.014608 |   0)  longwor-2000  |               |  g_outer() {\n");
	/* a banner per CPU: another CPU's first task is no switch */
	nev = 0;
	ent(100, 0, 1000, g_leaf, 0);
	ent(200, 3, 1100, g_outer, 0);
	assert_string_equal(run(DEF), " 0)               |  g_leaf() {\n"
				      " 3)               |  g_outer() {\n");
}

/* The CPU column as wide as the highest CPU number; an unknown task's comm is "<...>". */
static void test_cpu_width_and_comm(void **state)
{
	tfs.nr_cpus = 128; /* CPUs 0..127: three digits */
	nev = 0;
	ent(100, 0, 1000, g_leaf, 0);
	ret(100, 0, 1000, 1500, g_leaf, 0, 0);
	/* a thread of this process whose name is not known */
	assert_int_equal(tfs_task_record(999, getpid(), ""), 0);
	ent(999, 0, 2000, g_outer, 0);
	assert_string_equal(run(DEF), "   0)   0.500 us    |  g_leaf();\n"
				      " ------------------------------------------\n"
				      "   0)    prog-100    =>   <...>-999   \n"
				      " ------------------------------------------\n"
				      "\n"
				      "   0)               |  g_outer() {\n");
	assert_string_equal(header(DEF, false),
			    "# CPU  DURATION                  FUNCTION CALLS\n"
			    "# |     |   |                     |   |   |   |\n");
	tfs.nr_cpus = 10; /* CPUs 0..9: one digit */
	assert_string_equal(strstr(run(DEF | TFS_GRAPH_PROC), " 0) "),
			    " 0)    prog-100    |   0.500 us    |  g_leaf();\n"
			    " ------------------------------------------\n"
			    " 0)    prog-100    =>   <...>-999   \n"
			    " ------------------------------------------\n"
			    "\n"
			    " 0)   <...>-999    |               |  g_outer() {\n");
}

/* context-info off: no columns anywhere, but banners, comments and arrows stay. */
static void test_no_context_info(void **state)
{
	handler_graph();
	print(100, 5100, "note\n", UT_IP_MARKER);
	ent(101, 0, 6000, g_leaf, 0);
	tfs_top.opts &= ~(1ull << TFS_OPT_CONTEXT_INFO);
	assert_string_equal(run(DEF), "g_caller() {\n"
				      "==========>\n"
				      "  g_outer() {\n"
				      "    g_leaf();\n"
				      "  }\n"
				      "<==========\n"
				      "}\n"
				      "/* note */\n"
				      " ------------------------------------------\n"
				      " 0)    prog-100    =>   other-101   \n"
				      " ------------------------------------------\n"
				      "\n"
				      "g_leaf() {\n");
}

/* ---- retval and retaddr ----------------------------------------------------------------- */

static void test_retval(void **state)
{
	nev = 0;
	ent(100, 0, 1000, g_outer, 0);
	ent(100, 0, 1100, g_leaf, 1);
	ret(100, 0, 1100, 1200, g_leaf, 1, 0);
	ent(100, 0, 1300, g_leaf, 1);
	ret(100, 0, 1300, 1400, g_leaf, 1, 0xffffffeaull); /* -22 in eax: an errno */
	ent(100, 0, 1500, g_leaf, 1);
	ret(100, 0, 1500, 1600, g_leaf, 1, 0xfffff000ull); /* -4096: not an errno */
	ret(100, 0, 1000, 2000, g_outer, 0, 42);
	assert_string_equal(run(DEF | TFS_GRAPH_RETVAL),
			    " 0)               |  g_outer() {\n"
			    " 0)   0.100 us    |    g_leaf(); /* ret=0x0 */\n"
			    " 0)   0.100 us    |    g_leaf(); /* ret=-22 */\n"
			    " 0)   0.100 us    |    g_leaf(); /* ret=0xfffff000 */\n"
			    " 0)   1.000 us    |  } /* g_outer ret=0x2a */\n");
	assert_string_equal(strstr(run(DEF | TFS_GRAPH_RETVAL | TFS_GRAPH_RETVAL_HEX), " 0)   0.100 us    |    g_leaf(); /* ret=0xffffffea"),
			    " 0)   0.100 us    |    g_leaf(); /* ret=0xffffffea */\n"
			    " 0)   0.100 us    |    g_leaf(); /* ret=0xfffff000 */\n"
			    " 0)   1.000 us    |  } /* g_outer ret=0x2a */\n");
	/* retval-hex alone changes nothing */
	assert_string_equal(strstr(run(DEF | TFS_GRAPH_RETVAL_HEX), " 0)   1.000"),
			    " 0)   1.000 us    |  }\n");
}

static void test_retaddr(void **state)
{
	char name[64], want[512];
	uint64_t start, size, ra = (uintptr_t)main + 0x10; /* inside a long function */

	assert_int_equal(tfs_sym_lookup(getpid(), ra, true, name, sizeof(name), &start, &size), 0);
	assert_string_equal(name, "main");
	nev = 0;
	ent_ra(getpid(), 1000, g_outer, 0, ra);
	ent_ra(getpid(), 1100, g_leaf, 1, ra);
	ret(getpid(), 0, 1100, 1200, g_leaf, 1, 7);
	/* the return address always with its offset: "%pS" */
	snprintf(want, sizeof(want),
		 " 0)               |  g_outer() { /* <-main+0x10/0x%" PRIx64 " */\n"
		 " 0)   0.100 us    |    g_leaf(); /* <-main+0x10/0x%" PRIx64 " ret=0x7 */\n",
		 size, size);
	assert_string_equal(run(DEF | TFS_GRAPH_RETADDR | TFS_GRAPH_RETVAL), want);
	/* without the option the address is not shown */
	assert_string_equal(run(DEF), " 0)               |  g_outer() {\n"
				      " 0)   0.100 us    |    g_leaf();\n");
}

/* ---- signal handlers: funcgraph-irqs ---------------------------------------------------------- */

static void handler_graph(void)
{
	nev = 0;
	ent(100, 0, 1000, g_caller, 0);
	ent(100, 0, 2000, g_outer, 1); /* the handler, interrupting g_caller */
	evs[nev - 1].h.flags = UT_EVF_SIGHANDLER;
	ent(100, 0, 2100, g_leaf, 2);
	evs[nev - 1].h.flags = UT_EVF_SIGHANDLER;
	ret(100, 0, 2100, 2200, g_leaf, 2, 0);
	evs[nev - 1].h.flags = UT_EVF_SIGHANDLER;
	ret(100, 0, 2000, 3000, g_outer, 1, 0);
	evs[nev - 1].h.flags = UT_EVF_SIGHANDLER;
	ret(100, 0, 1000, 5000, g_caller, 0, 0);
}

static void test_irqs(void **state)
{
	handler_graph();
	/* the handler framed by the kernel's irq arrows */
	assert_string_equal(run(DEF), " 0)               |  g_caller() {\n"
				      " 0)   ==========> |\n"
				      " 0)               |    g_outer() {\n"
				      " 0)   0.100 us    |      g_leaf();\n"
				      " 0)   1.000 us    |    }\n"
				      " 0)   <========== |\n"
				      " 0)   4.000 us    |  }\n");
	/* funcgraph-irqs off: nothing of the handler */
	assert_string_equal(run(DEF & ~TFS_GRAPH_IRQS), " 0)               |  g_caller() {\n"
							" 0)   4.000 us    |  }\n");
	/* arrows without a duration column */
	assert_string_equal(strstr(run(DEF & ~TFS_GRAPH_DURATION), " 0) ==="),
			    " 0) ==========>\n"
			    " 0)   g_outer() {\n"
			    " 0)     g_leaf();\n"
			    " 0)   }\n"
			    " 0) <==========\n"
			    " 0) }\n");
}

/* ---- latency format, lost events, the tracer's own options ---------------------------------------- */

static void test_latency_and_lost(void **state)
{
	struct tfs_iter it = {.inst = &tfs_top, .cpu_filter = -1, .lat_fmt = true};
	struct tfs_event e;

	nev = 0;
	ent(100, 0, 1000, g_outer, 0);
	evs[0].h.flags = UT_EVF_SIGBLOCKED;
	e = (struct tfs_event){.ev = &evs[0].h, .cpu = 0, .ts = 1000};
	tfs_buf_reset(&out);
	it.lost = 3;
	assert_int_equal(tfs_graph_line(&it, &e, &out, DEF), 0);
	tfs_buf_append(&out, "", 1);
	assert_string_equal(out.data, "CPU:0 [LOST 3 EVENTS]\n"
				      " 0)  d.... |               |  g_outer() {\n");
	tfs_iter_release(&it);
}

static void set_trace_option(const char *text)
{
	struct tfs_open o = {.inst = &tfs_top, .cpu = -1, .flags = 1 /* O_WRONLY */};

	assert_int_equal(tfs_trace_options_ops.write(&o, text, strlen(text), 0), strlen(text));
}

static void test_tracer_options(void **state)
{
	const struct tracer *t = &tfs_function_graph_tracer;
	struct tfs_iter it = {.inst = &tfs_top, .cpu_filter = -1};

	/* the kernel's defaults */
	assert_int_equal(tfs_tracer_opts_of(&tfs_top, t), DEF);
	set_trace_option("funcgraph-tail\n");
	assert_int_equal(tfs_tracer_opts_of(&tfs_top, t), DEF | TFS_GRAPH_TAIL);
	set_trace_option("nofuncgraph-cpu\n");
	tfs_buf_reset(&out);
	t->print_header(&it, &out);
	tfs_buf_append(&out, "", 1);
	assert_string_equal(out.data, "#  DURATION                  FUNCTION CALLS\n"
				      "#   |   |                     |   |   |   |\n");
	set_trace_option("funcgraph-cpu\n");
	set_trace_option("nofuncgraph-tail\n");
	assert_int_equal(tfs_tracer_opts_of(&tfs_top, t), DEF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_headers, setup),
		cmocka_unit_test_setup(test_durations, setup),
		cmocka_unit_test_setup(test_nesting, setup),
		cmocka_unit_test_setup(test_cxx_names, setup),
		cmocka_unit_test_setup(test_demangle_option, setup),
		cmocka_unit_test_setup(test_comments, setup),
		cmocka_unit_test_setup(test_banner_proc_abstime, setup),
		cmocka_unit_test_setup(test_cpu_width_and_comm, setup),
		cmocka_unit_test_setup(test_no_context_info, setup),
		cmocka_unit_test_setup(test_retval, setup),
		cmocka_unit_test_setup(test_retaddr, setup),
		cmocka_unit_test_setup(test_irqs, setup),
		cmocka_unit_test_setup(test_latency_and_lost, setup),
		cmocka_unit_test_setup(test_tracer_options, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

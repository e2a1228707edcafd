// SPDX-License-Identifier: MIT
/*
 * test_sel_route.c - the selection memfd's instance entries (fs/sel.c, ut_sel.h
 * ut_sel_inst): which instances each process's sites feed, from each instance's
 * tracer, set_ftrace_filter/notrace and pid lists; then the runtime's reader
 * (runtime/selread.c) copying them back; and every instance's function probes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core.h"
#include "functab.h"
#include "tfs.h"
#include "ut_sel.h"

#include "../../runtime/selread.c"

#define NR_CPUS 2
/* ids no real process has: threads are known from the task table alone */
#define P1 3000001
#define P1T2 3000012 /* a thread of P1 */
#define P2 3000002
#define EXE "/opt/app/prog"

static const uint32_t offs[] = {0x100, 0x200, 0x300, 0x400};
static const char *const names[] = {"foo_one", "foo_two", "bar_one", "baz"};

static const struct ut_sel_proc *sel_proc(const struct tfs_buf *b, int32_t pid)
{
	const struct ut_sel_hdr *h = (const void *)b->data;

	for (uint32_t i = 0; i < h->nr_procs; i++) {
		const struct ut_sel_proc *p =
		    (const void *)(b->data + h->procs_off + i * sizeof(struct ut_sel_proc));

		if (p->pid == pid)
			return p;
	}
	fail();
	return NULL;
}

static const struct ut_sel_inst *sel_inst(const struct tfs_buf *b, const struct ut_sel_proc *p,
					  uint32_t k)
{
	assert_true(k < p->nr_insts);
	return (const void *)(b->data + p->insts_off + k * sizeof(struct ut_sel_inst));
}

/* The flag bytes of an instance entry as a string of T (traced) and . */
static void flags_str(const struct tfs_buf *b, const struct ut_sel_inst *e, char *out)
{
	for (int i = 0; i < 4; i++)
		out[i] = b->data[e->flags_off + i] & UT_SEL_TRACE ? 'T' : '.';
	out[4] = 0;
}

static void filter(struct tfs_instance *inst, enum tfs_filter f, const char *text)
{
	void *p = tfs_ft_open_priv_inst(inst, f, true);

	assert_non_null(p);
	assert_int_equal(tfs_ft_write(p, text, strlen(text)), (ssize_t)strlen(text));
	tfs_ft_close(p);
}

static struct tfs_instance *inst_named(const char *name)
{
	for (unsigned int s = 1; s < UT_INST_MAX; s++) {
		const struct tfs_instance *i = tfs_inst_slot(s);

		if (i && !strcmp(i->name, name))
			return tfs_inst_of_slot(s);
	}
	fail();
	return NULL;
}

static void build(struct tfs_buf *b)
{
	pthread_mutex_lock(&tfs_ft_lock);
	assert_int_equal(tfs_sel_build_locked(b), 0);
	pthread_mutex_unlock(&tfs_ft_lock);
}

static void test_routes(void **state)
{
	const struct tracer *function = tfs_tracer_find("function");
	struct tfs_instance *a, *bi;
	const struct ut_sel_proc *p;
	const struct ut_sel_inst *e;
	struct tfs_buf b = {0};
	char fl[8];

	assert_int_equal(tfs_ft_add_named(P1, 0, EXE, true, 0x555500000000, 4, offs, names), 1);
	assert_int_equal(tfs_ft_add_named(P2, 0, EXE, true, 0x555600000000, 4, offs, names), 1);
	assert_int_equal(tfs_inst_mkdir("a", 1), 0);
	assert_int_equal(tfs_inst_mkdir("b", 1), 0);
	a = inst_named("a");
	bi = inst_named("b");

	/* instances with nop: no entry at all */
	build(&b);
	assert_int_equal(sel_proc(&b, P1)->nr_insts, 0);

	filter(a, TFS_FILTER_TRACE, "foo*");
	filter(bi, TFS_FILTER_TRACE, "bar* foo_two");
	assert_int_equal(tfs_pid_write(bi, TFS_PID_FTRACE, true, "3000012", 7), 7);
	assert_int_equal(tfs_set_tracer(a, function), 0);
	build(&b);
	p = sel_proc(&b, P1);
	assert_int_equal(p->nr_insts, 1); /* b still nop */
	e = sel_inst(&b, p, 0);
	assert_int_equal(e->slot, a->slot);
	assert_int_equal(e->tasks, UT_SEL_TASKS_ALL);
	assert_int_equal(e->tracer, UT_TRACER_FUNCTION);
	flags_str(&b, e, fl);
	assert_string_equal(fl, "TT..");
	/* the top's own flags are the top's: no filter there, all traced */
	assert_int_equal(b.data[((const struct ut_sel_obj *)(b.data + p->objs_off))->flags_off + 3],
			 UT_SEL_TRACE);

	assert_int_equal(tfs_set_tracer(bi, function), 0);
	build(&b);
	p = sel_proc(&b, P1);
	assert_int_equal(p->nr_insts, 2);
	e = sel_inst(&b, p, 0);
	assert_int_equal(e->slot, a->slot);
	e = sel_inst(&b, p, 1);
	assert_int_equal(e->slot, bi->slot);
	assert_int_equal(e->tasks, UT_SEL_TASKS_ONLY); /* one thread of P1 */
	assert_int_equal(e->nr_tids, 1);
	assert_int_equal(*(const int32_t *)(b.data + e->tids_off), P1T2);
	flags_str(&b, e, fl);
	assert_string_equal(fl, ".TT.");
	/* P2 has no thread in b's pid list: a only */
	p = sel_proc(&b, P2);
	assert_int_equal(p->nr_insts, 1);
	assert_int_equal(sel_inst(&b, p, 0)->slot, a->slot);

	/* notrace wins in the instance too */
	filter(a, TFS_FILTER_NOTRACE, "foo_two");
	build(&b);
	flags_str(&b, sel_inst(&b, sel_proc(&b, P1), 0), fl);
	assert_string_equal(fl, "T...");

	/* the runtime's reader: P1's copy, the flags and tids indexed in its buffers */
	{
		static struct ut_sel_obj objs[4];
		static uint8_t flags[64], iflags[64];
		static int32_t itids[(UT_INST_MAX - 1) * UT_SEL_TIDS_MAX];
		struct ut_sel_copy c = {.objs = objs, .max_objs = 4, .flags = flags,
					.flags_cap = sizeof(flags), .iflags = iflags,
					.iflags_cap = 4, .itids = itids};

		assert_int_equal(ut_sel_read(b.data, b.len, P1, &c), -ENOSPC); /* 2 x 4 bytes */
		c.iflags_cap = sizeof(iflags);
		assert_int_equal(ut_sel_read(b.data, b.len, P1, &c), 0);
		assert_int_equal(c.nr_insts, 2);
		assert_int_equal(c.insts[1].slot, bi->slot);
		assert_memory_equal(c.iflags + c.insts[0].flags_off, "\1\0\0\0", 4);
		assert_memory_equal(c.iflags + c.insts[1].flags_off, "\0\1\1\0", 4);
		assert_int_equal(c.itids[c.insts[1].tids_off], P1T2);
		/* a slot out of range is refused */
		p = sel_proc(&b, P1);
		((struct ut_sel_inst *)(b.data + p->insts_off))->slot = UT_INST_MAX;
		assert_int_equal(ut_sel_read(b.data, b.len, P1, &c), -EINVAL);
	}

	/* an instance that goes is no longer routed */
	assert_int_equal(tfs_set_tracer(a, tfs_tracer_find("nop")), 0);
	assert_int_equal(tfs_inst_rmdir("a", 1), 0);
	build(&b);
	p = sel_proc(&b, P1);
	assert_int_equal(p->nr_insts, 1);
	assert_int_equal(sel_inst(&b, p, 0)->slot, bi->slot);
	assert_int_equal(tfs_set_tracer(bi, tfs_tracer_find("nop")), 0);
	assert_int_equal(tfs_inst_rmdir("b", 1), 0);
	tfs_buf_free(&b);
}

/*
 * function_graph in an instance: its entry says so (the runtime graphs the sites
 * its flags take), beside a function instance; set_graph_function is the top's
 * flag bytes, for every graph; an unknown tracer in an entry is refused.
 */
static void test_graph_routes(void **state)
{
	struct tfs_instance *g, *f;
	const struct ut_sel_proc *p;
	const struct ut_sel_inst *e;
	struct tfs_buf b = {0};
	char fl[8];

	assert_int_equal(tfs_inst_mkdir("g", 1), 0);
	assert_int_equal(tfs_inst_mkdir("f", 1), 0);
	g = inst_named("g");
	f = inst_named("f");
	filter(g, TFS_FILTER_TRACE, "foo* baz");
	assert_int_equal(tfs_set_tracer(g, tfs_tracer_find("function_graph")), 0);
	assert_int_equal(tfs_set_tracer(f, tfs_tracer_find("function")), 0);
	filter(&tfs_top, TFS_FILTER_GRAPH, "foo_two");
	build(&b);
	assert_int_equal(((const struct ut_sel_hdr *)(const void *)b.data)->routed, 1);
	assert_int_equal(((const struct ut_sel_hdr *)(const void *)b.data)->graph_funcs, 1);
	p = sel_proc(&b, P2);
	assert_int_equal(p->nr_insts, 2);
	e = sel_inst(&b, p, 0);
	assert_int_equal(e->slot, g->slot);
	assert_int_equal(e->tracer, UT_TRACER_FUNCTION_GRAPH);
	flags_str(&b, e, fl);
	assert_string_equal(fl, "TT.T");
	e = sel_inst(&b, p, 1);
	assert_int_equal(e->slot, f->slot);
	assert_int_equal(e->tracer, UT_TRACER_FUNCTION);
	/* the top's byte of foo_two carries set_graph_function for every graph */
	assert_true(b.data[((const struct ut_sel_obj *)(b.data + p->objs_off))->flags_off + 1] &
		    UT_SEL_GRAPH_FUNC);
	{
		static struct ut_sel_obj objs[4];
		static uint8_t flags[64], iflags[64];
		static int32_t itids[(UT_INST_MAX - 1) * UT_SEL_TIDS_MAX];
		struct ut_sel_copy c = {.objs = objs, .max_objs = 4, .flags = flags,
					.flags_cap = sizeof(flags), .iflags = iflags,
					.iflags_cap = sizeof(iflags), .itids = itids};

		assert_int_equal(ut_sel_read(b.data, b.len, P2, &c), 0);
		assert_int_equal(c.insts[0].tracer, UT_TRACER_FUNCTION_GRAPH);
		assert_int_equal(c.insts[1].tracer, UT_TRACER_FUNCTION);
		((struct ut_sel_inst *)(b.data + p->insts_off))->tracer = UT_TRACER_NOP;
		assert_int_equal(ut_sel_read(b.data, b.len, P2, &c), -EINVAL);
	}
	/* a graph instance whose tracer changes is no longer routed as a graph */
	assert_int_equal(tfs_set_tracer(g, tfs_tracer_find("function")), 0);
	build(&b);
	assert_int_equal(sel_inst(&b, sel_proc(&b, P2), 0)->tracer, UT_TRACER_FUNCTION);
	filter(&tfs_top, TFS_FILTER_GRAPH, "");
	assert_int_equal(tfs_set_tracer(g, tfs_tracer_find("nop")), 0);
	assert_int_equal(tfs_set_tracer(f, tfs_tracer_find("nop")), 0);
	assert_int_equal(tfs_inst_rmdir("g", 1), 0);
	assert_int_equal(tfs_inst_rmdir("f", 1), 0);
	tfs_buf_free(&b);
}

/*
 * Function probes of instances: every instance's in each process's list, with its
 * slot, sorted by site and then instance; an instance removed takes its own away.
 */
static void test_probe_routes(void **state)
{
	static const uint32_t want_site[] = {0, 0, 3}, want_cmd[] = {
		UT_PROBE_TRACEOFF, UT_PROBE_TRACEOFF, UT_PROBE_SNAPSHOT};
	static struct ut_sel_obj objs[4];
	static struct ut_sel_probe probes[8];
	static uint8_t flags[64];
	struct ut_sel_copy c = {.objs = objs, .max_objs = 4, .flags = flags,
				.flags_cap = sizeof(flags), .probes = probes, .max_probes = 8};
	struct tfs_instance *pi;
	struct tfs_buf b = {0};
	unsigned int want_inst[3];

	assert_int_equal(tfs_inst_mkdir("p", 1), 0);
	pi = inst_named("p");
	filter(&tfs_top, TFS_FILTER_TRACE, "foo_one:traceoff");
	filter(pi, TFS_FILTER_TRACE, "foo_one:traceoff:2 baz:snapshot");
	build(&b);
	assert_int_equal(((const struct ut_sel_hdr *)(const void *)b.data)->probes, 1);
	assert_int_equal(ut_sel_read(b.data, b.len, P1, &c), 0);
	assert_int_equal(c.nr_probes, 3);
	want_inst[0] = 0;
	want_inst[1] = want_inst[2] = pi->slot;
	for (unsigned int k = 0; k < 3; k++) {
		assert_int_equal(c.probes[k].site, want_site[k]);
		assert_int_equal(c.probes[k].cmd, want_cmd[k]);
		assert_int_equal(c.probes[k].inst, want_inst[k]);
	}
	assert_int_equal(c.probes[0].slot, UT_PROBE_UNLIMITED);
	assert_int_equal(*tfs_probe_counter(c.probes[1].slot), 2);
	assert_int_equal(c.flags[c.objs[0].flags_off + 3] & UT_SEL_PROBE, UT_SEL_PROBE);

	/* rmdir: its probes go, the top's stays */
	assert_int_equal(tfs_inst_rmdir("p", 1), 0);
	build(&b);
	assert_int_equal(ut_sel_read(b.data, b.len, P1, &c), 0);
	assert_int_equal(c.nr_probes, 1);
	assert_int_equal(c.probes[0].inst, 0);
	assert_int_equal(c.flags[c.objs[0].flags_off + 3] & UT_SEL_PROBE, 0);
	filter(&tfs_top, TFS_FILTER_TRACE, "!foo_one:traceoff");
	build(&b);
	assert_int_equal(((const struct ut_sel_hdr *)(const void *)b.data)->probes, 0);
	tfs_buf_free(&b);
}

static int group_setup(void **state)
{
	tfs_clock_init();
	tfs_state_defaults(NR_CPUS);
	tfs_ft_reset();
	tfs_task_record(P1, P1, "p1");
	tfs_task_record(P1T2, P1, "p1");
	tfs_task_record(P2, P2, "p2");
	return tfs_area_init(NR_CPUS);
}

static int group_teardown(void **state)
{
	tfs_ft_reset();
	tfs_pid_reset();
	tfs_area_fini();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_routes),
	    cmocka_unit_test(test_graph_routes),
	    cmocka_unit_test(test_probe_routes),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

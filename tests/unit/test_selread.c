// SPDX-License-Identifier: MIT
/*
 * test_selread.c - the runtime's reader of the selection memfd (runtime/selread.c):
 * a consistent copy of its own section, bounds checked against what it mapped, and
 * a retry while utracefs rewrites it (odd or changed hdr.seq).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "../../runtime/selread.c"

/*
 * Two processes: 10 (one object, 3 sites) and 20 (two objects, 2 and 4 sites, and
 * two function probes).  Layout: header 0, then procs, objs, tids (24 bytes),
 * flags (24), probes, event pid entries (two) and their tids (8), the end.
 */
#define PROCS_OFF 128u
#define OBJS_OFF (PROCS_OFF + 2 * sizeof(struct ut_sel_proc))
#define TIDS_OFF (OBJS_OFF + 3 * sizeof(struct ut_sel_obj))
#define FLAGS_OFF (TIDS_OFF + 24)
#define PROBES_OFF (FLAGS_OFF + 24)
#define EVPIDS_OFF (PROBES_OFF + 2 * sizeof(struct ut_sel_probe))
#define ETIDS_OFF (EVPIDS_OFF + 2 * sizeof(struct ut_sel_evpid))
#define SEL_SIZE (ETIDS_OFF + 8)
_Static_assert(sizeof(struct ut_sel_hdr) <= PROCS_OFF, "the header fits before the procs");
static union {
	char b[4096];
	uint64_t align;
} mem;

static void build(void)
{
	struct ut_sel_hdr *h = (void *)mem.b;
	struct ut_sel_proc *p = (void *)(mem.b + PROCS_OFF);
	struct ut_sel_obj *o = (void *)(mem.b + OBJS_OFF);
	uint8_t *f = (uint8_t *)mem.b + FLAGS_OFF;
	struct ut_sel_probe *pr = (void *)(mem.b + PROBES_OFF);

	memset(&mem, 0, sizeof(mem));
	*h = (struct ut_sel_hdr){.magic = UT_SEL_MAGIC, .seq = 2, .size = SEL_SIZE, .filtered = 1,
				 .probes = 1, .nr_procs = 2, .procs_off = PROCS_OFF};
	p[0] = (struct ut_sel_proc){.pid = 10, .nr_objs = 1, .objs_off = OBJS_OFF};
	p[1] = (struct ut_sel_proc){.pid = 20, .nr_objs = 2, .objs_off = OBJS_OFF + sizeof(*o),
				    .nr_probes = 2, .probes_off = PROBES_OFF};
	pr[0] = (struct ut_sel_probe){.obj = 0, .site = 1, .cmd = UT_PROBE_TRACEOFF, .slot = 7};
	pr[1] = (struct ut_sel_probe){
	    .obj = 3, .site = 1, .cmd = UT_PROBE_STACKTRACE, .slot = UT_PROBE_UNLIMITED, .inst = 2};
	o[0] = (struct ut_sel_obj){.obj = 0, .nr_sites = 3, .base = 0x1000, .flags_off = FLAGS_OFF};
	o[1] = (struct ut_sel_obj){.obj = 0, .nr_sites = 2, .base = 0x2000, .flags_off = FLAGS_OFF + 8};
	o[2] = (struct ut_sel_obj){.obj = 3, .nr_sites = 4, .base = 0x3000, .flags_off = FLAGS_OFF + 16};
	memcpy(f, "\1\0\1", 3);
	memcpy(f + 8, "\0\3", 2);
	memcpy(f + 16, "\1\5\1\0", 4);
}

static struct ut_sel_obj objs[4];
static uint8_t flags[16];
static struct ut_sel_probe probes[4];

static struct ut_sel_copy fresh(void)
{
	return (struct ut_sel_copy){.objs = objs,
				    .max_objs = 4,
				    .flags = flags,
				    .flags_cap = 16,
				    .probes = probes,
				    .max_probes = 4};
}

static void test_copies_own_section(void **state)
{
	struct ut_sel_copy c = fresh();

	build();
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), 0);
	assert_true(c.found);
	assert_int_equal(c.hdr.filtered, 1);
	assert_int_equal(c.nr_objs, 2);
	assert_int_equal(c.objs[1].obj, 3);
	assert_int_equal(c.objs[1].base, 0x3000);
	assert_int_equal(c.flags_len, 6);
	assert_memory_equal(c.flags + c.objs[0].flags_off, "\0\3", 2);
	assert_memory_equal(c.flags + c.objs[1].flags_off, "\1\5\1\0", 4);
	c = fresh();
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 10, &c), 0);
	assert_memory_equal(c.flags + c.objs[0].flags_off, "\1\0\1", 3);
}

static void test_no_section(void **state)
{
	struct ut_sel_copy c = fresh();

	build();
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 30, &c), 0);
	assert_false(c.found);
	assert_int_equal(c.nr_objs, 0);
	assert_int_equal(c.hdr.filtered, 1);
}

static void test_seq(void **state)
{
	struct ut_sel_copy c = fresh();

	build();
	((struct ut_sel_hdr *)mem.b)->seq = 3; /* being written */
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 10, &c), -EAGAIN);
	assert_false(c.found);
}

static void test_bounds(void **state)
{
	struct ut_sel_hdr *h = (void *)mem.b;
	struct ut_sel_proc *p = (void *)(mem.b + PROCS_OFF);
	struct ut_sel_obj *o = (void *)(mem.b + OBJS_OFF);
	struct ut_sel_copy c = fresh();

	build();
	assert_int_equal(ut_sel_read(mem.b, 200, 10, &c), -ERANGE); /* size > mapped */
	assert_int_equal(ut_sel_read(mem.b, 16, 10, &c), -ERANGE);
	h->magic = 0;
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 10, &c), -EINVAL);
	build();
	h->nr_procs = 1000; /* procs past the end */
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 10, &c), -EINVAL);
	build();
	h->procs_off = UINT64_MAX - 8; /* overflow */
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 10, &c), -EINVAL);
	build();
	p[0].nr_objs = 0x10000000;
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 10, &c), -EINVAL);
	build();
	o[0].flags_off = SEL_SIZE - 1; /* 3 flags from there: past the end */
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 10, &c), -EINVAL);
	assert_false(c.found);
	build();
	o[0].nr_sites = UINT32_MAX;
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 10, &c), -EINVAL);
}

static void test_small_buffers(void **state)
{
	struct ut_sel_copy c = fresh();

	build();
	c.flags_cap = 4;
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), -ENOSPC);
	assert_int_equal(c.flags_len, 6); /* what it needs */
	assert_false(c.found);
	c = fresh();
	c.max_objs = 1;
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), -ENOSPC);
	assert_int_equal(c.nr_objs, 2);
}

/* The thread selection (set_ftrace_pid): copied, and bounded like the rest. */
static void test_tasks(void **state)
{
	struct ut_sel_proc *p = (void *)(mem.b + PROCS_OFF);
	int32_t *tids = (int32_t *)(mem.b + TIDS_OFF);
	struct ut_sel_copy c = fresh();

	build();
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), 0);
	assert_int_equal(c.tasks, UT_SEL_TASKS_ALL);
	assert_int_equal(c.nr_tids, 0);
	tids[0] = 21;
	tids[1] = 23;
	p[1].tasks = UT_SEL_TASKS_ONLY;
	p[1].nr_tids = 2;
	p[1].tids_off = TIDS_OFF;
	c = fresh();
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), 0);
	assert_int_equal(c.tasks, UT_SEL_TASKS_ONLY);
	assert_int_equal(c.nr_tids, 2);
	assert_int_equal(c.tids[0], 21);
	assert_int_equal(c.tids[1], 23);
	p[1].tids_off = SEL_SIZE - 4; /* 8 bytes from there: past the end */
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), -EINVAL);
	p[1].tids_off = TIDS_OFF;
	p[1].nr_tids = UT_SEL_TIDS_MAX + 1;
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), -EINVAL);
	p[1].nr_tids = 2;
	p[1].tasks = 4; /* no such state */
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), -EINVAL);
	assert_false(c.found);
}

/* The function probes: copied, bounded, and -ENOSPC tells how many there are. */
static void test_probes(void **state)
{
	struct ut_sel_proc *p = (void *)(mem.b + PROCS_OFF);
	struct ut_sel_copy c = fresh();

	build();
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), 0);
	assert_int_equal(c.hdr.probes, 1);
	assert_int_equal(c.nr_probes, 2);
	assert_int_equal(c.probes[0].cmd, UT_PROBE_TRACEOFF);
	assert_int_equal(c.probes[0].slot, 7);
	assert_int_equal(c.probes[1].obj, 3);
	assert_int_equal(c.probes[1].slot, UT_PROBE_UNLIMITED);
	assert_int_equal(c.probes[1].inst, 2); /* an instance's probe */
	c = fresh();
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 10, &c), 0);
	assert_int_equal(c.nr_probes, 0);
	c = fresh();
	c.max_probes = 1;
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), -ENOSPC);
	assert_int_equal(c.nr_probes, 2); /* what it needs */
	assert_false(c.found);
	c = fresh();
	p[1].probes_off = SEL_SIZE - 20; /* 2 probes from there: past the end */
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), -EINVAL);
	p[1].probes_off = UINT64_MAX - 8;
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), -EINVAL);
	p[1].probes_off = PROBES_OFF;
	p[1].nr_probes = UT_SEL_PROBES_MAX + 1;
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), -EINVAL);
	assert_false(c.found);
}

/* The event pid lists (set_event_pid): copied per slot, bounded like the rest. */
static void test_evpids(void **state)
{
	static int32_t etids[UT_INST_MAX * UT_SEL_TIDS_MAX];
	struct ut_sel_proc *p = (void *)(mem.b + PROCS_OFF);
	struct ut_sel_evpid *e = (void *)(mem.b + EVPIDS_OFF);
	int32_t *tids = (int32_t *)(mem.b + ETIDS_OFF);
	struct ut_sel_copy c = fresh();

	build();
	e[0] = (struct ut_sel_evpid){.slot = 0, .tasks = UT_SEL_TASKS_ONLY, .nr_tids = 2,
				     .tids_off = ETIDS_OFF};
	e[1] = (struct ut_sel_evpid){.slot = 3, .tasks = UT_SEL_TASKS_NONE, .fork = 1};
	tids[0] = 20;
	tids[1] = 22;
	p[1].nr_evpids = 2;
	p[1].evpids_off = EVPIDS_OFF;
	p[1].ev_serial = 5;
	c.etids = etids;
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), 0);
	assert_int_equal(c.nr_evpids, 2);
	assert_int_equal(c.ev_serial, 5);
	assert_int_equal(c.evpids[0].tasks, UT_SEL_TASKS_ONLY);
	assert_int_equal(c.etids[c.evpids[0].tids_off + 1], 22);
	assert_int_equal(c.evpids[1].slot, 3);
	assert_int_equal(c.evpids[1].fork, 1);
	assert_true(ut_sel_tasks_take(c.evpids[0].tasks, c.etids + c.evpids[0].tids_off, 2, 22));
	assert_false(ut_sel_tasks_take(c.evpids[0].tasks, c.etids + c.evpids[0].tids_off, 2, 21));
	c = fresh(); /* no room for the lists */
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), -ENOSPC);
	assert_false(c.found);
	c = fresh();
	c.etids = etids;
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 10, &c), 0);
	assert_int_equal(c.nr_evpids, 0); /* another process's */
	e[0].tids_off = SEL_SIZE - 4; /* 8 bytes from there: past the end */
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), -EINVAL);
	e[0].tids_off = ETIDS_OFF;
	e[1].slot = UT_INST_MAX;
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), -EINVAL);
	e[1].slot = 3;
	p[1].nr_evpids = UT_INST_MAX + 1;
	assert_int_equal(ut_sel_read(mem.b, sizeof(mem), 20, &c), -EINVAL);
	assert_false(c.found);
}

/* One thread selection test for the runtime's three readers (control, route, evpid). */
static void test_tasks_take(void **state)
{
	const int32_t tids[] = {3, 7, 9};

	assert_true(ut_sel_tasks_take(UT_SEL_TASKS_ALL, NULL, 0, 5));
	assert_false(ut_sel_tasks_take(UT_SEL_TASKS_NONE, NULL, 0, 5));
	for (int32_t t = 0; t < 11; t++) {
		bool in = t == 3 || t == 7 || t == 9;

		assert_int_equal(ut_sel_tasks_take(UT_SEL_TASKS_ONLY, tids, 3, t), in);
		assert_int_equal(ut_sel_tasks_take(UT_SEL_TASKS_EXCEPT, tids, 3, t), !in);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_copies_own_section), cmocka_unit_test(test_no_section),
	    cmocka_unit_test(test_seq),		       cmocka_unit_test(test_bounds),
	    cmocka_unit_test(test_small_buffers),
	    cmocka_unit_test(test_tasks),
	    cmocka_unit_test(test_probes),
	    cmocka_unit_test(test_evpids),
	    cmocka_unit_test(test_tasks_take),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

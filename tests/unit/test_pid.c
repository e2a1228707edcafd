// SPDX-License-Identifier: MIT
/*
 * test_pid.c - set_ftrace_pid and co (fs/control/ftrace_pid.c): the kernel's parser (ids
 * in any base, white space, all or nothing), replace against append, the read-back
 * (`no pid`), which threads of a process each list selects (a process id: the
 * whole process for set_ftrace_pid, its main thread for set_event_pid), what the
 * selection memfd says per process (fs/sel.c), and function-fork/event-fork.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "functab.h"
#include "tfs.h"
#include "ut_sel.h"

static const uint32_t offs[] = {0x100, 0x200};
static const char *const names[] = {"main", "work"};

/* Ids far above any real pid so that /proc never knows them: threads come from
 * the task table (tfs_task_record) alone. */
#define P1 3000001 /* a process with threads P1T1, P1T2 */
#define P1T1 3000011
#define P1T2 3000012
#define P2 3000002

static int setup(void **state)
{
	tfs_ft_reset();
	tfs_pid_reset();
	tfs_task_record(P1, P1, "p1");
	tfs_task_record(P1T1, P1, "p1");
	tfs_task_record(P1T2, P1, "p1");
	tfs_task_record(P2, P2, "p2");
	assert_int_equal(tfs_ft_add_named(P1, 0, "/opt/p1", true, 0x1000, 2, offs, names), 1);
	assert_int_equal(tfs_ft_add_named(P2, 0, "/opt/p2", true, 0x1000, 2, offs, names), 1);
	return 0;
}

static int teardown(void **state)
{
	tfs_pid_reset();
	tfs_ft_reset();
	return 0;
}

static ssize_t wr(enum tfs_pid_list w, bool replace, const char *s)
{
	return tfs_pid_write(&tfs_top, w, replace, s, strlen(s));
}

static void expect_show(enum tfs_pid_list w, const char *want)
{
	struct tfs_buf b = {0};

	assert_int_equal(tfs_pid_show(&tfs_top, w, &b), 0);
	tfs_buf_append(&b, "", 1);
	assert_string_equal(b.data, want);
	tfs_buf_free(&b);
}

static void test_parse(void **state)
{
	for (int w = 0; w < TFS_PID_NR; w++) {
		/* the kernel's set_event_pid reads as nothing when empty */
		const char *none = w >= TFS_PID_EVENT ? "" : "no pid\n";

		expect_show(w, none);
		assert_int_equal(wr(w, true, "30\t10 0x14\n"), 11);
		expect_show(w, "10\n20\n30\n");
		assert_int_equal(wr(w, false, "010 10"), 6); /* octal 8; duplicates once */
		expect_show(w, "8\n10\n20\n30\n");
		assert_int_equal(wr(w, true, "5 x"), -EINVAL);
		assert_int_equal(wr(w, false, "5 -1"), -EINVAL);
		assert_int_equal(wr(w, false, "+5"), -EINVAL);
		if (w < TFS_PID_EVENT) {
			assert_int_equal(wr(w, false, "5 4194304"), -EINVAL);
		} else {
			/* the kernel's pid list: below 1 << 30, larger is EPERM */
			assert_int_equal(wr(w, false, "5 1073741824"), -EPERM);
			assert_int_equal(wr(w, false, "4294967295"), -EPERM);
			assert_int_equal(wr(w, false, "5 18446744073709551616"), -EINVAL);
			expect_show(w, "8\n10\n20\n30\n");
			assert_int_equal(wr(w, false, "4194304 1073741823"), 18);
			expect_show(w, "8\n10\n20\n30\n4194304\n1073741823\n");
			assert_int_equal(wr(w, true, "8 10 20 30"), 10);
		}
		assert_int_equal(wr(w, false, "5 4194303"), 9);
		expect_show(w, "5\n8\n10\n20\n30\n4194303\n");
		assert_int_equal(wr(w, true, "7"), 1);
		expect_show(w, "7\n");
		assert_int_equal(wr(w, true, "\n"), 1); /* nothing: emptied */
		expect_show(w, none);
		assert_int_equal(wr(w, false, "0"), 1); /* 0 is an id (the kernel's idle task) */
		expect_show(w, "0\n");
		tfs_pid_clear(&tfs_top, w);
		expect_show(w, none);
	}
}

typedef uint32_t (*resolver)(unsigned int slot, pid_t pid, int32_t *tids, uint32_t *nr);

/* What fn says about process pid in slot: the state, and the tids as want_tids. */
static uint32_t resolved(resolver fn, unsigned int slot, pid_t pid, const char *want_tids)
{
	int32_t tids[UT_SEL_TIDS_MAX];
	uint32_t n, st;
	char got[256] = "";

	pthread_mutex_lock(&tfs_ft_lock);
	st = fn(slot, pid, tids, &n);
	pthread_mutex_unlock(&tfs_ft_lock);
	for (uint32_t i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%d", i ? " " : "",
			 tids[i]);
	assert_string_equal(got, want_tids);
	return st;
}

/* The top's function lists, and the event lists of slot. */
static uint32_t tasks(pid_t pid, const char *want_tids)
{
	return resolved(tfs_pid_inst_tasks_locked, 0, pid, want_tids);
}

static uint32_t ev_tasks(unsigned int slot, pid_t pid, const char *want_tids)
{
	return resolved(tfs_pid_event_tasks_locked, slot, pid, want_tids);
}

static void test_tasks(void **state)
{
	char buf[64];

	assert_int_equal(tasks(P1, ""), UT_SEL_TASKS_ALL);
	snprintf(buf, sizeof(buf), "%d", P1);
	wr(TFS_PID_FTRACE, true, buf);
	assert_int_equal(tasks(P1, ""), UT_SEL_TASKS_ALL);
	assert_int_equal(tasks(P2, ""), UT_SEL_TASKS_NONE);
	snprintf(buf, sizeof(buf), "%d", P1T2);
	wr(TFS_PID_FTRACE, true, buf);
	assert_int_equal(tasks(P1, "3000012"), UT_SEL_TASKS_ONLY);
	assert_int_equal(tasks(P2, ""), UT_SEL_TASKS_NONE);
	snprintf(buf, sizeof(buf), "%d %d", P1T2, P1T1);
	wr(TFS_PID_FTRACE, true, buf);
	assert_int_equal(tasks(P1, "3000011 3000012"), UT_SEL_TASKS_ONLY);
	snprintf(buf, sizeof(buf), "%d", P1T1);
	wr(TFS_PID_FTRACE_NOTRACE, true, buf);
	assert_int_equal(tasks(P1, "3000012"), UT_SEL_TASKS_ONLY); /* notrace wins */
	wr(TFS_PID_FTRACE, true, "\n");
	assert_int_equal(tasks(P1, "3000011"), UT_SEL_TASKS_EXCEPT);
	assert_int_equal(tasks(P2, ""), UT_SEL_TASKS_ALL);
	snprintf(buf, sizeof(buf), "%d", P2);
	wr(TFS_PID_FTRACE_NOTRACE, true, buf);
	assert_int_equal(tasks(P2, ""), UT_SEL_TASKS_NONE);
	assert_int_equal(tasks(P1, ""), UT_SEL_TASKS_ALL);
	/* the event lists change nothing here */
	wr(TFS_PID_FTRACE_NOTRACE, true, "\n");
	wr(TFS_PID_EVENT, true, buf);
	wr(TFS_PID_EVENT_NOTRACE, true, buf);
	assert_int_equal(tasks(P1, ""), UT_SEL_TASKS_ALL);
	assert_int_equal(tasks(P2, ""), UT_SEL_TASKS_ALL);
}

static const struct ut_sel_proc *sel_proc(const struct tfs_buf *b, pid_t pid)
{
	const struct ut_sel_hdr *h = (const void *)b->data;

	for (uint32_t i = 0; i < h->nr_procs; i++) {
		const struct ut_sel_proc *p =
		    (const struct ut_sel_proc *)(b->data + h->procs_off) + i;

		if (p->pid == pid)
			return p;
	}
	fail();
	return NULL;
}

static void test_sel(void **state)
{
	struct tfs_buf b = {0};
	const struct ut_sel_proc *p;
	char buf[64];

	pthread_mutex_lock(&tfs_ft_lock);
	assert_int_equal(tfs_sel_build_locked(&b), 0);
	assert_int_equal(((struct ut_sel_hdr *)b.data)->tasks_filtered, 0);
	assert_int_equal(sel_proc(&b, P1)->tasks, UT_SEL_TASKS_ALL);
	pthread_mutex_unlock(&tfs_ft_lock);

	snprintf(buf, sizeof(buf), "%d %d", P1T2, P1T1);
	wr(TFS_PID_FTRACE, true, buf);
	pthread_mutex_lock(&tfs_ft_lock);
	assert_int_equal(tfs_sel_build_locked(&b), 0);
	assert_int_equal(((struct ut_sel_hdr *)b.data)->tasks_filtered, 1);
	p = sel_proc(&b, P1);
	assert_int_equal(p->tasks, UT_SEL_TASKS_ONLY);
	assert_int_equal(p->nr_tids, 2);
	assert_true(p->tids_off + 2 * sizeof(int32_t) <= ((struct ut_sel_hdr *)b.data)->size);
	assert_int_equal(((const int32_t *)(b.data + p->tids_off))[0], P1T1);
	assert_int_equal(((const int32_t *)(b.data + p->tids_off))[1], P1T2);
	p = sel_proc(&b, P2);
	assert_int_equal(p->tasks, UT_SEL_TASKS_NONE);
	assert_int_equal(p->nr_tids, 0);
	/* the site flags are still there and aligned after the tids */
	const struct ut_sel_obj *o = (const void *)(b.data + p->objs_off);
	assert_int_equal(o->flags_off % 8, 0);
	assert_int_equal(((const uint8_t *)b.data)[o->flags_off], UT_SEL_TRACE);
	pthread_mutex_unlock(&tfs_ft_lock);
	tfs_buf_free(&b);
}

/*
 * Each instance has its own four lists; what processes are told (the selection)
 * comes from the top level's alone, until events are routed to instances.
 */
static void test_instance_lists(void **state)
{
	struct tfs_instance other = {.slot = 5};
	struct tfs_buf b = {0};
	int32_t tids[UT_SEL_TIDS_MAX];
	uint32_t nr;

	assert_int_equal(tfs_pid_write(&other, TFS_PID_FTRACE, true, "7 3\n", 4), 4);
	assert_int_equal(tfs_pid_write(&other, TFS_PID_EVENT, true, "9\n", 2), 2);
	assert_int_equal(tfs_pid_show(&other, TFS_PID_FTRACE, &b), 0);
	tfs_buf_append(&b, "", 1);
	assert_string_equal(b.data, "3\n7\n");
	expect_show(TFS_PID_FTRACE, "no pid\n");
	expect_show(TFS_PID_EVENT, "");
	pthread_mutex_lock(&tfs_ft_lock);
	assert_false(tfs_pid_filtered_locked());
	assert_int_equal(tfs_pid_tasks_locked(P1, tids, &nr), UT_SEL_TASKS_ALL);
	pthread_mutex_unlock(&tfs_ft_lock);

	/* the top's list: the other instance's stays */
	assert_int_equal(wr(TFS_PID_FTRACE, true, "5\n"), 2);
	expect_show(TFS_PID_FTRACE, "5\n");
	tfs_buf_reset(&b);
	assert_int_equal(tfs_pid_show(&other, TFS_PID_FTRACE, &b), 0);
	tfs_buf_append(&b, "", 1);
	assert_string_equal(b.data, "3\n7\n");

	/* the instance goes: its lists with it */
	tfs_pid_inst_clear(&other);
	tfs_buf_reset(&b);
	assert_int_equal(tfs_pid_show(&other, TFS_PID_FTRACE, &b), 0);
	tfs_buf_append(&b, "", 1);
	assert_string_equal(b.data, "no pid\n");
	expect_show(TFS_PID_FTRACE, "5\n");
	tfs_buf_free(&b);
}

/* set_event_pid names threads, as the kernel's: a process id is its main thread. */
static void test_event_tasks(void **state)
{
	struct tfs_instance other = {.slot = 5};
	char buf[64];

	assert_int_equal(ev_tasks(0, P1, ""), UT_SEL_TASKS_ALL);
	snprintf(buf, sizeof(buf), "%d", P1);
	wr(TFS_PID_EVENT, true, buf);
	assert_int_equal(ev_tasks(0, P1, "3000001"), UT_SEL_TASKS_ONLY); /* not its threads */
	assert_int_equal(ev_tasks(0, P2, ""), UT_SEL_TASKS_NONE);
	assert_int_equal(ev_tasks(5, P1, ""), UT_SEL_TASKS_ALL); /* another instance's lists */
	snprintf(buf, sizeof(buf), "%d %d", P1T2, P1);
	wr(TFS_PID_EVENT, true, buf);
	snprintf(buf, sizeof(buf), "%d", P1);
	wr(TFS_PID_EVENT_NOTRACE, true, buf);
	assert_int_equal(ev_tasks(0, P1, "3000012"), UT_SEL_TASKS_ONLY); /* notrace wins */
	wr(TFS_PID_EVENT, true, "\n");
	assert_int_equal(ev_tasks(0, P1, "3000001"), UT_SEL_TASKS_EXCEPT);
	assert_int_equal(ev_tasks(0, P2, ""), UT_SEL_TASKS_ALL);
	snprintf(buf, sizeof(buf), "%d", P1T1);
	assert_int_equal(tfs_pid_write(&other, TFS_PID_EVENT, true, buf, strlen(buf)),
			 (ssize_t)strlen(buf));
	assert_int_equal(ev_tasks(5, P1, "3000011"), UT_SEL_TASKS_ONLY);
	/* the function lists read a process id as the whole process, still */
	snprintf(buf, sizeof(buf), "%d", P1);
	wr(TFS_PID_FTRACE, true, buf);
	assert_int_equal(tasks(P1, ""), UT_SEL_TASKS_ALL);
	tfs_pid_inst_clear(&other);
}

/* The selection says the event lists: per slot, in the header and per process. */
static void test_event_sel(void **state)
{
	struct tfs_buf b = {0};
	const struct ut_sel_hdr *h;
	const struct ut_sel_proc *p;
	const struct ut_sel_evpid *e;
	char buf[64];

	snprintf(buf, sizeof(buf), "%d", P1T1);
	wr(TFS_PID_EVENT, true, buf);
	pthread_mutex_lock(&tfs_ft_lock);
	assert_int_equal(tfs_sel_build_locked(&b), 0);
	pthread_mutex_unlock(&tfs_ft_lock);
	h = (const void *)b.data;
	assert_int_equal(h->ev_slots[0], 1);
	assert_int_equal(h->ev_only[0], 1);
	assert_int_equal(h->ev_fork[0], 0);
	assert_int_equal(h->tasks_filtered, 0); /* function tracing: untouched */
	p = sel_proc(&b, P1);
	assert_int_equal(p->nr_evpids, 1);
	assert_true(p->evpids_off + sizeof(*e) <= h->size);
	e = (const void *)(b.data + p->evpids_off);
	assert_int_equal(e->slot, 0);
	assert_int_equal(e->tasks, UT_SEL_TASKS_ONLY);
	assert_int_equal(e->nr_tids, 1);
	assert_int_equal(((const int32_t *)(b.data + e->tids_off))[0], P1T1);
	e = (const void *)(b.data + sel_proc(&b, P2)->evpids_off);
	assert_int_equal(e->tasks, UT_SEL_TASKS_NONE);
	tfs_buf_free(&b);
}

/*
 * event-fork and function-fork: one hook, each pair of lists by its own option; a
 * task created by a listed one joins, one that ends leaves, a process with its threads.
 */
static void test_follow(void **state)
{
	uint64_t opts = tfs_top.opts;
	char buf[64];

	snprintf(buf, sizeof(buf), "%d", P1);
	wr(TFS_PID_EVENT, true, buf);
	wr(TFS_PID_FTRACE, true, buf);
	/* no option: nothing follows */
	assert_false(tfs_pid_thread(P1, P1T1, P1, 2, false));
	assert_false(tfs_pid_fork(P2, P1));
	snprintf(buf, sizeof(buf), "%d\n", P1);
	expect_show(TFS_PID_EVENT, buf);

	tfs_top.opts |= 1ull << TFS_OPT_EVENT_FORK;
	assert_true(tfs_pid_thread(P1, P1T1, P1, 3, false));
	assert_false(tfs_pid_thread(P1, P1T2, P1T2 + 5, 4, false)); /* creator not listed */
	snprintf(buf, sizeof(buf), "%d\n%d\n", P1, P1T1);
	expect_show(TFS_PID_EVENT, buf);
	snprintf(buf, sizeof(buf), "%d\n", P1);
	expect_show(TFS_PID_FTRACE, buf); /* function-fork is off */
	pthread_mutex_lock(&tfs_ft_lock);
	assert_int_equal(tfs_pid_serial_locked(P1), 4);
	pthread_mutex_unlock(&tfs_ft_lock);
	assert_true(tfs_pid_thread(P1, P1T1, 0, 0, true)); /* it ends */
	snprintf(buf, sizeof(buf), "%d\n", P1);
	expect_show(TFS_PID_EVENT, buf);

	assert_true(tfs_pid_fork(P2, P1)); /* a child forked by P1's main thread */
	pthread_mutex_lock(&tfs_ft_lock);
	assert_int_equal(tfs_pid_serial_locked(P2), 1);
	pthread_mutex_unlock(&tfs_ft_lock);
	snprintf(buf, sizeof(buf), "%d\n%d\n", P1, P2);
	expect_show(TFS_PID_EVENT, buf);
	assert_true(tfs_pid_exit(P2));
	snprintf(buf, sizeof(buf), "%d\n", P1);
	expect_show(TFS_PID_EVENT, buf);

	/* notrace: the children of a notrace thread are notrace */
	wr(TFS_PID_EVENT, true, "\n");
	snprintf(buf, sizeof(buf), "%d", P1T2);
	wr(TFS_PID_EVENT_NOTRACE, true, buf);
	assert_true(tfs_pid_thread(P1, P1T1, P1T2, 5, false));
	snprintf(buf, sizeof(buf), "%d\n%d\n", P1T1, P1T2);
	expect_show(TFS_PID_EVENT_NOTRACE, buf);
	/* a process that goes takes its listed threads with it */
	assert_true(tfs_pid_exit(P1));
	expect_show(TFS_PID_EVENT_NOTRACE, "");
	pthread_mutex_lock(&tfs_ft_lock);
	assert_int_equal(tfs_pid_serial_locked(P1), 0);
	pthread_mutex_unlock(&tfs_ft_lock);
	tfs_top.opts = opts;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_parse, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tasks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sel, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_instance_lists, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_event_tasks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_event_sel, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_follow, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

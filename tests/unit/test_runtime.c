// SPDX-License-Identifier: MIT
/*
 * test_runtime.c - libutrace inside real instrumented programs (tests/progs/rt_calls),
 * driven by a fake daemon (rt_fake_daemon.h) instead of utracefs.
 *
 *  - no daemon: the program runs unchanged, its sites become 5-byte NOPs;
 *  - function tracer: exactly N events with the right ip (site + 5) and parent;
 *    nop tracer: none;
 *  - trace_printk/trace_puts text round trip; tracing_off() stops this process;
 *  - ymm arguments survive the trampoline's C slow paths;
 *  - fork: the child registers as a new process, its events carry its tid;
 *  - signal handler and blocked signals give the 'h' and 'd' context flags;
 *  - stress: threads call instrumented functions while the tracer switches
 *    nop <-> function hundreds of times; every call is traced while on, all sites
 *    are NOPs at the end;
 *  - SIGKILL in the middle of heavy tracing leaves the rings consistent;
 *  - the daemon going away unpatches, and a daemon coming back is attached to;
 *  - dlopen: the object is patched at once, also after 1500 dlopen/dlclose cycles;
 *  - the same program linked with -lutrace instead of preloaded;
 *  - glibc without rseq (GLIBC_TUNABLES=glibc.pthread.rseq=0): the runtime registers
 *    its own area per thread and traces exactly as with glibc's; a kernel without rseq
 *    (seccomp makes the syscall fail with ENOSYS): nothing written, program unharmed,
 *    unless the control page says "locked": then every call is one event again.
 */
#include <fcntl.h>
#include <libgen.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "rt_fake_daemon.h"
#include "seccomp_deny.h"

static char build[PATH_MAX], top[PATH_MAX], lib[PATH_MAX + 32], prog[PATH_MAX + 32];
static struct fake_daemon fd;
static int spawn_no_rseq; /* the child sees a kernel without rseq (ENOSYS) */

/* seccomp: rseq() fails with ENOSYS, as on a kernel built without it. */
static int deny_rseq(void)
{
	return deny_syscall(__NR_rseq, ENOSYS);
}

/* Start argv with the runtime preloaded (or not); stdout goes to *outfd. */
static pid_t spawn(const char *const argv[], int preload, int *outfd)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		if (preload)
			setenv("LD_PRELOAD", lib, 1);
		else
			unsetenv("LD_PRELOAD");
		if (spawn_no_rseq && deny_rseq())
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	*outfd = p[0];
	return pid;
}

/* Read one line (up to size - 1 bytes) from fd. */
static void read_line(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n + 1 < size && read(fd, buf + n, 1) == 1 && buf[n] != '\n')
		n++;
	buf[n] = 0;
}

/* Run to completion; returns the exit status, output in out. */
static int run(const char *const argv[], int preload, char *out, size_t size)
{
	int outfd, st;
	ssize_t n, total = 0;
	pid_t pid = spawn(argv, preload, &outfd);

	while ((n = read(outfd, out + total, size - 1 - (size_t)total)) > 0)
		total += n;
	out[total] = 0;
	close(outfd);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void site_bytes(pid_t pid, uintptr_t addr, unsigned char b[5])
{
	char path[64];
	int memfd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	memfd = open(path, O_RDONLY);
	assert_true(memfd >= 0);
	assert_int_equal(pread(memfd, b, 5, (off_t)addr), 5);
	close(memfd);
}

static const unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

static int wait_live(int n)
{
	for (int i = 0; i < 400; i++) {
		if (fd_live(&fd) == n)
			return 0;
		usleep(5000);
	}
	return -1;
}

/* ---- tests ---------------------------------------------------------------------- */

static void test_no_daemon(void **state)
{
	const char *bytes[] = {prog, "bytes", NULL}, *calls[] = {prog, "calls", "1000", NULL};
	char out[512];

	setenv("UTRACE_TRACING", "/nonexistent/utrace-test/tracing", 1);
	assert_int_equal(run(bytes, 0, out, sizeof(out)), 0);
	assert_string_equal(out, "90 90 90 90 90\n"); /* GCC's NOPs, as compiled */
	assert_int_equal(run(bytes, 1, out, sizeof(out)), 0);
	assert_string_equal(out, "0f 1f 44 00 00\n"); /* one 5-byte NOP, before main */
	assert_int_equal(run(calls, 1, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "leaf 0x"));
}

static void test_function_events(void **state)
{
	const char *calls[] = {prog, "calls", "1000", NULL};
	char out[512];
	unsigned long leaf, parent;
	int pid;

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	assert_int_equal(run(calls, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx parent %lx pid %d", &leaf, &parent, &pid), 3);
	/* exit closed the connection; the daemon has read every message before the EOF */
	assert_int_equal(wait_live(0), 0);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, (uint32_t)pid, leaf + 5, NULL), 1000);
	pthread_mutex_lock(&fd.mu);
	for (int i = 0; i < fd.nfuncs; i++)
		if (fd.funcs[i].ip == leaf + 5)
			assert_int_equal(fd.funcs[i].parent, parent);
	assert_int_equal(fd.bad, 0);
	assert_int_equal(fd.hellos, 1);
	assert_true(fd.tasks >= 1);
	assert_int_equal(fd.task_tids[0], (uint32_t)pid);
	pthread_mutex_unlock(&fd.mu);

	/* nop tracer: sites stay NOPs, nothing is written */
	fd_reset_rings(&fd);
	assert_int_equal(fd_publish(&fd, UT_TRACER_NOP, 0), 0);
	assert_int_equal(run(calls, 1, out, sizeof(out)), 0);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, 0, leaf + 5, NULL), 0);
	fd_stop(&fd);
}

/* func_stack_trace: a stack event after each function event, starting at the function. */
static void test_stack_trace(void **state)
{
	const char *calls[] = {prog, "calls", "10", NULL};
	char out[512];
	unsigned long leaf, parent;
	int pid;

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	assert_int_equal(fd_publish(&fd, UT_TRACER_FUNCTION, UT_CTL_OPT_FUNC_STACK_TRACE), 0);
	assert_int_equal(run(calls, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx parent %lx pid %d", &leaf, &parent, &pid), 3);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, (uint32_t)pid, leaf + 5, NULL), 10);
	pthread_mutex_lock(&fd.mu);
	assert_true(fd.stacks >= 12); /* main, caller, 10 x leaf */
	pthread_mutex_unlock(&fd.mu);

	/* Under ASLR the addresses change per run: match the stacks of a run with
	 * setarch -R (no randomisation) against that same run's output. */
	const char *norand[] = {"/usr/bin/setarch", "-R", prog, "calls", "1", NULL};
	unsigned long leaf2, parent2;

	if (access(norand[0], X_OK))
		skip();
	assert_int_equal(run(norand, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx parent %lx", &leaf, &parent), 2);
	fd_reset_rings(&fd);
	fd.stack_ip = leaf + 5;
	fd.stack_parent = parent;
	assert_int_equal(run(norand, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx parent %lx", &leaf2, &parent2), 2);
	assert_int_equal(leaf, leaf2); /* the same layout twice */
	fd_drain(&fd);
	assert_int_equal(fd.stack_matches, 1);
	fd_stop(&fd);
}

/*
 * ymm arguments survive the C slow paths (func_stack_trace on every call, a
 * thread's first event) even when those run glibc's AVX2 functions, which end with
 * vzeroupper: the tunable hides AVX-512 so that glibc picks those variants.
 */
static void test_avx_args(void **state)
{
	const char *avx[] = {prog, "avx", "200", NULL};
	char out[512];
	unsigned long bad, total;

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	assert_int_equal(fd_publish(&fd, UT_TRACER_FUNCTION, UT_CTL_OPT_FUNC_STACK_TRACE), 0);
	setenv("GLIBC_TUNABLES",
	       "glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ", 1);
	assert_int_equal(run(avx, 1, out, sizeof(out)), 0);
	unsetenv("GLIBC_TUNABLES");
	fd_drain(&fd);
	pthread_mutex_lock(&fd.mu);
	assert_true(fd.stacks >= 600); /* the slow path did run for every call */
	pthread_mutex_unlock(&fd.mu);
	fd_stop(&fd);
	if (!strcmp(out, "noavx\n"))
		skip();
	assert_int_equal(sscanf(out, "avx bad %lu of %lu", &bad, &total), 2);
	assert_int_equal(total, 600);
	assert_int_equal(bad, 0);
}

/*
 * The trampoline writes exactly what ut_rb_write_on_cpu() writes: read back every
 * event of CPU 0's ring (nothing consumed), replay them and the dropped ones
 * through the reference into a fresh area, compare the per-CPU state and every
 * page header and committed byte.
 */
static void replay_compare(void *a, unsigned int nr_pages)
{
	void *b = mmap(NULL, ut_rb_area_size(1), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	struct rb_cpu *ra = ut_rb_cpu(a, 0), *rb;
	uint64_t w = ra->wpos;
	unsigned int cur = rb_wpos_vpage(w), replayed = 0;

	assert_true(b != MAP_FAILED);
	assert_true(cur < nr_pages); /* not wrapped: everything is still there */
	ut_rb_reset_cpu(b, 0, nr_pages, ra->flags);
	rb = ut_rb_cpu(b, 0);
	rb->enabled = 1;
	for (unsigned int v = 0; v <= cur; v++) {
		struct rb_page *p = ut_rb_page(a, 0, v);
		unsigned int used = v == cur ? rb_wpos_off(w) : rb_wpos_off(p->commit);

		for (unsigned int off = 0; off < used;) {
			struct ut_ev *e = (struct ut_ev *)((char *)(p + 1) + off);

			assert_int_equal(ut_rb_write_on_cpu(b, 0, e), 0);
			off += e->len;
			replayed++;
		}
	}
	for (uint64_t i = 0; i < ra->dropped; i++) {
		struct ut_ev_func f = {.h = {.len = 32, .type = UT_EV_FUNCTION}};

		assert_int_equal(ut_rb_write_on_cpu(b, 0, &f.h), -ENOSPC);
	}
	assert_true(replayed > 0);
	rb->gen = ra->gen; /* how often each area was reset: not the writers' doing */
	assert_memory_equal(ra, rb, UT_RB_CPU_SIZE);
	for (unsigned int v = 0; v <= cur; v++) {
		struct rb_page *p = ut_rb_page(a, 0, v), *q = ut_rb_page(b, 0, v);
		unsigned int used = v == cur ? rb_wpos_off(w) : rb_wpos_off(p->commit);

		assert_memory_equal(p, q, UT_RB_PAGE_HDR + used);
	}
	munmap(b, ut_rb_area_size(1));
}

static void test_tramp_matches_reference(void **state)
{
	const char *argv[] = {"/usr/bin/taskset", "-c", "0", prog, "calls", "3000", NULL};
	char out[512];

	if (access(argv[0], X_OK))
		skip();
	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	fd.paused = 1;
	/* a big ring: page switches */
	assert_int_equal(run(argv, 1, out, sizeof(out)), 0);
	assert_true(rb_wpos_vpage(ut_rb_cpu(fd.area, 0)->wpos) >= 20);
	replay_compare(fd.area, FD_RING_PAGES);
	/* 4 pages, no overwrite, nobody reading: full, then every event dropped */
	ut_rb_cpu(fd.area, 0)->enabled = 0;
	ut_rb_reset_cpu(fd.area, 0, 4, 0);
	ut_rb_cpu(fd.area, 0)->enabled = 1;
	assert_int_equal(run(argv, 1, out, sizeof(out)), 0);
	assert_true(ut_rb_cpu(fd.area, 0)->dropped > 2000);
	replay_compare(fd.area, 4);
	fd_stop(&fd);
}

static void test_printk_tracing_off(void **state)
{
	const char *argv[] = {prog, "printk", NULL};
	char out[512];
	unsigned long leaf;
	int on;

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	assert_int_equal(run(argv, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx is_on %d", &leaf, &on), 2);
	assert_int_equal(on, 0);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, 0, leaf + 5, NULL), 10); /* not the 100 after tracing_off */
	pthread_mutex_lock(&fd.mu);
	assert_int_equal(fd.nprints, 2);
	assert_string_equal(fd.prints[0], "hello 42 from printk\n");
	assert_string_equal(fd.prints[1], "a constant string\n");
	/* constant formats: the kernel's binary records, their texts told once */
	assert_int_equal(fd.print_type[0], UT_EV_BPRINT);
	assert_int_equal(fd.print_type[1], UT_EV_BPUTS);
	assert_true(fd.print_ip[0] != 0 && fd.print_ip[0] != fd.print_ip[1]);
	assert_int_equal(fd.tracing_msgs, 1);
	assert_int_equal(fd.last_tracing, 0);
	pthread_mutex_unlock(&fd.mu);

	/* option trace_printk off: no print events */
	fd_reset_rings(&fd);
	fd.ctl->trace_printk = 0;
	assert_int_equal(run(argv, 1, out, sizeof(out)), 0);
	fd_drain(&fd);
	assert_int_equal(fd.nprints, 0);
	fd_stop(&fd);
}

static void test_fork(void **state)
{
	const char *argv[] = {prog, "fork", "10", NULL};
	char out[512];
	unsigned long leaf;
	int child, parent, found = 0;

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	assert_int_equal(run(argv, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx child %d parent %d", &leaf, &child, &parent), 3);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, (uint32_t)parent, leaf + 5, NULL), 10);
	assert_int_equal(fd_count(&fd, (uint32_t)child, leaf + 5, NULL), 20);
	pthread_mutex_lock(&fd.mu);
	assert_int_equal(fd.hellos, 2);
	for (int i = 0; i < fd.hellos; i++)
		found += fd.hello_pids[i] == child;
	pthread_mutex_unlock(&fd.mu);
	assert_int_equal(found, 1);
	fd_stop(&fd);
}

static void test_signal_flags(void **state)
{
	const char *argv[] = {prog, "signal", "10", NULL};
	char out[512];
	unsigned long leaf;
	uint64_t plain = 0, handler = 0, blocked = 0;

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	assert_int_equal(run(argv, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx", &leaf), 1);
	fd_drain(&fd);
	pthread_mutex_lock(&fd.mu);
	for (int i = 0; i < fd.nfuncs; i++) {
		if (fd.funcs[i].ip != leaf + 5)
			continue;
		if (fd.funcs[i].flags == 0)
			plain += fd.funcs[i].count;
		else if (fd.funcs[i].flags == UT_EVF_SIGHANDLER)
			handler += fd.funcs[i].count;
		else if (fd.funcs[i].flags == UT_EVF_SIGBLOCKED)
			blocked += fd.funcs[i].count;
	}
	pthread_mutex_unlock(&fd.mu);
	assert_int_equal(handler, 10);
	assert_int_equal(blocked, 10);
	assert_int_equal(plain, 10);
	fd_stop(&fd);
}

struct stress_ctl {
	volatile int request, done, stop, per;
};

static void test_stress_switching(void **state)
{
	char file[PATH_MAX], line[256];
	const char *argv[] = {prog, "stress", "2", file, NULL};
	unsigned long leaf, counted;
	unsigned char b[5];
	int outfd, st, fdf, rounds = 0;
	const int per = 1000;

	assert_int_equal(fd_start(&fd, UT_TRACER_NOP), 0);
	snprintf(file, sizeof(file), "%s/stress", fd.dir);
	fdf = open(file, O_RDWR | O_CREAT, 0600);
	assert_int_equal(ftruncate(fdf, 4096), 0);
	struct stress_ctl *sc = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fdf, 0);

	pid_t pid = spawn(argv, 1, &outfd);

	read_line(outfd, line, sizeof(line));
	assert_int_equal(sscanf(line, "leaf %lx counted %lx", &leaf, &counted), 2);
	assert_int_equal(wait_live(1), 0);
	for (int i = 0; i < 300; i++) {
		assert_int_equal(fd_publish(&fd, UT_TRACER_FUNCTION, 0), 0);
		if (i % 10 == 0) {
			site_bytes(pid, counted, b);
			assert_int_equal(b[0], 0xe8);
			/* a window while on: every one of these calls must be traced */
			sc->done = 0;
			sc->per = per;
			__atomic_fetch_add(&sc->request, 1, __ATOMIC_SEQ_CST);
			for (int k = 0; k < 4000 && sc->done < 2; k++)
				usleep(500);
			assert_int_equal(sc->done, 2);
			rounds++;
		}
		assert_int_equal(fd_publish(&fd, UT_TRACER_NOP, 0), 0);
	}
	site_bytes(pid, leaf, b);
	assert_memory_equal(b, nop5, 5);
	site_bytes(pid, counted, b);
	assert_memory_equal(b, nop5, 5);
	sc->stop = 1;
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, 0, counted + 5, NULL), (uint64_t)rounds * 2 * per);
	assert_true(fd_count(&fd, 0, leaf + 5, NULL) > 0);
	for (unsigned int c = 0; c < fd.nr_cpus; c++)
		assert_int_equal(ut_rb_cpu(fd.area, c)->dropped, 0);
	assert_int_equal(fd.bad, 0);
	munmap(sc, 4096);
	close(fdf);
	close(outfd);
	unlink(file);
	fd_stop(&fd);
}

static uint64_t written(void *area, unsigned int cpu)
{
	uint64_t w = ut_rb_cpu(area, cpu)->wpos;

	return ut_rb_page(area, cpu, rb_wpos_slot(w))->base_entries + rb_wpos_entries(w);
}

static void test_sigkill(void **state)
{
	const char *argv[] = {prog, "spin", NULL};
	char line[128];
	unsigned long leaf;
	int outfd, st;

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	for (int round = 0; round < 3; round++) {
		fd_reset_rings(&fd);
		pid_t pid = spawn(argv, 1, &outfd);

		read_line(outfd, line, sizeof(line));
		assert_int_equal(sscanf(line, "leaf %lx", &leaf), 1);
		usleep(20000 + 15000 * round);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		close(outfd);
		assert_true(WIFSIGNALED(st));
		fd_drain(&fd);
		assert_int_equal(fd.bad, 0);
		assert_true(fd_count(&fd, (uint32_t)pid, leaf + 5, NULL) > 0);
		/* every committed event was read, nothing else */
		for (unsigned int c = 0; c < fd.nr_cpus; c++)
			assert_int_equal(fd.events[c], written(fd.area, c));
	}
	assert_int_equal(wait_live(0), 0);
	fd_stop(&fd);
}

static void test_daemon_gone_and_back(void **state)
{
	char file[PATH_MAX], line[256], dir[128];
	const char *argv[] = {prog, "stress", "1", file, NULL};
	unsigned long leaf, counted;
	unsigned char b[5];
	int outfd, st, fdf;

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	snprintf(dir, sizeof(dir), "%s", fd.dir);
	snprintf(file, sizeof(file), "%s/stress", fd.dir);
	fdf = open(file, O_RDWR | O_CREAT, 0600);
	assert_int_equal(ftruncate(fdf, 4096), 0);
	struct stress_ctl *sc = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fdf, 0);
	pid_t pid = spawn(argv, 1, &outfd);

	read_line(outfd, line, sizeof(line));
	assert_int_equal(sscanf(line, "leaf %lx counted %lx", &leaf, &counted), 2);
	assert_int_equal(wait_live(1), 0);
	site_bytes(pid, leaf, b);
	assert_int_equal(b[0], 0xe8);

	fd_stop_keep(&fd, 1); /* EOF: the runtime unpatches */
	for (int i = 0; i < 200 && (site_bytes(pid, leaf, b), b[0] == 0xe8); i++)
		usleep(10000);
	assert_memory_equal(b, nop5, 5);

	assert_int_equal(fd_start_in(&fd, UT_TRACER_FUNCTION, dir), 0); /* comes back */
	assert_int_equal(wait_live(1), 0);
	for (int i = 0; i < 200 && (site_bytes(pid, leaf, b), b[0] != 0xe8); i++)
		usleep(10000);
	assert_int_equal(b[0], 0xe8);
	for (int i = 0; i < 200 && fd_count(&fd, 0, leaf + 5, NULL) == 0; i++)
		usleep(10000);
	assert_true(fd_count(&fd, 0, leaf + 5, NULL) > 0); /* from the program's thread */

	sc->stop = 1;
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	munmap(sc, 4096);
	close(fdf);
	close(outfd);
	unlink(file);
	fd_stop(&fd);
}

/* A thread that renames itself is announced again with its new comm. */
static void test_rename(void **state)
{
	const char *argv[] = {prog, "rename", "3", NULL};
	char out[512];
	unsigned long leaf, parent;
	int pid;

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	assert_int_equal(run(argv, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx parent %lx pid %d", &leaf, &parent, &pid), 3);
	assert_int_equal(wait_live(0), 0);
	pthread_mutex_lock(&fd.mu);
	assert_int_equal(fd.tasks, 2);
	assert_string_equal(fd.task_comm[0], "rt_calls");
	assert_string_equal(fd.task_comm[1], "renamed");
	assert_int_equal(fd.task_tids[1], (uint32_t)pid);
	pthread_mutex_unlock(&fd.mu);
	fd_stop(&fd);
}

/* A program that closes every descriptor: the runtime registers again, writes nothing
 * into whatever reuses the number. */
static void test_closed_socket(void **state)
{
	const char *argv[] = {prog, "closefds", "100", NULL};
	char out[512];
	unsigned long leaf, parent;
	int pid;

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	assert_int_equal(run(argv, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx parent %lx pid %d", &leaf, &parent, &pid), 3);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, (uint32_t)pid, leaf + 5, NULL), 100);
	pthread_mutex_lock(&fd.mu);
	assert_int_equal(fd.hellos, 2);
	pthread_mutex_unlock(&fd.mu);
	fd_stop(&fd);
}

/* Build fd.dir/dso.so, an instrumented dso_fn(); 0 or -1 (no compiler). */
static int build_dso(char *src, char *so, size_t size)
{
	char cmd[3 * PATH_MAX];
	FILE *f;

	snprintf(src, size, "%s/dso.c", fd.dir);
	snprintf(so, size, "%s/dso.so", fd.dir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs("volatile unsigned long dso_sink;\n"
	      "void dso_fn(unsigned long i) { dso_sink += i; }\n",
	      f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -O2 -shared -fPIC -fpatchable-function-entry=5 -o %s %s", so,
		 src);
	return system(cmd) == 0 ? 0 : -1;
}

/* Sites of an object loaded with dlopen() are patched before dlopen() returns. */
static void test_dlopen(void **state)
{
	char src[PATH_MAX], so[PATH_MAX], out[512];
	const char *argv[] = {prog, "dlopen", so, "77", NULL};
	unsigned long site;

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	if (build_dso(src, so, sizeof(src))) {
		fd_stop(&fd);
		skip();
	}
	assert_int_equal(run(argv, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "dso_fn %lx", &site), 1);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, 0, site + 5, NULL), 77);
	pthread_mutex_lock(&fd.mu);
	assert_true(fd.maps_msgs >= 2); /* dlopen and dlclose */
	pthread_mutex_unlock(&fd.mu);
	unlink(src);
	unlink(so);
	fd_stop(&fd);
}

/* More dlopen/dlclose cycles than object slots: unloaded objects give theirs back. */
static void test_dlopen_loop(void **state)
{
	char src[PATH_MAX], so[PATH_MAX], out[512];
	const char *argv[] = {prog, "dlloop", so, "1500", NULL};
	unsigned long site;
	unsigned int first;

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	if (build_dso(src, so, sizeof(src))) {
		fd_stop(&fd);
		skip();
	}
	assert_int_equal(run(argv, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "dso_fn %lx first %x", &site, &first), 2);
	assert_int_equal(first, 0xe8); /* the last load was patched */
	fd_drain(&fd);
	assert_true(fd_count(&fd, 0, site + 5, NULL) >= 100); /* and traced */
	unlink(src);
	unlink(so);
	fd_stop(&fd);
}

/* Other code generators: endbr64 before the NOPs (-fcf-protection), clang's 5-byte NOP. */
static void test_compilers(void **state)
{
	static const char *const variants[][2] = {
	    {"gcc", "-fcf-protection=full"},
	    {"clang", ""},
	};
	char exe[PATH_MAX + 32], cmd[4 * PATH_MAX], out[512];
	const char *calls[] = {exe, "calls", "300", NULL};
	unsigned long leaf, parent;
	int pid, built = 0;

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	for (unsigned int v = 0; v < 2; v++) {
		snprintf(exe, sizeof(exe), "%s/rt_calls_%s", fd.dir, variants[v][0]);
		snprintf(cmd, sizeof(cmd),
			 "%s -O2 -fpatchable-function-entry=5 %s -I%s/include -o %s "
			 "%s/tests/progs/rt_calls.c -lpthread -ldl >/dev/null 2>&1",
			 variants[v][0], variants[v][1], top, exe, top);
		if (system(cmd) != 0)
			continue;
		built++;
		fd_reset_rings(&fd);
		assert_int_equal(run(calls, 1, out, sizeof(out)), 0);
		assert_int_equal(sscanf(out, "leaf %lx parent %lx pid %d", &leaf, &parent, &pid),
				 3);
		fd_drain(&fd);
		assert_int_equal(fd_count(&fd, (uint32_t)pid, leaf + 5, NULL), 300);
		unlink(exe);
	}
	fd_stop(&fd);
	if (!built)
		skip();
}

/* The same program linked with -lutrace (not preloaded). */
static void test_linked(void **state)
{
	char linked[PATH_MAX + 32], cmd[6 * PATH_MAX], out[512];
	const char *calls[] = {linked, "calls", "500", NULL}, *bytes[] = {linked, "bytes", NULL};
	unsigned long leaf, parent;
	int pid;

	snprintf(linked, sizeof(linked), "%s/tests/progs/rt_calls_linked", build);
	snprintf(
	    cmd, sizeof(cmd),
	    "cc -O2 -g -fpatchable-function-entry=5 -I%s/include -o %s %s/tests/progs/rt_calls.c "
	    "-L%s/lib -Wl,-rpath,%s/lib -lutrace -lpthread 2>&1",
	    top, linked, top, build, build);
	if (system(cmd) != 0)
		skip();
	setenv("UTRACE_TRACING", "/nonexistent/utrace-test/tracing", 1);
	assert_int_equal(run(bytes, 0, out, sizeof(out)), 0);
	assert_string_equal(out, "0f 1f 44 00 00\n");
	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	assert_int_equal(run(calls, 0, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx parent %lx pid %d", &leaf, &parent, &pid), 3);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, (uint32_t)pid, leaf + 5, NULL), 500);
	fd_stop(&fd);
}

/*
 * Threads of a program whose glibc did not register rseq (and, as a control, whose
 * did): every call of every thread is one event, through the trampoline, through
 * ut_rb_write (trace_printk, stack traces), in a fork child, and in threads that reuse
 * the stacks and TLS of exited ones.
 */
static void check_threads_exact(unsigned int want_rseq_size)
{
	const char *argv[] = {prog, "threads", "4", "2000", NULL};
	uint32_t tids[64];
	unsigned long leaf;
	unsigned int size;
	int pid, ntids, first, exact = 0;
	char out[512];

	fd_reset_rings(&fd);
	pthread_mutex_lock(&fd.mu);
	first = fd.tasks;
	pthread_mutex_unlock(&fd.mu);
	assert_int_equal(run(argv, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx pid %d rseq %u", &leaf, &pid, &size), 3);
	assert_int_equal(size, want_rseq_size); /* glibc's registration is as intended */
	assert_int_equal(wait_live(0), 0);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, 0, leaf + 5, NULL), 2 * 4 * 2000);
	pthread_mutex_lock(&fd.mu);
	ntids = fd.tasks - first;
	assert_true(fd.tasks <= 64);
	memcpy(tids, fd.task_tids + first, (size_t)ntids * sizeof(tids[0]));
	assert_int_equal(fd.bad, 0);
	pthread_mutex_unlock(&fd.mu);
	assert_int_equal(ntids, 1 + 2 * 4); /* main and the 8 threads */
	for (int i = 0; i < ntids; i++)
		exact += fd_count(&fd, tids[i], leaf + 5, NULL) == 2000;
	assert_int_equal(exact, 2 * 4);
	for (unsigned int c = 0; c < fd.nr_cpus; c++)
		assert_int_equal(ut_rb_cpu(fd.area, c)->dropped, 0);
}

static void test_no_glibc_rseq(void **state)
{
	const char *printk[] = {prog, "printk", NULL}, *forkp[] = {prog, "fork", "10", NULL};
	const char *calls[] = {prog, "calls", "10", NULL};
	unsigned long leaf, parent;
	int child, ppid, pid;
	char out[512];

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	check_threads_exact(__rseq_size);
	setenv("GLIBC_TUNABLES", "glibc.pthread.rseq=0", 1);
	check_threads_exact(0);

	fd_reset_rings(&fd);
	assert_int_equal(run(printk, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx", &leaf), 1);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, 0, leaf + 5, NULL), 10);
	pthread_mutex_lock(&fd.mu);
	assert_int_equal(fd.nprints, 2); /* ut_rb_write with the runtime's area */
	assert_string_equal(fd.prints[0], "hello 42 from printk\n");
	pthread_mutex_unlock(&fd.mu);

	fd_reset_rings(&fd);
	assert_int_equal(run(forkp, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx child %d parent %d", &leaf, &child, &ppid), 3);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, (uint32_t)ppid, leaf + 5, NULL), 10);
	assert_int_equal(fd_count(&fd, (uint32_t)child, leaf + 5, NULL), 20); /* inherited */

	fd_reset_rings(&fd);
	assert_int_equal(fd_publish(&fd, UT_TRACER_FUNCTION, UT_CTL_OPT_FUNC_STACK_TRACE), 0);
	assert_int_equal(run(calls, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx parent %lx pid %d", &leaf, &parent, &pid), 3);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, (uint32_t)pid, leaf + 5, NULL), 10);
	pthread_mutex_lock(&fd.mu);
	assert_true(fd.stacks >= 12);
	pthread_mutex_unlock(&fd.mu);
	unsetenv("GLIBC_TUNABLES");
	fd_stop(&fd);
}

/*
 * No rseq in the kernel at all.  In rseq write mode (the daemon believes the kernel
 * has rseq) events are lost (counted), the program runs unharmed; in locked mode
 * (what utracefs chooses on such a kernel) every call is one event again, through
 * the trampoline, ut_rb_write's callers (trace_printk, stack traces) and threads.
 */
static void test_no_kernel_rseq(void **state)
{
	const char *threads[] = {prog, "threads", "2", "500", NULL};
	const char *printk[] = {prog, "printk", NULL}, *calls[] = {prog, "calls", "10", NULL};
	unsigned long leaf, parent;
	unsigned int size;
	int pid, st;
	char out[512];

	/* what utracefs asks to choose the write mode: yes here, no under the filter */
	assert_int_equal(ut_rb_kernel_has_rseq(), 1);
	pid = fork();
	if (pid == 0)
		_exit(deny_rseq() ? 2 : ut_rb_kernel_has_rseq());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION), 0);
	spawn_no_rseq = 1;
	assert_int_equal(run(threads, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx pid %d rseq %u", &leaf, &pid, &size), 3);
	assert_int_equal(size, 0);
	assert_int_equal(run(printk, 1, out, sizeof(out)), 0);
	spawn_no_rseq = 0;
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, 0, leaf + 5, NULL), 0);
	pthread_mutex_lock(&fd.mu);
	assert_int_equal(fd.nprints, 0);
	assert_true(fd.tasks >= 1 + 2 * 2); /* the threads did run traced code */
	assert_int_equal(fd.bad, 0);
	pthread_mutex_unlock(&fd.mu);
	for (unsigned int c = 0; c < fd.nr_cpus; c++)
		assert_int_equal(written(fd.area, c), 0);

	fd_set_write_mode(&fd, UT_CTL_WRITE_LOCKED);
	fd_reset_rings(&fd);
	spawn_no_rseq = 1;
	assert_int_equal(run(threads, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx pid %d rseq %u", &leaf, &pid, &size), 3);
	assert_int_equal(size, 0);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, 0, leaf + 5, NULL), 2 * 2 * 500);

	fd_reset_rings(&fd);
	assert_int_equal(run(printk, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx", &leaf), 1);
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, 0, leaf + 5, NULL), 10);
	pthread_mutex_lock(&fd.mu);
	assert_int_equal(fd.nprints, 2);
	assert_string_equal(fd.prints[0], "hello 42 from printk\n");
	assert_int_equal(fd.bad, 0);
	pthread_mutex_unlock(&fd.mu);

	fd_reset_rings(&fd);
	assert_int_equal(fd_publish(&fd, UT_TRACER_FUNCTION, UT_CTL_OPT_FUNC_STACK_TRACE), 0);
	assert_int_equal(run(calls, 1, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "leaf %lx parent %lx", &leaf, &parent), 2);
	spawn_no_rseq = 0;
	fd_drain(&fd);
	assert_int_equal(fd_count(&fd, 0, leaf + 5, NULL), 10);
	pthread_mutex_lock(&fd.mu);
	assert_true(fd.stacks >= 12);
	assert_int_equal(fd.bad, 0);
	pthread_mutex_unlock(&fd.mu);
	for (unsigned int c = 0; c < fd.nr_cpus; c++) {
		assert_int_equal(ut_rb_cpu(fd.area, c)->dropped, 0);
		assert_int_equal(ut_rb_cpu(fd.area, c)->lock, 0); /* every writer let go */
	}
	fd_stop(&fd);
}

int main(int argc, char **argv)
{
	if (fd_test_paths(build, sizeof(build), lib, sizeof(lib), top, sizeof(top)))
		return 1;
	snprintf(prog, sizeof(prog), "%s/tests/progs/rt_calls", build);
	if (access(lib, R_OK) || access(prog, X_OK)) {
		printf("SKIP: build %s and %s first\n", lib, prog);
		return 0;
	}

	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_daemon),
	    cmocka_unit_test(test_function_events),
	    cmocka_unit_test(test_stack_trace),
	    cmocka_unit_test(test_avx_args),
	    cmocka_unit_test(test_tramp_matches_reference),
	    cmocka_unit_test(test_printk_tracing_off),
	    cmocka_unit_test(test_fork),
	    cmocka_unit_test(test_signal_flags),
	    cmocka_unit_test(test_stress_switching),
	    cmocka_unit_test(test_sigkill),
	    cmocka_unit_test(test_daemon_gone_and_back),
	    cmocka_unit_test(test_rename),
	    cmocka_unit_test(test_closed_socket),
	    cmocka_unit_test(test_dlopen),
	    cmocka_unit_test(test_dlopen_loop),
	    cmocka_unit_test(test_compilers),
	    cmocka_unit_test(test_linked),
	    cmocka_unit_test(test_no_glibc_rseq),
	    cmocka_unit_test(test_no_kernel_rseq),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

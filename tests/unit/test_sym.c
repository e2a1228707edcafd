// SPDX-License-Identifier: MIT
/*
 * test_sym.c - fs/sym.c on this test's own process: functions of the
 * executable (built with -g, symbols in .symtab) and of libc (.dynsym), a C++
 * name demangled or not, unknown addresses, a thread id, the maps of a
 * process that has exited, and a process that puts a FIFO where its deleted
 * mapped file was (loading its maps must not block).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tfs.h"

__attribute__((noinline, used)) int sym_target(int x)
{
	return x * 7 + 3;
}

/* A C function under a C++ mangled name: ns::foo(int). */
__attribute__((noinline, used)) int cxx_like(int x) __asm__("_ZN2ns3fooEi");
__attribute__((noinline, used)) int cxx_like(int x)
{
	return x + 11;
}

static char name[512];
static uint64_t start, size;

static int lookup(pid_t tid, const void *addr, bool demangle)
{
	return tfs_sym_lookup(tid, (uintptr_t)addr, demangle, name, sizeof(name), &start, &size);
}

static void test_own_function(void **state)
{
	assert_int_equal(lookup(getpid(), (const void *)sym_target, true), 0);
	assert_string_equal(name, "sym_target");
	assert_int_equal(start, (uintptr_t)sym_target);
	assert_true(size > 0 && size < 4096);
	/* any address inside resolves to the function that contains it */
	assert_int_equal(lookup(getpid(), (const char *)sym_target + size - 1, true), 0);
	assert_string_equal(name, "sym_target");
	assert_int_equal(start, (uintptr_t)sym_target);
}

static void test_libc_function(void **state)
{
	/* getppid: in .dynsym only, and not intercepted by the sanitizers */
	assert_int_equal(lookup(getpid(), (const void *)getppid, true), 0);
	assert_string_equal(name, "getppid");
	assert_int_equal(start, (uintptr_t)getppid);
}

static void test_demangle(void **state)
{
	assert_int_equal(lookup(getpid(), (const void *)cxx_like, true), 0);
	assert_string_equal(name, "ns::foo(int)");
	assert_int_equal(lookup(getpid(), (const void *)cxx_like, false), 0);
	assert_string_equal(name, "_ZN2ns3fooEi");
}

static void test_unknown(void **state)
{
	assert_int_equal(lookup(getpid(), (const void *)0x10, true), -ENOENT);
	int on_stack;
	assert_int_equal(lookup(getpid(), &on_stack, true), -ENOENT); /* not executable */
	assert_int_equal(lookup(0, (const void *)sym_target, true), -ENOENT);
}

static pid_t thread_tid;
static pthread_mutex_t tm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tc = PTHREAD_COND_INITIALIZER;
static int thread_go;

static void *thread_main(void *arg)
{
	pthread_mutex_lock(&tm);
	thread_tid = (pid_t)syscall(SYS_gettid);
	pthread_cond_broadcast(&tc);
	while (!thread_go)
		pthread_cond_wait(&tc, &tm);
	pthread_mutex_unlock(&tm);
	return NULL;
}

/* A thread id the registry does not know: its own /proc entry is read. */
static void test_thread_id(void **state)
{
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, thread_main, NULL), 0);
	pthread_mutex_lock(&tm);
	while (!thread_tid)
		pthread_cond_wait(&tc, &tm);
	pthread_mutex_unlock(&tm);
	assert_int_equal(lookup(thread_tid, (const void *)sym_target, true), 0);
	assert_string_equal(name, "sym_target");
	pthread_mutex_lock(&tm);
	thread_go = 1;
	pthread_cond_broadcast(&tc);
	pthread_mutex_unlock(&tm);
	pthread_join(t, NULL);
}

/* The events of a process that exited still resolve. */
static void test_dead_process(void **state)
{
	int p[2];
	char c;
	pid_t child;

	assert_int_equal(pipe(p), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(p[0]);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	assert_int_equal(tfs_sym_load_maps(child), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_int_equal(lookup(child, (const char *)sym_target + 1, true), 0);
	assert_string_equal(name, "sym_target");
	/* reloading a dead process fails but keeps what was known */
	assert_true(tfs_sym_load_maps(child) < 0);
	assert_int_equal(lookup(child, (const void *)cxx_like, true), 0);
	assert_string_equal(name, "ns::foo(int)");
}

struct load_job {
	pid_t pid;
	int ret;
	bool done;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void *load_run(void *arg)
{
	struct load_job *j = arg;
	int r = tfs_sym_load_maps(j->pid);

	pthread_mutex_lock(&j->lock);
	j->ret = r;
	j->done = true;
	pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/*
 * The child maps a file, unlinks it and makes a FIFO named as /proc/PID/maps
 * then shows the mapping ("<path> (deleted)"): opening that path would block.
 */
static pid_t fifo_child(const char *dir, char *lib, size_t size, char *fifo, size_t fsize)
{
	int ready[2], fd;
	pid_t pid;
	char c = 0;

	snprintf(lib, size, "%s/lib.bin", dir);
	snprintf(fifo, fsize, "%s (deleted)", lib);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fd = open(lib, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || write(fd, "xxxxxxxx", 8) != 8 ||
		    mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED ||
		    unlink(lib) || mkfifo(fifo, 0600))
			_exit(1);
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	return pid;
}

static void test_fifo_at_deleted_path(void **state)
{
	static struct load_job j = {.lock = PTHREAD_MUTEX_INITIALIZER,
				    .cond = PTHREAD_COND_INITIALIZER};
	char dir[] = "/tmp/test_sym.XXXXXX", lib[128], fifo[160];
	struct timespec until;
	pthread_t t;
	bool done;
	int err = 0, fd;

	assert_non_null(mkdtemp(dir));
	j.pid = fifo_child(dir, lib, sizeof(lib), fifo, sizeof(fifo));
	assert_int_equal(pthread_create(&t, NULL, load_run, &j), 0);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 3;
	pthread_mutex_lock(&j.lock);
	while (!j.done && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&j.cond, &j.lock, &until);
	done = j.done;
	pthread_mutex_unlock(&j.lock);
	if (!done) {
		/* blocked in open(): a writer releases it, so that the test ends */
		fd = open(fifo, O_WRONLY | O_NONBLOCK);
		if (fd >= 0)
			close(fd);
	}
	pthread_join(t, NULL);
	kill(j.pid, SIGKILL);
	waitpid(j.pid, NULL, 0);
	unlink(fifo);
	rmdir(dir);
	assert_true(done);
	assert_int_equal(j.ret, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_function), cmocka_unit_test(test_libc_function),
		cmocka_unit_test(test_demangle),     cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_thread_id),    cmocka_unit_test(test_dead_process),
		cmocka_unit_test(test_fifo_at_deleted_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

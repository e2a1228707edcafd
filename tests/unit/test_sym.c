// SPDX-License-Identifier: MIT
/*
 * test_sym.c - fs/sym.c on this test's own process: functions of the
 * executable (built with -g, symbols in .symtab) and of libc (.dynsym), a C++
 * name demangled or not, unknown addresses, a thread id, the maps of a
 * process that has exited, and a process that puts a FIFO where its deleted
 * mapped file was (loading its maps must not block).  Mappings over time: a
 * library closed and another loaded where it was (each address named as it was
 * mapped at the time asked for), an object announced after it was unloaded,
 * two objects loaded in turn at one place whose messages are handled after
 * both went (each named by its own load and unload stamps), old mappings
 * forgotten once the rings are cleared, a stripped library, and an object
 * without symbols named after itself.  Flat addresses (what raw pages carry):
 * two processes with different libraries at one address, a process that
 * exited and a library closed; the kallsyms table that names them.
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

#include <dlfcn.h>
#include <link.h>

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

/* A child of this process (the same code at the same addresses) that waits to be killed. */
static pid_t paused_child(void)
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
	return child;
}

/* The events of a process that exited still resolve. */
static void test_dead_process(void **state)
{
	pid_t child = paused_child();

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

/* path of a test library next to this binary: BUILD/tests/progs/NAME */
static void lib_path(char *out, size_t size, const char *name)
{
	char self[2048];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	assert_true(n > 0);
	self[n] = '\0';
	slash = strrchr(self, '/');
	assert_non_null(slash);
	*slash = '\0';
	snprintf(out, size, "%s/progs/%s", self, name);
}

/* dlopen path, the address of fn in it and the load base (the handle stays open). */
static void *open_lib(const char *path, const char *fn, uintptr_t *addr, uintptr_t *base)
{
	struct link_map *lm = NULL;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	assert_non_null(h);
	*addr = (uintptr_t)dlsym(h, fn);
	assert_true(*addr != 0);
	assert_int_equal(dlinfo(h, RTLD_DI_LINKMAP, &lm), 0);
	*base = lm->l_addr;
	return h;
}

#define SYM_NOW_TSC (UINT64_MAX - 1) /* as tfs_sym_lookup: what is mapped now */

static int lookup_at(uint64_t tsc, uintptr_t addr)
{
	return tfs_sym_lookup_at(getpid(), tsc, addr, true, name, sizeof(name), &start, &size);
}

/*
 * A library closed, another loaded (where the first was when the loader reuses
 * the space): an address is named from what was mapped at the time asked for.
 */
static void test_mapping_epochs(void **state)
{
	char a[4096], b[4096];
	uintptr_t a_fn, a_base, b_fn, b_base;
	uint64_t t_a, t_closed, t_b;
	void *h;

	lib_path(a, sizeof(a), "lib_names_a.so");
	lib_path(b, sizeof(b), "lib_names_b.so");
	h = open_lib(a, "a_entry", &a_fn, &a_base);
	assert_int_equal(tfs_sym_maps_changed(getpid(), __builtin_ia32_rdtsc()), 0);
	t_a = __builtin_ia32_rdtsc();
	assert_int_equal(lookup_at(t_a, a_fn), 0);
	assert_string_equal(name, "a_entry");
	dlclose(h);
	t_closed = __builtin_ia32_rdtsc();
	assert_int_equal(tfs_sym_maps_changed(getpid(), t_closed), 0);
	h = open_lib(b, "b_entry", &b_fn, &b_base);
	assert_int_equal(tfs_sym_maps_changed(getpid(), __builtin_ia32_rdtsc()), 0);
	t_b = __builtin_ia32_rdtsc();

	/* before the dlclose: liba's names, whatever is there now */
	assert_int_equal(lookup_at(t_a, a_fn), 0);
	assert_string_equal(name, "a_entry");
	assert_int_equal(start, a_fn);
	if (b_base == a_base) {
		/* the same address afterwards: libb's */
		assert_int_equal(lookup_at(t_b, a_fn - a_base + b_base), 0);
		assert_string_not_equal(name, "a_entry");
	} else {
		assert_int_equal(lookup_at(t_b, a_fn), -ENOENT);
	}
	assert_int_equal(lookup_at(t_b, b_fn), 0);
	assert_string_equal(name, "b_entry");
	/* "now" (tfs_sym_lookup) is the live mappings */
	assert_int_equal(lookup(getpid(), (const void *)b_fn, true), 0);
	assert_string_equal(name, "b_entry");
	dlclose(h);
	assert_int_equal(tfs_sym_maps_changed(getpid(), __builtin_ia32_rdtsc()), 0);
	assert_int_equal(lookup_at(t_b, b_fn), 0);
	assert_string_equal(name, "b_entry");

	/* the rings were cleared: what went before is forgotten */
	tfs_sym_forget(__builtin_ia32_rdtsc());
	assert_int_equal(lookup_at(t_b, b_fn), -ENOENT);
	assert_int_equal(lookup_at(t_b, (uintptr_t)sym_target), 0);
	assert_string_equal(name, "sym_target");
}

/*
 * A library announced when the maps no longer show it (utracefs read them
 * late): its file says where its code was, and its announced unload ends it at
 * the unload's stamp.
 */
static void test_announced_late(void **state)
{
	char a[4096];
	uintptr_t a_fn, a_base;
	uint64_t t_born, t_a, t_closed;
	void *h;

	lib_path(a, sizeof(a), "lib_names_a.so");
	h = open_lib(a, "a_leaf", &a_fn, &a_base);
	t_born = __builtin_ia32_rdtsc();
	t_a = __builtin_ia32_rdtsc();
	dlclose(h);
	t_closed = __builtin_ia32_rdtsc();
	assert_int_equal(tfs_sym_load_maps(getpid()), 0); /* does not show it */
	assert_int_equal(tfs_sym_object_mapped(getpid(), a, a_base, t_born, 0), 0);
	assert_int_equal(lookup_at(t_a, a_fn), 0);
	assert_string_equal(name, "a_leaf");
	assert_int_equal(tfs_sym_maps_changed(getpid(), t_closed), 0);
	tfs_sym_object_unmapped(getpid(), a_base, t_closed);
	assert_int_equal(lookup_at(t_a, a_fn), 0);
	assert_string_equal(name, "a_leaf");
	assert_int_equal(lookup(getpid(), (const void *)a_fn, true), -ENOENT);
}

/*
 * The messages of two libraries loaded one after the other at the same place,
 * handled late (the maps show what came after): each library owns its
 * addresses from the stamp it was announced with to the stamp of its unload,
 * whatever a reading of the maps showed in between and whatever stamp that
 * reading carried.
 */
static void test_announced_read_late(void **state)
{
	char a[4096], b[4096];
	uintptr_t a_fn, a_base, b_fn, b_base;
	uint64_t t_born_a, t_maps_a, t_a, t_maps_gone, t_gone_a, t_born_b, t_maps_b, t_b, t_gone_b;
	void *h;

	lib_path(a, sizeof(a), "lib_names_a.so");
	lib_path(b, sizeof(b), "lib_names_b.so");
	/* what the process does (and stamps) */
	h = open_lib(a, "a_entry", &a_fn, &a_base);
	t_born_a = __builtin_ia32_rdtsc();
	t_maps_a = __builtin_ia32_rdtsc();
	t_a = __builtin_ia32_rdtsc(); /* an event of a_entry */
	dlclose(h);
	t_maps_gone = __builtin_ia32_rdtsc();
	t_gone_a = __builtin_ia32_rdtsc();
	h = open_lib(b, "b_entry", &b_fn, &b_base);
	t_born_b = __builtin_ia32_rdtsc();
	t_maps_b = __builtin_ia32_rdtsc();
	t_b = __builtin_ia32_rdtsc(); /* an event of b_entry */

	/* what utracefs reads, late: libb where liba was */
	assert_int_equal(tfs_sym_maps_changed(getpid(), t_maps_a), 0);
	assert_int_equal(tfs_sym_object_mapped(getpid(), a, a_base, t_born_a, 0), 0);
	assert_int_equal(tfs_sym_maps_changed(getpid(), t_maps_a), 0);
	dlclose(h);
	t_gone_b = __builtin_ia32_rdtsc();
	assert_int_equal(tfs_sym_maps_changed(getpid(), t_maps_gone), 0); /* libb not shown */
	tfs_sym_object_unmapped(getpid(), a_base, t_gone_a);
	assert_int_equal(tfs_sym_object_mapped(getpid(), b, b_base, t_born_b, 0), 0);
	assert_int_equal(tfs_sym_maps_changed(getpid(), t_maps_b), 0);
	tfs_sym_object_unmapped(getpid(), b_base, t_gone_b);

	assert_int_equal(lookup_at(t_a, a_fn), 0);
	assert_string_equal(name, "a_entry");
	assert_int_equal(start, a_fn);
	assert_int_equal(lookup_at(t_b, b_fn), 0);
	assert_string_equal(name, "b_entry");
	if (b_base == a_base) {
		assert_int_equal(lookup_at(t_b, a_fn), 0);
		assert_string_not_equal(name, "a_entry");
	}
	assert_int_equal(lookup(getpid(), (const void *)b_fn, true), -ENOENT);
	tfs_sym_forget(__builtin_ia32_rdtsc());
}

/*
 * A stripped library (.dynsym only): a static function has no name of its own
 * (the object names it), and the byte just past a function (the return address
 * of a noreturn call at its end) still names that function.
 */
static void test_stripped_library(void **state)
{
	char s[4096], want[64];
	uintptr_t jump, entry, base;
	void *(*hidden)(void);
	uintptr_t h_addr;
	void *h;

	lib_path(s, sizeof(s), "lib_names_s.so");
	h = open_lib(s, "s_jump", &jump, &base);
	entry = (uintptr_t)dlsym(h, "s_entry");
	hidden = (void *(*)(void))dlsym(h, "s_hidden_addr");
	assert_true(entry && hidden);
	h_addr = (uintptr_t)hidden();
	assert_int_equal(tfs_sym_maps_changed(getpid(), __builtin_ia32_rdtsc()), 0);

	assert_int_equal(lookup(getpid(), (const void *)entry, true), 0);
	assert_string_equal(name, "s_entry");
	assert_int_equal(lookup(getpid(), (const void *)jump, true), 0);
	assert_string_equal(name, "s_jump");
	assert_true(size > 0 && size < 256); /* its own size: no next symbol in .dynsym order */
	assert_int_equal(lookup(getpid(), (const void *)(jump + size), true), 0);
	assert_string_equal(name, "s_jump");
	assert_int_equal(start, jump);

	assert_int_equal(lookup(getpid(), (const void *)(h_addr + 1), true), -ENOENT);
	assert_int_equal(tfs_sym_object_at(getpid(), SYM_NOW_TSC, h_addr + 1, name, sizeof(name)),
			 0);
	snprintf(want, sizeof(want), "[lib_names_s.so+0x%lx]", (unsigned long)(h_addr + 1 - base));
	assert_string_equal(name, want);
	dlclose(h);
	assert_int_equal(tfs_sym_maps_changed(getpid(), __builtin_ia32_rdtsc()), 0);
}

/* An executable mapping of a file without symbols: "[file+0xoffset]". */
static void test_object_name(void **state)
{
	char dir[] = "/tmp/test_sym.XXXXXX", fn[128];
	char *p;
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(fn, sizeof(fn), "%s/blob.bin", dir);
	fd = open(fn, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8192), 0);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 4096);
	assert_true(p != MAP_FAILED);
	close(fd);
	assert_int_equal(tfs_sym_load_maps(getpid()), 0);
	assert_int_equal(lookup(getpid(), p + 0x10, true), -ENOENT);
	assert_int_equal(tfs_sym_object_at(getpid(), __builtin_ia32_rdtsc(), (uintptr_t)p + 0x10,
					   name, sizeof(name)),
			 0);
	assert_string_equal(name, "[blob.bin+0x1010]");
	munmap(p, 4096);
	unlink(fn);
	rmdir(dir);
}

/* ---- flat addresses and the kallsyms table ------------------------------------------------ */

#define FLAT_LOW(x) ((x) & ((1ull << 40) - 1))
#define FLAT_NO(x) (((x) >> 40) & ((1u << 23) - 1))
/* beyond the kernel's PID_MAX_LIMIT: never a live process */
#define FAKE_PID_A 0x7ffffff0
#define FAKE_PID_B 0x7ffffff1
#define FAKE_PID_S 0x7ffffff2
#define FAKE_BASE 0x7f1234560000ull

/* The address of fn in the file of path (its ELF address: what addr2line takes). */
static uint64_t file_vaddr(const char *path, const char *fn)
{
	uintptr_t addr, base;
	void *h = open_lib(path, fn, &addr, &base);

	dlclose(h);
	return addr - base;
}

/* The kallsyms table now (malloc'ed). */
static char *kallsyms_text(void)
{
	struct tfs_buf b = {0};

	assert_int_equal(tfs_sym_kallsyms(&b), 0);
	assert_non_null(b.data);
	return b.data;
}

/* Does the table have the line "%016llx T name\t[mod]"? */
static bool has_line(const char *text, uint64_t flat, const char *name, const char *mod)
{
	char line[512];

	snprintf(line, sizeof(line), "%016llx T %s\t[%s]\n", (unsigned long long)flat, name, mod);
	return strstr(text, line) != NULL;
}

/*
 * Two processes with different libraries at one address (ASLR off, or a
 * dlclose and another dlopen): each address is its own object's, in flat
 * addresses that differ, and the table names both.
 */
static void test_flat_same_address(void **state)
{
	char a[4096], b[4096], *text;
	uint64_t va, vb, t, fa, fb;

	lib_path(a, sizeof(a), "lib_names_a.so");
	lib_path(b, sizeof(b), "lib_names_b.so");
	va = file_vaddr(a, "a_entry");
	vb = file_vaddr(b, "b_entry");
	assert_int_equal(tfs_sym_object_mapped(FAKE_PID_A, a, FAKE_BASE, __builtin_ia32_rdtsc(), 0),
			 0);
	assert_int_equal(tfs_sym_object_mapped(FAKE_PID_B, b, FAKE_BASE, __builtin_ia32_rdtsc(), 0),
			 0);
	t = __builtin_ia32_rdtsc();
	fa = tfs_sym_flat(FAKE_PID_A, t, FAKE_BASE + va);
	fb = tfs_sym_flat(FAKE_PID_B, t, FAKE_BASE + va);
	assert_true(fa >> 63 && fb >> 63);
	assert_int_equal(FLAT_LOW(fa), va);
	assert_int_equal(FLAT_LOW(fb), va);
	assert_true(FLAT_NO(fa) != 0 && FLAT_NO(fb) != 0 && FLAT_NO(fa) != FLAT_NO(fb));
	/* again (from the cache), and an address no object covers stays as it is */
	assert_int_equal(tfs_sym_flat(FAKE_PID_A, t, FAKE_BASE + va), fa);
	assert_int_equal(tfs_sym_flat(FAKE_PID_A, t, 0x1234), 0x1234);
	assert_int_equal(tfs_sym_flat(FAKE_PID_A, t, 1), 1); /* a marker's ip */

	text = kallsyms_text();
	assert_true(has_line(text, fa, "a_entry", "lib_names_a.so"));
	assert_true(has_line(text, tfs_sym_flat(FAKE_PID_B, t, FAKE_BASE + vb), "b_entry",
			     "lib_names_b.so"));
	free(text);

	/* unloaded: what it wrote before still maps; afterwards the address is bare */
	tfs_sym_object_unmapped(FAKE_PID_A, FAKE_BASE, __builtin_ia32_rdtsc());
	assert_int_equal(tfs_sym_flat(FAKE_PID_A, t, FAKE_BASE + va), fa);
	assert_int_equal(tfs_sym_flat(FAKE_PID_A, __builtin_ia32_rdtsc(), FAKE_BASE + va),
			 FAKE_BASE + va);
	tfs_sym_proc_gone(FAKE_PID_A);
	tfs_sym_proc_gone(FAKE_PID_B);
}

/*
 * A process that exited and a library dlclose()d: the addresses of their
 * events still map.  The same file in two processes is one object: one flat
 * address for its function in both.
 */
static void test_flat_exited_and_closed(void **state)
{
	char a[4096];
	uintptr_t a_fn, a_base, target = (uintptr_t)sym_target;
	uint64_t t, f_self, f_child;
	pid_t child = paused_child();
	void *h;

	assert_int_equal(tfs_sym_load_maps(child), 0);
	assert_int_equal(tfs_sym_load_maps(getpid()), 0);
	t = __builtin_ia32_rdtsc();
	f_child = tfs_sym_flat(child, t, target);
	f_self = tfs_sym_flat(getpid(), t, target);
	assert_true(f_child >> 63);
	assert_int_equal(f_child, f_self);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	tfs_sym_proc_gone(child);
	assert_int_equal(tfs_sym_flat(child, t, target), f_child);
	assert_int_equal(tfs_sym_flat(child, __builtin_ia32_rdtsc(), target), target);

	lib_path(a, sizeof(a), "lib_names_a.so");
	h = open_lib(a, "a_entry", &a_fn, &a_base);
	assert_int_equal(tfs_sym_maps_changed(getpid(), __builtin_ia32_rdtsc()), 0);
	t = __builtin_ia32_rdtsc();
	f_self = tfs_sym_flat(getpid(), t, a_fn);
	assert_true(f_self >> 63);
	assert_int_equal(FLAT_LOW(f_self), a_fn - a_base);
	dlclose(h);
	assert_int_equal(tfs_sym_maps_changed(getpid(), __builtin_ia32_rdtsc()), 0);
	assert_int_equal(tfs_sym_flat(getpid(), t, a_fn), f_self);
	assert_int_equal(tfs_sym_flat(getpid(), __builtin_ia32_rdtsc(), a_fn), a_fn);
}

/* One line of the table: "%016llx %c NAME\t[MODULE]", nothing else.  Its fields out. */
static void parse_kallsyms_line(const char *line, size_t len, uint64_t *addr, char *type,
				char *nm, char *mod)
{
	char buf[1024];
	unsigned long long a;
	int n = -1;

	assert_true(len < sizeof(buf) && len > 22);
	memcpy(buf, line, len);
	buf[len] = '\0';
	assert_int_equal(strspn(buf, "0123456789abcdef"), 16);
	assert_true(buf[16] == ' ' && buf[18] == ' ');
	assert_int_equal(sscanf(buf, "%16llx %c %511s\t[%255[^]]]%n", &a, type, nm, mod, &n), 4);
	assert_int_equal(n, (int)len);
	/* the name ends at the tab, the one whitespace after it */
	assert_int_equal(buf[19 + strlen(nm)], '\t');
	*addr = a;
}

/*
 * The table: every line parses, addresses rise throughout, each object ends
 * with its end line, and a stripped library (.dynsym only) has a gap line
 * where a function's size ends before the next.
 */
static void test_kallsyms_text(void **state)
{
	char s[4096], nm[512], mod[256], prev_mod[256] = "", prev_nm[512] = "", *text;
	uint64_t addr, prev = 0, v_jump, v_entry, f_jump = 0, gap = 0, end = 0;
	unsigned int lines = 0, ends = 0, mods = 0;
	char type;

	lib_path(s, sizeof(s), "lib_names_s.so");
	v_jump = file_vaddr(s, "s_jump");
	v_entry = file_vaddr(s, "s_entry");
	assert_int_equal(tfs_sym_object_mapped(FAKE_PID_S, s, FAKE_BASE, __builtin_ia32_rdtsc(), 0),
			 0);
	text = kallsyms_text();
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');

		assert_non_null(nl);
		parse_kallsyms_line(l, (size_t)(nl - l), &addr, &type, nm, mod);
		assert_true(addr >> 63);
		assert_true(addr > prev);
		if (strcmp(mod, prev_mod)) {
			/* a new object: the one before ended with its end line */
			if (prev_mod[0]) {
				snprintf(s, sizeof(s), "[%s:end]", prev_mod);
				assert_string_equal(prev_nm, s);
			}
			mods++;
		}
		if (!strcmp(mod, "lib_names_s.so")) {
			if (!strcmp(nm, "s_jump"))
				f_jump = addr;
			else if (!strcmp(nm, "[lib_names_s.so]") && f_jump && !gap)
				gap = addr;
			else if (!strcmp(nm, "[lib_names_s.so:end]"))
				end = addr;
		}
		ends += strstr(nm, ":end]") != NULL;
		snprintf(prev_mod, sizeof(prev_mod), "%s", mod);
		snprintf(prev_nm, sizeof(prev_nm), "%s", nm);
		prev = addr;
		lines++;
		l = nl + 1;
	}
	snprintf(s, sizeof(s), "[%s:end]", prev_mod);
	assert_string_equal(prev_nm, s);
	assert_true(lines > 10 && mods >= 2 && ends >= mods);
	/* s_jump ends with a call to abort(): the gap starts past it and its next byte */
	assert_true(f_jump >> 63);
	assert_int_equal(FLAT_LOW(f_jump), v_jump);
	assert_true(gap > f_jump + 1 && FLAT_LOW(gap) < v_entry);
	assert_true(end > f_jump && FLAT_NO(end) == FLAT_NO(f_jump));
	assert_int_equal(tfs_sym_flat(FAKE_PID_S, __builtin_ia32_rdtsc(), FAKE_BASE + v_jump),
			 f_jump);
	free(text);
	tfs_sym_proc_gone(FAKE_PID_S);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_function), cmocka_unit_test(test_libc_function),
		cmocka_unit_test(test_demangle),     cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_thread_id),    cmocka_unit_test(test_dead_process),
		cmocka_unit_test(test_fifo_at_deleted_path),
		cmocka_unit_test(test_mapping_epochs), cmocka_unit_test(test_announced_late),
		cmocka_unit_test(test_announced_read_late),
		cmocka_unit_test(test_stripped_library), cmocka_unit_test(test_object_name),
		cmocka_unit_test(test_flat_same_address),
		cmocka_unit_test(test_flat_exited_and_closed),
		cmocka_unit_test(test_kallsyms_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

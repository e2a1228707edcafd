// SPDX-License-Identifier: MIT
/*
 * test_graph_rt.c - the function_graph runtime (runtime/graph.c, graph.S) inside a
 * real instrumented program, driven by the fake daemon (rt_fake_daemon.h) with
 * ctl->tracer = UT_TRACER_FUNCTION_GRAPH; the raw gent/gret events are read back
 * from the rings and compared, per thread and in time order, with the expected
 * call tree (names and relative depths).
 *
 * The traced program is this very file compiled with -DGRAPH_PROG (at test time,
 * with -fpatchable-function-entry=5), so the test and what it runs stay together.
 * Its modes print "sym NAME ADDR" for the functions a test looks at.
 */
#ifdef GRAPH_PROG
/* ---- the traced program ------------------------------------------------------------ */
#include <execinfo.h>
#include <fcntl.h>
#include <stdint.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unwind.h>

#define NI __attribute__((noinline, noclone))
#define KEEP(x) __asm__ volatile("" : "+r"(x)) /* no tail call, no folding */
#define SYM(f) printf("sym %s %lx\n", #f, (unsigned long)(uintptr_t)(f))

NI int c(int x)
{
	KEEP(x);
	return x * 2;
}

NI int b(int x)
{
	int r = c(x) + c(x + 1);

	KEEP(r);
	return r;
}

NI int a(int x)
{
	int r = b(x);

	KEEP(r);
	return r + 1;
}

NI int tailee(int x)
{
	KEEP(x);
	return x + 7;
}

NI int tailer(int x)
{
	KEEP(x);
	return tailee(x + 1); /* -O2: a sibling call (jmp) */
}

NI int after(int x)
{
	KEEP(x);
	return x;
}

NI int tcaller(int x)
{
	int r = tailer(x);

	KEEP(r);
	r += after(r);
	KEEP(r);
	return r;
}

static jmp_buf env;

NI void jmp3(int x)
{
	KEEP(x);
	longjmp(env, x);
}

NI void jmp2(int x)
{
	jmp3(x);
	KEEP(x);
}

NI void jmp1(int x)
{
	jmp2(x);
	KEEP(x);
}

NI int jtop(void)
{
	int r;

	if ((r = setjmp(env)) == 0)
		jmp1(5);
	r = after(r);
	KEEP(r);
	return r;
}

NI void shortf(int x)
{
	KEEP(x);
}

NI void longf(int n)
{
	for (int i = 0; i < n; i++)
		shortf(i);
	usleep(20000);
	KEEP(n);
}

/* rewind_reset: tell the test (FIFO argv[2]/p), wait for its go (argv[2]/g). */
NI void pausef(const char *dir)
{
	char path[256], c = 'p';
	int fd;

	snprintf(path, sizeof(path), "%s/p", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, &c, 1) != 1)
		exit(3);
	close(fd);
	snprintf(path, sizeof(path), "%s/g", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, &c, 1) != 1)
		exit(4);
	close(fd);
}

NI void pouter(const char *dir)
{
	pausef(dir);
	KEEP(dir);
}

NI int rec(int n)
{
	int r = n ? rec(n - 1) + 1 : 0;

	KEEP(r);
	return r;
}

NI void inh(int x)
{
	KEEP(x);
}

NI void on_usr2(int sig)
{
	inh(sig);
}

NI void on_usr1(int sig)
{
	inh(sig);
	raise(SIGUSR2);
	inh(sig);
}

NI void souter(int x)
{
	raise(SIGUSR1);
	KEEP(x);
}

static void *h_addr;
static int bt_ok;
static void *uw_ip[4];
static int uw_n;

static _Unwind_Reason_Code uw_one(struct _Unwind_Context *ctx, void *arg)
{
	uw_ip[uw_n++] = (void *)_Unwind_GetIP(ctx);
	return uw_n == 4 ? _URC_END_OF_STACK : _URC_NO_REASON;
}

NI void btouter(void);

/* p lies in function f (these are small: at most 512 bytes) */
#define IN(p, f) ((uintptr_t)(p) > (uintptr_t)(f) && (uintptr_t)(p) < (uintptr_t)(f) + 512)

NI void btinner(void)
{
	void *buf[32];
	void *h = __builtin_return_address(0); /* the hijacked slot's value */
	int n = backtrace(buf, 32), ok = n >= 3;

	for (int i = 0; i < n; i++)
		if (buf[i] == h)
			ok = 0;
	/* as glibc's own: frame 0 is the caller of backtrace(), then its caller */
	if (!IN(buf[0], btinner) || !IN(buf[1], btouter))
		ok = 0;
	/* _Unwind_Backtrace likewise starts with its caller */
	_Unwind_Backtrace(uw_one, NULL);
	if (uw_n < 2 || !IN(uw_ip[0], btinner) || !IN(uw_ip[1], btouter))
		ok = 0;
	h_addr = h;
	/* and hijacked again afterwards */
	bt_ok = ok && __builtin_return_address(0) == h ? n : 0;
}

NI void btouter(void)
{
	btinner();
	__asm__ volatile("" ::: "memory");
}

/* pthread_exit two calls below a cleanup handler's frame */
NI void tclean(void *arg)
{
	KEEP(arg);
}

NI void tcx(void)
{
	pthread_exit(NULL);
}

NI void tcb(void)
{
	pthread_cleanup_push(tclean, NULL);
	tcx();
	pthread_cleanup_pop(0);
}

NI void *tcmain(void *arg)
{
	tcb();
	return arg;
}

/* a stack overflow in deep recursion (inside the runtime: the shadow stack is full) */
static __thread sigjmp_buf ovf_env;
static volatile int ovf_limit = 1 << 30;

NI int ovf(int n)
{
	volatile char pad[16];

	pad[0] = (char)n;
	__asm__ volatile("" : : "r"(pad) : "memory");
	if (n > ovf_limit)
		return 0;
	return ovf(n + 1) + pad[0];
}

NI void on_segv(int sig)
{
	siglongjmp(ovf_env, 1);
}

NI void *ovmain(void *arg)
{
	static char alt[64 * 1024];
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof(alt)};

	sigaltstack(&ss, NULL);
	for (int i = 0; i < 3; i++) {
		if (!sigsetjmp(ovf_env, 1))
			ovf(0);
		after(i);
	}
	return arg;
}

NI void thb(void)
{
	pthread_exit(NULL);
}

NI void tha(void)
{
	thb();
	__asm__ volatile("" ::: "memory");
}

NI void *thmain(void *arg)
{
	tha();
	return arg;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(mode, "nest")) {
		SYM(a), SYM(b), SYM(c);
		printf("r %d\n", a(3));
		/* the site's first byte: jmp (e9) to the site's own stub (runtime/stubs.c) */
		printf("site %02x\n", *(volatile unsigned char *)(uintptr_t)a);
	} else if (!strcmp(mode, "tail")) {
		SYM(tcaller), SYM(tailer), SYM(tailee), SYM(after);
		printf("r %d\n", tcaller(1));
	} else if (!strcmp(mode, "longjmp")) {
		SYM(jtop), SYM(jmp1), SYM(jmp2), SYM(jmp3), SYM(after);
		printf("r %d\n", jtop());
	} else if (!strcmp(mode, "thresh")) {
		SYM(longf), SYM(shortf);
		longf(atoi(argv[2]));
	} else if (!strcmp(mode, "rewind_reset")) {
		SYM(pouter), SYM(pausef);
		alarm(60); /* never waits forever for a test that failed */
		pouter(argv[2]);
	} else if (!strcmp(mode, "deep")) {
		SYM(rec);
		printf("r %d\n", rec(atoi(argv[2])));
	} else if (!strcmp(mode, "signal")) {
		stack_t ss = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16};
		struct sigaction sa = {.sa_handler = on_usr1};

		SYM(souter), SYM(on_usr1), SYM(on_usr2), SYM(inh);
		sigaltstack(&ss, NULL);
		sigaction(SIGUSR1, &sa, NULL);
		sa.sa_handler = on_usr2;
		sa.sa_flags = SA_ONSTACK;
		sigaction(SIGUSR2, &sa, NULL);
		souter(1);
		souter(2);
		printf("r 0\n");
	} else if (!strcmp(mode, "backtrace")) {
		SYM(btouter), SYM(btinner);
		btouter();
		printf("bt %d\n", bt_ok);
	} else if (!strcmp(mode, "pthread_exit")) {
		pthread_t th;

		SYM(thmain), SYM(tha), SYM(thb);
		pthread_create(&th, NULL, thmain, NULL);
		pthread_join(th, NULL);
		printf("r 0\n");
	} else if (!strcmp(mode, "exit_cleanup")) {
		pthread_t th;

		SYM(tcmain), SYM(tcb), SYM(tcx), SYM(tclean);
		pthread_create(&th, NULL, tcmain, NULL);
		pthread_join(th, NULL);
		printf("r 0\n");
	} else if (!strcmp(mode, "overflow")) {
		struct sigaction sa = {.sa_handler = on_segv, .sa_flags = SA_ONSTACK | SA_NODEFER};
		pthread_attr_t attr;
		pthread_t th;

		SYM(ovmain), SYM(after);
		sigaction(SIGSEGV, &sa, NULL);
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 128 * 1024);
		pthread_create(&th, &attr, ovmain, NULL);
		pthread_join(th, NULL);
		printf("r 0\n");
	}
	return 0;
}

#else
/* ---- the test ---------------------------------------------------------------------- */
#include <fcntl.h>
#include <libgen.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/wait.h>
#include <sys/stat.h>

#include <cmocka.h>

#pragma GCC diagnostic ignored "-Wunused-function" /* the header serves several tests */
#include "rt_fake_daemon.h"

static char build[PATH_MAX], top[PATH_MAX], lib[PATH_MAX + 32], prog[PATH_MAX + 32];
static struct fake_daemon fd;

#define MAX_SYMS 16
#define MAX_EVS 200000

struct gev {
	uint8_t type, flags;
	uint32_t tid, depth, overrun, cpu;
	uint64_t ts, ip, calltime, retval;
};

static struct gev evs[MAX_EVS];
static int nevs, ndiscard;
static char sym_name[MAX_SYMS][32];
static unsigned long sym_addr[MAX_SYMS];
static int nsyms;

static int run_prog(const char *const argv[], char *out, size_t size)
{
	int p[2], st;
	ssize_t n, total = 0;
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		setenv("LD_PRELOAD", lib, 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], out + total, size - 1 - (size_t)total)) > 0)
		total += n;
	out[total] = 0;
	close(p[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void parse_syms(const char *out)
{
	const char *p = out;

	nsyms = 0;
	while ((p = strstr(p, "sym ")) && nsyms < MAX_SYMS) {
		if (sscanf(p, "sym %31s %lx", sym_name[nsyms], &sym_addr[nsyms]) == 2)
			nsyms++;
		p += 4;
	}
}

static const char *name_of(uint64_t ip)
{
	for (int i = 0; i < nsyms; i++)
		if (sym_addr[i] + UT_SITE_CALL_LEN == ip)
			return sym_name[i];
	return NULL;
}

static int by_ts(const void *x, const void *y)
{
	const struct gev *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->type == UT_EV_GRAPH_RET ? -1 : 1; /* not reached in practice */
}

/* Every graph event of every CPU (the fake daemon's reader is paused). */
static void collect(void)
{
	nevs = ndiscard = 0;
	for (unsigned int cpu = 0; cpu < fd.nr_cpus; cpu++) {
		struct rb_cpu *rc = ut_rb_cpu(fd.area, cpu);
		uint64_t w = rc->wpos;

		for (unsigned int vp = 0; vp <= rb_wpos_vpage(w); vp++) {
			struct rb_page *pg = ut_rb_page(fd.area, cpu, vp % FD_RING_PAGES);
			unsigned int used = vp == rb_wpos_vpage(w) ? rb_wpos_off(w)
								   : rb_wpos_off(pg->commit);
			const unsigned char *d = (const unsigned char *)(pg + 1);

			assert_int_equal(pg->vpage, vp);
			for (unsigned int off = 0; off + 16 <= used;) {
				const struct ut_ev *e = (const void *)(d + off);

				assert_true(e->len >= 16 && off + e->len <= used);
				if (e->type == UT_EV_DISCARD)
					ndiscard++;
				if ((e->type == UT_EV_GRAPH_ENT || e->type == UT_EV_GRAPH_RET) &&
				    nevs < MAX_EVS) {
					struct gev *g = &evs[nevs++];

					*g = (struct gev){.type = e->type, .flags = e->flags,
							  .tid = e->tid, .ts = e->ts, .cpu = cpu};
					if (e->type == UT_EV_GRAPH_ENT) {
						const struct ut_ev_gent *ge = (const void *)e;

						g->ip = ge->ip;
						g->depth = ge->depth;
					} else {
						const struct ut_ev_gret *gr = (const void *)e;

						assert_int_equal(e->len, sizeof(*gr));
						g->ip = gr->ip;
						g->depth = gr->depth;
						g->overrun = gr->overrun;
						g->calltime = gr->calltime;
						g->retval = gr->retval;
					}
				}
				off += e->len;
			}
		}
	}
	qsort(evs, (size_t)nevs, sizeof(evs[0]), by_ts);
}

/*
 * The named events as "E name depth" / "R name depth" joined by ", ", depths
 * relative to the first one; tid 0: all threads.  flag_h: append "h" to events
 * written inside a signal handler.
 */
static void tree(char *buf, size_t size, uint32_t tid)
{
	int base = -1;
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < nevs; i++) {
		const char *nm = name_of(evs[i].ip);

		if (!nm || (tid && evs[i].tid != tid))
			continue;
		if (base < 0)
			base = (int)evs[i].depth;
		n += (size_t)snprintf(buf + n, size - n, "%s%c %s %d%s", n ? ", " : "",
				      evs[i].type == UT_EV_GRAPH_ENT ? 'E' : 'R', nm,
				      (int)evs[i].depth - base,
				      evs[i].flags & UT_EVF_SIGHANDLER ? "h" : "");
		if (n >= size)
			break;
	}
}

static void start(void)
{
	assert_int_equal(fd_start(&fd, UT_TRACER_FUNCTION_GRAPH), 0);
	fd.paused = 1; /* the test reads the rings itself */
}

/* Run mode (pinned to CPU 0), check its exit status, collect the events. */
static void trace_run(const char *mode, const char *arg, char *out, size_t size)
{
	const char *argv[] = {"/usr/bin/taskset", "-c", "0", prog, mode, arg, NULL};

	fd_reset_rings(&fd);
	fd.paused = 1;
	assert_int_equal(run_prog(argv, out, size), 0);
	parse_syms(out);
	collect();
}

static uint32_t count(uint8_t type, const char *name)
{
	uint32_t n = 0;

	for (int i = 0; i < nevs; i++)
		if (evs[i].type == type && name_of(evs[i].ip) &&
		    !strcmp(name_of(evs[i].ip), name))
			n++;
	return n;
}

static void test_nest(void **state)
{
	char out[1024], t[2048];

	start();
	trace_run("nest", NULL, out, sizeof(out));
	assert_non_null(strstr(out, "r 15\n"));
	assert_non_null(strstr(out, "site e9\n")); /* through a per-site stub */
	tree(t, sizeof(t), 0);
	assert_string_equal(t, "E a 0, E b 1, E c 2, R c 2, E c 2, R c 2, R b 1, R a 0");
	for (int i = 0; i < nevs; i++) { /* retval = rax, calltime = the entry's ts */
		const char *nm = name_of(evs[i].ip);

		if (nm && !strcmp(nm, "a") && evs[i].type == UT_EV_GRAPH_RET) {
			assert_int_equal(evs[i].retval & 0xffffffff, 15);
			for (int j = 0; j < i; j++)
				if (evs[j].type == UT_EV_GRAPH_ENT && evs[j].ip == evs[i].ip)
					assert_int_equal(evs[j].ts, evs[i].calltime);
		}
	}
	/* main is traced too: every thread's events pair up exactly */
	assert_int_equal(count(UT_EV_GRAPH_ENT, "c"), 2);
	fd_stop(&fd);
}

static void test_tail_call(void **state)
{
	char out[1024], t[2048];

	start();
	trace_run("tail", NULL, out, sizeof(out));
	assert_non_null(strstr(out, "r 18\n"));
	tree(t, sizeof(t), 0);
	assert_string_equal(t, "E tcaller 0, E tailer 1, E tailee 2, R tailee 2, R tailer 1, "
			       "E after 1, R after 1, R tcaller 0");
	fd_stop(&fd);
}

static void test_longjmp(void **state)
{
	char out[1024], t[2048];

	start();
	trace_run("longjmp", NULL, out, sizeof(out));
	assert_non_null(strstr(out, "r 5\n"));
	tree(t, sizeof(t), 0);
	assert_string_equal(t, "E jtop 0, E jmp1 1, E jmp2 2, E jmp3 3, R jmp3 3, R jmp2 2, R jmp1 1, "
			       "E after 1, R after 1, R jtop 0");
	fd_stop(&fd);
}

static void test_thresh(void **state)
{
	char out[1024], t[2048];

	start();
	/* about 100 us at any TSC rate from 1 to 5 GHz: the 20 ms function stays */
	fd.ctl->thresh_tsc = 500000;
	trace_run("thresh", "20000", out, sizeof(out));
	fd.ctl->thresh_tsc = 0;
	tree(t, sizeof(t), 0);
	/*
	 * A short call stays only when it did take the threshold: preempted on a busy
	 * machine (its duration counts the time off the CPU, as the kernel's does).
	 */
	assert_true(!strncmp(t, "E longf 0, ", 11));
	assert_true(strlen(t) >= 11 && !strcmp(t + strlen(t) - 11, ", R longf 0"));
	assert_int_equal(count(UT_EV_GRAPH_ENT, "longf"), 1);
	assert_int_equal(count(UT_EV_GRAPH_RET, "shortf"), count(UT_EV_GRAPH_ENT, "shortf"));
	for (int i = 0; i < nevs; i++) {
		const char *nm = name_of(evs[i].ip);

		if (nm && !strcmp(nm, "shortf") && evs[i].type == UT_EV_GRAPH_RET)
			assert_true(evs[i].ts - evs[i].calltime >= 500000);
	}
	assert_int_equal(ndiscard, 0); /* all rewound: one CPU, nothing in between */

	/* without thresh every short call is there */
	trace_run("thresh", "2000", out, sizeof(out));
	assert_int_equal(count(UT_EV_GRAPH_ENT, "shortf"), 2000);
	assert_int_equal(count(UT_EV_GRAPH_RET, "shortf"), 2000);
	fd_stop(&fd);
}

struct bg_run {
	const char *const *argv;
	char out[1024];
	int ret;
};

static void *bg_run_main(void *arg)
{
	struct bg_run *r = arg;

	r->ret = run_prog(r->argv, r->out, sizeof(r->out));
	return NULL;
}

/* Events of tid in CPU 0's first page (the test's own, below). */
static unsigned int page0_count(uint32_t tid)
{
	uint64_t w = ut_rb_cpu(fd.area, 0)->wpos;
	const unsigned char *data = (const unsigned char *)(ut_rb_page(fd.area, 0, 0) + 1);
	unsigned int n = 0;

	assert_int_equal(rb_wpos_vpage(w), 0);
	for (unsigned int off = 0; off < rb_wpos_off(w);) {
		const struct ut_ev *ev = (const void *)(data + off);

		assert_true(ev->len >= 16);
		n += ev->tid == tid && ev->type != UT_EV_DISCARD;
		off += ev->len;
	}
	return n;
}

/*
 * tracing_thresh: the ring is reset while short calls are in flight (their
 * entries gone with it), and other events then bring wpos back to exactly where
 * each entry had left it.  Their returns must not take those events back (the
 * fast path's rewind of the inner calls, the C path's of the outermost one, a
 * page's first event): a rewind checks the tail is its own entry, not only wpos.
 */
static void test_thresh_rewind_after_reset(void **state)
{
	const char *argv[] = {"/usr/bin/taskset", "-c", "0", prog, "rewind_reset", NULL, NULL};
	struct bg_run r = {.argv = argv};
	char dir[64], path[96], c;
	uint64_t post;
	unsigned int n;
	pthread_t th;
	int f;

	snprintf(dir, sizeof(dir), "/tmp/ut_rewind.XXXXXX");
	assert_non_null(mkdtemp(dir));
	argv[5] = dir;
	snprintf(path, sizeof(path), "%s/p", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/g", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	start();
	fd.ctl->thresh_tsc = 1ull << 62; /* every call is short */
	fd_reset_rings(&fd);
	fd.paused = 1;
	assert_int_equal(pthread_create(&th, NULL, bg_run_main, &r), 0);

	snprintf(path, sizeof(path), "%s/p", dir);
	f = open(path, O_RDONLY);
	assert_true(f >= 0);
	assert_int_equal(read(f, &c, 1), 1); /* pausef is running: main, pouter, pausef entered */
	close(f);
	post = ut_rb_cpu(fd.area, 0)->wpos;
	n = rb_wpos_entries(post);
	assert_true(n >= 2);
	/* the daemon's reset (the program waits in read(2): no sequence in flight) */
	ut_rb_cpu(fd.area, 0)->enabled = 0;
	ut_rb_reset_cpu(fd.area, 0, FD_RING_PAGES, fd.ring_flags);
	ut_rb_cpu(fd.area, 0)->enabled = 1;
	while (ut_rb_cpu(fd.area, 0)->wpos != post) {
		struct ut_ev_func e = {.h = {.len = sizeof(e), .type = UT_EV_FUNCTION, .tid = 4242,
					     .ts = 1}};

		assert_int_equal(ut_rb_write_on_cpu(fd.area, 0, &e.h), 0);
	}
	assert_int_equal(page0_count(4242), n);

	snprintf(path, sizeof(path), "%s/g", dir);
	f = open(path, O_WRONLY);
	assert_true(f >= 0);
	assert_int_equal(write(f, "g", 1), 1);
	close(f);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(r.ret, 0);
	fd.ctl->thresh_tsc = 0;
	/* they all stay; the calls whose entries were lost show their exits */
	assert_int_equal(page0_count(4242), n);
	unlink(path);
	snprintf(path, sizeof(path), "%s/p", dir);
	unlink(path);
	rmdir(dir);
	fd_stop(&fd);
}

static void test_overrun(void **state)
{
	char out[1024];
	uint32_t ent, rets, last_over = 0;

	start();
	trace_run("deep", "1500", out, sizeof(out));
	assert_non_null(strstr(out, "r 1500\n"));
	ent = count(UT_EV_GRAPH_ENT, "rec");
	rets = count(UT_EV_GRAPH_RET, "rec");
	assert_int_equal(ent, rets);
	assert_true(ent < 1501 && ent > 1000);
	for (int i = 0; i < nevs; i++)
		if (evs[i].type == UT_EV_GRAPH_RET && name_of(evs[i].ip))
			last_over = evs[i].overrun;
	assert_int_equal(ent + last_over, 1501); /* rec(1500) .. rec(0) */
	fd_stop(&fd);
}

static void test_signal(void **state)
{
	char out[1024], t[4096];
	const char *one = "E souter 0, E on_usr1 1h, E inh 2h, R inh 2h, E on_usr2 2h, E inh 3h, "
			  "R inh 3h, R on_usr2 2h, E inh 2h, R inh 2h, R on_usr1 1h, R souter 0";
	char both[2048];

	start();
	trace_run("signal", NULL, out, sizeof(out));
	assert_non_null(strstr(out, "r 0\n"));
	tree(t, sizeof(t), 0);
	snprintf(both, sizeof(both), "%s, %s", one, one);
	assert_string_equal(t, both);

	/* funcgraph-irqs off: nothing inside the handlers */
	fd.ctl->graph_opts = UT_CTL_GRAPH_NOIRQS;
	trace_run("signal", NULL, out, sizeof(out));
	fd.ctl->graph_opts = 0;
	tree(t, sizeof(t), 0);
	assert_string_equal(t, "E souter 0, R souter 0, E souter 0, R souter 0");
	fd_stop(&fd);
}

static void test_backtrace(void **state)
{
	char out[1024], t[2048];
	int n = 0;

	start();
	trace_run("backtrace", NULL, out, sizeof(out));
	assert_int_equal(sscanf(strstr(out, "bt "), "bt %d", &n), 1);
	assert_true(n >= 3); /* real addresses, through main, hijacked again after */
	tree(t, sizeof(t), 0);
	assert_string_equal(t, "E btouter 0, E btinner 1, R btinner 1, R btouter 0");
	fd_stop(&fd);
}

static void test_pthread_exit(void **state)
{
	char out[1024], t[2048];

	start();
	trace_run("pthread_exit", NULL, out, sizeof(out));
	assert_non_null(strstr(out, "r 0\n"));
	tree(t, sizeof(t), 0);
	assert_string_equal(t, "E thmain 0, E tha 1, E thb 2, R thb 2, R tha 1, R thmain 0");
	fd_stop(&fd);
}

/* The cleanup handler runs from the frame that pushed it, below the exited ones. */
static void test_exit_cleanup(void **state)
{
	char out[1024], t[2048];

	start();
	trace_run("exit_cleanup", NULL, out, sizeof(out));
	assert_non_null(strstr(out, "r 0\n"));
	tree(t, sizeof(t), 0);
	assert_string_equal(t, "E tcmain 0, E tcb 1, E tcx 2, R tcx 2, E tclean 2, R tclean 2, "
			       "R tcb 1, R tcmain 0");
	fd_stop(&fd);
}

/*
 * A stack overflow caught on a sigaltstack and left with siglongjmp, three times:
 * the thread is traced normally afterwards (the overflow may hit the runtime
 * itself, in ut_graph_entry, with the shadow stack full).
 */
static void test_overflow(void **state)
{
	char out[1024], t[2048];

	start();
	trace_run("overflow", NULL, out, sizeof(out));
	assert_non_null(strstr(out, "r 0\n"));
	tree(t, sizeof(t), 0);
	assert_string_equal(t, "E ovmain 0, E after 1, R after 1, E after 1, R after 1, "
			       "E after 1, R after 1, R ovmain 0");
	fd_stop(&fd);
}

static int build_prog(void)
{
	char cmd[4 * PATH_MAX];

	snprintf(prog, sizeof(prog), "%s/tests/graph_prog", build);
	snprintf(cmd, sizeof(cmd),
		 "cc -O2 -g -fpatchable-function-entry=5 -fcf-protection=none -DGRAPH_PROG "
		 "-o %s %s/tests/unit/test_graph_rt.c -lpthread",
		 prog, top);
	return system(cmd);
}

int main(int argc, char **argv)
{
	if (fd_test_paths(build, sizeof(build), lib, sizeof(lib), top, sizeof(top)))
		return 1;
	if (access(lib, R_OK) || build_prog()) {
		printf("SKIP: cannot build the traced program or find %s\n", lib);
		return 0;
	}

	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nest),	 cmocka_unit_test(test_tail_call),
	    cmocka_unit_test(test_longjmp),	 cmocka_unit_test(test_thresh),
	    cmocka_unit_test(test_thresh_rewind_after_reset),
	    cmocka_unit_test(test_overrun),	 cmocka_unit_test(test_signal),
	    cmocka_unit_test(test_backtrace), cmocka_unit_test(test_pthread_exit),
	    cmocka_unit_test(test_exit_cleanup), cmocka_unit_test(test_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif

// SPDX-License-Identifier: MIT
/*
 * init.c - libutrace's start: the process-wide state, the constructor and fork.
 *
 * The constructor (before main, or at load when linked with -lutrace) installs
 * the SIGTRAP handler, finds every site and turns GCC's NOPs into 5-byte NOPs,
 * then attaches to utracefs if its socket exists and starts the control thread.
 * Without a daemon the program runs with NOPs only.
 *
 * fork: the child keeps the patched sites and the mapping (MAP_SHARED) but not
 * the threads: it takes its own tid (but keeps ut_thr.rseq: the kernel copies
 * the forking thread's rseq registration), registers as a new process on a new
 * connection and restarts the control thread.  exec: the socket is CLOEXEC.
 * Both the constructor and the fork handler are notrace (rt.h).
 */
#include <cpuid.h>
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>

#include "profile.h"
#include "rt.h"

struct ut_ctl *volatile ut_rt_ctl;
uint32_t ut_rt_nr_cpus;
uint64_t ut_rt_area_size;
volatile uint32_t ut_rt_off;
volatile uint32_t ut_rt_applied;
volatile uint64_t ut_rt_lost;
pthread_mutex_t ut_rt_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
__thread struct ut_thread ut_thr __attribute__((tls_model("initial-exec")));
/* fxsave until ut_init knows better: right on every x86_64 CPU, just not enough with AVX */
uint64_t ut_rt_xsave_size = 512;
uint32_t ut_rt_xsave_mode = UT_XSAVE_FX;
uint32_t ut_rt_xsave_mask;

/*
 * The vector state the trampoline's slow paths save (tramp.S SAVE_XMM): SSE, AVX,
 * MPX bounds and AVX-512 (XCR0 bits 1-3, 5-7), never AMX tiles (no argument lives
 * there, and 8 KiB more stack per call).  The compacted form (xsavec) holds only
 * those components, each 64-byte aligned when cpuid says so.
 */
static void xsave_init(void)
{
	unsigned int a, b, c, d, lo, hi, size, mask;
	int compact;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_XSAVE) || !(c & bit_OSXSAVE) ||
	    __get_cpuid_max(0, NULL) < 0xd)
		return;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	mask = lo & 0xee;
	__cpuid_count(0xd, 1, a, b, c, d);
	compact = a & 2; /* XSAVEC */
	size = 576;	 /* legacy area + header */
	for (unsigned int i = 2; i < 8; i++) {
		if (!(mask & (1u << i)))
			continue;
		__cpuid_count(0xd, i, a, b, c, d);
		if (!compact) {
			size = b + a > size ? b + a : size;
			continue;
		}
		if (c & 2)
			size = (size + 63) & ~63u;
		size += a;
	}
	ut_rt_xsave_mask = mask;
	ut_rt_xsave_size = (size + 63) & ~63u;
	ut_rt_xsave_mode = compact ? UT_XSAVE_C : UT_XSAVE;
}

static void fork_prepare(void)
{
	ut_evpid_fork_prepare();
	pthread_mutex_lock(&ut_rt_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&ut_rt_lock);
	ut_evpid_fork_parent();
}

/*
 * The child's thread gets its own tid at once when the parent's had one: it may
 * return through frames it inherited before it calls anything (a function that
 * returns fork()'s result), and those exits are its own.
 */
static void fork_child(void)
{
	/* The owner recorded in the lock is the parent's thread id: start afresh. */
	pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	uint32_t had_tid = ut_thr.tid;

	ut_notrace_enter();
	ut_rt_lock = fresh;
	ut_evpid_fork_child(); /* with the forking thread's tid, before the HELLO */
	ut_thr.tid = 0;
	ut_graph_after_fork_child();
	ut_wake_fork_child();
	ut_control_after_fork_child();
	if (had_tid)
		ut_rt_thread_register(); /* after the child's HELLO */
	ut_notrace_leave();
}

__attribute__((constructor)) static void ut_init(void)
{
	int saved = errno;
	void *bt[2];

	ut_notrace_enter();
	ut_real_init();
	ut_lat_resolve();
	xsave_init();
	ut_graph_init();
	if (ut_sites_init() || ut_patch_init())
		goto out;
	backtrace(bt, 2); /* loads the unwinder now, not inside a traced function */
	ut_unwind_init();
	pthread_mutex_lock(&ut_rt_lock);
	ut_sites_scan();
	pthread_mutex_unlock(&ut_rt_lock);
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	ut_dl_hook_install(); /* from now on dlopen's objects are live before they run */
	ut_control_start();
out:
	ut_notrace_leave();
	ut_life_exec(); /* traced code: outside the runtime's own work */
	errno = saved;
}

/* exit(): after the program's destructors (the runtime was loaded first). */
__attribute__((destructor)) static void ut_fini(void)
{
	int saved = errno;

	ut_prof_report_exit(); /* the counts outlive the process (trace_stat) */
	ut_life_process_exit();
	errno = saved;
}

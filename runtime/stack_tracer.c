// SPDX-License-Identifier: MIT
/*
 * stack_tracer.c - the stack tracer: the deepest stack a traced function was
 * entered with, and its frames (stack_max_size, stack_trace).
 *
 * As the kernel's, it hooks the entry of every function of stack_trace_filter
 * whatever current_tracer is, while stack_tracer_enabled is 1 (ut_ctl.stack_on):
 * a site no tracer or probe takes calls ut_tramp_stack (stack.S), others check
 * in probe.c's C first.  The measure at an entry is the distance from the top of
 * the stack the thread runs on to the traced function's return address (site +
 * 5, where the call pushed it), which is what the kernel measures from the top
 * of the task's stack.
 *
 * The top of a thread's stack: a thread started through pthread_create takes it
 * from its attributes (pthread_getattr_np) before it runs anything; any other
 * thread, the main one included, from the end of the mapping its stack pointer
 * is in (/proc/self/maps, read with plain system calls: no stdio, no malloc).
 * A signal handler may run on an alternate stack (sigaltstack), which lies
 * anywhere: inside wrapped handlers every check comes here, and when
 * sigaltstack(NULL) says the stack pointer is on the alternate stack, the
 * measure is against its top, never the thread's.
 *
 * The fast path compares rsp with the thread's limit, the top of its stack minus
 * the deepest stack known (this process's or, from ut_ctl.stack_max, any
 * process's): only a deeper stack, a thread's first check or a reset
 * (ut_stack_epoch moved) comes here.  A deeper stack becomes the process's
 * maximum with compare-and-swap (threads race), its caller chain is taken as
 * func_stack_trace takes it (api.c), each return address is looked for on the
 * stack upwards from the one before, as the kernel does, which gives each
 * frame's depth, and UT_MSG_STACK tells utracefs, which keeps the deepest of all
 * processes.  Writing stack_max_size moves ut_ctl.stack_epoch: every thread's
 * next check then starts over from the value written.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"
#include "ut_ctl.h"
#include "ut_wire.h"

_Static_assert(offsetof(struct ut_thread, stk_limit) == 128, "stack.S uses offset 128");
_Static_assert(offsetof(struct ut_thread, stk_epoch) == 136, "stack.S uses offset 136");
_Static_assert(sizeof(((struct ut_msg_stack *)0)->ent) / 16 == UT_STACK_MAX,
	       "a message holds UT_STACK_MAX frames");

int ut_stack_live;
int ut_stack_filtered;
uint32_t ut_stack_epoch;
static uint64_t proc_max; /* the deepest stack of this process in ut_stack_epoch */

void ut_stack_apply(const struct ut_ctl *ctl)
{
	uint32_t epoch = __atomic_load_n(&ctl->stack_epoch, __ATOMIC_ACQUIRE);

	if (epoch != __atomic_load_n(&ut_stack_epoch, __ATOMIC_RELAXED)) {
		/* threads compare their epoch with ours: the max first */
		__atomic_store_n(&proc_max, __atomic_load_n(&ctl->stack_max, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&ut_stack_epoch, epoch, __ATOMIC_RELEASE);
	}
	ut_stack_live = ctl->stack_on && ctl->ftrace_enabled;
}

void ut_stack_thread_start(void)
{
	pthread_attr_t at;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &at))
		return;
	if (!pthread_attr_getstack(&at, &addr, &size)) {
		ut_thr.stk_top = (uintptr_t)addr + size;
		ut_thr.stk_lo = (uintptr_t)addr;
	}
	pthread_attr_destroy(&at);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The end of the mapping that holds addr (/proc/self/maps), 0 if none. */
static uintptr_t mapping_end(uintptr_t addr)
{
	char buf[4096];
	uintptr_t v[2] = {0, 0};
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int field = 0, skip = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	/* "lo-hi perms ...": two hex numbers at the start of each line */
	while ((n = syscall(SYS_read, fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			char c = buf[i];
			int h = hexval(c);

			if (c == '\n') {
				field = skip = 0;
				v[0] = v[1] = 0;
			} else if (skip) {
				continue;
			} else if (h >= 0) {
				v[field] = v[field] << 4 | (uintptr_t)h;
			} else if (c == '-' && field == 0) {
				field = 1;
			} else {
				skip = 1;
				if (v[0] <= addr && addr < v[1]) {
					syscall(SYS_close, fd);
					return v[1];
				}
			}
		}
	}
	syscall(SYS_close, fd);
	return 0;
}

/* The main thread's stack grows down to RLIMIT_STACK below its top (its mapping
 * grows with it, so the mapping's start is no bound). */
void ut_stack_own(uintptr_t sp)
{
	struct rlimit rl;
	uintptr_t room = (uintptr_t)1 << 33, top;

	if (ut_thr.stk_top)
		return;
	top = mapping_end(sp);
	if (!getrlimit(RLIMIT_STACK, &rl) && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < room)
		room = (uintptr_t)rl.rlim_cur;
	ut_thr.stk_lo = top > room ? top - room : 0;
	ut_thr.stk_top = top; /* last: sdt.c's fast path reads it from this thread's probes */
}

/*
 * The top of the stack sp is on and, in *lo, its lowest address; *alt: the
 * alternate signal stack.
 */
static uintptr_t stack_top(uintptr_t sp, int *alt, uintptr_t *lo)
{
	stack_t ss;

	*alt = 0;
	if (ut_thr.sigdepth && !sigaltstack(NULL, &ss) && (ss.ss_flags & SS_ONSTACK)) {
		*alt = 1;
		*lo = (uintptr_t)ss.ss_sp;
		return (uintptr_t)ss.ss_sp + ss.ss_size;
	}
	ut_stack_own(sp);
	*lo = ut_thr.stk_lo;
	return ut_thr.stk_top;
}

/*
 * Where each return address of ips is on the stack [sp, top), looked for
 * upwards from the last one found, as the kernel's stack tracer does: frames
 * not found are left out.  Fills m's frames, returns how many.
 */
static uint32_t locate(struct ut_msg_stack *m, const uint64_t *ips, int nr, uintptr_t sp,
		       uintptr_t top)
{
	const uint64_t *p = (const uint64_t *)sp, *end = (const uint64_t *)(top & ~7ul);
	uint32_t x = 0;

	for (int i = 0; i < nr && x < UT_STACK_MAX; i++) {
		for (const uint64_t *q = p; q < end; q++) {
			if (*q == ips[i]) {
				m->ent[x].ip = ips[i];
				m->ent[x].depth = top - (uintptr_t)q;
				x++;
				p = q + 1;
				break;
			}
		}
	}
	return x;
}

static void report(uintptr_t *frame, uintptr_t fp, uintptr_t top, uint64_t size)
{
	static __thread struct ut_msg_stack m;
	uint64_t ips[UT_STACK_MAX];
	int nr;

	ut_notrace_enter(); /* the unwinder's own calls */
	nr = ut_rt_stack_ips(ips, frame, fp);
	ut_notrace_leave();
	memset(&m, 0, sizeof(m));
	m.h = (struct ut_msg_hdr){UT_MSG_STACK, sizeof(m)};
	m.tid = (int32_t)syscall(SYS_gettid);
	m.epoch = __atomic_load_n(&ut_stack_epoch, __ATOMIC_ACQUIRE);
	m.size = size;
	m.tsc = __builtin_ia32_rdtsc();
	m.nr = locate(&m, ips, nr, (uintptr_t)frame, top);
	ut_send(&m, sizeof(m));
}

void ut_stack_check(uintptr_t *frame, uintptr_t fp)
{
	struct ut_ctl *ctl = ut_rt_ctl;
	uint32_t epoch = __atomic_load_n(&ut_stack_epoch, __ATOMIC_ACQUIRE);
	uintptr_t sp = (uintptr_t)frame, top, lo;
	uint64_t size, max, known;
	int saved = errno, alt;

	if (ut_thr.stk_busy)
		return; /* a handler interrupted our own check */
	ut_thr.stk_busy = 1;
	ut_thr.stk_epoch = epoch;
	if (!ctl || !ut_stack_live) {
		ut_thr.stk_limit = 0; /* the site is being unpatched: nothing to measure */
		goto out;
	}
	top = stack_top(sp, &alt, &lo);
	/*
	 * Not on the stack it is measured against (a coroutine's makecontext stack, a
	 * handler on a stack utrace did not see installed): no size means anything,
	 * and locate() must read [sp, top) only where it is that stack.
	 */
	if (top <= sp || sp < lo) {
		ut_thr.stk_limit = 0;
		goto out;
	}
	size = top - sp;
	known = __atomic_load_n(&ctl->stack_max, __ATOMIC_RELAXED);
	max = __atomic_load_n(&proc_max, __ATOMIC_RELAXED);
	while (size > max && size > known) {
		if (__atomic_compare_exchange_n(&proc_max, &max, size, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			report(frame, fp, top, size);
			max = size;
			break;
		}
	}
	if (max < known)
		max = known;
	/* inside handlers every check comes here: the stack may be another one */
	if (!alt && !ut_thr.sigdepth)
		ut_thr.stk_limit = max < top ? top - max : 0;
out:
	ut_thr.stk_busy = 0;
	errno = saved;
}

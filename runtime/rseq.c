// SPDX-License-Identifier: MIT
/*
 * rseq.c - the rseq area each thread writes its events with.
 *
 * Every writer (tramp.S, ut_rb_write) runs inside a restartable sequence, so it
 * needs the thread's registered struct rseq.  Normally that is glibc's
 * (__rseq_offset from the thread pointer).  When glibc did not register one
 * (built without it, GLIBC_TUNABLES=glibc.pthread.rseq=0, or a thread glibc did not
 * register: its area's cpu_id is then negative), the runtime registers its own,
 * ut_rseq_own below.  The kernel allows one area per thread, so the two are never
 * both registered.  It is not glibc's own (unused) area: that one is glibc's state
 * (pthread_create looks at its cpu_id to decide whether to register new threads).
 *
 * The choice is made once per thread, in the slow path of its first event
 * (ut_rt_thread_first), and cached in ut_thr.rseq: the hot path then only loads
 * that pointer, and NULL means "no rseq": the event is written under the ring's
 * lock if utracefs chose the locked write mode (a kernel without rseq, ut_ctl.h),
 * else counted in ut_rt_lost.  That happens when the kernel has no rseq (ENOSYS)
 * or someone else registered a different area for the thread behind glibc's back
 * (EBUSY, EINVAL).
 *
 * Lifetime.  ut_rseq_own is static TLS of libutrace.so, which is preloaded or linked
 * and never unloaded, so it lives exactly as long as the thread's static TLS block.
 * glibc reuses that block (thread stack cache) only after the kernel has cleared
 * the thread's tid at exit, and the kernel writes a thread's rseq area only on its
 * way back to user space, which an exited thread never takes: no unregistration is
 * needed at thread exit, the same reasoning that lets glibc keep its own area in
 * struct pthread without unregistering it.  fork: the child inherits the
 * registration of the forking thread (same address, its own copy of the TLS), and
 * keeps ut_thr.rseq; exec drops every registration with the old image.
 */
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"

#define UT_RSEQ_SIG 0x53053053 /* the signature before every abort label */
#define UT_RSEQ_LEN 32u	       /* the original struct rseq: what every kernel accepts */

static __thread struct rseq ut_rseq_own __attribute__((tls_model("initial-exec"), aligned(32)));

_Static_assert(sizeof(struct rseq) == UT_RSEQ_LEN, "struct rseq is 32 bytes");
_Static_assert(offsetof(struct ut_thread, rseq) == 16, "tramp.S reads ut_thr.rseq at 16");

static struct rseq *glibc_area(void)
{
	char *tp;

	if (__rseq_size < 20)
		return NULL;
	__asm__("movq %%fs:0, %0" : "=r"(tp));
	return (struct rseq *)(tp + __rseq_offset);
}

struct rseq *ut_rseq_thread_init(void)
{
	struct rseq *g = glibc_area(), *own = &ut_rseq_own;

	if (ut_thr.rseq)
		return ut_thr.rseq; /* already chosen (this thread, or the forking one) */
	if (g && (int32_t)g->cpu_id >= 0) {
		ut_thr.rseq = g;
		return g;
	}
	own->cpu_id_start = 0;
	own->cpu_id = (uint32_t)RSEQ_CPU_ID_UNINITIALIZED;
	own->rseq_cs = 0;
	own->flags = 0;
	/* The kernel sets cpu_id before the call returns to user space. */
	if (syscall(__NR_rseq, own, UT_RSEQ_LEN, 0, UT_RSEQ_SIG) != 0 || (int32_t)own->cpu_id < 0)
		return NULL;
	ut_thr.rseq = own;
	return own;
}

/* ut_rb_write's source of an area when glibc registered none (rb_write.S). */
struct rseq *ut_rb_rseq_fallback(void)
{
	return ut_thr.rseq;
}

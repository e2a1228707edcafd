/* SPDX-License-Identifier: MIT */
/*
 * ut_ring_write.h - writing events into the shared ring (see ut_ring.h).
 *
 * ut_rb_write() is the general writer used by utracefs (trace_marker) and by the
 * runtime's slow paths (trace_printk, stack events): it copies a prepared event
 * into the ring of the CPU it runs on, inside an rseq critical section, and fills
 * in the time stamp there.  The function tracer's hot path is a specialised copy of
 * the same algorithm in assembly (runtime/arch/x86_64/).
 *
 * ut_rb_write_on_cpu() is the same algorithm in plain C for one given CPU, without
 * rseq: it is the executable specification, used by unit tests and usable only
 * where the caller guarantees that nothing else writes that CPU's ring.
 */
#ifndef UT_RING_WRITE_H
#define UT_RING_WRITE_H

#include "ut_ring.h"

/* Results (negative errno style). */
#define UT_RB_OK 0
/* -ENOSPC: buffer full in no-overwrite mode; the event was counted in `dropped`. */
/* -EAGAIN: the ring is disabled (cpumask, reset, resize); nothing counted. */
/* -EINVAL: bad event length. */
/* -ENOSYS: rseq is not registered for this thread (ut_rb_write only). */
/* -EDEADLK, -EBUSY: ut_rb_write_locked only, see there. */

/*
 * Write ev (ev->len bytes, ev->len a multiple of 8, 16 <= len <= UT_RB_PAGE_DATA)
 * into the ring of the current CPU.  ev->ts is overwritten with the TSC read in
 * the critical section.  nr_cpus bounds the cpu number read from rseq.
 */
int ut_rb_write(void *area, unsigned int nr_cpus, struct ut_ev *ev);

/*
 * The same write for a kernel without rseq (ut_ctl.write_mode == UT_CTL_WRITE_LOCKED):
 * takes the lock word of the ring of the CPU sched_getcpu() names (rb_cpu.lock,
 * holding the caller's identity: tid and start time), stamps ev->ts and runs
 * ut_rb_write_on_cpu() there.  A lock whose holder is gone (dead, or an identity no
 * live task has: a reused tid, a forged word) is stolen after UT_RB_LOCK_STEAL_MS.  Results as
 * ut_rb_write, never -ENOSYS, plus -EDEADLK: the thread is already inside this
 * function (a signal handler interrupted it), nothing written; -EBUSY: a live
 * holder kept the lock UT_RB_LOCK_GIVEUP_MS (stopped?), nothing written.  Callers
 * count both as lost events.  Async-signal-safe.
 */
int ut_rb_write_locked(void *area, unsigned int nr_cpus, struct ut_ev *ev);

#define UT_RB_LOCK_STEAL_MS 20	 /* wait before asking whether the holder still lives */
#define UT_RB_LOCK_GIVEUP_MS 2000 /* wait at most this long for a live holder */

/*
 * Take / drop one ring's lock as ut_rb_write_locked does (utracefs's CPU barrier
 * in locked mode).  ut_rb_lock returns 0, or -EBUSY as above, or at once (after
 * UT_RB_LOCK_STEAL_MS) when the holder is stopped; ut_rb_unlock frees the lock only
 * if the calling thread still holds it.
 */
int ut_rb_lock(void *area, unsigned int cpu);
void ut_rb_unlock(void *area, unsigned int cpu);

/*
 * Free cpu's lock if its holder is gone (as a waiter would steal it), so that a
 * ring no writer comes back to is not left locked: utracefs calls it for a lock it
 * sees held for a while.  1 when it freed it, else 0.  Async-signal-safe.
 */
int ut_rb_lock_reap(void *area, unsigned int cpu);

/* Tests only: called by ut_rb_write_locked while it holds the lock of `cpu`. */
extern void (*ut_rb_locked_hook)(void *area, unsigned int cpu);

/* Whether the kernel has rseq at all (utracefs chooses ut_ctl.write_mode with it). */
int ut_rb_kernel_has_rseq(void);

/* The reference algorithm for one CPU; ts is taken as given in ev->ts. */
int ut_rb_write_on_cpu(void *area, unsigned int cpu, const struct ut_ev *ev);
/*
 * The same, ignoring `enabled`: utracefs refilling a ring it disabled (resize),
 * after the CPU barrier, so that no other writer can run there.
 */
int ut_rb_write_on_cpu_disabled(void *area, unsigned int cpu, const struct ut_ev *ev);

/*
 * Reset one CPU's ring to empty with nr_pages pages and the given flags.  The
 * caller (utracefs) must have set enabled = 0 and passed a CPU barrier first; this
 * leaves enabled = 0, the caller enables it.  dropped is cleared.
 */
void ut_rb_reset_cpu(void *area, unsigned int cpu, unsigned int nr_pages, unsigned int flags);

#endif

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

/*
 * Write ev (ev->len bytes, ev->len a multiple of 8, 16 <= len <= UT_RB_PAGE_DATA)
 * into the ring of the current CPU.  ev->ts is overwritten with the TSC read in
 * the critical section.  nr_cpus bounds the cpu number read from rseq.
 */
int ut_rb_write(void *area, unsigned int nr_cpus, struct ut_ev *ev);

/* The reference algorithm for one CPU; ts is taken as given in ev->ts. */
int ut_rb_write_on_cpu(void *area, unsigned int cpu, const struct ut_ev *ev);

/*
 * Reset one CPU's ring to empty with nr_pages pages and the given flags.  The
 * caller (utracefs) must have set enabled = 0 and passed a CPU barrier first; this
 * leaves enabled = 0, the caller enables it.  dropped is cleared.
 */
void ut_rb_reset_cpu(void *area, unsigned int cpu, unsigned int nr_pages, unsigned int flags);

#endif

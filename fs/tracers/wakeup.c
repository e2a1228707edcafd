// SPDX-License-Identifier: MIT
/*
 * wakeup.c - wakeup, wakeup_rt and wakeup_dl: the longest time from a thread
 * waking another through futex-based synchronisation (a condition variable
 * signalled, a contended mutex or rwlock handed over, a semaphore posted) to
 * the woken thread running its own code again (its wait returned).  wakeup
 * measures every wakee, wakeup_rt SCHED_FIFO, SCHED_RR and SCHED_DEADLINE ones
 * (the kernel's rt_or_dl_task), wakeup_dl SCHED_DEADLINE ones.
 *
 * The runtime measures (runtime/wakeup.c) and writes the kernel's entries: the
 * wake entry in the waker's context ("waker:prio:R   + [cpu] wakee:prio:R comm"),
 * the wakee's functions under function-trace, then in the wakee's context the
 * primitive it returned from and the switch entry ("==>"); the core keeps the
 * maximum (latency.c), whose task line names the wakee and whose view shows the
 * waker's and the wakee's events.  No "started at" lines: the kernel's wakeup
 * tracers set no critical section either.
 */
#include "../latency.h"
#include "../output/output.h"
#include "tracers.h"

TFS_LAT_TRACER(tfs_wakeup_tracer, "wakeup", UT_LAT_WAKEUP);
TFS_LAT_TRACER(tfs_wakeup_rt_tracer, "wakeup_rt", UT_LAT_WAKEUP_RT);
TFS_LAT_TRACER(tfs_wakeup_dl_tracer, "wakeup_dl", UT_LAT_WAKEUP_DL);

// SPDX-License-Identifier: MIT
/*
 * vfork.c - a vfork child runs untraced until it calls exec or _exit.
 *
 * A vfork child shares the parent's memory and runs on the parent's thread: its
 * stack, its thread-local state (ut_thr: the tid events are written under, the
 * rseq area the parent's thread registered, the function_graph shadow stack).
 * The kernel gives the child no rseq registration of its own, so an event it
 * wrote would go, unprotected, to the CPU the parent last ran on, under the
 * parent's tid, and its returns would go through the parent's shadow stack.  So
 * the child traces nothing, not even in its signal handlers (ut_thr.notrace_all),
 * and the parent, which resumes only once the child has called exec or _exit,
 * gets its thread state back as it was before the call: whatever the child
 * changed in it is forgotten.  The image the child execs is traced as any other.
 *
 * vfork itself is arch/x86_64/vfork.S: the child must not return through a frame
 * of ours.  (posix_spawn, system and popen clone without calling vfork and run no
 * traced code in the child.)
 */
#include <errno.h>

#include "rt.h"

/* The calling thread's state, kept where the child does not write (it calls no vfork). */
static __thread struct ut_thread saved;

void ut_vfork_save(void);
pid_t ut_vfork_after(long ret);

void ut_vfork_save(void)
{
	saved = ut_thr;
}

pid_t ut_vfork_after(long ret)
{
	if (ret == 0) { /* the child */
		ut_notrace_enter();
		ut_thr.notrace_all = 1;
		return 0;
	}
	ut_thr = saved; /* the parent, once the child has gone: as before the call */
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return (pid_t)ret;
}

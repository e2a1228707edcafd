// SPDX-License-Identifier: MIT
/*
 * latency.c - the latency tracers' part in the process: irqsoff, preemptoff and
 * preemptirqsoff (UT_TRACER_LATENCY, ut_ctl.lat_mode).
 *
 * A thread is the kernel's CPU here: a section is a stretch of one thread during
 * which, in the kernel's terms, it cannot be interrupted (irqsoff: every
 * asynchronous signal blocked, the condition of the 'd' flag, or a wrapped signal
 * handler running, as a hard irq runs with irqs off) or cannot give way
 * (preemptoff: at least one pthread mutex, rwlock or spinlock held; nesting is
 * counted per thread).  preemptirqsoff takes either.
 *
 * What the kernel's start_critical_timing and check_critical_timing do, this file
 * does at the section's edges, on the thread itself:
 *
 *   start  the TSC, a function entry "primitive <-caller" (sigprocmask,
 *          pthread_mutex_lock, or the handler), and the caller becomes the
 *          section's "started at";
 *   end    delta = now - start.  With tracing_thresh set (ut_ctl.thresh_tsc) a
 *          delta of at least it is reported, else one above tracing_max_latency
 *          (ut_ctl.lat_max_tsc): the end entry and a stack event are written, and
 *          UT_MSG_LATENCY tells utracefs, which raises tracing_max_latency, swaps
 *          the rings into the max buffer and keeps the section's data for the
 *          header.  The thread then waits (bounded) until utracefs says it is
 *          done (ut_ctl.lat_done), so that its next section's events are not
 *          swapped away with this one's.  utracefs drops a report that another
 *          maximum overtook meanwhile (the kernel's critical_sequence check).
 *
 * With option function-trace (ut_ctl.lat_ftrace) the sites call the function
 * tracer's trampoline, and a thread records only inside a section: this uses the
 * gate set_ftrace_pid has (ut_thr.task_ok / task_no, rt.h), so a thread outside a
 * section costs the trampoline two compares and no call.  At a section's start
 * the thread's answer is asked again (ut_rt_task_check, which also says no
 * outside a section); at its end task_no is set for the current generation.
 *
 * The lock wrappers cost one predictable branch when no latency tracer is on:
 * ut_lat_wraps tested, then the real function through a pointer (bench rows
 * lat-mutex-off and lat-mutex-on); the wakeup tracers (wakeup.c) share them.  The runtime's own locking (ut_rt_lock, the
 * control thread) is left out: calls made from libutrace itself, or on a thread
 * doing the runtime's own work (ut_notrace_now), do not count.
 *
 * Limitation: a thread already holding a lock (or with signals blocked) when the
 * tracer is switched on starts counting from zero; its unlock then ends nothing.
 * pthread_cond_wait, _timedwait and _clockwait release the mutex while they wait:
 * they are wrapped so that the wait is not part of a section.
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"
#include "ut_wire.h"

/* a latency tracer that counts locks is on */
int ut_lat_locks_live;
/* the wrappers' one test: a tracer that counts locks (preemptoff) or wakes (wakeup) is on */
int ut_lat_wraps;
/* a latency tracer is on (UT_LAT_* of the sections it measures), 0: off */
uint32_t ut_lat_mode;
/* function-trace under a latency tracer: threads record only inside sections */
int ut_lat_gate;
/* bumped each time a latency tracer is switched on: a thread's counts from before are void */
static uint32_t lat_epoch = 1;
/* libutrace's own code: lock calls from there are the runtime's, never a section */
static uintptr_t self_lo, self_hi;

static int self_range(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t me = (uintptr_t)arg;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= lo &&
		    me < lo + ph->p_memsz) {
			self_lo = lo;
			self_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

void ut_lat_apply(const struct ut_ctl *ctl)
{
	uint32_t mode = ctl->tracer == UT_TRACER_LATENCY && ctl->ftrace_enabled
			    ? __atomic_load_n(&ctl->lat_mode, __ATOMIC_RELAXED) &
				  (UT_LAT_IRQSOFF | UT_LAT_PREEMPTOFF)
			    : 0;
	uint32_t wake = ctl->tracer == UT_TRACER_LATENCY && ctl->ftrace_enabled
			    ? __atomic_load_n(&ctl->lat_mode, __ATOMIC_RELAXED) & UT_LAT_WAKEUPS
			    : 0;
	int gate = (mode || wake) && ctl->lat_ftrace;

	if (mode && !ut_lat_mode)
		__atomic_store_n(&lat_epoch, lat_epoch + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&ut_lat_mode, mode, __ATOMIC_RELEASE);
	__atomic_store_n(&ut_lat_locks_live, (mode & UT_LAT_PREEMPTOFF) != 0, __ATOMIC_RELEASE);
	ut_wake_apply(wake);
	__atomic_store_n(&ut_lat_wraps, ut_lat_locks_live || wake, __ATOMIC_RELEASE);
	if (gate != ut_lat_gate) {
		__atomic_store_n(&ut_lat_gate, gate, __ATOMIC_RELEASE);
		ut_rt_task_invalidate(); /* cached answers were given without (or with) the gate */
	}
}

int ut_lat_recording(void)
{
	/* a section left open by an earlier run of a tracer is none */
	return ut_thr.lat_in && ut_thr.lat_epoch == __atomic_load_n(&lat_epoch, __ATOMIC_ACQUIRE);
}

/* Is this thread in a section now, by the tracer's definition? */
static int in_section(uint32_t mode)
{
	return ((mode & UT_LAT_IRQSOFF) && (ut_thr.sigblocked || ut_thr.sigdepth)) ||
	       ((mode & UT_LAT_PREEMPTOFF) && ut_thr.lat_locks);
}

/* A function entry "ip <-parent" (ip as a site's: the call's return address). */
void ut_lat_write_func(struct ut_ctl *ctl, uintptr_t ip, uintptr_t parent)
{
	struct ut_ev_func ev = {.h = {.len = sizeof(ev),
				      .type = UT_EV_FUNCTION,
				      .flags = ut_thr.evflags,
				      .tid = ut_thr.tid},
				.ip = ip + UT_SITE_CALL_LEN,
				.parent_ip = parent};

	ut_rt_write_ev(ctl, ctl, &ev.h);
}

void ut_lat_gate_set(int open)
{
	if (!__atomic_load_n(&ut_lat_gate, __ATOMIC_ACQUIRE) || ut_thr.notrace)
		return; /* the runtime's own work keeps its answers (rt.h) */
	ut_thr.task_ok = ut_thr.task_no = 0;
	if (open)
		ut_rt_task_check(); /* set_ftrace_pid's answer, cached */
	else
		ut_thr.task_no = __atomic_load_n(&ut_rt_task_gen, __ATOMIC_ACQUIRE);
}

/* Wait (bounded) until utracefs has dealt with this thread's report sent after seq. */
static void wait_done(struct ut_ctl *ctl, uint32_t seq, int32_t tid)
{
	struct timespec now, end, left;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += UT_ACK_TIMEOUT_MS / 1000;
	for (;;) {
		uint32_t cur = __atomic_load_n(&ctl->lat_done, __ATOMIC_ACQUIRE);

		if (cur != seq && __atomic_load_n(&ctl->lat_done_tid, __ATOMIC_RELAXED) == tid)
			return;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			return; /* utracefs is slow or gone: the trace may hold less */
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000;
		}
		/* (another thread's report moves lat_done too: then wait on) */
		syscall(SYS_futex, &ctl->lat_done, FUTEX_WAIT, cur, &left, NULL, 0);
	}
}

void ut_lat_sched(int32_t tid, int32_t *nice, uint32_t *policy, uint32_t *rt_prio)
{
	struct { /* the kernel's struct sched_attr, its first version */
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
	} attr = {0};
	struct sched_param sp;
	int pol;

	/* one system call where the kernel has it (3.14 on), three otherwise */
	if (syscall(SYS_sched_getattr, tid, &attr, sizeof(attr), 0) == 0) {
		*nice = attr.nice;
		*policy = attr.policy;
		*rt_prio = attr.priority;
		return;
	}
	errno = 0;
	*nice = getpriority(PRIO_PROCESS, (id_t)tid);
	pol = sched_getscheduler(tid);
	*policy = pol < 0 ? 0 : (uint32_t)pol;
	*rt_prio = sched_getparam(tid, &sp) ? 0 : (uint32_t)sp.sched_priority;
}

void ut_lat_write_stack(struct ut_ctl *ctl, uintptr_t parent)
{
	/* a handler's section (no caller): from where the handler returns to */
	uintptr_t frame[2] = {parent ? parent : ut_thr.lat_stack, 0};
	uint8_t guard = ut_thr.guard;

	ut_thr.guard = 0; /* the stack event takes the guard itself */
	if (frame[0])
		ut_rt_stack_event(frame, 0, ctl);
	ut_thr.guard = guard;
}

int ut_lat_exceeds(const struct ut_ctl *ctl, uint64_t delta)
{
	uint64_t thresh = __atomic_load_n(&ctl->thresh_tsc, __ATOMIC_RELAXED);
	uint64_t max = __atomic_load_n(&ctl->lat_max_tsc, __ATOMIC_RELAXED);

	return thresh ? delta >= thresh : delta > max;
}

void ut_lat_report(struct ut_ctl *ctl, const struct ut_lat_sect *sect, uint64_t end, uintptr_t ip,
		   uintptr_t parent, uint32_t flags, struct ut_ev *extra)
{
	struct ut_msg_latency m = {.h = {UT_MSG_LATENCY, sizeof(m)}, .flags = flags};
	uint32_t seq;

	ut_lat_write_func(ctl, ip, parent);
	if (extra)
		ut_rt_write_ev(ctl, ctl, extra); /* the wakeup tracers' "==>" (wakeup.c) */
	ut_lat_write_stack(ctl, parent);
	m.tid = (int32_t)ut_thr.tid;
	m.start_tsc = sect->start_tsc;
	m.end_tsc = end;
	m.start_ip = sect->start_ip;
	m.start_parent = sect->start_parent;
	m.end_ip = ip;
	m.end_parent = parent;
	m.cpu = (uint32_t)sched_getcpu();
	ut_lat_sched(m.tid, &m.nice, &m.policy, &m.rt_prio);
	seq = __atomic_load_n(&ctl->lat_done, __ATOMIC_ACQUIRE);
	m.last_tsc = __builtin_ia32_rdtsc(); /* after every event of the section */
	if (ut_send(&m, sizeof(m)) == 0)
		wait_done(ctl, seq, m.tid);
}

static void section_start(struct ut_ctl *ctl, uintptr_t ip, uintptr_t parent)
{
	ut_thr.lat_in = 1;
	ut_thr.lat_sect.start_ip = ip;
	ut_thr.lat_sect.start_parent = parent;
	ut_thr.lat_sect.start_tsc = __builtin_ia32_rdtsc();
	ut_lat_write_func(ctl, ip, parent);
	ut_lat_gate_set(1);
}

static void section_end(struct ut_ctl *ctl, uintptr_t ip, uintptr_t parent)
{
	uint64_t end = __builtin_ia32_rdtsc();

	ut_thr.lat_in = 0;
	ut_lat_gate_set(0);
	if (ut_lat_exceeds(ctl, end - ut_thr.lat_sect.start_tsc))
		ut_lat_report(ctl, &ut_thr.lat_sect, end, ip, parent, 0, NULL);
}

/* Counts kept under an earlier run of a latency tracer are void. */
static void epoch_check(void)
{
	uint32_t epoch = __atomic_load_n(&lat_epoch, __ATOMIC_ACQUIRE);

	if (ut_thr.lat_epoch != epoch) {
		ut_thr.lat_epoch = epoch;
		ut_thr.lat_in = 0;
		ut_thr.lat_locks = 0;
	}
}

void ut_lat_wait_gate(int open)
{
	if (open)
		epoch_check(); /* this run's: ut_lat_recording says yes */
	ut_thr.lat_in = (uint8_t)open;
	ut_lat_gate_set(open);
}

void ut_lat_update(uintptr_t ip, uintptr_t parent)
{
	uint32_t mode = __atomic_load_n(&ut_lat_mode, __ATOMIC_ACQUIRE);
	struct ut_ctl *ctl = ut_rt_ctl;
	int saved = errno, want;

	if (ut_thr.guard || ut_notrace_now())
		return; /* the runtime's own work, or a handler inside our slow path */
	ut_thr.guard = 1;
	epoch_check();
	want = mode && ctl && in_section(mode);
	if (want && !ut_thr.lat_in) {
		/* the kernel measures only while tracing is on */
		if (ctl->tracing_on && !ut_rt_off) {
			ut_thr.guard = 0;
			if (ut_thr.tid || ut_rt_thread_first())
				section_start(ctl, ip, parent);
			ut_thr.guard = 1;
		}
	} else if (!want && ut_thr.lat_in) {
		if (mode && ctl && ctl->tracing_on && !ut_rt_off) {
			section_end(ctl, ip, parent);
		} else {
			ut_thr.lat_in = 0;
			ut_lat_gate_set(0);
		}
	}
	ut_thr.guard = 0;
	errno = saved;
}

/* ---- the lock wrappers -------------------------------------------------------------- */

/* A lock was taken (delta 1) or released (-1) by a call that returned to ret. */
static void __attribute__((noinline)) lock_change(int delta, uintptr_t ip, uintptr_t ret)
{
	if ((ret >= self_lo && ret < self_hi) || ut_notrace_now())
		return;
	epoch_check();
	if (delta > 0)
		ut_thr.lat_locks++;
	else if (ut_thr.lat_locks)
		ut_thr.lat_locks--;
	else
		return; /* taken before the tracer was on */
	ut_lat_update(ip, ret);
}

int ut_lat_is_program(uintptr_t ret)
{
	return !(ret >= self_lo && ret < self_hi) && !ut_notrace_now();
}

typedef int (*lock_fn)(void *);
typedef int (*timed_fn)(void *, const struct timespec *);

/*
 * What a lock call does while a latency tracer is on (ut_lat_wraps): preemptoff
 * counts the lock, the wakeup tracers (wakeup.c) see an unlock as a wake
 * (a hand-off to the oldest waiter) and a lock that had to wait as a wakee:
 * try first, and only when the lock is busy register as a waiter and block.
 * wake: 1 an unlock (a waker), -1 a lock that may wait (try: its try form).
 */
static int __attribute__((noinline))
lock_slow(void *l, const struct timespec *ts, lock_fn f, timed_fn tf, lock_fn try, int delta,
	  int wake, uintptr_t ip, uintptr_t ret)
{
	struct ut_wake_wait w;
	int r, waiting = 0;

	if (wake > 0 && ut_wake_mode && ut_lat_is_program(ret))
		ut_wake_signal(l, 0, ip, ret);
	if (wake < 0 && try && ut_wake_mode && ut_lat_is_program(ret)) {
		r = try(l);
		if (r != EBUSY)
			goto done;
		waiting = ut_wake_begin(&w, l);
	}
	r = tf ? tf(l, ts) : f(l);
	if (waiting)
		ut_wake_end(&w, r == 0, ip, ret);
done:
	if (ut_lat_locks_live && r == 0)
		lock_change(delta, ip, ret);
	return r;
}

/*
 * Each wrapper calls the real function through a pointer that starts at a resolver
 * (for calls before the constructor ran: another library's constructor, say), then
 * tests one flag.  ut_lat_resolve() fills the pointers from the constructor.
 * try: the try form a lock that may wait tries first (wakeup tracers), or NULL.
 */
#define LAT_WRAP(name, type, delta, wake, try)                                                     \
	typedef int (*name##_fn)(type *);                                                          \
	static int resolve_##name(type *l);                                                        \
	static name##_fn real_##name = resolve_##name;                                             \
	static int resolve_##name(type *l)                                                         \
	{                                                                                          \
		name##_fn f = (name##_fn)ut_real(#name);                                           \
		if (!f)                                                                            \
			return ENOSYS;                                                             \
		real_##name = f;                                                                   \
		return f(l);                                                                       \
	}                                                                                          \
	UT_EXPORT int name(type *l)                                                                \
	{                                                                                          \
		if (__builtin_expect(ut_lat_wraps, 0))                                             \
			return lock_slow((void *)l, NULL, (lock_fn)real_##name, NULL,              \
					 (lock_fn)(try), delta, wake, (uintptr_t)name,             \
					 (uintptr_t)__builtin_return_address(0));                  \
		return real_##name(l);                                                             \
	}

#define LAT_WRAP_TIMED(name, type, try)                                                            \
	typedef int (*name##_fn)(type *, const struct timespec *);                                 \
	static name##_fn real_##name;                                                              \
	UT_EXPORT int name(type *l, const struct timespec *ts)                                     \
	{                                                                                          \
		if (__builtin_expect(!real_##name, 0))                                             \
			real_##name = (name##_fn)ut_real(#name);                                   \
		if (!real_##name)                                                                  \
			return ENOSYS;                                                             \
		if (__builtin_expect(ut_lat_wraps, 0))                                             \
			return lock_slow(l, ts, NULL, (timed_fn)real_##name, (lock_fn)(try), 1,    \
					 -1, (uintptr_t)name,                                      \
					 (uintptr_t)__builtin_return_address(0));                  \
		return real_##name(l, ts);                                                         \
	}

LAT_WRAP(pthread_mutex_trylock, pthread_mutex_t, 1, 0, NULL)
LAT_WRAP(pthread_mutex_lock, pthread_mutex_t, 1, -1, real_pthread_mutex_trylock)
LAT_WRAP(pthread_mutex_unlock, pthread_mutex_t, -1, 1, NULL)
LAT_WRAP(pthread_rwlock_tryrdlock, pthread_rwlock_t, 1, 0, NULL)
LAT_WRAP(pthread_rwlock_trywrlock, pthread_rwlock_t, 1, 0, NULL)
LAT_WRAP(pthread_rwlock_rdlock, pthread_rwlock_t, 1, -1, real_pthread_rwlock_tryrdlock)
LAT_WRAP(pthread_rwlock_wrlock, pthread_rwlock_t, 1, -1, real_pthread_rwlock_trywrlock)
LAT_WRAP(pthread_rwlock_unlock, pthread_rwlock_t, -1, 1, NULL)
LAT_WRAP(pthread_spin_lock, pthread_spinlock_t, 1, 0, NULL)
LAT_WRAP(pthread_spin_trylock, pthread_spinlock_t, 1, 0, NULL)
LAT_WRAP(pthread_spin_unlock, pthread_spinlock_t, -1, 0, NULL)
LAT_WRAP_TIMED(pthread_mutex_timedlock, pthread_mutex_t, real_pthread_mutex_trylock)
LAT_WRAP_TIMED(pthread_rwlock_timedrdlock, pthread_rwlock_t, real_pthread_rwlock_tryrdlock)
LAT_WRAP_TIMED(pthread_rwlock_timedwrlock, pthread_rwlock_t, real_pthread_rwlock_trywrlock)

/*
 * A condition wait gives the mutex up while it waits: the section (if this mutex
 * made one) ends before and starts again after, as an unlock and a lock would.
 * For the wakeup tracers the waiting thread is a wakee of the condition variable
 * (wakeup.c).  The default version of the symbols: what programs built today call.
 */
typedef int (*cond_wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*cond_timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*cond_clockwait_fn)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
				 const struct timespec *);
static cond_wait_fn real_cond_wait;
static cond_timedwait_fn real_cond_timedwait;
static cond_clockwait_fn real_cond_clockwait;

void *ut_lat_cond_real(const char *name)
{
	void *f = dlvsym(RTLD_NEXT, name, "GLIBC_2.3.2");

	return f ? f : ut_real(name);
}

/* One of the three waits: ts NULL the plain one, clk >= 0 the clockwait. */
static int cond_call(pthread_cond_t *c, pthread_mutex_t *m, int clk, const struct timespec *ts)
{
	if (clk >= 0)
		return real_cond_clockwait ? real_cond_clockwait(c, m, clk, ts) : ENOSYS;
	if (ts)
		return real_cond_timedwait ? real_cond_timedwait(c, m, ts) : ENOSYS;
	return real_cond_wait ? real_cond_wait(c, m) : ENOSYS;
}

static int __attribute__((noinline))
cond_slow(pthread_cond_t *c, pthread_mutex_t *m, int clk, const struct timespec *ts, uintptr_t ip,
	  uintptr_t ret)
{
	struct ut_wake_wait w;
	int live = ut_lat_locks_live, waiting = 0, r;

	if (live)
		lock_change(-1, ip, ret);
	if (ut_wake_mode && ut_lat_is_program(ret))
		waiting = ut_wake_begin(&w, c);
	r = cond_call(c, m, clk, ts);
	if (waiting)
		ut_wake_end(&w, r == 0, ip, ret);
	if (live && ut_lat_locks_live)
		lock_change(1, ip, ret);
	return r;
}

#define COND_WRAP(name, clk, ts)                                                                   \
	do {                                                                                       \
		if (__builtin_expect(ut_lat_wraps, 0))                                             \
			return cond_slow(c, m, clk, ts, (uintptr_t)name,                           \
					 (uintptr_t)__builtin_return_address(0));                  \
		return cond_call(c, m, clk, ts);                                                   \
	} while (0)

UT_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	if (__builtin_expect(!real_cond_wait, 0))
		real_cond_wait = (cond_wait_fn)ut_lat_cond_real("pthread_cond_wait");
	COND_WRAP(pthread_cond_wait, -1, NULL);
}

UT_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				     const struct timespec *ts)
{
	if (__builtin_expect(!real_cond_timedwait, 0))
		real_cond_timedwait = (cond_timedwait_fn)ut_lat_cond_real("pthread_cond_timedwait");
	COND_WRAP(pthread_cond_timedwait, -1, ts);
}

UT_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
				     const struct timespec *ts)
{
	if (__builtin_expect(!real_cond_clockwait, 0))
		real_cond_clockwait = (cond_clockwait_fn)ut_real("pthread_cond_clockwait");
	COND_WRAP(pthread_cond_clockwait, (int)clk, ts);
}

void ut_lat_resolve(void)
{
	/* here, not under ut_rt_lock: the loader's lock is taken inside */
	dl_iterate_phdr(self_range, (void *)(uintptr_t)ut_lat_resolve);
	/* a resolver stays in place if the lookup fails: it says ENOSYS then */
#define RESOLVE(name)                                                                              \
	do {                                                                                       \
		name##_fn f = (name##_fn)ut_real(#name);                                            \
		if (f)                                                                             \
			real_##name = f;                                                           \
	} while (0)
	RESOLVE(pthread_mutex_lock);
	RESOLVE(pthread_mutex_trylock);
	RESOLVE(pthread_mutex_unlock);
	RESOLVE(pthread_rwlock_rdlock);
	RESOLVE(pthread_rwlock_wrlock);
	RESOLVE(pthread_rwlock_tryrdlock);
	RESOLVE(pthread_rwlock_trywrlock);
	RESOLVE(pthread_rwlock_unlock);
	RESOLVE(pthread_spin_lock);
	RESOLVE(pthread_spin_trylock);
	RESOLVE(pthread_spin_unlock);
	RESOLVE(pthread_mutex_timedlock);
	RESOLVE(pthread_rwlock_timedrdlock);
	RESOLVE(pthread_rwlock_timedwrlock);
#undef RESOLVE
	real_cond_wait = (cond_wait_fn)ut_lat_cond_real("pthread_cond_wait");
	real_cond_timedwait = (cond_timedwait_fn)ut_lat_cond_real("pthread_cond_timedwait");
	real_cond_clockwait = (cond_clockwait_fn)ut_real("pthread_cond_clockwait");
	ut_wake_resolve();
}

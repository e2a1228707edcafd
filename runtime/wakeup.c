// SPDX-License-Identifier: MIT
/*
 * wakeup.c - the wakeup tracers' part in the process: wakeup, wakeup_rt and
 * wakeup_dl (UT_TRACER_LATENCY with UT_LAT_WAKEUP* in ut_ctl.lat_mode).
 *
 * The latency is the kernel's "from wake-up to running" in user-space terms:
 * from the moment a thread wakes another through futex-based synchronisation
 * (pthread_cond_signal/broadcast, pthread_mutex_unlock handing a contended mutex
 * over, pthread_rwlock_unlock with a waiter, sem_post, FUTEX_WAKE through
 * syscall()) to the moment the woken thread returns from its wait
 * (pthread_cond_wait/timedwait/clockwait, a pthread_mutex_lock/timedlock or rwlock
 * lock that had to wait, sem_wait/timedwait/clockwait, FUTEX_WAIT through
 * syscall()), that is, runs its own code again.
 *
 * Matching waker and wakee: a thread about to block lists itself (a struct
 * ut_wake_wait on its stack) in a small table keyed by the object's address.  A
 * waker, before the real call, picks the oldest listed waiter of that object not
 * woken yet (all of them for a broadcast), stamps it with the TSC and its own tid
 * and priority, and writes the kernel's wake entry ("waker + [cpu] wakee", then
 * its stack and "primitive <-caller").  The wakee, back from the real call,
 * takes itself off the list; if it was stamped, now - stamp is its latency: above
 * tracing_max_latency (or at least tracing_thresh) it writes "primitive
 * <-caller", the switch entry "waker ==> wakee" and its stack, and reports
 * (latency.c, UT_MSG_LATENCY with UT_LATF_ALL_TASKS: the waker's events show too).
 * A waiter the futex did not pick (a signal woke another thread than the
 * oldest) stays stamped: its latency then runs from that wake, an upper bound.
 *
 * The table has WAKE_SLOTS slots of WAKE_WAITERS waiters, each slot behind a
 * spinning byte lock that is held for a few stores; a thread finding its slot
 * full waits unmeasured.  Objects are matched by address within the process:
 * a process-shared (pshared) object waited on in another process is not seen,
 * each process measures only the waits its own threads wake.
 *
 * Which wakees count: wakeup all of them, wakeup_rt SCHED_FIFO, SCHED_RR and
 * SCHED_DEADLINE threads (the kernel's rt_or_dl_task), wakeup_dl SCHED_DEADLINE
 * only.  A thread that does not count never lists itself, so wakes of it write
 * nothing.  Priorities are the kernel's: 120 + nice, 99 - rt_prio for FIFO/RR,
 * -1 for DEADLINE.
 *
 * With option function-trace, a listed wakee records its function entries while
 * it waits (the gate of latency.c: ut_thr.lat_in): signal handlers it ran while
 * woken but not yet back.  Cost when no wakeup tracer is on: the wrappers' one
 * test of ut_lat_wraps (latency.c, bench rows lat-cond-off and lat-cond-on).
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"
#include "ut_wire.h"

uint32_t ut_wake_mode;

/* the kernel's policy number: glibc's <sched.h> does not name it */
#define WAKE_SCHED_DEADLINE 6
#define WAKE_SLOTS 256
#define WAKE_WAITERS 8

static struct wake_slot {
	uint8_t lock;
	uint8_t n;
	struct ut_wake_wait *w[WAKE_WAITERS]; /* oldest first */
} slots[WAKE_SLOTS];

void ut_wake_apply(uint32_t mode)
{
	__atomic_store_n(&ut_wake_mode, mode, __ATOMIC_RELEASE);
}

void ut_wake_fork_child(void)
{
	memset(slots, 0, sizeof(slots));
}

static struct wake_slot *slot_of(const void *obj)
{
	uintptr_t a = (uintptr_t)obj;

	return &slots[((a >> 3) ^ (a >> 11)) % WAKE_SLOTS];
}

/*
 * The lock is held with the thread's guard up: a signal handler that waits or wakes
 * in the meantime is left unmeasured (live_ctl) instead of spinning on it forever.
 * Returns the guard as it was, for slot_unlock.
 */
static uint8_t slot_lock(struct wake_slot *s)
{
	uint8_t guard = ut_thr.guard;

	ut_thr.guard = 1;
	while (__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
	return guard;
}

static void slot_unlock(struct wake_slot *s, uint8_t guard)
{
	__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
	ut_thr.guard = guard;
}

/* The kernel's task prio of a thread of this policy, nice and rt_prio. */
static uint8_t kernel_prio(uint32_t policy, int32_t nice, uint32_t rt_prio)
{
	if (policy == SCHED_FIFO || policy == SCHED_RR)
		return (uint8_t)(99 - rt_prio);
	if (policy == WAKE_SCHED_DEADLINE) /* the kernel's -1, in a byte */
		return 255;
	return (uint8_t)(120 + nice);
}

/* Does a wakee of this policy count for the tracer (mode)? */
static int counts(uint32_t mode, uint32_t policy)
{
	int dl = policy == WAKE_SCHED_DEADLINE, rt = policy == SCHED_FIFO || policy == SCHED_RR;

	if (mode & UT_LAT_WAKEUP_DL)
		return dl;
	if (mode & UT_LAT_WAKEUP_RT)
		return rt || dl;
	return 1;
}

/* The calling thread's kernel prio; its policy into *policy. */
static uint8_t self_prio(uint32_t *policy)
{
	int32_t nice;
	uint32_t rt_prio;

	ut_lat_sched(0, &nice, policy, &rt_prio);
	return kernel_prio(*policy, nice, rt_prio);
}

/* Tracing is on for this thread (the kernel measures only while it is). */
static struct ut_ctl *live_ctl(void)
{
	struct ut_ctl *ctl = ut_rt_ctl;

	if (!ctl || !ctl->tracing_on || ut_rt_off || ut_thr.guard || ut_notrace_now())
		return NULL;
	if (!ut_thr.tid && !ut_rt_thread_first())
		return NULL;
	return ctl;
}

int ut_wake_begin(struct ut_wake_wait *w, const void *obj)
{
	uint32_t mode = __atomic_load_n(&ut_wake_mode, __ATOMIC_ACQUIRE), policy;
	struct wake_slot *s;
	int saved = errno, listed = 0;
	uint8_t g;

	if (!mode || !live_ctl())
		return 0;
	*w = (struct ut_wake_wait){.obj = (uintptr_t)obj, .tid = (int32_t)ut_thr.tid};
	w->prio = self_prio(&policy);
	w->cpu = (uint32_t)sched_getcpu();
	errno = saved;
	if (!counts(mode, policy))
		return 0;
	s = slot_of(obj);
	g = slot_lock(s);
	if (s->n < WAKE_WAITERS) {
		s->w[s->n++] = w;
		listed = 1;
	}
	slot_unlock(s, g);
	if (listed)
		ut_lat_wait_gate(1); /* function-trace: the gate lets its functions through */
	return listed;
}

/* Take w off its slot's list; returns the stamp it got (0: none). */
static uint64_t unlist(struct ut_wake_wait *w)
{
	struct wake_slot *s = slot_of((const void *)w->obj);
	uint64_t stamp;
	uint8_t g = slot_lock(s);

	for (unsigned int i = 0; i < s->n; i++) {
		if (s->w[i] != w)
			continue;
		for (; i + 1 < s->n; i++)
			s->w[i] = s->w[i + 1];
		s->n--;
		break;
	}
	stamp = w->stamp;
	slot_unlock(s, g);
	return stamp;
}

/* A ctx_switch_entry of the kernel: prev (the waker) and next (the wakee). */
static void ctx_entry(struct ut_ev_ctx *e, uint8_t type, const struct ut_wake_wait *w,
		      uint32_t next_cpu)
{
	*e = (struct ut_ev_ctx){
	    .h = {.len = sizeof(*e), .type = type, .flags = ut_thr.evflags, .tid = ut_thr.tid},
	    .prev_pid = (uint32_t)w->waker,
	    .next_pid = (uint32_t)w->tid,
	    .next_cpu = next_cpu,
	    .prev_prio = w->waker_prio,
	    .next_prio = w->prio}; /* states 0: 'R', both run */
}

void ut_wake_end(struct ut_wake_wait *w, int woken, uintptr_t ip, uintptr_t ret)
{
	uint64_t stamp = unlist(w), end = __builtin_ia32_rdtsc();
	struct ut_ctl *ctl = ut_rt_ctl;
	struct ut_lat_sect sect = {.start_tsc = stamp}; /* no start ips: no "started at" */
	struct ut_ev_ctx sw;
	int saved = errno;

	ut_lat_wait_gate(0);
	if (!stamp || !woken || !ut_wake_mode || !ctl || !ctl->tracing_on || ut_rt_off ||
	    !ut_lat_exceeds(ctl, end - stamp))
		return;
	ut_thr.guard = 1;
	ctx_entry(&sw, UT_EV_CTX, w, (uint32_t)sched_getcpu());
	/* the max trace shows the waker's events beside the wakee's */
	ut_lat_report(ctl, &sect, end, ip, ret, UT_LATF_ALL_TASKS, &sw.h);
	ut_thr.guard = 0;
	errno = saved;
}

/* Has obj a listed waiter not woken yet? */
static int waited_on(struct wake_slot *s, const void *obj)
{
	int found = 0;
	uint8_t g = slot_lock(s);

	for (unsigned int i = 0; i < s->n && !found; i++)
		found = s->w[i]->obj == (uintptr_t)obj && !s->w[i]->stamp;
	slot_unlock(s, g);
	return found;
}

void ut_wake_signal(const void *obj, int all, uintptr_t ip, uintptr_t ret)
{
	struct ut_wake_wait woken[WAKE_WAITERS];
	struct wake_slot *s = slot_of(obj);
	struct ut_ctl *ctl = live_ctl();
	unsigned int nw = 0;
	uint32_t policy;
	uint64_t stamp;
	uint8_t prio;
	int saved = errno;

	/* nobody waits on obj: no system call, no entry */
	if (!ctl || !__atomic_load_n(&s->n, __ATOMIC_RELAXED) || !waited_on(s, obj))
		return;
	prio = self_prio(&policy);
	ut_thr.guard = 1;
	stamp = __builtin_ia32_rdtsc(); /* before the entries: they fall in the window */
	/* the guard is up already */
	slot_lock(s);
	for (unsigned int i = 0; i < s->n && nw < WAKE_WAITERS; i++) {
		struct ut_wake_wait *w = s->w[i];

		if (w->obj != (uintptr_t)obj || w->stamp)
			continue;
		w->stamp = stamp;
		w->waker = (int32_t)ut_thr.tid;
		w->waker_prio = prio;
		woken[nw++] = *w;
		if (!all)
			break;
	}
	slot_unlock(s, 1);
	for (unsigned int i = 0; i < nw; i++) {
		struct ut_ev_ctx e;

		ctx_entry(&e, UT_EV_WAKE, &woken[i], woken[i].cpu);
		ut_rt_write_ev(ctl, ctl, &e.h);
	}
	if (nw) {
		ut_lat_write_stack(ctl, ret);
		ut_lat_write_func(ctl, ip, ret);
	}
	ut_thr.guard = 0;
	errno = saved;
}

/* ---- the wakers and wakees latency.c does not wrap ---------------------------------- */

typedef int (*cond_wake_fn)(pthread_cond_t *);
typedef int (*sem_fn)(sem_t *);
typedef int (*sem_timed_fn)(sem_t *, const struct timespec *);
typedef int (*sem_clock_fn)(sem_t *, clockid_t, const struct timespec *);
static cond_wake_fn real_pthread_cond_signal, real_pthread_cond_broadcast;
static sem_fn real_sem_post, real_sem_wait, real_sem_trywait;
static sem_timed_fn real_sem_timedwait;
static sem_clock_fn real_sem_clockwait;
typedef long (*syscall_fn)(long, ...);
/* libc's syscall(), which syscall.S jumps to (it reads the pointer itself) */
syscall_fn ut_syscall_real;

void ut_wake_resolve(void)
{
	real_pthread_cond_signal = (cond_wake_fn)ut_lat_cond_real("pthread_cond_signal");
	real_pthread_cond_broadcast = (cond_wake_fn)ut_lat_cond_real("pthread_cond_broadcast");
	real_sem_post = (sem_fn)ut_real("sem_post");
	real_sem_wait = (sem_fn)ut_real("sem_wait");
	real_sem_trywait = (sem_fn)ut_real("sem_trywait");
	real_sem_timedwait = (sem_timed_fn)ut_real("sem_timedwait");
	real_sem_clockwait = (sem_clock_fn)ut_real("sem_clockwait");
	ut_syscall_real = (syscall_fn)ut_real("syscall");
}

/* A call before the constructor resolved its pointer (another library's constructor). */
static void resolve_late(void **fn, const char *name, int cond)
{
	if (__builtin_expect(!*fn, 0))
		*fn = cond ? ut_lat_cond_real(name) : ut_real(name);
}

static int __attribute__((noinline))
cond_wake(pthread_cond_t *c, cond_wake_fn f, int all, uintptr_t ip, uintptr_t ret)
{
	if (ut_wake_mode)
		ut_wake_signal(c, all, ip, ret);
	return f(c);
}

#define COND_WAKE(name, all)                                                                       \
	UT_EXPORT int name(pthread_cond_t *c)                                                      \
	{                                                                                          \
		resolve_late((void **)&real_##name, #name, 1);                                     \
		if (!real_##name)                                                                  \
			return ENOSYS;                                                             \
		if (__builtin_expect(ut_lat_wraps, 0))                                             \
			return cond_wake(c, real_##name, all, (uintptr_t)name,                     \
					 (uintptr_t)__builtin_return_address(0));                  \
		return real_##name(c);                                                             \
	}

COND_WAKE(pthread_cond_signal, 0)
COND_WAKE(pthread_cond_broadcast, 1)

UT_EXPORT int sem_post(sem_t *sem)
{
	resolve_late((void **)&real_sem_post, "sem_post", 0);
	if (!real_sem_post) {
		errno = ENOSYS;
		return -1;
	}
	if (__builtin_expect(ut_lat_wraps, 0) && ut_wake_mode)
		ut_wake_signal(sem, 0, (uintptr_t)sem_post, (uintptr_t)__builtin_return_address(0));
	return real_sem_post(sem);
}

/* One of the three waits: ts NULL the plain one, clk >= 0 the clockwait. */
static int sem_call(sem_t *sem, int clk, const struct timespec *ts)
{
	if (clk >= 0)
		return real_sem_clockwait(sem, clk, ts);
	return ts ? real_sem_timedwait(sem, ts) : real_sem_wait(sem);
}

/* A wait that would block (sem_trywait says EAGAIN) is a wakee's. */
static int __attribute__((noinline))
sem_slow(sem_t *sem, int clk, const struct timespec *ts, uintptr_t ip, uintptr_t ret)
{
	struct ut_wake_wait w;
	int r, waiting, saved = errno;

	if (!ut_wake_mode || !real_sem_trywait)
		return sem_call(sem, clk, ts);
	if (real_sem_trywait(sem) == 0)
		return 0;
	if (errno != EAGAIN)
		return -1;
	errno = saved;
	waiting = ut_wake_begin(&w, sem);
	r = sem_call(sem, clk, ts);
	if (waiting) {
		saved = errno;
		ut_wake_end(&w, r == 0, ip, ret);
		errno = saved;
	}
	return r;
}

#define SEM_WAIT(name, fn, clk, ts)                                                                \
	do {                                                                                       \
		resolve_late((void **)&real_##name, #name, 0);                                     \
		if (!real_##name) {                                                                \
			errno = ENOSYS;                                                            \
			return -1;                                                                 \
		}                                                                                  \
		if (__builtin_expect(ut_lat_wraps, 0))                                             \
			return sem_slow(sem, clk, ts, (uintptr_t)fn,                               \
					(uintptr_t)__builtin_return_address(0));                   \
		return sem_call(sem, clk, ts);                                                     \
	} while (0)

UT_EXPORT int sem_wait(sem_t *sem)
{
	SEM_WAIT(sem_wait, sem_wait, -1, NULL);
}

UT_EXPORT int sem_timedwait(sem_t *sem, const struct timespec *ts)
{
	SEM_WAIT(sem_timedwait, sem_timedwait, -1, ts);
}

UT_EXPORT int sem_clockwait(sem_t *sem, clockid_t clk, const struct timespec *ts)
{
	SEM_WAIT(sem_clockwait, sem_clockwait, (int)clk, ts);
}

/*
 * The futex system call made through syscall() (arch/x86_64/syscall.S jumps here
 * only for SYS_futex while a latency tracer counts wakes; every other call goes
 * to libc's without a frame of ours): FUTEX_WAIT and FUTEX_WAIT_BITSET are a
 * wakee's wait on the futex word's address, FUTEX_WAKE and FUTEX_WAKE_BITSET a
 * waker's wake of one waiter (val 1) or of all (more).  The six argument words
 * are the registers and the stack word the program passed, used or not, as
 * libc's syscall() reads them.  The runtime's own futex calls (its code range,
 * its own work) are not seen.
 */
long ut_syscall_futex(long nr, long a0, long a1, long a2, long a3, long a4, long a5);
long ut_syscall_unresolved(long nr, long a0, long a1, long a2, long a3, long a4, long a5);

long __attribute__((noinline)) ut_syscall_futex(long nr, long a0, long a1, long a2, long a3,
						 long a4, long a5)
{
	uintptr_t ret = (uintptr_t)__builtin_return_address(0);
	int op = (int)a1 & FUTEX_CMD_MASK, waiting = 0, saved;
	struct ut_wake_wait w;
	long r;

	if (ut_wake_mode && ut_lat_is_program(ret)) {
		if (op == FUTEX_WAKE || op == FUTEX_WAKE_BITSET)
			ut_wake_signal((const void *)a0, a2 > 1, (uintptr_t)syscall, ret);
		else if (op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET)
			waiting = ut_wake_begin(&w, (const void *)a0);
	}
	r = ut_syscall_unresolved(nr, a0, a1, a2, a3, a4, a5);
	if (waiting) {
		saved = errno;
		ut_wake_end(&w, r == 0, (uintptr_t)syscall, ret);
		errno = saved;
	}
	return r;
}

/* A call before the constructor resolved libc's syscall() (another library's constructor). */
long ut_syscall_unresolved(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	if (__builtin_expect(!ut_syscall_real, 0))
		ut_syscall_real = (syscall_fn)ut_real("syscall");
	return ut_syscall_real(nr, a0, a1, a2, a3, a4, a5);
}

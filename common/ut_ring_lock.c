// SPDX-License-Identifier: MIT
/*
 * ut_ring_lock.c - writing events where the kernel has no rseq: each CPU ring's
 * lock word (rb_cpu.lock, ut_ring.h) serialises its writers, which then run the
 * reference algorithm ut_rb_write_on_cpu().  Used only in the locked write mode
 * (ut_ctl.write_mode), which utracefs chooses when rseq() fails with ENOSYS: then
 * no writer anywhere uses rseq, so lock holders are the only writers.
 *
 * The lock word holds the holder's identity: its tid in the low 32 bits and, above,
 * the low 32 bits of the thread's start time (clock ticks since boot, field 22 of
 * /proc/TID/stat).  A tid alone can be reused, and anybody holding the memfd can
 * write one: an identity is believed only while a task with that tid and that
 * start time exists and has not exited.  Any ring index is correct under the lock,
 * so a writer migrated after sched_getcpu() is merely on "another CPU's" ring.
 * A writer killed while holding it cannot release it: a waiter that has waited
 * UT_RB_LOCK_STEAL_MS asks whether the holder still exists and, if not, steals
 * the lock with cmpxchg (from that identity, so two thieves cannot both win);
 * utracefs clears such locks too (ut_rb_lock_reap), so that a ring nobody writes
 * any more is not left locked.  A release is a cmpxchg from the releaser's own
 * identity: a holder whose lock was taken from it never frees the new owner's.
 * Stealing is safe for the same reason an rseq abort is: the holder's stores beyond
 * the committed wpos are invisible, and the page-switch stores before a commit are
 * recomputed from the same state.  Holders run in another process's pid namespace
 * are not supported (their tids mean nothing here).
 *
 * A signal handler that writes while its thread is inside this function (holding
 * a lock, maybe of the ring it would need) gives up with -EDEADLK instead of
 * waiting for itself; the callers count that event as lost (ut_rt_lost).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ut_ring_write.h"

#define RB_SPINS 64 /* pause loops between sched_yield()s */

void (*ut_rb_locked_hook)(void *area, unsigned int cpu);

/*
 * The tid of this thread while it is inside ut_rb_write_locked, else 0.  A tid,
 * not a flag: a child forked by a handler that interrupted a write has another
 * tid, so the copy it inherits does not block it forever.
 */
static __thread uint32_t rb_writing __attribute__((tls_model("initial-exec")));

static uint32_t rb_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static uint64_t rb_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Task ids are below the kernel's PID_MAX_LIMIT (2^22). */
#define RB_TID_LIMIT (1u << 22)

/*
 * Task tid's state letter and start time, from /proc/tid/stat.  0, or -1 when it
 * cannot be read (no such task, no /proc).  Async-signal-safe: no stdio.
 */
static int rb_task_stat(uint32_t tid, char *state, uint64_t *start)
{
	char path[32] = "/proc/", digits[12], buf[1024], *p;
	unsigned int nd = 0, field = 3;
	ssize_t n;
	int fd;

	do
		digits[nd++] = (char)('0' + tid % 10);
	while ((tid /= 10) != 0);
	p = path + 6;
	while (nd)
		*p++ = digits[--nd];
	strcpy(p, "/stat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')'); /* "pid (comm) S ...": comm may hold anything */
	if (!p || p[1] != ' ' || !p[2])
		return -1;
	p += 2;
	*state = *p;
	for (; *p && field < 22; p++) /* field 22: starttime */
		if (*p == ' ')
			field++;
	*start = 0;
	while (*p >= '0' && *p <= '9')
		*start = *start * 10 + (uint64_t)(*p++ - '0');
	return 0;
}

/* This thread's lock identity (see the top); cached per thread, redone after fork. */
static __thread uint64_t rb_self_id __attribute__((tls_model("initial-exec")));

static uint64_t rb_identity(uint32_t tid)
{
	uint64_t start = 0;
	char state;

	if ((uint32_t)rb_self_id == tid)
		return rb_self_id;
	if (rb_task_stat(tid, &state, &start) != 0)
		start = 0; /* no /proc: thieves cannot ask it either */
	rb_self_id = (uint64_t)tid | (start & 0xffffffffull) << 32;
	return rb_self_id;
}

/*
 * Whether the lock identity id names no live task: a tid that cannot be one, a
 * task that does not exist (kill: ESRCH) or has exited (a killed thread group
 * leader stays a zombie until reaped: /proc's Z, X), or a task that started at
 * another time (the tid was reused, or the word was forged).  Async-signal-safe.
 */
static bool rb_holder_gone(uint64_t id)
{
	uint32_t tid = (uint32_t)id;
	uint64_t start;
	char state;

	if (tid == 0 || tid >= RB_TID_LIMIT)
		return true;
	if (kill((pid_t)tid, 0) != 0 && errno == ESRCH)
		return true;
	if (rb_task_stat(tid, &state, &start) != 0)
		return false; /* no /proc: only ESRCH counts */
	return state == 'Z' || state == 'X' || (start & 0xffffffffull) != id >> 32;
}

/* Whether the holder named by id is stopped (SIGSTOP, a debugger). Async-signal-safe. */
static bool rb_holder_stopped(uint64_t id)
{
	uint64_t start;
	char state;

	return rb_task_stat((uint32_t)id, &state, &start) == 0 && (state == 'T' || state == 't');
}

/*
 * Take rc's lock as self.  A live holder is waited for up to UT_RB_LOCK_GIVEUP_MS,
 * or, with quit_stopped, only until it is found stopped: utracefs's barrier must
 * not hold a control write up for a holder that will not move (-EBUSY at once).
 */
static int rb_lock_as(struct rb_cpu *rc, uint64_t self, bool quit_stopped)
{
	uint64_t start = 0, since = 0, last = 0;
	unsigned int spins = 0;

	for (;;) {
		uint64_t owner = 0;

		if (__atomic_compare_exchange_n(&rc->lock, &owner, self, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return 0;
		if (owner == self)
			return -EDEADLK; /* ours (cannot happen behind the guard) */
		if (++spins < RB_SPINS) {
			__builtin_ia32_pause();
			continue;
		}
		spins = 0;
		sched_yield(); /* the holder may be preempted on this CPU */
		uint64_t now = rb_now_ms();

		if (!start)
			start = now;
		if (owner != last) { /* a new holder: give it the full delay */
			last = owner;
			since = now;
		}
		if (now - since >= UT_RB_LOCK_STEAL_MS) {
			if (rb_holder_gone(owner) &&
			    __atomic_compare_exchange_n(&rc->lock, &owner, self, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return 0;
			if (quit_stopped && owner && rb_holder_stopped(owner))
				return -EBUSY;
			since = now; /* alive (or stolen by another): ask again later */
		}
		if (now - start >= UT_RB_LOCK_GIVEUP_MS)
			return -EBUSY;
	}
}

/* Release: only a lock that is still ours (a thief's stays the thief's). */
static void rb_unlock(struct rb_cpu *rc, uint64_t self)
{
	__atomic_compare_exchange_n(&rc->lock, &self, 0, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

int ut_rb_lock(void *area, unsigned int cpu)
{
	return rb_lock_as(ut_rb_cpu(area, cpu), rb_identity(rb_gettid()), true);
}

void ut_rb_unlock(void *area, unsigned int cpu)
{
	rb_unlock(ut_rb_cpu(area, cpu), rb_identity(rb_gettid()));
}

int ut_rb_lock_reap(void *area, unsigned int cpu)
{
	struct rb_cpu *rc = ut_rb_cpu(area, cpu);
	uint64_t owner = __atomic_load_n(&rc->lock, __ATOMIC_ACQUIRE);
	int saved = errno, cleared = 0;

	if (owner && rb_holder_gone(owner))
		cleared = __atomic_compare_exchange_n(&rc->lock, &owner, 0, false,
						      __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	errno = saved;
	return cleared;
}

int ut_rb_write_locked(void *area, unsigned int nr_cpus, struct ut_ev *ev)
{
	unsigned int len = ev->len;
	uint32_t self = rb_gettid();
	uint64_t id;
	int cpu, err, saved = errno;

	if (len < sizeof(*ev) || len > UT_RB_PAGE_DATA || (len & 7))
		return -EINVAL;
	if (__atomic_load_n(&rb_writing, __ATOMIC_RELAXED) == self)
		return -EDEADLK;
	cpu = sched_getcpu();
	if (cpu < 0)
		cpu = 0;
	if ((unsigned int)cpu >= nr_cpus)
		return -EAGAIN; /* as ut_rb_write */
	struct rb_cpu *rc = ut_rb_cpu(area, (unsigned int)cpu);

	rb_writing = self;
	__atomic_signal_fence(__ATOMIC_SEQ_CST); /* set before the lock can be held */
	id = rb_identity(self);
	err = rb_lock_as(rc, id, false);
	if (!err) {
		if (ut_rb_locked_hook)
			ut_rb_locked_hook(area, (unsigned int)cpu);
		ev->ts = __builtin_ia32_rdtsc(); /* under the lock: monotonic per ring */
		err = ut_rb_write_on_cpu(area, (unsigned int)cpu, ev);
		rb_unlock(rc, id);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rb_writing = 0;
	errno = saved; /* rb_holder_gone's probes */
	return err;
}

int ut_rb_kernel_has_rseq(void)
{
	/*
	 * A registration with a NULL area fails with EINVAL (or EFAULT, EBUSY) where
	 * the syscall exists, and registers nothing; only a kernel without rseq says
	 * ENOSYS.
	 */
	return !(syscall(__NR_rseq, NULL, 0, 0, 0) != 0 && errno == ENOSYS);
}

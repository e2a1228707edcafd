// SPDX-License-Identifier: MIT
/*
 * ut_ring_lock.c - writing events where the kernel has no rseq: each CPU ring's
 * lock word (rb_cpu.lock, ut_ring.h) serialises its writers, which then run the
 * reference algorithm ut_rb_write_on_cpu().  Used only in the locked write mode
 * (ut_ctl.write_mode), which utracefs chooses when rseq() fails with ENOSYS: then
 * no writer anywhere uses rseq, so lock holders are the only writers.
 *
 * The lock word holds the holder's tid.  Any ring index is correct under the lock,
 * so a writer migrated after sched_getcpu() is merely on "another CPU's" ring.
 * A writer killed while holding it cannot release it: a waiter that has waited
 * UT_RB_LOCK_STEAL_MS asks whether the holder still exists and, if not, steals
 * the lock with cmpxchg (from that tid, so two thieves cannot both win).  That is
 * safe for the same reason an rseq abort is: the holder's stores beyond the
 * committed wpos are invisible, and the page-switch stores before a commit are
 * recomputed from the same state.  Holders run in another process's pid
 * namespace are not supported (their tids mean nothing here).
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

/*
 * Whether task tid is gone.  kill(tid, 0) finds any thread by its tid; a killed
 * thread group leader stays a zombie until reaped, so /proc/tid/stat's state is
 * asked as well (Z, X: exited, cannot be inside a write).  Async-signal-safe.
 */
static bool rb_task_dead(uint32_t tid)
{
	char path[32] = "/proc/", digits[12], buf[512], *p;
	unsigned int nd = 0;
	ssize_t n;
	int fd;

	if (kill((pid_t)tid, 0) != 0 && errno == ESRCH)
		return true;
	do /* no snprintf: this may run in a signal handler */
		digits[nd++] = (char)('0' + tid % 10);
	while ((tid /= 10) != 0);
	p = path + 6;
	while (nd)
		*p++ = digits[--nd];
	strcpy(p, "/stat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false; /* no /proc: only ESRCH counts */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	p = strrchr(buf, ')'); /* "pid (comm) S ...": comm may hold anything */
	return p && (p[2] == 'Z' || p[2] == 'X');
}

static int rb_lock_as(struct rb_cpu *rc, uint32_t self)
{
	uint64_t start = 0, since = 0;
	uint32_t last = 0;
	unsigned int spins = 0;

	for (;;) {
		uint32_t owner = 0;

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
			if (rb_task_dead(owner) &&
			    __atomic_compare_exchange_n(&rc->lock, &owner, self, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return 0;
			since = now; /* alive (or stolen by another): ask again later */
		}
		if (now - start >= UT_RB_LOCK_GIVEUP_MS)
			return -EBUSY;
	}
}

static void rb_unlock(struct rb_cpu *rc)
{
	__atomic_store_n(&rc->lock, 0, __ATOMIC_RELEASE);
}

int ut_rb_lock(void *area, unsigned int cpu)
{
	return rb_lock_as(ut_rb_cpu(area, cpu), rb_gettid());
}

void ut_rb_unlock(void *area, unsigned int cpu)
{
	rb_unlock(ut_rb_cpu(area, cpu));
}

int ut_rb_write_locked(void *area, unsigned int nr_cpus, struct ut_ev *ev)
{
	unsigned int len = ev->len;
	uint32_t self = rb_gettid();
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
	err = rb_lock_as(rc, self);
	if (!err) {
		if (ut_rb_locked_hook)
			ut_rb_locked_hook(area, (unsigned int)cpu);
		ev->ts = __builtin_ia32_rdtsc(); /* under the lock: monotonic per ring */
		err = ut_rb_write_on_cpu(area, (unsigned int)cpu, ev);
		rb_unlock(rc);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rb_writing = 0;
	errno = saved; /* rb_task_dead's probes */
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

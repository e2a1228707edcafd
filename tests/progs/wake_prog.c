// SPDX-License-Identifier: MIT
/*
 * wake_prog.c - a traced program whose threads wake each other with known
 * delays, for the wakeup tracers' test (tests/integration/106_wakeup.sh).
 *
 * Commands on stdin (-l); each starts a waker thread "wk_waker" and a wakee,
 * prints "waker TID" and "wakee TID" (or "nofifo" when SCHED_FIFO is refused),
 * joins both and is answered by "done":
 *   c MS   wakee "wk_cond" waits on a condition variable in wait_it(); the waker,
 *          once it holds the mutex (so the wakee waits), signals in signal_it(),
 *          lets at least MS ms pass still holding the mutex, then unlocks it: the
 *          wakee returns MS ms or more after the signal
 *   f MS   the same with a SCHED_FIFO priority 5 wakee "wk_fifo"
 *   d MS   the same with a SCHED_DEADLINE wakee "wk_dl" (runtime 1 ms, period
 *          100 ms); "nodl" printed when the kernel refuses it
 *   x MS   wakee "wk_futex" waits in syscall(SYS_futex, FUTEX_WAIT) on a word
 *          (futex_wait_it()); the waker, once it blocks there, lets MS ms pass,
 *          sets the word and wakes it with FUTEX_WAKE (futex_wake_it())
 *   h MS   as c, and the waker sends SIGUSR2 to the wakee after the signal: its
 *          handler on_usr2() runs handler_work() while the wakee waits for the mutex
 *   s MS   wakee "wk_sem" blocks in sem_wait() (sem_wait_it()); the waker waits
 *          until it blocks in the futex call, then posts in post_it()
 *   m MS   wakee "wk_mutex" blocks in pthread_mutex_lock() (lock_it()) on a
 *          mutex the waker holds; the waker unlocks it in unlock_it() and then
 *          nothing: the hand-off
 *   w MS   the same with an rwlock: wakee "wk_rw" blocks in pthread_rwlock_rdlock()
 *          (rdlock_it()) while the waker holds it for writing, then unlock_rw()
 * Before waiting, each wakee calls outside_work(), which no wakeup trace shows.
 * The program prints "pid P" first.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pass_ms.h"

/* each primitive's caller must be the function named (no tail call into it) */
#define NI __attribute__((noinline, noclone, optimize("no-optimize-sibling-calls")))

static volatile int sink;
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t sem;
static int ready, go;
static volatile int held; /* 'm': the waker holds mtx */
static volatile pid_t wakee_tid;
static volatile int dl_refused;
static pthread_t wakee_thread;

/* The kernel's struct sched_attr, first version: glibc has no wrapper. */
struct dl_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};

/* The calling thread becomes SCHED_DEADLINE: 0, or -1 when refused. */
static int go_deadline(void)
{
	struct dl_attr a = {.size = sizeof(a),
			    .policy = 6, /* SCHED_DEADLINE */
			    .runtime = 1000000,
			    .deadline = 100000000,
			    .period = 100000000};

	return (int)syscall(SYS_sched_setattr, 0, &a, 0);
}

NI void outside_work(void)
{
	sink--;
}

NI void handler_work(void)
{
	sink++;
}

NI void on_usr2(int sig)
{
	(void)sig;
	handler_work();
}

/*
 * Until thread tid blocks in the futex system call (its wait: /proc's syscall file
 * names the call it is in), at most about 10 s; a sleep elsewhere (usleep) is not it.
 */
static void until_in_futex(pid_t tid)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	for (int i = 0; i < 50000; i++) {
		FILE *f = fopen(path, "r");
		long nr = -1;

		if (f) {
			if (fgets(buf, sizeof(buf), f))
				nr = strtol(buf, NULL, 10);
			fclose(f);
		}
		if (nr == SYS_futex)
			return;
		usleep(200);
	}
}

NI void wait_it(void)
{
	pthread_mutex_lock(&mtx);
	ready = 1;
	while (!go)
		pthread_cond_wait(&cond, &mtx);
	pthread_mutex_unlock(&mtx);
}

NI void signal_it(void)
{
	go = 1;
	pthread_cond_signal(&cond);
}

NI void sem_wait_it(void)
{
	sem_wait(&sem);
}

NI void post_it(void)
{
	sem_post(&sem);
}

NI void lock_it(void)
{
	pthread_mutex_lock(&mtx);
	pthread_mutex_unlock(&mtx);
}

NI void unlock_it(void)
{
	pthread_mutex_unlock(&mtx);
}

static int word; /* 'x': 0 while the wakee is to wait */

NI void futex_wait_it(void)
{
	while (!__atomic_load_n(&word, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

NI void futex_wake_it(void)
{
	__atomic_store_n(&word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

NI void rdlock_it(void)
{
	pthread_rwlock_rdlock(&rw);
	pthread_rwlock_unlock(&rw);
}

NI void unlock_rw(void)
{
	pthread_rwlock_unlock(&rw);
}

struct job {
	char cmd;
	int ms;
};

static void *wakee(void *arg)
{
	const struct job *j = arg;

	pthread_setname_np(pthread_self(), j->cmd == 'c'   ? "wk_cond"
					   : j->cmd == 'f' ? "wk_fifo"
					   : j->cmd == 'd' ? "wk_dl"
					   : j->cmd == 'h' ? "wk_sig"
					   : j->cmd == 'x' ? "wk_futex"
					   : j->cmd == 's' ? "wk_sem"
					   : j->cmd == 'w' ? "wk_rw"
							   : "wk_mutex");
	if (j->cmd == 'd')
		dl_refused = go_deadline() != 0;
	wakee_tid = (pid_t)syscall(SYS_gettid);
	outside_work();
	if (strchr("cfdh", j->cmd))
		wait_it();
	else if (j->cmd == 's')
		sem_wait_it();
	else if (j->cmd == 'x')
		futex_wait_it();
	else {
		while (!held)
			usleep(100);
		if (j->cmd == 'w')
			rdlock_it();
		else
			lock_it();
	}
	return NULL;
}

static void *waker(void *arg)
{
	const struct job *j = arg;
	int wait = 1;

	pthread_setname_np(pthread_self(), "wk_waker");
	printf("waker %ld\n", (long)syscall(SYS_gettid));
	while (!wakee_tid)
		usleep(100);
	if (strchr("cfdh", j->cmd)) {
		/* with the mutex and ready set, the wakee is inside pthread_cond_wait */
		while (wait) {
			pthread_mutex_lock(&mtx);
			wait = !ready;
			if (wait)
				pthread_mutex_unlock(&mtx);
		}
		signal_it();
		if (j->cmd == 'h')
			pthread_kill(wakee_thread, SIGUSR2);
		pass_ms(j->ms);
		pthread_mutex_unlock(&mtx);
	} else if (j->cmd == 's') {
		until_in_futex(wakee_tid);
		post_it();
	} else if (j->cmd == 'x') {
		until_in_futex(wakee_tid);
		pass_ms(j->ms);
		futex_wake_it();
	} else if (j->cmd == 'w') {
		pthread_rwlock_wrlock(&rw);
		held = 1;
		until_in_futex(wakee_tid);
		pass_ms(j->ms);
		unlock_rw();
	} else {
		pthread_mutex_lock(&mtx);
		held = 1;
		until_in_futex(wakee_tid);
		pass_ms(j->ms);
		unlock_it();
	}
	return NULL;
}

/* The wakee thread, SCHED_FIFO 5 for 'f' (0 when refused). */
static int start_wakee(pthread_t *t, struct job *j)
{
	pthread_attr_t a;
	struct sched_param sp = {.sched_priority = 5};
	int r;

	pthread_attr_init(&a);
	if (j->cmd == 'f') {
		pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&a, SCHED_FIFO);
		pthread_attr_setschedparam(&a, &sp);
	}
	r = pthread_create(t, &a, wakee, j);
	pthread_attr_destroy(&a);
	return r == 0;
}

int main(int argc, char **argv)
{
	char line[64];

	if (argc != 2 || strcmp(argv[1], "-l")) {
		fprintf(stderr, "usage: wake_prog -l\n");
		return 2;
	}
	sem_init(&sem, 0, 0);
	signal(SIGUSR2, on_usr2);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("pid %d\n", (int)getpid());
	while (fgets(line, sizeof(line), stdin)) {
		struct job j = {line[0], atoi(line + 1)};
		pthread_t w, k;

		ready = go = held = word = 0;
		wakee_tid = 0;
		dl_refused = 0;
		if (strchr("cfdhsmwx", j.cmd)) {
			if (!start_wakee(&k, &j)) {
				printf("nofifo\n");
			} else {
				while (!wakee_tid)
					usleep(100);
				if (dl_refused)
					printf("nodl\n");
				wakee_thread = k;
				printf("wakee %d\n", (int)wakee_tid);
				pthread_create(&w, NULL, waker, &j);
				pthread_join(w, NULL);
				pthread_join(k, NULL);
			}
		}
		printf("done\n");
	}
	return 0;
}

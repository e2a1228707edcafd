// SPDX-License-Identifier: MIT
/*
 * wait_masks - a thread that waits for SIGUSR1 with SIGTRAP in the mask it waits
 * with, and runs traced code in the handler (or after the wait), for as long as a
 * test switches tracers under it.
 *
 *   wait_masks MODE SECONDS
 *
 * MODE is the wait: sigsuspend, ppoll, pselect, epoll_pwait, epoll_pwait2 (a mask
 * of every signal but SIGUSR1, handled by a handler), or sigwaitinfo, sigtimedwait,
 * signalfd (a set of SIGUSR1 and SIGTRAP to receive, no handler).  The main thread
 * sends SIGUSR1 to the waiter over and over, each time waiting until it was taken.
 * Every handler checks, with the system call itself, that SIGTRAP is not blocked
 * while it runs: a traced function met while a site is an int3 would kill the
 * process.  Prints "handled N trap-blocked M" and exits 0 if N > 0 and M == 0.
 *
 * Two more ways to start code with SIGTRAP blocked, checked the same way:
 *   wait_masks attr SECONDS       threads started with pthread_attr_setsigmask_np
 *                                 (every signal blocked), each running traced code;
 *   wait_masks inherit SECONDS    this program execs itself with SIGTRAP blocked
 *                                 (by the system call), as another program may
 *                                 start it: its main thread, then runs traced code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINL __attribute__((noinline))

static const char *mode;
static volatile long sink;
static volatile int handled, trap_blocked;

NOINL void wm_leaf(int i)
{
	sink += i;
	__asm__ volatile("");
}

NOINL void wm_work(void)
{
	for (int i = 0; i < 20; i++)
		wm_leaf(i);
}

static int sigtrap_blocked_now(void)
{
	uint64_t cur = 0;

	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &cur, sizeof(cur)))
		return 0;
	return (cur >> (SIGTRAP - 1)) & 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	if (sigtrap_blocked_now())
		trap_blocked++;
	wm_work();
	__atomic_add_fetch(&handled, 1, __ATOMIC_RELEASE);
}

/* One wait that a handler interrupts: the mask is every signal but SIGUSR1. */
static void wait_with_mask(const sigset_t *m, int epfd)
{
	struct timespec ts = {30, 0};
	struct epoll_event ev;
	int r = 0;

	if (!strcmp(mode, "sigsuspend"))
		r = sigsuspend(m);
	else if (!strcmp(mode, "ppoll"))
		r = ppoll(NULL, 0, &ts, m);
	else if (!strcmp(mode, "pselect"))
		r = pselect(0, NULL, NULL, NULL, &ts, m);
	else if (!strcmp(mode, "epoll_pwait"))
		r = epoll_pwait(epfd, &ev, 1, 30000, m);
	else if (!strcmp(mode, "epoll_pwait2"))
		r = epoll_pwait2(epfd, &ev, 1, &ts, m);
	if (r < 0 && errno != EINTR) {
		perror(mode);
		exit(3);
	}
}

/* One wait that receives SIGUSR1 (SIGTRAP in the set too), then traced code. */
static void wait_for_set(const sigset_t *set, int sfd)
{
	struct timespec ts = {30, 0};
	struct signalfd_siginfo si;
	int r;

	if (!strcmp(mode, "sigwaitinfo"))
		r = sigwaitinfo(set, NULL);
	else if (!strcmp(mode, "sigtimedwait"))
		r = sigtimedwait(set, NULL, &ts);
	else
		r = read(sfd, &si, sizeof(si)) == sizeof(si) ? SIGUSR1 : -1;
	if (r != SIGUSR1) {
		perror(mode);
		exit(3);
	}
	if (sigtrap_blocked_now())
		trap_blocked++;
	wm_work();
	__atomic_add_fetch(&handled, 1, __ATOMIC_RELEASE);
}

static void *waiter(void *arg)
{
	sigset_t m, set;
	int handler = *(int *)arg, epfd = epoll_create1(0), sfd = -1;

	sigfillset(&m);
	sigdelset(&m, SIGUSR1);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTRAP);
	if (!strcmp(mode, "signalfd"))
		sfd = signalfd(-1, &set, 0);
	for (;;) {
		if (handler)
			wait_with_mask(&m, epfd);
		else
			wait_for_set(&set, sfd);
	}
	return NULL;
}

static void *attr_thread(void *arg)
{
	(void)arg;
	if (sigtrap_blocked_now())
		trap_blocked++;
	wm_work();
	__atomic_add_fetch(&handled, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Threads born with every signal blocked, one after another. */
static int run_attr(int seconds)
{
	pthread_attr_t a;
	sigset_t all;
	pthread_t t;

	sigfillset(&all);
	pthread_attr_init(&a);
	if (pthread_attr_setsigmask_np(&a, &all))
		return 3;
	for (time_t end = time(NULL) + seconds; handled == 0 || time(NULL) < end;) {
		if (pthread_create(&t, &a, attr_thread, NULL))
			return 3;
		pthread_join(t, NULL);
	}
	printf("handled %d trap-blocked %d\n", handled, trap_blocked);
	return handled > 0 && trap_blocked == 0 ? 0 : 1;
}

/* Exec this program again with SIGTRAP blocked; the new image checks its start. */
static int run_inherit(char **argv)
{
	uint64_t trap = 1ull << (SIGTRAP - 1);

	if (strcmp(argv[1], "inherited")) {
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &trap, NULL, sizeof(trap));
		execl("/proc/self/exe", argv[0], "inherited", argv[2], (char *)NULL);
		return 3;
	}
	for (time_t end = time(NULL) + atoi(argv[2]); handled == 0 || time(NULL) < end;) {
		if (sigtrap_blocked_now())
			trap_blocked++;
		wm_work();
		handled++;
		nanosleep(&(struct timespec){0, 100000}, NULL);
	}
	printf("handled %d trap-blocked %d\n", handled, trap_blocked);
	return handled > 0 && trap_blocked == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	struct timespec ms = {0, 1000000};
	int handler, n = 0;
	sigset_t usr1;
	pthread_t t;

	if (argc != 3)
		return 2;
	mode = argv[1];
	if (!strcmp(mode, "attr"))
		return run_attr(atoi(argv[2]));
	if (!strcmp(mode, "inherit") || !strcmp(mode, "inherited"))
		return run_inherit(argv);
	handler = strcmp(mode, "sigwaitinfo") && strcmp(mode, "sigtimedwait") &&
		  strcmp(mode, "signalfd");
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL); /* the waiter takes SIGUSR1 only inside its wait */
	pthread_create(&t, NULL, waiter, &handler);
	for (time_t end = time(NULL) + atoi(argv[2]); n == 0 || time(NULL) < end; n++) {
		pthread_kill(t, SIGUSR1);
		/* taken within a minute, however loaded the machine */
		for (int i = 0; __atomic_load_n(&handled, __ATOMIC_ACQUIRE) <= n; i++) {
			if (i == 60000) {
				printf("signal %d not taken\n", n);
				return 1;
			}
			wm_work();
			nanosleep(&ms, NULL);
		}
	}
	printf("handled %d trap-blocked %d\n", handled, trap_blocked);
	return handled > 0 && trap_blocked == 0 ? 0 : 1;
}

// SPDX-License-Identifier: MIT
/*
 * life_prog.c - a program whose lifecycle the runtime's own events show
 * (tests/integration/86_lifecycle.sh): it renames itself, sends itself signals it
 * handles (raise, kill, a thread-directed one), forks a child that renames itself
 * and exits, and starts a thread that renames itself and returns.  It prints its
 * pid, the child's and the thread's thread id, one per line.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_sig(int sig)
{
	got += sig;
}

static pid_t thread_tid;

static void *worker(void *arg)
{
	thread_tid = (pid_t)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), "lifethr");
	return arg;
}

int main(void)
{
	struct sigaction sa = {.sa_handler = on_sig};
	pthread_t t;
	pid_t child;
	int st;

	prctl(PR_SET_NAME, "lifemain", 0, 0, 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	raise(SIGUSR1);
	kill(getpid(), SIGUSR2);
	pthread_kill(pthread_self(), SIGUSR1);
	child = fork();
	if (child == 0) {
		prctl(PR_SET_NAME, "lifechild", 0, 0, 0);
		exit(3);
	}
	waitpid(child, &st, 0);
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	printf("%d\n%d\n%d\n", (int)getpid(), (int)child, (int)thread_tid);
	return got == 2 * SIGUSR1 + SIGUSR2 && WIFEXITED(st) && WEXITSTATUS(st) == 3 ? 0 : 1;
}

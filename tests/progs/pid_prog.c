// SPDX-License-Identifier: MIT
/*
 * pid_prog.c - a traced program with a second thread and fork children, for the
 * set_ftrace_pid tests of tests/integration/81_pid.sh and the set_event_pid ones
 * of 93_event_pid.sh: each pp_ function fires the trace event pp:hit (who=1 main,
 * 2 worker, 3 a new thread, 4 a fork child).
 *
 *   pid_prog -l   prints "pid PID worker TID", then takes commands on stdin, one
 *                 line each, answered by "done":
 *                   run        pp_main() here and pp_worker() in the worker thread
 *                   thread     a new thread fires pp:hit and ends; prints
 *                              "thread TID"
 *                   threads    the same with 8 threads at once
 *                   fork       a child that calls pp_child() every 10 ms until
 *                              `reap`; prints "child PID" once it called it
 *                   reap       ends the child and waits for it
 *                   NAME       "NAME XX": the first byte of NAME's patch site
 *                 exits at EOF.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utrace/event.h>

#include "site_byte.h"

UTRACE_EVENT(pp, hit,
	TP_PROTO(int who),
	TP_ARGS(who),
	TP_STRUCT__entry(
		__field(int, who)
	),
	TP_fast_assign(
		__entry->who = who;
	),
	TP_printk("who=%d", __entry->who)
);

#define NI __attribute__((noinline, noclone))

static volatile unsigned long sink;

NI void pp_main(void)
{
	sink++;
	trace_hit(1);
}
NI void pp_worker(void)
{
	sink += 2;
	trace_hit(2);
}
NI void pp_child(void)
{
	sink += 3;
	trace_hit(4);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int todo, did;
static volatile pid_t worker_tid, thread_tid;

static void *worker(void *arg)
{
	(void)arg;
	worker_tid = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(&lock);
	for (;;) {
		while (todo == did)
			pthread_cond_wait(&cond, &lock);
		pp_worker();
		did++;
		pthread_cond_broadcast(&cond);
	}
	return NULL;
}

static void *once(void *arg)
{
	thread_tid = (pid_t)syscall(SYS_gettid);
	trace_hit(3);
	return arg;
}

static void run_both(void)
{
	pp_main();
	pthread_mutex_lock(&lock);
	todo++;
	pthread_cond_broadcast(&cond);
	while (did != todo)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static void *lookup(const char *name)
{
	if (!strcmp(name, "pp_main"))
		return (void *)pp_main;
	if (!strcmp(name, "pp_worker"))
		return (void *)pp_worker;
	if (!strcmp(name, "pp_child"))
		return (void *)pp_child;
	return NULL;
}


int main(int argc, char **argv)
{
	char line[1024];
	pthread_t t, o;
	pid_t child = -1;
	int pfd[2] = {-1, -1}, fired[2];
	char c = 0;

	if (argc < 2 || strcmp(argv[1], "-l"))
		return 2;
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	while (!worker_tid)
		usleep(1000);
	printf("pid %d worker %d\n", (int)getpid(), (int)worker_tid);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		for (char *s, *w = strtok_r(line, " \n", &s); w; w = strtok_r(NULL, " \n", &s)) {
			if (!strcmp(w, "run")) {
				run_both();
			} else if (!strcmp(w, "thread") && pthread_create(&o, NULL, once, NULL) == 0) {
				pthread_join(o, NULL);
				printf("thread %d\n", (int)thread_tid);
			} else if (!strcmp(w, "threads")) {
				pthread_t many[8];
				int n = 0;

				while (n < 8 && pthread_create(&many[n], NULL, once, NULL) == 0)
					n++; /* all at once: started before any is joined */
				while (n > 0)
					pthread_join(many[--n], NULL);
			} else if (!strcmp(w, "fork") && child < 0 && pipe(pfd) == 0 &&
				   pipe(fired) == 0) {
				fflush(stdout);
				child = fork();
				if (child == 0) {
					struct pollfd pf = {.fd = pfd[0], .events = POLLIN};

					close(pfd[1]);
					pp_child();
					(void)!write(fired[1], &c, 1);
					while (poll(&pf, 1, 10) == 0)
						pp_child();
					_exit(0);
				}
				close(pfd[0]);
				close(fired[1]);
				while (read(fired[0], &c, 1) < 0) /* its first call is done */
					;
				close(fired[0]);
				printf("child %d\n", (int)child);
			} else if (!strcmp(w, "reap") && child > 0) {
				close(pfd[1]);
				waitpid(child, NULL, 0);
				child = -1;
			} else {
				print_site(w);
			}
		}
		printf("done\n");
		fflush(stdout);
	}
	return 0;
}

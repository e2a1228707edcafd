// SPDX-License-Identifier: MIT
/*
 * lifecycle.c - events the runtime emits on its own about the process and its
 * threads, named and shaped after the kernel's: sched:sched_process_exec,
 * sched:sched_process_fork, sched:sched_process_exit, task:task_newtask,
 * task:task_rename, signal:signal_generate and signal:signal_deliver.
 *
 * They are ordinary events of libutrace.so itself (include/utrace/event.h): the
 * runtime finds, announces and switches them as it does a program's, so utracefs
 * lists them once a traced program has run, and each costs a NOP until enabled.
 * Their fields and print formats are the kernel's (its format files on Linux 6.x);
 * where user space cannot see what the kernel sees, the value is the nearest
 * thing it can, as docs/user-guide.md says field by field:
 *   - exec: emitted as the runtime starts in the new image (before main()), by
 *     its first thread: filename is what execve() was given (AT_EXECFN); old_pid
 *     is the pid, as for any exec by the main thread;
 *   - fork: fork() from the parent, after the child exists, as the kernel; a new
 *     thread (pthread_create) announces itself from its own first instructions,
 *     so that common_pid is the new thread's where the kernel's is the creator's;
 *   - exit: a thread returning from its start routine or calling pthread_exit(),
 *     and the process's exit() (group_dead true); not _exit(), a fatal signal or
 *     a thread the process never saw start;
 *   - rename: prctl(PR_SET_NAME) and pthread_setname_np() of the calling thread;
 *   - signal_generate: kill(), sigqueue(), tgkill(), raise() and pthread_kill()
 *     of the calling thread (a signal another process or the kernel sends is not
 *     seen); result is always 0 (delivered);
 *   - signal_deliver: a handler the program installed is entered.
 * The char arrays say signed:1 in their format (char is signed in user space),
 * where the kernel, built with unsigned char, says 0.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"
#include "utrace/event.h"

/* fields of the signal events, as in the kernel; neither macro is used below */
#undef errno
#undef sa_handler

typedef unsigned long long u64;

/* clone flags: glibc's fork() and pthread_create() */
#define FORK_CLONE_FLAGS 0x01200011ull	 /* CHILD_SETTID | CHILD_CLEARTID | SIGCHLD */
#define THREAD_CLONE_FLAGS 0x003d0f00ull /* VM FS FILES SIGHAND THREAD SYSVSEM SETTLS \
					    PARENT_SETTID CHILD_CLEARTID */
#define COMM_LEN 16

UTRACE_EVENT(sched, sched_process_exec,
	TP_PROTO(const char *filename, pid_t pid, pid_t old_pid),
	TP_ARGS(filename, pid, old_pid),
	TP_STRUCT__entry(
		__string(filename, filename)
		__field(pid_t, pid)
		__field(pid_t, old_pid)
	),
	TP_fast_assign(
		__assign_str(filename);
		__entry->pid = pid;
		__entry->old_pid = old_pid;
	),
	TP_printk("filename=%s pid=%d old_pid=%d", __get_str(filename), __entry->pid, __entry->old_pid)
);

UTRACE_EVENT(sched, sched_process_fork,
	TP_PROTO(const char *parent_comm, pid_t parent_pid, const char *child_comm, pid_t child_pid),
	TP_ARGS(parent_comm, parent_pid, child_comm, child_pid),
	TP_STRUCT__entry(
		__string(parent_comm, parent_comm)
		__field(pid_t, parent_pid)
		__string(child_comm, child_comm)
		__field(pid_t, child_pid)
	),
	TP_fast_assign(
		__assign_str(parent_comm);
		__entry->parent_pid = parent_pid;
		__assign_str(child_comm);
		__entry->child_pid = child_pid;
	),
	TP_printk("comm=%s pid=%d child_comm=%s child_pid=%d", __get_str(parent_comm), __entry->parent_pid, __get_str(child_comm), __entry->child_pid)
);

UTRACE_EVENT(sched, sched_process_exit,
	TP_PROTO(const char *comm, pid_t pid, int prio, bool group_dead),
	TP_ARGS(comm, pid, prio, group_dead),
	TP_STRUCT__entry(
		__array(char, comm, 16)
		__field(pid_t, pid)
		__field(int, prio)
		__field(bool, group_dead)
	),
	TP_fast_assign(
		memcpy(__entry->comm, comm, COMM_LEN);
		__entry->pid = pid;
		__entry->prio = prio;
		__entry->group_dead = group_dead;
	),
	TP_printk("comm=%s pid=%d prio=%d group_dead=%s", __entry->comm, __entry->pid, __entry->prio, __entry->group_dead ? "true" : "false")
);

UTRACE_EVENT(task, task_newtask,
	TP_PROTO(pid_t pid, const char *comm, u64 clone_flags, short oom_score_adj),
	TP_ARGS(pid, comm, clone_flags, oom_score_adj),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__array(char, comm, 16)
		__field(u64, clone_flags)
		__field(short, oom_score_adj)
	),
	TP_fast_assign(
		__entry->pid = pid;
		memcpy(__entry->comm, comm, COMM_LEN);
		__entry->clone_flags = clone_flags;
		__entry->oom_score_adj = oom_score_adj;
	),
	TP_printk("pid=%d comm=%s clone_flags=%llx oom_score_adj=%hd", __entry->pid, __entry->comm, __entry->clone_flags, __entry->oom_score_adj)
);

UTRACE_EVENT(task, task_rename,
	TP_PROTO(pid_t pid, const char *oldcomm, const char *newcomm, short oom_score_adj),
	TP_ARGS(pid, oldcomm, newcomm, oom_score_adj),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__array(char, oldcomm, 16)
		__array(char, newcomm, 16)
		__field(short, oom_score_adj)
	),
	TP_fast_assign(
		__entry->pid = pid;
		memcpy(__entry->oldcomm, oldcomm, COMM_LEN);
		memcpy(__entry->newcomm, newcomm, COMM_LEN);
		__entry->oom_score_adj = oom_score_adj;
	),
	TP_printk("pid=%d oldcomm=%s newcomm=%s oom_score_adj=%hd", __entry->pid, __entry->oldcomm, __entry->newcomm, __entry->oom_score_adj)
);

UTRACE_EVENT(signal, signal_generate,
	TP_PROTO(int sig, int code, const char *comm, pid_t pid, int group),
	TP_ARGS(sig, code, comm, pid, group),
	TP_STRUCT__entry(
		__field(int, sig)
		__field(int, errno)
		__field(int, code)
		__array(char, comm, 16)
		__field(pid_t, pid)
		__field(int, group)
		__field(int, result)
	),
	TP_fast_assign(
		__entry->sig = sig;
		__entry->errno = 0;
		__entry->code = code;
		memcpy(__entry->comm, comm, COMM_LEN);
		__entry->pid = pid;
		__entry->group = group;
		__entry->result = 0;
	),
	TP_printk("sig=%d errno=%d code=%d comm=%s pid=%d grp=%d res=%d", __entry->sig, __entry->errno, __entry->code, __entry->comm, __entry->pid, __entry->group, __entry->result)
);

UTRACE_EVENT(signal, signal_deliver,
	TP_PROTO(int sig, int err, int code, unsigned long sa_handler, unsigned long sa_flags),
	TP_ARGS(sig, err, code, sa_handler, sa_flags),
	TP_STRUCT__entry(
		__field(int, sig)
		__field(int, errno)
		__field(int, code)
		__field(unsigned long, sa_handler)
		__field(unsigned long, sa_flags)
	),
	TP_fast_assign(
		__entry->sig = sig;
		__entry->errno = err;
		__entry->code = code;
		__entry->sa_handler = sa_handler;
		__entry->sa_flags = sa_flags;
	),
	TP_printk("sig=%d errno=%d code=%d sa_handler=%lx sa_flags=%lx", __entry->sig, __entry->errno, __entry->code, __entry->sa_handler, __entry->sa_flags)
);

static pid_t tid_now(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The calling thread's comm, NUL-padded to 16 bytes (the system call: no dlsym). */
static void comm_now(char comm[COMM_LEN])
{
	memset(comm, 0, COMM_LEN);
	syscall(SYS_prctl, PR_GET_NAME, comm, 0, 0, 0);
	comm[COMM_LEN - 1] = 0;
}

/* A small decimal integer from a /proc file, or dflt. */
static long proc_long(const char *path, long dflt)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return dflt;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

static short oom_score_adj(void)
{
	return (short)proc_long("/proc/self/oom_score_adj", 0);
}

/* The kernel's prio of a thread: 120 + nice under the normal policies, 99 - the
 * real-time priority under SCHED_FIFO and SCHED_RR. */
static int prio_of(pid_t tid)
{
	struct sched_param sp;
	int pol = sched_getscheduler(tid);

	if ((pol == SCHED_FIFO || pol == SCHED_RR) && sched_getparam(tid, &sp) == 0)
		return 99 - sp.sched_priority;
	return 120 + getpriority(PRIO_PROCESS, (id_t)tid);
}

/* A thread's comm (of any process), NUL-padded; empty when it cannot be read. */
static void comm_of(pid_t tid, char comm[COMM_LEN])
{
	char path[64];
	ssize_t n;
	int fd;

	if (tid == tid_now()) {
		comm_now(comm);
		return;
	}
	memset(comm, 0, COMM_LEN);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, comm, COMM_LEN - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0 && comm[n - 1] == '\n')
		comm[n - 1] = 0;
	else if (n <= 0)
		memset(comm, 0, COMM_LEN);
}

void ut_life_exec(void)
{
	if (trace_sched_process_exec_enabled()) {
		const char *fn = (const char *)getauxval(AT_EXECFN);

		trace_sched_process_exec(fn ? fn : "", getpid(), getpid());
	}
}

void ut_life_forked(pid_t child)
{
	char comm[COMM_LEN];

	if (child <= 0 || !(trace_task_newtask_enabled() || trace_sched_process_fork_enabled()))
		return;
	comm_now(comm);
	trace_task_newtask(child, comm, FORK_CLONE_FLAGS, oom_score_adj());
	trace_sched_process_fork(comm, tid_now(), comm, child);
}

/* ---- threads ---------------------------------------------------------------------------- */

struct start {
	void *(*fn)(void *);
	void *arg;
	pid_t parent;
	char comm[COMM_LEN];
	struct ut_evpid_from ev; /* event-fork: the creator's answer (evpid.c) */
};

/* sched_process_exit of the calling thread; group_dead: the process ends with it */
static void exiting(bool group_dead)
{
	char comm[COMM_LEN];

	if (!trace_sched_process_exit_enabled())
		return;
	comm_now(comm);
	trace_sched_process_exit(comm, tid_now(), prio_of(tid_now()), group_dead);
}

void ut_life_thread_exit(void)
{
	exiting(false);
	ut_evpid_thread_exit(); /* after its last event */
}

static void *thread_start(void *p)
{
	struct start s = *(struct start *)p;
	void *ret;

	free(p);
	ut_stack_thread_start(); /* before its first check */
	ut_evpid_thread_start(&s.ev); /* before its first event */
	trace_task_newtask(tid_now(), s.comm, THREAD_CLONE_FLAGS, oom_score_adj());
	trace_sched_process_fork(s.comm, s.parent, s.comm, tid_now());
	ret = s.fn(s.arg);
	ut_life_thread_exit();
	return ret;
}

/* pthread_create's start routine and its argument, wrapped when memory allows. */
void ut_life_thread_wrap(void *(**fn)(void *), void **arg)
{
	struct start *s = malloc(sizeof(*s));

	if (!s)
		return;
	s->fn = *fn;
	s->arg = *arg;
	s->parent = tid_now();
	comm_now(s->comm);
	ut_evpid_capture(&s->ev);
	*fn = thread_start;
	*arg = s;
}

void ut_life_thread_unwrap(void *arg)
{
	free(arg); /* pthread_create failed: the wrapper never ran */
}

void ut_life_process_exit(void)
{
	exiting(true);
}

/* ---- names and signals ---------------------------------------------------------------------- */

void ut_life_comm_get(char old[COMM_LEN])
{
	comm_now(old);
}

bool ut_life_rename_wanted(void)
{
	return trace_task_rename_enabled();
}

void ut_life_renamed(const char old[COMM_LEN])
{
	char now[COMM_LEN];

	comm_now(now);
	trace_task_rename(tid_now(), old, now, oom_score_adj());
}

bool ut_life_signal_wanted(int sig)
{
	return sig > 0 && sig < NSIG && trace_signal_generate_enabled();
}

void ut_life_signal(int sig, int code, pid_t pid, int group)
{
	char comm[COMM_LEN];

	comm_of(pid, comm);
	trace_signal_generate(sig, code, comm, pid, group);
}

void ut_life_deliver(int sig, const siginfo_t *si, unsigned long handler, unsigned long flags)
{
	/* glibc hands its restorer to the kernel with every handler (SA_RESTORER) */
	trace_signal_deliver(sig, si ? si->si_errno : 0, si ? si->si_code : 0, handler,
			     flags | 0x04000000ul);
}

// SPDX-License-Identifier: MIT
/*
 * record_run.c - how `utrace record` starts, watches and stops CMD: where execvp
 * will find it (a CMD that cannot run fails before anything is touched), the
 * output file (opened first, emptied only once CMD runs), the exec and hold
 * handshakes with the child, and the signals that stop a recording.
 *
 * The child tells whether exec worked on a close-on-exec pipe: nothing is read
 * when it did, its errno when it did not.  Then the runtime in CMD speaks on the
 * hold socket (UTRACE_RECORD_HOLD, runtime/control.c): "r" once its sites are
 * named (it waits for "g"), "n" when it has no patch site at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"

/*
 * Child side: preload the runtime and become CMD; never returns.  Nothing is
 * printed before exec; an exec that fails writes its errno on exec_fd (closed
 * by a successful exec) for the parent to tell.
 */
static void exec_traced(char **cmd, const char *lib, const char *dir, int hold_fd, int exec_fd)
{
	char preload[8192], fd[16];
	int err;

	snprintf(fd, sizeof(fd), "%d", hold_fd);
	signal(SIGPIPE, SIG_DFL); /* ignored by record alone (an ignored signal stays so over exec) */
	if (cli_preload_value(preload, sizeof(preload), getenv("LD_PRELOAD"), lib) ||
	    setenv("LD_PRELOAD", preload, 1) ||
	    (hold_fd >= 0 && setenv("UTRACE_RECORD_HOLD", fd, 1)) ||
	    /* the runtime refuses a relative one: give it the place record uses */
	    (cli_tracing_env_relative() && setenv("UTRACE_TRACING", dir, 1))) {
		cli_error("LD_PRELOAD too long");
		_exit(127);
	}
	execvp(cmd[0], cmd);
	err = errno;
	if (write(exec_fd, &err, sizeof(err)) != sizeof(err)) {
		/* the parent sees the pipe close without a word: it waits for us */
	}
	_exit(err == ENOENT ? 127 : 126);
}

int cli_find_program(const char *name)
{
	const char *path = getenv("PATH"), *p, *colon;
	char file[PATH_MAX];
	struct stat st;
	int err = -ENOENT;

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (stat(name, &st))
			return -errno;
		return S_ISREG(st.st_mode) && !access(name, X_OK) ? 0 : -EACCES;
	}
	for (p = path ? path : "/bin:/usr/bin"; p; p = colon ? colon + 1 : NULL) {
		int n;

		colon = strchr(p, ':');
		n = colon ? (int)(colon - p) : (int)strlen(p);
		/* an empty entry is the working directory */
		if (snprintf(file, sizeof(file), "%.*s%s%s", n, p, n ? "/" : "", name) >=
		    (int)sizeof(file))
			continue;
		if (stat(file, &st))
			continue;
		if (S_ISREG(st.st_mode) && !access(file, X_OK))
			return 0;
		err = -EACCES;
	}
	return err;
}

int cli_output_open(struct cli_output *out, const char *path)
{
	*out = (struct cli_output){.path = path, .fd = STDOUT_FILENO};
	if (!strcmp(path, "-"))
		return 0;
	out->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	out->created = out->fd >= 0;
	if (out->fd < 0 && errno == EEXIST)
		out->fd = open(path, O_WRONLY | O_CLOEXEC);
	return out->fd < 0 ? cli_file_error(path, errno) : 0;
}

void cli_output_start(struct cli_output *out)
{
	struct stat st;

	out->started = true;
	if (out->fd != STDOUT_FILENO && !out->created && !fstat(out->fd, &st) &&
	    S_ISREG(st.st_mode) && ftruncate(out->fd, 0))
		cli_file_error(out->path, errno);
}

int cli_output_close(struct cli_output *out)
{
	int err = 0;

	if (out->fd == STDOUT_FILENO)
		return 0;
	if (close(out->fd))
		err = cli_file_error(out->path, errno);
	if (out->created && !out->started)
		unlink(out->path);
	return err;
}

/*
 * SIGTERM and SIGHUP (timeout(1), a closed terminal) do what ^C does: CMD is
 * stopped (the signal is passed on to it), what it left in the buffer is saved
 * and the tracer put back.  ^C and ^\ reach CMD from the terminal themselves:
 * record only outlives them.  Before CMD starts, any of them ends record after
 * putting things back.
 */
static volatile sig_atomic_t stop_sig;
static volatile pid_t traced_pid; /* CMD while it can be signalled, else 0 */
static const int stop_sigs[] = {SIGTERM, SIGHUP, SIGINT, SIGQUIT};
#define NR_STOP_SIGS (sizeof(stop_sigs) / sizeof(stop_sigs[0]))

static void on_stop_signal(int sig)
{
	int saved = errno;

	stop_sig = sig;
	if (traced_pid > 0 && (sig == SIGTERM || sig == SIGHUP))
		kill(traced_pid, sig);
	errno = saved;
}

static void stop_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < NR_STOP_SIGS; i++)
		sigaddset(set, stop_sigs[i]);
}

void cli_catch_stop_signals(void)
{
	/* SA_RESTART: a FUSE request interrupted would fail with EINTR */
	struct sigaction sa = {.sa_handler = on_stop_signal, .sa_flags = SA_RESTART};

	stop_set(&sa.sa_mask);
	for (size_t i = 0; i < NR_STOP_SIGS; i++)
		sigaction(stop_sigs[i], &sa, NULL);
	/* a reader of -o - that goes away is an EPIPE to say, not the end of record
	 * before it puts the tracer back (CMD gets SIGPIPE back: exec_traced) */
	signal(SIGPIPE, SIG_IGN);
}

int cli_wait_ready(int sock, pid_t pid)
{
	struct pollfd p = {.fd = sock, .events = POLLIN};
	char c;

	for (;;) {
		int n = poll(&p, 1, 100);

		if (n < 0 && errno != EINTR)
			return 0;
		if (n > 0)
			return read(sock, &c, 1) == 1 && (c == 'r' || c == 'n') ? c : 0;
		siginfo_t si = {.si_pid = 0};

		/* ended (not reaped here: run_traced waits for it) */
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid)
			return 0;
	}
}

int cli_reap(pid_t pid)
{
	siginfo_t si;
	int status;

	/*
	 * Polled rather than blocked in waitid(): a stop signal must run its handler
	 * (which passes it on to CMD) while we wait, and a sanitizer's runtime
	 * (ThreadSanitizer) delivers signals only at calls it knows, such as poll.
	 */
	for (;;) {
		si.si_pid = 0;
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (si.si_pid)
			break;
		poll(NULL, 0, 20);
	}
	traced_pid = 0; /* a zombie's pid is not reused before it is reaped */
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int cli_exec_result(int fd)
{
	ssize_t n;
	int err;

	while ((n = read(fd, &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(fd);
	return n == sizeof(err) ? err : 0;
}

pid_t cli_start_traced(char **cmd, const char *lib, const char *dir, int hold_fd, int exec_fd)
{
	sigset_t set, old;
	pid_t pid;

	fflush(NULL);
	/* a signal from here on finds traced_pid set (or the child not yet there) */
	stop_set(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (stop_sig) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -EINTR;
	}
	pid = fork();
	if (!pid) {
		for (size_t i = 0; i < NR_STOP_SIGS; i++)
			signal(stop_sigs[i], SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		/* the child's end crosses exec (the runtime closes it before main) */
		fcntl(hold_fd, F_SETFD, 0);
		exec_traced(cmd, lib, dir, hold_fd, exec_fd);
	}
	if (pid > 0)
		traced_pid = pid;
	else
		pid = -errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

int cli_stop_signal(void)
{
	return stop_sig;
}

bool cli_start_held(char **cmd, const char *lib, const char *mnt, pid_t *pid, int *sock,
		    int *status)
{
	int sv[2], ep[2], err;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		*status = -errno;
		return false;
	}
	if (pipe2(ep, O_CLOEXEC)) {
		*status = -errno;
		close(sv[0]);
		close(sv[1]);
		return false;
	}
	*pid = cli_start_traced(cmd, lib, mnt, sv[1], ep[1]);
	close(sv[1]);
	close(ep[1]);
	if (*pid < 0) {
		close(ep[0]);
		close(sv[0]);
		*status = *pid == -EINTR ? 128 + cli_stop_signal() : *pid;
		return false;
	}
	err = cli_exec_result(ep[0]);
	if (err) {
		close(sv[0]);
		cli_error("%s: %s", cmd[0], strerror(err));
		*status = cli_reap(*pid);
		return false;
	}
	*sock = sv[0];
	return true;
}

int cli_traced_paths(const char *cmd, char *dir, char *lib)
{
	int err = cli_tracing_dir(dir, PATH_MAX, NULL);

	if (!err)
		err = cli_sibling(lib, PATH_MAX, "../lib/libutrace.so");
	if (!err && access(lib, R_OK))
		err = -errno;
	if (err)
		return cli_file_error(err == -ENAMETOOLONG ? "tracing directory" : lib, err);
	/* a CMD that cannot run fails before anything is touched (127/126, as a shell) */
	err = cli_find_program(cmd);
	if (err) {
		cli_error("%s: %s", cmd, strerror(-err));
		return err == -ENOENT ? 127 : 126;
	}
	return -1;
}

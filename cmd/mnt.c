// SPDX-License-Identifier: MIT
/*
 * mnt.c - the utracefs mount as the command line sees it: is one mounted at a
 * directory (read from /proc/self/mountinfo, not guessed from the files there),
 * starting the daemon to mount one, and unmounting with fusermount3.
 *
 * A mount whose daemon died is "stale": every access fails with ENOTCONN until it
 * is unmounted (though stat() may still answer from FUSE's cache for a second:
 * whether the daemon lives is asked of its socket).  `utrace mount` clears such
 * a mount and mounts again, so that a crashed daemon never needs manual repair.
 *
 * Another user must not be able to stand in for the user's utracefs (ut_paths.h):
 * a mount point, or the part of it that exists, whose directories are not all the
 * user's or root's and closed to others is refused before anything is created,
 * started or asked there.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "ut_paths.h"

extern char **environ;

#define MOUNT_TIMEOUT_MS 10000 /* generous: sanitizer builds start slowly */
#define POLL_MS 10

/* Copy one space-separated mountinfo field, decoding the \ooo escapes of paths. */
static const char *field(const char *p, char *out, size_t size)
{
	size_t n = 0;

	while (*p == ' ')
		p++;
	while (*p && *p != ' ' && *p != '\n') {
		int c = (unsigned char)*p++;

		if (c == '\\' && p[0] >= '0' && p[0] <= '3' && p[1] >= '0' && p[1] <= '7' &&
		    p[2] >= '0' && p[2] <= '7') {
			c = (p[0] - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0');
			p += 3;
		}
		if (n + 1 < size)
			out[n++] = (char)c;
	}
	if (size)
		out[n] = '\0';
	return p;
}

static const char *next_line(const char *line)
{
	const char *nl = strchr(line, '\n');

	return nl ? nl + 1 : NULL;
}

int cli_mountinfo_find(const char *mountinfo, const char *mntpt, char *fstype, size_t tsize,
		       char *source, size_t ssize)
{
	char tok[PATH_MAX];
	const char *line, *p;
	int found = 0, i;

	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS" */
	for (line = mountinfo; line && *line; line = next_line(line)) {
		p = line;
		for (i = 0; i < 5; i++)
			p = field(p, tok, sizeof(tok));
		if (strcmp(tok, mntpt))
			continue;
		for (;;) { /* skip to the " - " separator */
			p = field(p, tok, sizeof(tok));
			if (!*tok || !strcmp(tok, "-"))
				break;
		}
		if (!*tok)
			continue;
		p = field(p, fstype, tsize);
		field(p, source, ssize);
		found = 1; /* keep going: the last one is on top */
	}
	return found;
}

bool cli_is_utracefs(const char *fstype, const char *source)
{
	if (!strcmp(fstype, "fuse.utracefs"))
		return true;
	return !strncmp(fstype, "fuse", 4) && !strcmp(source, "utracefs");
}

/* Absolute, symlink-free path of dir; a dead FUSE mount point itself cannot be
 * resolved (ENOTCONN), so resolve its parent and append the last component. */
static int canonical(const char *dir, char *out)
{
	char copy[PATH_MAX], copy2[PATH_MAX], parent[PATH_MAX];
	int n;

	if (realpath(dir, out))
		return 0;
	if (errno == ENOENT)
		return -ENOENT;
	if (strlen(dir) >= sizeof(copy))
		return -ENAMETOOLONG;
	strcpy(copy, dir);
	strcpy(copy2, dir);
	if (!realpath(dirname(copy), parent))
		return -errno;
	n = snprintf(out, PATH_MAX, "%s/%s", strcmp(parent, "/") ? parent : "", basename(copy2));
	return n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/*
 * Ask the daemon itself: connect to its socket, next to the mount point as the
 * daemon spells it (DIR.sock) or next to the canonical path.  1: it answers
 * (a stopped daemon too: the connection waits in its backlog); 0: the socket is
 * there but nobody listens (the daemon died); -1: no socket found to ask.
 */
static int daemon_answers(const char *dir, const char *canon)
{
	const char *const names[] = {dir, canon};

	for (int i = 0; i < 2; i++) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		int fd, rc, err;

		if (ut_socket_path_for(names[i], sa.sun_path, sizeof(sa.sun_path)))
			continue;
		fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return -1;
		rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		err = errno;
		close(fd);
		if (!rc || err == EAGAIN)
			return 1;
		if (err == ECONNREFUSED)
			return 0;
	}
	return -1;
}

enum cli_mnt_state cli_mount_state(const char *dir)
{
	char path[PATH_MAX], fstype[64], source[256], *info;
	struct stat st;
	int found;

	if (canonical(dir, path) || cli_read_file("/proc/self/mountinfo", &info, NULL))
		return CLI_MNT_NONE;
	found = cli_mountinfo_find(info, path, fstype, sizeof(fstype), source, sizeof(source));
	free(info);
	if (!found)
		return CLI_MNT_NONE;
	if (!cli_is_utracefs(fstype, source))
		return CLI_MNT_OTHER;
	/* not stat() alone: FUSE answers it from its attribute cache for a second */
	switch (daemon_answers(dir, path)) {
	case 1:
		return CLI_MNT_LIVE;
	case 0:
		return CLI_MNT_STALE;
	}
	if (stat(path, &st) && (errno == ENOTCONN || errno == ECONNABORTED))
		return CLI_MNT_STALE;
	return CLI_MNT_LIVE;
}

/* mkdir -p, creating what is missing with mode 0700 (the mount is the user's own). */
static int make_dirs(const char *dir)
{
	char path[PATH_MAX], *p, c;
	struct stat st;

	if (strlen(dir) >= sizeof(path))
		return -ENAMETOOLONG;
	strcpy(path, dir);
	for (p = path + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			break;
	}
	if (stat(dir, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/*
 * Refuse dir unless the deepest part of it that exists is trusted (what make_dirs
 * creates below is then the user's).  A dead mount of ours (ENOTCONN, ECONNABORTED)
 * is fine: its directory was checked.  0, or CLI_FAIL after saying why.
 */
static int check_trusted(const char *dir)
{
	char path[PATH_MAX], real[PATH_MAX], why[PATH_MAX + 64], *slash;
	int err;

	if (strlen(dir) >= sizeof(path))
		return 0; /* too long: refused by whoever uses it */
	strcpy(path, dir);
	for (;;) {
		err = ut_path_trusted(path, geteuid(), real, sizeof(real), why, sizeof(why));
		slash = strrchr(path, '/');
		if (err != -ENOENT || !slash || slash == path)
			break;
		*slash = '\0';
	}
	/* a dead mount answers ENOTCONN, or ECONNABORTED while its death is on its way */
	if (!err || err == -ENOTCONN || err == -ECONNABORTED || err == -ENOENT)
		return 0;
	if (err == -EPERM)
		cli_error("%s: refused: %s, so another user could stand in for utracefs there",
			  dir, why);
	else
		cli_error("%s: refused: %s cannot be checked: %s", dir, path, strerror(-err));
	return CLI_FAIL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static int spawn(const char *path, char *const argv[], bool quiet_stdout, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	int err;

	posix_spawn_file_actions_init(&fa);
	/* A daemon must not hold a caller's pipe open (`x=$(utrace mount)` would hang). */
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (quiet_stdout)
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	err = posix_spawnp(pid, path, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	return -err;
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int cli_run_wait(char *const argv[])
{
	pid_t pid;
	int status, err = spawn(argv[0], argv, false, &pid);

	if (err)
		return err;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return exit_code(status);
}

/* Wait until the daemon we started has mounted dir; it daemonizes once mounted. */
static int wait_mounted(const char *dir, pid_t pid)
{
	bool exited = false;
	int waited, status;

	for (waited = 0; waited < MOUNT_TIMEOUT_MS; waited += POLL_MS) {
		if (cli_mount_state(dir) == CLI_MNT_LIVE)
			return 0;
		if (!exited && waitpid(pid, &status, WNOHANG) == pid) {
			exited = true;
			if (exit_code(status)) {
				cli_error("utracefs failed to mount %s (exit status %d)", dir,
					  exit_code(status));
				return -EIO;
			}
		}
		sleep_ms(POLL_MS);
	}
	if (!exited) {
		kill(pid, SIGTERM);
		waitpid(pid, &status, 0);
	}
	cli_error("utracefs did not mount %s within %d s", dir, MOUNT_TIMEOUT_MS / 1000);
	return -ETIMEDOUT;
}

int cli_mount(const char *dir, const char *opts)
{
	struct sockaddr_un sa;
	char fsbin[PATH_MAX];
	enum cli_mnt_state state;
	pid_t pid;
	int err;

	if (check_trusted(dir))
		return -EPERM;
	state = cli_mount_state(dir);
	if (state == CLI_MNT_LIVE)
		return 1;
	if (state == CLI_MNT_OTHER) {
		cli_error("%s: another file system is mounted there", dir);
		return -EBUSY;
	}
	if (state == CLI_MNT_STALE) {
		cli_error("%s: its utracefs is gone; unmounting the dead mount first", dir);
		err = cli_umount(dir, true);
		if (err)
			return err;
	}
	/* refused before anything is created: utracefs could not bind its socket */
	if (ut_socket_path_for(dir, sa.sun_path, sizeof(sa.sun_path))) {
		cli_error("%s: name too long: its socket %s.sock must fit in %zu bytes", dir, dir,
			  sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	err = make_dirs(dir);
	if (err) {
		cli_file_error(dir, err);
		return err;
	}
	err = cli_sibling(fsbin, sizeof(fsbin), "utracefs");
	if (!err && access(fsbin, X_OK))
		err = -errno;
	if (err) {
		cli_file_error(fsbin, err);
		return err;
	}
	err = spawn(fsbin,
		    opts ? (char *const[]){fsbin, "-o", (char *)opts, (char *)dir, NULL}
			 : (char *const[]){fsbin, (char *)dir, NULL},
		    true, &pid);
	if (err) {
		cli_file_error(fsbin, err);
		return err;
	}
	return wait_mounted(dir, pid);
}

int cli_umount(const char *dir, bool lazy)
{
	enum cli_mnt_state state = cli_mount_state(dir);
	char *argv[] = {"fusermount3", "-u", (char *)dir, NULL, NULL};
	int rc;

	if (state == CLI_MNT_NONE) {
		cli_error("%s: no utracefs mounted there", dir);
		return -EINVAL;
	}
	if (state == CLI_MNT_OTHER) {
		cli_error("%s: not a utracefs mount", dir);
		return -EINVAL;
	}
	if (lazy || state == CLI_MNT_STALE) { /* stale: nothing answers there anyway */
		argv[2] = "-z";
		argv[3] = (char *)dir;
	}
	rc = cli_run_wait(argv);
	if (rc < 0) {
		cli_file_error("fusermount3", rc);
		return rc;
	}
	if (rc) {
		cli_error("fusermount3 -u %s%s failed (exit status %d)%s", lazy ? "-z " : "", dir,
			  rc, lazy ? "" : "; if it is busy, 'utrace umount -l' detaches it now");
		return -EIO;
	}
	return 0;
}

int cli_need_mount(const char *dir)
{
	if (check_trusted(dir))
		return CLI_FAIL;
	switch (cli_mount_state(dir)) {
	case CLI_MNT_LIVE:
		return 0;
	case CLI_MNT_STALE:
		cli_error("%s: the utracefs mounted there is gone ('utrace mount' mounts it again)",
			  dir);
		return CLI_FAIL;
	case CLI_MNT_OTHER:
		cli_error("%s: not a utracefs mount", dir);
		return CLI_FAIL;
	default:
		cli_error("no utracefs mounted at %s (run 'utrace mount' first)", dir);
		return CLI_FAIL;
	}
}

int cli_mounted_dir(char *buf, size_t size)
{
	int err = cli_tracing_dir(buf, size, NULL);

	if (err) {
		cli_error("the tracing directory's name is too long");
		return CLI_FAIL;
	}
	return cli_need_mount(buf);
}

// SPDX-License-Identifier: MIT
/*
 * main.c - utracefs [-f] [-d] [-o OPTIONS] MOUNTPOINT: set up the tracing state, the shared
 * area and the control socket, mount the tree and serve it until unmounted
 * (fusermount3 -u) or told to stop (SIGTERM, SIGINT).
 *
 * The mount point and every directory above it must be the user's or root's and
 * writable by nobody else (ut_paths.h), and so must the socket and the console
 * files next to it if they exist (in a sticky directory such as /tmp another user
 * could have made them): another user who could put things there could
 * impersonate the daemon or read what it writes.
 *
 * -o takes the FUSE mount options that make sense for this tree (mount_opts):
 * fsname= (the mount table's source), allow_other and allow_root (others may
 * then open what the files' modes let them: the tree stays the owner's until
 * the owner chmods or chowns it, as default_permissions, always on, makes the
 * kernel check), default_permissions.  Anything else is refused: an option FUSE
 * would take silently (subtype=, which utrace mount looks for) or one that would
 * loosen the checks.
 *
 * Without -f it becomes a daemon, and the command returns only once the mount
 * and the socket are up (or with an error if they could not be set up), so that
 * a script can use the tree right after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core.h"
#include "tfs.h"
#include "ut_paths.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: utracefs [-f] [-d] [-o OPTIONS] MOUNTPOINT\n"
		     "  -f          stay in the foreground\n"
		     "  -d          FUSE debug output (implies -f)\n"
		     "  -o OPTIONS  FUSE mount options, comma-separated: fsname=NAME,\n"
		     "              allow_other, allow_root, default_permissions\n");
}

/*
 * Add the comma-separated options of one -o to opts (a string of them, for
 * tfs_fuse_mount).  0, or -EINVAL with *bad naming the option refused.
 */
static int mount_opts(char *opts, size_t size, char *arg, const char **bad)
{
	static const char *const plain[] = {"allow_other", "allow_root", "default_permissions"};

	for (char *sp, *o = strtok_r(arg, ",", &sp); o; o = strtok_r(NULL, ",", &sp)) {
		bool ok = !strncmp(o, "fsname=", 7) && o[7] && !strpbrk(o + 7, " \t\n\\");

		for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]) && !ok; i++)
			ok = !strcmp(o, plain[i]);
		if (!ok) {
			*bad = o;
			return -EINVAL;
		}
		if (strlen(opts) + strlen(o) + 2 > size) {
			*bad = o;
			return -ENAMETOOLONG;
		}
		strcat(opts, ",");
		strcat(opts, o);
	}
	return 0;
}

/*
 * Fork; the parent waits for the child to report that everything is up, and
 * exits with the child's verdict.  Returns the pipe the child reports on.
 */
static int daemon_start(void)
{
	int p[2];
	char ok;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		perror("utracefs: pipe");
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		perror("utracefs: fork");
		exit(1);
	}
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &ok, 1) == 1)
			exit(0);
		waitpid(pid, NULL, 0);
		exit(1);
	}
	close(p[0]);
	setsid();
	return p[1];
}

/*
 * Detach from the terminal: stdin and stdout go to /dev/null, stderr to the
 * console file (what the kernel writes to its console: the dumps of the dump and
 * cpudump function probes, and our own messages).
 */
static void daemon_ready(int fd, const char *console)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int con = open(console, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (chdir("/"))
		perror("utracefs: chdir");
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(con >= 0 ? con : null, 2);
		close(null);
	}
	if (con >= 0)
		close(con);
	if (write(fd, "1", 1) != 1) {
		/* the parent is gone: nothing to tell */
	}
	close(fd);
}

int main(int argc, char **argv)
{
	char mnt[PATH_MAX], sock[PATH_MAX], console[PATH_MAX + 16];
	char real[PATH_MAX], why[PATH_MAX + 64], opts[1024] = "";
	const char *bad;
	bool foreground = false, debug = false;
	struct fuse *f;
	struct stat st;
	int c, err, ready = -1;

	while ((c = getopt(argc, argv, "+fdho:")) != -1) {
		switch (c) {
		case 'o':
			if (mount_opts(opts, sizeof(opts), optarg, &bad)) {
				fprintf(stderr, "utracefs: mount option not supported: %s\n", bad);
				usage(stderr);
				return 2;
			}
			break;
		case 'f':
			foreground = true;
			break;
		case 'd':
			debug = foreground = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	/* absolute, spelled as given: the socket sits next to it */
	err = ut_absolute_path(argv[optind], mnt, sizeof(mnt));
	if (!err)
		err = ut_socket_path_for(mnt, sock, sizeof(sock));
	if (!err && snprintf(console, sizeof(console), "%s.console", mnt) >= (int)sizeof(console))
		err = -ENAMETOOLONG;
	if (!err && stat(mnt, &st))
		err = -errno;
	if (!err && !S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	if (err) {
		fprintf(stderr, "utracefs: %s: %s\n", argv[optind], strerror(-err));
		return 1;
	}
	/* the mount point; the socket and the console when they exist (a sticky /tmp) */
	err = ut_path_trusted(mnt, geteuid(), real, sizeof(real), why, sizeof(why));
	for (int i = 0; i < 2 && !err; i++) {
		err = ut_path_trusted(i ? console : sock, geteuid(), real, sizeof(real), why,
				      sizeof(why));
		if (err == -ENOENT)
			err = 0;
	}
	if (err) {
		fprintf(stderr, "utracefs: %s: %s%s\n", mnt, err == -EPERM ? "refused: " : "",
			err == -EPERM ? why : strerror(-err));
		return 1;
	}

	if (!foreground)
		ready = daemon_start();
	tfs_clock_init();
	tfs_state_defaults(tfs_possible_cpus());
	err = tfs_area_init(tfs.nr_cpus);
	if (err) {
		fprintf(stderr, "utracefs: shared area: %s\n", strerror(-err));
		return 1;
	}
	err = tfs_registry_start(sock);
	if (err) {
		fprintf(stderr, "utracefs: %s: %s\n", sock, strerror(-err));
		return 1;
	}
	f = tfs_fuse_mount(mnt, debug, opts);
	if (!f) {
		fprintf(stderr, "utracefs: cannot mount %s\n", mnt);
		tfs_registry_stop();
		return 1;
	}
	err = tfs_kicker_start();
	if (err)
		fprintf(stderr, "utracefs: kicker: %s (trace_pipe wakes up late)\n",
			strerror(-err));
	if (ready >= 0)
		daemon_ready(ready, console);

	err = tfs_fuse_loop(f);

	/* the tracers' own threads end (they write into the rings) */
	tfs_tracers_shutdown();
	/* processes see EOF and go dormant; then the tree goes away */
	tfs_registry_stop();
	tfs_kicker_stop();
	tfs_fuse_unmount(f);
	tfs_trace_dump_stop(); /* it reads the rings */
	tfs_area_fini();
	/* the loop answers a signal's number when SIGTERM/SIGINT ended it: a clean end */
	return err < 0 ? 1 : 0;
}

// SPDX-License-Identifier: MIT
/*
 * file_ops.c - system calls on a tracefs file that the shell cannot make, for
 * the integration tests (20_files.sh, 40_trace.sh).  Each prints one line: the
 * result, or the errno's name.
 *
 *   file_ops nbread FILE        open read-only, then set O_NONBLOCK with
 *                               fcntl(F_SETFL) and read: "read N" or "EAGAIN"
 *   file_ops seekend FILE r|w   open read-only (r) or write-only (w), then
 *                               lseek(fd, 0, SEEK_END): "lseek N" or the errno
 *   file_ops write0 FILE        write(2) of zero bytes: "write N" or the errno
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int result(const char *what, long r)
{
	const char *name;

	if (r >= 0) {
		printf("%s %ld\n", what, r);
		return 0;
	}
	switch (errno) {
	case EAGAIN: name = "EAGAIN"; break;
	case EINVAL: name = "EINVAL"; break;
	case EBADF: name = "EBADF"; break;
	case ESPIPE: name = "ESPIPE"; break;
	case EPERM: name = "EPERM"; break;
	default: name = strerror(errno); break;
	}
	printf("%s\n", name);
	return 0;
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0) {
		perror(path);
		exit(2);
	}
	return fd;
}

int main(int argc, char **argv)
{
	char buf[4096];
	int fd;

	if (argc == 3 && strcmp(argv[1], "nbread") == 0) {
		fd = open_or_die(argv[2], O_RDONLY);
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)) {
			perror("fcntl");
			return 2;
		}
		return result("read", (long)read(fd, buf, sizeof(buf)));
	}
	if (argc == 4 && strcmp(argv[1], "seekend") == 0) {
		fd = open_or_die(argv[2], argv[3][0] == 'w' ? O_WRONLY : O_RDONLY);
		return result("lseek", (long)lseek(fd, 0, SEEK_END));
	}
	if (argc == 3 && strcmp(argv[1], "write0") == 0) {
		fd = open_or_die(argv[2], O_WRONLY);
		return result("write", (long)write(fd, buf, 0));
	}
	fprintf(stderr, "usage: file_ops nbread|seekend|write0 ...\n");
	return 2;
}

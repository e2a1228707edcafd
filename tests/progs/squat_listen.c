// SPDX-License-Identifier: MIT
/*
 * squat_listen.c - another user's listener where a traced process looks for
 * utracefs (tests/integration/91_trust.sh): whatever a process sends it is a leak.
 *
 *   squat_listen SOCKET OUT [UID]
 *
 * Binds SOCKET (mode 0777, so that anyone may connect), then, with UID, becomes
 * that user before listen() (the socket file stays the binder's, the peer
 * credentials are UID's), and writes "ready" to OUT.  Then it accepts connections
 * and appends "got TYPE LEN" to OUT for every packet received, until killed.
 *
 *   squat_listen -s SOCKET
 *
 * Sends a sync packet: the listener first reads what every connection accepted
 * before it holds, then appends "sync" to OUT, so that a test knows that anything
 * a process sent before is in OUT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define SYNC_TYPE 0xfeedu

static void say(const char *out, const char *line)
{
	int fd = open(out, O_WRONLY | O_APPEND | O_CREAT, 0666);

	if (fd >= 0) {
		if (write(fd, line, strlen(line)) < 0)
			perror("squat_listen: write");
		close(fd);
	}
}

static int sync_client(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	uint32_t m[2] = {SYNC_TYPE, 8};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    send(fd, m, sizeof(m), 0) != sizeof(m)) {
		perror("squat_listen: sync");
		return 1;
	}
	close(fd);
	return 0;
}

/* Read one packet of p (non-blocking): 1 read, 0 nothing there, -1 closed. */
static int take(struct pollfd *p, const char *out)
{
	union {
		uint32_t hdr[2];
		char buf[65536];
	} m;
	char line[64];
	ssize_t len = recv(p->fd, m.buf, sizeof(m.buf), MSG_DONTWAIT);

	if (len < 0 && errno == EAGAIN)
		return 0;
	if (len <= 0)
		return -1;
	if (len == 8 && m.hdr[0] == SYNC_TYPE)
		return 2;
	snprintf(line, sizeof(line), "got %u %zd\n", len >= 4 ? m.hdr[0] : 0u, len);
	say(out, line);
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct pollfd p[64];
	unsigned int n = 1;
	int lfd;

	if (argc == 3 && !strcmp(argv[1], "-s"))
		return sync_client(argv[2]);

	if (argc < 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: squat_listen SOCKET OUT [UID]\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	unlink(argv[1]);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(argv[1], 0777)) {
		perror("squat_listen: bind");
		return 1;
	}
	if (argc > 3) {
		uid_t uid = (uid_t)strtoul(argv[3], NULL, 10);

		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) {
			perror("squat_listen: setresuid");
			return 1;
		}
	}
	if (listen(lfd, 16)) {
		perror("squat_listen: listen");
		return 1;
	}
	say(argv[2], "ready\n");
	p[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
	for (;;) {
		if (poll(p, n, -1) < 0)
			continue;
		for (unsigned int i = n; i-- > 1;) {
			int r = p[i].revents ? take(&p[i], argv[2]) : 0;

			if (r == 2) { /* everything sent before the sync first */
				for (unsigned int k = 1; k < n; k++)
					while (k != i && take(&p[k], argv[2]) == 1)
						;
				say(argv[2], "sync\n");
			}
			if (r < 0) {
				close(p[i].fd);
				p[i] = p[--n];
			}
		}
		if ((p[0].revents & POLLIN) && n < 64) {
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (fd >= 0) {
				say(argv[2], "connected\n");
				p[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
			}
		}
	}
}

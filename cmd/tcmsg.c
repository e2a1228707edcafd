// SPDX-License-Identifier: MIT
/*
 * tcmsg.c - see tcmsg.h.  Numbers on the wire are big-endian (network order).
 *
 * The CPU connections go first to the address the control connection reached.  Every read
 * waits for the listener with poll, timeout_ms at most, so that a server that
 * is not a listener, or one that hangs, ends the session with ETIMEDOUT instead of a
 * hang.  Writes use send(MSG_NOSIGNAL): a listener that goes away is an EPIPE, not a
 * SIGPIPE that kills the command.
 *
 * A listener reads each CPU's connection in a child process until the client closes
 * it, and stops those children a fixed while after the CLOSE message: pages still in
 * flight then would be lost.  So each CPU connection is shut down for writing and read
 * until the child closes its end (it does when it has written everything to its file)
 * before the next step.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tcmsg.h"

#define TCM_GREETING "tracecmd"
#define TCM_V3_ASK "-1V3" /* with its NUL */
#define TCM_V3_MAGIC "766679"
#define TCM_COPY (64u << 10)

static void put_be32(unsigned char *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t get_be32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

void tcm_header(unsigned char p[TCM_HDR_LEN], uint32_t size, uint32_t cmd, uint32_t fixed)
{
	put_be32(p, size);
	put_be32(p + 4, cmd);
	put_be32(p + 8, fixed);
}

void tcm_tinit(unsigned char p[TCM_TINIT_LEN], uint32_t cpus, uint32_t page_size)
{
	tcm_header(p, TCM_TINIT_LEN, TCM_TINIT, 12);
	put_be32(p + 12, cpus);
	put_be32(p + 16, page_size);
	put_be32(p + 20, 1); /* one option: */
	memcpy(p + 24, "tcp", 4);
}

int tcm_rinit_ports(const unsigned char *msg, size_t len, uint32_t cpus, unsigned int *ports)
{
	const char *p, *end;

	if (len < TCM_HDR_LEN + 4 || get_be32(msg) != len || get_be32(msg + 4) != TCM_RINIT ||
	    get_be32(msg + 8) != 4 || get_be32(msg + 12) != cpus || msg[len - 1] != '\0')
		return -EPROTO;
	p = (const char *)msg + TCM_HDR_LEN + 4;
	end = (const char *)msg + len;
	for (uint32_t c = 0; c < cpus; c++) {
		char *stop;
		unsigned long v;

		if (p >= end || *p < '0' || *p > '9')
			return -EPROTO;
		v = strtoul(p, &stop, 10);
		if (*stop || v == 0 || v > 65535)
			return -EPROTO;
		ports[c] = (unsigned int)v;
		p = stop + 1;
	}
	return 0;
}

/* ---- the socket ---------------------------------------------------------------------------- */

static int why_set(char *why, size_t n, int err, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	len = strlen(why);
	if (err && len < n)
		snprintf(why + len, n - len, ": %s", strerror(-err));
	return err;
}

/*
 * How long a connect or a send may block (tcm_send sets it from the session's
 * timeout): a listener that stops reading must not hang record, whose ^C only
 * restarts the call (its handlers are SA_RESTART).
 */
static int send_timeout_ms = 10000;

/* A TCP socket whose connect and sends give up after send_timeout_ms. */
static int timed_socket(int family, int type, int proto)
{
	struct timeval tv = {send_timeout_ms / 1000, (send_timeout_ms % 1000) * 1000};
	int fd = socket(family, type | SOCK_CLOEXEC, proto);

	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd < 0 ? -errno : fd;
}

/* connect's errno, a time-out (EINPROGRESS with SO_SNDTIMEO) as ETIMEDOUT. */
static int connect_err(void)
{
	return errno == EINPROGRESS ? -ETIMEDOUT : -errno;
}

/* A TCP connection to host:port, the first address of getaddrinfo's that takes it. */
static int tcp_connect(const char *host, const char *port, char *why, size_t why_len)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *a;
	int fd = -1, err = -ECONNREFUSED, gai = getaddrinfo(host, port, &hints, &res);

	if (gai) {
		err = gai == EAI_SYSTEM ? -errno : -EHOSTUNREACH;
		snprintf(why, why_len, "%s",
			 gai == EAI_SYSTEM ? strerror(-err) : gai_strerror(gai));
		return err;
	}
	for (a = res; a; a = a->ai_next) {
		fd = timed_socket(a->ai_family, a->ai_socktype, a->ai_protocol);
		if (fd < 0) {
			err = fd;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		err = connect_err();
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return why_set(why, why_len, err, "connect");
	return fd;
}

/* Wait until fd can be read; 0, -ETIMEDOUT or -errno. */
static int wait_in(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int n;

	do
		n = poll(&p, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n == 0 ? -ETIMEDOUT : 0;
}

/* Exactly len bytes; -ECONNRESET when the peer closes before. */
static int read_full(int fd, void *buf, size_t len, int timeout_ms)
{
	while (len) {
		ssize_t n;
		int err = wait_in(fd, timeout_ms);

		if (err)
			return err;
		n = read(fd, buf, len);
		if (n == 0)
			return -ECONNRESET; /* the listener went away mid-answer */
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n < 0)
			continue;
		buf = (char *)buf + n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read and drop until the peer closes (0), or timeout_ms without a byte. */
static int wait_closed(int fd, int timeout_ms)
{
	char buf[256];

	for (;;) {
		ssize_t n;
		int err = wait_in(fd, timeout_ms);

		if (err)
			return err;
		n = read(fd, buf, sizeof(buf));
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return errno == ECONNRESET ? 0 : -errno;
	}
}

static int send_all(int fd, const void *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
		p = (const char *)p + n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---- the steps ----------------------------------------------------------------------------- */

/* "tracecmd", then protocol 3 asked for and agreed. */
static int handshake(int fd, int timeout_ms, char *why, size_t why_len)
{
	char buf[8];
	int err = read_full(fd, buf, 8, timeout_ms);

	if (!err && memcmp(buf, TCM_GREETING, 8))
		return why_set(why, why_len, -EPROTO, "not a trace-cmd listener (no greeting)");
	if (!err)
		err = send_all(fd, TCM_V3_ASK, sizeof(TCM_V3_ASK));
	if (!err)
		err = read_full(fd, buf, 3, timeout_ms);
	if (!err && memcmp(buf, "V3", 3))
		return why_set(why, why_len, -EPROTO,
			       "the listener does not speak protocol 3 (trace-cmd 3.x)");
	if (!err)
		err = send_all(fd, TCM_V3_MAGIC, sizeof(TCM_V3_MAGIC));
	if (!err)
		err = read_full(fd, buf, 2, timeout_ms);
	if (!err && memcmp(buf, "OK", 2))
		return why_set(why, why_len, -EPROTO, "the listener refused protocol 3");
	return err ? why_set(why, why_len, err, "handshake") : 0;
}

/* TINIT, and the ports of the RINIT that answers it. */
static int init(int fd, const struct tcm_session *s, unsigned int *ports, char *why, size_t why_len)
{
	unsigned char tinit[TCM_TINIT_LEN], *msg;
	uint32_t size;
	int err;

	tcm_tinit(tinit, s->cpus, s->page_size);
	err = send_all(fd, tinit, sizeof(tinit));
	if (!err)
		err = read_full(fd, tinit, TCM_HDR_LEN, s->timeout_ms);
	if (err)
		return why_set(why, why_len, err, "init");
	size = get_be32(tinit);
	if (size < TCM_HDR_LEN || size > TCM_MAX_LEN)
		return why_set(why, why_len, -EPROTO, "init: a message of %u bytes", size);
	msg = malloc(size);
	if (!msg)
		return why_set(why, why_len, -ENOMEM, "init");
	memcpy(msg, tinit, TCM_HDR_LEN);
	err = read_full(fd, msg + TCM_HDR_LEN, size - TCM_HDR_LEN, s->timeout_ms);
	if (!err)
		err = tcm_rinit_ports(msg, size, s->cpus, ports);
	free(msg);
	if (err == -EPROTO)
		return why_set(why, why_len, err, "init: the listener did not give %u ports",
			       s->cpus);
	return err ? why_set(why, why_len, err, "init") : 0;
}

/* The metadata as SEND_DATA messages, then FIN_DATA. */
static int send_head(int fd, const struct tcm_session *s, char *why, size_t why_len)
{
	unsigned char hdr[TCM_HDR_LEN];
	const char *p = s->head;
	size_t left = s->head_len;
	int err = 0;

	while (left && !err) {
		size_t n = left < TCM_MAX_LEN - TCM_HDR_LEN ? left : TCM_MAX_LEN - TCM_HDR_LEN;

		tcm_header(hdr, (uint32_t)(TCM_HDR_LEN + n), TCM_SEND_DATA, 0);
		err = send_all(fd, hdr, sizeof(hdr));
		if (!err)
			err = send_all(fd, p, n);
		p += n;
		left -= n;
	}
	if (!err) {
		tcm_header(hdr, TCM_HDR_LEN, TCM_FIN_DATA, 0);
		err = send_all(fd, hdr, sizeof(hdr));
	}
	return err ? why_set(why, why_len, err, "sending the metadata") : 0;
}

/*
 * Wait until the listener has read everything up to FIN_DATA.  Its readers may end only
 * after that: a reader that ends sends its parent a SIGCHLD, which the listener has a
 * handler for, and while it still reads the metadata (a poll) that EINTR ends the
 * session.  Once past FIN_DATA it waits for CLOSE with reads that go on after EINTR, and
 * answers any other message with NOT_SUPP: so an empty SEND_DATA is sent, and its
 * NOT_SUPP says the listener is there.
 */
static int sync_listener(int fd, int timeout_ms, char *why, size_t why_len)
{
	unsigned char msg[TCM_HDR_LEN], want[TCM_HDR_LEN];
	int err;

	tcm_header(msg, TCM_HDR_LEN, TCM_SEND_DATA, 0);
	tcm_header(want, TCM_HDR_LEN, TCM_NOT_SUPP, 0);
	err = send_all(fd, msg, sizeof(msg));
	if (!err)
		err = read_full(fd, msg, sizeof(msg), timeout_ms);
	if (!err && memcmp(msg, want, sizeof(msg)))
		err = -EPROTO;
	return err ? why_set(why, why_len, err, "waiting for the listener to take the metadata")
		   : 0;
}

/* The whole pages of in to out. */
static int send_pages(int out, int in, uint32_t page_size, char *buf)
{
	struct stat st;
	unsigned long long left, off = 0;

	if (in < 0)
		return 0;
	if (fstat(in, &st))
		return -errno;
	left = (unsigned long long)st.st_size / page_size * page_size;
	while (left) {
		ssize_t n = pread(in, buf, left < TCM_COPY ? (size_t)left : TCM_COPY, (off_t)off);
		int err;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		err = send_all(out, buf, (size_t)n);
		if (err)
			return err;
		off += (unsigned long long)n;
		left -= (unsigned long long)n;
	}
	return 0;
}

/*
 * A connection to the listener's port at the address the control connection reached,
 * where the listener's readers usually are (a name's other addresses, e.g. ::1 before
 * 127.0.0.1, may be another program's port).  The listener binds each socket to the
 * first address family that takes it, so its readers may be on the other one: then the
 * name's addresses are tried.
 */
static int connect_port(const struct sockaddr_storage *peer, socklen_t len, unsigned int port)
{
	struct sockaddr_storage a = *peer;
	int fd, err;

	if (a.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)&a)->sin_port = htons((uint16_t)port);
	fd = timed_socket(a.ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		return fd;
	if (connect(fd, (struct sockaddr *)&a, len) == 0)
		return fd;
	err = connect_err();
	close(fd);
	return err;
}

/* Each CPU's pages on its own connection, each read to its end by the listener. */
static int send_cpus(int ctl, const struct tcm_session *s, const unsigned int *ports, char *why,
		     size_t why_len)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	char *buf = malloc(TCM_COPY);
	int err = buf ? 0 : -ENOMEM;

	if (!err && getpeername(ctl, (struct sockaddr *)&peer, &plen))
		err = -errno;
	for (uint32_t c = 0; c < s->cpus && !err; c++) {
		char port[16];
		int fd;

		snprintf(port, sizeof(port), "%u", ports[c]);
		fd = connect_port(&peer, plen, ports[c]);
		if (fd < 0)
			fd = tcp_connect(s->host, port, why, why_len);
		if (fd < 0) {
			free(buf);
			return why_set(why, why_len, fd, "CPU %u (port %s): connect", c, port);
		}
		err = send_pages(fd, s->cpu_fd ? s->cpu_fd[c] : -1, s->page_size, buf);
		if (!err && shutdown(fd, SHUT_WR))
			err = -errno;
		if (!err)
			err = wait_closed(fd, s->timeout_ms);
		close(fd);
		if (err) {
			free(buf);
			return why_set(why, why_len, err, "CPU %u (port %s)", c, port);
		}
	}
	free(buf);
	return err ? why_set(why, why_len, err, "CPU data") : 0;
}

int tcm_send(const struct tcm_session *s, char *why, size_t why_len)
{
	unsigned char hdr[TCM_HDR_LEN];
	unsigned int *ports = calloc(s->cpus ? s->cpus : 1, sizeof(*ports));
	int fd, err;

	if (!ports)
		return why_set(why, why_len, -ENOMEM, "ports");
	if (s->timeout_ms > 0)
		send_timeout_ms = s->timeout_ms;
	fd = tcp_connect(s->host, s->port, why, why_len);
	if (fd < 0) {
		free(ports);
		return fd;
	}
	err = handshake(fd, s->timeout_ms, why, why_len);
	if (!err)
		err = init(fd, s, ports, why, why_len);
	if (!err)
		err = send_head(fd, s, why, why_len);
	if (!err)
		err = sync_listener(fd, s->timeout_ms, why, why_len);
	if (!err)
		err = send_cpus(fd, s, ports, why, why_len);
	if (!err) {
		tcm_header(hdr, TCM_HDR_LEN, TCM_CLOSE, 0);
		err = send_all(fd, hdr, sizeof(hdr));
		/* the listener closes its end once the file is whole */
		if (!err)
			err = wait_closed(fd, s->timeout_ms);
		if (err)
			why_set(why, why_len, err, "closing");
	}
	close(fd);
	free(ports);
	return err;
}

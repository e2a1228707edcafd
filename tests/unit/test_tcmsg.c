// SPDX-License-Identifier: MIT
/*
 * test_tcmsg.c - the trace-cmd listen client (cmd/tcmsg.c): the messages byte for byte
 * (big-endian headers; TINIT as trace-cmd 3.1.6's own client sends it for 2 CPUs of 4 KiB
 * pages over TCP), RINIT parsing, and whole sessions against a fake listener in a child
 * process that checks every byte the client sends: the handshake, TINIT, the metadata in
 * SEND_DATA messages of at most 8192 bytes, FIN_DATA, an empty SEND_DATA that waits for
 * the listener's NOT_SUPP, each CPU's whole pages on its own connection, CLOSE.  Then a port
 * nothing listens on and a server that is no listener.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tcmsg.h"

static void test_header(void **state)
{
	unsigned char p[TCM_HDR_LEN];

	tcm_header(p, 0x1c, TCM_TINIT, 12);
	assert_memory_equal(p, "\0\0\0\x1c\0\0\0\x01\0\0\0\x0c", TCM_HDR_LEN);
	tcm_header(p, 0x01020304, TCM_SEND_DATA, 0);
	assert_memory_equal(p, "\x01\x02\x03\x04\0\0\0\x03\0\0\0\0", TCM_HDR_LEN);
}

static const unsigned char tinit_2cpus[] = "\0\0\0\x1c\0\0\0\x01\0\0\0\x0c"
					   "\0\0\0\x02\0\0\x10\0\0\0\0\x01"
					   "tcp";

static void test_tinit(void **state)
{
	unsigned char p[TCM_TINIT_LEN];

	assert_int_equal(TCM_TINIT_LEN, 28);
	tcm_tinit(p, 2, 4096);
	assert_memory_equal(p, tinit_2cpus, sizeof(tinit_2cpus)); /* with the NUL */
}

/* An RINIT for ports, as a listener builds it. */
static size_t rinit(unsigned char *p, uint32_t cpus, const char *const *ports)
{
	size_t len = TCM_HDR_LEN + 4;

	for (uint32_t c = 0; c < cpus; c++) {
		strcpy((char *)p + len, ports[c]);
		len += strlen(ports[c]) + 1;
	}
	tcm_header(p, (uint32_t)len, TCM_RINIT, 4);
	p[12] = p[13] = p[14] = 0;
	p[15] = (unsigned char)cpus;
	return len;
}

static void test_rinit(void **state)
{
	static const unsigned char wire[] = "\0\0\0\x1a\0\0\0\x02\0\0\0\x04\0\0\0\x02"
					    "1500\0"
					    "1501";
	unsigned char p[128];
	unsigned int ports[2];
	size_t len;

	assert_int_equal(tcm_rinit_ports(wire, sizeof(wire), 2, ports), 0);
	assert_int_equal(ports[0], 1500);
	assert_int_equal(ports[1], 1501);
	/* not for this many CPUs, not an RINIT, a size that is not the message's */
	assert_int_equal(tcm_rinit_ports(wire, sizeof(wire), 3, ports), -EPROTO);
	memcpy(p, wire, sizeof(wire));
	p[7] = TCM_TINIT;
	assert_int_equal(tcm_rinit_ports(p, sizeof(wire), 2, ports), -EPROTO);
	assert_int_equal(tcm_rinit_ports(wire, sizeof(wire) - 1, 2, ports), -EPROTO);
	/* ports that are none */
	len = rinit(p, 2, (const char *const[]){"1500", "0"});
	assert_int_equal(tcm_rinit_ports(p, len, 2, ports), -EPROTO);
	len = rinit(p, 2, (const char *const[]){"1500", "70000"});
	assert_int_equal(tcm_rinit_ports(p, len, 2, ports), -EPROTO);
	len = rinit(p, 2, (const char *const[]){"15x0", "1501"});
	assert_int_equal(tcm_rinit_ports(p, len, 2, ports), -EPROTO);
	len = rinit(p, 1, (const char *const[]){"65535"});
	assert_int_equal(tcm_rinit_ports(p, len, 1, ports), 0);
	assert_int_equal(ports[0], 65535);
}

/* ---- a fake listener -------------------------------------------------------------------- */

#define HEAD_LEN 10000 /* two SEND_DATA messages: 8180 and 1820 bytes */
#define PAGES0 2

static unsigned char head[HEAD_LEN];

/* A TCP socket listening on 127.0.0.1, its port in *port. */
/* A TCP socket listening on the loopback address of family (AF_INET, AF_INET6), its port
 * in *port; -1 when the family cannot be had here. */
static int listener_on(int family, unsigned int *port)
{
	struct sockaddr_storage a = {0};
	struct sockaddr_in *a4 = (struct sockaddr_in *)&a;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&a;
	socklen_t len = family == AF_INET6 ? sizeof(*a6) : sizeof(*a4);
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.ss_family = (sa_family_t)family;
	if (family == AF_INET6)
		a6->sin6_addr = in6addr_loopback;
	else
		a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, len)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(family == AF_INET6 ? a6->sin6_port : a4->sin_port);
	return fd;
}

/* A TCP socket listening on 127.0.0.1, its port in *port. */
static int listener(unsigned int *port)
{
	int fd = listener_on(AF_INET, port);

	assert_true(fd >= 0);
	return fd;
}

static bool get(int fd, void *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n <= 0)
			return false;
		buf = (char *)buf + n;
		len -= (size_t)n;
	}
	return true;
}

/* read len bytes and compare them with want */
static bool expect(int fd, const void *want, size_t len)
{
	unsigned char buf[64];

	return len <= sizeof(buf) && get(fd, buf, len) && memcmp(buf, want, len) == 0;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * The listener's side of a session for 2 CPUs: the exit status is the number of the
 * first step that went wrong, 0 when every byte was as it should be.
 */
static int fake_session(int lfd, int cpu_lfd[2], const unsigned int cpu_port[2])
{
	unsigned char buf[TCM_MAX_LEN], *got = malloc(HEAD_LEN + TCM_MAX_LEN);
	size_t have = 0, msgs = 0;
	char ports[2][8];
	const char *pp[2] = {ports[0], ports[1]};
	int fd = accept(lfd, NULL, NULL);
	size_t len;

	if (fd < 0 || !got || write(fd, "tracecmd", 8) != 8)
		return 1;
	if (!expect(fd, "-1V3", 5) || write(fd, "V3", 3) != 3)
		return 2;
	if (!expect(fd, "766679", 7) || write(fd, "OK", 2) != 2)
		return 3;
	if (!expect(fd, tinit_2cpus, sizeof(tinit_2cpus)))
		return 4;
	snprintf(ports[0], sizeof(ports[0]), "%u", cpu_port[0]);
	snprintf(ports[1], sizeof(ports[1]), "%u", cpu_port[1]);
	len = rinit(buf, 2, pp);
	if (write(fd, buf, len) != (ssize_t)len)
		return 5;
	for (;;) { /* SEND_DATA until FIN_DATA */
		uint32_t size;

		if (!get(fd, buf, TCM_HDR_LEN))
			return 6;
		size = be32(buf);
		if (be32(buf + 4) == TCM_FIN_DATA && size == TCM_HDR_LEN && be32(buf + 8) == 0)
			break;
		if (be32(buf + 4) != TCM_SEND_DATA || be32(buf + 8) != 0 || size > TCM_MAX_LEN ||
		    size <= TCM_HDR_LEN || have + size - TCM_HDR_LEN > HEAD_LEN ||
		    !get(fd, got + have, size - TCM_HDR_LEN))
			return 7;
		have += size - TCM_HDR_LEN;
		msgs++;
	}
	if (have != HEAD_LEN || memcmp(got, head, HEAD_LEN) || msgs != 2)
		return 8;
	/* the client waits for an answer to an empty SEND_DATA before any CPU ends */
	if (!expect(fd, "\0\0\0\x0c\0\0\0\x03\0\0\0\0", TCM_HDR_LEN))
		return 12;
	if (write(fd, "\0\0\0\x0c\0\0\0\x05\0\0\0\0", TCM_HDR_LEN) != TCM_HDR_LEN)
		return 13;
	for (int c = 0; c < 2; c++) { /* each CPU's whole pages, then the client's EOF */
		int cfd = accept(cpu_lfd[c], NULL, NULL);
		size_t total = 0;
		ssize_t n;

		while (cfd >= 0 && (n = read(cfd, buf, sizeof(buf))) > 0) {
			for (ssize_t i = 0; i < n; i++)
				if (buf[i] != (unsigned char)((total + (size_t)i) / 4096 + 1))
					return 9;
			total += (size_t)n;
		}
		if (cfd < 0 || total != (c == 0 ? PAGES0 * 4096u : 0))
			return 10;
		close(cfd);
	}
	if (!expect(fd, "\0\0\0\x0c\0\0\0\0\0\0\0\0", TCM_HDR_LEN))
		return 11;
	close(fd);
	return 0;
}

/* A whole session with the fake listener on family's loopback, reached as host. */
static void session(const char *host, int family)
{
	unsigned int port, cpu_port[2];
	int lfd = listener_on(family, &port), pagefd, status, cpu_lfd[2];
	unsigned char page[4096];
	char portstr[16], why[256] = "";
	pid_t pid;

	if (lfd < 0) {
		skip(); /* no such address here (IPv6 off) */
		return;
	}
	cpu_lfd[0] = listener_on(family, &cpu_port[0]);
	cpu_lfd[1] = listener_on(family, &cpu_port[1]);
	assert_true(cpu_lfd[0] >= 0 && cpu_lfd[1] >= 0);
	pagefd = memfd_create("pages", 0);
	for (size_t i = 0; i < HEAD_LEN; i++)
		head[i] = (unsigned char)(i * 7);
	/* CPU 0: two pages and a piece of a third, which is not sent; CPU 1: no file */
	for (int p = 0; p < PAGES0; p++) {
		memset(page, p + 1, sizeof(page));
		assert_int_equal(write(pagefd, page, sizeof(page)), sizeof(page));
	}
	assert_int_equal(write(pagefd, page, 100), 100);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fake_session(lfd, cpu_lfd, cpu_port));
	close(lfd);
	close(cpu_lfd[0]);
	close(cpu_lfd[1]);
	snprintf(portstr, sizeof(portstr), "%u", port);
	struct tcm_session s = {.host = host,
				.port = portstr,
				.head = head,
				.head_len = HEAD_LEN,
				.cpus = 2,
				.page_size = 4096,
				.cpu_fd = (const int[]){pagefd, -1},
				.timeout_ms = 30000};
	assert_int_equal(tcm_send(&s, why, sizeof(why)), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0); /* else: the step that was wrong */
	close(pagefd);
}

/* A name (whose first address may be ::1 while the listener is on 127.0.0.1), an IPv4
 * address, an IPv6 address. */
static void test_session(void **state)
{
	session("localhost", AF_INET);
}

static void test_session_ipv4(void **state)
{
	session("127.0.0.1", AF_INET);
}

static void test_session_ipv6(void **state)
{
	session("::1", AF_INET6);
}

static void test_refused(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	char port[16], why[256];

	/* bound, not listening: the port is ours and nothing answers on it */
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	snprintf(port, sizeof(port), "%u", ntohs(a.sin_port));
	struct tcm_session s = {
	    .host = "127.0.0.1", .port = port, .cpus = 1, .page_size = 4096, .timeout_ms = 30000};
	assert_int_equal(tcm_send(&s, why, sizeof(why)), -ECONNREFUSED);
	assert_string_equal(why, "connect: Connection refused");
	close(fd);
}

static void test_not_a_listener(void **state)
{
	unsigned int port;
	int lfd = listener(&port), status;
	char portstr[16], why[256];
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = accept(lfd, NULL, NULL);
		char buf[64];

		_exit(fd < 0 || write(fd, "SSH-2.0-", 8) != 8 || read(fd, buf, sizeof(buf)) < 0);
	}
	close(lfd);
	snprintf(portstr, sizeof(portstr), "%u", port);
	struct tcm_session s = {.host = "localhost",
				.port = portstr,
				.cpus = 1,
				.page_size = 4096,
				.timeout_ms = 30000};
	assert_int_equal(tcm_send(&s, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "not a trace-cmd listener"));
	assert_int_equal(waitpid(pid, &status, 0), pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_header),	 cmocka_unit_test(test_tinit),
	    cmocka_unit_test(test_rinit),	 cmocka_unit_test(test_session),
	    cmocka_unit_test(test_session_ipv4), cmocka_unit_test(test_session_ipv6),
	    cmocka_unit_test(test_refused),	 cmocka_unit_test(test_not_a_listener),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * tcmsg.h - the client side of the protocol a `trace-cmd listen` server speaks (version
 * 3, trace-cmd 3.x), for `utrace record -N HOST:PORT`.
 *
 * A session, as the listener expects it:
 *   1. TCP connect; the listener says "tracecmd" (8 bytes).
 *   2. The client says "-1V3\0" (no CPU count: protocol 3 asked for); the listener says
 *      "V3\0".  The client says "766679\0" (version 3's magic); the listener says "OK".
 *   3. Messages from then on: a header of three big-endian u32 (the message's whole
 *      size, the command, the size of the command's fixed part), the fixed part, then
 *      the data.  A listener takes at most TCM_MAX_LEN bytes per message.
 *        TINIT     (1) fixed part {cpus, page size, number of options}, then the
 *                      options as NUL-terminated words: "tcp" asks for the CPU data
 *                      over TCP (else one UDP datagram a page);
 *        RINIT     (2) the answer: fixed part {cpus}, then one port per CPU in decimal,
 *                      each NUL-terminated: the listener waits for CPU i's data there;
 *        SEND_DATA (3) no fixed part, data: the next bytes of the file's metadata;
 *        FIN_DATA  (4) the metadata is complete;
 *        NOT_SUPP  (5) the listener's answer to a message it did not expect;
 *        CLOSE     (0) the CPU data is complete: the listener puts the file together.
 *   4. After FIN_DATA, an empty SEND_DATA, which the listener answers with NOT_SUPP: it
 *      has read the metadata (see sync_listener in tcmsg.c for why that matters).
 *   5. Each CPU's raw pages on a TCP connection of its own, to its port, closed at the
 *      end; the listener appends them to the file in CPU order.
 * The listener writes the file as HOST:PORT of the client's control connection.
 */
#ifndef UT_TCMSG_H
#define UT_TCMSG_H

#include <stddef.h>
#include <stdint.h>

#define TCM_HDR_LEN 12
#define TCM_MAX_LEN 8192		     /* the largest message a listener reads */
#define TCM_TINIT_LEN (TCM_HDR_LEN + 12 + 4) /* with the "tcp" option */

enum tcm_cmd {
	TCM_CLOSE = 0,
	TCM_TINIT = 1,
	TCM_RINIT = 2,
	TCM_SEND_DATA = 3,
	TCM_FIN_DATA = 4,
	TCM_NOT_SUPP = 5,
};

/* A message header at p: its whole size, the command, the size of its fixed part. */
void tcm_header(unsigned char p[TCM_HDR_LEN], uint32_t size, uint32_t cmd, uint32_t fixed);

/* The TINIT message for cpus CPUs of page_size pages, asking for TCP. */
void tcm_tinit(unsigned char p[TCM_TINIT_LEN], uint32_t cpus, uint32_t page_size);

/*
 * An RINIT message (msg, len bytes, header included) into ports[cpus].  0, or -EPROTO when
 * it is not an RINIT for cpus CPUs with as many ports (each 1..65535).
 */
int tcm_rinit_ports(const unsigned char *msg, size_t len, uint32_t cpus, unsigned int *ports);

/* What to send and where. */
struct tcm_session {
	const char *host, *port;
	const void *head; /* the file's metadata (td_listener_head) */
	size_t head_len;
	uint32_t cpus, page_size;
	const int *cpu_fd; /* [cpus]: CPU i's page files, read from offset 0; whole pages are
			      sent; -1: none */
	int timeout_ms;	   /* the longest wait for the listener's answers */
};

/*
 * Run a whole session: connect (any address getaddrinfo gives for host, IPv4 or IPv6),
 * handshake, TINIT/RINIT, the metadata, each CPU's pages, CLOSE; then wait (timeout_ms at
 * most) for the listener to close the connection, which it does once the file is put
 * together.  0 or -errno; on failure why (size why_len) says which step failed, e.g.
 * "connect: Connection refused" or "not a trace-cmd listener".
 */
int tcm_send(const struct tcm_session *s, char *why, size_t why_len);

#endif

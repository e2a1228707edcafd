// SPDX-License-Identifier: MIT
/*
 * fuzz_wire.c - the wire protocol handler of the registry (registry.c, ut_wire.h):
 * the packets a traced process sends on one connection (HELLO, ACK, TASK, MAPS,
 * TRACING, SITES, PROBE, EVENT, THREAD), as the registry thread handles them, and
 * what they reach: saved_cmdlines, the function table, the selection memfd,
 * symbols, the trace event definitions (event_defs.c), the pid lists' fork hook.
 *
 * Input: packets, each a 2-byte length (little endian) then its bytes.  The
 * connection is process FUZZ_PID's (HELLO must claim it); the other end of a
 * socketpair receives WELCOME.  A packet the registry refuses ends the connection,
 * as it does in the daemon.
 */
#include <sys/socket.h>
#include <unistd.h>

#include "event_defs.h"
#include "fuzz.h"
#include "ut_wire.h"

#define FUZZ_PID 4194000 /* no such process: its /proc files are missing, as a gone one's */
/* the registry's receive buffer: a longer packet arrives truncated and is refused */
#define PKT_MAX (sizeof(struct ut_msg_sites) + UT_SITES_PER_MSG * sizeof(uint32_t))

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_daemon_init();
	tfs_sel_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static union {
		char buf[65536];
		uint64_t align;
	} pkt;
	int sv[2];
	bool open = true;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		abort();
	if (tfs_registry_adopt(sv[0], FUZZ_PID))
		abort();
	for (size_t off = 0; open && off + 2 <= size;) {
		size_t n = (size_t)data[off] | (size_t)data[off + 1] << 8;

		off += 2;
		if (n > size - off)
			n = size - off;
		memcpy(pkt.buf, data + off, n); /* aligned, as recvmsg's buffer */
		off += n;
		if (n > PKT_MAX)
			break; /* MSG_TRUNC: the connection ends */
		open = tfs_registry_packet(sv[0], pkt.buf, n) >= 0;
	}
	if (open)
		tfs_registry_drop(sv[0]);
	close(sv[1]);
	tfs_ft_reset();
	tfs_task_clear();
	tfs_event_defs_reset();
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * stackwalk.c - stack traces that cannot crash the traced program.
 *
 * libgcc's unwinder (behind backtrace() and _Unwind_Backtrace) is not
 * async-signal-safe: a signal handler that interrupts it (a C++ exception in
 * flight: _Unwind_RaiseException, _Unwind_Resume) and unwinds again re-enters
 * its FDE lookup, whose cache is updated in place, and may read a half-written
 * entry; interrupting the dynamic loader (dlopen) is no better.  So a stack trace
 * taken inside a signal handler (ut_thr.sigdepth: a wrapped handler runs) walks
 * the frame-pointer chain instead, and every word it reads is read with
 * process_vm_readv() on this very process, which fails with EFAULT where a load
 * would fault.  The walk stops (a truncated trace) at the first frame that does
 * not look like one:
 *   - the frame pointer is not 8-aligned, or not above the previous one (stacks
 *     grow down; a signal frame on another stack, sigaltstack, ends the walk), or
 *     more than UT_WALK_SPAN above it;
 *   - the word cannot be read, or the return address is not preceded by a call
 *     instruction (code built without frame pointers leaves some other value in
 *     rbp: its "frames" are not followed).
 * Frames built without frame pointers are therefore missing (the trace ends, or
 * skips from the interrupted code's caller to the next function with one); frames
 * built with them are exact.  function_graph's landings are translated back to the
 * original return addresses with the thread's shadow stack (graph.c), read only.
 *
 * Outside signal handlers the runtime keeps using backtrace() (api.c), which reads
 * the unwind tables (exact with or without frame pointers).
 */
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "rt.h"

#define UT_WALK_SPAN (1ul << 20) /* a frame larger than 1 MiB ends the walk */

/* Copy len bytes at addr into buf without faulting: 0, or -1 (not readable). */
static int safe_read(pid_t pid, uintptr_t addr, void *buf, size_t len)
{
	struct iovec local = {buf, len}, remote = {(void *)addr, len};

	return syscall(SYS_process_vm_readv, pid, &local, 1ul, &remote, 1ul, 0ul) == (long)len
		       ? 0
		       : -1;
}

/*
 * Is the instruction before ip a call (the ones compilers emit: e8 rel32,
 * ff /2 with or without a REX prefix, register, disp8, disp32 or SIB forms)?
 */
static int after_call(pid_t pid, uintptr_t ip)
{
	uint8_t b[8];

	if (ip < 4096 + 8 || safe_read(pid, ip - 8, b, sizeof(b)))
		return 0;
	if (b[3] == 0xe8) /* call rel32 */
		return 1;
	for (int len = 2; len <= 7; len++) { /* ff /2: the opcode len bytes before ip */
		if (b[8 - len] == 0xff && (b[9 - len] & 0x38) == 0x10)
			return 1;
	}
	return 0;
}

int ut_stack_walk_fp(uint64_t *ips, int max, uintptr_t fp, uintptr_t sp)
{
	pid_t pid = (pid_t)syscall(SYS_getpid);
	uintptr_t prev = sp, w[2];
	int n = 0;

	while (n < max) {
		if ((fp & 7) || fp <= prev || fp - prev > UT_WALK_SPAN)
			break;
		if (safe_read(pid, fp, w, sizeof(w)))
			break;
		uintptr_t ip = ut_graph_real_ret(fp + 8, w[1]);

		if (!after_call(pid, ip))
			break;
		ips[n++] = ip;
		prev = fp;
		fp = w[0];
	}
	return n;
}

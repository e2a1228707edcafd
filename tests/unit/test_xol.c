// SPDX-License-Identifier: MIT
/*
 * test_xol.c - probes at any instruction (runtime/xol.c, arch/x86_64/xol.S) in a
 * live program, tests/progs/xol_prog, each case run twice: as it comes (probes
 * reach JMP mode where that is safe) and under UTRACE_TEST_XOL=trap (every probe
 * stays an int3).
 *
 *  - regs: the handler sees every register as set from assembly just before the
 *    probed instruction, the program's rsp, rip = the probe, the carry flag; the
 *    flags survive (the function's result uses them); backtrace() from the
 *    handler walks through the trampoline into the probed function and its caller;
 *  - call: an instruction followed by a call, displaced together: the callee sees
 *    the original return address;
 *  - simple: a RIP-relative load, a conditional branch (both ways), a loop head,
 *    the instruction before a loop head (a branch target inside: the window takes
 *    the loop's branch in), a function with a jump table (stays TRAP), a syscall in
 *    the window (stays TRAP), the `if (semaphore) STAP_PROBE()` shape (a window
 *    that starts at the je, taken or not), a je from too far before into the
 *    probe's next instruction (no window: TRAP), the first instruction of C
 *    functions built with and without -fpatchable-function-entry; results
 *    unchanged, exact hit counts, a SIGTRAP per hit in TRAP mode and none in JMP
 *    mode, the original bytes back after disarm;
 *  - api: no bounds -> TRAP, -EEXIST, -EBUSY inside another probe's displaced
 *    bytes, -EINVAL on someone's int3, arming again after ut_xol_forget;
 *  - threads: 200 arm/disarm cycles while two threads call the function in a loop
 *    (results stay right), then exact hit counts over 2 million calls; for a
 *    window at the probe and one that starts before it;
 *  - blocked: a thread that blocks SIGTRAP never answers: the probe stays TRAP;
 *  - sdt: a semaphore-guarded STAP_PROBE3 in a loop, as gcc -O2 builds it, found
 *    by its note: JMP mode, no SIGTRAP, every hit with its three arguments right;
 *    with the semaphore at 0, no hit and the loop's result unchanged;
 *  - fast: a probe with a fast fn that changes every general register the C ABI
 *    lets it: all sixteen general registers, xmm0-15 and the flags as they were,
 *    the fast fn called each hit, fn only when it answers 1 (the registers right).
 */
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static char prog[PATH_MAX + 32];

/* Run xol_prog CASE (trap: under UTRACE_TEST_XOL=trap); its exit status. */
static int run_case(const char *name, int trap)
{
	char cmd[PATH_MAX + 256], line[512];
	FILE *f;
	int st;

	/* a mount path with no daemon: the runtime stays dormant whatever runs nearby */
	snprintf(cmd, sizeof(cmd),
		 "env %s UTRACE_TRACING=/nonexistent/utrace-test-xol '%s' %s 2>&1",
		 trap ? "UTRACE_TEST_XOL=trap" : "-u UTRACE_TEST_XOL", prog, name);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "%s%s", trap ? "[trap] " : "", line);
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#define CASE(name)                                                                                 \
	static void test_##name(void **state)                                                      \
	{                                                                                          \
		assert_int_equal(run_case(#name, 0), 0);                                           \
		assert_int_equal(run_case(#name, 1), 0);                                           \
	}

CASE(regs)
CASE(call)
CASE(simple)
CASE(api)
CASE(threads)
CASE(blocked)
CASE(sdt)
CASE(fast)

int main(void)
{
	char self[PATH_MAX] = {0};
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_regs),    cmocka_unit_test(test_call),
	    cmocka_unit_test(test_simple),  cmocka_unit_test(test_api),
	    cmocka_unit_test(test_threads), cmocka_unit_test(test_blocked),
	    cmocka_unit_test(test_sdt),	    cmocka_unit_test(test_fast),
	};

	/* this binary is BUILD/tests/test_xol, the program BUILD/tests/progs/xol_prog */
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0)
		return 1;
	snprintf(prog, sizeof(prog), "%s/progs/xol_prog", dirname(self));
	return cmocka_run_group_tests(tests, NULL, NULL);
}

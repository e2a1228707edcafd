// SPDX-License-Identifier: MIT
/*
 * test_xol_window.c - the choice of a probe's patch window (runtime/xol_window.c)
 * on machine code given as bytes: the window a probe at a known instruction gets,
 * or that it gets none.
 *
 *  - straight code: the shortest window at the probe;
 *  - `if (semaphore) STAP_PROBE()` in a loop: the je that skips the nop lands
 *    right after it, so the window starts at the je (its branch moves with it);
 *  - a je from further back than a window may start lands right after the probe:
 *    none;
 *  - the instruction before a loop head: the window grows to take the loop's
 *    branch in;
 *  - an indirect jmp in the function, a syscall in every window, a call that a
 *    branch forces into the window's middle: none;
 *  - busy() (patch sites, other probes): a window around them, or none; an
 *    earlier start of one byte is refused (rip = start + 1 would be ambiguous),
 *    one of two bytes taken;
 *  - ut_xol_window_ok() on a chosen window and on one a branch lands inside.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../runtime/arch/x86_64/insn.c"
#include "../../runtime/xol_window.c"

#define BASE 0x400000u

struct code {
	const uint8_t *bytes;
	size_t len;
	uintptr_t busy_lo, busy_hi; /* offsets; busy_hi 0: nothing is busy */
};

static void code_read(uintptr_t a, uint8_t *buf, size_t n, void *arg)
{
	const struct code *c = arg;

	assert_true(a >= BASE && a + n <= BASE + c->len);
	memcpy(buf, c->bytes + (a - BASE), n);
}

static int code_busy(uintptr_t a, uintptr_t b, void *arg)
{
	const struct code *c = arg;

	return c->busy_hi && a < BASE + c->busy_hi && BASE + c->busy_lo < b;
}

static struct ut_xol_code as_code(struct code *c)
{
	return (struct ut_xol_code){BASE, BASE + c->len, code_read, code_busy, c};
}

/* The window of a probe at offset at, as offsets "start end", or "none". */
static const char *window(struct code *c, unsigned int at)
{
	static char out[32];
	struct ut_xol_code xc = as_code(c);
	uintptr_t s, e;

	if (ut_xol_window(&xc, BASE + at, &s, &e))
		return "none";
	snprintf(out, sizeof(out), "%u %u", (unsigned int)(s - BASE), (unsigned int)(e - BASE));
	return out;
}

#define CODE(name, ...)                                                                            \
	static const uint8_t name##_bytes[] = {__VA_ARGS__};                                       \
	static struct code name = {name##_bytes, sizeof(name##_bytes), 0, 0}

/* nop (the probe); add $1, %rax; ret */
CODE(straight, 0x90, 0x48, 0x83, 0xc0, 0x01, 0xc3);

/*
 * 0 xor %eax,%eax; 2 xor %ecx,%ecx; 4 test %esi,%esi; 6 je 9; 8 nop (the probe);
 * 9 add $1,%rax; 13 add $1,%rcx; 17 cmp %rcx,%rdi; 20 jne 4; 22 ret
 */
CODE(sdt, 0x31, 0xc0, 0x31, 0xc9, 0x85, 0xf6, 0x74, 0x01, 0x90, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x83,
     0xc1, 0x01, 0x48, 0x39, 0xcf, 0x75, 0xee, 0xc3);

/* 0 xor %eax,%eax; 2 test %rdi,%rdi; 5 je 13; 7 mov $5,%eax; 12 nop (the probe); 13 add; 17 ret */
CODE(mid, 0x31, 0xc0, 0x48, 0x85, 0xff, 0x74, 0x06, 0xb8, 0x05, 0x00, 0x00, 0x00, 0x90, 0x48, 0x83,
     0xc0, 0x01, 0xc3);

/* 0 xor %eax,%eax; 2 mov %rdi,%rcx (the probe); 5 add %rcx,%rax; 8 sub $1,%rcx; 12 jnz 5; 14 ret */
CODE(loop, 0x31, 0xc0, 0x48, 0x89, 0xf9, 0x48, 0x01, 0xc8, 0x48, 0x83, 0xe9, 0x01, 0x75, 0xf7,
     0xc3);

/* nop (the probe); add $1,%rax; jmp *%rax; ret */
CODE(indirect, 0x90, 0x48, 0x83, 0xc0, 0x01, 0xff, 0xe0, 0xc3);

/* nop (the probe); syscall; add $1,%rax; ret */
CODE(sys, 0x90, 0x0f, 0x05, 0x48, 0x83, 0xc0, 0x01, 0xc3);

/* 0 nop (the probe); 1 call 6; 6 nop; 7 jne 1; 9 ret */
CODE(callmid, 0x90, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x90, 0x75, 0xf8, 0xc3);

/* 0 pop %rbx; 1 nop (the probe); 2 add %rcx,%rax; 5 add $1,%rax; 9 ret */
CODE(pop1, 0x5b, 0x90, 0x48, 0x01, 0xc8, 0x48, 0x83, 0xc0, 0x01, 0xc3);

/* 0 xor %eax,%eax; 2 nop (the probe); 3 add %rcx,%rax; 6 add $1,%rax; 10 ret */
CODE(xor2, 0x31, 0xc0, 0x90, 0x48, 0x01, 0xc8, 0x48, 0x83, 0xc0, 0x01, 0xc3);

/* Probes at instructions of the code above: the window each gets. */
static void test_windows(void **state)
{
	static const struct {
		struct code *c;
		unsigned int at;
		const char *want, *why;
	} cases[] = {
	    {&straight, 0, "0 5", "straight code: the shortest window at the probe"},
	    {&sdt, 8, "6 13", "the je skipping the nop lands inside: start at the je"},
	    {&sdt, 13, "13 20", "no branch lands in front of it: start at the probe"},
	    {&mid, 12, "none", "a je from too far before lands right after the probe"},
	    {&mid, 5, "5 12", "the je itself: its target is past the window"},
	    {&loop, 2, "2 14", "before a loop head: the loop's branch is taken in"},
	    {&loop, 5, "5 12", "the loop head: the branch to it comes to the start"},
	    {&indirect, 0, "none", "an indirect jmp in the function"},
	    {&sys, 0, "none", "a syscall in every window"},
	    {&callmid, 0, "none", "a branch forces the call into the window's middle"},
	    {&straight, 2, "none", "not an instruction boundary"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = window(cases[i].c, cases[i].at);

		if (strcmp(got, cases[i].want))
			fail_msg("%s: window %s, want %s", cases[i].why, got, cases[i].want);
	}
}

static void test_busy(void **state)
{
	struct code c = straight;

	c.busy_lo = 2, c.busy_hi = 3;
	assert_string_equal(window(&c, 0), "none");
	c.busy_lo = 5, c.busy_hi = 6;
	assert_string_equal(window(&c, 0), "0 5");
	/* only an earlier start avoids the busy byte: of 1 byte refused, of 2 taken */
	c = pop1;
	assert_string_equal(window(&c, 1), "1 9");
	c.busy_lo = 5, c.busy_hi = 6;
	assert_string_equal(window(&c, 1), "none");
	c = xor2;
	c.busy_lo = 6, c.busy_hi = 7;
	assert_string_equal(window(&c, 2), "0 6");
}

static void test_window_ok(void **state)
{
	struct ut_xol_code xc = as_code(&sdt);

	assert_int_equal(ut_xol_window_ok(&xc, BASE + 8, BASE + 6, BASE + 13), 1);
	assert_int_equal(ut_xol_window_ok(&xc, BASE + 8, BASE + 8, BASE + 13), 0);
	/* the window must hold the probe, and span 5 bytes at least */
	assert_int_equal(ut_xol_window_ok(&xc, BASE + 8, BASE + 9, BASE + 17), 0);
	assert_int_equal(ut_xol_window_ok(&xc, BASE + 13, BASE + 13, BASE + 20), 1);
	assert_int_equal(ut_xol_window_ok(&xc, BASE + 13, BASE + 13, BASE + 17), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_windows),
	    cmocka_unit_test(test_busy),
	    cmocka_unit_test(test_window_ok),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

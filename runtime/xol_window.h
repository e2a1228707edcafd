/* SPDX-License-Identifier: MIT */
/*
 * xol_window.h - where a probe's 5-byte jmp may go (xol_window.c, for xol.c).
 *
 * A probe at addr in JMP mode overwrites a window [start, end) of whole
 * instructions, start <= addr < end, end - start >= 5, with a jmp to its slot,
 * which runs copies of [start, addr), the probe, and [addr, end).  The window may
 * start up to UT_XOL_PRE_MAX bytes before addr, so that the jmp always covers
 * addr (the int3 of TRAP mode goes under it), and spans at most UT_XOL_WIN_MAX.
 *
 * Pure: it reads code only through the callbacks, so unit tests run it on bytes.
 */
#ifndef UT_XOL_WINDOW_H
#define UT_XOL_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#define UT_XOL_PRE_MAX 4u  /* bytes of a window before its probe */
#define UT_XOL_WIN_MAX 32u /* bytes a window spans at most */

struct ut_xol_code {
	uintptr_t lo, hi; /* the function around the probe */
	/* n bytes of code at a as they were before any probe */
	void (*read)(uintptr_t a, uint8_t *buf, size_t n, void *arg);
	/* does [a, b) overlap a function's patch site or another probe's window? */
	int (*busy)(uintptr_t a, uintptr_t b, void *arg);
	void *arg;
};

/*
 * Choose the window of a probe at addr: 0 and [*start, *end), or -1 when the
 * function does not decode linearly, has an indirect jmp, or no window is safe.
 * Safe: no direct branch from outside the window lands strictly inside it (one
 * from inside is moved with it), it holds no int3, xbegin, syscall-like
 * instruction, nor a call but as its last one (the return would come back
 * inside), an earlier start is an instruction of 2 bytes or more, and busy()
 * says no.  Windows starting at addr come first (shortest first), then earlier
 * starts, nearest first.
 */
int ut_xol_window(const struct ut_xol_code *c, uintptr_t addr, uintptr_t *start, uintptr_t *end);

/* Is [start, end) still a safe window for addr (the same rules)?  1 or 0. */
int ut_xol_window_ok(const struct ut_xol_code *c, uintptr_t addr, uintptr_t start, uintptr_t end);

#endif

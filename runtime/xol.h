/* SPDX-License-Identifier: MIT */
/*
 * xol.h - probes at any instruction of a loaded object, run "out of line" (xol.c).
 */
#ifndef UT_XOL_H
#define UT_XOL_H

#include <stdint.h>

/* a probe at any instruction of a loaded object */
struct ut_xol_regs { /* the registers as they are just before the probed instruction runs */
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp, r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rip, flags; /* rip: the probed address; rsp: the program's own */
};
typedef void (*ut_xol_fn)(void *ctx, const struct ut_xol_regs *regs);
/*
 * A probe's fast path, tried before fn: it runs without the vector and x87 state
 * saved, so it and all it calls must be built not to touch them
 * (-mgeneral-regs-only, no libc) and make no system call.  0: the hit is done;
 * non-zero: nothing was done, call fn (with the whole state saved).
 */
typedef int (*ut_xol_fast)(void *ctx, const struct ut_xol_regs *regs);
struct ut_xol;
enum ut_xol_mode { UT_XOL_OFF, UT_XOL_TRAP, UT_XOL_JMP };

/* Arm a probe at addr, an instruction boundary inside the function [lo, hi)
 * (lo = hi = 0: bounds unknown).  fn(ctx, regs) then runs in every thread that
 * reaches addr, before the instruction there, possibly in signal context, so it
 * must be async-signal-safe; ctx must stay valid while the object is mapped.
 * fast (NULL: none) is tried first, fn only when it answers non-zero.
 * 0 and *out, or -errno: -EINVAL (addr not an instruction the decoder knows),
 * -EEXIST (already armed), -ENOMEM.  Not from a signal handler; ut_rt_lock held. */
int ut_xol_arm(uintptr_t addr, uintptr_t lo, uintptr_t hi, ut_xol_fn fn, ut_xol_fast fast,
               void *ctx, struct ut_xol **out);
/* Put the original bytes back; fn may still run in threads already past addr. */
int ut_xol_disarm(struct ut_xol *x);
/* The object [lo, hi) was unmapped (dlclose): forget its probes, write nothing. */
void ut_xol_forget(uintptr_t lo, uintptr_t hi);
/* How x is armed now (tests and bench): off, int3 trap, or jmp to a trampoline. */
enum ut_xol_mode ut_xol_mode(const struct ut_xol *x);
/* How many times an int3 of a probe sent a thread to its slot, all probes (tests). */
unsigned long ut_xol_traps(void);

#endif

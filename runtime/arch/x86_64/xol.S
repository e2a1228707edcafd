/* SPDX-License-Identifier: MIT */
/*
 * xol.S - ut_xol_entry: the body every probe at an arbitrary instruction goes
 * through (xol.c), and the per-site code that leads to it.
 *
 * A probed address addr either holds int3 (TRAP mode: the SIGTRAP handler sets
 * rip to the probe's entry in the site's slot) or lies under a jmp to the slot
 * (JMP mode; the jmp may start a few bytes earlier, and the slot then first runs
 * copies of those instructions).  Either way the probe's entry runs with every
 * register as it was before addr's instruction, and the program's rsp.  A slot,
 * written by xol.c near the object (jmp rel32 reaches it), is:
 *
 *   (copies of the window's instructions before addr, relocated)
 *   lea -128(%rsp), %rsp     the probe's entry; leave the red zone alone: addr
 *                            may be in a leaf
 *   pushq site(%rip)         the struct ut_xol
 *   pushq addr(%rip)         rip as the program would have it
 *   call *entry(%rip)        here; its return address is the copy right after
 *   (copies of addr's instruction and the window's rest, relocated; jmp back)
 *
 * A call and a ret, so that a shadow stack (CET) and the return predictor agree.
 * On entry [rsp] = the copy, [rsp + 8] = addr, [rsp + 16] = site, and the
 * program's rsp is rsp + 152.  The entry pushes the flags (nothing between addr and
 * here changes them), addr again and the general registers, so that the frame reads
 * as struct ut_xol_regs (rax at the lowest address, then rbx ... r15, rip,
 * flags) and fills in the program's rsp.  Then, for a probe that has a fast
 * function (site->fast: an SDT probe's, built to touch no vector or x87 register,
 * -mgeneral-regs-only), it calls fast(ctx, regs) on a 16-byte aligned stack and
 * nothing more: the C ABI's callee keeps rbx, rbp, r12-r15, and every other
 * general register is restored from the frame.  Only when fast() answers non-zero
 * (it needs what it may not do: a system call, libc) does it go on as a probe
 * without one does at once: save the whole vector and x87 state (fpsave.h: addr
 * may be anywhere, even amid x87 code) and call ut_xol_hit(site, regs).  Then it
 * restores everything and `ret $144` returns into the copy with the program's own
 * rsp.
 *
 * CFI: the frame is described as a signal frame whose CFA is the program's rsp
 * and whose return address is addr (at CFA - 144), so an unwinder started in the
 * handler walks on into the probed function as if it stood at addr.
 */

#include "fpsave.h"
#include "regs.h"

#define RED 128		/* the red zone */
#define SLOT_PUSHED 24	/* the copy (call), addr, site */
#define GPRS 128	/* rax ... r15 */
#define REGS_RSP 56	/* offsetof(struct ut_xol_regs, rsp) */
#define CFA0 (RED + SLOT_PUSHED)
#define XOL_FAST 0	/* offsetof(struct ut_xol, fast) */
#define XOL_CTX 8	/* offsetof(struct ut_xol, ctx) */

	.text
	.globl ut_xol_entry
	.hidden ut_xol_entry
	.type ut_xol_entry, @function
	.balign 64
ut_xol_entry:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa %rsp, CFA0
	.cfi_offset %rip, -(CFA0 - 8)
	pushfq
	.cfi_adjust_cfa_offset 8
	pushq 16(%rsp)				/* addr, again: regs->rip */
	.cfi_adjust_cfa_offset 8
	PUSH %r15
	PUSH %r14
	PUSH %r13
	PUSH %r12
	PUSH %r11
	PUSH %r10
	PUSH %r9
	PUSH %r8
	pushq %rsp				/* filled in below */
	.cfi_adjust_cfa_offset 8
	PUSH %rbp
	PUSH %rdi
	PUSH %rsi
	PUSH %rdx
	PUSH %rcx
	PUSH %rbx
	PUSH %rax
	leaq GPRS + 16 + CFA0(%rsp), %rax
	movq %rax, REGS_RSP(%rsp)		/* the program's rsp */
	cld					/* the C ABI's direction flag */
	movq GPRS + 16 + 16(%rsp), %rdi		/* the site */
	movq XOL_FAST(%rdi), %rax
	testq %rax, %rax
	jz 1f
	movq XOL_CTX(%rdi), %rdi
	movq %rsp, %rsi				/* the registers */
	movq %rsp, %rbx				/* saved in the frame */
	.cfi_def_cfa_register %rbx
	andq $-16, %rsp
	call *%rax
	movq %rbx, %rsp
	.cfi_def_cfa_register %rsp
	testl %eax, %eax
	jz 2f					/* done: no vector state was touched */
	movq GPRS + 16 + 16(%rsp), %rdi
1:	movq %rsp, %rsi				/* the registers */
	SAVE_FP 1, 1				/* x87 too (1) */
	fninit					/* C expects an empty x87 stack */
	call ut_xol_hit
	RESTORE_FP 1, 0, 1
2:	POP %rax
	POP %rbx
	POP %rcx
	POP %rdx
	POP %rsi
	POP %rdi
	POP %rbp
	leaq 8(%rsp), %rsp			/* the rsp slot; lea keeps the flags */
	.cfi_adjust_cfa_offset -8
	POP %r8
	POP %r9
	POP %r10
	POP %r11
	POP %r12
	POP %r13
	POP %r14
	POP %r15
	leaq 8(%rsp), %rsp			/* addr's copy */
	.cfi_adjust_cfa_offset -8
	popfq
	.cfi_adjust_cfa_offset -8
	ret $(CFA0 - 8)				/* into the copy, rsp the program's */
	.cfi_endproc
	.size ut_xol_entry, . - ut_xol_entry

	.section .note.GNU-stack, "", @progbits

/* SPDX-License-Identifier: MIT */
/*
 * fpsave.h - the vector state save and restore of the trampolines' slow paths
 * (tramp.S, graph.S), an assembler include.
 *
 * The argument registers may be ymm/zmm (functions built with -mavx), and C code
 * on the slow paths (glibc's AVX2 string functions end with vzeroupper) clobbers
 * their upper halves: save the whole vector state with xsavec/xsave, as the
 * dynamic linker's lazy-binding trampolines do, into a 64-byte aligned area whose
 * size and component mask init.c computed from cpuid leaf 0xd (ut_rt_xsave_*).
 * Without XSAVE there are no ymm registers and fxsave keeps xmm0-15.
 *
 * The area is carved below rsp, which also realigns the stack for the C call
 * (GCC's -fipa-stack-alignment may enter a traced function misaligned); rbx keeps
 * the old rsp, so the caller saves rbx first.  rax and rdx are clobbered.
 *
 *   SAVE_FP extra, cfi     extra: components beyond ut_rt_xsave_mask (1: the x87
 *                          stack, for long double results); cfi 1: the CFA moves
 *                          to rbx.
 *   RESTORE_FP extra, keep_rax, cfi
 *                          keep_rax 1: rax (the C function's result) survives,
 *                          through r11; cfi 1: the CFA moves back to rsp.
 */
#ifndef UT_FPSAVE_H
#define UT_FPSAVE_H

	.macro SAVE_FP extra=0, cfi=0
	movq %rsp, %rbx
	.if \cfi
	.cfi_def_cfa_register %rbx
	.endif
	subq ut_rt_xsave_size(%rip), %rsp
	andq $-64, %rsp
	movl ut_rt_xsave_mode(%rip), %eax
	testl %eax, %eax
	jz 8f
	xorl %edx, %edx			/* the header: xrstor faults on reserved bits */
	movq %rdx, 512(%rsp)			/* that xsave leaves as they were */
	movq %rdx, 520(%rsp)
	movq %rdx, 528(%rsp)
	movq %rdx, 536(%rsp)
	movq %rdx, 544(%rsp)
	movq %rdx, 552(%rsp)
	movq %rdx, 560(%rsp)
	movq %rdx, 568(%rsp)
	cmpl $2, %eax
	movl ut_rt_xsave_mask(%rip), %eax	/* mov keeps the flags of the cmp */
	je 7f
	.if \extra
	orl $\extra, %eax
	.endif
	xsave (%rsp)
	jmp 9f
7:
	.if \extra
	orl $\extra, %eax
	.endif
	xsavec (%rsp)
	jmp 9f
8:	fxsave (%rsp)
9:
	.endm

	.macro RESTORE_FP extra=0, keep_rax=0, cfi=0
	.if \keep_rax
	movq %rax, %r11
	.endif
	movl ut_rt_xsave_mode(%rip), %eax
	testl %eax, %eax
	jz 8f
	movl ut_rt_xsave_mask(%rip), %eax
	.if \extra
	orl $\extra, %eax
	.endif
	xorl %edx, %edx
	xrstor (%rsp)				/* either form: xsavec set XCOMP_BV bit 63 */
	jmp 9f
8:	fxrstor (%rsp)
9:
	.if \keep_rax
	movq %r11, %rax
	.endif
	movq %rbx, %rsp
	.if \cfi
	.cfi_def_cfa_register %rsp
	.endif
	.endm

#endif

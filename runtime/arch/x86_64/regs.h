/* SPDX-License-Identifier: MIT */
/*
 * regs.h - saving the general registers in the trampolines (tramp.S, graph.S,
 * probe.S), an assembler include.
 *
 *   PUSH reg / POP reg   one register, with its CFI
 *   PUSH_GPRS r11        the registers a C call may clobber, r11 only with r11=1
 *                        (it is free at a function's entry); no CFI: at an entry,
 *                        GPRS_CFI after PUSH_GPRS 0 says where they are
 *   POP_GPRS r11         the reverse
 */
#ifndef UT_REGS_H
#define UT_REGS_H

	.macro PUSH reg
	pushq \reg
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset \reg, 0
	.endm

	.macro POP reg
	popq \reg
	.cfi_adjust_cfa_offset -8
	.cfi_restore \reg
	.endm

	.macro PUSH_GPRS r11=1
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	.if \r11
	pushq %r11
	.endif
	.endm

	.macro POP_GPRS r11=1
	.if \r11
	popq %r11
	.endif
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rax
	.endm

	/* After PUSH_GPRS 0 at a function's entry ([rsp] was the return address). */
	.macro GPRS_CFI
	.cfi_adjust_cfa_offset 64
	.cfi_rel_offset %rax, 56
	.cfi_rel_offset %rcx, 48
	.cfi_rel_offset %rdx, 40
	.cfi_rel_offset %rsi, 32
	.cfi_rel_offset %rdi, 24
	.cfi_rel_offset %r8, 16
	.cfi_rel_offset %r9, 8
	.cfi_rel_offset %r10, 0
	.endm

#endif

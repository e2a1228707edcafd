/* SPDX-License-Identifier: MIT */
/*
 * regs.h - saving the general registers in the trampolines (tramp.S, graph.S,
 * probe.S), an assembler include.
 *
 *   PUSH reg / POP reg   one register, with its CFI
 *   PUSH_GPRS r11        the registers a C call may clobber, r11 only with r11=1
 *                        (it is free at a function's entry)
 *   POP_GPRS r11         the reverse
 *
 * Every push and pop carries its CFI (the CFA offset and where the register is):
 * a signal may land between any two of them, and an unwinder started in its
 * handler (backtrace(), a C++ runtime's, the program's own) must find the return
 * address at every instruction.  CFI directives are tables, not instructions: they
 * cost nothing at run time.  A path that pops and leaves (ret, jmp) before code
 * that still has the registers pushed keeps the CFI in step with
 * .cfi_remember_state before the pops and .cfi_restore_state after the exit.
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
	PUSH %rax
	PUSH %rcx
	PUSH %rdx
	PUSH %rsi
	PUSH %rdi
	PUSH %r8
	PUSH %r9
	PUSH %r10
	.if \r11
	PUSH %r11
	.endif
	.endm

	.macro POP_GPRS r11=1
	.if \r11
	POP %r11
	.endif
	POP %r10
	POP %r9
	POP %r8
	POP %rdi
	POP %rsi
	POP %rdx
	POP %rcx
	POP %rax
	.endm

#endif

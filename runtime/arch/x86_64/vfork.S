/* SPDX-License-Identifier: MIT */
/*
 * vfork.S - vfork and __vfork, interposed (runtime/vfork.c says why).
 *
 * The child runs on the parent's stack until it calls exec or _exit, and may
 * overwrite anything below the stack pointer the parent had at the system call,
 * this function's return address included: so, as libc's own vfork, the return
 * address is popped into a register (registers are the child's own) before the
 * system call and pushed again after it, in each process.  ut_vfork_save (before)
 * and ut_vfork_after (after, tail-called with the system call's result, returning
 * to our caller) do the rest in C.
 */

#include <asm/unistd.h>

	.text
	.globl vfork
	.globl __vfork
	.type vfork, @function
	.type __vfork, @function
vfork:
__vfork:
	.cfi_startproc
	subq $8, %rsp				/* the C call wants a 16-byte aligned stack */
	.cfi_adjust_cfa_offset 8
	call ut_vfork_save
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	popq %rdi				/* the return address */
	.cfi_adjust_cfa_offset -8
	.cfi_register rip, rdi
	movl $__NR_vfork, %eax
	syscall
	pushq %rdi
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rip, 0
	movq %rax, %rdi
	jmp ut_vfork_after			/* returns to our caller */
	.cfi_endproc
	.size vfork, . - vfork
	.size __vfork, . - __vfork

	.section .note.GNU-stack, "", @progbits

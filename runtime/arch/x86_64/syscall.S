/* SPDX-License-Identifier: MIT */
/*
 * syscall.S - syscall(), interposed for the wakeup tracers (runtime/wakeup.c).
 *
 * Written without a frame of its own: every call but a futex one while a latency
 * tracer counts wakes jumps to libc's syscall() with the registers and the stack
 * exactly as the program made them, so a syscall(SYS_vfork) or a clone that
 * returns twice returns straight to the program, as through libc's, and the
 * variadic arguments cost nothing to pass on.  The other calls go to C with the
 * same registers: nr and five arguments in registers, the sixth on the stack,
 * which a C function of seven longs reads as its own parameters.
 */

#include <asm/unistd.h>

	.text
	.globl syscall
	.type syscall, @function
syscall:
	.cfi_startproc
	cmpl $0, ut_lat_wraps(%rip)
	jne 2f
1:	movq ut_syscall_real(%rip), %rax
	testq %rax, %rax
	jz 3f
	jmp *%rax
2:	cmpq $__NR_futex, %rdi
	jne 1b
	jmp ut_syscall_futex
3:	jmp ut_syscall_unresolved		/* before the constructor: C resolves it */
	.cfi_endproc
	.size syscall, . - syscall

	.section .note.GNU-stack, "", @progbits

/* SPDX-License-Identifier: MIT */
/*
 * stack.S - ut_tramp_stack: the stack tracer's check at a function's entry.
 *
 * A site that only the stack tracer takes (stack_tracer_enabled, its function
 * in stack_trace_filter, no tracer and no probe on it) is `call stub + 32`,
 * whose `jmp *slot` comes here: [rsp] = site + 5, [rsp + 8] = the caller's
 * return address, as in ut_tramp_function.  Sites that a tracer or a probe takes
 * too go through the probe stub, whose C checks the stack first (probe.c).
 *
 * The fast path is the whole cost when no new maximum is found: rsp against the
 * thread's ut_thr.stk_limit (the top of its stack minus the deepest stack seen)
 * and ut_thr.stk_epoch against ut_stack_epoch (stack_max_size was written), with
 * r11 and the flags alone, which are free at a function's entry.  Otherwise
 * ut_stack_check() runs with every register a function's entry may have live
 * saved, as ut_tramp_probe saves them (probe.S).
 */

#include "fpsave.h"
#include "regs.h"

#define FRAME 72		/* bytes pushed: [rsp + FRAME] = site + 5 */
#define THR_STK_LIMIT 128	/* offsetof(struct ut_thread, stk_limit) */
#define THR_STK_EPOCH 136	/* offsetof(struct ut_thread, stk_epoch) */

	.text
	.globl ut_tramp_stack
	.hidden ut_tramp_stack
	.type ut_tramp_stack, @function
	.balign 64
ut_tramp_stack:
	.cfi_startproc
	movq ut_thr@gottpoff(%rip), %r11
	cmpq %fs:THR_STK_LIMIT(%r11), %rsp
	jb 1f					/* deeper than this thread's limit */
	movl %fs:THR_STK_EPOCH(%r11), %r11d
	cmpl ut_stack_epoch(%rip), %r11d
	jne 1f
	ret
1:	PUSH_GPRS 0
	PUSH %rbx
	SAVE_FP 0, 1
	leaq FRAME(%rbx), %rdi			/* &[site + 5, parent] */
	movq %rbp, %rsi				/* the caller's frame pointer */
	call ut_stack_check
	RESTORE_FP 0, 0, 1
	POP %rbx
	POP_GPRS 0
	ret
	.cfi_endproc
	.size ut_tramp_stack, . - ut_tramp_stack

	.section .note.GNU-stack, "", @progbits

/* SPDX-License-Identifier: MIT */
/*
 * probe.S - ut_tramp_probe: the entry of a site that has function probes
 * (set_ftrace_filter commands such as `FUNC:traceoff:3`, ut_sel.h).
 *
 * Such a site is `call stub + 16`, whose `jmp *slot[1]` comes here, so on entry
 * [rsp] = site + 5 and [rsp + 8] = the caller's return address, as in
 * ut_tramp_function.  Probes are rare and act in C: save every register a
 * function's entry may have live (tramp.S), call ut_rt_probe_hit(&[site + 5,
 * parent], rbp), restore.  Its result says where the site goes on:
 *   0         back into the function (no tracer traces it, or C wrote its event);
 *   even A    jmp A with [rsp] = site + 5 still pushed: the object's trampoline
 *             of the current tracer (ut_tramp_graph without per-site stubs);
 *   odd A|1   drop site + 5 and jmp A: the site's own function_graph stub, which
 *             expects the stack of the function's entry (the site's `jmp`).
 * r11 carries it: it is free at a function's entry.
 */

#include "fpsave.h"
#include "regs.h"

#define FRAME 72 /* bytes pushed: [rsp + FRAME] = site + 5 */

	.text
	.globl ut_tramp_probe
	.hidden ut_tramp_probe
	.type ut_tramp_probe, @function
	.balign 64
ut_tramp_probe:
	.cfi_startproc
	PUSH_GPRS 0
	PUSH %rbx
	SAVE_FP 0, 1
	leaq FRAME(%rbx), %rdi			/* &[site + 5, parent] */
	movq %rbp, %rsi				/* the caller's frame pointer */
	call ut_rt_probe_hit
	RESTORE_FP 0, 1, 1			/* rax: the result */
	movq %rax, %r11
	POP %rbx
	POP_GPRS 0
	testq %r11, %r11
	jnz 1f
	ret					/* into the function */
1:	testq $1, %r11
	jnz 2f
	jmp *%r11				/* the tracer, with site + 5 pushed */
2:	andq $-2, %r11
	/*
	 * The stack of the function's entry.  The CFI is left as it is on purpose:
	 * CFA = rsp + 8 with the return address at [rsp] is exactly the entry's frame
	 * (the parent's return address), for the two instructions left.
	 */
	leaq 8(%rsp), %rsp
	jmp *%r11				/* the site's function_graph stub */
	.cfi_endproc
	.size ut_tramp_probe, . - ut_tramp_probe

	.section .note.GNU-stack, "", @progbits

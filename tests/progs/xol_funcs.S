/* SPDX-License-Identifier: MIT */
/*
 * xol_funcs.S - functions whose instructions xol_prog probes (tests/unit/test_xol.c).
 * Written in assembly so that each probed instruction, and what JMP mode would
 * displace after it, is exactly known.  Every xf_NAME_at label is a probe point;
 * xf_NAME_end (the .size) bounds the function.
 */

	.macro FUNC name
	.text
	.globl \name
	.type \name, @function
	.p2align 4
\name:
	.cfi_startproc
	.endm

	.macro END name
	.cfi_endproc
	.size \name, . - \name
	.endm

	/* the registers the C ABI's callee keeps, for functions that set every one */
	.macro PUSH_CALLEE
	.irp r, rbx, rbp, r12, r13, r14, r15
	push %\r
	.cfi_adjust_cfa_offset 8
	.endr
	.endm

	.macro POP_CALLEE
	.irp r, r15, r14, r13, r12, rbp, rbx
	pop %\r
	.cfi_adjust_cfa_offset -8
	.endr
	.endm

	/*
	 * hidden: out of the dynamic symbol table, so that dladdr1() on a function
	 * whose first instruction is a label finds the function (with its size), not
	 * the label, whatever order the table happens to have
	 */
	.macro LABEL name
	.globl \name
	.hidden \name
\name:
	.endm

	.bss
	.globl xf_keep_in, xf_keep_out
	.p2align 4
xf_keep_in: .skip 384		/* rax..r15 (rsp unused), xmm0-15 */
xf_keep_out: .skip 392		/* the same, then the flags */
	.globl xf_rsp_seen, xf_ret_seen
xf_rsp_seen: .quad 0	/* rsp just before xf_regs_at */
xf_ret_seen: .quad 0	/* the return address xf_helper saw */
	.data
	.globl xf_data
xf_data: .quad 0x1234567887654321

	.section .rodata
	.p2align 2
xf_table:
	.long 10f - xf_table, 11f - xf_table, 12f - xf_table, 13f - xf_table

/*
 * long xf_regs(void): every register set to a known value (rax = 0x1000 ...
 * r15 = 0xf000, CF set), then xf_regs_at: `adc $0, %rax` (so the result shows
 * the flags survived); returns 0x1001.
 */
FUNC xf_regs
	PUSH_CALLEE
	movq %rsp, xf_rsp_seen(%rip)
	mov $0x1000, %rax
	mov $0x2000, %rbx
	mov $0x3000, %rcx
	mov $0x4000, %rdx
	mov $0x5000, %rsi
	mov $0x6000, %rdi
	mov $0x7000, %rbp
	mov $0x8000, %r8
	mov $0x9000, %r9
	mov $0xa000, %r10
	mov $0xb000, %r11
	mov $0xc000, %r12
	mov $0xd000, %r13
	mov $0xe000, %r14
	mov $0xf000, %r15
	stc
LABEL xf_regs_at
	adc $0, %rax
	add $0, %rbx			/* displaced too in JMP mode */
	POP_CALLEE
	ret
END xf_regs

/* long xf_helper(long x): x + 1, and the return address it was called with */
FUNC xf_helper
	movq (%rsp), %rax
	movq %rax, xf_ret_seen(%rip)
	lea 1(%rdi), %rax
	ret
END xf_helper

/* long xf_call(long x): xf_call_at is a 3-byte mov followed by the call */
FUNC xf_call
	sub $8, %rsp
	.cfi_adjust_cfa_offset 8
LABEL xf_call_at
	mov %rdi, %rdi
	call xf_helper
LABEL xf_call_ret
	add $8, %rsp
	.cfi_adjust_cfa_offset -8
	ret
END xf_call

/* long xf_rip(long x): x + xf_data, loaded RIP-relative at xf_rip_at */
FUNC xf_rip
LABEL xf_rip_at
	movq xf_data(%rip), %rax
	add %rdi, %rax
	ret
END xf_rip

/* long xf_jcc(long x): 2 if x < 10 else 1; xf_jcc_at is the jl */
FUNC xf_jcc
	cmp $10, %rdi
LABEL xf_jcc_at
	jl 1f
	mov $1, %eax
	ret
1:	mov $2, %eax
	ret
END xf_jcc

/*
 * long xf_loop(long n): n + (n - 1) + ... + 1.  xf_loop_at is the 3-byte mov just
 * before the loop head, which the jnz comes back to: the window takes the whole
 * loop in, jnz and all (then run in the slot).  xf_loop_head (the head itself)
 * needs no more than 5 bytes.
 */
FUNC xf_loop
	xor %eax, %eax
LABEL xf_loop_at
	mov %rdi, %rcx
LABEL xf_loop_head
	add %rcx, %rax
	sub $1, %rcx
	jnz xf_loop_head
	ret
END xf_loop

/* long xf_switch(long x): a jump table (x & 3) -> 100 + (x & 3); xf_switch_at its first insn */
FUNC xf_switch
LABEL xf_switch_at
	mov %rdi, %rax
	and $3, %eax
	lea xf_table(%rip), %rdx
	movslq (%rdx,%rax,4), %rax
	add %rdx, %rax
	jmp *%rax
10:	mov $100, %eax
	ret
11:	mov $101, %eax
	ret
12:	mov $102, %eax
	ret
13:	mov $103, %eax
	ret
END xf_switch

/* long xf_sys(void): getpid() by syscall, which starts 4 bytes after xf_sys_at */
FUNC xf_sys
LABEL xf_sys_at
	xor %eax, %eax
	mov $39, %al
	syscall
	ret
END xf_sys

/* long xf_work(long x): x * 2 + 1, the function threads hammer; xf_work_at its 1st insn */
FUNC xf_work
LABEL xf_work_at
	lea (%rdi,%rdi), %rax
	add $1, %rax
	ret
END xf_work

/*
 * long xf_sdt(long n, long on): n, looping n times over the shape of `if
 * (semaphore) STAP_PROBE()`: xf_sdt_at is the 1-byte nop that the je skips when
 * on is 0, so the je lands at xf_sdt_at + 1; only a window that starts at the je
 * is safe.  At the probe, rcx is the loop's count so far.
 */
FUNC xf_sdt
	xor %eax, %eax
	xor %ecx, %ecx
1:	test %esi, %esi
	je 2f
LABEL xf_sdt_at
	nop
2:	add $1, %rax
	add $1, %rcx
	cmp %rcx, %rdi
	jne 1b
	ret
END xf_sdt

/*
 * long xf_mid(long x): 1 if x is 0, else 6.  The je lands right after the nop at
 * xf_mid_at, from further before it than a window may start: no window, TRAP.
 */
FUNC xf_mid
	xor %eax, %eax
	test %rdi, %rdi
	je 1f
	mov $5, %eax
LABEL xf_mid_at
	nop
1:	add $1, %rax
	ret
END xf_mid

/*
 * void xf_keep(void): rax..r15 but rsp hold xf_keep_in[0..15] and xmm0-15
 * xf_keep_in[16..47] (two quads each), CF set, then xf_keep_at (a 1-byte nop: the
 * probe); right after it every one of them, and the flags, go to xf_keep_out in
 * the same order (struct ut_xol_regs' for the general ones), flags at [48].
 */
FUNC xf_keep
	PUSH_CALLEE
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	movdqu xf_keep_in+128+16*\i(%rip), %xmm\i
	.endr
	movq xf_keep_in+0(%rip), %rax
	movq xf_keep_in+8(%rip), %rbx
	movq xf_keep_in+16(%rip), %rcx
	movq xf_keep_in+24(%rip), %rdx
	movq xf_keep_in+32(%rip), %rsi
	movq xf_keep_in+40(%rip), %rdi
	movq xf_keep_in+48(%rip), %rbp
	movq xf_keep_in+64(%rip), %r8
	movq xf_keep_in+72(%rip), %r9
	movq xf_keep_in+80(%rip), %r10
	movq xf_keep_in+88(%rip), %r11
	movq xf_keep_in+96(%rip), %r12
	movq xf_keep_in+104(%rip), %r13
	movq xf_keep_in+112(%rip), %r14
	movq xf_keep_in+120(%rip), %r15
	stc
LABEL xf_keep_at
	nop
	movq %rax, xf_keep_out+0(%rip)
	pushfq
	popq %rax
	movq %rax, xf_keep_out+384(%rip)
	movq %rbx, xf_keep_out+8(%rip)
	movq %rcx, xf_keep_out+16(%rip)
	movq %rdx, xf_keep_out+24(%rip)
	movq %rsi, xf_keep_out+32(%rip)
	movq %rdi, xf_keep_out+40(%rip)
	movq %rbp, xf_keep_out+48(%rip)
	movq %r8, xf_keep_out+64(%rip)
	movq %r9, xf_keep_out+72(%rip)
	movq %r10, xf_keep_out+80(%rip)
	movq %r11, xf_keep_out+88(%rip)
	movq %r12, xf_keep_out+96(%rip)
	movq %r13, xf_keep_out+104(%rip)
	movq %r14, xf_keep_out+112(%rip)
	movq %r15, xf_keep_out+120(%rip)
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	movdqu %xmm\i, xf_keep_out+128+16*\i(%rip)
	.endr
	POP_CALLEE
	ret
END xf_keep

/*
 * int xf_fast_clobber(struct fast *ctx, const struct ut_xol_regs *regs): a
 * probe's fast fn that counts the hit (ctx->hits), keeps regs->rip (ctx->rip),
 * leaves every general register the C ABI lets it clobber changed, and answers
 * ctx->answer.  No vector register: as the fast path requires.
 */
FUNC xf_fast_clobber
	incq 8(%rdi)
	movq 128(%rsi), %rax
	movq %rax, 16(%rdi)
	movl (%rdi), %eax
	movq $-1, %rcx
	movq $-2, %rdx
	movq $-3, %rsi
	movq $-4, %r8
	movq $-5, %r9
	movq $-6, %r10
	movq $-7, %r11
	movq $-8, %rdi
	ret
END xf_fast_clobber

/* never called: an int3 that is not ours */
FUNC xf_int3
	int3
	ret
END xf_int3

	.section .note.GNU-stack, "", @progbits

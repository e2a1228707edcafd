/* SPDX-License-Identifier: MIT */
/*
 * rb_write.S - ut_rb_write(): the general ring writer (ut_ring_write.h) for x86-64.
 *
 * It runs exactly the algorithm of ut_rb_write_on_cpu() (common/ut_ring_ref.c), on
 * the CPU it runs on, inside a restartable sequence: every store before the
 * commit writes values computed from state read inside the sequence, and the
 * commit is ONE store, the last instruction of the critical section.  Both
 * possible commits (wpos for an event, dropped + 1 when the buffer is full in
 * no-overwrite mode) are the same instruction `mov %rcx, (%rdx)`: each path sets
 * the address and the value, then falls into it.
 *
 * It uses its arguments and glibc's rseq registration (__rseq_offset, __rseq_size).
 * When glibc registered no area for the thread it asks ut_rb_rseq_fallback(), a
 * weak hidden symbol: libutrace.so defines it (runtime/rseq.c: the area the runtime
 * registered itself); elsewhere (utracefs, whose glibc always registers) it is
 * undefined, i.e. 0, and the result is -ENOSYS.
 *
 *   int ut_rb_write(void *area, unsigned int nr_cpus, struct ut_ev *ev)
 *   returns 0, -ENOSPC (dropped), -EAGAIN (ring disabled / bad cpu), -EINVAL
 *   (bad len), -ENOSYS (rseq not registered for this thread).
 *
 *   int ut_rb_write_post(void *area, unsigned int nr_cpus, struct ut_ev *ev,
 *                        struct rseq *rs, uint64_t *post)
 *   the same with the caller's rseq area (the runtime's per-thread choice, graph.c)
 *   and the commit reported: returns the CPU written to, with *post = the wpos
 *   committed (tracing_thresh rewinds the ring to before the event), or -ENOSPC,
 *   -EAGAIN, -EINVAL as above.
 */

#define EINVAL 22
#define EAGAIN 11
#define ENOSPC 28
#define ENOSYS 38

#define RB_CPU_OFF 4096		/* UT_RB_CPU_OFF */
#define RB_DATA_OFF 36864	/* UT_RB_DATA_OFF = 4096 + 256 * 128 */
#define RB_PAGE_DATA 4064	/* UT_RB_PAGE_DATA */
#define RB_MAX_PAGES 0x40000	/* UT_RB_MAX_PAGES */
#define RB_PAGE_MAGIC 0x75745042
#define RSEQ_SIG 0x53053053

	/* eax = ev->len (rdx = ev), or to .Leinval */
	.macro CHECK_LEN
	movzwl (%rdx), %eax
	testl $7, %eax
	jnz .Leinval
	cmpl $16, %eax
	jb .Leinval
	cmpl $RB_PAGE_DATA, %eax
	ja .Leinval
	.endm

	.text
	.globl ut_rb_write_post
	.hidden ut_rb_write_post
	.type ut_rb_write_post, @function
	.balign 16
ut_rb_write_post:
	.cfi_startproc
	CHECK_LEN
	jmp .Lhave_rseq_post
	.cfi_endproc
	.size ut_rb_write_post, . - ut_rb_write_post

	.globl ut_rb_write
	.hidden ut_rb_write
	.type ut_rb_write, @function
	.balign 16
ut_rb_write:
	.cfi_startproc
	CHECK_LEN
	movq __rseq_size@GOTPCREL(%rip), %rcx
	cmpl $20, (%rcx)
	jb .Lfallback
	movq __rseq_offset@GOTPCREL(%rip), %rcx
	movq (%rcx), %rcx
	addq %fs:0, %rcx			/* struct rseq of this thread */
	cmpl $0, 4(%rcx)			/* cpu_id < 0: not registered */
	jl .Lfallback

.Lhave_rseq:
	xorl %r8d, %r8d				/* post: none */
.Lhave_rseq_post:				/* (ut_rb_write_post's CFI is ut_rb_write's) */
	pushq %rbx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbx, 0
	pushq %r12
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r12, 0
	pushq %r13
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r13, 0
	pushq %r14
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r14, 0
	pushq %r15
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r15, 0
	pushq %rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq %r8, %rbp				/* post, or NULL */
	movq %rdi, %r12				/* area */
	movl %esi, %r13d			/* nr_cpus */
	movq %rdx, %r14				/* ev */
	movq %rcx, %r15				/* rseq */
	movl %eax, %ebx				/* len */

.Lrestart:
	leaq .Lcs(%rip), %rax
	movq %rax, 8(%r15)			/* arm: rseq->rseq_cs */
.Lstart:
	movl 4(%r15), %eax			/* cpu_id */
	cmpl %r13d, %eax
	jae .Leagain
	movq %rax, %r8
	shlq $7, %rax
	leaq RB_CPU_OFF(%r12,%rax), %r9		/* rc */
	cmpl $0, 24(%r9)			/* enabled */
	je .Leagain
	movq (%r9), %r10			/* w = wpos */
	movl 16(%r9), %r11d			/* nr = nr_pages */
	cmpl $3, %r11d
	jb .Leagain
	cmpl $RB_MAX_PAGES, %r11d
	ja .Leagain
	movq %r10, %rsi
	shrq $22, %rsi
	andl $0x3ffff, %esi			/* slot */
	cmpl %r11d, %esi
	jae .Leagain
	rdtsc
	shlq $32, %rdx
	orq %rdx, %rax				/* ts */
	movq %rax, 8(%r14)			/* ev->ts */
	shlq $30, %r8				/* cpu * UT_RB_CPU_SPAN */
	addq %r12, %r8
	addq $RB_DATA_OFF, %r8			/* this CPU's page 0 */
	movl %r10d, %ecx
	andl $0xfff, %ecx			/* off */
	leal (%rcx,%rbx), %edx
	cmpl $RB_PAGE_DATA, %edx
	ja .Lnewpage

	/* The event fits in the current page. */
	movq %rsi, %rdi
	shlq $12, %rdi
	addq %r8, %rdi				/* page */
	testl %ecx, %ecx
	jnz 1f
	movq %rax, (%rdi)			/* page->time_stamp */
1:	leaq 32(%rdi,%rcx), %rdi		/* destination */
	xorl %edx, %edx
2:	movq (%r14,%rdx), %rcx
	movq %rcx, (%rdi,%rdx)
	addq $8, %rdx
	cmpq %rbx, %rdx
	jb 2b
	leaq 4096(%r10,%rbx), %rcx		/* wpos: off += len, entries += 1 */
	movq %r9, %rdx
	jmp .Lwritten

.Lnewpage:
	movq %r10, %rdx
	shrq $40, %rdx
	incl %edx
	andl $0xffffff, %edx			/* nvp */
	leal 1(%rsi), %ecx
	cmpl %r11d, %ecx
	jb 3f
	xorl %ecx, %ecx				/* nslot */
3:	testl $1, 20(%r9)			/* RB_F_OVERWRITE */
	jnz 4f
	movl %edx, %edi
	subl 64(%r9), %edi			/* nvp - (unsigned int)read_vpage */
	andl $0xffffff, %edi
	addl 28(%r9), %edi			/* + held (the reader page) */
	jc 7f
	cmpl %r11d, %edi
	jb 4f
7:	movq 8(%r9), %rcx			/* full: dropped + 1 is the commit */
	incq %rcx
	leaq 8(%r9), %rdx
	movl $-ENOSPC, %eax
	jmp .Lcommit
4:	movl %ecx, %r11d			/* nslot (nr is no longer needed) */
	shlq $12, %rsi
	addq %r8, %rsi				/* op: old page */
	shlq $12, %rcx
	addq %r8, %rcx				/* np: new page */
	movq %r10, 8(%rsi)			/* op->commit = w */
	movl %edx, 24(%rcx)			/* np->vpage */
	movl $RB_PAGE_MAGIC, 28(%rcx)		/* np->magic */
	movq $0, 8(%rcx)			/* np->commit */
	movq %r10, %r8
	shrq $12, %r8
	andl $0x3ff, %r8d			/* entries of the old page */
	addq 16(%rsi), %r8
	movq %r8, 16(%rcx)			/* np->base_entries */
	movq %rax, (%rcx)			/* np->time_stamp */
	xorl %edi, %edi
5:	movq (%r14,%rdi), %r8
	movq %r8, 32(%rcx,%rdi)
	addq $8, %rdi
	cmpq %rbx, %rdi
	jb 5b
	shlq $40, %rdx
	shlq $22, %r11
	orq %r11, %rdx
	orq %rbx, %rdx
	orq $4096, %rdx				/* entries = 1, off = len */
	movq %rdx, %rcx
	movq %r9, %rdx
.Lwritten:
	movq %r9, %rax
	subq %r12, %rax
	subq $RB_CPU_OFF, %rax
	shrq $7, %rax				/* the result: the cpu of rc */
.Lcommit:
	movq %rcx, (%rdx)			/* THE commit: last instruction of the sequence */
.Lpost:
	testl %eax, %eax
	js .Lout
	testq %rbp, %rbp
	jz 6f
	movq %rcx, (%rbp)			/* ut_rb_write_post: *post */
	jmp .Lout
6:	xorl %eax, %eax				/* ut_rb_write: 0 */
.Lout:
	popq %rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	popq %r15
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r15
	popq %r14
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r14
	popq %r13
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r13
	popq %r12
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r12
	popq %rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	ret
	.cfi_adjust_cfa_offset 48
	.cfi_rel_offset %rbx, 40
	.cfi_rel_offset %r12, 32
	.cfi_rel_offset %r13, 24
	.cfi_rel_offset %r14, 16
	.cfi_rel_offset %r15, 8
	.cfi_rel_offset %rbp, 0
.Leagain:
	movl $-EAGAIN, %eax
	jmp .Lout

	/* The signature: the 4 bytes before the abort label (ud1 so that a fall-through traps). */
	.byte 0x0f, 0xb9, 0x3d
	.long RSEQ_SIG
.Labort:
	jmp .Lrestart				/* the kernel cleared rseq_cs: re-arm and retry */

	.cfi_adjust_cfa_offset -48
	.cfi_restore %rbx
	.cfi_restore %r12
	.cfi_restore %r13
	.cfi_restore %r14
	.cfi_restore %r15
	.cfi_restore %rbp
.Leinval:
	movl $-EINVAL, %eax
	ret
.Lenosys:
	movl $-ENOSYS, %eax
	ret

	/* No area of glibc's: the runtime's own, if linked in (eax: len is recomputed). */
.Lfallback:
	movq ut_rb_rseq_fallback@GOTPCREL(%rip), %rcx
	testq %rcx, %rcx
	jz .Lenosys
	pushq %rdi
	.cfi_adjust_cfa_offset 8
	pushq %rsi
	.cfi_adjust_cfa_offset 8
	pushq %rdx				/* rsp is 16-byte aligned for the call */
	.cfi_adjust_cfa_offset 8
	call *%rcx
	popq %rdx
	.cfi_adjust_cfa_offset -8
	popq %rsi
	.cfi_adjust_cfa_offset -8
	popq %rdi
	.cfi_adjust_cfa_offset -8
	testq %rax, %rax
	jz .Lenosys
	movq %rax, %rcx
	cmpl $0, 4(%rcx)			/* cpu_id < 0: not registered */
	jl .Lenosys
	movzwl (%rdx), %eax			/* len (checked above) */
	jmp .Lhave_rseq
	.cfi_endproc
	.size ut_rb_write, . - ut_rb_write

	/* struct rseq_cs {u32 version, flags; u64 start_ip, post_commit_offset, abort_ip} */
	.section .data.rel.ro, "aw"
	.balign 32
	/* global (hidden) so that a program can make sure it links this writer */
	.globl ut_rb_write_cs
	.hidden ut_rb_write_cs
ut_rb_write_cs:
.Lcs:
	.long 0, 0
	.quad .Lstart
	.quad .Lpost - .Lstart
	.quad .Labort

	.weak ut_rb_rseq_fallback
	.hidden ut_rb_rseq_fallback

	.section .note.GNU-stack, "", @progbits

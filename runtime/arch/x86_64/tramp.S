/* SPDX-License-Identifier: MIT */
/*
 * tramp.S - ut_tramp_function: the function tracer's hot path.
 *
 * A patched site is `call stub` at a function's entry; the object's stub does
 * `jmp *slot` to here.  So on entry [rsp] = site + 5 (the event's ip) and
 * [rsp + 8] = the caller's return address (parent_ip): nothing of the traced
 * function has run yet.  A site whose events go to one instance alone calls
 * that instance's entry of the stub page instead, which loads the instance's
 * span into r11 and jumps to ut_tramp_function_inst, right after the top's load
 * (route.c): everything below addresses the span through r11 (its control
 * page's tracing_on, opts and write_mode; its rings), so it is the same path.
 * A site whose events go to a set of spans (the top and instances, or several
 * instances) calls its set's entry, and ut_tramp_function_multi runs the same
 * write once per span of the set (below).
 *
 * The fast path calls nothing: it checks that the process is attached, that
 * tracing is on (ctl->tracing_on and the process's own tracing_off() flag), that
 * this thread records (set_ftrace_pid: ut_thr.task_ok or task_no equal to
 * ut_rt_task_gen, else ut_rt_task_check() decides once for the generation), then
 * writes one 32-byte UT_EV_FUNCTION event with exactly the algorithm of
 * ut_rb_write_on_cpu() (common/ut_ring_ref.c) inside an rseq critical section
 * whose last instruction is the commit store (ut_ring.h).  The time stamp is read
 * inside the sequence so that it is monotonic per CPU.
 *
 * Registers: at a function's entry the arguments (rdi rsi rdx rcx r8 r9), rax (al:
 * vector registers of a varargs call), r10 (static chain) and xmm0-7 (ymm0-7,
 * zmm0-7 under AVX) may be live; r11 is not.  The fast path uses no vector
 * register and saves the eight general ones it touches plus rbx.  The slow paths
 * (a thread's first event, the stack trace of func_stack_trace, the locked
 * writer) call C and save the whole vector state as well (SAVE_XMM).
 *
 * The rseq area is ut_thr.rseq, chosen once per thread by the slow path of its
 * first event (rseq.c: glibc's, or one the runtime registered).  NULL (the kernel
 * has no rseq) means the event goes through a C slow path that takes the ring's
 * lock (ut_rt_func_locked) when utracefs chose the locked write mode
 * (ctl->write_mode), and is counted in ut_rt_lost otherwise.
 */

#include "fpsave.h"
#include "regs.h"

#define RB_DATA_OFF 36864	/* UT_RB_DATA_OFF */
#define RB_PAGE_DATA 4064	/* UT_RB_PAGE_DATA */
#define RB_MAX_PAGES 0x40000	/* UT_RB_MAX_PAGES */
#define RB_PAGE_MAGIC 0x75745042
#define RSEQ_SIG 0x53053053
#define EV_HDR_FUNC 0x10020	/* len 32, type UT_EV_FUNCTION */
#define OPT_FUNC_STACK_TRACE 1	/* UT_CTL_OPT_FUNC_STACK_TRACE */
#define CTL_WRITE_MODE 44	/* offsetof(struct ut_ctl, write_mode) */
#define CTL_WRITE_LOCKED 1	/* UT_CTL_WRITE_LOCKED */
#define FRAME 72		/* bytes pushed: [rsp + FRAME] = site + 5 */
#define THR_TASK_OK 48		/* offsetof(struct ut_thread, task_ok) */
#define THR_TASK_NO 52		/* offsetof(struct ut_thread, task_no) */

	/*
	 * For calls into C: SAVE_XMM saves the whole vector state below an aligned
	 * stack, rbx (saved) keeping the old rsp (fpsave.h); rax and rdx are free here
	 * (saved in the frame).  RESTORE_XMM keeps rax (the C function's result) in
	 * r11, which every caller reloads before using.
	 */
	.macro SAVE_XMM
	SAVE_FP 0, 1
	.endm

	.macro RESTORE_XMM
	RESTORE_FP 0, 1, 1
	.endm

	/*
	 * The path from the checks to the commit, for a span in r11 whose checks
	 * passed, with the general registers and rbx pushed and [rsp + frame] = site
	 * + 5: the single-span entries (frame FRAME) and the several-spans one
	 * (FRAME + 8, the mask below the frame) each have their own copy, with their
	 * own labels (sfx) and rseq descriptor.  multi: .Ldone goes on to the next
	 * span of the mask instead of returning.
	 */
	.macro WRITE_EVENT frame, sfx, multi
	movq ut_thr@gottpoff(%rip), %r10
	movl %fs:(%r10), %eax			/* ut_thr.tid */
	testl %eax, %eax
	jz .Lfirst\sfx
.Lhave_tid\sfx:
	movl ut_rt_task_gen(%rip), %r9d		/* set_ftrace_pid: does this thread record? */
	cmpl %r9d, %fs:THR_TASK_OK(%r10)
	jne .Ltask\sfx
	movzbl %fs:4(%r10), %r9d		/* ut_thr.evflags */
	movq %fs:16(%r10), %r10			/* r10: ut_thr.rseq, this thread's struct rseq */
	testq %r10, %r10
	jz .Llost\sfx
	shlq $32, %rax
	shll $24, %r9d
	orq %rax, %r9
	orq $EV_HDR_FUNC, %r9			/* r9: the event's first 8 bytes */

.Lrestart\sfx:
	leaq .Lcs\sfx(%rip), %rax
	movq %rax, 8(%r10)			/* arm rseq->rseq_cs */
.Lstart\sfx:
	rdtsc
	shlq $32, %rdx
	orq %rax, %rdx				/* rdx: ts */
	movl 4(%r10), %eax			/* cpu_id */
	cmpl ut_rt_nr_cpus(%rip), %eax
	jae .Lbadcpu\sfx
	movl %eax, %r8d
	shlq $7, %rax
	leaq 4096(%r11,%rax), %rcx		/* rcx: rc = struct rb_cpu */
	cmpl $0, 24(%rcx)			/* enabled */
	je .Ldone\sfx
	movq (%rcx), %rsi			/* rsi: w = wpos */
	movl 16(%rcx), %edi			/* edi: nr_pages */
	cmpl $3, %edi
	jb .Ldone\sfx
	cmpl $RB_MAX_PAGES, %edi
	ja .Ldone\sfx
	shlq $30, %r8
	addq %r11, %r8
	addq $RB_DATA_OFF, %r8			/* r8: this CPU's page 0 */
	movq %rsi, %rbx
	shrq $22, %rbx
	andl $0x3ffff, %ebx			/* rbx: slot */
	cmpl %edi, %ebx
	jae .Ldone\sfx
	movl %esi, %eax
	andl $0xfff, %eax			/* eax: off */
	cmpl $(RB_PAGE_DATA - 32), %eax
	ja .Lnewpage\sfx

	movq %rbx, %rdi
	shlq $12, %rdi
	addq %r8, %rdi				/* the current page */
	testl %eax, %eax
	jnz 2f
	movq %rdx, (%rdi)			/* page->time_stamp */
2:	leaq 32(%rdi,%rax), %rax
	movq %r9, (%rax)
	movq %rdx, 8(%rax)
	movq \frame(%rsp), %rdi
	movq %rdi, 16(%rax)			/* ip = site + 5 */
	movq \frame+8(%rsp), %rdi
	movq %rdi, 24(%rax)			/* parent_ip */
	leaq 4096+32(%rsi), %rsi		/* entries + 1, off + 32 */
	jmp .Lcommit\sfx

.Lnewpage\sfx:
	movq %rsi, %r10
	shrq $40, %r10
	incl %r10d
	andl $0xffffff, %r10d			/* r10: nvp (.Labort reloads the rseq pointer) */
	testl $1, 20(%rcx)			/* RB_F_OVERWRITE */
	jnz 3f
	movl %r10d, %eax
	subl 64(%rcx), %eax			/* nvp - (unsigned int)read_vpage */
	andl $0xffffff, %eax
	addl 28(%rcx), %eax			/* + held (the reader page) */
	jc 2f
	cmpl %edi, %eax
	jb 3f
2:	movq 8(%rcx), %rsi			/* full: the commit is dropped + 1 */
	incq %rsi
	addq $8, %rcx
	jmp .Lcommit\sfx
3:	leal 1(%rbx), %eax
	cmpl %edi, %eax
	jb 4f
	xorl %eax, %eax				/* eax: nslot */
4:	shlq $12, %rbx
	addq %r8, %rbx				/* rbx: old page */
	movq %rsi, 8(%rbx)			/* op->commit = w */
	movq %rax, %rdi
	shlq $12, %rdi
	addq %r8, %rdi				/* rdi: new page */
	movl %r10d, 24(%rdi)			/* np->vpage */
	movl $RB_PAGE_MAGIC, 28(%rdi)
	movq $0, 8(%rdi)			/* np->commit */
	movq %rsi, %r8
	shrq $12, %r8
	andl $0x3ff, %r8d
	addq 16(%rbx), %r8
	movq %r8, 16(%rdi)			/* np->base_entries */
	movq %rdx, (%rdi)			/* np->time_stamp */
	movq %r9, 32(%rdi)
	movq %rdx, 40(%rdi)
	movq \frame(%rsp), %r8
	movq %r8, 48(%rdi)
	movq \frame+8(%rsp), %r8
	movq %r8, 56(%rdi)
	shlq $40, %r10
	shlq $22, %rax
	orq %rax, %r10
	orq $(4096 + 32), %r10			/* entries 1, off 32 */
	movq %r10, %rsi
.Lcommit\sfx:
	movq %rsi, (%rcx)			/* THE commit: last instruction of the sequence */
.Lpost\sfx:
	testl $OPT_FUNC_STACK_TRACE, 20(%r11)	/* ctl->opts */
	jnz .Lstack\sfx
.Ldone\sfx:
	.if \multi
	jmp .Lnext\sfx				/* the next instance of the mask */
	.else
	.cfi_remember_state
	POP %rbx
	POP_GPRS 0
	ret
	.cfi_restore_state
	.endif

.Lbadcpu\sfx:
	testl %eax, %eax			/* cpu_id < 0: rseq not registered */
	jns .Ldone\sfx
.Llost\sfx:						/* r11: the control page */
	cmpl $CTL_WRITE_LOCKED, CTL_WRITE_MODE(%r11)
	je .Llocked\sfx
	lock incq ut_rt_lost(%rip)
	jmp .Ldone\sfx

.Llocked\sfx:					/* the event (and its stack) under the ring's lock */
	SAVE_XMM
	leaq \frame(%rbx), %rdi			/* &[site + 5, parent] */
	movq %rbp, %rsi				/* the caller's frame pointer */
	movq %r11, %rdx				/* the span (SAVE_XMM keeps r11) */
	call ut_rt_func_locked
	RESTORE_XMM
	jmp .Ldone\sfx

.Lstack\sfx:
	SAVE_XMM
	leaq \frame(%rbx), %rdi			/* &[site + 5, parent, ...] */
	movq %rbp, %rsi				/* the caller's frame pointer */
	movq %r11, %rdx				/* the span (SAVE_XMM keeps r11) */
	call ut_rt_stack_event
	RESTORE_XMM
	jmp .Ldone\sfx

.Ltask\sfx:						/* r9d: the generation */
	cmpl %r9d, %fs:THR_TASK_NO(%r10)
	je .Ldone\sfx				/* not this thread */
	PUSH %r11				/* the span (the top's or an instance's) */
	SAVE_XMM
	call ut_rt_task_check			/* decides for this generation */
	RESTORE_XMM
	POP %rcx
	jmp .Lresume\sfx

.Lfirst\sfx:
	PUSH %r11
	SAVE_XMM
	call ut_rt_thread_first			/* tid, or 0 (recursion, detached) */
	RESTORE_XMM
	POP %rcx
.Lresume\sfx:					/* eax 0: record nothing; else go on */
	testl %eax, %eax
	jz .Ldone\sfx
	movq ut_rt_ctl(%rip), %r11		/* C ran: detached meanwhile? */
	testq %r11, %r11
	jz .Ldone\sfx
	movq %rcx, %r11				/* the span (an old mapping stays mapped) */
	movq ut_thr@gottpoff(%rip), %r10
	movl %fs:(%r10), %eax			/* ut_thr.tid */
	jmp .Lhave_tid\sfx

	/* The signature: the 4 bytes before the abort label (ud1 so that a fall-through traps). */
	.byte 0x0f, 0xb9, 0x3d
	.long RSEQ_SIG
.Labort\sfx:					/* the kernel cleared rseq_cs: re-arm and retry */
	movq ut_thr@gottpoff(%rip), %r10
	movq %fs:16(%r10), %r10			/* ut_thr.rseq */
	jmp .Lrestart\sfx
	.pushsection .data.rel.ro, "aw"
	/* struct rseq_cs {u32 version, flags; u64 start_ip, post_commit_offset, abort_ip} */
	.balign 32
.Lcs\sfx:
	.long 0, 0
	.quad .Lstart\sfx
	.quad .Lpost\sfx - .Lstart\sfx
	.quad .Labort\sfx
	.popsection
	.endm

	.text
	.globl ut_tramp_function
	.hidden ut_tramp_function
	.type ut_tramp_function, @function
	.balign 64
ut_tramp_function:
	.cfi_startproc
	movq ut_rt_ctl(%rip), %r11		/* the area; NULL while detached */
	.globl ut_tramp_function_inst
	.hidden ut_tramp_function_inst
ut_tramp_function_inst:				/* r11: an instance's span (stubs.c) */
	testq %r11, %r11
	jz 1f
	cmpl $0, 16(%r11)			/* ctl->tracing_on */
	je 1f
	cmpl $0, ut_rt_off(%rip)		/* tracing_off() in this process */
	je .Ltrace
1:	ret

.Ltrace:
	PUSH_GPRS 0
	PUSH %rbx
	WRITE_EVENT FRAME, _one, 0
	.cfi_endproc
	.size ut_tramp_function, . - ut_tramp_function

	/*
	 * A site whose events go to several spans (route.c, stubs.c): its entry of
	 * the stub page loads into r11 the address of a pair {mask, top}: bit i - 1
	 * of mask names instance slot i, top whether the top level takes the event
	 * too.  The mask is copied below the frame and consumed one bit at a time;
	 * each span gets the event exactly as from the single entries, with the same
	 * checks (its tracing_on, the process's tracing_off(), this thread's
	 * set_ftrace_pid verdict: such a site exists only while the top records
	 * every thread, as for ut_tramp_function_inst).
	 */
	.globl ut_tramp_function_multi
	.hidden ut_tramp_function_multi
	.type ut_tramp_function_multi, @function
	.balign 64
ut_tramp_function_multi:
	.cfi_startproc
	pushq (%r11)				/* the mask */
	.cfi_adjust_cfa_offset 8
	PUSH_GPRS 0
	PUSH %rbx
	movl 8(%r11), %eax			/* top */
	movq ut_rt_ctl(%rip), %r11
	testq %r11, %r11
	jz .Lout_multi
	testl %eax, %eax
	jz .Lnext_multi
	cmpl $0, 16(%r11)			/* the top's tracing_on */
	je .Lnext_multi
	cmpl $0, ut_rt_off(%rip)
	jne .Lout_multi
	jmp .Ltrace_multi
.Lnext_multi:
	movq FRAME(%rsp), %rax			/* the instances not written yet */
	testq %rax, %rax
	jz .Lout_multi
	bsfq %rax, %rcx
	leaq -1(%rax), %rdx
	andq %rdx, %rax
	movq %rax, FRAME(%rsp)
	cmpq $0, ut_rt_ctl(%rip)		/* detached meanwhile (a slow path ran C) */
	je .Lout_multi
	cmpl $0, ut_rt_off(%rip)
	jne .Lout_multi
	leaq ut_stub_bases(%rip), %rdx
	movq 8(%rdx,%rcx,8), %r11		/* instance slot bit + 1's span */
	testq %r11, %r11
	jz .Lnext_multi
	cmpl $0, 16(%r11)			/* its tracing_on */
	je .Lnext_multi
.Ltrace_multi:
	WRITE_EVENT (FRAME+8), _multi, 1
.Lout_multi:
	POP %rbx
	POP_GPRS 0
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size ut_tramp_function_multi, . - ut_tramp_function_multi

	.section .note.GNU-stack, "", @progbits

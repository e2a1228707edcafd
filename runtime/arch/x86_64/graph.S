/* SPDX-License-Identifier: MIT */
/*
 * graph.S - the function_graph tracer's trampolines (graph.c has the rules).
 *
 * ut_tramp_graph_site  a site's own stub calls this (stubs.c): [rsp] = B of that
 *                      stub, [rsp + 8] = the return address (the slot); the frame's
 *                      landing is C = B + 5, the ip (site + 5) is B + 21 + the
 *                      rel32 at B + 17 (D's jmp).
 * ut_tramp_graph       an object's stub jumps here (like ut_tramp_function), for
 *                      objects without per-site stubs: [rsp] = site + 5, [rsp + 8]
 *                      = the slot; the landing is ut_return_to_handler.
 * ut_return_to_handler a hijacked function returns here (directly or through C):
 *                      rsp = slot + 8.
 * ut_graph_write       the ring writer for graph events from C, which also
 *                      reports the wpos it committed (tracing_thresh rewinds).
 * ut_graph_cas_on_cpu  one conditional store inside an rseq critical section on
 *                      a given CPU (the rewind, or an entry turned into DISCARD).
 *
 * FAST PATHS.  The common entry (the thread has a shadow stack with room, no dead
 * frame on top, not a tail call, no depth limit, no thresh/NOSLEEP/RETADDR/NOIRQS
 * work, an rseq area) and the common return (the top frame is the returning one,
 * no thresh, no NOSLEEP) are done here without calling C and without touching a
 * vector register: the entry writes a 32-byte gent, the return a 48-byte gret,
 * with the algorithm of ut_rb_write_on_cpu() (common/ut_ring_ref.c) inside an
 * rseq critical section whose last instruction is the commit.  Everything else
 * goes to ut_graph_entry()/ut_graph_return() (graph.c) with every register saved,
 * the vector state (and, on the return, the x87 stack: long double results)
 * included.
 *
 * Every general register is preserved on both paths (not only the callee-saved
 * ones): a caller compiled with -fipa-ra may keep values in caller-saved
 * registers that the traced callee does not touch.
 */

#define RB_DATA_OFF 36864	/* UT_RB_DATA_OFF */
#define RB_PAGE_DATA 4064	/* UT_RB_PAGE_DATA */
#define RB_MAX_PAGES 0x40000	/* UT_RB_MAX_PAGES */
#define RB_PAGE_MAGIC 0x75745042
#define RSEQ_SIG 0x53053053
#define EV_HDR_GENT 0xb0020	/* len 32, type UT_EV_GRAPH_ENT */
#define EV_HDR_GRET 0xa0030	/* len 48, type UT_EV_GRAPH_RET */
#define TRACER_GRAPH 2		/* UT_TRACER_FUNCTION_GRAPH */
#define CTL_TRACER 12
#define CTL_TRACING_ON 16
#define CTL_THRESH 48
#define CTL_MAX_DEPTH 56
#define CTL_GRAPH_OPTS 60
#define STACK_MAX 1024		/* UT_GRAPH_STACK_MAX */
/* ut_thr (rt.h) */
#define THR_TID 0
#define THR_EVFLAGS 4
#define THR_GUARD 5
#define THR_SIGDEPTH 6
#define THR_RSEQ 16
#define THR_GFRAMES 24
#define THR_GTOP 32
#define THR_GOVERRUN 36
/* struct ut_gframe (graph.c), 128 bytes */
#define GF_SHIFT 7
#define GF_SIZE 128
#define GF_SLOT 0
#define GF_RET 8
#define GF_IP 16
#define GF_CALLTIME 24
#define GF_POST 32
#define GF_CPU 40		/* u16: 1 + cpu, 0: entry not written */
#define GF_EVFLAGS 42		/* u8 */
#define GF_DEPTH 44		/* u16 */
#define GF_FLAGS 46		/* u16 */
#define GF_LANDING 48
#define GF_VALID 1
#define GF_MARKER 2

	/* Save the vector state (mask: XCR0 components | extra) into an aligned area; rbx = old rsp. */
	.macro SAVE_FP extra, cfi=0
	movq %rsp, %rbx
	.if \cfi
	.cfi_def_cfa_register %rbx
	.endif
	subq ut_rt_xsave_size(%rip), %rsp
	andq $-64, %rsp
	movl ut_rt_xsave_mode(%rip), %eax
	testl %eax, %eax
	jz 8f
	xorl %edx, %edx
	movq %rdx, 512(%rsp)
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
	orl $\extra, %eax
	xsave (%rsp)
	jmp 9f
7:	orl $\extra, %eax
	xsavec (%rsp)
	jmp 9f
8:	fxsave (%rsp)
9:
	.endm

	.macro RESTORE_FP extra
	movl ut_rt_xsave_mode(%rip), %eax
	testl %eax, %eax
	jz 8f
	movl ut_rt_xsave_mask(%rip), %eax
	orl $\extra, %eax
	xorl %edx, %edx
	xrstor (%rsp)
	jmp 9f
8:	fxrstor (%rsp)
9:	movq %rbx, %rsp
	.endm

	/* the ten general registers a C call may clobber (and rbx for SAVE_FP) */
	.macro PUSH_GPRS
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %rbx
	.endm

	.macro POP_GPRS
	popq %rbx
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rax
	.endm

/*
 * The ring write shared by both fast paths, inside the caller's critical section
 * (.Lstart_X .. .Lpost_X; the caller armed rseq_cs).  In: r10 = struct rseq,
 * r11 = area, r9 = the event's first 8 bytes (len/type/flags/tid).  rdx gets the
 * time stamp, rcx the rb_cpu, rsi the new wpos, r8d the cpu, rax the event's
 * address; the caller writes the body (at 16(%rax)) then commits with
 * `movq %rsi, (%rcx)`.  Jumps to \fail when the ring takes nothing (disabled,
 * bad cpu), to \newpage when the event needs a new page (left to C: the page
 * switch and the no-overwrite "full" count).  Clobbers rbx only: rdi (the frame)
 * survives, and so still holds it at an abort.
 */
	.macro RING_RESERVE len, fail, newpage
	rdtsc
	shlq $32, %rdx
	orq %rax, %rdx				/* rdx: ts */
	movl 4(%r10), %eax			/* cpu_id */
	cmpl ut_rt_nr_cpus(%rip), %eax
	jae \fail
	movl %eax, %r8d
	shlq $7, %rax
	leaq 4096(%r11,%rax), %rcx		/* rcx: struct rb_cpu */
	cmpl $0, 24(%rcx)			/* enabled */
	je \fail
	cmpl $3, 16(%rcx)			/* nr_pages */
	jb \fail
	cmpl $RB_MAX_PAGES, 16(%rcx)
	ja \fail
	movq (%rcx), %rsi			/* rsi: wpos */
	movq %rsi, %rax
	shrq $22, %rax
	andl $0x3ffff, %eax			/* slot */
	cmpl 16(%rcx), %eax
	jae \fail
	movq %r8, %rbx
	shlq $18, %rbx
	addq %rax, %rbx
	shlq $12, %rbx				/* cpu << 30 | slot << 12 */
	movl %esi, %eax
	andl $0xfff, %eax			/* off */
	cmpl $(RB_PAGE_DATA - \len), %eax
	ja \newpage				/* a new page: C does it */
	leaq RB_DATA_OFF(%r11,%rbx), %rbx	/* the current page */
	testl %eax, %eax
	jnz 1f
	movq %rdx, (%rbx)			/* page->time_stamp */
1:	leaq 32(%rbx,%rax), %rax		/* the event */
	movq %r9, (%rax)
	movq %rdx, 8(%rax)
	leaq (4096 + \len)(%rsi), %rsi		/* entries + 1, off + len */
	.endm

	.text

/* ---- entry ----------------------------------------------------------------------- */

	/* Tracing off: return at once (to the site's stub or to site + 5). */
	.macro ENTRY_CHECK
	movq ut_rt_ctl(%rip), %r11
	testq %r11, %r11
	jz 1f
	cmpl $0, CTL_TRACING_ON(%r11)
	je 1f
	cmpl $0, ut_rt_off(%rip)
	je 2f
1:	ret
2:	PUSH_GPRS
	.cfi_adjust_cfa_offset 80
	.cfi_rel_offset %rax, 72
	.cfi_rel_offset %rcx, 64
	.cfi_rel_offset %rdx, 56
	.cfi_rel_offset %rsi, 48
	.cfi_rel_offset %rdi, 40
	.cfi_rel_offset %r8, 32
	.cfi_rel_offset %r9, 24
	.cfi_rel_offset %r10, 16
	.cfi_rel_offset %r11, 8
	.cfi_rel_offset %rbx, 0
	.endm

	/* objects without per-site stubs (rare): the same body, other inputs */
	.globl ut_tramp_graph
	.hidden ut_tramp_graph
	.type ut_tramp_graph, @function
	.balign 64
ut_tramp_graph:
	.cfi_startproc
	ENTRY_CHECK
	movq 80(%rsp), %r8			/* r8: ip = site + 5 */
	leaq ut_return_to_handler(%rip), %r9	/* r9: the landing */
	jmp .Le_common
	.cfi_endproc
	.size ut_tramp_graph, . - ut_tramp_graph

	.globl ut_tramp_graph_site
	.hidden ut_tramp_graph_site
	.type ut_tramp_graph_site, @function
	.balign 64
ut_tramp_graph_site:
	.cfi_startproc
	ENTRY_CHECK
	movq 80(%rsp), %r9			/* B */
	movslq 17(%r9), %r8
	leaq 21(%r9,%r8), %r8			/* r8: ip = site + 5 */
	addq $5, %r9				/* r9: the landing, C */
.Le_common:					/* (ut_tramp_graph's stack is the same) */
	/* fast path conditions; anything unusual goes to C (r8, r9 kept for it) */
	cmpl $TRACER_GRAPH, CTL_TRACER(%r11)
	jne .Le_done
	/* thresh (needs the entry's wpos), max depth, options: all 0, or C */
	movq CTL_THRESH(%r11), %rax
	orq CTL_MAX_DEPTH(%r11), %rax		/* max_graph_depth and graph_opts */
	jnz .Le_slow
	movq ut_thr@gottpoff(%rip), %r10
	cmpl $0, %fs:THR_TID(%r10)
	je .Le_slow
	cmpb $0, %fs:THR_GUARD(%r10)
	jne .Le_slow
	movq %fs:THR_GFRAMES(%r10), %rdi	/* rdi: the shadow stack */
	testq %rdi, %rdi
	jz .Le_slow
	movl %fs:THR_GTOP(%r10), %ecx		/* ecx: top */
	cmpl $STACK_MAX, %ecx
	jae .Le_slow
	/*
	 * A tail call finds its slot holding the landing of the top frame, whose slot
	 * it is: equal slots go to C below.
	 */
	leaq 88(%rsp), %rsi			/* rsi: the slot */
	xorl %edx, %edx				/* edx: depth 0 if empty */
	testl %ecx, %ecx
	jz 3f
	movl %ecx, %eax
	shlq $GF_SHIFT, %rax
	leaq -GF_SIZE(%rdi,%rax), %rax		/* the top frame */
	cmpw $GF_VALID, GF_FLAGS(%rax)		/* a plain frame (not a marker, restored, ...) */
	jne .Le_slow
	cmpq %rsi, GF_SLOT(%rax)		/* dead (slot < ours) or a tail call (==): C */
	jbe .Le_slow
	movzwl GF_DEPTH(%rax), %edx
	incl %edx
3:	/* reserve the frame: top + 1 first, flags 0 until it is complete (graph.c) */
	leal 1(%rcx), %eax
	movl %eax, %fs:THR_GTOP(%r10)
	shlq $GF_SHIFT, %rcx
	addq %rcx, %rdi				/* rdi: our frame */
	movw $0, GF_FLAGS(%rdi)
	movq %rsi, GF_SLOT(%rdi)
	movq (%rsi), %rax
	movq %rax, GF_RET(%rdi)
	movq %r8, GF_IP(%rdi)
	movq %r9, GF_LANDING(%rdi)
	movw %dx, GF_DEPTH(%rdi)
	movzbl %fs:THR_EVFLAGS(%r10), %r9d
	movb %r9b, GF_EVFLAGS(%rdi)
	movl %fs:THR_TID(%r10), %eax
	shlq $32, %rax
	shll $24, %r9d
	orq %rax, %r9
	orq $EV_HDR_GENT, %r9			/* r9: header */
	movq %fs:THR_RSEQ(%r10), %r10		/* r10: struct rseq */
	testq %r10, %r10
	jz .Le_unwritten
.Le_restart:
	leaq .Lcs_e(%rip), %rax
	movq %rax, 8(%r10)
.Lstart_e:
	RING_RESERVE 32, .Le_full, .Le_undo
	movq GF_IP(%rdi), %rbx
	movq %rbx, 16(%rax)			/* ip */
	movzwl GF_DEPTH(%rdi), %ebx
	movq %rbx, 24(%rax)			/* depth, nextra 0 */
	movq %rsi, (%rcx)			/* THE commit */
.Lpost_e:
	movq %rdx, GF_CALLTIME(%rdi)
	movq %rsi, GF_POST(%rdi)
	incl %r8d
	movw %r8w, GF_CPU(%rdi)
	jmp .Le_hijack
.Le_undo:					/* a new page: give the frame back, C does it all */
	movq GF_IP(%rdi), %r8
	movq GF_LANDING(%rdi), %r9
	movq ut_thr@gottpoff(%rip), %r10
	decl %fs:THR_GTOP(%r10)			/* flags are still 0 */
	jmp .Le_slow
.Le_full:					/* the ring took nothing: the frame without an entry */
	movq %rdx, GF_CALLTIME(%rdi)
	movw $0, GF_CPU(%rdi)
	jmp .Le_hijack
.Le_unwritten:
	rdtsc
	shlq $32, %rdx
	orq %rax, %rdx
	movq %rdx, GF_CALLTIME(%rdi)
	movw $0, GF_CPU(%rdi)
.Le_hijack:
	movw $GF_VALID, GF_FLAGS(%rdi)		/* complete */
	movq GF_LANDING(%rdi), %rax
	movq %rax, 88(%rsp)			/* the slot: return to us */
.Le_done:
	POP_GPRS
	.cfi_adjust_cfa_offset -80
	ret
	.cfi_adjust_cfa_offset 80

.Le_slow:
	SAVE_FP 0, 1				/* (keeps r8, r9) */
	leaq 88(%rbx), %rdi			/* the slot */
	movq %r8, %rsi				/* ip */
	movq %r9, %rdx				/* landing */
	call ut_graph_entry
	RESTORE_FP 0
	.cfi_def_cfa_register %rsp
	jmp .Le_done

	.byte 0x0f, 0xb9, 0x3d
	.long RSEQ_SIG
.Labort_e:					/* rdi: still the frame */
	movq ut_thr@gottpoff(%rip), %r10
	movq %fs:THR_RSEQ(%r10), %r10
	movq ut_rt_ctl(%rip), %r11
	testq %r11, %r11
	jnz .Le_restart
	jmp .Le_full				/* detached meanwhile */
	.cfi_endproc
	.size ut_tramp_graph_site, . - ut_tramp_graph_site

/* ---- return ------------------------------------------------------------------------ */

	/*
	 * No unwind information may cover the byte before ut_return_to_handler: an
	 * unwinder that finds it as a return address looks up (address - 1), finds
	 * nothing and stops there (end of stack) instead of misreading the frame.
	 * Inside it, rip is "undefined" for the same reason.
	 */
	.balign 64
	int3
	.globl ut_return_to_handler
	.hidden ut_return_to_handler
	.type ut_return_to_handler, @function
ut_return_to_handler:
	.cfi_startproc
	.cfi_undefined rip
	subq $8, %rsp				/* rsp = the slot: the original goes there */
	PUSH_GPRS
	movq ut_thr@gottpoff(%rip), %r10
	movq %fs:THR_GFRAMES(%r10), %rdi
	testq %rdi, %rdi
	jz .Lr_slow
	movl %fs:THR_GTOP(%r10), %ecx
	testl %ecx, %ecx
	jz .Lr_slow
	shlq $GF_SHIFT, %rcx
	leaq -GF_SIZE(%rdi,%rcx), %rdi		/* rdi: the top frame */
	leaq 80(%rsp), %rsi			/* rsi: the slot */
	cmpq %rsi, GF_SLOT(%rdi)
	jne .Lr_slow				/* dead frames above, or not on top */
	cmpw $GF_VALID, GF_FLAGS(%rdi)
	jne .Lr_slow
	cmpb $0, %fs:THR_GUARD(%r10)
	jne .Lr_slow
	cmpl $1, %fs:THR_GTOP(%r10)
	je 1f
	cmpq %rsi, -GF_SIZE+GF_SLOT(%rdi)	/* a tail call chain below: C */
	je .Lr_slow
1:	movq ut_rt_ctl(%rip), %r11
	testq %r11, %r11
	jz .Lr_pop
	cmpl $TRACER_GRAPH, CTL_TRACER(%r11)
	jne .Lr_pop
	cmpl $0, CTL_TRACING_ON(%r11)
	je .Lr_pop
	cmpl $0, ut_rt_off(%rip)
	jne .Lr_pop
	cmpq $0, CTL_THRESH(%r11)
	jne .Lr_slow
	testl $3, CTL_GRAPH_OPTS(%r11)		/* NOIRQS, NOSLEEP */
	jne .Lr_slow
	movzbl %fs:THR_EVFLAGS(%r10), %r9d
	movl %fs:THR_TID(%r10), %eax
	shlq $32, %rax
	shll $24, %r9d
	orq %rax, %r9
	orq $EV_HDR_GRET, %r9
	movq %fs:THR_RSEQ(%r10), %r10
	testq %r10, %r10
	jz .Lr_slow
.Lr_restart:
	leaq .Lcs_r(%rip), %rax
	movq %rax, 8(%r10)
.Lstart_r:
	RING_RESERVE 48, .Lr_slow, .Lr_slow
	movq GF_IP(%rdi), %rbx
	movq %rbx, 16(%rax)			/* ip */
	movq GF_CALLTIME(%rdi), %rbx
	movq %rbx, 24(%rax)			/* calltime */
	movq ut_thr@gottpoff(%rip), %r8		/* (r8: the cpu, not needed here) */
	movl %fs:THR_GOVERRUN(%r8), %ebx
	shlq $32, %rbx
	movw GF_DEPTH(%rdi), %bx
	movq %rbx, 32(%rax)			/* depth, overrun */
	movq 72(%rsp), %rbx
	movq %rbx, 40(%rax)			/* retval = rax */
	movq %rsi, (%rcx)			/* THE commit */
.Lpost_r:
	movq %r8, %r10
.Lr_pop:					/* rdi: the top frame, r10: ut_thr */
	movq GF_RET(%rdi), %rax
	movq %rax, 80(%rsp)			/* return to the original */
	movq GF_LANDING(%rdi), %r11
	movw $0, GF_FLAGS(%rdi)			/* flags 0 first, then the top (graph.c) */
	decl %fs:THR_GTOP(%r10)
	leaq ut_return_to_handler(%rip), %rdx
	cmpq %rdx, %r11				/* (pops keep the flags) */
	POP_GPRS
	je .Lr_jmp
	/*
	 * Through a site's stub: the function's ret went to C, which the return
	 * stack predicted (B's call pushed it), so its top is the caller's address.
	 */
	ret
.Lr_jmp:
	/*
	 * Not `ret`: the return stack predictor is out of step here (the function's
	 * own ret came to us), an indirect jump is predicted by its target history.
	 * -8(%rsp) stays intact after the lea: signals skip the 128-byte red zone.
	 */
	leaq 8(%rsp), %rsp
	jmp *-8(%rsp)

.Lr_slow:
	SAVE_FP 1				/* and the x87 stack: long double results */
	movq %rbx, %rdi				/* the saved registers, then the slot */
	call ut_graph_return
	movl %eax, %r11d			/* 1: ret (RESTORE_FP keeps r11) */
	RESTORE_FP 1
	testl %r11d, %r11d			/* (pops keep the flags) */
	POP_GPRS
	jz .Lr_jmp
	ret					/* to the original return address, now in the slot */

	.byte 0x0f, 0xb9, 0x3d
	.long RSEQ_SIG
.Labort_r:
	movq ut_thr@gottpoff(%rip), %r10
	movq %fs:THR_RSEQ(%r10), %r10
	movq ut_rt_ctl(%rip), %r11
	testq %r11, %r11
	jnz .Lr_restart
	jmp .Lr_slow
	.cfi_endproc
	.size ut_return_to_handler, . - ut_return_to_handler

/* ---- C helpers ------------------------------------------------------------------- */

/*
 * int ut_graph_write(void *area, unsigned int nr_cpus, struct ut_ev *ev,
 *                    struct rseq *rs, uint64_t *post)
 * Writes ev (ev->ts set inside the sequence) as ut_rb_write() does, with the given
 * rseq area.  Returns the CPU (*post = the wpos committed), -EAGAIN (disabled, bad
 * cpu), -ENOSPC (dropped, counted), -EINVAL (bad len).
 */
	.globl ut_graph_write
	.hidden ut_graph_write
	.type ut_graph_write, @function
	.balign 16
ut_graph_write:
	.cfi_startproc
	movzwl (%rdx), %eax
	testl $7, %eax
	jnz .Lw_einval
	cmpl $16, %eax
	jb .Lw_einval
	cmpl $RB_PAGE_DATA, %eax
	ja .Lw_einval
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
	movq %rdi, %r12				/* area */
	movl %esi, %r13d			/* nr_cpus */
	movq %rdx, %r14				/* ev */
	movq %rcx, %r15				/* rseq */
	movq %r8, %rbp				/* post */
	movl %eax, %ebx				/* len */
.Lw_restart:
	leaq .Lcs_w(%rip), %rax
	movq %rax, 8(%r15)
.Lstart_w:
	movl 4(%r15), %eax			/* cpu_id */
	cmpl %r13d, %eax
	jae .Lw_eagain
	movq %rax, %r8
	shlq $7, %rax
	leaq 4096(%r12,%rax), %r9		/* rc */
	cmpl $0, 24(%r9)
	je .Lw_eagain
	movq (%r9), %r10			/* w */
	movl 16(%r9), %r11d			/* nr */
	cmpl $3, %r11d
	jb .Lw_eagain
	cmpl $RB_MAX_PAGES, %r11d
	ja .Lw_eagain
	movq %r10, %rsi
	shrq $22, %rsi
	andl $0x3ffff, %esi			/* slot */
	cmpl %r11d, %esi
	jae .Lw_eagain
	rdtsc
	shlq $32, %rdx
	orq %rdx, %rax
	movq %rax, 8(%r14)			/* ev->ts */
	movq %r8, %rdi
	shlq $30, %rdi
	addq %r12, %rdi
	addq $RB_DATA_OFF, %rdi			/* this CPU's page 0 */
	movl %r10d, %ecx
	andl $0xfff, %ecx			/* off */
	leal (%rcx,%rbx), %edx
	cmpl $RB_PAGE_DATA, %edx
	ja .Lw_newpage
	shlq $12, %rsi
	addq %rdi, %rsi				/* page */
	testl %ecx, %ecx
	jnz 1f
	movq %rax, (%rsi)
1:	leaq 32(%rsi,%rcx), %rdi
	xorl %edx, %edx
2:	movq (%r14,%rdx), %rcx
	movq %rcx, (%rdi,%rdx)
	addq $8, %rdx
	cmpq %rbx, %rdx
	jb 2b
	leaq 4096(%r10,%rbx), %rcx		/* the new wpos */
	movq %r9, %rdx
	movl %r8d, %eax				/* the result: cpu */
	jmp .Lw_commit
.Lw_newpage:
	movq %r10, %rdx
	shrq $40, %rdx
	incl %edx
	andl $0xffffff, %edx			/* nvp */
	leal 1(%rsi), %ecx
	cmpl %r11d, %ecx
	jb 3f
	xorl %ecx, %ecx				/* nslot */
3:	testl $1, 20(%r9)
	jnz 4f
	movl %edx, %eax
	subl 64(%r9), %eax
	andl $0xffffff, %eax
	cmpl %r11d, %eax
	jb 4f
	movq 8(%r9), %rcx			/* full: dropped + 1 */
	incq %rcx
	leaq 8(%r9), %rdx
	movl $-28, %eax
	jmp .Lw_commit
4:	movl %ecx, %r11d
	shlq $12, %rsi
	addq %rdi, %rsi				/* old page */
	shlq $12, %rcx
	addq %rdi, %rcx				/* new page */
	movq %r10, 8(%rsi)
	movl %edx, 24(%rcx)
	movl $RB_PAGE_MAGIC, 28(%rcx)
	movq $0, 8(%rcx)
	movq %r10, %rdi
	shrq $12, %rdi
	andl $0x3ff, %edi
	addq 16(%rsi), %rdi
	movq %rdi, 16(%rcx)
	movq 8(%r14), %rax
	movq %rax, (%rcx)
	xorl %edi, %edi
5:	movq (%r14,%rdi), %rax
	movq %rax, 32(%rcx,%rdi)
	addq $8, %rdi
	cmpq %rbx, %rdi
	jb 5b
	shlq $40, %rdx
	shlq $22, %r11
	orq %r11, %rdx
	orq %rbx, %rdx
	orq $4096, %rdx
	movq %rdx, %rcx
	movq %r9, %rdx
	movl %r8d, %eax
.Lw_commit:
	movq %rcx, (%rdx)			/* THE commit */
.Lpost_w:
	testl %eax, %eax
	js .Lw_out
	movq %rcx, (%rbp)			/* *post */
.Lw_out:
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
.Lw_eagain:
	movl $-11, %eax
	jmp .Lw_out
	.byte 0x0f, 0xb9, 0x3d
	.long RSEQ_SIG
.Labort_w:
	jmp .Lw_restart
	.cfi_adjust_cfa_offset -48
	.cfi_restore %rbx
	.cfi_restore %r12
	.cfi_restore %r13
	.cfi_restore %r14
	.cfi_restore %r15
	.cfi_restore %rbp
.Lw_einval:
	movl $-22, %eax
	ret
	.cfi_endproc
	.size ut_graph_write, . - ut_graph_write

/*
 * int ut_graph_cas_on_cpu(struct rseq *rs, unsigned int cpu, uint64_t *addr,
 *                         uint64_t e0, uint64_t e1, uint64_t n0)
 * On CPU cpu, inside one critical section: if addr[0] == e0 (and addr[1] == e1
 * when e1 != 0), store addr[0] = n0 (the commit).  Returns 1 stored, 0 no match,
 * -1 running on another CPU.
 */
	.globl ut_graph_cas_on_cpu
	.hidden ut_graph_cas_on_cpu
	.type ut_graph_cas_on_cpu, @function
	.balign 16
ut_graph_cas_on_cpu:
	.cfi_startproc
.Lc_restart:
	leaq .Lcs_c(%rip), %rax
	movq %rax, 8(%rdi)
.Lstart_c:
	cmpl 4(%rdi), %esi
	jne .Lc_cpu
	cmpq (%rdx), %rcx
	jne .Lc_miss
	testq %r8, %r8
	jz 1f
	cmpq 8(%rdx), %r8
	jne .Lc_miss
1:	movq %r9, (%rdx)			/* THE commit */
.Lpost_c:
	movl $1, %eax
	ret
.Lc_miss:
	xorl %eax, %eax
	ret
.Lc_cpu:
	movl $-1, %eax
	ret
	.byte 0x0f, 0xb9, 0x3d
	.long RSEQ_SIG
.Labort_c:
	jmp .Lc_restart
	.cfi_endproc
	.size ut_graph_cas_on_cpu, . - ut_graph_cas_on_cpu

	/* struct rseq_cs {u32 version, flags; u64 start_ip, post_commit_offset, abort_ip} */
	.section .data.rel.ro, "aw"
	.balign 32
.Lcs_e:
	.long 0, 0
	.quad .Lstart_e
	.quad .Lpost_e - .Lstart_e
	.quad .Labort_e
	.balign 32
.Lcs_r:
	.long 0, 0
	.quad .Lstart_r
	.quad .Lpost_r - .Lstart_r
	.quad .Labort_r
	.balign 32
.Lcs_w:
	.long 0, 0
	.quad .Lstart_w
	.quad .Lpost_w - .Lstart_w
	.quad .Labort_w
	.balign 32
.Lcs_c:
	.long 0, 0
	.quad .Lstart_c
	.quad .Lpost_c - .Lstart_c
	.quad .Labort_c

	.section .note.GNU-stack, "", @progbits

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
 * ut_graph_cas_on_cpu  one conditional store inside an rseq critical section on
 *                      a given CPU (an entry turned into DISCARD).
 * ut_graph_rewind_on_cpu  tracing_thresh's rewind of a ring's tail on a given CPU.
 *
 * FAST PATHS.  The common entry (the thread has a shadow stack with room, no dead
 * frame on top, a plain frame or a tail call from one, no depth limit, no
 * NOSLEEP/RETADDR/NOIRQS/SELECT option, no function profiler, an rseq area) and
 * the common return (the
 * top frame is the returning one, with the plain frames of its tail call chain
 * below, no NOSLEEP, NOIRQS; under tracing_thresh a long call, or a short one whose
 * entry is the tail of its CPU's page: the rewind) are done here without calling C and
 * without touching a vector register: the entry writes a 32-byte gent (the frame
 * keeps the wpos it committed and the CPU, for the rewind), the return a 48-byte gret,
 * with the algorithm of ut_rb_write_on_cpu() (common/ut_ring_ref.c), the start of
 * a new page and the no-overwrite "full" case included, inside an rseq critical
 * section whose last instruction is the commit.  Everything else
 * goes to ut_graph_entry()/ut_graph_return() (graph.c) with every register saved,
 * the vector state (and, on the return, the x87 stack: long double results)
 * included.
 *
 * Every general register is preserved on both paths (not only the callee-saved
 * ones): a caller compiled with -fipa-ra may keep values in caller-saved
 * registers that the traced callee does not touch.
 */

#include "fpsave.h"
#include "regs.h"

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
#define CTL_PROFILE_ON 88
#define CTL_PROFILE_EPOCH 92
#define CTL_PROFILE_GRAPH_TIME 100
#define CTL_PROFILE_TSC_MULT 104
#define GRAPH_NOSLEEP 2		/* UT_CTL_GRAPH_NOSLEEP */
#define TRACER_NOP 0		/* UT_TRACER_NOP */
/* the profiler's per-thread table (profile.c) */
#define TAB_EPOCH 8
#define TAB_E 24
#define REC_SIZE 40
#define REC_IP 0
#define REC_CPU 8
#define REC_HITS 16
#define REC_TIME 24
#define REC_SQ 32
#define PROF_SLOTS 4096
#define GRAPH_SELECT 8		/* UT_CTL_GRAPH_SELECT */
#define SEL_GRAPH 6		/* UT_SEL_GRAPH_FUNC | UT_SEL_GRAPH_NOTRACE */
#define SITE_SHIFT 4		/* sizeof(struct ut_site) == 16 */
#define SITE_SEL 11		/* offsetof(struct ut_site, sel) */
#define GSTUB_INDEX 17		/* the site's index: C + 17 = A + 28 (stubs.c) */
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
#define THR_GFUNCS 40
#define THR_GNOTRACE 44
#define THR_TASK_OK 48
#define THR_TASK_NO 52
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
#define GF_MONO 64		/* mono_ns */
#define GF_IMASK 72
#define GF_ISILENT 80
#define GF_IGEN 88
#define GF_VALID 1
#define GF_MARKER 2
#define GF_SILENT 0x10		/* a set_graph_notrace function's frame */
#define GF_GFUNC 0x20		/* a set_graph_function function's frame */
#define GF_IFRAME 0x1181	/* GF_VALID | GF_INST | GF_NOTOP | GF_IONE: one instance's */
/* route.c: the graph masks follow UT_MAX_SITES function masks */
#define ROUTE_GMASKS (8 << 22)
/* ut_tramp_graph_isite keeps two values below its frame (the red zone) */
#define RZ_IGEN -8		/* ut_route_gen read before the mask */
#define RZ_ISLOT -16		/* the instance's slot - 1 */

	/*
	 * PUSH_GPRS (regs.h): the registers a C call may clobber, less r11 at an entry
	 * (free at a function's entry; ENTRY_CHECK has used it already).  The fast paths
	 * use no other; the slow paths push rbx (SAVE_FP's) on top, which gives
	 * ut_graph_return its layout.
	 */

/*
 * The ring write shared by both fast paths, inside the caller's critical section
 * (.Lstart_X .. .Lpost_X; the caller armed rseq_cs).  In: r10 = struct rseq,
 * r11 = area, r9 = the event's first 8 bytes (len/type/flags/tid).  rdx gets the
 * time stamp, rcx the rb_cpu, rsi the new wpos, r8 the event's address; rax and
 * r10 are free afterwards (the abort handlers reload r10); the caller writes the
 * body (at 16(%r8)) then commits at \commit with `movq %rsi, (%rcx)`, the last
 * instruction of its section.  Jumps to \fail when the ring takes nothing
 * (disabled, bad cpu).  An event that does not fit starts the next page here, as
 * ut_rb_write_on_cpu() does (the old page's commit, the new page's header, the
 * event at its offset 0); when no-overwrite finds the buffer full it goes straight
 * to \commit with rcx = &dropped and rsi = dropped + 1 (rdx is no time stamp
 * then, and the rb_cpu's 128-byte alignment makes bit 3 of rcx tell the case).
 * rdi (the frame) survives, and so still holds it at an abort.  The time stamp is
 * read last, just before the event is written.
 */
	.macro RING_RESERVE len, fail, commit
	movl 4(%r10), %eax			/* cpu_id */
	cmpl ut_rt_nr_cpus(%rip), %eax
	jae \fail
	movl %eax, %r8d
	shlq $7, %rax
	leaq 4096(%r11,%rax), %rcx		/* rcx: struct rb_cpu */
	cmpl $0, 24(%rcx)			/* enabled */
	je \fail
	movl 16(%rcx), %eax			/* nr_pages in [3, RB_MAX_PAGES] */
	subl $3, %eax
	cmpl $(RB_MAX_PAGES - 3), %eax
	ja \fail
	movq (%rcx), %rsi			/* rsi: wpos */
	movq %rsi, %rax
	shrq $22, %rax
	andl $0x3ffff, %eax			/* slot */
	cmpl 16(%rcx), %eax
	jae \fail
	shlq $18, %r8
	addq %rax, %r8
	shlq $12, %r8				/* cpu << 30 | slot << 12 */
	movl %esi, %eax
	andl $0xfff, %eax			/* off */
	cmpl $(RB_PAGE_DATA - \len), %eax
	ja 8f					/* a new page */
	leaq (RB_DATA_OFF + 32)(%r11,%r8), %r8	/* the current page's data */
	addq %rax, %r8				/* r8: the event */
	rdtsc
	shlq $32, %rdx
	orq %rax, %rdx				/* rdx: ts */
	testl $0xfff, %esi
	jnz 9f
	movq %rdx, -32(%r8)			/* off 0: page->time_stamp */
	jmp 9f
	/* out of the straight path but inside the section: the next page */
8:	movq %rsi, %r10
	shrq $40, %r10
	incl %r10d
	andl $0xffffff, %r10d			/* r10: nvp */
	testl $1, 20(%rcx)			/* RB_F_OVERWRITE */
	jnz 7f
	movl %r10d, %eax
	subl 64(%rcx), %eax			/* nvp - (unsigned int)read_vpage */
	andl $0xffffff, %eax
	addl 28(%rcx), %eax			/* + held (the reader page) */
	jc 6f
	cmpl 16(%rcx), %eax
	jb 7f
6:	movq 8(%rcx), %rsi			/* full: the commit is dropped + 1 */
	incq %rsi
	addq $8, %rcx
	jmp \commit
7:	movq %rsi, %rax
	shrq $22, %rax
	andl $0x3ffff, %eax
	incl %eax
	cmpl 16(%rcx), %eax
	jb 6f
	xorl %eax, %eax				/* eax: nslot */
6:	leaq RB_DATA_OFF(%r11,%r8), %rdx	/* rdx: the old page */
	movq %rsi, 8(%rdx)			/* op->commit = w */
	shrl $12, %esi
	andl $0x3ff, %esi			/* its entries */
	addq 16(%rdx), %rsi			/* rsi: np->base_entries */
	andq $-(1 << 30), %r8			/* cpu << 30 */
	shlq $12, %rax
	addq %rax, %r8
	leaq RB_DATA_OFF(%r11,%r8), %r8		/* r8: the new page */
	movl %r10d, 24(%r8)			/* np->vpage */
	movl $RB_PAGE_MAGIC, 28(%r8)
	movq $0, 8(%r8)				/* np->commit */
	movq %rsi, 16(%r8)			/* np->base_entries */
	shlq $40, %r10
	shlq $10, %rax				/* nslot << 22 */
	leaq (%r10,%rax), %rsi			/* rsi: the new page's wpos, empty */
	rdtsc
	shlq $32, %rdx
	orq %rax, %rdx				/* rdx: ts */
	movq %rdx, (%r8)			/* np->time_stamp */
	addq $32, %r8				/* r8: the event, at offset 0 */
9:	movq %r9, (%r8)
	movq %rdx, 8(%r8)
	leaq (4096 + \len)(%rsi), %rsi		/* entries + 1, off + len */
	.endm

/*
 * \rs = ut_thr.rseq (r10: ut_thr's TLS offset; \rs may be r10 itself); none: to
 * \none.  Then arm rseq_cs with \cs: \restart is where the abort handler comes
 * back to, \start the critical section's first instruction.  Clobbers rax.
 */
	.macro RSEQ_BEGIN rs, none, cs, restart, start
	movq %fs:THR_RSEQ(%r10), \rs
	testq \rs, \rs
	jz \none
\restart:
	leaq \cs(%rip), %rax
	movq %rax, 8(\rs)
\start:
	.endm

	/*
	 * The function profiler alone (profile.c's ut_prof_fast: tracer nop,
	 * sleep-time and graph-time on, no set_graph_function, the TSC rate known),
	 * which the fast paths count themselves; else to \slow.  r11: the control page.
	 */
	.macro PROFILE_ALONE slow
	cmpl $TRACER_NOP, CTL_TRACER(%r11)
	jne \slow
	testl $(GRAPH_NOSLEEP | GRAPH_SELECT), CTL_GRAPH_OPTS(%r11)
	jnz \slow
	cmpl $0, CTL_PROFILE_GRAPH_TIME(%r11)
	je \slow
	cmpq $0, CTL_PROFILE_TSC_MULT(%r11)
	je \slow
	.endm

	.text

/*
 * The frame of a recorded call and its entry event (the top's fast path, top 1,
 * and one instance's, top 0), assembled twice with their own labels (sfx) and
 * rseq descriptors.  In: r8 = ip, r9 = the landing, r10 = ut_thr, r11 = the span,
 * rdi = the shadow stack, ecx = its top, rsi = the slot, edx = depth (bit 16: a
 * tail call); the instance's slot and generation in the red zone.  Out: the frame
 * complete, the slot hijacked.  The abort handler is SPAN_ABORT's.
 */
	.macro FRAME_PUSH sfx, top
	/* reserve the frame: top + 1 first, flags 0 until it is complete (graph.c) */
	leal 1(%rcx), %eax
	movl %eax, %fs:THR_GTOP(%r10)
	shlq $GF_SHIFT, %rcx
	addq %rcx, %rdi				/* rdi: our frame */
	movw $0, GF_FLAGS(%rdi)
	movq %rsi, GF_SLOT(%rdi)
	movq (%rsi), %rax
	btl $16, %edx
	jnc 5f
	movq GF_RET-GF_SIZE(%rdi), %rax		/* tail call: the top frame's original */
5:	movq %rax, GF_RET(%rdi)
	movq %r8, GF_IP(%rdi)
	movq %r9, GF_LANDING(%rdi)
	movw %dx, GF_DEPTH(%rdi)
	.if !\top
	/* what graph.c reads of an instance's frame: imask, isilent, igen, no NOSLEEP clock */
	movl RZ_ISLOT(%rsp), %ecx
	movl $1, %eax
	shlq %cl, %rax
	movq %rax, GF_IMASK(%rdi)
	movq $0, GF_ISILENT(%rdi)
	movl RZ_IGEN(%rsp), %eax
	movl %eax, GF_IGEN(%rdi)
	movq $0, GF_MONO(%rdi)
	.endif
	movzbl %fs:THR_EVFLAGS(%r10), %r9d
	movb %r9b, GF_EVFLAGS(%rdi)
	movl %fs:THR_TID(%r10), %eax
	shlq $32, %rax
	shll $24, %r9d
	orq %rax, %r9
	orq $EV_HDR_GENT, %r9			/* r9: header */
	.if \top
	/* the profiler's plain frame (.Le_prof): no entry event, only the time */
	cmpl $0, CTL_PROFILE_ON(%r11)
	jne .L\sfx\()_unwritten
	cmpl $TRACER_GRAPH, CTL_TRACER(%r11)
	jne .L\sfx\()_unwritten
	.endif
	RSEQ_BEGIN %r10, .L\sfx\()_unwritten, .Lcs_\sfx, .L\sfx\()_restart, .Lstart_\sfx	/* r10: struct rseq */
	RING_RESERVE 32, .L\sfx\()_unwritten, .Lcommit_\sfx
	movq GF_IP(%rdi), %rax
	movq %rax, 16(%r8)			/* ip */
	movzwl GF_DEPTH(%rdi), %eax
	movq %rax, 24(%r8)			/* depth, nextra 0 */
.Lcommit_\sfx:
	movq %rsi, (%rcx)			/* THE commit (or dropped + 1: full) */
.Lpost_\sfx:
	testb $8, %cl				/* full: no entry, as for a disabled ring */
	jnz .L\sfx\()_unwritten
	movq %rdx, GF_CALLTIME(%rdi)
	movq %rsi, GF_POST(%rdi)
	subq %r11, %rcx
	subl $(4096 - 128), %ecx
	shrl $7, %ecx				/* 1 + the cpu of that rb_cpu */
	movw %cx, GF_CPU(%rdi)
	jmp .L\sfx\()_hijack
.L\sfx\()_unwritten:			/* the ring took nothing: the frame without an entry */
	rdtsc
	shlq $32, %rdx
	orq %rax, %rdx
	movq %rdx, GF_CALLTIME(%rdi)
	movw $0, GF_CPU(%rdi)
.L\sfx\()_hijack:
	.if \top
	movw $GF_VALID, GF_FLAGS(%rdi)		/* complete */
	.else
	movw $GF_IFRAME, GF_FLAGS(%rdi)
	.endif
	movq GF_LANDING(%rdi), %rax
	movq %rax, 72(%rsp)			/* the slot: return to us */
	.endm

/*
 * The abort handler of FRAME_PUSH's or RET_WRITE's sequence: rdi is still the
 * frame; r10 the rseq area and r11 the span (the top's, or the frame's instance's)
 * again, and back to the restart, or to \fail when detached meanwhile.
 */
	.macro SPAN_ABORT sfx, top, fail
	.byte 0x0f, 0xb9, 0x3d
	.long RSEQ_SIG
.Labort_\sfx:
	movq ut_thr@gottpoff(%rip), %r10
	movq %fs:THR_RSEQ(%r10), %r10
	.if \top
	movq ut_rt_ctl(%rip), %r11
	testq %r11, %r11
	jnz .L\sfx\()_restart
	.else
	INST_SPAN \fail
	jmp .L\sfx\()_restart
	.endif
	jmp \fail
	.endm

/* r11: the span of the instance of frame rdi (its imask), or to \none when detached. */
	.macro INST_SPAN none
	cmpq $0, ut_rt_ctl(%rip)
	je \none
	bsfq GF_IMASK(%rdi), %rax
	leaq ut_stub_bases(%rip), %r11
	movq 8(%r11,%rax,8), %r11
	testq %r11, %r11
	jz \none
	.endm

/*
 * At an entry, this thread (r10: ut_thr) has a tid, is not inside the runtime and
 * has a shadow stack with room for a frame, else \slow.  Out: rdi = the stack, ecx
 * = its top, rsi = the slot, edx = 0 (the depth on an empty stack), and the flags
 * of `testl %ecx, %ecx`.
 */
	.macro STACK_ROOM slow
	cmpl $0, %fs:THR_TID(%r10)
	je \slow
	cmpb $0, %fs:THR_GUARD(%r10)
	jne \slow
	movq %fs:THR_GFRAMES(%r10), %rdi	/* rdi: the shadow stack */
	testq %rdi, %rdi
	jz \slow
	movl %fs:THR_GTOP(%r10), %ecx		/* ecx: top */
	cmpl $STACK_MAX, %ecx
	jae \slow
	leaq 72(%rsp), %rsi			/* rsi: the slot */
	xorl %edx, %edx				/* edx: depth 0 if empty */
	testl %ecx, %ecx
	.endm

/*
 * Is instance slot \idx + 1 still the graph instance frame \f was entered in
 * (route.c's rule: ut_route_gslot[slot], and no ut_route_gone[slot] after the
 * frame's igen)?  Else to \gone.  Clobbers \tmp (\tmp32 its low half).
 */
	.macro SLOT_LIVE f, idx, tmp, tmp32, gone
	leaq ut_route_gslot(%rip), \tmp
	cmpb $0, 1(\tmp,\idx)
	je \gone
	leaq ut_route_gone(%rip), \tmp
	movl 4(\tmp,\idx,4), \tmp32
	subl GF_IGEN(\f), \tmp32
	testl \tmp32, \tmp32
	jg \gone
	.endm

/*
 * r11: the span of instance slot \idx + 1 (ut_stub_bases) while its control page
 * says function_graph and tracing_on, else \off.
 */
	.macro INST_GRAPHING idx, off
	leaq ut_stub_bases(%rip), %r11
	movq 8(%r11,\idx,8), %r11
	testq %r11, %r11
	jz \off
	cmpl $TRACER_GRAPH, CTL_TRACER(%r11)
	jne \off
	cmpl $0, CTL_TRACING_ON(%r11)
	je \off
	.endm

/* An entry's slow path: C decides (fn: ut_graph_entry or ut_graph_entry_inst). */
	.macro ENTRY_SLOW fn
	PUSH %rbx
	SAVE_FP 0, 1				/* (keeps r8, r9) */
	leaq 80(%rbx), %rdi			/* the slot */
	movq %r8, %rsi				/* ip */
	movq %r9, %rdx				/* landing */
	call \fn
	RESTORE_FP 0, 0, 1
	POP %rbx
	.endm

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
2:	PUSH_GPRS 0
	.endm

	/* objects without per-site stubs (rare): the same body, other inputs */
	.globl ut_tramp_graph
	.hidden ut_tramp_graph
	.type ut_tramp_graph, @function
	.balign 64
ut_tramp_graph:
	.cfi_startproc
	ENTRY_CHECK
	movq 64(%rsp), %r8			/* r8: ip = site + 5 */
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
	movq 64(%rsp), %r9			/* B */
	movslq 17(%r9), %r8
	leaq 21(%r9,%r8), %r8			/* r8: ip = site + 5 */
	addq $5, %r9				/* r9: the landing, C */
.Le_common:					/* (ut_tramp_graph's stack is the same) */
	/* fast path conditions; anything unusual goes to C (r8, r9 kept for it) */
	cmpl $0, CTL_PROFILE_ON(%r11)		/* the profiler's frames: profile.c */
	jne .Le_prof
	cmpl $TRACER_GRAPH, CTL_TRACER(%r11)
	jne .Le_done
	/*
	 * max depth, options: both 0, or C (thresh is fine: the frame keeps post, cpu);
	 * set_graph_function/notrace alone (GRAPH_SELECT) is decided below (SELECT).
	 */
	cmpq $0, CTL_MAX_DEPTH(%r11)		/* max_graph_depth and graph_opts */
	je 1f
	cmpl $0, CTL_MAX_DEPTH(%r11)
	jne .Le_slow
	cmpl $GRAPH_SELECT, CTL_GRAPH_OPTS(%r11)
	jne .Le_slow
1:
.Le_checks:
	movq ut_thr@gottpoff(%rip), %r10
	/* set_ftrace_pid: recorded, not recorded, or C decides (ut_rt_task_ok) */
	movl ut_rt_task_gen(%rip), %eax
	cmpl %eax, %fs:THR_TASK_OK(%r10)
	je 2f
	cmpl %eax, %fs:THR_TASK_NO(%r10)
	je .Le_done
	jmp .Le_slow
	/*
	 * A tail call finds its slot holding the landing of the top frame, whose slot
	 * it is: the new frame gets the same slot and that frame's original return
	 * address (graph.c's rule), and bit 16 of edx says so.  An equal slot holding
	 * anything else is a dead frame: C.
	 */
2:	STACK_ROOM .Le_slow
	jz 3f
	movl %ecx, %eax
	shlq $GF_SHIFT, %rax
	leaq -GF_SIZE(%rdi,%rax), %rax		/* the top frame */
	cmpw $GF_VALID, GF_FLAGS(%rax)		/* a plain frame (not a marker, restored, ...) */
	jne .Le_selframe
	cmpq %rsi, GF_SLOT(%rax)
	jb .Le_slow				/* dead (slot < ours): C */
	movzwl GF_DEPTH(%rax), %edx		/* (mov keeps the flags of the cmp) */
	jne 4f
	movq GF_LANDING(%rax), %rax
	cmpq %rax, (%rsi)
	jne .Le_slow				/* dead (the slot was reused): C */
	orl $0x10000, %edx			/* a tail call */
4:
.Le_nested:
	incl %edx
3:	/*
	 * SELECT (graph.c's rule, once the top frame is known to be live): inside a
	 * set_graph_notrace function, or outside every set_graph_function one, the
	 * call is not recorded; the listed functions themselves go to C, which opens
	 * their counted frames; the rest is recorded here.  The site's flags come
	 * from its index, which its own stub keeps (ut_tramp_graph has none: C).
	 */
	testl $GRAPH_SELECT, CTL_GRAPH_OPTS(%r11)
	jz 6f
	cmpl $0, %fs:THR_GNOTRACE(%r10)
	jne .Le_done
	leaq ut_return_to_handler(%rip), %rax
	cmpq %rax, %r9
	je .Le_slow
	movl GSTUB_INDEX(%r9), %eax
	cmpl ut_nr_sites(%rip), %eax
	jae .Le_slow
	shlq $SITE_SHIFT, %rax
	addq ut_sites(%rip), %rax
	testb $SEL_GRAPH, SITE_SEL(%rax)
	jnz .Le_slow
	cmpl $0, ut_sel_graph_funcs(%rip)
	je 6f
	cmpl $0, %fs:THR_GFUNCS(%r10)
	je .Le_done
6:
	FRAME_PUSH e, 1
.Le_done:
	.cfi_remember_state
	POP_GPRS 0
	ret
	.cfi_restore_state

	/*
	 * The top frame is a set_graph_function or set_graph_notrace function's, live,
	 * and this is not a tail call from it: inside the first nothing is recorded,
	 * inside the second the call is an ordinary nested one.  Anything else: C.
	 */
.Le_selframe:
	cmpq %rsi, GF_SLOT(%rax)
	jbe .Le_slow				/* dead, or a tail call from it */
	cmpw $(GF_VALID | GF_SILENT), GF_FLAGS(%rax)
	je .Le_done
	cmpw $(GF_VALID | GF_GFUNC), GF_FLAGS(%rax)
	jne .Le_slow
	movzwl GF_DEPTH(%rax), %edx
	jmp .Le_nested

	/*
	 * The function profiler alone (tracer nop, graph-time on, sleep-time on, no
	 * set_graph_function): a plain frame stamped with the TSC, no event; its
	 * return counts it (.Lr_prof).  Anything else: C (profile.c).
	 */
.Le_prof:
	PROFILE_ALONE .Le_slow
	jmp .Le_checks

.Le_slow:
	ENTRY_SLOW ut_graph_entry
	jmp .Le_done

	SPAN_ABORT e, 1, .Le_unwritten
	.cfi_endproc
	.size ut_tramp_graph_site, . - ut_tramp_graph_site

	/*
	 * A site's entry of one function_graph instance (stubs.c, route.c): [rsp] =
	 * E + 6, the `jmp B` of its entry, [rsp + 8] = the slot.  The instance is the
	 * one bit of the site's graph mask (read after ut_route_gen, route.c's order),
	 * its span that of the stubs' instance entries (ut_stub_bases).  The frame is
	 * the fast path's, with graph.c's instance fields (GF_IFRAME): on an empty
	 * stack at depth 0, on a live GF_IFRAME frame of the same instance (graph.S's
	 * or C's) one deeper, so that its depth is what inst_walk counts.  Anything
	 * else goes to ut_graph_entry_inst, and so does what the top's fast path
	 * leaves to C: tracing_thresh, max_graph_depth, set_graph_function and
	 * set_graph_notrace (the top's UT_CTL_GRAPH_SELECT), the profiler, the
	 * instance's graph options, a thread set_ftrace_pid has not answered for.
	 */
	.globl ut_tramp_graph_isite
	.hidden ut_tramp_graph_isite
	.type ut_tramp_graph_isite, @function
	.balign 64
ut_tramp_graph_isite:
	.cfi_startproc
	movq ut_rt_ctl(%rip), %r11
	testq %r11, %r11
	jz 1f
	cmpl $0, ut_rt_off(%rip)
	je 2f
1:	ret
2:	PUSH_GPRS 0
	movq 64(%rsp), %r9			/* E + 6 */
	movslq 1(%r9), %rax
	leaq 5(%r9,%rax), %r9			/* B */
	movslq 17(%r9), %r8
	leaq 21(%r9,%r8), %r8			/* r8: ip = site + 5 */
	addq $5, %r9				/* r9: the landing, C */
	cmpq $0, CTL_THRESH(%r11)
	jne .Li_slow
	cmpl $0, CTL_MAX_DEPTH(%r11)
	jne .Li_slow
	testl $GRAPH_SELECT, CTL_GRAPH_OPTS(%r11)	/* set_graph_function, set_graph_notrace */
	jnz .Li_slow
	cmpl $0, CTL_PROFILE_ON(%r11)
	jne .Li_slow
	movl ut_route_gen(%rip), %eax
	movl %eax, RZ_IGEN(%rsp)
	cmpl $0, ut_routes_live(%rip)
	je .Li_done
	movq ut_route_masks(%rip), %rcx
	testq %rcx, %rcx
	jz .Li_done
	movl GSTUB_INDEX(%r9), %edx		/* rdx: the site's index */
	cmpl ut_nr_sites(%rip), %edx
	jae .Li_slow
	movq ROUTE_GMASKS(%rcx,%rdx,8), %rcx	/* the site's graph mask */
	testq %rcx, %rcx
	jz .Li_done
	leaq -1(%rcx), %rax
	testq %rax, %rcx
	jnz .Li_slow				/* several instances */
	bsfq %rcx, %rcx
	movq %rcx, RZ_ISLOT(%rsp)
	INST_GRAPHING %rcx, .Li_done
	cmpl $0, CTL_GRAPH_OPTS(%r11)
	jne .Li_slow
	movq ut_thr@gottpoff(%rip), %r10
	movl ut_rt_task_gen(%rip), %eax
	cmpl %eax, %fs:THR_TASK_OK(%r10)
	jne .Li_slow
	STACK_ROOM .Li_slow
	jz 6f
	movl %ecx, %eax
	shlq $GF_SHIFT, %rax
	leaq -GF_SIZE(%rdi,%rax), %rax		/* the top frame */
	cmpw $GF_IFRAME, GF_FLAGS(%rax)
	jne .Li_slow
	cmpq %rsi, GF_SLOT(%rax)
	jbe .Li_slow				/* dead, or a tail call from it */
	bsfq GF_IMASK(%rax), %rdx
	cmpq RZ_ISLOT(%rsp), %rdx
	jne .Li_slow				/* another instance's */
	SLOT_LIVE %rax, %rdx, %rcx, %ecx, .Li_slow
	movzwl GF_DEPTH(%rax), %edx
	incl %edx
	movl %fs:THR_GTOP(%r10), %ecx
6:
	FRAME_PUSH i, 0
.Li_done:
	.cfi_remember_state
	POP_GPRS 0
	ret
	.cfi_restore_state

.Li_slow:
	ENTRY_SLOW ut_graph_entry_inst
	jmp .Li_done

	SPAN_ABORT i, 0, .Li_unwritten
	.cfi_endproc
	.size ut_tramp_graph_isite, . - ut_tramp_graph_isite

/*
 * The exit event of frame rdi into span r11 (the top's fast path, top 1; one
 * instance's, top 0), with its own labels (sfx) and rseq descriptor; then the
 * pop.  r10: ut_thr.  The abort handler is SPAN_ABORT's.
 */
	.macro RET_WRITE sfx
	movzbl %fs:THR_EVFLAGS(%r10), %r9d
	movl %fs:THR_TID(%r10), %eax
	shlq $32, %rax
	shll $24, %r9d
	orq %rax, %r9
	orq $EV_HDR_GRET, %r9
	RSEQ_BEGIN %r10, .Lr_slow, .Lcs_\sfx, .L\sfx\()_restart, .Lstart_\sfx	/* r10: struct rseq */
	RING_RESERVE 48, .Lr_slow, .Lcommit_\sfx
	movq GF_IP(%rdi), %rax
	movq %rax, 16(%r8)			/* ip */
	movq GF_CALLTIME(%rdi), %rax
	movq %rax, 24(%r8)			/* calltime */
	movq ut_thr@gottpoff(%rip), %rax
	movl %fs:THR_GOVERRUN(%rax), %eax
	shlq $32, %rax
	movzwl GF_DEPTH(%rdi), %r11d		/* (the abort handler reloads r11) */
	orq %r11, %rax
	movq %rax, 32(%r8)			/* depth, overrun */
	movq 64(%rsp), %rax
	movq %rax, 40(%r8)			/* retval = rax */
.Lcommit_\sfx:
	movq %rsi, (%rcx)			/* THE commit (or dropped + 1: full) */
.Lpost_\sfx:
	movq ut_thr@gottpoff(%rip), %r10
	jmp .Lr_pop
	.endm

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
	.cfi_def_cfa_offset 0			/* rsp = slot + 8: the CFA */
	subq $8, %rsp				/* rsp = the slot: the original goes there */
	.cfi_adjust_cfa_offset 8
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
	leaq 72(%rsp), %rsi			/* rsi: the slot */
	cmpq %rsi, GF_SLOT(%rdi)
	jne .Lr_slow				/* dead frames above, or not on top */
	cmpw $GF_VALID, GF_FLAGS(%rdi)
	jne .Lr_inst				/* one instance's, or C */
	cmpb $0, %fs:THR_GUARD(%r10)
	jne .Lr_slow
	/*
	 * A tail call chain: the frames below of the same slot return now too, each
	 * with its exit.  All must be plain, else C does the whole return (nothing is
	 * popped yet).  Their original return addresses are the same (the entry of
	 * a tail call copies it).
	 */
	movq %rdi, %rax
	movl %fs:THR_GTOP(%r10), %ecx
2:	decl %ecx
	jz 1f
	subq $GF_SIZE, %rax
	cmpq %rsi, GF_SLOT(%rax)
	jne 1f
	cmpw $GF_VALID, GF_FLAGS(%rax)
	je 2b
	jmp .Lr_slow
1:	movq GF_RET(%rdi), %rax
	movq %rax, 72(%rsp)			/* return to the original */
.Lr_frame:					/* rdi: the top frame, r10: ut_thr */
	movq ut_rt_ctl(%rip), %r11
	testq %r11, %r11
	jz .Lr_pop
	cmpl $0, CTL_PROFILE_ON(%r11)
	jne .Lr_prof
	cmpl $TRACER_GRAPH, CTL_TRACER(%r11)
	jne .Lr_pop
	cmpl $0, CTL_TRACING_ON(%r11)
	je .Lr_pop
	cmpl $0, ut_rt_off(%rip)
	jne .Lr_pop
	testl $3, CTL_GRAPH_OPTS(%r11)		/* NOIRQS, NOSLEEP */
	jne .Lr_slow
	movq CTL_THRESH(%r11), %rcx
	testq %rcx, %rcx
	jnz .Lr_thresh
.Lr_write:
	RET_WRITE r

	/*
	 * The function profiler alone (as .Le_prof): count the plain frame rdi in the
	 * thread's table, as profile.c's count() does (the same hash, at most 16
	 * probes here), its time in ns from the TSC (profile_tsc_mult).  A thread
	 * without a table of this epoch, without rseq, or a table too full: C.
	 */
.Lr_prof:
	PROFILE_ALONE .Lr_slow
	cmpl $0, ut_rt_off(%rip)
	jne .Lr_slow
	movq ut_prof_mine@gottpoff(%rip), %rax
	movq %fs:(%rax), %r9			/* r9: the table */
	testq %r9, %r9
	jz .Lr_slow
	movl CTL_PROFILE_EPOCH(%r11), %eax
	cmpl %eax, TAB_EPOCH(%r9)
	jne .Lr_slow
	movq %fs:THR_RSEQ(%r10), %rcx
	testq %rcx, %rcx
	jz .Lr_slow
	movl 4(%rcx), %ecx			/* rcx: cpu_id */
	movq CTL_PROFILE_TSC_MULT(%r11), %r8
	rdtsc
	shlq $32, %rdx
	orq %rdx, %rax
	subq GF_CALLTIME(%rdi), %rax
	jae 1f
	xorl %eax, %eax
1:	mulq %r8
	shrdq $32, %rdx, %rax
	movq %rax, %rsi				/* rsi: ns */
	movq %rcx, %rax
	shlq $40, %rax
	xorq GF_IP(%rdi), %rax
	movabsq $0x9e3779b97f4a7c15, %rdx
	imulq %rdx, %rax
	shrq $52, %rax				/* rax: the slot */
	movl $16, %r8d
2:	leaq (%rax,%rax,4), %rdx
	leaq TAB_E(%r9,%rdx,8), %rdx		/* rdx: the record */
	cmpq $0, REC_HITS(%rdx)
	je 3f
	movq GF_IP(%rdi), %r11
	cmpq %r11, REC_IP(%rdx)
	jne 4f
	cmpl %ecx, REC_CPU(%rdx)
	je 5f
4:	incl %eax
	andl $(PROF_SLOTS - 1), %eax
	decl %r8d
	jnz 2b
	jmp .Lr_slow
3:	movq GF_IP(%rdi), %r11			/* a new record */
	movq %r11, REC_IP(%rdx)
	movl %ecx, REC_CPU(%rdx)
5:	addq %rsi, REC_TIME(%rdx)
	movq %rsi, %rax
	imulq %rsi, %rax
	addq %rax, REC_SQ(%rdx)
	incq REC_HITS(%rdx)			/* last: a reader takes hits != 0 as a record */
.Lr_pop:					/* rdi: the top frame, r10: ut_thr */
	movq GF_LANDING(%rdi), %r11
	movw $0, GF_FLAGS(%rdi)			/* flags 0 first, then the top (graph.c) */
	decl %fs:THR_GTOP(%r10)
	jz 3f
	leaq 72(%rsp), %rsi
	cmpq %rsi, GF_SLOT-GF_SIZE(%rdi)	/* the next frame of a tail call chain */
	jne 3f
	subq $GF_SIZE, %rdi
	jmp .Lr_frame
	/*
	 * (After a chain, r11 is the landing of its bottom frame: `ret` or `jmp` go
	 * to the same address, only the prediction may differ.)
	 */
3:	leaq ut_return_to_handler(%rip), %rdx
	cmpq %rdx, %r11				/* (pops keep the flags) */
	.cfi_remember_state
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
	.cfi_adjust_cfa_offset -8
	jmp *-8(%rsp)
	.cfi_restore_state

	/*
	 * tracing_thresh (rcx: thresh_tsc): a call at or over it gets its exit as
	 * above.  A shorter one whose entry is still the last event of its CPU's page,
	 * not the first one, written by this fast path's 32-byte kind, and this thread
	 * is on that CPU: wpos goes back to its value before the entry, no exit.  In
	 * one rseq sequence: the ring is enabled (no reset under way), wpos is still
	 * the one the entry committed and the tail event still has the entry's time
	 * stamp (so it is not another thread's event at the same place after a reset);
	 * then rb_cpu.gen + 1 (a reader copying the page meanwhile sees that wpos went
	 * back, even if a new event brings it to the same value again) and the commit.  Everything else is graph.c's (unwrite_entry:
	 * DISCARD in place, another CPU, a page's first event, no entry written).
	 */
.Lr_thresh:
	rdtsc
	shlq $32, %rdx
	orq %rax, %rdx
	subq GF_CALLTIME(%rdi), %rdx
	cmpq %rcx, %rdx
	jae .Lr_write				/* long: the exit */
	testb $0x80, GF_EVFLAGS(%rdi)		/* a 40-byte RETADDR entry */
	jnz .Lr_slow
	movzwl GF_CPU(%rdi), %r8d
	decl %r8d				/* 0 (no entry) wraps: C */
	cmpl ut_rt_nr_cpus(%rip), %r8d
	jae .Lr_slow
	movq GF_POST(%rdi), %rsi		/* rsi: the wpos the entry committed */
	movl %esi, %eax
	andl $0xfff, %eax
	cmpl $32, %eax				/* the first event of its page: C */
	jbe .Lr_slow
	movq %rsi, %r9
	shrq $22, %r9
	andl $0x3ffff, %r9d			/* its slot */
	movl %r8d, %ecx
	shlq $18, %rcx
	addq %rcx, %r9
	shlq $12, %r9				/* cpu << 30 | slot << 12 */
	addq %rax, %r9
	leaq (RB_DATA_OFF + 8)(%r11,%r9), %r9	/* r9: the entry's time stamp (page + off - 32 + 32 + 8) */
	RSEQ_BEGIN %rdx, .Lr_slow, .Lcs_t, .Lr_trestart, .Lstart_t	/* rdx: struct rseq */
	cmpl 4(%rdx), %r8d			/* on the entry's CPU */
	jne .Lr_slow
	movl %r8d, %ecx
	shlq $7, %rcx
	leaq 4096(%r11,%rcx), %rcx		/* rcx: its struct rb_cpu */
	cmpl $0, 24(%rcx)			/* enabled: not being reset */
	je .Lr_slow
	cmpq (%rcx), %rsi			/* the entry is still the tail */
	jne .Lr_slow
	movq (%r9), %rax
	cmpq GF_CALLTIME(%rdi), %rax		/* and it is this entry (not one after a reset) */
	jne .Lr_slow
	movq 40(%rcx), %rax
	incq %rax
	movq %rax, 40(%rcx)			/* gen + 1: copies readers make now are void */
	leaq -(4096 + 32)(%rsi), %rax		/* wpos before it (entries - 1, off - 32) */
	movq %rax, (%rcx)			/* THE commit: the rewind */
.Lpost_t:
	jmp .Lr_pop

	.byte 0x0f, 0xb9, 0x3d
	.long RSEQ_SIG
.Labort_t:					/* rdx, r10 survive an abort */
	movq ut_rt_ctl(%rip), %r11
	testq %r11, %r11
	jnz .Lr_trestart
	jmp .Lr_slow

.Lr_slow:
	PUSH %rbx
	SAVE_FP 1, 1				/* and the x87 stack: long double results */
	movq %rbx, %rdi				/* the saved registers, then the slot */
	call ut_graph_return
	movl %eax, %r11d			/* 1: ret (RESTORE_FP keeps r11) */
	RESTORE_FP 1, 0, 1
	testl %r11d, %r11d			/* (pops keep the flags) */
	.cfi_remember_state
	POP %rbx
	POP_GPRS
	jz .Lr_jmp
	ret					/* to the original return address, now in the slot */
	.cfi_restore_state

	SPAN_ABORT r, 1, .Lr_slow

	/*
	 * A frame of one instance (GF_IFRAME, ut_tramp_graph_isite's), alone on its
	 * slot: its exit into that instance's span while the slot is still the graph
	 * instance it was at the entry (route.c's ut_route_gen and ut_route_gone: a
	 * tracer switch or an rmdir since, and the exit is written nowhere) and its
	 * control page says function_graph and tracing_on.  Under tracing_thresh, or
	 * with its sleep-time or funcgraph-irqs off: C, as for its entry.
	 */
.Lr_inst:
	cmpw $GF_IFRAME, GF_FLAGS(%rdi)
	jne .Lr_slow
	cmpb $0, %fs:THR_GUARD(%r10)
	jne .Lr_slow
	cmpl $1, %fs:THR_GTOP(%r10)
	je 1f
	cmpq %rsi, GF_SLOT-GF_SIZE(%rdi)
	je .Lr_slow				/* a tail call chain: C */
1:	movq GF_RET(%rdi), %rax
	movq %rax, 72(%rsp)			/* return to the original */
	movq ut_rt_ctl(%rip), %r11
	testq %r11, %r11
	jz .Lr_pop
	cmpq $0, CTL_THRESH(%r11)
	jne .Lr_slow
	bsfq GF_IMASK(%rdi), %rcx
	SLOT_LIVE %rdi, %rcx, %rax, %eax, .Lr_pop
	cmpl $0, ut_rt_off(%rip)		/* tracing_off() here */
	jne .Lr_pop
	INST_GRAPHING %rcx, .Lr_pop
	testl $3, CTL_GRAPH_OPTS(%r11)		/* NOIRQS, NOSLEEP */
	jne .Lr_slow
	RET_WRITE q
	SPAN_ABORT q, 0, .Lr_slow
	.cfi_endproc
	.size ut_return_to_handler, . - ut_return_to_handler

/* ---- C helpers ------------------------------------------------------------------- */

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

/*
 * int ut_graph_rewind_on_cpu(struct rseq *rs, unsigned int cpu, void *area,
 *                            uint64_t post, uint64_t pre, uint64_t calltime)
 * tracing_thresh's rewind as the return's fast path does it (see .Lr_thresh), for
 * any entry length: on CPU cpu, inside one critical section, if the ring is
 * enabled, its wpos is post and the event that ends there (it begins at pre's
 * offset) has the time stamp calltime: gen + 1, then wpos = pre (the commit).
 * Returns 1 rewound, 0 no match, -1 running on another CPU.
 */
	.globl ut_graph_rewind_on_cpu
	.hidden ut_graph_rewind_on_cpu
	.type ut_graph_rewind_on_cpu, @function
	.balign 16
ut_graph_rewind_on_cpu:
	.cfi_startproc
	movq %r8, %r10
	shrq $22, %r10
	andl $0x3ffff, %r10d			/* pre's slot */
	movl %esi, %eax
	shlq $18, %rax
	addq %rax, %r10
	shlq $12, %r10				/* cpu << 30 | slot << 12 */
	movl %r8d, %eax
	andl $0xfff, %eax
	addq %rax, %r10
	leaq (RB_DATA_OFF + 32 + 8)(%rdx,%r10), %r10	/* r10: the event's time stamp */
	movl %esi, %r11d
	shlq $7, %r11
	leaq 4096(%rdx,%r11), %r11		/* r11: the struct rb_cpu */
.Lw_restart:
	leaq .Lcs_w(%rip), %rax
	movq %rax, 8(%rdi)
.Lstart_w:
	cmpl 4(%rdi), %esi
	jne .Lw_cpu
	cmpl $0, 24(%r11)			/* enabled */
	je .Lw_miss
	cmpq (%r11), %rcx			/* wpos == post */
	jne .Lw_miss
	cmpq (%r10), %r9			/* the tail is this entry */
	jne .Lw_miss
	movq 40(%r11), %rax
	incq %rax
	movq %rax, 40(%r11)			/* gen + 1 */
	movq %r8, (%r11)			/* THE commit */
.Lpost_w:
	movl $1, %eax
	ret
.Lw_miss:
	xorl %eax, %eax
	ret
.Lw_cpu:
	movl $-1, %eax
	ret
	.byte 0x0f, 0xb9, 0x3d
	.long RSEQ_SIG
.Labort_w:
	jmp .Lw_restart
	.cfi_endproc
	.size ut_graph_rewind_on_cpu, . - ut_graph_rewind_on_cpu

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
.Lcs_i:
	.long 0, 0
	.quad .Lstart_i
	.quad .Lpost_i - .Lstart_i
	.quad .Labort_i
	.balign 32
.Lcs_q:
	.long 0, 0
	.quad .Lstart_q
	.quad .Lpost_q - .Lstart_q
	.quad .Labort_q
	.balign 32
.Lcs_t:
	.long 0, 0
	.quad .Lstart_t
	.quad .Lpost_t - .Lstart_t
	.quad .Labort_t
	.balign 32
.Lcs_c:
	.long 0, 0
	.quad .Lstart_c
	.quad .Lpost_c - .Lstart_c
	.quad .Labort_c
	.balign 32
.Lcs_w:
	.long 0, 0
	.quad .Lstart_w
	.quad .Lpost_w - .Lstart_w
	.quad .Labort_w

	.section .note.GNU-stack, "", @progbits

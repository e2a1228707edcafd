/* SPDX-License-Identifier: MIT */
/*
 * graph.h - function_graph's shadow stack frames, shared by graph.c (the stack and
 * its rules) and graph_ctx.c (context switches: swapcontext, setcontext).
 */
#ifndef UT_GRAPH_H
#define UT_GRAPH_H

#include <stdint.h>

#include "rt.h"

#define GF_VALID 0x1u
#define GF_MARKER 0x2u
#define GF_ALTSTACK 0x4u /* marker: the handler runs on the sigaltstack [ret, ip) */
#define GF_RESTORED 0x8u /* the slot holds the original address (an unwinder runs) */
#define GF_SILENT 0x10u	 /* set_graph_notrace: nothing is written for it or inside */
#define GF_GFUNC 0x20u	 /* a set_graph_function function: what is inside is traced */
#define GF_CTX 0x40u	 /* marker: a context switch (graph_ctx.c); ret = its key */
/* function_graph instances (route.c): never plain frames, so graph.S leaves them to C */
#define GF_INST 0x80u	  /* imask/isilent/igen say what instances made of the call */
#define GF_NOTOP 0x100u	  /* GF_INST only: the top level did not take it (no top depth) */
#define GF_IGFUNC 0x200u  /* GF_INST: a set_graph_function function (for its imask) */
/*
 * A frame of one instance alone (GF_INST | GF_NOTOP, imask one bit, nothing
 * silent), made by graph.S's entry of such a site or by C: depth is that
 * instance's own, what inst_walk counts, so that graph.S can pop it and enter the
 * next one above it (one deeper) without walking the stack.
 */
#define GF_IONE 0x1000u
/* the function profiler (profile.c): never plain frames either */
#define GF_PROF 0x400u	  /* counted at its exit; pt0 and psub are set */
#define GF_PCPU 0x800u	  /* GF_PROF: pt0 is thread CPU time (sleep-time off), else monotonic */

struct ut_gframe {
	uintptr_t slot;	   /* marker: the interrupted context's rsp */
	uintptr_t ret;	   /* the original return address; marker: altstack low end */
	uintptr_t ip;	   /* site + 5; marker: altstack high end */
	uint64_t calltime; /* TSC */
	uint64_t post;	   /* wpos committed with the entry; marker: saved signal state */
	uint16_t cpu;	   /* 1 + the entry's CPU; 0: no entry written (nothing to rewind) */
	uint8_t evflags;   /* the entry's header flags */
	uint8_t _pad;
	uint16_t depth;	   /* marker: the depth of functions inside the handler */
	uint16_t flags;	   /* GF_*; 0: not a frame (being pushed or popped) */
	uintptr_t landing; /* what the slot holds while hijacked (C of the site's stub) */
	uint64_t off_ns;   /* NOSLEEP: monotonic - thread CPU time at the entry */
	uint64_t mono_ns;  /* NOSLEEP: monotonic at the entry */
	uint64_t imask;	   /* GF_INST: the instances (bit slot - 1) that took the call */
	uint64_t isilent;  /* GF_INST: those it is a set_graph_notrace function of */
	uint32_t igen;	   /* GF_INST: ut_route_ggen() at the entry (route.c) */
	uint32_t _pad2;
	uint64_t pt0;	   /* GF_PROF: the profiler's clock at the entry, ns */
	uint64_t psub;	   /* GF_PROF: the profiled children's time, ns (graph-time off) */
	uint64_t _spare[2];
};

/*
 * The mapping of a thread's shadow stack: the frames, GSTACK_SPARE more for
 * markers, then the frames of suspended contexts (graph_ctx.c).  The room for
 * markers beyond the functions' limit: a handler entered with the stack full (a
 * SIGSEGV from a stack overflow in deep recursion) still gets its marker, so that
 * a jump out of it is seen as leaving the handler.
 */
#define GSTACK_SPARE 32
#define GSTACK_FRAMES ((size_t)UT_GRAPH_STACK_MAX + GSTACK_SPARE)
#define GPARK_SLOTS 16
#define GPARK_FRAMES 64
struct ut_gpark {
	uintptr_t key;	    /* the ucontext_t the context was saved into; 0: free */
	uintptr_t rip, rsp; /* what it held then (else it was made anew since) */
	uint32_t n;
	uint32_t _pad;
	struct ut_gframe f[GPARK_FRAMES]; /* bottom first, its context marker last */
};
#define GSTACK_BYTES                                                                               \
	(GSTACK_FRAMES * sizeof(struct ut_gframe) + GPARK_SLOTS * sizeof(struct ut_gpark))

static inline struct ut_gpark *ut_gparks(struct ut_gframe *fs)
{
	return (struct ut_gpark *)(fs + GSTACK_FRAMES);
}

#define barrier() __asm__ volatile("" ::: "memory")

/* The graph tracer is on and recording in this process, or NULL. */
struct ut_ctl *ut_graph_ctl(void);
/* The top's graph or an instance's wants shadow stacks in this process. */
int ut_graph_wanted(void);
/* The thread's shadow stack, mapped now (NULL: no memory). */
struct ut_gframe *ut_gs_alloc(void);
/* The depth of a function called now, with top frames in use. */
unsigned int ut_gnext_depth(struct ut_gframe *fs, uint32_t top);
/* Pop the top frame (whatever it is) into *out. */
void ut_gpop(struct ut_gframe *fs, struct ut_gframe *out);
/* The exit event of (a copy of) a frame. */
void ut_gwrite_exit(const struct ut_gframe *f, uint64_t retval);
/* A signal marker popped by a jump out of its handler: the thread is back. */
void ut_gleave_marker(const struct ut_gframe *m);

#endif

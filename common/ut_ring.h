/* SPDX-License-Identifier: MIT */
/*
 * ut_ring.h - the shared-memory ring buffer: layout and the contract between
 * writers (traced processes, and utracefs itself for trace_marker) and the one
 * reader (utracefs).
 *
 * The whole tracing area is one memfd created by utracefs and handed to every
 * registered process over the control socket.  It holds UT_INST_MAX spans, one per
 * tracing instance (0: the top level, then instances/NAME), each of
 * ut_inst_span(nr_cpus) bytes at i * span, and after them the function probes'
 * counters (ut_sel.h).  Each span is laid out alike:
 *
 *   offset 0                       control page (struct ut_ctl, ut_ctl.h), mapped
 *                                  read-only by traced processes
 *   UT_RB_CPU_OFF                  struct rb_cpu[nr_cpus], one per CPU, 128 bytes
 *   UT_RB_DATA_OFF + cpu*UT_RB_CPU_SPAN
 *                                  that CPU's ring: up to UT_RB_MAX_PAGES pages of
 *                                  UT_RB_PAGE_SIZE bytes (the file is sparse; only
 *                                  pages in use are touched)
 *
 * Each CPU's ring is an array of nr_pages pages used in a circle.  A page holds a
 * struct rb_page header and UT_RB_PAGE_DATA bytes of events.  Events never cross a
 * page boundary.  Pages are numbered by a "virtual page" number (vpage) that grows
 * forever (modulo 2^24); vpage v lives in slot v mod nr_pages.
 *
 * THE WRITE POSITION.  Everything a writer publishes is in one 64-bit word,
 * rb_cpu.wpos, which packs offset-in-page, entries-in-page, slot and vpage (see
 * RB_WPOS_* below).  A writer:
 *
 *   1. reads wpos (and enabled, nr_pages, flags, read_vpage when needed);
 *   2. writes the event bytes at data[offset] of the current page - bytes beyond
 *      the committed offset are invisible to the reader;
 *   3. commits with ONE store of the new wpos (offset += len, entries += 1).
 *
 * Steps 1-3 run inside a restartable sequence (rseq) on the current CPU, the
 * commit store being the last instruction of the critical section.  Preemption,
 * migration or a signal aborts and restarts the sequence, so two writers on one
 * CPU never interleave and a writer killed at any instruction leaves wpos as it
 * was: the half-written bytes are simply beyond the committed offset.
 *
 * When the event does not fit in the current page the writer, still in the same
 * critical section, finishes the page and starts the next one:
 *   - no-overwrite mode (RB_F_OVERWRITE clear): if next vpage - read_vpage +
 *     held >= nr_pages the buffer is full; the event is dropped and the commit
 *     store is instead `dropped = dropped + 1` (still one store, still last).
 *     held is 1 from a reset until the first consuming read, then 0: the kernel's
 *     reader page takes no writes until a reader has swapped it in;
 *   - old page: hdr.commit = current wpos (final offset and entry count);
 *   - new page: hdr.vpage, hdr.time_stamp, hdr.base_entries = old.base_entries +
 *     old entries, hdr.commit = 0;
 *   - the event goes at offset 0 of the new page; commit wpos for the new page.
 * Every store before the commit only writes values computed from state that the
 * sequence itself read, so a restart repeats them harmlessly.
 *
 * THE READER never writes anything a writer writes.  It copies a page, then
 * re-reads wpos: in overwrite mode the page of vpage v may be overwritten once the
 * writer has begun vpage v + nr_pages - 1's successor, so a copy is valid only if
 * afterwards  wpos.vpage - v < nr_pages - 1  and the copied hdr.vpage == v.  The
 * readable window is therefore the last nr_pages - 1 pages (plus, in overwrite
 * mode, the copy the consuming reader keeps of the page it reads: the kernel's
 * reader page, fs/ring_read.c; writers know nothing of it).  Everything read from
 * shared memory (lengths, types, offsets, counts) is checked: a bad event ends
 * the page, it never crashes or hangs the reader.
 *
 * Per-CPU accounting, all exact and derived from the layout:
 *   written  = cur.base_entries + wpos.entries            (all events ever committed)
 *   entries  = written - oldest_readable.base_entries - consumed-in-oldest-page
 *   overrun  = oldest_readable.base_entries - read_events  (overwritten, never read)
 *   dropped  = rb_cpu.dropped                              (no-overwrite, buffer full)
 *
 * Changes the reader must make to writer state (reset, resize, cpumask) use
 * enabled = 0, then a CPU barrier (run a utracefs thread on that CPU, which forces
 * any in-flight sequence there to abort or finish), then the change, then
 * enabled = 1.  Writers check enabled inside the sequence.  A reset or resize whose
 * barrier cannot be passed (utracefs may not run there) is not made.
 *
 * wpos moves back only at a reset and at tracing_thresh's rewind of the tail
 * (runtime/graph.c); both add one to rb_cpu.gen first, so that a reader that copied
 * the page being written meanwhile knows, even when wpos came back to the value
 * it had seen.
 *
 * WITHOUT RSEQ (the kernel has none; ut_ctl.write_mode == UT_CTL_WRITE_LOCKED) every
 * writer instead holds rb_cpu.lock (its identity: tid and start time, taken with
 * cmpxchg) around the same steps 1-3 (ut_rb_write_locked, ut_ring_write.h), and
 * utracefs's CPU barrier holds that lock across its change.  A gone holder's lock
 * (dead, reused tid, forged word) is stolen: its half-written bytes are beyond the
 * committed offset, exactly as after an rseq abort.
 *
 * Time stamps are raw TSC values (rdtsc) read inside the sequence, so they are
 * monotonic per CPU; utracefs converts them to the selected trace_clock.
 */
#ifndef UT_RING_H
#define UT_RING_H

#include <stddef.h>
#include <stdint.h>

#define UT_RB_PAGE_SIZE 4096u
#define UT_RB_PAGE_HDR 32u
#define UT_RB_PAGE_DATA (UT_RB_PAGE_SIZE - UT_RB_PAGE_HDR) /* 4064 */
#define UT_RB_MAX_PAGES (1u << 18) /* 1 GiB per CPU at most */
#define UT_RB_MAX_CPUS 256u

/* The kernel's data page: buffer_size_kb is computed in these units. */
#define UT_KERNEL_PAGE_DATA 4080u

#define UT_CTL_SIZE 4096u
#define UT_RB_CPU_OFF UT_CTL_SIZE
#define UT_RB_CPU_SIZE 128u
#define UT_RB_DATA_OFF (UT_CTL_SIZE + UT_RB_MAX_CPUS * UT_RB_CPU_SIZE) /* page aligned */
#define UT_RB_CPU_SPAN ((uint64_t)UT_RB_MAX_PAGES * UT_RB_PAGE_SIZE)

/* Size of one instance's span (control page, rb_cpu[], rings) for nr_cpus CPUs. */
static inline uint64_t ut_rb_area_size(unsigned int nr_cpus)
{
	return UT_RB_DATA_OFF + (uint64_t)nr_cpus * UT_RB_CPU_SPAN;
}

/*
 * Instance slots: the top level and 64 instances.  Slot i's span starts at
 * i * ut_inst_span(nr_cpus); the control memfd holds one page per slot, page i
 * mapped (read-only for processes) over span i's first page.  The file is
 * sparse: a slot nobody uses costs no memory.
 */
#define UT_INST_MAX 65u
static inline uint64_t ut_inst_span(unsigned int nr_cpus)
{
	return ut_rb_area_size(nr_cpus);
}
static inline void *ut_inst_area(void *area, unsigned int nr_cpus, unsigned int slot)
{
	return (char *)area + slot * ut_inst_span(nr_cpus);
}

/* wpos packing: offset 12 bits | entries 10 bits | slot 18 bits | vpage 24 bits */
#define RB_WPOS_OFF_SHIFT 0
#define RB_WPOS_OFF_MASK 0xfffull
#define RB_WPOS_ENT_SHIFT 12
#define RB_WPOS_ENT_MASK 0x3ffull
#define RB_WPOS_SLOT_SHIFT 22
#define RB_WPOS_SLOT_MASK 0x3ffffull
#define RB_WPOS_VPAGE_SHIFT 40
#define RB_WPOS_VPAGE_MASK 0xffffffull
#define RB_VPAGE_MOD (1u << 24)

static inline unsigned int rb_wpos_off(uint64_t w)
{
	return (w >> RB_WPOS_OFF_SHIFT) & RB_WPOS_OFF_MASK;
}
static inline unsigned int rb_wpos_entries(uint64_t w)
{
	return (w >> RB_WPOS_ENT_SHIFT) & RB_WPOS_ENT_MASK;
}
static inline unsigned int rb_wpos_slot(uint64_t w)
{
	return (w >> RB_WPOS_SLOT_SHIFT) & RB_WPOS_SLOT_MASK;
}
static inline unsigned int rb_wpos_vpage(uint64_t w)
{
	return (w >> RB_WPOS_VPAGE_SHIFT) & RB_WPOS_VPAGE_MASK;
}
static inline uint64_t rb_wpos_make(unsigned int vpage, unsigned int slot, unsigned int entries,
				    unsigned int off)
{
	return ((uint64_t)(vpage & RB_WPOS_VPAGE_MASK) << RB_WPOS_VPAGE_SHIFT) |
	       ((uint64_t)(slot & RB_WPOS_SLOT_MASK) << RB_WPOS_SLOT_SHIFT) |
	       ((uint64_t)(entries & RB_WPOS_ENT_MASK) << RB_WPOS_ENT_SHIFT) |
	       ((uint64_t)(off & RB_WPOS_OFF_MASK) << RB_WPOS_OFF_SHIFT);
}
/* Distance a - b between two vpages, modulo 2^24. */
static inline unsigned int rb_vpage_sub(unsigned int a, unsigned int b)
{
	return (a - b) & (RB_VPAGE_MOD - 1);
}

#define RB_F_OVERWRITE 0x1u

/*
 * Per-CPU writer state, 128 bytes.  First cache line: written by writers on this
 * CPU (wpos, dropped) and, rarely and only with enabled == 0 plus a CPU barrier,
 * by utracefs (nr_pages, flags, enabled; held: at a reset, and once at the first
 * consuming read after it, with a plain store).  Second cache line: written by utracefs
 * only (read_vpage), read by writers when they start a page.
 */
struct rb_cpu {
	uint64_t wpos;
	uint64_t dropped;
	uint32_t nr_pages; /* >= 3 */
	uint32_t flags;	   /* RB_F_* */
	uint32_t enabled;  /* 0: writers return at once, nothing is counted */
	uint32_t held;	   /* no-overwrite: pages kept from writers (1 until the first read) */
	uint64_t lock;	   /* locked write mode only: the holder's identity (ut_ring_lock.c), 0 */
	uint64_t gen;	   /* bumped before every commit that moves wpos back (rewind, reset) */
	uint64_t _pad1[2];
	uint64_t read_vpage; /* no-overwrite: writers never start vpage >= read_vpage + nr_pages */
	uint64_t _pad2[7];
};
_Static_assert(sizeof(struct rb_cpu) == UT_RB_CPU_SIZE, "rb_cpu layout");
_Static_assert(offsetof(struct rb_cpu, wpos) == 0, "asm uses offset 0");
_Static_assert(offsetof(struct rb_cpu, dropped) == 8, "asm uses offset 8");
_Static_assert(offsetof(struct rb_cpu, nr_pages) == 16, "asm uses offset 16");
_Static_assert(offsetof(struct rb_cpu, flags) == 20, "asm uses offset 20");
_Static_assert(offsetof(struct rb_cpu, enabled) == 24, "asm uses offset 24");
_Static_assert(offsetof(struct rb_cpu, held) == 28, "asm uses offset 28");
_Static_assert(offsetof(struct rb_cpu, lock) == 32, "lock word in the first cache line");
_Static_assert(offsetof(struct rb_cpu, gen) == 40, "asm uses offset 40");
_Static_assert(offsetof(struct rb_cpu, read_vpage) == 64, "asm uses offset 64");

/* Page header, 32 bytes, followed by UT_RB_PAGE_DATA bytes of events. */
struct rb_page {
	uint64_t time_stamp;   /* TSC of the first event */
	uint64_t commit;       /* wpos snapshot when the page was finished; 0 while current */
	uint64_t base_entries; /* events committed on this CPU before this page */
	uint32_t vpage;	       /* which virtual page this slot holds */
	uint32_t magic;	       /* UT_RB_PAGE_MAGIC */
};
_Static_assert(sizeof(struct rb_page) == UT_RB_PAGE_HDR, "rb_page layout");
#define UT_RB_PAGE_MAGIC 0x75745042u /* "BPtu" */

/*
 * Events.  Every event starts with this 16-byte header; len is the whole event
 * in bytes, a multiple of 8, at least 16.  Types use the kernel's ftrace ids.
 */
struct ut_ev {
	uint16_t len;
	uint8_t type;  /* UT_EV_* */
	uint8_t flags; /* UT_EVF_* */
	uint32_t tid;
	uint64_t ts; /* raw TSC */
};
_Static_assert(sizeof(struct ut_ev) == 16, "ut_ev layout");

enum {
	UT_EV_DISCARD = 0,	    /* an event removed in place (len kept): skipped, not counted */
	UT_EV_FUNCTION = 1,	    /* struct ut_ev_func */
	UT_EV_CTX = 2,		    /* struct ut_ev_ctx: the wakeup tracers' switch entry "==>" */
	UT_EV_WAKE = 3,		    /* struct ut_ev_ctx: the wakeup tracers' wake entry "  +" */
	UT_EV_KERNEL_STACK = 4,	    /* struct ut_ev_stack: func_stack_trace */
	UT_EV_PRINT = 5,	    /* struct ut_ev_print: trace_printk, trace_puts, trace_marker */
	UT_EV_BPRINT = 6,	    /* struct ut_ev_bprint: trace_printk of a constant format */
	UT_EV_GRAPH_RET = 10,	    /* struct ut_ev_gret: function_graph exit */
	UT_EV_GRAPH_ENT = 11,	    /* struct ut_ev_gent: function_graph entry */
	UT_EV_BPUTS = 15,	    /* struct ut_ev_bputs: trace_puts of a constant string */
	UT_EV_HWLAT = 16,	    /* struct ut_ev_hwlat: a hwlat sample (utracefs writes it) */
	UT_EV_OSNOISE = 17,	    /* struct ut_ev_osnoise: an osnoise period (utracefs) */
	UT_EV_TIMERLAT = 18,	    /* struct ut_ev_timerlat: a timerlat wake-up (utracefs) */
	UT_EV_RAW_DATA = 19,	    /* struct ut_ev_raw: trace_marker_raw */
	UT_EV_EVENT = 64,	    /* struct ut_ev_event (ut_event.h): a program's trace event */
};

/* Context flags of the writing thread. */
#define UT_EVF_SIGBLOCKED 0x01 /* all async signals blocked: 'd' */
#define UT_EVF_SIGHANDLER 0x02 /* inside a signal handler: 'h' */
#define UT_EVF_PREEMPT1 0x10   /* written by utracefs on behalf of a write(2): preempt depth 1 */
#define UT_EVF_NL_ADDED 0x20   /* print: the writer added the final newline (kernel byte count) */
#define UT_EVF_MARKER 0x40     /* print in the marker form (struct ut_ev_marker) */

/*
 * function: ip is the return address of the patch-site call (site + 5, the
 * reader subtracts UT_SITE_CALL_LEN), parent_ip the return address into the caller.
 */
struct ut_ev_func {
	struct ut_ev h;
	uint64_t ip;
	uint64_t parent_ip;
};
_Static_assert(sizeof(struct ut_ev_func) == 32, "ut_ev_func layout");
#define UT_SITE_CALL_LEN 5

/*
 * function_graph.  The runtime keeps a shadow return stack per thread (the
 * kernel's ret_stack): at an entry it writes a gent event and swaps the return
 * address for ut_return_to_handler; at the return it writes a gret event.
 *
 * depth: the frame's index in the thread's shadow stack (0: the outermost traced
 * function of the thread; functions of a signal handler continue the depth of the
 * function they interrupted, as interrupts do in the kernel).
 *
 * tracing_thresh (ut_ctl.thresh_tsc != 0): at the return of a function that
 * lasted less, the runtime removes its entry instead of writing the exit: it
 * rewinds the ring's tail (wpos) when the entry is still the last event of the
 * CPU's current page, and otherwise turns the entry into UT_EV_DISCARD in place
 * (only on the CPU that wrote it, inside an rseq sequence); a function that
 * migrated CPUs in between keeps both events.  So the buffer holds the long
 * functions, each with its entry and exit, and little else.
 */
struct ut_ev_gent {
	struct ut_ev h; /* ts: the entry time (calltime) */
	uint64_t ip;	/* site + 5, as in function events */
	uint32_t depth;
	uint32_t nextra; /* uint64_t words in extra[]: 0, or 1 under UT_CTL_GRAPH_RETADDR */
	uint64_t extra[]; /* [0]: the return address into the caller (funcgraph-retaddr) */
};
_Static_assert(sizeof(struct ut_ev_gent) == 32, "ut_ev_gent layout");

struct ut_ev_gret {
	struct ut_ev h;	   /* ts: the return time (rettime) */
	uint64_t ip;	   /* site + 5 */
	uint64_t calltime; /* TSC of the entry (moved later by time off the CPU under NOSLEEP) */
	uint32_t depth;
	uint32_t overrun;  /* the thread's calls not traced because its stack was full */
	uint64_t retval;   /* rax at the return (funcgraph-retval) */
};
_Static_assert(sizeof(struct ut_ev_gret) == 48, "ut_ev_gret layout");

/*
 * context_switch and wakeup (the kernel's ctx_switch_entry): prev is the waker
 * (the thread that woke next, runtime/wakeup.c), next the woken thread; prio is
 * the kernel's (120 + nice, 99 - rt_prio for SCHED_FIFO/RR, -1 for
 * SCHED_DEADLINE: 255 as a byte), state an index into "RSDTtXZPI".
 */
struct ut_ev_ctx {
	struct ut_ev h;
	uint32_t prev_pid;
	uint32_t next_pid;
	uint32_t next_cpu;
	uint8_t prev_prio;
	uint8_t prev_state;
	uint8_t next_prio;
	uint8_t next_state;
};
_Static_assert(sizeof(struct ut_ev_ctx) == 32, "ut_ev_ctx layout");

/* print: ip of the caller (a return address) or UT_IP_MARKER; NUL-terminated text. */
struct ut_ev_print {
	struct ut_ev h;
	uint64_t ip;
	char buf[];
};
#define UT_IP_MARKER 1ull /* shown as tracing_mark_write */
#define UT_PRINT_MAX 4096u /* text bytes at most (trace_marker limit) */

/*
 * The marker form of a print event (h.flags has UT_EVF_MARKER), which utracefs
 * writes for trace_marker: no ip (it is always UT_IP_MARKER), the NUL-terminated
 * text at once, then zero padding that makes as many events fill a page as the
 * kernel's print entry of that text does (h.len, kernel_fmt.c).  Runtime writers
 * never use it.
 */
struct ut_ev_marker {
	struct ut_ev h;
	char buf[];
};

/* A print event's text (either form) and the bytes its event holds from there. */
static inline const char *ut_ev_print_text(const struct ut_ev *ev, unsigned int *room)
{
	unsigned int at = (ev->flags & UT_EVF_MARKER) ? sizeof(struct ut_ev_marker)
						      : sizeof(struct ut_ev_print);

	*room = ev->len > at ? ev->len - at : 0;
	return (const char *)ev + at;
}
/* A print event's ip (either form). */
static inline uint64_t ut_ev_print_ip(const struct ut_ev *ev)
{
	return (ev->flags & UT_EVF_MARKER) ? UT_IP_MARKER : ((const struct ut_ev_print *)ev)->ip;
}

/*
 * bprint: trace_printk() with a constant format and arguments, as the kernel
 * records it: the format's address in the process (utracefs learnt its text from
 * UT_MSG_PRINTK_FMT, ut_wire.h) and the arguments packed as ut_printf.h lays them
 * out, size bytes of buf (a multiple of 4, at most UT_BPRINT_MAX).
 */
struct ut_ev_bprint {
	struct ut_ev h;
	uint64_t ip; /* the call site, as print's */
	uint64_t fmt;
	uint32_t size;
	uint32_t _pad;
	uint32_t buf[];
};
_Static_assert(sizeof(struct ut_ev_bprint) == 40, "ut_ev_bprint layout");
#define UT_BPRINT_MAX 1024u /* the kernel's TRACE_BUF_SIZE: longer arguments drop the event */

/* bputs: trace_puts() of a constant string, known to utracefs as a bprint format is. */
struct ut_ev_bputs {
	struct ut_ev h;
	uint64_t ip;
	uint64_t str;
};
_Static_assert(sizeof(struct ut_ev_bputs) == 32, "ut_ev_bputs layout");

/* trace_marker_raw: a 4-byte id then the payload. */
struct ut_ev_raw {
	struct ut_ev h;
	uint32_t id;
	uint32_t size; /* payload bytes */
	unsigned char buf[];
};

/* func_stack_trace: nr return addresses, innermost first. */
struct ut_ev_stack {
	struct ut_ev h;
	uint64_t nr;
	uint64_t ips[];
};
#define UT_STACK_MAX 64u

/*
 * The samples of the hwlat, osnoise and timerlat tracers, which utracefs's own
 * threads write (fs/sampler.c): the fields of the kernel's entries, in its
 * units (hwlat: microseconds and the wall-clock time of the first latency;
 * osnoise: microseconds; timerlat: nanoseconds).
 */
struct ut_ev_hwlat {
	struct ut_ev h;
	uint64_t duration;	 /* largest gap inside a pair of clock reads */
	uint64_t outer_duration; /* largest gap between two pairs */
	uint64_t nmi_total_ts;
	int64_t tv_sec, tv_nsec;
	uint32_t nmi_count, seqnum, count, _pad;
};
_Static_assert(sizeof(struct ut_ev_hwlat) == 72, "ut_ev_hwlat layout");

struct ut_ev_osnoise {
	struct ut_ev h;
	uint64_t noise, runtime, max_sample;
	uint32_t hw_count, nmi_count, irq_count, softirq_count, thread_count, _pad;
};
_Static_assert(sizeof(struct ut_ev_osnoise) == 64, "ut_ev_osnoise layout");

struct ut_ev_timerlat {
	struct ut_ev h;
	uint32_t seqnum;
	int32_t context; /* 0 irq, 1 thread, 2 user-ret: utracefs writes 1 */
	uint64_t timer_latency;
};
_Static_assert(sizeof(struct ut_ev_timerlat) == 32, "ut_ev_timerlat layout");

static inline struct rb_cpu *ut_rb_cpu(void *area, unsigned int cpu)
{
	return (struct rb_cpu *)((char *)area + UT_RB_CPU_OFF + (size_t)cpu * UT_RB_CPU_SIZE);
}
static inline struct rb_page *ut_rb_page(void *area, unsigned int cpu, unsigned int slot)
{
	return (struct rb_page *)((char *)area + UT_RB_DATA_OFF + cpu * UT_RB_CPU_SPAN +
				  (uint64_t)slot * UT_RB_PAGE_SIZE);
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * output.h - turning events into the kernel's text, byte for byte: headers
 * (header.c), the context prefix and the event bodies (line.c), symbols (sym.c
 * through tfs_sym_lookup).  Tracers build their print_header/print_line from
 * these, as the kernel's tracers use trace_output.c.
 */
#ifndef TFS_OUTPUT_H
#define TFS_OUTPUT_H

#include "../ring_read.h"
#include "../tfs.h"

/* The default header (trace_default_header): column legend or latency header. */
void tfs_out_default_header(struct tfs_iter *it, struct tfs_buf *b);

/*
 * A whole line as the kernel's print_trace_line: the loss notice, the annotate
 * banner, the context prefix (unless context-info is off) and the event body
 * in the format the options select (raw, printk-msg-only, ...).
 */
int tfs_out_line(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b);
/* it->lost before an event: "CPU:N [LOST n EVENTS]", or [LOST EVENTS] when the
 * number is not known (TFS_LOST_UNKNOWN: a walk of `trace` the writers overtook) */
#define TFS_LOST_UNKNOWN (~0ul)
void tfs_out_lost(struct tfs_buf *b, unsigned int cpu, unsigned long lost);

/* Only the context prefix ("comm-pid [cpu] flags ts: " or the latency one). */
void tfs_out_context(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b);

/*
 * The kernel's seq_print_ip_sym() for an address in event ev (its task, as
 * mapped at its time): "0" for 0, the function name, "+0x1a/0x40" with
 * sym-offset, " <%016lx>" with sym-addr, "[libc.so.6+0x2724a]" in an object
 * with no symbol before the address, and "0x%08lx" when nothing is known.
 * sym_flags: TFS_SYM_* below.
 */
#define TFS_SYM_OFFSET 0x1u
#define TFS_SYM_ADDR 0x2u
#define TFS_SYM_DEMANGLE 0x4u /* C++ names demangled (tfs_out_demangle) */
void tfs_out_ip_sym(struct tfs_buf *b, const struct ut_ev *ev, uint64_t ip, unsigned int sym_flags);
/* The sym flags inst's options select now. */
unsigned int tfs_out_sym_flags(const struct tfs_instance *inst);
/*
 * tfs_sym_lookup for printing, into name[TFS_SYM_NAME_MAX]: a name is printed whole
 * up to TFS_SYM_NAME_MAX - 1 bytes (C++ templates over standard types reach
 * thousands); a longer one is cut after the last whole token that fits, at a
 * ", ", "<", "(", "::" or space, and "..." marks the cut, the same wherever a name
 * prints.
 */
#define TFS_SYM_NAME_MAX 8192
int tfs_out_sym_lookup(pid_t tid, uint64_t tsc, uint64_t addr, bool demangle, char *name,
		       uint64_t *start, uint64_t *symsize);
/* The cut itself (name fills a buffer of size bytes); exposed for unit tests. */
void tfs_out_cut_name(char *name, size_t size);

/* The kernel's trace_find_mark(): '$' '@' '*' '#' '!' '+' or ' ' for a delay in ns. */
char tfs_out_mark(uint64_t ns);
/* ns -> us rounded as the kernel's ns2usecs(). */
uint64_t tfs_out_ns2us(uint64_t ns);

/* The kernel's preemption model string of the latency header ("PREEMPT(none)", ...). */
const char *tfs_out_preempt_model(void);

/* ---- pieces of line.c and header.c other formatters share ------------------------------ */

/* The five flag characters of the latency format (trace_print_lat_fmt). */
void tfs_out_lat_flags(struct tfs_buf *b, const struct ut_ev *ev);
/* The comm shown for tid ("<...>" when unknown or record-cmd is off). */
void tfs_out_comm(pid_t tid, char comm[16]);
/* The body of a raw_data event ("# id buf: xx xx ...\n"). */
void tfs_out_raw_data(struct tfs_buf *b, const struct ut_ev_raw *r);
/* The wakeup tracers' wake and switch entries (ctx.c): default, raw, hex or bin body. */
void tfs_out_ctx(struct tfs_buf *b, const struct ut_ev_ctx *c);
void tfs_out_ctx_raw(struct tfs_buf *b, const struct ut_ev_ctx *c);
void tfs_out_ctx_hexbin(struct tfs_buf *b, const struct ut_ev_ctx *c, bool bin);
/* The latency tracers' header block (print_trace_header). */
void tfs_out_lat_trace_header(struct tfs_iter *it, struct tfs_buf *b);

/* ---- trace events programs define (event.c) ------------------------------------------- */

/* The body of a UT_EV_EVENT in the default form: its print format, or with option fields its fields. */
void tfs_out_event(const struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b);
/* Its body under option raw: the kernel's trace_nop_print ("type: ID\n"). */
void tfs_out_event_raw(struct tfs_buf *b, const struct ut_ev *ev);

/*
 * The text of a trace_printk()/trace_puts()/trace_marker record (print, bprint,
 * bputs), as printk-msg-only shows it, and the address it names (UT_IP_MARKER for
 * a marker).
 */
void tfs_out_printk_text(const struct tfs_iter *it, const struct ut_ev *ev, struct tfs_buf *b);
uint64_t tfs_out_printk_ip(const struct ut_ev *ev);
/* A print, bprint or bputs record. */
static inline bool tfs_out_is_printk(const struct ut_ev *ev)
{
	return ev->type == UT_EV_PRINT || ev->type == UT_EV_BPRINT || ev->type == UT_EV_BPUTS;
}

/* ---- the samples of hwlat, osnoise and timerlat (samples.c) ----------------------------- */

/* The body of a hwlat, osnoise or timerlat sample (raw: option raw's form); false for others. */
bool tfs_out_sample(struct tfs_buf *b, const struct ut_ev *ev, bool raw);
/* The osnoise and timerlat tracers' headers (print_osnoise_headers, print_timerlat_headers). */
void tfs_out_osnoise_header(struct tfs_iter *it, struct tfs_buf *b);
void tfs_out_timerlat_header(struct tfs_iter *it, struct tfs_buf *b);

/* ---- function_graph (graph.c) ------------------------------------------------------------ */

/*
 * The function_graph tracer's options, as bits: the bit of an option is its
 * index in the tracer's option list (fs/tracers/function_graph.c), which is in
 * the kernel's order.
 */
enum {
	TFS_GRAPH_OVERRUN = 1u << 0,
	TFS_GRAPH_CPU = 1u << 1,
	TFS_GRAPH_OVERHEAD = 1u << 2,
	TFS_GRAPH_PROC = 1u << 3,
	TFS_GRAPH_DURATION = 1u << 4,
	TFS_GRAPH_ABSTIME = 1u << 5,
	TFS_GRAPH_IRQS = 1u << 6,
	TFS_GRAPH_TAIL = 1u << 7,
	TFS_GRAPH_RETVAL = 1u << 8,
	TFS_GRAPH_RETVAL_HEX = 1u << 9,
	TFS_GRAPH_RETADDR = 1u << 10,
	TFS_GRAPH_SLEEP_TIME = 1u << 11,
	TFS_GRAPH_GRAPH_TIME = 1u << 12,
	TFS_GRAPH_DEMANGLE = 1u << 13, /* utrace's own, after the kernel's */
};

/* The header for these option bits (print_graph_headers_flags). */
void tfs_graph_header(struct tfs_iter *it, struct tfs_buf *b, uint64_t flags);
/*
 * One event as the kernel's print_graph_function_flags shows it: entries (leaf
 * or nested, with it->peek_next/take_next), exits, comments, banners; state
 * per reader in it->priv.
 */
int tfs_graph_line(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b,
		   uint64_t flags);
/* The kernel's trace_print_graph_duration(): "1.382 us " padded (no mark, no bar). */
void tfs_graph_duration(struct tfs_buf *b, uint64_t ns);

/* ---- the kernel's binary formats (kernel_fmt.c) ----------------------------------------- */

/* The kernel's entry size (common fields included) for this event. */
unsigned int tfs_kfmt_payload(const struct ut_ev *ev);
/* What the kernel's ring buffer uses for it (event header, length word, alignment). */
unsigned int tfs_kfmt_size(const struct ut_ev *ev);
/*
 * The length to give an event of ours (at least min_len, a multiple of 8) whose
 * kernel counterpart takes ksize bytes (tfs_kfmt_size): as many of ours fill a
 * ring page as of the kernel's fill its page where a multiple of 8 allows it,
 * else the nearest count below.  For the events utracefs writes itself.
 */
unsigned int tfs_kfmt_fit_len(unsigned int min_len, unsigned int ksize);
/* Write the kernel's entry of ev into out (room >= tfs_kfmt_payload(ev)); its size or 0. */
unsigned int tfs_kfmt_entry(const struct tfs_instance *inst, const struct ut_ev *ev,
			    unsigned char *out, unsigned int room);

/* One sub-buffer page as trace_pipe_raw gives it. */
#define TFS_KPAGE_SIZE 4096u
#define TFS_KPAGE_HDR 16u
#define TFS_KPAGE_DATA (TFS_KPAGE_SIZE - TFS_KPAGE_HDR)
struct tfs_kpage {
	union {
		unsigned char page[TFS_KPAGE_SIZE];
		uint64_t align;
	};
	unsigned int used;   /* data bytes */
	unsigned int events;
	uint64_t first_ts, prev_ts;
	unsigned long lost;  /* events missed before this page */
	const struct tfs_instance *inst; /* whose clock the times are in */
};
void tfs_kfmt_page_init(struct tfs_kpage *pg, const struct tfs_instance *inst);
/*
 * Add an event (e->ts in the clock's units) after the loss of `lost` events:
 * 0, or 1 when it belongs to the next page (full, or a loss to flag there).
 */
int tfs_kfmt_page_add(struct tfs_kpage *pg, const struct tfs_event *e, unsigned long lost);
/* Write the page header: time stamp, commit and the missed-events flags. */
void tfs_kfmt_page_finish(struct tfs_kpage *pg);

#endif

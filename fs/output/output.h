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

/* Only the context prefix ("comm-pid [cpu] flags ts: " or the latency one). */
void tfs_out_context(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b);

/*
 * The kernel's seq_print_ip_sym() for an address of task tid: "0" for 0, the
 * function name, "+0x1a/0x40" with sym-offset, " <%016lx>" with sym-addr, and
 * "0x%08lx" when nothing is known.  sym_flags: TFS_SYM_* below.
 */
#define TFS_SYM_OFFSET 0x1u
#define TFS_SYM_ADDR 0x2u
void tfs_out_ip_sym(struct tfs_buf *b, pid_t tid, uint64_t ip, unsigned int sym_flags);
/* The sym flags the options select now. */
unsigned int tfs_out_sym_flags(void);

/* The kernel's trace_find_mark(): '$' '@' '*' '#' '!' '+' or ' ' for a delay in ns. */
char tfs_out_mark(uint64_t ns);
/* ns -> us rounded as the kernel's ns2usecs(). */
uint64_t tfs_out_ns2us(uint64_t ns);

/* The kernel's preemption model string of the latency header ("PREEMPT(none)", ...). */
const char *tfs_out_preempt_model(void);

/* ---- the kernel's binary formats (kernel_fmt.c) ----------------------------------------- */

/* The kernel's entry size (common fields included) for this event. */
unsigned int tfs_kfmt_payload(const struct ut_ev *ev);
/* What the kernel's ring buffer uses for it (event header, length word, alignment). */
unsigned int tfs_kfmt_size(const struct ut_ev *ev);
/* Write the kernel's entry of ev into out (room >= tfs_kfmt_payload(ev)); its size or 0. */
unsigned int tfs_kfmt_entry(const struct ut_ev *ev, unsigned char *out, unsigned int room);

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
};
void tfs_kfmt_page_init(struct tfs_kpage *pg);
/*
 * Add an event (e->ts in the clock's units) after the loss of `lost` events:
 * 0, or 1 when it belongs to the next page (full, or a loss to flag there).
 */
int tfs_kfmt_page_add(struct tfs_kpage *pg, const struct tfs_event *e, unsigned long lost);
/* Write the page header: time stamp, commit and the missed-events flags. */
void tfs_kfmt_page_finish(struct tfs_kpage *pg);

#endif

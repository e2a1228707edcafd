// SPDX-License-Identifier: MIT
/*
 * kernel_fmt.c - the kernel's binary formats, for trace_pipe_raw and the `bytes`
 * counter: the size the kernel's ring buffer would give an event (4-byte header,
 * an extra length word above 112 bytes of data, 4-byte alignment), the entry
 * itself (common fields common_type, common_flags, common_preempt_count,
 * common_pid, then the event's fields as events/ftrace/X/format describes them)
 * and whole sub-buffer pages (events/header_page): a 16-byte header
 * {u64 timestamp; u64 commit} then compressed events {type_len:5, time_delta:27}
 * with time-extend events where a delta does not fit 27 bits.
 *
 * Code addresses (function ips and parents, funcgraph funcs, print ips, stack
 * entries, program event fields printed with %ps) are written as flat
 * addresses (tfs_sym_flat), which the kallsyms file names, as the kernel's raw
 * pages hold addresses its /proc/kallsyms names.
 */
#include <string.h>

#include "event_defs.h"
#include "output.h"
#include "print_fmt.h"
#include "ut_event.h"

unsigned int tfs_kfmt_payload(const struct ut_ev *ev)
{
	switch (ev->type) {
	case UT_EV_FUNCTION:
		return 24; /* common fields, ip, parent_ip */
	case UT_EV_CTX:
	case UT_EV_WAKE:
		return 24; /* common fields, 3 u32 (pids, cpu), 4 bytes (prios, states) */
	case UT_EV_GRAPH_ENT:
		return 24; /* common fields, func, depth, padding (no args here) */
	case UT_EV_GRAPH_RET:
		return 40; /* common fields, func, depth, overrun, calltime, rettime */
	case UT_EV_PRINT: {
		unsigned int room;
		const char *text = ut_ev_print_text(ev, &room);
		unsigned int n = (unsigned int)strnlen(text, room);

		/* the kernel reserves the text as written, a possible newline and the NUL */
		if ((ev->flags & UT_EVF_NL_ADDED) && n)
			n--;
		return 16 + n + 2;
	}
	case UT_EV_BPRINT:
		return 24 + ((const struct ut_ev_bprint *)ev)->size; /* ip, fmt, the packed words */
	case UT_EV_BPUTS:
		return 24; /* ip, str */
	case UT_EV_KERNEL_STACK:
		return 16 + (unsigned int)((const struct ut_ev_stack *)ev)->nr * 8;
	case UT_EV_RAW_DATA:
		return 12 + ((const struct ut_ev_raw *)ev)->size;
	case UT_EV_EVENT: /* the record is the kernel's entry already */
		return ((const struct ut_ev_event *)ev)->size;
	case UT_EV_HWLAT:
		return 64; /* common fields, 3 u64, a timespec64, 3 u32, padding */
	case UT_EV_OSNOISE:
		return 56; /* common fields, 3 u64, 5 u32, padding */
	case UT_EV_TIMERLAT:
		return 24; /* common fields, seqnum, context, timer_latency */
	}
	return 8;
}

/* The kernel's rb_calculate_event_length(): header, long-length word, alignment. */
static unsigned int kfmt_len(unsigned int data)
{
	unsigned int len = data ? data : 1;

	if (len > 28 * 4)
		len += 4;
	len = (len + 4 + 3) & ~3u;
	if (len == 12) /* room for a time extend or padding */
		len += 4;
	return len;
}

unsigned int tfs_kfmt_size(const struct ut_ev *ev)
{
	return kfmt_len(tfs_kfmt_payload(ev));
}

unsigned int tfs_kfmt_fit_len(unsigned int min_len, unsigned int ksize)
{
	unsigned int per_page = UT_KERNEL_PAGE_DATA / ksize, len;

	if (!per_page)
		return min_len;
	/* the shortest length (a multiple of 8) that fits at most per_page in a page */
	len = (UT_RB_PAGE_DATA / (per_page + 1) + 1 + 7) & ~7u;
	if (len < min_len)
		len = min_len; /* ours cannot be smaller: fewer fit than the kernel's */
	return len <= UT_RB_PAGE_DATA ? len : min_len;
}

static void put16(unsigned char *p, uint16_t v)
{
	memcpy(p, &v, 2);
}
static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}
static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/*
 * A code address of ev, as raw pages carry it: in the flat address space the
 * kallsyms file names (sym.c), the kernel's model of one symbol table for
 * every address a page holds, whatever each process had mapped where.
 */
static void put_ip(unsigned char *p, const struct ut_ev *ev, uint64_t ip)
{
	put64(p, tfs_sym_flat((pid_t)ev->tid, ev->ts, ip));
}

/* A program event's fields that its print format shows as functions (%ps...): flat too. */
static void event_ips(const struct ut_ev *ev, unsigned char *out, unsigned int size)
{
	const struct tfs_event_def *d = tfs_event_def(((const struct ut_ev_event *)ev)->id);
	uint16_t offs[PF_SYM_FIELDS_MAX];
	unsigned int n = d && d->pfmt ? tfs_pfmt_sym_fields(d->pfmt, d, offs) : 0;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t v;

		if (offs[i] + 8u > size)
			continue;
		memcpy(&v, out + offs[i], 8);
		put_ip(out + offs[i], ev, v);
	}
}

unsigned int tfs_kfmt_entry(const struct tfs_instance *inst, const struct ut_ev *ev,
			    unsigned char *out, unsigned int room)
{
	unsigned int size = tfs_kfmt_payload(ev);
	uint8_t kflags = 0;

	if (room < size)
		return 0;
	if (ev->type == UT_EV_EVENT) {
		memcpy(out, ((const struct ut_ev_event *)ev)->rec, size);
		event_ips(ev, out, size);
		return size;
	}
	memset(out, 0, size);
	/* the kernel's TRACE_FLAG_IRQS_OFF and TRACE_FLAG_HARDIRQ */
	if (ev->flags & UT_EVF_SIGBLOCKED)
		kflags |= 0x01;
	if (ev->flags & UT_EVF_SIGHANDLER)
		kflags |= 0x08;
	put16(out, ev->type);
	out[2] = kflags;
	out[3] = (ev->flags & UT_EVF_PREEMPT1) ? 1 : 0;
	put32(out + 4, ev->tid);
	switch (ev->type) {
	case UT_EV_FUNCTION: {
		const struct ut_ev_func *f = (const void *)ev;

		put_ip(out + 8, ev, f->ip - UT_SITE_CALL_LEN);
		put_ip(out + 16, ev, f->parent_ip);
		break;
	}
	case UT_EV_PRINT: {
		unsigned int n = size - 18, room;
		const char *text = ut_ev_print_text(ev, &room);
		uint64_t ip = ut_ev_print_ip(ev);

		put_ip(out + 8, ev, ip);
		memcpy(out + 16, text, n);
		if (ip == UT_IP_MARKER && (n == 0 || text[n - 1] != '\n'))
			out[16 + n] = '\n';
		break;
	}
	case UT_EV_BPRINT: {
		const struct ut_ev_bprint *p = (const void *)ev;

		/* fmt: the address in the process, as printk_formats lists it */
		put_ip(out + 8, ev, p->ip);
		put64(out + 16, p->fmt);
		memcpy(out + 24, p->buf, p->size);
		break;
	}
	case UT_EV_BPUTS: {
		const struct ut_ev_bputs *p = (const void *)ev;

		put_ip(out + 8, ev, p->ip);
		put64(out + 16, p->str);
		break;
	}
	case UT_EV_GRAPH_ENT: {
		const struct ut_ev_gent *g = (const void *)ev;

		/* funcgraph-retaddr's address has no field in this kernel's entry */
		put_ip(out + 8, ev, g->ip - UT_SITE_CALL_LEN);
		put32(out + 16, g->depth);
		break;
	}
	case UT_EV_GRAPH_RET: {
		const struct ut_ev_gret *r = (const void *)ev;

		/* times in the trace clock, as the kernel's are in its clock */
		put_ip(out + 8, ev, r->ip - UT_SITE_CALL_LEN);
		put32(out + 16, r->depth);
		put32(out + 20, r->overrun);
		put64(out + 24, tfs_clock_from_tsc(inst, r->calltime));
		put64(out + 32, tfs_clock_from_tsc(inst, r->h.ts));
		break;
	}
	case UT_EV_KERNEL_STACK: {
		const struct ut_ev_stack *st = (const void *)ev;

		put32(out + 8, (uint32_t)st->nr);
		for (unsigned int i = 0; i < st->nr; i++)
			put_ip(out + 16 + i * 8, ev, st->ips[i]);
		break;
	}
	case UT_EV_CTX:
	case UT_EV_WAKE: {
		const struct ut_ev_ctx *c = (const void *)ev;

		put32(out + 8, c->prev_pid);
		put32(out + 12, c->next_pid);
		put32(out + 16, c->next_cpu);
		out[20] = c->prev_prio;
		out[21] = c->prev_state;
		out[22] = c->next_prio;
		out[23] = c->next_state;
		break;
	}
	case UT_EV_RAW_DATA: {
		const struct ut_ev_raw *r = (const void *)ev;

		put32(out + 8, r->id);
		memcpy(out + 12, r->buf, r->size);
		break;
	}
	case UT_EV_HWLAT: {
		const struct ut_ev_hwlat *h = (const void *)ev;

		put64(out + 8, h->duration);
		put64(out + 16, h->outer_duration);
		put64(out + 24, h->nmi_total_ts);
		put64(out + 32, (uint64_t)h->tv_sec);
		put64(out + 40, (uint64_t)h->tv_nsec);
		put32(out + 48, h->nmi_count);
		put32(out + 52, h->seqnum);
		put32(out + 56, h->count);
		break;
	}
	case UT_EV_OSNOISE: {
		const struct ut_ev_osnoise *n = (const void *)ev;

		put64(out + 8, n->noise);
		put64(out + 16, n->runtime);
		put64(out + 24, n->max_sample);
		put32(out + 32, n->hw_count);
		put32(out + 36, n->nmi_count);
		put32(out + 40, n->irq_count);
		put32(out + 44, n->softirq_count);
		put32(out + 48, n->thread_count);
		break;
	}
	case UT_EV_TIMERLAT: {
		const struct ut_ev_timerlat *t = (const void *)ev;

		put32(out + 8, t->seqnum);
		put32(out + 12, (uint32_t)t->context);
		put64(out + 16, t->timer_latency);
		break;
	}
	}
	return size;
}

/* ---- sub-buffer pages ------------------------------------------------------------------ */

#define KF_TYPE_TIME_EXTEND 30u
#define KF_DELTA_BITS 27
#define KF_MAX_SMALL_DATA (28u * 4)
#define KF_MISSED_EVENTS (1ull << 31)
#define KF_MISSED_STORED (1ull << 30)

void tfs_kfmt_page_init(struct tfs_kpage *pg, const struct tfs_instance *inst)
{
	memset(pg, 0, sizeof(*pg));
	pg->inst = inst;
}

int tfs_kfmt_page_add(struct tfs_kpage *pg, const struct tfs_event *e, unsigned long lost)
{
	unsigned char *data = pg->page + TFS_KPAGE_HDR;
	unsigned int ld = tfs_kfmt_payload(e->ev), len = tfs_kfmt_size(e->ev), need;
	uint64_t delta;

	if (pg->events && lost)
		return 1; /* a loss is flagged at the start of a page */
	if (!pg->events) {
		pg->first_ts = pg->prev_ts = e->ts;
		pg->lost = lost;
	}
	delta = e->ts > pg->prev_ts ? e->ts - pg->prev_ts : 0;
	need = len + (delta >> KF_DELTA_BITS ? 8 : 0);
	if (pg->used + need > TFS_KPAGE_DATA)
		return 1;
	if (delta >> KF_DELTA_BITS) {
		/* time extend: low 27 bits in its header, the rest in its array[0] */
		put32(data + pg->used,
		      KF_TYPE_TIME_EXTEND | (uint32_t)(delta & ((1u << KF_DELTA_BITS) - 1)) << 5);
		put32(data + pg->used + 4, (uint32_t)(delta >> KF_DELTA_BITS));
		pg->used += 8;
		delta = 0;
	}
	if (ld <= KF_MAX_SMALL_DATA) {
		put32(data + pg->used, (len - 4) / 4 | (uint32_t)delta << 5);
		tfs_kfmt_entry(pg->inst, e->ev, data + pg->used + 4, len - 4);
	} else {
		put32(data + pg->used, (uint32_t)delta << 5); /* type_len 0: length follows */
		put32(data + pg->used + 4, len - 4);
		tfs_kfmt_entry(pg->inst, e->ev, data + pg->used + 8, len - 8);
	}
	pg->used += len;
	pg->prev_ts = e->ts;
	pg->events++;
	return 0;
}

void tfs_kfmt_page_finish(struct tfs_kpage *pg)
{
	uint64_t commit = pg->used;

	if (pg->lost) {
		uint64_t lost = pg->lost;

		/* the count of missed events goes after the data when it fits */
		if (TFS_KPAGE_DATA - pg->used >= sizeof(lost)) {
			memcpy(pg->page + TFS_KPAGE_HDR + pg->used, &lost, sizeof(lost));
			commit |= KF_MISSED_STORED;
		}
		commit |= KF_MISSED_EVENTS;
	}
	memcpy(pg->page, &pg->first_ts, 8);
	memcpy(pg->page + 8, &commit, 8);
}

// SPDX-License-Identifier: MIT
/*
 * line.c - one event as a line of text, as the kernel's print_trace_line():
 * "CPU:%d [LOST %lu EVENTS]", the annotate banner, the context prefix (normal
 * or latency format), then the body of the event in the format the options
 * select, in the kernel's order: printk-msg-only, bin, hex, raw, then the default
 * form, where fields applies (trace events' bodies and the text of trace_printk
 * records are event.c's).
 *
 * The utrace meaning of the flag column: 'd' when all async signals are
 * blocked, 'h' inside a signal handler, preempt depth 1 for events utracefs
 * wrote on behalf of a write(2) (trace_marker), the rest '.'.
 */
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "../settings.h"
#include "../event_defs.h"
#include "output.h"

uint64_t tfs_out_ns2us(uint64_t ns)
{
	return (ns + 500) / 1000;
}

char tfs_out_mark(uint64_t ns)
{
	static const struct {
		uint64_t ns;
		char c;
	} marks[] = {
		{1000000000ull, '$'}, {100000000ull, '@'}, {10000000ull, '*'},
		{1000000ull, '#'},    {100000ull, '!'},	   {10000ull, '+'},
	};

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (ns > marks[i].ns)
			return marks[i].c;
	return ' ';
}

unsigned int tfs_out_sym_flags(const struct tfs_instance *inst)
{
	return (tfs_opt(inst, TFS_OPT_SYM_OFFSET) ? TFS_SYM_OFFSET : 0) |
	       (tfs_opt(inst, TFS_OPT_SYM_ADDR) ? TFS_SYM_ADDR : 0) |
	       (tfs_out_demangle(inst) ? TFS_SYM_DEMANGLE : 0);
}

/* Demangling is the function tracer's option `demangle`; on for other tracers. */
bool tfs_out_demangle(const struct tfs_instance *inst)
{
	/* the dump thread prints while a write may change the tracer */
	const struct tracer *t = __atomic_load_n(&inst->tracer, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; t && t->opts && t->opts[i].name; i++)
		if (!strcmp(t->opts[i].name, "demangle"))
			return tfs_tracer_opt(inst, "demangle");
	return true;
}

void tfs_out_cut_name(char *name, size_t size)
{
	size_t i;

	if (size < 8 || strlen(name) < size - 1)
		return; /* not cut by the lookup */
	for (i = size - 5; i > 0; i--)
		if (strchr(",<( ", name[i]) || (name[i] == ':' && name[i - 1] == ':'))
			break;
	memcpy(name + i + 1, "...", 4);
}

/* The name of addr as tid had it mapped at tsc (the event's time), cut as tfs_out_cut_name. */
int tfs_out_sym_lookup(pid_t tid, uint64_t tsc, uint64_t addr, bool demangle, char *name,
		       uint64_t *start, uint64_t *symsize)
{
	int err = tfs_sym_lookup_at(tid, tsc, addr, demangle, name, TFS_SYM_NAME_MAX, start,
				    symsize);

	if (!err)
		tfs_out_cut_name(name, TFS_SYM_NAME_MAX);
	return err;
}

void tfs_out_ip_sym(struct tfs_buf *b, const struct ut_ev *ev, uint64_t ip, unsigned int sym_flags)
{
	pid_t tid = (pid_t)ev->tid;
	char name[TFS_SYM_NAME_MAX];
	uint64_t start = 0, size = 0;

	if (!ip) {
		tfs_buf_append(b, "0", 1);
		return;
	}
	/* named as the process had it mapped when the event was written */
	if (tfs_out_sym_lookup(tid, ev->ts, ip, sym_flags & TFS_SYM_DEMANGLE, name, &start,
			       &size) == 0 &&
	    name[0]) {
		if (sym_flags & TFS_SYM_OFFSET)
			tfs_buf_printf(b, "%s+0x%" PRIx64 "/0x%" PRIx64, name, ip - start, size);
		else
			tfs_buf_printf(b, "%s", name);
	} else if (tfs_sym_object_at(tid, ev->ts, ip, name, sizeof(name)) == 0) {
		tfs_buf_printf(b, "%s", name);
	} else {
		tfs_buf_printf(b, "0x%08" PRIx64, ip);
	}
	if (sym_flags & TFS_SYM_ADDR)
		tfs_buf_printf(b, " <%016" PRIx64 ">", ip);
}

/* The five flag characters (trace_print_lat_fmt). */
void tfs_out_lat_flags(struct tfs_buf *b, const struct ut_ev *ev)
{
	char f[6];

	f[0] = ev->flags & UT_EVF_SIGBLOCKED ? 'd' : '.';
	f[1] = '.';
	f[2] = ev->flags & UT_EVF_SIGHANDLER ? 'h' : '.';
	f[3] = ev->flags & UT_EVF_PREEMPT1 ? '1' : '.';
	f[4] = '.';
	f[5] = '\0';
	tfs_buf_append(b, f, 5);
}

void tfs_out_comm(pid_t tid, char comm[16])
{
	/* record-cmd is a top-level option: saved_cmdlines are global */
	if (!tfs_opt(&tfs_top, TFS_OPT_RECORD_CMD) || tfs_task_comm(tid, comm) != 0 || !comm[0])
		strcpy(comm, "<...>");
	comm[15] = '\0';
}

static void print_time(const struct tfs_iter *it, struct tfs_buf *b, uint64_t ts)
{
	if (tfs_clock_is_counter(it->inst->clock)) {
		tfs_buf_printf(b, " %12" PRIu64, ts);
	} else {
		uint64_t us = tfs_out_ns2us(ts);

		tfs_buf_printf(b, " %5lu.%06lu", (unsigned long)(us / 1000000),
			       (unsigned long)(us % 1000000));
	}
}

/* The kernel's flag byte for the verbose latency format. */
static unsigned int kernel_flags(const struct ut_ev *ev)
{
	return (ev->flags & UT_EVF_SIGBLOCKED ? 0x01 : 0) | (ev->flags & UT_EVF_SIGHANDLER ? 0x08 : 0);
}

static void print_lat_context(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b)
{
	bool in_ns = !tfs_clock_is_counter(it->inst->clock);
	uint64_t abs_ts = e->ts - it->time_start, rel_ts = it->next_ts - e->ts;
	char comm[16];

	tfs_out_comm((pid_t)e->ev->tid, comm);
	if (in_ns) {
		abs_ts = tfs_out_ns2us(abs_ts);
		rel_ts = tfs_out_ns2us(rel_ts);
	}
	if (tfs_opt(it->inst, TFS_OPT_VERBOSE)) {
		tfs_buf_printf(b, "%16s %7d %3u %u %08x %08lx ", comm, (int)e->ev->tid, e->cpu,
			       kernel_flags(e->ev), e->ev->flags & UT_EVF_PREEMPT1 ? 1 : 0,
			       it->idx);
		if (in_ns)
			tfs_buf_printf(b, "[%08" PRIx64 "] %" PRIu64 ".%03" PRIu64 "ms (+%" PRIu64
					  ".%03" PRIu64 "ms): ",
				       tfs_out_ns2us(e->ts), abs_ts / 1000, abs_ts % 1000,
				       rel_ts / 1000, rel_ts % 1000);
		else
			tfs_buf_printf(b, "[%016" PRIx64 "] %lld (+%lld): ", e->ts,
				       (long long)abs_ts, (long long)rel_ts);
		return;
	}
	tfs_buf_printf(b, "%8.8s-%-7d %3u", comm, (int)e->ev->tid, e->cpu);
	tfs_out_lat_flags(b, e->ev);
	if (in_ns)
		tfs_buf_printf(b, " %4lldus%c: ", (long long)abs_ts, tfs_out_mark(rel_ts * 1000));
	else
		tfs_buf_printf(b, " %4lld: ", (long long)abs_ts);
}

void tfs_out_context(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b)
{
	pid_t tid = (pid_t)e->ev->tid;
	char comm[16];

	if (it->lat_fmt) {
		print_lat_context(it, e, b);
		return;
	}
	tfs_out_comm(tid, comm);
	tfs_buf_printf(b, "%16s-%-7d ", comm, tid);
	if (tfs_opt(it->inst, TFS_OPT_RECORD_TGID)) {
		pid_t tgid = tfs_task_tgid(tid);

		if (tgid <= 0)
			tfs_buf_printf(b, "(-------) ");
		else
			tfs_buf_printf(b, "(%7d) ", tgid);
	}
	tfs_buf_printf(b, "[%03u] ", e->cpu);
	if (tfs_opt(it->inst, TFS_OPT_IRQ_INFO))
		tfs_out_lat_flags(b, e->ev);
	print_time(it, b, e->ts);
	tfs_buf_append(b, ": ", 2);
}

/*
 * The kernel's "tracing_mark_write+0x8a/0x170 <ffffffff8149ab1a>": the same
 * name, with the address, offset and size of utracefs's own write op.
 */
static void print_marker_sym(struct tfs_buf *b, unsigned int sf)
{
	uint64_t ip = tfs_marker_ip(), start = ip, size = 0;
	char name[128];

	tfs_buf_printf(b, "tracing_mark_write");
	if ((sf & TFS_SYM_OFFSET) &&
	    tfs_sym_lookup(getpid(), ip, false, name, sizeof(name), &start, &size) == 0)
		tfs_buf_printf(b, "+0x%" PRIx64 "/0x%" PRIx64, ip - start, size);
	else if (sf & TFS_SYM_OFFSET)
		tfs_buf_printf(b, "+0x0/0x0");
	if (sf & TFS_SYM_ADDR)
		tfs_buf_printf(b, " <%016" PRIx64 ">", ip);
}

/* print, bprint, bputs: "func: text" (trace_print_print, trace_bprint_print, ...). */
static void print_print(const struct tfs_iter *it, struct tfs_buf *b, const struct ut_ev *ev,
			unsigned int sf)
{
	uint64_t ip = tfs_out_printk_ip(ev);

	if (ip == UT_IP_MARKER)
		print_marker_sym(b, sf);
	else
		tfs_out_ip_sym(b, ev, ip, sf);
	tfs_buf_append(b, ": ", 2);
	tfs_out_printk_text(it, ev, b);
}

void tfs_out_raw_data(struct tfs_buf *b, const struct ut_ev_raw *r)
{
	/* the kernel shows the whole entry, rounded up to 4 bytes, padding included */
	unsigned int shown = ((12 + r->size + 4 + 3) & ~3u) - 4 - 12;

	tfs_buf_printf(b, "# %x buf:", r->id);
	for (unsigned int i = 0; i < shown; i++)
		tfs_buf_printf(b, " %02x", i < r->size ? r->buf[i] : 0);
	tfs_buf_append(b, "\n", 1);
}

static void print_body(const struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b,
		       unsigned int sf)
{
	const struct ut_ev *ev = e->ev;

	/*
	 * The kernel's print_event_fields() looks the ftrace entries up in a list
	 * that does not hold them: it prints this for each (seen on 6.x kernels)
	 */
	if (ev->type != UT_EV_EVENT && tfs_opt(it->inst, TFS_OPT_FIELDS)) {
		tfs_buf_printf(b, "UNKNOWN TYPE %d\n", ev->type);
		return;
	}
	switch (ev->type) {
	case UT_EV_FUNCTION: {
		const struct ut_ev_func *f = (const void *)ev;

		tfs_out_ip_sym(b, ev, f->ip - UT_SITE_CALL_LEN, sf);
		if (tfs_opt(it->inst, TFS_OPT_PRINT_PARENT) && f->parent_ip) {
			tfs_buf_append(b, " <-", 3);
			tfs_out_ip_sym(b, ev, f->parent_ip, sf);
		}
		tfs_buf_append(b, "\n", 1);
		break;
	}
	case UT_EV_PRINT:
	case UT_EV_BPRINT:
	case UT_EV_BPUTS:
		print_print(it, b, ev, sf);
		break;
	case UT_EV_KERNEL_STACK: {
		const struct ut_ev_stack *st = (const void *)ev;

		tfs_buf_printf(b, "<stack trace>\n");
		for (uint64_t i = 0; i < st->nr && st->ips[i] != UINT64_MAX; i++) {
			tfs_buf_append(b, " => ", 4);
			tfs_out_ip_sym(b, ev, st->ips[i], sf);
			tfs_buf_append(b, "\n", 1);
		}
		break;
	}
	case UT_EV_RAW_DATA:
		tfs_out_raw_data(b, (const void *)ev);
		break;
	case UT_EV_CTX:
	case UT_EV_WAKE:
		tfs_out_ctx(b, (const void *)ev);
		break;
	case UT_EV_EVENT:
		tfs_out_event(it, e, b);
		break;
	default:
		if (!tfs_out_sample(b, ev, false))
			tfs_buf_printf(b, "Unknown type %d\n", ev->type);
	}
}

/* Option raw (print_raw_fmt). */
static void print_raw(const struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b)
{
	const struct ut_ev *ev = e->ev;

	if (tfs_opt(it->inst, TFS_OPT_CONTEXT_INFO))
		tfs_buf_printf(b, "%d %u %" PRIu64 " ", (int)ev->tid, e->cpu, e->ts);
	switch (ev->type) {
	case UT_EV_FUNCTION: {
		const struct ut_ev_func *f = (const void *)ev;

		tfs_buf_printf(b, "%" PRIx64 " %" PRIx64 "\n", f->ip - UT_SITE_CALL_LEN,
			       f->parent_ip);
		break;
	}
	case UT_EV_PRINT: {
		uint64_t ip = ut_ev_print_ip(ev);

		tfs_buf_printf(b, "# %" PRIx64 " ", ip == UT_IP_MARKER ? tfs_marker_ip() : ip);
		tfs_out_printk_text(it, ev, b);
		break;
	}
	case UT_EV_BPRINT:
	case UT_EV_BPUTS:
		tfs_buf_printf(b, ": %" PRIx64 " : ", tfs_out_printk_ip(ev));
		tfs_out_printk_text(it, ev, b);
		break;
	case UT_EV_RAW_DATA:
		tfs_out_raw_data(b, (const void *)ev);
		break;
	case UT_EV_CTX:
	case UT_EV_WAKE:
		tfs_out_ctx_raw(b, (const void *)ev);
		break;
	case UT_EV_EVENT:
		tfs_out_event_raw(b, ev);
		break;
	default:
		if (!tfs_out_sample(b, ev, true))
			tfs_buf_printf(b, "type: %d\n", ev->type);
	}
}

/* SEQ_PUT_HEX_FIELD: the value's bytes from the most significant, then a space. */
static void put_hex(struct tfs_buf *b, uint64_t v, unsigned int size)
{
	tfs_buf_printf(b, "%0*" PRIx64 " ", (int)size * 2, v);
}

/* A field as option hex (its digits) or bin (its bytes as they are) shows it. */
static void put_field(struct tfs_buf *b, uint64_t v, unsigned int size, bool bin)
{
	if (bin)
		tfs_buf_append(b, &v, size); /* SEQ_PUT_FIELD: little-endian, as in memory */
	else
		put_hex(b, v, size);
}

/*
 * Options hex and bin (print_hex_fmt, print_bin_fmt): the context as fields, then
 * the entry's own hex or binary form: the function entry's ip and parent_ip,
 * the wake and switch entries' fields (ctx.c); every other entry has none and shows
 * trace_nop_print's "type: N".
 */
static void print_hexbin(const struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b,
			 bool bin)
{
	const struct ut_ev *ev = e->ev;

	if (tfs_opt(it->inst, TFS_OPT_CONTEXT_INFO)) {
		put_field(b, (uint32_t)ev->tid, 4, bin);
		put_field(b, e->cpu, 4, bin);
		put_field(b, e->ts, 8, bin);
	}
	if (ev->type == UT_EV_FUNCTION) {
		const struct ut_ev_func *f = (const void *)ev;

		put_field(b, f->ip - UT_SITE_CALL_LEN, 8, bin);
		put_field(b, f->parent_ip, 8, bin);
	} else if (ev->type == UT_EV_CTX || ev->type == UT_EV_WAKE) {
		tfs_out_ctx_hexbin(b, (const void *)ev, bin);
	} else if (ev->type == UT_EV_EVENT) {
		tfs_out_event_raw(b, ev);
	} else {
		tfs_buf_printf(b, "type: %d\n", ev->type);
	}
	if (!bin) /* print_hex_fmt ends every entry with a newline of its own */
		tfs_buf_append(b, "\n", 1);
}

static bool started(struct tfs_iter *it, unsigned int cpu)
{
	uint64_t bit = 1ull << (cpu % 64);
	bool was = it->started[cpu / 64] & bit;

	it->started[cpu / 64] |= bit;
	return was;
}

void tfs_out_lost(struct tfs_buf *b, unsigned int cpu, unsigned long lost)
{
	if (lost == TFS_LOST_UNKNOWN)
		tfs_buf_printf(b, "CPU:%u [LOST EVENTS]\n", cpu);
	else if (lost)
		tfs_buf_printf(b, "CPU:%u [LOST %lu EVENTS]\n", cpu, lost);
}

int tfs_out_line(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b)
{
	tfs_out_lost(b, e->cpu, it->lost);
	if (tfs_out_is_printk(e->ev) && tfs_opt(it->inst, TFS_OPT_TRACE_PRINTK) &&
	    tfs_opt(it->inst, TFS_OPT_PRINTK_MSG_ONLY)) {
		tfs_out_printk_text(it, e->ev, b);
		return 0;
	}
	/* the kernel's order: bin, hex, raw */
	if (tfs_opt(it->inst, TFS_OPT_BIN) || tfs_opt(it->inst, TFS_OPT_HEX)) {
		print_hexbin(it, e, b, tfs_opt(it->inst, TFS_OPT_BIN));
		return 0;
	}
	if (tfs_opt(it->inst, TFS_OPT_RAW)) {
		print_raw(it, e, b);
		return 0;
	}
	/* the start of each CPU's data, in `trace` after the buffer overran */
	if (tfs_opt(it->inst, TFS_OPT_ANNOTATE) && it->annotate && !it->pipe &&
	    !started(it, e->cpu) && it->idx > 1)
		tfs_buf_printf(b, "##### CPU %u buffer started ####\n", e->cpu);
	if (tfs_opt(it->inst, TFS_OPT_CONTEXT_INFO))
		tfs_out_context(it, e, b);
	print_body(it, e, b, tfs_out_sym_flags(it->inst));
	return 0;
}

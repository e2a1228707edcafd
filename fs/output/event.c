// SPDX-License-Identifier: MIT
/*
 * event.c - the body of a trace event a program defined (UT_EV_EVENT), in the
 * form the options select, as the kernel prints a TRACE_EVENT:
 *
 *   default   "NAME: " and the print format rendered (print_fmt.c); a format
 *             not understood, or one that cannot be evaluated on a record,
 *             shows "NAME: field=value ..." (tfs_event_print) instead
 *   fields    the kernel's print_event_fields(): "NAME:" then " FIELD=VALUE"
 *             for every field, numbers as hex and decimal
 *   raw, hex, bin
 *             a TRACE_EVENT has no raw, hex or binary printer of its own: the
 *             kernel fills them with trace_nop_print, which prints "type: ID";
 *             the context before it is in the option's form
 *
 * The line code (line.c) chooses among them in the kernel's order: bin, hex,
 * raw, then the default form (where fields applies).
 *
 * Also the text of trace_printk() and trace_puts() records (tfs_out_printk_text):
 * a bprint record's format rendered with its packed arguments, with the same
 * symbols and pointer hashing as the events' formats.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>

#include "../event_defs.h"
#include "../printk_fmt.h"
#include "../settings.h"
#include "output.h"
#include "print_fmt.h"

struct sym_arg {
	const struct ut_ev *ev;
	bool demangle;
};

/* %pS and %ps: the name as the process had the address mapped at the event's time. */
static int sym_name(void *arg, uint64_t addr, bool offset, struct tfs_buf *b)
{
	const struct sym_arg *a = arg;
	char name[TFS_SYM_NAME_MAX];
	uint64_t start = 0, size = 0;

	if (!addr ||
	    tfs_out_sym_lookup((pid_t)a->ev->tid, a->ev->ts, addr, a->demangle, name, &start,
			       &size) ||
	    !name[0])
		return -ENOENT;
	if (offset)
		tfs_buf_printf(b, "%s+0x%" PRIx64 "/0x%" PRIx64, name, addr - start, size);
	else
		tfs_buf_printf(b, "%s", name);
	return 0;
}

static uint64_t hash_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void key_init(void)
{
	/* the kernel's key is random per boot: ours is per mount */
	if (getrandom(&hash_key, sizeof(hash_key), 0) != sizeof(hash_key))
		hash_key = (uint64_t)(uintptr_t)&hash_key ^ 0x9e3779b97f4a7c15ull;
}

/* The kernel's %pS for a value of the fields form: the name, or "0x%lx". */
static void sym_or_hex(struct tfs_buf *b, const struct sym_arg *a, uint64_t v)
{
	if (sym_name((void *)a, v, true, b))
		tfs_buf_printf(b, "0x%" PRIx64, v);
}

/* print_array(): a __data_loc array's bytes as "%02x" separated by commas. */
static void fields_array(struct tfs_buf *b, const struct ut_ev_event *e, const unsigned char *pos)
{
	uint32_t loc, off, len;

	memcpy(&loc, pos, 4);
	off = loc & 0xffff;
	len = loc >> 16;
	if (off + len > e->size) {
		tfs_buf_printf(b, "<OVERFLOW>");
		return;
	}
	for (uint32_t i = 0; i < len; i++)
		tfs_buf_printf(b, "%s%02x", i ? "," : "", e->rec[off + i]);
}

/* Text of a record: up to a NUL or n bytes, unprintable bytes as '?'. */
static void fields_text(struct tfs_buf *b, const unsigned char *p, uint32_t n)
{
	for (uint32_t i = 0; i < n && p[i]; i++) {
		char c = p[i] < 0x20 || p[i] >= 0x7f ? '?' : (char)p[i];

		tfs_buf_append(b, &c, 1);
	}
}

static void fields_value(struct tfs_buf *b, const struct ut_ev_event *e,
			 const struct tfs_event_field *f, const struct sym_arg *a)
{
	const unsigned char *pos = e->rec + f->offset;
	uint64_t v = 0;

	/* the kernel's filter types: a __data_loc of chars is a string, whatever its kind */
	if (f->kind == UT_EVF_KIND_STRING ||
	    (f->kind == UT_EVF_KIND_DYN_ARRAY && strstr(f->type, "char"))) {
		uint32_t loc, off, len;

		memcpy(&loc, pos, 4);
		off = loc & 0xffff;
		len = loc >> 16;
		if (off + len > e->size)
			tfs_buf_printf(b, "<OVERFLOW>");
		else
			fields_text(b, e->rec + off, len);
		return;
	}
	if (f->kind == UT_EVF_KIND_ARRAY && strstr(f->type, "char")) {
		fields_text(b, pos, f->size);
		return;
	}
	if (!strcmp(f->type, "char *") || !strcmp(f->type, "const char *")) {
		/* the kernel reads the string; another process's memory cannot be read */
		memcpy(&v, pos, 8);
		tfs_buf_printf(b, "(0x%016" PRIx64 ")", v);
		return;
	}
	/* every other field is a number of its size, whatever its type */
	memcpy(&v, pos, f->size <= 8 ? f->size : 0);
	switch (f->size) {
	case 1:
		if (v >= 0x20 && v < 0x7f)
			tfs_buf_printf(b, "'%c'", (char)v);
		tfs_buf_printf(b, "(%d)", (int)v);
		break;
	case 2:
		tfs_buf_printf(b, "0x%x (%d)", (unsigned int)v, (int)v);
		break;
	case 4:
		if (f->kind == UT_EVF_KIND_DYN_ARRAY)
			fields_array(b, e, pos);
		else
			tfs_buf_printf(b, "0x%x (%d)", (unsigned int)v, (int)(int32_t)v);
		break;
	case 8:
		sym_or_hex(b, a, v);
		tfs_buf_printf(b, " (%" PRId64 ")", (int64_t)v);
		break;
	default:
		tfs_buf_printf(b, "<INVALID-SIZE>");
	}
}

/* The kernel's print_event_fields() for a TRACE_EVENT. */
static void print_fields(struct tfs_buf *b, const struct ut_ev_event *e,
			 const struct tfs_event_def *d, const struct sym_arg *a)
{
	tfs_buf_printf(b, "%s:", d->name);
	for (uint32_t i = 0; i < d->nr_fields; i++) {
		const struct tfs_event_field *f = &d->fields[i];

		tfs_buf_printf(b, " %.*s=", (int)strcspn(f->name, "["), f->name);
		fields_value(b, e, f, a);
	}
	tfs_buf_append(b, "\n", 1);
}

void tfs_out_event(const struct tfs_iter *it, const struct tfs_event *te, struct tfs_buf *b)
{
	const struct ut_ev_event *e = (const struct ut_ev_event *)te->ev;
	const struct tfs_event_def *d = tfs_event_def(e->id);
	struct sym_arg a = {te->ev, tfs_out_demangle(it->inst)};
	struct tfs_pfmt_env env = {
	    .rec = e->rec,
	    .size = e->size,
	    .hash_ptr = tfs_opt(it->inst, TFS_OPT_HASH_PTR),
	    .sym = sym_name,
	    .sym_arg = &a,
	};
	size_t start = b->len;

	/* the reader checked the record: d exists and e->size >= d->size */
	if (d && tfs_opt(it->inst, TFS_OPT_FIELDS)) {
		print_fields(b, e, d, &a);
		return;
	}
	if (d && d->pfmt) {
		pthread_once(&key_once, key_init);
		env.hash_key = hash_key;
		tfs_buf_printf(b, "%s: ", d->name);
		if (tfs_pfmt_render(d->pfmt, d, &env, b) == 0) {
			tfs_buf_append(b, "\n", 1);
			return;
		}
		b->len = start;
	}
	tfs_event_print(b, te->ev);
}

void tfs_out_event_raw(struct tfs_buf *b, const struct ut_ev *ev)
{
	const struct ut_ev_event *e = (const struct ut_ev_event *)ev;

	if (tfs_event_def(e->id))
		tfs_buf_printf(b, "type: %u\n", e->id);
	else
		tfs_buf_printf(b, "%u ?\n", e->id);
}

/*
 * A bprint record: its format, as its process had it at the record's time, with
 * the packed arguments.  Plain %p is always hashed: the kernel gives hash-ptr's
 * %px only to the formats of trace events.  A format never learnt, or arguments
 * that do not fit it, show what the kernel's printf shows for a pointer it cannot
 * read, on a line of its own.
 */
static void bprint_text(const struct tfs_iter *it, const struct ut_ev_bprint *p, struct tfs_buf *b)
{
	const char *fmt = tfs_printk_fmt_find((pid_t)p->h.tid, p->fmt, p->h.ts);
	struct sym_arg a = {&p->h, tfs_out_demangle(it->inst)};
	struct tfs_pfmt_env env = {.hash_ptr = true, .sym = sym_name, .sym_arg = &a};
	size_t start = b->len;

	pthread_once(&key_once, key_init);
	env.hash_key = hash_key;
	if (fmt && tfs_pfmt_render_bin(fmt, (const unsigned char *)p->buf, p->size, &env, b) == 0)
		return;
	b->len = start;
	tfs_buf_append(b, "(efault)\n", 9);
}

void tfs_out_printk_text(const struct tfs_iter *it, const struct ut_ev *ev, struct tfs_buf *b)
{
	switch (ev->type) {
	case UT_EV_PRINT: {
		unsigned int room;
		const char *text = ut_ev_print_text(ev, &room);
		size_t n = strnlen(text, room);

		tfs_buf_append(b, text, n);
		/* markers get the newline the kernel adds */
		if (ut_ev_print_ip(ev) == UT_IP_MARKER && (n == 0 || text[n - 1] != '\n'))
			tfs_buf_append(b, "\n", 1);
		break;
	}
	case UT_EV_BPRINT:
		bprint_text(it, (const struct ut_ev_bprint *)ev, b);
		break;
	case UT_EV_BPUTS: {
		const struct ut_ev_bputs *p = (const void *)ev;
		const char *str = tfs_printk_fmt_find((pid_t)ev->tid, p->str, ev->ts);

		tfs_buf_printf(b, "%s", str ? str : "(efault)\n");
		break;
	}
	}
}

uint64_t tfs_out_printk_ip(const struct ut_ev *ev)
{
	if (ev->type == UT_EV_BPRINT)
		return ((const struct ut_ev_bprint *)ev)->ip;
	if (ev->type == UT_EV_BPUTS)
		return ((const struct ut_ev_bputs *)ev)->ip;
	return ut_ev_print_ip(ev);
}

// SPDX-License-Identifier: MIT
/*
 * print_fmt_render.c - one record through a parsed print format (print_fmt.c), as
 * the kernel's trace output prints a TRACE_EVENT: C arithmetic on the fields in 64
 * bits with each value's size and signedness, the helpers' text as the kernel's
 * trace_print_*_seq functions make it, and the conversions as the kernel's vsnprintf
 * makes them.  The kernel's vsnprintf is not C's in corners that show: "%#x" of 0 is
 * "0x0", a precision of 0 still prints a 0, the 0 flag pads even with a precision,
 * and a negative `*` precision counts as 0.
 *
 * Nothing a record holds is trusted: every __data_loc and array lies within the
 * record or is cut to it, and bytes of strings that are not printable show as '?'
 * (they reach terminals).  A record the format cannot be evaluated on (a division by
 * zero, a string where a number belongs) fails the whole line, and the caller shows
 * the fields instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../event_defs.h"
#include "print_fmt_int.h"

enum { V_INT, V_STR, V_BUF };

/* A value: an integer with its C type, or bytes (a string or an array) of the record. */
struct val {
	uint8_t kind, size, is_signed, elem, esigned; /* elem, esigned: of an array's elements */
	uint64_t v;
	const unsigned char *p;
	uint32_t n;
};

/* Text the helpers make: append-only, so values pointing into it stay valid. */
struct scratch {
	size_t len;
	unsigned char buf[8192];
};

struct ctx {
	const struct tfs_event_def *d; /* NULL for a bprint record */
	const struct tfs_pfmt_env *env;
	struct scratch *sc;
	bool raw; /* strings as they are (bprint, as the kernel's bstr_printf), else '?' */
};

/* v as a C value of size bytes and signedness is_signed, in 64 bits. */
static uint64_t conv(uint64_t v, unsigned int size, bool is_signed)
{
	if (size >= 8)
		return v;
	v &= (1ull << (size * 8)) - 1;
	if (is_signed && (v >> (size * 8 - 1)) & 1)
		v |= ~0ull << (size * 8);
	return v;
}

static struct val int_val(uint64_t v, unsigned int size, bool is_signed)
{
	return (struct val){.kind = V_INT,
			    .size = (uint8_t)size,
			    .is_signed = is_signed,
			    .v = conv(v, size, is_signed)};
}

/* Bytes off..off+n of the record, cut to it. */
static struct val rec_bytes(const struct ctx *c, uint32_t off, uint32_t n, uint8_t kind)
{
	if (off > c->env->size)
		off = c->env->size;
	if (n > c->env->size - off)
		n = c->env->size - off;
	return (struct val){.kind = kind, .p = c->env->rec + off, .n = n, .elem = 1, .esigned = 1};
}

/* A __data_loc field's bytes: nothing when it points outside the record. */
static struct val data_loc(const struct ctx *c, int fi, uint8_t kind)
{
	const struct tfs_event_field *f = &c->d->fields[fi];
	uint32_t loc, off, n;
	struct val v;

	memcpy(&loc, c->env->rec + f->offset, 4);
	off = loc & 0xffff;
	n = loc >> 16;
	if (off < c->d->size || off > c->env->size || n > c->env->size - off)
		off = c->env->size, n = 0;
	v = rec_bytes(c, off, n, kind);
	v.elem = (uint8_t)f->elem_size;
	v.esigned = f->is_signed;
	return v;
}

static bool eval(const struct ctx *c, const struct pf_node *n, struct val *out);

static bool eval_int(const struct ctx *c, const struct pf_node *n, struct val *out)
{
	return eval(c, n, out) && out->kind == V_INT;
}

static struct val field_val(const struct ctx *c, int fi)
{
	const struct tfs_event_field *f = &c->d->fields[fi];
	uint64_t v = 0;

	switch (f->kind) {
	case UT_EVF_KIND_PLAIN:
		memcpy(&v, c->env->rec + f->offset, f->size); /* little-endian */
		if (strchr(f->type, '*'))
			return int_val(v, 8, false);
		return int_val(v, f->size, f->is_signed);
	case UT_EVF_KIND_ARRAY: {
		struct val a = rec_bytes(c, f->offset, f->size, V_BUF);

		a.elem = (uint8_t)f->elem_size;
		a.esigned = f->is_signed;
		return a;
	}
	default: /* the __data_loc word itself, as the kernel's REC->__data_loc_x would */
		memcpy(&v, c->env->rec + f->offset, 4);
		return int_val(v, 4, false);
	}
}

/* C's usual arithmetic conversions, for two integers promoted to at least int. */
static void arith_type(const struct val *a, const struct val *b, unsigned int *size, bool *sgn)
{
	unsigned int sa = a->size < 4 ? 4 : a->size, sb = b->size < 4 ? 4 : b->size;
	bool ua = a->size >= 4 && !a->is_signed, ub = b->size >= 4 && !b->is_signed;

	*size = sa > sb ? sa : sb;
	if (sa == sb)
		*sgn = !(ua || ub);
	else
		*sgn = sa > sb ? !ua : !ub;
}

static bool binop(uint8_t op, const struct val *a, const struct val *b, struct val *out)
{
	unsigned int size;
	bool sgn;
	uint64_t x = a->v, y = b->v, r;

	arith_type(a, b, &size, &sgn);
	x = conv(x, size, sgn);
	y = conv(y, size, sgn);
	switch (op) {
	case '+':
		r = x + y;
		break;
	case '-':
		r = x - y;
		break;
	case '*':
		r = x * y;
		break;
	case '/':
	case '%':
		if (!conv(y, size, sgn) || (sgn && conv(y, size, true) == ~0ull))
			return false; /* by zero, or the one signed overflow of / */
		if (sgn)
			r = op == '/' ? (uint64_t)((int64_t)x / (int64_t)y)
				      : (uint64_t)((int64_t)x % (int64_t)y);
		else
			r = op == '/' ? conv(x, size, 0) / conv(y, size, 0)
				      : conv(x, size, 0) % conv(y, size, 0);
		break;
	case '&':
		r = x & y;
		break;
	case '|':
		r = x | y;
		break;
	case '^':
		r = x ^ y;
		break;
	case OP_SHL:
	case OP_SHR: {
		/* the result has the promoted left operand's type; a shift past it is refused */
		unsigned int ls = a->size < 4 ? 4 : a->size;
		bool lsg = a->size < 4 || a->is_signed;

		if (b->v >= ls * 8ull)
			return false;
		x = conv(a->v, ls, lsg);
		if (op == OP_SHL)
			r = x << b->v;
		else
			r = lsg ? (uint64_t)((int64_t)x >> b->v) : conv(x, ls, 0) >> b->v;
		*out = int_val(r, ls, lsg);
		return true;
	}
	default: { /* comparisons: an int 0 or 1 */
		bool lt = sgn ? (int64_t)x < (int64_t)y : conv(x, size, 0) < conv(y, size, 0);
		bool eq = conv(x, size, 0) == conv(y, size, 0);

		r = op == '<'	  ? lt
		    : op == OP_LE ? lt || eq
		    : op == '>'	  ? !lt && !eq
		    : op == OP_GE ? !lt
		    : op == OP_EQ ? eq
				  : !eq;
		*out = int_val(r, 4, true);
		return true;
	}
	}
	*out = int_val(r, size, sgn);
	return true;
}

/* Append to the scratch; the value is the text appended since start. */
static void sc_puts(struct scratch *sc, const char *s, size_t n)
{
	if (n > sizeof(sc->buf) - sc->len)
		n = sizeof(sc->buf) - sc->len;
	memcpy(sc->buf + sc->len, s, n);
	sc->len += n;
}

static void sc_printf(struct scratch *sc, const char *fmt, uint64_t v)
{
	char t[32];
	int n = snprintf(t, sizeof(t), fmt, (unsigned long long)v);

	sc_puts(sc, t, n > 0 ? (size_t)n : 0);
}

static struct val sc_val(const struct scratch *sc, size_t start)
{
	return (struct val){.kind = V_STR,
			    .p = sc->buf + start,
			    .n = (uint32_t)(sc->len - start),
			    .elem = 1,
			    .esigned = 1};
}

/* trace_print_symbols_seq and trace_print_flags_seq. */
static bool table(const struct ctx *c, const struct pf_node *n, struct val *out)
{
	struct scratch *sc = c->sc;
	size_t start = sc->len;
	struct val v, e;
	uint64_t flags;
	bool first = true;

	if (!eval_int(c, n->a, &v))
		return false;
	flags = v.v;
	for (const struct pf_node *t = n->next; t && (n->kind == N_SYMBOLIC || flags);
	     t = t->next) {
		if (!eval_int(c, t->a, &e))
			return false;
		if (n->kind == N_SYMBOLIC) {
			if (e.v != v.v)
				continue;
			sc_puts(sc, t->str, t->slen);
			break;
		}
		if ((flags & e.v) != e.v)
			continue;
		flags &= ~e.v;
		if (!first)
			sc_puts(sc, n->b->str, n->b->slen);
		first = false;
		sc_puts(sc, t->str, t->slen);
	}
	if (n->kind == N_SYMBOLIC && sc->len == start)
		sc_printf(sc, "0x%llx", v.v);
	if (n->kind == N_FLAGS && flags) {
		if (!first)
			sc_puts(sc, n->b->str, n->b->slen);
		sc_printf(sc, "0x%llx", flags);
	}
	*out = sc_val(sc, start);
	return true;
}

/* The bytes a buffer argument points at, cut to len bytes (and to the record). */
static bool buf_arg(const struct ctx *c, const struct pf_node *n, uint64_t len, struct val *out)
{
	if (!eval(c, n, out) || out->kind == V_INT)
		return false;
	if (len < out->n)
		out->n = (uint32_t)len;
	return true;
}

/* trace_print_hex_seq and trace_print_array_seq. */
static bool hex_or_array(const struct ctx *c, const struct pf_node *n, struct val *out)
{
	struct scratch *sc = c->sc;
	size_t start = sc->len;
	struct val buf, cnt, es;
	uint64_t el = 1;

	if (!eval_int(c, n->b, &cnt))
		return false;
	if (n->kind == N_ARRAY) {
		if (!eval_int(c, n->c, &es) || !es.v || es.v > 8 || (es.v & (es.v - 1)))
			return false;
		el = es.v;
	}
	if (cnt.v > UT_EVENT_REC_MAX || !buf_arg(c, n->a, cnt.v * el, &buf))
		return false;
	if (n->kind != N_ARRAY) {
		for (uint32_t i = 0; i < buf.n; i++) {
			if (i && n->kind == N_HEX)
				sc_puts(sc, " ", 1);
			sc_printf(sc, "%02llx", buf.p[i]);
		}
	} else {
		sc_puts(sc, "{", 1);
		for (uint32_t i = 0; i + el <= buf.n; i += (uint32_t)el) {
			uint64_t v = 0;

			memcpy(&v, buf.p + i, el);
			if (i)
				sc_puts(sc, ",", 1);
			sc_printf(sc, "0x%llx", v);
		}
		sc_puts(sc, "}", 1);
	}
	*out = sc_val(sc, start);
	return true;
}

/* a[b]: the element, of the array's element type; one past the bytes fails. */
static bool eval_index(const struct ctx *c, const struct pf_node *n, struct val *out)
{
	struct val a, i;
	uint64_t v = 0;

	if (!eval(c, n->a, &a) || a.kind == V_INT || !eval_int(c, n->b, &i) || !a.elem ||
	    i.v >= a.n / a.elem)
		return false;
	memcpy(&v, a.p + i.v * a.elem, a.elem);
	*out = int_val(v, a.elem, a.esigned);
	return true;
}

static bool eval_unary(const struct ctx *c, const struct pf_node *n, struct val *out)
{
	struct val a;

	if (!eval_int(c, n->a, &a))
		return false;
	if (n->op == '!') {
		*out = int_val(!a.v, 4, true);
		return true;
	}
	if (a.size < 4) /* promoted to int */
		a = int_val(a.v, 4, true);
	*out = int_val(n->op == '-' ? -a.v : n->op == '~' ? ~a.v : a.v, a.size, a.is_signed);
	return true;
}

static bool eval(const struct ctx *c, const struct pf_node *n, struct val *out)
{
	struct val a, b;

	switch (n->kind) {
	case N_NUM:
		*out = int_val(n->num, n->size, n->is_signed);
		return true;
	case N_STR:
		*out = (struct val){.kind = V_STR,
				    .p = (const unsigned char *)n->str,
				    .n = (uint32_t)n->slen,
				    .elem = 1,
				    .esigned = 1};
		return true;
	case N_FIELD:
		*out = field_val(c, n->field);
		return true;
	case N_GET_STR:
		*out = data_loc(c, n->field, V_STR);
		return true;
	case N_GET_DYN:
		*out = data_loc(c, n->field, V_BUF);
		return true;
	case N_DYN_LEN:
		*out = int_val(data_loc(c, n->field, V_BUF).n, 4, true);
		return true;
	case N_UNARY:
		return eval_unary(c, n, out);
	case N_INDEX:
		return eval_index(c, n, out);
	case N_BINARY:
		if (n->op == OP_AND || n->op == OP_OR) {
			if (!eval_int(c, n->a, &a))
				return false;
			if ((n->op == OP_AND) == !a.v) { /* decided by the left side, as in C */
				*out = int_val(n->op == OP_OR, 4, true);
				return true;
			}
			if (!eval_int(c, n->b, &b))
				return false;
			*out = int_val(b.v != 0, 4, true);
			return true;
		}
		return eval_int(c, n->a, &a) && eval_int(c, n->b, &b) && binop(n->op, &a, &b, out);
	case N_COND:
		/* a string or an array is true: it is a pointer that is not NULL */
		if (!eval(c, n->a, &a))
			return false;
		return eval(c, a.kind != V_INT || a.v ? n->b : n->c, out);
	case N_CAST:
		if (!eval(c, n->a, &a))
			return false;
		if (a.kind != V_INT) { /* (void *)buf, (char *)buf: still the bytes */
			*out = a;
			return n->size == 8 && !n->is_signed;
		}
		*out = int_val(a.v, n->size, n->is_signed);
		return true;
	case N_SYMBOLIC:
	case N_FLAGS:
		return table(c, n, out);
	case N_HEX:
	case N_HEX_STR:
	case N_ARRAY:
		return hex_or_array(c, n, out);
	default:
		return false;
	}
}

/* ---- the kernel's vsnprintf --------------------------------------------------------------- */

static void pad(struct tfs_buf *b, char ch, int n)
{
	char spaces[64];

	memset(spaces, ch, sizeof(spaces));
	while (n > 0) {
		int k = n > 64 ? 64 : n;

		tfs_buf_append(b, spaces, (size_t)k);
		n -= k;
	}
}

/* The kernel's number(): num already of the conversion's size and signedness. */
static void number(struct tfs_buf *b, uint64_t num, bool is_signed, int base, bool upper,
		   uint8_t flags, int width, int prec)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24], sign = 0;
	bool need_pfx = (flags & UT_PF_SPECIAL) && base != 10, is_zero = num == 0;
	int i = 0;

	if (flags & UT_PF_LEFT)
		flags &= (uint8_t)~UT_PF_ZEROPAD;
	if (is_signed) {
		if ((int64_t)num < 0) {
			sign = '-';
			num = -num;
			width--;
		} else if (flags & UT_PF_PLUS) {
			sign = '+';
			width--;
		} else if (flags & UT_PF_SPACE) {
			sign = ' ';
			width--;
		}
	}
	if (need_pfx)
		width -= base == 16 ? 2 : !is_zero;
	do {
		tmp[i++] = digits[num % (unsigned int)base];
		num /= (unsigned int)base;
	} while (num);
	if (i > prec)
		prec = i;
	width -= prec;
	if (!(flags & (UT_PF_ZEROPAD | UT_PF_LEFT)))
		pad(b, ' ', width), width = 0;
	if (sign)
		tfs_buf_append(b, &sign, 1);
	if (need_pfx && (base == 16 || !is_zero))
		tfs_buf_append(b, "0", 1);
	if (need_pfx && base == 16)
		tfs_buf_append(b, upper ? "X" : "x", 1);
	if (!(flags & UT_PF_LEFT))
		pad(b, flags & UT_PF_ZEROPAD ? '0' : ' ', width), width = 0;
	pad(b, '0', prec - i);
	while (--i >= 0)
		tfs_buf_append(b, &tmp[i], 1);
	pad(b, ' ', width);
}

/* The kernel's string(): precision cuts, width pads; unprintable bytes as '?' unless raw. */
static void string(struct tfs_buf *b, const unsigned char *s, uint32_t n, uint8_t flags, int width,
		   int prec, bool raw)
{
	uint32_t len = 0;

	while (len < n && s[len] && (prec < 0 || len < (uint32_t)prec))
		len++;
	if (!(flags & UT_PF_LEFT))
		pad(b, ' ', width - (int)len);
	for (uint32_t i = 0; i < len; i++) {
		char ch = !raw && (s[i] < 0x20 || s[i] >= 0x7f) ? '?' : (char)s[i];

		tfs_buf_append(b, &ch, 1);
	}
	if (flags & UT_PF_LEFT)
		pad(b, ' ', width - (int)len);
}

uint64_t tfs_pfmt_hash_ptr(uint64_t ptr, uint64_t key)
{
	uint64_t z = ptr + key;

	/* a keyed mix (splitmix64's finalizer): only the top 32 bits are shown */
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z >> 32;
}

static void pointer(const struct ctx *c, const struct ut_pf_conv *sp, uint64_t v, int width, int prec,
		    struct tfs_buf *b)
{
	uint8_t flags = sp->flags;

	if (sp->ext && strchr("SsFfB", sp->ext)) {
		struct tfs_buf t = {0};
		bool off = sp->ext != 's' && sp->ext != 'f';

		if (!c->env->sym || c->env->sym(c->env->sym_arg, v, off, &t) || !t.len) {
			tfs_buf_reset(&t);
			tfs_buf_printf(&t, "0x%llx", (unsigned long long)v);
		}
		string(b, (const unsigned char *)t.data, (uint32_t)t.len, flags, width, prec, false);
		tfs_buf_free(&t);
		return;
	}
	/*
	 * Plain %p is hashed unless the option hash-ptr is off, and then only the bare
	 * "%p" shows the address (the kernel rewrites exactly that to %px); NULL and
	 * error values are never hashed.
	 */
	if (sp->ext != 'x' && v && v < (uint64_t)-4095 &&
	    (c->env->hash_ptr || sp->ext || sp->flags || sp->width != UT_PF_NONE ||
	     sp->prec != UT_PF_NONE || sp->lenbits != 32))
		v = tfs_pfmt_hash_ptr(v, c->env->hash_key);
	if (width == UT_PF_NONE) {
		width = 16;
		flags |= UT_PF_ZEROPAD;
	}
	number(b, v, false, 16, false, flags, width, prec < 0 ? 0 : prec);
}

/* An argument for `*`: an int, clamped as the widths written out are. */
static int star_clamp(uint64_t v)
{
	int64_t x = (int64_t)conv(v, 4, true);

	return (int)(x > UT_PF_WIDTH_MAX ? UT_PF_WIDTH_MAX : x < -UT_PF_WIDTH_MAX ? -UT_PF_WIDTH_MAX : x);
}

static bool star(const struct ctx *c, const struct pf_node *n, int *out)
{
	struct val v;

	if (!eval_int(c, n, &v))
		return false;
	*out = star_clamp(v.v);
	return true;
}

static bool convert(const struct ctx *c, const struct ut_pf_conv *sp, const struct val *v, int width,
		    int prec, struct tfs_buf *b)
{
	uint8_t flags = sp->flags;
	bool sgn = sp->conv == 'd' || sp->conv == 'i';
	int base = sp->conv == 'o' ? 8 : sp->conv == 'x' || sp->conv == 'X' ? 16 : 10;

	if (width < 0 && width != UT_PF_NONE) { /* a negative `*` width: left-justified */
		flags |= UT_PF_LEFT;
		width = -width;
	}
	if (width == UT_PF_NONE && sp->conv != 'p')
		width = 0;
	switch (sp->conv) {
	case 's':
		if (v->kind != V_INT)
			string(b, v->p, v->n, flags, width, prec, c->raw);
		else /* another process's pointer cannot be read: the kernel's words for it */
			string(b, (const unsigned char *)(v->v ? "(efault)" : "(null)"), 8, flags,
			       width, prec, false);
		return true;
	case 'c': {
		unsigned char ch;

		if (v->kind != V_INT)
			return false;
		ch = (unsigned char)v->v;
		if (!(flags & UT_PF_LEFT))
			pad(b, ' ', width - 1);
		string(b, &ch, 1, 0, 0, -1, c->raw);
		if (flags & UT_PF_LEFT)
			pad(b, ' ', width - 1);
		return true;
	}
	case 'p':
		if (v->kind != V_INT)
			return false;
		pointer(c, sp, v->v, width, prec, b);
		return true;
	default:
		if (v->kind != V_INT)
			return false;
		number(b, conv(v->v, sp->lenbits / 8, sgn), sgn, base, sp->conv == 'X', flags,
		       width, prec < 0 ? 0 : prec);
		return true;
	}
}

int tfs_pfmt_render(const struct tfs_pfmt *pf, const struct tfs_event_def *d,
		    const struct tfs_pfmt_env *env, struct tfs_buf *b)
{
	struct scratch *sc = malloc(sizeof(*sc));
	struct ctx c = {.d = d, .env = env, .sc = sc};
	size_t start = b->len;
	unsigned int ai = 0;
	bool ok = sc != NULL;

	if (sc)
		sc->len = 0;
	for (unsigned int i = 0; ok && i < pf->nspecs; i++) {
		const struct pf_spec *sp = &pf->specs[i];
		int width = sp->c.width, prec = sp->c.prec;
		struct val v;

		tfs_buf_append(b, pf->text + sp->lit_off, sp->lit_len);
		if (sp->c.conv == '%') {
			tfs_buf_append(b, "%", 1);
			continue;
		}
		if (width == UT_PF_STAR)
			ok = star(&c, pf->args[ai++], &width);
		if (ok && prec == UT_PF_STAR) {
			ok = star(&c, pf->args[ai++], &prec);
			if (prec < 0)
				prec = 0;
		}
		ok = ok && eval(&c, pf->args[ai++], &v) && convert(&c, &sp->c, &v, width, prec, b);
	}
	if (ok)
		tfs_buf_append(b, pf->text + pf->tail_off, pf->tail_len);
	free(sc);
	if (!ok) {
		b->len = start;
		if (b->data)
			b->data[start] = 0;
		return -EINVAL;
	}
	return 0;
}

/* ---- bprint records: the kernel's bstr_printf ---------------------------------------------- */

/* The next packed argument of size bytes (ut_printf.h) at *off, or false past the end. */
static bool bin_arg(const unsigned char *buf, uint32_t n, uint32_t *off, int size, struct val *v)
{
	uint64_t x = 0;
	uint32_t at;

	if (size == 0) { /* a string and its NUL */
		const unsigned char *nul;

		if (*off >= n || !(nul = memchr(buf + *off, 0, n - *off)))
			return false;
		*v = (struct val){.kind = V_STR, .p = buf + *off, .n = (uint32_t)(nul - (buf + *off))};
		*off += v->n + 1;
		return true;
	}
	at = ut_pf_align(*off, size);
	if (at > n || (uint32_t)size > n - at)
		return false;
	memcpy(&x, buf + at, (size_t)size); /* little-endian */
	*off = at + (uint32_t)size;
	*v = int_val(x, (unsigned int)size, false);
	return true;
}

int tfs_pfmt_render_bin(const char *fmt, const unsigned char *buf, uint32_t n,
			const struct tfs_pfmt_env *env, struct tfs_buf *b)
{
	struct ctx c = {.env = env, .raw = true};
	const char *s = fmt, *lit = fmt;
	uint32_t off = 0;

	while (*s) {
		struct ut_pf_conv cv;
		struct val v, w;
		int width, prec;

		if (*s != '%') {
			s++;
			continue;
		}
		tfs_buf_append(b, lit, (size_t)(s - lit));
		s++;
		if (!ut_pf_decode(&s, &cv))
			return -EINVAL; /* the kernel's printf stops at a conversion it does not know */
		lit = s;
		if (cv.conv == '%') {
			tfs_buf_append(b, "%", 1);
			continue;
		}
		width = cv.width, prec = cv.prec;
		if (width == UT_PF_STAR) {
			if (!bin_arg(buf, n, &off, 4, &w))
				return -EINVAL;
			width = star_clamp(w.v);
		}
		if (prec == UT_PF_STAR) {
			if (!bin_arg(buf, n, &off, 4, &w))
				return -EINVAL;
			prec = star_clamp(w.v) < 0 ? 0 : star_clamp(w.v);
		}
		if (!bin_arg(buf, n, &off, ut_pf_arg_size(&cv), &v) ||
		    !convert(&c, &cv, &v, width, prec, b))
			return -EINVAL;
	}
	tfs_buf_append(b, lit, (size_t)(s - lit));
	return 0;
}

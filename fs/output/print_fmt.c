// SPDX-License-Identifier: MIT
/*
 * print_fmt.c - parsing a trace event's print format once, when its definition is
 * entered (fs/event_defs.c): the quoted format with its C escapes, its conversions
 * in the kernel's vsnprintf syntax, and the argument expressions with C's precedence.
 *
 * The text is a program's, so hostile: every limit is checked (node count bounded by
 * the text's length, nesting depth, number of conversions and arguments), and what is
 * not understood — an unknown identifier, a conversion the renderer does not know, a
 * count of arguments that does not match the conversions — fails the parse with a
 * reason; the event is then shown by its fields.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../event_defs.h"
#include "print_fmt_int.h"

#define MAX_DEPTH 64

struct parser {
	struct tfs_pfmt *pf;
	const struct tfs_event_def *d;
	const char *p;
	const char *why;
	unsigned int depth;
};

static bool fail(struct parser *ps, const char *why)
{
	if (!ps->why)
		ps->why = why;
	return false;
}

static struct pf_node *node(struct parser *ps, uint8_t kind)
{
	struct pf_node *n;

	if (ps->pf->nnodes >= ps->pf->cap) {
		fail(ps, "the expressions are too large");
		return NULL;
	}
	n = &ps->pf->nodes[ps->pf->nnodes++];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->field = -1;
	return n;
}

/* ---- tokens ------------------------------------------------------------------------------- */

static bool is_ident(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

/* Consume s (punctuation) if it is next. */
static bool eat(struct parser *ps, const char *s)
{
	size_t n = strlen(s);

	skip_ws(ps);
	if (strncmp(ps->p, s, n))
		return false;
	ps->p += n;
	return true;
}

/* The next identifier into buf (without consuming when peek): its length, 0 if none. */
static size_t ident(struct parser *ps, char *buf, size_t room, bool peek)
{
	size_t n = 0;

	skip_ws(ps);
	if (!is_ident(ps->p[0], true))
		return 0;
	while (is_ident(ps->p[n], false))
		n++;
	if (n >= room)
		return 0;
	memcpy(buf, ps->p, n);
	buf[n] = 0;
	if (!peek)
		ps->p += n;
	return n;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One character of a C literal at *s (after its backslash, if any): -1 when malformed. */
static int unescape(const char **s)
{
	static const char simple[] = "ntrabfve\\'\"?", meaning[] = "\n\t\r\a\b\f\v\x1b\\'\"?";
	const char *p = *s;
	int v;

	if (!*p)
		return -1;
	if (*p != '\\') {
		*s = p + 1;
		return (unsigned char)*p;
	}
	p++;
	if (*p && strchr(simple, *p)) {
		v = (unsigned char)meaning[strchr(simple, *p) - simple];
		p++;
	} else if (*p == 'x') {
		p++;
		if (hexval(*p) < 0)
			return -1;
		for (v = 0; hexval(*p) >= 0; p++)
			v = (v * 16 + hexval(*p)) & 0xff;
	} else {
		if (*p < '0' || *p > '7')
			return -1;
		v = 0;
		for (int i = 0; i < 3 && *p >= '0' && *p <= '7'; i++, p++)
			v = v * 8 + (*p - '0');
		v &= 0xff;
	}
	*s = p;
	return v;
}

/* Adjacent string literals, concatenated and decoded into out (room bytes). */
static bool string_lit(struct parser *ps, char *out, size_t room, size_t *len)
{
	size_t n = 0;

	skip_ws(ps);
	if (*ps->p != '"')
		return fail(ps, "a string is expected");
	while (*ps->p == '"') {
		ps->p++;
		while (*ps->p && *ps->p != '"') {
			int c = unescape(&ps->p);

			if (c < 0)
				return fail(ps, "a string has a malformed escape");
			if (c == 0 || n + 1 >= room)
				return fail(ps, "a string has a NUL or is too long");
			out[n++] = (char)c;
		}
		if (*ps->p != '"')
			return fail(ps, "a string is not closed");
		ps->p++;
		skip_ws(ps);
	}
	out[n] = 0;
	*len = n;
	return true;
}

/* ---- the format string -------------------------------------------------------------------- */

static bool conv_spec(struct parser *ps, const char **s, struct pf_spec *sp)
{
	if (!ut_pf_decode(s, &sp->c))
		return fail(ps, "a conversion is not one the kernel's printf knows");
	if (!ut_pf_ext_known(sp->c.ext))
		return fail(ps, "a %p extension is not supported");
	return true;
}

/* Cut the decoded text into conversions; the number of arguments they take. */
static bool split_format(struct parser *ps, unsigned int *nargs)
{
	struct tfs_pfmt *pf = ps->pf;
	const char *s = pf->text, *lit = s;

	*nargs = 0;
	while (*s) {
		struct pf_spec sp = {0};

		if (*s != '%') {
			s++;
			continue;
		}
		sp.lit_off = (uint16_t)(lit - pf->text);
		sp.lit_len = (uint16_t)(s - lit);
		s++;
		if (!conv_spec(ps, &s, &sp))
			return false;
		if (pf->nspecs == PF_MAX_SPECS)
			return fail(ps, "too many conversions");
		pf->specs[pf->nspecs++] = sp;
		if (sp.c.conv != '%')
			*nargs += 1 + (sp.c.width == UT_PF_STAR) + (sp.c.prec == UT_PF_STAR);
		lit = s;
	}
	pf->tail_off = (uint16_t)(lit - pf->text);
	pf->tail_len = (uint16_t)(s - lit);
	return true;
}

/* ---- expressions -------------------------------------------------------------------------- */

static struct pf_node *expr(struct parser *ps);
static struct pf_node *unary(struct parser *ps);

static int field_index(const struct tfs_event_def *d, const char *name)
{
	for (uint32_t i = 0; i < d->nr_fields; i++) {
		const char *f = d->fields[i].name;
		size_t n = strcspn(f, "[");

		if (strlen(name) == n && !strncmp(f, name, n))
			return (int)i;
	}
	return -1;
}

static struct pf_node *number(struct parser *ps)
{
	struct pf_node *n = node(ps, N_NUM);
	char *end;
	bool u = false;
	int l = 0;

	if (!n)
		return NULL;
	n->num = strtoull(ps->p, &end, 0);
	if (end == ps->p)
		return fail(ps, "a number is malformed"), NULL;
	for (;; end++) {
		if (*end == 'u' || *end == 'U')
			u = true;
		else if (*end == 'l' || *end == 'L')
			l++;
		else
			break;
	}
	if (is_ident(*end, false))
		return fail(ps, "a number is malformed"), NULL;
	ps->p = end;
	/* C's type of an integer constant, enough for 64-bit values */
	n->size = (l || n->num > (u ? 0xffffffffull : 0x7fffffffull)) ? 8 : 4;
	n->is_signed = !u && n->num <= INT64_MAX;
	return n;
}

static bool field_arg(struct parser *ps, struct pf_node *n)
{
	char name[UT_EVENT_TYPE_MAX];

	if (!eat(ps, "(") || !ident(ps, name, sizeof(name), false) || !eat(ps, ")"))
		return fail(ps, "a helper's argument is not a field name");
	n->field = field_index(ps->d, name);
	if (n->field < 0)
		return fail(ps, "a helper names an unknown field");
	if (ps->d->fields[n->field].kind < UT_EVF_KIND_STRING)
		return fail(ps, "a __get_ helper names a field that is not __data_loc");
	return true;
}

/* NULL, 0 or ((void *)0): a null pointer constant. */
static bool null_const(const struct pf_node *n)
{
	while (n && n->kind == N_CAST)
		n = n->a;
	return n && n->kind == N_NUM && n->num == 0;
}

/* `, {value, "name"}, ...)` of __print_symbolic/__print_flags: the entries in order. */
static bool table(struct parser *ps, struct pf_node *n)
{
	struct pf_node **tail = &n->next;
	bool ended = false;

	while (eat(ps, ",")) {
		struct pf_node *e;
		char buf[UT_EVENT_FMT_MAX];
		size_t len;

		if (!eat(ps, "{") || !(e = node(ps, N_ENT)) || !(e->a = expr(ps)) || !eat(ps, ","))
			return fail(ps, "a table entry is not {value, \"name\"}");
		/* {x, NULL} ends the kernel's table: what follows is never looked at */
		skip_ws(ps);
		if (*ps->p != '"') {
			if (!null_const(expr(ps)) || !eat(ps, "}"))
				return fail(ps, "a table entry is not {value, \"name\"}");
			ended = true;
			continue;
		}
		if (!string_lit(ps, buf, sizeof(buf), &len) || !eat(ps, "}"))
			return fail(ps, "a table entry is not {value, \"name\"}");
		if (ps->pf->npool + len + 1 > sizeof(ps->pf->pool))
			return fail(ps, "the strings are too long");
		e->str = memcpy(ps->pf->pool + ps->pf->npool, buf, len + 1);
		e->slen = len;
		ps->pf->npool += len + 1;
		if (ended)
			continue;
		*tail = e;
		tail = &e->next;
	}
	return eat(ps, ")") || fail(ps, "a table is not closed");
}

static struct pf_node *str_node(struct parser *ps)
{
	struct pf_node *n = node(ps, N_STR);
	char buf[UT_EVENT_FMT_MAX];
	size_t len;

	if (!n || !string_lit(ps, buf, sizeof(buf), &len))
		return NULL;
	if (ps->pf->npool + len + 1 > sizeof(ps->pf->pool))
		return fail(ps, "the strings are too long"), NULL;
	n->str = memcpy(ps->pf->pool + ps->pf->npool, buf, len + 1);
	n->slen = len;
	ps->pf->npool += len + 1;
	return n;
}

/* Arguments of a helper taking k expressions, into a, b, c. */
static bool helper_args(struct parser *ps, struct pf_node *n, int k)
{
	struct pf_node **slot[3] = {&n->a, &n->b, &n->c};

	if (!eat(ps, "("))
		return fail(ps, "a helper without arguments");
	for (int i = 0; i < k; i++)
		if ((i && !eat(ps, ",")) || !(*slot[i] = expr(ps)))
			return fail(ps, "a helper has too few arguments");
	return eat(ps, ")") || fail(ps, "a helper has too many arguments");
}

static struct pf_node *helper(struct parser *ps, const char *name)
{
	static const struct {
		const char *name;
		uint8_t kind, nargs;
	} helpers[] = {
	    {"__get_str", N_GET_STR, 0},
	    {"__get_dynamic_array", N_GET_DYN, 0},
	    {"__get_dynamic_array_len", N_DYN_LEN, 0},
	    {"__print_hex", N_HEX, 2},
	    {"__print_hex_str", N_HEX_STR, 2},
	    {"__print_array", N_ARRAY, 3},
	};
	struct pf_node *n;

	if (!strcmp(name, "__print_symbolic") || !strcmp(name, "__print_flags")) {
		bool flags = name[8] == 'f';

		n = node(ps, flags ? N_FLAGS : N_SYMBOLIC);
		if (!n || !eat(ps, "(") || !(n->a = expr(ps)))
			return fail(ps, "a table helper without its value"), NULL;
		if (flags && (!eat(ps, ",") || !(n->b = str_node(ps))))
			return fail(ps, "__print_flags without its delimiter"), NULL;
		return table(ps, n) ? n : NULL;
	}
	for (size_t i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++) {
		if (strcmp(name, helpers[i].name))
			continue;
		n = node(ps, helpers[i].kind);
		if (!n)
			return NULL;
		if (!helpers[i].nargs)
			return field_arg(ps, n) ? n : NULL;
		return helper_args(ps, n, helpers[i].nargs) ? n : NULL;
	}
	return fail(ps, "an unknown identifier or helper"), NULL;
}

/* C type words a cast may use: their size and signedness (0: a modifier). */
static const struct {
	const char *name;
	uint8_t size, is_signed;
} type_words[] = {
    {"char", 1, 1},	 {"short", 2, 1},    {"int", 4, 1},	{"long", 8, 1},
    {"bool", 1, 0},	 {"_Bool", 1, 0},    {"u8", 1, 0},	{"u16", 2, 0},
    {"u32", 4, 0},	 {"u64", 8, 0},	     {"s8", 1, 1},	{"s16", 2, 1},
    {"s32", 4, 1},	 {"s64", 8, 1},	     {"uint8_t", 1, 0}, {"uint16_t", 2, 0},
    {"uint32_t", 4, 0},	 {"uint64_t", 8, 0}, {"int8_t", 1, 1},	{"int16_t", 2, 1},
    {"int32_t", 4, 1},	 {"int64_t", 8, 1},  {"size_t", 8, 0},	{"ssize_t", 8, 1},
    {"uintptr_t", 8, 0}, {"intptr_t", 8, 1}, {"pid_t", 4, 1},	{"void", 0, 0},
    {"unsigned", 0, 0},	 {"signed", 0, 0},   {"const", 0, 0},	{"volatile", 0, 0},
};

static int type_word(const char *w)
{
	for (size_t i = 0; i < sizeof(type_words) / sizeof(type_words[0]); i++)
		if (!strcmp(type_words[i].name, w))
			return (int)i;
	return -1;
}

/* After "(" when a type word follows: the cast's type, then its operand. */
static struct pf_node *cast(struct parser *ps)
{
	struct pf_node *n = node(ps, N_CAST);
	char w[UT_EVENT_TYPE_MAX];
	int size = 0, longs = 0, sign = -1, ptr = 0, words = 0;
	bool is_void = false;

	if (!n)
		return NULL;
	while (ident(ps, w, sizeof(w), false)) {
		int t = type_word(w);

		if (t < 0)
			return fail(ps, "a cast to an unknown type"), NULL;
		words++;
		if (!strcmp(w, "unsigned"))
			sign = 0;
		else if (!strcmp(w, "signed"))
			sign = 1;
		else if (!strcmp(w, "long"))
			longs++;
		else if (!strcmp(w, "void"))
			is_void = true;
		else if (type_words[t].size) {
			size = type_words[t].size;
			if (sign < 0 || strcmp(w, "char"))
				sign = sign < 0 ? type_words[t].is_signed : sign;
		}
	}
	while (eat(ps, "*"))
		ptr++;
	if (!words || !eat(ps, ")"))
		return fail(ps, "a cast is malformed"), NULL;
	if (ptr) {
		n->size = 8, n->is_signed = 0;
	} else if (is_void) {
		return fail(ps, "a cast to void"), NULL;
	} else {
		n->size = longs ? 8 : size ? size : 4;
		n->is_signed = sign < 0 ? 1 : sign;
	}
	n->a = unary(ps);
	return n->a ? n : NULL;
}

static struct pf_node *char_lit(struct parser *ps)
{
	struct pf_node *n = node(ps, N_NUM);
	int c;

	if (!n)
		return NULL;
	ps->p++;
	c = unescape(&ps->p);
	if (c < 0 || *ps->p != '\'')
		return fail(ps, "a character constant is malformed"), NULL;
	ps->p++;
	n->num = (uint64_t)(int64_t)(signed char)c;
	n->size = 4;
	n->is_signed = 1;
	return n;
}

static struct pf_node *primary(struct parser *ps)
{
	char w[UT_EVENT_TYPE_MAX];
	struct pf_node *n;

	skip_ws(ps);
	if (*ps->p >= '0' && *ps->p <= '9')
		return number(ps);
	if (*ps->p == '\'')
		return char_lit(ps);
	if (*ps->p == '"')
		return str_node(ps);
	if (eat(ps, "(")) {
		if (ident(ps, w, sizeof(w), true) && type_word(w) >= 0)
			return cast(ps);
		n = expr(ps);
		if (n && !eat(ps, ")"))
			return fail(ps, "a parenthesis is not closed"), NULL;
		return n;
	}
	if (!ident(ps, w, sizeof(w), false))
		return fail(ps, "an expression is expected"), NULL;
	if (!strcmp(w, "REC")) {
		if (!eat(ps, "->") || !ident(ps, w, sizeof(w), false))
			return fail(ps, "REC without ->field"), NULL;
		n = node(ps, N_FIELD);
		if (n && (n->field = field_index(ps->d, w)) < 0)
			return fail(ps, "REC-> names an unknown field"), NULL;
		return n;
	}
	if (!strcmp(w, "NULL") || !strcmp(w, "false") || !strcmp(w, "true")) {
		n = node(ps, N_NUM);
		if (n) {
			n->num = w[0] == 't';
			n->size = w[0] == 'N' ? 8 : 4;
			n->is_signed = w[0] != 'N';
		}
		return n;
	}
	return helper(ps, w);
}

static struct pf_node *unary(struct parser *ps)
{
	struct pf_node *n;
	char op;

	if (++ps->depth > MAX_DEPTH)
		return fail(ps, "the expressions nest too deep"), NULL;
	skip_ws(ps);
	op = *ps->p;
	/* "--" and "++" are C's other operators, which a format has no use for */
	if ((op == '-' || op == '+' || op == '~' || op == '!') &&
	    !((op == '-' || op == '+') && ps->p[1] == op)) {
		ps->p++;
		n = node(ps, N_UNARY);
		if (n) {
			n->op = (uint8_t)op;
			n->a = unary(ps);
			if (!n->a)
				n = NULL;
		}
	} else {
		n = primary(ps);
		/* REC->array[i]: an element */
		while (n && eat(ps, "[")) {
			struct pf_node *ix = node(ps, N_INDEX);

			if (!ix || !(ix->b = expr(ps)) || !eat(ps, "]"))
				return fail(ps, "a subscript is malformed"), NULL;
			ix->a = n;
			n = ix;
		}
	}
	ps->depth--;
	return n;
}

/* Binary operators by C precedence (higher binds tighter). */
static const struct {
	const char *tok;
	uint8_t op, prec;
} binops[] = {
    /* two-character tokens first, so that "<<" is not read as "<" */
    {"||", OP_OR, 1}, {"&&", OP_AND, 2}, {"==", OP_EQ, 6},  {"!=", OP_NE, 6}, {"<=", OP_LE, 7},
    {">=", OP_GE, 7}, {"<<", OP_SHL, 8}, {">>", OP_SHR, 8}, {"|", '|', 3},    {"^", '^', 4},
    {"&", '&', 5},    {"<", '<', 7},	 {">", '>', 7},	    {"+", '+', 9},    {"-", '-', 9},
    {"*", '*', 10},   {"/", '/', 10},	 {"%", '%', 10},
};

static int peek_binop(struct parser *ps, size_t *len)
{
	skip_ws(ps);
	for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++) {
		size_t n = strlen(binops[i].tok);

		if (strncmp(ps->p, binops[i].tok, n))
			continue;
		/* "->" is not a minus; "||" and "&&" were matched before "|" and "&" */
		if (binops[i].op == '-' && ps->p[1] == '>')
			return -1;
		*len = n;
		return (int)i;
	}
	return -1;
}

static struct pf_node *binary(struct parser *ps, int min_prec)
{
	struct pf_node *l = unary(ps);
	size_t len;
	int i;

	while (l && (i = peek_binop(ps, &len)) >= 0 && binops[i].prec >= min_prec) {
		struct pf_node *n = node(ps, N_BINARY);

		ps->p += len;
		if (!n)
			return NULL;
		n->op = binops[i].op;
		n->a = l;
		n->b = binary(ps, binops[i].prec + 1);
		if (!n->b)
			return NULL;
		l = n;
	}
	return l;
}

static struct pf_node *expr(struct parser *ps)
{
	struct pf_node *c = binary(ps, 1), *n;

	if (!c || !eat(ps, "?"))
		return c;
	if (++ps->depth > MAX_DEPTH)
		return fail(ps, "the expressions nest too deep"), NULL;
	n = node(ps, N_COND);
	if (!n)
		return NULL;
	n->a = c;
	n->b = expr(ps);
	if (!n->b || !eat(ps, ":"))
		return fail(ps, "?: without its :"), NULL;
	n->c = expr(ps);
	ps->depth--;
	return n->c ? n : NULL;
}

/* ---- the whole format --------------------------------------------------------------------- */

/* One parse with room for cap nodes. */
static struct tfs_pfmt *parse_with(const struct tfs_event_def *d, unsigned int cap,
				   const char **why)
{
	struct tfs_pfmt *pf = calloc(1, sizeof(*pf) + cap * sizeof(struct pf_node));
	struct parser ps = {.pf = pf, .d = d, .p = d->print_fmt};
	unsigned int want;
	size_t tlen;

	if (!pf) {
		*why = "out of memory";
		return NULL;
	}
	pf->cap = cap;
	if (string_lit(&ps, pf->text, sizeof(pf->text), &tlen) && split_format(&ps, &want)) {
		while (!ps.why && eat(&ps, ",")) {
			struct pf_node *a = expr(&ps);

			if (!a)
				break;
			if (pf->nargs == PF_MAX_ARGS) {
				fail(&ps, "too many arguments");
				break;
			}
			pf->args[pf->nargs++] = a;
		}
		skip_ws(&ps);
		if (!ps.why && *ps.p)
			fail(&ps, "the arguments do not parse");
		if (!ps.why && pf->nargs != want)
			fail(&ps, "the arguments do not match the conversions");
	}
	if (ps.why) {
		*why = ps.why;
		free(pf);
		return NULL;
	}
	return pf;
}

/*
 * Parsed formats are kept for the mount's life, and programs may announce up to
 * UT_EVT_MAX_DEFS definitions: what they may hold together is bounded.
 */
#define PF_BUDGET (64u << 20)
static size_t pf_bytes;

struct tfs_pfmt *tfs_pfmt_parse(const struct tfs_event_def *d, const char **why)
{
	size_t len = strnlen(d->print_fmt, UT_EVENT_FMT_MAX), size;
	struct tfs_pfmt *pf;
	unsigned int n;

	/*
	 * A node takes at least one character of the text, so len + 8 nodes are always
	 * room enough; the parse is then done again with room for exactly the nodes it
	 * made (it makes the same ones), so that a definition keeps only what it uses.
	 */
	pf = parse_with(d, (unsigned int)len + 8, why);
	if (!pf)
		return NULL;
	n = pf->nnodes;
	free(pf);
	size = sizeof(*pf) + n * sizeof(struct pf_node);
	if (__atomic_add_fetch(&pf_bytes, size, __ATOMIC_RELAXED) > PF_BUDGET) {
		__atomic_sub_fetch(&pf_bytes, size, __ATOMIC_RELAXED);
		*why = "the formats of all definitions take too much memory";
		return NULL;
	}
	pf = parse_with(d, n, why);
	if (!pf)
		__atomic_sub_fetch(&pf_bytes, size, __ATOMIC_RELAXED);
	return pf;
}

void tfs_pfmt_free(struct tfs_pfmt *pf)
{
	if (!pf)
		return;
	__atomic_sub_fetch(&pf_bytes, sizeof(*pf) + pf->cap * sizeof(struct pf_node),
			   __ATOMIC_RELAXED);
	free(pf);
}

unsigned int tfs_pfmt_sym_fields(const struct tfs_pfmt *pf, const struct tfs_event_def *d,
				 uint16_t offs[PF_SYM_FIELDS_MAX])
{
	unsigned int ai = 0, n = 0;

	for (unsigned int i = 0; i < pf->nspecs && ai < pf->nargs; i++) {
		const struct pf_spec *sp = &pf->specs[i];
		const struct pf_node *a;

		if (sp->c.conv == '%')
			continue;
		/* a '*' width or precision takes an argument of its own */
		ai += (sp->c.width == UT_PF_STAR) + (sp->c.prec == UT_PF_STAR);
		if (ai >= pf->nargs)
			break;
		a = pf->args[ai++];
		if (sp->c.conv != 'p' || !sp->c.ext || !strchr("SsFf", sp->c.ext))
			continue;
		while (a->kind == N_CAST)
			a = a->a;
		if (a->kind == N_FIELD && a->field >= 0 && (uint32_t)a->field < d->nr_fields &&
		    d->fields[a->field].size == 8 && n < PF_SYM_FIELDS_MAX)
			offs[n++] = d->fields[a->field].offset;
	}
	return n;
}

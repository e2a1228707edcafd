// SPDX-License-Identifier: MIT
/*
 * event_filter.c - the kernel's event filter language, checked and compiled
 * (event_filter.h).
 *
 * A filter is predicates (FIELD OP VALUE) joined by && and ||, with ! and
 * parentheses; && binds tighter than ||.  The kernel's answers to a bad filter are
 * part of the interface (its selftests and its users read them), so the text is
 * read in the same three steps as the kernel reads it, and each failure gets the
 * kernel's errno, error and position (tests/oracle/kernel_filter.out holds the
 * kernel's answers to sixty filters; tests/unit/test_event_filter.c replays them):
 *
 *   1. a first look at the whole text: unbalanced quotes (ESRCH) and parentheses
 *      (EPERM for a ')' too many, ENOENT for a '(' too many), and whether there is
 *      any predicate at all (EINVAL, no parse error of its own);
 *   2. the tokens in order: '(' and '!' (not the '!' of != or !~) before a
 *      predicate, then one of ')', &&, || or the end after it; anything else is
 *      "Too many terms" (EPERM); a predicate that does not start with a field name
 *      is EPERM without a parse error; a trailing && or || is accepted;
 *   3. each predicate: the field (event fields, then the pseudo-fields CPU and
 *      COMM), the operator (~ != == <= < >= > &), the value: a quoted string for
 *      string fields (==, != and ~ only), a number otherwise (base 0, of the
 *      field's signedness), EINVAL on any error.
 *
 * The tokens then make a tree, and the tree a flat program (event_filter.h):
 * each predicate once, in the order written, with a branch on its result, so
 * that && and || stop as soon as the answer is known.  Matching strings follows
 * the kernel too: ~ takes a glob, reduced to a prefix, suffix or infix match
 * when it is one; the suffix match of a fixed array compares the array's end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_filter.h"

static const char *const err_texts[] = {
	[TFS_FLT_OK] = "No error",
	[TFS_FLT_INVALID_OP] = "Invalid operator",
	[TFS_FLT_TOO_MANY_OPEN] = "Too many '('",
	[TFS_FLT_TOO_MANY_CLOSE] = "Too few '('",
	[TFS_FLT_MISSING_QUOTE] = "Missing matching quote",
	[TFS_FLT_OPERAND_TOO_LONG] = "Operand too long",
	[TFS_FLT_EXPECT_STRING] = "Expecting string field",
	[TFS_FLT_EXPECT_DIGIT] = "Expecting numeric field",
	[TFS_FLT_ILLEGAL_FIELD_OP] = "Illegal operation for field type",
	[TFS_FLT_FIELD_NOT_FOUND] = "Field not found",
	[TFS_FLT_ILLEGAL_INTVAL] = "Illegal integer value",
	[TFS_FLT_BAD_SUBSYS_FILTER] = "Couldn't find or set field in one of a subsystem's events",
	[TFS_FLT_TOO_MANY_PREDS] = "Too many terms in predicate expression",
	[TFS_FLT_INVALID_FILTER] = "Meaningless filter expression",
	[TFS_FLT_INVALID_VALUE] = "Invalid value (did you forget quotes)?",
	[TFS_FLT_ERRNO] = "Error",
	[TFS_FLT_NO_FILTER] = "No filter found",
};

const char *tfs_flt_err_text(int code)
{
	if (code < 0 || (size_t)code >= sizeof(err_texts) / sizeof(err_texts[0]) ||
	    !err_texts[code])
		return "Error";
	return err_texts[code];
}

static int fail(struct tfs_flt_error *e, int err, int code, unsigned int pos)
{
	e->err = err;
	e->code = code;
	e->pos = pos;
	return err;
}

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* ---- 1. the first look ------------------------------------------------------------------ */

/* Step 1: 0 and the number of predicates (counted as the kernel counts them). */
static int first_look(const char *s, unsigned int *preds, struct tfs_flt_error *e)
{
	unsigned int open = 1, nr = 0, last_quote = 0, i;
	bool in_pred = false;
	char quote = 0;

	for (i = 0; s[i]; i++) {
		char c = s[i];

		if (is_space(c))
			continue;
		if (quote) {
			if (c == quote)
				quote = 0;
			continue;
		}
		if (c == '\'' || c == '"') {
			quote = c;
			last_quote = i;
		} else if ((c == '&' || c == '|') && s[i + 1] == c) {
			in_pred = false;
			continue;
		} else if (c == '(') {
			in_pred = false;
			open++;
			continue;
		} else if (c == ')') {
			in_pred = false;
			if (open == 1)
				return fail(e, -EPERM, TFS_FLT_TOO_MANY_CLOSE, i);
			open--;
			continue;
		}
		if (!in_pred) {
			nr++;
			in_pred = true;
		}
	}
	if (quote)
		return fail(e, -ESRCH, TFS_FLT_MISSING_QUOTE, last_quote);
	if (open != 1) {
		/* the '(' left open: the last one not closed after it (index 0 never named) */
		unsigned int level = open;

		while (--i > 0) {
			char c = s[i];

			if (quote) {
				if (c == quote)
					quote = 0;
			} else if (c == '(') {
				if (level == open)
					return fail(e, -ENOENT, TFS_FLT_TOO_MANY_OPEN, i);
				level--;
			} else if (c == ')') {
				level++;
			} else if (c == '\'' || c == '"') {
				quote = c;
			}
		}
		return fail(e, -ENOENT, TFS_FLT_TOO_MANY_OPEN, 0);
	}
	if (!nr)
		return fail(e, -EINVAL, TFS_FLT_OK, 0);
	*preds = nr;
	return 0;
}

/* ---- 3. one predicate ------------------------------------------------------------------ */

static const struct tfs_flt_field pseudo[] = {
	{"CPU", 0, 4, true, UT_EVF_CPU},     {"cpu", 0, 4, true, UT_EVF_CPU},
	{"COMM", 0, 16, false, UT_EVF_COMM}, {"comm", 0, 16, false, UT_EVF_COMM},
};

static const struct tfs_flt_field *find_field(const struct tfs_flt_field *f, unsigned int nr,
					      const char *name, size_t len)
{
	for (unsigned int i = 0; i < nr; i++)
		if (strlen(f[i].name) == len && !memcmp(f[i].name, name, len))
			return &f[i];
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if (strlen(pseudo[i].name) == len && !memcmp(pseudo[i].name, name, len))
			return &pseudo[i];
	return NULL;
}

static bool is_string(const struct tfs_flt_field *f)
{
	return f->kind == UT_EVF_STR_FIXED || f->kind == UT_EVF_STR_DYN || f->kind == UT_EVF_COMM;
}

/* Longer operators before their prefixes. */
static const struct {
	const char *text;
	uint8_t op;
} ops[] = {
	{"~", UT_EVF_GLOB}, {"!=", UT_EVF_NE}, {"==", UT_EVF_EQ}, {"<=", UT_EVF_LE},
	{"<", UT_EVF_LT},   {">=", UT_EVF_GE}, {">", UT_EVF_GT},	{"&", UT_EVF_BAND},
};

/*
 * A number as the kernel's kstrtoull/kstrtoll with base 0 reads it ("0x" hex,
 * a leading 0 octal), in range for 64 bits; '-' only when is_signed.
 */
static bool parse_number(const char *t, bool is_signed, uint64_t *val)
{
	bool neg = false;
	unsigned int base = 10;
	uint64_t v = 0;

	if (is_signed && *t == '-') {
		neg = true;
		t++;
	}
	if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X') && t[2]) {
		base = 16;
		t += 2;
	} else if (t[0] == '0' && t[1]) {
		base = 8;
		t++;
	}
	if (!*t)
		return false;
	for (; *t; t++) {
		unsigned int d = *t >= '0' && *t <= '9'	  ? (unsigned int)(*t - '0')
				 : *t >= 'a' && *t <= 'f' ? (unsigned int)(*t - 'a' + 10)
				 : *t >= 'A' && *t <= 'F' ? (unsigned int)(*t - 'A' + 10)
							  : 99;

		if (d >= base || v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	if (is_signed && (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX))
		return false;
	*val = neg ? (uint64_t)0 - v : v;
	return true;
}

/* How a ~ pattern matches: the kernel's reductions of a glob (p is changed). */
static uint8_t glob_kind(char *p, uint16_t *len, uint8_t *neg)
{
	size_t n = strlen(p);
	uint8_t kind = UT_EVF_FULL;

	*neg = 0;
	if (p[0] == '!') {
		*neg = 1;
		memmove(p, p + 1, n--);
	}
	if (p[0] >= '0' && p[0] <= '9')
		goto out; /* an index in the kernel's other use of this: a full match */
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '*') {
			if (i == 0) {
				kind = UT_EVF_END;
			} else if (i == n - 1) {
				kind = kind == UT_EVF_END ? UT_EVF_MIDDLE : UT_EVF_FRONT;
				p[i] = 0;
				n = i;
				break;
			} else {
				kind = UT_EVF_PATTERN;
				goto out;
			}
		} else if (p[i] == '[' || p[i] == '?' || p[i] == '\\') {
			kind = UT_EVF_PATTERN;
			goto out;
		}
	}
	if (p[0] == '*') {
		memmove(p, p + 1, n--);
	}
out:
	*len = (uint16_t)strlen(p);
	return kind;
}

/*
 * Step 3: the predicate at s (pos: where the kernel counts it from, one past its
 * first character).  Returns its length, or -errno with e filled.
 */
static int parse_pred(const char *s, unsigned int pos, const struct tfs_flt_field *fields,
		      unsigned int nr, struct ut_evf_pred *p, struct tfs_flt_error *e)
{
	const struct tfs_flt_field *f;
	unsigned int i = 0, start, len;
	size_t k;

	while (is_space(s[i]))
		i++;
	start = i;
	while (is_alnum(s[i]) || s[i] == '_')
		i++;
	if (i == start)
		return fail(e, -EPERM, TFS_FLT_OK, 0); /* not a predicate: no error of its own */
	f = find_field(fields, nr, s + start, i - start);
	if (!f)
		return fail(e, -EINVAL, TFS_FLT_FIELD_NOT_FOUND, pos + i);
	while (is_space(s[i]))
		i++;
	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (!strncmp(s + i, ops[k].text, strlen(ops[k].text)))
			break;
	if (k == sizeof(ops) / sizeof(ops[0]))
		return fail(e, -EINVAL, TFS_FLT_INVALID_OP, pos + i);
	i += (unsigned int)strlen(ops[k].text);
	while (is_space(s[i]))
		i++;
	start = i;
	memset(p, 0, sizeof(*p));
	p->offset = f->offset;
	p->size = f->size;
	p->kind = f->kind;
	p->is_signed = f->is_signed;
	p->op = ops[k].op;
	if (s[i] == '\'' || s[i] == '"') {
		char q = s[i];

		if (p->op != UT_EVF_EQ && p->op != UT_EVF_NE && p->op != UT_EVF_GLOB)
			return fail(e, -EINVAL, TFS_FLT_ILLEGAL_FIELD_OP, pos + i);
		if (!is_string(f))
			return fail(e, -EINVAL, TFS_FLT_EXPECT_DIGIT, pos + i);
		for (i++; s[i] && s[i] != q; i++)
			;
		if (!s[i])
			return fail(e, -EINVAL, TFS_FLT_MISSING_QUOTE, pos + i);
		len = i - start - 1;
		if (len >= UT_EVF_STR_MAX)
			return fail(e, -EINVAL, TFS_FLT_OPERAND_TOO_LONG, pos + i);
		memcpy(p->str, s + start + 1, len);
		p->str[len] = 0;
		p->len = (uint16_t)len;
		p->neg = p->op == UT_EVF_NE;
		p->match = UT_EVF_FULL;
		if (p->op == UT_EVF_GLOB)
			p->match = glob_kind(p->str, &p->len, &p->neg);
		return (int)i + 1; /* past the closing quote */
	}
	if ((s[i] >= '0' && s[i] <= '9') || s[i] == '-') {
		char num[TFS_FLT_NUM_MAX];

		if (is_string(f))
			return fail(e, -EINVAL, TFS_FLT_EXPECT_STRING, pos + i);
		if (p->op == UT_EVF_GLOB)
			return fail(e, -EINVAL, TFS_FLT_ILLEGAL_FIELD_OP, pos + i);
		if (s[i] == '-')
			i++;
		while (is_alnum(s[i]))
			i++;
		len = i - start;
		if (len >= sizeof(num))
			return fail(e, -EINVAL, TFS_FLT_OPERAND_TOO_LONG, pos + i);
		memcpy(num, s + start, len);
		num[len] = 0;
		if (!parse_number(num, f->is_signed, &p->val))
			return fail(e, -EINVAL, TFS_FLT_ILLEGAL_INTVAL, pos + start);
		p->neg = p->op == UT_EVF_NE;
		return (int)i;
	}
	return fail(e, -EINVAL, TFS_FLT_INVALID_VALUE, pos + i);
}

/* ---- 2. the tokens, a tree, the program ----------------------------------------------- */

enum { T_PRED, T_NOT, T_OPEN, T_CLOSE, T_AND, T_OR };

struct tok {
	uint8_t type;
	unsigned int pred; /* T_PRED: its index */
};

struct node {
	uint8_t type; /* T_PRED, T_NOT, T_AND, T_OR */
	unsigned int pred;
	struct node *a, *b;
};

struct tree {
	const struct tok *t;
	unsigned int nr, at;
	struct node *nodes;
	unsigned int used;
};

static struct node *node_new(struct tree *tr, uint8_t type, struct node *a, struct node *b)
{
	struct node *n = &tr->nodes[tr->used++];

	*n = (struct node){.type = type, .a = a, .b = b};
	return n;
}

static struct node *parse_or(struct tree *tr);

/* ! and ( ) around a predicate (the tokens were checked while read: well formed) */
static struct node *parse_unary(struct tree *tr)
{
	const struct tok *t = &tr->t[tr->at++];
	struct node *n;

	if (t->type == T_NOT)
		return node_new(tr, T_NOT, parse_unary(tr), NULL);
	if (t->type == T_OPEN) {
		n = parse_or(tr);
		tr->at++; /* ) */
		return n;
	}
	n = node_new(tr, T_PRED, NULL, NULL);
	n->pred = t->pred;
	return n;
}

/* A trailing && or || (nothing after it) is accepted, as the kernel accepts it. */
static bool operand_follows(const struct tree *tr)
{
	return tr->at < tr->nr && tr->t[tr->at].type != T_CLOSE;
}

/* level 0: || of level 1; level 1: && of unary ones (&& binds tighter) */
static struct node *parse_level(struct tree *tr, int level)
{
	uint8_t op = level ? T_AND : T_OR;
	struct node *n = level ? parse_unary(tr) : parse_level(tr, 1);

	while (tr->at < tr->nr && tr->t[tr->at].type == op) {
		tr->at++;
		if (operand_follows(tr))
			n = node_new(tr, op, n, level ? parse_unary(tr) : parse_level(tr, 1));
	}
	return n;
}

static struct node *parse_or(struct tree *tr)
{
	return parse_level(tr, 0);
}

/*
 * Branch labels: a predicate's target is a label, resolved once placed.  Label 0
 * is TRUE, 1 FALSE (after the last predicate), the others the starts of right
 * operands.
 */
struct gen {
	struct ut_evf_pred *preds;
	unsigned int nr;	/* predicates emitted */
	unsigned int *label_at; /* predicate index of each label */
	unsigned int *target;	/* per predicate: its label, until resolved */
	unsigned int labels;
};

/* Emit n: control reaches label t when true, f when false; next_true: what falls through. */
static void emit(struct gen *g, const struct node *n, unsigned int t, unsigned int f,
		 bool next_true)
{
	unsigned int l;

	switch (n->type) {
	case T_PRED: /* predicates come in the order written: n->pred == g->nr */
		g->preds[g->nr].when = next_true ? 0 : 1;
		g->target[g->nr++] = next_true ? f : t;
		break;
	case T_NOT:
		emit(g, n->a, f, t, !next_true);
		break;
	case T_AND:
		l = g->labels++;
		emit(g, n->a, l, f, true);
		g->label_at[l] = g->nr;
		emit(g, n->b, t, f, next_true);
		break;
	default: /* T_OR */
		l = g->labels++;
		emit(g, n->a, t, l, false);
		g->label_at[l] = g->nr;
		emit(g, n->b, t, f, next_true);
	}
}

/* The program of the tokens over preds[nr]: NULL when memory is short. */
static struct ut_evf_prog *build(struct ut_evf_pred *preds, unsigned int nr, const struct tok *toks,
				 unsigned int nr_toks)
{
	struct tree tr = {.t = toks, .nr = nr_toks};
	struct gen g = {.preds = preds, .labels = 2};
	struct ut_evf_prog *p = calloc(1, ut_evf_size(nr));

	tr.nodes = calloc(nr_toks + 1, sizeof(*tr.nodes));
	g.label_at = calloc(nr_toks + 2, sizeof(*g.label_at));
	g.target = calloc(nr + 1, sizeof(*g.target));
	if (p && tr.nodes && g.label_at && g.target) {
		emit(&g, parse_or(&tr), 0, 1, true);
		g.label_at[0] = nr;	/* TRUE */
		g.label_at[1] = nr + 1; /* FALSE */
		p->magic = UT_EVF_MAGIC;
		p->nr = nr;
		for (unsigned int i = 0; i < nr; i++) {
			preds[i].target = (uint16_t)g.label_at[g.target[i]];
			if (preds[i].kind == UT_EVF_COMM)
				p->flags |= UT_EVF_USES_COMM;
			p->p[i] = preds[i];
		}
	} else {
		free(p);
		p = NULL;
	}
	free(tr.nodes);
	free(g.label_at);
	free(g.target);
	return p;
}

int tfs_flt_compile(const char *s, const struct tfs_flt_field *fields, unsigned int nr,
		    struct ut_evf_prog **out, struct tfs_flt_error *e)
{
	unsigned int nr_preds, n = 0, nr_toks = 0, depth = 0, i = 0;
	struct ut_evf_pred *preds;
	struct tok *toks;
	int err;

	*out = NULL;
	*e = (struct tfs_flt_error){0};
	err = first_look(s, &nr_preds, e);
	if (err)
		return err;
	toks = calloc(strlen(s) + 1, sizeof(*toks));
	preds = calloc(nr_preds + 2, sizeof(*preds)); /* the kernel's bound: two more */
	if (!preds || !toks) {
		free(toks);
		free(preds);
		return fail(e, -ENOMEM, TFS_FLT_OK, 0);
	}
	/* step 2: '(' and '!' before a predicate; ')', &&, || or the end after it */
	while (s[i]) {
		unsigned int at = i++;
		int len;

		if (is_space(s[at]))
			continue;
		if (s[at] == '(') {
			toks[nr_toks++].type = T_OPEN;
			depth++;
			continue;
		}
		if (s[at] == '!' && s[i] != '=' && s[i] != '~') {
			toks[nr_toks++].type = T_NOT;
			continue;
		}
		if (n >= nr_preds + 2 || n >= UT_EVF_MAX_PREDS) {
			err = fail(e, n ? -EPERM : -ENOMEM, TFS_FLT_TOO_MANY_PREDS, at);
			goto out;
		}
		len = parse_pred(s + at, i, fields, nr, &preds[n], e);
		if (len < 0) {
			err = len;
			goto out;
		}
		toks[nr_toks].type = T_PRED;
		toks[nr_toks++].pred = n++;
		for (i = at + (unsigned int)len;;) {
			char c = s[i++];

			if (is_space(c))
				continue;
			if ((c == '&' || c == '|') && s[i] == c) {
				i++;
				toks[nr_toks++].type = c == '&' ? T_AND : T_OR;
				break;
			}
			if (c == '\0') {
				i--; /* the end: at the NUL, as the outer loop ends */
				goto end;
			}
			if (c != ')') {
				err = fail(e, -EPERM, TFS_FLT_TOO_MANY_PREDS, i - 1);
				goto out;
			}
			if (!depth) {
				err = fail(e, -EPERM, TFS_FLT_TOO_MANY_CLOSE, i);
				goto out;
			}
			depth--;
			toks[nr_toks++].type = T_CLOSE;
		}
	}
end:
	if (depth) {
		err = fail(e, -EPERM, TFS_FLT_TOO_MANY_OPEN, i + 1);
		goto out;
	}
	if (!n) {
		err = fail(e, -EINVAL, TFS_FLT_NO_FILTER, i);
		goto out;
	}
	*out = build(preds, n, toks, nr_toks);
	if (!*out)
		err = fail(e, -ENOMEM, TFS_FLT_OK, 0);
out:
	free(toks);
	free(preds);
	return err;
}

int tfs_flt_error_show(char *buf, size_t size, const char *str, const struct tfs_flt_error *e)
{
	size_t len = strlen(str);
	unsigned int pos = e->pos > len ? (unsigned int)len : e->pos;

	if (e->code == TFS_FLT_OK)
		return snprintf(buf, size, "%s\nError: (0)\n", str);
	if (pos) /* the caret under the character at pos (the kernel's width is pos + 1) */
		pos++;
	return snprintf(buf, size, "%s\n%*s\nparse_error: %s\n", str, (int)pos, "^",
			tfs_flt_err_text(e->code));
}

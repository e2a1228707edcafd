// SPDX-License-Identifier: MIT
/*
 * ut_fnstat.c - per-function duration statistics (see ut_fnstat.h for what it
 * promises).
 *
 * Each thread has a stack of open calls; a call's self time is its duration
 * less what its children added to it when they ended.  A call that ends with no
 * open parent (its parent's entry is not in the trace) leaves its duration in the
 * thread's per-depth carry, which the next exit one level up without an entry
 * takes as its children's time.  Functions are rows found by name through an
 * open-addressing hash table.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ut_fnstat.h"
#include "ut_grow.h"

struct fn_row {
	char *name;
	unsigned long long calls, total, self, min, max;
};

struct frame {
	size_t fn; /* index into rows */
	int depth;
	unsigned long long start, child;
};

struct thread {
	int tid;
	struct frame *stack;
	size_t n, cap;
	unsigned long long *carry; /* [depth]: time of ended calls with no open parent */
	size_t ncarry;
};

struct ut_fnstat {
	struct fn_row *rows;
	size_t nrows, caprows;
	size_t *hash; /* row index + 1; 0: empty */
	size_t hsize; /* a power of two, over twice nrows */
	struct thread *threads;
	size_t nthreads, capthreads;
	unsigned long long last_ts;
	bool graph; /* entries or exits seen */
};

static const char *const col_names[UT_FNSTAT_NCOLS] = {"total", "self",	 "avg", "min",
						       "max",	"calls", "name"};

struct ut_fnstat *ut_fnstat_new(void)
{
	return calloc(1, sizeof(struct ut_fnstat));
}

void ut_fnstat_free(struct ut_fnstat *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nrows; i++)
		free(s->rows[i].name);
	for (size_t i = 0; i < s->nthreads; i++) {
		free(s->threads[i].stack);
		free(s->threads[i].carry);
	}
	free(s->rows);
	free(s->hash);
	free(s->threads);
	free(s);
}

static size_t hash_of(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3ull;
	return (size_t)h;
}

static int rehash(struct ut_fnstat *s)
{
	size_t size = s->hsize ? s->hsize * 2 : 64;
	size_t *h = calloc(size, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < s->nrows; i++) {
		size_t k = hash_of(s->rows[i].name) & (size - 1);

		while (h[k])
			k = (k + 1) & (size - 1);
		h[k] = i + 1;
	}
	free(s->hash);
	s->hash = h;
	s->hsize = size;
	return 0;
}

/* The row of FUNC, made on first sight; its index, or -ENOMEM. */
static long row_of(struct ut_fnstat *s, const char *func)
{
	size_t k;
	char *name;

	if (2 * (s->nrows + 1) > s->hsize && rehash(s))
		return -ENOMEM;
	for (k = hash_of(func) & (s->hsize - 1); s->hash[k]; k = (k + 1) & (s->hsize - 1))
		if (!strcmp(s->rows[s->hash[k] - 1].name, func))
			return (long)(s->hash[k] - 1);
	name = strdup(func);
	if (!name || ut_grow(&s->rows, sizeof(*s->rows), s->nrows, &s->caprows)) {
		free(name);
		return -ENOMEM;
	}
	s->rows[s->nrows] = (struct fn_row){.name = name};
	s->hash[k] = ++s->nrows;
	return (long)(s->nrows - 1);
}

static struct thread *thread_of(struct ut_fnstat *s, int tid)
{
	struct thread *t;

	for (size_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	if (ut_grow(&s->threads, sizeof(*t), s->nthreads, &s->capthreads))
		return NULL;
	t = &s->threads[s->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

/* The carry of DEPTH (negative depths have none: NULL), grown as needed. */
static unsigned long long *carry_of(struct thread *t, int depth)
{
	size_t n;
	unsigned long long *c;

	if (depth < 0)
		return NULL;
	if ((size_t)depth < t->ncarry)
		return &t->carry[depth];
	n = (size_t)depth + 16;
	c = realloc(t->carry, n * sizeof(*c));
	if (!c)
		return NULL;
	memset(c + t->ncarry, 0, (n - t->ncarry) * sizeof(*c));
	t->carry = c;
	t->ncarry = n;
	return &t->carry[depth];
}

static void saw(struct ut_fnstat *s, unsigned long long ts)
{
	if (ts > s->last_ts)
		s->last_ts = ts;
}

/* One call of row fn that lasted d, of which child in traced calls inside it. */
static void count(struct ut_fnstat *s, size_t fn, unsigned long long d, unsigned long long child)
{
	struct fn_row *r = &s->rows[fn];

	if (!r->calls || d < r->min)
		r->min = d;
	if (d > r->max)
		r->max = d;
	r->calls++;
	r->total += d;
	r->self += d > child ? d - child : 0;
}

/* A call at DEPTH that lasted d ended: its parent's time, or the carry of its depth. */
static void give_to_parent(struct thread *t, int depth, unsigned long long d)
{
	unsigned long long *c;

	if (t->n && t->stack[t->n - 1].depth < depth) {
		t->stack[t->n - 1].child += d;
		return;
	}
	c = carry_of(t, depth);
	if (c)
		*c += d;
}

/* Pop the top call of t, ended at END. */
static void close_top(struct ut_fnstat *s, struct thread *t, unsigned long long end)
{
	struct frame f = t->stack[--t->n];
	unsigned long long d = end > f.start ? end - f.start : 0;

	count(s, f.fn, d, f.child);
	give_to_parent(t, f.depth, d);
}

int ut_fnstat_entry(struct ut_fnstat *s, int tid, unsigned long long ts, const char *func,
		    int depth)
{
	struct thread *t = thread_of(s, tid);
	long fn = row_of(s, func);
	unsigned long long *c;

	if (!t || fn < 0 || ut_grow(&t->stack, sizeof(*t->stack), t->n, &t->cap))
		return -ENOMEM;
	s->graph = true;
	saw(s, ts);
	/* open calls at this depth or deeper lost their exits: they ended here */
	while (t->n && t->stack[t->n - 1].depth >= depth)
		close_top(s, t, ts);
	c = carry_of(t, depth + 1);
	if (c)
		*c = 0; /* what ended there before belongs to no call of this one */
	t->stack[t->n++] = (struct frame){.fn = (size_t)fn, .depth = depth, .start = ts};
	return 0;
}

int ut_fnstat_exit(struct ut_fnstat *s, int tid, const char *func, int depth,
		   unsigned long long calltime, unsigned long long rettime)
{
	struct thread *t = thread_of(s, tid);
	long fn = row_of(s, func);
	unsigned long long *c, child = 0, d;

	if (!t || fn < 0)
		return -ENOMEM;
	s->graph = true;
	saw(s, rettime);
	/* deeper calls still open lost their exits: they end with this one */
	while (t->n && t->stack[t->n - 1].depth > depth)
		close_top(s, t, rettime);
	if (t->n && t->stack[t->n - 1].depth == depth && t->stack[t->n - 1].fn == (size_t)fn) {
		close_top(s, t, rettime);
		return 0;
	}
	/* no entry: its children are the calls that ended one level deeper */
	c = carry_of(t, depth + 1);
	if (c) {
		child = *c;
		*c = 0;
	}
	d = rettime > calltime ? rettime - calltime : 0;
	count(s, (size_t)fn, d, child);
	give_to_parent(t, depth, d);
	return 0;
}

int ut_fnstat_call(struct ut_fnstat *s, const char *func)
{
	long fn = row_of(s, func);

	if (fn < 0)
		return -ENOMEM;
	s->rows[fn].calls++;
	return 0;
}

int ut_fnstat_column(const char *name)
{
	for (int c = 0; c < UT_FNSTAT_NCOLS; c++)
		if (!strcmp(name, col_names[c]))
			return c;
	return -EINVAL;
}

const char *ut_fnstat_column_name(int col)
{
	return col >= 0 && col < UT_FNSTAT_NCOLS ? col_names[col] : NULL;
}

/* ---- the table ------------------------------------------------------------------------- */

static unsigned long long col_value(const struct fn_row *r, int col)
{
	switch (col) {
	case UT_FNSTAT_TOTAL:
		return r->total;
	case UT_FNSTAT_SELF:
		return r->self;
	case UT_FNSTAT_AVG:
		return r->calls ? r->total / r->calls : 0;
	case UT_FNSTAT_MIN:
		return r->min;
	case UT_FNSTAT_MAX:
		return r->max;
	default:
		return r->calls;
	}
}

/* qsort_r's order: by the column *arg, largest first; ties (and names) by name */
static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct fn_row *x = *(const struct fn_row *const *)a;
	const struct fn_row *y = *(const struct fn_row *const *)b;
	int col = *(const int *)arg;

	if (col != UT_FNSTAT_NAME) {
		unsigned long long vx = col_value(x, col), vy = col_value(y, col);

		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	return strcmp(x->name, y->name);
}

/* "  1.234 ms": ns in the largest unit that keeps a digit before the point. */
static void put_time(FILE *out, unsigned long long ns)
{
	static const char *const unit[] = {"ns", "us", "ms", " s"};
	double v = (double)ns;
	int u = 0;

	while (u < 3 && v >= 1000) {
		v /= 1000;
		u++;
	}
	fprintf(out, "  %9.3f %s", v, unit[u]);
}

int ut_fnstat_write(struct ut_fnstat *s, FILE *out, int col)
{
	struct fn_row **order = calloc(s->nrows + 1, sizeof(*order));

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < s->nthreads; i++)
		while (s->threads[i].n)
			close_top(s, &s->threads[i], s->last_ts);
	for (size_t i = 0; i < s->nrows; i++)
		order[i] = &s->rows[i];
	/* without graph data there are only calls to sort by (or names) */
	if (!s->graph && col != UT_FNSTAT_NAME)
		col = UT_FNSTAT_CALLS;
	if (s->nrows)
		qsort_r(order, s->nrows, sizeof(*order), cmp_row, &col);
	if (s->graph) {
		fputs("   Total time    Self time     Avg time     Min time     Max time"
		      "       Calls  Function\n"
		      "  ===========  ===========  ===========  ===========  ==========="
		      "  ==========  ====================\n",
		      out);
		for (size_t i = 0; i < s->nrows; i++) {
			for (int c = UT_FNSTAT_TOTAL; c < UT_FNSTAT_CALLS; c++)
				put_time(out, col_value(order[i], c));
			fprintf(out, "  %10llu  %s\n", order[i]->calls, order[i]->name);
		}
	} else {
		fputs("       Calls  Function\n"
		      "  ==========  ====================\n",
		      out);
		for (size_t i = 0; i < s->nrows; i++)
			fprintf(out, "  %10llu  %s\n", order[i]->calls, order[i]->name);
	}
	free(order);
	return ferror(out) ? -EIO : 0;
}

// SPDX-License-Identifier: MIT
/*
 * report_export.c - the call trees behind `utrace report --chrome` and
 * `--folded` (see report_export.h for what the builder promises).
 *
 * Every call is a node in one array; nodes are linked to their parent and
 * siblings by index, so that the array may grow.  A thread has a stack of open
 * calls and a list of top-level calls.  Nothing is written until the end: an
 * exit without its entry changes the shape of what came before it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report_export.h"
#include "ut_fnstat.h"
#include "ut_grow.h"

#define NONE (-1)

struct rx_node {
	char *name;
	unsigned long long start, end;
	int depth, tid;
	int parent, first, last, next; /* tree links, indices into rx->nodes */
	bool open;		       /* on its thread's stack: no exit yet */
};

struct rx_thread {
	int tid;
	char *comm;
	int *stack;
	size_t depth, cap;
	int first, last; /* top-level calls */
};

struct rx_instant {
	int tid, cpu;
	unsigned long long ts;
	char *name;
};

/* A folded line before sorting: a stack and its weight. */
struct rx_line {
	char *stack;
	unsigned long long weight;
};

struct rx {
	struct rx_node *nodes;
	size_t nnodes, capnodes;
	struct rx_thread *threads;
	size_t nthreads, capthreads;
	struct rx_instant *instants;
	size_t ninstants, capinstants;
	struct rx_line *calls; /* "parent;func" of function events, weight 1 each */
	size_t ncalls, capcalls;
	unsigned long long last_ts; /* where a call without exit is cut */
	struct ut_fnstat *fs;	    /* the summary's statistics, fed as the tree is */
	int sort;		    /* the summary's column (rx_summary_sort) */
};

struct rx *rx_new(void)
{
	struct rx *rx = calloc(1, sizeof(struct rx));

	if (rx && !(rx->fs = ut_fnstat_new())) {
		free(rx);
		return NULL;
	}
	return rx;
}

void rx_free(struct rx *rx)
{
	size_t i;

	if (!rx)
		return;
	ut_fnstat_free(rx->fs);
	for (i = 0; i < rx->nnodes; i++)
		free(rx->nodes[i].name);
	for (i = 0; i < rx->nthreads; i++) {
		free(rx->threads[i].comm);
		free(rx->threads[i].stack);
	}
	for (i = 0; i < rx->ninstants; i++)
		free(rx->instants[i].name);
	for (i = 0; i < rx->ncalls; i++)
		free(rx->calls[i].stack);
	free(rx->nodes);
	free(rx->threads);
	free(rx->instants);
	free(rx->calls);
	free(rx);
}

static void saw(struct rx *rx, unsigned long long ts)
{
	if (ts > rx->last_ts)
		rx->last_ts = ts;
}

static struct rx_thread *thread(struct rx *rx, int tid)
{
	struct rx_thread *t;
	size_t i;

	for (i = 0; i < rx->nthreads; i++)
		if (rx->threads[i].tid == tid)
			return &rx->threads[i];
	if (ut_grow(&rx->threads, sizeof(*t), rx->nthreads, &rx->capthreads))
		return NULL;
	t = &rx->threads[rx->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->first = t->last = NONE;
	return t;
}

int rx_comm(struct rx *rx, int tid, const char *comm)
{
	struct rx_thread *t = thread(rx, tid);
	char *c = strdup(comm);

	if (!t || !c) {
		free(c);
		return -ENOMEM;
	}
	free(t->comm);
	t->comm = c;
	return 0;
}

static int new_node(struct rx *rx, int tid, const char *func, int depth)
{
	struct rx_node *n;
	char *name = strdup(func);

	if (!name || ut_grow(&rx->nodes, sizeof(*n), rx->nnodes, &rx->capnodes)) {
		free(name);
		return -ENOMEM;
	}
	n = &rx->nodes[rx->nnodes];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->depth = depth;
	n->tid = tid;
	n->parent = n->first = n->last = n->next = NONE;
	return (int)rx->nnodes++;
}

/* The list of children calls are added to: the open call's, or the thread's top level. */
static int *context_first(struct rx *rx, struct rx_thread *t, int **last)
{
	if (t->depth) {
		struct rx_node *top = &rx->nodes[t->stack[t->depth - 1]];

		*last = &top->last;
		return &top->first;
	}
	*last = &t->last;
	return &t->first;
}

static void append(struct rx *rx, struct rx_thread *t, int idx)
{
	int *last, *first = context_first(rx, t, &last);

	rx->nodes[idx].parent = t->depth ? t->stack[t->depth - 1] : NONE;
	if (*last == NONE)
		*first = idx;
	else
		rx->nodes[*last].next = idx;
	*last = idx;
}

int rx_entry(struct rx *rx, int tid, unsigned long long ts, const char *func, int depth)
{
	struct rx_thread *t = thread(rx, tid);
	int idx;

	if (!t || ut_grow(&t->stack, sizeof(int), t->depth, &t->cap))
		return -ENOMEM;
	idx = new_node(rx, tid, func, depth);
	if (idx < 0)
		return idx;
	rx->nodes[idx].start = ts;
	rx->nodes[idx].open = true;
	append(rx, t, idx);
	t->stack[t->depth++] = idx;
	saw(rx, ts);
	return ut_fnstat_entry(rx->fs, tid, ts, func, depth);
}

/*
 * An exit without its entry: the calls that ended just before it at a greater
 * depth, inside its time, were its children.  They are the trailing run of the
 * current context's list; move them under idx.
 */
static void adopt(struct rx *rx, struct rx_thread *t, int idx)
{
	struct rx_node *n = &rx->nodes[idx];
	int *last, *first = context_first(rx, t, &last);
	int c, prev = NONE, run = NONE, before = NONE;

	for (c = *first; c != NONE; prev = c, c = rx->nodes[c].next) {
		struct rx_node *k = &rx->nodes[c];

		if (k->depth > n->depth && !k->open && k->start >= n->start) {
			if (run == NONE) {
				run = c;
				before = prev;
			}
		} else {
			run = NONE;
		}
	}
	if (run == NONE)
		return;
	n->first = run;
	n->last = *last;
	for (c = run; c != NONE; c = rx->nodes[c].next)
		rx->nodes[c].parent = idx;
	if (before == NONE)
		*first = NONE;
	else
		rx->nodes[before].next = NONE;
	*last = before;
}

int rx_exit(struct rx *rx, int tid, const char *func, int depth, unsigned long long calltime,
	    unsigned long long rettime)
{
	struct rx_thread *t = thread(rx, tid);
	int idx;

	if (!t || ut_fnstat_exit(rx->fs, tid, func, depth, calltime, rettime))
		return -ENOMEM;
	saw(rx, rettime);
	/* Deeper calls still open lost their exits: they end with this one. */
	while (t->depth && rx->nodes[t->stack[t->depth - 1]].depth > depth) {
		struct rx_node *lost = &rx->nodes[t->stack[--t->depth]];

		lost->open = false;
		lost->end = rettime;
	}
	if (t->depth) {
		struct rx_node *top = &rx->nodes[t->stack[t->depth - 1]];

		if (top->depth == depth && !strcmp(top->name, func)) {
			top->open = false;
			top->end = rettime > top->start ? rettime : top->start;
			t->depth--;
			return 0;
		}
	}
	idx = new_node(rx, tid, func, depth);
	if (idx < 0)
		return idx;
	rx->nodes[idx].start = calltime;
	rx->nodes[idx].end = rettime > calltime ? rettime : calltime;
	adopt(rx, t, idx);
	append(rx, t, idx);
	return 0;
}

static int add_instant(struct rx *rx, int tid, unsigned long long ts, const char *name, int cpu)
{
	struct rx_instant *in;
	char *n = strdup(name);

	if (!n || ut_grow(&rx->instants, sizeof(*in), rx->ninstants, &rx->capinstants)) {
		free(n);
		return -ENOMEM;
	}
	in = &rx->instants[rx->ninstants++];
	in->tid = tid;
	in->ts = ts;
	in->cpu = cpu;
	in->name = n;
	saw(rx, ts);
	return thread(rx, tid) ? 0 : -ENOMEM;
}

int rx_func(struct rx *rx, int tid, unsigned long long ts, const char *func, const char *parent)
{
	struct rx_line *l;
	char *stack;

	if (asprintf(&stack, "%s;%s", parent, func) < 0)
		return -ENOMEM;
	if (ut_grow(&rx->calls, sizeof(*l), rx->ncalls, &rx->capcalls)) {
		free(stack);
		return -ENOMEM;
	}
	l = &rx->calls[rx->ncalls++];
	l->stack = stack;
	l->weight = 1;
	if (ut_fnstat_call(rx->fs, func))
		return -ENOMEM;
	return add_instant(rx, tid, ts, func, -1);
}

int rx_instant(struct rx *rx, int tid, unsigned long long ts, const char *name, int cpu)
{
	return add_instant(rx, tid, ts, name, cpu);
}

/* ---- writing -------------------------------------------------------------------- */

/* Calls still open at the end of the trace end there. */
static void close_open(struct rx *rx)
{
	size_t i;

	for (i = 0; i < rx->nnodes; i++)
		if (rx->nodes[i].open)
			rx->nodes[i].end =
			    rx->last_ts > rx->nodes[i].start ? rx->last_ts : rx->nodes[i].start;
}

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* Chrome's times are µs; keep the ns as three decimals. */
static void json_us(FILE *out, const char *key, unsigned long long ns)
{
	fprintf(out, ",\"%s\":%llu.%03llu", key, ns / 1000, ns % 1000);
}

static void json_sep(FILE *out, bool *first)
{
	fputs(*first ? "\n" : ",\n", out);
	*first = false;
}

static void json_meta(FILE *out, bool *first, const char *what, int tid, const char *name)
{
	json_sep(out, first);
	fprintf(out,
		"{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", what,
		tid, tid);
	json_string(out, name);
	fputs("}}", out);
}

int rx_write_chrome(struct rx *rx, FILE *out)
{
	bool first = true;
	size_t i;

	close_open(rx);
	fputs("{\"traceEvents\":[", out);
	for (i = 0; i < rx->nthreads; i++) {
		struct rx_thread *t = &rx->threads[i];
		const char *comm = t->comm ? t->comm : "<...>";

		json_meta(out, &first, "process_name", t->tid, comm);
		json_meta(out, &first, "thread_name", t->tid, comm);
	}
	for (i = 0; i < rx->nnodes; i++) {
		struct rx_node *n = &rx->nodes[i];

		json_sep(out, &first);
		fputs("{\"name\":", out);
		json_string(out, n->name);
		fprintf(out, ",\"cat\":\"function\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d", n->tid,
			n->tid);
		json_us(out, "ts", n->start);
		json_us(out, "dur", n->end - n->start);
		fputs(n->open ? ",\"args\":{\"cut\":true}}" : "}", out);
	}
	for (i = 0; i < rx->ninstants; i++) {
		struct rx_instant *in = &rx->instants[i];

		json_sep(out, &first);
		fputs("{\"name\":", out);
		json_string(out, in->name);
		fprintf(out, ",\"cat\":\"event\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d",
			in->tid, in->tid);
		json_us(out, "ts", in->ts);
		if (in->cpu >= 0)
			fprintf(out, ",\"args\":{\"cpu\":%d}", in->cpu);
		fputc('}', out);
	}
	fputs("\n]}\n", out);
	return ferror(out) ? -EIO : 0;
}

/* "root;...;name" of node idx. */
static char *stack_of(struct rx *rx, int idx)
{
	size_t len = 0, depth = 0, i, pos = 0;
	int n, *chain;
	char *s;

	for (n = idx; n != NONE; n = rx->nodes[n].parent, depth++)
		len += strlen(rx->nodes[n].name) + 1; /* its ';', or the NUL */
	chain = malloc(depth * sizeof(*chain));
	s = malloc(len);
	if (!chain || !s) {
		free(chain);
		free(s);
		return NULL;
	}
	for (n = idx, i = depth; n != NONE; n = rx->nodes[n].parent)
		chain[--i] = n;
	for (i = 0; i < depth; i++) {
		size_t l = strlen(rx->nodes[chain[i]].name);

		memcpy(s + pos, rx->nodes[chain[i]].name, l);
		pos += l;
		s[pos++] = i + 1 < depth ? ';' : '\0';
	}
	free(chain);
	return s;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct rx_line *)a)->stack, ((const struct rx_line *)b)->stack);
}

/* Sort, add up equal stacks, print; frees the stacks. */
static int print_lines(struct rx_line *lines, size_t n, FILE *out)
{
	size_t i = 0, j;

	if (n)
		qsort(lines, n, sizeof(*lines), cmp_line);
	while (i < n) {
		unsigned long long w = 0;

		for (j = i; j < n && !strcmp(lines[j].stack, lines[i].stack); j++)
			w += lines[j].weight;
		if (w)
			fprintf(out, "%s %llu\n", lines[i].stack, w);
		i = j;
	}
	return ferror(out) ? -EIO : 0;
}

/* Self time of every call: its time less its children's. */
static int graph_lines(struct rx *rx, struct rx_line *lines)
{
	unsigned long long *inner = calloc(rx->nnodes + 1, sizeof(*inner));
	size_t i;

	if (!inner)
		return -ENOMEM;
	for (i = 0; i < rx->nnodes; i++)
		if (rx->nodes[i].parent != NONE)
			inner[rx->nodes[i].parent] += rx->nodes[i].end - rx->nodes[i].start;
	for (i = 0; i < rx->nnodes; i++) {
		unsigned long long d = rx->nodes[i].end - rx->nodes[i].start;

		lines[i].weight = d > inner[i] ? d - inner[i] : 0;
		lines[i].stack = stack_of(rx, (int)i);
		if (!lines[i].stack) {
			while (i--)
				free(lines[i].stack);
			free(inner);
			return -ENOMEM;
		}
	}
	free(inner);
	return 0;
}

/* ---- the summary ------------------------------------------------------------------- */

int rx_write_summary(struct rx *rx, FILE *out)
{
	return rx->fs ? ut_fnstat_write(rx->fs, out, rx->sort) : -ENOMEM;
}

int rx_summary_sort(struct rx *rx, const char *column)
{
	int c = ut_fnstat_column(column);

	if (c < 0)
		return c;
	rx->sort = c;
	return 0;
}

int rx_write_folded(struct rx *rx, FILE *out)
{
	struct rx_line *lines;
	size_t i;
	int err;

	close_open(rx);
	if (!rx->nnodes) {
		/* No graph data: each function event counts once under its caller. */
		return print_lines(rx->calls, rx->ncalls, out);
	}
	lines = calloc(rx->nnodes, sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	err = graph_lines(rx, lines);
	if (!err)
		err = print_lines(lines, rx->nnodes, out);
	if (!err || err == -EIO)
		for (i = 0; i < rx->nnodes; i++)
			free(lines[i].stack);
	free(lines);
	return err;
}

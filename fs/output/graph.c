// SPDX-License-Identifier: MIT
/*
 * graph.c - the function_graph tracer's text, as the kernel's
 * trace_functions_graph.c prints it: the column header, then one line per
 * event:
 *
 *   [abstime |  ][ CPU) ][ comm-pid | ][ flags | ][mark duration |  ]indent text
 *
 * where text is `func();` for a leaf (an entry followed on its CPU by its own
 * exit, which is then shown with it), `func() {` for an entry, `}` for an exit
 * (`} /+ func +/` with funcgraph-tail, or when the entry is not in the buffer),
 * `/+ text +/` for a print event, at the depth of the last function.  A banner
 * marks the change of task on a CPU.  A demangled C++ name has its own
 * parameter list in place of the "()": `t1(int) {`, `leaf(int);`.
 *
 * Signal handlers play the part of interrupts: events flagged
 * UT_EVF_SIGHANDLER.  With funcgraph-irqs the first function of a handler is
 * framed by "==========>" and "<==========" lines (the kernel's arrows around
 * an irq entry function); without it, what runs in a handler is not shown
 * (the runtime also stops recording it then).
 *
 * The kernel keeps its per-CPU depth, last pid and entered functions per open
 * file (iter->private); so does this file, in tfs_iter.priv.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "ut_profile_fmt.h"

#define GRAPH_INDENT 2
#define PROCINFO_LENGTH 14

/* What one reader remembers of one CPU. */
struct graph_cpu {
	pid_t last_pid;	 /* -1: nothing shown yet */
	int depth;	 /* comments go at depth + 1 */
	int depth_irq;	 /* funcgraph-irqs off: depth of the handler being hidden, or -1 */
	int depth_sig;	 /* funcgraph-irqs on: depth of the handler framed by arrows, or -1 */
	uint64_t enter_funcs[UT_GRAPH_STACK_MAX]; /* ip of the open entry at each depth */
};

struct graph_state {
	struct graph_cpu *cpu[UT_RB_MAX_CPUS];
};

static void graph_state_free(void *p)
{
	struct graph_state *gs = p;

	for (unsigned int i = 0; i < UT_RB_MAX_CPUS; i++)
		free(gs->cpu[i]);
	free(gs);
}

/* The reader's state of cpu, made on first use; NULL without memory (as the kernel without data). */
static struct graph_cpu *graph_cpu(struct tfs_iter *it, unsigned int cpu)
{
	struct graph_state *gs = it->priv;

	if (cpu >= UT_RB_MAX_CPUS)
		return NULL;
	if (!gs) {
		if (it->priv)
			return NULL;
		gs = calloc(1, sizeof(*gs));
		if (!gs)
			return NULL;
		it->priv = gs;
		it->priv_free = graph_state_free;
	}
	if (!gs->cpu[cpu]) {
		struct graph_cpu *c = calloc(1, sizeof(*c));

		if (!c)
			return NULL;
		c->last_pid = -1;
		c->depth_irq = -1;
		c->depth_sig = -1;
		gs->cpu[cpu] = c;
	}
	return gs->cpu[cpu];
}

/* ---- columns --------------------------------------------------------------------------------- */

static void print_cpu(struct tfs_buf *b, unsigned int cpu)
{
	/* as wide as the highest possible CPU number */
	int width = snprintf(NULL, 0, "%u", tfs.nr_cpus ? tfs.nr_cpus - 1 : 0);

	tfs_buf_printf(b, " %*u) ", width, cpu);
}

/* "comm-pid" centred in 14 columns, comm cut to 7 characters. */
static void print_proc(struct tfs_buf *b, pid_t pid)
{
	char comm[16], pid_str[12];
	int len, spaces = 0;

	tfs_out_comm(pid, comm);
	comm[7] = '\0';
	snprintf(pid_str, sizeof(pid_str), "%d", (int)pid);
	len = (int)(strlen(comm) + strlen(pid_str) + 1);
	if (len < PROCINFO_LENGTH)
		spaces = PROCINFO_LENGTH - len;
	tfs_buf_printf(b, "%*s%s-%s%*s", spaces / 2, "", comm, pid_str, spaces - spaces / 2, "");
}

static void print_abs_time(struct tfs_buf *b, uint64_t t)
{
	tfs_buf_printf(b, "%5lu.%06lu |  ", (unsigned long)(t / 1000000000ull),
		       (unsigned long)(t % 1000000000ull / 1000));
}

void tfs_graph_duration(struct tfs_buf *b, uint64_t ns)
{
	char s[64];

	tfs_buf_append(b, s, ut_graph_duration_str(s, sizeof(s), ns));
}

enum fill { FILL_NONE, FILL_FULL, FILL_START, FILL_END };

/* The overhead mark and duration column, or what fills it. */
static void print_duration(const struct tfs_iter *it, struct tfs_buf *b, uint64_t ns, uint64_t flags, enum fill fill)
{
	if (!(flags & TFS_GRAPH_DURATION) || !tfs_opt(it->inst, TFS_OPT_CONTEXT_INFO))
		return;
	switch (fill) {
	case FILL_FULL:
		tfs_buf_append(b, "              |  ", 17);
		return;
	case FILL_START:
		tfs_buf_append(b, "  ", 2);
		return;
	case FILL_END:
		tfs_buf_append(b, " |", 2);
		return;
	case FILL_NONE:
		break;
	}
	if (flags & TFS_GRAPH_OVERHEAD)
		tfs_buf_printf(b, "%c ", tfs_out_mark(ns));
	else
		tfs_buf_append(b, "  ", 2);
	tfs_graph_duration(b, ns);
	tfs_buf_append(b, "|  ", 3);
}

/* The context columns the options select (no banner, no arrows). */
static void print_context(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b,
			  uint64_t flags)
{
	if (!tfs_opt(it->inst, TFS_OPT_CONTEXT_INFO))
		return;
	if (flags & TFS_GRAPH_ABSTIME)
		print_abs_time(b, e->ts);
	if (flags & TFS_GRAPH_CPU)
		print_cpu(b, e->cpu);
	if (flags & TFS_GRAPH_PROC) {
		print_proc(b, (pid_t)e->ev->tid);
		tfs_buf_append(b, " | ", 3);
	}
	if (it->lat_fmt) {
		tfs_buf_append(b, " ", 1);
		tfs_out_lat_flags(b, e->ev);
		tfs_buf_append(b, " | ", 3);
	}
}

/* The banner when the task on a CPU changes (verif_pid). */
static void check_pid(struct tfs_buf *b, struct graph_cpu *gc, const struct tfs_event *e)
{
	pid_t pid = (pid_t)e->ev->tid, prev;

	if (!gc || gc->last_pid == pid)
		return;
	prev = gc->last_pid;
	gc->last_pid = pid;
	gc->depth_sig = -1; /* another task: not inside the last one's handler */
	if (prev == -1)
		return;
	tfs_buf_append(b, " ------------------------------------------\n", 44);
	print_cpu(b, e->cpu);
	print_proc(b, prev);
	tfs_buf_append(b, " => ", 4);
	print_proc(b, pid);
	tfs_buf_append(b, "\n ------------------------------------------\n\n", 46);
}

/* An arrow line around a signal handler (print_graph_irq). */
static void print_arrow(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b,
			uint64_t flags, bool enter)
{
	print_context(it, e, b, flags);
	print_duration(it, b, 0, flags, FILL_START);
	tfs_buf_append(b, enter ? "==========>" : "<==========", 11);
	print_duration(it, b, 0, flags, FILL_END);
	tfs_buf_append(b, "\n", 1);
}

static void indent(struct tfs_buf *b, int depth)
{
	for (int i = 0; i < depth * GRAPH_INDENT; i++)
		tfs_buf_append(b, " ", 1);
}

/*
 * The function of a graph event (ip: just after its patch site's call), as the
 * kernel's "%ps": the name, or "0x%lx" when no symbol covers it.  True when
 * the name carries its parameter list: a demangled C++ name does ("t1(int)",
 * "Guard::~Guard()"), and the graph then leaves out the "()" it adds to C
 * names.  No C or assembler symbol name holds a parenthesis, so one is the
 * sign of a parameter list.
 */
static bool print_func(struct tfs_buf *b, const struct ut_ev *h, uint64_t ip, uint64_t flags)
{
	bool demangle = flags & TFS_GRAPH_DEMANGLE;
	char name[TFS_SYM_NAME_MAX];
	uint64_t start, size;

	ip -= UT_SITE_CALL_LEN;
	if (tfs_out_sym_lookup((pid_t)h->tid, h->ts, ip, demangle, name, &start, &size) != 0 ||
	    !name[0]) {
		tfs_buf_printf(b, "0x%" PRIx64, ip);
		return false;
	}
	tfs_buf_printf(b, "%s", name);
	return strchr(name, '(') != NULL;
}

/* The function and what closes its name: "()" for a C name, nothing for C++. */
static void print_func_call(struct tfs_buf *b, const struct ut_ev *h, uint64_t ip,
			    uint64_t flags)
{
	if (!print_func(b, h, ip, flags))
		tfs_buf_append(b, "()", 2);
}

/*
 * " <-caller+0x1a/0x40": funcgraph-retaddr, as the kernel's seq_print_ip_sym
 * with sym-offset forced on (sym-addr adds the address), whose sprint_symbol
 * gives "0x%lx" for an address no symbol covers ("[libc.so.6+0x2724a]" in an
 * object with no symbol before it); demangled as the function
 * names are.
 */
static void print_retaddr(const struct tfs_iter *it, struct tfs_buf *b, const struct ut_ev_gent *g, uint64_t flags)
{
	uint64_t ra = g->extra[0], start = 0, size = 0;
	bool demangle = flags & TFS_GRAPH_DEMANGLE;
	pid_t tid = (pid_t)g->h.tid;
	char name[TFS_SYM_NAME_MAX];

	tfs_buf_append(b, " <-", 3);
	if (!ra)
		tfs_buf_append(b, "0", 1);
	else if (!tfs_out_sym_lookup(tid, g->h.ts, ra, demangle, name, &start, &size) && name[0])
		tfs_buf_printf(b, "%s+0x%" PRIx64 "/0x%" PRIx64, name, ra - start, size);
	else if (!tfs_sym_object_at(tid, g->h.ts, ra, name, sizeof(name)))
		tfs_buf_printf(b, "%s", name);
	else
		tfs_buf_printf(b, "0x%" PRIx64, ra);
	if (ra && (tfs_out_sym_flags(it->inst) & TFS_SYM_ADDR))
		tfs_buf_printf(b, " <%016" PRIx64 ">", ra);
}

/* " ret=..." as the kernel: small negative errors in decimal, the rest in hex. */
static void print_ret(struct tfs_buf *b, uint64_t retval, uint64_t flags)
{
	int64_t err = 0;

	if (retval && !(flags & TFS_GRAPH_RETVAL_HEX)) {
		/* a 32-bit negative value in a 64-bit register counts as negative */
		if ((retval & (1ull << 31)) && (retval >> 32) == 0)
			err = (int64_t)(int32_t)(uint32_t)retval;
		else
			err = (int64_t)retval;
		if ((uint64_t)err < (uint64_t)-4095) /* not an errno (IS_ERR_VALUE) */
			err = 0;
	}
	if ((flags & TFS_GRAPH_RETVAL_HEX) || !err)
		tfs_buf_printf(b, " ret=0x%" PRIx64, retval);
	else
		tfs_buf_printf(b, " ret=%" PRId64, err);
}

/* ---- entries, exits, comments ------------------------------------------------------------------ */

/* funcgraph-irqs off: true when the entry is in a handler, which is not shown. */
static bool hide_entry(struct graph_cpu *gc, const struct ut_ev_gent *g, uint64_t flags)
{
	if ((flags & TFS_GRAPH_IRQS) || !gc)
		return false;
	if (gc->depth_irq >= 0)
		return true;
	if (!(g->h.flags & UT_EVF_SIGHANDLER))
		return false;
	gc->depth_irq = (int)g->depth;
	return true;
}

static bool hide_exit(struct graph_cpu *gc, const struct ut_ev_gret *r, uint64_t flags)
{
	if ((flags & TFS_GRAPH_IRQS) || !gc || gc->depth_irq == -1)
		return false;
	if (gc->depth_irq >= (int)r->depth)
		gc->depth_irq = -1;
	return true;
}

static uint64_t duration_of(const struct tfs_iter *it, const struct ut_ev_gret *r)
{
	uint64_t call = tfs_clock_from_tsc(it->inst, r->calltime);
	uint64_t ret = tfs_clock_from_tsc(it->inst, r->h.ts);

	return ret > call ? ret - call : 0;
}

/* The leaf's exit when the next event of the CPU is it (get_return_for_leaf). */
static const struct ut_ev_gret *leaf_return(struct tfs_iter *it, const struct ut_ev_gent *g)
{
	const struct ut_ev *nx = it->peek_next ? it->peek_next(it) : NULL;
	const struct ut_ev_gret *r = (const void *)nx;

	if (!nx || nx->type != UT_EV_GRAPH_RET || nx->len != sizeof(*r))
		return NULL;
	if (nx->tid != g->h.tid || r->ip != g->ip)
		return NULL;
	return r;
}

static void print_entry(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b,
			uint64_t flags)
{
	const struct ut_ev_gent *g = (const void *)e->ev;
	struct graph_cpu *gc = graph_cpu(it, e->cpu);
	const struct ut_ev_gret *r;
	struct ut_ev_gret ret;
	bool show_ra = (flags & TFS_GRAPH_RETADDR) && g->nextra >= 1;

	if (hide_entry(gc, g, flags))
		return; /* its exit is hidden by hide_exit */
	check_pid(b, gc, e);
	if (gc && (flags & TFS_GRAPH_IRQS)) {
		if (!(g->h.flags & UT_EVF_SIGHANDLER)) {
			gc->depth_sig = -1;
		} else if (gc->depth_sig < 0) {
			gc->depth_sig = (int)g->depth;
			print_arrow(it, e, b, flags, true);
		}
	}
	print_context(it, e, b, flags);

	r = leaf_return(it, g);
	if (r) {
		ret = *r; /* taking it may move the copy it lives in */
		it->take_next(it);
		if (gc) {
			/* comments after a leaf go at its own depth */
			gc->depth = (int)g->depth - 1;
			if (g->depth < UT_GRAPH_STACK_MAX)
				gc->enter_funcs[g->depth] = 0;
		}
		print_duration(it, b, duration_of(it, &ret), flags, FILL_NONE);
		indent(b, (int)g->depth);
		print_func_call(b, &g->h, g->ip, flags);
		tfs_buf_append(b, ";", 1);
		if ((flags & TFS_GRAPH_RETVAL) || show_ra) {
			tfs_buf_append(b, " /*", 3);
			if (show_ra)
				print_retaddr(it, b, g, flags);
			if (flags & TFS_GRAPH_RETVAL)
				print_ret(b, ret.retval, flags);
			tfs_buf_append(b, " */", 3);
		}
		tfs_buf_append(b, "\n", 1);
		if (gc && (flags & TFS_GRAPH_IRQS) && gc->depth_sig == (int)g->depth &&
		    (g->h.flags & UT_EVF_SIGHANDLER)) {
			gc->depth_sig = -1;
			print_arrow(it, e, b, flags, false);
		}
		return;
	}
	if (gc) {
		gc->depth = (int)g->depth;
		if (g->depth < UT_GRAPH_STACK_MAX)
			gc->enter_funcs[g->depth] = g->ip;
	}
	print_duration(it, b, 0, flags, FILL_FULL);
	indent(b, (int)g->depth);
	print_func_call(b, &g->h, g->ip, flags);
	tfs_buf_append(b, " {", 2);
	if (show_ra) {
		tfs_buf_append(b, " /*", 3);
		print_retaddr(it, b, g, flags);
		tfs_buf_append(b, " */", 3);
	}
	tfs_buf_append(b, "\n", 1);
}

static void print_exit(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b,
		       uint64_t flags)
{
	const struct ut_ev_gret *r = (const void *)e->ev;
	struct graph_cpu *gc = graph_cpu(it, e->cpu);
	bool match = true;

	if (hide_exit(gc, r, flags))
		return;
	if (gc) {
		/* comments after an exit go at the depth of its brace */
		gc->depth = (int)r->depth - 1;
		if (r->depth < UT_GRAPH_STACK_MAX) {
			match = gc->enter_funcs[r->depth] == r->ip;
			gc->enter_funcs[r->depth] = 0;
		}
	}
	check_pid(b, gc, e);
	if (gc && (flags & TFS_GRAPH_IRQS) && !(r->h.flags & UT_EVF_SIGHANDLER))
		gc->depth_sig = -1;
	print_context(it, e, b, flags);
	print_duration(it, b, duration_of(it, r), flags, FILL_NONE);
	indent(b, (int)r->depth);
	if (flags & TFS_GRAPH_RETVAL) {
		tfs_buf_append(b, "} /* ", 5);
		print_func(b, &r->h, r->ip, flags);
		print_ret(b, r->retval, flags);
		tfs_buf_append(b, " */", 3);
	} else if (match && !(flags & TFS_GRAPH_TAIL)) {
		tfs_buf_append(b, "}", 1);
	} else {
		tfs_buf_append(b, "} /* ", 5);
		print_func(b, &r->h, r->ip, flags);
		tfs_buf_append(b, " */", 3);
	}
	tfs_buf_append(b, "\n", 1);
	if (flags & TFS_GRAPH_OVERRUN)
		tfs_buf_printf(b, " (Overruns: %u)\n", r->overrun);
	if (gc && (flags & TFS_GRAPH_IRQS) && (r->h.flags & UT_EVF_SIGHANDLER) &&
	    gc->depth_sig >= (int)r->depth) {
		gc->depth_sig = -1;
		print_arrow(it, e, b, flags, false);
	}
}

/* trace_printk, trace_marker and raw data inside the graph: a comment. */
static void print_comment(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b,
			  uint64_t flags)
{
	struct graph_cpu *gc = graph_cpu(it, e->cpu);
	int depth = gc ? gc->depth : 0;
	size_t start;

	check_pid(b, gc, e);
	print_context(it, e, b, flags);
	print_duration(it, b, 0, flags, FILL_FULL);
	if (depth > 0)
		indent(b, depth + 1);
	tfs_buf_append(b, "/* ", 3);
	start = b->len;
	if (tfs_out_is_printk(e->ev)) {
		tfs_out_printk_text(it, e->ev, b);
	} else {
		tfs_out_raw_data(b, (const void *)e->ev);
	}
	/* one ending newline goes */
	if (b->len > start && b->data[b->len - 1] == '\n')
		b->len--;
	tfs_buf_append(b, " */\n", 4);
}

int tfs_graph_line(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b,
		   uint64_t flags)
{
	switch (e->ev->type) {
	case UT_EV_GRAPH_ENT:
	case UT_EV_GRAPH_RET:
	case UT_EV_PRINT:
	case UT_EV_BPRINT:
	case UT_EV_BPUTS:
	case UT_EV_RAW_DATA:
		break;
	default:
		/* functions and stacks are not comments: the default line (it reports losses) */
		return tfs_out_line(it, e, b);
	}
	tfs_out_lost(b, e->cpu, it->lost);
	switch (e->ev->type) {
	case UT_EV_GRAPH_ENT:
		print_entry(it, e, b, flags);
		break;
	case UT_EV_GRAPH_RET:
		print_exit(it, e, b, flags);
		break;
	default:
		print_comment(it, e, b, flags);
	}
	return 0;
}

/* ---- the header ------------------------------------------------------------------------------ */

static void print_lat_legend(struct tfs_buf *b, uint64_t flags)
{
	static const char *const legend[] = {
		"  _-----=> irqs-off        ", " / _----=> need-resched    ",
		"| / _---=> hardirq/softirq ", "|| / _--=> preempt-depth   ",
		"||| /                      ",
	};
	int size = 0;

	if (flags & TFS_GRAPH_ABSTIME)
		size += 16;
	if (flags & TFS_GRAPH_CPU)
		size += 4;
	if (flags & TFS_GRAPH_PROC)
		size += 17;
	for (size_t i = 0; i < sizeof(legend) / sizeof(legend[0]); i++)
		tfs_buf_printf(b, "#%*s%s\n", size, "", legend[i]);
}

void tfs_graph_header(struct tfs_iter *it, struct tfs_buf *b, uint64_t flags)
{
	bool lat = it->lat_fmt;

	if (!tfs_opt(it->inst, TFS_OPT_CONTEXT_INFO))
		return;
	if (lat) {
		/* nothing at all when the buffer is empty */
		if (it->snap && tfs_snap_empty(it->snap))
			return;
		tfs_out_lat_trace_header(it, b);
		print_lat_legend(b, flags);
	}
	tfs_buf_printf(b, "#%s%s%s%s%s               FUNCTION CALLS\n",
		       flags & TFS_GRAPH_ABSTIME ? "     TIME       " : "",
		       flags & TFS_GRAPH_CPU ? " CPU" : "",
		       flags & TFS_GRAPH_PROC ? "  TASK/PID       " : "", lat ? "||||   " : "",
		       flags & TFS_GRAPH_DURATION ? "  DURATION   " : "");
	tfs_buf_printf(b, "#%s%s%s%s%s               |   |   |   |\n",
		       flags & TFS_GRAPH_ABSTIME ? "      |         " : "",
		       flags & TFS_GRAPH_CPU ? " |  " : "",
		       flags & TFS_GRAPH_PROC ? "   |    |        " : "", lat ? "||||   " : "",
		       flags & TFS_GRAPH_DURATION ? "   |   |      " : "");
}

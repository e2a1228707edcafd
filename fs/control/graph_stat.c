// SPDX-License-Identifier: MIT
/*
 * graph_stat.c - trace_stat/function_graph: the function-duration statistics of
 * the live buffer (per function: calls, total, self, average, shortest and
 * longest time), the table `utrace report --summary` prints for a trace.dat.  A
 * utrace file: the kernel has none like it (its trace_stat/ holds the function
 * profiler's and the branch tracer's tables).
 *
 * The table is made at open from a snapshot of the top level's rings, as `trace`
 * takes one: nothing is consumed, times are in the buffer's clock (trace_clock),
 * and the functions are named as `trace` names them.  The numbers come from
 * common/ut_fnstat.c, the CLI's too.  trace_stat/ is at the top level only, so
 * this file reads the top level's buffer; an instance's buffer is summarised by
 * `utrace report --summary` on a recording of it.
 *
 * The kernel's stat files have one fixed order each, so each order is a file:
 * function_graph by total time, function_graph.COL by COL (self, avg, min, max,
 * calls, name), the columns of `utrace report --sort`.
 *
 * tracing_thresh: the runtime keeps only the calls that lasted at least that long
 * and takes the entries of the others back: out of the buffer when the entry is
 * still the last event of its page, else turned into a discarded event in place
 * (runtime/graph.c).  The discarded ones are counted (the rings' "discarded"
 * counts), the rewound ones leave no trace; neither has a duration.  So with a
 * threshold the table counts the long calls, their self times hold the short
 * calls made inside them, and a note above the table says so, with the count of
 * short calls that are known.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_ctl.h"
#include "output/output.h"
#include "ring_read.h"
#include "tfs.h"
#include "trace_stat.h"
#include "ut_fnstat.h"
#include "ut_ring.h"

/* Names of the functions met, by thread and address: a buffer calls few functions often. */
#define NAME_CACHE 1024

struct name_slot {
	uint32_t tid;
	uint64_t ip;
	char *name;
};

struct walk {
	struct tfs_instance *inst;
	struct ut_fnstat *fs;
	bool demangle;
	struct name_slot cache[NAME_CACHE];
	char name[TFS_SYM_NAME_MAX];
};

/* The name of the function of ip (just after its patch site's call), as `trace` prints it. */
static const char *func_name(struct walk *w, const struct ut_ev *h, uint64_t ip)
{
	uint64_t site = ip - UT_SITE_CALL_LEN, start, size;
	struct name_slot *slot = &w->cache[(site ^ (site >> 12) ^ h->tid) % NAME_CACHE];

	if (slot->name && slot->tid == h->tid && slot->ip == site)
		return slot->name;
	if (tfs_out_sym_lookup((pid_t)h->tid, h->ts, site, w->demangle, w->name, &start, &size) ||
	    !w->name[0])
		snprintf(w->name, sizeof(w->name), "0x%" PRIx64, site);
	free(slot->name);
	slot->name = strdup(w->name);
	slot->tid = h->tid;
	slot->ip = site;
	return slot->name ? slot->name : w->name;
}

static int feed(struct walk *w, const struct tfs_event *e)
{
	const struct ut_ev *h = e->ev;

	switch (h->type) {
	case UT_EV_GRAPH_ENT: {
		const struct ut_ev_gent *g = (const void *)h;

		if (h->len < sizeof(*g))
			return 0;
		return ut_fnstat_entry(w->fs, (int)h->tid, e->ts, func_name(w, h, g->ip),
				       (int)g->depth);
	}
	case UT_EV_GRAPH_RET: {
		const struct ut_ev_gret *r = (const void *)h;

		if (h->len < sizeof(*r))
			return 0;
		return ut_fnstat_exit(w->fs, (int)h->tid, func_name(w, h, r->ip), (int)r->depth,
				      tfs_clock_from_tsc(w->inst, r->calltime), e->ts);
	}
	case UT_EV_FUNCTION: {
		const struct ut_ev_func *f = (const void *)h;

		if (h->len < sizeof(*f))
			return 0;
		return ut_fnstat_call(w->fs, func_name(w, h, f->ip));
	}
	default:
		return 0;
	}
}

/* Feed every readable event of the buffer, in time order. */
static int walk_buffer(struct walk *w)
{
	struct tfs_iter it;
	struct tfs_snap *snap;
	struct tfs_event e;
	int err = 0;

	memset(&it, 0, sizeof(it));
	it.inst = w->inst;
	it.cpu_filter = -1;
	snap = tfs_snap_take(w->inst, -1, &it);
	if (!snap)
		return -ENOMEM;
	while (!err && tfs_snap_next(snap, &it, &e))
		err = feed(w, &e);
	tfs_snap_free(snap);
	tfs_iter_release(&it);
	return err;
}

/* The short calls tracing_thresh took out that are still seen: the discarded entries. */
static uint64_t discarded(struct tfs_instance *inst)
{
	struct tfs_cpu_stats st;
	uint64_t n = 0;

	for (unsigned int cpu = 0; cpu < tfs.nr_cpus; cpu++)
		if (!tfs_rr_stats(inst, cpu, &st))
			n += st.discarded;
	return n;
}

static void thresh_note(FILE *out, struct tfs_instance *inst, uint64_t thresh_ns)
{
	fprintf(out,
		"# tracing_thresh %" PRIu64 " us: only calls that lasted that long are in the buffer;\n"
		"# Self time includes the shorter calls made inside them.  Shorter calls taken out:\n"
		"# %" PRIu64 " seen (discarded entries), and those rewound out of the buffer (not counted).\n",
		thresh_ns / 1000, discarded(inst));
}

static int stat_show(struct tfs_open *o)
{
	struct walk *w = calloc(1, sizeof(*w));
	uint64_t thresh = tfs_graph_thresh_ns();
	char *text = NULL;
	size_t len = 0;
	FILE *out = NULL;
	int err = -ENOMEM;

	if (!w)
		return -ENOMEM;
	w->inst = o->inst;
	w->demangle = tfs_out_sym_flags(o->inst) & TFS_SYM_DEMANGLE;
	w->fs = ut_fnstat_new();
	if (!w->fs)
		goto out;
	err = walk_buffer(w);
	if (err)
		goto out;
	out = open_memstream(&text, &len);
	if (!out) {
		err = -ENOMEM;
		goto out;
	}
	if (thresh)
		thresh_note(out, o->inst, thresh);
	err = ut_fnstat_write(w->fs, out, (int)o->file->arg);
	if (fclose(out) && !err)
		err = -ENOMEM;
	if (!err && tfs_buf_append(&o->content, text, len) < 0)
		err = -ENOMEM;
out:
	free(text);
	ut_fnstat_free(w->fs);
	for (size_t i = 0; i < NAME_CACHE; i++)
		free(w->cache[i].name);
	free(w);
	return err < 0 ? err : 0;
}

const struct tfs_file_ops tfs_graph_stat_ops = {
    .show = stat_show,
    .seek = TFS_SEEK_SEQ,
};

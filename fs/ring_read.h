/* SPDX-License-Identifier: MIT */
/*
 * ring_read.h - reading the shared rings (ring_read.c) and the iterator that the
 * formatters (output/, tracers/) and the trace files (trace.c) share.
 *
 * Two ways to read, as in the kernel:
 *   - a snapshot (the `trace` files): a validated copy of every readable,
 *     not yet consumed event of one CPU or of all, merged by time stamp;
 *   - the consuming reader (trace_pipe, trace_pipe_raw): ONE reader state per
 *     CPU shared by every opener, so each event is handed out once.  In
 *     no-overwrite mode it releases pages by advancing rb_cpu.read_vpage; in
 *     overwrite mode it takes the page it reads out of the writers' way (a copy
 *     of its own, the kernel's reader page) and reports the events the writers
 *     overwrote before it got to them ("CPU:%d [LOST %lu EVENTS]").
 *
 * Conventions the writers must keep (utracefs itself and the runtime):
 *   - print events hold the text as written, NUL-terminated, WITHOUT an added
 *     newline; for trace_marker events (ip == UT_IP_MARKER) the formatter adds
 *     the newline the kernel adds, and `bytes` counts what the kernel stores
 *     (16-byte entry + text + 2).  utracefs writes them in the marker form (no ip
 *     field, padded: ut_ring.h, struct ut_ev_marker); read a print event's text
 *     and ip with ut_ev_print_text() and ut_ev_print_ip(), whatever its form.
 *   - every change of a ring's contents by utracefs (reset, resize: area.c) is
 *     made with the readers held off (tfs_rr_hold), and the consumer of that CPU
 *     is moved in the same critical section (tfs_rr_forget_held,
 *     tfs_rr_resized_held): a consumer never carries a position from the old
 *     ring into the new one.
 */
#ifndef TFS_RING_READ_H
#define TFS_RING_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "tfs.h"

/* Per-CPU statistics (per_cpu/cpuN/stats and the trace header). */
struct tfs_cpu_stats {
	uint64_t entries;	 /* readable, not consumed */
	uint64_t overrun;	 /* overwritten before anybody read them */
	uint64_t commit_overrun; /* always 0: writers never overrun a commit */
	uint64_t bytes;		 /* what the kernel's ring buffer would use for `entries` */
	uint64_t oldest_tsc;	 /* time stamp (TSC) of the page of the oldest entry; 0: none */
	uint64_t dropped;	 /* no-overwrite mode: events refused because full */
	uint64_t read;		 /* consumed by trace_pipe readers */
	uint64_t written;	 /* every event committed since the last reset */
	uint64_t bad;		 /* events that failed validation (never shown) */
	uint64_t discarded;	 /* UT_EV_DISCARD seen among the readable ones (not in entries) */
};

/* A snapshot: copies of the events, per CPU, in ring order. */
struct tfs_snap;
struct tfs_lat_max;

/*
 * The iterator: what a formatter knows besides the event itself.  The reader
 * fills the per-event fields before each print_line call.
 */
struct tfs_iter {
	/* for the whole read */
	struct tfs_instance *inst; /* whose buffer (set by tfs_snap_take, tfs_rr_consume) */
	int cpu_filter;		/* per_cpu file: its CPU; -1: all */
	bool pipe;		/* consuming reader (trace_pipe) */
	bool spare;		/* the snapshot buffer (the `snapshot` files), not the rings */
	bool lat_fmt;		/* latency format (option latency-format) */
	bool annotate;		/* `trace` after overruns: "##### CPU %u buffer started ####" */
	unsigned long entries;	/* header: readable entries, all CPUs */
	unsigned long total;	/* header: entries + overrun, all CPUs */
	uint64_t time_start;	/* latency format: time of the last reset, clock units */
	/* a latency tracer's maximum (`trace` reads its max buffer), NULL: none */
	const struct tfs_lat_max *lat_max;
	uint64_t started[TFS_CPUMASK_WORDS]; /* annotate: CPUs already seen */
	/* for the current event */
	unsigned int cpu;
	unsigned long idx;	/* 1 for the first event of this read, then 2, ... */
	unsigned long lost;	/* pipe: events lost on cpu just before this one */
	uint64_t next_ts;	/* ts of the next event in order (latency format), or own */
	/* the snapshot being walked (trace files), NULL for pipes */
	struct tfs_snap *snap;
	/*
	 * function_graph's leaf test (the kernel's get_return_for_leaf): the event
	 * that follows the current one on it->cpu, discards skipped, or NULL when
	 * none is readable now; take_next makes the reader pass over that event too
	 * (the snapshot walk skips it, the consuming reader consumes it).  Set by
	 * the reader for each event; NULL when it cannot peek.
	 */
	const struct ut_ev *(*peek_next)(struct tfs_iter *it);
	void (*take_next)(struct tfs_iter *it);
	void *rd; /* the reader's own state for the two above */
	/*
	 * The tracer's state for this reader (function_graph: per-CPU depth and
	 * last pid, as the kernel's iter->private), made by the tracer on first
	 * use and freed by tfs_iter_release() with priv_free.
	 */
	void *priv;
	void (*priv_free)(void *priv);
};

/* Free the tracer's state of a reader (at close, or before walking again). */
void tfs_iter_release(struct tfs_iter *it);

/*
 * Read one CPU's statistics now.  0, or -EINVAL for a bad cpu / no area.  A ring
 * whose shared state is corrupt reads as empty (only this reader's own counters).
 */
int tfs_rr_stats(struct tfs_instance *inst, unsigned int cpu, struct tfs_cpu_stats *st);

/*
 * Take a snapshot of cpu (or all CPUs when cpu < 0): every readable event not yet
 * consumed (with it->spare: every event of the snapshot buffer, inst->spare).
 * Fills it->entries/total from the same reading.  NULL on ENOMEM.
 */
struct tfs_snap *tfs_snap_take(struct tfs_instance *inst, int cpu, struct tfs_iter *it);
void tfs_snap_free(struct tfs_snap *s);
/* Restart the walk from the first event. */
void tfs_snap_rewind(struct tfs_snap *s);
/*
 * Next event in time order (ties: lowest CPU, as the kernel).  Fills e (pointing
 * into the snapshot), it->cpu, it->idx and it->next_ts.  false at the end.
 */
bool tfs_snap_next(struct tfs_snap *s, struct tfs_iter *it, struct tfs_event *e);
/* True when the snapshot holds no event. */
bool tfs_snap_empty(const struct tfs_snap *s);

/*
 * The consuming reader.  fn is called with each next event in time order (of cpu,
 * or all CPUs when cpu < 0), it->lost set for the first event after a loss;
 * fn returns 0 to take the event (it is consumed), > 0 to stop before it (it stays
 * for the next reader), < 0 to stop with that error.  At most max events.
 * Returns the number of events consumed or -errno.  The event (and e->ev) is
 * valid only during the call.
 */
typedef int (*tfs_rr_fn)(struct tfs_iter *it, const struct tfs_event *e, void *arg);
long tfs_rr_consume(struct tfs_instance *inst, int cpu, struct tfs_iter *it, long max,
		    tfs_rr_fn fn, void *arg);
/*
 * The same for cpu's part of the snapshot buffer (snapshot_raw): events taken are
 * gone from the snapshot (they become discarded events of the copy, which no
 * writer writes), as a consuming read of the kernel's snapshot buffer takes them.
 */
long tfs_rr_spare_consume(struct tfs_instance *inst, unsigned int cpu, struct tfs_iter *it,
			  long max, tfs_rr_fn fn, void *arg);
/* True when the consuming reader of cpu (or of any CPU) has an event ready. */
bool tfs_rr_ready(struct tfs_instance *inst, int cpu);
/*
 * After writes: take out the pages that consumers' reads wait for the writers to
 * leave (overwrite mode's reader page, ring_read.c).  Cheap when none waits.
 */
void tfs_rr_settle(void);

/*
 * A ring was emptied (cpu, or all when cpu < 0): forget the reader's position,
 * and for all CPUs restart the latency format's time base.
 */
void tfs_rr_reset(struct tfs_instance *inst, int cpu);
/* The instance goes: free its consumers. */
void tfs_rr_free(struct tfs_instance *inst);

/*
 * Hold every reader (snapshots, statistics, consumers) off while a ring changes;
 * area.c takes it inside its own lock, never the other way round.
 */
void tfs_rr_hold(void);
void tfs_rr_unhold(void);
/* Readers held: cpu's ring was emptied; its consumer starts again at the ring's start. */
void tfs_rr_forget_held(struct tfs_instance *inst, unsigned int cpu);
/*
 * Readers held: where cpu's consumer takes its next event (vpage, byte offset in
 * the page's data); false when it has consumed nothing (no position).
 */
bool tfs_rr_next_held(struct tfs_instance *inst, unsigned int cpu, unsigned int *vp,
		      unsigned int *off);
/*
 * Readers held: cpu's reader page (overwrite mode: a page a consuming read took
 * out of the ring, the ring being read again from vp + 1), its data and the bytes
 * [start, end) not consumed yet; false when the consumer holds none.
 */
bool tfs_rr_reader_page_held(struct tfs_instance *inst, unsigned int cpu, unsigned int *vp, const unsigned char **data,
			     unsigned int *start, unsigned int *end);
/*
 * Readers held: cpu's ring was rebuilt (resize) with the unconsumed events from
 * number `first` on at its start: the consumer goes on from there, its counts
 * (read, discarded, bad) kept.
 */
void tfs_rr_resized_held(struct tfs_instance *inst, unsigned int cpu, uint64_t first);
/* Time of the last full reset in the current clock (latency format base). */
uint64_t tfs_rr_time_start(const struct tfs_instance *inst);

/*
 * Tests only: called in the middle of every page copy (half the page copied), to
 * make a writer's move happen there.
 */
extern void (*tfs_rr_copy_hook)(unsigned int cpu, unsigned int vp);

/* Validate one event at the start of p with room bytes left; its length or -1. */
int tfs_rr_check_event(const void *p, unsigned int room);

#endif

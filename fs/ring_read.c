// SPDX-License-Identifier: MIT
/*
 * ring_read.c - the reader side of the shared rings (contract: ut_ring.h):
 * page copies with validation, per-CPU statistics, snapshots for the `trace`
 * files and the consuming reader behind trace_pipe and trace_pipe_raw.
 *
 * Nothing read from shared memory is trusted.  A page is used only from a copy:
 * the copy is valid when its header names the expected vpage (magic included)
 * and, read again AFTER the copy, the writer has not begun to reuse that slot
 * (overwrite mode: wpos.vpage - v < nr_pages - 1; no-overwrite mode: v is not
 * older than read_vpage, which only this file moves), and for the page being
 * written, rb_cpu.gen has not moved (a tracing_thresh rewind bumps it before it
 * moves wpos back: a copy that raced with one may hold the header of one event and
 * the body of the next written at the same place).  Inside a copy every event
 * is checked (tfs_rr_check_event); the first bad one ends the page and the rest
 * of the page's entries are counted as bad, never shown.
 *
 * Sequence numbers.  Every event committed on a CPU since the last reset has a
 * number: page.base_entries + its index in the page.  The consumer state of a
 * CPU is the page and byte offset of the next event to hand out, its number P,
 * and R, the events handed out.  From one consistent reading:
 *   first   = max(P, base of the oldest readable page)  (first unconsumed event)
 *   entries = written - first
 *   overrun = first - R         (gone without being read, bad ones included)
 * so that entries + overrun + read == written, exactly.
 *
 * The reader page.  In overwrite mode the page the consumer takes events from
 * leaves the ring, as the kernel's head page is swapped out into its reader page:
 * the consumer keeps its copy of a finished page (own) and reads the ring again
 * from the next page; the page being written is read in place and copied out
 * once the writer has left it (pend, rr_cons_settle: after utracefs's own writes,
 * at every reader call, at the kicker's tick).  Its unread events count as
 * entries before the ring's, and those overwritten between it and the oldest
 * page of the ring as overrun.  In no-overwrite mode the page stays in the ring,
 * released (read_vpage) only when the consumer takes from the next one.
 *
 * Locking: rr_lock serialises every reader (snapshots, statistics and consumers)
 * because they share the consumer state; it is never held while blocking.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "event_defs.h"
#include "output/output.h"
#include "ring_read.h"
#include "settings.h"

#define RR_RETRIES 8
#define RR_CHASES 24 /* walks started ahead of a writer faster than the reader */
#define RR_HALF (RB_VPAGE_MOD / 2)

/* One consistent reading of a CPU's writer state. */
struct rr_view {
	struct tfs_instance *inst;
	void *area; /* the span read: inst->area, or inst->spare (the snapshot buffer) */
	unsigned int cpu;
	struct rb_cpu *rc;
	uint64_t w;
	uint64_t gen; /* rb_cpu.gen, read before w */
	unsigned int V, slot, nr;
	unsigned int read_vpage;
	bool overwrite;
};

/* A validated copy of one page. */
struct rr_page {
	union {
		struct rb_page hdr;
		unsigned char raw[UT_RB_PAGE_SIZE];
		uint64_t align;
	};
	unsigned int vpage;
	unsigned int end;     /* committed bytes of data */
	unsigned int entries; /* committed events */
	bool done;	      /* a finished page (not the one being written at the copy) */
};

/* The consuming reader of one CPU (shared by every trace_pipe opener). */
struct rr_cons {
	unsigned int vp;  /* page of the next event */
	unsigned int off; /* its byte offset in the page data */
	unsigned int idx; /* its index in the page */
	uint64_t P;	  /* its sequence number */
	uint64_t R;	  /* events handed out since the reset */
	uint64_t lost;	  /* overwritten before being read, not reported yet */
	uint64_t bad;	  /* failed validation */
	uint64_t D;	  /* discarded events passed over (tracing_thresh), not handed out */
	/*
	 * Overwrite mode, the kernel's reader page: own, pg is a finished page taken
	 * out of the ring (vpage vp; the ring is read again from vp + 1), kept
	 * across calls until used up; pend, the consumer is on the page being
	 * written, to be taken out once the writer has left it (rr_cons_settle).
	 */
	bool own;
	bool pend;
	/* the page copy the next event is taken from */
	bool loaded;
	struct rr_page pg;
	/* kept across resets: an empty ring shows the last oldest time, as the kernel */
	uint64_t last_oldest;
	struct tfs_instance *inst; /* whose consumer it is, of which CPU */
	unsigned int cpu;
};

static pthread_mutex_t rr_lock = PTHREAD_MUTEX_INITIALIZER;

void (*tfs_rr_copy_hook)(unsigned int cpu, unsigned int vp);

/* The consumer of cpu in inst ([UT_RB_MAX_CPUS] per instance, allocated on first use). */
static struct rr_cons *rr_cons_of(struct tfs_instance *inst, unsigned int cpu)
{
	if (!inst->rr_cons) {
		inst->rr_cons = calloc(UT_RB_MAX_CPUS, sizeof(*inst->rr_cons));
		if (!inst->rr_cons)
			return NULL;
		for (unsigned int c = 0; c < UT_RB_MAX_CPUS; c++) {
			inst->rr_cons[c].inst = inst;
			inst->rr_cons[c].cpu = c;
		}
	}
	return &inst->rr_cons[cpu];
}

void tfs_rr_free(struct tfs_instance *inst)
{
	pthread_mutex_lock(&rr_lock);
	free(inst->rr_cons);
	inst->rr_cons = NULL;
	pthread_mutex_unlock(&rr_lock);
}

/* ---- events ------------------------------------------------------------------------- */

int tfs_rr_check_event(const void *p, unsigned int room)
{
	const struct ut_ev *ev = p;
	unsigned int len;

	if (room < sizeof(*ev))
		return -1;
	len = ev->len;
	if (len < sizeof(*ev) || (len & 7) || len > room || ev->tid > 0x7fffffffu)
		return -1;
	switch (ev->type) {
	case UT_EV_DISCARD:
		return (int)len; /* only its length matters: it is skipped */
	case UT_EV_FUNCTION:
		return len == sizeof(struct ut_ev_func) ? (int)len : -1;
	case UT_EV_CTX:
	case UT_EV_WAKE:
		return len == sizeof(struct ut_ev_ctx) ? (int)len : -1;
	/* a graph depth is a runtime frame's (16 bits): more is forged, and would
	 * be indented by gigabytes */
	case UT_EV_GRAPH_ENT: {
		const struct ut_ev_gent *g = p;

		if (len < sizeof(*g) || g->nextra > 1 ||
		    len != sizeof(*g) + g->nextra * sizeof(uint64_t) || g->depth > UINT16_MAX)
			return -1;
		return (int)len;
	}
	case UT_EV_GRAPH_RET:
		return len == sizeof(struct ut_ev_gret) &&
			       ((const struct ut_ev_gret *)p)->depth <= UINT16_MAX
			   ? (int)len
			   : -1;
	case UT_EV_PRINT: {
		/* either form (ut_ring.h): the text, with its NUL, fills what follows */
		unsigned int room;
		const char *text = ut_ev_print_text(ev, &room);

		if (!room || room > UT_PRINT_MAX + 8 || !memchr(text, 0, room))
			return -1;
		return (int)len;
	}
	case UT_EV_BPRINT: {
		const struct ut_ev_bprint *b = p;

		if (len < sizeof(*b) || b->size > UT_BPRINT_MAX || (b->size & 3) ||
		    b->size > len - sizeof(*b))
			return -1;
		return (int)len;
	}
	case UT_EV_BPUTS:
		return len == sizeof(struct ut_ev_bputs) ? (int)len : -1;
	/* utracefs's own samples, padded to the kernel's count per page (hwlat.c) */
	case UT_EV_HWLAT:
		return len >= sizeof(struct ut_ev_hwlat) ? (int)len : -1;
	case UT_EV_OSNOISE:
		return len >= sizeof(struct ut_ev_osnoise) ? (int)len : -1;
	case UT_EV_TIMERLAT:
		return len >= sizeof(struct ut_ev_timerlat) ? (int)len : -1;
	case UT_EV_KERNEL_STACK: {
		const struct ut_ev_stack *st = p;

		if (len < sizeof(*st) || st->nr > UT_STACK_MAX ||
		    len != sizeof(*st) + st->nr * sizeof(uint64_t))
			return -1;
		return (int)len;
	}
	case UT_EV_EVENT:
		return tfs_event_check(ev, len);
	case UT_EV_RAW_DATA: {
		const struct ut_ev_raw *r = p;

		/* padded as the kernel's page count asks (trace_marker.c) */
		if (len < sizeof(*r) || r->size > len - sizeof(*r))
			return -1;
		return (int)len;
	}
	}
	return -1;
}

/* ---- pages ----------------------------------------------------------------------------- */

/*
 * The page count utracefs gave cpu's ring.  The copy in shared memory is only
 * compared with it: a writer that changed it could make a reader walk (and copy)
 * up to UT_RB_MAX_PAGES pages.  A resize in progress may briefly disagree too;
 * the ring then reads as empty.
 */
static unsigned int rr_own_pages(const struct tfs_instance *inst, unsigned int cpu)
{
	return tfs_kpages_to_rb_pages(__atomic_load_n(&inst->nr_kpages[cpu], __ATOMIC_RELAXED));
}

/*
 * Read cpu's writer state in inst's rings, or with spare in its snapshot buffer
 * (a copy nobody writes, made by area.c with the readers held); false when there
 * is no ring or it is corrupt.
 */
static bool rr_view_read_buf(struct tfs_instance *inst, unsigned int cpu, struct rr_view *v,
			     bool spare)
{
	void *area = spare ? inst->spare : inst->area;

	if (!area || cpu >= tfs.nr_cpus)
		return false;
	v->inst = inst;
	v->area = area;
	v->cpu = cpu;
	v->rc = ut_rb_cpu(area, cpu);
	v->gen = __atomic_load_n(&v->rc->gen, __ATOMIC_ACQUIRE);
	v->w = __atomic_load_n(&v->rc->wpos, __ATOMIC_ACQUIRE);
	v->nr = __atomic_load_n(&v->rc->nr_pages, __ATOMIC_RELAXED);
	v->overwrite = __atomic_load_n(&v->rc->flags, __ATOMIC_RELAXED) & RB_F_OVERWRITE;
	v->read_vpage = (unsigned int)__atomic_load_n(&v->rc->read_vpage, __ATOMIC_RELAXED) &
			(RB_VPAGE_MOD - 1);
	v->V = rb_wpos_vpage(v->w);
	v->slot = rb_wpos_slot(v->w);
	return v->nr == (spare ? inst->spare_pages[cpu] : rr_own_pages(inst, cpu)) && v->nr &&
	       v->slot < v->nr && rb_wpos_off(v->w) <= UT_RB_PAGE_DATA;
}

static bool rr_view_read(struct tfs_instance *inst, unsigned int cpu, struct rr_view *v)
{
	return rr_view_read_buf(inst, cpu, v, false);
}

/* Oldest vpage that may be read. */
static unsigned int rr_window_start(const struct rr_view *v)
{
	if (!v->overwrite && rb_vpage_sub(v->V, v->read_vpage) < v->nr)
		return v->read_vpage;
	return (v->V - (v->nr - 2)) & (RB_VPAGE_MOD - 1);
}

/* Distance from a to the current page (how old a is); >= RR_HALF: a is ahead. */
static unsigned int rr_age(const struct rr_view *v, unsigned int a)
{
	return rb_vpage_sub(v->V, a);
}

/*
 * RR_OVERTAKEN: in overwrite mode the writer reached the copied slot meanwhile (and
 * nothing else happened): the page is gone, the pages after it may still be read.
 */
enum { RR_OK, RR_INVALID, RR_RACED, RR_OVERTAKEN };

/*
 * A writer faster than a reader overtook the page it was copying: where a new
 * walk of view v starts, ahead of the oldest page by a margin that doubles with
 * each chase (up to half the ring), so that a reader slower than the writer still
 * gets pages.  The pages before it are lost (overrun).
 */
static unsigned int rr_chase_start(const struct rr_view *v, unsigned int chases)
{
	unsigned int ahead = v->nr / 2 > 2 ? v->nr / 2 - 2 : 0;

	if (chases < 16 && (1u << chases) < ahead)
		ahead = 1u << chases;
	return (rr_window_start(v) + ahead) & (RB_VPAGE_MOD - 1);
}

/* Copy vpage vp of the view's CPU into pg and validate it. */
static int rr_copy_page(const struct rr_view *v, unsigned int vp, struct rr_page *pg)
{
	unsigned int d = rr_age(v, vp), d2, slot;
	const unsigned char *src;
	uint64_t w2, c;

	if (d >= v->nr)
		return RR_INVALID;
	slot = (v->slot + v->nr - d) % v->nr;
	src = (const unsigned char *)ut_rb_page(v->area, v->cpu, slot);
	if (tfs_rr_copy_hook) {
		memcpy(pg->raw, src, UT_RB_PAGE_SIZE / 2);
		tfs_rr_copy_hook(v->cpu, vp);
		memcpy(pg->raw + UT_RB_PAGE_SIZE / 2, src + UT_RB_PAGE_SIZE / 2, UT_RB_PAGE_SIZE / 2);
	} else {
		memcpy(pg->raw, src, UT_RB_PAGE_SIZE);
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	w2 = __atomic_load_n(&v->rc->wpos, __ATOMIC_ACQUIRE);
	/*
	 * The page being written may have been rewound (tracing_thresh) and written
	 * again at the same place meanwhile: wpos can be back at its old value, the
	 * generation cannot.
	 */
	if (d == 0 && __atomic_load_n(&v->rc->gen, __ATOMIC_ACQUIRE) != v->gen)
		return RR_RACED;
	d2 = rb_vpage_sub(rb_wpos_vpage(w2), vp);
	if (rb_vpage_sub(rb_wpos_vpage(w2), v->V) >= RR_HALF)
		return RR_RACED; /* wpos went back: a reset */
	if (v->overwrite && d2 >= v->nr - 1)
		return RR_OVERTAKEN;
	if (!v->overwrite && (d2 >= v->nr || rb_vpage_sub(vp, v->read_vpage) >= v->nr))
		return RR_RACED;
	if (pg->hdr.magic != UT_RB_PAGE_MAGIC || pg->hdr.vpage != vp)
		return RR_INVALID;
	c = d == 0 ? v->w : pg->hdr.commit;
	if (rb_wpos_vpage(c) != vp || rb_wpos_off(c) > UT_RB_PAGE_DATA)
		return RR_INVALID;
	pg->vpage = vp;
	pg->done = d != 0;
	pg->end = rb_wpos_off(c);
	pg->entries = rb_wpos_entries(c);
	return RR_OK;
}

/* The event at byte off of a copied page, or NULL when it is bad. */
static const struct ut_ev *rr_page_event(const struct rr_page *pg, unsigned int off)
{
	const unsigned char *data = pg->raw + UT_RB_PAGE_HDR;

	if (off >= pg->end || (off & 7))
		return NULL;
	if (tfs_rr_check_event(data + off, pg->end - off) < 0)
		return NULL;
	return (const struct ut_ev *)(data + off);
}

/* ---- the consumer's position --------------------------------------------------------------- */

/*
 * The first consuming read after a reset puts the reader page in use: from then on
 * no-overwrite writers may fill every page (ut_ring.h, rb_cpu.held).
 */
static void rr_reader_page_used(struct tfs_instance *inst, unsigned int cpu)
{
	struct rb_cpu *rc = ut_rb_cpu(inst->area, cpu);

	if (__atomic_load_n(&rc->held, __ATOMIC_RELAXED))
		__atomic_store_n(&rc->held, 0, __ATOMIC_RELEASE);
}

static void rr_cons_clear(struct rr_cons *cs)
{
	memset(cs, 0, offsetof(struct rr_cons, pg));
}

void tfs_rr_hold(void)
{
	pthread_mutex_lock(&rr_lock);
}

void tfs_rr_unhold(void)
{
	pthread_mutex_unlock(&rr_lock);
}

void tfs_rr_forget_held(struct tfs_instance *inst, unsigned int cpu)
{
	struct rr_cons *cs = rr_cons_of(inst, cpu);

	if (!cs)
		return;
	/*
	 * The kernel's oldest time after a reset is its head page's; once a
	 * consuming read has swapped its reader page into the ring, the head is
	 * that page, empty: 0.  Without reads it is the old page.
	 */
	if (cs->R)
		cs->last_oldest = 0;
	rr_cons_clear(cs);
}

bool tfs_rr_next_held(struct tfs_instance *inst, unsigned int cpu, unsigned int *vp,
		      unsigned int *off)
{
	struct rr_cons *cs = rr_cons_of(inst, cpu);

	if (!cs || (!cs->P && !cs->R && !cs->D))
		return false; /* nothing consumed: no position */
	if (cs->own) { /* the ring is read again after the reader page */
		*vp = (cs->vp + 1) & (RB_VPAGE_MOD - 1);
		*off = 0;
		return true;
	}
	*vp = cs->vp;
	*off = cs->off;
	return true;
}

bool tfs_rr_reader_page_held(struct tfs_instance *inst, unsigned int cpu, unsigned int *vp, const unsigned char **data,
			     unsigned int *start, unsigned int *end)
{
	struct rr_cons *cs = rr_cons_of(inst, cpu);

	if (!cs || !cs->own)
		return false;
	*vp = cs->vp;
	*data = cs->pg.raw + UT_RB_PAGE_HDR;
	*start = cs->off;
	*end = cs->pg.end;
	return true;
}

void tfs_rr_resized_held(struct tfs_instance *inst, unsigned int cpu, uint64_t first)
{
	struct rr_cons *cs = rr_cons_of(inst, cpu);

	if (!cs)
		return;
	cs->vp = 0;
	cs->off = cs->idx = 0;
	cs->P = first;
	cs->lost = 0;
	cs->loaded = cs->own = cs->pend = false;
	if (cs->R) /* a resize keeps the reader page in use (ut_rb_reset_cpu held it back) */
		rr_reader_page_used(inst, cpu);
}

void tfs_rr_reset(struct tfs_instance *inst, int cpu)
{
	pthread_mutex_lock(&rr_lock);
	for (unsigned int c = 0; c < UT_RB_MAX_CPUS; c++)
		if (cpu < 0 || (unsigned int)cpu == c)
			tfs_rr_forget_held(inst, c);
	if (cpu < 0)
		__atomic_store_n(&inst->rr_time_start, tfs_clock_now(inst), __ATOMIC_RELAXED);
	pthread_mutex_unlock(&rr_lock);
}

uint64_t tfs_rr_time_start(const struct tfs_instance *inst)
{
	return __atomic_load_n(&inst->rr_time_start, __ATOMIC_RELAXED);
}

/* Forget the position when the ring was emptied behind our back (rr_lock held). */
static void rr_cons_check(struct rr_cons *cs, const struct rr_view *v)
{
	unsigned int d = rr_age(v, cs->vp), ne = rb_wpos_entries(v->w);

	if (d >= RR_HALF) {
		rr_cons_clear(cs);
	} else if (d == 0 && cs->idx > ne && cs->off > rb_wpos_off(v->w)) {
		/*
		 * tracing_thresh rewound the tail of the page being written over
		 * events we had already handed out: they are gone, and the next
		 * event written gets the number of the first one removed.
		 */
		cs->P -= cs->idx - ne;
		cs->idx = ne;
		cs->off = rb_wpos_off(v->w);
		cs->loaded = false;
	} else if (d == 0 && (cs->off > rb_wpos_off(v->w) || cs->idx > ne)) {
		rr_cons_clear(cs);
	}
}

/*
 * Let writers reuse the pages before the consumer's (no-overwrite mode; harmless
 * otherwise).  Done when the consumer takes (or passes over) an event of its page,
 * not when it merely used up the page before: as the kernel's reader page, a
 * page read to its end stays out of the writers' way until a read swaps the next
 * one in.
 */
static void rr_release(const struct rr_cons *cs, unsigned int cpu)
{
	__atomic_store_n(&ut_rb_cpu(cs->inst->area, cpu)->read_vpage, (uint64_t)cs->vp, __ATOMIC_RELEASE);
}

/*
 * Find the oldest valid page at or after `from` (a copy in pg).  RR_OK, or
 * RR_INVALID when none, RR_RACED when the writer overtook the copy.
 */
static int rr_first_page(const struct rr_view *v, unsigned int from, struct rr_page *pg)
{
	unsigned int vp = from;

	/* from is inside the window (nr pages up to V): at most nr copies */
	for (unsigned int i = 0; i < v->nr; i++, vp = (vp + 1) & (RB_VPAGE_MOD - 1)) {
		int r = rr_copy_page(v, vp, pg);

		if (r != RR_INVALID)
			return r;
		if (vp == v->V)
			break;
	}
	return RR_INVALID;
}

/*
 * The consumer is done with its page (read, bad or not numbered as expected):
 * what was not handed out counts as bad, and after a bad page the pages before
 * the next one are released (a read page stays until the next take: rr_release).
 */
static void rr_cons_next_page(struct rr_cons *cs, const struct rr_view *v)
{
	bool bad = cs->pg.entries > cs->idx;

	if (bad) {
		cs->bad += cs->pg.entries - cs->idx;
		cs->P += cs->pg.entries - cs->idx;
	}
	cs->vp = (cs->vp + 1) & (RB_VPAGE_MOD - 1);
	cs->off = cs->idx = 0;
	cs->loaded = cs->own = cs->pend = false;
	if (bad)
		rr_release(cs, v->cpu);
}

/* Some consumer waits for the writer to leave its page (rr_cons_settle). */
static bool rr_any_pend;

/*
 * Taking an event from a page of an overwrite ring takes the page out of the
 * writers' way, as the kernel swaps its head page out into the reader page when
 * a read finds its reader page used up: a finished page at once (its copy in
 * cs->pg becomes the reader page), the page being written once the writer has
 * left it.  Without overwrite the page stays in the ring: writers never begin it
 * before it is released (rb_cpu.read_vpage), which already counts it as the
 * kernel's reader page.  rr_lock held, cs->pg loaded.
 */
static void rr_cons_swap(struct rr_cons *cs, unsigned int cpu)
{
	struct rb_cpu *rc = ut_rb_cpu(cs->inst->area, cpu);

	if (cs->own || !(__atomic_load_n(&rc->flags, __ATOMIC_RELAXED) & RB_F_OVERWRITE))
		return;
	if (cs->pg.done) {
		cs->own = true;
		cs->pend = false;
	} else if (!cs->pend) {
		cs->pend = true;
		__atomic_store_n(&rr_any_pend, true, __ATOMIC_RELAXED);
	}
}

/*
 * The writer left the page a consumer waits on (pend): copy it out now, while
 * its slot still holds it.  A copy that comes too late (the writer reused the
 * slot) leaves the consumer reading the ring, as before the read.  rr_lock held.
 */
static void rr_cons_settle(struct rr_cons *cs, unsigned int cpu)
{
	struct rr_view v;

	if (!cs->pend || cs->own)
		return;
	if (!rr_view_read(cs->inst, cpu, &v) || !v.overwrite) {
		cs->pend = false;
		return;
	}
	rr_cons_check(cs, &v);
	if (!cs->pend || cs->vp == v.V)
		return; /* forgotten (reset), or still being written */
	cs->pend = false;
	if (rr_copy_page(&v, cs->vp, &cs->pg) != RR_OK ||
	    cs->pg.hdr.base_entries + cs->idx != cs->P) {
		cs->loaded = false;
		return;
	}
	cs->loaded = cs->own = true;
}

void tfs_rr_settle(void)
{
	if (!__atomic_load_n(&rr_any_pend, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&rr_lock);
	__atomic_store_n(&rr_any_pend, false, __ATOMIC_RELAXED);
	for (unsigned int slot = 0; slot < UT_INST_MAX; slot++) {
		struct tfs_instance *inst = tfs_inst_of_slot(slot);
		struct rr_cons *cons = inst ? inst->rr_cons : NULL; /* NULL once removed */

		for (unsigned int c = 0; cons && inst->area && c < tfs.nr_cpus; c++) {
			rr_cons_settle(&cons[c], c);
			if (cons[c].pend)
				__atomic_store_n(&rr_any_pend, true, __ATOMIC_RELAXED);
		}
	}
	pthread_mutex_unlock(&rr_lock);
}

/*
 * The event at the consumer's position, after passing over the discarded ones
 * (tracing_thresh removed them: never handed out, not counted as read).
 */
static const struct ut_ev *rr_cons_event(struct rr_cons *cs)
{
	const struct ut_ev *ev;

	while ((ev = rr_page_event(&cs->pg, cs->off)) && ev->type == UT_EV_DISCARD) {
		cs->off += ev->len;
		cs->idx++;
		cs->P++;
		cs->D++;
		rr_release(cs, cs->cpu);
	}
	return ev;
}

/*
 * Make cs->pg hold the page of the consumer's next event, with cs->off inside
 * it.  1: an event is there; 0: nothing to read now; < 0: error.
 */
static int rr_cons_load(struct tfs_instance *inst, struct rr_cons *cs, unsigned int cpu)
{
	/*
	 * Whatever the writers put in the ring, the work is bounded: every step
	 * either moves to a later page (at most nr of them are readable) or is
	 * one of RR_RETRIES races; the budget is never renewed inside the loop.
	 */
	unsigned int chases = 0;

	for (unsigned int steps = 0;; steps++) {
		struct rr_view v;
		unsigned int start;
		int r;

		if (cs->loaded && cs->off < cs->pg.end && rr_cons_event(cs))
			return 1;
		if (!rr_view_read(inst, cpu, &v))
			return 0;
		if (steps >= 2 * v.nr + RR_RETRIES)
			return 0;
		rr_cons_check(cs, &v);
		if (cs->own) {
			rr_cons_next_page(cs, &v); /* the reader page is used up */
			continue;
		}
		start = rr_window_start(&v);
		if (rr_age(&v, cs->vp) > rr_age(&v, start)) {
			/* the writers overwrote what we had not read yet */
			if (chases)
				start = rr_chase_start(&v, chases);
			r = rr_first_page(&v, start, &cs->pg);
			if (r == RR_OVERTAKEN)
				chases++;
			if (r == RR_RACED || r == RR_OVERTAKEN)
				continue;
			if (r == RR_INVALID)
				return 0;
			if (cs->pg.hdr.base_entries > cs->P)
				cs->lost += cs->pg.hdr.base_entries - cs->P;
			cs->P = cs->pg.hdr.base_entries;
			cs->vp = cs->pg.vpage;
			cs->off = cs->idx = 0;
		} else {
			r = rr_copy_page(&v, cs->vp, &cs->pg);
			if (r == RR_RACED || r == RR_OVERTAKEN)
				continue;
			if (r == RR_INVALID) {
				if (cs->vp == v.V)
					return 0; /* not started yet (fresh ring) */
				cs->vp = (cs->vp + 1) & (RB_VPAGE_MOD - 1);
				cs->off = cs->idx = 0;
				continue;
			}
			if (cs->pg.hdr.base_entries + cs->idx != cs->P) {
				/*
				 * Not numbered as the pages before it: a corrupt page (a
				 * reset is caught by rr_cons_check).  Skip it as bad and
				 * go on with its numbering.
				 */
				cs->P = cs->pg.hdr.base_entries + cs->idx;
				rr_cons_next_page(cs, &v);
				continue;
			}
		}
		cs->loaded = true;
		if (cs->off < cs->pg.end) {
			if (rr_cons_event(cs))
				return 1;
			if (cs->off >= cs->pg.end && cs->vp != v.V) {
				rr_cons_next_page(cs, &v); /* it ended with discards */
				continue;
			}
			if (cs->vp == v.V)
				return 0; /* a bad event in the page being written: wait for its end */
		} else if (cs->vp == v.V) {
			return 0;
		}
		/* page done (or bad) */
		rr_cons_next_page(cs, &v);
	}
}

static const struct ut_ev *rr_cons_peek(struct rr_cons *cs)
{
	return rr_page_event(&cs->pg, cs->off);
}

static void rr_cons_take(struct rr_cons *cs, const struct ut_ev *ev)
{
	rr_cons_swap(cs, cs->cpu);
	rr_release(cs, cs->cpu);
	cs->off += ev->len;
	cs->idx++;
	cs->P++;
	cs->R++;
	cs->lost = 0;
}

static bool cpu_selected(int filter, unsigned int cpu)
{
	return filter < 0 || (unsigned int)filter == cpu;
}

/*
 * Forget the page copies: a copy is used only within the call that made it, so
 * that statistics never count as lost an event a reader still holds.  A reader
 * page (own) is the exception: statistics count it (rr_scan).  Take out the
 * pages the writers have left meanwhile (rr_cons_settle).
 */
static void rr_cons_unload(struct tfs_instance *inst, int filter)
{
	for (unsigned int c = 0; c < tfs.nr_cpus; c++) {
		struct rr_cons *cs = rr_cons_of(inst, c);
		struct rr_view v;

		if (!cs || !cpu_selected(filter, c))
			continue;
		rr_cons_settle(cs, c);
		if (cs->own && rr_view_read(inst, c, &v))
			rr_cons_check(cs, &v); /* a reader page outlives no reset */
		if (!cs->own)
			cs->loaded = false;
	}
}

/* The CPU whose next event comes first (lowest CPU on ties); -1: none. rr_lock held. */
static int rr_cons_pick(struct tfs_instance *inst, int filter, int skip)
{
	uint64_t best_ts = 0;
	int best = -1;

	for (unsigned int c = 0; c < tfs.nr_cpus; c++) {
		struct rr_cons *cs;
		const struct ut_ev *ev;

		if (!cpu_selected(filter, c) || (int)c == skip)
			continue;
		cs = rr_cons_of(inst, c);
		if (!cs || rr_cons_load(inst, cs, c) != 1)
			continue;
		ev = rr_cons_peek(cs);
		if (best < 0 || ev->ts < best_ts) {
			best = (int)c;
			best_ts = ev->ts;
		}
	}
	return best;
}

/* What the consumer's peek_next/take_next work on (rr_lock held). */
struct rr_peek {
	struct tfs_instance *inst;
	struct rr_cons *cs;
	unsigned int cpu;
	const struct ut_ev *ev; /* the event being handed out */
	bool take;		/* take_next was called */
};

/*
 * The event after the one being handed out on the same CPU: in the page copy,
 * or else in a fresh copy of that page (the writer may have added events since)
 * or of the next one.  Only a look: take_next checks it is still there.
 */
static const struct ut_ev *rr_cons_peek_next(struct tfs_iter *it)
{
	static struct rr_page pk_pg; /* rr_lock held */
	struct rr_peek *pk = it->rd;
	struct rr_cons *cs = pk->cs;
	unsigned int off = cs->off + pk->ev->len, vp = cs->vp;
	const struct ut_ev *ev;
	struct rr_view v;

	while ((ev = rr_page_event(&cs->pg, off)) && ev->type == UT_EV_DISCARD)
		off += ev->len;
	if (ev)
		return ev;
	if (off < cs->pg.end || !rr_view_read(pk->inst, pk->cpu, &v))
		return NULL;
	if (rr_age(&v, vp) >= v.nr)
		return NULL;
	if (vp != v.V || cs->pg.hdr.commit) {
		vp = (vp + 1) & (RB_VPAGE_MOD - 1);
		off = 0;
	}
	if (rr_age(&v, vp) >= RR_HALF || rr_copy_page(&v, vp, &pk_pg) != RR_OK)
		return NULL;
	while ((ev = rr_page_event(&pk_pg, off)) && ev->type == UT_EV_DISCARD)
		off += ev->len;
	return ev;
}

static void rr_cons_take_next(struct tfs_iter *it)
{
	((struct rr_peek *)it->rd)->take = true;
}

long tfs_rr_consume(struct tfs_instance *inst, int cpu, struct tfs_iter *it, long max,
		    tfs_rr_fn fn, void *arg)
{
	struct rr_peek pk;
	long n = 0;

	if (!inst->area)
		return 0;
	it->inst = inst;
	pthread_mutex_lock(&rr_lock);
	rr_cons_unload(inst, cpu);
	while (n < max) {
		int c = rr_cons_pick(inst, cpu, -1);
		struct rr_cons *cs;
		const struct ut_ev *ev;
		struct tfs_event e;
		int r;

		if (c < 0)
			break;
		cs = rr_cons_of(inst, (unsigned int)c);
		ev = rr_cons_peek(cs);
		e.ev = ev;
		e.cpu = (unsigned int)c;
		e.ts = tfs_clock_from_tsc(inst, ev->ts);
		it->cpu = e.cpu;
		it->lost = cs->lost;
		it->idx++;
		it->next_ts = e.ts;
		pk = (struct rr_peek){.inst = inst, .cs = cs, .cpu = e.cpu, .ev = ev};
		it->rd = &pk;
		it->peek_next = rr_cons_peek_next;
		it->take_next = rr_cons_take_next;
		if (it->lat_fmt) {
			/*
			 * The kernel peeks at the following event for the delay mark:
			 * the next one in this CPU's page copy, or another CPU's first.
			 */
			const struct ut_ev *nx = rr_page_event(&cs->pg, cs->off + ev->len);
			uint64_t best = nx ? nx->ts : UINT64_MAX;
			int c2 = rr_cons_pick(inst, cpu, c);

			if (c2 >= 0 && rr_cons_peek(rr_cons_of(inst, c2))->ts < best)
				best = rr_cons_peek(rr_cons_of(inst, c2))->ts;
			if (best != UINT64_MAX)
				it->next_ts = tfs_clock_from_tsc(inst, best);
		}
		r = fn(it, &e, arg);
		it->peek_next = NULL;
		it->take_next = NULL;
		it->rd = NULL;
		if (r) {
			it->idx--;
			if (r < 0 && n == 0)
				n = r;
			break;
		}
		if (pk.take) {
			/* the leaf's exit, shown with its entry: consumed with it */
			struct ut_ev h = *ev;
			const struct ut_ev *nx;

			rr_cons_take(cs, ev);
			rr_reader_page_used(inst, (unsigned int)c);
			n++;
			if (rr_cons_load(inst, cs, (unsigned int)c) == 1 && (nx = rr_cons_peek(cs)) &&
			    nx->tid == h.tid && nx->type == UT_EV_GRAPH_RET && nx->ts >= h.ts) {
				rr_cons_take(cs, nx);
				n++;
			}
			continue;
		}
		rr_cons_take(cs, ev);
		rr_reader_page_used(inst, (unsigned int)c);
		n++;
	}
	pthread_mutex_unlock(&rr_lock);
	return n;
}

bool tfs_rr_ready(struct tfs_instance *inst, int cpu)
{
	bool ready;

	if (!inst->area)
		return false;
	pthread_mutex_lock(&rr_lock);
	rr_cons_unload(inst, cpu);
	ready = rr_cons_pick(inst, cpu, -1) >= 0;
	pthread_mutex_unlock(&rr_lock);
	return ready;
}

/* ---- scans: statistics and snapshots --------------------------------------------------------- */

struct snap_cpu {
	unsigned char *data;
	size_t len, cap, pos;
	bool dropped; /* the walk was overtaken: events before the first are lost */
};

struct tfs_snap {
	struct tfs_instance *inst;
	unsigned int nr_cpus;
	unsigned long idx;
	bool empty;
	struct snap_cpu c[];
};

static int snap_append(struct snap_cpu *sc, const struct ut_ev *ev)
{
	if (sc->len + ev->len > sc->cap) {
		size_t cap = sc->cap ? sc->cap * 2 : 65536;
		unsigned char *p;

		while (cap < sc->len + ev->len)
			cap *= 2;
		p = realloc(sc->data, cap);
		if (!p)
			return -ENOMEM;
		sc->data = p;
		sc->cap = cap;
	}
	memcpy(sc->data + sc->len, ev, ev->len);
	sc->len += ev->len;
	return 0;
}

/*
 * Count (and copy into sc) the events of pg from byte off, event idx on; false
 * on ENOMEM.  A bad event ends the page: the rest count as bad.
 */
static bool rr_scan_page(const struct rr_page *pg, unsigned int off, unsigned int idx,
			 struct tfs_cpu_stats *st, struct snap_cpu *sc)
{
	while (idx < pg->entries) {
		const struct ut_ev *ev = rr_page_event(pg, off);

		if (!ev) {
			st->bad += pg->entries - idx;
			break;
		}
		if (ev->type == UT_EV_DISCARD) {
			st->discarded++;
		} else {
			st->bytes += tfs_kfmt_size(ev);
			if (sc && snap_append(sc, ev))
				return false;
		}
		off += ev->len;
		idx++;
	}
	return true;
}

/*
 * Walk every readable, unconsumed event of cpu (rr_lock held): fill st and, when
 * sc is given, copy the events into it.  Retries when a writer overtook a copy.
 * The consumer's reader page (own) comes first; the events overwritten between
 * it and the oldest page of the ring count as overrun.  With spare, the snapshot
 * buffer is walked instead, which has no consumer.
 */
static int rr_scan(struct tfs_instance *inst, unsigned int cpu, struct tfs_cpu_stats *st,
		   struct snap_cpu *sc, bool spare)
{
	static struct rr_page pg; /* rr_lock held */
	static struct rr_cons none;
	struct rr_cons *cs = spare ? &none : rr_cons_of(inst, cpu);

	if (!cs)
		return -ENOMEM;
	if (spare) {
		rr_cons_clear(&none);
		none.inst = inst;
	}
	rr_cons_settle(cs, cpu);
	for (int tries = 0, chases = 0;; tries++) {
		struct rr_view v;
		unsigned int start, vp;
		bool first_found = false, raced = false, overtaken = false;
		uint64_t first = 0, last_base = 0, own_end = 0, gap = 0;
		unsigned int last_entries = 0;

		memset(st, 0, sizeof(*st));
		if (sc)
			sc->len = 0;
		/* (st->discarded counts the readable ones again on each try) */
		st->read = cs->R;
		st->bad = cs->bad;
		if (!rr_view_read_buf(inst, cpu, &v, spare)) {
			/* corrupt (or being resized): nothing readable, as the kernel never fails */
			st->oldest_tsc = cs->last_oldest;
			return 0;
		}
		rr_cons_check(cs, &v);
		st->dropped = __atomic_load_n(&v.rc->dropped, __ATOMIC_RELAXED);
		start = chases ? rr_chase_start(&v, (unsigned int)chases) : rr_window_start(&v);
		if (cs->own) {
			unsigned int next = (cs->vp + 1) & (RB_VPAGE_MOD - 1);

			if (!rr_scan_page(&cs->pg, cs->off, cs->idx, st, sc))
				return -ENOMEM;
			own_end = cs->pg.hdr.base_entries + cs->pg.entries;
			if (rr_age(&v, next) <= rr_age(&v, start))
				start = next;
		} else if (rr_age(&v, cs->vp) <= rr_age(&v, start)) {
			start = cs->vp;
		}
		for (vp = start;; vp = (vp + 1) & (RB_VPAGE_MOD - 1)) {
			int r = rr_copy_page(&v, vp, &pg);
			unsigned int off = 0, idx = 0;

			if (r == RR_RACED) {
				raced = true;
				break;
			}
			if (r == RR_OVERTAKEN) {
				/*
				 * Walk again from further ahead (the walk stays one run of
				 * consecutive events); after RR_CHASES of them, keep what
				 * was read before this page.
				 */
				overtaken = chases < RR_CHASES;
				break;
			}
			if (r == RR_OK) {
				if (vp == cs->vp && pg.hdr.base_entries + cs->idx == cs->P) {
					off = cs->off;
					idx = cs->idx;
				}
				if (!first_found) {
					first_found = true;
					first = pg.hdr.base_entries + idx;
					/* a page written before the copy cannot be from the future */
					if (pg.hdr.time_stamp <= tfs_clock_tsc())
						st->oldest_tsc = pg.hdr.time_stamp;
				}
				last_base = pg.hdr.base_entries;
				last_entries = pg.entries;
				if (!rr_scan_page(&pg, off, idx, st, sc))
					return -ENOMEM;
			}
			if (vp == v.V)
				break;
		}
		if (raced && tries < RR_RETRIES)
			continue;
		if (overtaken) {
			chases++;
			tries--; /* not a race: bounded by RR_CHASES */
			continue;
		}
		if (sc && chases)
			sc->dropped = true;
		st->written = last_base + last_entries;
		if (cs->own && st->written < own_end)
			st->written = own_end;
		if (!first_found || first > st->written)
			first = st->written;
		if (cs->own) {
			gap = first > own_end ? first - own_end : 0;
			first = cs->P;
		}
		/* discarded events are neither entries nor overruns (only those still readable are known) */
		st->entries = st->written - first - gap;
		st->entries = st->entries > st->discarded ? st->entries - st->discarded : 0;
		st->overrun = first + gap > st->read + cs->D ? first + gap - st->read - cs->D : 0;
		if (!first_found && rb_wpos_entries(v.w) == 0)
			st->oldest_tsc = 0;
		if (st->oldest_tsc)
			cs->last_oldest = st->oldest_tsc;
		else
			st->oldest_tsc = cs->last_oldest;
		return 0;
	}
}

long tfs_rr_spare_consume(struct tfs_instance *inst, unsigned int cpu, struct tfs_iter *it,
			  long max, tfs_rr_fn fn, void *arg)
{
	static struct rr_page pg; /* rr_lock held */
	struct rr_view v;
	long n = 0;
	int r = 0;

	it->inst = inst;
	pthread_mutex_lock(&rr_lock);
	if (!rr_view_read_buf(inst, cpu, &v, true))
		goto out;
	for (unsigned int vp = rr_window_start(&v); n < max; vp = (vp + 1) & (RB_VPAGE_MOD - 1)) {
		unsigned int slot = (v.slot + v.nr - rr_age(&v, vp)) % v.nr, off = 0;
		unsigned char *live = (unsigned char *)ut_rb_page(v.area, cpu, slot) + UT_RB_PAGE_HDR;
		bool ok = rr_copy_page(&v, vp, &pg) == RR_OK;

		for (unsigned int i = 0; ok && i < pg.entries && n < max; i++) {
			const struct ut_ev *ev = rr_page_event(&pg, off);
			struct tfs_event e = {.ev = ev, .cpu = cpu};

			if (!ev)
				break;
			off += ev->len;
			if (ev->type == UT_EV_DISCARD)
				continue;
			e.ts = tfs_clock_from_tsc(inst, ev->ts);
			it->cpu = cpu;
			it->lost = 0;
			it->idx++;
			it->next_ts = e.ts;
			r = fn(it, &e, arg);
			if (r)
				goto out;
			/* consumed: nobody writes the copy, the event becomes a discarded one */
			((struct ut_ev *)(live + off - ev->len))->type = UT_EV_DISCARD;
			n++;
		}
		if (vp == v.V)
			break;
	}
out:
	pthread_mutex_unlock(&rr_lock);
	return n ? n : (r < 0 ? r : 0);
}

int tfs_rr_stats(struct tfs_instance *inst, unsigned int cpu, struct tfs_cpu_stats *st)
{
	int err;

	memset(st, 0, sizeof(*st));
	if (!inst->area || cpu >= tfs.nr_cpus)
		return -EINVAL;
	pthread_mutex_lock(&rr_lock);
	err = rr_scan(inst, cpu, st, NULL, false);
	pthread_mutex_unlock(&rr_lock);
	return err;
}

struct tfs_snap *tfs_snap_take(struct tfs_instance *inst, int cpu, struct tfs_iter *it)
{
	unsigned int n = inst->area ? tfs.nr_cpus : 0;
	struct tfs_snap *s = calloc(1, sizeof(*s) + n * sizeof(s->c[0]));
	bool overruns = false;

	if (!s)
		return NULL;
	it->inst = inst;
	s->inst = inst;
	s->nr_cpus = n;
	s->empty = true;
	it->entries = it->total = 0;
	pthread_mutex_lock(&rr_lock);
	for (unsigned int c = 0; c < n; c++) {
		struct tfs_cpu_stats st;

		/* the header counts every CPU, even in a per_cpu file (as the kernel) */
		if (rr_scan(inst, c, &st, cpu_selected(cpu, c) ? &s->c[c] : NULL, it->spare) ==
		    -ENOMEM) {
			pthread_mutex_unlock(&rr_lock);
			tfs_snap_free(s);
			return NULL;
		}
		it->entries += st.entries;
		it->total += st.entries + st.overrun;
		if (st.overrun)
			overruns = true;
		if (s->c[c].len)
			s->empty = false;
	}
	pthread_mutex_unlock(&rr_lock);
	it->annotate = overruns;
	it->time_start = tfs_rr_time_start(inst);
	return s;
}

void tfs_snap_free(struct tfs_snap *s)
{
	if (!s)
		return;
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		free(s->c[c].data);
	free(s);
}

void tfs_snap_rewind(struct tfs_snap *s)
{
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		s->c[c].pos = 0;
	s->idx = 0;
}

bool tfs_snap_empty(const struct tfs_snap *s)
{
	return s->empty;
}

static int snap_pick(const struct tfs_snap *s)
{
	uint64_t best_ts = 0;
	int best = -1;

	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		const struct snap_cpu *sc = &s->c[c];
		const struct ut_ev *ev;

		if (sc->pos >= sc->len)
			continue;
		ev = (const struct ut_ev *)(sc->data + sc->pos);
		if (best < 0 || ev->ts < best_ts) {
			best = (int)c;
			best_ts = ev->ts;
		}
	}
	return best;
}

/* The snapshot's peek_next/take_next: the next copied event of it->cpu. */
static const struct ut_ev *snap_peek_next(struct tfs_iter *it)
{
	struct tfs_snap *s = it->rd;
	struct snap_cpu *sc = &s->c[it->cpu];

	if (sc->pos >= sc->len)
		return NULL;
	return (const struct ut_ev *)(sc->data + sc->pos);
}

static void snap_take_next(struct tfs_iter *it)
{
	struct tfs_snap *s = it->rd;
	struct snap_cpu *sc = &s->c[it->cpu];

	if (sc->pos < sc->len)
		sc->pos += ((const struct ut_ev *)(sc->data + sc->pos))->len;
}

void tfs_iter_release(struct tfs_iter *it)
{
	if (it->priv && it->priv_free)
		it->priv_free(it->priv);
	it->priv = NULL;
	it->priv_free = NULL;
}

bool tfs_snap_next(struct tfs_snap *s, struct tfs_iter *it, struct tfs_event *e)
{
	int c = snap_pick(s), c2;
	struct snap_cpu *sc;

	if (c < 0)
		return false;
	sc = &s->c[c];
	e->ev = (const struct ut_ev *)(sc->data + sc->pos);
	e->cpu = (unsigned int)c;
	e->ts = tfs_clock_from_tsc(s->inst, e->ev->ts);
	/* before the CPU's first event, at each walk of the snapshot */
	it->lost = sc->dropped && sc->pos == 0 ? TFS_LOST_UNKNOWN : 0;
	sc->pos += e->ev->len;
	it->cpu = e->cpu;
	it->idx = ++s->idx;
	it->rd = s;
	it->peek_next = snap_peek_next;
	it->take_next = snap_take_next;
	it->next_ts = e->ts;
	c2 = snap_pick(s);
	if (c2 >= 0)
		it->next_ts = tfs_clock_from_tsc(
			s->inst, ((const struct ut_ev *)(s->c[c2].data + s->c[c2].pos))->ts);
	return true;
}

// SPDX-License-Identifier: MIT
/*
 * area.c - the shared tracing area (one memfd: for each instance slot a span of
 * control page, per-CPU writer state and rings) and every change utracefs makes
 * to writer state.
 *
 * The control page is a memfd of its own, mapped over the area's first page (so
 * that both keep one layout, ut_ring.h) and sealed with F_SEAL_FUTURE_WRITE once
 * utracefs has mapped it: no process can map it writable or write it, whatever
 * descriptor it holds, so no process can stop tracing for the others through it.
 * The rest stays writable by every process (writers), and is validated wherever
 * utracefs or a writer reads it; a reset rewrites a CPU's writer state from our
 * own copies (ut_rb_reset_cpu).
 *
 * Writers never take a lock (but see below), so utracefs changes a CPU's ring only
 * in the way ut_ring.h prescribes: enabled = 0, a CPU barrier (this thread runs on
 * that CPU once, which aborts or completes any rseq write sequence that was in
 * flight there), the change, then enabled = 1 if the CPU is in tracing_cpumask.
 * In the locked write mode (a kernel without rseq, chosen here at start) writers
 * hold the ring's lock word instead, and the barrier takes and drops that lock.  The
 * changes are serialised among themselves by area_lock; tfs.lock is not taken
 * here, so callers may hold it.
 *
 * Instances: the memfd holds one span per instance slot (ut_ring.h), each laid
 * out as the top's, and the control memfd one page per slot, each mapped over its
 * span's first page.  Every function here acts on the instance it is given; an
 * instance's span is set up when it is made (tfs_area_inst_init) and its memory
 * punched out when it goes (tfs_area_inst_release), after enabled = 0 and the
 * CPU barrier, as a reset does.  A resize keeps the newest events that fit, as
 * the kernel does: it copies them out while the writers are off, resets the ring
 * with its new size and writes them back (ring_resize_locked).
 *
 * Writers never notify anybody either: a kicker thread looks at every CPU's
 * wpos and dropped counter every TFS_KICK_MS and wakes blocked trace_pipe
 * readers and pollers when something moved.  In the locked mode it also frees
 * the lock of a ring that did not move while a gone holder (dead, reused tid,
 * forged word) held it, so that no ring stays locked for want of a writer.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "output/output.h"
#include "ring_read.h"
#include "settings.h"
#include "tfs.h"
#include "ut_ring_write.h"
#include "ut_sel.h"

#define TFS_KICK_MS 20
#define TFS_SWAP_HOLD_MAX_PAGES 16384u /* 64 MiB a CPU: a snapshot swap's hold copies that much */

static pthread_mutex_t area_lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * The spans in use (area_lock): set up by tfs_area_inst_init, punched out by
 * tfs_area_inst_release.  Only these are looked at by the kicker: reading a
 * punched page of the memfd would give it memory again.
 */
static bool span_on[UT_INST_MAX];

/* Reader wake-ups: a sequence number bumped by every kick. */
static pthread_mutex_t kick_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t kick_cond;
static uint64_t kick_seq;

static pthread_t kicker;
static bool kicker_running;
static bool kicker_stop; /* __atomic: the kicker thread polls it */

/*
 * A request of K kernel pages gets what the kernel allocates for it: K pages
 * plus its reader page, page for page (ours hold 4064 bytes, the kernel's 4080).
 * So a full buffer holds as many pages as the kernel's: in overwrite mode the
 * page being written and the K - 1 before it (ut_ring.h: the next one may be
 * being overwritten); without overwrite K pages until the first consuming read
 * and K + 1 after it (rb_cpu.held, ut_ring.h), as the kernel's reader page.
 */
unsigned int tfs_kpages_to_rb_pages(unsigned int nr_kpages)
{
	uint64_t pages = (uint64_t)nr_kpages + 1;

	if (pages < 3)
		pages = 3;
	if (pages > UT_RB_MAX_PAGES)
		pages = UT_RB_MAX_PAGES;
	return (unsigned int)pages;
}

static bool cpu_in_mask(const struct tfs_instance *inst, unsigned int cpu)
{
	return inst->cpumask[cpu / 64] >> (cpu % 64) & 1;
}

static unsigned int ring_flags(const struct tfs_instance *inst)
{
	return tfs_opt(inst, TFS_OPT_OVERWRITE) ? RB_F_OVERWRITE : 0;
}

/*
 * The write mode, kept here: utracefs never reads its own settings back from the
 * shared memory (a page any process could write once; keep it that way).
 */
static uint32_t write_mode = UT_CTL_WRITE_RSEQ;

static void set_enabled(struct tfs_instance *inst, unsigned int cpu, uint32_t on)
{
	__atomic_store_n(&ut_rb_cpu(inst->area, cpu)->enabled, on, __ATOMIC_SEQ_CST);
}

void tfs_area_set_write_mode(uint32_t mode)
{
	write_mode = mode;
}

/* Whether cpu is offline (no writer can be inside a sequence there). */
static bool cpu_offline(unsigned int cpu)
{
	char path[64], c = '1';
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", cpu);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fread(&c, 1, 1, f) != 1)
		c = '1';
	fclose(f);
	return c == '0';
}

/*
 * The first half of a change of cpu's writer state (enabled already 0): after it
 * no writer is inside a write on that ring, or will be before barrier_end.
 *   rseq mode: this thread runs on cpu once, which aborts or completes whatever
 *   sequence was in flight there.  Where it may not run there (a cpuset) nothing
 *   can be known about the writers there: -EBUSY, the change must not be made.
 *   locked mode: take the ring's lock and keep it until barrier_end, so that a
 *   holder cannot commit into the changed ring.  A holder that keeps it past
 *   UT_RB_LOCK_GIVEUP_MS (stopped) gets -EBUSY; a gone one (dead, reused tid,
 *   forged word) is stolen from.
 */
static int barrier_begin(struct tfs_instance *inst, unsigned int cpu)
{
	cpu_set_t old, one;

	if (write_mode == UT_CTL_WRITE_LOCKED)
		return ut_rb_lock(inst->area, cpu) == 0 ? 0 : -EBUSY;
	if (pthread_getaffinity_np(pthread_self(), sizeof(old), &old))
		return -EBUSY;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	/* setting the affinity migrates this thread before it returns */
	if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0)
		return cpu_offline(cpu) ? 0 : -EBUSY;
	sched_yield();
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	return 0;
}

static void barrier_end(struct tfs_instance *inst, unsigned int cpu)
{
	if (write_mode == UT_CTL_WRITE_LOCKED)
		ut_rb_unlock(inst->area, cpu);
}

int tfs_cpu_barrier(struct tfs_instance *inst, unsigned int cpu)
{
	int err = barrier_begin(inst, cpu);

	if (!err)
		barrier_end(inst, cpu);
	return err;
}

/*
 * Give back the memory of the pages past the ring's end: after a shrink or
 * free_buffer, or pages a misbehaving process touched beyond the ring.
 */
static void ring_release_tail(struct tfs_instance *inst, unsigned int cpu, unsigned int nr_pages)
{
	off_t start = (off_t)((char *)ut_rb_page(inst->area, cpu, nr_pages) - (char *)tfs.area);
	off_t len = (off_t)(UT_RB_MAX_PAGES - nr_pages) * UT_RB_PAGE_SIZE;

	if (nr_pages < UT_RB_MAX_PAGES)
		fallocate(tfs.area_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, start, len);
}

/* Allocate the first nr_pages pages of cpu's part of the snapshot buffer now. */
static void spare_populate(struct tfs_instance *inst, unsigned int cpu, unsigned int nr_pages)
{
	void *p = ut_rb_page(inst->spare, cpu, 0);

#ifdef MADV_POPULATE_WRITE
	if (madvise(p, (size_t)nr_pages * UT_RB_PAGE_SIZE, MADV_POPULATE_WRITE) == 0)
		return;
#endif
	for (size_t off = 0; off < (size_t)nr_pages * UT_RB_PAGE_SIZE; off += UT_RB_PAGE_SIZE)
		__atomic_fetch_add((char *)p + off, 0, __ATOMIC_RELAXED); /* a write fault each */
}

/*
 * Make the snapshot buffer's part for cpu ready for a swap with a ring of nr_pages
 * pages; readers held.  A copy of that size stays (it goes back into the ring);
 * another goes.  The pages the swap will write are allocated now (populated), so
 * that the swap itself never waits for memory.
 */
static void spare_prepare_held(struct tfs_instance *inst, unsigned int cpu, unsigned int nr_pages)
{
	void *p = ut_rb_page(inst->spare, cpu, 0);

	if (inst->spare_pages[cpu] == nr_pages)
		return; /* populated when it was made */
	if (inst->spare_pages[cpu])
		madvise(p, (size_t)inst->spare_pages[cpu] * UT_RB_PAGE_SIZE, MADV_DONTNEED);
	inst->spare_pages[cpu] = 0;
	spare_populate(inst, cpu, nr_pages);
}

/*
 * Copy cpu's ring (writer state and the pages written since its last reset) into
 * the snapshot buffer; no writer can be inside a write there, readers held.
 * What was committed is all there; what a writer had begun and not committed is
 * beyond the copied wpos, as it was beyond the ring's.  The copy's page count is
 * the ring's: the snapshot follows the main buffer's size, as the kernel's.
 */
static void spare_copy_held(struct tfs_instance *inst, unsigned int cpu, unsigned int nr_pages)
{
	const struct rb_cpu *rc = ut_rb_cpu(inst->area, cpu);
	unsigned int used = rb_wpos_vpage(rc->wpos) < nr_pages ? rb_wpos_vpage(rc->wpos) + 1 : nr_pages;

	memcpy(ut_rb_cpu(inst->spare, cpu), rc, sizeof(*rc));
	memcpy(ut_rb_page(inst->spare, cpu, 0), ut_rb_page(inst->area, cpu, 0),
	       (size_t)used * UT_RB_PAGE_SIZE);
	inst->spare_pages[cpu] = nr_pages;
}

/*
 * Exchange cpu's ring with the snapshot's copy of the same size (no writer can be
 * inside a write there, readers held), as the kernel swaps its two buffers: the
 * snapshot takes the ring's events and writer state, the ring the snapshot's, on
 * which writers go on.  Page by page through a page of this thread's stack (the
 * hold may not wait for memory).  The ring keeps utracefs's own settings (page
 * count, mode) and a new generation: wpos moves, maybe back (ut_ring.h).
 */
static void spare_exchange_held(struct tfs_instance *inst, unsigned int cpu, unsigned int nr_pages)
{
	struct rb_cpu *rc = ut_rb_cpu(inst->area, cpu), *sc = ut_rb_cpu(inst->spare, cpu);
	struct rb_cpu old = *sc;
	unsigned int used = rb_wpos_vpage(rc->wpos) < nr_pages ? rb_wpos_vpage(rc->wpos) + 1 : nr_pages;
	unsigned char page[UT_RB_PAGE_SIZE];

	if (rb_wpos_vpage(old.wpos) >= used)
		used = rb_wpos_vpage(old.wpos) < nr_pages ? rb_wpos_vpage(old.wpos) + 1 : nr_pages;
	for (unsigned int s = 0; s < used; s++) {
		memcpy(page, ut_rb_page(inst->spare, cpu, s), UT_RB_PAGE_SIZE);
		memcpy(ut_rb_page(inst->spare, cpu, s), ut_rb_page(inst->area, cpu, s), UT_RB_PAGE_SIZE);
		memcpy(ut_rb_page(inst->area, cpu, s), page, UT_RB_PAGE_SIZE);
	}
	*sc = *rc;
	/* single stores, as ut_rb_reset_cpu's: the kicker and readers load meanwhile */
	__atomic_store_n(&rc->nr_pages, nr_pages, __ATOMIC_RELAXED);
	__atomic_store_n(&rc->flags, ring_flags(inst), __ATOMIC_RELAXED);
	__atomic_store_n(&rc->dropped, old.dropped, __ATOMIC_RELAXED);
	__atomic_store_n(&rc->read_vpage, old.read_vpage, __ATOMIC_RELAXED);
	__atomic_store_n(&rc->held, 1, __ATOMIC_RELAXED); /* no consumer read it: as a reset */
	__atomic_store_n(&rc->gen, (rc->gen > old.gen ? rc->gen : old.gen) + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&rc->wpos, old.wpos, __ATOMIC_RELAXED);
}

/*
 * The swap's change of cpu's ring, writers kept out and readers held: exchange
 * with the snapshot's copy when it has the ring's size (the kernel's swap gives
 * the buffer the previous snapshot back); otherwise (none yet, cleared, or of
 * another size) copy the ring into the snapshot and empty it.  The snapshot's
 * part is ready for either (spare_prepare_held).
 */
static void spare_swap_held(struct tfs_instance *inst, unsigned int cpu, unsigned int nr_pages)
{
	if (inst->spare_pages[cpu] == nr_pages) {
		spare_exchange_held(inst, cpu, nr_pages);
		return;
	}
	spare_copy_held(inst, cpu, nr_pages);
	ut_rb_reset_cpu(inst->area, cpu, nr_pages, ring_flags(inst));
}

/*
 * Reset one CPU with the given page count; area_lock held.  With swap, the ring's
 * events go into the snapshot instead (spare_swap_held) in the same critical
 * section (the fallback of ring_swap_locked).  Its consumer forgets its position in the same
 * critical section.  0, or -EBUSY (barrier_begin): nothing changed.
 */
static int ring_reset_copy_locked(struct tfs_instance *inst, unsigned int cpu,
				  unsigned int nr_pages, bool swap)
{
	struct rb_cpu *rc = ut_rb_cpu(inst->area, cpu);
	uint32_t was = rc->enabled;
	int err;

	/* locked writers wait for the ring's lock (the barrier) rather than drop events */
	if (!swap || write_mode != UT_CTL_WRITE_LOCKED)
		set_enabled(inst, cpu, 0);
	err = barrier_begin(inst, cpu);
	if (err) {
		set_enabled(inst, cpu, was);
		return err;
	}
	tfs_rr_hold();
	if (swap)
		spare_swap_held(inst, cpu, nr_pages);
	else
		ut_rb_reset_cpu(inst->area, cpu, nr_pages, ring_flags(inst));
	tfs_rr_forget_held(inst, cpu);
	tfs_rr_unhold();
	ring_release_tail(inst, cpu, nr_pages);
	barrier_end(inst, cpu);
	set_enabled(inst, cpu, cpu_in_mask(inst, cpu));
	return 0;
}

static int ring_reset_locked(struct tfs_instance *inst, unsigned int cpu, unsigned int nr_pages)
{
	return ring_reset_copy_locked(inst, cpu, nr_pages, false);
}

/*
 * The swap's hold of a CPU (rseq mode): this thread runs on cpu at the highest
 * SCHED_FIFO priority and neither blocks nor sleeps until cpu_hold_end, so no
 * other thread - no writer - runs there meanwhile: one that was inside a write
 * sequence was preempted (its sequence aborts when it runs again, and starts over
 * in the emptied ring) and none begins one.  Unlike the barrier, writers are never
 * turned away (enabled stays set), so the swap loses no event: each is in the
 * copy or in the emptied ring.  false when it cannot be had (no CAP_SYS_NICE, a
 * cpuset, the locked write mode): ring_reset_copy_locked is the fallback.
 */
struct cpu_hold {
	cpu_set_t old;
	int policy;
	struct sched_param prio;
};

static void cpu_hold_end(struct cpu_hold *h)
{
	pthread_setschedparam(pthread_self(), h->policy, &h->prio);
	pthread_setaffinity_np(pthread_self(), sizeof(h->old), &h->old);
}

static bool cpu_hold_begin(unsigned int cpu, struct cpu_hold *h)
{
	struct sched_param rt = {.sched_priority = sched_get_priority_max(SCHED_FIFO)};
	cpu_set_t one;

	if (write_mode == UT_CTL_WRITE_LOCKED ||
	    pthread_getaffinity_np(pthread_self(), sizeof(h->old), &h->old) ||
	    pthread_getschedparam(pthread_self(), &h->policy, &h->prio) ||
	    pthread_setschedparam(pthread_self(), SCHED_FIFO, &rt))
		return false;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	/* setting the affinity migrates this thread before it returns */
	if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) == 0 &&
	    sched_getcpu() == (int)cpu)
		return true;
	cpu_hold_end(h);
	return false;
}

/*
 * Swap one CPU: copy its ring into the snapshot buffer and empty it, with the CPU
 * held (cpu_hold_begin), else with its writers stopped as for a reset; area_lock
 * held.  0 or -EBUSY (nothing changed).
 */
static int ring_swap_locked(struct tfs_instance *inst, unsigned int cpu, unsigned int nr_pages)
{
	struct cpu_hold h;

	tfs_rr_hold(); /* taken before the hold: nothing in it may wait */
	spare_prepare_held(inst, cpu, nr_pages);
	/*
	 * The hold copies the ring in one go: bounded, so that it stays well within
	 * the real-time share the kernel grants (sched_rt_runtime_us) and a CPU's
	 * writers wait milliseconds at most; a bigger ring takes the fallback.
	 */
	if (nr_pages > TFS_SWAP_HOLD_MAX_PAGES || !cpu_hold_begin(cpu, &h)) {
		tfs_rr_unhold();
		return ring_reset_copy_locked(inst, cpu, nr_pages, true);
	}
	spare_swap_held(inst, cpu, nr_pages);
	set_enabled(inst, cpu, cpu_in_mask(inst, cpu));
	cpu_hold_end(&h);
	tfs_rr_forget_held(inst, cpu);
	tfs_rr_unhold();
	ring_release_tail(inst, cpu, nr_pages);
	return 0;
}

/*
 * What a resize keeps: copies of the newest readable pages' events (writers
 * disabled), newest page first, and the counters that must survive.
 */
struct ring_keep {
	unsigned char (*data)[UT_RB_PAGE_DATA];
	unsigned int *start; /* the first byte kept of each copied page (consumed before) */
	unsigned int *end;   /* committed bytes of each copied page */
	unsigned int nr;   /* pages copied */
	uint64_t written;  /* events ever committed on the CPU */
	uint64_t dropped;
};

/*
 * The pages kept reach the consumer's position: its reader page, out of the
 * ring since a consuming read took it (ring_read.c), goes before them when it
 * joins them (the page right after it was kept) and is not used up.
 */
static void save_reader_page(struct tfs_instance *inst, unsigned int cpu, unsigned int next,
			     struct ring_keep *k, bool room)
{
	const unsigned char *data;
	unsigned int vp, start, end;

	if (!room || !tfs_rr_reader_page_held(inst, cpu, &vp, &data, &start, &end) ||
	    ((vp + 1) & (RB_VPAGE_MOD - 1)) != next || start >= end)
		return;
	k->start[k->nr] = start;
	k->end[k->nr] = end;
	memcpy(k->data[k->nr++], data, end);
}

/*
 * Copy the newest readable pages of cpu's ring in area (inst's, or its snapshot
 * buffer, which has no consumer) (writers disabled: nothing moves), enough
 * to fill a ring of new_nr pages, following ut_ring.h: the window is the last
 * nr - 1 pages (overwrite) or starts at read_vpage (no-overwrite), as the reader
 * sees it, and nothing the consumer has taken already (readers held) is kept.
 * Every header is checked: the walk stops at the first page that does not hold
 * what it should (events are checked when they are written back).  0 or -ENOMEM.
 */
static int ring_save(struct tfs_instance *inst, void *area, unsigned int cpu, unsigned int new_nr,
		     struct ring_keep *k)
{
	unsigned int cvp = 0, coff = 0;
	/* the snapshot buffer has no consumer */
	bool consumed = area == inst->area && tfs_rr_next_held(inst, cpu, &cvp, &coff);
	struct rb_cpu *rc = ut_rb_cpu(area, cpu);
	uint64_t w = rc->wpos, budget = (uint64_t)(new_nr - 1) * UT_RB_PAGE_DATA, got = 0;
	unsigned int nr = rc->nr_pages, V = rb_wpos_vpage(w), slot = rb_wpos_slot(w), win;
	struct rb_page *cur;

	memset(k, 0, sizeof(*k));
	k->dropped = rc->dropped;
	if (nr < 3 || nr > UT_RB_MAX_PAGES || slot >= nr || rb_wpos_off(w) > UT_RB_PAGE_DATA)
		return 0; /* corrupt: the ring reads as empty, and resizes so */
	cur = ut_rb_page(area, cpu, slot);
	if (cur->magic == UT_RB_PAGE_MAGIC && cur->vpage == V)
		k->written = cur->base_entries + rb_wpos_entries(w);
	win = nr - 1;
	if (!(rc->flags & RB_F_OVERWRITE) && rb_vpage_sub(V, (unsigned int)rc->read_vpage) < nr)
		win = rb_vpage_sub(V, (unsigned int)rc->read_vpage) + 1;
	if (win > new_nr)
		win = new_nr; /* more pages could not all be kept */
	/* one more for the consumer's reader page */
	k->data = malloc((size_t)(win + 1) * sizeof(*k->data));
	k->start = malloc((size_t)(win + 1) * sizeof(*k->start));
	k->end = malloc((size_t)(win + 1) * sizeof(*k->end));
	if (!k->data || !k->start || !k->end)
		return -ENOMEM;
	for (unsigned int d = 0; d < win && got <= budget; d++) {
		struct rb_page *p = ut_rb_page(area, cpu, (slot + nr - d) % nr);
		unsigned int vp = (V - d) & (RB_VPAGE_MOD - 1);
		uint64_t c = d == 0 ? w : p->commit;
		unsigned int from = 0;

		if (consumed && d > rb_vpage_sub(V, cvp))
			break; /* older than the consumer's page: all taken */
		if (p->magic != UT_RB_PAGE_MAGIC || p->vpage != vp || rb_wpos_vpage(c) != vp ||
		    rb_wpos_off(c) > UT_RB_PAGE_DATA)
			break; /* older pages are not part of this ring's history */
		if (consumed && vp == cvp)
			from = coff < rb_wpos_off(c) ? coff : rb_wpos_off(c);
		k->start[k->nr] = from;
		k->end[k->nr] = rb_wpos_off(c);
		memcpy(k->data[k->nr++], p + 1, rb_wpos_off(c));
		got += rb_wpos_off(c) - from;
		if (consumed && vp == cvp)
			save_reader_page(inst, cpu, vp, k, got <= budget);
	}
	return 0;
}

/*
 * Write the kept events back, oldest first, with their own time stamps, into the
 * freshly reset ring (still in overwrite mode: the oldest give way if the packing
 * needs more pages than the window has).  Numbered so that `written` does not
 * change: the events that are not kept count as overrun, as in the kernel.
 * Returns the number of the first event kept.
 */
static uint64_t ring_restore(void *area, unsigned int cpu, const struct ring_keep *k)
{
	struct rb_cpu *rc = ut_rb_cpu(area, cpu);
	uint64_t n = 0, first;

	for (unsigned int i = k->nr; i-- > 0;)
		for (unsigned int off = k->start[i]; off < k->end[i];) {
			int len = tfs_rr_check_event(k->data[i] + off, k->end[i] - off);

			if (len < 0)
				break; /* a bad event ends its page, as for the reader */
			n++;
			off += (unsigned int)len;
		}
	first = k->written >= n ? k->written - n : 0;
	ut_rb_page(area, cpu, 0)->base_entries = first;
	for (unsigned int i = k->nr; i-- > 0;)
		for (unsigned int off = k->start[i]; off < k->end[i];) {
			const struct ut_ev *ev = (const void *)(k->data[i] + off);

			if (tfs_rr_check_event(ev, k->end[i] - off) < 0)
				break;
			ut_rb_write_on_cpu_disabled(area, cpu, ev);
			off += ev->len;
		}
	__atomic_store_n(&rc->dropped, k->dropped, __ATOMIC_RELAXED); /* the kicker reads it */
	return first;
}

/*
 * Resize cpu's ring keeping its newest unconsumed events, as the kernel does;
 * area_lock held.  Without the memory for the copy the ring is emptied instead.
 * The consumer goes on with the first event kept, in the same critical section.
 * 0, or -EBUSY (barrier_begin): nothing changed.
 */
static int ring_resize_locked(struct tfs_instance *inst, unsigned int cpu, unsigned int nr_pages)
{
	struct rb_cpu *rc = ut_rb_cpu(inst->area, cpu);
	uint32_t was = rc->enabled;
	struct ring_keep k;
	uint64_t first;
	int err;

	set_enabled(inst, cpu, 0);
	err = barrier_begin(inst, cpu);
	if (err) {
		set_enabled(inst, cpu, was);
		return err;
	}
	tfs_rr_hold();
	if (ring_save(inst, inst->area, cpu, nr_pages, &k))
		k.nr = 0;
	ut_rb_reset_cpu(inst->area, cpu, nr_pages, RB_F_OVERWRITE);
	ring_release_tail(inst, cpu, nr_pages);
	first = ring_restore(inst->area, cpu, &k);
	free(k.data);
	free(k.start);
	free(k.end);
	if (!(ring_flags(inst) & RB_F_OVERWRITE)) {
		/* no-overwrite writers stop at read_vpage + nr: count from the oldest page kept */
		unsigned int vp = rb_wpos_vpage(rc->wpos);

		rc->read_vpage = vp >= nr_pages - 2 ? vp - (nr_pages - 2) : 0;
	}
	rc->flags = ring_flags(inst);
	tfs_rr_resized_held(inst, cpu, first);
	tfs_rr_unhold();
	barrier_end(inst, cpu);
	set_enabled(inst, cpu, cpu_in_mask(inst, cpu));
	return 0;
}

/*
 * The control pages: a memfd of their own, one page per instance slot, page i
 * mapped writable over the first page of span i, then sealed so that nobody else
 * can ever write them (Linux >= 5.1).  The memfd or -errno.
 */
static int ctl_pages_map(void *area, unsigned int nr_cpus)
{
	int fd = memfd_create("utrace-ctl", MFD_CLOEXEC | MFD_ALLOW_SEALING), err = 0;

	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0600) || ftruncate(fd, (off_t)UT_CTL_SIZE * UT_INST_MAX))
		err = -errno;
	for (unsigned int i = 0; i < UT_INST_MAX && !err; i++)
		if (mmap(ut_inst_area(area, nr_cpus, i), UT_CTL_SIZE, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, (off_t)i * UT_CTL_SIZE) == MAP_FAILED)
			err = -errno;
	if (!err && fcntl(fd, F_ADD_SEALS,
			  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Give inst its span (slot set): the control page's constant fields and every
 * ring reset to the instance's sizes.  No writer can be in the span: a fresh
 * area, or one an instance left (tfs_area_inst_release).
 */
void tfs_area_inst_init(struct tfs_instance *inst)
{
	struct ut_ctl *ctl;

	inst->area = ut_inst_area(tfs.area, tfs.nr_cpus, inst->slot);
	inst->ctl = ctl = inst->area;
	ctl->magic = UT_CTL_MAGIC;
	ctl->version = UT_PROTO_VERSION;
	ctl->nr_cpus = tfs.nr_cpus;
	ctl->area_size = tfs.area_size;
	ctl->ftrace_enabled = 1;
	ctl->write_mode = write_mode;
	pthread_mutex_lock(&area_lock);
	for (unsigned int cpu = 0; cpu < tfs.nr_cpus; cpu++) {
		ut_rb_reset_cpu(inst->area, cpu, tfs_kpages_to_rb_pages(inst->nr_kpages[cpu]),
				ring_flags(inst));
		set_enabled(inst, cpu, cpu_in_mask(inst, cpu));
	}
	span_on[inst->slot] = true;
	pthread_mutex_unlock(&area_lock);
}

/*
 * The instance goes: stop every ring (enabled = 0, then the CPU barrier, as a
 * reset does: no writer is left inside a sequence there) and give the span's
 * memory back (punch it out).  A CPU whose barrier cannot be passed keeps its
 * pages (a writer may still commit there); it stays disabled.
 */
void tfs_area_inst_release(struct tfs_instance *inst)
{
	bool all = true;

	if (!inst->area || !inst->slot)
		return;
	pthread_mutex_lock(&area_lock);
	span_on[inst->slot] = false;
	for (unsigned int cpu = 0; cpu < tfs.nr_cpus; cpu++) {
		set_enabled(inst, cpu, 0);
		if (tfs_cpu_barrier(inst, cpu))
			all = false;
	}
	if (all) {
		/* the rings and rb_cpu[]; the control page (another memfd) stays */
		off_t start = (off_t)((char *)inst->area - (char *)tfs.area) + UT_CTL_SIZE;

		fallocate(tfs.area_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, start,
			  (off_t)tfs.span - UT_CTL_SIZE);
	}
	pthread_mutex_unlock(&area_lock);
	tfs_spare_free(inst);
}

int tfs_area_init(unsigned int nr_cpus)
{
	/* the instances' spans, then the function probes' counters (ut_sel.h) */
	uint64_t size = ut_area_size(nr_cpus);
	void *area;
	int fd, ctl_fd;

	if (!nr_cpus || nr_cpus > UT_RB_MAX_CPUS)
		return -EINVAL;
	fd = memfd_create("utrace", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	/*
	 * The file is sparse: only the pages the rings use get memory.  Its size is
	 * sealed: a process that shrank it would make utracefs fault on its own map.
	 */
	if (fchmod(fd, 0600) || ftruncate(fd, (off_t)size) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		int err = -errno;

		close(fd);
		return err;
	}
	area = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (area == MAP_FAILED) {
		int err = -errno;

		close(fd);
		return err;
	}
	ctl_fd = ctl_pages_map(area, nr_cpus);
	if (ctl_fd < 0) {
		munmap(area, size);
		close(fd);
		return ctl_fd;
	}

	tfs_lock();
	tfs.area_fd = fd;
	tfs.ctl_fd = ctl_fd;
	tfs.area = area;
	tfs.area_size = size;
	tfs.span = ut_inst_span(nr_cpus);
	tfs.nr_cpus = nr_cpus;
	/* no rseq in this kernel (ENOSYS): every writer takes the rings' locks */
	write_mode = ut_rb_kernel_has_rseq() ? UT_CTL_WRITE_RSEQ : UT_CTL_WRITE_LOCKED;
	tfs_unlock();

	/* nobody has the memfd yet: no writer anywhere, no barrier to pass */
	tfs_area_inst_init(&tfs_top);

	tfs_lock();
	tfs_publish_locked();
	tfs_unlock();
	return 0;
}

void tfs_area_fini(void)
{
	tfs_lock();
	if (tfs.area)
		munmap(tfs.area, tfs.area_size);
	if (tfs.area_fd >= 0)
		close(tfs.area_fd);
	if (tfs.ctl_fd >= 0)
		close(tfs.ctl_fd);
	tfs.area = NULL;
	tfs_top.area = NULL;
	tfs_top.ctl = NULL;
	tfs.area_fd = -1;
	tfs.ctl_fd = -1;
	tfs_unlock();
}

int tfs_ring_reset(struct tfs_instance *inst, int cpu)
{
	uint64_t tsc = tfs_clock_tsc();
	int err = 0;

	if (!inst->area)
		return 0;
	pthread_mutex_lock(&area_lock);
	for (unsigned int c = 0; c < tfs.nr_cpus; c++)
		if (cpu < 0 || (unsigned int)cpu == c) {
			int e = ring_reset_locked(inst, c,
						  tfs_kpages_to_rb_pages(inst->nr_kpages[c]));

			if (e && !err)
				err = e;
		}
	pthread_mutex_unlock(&area_lock);
	if (cpu < 0 && !err && inst == &tfs_top)
		tfs_sym_forget(tsc); /* no event of a mapping gone before is left */
	tfs_ring_kick();
	return err;
}

/* Allocate inst's snapshot buffer if it has none; area_lock held. */
static int spare_alloc_locked(struct tfs_instance *inst)
{
	void *p;

	if (inst->spare)
		return 0;
	/* as a span: reserved, and only the pages a copy writes cost memory */
	p = mmap(NULL, tfs.span, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	tfs_rr_hold();
	inst->spare = p;
	memset(inst->spare_pages, 0, sizeof(inst->spare_pages));
	tfs_rr_unhold();
	return 0;
}

int tfs_spare_alloc(struct tfs_instance *inst)
{
	int err;

	if (!inst->area)
		return 0;
	pthread_mutex_lock(&area_lock);
	err = spare_alloc_locked(inst);
	pthread_mutex_unlock(&area_lock);
	return err;
}

int tfs_spare_swap(struct tfs_instance *inst, int cpu)
{
	int err;

	if (!inst->area)
		return 0;
	pthread_mutex_lock(&area_lock);
	err = spare_alloc_locked(inst);
	if (err) {
		pthread_mutex_unlock(&area_lock);
		return err;
	}
	for (unsigned int c = 0; c < tfs.nr_cpus; c++)
		if (cpu < 0 || (unsigned int)cpu == c) {
			int e = ring_swap_locked(inst, c, tfs_kpages_to_rb_pages(inst->nr_kpages[c]));

			if (e && !err)
				err = e;
		}
	pthread_mutex_unlock(&area_lock);
	tfs_ring_kick();
	return err;
}

void tfs_spare_clear(struct tfs_instance *inst, int cpu)
{
	pthread_mutex_lock(&area_lock);
	tfs_rr_hold();
	for (unsigned int c = 0; inst->spare && c < tfs.nr_cpus; c++)
		if ((cpu < 0 || (unsigned int)cpu == c) && inst->spare_pages[c]) {
			madvise(ut_rb_page(inst->spare, c, 0),
				(size_t)inst->spare_pages[c] * UT_RB_PAGE_SIZE, MADV_DONTNEED);
			inst->spare_pages[c] = 0;
		}
	tfs_rr_unhold();
	pthread_mutex_unlock(&area_lock);
}

void tfs_spare_free(struct tfs_instance *inst)
{
	void *p;

	pthread_mutex_lock(&area_lock);
	tfs_rr_hold();
	p = inst->spare;
	inst->spare = NULL;
	memset(inst->spare_pages, 0, sizeof(inst->spare_pages));
	tfs_rr_unhold();
	pthread_mutex_unlock(&area_lock);
	if (p)
		munmap(p, tfs.span);
}

/*
 * cpu's ring was resized: resize its part of the snapshot with it, keeping its
 * newest events, as the kernel resizes both buffers; area_lock held.  Nobody
 * writes the snapshot: the readers held are enough.  Without the memory for the
 * events kept, it is emptied.
 */
static void spare_resize_locked(struct tfs_instance *inst, unsigned int cpu, unsigned int nr_pages)
{
	struct ring_keep k;

	if (!inst->spare || !inst->spare_pages[cpu] || inst->spare_pages[cpu] == nr_pages)
		return;
	tfs_rr_hold();
	if (ring_save(inst, inst->spare, cpu, nr_pages, &k))
		k.nr = 0;
	madvise(ut_rb_page(inst->spare, cpu, 0),
		(size_t)inst->spare_pages[cpu] * UT_RB_PAGE_SIZE, MADV_DONTNEED);
	spare_populate(inst, cpu, nr_pages); /* for the next swap's exchange */
	ut_rb_reset_cpu(inst->spare, cpu, nr_pages, RB_F_OVERWRITE);
	ring_restore(inst->spare, cpu, &k);
	ut_rb_cpu(inst->spare, cpu)->flags = ring_flags(inst);
	inst->spare_pages[cpu] = nr_pages;
	free(k.data);
	free(k.start);
	free(k.end);
	tfs_rr_unhold();
}

int tfs_ring_resize(struct tfs_instance *inst, unsigned int cpu, unsigned int nr_kpages)
{
	uint64_t max_kpages =
	    (uint64_t)(UT_RB_MAX_PAGES - 1) * UT_RB_PAGE_DATA / UT_KERNEL_PAGE_DATA;
	int err;

	if (!inst->area || cpu >= tfs.nr_cpus)
		return -EINVAL;
	if (!nr_kpages || nr_kpages > max_kpages)
		return -ENOMEM;
	pthread_mutex_lock(&area_lock);
	err = ring_resize_locked(inst, cpu, tfs_kpages_to_rb_pages(nr_kpages));
	if (!err)
		spare_resize_locked(inst, cpu, tfs_kpages_to_rb_pages(nr_kpages));
	pthread_mutex_unlock(&area_lock);
	tfs_ring_kick();
	return err;
}

/*
 * (En/dis)abling needs no barrier to be passed: a writer still inside a sequence
 * that began before merely adds its event as if it had come a moment sooner.
 */
void tfs_ring_enable(struct tfs_instance *inst, unsigned int cpu, bool on)
{
	if (!inst->area || cpu >= tfs.nr_cpus)
		return;
	pthread_mutex_lock(&area_lock);
	set_enabled(inst, cpu, 0);
	tfs_cpu_barrier(inst, cpu);
	set_enabled(inst, cpu, on);
	pthread_mutex_unlock(&area_lock);
}

void tfs_ring_set_overwrite(struct tfs_instance *inst, bool on)
{
	if (!inst->area)
		return;
	pthread_mutex_lock(&area_lock);
	for (unsigned int cpu = 0; cpu < tfs.nr_cpus; cpu++) {
		struct rb_cpu *rc = ut_rb_cpu(inst->area, cpu);
		uint32_t was = rc->enabled;

		set_enabled(inst, cpu, 0);
		tfs_cpu_barrier(inst, cpu);
		if (!on) {
			/*
			 * No-overwrite writers stop at read_vpage + nr_pages: start
			 * the count at the oldest page still readable, not at a
			 * page that was overwritten long ago.
			 */
			unsigned int vp = rb_wpos_vpage(rc->wpos);
			unsigned int oldest = vp >= rc->nr_pages - 2 ? vp - (rc->nr_pages - 2) : 0;

			if (rb_vpage_sub(vp, (unsigned int)rc->read_vpage) > vp - oldest)
				rc->read_vpage = oldest;
		}
		rc->flags = on ? rc->flags | RB_F_OVERWRITE : rc->flags & ~RB_F_OVERWRITE;
		set_enabled(inst, cpu, was);
	}
	pthread_mutex_unlock(&area_lock);
}

/* ---- waking readers ------------------------------------------------------------- */

static void kick_cond_init(void)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&kick_cond, &a);
	pthread_condattr_destroy(&a);
}

static pthread_once_t kick_once = PTHREAD_ONCE_INIT;

void tfs_ring_kick(void)
{
	tfs_rr_settle(); /* before the wake-up: a woken reader finds its reader page */
	pthread_once(&kick_once, kick_cond_init);
	pthread_mutex_lock(&kick_lock);
	kick_seq++;
	pthread_cond_broadcast(&kick_cond);
	pthread_mutex_unlock(&kick_lock);
	tfs_fuse_poll_wake();
}

int tfs_ring_wait(uint64_t *seen_seq, int timeout_ms)
{
	struct timespec end;
	int kicked = 1;

	pthread_once(&kick_once, kick_cond_init);
	end = tfs_deadline(CLOCK_MONOTONIC, timeout_ms);
	pthread_mutex_lock(&kick_lock);
	while (kick_seq == *seen_seq) {
		if (timeout_ms < 0) {
			pthread_cond_wait(&kick_cond, &kick_lock);
		} else if (pthread_cond_timedwait(&kick_cond, &kick_lock, &end) == ETIMEDOUT) {
			kicked = kick_seq != *seen_seq;
			break;
		}
	}
	*seen_seq = kick_seq;
	pthread_mutex_unlock(&kick_lock);
	return kicked;
}

/* Look at one instance slot's rings (area_lock held, its span in use). */
static bool kick_slot(unsigned int slot, uint64_t *last)
{
	void *area = ut_inst_area(tfs.area, tfs.nr_cpus, slot);
	bool moved = false;

	for (unsigned int cpu = 0; cpu < tfs.nr_cpus; cpu++) {
		struct rb_cpu *rc = ut_rb_cpu(area, cpu);
		uint64_t w = __atomic_load_n(&rc->wpos, __ATOMIC_RELAXED);
		uint64_t d = __atomic_load_n(&rc->dropped, __ATOMIC_RELAXED);

		if (w != last[2 * cpu] || d != last[2 * cpu + 1])
			moved = true;
		else if (write_mode == UT_CTL_WRITE_LOCKED &&
			 __atomic_load_n(&rc->lock, __ATOMIC_RELAXED))
			ut_rb_lock_reap(area, cpu); /* held a whole tick: gone? */
		last[2 * cpu] = w;
		last[2 * cpu + 1] = d;
	}
	return moved;
}

static void *kicker_main(void *arg)
{
	uint64_t(*last)[2 * UT_RB_MAX_CPUS] = calloc(UT_INST_MAX, sizeof(*last));
	struct timespec ts = {0, TFS_KICK_MS * 1000000L};

	while (last && !__atomic_load_n(&kicker_stop, __ATOMIC_RELAXED)) {
		bool moved = false;

		for (unsigned int slot = 0; slot < UT_INST_MAX && tfs.area; slot++) {
			pthread_mutex_lock(&area_lock);
			if (span_on[slot] && kick_slot(slot, last[slot]))
				moved = true;
			pthread_mutex_unlock(&area_lock);
		}
		if (moved)
			tfs_ring_kick();
		nanosleep(&ts, NULL);
	}
	free(last);
	return NULL;
}

int tfs_kicker_start(void)
{
	int err;

	__atomic_store_n(&kicker_stop, false, __ATOMIC_RELAXED);
	err = pthread_create(&kicker, NULL, kicker_main, NULL);
	if (err)
		return -err;
	kicker_running = true;
	return 0;
}

void tfs_kicker_stop(void)
{
	if (!kicker_running)
		return;
	__atomic_store_n(&kicker_stop, true, __ATOMIC_RELAXED);
	pthread_join(kicker, NULL);
	kicker_running = false;
}

/* ---- events written by utracefs itself ---------------------------------------------- */

/* Write ev on the current CPU's ring of inst with the writer of the area's write mode. */
static int ring_write_here(struct tfs_instance *inst, struct ut_ev *ev)
{
	if (write_mode == UT_CTL_WRITE_LOCKED)
		return ut_rb_write_locked(inst->area, tfs.nr_cpus, ev);
	return ut_rb_write(inst->area, tfs.nr_cpus, ev);
}

/*
 * The writers write on the CPU they run on, and so must utracefs: to write on
 * another CPU's ring, this thread moves there for the write (as the CPU barrier
 * does), then goes back to the CPUs it may run on.  A CPU this thread may not
 * run on gets the event on the current CPU instead.
 */
int tfs_ring_write(struct tfs_instance *inst, int cpu, struct ut_ev *ev)
{
	cpu_set_t old, one;
	int err;

	if (cpu < 0 || (unsigned int)cpu >= tfs.nr_cpus ||
	    pthread_getaffinity_np(pthread_self(), sizeof(old), &old))
		return ring_write_here(inst, ev);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one))
		return ring_write_here(inst, ev);
	err = ring_write_here(inst, ev);
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	return err;
}

int tfs_write_print(struct tfs_instance *inst, int cpu, pid_t tid, uint64_t ip, const char *text,
		    size_t len, uint8_t flags)
{
	union {
		struct ut_ev_print p;
		struct ut_ev_marker m;
		uint64_t align[UT_RB_PAGE_DATA / 8];
	} ev;
	bool marker = ip == UT_IP_MARKER; /* the marker form: no ip, sized as the kernel's */
	size_t hdr = marker ? sizeof(struct ut_ev_marker) : sizeof(struct ut_ev_print);
	char *buf = marker ? ev.m.buf : ev.p.buf;
	size_t evlen, fit = UT_RB_PAGE_DATA - hdr - 1; /* the text and its NUL fit a page */
	int err;

	if (!inst->area)
		return -EAGAIN;
	if (len > fit)
		len = fit;
	evlen = (hdr + len + 1 + 7) & ~(size_t)7;
	ev.p.h.len = (uint16_t)evlen;
	ev.p.h.type = UT_EV_PRINT;
	ev.p.h.flags = flags | (marker ? UT_EVF_MARKER : 0);
	ev.p.h.tid = (uint32_t)tid;
	ev.p.h.ts = __builtin_ia32_rdtsc(); /* ut_rb_write takes its own in the sequence */
	if (!marker)
		ev.p.ip = ip;
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (marker)
		ev.p.h.len = (uint16_t)tfs_kfmt_fit_len(evlen, tfs_kfmt_size(&ev.p.h));
	memset(buf + len, 0, ev.p.h.len - hdr - len); /* the NUL and the padding */
	err = tfs_ring_write(inst, cpu, &ev.p.h);
	/*
	 * The writer's comm is not recorded: like the kernel's, which saves a comm
	 * only for tasks it traces, a trace_marker line of an untraced process
	 * shows "<...>".
	 */
	if (err == 0)
		tfs_ring_kick();
	return err;
}

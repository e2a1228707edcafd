// SPDX-License-Identifier: MIT
/*
 * ut_ring_ref.c - the ring buffer's write algorithm in plain C (see ut_ring.h),
 * and the reset used by utracefs.  The assembly writers must do exactly this.
 */
#include <errno.h>
#include <string.h>

#include "ut_ring_write.h"

static int rb_len_ok(unsigned int len)
{
	return len >= sizeof(struct ut_ev) && len <= UT_RB_PAGE_DATA && (len & 7) == 0;
}

static int rb_write_cpu(void *area, unsigned int cpu, const struct ut_ev *ev, int need_enabled)
{
	struct rb_cpu *rc = ut_rb_cpu(area, cpu);
	unsigned int len = ev->len;

	if (need_enabled && !rc->enabled)
		return -EAGAIN;
	if (!rb_len_ok(len))
		return -EINVAL;

	uint64_t w = rc->wpos;
	unsigned int nr = rc->nr_pages;
	unsigned int off = rb_wpos_off(w), ent = rb_wpos_entries(w);
	unsigned int slot = rb_wpos_slot(w), vp = rb_wpos_vpage(w);

	if (nr < 3 || nr > UT_RB_MAX_PAGES || slot >= nr)
		return -EAGAIN;

	if (off + len <= UT_RB_PAGE_DATA) {
		struct rb_page *p = ut_rb_page(area, cpu, slot);

		memcpy((char *)(p + 1) + off, ev, len);
		if (off == 0)
			p->time_stamp = ev->ts;
		/* commit; a release store so that compiled C keeps it last (locked writers) */
		__atomic_store_n(&rc->wpos, rb_wpos_make(vp, slot, ent + 1, off + len),
				 __ATOMIC_RELEASE);
		return UT_RB_OK;
	}

	unsigned int nvp = (vp + 1) & (RB_VPAGE_MOD - 1);
	unsigned int nslot = slot + 1 == nr ? 0 : slot + 1;

	if (!(rc->flags & RB_F_OVERWRITE) &&
	    (uint64_t)rb_vpage_sub(nvp, (unsigned int)rc->read_vpage) + rc->held >= nr) {
		__atomic_store_n(&rc->dropped, rc->dropped + 1, __ATOMIC_RELEASE); /* commit */
		return -ENOSPC;
	}

	struct rb_page *op = ut_rb_page(area, cpu, slot);
	struct rb_page *np = ut_rb_page(area, cpu, nslot);

	op->commit = w;
	np->vpage = nvp;
	np->magic = UT_RB_PAGE_MAGIC;
	np->commit = 0;
	np->base_entries = op->base_entries + ent;
	np->time_stamp = ev->ts;
	memcpy(np + 1, ev, len);
	/* commit */
	__atomic_store_n(&rc->wpos, rb_wpos_make(nvp, nslot, 1, len), __ATOMIC_RELEASE);
	return UT_RB_OK;
}

int ut_rb_write_on_cpu(void *area, unsigned int cpu, const struct ut_ev *ev)
{
	return rb_write_cpu(area, cpu, ev, 1);
}

int ut_rb_write_on_cpu_disabled(void *area, unsigned int cpu, const struct ut_ev *ev)
{
	return rb_write_cpu(area, cpu, ev, 0);
}

void ut_rb_reset_cpu(void *area, unsigned int cpu, unsigned int nr_pages, unsigned int flags)
{
	struct rb_cpu *rc = ut_rb_cpu(area, cpu);
	struct rb_page *p0 = ut_rb_page(area, cpu, 0);

	/* words that readers (utracefs's kicker and reader threads) load meanwhile:
	 * single stores, as a writer's */
	__atomic_store_n(&rc->enabled, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&rc->nr_pages, nr_pages, __ATOMIC_RELAXED);
	__atomic_store_n(&rc->flags, flags, __ATOMIC_RELAXED);
	__atomic_store_n(&rc->dropped, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&rc->read_vpage, 0, __ATOMIC_RELAXED);
	/* the reader page: unused until the first consuming read */
	__atomic_store_n(&rc->held, 1, __ATOMIC_RELAXED);
	memset(p0, 0, sizeof(*p0));
	p0->magic = UT_RB_PAGE_MAGIC;
	__atomic_store_n(&rc->gen, rc->gen + 1, __ATOMIC_RELAXED); /* wpos goes back (ut_ring.h) */
	__atomic_store_n(&rc->wpos, rb_wpos_make(0, 0, 0, 0), __ATOMIC_RELAXED);
}

// SPDX-License-Identifier: MIT
/*
 * selread.c - a consistent, bounded copy of this process's section of the
 * selection memfd (ut_sel.h).
 *
 * utracefs may rewrite the content while we read it: every value is copied out
 * once (the compiler barrier keeps it from reading the shared bytes again after
 * the check), every offset and count is checked against what we mapped before it
 * is used, and the copy only counts when hdr.seq was the same even number before
 * and after.  A torn read can only give a wrong copy, which the sequence check
 * then throws away; it can never make us read outside the mapping.
 */
#include <errno.h>
#include <string.h>

#include "selread.h"
#include "ut_ctl.h"

#define barrier() __asm__ volatile("" ::: "memory")

/* off + n * size <= lim, without overflow. */
static int fits(uint64_t off, uint64_t n, uint64_t size, uint64_t lim)
{
	return off <= lim && n <= (lim - off) / size;
}

/* Entry k of the array at off, copied out once (checked by the caller's fits()). */
static void entry_at(const char *m, uint64_t off, uint64_t k, void *e, size_t len)
{
	memcpy(e, m + off + k * len, len);
	barrier();
}

/*
 * The thread selection of an entry (state, nr tids at off): checked, then its tids
 * copied to dst + k * UT_SEL_TIDS_MAX.  -EINVAL malformed, -ENOSPC no dst.
 */
static int copy_tasks(const char *m, uint64_t size, uint32_t state, uint32_t nr, uint64_t off,
		      int32_t *dst, uint32_t k)
{
	if (state > UT_SEL_TASKS_EXCEPT || nr > UT_SEL_TIDS_MAX || !fits(off, nr, sizeof(int32_t), size))
		return -EINVAL;
	if (!dst)
		return -ENOSPC;
	memcpy(dst + (uint64_t)k * UT_SEL_TIDS_MAX, m + off, (size_t)nr * sizeof(int32_t));
	return 0;
}

/* The instance entries of section p (sites: the section's flag bytes), after its objects. */
static int read_insts(const char *m, uint64_t size, const struct ut_sel_proc *p, uint64_t sites,
		      struct ut_sel_copy *c)
{
	int err = 0, r;

	if (p->nr_insts >= UT_INST_MAX ||
	    !fits(p->insts_off, p->nr_insts, sizeof(struct ut_sel_inst), size))
		return -EINVAL;
	c->nr_insts = p->nr_insts;
	for (uint32_t k = 0; k < p->nr_insts; k++) {
		struct ut_sel_inst e;

		entry_at(m, p->insts_off, k, &e, sizeof(e));
		if (e.slot == 0 || e.slot >= UT_INST_MAX || e.tasks == UT_SEL_TASKS_NONE ||
		    (e.tracer != UT_TRACER_FUNCTION && e.tracer != UT_TRACER_FUNCTION_GRAPH) ||
		    !fits(e.flags_off, sites, 1, size))
			return -EINVAL;
		r = copy_tasks(m, size, e.tasks, e.nr_tids, e.tids_off, c->itids, k);
		if (r == -EINVAL)
			return r;
		if (r || (k + 1) * sites > c->iflags_cap) {
			err = -ENOSPC;
			continue;
		}
		memcpy(c->iflags + (uint64_t)k * sites, m + e.flags_off, sites);
		barrier();
		e.tids_off = (uint64_t)k * UT_SEL_TIDS_MAX;
		e.flags_off = (uint64_t)k * sites;
		c->insts[k] = e;
	}
	return err;
}

/* The event pid entries of section p: copied out at once, then checked in our copy. */
static int read_evpids(const char *m, uint64_t size, const struct ut_sel_proc *p,
		       struct ut_sel_copy *c)
{
	uint32_t n = p->nr_evpids;

	if (n > UT_INST_MAX || !fits(p->evpids_off, n, sizeof(struct ut_sel_evpid), size))
		return -EINVAL;
	memcpy(c->evpids, m + p->evpids_off, n * sizeof(struct ut_sel_evpid));
	barrier();
	for (uint32_t k = 0; k < n; k++) {
		struct ut_sel_evpid *e = &c->evpids[k];
		int r = e->slot >= UT_INST_MAX || e->fork > 1
			    ? -EINVAL
			    : copy_tasks(m, size, e->tasks, e->nr_tids, e->tids_off, c->etids, k);

		if (r)
			return r;
		e->tids_off = (uint64_t)k * UT_SEL_TIDS_MAX;
	}
	c->nr_evpids = n;
	c->ev_serial = p->ev_serial;
	return 0;
}

int ut_sel_read(const void *mv, size_t mapped, int32_t pid, struct ut_sel_copy *c)
{
	const char *m = mv;
	const struct ut_sel_hdr *sh = mv;
	struct ut_sel_proc p;
	uint32_t seq, i;
	uint64_t size, used = 0;
	int found = 0, err = 0;

	c->found = 0;
	c->nr_objs = 0;
	c->flags_len = 0;
	c->tasks = UT_SEL_TASKS_ALL;
	c->nr_tids = 0;
	c->nr_probes = 0;
	c->nr_insts = 0;
	c->nr_evpids = 0;
	c->ev_serial = 0;
	if (mapped < sizeof(struct ut_sel_hdr))
		return -ERANGE;
	seq = __atomic_load_n(&sh->seq, __ATOMIC_ACQUIRE);
	if (seq & 1)
		return -EAGAIN;
	memcpy(&c->hdr, sh, sizeof(c->hdr));
	barrier();
	size = c->hdr.size;
	if (c->hdr.magic != UT_SEL_MAGIC) {
		err = -EINVAL;
		goto check;
	}
	if (size > mapped) {
		err = -ERANGE;
		goto check;
	}
	if (size < sizeof(struct ut_sel_hdr) ||
	    !fits(c->hdr.procs_off, c->hdr.nr_procs, sizeof(p), size)) {
		err = -EINVAL;
		goto check;
	}
	for (i = 0; i < c->hdr.nr_procs; i++) {
		entry_at(m, c->hdr.procs_off, i, &p, sizeof(p));
		if (p.pid == pid) {
			found = 1;
			break;
		}
	}
	if (!found)
		goto check;
	if (!fits(p.objs_off, p.nr_objs, sizeof(struct ut_sel_obj), size)) {
		err = -EINVAL;
		goto check;
	}
	if (p.tasks > UT_SEL_TASKS_EXCEPT || p.nr_tids > UT_SEL_TIDS_MAX ||
	    !fits(p.tids_off, p.nr_tids, sizeof(int32_t), size) ||
	    p.nr_probes > UT_SEL_PROBES_MAX ||
	    !fits(p.probes_off, p.nr_probes, sizeof(struct ut_sel_probe), size)) {
		err = -EINVAL;
		goto check;
	}
	c->nr_probes = p.nr_probes;
	if (p.nr_probes > c->max_probes)
		err = -ENOSPC;
	else if (p.nr_probes)
		memcpy(c->probes, m + p.probes_off, (size_t)p.nr_probes * sizeof(*c->probes));
	barrier();
	c->tasks = p.tasks;
	c->nr_tids = p.nr_tids;
	memcpy(c->tids, m + p.tids_off, (size_t)p.nr_tids * sizeof(int32_t));
	barrier();
	c->nr_objs = p.nr_objs;
	for (i = 0; i < p.nr_objs; i++) {
		struct ut_sel_obj o;

		entry_at(m, p.objs_off, i, &o, sizeof(o));
		if (!fits(o.flags_off, o.nr_sites, 1, size)) {
			err = -EINVAL;
			goto check;
		}
		if (i < c->max_objs && used + o.nr_sites <= c->flags_cap) {
			memcpy(c->flags + used, m + o.flags_off, o.nr_sites);
			o.flags_off = used;
			c->objs[i] = o;
		} else {
			err = -ENOSPC;
		}
		used += o.nr_sites;
	}
	c->flags_len = used;
	{
		int ie = read_insts(m, size, &p, used, c);

		if (ie && (!err || ie == -EINVAL))
			err = ie;
		ie = read_evpids(m, size, &p, c);
		if (ie && (!err || ie == -EINVAL))
			err = ie;
	}
check:
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&sh->seq, __ATOMIC_RELAXED) != seq)
		return -EAGAIN;
	c->found = found && !err;
	return err;
}

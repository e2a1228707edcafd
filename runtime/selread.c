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

/* The instance entries of section p (sites: the section's flag bytes), after its objects. */
static int read_insts(const char *m, uint64_t size, const struct ut_sel_proc *p, uint64_t sites,
		      struct ut_sel_copy *c)
{
	int err = 0;

	if (p->nr_insts >= UT_INST_MAX ||
	    !fits(p->insts_off, p->nr_insts, sizeof(struct ut_sel_inst), size))
		return -EINVAL;
	c->nr_insts = p->nr_insts;
	for (uint32_t k = 0; k < p->nr_insts; k++) {
		struct ut_sel_inst e;

		memcpy(&e, m + p->insts_off + (uint64_t)k * sizeof(e), sizeof(e));
		barrier();
		if (e.slot == 0 || e.slot >= UT_INST_MAX || e.tasks > UT_SEL_TASKS_EXCEPT ||
		    e.tasks == UT_SEL_TASKS_NONE || e.nr_tids > UT_SEL_TIDS_MAX ||
		    (e.tracer != UT_TRACER_FUNCTION && e.tracer != UT_TRACER_FUNCTION_GRAPH) ||
		    !fits(e.tids_off, e.nr_tids, sizeof(int32_t), size) ||
		    !fits(e.flags_off, sites, 1, size))
			return -EINVAL;
		if (!c->itids || (k + 1) * sites > c->iflags_cap) {
			err = -ENOSPC;
			continue;
		}
		memcpy(c->itids + (uint64_t)k * UT_SEL_TIDS_MAX, m + e.tids_off,
		       (size_t)e.nr_tids * sizeof(int32_t));
		memcpy(c->iflags + (uint64_t)k * sites, m + e.flags_off, sites);
		barrier();
		e.tids_off = (uint64_t)k * UT_SEL_TIDS_MAX;
		e.flags_off = (uint64_t)k * sites;
		c->insts[k] = e;
	}
	return err;
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
		memcpy(&p, m + c->hdr.procs_off + (uint64_t)i * sizeof(p), sizeof(p));
		barrier();
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

		memcpy(&o, m + p.objs_off + (uint64_t)i * sizeof(o), sizeof(o));
		barrier();
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
	}
check:
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&sh->seq, __ATOMIC_RELAXED) != seq)
		return -EAGAIN;
	c->found = found && !err;
	return err;
}

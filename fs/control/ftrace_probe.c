// SPDX-License-Identifier: MIT
/*
 * ftrace_probe.c - function probes: the commands traceon, traceoff, stacktrace,
 * dump, cpudump and snapshot of set_ftrace_filter (parsed in ftrace_filter.c), kept as
 * the kernel keeps them (kernel/trace/ftrace.c, trace_functions.c):
 *   - a probe is (function, cmd, counted); `f:traceoff` and `f:traceoff:5` are two
 *     probes, each listed and removed on its own (`!f:traceoff`, `!f:traceoff:0`);
 *   - adding a probe a function already has changes nothing (its count stays);
 *     a command that adds nothing at all is EINVAL;
 *   - removing: -ENODEV when the command (counted or not) has no probe at all,
 *     -EINVAL when it has none on the functions named;
 *   - read back after the functions and the cached mod commands: newest command
 *     first (the kernel lists its probe ops newest first), each as
 *     `func:cmd:unlimited` or `func:cmd:count=N`.
 * Each instance has its own probes (tfs_ft.inst[slot].probes, the top level's in
 * slot 0), as the kernel registers a probe on the trace array of the file it was
 * written to: a set_ftrace_filter lists and removes only its instance's, and the
 * same (function, cmd, counted) may be in several instances, each with its count.
 * The processes act on them (runtime/probe.c); a counted probe's count lives in
 * the area memfd (ut_sel.h) so that every process takes from the same count.
 * Counter slots are shared by all instances.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "functab.h"

static const char *const names[] = {
    [UT_PROBE_TRACEON] = "traceon",	  [UT_PROBE_TRACEOFF] = "traceoff",
    [UT_PROBE_STACKTRACE] = "stacktrace", [UT_PROBE_DUMP] = "dump",
    [UT_PROBE_CPUDUMP] = "cpudump",	  [UT_PROBE_SNAPSHOT] = "snapshot",
};

const char *tfs_probe_name(uint32_t cmd)
{
	return cmd && cmd <= UT_PROBE_CMD_MAX ? names[cmd] : "?";
}

static unsigned int ops_of(uint32_t cmd, bool counted)
{
	return cmd * 2 + counted;
}

/* ---- counters ------------------------------------------------------------------------- */

static uint64_t slot_used[UT_PROBE_SLOTS / 64];
static uint32_t slot_next; /* allocation goes round, so a freed slot is reused late */
static int64_t *private_counts; /* without an area (unit tests) */

int64_t *tfs_probe_counter(uint32_t slot)
{
	uint64_t off = ut_probe_counts_off(tfs.nr_cpus);

	if (slot >= UT_PROBE_SLOTS)
		return NULL;
	if (tfs.area && tfs.area_size >= off + UT_PROBE_COUNTS_SIZE)
		return (int64_t *)((char *)tfs.area + off) + slot;
	if (!private_counts)
		private_counts = calloc(UT_PROBE_SLOTS, sizeof(int64_t));
	return private_counts ? private_counts + slot : NULL;
}

static uint32_t slot_alloc(void)
{
	for (uint32_t i = 0; i < UT_PROBE_SLOTS; i++) {
		uint32_t s = (slot_next + i) % UT_PROBE_SLOTS;

		if (!(slot_used[s / 64] >> (s % 64) & 1)) {
			slot_used[s / 64] |= 1ull << (s % 64);
			slot_next = s + 1;
			return s;
		}
	}
	return UT_PROBE_UNLIMITED;
}

static void slot_free(uint32_t s)
{
	if (s < UT_PROBE_SLOTS)
		slot_used[s / 64] &= ~(1ull << (s % 64));
}

/* ---- the list ------------------------------------------------------------------------- */

static int cmp_probe(const struct tfs_ft_probe *a, uint32_t func, uint32_t cmd, bool counted)
{
	if (a->func != func)
		return a->func < func ? -1 : 1;
	if (a->cmd != cmd)
		return a->cmd < cmd ? -1 : 1;
	return a->counted == counted ? 0 : a->counted < counted ? -1 : 1;
}

/* Index of (func, cmd, counted), or where it goes; *found says which. */
static unsigned int find(const struct tfs_ft_probes *p, uint32_t func, uint32_t cmd, bool counted,
			 bool *found)
{
	unsigned int lo = 0, hi = p->n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (cmp_probe(&p->v[mid], func, cmd, counted) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < p->n && !cmp_probe(&p->v[lo], func, cmd, counted);
	return lo;
}

int tfs_probes_copy(struct tfs_ft_probes *dst, const struct tfs_ft_probes *src)
{
	*dst = *src;
	dst->v = NULL;
	dst->cap = src->n;
	if (src->n) {
		dst->v = malloc(src->n * sizeof(*dst->v));
		if (!dst->v)
			return -ENOMEM;
		memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	}
	return 0;
}

void tfs_probes_free(struct tfs_ft_probes *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

static bool ops_has(const struct tfs_ft_probes *p, unsigned int ops)
{
	for (unsigned int i = 0; i < p->n; i++)
		if (ops_of(p->v[i].cmd, p->v[i].counted) == ops)
			return true;
	return false;
}

int tfs_probes_add(struct tfs_ft_probes *p, uint32_t cmd, bool counted, int64_t count,
		   const uint8_t *set, unsigned int n)
{
	unsigned int ops = ops_of(cmd, counted);
	bool added = false;

	for (uint32_t id = 0; id < n; id++) {
		bool found;
		unsigned int at;

		if (!set[id])
			continue;
		at = find(p, id, cmd, counted, &found);
		if (found)
			continue; /* the kernel keeps the probe and its count */
		if (p->n == p->cap) {
			unsigned int cap = p->cap ? p->cap * 2 : 16;
			struct tfs_ft_probe *v = realloc(p->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			p->v = v;
			p->cap = cap;
		}
		memmove(&p->v[at + 1], &p->v[at], (p->n - at) * sizeof(*p->v));
		p->v[at] = (struct tfs_ft_probe){.func = id,
						 .cmd = (uint8_t)cmd,
						 .counted = counted,
						 .slot = UT_PROBE_UNLIMITED,
						 .init = count};
		p->n++;
		added = true;
	}
	if (!added)
		return -EINVAL;
	if (!p->ops_seq[ops])
		p->ops_seq[ops] = ++p->seq;
	return 0;
}

int tfs_probes_del(struct tfs_ft_probes *p, uint32_t cmd, bool counted, bool all,
		   const uint8_t *set, unsigned int n)
{
	unsigned int ops = ops_of(cmd, counted), k = 0;
	bool removed = false;

	if (!ops_has(p, ops))
		return -ENODEV;
	for (unsigned int i = 0; i < p->n; i++) {
		const struct tfs_ft_probe *e = &p->v[i];
		bool hit = ops_of(e->cmd, e->counted) == ops &&
			   (all || (set && e->func < n && set[e->func]));

		if (hit)
			removed = true;
		else
			p->v[k++] = *e;
	}
	p->n = k;
	if (!removed)
		return -EINVAL;
	if (!ops_has(p, ops))
		p->ops_seq[ops] = 0; /* added again later, it is the newest */
	return 0;
}

static void renumber(struct tfs_ft_probes *p, const uint32_t *map)
{
	unsigned int k = 0;

	/* the map keeps the order of the ids it keeps: the list stays sorted */
	for (unsigned int i = 0; i < p->n; i++) {
		struct tfs_ft_probe e = p->v[i];

		if (map[e.func] == UINT32_MAX) {
			slot_free(e.slot);
			continue;
		}
		e.func = map[e.func];
		p->v[k++] = e;
	}
	p->n = k;
	for (unsigned int ops = 0; ops < TFS_PROBE_OPS; ops++)
		if (p->ops_seq[ops] && !ops_has(p, ops))
			p->ops_seq[ops] = 0;
}

void tfs_probes_renumber_locked(const uint32_t *map)
{
	for (unsigned int inst = 0; inst < UT_INST_MAX; inst++)
		renumber(&tfs_ft.inst[inst].probes, map);
}

unsigned int tfs_probes_total_locked(void)
{
	unsigned int n = 0;

	for (unsigned int inst = 0; inst < UT_INST_MAX; inst++)
		n += tfs_ft.inst[inst].probes.n;
	return n;
}

int tfs_probes_commit_locked(unsigned int inst, struct tfs_ft_probes *p)
{
	struct tfs_ft_probes *cur = &tfs_ft.inst[inst].probes;
	unsigned int need = 0;
	uint32_t free_slots = 0;

	/* more than a process could be told, all instances together */
	if (tfs_probes_total_locked() - cur->n + p->n > UT_SEL_PROBES_MAX)
		return -ENOSPC;
	for (unsigned int i = 0; i < p->n; i++)
		need += p->v[i].counted && p->v[i].slot == UT_PROBE_UNLIMITED;
	for (unsigned int i = 0; i < UT_PROBE_SLOTS / 64; i++)
		free_slots += 64 - (uint32_t)__builtin_popcountll(slot_used[i]);
	/* the ones this commit drops come free only after it: count them out */
	if (need > free_slots)
		return -ENOSPC;
	for (unsigned int i = 0; i < cur->n; i++) {
		bool found;
		const struct tfs_ft_probe *e = &cur->v[i];
		unsigned int at = find(p, e->func, e->cmd, e->counted, &found);

		/* gone, or removed and made again in the same write (a new count) */
		if (!found || p->v[at].slot != e->slot)
			slot_free(e->slot);
	}
	for (unsigned int i = 0; i < p->n; i++) {
		struct tfs_ft_probe *e = &p->v[i];
		int64_t *c;

		if (!e->counted || e->slot != UT_PROBE_UNLIMITED)
			continue;
		e->slot = slot_alloc();
		c = tfs_probe_counter(e->slot);
		if (c)
			__atomic_store_n(c, e->init, __ATOMIC_RELEASE);
	}
	free(cur->v);
	*cur = *p;
	memset(p, 0, sizeof(*p));
	return 0;
}

void tfs_probes_reset(void)
{
	for (unsigned int inst = 0; inst < UT_INST_MAX; inst++) {
		tfs_probes_free(&tfs_ft.inst[inst].probes);
		tfs_ft_pats_free(&tfs_ft.inst[inst].probe_pats);
	}
	memset(slot_used, 0, sizeof(slot_used));
	slot_next = 0;
}

bool tfs_probes_inst_drop(unsigned int inst)
{
	struct tfs_ft_isel *is = &tfs_ft.inst[inst];
	bool had;

	if (!inst || inst >= UT_INST_MAX)
		return false;
	pthread_mutex_lock(&tfs_ft_lock);
	had = is->probes.n > 0;
	for (unsigned int i = 0; i < is->probes.n; i++)
		slot_free(is->probes.v[i].slot);
	tfs_probes_free(&is->probes);
	tfs_ft_pats_free(&is->probe_pats);
	pthread_mutex_unlock(&tfs_ft_lock);
	return had;
}

unsigned int tfs_probes_on_locked(uint32_t id)
{
	unsigned int n = 0;

	for (unsigned int inst = 0; inst < UT_INST_MAX; inst++) {
		const struct tfs_ft_probes *p = &tfs_ft.inst[inst].probes;
		bool found;
		unsigned int i = find(p, id, 0, false, &found);

		for (; i < p->n && p->v[i].func == id; i++)
			n++;
	}
	return n;
}

/* One probe's line: the function as set_ftrace_filter lists it, the command, the count. */
static int show_one(struct tfs_buf *b, const struct tfs_ft_probe *e, bool demangle)
{
	struct tfs_ft_func *f = &tfs_ft.funcs[e->func];
	const struct tfs_ft_obj *ob = &tfs_ft.objs[f->obj];
	int64_t *c = e->counted ? tfs_probe_counter(e->slot) : NULL;
	const char *name = tfs_ft_func_name(f, demangle);
	int err = ob->exe ? tfs_buf_printf(b, "%s:%s", name, tfs_probe_name(e->cmd))
			  : tfs_buf_printf(b, "%s [%s]:%s", name, ob->mod, tfs_probe_name(e->cmd));

	if (err)
		return err;
	if (!e->counted)
		return tfs_buf_printf(b, ":unlimited\n");
	/* shared memory any process can write: a count from init >= 0 only goes down to 0 */
	int64_t v = c ? __atomic_load_n(c, __ATOMIC_ACQUIRE) : e->init;

	if (e->init >= 0 && (v < 0 || v > e->init))
		v = v < 0 ? 0 : e->init;
	return tfs_buf_printf(b, ":count=%lld\n", (long long)v);
}

int tfs_probes_show_locked(unsigned int inst, struct tfs_buf *b, bool demangle)
{
	const struct tfs_ft_probes *p = &tfs_ft.inst[inst].probes;
	uint32_t below = UINT32_MAX;
	int err = 0;

	/* the ops newest first; each ops's probes in available_filter_functions order */
	for (;;) {
		unsigned int ops = 0;
		uint32_t best = 0;

		for (unsigned int k = 0; k < TFS_PROBE_OPS; k++)
			if (p->ops_seq[k] < below && p->ops_seq[k] > best) {
				best = p->ops_seq[k];
				ops = k;
			}
		if (!best)
			return 0;
		below = best;
		for (unsigned int i = 0; i < tfs_ft.nr_objs && !err; i++) {
			const struct tfs_ft_obj *ob = &tfs_ft.objs[i];

			for (unsigned int j = 0; j < ob->n && !err; j++) {
				bool found;
				unsigned int at = find(p, ob->funcs[j], ops / 2, ops % 2, &found);

				if (found)
					err = show_one(b, &p->v[at], demangle);
			}
		}
		if (err)
			return err;
	}
}

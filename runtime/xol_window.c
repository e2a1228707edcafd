// SPDX-License-Identifier: MIT
/*
 * xol_window.c - the choice of a probe's patch window (xol_window.h).
 *
 * One linear pass over the function records what lies near addr: the
 * instructions that start in [addr - UT_XOL_PRE_MAX, addr + UT_XOL_WIN_MAX), and
 * every direct branch (jmp, jcc, loop, call, xbegin) whose target falls there,
 * with its source.  A candidate window is then judged on that record alone, so
 * trying many costs one pass.  A function with an indirect jmp has no window: a
 * jump table could land anywhere in it.
 */
#include <string.h>

#include "arch/x86_64/insn.h"
#include "xol_window.h"

#define NEAR_LEN (UT_XOL_PRE_MAX + UT_XOL_WIN_MAX)
#define BRANCH_MAX 64u /* branches into the near bytes: more, and no window is tried */

struct near {
	uintptr_t base;		     /* addr - UT_XOL_PRE_MAX, or lo when nearer */
	struct ut_insn at[NEAR_LEN]; /* len 0: no instruction starts at base + i */
	uint32_t nbr;
	uintptr_t src[BRANCH_MAX], dst[BRANCH_MAX];
};

/* Decode the function once; 1 when it decodes linearly through addr, with no indirect jmp. */
static int near_scan(const struct ut_xol_code *c, uintptr_t addr, struct near *nr)
{
	uintptr_t pc = c->lo;
	int seen = 0;

	if (!c->lo || c->hi <= c->lo || addr < c->lo || addr >= c->hi)
		return 0;
	memset(nr, 0, sizeof(*nr));
	nr->base = addr - c->lo < UT_XOL_PRE_MAX ? c->lo : addr - UT_XOL_PRE_MAX;
	while (pc < c->hi) {
		uint8_t buf[UT_INSN_MAX];
		size_t avail = c->hi - pc < sizeof(buf) ? c->hi - pc : sizeof(buf);
		struct ut_insn in;

		c->read(pc, buf, avail, c->arg);
		if (!ut_insn_decode(buf, avail, pc, &in) || in.kind == UT_INSN_JMP_IND)
			return 0;
		if (pc >= nr->base && pc - nr->base < NEAR_LEN)
			nr->at[pc - nr->base] = in;
		if (in.rel_size && in.target >= nr->base && in.target - nr->base < NEAR_LEN) {
			if (nr->nbr == BRANCH_MAX)
				return 0;
			nr->src[nr->nbr] = pc;
			nr->dst[nr->nbr++] = (uintptr_t)in.target;
		}
		seen |= pc == addr;
		pc += in.len;
	}
	return seen;
}

static const struct ut_insn *insn_at(const struct near *nr, uintptr_t a)
{
	if (a < nr->base || a - nr->base >= NEAR_LEN || !nr->at[a - nr->base].len)
		return NULL;
	return &nr->at[a - nr->base];
}

/* The rules of xol_window.h for [s, e), on the record. */
static int window_ok(const struct ut_xol_code *c, const struct near *nr, uintptr_t addr,
		     uintptr_t s, uintptr_t e)
{
	uintptr_t a = s;

	if (s > addr || e <= addr || e - s < 5 || e - s > UT_XOL_WIN_MAX ||
	    addr - s > UT_XOL_PRE_MAX || s < c->lo || e > c->hi)
		return 0;
	while (a < e) {
		const struct ut_insn *in = insn_at(nr, a);

		if (!in || in->kind == UT_INSN_INT3 || in->kind == UT_INSN_XBEGIN ||
		    in->kind == UT_INSN_SYS)
			return 0;
		if ((in->kind == UT_INSN_CALL || in->kind == UT_INSN_CALL_IND) && a + in->len < e)
			return 0;
		/* rip = s + 1 then means "met the int3 at s", never "at the next instruction" */
		if (a == s && s < addr && in->len < 2)
			return 0;
		a += in->len;
	}
	if (a != e)
		return 0;
	for (uint32_t i = 0; i < nr->nbr; i++)
		if (nr->dst[i] > s && nr->dst[i] < e &&
		    (nr->src[i] < s || nr->src[i] >= e || !insn_at(nr, nr->dst[i])))
			return 0;
	return !c->busy || !c->busy(s, e, c->arg);
}

int ut_xol_window(const struct ut_xol_code *c, uintptr_t addr, uintptr_t *start, uintptr_t *end)
{
	struct near nr;

	if (!near_scan(c, addr, &nr))
		return -1;
	for (uintptr_t back = 0; back <= UT_XOL_PRE_MAX && back <= addr - c->lo; back++) {
		uintptr_t s = addr - back;

		if (!insn_at(&nr, s))
			continue;
		for (uintptr_t e = addr + 1; e <= s + UT_XOL_WIN_MAX && e <= c->hi; e++)
			if (window_ok(c, &nr, addr, s, e)) {
				*start = s;
				*end = e;
				return 0;
			}
	}
	return -1;
}

int ut_xol_window_ok(const struct ut_xol_code *c, uintptr_t addr, uintptr_t start, uintptr_t end)
{
	struct near nr;

	return near_scan(c, addr, &nr) && window_ok(c, &nr, addr, start, end);
}

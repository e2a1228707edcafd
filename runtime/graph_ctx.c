// SPDX-License-Identifier: MIT
/*
 * graph_ctx.c - function_graph across context switches: swapcontext, setcontext
 * (interposed in interpose.c), coroutines made with makecontext.
 *
 * A coroutine runs on a stack of its own, anywhere (a heap block, an array in the
 * frame of the function that made it): its slots compare arbitrarily with those
 * of the context that switched to it, so graph.c's dead-frame rule, which trusts
 * that stacks grow down, would close live frames, and their functions would later
 * return through a slot no frame knows.  So a switch is fenced as a signal
 * handler is, with a marker frame (GF_MARKER | GF_CTX) that nothing closes frames
 * across:
 *
 *  - swapcontext(save, to) pushes a context marker whose key is save, then
 *    switches.  The functions of the context switched to nest one level below the
 *    function that switched (a coroutine's calls show inside the call that ran it).
 *  - When that swapcontext returns (save was resumed), the frames above its marker
 *    belong to the contexts that ran meanwhile.  Each run of them that ends with
 *    another context marker belongs to a context suspended in swapcontext (the
 *    marker's key is where it was saved): it is parked, copied aside with its
 *    marker, under that key.  A run that ends without one belongs to a context that
 *    ended (returned to its uc_link) or left with setcontext: its frames are dead
 *    and get their exits.  Then the marker is popped.
 *  - Switching to a ucontext that has parked frames pushes them back first, on top
 *    of the new marker: the coroutine goes on and returns through them, and the
 *    swapcontext it resumes in pops its own marker, now on top.  Unless the
 *    ucontext no longer holds the stack and instruction pointers it was suspended
 *    with (makecontext made another context in it): then the parked frames were
 *    abandoned, and get their exits.
 *  - setcontext(to) does not come back: a parked target is pushed back above a
 *    marker of no key (the context left is abandoned); any other target is a jump
 *    within the context, closed as longjmp closes (which stops at context markers).
 *
 * Each thread parks at most GPARK_SLOTS contexts of GPARK_FRAMES frames (in its
 * shadow stack's mapping, graph.h).  A suspended context that does not fit gets
 * its original return addresses back (its stack is alive: it has just been
 * suspended) and its frames are dropped: its later returns are not graphed, but
 * it runs unharmed.  Coroutines that move between threads are not followed.
 */
#include <ucontext.h>

#include "graph.h"

static void count_open(const struct ut_gframe *f, int by)
{
	if ((f->flags & (GF_VALID | GF_SILENT)) == (GF_VALID | GF_SILENT))
		ut_thr.gnotrace += (uint32_t)by;
	if ((f->flags & (GF_VALID | GF_GFUNC)) == (GF_VALID | GF_GFUNC))
		ut_thr.gfuncs += (uint32_t)by;
}

/* Push a copy of *src (signal-safe order, as graph.c pushes); 0, or -1: full. */
static int push_copy(struct ut_gframe *fs, const struct ut_gframe *src)
{
	uint32_t idx = ut_thr.gtop;
	struct ut_gframe *f = &fs[idx];

	if (idx >= GSTACK_FRAMES)
		return -1;
	ut_thr.gtop = idx + 1;
	barrier();
	f->flags = 0;
	barrier();
	*f = *src;
	f->flags = 0;
	barrier();
	f->flags = src->flags;
	barrier();
	count_open(f, 1);
	return 0;
}

/* A frame given up while its function is alive: its slot gets the original back. */
static void unhook(const struct ut_gframe *f)
{
	uintptr_t *slot = (uintptr_t *)f->slot;

	if ((f->flags & (GF_VALID | GF_MARKER)) == GF_VALID && *slot == f->landing)
		*slot = f->ret;
}

static struct ut_gpark *park_find(struct ut_gframe *fs, uintptr_t key)
{
	struct ut_gpark *p = ut_gparks(fs);

	for (unsigned int i = 0; key && i < GPARK_SLOTS; i++)
		if (p[i].key == key)
			return &p[i];
	return NULL;
}

/* Move the frames [from, top) of a suspended context aside, under key. */
static void park(struct ut_gframe *fs, uint32_t from, uintptr_t key)
{
	struct ut_gpark *p = park_find(fs, key), *all = ut_gparks(fs);
	uint32_t n = ut_thr.gtop - from;
	struct ut_gframe c;
	int keep;

	for (unsigned int i = 0; !p && i < GPARK_SLOTS; i++)
		if (!all[i].key)
			p = &all[i];
	keep = p && n <= GPARK_FRAMES;
	if (p)
		p->key = 0;
	for (uint32_t k = n; k > 0; k--) {
		ut_gpop(fs, &c);
		if (keep)
			p->f[k - 1] = c;
		else
			unhook(&c);
	}
	if (keep) {
		const ucontext_t *uc = (const ucontext_t *)key;

		p->n = n;
		p->rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
		p->rsp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
		p->key = key;
	}
}

/* Push the parked frames of the context saved in key back; 1 if there were some. */
static int unpark(struct ut_gframe *fs, uintptr_t key)
{
	struct ut_gpark *p = park_find(fs, key);
	const ucontext_t *uc = (const ucontext_t *)key;
	uint32_t k = 0;

	if (!p)
		return 0;
	if (p->rip != (uintptr_t)uc->uc_mcontext.gregs[REG_RIP] ||
	    p->rsp != (uintptr_t)uc->uc_mcontext.gregs[REG_RSP]) {
		for (k = p->n; k > 0; k--) /* made anew: that context was abandoned */
			if ((p->f[k - 1].flags & (GF_VALID | GF_MARKER)) == GF_VALID)
				ut_gwrite_exit(&p->f[k - 1], 0);
		p->key = 0;
		return 0;
	}
	for (; k < p->n; k++)
		if (push_copy(fs, &p->f[k]))
			break;
	for (; k < p->n; k++) /* no room: let them return by themselves */
		unhook(&p->f[k]);
	p->key = 0;
	return 1;
}

static void push_marker(struct ut_gframe *fs, uintptr_t key)
{
	struct ut_gframe m = {.slot = (uintptr_t)__builtin_frame_address(0),
			      .ret = key,
			      .depth = (uint16_t)ut_gnext_depth(fs, ut_thr.gtop),
			      .flags = GF_MARKER | GF_CTX};

	push_copy(fs, &m);
}

/* The shadow stack, if the graph tracer has one for this thread or is on. */
static struct ut_gframe *ctx_stack(void)
{
	struct ut_gframe *fs = ut_thr.gframes;

	return fs ? fs : ut_graph_wanted() ? ut_gs_alloc() : NULL;
}

/* swapcontext(save, to) is about to switch. */
void ut_graph_ctx_leave(const void *save, const void *to)
{
	struct ut_gframe *fs = ctx_stack();
	uint8_t guard = ut_thr.guard;

	if (!fs)
		return;
	ut_thr.guard = 1;
	push_marker(fs, (uintptr_t)save);
	unpark(fs, (uintptr_t)to);
	ut_thr.guard = guard;
}

/* swapcontext(save, ...) returned: save runs again (see the top of the file). */
void ut_graph_ctx_resume(const void *save)
{
	struct ut_gframe *fs = ut_thr.gframes, c;
	uint8_t guard = ut_thr.guard;
	uint32_t i;

	if (!fs)
		return;
	for (i = ut_thr.gtop; i > 0; i--)
		if ((fs[i - 1].flags & GF_CTX) && fs[i - 1].ret == (uintptr_t)save)
			break;
	if (i == 0)
		return; /* not switched with a marker (the tracer came later) */
	ut_thr.guard = 1;
	while (ut_thr.gtop > i) {
		struct ut_gframe *f = &fs[ut_thr.gtop - 1];

		if ((f->flags & GF_CTX) && f->ret) {
			uint32_t j = ut_thr.gtop - 1;

			while (j > i && !(fs[j - 1].flags & GF_CTX))
				j--;
			park(fs, j, f->ret); /* a context suspended in swapcontext */
			continue;
		}
		/* a context that ended, or was left by setcontext (a marker of no key) */
		ut_gpop(fs, &c);
		if ((c.flags & (GF_VALID | GF_MARKER)) == GF_VALID)
			ut_gwrite_exit(&c, 0);
	}
	ut_gpop(fs, &c); /* our marker */
	ut_thr.guard = guard;
}

/* setcontext(to), to's stack pointer sp: a switch that does not come back. */
void ut_graph_ctx_jump(const void *to, uintptr_t sp)
{
	struct ut_gframe *fs = ut_thr.gframes;
	uint8_t guard = ut_thr.guard;

	if (!fs)
		return;
	if (!park_find(fs, (uintptr_t)to)) {
		ut_graph_longjmp(sp);
		return;
	}
	ut_thr.guard = 1;
	push_marker(fs, 0);
	unpark(fs, (uintptr_t)to);
	ut_thr.guard = guard;
}

// SPDX-License-Identifier: MIT
/*
 * stubs.c - a stub near each object, because `call rel32` reaches only +-2 GiB.
 *
 * A stub is two pages placed within reach of every site of one object: the first
 * (read + execute) holds `jmp *slot(%rip)`, the second (read + write) holds the
 * 8-byte slot with the trampoline's address.  Sites call the stub; switching the
 * tracer (function <-> function_graph) is one store into each slot.  At offset
 * UT_PROBE_STUB_OFF the probe stub, `jmp *slot[1](%rip)` to ut_tramp_probe, is
 * what sites with function probes call; at UT_STACK_STUB_OFF, `jmp *slot[68]` to
 * ut_tramp_stack, what sites the stack tracer alone takes call.  At UT_INST_STUB_OFF(i), for each
 * instance slot i, the entry of the sites whose function events go to instance i
 * alone (route.c):
 *
 *   mov base[i](%rip), %r11   instance i's span, NULL while detached
 *   jmp *slot[2](%rip)        ut_tramp_function_inst: ut_tramp_function after
 *                             its own load of r11 (the top's span)
 *
 * so such a site runs the function tracer's fast path with one instruction more;
 * base[i] is slot[3 + i - 1], written by ut_stubs_set_bases at every attach.
 * At UT_MULTI_STUB_OFF(j), for each set j of spans some site feeds (the top and
 * instances, each under the function tracer: route.c), its entry:
 *
 *   lea set[j](%rip), %r11    {instance mask, top?} in the data page (MULTI_DATA)
 *   jmp *slot[67](%rip)       ut_tramp_function_multi: the fast path per span
 *
 * Sets are filled in as sites need them (ut_stub_multi) and never rewritten.
 *
 * The graph tracer also gets one 32-byte stub per site (ut_gstub_alloc), in
 * pages placed the same way, and a site then becomes `jmp A` to its own stub:
 *
 *   A: call *tramp(%rip)   ut_tramp_graph_site; pushes B (stack and return stack)
 *   B: call D              pushes C: the return stack predicts the body's ret
 *   C: jmp *rth(%rip)      the "landing": a hijacked slot holds C
 *   D: lea 8(%rsp), %rsp   drop C from the real stack (it stays predicted)
 *      jmp site + 5        the function's body
 *   A + 28: the site's index in ut_sites (data, never run: graph.S reads it to
 *      decide set_graph_function in its fast path)
 *
 * so that the function's `ret` to C and ut_return_to_handler's `ret` to the
 * caller are both predicted (return hijacking with `call stub` costs one return
 * misprediction per call).  ut_tramp_graph_site finds the site from B: the rel32
 * of D's jmp is at B + 17, the site + 5 at B + 21 + rel32.
 *
 * After the stubs, in pages of their own, each site has a 16-byte entry for a
 * function_graph instance that takes it alone (route.c; the site is then `jmp E`):
 *
 *   E: call *itramp(%rip)  ut_tramp_graph_isite; pushes E + 6
 *      jmp B               the site's stub from B on: the same landing C
 *
 * so the instance's frames return through the same predicted landing, which the
 * unwind information already covers; its trampoline finds B from the jmp at E + 6.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "rt.h"

#define STUB_SIZE 8192ul
#define REACH_OF(size) ((1ul << 31) - (size) - 4096)
#define REACH REACH_OF(STUB_SIZE)
#define STEP (1ul << 21)
#define GSTUB_LEN UT_GSTUB_LEN

/* Where the slots point: the current tracer's trampoline. */
static void (*cur_tramp)(void) = ut_tramp_function;
/* Every instance slot's span in the mapped area, 0: none (detached); tramp.S reads it. */
uintptr_t ut_stub_bases[UT_INST_MAX];

#define SLOT_INST_TRAMP 2	     /* slot[2]: ut_tramp_function_inst */
#define SLOT_BASE(i) (3u + (i) - 1u) /* slot[3 ..]: the span of instance slot i */
#define SLOT_MULTI_TRAMP SLOT_BASE(UT_INST_MAX) /* ut_tramp_function_multi */
#define SLOT_STACK_TRAMP (SLOT_MULTI_TRAMP + 1) /* ut_tramp_stack */
#define MULTI_DATA(j) (1024u + 16u * (j))
_Static_assert(8 * (SLOT_STACK_TRAMP + 1) <= MULTI_DATA(0), "slots before the sets"); /* {mask, top} of entry j, in the data page */

static int within_size(uintptr_t stub, uintptr_t lo, uintptr_t hi, size_t size)
{
	uintptr_t far_lo = stub > lo ? stub - lo : lo - stub;
	uintptr_t far_hi = stub > hi ? stub - hi : hi - stub;

	return far_lo < REACH_OF(size) && far_hi < REACH_OF(size);
}

static int within(uintptr_t stub, uintptr_t lo, uintptr_t hi)
{
	return within_size(stub, lo, hi, STUB_SIZE);
}

static void *try_at(uintptr_t addr, size_t size)
{
	void *p = mmap((void *)addr, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if ((uintptr_t)p != addr) { /* old kernels ignore the flag and treat it as a hint */
		munmap(p, size);
		return NULL;
	}
	return p;
}

static uintptr_t place(uintptr_t lo, uintptr_t hi, size_t size)
{
	/* Below the object first (usually free), then above it. */
	for (uintptr_t d = STEP + (size & ~(STEP - 1)); d < REACH_OF(size); d += STEP) {
		uintptr_t below = (lo & ~(STEP - 1)) - d, above = ((hi + STEP) & ~(STEP - 1)) + d;
		void *p;

		if (below < lo && below > 65536 && within_size(below, lo, hi, size) &&
		    (p = try_at(below, size)))
			return (uintptr_t)p;
		if (above > hi && within_size(above, lo, hi, size) && (p = try_at(above, size)))
			return (uintptr_t)p;
	}
	return 0;
}

uintptr_t ut_near_alloc(uintptr_t lo, uintptr_t hi, size_t size)
{
	return hi - lo < REACH_OF(size) ? place(lo, hi, size) : 0;
}

int ut_stub_reaches(uintptr_t stub, uintptr_t lo, uintptr_t hi)
{
	return hi - lo < REACH && within(stub, lo, hi);
}

void ut_stub_free(uintptr_t stub)
{
	munmap((void *)stub, STUB_SIZE);
}

uintptr_t ut_stubs_tramp(void)
{
	return (uintptr_t)cur_tramp;
}

void ut_stubs_set_tramp(void (*tramp)(void))
{
	cur_tramp = tramp;
	for (uint32_t i = 0; i < ut_nr_objs; i++)
		if (ut_objs[i].stub)
			__atomic_store_n((uint64_t *)(ut_objs[i].stub + 4096), (uintptr_t)tramp,
					 __ATOMIC_RELEASE);
}

void ut_stubs_set_bases(struct ut_ctl *area)
{
	static struct ut_ctl *cur_area;

	if (area == cur_area)
		return; /* stubs made since took ut_stub_bases */
	cur_area = area;
	for (unsigned int i = 1; i < UT_INST_MAX; i++)
		ut_stub_bases[i] = area ? (uintptr_t)ut_rt_slot_area(area, i) : 0;
	for (uint32_t k = 0; k < ut_nr_objs; k++) {
		uint64_t *slot = (uint64_t *)(ut_objs[k].stub + 4096);

		if (!ut_objs[k].stub)
			continue;
		for (unsigned int i = 1; i < UT_INST_MAX; i++)
			__atomic_store_n(&slot[SLOT_BASE(i)], ut_stub_bases[i], __ATOMIC_RELEASE);
	}
}

/* The entry of instance slot i in stub page code (slots: its data page). */
static void inst_entry(unsigned char *code, unsigned int i)
{
	unsigned int off = UT_INST_STUB_OFF(i);
	int32_t rel = (int32_t)(4096 + 8 * SLOT_BASE(i) - (off + 7));

	code[off] = 0x4c; /* mov rel(%rip), %r11 */
	code[off + 1] = 0x8b;
	code[off + 2] = 0x1d;
	memcpy(code + off + 3, &rel, 4);
	rel = (int32_t)(4096 + 8 * SLOT_INST_TRAMP - (off + 13));
	code[off + 7] = 0xff; /* jmp *rel(%rip) */
	code[off + 8] = 0x25;
	memcpy(code + off + 9, &rel, 4);
}

_Static_assert(UT_MULTI_STUB_OFF(UT_MULTI_MAX) <= 4096 && MULTI_DATA(UT_MULTI_MAX) <= 4096 &&
		       8 * (SLOT_MULTI_TRAMP + 1) <= MULTI_DATA(0),
	       "the entries of sets of spans fit the stub's code and data pages");

/* Entry j of a set of spans: lea MULTI_DATA(j)(%rip), %r11; jmp *slot(%rip). */
static void multi_entry(unsigned char *code, unsigned int j)
{
	unsigned int off = UT_MULTI_STUB_OFF(j);
	int32_t rel = (int32_t)(4096 + MULTI_DATA(j) - (off + 7));

	code[off] = 0x4c;
	code[off + 1] = 0x8d;
	code[off + 2] = 0x1d;
	memcpy(code + off + 3, &rel, 4);
	rel = (int32_t)(4096 + 8 * SLOT_MULTI_TRAMP - (off + 13));
	code[off + 7] = 0xff;
	code[off + 8] = 0x25;
	memcpy(code + off + 9, &rel, 4);
}

/*
 * A set is never written again once a site may call it: sets are found by value,
 * and a page that has no room left sends further sets through the probe stub
 * (UT_SITE_PROBE), which reaches every instance too.
 */
int ut_stub_multi(const struct ut_obj *o, uint64_t mask, int top)
{
	uint64_t *data;

	if (!o->stub || !mask)
		return -1;
	data = (uint64_t *)(o->stub + 4096 + MULTI_DATA(0));
	for (unsigned int j = 0; j < UT_MULTI_MAX; j++, data += 2) {
		if (data[0] == mask && data[1] == (uint64_t)!!top)
			return (int)j;
		if (!data[0]) {
			data[1] = (uint64_t)!!top;
			__atomic_store_n(&data[0], mask, __ATOMIC_RELEASE);
			return (int)j;
		}
	}
	return -1;
}

uintptr_t ut_stub_alloc(uintptr_t lo, uintptr_t hi)
{
	uintptr_t stub;
	unsigned char *code;
	uint64_t *slot;
	int32_t rel;

	if (hi - lo >= REACH)
		return 0;
	stub = place(lo, hi, STUB_SIZE);
	if (!stub)
		return 0;
	code = (unsigned char *)stub;
	slot = (uint64_t *)(stub + 4096);
	slot[0] = (uint64_t)(uintptr_t)cur_tramp;
	slot[1] = (uint64_t)(uintptr_t)ut_tramp_probe;
	slot[SLOT_INST_TRAMP] = (uint64_t)(uintptr_t)ut_tramp_function_inst;
	slot[SLOT_MULTI_TRAMP] = (uint64_t)(uintptr_t)ut_tramp_function_multi;
	slot[SLOT_STACK_TRAMP] = (uint64_t)(uintptr_t)ut_tramp_stack;
	for (unsigned int i = 1; i < UT_INST_MAX; i++)
		slot[SLOT_BASE(i)] = ut_stub_bases[i];
	memset(code, 0xcc, 4096);
	rel = 4096 - 6; /* jmp *rel(%rip): rip is the end of the 6-byte instruction */
	code[0] = 0xff;
	code[1] = 0x25;
	memcpy(code + 2, &rel, 4);
	rel = 4096 + 8 - (UT_PROBE_STUB_OFF + 6);
	code[UT_PROBE_STUB_OFF] = 0xff;
	code[UT_PROBE_STUB_OFF + 1] = 0x25;
	memcpy(code + UT_PROBE_STUB_OFF + 2, &rel, 4);
	rel = 4096 + 8 * SLOT_STACK_TRAMP - (UT_STACK_STUB_OFF + 6);
	code[UT_STACK_STUB_OFF] = 0xff;
	code[UT_STACK_STUB_OFF + 1] = 0x25;
	memcpy(code + UT_STACK_STUB_OFF + 2, &rel, 4);
	for (unsigned int i = 1; i < UT_INST_MAX; i++)
		inst_entry(code, i);
	for (unsigned int j = 0; j < UT_MULTI_MAX; j++)
		multi_entry(code, j);
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC)) {
		munmap(code, STUB_SIZE);
		return 0;
	}
	return stub;
}

/*
 * Code pages of the stubs, code pages of the instance entries, one data page,
 * then the stubs' unwind information (unwind.c).
 */
static size_t gstub_code(uint32_t cap)
{
	return ((size_t)cap * GSTUB_LEN + 4095) & ~4095ul;
}

static size_t gstub_icode(uint32_t cap)
{
	return ((size_t)cap * UT_GSTUB_ILEN + 4095) & ~4095ul;
}

static size_t gstub_data(uint32_t cap)
{
	return gstub_code(cap) + gstub_icode(cap);
}

static size_t gstub_size(uint32_t cap)
{
	return gstub_data(cap) + 4096 + ((ut_unwind_size(cap) + 4095) & ~4095ul);
}

uintptr_t ut_gstub_entry(const struct ut_obj *o, const struct ut_site *s, uint8_t st)
{
	uintptr_t k = (uintptr_t)(s - (ut_sites + o->first));

	if (st == UT_SITE_IJMP)
		return o->gstub + gstub_code(o->cap) + k * UT_GSTUB_ILEN;
	return o->gstub + k * GSTUB_LEN;
}

static void put32(unsigned char *p, int64_t v)
{
	int32_t r = (int32_t)v;

	memcpy(p, &r, 4);
}

/*
 * The per-site stubs of the sites ut_sites[first .. first + nr) (room for cap),
 * code pages (the stubs, then the instance entries) then one data page
 * {ut_tramp_graph_site, ut_return_to_handler, ut_tramp_graph_isite}, then their
 * unwind information (unwind.c: pthread_cancel unwinds through C).  Returns 0 if
 * they cannot be placed within reach of [lo, hi).
 */
uintptr_t ut_gstub_alloc(uintptr_t lo, uintptr_t hi, uint32_t first, uint32_t nr, uint32_t cap)
{
	size_t size = gstub_size(cap), code_len = gstub_data(cap);
	uintptr_t g, data;
	uint64_t *slots;

	if (!cap || hi - lo >= REACH_OF(size))
		return 0;
	g = place(lo, hi, size);
	if (!g)
		return 0;
	data = g + code_len;
	slots = (uint64_t *)data;
	slots[0] = (uintptr_t)ut_tramp_graph_site;
	slots[1] = (uintptr_t)ut_return_to_handler;
	slots[2] = (uintptr_t)ut_tramp_graph_isite;
	memset((void *)g, 0xcc, code_len);
	for (uint32_t k = 0; k < nr; k++) {
		unsigned char *a = (unsigned char *)(g + (uintptr_t)k * GSTUB_LEN);
		unsigned char *e =
		    (unsigned char *)(g + gstub_code(cap) + (uintptr_t)k * UT_GSTUB_ILEN);
		uintptr_t A = (uintptr_t)a, E = (uintptr_t)e, site = ut_sites[first + k].addr;

		a[0] = 0xff; /* A: call *slots[0](%rip) */
		a[1] = 0x15;
		put32(a + 2, (int64_t)data - (int64_t)(A + 6));
		a[6] = 0xe8; /* B: call D */
		put32(a + 7, 6);
		a[11] = 0xff; /* C: jmp *slots[1](%rip) */
		a[12] = 0x25;
		put32(a + 13, (int64_t)(data + 8) - (int64_t)(A + 17));
		a[17] = 0x48; /* D: lea 8(%rsp), %rsp */
		a[18] = 0x8d;
		a[19] = 0x64;
		a[20] = 0x24;
		a[21] = 0x08;
		a[22] = 0xe9; /* jmp site + 5 */
		put32(a + 23, (int64_t)(site + 5) - (int64_t)(A + 27));
		put32(a + 28, first + k); /* the site's index (graph.S) */
		e[0] = 0xff;		  /* E: call *slots[2](%rip) */
		e[1] = 0x15;
		put32(e + 2, (int64_t)(data + 16) - (int64_t)(E + 6));
		e[6] = 0xe9; /* jmp B */
		put32(e + 7, (int64_t)(A + 6) - (int64_t)(E + 11));
	}
	if (mprotect((void *)g, code_len, PROT_READ | PROT_EXEC)) {
		munmap((void *)g, size);
		return 0;
	}
	ut_unwind_add_gstubs((void *)(data + 4096), g, nr);
	return g;
}

void ut_gstub_free(uintptr_t g, uint32_t cap)
{
	if (!g)
		return;
	ut_unwind_remove((void *)(g + gstub_data(cap) + 4096));
	munmap((void *)g, gstub_size(cap));
}

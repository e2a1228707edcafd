// SPDX-License-Identifier: MIT
/*
 * stubs.c - a stub near each object, because `call rel32` reaches only +-2 GiB.
 *
 * A stub is two pages placed within reach of every site of one object: the first
 * (read + execute) holds `jmp *slot(%rip)`, the second (read + write) holds the
 * 8-byte slot with the trampoline's address.  Sites call the stub; switching the
 * tracer (function <-> function_graph) is one store into each slot.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "rt.h"

#define STUB_SIZE 8192ul
#define REACH ((1ul << 31) - STUB_SIZE - 4096)
#define STEP (1ul << 21)

/* Where the slots point: the current tracer's trampoline. */
static void (*cur_tramp)(void) = ut_tramp_function;

static int within(uintptr_t stub, uintptr_t lo, uintptr_t hi)
{
	uintptr_t far_lo = stub > lo ? stub - lo : lo - stub;
	uintptr_t far_hi = stub > hi ? stub - hi : hi - stub;

	return far_lo < REACH && far_hi < REACH;
}

static void *try_at(uintptr_t addr)
{
	void *p = mmap((void *)addr, STUB_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if ((uintptr_t)p != addr) { /* old kernels ignore the flag and treat it as a hint */
		munmap(p, STUB_SIZE);
		return NULL;
	}
	return p;
}

static uintptr_t place(uintptr_t lo, uintptr_t hi)
{
	/* Below the object first (usually free), then above it. */
	for (uintptr_t d = STEP; d < REACH; d += STEP) {
		uintptr_t below = (lo & ~(STEP - 1)) - d, above = ((hi + STEP) & ~(STEP - 1)) + d;
		void *p;

		if (below < lo && below > 65536 && within(below, lo, hi) && (p = try_at(below)))
			return (uintptr_t)p;
		if (above > hi && within(above, lo, hi) && (p = try_at(above)))
			return (uintptr_t)p;
	}
	return 0;
}

int ut_stub_reaches(uintptr_t stub, uintptr_t lo, uintptr_t hi)
{
	return hi - lo < REACH && within(stub, lo, hi);
}

void ut_stub_free(uintptr_t stub)
{
	munmap((void *)stub, STUB_SIZE);
}

void ut_stubs_set_tramp(void (*tramp)(void))
{
	cur_tramp = tramp;
	for (uint32_t i = 0; i < ut_nr_objs; i++)
		if (ut_objs[i].stub)
			__atomic_store_n((uint64_t *)(ut_objs[i].stub + 4096), (uintptr_t)tramp,
					 __ATOMIC_RELEASE);
}

uintptr_t ut_stub_alloc(uintptr_t lo, uintptr_t hi)
{
	uintptr_t stub;
	unsigned char *code;
	uint64_t *slot;
	int32_t rel;

	if (hi - lo >= REACH)
		return 0;
	stub = place(lo, hi);
	if (!stub)
		return 0;
	code = (unsigned char *)stub;
	slot = (uint64_t *)(stub + 4096);
	*slot = (uint64_t)(uintptr_t)cur_tramp;
	rel = 4096 - 6; /* jmp *rel(%rip): rip is the end of the 6-byte instruction */
	code[0] = 0xff;
	code[1] = 0x25;
	memcpy(code + 2, &rel, 4);
	memset(code + 6, 0xcc, 4096 - 6);
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC)) {
		munmap(code, STUB_SIZE);
		return 0;
	}
	return stub;
}

// SPDX-License-Identifier: MIT
/*
 * test_gstubs.c - the function_graph stubs of runtime/stubs.c, byte by byte: what
 * graph.S reads from them.  Each site's own stub `A: call *; B: call D; C: jmp *;
 * D: lea; jmp site + 5` with the site's index 17 bytes after C, and its entry of one
 * graph instance `E: call *; jmp B` (UT_SITE_IJMP), whose call goes to
 * ut_tramp_graph_isite and whose jmp to the same B, so that both land at C.  The
 * stubs are made near a mapping that stands for an object's code; nothing runs them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "../../runtime/stubs.c"

/* What stubs.c refers to: only compared, never called. */
void ut_tramp_function(void)
{
}
void ut_tramp_function_inst(void)
{
}
void ut_tramp_function_multi(void)
{
}
void ut_tramp_probe(void)
{
}
void ut_tramp_stack(void)
{
}
void ut_tramp_graph_site(void)
{
}
void ut_tramp_graph_isite(void)
{
}
void ut_return_to_handler(void)
{
}
struct ut_obj ut_objs[UT_MAX_OBJS];
volatile uint32_t ut_nr_objs;
struct ut_site *ut_sites;
uint32_t ut_rt_nr_cpus;
uint64_t ut_rt_area_size;

size_t ut_unwind_size(uint32_t nr)
{
	return 256 + (size_t)nr * 32;
}

void ut_unwind_add_gstubs(void *buf, uintptr_t g, uint32_t nr)
{
}
void ut_unwind_remove(void *buf)
{
}

#define NR 300 /* more than one page of instance entries (16 bytes each) */

static uintptr_t rel_target(uintptr_t at, size_t len)
{
	int32_t rel;

	memcpy(&rel, (const void *)(at + len - 4), 4);
	return at + len + (uintptr_t)(intptr_t)rel;
}

static uint64_t load64(uintptr_t at)
{
	uint64_t v;

	memcpy(&v, (const void *)at, 8);
	return v;
}

static void test_instance_entries(void **state)
{
	struct ut_site sites[NR + 8];
	size_t text_len = 1 << 20;
	unsigned char *text = mmap(NULL, text_len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ut_obj *o = &ut_objs[0];

	(void)state;
	assert_true(text != MAP_FAILED);
	memset(sites, 0, sizeof(sites));
	for (uint32_t k = 0; k < NR; k++)
		sites[3 + k].addr = (uintptr_t)text + 4096 + 64 * k;
	ut_sites = sites;
	o->first = 3; /* not the first object: the index is the site's in ut_sites */
	o->nr = NR;
	o->cap = NR + 5;
	o->text_lo = (uintptr_t)text;
	o->text_hi = (uintptr_t)text + text_len;
	o->gstub = ut_gstub_alloc(o->text_lo, o->text_hi, o->first, o->nr, o->cap);
	assert_true(o->gstub != 0);
	for (uint32_t k = 0; k < NR; k++) {
		const struct ut_site *s = &sites[3 + k];
		uintptr_t a = ut_gstub_entry(o, s, UT_SITE_JMP),
			  e = ut_gstub_entry(o, s, UT_SITE_IJMP);
		const unsigned char *ca = (const unsigned char *)a, *ce = (const unsigned char *)e;
		uint32_t index;

		/* the site's stub, as graph.S reads it */
		assert_int_equal(ca[0], 0xff);
		assert_int_equal(ca[1], 0x15);
		assert_true(load64(rel_target(a, 6)) == (uintptr_t)ut_tramp_graph_site);
		assert_true(rel_target(a + 6, 5) == a + 17); /* B: call D */
		assert_true(rel_target(a + 22, 5) == s->addr + 5);
		memcpy(&index, (const void *)(a + 11 + 17), 4); /* C + 17 */
		assert_int_equal(index, 3 + k);
		/* its instance entry: its own trampoline, then the same B */
		assert_true(e >= o->gstub + ((size_t)o->cap * UT_GSTUB_LEN));
		assert_int_equal(e % UT_GSTUB_ILEN, 0);
		assert_int_equal(ce[0], 0xff);
		assert_int_equal(ce[1], 0x15);
		assert_true(load64(rel_target(e, 6)) == (uintptr_t)ut_tramp_graph_isite);
		assert_int_equal(ce[6], 0xe9);
		assert_true(rel_target(e + 6, 5) == a + 6);
		/* within reach of the site: it is `jmp E` */
		assert_true(e - s->addr < (1ul << 31) || s->addr - e < (1ul << 31));
	}
	/* the entries lie in read-only code, apart from the stubs and from each other */
	assert_true(ut_gstub_entry(o, &sites[4], UT_SITE_IJMP) -
			ut_gstub_entry(o, &sites[3], UT_SITE_IJMP) ==
		    UT_GSTUB_ILEN);
	ut_gstub_free(o->gstub, o->cap);
	munmap(text, text_len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_instance_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * fuzz_sites.c - the runtime's ELF site scanner (runtime/sites.c) on arbitrary
 * files: the section headers read by hand (ut_elf_sections), then the
 * __patchable_function_entries records checked, sorted and classified as for
 * an object loaded at the input itself (its bytes stand for the object's
 * memory: the records, relocated by the load address as the dynamic loader
 * would, and the code they point to are read there).
 *
 * sites.c is included whole so that its static scanner is reached unchanged;
 * what it calls of the rest of the runtime (stubs, patching) is stubbed below,
 * and never reached from here.
 *
 * Input: the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "../../runtime/sites.c"

uint8_t ut_sel_default;
void ut_tramp_function(void)
{
}
int ut_patch_new_objs(uint32_t from_obj)
{
	return 0;
}
uintptr_t ut_stub_alloc(uintptr_t lo, uintptr_t hi)
{
	return 0;
}
int ut_stub_reaches(uintptr_t stub, uintptr_t lo, uintptr_t hi)
{
	return 0;
}
void ut_stub_free(uintptr_t stub)
{
}
uintptr_t ut_gstub_alloc(uintptr_t lo, uintptr_t hi, uint32_t first, uint32_t nr, uint32_t cap)
{
	return 0;
}
void ut_gstub_free(uintptr_t gstub, uint32_t cap)
{
}

/* Keep a record only when it lies inside the input (the object's "memory"). */
struct scan {
	struct ut_obj o;
	size_t size;
};

static void add_inside(uint64_t addr, uint64_t size, void *arg)
{
	struct scan *s = arg;

	if (addr > s->size || size > s->size - addr)
		return;
	/* the loader's relocation: a record holds a link-time address (+ the bias) */
	for (uint64_t i = 0; i + sizeof(uintptr_t) <= size; i += sizeof(uintptr_t)) {
		uintptr_t v;

		memcpy(&v, (char *)s->o.base + addr + i, sizeof(v));
		v += s->o.base;
		memcpy((char *)s->o.base + addr + i, &v, sizeof(v));
	}
	add_section(addr, size, &s->o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void *mem;
	static size_t mem_size;
	struct scan s = {{0}};
	char path[64];
	int fd;

	if (!ut_sites && ut_sites_init())
		abort();
	fd = memfd_create("fuzz-sites", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* an aligned copy: the loader maps objects page-aligned */
	if (mem_size < size + 8) {
		free(mem);
		mem_size = size + 8;
		mem = aligned_alloc(4096, (mem_size + 4095) & ~(size_t)4095);
	}
	memcpy(mem, data, size);
	s.size = size;
	s.o.base = (uintptr_t)mem;
	s.o.text_lo = (uintptr_t)mem;
	s.o.text_hi = (uintptr_t)mem + size;
	s.o.first = 0;
	if (ut_elf_sections(path, "__patchable_function_entries", add_inside, &s) > 0 && s.o.nr) {
		sort_sites(&s.o);
		classify_sites(&s.o);
	}
	close(fd);
	return 0;
}

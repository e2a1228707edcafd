// SPDX-License-Identifier: MIT
/*
 * fuzz_symfile.c - utracefs's ELF reading (symfile.c, with libelf): the identity
 * (build-id note), the PT_LOAD segments and the function symbols of an arbitrary
 * file, as sym.c reads a file a traced process mapped; then lookups across it.
 *
 * Input: the file.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "symfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	struct fileid id;
	struct symfile *f;
	Elf *elf;

	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	elf = tfs_symfile_identify(fd, 0, 0, &id);
	f = tfs_symfile_new("/fuzz/elf", &id, elf);
	if (elf)
		elf_end(elf);
	close(fd);
	if (!f)
		return 0;
	for (unsigned int i = 0; i < f->nloads; i++) {
		uint64_t lo = f->loads[i].vaddr, hi = lo + f->loads[i].memsz, sz;

		for (uint64_t a = lo; a < hi && a - lo < 4096; a += 61)
			tfs_symfile_lookup(f, a, lo, hi, &sz);
	}
	for (size_t i = 0; i < f->n; i++) {
		uint64_t sz;

		tfs_symfile_lookup(f, f->syms[i].addr, 0, UINT64_MAX, &sz);
	}
	tfs_symfile_free(f);
	return 0;
}

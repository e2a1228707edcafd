/* SPDX-License-Identifier: MIT */
/*
 * symfile.h - one ELF file as sym.c caches it (symfile.c): what it holds (its
 * identity) and its functions.  Private to sym.c and symfile.c.
 */
#ifndef TFS_SYMFILE_H
#define TFS_SYMFILE_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define SYM_MAX_LOADS 16
#define SYM_BUILD_ID_MAX 64

struct sym {
	uint64_t addr, size;
	char *name;
	char *demangled; /* lazily; == name when it does not demangle */
	int rank;	 /* binding preference among aliases: global < weak < local */
};

/* What a file holds: the same dev + inode with another of these is another build. */
struct fileid {
	dev_t dev;
	ino_t ino;
	bool opened; /* the fields below (and dev, ino) were read from the file itself */
	off_t size;
	int64_t mtime_ns;
	unsigned int build_id_len;
	uint8_t build_id[SYM_BUILD_ID_MAX];
};

struct symfile {
	char *path;
	struct fileid id;
	struct sym *syms; /* functions of .symtab and .dynsym, by address, one per address */
	size_t n;
	bool full; /* from .symtab: every function has a symbol (else .dynsym only) */
	struct {
		uint64_t off, vaddr, filesz, memsz;
		bool exec;
	} loads[SYM_MAX_LOADS]; /* PT_LOAD segments */
	unsigned int nloads;
	unsigned int no;      /* sym.c: its number in the flat address space (0: none) */
	struct symfile *next; /* sym.c's cache */
	bool in_use;	      /* sym.c: some mapping uses it (while trimming the cache) */
	bool flat_named;      /* sym.c: trace_pipe_raw handed out a flat address in it */
	size_t bytes;	      /* sym.c: what it costs, as counted against SYM_MAX_BYTES */
};

/*
 * Open fn without blocking (a FIFO or a device would block or misbehave) and
 * keep it only when it is a regular file with inode ino (0: any).  -1 otherwise.
 */
int tfs_symfile_open_regular(const char *fn, int flags, ino_t ino);
/* The file of a mapping [start, end) of pid, of inode ino, at path; -1 when none. */
int tfs_symfile_open_mapped(pid_t pid, const char *path, ino_t ino, uint64_t start, uint64_t end);
/*
 * The same for a stat of that file (no opening, no reading): fills id but for
 * its build-id.  false when it is not the regular file of inode ino.
 */
bool tfs_symfile_stat_mapped(pid_t pid, const char *path, ino_t ino, uint64_t start, uint64_t end,
			     struct fileid *id);
/*
 * What fd holds (fd < 0: not opened; dev and ino stand for it): fills id, and
 * returns the file's ELF handle (NULL when it is not ELF) for tfs_symfile_new.
 */
Elf *tfs_symfile_identify(int fd, dev_t dev, ino_t ino, struct fileid *id);
bool tfs_fileid_same(const struct fileid *a, const struct fileid *b);
/* A file of path with identity id, its segments and functions read from elf (or none). */
struct symfile *tfs_symfile_new(const char *path, const struct fileid *id, Elf *elf);
void tfs_symfile_free(struct symfile *f);
/*
 * The symbol of f before vaddr, in the segment [lo_addr, hi_addr), and its size
 * (the kernel's rule with a full symbol table: up to the next symbol).  NULL: none.
 */
struct sym *tfs_symfile_lookup(struct symfile *f, uint64_t vaddr, uint64_t lo_addr,
			       uint64_t hi_addr, uint64_t *size);

/*
 * The flat address space (sym.c, tfs_sym_flat): object number no's address
 * vaddr (in the file, as addr2line takes it) is SYM_FLAT_BIT | no << 40 | vaddr.
 * Bit 63 keeps it clear of every user address, so an address left as it is
 * never reads as a flat one.
 */
#define SYM_FLAT_BIT (1ull << 63)
#define SYM_FLAT_NO_SHIFT 40
#define SYM_FLAT_MAX_NO ((1u << 23) - 1)
#define SYM_FLAT_MAX_VADDR (1ull << SYM_FLAT_NO_SHIFT)

struct tfs_buf;
/*
 * f's functions in /proc/kallsyms's format at their flat addresses (f->no),
 * sorted by address: "%016llx T name\t[module]\n" (module: the file's base
 * name), an end line at the end of each executable segment, and with .dynsym
 * only a gap line "[module]" where a symbol ends before the next.  Names no
 * kallsyms parser would take whole (whitespace, control characters) are left
 * out.  0 or -ENOMEM.
 */
int tfs_symfile_kallsyms(const struct symfile *f, struct tfs_buf *b);

#endif

// SPDX-License-Identifier: MIT
/*
 * symfile.c - one ELF file: what it is (device, inode, size, mtime and the GNU
 * build-id, so that a file rebuilt in place, where ext4 reuses the inode, is
 * told apart), its PT_LOAD segments and its functions (.symtab and .dynsym,
 * libelf), sorted by address with one name per address.
 *
 * Naming follows the kernel's kallsyms: with a full symbol table a symbol
 * extends to the next symbol (or to the end of its segment), so the return
 * address after a call to a noreturn function as a function's last instruction
 * names that function.  With .dynsym only (a stripped library), the static
 * functions between have no symbol: a symbol covers its own size and the byte
 * after it, and what no symbol covers is left to the caller (sym.c names it
 * after the object).  A stripped file whose debug file is installed
 * (/usr/lib/debug/.build-id/, libc6-dbg for libc) has that file's .symtab.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symfile.h"
#include "tfs.h"

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* among aliases: the name with fewer leading underscores, then the global one */
	if (strspn(x->name, "_") != strspn(y->name, "_"))
		return strspn(x->name, "_") < strspn(y->name, "_") ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->name, y->name);
}

static int add_sym(struct symfile *f, size_t *cap, const GElf_Sym *s, const char *name)
{
	int bind = GELF_ST_BIND(s->st_info);

	if (*cap == f->n) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct sym *p = realloc(f->syms, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		f->syms = p;
		*cap = ncap;
	}
	f->syms[f->n].name = strdup(name);
	if (!f->syms[f->n].name)
		return -ENOMEM;
	f->syms[f->n].addr = s->st_value;
	f->syms[f->n].size = s->st_size;
	f->syms[f->n].demangled = NULL;
	f->syms[f->n].rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
	f->n++;
	return 0;
}

/* The functions of one symbol table section. */
static int read_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct symfile *f, size_t *cap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count;

	if (!data || !sh->sh_entsize)
		return 0;
	count = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
		    !s.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !name[0])
			continue;
		if (add_sym(f, cap, &s, name))
			return -ENOMEM;
	}
	return 0;
}

/* Sort by address and keep one name per address. */
static void sort_syms(struct symfile *f)
{
	size_t j = 0;

	if (!f->n)
		return;
	qsort(f->syms, f->n, sizeof(f->syms[0]), sym_cmp);
	for (size_t i = 1; i < f->n; i++) {
		if (f->syms[i].addr == f->syms[j].addr) {
			if (!f->syms[j].size)
				f->syms[j].size = f->syms[i].size;
			free(f->syms[i].name);
			continue;
		}
		f->syms[++j] = f->syms[i];
	}
	f->n = j + 1;
}

/* The GNU build-id of an ELF file, from its PT_NOTE segments (none: length 0). */
static void read_build_id(Elf *elf, struct fileid *id)
{
	size_t nph = 0;

	if (elf_getphdrnum(elf, &nph))
		return;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, noff, doff;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE || !ph.p_filesz ||
		    ph.p_filesz > 1 << 20)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + noff, "GNU", 4) || !nh.n_descsz ||
			    nh.n_descsz > SYM_BUILD_ID_MAX)
				continue;
			memcpy(id->build_id, (const char *)d->d_buf + doff, nh.n_descsz);
			id->build_id_len = nh.n_descsz;
			return;
		}
	}
}

/* The functions of every symbol table of elf (types: SHT_SYMTAB and/or SHT_DYNSYM). */
static int read_symtabs(struct symfile *f, Elf *elf, size_t *cap, bool dynsym)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) ||
		    !(sh.sh_type == SHT_SYMTAB || (dynsym && sh.sh_type == SHT_DYNSYM)))
			continue;
		if (read_symtab(elf, scn, &sh, f, cap))
			return -ENOMEM;
		f->full |= sh.sh_type == SHT_SYMTAB;
	}
	return 0;
}

/*
 * A stripped file's .symtab from its separate debug file, found by build-id as
 * debuggers find it (Debian's -dbg and -dbgsym packages install them there).
 */
static int read_debug_symtab(struct symfile *f, size_t *cap)
{
	char fn[64 + 2 * SYM_BUILD_ID_MAX];
	struct fileid id;
	size_t n;
	Elf *elf;
	int fd, err = 0;

	n = (size_t)snprintf(fn, sizeof(fn), "/usr/lib/debug/.build-id/%02x/", f->id.build_id[0]);
	for (unsigned int i = 1; i < f->id.build_id_len; i++)
		n += (size_t)snprintf(fn + n, sizeof(fn) - n, "%02x", f->id.build_id[i]);
	snprintf(fn + n, sizeof(fn) - n, ".debug");
	fd = tfs_symfile_open_regular(fn, 0, 0);
	if (fd < 0)
		return 0;
	elf = tfs_symfile_identify(fd, 0, 0, &id);
	/* the debug file of this very build, else its addresses are another's */
	if (elf && id.build_id_len == f->id.build_id_len &&
	    !memcmp(id.build_id, f->id.build_id, id.build_id_len))
		err = read_symtabs(f, elf, cap, false);
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

/* The PT_LOAD segments and the functions of an ELF file. */
static int load_elf(struct symfile *f, Elf *elf)
{
	size_t cap = 0, nph = 0;

	if (elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph && f->nloads < SYM_MAX_LOADS; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
				f->loads[f->nloads].off = ph.p_offset;
				f->loads[f->nloads].vaddr = ph.p_vaddr;
				f->loads[f->nloads].filesz = ph.p_filesz;
				f->loads[f->nloads].memsz = ph.p_memsz;
				f->loads[f->nloads].exec = ph.p_flags & PF_X;
				f->nloads++;
			}
		}
	}
	if (read_symtabs(f, elf, &cap, true))
		return -ENOMEM;
	if (!f->full && f->id.build_id_len && read_debug_symtab(f, &cap))
		return -ENOMEM;
	sort_syms(f);
	return 0;
}

/*
 * Open fn without blocking (a FIFO or a device would block or misbehave) and
 * keep it only when it is a regular file with inode ino (0: any).  -1 otherwise.
 */
int tfs_symfile_open_regular(const char *fn, int flags, ino_t ino)
{
	struct stat st;
	int fd = open(fn, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);

	/* the inode tells a replaced file; overlay file systems may show another device */
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode) || (ino && st.st_ino != ino))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * The file of a mapping: /proc/PID/map_files names the mapped object itself
 * (even when deleted or replaced; a link the kernel resolves, so it is followed),
 * the path otherwise (map_files needs privileges).
 */
static void map_files_path(char *buf, size_t size, pid_t pid, uint64_t start, uint64_t end)
{
	snprintf(buf, size, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, start, end);
}

int tfs_symfile_open_mapped(pid_t pid, const char *path, ino_t ino, uint64_t start, uint64_t end)
{
	char alt[64];
	int fd;

	map_files_path(alt, sizeof(alt), pid, start, end);
	fd = tfs_symfile_open_regular(alt, 0, ino);
	if (fd < 0)
		fd = tfs_symfile_open_regular(path, O_NOFOLLOW, ino);
	return fd;
}

bool tfs_symfile_stat_mapped(pid_t pid, const char *path, ino_t ino, uint64_t start, uint64_t end,
			     struct fileid *id)
{
	struct stat st;
	char alt[64];

	map_files_path(alt, sizeof(alt), pid, start, end);
	if ((stat(alt, &st) && lstat(path, &st)) || !S_ISREG(st.st_mode) || st.st_ino != ino)
		return false;
	memset(id, 0, sizeof(*id));
	id->opened = true;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->size = st.st_size;
	id->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return true;
}

void tfs_symfile_free(struct symfile *f)
{
	for (size_t i = 0; i < f->n; i++) {
		if (f->syms[i].demangled != f->syms[i].name)
			free(f->syms[i].demangled);
		free(f->syms[i].name);
	}
	free(f->syms);
	free(f->path);
	free(f);
}

bool tfs_fileid_same(const struct fileid *a, const struct fileid *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->opened == b->opened &&
	       a->size == b->size && a->mtime_ns == b->mtime_ns &&
	       a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}

/*
 * The symbol of f before vaddr, and its size.  With a full symbol table, the
 * kernel's way: a symbol extends to the next one, the last one to hi_addr (the
 * end of the segment, which starts at lo_addr).  With .dynsym only, the static
 * functions between have no symbol: a symbol covers its own size and the byte
 * after it (a return address after a call to a noreturn function at its end).
 */
struct sym *tfs_symfile_lookup(struct symfile *f, uint64_t vaddr, uint64_t lo_addr,
			       uint64_t hi_addr, uint64_t *size)
{
	size_t lo = 0, hi = f->n;
	struct sym *s;
	uint64_t next;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &f->syms[lo - 1];
	if (s->addr < lo_addr)
		return NULL; /* in another segment */
	next = lo < f->n && f->syms[lo].addr < hi_addr ? f->syms[lo].addr : hi_addr;
	*size = next - s->addr;
	if (!f->full && s->size) {
		*size = s->size;
		if (vaddr - s->addr > s->size)
			return NULL;
	}
	return s;
}

Elf *tfs_symfile_identify(int fd, dev_t dev, ino_t ino, struct fileid *id)
{
	struct stat st;
	Elf *elf;

	memset(id, 0, sizeof(*id));
	id->dev = dev;
	id->ino = ino;
	if (fd < 0 || fstat(fd, &st))
		return NULL;
	id->opened = true;
	id->dev = st.st_dev; /* not the maps' one: overlay file systems show another */
	id->ino = st.st_ino;
	id->size = st.st_size;
	id->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		elf = NULL;
	}
	if (elf)
		read_build_id(elf, id);
	return elf;
}

struct symfile *tfs_symfile_new(const char *path, const struct fileid *id, Elf *elf)
{
	struct symfile *f = calloc(1, sizeof(*f));

	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	f->id = *id;
	if (elf)
		load_elf(f, elf); /* a file without symbols still caches as empty */
	return f;
}

/* ---- the kallsyms table (sym.c's flat address space) ------------------------------------ */

/* Would a kallsyms parser take name whole?  It ends a name at whitespace. */
static bool kallsyms_name_ok(const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p <= ' ' || *p == 0x7f)
			return false;
	return name[0] != '\0';
}

struct kallsyms_out {
	struct tfs_buf *b;
	uint64_t base; /* the flat address of vaddr 0 */
	const char *mod, *gap, *end;
	int err;
};

static void kallsyms_line(struct kallsyms_out *o, uint64_t vaddr, char type, const char *name)
{
	if (tfs_buf_printf(o->b, "%016" PRIx64 " %c %s\t[%s]\n", o->base | vaddr, type, name,
			   o->mod) < 0)
		o->err = -ENOMEM;
}

/*
 * One executable segment [lo, hi) of f: its functions; "[mod]" where no
 * function covers the code (before the first one; with .dynsym only, past a
 * symbol's size and the byte after it, as tfs_symfile_lookup names them); and
 * the end line at hi, so that nothing past it takes the last function's name.
 */
static void kallsyms_segment(const struct symfile *f, uint64_t lo, uint64_t hi,
			     struct kallsyms_out *o)
{
	static const char types[] = {'T', 'W', 't'};
	size_t i = 0;

	while (i < f->n && f->syms[i].addr < lo)
		i++;
	if (i == f->n || f->syms[i].addr != lo)
		kallsyms_line(o, lo, 't', o->gap);
	for (; i < f->n && f->syms[i].addr < hi; i++) {
		const struct sym *s = &f->syms[i];
		uint64_t next = i + 1 < f->n && f->syms[i + 1].addr < hi ? f->syms[i + 1].addr : hi;

		if (kallsyms_name_ok(s->name))
			kallsyms_line(o, s->addr, types[s->rank < 0 || s->rank > 2 ? 2 : s->rank],
				      s->name);
		else /* a line cut short would end the table for its reader */
			kallsyms_line(o, s->addr, 't', o->gap);
		if (!f->full && s->size && s->addr + s->size + 1 < next)
			kallsyms_line(o, s->addr + s->size + 1, 't', o->gap);
	}
	kallsyms_line(o, hi, 't', o->end);
}

int tfs_symfile_kallsyms(const struct symfile *f, struct tfs_buf *b)
{
	const char *slash = strrchr(f->path, '/');
	char mod[256], gap[260], end[264];
	struct kallsyms_out o = {.b = b, .mod = mod, .gap = gap, .end = end};

	if (!f->no || f->no > SYM_FLAT_MAX_NO)
		return 0;
	o.base = SYM_FLAT_BIT | (uint64_t)f->no << SYM_FLAT_NO_SHIFT;
	/* the module field ends at whitespace too */
	snprintf(mod, sizeof(mod), "%s", slash ? slash + 1 : f->path);
	for (char *p = mod; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			*p = '_';
	snprintf(gap, sizeof(gap), "[%s]", mod);
	snprintf(end, sizeof(end), "[%s:end]", mod);
	for (unsigned int l = 0; l < f->nloads && !o.err; l++) {
		uint64_t lo = f->loads[l].vaddr, hi = lo + f->loads[l].filesz;

		if (f->loads[l].exec && lo < hi && hi < SYM_FLAT_MAX_VADDR)
			kallsyms_segment(f, lo, hi, &o);
	}
	return o.err;
}

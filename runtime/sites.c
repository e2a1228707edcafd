// SPDX-License-Identifier: MIT
/*
 * sites.c - finding the patch sites of every loaded object.
 *
 * A function compiled with -fpatchable-function-entry=5 starts with five bytes of
 * NOPs (after endbr64 under -fcf-protection) and its address is recorded in the
 * section __patchable_function_entries.  That section is SHF_ALLOC, so the dynamic
 * loader has already relocated its entries: we read the section headers from the
 * object's file (by hand, with pread: no libelf inside traced programs) to learn
 * where the section is, and read the entries from memory at load bias + sh_addr.
 *
 * Objects and sites live in arrays that never move (the objects in .bss, the
 * sites in one reserved mapping), so that the SIGTRAP handler can search them at
 * any moment without a lock: entries are filled before the counts that publish
 * them are increased.  An object's sites are sorted by address.  The slot, range
 * of sites and stub of an object that dlclose unloaded go to the next new object
 * (add_obj), published the same way: filled while marked dead, then made live.
 * Each object also gets the graph tracer's per-site stubs (stubs.c).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt.h"

struct ut_obj ut_objs[UT_MAX_OBJS];
volatile uint32_t ut_nr_objs;
struct ut_site *ut_sites;
volatile uint32_t ut_nr_sites;

static const unsigned char nop1x5[5] = {0x90, 0x90, 0x90, 0x90, 0x90};
static const unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

int ut_sites_init(void)
{
	void *p = mmap(NULL, (size_t)UT_MAX_SITES * sizeof(struct ut_site), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	ut_sites = p;
	return 0;
}

static int read_full(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	return n == (ssize_t)len ? 0 : -EIO;
}

/* Temporary buffers come from mmap: the traced program's malloc may be traced. */
static void *tmp_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The section headers of the ELF file open at fd (tmp_alloc'd, *len bytes), or NULL. */
static Elf64_Shdr *read_shdrs(int fd, Elf64_Ehdr *eh, size_t *shnum, size_t *len)
{
	Elf64_Shdr *sh, sh0;
	size_t n;

	if (read_full(fd, eh, sizeof(*eh), 0) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff == 0)
		return NULL;
	n = eh->e_shnum;
	if (n == 0) { /* extended numbering: the count is in section 0 */
		if (read_full(fd, &sh0, sizeof(sh0), (off_t)eh->e_shoff))
			return NULL;
		n = sh0.sh_size;
	}
	if (n == 0 || n > 1000000 || eh->e_shstrndx >= n)
		return NULL;
	sh = tmp_alloc(n * sizeof(Elf64_Shdr));
	if (sh && read_full(fd, sh, n * sizeof(Elf64_Shdr), (off_t)eh->e_shoff)) {
		munmap(sh, n * sizeof(Elf64_Shdr));
		sh = NULL;
	}
	*shnum = n;
	*len = n * sizeof(Elf64_Shdr);
	return sh;
}

int ut_elf_open(struct ut_elf *e, const char *path)
{
	Elf64_Ehdr eh;

	memset(e, 0, sizeof(*e));
	e->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0)
		return -errno;
	e->sh = read_shdrs(e->fd, &eh, &e->shnum, &e->sh_len);
	if (!e->sh)
		goto bad;
	e->names_len = e->sh[eh.e_shstrndx].sh_size;
	if (e->names_len == 0 || e->names_len > (64u << 20))
		goto bad;
	e->names = tmp_alloc(e->names_len + 1);
	if (!e->names || read_full(e->fd, e->names, e->names_len, (off_t)e->sh[eh.e_shstrndx].sh_offset))
		goto bad;
	e->names[e->names_len] = 0;
	return 0;
bad:
	ut_elf_close(e);
	return -ENOEXEC;
}

void ut_elf_close(struct ut_elf *e)
{
	if (e->sh)
		munmap(e->sh, e->sh_len);
	if (e->names)
		munmap(e->names, e->names_len + 1);
	if (e->fd >= 0)
		close(e->fd);
	memset(e, 0, sizeof(*e));
	e->fd = -1;
}

const char *ut_elf_name(const struct ut_elf *e, const Elf64_Shdr *s)
{
	return s->sh_name < e->names_len ? e->names + s->sh_name : "";
}

const Elf64_Shdr *ut_elf_find(const struct ut_elf *e, const char *name)
{
	for (size_t i = 0; i < e->shnum; i++)
		if (!strcmp(ut_elf_name(e, &e->sh[i]), name))
			return &e->sh[i];
	return NULL;
}

void *ut_elf_read(const struct ut_elf *e, const Elf64_Shdr *s, size_t max)
{
	void *p;

	if (s->sh_type == SHT_NOBITS || s->sh_size == 0 || s->sh_size > max)
		return NULL;
	p = tmp_alloc(s->sh_size);
	if (p && read_full(e->fd, p, s->sh_size, (off_t)s->sh_offset)) {
		munmap(p, s->sh_size);
		p = NULL;
	}
	return p;
}

int ut_elf_sections(const char *path, const char *want, void (*fn)(uint64_t, uint64_t, void *),
		    void *arg)
{
	struct ut_elf e;
	int found = 0, err = ut_elf_open(&e, path);

	if (err)
		return err;
	for (size_t i = 0; i < e.shnum; i++) {
		const Elf64_Shdr *s = &e.sh[i];

		if (strcmp(ut_elf_name(&e, s), want) || !(s->sh_flags & SHF_ALLOC) ||
		    s->sh_type == SHT_NOBITS)
			continue;
		fn(s->sh_addr, s->sh_size, arg);
		found++;
	}
	ut_elf_close(&e);
	return found;
}

/* The object being added, and what its sections held before relocation. */
struct add_ctx {
	struct ut_obj *o;
	uint32_t zeros;		   /* entries still 0: lld writes no addends there */
	uint64_t span_lo, span_hi; /* the link-time addresses of the sections */
};

static void add_site(struct ut_obj *o, uintptr_t a)
{
	uint32_t n = o->first + o->nr;

	if (a == 0 || a < o->text_lo || a + 5 > o->text_hi || n >= UT_MAX_SITES) {
		o->skipped++;
		return;
	}
	ut_sites[n] = (struct ut_site){.addr = a, .sel = ut_sel_default};
	o->nr++;
}

/*
 * Append the sane entries of one section to the sites of the object being added.
 * An object that dlopen() has mapped but not yet relocated (ut_dl_hook) still
 * holds what the linker wrote there: GNU ld the link-time address (load bias +
 * entry), lld 0 (its relocations have the addend: add_relocated()).
 */
static void add_section(uint64_t addr, uint64_t size, void *arg)
{
	struct add_ctx *c = arg;
	struct ut_obj *o = c->o;
	const uintptr_t *ent = (const uintptr_t *)(o->base + addr);

	if ((uintptr_t)ent % sizeof(*ent)) { /* linkers align the records: not ours */
		o->skipped += (uint32_t)(size / sizeof(*ent));
		return;
	}
	if (addr < c->span_lo)
		c->span_lo = addr;
	if (addr + size > c->span_hi)
		c->span_hi = addr + size;
	for (uint64_t i = 0; i < size / sizeof(uintptr_t); i++) {
		uintptr_t a = ent[i];

		if (!a) {
			c->zeros++;
			continue;
		}
		if ((a < o->text_lo || a + 5 > o->text_hi) && o->base &&
		    o->base + a >= o->text_lo && o->base + a + 5 <= o->text_hi)
			a += o->base; /* not relocated yet */
		add_site(o, a);
	}
}

/*
 * The entries that were 0: the addends of their R_X86_64_RELATIVE relocations in
 * the file (an entry relocated meanwhile is no longer 0 and was taken already).
 */
static void add_relocated(const char *path, struct add_ctx *c)
{
	enum { CHUNK = 512 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	Elf64_Rela *r = NULL;
	size_t shnum = 0, sh_len = 0;

	if (fd < 0)
		return;
	sh = read_shdrs(fd, &eh, &shnum, &sh_len);
	if (sh)
		r = tmp_alloc(CHUNK * sizeof(*r));
	for (size_t i = 0; r && i < shnum; i++) {
		uint64_t nr = sh[i].sh_size / sizeof(*r);

		if (sh[i].sh_type != SHT_RELA || sh[i].sh_entsize != sizeof(*r))
			continue;
		for (uint64_t k = 0; k < nr; k += CHUNK) {
			uint64_t m = nr - k < CHUNK ? nr - k : CHUNK;

			if (read_full(fd, r, m * sizeof(*r),
				      (off_t)(sh[i].sh_offset + k * sizeof(*r))))
				break;
			for (uint64_t j = 0; j < m; j++) {
				uint64_t off = r[j].r_offset;

				if (ELF64_R_TYPE(r[j].r_info) != R_X86_64_RELATIVE ||
				    off < c->span_lo || off + 8 > c->span_hi ||
				    *(const uintptr_t *)(c->o->base + off))
					continue;
				add_site(c->o, c->o->base + (uintptr_t)r[j].r_addend);
			}
		}
	}
	if (r)
		munmap(r, CHUNK * sizeof(*r));
	if (sh)
		munmap(sh, sh_len);
	close(fd);
}

/* Shell sort by address, then drop duplicates (no malloc, no qsort). */
static void sort_sites(struct ut_obj *o)
{
	struct ut_site *s = ut_sites + o->first;
	uint32_t n = o->nr, gap, i, j, k = 0;

	for (gap = n / 2; gap > 0; gap /= 2)
		for (i = gap; i < n; i++) {
			struct ut_site t = s[i];

			for (j = i; j >= gap && s[j - gap].addr > t.addr; j -= gap)
				s[j] = s[j - gap];
			s[j] = t;
		}
	for (i = 0; i < n; i++)
		if (k == 0 || s[k - 1].addr != s[i].addr)
			s[k++] = s[i];
	o->nr = k;
}

/* Classify each site by its bytes; anything but NOPs is left alone for good. */
static void classify_sites(struct ut_obj *o)
{
	struct ut_site *s = ut_sites + o->first;
	uint32_t k = 0;

	for (uint32_t i = 0; i < o->nr; i++) {
		const unsigned char *code = (const unsigned char *)s[i].addr;

		if (!memcmp(code, nop1x5, 5)) {
			s[i].state = s[i].want = UT_SITE_NOP1X5;
		} else if (!memcmp(code, nop5, 4)) { /* clang 14 emits 0f 1f 44 00 08 */
			s[i].state = s[i].want = UT_SITE_NOP5;
		} else {
			o->skipped++;
			continue;
		}
		s[k++] = s[i];
	}
	o->nr = k;
}

static int known(uintptr_t base, const char *name)
{
	for (uint32_t i = 0; i < ut_nr_objs; i++)
		if (!ut_objs[i].dead && ut_objs[i].base == base && !strcmp(ut_objs[i].name, name))
			return 1;
	return 0;
}

/*
 * The slot for an object of nr sites: a dead object's (dlclose), preferably one
 * whose range of sites is large enough to take the new ones, else a new slot.
 */
static uint32_t pick_slot(uint32_t nr)
{
	uint32_t any = UT_MAX_OBJS;

	for (uint32_t i = 0; i < ut_nr_objs; i++) {
		if (!ut_objs[i].dead)
			continue;
		if (ut_objs[i].cap >= nr)
			return i;
		if (any == UT_MAX_OBJS)
			any = i;
	}
	return any < UT_MAX_OBJS ? any : ut_nr_objs;
}

/*
 * Publish n, whose sites are at the end of ut_sites (not yet counted).  A dead
 * object's slot is reused with its range of sites when they fit (else that range
 * is given up and n's stay at the end) and its stub when it is within reach, so
 * that dlopen/dlclose cycles of the same objects do not run out of anything.
 * The slot stays dead (the SIGTRAP handler skips it) until n is complete in it.
 */
static void add_obj(struct ut_obj *n)
{
	uint32_t idx = pick_slot(n->nr), nobj = ut_nr_objs;
	struct ut_obj *o = &ut_objs[idx];

	if (idx >= UT_MAX_OBJS)
		return;
	n->cap = n->nr;
	if (idx < nobj) {
		if (o->cap >= n->nr) {
			memcpy(ut_sites + o->first, ut_sites + n->first, n->nr * sizeof(*ut_sites));
			n->first = o->first;
			n->cap = o->cap;
		}
		if (o->stub && ut_stub_reaches(o->stub, n->text_lo, n->text_hi))
			n->stub = o->stub;
		else if (o->stub)
			ut_stub_free(o->stub); /* its object is unmapped: nothing calls it */
	}
	if (!n->stub)
		n->stub = ut_stub_alloc(n->text_lo, n->text_hi);
	/* the per-site stubs jump to these very sites: always new ones */
	if (idx < nobj && o->gstub)
		ut_gstub_free(o->gstub, o->cap);
	n->gstub = ut_gstub_alloc(n->text_lo, n->text_hi, n->first, n->nr, n->cap);
	n->dead = 1;
	*o = *n;
	if (n->first == ut_nr_sites)
		__atomic_store_n(&ut_nr_sites, n->first + n->nr, __ATOMIC_RELEASE);
	__atomic_store_n(&o->dead, 0, __ATOMIC_RELEASE);
	if (idx == nobj)
		__atomic_store_n(&ut_nr_objs, idx + 1, __ATOMIC_RELEASE);
}

struct scan_state {
	int first; /* the next object is the first one (the executable) */
	int added; /* objects added */
};

static int scan_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan_state *st = data;
	int *first = &st->first;
	const char *name = info->dlpi_name;
	struct ut_obj n;
	struct add_ctx ctx;
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	if (*first && (!name || !*name))
		name = "/proc/self/exe";
	*first = 0;
	if (!name || !*name || known(info->dlpi_addr, name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	/* Never the runtime itself. */
	if (lo >= hi || ((uintptr_t)ut_tramp_function >= lo && (uintptr_t)ut_tramp_function < hi))
		return 0;
	memset(&n, 0, sizeof(n));
	n.base = info->dlpi_addr;
	n.text_lo = lo;
	n.text_hi = hi;
	n.first = ut_nr_sites;
	strncpy(n.name, name, sizeof(n.name) - 1);
	ctx = (struct add_ctx){.o = &n, .span_lo = UINT64_MAX};
	if (ut_elf_sections(name, "__patchable_function_entries", add_section, &ctx) <= 0)
		return 0; /* not recorded: nothing to patch (vdso, libc, ...) */
	if (ctx.zeros) {
		uint32_t before = n.nr + n.skipped, seen;

		add_relocated(name, &ctx);
		seen = n.nr + n.skipped - before;
		n.skipped += ctx.zeros > seen ? ctx.zeros - seen : 0; /* 0 for good */
	}
	if (n.nr == 0)
		return 0;
	sort_sites(&n);
	classify_sites(&n);
	add_obj(&n);
	st->added++;
	return 0;
}

int ut_sites_scan(void)
{
	struct scan_state st = {.first = 1};

	dl_iterate_phdr(scan_one, &st);
	if (st.added)
		ut_patch_new_objs(0); /* new objects may be in old slots */
	return st.added;
}

static int still_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
	uint8_t *alive = data;
	const char *name = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";

	for (uint32_t i = 0; i < ut_nr_objs; i++)
		if (ut_objs[i].base == info->dlpi_addr && !strcmp(ut_objs[i].name, name))
			alive[i] = 1;
	return 0;
}

int ut_sites_prune(void)
{
	static uint8_t alive[UT_MAX_OBJS];
	int gone = 0;

	memset(alive, 0, sizeof(alive));
	dl_iterate_phdr(still_loaded, alive);
	for (uint32_t i = 0; i < ut_nr_objs; i++)
		if (!alive[i] && !ut_objs[i].dead) {
			__atomic_store_n(&ut_objs[i].dead, 1, __ATOMIC_RELAXED);
			gone++;
		}
	return gone;
}

struct ut_site *ut_site_find(uintptr_t addr, struct ut_obj **objp)
{
	uint32_t nobj = __atomic_load_n(&ut_nr_objs, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < nobj; i++) {
		struct ut_obj *o = &ut_objs[i];

		if (__atomic_load_n(&o->dead, __ATOMIC_ACQUIRE) || addr < o->text_lo ||
		    addr >= o->text_hi)
			continue;
		struct ut_site *s = ut_sites + o->first;
		uint32_t lo = 0, hi = o->nr;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (s[mid].addr == addr) {
				if (objp)
					*objp = o;
				return &s[mid];
			}
			if (s[mid].addr < addr)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return NULL;
}

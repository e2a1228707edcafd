// SPDX-License-Identifier: MIT
/*
 * sym.c - addresses of traced processes -> function names.
 *
 * For each process: its executable file mappings from /proc/PID/maps (start,
 * end, file offset, path, device and inode), kept after the process is gone so
 * that the events of a dead process still resolve.  For each file (one cache
 * entry per device + inode): the functions of .symtab and .dynsym (libelf),
 * sorted by address, and its PT_LOAD segments to turn a file offset into a
 * symbol address.  A lookup finds the mapping, then the function containing
 * the address by binary search.  C++ names are demangled on demand
 * (__cxa_demangle, libstdc++) and cached.
 *
 * The paths come from /proc/PID/maps, i.e. from the traced process: a file is
 * opened without blocking or following a last symbolic link and used only when it
 * is the regular file that is mapped (a FIFO at the path must not hang us).
 * Both caches are bounded: past SYM_MAX_PROCS / SYM_MAX_FILES the oldest entry
 * goes (the events of an evicted process no longer resolve).
 *
 * Locking: sym_lock guards everything here; lookups copy the name out.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "tfs.h"

/* libstdc++ (utracefs links -lstdc++) */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define SYM_MAX_LOADS 16
#define SYM_RETRY_NS 1000000000ull
#define SYM_MAX_PROCS 1024
#define SYM_MAX_FILES 512
#define SYM_MAX_MAPS 4096 /* per process, old mappings included */

struct sym {
	uint64_t addr, size;
	char *name;
	char *demangled; /* lazily; == name when it does not demangle */
	int rank;	 /* binding preference among aliases: global < weak < local */
};

struct symfile {
	char *path;
	dev_t dev;
	ino_t ino;
	struct sym *syms;
	size_t n;
	struct {
		uint64_t off, vaddr, filesz;
	} loads[SYM_MAX_LOADS];
	unsigned int nloads;
	struct symfile *next;
};

struct map {
	uint64_t start, end, off;
	struct symfile *f;
};

struct proc {
	pid_t pid;
	struct map *maps;
	size_t n;
	uint64_t tried_ns; /* last failed load, for lazily loaded processes */
	struct proc *next;
};

static pthread_mutex_t sym_lock = PTHREAD_MUTEX_INITIALIZER;
static struct symfile *files; /* newest first */
static struct proc *procs;     /* newest first */
static unsigned int nr_files, nr_procs;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- ELF files -------------------------------------------------------------------------- */

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

static int load_elf(struct symfile *f, int fd)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t cap = 0, nph = 0;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -EINVAL;
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -EINVAL;
	}
	if (elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph && f->nloads < SYM_MAX_LOADS; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
				f->loads[f->nloads].off = ph.p_offset;
				f->loads[f->nloads].vaddr = ph.p_vaddr;
				f->loads[f->nloads].filesz = ph.p_filesz;
				f->nloads++;
			}
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if ((sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) &&
		    read_symtab(elf, scn, &sh, f, &cap)) {
			elf_end(elf);
			return -ENOMEM;
		}
	}
	elf_end(elf);
	sort_syms(f);
	return 0;
}

/*
 * Open fn without blocking (a FIFO or a device would block or misbehave) and
 * keep it only when it is a regular file with inode ino.  -1 otherwise.
 */
static int open_regular(const char *fn, int flags, ino_t ino)
{
	struct stat st;
	int fd = open(fn, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);

	/* the inode tells a replaced file; overlay file systems may show another device */
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_ino != ino)) {
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
static int open_mapped(pid_t pid, const char *path, ino_t ino, uint64_t start, uint64_t end)
{
	char alt[64];
	int fd;

	snprintf(alt, sizeof(alt), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, start,
		 end);
	fd = open_regular(alt, 0, ino);
	if (fd < 0)
		fd = open_regular(path, O_NOFOLLOW, ino);
	return fd;
}

static void file_free(struct symfile *f)
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

static bool proc_uses(const struct proc *p, const struct symfile *f)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (p->maps[i].f == f)
			return true;
	return false;
}

/*
 * Past SYM_MAX_FILES, drop the oldest file that keep does not use, with every
 * mapping of it (sym_lock held).
 */
static void files_trim(const struct proc *keep)
{
	while (nr_files > SYM_MAX_FILES) {
		struct symfile **victim = NULL, *f;

		for (struct symfile **pp = &files; *pp; pp = &(*pp)->next)
			if (!proc_uses(keep, *pp))
				victim = pp;
		if (!victim)
			return;
		f = *victim;
		*victim = f->next;
		for (struct proc *p = procs; p; p = p->next) {
			size_t j = 0;

			for (size_t i = 0; i < p->n; i++)
				if (p->maps[i].f != f)
					p->maps[j++] = p->maps[i];
			p->n = j;
		}
		file_free(f);
		nr_files--;
	}
}

/* The cached file for a mapping (a file without symbols caches as empty). */
static struct symfile *file_get(pid_t pid, const char *path, dev_t dev, ino_t ino,
				uint64_t start, uint64_t end)
{
	struct symfile *f;
	int fd;

	for (f = files; f; f = f->next)
		if (f->dev == dev && f->ino == ino && !strcmp(f->path, path))
			return f;
	fd = open_mapped(pid, path, ino, start, end);
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	f->dev = dev;
	f->ino = ino;
	if (fd >= 0) {
		load_elf(f, fd); /* a file without symbols still caches as empty */
		close(fd);
	}
	f->next = files;
	files = f;
	nr_files++;
	return f;
}

/* ---- processes -------------------------------------------------------------------------- */

static struct proc *proc_find(pid_t pid)
{
	for (struct proc *p = procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

/* Parse one line of /proc/PID/maps; true for an executable file mapping. */
static bool parse_map_line(const char *line, uint64_t *start, uint64_t *end, uint64_t *off,
			   dev_t *dev, ino_t *ino, const char **path)
{
	char perms[8];
	unsigned int maj, min;
	unsigned long long s, e, o, i;
	int n = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &s, &e, perms, &o, &maj, &min, &i,
		   &n) < 7 || !n)
		return false;
	if (!strchr(perms, 'x') || line[n] != '/')
		return false;
	*start = s;
	*end = e;
	*off = o;
	*dev = makedev(maj, min);
	*ino = (ino_t)i;
	*path = line + n;
	return true;
}

static int read_maps(pid_t pid, struct map **out, size_t *nout)
{
	char fn[64], line[4096 + 256];
	struct map *maps = NULL;
	size_t n = 0, cap = 0;
	FILE *fp;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	fp = fopen(fn, "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		uint64_t start, end, off;
		const char *path;
		dev_t dev;
		ino_t ino;

		line[strcspn(line, "\n")] = '\0';
		if (!parse_map_line(line, &start, &end, &off, &dev, &ino, &path))
			continue;
		if (n >= SYM_MAX_MAPS)
			break;
		if (n == cap) {
			struct map *p = realloc(maps, (cap ? cap * 2 : 16) * sizeof(*p));

			if (!p)
				break;
			maps = p;
			cap = cap ? cap * 2 : 16;
		}
		maps[n].start = start;
		maps[n].end = end;
		maps[n].off = off;
		maps[n].f = file_get(pid, path, dev, ino, start, end);
		if (maps[n].f)
			n++;
	}
	fclose(fp);
	*out = maps;
	*nout = n;
	return 0;
}

static bool overlaps(const struct map *a, const struct map *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a->start < list[i].end && list[i].start < a->end)
			return true;
	return false;
}

/*
 * Replace p's mappings with the new ones, keeping the old ones that nothing new
 * covers (a library unloaded since: its earlier events still resolve).
 */
static void proc_set_maps(struct proc *p, struct map *maps, size_t n)
{
	size_t keep = 0;
	struct map *all;

	for (size_t i = 0; i < p->n; i++)
		if (!overlaps(&p->maps[i], maps, n))
			keep++;
	if (n + keep > SYM_MAX_MAPS)
		keep = 0; /* too many: forget the old ones */
	all = realloc(maps, (n + keep + 1) * sizeof(*all));
	if (!all) {
		free(p->maps);
		p->maps = maps;
		p->n = n;
		return;
	}
	for (size_t i = 0; i < p->n && keep; i++)
		if (!overlaps(&p->maps[i], all, n))
			all[n++] = p->maps[i];
	free(p->maps);
	p->maps = all;
	p->n = n;
}

/* Forget the oldest process (its files stay cached). */
static void procs_drop_oldest(void)
{
	struct proc **pp = &procs, *p;

	if (!*pp)
		return;
	while ((*pp)->next)
		pp = &(*pp)->next;
	p = *pp;
	*pp = NULL;
	free(p->maps);
	free(p);
	nr_procs--;
}

static int load_maps_locked(pid_t pid)
{
	struct proc *p = proc_find(pid);
	struct map *maps;
	size_t n;
	int err;

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->pid = pid;
		p->next = procs;
		procs = p;
		if (++nr_procs > SYM_MAX_PROCS)
			procs_drop_oldest();
	}
	err = read_maps(pid, &maps, &n);
	if (err) {
		p->tried_ns = now_ns();
		return err;
	}
	proc_set_maps(p, maps, n);
	p->tried_ns = 0;
	files_trim(p);
	return 0;
}

int tfs_sym_load_maps(pid_t pid)
{
	int err;

	if (pid <= 0)
		return -EINVAL;
	pthread_mutex_lock(&sym_lock);
	err = load_maps_locked(pid);
	pthread_mutex_unlock(&sym_lock);
	return err;
}

/* ---- lookups ---------------------------------------------------------------------------- */

/* The symbol of f containing vaddr, with its size (up to the next one when 0). */
static struct sym *file_lookup(struct symfile *f, uint64_t vaddr, uint64_t *size)
{
	size_t lo = 0, hi = f->n;
	struct sym *s;

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
	*size = s->size;
	if (!*size && lo < f->n)
		*size = f->syms[lo].addr - s->addr;
	if (vaddr - s->addr >= *size)
		return NULL;
	return s;
}

static const char *sym_name(struct sym *s, bool demangle)
{
	if (!demangle || strncmp(s->name, "_Z", 2))
		return s->name;
	if (!s->demangled) {
		int status = -1;
		char *d = __cxa_demangle(s->name, NULL, NULL, &status);

		s->demangled = status == 0 && d ? d : s->name;
		if (s->demangled != d)
			free(d);
	}
	return s->demangled;
}

static int map_lookup(struct proc *p, uint64_t addr, bool demangle, char *name, size_t size,
		      uint64_t *start, uint64_t *symsize)
{
	for (size_t i = 0; i < p->n; i++) {
		struct map *m = &p->maps[i];
		uint64_t foff;

		if (addr < m->start || addr >= m->end)
			continue;
		foff = addr - m->start + m->off;
		for (unsigned int l = 0; l < m->f->nloads; l++) {
			uint64_t o = m->f->loads[l].off, vaddr, ssize = 0;
			struct sym *s;

			if (foff < o || foff - o >= m->f->loads[l].filesz)
				continue;
			vaddr = foff - o + m->f->loads[l].vaddr;
			s = file_lookup(m->f, vaddr, &ssize);
			if (!s)
				return -ENOENT;
			snprintf(name, size, "%s", sym_name(s, demangle));
			*start = addr - (vaddr - s->addr);
			*symsize = ssize;
			return 0;
		}
		return -ENOENT;
	}
	return -ENOENT;
}

int tfs_sym_lookup(pid_t tid, uint64_t addr, bool demangle, char *name, size_t size,
		   uint64_t *start, uint64_t *symsize)
{
	pid_t pid = tfs_task_tgid(tid);
	struct proc *p;
	int err = -ENOENT;

	if (pid <= 0)
		pid = tid;
	if (pid <= 0 || !size)
		return -ENOENT;
	pthread_mutex_lock(&sym_lock);
	p = proc_find(pid);
	/* not announced (yet): read its maps now, but not again at every event */
	if (!p || (!p->n && p->tried_ns && now_ns() - p->tried_ns > SYM_RETRY_NS)) {
		load_maps_locked(pid);
		p = proc_find(pid);
	}
	if (p)
		err = map_lookup(p, addr, demangle, name, size, start, symsize);
	pthread_mutex_unlock(&sym_lock);
	return err;
}

int tfs_sym_site_name(pid_t pid, uint64_t addr, char *name, size_t size)
{
	uint64_t start, symsize;
	int err = tfs_sym_lookup(pid, addr, false, name, size, &start, &symsize);

	if (err)
		return err;
	/*
	 * A patch site starts its function, or follows the function's endbr64
	 * (-fcf-protection puts the nops after it): anything else is not the
	 * entry of that function.
	 */
	return start == addr || start + 4 == addr ? 0 : -ENOENT;
}

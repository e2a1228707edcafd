// SPDX-License-Identifier: MIT
/*
 * sym.c - addresses of traced processes -> function names, as they were mapped
 * when each event was written.
 *
 * For each process: its executable file mappings (start, end, file offset, the
 * file), each with the time (TSC, the rings' raw clock) it was seen gone, kept
 * after it went so that the events written while it was mapped still resolve.
 * For each file, one cache entry per content (symfile.c: device + inode, size,
 * mtime and GNU build-id, so that a file rebuilt in place, where ext4 reuses the
 * inode, is a new entry): its segments and functions.
 *
 * When the mappings change.  A process's maps are read when it registers
 * (HELLO) and when it says they changed (UT_MSG_MAPS, after every dlopen and
 * dlclose, stamped by the process with the TSC after the change).  A mapping
 * that was live and is not in the new reading ends at that stamp: events are
 * written by code that is mapped, so every event of it is older than the
 * stamp, and every event of what is mapped in its place afterwards younger.
 * But the maps may be read late: a reading shows what is mapped when it is
 * read (the process may have unloaded, loaded or exited since the stamp; a
 * reading that shows nothing says nothing, nor does one the process's exit cut
 * short: the file comes a page at a time, read_maps).  So the objects a process
 * announces (UT_MSG_OBJECT: every object the loader lists, sites or not;
 * UT_MSG_SITES: those with sites; path, load base and the process's TSC when it
 * sent them) are placed by the process's stamps alone: from their
 * files (tfs_sym_object_mapped) when no reading shows them, born at the stamp
 * of their announcement (mapped by then, none of their code run) and ended at
 * the stamp of their announced unload (tfs_sym_object_unmapped, sent after the
 * unmapping).  A reading that misses a live announced object ends it at the
 * time it was read, never earlier, until its unload says when.  A lookup for
 * an event of time ts takes the announced object born before ts and not ended
 * by then (the newest born); else, among the mappings covering the address,
 * the one that ended first after ts (a live one never ends; between live ones
 * the newest): the mapping that was there when the event was written.
 *
 * When old mappings go.  A mapping that ended can go once no event older than
 * its end can be in the rings: after every ring was cleared (tfs_sym_forget),
 * or, past SYM_MAX_MAPS per process, the one that ended first.  A process that
 * is gone (tfs_sym_proc_gone) ends all its mappings; it goes when they have.
 *
 * Naming: the symbol before the address (symfile.c says which covers what);
 * an address no symbol covers is named after its object by tfs_sym_object_at
 * ("[libc.so.6+0x2724a]", as the kernel names a module).  C++ names are
 * demangled on demand (__cxa_demangle, libstdc++) and cached.
 *
 * The paths come from /proc/PID/maps, i.e. from the traced process: a file is
 * opened without blocking or following a last symbolic link and used only when it
 * is the regular file that is mapped (a FIFO at the path must not hang us).
 * Both caches are bounded: past SYM_MAX_PROCS / SYM_MAX_FILES the oldest entry
 * goes (the events of an evicted process no longer resolve).  Except for a
 * recording: a file that trace_pipe_raw named in a flat address stays while a
 * trace_pipe_raw reader is open and until the kallsyms file has been read after
 * the last one closed (tfs_sym_flat_pin), so that kallsyms names every address
 * of the pages read, however many processes came and went meanwhile.
 *
 * Locking: sym_lock guards everything here; lookups copy the name out.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "settings.h"
#include "symfile.h"
#include "tfs.h"

/* libstdc++ (utracefs links -lstdc++) */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define SYM_RETRY_NS 1000000000ull
#define SYM_MAX_PROCS 1024
#define SYM_MAX_FILES 512
#define SYM_UNUSED_FILES 16		 /* files no mapping uses, kept for the next run */
#define SYM_MAX_BYTES (64u << 20)	 /* symbols of every cached file together */
#define SYM_MAX_MAPS 4096	 /* per process, old mappings included */
#define SYM_LIVE UINT64_MAX	 /* the end of a mapping still there */
#define SYM_NOW (UINT64_MAX - 1) /* a lookup "now": only live mappings */

struct map {
	uint64_t start, end, off;
	uint64_t gone;	/* TSC when it was seen unmapped, SYM_LIVE while mapped */
	uint64_t born;	/* announced: the process's stamp of its load */
	bool announced; /* of an object the process announced (tfs_sym_object_mapped) */
	struct symfile *f;
};

struct proc {
	pid_t pid;
	bool exited; /* tfs_sym_proc_gone: it can go with its last mapping */
	struct map *maps;
	size_t n;
	uint64_t last_tsc; /* stamp of the last reading: the next is not older */
	uint64_t tried_ns; /* last failed load, for lazily loaded processes */
	struct proc *next;
};

static pthread_mutex_t sym_lock = PTHREAD_MUTEX_INITIALIZER;
static struct symfile *files; /* newest first */
static struct proc *procs;     /* newest first */
static unsigned int nr_files, nr_procs;
static size_t file_bytes; /* symfile_bytes() of every cached file */
static unsigned int next_file_no = 1; /* the flat number of the next new file */
/* Bumped (sym_lock held) at every change of the mappings: tfs_sym_flat's caches check it. */
static unsigned long sym_gen;
/* Open trace_pipe_raw readers, and whether kallsyms is still owed after the last one. */
static unsigned int flat_pins;
static bool flat_owed;

/* Whether f must stay cached now (sym_lock held): see the header. */
static bool flat_kept(const struct symfile *f)
{
	return f->flat_named && (flat_pins || flat_owed);
}

static void sym_changed(void)
{
	__atomic_add_fetch(&sym_gen, 1, __ATOMIC_RELEASE);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the files (symfile.c), cached by content ------------------------------------------ */

static bool proc_uses(const struct proc *p, const struct symfile *f)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (p->maps[i].f == f)
			return true;
	return false;
}

/* Unlink f from the cache and free it (sym_lock held; no mapping uses it). */
/* What a cached file costs: its symbols and their names (demangled ones come later). */
static size_t symfile_bytes(const struct symfile *f)
{
	size_t b = sizeof(*f) + strlen(f->path) + 1 + f->n * sizeof(*f->syms);

	for (size_t i = 0; i < f->n; i++)
		b += strlen(f->syms[i].name) + 1;
	return b;
}

static void file_drop(struct symfile **pp)
{
	struct symfile *f = *pp;

	*pp = f->next;
	file_bytes -= f->bytes;
	tfs_symfile_free(f);
	nr_files--;
}

/* Mark the files some mapping uses; the number of those no mapping uses. */
static unsigned int files_mark(void)
{
	unsigned int unused = nr_files;

	for (struct symfile *f = files; f; f = f->next) {
		f->in_use = flat_kept(f);
		unused -= f->in_use;
	}
	for (const struct proc *p = procs; p; p = p->next)
		for (size_t i = 0; i < p->n; i++)
			if (!p->maps[i].f->in_use) {
				p->maps[i].f->in_use = true;
				unused--;
			}
	return unused;
}

/* Drop the oldest files no mapping uses while more than keep of them, or too many bytes. */
static void files_drop_unused(unsigned int unused, unsigned int keep)
{
	while (unused && (unused > keep || nr_files > SYM_MAX_FILES || file_bytes > SYM_MAX_BYTES)) {
		struct symfile **victim = NULL;

		for (struct symfile **pp = &files; *pp; pp = &(*pp)->next)
			if (!(*pp)->in_use)
				victim = pp;
		file_drop(victim);
		unused--;
	}
}

static void proc_free(struct proc *p);

/*
 * Keep the cache within its bounds (sym_lock held): at most SYM_UNUSED_FILES files
 * no mapping uses (the oldest go); past SYM_MAX_BYTES the processes that exited
 * first go too (their events no longer resolve), and past SYM_MAX_FILES the oldest
 * files that keep does not use, with every mapping of them.
 */
static void files_trim(const struct proc *keep)
{
	struct symfile **victim;

	files_drop_unused(files_mark(), SYM_UNUSED_FILES);
	while (file_bytes > SYM_MAX_BYTES) {
		struct proc **oldest = NULL, *p;

		for (struct proc **pp = &procs; *pp; pp = &(*pp)->next)
			if ((*pp)->exited && *pp != keep)
				oldest = pp;
		if (!oldest)
			break;
		p = *oldest;
		*oldest = p->next;
		proc_free(p);
		files_drop_unused(files_mark(), SYM_UNUSED_FILES);
	}
	while (nr_files > SYM_MAX_FILES) {
		victim = NULL;
		for (struct symfile **pp = &files; *pp; pp = &(*pp)->next)
			if (!proc_uses(keep, *pp) && !flat_kept(*pp))
				victim = pp;
		if (!victim)
			return;
		for (struct proc *p = procs; p; p = p->next) {
			size_t j = 0;

			for (size_t i = 0; i < p->n; i++)
				if (p->maps[i].f != *victim)
					p->maps[j++] = p->maps[i];
			p->n = j;
		}
		file_drop(victim);
	}
}

/*
 * The cached file for what fd holds (-1: could not be opened; then dev + ino
 * from the maps stand for it), by content.  Closes fd.
 */
static struct symfile *file_of_fd(int fd, const char *path, dev_t dev, ino_t ino)
{
	struct fileid id;
	Elf *elf = tfs_symfile_identify(fd, dev, ino, &id);
	struct symfile *f;

	for (f = files; f; f = f->next)
		if (tfs_fileid_same(&f->id, &id) && !strcmp(f->path, path))
			break;
	if (!f) {
		f = tfs_symfile_new(path, &id, elf);
		if (f) {
			/* never reused: a flat address names one file while utracefs lives */
			f->no = next_file_no <= SYM_FLAT_MAX_NO ? next_file_no++ : 0;
			f->bytes = symfile_bytes(f);
			file_bytes += f->bytes;
			f->next = files;
			files = f;
			nr_files++;
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return f;
}

/*
 * The cached file for a mapping of /proc/PID/maps: one with the inode, size
 * and mtime a stat shows is taken without reading the file again (a new
 * process maps the files others did); else the file is read.
 */
static struct symfile *file_get(pid_t pid, const char *path, dev_t dev, ino_t ino, uint64_t start,
				uint64_t end)
{
	struct fileid id;

	if (tfs_symfile_stat_mapped(pid, path, ino, start, end, &id))
		for (struct symfile *f = files; f; f = f->next)
			if (f->id.opened && f->id.dev == id.dev && f->id.ino == id.ino &&
			    f->id.size == id.size && f->id.mtime_ns == id.mtime_ns &&
			    !strcmp(f->path, path))
				return f;
	return file_of_fd(tfs_symfile_open_mapped(pid, path, ino, start, end), path, dev, ino);
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

/* A live mapping of p that is this line of its maps (its file need not be read again). */
static struct symfile *live_file(const struct proc *p, uint64_t start, uint64_t end, uint64_t off,
				 ino_t ino, const char *path)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct map *m = &p->maps[i];

		if (m->gone == SYM_LIVE && m->start == start && m->end == end && m->off == off &&
		    m->f->id.ino == ino && !strcmp(m->f->path, path))
			return m->f;
	}
	return NULL;
}

/*
 * Has pid still its memory?  A process that exited (a zombie) shows an empty
 * /proc/PID/statm ("0 0 ..."); one reaped has none.
 */
static bool mm_alive(pid_t pid)
{
	char fn[64], buf[32];
	ssize_t n;
	int fd;

	snprintf(fn, sizeof(fn), "/proc/%d/statm", (int)pid);
	fd = open(fn, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 && buf[0] != '0';
}

/*
 * tests: with UTRACEFS_TEST_MAPS_LATE a reading stamped by the process waits,
 * after its first line, until the process has exited (at most 10 s): the rest
 * of the file then reads as empty, as when a slow daemon meets a process exiting.
 */
static void test_maps_late(pid_t pid)
{
	static int late = -1;

	if (late < 0)
		late = getenv("UTRACEFS_TEST_MAPS_LATE") != NULL;
	if (!late || !mm_alive(pid))
		return;
	fprintf(stderr, "utracefs: test: the maps of %d are read late\n", (int)pid);
	for (int i = 0; i < 1000 && mm_alive(pid); i++)
		usleep(10000);
}

/*
 * Read p's executable file mappings.  The kernel hands /proc/PID/maps out a
 * page at a time (and stdio asks for less), taking the process's memory anew
 * for each: a process that exits between two reads ends the file early, and a
 * reading cut there would say that everything after the cut was unmapped.  So
 * a reading counts only when the process still has its memory after its end
 * (it cannot get it back: what was read before was read from it).
 */
static int read_maps(struct proc *p, bool stamped, struct map **out, size_t *nout)
{
	char fn[64], line[4096 + 256];
	struct map *maps = NULL;
	size_t n = 0, cap = 0;
	bool first = true;
	FILE *fp;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)p->pid);
	fp = fopen(fn, "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		uint64_t start, end, off;
		const char *path;
		dev_t dev;
		ino_t ino;

		if (first && stamped)
			test_maps_late(p->pid);
		first = false;
		line[strcspn(line, "\n")] = '\0';
		if (!parse_map_line(line, &start, &end, &off, &dev, &ino, &path))
			continue;
		if (n >= SYM_MAX_MAPS)
			break;
		if (n == cap) {
			struct map *m = realloc(maps, (cap ? cap * 2 : 16) * sizeof(*m));

			if (!m)
				break;
			maps = m;
			cap = cap ? cap * 2 : 16;
		}
		maps[n] = (struct map){.start = start, .end = end, .off = off, .gone = SYM_LIVE};
		maps[n].f = live_file(p, start, end, off, ino, path);
		if (!maps[n].f)
			maps[n].f = file_get(p->pid, path, dev, ino, start, end);
		if (maps[n].f)
			n++;
	}
	fclose(fp);
	if (!n || !mm_alive(p->pid)) {
		/* exiting: it shows none, or only what was read before it went */
		free(maps);
		return -ESRCH;
	}
	*out = maps;
	*nout = n;
	return 0;
}

static bool same_map(const struct map *a, const struct map *b)
{
	return a->start == b->start && a->end == b->end && a->off == b->off && a->f == b->f;
}

static bool in_list(const struct map *m, const struct map *list, size_t n, bool live_only)
{
	for (size_t i = 0; i < n; i++)
		if (same_map(m, &list[i]) && (!live_only || list[i].gone == SYM_LIVE))
			return true;
	return false;
}

/* Drop the mapping that ended first (none ended: the oldest); n > 0. */
static void proc_drop_one(struct proc *p)
{
	size_t v = 0;

	for (size_t i = 1; i < p->n; i++)
		if (p->maps[i].gone < p->maps[v].gone)
			v = i;
	p->maps[v] = p->maps[--p->n];
}

/*
 * A new reading of p's mappings, stamped tsc and finished at TSC now: the live
 * mappings not in it end at tsc, the ones in it not yet known start.  An
 * announced object not in it ends at now: it may have gone after tsc (the
 * reading was late), and its announced unload says when (tfs_sym_object_unmapped).
 * Takes maps.
 */
static void proc_set_maps(struct proc *p, struct map *maps, size_t n, uint64_t tsc, uint64_t now)
{
	size_t add = 0;
	struct map *all;

	for (size_t i = 0; i < p->n; i++)
		if (p->maps[i].gone == SYM_LIVE && !in_list(&p->maps[i], maps, n, false))
			p->maps[i].gone = p->maps[i].announced ? now : tsc;
	for (size_t i = 0; i < n; i++)
		if (!in_list(&maps[i], p->maps, p->n, true))
			maps[add++] = maps[i];
	all = realloc(p->maps, (p->n + add + 1) * sizeof(*all));
	if (all) {
		memcpy(all + p->n, maps, add * sizeof(*all));
		p->maps = all;
		p->n += add;
	}
	free(maps);
	while (p->n > SYM_MAX_MAPS)
		proc_drop_one(p);
}

static void proc_free(struct proc *p)
{
	free(p->maps);
	free(p);
	nr_procs--;
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
	proc_free(p);
}

/* SYM_MAX_PROCS, or less for the tests of eviction (UTRACEFS_TEST_SYM_MAX_PROCS). */
static unsigned int max_procs(void)
{
	static unsigned int max;

	if (!max) {
		const char *v = getenv("UTRACEFS_TEST_SYM_MAX_PROCS");
		unsigned int n = v ? (unsigned int)atoi(v) : 0;

		max = n && n < SYM_MAX_PROCS ? n : SYM_MAX_PROCS;
	}
	return max;
}

static struct proc *proc_get(pid_t pid)
{
	struct proc *p = proc_find(pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->next = procs;
	procs = p;
	if (++nr_procs > max_procs())
		procs_drop_oldest();
	return p;
}

static int load_maps_locked(pid_t pid, uint64_t tsc)
{
	struct proc *p = proc_get(pid);
	uint64_t now = tfs_clock_tsc();
	bool tsc_given = tsc != UINT64_MAX; /* UT_MSG_MAPS: the process's stamp */
	struct map *maps;
	size_t n;
	int err;

	if (!p)
		return -ENOMEM;
	sym_changed();
	/* never older than the last reading, never in the future */
	if (tsc < p->last_tsc)
		tsc = p->last_tsc;
	if (tsc > now)
		tsc = now;
	p->last_tsc = tsc; /* also when the reading fails: the next is not older */
	err = read_maps(p, tsc_given, &maps, &n);
	if (err) {
		p->tried_ns = now_ns();
		return err;
	}
	p->exited = false;
	proc_set_maps(p, maps, n, tsc, tfs_clock_tsc());
	p->tried_ns = 0;
	files_trim(p);
	return 0;
}

int tfs_sym_load_maps(pid_t pid)
{
	return tfs_sym_maps_changed(pid, UINT64_MAX);
}

int tfs_sym_maps_changed(pid_t pid, uint64_t tsc)
{
	int err;

	if (pid <= 0)
		return -EINVAL;
	pthread_mutex_lock(&sym_lock);
	err = load_maps_locked(pid, tsc);
	pthread_mutex_unlock(&sym_lock);
	return err;
}

void tfs_sym_proc_gone(pid_t pid)
{
	uint64_t tsc = tfs_clock_tsc();
	struct proc *p;

	pthread_mutex_lock(&sym_lock);
	p = proc_find(pid);
	for (size_t i = 0; p && i < p->n; i++)
		if (p->maps[i].gone == SYM_LIVE)
			p->maps[i].gone = tsc;
	if (p)
		p->exited = true;
	sym_changed();
	pthread_mutex_unlock(&sym_lock);
}

void tfs_sym_forget(uint64_t tsc)
{
	pthread_mutex_lock(&sym_lock);
	for (struct proc **pp = &procs; *pp;) {
		struct proc *p = *pp;
		size_t j = 0;

		for (size_t i = 0; i < p->n; i++)
			if (p->maps[i].gone > tsc)
				p->maps[j++] = p->maps[i];
		p->n = j;
		if (p->exited && !p->n) {
			*pp = p->next;
			proc_free(p);
			continue;
		}
		pp = &p->next;
	}
	files_trim(NULL);
	sym_changed();
	pthread_mutex_unlock(&sym_lock);
	malloc_trim(0); /* what went was in many small blocks: give the pages back */
}

/* The load bias of m: its file's addresses + bias are the process's.  false: unknown. */
static bool map_bias(const struct map *m, uint64_t *bias)
{
	for (unsigned int l = 0; l < m->f->nloads; l++) {
		uint64_t o = m->f->loads[l].off;

		if (o >= m->off && o - m->off < m->end - m->start) {
			*bias = m->start + (o - m->off) - m->f->loads[l].vaddr;
			return true;
		}
	}
	return false;
}

/* Mark p's live mappings of path's object at bias base announced, loaded at born. */
static bool mark_announced(struct proc *p, const char *path, uint64_t base, uint64_t born)
{
	bool found = false;
	uint64_t bias;

	for (size_t i = 0; i < p->n; i++) {
		struct map *m = &p->maps[i];

		if (m->gone == SYM_LIVE && !strcmp(m->f->path, path) && map_bias(m, &bias) &&
		    bias == base) {
			if (!m->announced || born < m->born)
				m->born = born;
			m->announced = true;
			found = true;
		}
	}
	return found;
}

/* The executable segments of f loaded at base at born, as the dynamic loader maps them. */
static void add_segments(struct proc *p, struct symfile *f, uint64_t base, uint64_t born)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);

	for (unsigned int l = 0; l < f->nloads; l++) {
		uint64_t v = f->loads[l].vaddr, end = v + f->loads[l].memsz;
		struct map *maps;

		if (!f->loads[l].exec || !f->loads[l].memsz)
			continue;
		maps = realloc(p->maps, (p->n + 1) * sizeof(*maps));
		if (!maps)
			return;
		p->maps = maps;
		maps[p->n++] = (struct map){.start = base + (v & ~(pg - 1)),
					    .end = base + ((end + pg - 1) & ~(pg - 1)),
					    .off = f->loads[l].off & ~(pg - 1),
					    .gone = SYM_LIVE,
					    .born = born,
					    .announced = true,
					    .f = f};
	}
	while (p->n > SYM_MAX_MAPS)
		proc_drop_one(p);
}

/* A stamp of the process, never in the future (sym_lock held). */
static uint64_t proc_stamp(uint64_t tsc)
{
	uint64_t now = tfs_clock_tsc();

	return tsc < now ? tsc : now;
}

int tfs_sym_object_mapped(pid_t pid, const char *path, uint64_t base, uint64_t tsc, ino_t ino)
{
	struct symfile *f;
	struct proc *p;
	int fd, err = 0;

	if (pid <= 0 || path[0] != '/')
		return -EINVAL;
	pthread_mutex_lock(&sym_lock);
	tsc = proc_stamp(tsc);
	p = proc_get(pid);
	if (!p) {
		err = -ENOMEM;
	} else if (!mark_announced(p, path, base, tsc)) {
		/* maps read too late to show it (unloaded since): the file says where it was */
		fd = tfs_symfile_open_regular(path, O_NOFOLLOW, ino);
		f = fd >= 0 ? file_of_fd(fd, path, 0, ino) : NULL;
		if (f)
			add_segments(p, f, base, tsc);
		else
			err = -ENOENT;
		files_trim(p);
	}
	sym_changed();
	pthread_mutex_unlock(&sym_lock);
	return err;
}

void tfs_sym_object_unmapped(pid_t pid, uint64_t base, uint64_t tsc)
{
	struct proc *p;
	uint64_t bias;

	pthread_mutex_lock(&sym_lock);
	tsc = proc_stamp(tsc);
	p = proc_find(pid);
	for (size_t i = 0; p && i < p->n; i++) {
		struct map *m = &p->maps[i];

		/*
		 * The instance loaded before tsc and not known gone before it: a
		 * reading of the maps may have ended it later than this (it was late).
		 */
		if (m->announced && m->born <= tsc && m->gone > tsc && map_bias(m, &bias) &&
		    bias == base)
			m->gone = tsc;
	}
	sym_changed();
	pthread_mutex_unlock(&sym_lock);
}

/* ---- lookups ---------------------------------------------------------------------------- */

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

/*
 * The mapping of p that held addr at time tsc: an announced object loaded
 * before tsc and not unloaded by then (the newest such load), both known from
 * the process's own stamps; else the first mapping to end after tsc.
 */
static struct map *map_at(struct proc *p, uint64_t tsc, uint64_t addr)
{
	struct map *best = NULL, *own = NULL;

	for (size_t i = 0; i < p->n; i++) {
		struct map *m = &p->maps[i];

		if (addr < m->start || addr >= m->end || m->gone <= tsc)
			continue;
		if (m->announced && m->born <= tsc && (!own || m->born >= own->born))
			own = m;
		/* a tie between live ones: the newest (one seen early is older) */
		if (!best || m->gone <= best->gone)
			best = m;
	}
	return own ? own : best;
}

/* The segment of m's file holding addr: its index, *vaddr the address in the file. */
static int map_segment(const struct map *m, uint64_t addr, uint64_t *vaddr)
{
	uint64_t foff = addr - m->start + m->off;

	for (unsigned int l = 0; l < m->f->nloads; l++) {
		uint64_t o = m->f->loads[l].off;

		if (foff < o || foff - o >= m->f->loads[l].filesz)
			continue;
		*vaddr = foff - o + m->f->loads[l].vaddr;
		return (int)l;
	}
	return -1;
}

static int map_lookup(struct map *m, uint64_t addr, bool demangle, char *name, size_t size,
		      uint64_t *start, uint64_t *symsize)
{
	uint64_t vaddr, ssize = 0, lo;
	int l = map_segment(m, addr, &vaddr);
	struct sym *s;

	if (l < 0)
		return -ENOENT;
	lo = m->f->loads[l].vaddr;
	s = tfs_symfile_lookup(m->f, vaddr, lo, lo + m->f->loads[l].filesz, &ssize);
	if (!s)
		return -ENOENT;
	snprintf(name, size, "%s", sym_name(s, demangle));
	*start = addr - (vaddr - s->addr);
	*symsize = ssize;
	return 0;
}

/* The process of tid, its maps read now when it was never announced (sym_lock held). */
static struct proc *proc_of_task(pid_t tid)
{
	pid_t pid = tfs_task_tgid(tid);
	struct proc *p;

	if (pid <= 0)
		pid = tid;
	if (pid <= 0)
		return NULL;
	p = proc_find(pid);
	/* not announced (yet): read its maps now, but not again at every event */
	if (!p || (!p->n && p->tried_ns && now_ns() - p->tried_ns > SYM_RETRY_NS)) {
		load_maps_locked(pid, UINT64_MAX);
		p = proc_find(pid);
	}
	return p;
}

/*
 * Take sym_lock and find the mapping of tid's process that held addr at tsc
 * (NULL: none); the caller unlocks.
 */
static struct map *lock_map(pid_t tid, uint64_t tsc, uint64_t addr)
{
	struct proc *p;

	pthread_mutex_lock(&sym_lock);
	p = proc_of_task(tid);
	return p ? map_at(p, tsc, addr) : NULL;
}

int tfs_sym_lookup_at(pid_t tid, uint64_t tsc, uint64_t addr, bool demangle, char *name,
		      size_t size, uint64_t *start, uint64_t *symsize)
{
	struct map *m;
	int err = -ENOENT;

	if (!size)
		return -ENOENT;
	m = lock_map(tid, tsc, addr);
	if (m)
		err = map_lookup(m, addr, demangle, name, size, start, symsize);
	pthread_mutex_unlock(&sym_lock);
	return err;
}

int tfs_sym_lookup(pid_t tid, uint64_t addr, bool demangle, char *name, size_t size,
		   uint64_t *start, uint64_t *symsize)
{
	return tfs_sym_lookup_at(tid, SYM_NOW, addr, demangle, name, size, start, symsize);
}

int tfs_sym_object_at(pid_t tid, uint64_t tsc, uint64_t addr, char *name, size_t size)
{
	struct map *m;
	uint64_t vaddr;

	if (!size)
		return -ENOENT;
	m = lock_map(tid, tsc, addr);
	if (m) {
		const char *base = strrchr(m->f->path, '/');

		/* the address in the file (as addr2line takes it), else the file offset */
		if (map_segment(m, addr, &vaddr) < 0)
			vaddr = addr - m->start + m->off;
		snprintf(name, size, "[%s+0x%" PRIx64 "]", base ? base + 1 : m->f->path, vaddr);
	}
	pthread_mutex_unlock(&sym_lock);
	return m ? 0 : -ENOENT;
}

int tfs_sym_file_key(pid_t pid, uint64_t addr, char *key, size_t size)
{
	struct map *m;

	if (!size)
		return -ENOENT;
	m = lock_map(pid, SYM_NOW, addr);
	if (m) {
		const struct fileid *id = &m->f->id;
		size_t n = 0;

		/* the build-id says what the content is; without one, size and mtime */
		if (id->build_id_len) {
			for (unsigned int i = 0; i < id->build_id_len && n + 3 <= size; i++)
				n += (size_t)snprintf(key + n, size - n, "%02x", id->build_id[i]);
		} else {
			snprintf(key, size, "%jd.%" PRId64, (intmax_t)id->size, id->mtime_ns);
		}
	}
	pthread_mutex_unlock(&sym_lock);
	return m ? 0 : -ENOENT;
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

char *tfs_sym_demangle(const char *name)
{
	int status = -1;
	char *d;

	if (strncmp(name, "_Z", 2))
		return NULL;
	d = __cxa_demangle(name, NULL, NULL, &status);
	if (status == 0 && d)
		return d;
	free(d);
	return NULL;
}

/* ---- the flat address space (trace_pipe_raw, the kallsyms file) -------------------------- */

/*
 * A cell: for an event of tid in [t_lo, t_hi) at an address in [lo, hi), the
 * same mapping is chosen (the mappings covering the cell and which of them are
 * live are the same throughout) and the same segment of its file holds the
 * address, so flat = addr + delta (0: the address stays as it is).  Valid while
 * sym_gen is gen.
 */
struct flat_cell {
	unsigned long gen;
	pid_t tid;
	uint64_t lo, hi, t_lo, t_hi, delta;
};

#define FLAT_CACHE 4 /* an event's ip and parent ip are often in two objects */
#define SYM_FLAT_MIN_ADDR 4096 /* the first page is never mapped (vm.mmap_min_addr) */
static __thread struct flat_cell flat_cache[FLAT_CACHE];
static __thread unsigned int flat_victim;

static void cell_time(struct flat_cell *c, uint64_t tsc, uint64_t when)
{
	if (when <= tsc) {
		if (when > c->t_lo)
			c->t_lo = when;
	} else if (when < c->t_hi) {
		c->t_hi = when;
	}
}

static void cell_addr(struct flat_cell *c, uint64_t lo, uint64_t hi)
{
	if (lo > c->lo)
		c->lo = lo;
	if (hi < c->hi)
		c->hi = hi;
}

/* The cell around (tsc, addr) in p (NULL: none), as map_at chooses (sym_lock held). */
static void flat_cell_of(struct proc *p, uint64_t tsc, uint64_t addr, struct flat_cell *c)
{
	struct map *m = NULL;

	c->lo = 0;
	c->hi = c->t_hi = UINT64_MAX;
	c->t_lo = c->delta = 0;
	for (size_t i = 0; p && i < p->n; i++) {
		const struct map *o = &p->maps[i];

		if (o->end <= addr) {
			cell_addr(c, o->end, UINT64_MAX);
		} else if (o->start > addr) {
			cell_addr(c, 0, o->start);
		} else {
			cell_addr(c, o->start, o->end);
			cell_time(c, tsc, o->gone);
			if (o->announced)
				cell_time(c, tsc, o->born);
		}
	}
	if (p)
		m = map_at(p, tsc, addr);
	if (m) {
		uint64_t vaddr, seg_lo;
		int l = map_segment(m, addr, &vaddr);

		if (l < 0) {
			cell_addr(c, addr, addr + 1); /* in the mapping, in no segment */
			return;
		}
		seg_lo = addr - (vaddr - m->f->loads[l].vaddr);
		cell_addr(c, seg_lo, seg_lo + m->f->loads[l].filesz);
		if (m->f->no && m->f->loads[l].vaddr + m->f->loads[l].filesz <= SYM_FLAT_MAX_VADDR) {
			c->delta = (SYM_FLAT_BIT | (uint64_t)m->f->no << SYM_FLAT_NO_SHIFT) +
				   (vaddr - addr);
			m->f->flat_named = true;
		}
	}
}

uint64_t tfs_sym_flat(pid_t tid, uint64_t tsc, uint64_t addr)
{
	unsigned long gen = __atomic_load_n(&sym_gen, __ATOMIC_ACQUIRE);
	struct flat_cell *c;

	/*
	 * No code there (a top-level caller's 0, a marker's 1): not worth a lookup,
	 * which would read the maps of a writer that is no traced process.
	 */
	if (addr < SYM_FLAT_MIN_ADDR)
		return addr;
	for (unsigned int i = 0; i < FLAT_CACHE; i++) {
		c = &flat_cache[i];
		if (c->gen == gen && c->tid == tid && addr >= c->lo && addr < c->hi &&
		    tsc >= c->t_lo && tsc < c->t_hi)
			return c->delta ? addr + c->delta : addr;
	}
	c = &flat_cache[flat_victim++ % FLAT_CACHE];
	pthread_mutex_lock(&sym_lock);
	flat_cell_of(proc_of_task(tid), tsc, addr, c);
	/* read under the lock, after any change proc_of_task made */
	c->gen = __atomic_load_n(&sym_gen, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&sym_lock);
	c->tid = tid;
	return c->delta ? addr + c->delta : addr;
}

static int file_no_cmp(const void *a, const void *b)
{
	const struct symfile *x = *(struct symfile *const *)a, *y = *(struct symfile *const *)b;

	return x->no < y->no ? -1 : x->no > y->no;
}

void tfs_sym_flat_pin(bool open)
{
	pthread_mutex_lock(&sym_lock);
	if (open) {
		flat_pins++;
	} else if (flat_pins) {
		flat_pins--;
		flat_owed = !flat_pins;
	}
	pthread_mutex_unlock(&sym_lock);
}

int tfs_sym_kallsyms(struct tfs_buf *b)
{
	struct symfile **all;
	size_t n = 0;
	int err = 0;

	pthread_mutex_lock(&sym_lock);
	flat_owed = false; /* the recorder has its names: the cache's bounds apply again */
	all = malloc((nr_files + 1) * sizeof(*all));
	if (!all) {
		pthread_mutex_unlock(&sym_lock);
		return -ENOMEM;
	}
	for (struct symfile *f = files; f; f = f->next)
		all[n++] = f;
	/* by number, so the whole table is sorted by flat address */
	qsort(all, n, sizeof(*all), file_no_cmp);
	for (size_t i = 0; i < n && !err; i++)
		err = tfs_symfile_kallsyms(all[i], b);
	pthread_mutex_unlock(&sym_lock);
	free(all);
	return err;
}

// SPDX-License-Identifier: MIT
/*
 * available_filter_functions.c - the table of functions (functab.h) and the
 * file that lists it.
 *
 * Processes send their patch sites object by object (UT_MSG_SITES, possibly in
 * several packets); once an object is complete its sites are named (sym.c: the
 * function that starts at the site or 4 bytes before it) and each named site is
 * a function of the file it came from.  available_filter_functions then lists,
 * for every object some live process has loaded, in order of first registration,
 * its functions in address order, each once: "name" for an executable's,
 * "name [libfoo.so.1]" for a shared object's, the way the kernel prints a
 * module's functions; C++ names demangled while the option demangle is on.
 * Index numbers written to the filter files refer to these lines.  A function new
 * to the table gets what the filters' kept patterns say (ftrace_filter.c) before
 * its object counts as complete.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "functab.h"
#include "ut_sel.h"

/* dyn_ftrace_total_info: ns spent naming sites of [0] executables, [1] shared objects */
static uint64_t update_ns[2];

#define FT_MAX_SITES (1u << 22) /* per object: a bound on what a process makes us allocate */
#define FT_MAX_OBJS 4096u	/* per process */
#define FT_NAME_MAX 8192	/* mangled; C++ templates make long ones */

struct tfs_ft tfs_ft;
pthread_mutex_t tfs_ft_lock = PTHREAD_MUTEX_INITIALIZER;

static int grow(void **p, unsigned int *cap, unsigned int want, size_t elt)
{
	unsigned int ncap;
	void *q;

	if (want <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < want)
		ncap *= 2;
	q = realloc(*p, (size_t)ncap * elt);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = ncap;
	return 0;
}

/* ---- objects and functions ------------------------------------------------------ */

/* A file rebuilt at the same path is another object (key: its content, sym.c). */
static int obj_find(const char *path, const char *key)
{
	for (unsigned int i = 0; i < tfs_ft.nr_objs; i++)
		if (!strcmp(tfs_ft.objs[i].path, path) && !strcmp(tfs_ft.objs[i].key, key))
			return (int)i;
	return -1;
}

/*
 * The other names a user gives a shared object in `mod:`: for libz.so.1.2.13 the
 * names with fewer version numbers (libz.so.1.2, libz.so.1 -- the soname --,
 * libz.so) and the name without any (libz).  NULL-ended; NULL when none or ENOMEM.
 */
static char **obj_aliases(const char *file)
{
	const char *so = strstr(file, ".so");
	unsigned int n = 0;
	char **v;

	while (so && so[3] && so[3] != '.')
		so = strstr(so + 1, ".so");
	if (!so || so == file)
		return NULL;
	v = calloc(strlen(so) + 2, sizeof(*v)); /* at most one per dot, and the stem */
	if (!v)
		return NULL;
	v[n++] = strndup(file, (size_t)(so - file));
	for (const char *p = so + 3; *p; p++)
		if (*p == '.')
			v[n++] = strndup(file, (size_t)(p - file));
	v[n] = NULL;
	for (unsigned int i = 0; i < n; i++)
		if (!v[i]) {
			for (unsigned int j = 0; j < n; j++)
				free(v[j]);
			free(v);
			return NULL;
		}
	return v;
}

bool tfs_ft_obj_hit(const struct tfs_ft_obj *ob, const struct tfs_glob *g)
{
	if (tfs_glob_hit(ob->mod, g))
		return true;
	for (char **a = ob->alias; a && *a; a++)
		if (tfs_glob_hit(*a, g))
			return true;
	return false;
}

static int obj_get(const char *path, const char *key, bool is_exe)
{
	struct tfs_ft_obj *o;
	int i = obj_find(path, key);
	const char *slash;

	if (i >= 0) {
		tfs_ft.objs[i].exe |= is_exe;
		return i;
	}
	if (grow((void **)&tfs_ft.objs, &tfs_ft.cap_objs, tfs_ft.nr_objs + 1, sizeof(*o)))
		return -ENOMEM;
	o = &tfs_ft.objs[tfs_ft.nr_objs];
	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	o->key = strdup(key);
	if (!o->path || !o->key) {
		free(o->path);
		free(o->key);
		return -ENOMEM;
	}
	slash = strrchr(o->path, '/');
	o->mod = slash ? slash + 1 : o->path;
	o->exe = is_exe;
	o->alias = obj_aliases(o->mod);
	return (int)tfs_ft.nr_objs++;
}

/* Does the operator name "operator" start at s (inside a C++ name)? */
static bool at_operator(const char *s)
{
	return !strncmp(s, "operator", 8) && !(s[8] == '_' || (s[8] >= 'a' && s[8] <= 'z'));
}

/*
 * A demangled C++ name without what a user leaves out when naming a function:
 * "void ns::f<int>(int) const [clone .isra.0]" -> "ns::f<int>".  The parameter
 * list is the last parenthesized group (after the clone suffixes are cut), the
 * return type what precedes the last space outside <> and () (templates have
 * one).  Operators' own < > ( ) do not count.  NULL on ENOMEM.
 */
static char *bare_name(const char *d)
{
	size_t len = strlen(d), params = len, start = 0;
	const char *clone;
	int depth = 0;

	clone = strstr(d, " [clone ");
	if (clone)
		len = (size_t)(clone - d);
	for (size_t i = 0; i < len; i++) {
		if (at_operator(d + i)) {
			i += 8;
			while (i < len && strchr("<>()[]", d[i]) &&
			       !(d[i] == '(' && d[i + 1] != ')'))
				i++;
			i--;
			continue;
		}
		if (d[i] == '(' || d[i] == '<') {
			if (d[i] == '(' && depth == 0)
				params = i; /* the last top-level group wins */
			depth++;
		} else if ((d[i] == ')' || d[i] == '>') && depth > 0) {
			depth--;
		} else if (d[i] == ' ' && depth == 0 && params == len) {
			if (!(i >= 8 && at_operator(d + i - 8)))
				start = i + 1;
		}
	}
	if (params < start)
		params = len;
	return strndup(d + start, params - start);
}

/*
 * The C++ names of f, made when first asked for (lock held): demangling every
 * function of a large C++ program as it registers would delay its start.
 */
static void cxx_names(struct tfs_ft_func *f)
{
	if (f->cxx)
		return;
	f->dname = tfs_sym_demangle(f->name);
	f->bare = f->dname ? bare_name(f->dname) : NULL;
	if (!f->bare) {
		free(f->dname);
		f->dname = NULL;
	}
	f->cxx = 1;
}

bool tfs_ft_func_hit(struct tfs_ft_func *f, const struct tfs_glob *g, bool demangle)
{
	if (tfs_glob_hit(f->name, g))
		return true;
	if (!demangle)
		return false;
	cxx_names(f);
	return f->dname && (tfs_glob_hit(f->dname, g) || tfs_glob_hit(f->bare, g));
}

const char *tfs_ft_func_name(struct tfs_ft_func *f, bool demangle)
{
	if (demangle)
		cxx_names(f);
	return demangle && f->dname ? f->dname : f->name;
}

/* The id of the function of object oi at off, added when new; UINT32_MAX on ENOMEM. */
static uint32_t func_get(unsigned int oi, uint64_t off, const char *name)
{
	struct tfs_ft_obj *o = &tfs_ft.objs[oi];
	unsigned int lo = 0, hi = o->n;
	struct tfs_ft_func *f;
	uint32_t id;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (tfs_ft.funcs[o->funcs[mid]].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < o->n && tfs_ft.funcs[o->funcs[lo]].off == off)
		return o->funcs[lo];
	if (grow((void **)&tfs_ft.funcs, &tfs_ft.cap_funcs, tfs_ft.nr_funcs + 1, sizeof(*f)) ||
	    grow((void **)&o->funcs, &o->cap, o->n + 1, sizeof(*o->funcs)))
		return UINT32_MAX;
	id = tfs_ft.nr_funcs;
	f = &tfs_ft.funcs[id];
	f->name = strdup(name);
	if (!f->name)
		return UINT32_MAX;
	f->dname = f->bare = NULL;
	f->cxx = 0;
	f->obj = oi;
	f->off = off;
	f->sel = 0;
	tfs_ft.nr_funcs++;
	memmove(&o->funcs[lo + 1], &o->funcs[lo], (o->n - lo) * sizeof(*o->funcs));
	o->funcs[lo] = id;
	o->n++;
	return id;
}

/* ---- processes ------------------------------------------------------------------ */

static struct tfs_ft_proc *proc_find(pid_t pid, bool create)
{
	unsigned int lo = 0, hi = tfs_ft.nr_procs;
	struct tfs_ft_proc *p;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (tfs_ft.procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < tfs_ft.nr_procs && tfs_ft.procs[lo].pid == pid)
		return &tfs_ft.procs[lo];
	if (!create)
		return NULL;
	p = realloc(tfs_ft.procs, (tfs_ft.nr_procs + 1) * sizeof(*p));
	if (!p)
		return NULL;
	tfs_ft.procs = p;
	memmove(&p[lo + 1], &p[lo], (tfs_ft.nr_procs - lo) * sizeof(*p));
	p[lo] = (struct tfs_ft_proc){.pid = pid};
	tfs_ft.nr_procs++;
	return &p[lo];
}

static void pobj_free(struct tfs_ft_pobj *po)
{
	if (po->fobj >= 0 && !--tfs_ft.objs[po->fobj].live)
		tfs_ft.objs[po->fobj].died = ++tfs_ft.deaths;
	free(po->offs);
	free(po->ids);
	po->offs = NULL;
	po->ids = NULL;
	po->fobj = -1;
}

static struct tfs_ft_pobj *pobj_find(struct tfs_ft_proc *p, uint32_t obj)
{
	for (unsigned int i = 0; i < p->n; i++)
		if (p->objs[i].obj == obj)
			return &p->objs[i];
	return NULL;
}

static void pobj_remove(struct tfs_ft_proc *p, struct tfs_ft_pobj *po)
{
	pobj_free(po);
	*po = p->objs[--p->n];
}

/* Name the sites of a complete object and attach it to its file (lock held). */
static int pobj_complete(struct tfs_ft_pobj *po, const char *path, const char *key, bool is_exe,
			 const char *const *names)
{
	uint32_t first = tfs_ft.nr_funcs;
	int oi = obj_get(path, key, is_exe);

	if (oi < 0)
		return oi;
	po->ids = malloc((size_t)(po->total ? po->total : 1) * sizeof(*po->ids));
	if (!po->ids)
		return -ENOMEM;
	for (uint32_t i = 0; i < po->total; i++)
		po->ids[i] =
		    names[i] ? func_get((unsigned int)oi, po->offs[i], names[i]) : UINT32_MAX;
	po->fobj = oi;
	tfs_ft.objs[oi].live++;
	/* a new object, or a known one rebuilt: what the filters' patterns say */
	tfs_ft_apply_pats_locked(first);
	return 0;
}

/*
 * Start or continue object obj of p.  Packets of one object come in order: the
 * first at 0, each at the count received so far, all with the same total/base.
 */
static int pobj_packet(struct tfs_ft_proc *p, uint32_t obj, uint64_t base, uint32_t total,
		       uint32_t first, uint32_t nr, const uint32_t *offsets,
		       struct tfs_ft_pobj **out)
{
	struct tfs_ft_pobj *po = pobj_find(p, obj);

	if (total > FT_MAX_SITES || first > total || nr > total - first)
		return -EPROTO;
	if (first == 0) {
		if (po)
			pobj_remove(p, po); /* sent again: replaces the old one */
		if (total == 0) {
			*out = NULL;
			return nr ? -EPROTO : 1; /* unloaded */
		}
		if (p->n >= FT_MAX_OBJS)
			return -EPROTO;
		po = realloc(p->objs, (p->n + 1) * sizeof(*po));
		if (!po)
			return -ENOMEM;
		p->objs = po;
		po = &p->objs[p->n];
		*po = (struct tfs_ft_pobj){.obj = obj, .base = base, .total = total, .fobj = -1};
		p->n++;
	} else if (!po || po->fobj >= 0 || po->got != first || po->total != total ||
		   po->base != base) {
		return -EPROTO;
	}
	/*
	 * Room for what came, not for the total announced: a peer that announces
	 * 2^22 sites in thousands of objects and sends none must not make us
	 * reserve gigabytes.
	 */
	if (nr || !po->offs) {
		uint32_t *o = realloc(po->offs, ((size_t)po->got + nr ? po->got + nr : 1) *
							sizeof(*po->offs));

		if (!o)
			return -ENOMEM;
		po->offs = o;
	}
	memcpy(po->offs + first, offsets, (size_t)nr * sizeof(*offsets));
	po->got += nr;
	*out = po;
	return po->got == po->total;
}

int tfs_ft_add_named(pid_t pid, uint32_t obj, const char *path, bool is_exe, uint64_t base,
		     uint32_t total, const uint32_t *offsets, const char *const *names)
{
	struct tfs_ft_pobj *po;
	struct tfs_ft_proc *p;
	int ret;

	pthread_mutex_lock(&tfs_ft_lock);
	p = proc_find(pid, true);
	ret = p ? pobj_packet(p, obj, base, total, 0, total, offsets, &po) : -ENOMEM;
	if (ret == 1 && po)
		ret = pobj_complete(po, path, "", is_exe, names) ?: 1;
	pthread_mutex_unlock(&tfs_ft_lock);
	return ret;
}

int tfs_ft_sites(pid_t pid, uint32_t obj, const char *path, bool is_exe, uint64_t base,
		 uint32_t total, uint32_t first, uint32_t nr, const uint32_t *offsets)
{
	struct tfs_ft_pobj *po;
	struct tfs_ft_proc *p;
	char **names = NULL, key[2 * 64 + 1];
	uint32_t *offs = NULL;
	struct timespec t0, t1;
	int ret;

	pthread_mutex_lock(&tfs_ft_lock);
	p = proc_find(pid, true);
	ret = p ? pobj_packet(p, obj, base, total, first, nr, offsets, &po) : -ENOMEM;
	if (ret == 1 && po) {
		/* name the sites without the lock: sym.c may read ELF files */
		offs = malloc((size_t)po->total * sizeof(*offs));
		if (offs)
			memcpy(offs, po->offs, (size_t)po->total * sizeof(*offs));
		else
			ret = -ENOMEM;
	}
	pthread_mutex_unlock(&tfs_ft_lock);
	if (ret != 1 || !offs)
		return ret;

	names = calloc(total, sizeof(*names));
	if (!names) {
		free(offs);
		return -ENOMEM;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int pass = 0; pass < 2; pass++) {
		bool any = false;
		char name[FT_NAME_MAX];

		for (uint32_t i = 0; i < total; i++) {
			if (names[i] || tfs_sym_site_name(pid, base + offs[i], name, sizeof(name)))
				continue;
			names[i] = strdup(name);
			any = true;
		}
		if (any || pass)
			break;
		tfs_sym_load_maps(pid); /* dlopen'ed since we read its maps: read them again */
	}
	if (tfs_sym_file_key(pid, base + offs[0], key, sizeof(key)))
		key[0] = '\0';

	pthread_mutex_lock(&tfs_ft_lock);
	p = proc_find(pid, false);
	po = p ? pobj_find(p, obj) : NULL;
	/* still the object we named (nothing replaced it meanwhile) */
	if (po && po->fobj < 0 && po->got == po->total && po->total == total &&
	    !memcmp(po->offs, offs, (size_t)total * sizeof(*offs)))
		ret = pobj_complete(po, path, key, is_exe, (const char *const *)names) ?: 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* dyn_ftrace_total_info: executables are our "boot", shared objects "modules" */
	update_ns[!is_exe] += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
			      (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
	pthread_mutex_unlock(&tfs_ft_lock);
	for (uint32_t i = 0; i < total; i++)
		free(names[i]);
	free(names);
	free(offs);
	return ret;
}

bool tfs_ft_proc_gone(pid_t pid)
{
	struct tfs_ft_proc *p;
	bool had = false;

	pthread_mutex_lock(&tfs_ft_lock);
	p = proc_find(pid, false);
	if (p) {
		had = p->n > 0;
		for (unsigned int i = 0; i < p->n; i++)
			pobj_free(&p->objs[i]);
		free(p->objs);
		memmove(p, p + 1, (size_t)(tfs_ft.procs + tfs_ft.nr_procs - (p + 1)) * sizeof(*p));
		tfs_ft.nr_procs--;
		tfs_ft_trim_locked(TFS_FT_DEAD_FUNCS);
	}
	pthread_mutex_unlock(&tfs_ft_lock);
	return had;
}

/* ---- forgetting the objects of processes long gone ------------------------------------ */

void tfs_ft_writer_locked(bool opened)
{
	if (opened) {
		tfs_ft.writers++;
		return;
	}
	if (tfs_ft.writers && !--tfs_ft.writers)
		tfs_ft_trim_locked(TFS_FT_DEAD_FUNCS);
}

static void func_free(struct tfs_ft_func *f)
{
	free(f->name);
	free(f->dname);
	free(f->bare);
}

static void obj_free(struct tfs_ft_obj *o)
{
	free(o->path);
	free(o->key);
	free(o->funcs);
	for (char **a = o->alias; a && *a; a++)
		free(*a);
	free(o->alias);
}

/* Which dead objects go: the earliest gone first, until at most keep functions stay. */
static bool *trim_victims(unsigned int keep)
{
	uint64_t dead = 0;
	bool *drop;

	for (unsigned int i = 0; i < tfs_ft.nr_objs; i++)
		if (!tfs_ft.objs[i].live)
			dead += tfs_ft.objs[i].n;
	if (dead <= keep || !(drop = calloc(tfs_ft.nr_objs, sizeof(*drop))))
		return NULL;
	while (dead > keep) {
		int v = -1;

		for (unsigned int i = 0; i < tfs_ft.nr_objs; i++)
			if (!tfs_ft.objs[i].live && !drop[i] &&
			    (v < 0 || tfs_ft.objs[i].died < tfs_ft.objs[v].died))
				v = (int)i;
		drop[v] = true;
		dead -= tfs_ft.objs[v].n;
	}
	return drop;
}

void tfs_ft_trim_locked(unsigned int keep)
{
	uint32_t *fmap, *omap, nf = 0, no = 0;
	bool *drop;

	if (tfs_ft.writers || !(drop = trim_victims(keep)))
		return;
	fmap = malloc((tfs_ft.nr_funcs ? tfs_ft.nr_funcs : 1) * sizeof(*fmap));
	omap = malloc(tfs_ft.nr_objs * sizeof(*omap));
	if (!fmap || !omap)
		goto out;
	/* compact the objects, then the functions; both keep their order */
	for (unsigned int i = 0; i < tfs_ft.nr_objs; i++) {
		if (drop[i]) {
			omap[i] = UINT32_MAX;
			obj_free(&tfs_ft.objs[i]);
			continue;
		}
		omap[i] = no;
		tfs_ft.objs[no++] = tfs_ft.objs[i];
	}
	for (uint32_t id = 0; id < tfs_ft.nr_funcs; id++) {
		struct tfs_ft_func *f = &tfs_ft.funcs[id];

		if (omap[f->obj] == UINT32_MAX) {
			fmap[id] = UINT32_MAX;
			func_free(f);
			continue;
		}
		f->obj = omap[f->obj];
		fmap[id] = nf;
		tfs_ft.funcs[nf++] = *f;
	}
	tfs_ft.nr_objs = no;
	tfs_ft.nr_funcs = nf;
	for (unsigned int i = 1; i < UT_INST_MAX; i++) { /* the instances' own selections */
		struct tfs_ft_isel *is = &tfs_ft.inst[i];
		unsigned int n = 0;

		for (unsigned int id = 0; is->sel && id < is->n; id++)
			if (fmap[id] != UINT32_MAX)
				is->sel[n++] = is->sel[id];
		is->n = n;
	}
	for (unsigned int i = 0; i < no; i++)
		for (unsigned int j = 0; j < tfs_ft.objs[i].n; j++)
			tfs_ft.objs[i].funcs[j] = fmap[tfs_ft.objs[i].funcs[j]];
	for (unsigned int i = 0; i < tfs_ft.nr_procs; i++)
		for (unsigned int j = 0; j < tfs_ft.procs[i].n; j++) {
			struct tfs_ft_pobj *po = &tfs_ft.procs[i].objs[j];

			if (po->fobj >= 0)
				po->fobj = (int)omap[po->fobj];
			for (uint32_t k = 0; po->ids && po->fobj >= 0 && k < po->total; k++)
				if (po->ids[k] != UINT32_MAX)
					po->ids[k] = fmap[po->ids[k]];
		}
	tfs_probes_renumber_locked(fmap);
out:
	free(fmap);
	free(omap);
	free(drop);
	malloc_trim(0); /* the names went in many small blocks: give the pages back */
}

void tfs_ft_reset(void)
{
	pthread_mutex_lock(&tfs_ft_lock);
	for (unsigned int i = 0; i < tfs_ft.nr_procs; i++) {
		for (unsigned int j = 0; j < tfs_ft.procs[i].n; j++)
			pobj_free(&tfs_ft.procs[i].objs[j]);
		free(tfs_ft.procs[i].objs);
	}
	free(tfs_ft.procs);
	for (unsigned int i = 0; i < tfs_ft.nr_funcs; i++)
		func_free(&tfs_ft.funcs[i]);
	free(tfs_ft.funcs);
	for (unsigned int i = 0; i < tfs_ft.nr_objs; i++)
		obj_free(&tfs_ft.objs[i]);
	free(tfs_ft.objs);
	for (int l = 0; l < TFS_FILTER_NR; l++)
		tfs_ft_pats_free(&tfs_ft.pats[l]);
	for (unsigned int s = 0; s < UT_INST_MAX; s++) {
		free(tfs_ft.inst[s].sel);
		for (int l = 0; l < TFS_FILTER_NR; l++)
			tfs_ft_pats_free(&tfs_ft.inst[s].pats[l]);
	}
	tfs_probes_reset();
	memset(&tfs_ft, 0, sizeof(tfs_ft));
	update_ns[0] = update_ns[1] = 0;
	pthread_mutex_unlock(&tfs_ft_lock);
}

/* ---- the file ------------------------------------------------------------------- */

/* Where function f of object oi is: its site in the first live process that has
 * the object loaded, 0 when none has. */
static uint64_t func_addr_locked(unsigned int oi, const struct tfs_ft_func *f)
{
	for (unsigned int i = 0; i < tfs_ft.nr_procs; i++)
		for (unsigned int j = 0; j < tfs_ft.procs[i].n; j++)
			if (tfs_ft.procs[i].objs[j].fobj == (int)oi)
				return tfs_ft.procs[i].objs[j].base + f->off;
	return 0;
}

/*
 * available_filter_functions ("name", " [module]" for a shared object's) and, with
 * addrs, available_filter_functions_addrs (the kernel's FTRACE_ITER_ADDRS layout:
 * "%lx " in front).
 */
static int list_show(struct tfs_open *o, bool addrs)
{
	bool demangle = tfs_out_demangle(&tfs_top);
	int err = 0;

	pthread_mutex_lock(&tfs_ft_lock);
	for (unsigned int i = 0; i < tfs_ft.nr_objs && !err; i++) {
		const struct tfs_ft_obj *ob = &tfs_ft.objs[i];

		if (!ob->live)
			continue;
		for (unsigned int j = 0; j < ob->n && !err; j++) {
			struct tfs_ft_func *f = &tfs_ft.funcs[ob->funcs[j]];
			const char *name = tfs_ft_func_name(f, demangle);

			if (addrs)
				err = tfs_buf_printf(&o->content, "%" PRIx64 " ", func_addr_locked(i, f));
			if (!err)
				err = ob->exe
					  ? tfs_buf_printf(&o->content, "%s\n", name)
					  : tfs_buf_printf(&o->content, "%s [%s]\n", name, ob->mod);
		}
	}
	pthread_mutex_unlock(&tfs_ft_lock);
	return err < 0 ? -ENOMEM : 0;
}

static int avail_show(struct tfs_open *o)
{
	return list_show(o, false);
}

static int addrs_show(struct tfs_open *o)
{
	return list_show(o, true);
}

const struct tfs_file_ops tfs_available_filter_functions_ops = {
    .show = avail_show,
};

const struct tfs_file_ops tfs_available_filter_functions_addrs_ops = {
    .show = addrs_show,
};

/*
 * The kernel's dyn_ftrace_total_info: the number of records, the pages that hold
 * them (a 4 KiB page holds 256 16-byte struct dyn_ftrace; each object has its own
 * pages, as each module has its own group) and the groups (objects), then the
 * time spent on the records of executables ("boot") and of shared objects
 * ("module"): here the time utracefs spent naming their sites.
 */
static int dyn_info_show(struct tfs_open *o)
{
	unsigned long total = 0, pages = 0, groups = 0;
	int err;

	pthread_mutex_lock(&tfs_ft_lock);
	for (unsigned int i = 0; i < tfs_ft.nr_objs; i++) {
		const struct tfs_ft_obj *ob = &tfs_ft.objs[i];

		if (!ob->live || !ob->n)
			continue;
		total += ob->n;
		pages += (ob->n + 255) / 256;
		groups++;
	}
	err = tfs_buf_printf(&o->content,
			     "%lu pages:%lu groups: %lu\n"
			     "ftrace boot update time = %" PRIu64 " (ns)\n"
			     "ftrace module total update time = %" PRIu64 " (ns)\n",
			     total, pages, groups, update_ns[0], update_ns[1]);
	pthread_mutex_unlock(&tfs_ft_lock);
	return err < 0 ? -ENOMEM : 0;
}

const struct tfs_file_ops tfs_dyn_ftrace_total_info_ops = {
    .show = dyn_info_show,
};

/*
 * enabled_functions: the functions with a callback attached, i.e. patched now in
 * at least one process: the tracer is function or function_graph, ftrace_enabled
 * is 1, set_ftrace_filter/notrace select the function, and set_ftrace_pid selects
 * a thread of a live process that has it loaded; or a function probe is on it
 * (whatever the tracer and the pid lists) and a live process has it loaded.  The
 * kernel's layout: "name" or "name [module]", then " (N)" (the number of users:
 * the tracer, and each probe command, counted or not, on its own) and its flag
 * columns (R, I, D, O, M), all blank in user space.  The kernel's trampoline
 * column is left out.
 */
static int enabled_show(struct tfs_open *o)
{
	int32_t tids[UT_SEL_TIDS_MAX];
	bool on, filtered, enabled, demangle = tfs_out_demangle(&tfs_top);
	uint8_t *obj_on = NULL;
	int err = 0;

	tfs_lock();
	enabled = tfs.ftrace_enabled;
	on = enabled && tfs_tracer_routed(tfs_top.tracer);
	tfs_unlock();
	if (!enabled)
		return 0;
	pthread_mutex_lock(&tfs_ft_lock);
	filtered = tfs_ft_nonempty_locked(TFS_FILTER_TRACE);
	obj_on = calloc(tfs_ft.nr_objs ? tfs_ft.nr_objs : 1, 1);
	if (!obj_on)
		err = -ENOMEM;
	/* an object counts when a process that patches anything has it */
	for (unsigned int i = 0; i < tfs_ft.nr_procs && !err; i++) {
		uint32_t n, tasks = tfs_pid_tasks_locked(tfs_ft.procs[i].pid, tids, &n);

		for (unsigned int j = 0; j < tfs_ft.procs[i].n; j++) {
			int fo = tfs_ft.procs[i].objs[j].fobj;

			if (fo >= 0 && tasks != UT_SEL_TASKS_NONE)
				obj_on[fo] = 1;
		}
	}
	for (unsigned int i = 0; i < tfs_ft.nr_objs && !err; i++) {
		const struct tfs_ft_obj *ob = &tfs_ft.objs[i];

		if (!ob->live)
			continue;
		for (unsigned int j = 0; j < ob->n && !err; j++) {
			struct tfs_ft_func *f = &tfs_ft.funcs[ob->funcs[j]];
			bool in = on && obj_on[i] &&
				  (!filtered || (f->sel >> TFS_FILTER_TRACE & 1)) &&
				  !(f->sel >> TFS_FILTER_NOTRACE & 1);
			unsigned int users = in + tfs_probes_on_locked(ob->funcs[j]);

			if (!users)
				continue;
			err = ob->exe
				  ? tfs_buf_printf(&o->content, "%s (%u)           \n",
						   tfs_ft_func_name(f, demangle), users)
				  : tfs_buf_printf(&o->content, "%s [%s] (%u)           \n",
						   tfs_ft_func_name(f, demangle), ob->mod, users);
		}
	}
	pthread_mutex_unlock(&tfs_ft_lock);
	free(obj_on);
	return err < 0 ? -ENOMEM : 0;
}

const struct tfs_file_ops tfs_enabled_functions_ops = {
    .show = enabled_show,
};

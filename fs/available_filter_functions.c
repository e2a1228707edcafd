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
 * module's functions.  Index numbers written to the filter files refer to these
 * lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functab.h"

#define FT_MAX_SITES (1u << 22) /* per object: a bound on what a process makes us allocate */
#define FT_MAX_OBJS 4096u	/* per process */
#define FT_NAME_MAX 512

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

static int obj_find(const char *path)
{
	for (unsigned int i = 0; i < tfs_ft.nr_objs; i++)
		if (!strcmp(tfs_ft.objs[i].path, path))
			return (int)i;
	return -1;
}

static int obj_get(const char *path, bool is_exe, bool *created)
{
	struct tfs_ft_obj *o;
	int i = obj_find(path);
	const char *slash;

	*created = false;
	if (i >= 0) {
		tfs_ft.objs[i].exe |= is_exe;
		return i;
	}
	if (grow((void **)&tfs_ft.objs, &tfs_ft.cap_objs, tfs_ft.nr_objs + 1, sizeof(*o)))
		return -ENOMEM;
	o = &tfs_ft.objs[tfs_ft.nr_objs];
	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	if (!o->path)
		return -ENOMEM;
	slash = strrchr(o->path, '/');
	o->mod = slash ? slash + 1 : o->path;
	o->exe = is_exe;
	*created = true;
	return (int)tfs_ft.nr_objs++;
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
	if (po->fobj >= 0)
		tfs_ft.objs[po->fobj].live--;
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
static int pobj_complete(struct tfs_ft_pobj *po, const char *path, bool is_exe,
			 const char *const *names)
{
	bool created;
	int oi = obj_get(path, is_exe, &created);

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
	if (created)
		tfs_ft_apply_mods_locked((unsigned int)oi);
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
		ret = pobj_complete(po, path, is_exe, names) ?: 1;
	pthread_mutex_unlock(&tfs_ft_lock);
	return ret;
}

int tfs_ft_sites(pid_t pid, uint32_t obj, const char *path, bool is_exe, uint64_t base,
		 uint32_t total, uint32_t first, uint32_t nr, const uint32_t *offsets)
{
	struct tfs_ft_pobj *po;
	struct tfs_ft_proc *p;
	char **names = NULL;
	uint32_t *offs = NULL;
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

	pthread_mutex_lock(&tfs_ft_lock);
	p = proc_find(pid, false);
	po = p ? pobj_find(p, obj) : NULL;
	/* still the object we named (nothing replaced it meanwhile) */
	if (po && po->fobj < 0 && po->got == po->total && po->total == total &&
	    !memcmp(po->offs, offs, (size_t)total * sizeof(*offs)))
		ret = pobj_complete(po, path, is_exe, (const char *const *)names) ?: 1;
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
	}
	pthread_mutex_unlock(&tfs_ft_lock);
	return had;
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
		free(tfs_ft.funcs[i].name);
	free(tfs_ft.funcs);
	for (unsigned int i = 0; i < tfs_ft.nr_objs; i++) {
		free(tfs_ft.objs[i].path);
		free(tfs_ft.objs[i].funcs);
	}
	free(tfs_ft.objs);
	for (int l = 0; l < 2; l++) {
		for (unsigned int i = 0; i < tfs_ft.nr_mods[l]; i++) {
			free(tfs_ft.mods[l][i].func);
			free(tfs_ft.mods[l][i].mod);
		}
		free(tfs_ft.mods[l]);
	}
	memset(&tfs_ft, 0, sizeof(tfs_ft));
	pthread_mutex_unlock(&tfs_ft_lock);
}

/* ---- the file ------------------------------------------------------------------- */

static int avail_show(struct tfs_open *o)
{
	int err = 0;

	pthread_mutex_lock(&tfs_ft_lock);
	for (unsigned int i = 0; i < tfs_ft.nr_objs && !err; i++) {
		const struct tfs_ft_obj *ob = &tfs_ft.objs[i];

		if (!ob->live)
			continue;
		for (unsigned int j = 0; j < ob->n && !err; j++) {
			const struct tfs_ft_func *f = &tfs_ft.funcs[ob->funcs[j]];

			err = ob->exe ? tfs_buf_printf(&o->content, "%s\n", f->name)
				      : tfs_buf_printf(&o->content, "%s [%s]\n", f->name, ob->mod);
		}
	}
	pthread_mutex_unlock(&tfs_ft_lock);
	return err < 0 ? -ENOMEM : 0;
}

const struct tfs_file_ops tfs_available_filter_functions_ops = {
    .show = avail_show,
};

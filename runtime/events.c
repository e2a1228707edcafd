// SPDX-License-Identifier: MIT
/*
 * events.c - the trace events the program defines (include/utrace/event.h): finding
 * them, announcing them to utracefs, switching their static keys, writing them.
 *
 * Finding.  Each object's descriptors are pointers in its section utrace_events,
 * its call sites entries of utrace_jump (offsets relative to the entry: valid
 * before relocation, but the descriptors are not), both found by section headers
 * as sites.c finds its sites.  Objects are scanned once relocated: at attach (the
 * constructor runs after the loader relocated everything loaded with the
 * program) and after dlopen() returns; a call of an event during a library's own
 * constructors finds its key off, which is what a disabled event is anyway.  The
 * descriptors of objects dlclose() unmapped go at the loader's next consistent
 * state (dl_changed, interpose.c), with ut_rt_lock held from the unload on.
 * The same scan reads each object's <sys/sdt.h> probes (sdt.c): descriptors
 * like the others, whose sites are probes at an instruction (xol.h) instead of
 * static keys; ut_sdt_set() arms and disarms them where a key would be patched.
 *
 * Announcing.  Each descriptor becomes one UT_MSG_EVENT (common/ut_event.h), built
 * in a zeroed packet so that a definition is always the same bytes; its
 * fingerprint is the key utracefs enters its id under in the events memfd.  A
 * definition already sent by another unit of the process is not sent again.
 *
 * Switching.  At each generation the control thread (ut_events_apply, ut_rt_lock
 * held) looks up the id and the instance mask of each descriptor in the events
 * memfd, stores both in the descriptor (what the write path and
 * trace_NAME_enabled() read) and turns every call site whose state changes into
 * a jmp to its writer or back into a 5-byte NOP, in one batch (ut_poke_batch,
 * patch.c).  Detached, every key is off.
 *
 * Writing.  The macros build the record on the stack, after UT_EVENT_HDR bytes
 * of room; utrace_event_write() fills the ring header and the common fields and
 * writes it into the current CPU's ring of every instance slot in the mask whose
 * event pid lists take the calling thread (evpid.c), with
 * the general writer (rseq, or the ring's lock in locked mode).  No lock, no
 * allocation; errno is untouched (the rseq writer makes no system call; the locked
 * one keeps it, api.c).  An SDT probe's fast path (sdt.c) runs the same writer
 * without the vector state saved: this file is built with -mgeneral-regs-only
 * (Makefile: RT_GPR_SRC), and ut_event_write(.., fast) turns back, writing
 * nothing, before anything that calls out (registration, pid lists to reload,
 * a filter on COMM, the locked writer).
 */
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt.h"
#include "ut_event.h"
#include "ut_evfilter.h"
#include "ut_wire.h"
#include "utrace/event.h"
#include "xol.h"

#define EV_MAX_DESCS 4096u
#define EV_MAX_JUMPS 65536u

static const unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

/* Objects already scanned (with events or not), by load bias and name. */
static struct ev_obj {
	uintptr_t base;
	uintptr_t lo, hi; /* its code: where its SDT probes are */
	uint64_t hash;
	uint8_t used, seen;
} eobjs[UT_MAX_OBJS];

static struct ev_desc {
	struct utrace_event *ev;
	uint64_t fp;  /* of its announcement; 0: not built yet */
	uint32_t obj; /* eobjs index */
	uint32_t id;
	uint64_t want[2]; /* the mask switch_keys() is moving to */
	uint8_t sent; /* announced on this connection (or a twin was) */
	uint8_t bad;  /* cannot be announced (said once on the console) */
	struct ut_sdt_probe *sdt; /* an SDT probe's (sdt.c): its site is no static key */
} descs[EV_MAX_DESCS];
static uint32_t nr_descs;

static void filters_forget(const struct utrace_event *ev);

static struct ev_jump {
	uintptr_t site, target;
	uint32_t desc;
	uint8_t on; /* the bytes are the jmp */
} *jumps;
static uint32_t nr_jumps;

/* Two poke tables in turn: patch.c keeps reading the one before (ut_poke_batch). */
static struct ut_poke *pokes[2];
static int poke_turn;

/* The events memfd, read-only; NULL: none (detached, or an older utracefs). */
static const void *evt_map;

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* Arrays from mmap: the program's malloc may be traced. */
static int ev_arrays(void)
{
	size_t jl = EV_MAX_JUMPS * sizeof(struct ev_jump), pl = EV_MAX_JUMPS * sizeof(struct ut_poke);
	void *j, *p;

	if (jumps)
		return 0;
	j = mmap(NULL, jl + 2 * pl, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (j == MAP_FAILED)
		return -ENOMEM;
	p = (char *)j + jl;
	pokes[0] = p;
	pokes[1] = (struct ut_poke *)((char *)p + pl);
	jumps = j;
	return 0;
}

/* ---- finding ------------------------------------------------------------------------ */

struct scan_ctx {
	uintptr_t base, text_lo, text_hi;
	uint32_t obj;
	uint32_t first_desc; /* this object's descriptors: descs[first_desc .. nr_descs) */
};

static void add_descs(uint64_t addr, uint64_t size, void *arg)
{
	struct scan_ctx *c = arg;
	struct utrace_event *const *p = (struct utrace_event *const *)(c->base + addr);

	if ((uintptr_t)p % sizeof(*p))
		return;
	for (uint64_t i = 0; i < size / sizeof(*p) && nr_descs < EV_MAX_DESCS; i++) {
		struct utrace_event *ev = p[i];

		if (!ev || ev->magic != UTRACE_EVENT_MAGIC || ev->abi != UTRACE_EVENT_ABI)
			continue;
		descs[nr_descs++] = (struct ev_desc){.ev = ev, .obj = c->obj};
	}
}

static void add_jumps(uint64_t addr, uint64_t size, void *arg)
{
	struct scan_ctx *c = arg;
	const struct utrace_jump_entry *e = (const struct utrace_jump_entry *)(c->base + addr);

	if ((uintptr_t)e % 8)
		return;
	for (uint64_t i = 0; i < size / sizeof(*e) && nr_jumps < EV_MAX_JUMPS; i++) {
		uintptr_t site = (uintptr_t)&e[i].site + (intptr_t)e[i].site;
		uintptr_t target = (uintptr_t)&e[i].target + (intptr_t)e[i].target;
		uintptr_t key = (uintptr_t)&e[i].key + (intptr_t)e[i].key;
		uint32_t d;

		if (site < c->text_lo || site + 5 > c->text_hi || target < c->text_lo ||
		    target >= c->text_hi || memcmp((const void *)site, nop5, 5))
			continue; /* not one of ours as the macros make them */
		for (d = c->first_desc; d < nr_descs && (uintptr_t)descs[d].ev != key; d++)
			;
		if (d < nr_descs)
			jumps[nr_jumps++] = (struct ev_jump){.site = site, .target = target, .desc = d};
	}
}

static void add_sdt(struct utrace_event *ev, struct ut_sdt_probe *p, void *arg)
{
	struct scan_ctx *c = arg;

	if (nr_descs < EV_MAX_DESCS)
		descs[nr_descs++] = (struct ev_desc){.ev = ev, .obj = c->obj, .sdt = p};
	else
		ut_sdt_forget(p);
}

static int known_obj(uintptr_t base, uint64_t h)
{
	for (uint32_t i = 0; i < UT_MAX_OBJS; i++)
		if (eobjs[i].used && eobjs[i].base == base && eobjs[i].hash == h) {
			eobjs[i].seen = 1;
			return 1;
		}
	return 0;
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *data)
{
	int *first = data;
	const char *name = info->dlpi_name;
	struct scan_ctx c = {.base = info->dlpi_addr, .text_lo = UINTPTR_MAX};
	uint32_t i;
	uint64_t h;

	if (*first && (!name || !*name))
		name = "/proc/self/exe";
	*first = 0;
	if (!name || !strchr(name, '/'))
		return 0; /* no file: the vdso */
	h = name_hash(name);
	if (known_obj(c.base, h))
		return 0;
	for (i = 0; i < UT_MAX_OBJS && eobjs[i].used; i++)
		;
	if (i == UT_MAX_OBJS)
		return 0;
	eobjs[i] = (struct ev_obj){.base = c.base, .hash = h, .used = 1, .seen = 1};
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (c.base + ph->p_vaddr < c.text_lo)
			c.text_lo = c.base + ph->p_vaddr;
		if (c.base + ph->p_vaddr + ph->p_memsz > c.text_hi)
			c.text_hi = c.base + ph->p_vaddr + ph->p_memsz;
	}
	c.obj = i;
	c.first_desc = nr_descs;
	eobjs[i].lo = c.text_lo;
	eobjs[i].hi = c.text_hi;
	if (ut_elf_sections(name, "utrace_events", add_descs, &c) > 0 && nr_descs > c.first_desc)
		ut_elf_sections(name, "utrace_jump", add_jumps, &c);
	ut_sdt_scan(name, info, add_sdt, &c);
	return 0;
}

void ut_events_scan(void)
{
	int first = 1;

	pthread_mutex_lock(&ut_rt_lock);
	if (!ev_arrays())
		dl_iterate_phdr(scan_one, &first);
	pthread_mutex_unlock(&ut_rt_lock);
}

static int mark_seen(struct dl_phdr_info *info, size_t size, void *data)
{
	int *first = data;
	const char *name = info->dlpi_name;

	if (*first && (!name || !*name))
		name = "/proc/self/exe";
	*first = 0;
	if (name && strchr(name, '/'))
		known_obj(info->dlpi_addr, name_hash(name));
	return 0;
}

/* ut_rt_lock held; may run in the SIGTRAP handler (the loader's hook): nothing big on the stack */
void ut_events_prune(void)
{
	static uint32_t remap[EV_MAX_DESCS];
	uint32_t n = 0, k = 0;
	int first = 1, gone = 0;

	for (uint32_t i = 0; i < UT_MAX_OBJS; i++)
		eobjs[i].seen = 0;
	dl_iterate_phdr(mark_seen, &first);
	for (uint32_t i = 0; i < UT_MAX_OBJS; i++)
		if (eobjs[i].used && !eobjs[i].seen) {
			eobjs[i].used = 0;
			ut_xol_forget(eobjs[i].lo, eobjs[i].hi);
			gone = 1;
		}
	if (!gone)
		return;
	/* their descriptors and sites are unmapped: forget them without a look */
	for (uint32_t d = 0; d < nr_descs; d++) {
		remap[d] = UINT32_MAX;
		if (eobjs[descs[d].obj].used) {
			remap[d] = n;
			descs[n++] = descs[d];
		} else {
			filters_forget(descs[d].ev);
			if (descs[d].sdt)
				ut_sdt_forget(descs[d].sdt);
		}
	}
	nr_descs = n;
	for (uint32_t j = 0; j < nr_jumps; j++)
		if (remap[jumps[j].desc] != UINT32_MAX) {
			jumps[k] = jumps[j];
			jumps[k++].desc = remap[jumps[j].desc];
		}
	nr_jumps = k;
}

/* ---- announcing --------------------------------------------------------------------------- */

static int copy_str(char *dst, size_t room, const char *src)
{
	size_t n = src ? strnlen(src, room) : room;

	if (n == 0 || n >= room)
		return -1;
	memcpy(dst, src, n);
	return 0;
}

/* The announcement of d into m (zeroed first); its length, or 0 when it cannot be. */
static uint32_t build(const struct ev_desc *d, uint32_t idx, struct ut_msg_event *m)
{
	const struct utrace_event *ev = d->ev;
	size_t flen;
	char *fmt;

	memset(m, 0, UT_EVENT_MSG_MAX);
	if (ev->nr_fields > UT_EVENT_FIELDS_MAX || ev->size > UT_EVENT_REC_MAX ||
	    copy_str(m->system, sizeof(m->system), ev->system) ||
	    copy_str(m->name, sizeof(m->name), ev->name))
		return 0;
	m->type = UT_MSG_EVENT;
	m->obj = idx;
	m->size = ev->size;
	m->nr_fields = ev->nr_fields;
	for (uint32_t i = 0; i < ev->nr_fields; i++) {
		const struct utrace_event_field *f = &ev->fields[i];
		struct ut_msg_event_field *w = &m->fields[i];

		if (copy_str(w->type, sizeof(w->type), f->type) ||
		    copy_str(w->name, sizeof(w->name), f->name))
			return 0;
		w->offset = f->offset;
		w->size = f->size;
		w->elem_size = f->elem_size;
		w->is_signed = f->is_signed;
		w->kind = f->kind;
	}
	fmt = (char *)&m->fields[ev->nr_fields];
	flen = ev->print_fmt ? strnlen(ev->print_fmt, UT_EVENT_FMT_MAX) : UT_EVENT_FMT_MAX;
	if (flen >= UT_EVENT_FMT_MAX)
		return 0;
	memcpy(fmt, ev->print_fmt, flen);
	m->fmt_len = (uint32_t)flen + 1;
	m->len = (uint32_t)((size_t)(fmt - (char *)m) + m->fmt_len);
	return m->len;
}

void ut_events_announce(void)
{
	static union {
		struct ut_msg_event m;
		char buf[UT_EVENT_MSG_MAX];
		uint64_t align;
	} pk;

	pthread_mutex_lock(&ut_rt_lock);
	for (uint32_t i = 0; i < nr_descs; i++) {
		struct ev_desc *d = &descs[i];
		uint32_t len;
		int twin = 0;

		if (d->sent || d->bad)
			continue;
		len = build(d, i, &pk.m);
		if (!len) {
			d->bad = 1;
			ut_note("trace event %.64s:%.64s not announced: a name, type or format is "
				"too long",
				d->ev->system ? d->ev->system : "?", d->ev->name ? d->ev->name : "?");
			continue;
		}
		d->fp = ut_event_fp(&pk.m, len);
		for (uint32_t k = 0; k < nr_descs && !twin; k++)
			twin = k != i && descs[k].sent && descs[k].fp == d->fp;
		if (twin || ut_send_wait(&pk.m, len) == 0)
			d->sent = 1;
	}
	pthread_mutex_unlock(&ut_rt_lock);
}

/* ---- switching ------------------------------------------------------------------------------ */

static const struct ut_evt_ent *evt_lookup(uint64_t fp)
{
	const struct ut_evt_ent *tab = ut_evt_table((void *)evt_map);

	for (uint32_t i = 0; i < UT_EVT_SLOTS; i++) {
		const struct ut_evt_ent *e = &tab[(fp + i) & (UT_EVT_SLOTS - 1)];
		uint64_t f = __atomic_load_n(&e->fp, __ATOMIC_ACQUIRE);

		if (!f)
			return NULL;
		if (f == fp)
			return e->id >= UT_EVENT_ID_BASE && e->id < UT_EVENT_ID_BASE + UT_EVT_MAX_DEFS
				   ? e
				   : NULL;
	}
	return NULL;
}

/*
 * Event filters.  At each generation the control thread copies, out of the memfd's
 * filter area (ut_event.h), the program of each (event, instance) that has one,
 * checks it (ut_evf_valid) and publishes it for the writers in flt[]: one row per
 * descriptor that has had a filter, found through the descriptor's _rt (row + 1).
 * A program replaced or dropped is not freed: a writer may still be running it
 * (each filter written leaves its program behind, a few hundred bytes).
 */
#define FLT_ROWS EV_MAX_DESCS
static struct flt_row {
	const struct utrace_event *ev; /* NULL: free */
	struct ut_evf_prog *prog[UT_EVT_INSTANCE_SLOTS];
	uint32_t seen; /* the refresh that last found a filter for it */
} *flt;
static int flt_live; /* some row holds a program: writers look */

static struct flt_row *flt_row_of(struct utrace_event *ev, int make)
{
	unsigned int r = ev->_rt;

	if (r && r <= FLT_ROWS && flt && flt[r - 1].ev == ev)
		return &flt[r - 1];
	if (!make)
		return NULL;
	if (!flt && !(flt = calloc(FLT_ROWS, sizeof(*flt))))
		return NULL;
	for (r = 0; r < FLT_ROWS; r++)
		if (!flt[r].ev) {
			flt[r].ev = ev;
			ev->_rt = r + 1;
			return &flt[r];
		}
	return NULL;
}

/* A checked copy of the program at off/len of the area, or NULL. */
static struct ut_evf_prog *flt_copy(const struct ut_evf_area *a, const struct ut_evf_dirent *d)
{
	struct ut_evf_prog *p;

	if (d->off > UT_EVF_HEAP || d->len > UT_EVF_HEAP - d->off || d->off % 8 ||
	    d->len < sizeof(*p) || !(p = malloc(d->len)))
		return NULL;
	memcpy(p, a->heap + d->off, d->len);
	if (!ut_evf_valid(p, d->len)) {
		free(p);
		return NULL;
	}
	return p;
}

/* ut_rt_lock held */
static void filters_refresh(int on)
{
	static uint32_t pass;
	const struct ut_evf_area *a = on && evt_map ? ut_evf_area_of((void *)evt_map) : NULL;
	uint32_t seq = a ? __atomic_load_n(&a->seq, __ATOMIC_ACQUIRE) : 0, nr;
	int live = 0;

	if (seq & 1)
		return; /* being rewritten: the next generation brings it whole */
	pass++;
	nr = a ? __atomic_load_n(&a->nr, __ATOMIC_RELAXED) : 0;
	for (uint32_t k = 0; k < nr && k < UT_EVF_DIR_MAX; k++) {
		struct ut_evf_dirent d = a->ent[k];

		if (d.slot >= UT_EVT_INSTANCE_SLOTS || !d.id)
			continue;
		for (uint32_t i = 0; i < nr_descs; i++) {
			struct flt_row *row;
			struct ut_evf_prog *p, *cur;

			if (descs[i].id != d.id || !(row = flt_row_of(descs[i].ev, 1)))
				continue;
			cur = row->prog[d.slot];
			if (row->seen != pass) { /* first found this pass: what it had goes */
				for (unsigned int s = 0; s < UT_EVT_INSTANCE_SLOTS; s++)
					if (s != d.slot)
						__atomic_store_n(&row->prog[s], NULL, __ATOMIC_RELEASE);
				row->seen = pass;
			}
			if (cur && cur->nr && ut_evf_size(cur->nr) == d.len &&
			    !memcmp(cur, a->heap + d.off, d.len))
				continue; /* unchanged */
			p = flt_copy(a, &d);
			__atomic_store_n(&row->prog[d.slot], p, __ATOMIC_RELEASE);
		}
	}
	if (a && __atomic_load_n(&a->seq, __ATOMIC_ACQUIRE) != seq)
		return; /* rewritten meanwhile: the next generation again */
	for (uint32_t r = 0; flt && r < FLT_ROWS; r++) {
		if (!flt[r].ev)
			continue;
		if (flt[r].seen != pass)
			for (unsigned int s = 0; s < UT_EVT_INSTANCE_SLOTS; s++)
				__atomic_store_n(&flt[r].prog[s], NULL, __ATOMIC_RELEASE);
		for (unsigned int s = 0; s < UT_EVT_INSTANCE_SLOTS; s++)
			live |= flt[r].prog[s] != NULL;
	}
	__atomic_store_n(&flt_live, live, __ATOMIC_RELEASE);
}

/* A descriptor whose object is gone: its row is free again (ut_rt_lock held). */
static void filters_forget(const struct utrace_event *ev)
{
	for (uint32_t r = 0; flt && r < FLT_ROWS; r++)
		if (flt[r].ev == ev) {
			for (unsigned int s = 0; s < UT_EVT_INSTANCE_SLOTS; s++)
				__atomic_store_n(&flt[r].prog[s], NULL, __ATOMIC_RELEASE);
			__atomic_store_n(&flt[r].ev, NULL, __ATOMIC_RELEASE);
		}
}

/*
 * Keys follow the memfd (on) or all go off; ut_rt_lock held.  As the kernel's
 * static keys: an event that goes off reads disabled before its sites become
 * NOPs, and one that comes on reads enabled only once its sites jump, so that
 * trace_NAME_enabled() returning 1 means the next call is recorded (and filtered:
 * the filters are in place before).
 */
static void switch_keys(int on)
{
	struct ut_poke *p = pokes[poke_turn];
	uint32_t n = 0;

	for (uint32_t i = 0; i < nr_descs; i++) {
		struct ev_desc *d = &descs[i];
		const struct ut_evt_ent *e = on && evt_map && d->fp ? evt_lookup(d->fp) : NULL;
		bool was_on = (d->ev->mask[0] | d->ev->mask[1]) != 0;

		d->id = e ? e->id : 0;
		d->want[0] = e ? __atomic_load_n(&e->mask[0], __ATOMIC_RELAXED) : 0;
		d->want[1] = e ? __atomic_load_n(&e->mask[1], __ATOMIC_RELAXED) & 1 : 0;
		d->ev->id = d->id;
		/* an SDT site is reached only once armed: its mask may lead (sdt.c) */
		if (was_on || !(d->want[0] | d->want[1]) || d->sdt) {
			__atomic_store_n(&d->ev->mask[0], d->want[0], __ATOMIC_RELEASE);
			__atomic_store_n(&d->ev->mask[1], d->want[1], __ATOMIC_RELEASE);
		}
	}
	/* the filters by the new ids, before a site comes on or an event reads enabled */
	filters_refresh(on);
	for (uint32_t j = 0; p && j < nr_jumps; j++) {
		struct ev_jump *jp = &jumps[j];
		const struct ev_desc *d = &descs[jp->desc];
		uint8_t want = (d->want[0] | d->want[1]) != 0;
		int32_t rel = (int32_t)(jp->target - (jp->site + 5));

		if (want == jp->on)
			continue;
		p[n] = (struct ut_poke){.addr = jp->site, .to = want ? jp->target : jp->site + 5};
		if (want) {
			p[n].bytes[0] = 0xe9;
			memcpy(p[n].bytes + 1, &rel, 4);
		} else {
			memcpy(p[n].bytes, nop5, 5);
		}
		n++;
	}
	if (n && ut_poke_batch(p, n) == 0) {
		poke_turn ^= 1;
		for (uint32_t j = 0, k = 0; j < nr_jumps && k < n; j++)
			if (jumps[j].site == p[k].addr) {
				jumps[j].on = p[k].bytes[0] == 0xe9;
				k++;
			}
	}
	for (uint32_t i = 0; i < nr_descs; i++) /* SDT sites: probes at their nop (sdt.c) */
		if (descs[i].sdt)
			ut_sdt_set(descs[i].sdt, (descs[i].want[0] | descs[i].want[1]) != 0);
	for (uint32_t i = 0; i < nr_descs; i++) {
		__atomic_store_n(&descs[i].ev->mask[0], descs[i].want[0], __ATOMIC_RELEASE);
		__atomic_store_n(&descs[i].ev->mask[1], descs[i].want[1], __ATOMIC_RELEASE);
	}
}

void ut_events_apply(void)
{
	switch_keys(1);
}

void ut_events_attach(int fd)
{
	struct stat st;
	void *m = MAP_FAILED;

	if (fd >= 0 && !fstat(fd, &st) && (uint64_t)st.st_size >= UT_EVT_SIZE)
		m = mmap(NULL, UT_EVT_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
	if (m != MAP_FAILED && ((const struct ut_evt_hdr *)m)->magic != UT_EVT_MAGIC) {
		munmap(m, UT_EVT_SIZE);
		m = MAP_FAILED;
	}
	pthread_mutex_lock(&ut_rt_lock);
	if (evt_map)
		munmap((void *)evt_map, UT_EVT_SIZE);
	evt_map = m == MAP_FAILED ? NULL : m;
	/* a new connection: utracefs knows none of our events yet */
	for (uint32_t i = 0; i < nr_descs; i++) {
		descs[i].sent = 0;
		descs[i].id = 0;
	}
	pthread_mutex_unlock(&ut_rt_lock);
	ut_events_scan();
	ut_events_announce();
}

void ut_events_detach(void)
{
	pthread_mutex_lock(&ut_rt_lock);
	switch_keys(0);
	if (evt_map)
		munmap((void *)evt_map, UT_EVT_SIZE);
	evt_map = NULL;
	pthread_mutex_unlock(&ut_rt_lock);
}

void ut_events_dl_opened(void)
{
	ut_events_scan();
	ut_events_announce();
}

/* ---- writing -------------------------------------------------------------------------------- */

/* Does the record pass f?  The CPU is the one it would be written on now; comm is
 * read (once per event) only for a filter that names it. */
static bool filter_passes(const struct ut_evf_prog *f, const unsigned char *rec, unsigned int size,
			  char comm[16])
{
	const struct rseq *rs = ut_thr.rseq;
	int cpu = rs ? (int)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED) : -1;

	if (cpu < 0)
		cpu = sched_getcpu();
	if ((f->flags & UT_EVF_USES_COMM) && !comm[0])
		syscall(SYS_prctl, PR_GET_NAME, comm, 0, 0, 0);
	return ut_evf_match(f, rec, size, cpu < 0 ? 0u : (unsigned int)cpu, comm);
}

/*
 * Would a filter of row, for the slots in the mask, make a system call (COMM)?  The
 * fast path leaves those to the slow one; a filter published after this check is
 * run anyway (libc's syscall() touches no vector register, PR_GET_NAME keeps errno).
 */
static bool filters_call(struct flt_row *row, uint64_t m0, uint64_t m1)
{
	for (unsigned int slot = 0; slot < UT_EVT_INSTANCE_SLOTS; slot++) {
		const struct ut_evf_prog *f = __atomic_load_n(&row->prog[slot], __ATOMIC_ACQUIRE);

		if (f && (f->flags & UT_EVF_USES_COMM) && (slot < 64 ? (m0 >> slot) & 1 : m1))
			return true;
	}
	return false;
}

UT_EXPORT void utrace_event_write(struct utrace_event *ev, void *buf, unsigned int size)
{
	ut_event_write(ev, buf, size, 0);
}

int ut_event_write(struct utrace_event *ev, void *buf, unsigned int size, int fast)
{
	struct ut_ctl *ctl = ut_rt_ctl;
	struct ut_ev_event *e = buf;
	uint64_t m0 = ev->mask[0], m1 = ev->mask[1] & 1;
	uint32_t id = ev->id;
	unsigned int len = (UT_EVENT_HDR + size + 7) & ~7u;
	unsigned char *rec = e->rec;
	uint16_t type = (uint16_t)id;
	struct rseq *rs = ut_thr.rseq;
	int32_t pid;

	if (!ctl || !(m0 | m1) || !id || size < UT_EVENT_COMMON_SIZE || size > UT_EVENT_REC_MAX ||
	    !ctl->tracing_on || ut_rt_off)
		return 0;
	if (!ut_thr.tid && (fast || !ut_rt_thread_first()))
		return fast;
	if (fast && !rs)
		return 1; /* the locked writer: system calls */
	/* set_event_pid and co (evpid.c): without lists, one load and one branch */
	uint32_t eg = __atomic_load_n(&ut_rt_ev_gen, __ATOMIC_ACQUIRE);

	if (__builtin_expect(eg != 0, 0)) {
		if (ut_thr.ev_gen != eg) {
			if (fast)
				return 1;
			ut_evpid_refresh(eg);
		}
		m0 &= ut_thr.ev_ok[0];
		m1 &= ut_thr.ev_ok[1];
		if (!(m0 | m1))
			return 0;
	}
	struct flt_row *row = __atomic_load_n(&flt_live, __ATOMIC_ACQUIRE) ? flt_row_of(ev, 0) : NULL;

	if (row && fast && filters_call(row, m0, m1))
		return 1;
	e->h = (struct ut_ev){.len = (uint16_t)len,
			      .type = UT_EV_EVENT,
			      .flags = ut_thr.evflags,
			      .tid = ut_thr.tid};
	e->id = id;
	e->size = size;
	/* the kernel's common fields: TRACE_FLAG_IRQS_OFF 0x01, TRACE_FLAG_HARDIRQ 0x08 */
	pid = (int32_t)ut_thr.tid;
	memcpy(rec, &type, 2);
	rec[2] = (uint8_t)(((ut_thr.evflags & UT_EVF_SIGBLOCKED) ? 0x01 : 0) |
			   ((ut_thr.evflags & UT_EVF_SIGHANDLER) ? 0x08 : 0));
	rec[3] = 0;
	memcpy(rec + 4, &pid, 4);
	for (unsigned int i = UT_EVENT_HDR + size; i < len; i++)
		rec[i - UT_EVENT_HDR] = 0; /* the padding: no stack bytes in the ring */
	char comm[16] = "";

	for (unsigned int slot = 0; slot < UT_EVT_INSTANCE_SLOTS; slot++) {
		uint64_t bit = slot < 64 ? (m0 >> slot) & 1 : m1;
		const struct ut_evf_prog *f = row ? __atomic_load_n(&row->prog[slot], __ATOMIC_ACQUIRE)
						  : NULL;
		void *area;

		if (!bit)
			continue;
		if (f && !filter_passes(f, rec, size, comm))
			goto next; /* refused: not written, not counted, as in the kernel */
		area = ut_rt_slot_area(ctl, slot);
		if (area && rs)
			ut_rb_write_post(area, ut_rt_nr_cpus, &e->h, rs, &(uint64_t){0});
		else if (area)
			ut_rt_write_ev(ctl, area, &e->h); /* locked, or counted lost */
next:
		if (slot < 64 && !(m0 >> slot >> 1) && !m1)
			break; /* no more bits */
	}
	return 0;
}

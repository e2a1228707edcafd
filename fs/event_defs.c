// SPDX-License-Identifier: MIT
/*
 * event_defs.c - the trace events programs define (include/utrace/event.h): their
 * definitions, ids, the events memfd that tells processes which are enabled, and
 * their records in the reader and in the text output.
 *
 * A process announces each event once per connection (UT_MSG_EVENT, ut_event.h).
 * The announcement is hostile input: every string must end within its array and
 * be followed by zeros only, names are identifiers, types are C type text, every
 * field lies within the record after the common fields, in order and without
 * overlap, with a size its kind allows, and the print format is one line of
 * printable text.  Anything else is refused with one line on the console (the
 * daemon's standard error, MOUNTPOINT.console) and changes nothing: the
 * connection, the process's other events and everybody else go on.
 *
 * A definition is keyed by its fingerprint (ut_event_fp: the packet's bytes from
 * `size` on, which the zero rule makes one value per definition); a new one gets
 * the next id from UT_EVENT_ID_BASE and an entry in the events memfd (open
 * addressing on the fingerprint: processes look their ids up there), which
 * utracefs alone writes: it is sealed against writing, growing and shrinking
 * once mapped here, like the selection memfd.  Ids and definitions stay for the
 * mount's life.  A fingerprint equal to another definition's is refused (never
 * seen; the odds are 2^-64 per pair).
 *
 * tfs_event_enable() sets or clears an instance slot's bit in the entry's mask
 * (atomic, in place); the caller then applies a new generation, at which every
 * process's control thread re-reads the masks of its events and patches their
 * static keys (runtime/events.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "event_defs.h"
#include "event_filter.h"
#include "functab.h"
#include "output/print_fmt.h"
#include "ut_wire.h"

static pthread_mutex_t defs_lock = PTHREAD_MUTEX_INITIALIZER;
/* ids UT_EVENT_ID_BASE + i; published with a release store, never freed */
static struct tfs_event_def *defs[UT_EVT_MAX_DEFS];
static uint32_t ent_of[UT_EVT_MAX_DEFS]; /* the memfd entry of each id */
static uint32_t nr_defs;

static int evt_fd = -1;
static void *evt_map; /* UT_EVT_SIZE bytes, ours writable */

/* UTRACEFS_TEST_EVENTS: "sys:event" patterns enabled in slot 0 when announced */
static struct hook_pat {
	char sys[UT_EVENT_NAME_MAX], name[UT_EVENT_NAME_MAX];
} *hook_pats;
static unsigned int nr_hook_pats;

static void filters_drop_locked(unsigned int slot);

/* ---- the memfd --------------------------------------------------------------------------- */

static int map_locked(void)
{
	struct ut_evt_hdr *h;
	int fd;
	void *m;

	if (evt_map)
		return 0;
	fd = memfd_create("utrace-events", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)UT_EVT_SIZE)) {
		close(fd);
		return -errno;
	}
	m = mmap(NULL, UT_EVT_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* our map first: after F_SEAL_FUTURE_WRITE no writable one can be made */
	if (m == MAP_FAILED ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE)) {
		int err = -errno;

		if (m != MAP_FAILED)
			munmap(m, UT_EVT_SIZE);
		close(fd);
		return err;
	}
	h = m;
	h->magic = UT_EVT_MAGIC;
	h->nr_slots = UT_EVT_SLOTS;
	evt_fd = fd;
	evt_map = m;
	return 0;
}

int tfs_event_defs_init(void)
{
	int err;

	pthread_mutex_lock(&defs_lock);
	err = map_locked();
	pthread_mutex_unlock(&defs_lock);
	tfs_event_test_hook(getenv("UTRACEFS_TEST_EVENTS"));
	return err;
}

int tfs_event_defs_fd_ro(void)
{
	int fd;

	pthread_mutex_lock(&defs_lock);
	fd = tfs_fd_reopen_ro(evt_fd);
	pthread_mutex_unlock(&defs_lock);
	return fd;
}

void tfs_event_defs_reset(void)
{
	pthread_mutex_lock(&defs_lock);
	filters_drop_locked(UT_EVT_INSTANCE_SLOTS);
	for (uint32_t i = 0; i < nr_defs; i++) {
		tfs_pfmt_free(defs[i]->pfmt);
		free(defs[i]);
		defs[i] = NULL;
	}
	nr_defs = 0;
	if (evt_map) {
		struct ut_evt_hdr *h = evt_map;

		memset(ut_evt_table(evt_map), 0, (size_t)UT_EVT_SLOTS * sizeof(struct ut_evt_ent));
		h->nr_defs = 0;
	}
	pthread_mutex_unlock(&defs_lock);
}

/* ---- checking an announcement ------------------------------------------------------------- */

/* s ends within room, and only zeros follow. */
static bool zero_tail(const char *s, size_t room)
{
	const char *nul = memchr(s, 0, room);

	if (!nul)
		return false;
	for (const char *p = nul; p < s + room; p++)
		if (*p)
			return false;
	return true;
}

static bool ident_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

/* An identifier, and with array set optionally "[digits]" after it. */
static bool name_ok(const char *s, size_t room, bool array)
{
	size_t i = 0;

	if (!zero_tail(s, room) || !ident_char(s[0], true))
		return false;
	while (ident_char(s[i], false))
		i++;
	if (!s[i])
		return true;
	if (!array || s[i] != '[' || s[i + 1] == ']')
		return false;
	for (i++; s[i] >= '0' && s[i] <= '9'; i++)
		;
	return s[i] == ']' && !s[i + 1];
}

/* C type text: identifiers, spaces, '*', '[', ']'. */
static bool type_ok(const char *s, size_t room)
{
	if (!zero_tail(s, room) || !s[0])
		return false;
	for (; *s; s++)
		if (!ident_char(*s, false) && *s != ' ' && *s != '*' && *s != '[' && *s != ']')
			return false;
	return true;
}

static bool elem_size_ok(unsigned int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

static size_t base_len(const char *name)
{
	const char *b = strchr(name, '[');

	return b ? (size_t)(b - name) : strlen(name);
}

static const char *field_bad(const struct ut_msg_event_field *f, uint32_t rec_size,
			     uint32_t min_off)
{
	if (!name_ok(f->name, sizeof(f->name), f->kind == UT_EVF_KIND_ARRAY))
		return "a field name is not an identifier";
	if (!strncmp(f->name, "common_", 7))
		return "a field name starts with common_";
	if (!type_ok(f->type, sizeof(f->type)))
		return "a field type is not C type text";
	if (f->is_signed > 1 || f->kind > UT_EVF_KIND_DYN_ARRAY)
		return "a field has an unknown kind";
	switch (f->kind) {
	case UT_EVF_KIND_PLAIN:
		if (!elem_size_ok(f->size) || f->elem_size != f->size)
			return "an integer field is not 1, 2, 4 or 8 bytes";
		break;
	case UT_EVF_KIND_ARRAY: {
		const char *b = strchr(f->name, '[');

		if (!elem_size_ok(f->elem_size) || !f->size || f->size % f->elem_size || !b ||
		    strtoul(b + 1, NULL, 10) != f->size / f->elem_size)
			return "an array field's size is not its name[length] of elements";
		break;
	}
	case UT_EVF_KIND_STRING:
		if (f->size != 4 || f->elem_size != 1 || strcmp(f->type, "__data_loc char[]"))
			return "a string field is not a __data_loc char[] word";
		break;
	case UT_EVF_KIND_DYN_ARRAY:
		if (f->size != 4 || !elem_size_ok(f->elem_size) || strncmp(f->type, "__data_loc ", 11))
			return "a dynamic array field is not a __data_loc word";
		break;
	}
	if (f->offset < min_off)
		return "fields overlap, are out of order or overlap the common fields";
	if ((uint32_t)f->offset + f->size > rec_size)
		return "a field lies beyond the record";
	return NULL;
}

static const char *msg_bad(const struct ut_msg_event *m, size_t n)
{
	const char *fmt;
	uint32_t min_off = UT_EVENT_COMMON_SIZE;

	if (n < sizeof(*m) || m->type != UT_MSG_EVENT || m->len != n)
		return "the packet is malformed";
	if (m->nr_fields > UT_EVENT_FIELDS_MAX || m->fmt_len < 2 || m->fmt_len > UT_EVENT_FMT_MAX ||
	    n != sizeof(*m) + (size_t)m->nr_fields * sizeof(m->fields[0]) + m->fmt_len)
		return "its length does not match its fields and format";
	if (!name_ok(m->system, sizeof(m->system), false) || !name_ok(m->name, sizeof(m->name), false))
		return "the system or event name is not an identifier";
	if (!strcmp(m->system, "ftrace"))
		return "the system ftrace is the kernel's";
	if (m->size < UT_EVENT_COMMON_SIZE || m->size > UT_EVENT_REC_MAX)
		return "the record size is out of range";
	for (uint32_t i = 0; i < m->nr_fields; i++) {
		const struct ut_msg_event_field *f = &m->fields[i];
		const char *why = field_bad(f, m->size, min_off);

		if (why)
			return why;
		min_off = f->offset + f->size;
		for (uint32_t k = 0; k < i; k++) {
			size_t l = base_len(f->name);

			if (l == base_len(m->fields[k].name) && !strncmp(f->name, m->fields[k].name, l))
				return "two fields have the same name";
		}
	}
	fmt = (const char *)&m->fields[m->nr_fields];
	if (fmt[m->fmt_len - 1] || strlen(fmt) != m->fmt_len - 1)
		return "the print format is not one NUL-terminated string";
	for (const char *p = fmt; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			return "the print format has a control character";
	return NULL;
}

/* The format as the kernel shows it: REC-> for the macros' __entry->. */
static void fmt_copy(char *dst, const char *src)
{
	static const char from[] = "__entry->", to[] = "REC->";
	size_t o = 0;

	while (*src && o + 1 < UT_EVENT_FMT_MAX) {
		if (!strncmp(src, from, sizeof(from) - 1) && o + sizeof(to) < UT_EVENT_FMT_MAX) {
			memcpy(dst + o, to, sizeof(to) - 1);
			o += sizeof(to) - 1;
			src += sizeof(from) - 1;
		} else {
			dst[o++] = *src++;
		}
	}
	dst[o] = 0;
}

int tfs_event_def_parse(const void *msg, size_t n, struct tfs_event_def *def, const char **why)
{
	const struct ut_msg_event *m = msg;

	*why = msg_bad(m, n);
	if (*why)
		return -EINVAL;
	memset(def, 0, sizeof(*def));
	def->fp = ut_event_fp(msg, (uint32_t)n);
	memcpy(def->system, m->system, sizeof(def->system));
	memcpy(def->name, m->name, sizeof(def->name));
	def->size = m->size;
	def->nr_fields = m->nr_fields;
	for (uint32_t i = 0; i < m->nr_fields; i++) {
		const struct ut_msg_event_field *f = &m->fields[i];
		struct tfs_event_field *d = &def->fields[i];

		/* C's bool, as <stdbool.h> spells it once expanded: the kernel writes bool */
		if (!strcmp(f->type, "_Bool"))
			snprintf(d->type, sizeof(d->type), "bool");
		else
			memcpy(d->type, f->type, sizeof(d->type));
		memcpy(d->name, f->name, sizeof(d->name));
		d->offset = f->offset;
		d->size = f->size;
		d->elem_size = f->elem_size;
		d->is_signed = f->is_signed;
		d->kind = f->kind;
	}
	fmt_copy(def->print_fmt, (const char *)&m->fields[m->nr_fields]);
	return 0;
}

/* ---- ids ---------------------------------------------------------------------------------- */

static bool same_def(const struct tfs_event_def *a, const struct tfs_event_def *b)
{
	return !strcmp(a->system, b->system) && !strcmp(a->name, b->name) && a->size == b->size &&
	       a->nr_fields == b->nr_fields && !strcmp(a->print_fmt, b->print_fmt) &&
	       !memcmp(a->fields, b->fields, a->nr_fields * sizeof(a->fields[0]));
}

static bool hook_match(const struct tfs_event_def *d)
{
	for (unsigned int i = 0; i < nr_hook_pats; i++) {
		const struct hook_pat *p = &hook_pats[i];

		if ((!strcmp(p->sys, "*") || !strcmp(p->sys, d->system)) &&
		    (!strcmp(p->name, "*") || !strcmp(p->name, d->name)))
			return true;
	}
	return false;
}

/*
 * A new definition of a system:name known already is the same event for the
 * events/ tree: it starts enabled where the others are.
 */
static void inherit_mask_locked(const struct tfs_event_def *d, struct ut_evt_ent *e)
{
	const struct ut_evt_ent *tab = ut_evt_table(evt_map);

	for (uint32_t i = 0; i < nr_defs; i++)
		if (!strcmp(defs[i]->system, d->system) && !strcmp(defs[i]->name, d->name)) {
			e->mask[0] = tab[ent_of[i]].mask[0];
			e->mask[1] = tab[ent_of[i]].mask[1];
			return;
		}
}

/* Find def's entry, or enter it with a new id; its id, 0: table full, -1: collision. */
static int64_t enter_locked(struct tfs_event_def *def, bool *fresh)
{
	struct ut_evt_ent *tab = ut_evt_table(evt_map);

	*fresh = false;
	for (uint32_t i = 0; i < UT_EVT_SLOTS; i++) {
		uint32_t slot = (uint32_t)((def->fp + i) & (UT_EVT_SLOTS - 1));
		struct ut_evt_ent *e = &tab[slot];

		if (e->fp == def->fp) {
			const struct tfs_event_def *old = defs[e->id - UT_EVENT_ID_BASE];

			return same_def(old, def) ? (int64_t)e->id : -1;
		}
		if (e->fp)
			continue;
		if (nr_defs >= UT_EVT_MAX_DEFS)
			return 0;
		struct tfs_event_def *d = malloc(sizeof(*d));

		if (!d)
			return 0;
		*d = *def;
		d->pfmt = tfs_pfmt_parse(d, &d->pfmt_why);
		d->id = UT_EVENT_ID_BASE + nr_defs;
		e->id = d->id;
		e->mask[0] = e->mask[1] = 0;
		inherit_mask_locked(d, e);
		if (hook_match(d))
			e->mask[0] |= 1;
		ent_of[nr_defs] = slot;
		__atomic_store_n(&defs[nr_defs], d, __ATOMIC_RELEASE);
		nr_defs++;
		((struct ut_evt_hdr *)evt_map)->nr_defs = nr_defs;
		__atomic_store_n(&e->fp, def->fp, __ATOMIC_RELEASE); /* last: processes see it whole */
		*fresh = true;
		return d->id;
	}
	return 0;
}

/*
 * The console is for people: a process gets REFUSED_SHOWN lines of refusals, then one
 * saying that its further refusals are not shown (per pid, in a small table).
 */
#define REFUSED_SHOWN 16u
static struct {
	pid_t pid;
	unsigned int n;
} refusals[64];

static void say_refused(pid_t pid, const char *why)
{
	unsigned int n;

	pthread_mutex_lock(&defs_lock);
	if (refusals[(unsigned int)pid % 64].pid != pid)
		refusals[(unsigned int)pid % 64] = (typeof(refusals[0])){pid, 0};
	n = ++refusals[(unsigned int)pid % 64].n;
	pthread_mutex_unlock(&defs_lock);
	/* the names only once checked: they go to a terminal */
	if (n <= REFUSED_SHOWN)
		fprintf(stderr, "utracefs: process %d: trace event refused: %s\n", (int)pid, why);
	else if (n == REFUSED_SHOWN + 1)
		fprintf(stderr, "utracefs: process %d: further refused trace events not shown\n",
			(int)pid);
}

int tfs_event_announce(pid_t pid, const void *msg, size_t n)
{
	struct tfs_event_def *def = malloc(sizeof(*def));
	const char *why = NULL;
	int64_t id = 0;
	bool fresh = false, on = false;
	int ret;

	if (!def)
		return 0; /* not the peer's fault: nothing refused, nothing entered */
	if (tfs_event_def_parse(msg, n, def, &why) == 0) {
		pthread_mutex_lock(&defs_lock);
		if (map_locked())
			why = "utracefs has no events memfd";
		else
			id = enter_locked(def, &fresh);
		if (id > 0) {
			const struct ut_evt_ent *e = &ut_evt_table(evt_map)[ent_of[id - UT_EVENT_ID_BASE]];

			on = (e->mask[0] | e->mask[1]) != 0;
		}
		pthread_mutex_unlock(&defs_lock);
		if (!why && id == 0)
			why = "no room for more event definitions";
		else if (id < 0)
			why = "its fingerprint is another definition's";
	}
	if (why) {
		say_refused(pid, why);
		ret = -EINVAL;
	} else {
		const struct tfs_event_def *d = fresh ? tfs_event_def((uint32_t)id) : NULL;

		if (fresh)
			fprintf(stderr, "utracefs: process %d: trace event %s:%s has id %u\n", (int)pid,
				def->system, def->name, (unsigned int)id);
		/* the names were checked; the reason is ours */
		if (d && !d->pfmt)
			fprintf(stderr,
				"utracefs: trace event %s:%s: print format not understood (%s): "
				"its fields are shown instead\n",
				d->system, d->name, d->pfmt_why);
		ret = on ? 1 : 0;
	}
	free(def);
	return ret;
}

const struct tfs_event_def *tfs_event_def(uint32_t id)
{
	if (id < UT_EVENT_ID_BASE || id >= UT_EVENT_ID_BASE + UT_EVT_MAX_DEFS)
		return NULL;
	return __atomic_load_n(&defs[id - UT_EVENT_ID_BASE], __ATOMIC_ACQUIRE);
}

uint32_t tfs_event_nr_defs(void)
{
	uint32_t n;

	pthread_mutex_lock(&defs_lock);
	n = nr_defs;
	pthread_mutex_unlock(&defs_lock);
	return n;
}

static struct ut_evt_ent *ent_locked(uint32_t id)
{
	if (id < UT_EVENT_ID_BASE || id >= UT_EVENT_ID_BASE + nr_defs || !evt_map)
		return NULL;
	return &ut_evt_table(evt_map)[ent_of[id - UT_EVENT_ID_BASE]];
}

int tfs_event_enable(uint32_t id, unsigned int slot, bool on)
{
	struct ut_evt_ent *e;
	uint64_t bit = 1ull << (slot % 64);
	int err = 0;

	if (slot >= UT_EVT_INSTANCE_SLOTS)
		return -EINVAL;
	pthread_mutex_lock(&defs_lock);
	e = ent_locked(id);
	if (!e)
		err = -ENOENT;
	else if (on)
		__atomic_fetch_or(&e->mask[slot / 64], bit, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&e->mask[slot / 64], ~bit, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&defs_lock);
	return err;
}

bool tfs_event_enabled(uint32_t id, unsigned int slot)
{
	struct ut_evt_ent *e;
	bool on = false;

	if (slot >= UT_EVT_INSTANCE_SLOTS)
		return false;
	pthread_mutex_lock(&defs_lock);
	e = ent_locked(id);
	if (e)
		on = (__atomic_load_n(&e->mask[slot / 64], __ATOMIC_ACQUIRE) >> (slot % 64)) & 1;
	pthread_mutex_unlock(&defs_lock);
	return on;
}

void tfs_event_slot_clear(unsigned int slot)
{
	if (slot >= UT_EVT_INSTANCE_SLOTS)
		return;
	pthread_mutex_lock(&defs_lock);
	for (uint32_t i = 0; i < nr_defs && evt_map; i++)
		__atomic_fetch_and(&ut_evt_table(evt_map)[ent_of[i]].mask[slot / 64],
				   ~(1ull << (slot % 64)), __ATOMIC_RELEASE);
	filters_drop_locked(slot);
	pthread_mutex_unlock(&defs_lock);
}

/* ---- filters ---------------------------------------------------------------------------- */

/* Each definition's filter in each instance slot: its text and program (NULL: none
 * applies, after a bad filter the text is the error the file shows). */
struct evf {
	char *text;
	struct ut_evf_prog *prog;
};
static struct evf *filters[UT_EVT_INSTANCE_SLOTS]; /* by definition index, made on use */

/* Write every program into the memfd's filter area (defs_lock held); -ENOSPC: full. */
static int filters_publish_locked(void)
{
	struct ut_evf_area *a = evt_map ? ut_evf_area_of(evt_map) : NULL;
	uint32_t nr = 0, off = 0;

	if (!a)
		return 0;
	/* room first: nothing changes when it does not fit */
	for (unsigned int s = 0; s < UT_EVT_INSTANCE_SLOTS; s++)
		for (uint32_t i = 0; filters[s] && i < nr_defs; i++)
			if (filters[s][i].prog) {
				nr++;
				off += (uint32_t)((ut_evf_size(filters[s][i].prog->nr) + 7) & ~7ul);
			}
	if (nr > UT_EVF_DIR_MAX || off > UT_EVF_HEAP)
		return -ENOSPC;
	__atomic_store_n(&a->seq, a->seq + 1, __ATOMIC_RELAXED); /* odd: being rewritten */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	nr = off = 0;
	for (unsigned int s = 0; s < UT_EVT_INSTANCE_SLOTS; s++)
		for (uint32_t i = 0; filters[s] && i < nr_defs; i++) {
			const struct ut_evf_prog *p = filters[s][i].prog;
			uint32_t len = p ? (uint32_t)ut_evf_size(p->nr) : 0;

			if (!p)
				continue;
			a->ent[nr++] = (struct ut_evf_dirent){.id = UT_EVENT_ID_BASE + i, .slot = s,
							      .off = off, .len = len};
			memcpy(a->heap + off, p, len);
			off += (len + 7) & ~7u;
		}
	a->nr = nr;
	__atomic_store_n(&a->seq, a->seq + 1, __ATOMIC_RELEASE);
	return 0;
}

int tfs_event_filter_set(uint32_t id, unsigned int slot, char *text, struct ut_evf_prog *prog)
{
	struct evf old;
	int err = 0;

	if (slot >= UT_EVT_INSTANCE_SLOTS || id < UT_EVENT_ID_BASE)
		err = -EINVAL;
	pthread_mutex_lock(&defs_lock);
	if (!err && id >= UT_EVENT_ID_BASE + nr_defs)
		err = -ENOENT;
	if (!err && !filters[slot] && !(filters[slot] = calloc(UT_EVT_MAX_DEFS, sizeof(struct evf))))
		err = -ENOMEM;
	if (!err) {
		struct evf *f = &filters[slot][id - UT_EVENT_ID_BASE];

		old = *f;
		*f = (struct evf){text, prog};
		err = filters_publish_locked();
		if (err) {
			*f = old; /* the area is full: the filter as it was */
		} else {
			free(old.text);
			free(old.prog);
			text = NULL; /* taken */
			prog = NULL;
		}
	}
	pthread_mutex_unlock(&defs_lock);
	if (err) { /* not taken */
		free(text);
		free(prog);
	}
	return err;
}

char *tfs_event_filter_text(uint32_t id, unsigned int slot)
{
	char *t = NULL;

	pthread_mutex_lock(&defs_lock);
	if (slot < UT_EVT_INSTANCE_SLOTS && filters[slot] && id >= UT_EVENT_ID_BASE &&
	    id < UT_EVENT_ID_BASE + nr_defs && filters[slot][id - UT_EVENT_ID_BASE].text)
		t = strdup(filters[slot][id - UT_EVENT_ID_BASE].text);
	pthread_mutex_unlock(&defs_lock);
	return t;
}

/* The filters of slot, or of every slot (UT_EVT_INSTANCE_SLOTS), gone; defs_lock held. */
static void filters_drop_locked(unsigned int slot)
{
	for (unsigned int s = 0; s < UT_EVT_INSTANCE_SLOTS; s++) {
		if ((slot != UT_EVT_INSTANCE_SLOTS && s != slot) || !filters[s])
			continue;
		for (uint32_t i = 0; i < UT_EVT_MAX_DEFS; i++) {
			free(filters[s][i].text);
			free(filters[s][i].prog);
		}
		free(filters[s]);
		filters[s] = NULL;
	}
	filters_publish_locked();
}

int tfs_event_fields(uint32_t id, struct tfs_flt_field *out, char (*names)[UT_EVENT_TYPE_MAX],
		     unsigned int max)
{
	static const struct tfs_flt_field common[] = {
		{"common_type", 0, 2, false, UT_EVF_NUM},
		{"common_flags", 2, 1, false, UT_EVF_NUM},
		{"common_preempt_count", 3, 1, false, UT_EVF_NUM},
		{"common_pid", 4, 4, true, UT_EVF_NUM},
	};
	const struct tfs_event_def *d = tfs_event_def(id);
	unsigned int n = 0;

	if (!d)
		return -ENOENT;
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]) && n < max; i++)
		out[n++] = common[i];
	for (uint32_t i = 0; i < d->nr_fields && n < max; i++, n++) {
		const struct tfs_event_field *f = &d->fields[i];

		snprintf(names[n], UT_EVENT_TYPE_MAX, "%.*s", (int)base_len(f->name), f->name);
		out[n] = (struct tfs_flt_field){names[n], f->offset, f->size, f->is_signed != 0,
						UT_EVF_NUM};
		if (f->kind == UT_EVF_KIND_STRING)
			out[n].kind = UT_EVF_STR_DYN;
		else if (f->kind == UT_EVF_KIND_ARRAY && f->elem_size == 1 && strstr(f->type, "char"))
			out[n].kind = UT_EVF_STR_FIXED;
		else if (f->kind == UT_EVF_KIND_DYN_ARRAY) /* the kernel compares its __data_loc word */
			out[n].size = 4, out[n].is_signed = false;
	}
	return (int)n;
}

void tfs_event_test_hook(const char *spec)
{
	const char *p = spec;

	pthread_mutex_lock(&defs_lock);
	free(hook_pats);
	hook_pats = NULL;
	nr_hook_pats = 0;
	while (p && *p) {
		const char *end = strchr(p, ','), *colon;
		size_t len = end ? (size_t)(end - p) : strlen(p);
		struct hook_pat *np;

		colon = memchr(p, ':', len);
		if (colon && (size_t)(colon - p) < UT_EVENT_NAME_MAX &&
		    len - (size_t)(colon - p) - 1 < UT_EVENT_NAME_MAX &&
		    (np = realloc(hook_pats, (nr_hook_pats + 1) * sizeof(*np)))) {
			hook_pats = np;
			np = &hook_pats[nr_hook_pats++];
			memset(np, 0, sizeof(*np));
			memcpy(np->sys, p, (size_t)(colon - p));
			memcpy(np->name, colon + 1, len - (size_t)(colon - p) - 1);
		}
		p = end ? end + 1 : NULL;
	}
	pthread_mutex_unlock(&defs_lock);
}

/* ---- records ------------------------------------------------------------------------------ */

int tfs_event_check(const struct ut_ev *ev, unsigned int len)
{
	const struct ut_ev_event *e = (const struct ut_ev_event *)ev;
	const struct tfs_event_def *d;
	uint16_t type;

	if (len < UT_EVENT_HDR + UT_EVENT_COMMON_SIZE || e->size < UT_EVENT_COMMON_SIZE ||
	    e->size > len - UT_EVENT_HDR)
		return -1;
	d = tfs_event_def(e->id);
	memcpy(&type, e->rec, sizeof(type));
	if (!d || e->size < d->size || type != (uint16_t)e->id)
		return -1;
	return (int)len;
}

static int64_t get_int(const unsigned char *p, unsigned int size, bool is_signed)
{
	uint64_t v = 0;

	memcpy(&v, p, size); /* little-endian */
	if (is_signed && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ull << (size * 8);
	return (int64_t)v;
}

static void print_value(struct tfs_buf *b, const unsigned char *p, unsigned int size,
			bool is_signed, bool ptr)
{
	int64_t v = get_int(p, size, is_signed);

	if (ptr)
		tfs_buf_printf(b, "0x%" PRIx64, (uint64_t)v);
	else if (is_signed)
		tfs_buf_printf(b, "%" PRId64, v);
	else
		tfs_buf_printf(b, "%" PRIu64, (uint64_t)v);
}

/* Text up to a NUL or n bytes, unprintable bytes as '?'. */
static void print_text(struct tfs_buf *b, const unsigned char *p, unsigned int n)
{
	for (unsigned int i = 0; i < n && p[i]; i++) {
		char c = p[i] < 0x20 || p[i] >= 0x7f ? '?' : (char)p[i];

		tfs_buf_append(b, &c, 1);
	}
}

static void print_elems(struct tfs_buf *b, const struct tfs_event_field *f,
			const unsigned char *p, unsigned int n)
{
	bool chars = f->elem_size == 1 && strstr(f->type, "char");

	if (chars) {
		print_text(b, p, n);
		return;
	}
	tfs_buf_append(b, "{", 1);
	for (unsigned int i = 0; i + f->elem_size <= n; i += f->elem_size) {
		if (i)
			tfs_buf_append(b, ",", 1);
		print_value(b, p + i, f->elem_size, f->is_signed, false);
	}
	tfs_buf_append(b, "}", 1);
}

void tfs_event_print(struct tfs_buf *b, const struct ut_ev *ev)
{
	const struct ut_ev_event *e = (const struct ut_ev_event *)ev;
	const struct tfs_event_def *d = tfs_event_def(e->id);
	const unsigned char *rec = e->rec;

	if (!d) {
		tfs_buf_printf(b, "Unknown event %u\n", e->id);
		return;
	}
	tfs_buf_printf(b, "%s:", d->name);
	for (uint32_t i = 0; i < d->nr_fields; i++) {
		const struct tfs_event_field *f = &d->fields[i];
		unsigned int loc, off, n;

		/* the record was checked to be at least d->size, which holds every field */
		tfs_buf_printf(b, " %.*s=", (int)base_len(f->name), f->name);
		switch (f->kind) {
		case UT_EVF_KIND_PLAIN:
			print_value(b, rec + f->offset, f->size, f->is_signed,
				    strchr(f->type, '*') != NULL);
			break;
		case UT_EVF_KIND_ARRAY:
			print_elems(b, f, rec + f->offset, f->size);
			break;
		default: /* __data_loc: offset | length << 16, within the record or nothing */
			memcpy(&loc, rec + f->offset, 4);
			off = loc & 0xffff;
			n = loc >> 16;
			if (off < d->size || off > e->size || n > e->size - off)
				n = 0, off = e->size;
			if (f->kind == UT_EVF_KIND_STRING)
				print_text(b, rec + off, n);
			else
				print_elems(b, f, rec + off, n);
		}
	}
	tfs_buf_append(b, "\n", 1);
}

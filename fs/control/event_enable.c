// SPDX-License-Identifier: MIT
/*
 * event_enable.c - the files of the events/ tree that act on events programs
 * define, for the instance of the open file: events/enable,
 * events/SYSTEM/{enable,filter} and events/SYSTEM/EVENT/{enable,id,filter,trigger}
 * (format: events.c).
 *
 * An enable file's tfs_file.arg is its level (TFS_EVL_*); below events/SYSTEM/
 * tfs_open.cpu is the system's number, below events/SYSTEM/EVENT/ the tree
 * event's (event_tree.c).  Writes take the kernel's kstrtoul: 0 or 1, else
 * EINVAL.  An event's enable reads `0` or `1`; a system's and events/enable read
 * `1` when all their events are enabled, `0` when none is, `X` when some are.
 *
 * An event's filter takes the kernel's filter language (event_filter.c); a
 * system's filter and triggers come with their own issue items: those files
 * exist, read as the kernel's with none set (`none`; the triggers header with no
 * trigger available), take `0` (filter) or blank (trigger) as the kernel does when
 * there is nothing to clear, and refuse anything else with EINVAL (a filter also
 * leaves an error_log line).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "event_defs.h"
#include "event_filter.h"
#include "tfs.h"

/* Does tree event t belong to what the open file covers? */
static bool covers(const struct tfs_open *o, unsigned int t)
{
	struct tfs_evtree_ent e;

	switch (o->file->arg) {
	case TFS_EVL_ALL:
		return true;
	case TFS_EVL_SYSTEM:
		return tfs_evtree_get(t, &e) == 0 && (int)e.sys == o->cpu;
	default:
		return (int)t == o->cpu;
	}
}

static int enable_show(struct tfs_open *o)
{
	unsigned int n = tfs_evtree_nr(), on = 0, off = 0;

	for (unsigned int t = 0; t < n; t++)
		if (covers(o, t))
			tfs_evtree_enabled(t, o->inst->slot) ? on++ : off++;
	/* with no event at all (none announced yet) events/enable reads 0 */
	return tfs_buf_printf(&o->content, "%s\n", on && off ? "X" : on ? "1" : "0");
}

static ssize_t enable_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	unsigned long v;
	unsigned int n = tfs_evtree_nr();

	if (tfs_parse_ulong(buf, size, &v) || v > 1)
		return -EINVAL;
	if (v == 1) { /* enabling takes the boot-time buffer to its full size, as the kernel */
		int err = tfs_buffer_expand(o->inst);

		if (err)
			return err;
	}
	for (unsigned int t = 0; t < n; t++)
		if (covers(o, t))
			tfs_evtree_set(t, o->inst->slot, v == 1);
	tfs_evtree_apply();
	return (ssize_t)size;
}

static int id_show(struct tfs_open *o)
{
	struct tfs_evtree_ent e;
	int err = tfs_evtree_get((unsigned int)o->cpu, &e);

	return err ? err : tfs_buf_printf(&o->content, "%u\n", (unsigned int)e.id);
}

#define FILTER_TEXT_MAX 4096 /* a filter write, as the kernel's page */
#define FILTER_DEFS_MAX 64    /* definitions of one name a filter applies to */

/* An event's filter reads as written, or the error of the last bad one, or none. */
static int filter_show(struct tfs_open *o)
{
	uint32_t id;
	char *text = NULL;
	int err;

	if (o->file->arg == TFS_EVL_EVENT && tfs_evtree_defs((unsigned int)o->cpu, &id, 1))
		text = tfs_event_filter_text(id, o->inst->slot);
	err = tfs_buf_printf(&o->content, "%s\n", text ? text : "none");
	free(text);
	return err;
}

/*
 * The kernel keeps the text without its trailing white space (and with its
 * leading); true when it says "0", which clears the filter.
 */
static bool filter_text(const char *buf, size_t size, char *text)
{
	char z[8];

	memcpy(text, buf, size);
	text[size] = 0;
	while (size && (text[size - 1] == ' ' || (text[size - 1] >= '\t' && text[size - 1] <= '\r')))
		text[--size] = 0;
	return tfs_strip(buf, size, z, sizeof(z)) == 0 && !strcmp(z, "0");
}

/* Compile text against definition id: its program, or NULL with e filled. */
static struct ut_evf_prog *filter_compile(uint32_t id, const char *text, struct tfs_flt_error *e)
{
	static struct tfs_flt_field fields[UT_EVENT_FIELDS_MAX + 4];
	static char names[UT_EVENT_FIELDS_MAX + 4][UT_EVENT_TYPE_MAX];
	struct ut_evf_prog *p = NULL;
	int n = tfs_event_fields(id, fields, names, UT_EVENT_FIELDS_MAX + 4);

	if (n < 0) {
		*e = (struct tfs_flt_error){.err = n};
		return NULL;
	}
	tfs_flt_compile(text, fields, (unsigned int)n, &p, e);
	return p;
}

/*
 * events/SYSTEM/EVENT/filter: compiled against each definition of the name; a
 * bad filter (against the first) leaves its error in the file and in error_log,
 * no filter in force, and the kernel's errno.  Writers run the programs
 * (runtime/events.c): an event a filter refuses is not written.
 */
static ssize_t event_filter_write(struct tfs_open *o, const char *buf, size_t size)
{
	static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER; /* filter_compile's */
	uint32_t ids[FILTER_DEFS_MAX];
	unsigned int nr = tfs_evtree_defs((unsigned int)o->cpu, ids, FILTER_DEFS_MAX);
	char *text = malloc(size + 1), shown[FILTER_TEXT_MAX + 512];
	struct tfs_flt_error e = {0};
	struct ut_evf_prog *first = NULL;
	bool clear;
	int err = 0;

	if (!text)
		return -ENOMEM;
	if (!nr) {
		free(text);
		return -ENOENT;
	}
	clear = filter_text(buf, size, text);
	pthread_mutex_lock(&compile_lock);
	if (!clear)
		first = filter_compile(ids[0], text, &e);
	if (!clear && !first) {
		err = e.err ? e.err : -EINVAL;
		tfs_flt_error_show(shown, sizeof(shown), text, &e);
		tfs_error_log(o->inst, "event filter parse error",
			      e.code ? tfs_flt_err_text(e.code) : "Error", text, e.pos);
	}
	for (unsigned int i = 0; i < nr; i++) {
		struct ut_evf_prog *p = NULL;
		struct tfs_flt_error e2;
		const char *keep = clear ? NULL : err ? shown : text;
		int r;

		if (!clear && !err)
			p = i ? filter_compile(ids[i], text, &e2) : first;
		r = tfs_event_filter_set(ids[i], o->inst->slot, keep ? strdup(keep) : NULL, p);
		if (r && !err)
			err = r;
	}
	pthread_mutex_unlock(&compile_lock);
	free(text);
	tfs_evtree_apply();
	return err ? err : (ssize_t)size;
}

static ssize_t filter_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	char text[256];

	if (size > FILTER_TEXT_MAX)
		return -EINVAL;
	if (o->file->arg == TFS_EVL_EVENT)
		return event_filter_write(o, buf, size);
	/* a system's filter: not yet */
	if (tfs_strip(buf, size, text, sizeof(text))) { /* long: the log shows its start */
		memcpy(text, buf, sizeof(text) - 1);
		text[sizeof(text) - 1] = '\0';
	}
	if (!strcmp(text, "0"))
		return (ssize_t)size; /* clears: there is nothing to clear */
	tfs_error_log(o->inst, "event filter parse error",
		      "System filters are not supported yet", text, 0);
	return -EINVAL;
}

static int trigger_show(struct tfs_open *o)
{
	return tfs_buf_printf(&o->content, "# Available triggers:\n#\n");
}

static ssize_t trigger_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	char text[8];

	/* blank is nothing to do; anything else names a trigger utrace does not have */
	return tfs_strip(buf, size, text, sizeof(text)) == 0 && !text[0] ? (ssize_t)size : -EINVAL;
}

const struct tfs_file_ops tfs_event_enable_ops = {.show = enable_show, .write = enable_write};
const struct tfs_file_ops tfs_event_id_ops = {.show = id_show};
const struct tfs_file_ops tfs_event_filter_ops = {.show = filter_show, .write = filter_write};
const struct tfs_file_ops tfs_event_trigger_ops = {.show = trigger_show,
						   .write = trigger_write,
						   .seek = TFS_SEEK_SEQ};

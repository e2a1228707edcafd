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
 * The filter files take the kernel's filter language (event_filter.c), an event's
 * for that event, a system's for each of its events.  Triggers come with their
 * own issue item: the file exists, reads as the kernel's with none available,
 * takes blank as the kernel does when there is nothing to clear, and refuses
 * anything else with EINVAL.
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

/* A system's filter file, as the kernel's: this text whatever was written to it. */
static const char sys_filter_text[] =
	"### global filter ###\n"
	"# Use this to set filters for multiple events.\n"
	"# Only events with the given fields will be affected.\n"
	"# If no events are modified, an error message will be displayed here\n";

/* An event's filter reads as written, or the error of the last bad one, or none. */
static int filter_show(struct tfs_open *o)
{
	uint32_t id;
	char *text = NULL;
	int err;

	if (o->file->arg == TFS_EVL_SYSTEM)
		return tfs_buf_append(&o->content, sys_filter_text, sizeof(sys_filter_text) - 1);
	if (tfs_evtree_defs((unsigned int)o->cpu, &id, 1))
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
 * Set (text) or clear (NULL) the filter of tree event t: compiled against each
 * definition of the name.  A bad filter (against the first) leaves its error in
 * the file and in error_log and no filter in force; from a system's filter file
 * the error is the kernel's "Couldn't find or set field in one of a subsystem's
 * events".  0 or -errno (the kernel's for the parse error).
 */
static int filter_set_event(struct tfs_open *o, unsigned int t, const char *text, bool from_system)
{
	static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER; /* filter_compile's */
	static char shown[FILTER_TEXT_MAX + 512];
	uint32_t ids[FILTER_DEFS_MAX];
	unsigned int nr = tfs_evtree_defs(t, ids, FILTER_DEFS_MAX);
	struct tfs_flt_error e = {0};
	struct ut_evf_prog *first = NULL;
	int err = 0;

	if (!nr)
		return -ENOENT;
	pthread_mutex_lock(&compile_lock);
	if (text)
		first = filter_compile(ids[0], text, &e);
	if (text && !first) {
		err = e.err ? e.err : -EINVAL;
		if (from_system)
			e = (struct tfs_flt_error){.err = err, .code = TFS_FLT_BAD_SUBSYS_FILTER};
		tfs_flt_error_show(shown, sizeof(shown), text, &e);
		tfs_error_log(o->inst, "event filter parse error",
			      e.code ? tfs_flt_err_text(e.code) : "Error", text, e.pos);
	}
	for (unsigned int i = 0; i < nr; i++) {
		struct ut_evf_prog *p = NULL;
		struct tfs_flt_error e2;
		const char *keep = !text ? NULL : err ? shown : text;
		int r;

		if (text && !err)
			p = i ? filter_compile(ids[i], text, &e2) : first;
		r = tfs_event_filter_set(ids[i], o->inst->slot, keep ? strdup(keep) : NULL, p);
		if (r && !err)
			err = r;
	}
	pthread_mutex_unlock(&compile_lock);
	return err;
}

/*
 * events/SYSTEM/EVENT/filter sets its event's; events/SYSTEM/filter every event
 * of the system (one that cannot take it shows the error, as the kernel's) and
 * succeeds whatever they said.  Writers run the programs (runtime/events.c): an
 * event a filter refuses is not written.
 */
static ssize_t filter_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	unsigned int n = tfs_evtree_nr();
	char *text;
	bool clear;
	int err = 0;

	if (size > FILTER_TEXT_MAX)
		return -EINVAL;
	if (!(text = malloc(size + 1)))
		return -ENOMEM;
	clear = filter_text(buf, size, text);
	if (o->file->arg == TFS_EVL_EVENT) {
		err = filter_set_event(o, (unsigned int)o->cpu, clear ? NULL : text, false);
	} else {
		for (unsigned int t = 0; t < n; t++)
			if (covers(o, t))
				filter_set_event(o, t, clear ? NULL : text, true);
	}
	free(text);
	tfs_evtree_apply();
	return err ? err : (ssize_t)size;
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

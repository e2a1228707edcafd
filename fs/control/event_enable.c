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
 * Filters and triggers come with their own issue items: the files exist, read as
 * the kernel's with none set (`none`; the triggers header with no trigger
 * available), take `0` (filter) or blank (trigger) as the kernel does when there
 * is nothing to clear, and refuse anything else with EINVAL, the kernel's errno
 * for a filter or trigger it cannot take (a filter also leaves an error_log line).
 */
#include <errno.h>
#include <string.h>

#include "event_defs.h"
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

static int filter_show(struct tfs_open *o)
{
	return tfs_buf_printf(&o->content, "none\n");
}

static ssize_t filter_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	char text[256];

	if (tfs_strip(buf, size, text, sizeof(text))) { /* long: the log shows its start */
		memcpy(text, buf, sizeof(text) - 1);
		text[sizeof(text) - 1] = '\0';
	}
	if (!strcmp(text, "0"))
		return (ssize_t)size; /* clears: there is nothing to clear */
	tfs_error_log(o->inst, "event filter parse error", "Event filters are not supported yet",
		      text, 0);
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

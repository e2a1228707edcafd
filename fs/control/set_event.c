// SPDX-License-Identifier: MIT
/*
 * set_event.c - available_events (top level) and set_event (every instance):
 * the trace events programs define, listed and enabled by name.
 *
 * A write to set_event is whitespace-separated tokens, each as the kernel takes
 * them: `SYSTEM:EVENT`, `SYSTEM:` or `SYSTEM:*` (the whole system), `*:EVENT`,
 * `*:*` or `:` (everything), or a bare word, which names an event or a system
 * (no glob: `*` alone matches nothing); a leading `!` disables instead.  A token
 * that matches no event is EINVAL.  utrace checks every token of the write before
 * it changes anything, so a bad write leaves the previous state whole (the kernel
 * takes one token per write(2) call).  Opening with O_TRUNC (`>`) disables every
 * event of the instance first, `>>` adds.  Reading lists the enabled events,
 * one `system:event` a line, in the order of available_events.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "event_defs.h"
#include "tfs.h"

/* The kernel's longest token (EVENT_BUF_SIZE); a longer one matches nothing. */
#define TOKEN_MAX 127

int tfs_set_event_parse(const char *tok, size_t len, struct tfs_set_event_tok *t)
{
	const char *colon;

	memset(t, 0, sizeof(*t));
	t->on = true;
	if (len && *tok == '!') {
		t->on = false;
		tok++;
		len--;
	}
	if (!len || len > TOKEN_MAX)
		return -EINVAL;
	colon = memchr(tok, ':', len);
	if (!colon) {
		if (len >= sizeof(t->word))
			return -EINVAL;
		memcpy(t->word, tok, len);
		return 0;
	}
	size_t sl = (size_t)(colon - tok), el = len - sl - 1;

	if (sl >= sizeof(t->sys) || el >= sizeof(t->event))
		return -EINVAL;
	memcpy(t->sys, tok, sl);
	memcpy(t->event, colon + 1, el);
	if (!strcmp(t->sys, "*"))
		t->sys[0] = '\0';
	if (!strcmp(t->event, "*"))
		t->event[0] = '\0';
	return 0;
}

bool tfs_set_event_match(const struct tfs_set_event_tok *t, const char *sys, const char *name)
{
	if (t->word[0])
		return !strcmp(t->word, sys) || !strcmp(t->word, name);
	return (!t->sys[0] || !strcmp(t->sys, sys)) && (!t->event[0] || !strcmp(t->event, name));
}

/*
 * Apply one token to inst (apply) or only count what it matches.  Returns the
 * number of events matched, or -EINVAL.
 */
static int set_token(struct tfs_instance *inst, const char *tok, size_t len, bool apply)
{
	struct tfs_set_event_tok t;
	struct tfs_evtree_ent e;
	int n = 0;

	if (tfs_set_event_parse(tok, len, &t))
		return -EINVAL;
	for (unsigned int i = 0; tfs_evtree_get(i, &e) == 0; i++)
		if (tfs_set_event_match(&t, e.system, e.name)) {
			if (apply)
				tfs_evtree_set(i, inst->slot, t.on);
			n++;
		}
	return n ? n : -EINVAL;
}

/* Each token of buf, through set_token: the first error, or 0. */
static int each_token(struct tfs_instance *inst, const char *buf, size_t size, bool apply)
{
	size_t i = 0;

	while (i < size) {
		size_t start;
		int n;

		while (i < size && (isspace((unsigned char)buf[i]) || !buf[i]))
			i++;
		start = i;
		while (i < size && !isspace((unsigned char)buf[i]) && buf[i])
			i++;
		if (i > start && (n = set_token(inst, buf + start, i - start, apply)) < 0)
			return n;
	}
	return 0;
}

static ssize_t set_event_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	int err = each_token(o->inst, buf, size, false);

	if (err)
		return err;
	/* the boot-time buffer takes its full size at the first write, as the kernel's */
	err = size ? tfs_buffer_expand(o->inst) : 0;
	if (err)
		return err;
	each_token(o->inst, buf, size, true);
	tfs_evtree_apply();
	return (ssize_t)size;
}

static int set_event_truncate(struct tfs_open *o)
{
	unsigned int n = tfs_evtree_nr();

	for (unsigned int i = 0; i < n; i++)
		tfs_evtree_set(i, o->inst->slot, false);
	tfs_evtree_apply();
	return 0;
}

static int list(struct tfs_open *o, bool enabled_only)
{
	struct tfs_evtree_ent e;
	int err = 0;

	for (unsigned int i = 0; !err && tfs_evtree_get(i, &e) == 0; i++)
		if (!enabled_only || tfs_evtree_enabled(i, o->inst->slot))
			err = tfs_buf_printf(&o->content, "%s:%s\n", e.system, e.name);
	return err;
}

static int set_event_show(struct tfs_open *o)
{
	return list(o, true);
}

static int available_events_show(struct tfs_open *o)
{
	return list(o, false);
}

const struct tfs_file_ops tfs_set_event_ops = {.show = set_event_show,
					       .write = set_event_write,
					       .truncate = set_event_truncate,
					       .seek = TFS_SEEK_SEQ};
const struct tfs_file_ops tfs_available_events_ops = {.show = available_events_show,
						      .seek = TFS_SEEK_SEQ};

// SPDX-License-Identifier: MIT
/*
 * event_tree.c - the events/ tree's view of the trace events programs define:
 * their systems and their system:name pairs, numbered, and the enable state of
 * each pair per instance slot.
 *
 * event_defs.c keys definitions by their bytes: two programs that define
 * ut_app:req with other fields have two ids.  The tree shows one directory
 * events/ut_app/req for both (as the kernel shows one per event), so a tree event
 * is a system:name with every definition that carries it; its format and id
 * files show its first definition.  The index only grows, as the definitions do
 * (never freed): it is brought up to date from the definitions on each use, and
 * its numbers (tfs_open.cpu of the files below events/SYSTEM/) stay valid.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "event_defs.h"

static pthread_mutex_t tree_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t nr_seen;		    /* definitions indexed */
static uint32_t tree_of[UT_EVT_MAX_DEFS];   /* each definition's tree event */
static struct tfs_evtree_ent tree[UT_EVT_MAX_DEFS];
static unsigned int nr_tree;
static struct {
	const char *name;
	unsigned int *events; /* its tree events in order (grown as they come) */
	unsigned int nr, cap;
} systems[UT_EVT_MAX_DEFS];
static unsigned int nr_systems;

/* Names that would shadow the files and directories events/ has of its own. */
static bool sys_hidden(const char *s)
{
	return !strcmp(s, "ftrace") || !strcmp(s, "enable") || !strcmp(s, "header_page") ||
	       !strcmp(s, "header_event");
}

static bool event_hidden(const char *s)
{
	return !strcmp(s, "enable") || !strcmp(s, "filter");
}

static void update_locked(void)
{
	uint32_t n = tfs_event_nr_defs();

	if (n < nr_seen) { /* tests forgot every definition (tfs_event_defs_reset) */
		for (unsigned int s = 0; s < nr_systems; s++)
			systems[s].nr = 0;
		nr_seen = nr_tree = nr_systems = 0;
	}
	for (; nr_seen < n; nr_seen++) {
		const struct tfs_event_def *d = tfs_event_def(UT_EVENT_ID_BASE + nr_seen);
		unsigned int s, t;

		if (!d)
			break; /* counted, not published yet: next time */
		for (s = 0; s < nr_systems && strcmp(systems[s].name, d->system); s++)
			;
		if (s == nr_systems)
			systems[nr_systems++].name = d->system;
		for (t = 0; t < nr_tree && (tree[t].sys != s || strcmp(tree[t].name, d->name)); t++)
			;
		if (t == nr_tree) {
			if (systems[s].nr == systems[s].cap) {
				unsigned int cap = systems[s].cap ? 2 * systems[s].cap : 8;
				unsigned int *ev = realloc(systems[s].events, cap * sizeof(*ev));

				if (!ev)
					break; /* no memory: the rest next time */
				systems[s].events = ev;
				systems[s].cap = cap;
			}
			systems[s].events[systems[s].nr++] = nr_tree;
			tree[nr_tree++] = (struct tfs_evtree_ent){d->system, d->name, d->id, s};
		}
		tree_of[nr_seen] = t;
	}
}

unsigned int tfs_evtree_nr(void)
{
	unsigned int n;

	pthread_mutex_lock(&tree_lock);
	update_locked();
	n = nr_tree;
	pthread_mutex_unlock(&tree_lock);
	return n;
}

int tfs_evtree_get(unsigned int t, struct tfs_evtree_ent *e)
{
	int err = -ENOENT;

	pthread_mutex_lock(&tree_lock);
	update_locked();
	if (t < nr_tree) {
		*e = tree[t];
		err = 0;
	}
	pthread_mutex_unlock(&tree_lock);
	return err;
}

const char *tfs_evtree_sys_name(unsigned int i)
{
	const char *name = NULL;

	pthread_mutex_lock(&tree_lock);
	update_locked();
	if (i < nr_systems)
		name = sys_hidden(systems[i].name) ? "" : systems[i].name;
	pthread_mutex_unlock(&tree_lock);
	return name;
}

const char *tfs_evtree_dir_entry(int sys, unsigned int i, int *index)
{
	const char *name = NULL;

	pthread_mutex_lock(&tree_lock);
	update_locked();
	if (sys >= 0 && (unsigned int)sys < nr_systems && i < systems[sys].nr) {
		unsigned int t = systems[sys].events[i];

		name = event_hidden(tree[t].name) ? "" : tree[t].name;
		*index = (int)t;
	}
	pthread_mutex_unlock(&tree_lock);
	return name;
}

void tfs_evtree_set(unsigned int t, unsigned int slot, bool on)
{
	pthread_mutex_lock(&tree_lock);
	update_locked();
	for (uint32_t i = 0; i < nr_seen; i++)
		if (tree_of[i] == t)
			tfs_event_enable(UT_EVENT_ID_BASE + i, slot, on);
	pthread_mutex_unlock(&tree_lock);
}

unsigned int tfs_evtree_defs(unsigned int t, uint32_t *ids, unsigned int max)
{
	unsigned int n = 0;

	pthread_mutex_lock(&tree_lock);
	update_locked();
	for (uint32_t i = 0; i < nr_seen && n < max; i++)
		if (tree_of[i] == t)
			ids[n++] = UT_EVENT_ID_BASE + i;
	pthread_mutex_unlock(&tree_lock);
	return n;
}

bool tfs_evtree_enabled(unsigned int t, unsigned int slot)
{
	struct tfs_evtree_ent e;

	return tfs_evtree_get(t, &e) == 0 && tfs_event_enabled(e.id, slot);
}

void tfs_evtree_apply(void)
{
	/* every process reads the masks of all slots at a new generation of the top's page */
	tfs_apply(&tfs_top);
}

/* SPDX-License-Identifier: MIT */
/*
 * event_defs.h - the trace events programs define, as utracefs knows them
 * (fs/event_defs.c; the protocol is common/ut_event.h).
 *
 * A definition is (system, name, fields, print format).  Each distinct one gets an
 * id from UT_EVENT_ID_BASE up when a process first announces it, and keeps it, and
 * its definition, for the mount's life, whether or not a process still defines
 * it.  Two programs that define system:name differently get two ids (each format
 * belongs to the objects that carry it).  Definitions are never freed: a pointer
 * from tfs_event_def() stays valid.
 */
#ifndef TFS_EVENT_DEFS_H
#define TFS_EVENT_DEFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "tfs.h"
#include "ut_event.h"

struct tfs_event_field {
	char type[UT_EVENT_TYPE_MAX];
	char name[UT_EVENT_TYPE_MAX];
	uint16_t offset, size, elem_size;
	uint8_t is_signed, kind; /* enum ut_event_kind */
};

struct tfs_event_def {
	uint32_t id;
	uint64_t fp;
	char system[UT_EVENT_NAME_MAX];
	char name[UT_EVENT_NAME_MAX];
	uint32_t size; /* the record's fixed part */
	uint32_t nr_fields;
	struct tfs_event_field fields[UT_EVENT_FIELDS_MAX];
	char print_fmt[UT_EVENT_FMT_MAX]; /* as the kernel shows it: REC-> for __entry-> */
	/*
	 * print_fmt parsed once, when the definition is entered (fs/output/print_fmt.c):
	 * NULL when it was not understood (pfmt_why says why), and then the event's
	 * lines show its fields (tfs_event_print).
	 */
	struct tfs_pfmt *pfmt;
	const char *pfmt_why;
};

/*
 * Check an announcement (a whole UT_MSG_EVENT packet of n bytes) and fill def
 * (id 0).  0, or -EINVAL with *why saying what is wrong.
 */
int tfs_event_def_parse(const void *msg, size_t n, struct tfs_event_def *def, const char **why);

/*
 * A process announced an event: checked, then entered (a new id) or found.
 * Refused (bad, or no room left): one line on the console, -EINVAL; the
 * connection and everything else go on.  Returns 1 when the event is enabled
 * somewhere (the process must look its id up: a new generation is due), 0 when
 * not, <0 refused.
 */
int tfs_event_announce(pid_t pid, const void *msg, size_t n);

/* The definition with this id, or NULL. */
const struct tfs_event_def *tfs_event_def(uint32_t id);
/* Definitions known (ids UT_EVENT_ID_BASE .. + n - 1). */
uint32_t tfs_event_nr_defs(void);

/*
 * Enable (on) or disable the event `id` for instance slot `slot` (0: the top
 * level; < UT_EVT_INSTANCE_SLOTS) in the events memfd.  The caller then applies
 * (tfs_apply: a new generation) so that processes switch their keys.  0, -ENOENT
 * (no such id), -EINVAL (bad slot).
 */
int tfs_event_enable(uint32_t id, unsigned int slot, bool on);
/* Whether slot has the event enabled. */
bool tfs_event_enabled(uint32_t id, unsigned int slot);

/* Disable every event for instance slot (its rmdir): the caller applies. */
void tfs_event_slot_clear(unsigned int slot);

struct tfs_flt_field;
struct ut_evf_prog;
/*
 * The filter of definition id in instance slot: text (what the filter file shows)
 * and prog (NULL: none applies), both taken (freed on failure), published to the
 * processes at once (the caller then applies the top); -ENOSPC when the filter
 * area is full (the filter as it was).
 */
int tfs_event_filter_set(uint32_t id, unsigned int slot, char *text, struct ut_evf_prog *prog);
/* Its text, malloc'ed; NULL: none. */
char *tfs_event_filter_text(uint32_t id, unsigned int slot);
/* The fields a filter of definition id may name (common ones first), names kept in
 * names; returns how many, or -ENOENT. */
int tfs_event_fields(uint32_t id, struct tfs_flt_field *out, char (*names)[UT_EVENT_TYPE_MAX],
		     unsigned int max);

/*
 * The events/ tree's view (event_tree.c): definitions grouped by name.  A tree
 * event is one system:name, whatever number of definitions (ids) carry it;
 * tree events and systems are numbered from 0 in the order they first appeared
 * and keep their numbers for the mount's life.  Enabling a tree event enables
 * all its definitions, and one announced later inherits the state of the others
 * (tfs_event_announce).
 */
struct tfs_evtree_ent {
	const char *system, *name;
	uint32_t id; /* its first definition: the one its format and id files show */
	unsigned int sys; /* its system's number */
};
/* The level of an enable file (its tfs_file.arg). */
enum { TFS_EVL_ALL, TFS_EVL_SYSTEM, TFS_EVL_EVENT };

/* Tree events known (brought up to date with the definitions). */
unsigned int tfs_evtree_nr(void);
/* Tree event t: 0, or -ENOENT past the last. */
int tfs_evtree_get(unsigned int t, struct tfs_evtree_ent *e);
/* events/ listing: system i's name ("" hidden: it would shadow a file), NULL past the last. */
const char *tfs_evtree_sys_name(unsigned int i);
/* events/SYSTEM/ listing: the i-th event of system sys, *index its tree number. */
const char *tfs_evtree_dir_entry(int sys, unsigned int i, int *index);
/* Enable or disable every definition of tree event t in slot. */
/* The definition ids of tree event t (its first first), at most max; how many. */
unsigned int tfs_evtree_defs(unsigned int t, uint32_t *ids, unsigned int max);
void tfs_evtree_set(unsigned int t, unsigned int slot, bool on);
/* Whether tree event t is enabled in slot. */
bool tfs_evtree_enabled(unsigned int t, unsigned int slot);
/* After changes: every process takes the new masks (waits for them, tfs_apply). */
void tfs_evtree_apply(void);

/* One token of a set_event write (set_event.c): `[!]SYSTEM:EVENT` or `[!]WORD`. */
struct tfs_set_event_tok {
	bool on;			/* false: `!` */
	char word[UT_EVENT_NAME_MAX];	/* a bare word: an event or a system; "" when a colon */
	char sys[UT_EVENT_NAME_MAX];	/* "" for any (`*` or empty) */
	char event[UT_EVENT_NAME_MAX];	/* "" for any */
};
/* Parse a token (len bytes, no whitespace): 0 or -EINVAL (empty, too long). */
int tfs_set_event_parse(const char *tok, size_t len, struct tfs_set_event_tok *t);
/* Whether the token names the event sys:name. */
bool tfs_set_event_match(const struct tfs_set_event_tok *t, const char *sys, const char *name);

/* The events memfd: create it (once); a read-only descriptor for WELCOME. */
int tfs_event_defs_init(void);
int tfs_event_defs_fd_ro(void);
/* Tests: forget every definition and enable bit (the memfd stays). */
void tfs_event_defs_reset(void);

/*
 * Test hook: UTRACEFS_TEST_EVENTS="SYSTEM:EVENT[,...]" (`*` matches any system or
 * event) enables matching events in slot 0 as they are announced (for the
 * tests of the events themselves; users have set_event and the enable files).
 * Read once by tfs_event_defs_init.
 */
void tfs_event_test_hook(const char *spec);

/* The reader (ring_read.c): is this UT_EV_EVENT event sound?  Its length or -1. */
int tfs_event_check(const struct ut_ev *ev, unsigned int len);
/*
 * The fallback text of a record whose print format cannot be rendered:
 * "name: field=value ...\n" (fs/output/event.c shows the format otherwise).
 */
void tfs_event_print(struct tfs_buf *b, const struct ut_ev *ev);

#endif

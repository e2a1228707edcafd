/* SPDX-License-Identifier: MIT */
/*
 * selread.h - reading this process's section of the selection memfd (ut_sel.h).
 *
 * Kept apart from rt.h so that tests/unit can include selread.c alone.
 */
#ifndef UT_SELREAD_H
#define UT_SELREAD_H

#include <stddef.h>
#include <stdint.h>

#include "ut_sel.h"

/* A private copy of one process's section; flags_off of objs[] index flags[]. */
struct ut_sel_copy {
	struct ut_sel_hdr hdr;
	int found;		  /* the process has a section */
	uint32_t nr_objs, max_objs;
	struct ut_sel_obj *objs;  /* room for max_objs */
	uint8_t *flags;		  /* room for flags_cap bytes */
	uint64_t flags_cap, flags_len;
	uint32_t tasks;		  /* enum ut_sel_tasks of the section (ALL without one) */
	uint32_t nr_tids;
	int32_t tids[UT_SEL_TIDS_MAX]; /* sorted */
	uint32_t nr_probes, max_probes;
	struct ut_sel_probe *probes; /* room for max_probes */
	/*
	 * The instances the process's function events go to (ut_sel_inst): flags_off
	 * indexes iflags (flags_len bytes each, the sites in the order of flags[]),
	 * tids_off indexes itids (UT_SEL_TIDS_MAX apart: entry k's at k * that).
	 */
	uint32_t nr_insts;
	struct ut_sel_inst insts[UT_INST_MAX - 1];
	uint8_t *iflags; /* room for iflags_cap bytes */
	uint64_t iflags_cap;
	int32_t *itids; /* room for (UT_INST_MAX - 1) * UT_SEL_TIDS_MAX */
	/*
	 * The event pid lists (ut_sel_evpid): tids_off indexes etids, entry k's at
	 * k * UT_SEL_TIDS_MAX; ev_serial as the section says.
	 */
	uint32_t nr_evpids;
	uint32_t ev_serial;
	struct ut_sel_evpid evpids[UT_INST_MAX];
	int32_t *etids; /* room for UT_INST_MAX * UT_SEL_TIDS_MAX */
};

/*
 * Copy pid's section out of the mapping m of `mapped` bytes into c.  Returns 0 for
 * a consistent copy, -EAGAIN when utracefs was writing meanwhile (read again),
 * -ERANGE when the content is larger than the mapping (map more, read again),
 * -ENOSPC when c is too small (c->nr_objs, c->flags_len, c->nr_probes and
 * c->nr_insts * c->flags_len for iflags say how much is needed; etids missing), -EINVAL when the content is not a selection memfd or is malformed.
 */
int ut_sel_read(const void *m, size_t mapped, int32_t pid, struct ut_sel_copy *c);

#endif

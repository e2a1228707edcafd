// SPDX-License-Identifier: MIT
/*
 * objects.c - every object the dynamic loader mapped, told to utracefs
 * (UT_MSG_OBJECT, ut_wire.h).
 *
 * utracefs names an address from the file mapped there when the event was
 * written.  The objects with patch sites tell it so themselves (UT_MSG_SITES);
 * the others (libc, the loader, any library built without the flags) it could
 * only learn from /proc/PID/maps, and a slow utracefs may read that after the
 * process has exited, when it shows nothing: their frames would stay raw
 * addresses.  So every object is announced, with its load bias, its real path,
 * its inode and the TSC, at attach (fresh) and after every change of the
 * loader's list (dl_changed, interpose.c): the new ones as loaded, the ones no
 * longer listed as unloaded.
 *
 * The cost is paid once per object: a realpath() and a stat() when it first
 * appears, one small packet each way; a pass over objects already announced is
 * one walk of the loader's list.  Nothing here runs on a hot path; it runs with
 * ut_rt_lock held, which also keeps the objects listed from being unloaded
 * meanwhile (dlclose takes it), so their names stay valid through a pass.
 */
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt.h"
#include "ut_wire.h"

#define UT_MAX_MAPPED 1024u

static struct mapped {
	uintptr_t base;
	uint64_t hash; /* of the loader's name for it */
	const char *name; /* the loader's, valid while it is listed (this pass only) */
	uint8_t used, seen, sent;
} mapped[UT_MAX_MAPPED];

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int list_one(struct dl_phdr_info *info, size_t size, void *data)
{
	int *first = data;
	const char *name = info->dlpi_name;
	struct mapped *free_slot = NULL;
	uint64_t h;
	int exec = 0;

	if (*first && (!name || !*name))
		name = ut_exe_path();
	*first = 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		exec |= info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X);
	/* no slash: no file (the vdso), or not one to look for in the current directory */
	if (!name || !strchr(name, '/') || !exec)
		return 0;
	h = name_hash(name);
	for (unsigned int i = 0; i < UT_MAX_MAPPED; i++) {
		struct mapped *m = &mapped[i];

		if (m->used && m->base == info->dlpi_addr && m->hash == h) {
			m->seen = 1;
			m->name = name;
			return 0;
		}
		if (!m->used && !free_slot)
			free_slot = m;
	}
	if (free_slot)
		*free_slot = (struct mapped){
		    .base = info->dlpi_addr, .hash = h, .name = name, .used = 1, .seen = 1};
	return 0;
}

/* Announce m as loaded (its real path and inode) or unloaded; 0 when sent. */
static int send_one(const struct mapped *m, int loaded)
{
	struct ut_msg_object o = {.h = {UT_MSG_OBJECT, sizeof(o)}, .loaded = (uint32_t)loaded,
				  .base = m->base};
	char real[PATH_MAX]; /* realpath() writes up to PATH_MAX bytes */
	struct stat st;

	if (loaded) {
		/* gone from its path, or not a file: nothing to announce */
		if (!realpath(m->name, real) || stat(real, &st) || !S_ISREG(st.st_mode))
			return 0;
		if ((size_t)snprintf(o.path, sizeof(o.path), "%s", real) >= sizeof(o.path))
			return 0; /* a cut path would name another file */
		o.ino = (uint64_t)st.st_ino;
	}
	o.tsc = __builtin_ia32_rdtsc(); /* after the (un)mapping, before a new object's code */
	return ut_send_wait(&o, sizeof(o));
}

void ut_objects_announce(int fresh)
{
	int first = 1;

	pthread_mutex_lock(&ut_rt_lock);
	for (unsigned int i = 0; i < UT_MAX_MAPPED; i++) {
		mapped[i].seen = 0;
		if (fresh)
			mapped[i].sent = 0;
	}
	dl_iterate_phdr(list_one, &first);
	for (unsigned int i = 0; i < UT_MAX_MAPPED; i++) {
		struct mapped *m = &mapped[i];

		if (!m->used)
			continue;
		if (!m->seen) {
			if (m->sent)
				send_one(m, 0);
			ut_printk_fmt_forget(); /* its addresses may come back with other texts */
			m->used = 0;
		} else if (!m->sent) {
			m->sent = send_one(m, 1) == 0;
		}
		m->name = NULL;
	}
	pthread_mutex_unlock(&ut_rt_lock);
}

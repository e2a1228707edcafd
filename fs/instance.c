// SPDX-License-Identifier: MIT
/*
 * instance.c - the tracing instances (the kernel's trace_array) and the
 * instances/ directory.
 *
 * An instance is everything a tracing session owns (struct tfs_instance, tfs.h):
 * its rings, tracer, options, clock, buffer sizes, cpumask, consumers and
 * error_log.  The top level is instance 0, tfs_top; `mkdir instances/NAME` makes
 * another in a free slot (1 .. UT_INST_MAX - 1) with the settings a kernel
 * instance starts with, `rmdir` removes it.  The instance objects live in a
 * static table and are reused, never freed: a path looked up just before an
 * rmdir still points at a valid object, whose generation tells it went.
 *
 * Every open file holds a reference on its instance (tfs_inst_get at open,
 * tfs_inst_put at release); rmdir gives EBUSY while any is held, as the kernel
 * does.  FUSE sends a file's release after close(2) has returned, so rmdir waits
 * a little (TFS_RELEASE_WAIT_MS) for references that are on their way out before it
 * answers EBUSY.  Removal: the name is unlisted first (no new open finds it),
 * then the writers are stopped (enabled = 0 and the CPU barrier) and the span's
 * memory punched out (tfs_area_inst_release), then the consumers and the log
 * are freed and the slot is free again.
 *
 * Errors, as the kernel gives them: an existing name EEXIST; more than 255 bytes
 * ENAMETOOLONG; no free slot ENOMEM (the kernel's answer when it cannot allocate
 * one more); rmdir of a name that is not there ENOENT.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "core.h"
#include "functab.h"
#include "ring_read.h"
#include "settings.h"
#include "event_defs.h"
#include "tfs.h"

#define NAME_MAX_LEN 255

struct tfs_instance tfs_top;

static pthread_mutex_t inst_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t inst_cond = PTHREAD_COND_INITIALIZER; /* a reference was dropped */
static struct tfs_instance inst_mem[UT_INST_MAX]; /* [0] unused: the top is tfs_top */
static bool live[UT_INST_MAX];			  /* the slot is taken */
static uint64_t gens[UT_INST_MAX];		  /* bumped at every mkdir of the slot */

void tfs_inst_defaults(struct tfs_instance *inst, bool top)
{
	inst->tracer = tfs_tracer_find("nop");
	inst->tracing_on = true;
	tfs_opts_init(inst, top);
	inst->clock = TFS_CLOCK_LOCAL;
	/*
	 * The top boots as the kernel does: a minimal buffer, shown "7 (expanded:
	 * 1408)", grown to 1410 KB per CPU on first use (tfs_buffer_expand).  A
	 * new instance gets its full size at once, as the kernel's.
	 */
	for (unsigned int cpu = 0; cpu < UT_RB_MAX_CPUS; cpu++)
		inst->nr_kpages[cpu] =
		    top ? TFS_BOOT_KPAGES : tfs_kb_to_kpages(TFS_TRACE_BUF_SIZE >> 10);
	inst->buffer_expanded = !top;
	memset(inst->cpumask, 0, sizeof(inst->cpumask));
	for (unsigned int cpu = 0; cpu < tfs.nr_cpus; cpu++)
		inst->cpumask[cpu / 64] |= 1ull << (cpu % 64);
	inst->trace_pipe_readers = 0;
	inst->rr_time_start = 0;
	inst->max_latency = 0;
	if (top) {
		inst->slot = 0;
		inst->name[0] = '\0';
	}
}

struct tfs_instance *tfs_inst_of_slot(unsigned int slot)
{
	if (slot >= UT_INST_MAX)
		return NULL;
	return slot ? &inst_mem[slot] : &tfs_top;
}

/* The live instance called name; inst_lock held.  0 when none. */
static unsigned int find_locked(const char *name, size_t len)
{
	for (unsigned int i = 1; i < UT_INST_MAX; i++)
		if (live[i] && !inst_mem[i].dying && strlen(inst_mem[i].name) == len &&
		    memcmp(inst_mem[i].name, name, len) == 0)
			return i;
	return 0;
}

int tfs_inst_lookup(const char *name, size_t len, struct tfs_inst_ref *ref)
{
	unsigned int slot;

	pthread_mutex_lock(&inst_lock);
	slot = find_locked(name, len);
	if (slot) {
		ref->inst = &inst_mem[slot];
		ref->gen = gens[slot];
	}
	pthread_mutex_unlock(&inst_lock);
	return slot ? 0 : -ENOENT;
}

int tfs_inst_get(const struct tfs_inst_ref *ref)
{
	struct tfs_instance *inst = ref->inst;
	int err = 0;

	if (!inst || inst == &tfs_top)
		return 0;
	pthread_mutex_lock(&inst_lock);
	if (!live[inst->slot] || inst->dying || gens[inst->slot] != ref->gen)
		err = -ENOENT; /* removed between the lookup and the open */
	else
		inst->refs++;
	pthread_mutex_unlock(&inst_lock);
	return err;
}

struct tfs_instance *tfs_inst_hold(unsigned int slot)
{
	struct tfs_inst_ref ref = {NULL, 0};

	if (slot >= UT_INST_MAX)
		return NULL;
	if (!slot)
		return &tfs_top;
	pthread_mutex_lock(&inst_lock);
	ref.inst = &inst_mem[slot];
	ref.gen = gens[slot];
	pthread_mutex_unlock(&inst_lock);
	return tfs_inst_get(&ref) ? NULL : ref.inst;
}

void tfs_inst_put(struct tfs_instance *inst)
{
	if (!inst || inst == &tfs_top)
		return;
	pthread_mutex_lock(&inst_lock);
	if (inst->refs)
		inst->refs--;
	pthread_cond_broadcast(&inst_cond);
	pthread_mutex_unlock(&inst_lock);
}

const struct tfs_instance *tfs_inst_slot(unsigned int slot)
{
	bool taken;

	if (slot == 0)
		return &tfs_top;
	if (slot >= UT_INST_MAX)
		return NULL;
	pthread_mutex_lock(&inst_lock);
	taken = live[slot] && !inst_mem[slot].dying;
	pthread_mutex_unlock(&inst_lock);
	return taken ? &inst_mem[slot] : NULL;
}

const char *tfs_inst_dir_name(unsigned int i)
{
	static __thread char name[NAME_MAX_LEN + 1]; /* a slot may be renamed after we let go */
	bool found = false;

	pthread_mutex_lock(&inst_lock);
	for (unsigned int s = 1; s < UT_INST_MAX && !found; s++)
		if (live[s] && !inst_mem[s].dying && i-- == 0) {
			memcpy(name, inst_mem[s].name, sizeof(name));
			found = true;
		}
	pthread_mutex_unlock(&inst_lock);
	return found ? name : NULL;
}

int tfs_inst_mkdir(const char *name, size_t len)
{
	struct tfs_instance *inst;
	unsigned int slot = 0;

	if (len > NAME_MAX_LEN)
		return -ENAMETOOLONG;
	if (!len || memchr(name, '/', len))
		return -EINVAL; /* cannot reach us through the VFS */
	pthread_mutex_lock(&inst_lock);
	if (find_locked(name, len)) {
		pthread_mutex_unlock(&inst_lock);
		return -EEXIST;
	}
	for (unsigned int i = 1; i < UT_INST_MAX && !slot; i++)
		if (!live[i])
			slot = i;
	if (!slot) {
		pthread_mutex_unlock(&inst_lock);
		return -ENOMEM;
	}
	inst = &inst_mem[slot];
	/* taken, not listed yet: dying until its span is ready */
	inst->slot = slot;
	inst->dying = true;
	inst->refs = 0;
	live[slot] = true;
	gens[slot]++;
	memcpy(inst->name, name, len);
	inst->name[len] = '\0';
	pthread_mutex_unlock(&inst_lock);

	tfs_lock();
	tfs_inst_defaults(inst, false);
	tfs_unlock();
	tfs_area_inst_init(inst);
	tfs_apply(inst); /* its control page says what its settings are */

	pthread_mutex_lock(&inst_lock);
	inst->dying = false;
	pthread_mutex_unlock(&inst_lock);
	return 0;
}

int tfs_inst_rmdir(const char *name, size_t len)
{
	struct timespec end = tfs_deadline(CLOCK_REALTIME, TFS_RELEASE_WAIT_MS);
	struct tfs_instance *inst;
	unsigned int slot;

	pthread_mutex_lock(&inst_lock);
	slot = find_locked(name, len);
	if (!slot) {
		pthread_mutex_unlock(&inst_lock);
		return -ENOENT;
	}
	inst = &inst_mem[slot];
	/* releases of files closed just before are on their way (FUSE sends them late) */
	while (inst->refs && live[slot] && !inst->dying &&
	       pthread_cond_timedwait(&inst_cond, &inst_lock, &end) == 0)
		;
	if (!live[slot] || inst->dying) {
		pthread_mutex_unlock(&inst_lock);
		return -ENOENT; /* another rmdir took it meanwhile */
	}
	if (inst->refs) {
		pthread_mutex_unlock(&inst_lock);
		return -EBUSY;
	}
	inst->dying = true; /* unlisted: no new open finds it */
	pthread_mutex_unlock(&inst_lock);

	/* processes stop writing its events before its span goes */
	tfs_event_slot_clear(slot);
	tfs_evtree_apply();

	/*
	 * processes stop routing function events here and acting on its function
	 * probes (sel.c skips a dying slot; its probes go with it, as the kernel's
	 * go with the trace array) first; a function_graph frame entered here finds
	 * the slot gone at its return (route.c)
	 */
	bool had_probes = tfs_probes_inst_drop(slot);

	if (had_probes || tfs_tracer_routed(__atomic_load_n(&inst->tracer, __ATOMIC_ACQUIRE)))
		tfs_sel_publish_apply(&tfs_top);

	/* trace_printk() output it took goes back to the top, before its span goes */
	tfs_lock();
	bool had_printk = tfs.printk_slot == slot;

	if (had_printk)
		tfs_printk_dest_locked(0);
	tfs_unlock();
	if (had_printk)
		tfs_apply(&tfs_top);

	/* a tracer's own threads (hwlat, osnoise) stop writing here, as the kernel sets nop */
	const struct tracer *t = __atomic_load_n(&inst->tracer, __ATOMIC_ACQUIRE);

	if (t && t->reset)
		t->reset(inst);

	tfs_area_inst_release(inst);
	tfs_rr_free(inst);
	tfs_error_log_free(inst);
	if (tfs_pid_inst_clear(inst))
		tfs_sel_publish_all(); /* a slot taken again starts with no event pid lists */
	tfs_ft_inst_clear(inst);
	tfs_ring_kick(); /* nobody waits on it (no open file), but pollers recheck */

	pthread_mutex_lock(&inst_lock);
	live[slot] = false;
	pthread_mutex_unlock(&inst_lock);
	return 0;
}

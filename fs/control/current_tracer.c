// SPDX-License-Identifier: MIT
/*
 * current_tracer.c - available_tracers and current_tracer.
 *
 * Switching tracers follows the kernel's order: the old tracer is reset and nop
 * becomes current while the switch is in progress; processes are told to stop
 * the old tracer (and acknowledge) before the rings are cleared, so that no event
 * of the old tracer lands in the cleared buffer; then the new tracer is
 * initialised and published, and the write returns after every process
 * acknowledged it.  Each tracer keeps its own option values across switches (as
 * the kernel keeps them in the tracer): options.c holds them.
 *
 * Each instance has its own tracer.  An instance takes nop, function and
 * function_graph (the selection memfd routes their events to it: sel.c) and
 * the tracers utracefs runs itself (allow_instances: hwlat, osnoise,
 * timerlat, whose own rules may still refuse with EBUSY); the other latency
 * tracers give EBUSY there and change nothing (documented in
 * docs/user-guide.md).  An instance's tracer changes what processes patch, so
 * processes are told through the top's control page (tfs_sel_publish_apply).
 */
#include <errno.h>
#include <string.h>

#include "core.h"
#include "functab.h"
#include "tfs.h"

#define TFS_MAX_TRACER_SIZE 100 /* the kernel reads at most this much of a write */
static pthread_mutex_t switch_lock = PTHREAD_MUTEX_INITIALIZER;

/* Make t current in inst, with its own option values (kept by options.c); tfs.lock held. */
static void make_current_locked(struct tfs_instance *inst, const struct tracer *t)
{
	__atomic_store_n(&inst->tracer, t, __ATOMIC_RELEASE);
	inst->tracer_opts = tfs_tracer_opts_of(inst, t);
}

/* Publish inst's tracer; an instance's also changes the routes (sel.c). */
static void apply_tracer(struct tfs_instance *inst)
{
	tfs_apply(inst);
	if (inst != &tfs_top) {
		tfs_sel_publish();
		tfs_apply(&tfs_top);
	}
}

int tfs_set_tracer(struct tfs_instance *inst, const struct tracer *t)
{
	const struct tracer *old, *nop = tfs_tracer_find("nop");
	int err = 0;

	pthread_mutex_lock(&switch_lock);
	tfs_lock();
	old = inst->tracer;
	if (t == old) {
		tfs_unlock();
		goto out;
	}
	if (inst != &tfs_top && t && t->id != UT_TRACER_NOP && !tfs_tracer_routed(t) &&
	    !t->allow_instances) {
		tfs_unlock();
		err = -EBUSY; /* the runtime routes function and graph events only to instances */
		goto out;
	}
	if (tfs_trace_pipe_busy_locked(inst)) {
		tfs_unlock();
		err = -EBUSY;
		goto out;
	}
	tfs_unlock();

	if (old && old->reset)
		old->reset(inst);
	tfs_lock();
	make_current_locked(inst, nop);
	tfs_unlock();
	if (old && old->id != UT_TRACER_NOP)
		apply_tracer(inst); /* processes stop writing the old tracer's events */

	tfs_ring_reset(inst, -1);
	tfs_lock();
	make_current_locked(inst, t);
	tfs_unlock();
	if (t && t->init) {
		err = t->init(inst);
		if (err) {
			tfs_lock();
			make_current_locked(inst, nop);
			tfs_unlock();
		}
	}
	apply_tracer(inst);
out:
	pthread_mutex_unlock(&switch_lock);
	return err;
}

/* ---- available_tracers ------------------------------------------------------------- */

static int available_show(struct tfs_open *o)
{
	/* tfs_tracers[] is in the kernel's listing order (latest registered first) */
	for (unsigned int i = 0; tfs_tracers[i]; i++) {
		int err = tfs_buf_printf(&o->content, "%s%c", tfs_tracers[i]->name,
					 tfs_tracers[i + 1] ? ' ' : '\n');

		if (err < 0)
			return err;
	}
	return 0;
}

const struct tfs_file_ops tfs_available_tracers_ops = {
    .show = available_show,
    .seek = TFS_SEEK_SEQ,
};

/* ---- current_tracer ----------------------------------------------------------------- */

static int current_show(struct tfs_open *o)
{
	const struct tracer *t;
	int err;

	tfs_lock();
	t = o->inst->tracer;
	err = tfs_buf_printf(&o->content, "%s\n", t ? t->name : "nop");
	tfs_unlock();
	return err < 0 ? err : 0;
}

static ssize_t current_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	char name[TFS_MAX_TRACER_SIZE + 1];
	const struct tracer *t;
	int err;

	err = tfs_strip(buf, size > TFS_MAX_TRACER_SIZE ? TFS_MAX_TRACER_SIZE : size, name,
			sizeof(name));
	if (err)
		return err;
	/* the kernel grows a boot-sized buffer on any tracer write, before the lookup */
	err = tfs_buffer_expand(o->inst);
	if (err < 0)
		return err;
	t = tfs_tracer_find(name);
	if (!t)
		return -EINVAL;
	err = tfs_set_tracer(o->inst, t);
	return err ? err : (ssize_t)size;
}

const struct tfs_file_ops tfs_current_tracer_ops = {
    .show = current_show,
    .write = current_write,
};

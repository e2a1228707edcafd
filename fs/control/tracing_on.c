// SPDX-License-Identifier: MIT
/*
 * tracing_on.c - the tracing_on file: "1" or "0"; any non-zero number writes as 1.
 * A write of the current value does nothing; a change is applied to every
 * process before the write returns.
 */
#include <errno.h>

#include "tfs.h"

static int tracing_on_show(struct tfs_open *o)
{
	bool on;

	tfs_lock();
	on = o->inst->tracing_on;
	tfs_unlock();
	return tfs_buf_printf(&o->content, "%d\n", on) < 0 ? -ENOMEM : 0;
}

static ssize_t tracing_on_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	unsigned long val;
	bool changed;
	int err = tfs_parse_ulong(buf, size, &val);

	if (err)
		return err;
	tfs_lock();
	changed = o->inst->tracing_on != (val != 0);
	o->inst->tracing_on = val != 0;
	tfs_unlock();
	if (changed)
		tfs_apply(o->inst);
	if (changed) {
		/* a tracer with threads of its own starts or stops them, as the kernel's */
		const struct tracer *t = __atomic_load_n(&o->inst->tracer, __ATOMIC_ACQUIRE);

		if (val && t && t->start)
			t->start(o->inst);
		else if (!val && t && t->stop)
			t->stop(o->inst);
	}
	return (ssize_t)size;
}

const struct tfs_file_ops tfs_tracing_on_ops = {
    .show = tracing_on_show,
    .write = tracing_on_write,
};

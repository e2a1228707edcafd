// SPDX-License-Identifier: MIT
/*
 * trace_clock.c - the trace_clock file: which clock time stamps are shown in.
 *
 * It reads as the kernel's:
 *   [local] global counter uptime perf mono mono_raw boot tai x86-tsc
 * A write names one clock; like the kernel it takes at most 63 bytes, strips
 * surrounding whitespace, answers EINVAL for an unknown name, and clears the
 * buffer (and the snapshot, if allocated) on every successful write, even of the
 * clock already selected (time stamps of different clocks must not mix).  The conversions are in clock.c.
 */
#include <errno.h>

#include "settings.h"
#include "tfs.h"

#define CLOCK_WRITE_MAX 64 /* the kernel's buffer, NUL included */

static int trace_clock_show(struct tfs_open *o)
{
	return tfs_clock_format(__atomic_load_n(&o->inst->clock, __ATOMIC_RELAXED), &o->content);
}

static ssize_t trace_clock_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	char name[CLOCK_WRITE_MAX];
	int c, err;

	if (size >= CLOCK_WRITE_MAX || tfs_strip(buf, size, name, sizeof(name)) < 0)
		return -EINVAL;
	c = tfs_clock_find(name);
	if (c < 0)
		return -EINVAL;
	/* events hold raw TSC values: the reset may come first, and a refused one changes nothing */
	err = tfs_ring_reset(o->inst, -1);
	if (err)
		return err;
	tfs_spare_clear(o->inst, -1); /* the kernel clears the snapshot too */
	tfs_lock();
	__atomic_store_n(&o->inst->clock, (enum tfs_clock)c, __ATOMIC_RELAXED);
	tfs_unlock();
	return (ssize_t)size;
}

const struct tfs_file_ops tfs_trace_clock_ops = {
	.show = trace_clock_show,
	.write = trace_clock_write,
	.seek = TFS_SEEK_SEQ,
};

// SPDX-License-Identifier: MIT
/*
 * min_max.c - the kernel's trace_min_max files: one unsigned 64-bit number,
 * read back as "%llu\n", bounded by another file's number (hwlat_detector/width
 * <= window, osnoise/runtime_us <= period_us) or by constants
 * (timerlat_period_us: 100 to 1000000).  A write takes what kstrtoull takes;
 * a value out of bounds is EINVAL and changes nothing.  tfs_file.arg points at
 * the struct tfs_min_max (tracers/sampling.h).
 */
#include <errno.h>
#include <stdio.h>

#include "../tracers/sampling.h"

static const struct tfs_min_max *param_of(const struct tfs_open *o)
{
	return (const struct tfs_min_max *)o->file->arg;
}

uint64_t tfs_min_max_get(const struct tfs_min_max *p)
{
	uint64_t v;

	pthread_mutex_lock(p->lock);
	v = *p->val;
	pthread_mutex_unlock(p->lock);
	return v;
}

static int min_max_show(struct tfs_open *o)
{
	unsigned long long v = tfs_min_max_get(param_of(o));

	return tfs_buf_printf(&o->content, "%llu\n", v) < 0 ? -ENOMEM : 0;
}

static ssize_t min_max_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	const struct tfs_min_max *p = param_of(o);
	unsigned long v;
	int err = tfs_parse_ulong(buf, size, &v);

	if (err)
		return err;
	pthread_mutex_lock(p->lock);
	if ((p->min && v < *p->min) || (p->max && v > *p->max))
		err = -EINVAL;
	else
		__atomic_store_n(p->val, (uint64_t)v, __ATOMIC_RELAXED);
	pthread_mutex_unlock(p->lock);
	return err ? err : (ssize_t)size;
}

const struct tfs_file_ops tfs_min_max_ops = {
	.show = min_max_show,
	.write = min_max_write,
};

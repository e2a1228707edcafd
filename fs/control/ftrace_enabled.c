// SPDX-License-Identifier: MIT
/*
 * ftrace_enabled.c - the ftrace_enabled file at the root of the mount, the
 * kernel's /proc/sys/kernel/ftrace_enabled: "1" or "0", anything else is EINVAL
 * (proc_dointvec_minmax over 0..1).  0 turns function tracing off everywhere:
 * every process unpatches every site (they go back to 5-byte NOPs), whatever the
 * tracer and the filters say; 1 patches again what they select.  A change is
 * applied in every process before the write returns.
 */
#include <errno.h>

#include "tfs.h"

static int enabled_show(struct tfs_open *o)
{
	bool on;

	tfs_lock();
	on = tfs.ftrace_enabled;
	tfs_unlock();
	return tfs_buf_printf(&o->content, "%d\n", on) < 0 ? -ENOMEM : 0;
}

static ssize_t enabled_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	unsigned long val;
	bool changed;
	int err = tfs_parse_ulong(buf, size, &val);

	if (err)
		return err;
	if (val > 1)
		return -EINVAL;
	tfs_lock();
	changed = tfs.ftrace_enabled != (val != 0);
	tfs.ftrace_enabled = val != 0;
	tfs_unlock();
	if (changed)
		tfs_apply(&tfs_top);
	return (ssize_t)size;
}

const struct tfs_file_ops tfs_ftrace_enabled_ops = {
    .show = enabled_show,
    .write = enabled_write,
};

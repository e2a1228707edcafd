// SPDX-License-Identifier: MIT
/*
 * kallsyms.c - the kallsyms file at the root of the mount, the kernel's
 * /proc/kallsyms for the addresses trace_pipe_raw and snapshot_raw write: every
 * function of every object file utracefs has cached, at its flat address
 * (sym.c, tfs_sym_flat), "%016llx T name\t[object]" a line, sorted by address.
 * A reader of raw pages (trace-cmd) takes it as its kernel's symbol table and
 * names every event of every process with it, whatever was mapped where.  Made
 * at open; an object that left the cache since is no longer in it.
 */
#include "tfs.h"

static int kallsyms_show(struct tfs_open *o)
{
	return tfs_sym_kallsyms(&o->content);
}

const struct tfs_file_ops tfs_kallsyms_ops = {
	.show = kallsyms_show,
	.seek = TFS_SEEK_SEQ,
};

// SPDX-License-Identifier: MIT
/*
 * snapshot.c - writes to `snapshot` and per_cpu/cpuN/snapshot, and the text an
 * empty one shows (reads are trace.c's: the snapshot buffer read as `trace`).
 *
 * The kernel's table, by what is written (a number, as kstrtoul reads it;
 * anything else EINVAL) and whether the snapshot buffer is allocated:
 *
 *             not allocated        allocated
 *   0         nothing              free it         (per_cpu file: EINVAL)
 *   1         allocate and swap    swap            (per_cpu file: that CPU only)
 *   other     nothing              clear it        (per_cpu file: that CPU's part)
 *
 * Every write first expands the buffer (tfs_buffer_expand), valid or not, as the
 * kernel's does; a valid number is EBUSY while a latency tracer is current (the
 * buffer is its max buffer).  A swap (area.c, tfs_spare_swap) exchanges each CPU's ring with
 * its part of the snapshot buffer while no writer can write there, so that an
 * event is either in the snapshot or in the main buffer.
 */
#include <errno.h>

#include "tfs.h"

ssize_t tfs_snapshot_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	struct tfs_instance *inst = o->inst;
	const struct tracer *t;
	unsigned long val;
	int err = tfs_buffer_expand(inst); /* any write is a first use, as the kernel's */

	if (err)
		return err;
	err = tfs_parse_ulong(buf, size, &val);
	if (err)
		return err;
	/* a latency tracer owns the buffer: it is its max buffer (tracers/latency.c) */
	t = __atomic_load_n(&inst->tracer, __ATOMIC_ACQUIRE);
	if (t && t->use_max_tr)
		return -EBUSY;
	switch (val) {
	case 0:
		if (o->cpu >= 0)
			return -EINVAL;
		tfs_spare_free(inst);
		break;
	case 1:
		err = tfs_spare_swap(inst, o->cpu);
		if (err)
			return err;
		break;
	default:
		tfs_spare_clear(inst, o->cpu);
		break;
	}
	return (ssize_t)size;
}

void tfs_snapshot_help(struct tfs_instance *inst, int cpu, struct tfs_buf *b)
{
	const char *any = "#                      (Doesn't have to be '2' works with any number that\n"
			  "#                       is not a '0' or '1')\n";

	tfs_buf_printf(b, "#\n# * Snapshot is %s *\n#\n# Snapshot commands:\n",
		       __atomic_load_n(&inst->spare, __ATOMIC_RELAXED) ? "allocated" : "freed");
	if (cpu < 0)
		tfs_buf_printf(b,
			       "# echo 0 > snapshot : Clears and frees snapshot buffer\n"
			       "# echo 1 > snapshot : Allocates snapshot buffer, if not already "
			       "allocated.\n"
			       "#                      Takes a snapshot of the main buffer.\n"
			       "# echo 2 > snapshot : Clears snapshot buffer (but does not allocate "
			       "or free)\n%s",
			       any);
	else
		tfs_buf_printf(b,
			       "# echo 0 > snapshot : Invalid for per_cpu snapshot file.\n"
			       "# echo 1 > snapshot : Allocates snapshot buffer, if not already "
			       "allocated.\n"
			       "#                      Takes a snapshot of the main buffer for this "
			       "cpu.\n"
			       "# echo 2 > snapshot : Clears this cpu's snapshot buffer (but does not "
			       "allocate)\n%s",
			       any);
}

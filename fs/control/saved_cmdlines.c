// SPDX-License-Identifier: MIT
/*
 * saved_cmdlines.c - saved_cmdlines ("PID COMM"), saved_tgids ("PID TGID") and
 * saved_cmdlines_size.  The tasks themselves are kept by the registry
 * (tfs_task_foreach), which sizes its table from tfs.saved_cmdlines_size.
 *
 * saved_cmdlines_size follows the kernel: 1 to 32768 (PID_MAX_DEFAULT), else
 * EINVAL; the kernel then allocates whole power-of-two page blocks holding its
 * pid map and the entries, and keeps as many entries as fit, so it reads back
 * more than was asked (128 reads 6552).  A new size starts an empty table.
 *
 * saved_tgids lists tasks in pid order, as the kernel walks its pid map, and only
 * once record-tgid has been set: before that the kernel keeps no tgids.
 */
#include <errno.h>
#include <stdlib.h>

#include "settings.h"
#include "tfs.h"

/*
 * The kernel's saved_cmdlines_buffer on 64-bit: an unsigned map of
 * PID_MAX_DEFAULT + 1 entries, 4 bytes of padding, a pointer and two ints; each
 * entry then costs its comm (16 bytes) and an unsigned in the reverse map.
 */
#define CMDLINES_HDR ((TFS_CMDLINES_MAX + 1) * 4u + 4u + 8u + 4u + 4u)
#define CMDLINE_COST 20u
#define KPAGE 4096u

unsigned int tfs_cmdlines_rounded(unsigned int n)
{
	unsigned long bytes = CMDLINES_HDR + (unsigned long)n * CMDLINE_COST;
	unsigned long pages = (bytes + KPAGE - 1) / KPAGE, block = 1;

	while (block < pages)
		block <<= 1;
	return (unsigned int)((block * KPAGE - CMDLINES_HDR) / CMDLINE_COST);
}

static void cmdline_line(pid_t tid, pid_t tgid, const char *comm, void *arg)
{
	tfs_buf_printf(arg, "%d %s\n", (int)tid, comm);
}

static int saved_cmdlines_show(struct tfs_open *o)
{
	tfs_task_foreach(cmdline_line, &o->content);
	return 0;
}

const struct tfs_file_ops tfs_saved_cmdlines_ops = {
	.show = saved_cmdlines_show,
	.seek = TFS_SEEK_SEQ,
};

/* ---- saved_tgids ------------------------------------------------------------------- */

struct tgid_list {
	struct {
		pid_t tid, tgid;
	} *v;
	size_t n, cap;
	int err;
};

static void tgid_add(pid_t tid, pid_t tgid, const char *comm, void *arg)
{
	struct tgid_list *l = arg;

	if (tgid <= 0 || l->err)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		void *p = realloc(l->v, cap * sizeof(*l->v));

		if (!p) {
			l->err = -ENOMEM;
			return;
		}
		l->v = p;
		l->cap = cap;
	}
	l->v[l->n].tid = tid;
	l->v[l->n].tgid = tgid;
	l->n++;
}

static int by_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int saved_tgids_show(struct tfs_open *o)
{
	struct tgid_list l = {0};
	int err = 0;

	if (!tfs_opt_tgid_recorded())
		return 0;
	tfs_task_foreach(tgid_add, &l);
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), by_tid);
	for (size_t i = 0; i < l.n && !err; i++)
		if (!i || l.v[i].tid != l.v[i - 1].tid)
			err = tfs_buf_printf(&o->content, "%d %d\n", (int)l.v[i].tid,
					     (int)l.v[i].tgid);
	free(l.v);
	return l.err ? l.err : err;
}

const struct tfs_file_ops tfs_saved_tgids_ops = {
	.show = saved_tgids_show,
	.seek = TFS_SEEK_SEQ,
};

/* ---- saved_cmdlines_size ---------------------------------------------------------------- */

static int saved_cmdlines_size_show(struct tfs_open *o)
{
	return tfs_buf_printf(&o->content, "%u\n",
			      __atomic_load_n(&tfs.saved_cmdlines_size, __ATOMIC_RELAXED));
}

static ssize_t saved_cmdlines_size_write(struct tfs_open *o, const char *buf, size_t size,
					 off_t off)
{
	unsigned long n;
	int err = tfs_parse_ulong(buf, size, &n);

	if (err)
		return err;
	if (!n || n > TFS_CMDLINES_MAX)
		return -EINVAL;
	tfs_lock();
	__atomic_store_n(&tfs.saved_cmdlines_size, tfs_cmdlines_rounded((unsigned int)n),
			 __ATOMIC_RELAXED);
	tfs_unlock();
	return (ssize_t)size;
}

const struct tfs_file_ops tfs_saved_cmdlines_size_ops = {
	.show = saved_cmdlines_size_show,
	.write = saved_cmdlines_size_write,
	.seek = TFS_SEEK_NONE,
};

// SPDX-License-Identifier: MIT
/*
 * buffer_size.c - buffer_size_kb (root and per_cpu/cpuN), buffer_total_size_kb
 * and free_buffer.
 *
 * Sizes are kept as the kernel keeps them: a count of its 4080-byte data pages a
 * CPU (inst->nr_kpages), shown as pages * 4080 / 1024, so that writing 100 reads
 * back 103; area.c turns the count into our own pages.  The root file shows "X"
 * when CPUs differ.
 *
 * "Expanded": the kernel boots with the smallest buffer (2 pages a CPU) and
 * grows it to trace_buf_size (1408 KB) the first time tracing is really used;
 * until then buffer_size_kb reads "7 (expanded: 1408)".  utracefs does the same,
 * so a fresh mount reads like a freshly booted kernel.  First use is what it is
 * in the kernel: a tracer is set (any tracer, nop and the current one included:
 * current_tracer calls tfs_buffer_expand()), or a size is written
 * (buffer_size_kb, free_buffer), even one that then fails.  trace_marker writes
 * do not expand: they go into the small buffer, as in the kernel.
 *
 * Resizing keeps the newest events that fit in the new size, as the kernel does
 * (area.c); a size that does not change leaves the ring alone.
 */
#include <errno.h>
#include <limits.h>

#include "settings.h"
#include "tfs.h"

/* one size change at a time: a failed "all CPUs" write puts back what it changed */
static pthread_mutex_t size_lock = PTHREAD_MUTEX_INITIALIZER;

unsigned int tfs_kb_to_kpages(unsigned long kb)
{
	/* the kernel's unsigned long arithmetic, wrap-arounds included */
	unsigned long bytes = kb << 10;
	unsigned long pages = (bytes + UT_KERNEL_PAGE_DATA - 1) / UT_KERNEL_PAGE_DATA;

	if (pages < 2)
		pages = 2;
	return pages > UINT_MAX ? 0 : (unsigned int)pages;
}

unsigned long tfs_kpages_to_kb(unsigned int nr_kpages)
{
	return (unsigned long)nr_kpages * UT_KERNEL_PAGE_DATA >> 10;
}

/* Give cpu nr_kpages pages (no-op when it has them); size_lock held. */
static int resize_cpu(struct tfs_instance *inst, unsigned int cpu, unsigned int nr_kpages)
{
	unsigned int old;
	int err;

	tfs_lock();
	old = inst->nr_kpages[cpu];
	inst->nr_kpages[cpu] = nr_kpages;
	tfs_unlock();
	if (old == nr_kpages)
		return 0;
	err = tfs_ring_resize(inst, cpu, nr_kpages);
	if (err) {
		tfs_lock();
		inst->nr_kpages[cpu] = old;
		tfs_unlock();
	}
	return err;
}

/* Resize one CPU (cpu >= 0) or all; all or nothing.  Marks the buffer expanded. */
static int resize(struct tfs_instance *inst, int cpu, unsigned int nr_kpages)
{
	unsigned int old[UT_RB_MAX_CPUS];
	int err = 0;

	pthread_mutex_lock(&size_lock);
	tfs_lock();
	inst->buffer_expanded = true; /* the kernel sets it before trying */
	for (unsigned int c = 0; c < tfs.nr_cpus; c++)
		old[c] = inst->nr_kpages[c];
	tfs_unlock();
	if (!nr_kpages) {
		err = -ENOMEM; /* more pages than we can count */
	} else if (cpu >= 0) {
		err = (unsigned int)cpu < tfs.nr_cpus ? resize_cpu(inst, (unsigned int)cpu, nr_kpages)
						      : -EINVAL;
	} else {
		unsigned int c;

		for (c = 0; c < tfs.nr_cpus && !err; c++)
			err = resize_cpu(inst, c, nr_kpages);
		if (err)
			for (unsigned int r = 0; r + 1 < c; r++)
				resize_cpu(inst, r, old[r]);
	}
	pthread_mutex_unlock(&size_lock);
	return err;
}

int tfs_buffer_expand(struct tfs_instance *inst)
{
	tfs_lock();
	bool expanded = inst->buffer_expanded;

	tfs_unlock();
	if (expanded)
		return 0;
	return resize(inst, -1, tfs_kb_to_kpages(TFS_TRACE_BUF_SIZE >> 10));
}

/* ---- buffer_size_kb --------------------------------------------------------------- */

static int buffer_size_show(struct tfs_open *o)
{
	struct tfs_instance *inst = o->inst;
	unsigned int first, nr = tfs.nr_cpus;
	bool same = true, expanded;

	tfs_lock();
	if (o->cpu >= 0) {
		unsigned int k = (unsigned int)o->cpu < nr ? inst->nr_kpages[o->cpu] : 0;

		tfs_unlock();
		return tfs_buf_printf(&o->content, "%lu\n", tfs_kpages_to_kb(k));
	}
	first = inst->nr_kpages[0];
	for (unsigned int c = 1; c < nr; c++)
		same = same && inst->nr_kpages[c] == first;
	expanded = inst->buffer_expanded;
	tfs_unlock();
	if (!same)
		return tfs_buf_printf(&o->content, "X\n");
	if (!expanded)
		return tfs_buf_printf(&o->content, "%lu (expanded: %lu)\n", tfs_kpages_to_kb(first),
				      TFS_TRACE_BUF_SIZE >> 10);
	return tfs_buf_printf(&o->content, "%lu\n", tfs_kpages_to_kb(first));
}

static ssize_t buffer_size_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	unsigned long kb;
	int err = tfs_parse_ulong(buf, size, &kb);

	if (err)
		return err;
	if (!kb)
		return -EINVAL;
	err = resize(o->inst, o->cpu, tfs_kb_to_kpages(kb));
	return err ? err : (ssize_t)size;
}

const struct tfs_file_ops tfs_buffer_size_ops = {
	.show = buffer_size_show,
	.write = buffer_size_write,
};

/* ---- buffer_total_size_kb ------------------------------------------------------------ */

static int buffer_total_show(struct tfs_open *o)
{
	struct tfs_instance *inst = o->inst;
	unsigned long total = 0;
	bool expanded;

	tfs_lock();
	/* the kernel adds up each CPU's KB, each rounded down */
	for (unsigned int c = 0; c < tfs.nr_cpus; c++)
		total += tfs_kpages_to_kb(inst->nr_kpages[c]);
	expanded = inst->buffer_expanded;
	tfs_unlock();
	if (expanded)
		return tfs_buf_printf(&o->content, "%lu\n", total);
	return tfs_buf_printf(&o->content, "%lu (expanded: %lu)\n", total,
			      (TFS_TRACE_BUF_SIZE >> 10) * tfs.nr_cpus);
}

const struct tfs_file_ops tfs_buffer_total_ops = {
	.show = buffer_total_show,
};

/* ---- free_buffer ------------------------------------------------------------------------ */

/*
 * The kernel frees the buffer when the file is closed, whatever was written and
 * even after a read-only open: the writes themselves do nothing.  With option
 * disable_on_free, tracing is turned off first.
 */
static ssize_t free_buffer_read(struct tfs_open *o, char *buf, size_t size, off_t off)
{
	return -EINVAL;
}

static ssize_t free_buffer_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	return (ssize_t)size;
}

static int free_buffer_release(struct tfs_open *o)
{
	if (tfs_opt(o->inst, TFS_OPT_DISABLE_ON_FREE)) {
		tfs_lock();
		o->inst->tracing_on = false;
		tfs_unlock();
		tfs_apply(o->inst);
	}
	return resize(o->inst, -1, tfs_kb_to_kpages(0));
}

const struct tfs_file_ops tfs_free_buffer_ops = {
	.read = free_buffer_read,
	.write = free_buffer_write,
	.release = free_buffer_release,
	.seek = TFS_SEEK_NONE,
};

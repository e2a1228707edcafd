// SPDX-License-Identifier: MIT
/*
 * fuzz_files.c - the write path of every control file of the tree (files.c),
 * through its ops as fuse_ops.c calls them: open (O_TRUNC or not), writes,
 * release, then a read of what the file shows.
 *
 * Input: byte 0 picks the file (index into the writable files of the tree, in
 * table order, options/ and per_cpu/cpuN/ expanded), byte 1 the way it is
 * written (bit 0: O_TRUNC; bit 1: one write per line instead of one write);
 * the rest is the text written.  FUZZ_LIST_FILES=1 in the environment lists the
 * files by index (and cpu) at start.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"

#define MAX_FILES 256

struct wfile {
	struct tfs_file f; /* the entry, named as opened */
	int cpu;
};
static struct wfile files[MAX_FILES];
static unsigned int nr_files;

static void collect(const struct tfs_file *dir, int cpu)
{
	for (const struct tfs_file *c = dir->children; c && c->name; c++) {
		if (c->kind == TFS_DIR)
			collect(c, cpu);
		else if (c->ops->write && nr_files < MAX_FILES)
			files[nr_files++] = (struct wfile){*c, cpu};
	}
	if (!dir->dyn_name)
		return;
	for (unsigned int i = 0; dir->dyn_name(i); i++) {
		const struct tfs_file *t = dir->dyn_template;

		if (t->kind == TFS_DIR) {
			collect(t, (int)i);
		} else if (t->ops->write && nr_files < MAX_FILES) {
			files[nr_files] = (struct wfile){*t, (int)i};
			files[nr_files++].f.name = dir->dyn_name(i);
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_daemon_init();
	tfs_sel_init();
	collect(&tfs_root, -1);
	if (getenv("FUZZ_LIST_FILES")) /* what byte 0 picks, for writing seeds */
		for (unsigned int i = 0; i < nr_files; i++)
			printf("%u %s %d\n", i, files[i].f.name, files[i].cpu);
	return 0;
}

static void put(struct tfs_open *o, const char *buf, size_t size)
{
	if (size)
		o->file->ops->write(o, buf, size, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct wfile *w;
	const struct tfs_file_ops *ops;
	struct tfs_open o = {.inst = &tfs_top}, r = {.inst = &tfs_top};
	const char *text;
	size_t len;

	if (size < 2 || !nr_files)
		return 0;
	w = &files[data[0] % nr_files];
	ops = w->f.ops;
	text = (const char *)data + 2;
	len = size - 2;
	fuzz_functions();

	o = (struct tfs_open){.inst = &tfs_top, .file = &w->f, .cpu = w->cpu, .pid = (pid_t)gettid()};
	o.flags = O_WRONLY | (data[1] & 1 ? O_TRUNC : 0);
	if (ops->open && ops->open(&o))
		goto out;
	if ((o.flags & O_TRUNC) && ops->truncate)
		ops->truncate(&o);
	if (data[1] & 2) {
		for (size_t i = 0, start = 0; i <= len; i++)
			if (i == len || text[i] == '\n') {
				put(&o, text + start, i - start + (i < len));
				start = i + 1;
			}
	} else {
		put(&o, text, len);
	}
	if (ops->release)
		ops->release(&o);

	/* what a reader sees afterwards */
	r = (struct tfs_open){.inst = &tfs_top, .file = &w->f, .cpu = w->cpu, .pid = (pid_t)gettid()};
	r.flags = O_RDONLY;
	if (ops->show && (!ops->open || !ops->open(&r))) {
		ops->show(&r);
		if (ops->release)
			ops->release(&r);
	}
out:
	tfs_buf_free(&o.content);
	tfs_buf_free(&o.wbuf);
	tfs_buf_free(&r.content);
	tfs_buf_free(&r.wbuf);
	return 0;
}

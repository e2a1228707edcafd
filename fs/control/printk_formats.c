// SPDX-License-Identifier: MIT
/*
 * printk_formats.c - the printk_formats file: every trace_printk() format and
 * trace_puts() string the traced processes told utracefs (fs/printk_fmt.c), one a
 * line as the kernel lists its own: `0x<address> : "<text>"`, with newlines, tabs
 * and quotes escaped and a backslash left as it is, as the kernel does.  Each
 * process's texts are listed at its own addresses: two processes may show one
 * address twice.
 */
#include "../printk_fmt.h"
#include "tfs.h"

static void fmt_line(uint64_t addr, const char *text, void *arg)
{
	struct tfs_buf *b = arg;

	tfs_buf_printf(b, "0x%lx : \"", (unsigned long)addr);
	for (const char *p = text; *p; p++) {
		switch (*p) {
		case '\n':
			tfs_buf_append(b, "\\n", 2);
			break;
		case '\t':
			tfs_buf_append(b, "\\t", 2);
			break;
		case '"':
			tfs_buf_append(b, "\\\"", 2);
			break;
		default:
			tfs_buf_append(b, p, 1);
		}
	}
	tfs_buf_append(b, "\"\n", 2);
}

static int printk_formats_show(struct tfs_open *o)
{
	tfs_printk_fmt_foreach(fmt_line, &o->content);
	return 0;
}

const struct tfs_file_ops tfs_printk_formats_ops = {
	.show = printk_formats_show,
	.seek = TFS_SEEK_SEQ,
};

// SPDX-License-Identifier: MIT
/*
 * nop.c - the tracer that traces nothing: events written by trace_marker and
 * trace_printk still show, with the default header and lines.  Like the
 * kernel's nop it carries the two test options test_nop_accept (changes are
 * accepted) and test_nop_refuse (every change is refused with EINVAL).
 */
#include <errno.h>

#include "../output/output.h"

static const struct tfs_opt_def nop_opts[] = {
	{"test_nop_accept", false},
	{"test_nop_refuse", false},
	{NULL, false},
};

static int nop_set_opt(unsigned int idx, bool set)
{
	return idx == 1 ? -EINVAL : 0;
}

static int nop_print_line(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b)
{
	return tfs_out_line(it, e, b);
}

const struct tracer tfs_nop_tracer = {
	.name = "nop",
	.id = UT_TRACER_NOP,
	.print_header = tfs_out_default_header,
	.print_line = nop_print_line,
	.opts = nop_opts,
	.set_opt = nop_set_opt,
};

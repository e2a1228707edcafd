/* SPDX-License-Identifier: MIT */
/*
 * stack_trace.h - the stack tracer's deepest stack (stack_trace.c), for the
 * registry (UT_MSG_STACK) and the unit tests of the table.
 */
#ifndef TFS_STACK_TRACE_H
#define TFS_STACK_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "tfs.h"
#include "ut_ring.h"

/* The deepest stack: its size and frames, innermost first, named. */
struct tfs_stack_max {
	uint64_t size;
	uint32_t nr;
	uint64_t depth[UT_STACK_MAX]; /* bytes from the top of the stack to the frame */
	char loc[UT_STACK_MAX][160];  /* func+0xOFF/0xSIZE */
};

/* tfs_file.arg of stack_tracer_enabled (stack_max_size has 0) */
#define ST_ENABLED 1

/* stack_trace's text for m, as the kernel prints it (enabled: the tracer is on). */
int tfs_stack_table(struct tfs_buf *b, const struct tfs_stack_max *m, bool enabled);
/* A UT_MSG_STACK of process pid (its size checked); 0 or -EPROTO. */
int tfs_stack_msg(pid_t pid, const void *buf);

extern const struct tfs_file_ops tfs_stack_trace_ops, tfs_stack_max_size_ops,
    tfs_stack_tracer_enabled_ops, tfs_stack_trace_filter_ops;

#endif

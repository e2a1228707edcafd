/* SPDX-License-Identifier: MIT */
/*
 * trace_stat.h - the function profiler's files (fs/control/trace_stat.c): the
 * rows of a trace_stat/functionN table and how they are merged and printed.
 */
#ifndef TFS_TRACE_STAT_H
#define TFS_TRACE_STAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tfs.h"

struct tfs_prof_row {
	char name[128];
	uint32_t cpu;
	uint64_t hits;
	uint64_t time_ns;
	uint64_t sq_ns; /* the sum of the squared durations */
};

extern const struct tfs_file_ops tfs_function_profile_enabled_ops, tfs_trace_stat_ops;

/* trace_stat/'s entries: functionN for each CPU N, NULL past the last. */
const char *tfs_trace_stat_name(unsigned int i);
/* Sum rows of the same function into one and sort by time, largest first; the count left. */
size_t tfs_prof_merge(struct tfs_prof_row *rows, size_t n);
/* The kernel's table: header, then "  name  hits    time    avg    s^2" per row. */
int tfs_prof_render(struct tfs_buf *b, const struct tfs_prof_row *rows, size_t n,
		    uint64_t thresh_ns);
/* A UT_MSG_PROFILE packet of process pid (registry.c); 0 or -EPROTO/-ENOMEM. */
int tfs_profile_msg(pid_t pid, const void *buf, size_t n);

#endif

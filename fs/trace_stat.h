/* SPDX-License-Identifier: MIT */
/*
 * trace_stat.h - the function profiler's files (fs/control/trace_stat.c); the
 * table itself is common/ut_profile_fmt.h's.  trace_stat/function_graph[.COL],
 * the function-duration statistics of the buffer: fs/control/graph_stat.c.
 */
#ifndef TFS_TRACE_STAT_H
#define TFS_TRACE_STAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tfs.h"

extern const struct tfs_file_ops tfs_function_profile_enabled_ops, tfs_trace_stat_ops,
	tfs_graph_stat_ops;

/* trace_stat/'s entries: functionN for each CPU N, NULL past the last. */
const char *tfs_trace_stat_name(unsigned int i);
/* A UT_MSG_PROFILE packet of process pid (registry.c); 0 or -EPROTO/-ENOMEM. */
int tfs_profile_msg(pid_t pid, const void *buf, size_t n);

#endif

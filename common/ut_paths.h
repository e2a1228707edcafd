/* SPDX-License-Identifier: MIT */
/*
 * ut_paths.h - where the tracefs mount and the control socket live.  One rule for
 * every part of utrace: $UTRACE_TRACING if set, else
 * ${XDG_RUNTIME_DIR:-/tmp}/utrace-$UID/tracing; the socket is that path + ".sock".
 */
#ifndef UT_PATHS_H
#define UT_PATHS_H

#include <stddef.h>

/* Both return 0, or -ENAMETOOLONG when buf is too small. */
int ut_tracing_dir(char *buf, size_t size);
int ut_socket_path(char *buf, size_t size);
/* The socket path that belongs to a given mount point. */
int ut_socket_path_for(const char *mountpoint, char *buf, size_t size);

#endif

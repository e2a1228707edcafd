/* SPDX-License-Identifier: MIT */
/*
 * ut_paths.h - where the tracefs mount and the control socket live.  One rule for
 * every part of utrace: $UTRACE_TRACING if set, else
 * ${XDG_RUNTIME_DIR:-/tmp}/utrace-$UID/tracing; the socket is that path + ".sock".
 *
 * $UTRACE_TRACING must be an absolute path: a relative one would name another
 * place in every working directory.  `utrace` makes one absolute (cmd/util.c);
 * the runtime refuses it (ut_tracing_dir gives -EINVAL).
 */
#ifndef UT_PATHS_H
#define UT_PATHS_H

#include <stddef.h>

/* Both return 0, -ENAMETOOLONG when buf is too small, or -EINVAL when
 * $UTRACE_TRACING is set to a relative path. */
int ut_tracing_dir(char *buf, size_t size);
int ut_socket_path(char *buf, size_t size);
/* The socket path that belongs to a given mount point. */
int ut_socket_path_for(const char *mountpoint, char *buf, size_t size);
/*
 * PATH made absolute against the working directory (not resolved: spelled as
 * given), without trailing slashes.  0, -ENAMETOOLONG, or getcwd's -errno.
 */
int ut_absolute_path(const char *path, char *out, size_t size);

#endif

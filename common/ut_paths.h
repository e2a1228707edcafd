/* SPDX-License-Identifier: MIT */
/*
 * ut_paths.h - where the tracefs mount and the control socket live.  One rule for
 * every part of utrace: $UTRACE_TRACING if set, else
 * ${XDG_RUNTIME_DIR:-/tmp}/utrace-$UID/tracing; the socket is that path + ".sock".
 *
 * $UTRACE_TRACING must be an absolute path: a relative one would name another
 * place in every working directory.  `utrace` makes one absolute (cmd/util.c);
 * the runtime refuses it (ut_tracing_dir gives -EINVAL).
 *
 * Trust (ut_path_trusted): another user must not be able to put a socket or a
 * mount where ours is looked for (a directory /tmp/utrace-UID created first by
 * someone else would receive every traced process's HELLO).  So a path is used
 * only if it and every directory above it is owned by the user or root and is
 * not writable by group or others, except a directory with the sticky bit (/tmp):
 * there nobody else can remove or rename what the user or root owns.
 */
#ifndef UT_PATHS_H
#define UT_PATHS_H

#include <stddef.h>
#include <sys/types.h>

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
/*
 * May uid trust the absolute path `path` (see above)?  Its directory is resolved
 * (realpath) and checked from / down, then the last component itself (lstat: a
 * symbolic link there is refused).  real (size bytes) gets the resolved path, to
 * be used instead of path so that nothing can be swapped in between.  why (may be
 * NULL) gets a short reason when the answer is no.  0; -EPERM: not trusted;
 * -ENOENT: the last component does not exist (its directory is trusted);
 * -ENAMETOOLONG; or the -errno of a failed lookup (EACCES: another user's FUSE
 * mount, ENOTCONN: a FUSE mount whose daemon died).
 */
int ut_path_trusted(const char *path, uid_t uid, char *real, size_t size, char *why,
		    size_t whysize);

#endif

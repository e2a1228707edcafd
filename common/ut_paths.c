// SPDX-License-Identifier: MIT
/* ut_paths.c - see ut_paths.h.  Safe to call from the runtime's constructor. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ut_paths.h"

int ut_tracing_dir(char *buf, size_t size)
{
	const char *env = getenv("UTRACE_TRACING");
	int n;

	if (env && *env) {
		if (env[0] != '/')
			return -EINVAL;
		n = snprintf(buf, size, "%s", env);
	} else {
		const char *run = getenv("XDG_RUNTIME_DIR");

		if (!run || !*run)
			run = "/tmp";
		n = snprintf(buf, size, "%s/utrace-%u/tracing", run, (unsigned int)getuid());
	}
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int ut_socket_path_for(const char *mountpoint, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s.sock", mountpoint);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int ut_socket_path(char *buf, size_t size)
{
	char dir[4096];
	int err = ut_tracing_dir(dir, sizeof(dir));

	return err ? err : ut_socket_path_for(dir, buf, size);
}

int ut_absolute_path(const char *path, char *out, size_t size)
{
	char cwd[PATH_MAX];
	int n;

	if (path[0] == '/') {
		n = snprintf(out, size, "%s", path);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		n = snprintf(out, size, "%s/%s", cwd, path);
	}
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	while (n > 1 && out[n - 1] == '/')
		out[--n] = '\0';
	return 0;
}

/* One component: owned by uid or root, writable by nobody else unless a sticky directory. */
static int trusted_stat(const char *path, const struct stat *st, uid_t uid, char *why,
			size_t whysize)
{
	bool sticky_dir = S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX);

	if (st->st_uid != uid && st->st_uid != 0) {
		if (why)
			snprintf(why, whysize, "%s is owned by uid %u", path,
				 (unsigned int)st->st_uid);
		return -EPERM;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !sticky_dir) {
		if (why)
			snprintf(why, whysize, "%s is writable by %s", path,
				 st->st_mode & S_IWOTH ? "others" : "its group");
		return -EPERM;
	}
	return 0;
}

/* Check res (resolved, absolute) and every directory above it, from / down. */
static int trusted_chain(const char *res, uid_t uid, char *why, size_t whysize)
{
	char pre[PATH_MAX];
	struct stat st;
	int err;

	for (size_t n = 0;; n++) {
		size_t plen = n ? n : 1; /* "/" first, then each longer prefix */

		if (n > 0 && res[n] != '/' && res[n] != '\0')
			continue;
		memcpy(pre, res, plen);
		pre[plen] = '\0';
		err = lstat(pre, &st) ? -errno : trusted_stat(pre, &st, uid, why, whysize);
		if (!err && !S_ISDIR(st.st_mode))
			err = -ENOTDIR; /* something was swapped in since realpath */
		if (err || !res[n])
			return err;
	}
}

int ut_path_trusted(const char *path, uid_t uid, char *real, size_t size, char *why,
		    size_t whysize)
{
	char dir[PATH_MAX], res[PATH_MAX], base[NAME_MAX + 1];
	char *slash;
	struct stat st;
	size_t len = strlen(path), n;
	int err;

	if (why && whysize)
		why[0] = '\0';
	if (path[0] != '/')
		return -EINVAL;
	if (len >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, len + 1);
	while (len > 1 && dir[len - 1] == '/')
		dir[--len] = '\0';
	slash = strrchr(dir, '/');
	if (strlen(slash + 1) >= sizeof(base))
		return -ENAMETOOLONG;
	strcpy(base, slash + 1); /* "" for "/" itself */
	slash[slash == dir ? 1 : 0] = '\0'; /* its directory: "/" stays "/" */
	if (!realpath(dir, res))
		return -errno;
	err = trusted_chain(res, uid, why, whysize);
	if (err)
		return err;
	if (*base) {
		n = strlen(res);
		if (n + 1 + strlen(base) >= sizeof(res))
			return -ENAMETOOLONG;
		snprintf(res + n, sizeof(res) - n, "%s%s", n > 1 ? "/" : "", base);
		if (lstat(res, &st))
			return -errno;
		if (S_ISLNK(st.st_mode)) {
			if (why)
				snprintf(why, whysize, "%s is a symbolic link", res);
			return -EPERM;
		}
		err = trusted_stat(res, &st, uid, why, whysize);
		if (err)
			return err;
	}
	if (snprintf(real, size, "%s", res) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

// SPDX-License-Identifier: MIT
/* ut_paths.c - see ut_paths.h.  Safe to call from the runtime's constructor. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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

// SPDX-License-Identifier: MIT
/*
 * tracecmd.c - libutrace-tracecmd.so, preloaded into trace-cmd by `utrace
 * trace-cmd` (cmd/tracecmd.c) so that trace-cmd works on a utracefs mount.
 *
 * Why a preloaded library: trace-cmd finds its tracing directory through
 * libtracefs, which takes the first mount of type "tracefs" and has neither an
 * environment variable nor an option for another; a FUSE mount's type is always
 * "fuse.SUBTYPE".  libtracefs does export tracefs_set_tracing_dir(), which the
 * constructor calls with $UTRACE_TRACING.  trace-cmd also opens two kernel
 * files by their fixed paths, which are redirected into the mount:
 *   /proc/sys/kernel/ftrace_enabled -> MOUNT/ftrace_enabled (record, start and
 *                                      reset turn function tracing on there)
 *   /proc/kallsyms                  -> MOUNT/kallsyms (the table that names the
 *                                      flat addresses of the mount's raw pages)
 *   /proc/sys/kernel/kptr_restrict  -> /dev/null (trace-cmd lowers it around its
 *                                      read of /proc/kallsyms and sets it back; that
 *                                      table is the mount's, so the kernel's knob
 *                                      is left alone)
 * libtracecmd is linked into /usr/bin/trace-cmd, so its calls go through the
 * PLT to libc's open64, __open64_2, fopen64 and stat64: those (and their
 * plain and openat forms) are wrapped.  Every other path passes untouched.
 *
 * The programs trace-cmd runs (record CMD) must not inherit this library but
 * the runtime: the constructor sets LD_PRELOAD to $UTRACE_TRACECMD_PRELOAD
 * (what the CLI computed for them) before trace-cmd starts anything.
 *
 * Not linked with libtracefs (found at run time with dlsym), so building it
 * needs nothing of trace-cmd's.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EXPORT __attribute__((visibility("default")))

int __open64_2(const char *path, int flags); /* libc's; no header declares it */

static const char *tracing; /* $UTRACE_TRACING: the mount, absolute */

static const struct {
	const char *kernel, *mount; /* mount: in the mount, or an absolute path */
} redirects[] = {
    {"/proc/sys/kernel/ftrace_enabled", "ftrace_enabled"},
    {"/proc/kallsyms", "kallsyms"},
    {"/proc/sys/kernel/kptr_restrict", "/dev/null"},
};

__attribute__((constructor)) static void shim_init(void)
{
	const char *child = getenv("UTRACE_TRACECMD_PRELOAD");
	int (*set_dir)(char *);

	tracing = getenv("UTRACE_TRACING");
	if (tracing && tracing[0] == '/') {
		set_dir = (int (*)(char *))dlsym(RTLD_DEFAULT, "tracefs_set_tracing_dir");
		if (set_dir)
			set_dir((char *)tracing);
	} else {
		tracing = NULL;
	}
	if (child) {
		if (child[0])
			setenv("LD_PRELOAD", child, 1);
		else
			unsetenv("LD_PRELOAD");
		unsetenv("UTRACE_TRACECMD_PRELOAD");
	}
}

/* path, or its place in the mount (into buf) when it is one of the kernel files above */
static const char *redirect(const char *path, char *buf, size_t size)
{
	if (!tracing || !path)
		return path;
	for (size_t i = 0; i < sizeof(redirects) / sizeof(redirects[0]); i++)
		if (!strcmp(path, redirects[i].kernel)) {
			if (redirects[i].mount[0] == '/')
				return redirects[i].mount;
			if ((size_t)snprintf(buf, size, "%s/%s", tracing, redirects[i].mount) >=
			    size)
				return path;
			return buf;
		}
	return path;
}

/* The next definition of name (libc's), looked up once. */
#define NEXT(name)                                                                                 \
	static __typeof__(&name) next_;                                                            \
	if (!next_)                                                                                \
	next_ = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

/* open's mode argument, there only when the flags create a file */
#define MODE_ARG(flags, mode)                                                                      \
	do {                                                                                       \
		if ((flags) & (O_CREAT | __O_TMPFILE)) {                                           \
			va_list ap;                                                                \
			va_start(ap, flags);                                                       \
			mode = va_arg(ap, mode_t);                                                 \
			va_end(ap);                                                                \
		}                                                                                  \
	} while (0)

EXPORT int open(const char *path, int flags, ...)
{
	char buf[4096];
	mode_t mode = 0;
	NEXT(open);

	MODE_ARG(flags, mode);
	return next_(redirect(path, buf, sizeof(buf)), flags, mode);
}

/* the same call on 64-bit Linux (O_LARGEFILE is implied) */
EXPORT int open64(const char *path, int flags, ...) __attribute__((alias("open")));

/* what _FORTIFY_SOURCE builds call for open64 without a mode */
EXPORT int __open64_2(const char *path, int flags)
{
	char buf[4096];
	NEXT(__open64_2);

	return next_(redirect(path, buf, sizeof(buf)), flags);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	char buf[4096];
	mode_t mode = 0;
	NEXT(openat);

	MODE_ARG(flags, mode);
	return next_(dirfd, redirect(path, buf, sizeof(buf)), flags, mode);
}

EXPORT FILE *fopen(const char *path, const char *how)
{
	char buf[4096];
	NEXT(fopen);

	return next_(redirect(path, buf, sizeof(buf)), how);
}

EXPORT FILE *fopen64(const char *path, const char *how) __attribute__((alias("fopen")));

EXPORT int stat(const char *path, struct stat *st)
{
	char buf[4096];
	NEXT(stat);

	return next_(redirect(path, buf, sizeof(buf)), st);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	char buf[4096];
	NEXT(stat64);

	return next_(redirect(path, buf, sizeof(buf)), st);
}

// SPDX-License-Identifier: MIT
/*
 * util.c - what every subcommand of utrace uses: messages and exit statuses,
 * option parsing, reading and writing tracefs files the way echo and cat do, and
 * finding the files installed next to the utrace binary.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "ut_paths.h"

static const char *name_ = "utrace";

void cli_set_name(const char *name)
{
	name_ = name;
}

const char *cli_name(void)
{
	return name_;
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", name_);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_file_error(const char *path, int err)
{
	cli_error("%s: %s", path, strerror(err < 0 ? -err : err));
	return CLI_FAIL;
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", name_);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s -h' for more information.\n", name_);
	return CLI_USAGE;
}

int cli_print_usage(const struct cli_command *cmd)
{
	fputs(cmd->usage, stdout);
	return CLI_OK;
}

int cli_getopt(int argc, char **argv, const char *optstring, bool *first)
{
	return cli_getopt_long(argc, argv, optstring, NULL, first);
}

int cli_getopt_long(int argc, char **argv, const char *optstring, const struct option *longopts,
		    bool *first)
{
	static const struct option help = {"help", no_argument, NULL, 'h'};
	struct option all[32];
	char spec[64];
	size_t n = 0;
	int c;

	while (longopts && longopts[n].name && n < 30) {
		all[n] = longopts[n];
		n++;
	}
	all[n++] = help;
	all[n] = (struct option){0};

	/* ':' first: a missing argument gives ':' so that it can be told from an unknown one. */
	if (snprintf(spec, sizeof(spec), "%s:%sh", *optstring == '+' ? "+" : "",
		     optstring + (*optstring == '+')) >= (int)sizeof(spec))
		return '?';
	if (*first) {
		optind = 0; /* GNU getopt: 0 reinitialises everything */
		*first = false;
	}
	opterr = 0;
	c = getopt_long(argc, argv, spec, all, NULL);
	/* A long option's optopt is its value, not a letter: name it as it was written. */
	if (c == ':') {
		if (optopt > ' ' && optopt < 127)
			cli_usage_error("option '-%c' needs an argument", optopt);
		else
			cli_usage_error("option '%s' needs an argument", argv[optind - 1]);
		return '?';
	}
	if (c == '?') {
		if (optopt > ' ' && optopt < 127)
			cli_usage_error("unknown option '-%c'", optopt);
		else
			cli_usage_error("unknown option '%s'", argv[optind - 1]);
		return '?';
	}
	return c;
}

int cli_parse_simple(int argc, char **argv, const struct cli_command *cmd, int max_operands,
		     char **operand)
{
	bool first = true;
	int c;

	c = cli_getopt(argc, argv, "+", &first);
	if (c == 'h')
		return cli_print_usage(cmd);
	if (c != -1)
		return CLI_USAGE;
	if (argc - optind > max_operands)
		return cli_usage_error("unexpected argument '%s'", argv[optind + max_operands]);
	if (operand)
		*operand = optind < argc ? argv[optind] : NULL;
	return -1;
}

int cli_path(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int cli_write_file(const char *dir, const char *name, const char *value)
{
	char path[PATH_MAX], *line;
	size_t len = strlen(value);
	ssize_t n;
	int fd, err = cli_path(path, sizeof(path), dir, name);

	if (err)
		return err;
	line = malloc(len + 1);
	if (!line)
		return -ENOMEM;
	memcpy(line, value, len);
	line[len] = '\n';
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		free(line);
		return -errno;
	}
	/* One write(2), as echo does: tracefs files act on each write. */
	n = write(fd, line, len + 1);
	err = n < 0 ? -errno : (size_t)n != len + 1 ? -EIO : 0;
	/* Some files (filters) act on close: its error counts too. */
	if (close(fd) && !err)
		err = -errno;
	free(line);
	return err;
}

int cli_set(const char *dir, const char *name, const char *value)
{
	char path[PATH_MAX];
	int err = cli_write_file(dir, name, value);

	if (!err)
		return 0;
	cli_path(path, sizeof(path), dir, name);
	return cli_file_error(path, err);
}

int cli_read_file(const char *path, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1), *grown;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		int err = fd < 0 ? -errno : -ENOMEM;

		if (fd >= 0)
			close(fd);
		free(buf);
		return err;
	}
	for (;;) {
		if (n == cap) {
			grown = realloc(buf, 2 * cap + 1);
			if (!grown) {
				r = -1;
				errno = ENOMEM;
				break;
			}
			buf = grown;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (r < 0) {
		int err = -errno;

		close(fd);
		free(buf);
		return err;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

int cli_read_value(const char *dir, const char *name, char **out)
{
	char path[PATH_MAX];
	size_t len;
	int err = cli_path(path, sizeof(path), dir, name);

	if (!err)
		err = cli_read_file(path, out, &len);
	if (err)
		return err;
	while (len && ((*out)[len - 1] == '\n'))
		(*out)[--len] = '\0';
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int cli_copy(const char *path, int out, const char **failed_path)
{
	char buf[65536];
	ssize_t n;
	int err = 0, fd = open(path, O_RDONLY | O_CLOEXEC);

	*failed_path = path;
	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		err = write_all(out, buf, (size_t)n);
		if (err) {
			*failed_path = NULL; /* the output failed, not the file */
			break;
		}
	}
	close(fd);
	return err;
}

bool cli_instance_name_ok(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* mnt/instances/NAME into buf: 0, or CLI_USAGE/CLI_FAIL (said) for a bad name. */
static int instance_path(char *buf, size_t size, const char *mnt, const char *name)
{
	char rel[PATH_MAX];

	if (!cli_instance_name_ok(name))
		return cli_usage_error("bad instance name '%s'", name);
	if (snprintf(rel, sizeof(rel), "instances/%s", name) >= (int)sizeof(rel) ||
	    cli_path(buf, size, mnt, rel))
		return cli_file_error(name, ENAMETOOLONG);
	return 0;
}

int cli_instance_make(char *buf, size_t size, const char *mnt, const char *name, bool *made)
{
	int rc = instance_path(buf, size, mnt, name);

	*made = false;
	if (rc)
		return rc;
	if (!mkdir(buf, 0755)) {
		*made = true;
		return 0;
	}
	if (errno == EEXIST) /* there already: used as it is, and kept */
		return cli_instance_dir(buf, size, mnt, name);
	return cli_file_error(buf, errno);
}

int cli_remove_instance(const char *dir)
{
	/*
	 * FUSE tells utracefs of a close after close(2) has returned, so a file this
	 * command has just closed may still count as open there (EBUSY).  utracefs
	 * waits a while for such late releases; on a loaded machine that may not be
	 * enough, so ask again a few times.
	 */
	for (int i = 0;; i++) {
		if (!rmdir(dir))
			return 0;
		if (errno != EBUSY || i == 4)
			return cli_file_error(dir, errno);
		poll(NULL, 0, 100);
	}
}

int cli_instance_dir(char *buf, size_t size, const char *mnt, const char *name)
{
	struct stat st;
	int rc = instance_path(buf, size, mnt, name);

	if (rc)
		return rc;
	if (stat(buf, &st) || !S_ISDIR(st.st_mode)) {
		cli_error("no instance '%s' (%s)", name, buf);
		return CLI_FAIL;
	}
	return 0;
}

int cli_for_each_instance(const char *mnt, int (*fn)(const char *dir, const char *name, void *),
			  void *arg)
{
	char idir[PATH_MAX], dir[PATH_MAX];
	struct dirent **names;
	int n, rc = 0;

	if (cli_path(idir, sizeof(idir), mnt, "instances"))
		return cli_file_error(mnt, ENAMETOOLONG);
	n = scandir(idir, &names, NULL, alphasort);
	if (n < 0)
		return cli_file_error(idir, errno);
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' && !cli_path(dir, sizeof(dir), idir, names[i]->d_name))
			rc |= fn(dir, names[i]->d_name, arg);
		free(names[i]);
	}
	free(names);
	return rc;
}

int cli_session_dir(char *buf, size_t size, const char *mnt, const char *name)
{
	if (name)
		return cli_instance_dir(buf, size, mnt, name);
	if ((size_t)snprintf(buf, size, "%s", mnt) >= size)
		return cli_file_error(mnt, ENAMETOOLONG);
	return 0;
}

int cli_mounted_session(char *mnt, size_t msize, char *dir, size_t dsize, const char *name)
{
	if (cli_mounted_dir(mnt, msize))
		return CLI_FAIL;
	return cli_session_dir(dir, dsize, mnt, name);
}

int cli_parse_cpu(const char *arg, int *cpu)
{
	if (!*arg || strspn(arg, "0123456789") != strlen(arg) || strlen(arg) > 5)
		return cli_usage_error("bad CPU number '%s'", arg);
	*cpu = atoi(arg);
	return 0;
}

int cli_cpu_file(char *buf, size_t size, int cpu, const char *file)
{
	int n = cpu < 0 ? snprintf(buf, size, "%s", file)
			: snprintf(buf, size, "per_cpu/cpu%d/%s", cpu, file);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

unsigned long cli_buffer_kb(const char *dir)
{
	char *val, *exp;
	unsigned long kb;

	if (cli_read_value(dir, "buffer_size_kb", &val))
		return 0;
	exp = strstr(val, "(expanded: ");
	kb = strtoul(exp ? exp + 11 : val, NULL, 10); /* "X" (the CPUs differ): 0 */
	free(val);
	return kb;
}

int cli_parse_file_version(const char *arg, int *version)
{
	if (strcmp(arg, "6") && strcmp(arg, "7"))
		return cli_usage_error("--file-version %s: 6 or 7", arg);
	*version = arg[0] - '0';
	return 0;
}

bool cli_file_exists(const char *dir, const char *name)
{
	char path[PATH_MAX];

	return !cli_path(path, sizeof(path), dir, name) && access(path, F_OK) == 0;
}

int cli_clear_trace(const char *dir)
{
	return cli_empty_file(dir, "trace", false);
}

int cli_empty_file(const char *dir, const char *name, bool newline)
{
	char path[PATH_MAX];
	int fd, err = 0;

	if (cli_path(path, sizeof(path), dir, name))
		return cli_file_error(dir, ENAMETOOLONG);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return cli_file_error(path, errno);
	if (newline && write(fd, "\n", 1) != 1)
		err = errno ? errno : EIO;
	if (close(fd) && !err)
		err = errno;
	return err ? cli_file_error(path, err) : 0;
}

int cli_self_dir(char *buf, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return -errno;
	exe[n] = '\0';
	if ((size_t)snprintf(buf, size, "%s", dirname(exe)) >= size)
		return -ENAMETOOLONG;
	return 0;
}

int cli_sibling(char *buf, size_t size, const char *rel)
{
	char dir[PATH_MAX], joined[PATH_MAX];
	int err = cli_self_dir(dir, sizeof(dir));

	if (!err)
		err = cli_path(joined, sizeof(joined), dir, rel);
	if (err)
		return err;
	/* Canonical when it exists (messages read better); as is otherwise. */
	if (realpath(joined, dir) && strlen(dir) < size) {
		strcpy(buf, dir);
		return 0;
	}
	if (strlen(joined) >= size)
		return -ENAMETOOLONG;
	strcpy(buf, joined);
	return 0;
}

int cli_preload_value(char *buf, size_t size, const char *old, const char *lib)
{
	int n;

	/* After what is there: a sanitizer runtime must stay first. */
	if (old && *old)
		n = snprintf(buf, size, "%s:%s", old, lib);
	else
		n = snprintf(buf, size, "%s", lib);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int cli_tracing_dir(char *buf, size_t size, const char *arg)
{
	int err;

	if (arg && !*arg)
		return -EINVAL;
	if (arg)
		return ut_absolute_path(arg, buf, size);
	err = ut_tracing_dir(buf, size);
	/* relative: made absolute here, once, so that it names one place */
	if (err == -EINVAL)
		err = ut_absolute_path(getenv("UTRACE_TRACING"), buf, size);
	return err;
}

bool cli_tracing_env_relative(void)
{
	const char *env = getenv("UTRACE_TRACING");

	return env && *env && *env != '/';
}

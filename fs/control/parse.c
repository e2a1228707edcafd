// SPDX-License-Identifier: MIT
/*
 * parse.c - parsing what users write to one-value control files, with the
 * kernel's rules so that the same writes succeed or fail the same way.
 *
 * The kernel reads such values with kstrtoul_from_user(buf, count, 10, &val):
 * at most 66 bytes of the write are looked at (the rest is silently ignored),
 * then kstrtoul: an optional '+', decimal digits (at least one), one optional
 * trailing newline and nothing else; a value beyond unsigned long is ERANGE.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "tfs.h"

/* sign + 64 binary digits + newline: what kstrtoul_from_user copies at most */
#define TFS_ULONG_TEXT_MAX 66

int tfs_parse_ulong(const char *buf, size_t size, unsigned long *val)
{
	char text[TFS_ULONG_TEXT_MAX + 1];
	unsigned long v = 0;
	const char *s = text;
	int digits = 0;

	if (size > TFS_ULONG_TEXT_MAX)
		size = TFS_ULONG_TEXT_MAX;
	memcpy(text, buf, size);
	text[size] = '\0'; /* an embedded NUL ends the text, as in the kernel */

	if (*s == '+')
		s++;
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (ULONG_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (!digits)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*val = v;
	return 0;
}

int tfs_strip(const char *buf, size_t size, char *out, size_t outsize)
{
	const char *end = memchr(buf, '\0', size);
	size_t len;

	if (end)
		size = (size_t)(end - buf);
	while (size && isspace((unsigned char)*buf)) {
		buf++;
		size--;
	}
	while (size && isspace((unsigned char)buf[size - 1]))
		size--;
	if (size >= outsize)
		return -EINVAL;
	len = size;
	memcpy(out, buf, len);
	out[len] = '\0';
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * ftrace_glob.c - the patterns of the filter files, as the kernel reads them
 * (kernel/trace/ftrace.c filter_parse_regex, lib/glob.c glob_match): `x`, `x*`,
 * `*x`, `*x*`, a full glob when `*` is inside or `?`, `[` or `\` appear, and a
 * number for a line of available_filter_functions.
 */
#include <ctype.h>
#include <string.h>

#include "functab.h"

/* `*` and `?` wildcards, `[a-z]` and `[!a-z]` classes, `\` escapes; no special `/`. */
bool tfs_glob_match(const char *pat, const char *str)
{
	const char *back_pat = NULL, *back_str = NULL;

	for (;;) {
		unsigned char c = (unsigned char)*str++;
		unsigned char d = (unsigned char)*pat++;

		switch (d) {
		case '?':
			if (!c)
				return false;
			continue;
		case '*':
			if (!*pat)
				return true;
			back_pat = pat;
			back_str = --str; /* a zero-length match first */
			continue;
		case '[': {
			bool match = false, inverted = *pat == '!';

			if (!c) /* not even `[!x]` matches past the end */
				return false;
			const char *cls = pat + inverted;
			unsigned char a = (unsigned char)*cls++;

			do {
				unsigned char b = a;

				if (!a)
					goto literal; /* no closing bracket: a plain '[' */
				if (cls[0] == '-' && cls[1] != ']') {
					b = (unsigned char)cls[1];
					if (!b)
						goto literal;
					cls += 2;
				}
				match |= a <= c && c <= b;
			} while ((a = (unsigned char)*cls++) != ']');
			if (match == inverted)
				goto backtrack;
			pat = cls;
			continue;
		}
		case '\\':
			d = (unsigned char)*pat++;
			break;
		}
	literal:
		if (c == d) {
			if (!d)
				return true;
			continue;
		}
	backtrack:
		if (!c || !back_pat)
			return false;
		pat = back_pat;
		str = ++back_str;
	}
}

/* Parse a pattern in place (a trailing `*` is cut off); *not: it started with `!`. */
enum tfs_match tfs_parse_regex(char *buff, struct tfs_glob *g, int * not )
{
	enum tfs_match type = MATCH_FULL;
	size_t len;

	*not = buff[0] == '!';
	buff += *not ;
	len = strlen(buff);
	g->search = buff;
	g->type = MATCH_FULL;
	if (isdigit((unsigned char)buff[0])) {
		g->type = MATCH_INDEX;
		g->len = len;
		return g->type;
	}
	for (size_t i = 0; i < len; i++) {
		if (buff[i] == '*') {
			if (!i) {
				type = MATCH_END_ONLY;
			} else if (i == len - 1) {
				type =
				    type == MATCH_END_ONLY ? MATCH_MIDDLE_ONLY : MATCH_FRONT_ONLY;
				buff[i] = '\0';
				break;
			} else {
				type = MATCH_GLOB;
				goto out;
			}
		} else if (strchr("[?\\", buff[i])) {
			type = MATCH_GLOB;
			goto out;
		}
	}
	if (buff[0] == '*')
		g->search = buff + 1;
out:
	g->type = type;
	g->len = strlen(g->search);
	return type;
}

bool tfs_glob_hit(const char *str, const struct tfs_glob *g)
{
	size_t slen;

	switch (g->type) {
	case MATCH_FULL:
		return !strcmp(str, g->search);
	case MATCH_FRONT_ONLY:
		return !strncmp(str, g->search, g->len);
	case MATCH_MIDDLE_ONLY:
		return strstr(str, g->search) != NULL;
	case MATCH_END_ONLY:
		slen = strlen(str);
		return slen >= g->len && !memcmp(str + slen - g->len, g->search, g->len);
	case MATCH_GLOB:
		return tfs_glob_match(g->search, str);
	case MATCH_INDEX:
		break;
	}
	return false;
}

/* SPDX-License-Identifier: MIT */
/*
 * site_byte.h - for test programs that show whether a function's patch site is
 * patched: print "NAME XX", XX the first byte of the site (after an endbr64 when
 * there is one): 0f a 5-byte NOP, e8 a call (function), e9 a jump (function_graph),
 * "NAME ?" when the program does not know NAME.  The program defines
 * lookup(name), which returns the function's address or NULL.
 */
#ifndef SITE_BYTE_H
#define SITE_BYTE_H

#include <stdio.h>

static void *lookup(const char *name);

static void print_site(const char *name)
{
	const unsigned char *p = lookup(name);

	if (!p) {
		printf("%s ?\n", name);
		return;
	}
	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;
	printf("%s %02x\n", name, p[0]);
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * entry_bytes.h - the benchmark programs show a function's patch site: its five bytes
 * in hex (after an endbr64 when there is one), no newline.  0f1f440000 is utrace's
 * NOP, e8... a call.
 */
#ifndef BENCH_ENTRY_BYTES_H
#define BENCH_ENTRY_BYTES_H

#include <stdio.h>
#include <string.h>

static void print_entry(const unsigned char *p)
{
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	int i;

	if (memcmp(p, endbr64, sizeof(endbr64)) == 0)
		p += sizeof(endbr64);
	for (i = 0; i < 5; i++)
		printf("%02x", p[i]);
}

#endif

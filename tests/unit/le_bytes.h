/* SPDX-License-Identifier: MIT */
/* le_bytes.h - reading the little-endian words of a kernel entry or page in unit tests. */
#ifndef UT_TEST_LE_BYTES_H
#define UT_TEST_LE_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

#endif

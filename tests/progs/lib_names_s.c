// SPDX-License-Identifier: MIT
/*
 * lib_names_s.c - built stripped as lib_names_s.so (.dynsym only, no build-id),
 * for test_sym: s_entry calls a static function (no symbol of its own) and
 * s_jump ends with a call to a noreturn function (its return address is one
 * past its last byte).
 */
#include <stdlib.h>

#define NOINL __attribute__((noinline))

volatile int names_s_sink;

static NOINL void s_hidden(void)
{
	names_s_sink += 3;
}

NOINL void s_entry(void)
{
	s_hidden();
	names_s_sink++;
}

NOINL void s_jump(void)
{
	names_s_sink++;
	abort();
}

/* where s_hidden is, for the test */
void *s_hidden_addr(void)
{
	return (void *)s_hidden;
}

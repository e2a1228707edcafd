/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what the libFuzzer harnesses of tests/fuzz/ share: a daemon state as
 * utracefs has it after start (two CPUs, a real shared area, the clock), and a
 * function table of two objects for the filter files to match against.
 *
 * Each harness is one fuzz_NAME.c defining LLVMFuzzerTestOneInput; its seed
 * corpus (and every input that once crashed it) is tests/fuzz/corpus/NAME/.
 * `make fuzz` runs each for FUZZ_SECONDS; `make test` replays each corpus once.
 */
#ifndef UT_FUZZ_H
#define UT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "functab.h"
#include "tfs.h"

#define FUZZ_CPUS 2

/* The daemon's state at start: defaults, clock, area (once per process). */
static inline void fuzz_daemon_init(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	tfs_clock_init();
	tfs_state_defaults(FUZZ_CPUS);
	if (tfs_area_init(FUZZ_CPUS))
		abort();
}

/* Functions to select: an executable and a library, as registered processes send them. */
static inline void fuzz_functions(void)
{
	static const uint32_t exe_offs[] = {0x400, 0x100, 0x200, 0x300, 0x380, 0x600};
	static const char *const exe_names[] = {"gamma_x", "main", "alpha", "alpha_two",
						"beta",	   NULL};
	static const uint32_t lib_offs[] = {0x20, 0x10, 0x30};
	static const char *const lib_names[] = {"foo_run", "foo_init", "alpha"};

	tfs_ft_reset();
	tfs_ft_add_named(100, 0, "/opt/app/prog", true, 0x555500000000, 6, exe_offs, exe_names);
	tfs_ft_add_named(100, 1, "/usr/lib/libfoo.so.1", false, 0x7f0000000000, 3, lib_offs,
			 lib_names);
}

/* A NUL-terminated copy of the input (the caller frees it). */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif

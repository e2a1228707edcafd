// SPDX-License-Identifier: MIT
/*
 * fuzz_sdt.c - the <sys/sdt.h> note and operand parsers (common/ut_sdt.c): the input
 * is a .note.stapsdt section as an object file may hold it; each note's argument
 * text is parsed and every argument fetched, with registers and memory that give
 * back their address (reads beyond a window fault).  The whole input is also
 * parsed as one argument text.
 */
#include <errno.h>

#include "fuzz.h"
#include "ut_sdt.h"

static int read_window(uint64_t addr, void *buf, size_t n)
{
	if (addr < 0x1000 || addr > 0x2000)
		return -EFAULT;
	memcpy(buf, &addr, n); /* n is 1, 2, 4 or 8 */
	return 0;
}

static void fetch_all(const struct ut_sdt_arg *a, int n)
{
	uint64_t regs[UT_SDT_NREGS];
	int fault = 0;

	for (unsigned int r = 0; r < UT_SDT_NREGS; r++)
		regs[r] = 0x1000 + 8 * r;
	for (int i = 0; i < n; i++) {
		uint64_t v = ut_sdt_fetch(&a[i], regs, 0x1800, read_window, &fault);

		if (a[i].size < 8 && !a[i].is_signed && v >> (a[i].size * 8))
			abort(); /* an unsigned value wider than its size */
		(void)ut_sdt_type_name(&a[i]);
		(void)ut_sdt_type_fmt(&a[i]);
	}
}

static void one_note(const struct ut_sdt_note *n, void *arg)
{
	struct ut_sdt_arg a[UT_SDT_ARGS_MAX];
	int nr = ut_sdt_args_parse(n->args, a, UT_SDT_ARGS_MAX);

	(void)arg;
	if (nr > (int)UT_SDT_ARGS_MAX)
		abort();
	fetch_all(a, nr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ut_sdt_arg a[UT_SDT_ARGS_MAX];
	char *text = malloc(size + 1);
	int nr;

	ut_sdt_notes(data, size, one_note, NULL);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	nr = ut_sdt_args_parse(text, a, UT_SDT_ARGS_MAX);
	fetch_all(a, nr);
	free(text);
	return 0;
}

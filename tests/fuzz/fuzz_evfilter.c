// SPDX-License-Identifier: MIT
/*
 * fuzz_evfilter.c - the event filter language (event_filter.c): any text is
 * compiled against a table with every kind of field; a program that compiles must
 * pass the check the processes make (ut_evf_valid) and run on records of every
 * length (ut_evf_match); a refused one must show its error.
 *
 * Input: the filter text; its first 72 bytes (zero-padded) also make the record.
 */
#include "fuzz.h"
#include "event_filter.h"

static const struct tfs_flt_field fields[] = {
	{"common_type", 0, 2, false, UT_EVF_NUM},   {"common_pid", 4, 4, true, UT_EVF_NUM},
	{"comm", 8, 16, false, UT_EVF_STR_FIXED},   {"pid", 24, 4, true, UT_EVF_NUM},
	{"prio", 28, 2, true, UT_EVF_NUM},	    {"state", 32, 8, true, UT_EVF_NUM},
	{"flags", 40, 8, false, UT_EVF_NUM},	    {"small", 48, 1, false, UT_EVF_NUM},
	{"name", 52, 4, false, UT_EVF_STR_DYN},	    {"big", 56, 16, false, UT_EVF_NUM},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), shown[8192];
	unsigned char rec[72] = {0};
	struct ut_evf_prog *p = NULL;
	struct tfs_flt_error e;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	memcpy(rec, data, size < sizeof(rec) ? size : sizeof(rec));
	if (tfs_flt_compile(text, fields, sizeof(fields) / sizeof(fields[0]), &p, &e) == 0) {
		if (!ut_evf_valid(p, ut_evf_size(p->nr)))
			abort(); /* the compiler made what no process would run */
		for (unsigned int n = 0; n <= sizeof(rec); n += 8)
			ut_evf_match(p, rec, n, rec[0], (const char *)rec + 8);
		free(p);
	} else {
		tfs_flt_error_show(shown, sizeof(shown), text, &e);
		tfs_flt_err_text(e.code);
	}
	free(text);
	return 0;
}

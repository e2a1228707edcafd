/* SPDX-License-Identifier: MIT */
/*
 * print_fmt_fixture.h - the event definition the print format tests render on
 * (tests/unit/test_print_fmt.c, tests/fuzz/fuzz_print_fmt.c): a field of every kind
 * and size, the fixed part 64 bytes.
 */
#ifndef PRINT_FMT_FIXTURE_H
#define PRINT_FMT_FIXTURE_H

#include "event_defs.h"

/* The definition's fields: type, name, offset, size, element size, signed, kind. */
static const struct tfs_event_field pf_fixture_fields[] = {
    {"int", "i", 8, 4, 4, 1, UT_EVF_KIND_PLAIN},
    {"unsigned int", "u", 12, 4, 4, 0, UT_EVF_KIND_PLAIN},
    {"long", "l", 16, 8, 8, 1, UT_EVF_KIND_PLAIN},
    {"unsigned long", "ul", 24, 8, 8, 0, UT_EVF_KIND_PLAIN},
    {"short", "s", 32, 2, 2, 1, UT_EVF_KIND_PLAIN},
    {"unsigned char", "c", 34, 1, 1, 0, UT_EVF_KIND_PLAIN},
    {"signed char", "sc", 35, 1, 1, 1, UT_EVF_KIND_PLAIN},
    {"__data_loc char[]", "str", 36, 4, 1, 1, UT_EVF_KIND_STRING},
    {"__data_loc int[]", "arr", 40, 4, 4, 1, UT_EVF_KIND_DYN_ARRAY},
    {"char", "tag[8]", 44, 8, 1, 1, UT_EVF_KIND_ARRAY},
    {"u8", "bytes[4]", 52, 4, 1, 0, UT_EVF_KIND_ARRAY},
    {"void *", "p", 56, 8, 8, 0, UT_EVF_KIND_PLAIN},
};

#endif

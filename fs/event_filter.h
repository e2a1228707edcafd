/* SPDX-License-Identifier: MIT */
/*
 * event_filter.h - the kernel's event filter language (events/.../filter): parsed
 * and checked against an event's fields, compiled into a flat program of
 * predicates and branches that any writer can run on a record without recursion
 * or allocation, and the kernel's answers to a bad filter (errno, the text the
 * filter file shows, the error_log entry).
 */
#ifndef TFS_EVENT_FILTER_H
#define TFS_EVENT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ut_evfilter.h"

#define TFS_FLT_NUM_MAX 24  /* a number operand's text, NUL included */

struct tfs_flt_field {
	const char *name;
	uint16_t offset, size;
	bool is_signed;
	uint8_t kind; /* enum ut_evf_kind */
};

/* Errors, with the kernel's texts (tfs_flt_err_text). */
enum tfs_flt_code {
	TFS_FLT_OK = 0,
	TFS_FLT_INVALID_OP,
	TFS_FLT_TOO_MANY_OPEN,
	TFS_FLT_TOO_MANY_CLOSE,
	TFS_FLT_MISSING_QUOTE,
	TFS_FLT_OPERAND_TOO_LONG,
	TFS_FLT_EXPECT_STRING,
	TFS_FLT_EXPECT_DIGIT,
	TFS_FLT_ILLEGAL_FIELD_OP,
	TFS_FLT_FIELD_NOT_FOUND,
	TFS_FLT_ILLEGAL_INTVAL,
	TFS_FLT_BAD_SUBSYS_FILTER,
	TFS_FLT_TOO_MANY_PREDS,
	TFS_FLT_INVALID_FILTER,
	TFS_FLT_INVALID_VALUE,
	TFS_FLT_ERRNO, /* no parse error of its own: "Error" */
	TFS_FLT_NO_FILTER,
};

/* The outcome of a compile that failed: errno, and the parse error and its place. */
struct tfs_flt_error {
	int err;      /* negative errno, the kernel's for this failure */
	int code;     /* enum tfs_flt_code; TFS_FLT_OK: none of its own */
	unsigned pos; /* byte offset the error_log caret points at */
};

/*
 * Compile str (the text written, without its newline) against fields[nr]: 0 and
 * *out (malloc'ed, ut_evf_size(nr) bytes; free()), or -errno with *e filled.
 */
int tfs_flt_compile(const char *str, const struct tfs_flt_field *fields, unsigned int nr,
		    struct ut_evf_prog **out, struct tfs_flt_error *e);


const char *tfs_flt_err_text(int code);

/*
 * What the filter file shows after a failed write of str: str, a caret line and
 * "parse_error: TEXT", or "Error: (0)" for a failure without a parse error.
 * Returns the bytes written (snprintf's).
 */
int tfs_flt_error_show(char *buf, size_t size, const char *str, const struct tfs_flt_error *e);

#endif

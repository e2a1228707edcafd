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

#define TFS_FLT_STR_MAX 256 /* a string operand, NUL included (the kernel's) */
#define TFS_FLT_NUM_MAX 24  /* a number operand's text, NUL included */

/* What a field is to a filter. */
enum tfs_flt_kind {
	TFS_FLT_NUM,	   /* an integer (or pointer) of 1, 2, 4 or 8 bytes */
	TFS_FLT_STR_FIXED, /* char name[N]: up to N bytes or a NUL */
	TFS_FLT_STR_DYN,   /* __data_loc char[]: offset | length << 16 */
	TFS_FLT_CPU,	   /* the pseudo-field CPU (cpu): where the event is written */
	TFS_FLT_COMM,	   /* the pseudo-field COMM (comm): the writing thread's name */
};

struct tfs_flt_field {
	const char *name;
	uint16_t offset, size;
	bool is_signed;
	uint8_t kind; /* enum tfs_flt_kind */
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

enum tfs_flt_op { TFS_FLT_EQ, TFS_FLT_NE, TFS_FLT_LT, TFS_FLT_LE, TFS_FLT_GT, TFS_FLT_GE,
		  TFS_FLT_BAND, TFS_FLT_GLOB };

/* How a string predicate matches (a ~ pattern reduced as the kernel does). */
enum tfs_flt_match { TFS_FLT_FULL, TFS_FLT_FRONT, TFS_FLT_MIDDLE, TFS_FLT_END, TFS_FLT_PATTERN };

struct tfs_flt_pred {
	uint16_t offset, size;
	uint8_t kind, is_signed, op, match;
	uint8_t neg;	 /* != or a !pattern: the match inverted */
	uint64_t val;	 /* numbers: the operand, as the field's type */
	uint16_t len;	 /* strings: of str */
	char str[TFS_FLT_STR_MAX];
};

/*
 * The program: entry i tests its predicate; when the result equals
 * when[i] it goes on at target[i], else at i + 1.  Reaching nr (TRUE) or nr + 1
 * (FALSE) ends it.  Targets always move forward.
 */
struct tfs_flt_prog {
	unsigned int nr;
	struct tfs_flt_entry {
		uint16_t target;
		uint8_t when;
	} *prog;
	struct tfs_flt_pred *preds;
};

/* The outcome of a compile that failed: errno, and the parse error and its place. */
struct tfs_flt_error {
	int err;      /* negative errno, the kernel's for this failure */
	int code;     /* enum tfs_flt_code; TFS_FLT_OK: none of its own */
	unsigned pos; /* byte offset the error_log caret points at */
};

/*
 * Compile str (the text written, without its newline) against fields[nr]: 0 and
 * *out, or -errno with *e filled.  Free a program with tfs_flt_free.
 */
int tfs_flt_compile(const char *str, const struct tfs_flt_field *fields, unsigned int nr,
		    struct tfs_flt_prog **out, struct tfs_flt_error *e);
void tfs_flt_free(struct tfs_flt_prog *p);

/* Does the record rec (size bytes) pass?  cpu and comm: the writer's. */
bool tfs_flt_match(const struct tfs_flt_prog *p, const void *rec, unsigned int size,
		   unsigned int cpu, const char *comm);

const char *tfs_flt_err_text(int code);

/*
 * What the filter file shows after a failed write of str: str, a caret line and
 * "parse_error: TEXT", or "Error: (0)" for a failure without a parse error.
 * Returns the bytes written (snprintf's).
 */
int tfs_flt_error_show(char *buf, size_t size, const char *str, const struct tfs_flt_error *e);

#endif

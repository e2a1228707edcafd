/* SPDX-License-Identifier: MIT */
/*
 * print_fmt_int.h - the parsed form of a print format, shared by the parser
 * (print_fmt.c) and the renderer (print_fmt_render.c).
 *
 * A format is its text with the C escapes decoded, cut into conversions (each with
 * the literal text before it), and one expression tree per argument.  Nodes live in
 * one array allocated with the format, of the size the parse needs (it never grows,
 * so pointers into it stay valid); the strings of the expressions live in `pool`.
 */
#ifndef TFS_PRINT_FMT_INT_H
#define TFS_PRINT_FMT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "print_fmt.h"
#include "ut_event.h"
#include "ut_printf.h"

/* A conversion (ut_printf.h) and the literal text before it, in text[]. */
struct pf_spec {
	uint16_t lit_off, lit_len;
	struct ut_pf_conv c;
};

enum pf_kind {
	N_NUM,	    /* num, with size and is_signed */
	N_STR,	    /* a string literal: str, slen */
	N_FIELD,    /* REC->field: field */
	N_GET_STR,  /* __get_str(field) */
	N_GET_DYN,  /* __get_dynamic_array(field) */
	N_DYN_LEN,  /* __get_dynamic_array_len(field) */
	N_UNARY,    /* op a */
	N_BINARY,   /* a op b */
	N_COND,	    /* a ? b : c */
	N_CAST,	    /* (type) a: size, is_signed */
	N_SYMBOLIC, /* __print_symbolic(a, entries from next) */
	N_FLAGS,    /* __print_flags(a, str as delimiter, entries from next) */
	N_HEX,	    /* __print_hex(a, b) */
	N_HEX_STR,  /* __print_hex_str(a, b) */
	N_ARRAY,    /* __print_array(a, b, c) */
	N_ENT,	    /* {a, "str"}: one entry of a table, the next in next */
	N_INDEX,    /* a[b]: an element of an array */
};

/* Operators beyond single characters. */
enum { OP_SHL = 128, OP_SHR, OP_LE, OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR };

struct pf_node {
	uint8_t kind, op, size, is_signed;
	int field;
	uint64_t num;
	const char *str;
	size_t slen;
	struct pf_node *a, *b, *c, *next;
};

#define PF_MAX_SPECS 64
#define PF_MAX_ARGS 64

struct tfs_pfmt {
	char text[UT_EVENT_FMT_MAX];
	struct pf_spec specs[PF_MAX_SPECS];
	unsigned int nspecs;
	uint16_t tail_off, tail_len; /* the literal text after the last conversion */
	struct pf_node *args[PF_MAX_ARGS];
	unsigned int nargs;
	char pool[UT_EVENT_FMT_MAX];
	size_t npool;
	unsigned int nnodes, cap;
	struct pf_node nodes[];
};

#endif

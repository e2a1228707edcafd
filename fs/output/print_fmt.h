/* SPDX-License-Identifier: MIT */
/*
 * print_fmt.h - a trace event's print format (TP_printk, as its format file shows it:
 * `"text %d", REC->field, ...`) parsed once into the format and its argument
 * expressions, then rendered for each record as the kernel's trace output renders a
 * TRACE_EVENT: its vsnprintf conversions, its helpers (__print_symbolic, __print_flags,
 * __print_hex, __print_array, __get_str, ...) and C arithmetic on the fields.
 *
 * Anything the parser does not understand makes tfs_pfmt_parse() fail, and anything
 * the renderer cannot evaluate for one record (a division by zero, a string where a
 * number belongs) makes tfs_pfmt_render() fail without writing: the caller then shows
 * the fields instead (tfs_event_print), so a format never prints garbage.
 */
#ifndef TFS_PRINT_FMT_H
#define TFS_PRINT_FMT_H

#include <stdbool.h>
#include <stdint.h>

#include "../tfs.h"

struct tfs_event_def;
struct tfs_pfmt;

/* Parse d->print_fmt against d's fields: the parsed format, or NULL and *why. */
struct tfs_pfmt *tfs_pfmt_parse(const struct tfs_event_def *d, const char **why);
void tfs_pfmt_free(struct tfs_pfmt *pf);

/* What rendering one record needs besides the record. */
struct tfs_pfmt_env {
	const unsigned char *rec; /* the record: common fields first */
	unsigned int size;	  /* its length (at least the definition's size) */
	bool hash_ptr;		  /* option hash-ptr: plain %p shows a hash */
	uint64_t hash_key;	  /* the key of that hash (one per mount) */
	/*
	 * %pS/%ps: append addr's name (with "+0x1a/0x40" when offset) to b; 0, or
	 * <0 when nothing is known (then "0x%lx" is shown, as the kernel does).
	 * NULL: nothing is ever known.
	 */
	int (*sym)(void *arg, uint64_t addr, bool offset, struct tfs_buf *b);
	void *sym_arg;
};

/* Append the text of one record (no newline): 0, or -EINVAL and b unchanged. */
int tfs_pfmt_render(const struct tfs_pfmt *pf, const struct tfs_event_def *d,
		    const struct tfs_pfmt_env *env, struct tfs_buf *b);

/*
 * A bprint record's text, as the kernel's bstr_printf makes it: fmt with the
 * arguments packed in buf (n bytes) as ut_printf.h lays them out; strings and the
 * format's own text as they are.  0, or -EINVAL when a conversion is not one the
 * kernel's printf knows or the arguments end before the conversions do: the text
 * up to there is in b (a record cut short shows nothing made up).
 */
int tfs_pfmt_render_bin(const char *fmt, const unsigned char *buf, uint32_t n,
			const struct tfs_pfmt_env *env, struct tfs_buf *b);

/*
 * The fields of d that pf prints as functions: the 8-byte REC->field (or a cast
 * of one) of a %pS, %ps, %pF or %pf.  Their offsets in the record into offs (at
 * most PF_SYM_FIELDS_MAX); returns how many.
 */
#define PF_SYM_FIELDS_MAX 8
unsigned int tfs_pfmt_sym_fields(const struct tfs_pfmt *pf, const struct tfs_event_def *d,
				 uint16_t offs[PF_SYM_FIELDS_MAX]);

/* The kernel's hashed pointer (ptr_to_id): a 32-bit keyed hash, 0 and errors as is. */
uint64_t tfs_pfmt_hash_ptr(uint64_t ptr, uint64_t key);

#endif

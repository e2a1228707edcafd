/* SPDX-License-Identifier: MIT */
/*
 * ut_printf.h - one conversion of a printf format as the kernel's vsnprintf reads
 * it, and where its argument sits in a binary trace_printk record (bprint).
 *
 * Three places read formats: utracefs's print-format parser (trace events,
 * fs/output/print_fmt.c), the runtime's packer of trace_printk arguments
 * (runtime/bprint.c) and utracefs's renderer of bprint records
 * (fs/output/print_fmt_render.c).  The packer and the renderer must agree on every
 * byte, so both take the layout from here.
 *
 * THE PACKED ARGUMENTS (the kernel's vbin_printf, which bstr_printf reads back): in
 * the order of the format, each `*` width or precision as an int, then the value:
 *   - integers by their length modifier: hh 1 byte, h 2, none 4, l ll L q z t j 8
 *     (j, which the kernel's printf lacks, is C's intmax_t: 8 bytes here), %c one
 *     byte; each aligned to its own size except 8-byte values, aligned to 4;
 *   - %p (with or without an extension) 8 bytes aligned to 4: the pointer itself;
 *   - %s the string's bytes and its NUL, not aligned;
 *   - %% nothing.
 * The record holds the words up to the last byte written (a multiple of 4).
 */
#ifndef UT_PRINTF_H
#define UT_PRINTF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

/* The kernel's printf_spec flags. */
enum {
	UT_PF_LEFT = 1,	   /* - */
	UT_PF_PLUS = 2,	   /* + */
	UT_PF_SPACE = 4,   /* space */
	UT_PF_SPECIAL = 8, /* # */
	UT_PF_ZEROPAD = 16 /* 0 */
};
#define UT_PF_NONE (-1) /* no width or precision given */
#define UT_PF_STAR (-2) /* `*`: taken from the arguments */
/* The widest width or precision shown: a hostile format must not make huge lines. */
#define UT_PF_WIDTH_MAX 4096

struct ut_pf_conv {
	uint8_t flags;
	int16_t width, prec;
	uint8_t lenbits; /* 8, 16, 32 or 64: hh, h, none, l/ll/L/q/z/t/j */
	char conv;	 /* d i u x X o c s p % */
	char ext;	 /* after p: the first letter or digit of an extension, or 0 */
};

static inline int ut_pf_num(const char **s)
{
	int v = 0;

	while (**s >= '0' && **s <= '9') {
		if (v < UT_PF_WIDTH_MAX)
			v = v * 10 + (**s - '0');
		(*s)++;
	}
	return v > UT_PF_WIDTH_MAX ? UT_PF_WIDTH_MAX : v;
}

static inline bool ut_pf_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * Decode the conversion after a '%' at *s into c and move *s past it (past every
 * letter and digit of a %p extension, as the kernel's vsnprintf skips them).
 * False for one the kernel's printf does not know (%n, %f, a lone '%' at the end):
 * *s is then left anywhere.
 */
static inline bool ut_pf_decode(const char **s, struct ut_pf_conv *c)
{
	const char *p = *s;

	c->flags = 0;
	for (;; p++) {
		if (*p == '-')
			c->flags |= UT_PF_LEFT;
		else if (*p == '+')
			c->flags |= UT_PF_PLUS;
		else if (*p == ' ')
			c->flags |= UT_PF_SPACE;
		else if (*p == '#')
			c->flags |= UT_PF_SPECIAL;
		else if (*p == '0')
			c->flags |= UT_PF_ZEROPAD;
		else
			break;
	}
	c->width = UT_PF_NONE;
	if (*p == '*')
		c->width = UT_PF_STAR, p++;
	else if (*p >= '0' && *p <= '9')
		c->width = (int16_t)ut_pf_num(&p);
	c->prec = UT_PF_NONE;
	if (*p == '.') {
		p++;
		if (*p == '*')
			c->prec = UT_PF_STAR, p++;
		else
			c->prec = (int16_t)ut_pf_num(&p); /* "%.d": precision 0 */
	}
	c->lenbits = 32;
	if (p[0] == 'h' && p[1] == 'h')
		c->lenbits = 8, p += 2;
	else if (*p == 'h')
		c->lenbits = 16, p++;
	else if (p[0] == 'l' && p[1] == 'l')
		c->lenbits = 64, p += 2;
	else if (*p == 'l' || *p == 'L' || *p == 'q' || *p == 'z' || *p == 't' || *p == 'j')
		c->lenbits = 64, p++;
	switch (*p) {
	case 'd':
	case 'i':
	case 'u':
	case 'x':
	case 'X':
	case 'o':
	case 'c':
	case 's':
	case 'p':
	case '%':
		break;
	default:
		return false;
	}
	c->conv = *p++;
	c->ext = 0;
	if (c->conv == 'p' && ut_pf_alnum(*p)) {
		c->ext = *p;
		while (ut_pf_alnum(*p))
			p++;
	}
	*s = p;
	return true;
}

/* The %p extensions a bprint record can carry (the pointer itself, shown later). */
static inline bool ut_pf_ext_known(char ext)
{
	return !ext || ext == 'S' || ext == 's' || ext == 'F' || ext == 'f' || ext == 'B' ||
	       ext == 'x' || ext == 'K';
}

/*
 * The packed size of c's value: 1, 2, 4 or 8 bytes, 0 for a string (its bytes and
 * NUL), -1 for %% (nothing).  Its alignment is ut_pf_align(size).
 */
static inline int ut_pf_arg_size(const struct ut_pf_conv *c)
{
	switch (c->conv) {
	case '%':
		return -1;
	case 's':
		return 0;
	case 'c':
		return 1;
	case 'p':
		return 8;
	default:
		return c->lenbits / 8;
	}
}

/* Where an argument of size bytes starts at offset off (8-byte ones align to 4). */
static inline uint32_t ut_pf_align(uint32_t off, int size)
{
	uint32_t a = size >= 4 ? 4u : size > 0 ? (uint32_t)size : 1u;

	return (off + a - 1) & ~(a - 1);
}

/*
 * Pack the arguments of fmt from ap into out (room bytes) as the kernel's
 * vbin_printf does: the bytes used (a multiple of 4; 0 when fmt takes none),
 * -EINVAL when a conversion cannot be packed (%n, %f, an unknown %p extension),
 * -ENOSPC when they take more than room.  ap is consumed either way.
 */
int ut_pf_pack(void *out, uint32_t room, const char *fmt, va_list ap);

#endif

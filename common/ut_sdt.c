// SPDX-License-Identifier: MIT
/*
 * ut_sdt.c - see ut_sdt.h.  The text is the note's, from a file anybody may have
 * written: every length is bounded by the section, every number by its range,
 * and nothing is accepted that the forms in ut_sdt.h do not describe.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "ut_sdt.h"

/* ---- notes ------------------------------------------------------------------------------- */

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The three strings of a note's descriptor after its addresses; false if they do not fit. */
static bool note_strings(const char *s, size_t len, struct ut_sdt_note *n)
{
	const char *end = s + len, *z;

	n->provider = s;
	if (!(z = memchr(s, 0, (size_t)(end - s))))
		return false;
	n->name = z + 1;
	if (n->name >= end || !(z = memchr(n->name, 0, (size_t)(end - n->name))))
		return false;
	n->args = z + 1;
	if (n->args >= end)
		return false;
	return memchr(n->args, 0, (size_t)(end - n->args)) != NULL;
}

unsigned int ut_sdt_notes(const void *sec, size_t len,
			  void (*fn)(const struct ut_sdt_note *n, void *arg), void *arg)
{
	const unsigned char *p = sec;
	size_t off = 0;
	unsigned int count = 0;

	while (len - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_at = off + 12, desc_at;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		if (namesz > len - name_at)
			break;
		desc_at = name_at + align4(namesz);
		if (desc_at > len || descsz > len - desc_at)
			break;
		off = desc_at + align4(descsz);
		if (off > len)
			off = len;
		if (type != UT_SDT_NOTE_TYPE || namesz != 8 || memcmp(p + name_at, "stapsdt", 8) ||
		    descsz < 3 * 8 + 3)
			continue;
		struct ut_sdt_note n = {.pc = get_u64(p + desc_at),
					.base = get_u64(p + desc_at + 8),
					.sem = get_u64(p + desc_at + 16)};

		if (!note_strings((const char *)p + desc_at + 24, descsz - 24, &n))
			continue;
		fn(&n, arg);
		count++;
	}
	return count;
}

/* ---- registers ------------------------------------------------------------------------------ */

/* Each register's names: 64, 32, 16 and low 8 bits. */
static const char *const reg_names[16][4] = {
    {"rax", "eax", "ax", "al"},	     {"rbx", "ebx", "bx", "bl"},
    {"rcx", "ecx", "cx", "cl"},	     {"rdx", "edx", "dx", "dl"},
    {"rsi", "esi", "si", "sil"},     {"rdi", "edi", "di", "dil"},
    {"rbp", "ebp", "bp", "bpl"},     {"rsp", "esp", "sp", "spl"},
    {"r8", "r8d", "r8w", "r8b"},     {"r9", "r9d", "r9w", "r9b"},
    {"r10", "r10d", "r10w", "r10b"}, {"r11", "r11d", "r11w", "r11b"},
    {"r12", "r12d", "r12w", "r12b"}, {"r13", "r13d", "r13w", "r13b"},
    {"r14", "r14d", "r14w", "r14b"}, {"r15", "r15d", "r15w", "r15b"},
};
/* bits 8-15 of the first four */
static const char *const high_names[4] = {"ah", "bh", "ch", "dh"};

static bool name_is(const char *s, size_t len, const char *name)
{
	return strlen(name) == len && !memcmp(s, name, len);
}

int ut_sdt_reg_lookup(const char *name, size_t len, unsigned int *shift, unsigned int *width)
{
	static const unsigned int widths[4] = {8, 4, 2, 1};

	*shift = 0;
	for (unsigned int r = 0; r < 16; r++)
		for (unsigned int k = 0; k < 4; k++)
			if (name_is(name, len, reg_names[r][k])) {
				*width = widths[k];
				return (int)r;
			}
	for (unsigned int r = 0; r < 4; r++)
		if (name_is(name, len, high_names[r])) {
			*shift = 8;
			*width = 1;
			return (int)r;
		}
	if (name_is(name, len, "rip")) {
		*width = 8;
		return UT_SDT_RIP;
	}
	return -1;
}

/* ---- operands ------------------------------------------------------------------------------- */

struct cur {
	const char *p, *end;
};

static bool at(const struct cur *c, char ch)
{
	return c->p < c->end && *c->p == ch;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool ident_char(char ch, bool first)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == '.' ||
	       ch == '$' || (!first && is_digit(ch));
}

/* A number: decimal, 0x hex or 0 octal, with an optional sign; within 64 bits. */
static bool number(struct cur *c, int64_t *out)
{
	bool neg = false;
	unsigned int base = 10;
	uint64_t v = 0;
	const char *start;

	if (at(c, '-') || at(c, '+'))
		neg = *c->p++ == '-';
	if (c->end - c->p > 2 && c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X')) {
		base = 16;
		c->p += 2;
	} else if (c->end - c->p > 1 && c->p[0] == '0') {
		base = 8;
	}
	start = c->p;
	for (; c->p < c->end; c->p++) {
		char ch = *c->p;
		unsigned int d;

		if (is_digit(ch))
			d = (unsigned int)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			d = (unsigned int)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			d = (unsigned int)(ch - 'A' + 10);
		else
			break;
		if (d >= base || v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	if (c->p == start)
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

/* %name of a 64-bit register (the only ones an address may use), or -1. */
static int addr_reg(struct cur *c, bool rip_ok)
{
	const char *s;
	unsigned int shift, width;
	int r;

	if (!at(c, '%'))
		return -1;
	s = ++c->p;
	while (c->p < c->end && ident_char(*c->p, false))
		c->p++;
	r = ut_sdt_reg_lookup(s, (size_t)(c->p - s), &shift, &width);
	if (r < 0 || width != 8 || (r == UT_SDT_RIP && !rip_ok))
		return -1;
	return r;
}

/* disp(%base,%index,scale) and its parts; disp is a number or, before (%rip), a symbol. */
static int mem_operand(struct cur *c, struct ut_sdt_arg *a)
{
	int r;

	a->kind = UT_SDT_ARG_MEM;
	a->reg = a->index = UT_SDT_NOREG;
	a->scale = 1;
	if (c->p < c->end && ident_char(*c->p, true)) {
		const char *s = c->p;

		while (c->p < c->end && ident_char(*c->p, false))
			c->p++;
		if ((size_t)(c->p - s) >= UT_SDT_SYM_MAX)
			return -EINVAL;
		memcpy(a->sym, s, (size_t)(c->p - s));
		a->sym[c->p - s] = 0;
		a->has_sym = 1;
		if ((at(c, '+') || at(c, '-')) && !number(c, &a->disp))
			return -EINVAL;
	} else if (!at(c, '(') && !number(c, &a->disp)) {
		return -EINVAL;
	}
	if (!at(c, '('))
		return a->has_sym ? 0 : -EINVAL; /* a global's absolute address (non-PIC code) */
	c->p++;
	if (!at(c, ',')) {
		if ((r = addr_reg(c, true)) < 0)
			return -EINVAL;
		a->reg = (uint8_t)r;
	}
	if (at(c, ',')) {
		int64_t scale = 1;

		c->p++;
		if ((r = addr_reg(c, false)) < 0 || r == UT_SDT_RSP)
			return -EINVAL;
		a->index = (uint8_t)r;
		if (at(c, ',')) {
			c->p++;
			if (!number(c, &scale) ||
			    (scale != 1 && scale != 2 && scale != 4 && scale != 8))
				return -EINVAL;
		}
		a->scale = (uint8_t)scale;
	}
	if (!at(c, ')'))
		return -EINVAL;
	c->p++;
	/* a %rip displacement is a symbol's address; a number there means nothing at run time */
	if (a->reg == UT_SDT_RIP && (!a->has_sym || a->index != UT_SDT_NOREG))
		return -EINVAL;
	if (a->reg == UT_SDT_NOREG && a->index == UT_SDT_NOREG)
		return -EINVAL;
	return 0;
}

int ut_sdt_arg_parse(const char *s, size_t len, struct ut_sdt_arg *a)
{
	struct cur c = {s, s + len};
	const char *atsign = memchr(s, '@', len);

	memset(a, 0, sizeof(*a));
	a->size = 8;
	if (atsign) {
		int64_t sz;

		if (!number(&c, &sz) || c.p != atsign)
			return -EINVAL;
		if (sz < -8 || sz > 8 || s[0] == '+')
			return -EINVAL;
		a->is_signed = sz < 0;
		sz = sz < 0 ? -sz : sz;
		if (sz != 1 && sz != 2 && sz != 4 && sz != 8)
			return -EINVAL;
		a->size = (uint8_t)sz;
		c.p++;
	}
	if (at(&c, '%')) {
		const char *n = ++c.p;
		unsigned int shift, width;
		int r;

		while (c.p < c.end && ident_char(*c.p, false))
			c.p++;
		r = ut_sdt_reg_lookup(n, (size_t)(c.p - n), &shift, &width);
		if (r < 0 || r == UT_SDT_RIP)
			return -EINVAL;
		a->kind = UT_SDT_ARG_REG;
		a->reg = (uint8_t)r;
		a->shift = (uint8_t)shift;
	} else if (at(&c, '$')) {
		c.p++;
		if (!number(&c, &a->disp))
			return -EINVAL;
		a->kind = UT_SDT_ARG_IMM;
		a->reg = a->index = UT_SDT_NOREG;
	} else if (mem_operand(&c, a)) {
		return -EINVAL;
	}
	return c.p == c.end ? 0 : -EINVAL;
}

int ut_sdt_args_parse(const char *spec, struct ut_sdt_arg *args, unsigned int max)
{
	const char *p = spec;
	unsigned int n = 0;

	for (;;) {
		const char *e;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return (int)n;
		for (e = p; *e && *e != ' ' && *e != '\t'; e++)
			;
		if (n == max || ut_sdt_arg_parse(p, (size_t)(e - p), &args[n]))
			return -EINVAL;
		n++;
		p = e;
	}
}

/* ---- types and values -------------------------------------------------------------------------
 */

static unsigned int size_rank(unsigned int size)
{
	return size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
}

const char *ut_sdt_type_name(const struct ut_sdt_arg *a)
{
	static const char *const names[2][4] = {{"u8", "u16", "u32", "u64"},
						{"s8", "s16", "s32", "s64"}};

	return names[a->is_signed != 0][size_rank(a->size)];
}

const char *ut_sdt_type_fmt(const struct ut_sdt_arg *a)
{
	if (a->size == 8)
		return a->is_signed ? "%Ld" : "%Lu";
	return a->is_signed ? "%d" : "%u";
}

/* v cut to size bytes, then sign- or zero-extended. */
static uint64_t extend(uint64_t v, unsigned int size, bool is_signed)
{
	unsigned int bits = size * 8;

	if (bits >= 64)
		return v;
	v &= (1ull << bits) - 1;
	if (is_signed && (v >> (bits - 1)) & 1)
		v |= ~0ull << bits;
	return v;
}

uint64_t ut_sdt_fetch(const struct ut_sdt_arg *a, const uint64_t *regs, uint64_t sym_addr,
		      int (*read)(uint64_t addr, void *buf, size_t n), int *fault)
{
	uint64_t v = 0, addr;

	switch (a->kind) {
	case UT_SDT_ARG_REG:
		v = regs[a->reg] >> a->shift;
		break;
	case UT_SDT_ARG_IMM:
		v = (uint64_t)a->disp;
		break;
	case UT_SDT_ARG_MEM:
		addr = (uint64_t)a->disp + (a->has_sym ? sym_addr : 0);
		if (a->reg != UT_SDT_NOREG && a->reg != UT_SDT_RIP)
			addr += regs[a->reg];
		if (a->index != UT_SDT_NOREG)
			addr += regs[a->index] * a->scale;
		if (read(addr, &v, a->size)) { /* little-endian: the low bytes of v */
			v = 0;
			*fault = 1;
		}
		break;
	}
	return extend(v, a->size, a->is_signed);
}

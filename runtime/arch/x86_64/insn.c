// SPDX-License-Identifier: MIT
/*
 * insn.c - the x86-64 decoder and relocator of insn.h.
 *
 * An instruction is: legacy prefixes (f0 f2 f3 2e 36 3e 26 64 65 66 67), then a
 * REX byte that counts only when the opcode follows it, or a VEX (c4, c5) or
 * EVEX (62) prefix that also names the opcode map; the opcode (one byte, or 0f
 * then one byte, or 0f 38 / 0f 3a then one byte); a ModRM byte, maybe a SIB and
 * a displacement; an immediate.  Its length follows from tables of which opcodes
 * take a ModRM and which immediate, and a few rules:
 *
 *   - 66 makes a 16/32-bit immediate ("z") 16 bits, unless REX.W;
 *   - mov reg, imm (b8-bf) takes 8 bytes with REX.W ("v");
 *   - the moffs of a0-a3 are 8 bytes, 4 with 67;
 *   - f6 /0 /1 and f7 /0 /1 (test) have an immediate, the rest of their group none;
 *   - enter takes imm16 and imm8; 3DNow! (0f 0f) ends with an imm8 opcode suffix;
 *   - ModRM mod 0 with r/m 5 is RIP-relative (disp32), in 64-bit mode even with 67;
 *   - 8f with ModRM.reg 0 is pop r/m, any other is AMD's XOP prefix (maps 8-10).
 *
 * A near branch with 66 (and no REX.W, which wins over it: the TLS sequence
 * `66 66 48 e8 call __tls_get_addr`) takes rel16 on AMD's processors and rel32 on Intel's:
 * its length depends on the machine, so it is not decoded (compilers never emit
 * it).  mov to or from a control or debug register (0f 20-23) has register
 * operands whatever ModRM's mod says.
 */
#include <string.h>

#include "insn.h"

enum {
	I_NONE = 0,
	I_B,	 /* imm8 */
	I_W,	 /* imm16 */
	I_Z,	 /* imm16 or imm32 (66) */
	I_V,	 /* imm16, imm32 or imm64 (REX.W) */
	I_WB,	 /* enter: imm16 + imm8 */
	I_MOFFS, /* 8 bytes, 4 with 67 */
	I_REL8,
	I_RELZ, /* rel32 */
	I_MASK = 0x0f,
	F_M = 0x10,	  /* a ModRM byte */
	F_BAD = 0x20,	  /* invalid in 64-bit mode */
	F_PFX = 0x40,	  /* a legacy prefix */
	F_SPECIAL = 0x80, /* decoded by hand: 0f, c4, c5, 62 */
};

/* one row of the opcode map per line */
/* clang-format off */
#define ALU(b) [b] = F_M, [b + 1] = F_M, [b + 2] = F_M, [b + 3] = F_M, [b + 4] = I_B, [b + 5] = I_Z

static const uint8_t map0[256] = {
	ALU(0x00), ALU(0x08), ALU(0x10), ALU(0x18), ALU(0x20), ALU(0x28), ALU(0x30), ALU(0x38),
	[0x06] = F_BAD, [0x07] = F_BAD, [0x0e] = F_BAD, [0x0f] = F_SPECIAL,
	[0x16] = F_BAD, [0x17] = F_BAD, [0x1e] = F_BAD, [0x1f] = F_BAD,
	[0x26] = F_PFX, [0x27] = F_BAD, [0x2e] = F_PFX, [0x2f] = F_BAD,
	[0x36] = F_PFX, [0x37] = F_BAD, [0x3e] = F_PFX, [0x3f] = F_BAD,
	[0x60] = F_BAD, [0x61] = F_BAD, [0x62] = F_SPECIAL, [0x63] = F_M,
	[0x64 ... 0x67] = F_PFX,
	[0x68] = I_Z, [0x69] = F_M | I_Z, [0x6a] = I_B, [0x6b] = F_M | I_B,
	[0x70 ... 0x7f] = I_REL8,
	[0x80] = F_M | I_B, [0x81] = F_M | I_Z, [0x82] = F_BAD, [0x83] = F_M | I_B,
	[0x84 ... 0x8f] = F_M,
	[0x9a] = F_BAD,
	[0xa0 ... 0xa3] = I_MOFFS, [0xa8] = I_B, [0xa9] = I_Z,
	[0xb0 ... 0xb7] = I_B, [0xb8 ... 0xbf] = I_V,
	[0xc0] = F_M | I_B, [0xc1] = F_M | I_B, [0xc2] = I_W, [0xc4] = F_SPECIAL,
	[0xc5] = F_SPECIAL, [0xc6] = F_M | I_B, [0xc7] = F_M | I_Z, [0xc8] = I_WB,
	[0xca] = I_W, [0xcd] = I_B, [0xce] = F_BAD,
	[0xd0 ... 0xd3] = F_M, [0xd4 ... 0xd6] = F_BAD, [0xd8 ... 0xdf] = F_M,
	[0xe0 ... 0xe3] = I_REL8, [0xe4 ... 0xe7] = I_B, [0xe8] = I_RELZ, [0xe9] = I_RELZ,
	[0xea] = F_BAD, [0xeb] = I_REL8,
	[0xf0] = F_PFX, [0xf2] = F_PFX, [0xf3] = F_PFX,
	[0xf6] = F_M, [0xf7] = F_M, [0xfe] = F_M, [0xff] = F_M,
};

/* The 0f map (and VEX/EVEX map 1, which take ModRM everywhere but 77). */
static const uint8_t map1[256] = {
	[0x00 ... 0x03] = F_M, [0x04] = F_BAD, [0x0a] = F_BAD, [0x0c] = F_BAD,
	[0x0d] = F_M, [0x0f] = F_M | I_B,
	[0x10 ... 0x23] = F_M, [0x24 ... 0x27] = F_BAD, [0x28 ... 0x2f] = F_M,
	[0x38] = F_SPECIAL, [0x39] = F_BAD, [0x3a] = F_SPECIAL, [0x3b ... 0x3f] = F_BAD,
	[0x40 ... 0x6f] = F_M, [0x70 ... 0x73] = F_M | I_B, [0x74 ... 0x76] = F_M,
	[0x78 ... 0x79] = F_M, [0x7a ... 0x7b] = F_BAD, [0x7c ... 0x7f] = F_M,
	[0x80 ... 0x8f] = I_RELZ, [0x90 ... 0x9f] = F_M,
	[0xa3] = F_M, [0xa4] = F_M | I_B, [0xa5] = F_M, [0xa6 ... 0xa7] = F_M, /* VIA PadLock */
	[0xab] = F_M, [0xac] = F_M | I_B, [0xad ... 0xb9] = F_M, [0xba] = F_M | I_B,
	[0xbb ... 0xc1] = F_M,
	[0xc2] = F_M | I_B, [0xc3] = F_M, [0xc4 ... 0xc6] = F_M | I_B, [0xc7] = F_M,
	[0xd0 ... 0xff] = F_M,
};
/* clang-format on */

struct dec {
	const uint8_t *p;
	size_t avail, pos;
	int opsize16, addr32, rex_w, rep; /* rep: the last of f2/f3, 0 if none */
};

static int need(struct dec *d, size_t n)
{
	return d->pos + n <= d->avail && d->pos + n <= UT_INSN_MAX;
}

/* ModRM, SIB and displacement at d->pos; -1 when they run out. */
static int modrm(struct dec *d, struct ut_insn *in)
{
	uint8_t m, mod, rm;

	if (!need(d, 1))
		return -1;
	in->modrm_off = (uint8_t)d->pos;
	m = d->p[d->pos++];
	mod = m >> 6;
	rm = m & 7;
	if (mod == 3)
		return 0;
	if (rm == 4) {
		uint8_t sib;

		if (!need(d, 1))
			return -1;
		sib = d->p[d->pos++];
		if (mod == 0 && (sib & 7) == 5)
			mod = 2; /* no base: disp32 */
	} else if (mod == 0 && rm == 5) {
		in->rip_off = (uint8_t)d->pos;
		mod = 2;
	}
	if (mod == 1)
		d->pos += 1;
	else if (mod == 2)
		d->pos += 4;
	return need(d, 0) ? 0 : -1;
}

static int imm_size(const struct dec *d, int type)
{
	switch (type) {
	case I_B:
	case I_REL8:
		return 1;
	case I_W:
		return 2;
	case I_Z:
		return d->opsize16 && !d->rex_w ? 2 : 4;
	case I_V:
		return d->rex_w ? 8 : d->opsize16 ? 2 : 4;
	case I_WB:
		return 3;
	case I_MOFFS:
		return d->addr32 ? 4 : 8;
	case I_RELZ:
		return 4;
	}
	return 0;
}

static int32_t rel_at(const uint8_t *p, int size)
{
	int32_t v = 0;

	if (size == 1)
		return (int8_t)p[0];
	memcpy(&v, p, 4);
	return v;
}

/* What a one-byte-map opcode is, beyond its length. */
static void kind0(struct ut_insn *in, uint8_t op, uint8_t reg)
{
	if (op >= 0x70 && op <= 0x7f) {
		in->kind = UT_INSN_JCC;
		in->cond = op & 15;
	} else if (op == 0xeb || op == 0xe9) {
		in->kind = UT_INSN_JMP;
	} else if (op == 0xe8) {
		in->kind = UT_INSN_CALL;
	} else if (op >= 0xe0 && op <= 0xe3) {
		in->kind = UT_INSN_LOOP;
		in->cond = op;
	} else if (op == 0xc2 || op == 0xc3 || op == 0xca || op == 0xcb || op == 0xcf) {
		in->kind = UT_INSN_RET;
	} else if (op == 0xcc) {
		in->kind = UT_INSN_INT3;
	} else if (op == 0xcd || op == 0xf1 || op == 0xf4) {
		in->kind = UT_INSN_SYS;
	} else if (op == 0xff && (reg == 2 || reg == 3)) {
		in->kind = UT_INSN_CALL_IND;
	} else if (op == 0xff && (reg == 4 || reg == 5)) {
		in->kind = UT_INSN_JMP_IND;
	}
}

static void kind1(struct ut_insn *in, uint8_t op)
{
	if (op >= 0x80 && op <= 0x8f) {
		in->kind = UT_INSN_JCC;
		in->cond = op & 15;
	} else if (op == 0x05 || op == 0x07 || op == 0x34 || op == 0x35 || op == 0x0b ||
		   op == 0xb9 || op == 0xff) {
		in->kind = UT_INSN_SYS;
	}
}

/*
 * VEX (c4, c5), EVEX (62) and AMD's XOP (8f): the opcode map, then opcode, ModRM and
 * the map's immediate.
 */
static int vex(struct dec *d, struct ut_insn *in, uint8_t esc)
{
	unsigned int map;
	uint8_t op;
	int ib;

	if (esc == 0xc5) {
		if (!need(d, 2))
			return -1;
		map = 1;
		d->pos += 1;
	} else if (esc == 0xc4 || esc == 0x8f) {
		if (!need(d, 3))
			return -1;
		map = d->p[d->pos] & 0x1f;
		d->pos += 2;
	} else {
		if (!need(d, 4))
			return -1;
		map = d->p[d->pos] & 7;
		if (d->p[d->pos] & 8 || !(d->p[d->pos + 1] & 4))
			return -1; /* reserved bits */
		d->pos += 3;
	}
	if (!need(d, 1))
		return -1;
	op = d->p[d->pos++];
	if (esc == 0x8f && map < 8) {
		return -1;
	} else if (map == 1) {
		if (esc != 0x62 && op == 0x77)
			return 0; /* vzeroupper, vzeroall */
		ib = (map1[op] & I_MASK) == I_B;
	} else if (map == 2 || map == 5 || map == 6) {
		ib = 0;
		if (esc != 0x62 && (map == 5 || map == 6))
			return -1;
	} else if (map == 3) {
		ib = 1;
	} else if (esc == 0x8f && (map == 8 || map == 9 || map == 10)) {
		ib = map == 8 ? 1 : map == 10 ? 4 : 0; /* XOP: imm8, none, imm32 */
	} else {
		return -1;
	}
	if (modrm(d, in))
		return -1;
	d->pos += ib;
	return need(d, 0) ? 0 : -1;
}

/* The 0f maps, d->pos just after 0f. */
static int escape0f(struct dec *d, struct ut_insn *in)
{
	uint8_t op, attr;

	if (!need(d, 1))
		return -1;
	op = d->p[d->pos++];
	attr = map1[op];
	if (attr & F_BAD)
		return -1;
	if (op == 0x38 || op == 0x3a) {
		if (!need(d, 1))
			return -1;
		d->pos++;
		if (modrm(d, in))
			return -1;
		d->pos += op == 0x3a;
		return need(d, 0) ? 0 : -1;
	}
	kind1(in, op);
	if (op >= 0x20 && op <= 0x23) { /* mov to/from cr, dr: register operands, any mod */
		if (!need(d, 1))
			return -1;
		in->modrm_off = (uint8_t)d->pos++;
		return 0;
	}
	if ((attr & F_M) && modrm(d, in))
		return -1;
	/* SSE4a extrq / insertq with their two imm8 */
	if (op == 0x78 && (d->opsize16 || d->rep == 0xf2))
		d->pos += 2;
	if ((attr & I_MASK) == I_RELZ) {
		if (d->opsize16 && !d->rex_w)
			return -1; /* 66 jcc: rel16 on AMD, rel32 on Intel */
		in->rel_off = (uint8_t)d->pos;
		in->rel_size = 4;
	}
	d->pos += imm_size(d, attr & I_MASK);
	return need(d, 0) ? 0 : -1;
}

static int decode(struct dec *d, struct ut_insn *in)
{
	uint8_t op, attr, reg = 0;
	int rex = 0, type;

	for (;;) { /* prefixes */
		if (!need(d, 1))
			return -1;
		op = d->p[d->pos];
		if ((op & 0xf0) == 0x40) {
			rex = op;
		} else if (map0[op] & F_PFX) {
			rex = 0; /* a REX counts only right before the opcode */
			if (op == 0x66)
				d->opsize16 = 1;
			else if (op == 0x67)
				d->addr32 = 1;
			else if (op == 0xf2 || op == 0xf3)
				d->rep = op;
		} else {
			break;
		}
		d->pos++;
	}
	d->rex_w = (rex & 8) != 0;
	in->nprefix = (uint8_t)d->pos;
	d->pos++;
	attr = map0[op];
	if (attr & F_BAD)
		return -1;
	if (op == 0x0f)
		return escape0f(d, in);
	if (op == 0xc4 || op == 0xc5 || op == 0x62) {
		in->kind = UT_INSN_PLAIN;
		return vex(d, in, op);
	}
	if (attr & F_M) {
		if (!need(d, 1))
			return -1;
		reg = (d->p[d->pos] >> 3) & 7;
		if (op == 0x8f && reg) { /* AMD's XOP (map 8 and up); pop r/m is /0 */
			in->kind = UT_INSN_PLAIN;
			return vex(d, in, op);
		}
		if (modrm(d, in))
			return -1;
	}
	type = attr & I_MASK;
	if ((op == 0xf6 || op == 0xf7) && reg < 2)
		type = op == 0xf6 ? I_B : I_Z;
	if (op == 0xc7 && d->p[in->modrm_off] == 0xf8) { /* xbegin rel32 */
		in->kind = UT_INSN_XBEGIN;
		type = I_RELZ;
	}
	kind0(in, op, reg);
	if (type == I_RELZ && d->opsize16 && !d->rex_w)
		return -1; /* 66 call/jmp/xbegin: rel16 on AMD, rel32 on Intel */
	if (type == I_REL8 || type == I_RELZ) {
		in->rel_off = (uint8_t)d->pos;
		in->rel_size = (uint8_t)imm_size(d, type);
	}
	d->pos += imm_size(d, type);
	return need(d, 0) ? 0 : -1;
}

int ut_insn_decode(const uint8_t *code, size_t avail, uint64_t addr, struct ut_insn *in)
{
	struct dec d = {.p = code, .avail = avail};

	memset(in, 0, sizeof(*in));
	in->kind = UT_INSN_PLAIN;
	if (decode(&d, in)) {
		memset(in, 0, sizeof(*in));
		return 0;
	}
	in->len = (uint8_t)d.pos;
	if (in->rel_size)
		in->target = addr + in->len + (int64_t)rel_at(code + in->rel_off, in->rel_size);
	return in->len;
}

/* ---- relocation ------------------------------------------------------------------- */

static int fits32(int64_t v)
{
	return v == (int32_t)v;
}

int ut_insn_jmp32(uint8_t *out, uint64_t at, uint64_t target)
{
	int64_t rel = (int64_t)(target - (at + 5));
	int32_t r = (int32_t)rel;

	if (!fits32(rel))
		return -1;
	out[0] = 0xe9;
	memcpy(out + 1, &r, 4);
	return 0;
}

/* push the 64-bit ret without touching flags: push imm32 (low half), movl hi, 4(%rsp) */
static int push_ret(uint8_t *out, uint64_t ret)
{
	uint32_t lo = (uint32_t)ret, hi = (uint32_t)(ret >> 32);

	out[0] = 0x68;
	memcpy(out + 1, &lo, 4);
	out[5] = 0xc7;
	out[6] = 0x44;
	out[7] = 0x24;
	out[8] = 0x04;
	memcpy(out + 9, &hi, 4);
	return 13;
}

/* Copy the instruction to out (at to), its RIP-relative disp32 made to reach the same. */
static int copy_fixed(const uint8_t *code, const struct ut_insn *in, uint64_t from, uint8_t *out,
		      uint64_t to)
{
	memcpy(out, code, in->len);
	if (in->rip_off) {
		int32_t disp;
		int64_t nd;

		memcpy(&disp, code + in->rip_off, 4);
		nd = (int64_t)disp + (int64_t)(from - to);
		if (!fits32(nd))
			return -1;
		disp = (int32_t)nd;
		memcpy(out + in->rip_off, &disp, 4);
	}
	return in->len;
}

/* call r/m: push the original return address, then the same operand as jmp r/m. */
static int call_ind(const uint8_t *code, const struct ut_insn *in, uint64_t from, uint8_t *out,
		    uint64_t to)
{
	uint8_t m = code[in->modrm_off];
	int rex_b =
	    in->nprefix && (code[in->nprefix - 1] & 0xf0) == 0x40 && (code[in->nprefix - 1] & 1);
	int n;

	if (((m >> 3) & 7) != 2)
		return -1; /* far call */
	/* an operand through rsp would read 8 bytes off after the push */
	if (!rex_b && (m & 7) == 4)
		return -1;
	n = push_ret(out, from + in->len);
	if (copy_fixed(code, in, from, out + n, to + (uint64_t)n) < 0)
		return -1;
	out[n + in->modrm_off] = (uint8_t)((m & ~0x38) | (4 << 3));
	return n + in->len;
}

int ut_insn_relocate(const uint8_t *code, const struct ut_insn *in, uint64_t from, uint8_t *out,
		     size_t room, uint64_t to)
{
	uint8_t buf[UT_INSN_RELOC_MAX];
	int n = 0;

	switch (in->kind) {
	case UT_INSN_PLAIN:
	case UT_INSN_RET:
	case UT_INSN_JMP_IND:
	case UT_INSN_SYS:
		n = copy_fixed(code, in, from, buf, to);
		break;
	case UT_INSN_CALL_IND:
		n = call_ind(code, in, from, buf, to);
		break;
	case UT_INSN_JMP:
		n = ut_insn_jmp32(buf, to, in->target) ? -1 : 5;
		break;
	case UT_INSN_JCC: {
		int32_t r;
		int64_t rel = (int64_t)(in->target - (to + 6));

		if (!fits32(rel))
			return -1;
		r = (int32_t)rel;
		buf[0] = 0x0f;
		buf[1] = (uint8_t)(0x80 | in->cond);
		memcpy(buf + 2, &r, 4);
		n = 6;
		break;
	}
	case UT_INSN_CALL:
		n = push_ret(buf, from + in->len);
		if (ut_insn_jmp32(buf + n, to + (uint64_t)n, in->target))
			return -1;
		n += 5;
		break;
	case UT_INSN_LOOP:
		/* LOOPcc +2 (taken: to the jmp rel32); jmp +5 (not taken: past it) */
		memcpy(buf, code, in->nprefix);
		n = in->nprefix;
		buf[n++] = in->cond;
		buf[n++] = 2;
		buf[n++] = 0xeb;
		buf[n++] = 5;
		if (ut_insn_jmp32(buf + n, to + (uint64_t)n, in->target))
			return -1;
		n += 5;
		break;
	default:
		return -1;
	}
	if (n < 0 || (size_t)n > room)
		return -1;
	memcpy(out, buf, (size_t)n);
	return n;
}

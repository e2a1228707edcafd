/* SPDX-License-Identifier: MIT */
/*
 * ut_sdt.h - the probes of <sys/sdt.h> (SystemTap's "SDT" notes) as data: the
 * notes of an object's .note.stapsdt section and the argument specifications
 * they carry.  Pure functions, no system call: the runtime (runtime/sdt.c) reads
 * the section from the object's file and fetches arguments at a probe hit; the
 * unit tests (tests/unit/test_sdt.c) drive the same code.
 *
 * A note (type 3, owner "stapsdt") describes one probe site:
 *
 *   u64 pc, base, semaphore     link-time addresses: the site (a 1-byte nop), the
 *                               section .stapsdt.base as it was when the note was
 *                               written, the probe's 16-bit semaphore (0: none)
 *   "provider\0name\0args\0"    args: operands separated by spaces, each
 *                               [-]SIZE@OPERAND in AT&T syntax; -SIZE is signed
 *
 * The operands a compiler gives an asm "nor" constraint on x86-64: a register
 * (%rax, %eax, %ax, %al, %ah, %r8d, ...), an immediate ($5, $-1, $0x10), memory
 * as disp(%base), disp(%base,%index,scale), (,%index,scale), and symbol+off(%rip)
 * or symbol+off alone (a global: its address comes from the object's symbol table).  An operand
 * without SIZE@ is taken as an unsigned 64-bit value.
 */
#ifndef UT_SDT_H
#define UT_SDT_H

#include <stddef.h>
#include <stdint.h>

#define UT_SDT_NOTE_TYPE 3u
#define UT_SDT_ARGS_MAX 12u /* STAP_PROBE12 */
#define UT_SDT_SYM_MAX 128u /* a symbol named by a %rip operand, NUL included */

/*
 * The registers an operand names, as indices into the array the fetch reads:
 * the order of struct ut_xol_regs (runtime/xol.h).
 */
enum ut_sdt_reg {
	UT_SDT_RAX,
	UT_SDT_RBX,
	UT_SDT_RCX,
	UT_SDT_RDX,
	UT_SDT_RSI,
	UT_SDT_RDI,
	UT_SDT_RBP,
	UT_SDT_RSP,
	UT_SDT_R8,
	UT_SDT_R9,
	UT_SDT_R10,
	UT_SDT_R11,
	UT_SDT_R12,
	UT_SDT_R13,
	UT_SDT_R14,
	UT_SDT_R15,
	UT_SDT_RIP,
	UT_SDT_NREGS = 18 /* + flags */
};
#define UT_SDT_NOREG 0xffu

enum ut_sdt_kind {
	UT_SDT_ARG_REG = 1, /* a register or part of one */
	UT_SDT_ARG_IMM,	    /* a constant */
	UT_SDT_ARG_MEM,	    /* size bytes at disp + base + index * scale */
};

struct ut_sdt_arg {
	uint8_t kind; /* enum ut_sdt_kind */
	uint8_t size; /* 1, 2, 4 or 8 bytes */
	uint8_t is_signed;
	uint8_t reg;	 /* REG: the register; MEM: the base (UT_SDT_NOREG: none) */
	uint8_t shift;	 /* REG: 8 for %ah, %bh, %ch, %dh */
	uint8_t index;	 /* MEM: the index register, UT_SDT_NOREG: none */
	uint8_t scale;	 /* MEM: 1, 2, 4 or 8 */
	uint8_t has_sym; /* MEM: sym's run-time address is added (%rip or absolute) */
	int64_t disp;	 /* IMM: the value; MEM: the displacement */
	char sym[UT_SDT_SYM_MAX];
};

/* One note, its strings pointing into the section's bytes. */
struct ut_sdt_note {
	uint64_t pc, base, sem;
	const char *provider, *name, *args;
};

/*
 * Call fn(note, arg) for each well-formed stapsdt note of the section bytes
 * sec[0 .. len) (notes of other owners and types are passed over; a note whose
 * strings do not end within it is skipped).  Returns how many were passed to fn.
 */
unsigned int ut_sdt_notes(const void *sec, size_t len,
			  void (*fn)(const struct ut_sdt_note *n, void *arg), void *arg);

/*
 * Parse one argument ("-4@%eax"), len bytes of text.  0, or -EINVAL for anything
 * outside the forms above (a size other than 1, 2, 4, 8, an unknown register, a
 * %rip operand without a symbol, a scale other than 1, 2, 4, 8, trailing text).
 */
int ut_sdt_arg_parse(const char *s, size_t len, struct ut_sdt_arg *a);

/* Parse the whole argument text: how many arguments (at most max), or -EINVAL. */
int ut_sdt_args_parse(const char *spec, struct ut_sdt_arg *args, unsigned int max);

/*
 * The register names: the index and the bit shift of name (len bytes, without
 * %) and the width in bytes of what it names; -1 when it names none.
 */
int ut_sdt_reg_lookup(const char *name, size_t len, unsigned int *shift, unsigned int *width);

/* The kernel's fetch type of a: "u8" .. "u64", "s8" .. "s64". */
const char *ut_sdt_type_name(const struct ut_sdt_arg *a);
/* ... and its printf conversion in the kernel's probe events: "%u", "%Lu", "%d", "%Ld". */
const char *ut_sdt_type_fmt(const struct ut_sdt_arg *a);

/*
 * The value of a at a probe hit: regs[UT_SDT_NREGS] (the registers as the probed
 * instruction sees them), sym_addr the run-time address of a's symbol (MEM with
 * has_sym).  Memory is read with read(addr, buf, n), which returns 0 or a negative
 * errno: then the value is 0 and *fault is set.  The value is a's size, sign-
 * or zero-extended to 64 bits.
 */
uint64_t ut_sdt_fetch(const struct ut_sdt_arg *a, const uint64_t *regs, uint64_t sym_addr,
		      int (*read)(uint64_t addr, void *buf, size_t n), int *fault);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * insn.h - x86-64 instruction lengths and kinds, and moving instructions elsewhere.
 *
 * ut_insn_decode() tells how long one user-mode instruction is and what about it
 * depends on where it sits: a relative branch (its target), a RIP-relative
 * memory operand (where its disp32 is), or nothing.  ut_insn_relocate() writes
 * an instruction decoded at one address so that it does the same thing at
 * another: displacements rewritten, short branches widened, `call` emulated so
 * that the return address stays the original one.
 *
 * Both use nothing of libc but memcpy: they run inside traced programs, in unit
 * tests and under the fuzzer (tests/fuzz/fuzz_insn.c).
 */
#ifndef UT_INSN_H
#define UT_INSN_H

#include <stddef.h>
#include <stdint.h>

#define UT_INSN_MAX 15 /* the architecture's limit */

enum ut_insn_kind {
	UT_INSN_BAD = 0,  /* not an instruction the decoder knows (or longer than 15) */
	UT_INSN_PLAIN,	  /* anything else: runs anywhere (maybe with a RIP-relative operand) */
	UT_INSN_JMP,	  /* jmp rel8 / rel32 */
	UT_INSN_JCC,	  /* jcc rel8 / rel32: cond holds the condition (0-15) */
	UT_INSN_CALL,	  /* call rel32 */
	UT_INSN_LOOP,	  /* loop, loope, loopne, jrcxz (rel8, on rcx) */
	UT_INSN_RET,	  /* ret, ret imm16, far returns, iret */
	UT_INSN_JMP_IND,  /* jmp r/m (ff /4, /5) */
	UT_INSN_CALL_IND, /* call r/m (ff /2, /3) */
	UT_INSN_SYS,	  /* syscall, sysenter, int n, int1, ud0/1/2, hlt: the kernel's */
	UT_INSN_INT3,	  /* someone's breakpoint */
	UT_INSN_XBEGIN,	  /* xbegin rel: a branch taken on abort */
};

struct ut_insn {
	uint8_t len;	   /* bytes */
	uint8_t kind;	   /* enum ut_insn_kind */
	uint8_t nprefix;   /* legacy prefixes and REX before the opcode */
	uint8_t cond;	   /* UT_INSN_JCC: the condition, LOOP: the opcode (e0-e3) */
	uint8_t rel_off;   /* relative branches: offset of the rel8/rel32 */
	uint8_t rel_size;  /* 1, 2 or 4 */
	uint8_t rip_off;   /* offset of a RIP-relative disp32, 0: none */
	uint8_t modrm_off; /* offset of the ModRM byte, 0: none */
	uint64_t target;   /* relative branches: where they go (decoded at addr) */
};

/*
 * Decode the instruction at code (avail readable bytes) as if it sat at addr.
 * Returns its length (1-15) and fills *in, or 0 (in->kind UT_INSN_BAD) when it
 * is not one the decoder knows or runs past avail.
 */
int ut_insn_decode(const uint8_t *code, size_t avail, uint64_t addr, struct ut_insn *in);

/*
 * Write the instruction in (its bytes at code, decoded at from) into out (room
 * bytes) as it must be to do the same at address to.  Returns the bytes written,
 * or -1 when it cannot move: an int3, xbegin, a far call, an indirect call
 * through rsp, or a target or operand out of reach of to (+-2 GiB).  At most
 * UT_INSN_RELOC_MAX bytes are written.
 */
#define UT_INSN_RELOC_MAX 32
int ut_insn_relocate(const uint8_t *code, const struct ut_insn *in, uint64_t from, uint8_t *out,
		     size_t room, uint64_t to);

/* Write jmp rel32 from at to target into out (5 bytes); 0, or -1 out of reach. */
int ut_insn_jmp32(uint8_t *out, uint64_t at, uint64_t target);

#endif

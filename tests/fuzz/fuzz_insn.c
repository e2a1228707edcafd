// SPDX-License-Identifier: MIT
/*
 * fuzz_insn.c - the x86-64 decoder and relocator (runtime/arch/x86_64/insn.c,
 * included) on arbitrary bytes: every instruction of the input decoded as if it
 * sat at one address, and relocated to another, with what the two promise
 * checked: a length within the input and the architecture's 15 bytes, offsets
 * inside the instruction, a relocation within UT_INSN_RELOC_MAX that decodes
 * again (and, for an instruction copied as it is, to the same length).
 *
 * Input: bytes 0-3 the distance to relocate by (signed, times 16), the rest code.
 */
#include <stdlib.h>
#include <string.h>

#include "../../runtime/arch/x86_64/insn.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t from = 0x7f0000000000ull, to;
	int32_t delta;

	if (size < 4)
		return 0;
	memcpy(&delta, data, 4);
	to = from + (int64_t)delta * 16;
	data += 4;
	size -= 4;
	for (size_t off = 0; off < size;) {
		struct ut_insn in, again;
		uint8_t out[UT_INSN_RELOC_MAX];
		int len = ut_insn_decode(data + off, size - off, from + off, &in), n;

		if (!len) {
			off++;
			continue;
		}
		if (len > UT_INSN_MAX || (size_t)len > size - off || in.len != len ||
		    (in.rip_off && in.rip_off + 4 > len) ||
		    (in.rel_size && in.rel_off + in.rel_size > len))
			abort();
		n = ut_insn_relocate(data + off, &in, from + off, out, sizeof(out), to + off);
		if (n > (int)sizeof(out))
			abort();
		if (n > 0 && !ut_insn_decode(out, (size_t)n, to + off, &again))
			abort();
		if (n > 0 && (in.kind == UT_INSN_PLAIN || in.kind == UT_INSN_RET) &&
		    again.len != len)
			abort();
		off += (size_t)len;
	}
	return 0;
}

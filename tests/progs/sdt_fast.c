// SPDX-License-Identifier: MIT
/*
 * sdt_fast.c - what an enabled <sys/sdt.h> probe must leave alone and read right,
 * for tests/integration/120_sdt_fast.sh.
 *
 *   sdt_fast N       wait (at most 20 s per site) until ut_fast:keep and
 *                    ut_fast:bad are armed, then run N iterations of a loop built
 *                    at -O2 that holds sixteen vector values (ymm with AVX, else
 *                    xmm) and six general registers live across ut_fast:keep,
 *                    whose arguments are the iteration (a register), a volatile
 *                    local (memory on the stack) and a global (memory by %rip);
 *                    then fire ut_fast:bad once.  Prints "vectors ymm|xmm",
 *                    "changed C" (the iterations where a held value was not the
 *                    same after the probe), "pid P"
 *   sdt_fast list    exit at once (the runtime announces the probes)
 *
 * ut_fast:bad's note is written by hand: memory at address 16 and in the kernel's
 * half, which the probe must read as 0 without a crash, then a register (5).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "sdt_note.h"
#include "sdt_sites.h"

long sdt_fast_global = 1000;

typedef float v8f __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));

/* The values are in registers here (an asm takes at most 30 operands: half at a time). */
#define HOLD(a, b, c, d, e, f, g, h, x, y, z)                                                      \
	__asm__ volatile("" : "+x"(a), "+x"(b), "+x"(c), "+x"(d), "+x"(e), "+x"(f), "+x"(g),       \
			 "+x"(h), "+r"(x), "+r"(y), "+r"(z))

/* Hold sixteen vectors of type T and six general registers across the probe. */
#define HOLD_LOOP(T, n, changed)                                                                   \
	do {                                                                                       \
		for (long i = 0; i < (n); i++) {                                                   \
			T v0 = {0} , v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14,  \
			  v15, w[16], after[16];                                                            \
			register long g0 __asm__("r8") = i + 8, g1 __asm__("r9") = i + 9;          \
			register long g2 __asm__("r10") = i + 10, g3 __asm__("r11") = i + 11;      \
			register long g4 __asm__("rsi") = i + 4, g5 __asm__("rdi") = i + 5;        \
			volatile long on_stack = 3 * i;                                            \
			int bad = 0;                                                               \
                                                                                                   \
			for (unsigned int k = 0; k < sizeof(T) / sizeof(float); k++)               \
				v0[k] = (float)(i * 16 + k);                                       \
			v1 = v0 + 1, v2 = v0 + 2, v3 = v0 + 3, v4 = v0 + 4, v5 = v0 + 5;           \
			v6 = v0 + 6, v7 = v0 + 7, v8 = v0 + 8, v9 = v0 + 9, v10 = v0 + 10;         \
			v11 = v0 + 11, v12 = v0 + 12, v13 = v0 + 13, v14 = v0 + 14, v15 = v0 + 15; \
			w[0] = v0, w[1] = v1, w[2] = v2, w[3] = v3, w[4] = v4, w[5] = v5;          \
			w[6] = v6, w[7] = v7, w[8] = v8, w[9] = v9, w[10] = v10, w[11] = v11;      \
			w[12] = v12, w[13] = v13, w[14] = v14, w[15] = v15;                        \
			HOLD(v0, v1, v2, v3, v4, v5, v6, v7, g0, g1, g2);                          \
			HOLD(v8, v9, v10, v11, v12, v13, v14, v15, g3, g4, g5);                    \
			STAP_PROBE3(ut_fast, keep, i, on_stack, sdt_fast_global);                  \
			HOLD(v0, v1, v2, v3, v4, v5, v6, v7, g0, g1, g2);                          \
			HOLD(v8, v9, v10, v11, v12, v13, v14, v15, g3, g4, g5);                    \
			bad |= g0 != i + 8 || g1 != i + 9 || g2 != i + 10 || g3 != i + 11 ||       \
			       g4 != i + 4 || g5 != i + 5;                                         \
			after[0] = v0, after[1] = v1, after[2] = v2, after[3] = v3, after[4] = v4; \
			after[5] = v5, after[6] = v6, after[7] = v7, after[8] = v8, after[9] = v9; \
			after[10] = v10, after[11] = v11, after[12] = v12, after[13] = v13;        \
			after[14] = v14, after[15] = v15;                                          \
			bad |= memcmp(w, after, sizeof(w)) != 0;                                   \
			(changed) += bad;                                                          \
			sdt_fast_global += 7;                                                      \
		}                                                                                  \
	} while (0)

static __attribute__((noipa, target("avx"))) long loop_ymm(long n)
{
	long changed = 0;

	HOLD_LOOP(v8f, n, changed);
	return changed;
}

static __attribute__((noipa)) long loop_xmm(long n)
{
	long changed = 0;

	HOLD_LOOP(v4f, n, changed);
	return changed;
}

/* ut_fast:bad: "8@(%rdx) 8@8(%rcx) 8@%rax" with rdx = 16, rcx = -16, rax = 5 */
static __attribute__((noipa)) void fire_bad(void)
{
	__asm__ volatile("990: nop\n" SDT_NOTE("ut_fast", "bad", "8@(%%rdx) 8@8(%%rcx) 8@%%rax", "", "0")
			 :
			 : "d"(16L), "c"(-16L), "a"(5L)
			 : "memory");
}

int main(int argc, char **argv)
{
	int ymm = __builtin_cpu_supports("avx");
	long n, changed;

	if (argc != 2)
		return 2;
	if (!strcmp(argv[1], "list"))
		return 0;
	n = atol(argv[1]);
	sdt_find();
	if (!sdt_wait_armed("ut_fast", "keep") || !sdt_wait_armed("ut_fast", "bad"))
		printf("not armed\n");
	changed = ymm ? loop_ymm(n) : loop_xmm(n);
	fire_bad();
	printf("vectors %s\nchanged %ld\npid %d\n", ymm ? "ymm" : "xmm", changed, (int)getpid());
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * test_insn.c - the x86-64 decoder and relocator (runtime/arch/x86_64/insn.c).
 *
 *  - every instruction of the .text of real objects (libc, libm, libstdc++, our own
 *    utracefs and libutrace.so) decodes to the length GNU objdump gives it; the
 *    only ones left out are those objdump itself prints as "(bad)";
 *  - the kinds and targets of branches, RIP-relative operands and the rest;
 *  - relocation: branches widened, calls pushing the original return address,
 *    RIP-relative displacements reaching the same byte, what cannot move refused;
 *    relocated code run for real (a call and a loop executed from a copy).
 */
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../runtime/arch/x86_64/insn.c"

struct line {
	uint32_t off;
	uint8_t len, bad;
	uint8_t pfx; /* prefixes alone: ones objdump takes as ignored (rex.W before rex.B) */
	uint8_t cut; /* the last before a symbol: objdump cuts what would cross it */
};

struct counts {
	long insn, mism, bad, fwait, pfx, cut;
};

/* Is objdump's text (after the bytes) prefixes' names alone ("lock rex.WRXB")? */
static int lone_prefix(const char *text)
{
	static const char *const names[] = {
	    "data16", "addr32", "cs",	 "ds",	"es",  "ss",	  "fs",	      "gs",
	    "lock",   "repz",	"repnz", "rep", "bnd", "notrack", "xacquire", "xrelease"};
	char copy[256], *save, *w;
	int words = 0;

	snprintf(copy, sizeof(copy), "%s", text);
	for (w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		int known = !strncmp(w, "rex", 3);

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			known |= !strcmp(w, names[i]);
		if (!known)
			return 0;
		words++;
	}
	return words > 0;
}

/* objdump's length for line i: lone prefixes count with the instruction they lead; 0: bad */
static int expected_len(const struct line *lines, size_t nl, size_t i)
{
	int len = 0;

	for (; i < nl && lines[i].pfx; i++)
		len += lines[i].len;
	if (i == nl || lines[i].bad)
		return 0;
	return len + lines[i].len;
}

/* Decode every instruction objdump lists in path's .text into c; -1 if no objdump. */
static int compare_objdump(const char *path, struct counts *c)
{
	char cmd[512], *buf = NULL;
	size_t cap = 1 << 16, n = 0, lcap = 1 << 14, nl = 0;
	uint8_t *bytes = malloc(cap);
	struct line *lines = malloc(lcap * sizeof(*lines));
	size_t bufsz = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "objdump -d -w -z -j .text '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (getline(&buf, &bufsz, f) > 0) {
		char *p = buf, *tab;
		uint8_t len = 0;

		while (*p == ' ')
			p++;
		if (nl && strstr(p, ">:\n"))
			lines[nl - 1].cut = 1; /* "ADDR <symbol>:" */
		if (!strchr("0123456789abcdef", *p) || !(tab = strchr(p, ':')) || tab[1] != '\t')
			continue;
		p = tab + 2;
		while (p[0] && p[1] && p[0] != '\t' && strchr("0123456789abcdef", p[0])) {
			if (n == cap)
				bytes = realloc(bytes, cap *= 2);
			bytes[n++] = (uint8_t)strtoul((char[]){p[0], p[1], 0}, NULL, 16);
			len++;
			p += 2;
			while (*p == ' ')
				p++;
		}
		if (!len)
			continue;
		if (nl == lcap)
			lines = realloc(lines, (lcap *= 2) * sizeof(*lines));
		lines[nl++] = (struct line){(uint32_t)(n - len), len, strstr(p, "(bad)") != NULL,
					    lone_prefix(p), 0};
	}
	free(buf);
	if (pclose(f) != 0 || !nl) {
		free(bytes);
		free(lines);
		return -1;
	}
	for (size_t i = 0; i < nl; i++) {
		struct ut_insn in;
		int got, want = expected_len(lines, nl, i);

		if (!want) {
			c->bad++;
			continue;
		}
		got = ut_insn_decode(bytes + lines[i].off, n - lines[i].off,
				     0x400000 + lines[i].off, &in);
		/*
		 * objdump prints fwait (9b) and the x87 instruction after it as one
		 * (fstcw = fwait; fnstcw); the CPU runs them as two.  It prints prefixes
		 * it takes as ignored on lines of their own; the CPU runs them with the
		 * instruction they lead.  And it stops an instruction at the next
		 * symbol (padding after a function).
		 */
		if (got > 0 && got < want && bytes[lines[i].off + got - 1] == 0x9b &&
		    ut_insn_decode(bytes + lines[i].off + got, n - lines[i].off - got, 0, &in) ==
			want - got) {
			c->fwait++;
			continue;
		}
		if (lines[i].cut && got > want) { /* padding objdump stopped at the symbol */
			c->cut++;
			continue;
		}
		c->pfx += lines[i].pfx;
		if (got != want) {
			if (c->mism++ < 20) {
				fprintf(stderr, "%s +%#x: objdump %d, decoder %d:", path,
					lines[i].off, want, got);
				for (int k = 0; k < want; k++)
					fprintf(stderr, " %02x", bytes[lines[i].off + k]);
				fprintf(stderr, "\n");
			}
		}
	}
	c->insn = (long)nl;
	free(bytes);
	free(lines);
	return 0;
}

/* The path ldconfig knows for name (x86-64), or NULL. */
static char *find_lib(const char *name, char *out, size_t size)
{
	char cmd[256], *buf = NULL;
	size_t bs = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ldconfig -p 2>/dev/null || /sbin/ldconfig -p");
	f = popen(cmd, "r");
	if (!f)
		return NULL;
	out[0] = 0;
	while (getline(&buf, &bs, f) > 0) {
		char *arrow = strstr(buf, "=> ");

		if (!out[0] && arrow && strstr(buf, name) == buf + strspn(buf, " \t") &&
		    strstr(buf, "x86-64")) {
			snprintf(out, size, "%s", arrow + 3);
			out[strcspn(out, "\n")] = 0;
		}
	}
	free(buf);
	pclose(f);
	return out[0] ? out : NULL;
}

static void check_object(const char *path)
{
	struct counts c = {0};

	if (compare_objdump(path, &c)) {
		fprintf(stderr, "no objdump output for %s\n", path);
		fail();
	}
	fprintf(stderr,
		"%s: %ld instructions, %ld mismatches; left out: %ld objdump prints \"(bad)\", "
		"%ld cut at a symbol; objdump merges %ld fwait + x87, splits %ld lone prefixes\n",
		path, c.insn, c.mism, c.bad, c.cut, c.fwait, c.pfx);
	assert_int_equal(c.mism, 0);
	assert_true(c.insn > 1000);
}

static void test_objdump_libs(void **state)
{
	static const char *const libs[] = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libz.so.1",
					   "ld-linux-x86-64.so.2"};
	char path[4096];

	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		assert_non_null(find_lib(libs[i], path, sizeof(path)));
		check_object(path);
	}
}

static void test_objdump_own(void **state)
{
	char self[4096] = {0}, path[4096 + 32], *b;

	/* this binary is BUILD/tests/test_insn */
	assert_true(readlink("/proc/self/exe", self, sizeof(self) - 1) > 0);
	b = dirname(dirname(self));
	snprintf(path, sizeof(path), "%s/bin/utracefs", b);
	check_object(path);
	snprintf(path, sizeof(path), "%s/lib/libutrace.so", b);
	check_object(path);
}

#define DEC(in, addr, ...)                                                                         \
	ut_insn_decode((const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}),     \
		       addr, &(in))

static void test_kinds(void **state)
{
	struct ut_insn in;

	assert_int_equal(DEC(in, 0x1000, 0xeb, 0xfe), 2); /* jmp . */
	assert_int_equal(in.kind, UT_INSN_JMP);
	assert_int_equal(in.target, 0x1000);
	assert_int_equal(DEC(in, 0x1000, 0x0f, 0x85, 0x10, 0, 0, 0), 6);
	assert_int_equal(in.kind, UT_INSN_JCC);
	assert_int_equal(in.cond, 5);
	assert_int_equal(in.target, 0x1016);
	assert_int_equal(DEC(in, 0x1000, 0xe8, 0xfb, 0xff, 0xff, 0xff), 5);
	assert_int_equal(in.kind, UT_INSN_CALL);
	assert_int_equal(in.target, 0x1000);
	assert_int_equal(DEC(in, 0x1000, 0xe3, 0x10), 2);
	assert_int_equal(in.kind, UT_INSN_LOOP);
	assert_int_equal(DEC(in, 0, 0x48, 0x8b, 0x05, 1, 2, 3, 4), 7); /* mov x(%rip), %rax */
	assert_int_equal(in.rip_off, 3);
	/* cmpl $5, x(%rip): the disp32 sits before the immediate */
	assert_int_equal(DEC(in, 0, 0x83, 0x3d, 1, 2, 3, 4, 5), 7);
	assert_int_equal(in.rip_off, 2);
	assert_int_equal(DEC(in, 0, 0xf3, 0x0f, 0x1e, 0xfa), 4); /* endbr64 */
	assert_int_equal(in.kind, UT_INSN_PLAIN);
	assert_int_equal(DEC(in, 0, 0xc3), 1);
	assert_int_equal(in.kind, UT_INSN_RET);
	assert_int_equal(DEC(in, 0, 0xff, 0xe0), 2); /* jmp *%rax */
	assert_int_equal(in.kind, UT_INSN_JMP_IND);
	assert_int_equal(DEC(in, 0, 0x3e, 0xff, 0xe0), 3); /* notrack jmp *%rax */
	assert_int_equal(in.kind, UT_INSN_JMP_IND);
	assert_int_equal(DEC(in, 0, 0xff, 0xd0), 2);
	assert_int_equal(in.kind, UT_INSN_CALL_IND);
	assert_int_equal(DEC(in, 0, 0x0f, 0x05), 2);
	assert_int_equal(in.kind, UT_INSN_SYS);
	assert_int_equal(DEC(in, 0, 0xcc), 1);
	assert_int_equal(in.kind, UT_INSN_INT3);
	assert_int_equal(DEC(in, 0, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8), 10); /* movabs */
	assert_int_equal(DEC(in, 0, 0x66, 0xb8, 1, 2), 4);
	assert_int_equal(DEC(in, 0, 0xa1, 1, 2, 3, 4, 5, 6, 7, 8), 9); /* moffs */
	assert_int_equal(DEC(in, 0, 0x67, 0xa1, 1, 2, 3, 4), 6);
	assert_int_equal(DEC(in, 0, 0xf6, 0xc1, 1), 3);			  /* test $1, %cl */
	assert_int_equal(DEC(in, 0, 0xf7, 0xd9), 2);			  /* neg %ecx */
	assert_int_equal(DEC(in, 0, 0x66, 0xf7, 0xc1, 1, 2), 5);	  /* test $0x201, %cx */
	assert_int_equal(DEC(in, 0, 0xc8, 8, 0, 1), 4);			  /* enter */
	assert_int_equal(DEC(in, 0, 0x0f, 0x0f, 0xc1, 0xb4), 4);	  /* pfmul (3DNow!) */
	assert_int_equal(DEC(in, 0, 0xc5, 0xf8, 0x77), 3);		  /* vzeroupper */
	assert_int_equal(DEC(in, 0, 0xc4, 0xe3, 0x79, 0x0f, 0xc1, 8), 6); /* vpalignr */
	/* vmovdqu64 0x40(%rax), %zmm0: EVEX, compressed disp8 */
	assert_int_equal(DEC(in, 0, 0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x40, 0x01), 7);
	/* vprotd $14, %xmm4, %xmm13: AMD's XOP, map 8 (imm8) */
	assert_int_equal(DEC(in, 0, 0x8f, 0x68, 0x78, 0xc2, 0xec, 0x0e), 6);
	assert_int_equal(DEC(in, 0, 0x8f, 0x00), 2);		 /* popq (%rax): 8f /0 */
	assert_int_equal(DEC(in, 0, 0xf3, 0x0f, 0xa7, 0xc8), 4); /* VIA PadLock xcrypt-ecb */
	assert_int_equal(DEC(in, 0, 0xc7, 0xf8, 1, 0, 0, 0), 6); /* xbegin */
	assert_int_equal(in.kind, UT_INSN_XBEGIN);
	assert_int_equal(DEC(in, 0, 0x06), 0); /* push %es: not in 64-bit mode */
	assert_int_equal(in.kind, UT_INSN_BAD);
	assert_int_equal(DEC(in, 0, 0x48, 0x8b), 0); /* runs out */
	/* sixteen bytes of prefixes: over the architecture's limit */
	assert_int_equal(DEC(in, 0, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
			     0x66, 0x66, 0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0),
			 0);
}

static void test_relocate(void **state)
{
	const uint8_t jcc8[] = {0x74, 0x10}, call[] = {0xe8, 0, 1, 0, 0},
		      rip[] = {0x48, 0x8b, 0x05, 0x10, 0, 0, 0}, loop[] = {0xe2, 0xf0},
		      callr[] = {0x41, 0xff, 0xd3}, callsp[] = {0xff, 0x14, 0x24}, int3[] = {0xcc};
	uint8_t out[UT_INSN_RELOC_MAX];
	struct ut_insn in;
	int32_t r;
	uint64_t ret;

	ut_insn_decode(jcc8, 2, 0x10000, &in);
	assert_int_equal(ut_insn_relocate(jcc8, &in, 0x10000, out, sizeof(out), 0x20000), 6);
	assert_int_equal(out[0], 0x0f);
	assert_int_equal(out[1], 0x84);
	memcpy(&r, out + 2, 4);
	assert_int_equal(0x20000 + 6 + r, 0x10012);

	ut_insn_decode(call, 5, 0x7f0000001000, &in);
	assert_int_equal(
	    ut_insn_relocate(call, &in, 0x7f0000001000, out, sizeof(out), 0x7f0000100000), 18);
	assert_int_equal(out[0], 0x68);
	ret = 0;
	memcpy(&ret, out + 1, 4);
	memcpy((char *)&ret + 4, out + 9, 4);
	assert_int_equal(ret, 0x7f0000001005); /* the original return address */
	assert_int_equal(out[13], 0xe9);
	memcpy(&r, out + 14, 4);
	assert_int_equal(0x7f0000100000 + 18 + (int64_t)r, 0x7f0000001105);

	ut_insn_decode(rip, 7, 0x10000, &in);
	assert_int_equal(ut_insn_relocate(rip, &in, 0x10000, out, sizeof(out), 0x30000), 7);
	memcpy(&r, out + 3, 4);
	assert_int_equal(0x30000 + 7 + r, 0x10000 + 7 + 0x10);
	/* out of reach: 4 GiB away */
	assert_int_equal(ut_insn_relocate(rip, &in, 0x10000, out, sizeof(out), 0x100010000), -1);

	ut_insn_decode(loop, 2, 0x10000, &in);
	assert_int_equal(ut_insn_relocate(loop, &in, 0x10000, out, sizeof(out), 0x20000), 9);
	assert_int_equal(out[0], 0xe2);
	memcpy(&r, out + 5, 4);
	assert_int_equal(0x20000 + 9 + r, 0x10000 + 2 - 16);

	ut_insn_decode(callr, 3, 0x10000, &in); /* call *%r11: push, then jmp *%r11 */
	assert_int_equal(ut_insn_relocate(callr, &in, 0x10000, out, sizeof(out), 0x20000), 16);
	assert_memory_equal(out + 13, ((uint8_t[]){0x41, 0xff, 0xe3}), 3);
	ut_insn_decode(callsp, 3, 0x10000, &in);
	assert_int_equal(ut_insn_relocate(callsp, &in, 0x10000, out, sizeof(out), 0x20000), -1);
	ut_insn_decode(int3, 1, 0x10000, &in);
	assert_int_equal(ut_insn_relocate(int3, &in, 0x10000, out, sizeof(out), 0x20000), -1);
}

/* Relocated code run for real: a call (returns to the original place) and a loop. */
static long callee(long x)
{
	return x * 3;
}

static void test_relocate_run(void **state)
{
	/* near callee, so that the original call reaches it (a hint: checked below) */
	void *hint = (void *)(((uintptr_t)callee + (256ul << 20)) & ~4095ul);
	uint8_t *page = mmap(hint, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *orig = page, *copy = page + 4096;
	struct ut_insn in;
	long (*fn)(long);
	int n, k = 0;

	assert_true(page != MAP_FAILED);
	/* orig: mov %rdi,%rcx; loop at 3: dec %rcx ... as `loop .` counts rcx down to 0 */
	orig[k++] = 0x48; /* mov %rdi, %rcx */
	orig[k++] = 0x89;
	orig[k++] = 0xf9;
	orig[k++] = 0xe2; /* 3: loop 3 */
	orig[k++] = 0xfe;
	orig[k++] = 0x48; /* 5: mov %rcx, %rax */
	orig[k++] = 0x89;
	orig[k++] = 0xc8;
	orig[k++] = 0xc3;
	/* copy: mov %rdi,%rcx; (relocated loop); jmp orig + 5 */
	memcpy(copy, orig, 3);
	ut_insn_decode(orig + 3, 2, (uintptr_t)orig + 3, &in);
	n = ut_insn_relocate(orig + 3, &in, (uintptr_t)orig + 3, copy + 3, 32, (uintptr_t)copy + 3);
	assert_true(n > 0);
	assert_int_equal(ut_insn_jmp32(copy + 3 + n, (uintptr_t)copy + 3 + n, (uintptr_t)orig + 5),
			 0);
	fn = (long (*)(long))(void *)copy;
	assert_int_equal(fn(1000), 0);

	/* orig: call callee; ret at orig + 5.  copy: the relocated call, then int3 */
	k = 0;
	orig[k++] = 0xe8;
	{
		int32_t r = (int32_t)((intptr_t)callee - (intptr_t)(orig + 5));

		memcpy(orig + 1, &r, 4);
	}
	orig[5] = 0x48; /* add $1, %rax */
	orig[6] = 0x83;
	orig[7] = 0xc0;
	orig[8] = 0x01;
	orig[9] = 0xc3;
	ut_insn_decode(orig, 5, (uintptr_t)orig, &in);
	n = ut_insn_relocate(orig, &in, (uintptr_t)orig, copy, 32, (uintptr_t)copy);
	if (n < 0 || in.target != (uintptr_t)callee) { /* callee out of reach of this page */
		munmap(page, 8192);
		skip();
	}
	copy[n] = 0xcc; /* never reached: callee returns to orig + 5 */
	fn = (long (*)(long))(void *)copy;
	assert_int_equal(fn(5), 16);
	munmap(page, 8192);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kinds),	 cmocka_unit_test(test_relocate),
	    cmocka_unit_test(test_relocate_run), cmocka_unit_test(test_objdump_libs),
	    cmocka_unit_test(test_objdump_own),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

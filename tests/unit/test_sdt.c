// SPDX-License-Identifier: MIT
/*
 * test_sdt.c - the <sys/sdt.h> notes and their argument specifications
 * (common/ut_sdt.c): every operand form, every register name with its
 * sub-registers, the values a fetch gives, and what is refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ut_sdt.h"

static int parse(const char *s, struct ut_sdt_arg *a)
{
	return ut_sdt_arg_parse(s, strlen(s), a);
}

/* ---- notes --------------------------------------------------------------------------------- */

/* Append one note (owner, type, pc/base/sem, then the strings) to buf at *len. */
static void put_note(unsigned char *buf, size_t *len, const char *owner, uint32_t type, uint64_t pc,
		     uint64_t base, uint64_t sem, const char *strs, size_t strs_len)
{
	uint32_t namesz = (uint32_t)strlen(owner) + 1, descsz = (uint32_t)(24 + strs_len);
	unsigned char *p = buf + *len;

	memcpy(p, &namesz, 4);
	memcpy(p + 4, &descsz, 4);
	memcpy(p + 8, &type, 4);
	memcpy(p + 12, owner, namesz);
	p += 12 + ((namesz + 3) & ~3u);
	memcpy(p, &pc, 8);
	memcpy(p + 8, &base, 8);
	memcpy(p + 16, &sem, 8);
	memcpy(p + 24, strs, strs_len);
	*len = (size_t)(p - buf) + ((descsz + 3) & ~3u);
}

static struct ut_sdt_note seen[8];
static unsigned int nr_seen;

static void collect(const struct ut_sdt_note *n, void *arg)
{
	(void)arg;
	if (nr_seen < 8)
		seen[nr_seen++] = *n;
}

static void test_notes(void **state)
{
	static const char good[] = "libstdcxx\0throw\0"
				   "8@%rdi 8@%rsi";
	static const char noargs[] = "prov\0zero\0";
	static const char unterminated[] = {'p', 0, 'n', 0, 'x'};
	unsigned char buf[1024] = {0};
	size_t len = 0;

	(void)state;
	put_note(buf, &len, "stapsdt", 3, 0xa90a1, 0x1c5973, 0, good, sizeof(good));
	put_note(buf, &len, "GNU", 3, 1, 2, 3, noargs, sizeof(noargs));	    /* other owner */
	put_note(buf, &len, "stapsdt", 1, 1, 2, 3, noargs, sizeof(noargs)); /* other type */
	put_note(buf, &len, "stapsdt", 3, 1, 2, 3, unterminated, sizeof(unterminated));
	put_note(buf, &len, "stapsdt", 3, 0x1000, 0x2000, 0x4028, noargs, sizeof(noargs));
	nr_seen = 0;
	assert_int_equal(ut_sdt_notes(buf, len, collect, NULL), 2);
	assert_int_equal(nr_seen, 2);
	assert_int_equal(seen[0].pc, 0xa90a1);
	assert_int_equal(seen[0].base, 0x1c5973);
	assert_int_equal(seen[0].sem, 0);
	assert_string_equal(seen[0].provider, "libstdcxx");
	assert_string_equal(seen[0].name, "throw");
	assert_string_equal(seen[0].args, "8@%rdi 8@%rsi");
	assert_int_equal(seen[1].sem, 0x4028);
	assert_string_equal(seen[1].name, "zero");
	assert_string_equal(seen[1].args, "");

	/* a section cut anywhere: what is whole is read, nothing beyond the end */
	for (size_t cut = 0; cut < len; cut++) {
		unsigned int n;

		nr_seen = 0;
		n = ut_sdt_notes(buf, cut, collect, NULL);
		assert_true(n <= 2);
		for (unsigned int i = 0; i < n; i++)
			assert_true((const unsigned char *)seen[i].args < buf + cut);
	}
	/* a size field that claims more than there is */
	uint32_t huge = 0xfffffff0u;

	memcpy(buf + 4, &huge, 4);
	nr_seen = 0;
	assert_int_equal(ut_sdt_notes(buf, len, collect, NULL), 0);
}

/* ---- registers ------------------------------------------------------------------------------ */

static void test_registers(void **state)
{
	static const struct {
		const char *name;
		int reg;
		unsigned int shift, width;
	} regs[] = {
	    {"rax", UT_SDT_RAX, 0, 8},	{"eax", UT_SDT_RAX, 0, 4},  {"ax", UT_SDT_RAX, 0, 2},
	    {"al", UT_SDT_RAX, 0, 1},	{"ah", UT_SDT_RAX, 8, 1},   {"rbx", UT_SDT_RBX, 0, 8},
	    {"ebx", UT_SDT_RBX, 0, 4},	{"bx", UT_SDT_RBX, 0, 2},   {"bl", UT_SDT_RBX, 0, 1},
	    {"bh", UT_SDT_RBX, 8, 1},	{"rcx", UT_SDT_RCX, 0, 8},  {"ecx", UT_SDT_RCX, 0, 4},
	    {"cx", UT_SDT_RCX, 0, 2},	{"cl", UT_SDT_RCX, 0, 1},   {"ch", UT_SDT_RCX, 8, 1},
	    {"rdx", UT_SDT_RDX, 0, 8},	{"edx", UT_SDT_RDX, 0, 4},  {"dx", UT_SDT_RDX, 0, 2},
	    {"dl", UT_SDT_RDX, 0, 1},	{"dh", UT_SDT_RDX, 8, 1},   {"rsi", UT_SDT_RSI, 0, 8},
	    {"esi", UT_SDT_RSI, 0, 4},	{"si", UT_SDT_RSI, 0, 2},   {"sil", UT_SDT_RSI, 0, 1},
	    {"rdi", UT_SDT_RDI, 0, 8},	{"edi", UT_SDT_RDI, 0, 4},  {"di", UT_SDT_RDI, 0, 2},
	    {"dil", UT_SDT_RDI, 0, 1},	{"rbp", UT_SDT_RBP, 0, 8},  {"ebp", UT_SDT_RBP, 0, 4},
	    {"bp", UT_SDT_RBP, 0, 2},	{"bpl", UT_SDT_RBP, 0, 1},  {"rsp", UT_SDT_RSP, 0, 8},
	    {"esp", UT_SDT_RSP, 0, 4},	{"sp", UT_SDT_RSP, 0, 2},   {"spl", UT_SDT_RSP, 0, 1},
	    {"r8", UT_SDT_R8, 0, 8},	{"r8d", UT_SDT_R8, 0, 4},   {"r8w", UT_SDT_R8, 0, 2},
	    {"r8b", UT_SDT_R8, 0, 1},	{"r9", UT_SDT_R9, 0, 8},    {"r9d", UT_SDT_R9, 0, 4},
	    {"r9w", UT_SDT_R9, 0, 2},	{"r9b", UT_SDT_R9, 0, 1},   {"r10", UT_SDT_R10, 0, 8},
	    {"r10d", UT_SDT_R10, 0, 4}, {"r10w", UT_SDT_R10, 0, 2}, {"r10b", UT_SDT_R10, 0, 1},
	    {"r11", UT_SDT_R11, 0, 8},	{"r11d", UT_SDT_R11, 0, 4}, {"r11w", UT_SDT_R11, 0, 2},
	    {"r11b", UT_SDT_R11, 0, 1}, {"r12", UT_SDT_R12, 0, 8},  {"r12d", UT_SDT_R12, 0, 4},
	    {"r12w", UT_SDT_R12, 0, 2}, {"r12b", UT_SDT_R12, 0, 1}, {"r13", UT_SDT_R13, 0, 8},
	    {"r13d", UT_SDT_R13, 0, 4}, {"r13w", UT_SDT_R13, 0, 2}, {"r13b", UT_SDT_R13, 0, 1},
	    {"r14", UT_SDT_R14, 0, 8},	{"r14d", UT_SDT_R14, 0, 4}, {"r14w", UT_SDT_R14, 0, 2},
	    {"r14b", UT_SDT_R14, 0, 1}, {"r15", UT_SDT_R15, 0, 8},  {"r15d", UT_SDT_R15, 0, 4},
	    {"r15w", UT_SDT_R15, 0, 2}, {"r15b", UT_SDT_R15, 0, 1}, {"rip", UT_SDT_RIP, 0, 8},
	};
	static const char *const bad[] = {"", "r16", "eip", "xmm0", "RAX", "r8l", "raxx", "spx"};

	(void)state;
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		unsigned int shift = 99, width = 0;

		assert_int_equal(
		    ut_sdt_reg_lookup(regs[i].name, strlen(regs[i].name), &shift, &width),
		    regs[i].reg);
		assert_int_equal(shift, regs[i].shift);
		assert_int_equal(width, regs[i].width);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsigned int shift, width;

		assert_int_equal(ut_sdt_reg_lookup(bad[i], strlen(bad[i]), &shift, &width), -1);
	}
}

/* ---- operands ------------------------------------------------------------------------------- */

static uint64_t mem[4] = {0x1111111111111111ull, 0xfffffffffffffffeull, 0x8081828384858687ull,
			  0x0123456789abcdefull};
static uint64_t last_addr;

static int read_fake(uint64_t addr, void *buf, size_t n)
{
	last_addr = addr;
	if (addr < (uint64_t)(uintptr_t)mem || addr + n > (uint64_t)(uintptr_t)(mem + 4))
		return -EFAULT;
	memcpy(buf, (const void *)(uintptr_t)addr, n);
	return 0;
}

/* The value of spec with the registers regs (and sym_addr for a symbol). */
static uint64_t value(const char *spec, const uint64_t *regs, uint64_t sym_addr, int *fault)
{
	struct ut_sdt_arg a;

	*fault = 0;
	assert_int_equal(parse(spec, &a), 0);
	return ut_sdt_fetch(&a, regs, sym_addr, read_fake, fault);
}

static void test_operands(void **state)
{
	uint64_t regs[UT_SDT_NREGS] = {0};
	uint64_t base = (uint64_t)(uintptr_t)mem;
	struct ut_sdt_arg a;
	int fault;

	(void)state;
	regs[UT_SDT_RAX] = 0xffffffff8000abcdull;
	regs[UT_SDT_RBX] = base;
	regs[UT_SDT_RCX] = 2;
	regs[UT_SDT_RBP] = base + 16;
	regs[UT_SDT_R9] = 0xfffffffffffffff7ull;
	regs[UT_SDT_RSP] = base + 8;

	/* registers: the spec's size cuts, its sign extends; %ah is bits 8-15 */
	assert_int_equal(parse("-4@%eax", &a), 0);
	assert_int_equal(a.kind, UT_SDT_ARG_REG);
	assert_int_equal(a.size, 4);
	assert_int_equal(a.is_signed, 1);
	assert_string_equal(ut_sdt_type_name(&a), "s32");
	assert_string_equal(ut_sdt_type_fmt(&a), "%d");
	assert_int_equal(value("-4@%eax", regs, 0, &fault), (uint64_t)(int64_t)(int32_t)0x8000abcd);
	assert_int_equal(value("4@%eax", regs, 0, &fault), 0x8000abcdull);
	assert_int_equal(value("8@%rax", regs, 0, &fault), 0xffffffff8000abcdull);
	assert_int_equal(value("2@%ax", regs, 0, &fault), 0xabcd);
	assert_int_equal(value("-2@%ax", regs, 0, &fault), (uint64_t)(int64_t)(int16_t)0xabcd);
	assert_int_equal(value("1@%al", regs, 0, &fault), 0xcd);
	assert_int_equal(value("1@%ah", regs, 0, &fault), 0xab);
	assert_int_equal(value("-1@%ah", regs, 0, &fault), (uint64_t)(int64_t)(int8_t)0xab);
	assert_int_equal(value("-4@%r9d", regs, 0, &fault), (uint64_t)-9);
	assert_int_equal(value("%rcx", regs, 0, &fault), 2); /* no size: 8 bytes, unsigned */
	assert_int_equal(fault, 0);

	/* immediates */
	assert_int_equal(value("-4@$5", regs, 0, &fault), 5);
	assert_int_equal(value("-4@$-1", regs, 0, &fault), (uint64_t)-1);
	assert_int_equal(value("4@$-1", regs, 0, &fault), 0xffffffffull);
	assert_int_equal(value("1@$-6", regs, 0, &fault), 250);
	assert_int_equal(value("8@$0x10", regs, 0, &fault), 16);
	assert_int_equal(value("8@$-446744073709551616", regs, 0, &fault), 18000000000000000000ull);
	assert_int_equal(parse("-4@$5", &a), 0);
	assert_int_equal(a.kind, UT_SDT_ARG_IMM);

	/* memory: disp(base), disp(base,index,scale), (,index,scale), sizes and signs */
	assert_int_equal(value("8@(%rbx)", regs, 0, &fault), mem[0]);
	assert_int_equal(value("8@8(%rbx)", regs, 0, &fault), mem[1]);
	assert_int_equal(value("-8@-8(%rbp)", regs, 0, &fault), (uint64_t)-2);
	assert_int_equal(value("8@(%rbx,%rcx,8)", regs, 0, &fault), mem[2]);
	assert_int_equal(value("8@8(%rbx,%rcx,8)", regs, 0, &fault), mem[3]);
	assert_int_equal(value("-1@-8(%rbx,%rcx,8)", regs, 0, &fault), (uint64_t)-2);
	assert_int_equal(value("2@16(%rbx,%rcx)", regs, 0, &fault), 0x8485); /* scale 1 */
	assert_int_equal(value("4@0x10(%rsp)", regs, 0, &fault), 0x89abcdefull);
	assert_int_equal(parse("8@(%rbx,%rcx,8)", &a), 0);
	assert_int_equal(a.kind, UT_SDT_ARG_MEM);
	assert_int_equal(a.reg, UT_SDT_RBX);
	assert_int_equal(a.index, UT_SDT_RCX);
	assert_int_equal(a.scale, 8);
	regs[UT_SDT_RDX] = (base + 24) / 4;
	assert_int_equal(value("8@(,%rdx,4)", regs, 0, &fault), mem[3]);
	assert_int_equal(fault, 0);

	/* a global by %rip: its address is the symbol's, plus the offset */
	assert_int_equal(parse("8@counter+8(%rip)", &a), 0);
	assert_int_equal(a.has_sym, 1);
	assert_string_equal(a.sym, "counter");
	assert_int_equal(a.disp, 8);
	assert_int_equal(a.reg, UT_SDT_RIP);
	assert_int_equal(value("8@counter(%rip)", regs, base + 16, &fault), mem[2]);
	assert_int_equal(value("8@counter+8(%rip)", regs, base + 16, &fault), mem[3]);
	assert_int_equal(value("-4@counter-4(%rip)", regs, base + 16, &fault), (uint64_t)-1);
	assert_int_equal(value("8@counter", regs, base, &fault), mem[0]); /* non-PIC: absolute */
	assert_int_equal(fault, 0);

	/* memory that faults: 0, and the fault said */
	regs[UT_SDT_RDX] = 16;
	assert_int_equal(value("8@(%rdx)", regs, 0, &fault), 0);
	assert_int_equal(fault, 1);
	assert_int_equal(last_addr, 16);
}

static void test_args(void **state)
{
	struct ut_sdt_arg a[UT_SDT_ARGS_MAX];

	(void)state;
	assert_int_equal(ut_sdt_args_parse("", a, UT_SDT_ARGS_MAX), 0);
	assert_int_equal(ut_sdt_args_parse("  ", a, UT_SDT_ARGS_MAX), 0);
	assert_int_equal(ut_sdt_args_parse("8@%rdx 8@-80(%rbx)", a, UT_SDT_ARGS_MAX), 2);
	assert_int_equal(a[1].kind, UT_SDT_ARG_MEM);
	assert_int_equal(a[1].disp, -80);
	assert_int_equal(
	    ut_sdt_args_parse("-1@%dil 1@%sil -2@%dx 2@%cx -4@%r8d 8@%r9", a, UT_SDT_ARGS_MAX), 6);
	assert_string_equal(ut_sdt_type_name(&a[0]), "s8");
	assert_string_equal(ut_sdt_type_name(&a[1]), "u8");
	assert_string_equal(ut_sdt_type_name(&a[2]), "s16");
	assert_string_equal(ut_sdt_type_name(&a[3]), "u16");
	assert_string_equal(ut_sdt_type_name(&a[4]), "s32");
	assert_string_equal(ut_sdt_type_name(&a[5]), "u64");
	assert_string_equal(ut_sdt_type_fmt(&a[5]), "%Lu");
	a[5].is_signed = 1;
	assert_string_equal(ut_sdt_type_fmt(&a[5]), "%Ld");
	assert_string_equal(ut_sdt_type_fmt(&a[3]), "%u");
	/* twelve at most */
	assert_int_equal(ut_sdt_args_parse("1@$1 1@$2 1@$3 1@$4 1@$5 1@$6 1@$7 1@$8 1@$9 1@$10 "
					   "1@$11 1@$12",
					   a, UT_SDT_ARGS_MAX),
			 12);
	assert_int_equal(ut_sdt_args_parse("1@$1 1@$2 1@$3 1@$4 1@$5 1@$6 1@$7 1@$8 1@$9 1@$10 "
					   "1@$11 1@$12 1@$13",
					   a, UT_SDT_ARGS_MAX),
			 -EINVAL);
	assert_int_equal(ut_sdt_args_parse("8@%rax 3@%rbx", a, UT_SDT_ARGS_MAX), -EINVAL);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
	    "",
	    "@%rax",
	    "3@%rax",
	    "16@%rax",
	    "-0@%rax",
	    "+4@%eax",
	    "4@",
	    "4@%",
	    "4@%rip",
	    "4@%xmm0",
	    "4@%eax ",
	    "4@%eaxx",
	    "4@$",
	    "4@$x",
	    "4@$99999999999999999999",
	    "8@12",
	    "8@(%eax)",
	    "8@(%rax",
	    "8@(%rax,%rbx,3)",
	    "8@(%rax,%rsp,2)",
	    "8@(%rax,%rbx,8",
	    "8@8(%rip)",
	    "8@(%rip)",
	    "8@sym(%rip,%rax,2)",
	    "8@()",
	    "8@(,)",
	    "8@-(%rax)",
	    "8@0x(%rax)",
	    "4@%fs:0x28",
	    "8@(%rax)x",
	    "4@4@%eax",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ut_sdt_arg a;

		if (parse(bad[i], &a) != -EINVAL)
			fail_msg("\"%s\" was accepted", bad[i]);
	}
	/* a symbol longer than the room for it */
	char longsym[UT_SDT_SYM_MAX + 32] = "8@";
	struct ut_sdt_arg a;

	memset(longsym + 2, 'x', UT_SDT_SYM_MAX + 4);
	strcpy(longsym + 2 + UT_SDT_SYM_MAX + 4, "(%rip)");
	assert_int_equal(parse(longsym, &a), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_notes),    cmocka_unit_test(test_registers),
	    cmocka_unit_test(test_operands), cmocka_unit_test(test_args),
	    cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

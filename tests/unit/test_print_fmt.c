// SPDX-License-Identifier: MIT
/*
 * test_print_fmt.c - trace event print formats (fs/output/print_fmt.c and
 * print_fmt_render.c): every conversion, flag, width and precision of the kernel's
 * vsnprintf, the helpers of TP_printk, C's precedence and arithmetic on fields, and
 * the formats and records that must fall back to the fields instead of printing
 * garbage.  The expected strings are what the kernel prints for the same format and
 * values (its vsnprintf differs from C's in a few corners, marked).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "event_defs.h"
#include "output/print_fmt.h"
#include "print_fmt_fixture.h"

static struct tfs_event_def def;
static union {
	unsigned char b[256];
	uint64_t align;
} rec;
static unsigned int rec_size;
static bool hash_ptr;
static char out[8192];
static const char *why;

/*
 * The record: int i = -42; unsigned int u = 3000000000; long l = -5000000000;
 * unsigned long ul = 0x1010 (a "function"); short s = -2; unsigned char c = 'A';
 * signed char sc = -1; string str = "hello"; int arr[] = {1, -2, 3}; char tag[8] =
 * "tag"; u8 bytes[4] = de ad be ef; void *p = 0x1234.
 */
static int setup(void **state)
{
	static const int arr[3] = {1, -2, 3};
	int32_t i = -42;
	uint32_t u = 3000000000u, loc;
	int64_t l = -5000000000ll;
	uint64_t ul = 0x1010, p = 0x1234;
	int16_t s = -2;

	memset(&def, 0, sizeof(def));
	memset(&rec, 0, sizeof(rec));
	strcpy(def.name, "ev");
	def.size = 64;
	def.nr_fields = sizeof(pf_fixture_fields) / sizeof(pf_fixture_fields[0]);
	memcpy(def.fields, pf_fixture_fields, sizeof(pf_fixture_fields));
	memcpy(rec.b + 8, &i, 4);
	memcpy(rec.b + 12, &u, 4);
	memcpy(rec.b + 16, &l, 8);
	memcpy(rec.b + 24, &ul, 8);
	memcpy(rec.b + 32, &s, 2);
	rec.b[34] = 'A';
	rec.b[35] = 0xff;
	loc = 64 | (6u << 16);
	memcpy(rec.b + 36, &loc, 4);
	loc = 72 | (12u << 16);
	memcpy(rec.b + 40, &loc, 4);
	memcpy(rec.b + 44, "tag", 4);
	memcpy(rec.b + 52, "\xde\xad\xbe\xef", 4);
	memcpy(rec.b + 56, &p, 8);
	memcpy(rec.b + 64, "hello", 6);
	memcpy(rec.b + 72, arr, 12);
	rec_size = 84;
	hash_ptr = false;
	return 0;
}

/* A pretend symbol table: func covers 0x1000..0x103f. */
static int sym(void *arg, uint64_t addr, bool offset, struct tfs_buf *b)
{
	if (addr < 0x1000 || addr >= 0x1040)
		return -ENOENT;
	if (offset)
		tfs_buf_printf(b, "func+0x%" PRIx64 "/0x40", addr - 0x1000);
	else
		tfs_buf_printf(b, "func");
	return 0;
}

/* fmt rendered on the record; "PARSE: why" or "EVAL" when it falls back. */
static const char *render(const char *fmt)
{
	struct tfs_pfmt_env env = {
	    .rec = rec.b, .size = rec_size, .hash_ptr = hash_ptr, .hash_key = 7, .sym = sym};
	struct tfs_buf b = {0};
	struct tfs_pfmt *pf;

	snprintf(def.print_fmt, sizeof(def.print_fmt), "%s", fmt);
	why = NULL;
	pf = tfs_pfmt_parse(&def, &why);
	if (!pf) {
		snprintf(out, sizeof(out), "PARSE: %s", why);
		return out;
	}
	tfs_buf_append(&b, "<", 1);
	if (tfs_pfmt_render(pf, &def, &env, &b)) {
		/* nothing of the failed line is left */
		assert_int_equal(b.len, 1);
		snprintf(out, sizeof(out), "EVAL");
	} else {
		snprintf(out, sizeof(out), "%.*s", (int)b.len - 1, b.data + 1);
	}
	tfs_buf_free(&b);
	tfs_pfmt_free(pf);
	return out;
}

#define EXPECT(fmt, want) assert_string_equal(render(fmt), want)

static void test_integers(void **state)
{
	EXPECT("\"i=%d u=%u\", REC->i, REC->u", "i=-42 u=3000000000");
	EXPECT("\"%i %x %X %o\", REC->i, REC->u, REC->u, REC->u",
	       "-42 b2d05e00 B2D05E00 26264057000");
	EXPECT("\"%ld %lu %lld %llx\", REC->l, REC->ul, REC->l, REC->l",
	       "-5000000000 4112 -5000000000 fffffffed5fa0e00");
	/* the length modifier decides the C type shown, as va_arg would take it */
	EXPECT("\"%hhd %hd %hhu %hu %u\", REC->i, REC->i, REC->i, REC->i, REC->i",
	       "-42 -42 214 65494 4294967254");
	EXPECT("\"%zu %zd %td %jd %d\", REC->ul, REC->l, REC->l, REC->l, REC->l",
	       "4112 -5000000000 -5000000000 -5000000000 -705032704");
	EXPECT("\"%d %u %d %d\", REC->s, REC->c, REC->sc, REC->c", "-2 65 -1 65");
	EXPECT("\"%lld %llu\", REC->i, REC->u", "-42 3000000000");
}

static void test_flags_width_precision(void **state)
{
	EXPECT("\"%5d|%-5d|%05d|%+d|% d|%+d\", 42, 42, 42, 42, 42, -42",
	       "   42|42   |00042|+42| 42|-42");
	EXPECT("\"%-05d|%+05d|% 5d\", 42, 42, 42", "42   |+0042|   42");
	/* the kernel: "%#x" of 0 is "0x0" (C prints "0") */
	EXPECT("\"%#x %#o %#x %#X %#o\", 255, 8, 0, 255, 0", "0xff 010 0x0 0XFF 0");
	EXPECT("\"%#10x|%#-10x|%#010x\", 255, 255, 255", "      0xff|0xff      |0x000000ff");
	/* the kernel: precision 0 still shows 0, and the 0 flag pads beside a precision */
	EXPECT("\"%.3d|%8.3d|%-8.3d|%08.3d|%.0d|%.d\", 7, 7, 7, 7, 0, 0",
	       "007|     007|007     |00000007|0|0");
	EXPECT("\"%*d|%-*d|%.*d|%*.*d\", 6, 42, 6, 42, 4, 42, 6, 4, 42",
	       "    42|42    |0042|  0042");
	/* a negative `*` width left-justifies; a negative `*` precision counts as 0 */
	EXPECT("\"%*d|%.*d|\", -6, 42, -3, 42", "42    |42|");
	EXPECT("\"%c%c|%3c|%-3c|\", 'h', REC->c, REC->c, REC->c", "hA|  A|A  |");
	EXPECT("\"100%% %%d\"", "100% %d");
	/* widths are bounded */
	assert_int_equal(strlen(render("\"%99999d\", 1")), 4096);
}

static void test_strings(void **state)
{
	EXPECT("\"%s|%.3s|%8s|%-8s|\", __get_str(str), __get_str(str), __get_str(str), "
	       "__get_str(str)",
	       "hello|hel|   hello|hello   |");
	EXPECT("\"tag=%s\", REC->tag", "tag=tag");
	EXPECT("\"%s %s\", REC->i < 0 ? \"neg\" : \"pos\", \"a\" \"b\\x21\"", "neg ab!");
	EXPECT("\"%s|%s\", 0, REC->p", "(null)|(efault)");
	EXPECT("\"line\\tone\\n\"", "line\tone\n");
	/* a __data_loc out of the record is an empty string */
	rec.b[38] = 0xff;
	EXPECT("\"[%s]\", __get_str(str)", "[]");
	/* unprintable bytes of a record do not reach the terminal */
	setup(NULL);
	rec.b[65] = 0x1b;
	EXPECT("\"%s\", __get_str(str)", "h?llo");
}

static void test_pointers(void **state)
{
	char want[64];

	/* hash-ptr off: the bare %p is the address (%px); with a width it stays hashed */
	EXPECT("\"%p %px %p\", REC->p, REC->p, 0",
	       "0000000000001234 0000000000001234 0000000000000000");
	snprintf(want, sizeof(want), "%20" PRIx64, tfs_pfmt_hash_ptr(0x1234, 7));
	EXPECT("\"%20p\", REC->p", want);
	snprintf(want, sizeof(want), "%016" PRIx64, tfs_pfmt_hash_ptr(0x1234, 7));
	hash_ptr = true;
	EXPECT("\"%p\", REC->p", want);
	EXPECT("\"%p %px\", 0, REC->p", "0000000000000000 0000000000001234");
	assert_true(tfs_pfmt_hash_ptr(0x1234, 7) >> 32 == 0);
	assert_true(tfs_pfmt_hash_ptr(0x1234, 7) != tfs_pfmt_hash_ptr(0x1234, 8));
	/* symbols: %pS with offset and size, %ps the name; unknown as "0x%lx" */
	EXPECT("\"%pS %ps %pF %pf %pB\", REC->ul, REC->ul, REC->ul, REC->ul, REC->ul",
	       "func+0x10/0x40 func func+0x10/0x40 func func+0x10/0x40");
	EXPECT("\"%pS|%ps|%-12ps|\", 0x2000, REC->i, REC->ul",
	       "0x2000|0xffffffffffffffd6|func        |");
}

/* The fields shown as functions (%pS %ps %pF %pf of an 8-byte field): raw pages make them flat. */
static void test_sym_fields(void **state)
{
	uint16_t offs[PF_SYM_FIELDS_MAX];
	struct tfs_pfmt *pf;

	/* '*' takes i; %p is not a function; a cast is looked through; i is too small; ul + 1 */
	snprintf(def.print_fmt, sizeof(def.print_fmt), "%s",
		 "\"%*d %p %ps %pS|%d|%pf %ps %pF %s\", REC->i, REC->u, REC->p, REC->ul, "
		 "(void *)REC->l, REC->i, REC->ul, REC->i, REC->ul + 1, __get_str(str)");
	pf = tfs_pfmt_parse(&def, &why);
	assert_non_null(pf);
	assert_int_equal(tfs_pfmt_sym_fields(pf, &def, offs), 3);
	assert_int_equal(offs[0], 24);
	assert_int_equal(offs[1], 16);
	assert_int_equal(offs[2], 24);
	tfs_pfmt_free(pf);
}

static void test_helpers(void **state)
{
	EXPECT("\"%s\", __print_symbolic(REC->i, {1, \"one\"}, {-42, \"minus\"})", "minus");
	EXPECT("\"%s\", __print_symbolic(REC->i, {1, \"one\"})", "0xffffffffffffffd6");
	/* {x, NULL} ends a table, as the kernel's loop stops there */
	EXPECT("\"%s\", __print_symbolic(REC->i, {1, \"one\"}, {-1, 0}, {-42, \"minus\"})",
	       "0xffffffffffffffd6");
	EXPECT("\"%s\", __print_symbolic(REC->i, {-42, \"minus\"}, { -1, ((void *)0) })", "minus");
	EXPECT("\"%s\", __print_flags(REC->c, \"|\", {0x1, \"A\"}, {0, NULL})", "A|0x40");
	EXPECT("\"%s\", __print_flags(REC->c, \"|\", {0x1, \"A\"}, {0x40, \"G\"})", "A|G");
	EXPECT("\"%s\", __print_flags(REC->c, \"|\", {0x1, \"A\"})", "A|0x40");
	EXPECT("\"%s\", __print_flags(REC->c, \"|\", {0x2, \"B\"})", "0x41");
	EXPECT("\"[%s]\", __print_flags(0, \"|\", {0x2, \"B\"})", "[]");
	EXPECT("\"%s\", __print_flags(REC->c, \" \", {0x41, \"both\"}, {0x1, \"A\"})", "both");
	EXPECT("\"%s\", __print_hex(REC->bytes, 4)", "de ad be ef");
	EXPECT("\"%s\", __print_hex_str(__get_dynamic_array(arr), 5)", "01000000fe");
	EXPECT(
	    "\"%s\", __print_array(__get_dynamic_array(arr), __get_dynamic_array_len(arr) / 4, 4)",
	    "{0x1,0xfffffffe,0x3}");
	EXPECT("\"%s\", __print_array(REC->bytes, 2, 2)", "{0xadde,0xefbe}");
	/* a count beyond the array is cut to it */
	EXPECT("\"%s\", __print_hex(REC->bytes, 100)", "de ad be ef");
	EXPECT("\"%d\", __get_dynamic_array_len(arr)", "12");
	/* a table helper inside ?: as kernel formats write it */
	EXPECT("\"%s\", (REC->c) ? __print_flags(REC->c, \"|\", {0x40, \"G\"}) : \"none\"",
	       "G|0x1");
}

static void test_expressions(void **state)
{
	EXPECT("\"%d %d %d %d\", 1 + 2 * 3, (1 + 2) * 3, 1 << 2 + 1, 10 - 4 - 3", "7 9 8 3");
	EXPECT("\"%d %d %d\", 7 & 3 == 3, 1 | 2 ^ 3 & 4, 2 * 3 % 4", "1 3 2");
	EXPECT("\"%d %d %d %d\", -REC->i, ~0, !REC->i, !!REC->i", "42 -1 0 1");
	EXPECT("\"%d %d %d\", REC->i < 0 && REC->u > 5, 0 || 0, REC->i >= -42", "1 0 1");
	EXPECT("\"%d %d\", REC->i > 0 ? 1 : REC->i < -100 ? 2 : 3, 0 ? 1 : 0 ? 2 : 4", "3 4");
	/* C's conversions: int with unsigned int is unsigned, casts cut and sign-extend */
	EXPECT("\"%d %u %d\", -1 < REC->u, (unsigned int)REC->i, (unsigned char)REC->i",
	       "0 4294967254 214");
	EXPECT("\"%llu %llu %ld\", REC->u * 2, (long)REC->u * 2, (long)(int)REC->u",
	       "1705032704 6000000000 -1294967296");
	EXPECT("\"%d %d %d %u\", REC->i / 5, REC->i % 5, REC->i >> 1, REC->u >> 1",
	       "-8 -2 -21 1500000000");
	EXPECT("\"%lx %x %d\", (unsigned long)REC->p + 0x10, 0x10u, 'a'", "1244 10 97");
	EXPECT("\"%d %d\", REC->s * REC->sc, REC->c - 66", "2 -1");
	EXPECT("\"%llu\", 18446744073709551615ULL", "18446744073709551615");
	/* subscripts: an element of the array's type; past its end the line fails */
	EXPECT("\"%02x:%02x %d %c\", REC->bytes[0], REC->bytes[3], __get_dynamic_array(arr)[1], "
	       "REC->tag[1]",
	       "de:ef -2 a");
	EXPECT("\"%d\", REC->bytes[4]", "EVAL");
	/* && and || do not evaluate their right side when the left decides */
	EXPECT("\"%d %d\", 0 && 1 / 0, 1 || 1 / 0", "0 1");
}

static void test_fallbacks(void **state)
{
	/* formats not understood: each says why */
	assert_non_null(strstr(render("\"%d\", REC->nosuch"), "unknown field"));
	assert_non_null(strstr(render("\"%d\", nosuch(REC->i)"), "unknown identifier"));
	assert_non_null(strstr(render("\"%d %d\", REC->i"), "do not match"));
	assert_non_null(strstr(render("\"%d\", REC->i, REC->u"), "do not match"));
	assert_non_null(strstr(render("\"%n\", REC->i"), "conversion"));
	assert_non_null(strstr(render("\"%pM\", REC->p"), "extension"));
	assert_non_null(strstr(render("\"%d\", (unsigned foo)REC->p"), "unknown type"));
	assert_non_null(strstr(render("\"%d\", (struct foo *)REC->p"), "unknown identifier"));
	assert_non_null(strstr(render("\"%d"), "not closed"));
	assert_non_null(strstr(render("\"%d\", (REC->i"), "not closed"));
	assert_non_null(strstr(render("\"%d\", REC->i +"), "expected"));
	assert_non_null(strstr(render("\"%s\", __get_str(i)"), "__data_loc"));
	assert_non_null(strstr(render("\"x\\q\""), "escape"));
	assert_non_null(strstr(render("\"%d\", REC->i ? 1"), ":"));
	assert_string_equal(render("no quotes"), "PARSE: a string is expected");
	assert_non_null(strstr(render("\"%d\", '"), "character constant"));
	assert_non_null(strstr(render("\"%d\", 'ab'"), "character constant"));
	/* nesting far deeper than any format: refused, no crash */
	{
		char deep[1200] = "\"%d\", ";

		for (int i = 0; i < 500; i++)
			strcat(deep, "- ");
		strcat(deep, "1");
		assert_non_null(strstr(render(deep), "too deep"));
		memset(deep, 0, sizeof(deep));
		strcpy(deep, "\"%d\", ");
		for (int i = 0; i < 300; i++)
			strcat(deep, "(");
		assert_string_equal(render(deep), "PARSE: the expressions nest too deep");
	}
	/* records a format cannot be evaluated on: nothing of the line is written */
	EXPECT("\"%d\", REC->i / (REC->i + 42)", "EVAL");
	EXPECT("\"%d\", REC->i % 0", "EVAL");
	EXPECT("\"%d\", __get_str(str)", "EVAL");
	EXPECT("\"%d\", \"a\" + 1", "EVAL");
	EXPECT("\"%d\", 1 << 40", "EVAL");
	EXPECT("\"%p\", __get_str(str)", "EVAL");
	EXPECT("\"%s\", __print_array(REC->bytes, 1, 3)", "EVAL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_integers, setup),
	    cmocka_unit_test_setup(test_flags_width_precision, setup),
	    cmocka_unit_test_setup(test_strings, setup),
	    cmocka_unit_test_setup(test_pointers, setup),
	    cmocka_unit_test_setup(test_sym_fields, setup),
	    cmocka_unit_test_setup(test_helpers, setup),
	    cmocka_unit_test_setup(test_expressions, setup),
	    cmocka_unit_test_setup(test_fallbacks, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

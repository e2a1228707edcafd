// SPDX-License-Identifier: MIT
/*
 * test_bprint.c - trace_printk's binary records: the runtime's packer of the
 * arguments (common/ut_printf.c, the kernel's vbin_printf), utracefs's renderer of
 * them (fs/output/print_fmt_render.c, the kernel's bstr_printf), the texts
 * processes tell utracefs (fs/printk_fmt.c) and the printk_formats file.
 *
 * The expected strings are what the kernel prints for the same format and
 * arguments: where its vsnprintf and C's agree they are C's own (snprintf of the
 * same call), and the corners where they differ are written out.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "output/print_fmt.h"
#include "printk_fmt.h"
#include "tfs.h"
#include "ut_printf.h"
#include "ut_ring.h"
#include "ut_wire.h"

static union {
	unsigned char b[UT_BPRINT_MAX + 64];
	uint32_t words[(UT_BPRINT_MAX + 64) / 4];
} pk;

static int pack(const char *fmt, ...)
{
	va_list ap;
	int n;

	memset(pk.b, 0xa5, sizeof(pk.b));
	va_start(ap, fmt);
	n = ut_pf_pack(pk.b, UT_BPRINT_MAX, fmt, ap);
	va_end(ap);
	return n;
}

/* The text of the record packed last (n bytes), as utracefs renders it. */
static const char *render(const char *fmt, int n)
{
	static char out[4096];
	struct tfs_pfmt_env env = {.hash_ptr = true, .hash_key = 1};
	struct tfs_buf b = {0};
	int err = tfs_pfmt_render_bin(fmt, pk.b, (uint32_t)n, &env, &b);

	snprintf(out, sizeof(out), "%s%s", err ? "ERR:" : "", b.data ? b.data : "");
	tfs_buf_free(&b);
	return out;
}

/* The layout: each value in its size and alignment, 8-byte ones aligned to 4. */
static void test_pack_layout(void **state)
{
	static const unsigned char want[] = {
	    0xfb,					    /* %hhd -5 */
	    0,	  0x34, 0x12,				    /* %hd 0x1234 at 2 */
	    7,	  0,	0,    0,			    /* %d 7 at 4 */
	    'x',					    /* %c at 8 */
	    0,	  0,	0,				    /* gap to 12 */
	    0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* %llx at 12 (not 16) */
	    'h',  'i',	0,				    /* %s with its NUL at 20 */
	    0,						    /* to a whole word */
	};
	int n = pack("%hhd %hd %d %c %llx %s", (signed char)-5, (short)0x1234, 7, 'x',
		     0x1122334455667788ull, "hi");

	assert_int_equal(n, sizeof(want));
	assert_memory_equal(pk.b, want, sizeof(want));
	/* `*` widths and precisions are ints before the value */
	n = pack("%*.*d", 5, 3, 9);
	assert_int_equal(n, 12);
	assert_int_equal(pk.words[0], 5);
	assert_int_equal(pk.words[1], 3);
	assert_int_equal(pk.words[2], 9);
	/* pointers are their 8 bytes, whatever the extension */
	n = pack("%p %pS %px", (void *)0x10, (void *)0x20, (void *)0x30);
	assert_int_equal(n, 24);
	assert_int_equal(pk.words[2], 0x20);
	/* no argument at all: nothing (the kernel drops such a record) */
	assert_int_equal(pack("100%% plain\n"), 0);
}

static void test_pack_refused(void **state)
{
	int cnt = 0;
	char big[UT_BPRINT_MAX + 8];

	assert_int_equal(pack("a %n b\n", &cnt), -EINVAL);
	assert_int_equal(pack("%f\n", 1.5), -EINVAL);
	assert_int_equal(pack("%pM\n", (void *)big), -EINVAL); /* dereferenced at print time */
	assert_int_equal(pack("%d %", 1), -EINVAL);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	assert_int_equal(pack("%s", big), -ENOSPC);
	big[UT_BPRINT_MAX - 1] = 0; /* exactly the room, with its NUL */
	assert_int_equal(pack("%s", big), UT_BPRINT_MAX);
}

/* Formats whose kernel text is C's: rendering the packed record gives snprintf's. */
#define SAME_AS_C(fmt, ...)                                                                        \
	do {                                                                                       \
		char want[512];                                                                    \
		int n = pack(fmt, __VA_ARGS__);                                                    \
		snprintf(want, sizeof(want), fmt, __VA_ARGS__);                                    \
		assert_true(n > 0);                                                                \
		assert_string_equal(render(fmt, n), want);                                         \
	} while (0)

static void test_render_as_c(void **state)
{
	SAME_AS_C("int %d %i %u %x %X %o\n", -42, 42, 3000000000u, 0xbeef, 0xbeef, 8);
	SAME_AS_C("hh %hhd %hhu %hhx h %hd %hu\n", (signed char)-5, (unsigned char)250,
		  (unsigned char)0xab, (short)-1234, (unsigned short)65000);
	SAME_AS_C("l %ld %lu %lx ll %lld %llu\n", -1L, 1UL << 40, 0xfeedUL, -1234567890123ll,
		  18446744073709551615ull);
	SAME_AS_C("z %zu %zd t %td j %jd %ju\n", (size_t)4096, (ssize_t)-3, (ptrdiff_t)-77,
		  (intmax_t)-9, (uintmax_t)9);
	SAME_AS_C("[%5d] [%-5d] [%05d] [%+d] [% d] [%#x] [%#o] [%.3d] [%8.3x]\n", 42, 42, 42, 42,
		  42, 255, 8, 7, 0x1f);
	SAME_AS_C("[%*d] [%-*d] [%.*d] [%*.*s] [%*d]\n", 6, 1, 6, 2, 4, 3, 8, 3, "abcdef", -4, 5);
	SAME_AS_C("%c%c%c [%3c] [%-3c]\n", 'a', 'b', 'c', 'x', 'y');
	SAME_AS_C("[%s] [%10s] [%-10s] [%.2s] [%s]\n", "hello", "right", "left", "cut", "");
	SAME_AS_C("%s=%d %c %s %llu 100%%\n", "key", 7, 'z', "tab\there\n", 99ull);
}

/* The kernel's vsnprintf where C's differs, and what only the kernel has. */
static void test_render_kernel(void **state)
{
	int n;

	n = pack("[%#x] [%#o] [%.0d] [%s]\n", 0, 0, 0, (char *)NULL);
	assert_string_equal(render("[%#x] [%#o] [%.0d] [%s]\n", n), "[0x0] [0] [0] [(null)]\n");
	n = pack("%px %px|%p %p\n", (void *)0x1234, (void *)NULL, (void *)NULL, (void *)0x1234);
	/* %p is hashed (bprint always, as the kernel's), NULL never */
	assert_memory_equal(render("%px %px|%p %p\n", n),
			    "0000000000001234 0000000000000000|0000000000000000 ", 51);
	assert_string_not_equal(render("%px %px|%p %p\n", n) + 51, "0000000000001234\n");
	/* no symbol lookup given: %pS shows the address as the kernel does then */
	n = pack("%pS %ps\n", (void *)0x1010, (void *)0x2020);
	assert_string_equal(render("%pS %ps\n", n), "0x1010 0x2020\n");
}

/* A record cut short, or a format the printf does not know: no made-up text. */
static void test_render_short(void **state)
{
	int n = pack("%d and %s\n", 5, "tail");

	assert_string_equal(render("%d and %s\n", 4), "ERR:5 and ");
	assert_string_equal(render("%d and %s and %d\n", n), "ERR:5 and tail and ");
	assert_string_equal(render("%d %n\n", n), "ERR:5 ");
	memset(pk.b + 8, 'x', 4); /* the string's NUL (at 4 + 4) and the padding gone */
	assert_string_equal(render("%d and %s\n", n), "ERR:5 and ");
}

/* Texts are kept per process and by time: a record finds its process's last one. */
static void test_formats_table(void **state)
{
	tfs_printk_fmt_reset();
	assert_int_equal(tfs_printk_fmt_add(100, 0x1000, 10, "one %d\n"), 0);
	assert_int_equal(tfs_printk_fmt_add(200, 0x1000, 10, "other %d\n"), 0);
	assert_int_equal(tfs_printk_fmt_add(100, 0x1000, 50, "one %d\n"), 0); /* again: kept once */
	assert_int_equal(tfs_printk_fmt_add(100, 0x1000, 90, "after exec\n"), 0);
	assert_string_equal(tfs_printk_fmt_find(100, 0x1000, 20), "one %d\n");
	assert_string_equal(tfs_printk_fmt_find(200, 0x1000, 20), "other %d\n");
	assert_string_equal(tfs_printk_fmt_find(100, 0x1000, 95), "after exec\n");
	assert_null(tfs_printk_fmt_find(100, 0x2000, 95));
	assert_null(tfs_printk_fmt_find(300, 0x1000, 95));
	/* a record a little older than its text (two CPUs' counters): the first text */
	assert_string_equal(tfs_printk_fmt_find(100, 0x1000, 5), "one %d\n");
	tfs_printk_fmt_reset();
}

/* printk_formats: the kernel's line, its escapes (a backslash stays one). */
static void test_printk_formats_file(void **state)
{
	struct tfs_open o = {0};

	tfs_printk_fmt_reset();
	tfs_printk_fmt_add(100, 0x55aa01, 1, "a\tb \"q\" c\\d %d\n");
	tfs_printk_fmt_add(200, 0x55aa01, 1, "puts\n");
	assert_int_equal(tfs_printk_formats_ops.show(&o), 0);
	assert_string_equal(o.content.data, "0x55aa01 : \"a\\tb \\\"q\\\" c\\d %d\\n\"\n"
					    "0x55aa01 : \"puts\\n\"\n");
	tfs_buf_free(&o.content);
	tfs_printk_fmt_reset();
}

/* The packet: the text and its NUL end it exactly. */
static void test_formats_msg(void **state)
{
	struct {
		struct ut_msg_printk_fmt m;
		char text[16];
	} p = {.m = {.h = {UT_MSG_PRINTK_FMT, 0}, .addr = 0x42, .tsc = 1}};
	size_t hdr = sizeof(p.m);

	tfs_printk_fmt_reset();
	memcpy(p.text, "ok %d\n", 7);
	assert_int_equal(tfs_printk_fmt_msg(7, &p, hdr + 7), 0);
	assert_string_equal(tfs_printk_fmt_find(7, 0x42, 2), "ok %d\n");
	assert_int_equal(tfs_printk_fmt_msg(7, &p, hdr + 8), -EPROTO); /* bytes after the NUL */
	assert_int_equal(tfs_printk_fmt_msg(7, &p, hdr + 6), -EPROTO); /* no NUL */
	assert_int_equal(tfs_printk_fmt_msg(7, &p, hdr), -EPROTO);
	tfs_printk_fmt_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pack_layout),		cmocka_unit_test(test_pack_refused),
	    cmocka_unit_test(test_render_as_c),		cmocka_unit_test(test_render_kernel),
	    cmocka_unit_test(test_render_short),	cmocka_unit_test(test_formats_table),
	    cmocka_unit_test(test_printk_formats_file), cmocka_unit_test(test_formats_msg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

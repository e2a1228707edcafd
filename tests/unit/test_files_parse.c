// SPDX-License-Identifier: MIT
/*
 * test_files_parse.c - parsing and formatting of the settings files (settings.h),
 * checked against what a 6.18 kernel answered to the same input on its tracefs:
 * tracing_cpumask (bitmap text both ways), trace_options names, options/NAME
 * values, buffer_size_kb arithmetic, saved_cmdlines_size rounding, trace_clock,
 * error_log layout, trace_marker text and the event format files.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "settings.h"
#include "tfs.h"

/* ---- tracing_cpumask --------------------------------------------------------------- */

static void expect_mask_text(uint64_t lo, uint64_t hi, unsigned int nr_cpus, const char *want)
{
	uint64_t mask[TFS_CPUMASK_WORDS] = {lo, hi};
	struct tfs_buf b = {0};

	assert_int_equal(tfs_cpumask_format(mask, nr_cpus, &b), 0);
	assert_string_equal(b.data, want);
	tfs_buf_free(&b);
}

static void test_cpumask_format(void **state)
{
	expect_mask_text(3, 0, 2, "3\n");
	expect_mask_text(1, 0, 2, "1\n");
	expect_mask_text(0, 0, 2, "0\n");
	expect_mask_text(5, 0, 8, "05\n");
	expect_mask_text(0xffffffffffull, 0, 40, "ff,ffffffff\n");
	expect_mask_text(UINT64_MAX, 0, 64, "ffffffff,ffffffff\n");
	expect_mask_text(1ull << 32, 0, 33, "1,00000000\n");
	expect_mask_text(0, 1, 65, "1,00000000,00000000\n");
	/* bits beyond nr_cpus never show */
	expect_mask_text(0xff, 0, 2, "3\n");
}

/* Parse text (size bytes) for nr_cpus; expect err and, on success, the mask. */
static void expect_parse(const char *text, size_t size, unsigned int nr_cpus, int err,
			 uint64_t lo, uint64_t hi)
{
	uint64_t mask[TFS_CPUMASK_WORDS] = {0xdead, 0xbeef};

	assert_int_equal(tfs_cpumask_parse(text, size, nr_cpus, mask), err);
	if (err) { /* untouched */
		assert_int_equal(mask[0], 0xdead);
		assert_int_equal(mask[1], 0xbeef);
	} else {
		assert_int_equal(mask[0], lo);
		assert_int_equal(mask[1], hi);
	}
}
#define PARSE(s, nr, err, lo, hi) expect_parse(s, sizeof(s) - 1, nr, err, lo, hi)

static void test_cpumask_parse(void **state)
{
	/* answers of the kernel with 2 CPUs */
	PARSE("1", 2, 0, 1, 0);
	PARSE("3\n", 2, 0, 3, 0);
	PARSE(" 1", 2, 0, 1, 0);
	PARSE("1 ", 2, 0, 1, 0);
	PARSE("00000001", 2, 0, 1, 0);
	PARSE("1,", 2, 0, 1, 0);
	PARSE(",1", 2, 0, 1, 0);
	PARSE("3\n\n", 2, 0, 3, 0);
	PARSE("1\0zz", 2, 0, 1, 0);
	PARSE("\n", 2, 0, 0, 0);
	PARSE("4", 2, -EOVERFLOW, 0, 0);
	PARSE("ff", 2, -EOVERFLOW, 0, 0);
	PARSE("FF", 2, -EOVERFLOW, 0, 0);
	PARSE("0,1", 2, -EOVERFLOW, 0, 0);
	PARSE("1,00000000", 2, -EOVERFLOW, 0, 0);
	PARSE("000000000000000000001", 2, -EOVERFLOW, 0, 0);
	PARSE("0x1", 2, -EINVAL, 0, 0);
	PARSE("g", 2, -EINVAL, 0, 0);
	PARSE("", 2, -EINVAL, 0, 0);
	/* wider masks: groups of 32 bits from the right, blanks separate too */
	PARSE("ffffffff,ffffffff", 64, 0, UINT64_MAX, 0);
	PARSE("1 2", 64, 0, (1ull << 32) | 2, 0);
	PARSE("1,00000000,00000003", 65, 0, 3, 1);
	PARSE("Ab", 8, 0, 0xab, 0);
	PARSE("1ff", 8, -EOVERFLOW, 0, 0);
	PARSE("12x4", 64, -EINVAL, 0, 0);
}

/* ---- options ------------------------------------------------------------------------ */

static void test_opt_parse(void **state)
{
	char name[64], big[80];
	bool neg;

	assert_int_equal(tfs_opt_parse("print-parent\n", 13, name, sizeof(name), &neg), 0);
	assert_string_equal(name, "print-parent");
	assert_false(neg);
	assert_int_equal(tfs_opt_parse("\t noprint-parent \n\n", 19, name, sizeof(name), &neg), 0);
	assert_string_equal(name, "print-parent");
	assert_true(neg);
	assert_int_equal(tfs_opt_parse("hex\0garbage", 11, name, sizeof(name), &neg), 0);
	assert_string_equal(name, "hex");
	/* the kernel's 64-byte buffer: 63 bytes pass, 64 do not */
	memset(big, ' ', sizeof(big));
	memcpy(big, "hex", 3);
	assert_int_equal(tfs_opt_parse(big, 63, name, sizeof(name), &neg), 0);
	assert_int_equal(tfs_opt_parse(big, 64, name, sizeof(name), &neg), -EINVAL);
	assert_int_equal(tfs_opt_parse("\n", 1, name, sizeof(name), &neg), -EINVAL);
	assert_int_equal(tfs_opt_parse("no\n", 3, name, sizeof(name), &neg), -EINVAL);
}

static void test_opt_parse_bool(void **state)
{
	bool v = false;

	assert_int_equal(tfs_opt_parse_bool("1\n", 2, &v), 0);
	assert_true(v);
	assert_int_equal(tfs_opt_parse_bool("0", 1, &v), 0);
	assert_false(v);
	assert_int_equal(tfs_opt_parse_bool("01", 2, &v), 0);
	assert_true(v);
	assert_int_equal(tfs_opt_parse_bool("+0", 2, &v), 0);
	assert_false(v);
	assert_int_equal(tfs_opt_parse_bool("2", 1, &v), -EINVAL);
	assert_int_equal(tfs_opt_parse_bool("-1", 2, &v), -EINVAL);
	assert_int_equal(tfs_opt_parse_bool(" 1", 2, &v), -EINVAL);
	assert_int_equal(tfs_opt_parse_bool("1 \n", 3, &v), -EINVAL);
	assert_int_equal(tfs_opt_parse_bool("1\n\n", 3, &v), -EINVAL);
	assert_int_equal(tfs_opt_parse_bool("0x1", 3, &v), -EINVAL);
	assert_int_equal(tfs_opt_parse_bool("4294967297", 10, &v), -EINVAL);
	assert_int_equal(tfs_opt_parse_bool("99999999999999999999999", 23, &v), -ERANGE);
}

/* trace_options of a freshly booted 6.18 kernel, without the tracer's own options */
static const char kernel_default_options[] =
	"print-parent nosym-offset nosym-addr noverbose noraw nohex nobin noblock nofields "
	"trace_printk annotate nouserstacktrace nosym-userobj noprintk-msg-only context-info "
	"nolatency-format record-cmd norecord-tgid overwrite nodisable_on_free irq-info markers "
	"noevent-fork trace_printk_dest copy_trace_marker nopause-on-trace hash-ptr "
	"function-trace nofunction-fork nostacktrace ";

static void test_opt_defaults(void **state)
{
	uint64_t def = tfs_opts_default();
	struct tfs_buf b = {0};

	for (unsigned int i = 0; i < TFS_OPT_NR; i++) {
		tfs_buf_printf(&b, "%s%s ", def >> i & 1 ? "" : "no", tfs_core_opts[i].name);
		assert_int_equal(tfs_opt_find(tfs_core_opts[i].name), (int)i);
	}
	assert_string_equal(b.data, kernel_default_options);
	assert_int_equal(tfs_opt_find("func_stack_trace"), -1);
	assert_int_equal(tfs_opt_find("noprint-parent"), -1);
	tfs_buf_free(&b);
}

static void test_option_files(void **state)
{
	unsigned int n = 0;
	bool stack = false, nop_accept = false;

	for (const char *name; (name = tfs_option_file_name(n)); n++) {
		if (n < TFS_OPT_NR)
			assert_string_equal(name, tfs_core_opts[n].name);
		for (unsigned int j = 0; j < n; j++)
			assert_string_not_equal(name, tfs_option_file_name(j));
		stack |= strcmp(name, "func_stack_trace") == 0;
		nop_accept |= strcmp(name, "test_nop_accept") == 0;
	}
	assert_true(n > TFS_OPT_NR);
	assert_true(stack);	 /* the function tracer's option, while nop is current */
	assert_true(nop_accept); /* the nop tracer's */
}

/* ---- buffer sizes, saved_cmdlines_size ------------------------------------------------ */

static void test_buffer_kb(void **state)
{
	/* writes and what the kernel read back */
	static const struct {
		unsigned long kb, shown;
	} cases[] = {{100, 103}, {1, 7}, {2, 7}, {7, 7}, {8, 11}, {10, 11}, {50, 51}, {1408, 1410}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(tfs_kpages_to_kb(tfs_kb_to_kpages(cases[i].kb)), cases[i].shown);
	/* the kernel's unsigned long arithmetic wraps these to the minimum */
	assert_int_equal(tfs_kb_to_kpages(1ul << 54), 2);
	assert_int_equal(tfs_kb_to_kpages(ULONG_MAX), 2);
	/* too many pages to count: the caller answers ENOMEM */
	assert_int_equal(tfs_kb_to_kpages(1ul << 44), 0);
	assert_int_equal(tfs_kb_to_kpages(TFS_TRACE_BUF_SIZE >> 10), 354);
	assert_int_equal(tfs_kpages_to_kb(TFS_BOOT_KPAGES), 7);
}

static void test_cmdlines_rounded(void **state)
{
	assert_int_equal(tfs_cmdlines_rounded(128), 6552);
	assert_int_equal(tfs_cmdlines_rounded(1), 6552);
	assert_int_equal(tfs_cmdlines_rounded(1000), 6552);
	assert_int_equal(tfs_cmdlines_rounded(6552), 6552);
	assert_int_equal(tfs_cmdlines_rounded(6553), 19659);
	assert_int_equal(tfs_cmdlines_rounded(19660), 45874);
	assert_int_equal(tfs_cmdlines_rounded(TFS_CMDLINES_MAX), 45874);
}

/* ---- clocks ----------------------------------------------------------------------------- */

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void test_clock_names(void **state)
{
	struct tfs_buf b = {0};

	assert_int_equal(tfs_clock_format(TFS_CLOCK_LOCAL, &b), 0);
	assert_string_equal(b.data, "[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n");
	tfs_buf_reset(&b);
	assert_int_equal(tfs_clock_format(TFS_CLOCK_X86_TSC, &b), 0);
	assert_string_equal(b.data, "local global counter uptime perf mono mono_raw boot tai [x86-tsc]\n");
	tfs_buf_free(&b);
	for (int i = 0; i < TFS_CLOCK_NR; i++)
		assert_int_equal(tfs_clock_find(tfs_clock_names[i]), i);
	assert_int_equal(tfs_clock_find("tai"), TFS_CLOCK_TAI);
	assert_int_equal(tfs_clock_find("TAI"), -1);
	assert_int_equal(tfs_clock_find("[local]"), -1);
	assert_true(tfs_clock_is_counter(TFS_CLOCK_COUNTER));
	assert_true(tfs_clock_is_counter(TFS_CLOCK_UPTIME));
	assert_true(tfs_clock_is_counter(TFS_CLOCK_X86_TSC));
	assert_false(tfs_clock_is_counter(TFS_CLOCK_MONO_RAW));
	assert_false(tfs_clock_is_counter(TFS_CLOCK_TAI));
}

static void test_clock_convert(void **state)
{
	tfs_clock_init();
	uint64_t before = now_ns(CLOCK_MONOTONIC), tsc = tfs_clock_tsc();
	uint64_t after = now_ns(CLOCK_MONOTONIC), mono = tfs_clock_ns(TFS_CLOCK_MONO, tsc);

	/* within 1 ms of CLOCK_MONOTONIC read around it */
	assert_true(mono + 1000000 >= before && mono <= after + 1000000);
	assert_int_equal(tfs_clock_ns(TFS_CLOCK_LOCAL, tsc), mono);
	assert_int_equal(tfs_clock_ns(TFS_CLOCK_X86_TSC, tsc), tsc);
	assert_int_equal(tfs_clock_ns(TFS_CLOCK_UPTIME, tsc), mono / 10000000);
	int64_t raw = (int64_t)(tfs_clock_ns(TFS_CLOCK_MONO_RAW, tsc) - mono);
	int64_t want = (int64_t)(now_ns(CLOCK_MONOTONIC_RAW) - now_ns(CLOCK_MONOTONIC));

	assert_true(raw - want < 1000000 && want - raw < 1000000);
	assert_true(tfs_clock_ns(TFS_CLOCK_BOOT, tsc) >= mono);
	/* tai: in ns, within a second of CLOCK_TAI read around it */
	uint64_t tai_before = now_ns(CLOCK_TAI), tai = tfs_clock_ns(TFS_CLOCK_TAI, tfs_clock_tsc());
	uint64_t tai_after = now_ns(CLOCK_TAI);

	assert_true(tai + 1000000000 >= tai_before && tai <= tai_after + 1000000000);
	/* counter: small, ordered, stable */
	uint64_t c1 = tfs_clock_ns(TFS_CLOCK_COUNTER, tsc);

	assert_true(c1 < tsc);
	assert_true(tfs_clock_ns(TFS_CLOCK_COUNTER, tsc + 1) > c1);
	/* a time stamp converts the same on every reading, and time never goes back */
	uint64_t prev = 0;

	for (int i = 0; i < 1000; i++) {
		uint64_t t = tfs_clock_tsc(), v = tfs_clock_ns(TFS_CLOCK_MONO, t);

		assert_true(v >= prev);
		assert_int_equal(tfs_clock_ns(TFS_CLOCK_MONO, t), v);
		prev = v;
	}
	assert_int_equal(tfs_clock_ns(TFS_CLOCK_MONO, tsc), mono);
	/* older stamps than the calibration still convert (backwards) */
	assert_true(tfs_clock_ns(TFS_CLOCK_MONO, tsc - 1000) <= mono);
}

/* New conversion segments never change what older stamps convert to. */
static void test_clock_segments(void **state)
{
	uint64_t t[64], v[64], prev = 0;
	unsigned int n0 = tfs_clock_resegment_now(), n = n0;

	for (int i = 0; i < 64; i++) {
		t[i] = tfs_clock_tsc();
		v[i] = tfs_clock_ns(TFS_CLOCK_MONO, t[i]);
		if (i % 8 == 7)
			n = tfs_clock_resegment_now();
	}
	assert_true(n >= n0 + 7);
	for (int i = 0; i < 64; i++) {
		assert_int_equal(tfs_clock_ns(TFS_CLOCK_MONO, t[i]), v[i]);
		assert_true(v[i] >= prev);
		prev = v[i];
	}
	/* still on CLOCK_MONOTONIC */
	uint64_t before = now_ns(CLOCK_MONOTONIC), mono = tfs_clock_ns(TFS_CLOCK_MONO, tfs_clock_tsc());

	assert_true(mono + 1000000 >= before && mono <= now_ns(CLOCK_MONOTONIC) + 1000000);
}

/* ---- error_log --------------------------------------------------------------------------- */

static void test_error_log_format(void **state)
{
	struct tfs_buf b = {0};

	/* an entry as the kernel printed it for a bad uprobe_events write */
	assert_int_equal(tfs_error_log_format(&b, 814097824512ull, "trace_uprobe",
					      "Failed to find the given file",
					      "p:foo/bar /nonexistent:0x10", 10),
			 0);
	assert_string_equal(b.data, "[  814.097824] trace_uprobe: error: Failed to find the given file\n"
				    "  Command: p:foo/bar /nonexistent:0x10\n"
				    "                     ^\n");
	tfs_buf_reset(&b);
	assert_int_equal(tfs_error_log_format(&b, 123456789012345678ull, "x", "m", "", 0), 0);
	assert_string_equal(b.data, "[123456789.012345] x: error: m\n  Command: \n           ^\n");
	tfs_buf_free(&b);
}

/* ---- trace_marker ------------------------------------------------------------------------ */

static void test_marker_text(void **state)
{
	char out[4200], big[5000];
	size_t len;

	assert_int_equal(tfs_marker_text("abc", 3, out, &len), 3);
	assert_int_equal(len, 4);
	assert_memory_equal(out, "abc\n", 4);
	assert_int_equal(tfs_marker_text("abc\n", 4, out, &len), 4);
	assert_int_equal(len, 4);
	assert_int_equal(tfs_marker_text("two\n\n", 5, out, &len), 5);
	assert_int_equal(len, 5);
	assert_int_equal(tfs_marker_text("", 0, out, &len), 0);
	assert_int_equal(len, 1);
	assert_int_equal(out[0], '\n');
	/* NULs are kept: the text prints up to the first one, as in the kernel */
	assert_int_equal(tfs_marker_text("e\0f", 3, out, &len), 3);
	assert_int_equal(len, 4);
	assert_memory_equal(out, "e\0f\n", 4);
	/* a long write is cut (not refused) and still ends with a newline */
	memset(big, 'a', sizeof(big));
	assert_int_equal(tfs_marker_text(big, sizeof(big), out, &len), tfs_marker_max());
	assert_int_equal(len, tfs_marker_max() + 1);
	assert_int_equal(out[len - 1], '\n');
	/* the limits: never above the kernel's, and one event fits a page */
	assert_true(tfs_marker_max() <= 4054);
	assert_true(sizeof(struct ut_ev_marker) + tfs_marker_max() + 2 <= UT_RB_PAGE_DATA);
	assert_true(tfs_marker_raw_max() <= 4064);
	assert_true(sizeof(struct ut_ev_raw) + tfs_marker_raw_max() - 4 <= UT_RB_PAGE_DATA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpumask_format),	 cmocka_unit_test(test_cpumask_parse),
		cmocka_unit_test(test_opt_parse),	 cmocka_unit_test(test_opt_parse_bool),
		cmocka_unit_test(test_opt_defaults),	 cmocka_unit_test(test_option_files),
		cmocka_unit_test(test_buffer_kb),	 cmocka_unit_test(test_cmdlines_rounded),
		cmocka_unit_test(test_clock_names),	 cmocka_unit_test(test_clock_convert),
		cmocka_unit_test(test_clock_segments),
		cmocka_unit_test(test_error_log_format), cmocka_unit_test(test_marker_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * test_filter.c - set_ftrace_filter, set_ftrace_notrace, set_graph_function and
 * set_graph_notrace (ftrace_filter.c) over a function table filled by hand
 * (available_filter_functions.c), and the selection memfd content (sel.c): the
 * kernel's globs, `!`, line numbers, `mod:`, append against truncate, the
 * EINVAL cases and what a read shows; the function probes (traceon, traceoff,
 * stacktrace, dump, cpudump: ftrace_probe.c) and their place in the memfd.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "functab.h"
#include "tfs.h"
#include "ut_sel.h"

#define EXE "/opt/app/prog"
#define LIB "/usr/lib/libfoo.so.1"

/* Offsets not in address order: the table sorts them.  Site 5 has no name. */
static const uint32_t exe_offs[] = {0x400, 0x100, 0x200, 0x300, 0x380, 0x600};
static const char *const exe_names[] = {"gamma_x", "main", "alpha", "alpha_two", "beta", NULL};
static const uint32_t lib_offs[] = {0x20, 0x10, 0x30};
static const char *const lib_names[] = {"foo_run", "foo_init", "alpha"};

static int setup(void **state)
{
	tfs_ft_reset();
	assert_int_equal(
	    tfs_ft_add_named(100, 0, EXE, true, 0x555500000000, 6, exe_offs, exe_names), 1);
	assert_int_equal(
	    tfs_ft_add_named(100, 1, LIB, false, 0x7f0000000000, 3, lib_offs, lib_names), 1);
	return 0;
}

static int teardown(void **state)
{
	tfs_ft_reset();
	return 0;
}

/* open (O_TRUNC or append), one write, close: the write's result */
static ssize_t wr(enum tfs_filter f, bool trunc, const char *text)
{
	void *p = tfs_ft_open_priv(f, trunc);
	ssize_t r;

	assert_non_null(p);
	r = tfs_ft_write(p, text, strlen(text));
	tfs_ft_close(p);
	return r;
}

static void expect_show(enum tfs_filter f, const char *want)
{
	struct tfs_buf b = {0};

	assert_int_equal(tfs_ft_show(f, &b), 0);
	assert_non_null(b.data);
	assert_string_equal(b.data, want);
	tfs_buf_free(&b);
}

static void expect_filter(const char *write, const char *want)
{
	assert_int_equal(wr(TFS_FILTER_TRACE, true, write), (ssize_t)strlen(write));
	expect_show(TFS_FILTER_TRACE, want);
}

static void test_glob_match(void **state)
{
	assert_true(tfs_glob_match("a*c", "abbbc"));
	assert_true(tfs_glob_match("a*c", "ac"));
	assert_false(tfs_glob_match("a*c", "acb"));
	assert_true(tfs_glob_match("a?c", "abc"));
	assert_false(tfs_glob_match("a?c", "ac"));
	assert_true(tfs_glob_match("[a-c]x", "bx"));
	assert_false(tfs_glob_match("[!a-c]x", "bx"));
	assert_true(tfs_glob_match("[!a-c]x", "dx"));
	assert_true(tfs_glob_match("[]]", "]"));
	assert_true(tfs_glob_match("a\\*", "a*"));
	assert_false(tfs_glob_match("a\\*", "ab"));
	assert_true(tfs_glob_match("[abc", "[abc")); /* unclosed: literal */
	assert_true(tfs_glob_match("*", ""));
}

static void test_available(void **state)
{
	struct tfs_buf b = {0};
	struct tfs_open o = {.inst = &tfs_top, .content = {0}};

	assert_int_equal(tfs_available_filter_functions_ops.show(&o), 0);
	assert_string_equal(o.content.data, "main\nalpha\nalpha_two\nbeta\ngamma_x\n"
					    "foo_init [libfoo.so.1]\nfoo_run [libfoo.so.1]\n"
					    "alpha [libfoo.so.1]\n");
	tfs_buf_free(&o.content);
	/* gone: no longer listed, the filters keep its functions */
	expect_filter("alpha", "alpha\nalpha [libfoo.so.1]\n");
	assert_true(tfs_ft_proc_gone(100));
	assert_int_equal(tfs_available_filter_functions_ops.show(&o), 0);
	assert_int_equal(o.content.len, 0);
	tfs_buf_free(&o.content);
	expect_show(TFS_FILTER_TRACE, "alpha\nalpha [libfoo.so.1]\n");
	tfs_buf_free(&b);
}

static void test_empty_reads(void **state)
{
	expect_show(TFS_FILTER_TRACE, "#### all functions enabled ####\n");
	expect_show(TFS_FILTER_NOTRACE, "#### no functions disabled ####\n");
	expect_show(TFS_FILTER_GRAPH, "#### all functions enabled ####\n");
	expect_show(TFS_FILTER_GRAPH_NOTRACE, "#### no functions disabled ####\n");
}

static void test_globs(void **state)
{
	expect_filter("alpha\n", "alpha\nalpha [libfoo.so.1]\n");
	expect_filter("alpha*", "alpha\nalpha_two\nalpha [libfoo.so.1]\n");
	expect_filter("*_two", "alpha_two\n");
	expect_filter("*ph*", "alpha\nalpha_two\nalpha [libfoo.so.1]\n");
	expect_filter("a?pha", "alpha\nalpha [libfoo.so.1]\n");
	expect_filter("[bg]*", "beta\ngamma_x\n");
	expect_filter("al*two", "alpha_two\n");
	expect_filter("*", "main\nalpha\nalpha_two\nbeta\ngamma_x\nfoo_init [libfoo.so.1]\n"
			   "foo_run [libfoo.so.1]\nalpha [libfoo.so.1]\n");
	expect_filter("\n", "#### all functions enabled ####\n");
}

static void test_append_truncate_remove(void **state)
{
	expect_filter("beta", "beta\n");
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "main\n"), 5);
	expect_show(TFS_FILTER_TRACE, "main\nbeta\n");
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "alpha*"), 6);
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "!alpha_two !main"), 16);
	expect_show(TFS_FILTER_TRACE, "alpha\nbeta\nalpha [libfoo.so.1]\n");
	/* `!` of a function not in the filter still matches: no error */
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "!gamma_x"), 8);
	/* several tokens, white space of every kind */
	expect_filter(" main\tbeta \n gamma_x ", "main\nbeta\ngamma_x\n");
}

static void test_index(void **state)
{
	/* a bad last token without white space after it fails at close, silently */
	assert_int_equal(wr(TFS_FILTER_TRACE, true, "beta"), 4);
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "0"), 1);
	expect_show(TFS_FILTER_TRACE, "beta\n");
	expect_filter("2", "alpha\n");
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "6 0x3"), 5);
	expect_show(TFS_FILTER_TRACE, "alpha\nalpha_two\nfoo_init [libfoo.so.1]\n");
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "!2"), 2);
	expect_show(TFS_FILTER_TRACE, "alpha_two\nfoo_init [libfoo.so.1]\n");
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "0\n"), -EINVAL);
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "9\n"), -EINVAL);
	expect_show(TFS_FILTER_TRACE, "alpha_two\nfoo_init [libfoo.so.1]\n");
}

static void test_einval(void **state)
{
	expect_filter("beta", "beta\n");
	/* append: the filter stays as it was */
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "nosuch\n"), -EINVAL);
	expect_show(TFS_FILTER_TRACE, "beta\n");
	/* a failed write changes nothing: not even the tokens before the bad one */
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "main nosuch gamma_x\n"), -EINVAL);
	expect_show(TFS_FILTER_TRACE, "beta\n");
	/* truncate: the filter stays as it was too (the kernel would empty it) */
	assert_int_equal(wr(TFS_FILTER_TRACE, true, "nosuch\n"), -EINVAL);
	expect_show(TFS_FILTER_TRACE, "beta\n");
	/* a truncating open with nothing written clears, as `: > set_ftrace_filter` does */
	tfs_ft_close(tfs_ft_open_priv(TFS_FILTER_TRACE, true));
	expect_show(TFS_FILTER_TRACE, "#### all functions enabled ####\n");
	/* an unknown command */
	assert_int_equal(wr(TFS_FILTER_TRACE, true, "beta:bogus\n"), -EINVAL);
	assert_int_equal(wr(TFS_FILTER_TRACE, true, "beta:bogus:3\n"), -EINVAL);
}

static void test_tokens_over_writes(void **state)
{
	void *p = tfs_ft_open_priv(TFS_FILTER_TRACE, true);

	assert_int_equal(tfs_ft_write(p, "al", 2), 2);
	assert_int_equal(tfs_ft_write(p, "pha_two be", 10), 10);
	/* the last token, not ended by white space, is taken at close */
	assert_int_equal(tfs_ft_write(p, "ta", 2), 2);
	tfs_ft_close(p);
	expect_show(TFS_FILTER_TRACE, "alpha_two\nbeta\n");
	/* at close a bad last token is not reported and changes nothing else */
	p = tfs_ft_open_priv(TFS_FILTER_TRACE, false);
	assert_int_equal(tfs_ft_write(p, "main nosuch", 11), 11);
	tfs_ft_close(p);
	expect_show(TFS_FILTER_TRACE, "main\nalpha_two\nbeta\n");
}

static void test_mod(void **state)
{
	static const uint32_t bar_offs[] = {0x10, 0x20};
	static const char *const bar_names[] = {"bar_a", "foo_bar"};

	expect_filter("*:mod:libfoo.so.1",
		      "foo_init [libfoo.so.1]\nfoo_run [libfoo.so.1]\nalpha [libfoo.so.1]\n");
	expect_filter("alpha:mod:prog", "alpha\n");
	expect_filter("*:mod:!libfoo.so.1", "main\nalpha\nalpha_two\nbeta\ngamma_x\n");
	expect_filter("foo_r*:mod:libfoo*", "foo_run [libfoo.so.1]\n");
	/* blank module: every shared object's functions; with `!` the executables' */
	expect_filter("alpha:mod:", "alpha [libfoo.so.1]\n");
	expect_filter("alpha:mod:!", "alpha\n");
	/* a known object where nothing matches: EINVAL */
	assert_int_equal(wr(TFS_FILTER_TRACE, true, "nosuch:mod:prog\n"), -EINVAL);
	/* an object not known yet: cached, printed, applied when it registers */
	expect_filter("foo*:mod:libbar.so",
		      "#### all functions enabled ####\nfoo*:mod:libbar.so\n");
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "beta"), 4);
	expect_show(TFS_FILTER_TRACE, "beta\nfoo*:mod:libbar.so\n");
	assert_int_equal(tfs_ft_add_named(100, 2, "/lib/libbar.so", false, 0x7e0000000000, 2,
					  bar_offs, bar_names),
			 1);
	expect_show(TFS_FILTER_TRACE, "beta\nfoo_bar [libbar.so]\n");
	/* `!` removes a cached command; without one to remove: EINVAL */
	expect_filter("*:mod:libbaz.so", "#### all functions enabled ####\n*:mod:libbaz.so\n");
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "!*:mod:libbaz.so"), 16);
	expect_show(TFS_FILTER_TRACE, "#### all functions enabled ####\n");
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "!*:mod:libbaz.so\n"), -EINVAL);
}

/* Patterns outlive the objects they were written against: a program (or a rebuild
 * of one) that appears later gets them, in the order they were written. */
static void test_kept_patterns(void **state)
{
	static const uint32_t other_offs[] = {0x10, 0x20, 0x30, 0x40, 0x50, 0x60};
	static const char *const other_names[] = {"alpha_new", "alpha_two", "beta",
						  "gamma_y",   "zeta",	    "main"};
	static const uint32_t rebuilt_offs[] = {0x900};
	static const char *const rebuilt_names[] = {"alpha_three"};
	static const uint32_t late_offs[] = {0x10};
	static const char *const late_names[] = {"alpha_late"};
	struct tfs_buf b = {0};

	assert_int_equal(wr(TFS_FILTER_TRACE, true, "alpha* 1"), 8);
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "!alpha_two"), 10);
	assert_int_equal(wr(TFS_FILTER_NOTRACE, true, "gamma*"), 6);
	assert_int_equal(wr(TFS_FILTER_GRAPH, true, "beta"), 4);
	assert_int_equal(wr(TFS_FILTER_GRAPH_NOTRACE, true, "zeta\n"), -EINVAL); /* typo check */
	expect_show(TFS_FILTER_TRACE, "main\nalpha\nalpha [libfoo.so.1]\n");
	/* line 1 (main) was a line, not a pattern: the new program's main is not taken */
	assert_int_equal(tfs_ft_add_named(200, 0, "/opt/app/other", true, 0x565600000000, 6,
					  other_offs, other_names),
			 1);
	expect_show(TFS_FILTER_TRACE, "main\nalpha\nalpha [libfoo.so.1]\nalpha_new\n");
	expect_show(TFS_FILTER_NOTRACE, "gamma_x\ngamma_y\n");
	expect_show(TFS_FILTER_GRAPH, "beta\nbeta\n");
	/* the same program rebuilt: its new functions too */
	assert_int_equal(
	    tfs_ft_add_named(300, 0, EXE, true, 0x555500000000, 1, rebuilt_offs, rebuilt_names), 1);
	expect_show(TFS_FILTER_TRACE, "main\nalpha\nalpha_three\nalpha [libfoo.so.1]\nalpha_new\n");
	/* the flags a new process gets: traced only where the patterns say */
	assert_int_equal(tfs_sel_build_locked(&b), 0);
	assert_int_equal(((struct ut_sel_hdr *)b.data)->nr_procs, 3);
	tfs_buf_free(&b);
	/* `>` starts a new list: the old patterns no longer apply */
	assert_int_equal(wr(TFS_FILTER_TRACE, true, "zeta"), 4);
	assert_int_equal(tfs_ft_add_named(400, 0, "/opt/app/late", true, 0x565700000000, 1,
					  late_offs, late_names),
			 1);
	expect_show(TFS_FILTER_TRACE, "zeta\n");
	/* a file open while an object arrives: the new functions keep what its list says */
	void *p = tfs_ft_open_priv(TFS_FILTER_TRACE, false);

	assert_int_equal(tfs_ft_write(p, "beta ", 5), 5);
	assert_true(tfs_ft_proc_gone(400));
	assert_int_equal(tfs_ft_add_named(500, 0, "/opt/app/late2", true, 0x565800000000, 1,
					  late_offs, (const char *const[]){"zeta"}),
			 1);
	assert_int_equal(tfs_ft_write(p, "main ", 5), 5);
	tfs_ft_close(p);
	expect_show(TFS_FILTER_TRACE, "main\nbeta\nbeta\nzeta\nmain\nzeta\n");
	/* a filter emptied by removals is empty: later functions do not refill it */
	assert_int_equal(wr(TFS_FILTER_TRACE, true, "alpha_t*"), 8);
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "!alpha_two !alpha_three"), 23);
	expect_show(TFS_FILTER_TRACE, "#### all functions enabled ####\n");
	assert_int_equal(tfs_ft_add_named(600, 0, "/opt/app/late3", true, 0x565900000000, 1,
					  late_offs, (const char *const[]){"alpha_tail"}),
			 1);
	expect_show(TFS_FILTER_TRACE, "#### all functions enabled ####\n");
}

/* mod: takes the soname, the file name and the name without versions. */
static void test_mod_names(void **state)
{
	static const uint32_t z_offs[] = {0x10, 0x20};
	static const char *const z_names[] = {"deflate", "inflate"};

	assert_int_equal(tfs_ft_add_named(100, 2, "/usr/lib/x86_64-linux-gnu/libz.so.1.2.13", false,
					  0x7d0000000000, 2, z_offs, z_names),
			 1);
	expect_filter("*:mod:libz.so.1", "deflate [libz.so.1.2.13]\ninflate [libz.so.1.2.13]\n");
	expect_filter("*:mod:libz.so.1.2.13",
		      "deflate [libz.so.1.2.13]\ninflate [libz.so.1.2.13]\n");
	expect_filter("inf*:mod:libz", "inflate [libz.so.1.2.13]\n");
	expect_filter("*:mod:libz.so", "deflate [libz.so.1.2.13]\ninflate [libz.so.1.2.13]\n");
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "!*:mod:libz.so.1\n"), 17);
	expect_show(TFS_FILTER_TRACE, "#### all functions enabled ####\n");
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "!inflate:mod:libz\n"), 18);
	/* a known object where nothing matches, by any of its names: EINVAL */
	assert_int_equal(wr(TFS_FILTER_TRACE, true, "nosuch:mod:libz.so.1\n"), -EINVAL);
	/* libfoo.so.1's stem is libfoo, but not libfo */
	expect_filter("*:mod:libfoo", "foo_init [libfoo.so.1]\nfoo_run [libfoo.so.1]\n"
				      "alpha [libfoo.so.1]\n");
	expect_filter("*:mod:libfo", "#### all functions enabled ####\n*:mod:libfo\n");
}

/* C++: demangled names with and without parameters, `::` is part of a name. */
static void test_cxx_names(void **state)
{
	static const uint32_t offs[] = {0x10, 0x20, 0x30, 0x40};
	static const char *const names[] = {"_ZL4deepRKN4Json5ValueEi.constprop.0.isra.0",
					    "_ZN4Json6Reader5parseERSsRNS_5ValueEb", "_Z3fooIiEvT_",
					    "_ZN1AclEi"};
	struct tfs_open o = {.inst = &tfs_top, .content = {0}};

	tfs_ft_reset();
	assert_int_equal(
	    tfs_ft_add_named(100, 0, "/opt/app/cxx", true, 0x555500000000, 4, offs, names), 1);
	assert_int_equal(tfs_available_filter_functions_ops.show(&o), 0);
	assert_string_equal(o.content.data,
			    "deep(Json::Value const&, int) [clone .constprop.0] [clone .isra.0]\n"
			    "Json::Reader::parse(std::string&, Json::Value&, bool)\n"
			    "void foo<int>(int)\n"
			    "A::operator()(int)\n");
	tfs_buf_free(&o.content);
	expect_filter("deep*", "deep(Json::Value const&, int) [clone .constprop.0] "
			       "[clone .isra.0]\n");
	expect_filter("deep", "deep(Json::Value const&, int) [clone .constprop.0] "
			      "[clone .isra.0]\n");
	expect_filter("Json::Reader::*", "Json::Reader::parse(std::string&, Json::Value&, bool)\n");
	expect_filter("Json::Reader::parse:mod:cxx",
		      "Json::Reader::parse(std::string&, Json::Value&, bool)\n");
	expect_filter("foo<int>", "void foo<int>(int)\n");
	expect_filter("A::operator()", "A::operator()(int)\n");
	/* mangled names keep working */
	expect_filter("_Z3fooIiEvT_", "void foo<int>(int)\n");
	expect_filter("_ZN4Json*", "Json::Reader::parse(std::string&, Json::Value&, bool)\n");
	assert_int_equal(wr(TFS_FILTER_GRAPH, true, "Json::Reader::parse"), 19);
	expect_show(TFS_FILTER_GRAPH, "Json::Reader::parse(std::string&, Json::Value&, bool)\n");
	/* a command still follows a single colon */
	assert_int_equal(wr(TFS_FILTER_TRACE, true, "Json::Reader::parse:bogus\n"), -EINVAL);
}

static void test_notrace_and_graph(void **state)
{
	assert_int_equal(wr(TFS_FILTER_NOTRACE, true, "beta alpha"), 10);
	expect_show(TFS_FILTER_NOTRACE, "alpha\nbeta\nalpha [libfoo.so.1]\n");
	assert_int_equal(wr(TFS_FILTER_GRAPH, true, "alpha"), 5);
	/* the graph files print bare names (the kernel's %ps) */
	expect_show(TFS_FILTER_GRAPH, "alpha\nalpha\n");
	/* graph: `!` must remove something, no commands; line numbers as in the others */
	assert_int_equal(wr(TFS_FILTER_GRAPH, false, "!beta\n"), -EINVAL);
	assert_int_equal(wr(TFS_FILTER_GRAPH, false, "!alpha"), 6);
	expect_show(TFS_FILTER_GRAPH, "#### all functions enabled ####\n");
	assert_int_equal(wr(TFS_FILTER_GRAPH, false, "2\n"), 2);
	expect_show(TFS_FILTER_GRAPH, "alpha\n");
	assert_int_equal(wr(TFS_FILTER_GRAPH, false, "!2\n"), 3);
	expect_show(TFS_FILTER_GRAPH, "#### all functions enabled ####\n");
	assert_int_equal(wr(TFS_FILTER_GRAPH, false, "!2\n"), -EINVAL);
	assert_int_equal(wr(TFS_FILTER_GRAPH, false, "99\n"), -EINVAL);
	assert_int_equal(wr(TFS_FILTER_GRAPH, false, "main:traceon\n"), -EINVAL);
	/* mod: as in set_ftrace_filter: a program not run yet can be named */
	assert_int_equal(wr(TFS_FILTER_GRAPH, true, "main:mod:prog\n"), 14);
	expect_show(TFS_FILTER_GRAPH, "main\n");
	assert_int_equal(wr(TFS_FILTER_GRAPH, true, "c:mod:abc\n"), 10);
	expect_show(TFS_FILTER_GRAPH, "#### all functions enabled ####\nc:mod:abc\n");
	assert_true(tfs_ft_graph_select());
	assert_int_equal(wr(TFS_FILTER_GRAPH, true, ""), 0);
	assert_int_equal(wr(TFS_FILTER_GRAPH_NOTRACE, true, "gamma*"), 6);
	expect_show(TFS_FILTER_GRAPH_NOTRACE, "gamma_x\n");
	assert_true(tfs_ft_graph_select());
	assert_int_equal(wr(TFS_FILTER_GRAPH_NOTRACE, true, ""), 0);
	assert_false(tfs_ft_graph_select());
}

/* The flags of process 100's object obj, by site, from the built memfd content. */
static const uint8_t *sel_flags(const struct tfs_buf *b, uint32_t obj, uint32_t *nr)
{
	const struct ut_sel_hdr *h = (const void *)b->data;
	const struct ut_sel_proc *p = (const void *)(b->data + h->procs_off);

	assert_int_equal(h->magic, UT_SEL_MAGIC);
	assert_int_equal(h->nr_procs, 1);
	assert_int_equal(p->pid, 100);
	for (uint32_t i = 0; i < p->nr_objs; i++) {
		const struct ut_sel_obj *o = (const struct ut_sel_obj *)(b->data + p->objs_off) + i;

		if (o->obj == obj) {
			*nr = o->nr_sites;
			assert_true(o->flags_off + o->nr_sites <= h->size);
			return (const uint8_t *)b->data + o->flags_off;
		}
	}
	fail();
	return NULL;
}

static void test_sel_content(void **state)
{
	struct tfs_buf b = {0};
	const uint8_t *fl;
	uint32_t nr;

	assert_int_equal(tfs_sel_build_locked(&b), 0);
	assert_int_equal(((struct ut_sel_hdr *)b.data)->filtered, 0);
	fl = sel_flags(&b, 0, &nr);
	assert_int_equal(nr, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(fl[i], UT_SEL_TRACE); /* no filter: everything, unnamed too */

	assert_int_equal(wr(TFS_FILTER_TRACE, true, "alpha* gamma_x"), 14);
	assert_int_equal(wr(TFS_FILTER_NOTRACE, true, "alpha_two"), 9);
	assert_int_equal(wr(TFS_FILTER_GRAPH, true, "main"), 4);
	assert_int_equal(wr(TFS_FILTER_GRAPH_NOTRACE, true, "beta"), 4);
	assert_int_equal(tfs_sel_build_locked(&b), 0);
	assert_int_equal(((struct ut_sel_hdr *)b.data)->filtered, 1);
	assert_int_equal(((struct ut_sel_hdr *)b.data)->graph_funcs, 1);
	assert_int_equal(((struct ut_sel_hdr *)b.data)->graph_notrace, 1);
	fl = sel_flags(&b, 0, &nr);
	/* sites in the order sent: gamma_x main alpha alpha_two beta (unnamed) */
	assert_int_equal(fl[0], UT_SEL_TRACE);
	assert_int_equal(fl[1], UT_SEL_GRAPH_FUNC);
	assert_int_equal(fl[2], UT_SEL_TRACE);
	assert_int_equal(fl[3], 0); /* notrace wins */
	assert_int_equal(fl[4], UT_SEL_GRAPH_NOTRACE);
	assert_int_equal(fl[5], 0); /* unnamed: filtered out */
	fl = sel_flags(&b, 1, &nr);
	assert_int_equal(nr, 3);
	assert_int_equal(fl[0], 0);
	assert_int_equal(fl[1], 0);
	assert_int_equal(fl[2], UT_SEL_TRACE); /* libfoo's alpha */
	tfs_buf_free(&b);
}

/* A write of function probes to set_ftrace_filter (appended, with a newline so
 * that errors are reported): 0 or -errno. */
static int probe(const char *text)
{
	char buf[256];
	ssize_t r;

	snprintf(buf, sizeof(buf), "%s\n", text);
	r = wr(TFS_FILTER_TRACE, false, buf);
	return r == (ssize_t)strlen(buf) ? 0 : (int)r;
}

#define ALL "#### all functions enabled ####\n"

/*
 * Objects of processes gone are kept for matching up to a bound; past it those gone
 * first are forgotten (with their selections and probes), never while a filter file
 * is open for writing, and the functions that stay keep theirs under new ids.
 */
static void test_forget_dead_objects(void **state)
{
	static const uint32_t offs[] = {0x10, 0x20};
	static const char *const p1[] = {"old1_a", "alpha"}, *const p3[] = {"old3_a", "old3_b"};
	void *w;

	tfs_ft_reset();
	/* a program gone first, registered before the live one: the live ids move */
	assert_int_equal(tfs_ft_add_named(200, 0, "/opt/old/p1", true, 0x1000, 2, offs, p1), 1);
	assert_int_equal(
	    tfs_ft_add_named(100, 0, EXE, true, 0x555500000000, 6, exe_offs, exe_names), 1);
	assert_int_equal(
	    tfs_ft_add_named(100, 1, LIB, false, 0x7f0000000000, 3, lib_offs, lib_names), 1);
	assert_int_equal(tfs_ft_add_named(300, 0, "/opt/old/p3", true, 0x2000, 2, offs, p3), 1);
	expect_filter("alpha", "alpha\nalpha\nalpha [libfoo.so.1]\n");
	assert_int_equal(probe("foo_run:traceoff:2 beta:stacktrace"), 0);
	assert_true(tfs_ft_proc_gone(200));
	assert_true(tfs_ft_proc_gone(300));

	/* a writer holds the ids: nothing goes */
	w = tfs_ft_open_priv(TFS_FILTER_NOTRACE, false);
	assert_non_null(w);
	pthread_mutex_lock(&tfs_ft_lock);
	tfs_ft_trim_locked(2);
	assert_int_equal(tfs_ft.nr_funcs, 2 + 5 + 3 + 2);
	pthread_mutex_unlock(&tfs_ft_lock);
	tfs_ft_close(w);

	/* two dead functions may stay: p3's (gone last) stay, p1's go */
	pthread_mutex_lock(&tfs_ft_lock);
	tfs_ft_trim_locked(2);
	assert_int_equal(tfs_ft.nr_funcs, 5 + 3 + 2);
	assert_int_equal(tfs_ft.nr_objs, 3);
	pthread_mutex_unlock(&tfs_ft_lock);
	expect_show(TFS_FILTER_TRACE, "alpha\nalpha [libfoo.so.1]\n"
				      "beta:stacktrace:unlimited\nfoo_run [libfoo.so.1]:traceoff:count=2\n");
	assert_int_equal(wr(TFS_FILTER_NOTRACE, true, "old1_a\n"), -EINVAL);
	assert_int_equal(wr(TFS_FILTER_NOTRACE, true, "old3_b\n"), 7);
	expect_show(TFS_FILTER_NOTRACE, "old3_b\n");

	/* the program that went comes back: the kept patterns select its functions again */
	assert_int_equal(tfs_ft_add_named(201, 0, "/opt/old/p1", true, 0x1000, 2, offs, p1), 1);
	expect_show(TFS_FILTER_TRACE, "alpha\nalpha [libfoo.so.1]\nalpha\n"
				      "beta:stacktrace:unlimited\nfoo_run [libfoo.so.1]:traceoff:count=2\n");
}

/* Probe commands are patterns too: a program that comes later gets them. */
static void test_probe_kept(void **state)
{
	static const uint32_t offs[] = {0x10, 0x20, 0x30};
	static const char *const names[] = {"alpha_new", "alpha_two", "beta"};

	assert_int_equal(probe("alpha*:stacktrace:3 beta:traceoff !alpha_two:stacktrace:0"), 0);
	assert_int_equal(probe("2:traceon"), 0); /* a line number names one function only */
	expect_show(TFS_FILTER_TRACE, ALL "alpha:traceon:unlimited\n"
					  "beta:traceoff:unlimited\n"
					  "alpha:stacktrace:count=3\n"
					  "alpha [libfoo.so.1]:stacktrace:count=3\n");
	assert_int_equal(
	    tfs_ft_add_named(200, 0, "/opt/app/other", true, 0x565600000000, 3, offs, names), 1);
	expect_show(TFS_FILTER_TRACE, ALL "alpha:traceon:unlimited\n"
					  "beta:traceoff:unlimited\n"
					  "beta:traceoff:unlimited\n"
					  "alpha:stacktrace:count=3\n"
					  "alpha [libfoo.so.1]:stacktrace:count=3\n"
					  "alpha_new:stacktrace:count=3\n");
	/* removing the whole kind takes it from later functions as well */
	assert_int_equal(probe("!*:stacktrace:0"), 0);
	assert_int_equal(
	    tfs_ft_add_named(300, 0, "/opt/app/third", true, 0x565700000000, 3, offs, names), 1);
	expect_show(TFS_FILTER_TRACE, ALL "alpha:traceon:unlimited\n"
					  "beta:traceoff:unlimited\n"
					  "beta:traceoff:unlimited\n"
					  "beta:traceoff:unlimited\n");
	/* a kind whose every probe was removed is gone for later functions too */
	assert_int_equal(probe("gam*:cpudump"), 0);
	assert_int_equal(probe("!gamma_x:cpudump"), 0);
	assert_int_equal(tfs_ft_add_named(400, 0, "/opt/app/fourth", true, 0x565800000000, 1, offs,
					  (const char *const[]){"gamma_y"}),
			 1);
	expect_show(TFS_FILTER_TRACE, ALL "alpha:traceon:unlimited\n"
					  "beta:traceoff:unlimited\n"
					  "beta:traceoff:unlimited\n"
					  "beta:traceoff:unlimited\n");
}

static void test_probe_parse(void **state)
{
	assert_int_equal(probe("beta:traceoff"), 0);
	expect_show(TFS_FILTER_TRACE, ALL "beta:traceoff:unlimited\n");
	/* counted and not are two probes; the newest command is listed first */
	assert_int_equal(probe("beta:traceoff:5"), 0);
	expect_show(TFS_FILTER_TRACE, ALL "beta:traceoff:count=5\nbeta:traceoff:unlimited\n");
	/* a glob, in available order; line numbers (2: alpha); shared objects named */
#define OLDER                                                                                      \
	"alpha:traceon:unlimited\n"                                                                \
	"alpha:stacktrace:count=8\n"                                                               \
	"alpha_two:stacktrace:count=8\n"                                                           \
	"alpha [libfoo.so.1]:stacktrace:count=8\n"                                                 \
	"beta:traceoff:count=5\nbeta:traceoff:unlimited\n"
#define NEWER "gamma_x:traceon:count=3\nmain:cpudump:unlimited\nmain:dump:count=1\n"
	assert_int_equal(probe("alpha*:stacktrace:010 2:traceon"), 0);
	expect_show(TFS_FILTER_TRACE, ALL OLDER);
	/* dump counts 1 whatever it is given, cpudump never counts, trailing parts ignored */
	assert_int_equal(probe("main:dump:9 main:cpudump:4 gamma_x:traceon:3:7"), 0);
	expect_show(TFS_FILTER_TRACE, ALL NEWER OLDER);
	/* the filter is apart: > empties it, the probes stay */
	assert_int_equal(wr(TFS_FILTER_TRACE, true, "main"), 4);
	expect_show(TFS_FILTER_TRACE, "main\n" NEWER OLDER);
	assert_int_equal(wr(TFS_FILTER_TRACE, true, ""), 0);
	/* removal: the counted form by any count part, the plain one without */
	assert_int_equal(probe("!beta:traceoff"), 0);
	assert_int_equal(probe("!beta:traceoff:0 !alpha*:stacktrace: !*:dump !:cpudump"), 0);
	expect_show(TFS_FILTER_TRACE, ALL "gamma_x:traceon:count=3\nalpha:traceon:unlimited\n");
	/* an empty count is -1 */
	assert_int_equal(probe("beta:traceon:"), 0);
	expect_show(TFS_FILTER_TRACE,
		    ALL "beta:traceon:count=-1\ngamma_x:traceon:count=3\nalpha:traceon:unlimited\n");
}

static void test_probe_errors(void **state)
{
	const char *all = ALL "beta:traceoff:count=2\n";

	assert_int_equal(probe("beta:traceoff:2"), 0);
	assert_int_equal(probe("beta:traceoff:4"), -EINVAL); /* has it: nothing added */
	assert_int_equal(probe("nosuch:traceoff"), -EINVAL);
	assert_int_equal(probe("beta:traceoff:x1"), -EINVAL);
	assert_int_equal(probe("beta:traceoff:-1"), -EINVAL);
	assert_int_equal(probe("beta:traceoff:1x"), -EINVAL);
	assert_int_equal(probe("beta:traceoff:99999999999999999999"), -ERANGE);
	assert_int_equal(probe("beta:nosuchcmd"), -EINVAL);
	assert_int_equal(probe("beta:snapshot:x1"), -EINVAL); /* counted as traceoff */
	assert_int_equal(probe("beta:enable_event:sched:sched_switch"), -EINVAL);
	assert_int_equal(probe("!beta:traceon"), -ENODEV);  /* no such probe at all */
	assert_int_equal(probe("!main:traceoff:0"), -EINVAL); /* not on main */
	assert_int_equal(probe("!nosuch:traceoff:0"), -EINVAL);
	/* all or nothing: the write's good probes go too */
	assert_int_equal(probe("main:traceon nosuch:traceon"), -EINVAL);
	assert_int_equal(probe("main:traceon !beta:traceoff:0 beta:bogus"), -EINVAL);
	expect_show(TFS_FILTER_TRACE, all);
	/* the notrace file takes mod: but no probes */
	assert_int_equal(wr(TFS_FILTER_NOTRACE, false, "beta:traceoff\n"), -EINVAL);
	expect_show(TFS_FILTER_NOTRACE, "#### no functions disabled ####\n");
	expect_show(TFS_FILTER_TRACE, all);
}

/* Probes whose count changes: what the runtime does to the counter shows. */
static void test_probe_counts(void **state)
{
	int64_t *c;

	assert_int_equal(probe("beta:traceoff:3"), 0);
	pthread_mutex_lock(&tfs_ft_lock);
	assert_int_equal(tfs_ft.inst[0].probes.n, 1);
	c = tfs_probe_counter(tfs_ft.inst[0].probes.v[0].slot);
	pthread_mutex_unlock(&tfs_ft_lock);
	assert_non_null(c);
	assert_int_equal(*c, 3);
	*c = 0;
	expect_show(TFS_FILTER_TRACE, ALL "beta:traceoff:count=0\n");
	/* a used-up probe stays; added again, nothing changes */
	assert_int_equal(probe("beta:traceoff:9"), -EINVAL);
	expect_show(TFS_FILTER_TRACE, ALL "beta:traceoff:count=0\n");
	/* removed and made again: a fresh count */
	assert_int_equal(probe("!beta:traceoff:0"), 0);
	assert_int_equal(probe("beta:traceoff:9"), 0);
	expect_show(TFS_FILTER_TRACE, ALL "beta:traceoff:count=9\n");
}

/* Removing and making a counted probe again in one write, many times: counters come back. */
static void test_probe_slots_reused(void **state)
{
	assert_int_equal(probe("beta:traceoff:5"), 0);
	for (unsigned int i = 0; i < UT_PROBE_SLOTS + 100; i++)
		assert_int_equal(probe("!beta:traceoff:0 beta:traceoff:5"), 0);
	assert_int_equal(probe("main:traceon:1"), 0);
	expect_show(TFS_FILTER_TRACE, ALL "main:traceon:count=1\nbeta:traceoff:count=5\n");
}

/* The probes of process 100 in the memfd content. */
static const struct ut_sel_probe *sel_probes(const struct tfs_buf *b, uint32_t *nr)
{
	const struct ut_sel_hdr *h = (const void *)b->data;
	const struct ut_sel_proc *p = (const void *)(b->data + h->procs_off);

	*nr = p->nr_probes;
	assert_true(p->probes_off + p->nr_probes * sizeof(struct ut_sel_probe) <= h->size);
	return (const void *)(b->data + p->probes_off);
}

static void test_probe_sel(void **state)
{
	struct tfs_buf b = {0};
	const struct ut_sel_probe *pr;
	const uint8_t *fl;
	uint32_t nr;

	assert_int_equal(tfs_sel_build_locked(&b), 0);
	assert_int_equal(((struct ut_sel_hdr *)b.data)->probes, 0);
	sel_probes(&b, &nr);
	assert_int_equal(nr, 0);
	/* only main traced; probes on beta (two) and on both alphas */
	assert_int_equal(wr(TFS_FILTER_TRACE, true, "main"), 4);
	assert_int_equal(probe("beta:traceoff:2 beta:stacktrace alpha:dump"), 0);
	assert_int_equal(tfs_sel_build_locked(&b), 0);
	assert_int_equal(((struct ut_sel_hdr *)b.data)->probes, 1);
	fl = sel_flags(&b, 0, &nr);
	/* sites: gamma_x main alpha alpha_two beta (unnamed) */
	assert_int_equal(fl[1], UT_SEL_TRACE);
	assert_int_equal(fl[2], UT_SEL_PROBE); /* a probe, not traced */
	assert_int_equal(fl[3], 0);
	assert_int_equal(fl[4], UT_SEL_PROBE);
	fl = sel_flags(&b, 1, &nr);
	assert_int_equal(fl[2], UT_SEL_PROBE); /* libfoo's alpha */
	pr = sel_probes(&b, &nr);
	assert_int_equal(nr, 4);
	/* by object, site, command; counted ones have a slot */
	assert_int_equal(pr[0].obj, 0);
	assert_int_equal(pr[0].site, 2);
	assert_int_equal(pr[0].cmd, UT_PROBE_DUMP);
	assert_true(pr[0].slot < UT_PROBE_SLOTS);
	assert_int_equal(pr[1].site, 4);
	assert_int_equal(pr[1].cmd, UT_PROBE_TRACEOFF);
	assert_true(pr[1].slot < UT_PROBE_SLOTS);
	assert_int_equal(pr[2].site, 4);
	assert_int_equal(pr[2].cmd, UT_PROBE_STACKTRACE);
	assert_int_equal(pr[2].slot, UT_PROBE_UNLIMITED);
	assert_int_equal(pr[3].obj, 1);
	assert_int_equal(pr[3].site, 2);
	assert_int_equal(pr[3].cmd, UT_PROBE_DUMP);
	assert_int_not_equal(pr[3].slot, pr[0].slot); /* one counter per function */
	assert_int_equal(*tfs_probe_counter(pr[1].slot), 2);
	tfs_buf_free(&b);
}

/* An instance's text of filter f. */
static char *inst_show(struct tfs_instance *inst, enum tfs_filter f)
{
	static struct tfs_buf b;

	tfs_buf_reset(&b);
	assert_int_equal(tfs_ft_show_inst(inst, f, &b), 0);
	tfs_buf_append(&b, "", 1);
	return b.data;
}

static ssize_t inst_wr(struct tfs_instance *inst, enum tfs_filter f, bool trunc, const char *text)
{
	void *p = tfs_ft_open_priv_inst(inst, f, trunc);
	ssize_t r;

	assert_non_null(p);
	r = tfs_ft_write(p, text, strlen(text));
	tfs_ft_close(p);
	return r;
}

/*
 * set_ftrace_filter and set_ftrace_notrace of an instance: its own functions and
 * patterns (applied to functions that come later too), the top's untouched and
 * what processes are told (the selection) the top's alone; its own probe commands.
 */
static void test_instance_filters(void **state)
{
	struct tfs_instance a = {.slot = 7};
	unsigned int on_main, total;
	uint32_t main_id;
	static const uint32_t offs[] = {0x10};
	static const char *const names[] = {"alpha_late"};

	assert_int_equal(inst_wr(&a, TFS_FILTER_TRACE, true, "alpha*"), 6);
	assert_string_equal(inst_show(&a, TFS_FILTER_TRACE),
			    "alpha\nalpha_two\nalpha [libfoo.so.1]\n");
	assert_int_equal(inst_wr(&a, TFS_FILTER_NOTRACE, true, "beta"), 4);
	assert_string_equal(inst_show(&a, TFS_FILTER_NOTRACE), "beta\n");
	expect_show(TFS_FILTER_TRACE, "#### all functions enabled ####\n");
	expect_show(TFS_FILTER_NOTRACE, "#### no functions disabled ####\n");
	pthread_mutex_lock(&tfs_ft_lock);
	assert_false(tfs_ft_nonempty_locked(TFS_FILTER_TRACE));
	for (uint32_t id = 0; id < tfs_ft.nr_funcs; id++)
		assert_int_equal(tfs_ft.funcs[id].sel, 0);
	pthread_mutex_unlock(&tfs_ft_lock);

	/* the top's own filter does not touch the instance's */
	expect_filter("main", "main\n");
	assert_string_equal(inst_show(&a, TFS_FILTER_TRACE),
			    "alpha\nalpha_two\nalpha [libfoo.so.1]\n");

	/* a function that comes later: the instance's patterns select it */
	assert_int_equal(tfs_ft_add_named(200, 0, "/opt/late", true, 0x1000, 1, offs, names), 1);
	assert_string_equal(inst_show(&a, TFS_FILTER_TRACE),
			    "alpha\nalpha_two\nalpha [libfoo.so.1]\nalpha_late\n");
	expect_show(TFS_FILTER_TRACE, "main\n");

	/* a failed write changes nothing */
	assert_int_equal(inst_wr(&a, TFS_FILTER_TRACE, false, "main main:bogus\n"), -EINVAL);
	assert_string_equal(inst_show(&a, TFS_FILTER_TRACE),
			    "alpha\nalpha_two\nalpha [libfoo.so.1]\nalpha_late\n");
	/* probes: the instance's own, listed and removed there alone, each with its count */
	assert_int_equal(inst_wr(&a, TFS_FILTER_TRACE, false, "main:traceoff:2\n"), 16);
	assert_int_equal(wr(TFS_FILTER_TRACE, false, "main:traceoff:5 beta:stacktrace\n"), 32);
	assert_string_equal(inst_show(&a, TFS_FILTER_TRACE),
			    "alpha\nalpha_two\nalpha [libfoo.so.1]\nalpha_late\n"
			    "main:traceoff:count=2\n");
	expect_show(TFS_FILTER_TRACE, "main\nbeta:stacktrace:unlimited\nmain:traceoff:count=5\n");
	assert_int_equal(inst_wr(&a, TFS_FILTER_TRACE, false, "!beta:stacktrace\n"), -ENODEV);
	assert_int_equal(inst_wr(&a, TFS_FILTER_TRACE, false, "main:stacktrace\n"), 16);
	assert_int_equal(inst_wr(&a, TFS_FILTER_TRACE, false, "!main:stacktrace\n"), 17);
	expect_show(TFS_FILTER_TRACE, "main\nbeta:stacktrace:unlimited\nmain:traceoff:count=5\n");
	pthread_mutex_lock(&tfs_ft_lock);
	main_id = tfs_ft.inst[7].probes.v[0].func;
	on_main = tfs_probes_on_locked(main_id);
	total = tfs_probes_total_locked();
	pthread_mutex_unlock(&tfs_ft_lock);
	assert_int_equal(on_main, 2); /* the top's and a's */
	assert_int_equal(total, 3);
	/* `!` and mod: work as at the top */
	assert_int_equal(inst_wr(&a, TFS_FILTER_TRACE, false, "!alpha:mod:libfoo.so.1"), 22);
	assert_string_equal(inst_show(&a, TFS_FILTER_TRACE),
			    "alpha\nalpha_two\nalpha_late\nmain:traceoff:count=2\n");

	/* the instance goes: its filters and probes with it */
	tfs_ft_inst_clear(&a);
	assert_string_equal(inst_show(&a, TFS_FILTER_TRACE), "#### all functions enabled ####\n");
	assert_string_equal(inst_show(&a, TFS_FILTER_NOTRACE), "#### no functions disabled ####\n");
	expect_show(TFS_FILTER_TRACE, "main\nbeta:stacktrace:unlimited\nmain:traceoff:count=5\n");
	tfs_error_log_free(&a); /* as its removal does */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_glob_match),
	    cmocka_unit_test_setup_teardown(test_available, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_empty_reads, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_globs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_append_truncate_remove, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_index, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_einval, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tokens_over_writes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mod, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kept_patterns, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mod_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cxx_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_probe_kept, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_notrace_and_graph, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sel_content, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_probe_parse, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_probe_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_probe_counts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_probe_slots_reused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_probe_sel, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_forget_dead_objects, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_instance_filters, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * lsan.c - the sanitizers' hooks of every program linked with cmd/ (the CLI and the
 * unit tests, which read trace.dat files through libtracecmd too).
 *
 * Under AddressSanitizer (make test's second build): libtracecmd 3.1.6 leaks the
 * clock name it reads from a version 6 trace.dat (tracecmd_parse_trace_clock), a
 * few bytes per file that `utrace report` cannot free.  Unwinding at each malloc
 * in full lets LeakSanitizer see that frame through the uninstrumented library,
 * and the suppression names it alone (quietly: report's stderr stays its own).
 * The hooks are read by the sanitizers only.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tracecmd_parse_trace_clock\n";
}

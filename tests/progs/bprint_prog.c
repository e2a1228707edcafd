// SPDX-License-Identifier: MIT
/*
 * bprint_prog.c - trace_printk() and trace_puts() with many formats, for
 * tests/integration/94_bprint.sh.
 *
 *   bprint_prog formats     one trace_printk per format below (bprint records), a
 *                           trace_printk without arguments, trace_puts of a constant
 *                           (bputs) and of a variable string, a format that cannot be
 *                           packed (%n: a print record) and one that is not a constant
 *   bprint_prog fork        the same format from a parent and its child
 *
 * Every line the kernel would print is known in advance (the script holds them);
 * the pointers' lines print their addresses on stdout for the script to check.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utrace/utrace.h>

__attribute__((noinline)) void emit_formats(const char *var)
{
	static int n;
	signed char sc = -5;
	short sh = -1234;
	long long ll = -1234567890123ll;
	unsigned long long ull = 18446744073709551615ull;
	size_t z = 4096;
	ptrdiff_t t = -77;
	intmax_t j = -9;

	trace_printk("int %d %i %u %x %X %o\n", -42, 42, 3000000000u, 0xbeef, 0xbeef, 8);
	trace_printk("len hh=%hhd hhu=%hhu h=%hd hu=%hu\n", sc, (unsigned char)250, sh,
		     (unsigned short)65000);
	trace_printk("len l=%ld lu=%lu ll=%lld llu=%llu\n", -1L, 1UL << 40, ll, ull);
	trace_printk("len z=%zu zd=%zd t=%td j=%jd\n", z, (ssize_t)-3, t, j);
	trace_printk("flags [%5d] [%-5d] [%05d] [%+d] [% d] [%#x] [%#o] [%.3d]\n", 42, 42, 42, 42,
		     42, 255, 8, 7);
	trace_printk("star [%*d] [%-*d] [%.*d] [%*.*s]\n", 6, 1, 6, 2, 4, 3, 8, 3, "abcdef");
	trace_printk("kernel [%#x] [%.0d]\n", 0, 0);
	trace_printk("chars %c%c%c [%3c] [%-3c]\n", 'a', 'b', 'c', 'x', 'y');
	trace_printk("str [%s] [%10s] [%-10s] [%.2s] [%s]\n", "hello", "right", "left", "cut",
		     (char *)NULL);
	trace_printk("mixed %s=%d %c %s %llu\n", "key", 7, 'z', var, 99ull);
	trace_printk("percent 100%% of %d\n", 1);
	trace_printk("ptr %px %px\n", (void *)0x1234, (void *)NULL);
	trace_printk("sym %ps %pS\n", (void *)emit_formats, (void *)emit_formats);
	trace_printk("tab\tquote\" back\\slash %d\n", ++n);
	trace_printk("no args 100%%\n");
	trace_puts("puts constant\n");
	trace_puts(var);
}

__attribute__((noinline)) void emit_fallbacks(const char *fmt)
{
	int cnt = 0;

	trace_printk("count%n %d\n", &cnt, 5); /* %n: formatted here, a print record */
	trace_printk(fmt, 3);		       /* not a constant: a print record too */
}

int main(int argc, char **argv)
{
	char var[32];

	snprintf(var, sizeof(var), "variable %d\n", 7);
	if (argc > 1 && !strcmp(argv[1], "fork")) {
		pid_t pid = fork();

		trace_printk("from %s\n", pid ? "parent" : "child");
		if (pid) {
			waitpid(pid, NULL, 0);
			trace_printk("from %s\n", "parent again");
		}
		return 0;
	}
	emit_formats(var);
	emit_fallbacks(argc > 5 ? "x" : "dynamic %d\n");
	printf("emit_formats %p\n", (void *)emit_formats);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * utrace/utrace.h - what a traced program may call, as the kernel offers it:
 *
 *   trace_printk(fmt, ...)  write a formatted line into the trace (shown as
 *                           "func: text", func being the function that calls
 *                           trace_printk: the event keeps the address of the
 *                           call site itself, as the kernel's _THIS_IP_, so a
 *                           call in tail position is not credited to the caller)
 *   trace_puts(str)         the same for a constant string
 *   tracing_on()            tracing_off()  tracing_is_on()
 *                           the global switch (the tracing_on file): tracing_off()
 *                           stops this process at once and every other one as soon
 *                           as utracefs has seen it
 *
 * As the kernel's: a trace_printk() with a constant format and arguments records
 * the format's address and the arguments in binary (a bprint event, formatted
 * only when the trace is read; the format is listed in printk_formats), one
 * without arguments is a trace_puts() of its format (its text as it is, "%%" and
 * all), and trace_puts() of a constant string records its address (bputs).  A
 * format that is not a constant, or has a conversion the kernel's printf does not
 * know (%n, %f, ...), is formatted at once into a print event.
 *
 * The program does not have to be linked with -lutrace: the entry points are weak,
 * so it runs unchanged without the runtime (the calls do nothing and
 * tracing_is_on() is 0), picks them up when libutrace.so is preloaded, and the
 * calls are safe and cheap when no utracefs runs or tracing is off.
 */
#ifndef UTRACE_UTRACE_H
#define UTRACE_UTRACE_H

#ifdef __cplusplus
extern "C" {
#endif

int utrace_printk_at(unsigned long ip, const char *fmt, ...)
    __attribute__((weak, format(printf, 2, 3)));
int utrace_puts_at(unsigned long ip, const char *str) __attribute__((weak));
/* The same for a constant format or string: fmt and str must stay where they are. */
int utrace_bprintk_at(unsigned long ip, const char *fmt, ...)
    __attribute__((weak, format(printf, 2, 3)));
int utrace_bputs_at(unsigned long ip, const char *str) __attribute__((weak));
/* The same, credited to the caller's return address (programs built before _at). */
int utrace_printk(const char *fmt, ...) __attribute__((weak, format(printf, 1, 2)));
int utrace_puts(const char *str) __attribute__((weak));
void utrace_tracing_on(void) __attribute__((weak));
void utrace_tracing_off(void) __attribute__((weak));
int utrace_tracing_is_on(void) __attribute__((weak));

/* The address of the code that uses it (the kernel's _THIS_IP_). */
#if defined(__x86_64__)
#define UTRACE_THIS_IP                                                                             \
	__extension__({                                                                            \
		unsigned long __ut_ip;                                                             \
		__asm__ volatile("leaq 0(%%rip), %0" : "=r"(__ut_ip));                             \
		__ut_ip;                                                                           \
	})
#else
#define UTRACE_THIS_IP                                                                             \
	__extension__({                                                                            \
		__label__ __ut_here;                                                               \
	__ut_here:                                                                                 \
		(unsigned long)&&__ut_here;                                                        \
	})
#endif

/*
 * A runtime older than the bprint entry points has only the _at ones: those are
 * used then, and for what is not a constant.  No arguments: trace_puts, as the
 * kernel's macro decides by the text of the arguments.
 */
#define trace_printk(fmt, ...)                                                                     \
	(sizeof(#__VA_ARGS__) > 1 ? __utrace_printk(fmt, ##__VA_ARGS__) : trace_puts(fmt))
#define __utrace_printk(fmt, ...)                                                                  \
	(__builtin_constant_p(fmt) && utrace_bprintk_at                                            \
	     ? utrace_bprintk_at(UTRACE_THIS_IP, fmt, ##__VA_ARGS__)                               \
	 : utrace_printk_at ? utrace_printk_at(UTRACE_THIS_IP, fmt, ##__VA_ARGS__)                 \
			    : 0)
#define trace_puts(str)                                                                            \
	(__builtin_constant_p(str) && utrace_bputs_at ? utrace_bputs_at(UTRACE_THIS_IP, str)       \
	 : utrace_puts_at			       ? utrace_puts_at(UTRACE_THIS_IP, str)                   \
						       : 0)

static inline void tracing_on(void)
{
	if (utrace_tracing_on)
		utrace_tracing_on();
}

static inline void tracing_off(void)
{
	if (utrace_tracing_off)
		utrace_tracing_off();
}

static inline int tracing_is_on(void)
{
	return utrace_tracing_is_on ? utrace_tracing_is_on() : 0;
}

#ifdef __cplusplus
}
#endif

#endif

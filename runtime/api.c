// SPDX-License-Identifier: MIT
/*
 * api.c - what traced programs call (include/utrace/utrace.h) and the C slow
 * paths of the trampoline (a thread's first event, func_stack_trace).
 *
 * All of it preserves errno and takes the per-thread recursion guard, so that a
 * traced function called from inside (a program's own malloc, say) or a signal
 * handler that interrupts it cannot recurse into it.
 */
#include <errno.h>
#include <execinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"
#include "ut_printf.h"
#include "ut_ring_write.h"
#include "ut_wire.h"

#define PRINTK_LEVELS 4 /* nesting: thread, signal handler, handler in handler, ... */
#define PRINTK_EV_MAX (sizeof(struct ut_ev_print) + UT_PRINT_MAX + 8)
#define PRINTK_MAX 1024u /* the kernel's TRACE_BUF_SIZE: longer text is cut */
#define PUTS_MAX (UT_RB_PAGE_DATA - sizeof(struct ut_ev_print) - 1) /* one event fits a page */

static __thread char printk_bufs[PRINTK_LEVELS][PRINTK_EV_MAX] __attribute__((aligned(8)));
_Static_assert(sizeof(struct ut_ev_bprint) + UT_BPRINT_MAX <= PRINTK_EV_MAX, "bprint fits");

void ut_rt_thread_register(void)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);

	ut_rseq_thread_init(); /* NULL: its events are counted in ut_rt_lost */
	ut_thr.sigblocked = ut_sigblocked_now();
	ut_evflags_update();
	ut_send_task(tid);
	ut_thr.tid = tid;
}

uint32_t ut_rt_thread_first(void)
{
	int saved = errno;

	if (ut_thr.guard || ut_notrace_now())
		return ut_thr.tid;
	ut_thr.guard = 1;
	if (!ut_thr.tid) {
		ut_notrace_enter();
		ut_rt_thread_register();
		ut_notrace_leave();
	}
	ut_thr.guard = 0;
	errno = saved;
	return ut_thr.tid;
}

/*
 * A thread without an rseq area writes with the ring's lock when utracefs says the
 * kernel has no rseq at all (locked mode, ut_ctl.h); otherwise, or when the lock
 * cannot be had (-EDEADLK: a handler interrupted this thread's own locked write;
 * -EBUSY: a live holder never let go), the event is counted in ut_rt_lost.
 */
void ut_rt_write_ev(struct ut_ctl *ctl, void *area, struct ut_ev *ev)
{
	int err = ut_rb_write(area, ut_rt_nr_cpus, ev);

	if (err == -ENOSYS && ctl->write_mode == UT_CTL_WRITE_LOCKED) {
		int saved = errno; /* its system calls (a contended lock) */

		err = ut_rb_write_locked(area, ut_rt_nr_cpus, ev);
		errno = saved;
	}
	if (err == -ENOSYS || err == -EDEADLK || err == -EBUSY)
		__atomic_fetch_add(&ut_rt_lost, 1, __ATOMIC_RELAXED);
}

/*
 * tramp.S, a thread without rseq in locked mode: the function event (frame[0] =
 * site + 5, frame[1] = parent), then its stack trace if func_stack_trace is on.
 */
void ut_rt_func_locked(uintptr_t *frame, uintptr_t fp, struct ut_ctl *ctl)
{
	struct ut_ev_func ev;
	int saved = errno;

	if (!ctl)
		return;
	if (ut_thr.guard) { /* inside one of our slow paths (a handler interrupted it) */
		__atomic_fetch_add(&ut_rt_lost, 1, __ATOMIC_RELAXED);
		return;
	}
	ut_thr.guard = 1;
	ev = (struct ut_ev_func){.h = {.len = sizeof(ev),
				       .type = UT_EV_FUNCTION,
				       .flags = ut_thr.evflags,
				       .tid = ut_thr.tid},
				 .ip = frame[0],
				 .parent_ip = frame[1]};
	ut_rt_write_ev(ctl, ctl, &ev.h);
	ut_thr.guard = 0;
	errno = saved;
	if (ctl->opts & UT_CTL_OPT_FUNC_STACK_TRACE)
		ut_rt_stack_event(frame, fp, ctl);
}

/*
 * The stack from the unwind tables (backtrace(): exact with or without frame
 * pointers), starting at the traced function (frame[0] = site + 5); 0 if it could
 * not get there.
 */
static int stack_unwind(uint64_t *ips, uintptr_t *frame)
{
	void *bt[UT_STACK_MAX + 8];
	int n, i, nr = 0;

	ut_notrace_enter(); /* the unwinder's own calls (a program's malloc, say) */
	n = backtrace(bt, UT_STACK_MAX + 8);
	ut_notrace_leave();
	for (i = 0; i < n && (uintptr_t)bt[i] != frame[0]; i++)
		;
	for (; i < n && nr < (int)UT_STACK_MAX; i++)
		ips[nr++] = (uintptr_t)bt[i];
	return nr;
}

/*
 * func_stack_trace: the caller chain of the traced function, innermost first,
 * starting with the traced function itself (frame[0] = site + 5), as return
 * addresses.  Inside a signal handler libgcc's unwinder may be what the handler
 * interrupted (a C++ exception in flight): there the frame-pointer chain from fp
 * (rbp at the function's entry) is walked with reads that cannot fault
 * (stackwalk.c), and a chain that ends early gives a shorter trace.
 */
int ut_rt_stack_ips(uint64_t *ips, uintptr_t *frame, uintptr_t fp)
{
	int nr = 0;

	if (!ut_thr.sigdepth)
		nr = stack_unwind(ips, frame);
	if (nr == 0) { /* in a handler, or could not unwind: the function and its caller */
		ips[0] = frame[0];
		ips[1] = ut_graph_real_ret((uintptr_t)&frame[1], frame[1]);
		nr = 2;
		if (ut_thr.sigdepth)
			nr += ut_stack_walk_fp(ips + 2, (int)UT_STACK_MAX - 2, fp,
					       (uintptr_t)&frame[1]);
	}
	return nr;
}

void ut_rt_stack_event(uintptr_t *frame, uintptr_t fp, struct ut_ctl *ctl)
{
	struct {
		struct ut_ev_stack s;
		uint64_t ips[UT_STACK_MAX];
	} ev;
	int saved = errno, nr;

	if (ut_thr.guard || !ctl)
		return;
	ut_thr.guard = 1;
	nr = ut_rt_stack_ips(ev.ips, frame, fp);
	ev.s.nr = (uint64_t)nr;
	ev.s.h = (struct ut_ev){.len = (uint16_t)(sizeof(ev.s) + ev.s.nr * 8),
				.type = UT_EV_KERNEL_STACK,
				.flags = ut_thr.evflags,
				.tid = ut_thr.tid};
	ut_rt_write_ev(ctl, ctl, &ev.s.h);
	ut_thr.guard = 0;
	errno = saved;
}

/*
 * Where trace_printk() and trace_puts() write: the instance holding
 * trace_printk_dest (the top's page says which), when it records and the top's
 * trace_printk option lets them.
 */
static struct ut_ctl *printk_ctl(void)
{
	struct ut_ctl *top = ut_rt_ctl, *ctl;

	if (!top || ut_rt_off || !top->trace_printk)
		return NULL;
	ctl = ut_rt_slot_area(top, __atomic_load_n(&top->printk_slot, __ATOMIC_RELAXED));
	if (!ctl || !ctl->tracing_on)
		return NULL;
	return ctl;
}

/* Write a print event with text (len bytes, no NUL needed); returns len or 0. */
static int write_print(struct ut_ctl *ctl, uintptr_t ip, struct ut_ev_print *ev, size_t len)
{
	if (!ut_thr.tid && !ut_rt_thread_first())
		return 0;
	ev->buf[len] = 0;
	ev->h = (struct ut_ev){.len = (uint16_t)((sizeof(*ev) + len + 1 + 7) & ~7ul),
			       .type = UT_EV_PRINT,
			       .flags = ut_thr.evflags,
			       .tid = ut_thr.tid};
	ev->ip = ip;
	ut_rt_write_ev(ctl, ctl, &ev->h);
	return (int)len;
}

/* trace_printk's work: ip is the address the event names (the call site). */
static int vprintk_at(uintptr_t ip, const char *fmt, va_list ap)
{
	struct ut_ctl *ctl = printk_ctl();
	int saved = errno, n, ret = 0;
	uint32_t depth = ut_thr.printk_depth;

	if (!ctl || depth >= PRINTK_LEVELS)
		return 0;
	ut_thr.printk_depth = depth + 1;
	struct ut_ev_print *ev = (struct ut_ev_print *)printk_bufs[depth];

	n = vsnprintf(ev->buf, PRINTK_MAX, fmt, ap);
	if (n > 0)
		ret = write_print(ctl, ip, ev, (size_t)n < PRINTK_MAX ? (size_t)n : PRINTK_MAX - 1);
	ut_thr.printk_depth = depth;
	errno = saved;
	return ret;
}

static int puts_at(uintptr_t ip, const char *str)
{
	struct ut_ctl *ctl = printk_ctl();
	int saved = errno, ret;
	uint32_t depth = ut_thr.printk_depth;
	size_t len;

	if (!ctl || !str || depth >= PRINTK_LEVELS)
		return 0;
	ut_thr.printk_depth = depth + 1;
	struct ut_ev_print *ev = (struct ut_ev_print *)printk_bufs[depth];

	len = strnlen(str, PUTS_MAX);
	memcpy(ev->buf, str, len);
	ret = write_print(ctl, ip, ev, len);
	ut_thr.printk_depth = depth;
	errno = saved;
	return ret;
}

/*
 * trace_printk() with a constant format: a bprint record, the arguments packed
 * as the kernel's vbin_printf packs them (ut_printf.h) and the format named by
 * its address, once utracefs knows its text.  Arguments that take more than
 * UT_BPRINT_MAX bytes, or none at all, drop the event as the kernel drops it; a
 * format that cannot be packed (%n, %f) or told to utracefs is written as the
 * formatted text of a print record instead.  Returns the words packed, as the
 * kernel's, or the print record's length.
 */
static int bprintk_at(uintptr_t ip, const char *fmt, va_list ap)
{
	struct ut_ctl *ctl = printk_ctl();
	int saved = errno, n, ret = 0;
	uint32_t depth = ut_thr.printk_depth;
	struct ut_ev_bprint *ev;
	va_list aq;

	if (!ctl || !fmt || depth >= PRINTK_LEVELS)
		return 0;
	ut_thr.printk_depth = depth + 1;
	ev = (struct ut_ev_bprint *)printk_bufs[depth];
	va_copy(aq, ap);
	n = ut_pf_pack(ev->buf, UT_BPRINT_MAX, fmt, aq);
	va_end(aq);
	if (n > 0 && ut_printk_fmt_known(fmt) && (ut_thr.tid || ut_rt_thread_first())) {
		ev->h = (struct ut_ev){.len = (uint16_t)((sizeof(*ev) + (unsigned int)n + 7) & ~7u),
				       .type = UT_EV_BPRINT,
				       .flags = ut_thr.evflags,
				       .tid = ut_thr.tid};
		ev->ip = ip;
		ev->fmt = (uintptr_t)fmt;
		ev->size = (uint32_t)n;
		ev->_pad = 0;
		ev->buf[n / 4] = 0; /* the padding to 8 bytes, when there is any */
		ut_rt_write_ev(ctl, ctl, &ev->h);
		ret = n / 4;
		n = 0;
	}
	ut_thr.printk_depth = depth;
	errno = saved;
	if (n == -EINVAL || n > 0)
		return vprintk_at(ip, fmt, ap);
	return ret;
}

/* trace_puts() of a constant string: a bputs record naming it, once utracefs knows it. */
static int bputs_at(uintptr_t ip, const char *str)
{
	struct ut_ctl *ctl = printk_ctl();
	int saved = errno;
	struct ut_ev_bputs ev;

	if (!ctl || !str)
		return 0;
	if (!ut_printk_fmt_known(str) || (!ut_thr.tid && !ut_rt_thread_first())) {
		errno = saved;
		return puts_at(ip, str);
	}
	ev = (struct ut_ev_bputs){.h = {.len = sizeof(ev),
					.type = UT_EV_BPUTS,
					.flags = ut_thr.evflags,
					.tid = ut_thr.tid},
				  .ip = ip,
				  .str = (uintptr_t)str};
	ut_rt_write_ev(ctl, ctl, &ev.h);
	errno = saved;
	return 1;
}

/* The body of a variadic entry point: its arguments handed to fn(ip, fmt, ap). */
#define WITH_VA(fn, ip, fmt)                                                                       \
	__extension__({                                                                            \
		va_list ap;                                                                        \
		int ret;                                                                           \
		va_start(ap, fmt);                                                                 \
		ret = fn(ip, fmt, ap);                                                             \
		va_end(ap);                                                                        \
		ret;                                                                               \
	})

/*
 * The header's trace_printk()/trace_puts() pass the address of their call site
 * (UTRACE_THIS_IP), as the kernel records _THIS_IP_: the return address would name
 * the caller's caller when the call is a tail call.
 */
UT_EXPORT int utrace_printk_at(unsigned long ip, const char *fmt, ...)
{
	return WITH_VA(vprintk_at, ip, fmt);
}

UT_EXPORT int utrace_puts_at(unsigned long ip, const char *str)
{
	return puts_at(ip, str);
}

/* The header's trace_printk()/trace_puts() when the format or string is a constant. */
UT_EXPORT int utrace_bprintk_at(unsigned long ip, const char *fmt, ...)
{
	return WITH_VA(bprintk_at, ip, fmt);
}

UT_EXPORT int utrace_bputs_at(unsigned long ip, const char *str)
{
	return bputs_at(ip, str);
}

/* Programs built with an older header: the return address is all there is. */
UT_EXPORT int utrace_printk(const char *fmt, ...)
{
	return WITH_VA(vprintk_at, (uintptr_t)__builtin_return_address(0), fmt);
}

UT_EXPORT int utrace_puts(const char *str)
{
	return puts_at((uintptr_t)__builtin_return_address(0), str);
}

static void send_tracing(uint32_t on)
{
	struct ut_msg_tracing m = {.h = {UT_MSG_TRACING, sizeof(m)}, .on = on};
	int saved = errno;

	ut_send(&m, sizeof(m));
	errno = saved;
}

UT_EXPORT void utrace_tracing_on(void)
{
	ut_rt_off = 0;
	send_tracing(1);
}

UT_EXPORT void utrace_tracing_off(void)
{
	ut_rt_off = 1; /* this process stops at once; the others when utracefs sees it */
	send_tracing(0);
}

UT_EXPORT int utrace_tracing_is_on(void)
{
	struct ut_ctl *ctl = ut_rt_ctl;

	/* attached but not applied yet: the sites are still NOPs, nothing would be traced */
	return ctl && ctl->tracing_on && !ut_rt_off &&
	       __atomic_load_n(&ut_rt_applied, __ATOMIC_ACQUIRE);
}

/*
 * bench/micro/calls_tp.h - the LTTng-UST tracepoint of the calls workload.
 *
 * One event, utrace_bench:leaf, with the payload that utrace's function tracer records
 * for a call besides its time stamp: the address of the function and of its caller (two
 * 64-bit integers).  calls.c built with -DBENCH_LTTNG fires it at the top of bench_leaf(),
 * so that an LTTng-UST event per call can be compared with a utrace function event per
 * call.  The provider is compiled in (calls_tp.c), not preloaded.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER utrace_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./calls_tp.h"

#if !defined(CALLS_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CALLS_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(
	utrace_bench, leaf,
	LTTNG_UST_TP_ARGS(unsigned long, ip, unsigned long, parent_ip),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(unsigned long, ip, ip)
		lttng_ust_field_integer_hex(unsigned long, parent_ip, parent_ip)
	)
)

#endif /* CALLS_TP_H */

#include <lttng/tracepoint-event.h>

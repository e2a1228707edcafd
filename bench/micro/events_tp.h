/*
 * bench/micro/events_tp.h - the LTTng-UST tracepoint of the events workload: the same
 * payload as events.c's utrace event, four integers and a 16-byte string.  events.c
 * built with -DBENCH_LTTNG fires it instead of the utrace event; events_tp.c holds the
 * provider.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER utrace_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./events_tp.h"

#if !defined(EVENTS_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define EVENTS_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(
	utrace_bench, ev,
	LTTNG_UST_TP_ARGS(int, a, int, b, long, c, long, d, const char *, s),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, a, a)
		lttng_ust_field_integer(int, b, b)
		lttng_ust_field_integer(long, c, c)
		lttng_ust_field_integer(long, d, d)
		lttng_ust_field_string(s, s)
	)
)

#endif /* EVENTS_TP_H */

#include <lttng/tracepoint-event.h>

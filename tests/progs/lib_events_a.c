// SPDX-License-Identifier: MIT
/* lib_events_a.c - a shared library linked with events_prog, with its own event. */
#include <utrace/event.h>

UTRACE_EVENT(ut_lib, linked,
	TP_PROTO(int v, const char *who),
	TP_ARGS(v, who),
	TP_STRUCT__entry(
		__field(int, v)
		__string(who, who)
	),
	TP_fast_assign(
		__entry->v = v;
		__assign_str(who);
	),
	TP_printk("v=%d who=%s", __entry->v, __get_str(who))
);

int lib_a_enabled(void)
{
	return trace_linked_enabled();
}

void lib_a_fire(int v)
{
	trace_linked(v, "linked-lib");
}

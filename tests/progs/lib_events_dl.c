// SPDX-License-Identifier: MIT
/* lib_events_dl.c - a library events_prog dlopen()s, with its own event. */
#include <utrace/event.h>

UTRACE_EVENT(ut_lib, dl,
	TP_PROTO(unsigned long v),
	TP_ARGS(v),
	TP_STRUCT__entry(
		__field(unsigned long, v)
		__string(who, "dlopened-lib")
	),
	TP_fast_assign(
		__entry->v = v;
		__assign_str(who);
	),
	/* sizeof is beyond what utracefs evaluates: the event is shown by its fields */
	TP_printk("v=%lu who=%s size=%zu", __entry->v, __get_str(who), sizeof(__entry->v))
);

int lib_dl_enabled(void)
{
	return trace_dl_enabled();
}

void lib_dl_fire(unsigned long v)
{
	trace_dl(v);
}

// SPDX-License-Identifier: MIT
/*
 * events_cxx.cc - a trace event defined and fired in C++, inside a namespace and a
 * template (tests/integration/84_events.sh): waits (at most 20 s) until it is
 * enabled, fires it once, prints "pid N".
 */
#include <stdio.h>
#include <string>
#include <time.h>
#include <unistd.h>

#include <utrace/event.h>

namespace app {

UTRACE_EVENT(ut_cxx, greet,
	TP_PROTO(const std::string &who, unsigned int n),
	TP_ARGS(who, n),
	TP_STRUCT__entry(
		__string(who, who.c_str())
		__field(unsigned int, n)
	),
	TP_fast_assign(
		__assign_str(who);
		__entry->n = n;
	),
	TP_printk("who=%s n=%u", __get_str(who), __entry->n)
);

template <typename T> struct greeter {
	void operator()(const T &who, unsigned int n) const { trace_greet(who, n); }
};

} // namespace app

int main()
{
	struct timespec ms = {0, 1000000};

	for (int i = 0; i < 20000 && !app::trace_greet_enabled(); i++)
		nanosleep(&ms, nullptr);
	app::greeter<std::string>()(std::string("world"), 3);
	printf("enabled %d pid %d\n", app::trace_greet_enabled(), (int)getpid());
	return 0;
}

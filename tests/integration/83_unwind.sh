#!/bin/sh
# 83_unwind.sh - stack traces never crash the traced program.  Signal handlers
# land anywhere in the trampolines (and in libgcc's unwinder while a C++
# exception is in flight) and take stack traces there: the runtime's own
# (stacktrace probes, func_stack_trace) and the program's (backtrace(),
# _Unwind_Backtrace).  tests/progs/unwind_storm: mix() in a loop and a SIGALRM
# handler every 200 us that calls mix() and walks its stack; built with and
# without frame pointers.  Each storm runs a bounded time (UT_STORM_SECONDS, 2 s)
# and must exit 0, three runs in a row: the verdict counts crashes, not time.
. "$(dirname "$0")/lib.sh"

ut_mount
F=$T/set_ftrace_filter
SECS=${UT_STORM_SECONDS:-2}
RUNS=3

# storm NAME PROG ARGS...: RUNS runs, every one must exit 0
storm() {
	name=$1; shift
	bad=
	for r in $(seq $RUNS); do
		traced "$@" >"$UT_TMP/storm.out" 2>&1; rc=$?
		[ $rc -eq 0 ] || bad="$bad run $r: exit $rc;"
	done
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}
reset() {
	echo nop >"$T/current_tracer"
	echo 0 >"$T/options/func_stack_trace"
	for p in $(grep -o '^[a-z_]*:[a-z]*' "$F" | sort -u); do echo "!$p" >>"$F"; done
	echo >"$F"
	echo 1 >"$T/tracing_on"
}

for P in unwind_storm unwind_storm_fp; do
	PP=$PROGS/$P
	traced "$PP" 0 1 >/dev/null # its functions are known from now on

	reset
	echo 'mix:stacktrace' >"$F"
	storm "$P: mix:stacktrace under a signal storm" "$PP" "$SECS"

	reset
	echo 'mix:traceon' >"$F"
	echo function >"$T/current_tracer"
	echo 1 >"$T/options/func_stack_trace"
	storm "$P: mix:traceon, function tracer, func_stack_trace" "$PP" "$SECS"

	reset
	echo 'mix' >"$F"
	echo function >"$T/current_tracer"
	echo 1 >"$T/options/func_stack_trace"
	storm "$P: function tracer with func_stack_trace" "$PP" "$SECS"

	reset
	echo function_graph >"$T/current_tracer"
	storm "$P: function_graph, backtrace() in the handler" "$PP" "$SECS"
done
reset

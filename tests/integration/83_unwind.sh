#!/bin/sh
# 83_unwind.sh - stack traces never crash the traced program.  Signal handlers
# land anywhere in the trampolines (and in libgcc's unwinder while a C++
# exception is in flight) and take stack traces there: the runtime's own
# (stacktrace probes, func_stack_trace) and the program's (backtrace(),
# _Unwind_Backtrace).  tests/progs/unwind_storm: mix() in a loop and a SIGALRM
# handler every 200 us that calls mix() and walks its stack; built with and
# without frame pointers.  tests/progs/unwind_exc: C++ exceptions thrown through
# frames with destructors (libgcc's _Unwind_RaiseException, _Unwind_Resume)
# under the same storm, the handler's function traced with func_stack_trace.  Each storm runs a bounded time (UT_STORM_SECONDS, 2 s)
# and must exit 0, two runs in a row: the verdict counts crashes, not time.
. "$(dirname "$0")/lib.sh"

ut_mount
F=$T/set_ftrace_filter
SECS=${UT_STORM_SECONDS:-2}
RUNS=2

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

# handler_stack: the functions of the first stack trace taken in a handler, one line
handler_stack() {
	awk '/\.\.h\.\. .*<stack trace>/ { on = 1; next } on && /^ => / { print $2; next } on { exit }' \
		"$T/trace" | tr '\n' ' ' | sed 's/ $//'
}

for P in unwind_storm unwind_storm_fp; do
	PP=$PROGS/$P
	traced "$PP" 0 0 >/dev/null # its functions are known from now on

	# one handler (raise) at a known place, no storm: the trace it leaves
	reset
	echo 'mix:stacktrace' >"$F"
	traced "$PP" 0 0 >/dev/null
	if [ $P = unwind_storm_fp ]; then
		expect_match "$P: a handler's stack trace follows the frame pointers" \
			'^mix on_alarm wrap_handler' "$(handler_stack)"
	else
		expect_match "$P: a handler's stack trace without frame pointers: at least the caller" \
			'^mix on_alarm' "$(handler_stack)"
	fi

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

PX=$PROGS/unwind_exc
traced "$PX" 0 >/dev/null
reset
echo 'exc_handler_work' >"$F"
echo function >"$T/current_tracer"
echo 1 >"$T/options/func_stack_trace"
storm "C++ exceptions in flight, func_stack_trace in the handler" "$PX" "$SECS"
expect_match "... and the handler's stack traces were taken" '^exc_handler_work on_alarm' \
	"$(handler_stack)"
reset

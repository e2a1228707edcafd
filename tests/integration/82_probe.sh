#!/bin/sh
# 82_probe.sh - the function probes of set_ftrace_filter through a real mount:
# FUNC:traceon[:N], traceoff[:N], stacktrace[:N], dump, cpudump.  Parsing, read-back,
# errors and removal; then what they do in real traced programs
# (tests/progs/probe_prog: tick(i) then after(i), N rounds, in threads or in
# processes): traceoff:N stops tracing N times, counts shared by every thread and
# process, traceon under the nop tracer, stacktrace under function and
# function_graph, dump and cpudump to the console, only probed sites patched.
. "$(dirname "$0")/lib.sh"

ut_mount
P=$PROGS/probe_prog
F=$T/set_ftrace_filter
LOG=$UT_TMP/utracefs.log # utracefs -f: its stderr is the console
# the lines of set_ftrace_filter on one line
filter() { tr '\n' ' ' <"$F" | sed 's/ $//'; }
# how many times FUNC is in the function tracer's trace
hits() { grep -c ": $1 <-" "$T/trace"; }
# settle VALUE CMD...: wait (up to 5 s) until CMD prints VALUE: what a process sent
# before it exited (tracing_on, a dump) may still be on its way to utracefs
settle() {
	v=$1; shift; i=0
	while [ $i -lt 250 ] && [ "$("$@")" != "$v" ]; do sleep 0.02; i=$((i + 1)); done
}
tracing_on() { cat "$T/tracing_on"; }
dumps() { grep -c '^Dumping ftrace buffer:$' "$LOG"; }

traced "$P" 1 # its functions are known from now on

echo 'tick:traceoff' >"$F"
expect_eq "traceoff: reads back unlimited, after the filter's line" \
	"#### all functions enabled #### tick:traceoff:unlimited" "$(filter)"
echo 'tick:traceoff:3' >>"$F"
expect_eq "traceoff:3 is a probe of its own, the newest listed first" \
	"#### all functions enabled #### tick:traceoff:count=3 tick:traceoff:unlimited" "$(filter)"
echo 'after:stacktrace:0x10 tick:dump:7 tick:cpudump:5' >>"$F"
expect_eq "stacktrace count in hex; dump counts 1, cpudump never counts" \
	"#### all functions enabled #### tick:cpudump:unlimited tick:dump:count=1 after:stacktrace:count=16 tick:traceoff:count=3 tick:traceoff:unlimited" \
	"$(filter)"
expect_write_err "the same probe again: EINVAL" "Invalid argument" 'tick:traceoff:7' "$F"
expect_match "... and its count stays" "tick:traceoff:count=3" "$(filter)"
expect_write_err "a count that is not a number: EINVAL" "Invalid argument" 'tick:traceon:abc' "$F"
expect_write_err "a negative count: EINVAL" "Invalid argument" 'tick:traceon:-1' "$F"
expect_write_err "a count past 64 bits: ERANGE" "Numerical result out of range" \
	'tick:traceon:99999999999999999999' "$F"
expect_write_err "an unknown command: EINVAL" "Invalid argument" 'tick:bogus' "$F"
expect_write_err "snapshot: a bad count is EINVAL as the others'" "Invalid argument" \
	'tick:snapshot:abc' "$F"
expect_write_err "no function matches: EINVAL" "Invalid argument" 'nosuch:traceon' "$F"
expect_write_err "set_ftrace_notrace takes no probes: EINVAL" "Invalid argument" \
	'tick:traceon' "$T/set_ftrace_notrace"
expect_match "error_log names the file and the command" \
	'set_ftrace_notrace: error: Function probes only in set_ftrace_filter.*Command: tick:traceon' \
	"$(tr '\n' ' ' <"$T/error_log")"
expect_match "error_log: a bad count" 'set_ftrace_filter: error: Bad count.*Command: tick:traceon:abc' \
	"$(tr '\n' ' ' <"$T/error_log")"
out=$( (/bin/echo 'after:traceon nosuch:traceon' >>"$F") 2>&1 ); rc=$?
expect_eq "a failed write adds none of its probes" "1 0" \
	"$([ $rc -ne 0 ] && echo 1) $(grep -c traceon "$F")"
echo 'tick:traceon:' >>"$F"
expect_match "an empty count is -1" "tick:traceon:count=-1" "$(filter)"
echo after >"$F"
expect_eq "> replaces the filter and keeps the probes" \
	"after tick:traceon:count=-1 tick:cpudump:unlimited tick:dump:count=1 after:stacktrace:count=16 tick:traceoff:count=3 tick:traceoff:unlimited" \
	"$(filter)"
echo >"$F"
echo '!tick:traceoff' >>"$F"
expect_eq "!FUNC:CMD removes the unlimited one" "" "$(grep 'traceoff:unlimited' "$F")"
echo '!tick:traceoff:0' >>"$F"
expect_eq "!FUNC:CMD:N removes the counted one" "" "$(grep 'traceoff' "$F")"
expect_write_err "removing a probe there is none of: ENODEV" "No such device" '!tick:traceoff' "$F"
expect_write_err "removing from functions that do not have it: EINVAL" "Invalid argument" \
	'!after:dump' "$F"
echo '!*:cpudump !:dump !after:stacktrace:0 !tick:traceon:' >>"$F"
expect_eq "!*:CMD and !:CMD remove them all" "#### all functions enabled ####" "$(filter)"

# traceoff:2 with the function tracer: each hit while tracing is on turns it off
echo function >"$T/current_tracer"
echo 'tick:traceoff:2' >"$F"
echo >"$T/trace"
traced "$P" 5
settle 0 tracing_on
expect_eq "traceoff:2: the first tick is traced, then nothing" "1 0 0" \
	"$(hits tick) $(hits after) $(cat "$T/tracing_on")"
expect_match "traceoff:2: one left" "tick:traceoff:count=1" "$(filter)"
echo 1 >"$T/tracing_on"
echo >"$T/trace"
traced "$P" 5
settle 0 tracing_on
expect_eq "traceoff:2: a second process takes the last one" "1 0 0" \
	"$(hits tick) $(hits after) $(cat "$T/tracing_on")"
echo 1 >"$T/tracing_on"
echo >"$T/trace"
traced "$P" 5
expect_eq "traceoff:2: used up, tracing goes on" "5 5 1 count=0" \
	"$(hits tick) $(hits after) $(cat "$T/tracing_on") $(grep -o 'count=.*' "$F")"
echo '!tick:traceoff:0' >>"$F"

# a running process that hit traceoff records again once tracing_on is 1 again
mkfifo "$UT_TMP/l.in"
LD_PRELOAD=$LIBUTRACE "$P" -l <"$UT_TMP/l.in" >"$UT_TMP/l.out" 2>&1 &
L=$!
exec 8>"$UT_TMP/l.in"
echo 'after:traceoff' >>"$F"
for round in 1 2; do
	echo >"$T/trace"
	echo 1 >"$T/tracing_on"
	ask "$UT_TMP/l.out" 8 3 >/dev/null
	settle 0 tracing_on
	expect_eq "traceoff in a live process, round $round: tick and after once, then off" "1 1 0" \
		"$(hits tick) $(hits after) $(tracing_on)"
done
exec 8>&-
wait $L
echo '!after:traceoff' >>"$F"

# only probed sites are patched; probes act whatever the tracer
echo nop >"$T/current_tracer"
echo 'tick:traceon' >"$F"
expect_eq "nop tracer: the probed site is patched (call), the other a NOP" "tick e8 after 0f" \
	"$(traced "$P" -s | tr '\n' ' ' | sed 's/ $//')"
echo 0 >"$T/tracing_on"
traced "$P" 1
settle 1 tracing_on
expect_eq "traceon under the nop tracer turns tracing on" 1 "$(cat "$T/tracing_on")"
echo 0 >"$T/ftrace_enabled"
echo 0 >"$T/tracing_on"
traced "$P" 1
expect_eq "ftrace_enabled 0: probes do nothing, sites are NOPs" "0 tick 0f" \
	"$(cat "$T/tracing_on") $(traced "$P" -s | head -1)"
echo 1 >"$T/ftrace_enabled"
echo 1 >"$T/tracing_on"
echo '!tick:traceon' >>"$F"
echo after >"$F"
echo 'tick:stacktrace' >>"$F"
echo function_graph >"$T/current_tracer"
expect_eq "function_graph: probed call, filtered jmp" "tick e8 after e9" \
	"$(traced "$P" -s | tr '\n' ' ' | sed 's/ $//')"

# stacktrace: under function_graph the tree stays right, stacks start at the function
echo >"$F" # the filter goes, the probe stays
echo >"$T/trace"
traced "$P" 3
expect_eq "function_graph + stacktrace: three leaves of each, three stacks at tick" "3 3 3 3" \
	"$(grep -c '|  *tick();' "$T/trace") $(grep -c '|  *after();' "$T/trace") \
$(grep -c '<stack trace>' "$T/trace") $(grep -A1 '<stack trace>' "$T/trace" | grep -c '^ => tick$')"
echo '!tick:stacktrace' >>"$F"
echo nop >"$T/current_tracer"

# a count shared by threads and by processes: exactly N stacks
echo 'tick:stacktrace:50' >>"$F"
echo >"$T/trace"
traced "$P" -t 4 100
expect_eq "stacktrace:50 over 4 threads x 100 calls: exactly 50" "50 count=0" \
	"$(grep -c '<stack trace>' "$T/trace") $(grep -o 'count=.*' "$F")"
echo '!tick:stacktrace:0' >>"$F"
echo 'tick:stacktrace:30' >>"$F"
echo >"$T/trace"
traced "$P" -f 3 50
expect_eq "stacktrace:30 over 3 processes x 50 calls: exactly 30" "30 count=0" \
	"$(grep -c '<stack trace>' "$T/trace") $(grep -o 'count=.*' "$F")"
echo '!tick:stacktrace:0' >>"$F"

# fork while other threads are inside a probe: the child's runtime must not wait
# for readers that only exist in the parent
echo 'tick:traceon' >>"$F"
expect_eq "fork while threads hit a probe: every child runs to its end" "forks 20 ok 20" \
	"$(traced timeout 60 "$P" -F 20)"
# a program that closes the runtime's descriptors and reuses their numbers keeps them
expect_eq "the runtime never closes a descriptor the program reused" "fds ok" \
	"$(traced timeout 60 "$P" -c)"
expect_eq "... nor does a dormant runtime waiting for utracefs" "fds ok" \
	"$(UTRACE_TRACING=$UT_TMP/nowhere/tracing traced timeout 60 "$P" -c)"
echo '!tick:traceon' >>"$F"

# enabled_functions: one user per probe, one for the tracer
mkfifo "$UT_TMP/w.in"
LD_PRELOAD=$LIBUTRACE "$P" -w <"$UT_TMP/w.in" >"$UT_TMP/w.out" &
W=$!
exec 9>"$UT_TMP/w.in"
i=0
while [ $i -lt 200 ] && ! grep -q '^after$' "$T/available_filter_functions"; do
	sleep 0.02; i=$((i + 1))
done
echo 'tick:traceoff tick:stacktrace:3' >>"$F"
expect_eq "enabled_functions, nop tracer: the probed function, one user per probe" \
	"tick (2)" "$(sed 's/ *$//' "$T/enabled_functions")"
echo function >"$T/current_tracer"
expect_eq "enabled_functions, function tracer: one more user" "tick (3) after (1)" \
	"$(grep -E '^(tick|after) ' "$T/enabled_functions" | sed 's/ *$//' | tr '\n' ' ' | sed 's/ $//')"
exec 9>&-
wait $W
echo '!*:traceoff !*:stacktrace:0' >>"$F"

# dump and cpudump: the buffer to the console (utracefs's stderr), consumed, tracing off
echo 'after:dump' >>"$F"
echo >"$T/trace"
traced "$P" 3
settle 1 dumps
expect_eq "dump: one dump, tracing off, the trace consumed, count=0" "1 0 0 after:dump:count=0" \
	"$(grep -c '^Dumping ftrace buffer:$' "$LOG") $(cat "$T/tracing_on") \
$(grep -vc '^#' "$T/trace") $(grep dump "$F")"
expect_match "dump: the events in latency format" \
	'^ *probe_pr-[0-9]+ +[0-9]+\.\.\.\.\. +[0-9]+us.: tick <-run' "$(cat "$LOG")"
expect_eq "dump: framed by separator lines" 2 "$(grep -c '^---------------------------------$' "$LOG")"
echo '!after:dump' >>"$F"
echo 1 >"$T/tracing_on"
echo 'tick:cpudump' >>"$F"
# on one CPU, so that every dump is of the CPU that has its events
LD_PRELOAD=$LIBUTRACE taskset -c 0 "$P" 3
settle 4 dumps
expect_eq "cpudump: a dump at every hit, the later ones empty" "4 2" \
	"$(grep -c '^Dumping ftrace buffer:$' "$LOG") $(grep -c '^   (ftrace buffer empty)$' "$LOG")"
echo '!tick:cpudump' >>"$F"
echo nop >"$T/current_tracer"
echo 1 >"$T/tracing_on"

# a program that utracefs meets after the probe was written has it from its first call
for k in traceoff traceon stacktrace dump cpudump; do
	for c in "" :0; do (echo "!*:$k$c" >>"$F") 2>/dev/null; done
done
cp "$P" "$UT_TMP/probe_new"
echo function >"$T/current_tracer"
echo 'after:traceoff' >>"$F"
echo 1 >"$T/tracing_on"
echo >"$T/trace"
traced "$UT_TMP/probe_new" 3
settle 0 tracing_on
expect_eq "a new program gets the probe: tracing off at its first after()" "0 1 1" \
	"$(tracing_on) $(hits tick) $(hits after)"
echo '!after:traceoff' >>"$F"
echo nop >"$T/current_tracer"
echo 1 >"$T/tracing_on"

# a daemon writes its console to MOUNTPOINT.console
T2=$UT_TMP/t2
mkdir "$T2"
if "$UTRACEFS" "$T2"; then
	UTRACE_TRACING=$T2 traced "$P" 1
	echo 'tick:dump' >"$T2/set_ftrace_filter"
	UTRACE_TRACING=$T2 traced "$P" 1
	# (besides the ids the first program's trace events got: the runtime's own)
	console() { grep -v ': trace event [a-z_]*:[a-z_]* has id ' "$T2.console" 2>/dev/null; }
	console_lines() { console | wc -l; }
	settle 2 console_lines
	expect_eq "daemon: the dump goes to MOUNTPOINT.console" "Dumping ftrace buffer:    (ftrace buffer empty)" \
		"$(console | tr '\n' ' ' | sed 's/ $//')"
	fusermount3 -u "$T2"
else
	fail "daemon: utracefs did not start"
fi

ut_umount
expect_eq "utracefs exits cleanly" 0 "$?"

#!/bin/sh
# tracing_thresh with function_graph: a program makes a million short calls and a
# hundred long ones into a small buffer.  Without a threshold the short calls push the
# long ones out; with one, the runtime removes each short call's entry when it returns
# (rewinding the buffer's tail, or discarding the entry in place), so every long call
# survives, with its entry and its exit, and no short call is left.
. "$(dirname "$0")/lib.sh"
ut_mount
P=$PROGS/thresh_long
ROUNDS=100
# One CPU: a call whose entry and exit land on different CPUs keeps both events.
CPU=$(($(nproc) - 1))

# A small buffer: 16 pages per CPU hold a few thousand graph events.
echo 64 > "$T/buffer_size_kb"
echo function_graph > "$T/current_tracer"

# 1. Without a threshold the short calls crowd the long ones out.
traced "$P" $ROUNDS 10000 300 > "$UT_TMP/out0"
expect_eq "program made its calls" "long=$ROUNDS short=1000100" "$(cut -d' ' -f1,2 "$UT_TMP/out0")"
kept0=$(grep -c 'long_call()' "$T/trace")
if [ "$kept0" -lt $ROUNDS ]; then
	pass "without tracing_thresh most long calls are overwritten ($kept0 kept)"
else
	fail "without tracing_thresh most long calls are overwritten" "$kept0 kept"
fi

# 2. With tracing_thresh (µs) between the two durations, all of them stay.  The
# short child of each long call is removed too, so each long call is a leaf.  (A
# thread preempted inside a call makes that call long too: it stays, rightly.)
echo > "$T/trace"
echo 100 > "$T/tracing_thresh"
expect_eq "tracing_thresh reads back" 100 "$(cat "$T/tracing_thresh")"
traced taskset -c $CPU "$P" $ROUNDS 10000 300 > "$UT_TMP/out1"
cat "$T/trace" > "$UT_TMP/trace1"
expect_eq "with tracing_thresh every long call is in the buffer, entry and exit" $ROUNDS \
	"$(grep -cE '\| +long_call\(\)(;| \{)$' "$UT_TMP/trace1")"
# A short call that was preempted for longer than the threshold did last that long
# and stays: every duration left must be at least 100 µs (marks ! # * @ $).
expect_eq "no call shorter than the threshold is left" "" \
	"$(grep -E '^ *[0-9]+\) [ +] +[0-9]+\.[0-9]{3} us' "$UT_TMP/trace1")"
expect_eq "of the million short calls, only preempted ones are left" 1 \
	"$(awk '/short_call/ { n++ } END { print (n + 0 < 1000) }' "$UT_TMP/trace1")"
expect_eq "main, which lasted long, keeps its entry" 1 "$(grep -c 'main() {$' "$UT_TMP/trace1")"
overrun=$(for f in "$T"/per_cpu/cpu*/stats; do sed -n 's/^overrun: //p' "$f"; done |
	awk '{ s += $1 } END { print s + 0 }')
expect_eq "nothing was overwritten" 0 "$overrun"

echo 0 > "$T/tracing_thresh"
echo nop > "$T/current_tracer"

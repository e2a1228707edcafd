#!/bin/sh
# 90_hostile.sh - one process cannot break the others.  A hostile process
# (tests/progs/hostile.c, speaking the wire protocol itself, so holding every
# descriptor utracefs hands out) tries to write what utracefs alone writes,
# scribbles on every shared page it can write, sends malformed and out-of-order
# packets, dies at every step of a registration and registers by the hundred.
# After each, utracefs still serves, a process traced since before and a new one
# both trace and count exactly, once `echo > trace` (or `utrace reset`) has
# cleared what the hostile process wrote into the buffers.
. "$(dirname "$0")/lib.sh"

H=$PROGS/hostile
ut_mount
S=$T.sock
echo function > "$T/current_tracer"

# the witness: traced from before every attack, driven through a fifo (81_pid.sh)
start_driven pid_prog w 7
WPID=$(driven_pid w)

# check NAME: after clearing the buffers, the witness's 5 calls and a new process's
# 50 calls are all in the trace, exactly, and utracefs still runs.
check() {
	echo > "$T/trace"
	ask "$UT_TMP/w.out" 7 run run run run run >/dev/null
	expect_eq "$1: a process traced from before counts exactly" 5 \
		"$(grep -c "pid_prog-$WPID .* pp_main <-" "$T/trace")"
	out=$(LD_PRELOAD=$LIBUTRACE "$PROGS/rt_calls" calls 50)
	pid=$(echo "$out" | sed -n 's/.* pid \([0-9]*\)$/\1/p')
	expect_eq "$1: a new process counts exactly" 50 \
		"$(grep -c "rt_calls-$pid .* leaf <-caller\$" "$T/trace")"
	if kill -0 "$UT_FS_PID" 2>/dev/null; then pass "$1: utracefs lives"; else
		fail "$1: utracefs lives" "$(tail -5 "$UT_TMP/utracefs.log")"
	fi
}
check "before"

# -- what utracefs alone writes: the control page, the selection --------------------
out=$("$H" "$S" seal 2>&1)
expect_eq "seal: no way to write the control page or the selection" "writable 0
end" "$out"
check "seal"

# -- garbage over every writable shared page --------------------------------------------
echo 'pp_child:stacktrace:5' >> "$T/set_ftrace_filter" # a counted probe: its counter is shared
out=$("$H" "$S" scribble 2>&1)
expect_match "scribble: done" "^scribbled [0-9]+ cpus$" "$out"
expect_match "scribble: a probe's count stays within what was set" "^pp_child:stacktrace:count=[0-5]\$" \
	"$(grep pp_child "$T/set_ftrace_filter")"
echo '!pp_child:stacktrace:0' >> "$T/set_ftrace_filter"
cat "$T/trace" >/dev/null 2>"$UT_TMP/err"; rc=$?
expect_eq "scribble: trace still reads" "0 " "$rc $(cat "$UT_TMP/err")"
for f in "$T"/per_cpu/cpu*/stats; do cat "$f" >/dev/null || fail "scribble: $f reads"; done
check "scribble, then echo > trace"

"$H" "$S" scribble >/dev/null 2>&1
"$UTRACE" reset >/dev/null 2>&1
echo function > "$T/current_tracer"
check "scribble, then utrace reset"

# under function_graph (the graph writers also rewind and discard in the rings)
echo function_graph > "$T/current_tracer"
echo 1000 > "$T/tracing_thresh"
ask "$UT_TMP/w.out" 7 run >/dev/null
"$H" "$S" scribble >/dev/null 2>&1
ask "$UT_TMP/w.out" 7 run run run >/dev/null
LD_PRELOAD=$LIBUTRACE "$PROGS/rt_calls" calls 50 >/dev/null
echo 0 > "$T/tracing_thresh"
ask "$UT_TMP/w.out" 7 run run run >/dev/null
out=$(LD_PRELOAD=$LIBUTRACE "$PROGS/rt_calls" calls 50 2>&1)
expect_match "scribble under function_graph: a new process survives" "^leaf .* pid [0-9]+$" "$out"
cat "$T/trace" >/dev/null 2>"$UT_TMP/err"; rc=$?
expect_eq "scribble under function_graph: trace still reads" "0 " "$rc $(cat "$UT_TMP/err")"
echo function > "$T/current_tracer"
check "scribble under function_graph, then a tracer change"

# -- malformed and out-of-order packets ----------------------------------------------
out=$("$H" "$S" wire 2>&1)
expect_eq "wire: every bad packet ends its connection" "short closed
bad-len closed
bad-type closed
ack-before-hello closed
sites-before-hello closed
old-version closed
other-pid closed
comm-no-nul closed
hello-twice closed
sites-bad-nr closed
sites-relative-path closed
sites-path-no-nul closed
task-other-pid closed
probe-bad-cmd closed
descriptor-attached closed
oversize closed
out-of-order sent
end" "$out"
check "wire"

# -- dying at every step, many at once ------------------------------------------------
out=$("$H" "$S" die 2>&1)
expect_eq "die: done" "died at every step
end" "$out"
check "die"

out=$("$H" "$S" bomb 100 2>&1)
expect_eq "bomb: done" "bomb 100
end" "$out"
check "bomb"

# -- hoarding utracefs's descriptors ----------------------------------------------------
out=$("$H" "$S" hoard 40 2>&1)
expect_eq "hoard: one process keeps at most 4 connections" "kept 4
end" "$out"
check "hoard"
out=$("$H" "$S" silent 2>&1)
expect_eq "silent: a connection that never says HELLO is closed" "silent closed
end" "$out"
check "silent"

# -- a latency report that names another process's thread -----------------------------
# it must not become the maximum: its trace would show the other process's events
if grep -qw irqsoff "$T/available_tracers"; then
	echo irqsoff > "$T/current_tracer"
	sleep 60 & victim=$!
	out=$("$H" "$S" latency $victim 2>&1)
	expect_match "latency: the report is taken" "latency (open|closed)" "$out"
	expect_eq "latency: another process's thread is no maximum" 0 "$(cat "$T/tracing_max_latency")"
	kill $victim; wait $victim 2>/dev/null
	echo nop > "$T/current_tracer"
fi

exec 7>&-
echo nop > "$T/current_tracer"
ut_umount
expect_eq "utracefs exits cleanly" 0 "$?"

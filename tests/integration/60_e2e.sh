#!/bin/sh
# End to end: real traced programs through a real mount - exact counts, tracer
# switching under load, SIGKILL of a writer, overwrite on/off accounting, resizing
# while tracing, trace_pipe after a loss.
. "$(dirname "$0")/lib.sh"
ut_mount
P=$PROGS/e2e_calls

stat_field() { # CPU FIELD
	sed -n "s/^$2: *//p" "$T/per_cpu/cpu$1/stats"
}
stats_sum() { # FIELD: summed over CPUs
	s=0
	for f in "$T"/per_cpu/cpu*/stats; do
		v=$(sed -n "s/^$1: *//p" "$f"); s=$((s + v))
	done
	echo $s
}

# 1. The function tracer records every call, with the caller.
echo function > "$T/current_tracer"
traced "$P" -n 1000 > /dev/null
expect_eq "every call of work() is traced" 1000 "$(grep -c ' work <-outer$' "$T/trace")"
expect_eq "every call of outer() is traced" 1000 "$(grep -c ' outer <-' "$T/trace")"
expect_match "lines carry the program's comm" '^ +e2e_calls-[0-9]+ +\[[0-9]{3}\] \.\.\.\.\. +[0-9]+\.[0-9]{6}: work <-outer$' "$(cat "$T/trace")"

echo > "$T/trace"
LD_PRELOAD=libc.so.6:$LIBUTRACE "$P" -n 10 > /dev/null
expect_eq "traced with libc before the runtime in LD_PRELOAD" 10 "$(grep -c ' work <-outer$' "$T/trace")"

# 2. nop traces nothing and the sites cost nothing.
echo nop > "$T/current_tracer"
traced "$P" -n 1000 > /dev/null
expect_eq "nop records nothing" 0 "$(grep -c 'work <-' "$T/trace")"

# 3. Switching tracers hundreds of times while threads call traced functions.
LD_PRELOAD=$LIBUTRACE "$P" -t 2 -l -c > "$UT_TMP/loop.out" &
loop_pid=$!
LD_PRELOAD=$LIBUTRACE "$P" -w -t 2 -n 5000 -c > "$UT_TMP/exact.out" &
exact_pid=$!
sleep 0.3
i=0
while [ $i -lt 200 ]; do
	echo function > "$T/current_tracer" && echo nop > "$T/current_tracer" || break
	i=$((i + 1))
done
expect_eq "200 switches between function and nop" 200 "$i"
kill -TERM $loop_pid; wait $loop_pid; rc=$?
expect_eq "looping program survived and its sites are NOPs again" "0" "$rc"
echo function > "$T/current_tracer"
kill -USR1 $exact_pid; wait $exact_pid; rc=$?
n=$(grep -c "^ *e2e_calls-[0-9]* .* work <-outer\$" "$T/trace")
expect_eq "after the switches every call is traced (2 threads x 5000)" 10000 "$n"
echo nop > "$T/current_tracer"

# 3b. The same with a signal storm: handlers that run traced code, with every
# signal blocked inside them, or with none blocked (so that they can also land
# inside the runtime's SIGTRAP handler).  Either way no int3 may meet a blocked SIGTRAP.
for mask in fill empty; do
	LD_PRELOAD=$LIBUTRACE "$PROGS/e2e_sigstorm" 3 $mask > "$UT_TMP/storm.out" &
	storm=$!
	i=0
	while [ $i -lt 60 ] && kill -0 $storm 2>/dev/null; do
		echo function > "$T/current_tracer"; echo nop > "$T/current_tracer"
		i=$((i + 1))
	done
	wait $storm; rc=$?
	expect_eq "signal storm ($mask mask) survives tracer switches" "0 survived" "$rc $(cat "$UT_TMP/storm.out")"
done

# 3b'. A thread that waits with SIGTRAP in the wait's own mask (sigsuspend, ppoll,
# pselect, epoll_pwait, epoll_pwait2: its handler runs with that mask) or in the
# set it receives (sigwaitinfo, sigtimedwait, signalfd), running traced code each
# time, while the tracer changes.  The program itself checks that no handler ran
# with SIGTRAP blocked, so the verdict does not depend on meeting a patch.
# Also threads started with pthread_attr_setsigmask_np, and a program started
# with SIGTRAP blocked.
for mode in sigsuspend ppoll pselect epoll_pwait epoll_pwait2 sigwaitinfo sigtimedwait signalfd \
	attr inherit; do
	LD_PRELOAD=$LIBUTRACE "$PROGS/wait_masks" $mode 1 > "$UT_TMP/wait.out" &
	waiter=$!
	i=0
	while [ $i -lt 30 ] && kill -0 $waiter 2>/dev/null; do
		echo function > "$T/current_tracer"; echo function_graph > "$T/current_tracer"
		echo nop > "$T/current_tracer"
		i=$((i + 1))
	done
	wait $waiter; rc=$?
	expect_match "$mode with SIGTRAP in its mask survives tracer switches" \
		"^0 handled [1-9][0-9]* trap-blocked 0\$" "$rc $(cat "$UT_TMP/wait.out")"
done

# 3c. A program started with standard output closed keeps it: the runtime's
# socket goes elsewhere.
(LD_PRELOAD=$LIBUTRACE "$PROGS/e2e_sigstorm" 0 empty >&-); rc=$?
expect_eq "the runtime's socket never takes descriptors 0-2" 0 "$rc"

# 4. SIGKILL in the middle of heavy tracing.
echo function > "$T/current_tracer"
echo 1 > "$T/options/record-tgid"
LD_PRELOAD=$LIBUTRACE "$P" -t 2 -l > /dev/null &
victim=$!
sleep 0.5
kill -KILL $victim; wait $victim 2>/dev/null
if timeout 10 cat "$T/trace" > "$UT_TMP/killed.trace"; then
	pass "trace is readable after a writer was killed"
else
	fail "trace is readable after a writer was killed" "cat timed out or failed"
fi
lines=$(grep -vc '^#' "$UT_TMP/killed.trace")
hdr=$(sed -n 's/^# entries-in-buffer\/entries-written: \([0-9]*\)\/.*/\1/p' "$UT_TMP/killed.trace")
expect_eq "header entries match the lines after SIGKILL" "$lines" "$hdr"
expect_match "the killed process's events are kept" "^ +e2e_calls-[0-9]+ +\\( *$victim\\) " "$(head -50 "$UT_TMP/killed.trace")"
expect_eq "per-CPU entries add up to the header" "$hdr" "$(stats_sum entries)"
echo 0 > "$T/options/record-tgid"
echo nop > "$T/current_tracer"

# 5. Overwrite off and on: exact accounting on one CPU.  One thread making N calls
# writes 2N + 2 events: outer and work each call, main and run once.
echo 8 > "$T/buffer_size_kb"
echo function > "$T/current_tracer"
echo nooverwrite > "$T/trace_options"
echo > "$T/trace"
taskset -c 0 env LD_PRELOAD="$LIBUTRACE" "$P" -n 20000 > /dev/null
e=$(stat_field 0 entries) d=$(stat_field 0 "dropped events") o=$(stat_field 0 overrun)
expect_eq "no-overwrite: entries + dropped = events written" 40002 $((e + d))
expect_eq "no-overwrite: nothing overrun" 0 "$o"
[ "$d" -gt 0 ] && pass "no-overwrite: a small buffer drops" || fail "no-overwrite: a small buffer drops" "dropped $d"
echo overwrite > "$T/trace_options"
echo > "$T/trace"
taskset -c 0 env LD_PRELOAD="$LIBUTRACE" "$P" -n 20000 > /dev/null
e=$(stat_field 0 entries) d=$(stat_field 0 "dropped events") o=$(stat_field 0 overrun)
expect_eq "overwrite: entries + overrun = events written" 40002 $((e + o))
expect_eq "overwrite: nothing dropped" 0 "$d"
w=$(sed -n 's/^# entries-in-buffer\/entries-written: [0-9]*\/\([0-9]*\) .*/\1/p' "$T/trace")
expect_eq "overwrite: header counts every event written" 40002 "$w"

# 6. trace_pipe after a loss starts with the loss.
first=$(timeout 5 sh -c 'read -r l < "$1"; echo "$l"' sh "$T/per_cpu/cpu0/trace_pipe")
expect_eq "trace_pipe reports the events lost" "CPU:0 [LOST $o EVENTS]" "$first"

# 7. Resizing while programs trace.
LD_PRELOAD=$LIBUTRACE "$P" -t 2 -l > /dev/null &
busy=$!
# its SIGTERM handler is in place (bit 15 of SigCgt) before it is asked to stop: on a
# loaded machine it may still be starting when the resizes are done
term_caught() {
	m=$(sed -n 's/^SigCgt:.*\(....\)$/\1/p' "/proc/$busy/status" 2>/dev/null)
	[ -n "$m" ] && [ $((0x$m & 0x4000)) -ne 0 ]
}
i=0
while [ $i -lt 1000 ] && ! term_caught; do sleep 0.02; i=$((i + 1)); done
ok=1
for s in 4 100 1000 8 1408; do
	echo $s > "$T/buffer_size_kb" || ok=0
done
kill -TERM $busy; wait $busy; rc=$?
[ $ok = 1 ] && [ $rc = 0 ] && pass "resizing while tracing" || fail "resizing while tracing" "ok=$ok rc=$rc"
expect_eq "size reads back after resizing" 1410 "$(cat "$T/buffer_size_kb")"
timeout 10 cat "$T/trace" > /dev/null && pass "trace readable after resizing" ||
	fail "trace readable after resizing"
echo nop > "$T/current_tracer"

# 8. Shrinking the buffer gives the memory back (blocks of utracefs's memfd).
area_kb() {
	for f in /proc/$UT_FS_PID/fd/*; do
		case "$(readlink "$f")" in /memfd:utrace*) echo $(($(stat -L -c '%b * %B' "$f") / 1024)); return ;; esac
	done
}
echo 20000 > "$T/buffer_size_kb"
echo function > "$T/current_tracer"
LD_PRELOAD=$LIBUTRACE "$P" -t 2 -n 400000 > /dev/null
big=$(area_kb)
echo 100 > "$T/buffer_size_kb"
small=$(area_kb)
[ "$big" -gt 20000 ] && [ "$small" -lt 2000 ] && pass "shrinking the buffer frees its memory" ||
	fail "shrinking the buffer frees its memory" "area used ${big} KB full, ${small} KB after the shrink"
echo nop > "$T/current_tracer"

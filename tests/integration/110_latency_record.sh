#!/bin/sh
# 110_latency_record.sh - latency tracers' recordings, as trace-cmd record makes them:
# for irqsoff, preemptoff, preemptirqsoff, wakeup and wakeup_rt it does not stream
# events but saves the text of the trace file at the end in a "latency" trace.dat,
# which trace-cmd report prints.  Here: such files from utrace's writer
# (tests/progs/tdwrite -L), v6 and v7, printed by `utrace report` byte for byte as by
# Debian's trace-cmd report; `utrace record -p irqsoff` when the mount has that tracer
# (skipped otherwise); `-p hwlat` and `-p wakeup_dl` stream as usual (trace-cmd does
# not count them as latency tracers); -N refuses a latency tracer, as trace-cmd does.
. "$(dirname "$0")/lib.sh"

if ! command -v trace-cmd >/dev/null 2>&1; then
	skip "latency recordings read by trace-cmd" "no trace-cmd (make deps installs it)"
	exit 0
fi
ut_mount
PROG=$PROGS/profile_prog

# A latency trace as the kernel's irqsoff tracer prints it (ftrace.rst's example).
cat >"$UT_TMP/lat.txt" <<'EOF'
# tracer: irqsoff
#
# irqsoff latency trace v1.1.5 on 4.0.0-rc4-test+
# --------------------------------------------------------------------
# latency: 259 us, #4/4, CPU#2 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:4)
#    -----------------
#    | task: ps-6143 (uid:0 nice:0 policy:0 rt_prio:0)
#    -----------------
#  => started at: __lock_task_sighand
#  => ended at:   _raw_spin_unlock_irqrestore
#
#
#                  _------=> CPU#            
#                 / _-----=> irqs-off        
#                | / _----=> need-resched    
#                || / _---=> hardirq/softirq 
#                ||| / _--=> preempt-depth   
#                |||| /     delay            
#  cmd     pid   ||||| time  |   caller      
#     \   /      |||||  \    |   /         
      ps-6143    2d...    0us!: trace_hardirqs_off <-__lock_task_sighand
      ps-6143    2d..1  259us+: trace_hardirqs_on <-_raw_spin_unlock_irqrestore
      ps-6143    2d..1  263us+: time_hardirqs_on <-_raw_spin_unlock_irqrestore
      ps-6143    2d..1  306us : <stack trace>
 => trace_hardirqs_on_caller
 => trace_hardirqs_on
EOF

# 1. The writer's latency files, printed as trace-cmd report prints them.
for v in 6 7; do
	if ! out=$("$PROGS/tdwrite" -V $v -L "$UT_TMP/lat.txt" -d "$T" -o "$UT_TMP/lat$v.dat" \
		- - - - 2>&1); then
		fail "latency file v$v: tdwrite -L" "$out"
		continue
	fi
	trace-cmd report "$UT_TMP/lat$v.dat" >"$UT_TMP/tc$v.txt" 2>/dev/null
	"$UTRACE" report "$UT_TMP/lat$v.dat" >"$UT_TMP/ut$v.txt" 2>&1
	{ echo "cpus=4"; cat "$UT_TMP/lat.txt"; echo; } >"$UT_TMP/want$v.txt"
	expect_eq "latency file v$v: trace-cmd report prints the CPU count and the text" "" \
		"$(cmp "$UT_TMP/want$v.txt" "$UT_TMP/tc$v.txt" 2>&1)"
	expect_eq "latency file v$v: utrace report prints it byte for byte as trace-cmd report" \
		"" "$(cmp "$UT_TMP/tc$v.txt" "$UT_TMP/ut$v.txt" 2>&1)"
done

# 2. -N: a latency tracer's trace is saved at the end, never sent (trace-cmd refuses too).
out=$("$UTRACE" record -N localhost:1 -p irqsoff -- "$PROG" 2>&1); rc=$?
expect_eq "record -N -p irqsoff: a usage error" 2 "$rc"
expect_match "record -N -p irqsoff says why" 'not with a latency tracer \(irqsoff\)' "$out"

# 3. utrace record -p irqsoff: a latency file, when the mount has the tracer.
if grep -qw irqsoff "$T/available_tracers"; then
	for v in 7 6; do
		# lat_prog: a thread blocks every signal for 3 ms, the maximum the file holds
		out=$(echo "i 3" | "$UTRACE" record -p irqsoff --file-version $v \
			-o "$UT_TMP/irq$v.dat" -- "$PROGS/lat_prog" -l 2>&1 >/dev/null); rc=$?
		expect_eq "record -p irqsoff v$v: status 0" 0 "$rc"
		trace-cmd report "$UT_TMP/irq$v.dat" >"$UT_TMP/irqtc$v.txt" 2>/dev/null
		"$UTRACE" report "$UT_TMP/irq$v.dat" >"$UT_TMP/irqut$v.txt" 2>&1
		expect_eq "record -p irqsoff v$v: trace-cmd report prints the trace text" \
			"# tracer: irqsoff" "$(sed -n 2p "$UT_TMP/irqtc$v.txt")"
		expect_match "record -p irqsoff v$v: in the latency format" \
			'^# irqsoff latency trace v1\.1\.5 on ' "$(cat "$UT_TMP/irqtc$v.txt")"
		expect_eq "record -p irqsoff v$v: utrace report prints it as trace-cmd report" "" \
			"$(cmp "$UT_TMP/irqtc$v.txt" "$UT_TMP/irqut$v.txt" 2>&1)"
	done
	expect_eq "record -p irqsoff puts the tracer back" nop "$(cat "$T/current_tracer")"
else
	skip "utrace record -p irqsoff" "available_tracers has no irqsoff: $(cat "$T/available_tracers")"
fi

# 4. hwlat and wakeup_dl are no latency tracers for trace-cmd: their events stream.
for tr in hwlat wakeup_dl; do
	if ! grep -qw $tr "$T/available_tracers"; then
		skip "utrace record -p $tr streams" "available_tracers has no $tr"
		continue
	fi
	out=$("$UTRACE" record -p $tr -o "$UT_TMP/$tr.dat" -- "$PROG" 2>&1 >/dev/null); rc=$?
	expect_eq "record -p $tr: status 0" 0 "$rc"
	trace-cmd report "$UT_TMP/$tr.dat" >"$UT_TMP/$tr.txt" 2>/dev/null
	expect_eq "record -p $tr: events, not the trace file's text" "0" \
		"$(grep -c '^# tracer:' "$UT_TMP/$tr.txt")"
done

ut_umount || fail "utracefs exited cleanly"

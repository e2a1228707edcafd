#!/bin/sh
# 92_latency.sh - control writes are not held up by processes that cannot answer.
# A write that reaches the processes (current_tracer, trace, buffer_size_kb) waits
# for their acknowledgements; a SIGSTOPped process is seen stopped and left behind
# at once, named once in error_log, and not waited for again until it answers; a
# process killed with -9 while the registry thread is busy elsewhere (its EOF not
# read yet) is seen gone, not waited for and not reported.  The verdicts are on
# what was reported, never on how long a write took.
. "$(dirname "$0")/lib.sh"

P=$PROGS/rt_calls
# every site packet keeps the registry thread busy this long, longer than an open
# waits for it (2 s): the kill -9 below happens while it cannot read the victim's EOF
export UTRACEFS_TEST_SITES_DELAY_MS=5000
ut_mount
unset UTRACEFS_TEST_SITES_DELAY_MS

# start_spin NAME: a traced program calling leaf() until killed; sets $spin once it runs
start_spin() {
	LD_PRELOAD=$LIBUTRACE "$P" spin > "$UT_TMP/$1.out" & # $! must be the program itself
	spin=$!
	i=0
	while [ ! -s "$UT_TMP/$1.out" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
}
# state PID: its state letter in /proc
state() { sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null; }
# wr VALUE FILE: the write must succeed
wr() { /bin/echo "$1" > "$T/$2" 2>>"$UT_TMP/wr.err" || echo "write '$1' > $2 failed" >> "$UT_TMP/wr.err"; }

# -- a stopped process ------------------------------------------------------------------
start_spin stopped
stopped=$spin
wr nop current_tracer # it answers this one
kill -STOP "$stopped"
i=0
while [ "$(state "$stopped")" != T ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
: > "$UT_TMP/wr.err"
for v in function nop function; do
	wr $v current_tracer
	wr "" trace
	wr 2000 buffer_size_kb
done
expect_eq "stopped process: every write completes" "" "$(cat "$UT_TMP/wr.err")"
log=$(cat "$T/error_log")
expect_match "stopped process: named in error_log as stopped" \
	"^\[ *[0-9]+\.[0-9]{6}\] utracefs: error: Process is stopped, change [0-9]+ applied without it$" \
	"$log"
expect_eq "stopped process: the Command line names it" "  Command: rt_calls-$stopped" \
	"$(printf '%s\n' "$log" | grep -m1 '^  Command:')"
expect_eq "stopped process: reported once, not waited for again" 1 \
	"$(printf '%s\n' "$log" | grep -c "^  Command: rt_calls-$stopped\$")"
expect_eq "stopped process: never waited out to the deadline" 0 \
	"$(grep -Ec "(rt_calls-$stopped: |process $stopped ).*did not acknowledge" "$UT_TMP/utracefs.log")"

# -- a process killed with -9 while the registry thread is busy ---------------------------
start_spin victim
victim=$spin
wr nop current_tracer
# two programs starting together: while the registry names the second one's sites,
# the first one runs already
LD_PRELOAD=$LIBUTRACE "$P" spin > "$UT_TMP/busy1.out" & b1=$!
LD_PRELOAD=$LIBUTRACE "$P" spin > "$UT_TMP/busy2.out" & b2=$!
i=0
while [ ! -s "$UT_TMP/busy1.out" ] && [ ! -s "$UT_TMP/busy2.out" ] && [ $i -lt 400 ]; do
	sleep 0.02; i=$((i + 1))
done
kill -KILL "$victim"
: > "$UT_TMP/wr.err"
wr function current_tracer
wr "" trace
wr 1408 buffer_size_kb
expect_eq "killed process: every write completes" "" "$(cat "$UT_TMP/wr.err")"
expect_eq "killed process: not reported as holding a write up" "" \
	"$(grep "rt_calls-$victim\|process $victim " "$UT_TMP/utracefs.log"; grep "rt_calls-$victim" "$T/error_log")"

# -- the stopped one answers again once continued -----------------------------------------
kill -CONT "$stopped"
wr nop current_tracer
wr function current_tracer
expect_eq "continued process: reported no more" 1 \
	"$(grep -c "^  Command: rt_calls-$stopped\$" "$T/error_log")"

kill -KILL "$stopped" "$b1" "$b2" 2>/dev/null
wait "$stopped" "$victim" "$b1" "$b2" 2>/dev/null
echo nop > "$T/current_tracer"
ut_umount || fail "utracefs exits cleanly"

#!/bin/sh
# 96_inst_probe.sh - function probes in instances (instances/NAME/set_ftrace_filter):
# each instance lists and removes its own, with its own counts; traceon/traceoff
# turn that instance's tracing on or off (counted across threads and processes),
# stacktrace writes into its buffer, snapshot swaps its snapshot, dump dumps the
# top level's buffer (as the kernel's ftrace_dump); the top level's probes and
# tracing go on as before; rmdir drops the instance's probes.  The traced program
# is tests/progs/probe_prog (tick(i) then after(i), N rounds, in threads or
# processes).  The top level's probes alone: 82_probe.sh.
. "$(dirname "$0")/lib.sh"

ut_mount
P=$PROGS/probe_prog
I=$T/instances
F=$T/set_ftrace_filter
LOG=$UT_TMP/utracefs.log # utracefs -f: its stderr is the console
ALL="#### all functions enabled ####"
# the lines of a filter file on one line
lines() { tr '\n' ' ' <"$1" | sed 's/ $//'; }
# how many times FUNC is in the function tracer's lines of trace file $2
hits() { grep -c ": $1 <-" "$2"; }
stacks() { grep -c '<stack trace>' "$1"; }
# settle VALUE CMD...: wait (up to 10 s) until CMD prints VALUE: what a process sent
# before it exited (an instance's tracing_on, a snapshot, a dump) may still be on
# its way to utracefs
settle() {
	v=$1; shift; i=0
	while [ $i -lt 500 ] && [ "$("$@")" != "$v" ]; do sleep 0.02; i=$((i + 1)); done
}
on_of() { cat "$1/tracing_on"; }
count_in() { grep -o 'count=.*' "$1" | tr '\n' ' ' | sed 's/ $//'; }

traced "$P" 1 # its functions are known from now on
mkdir "$I/a" "$I/b"
A=$I/a/set_ftrace_filter
B=$I/b/set_ftrace_filter

# ---- listing and removal, per instance -------------------------------------------------------
echo 'tick:traceoff:3' >"$A"
echo 'tick:traceoff' >"$F"
echo 'after:stacktrace' >>"$A"
expect_eq "an instance's probes in its own file, newest first" \
	"$ALL after:stacktrace:unlimited tick:traceoff:count=3" "$(lines "$A")"
expect_eq "the top's in the top's file" "$ALL tick:traceoff:unlimited" "$(lines "$F")"
expect_eq "another instance has none" "$ALL" "$(lines "$B")"
expect_write_err "removing in b a probe only a has: ENODEV" "No such device" \
	'!tick:traceoff:0' "$B"
echo 'tick:traceoff:3' >>"$B"
expect_write_err "the same probe twice in one instance: EINVAL" "Invalid argument" \
	'tick:traceoff:9' "$B"
expect_eq "... in another it is its own" "$ALL tick:traceoff:count=3" "$(lines "$B")"
echo '!tick:traceoff:0' >>"$B"
expect_eq "removed in b: a's stays" "$ALL after:stacktrace:unlimited tick:traceoff:count=3" \
	"$(lines "$A")"
echo '!tick:traceoff' >>"$F"
expect_eq "removed at the top: a's stays" "$ALL after:stacktrace:unlimited tick:traceoff:count=3" \
	"$(lines "$A")"
echo 'after' >"$A"
expect_eq "> replaces an instance's filter and keeps its probes" \
	"after after:stacktrace:unlimited tick:traceoff:count=3" "$(lines "$A")"
echo >"$A"
echo '!*:stacktrace !*:traceoff:0' >>"$A"
expect_eq "!*:CMD removes them all" "$ALL" "$(lines "$A")"

# ---- traceoff:N: that instance's tracing, counted across threads and processes ---------------
echo function >"$T/current_tracer"
echo function >"$I/a/current_tracer"
echo 'tick:traceoff:3' >"$A"
echo >"$T/trace"
echo >"$I/a/trace"
traced "$P" 5
settle 0 on_of "$I/a"
# (after, which no probe is on, is written from the fast path, which stops once
# utracefs has applied it: it may still be there once)
expect_eq "traceoff in a: a off, its first tick traced, then no tick" "0 1" \
	"$(on_of "$I/a") $(hits tick "$I/a/trace")"
expect_eq "... the top goes on: on, every tick and after" "1 5 5" \
	"$(on_of "$T") $(hits tick "$T/trace") $(hits after "$T/trace")"
expect_eq "... one taken off a's count" "count=2" "$(count_in "$A")"
echo 1 >"$I/a/tracing_on"
traced "$P" -t 4 50
settle 0 on_of "$I/a"
expect_eq "4 threads: one turned it off, the others found it off: one taken" "0 count=1" \
	"$(on_of "$I/a") $(count_in "$A")"
echo 1 >"$I/a/tracing_on"
traced "$P" -t 3 20
settle 0 on_of "$I/a"
expect_eq "a second process takes the last one" "0 count=0" "$(on_of "$I/a") $(count_in "$A")"
echo 1 >"$I/a/tracing_on"
echo >"$I/a/trace"
traced "$P" 5
expect_eq "used up: a records on" "1 5 5 count=0" \
	"$(on_of "$I/a") $(hits tick "$I/a/trace") $(hits after "$I/a/trace") $(count_in "$A")"
expect_eq "the top's file never listed it, its tracing stayed on" "$ALL 1" \
	"$(lines "$F") $(on_of "$T")"
echo '!tick:traceoff:0' >>"$A"
echo nop >"$T/current_tracer"

# ---- traceon: that instance's only ------------------------------------------------------------
echo 'tick:traceon' >"$A"
echo 0 >"$I/a/tracing_on"
echo 0 >"$I/b/tracing_on"
echo 0 >"$T/tracing_on"
traced "$P" 2
settle 1 on_of "$I/a"
expect_eq "traceon in a turns a on, not b, not the top" "1 0 0" \
	"$(on_of "$I/a") $(on_of "$I/b") $(on_of "$T")"
echo 1 >"$I/b/tracing_on"
echo 1 >"$T/tracing_on"
echo '!tick:traceon' >>"$A"
echo nop >"$I/a/current_tracer"

# ---- a running process hears of probes written to an instance, whatever its tracer ----------
mkfifo "$UT_TMP/l.in"
LD_PRELOAD=$LIBUTRACE "$P" -l <"$UT_TMP/l.in" >"$UT_TMP/l.out" 2>&1 &
L=$!
exec 8>"$UT_TMP/l.in"
wait_listed tick # its sites are named (only live processes' functions are listed)
echo 'tick:traceoff' >"$A" # returns once every process has it
ask "$UT_TMP/l.out" 8 1 >/dev/null
settle 0 on_of "$I/a"
expect_eq "a running process takes a probe written to an instance under nop" 0 "$(on_of "$I/a")"
echo '!tick:traceoff' >>"$A"
echo 1 >"$I/a/tracing_on"
ask "$UT_TMP/l.out" 8 1 >/dev/null
expect_eq "... and lets it go when it is removed" 1 "$(on_of "$I/a")"
exec 8>&-
wait $L

# ---- stacktrace: into that instance's buffer --------------------------------------------------
echo 'tick:stacktrace:5' >"$A"
echo >"$T/trace"
echo >"$I/a/trace"
traced "$P" -t 3 10
expect_eq "stacktrace:5 in a over 3 threads: 5 stacks in a, none at the top" "5 0 count=0" \
	"$(stacks "$I/a/trace") $(stacks "$T/trace") $(count_in "$A")"
expect_eq "... each from tick" 5 "$(grep -A1 '<stack trace>' "$I/a/trace" | grep -c '^ => tick$')"
echo '!tick:stacktrace:0' >>"$A"
echo 'tick:stacktrace:7' >>"$A"
echo >"$I/a/trace"
traced "$P" -f 2 10
expect_eq "stacktrace:7 in a over 2 processes: exactly 7" "7 0 count=0" \
	"$(stacks "$I/a/trace") $(stacks "$T/trace") $(count_in "$A")"
echo '!tick:stacktrace:0' >>"$A"
# as the kernel: a counted stacktrace waits for the top level's tracing to be on, an
# unlimited one writes whenever its instance records
echo 'tick:stacktrace:4 after:stacktrace' >>"$A"
echo 0 >"$T/tracing_on"
echo >"$I/a/trace"
traced "$P" 3
expect_eq "top off: a's counted stacktrace waits, its unlimited one writes" "3 count=4" \
	"$(stacks "$I/a/trace") $(count_in "$A")"
echo 1 >"$T/tracing_on"
echo 0 >"$I/a/tracing_on"
traced "$P" 3
expect_eq "a off: its counted one takes its count, writes nothing" "3 count=1" \
	"$(stacks "$I/a/trace") $(count_in "$A")"
echo 1 >"$I/a/tracing_on"
echo '!*:stacktrace:0 !*:stacktrace' >>"$A"

# ---- snapshot: that instance's ----------------------------------------------------------------
echo function >"$I/a/current_tracer"
echo 'after:snapshot:1' >"$A"
expect_eq "a snapshot probe allocates a's snapshot, not the top's" "0 1" \
	"$(grep -c 'Snapshot is freed' "$I/a/snapshot") $(grep -c 'Snapshot is freed' "$T/snapshot")"
echo >"$I/a/trace"
traced "$P" 1
snapped() { hits after "$I/a/snapshot"; }
settle 1 snapped
expect_eq "snapshot in a: a's buffer swapped into a's snapshot" "1 1 0 0" \
	"$(hits tick "$I/a/snapshot") $(hits after "$I/a/snapshot") $(hits tick "$I/a/trace") \
$(hits after "$I/a/trace")"
expect_eq "... the top's snapshot untouched, the count used" "1 count=0" \
	"$(grep -c 'Snapshot is freed' "$T/snapshot") $(count_in "$A")"
echo '!after:snapshot:0' >>"$A"
echo 0 >"$I/a/snapshot"
echo nop >"$I/a/current_tracer"

# ---- dump: the top level's buffer, as the kernel's ftrace_dump ------------------------------------
echo function >"$T/current_tracer"
echo 'after:dump' >"$A"
echo >"$T/trace"
dumps() { grep -c '^Dumping ftrace buffer:$' "$LOG"; }
before=$(dumps)
traced "$P" 2
settle $((before + 1)) dumps
expect_eq "dump in a: one dump, the top's tracing off, a's on" "1 0 1" \
	"$(($(dumps) - before)) $(on_of "$T") $(on_of "$I/a")"
expect_match "... of the top's events" ': tick <-run' "$(sed -n '/^Dumping ftrace buffer:$/,$p' "$LOG")"
echo '!after:dump' >>"$A"
echo 1 >"$T/tracing_on"
echo nop >"$T/current_tracer"

# ---- rmdir drops an instance's probes ---------------------------------------------------------
echo 'tick:traceoff' >"$F"
echo 'tick:traceon after:stacktrace:2' >"$A"
expect_eq "rmdir of an instance with probes" "" "$(rmdir "$I/a" 2>&1)"
mkdir "$I/a"
expect_eq "a new instance of that name has none" "$ALL" "$(lines "$A")"
expect_eq "the top's stay" "$ALL tick:traceoff:unlimited" "$(lines "$F")"
echo 0 >"$I/a/tracing_on"
echo >"$I/a/trace"
traced "$P" 2
settle 0 on_of "$T"
expect_eq "the gone probes act no more; the top's still does" "0 0 0" \
	"$(on_of "$I/a") $(stacks "$I/a/trace") $(on_of "$T")"
echo '!tick:traceoff' >>"$F"
echo 1 >"$T/tracing_on"
rmdir "$I/a" "$I/b"

ut_umount
expect_eq "utracefs exits cleanly" 0 "$?"

#!/bin/sh
# 103_profile.sh - the function profiler: function_profile_enabled and
# trace_stat/functionN through a real mount, with tests/progs/profile_prog
# (prof_sleep sleeps 10 ms, called 3 times; prof_leaf called 1000 times;
# prof_outer calls prof_spin, which burns 20 ms of the thread's CPU time), and
# `utrace profile`.  Times are bounded below only, except where they are CPU
# time (sleep-time 0): CPU time grows with work, never with waiting or load.
. "$(dirname "$0")/lib.sh"
PROG=$PROGS/profile_prog
HEADER='  Function                               Hit    Time            Avg             s^2
  --------                               ---    ----            ---             ---'

ut_mount

# stat FUNC: "HITS TIME_NS" of FUNC summed over every CPU's file (0 0 if absent)
stat() {
	cat "$T"/trace_stat/function[0-9]* | awk -v f="$1" '
		$1 == f { h += $2; t += $3 * 1000 }
		END { printf "%d %d\n", h, t }'
}
hits() { stat "$1" | cut -d' ' -f1; }
# rows: every CPU's rows, without the headers
rows() { cat "$T"/trace_stat/function[0-9]* | sed '/^  Function/d; /^  --------/d'; }
ns() { stat "$1" | cut -d' ' -f2; }
# profile_run: profiling from zero (0 then 1), one run of PROG
profile_run() {
	echo 0 >"$T/function_profile_enabled"
	echo 1 >"$T/function_profile_enabled"
	traced "$PROG" >/dev/null
}

# 1. The files and their format.
expect_eq "function_profile_enabled starts at 0" "0" "$(cat "$T/function_profile_enabled")"
ncpu=$(ls "$T/per_cpu" | wc -l)
expect_eq "trace_stat has function0..N-1, one per CPU" \
	"$(i=0; while [ $i -lt "$ncpu" ]; do echo function$i; i=$((i + 1)); done)" \
	"$(ls "$T/trace_stat" | grep '^function[0-9]*$' | sort -V)"
expect_eq "an empty table is the kernel's header alone, byte for byte" "$HEADER" \
	"$(cat "$T/trace_stat/function0")"
expect_write_err "function_profile_enabled: not a number is EINVAL" "Invalid argument" \
	abc "$T/function_profile_enabled"
echo 7 >"$T/function_profile_enabled"
expect_eq "function_profile_enabled: any nonzero value is 1" "1" \
	"$(cat "$T/function_profile_enabled")"

# 2. Counting with the nop tracer, sleep-time and graph-time on (the defaults).
expect_eq "the current tracer is nop" "nop" "$(cat "$T/current_tracer")"
profile_run
expect_eq "prof_sleep: 3 hits, prof_leaf: 1000 hits" "3 1000" \
	"$(hits prof_sleep) $(hits prof_leaf)"
t=$(ns prof_sleep)
expect_eq "sleep-time on: prof_sleep's time is at least 30 ms ($t ns)" 1 \
	"$([ "$t" -ge 30000000 ] && echo 1)"
outer=$(ns prof_outer) spin=$(ns prof_spin)
expect_eq "graph-time on: prof_outer's time holds prof_spin's ($outer >= $spin >= 20 ms)" 1 \
	"$([ "$outer" -ge "$spin" ] && [ "$spin" -ge 20000000 ] && echo 1)"
all=$(cat "$T"/trace_stat/function[0-9]*)
expect_match "a row is the kernel's: name, hits, time, avg and s^2 columns" \
	'^  prof_leaf                             1000    [0-9]+\.[0-9]+ us +[0-9]+\.[0-9]+ us +[0-9]+\.[0-9]+ us *$' \
	"$all"
sorted=$(for f in "$T"/trace_stat/function[0-9]*; do
	sed 1,2d "$f" | awk '{ print $3 }' | sort -c -g -r 2>&1 && echo ok; done | sort -u)
expect_eq "each file is sorted by time, largest first" "ok" "$sorted"

# 3. Stopping keeps the counts; enabling again starts from zero.
echo 0 >"$T/function_profile_enabled"
expect_eq "disabled: the counts stay" "3 1000" "$(hits prof_sleep) $(hits prof_leaf)"
traced "$PROG" >/dev/null
expect_eq "disabled: a run counts nothing" "3 1000" "$(hits prof_sleep) $(hits prof_leaf)"
echo 1 >"$T/function_profile_enabled"
expect_eq "enabled again: the tables are empty" "" "$(rows)"

# 4. sleep-time off: CPU time only, so 30 ms of sleep count almost nothing.
echo 0 >"$T/options/sleep-time"
profile_run
t=$(ns prof_sleep) spin=$(ns prof_spin)
expect_eq "sleep-time off: prof_sleep's time is under 5 ms ($t ns), prof_spin's 20 ms" 1 \
	"$([ "$(hits prof_sleep)" -eq 3 ] && [ "$t" -lt 5000000 ] && [ "$spin" -ge 20000000 ] &&
		echo 1)"
# graph-time off: prof_outer's own (CPU) time leaves prof_spin's out
echo 0 >"$T/options/graph-time"
profile_run
outer=$(ns prof_outer) spin=$(ns prof_spin)
expect_eq "graph-time off: prof_outer's own time is not its child's ($outer < 5 ms, $spin >= 20 ms)" \
	1 "$([ "$outer" -lt 5000000 ] && [ "$spin" -ge 20000000 ] && echo 1)"
echo 1 >"$T/options/graph-time"
echo 1 >"$T/options/sleep-time"

# 5. set_ftrace_filter: only the functions it selects are counted.
echo 'prof_leaf' >"$T/set_ftrace_filter"
profile_run
expect_eq "set_ftrace_filter prof_leaf: prof_leaf alone is counted" "prof_leaf 1000" \
	"$(rows | awk '{ h[$1] += $2 } END { for (f in h) print f, h[f] }')"
echo 'prof_leaf' >"$T/set_ftrace_notrace"
: >"$T/set_ftrace_filter"
profile_run
expect_eq "set_ftrace_notrace prof_leaf: everything but prof_leaf" "0 3" \
	"$(hits prof_leaf) $(hits prof_sleep)"
: >"$T/set_ftrace_notrace"

# 6. set_ftrace_pid: a process none of whose threads is listed counts nothing.
echo $$ >"$T/set_ftrace_pid"
profile_run
expect_eq "set_ftrace_pid without the program: nothing counted" "" "$(rows)"
echo >"$T/set_ftrace_pid"

# 7. Under function_graph or function the trace and the profile are both there.
echo function_graph >"$T/current_tracer"
profile_run
expect_eq "function_graph current: the profiler counts too" "3 1000" \
	"$(hits prof_sleep) $(hits prof_leaf)"
expect_match "function_graph current: the trace has its calls" 'prof_leaf\(\);' \
	"$(cat "$T/trace")"
echo function >"$T/current_tracer"
profile_run
expect_eq "function current: counts, and every call's function event" "3 1000 1000" \
	"$(hits prof_sleep) $(hits prof_leaf) $(grep -c ' prof_leaf <-main$' "$T/trace")"
echo nop >"$T/current_tracer"
echo 0 >"$T/function_profile_enabled"

# 8. utrace profile: the table summed over every CPU, the profiler off after.
out=$("$UTRACE" profile "$PROG" 2>&1)
expect_eq "utrace profile prints the kernel's header" "$HEADER" \
	"$(printf '%s\n' "$out" | grep -A1 '^  Function')"
expect_match "utrace profile: prof_sleep with 3 hits" '^  prof_sleep +3    ' "$out"
expect_match "utrace profile: prof_leaf with 1000 hits" '^  prof_leaf +1000    ' "$out"
expect_eq "utrace profile leaves the profiler off" "0" "$(cat "$T/function_profile_enabled")"
out=$("$UTRACE" profile -l prof_sleep -- "$PROG" 2>&1)
expect_eq "utrace profile -l prof_sleep: that function alone" "prof_sleep 3" \
	"$(printf '%s\n' "$out" | sed -n 's/^  \(prof_[a-z]*\) *\([0-9]*\) .*/\1 \2/p')"
expect_eq "utrace profile -l: the filter emptied again" "#### all functions enabled ####" \
	"$(cat "$T/set_ftrace_filter")"

ut_umount || fail "utracefs exited cleanly"

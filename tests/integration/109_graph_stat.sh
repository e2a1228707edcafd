#!/bin/sh
# 109_graph_stat.sh - trace_stat/function_graph[.COL]: the function-duration
# statistics of the live buffer (calls, total, self, average, shortest and
# longest time per function), with tests/progs/profile_prog (prof_sleep sleeps
# 10 ms, called 3 times; prof_leaf called 1000 times; prof_outer calls prof_spin,
# which burns 20 ms of CPU time).  Times are bounded below only.  The table is
# the one `utrace report --summary` prints for a recording of the same buffer.
. "$(dirname "$0")/lib.sh"
PROG=$PROGS/profile_prog
GRAPH_HEADER='   Total time    Self time     Avg time     Min time     Max time       Calls  Function
  ===========  ===========  ===========  ===========  ===========  ==========  ===================='

ut_mount

# row FILE FUNC: the row of FUNC in trace_stat/FILE as "CALLS TOTAL SELF AVG MIN MAX"
# (times in ns), empty when absent
row() {
	awk -v f="$2" '
		function ns(v, u) { return v * (u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1) }
		$NF == f && NF == 12 {
			printf "%d %.0f %.0f %.0f %.0f %.0f\n", $11, ns($1, $2), ns($3, $4),
				ns($5, $6), ns($7, $8), ns($9, $10)
		}' "$T/trace_stat/$1"
}
# names FILE: the functions of trace_stat/FILE in their order
names() { sed '/^#/d; 1,2d' "$T/trace_stat/$1" | awk '{ print $NF }' | tr '\n' ' '; }

# 1. The files: one per order, beside the profiler's functionN.
expect_eq "trace_stat holds function_graph and one file per other order" \
	"function_graph function_graph.avg function_graph.calls function_graph.max function_graph.min function_graph.name function_graph.self" \
	"$(ls "$T/trace_stat" | grep '^function_graph' | sort | tr '\n' ' ' | sed 's/ $//')"
expect_eq "an empty buffer: the header of a table of calls alone" \
	"       Calls  Function
  ==========  ====================" "$(cat "$T/trace_stat/function_graph")"

# 2. A function_graph run: the counts and times of each function.
echo function_graph >"$T/current_tracer"
traced "$PROG" >/dev/null
expect_eq "the header of the table, with graph data" "$GRAPH_HEADER" \
	"$(head -2 "$T/trace_stat/function_graph")"
set -- $(row function_graph prof_sleep)
expect_eq "prof_sleep: 3 calls, each at least 10 ms, 30 ms in all ($*)" 1 \
	"$([ "$1" = 3 ] && [ "$5" -ge 10000000 ] && [ "$2" -ge 30000000 ] && echo 1)"
expect_eq "prof_leaf: 1000 calls" 1000 "$(row function_graph prof_leaf | cut -d' ' -f1)"
set -- $(row function_graph prof_outer)
outer_total=$2 outer_self=$3
spin_total=$(row function_graph prof_spin | cut -d' ' -f2)
expect_eq "self time: prof_outer's is its total less prof_spin's ($outer_self = $outer_total - $spin_total)" \
	1 "$(awk -v s="$outer_self" -v t="$outer_total" -v c="$spin_total" \
		'BEGIN { d = t - c - s; print (d < 2000 && d > -2000 && c >= 20000000) }')"
expect_eq "sorted by total time: main first" "main" "$(names function_graph | cut -d' ' -f1)"
expect_eq "function_graph.calls: sorted by calls, prof_leaf first" "prof_leaf prof_sleep" \
	"$(names function_graph.calls | cut -d' ' -f1,2)"
expect_eq "function_graph.name: sorted by name" "main prof_leaf prof_outer prof_sleep prof_spin " \
	"$(names function_graph.name)"
expect_eq "function_graph.min: sorted by the shortest call, largest first" \
	"$(sed 1,2d "$T/trace_stat/function_graph.min" | awk '{ print $7 * ($8 == "s" ? 1e9 : $8 == "ms" ? 1e6 : $8 == "us" ? 1e3 : 1) }' | sort -g -r | tr '\n' ' ')" \
	"$(sed 1,2d "$T/trace_stat/function_graph.min" | awk '{ print $7 * ($8 == "s" ? 1e9 : $8 == "ms" ? 1e6 : $8 == "us" ? 1e3 : 1) }' | tr '\n' ' ')"

# 3. Reading consumes nothing: the same table again, and the trace still holds the calls.
first=$(cat "$T/trace_stat/function_graph")
expect_eq "a second read gives the same table" "$first" "$(cat "$T/trace_stat/function_graph")"
expect_eq "the trace still has prof_sleep's 3 calls" 3 "$(grep -c 'prof_sleep();' "$T/trace")"

# 4. The same numbers as `utrace report --summary` on a recording of this buffer.
"$UTRACE" extract -o "$UT_TMP/x.dat" >/dev/null 2>&1
expect_eq "utrace report --summary of the extracted buffer prints the same table" "$first" \
	"$("$UTRACE" report --summary - "$UT_TMP/x.dat")"

# 5. tracing_thresh: the short calls are taken out, and the file says so.
echo >"$T/trace"
echo 5000 >"$T/tracing_thresh"
traced "$PROG" >/dev/null
out=$(cat "$T/trace_stat/function_graph")
expect_match "tracing_thresh: a note says what the table misses" \
	'^# tracing_thresh 5000 us: only calls that lasted that long' "$out"
expect_eq "tracing_thresh: prof_sleep's 3 calls stay" 3 \
	"$(row function_graph prof_sleep | cut -d' ' -f1)"
expect_eq "tracing_thresh: prof_leaf's short calls are not in the table" "" \
	"$(row function_graph prof_leaf)"
echo 0 >"$T/tracing_thresh"
expect_eq "without tracing_thresh, no note" "" "$(grep '^#' "$T/trace_stat/function_graph")"

# 6. function events (no graph data): calls only.
echo function >"$T/current_tracer"
traced "$PROG" >/dev/null
expect_match "function tracer: the calls of each function" '^        1000  prof_leaf$' \
	"$(cat "$T/trace_stat/function_graph")"
echo nop >"$T/current_tracer"

ut_umount || fail "utracefs exited cleanly"

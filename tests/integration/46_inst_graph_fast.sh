#!/bin/sh
# 46_inst_graph_fast.sh - function_graph in one instance takes the assembly path
# (a site that instance alone takes jumps to its instance entry, runtime/stubs.c,
# and its frames land through the site's own stub), and gives the same trace as
# the top level's function_graph and as the C path of two graph instances: the
# same lines of each thread, but for the CPU and duration columns.  Then what
# happens to a frame of that path when its instance switches tracer or is
# removed while the frame is open (tests/progs/inst_prog: a main thread and a
# worker; its `entry`, `land` and `stack` commands show the path: where a site
# jumps, where a frame lands, and whether C ran below the call, which takes far
# more stack than the assembly).
. "$(dirname "$0")/lib.sh"

ut_mount
I=$T/instances
if ! grep -qw function_graph "$T/available_tracers"; then
	skip "function_graph in one instance, assembly path" "no function_graph in available_tracers"
	ut_umount
	exit 0
fi

start_driven inst_prog P 7
ip() { ask "$UT_TMP/P.out" 7 "$@"; }
PPID_=$(driven_pid P)
PW=$(driven_worker P)
wait_listed ig_top

# lines DIR TID: the graph lines of thread TID in DIR/trace (funcgraph-proc on), in
# their order, without the CPU and duration columns: "TASK-PID | function text"
lines() {
	grep -v '^#' "$1/trace" | awk -F'|' -v t="-$2" 'NF >= 3 && index($1, t " ") {
		sub(/^ *[0-9]+\) */, "", $1); print $1 "|" $NF }'
}
# both DIR: each thread's lines, the main thread's first
both() { lines "$1" "$PPID_"; echo ==; lines "$1" "$PW"; }
graph_on() { # DIR: function_graph on ig_* with funcgraph-proc
	echo 'ig_*' >"$1/set_ftrace_filter"
	echo 1 >"$1/options/funcgraph-proc"
	echo function_graph >"$1/current_tracer"
}
graph_off() { echo nop >"$1/current_tracer"; echo >"$1/set_ftrace_filter"; }
tree() { echo >"$1/trace"; ip tree >/dev/null; }

# the top level's function_graph: the reference
graph_on "$T"
tree "$T"
TOP=$(both "$T")
expect_eq "top function_graph: ig_top's tree in each thread, 9 lines each" "9 9" \
	"$(lines "$T" "$PPID_" | wc -l) $(lines "$T" "$PW" | wc -l)"
expect_eq "... through the sites' own stubs, in assembly" "ig_leaf graph|land stub|stack small" \
	"$(ip entry ig_leaf)|$(ip land)|$(ip stack)"
graph_off "$T"

# one instance: the assembly path, the same lines
mkdir "$I/g"
graph_on "$I/g"
tree "$I/g"
ONE=$(both "$I/g")
expect_eq "one function_graph instance: each site jumps to its instance entry" \
	"ig_leaf igraph|ig_top igraph" "$(ip entry ig_leaf)|$(ip entry ig_top)"
expect_eq "... its frames land through the site's own stub (not C's landing)" "land stub" \
	"$(ip land)"
expect_eq "... and its entry and return run no C (the stack they take)" "stack small" \
	"$(ip stack)"
expect_eq "... the top level's trace, line for line, but times" "$TOP" "$ONE"
expect_eq "... nothing in the top's" "0" "$(grep -v '^#' "$T/trace" | grep -c .)"

# two graph instances: the probe stub and C, the same lines in each
mkdir "$I/h"
graph_on "$I/h"
echo >"$I/h/trace"
tree "$I/g"
G=$(both "$I/g")
H=$(both "$I/h")
expect_eq "two function_graph instances on a site: the probe stub, C's landing, C" \
	"ig_leaf probe|land other|stack large" "$(ip entry ig_leaf)|$(ip land)|$(ip stack)"
expect_eq "... g's lines from C are those of the assembly path" "$ONE" "$G"
expect_eq "... and h's" "$ONE" "$H"
graph_off "$I/h"
rmdir "$I/h"
expect_eq "h gone: g alone again takes the assembly path" "ig_leaf igraph|stack small" \
	"$(ip entry ig_leaf)|$(ip stack)"

# a frame of the assembly path open while its instance switches tracer, then is removed
echo 'ig_hold ig_leaf' >"$I/g/set_ftrace_filter"
expect_eq "ig_hold: g's instance entry" "ig_hold igraph" "$(ip entry ig_hold)"
echo >"$I/g/trace"
ip hold >/dev/null
echo function >"$I/g/current_tracer"
echo function_graph >"$I/g/current_tracer"
ip release >/dev/null
expect_eq "switched away and back while ig_hold ran: its exit not in g, the new leaf is" \
	"0|1" "$(grep -c ig_hold "$I/g/trace")|$(grep -c 'ig_leaf();' "$I/g/trace")"
echo >"$I/g/trace"
ip hold >/dev/null
rmdir "$I/g"
expect_eq "rmdir while ig_hold's frame is open" "gone" "$([ -e "$I/g" ] || echo gone)"
mkdir "$I/g"
echo 'ig_hold ig_leaf' >"$I/g/set_ftrace_filter"
echo 1 >"$I/g/options/funcgraph-proc"
echo function_graph >"$I/g/current_tracer"
ip release >/dev/null
expect_eq "... the frame returns: nothing of it in the new g (same slot), which graphs" \
	"0|1" "$(grep -c ig_hold "$I/g/trace")|$(grep -c 'ig_leaf();' "$I/g/trace")"
graph_on "$I/g"
tree "$I/g"
G=$(both "$I/g")
expect_eq "... and the new g graphs ig_top as before, by the assembly path" \
	"$ONE|ig_leaf igraph" "$G|$(ip entry ig_leaf)"
graph_off "$I/g"
rmdir "$I/g"

# a vfork child shares its parent's shadow stack and runs untraced, on this path too
mkdir "$I/v"
echo function_graph >"$I/v/current_tracer"
for how in exec exit; do
	echo >"$I/v/trace"
	out=$(cd "$UT_TMP" && traced "$PROGS/vfork_calls" $how); rc=$?
	tr=$(grep -v '^#' "$I/v/trace")
	expect_eq "one instance: vfork child ($how) and parent end well" "0 parent ok" "$rc $out"
	expect_eq "... the child's calls are not traced, the parent's around vfork are" "0 2" \
		"$(printf '%s\n' "$tr" | grep -c 'vf_child_') $(printf '%s\n' "$tr" | grep -c 'vf_parent_work()')"
done
echo nop >"$I/v/current_tracer"
rmdir "$I/v"

exec 7>&-
i=0
while [ $i -lt 250 ] && kill -0 "$PPID_" 2>/dev/null; do sleep 0.02; i=$((i + 1)); done
expect_eq "inst_prog exits cleanly" "gone" "$(kill -0 "$PPID_" 2>/dev/null || echo gone)"
ut_umount || fail "utracefs exited with an error"

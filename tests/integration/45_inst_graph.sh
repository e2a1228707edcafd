#!/bin/sh
# 45_inst_graph.sh - function_graph in instances: in one run of one program
# (tests/progs/inst_prog: a main thread and a worker), instance a runs function on
# ip_foo*, instance b function_graph on ig_* ip_*, beside a top level that is nop,
# then function_graph with other filters; each instance's graph is compared with
# the expected call tree per thread (graph_tree.awk), and so are set_graph_function
# and set_graph_notrace (top-level files that apply to every graph, as the kernel's),
# b's pid list and tracing_on, a tracer switch and an rmdir while a frame is live,
# and the graph samples of 70_graph.sh that jump, throw and fork.
. "$(dirname "$0")/lib.sh"
TREE_AWK=$UT_TOP/tests/integration/graph_tree.awk

ut_mount
I=$T/instances
if ! grep -qw function_graph "$T/available_tracers"; then
	skip "function_graph in instances" "no function_graph in available_tracers"
	ut_umount
	exit 0
fi

# trees FILE [AWK_ARGS...]: the per-thread call trees of a graph trace, sorted, ";" after each
trees() {
	f=$1
	shift
	awk -f "$TREE_AWK" -v mode=graph "$@" "$f" | sort | tr '\n' ';'
}
# want TREE...: the same for the expected trees
want() { printf '%s\n' "$@" | sort | tr '\n' ';'; }
FULL='0 ig_top|1 ig_outer|2 ig_inner|3 ig_leaf|3 ig_leaf|2 ig_leaf|2 ip_foo_one|1 ip_baz'
lines() { grep -v '^#' "$1" | grep -c .; }

start_driven inst_prog P 7
ip() { ask "$UT_TMP/P.out" 7 "$@"; }
PPID_=$(driven_pid P)
PW=$(driven_worker P)
wait_listed ig_top

mkdir "$I/a" "$I/b"
expect_eq "an instance has no set_graph_function, set_graph_notrace, max_graph_depth" \
	"none" "$(ls "$I/b" | grep -E '^(set_graph_|max_graph_depth)' || echo none)"
echo 'ip_foo*' >"$I/a/set_ftrace_filter"
echo function >"$I/a/current_tracer"
echo 'ig_* ip_*' >"$I/b/set_ftrace_filter"
out=$( (echo function_graph >"$I/b/current_tracer") 2>&1 )
expect_eq "function_graph in an instance is taken" "function_graph" \
	"$out$(cat "$I/b/current_tracer")"
echo 1 >"$I/b/options/funcgraph-proc"

clear_all() { echo >"$T/trace"; echo >"$I/a/trace"; echo >"$I/b/trace"; }
round() { clear_all; ip tree >/dev/null; }

round
expect_eq "b (function_graph, ig_* ip_*): each thread's call tree" \
	"$(want "$FULL" "$FULL")" "$(trees "$I/b/trace")"
expect_eq "... every call closed, with its duration: 6 leaves, 6 entries, 6 exits" "10 6 6" \
	"$(grep -cE '[0-9]\.[0-9]{3} us +\| +i[gp]_[a-z_]+\(\);$' "$I/b/trace") $(
		grep -cE '\| +ig_[a-z]+\(\) \{$' "$I/b/trace") $(
		grep -cE '[0-9]\.[0-9]{3} us +\| +}$' "$I/b/trace")"
expect_eq "... with b's own options: funcgraph-proc names both threads" "yes" \
	"$(grep -q -- "-$PPID_ " "$I/b/trace" && grep -q -- "-$PW " "$I/b/trace" && echo yes)"
expect_eq "a (function, ip_foo*) at the same time: ip_foo_one in each thread" "2" \
	"$(grep -c ': ip_foo_one <-' "$I/a/trace")"
expect_eq "top nop: nothing in the top's trace" "0" "$(lines "$T/trace")"

# the top's function_graph with its own filter: shared sites get one frame for both
echo 'ig_inner ig_leaf' >"$T/set_ftrace_filter"
echo function_graph >"$T/current_tracer"
echo 1 >"$T/options/funcgraph-proc"
round
TOPT='0 ig_inner|1 ig_leaf|1 ig_leaf|0 ig_leaf'
expect_eq "top function_graph (ig_inner ig_leaf) beside b: the top's own tree" \
	"$(want "$TOPT" "$TOPT")" "$(trees "$T/trace")"
expect_eq "... and b's, depths its own" "$(want "$FULL" "$FULL")" "$(trees "$I/b/trace")"
expect_eq "... and a's" "2" "$(grep -c ': ip_foo_one <-' "$I/a/trace")"
echo nop >"$T/current_tracer"
echo >"$T/set_ftrace_filter"

# set_graph_function and set_graph_notrace are the top's files and hold for b too:
# graph_file FILE FUNC TREE WHAT: with FUNC in FILE, b's tree in each thread is TREE
graph_file() {
	echo "$2" >"$T/$1"
	round
	expect_eq "$1 $2: $4" "$(want "$3" "$3")" "$(trees "$I/b/trace")"
	echo >"$T/$1"
}
graph_file set_graph_function ig_outer '0 ig_outer|1 ig_inner|2 ig_leaf|2 ig_leaf|1 ig_leaf|1 ip_foo_one' \
	"b graphs ig_outer and what it calls"
graph_file set_graph_notrace ig_inner '0 ig_top|1 ig_outer|2 ig_leaf|2 ip_foo_one|1 ip_baz' \
	"b leaves it and what it calls out"

# b's pid list and tracing_on
echo "$PW" >"$I/b/set_ftrace_pid"
round
expect_eq "b's set_ftrace_pid (the worker): the worker's tree only" \
	"$(want "$FULL")|0" "$(trees "$I/b/trace")|$(grep -c -- "-$PPID_ " "$I/b/trace")"
expect_eq "... a still takes both threads" "2" "$(grep -c ': ip_foo_one <-' "$I/a/trace")"
echo >"$I/b/set_ftrace_pid"
echo 0 >"$I/b/tracing_on"
round
expect_eq "b's tracing_on 0: b records nothing, a goes on" "0 2" \
	"$(lines "$I/b/trace") $(grep -c ': ip_foo_one <-' "$I/a/trace")"
echo 1 >"$I/b/tracing_on"

# a tracer switch while a frame b took is live: its return writes nothing into b
clear_all
ip hold >/dev/null
echo function >"$I/b/current_tracer"
echo function_graph >"$I/b/current_tracer"
ip release >/dev/null
expect_eq "b switched away and back while ig_hold ran: no exit of the old frame" \
	"$(want '0 ig_leaf')|0" "$(trees "$I/b/trace")|$(grep -c ig_hold "$I/b/trace")"
round
expect_eq "... and b graphs as before" "$(want "$FULL" "$FULL")" "$(trees "$I/b/trace")"

# rmdir while a frame b took is live; a new b in the same slot is not written by it
clear_all
ip hold >/dev/null
rmdir "$I/b"
expect_eq "rmdir of an instance whose graph has a live frame" "gone" \
	"$([ -e "$I/b" ] || echo gone)"
mkdir "$I/b"
echo 'ig_* ip_*' >"$I/b/set_ftrace_filter"
echo function_graph >"$I/b/current_tracer"
echo 1 >"$I/b/options/funcgraph-proc"
ip release >/dev/null
expect_eq "the frame returns after its instance is gone: the new b has none of it" \
	"$(want '0 ig_leaf')|0" "$(trees "$I/b/trace")|$(grep -c ig_hold "$I/b/trace")"
round
expect_eq "... the program goes on, the new b graphs" "$(want "$FULL" "$FULL")" \
	"$(trees "$I/b/trace")"
echo nop >"$I/b/current_tracer"
echo nop >"$I/a/current_tracer"
exec 7>&-
i=0
while [ $i -lt 250 ] && kill -0 "$PPID_" 2>/dev/null; do sleep 0.02; i=$((i + 1)); done
expect_eq "inst_prog exits cleanly" "gone" "$(kill -0 "$PPID_" 2>/dev/null || echo gone)"

# longjmp, exceptions, fork, signals: the samples' trees, from an instance
mkdir "$I/g"
echo 8192 >"$I/g/buffer_size_kb"
echo function_graph >"$I/g/current_tracer"
echo 1 >"$I/g/options/funcgraph-proc"
for n in jmp exc fork signal; do
	tf=$UT_TOP/tests/progs/graph_$n.tree
	echo >"$I/g/trace"
	out=$(cd "$UT_TMP" && traced timeout 60 "$PROGS/gcc-O2/graph_$n" 2>&1)
	c=0
	grep -qx collapse "$tf" && c=1
	expect_eq "instance function_graph, graph_$n: runs" "graph_$n: ok" "$out"
	expect_eq "instance function_graph, graph_$n: the tree of graph_$n.tree" \
		"$(awk -f "$TREE_AWK" -v mode=expect "$tf" | sort | tr '\n' ';')" \
		"$(trees "$I/g/trace" -v collapse=$c \
			-v ignore="$(sed -n 's/^ignore //p' "$tf" | tr '\n' ' ')")"
	expect_eq "... and nothing in the top's trace" "0" "$(lines "$T/trace")"
done
echo nop >"$I/g/current_tracer"
rmdir "$I/a" "$I/b" "$I/g"
ut_umount || fail "utracefs exited with an error"

#!/bin/sh
# function_graph on real programs: each sample of tests/progs/graph_*.c and .cc, built
# by gcc and clang at -O0 and -O2, runs untraced, under the function tracer and
# under function_graph; the call tree it leaves (names and nesting, per thread,
# not times) must be the one in tests/progs/graph_NAME.tree.  Then `utrace record
# -p function_graph [-g FUNC]`, `utrace report` and `utrace show`.
#
# The trees are compared with graph_tree.awk, which is first checked against
# hand-written graph text (graph_sample_*.txt).  Without a function_graph tracer
# in available_tracers the graph checks are skipped.
. "$(dirname "$0")/lib.sh"
HERE=$UT_TOP/tests/integration
TREE_AWK=$HERE/graph_tree.awk
# UT_GRAPH_VARIANTS / UT_GRAPH_NAMES narrow the run down while debugging one case.
VARIANTS=${UT_GRAPH_VARIANTS:-gcc-O0 gcc-O2 clang-O0 clang-O2}
NAMES=${UT_GRAPH_NAMES:-nest threads signal jmp exc fork bt deep tail noret coro}

# trees MODE FILE [AWK_ARGS...]: the per-thread trees of FILE, sorted (the order of
# threads is not part of the expectation).
trees() {
	m=$1 f=$2
	shift 2
	awk -f "$TREE_AWK" -v mode="$m" "$@" "$f" | sort
}
# trace_trees MODE TRACE TREEFILE: the trees of a trace, read with the options the
# .tree file asks for (its "collapse" and "ignore NAME..." lines).
trace_trees() {
	c=0
	grep -qx 'collapse' "$3" && c=1
	trees "$1" "$2" -v collapse=$c -v ignore="$(sed -n 's/^ignore //p' "$3" | tr '\n' ' ')"
}

# 1. The tree extraction itself, on hand-written function_graph text.
expect_eq "graph text with funcgraph-proc: one tree per thread" \
	"$(printf '%s\n' '0 main|1 leaf|1 on_usr1|2 thrower|2 twice<int>|2 (anonymous namespace)::g|1 rec|2 rec|3 rec' \
		'0 worker|1 Guard::~Guard' '1 late' | sort)" \
	"$(trees graph "$HERE/graph_sample_proc.txt")"
expect_eq "graph text: recursion collapsed, an ignored function and its calls left out" \
	"$(printf '%s\n' '0 main|1 leaf|1 rec+' '0 worker|1 Guard::~Guard' '1 late' | sort)" \
	"$(trees graph "$HERE/graph_sample_proc.txt" -v collapse=1 -v ignore=on_usr1)"
expect_eq "graph text with abstime and task-switch banners" \
	"$(printf '%s\n' '0 a|1 b' '1 c' '0 d' | sort)" \
	"$(trees graph "$HERE/graph_sample_noproc.txt")"

# 2. Every sample behaves untraced, in every build.
for v in $VARIANTS; do
	for n in $NAMES; do
		p=$PROGS/$v/graph_$n
		out=$(timeout 60 "$p" 2>&1); rc=$?
		expect_eq "untraced $v graph_$n" "0 graph_$n: ok" "$rc $out"
	done
done

# Tail calls are really made at -O2 (else graph_tail would test nothing).
for v in gcc-O2 clang-O2; do
	d=$(objdump -d --no-show-raw-insn "$PROGS/$v/graph_tail" | awk '/<tail_a>:/,/^$/')
	expect_match "$v graph_tail: tail_a jumps to tail_b" 'jmp +[0-9a-f]+ <tail_b>' "$d"
done

ut_mount
echo 8192 > "$T/buffer_size_kb"

# no_loss: no event was overwritten or dropped since the buffer was cleared (the
# function_graph header has no entries-in-buffer line: the CPUs' stats tell).
no_loss() {
	lost=$(cat "$T"/per_cpu/cpu*/stats |
		awk '/^overrun:|^dropped events:/ { n += $NF } END { print n + 0 }')
	[ "$lost" = 0 ]
}

# run_traced TRACER VARIANT NAME: run one sample with the runtime under TRACER,
# leaving the trace in $UT_TMP/trace; checks its output.
run_traced() {
	echo > "$T/trace"
	out=$(cd "$UT_TMP" && LD_PRELOAD=$LIBUTRACE timeout 60 "$PROGS/$2/graph_$3" 2>&1); rc=$?
	cat "$T/trace" > "$UT_TMP/trace"
	if [ "$rc $out" != "0 graph_$3: ok" ]; then
		fail "$1 $2 graph_$3 runs" "exit $rc: $out"
		return 1
	fi
	if ! no_loss; then
		fail "$1 $2 graph_$3: no event lost" "$(grep -H . "$T"/per_cpu/cpu*/stats)"
		return 1
	fi
	return 0
}

# 3. Under the function tracer: the same functions are called in the same order per
# thread (this checks the programs and their .tree files, without depths).
echo function > "$T/current_tracer"
for v in $VARIANTS; do
	for n in $NAMES; do
		tf=$UT_TOP/tests/progs/graph_$n.tree
		run_traced function "$v" "$n" || continue
		expect_eq "function $v graph_$n: calls per thread as in graph_$n.tree" \
			"$(trees expect "$tf" -v names=1)" "$(trace_trees function "$UT_TMP/trace" "$tf")"
	done
done
echo nop > "$T/current_tracer"

if ! grep -qw function_graph "$T/available_tracers"; then
	skip "function_graph: the samples' call trees" "no function_graph in available_tracers"
	skip "utrace record -p function_graph" "no function_graph in available_tracers"
	exit 0
fi

# 4. Under function_graph: names and nesting, per thread.
echo function_graph > "$T/current_tracer"
echo 1 > "$T/options/funcgraph-proc"
for v in $VARIANTS; do
	for n in $NAMES; do
		tf=$UT_TOP/tests/progs/graph_$n.tree
		run_traced function_graph "$v" "$n" || continue
		got=$(trace_trees graph "$UT_TMP/trace" "$tf")
		if [ "$got" = "$(trees expect "$tf")" ]; then
			pass "function_graph $v graph_$n: the tree of graph_$n.tree"
		else
			fail "function_graph $v graph_$n: the tree of graph_$n.tree" \
				"$(printf 'expected:\n%s\ngot:\n%s\ntrace:\n' "$(trees expect "$tf")" "$got"
				grep -v '^#' "$UT_TMP/trace" | head -60)"
		fi
		if [ "$n" = fork ]; then
			# the child's first event is fork_here's return: its own task, a name
			expect_eq "function_graph $v graph_fork: the child's exits are its own, named" \
				"" "$(grep -v '^#' "$UT_TMP/trace" | grep -E '<\.\.\.>|/\* 0x')"
			# (named or not: that depends on what the reader saw last on that CPU)
			child=$(sed -n 's/.* graph_f-\([0-9]*\) .*child_work.*/\1/p' "$UT_TMP/trace" |
				head -1)
			expect_match "function_graph $v graph_fork: the child's first line is an exit" \
				'\|  +}( /\* fork_here \*/)?$' \
				"$(grep -- "graph_f-$child " "$UT_TMP/trace" | grep -v '=>' | head -1)"
		fi
		if [ "$n" = deep ]; then
			# 3000 calls deep: the graph goes down to the shadow stack's limit.
			max=$(awk -f "$TREE_AWK" -v raw=1 "$UT_TMP/trace" |
				awk '$3 == "rec" && $2 > m { m = $2 } END { print m + 0 }')
			[ "$max" -ge 1000 ] && [ "$max" -le 1024 ] &&
				pass "function_graph $v graph_deep: recursion shown down to the limit" ||
				fail "function_graph $v graph_deep: recursion shown down to the limit" \
					"deepest rec() at depth $max"
		fi
	done
done

# 4a. A stack switch the runtime cannot see (libc's swapcontext called directly): the
# graph cannot go on; the runtime says so on utracefs's console (its stderr here),
# never on the program's stderr.
if [ -x "$PROGS/gcc-O2/graph_coro" ]; then
	: > "$UT_TMP/prog.err"
	out=$(cd "$UT_TMP" && LD_PRELOAD=$LIBUTRACE timeout 60 "$PROGS/gcc-O2/graph_coro" raw \
		2>"$UT_TMP/prog.err")
	expect_eq "function_graph, an unseen stack switch: the child stops (SIGABRT)" \
		"raw: signal 6" "$out"
	expect_eq "function_graph, an unseen stack switch: nothing on the program's stderr" \
		"" "$(cat "$UT_TMP/prog.err")"
	i=0
	until grep -q 'no shadow frame for return slot' "$UT_TMP/utracefs.log" || [ $i -ge 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	expect_match "function_graph, an unseen stack switch: the console says why" \
		"^utracefs: process [0-9]+, thread [0-9]+: function_graph: no shadow frame for return slot" \
		"$(cat "$UT_TMP/utracefs.log")"
fi

# 4b. set_graph_function F: only F's subtrees, from depth 0, through signals,
# longjmp, exceptions and tail calls (the fast path decides inside and outside F).
for pair in nest:outer signal:with_raise jmp:jmp_simple exc:run_simple tail:tail_a bt:bt1 \
	threads:run_threads; do
	n=${pair%%:*} f=${pair#*:}
	[ -x "$PROGS/gcc-O0/graph_$n" ] || continue
	echo "*$f*" > "$T/set_graph_function" # C++ names are mangled there
	for v in $VARIANTS; do
		tf=$UT_TOP/tests/progs/graph_$n.tree
		run_traced function_graph "$v" "$n" || continue
		want=$(trees expect "$tf" | awk -f "$HERE/graph_subtree.awk" -v f="$f" | sort)
		expect_eq "set_graph_function $f, $v graph_$n: $f's subtrees from depth 0" \
			"$want" "$(trace_trees graph "$UT_TMP/trace" "$tf")"
	done
done
echo > "$T/set_graph_function"
# ... and set_graph_notrace F: everything but F's subtrees
for pair in nest:inner signal:with_raise jmp:jmp_simple exc:run_simple tail:tail_a; do
	n=${pair%%:*} f=${pair#*:}
	[ -x "$PROGS/gcc-O0/graph_$n" ] || continue
	echo "*$f*" > "$T/set_graph_notrace"
	for v in $VARIANTS; do
		tf=$UT_TOP/tests/progs/graph_$n.tree
		run_traced function_graph "$v" "$n" || continue
		want=$(trees expect "$tf" | awk -f "$HERE/graph_subtree.awk" -v f="$f" -v cut=1 | sort)
		expect_eq "set_graph_notrace $f, $v graph_$n: all but $f's subtrees" \
			"$want" "$(trace_trees graph "$UT_TMP/trace" "$tf")"
	done
done
echo > "$T/set_graph_notrace"
echo 0 > "$T/options/funcgraph-proc"
echo nop > "$T/current_tracer"

# 5. The command line.  funcgraph-proc stays on through record (it only sets the
# tracer), so that the recording can be read per thread.
echo 1 > "$T/options/funcgraph-proc"
P=$PROGS/gcc-O2/graph_nest
rec=$UT_TMP/graph.txt
out=$("$UTRACE" record --text -p function_graph -o "$rec" -- "$P" 2>&1); rc=$?
expect_eq "record -p function_graph runs the program" "0" "$rc"
expect_eq "the recording has the function_graph header" "# tracer: function_graph" "$(head -1 "$rec")"
expect_eq "the recording holds graph_nest's tree" \
	"$(trees expect "$UT_TOP/tests/progs/graph_nest.tree")" "$(trees graph "$rec")"
expect_eq "report prints the graph unchanged" "$(cat "$rec")" "$("$UTRACE" report -i "$rec")"
expect_eq "record puts the tracer back to nop" nop "$(cat "$T/current_tracer")"

echo function_graph > "$T/current_tracer"
traced "$P" > /dev/null
expect_eq "show prints the live graph unchanged" "$(cat "$T/trace")" "$("$UTRACE" show)"
echo nop > "$T/current_tracer"

if [ -e "$T/set_graph_function" ]; then
	out=$("$UTRACE" record --text -p function_graph -g outer -o "$rec" -- "$P" 2>&1); rc=$?
	expect_eq "record -g outer runs the program" "0" "$rc"
	expect_eq "record -g outer: only outer's subtree, from depth 0" \
		"0 outer|1 inner|2 leaf|2 leaf|2 leaf|1 leaf" "$(trees graph "$rec")"
	expect_eq "record -g leaves set_graph_function empty again" "#### all functions enabled ####" \
		"$(cat "$T/set_graph_function")"
	out=$("$UTRACE" record --text -p function_graph -g no_such_function_xyz -o "$rec" -- "$P" 2>&1); rc=$?
	expect_eq "record -g with a function that does not exist: 1" 1 "$rc"
	expect_match "record -g names the function that matched nothing" "no_such_function_xyz" "$out"
else
	out=$("$UTRACE" record --text -p function_graph -g outer -o "$rec" -- "$P" 2>&1); rc=$?
	expect_eq "record -g without set_graph_function fails" 1 "$rc"
	expect_match "record -g says set_graph_function is missing" "set_graph_function" "$out"
fi
echo 0 > "$T/options/funcgraph-proc"

# A thread cancelled three traced calls deep: the C++ destructors of those frames
# run (cancellation unwinds through the swapped return addresses), and the
# cancelled functions' frames are closed at the thread's end.
echo function_graph > "$T/current_tracer"
echo > "$T/trace"
out=$(traced "$PROGS/cancel_raii"); rc=$?
expect_eq "function_graph: pthread_cancel runs the destructors above traced frames" \
	"0 destructors 3" "$rc $out"
expect_eq "function_graph: the cancelled thread's destructors are traced" 3 \
	"$(grep -c 'Guard::~Guard()' "$T/trace")"
echo nop > "$T/current_tracer"

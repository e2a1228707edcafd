#!/bin/sh
# 98_tracedat.sh - trace.dat files written by common/tracedat.c (through tests/progs/tdwrite)
# from a real mount, read by Debian's trace-cmd: examples/hello traced with function and
# with function_graph, the pages read from per_cpu/cpuN/trace_pipe_raw with dd, a file of
# version 6 and one of version 7 made with the mount as the tracing tree.  `trace-cmd
# report -R` must give, per CPU, as many events of each kind as the mount's `trace` text
# shows, with the same tasks; `trace-cmd dump --summary` must see the version, the clock,
# the CPUs and every section.  Function names are not compared: they are hex until the
# mount serves a symbol table (then it is passed too).
. "$(dirname "$0")/lib.sh"

TDWRITE=$PROGS/tdwrite
HELLO=$UT_BUILD/examples/hello
if [ ! -x "$UTRACEFS" ] || [ ! -x "$TDWRITE" ] || [ ! -x "$HELLO" ]; then
	skip "98_tracedat" "not built in $UT_BUILD"
	exit 0
fi
if ! command -v trace-cmd >/dev/null 2>&1; then
	skip "98_tracedat" "no trace-cmd (Debian package trace-cmd)"
	exit 0
fi
ut_mount
NCPU=$(ls -d "$T"/per_cpu/cpu* | wc -l)

# "CPU KIND COUNT" lines, sorted, for the function tracer's text: a line with " <-" is a
# function event, any other (trace_printk) a print
text_function() {
	grep -v '^#' "$T/trace" | awk '{
		match($0, /\[[0-9]+\]/); cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0
		n[cpu " " ($0 ~ / <-/ ? "function" : "print")]++
	} END { for (k in n) print k, n[k] }' | sort
}
# the same for function_graph's text: "f();" is an entry and an exit, "f() {" an entry,
# "}" an exit, "/* text */" a print
text_graph() {
	grep -v '^#' "$T/trace" | awk '{
		cpu = $1 + 0; f = $0; sub(/^[^|]*\|[^|]*\|  */, "", f)
		if (f ~ /\(\);$/) { n[cpu " funcgraph_entry"]++; n[cpu " funcgraph_exit"]++ }
		else if (f ~ /\{$/) n[cpu " funcgraph_entry"]++
		else if (f ~ /^\}/) n[cpu " funcgraph_exit"]++
		else if (f ~ /^\/\*/) n[cpu " print"]++
	} END { for (k in n) print k, n[k] }' | sort
}
# the tasks (comm-pid) of the text: the first field, or the one after "CPU)" in a graph
text_tasks() {
	grep -v '^#' "$T/trace" | awk '{ print ($1 ~ /\)$/ ? $2 : $1) }' | sort -u
}
# the same two from trace-cmd report -R (one line per record): print, bprint and bputs
# are all prints
report_kinds() {
	sed -nE 's/^ *[^ ].*-[0-9]+ +\[([0-9]+)\] [0-9.]+: ([a-z_]+):.*/\1 \2/p' "$1" |
		sed -E 's/ (bprint|bputs)$/ print/' |
		awk '{ n[($1 + 0) " " $2]++ } END { for (k in n) print k, n[k] }' | sort
}
report_tasks() {
	sed -nE 's/^ *([^ ].*-[0-9]+) +\[[0-9]+\] .*/\1/p' "$1" | sort -u
}

# check TRACER KINDS_FUNCTION: trace hello, take the text's view, read the pages, write
# and read back both versions
check() {
	tracer=$1 kinds=$2
	echo "$tracer" >"$T/current_tracer"
	[ "$tracer" = function_graph ] && echo 1 >"$T/options/funcgraph-proc"
	traced "$HELLO" >/dev/null
	echo 0 >"$T/tracing_on"
	want=$($kinds)
	want_tasks=$(text_tasks)
	expect_match "$tracer: hello is in the trace text" "^hello-[0-9]+$" "$want_tasks"
	files=
	c=0
	while [ $c -lt "$NCPU" ]; do
		f=$UT_TMP/$tracer.cpu$c
		# non-blocking: an empty CPU gives EAGAIN at once instead of waiting for events
		dd if="$T/per_cpu/cpu$c/trace_pipe_raw" of="$f" bs=4096 iflag=nonblock 2>/dev/null
		files="$files $f"
		c=$((c + 1))
	done
	ksyms=
	[ -f "$T/kallsyms" ] && ksyms="-k $T/kallsyms"
	for v in 6 7; do
		dat=$UT_TMP/$tracer.v$v.dat
		# shellcheck disable=SC2086 # the CPU files are separate words
		if ! out=$("$TDWRITE" -V $v -s $ksyms -d "$T" -o "$dat" $files 2>&1); then
			fail "$tracer v$v: tdwrite" "$out"
			continue
		fi
		trace-cmd report -R -i "$dat" >"$UT_TMP/report" 2>"$UT_TMP/report.err"
		expect_eq "$tracer v$v: events per CPU and kind as in the trace text" "$want" \
			"$(report_kinds "$UT_TMP/report")"
		expect_eq "$tracer v$v: the same tasks" "$want_tasks" "$(report_tasks "$UT_TMP/report")"
		sum=$(trace-cmd dump --summary "$dat" 2>&1)
		expect_match "$tracer v$v: dump sees version $v" "^[[:space:]]+$v[[:space:]]+\[Version\]" "$sum"
		expect_match "$tracer v$v: dump sees the ftrace formats" '\[Ftrace format, 13 events\]' "$sum"
		if [ $v = 7 ]; then
			expect_match "$tracer v7: dump sees the buffer, its clock and CPUs" \
				"\[buffer \"\", \"local\" clock, 4096 page size, $NCPU cpus" "$sum"
			expect_match "$tracer v7: dump sees every section" '\[9 sections\]' "$sum"
		else
			expect_match "$tracer v6: dump sees the CPUs" "$NCPU \[CPUs with tracing data\]" "$sum"
		fi
	done
	echo 0 >"$T/options/funcgraph-proc"
	echo nop >"$T/current_tracer"
	echo 1 >"$T/tracing_on"
}

check function text_function
check function_graph text_graph

if ut_umount; then pass "utracefs exits cleanly"; else fail "utracefs exits cleanly"; fi

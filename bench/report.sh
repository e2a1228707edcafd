# bench/report.sh - writes docs/performance.md from the raw results under bench/out/.
#
# Sourced by bench/run.sh.  Every number in the report is computed here from runs.tsv
# and friends; the hand-written part (how the measurements are taken and why) is
# bench/method.md, copied in verbatim.

# Target of issue 2, in ns per call over uninstrumented.
TARGET_OFF_NS=0.2
TARGET_FUNCTION_NS=12
# Issue 3: function_graph, entry and exit.
TARGET_GRAPH_NS=25
# Issue 5: at least this many times less overhead than uftrace.
TARGET_UFTRACE_RATIO=3

calls_label() {
	case $1 in
	plain) echo "uninstrumented (-O2)" ;;
	fpe) echo "instrumented (-fpatchable-function-entry=5), no runtime" ;;
	ut-dormant) echo "instrumented, libutrace.so preloaded, no daemon (dormant)" ;;
	ut-nop) echo "utrace, utracefs mounted, tracer nop" ;;
	ut-stack) echo "utrace, stack tracer on (stack_tracer_enabled 1), tracer nop" ;;
	ut-function)
		if [ -n "${UT_BUFFER_KB:-}" ]; then
			echo "utrace, tracer function (overwrite $UT_OVERWRITE, buffer_size_kb $UT_BUFFER_KB)"
		else
			echo "utrace, tracer function"
		fi ;;
	ut-graph)
		if [ -n "${UT_BUFFER_KB:-}" ]; then
			echo "utrace, tracer function_graph (overwrite $UT_OVERWRITE, buffer_size_kb $UT_BUFFER_KB)"
		else
			echo "utrace, tracer function_graph"
		fi ;;
	ut-profile) echo "utrace, tracer nop, the function profiler on (function_profile_enabled)" ;;
	ut-graph-func) echo "utrace, tracer function_graph, set_graph_function $CALLS_GRAPH_FUNC (every call inside it)" ;;
	ut-graph-thresh) echo "utrace, tracer function_graph, tracing_thresh $CALLS_THRESH_US µs (every call removed)" ;;
	ut-filtered) echo "utrace, tracer function, bench_leaf filtered out (set_ftrace_filter $CALLS_FILTER)" ;;
	ut-inst1) echo "utrace, top nop, tracer function in 1 instance" ;;
	ut-inst[0-9]*) echo "utrace, top nop, tracer function in ${1#ut-inst} instances (each takes every call)" ;;
	ut-igraph1) echo "utrace, top nop, tracer function_graph in 1 instance" ;;
	ut-probe) echo "utrace, tracer nop, a function probe on bench_leaf that never acts ($CALLS_PROBE)" ;;
	uftrace-same) echo "uftrace record -P . (same binary as utrace; entries and exits)" ;;
	uftrace-entry) echo "uftrace record -P . -e (same binary; entries only)" ;;
	uftrace-best) echo "uftrace, fastest mode found ($UFT_BEST)" ;;
	lttng-off) echo "LTTng-UST tracepoint in bench_leaf, no session (disabled)" ;;
	lttng) echo "LTTng-UST tracepoint per call, event enabled (discard mode, trace on tmpfs)" ;;
	esac
}

# round_diffs COLUMN: "config difference" for every run, the difference of its COLUMN of
# runs.tsv with that of the uninstrumented run of the same round.
round_diffs() {
	awk -v k="$1" 'NR == FNR { if ($1 == "plain") base[$2] = $k; next }
		($2 in base) && $k != "" { printf "%s %.3f\n", $1, $k - base[$2] }' \
		"$CALLS_OUT/runs.tsv" "$CALLS_OUT/runs.tsv"
}

# calls_summary: "config n min median max d_median d_q1 d_q3 p_median p_q1 p_q3" for each
# measured configuration.  d_* are over the per-round differences of ns per call with the
# uninstrumented run of the same round (the runs alternate, so each pair ran close in
# time); p_* over the per-round differences of the paired figure (calls -p: overhead over
# an uninstrumented twin in the same process, minus what the uninstrumented build measures
# the same way, which is the placement bias of the two functions).
calls_summary() {
	awk '{ print $1, $3 }' "$CALLS_OUT/runs.tsv" | stats_by_key > "$CALLS_OUT/stats.tsv"
	round_diffs 3 | stats_by_key > "$CALLS_OUT/diffs.tsv"
	round_diffs 5 | stats_by_key > "$CALLS_OUT/pdiffs.tsv"
	awk 'FILENAME == ARGV[1] { d[$1] = $4 " " $6 " " $7; next }
		FILENAME == ARGV[2] { p[$1] = $4 " " $6 " " $7; next }
		{ print $1, $2, $3, $4, $5, ($1 in d) ? d[$1] : "- - -", ($1 in p) ? p[$1] : "- - -" }' \
		"$CALLS_OUT/diffs.tsv" "$CALLS_OUT/pdiffs.tsv" "$CALLS_OUT/stats.tsv" \
		> "$CALLS_OUT/summary.tsv"
}

# field CONFIG COLUMN: one column of summary.tsv (empty when the config did not run).
field() { awk -v c="$1" -v k="$2" '$1 == c { print $k }' "$CALLS_OUT/summary.tsv"; }

# verdict MEDIAN Q1 Q3 LIMIT: "met" when the median is under LIMIT; says so when the
# interquartile range of the differences straddles the limit, i.e. noise could decide.
verdict() {
	awk -v m="$1" -v a="$2" -v b="$3" -v l="$4" 'BEGIN {
		v = (m + 0 < l + 0) ? "met" : "**not met**"
		if (a + 0 < l + 0 && b + 0 >= l + 0) v = v " (the IQR straddles the target: within noise)"
		print v }'
}

calls_table() {
	base=$(field plain 4)
	bmin=$(field plain 3)
	echo "| configuration \`id\` | runs | min ns | median ns | max ns | overhead ns (IQR) |" \
		"min − min ns | paired overhead ns (IQR) | × uninstrumented |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for c in $CALLS_CONFIGS; do
		st=$(awk -v c="$c" '$1 == c { $1 = ""; print substr($0, 2) }' "$CALLS_OUT/rows.tsv")
		if [ "$st" != ok ]; then
			echo "| $(calls_label "$c") \`$c\` | 0 | not available: ${st#na } | | | | | | |"
			continue
		fi
		fr=$(awk -v c="$c" '$1 == c { print $2 }' "$CALLS_OUT/failed.tsv")
		[ -n "$fr" ] && FAIL_NOTES="${FAIL_NOTES:-}- \`$c\` printed no result in round $fr (it failed or passed its time limit) and was not run again.
"
		awk -v c="$c" -v l="$(calls_label "$c") \`$c\`" -v b="$base" -v bm="$bmin" '$1 == c {
			ov = ($6 == "-" || c == "plain") ? "—" : sprintf("%+.2f (%.2f…%.2f)", $6, $7, $8)
			mm = (c == "plain") ? "—" : sprintf("%+.2f", $3 - bm)
			po = ($9 == "-" || c == "plain") ? "—" : sprintf("%+.2f (%.2f…%.2f)", $9, $10, $11)
			printf "| %s | %d | %.2f | %.2f | %.2f | %s | %s | %s | %.2f |\n", l, $2, $3, $4,
				$5, ov, mm, po, $4 / b
			found = 1
		} END { if (!found) printf "| %s | 0 | every run failed | | | | | | |\n", l }' \
			"$CALLS_OUT/summary.tsv"
	done
}

# targets_table: issue 2's targets (and issue 5's uftrace ratio) against what ran.  The
# verdict is on the paired overhead (columns 9-11 of summary.tsv; see calls_summary and
# bench/method.md); the overhead between separate runs (columns 6-8) is shown beside it.
targets_table() {
	echo "| target | configuration | paired overhead (median, IQR) |" \
		"separate runs (median, IQR) | verdict |"
	echo "| --- | --- | ---: | ---: | --- |"
	for c in fpe ut-dormant ut-nop ut-filtered ut-function ut-graph; do
		lim=$TARGET_OFF_NS
		[ "$c" = ut-function ] && lim=$TARGET_FUNCTION_NS
		[ "$c" = ut-graph ] && lim=$TARGET_GRAPH_NS
		d=$(field "$c" 6)
		pd=$(field "$c" 9)
		if [ -z "$pd" ] || [ "$pd" = - ]; then
			echo "| < $lim ns/call | $(calls_label "$c") | not measured | | unknown |"
			continue
		fi
		echo "| < $lim ns/call | $(calls_label "$c") |" \
			"$(printf '%+.2f ns (%.2f…%.2f)' "$pd" "$(field "$c" 10)" "$(field "$c" 11)") |" \
			"$(printf '%+.2f ns (%.2f…%.2f)' "$d" "$(field "$c" 7)" "$(field "$c" 8)") |" \
			"$(verdict "$pd" "$(field "$c" 10)" "$(field "$c" 11)" "$lim") |"
	done
	# uftrace against the utrace tracer that records the same thing.
	for pair in uftrace-entry:ut-function uftrace-best:ut-function uftrace-same:ut-graph; do
		u=${pair%%:*}
		t=${pair#*:}
		f=$(field "$t" 9)
		ud=$(field "$u" 9)
		if [ -n "$f" ] && [ -n "$ud" ] && [ "$f" != - ] && [ "$ud" != - ]; then
			ratio=$(awk -v u="$ud" -v f="$f" 'BEGIN { printf "%.1f", (f > 0) ? u / f : 0 }')
			sratio=$(awk -v u="$(field "$u" 6)" -v f="$(field "$t" 6)" \
				'BEGIN { printf "%.1f", (f > 0) ? u / f : 0 }')
			echo "| uftrace overhead ≥ ${TARGET_UFTRACE_RATIO}× utrace's (issue 5) |" \
				"$(calls_label "$u") / $t | ${ratio}× | ${sratio}× |" \
				"$(awk -v r="$ratio" -v t="$TARGET_UFTRACE_RATIO" \
				'BEGIN { print (r >= t) ? "met" : "**not met**" }') |"
		else
			echo "| uftrace overhead ≥ ${TARGET_UFTRACE_RATIO}× utrace's (issue 5) |" \
				"$(calls_label "$u") / $t | not measured | | unknown |"
		fi
	done
}

uftrace_modes_table() {
	[ -s "$CALLS_OUT/uftrace-modes.tsv" ] || { echo "uftrace did not run."; return; }
	echo "| mode | build | uftrace options | runs | median ns |"
	echo "| --- | --- | --- | ---: | ---: |"
	awk '{ print $1, $3 }' "$CALLS_OUT/uftrace-modes.tsv" | stats_by_key > "$CALLS_OUT/modes.tsv"
	uftrace_modes | while read -r mode ubin opts; do
		awk -v m="$mode" -v b="$ubin" -v o="$opts" -v best="$UFT_BEST" '$1 == m {
			printf "| %s%s | %s | `%s` | %d | %.2f |\n", m, (m == best) ? " (chosen)" : "",
				b, o, $2, $4 }' "$CALLS_OUT/modes.tsv"
	done
}

events_text() {
	[ -s "$CALLS_OUT/events.tsv" ] || return 0
	echo "Events that utracefs counted per run (\`entries + overrun\` of per_cpu/cpu*/stats as"
	echo "written, \`dropped events\` as lost); each run makes $BENCH_CALLS timed calls plus"
	echo "$((BENCH_CALLS / 100)) of warm-up, and a few thousand more in start-up code and in"
	echo "the program's own helpers (the paired loop, sorting its figures):"
	echo
	for c in $CALLS_CONFIGS; do
		awk -v c="$c" '$1 == c {
			n++; if (n == 1 || $3 < wmin) wmin = $3; if ($3 > wmax) wmax = $3
			if (n == 1 || $4 < lmin) lmin = $4; if ($4 > lmax) lmax = $4 }
			END { if (n) printf "- %s: %d runs, written %d…%d, lost %d…%d\n",
				c, n, wmin, wmax, lmin, lmax }' "$CALLS_OUT/events.tsv"
	done
	echo
}

# lttng_text: what the LTTng rows did, and what utrace has to compare with them.
lttng_text() {
	echo "LTTng-UST: ${LTTNG_WHY:-not run}.  The tracepoint (bench/micro/calls_tp.h) records"
	echo "two 64-bit integers per call, the function's and its caller's addresses: the payload"
	echo "of a utrace function event.  **utrace has no user-defined event of the same payload"
	echo "yet** (its events/ directory holds only the ftrace formats; a program can write"
	echo "text with utrace_printk, which is not the same thing), so the nearest utrace row is"
	echo "the function tracer's, which records those two addresses for every call by itself."
	lo=$(field lttng 9)
	fo=$(field ut-function 9)
	if [ -n "$lo" ] && [ "$lo" != - ] && [ -n "$fo" ] && [ "$fo" != - ]; then
		echo
		awk -v l="$lo" -v f="$fo" 'BEGIN { printf "Paired overhead per call (medians): an enabled LTTng-UST tracepoint %+.2f ns, utrace'"'"'s function tracer %+.2f ns%s.\n",
			l, f, (f > 0) ? sprintf(" (LTTng / utrace: %.1f×)", l / f) : "" }'
	fi
	if [ -s "$CALLS_OUT/lttng.tsv" ]; then
		echo
		echo "Trace written by LTTng per run (the session's output directory on tmpfs) and"
		echo "events it discarded (\`lttng list\`, "Discarded events"):"
		echo
		awk '{ n++; if (n == 1 || $2 < bmin) bmin = $2; if ($2 > bmax) bmax = $2
			if (n == 1 || $3 < dmin) dmin = $3; if ($3 > dmax) dmax = $3 }
			END { printf "- lttng: %d runs, %.1f…%.1f MB written, discarded %d…%d\n",
				n, bmin / 1e6, bmax / 1e6, dmin, dmax }' "$CALLS_OUT/lttng.tsv"
	fi
	echo
}

cat_trace_text() {
	if [ ! -s "$CALLS_OUT/cat-trace.tsv" ]; then
		echo "Not measured: $CAT_WHY."
		return
	fi
	echo "\`cat trace\` of a full buffer (buffer_size_kb $BENCH_CAT_KB, filled by one run of"
	echo "the calls workload), three reads:"
	echo
	echo "| read | seconds | bytes | events | events/s | MB/s |"
	echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
	awk '$2 > 0 { printf "| %d | %.3f | %d | %d | %.0f | %.1f |\n", $1, $2, $3, $4, $4 / $2,
		$3 / $2 / 1e6 }' "$CALLS_OUT/cat-trace.tsv"
	echo
	awk '$2 > 0 { printf "x %.3f\n", $4 / $2 }' "$CALLS_OUT/cat-trace.tsv" | stats_by_key |
		awk '{ printf "Median %.0f events/s: the target of issue 5 (≥ 1,000,000) is %s.\n",
			$4, ($4 >= 1e6) ? "met" : "**not met**" }'
}

noise_text() {
	for c in $CALLS_CONFIGS; do
		awk -v c="$c" '$1 == c { printf "- %s: spread (max − min) / median = %.1f%%\n", c,
			($5 - $3) / $4 * 100 }' "$CALLS_OUT/summary.tsv"
	done
}

# calls_plot PNG: median with min-max bars per configuration, log scale; configurations
# that did not run keep their place, labelled n/a.
calls_plot() {
	command -v gnuplot >/dev/null || return 1
	[ -s "$CALLS_OUT/summary.tsv" ] || return 1
	awk 'NR == FNR { s[$1] = $3 " " $4 " " $5 " " sprintf("%.1f", $4) " " $5; next }
		{ print FNR - 1, "\"" $1 "\"", ($1 in s) ? s[$1] : "NaN NaN NaN n/a 1" }' \
		"$CALLS_OUT/summary.tsv" "$CALLS_OUT/rows.tsv" > "$CALLS_OUT/plot.dat"
	gnuplot -e "datafile='$CALLS_OUT/plot.dat'; outfile='$1'; calls='$BENCH_CALLS'" \
		"$BENCH_DIR/plot.gp" 2>"$CALLS_OUT/gnuplot.log"
}

# report_calls DOCDIR: the section of the calls workload (and its plot, in DOCDIR).
report_calls() {
	calls_summary
	plotted=
	calls_plot "$1/performance-calls.png" && plotted=1
	echo "## Workload: calls"
	echo
	echo "Ten million calls (per run) to \`bench_leaf()\`, a non-inlined function of two"
	echo "instructions (bench/micro/calls.c), timed with \`clock_gettime\` and reported in ns"
	echo "per call.  Two overheads are given for each configuration, both as the median over"
	echo "rounds with the interquartile range in brackets.  *Paired*: inside each run, blocks of"
	echo "$BENCH_BLOCK calls to \`bench_leaf()\` alternate with blocks of calls to an"
	echo "uninstrumented twin, and the run's figure is the median difference of the pairs; the"
	echo "uninstrumented build's own figure (the placement bias of the two functions) is then"
	echo "subtracted.  *Separate runs*: the difference of whole-loop times with the"
	echo "uninstrumented run of the same round.  The host's state drifts over seconds and moves"
	echo "whole runs by a quarter, so the targets are judged on the paired figure"
	echo "(bench/method.md says why).  \"min − min\" compares the best separate runs."
	echo
	echo "Targets (issue 2; the filtered-out row: issue 4; function_graph: issue 3; the uftrace ratios: issue 5):"
	echo
	targets_table
	echo
	FAIL_NOTES=
	calls_table
	echo
	[ -n "$FAIL_NOTES" ] && printf '%s\n' "$FAIL_NOTES"
	[ -n "$plotted" ] && echo "![ns per call, median with min–max](performance-calls.png)" && echo
	echo "utrace: $UT_RUNTIME_WHY; $UT_FUNC_WHY."
	echo
	events_text
	lttng_text
	echo "### uftrace's modes"
	echo
	echo "Three runs of each, alternated; the lowest median is the \"fastest mode\" row."
	echo "\`-e\` records function entries only, as utrace's function tracer does."
	echo
	uftrace_modes_table
	echo
	echo "### Reading: \`cat trace\` throughput"
	echo
	cat_trace_text
	echo
	echo "### Exact commands"
	echo
	echo "Builds: \`gcc $CALLS_CFLAGS [-fpatchable-function-entry=5 | -pg | -pg -mfentry]" \
		"-o bench/out/bin/calls-{plain,fpe,pg,fentry} bench/micro/calls.c -lpthread\`;" \
		"\`gcc $CALLS_CFLAGS -DBENCH_LTTNG -Ibench/micro -o bench/out/bin/calls-lttng" \
		"bench/micro/calls.c bench/micro/calls_tp.c -lpthread -llttng-ust -ldl\`."
	echo
	while read -r c cmd; do
		echo "- $c: \`$cmd\`"
	done < "$CALLS_OUT/commands.tsv"
	echo
	echo "### Noise"
	echo
	noise_text
	echo
}

# report_write DOC: the whole report; each workload in $BENCH_WORKLOADS adds its section
# through report_WORKLOAD.
report_write() {
	{
		echo "# Performance"
		echo
		echo "<!-- Written by bench/run.sh (make bench). Do not edit: change bench/ instead. -->"
		echo
		echo "Every figure below was produced by one run of \`make bench\` (\`sh bench/run.sh" \
			"$BUILD_ARG\`) on the machine described here, in ${BENCH_SECONDS} s, with" \
			"BENCH_REPEAT=$BENCH_REPEAT, BENCH_CALLS=$BENCH_CALLS, BENCH_CPU=$BENCH_CPU."
		echo "utrace under test: \`${UTRACEFS#"$TOP"/}\` and \`$LIBUTRACE_SHOWN\`."
		echo
		echo "## Machine"
		echo
		sed 's/^\([^:]*\): \(.*\)/- \1: \2/' "$BENCH_OUT/machine.txt"
		echo "- load average (1, 5, 15 min) before: $BENCH_LOAD_BEFORE; after: $BENCH_LOAD_AFTER"
		echo "- $BENCH_CPU_NOISE"
		echo
		for w in $BENCH_WORKLOADS; do
			"report_$w" "$(dirname "$1")"
		done
		cat "$BENCH_DIR/method.md"
	} > "$1"
}

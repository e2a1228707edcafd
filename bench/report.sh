# bench/report.sh - writes docs/performance.md from the raw results under bench/out/.
#
# Sourced by bench/run.sh.  Every number in the report is computed here from runs.tsv
# and friends; the hand-written part (how the measurements are taken and why) is
# bench/method.md, copied in verbatim.

# Target of issue 2, in ns per call over uninstrumented.
TARGET_OFF_NS=0.2
TARGET_FUNCTION_NS=12
# Issue 5: at least this many times less overhead than uftrace.
TARGET_UFTRACE_RATIO=3

calls_label() {
	case $1 in
	plain) echo "uninstrumented (-O2)" ;;
	fpe) echo "instrumented (-fpatchable-function-entry=5), no runtime" ;;
	ut-dormant) echo "instrumented, libutrace.so preloaded, no daemon (dormant)" ;;
	ut-nop) echo "utrace, utracefs mounted, tracer nop" ;;
	ut-function)
		if [ -n "${UT_BUFFER_KB:-}" ]; then
			echo "utrace, tracer function (overwrite $UT_OVERWRITE, buffer_size_kb $UT_BUFFER_KB)"
		else
			echo "utrace, tracer function"
		fi ;;
	uftrace-same) echo "uftrace record -P . (same binary as utrace)" ;;
	uftrace-best) echo "uftrace, fastest mode found ($UFT_BEST)" ;;
	esac
}

# calls_summary: "config n min median max d_median d_q1 d_q3" for each measured
# configuration, where d_* are over the per-round differences with the uninstrumented run
# of the same round (the runs alternate, so each pair saw the same machine state).
calls_summary() {
	awk '{ print $1, $3 }' "$CALLS_OUT/runs.tsv" | stats_by_key > "$CALLS_OUT/stats.tsv"
	awk 'NR == FNR { if ($1 == "plain") base[$2] = $3; next }
		($2 in base) { printf "%s %.3f\n", $1, $3 - base[$2] }' \
		"$CALLS_OUT/runs.tsv" "$CALLS_OUT/runs.tsv" | stats_by_key > "$CALLS_OUT/diffs.tsv"
	awk 'NR == FNR { d[$1] = $4 " " $6 " " $7; next }
		{ print $1, $2, $3, $4, $5, ($1 in d) ? d[$1] : "- - -" }' \
		"$CALLS_OUT/diffs.tsv" "$CALLS_OUT/stats.tsv" > "$CALLS_OUT/summary.tsv"
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
		"min − min ns | × uninstrumented |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for c in $CALLS_CONFIGS; do
		st=$(awk -v c="$c" '$1 == c { $1 = ""; print substr($0, 2) }' "$CALLS_OUT/rows.tsv")
		if [ "$st" != ok ]; then
			echo "| $(calls_label "$c") \`$c\` | 0 | not available: ${st#na } | | | | | |"
			continue
		fi
		fr=$(awk -v c="$c" '$1 == c { print $2 }' "$CALLS_OUT/failed.tsv")
		[ -n "$fr" ] && FAIL_NOTES="${FAIL_NOTES:-}- \`$c\` printed no result in round $fr (it failed or passed its time limit) and was not run again.
"
		awk -v c="$c" -v l="$(calls_label "$c") \`$c\`" -v b="$base" -v bm="$bmin" '$1 == c {
			ov = ($6 == "-" || c == "plain") ? "—" : sprintf("%+.2f (%.2f…%.2f)", $6, $7, $8)
			mm = (c == "plain") ? "—" : sprintf("%+.2f", $3 - bm)
			printf "| %s | %d | %.2f | %.2f | %.2f | %s | %s | %.2f |\n", l, $2, $3, $4, $5,
				ov, mm, $4 / b
			found = 1
		} END { if (!found) printf "| %s | 0 | every run failed | | | | | |\n", l }' \
			"$CALLS_OUT/summary.tsv"
	done
}

# targets_table: issue 2's targets (and issue 5's uftrace ratio) against what ran.
targets_table() {
	echo "| target | configuration | measured overhead (median) | verdict |"
	echo "| --- | --- | ---: | --- |"
	for c in fpe ut-dormant ut-nop ut-function; do
		lim=$TARGET_OFF_NS
		[ "$c" = ut-function ] && lim=$TARGET_FUNCTION_NS
		d=$(field "$c" 6)
		if [ -z "$d" ]; then
			echo "| < $lim ns/call | $(calls_label "$c") | not measured | unknown |"
		else
			echo "| < $lim ns/call | $(calls_label "$c") | $(printf '%+.2f' "$d") ns" \
				"(IQR $(printf '%.2f…%.2f' "$(field "$c" 7)" "$(field "$c" 8)")) | $(verdict "$d" "$(field "$c" 7)" \
				"$(field "$c" 8)" "$lim") |"
		fi
	done
	f=$(field ut-function 6)
	for u in uftrace-same uftrace-best; do
		ud=$(field "$u" 6)
		if [ -n "$f" ] && [ -n "$ud" ]; then
			ratio=$(awk -v u="$ud" -v f="$f" 'BEGIN { printf "%.1f", (f > 0) ? u / f : 0 }')
			echo "| uftrace overhead ≥ ${TARGET_UFTRACE_RATIO}× utrace's (issue 5) |" \
				"$(calls_label "$u") / function | ${ratio}× |" \
				"$(awk -v r="$ratio" -v t="$TARGET_UFTRACE_RATIO" \
				'BEGIN { print (r >= t) ? "met" : "**not met**" }') |"
		else
			echo "| uftrace overhead ≥ ${TARGET_UFTRACE_RATIO}× utrace's (issue 5) |" \
				"$(calls_label "$u") / function | not measured | unknown |"
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
	echo "$((BENCH_CALLS / 100)) of warm-up, and a few more in start-up code:"
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
	echo "instructions (bench/micro/calls.c), timed with \`clock_gettime\` around the loop"
	echo "and reported in ns per call.  Overhead is the median of the per-round differences"
	echo "with the uninstrumented run of the same round (interquartile range in brackets);"
	echo "\"min − min\" compares the best runs, which noise (only ever adding time) touches least."
	echo
	echo "Targets (issue 2; the uftrace ratio is issue 5's):"
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
		"-o bench/out/bin/calls-{plain,fpe,pg,fentry} bench/micro/calls.c -lpthread\`."
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

# bench/thresh.sh - workload "thresh": how much longer a trace one buffer holds with
# tracing_thresh (issue 3).
#
# Sourced by bench/run.sh.  bench/micro/thresh.c makes, per round, many short calls and
# one long call; it runs under function_graph with the default buffer, once without a
# threshold and once with tracing_thresh between the two durations.  From `cat trace`
# (option funcgraph-abstime on, so that every line carries its time) the harness counts
# the long calls still in the buffer and the time span the buffer covers.
#
# Results, under $BENCH_OUT/thresh/:
#   runs.tsv   thresh_us long_made long_kept lines span_s run_s
#   why.txt    why the workload could not run (absent when it ran)

THRESH_SRC=$BENCH_DIR/micro/thresh.c
THRESH_ROUNDS=${THRESH_ROUNDS:-200}
THRESH_SHORT=${THRESH_SHORT:-10000}
THRESH_LONG_US=${THRESH_LONG_US:-200}
THRESH_VALUES="0 100"

thresh_args() { echo "-r $THRESH_ROUNDS -s $THRESH_SHORT -l $THRESH_LONG_US -c $BENCH_CPU"; }

# thresh_run THRESH_US: one traced run; appends a line to runs.tsv.
thresh_run() {
	m=$BENCH_MNT
	tfs_write "$m/current_tracer" function_graph &&
		tfs_write "$m/options/funcgraph-abstime" 1 &&
		tfs_write "$m/tracing_thresh" "$1" || return 1
	tfs_write "$m/trace" ""
	t0=$(now_s)
	# shellcheck disable=SC2046
	out=$(UTRACE_TRACING=$m LD_PRELOAD=$LIBUTRACE to 120 "$BENCH_OUT/bin/thresh-fpe" \
		$(thresh_args))
	t1=$(now_s)
	made=$(printf '%s\n' "$out" | sed -n 's/.*long_calls=\([0-9]*\).*/\1/p')
	to 60 cat "$m/trace" > "$BENCH_TMP/thresh.trace"
	tfs_write "$m/tracing_thresh" 0
	tfs_write "$m/options/funcgraph-abstime" 0
	tfs_write "$m/current_tracer" nop
	# A long call is kept when its entry is there: "long_work();" or "long_work() {".
	kept=$(grep -c 'long_work()' "$BENCH_TMP/thresh.trace")
	# Lines of the CPU the program ran on (main() starts elsewhere, before it pins itself).
	awk -v t="$1" -v made="${made:-0}" -v kept="$kept" -v cpu="$BENCH_CPU)" -v t0="$t0" -v t1="$t1" '
		/^#/ { next }
		$1 ~ /^[0-9]+\.[0-9]+$/ && $3 == cpu { if (n == 0) first = $1; last = $1; n++ }
		END { printf "%s %s %s %d %.6f %.3f\n", t, made, kept, n, n ? last - first : 0, t1 - t0 }' \
		"$BENCH_TMP/thresh.trace" >> "$THRESH_OUT/runs.tsv"
}

workload_thresh() {
	THRESH_OUT=$BENCH_OUT/thresh
	rm -rf "$THRESH_OUT"
	mkdir -p "$THRESH_OUT" "$BENCH_OUT/bin"
	gcc $CALLS_CFLAGS -fpatchable-function-entry=5 -o "$BENCH_OUT/bin/thresh-fpe" \
		"$THRESH_SRC" || return 1
	: > "$THRESH_OUT/runs.tsv"
	if [ -z "${UT_GRAPH_OK:-}" ]; then
		gcc $CALLS_CFLAGS -fpatchable-function-entry=5 -o "$BENCH_OUT/bin/calls-fpe" \
			"$CALLS_SRC" -lpthread || return 1
	fi
	probe_mount "$THRESH_OUT" thresh function_graph || return 0
	THRESH_KB=$(to 10 cat "$BENCH_MNT/buffer_size_kb")
	for t in $THRESH_VALUES; do
		echo "bench: thresh $t us" >&2
		thresh_run "$t" || echo "thresh_run $t failed" >> "$THRESH_OUT/why.txt"
	done
	THRESH_KB=$(to 10 cat "$BENCH_MNT/buffer_size_kb")
	tfs_umount "$BENCH_MNT"
}

report_thresh() {
	echo "## Workload: thresh (function_graph with tracing_thresh)"
	echo
	echo "\`bench/out/bin/thresh-fpe $(thresh_args)\` (bench/micro/thresh.c): $THRESH_ROUNDS"
	echo "rounds of $THRESH_SHORT calls to \`short_work()\` (a few ns each) and one call to"
	echo "\`long_work()\` ($THRESH_LONG_US µs), traced by function_graph into one CPU's buffer"
	echo "(buffer_size_kb ${THRESH_KB:-?}) with the option funcgraph-abstime on; then"
	echo "\`cat trace\`.  \"Kept\" counts the long calls whose entry is still in the buffer;"
	echo "lines and \"covered\" (the time between the first and the last line) count the lines"
	echo "of CPU $BENCH_CPU, where the program ran."
	echo
	if [ -s "$THRESH_OUT/why.txt" ] && [ ! -s "$THRESH_OUT/runs.tsv" ]; then
		echo "Not measured: $(cat "$THRESH_OUT/why.txt")."
		echo
		return 0
	fi
	echo "| tracing_thresh | long calls made | long calls kept | lines in trace | time covered |" \
		"program ran |"
	echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
	awk '{ printf "| %s µs | %d | %d | %d | %.3f s | %.3f s |\n", ($1 == 0) ? "0 (off)" : $1,
		$2, $3, $4, $5, $6 }' "$THRESH_OUT/runs.tsv"
	echo
	[ -s "$THRESH_OUT/why.txt" ] && echo "Problems: $(cat "$THRESH_OUT/why.txt")." && echo
	awk 'NR == 1 { s0 = $5; k0 = $3 } NR == 2 && s0 > 0 && k0 > 0 {
		printf "With the threshold one buffer keeps %.0f× the long calls and covers %.0f× the time%s.\n",
			$3 / k0, $5 / s0, ($5 >= $6 * 0.9) ? " (the whole run)" : "" }' "$THRESH_OUT/runs.tsv"
	echo
	echo "Under a threshold a short call's entry is taken back at its return (the tail of the"
	echo "buffer is rewound); \"program ran\" shows what that costs the program."
	echo
}

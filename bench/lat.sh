# bench/lat.sh - workload "lat": what the latency tracers' wrappers cost (issue 15).
#
# Sourced by bench/run.sh.  bench/micro/locks.c times lock/unlock pairs of a mutex,
# block/restore pairs of pthread_sigmask and condition-variable round trips between two
# threads (two signal/wait pairs each), each block paired with the same pairs through
# libc's own functions (see its top comment), under:
#
#   lat-mutex-plain, lat-sigmask-plain,  no runtime: the method's noise
#   lat-cond-plain
#   lat-mutex-off, lat-sigmask-off,      the runtime, tracer nop: the wrappers' cost
#   lat-cond-off                         when no latency tracer is on
#   lat-mutex-on                         tracer preemptoff, function-trace off: every
#                                        pair is one section (its start event, the
#                                        compare at its end)
#   lat-sigmask-on                       tracer irqsoff, function-trace off: the same
#   lat-cond-on                          tracer wakeup, function-trace off: every wait
#                                        listed, every signal a wake (its entry and
#                                        stack), every return a compare
#
# In the "on" rows tracing_max_latency is set far above any pair first, so that what is
# measured is a section, not a new maximum (which writes a stack and waits for utracefs).
#
# Results, under $BENCH_OUT/lat/:
#   runs.tsv   config round ns_per_pair ref_ns paired_overhead
#   why.txt    why the workload could not run (absent when it ran)

LAT_SRC=$BENCH_DIR/micro/locks.c
LAT_PAIRS=${LAT_PAIRS:-1000000}
LAT_BLOCK=${LAT_BLOCK:-10000}
# a round trip between two threads costs microseconds: fewer of them
LAT_COND_PAIRS=${LAT_COND_PAIRS:-20000}
LAT_COND_BLOCK=${LAT_COND_BLOCK:-1000}
LAT_CONFIGS="lat-mutex-plain lat-mutex-off lat-mutex-on lat-sigmask-plain lat-sigmask-off lat-sigmask-on lat-cond-plain lat-cond-off lat-cond-on"

lat_mode() { case $1 in lat-mutex-*) echo mutex ;; lat-cond-*) echo cond ;; *) echo sigmask ;; esac; }
# the cond round trips are not pinned: the two threads run on two CPUs
lat_args() {
	case $1 in
	lat-cond-*) echo "-m cond -n $LAT_COND_PAIRS -p $LAT_COND_BLOCK" ;;
	*) echo "-m $(lat_mode "$1") -n $LAT_PAIRS -p $LAT_BLOCK -c $BENCH_CPU" ;;
	esac
}

# lat_run_one CONFIG ROUND: one run; appends a line to runs.tsv.
lat_run_one() {
	m=$BENCH_MNT
	bin=$BENCH_OUT/bin/locks
	case $1 in
	*-plain)
		# shellcheck disable=SC2046
		line=$(to 120 "$bin" $(lat_args "$1")) ;;
	*-off)
		# shellcheck disable=SC2046
		line=$(UTRACE_TRACING=$m LD_PRELOAD=$LIBUTRACE to 120 "$bin" $(lat_args "$1")) ;;
	*-on)
		case $(lat_mode "$1") in
		mutex) tracer=preemptoff ;;
		sigmask) tracer=irqsoff ;;
		cond) tracer=wakeup ;;
		esac
		tfs_write "$m/options/function-trace" 0
		tfs_write "$m/current_tracer" "$tracer"
		tfs_write "$m/tracing_max_latency" 1000000000
		# shellcheck disable=SC2046
		line=$(UTRACE_TRACING=$m LD_PRELOAD=$LIBUTRACE to 120 "$bin" $(lat_args "$1"))
		tfs_write "$m/current_tracer" nop
		tfs_write "$m/options/function-trace" 1 ;;
	esac
	printf '%s\n' "$line" | sed -n "s/.*ns_per_call=\([0-9.]*\) ref_ns=\([0-9.]*\) paired_overhead=\([0-9.-]*\).*/$1 $2 \1 \2 \3/p" \
		>> "$LAT_OUT/runs.tsv"
}

workload_lat() {
	LAT_OUT=$BENCH_OUT/lat
	rm -rf "$LAT_OUT"
	mkdir -p "$LAT_OUT" "$BENCH_OUT/bin"
	: > "$LAT_OUT/runs.tsv"
	gcc $CALLS_CFLAGS -o "$BENCH_OUT/bin/locks" "$LAT_SRC" -ldl -lpthread || return 1
	if ! tfs_mount "$BENCH_MNT" "$BENCH_OUT/utracefs-lat.log"; then
		echo "utracefs did not mount" > "$LAT_OUT/why.txt"
		return 0
	fi
	if ! to 10 grep -qw preemptoff "$BENCH_MNT/available_tracers"; then
		echo "available_tracers does not list the latency tracers" > "$LAT_OUT/why.txt"
		tfs_umount "$BENCH_MNT"
		return 0
	fi
	r=1
	while [ $r -le "$BENCH_REPEAT" ]; do
		echo "bench: lat round $r" >&2
		# shellcheck disable=SC2046
		for c in $(rotated $r $LAT_CONFIGS); do lat_run_one "$c" $r; done
		r=$((r + 1))
	done
	tfs_umount "$BENCH_MNT"
}

report_lat() {
	echo "## Workload: lat (the latency tracers' wrappers)"
	echo
	echo "\`bench/out/bin/locks -m mutex|sigmask $(lat_args lat-mutex-on | sed 's/-m mutex //')\`"
	echo "(bench/micro/locks.c): $LAT_PAIRS lock/unlock pairs of one mutex, or block/restore"
	echo "pairs of \`pthread_sigmask\`, in blocks of $LAT_BLOCK; \`$(lat_args lat-cond-on)\`:"
	echo "$LAT_COND_PAIRS condition-variable round trips between two threads (two signal/wait"
	echo "pairs each), in blocks of $LAT_COND_BLOCK.  Each block is paired with the same pairs"
	echo "through libc's own functions; $BENCH_REPEAT rounds.  \"Overhead\" is the median over"
	echo "the pairs of blocks of the difference, per pair (bench/method.md)."
	echo
	if [ -s "$LAT_OUT/why.txt" ]; then
		echo "Not measured: $(cat "$LAT_OUT/why.txt")."
		echo
		return 0
	fi
	echo "| row | what runs | ns per pair (median) | overhead per pair (median) |"
	echo "| --- | --- | ---: | ---: |"
	for c in $LAT_CONFIGS; do
		ns=$(awk -v c="$c" '$1 == c { print c, $3 }' "$LAT_OUT/runs.tsv" | stats_by_key |
			cut -d' ' -f4)
		ov=$(awk -v c="$c" '$1 == c { print c, $5 }' "$LAT_OUT/runs.tsv" | stats_by_key |
			cut -d' ' -f4)
		case $c in
		*-plain) what="no runtime" ;;
		*-off) what="libutrace.so, tracer nop" ;;
		lat-mutex-on) what="tracer preemptoff, function-trace 0" ;;
		lat-sigmask-on) what="tracer irqsoff, function-trace 0" ;;
		lat-cond-on) what="tracer wakeup, function-trace 0" ;;
		esac
		echo "| $c | $what | ${ns:-–} ns | ${ov:-–} ns |"
	done
	echo
}

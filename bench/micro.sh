# bench/micro.sh - workload "calls": ten million calls to one small function.
#
# Sourced by bench/run.sh.  Builds bench/micro/calls.c several ways, finds uftrace's
# fastest recording mode, then runs every configuration in rounds: each round runs each
# configuration once, in an order rotated by one every round, so slow drifts of the
# machine (other load, frequency, caches) fall on all configurations alike.
#
# Results, under $BENCH_OUT/calls/:
#   runs.tsv      config round ns_per_call entry_bytes paired_overhead
#   events.tsv    config round written lost      (utrace rows: events utracefs counted)
#   rows.tsv      config status text             (status: ok, or "na" and why)
#   commands.tsv  config command                  (what the report prints as "exact command")
#   uftrace-modes.tsv  mode run ns_per_call       (the search for uftrace's best mode)
#   lttng.tsv     round bytes discarded           (lttng row: trace size, events LTTng dropped)

CALLS_SRC=$BENCH_DIR/micro/calls.c
CALLS_CFLAGS="-O2 -g -Wall -Wextra"

# The configurations, in the order of the report's table (BENCH_CALLS_CONFIGS: some of them).
CALLS_CONFIGS_ALL="plain fpe ut-dormant ut-nop ut-filtered ut-probe ut-function ut-stack ut-inst1 ut-inst2
ut-inst4 ut-graph ut-profile ut-graph-func ut-graph-thresh ut-igraph1 uftrace-same uftrace-entry uftrace-best lttng-off
lttng"
CALLS_CONFIGS=${BENCH_CALLS_CONFIGS:-$CALLS_CONFIGS_ALL}
# The ut-filtered row: the function tracer on, with a filter that leaves bench_leaf out.
# A cached mod: command, so that it holds whether or not calls-fpe's functions are known
# to this utracefs yet; the program waits before main() for its selection.
CALLS_FILTER="main:mod:calls-fpe"
# The ut-probe row: tracer nop, a function probe on bench_leaf that never acts (a count of
# 0): what every call of a probed function pays to reach the probe's C code and come back.
# utrace_probe has run calls-fpe under the mount before, so bench_leaf is known.  A tenth
# of the calls: a probed call costs far more than a traced one.
CALLS_PROBE="bench_leaf:stacktrace:0"
# The ut-instN rows: the top level nop, N instances (instances/bench1 ..) with tracer
# function, each taking every call: one instance is the stub page's instance entry
# into the fast path, more go through C (runtime/route.c), one event per instance.
# The ut-igraphN rows: the same with tracer function_graph (C: graph.c, a shadow frame
# for all the instances that take the call).
inst_names() { ii=1; while [ $ii -le "$1" ]; do printf 'bench%d ' $ii; ii=$((ii + 1)); done; }
# inst_set N TRACER: make instances bench1..N and set their tracer (nop: remove them).
inst_set() {
	for inst_n in $(inst_names "$1"); do
		if [ "$2" = nop ]; then
			tfs_write "$BENCH_MNT/instances/$inst_n/current_tracer" nop
			rmdir "$BENCH_MNT/instances/$inst_n"
		else
			mkdir -p "$BENCH_MNT/instances/$inst_n" &&
				tfs_write "$BENCH_MNT/instances/$inst_n/current_tracer" "$2"
		fi
	done
}
# inst_tracer CONFIG: the instances' tracer of a ut-instN or ut-igraphN row.
inst_tracer() { case $1 in ut-igraph*) echo function_graph ;; *) echo function ;; esac; }
# inst_events N: written and lost events summed over instances bench1..N.
inst_events() {
	for inst_n in $(inst_names "$1"); do tfs_events "$BENCH_MNT/instances/$inst_n"; done |
		awk '{ w += $1; l += $2 } END { printf "%d %d\n", w, l }'
}
# The ut-profile row: tracer nop, the function profiler on (function_profile_enabled):
# every call is counted in the process (runtime/profile.c), no event is written.
# The ut-graph-func row: function_graph with set_graph_function main, under which every
# call of bench_leaf happens (known to utracefs since utrace_probe ran calls-fpe).
CALLS_GRAPH_FUNC=main
# tracing_thresh of the ut-graph-thresh row, in µs: far above a call of bench_leaf, so that
# every call's entry is written and then removed again at its return.
CALLS_THRESH_US=${BENCH_THRESH_US:-1000}

# uftrace's candidate modes: "name binary options".  Every one records every call of
# bench_leaf; -e (--estimate-return) records entries only, like utrace's function tracer.
UFT_COMMON="--no-libcall --no-event --no-sched"
uftrace_modes() {
	cat <<EOF
pg calls-pg $UFT_COMMON
pg-single calls-pg --libmcount-single $UFT_COMMON
pg-single-entry calls-pg --libmcount-single -e $UFT_COMMON
fentry-single-entry calls-fentry --libmcount-single -e $UFT_COMMON
fpe-single calls-fpe -P . --libmcount-single $UFT_COMMON
fpe-single-entry calls-fpe -P . --libmcount-single -e $UFT_COMMON
EOF
}

calls_build() {
	b=$BENCH_OUT/bin
	mkdir -p "$b"
	# shellcheck disable=SC2086
	gcc $CALLS_CFLAGS -o "$b/calls-plain" "$CALLS_SRC" -lpthread &&
		gcc $CALLS_CFLAGS -fpatchable-function-entry=5 -o "$b/calls-fpe" "$CALLS_SRC" -lpthread &&
		gcc $CALLS_CFLAGS -pg -o "$b/calls-pg" "$CALLS_SRC" -lpthread &&
		gcc $CALLS_CFLAGS -pg -mfentry -o "$b/calls-fentry" "$CALLS_SRC" -lpthread
}

# ns_of: the ns_per_call, entry and paired_overhead fields of the program's line, as
# "NS ENTRY PAIRED" (calls -p; see bench/micro/calls.c).
ns_of() {
	sed -n 's/.*ns_per_call=\([0-9.]*\) .*paired_overhead=\([0-9.-]*\) entry=\([0-9a-f]*\).*/\1 \3 \2/p'
}

# uftrace_run BINARY OPTIONS...: one recording into tmpfs (the fastest place uftrace can
# write to), deleted afterwards; prints the program's line.
uftrace_run() {
	ubin=$1
	shift
	rm -rf "$BENCH_UDATA"
	# shellcheck disable=SC2086
	to 300 uftrace record -d "$BENCH_UDATA" "$@" "$BENCH_OUT/bin/$ubin" $CALLS_ARGS \
		</dev/null 2>/dev/null
	rm -rf "$BENCH_UDATA"
}

# uftrace_pick_best: three runs of each candidate mode, alternated; the lowest median wins.
uftrace_pick_best() {
	: > "$CALLS_OUT/uftrace-modes.tsv"
	for r in 1 2 3; do
		uftrace_modes | while read -r mode ubin opts; do
			# shellcheck disable=SC2086
			set -- $(uftrace_run "$ubin" $opts | ns_of)
			[ -n "${1:-}" ] && echo "$mode $r $1" >> "$CALLS_OUT/uftrace-modes.tsv"
		done
	done
	UFT_BEST=$(awk '{ print $1, $3 }' "$CALLS_OUT/uftrace-modes.tsv" | stats_by_key |
		sort -k4,4g | head -1 | cut -d' ' -f1)
	UFT_BEST_BIN=$(uftrace_modes | awk -v m="$UFT_BEST" '$1 == m { print $2 }')
	UFT_BEST_OPTS=$(uftrace_modes | awk -v m="$UFT_BEST" '$1 == m { $1 = $2 = ""; print }')
}

# calls_command CONFIG: the command line of one configuration, as the report shows it.
calls_command() {
	p="bench/out/bin"
	case $1 in
	plain) echo "$p/calls-plain $CALLS_ARGS" ;;
	fpe) echo "$p/calls-fpe $CALLS_ARGS" ;;
	ut-dormant) echo "UTRACE_TRACING=/nonexistent LD_PRELOAD=$LIBUTRACE_SHOWN $p/calls-fpe $CALLS_ARGS" ;;
	ut-nop) echo "UTRACE_TRACING=\$MNT LD_PRELOAD=$LIBUTRACE_SHOWN $p/calls-fpe $CALLS_ARGS" \
		"(utracefs -f \$MNT running, current_tracer nop)" ;;
	ut-filtered) echo "echo $CALLS_FILTER > \$MNT/set_ftrace_filter;" \
		"echo function > \$MNT/current_tracer;" \
		"UTRACE_TRACING=\$MNT LD_PRELOAD=$LIBUTRACE_SHOWN $p/calls-fpe $CALLS_ARGS;" \
		"echo nop > \$MNT/current_tracer; echo > \$MNT/set_ftrace_filter" ;;
	ut-probe) echo "echo $CALLS_PROBE >> \$MNT/set_ftrace_filter;" \
		"UTRACE_TRACING=\$MNT LD_PRELOAD=$LIBUTRACE_SHOWN $p/calls-fpe $CALLS_PROBE_ARGS;" \
		"echo '!$CALLS_PROBE' >> \$MNT/set_ftrace_filter" ;;
	ut-function) echo "echo function > \$MNT/current_tracer;" \
		"UTRACE_TRACING=\$MNT LD_PRELOAD=$LIBUTRACE_SHOWN $p/calls-fpe $CALLS_ARGS;" \
		"echo nop > \$MNT/current_tracer" ;;
	ut-stack) echo "echo 0 > \$MNT/stack_max_size; echo 1 > \$MNT/stack_tracer_enabled;" \
		"UTRACE_TRACING=\$MNT LD_PRELOAD=$LIBUTRACE_SHOWN $p/calls-fpe $CALLS_ARGS;" \
		"echo 0 > \$MNT/stack_tracer_enabled (tracer nop: the stack tracer alone)" ;;
	ut-inst[0-9]* | ut-igraph[0-9]*) n=$(echo "$1" | tr -dc 0-9)
		echo "for i in \$(seq $n); do mkdir \$MNT/instances/bench\$i;" \
			"echo $(inst_tracer "$1") > \$MNT/instances/bench\$i/current_tracer; done;" \
			"UTRACE_TRACING=\$MNT LD_PRELOAD=$LIBUTRACE_SHOWN $p/calls-fpe $CALLS_ARGS;" \
			"for i in \$(seq $n); do rmdir \$MNT/instances/bench\$i; done" ;;
	ut-graph) echo "echo function_graph > \$MNT/current_tracer;" \
		"UTRACE_TRACING=\$MNT LD_PRELOAD=$LIBUTRACE_SHOWN $p/calls-fpe $CALLS_ARGS;" \
		"echo nop > \$MNT/current_tracer" ;;
	ut-profile) echo "echo 1 > \$MNT/function_profile_enabled;" \
		"UTRACE_TRACING=\$MNT LD_PRELOAD=$LIBUTRACE_SHOWN $p/calls-fpe $CALLS_ARGS;" \
		"echo 0 > \$MNT/function_profile_enabled" ;;
	ut-graph-func) echo "echo $CALLS_GRAPH_FUNC > \$MNT/set_graph_function;" \
		"echo function_graph > \$MNT/current_tracer;" \
		"UTRACE_TRACING=\$MNT LD_PRELOAD=$LIBUTRACE_SHOWN $p/calls-fpe $CALLS_ARGS;" \
		"echo nop > \$MNT/current_tracer; echo > \$MNT/set_graph_function" ;;
	ut-graph-thresh) echo "echo $CALLS_THRESH_US > \$MNT/tracing_thresh;" \
		"echo function_graph > \$MNT/current_tracer;" \
		"UTRACE_TRACING=\$MNT LD_PRELOAD=$LIBUTRACE_SHOWN $p/calls-fpe $CALLS_ARGS;" \
		"echo nop > \$MNT/current_tracer; echo 0 > \$MNT/tracing_thresh" ;;
	lttng-off) echo "$p/calls-lttng $CALLS_ARGS (no lttng-sessiond session)" ;;
	lttng) echo "LTTNG_HOME=\$TMP/lttng-home lttng-sessiond --no-kernel &" \
		"lttng create utrace-bench --output=/dev/shm/DIR;" \
		"lttng enable-event -u -s utrace-bench utrace_bench:leaf; lttng start utrace-bench;" \
		"$p/calls-lttng $CALLS_ARGS; lttng stop utrace-bench; lttng destroy utrace-bench" ;;
	uftrace-same) echo "uftrace record -d /dev/shm/DIR -P . $UFT_COMMON $p/calls-fpe $CALLS_ARGS" ;;
	uftrace-entry) echo "uftrace record -d /dev/shm/DIR -P . -e $UFT_COMMON $p/calls-fpe $CALLS_ARGS" ;;
	uftrace-best) echo "uftrace record -d /dev/shm/DIR" $UFT_BEST_OPTS "$p/$UFT_BEST_BIN $CALLS_ARGS" ;;
	esac
}

# calls_available CONFIG: "ok" or "na WHY".
calls_available() {
	case $1 in
	ut-dormant) [ "$UT_RUNTIME_OK" = 1 ] && echo ok || echo "na $UT_RUNTIME_WHY" ;;
	ut-nop | ut-function | ut-filtered | ut-probe | ut-stack | ut-inst[0-9]*)
		[ "$UT_FUNC_OK" = 1 ] && echo ok || echo "na $UT_FUNC_WHY" ;;
	ut-graph | ut-profile | ut-graph-func | ut-graph-thresh | ut-igraph[0-9]*)
		[ "$UT_GRAPH_OK" = 1 ] && echo ok || echo "na $UT_GRAPH_WHY" ;;
	lttng-off) [ -x "$BENCH_OUT/bin/calls-lttng" ] && echo ok ||
		echo "na the tracepoint build failed: $(head -1 "$BENCH_OUT/lttng-build.log")" ;;
	lttng) [ "$LTTNG_OK" = 1 ] && echo ok || echo "na $LTTNG_WHY" ;;
	uftrace-best) [ -n "$UFT_BEST_BIN" ] && echo ok || echo "na no uftrace mode recorded" ;;
	uftrace-*) command -v uftrace >/dev/null && echo ok || echo "na uftrace not installed" ;;
	*) echo ok ;;
	esac
}

# calls_run_one CONFIG ROUND: one run; appends to runs.tsv (and events.tsv).
calls_run_one() {
	b=$BENCH_OUT/bin
	before=
	case $1 in
	plain) line=$(to 60 "$b/calls-plain" $CALLS_ARGS) ;;
	fpe) line=$(to 60 "$b/calls-fpe" $CALLS_ARGS) ;;
	ut-dormant)
		line=$(UTRACE_TRACING=$BENCH_NOMOUNT LD_PRELOAD=$LIBUTRACE to 60 "$b/calls-fpe" \
			$CALLS_ARGS) ;;
	ut-nop | ut-function | ut-filtered | ut-stack | ut-graph | ut-graph-func | ut-graph-thresh)
		tfs_write "$BENCH_MNT/trace" ""
		before=$(tfs_events "$BENCH_MNT")
		if [ "$1" = ut-stack ]; then
			tfs_write "$BENCH_MNT/stack_max_size" 0
			tfs_write "$BENCH_MNT/stack_tracer_enabled" 1
		fi
		[ "$1" = ut-filtered ] && tfs_write "$BENCH_MNT/set_ftrace_filter" "$CALLS_FILTER"
		case $1 in ut-function | ut-filtered) tfs_write "$BENCH_MNT/current_tracer" function ;; esac
		[ "$1" = ut-graph-thresh ] && tfs_write "$BENCH_MNT/tracing_thresh" "$CALLS_THRESH_US"
		[ "$1" = ut-graph-func ] && tfs_write "$BENCH_MNT/set_graph_function" "$CALLS_GRAPH_FUNC"
		case $1 in ut-graph*) tfs_write "$BENCH_MNT/current_tracer" function_graph ;; esac
		line=$(UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 120 "$b/calls-fpe" \
			$CALLS_ARGS)
		after=$(tfs_events "$BENCH_MNT")
		tfs_write "$BENCH_MNT/current_tracer" nop
		[ "$1" = ut-stack ] && tfs_write "$BENCH_MNT/stack_tracer_enabled" 0
		[ "$1" = ut-filtered ] && tfs_write "$BENCH_MNT/set_ftrace_filter" ""
		[ "$1" = ut-graph-thresh ] && tfs_write "$BENCH_MNT/tracing_thresh" 0
		[ "$1" = ut-graph-func ] && tfs_write "$BENCH_MNT/set_graph_function" "" ;;
	ut-profile)
		tfs_write "$BENCH_MNT/function_profile_enabled" 1
		line=$(UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 120 "$b/calls-fpe" \
			$CALLS_ARGS)
		tfs_write "$BENCH_MNT/function_profile_enabled" 0 ;;
	ut-inst[0-9]* | ut-igraph[0-9]*)
		ninst=$(echo "$1" | tr -dc 0-9)
		inst_set "$ninst" "$(inst_tracer "$1")"
		before=$(inst_events "$ninst")
		line=$(UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 120 "$b/calls-fpe" \
			$CALLS_ARGS)
		after=$(inst_events "$ninst")
		inst_set "$ninst" nop ;;
	ut-probe)
		if tfs_write "$BENCH_MNT/set_ftrace_filter" "$CALLS_PROBE"; then
			line=$(UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 120 "$b/calls-fpe" \
				$CALLS_PROBE_ARGS)
			tfs_write "$BENCH_MNT/set_ftrace_filter" "!$CALLS_PROBE"
		else
			line= # bench_leaf unknown: no result, the report says it failed
		fi ;;
	lttng-off) line=$(to 60 "$b/calls-lttng" $CALLS_ARGS) ;;
	lttng)
		out=$(lttng_run "$CALLS_ARGS")
		line=$(printf '%s\n' "$out" | sed -n 2p)
		# lttng.tsv: round bytes discarded (only runs that printed their result).
		printf '%s\n' "$out" | sed -n 1p | awk -v r="$2" '$1 == 1 { print r, $2, $3 }' \
			>> "$CALLS_OUT/lttng.tsv" ;;
	uftrace-same) line=$(uftrace_run calls-fpe -P . $UFT_COMMON) ;;
	uftrace-entry) line=$(uftrace_run calls-fpe -P . -e $UFT_COMMON) ;;
	uftrace-best) line=$(uftrace_run "$UFT_BEST_BIN" $UFT_BEST_OPTS) ;;
	esac
	set -- "$1" "$2" $(printf '%s\n' "$line" | ns_of)
	if [ -z "${3:-}" ]; then
		# A configuration that failed or hung once is not run again: a broken tracer must
		# not cost its time limit in every round.  The report says it failed.
		echo "bench: $1 round $2 printed no result; not running $1 again" >&2
		echo "$1 $2" >> "$CALLS_OUT/failed.tsv"
		return 0
	fi
	echo "$1 $2 $3 $4 $5" >> "$CALLS_OUT/runs.tsv"
	if [ -n "$before" ]; then
		set -- "$1" "$2" $before $after
		echo "$1 $2 $(($5 - $3)) $(($6 - $4))" >> "$CALLS_OUT/events.tsv"
	fi
}

# cat_trace_throughput: fill a larger buffer with function events, then time `cat trace`
# three times (reading trace does not consume) into a tmpfs file, so that the disk is not
# what is measured.  Writes cat-trace.tsv: run seconds bytes events; CAT_WHY says why not.
cat_trace_throughput() {
	m=$BENCH_MNT
	f=$BENCH_UDATA.trace
	: > "$CALLS_OUT/cat-trace.tsv"
	old_kb=$(to 10 cat "$m/buffer_size_kb" | cut -d" " -f1)
	if ! tfs_write "$m/buffer_size_kb" "$BENCH_CAT_KB"; then
		CAT_WHY="echo $BENCH_CAT_KB > buffer_size_kb failed"
		return 0
	fi
	tfs_write "$m/trace" ""
	tfs_write "$m/current_tracer" function
	UTRACE_TRACING=$m LD_PRELOAD=$LIBUTRACE to 120 "$BENCH_OUT/bin/calls-fpe" $CALLS_ARGS \
		>/dev/null
	# The tracer stays on while reading (the traced program has exited, so nothing is
	# written): switching to nop must not be what empties the buffer.
	for r in 1 2 3; do
		t0=$(now_s)
		to 300 cat "$m/trace" > "$f"
		t1=$(now_s)
		bytes=$(wc -c < "$f")
		events=$(grep -vc '^#' "$f")
		echo "$r $t0 $t1 $bytes $events" |
			awk '{ printf "%s %.6f %s %s\n", $1, $3 - $2, $4, $5 }' >> "$CALLS_OUT/cat-trace.tsv"
	done
	rm -f "$f"
	tfs_write "$m/current_tracer" nop
	tfs_write "$m/trace" ""
	tfs_write "$m/buffer_size_kb" "$old_kb"
}

workload_calls() {
	CALLS_OUT=$BENCH_OUT/calls
	rm -rf "$CALLS_OUT"
	mkdir -p "$CALLS_OUT"
	CALLS_ARGS="-n $BENCH_CALLS -c $BENCH_CPU -p $BENCH_BLOCK"
	CALLS_PROBE_ARGS="-n $((BENCH_CALLS / 10)) -c $BENCH_CPU -p $((BENCH_BLOCK / 10))"
	calls_build || return 1
	utrace_probe "$BENCH_OUT/bin/calls-fpe"
	lttng_start
	echo "bench: lttng: $LTTNG_WHY" >&2
	echo "bench: runtime: $UT_RUNTIME_WHY" >&2
	echo "bench: utracefs: $UT_FUNC_WHY" >&2
	echo "bench: function_graph: $UT_GRAPH_WHY" >&2
	UFT_BEST=
	UFT_BEST_BIN=
	UFT_BEST_OPTS=
	if command -v uftrace >/dev/null && case $CALLS_CONFIGS in *uftrace*) true ;; *) false ;; esac
	then
		echo "bench: searching uftrace's fastest mode" >&2
		uftrace_pick_best
	fi
	configs=
	: > "$CALLS_OUT/rows.tsv"
	: > "$CALLS_OUT/commands.tsv"
	for c in $CALLS_CONFIGS; do
		a=$(calls_available "$c")
		echo "$c $a" >> "$CALLS_OUT/rows.tsv"
		echo "$c $(calls_command "$c")" >> "$CALLS_OUT/commands.tsv"
		[ "$a" = ok ] && configs="$configs $c"
	done
	mounted=
	CAT_WHY="it needs a working function tracer ($UT_FUNC_WHY)"
	if [ "$UT_FUNC_OK" = 1 ] || [ "$UT_GRAPH_OK" = 1 ]; then
		tfs_mount "$BENCH_MNT" "$BENCH_OUT/utracefs.log" && mounted=1
	fi
	: > "$CALLS_OUT/runs.tsv"
	: > "$CALLS_OUT/events.tsv"
	: > "$CALLS_OUT/failed.tsv"
	: > "$CALLS_OUT/lttng.tsv"
	r=1
	while [ $r -le "$BENCH_REPEAT" ]; do
		echo "bench: calls round $r/$BENCH_REPEAT" >&2
		# shellcheck disable=SC2086
		for c in $(rotated $r $configs); do
			grep -q "^$c " "$CALLS_OUT/failed.tsv" || calls_run_one "$c" "$r"
		done
		r=$((r + 1))
	done
	if [ -n "$mounted" ]; then
		# Read after the runs: before first use the kernel's format is "7 (expanded: 1408)".
		UT_BUFFER_KB=$(to 10 cat "$BENCH_MNT/buffer_size_kb")
		UT_OVERWRITE=$(to 10 cat "$BENCH_MNT/options/overwrite")
		echo "bench: timing cat trace" >&2
		cat_trace_throughput
		tfs_umount "$BENCH_MNT"
	fi
	lttng_stop
}

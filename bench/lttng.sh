# bench/lttng.sh - LTTng-UST as a peer of the calls workload.
#
# Sourced by bench/run.sh.  The harness starts its own lttng-sessiond (user-space domain
# only) as a background job, so that its pid is ours to stop, with LTTNG_HOME pointing
# into the run's private temporary directory (session files and the daemon's
# configuration stay there).  As root, lttng-sessiond also keeps its sockets in
# /var/run/lttng: a daemon already running there is somebody else's, and then the LTTng
# rows are not measured (nothing of theirs is touched).  Each measured run gets a session
# of its own that writes to tmpfs, destroyed afterwards, so ten million events per run do
# not pile up in memory.
#
# Sets LTTNG_OK (1/0) and LTTNG_WHY.  Results of each run of the "lttng" row go to
# $CALLS_OUT/lttng.tsv: round bytes_written discarded_events.

LTTNG_SESSION=utrace-bench
LTTNG_SESSIOND_PID=
LTTNG_OK=0
LTTNG_WHY="not run"
LTTNG_RUNDIR=/var/run/lttng

# lttng_cli ARGS...: the lttng client with the private home and a time limit.
lttng_cli() { LTTNG_HOME=$BENCH_TMP/lttng-home to 30 lttng "$@"; }

# lttng_build: the calls program with a tracepoint in bench_leaf (bench/micro/calls_tp.h).
lttng_build() {
	# shellcheck disable=SC2086
	gcc $CALLS_CFLAGS -DBENCH_LTTNG -I"$BENCH_DIR/micro" -o "$BENCH_OUT/bin/calls-lttng" \
		"$CALLS_SRC" "$BENCH_DIR/micro/calls_tp.c" -lpthread -llttng-ust -ldl \
		2>"$BENCH_OUT/lttng-build.log"
}

# lttng_start: build, start our lttng-sessiond and probe it with 100,000 events.
lttng_start() {
	LTTNG_OK=0
	rm -f "$BENCH_OUT/bin/calls-lttng"
	if ! lttng_build; then
		LTTNG_WHY="the tracepoint build failed: $(head -1 "$BENCH_OUT/lttng-build.log")"
		return 0
	fi
	for t in lttng lttng-sessiond; do
		if ! command -v $t >/dev/null; then
			LTTNG_WHY="$t not installed (make deps-bench)"
			return 0
		fi
	done
	if [ -f "$LTTNG_RUNDIR/lttng-sessiond.pid" ] &&
		kill -0 "$(cat "$LTTNG_RUNDIR/lttng-sessiond.pid")" 2>/dev/null; then
		LTTNG_WHY="another lttng-sessiond (pid $(cat "$LTTNG_RUNDIR/lttng-sessiond.pid")) is running; it was left alone"
		return 0
	fi
	mkdir -p "$BENCH_TMP/lttng-home"
	LTTNG_HOME=$BENCH_TMP/lttng-home lttng-sessiond --no-kernel \
		>"$BENCH_OUT/lttng-sessiond.log" 2>&1 &
	LTTNG_SESSIOND_PID=$!
	i=0
	while ! lttng_cli list >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -ge 100 ] || ! kill -0 "$LTTNG_SESSIOND_PID" 2>/dev/null; then
			LTTNG_WHY="lttng-sessiond did not start (bench/out/lttng-sessiond.log:"
			LTTNG_WHY="$LTTNG_WHY $(head -1 "$BENCH_OUT/lttng-sessiond.log"))"
			lttng_stop
			return 0
		fi
		sleep 0.1
	done
	# The probe: 100,000 events carry 1.6 MB of payload alone, so a trace smaller than
	# that did not record them all.
	# shellcheck disable=SC2046
	set -- $(lttng_run "-n 100000 -c $BENCH_CPU")
	if [ -z "${2:-}" ]; then
		LTTNG_WHY="a traced probe of 100,000 calls failed (bench/out/lttng-probe.log)"
	elif [ "$2" -lt 1600000 ]; then
		LTTNG_WHY="a traced probe of 100,000 calls wrote only $2 bytes of trace"
	else
		LTTNG_OK=1
		LTTNG_WHY="lttng-sessiond $(lttng --version | sed -n 's/^lttng (LTTng Trace Control) //p')"
		LTTNG_WHY="$LTTNG_WHY; a probe of 100,000 calls wrote $2 bytes of trace, $3 events discarded"
	fi
}

# lttng_run ARGS [EVENT PROGRAM]: one run of PROGRAM ARGS (default: calls-lttng, whose
# event is utrace_bench:leaf) inside a fresh session writing to tmpfs, EVENT enabled.
# Prints "LINE_OK BYTES DISCARDED" on the first line (LINE_OK 1 when the program printed
# its result) and the program's line on the second; keeps the trace's size, not the trace.
lttng_run() {
	d=$BENCH_UDATA.lttng
	rm -rf "$d"
	{
		lttng_cli create "$LTTNG_SESSION" --output="$d" &&
			lttng_cli enable-event -u -s "$LTTNG_SESSION" "${2:-utrace_bench:leaf}" &&
			lttng_cli start "$LTTNG_SESSION"
	} >"$BENCH_OUT/lttng-probe.log" 2>&1 || {
		lttng_cli destroy "$LTTNG_SESSION" >/dev/null 2>&1
		return 0
	}
	# shellcheck disable=SC2086
	line=$(LTTNG_HOME=$BENCH_TMP/lttng-home to 120 "${3:-$BENCH_OUT/bin/calls-lttng}" $1)
	lttng_cli stop "$LTTNG_SESSION" >/dev/null 2>&1
	disc=$(lttng_cli list "$LTTNG_SESSION" | awk -F': *' '/Discarded events/ { n += $2 } END { print n + 0 }')
	lttng_cli destroy "$LTTNG_SESSION" >/dev/null 2>&1
	bytes=$(du -sb "$d" 2>/dev/null | cut -f1)
	rm -rf "$d"
	ok=0
	[ -n "$line" ] && ok=1
	echo "$ok ${bytes:-0} $disc"
	echo "$line"
}

# lttng_stop: stop the lttng-sessiond we started, if any, and wait for it.
lttng_stop() {
	[ -n "$LTTNG_SESSIOND_PID" ] || return 0
	kill "$LTTNG_SESSIOND_PID" 2>/dev/null
	i=0
	while kill -0 "$LTTNG_SESSIOND_PID" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -9 "$LTTNG_SESSIOND_PID" 2>/dev/null
	wait "$LTTNG_SESSIOND_PID" 2>/dev/null
	LTTNG_SESSIOND_PID=
}

#!/bin/sh
# tests/soak/soak.sh - the endurance test (make soak SOAK_MINUTES=N; docs/endurance.md).
#
#   UT_BUILD=build UT_TOP=. sh tests/soak/soak.sh MINUTES [OUTDIR]
#
# For MINUTES, cycles of two phases run against one utracefs (restarted at a third
# and at two thirds of the time):
#   chaos  soak_worker chaos processes (threads, fork, exec, dlopen/dlclose, throw,
#          longjmp, signals, pthread_exit) run while this script flips tracers,
#          filters, graph filters, probes, pid lists, tracing_on, options and buffer
#          sizes.  Checked: no worker crashed (died of a signal) or hung (killed by
#          timeout), and utracefs is alive.
#   count  with a fixed set-up (function_graph, set_ftrace_filter soak_leaf) and
#          trace_pipe readers consuming, soak_worker count processes report how
#          many times they called soak_leaf.  Checked: the sum over per_cpu/cpuN/stats
#          of entries + overrun + read events + dropped events grew by exactly two
#          events per call.  Exact counting across flips is impossible (a flip
#          changes what is traced while calls are made), hence the separate phases.
# Throughout, utracefs's memory (VmRSS, RssAnon; smaps_rollup Anonymous) is sampled
# every 2 s into OUTDIR/mem.log; the last daemon's anonymous memory must be flat:
# its maximum over the second half of its life no more than SOAK_MEM_SLACK_KB
# (default 4096) above its maximum over the first half.
# Prints PASS:/FAIL: lines and a summary; OUTDIR (default a temporary directory,
# removed) keeps mem.log and the counts.
MINUTES=${1:-30}
. "${UT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"

OUT=${2:-$UT_TMP/out}
mkdir -p "$OUT"
: > "$OUT/mem.log"
W=$PROGS/soak_worker
LIBSOAK=$PROGS/lib_soak.so
SLACK_KB=${SOAK_MEM_SLACK_KB:-4096}
START=$(date +%s)
END=$((START + MINUTES * 60))
LIFE=1
procs=0 events=0 flips=0 restarts=0 crashes=0 hangs=0 cycles=0 count_bad=0

# mem_sampler: one line per 2 s: seconds life VmRSS RssAnon Anonymous (kB).
mem_sampler() {
	while :; do
		pid=$(cat "$OUT/fs.pid" 2>/dev/null) life=$(cat "$OUT/fs.life" 2>/dev/null)
		if [ -n "$pid" ] && [ -r "/proc/$pid/status" ]; then
			rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
			anon=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status")
			sanon=$(awk '/^Anonymous:/ { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null)
			[ -n "$rss" ] && echo "$(($(date +%s) - START)) $life $rss $anon ${sanon:-0}" \
				>> "$OUT/mem.log"
		fi
		sleep 2
	done
}

# reader N: consume trace_pipe while OUT/run exists; restart() ends the cat (its pid
# in OUT/reader.N) so that the mount is not busy, and the loop opens the new one.
reader() {
	while [ -e "$OUT/run" ]; do
		cat "$T/trace_pipe" > /dev/null 2>&1 &
		echo $! > "$OUT/reader.$1"
		wait $!
		while [ -e "$OUT/pause" ] && [ -e "$OUT/run" ]; do touch "$OUT/paused.$1"; sleep 0.1; done
		rm -f "$OUT/paused.$1"
	done
}
# readers_stop: end both cats and wait (up to 30 s) until both loops are paused.  A
# paused.N left from the last pause may still be there while its loop is on its way to
# a new cat: only one made after this pause began counts.
readers_stop() {
	touch "$OUT/pause"
	rm -f "$OUT"/paused.*
	n=0
	while [ $n -lt 300 ] && ! { [ -e "$OUT/paused.1" ] && [ -e "$OUT/paused.2" ]; }; do
		for f in "$OUT"/reader.*; do kill "$(cat "$f")" 2>/dev/null; done
		sleep 0.1; n=$((n + 1))
	done
}
readers_go() { rm -f "$OUT/pause"; }
# tracer NAME [must]: as in the kernel, current_tracer is EBUSY while trace_pipe is
# open, so the readers pause around the switch.
tracer() {
	readers_stop
	${2:-w} "$1" current_tracer
	readers_go
}

fs_start() {
	ut_mount
	echo "$UT_FS_PID" > "$OUT/fs.pid"
	echo "$LIFE" > "$OUT/fs.life"
	echo 2048 > "$T/buffer_size_kb"
}

restart() {
	readers_stop
	if ! ut_umount; then
		fail "utracefs life $LIFE ended cleanly" "$(tail -20 "$UT_TMP/utracefs.log")"
	fi
	LIFE=$((LIFE + 1)); restarts=$((restarts + 1))
	fs_start
	readers_go
}

# w: write a control file; errors are expected for some flips and ignored.
w() { /bin/echo "$1" > "$T/$2" 2>/dev/null; flips=$((flips + 1)); }
# must: a write that must succeed (the counting phase's set-up).
must() {
	/bin/echo "$1" > "$T/$2" 2>> "$OUT/problems" ||
		echo "cycle $cycles: set-up '$1' > $2 failed" >> "$OUT/problems"
}

# stats_sum: entries + overrun + read events + dropped events over every CPU.
stats_sum() {
	cat "$T"/per_cpu/cpu*/stats | awk -F': ' '
		$1 == "entries" || $1 == "overrun" || $1 == "read events" || $1 == "dropped events" { s += $2 }
		END { print s + 0 }'
}

# reap STATUS: count a worker's end (124/137: hung and killed; >128: crashed).
reap() {
	procs=$((procs + 1))
	case $1 in
	0) ;;
	124 | 137) hangs=$((hangs + 1)) ;;
	*) crashes=$((crashes + 1)); echo "worker exit status $1" >> "$OUT/problems" ;;
	esac
}

# inst_flip N: an instance made, used and removed while everything else runs.
inst_flip() {
	d=$T/instances/soak$(($1 % 3))
	mkdir "$d" 2>/dev/null
	w "soak_*" "instances/soak$(($1 % 3))/set_ftrace_filter"
	w function "instances/soak$(($1 % 3))/current_tracer"
	w "instance $1" "instances/soak$(($1 % 3))/trace_marker"
	w 0 "instances/soak$(($1 % 3))/options/overwrite"
	w 1 "instances/soak$(($1 % 3))/snapshot"
	[ $(($1 % 2)) -eq 0 ] && rmdir "$d" 2>/dev/null
	flips=$((flips + 1))
}

flip_once() {
	i=$1
	[ $((i % 4)) -eq 0 ] && inst_flip $((i / 4))
	case $((i % 12)) in
	0) tracer function_graph ;;
	1) tracer function ;;
	2) w 'soak_*' set_ftrace_filter ;;
	3) w '!soak_leaf' set_ftrace_filter; w 'deep' set_ftrace_notrace ;;
	4) w thrower set_graph_function ;;
	5) w "$(cat "$OUT/pids" 2>/dev/null | tail -3 | tr '\n' ' ')" set_ftrace_pid ;;
	6) w "soak_leaf:traceoff:3" set_ftrace_filter; w 1 tracing_on ;;
	7) w $((64 + (i % 5) * 300)) buffer_size_kb; w $((i % 3)) snapshot ;;
	8) w '' set_ftrace_pid; w '' set_graph_function; w '' set_ftrace_notrace ;;
	9) w 1 tracing_on; w nooverwrite trace_options; w function-fork trace_options ;;
	10) tracer nop; w '' set_ftrace_filter; w overwrite trace_options ;;
	11) w 'soak_leaf:stacktrace' set_ftrace_filter; tracer function_graph ;;
	esac
}

chaos_phase() {
	: > "$OUT/pids"
	jobs_pids=
	# each cycle runs its own copy of the worker: a program at a path never seen
	# before is another object for utracefs, whose memory must stay flat all the same
	wc_dir=$OUT/bin/$cycles
	mkdir -p "$wc_dir" && cp "$W" "$wc_dir/soak_worker" && cp "$LIBSOAK" "$wc_dir/"
	wcopy=$wc_dir/soak_worker
	lcopy=$wc_dir/$(basename "$LIBSOAK")
	for k in 1 2 3; do
		timeout -s KILL 300 env LD_PRELOAD="$LIBUTRACE" "$wcopy" chaos "$lcopy" "$wcopy" 20 &
		echo $! >> "$OUT/pids"
		jobs_pids="$jobs_pids $!"
	done
	i=0
	while [ $i -lt 60 ]; do
		flip_once $i
		i=$((i + 1))
	done
	for p in $jobs_pids; do wait "$p"; reap $?; done
	for d in "$T"/instances/soak*; do [ -d "$d" ] && rmdir "$d"; done
	rm -rf "$wc_dir"
	# each chaos worker forks 20 children, half of which exec
	procs=$((procs + 3 * 20))
}

count_phase() {
	tracer nop must
	# probes outlive a truncating write; ENODEV when there is none of that command
	w '!soak_leaf:traceoff' set_ftrace_filter
	w '!soak_leaf:traceoff:0' set_ftrace_filter
	w '!soak_leaf:stacktrace' set_ftrace_filter
	must '' set_ftrace_filter
	must '' set_ftrace_notrace
	must '' set_graph_function
	must '' set_ftrace_pid
	must overwrite trace_options
	must nofunction-fork trace_options
	must nostacktrace trace_options
	must 1 tracing_on
	must 2048 buffer_size_kb
	must soak_leaf set_ftrace_filter
	tracer function_graph must
	: > "$OUT/counts"
	before=$(stats_sum)
	jobs_pids=
	for k in 1 2 3; do
		timeout -s KILL 300 env LD_PRELOAD="$LIBUTRACE" "$W" count 20000 3 "$OUT/counts" &
		jobs_pids="$jobs_pids $!"
	done
	for p in $jobs_pids; do wait "$p"; reap $?; done
	procs=$((procs + 3)) # the forked children
	after=$(stats_sum)
	calls=$(awk '{ s += $2 } END { print s + 0 }' "$OUT/counts")
	lines=$(wc -l < "$OUT/counts")
	got=$((after - before))
	events=$((events + got))
	if [ "$lines" -ne 6 ] || [ "$got" -ne $((2 * calls)) ]; then
		count_bad=$((count_bad + 1))
		echo "cycle $cycles: $lines processes reported $calls calls, stats grew by $got" \
			"(expected $((2 * calls)))" >> "$OUT/problems"
	fi
}

touch "$OUT/run"
fs_start
mem_sampler &
SAMPLER=$!
reader 1 2>/dev/null & reader 2 2>/dev/null &
while [ "$(date +%s)" -lt "$END" ]; do
	now=$(date +%s)
	if [ $restarts -lt 2 ] && [ $((now - START)) -ge $(((restarts + 1) * MINUTES * 20)) ]; then
		restart
	fi
	chaos_phase
	count_phase
	cycles=$((cycles + 1))
	if ! kill -0 "$UT_FS_PID" 2>/dev/null; then
		fail "utracefs alive after cycle $cycles" "$(tail -20 "$UT_TMP/utracefs.log")"
		break
	fi
done
rm -f "$OUT/run"
readers_stop
kill "$SAMPLER" 2>/dev/null

[ $crashes -eq 0 ] && pass "no worker crashed" ||
	fail "no worker crashed" "$crashes crashed: $(sort "$OUT/problems" | uniq -c | head)"
[ $hangs -eq 0 ] && pass "no worker hung" || fail "no worker hung" "$hangs killed after 300 s"
[ $count_bad -eq 0 ] && pass "every event accounted for ($cycles counting phases)" ||
	fail "every event accounted for" "$(grep cycle "$OUT/problems" | head)"
[ $restarts -eq 2 ] && pass "utracefs restarted twice" || fail "utracefs restarted twice" "$restarts"

# flat memory: the last life's anonymous memory, first half against second half
awk -v life=$LIFE -v slack=$SLACK_KB '
	$2 == life { t[n] = $1; a[n] = $4; n++ }
	END {
		if (n < 4) { print "SKIP"; exit }
		for (i = 0; i < n; i++) if (i < n / 2) { if (a[i] > m1) m1 = a[i] } else if (a[i] > m2) m2 = a[i]
		printf "%s %d %d\n", (m2 <= m1 + slack) ? "OK" : "GREW", m1, m2
	}' "$OUT/mem.log" > "$OUT/flat"
read verdict m1 m2 < "$OUT/flat"
case $verdict in
OK) pass "utracefs memory flat (RssAnon max ${m1} kB, then ${m2} kB)" ;;
SKIP) skip "utracefs memory flat" "too few samples" ;;
*) fail "utracefs memory flat" "RssAnon max ${m1} kB in the first half of its life, ${m2} kB in the second" ;;
esac
ut_umount || fail "utracefs ended cleanly" "$(tail -20 "$UT_TMP/utracefs.log")"
awk '{ if ($3 > r) r = $3; if ($4 > a) a = $4 } END { printf "memory: max VmRSS %d kB, max RssAnon %d kB\n", r, a }' \
	"$OUT/mem.log"
echo "soak: $((($(date +%s) - START) / 60)) min, $cycles cycles, $procs processes," \
	"$events events counted, $flips flips, $restarts restarts survived," \
	"$crashes crashed, $hangs hung"

#!/bin/sh
# bench/run.sh BUILD_DIR - utrace's performance harness (`make bench` calls it).
#
# Runs every workload, keeps raw results under bench/out/ (git-ignored) and writes
# docs/performance.md (and a PNG plot under docs/) from them alone: the report quotes no
# number that this run did not produce.  The utrace rows need BUILD_DIR/bin/utracefs and
# BUILD_DIR/lib/libutrace.so and run only when a probe shows that they work; otherwise the
# report marks them "not available" and says why.
#
# Environment:
#   BENCH_REPEAT  runs of each configuration, alternated (default 11)
#   BENCH_CALLS   calls per run of the calls workload (default 10000000)
#   BENCH_BLOCK   calls per block of the paired measurement (calls -p, default 100000)
#   BENCH_CPU     CPU the measured thread is pinned to (default: the last one, which
#                 takes fewer device interrupts than CPU 0 on a typical guest)
#   BENCH_CAT_KB  buffer_size_kb used to time `cat trace` on a full buffer (default 65536)
#   BENCH_DOC     report to write (default docs/performance.md)
#   BENCH_WORKLOADS  workloads to run (default: calls events thresh lat real scale inst rec)
#   BENCH_CALLS_CONFIGS  rows of the calls workload to run (default: all, bench/micro.sh)
#   BENCH_EVENTS_PAIRS  pairs of blocks per run of the events workload (default 100)
#   BENCH_THRESH_US  tracing_thresh of the calls workload's ut-graph-thresh row (1000)
#   BENCH_REAL_REPEAT, BENCH_LUA_ARGS, BENCH_SQLITE_SIZE  the real workload (bench/real.sh)
#   BENCH_SCALE_REPEAT, BENCH_SCALE_CALLS, BENCH_SCALE_SITES  the scale workload
#                 (bench/scale.sh)
#   BENCH_SWAP_REPEAT, BENCH_INST_COUNT  the inst workload: snapshot swaps timed per row
#                 (default 200), instances made to measure memory (default 16) (bench/inst.sh)
#   BENCH_REC_RATES, BENCH_REC_SECONDS, BENCH_REPORT_MB  the rec workload: calls per second
#                 recorded, seconds per rate, size of the recording read back (bench/rec.sh)
#   BENCH_UTRACEFS, BENCH_LIBUTRACE  take utracefs or libutrace.so from elsewhere than
#                 BUILD_DIR (relative to the repository)
#
# A workload NAME is a pair of functions: workload_NAME runs it and keeps its results under
# bench/out/NAME/, report_NAME prints its section of the report.
set -u

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$BENCH_DIR")
BUILD_ARG=${1:-build}
case $BUILD_ARG in
/*) BUILD=$BUILD_ARG ;;
*) BUILD=$TOP/$BUILD_ARG ;;
esac
UTRACEFS=${BENCH_UTRACEFS:-$BUILD/bin/utracefs}
LIBUTRACE=${BENCH_LIBUTRACE:-$BUILD/lib/libutrace.so}
case $UTRACEFS in /*) ;; *) UTRACEFS=$TOP/$UTRACEFS ;; esac
case $LIBUTRACE in /*) ;; *) LIBUTRACE=$TOP/$LIBUTRACE ;; esac
# As the report prints it: relative to the repository when it is inside.
LIBUTRACE_SHOWN=${LIBUTRACE#"$TOP"/}

BENCH_REPEAT=${BENCH_REPEAT:-11}
BENCH_CALLS=${BENCH_CALLS:-10000000}
BENCH_BLOCK=${BENCH_BLOCK:-100000}
BENCH_CPU=${BENCH_CPU:-$(($(nproc) - 1))}
BENCH_CAT_KB=${BENCH_CAT_KB:-65536}
BENCH_DOC=${BENCH_DOC:-$TOP/docs/performance.md}
BENCH_WORKLOADS=${BENCH_WORKLOADS:-calls events thresh lat real scale inst rec}
BENCH_OUT=$BENCH_DIR/out
BENCH_TMP=$(mktemp -d /tmp/utrace-bench.XXXXXX)
BENCH_MNT=$BENCH_TMP/tracing
BENCH_NOMOUNT=$BENCH_TMP/no-daemon
BENCH_UDATA=/dev/shm/utrace-bench-uftrace.$$
BENCH_FS_PID=

. "$BENCH_DIR/lib.sh"
. "$BENCH_DIR/micro.sh"
. "$BENCH_DIR/lttng.sh"
. "$BENCH_DIR/events.sh"
. "$BENCH_DIR/thresh.sh"
. "$BENCH_DIR/lat.sh"
. "$BENCH_DIR/real.sh"
. "$BENCH_DIR/scale.sh"
. "$BENCH_DIR/inst.sh"
. "$BENCH_DIR/rec.sh"
. "$BENCH_DIR/report.sh"

bench_cleanup() {
	tfs_umount "$BENCH_MNT"
	lttng_stop
	rm -rf "$BENCH_TMP" "$BENCH_UDATA" "$BENCH_UDATA.lttng"
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

for v in BENCH_REPEAT BENCH_CALLS BENCH_BLOCK BENCH_CPU BENCH_CAT_KB BENCH_REAL_REPEAT \
	BENCH_SQLITE_SIZE BENCH_SCALE_REPEAT BENCH_SCALE_CALLS CALLS_THRESH_US BENCH_SWAP_REPEAT \
	INST_COUNT; do
	eval "x=\$$v"
	case $x in
	'' | *[!0-9]*)
		echo "bench: $v must be a number, not '$x'" >&2
		exit 2
		;;
	esac
done
for tool in gcc uftrace gnuplot timeout lttng tclsh; do
	command -v $tool >/dev/null || echo "bench: $tool not found (make deps-bench)" >&2
done

mkdir -p "$BENCH_OUT" "$BENCH_NOMOUNT"
machine_facts "$BENCH_OUT/machine.txt"
BENCH_LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
BENCH_CPU_BEFORE=$(cpu_snapshot)
BENCH_T0=$(date +%s)

for w in $BENCH_WORKLOADS; do
	"workload_$w" || {
		echo "bench: the $w workload failed" >&2
		exit 1
	}
done

BENCH_LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
own_cpu_seconds "$BENCH_TMP/times" > "$BENCH_TMP/own"
BENCH_CPU_NOISE=$(cpu_noise "$BENCH_CPU_BEFORE" "$(cpu_snapshot)" "$(cat "$BENCH_TMP/own")")
BENCH_SECONDS=$(($(date +%s) - BENCH_T0))
report_write "$BENCH_DOC"
echo "bench: wrote ${BENCH_DOC#"$TOP"/} in ${BENCH_SECONDS} s" >&2

# bench/lib.sh - helpers shared by the workloads of the performance harness.
#
# Sourced by bench/run.sh (POSIX sh).  It owns: statistics over repeated runs, the
# bounded waits around utracefs (a broken daemon must not hang `make bench`), mounting
# and unmounting, and the checks that decide whether the utrace rows can run at all.
# Every check leaves its verdict in a variable that the report prints, so a row that did
# not run says why instead of showing a number that was never measured.

# --- statistics -------------------------------------------------------------------------

# stats_by_key: reads "KEY VALUE" lines, prints "KEY N MIN MEDIAN MAX Q1 Q3" per key.
# The median of an even count is the mean of the two middle values.
stats_by_key() {
	sort -k1,1 -k2,2g | awk '
	function flush() {
		if (n == 0) return
		if (n % 2) med = v[(n + 1) / 2]; else med = (v[n / 2] + v[n / 2 + 1]) / 2
		q1 = v[int((n + 3) / 4)]; q3 = v[n + 1 - int((n + 3) / 4)]
		printf "%s %d %.3f %.3f %.3f %.3f %.3f\n", key, n, v[1], med, v[n], q1, q3
	}
	$1 != key { flush(); key = $1; n = 0 }
	{ v[++n] = $2 }
	END { flush() }'
}

# rotated ROUND WORD...: the words rotated left by ROUND - 1, so that each round of
# alternating runs starts with another configuration (slow drifts of the machine then
# fall on all of them alike).
rotated() {
	n=$1
	shift
	while [ "$n" -gt 1 ] && [ $# -gt 1 ]; do
		first=$1
		shift
		set -- "$@" "$first"
		n=$((n - 1))
	done
	echo "$@"
}

# now_s: wall-clock seconds with nanoseconds (GNU date).
now_s() { date +%s.%N; }

# --- machine ----------------------------------------------------------------------------

# machine_facts FILE: one "name: value" line per fact that the report quotes.
machine_facts() {
	{
		echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
		echo "cpus: $(nproc) online ($(grep -c '^processor' /proc/cpuinfo) in /proc/cpuinfo)"
		echo "kernel: $(uname -sr)"
		echo "gcc: $(gcc --version | head -1)"
		echo "clang: $(clang --version 2>/dev/null | head -1)"
		echo "glibc: $(ldd --version | head -1)"
		echo "uftrace: $(uftrace --version 2>/dev/null | head -1)"
		echo "lttng: $(lttng --version 2>/dev/null | head -1)"
		echo "memory: $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
		echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	} > "$1"
}

# cpu_snapshot: "busy steal total" seconds of all CPUs so far, from /proc/stat.
cpu_snapshot() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" {
		busy = $2 + $3 + $4 + $7 + $8; total = busy + $5 + $6 + $9
		printf "%.2f %.2f %.2f\n", busy / hz, $9 / hz, total / hz }' /proc/stat
}

# own_cpu_seconds FILE: user + system seconds of this shell and of its reaped children.
# `times` must run in this shell, not in a pipeline's subshell, hence the file.
own_cpu_seconds() {
	times > "$1"
	sed 's/\([0-9]*\)m\([0-9.]*\)s/\1 \2/g' "$1" |
		awk '{ t += $1 * 60 + $2 + $3 * 60 + $4 } END { printf "%.2f\n", t }'
}

# cpu_noise BEFORE AFTER OWN: one sentence on what else used the CPUs during the run.
cpu_noise() {
	echo "$1 $2 $3" | awk '{
		busy = $4 - $1; steal = $5 - $2; total = $6 - $3; other = busy - $7
		if (other < 0) other = 0
		f = "CPU time used by other processes during the run: %.1f s of %.1f s available"
		f = f " (%.0f%%); stolen by the hypervisor: %.1f s (%.1f%%)\n"
		po = (total > 0) ? other / total * 100 : 0
		ps = (total > 0) ? steal / total * 100 : 0
		printf f, other, total, po, steal, ps }'
}

# --- utracefs ---------------------------------------------------------------------------

# to N CMD...: run CMD with a time limit so that a hung FUSE daemon cannot hang the harness.
to() { timeout "$@"; }

# tfs_write FILE VALUE: "echo VALUE > FILE" with a time limit; returns its status.
tfs_write() { to 10 sh -c 'echo "$2" > "$1"' sh "$1" "$2" 2>/dev/null; }

# tfs_mount MOUNTPOINT LOG: start utracefs in the foreground as a background job (so that
# its pid is ours to stop) and wait up to 5 s for the tree to appear.  Sets BENCH_FS_PID.
tfs_mount() {
	mkdir -p "$1"
	"$UTRACEFS" -f "$1" 2>"$2" &
	BENCH_FS_PID=$!
	i=0
	while [ $i -lt 100 ]; do
		[ -e "$1/trace" ] && return 0
		kill -0 "$BENCH_FS_PID" 2>/dev/null || break
		sleep 0.05
		i=$((i + 1))
	done
	tfs_umount "$1"
	return 1
}

# tfs_umount MOUNTPOINT: unmount (lazily if the daemon hangs) and reap the daemon we started.
tfs_umount() {
	if mountpoint -q "$1" 2>/dev/null; then
		to 10 fusermount3 -u "$1" 2>/dev/null || fusermount3 -u -z "$1" 2>/dev/null
	fi
	if [ -n "${BENCH_FS_PID:-}" ]; then
		i=0
		while kill -0 "$BENCH_FS_PID" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill "$BENCH_FS_PID" 2>/dev/null
		wait "$BENCH_FS_PID" 2>/dev/null
		BENCH_FS_PID=
	fi
}

# tfs_events MOUNTPOINT: events that utracefs counted since the last clear, over all CPUs:
# "written lost", where written = entries + overrun (each event the writer committed,
# whether still in the buffer or overwritten) and lost = dropped events (not written
# because the buffer was full in producer/consumer mode).
tfs_events() {
	for s in "$1"/per_cpu/cpu*/stats; do
		to 10 cat "$s"
	done 2>/dev/null | awk -F': ' '
		$1 == "entries" || $1 == "overrun" { w += $2 }
		$1 == "dropped events" { d += $2 }
		END { printf "%d %d\n", w, d }'
}

# rss PID: "VmRSS RssShmem" in kB.
rss() {
	awk '$1 == "VmRSS:" { v = $2 } $1 == "RssShmem:" { s = $2 } END { print v + 0, s + 0 }' \
		"/proc/$1/status" 2>/dev/null
}

# area_kb PID: kB that utracefs PID's shared area (the memfd "utrace": every instance's
# rings) has allocated, whichever process touched the pages; its RSS counts only those it
# touched itself.
area_kb() {
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in
		"/memfd:utrace (deleted)")
			stat -L -c '%b %B' "$f" | awk '{ printf "%d\n", $1 * $2 / 1024 }'
			return 0
			;;
		esac
	done
	echo 0
}

# --- what is available ------------------------------------------------------------------

# utrace_probe BIN_FPE: decide which utrace rows can run.  Sets
#   UT_RUNTIME_OK (1/0) and UT_RUNTIME_WHY: libutrace.so loads and rewrites the patch sites
#   UT_FUNC_OK (1/0) and UT_FUNC_WHY: utracefs mounts and the function tracer records
#   bench_leaf calls from a preloaded program.
#   UT_GRAPH_OK (1/0) and UT_GRAPH_WHY: the same for the function_graph tracer (lines
#   "bench_leaf();").
utrace_probe() {
	UT_RUNTIME_OK=0
	UT_FUNC_OK=0
	UT_GRAPH_OK=0
	UT_GRAPH_WHY="${UTRACEFS#"$TOP"/} missing"
	UT_RUNTIME_WHY="$LIBUTRACE_SHOWN missing"
	UT_FUNC_WHY="${UTRACEFS#"$TOP"/} missing"
	if [ -f "$LIBUTRACE" ]; then
		out=$(UTRACE_TRACING=$BENCH_NOMOUNT LD_PRELOAD=$LIBUTRACE to 20 "$1" -n 1000 2>&1)
		entry=$(printf '%s\n' "$out" | sed -n 's/.*entry=//p')
		if [ -z "$entry" ]; then
			UT_RUNTIME_WHY="a program preloading libutrace.so failed: $(echo "$out" | head -1)"
		elif [ "$entry" = 9090909090 ]; then
			UT_RUNTIME_WHY="libutrace.so loads but leaves the patch sites as GCC's NOPs"
		else
			UT_RUNTIME_OK=1
			UT_RUNTIME_WHY="libutrace.so loads; patch site of bench_leaf reads $entry"
		fi
	fi
	[ -x "$UTRACEFS" ] || return 0
	UT_FUNC_WHY="utracefs did not mount (see bench/out/utracefs-probe.log)"
	UT_GRAPH_WHY=$UT_FUNC_WHY
	tfs_mount "$BENCH_MNT" "$BENCH_OUT/utracefs-probe.log" || return 0
	tracer_probe "$1" function 'bench_leaf'
	UT_FUNC_OK=$PROBE_OK
	UT_FUNC_WHY=$PROBE_WHY
	tracer_probe "$1" function_graph 'bench_leaf();'
	UT_GRAPH_OK=$PROBE_OK
	UT_GRAPH_WHY=$PROBE_WHY
	tfs_umount "$BENCH_MNT"
}

# probe_mount OUTDIR NAME TRACER: for a workload that needs TRACER (function or
# function_graph): probe the tracers (once, with bench/out/bin/calls-fpe, which must be
# built), then mount utracefs at $BENCH_MNT (its log: bench/out/utracefs-NAME.log).  0 when
# mounted; 1 after writing OUTDIR/why.txt.
probe_mount() {
	[ -n "${UT_FUNC_OK:-}" ] || utrace_probe "$BENCH_OUT/bin/calls-fpe"
	if [ "$3" = function_graph ]; then
		set -- "$1" "$2" "$UT_GRAPH_OK" "$UT_GRAPH_WHY"
	else
		set -- "$1" "$2" "$UT_FUNC_OK" "$UT_FUNC_WHY"
	fi
	if [ "$3" != 1 ]; then
		echo "$4" > "$1/why.txt"
		return 1
	fi
	if ! tfs_mount "$BENCH_MNT" "$BENCH_OUT/utracefs-$2.log"; then
		echo "utracefs did not mount" > "$1/why.txt"
		return 1
	fi
}

# tracer_probe BIN_FPE TRACER TEXT: with utracefs mounted at $BENCH_MNT, trace 1,010
# calls of bench_leaf with TRACER and count the lines of trace holding TEXT.  Sets
# PROBE_OK (1/0) and PROBE_WHY.
tracer_probe() {
	PROBE_OK=0
	PROBE_WHY="the $2 tracer recorded no bench_leaf call"
	if ! to 10 grep -qw "$2" "$BENCH_MNT/available_tracers"; then
		PROBE_WHY="available_tracers does not list $2"
		return 0
	fi
	if ! tfs_write "$BENCH_MNT/current_tracer" "$2"; then
		PROBE_WHY="echo $2 > current_tracer failed"
		return 0
	fi
	UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 20 "$1" -n 1000 >/dev/null 2>&1
	rc=$?
	# Read before switching back to nop, whether or not the switch clears the buffer.
	n=$(to 30 cat "$BENCH_MNT/trace" 2>/dev/null | grep -cF "$3")
	tfs_write "$BENCH_MNT/current_tracer" nop
	[ $rc -eq 124 ] && PROBE_WHY="a $2 probe of 1,010 calls did not end within 20 s"
	[ $rc -ne 0 ] && [ $rc -ne 124 ] && PROBE_WHY="a $2 probe exited with status $rc"
	# 1,010 calls were made (10 of warm-up); fewer lines is reported, not hidden.
	if [ $rc -eq 0 ] && [ "${n:-0}" -gt 0 ]; then
		PROBE_OK=1
		PROBE_WHY="a probe of 1,010 calls printed $n '$3' lines in trace"
	fi
}

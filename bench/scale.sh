# bench/scale.sh - workload "scale": threads, patch sites and memory (issue 5).
#
# Sourced by bench/run.sh.  Three measurements, each needing a working function tracer
# (the utrace probe of lib.sh):
#
# threads  calls-fpe -t T (bench/micro/calls.c) for T = 1, 2, 4 threads, instrumented
#          with no runtime and under the function tracer, in rotated rounds.  Thread i is
#          pinned to CPU (BENCH_CPU + i) mod the CPU count, so with more threads than
#          CPUs threads share a CPU.
# patch    a generated program of N small functions (N = 1,000, 10,000, 100,000; the
#          driver is bench/micro/sites.c) is started preloaded, registers and waits; the
#          harness times `echo function > current_tracer` and `echo nop > current_tracer`
#          (each returns when every live process has applied it) and asks the program
#          for the first bytes of three of its functions after each, to check that the
#          sites really changed.  Also timed: from exec to the program's "ready" line
#          (loading libutrace.so, turning the sites into NOPs, registering).
# memory   VmRSS and RssShmem (from /proc/PID/status) of utracefs and of a traced sites
#          program (1,000 sites) with 1 and 4 threads, for two buffer sizes, after every
#          thread has written more events than one CPU's buffer holds; and of utracefs
#          again after `cat trace` read the full buffers.
#
# Results, under $BENCH_OUT/scale/:
#   threads.tsv  config threads round ns_per_call written lost
#   patch.tsv    sites round start_s on_s off_s checked   (checked: 1 when the bytes changed)
#   memory.tsv   buffer_kb threads who vmrss_kb rssshmem_kb
#   why.txt      why a part did not run

BENCH_SCALE_REPEAT=${BENCH_SCALE_REPEAT:-5}
BENCH_SCALE_CALLS=${BENCH_SCALE_CALLS:-2000000}
SCALE_THREADS="1 2 4"
SCALE_SITES=${BENCH_SCALE_SITES:-1000 10000 100000}
SCALE_BUFFERS="default 16384"
SCALE_CACHE=$BENCH_OUT/scale-cache
# The generated functions are built without optimisation: only their number matters,
# and GCC takes twice as long over 100,000 functions at -O1.
SCALE_SITE_CFLAGS="-O0 -fpatchable-function-entry=5"

# scale_build_sites N: $SCALE_CACHE/sites-N, generated in files of 10,000 functions built
# two at a time; cached (the stamp holds N, the flags and the driver's checksum).
scale_build_sites() {
	d=$SCALE_CACHE/sites-$1
	stamp="$1 $SCALE_SITE_CFLAGS $(cksum < "$BENCH_DIR/micro/sites.c")"
	if [ -x "$d/sites" ] && [ -f "$d/stamp" ] && [ "$(cat "$d/stamp")" = "$stamp" ]; then
		return 0
	fi
	rm -rf "$d"
	mkdir -p "$d/gen"
	k=0
	while [ $((k * 10000)) -lt "$1" ]; do
		awk -v a=$((k * 10000)) -v n="$1" 'BEGIN {
			for (i = a; i < a + 10000 && i < n; i++)
				printf "int site_%d(int x) { return x + %d; }\n", i, i % 7 + 1 }' \
			> "$d/gen/part$k.c"
		k=$((k + 1))
	done
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < n; i++) printf "int site_%d(int);\n", i
		printf "int (*const site_fns[])(int) = {\n"
		for (i = 0; i < n; i++) printf "\tsite_%d,\n", i
		printf "};\nconst long site_count = %d;\n", n }' > "$d/gen/table.c"
	# shellcheck disable=SC2016
	(cd "$d/gen" && printf "%s\n" part*.c | xargs -P2 -n1 sh -c "gcc $SCALE_SITE_CFLAGS"' -c "$0"' &&
		gcc -O2 -c table.c && gcc -O2 -g -o ../sites "$BENCH_DIR/micro/sites.c" ./*.o -lpthread) \
		>"$d/build.log" 2>&1 || return 1
	rm -rf "$d/gen"
	echo "$stamp" > "$d/stamp"
}

# --- a sites program under our control -------------------------------------------------
# sites_start BINARY THREADS: start it preloaded, talking through two FIFOs (fd 3 to its
# standard input, fd 4 from its standard output); waits for "ready" and for utracefs to
# list it in saved_cmdlines.  Sets SITES_PID and SITES_START_S.  sites_cmd CMD prints the
# program's answer; sites_stop ends it.
sites_start() {
	rm -f "$BENCH_TMP/sites.in" "$BENCH_TMP/sites.out"
	mkfifo "$BENCH_TMP/sites.in" "$BENCH_TMP/sites.out" || return 1
	t0=$(now_s)
	UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 300 "$1" "$2" \
		<"$BENCH_TMP/sites.in" >"$BENCH_TMP/sites.out" 2>"$BENCH_TMP/sites.err" &
	SITES_JOB=$!
	SITES_PID=$SITES_JOB
	exec 3>"$BENCH_TMP/sites.in" 4<"$BENCH_TMP/sites.out"
	read -r l <&4
	t1=$(now_s)
	case $l in ready*) ;; *) sites_stop; return 1 ;; esac
	SITES_START_S=$(echo "$t0 $t1" | awk '{ printf "%.4f", $2 - $1 }')
	# $! is a subshell or timeout(1) (itself preloaded, so it registers too): walk down
	# to the program, whose /proc files are read and which saved_cmdlines must list.
	i=0
	while [ "$(cat "/proc/$SITES_PID/comm" 2>/dev/null)" != sites ] && [ $i -lt 4 ]; do
		SITES_PID=$(pgrep -P "$SITES_PID" | head -1)
		i=$((i + 1))
	done
	[ -n "$SITES_PID" ] || { sites_stop; return 1; }
	i=0
	while ! to 10 cat "$BENCH_MNT/saved_cmdlines" | grep -q "^$SITES_PID "; do
		i=$((i + 1))
		[ $i -ge 100 ] && { sites_stop; return 1; }
		sleep 0.05
	done
}
sites_cmd() {
	echo "$1" >&3
	read -r l <&4 && echo "$l"
}
sites_stop() {
	exec 3>&-
	wait "$SITES_JOB" 2>/dev/null
	exec 4<&-
}

# --- threads ----------------------------------------------------------------------------

scale_threads() {
	: > "$SCALE_OUT/threads.tsv"
	r=1
	while [ $r -le "$BENCH_SCALE_REPEAT" ]; do
		echo "bench: scale threads round $r/$BENCH_SCALE_REPEAT" >&2
		for t in $SCALE_THREADS; do
			order="fpe ut-function"
			[ $((r % 2)) -eq 0 ] && order="ut-function fpe"
			for c in $order; do
				args="-n $BENCH_SCALE_CALLS -t $t -c $BENCH_CPU"
				ev="0 0"
				if [ $c = fpe ]; then
					# shellcheck disable=SC2086
					line=$(to 120 "$BENCH_OUT/bin/calls-fpe" $args)
				else
					tfs_write "$BENCH_MNT/trace" ""
					before=$(tfs_events "$BENCH_MNT")
					tfs_write "$BENCH_MNT/current_tracer" function
					# shellcheck disable=SC2086
					line=$(UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 120 \
						"$BENCH_OUT/bin/calls-fpe" $args)
					after=$(tfs_events "$BENCH_MNT")
					tfs_write "$BENCH_MNT/current_tracer" nop
					ev=$(echo "$before $after" | awk '{ print $3 - $1, $4 - $2 }')
				fi
				ns=$(printf '%s\n' "$line" | sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p')
				[ -n "$ns" ] && echo "$c $t $r $ns $ev" >> "$SCALE_OUT/threads.tsv"
			done
		done
		r=$((r + 1))
	done
}

# --- patching ---------------------------------------------------------------------------

scale_patch() {
	: > "$SCALE_OUT/patch.tsv"
	for n in $SCALE_SITES; do
		echo "bench: scale patch: $n sites" >&2
		if ! scale_build_sites "$n"; then
			echo "building the program of $n sites failed (bench/out/scale-cache/sites-$n/build.log)" \
				>> "$SCALE_OUT/why.txt"
			continue
		fi
		r=1
		while [ $r -le "$BENCH_SCALE_REPEAT" ]; do
			if ! sites_start "$SCALE_CACHE/sites-$n/sites" 1; then
				echo "the program of $n sites did not start or register" >> "$SCALE_OUT/why.txt"
				break
			fi
			e0=$(sites_cmd e)
			t0=$(now_s)
			tfs_write "$BENCH_MNT/current_tracer" function
			t1=$(now_s)
			e1=$(sites_cmd e)
			t2=$(now_s)
			tfs_write "$BENCH_MNT/current_tracer" nop
			t3=$(now_s)
			e2=$(sites_cmd e)
			sites_stop
			# Checked: NOPs before, three calls (e8) while on, the NOPs again after.
			ok=0
			case "$e0 $e1 $e2" in
			"entries=0f1f440000,0f1f440000,0f1f440000 entries=e8"*",e8"*",e8"*" entries=0f1f440000,0f1f440000,0f1f440000") ok=1 ;;
			esac
			[ $ok = 1 ] || echo "$n sites, round $r: before '$e0', on '$e1', off '$e2'" \
				>> "$SCALE_OUT/patch-bytes.txt"
			echo "$n $r $SITES_START_S $t0 $t1 $t2 $t3 $ok" |
				awk '{ printf "%s %s %s %.4f %.4f %s\n", $1, $2, $3, $5 - $4, $7 - $6, $8 }' \
				>> "$SCALE_OUT/patch.tsv"
			r=$((r + 1))
		done
	done
}

# --- memory -----------------------------------------------------------------------------

scale_memory() {
	: > "$SCALE_OUT/memory.tsv"
	if ! scale_build_sites 1000; then
		echo "building the program of 1000 sites failed" >> "$SCALE_OUT/why.txt"
		return 0
	fi
	SCALE_DEFAULT_KB=$(to 10 cat "$BENCH_MNT/buffer_size_kb" | cut -d' ' -f1)
	echo "- - utracefs-idle $(rss "$BENCH_FS_PID")" >> "$SCALE_OUT/memory.tsv"
	for b in $SCALE_BUFFERS; do
		kb=$b
		[ "$b" = default ] && kb=$SCALE_DEFAULT_KB
		tfs_write "$BENCH_MNT/buffer_size_kb" "$kb"
		for t in 1 4; do
			echo "bench: scale memory: buffer_size_kb $kb, $t threads" >&2
			tfs_write "$BENCH_MNT/trace" ""
			tfs_write "$BENCH_MNT/current_tracer" function
			if ! sites_start "$SCALE_CACHE/sites-1000/sites" "$t"; then
				echo "the program of 1000 sites did not start ($t threads)" >> "$SCALE_OUT/why.txt"
				tfs_write "$BENCH_MNT/current_tracer" nop
				continue
			fi
			# Each thread writes 1,000 x REPEAT events: more than one CPU's buffer holds
			# (an event takes at least 16 bytes).
			sites_cmd "g $((kb / 8 + 1))" >/dev/null
			echo "$kb $t process $(rss "$SITES_PID")" >> "$SCALE_OUT/memory.tsv"
			echo "$kb $t utracefs $(rss "$BENCH_FS_PID")" >> "$SCALE_OUT/memory.tsv"
			sites_stop
			to 120 cat "$BENCH_MNT/trace" > /dev/null
			echo "$kb $t utracefs-after-cat $(rss "$BENCH_FS_PID")" >> "$SCALE_OUT/memory.tsv"
			tfs_write "$BENCH_MNT/current_tracer" nop
		done
	done
	tfs_write "$BENCH_MNT/trace" ""
	tfs_write "$BENCH_MNT/buffer_size_kb" "$SCALE_DEFAULT_KB"
}

workload_scale() {
	SCALE_OUT=$BENCH_OUT/scale
	rm -rf "$SCALE_OUT"
	mkdir -p "$SCALE_OUT" "$SCALE_CACHE" "$BENCH_OUT/bin"
	# shellcheck disable=SC2086
	gcc $CALLS_CFLAGS -fpatchable-function-entry=5 -o "$BENCH_OUT/bin/calls-fpe" "$CALLS_SRC" \
		-lpthread || return 1
	probe_mount "$SCALE_OUT" scale function || return 0
	# Memory first, while utracefs has seen no other program: the patch runs register
	# programs of up to 100,000 symbols, which utracefs keeps for formatting.
	scale_threads
	scale_memory
	scale_patch
	tfs_umount "$BENCH_MNT"
	return 0
}

report_scale() {
	echo "## Workload: scale (threads, patch sites, memory)"
	echo
	if [ ! -s "$SCALE_OUT/threads.tsv" ] && [ -s "$SCALE_OUT/why.txt" ]; then
		echo "Not measured: $(cat "$SCALE_OUT/why.txt")."
		echo
		return 0
	fi
	echo "### Threads"
	echo
	echo "\`bench/out/bin/calls-fpe -n $BENCH_SCALE_CALLS -t T -c $BENCH_CPU\`: T threads each make"
	echo "$BENCH_SCALE_CALLS calls; thread i is pinned to CPU ($BENCH_CPU + i) mod $(nproc), so"
	echo "beyond $(nproc) threads they share CPUs.  ns/call is the wall time of the slowest"
	echo "thread over its calls (not paired: the paired loop measures one thread);"
	echo "$BENCH_SCALE_REPEAT runs each, alternating the two configurations.  Under the function"
	echo "tracer (\`echo function > \$MNT/current_tracer\`, the same command with"
	echo "\`UTRACE_TRACING=\$MNT LD_PRELOAD=$LIBUTRACE_SHOWN\`), the overhead is the difference of"
	echo "the medians, and \"per call of CPU time\" multiplies it by min(T, CPUs) / T, the share of"
	echo "a CPU each thread had."
	echo
	echo "| threads | instrumented, no runtime: median ns/call (min…max) |" \
		"function tracer: median ns/call (min…max) | overhead ns/call (wall) |" \
		"overhead per call of CPU time | events written (median) | lost |"
	echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for t in $SCALE_THREADS; do
		awk -v t="$t" -v ncpu="$(nproc)" '
			function med(a, n,   i, j, x) {
				for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--)
					a[j + 1] = a[j]; a[j + 1] = x }
				return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
			$2 == t && $1 == "fpe" { p[++np] = $4 }
			$2 == t && $1 == "ut-function" { f[++nf] = $4; w[nf] = $5; l[nf] = $6 }
			END {
				if (!np || !nf) { printf "| %d | %s | %s | | | | |\n", t, np ? "" : "no run", nf ? "" : "no run"; exit }
				pm = med(p, np); fm = med(f, nf); wm = med(w, nf); lm = med(l, nf)
				share = ((t < ncpu) ? t : ncpu) / t
				printf "| %d | %.2f (%.2f…%.2f) | %.2f (%.2f…%.2f) | %+.2f | %+.2f | %d | %d |\n",
					t, pm, p[1], p[np], fm, f[1], f[nf], fm - pm, (fm - pm) * share, wm, lm }' \
			"$SCALE_OUT/threads.tsv"
	done
	echo
	echo "### Patching time"
	echo
	echo "A program of N functions (generated; driver bench/micro/sites.c; functions built"
	echo "with \`$SCALE_SITE_CFLAGS\`), started with \`UTRACE_TRACING=\$MNT"
	echo "LD_PRELOAD=$LIBUTRACE_SHOWN bench/out/scale-cache/sites-N/sites 1\`, registered and"
	echo "idle.  Timed: \`echo function > \$MNT/current_tracer\` and \`echo nop >"
	echo "\$MNT/current_tracer\`, each of which returns when the process has applied it;"
	echo "\"start-up\" is from exec to the program's first line (loading libutrace.so, turning"
	echo "the sites into NOPs, connecting).  Median (min…max) of $BENCH_SCALE_REPEAT runs; a run"
	echo "counts as checked when the program read NOPs, then calls, then NOPs again at its"
	echo "first, middle and last function."
	echo
	echo "| sites | runs | checked | start-up ms | function: patch ms | nop: unpatch ms | µs per site (patch) |"
	echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for n in $SCALE_SITES; do
		awk -v n="$n" '
			function med(a, k,   i, j, x) {
				for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--)
					a[j + 1] = a[j]; a[j + 1] = x }
				return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
			$1 == n { k++; s[k] = $3 * 1000; on[k] = $4 * 1000; off[k] = $5 * 1000; ok += $6 }
			END {
				if (!k) { printf "| %d | 0 | | not measured | | | |\n", n; exit }
				sm = med(s, k); om = med(on, k); fm = med(off, k)
				printf "| %d | %d | %d | %.1f (%.1f…%.1f) | %.1f (%.1f…%.1f) | %.1f (%.1f…%.1f) | %.2f |\n",
					n, k, ok, sm, s[1], s[k], om, on[1], on[k], fm, off[1], off[k], om * 1000 / n }' \
			"$SCALE_OUT/patch.tsv"
	done
	echo
	[ -s "$SCALE_OUT/patch-bytes.txt" ] && echo "Runs whose bytes did not change as expected:" &&
		sed 's/^/- /' "$SCALE_OUT/patch-bytes.txt" && echo
	echo "### Resident memory"
	echo
	echo "VmRSS and, within it, RssShmem (the shared ring buffers and control page) from"
	echo "/proc/PID/status, in MB, with the function tracer on: for the traced program"
	echo "(\`bench/out/scale-cache/sites-1000/sites T\`, 1,000 sites) after each of its T threads"
	echo "called every function kb/8 + 1 times (more events than one CPU's buffer holds),"
	echo "and for utracefs then and after \`cat trace\` read the full buffers.  One utracefs runs"
	echo "through the four rows in this order, so its figures include what earlier rows made it"
	echo "touch.  utracefs before the first row: $(awk '$3 == "utracefs-idle" { printf "VmRSS %.1f MB, RssShmem %.1f MB", $4 / 1024, $5 / 1024 }' "$SCALE_OUT/memory.tsv")."
	echo
	echo "| buffer_size_kb | threads | traced program VmRSS (shmem) | utracefs VmRSS (shmem) |" \
		"utracefs after cat trace |"
	echo "| ---: | ---: | ---: | ---: | ---: |"
	awk '$3 != "utracefs-idle" { k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
			v[k, $3] = sprintf("%.1f (%.1f)", $4 / 1024, $5 / 1024) }
		END { for (i = 1; i <= n; i++) { split(order[i], a, " ")
			printf "| %s | %s | %s | %s | %s |\n", a[1], a[2], v[order[i], "process"],
				v[order[i], "utracefs"], v[order[i], "utracefs-after-cat"] } }' \
		"$SCALE_OUT/memory.tsv"
	echo
	[ -s "$SCALE_OUT/why.txt" ] && echo "Problems: $(tr '\n' ' ' < "$SCALE_OUT/why.txt")" && echo
	return 0
}

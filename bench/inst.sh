# bench/inst.sh - workload "inst": what a snapshot swap takes and what an instance costs
# (issue 12).
#
# Sourced by bench/run.sh.  Two measurements on a utracefs of their own, each needing a
# working function tracer (the utrace probe of lib.sh):
#
# swap     `echo 1 > snapshot` of the top level, timed through the mount by
#          bench/micro/swap.c (open, write, close, BENCH_SWAP_REPEAT times after 10; median and
#          quartiles in µs), for two buffer sizes, each with empty buffers (the fixed cost:
#          the round trip through FUSE, holding each CPU) and with the buffer and the
#          snapshot both full (calls-fpe under the function tracer on every CPU, more
#          calls than a buffer holds, swapped once and filled again), so that every swap
#          exchanges every page of every CPU.  No program runs while the swaps are timed.
# memory   utracefs freshly mounted, then INST_COUNT instances made (mkdir, default
#          buffer size), each given the function tracer, then filled (calls-fpe on every
#          CPU), then each snapshot taken, then all removed: after each step, utracefs's
#          VmRSS and RssShmem and what its shared area has allocated (area_kb); the
#          report divides the growth by INST_COUNT.
#
# Results, under $BENCH_OUT/inst/:
#   swap.tsv     buffer_kb buffers entries swaps median_us q1_us q3_us min_us max_us
#                (entries: in the buffer before the swaps, over all CPUs)
#   memory.tsv   step vmrss_kb rssshmem_kb area_kb
#   why.txt      why a part did not run

BENCH_SWAP_REPEAT=${BENCH_SWAP_REPEAT:-200}
INST_COUNT=${BENCH_INST_COUNT:-16}
INST_SWAP_BUFFERS="default 16384"
INST_SWAP_SRC=$BENCH_DIR/micro/swap.c

# inst_fill KB: calls-fpe on every CPU in turn, pinned there, with more calls than a
# buffer of KB per CPU holds (an event takes at least 16 bytes), under whatever tracers
# are set.
inst_fill() {
	c=0
	while [ $c -lt "$INST_NCPU" ]; do
		UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 300 "$BENCH_OUT/bin/calls-fpe" \
			-n $(($1 * 64 + 1)) -c $c >/dev/null 2>&1 || return 1
		c=$((c + 1))
	done
}

# inst_swap_row KB BUFFERS: time the swaps of the top level's snapshot; appends to swap.tsv.
inst_swap_row() {
	entries=$(cat "$BENCH_MNT"/per_cpu/cpu*/stats 2>/dev/null |
		awk -F': ' '$1 == "entries" { n += $2 } END { print n + 0 }')
	out=$(to 600 "$BENCH_OUT/bin/swap" "$BENCH_MNT/snapshot" "$BENCH_SWAP_REPEAT" 2>&1)
	# "swaps=N median_us=M q1_us=..." -> "N M ...": the values, in the line's order
	line=$(printf '%s\n' "$out" | grep '^swaps=[0-9]* median_us=' | sed 's/[a-z_0-9]*=//g')
	if [ -z "$line" ]; then
		echo "swaps with $2 buffers of $1 kB: $(printf '%s' "$out" | head -1)" >> "$INST_OUT/why.txt"
		return 0
	fi
	echo "$1 $2 $entries $line" >> "$INST_OUT/swap.tsv"
}

inst_swap() {
	m=$BENCH_MNT
	: > "$INST_OUT/swap.tsv"
	for b in $INST_SWAP_BUFFERS; do
		kb=$b
		[ "$b" = default ] && kb=$INST_DEFAULT_KB
		echo "bench: inst swap: buffer_size_kb $kb" >&2
		tfs_write "$m/buffer_size_kb" "$kb"
		tfs_write "$m/snapshot" 0
		tfs_write "$m/trace" ""
		inst_swap_row "$kb" empty
		# The snapshot takes the first filling, the buffer the second; each swap then
		# exchanges two full buffers (nothing writes meanwhile).
		tfs_write "$m/snapshot" 0
		tfs_write "$m/current_tracer" function
		if inst_fill "$kb" && tfs_write "$m/snapshot" 1 && inst_fill "$kb"; then
			inst_swap_row "$kb" full
		else
			echo "filling buffers of $kb kB failed" >> "$INST_OUT/why.txt"
		fi
		tfs_write "$m/current_tracer" nop
		tfs_write "$m/snapshot" 0
	done
	tfs_write "$m/buffer_size_kb" "$INST_DEFAULT_KB"
}

# inst_mem STEP: one line of memory.tsv.
inst_mem() {
	echo "$1 $(rss "$BENCH_FS_PID") $(area_kb "$BENCH_FS_PID")" >> "$INST_OUT/memory.tsv"
}

inst_memory() {
	: > "$INST_OUT/memory.tsv"
	inst_mem mounted
	names=$(i=1; while [ $i -le "$INST_COUNT" ]; do printf 'mem%d ' $i; i=$((i + 1)); done)
	for n in $names; do mkdir "$BENCH_MNT/instances/$n" || return 1; done
	inst_mem made
	for n in $names; do tfs_write "$BENCH_MNT/instances/$n/current_tracer" function; done
	inst_mem tracer
	inst_fill "$INST_DEFAULT_KB" || echo "filling the instances failed" >> "$INST_OUT/why.txt"
	inst_mem filled
	for n in $names; do tfs_write "$BENCH_MNT/instances/$n/snapshot" 1; done
	inst_mem snapshot
	for n in $names; do
		tfs_write "$BENCH_MNT/instances/$n/current_tracer" nop
		rmdir "$BENCH_MNT/instances/$n"
	done
	inst_mem removed
}

workload_inst() {
	INST_OUT=$BENCH_OUT/inst
	rm -rf "$INST_OUT"
	mkdir -p "$INST_OUT" "$BENCH_OUT/bin"
	# shellcheck disable=SC2086
	gcc $CALLS_CFLAGS -fpatchable-function-entry=5 -o "$BENCH_OUT/bin/calls-fpe" "$CALLS_SRC" \
		-lpthread && gcc $CALLS_CFLAGS -o "$BENCH_OUT/bin/swap" "$INST_SWAP_SRC" || return 1
	probe_mount "$INST_OUT" inst function || return 0
	INST_NCPU=$(ls -d "$BENCH_MNT"/per_cpu/cpu* | wc -l)
	# an instance's size (already expanded), which the top level takes on first use
	mkdir "$BENCH_MNT/instances/probe" &&
		INST_DEFAULT_KB=$(to 10 cat "$BENCH_MNT/instances/probe/buffer_size_kb") &&
		rmdir "$BENCH_MNT/instances/probe"
	# memory first, on a utracefs that has seen nothing else
	inst_memory || echo "making $INST_COUNT instances failed" >> "$INST_OUT/why.txt"
	inst_swap
	tfs_umount "$BENCH_MNT"
	return 0
}

report_inst() {
	echo "## Workload: inst (snapshot swap, memory per instance)"
	echo
	if [ -s "$INST_OUT/why.txt" ] && [ ! -s "$INST_OUT/swap.tsv" ] &&
		[ ! -s "$INST_OUT/memory.tsv" ]; then
		echo "Not measured: $(cat "$INST_OUT/why.txt")."
		echo
		return 0
	fi
	echo "### Snapshot swap"
	echo
	echo "\`echo 1 > snapshot\` of the top level through the mount, as"
	echo "\`bench/out/bin/swap \$MNT/snapshot $BENCH_SWAP_REPEAT\` (bench/micro/swap.c) times it:"
	echo "$BENCH_SWAP_REPEAT swaps per row (after 10 untimed), each an open, a write and a"
	echo "close, in µs.  The write returns when all $INST_NCPU CPUs are swapped.  *empty*:"
	echo "nothing in either buffer, the fixed cost; *full*: the buffer and the snapshot both"
	echo "full (filled by calls-fpe under the function tracer on every CPU), so that every swap"
	echo "exchanges every page of every CPU.  No program writes while the swaps are timed."
	echo
	echo "| buffer_size_kb (per CPU) | buffers | events in the buffer | median | IQR | min | max |"
	echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"
	awk '{ printf "| %s | %s | %d | %.1f µs | %.1f…%.1f | %.1f | %.1f |\n", $1, $2, $3, $5,
		$6, $7, $8, $9 }' "$INST_OUT/swap.tsv"
	echo
	echo "### Memory per instance"
	echo
	echo "A fresh utracefs; $INST_COUNT instances made with mkdir (buffer_size_kb"
	echo "${INST_DEFAULT_KB:-?} per CPU, their default); each given the function tracer; their"
	echo "buffers filled (calls-fpe on each of the $INST_NCPU CPUs); each one's snapshot taken"
	echo "(\`echo 1 > snapshot\`); all removed.  VmRSS and RssShmem of utracefs from"
	echo "/proc/PID/status, and *own*, the difference: utracefs's private memory (RssShmem"
	echo "counts the shared pages utracefs itself touched); *area*: what the shared memfd of"
	echo "the rings has allocated, whoever touched it (its blocks).  *Per instance*: the growth"
	echo "since the mount, divided by $INST_COUNT."
	echo
	echo "| after | utracefs VmRSS | RssShmem | own | area | per instance: own | per instance: area |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk -v n="$INST_COUNT" '
		NR == 1 { o0 = $2 - $3; a0 = $4 }
		{ printf "| %s | %.1f MB | %.1f MB | %.1f MB | %.1f MB | %.0f kB | %.0f kB |\n", $1,
			$2 / 1024, $3 / 1024, ($2 - $3) / 1024, $4 / 1024, ($2 - $3 - o0) / n,
			($4 - a0) / n }' "$INST_OUT/memory.tsv"
	echo
	[ -s "$INST_OUT/why.txt" ] && echo "Problems: $(cat "$INST_OUT/why.txt")." && echo
	echo "An instance's rings take memory in the area as they are written; its snapshot is"
	echo "utracefs's own memory; \`rmdir\` gives both back."
	echo
}

# bench/rec.sh - workload "rec": what `utrace record` keeps up with, what `utrace report`
# reads, and what the recorder costs in memory (issue 14).
#
# Sourced by bench/run.sh.  On a utracefs of its own (the utrace probe of lib.sh must
# pass):
#
# rates    bench/micro/paced.c calls a traced function RATE times a second for
#          BENCH_REC_SECONDS (default 3) under `utrace record -p function` (default
#          buffer size), for each RATE of BENCH_REC_RATES: the events the file kept, the
#          events the buffers lost before the recorder took them (record's closing
#          line), the rate paced achieved, the file's MB/s, and the recorder's largest
#          resident set (GNU time's %M, KB).
# report   a recording of about BENCH_REPORT_MB (default 1024) MB, made at the fastest
#          rate that lost nothing (or the slowest), read to /dev/null by `utrace report`
#          and by `trace-cmd report`: events per second of each.
#
# Results, under $BENCH_OUT/rec/:
#   rates.tsv   rate_asked rate_made kept lost mb seconds maxrss_kb
#   report.tsv  tool events mb seconds
#   why.txt     why a part did not run

BENCH_REC_RATES=${BENCH_REC_RATES:-250000 500000 1000000 2000000 4000000 8000000 16000000}
BENCH_REC_SECONDS=${BENCH_REC_SECONDS:-3}
BENCH_REPORT_MB=${BENCH_REPORT_MB:-1024}
REC_PACED_SRC=$BENCH_DIR/micro/paced.c

# rec_run RATE SECONDS FILE: one recording; prints "rate_made kept lost mb seconds maxrss_kb".
rec_run() {
	t0=$(now_s)
	UTRACE_TRACING=$BENCH_MNT to 600 /usr/bin/time -f 'maxrss_kb=%M' "$BUILD/bin/utrace" \
		record -p function -o "$3" -- "$BENCH_OUT/bin/paced" "$1" "$2" \
		>"$REC_OUT/run.out" 2>"$REC_OUT/run.err"
	t1=$(now_s)
	made=$(sed -n 's/.* rate=\([0-9]*\).*/\1/p' "$REC_OUT/run.out")
	kept=$(sed -n 's/^utrace record: \([0-9]*\) events, .*/\1/p' "$REC_OUT/run.err" | tail -1)
	lost=$(sed -n 's/^utrace record: [0-9]* events, [0-9.]* MB, \([0-9]*\)+* lost.*/\1/p' \
		"$REC_OUT/run.err" | tail -1)
	rss=$(sed -n 's/^maxrss_kb=//p' "$REC_OUT/run.err")
	mb=$(($(stat -c %s "$3" 2>/dev/null || echo 0) / 1000000))
	echo "${made:-0} ${kept:-0} ${lost:-0} $mb $(echo "$t1 - $t0" | bc -l | cut -c1-6) ${rss:-0}"
}

workload_rec() {
	REC_OUT=$BENCH_OUT/rec
	rm -rf "$REC_OUT"
	mkdir -p "$REC_OUT" "$BENCH_OUT/bin"
	# shellcheck disable=SC2086
	gcc $CALLS_CFLAGS -fpatchable-function-entry=5 -o "$BENCH_OUT/bin/calls-fpe" "$CALLS_SRC" \
		-lpthread && gcc -O2 -fpatchable-function-entry=5 -o "$BENCH_OUT/bin/paced" \
		"$REC_PACED_SRC" || return 1
	if [ ! -x /usr/bin/time ]; then
		echo "GNU time is missing (make deps-bench)" > "$REC_OUT/why.txt"
		return 0
	fi
	probe_mount "$REC_OUT" rec function || return 0
	: > "$REC_OUT/rates.tsv"
	best=
	for r in $BENCH_REC_RATES; do
		echo "bench: rec: $r calls/s" >&2
		line=$(rec_run "$r" "$BENCH_REC_SECONDS" "$BENCH_TMP/rec.dat")
		echo "$r $line" >> "$REC_OUT/rates.tsv"
		set -- $line
		[ "$3" = 0 ] && [ "$2" -gt 0 ] && best=$r
	done
	rm -f "$BENCH_TMP/rec.dat"
	: > "$REC_OUT/report.tsv"
	r=${best:-$(echo "$BENCH_REC_RATES" | cut -d' ' -f1)}
	# an event is 28 bytes in a page (a 4-byte header, 24 of data)
	secs=$(echo "$BENCH_REPORT_MB * 1000000 / 28 / $r + 1" | bc)
	echo "bench: rec: a ${BENCH_REPORT_MB} MB recording ($secs s at $r calls/s)" >&2
	rec_run "$r" "$secs" "$BENCH_TMP/big.dat" > "$REC_OUT/big.txt"
	set -- $(cat "$REC_OUT/big.txt")
	events=$2 mb=$4
	for tool in utrace trace-cmd; do
		if [ $tool = utrace ]; then
			set -- "$BUILD/bin/utrace" report -i "$BENCH_TMP/big.dat"
		else
			command -v trace-cmd >/dev/null || continue
			set -- trace-cmd report "$BENCH_TMP/big.dat"
		fi
		t0=$(now_s)
		to 3600 "$@" >/dev/null 2>&1 || echo "$tool report failed" >> "$REC_OUT/why.txt"
		t1=$(now_s)
		echo "$tool $events $mb $(echo "$t1 - $t0" | bc -l | cut -c1-7)" >> "$REC_OUT/report.tsv"
	done
	rm -f "$BENCH_TMP/big.dat"
	tfs_umount "$BENCH_MNT"
	return 0
}

report_rec() {
	echo "## Workload: rec (recording to trace.dat, reading it back)"
	echo
	if [ ! -s "$REC_OUT/rates.tsv" ]; then
		echo "Not measured: $(cat "$REC_OUT/why.txt" 2>/dev/null)."
		echo
		return 0
	fi
	echo "\`utrace record -p function -o FILE -- bench/out/bin/paced RATE $BENCH_REC_SECONDS\`"
	echo "(bench/micro/paced.c: RATE calls a second of one traced function, each one event),"
	echo "default buffer size, on $(nproc) CPUs.  *kept*: events in the file; *lost*: events the"
	echo "buffers dropped before the recorder drained them (record's closing line); *made*:"
	echo "the rate paced achieved under the tracer; *memory*: the recorder's largest resident"
	echo "set (GNU time %M)."
	echo
	echo "| calls/s asked | made | kept | lost | file MB | MB/s | s | recorder memory |"
	echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	while read -r asked made kept lost mb secs rss; do
		mbs=$(echo "scale=1; $mb / $secs" | bc -l)
		echo "| $asked | $made | $kept | $lost | $mb | $mbs | $secs | $rss KB |"
	done < "$REC_OUT/rates.tsv"
	echo
	best=$(awk '$4 == 0 && $3 > 0 { b = $2 } END { print b + 0 }' "$REC_OUT/rates.tsv")
	echo "Sustained without loss: **$best events/s** (the fastest row above that lost none)."
	echo
	if [ -s "$REC_OUT/report.tsv" ]; then
		echo "Reading a recording back to /dev/null (\`utrace report -i FILE\`, \`trace-cmd report FILE\`):"
		echo
		echo "| reader | events | file MB | s | events/s |"
		echo "| --- | ---: | ---: | ---: | ---: |"
		while read -r tool ev mb secs; do
			echo "| $tool | $ev | $mb | $secs | $(echo "$ev / $secs" | bc) |"
		done < "$REC_OUT/report.tsv"
		echo
	fi
	if [ -s "$REC_OUT/why.txt" ]; then
		echo "Notes: $(cat "$REC_OUT/why.txt")"
		echo
	fi
}

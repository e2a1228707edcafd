# bench/events.sh - workload "events": what a trace event costs the program that fires
# it (issue 13): a utrace event disabled (its call site a 5-byte NOP) and enabled, an
# LTTng-UST tracepoint with the same payload (four integers and a 16-byte string), and
# a <sys/sdt.h> probe with the same arguments (the string's address) disabled (its nop)
# and enabled (the utrace event utrace_bench:sdt).
#
# Sourced by bench/run.sh.  bench/micro/events.c measures in the process, paired: blocks
# that fire the event alternate with the same blocks without it (bench/method.md), and
# prints the median overhead per event.  Each configuration runs BENCH_REPEAT times, in
# rotated order.  The enabled utrace row needs utracefs; until the events/ control files
# exist it enables the event with utracefs's test hook (UTRACEFS_TEST_EVENTS).
#
# Results, under $BENCH_OUT/events/:
#   runs.tsv   config round overhead_ns event_ns plain_ns
#   why.tsv    config why (a configuration that could not run)
#   sdt-mode   jmp or trap: how the runtime armed the SDT site (events_sdt_mode)

EVENTS_SRC=$BENCH_DIR/micro/events.c
EVENTS_CONFIGS="ut-disabled ut-enabled ut-filter-pass ut-filter-reject lttng-off lttng sdt-disabled
sdt-enabled"
EVENTS_ARGS_N=${BENCH_EVENTS_PAIRS:-100}

events_args() { echo "-n $EVENTS_ARGS_N -b $BENCH_BLOCK -c $BENCH_CPU"; }
# The enabled SDT row's arguments: the others' while its armed site is a jump to a
# trampoline (events_sdt_mode said "jmp").  A site left a trap costs a signal a hit
# (microseconds): blocks a hundred times shorter, at most 20 pairs, so that a run ends
# well within its 120 s.
events_sdt_args() {
	if [ "$(cat "$BENCH_OUT/events/sdt-mode" 2>/dev/null)" = jmp ]; then
		events_args
		return
	fi
	n=$EVENTS_ARGS_N
	[ "$n" -gt 20 ] && n=20
	bl=$((BENCH_BLOCK / 100))
	[ "$bl" -lt 1 ] && bl=1
	echo "-n $n -b $bl -c $BENCH_CPU"
}

# events_sdt_mode: how the runtime arms the SDT site, "jmp" or "trap", from a short run:
# a trap if utracefs's console says so (sdt.c says it once a site) or a hit costs the
# microseconds of a signal.
events_sdt_mode() {
	o=$(UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 60 "$BENCH_OUT/bin/events-sdt" -w -n 5 \
		-b 100 -c "$BENCH_CPU" | sed -n 's/.*overhead_ns=\([0-9]*\).*/\1/p')
	if [ -z "$o" ] || [ "$o" -ge 4000 ] ||
		grep -q 'SDT probe utrace_bench:sdt .* armed as an int3' "$BENCH_OUT/utracefs-events.log"; then
		echo trap
	else
		echo jmp
	fi
}

events_build() {
	b=$BENCH_OUT/bin
	mkdir -p "$b"
	# shellcheck disable=SC2086
	gcc $CALLS_CFLAGS -I"$TOP/include" -o "$b/events-ut" "$EVENTS_SRC" || return 1
	# shellcheck disable=SC2086
	gcc $CALLS_CFLAGS -DBENCH_LTTNG -I"$BENCH_DIR/micro" -o "$b/events-lttng" "$EVENTS_SRC" \
		"$BENCH_DIR/micro/events_tp.c" -llttng-ust -ldl -lpthread \
		2>"$BENCH_OUT/events-lttng-build.log" || rm -f "$b/events-lttng"
	# shellcheck disable=SC2086
	gcc $CALLS_CFLAGS -DBENCH_SDT -o "$b/events-sdt" "$EVENTS_SRC" \
		2>"$BENCH_OUT/events-sdt-build.log" || rm -f "$b/events-sdt"
	return 0
}

# events_one CONFIG: one run; prints the program's line (empty when it failed).
events_one() {
	b=$BENCH_OUT/bin
	# shellcheck disable=SC2046
	case $1 in
	ut-disabled) UTRACE_TRACING=$BENCH_NOMOUNT LD_PRELOAD=$LIBUTRACE to 120 "$b/events-ut" \
		$(events_args) ;;
	ut-enabled) UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 120 "$b/events-ut" -w $(events_args) ;;
	ut-filter-pass | ut-filter-reject)
		# b is always 2: the filter takes every event, or refuses every one
		tfs_write "$BENCH_MNT/events/utrace_bench/ev/filter" \
			"$([ "$1" = ut-filter-pass ] && echo 'b == 2' || echo 'b == 3')"
		UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 120 "$b/events-ut" -w $(events_args)
		tfs_write "$BENCH_MNT/events/utrace_bench/ev/filter" 0 ;;
	lttng-off) to 120 "$b/events-lttng" $(events_args) ;;
	lttng) lttng_run "$(events_args)" utrace_bench:ev "$b/events-lttng" | sed -n 2p ;;
	sdt-disabled) UTRACE_TRACING=$BENCH_NOMOUNT LD_PRELOAD=$LIBUTRACE to 120 "$b/events-sdt" \
		$(events_args) ;;
	sdt-enabled) UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 120 "$b/events-sdt" -w \
		$(events_sdt_args) ;;
	esac
}

workload_events() {
	EVENTS_OUT=$BENCH_OUT/events
	rm -rf "$EVENTS_OUT"
	mkdir -p "$EVENTS_OUT"
	: > "$EVENTS_OUT/runs.tsv"
	: > "$EVENTS_OUT/why.tsv"
	events_build || return 1
	[ -x "$BENCH_OUT/bin/events-lttng" ] || {
		echo "lttng-off the tracepoint build failed: $(head -1 "$BENCH_OUT/events-lttng-build.log")"
		echo "lttng the tracepoint build failed"
	} >> "$EVENTS_OUT/why.tsv"
	[ -x "$BENCH_OUT/bin/events-sdt" ] || {
		echo "sdt-disabled the probe build failed: $(head -1 "$BENCH_OUT/events-sdt-build.log")"
		echo "sdt-enabled the probe build failed"
	} >> "$EVENTS_OUT/why.tsv"
	started=
	if [ -x "$BENCH_OUT/bin/events-lttng" ] && [ -z "$LTTNG_SESSIOND_PID" ]; then
		lttng_start
		started=1
		[ "$LTTNG_OK" = 1 ] || echo "lttng $LTTNG_WHY" >> "$EVENTS_OUT/why.tsv"
	fi
	# the enabled utrace row: enabled by the test hook, 64 MB per CPU; the disabled row
	# runs with the runtime dormant (no daemon at $BENCH_NOMOUNT): its site stays a NOP
	export UTRACEFS_TEST_EVENTS=utrace_bench:ev,utrace_bench:sdt
	if ! tfs_mount "$BENCH_MNT" "$BENCH_OUT/utracefs-events.log"; then
		printf 'ut-disabled utracefs did not mount\nut-enabled utracefs did not mount\n' \
			>> "$EVENTS_OUT/why.tsv"
	fi
	unset UTRACEFS_TEST_EVENTS
	tfs_write "$BENCH_MNT/buffer_size_kb" 65536
	# the filter rows write the event's filter file: it exists once a program announced it
	UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 60 "$BENCH_OUT/bin/events-ut" -w -n 1 \
		-b 1 -c "$BENCH_CPU" >/dev/null 2>&1
	[ -e "$BENCH_MNT/events/utrace_bench/ev/filter" ] ||
		printf 'ut-filter-pass the event was not announced\nut-filter-reject the event was not announced\n' \
			>> "$EVENTS_OUT/why.tsv"
	[ -x "$BENCH_OUT/bin/events-sdt" ] && events_sdt_mode > "$EVENTS_OUT/sdt-mode"
	for r in $(seq 1 "$BENCH_REPEAT"); do
		for c in $(rotated "$r" $EVENTS_CONFIGS); do
			grep -q "^$c " "$EVENTS_OUT/why.tsv" && continue
			echo "bench: events $c round $r" >&2
			line=$(events_one "$c")
			echo "$line" | awk -v c="$c" -v r="$r" '
				{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
				v["overhead_ns"] != "" { print c, r, v["overhead_ns"], v["event_ns"], v["plain_ns"], v["enabled"] }' \
				>> "$EVENTS_OUT/runs.tsv"
		done
	done
	tfs_umount "$BENCH_MNT"
	[ -n "$started" ] && lttng_stop
	awk '{ print $1, $3 }' "$EVENTS_OUT/runs.tsv" | stats_by_key > "$EVENTS_OUT/stats.tsv"
}

report_events() {
	echo "## Workload: events (trace events a program defines)"
	echo
	echo "\`bench/out/bin/events-ut $(events_args)\` (bench/micro/events.c): an event of four"
	echo "integers and a 16-byte string, fired $BENCH_BLOCK times per block; blocks with the event"
	echo "alternate with the same blocks without it, and a run prints the median difference"
	echo "per event (paired, bench/method.md).  Each configuration ran $BENCH_REPEAT times; the"
	echo "table shows the median, min and max over runs."
	echo
	echo "| configuration | overhead per event (median) | min | max | runs |"
	echo "| --- | ---: | ---: | ---: | ---: |"
	for c in $EVENTS_CONFIGS; do
		case $c in
		ut-disabled) t="utrace event, disabled (5-byte NOP; runtime loaded, no daemon)" ;;
		ut-enabled) t="utrace event, enabled (written to the top level's ring)" ;;
		ut-filter-pass) t="utrace event, enabled, with a filter that takes it (\`b == 2\`)" ;;
		ut-filter-reject) t="utrace event, enabled, with a filter that refuses it (\`b == 3\`: not written)" ;;
		lttng-off) t="LTTng-UST tracepoint, no session" ;;
		lttng) t="LTTng-UST tracepoint, enabled in a session" ;;
		sdt-disabled) t="SDT probe, disabled (its nop; runtime loaded, no daemon)" ;;
		sdt-enabled) t="SDT probe, enabled (armed site, a $(cat "$EVENTS_OUT/sdt-mode" 2>/dev/null || echo trap), written to the top level's ring; \`$(events_sdt_args)\`)" ;;
		esac
		why=$(sed -n "s/^$c //p" "$EVENTS_OUT/why.tsv" | head -1)
		if [ -n "$why" ]; then
			echo "| $t | not available: $why | | | |"
			continue
		fi
		awk -v c="$c" -v t="$t" '$1 == c { printf "| %s | %.2f ns | %.2f | %.2f | %d |\n", t, $4, $3, $5, $2 }' \
			"$EVENTS_OUT/stats.tsv"
	done
	echo
	awk '$1 == "ut-enabled" { u = $4 } $1 == "lttng" { l = $4 }
		END { if (u > 0 && l > 0) printf "An enabled utrace event costs %.2f× what an enabled LTTng-UST tracepoint with the same payload costs (target: at most 0.25×; and < 15 ns).\n\n", u / l }' \
		"$EVENTS_OUT/stats.tsv"
}

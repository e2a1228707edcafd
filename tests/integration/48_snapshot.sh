#!/bin/sh
# 48_snapshot.sh - snapshot (issue 12): the kernel's table row by row through a real
# mount (0 frees, 1 allocates and swaps, other numbers clear; per_cpu/cpuN/snapshot:
# 0 EINVAL, 1 swaps that CPU), the kernel's help text while it is empty, the main
# buffer empty after a swap (trace, stats), instances' own snapshots, and swaps
# while writers write: every event is in the snapshot taken or in the main buffer,
# counted exactly (entries + overrun of every snapshot and of the main buffer =
# events written), whether utracefs writes them (trace_marker) or traced threads do.
. "$(dirname "$0")/lib.sh"
ut_mount

S=$T/snapshot
P=$PROGS/probe_prog
# the kernel's text, top level and per_cpu, after "# tracer: nop" and "#"
help_top() {
	printf '#\n# * Snapshot is %s *\n#\n# Snapshot commands:\n' "$1"
	printf '%s\n' "# echo 0 > snapshot : Clears and frees snapshot buffer" \
		"# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated." \
		"#                      Takes a snapshot of the main buffer." \
		"# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)" \
		"#                      (Doesn't have to be '2' works with any number that" \
		"#                       is not a '0' or '1')"
}
help_cpu() {
	printf '#\n# * Snapshot is %s *\n#\n# Snapshot commands:\n' "$1"
	printf '%s\n' "# echo 0 > snapshot : Invalid for per_cpu snapshot file." \
		"# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated." \
		"#                      Takes a snapshot of the main buffer for this cpu." \
		"# echo 2 > snapshot : Clears this cpu's snapshot buffer (but does not allocate)" \
		"#                      (Doesn't have to be '2' works with any number that" \
		"#                       is not a '0' or '1')"
}
# the text of the marker lines of a file, on one line
markers() { sed -n 's/.*tracing_mark_write: //p' "$1" | tr '\n' ' ' | sed 's/ $//'; }
# entries/written of a trace file's header
counts() { sed -n 's/^# entries-in-buffer\/entries-written: \([0-9]*\/[0-9]*\) .*/\1/p' "$1"; }
# entries + overrun of a trace file (0 for an empty snapshot: no header)
written() { c=$(counts "$1"); echo "${c#*/}" | sed 's/^$/0/'; }
# swap_while PID: swap again and again while PID runs (at least once), then set sum
# to the events of the snapshot and of the buffer (swapped, not copied: every event
# written since both were emptied is in one of the two), swaps to their number and
# refused to the number of swaps that failed
swap_while() {
	swaps=0 refused=0
	while kill -0 "$1" 2>/dev/null || [ $swaps -eq 0 ]; do
		echo 1 2>/dev/null >"$S" || refused=$((refused + 1))
		swaps=$((swaps + 1))
	done
	wait "$1"
	sum=$(($(written "$S") + $(written "$T/trace")))
}
# mark CPU TEXT: a trace_marker event on CPU
mark() { taskset -c "$1" sh -c "echo '$2' >'$T/trace_marker'"; }
NCPU=$(ls "$T/per_cpu" | wc -l)

# ---- the files ---------------------------------------------------------------------------
expect_eq "snapshot at the top, in per_cpu/cpuN, mode 0640" "-rw-r----- -rw-r-----" \
	"$(stat -c %A "$S" "$T/per_cpu/cpu0/snapshot" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "not allocated: the tracer line and the kernel's help" \
	"$(printf '# tracer: nop\n#\n'; help_top freed)" "$(cat "$S")"
expect_eq "per_cpu, not allocated: the per-CPU help" \
	"$(printf '# tracer: nop\n#\n'; help_cpu freed)" "$(cat "$T/per_cpu/cpu0/snapshot")"

# ---- the table: not allocated ---------------------------------------------------------------
expect_eq "a fresh mount's buffer is not expanded" "7 (expanded: 1408)" "$(cat "$T/buffer_size_kb")"
echo 0 >"$S"
expect_eq "0, not allocated: nothing (still freed); any write expands the buffer" \
	"# * Snapshot is freed * 1410" "$(grep -F '* Snapshot' "$S") $(cat "$T/buffer_size_kb")"
echo 2 >"$S"
echo 17 >"$S"
expect_eq "other numbers, not allocated: nothing (still freed)" "# * Snapshot is freed *" \
	"$(grep -F '* Snapshot' "$S")"
expect_write_err "not a number: EINVAL" "Invalid argument" abc "$S"
expect_write_err "a negative number: EINVAL" "Invalid argument" -1 "$S"
expect_write_err "per_cpu: 0 is EINVAL" "Invalid argument" 0 "$T/per_cpu/cpu0/snapshot"
expect_eq "... and none allocated it" "# * Snapshot is freed *" "$(grep -F '* Snapshot' "$S")"

# ---- 1: allocate and swap ---------------------------------------------------------------------
mark 0 one
mark 0 two
echo 1 >"$S"
expect_eq "1: the snapshot holds the main buffer's events" "one two" "$(markers "$S")"
expect_eq "... its header counts them" "2/2" "$(counts "$S")"
expect_eq "... in the trace format (the tracer's header)" \
	"$(sed -n '1,12p' "$T/trace")" "$(sed -n '1,12p' "$S" | sed 's/2\/2 /0\/0 /')"
expect_eq "... and the main buffer starts empty" "0/0 " "$(counts "$T/trace") $(markers "$T/trace")"
expect_eq "... its stats too" "entries: 0 overrun: 0 dropped events: 0 read events: 0" \
	"$(grep -E '^(entries|overrun|dropped events|read events):' "$T/per_cpu/cpu0/stats" |
		tr '\n' ' ' | sed 's/ $//')"
expect_eq "per_cpu/cpu0/snapshot shows CPU 0's part" "one two" \
	"$(markers "$T/per_cpu/cpu0/snapshot")"
if [ "$NCPU" -gt 1 ]; then
	expect_eq "an empty CPU's per_cpu snapshot: the help, allocated" \
		"$(printf '# tracer: nop\n#\n'; help_cpu allocated)" "$(cat "$T/per_cpu/cpu1/snapshot")"
fi
mark 0 three
expect_eq "writers go on in the main buffer, the snapshot stays" "three|one two" \
	"$(markers "$T/trace")|$(markers "$S")"
echo 1 >"$S"
expect_eq "1 again: swap again (the buffer gets the previous snapshot back, as the kernel's)" \
	"three|one two" "$(markers "$S")|$(markers "$T/trace")"
expect_eq "... with its counts" "1/1|2/2" "$(counts "$S")|$(counts "$T/trace")"
mark 0 four
expect_eq "... and writers go on after its events" "one two four" "$(markers "$T/trace")"
echo >"$T/trace"

# ---- other numbers: clear; 0: free -------------------------------------------------------------
echo 2 >"$S"
expect_eq "2: the snapshot is cleared, still allocated (the help again)" \
	"$(printf '# tracer: nop\n#\n'; help_top allocated)" "$(cat "$S")"
mark 0 four
echo 1 >"$S"
echo 100 >"$S"
expect_eq "any other number clears too" "# * Snapshot is allocated *" "$(grep -F '* Snapshot' "$S")"
mark 0 five
echo 1 >"$S"
expect_write_err "bad input, allocated: EINVAL" "Invalid argument" 1x "$S"
expect_eq "... and the snapshot is left as it was" "five" "$(markers "$S")"
mark 0 six
echo 1 >"$S"
echo local >"$T/trace_clock"
expect_eq "a trace_clock write clears the snapshot too, as the kernel's" \
	"$(printf '# tracer: nop\n#\n'; help_top allocated)" "$(cat "$S")"
echo 0 >"$S"
expect_eq "0: freed" "# * Snapshot is freed *" "$(grep -F '* Snapshot' "$S")"

# ---- per_cpu ---------------------------------------------------------------------------------------
if [ "$NCPU" -gt 1 ]; then
	echo >"$T/trace"
	mark 0 c0
	mark 1 c1
	echo 1 >"$T/per_cpu/cpu1/snapshot"
	expect_eq "per_cpu 1 allocates and swaps that CPU only" "c1|c0" "$(markers "$S")|$(markers "$T/trace")"
	mark 0 c0b
	echo 1 >"$T/per_cpu/cpu0/snapshot"
	expect_eq "... each CPU on its own (the snapshot in time order)" "c0 c1 c0b|" "$(markers "$S")|$(markers "$T/trace")"
	echo 5 >"$T/per_cpu/cpu0/snapshot"
	expect_eq "per_cpu other number: clears that CPU's part only" "c1" "$(markers "$S")"
	echo 0 >"$S"
else
	skip "per_cpu swaps" "one CPU"
fi

# ---- the snapshot has the buffer's size, and follows it -------------------------------------------------
# fill: 300 markers of 64 bytes on CPU 0 (46 to a page): the small buffers overflow
fill() {
	taskset -c 0 sh -c 'i=100; while [ $i -lt 400 ]; do
		echo "fill$i-0123456789012345678901234567890123456789012345678901234" >"$1"
		i=$((i + 1)); done' sh "$T/trace_marker"
}
echo >"$T/trace"
echo 8 >"$T/buffer_size_kb"
fill
b8=$(counts "$T/trace")
echo 1 >"$S"
expect_eq "buffer_size_kb 8: the snapshot holds what the full buffer held" \
	"$b8|0/0" "$(counts "$S")|$(counts "$T/trace")"
echo 16 >"$T/buffer_size_kb"
expect_eq "a resize resizes the snapshot with the buffer, its events kept" "$b8" "$(counts "$S")"
fill
b16=$(counts "$T/trace")
echo 1 >"$S"
expect_eq "buffer_size_kb 16: the snapshot holds the full buffer, the buffer the old snapshot" \
	"$b16|$b8" "$(counts "$S")|$(counts "$T/trace")"
expect_eq "... 300 written each time, more kept with 16 KB than with 8" "300 300 1" \
	"${b8#*/} ${b16#*/} $([ "${b16%/*}" -gt "${b8%/*}" ] && echo 1)"
echo 8 >"$T/buffer_size_kb"
expect_eq "a shrink keeps the snapshot's newest events, the others count as overrun" \
	"${b8%/*}/300" "$(counts "$S")"
echo 0 >"$S"

# ---- per_cpu/cpuN/snapshot_raw: the snapshot's pages, consumed ----------------------------------------
echo >"$T/trace"
mark 0 raw-one
mark 0 raw-two
echo 1 >"$S"
R0=$T/per_cpu/cpu0/snapshot_raw
expect_eq "snapshot_raw: mode 0440" "-r--r-----" "$(stat -c %A "$R0")"
dd if="$R0" of="$UT_TMP/raw" bs=4096 count=1 iflag=nonblock 2>/dev/null
expect_eq "snapshot_raw: one 4096-byte page with both events" "4096 raw-one raw-two" \
	"$(stat -c %s "$UT_TMP/raw") $(tr -c 'a-z-' '\n' <"$UT_TMP/raw" | grep '^raw-' | tr '\n' ' ' | sed 's/ $//')"
expect_eq "... taken out of the snapshot (empty: the help), the buffer untouched" \
	"# * Snapshot is allocated *|0/0" "$(grep -F '* Snapshot' "$S")|$(counts "$T/trace")"
out=$(dd if="$R0" of=/dev/null bs=4096 count=1 iflag=nonblock 2>&1)
expect_match "an empty snapshot_raw with O_NONBLOCK: EAGAIN" "Resource temporarily unavailable" "$out"
echo 0 >"$S"

# ---- the kernel's selftests (test.d/00basic/snapshot.tc, snapshot1.tc) ------------------------------
echo 0 >"$T/tracing_on"
echo 1 >"$S"
expect_eq "a swap with tracing off: allocated, tracing stays off" "# * Snapshot is allocated *|0" \
	"$(grep -F '* Snapshot' "$S")|$(cat "$T/tracing_on")"
echo 1 >"$T/tracing_on"
echo 1 >"$S"
expect_eq "... and on stays on" "1" "$(cat "$T/tracing_on")"
mask=$(cat "$T/tracing_cpumask")
echo 0 >"$T/tracing_cpumask"
echo 1 >"$S"
echo "$mask" >"$T/tracing_cpumask"
echo "test input 1" >"$T/trace_marker"
expect_match "a swap with every CPU masked out: the buffers still work after" "test input 1" \
	"$(markers "$T/trace")"
echo 0 >"$S"
echo >"$T/trace"

# ---- instances ---------------------------------------------------------------------------------
mkdir "$T/instances/s"
IS=$T/instances/s/snapshot
echo in-inst >"$T/instances/s/trace_marker"
mark 0 in-top
echo 1 >"$IS"
expect_eq "an instance has its own snapshot" "in-inst|in-top|# * Snapshot is freed *" \
	"$(markers "$IS")|$(markers "$T/trace")|$(grep -F '* Snapshot' "$S")"
expect_eq "... and its main buffer starts empty" "0/0" "$(counts "$T/instances/s/trace")"
expect_eq "rmdir with the snapshot allocated" "" "$(rmdir "$T/instances/s" 2>&1; ls "$T/instances")"
mkdir "$T/instances/s"
expect_eq "a new instance of that name: freed" "# * Snapshot is freed *" \
	"$(grep -F '* Snapshot' "$IS")"
rmdir "$T/instances/s"

# ---- swaps while utracefs writes (trace_marker), a small overwriting buffer ---------------------------
echo 8 >"$T/buffer_size_kb"
echo >"$T/trace"
echo 0 >"$S"
N=3000
(
	i=0 ok=0
	while [ $i -lt $N ]; do
		echo "m$i" >"$T/trace_marker" 2>/dev/null && ok=$((ok + 1))
		i=$((i + 1))
	done
	echo $ok >"$UT_TMP/marks.ok"
) &
swap_while $!
expect_eq "markers, $swaps swaps: every event in the snapshot or in the buffer" \
	"$N $N 0" "$sum $(cat "$UT_TMP/marks.ok") $refused"

# ---- swaps while traced threads write (function tracer, rseq writers) ----------------------------------
traced "$P" 1 >/dev/null # its functions are known from now on
echo 'tick after' >"$T/set_ftrace_filter"
echo function >"$T/current_tracer"
echo >"$T/trace"
echo 2 >"$S"
R=4000000
traced "$P" -t 4 $R >/dev/null &
swap_while $!
expect_eq "4 threads x $R x (tick, after), $swaps swaps: every event in the snapshot or in the buffer" \
	"$((4 * R * 2)) 0" "$sum $refused"
echo nop >"$T/current_tracer"
echo >"$T/set_ftrace_filter"
echo 0 >"$S"

# ---- FUNC:snapshot[:N] in set_ftrace_filter: a snapshot when FUNC runs ---------------------------------
F=$T/set_ftrace_filter
# settle VALUE CMD...: wait (up to 5 s) until CMD prints VALUE: a process's request
# to swap reaches utracefs after the call that made it
settle() {
	v=$1; shift; i=0
	while [ $i -lt 250 ] && [ "$("$@")" != "$v" ]; do sleep 0.02; i=$((i + 1)); done
}
probes() { grep ':snapshot:' "$F" | tr '\n' ' ' | sed 's/ $//'; }
# the markers of the snapshot and of the buffer
both() { echo "$(markers "$S")|$(markers "$T/trace")"; }
echo >"$T/trace"
echo 'tick:snapshot' >>"$F"
expect_eq "tick:snapshot: read back unlimited; adding it allocates the snapshot" \
	"tick:snapshot:unlimited|# * Snapshot is allocated *" "$(probes)|$(grep -F '* Snapshot' "$S")"
echo '!tick:snapshot' >>"$F"
echo 'tick:snapshot:2' >>"$F"
expect_eq "tick:snapshot:2 reads back counted" "tick:snapshot:count=2" "$(probes)"
mkfifo "$UT_TMP/l.in"
traced "$P" -l <"$UT_TMP/l.in" >"$UT_TMP/l.out" &
L=$!
exec 8>"$UT_TMP/l.in"
mark 0 before1
ask "$UT_TMP/l.out" 8 1 >/dev/null
settle before1 markers "$S"
expect_eq "the first call of tick swaps: the marker written before it is in the snapshot" \
	"before1|tick:snapshot:count=1" "$(markers "$S")|$(probes)"
mark 0 before2
ask "$UT_TMP/l.out" 8 1 >/dev/null
settle before2 markers "$S"
expect_eq "the second swaps again" "before2|tick:snapshot:count=0" "$(markers "$S")|$(probes)"
mark 0 before3
ask "$UT_TMP/l.out" 8 5 >/dev/null
expect_eq "count 0: tick no longer asks for a swap" "tick:snapshot:count=0" "$(probes)"
exec 8>&-
wait $L
echo '!tick:snapshot:0' >>"$F"
echo 'tick:snapshot:' >>"$F"
mark 0 before4
traced "$P" 3
expect_eq "tick:snapshot: (count -1) never swaps" "tick:snapshot:count=-1|before1 before3 before4" \
	"$(probes)|$(markers "$T/trace")"
echo '!tick:snapshot:0' >>"$F"

# counts shared by threads and by processes (odd: the marker ends in the snapshot)
echo 'tick:snapshot:49' >>"$F"
echo >"$T/trace"
echo 2 >"$S"
mark 0 threads
traced "$P" -t 4 100
settle "threads|" both
expect_eq "snapshot:49 over 4 threads x 100 calls: the count used up, swaps made" \
	"tick:snapshot:count=0|threads|" "$(probes)|$(both)"
echo '!tick:snapshot:0' >>"$F"
echo 'tick:snapshot:29' >>"$F"
echo >"$T/trace"
echo 2 >"$S"
mark 0 procs
traced "$P" -f 3 50
settle "procs|" both
expect_eq "snapshot:29 over 3 processes x 50 calls: the count used up, swaps made" \
	"tick:snapshot:count=0|procs|" "$(probes)|$(both)"
echo '!tick:snapshot:0' >>"$F"
echo 0 >"$S"

#!/bin/sh
# 101_record_dat.sh - `utrace record` and `utrace extract` write trace-cmd data files
# (trace.dat) that Debian's trace-cmd report reads event for event: the same events
# as the text of `trace` for the same run, v7 and v6, written to a pipe, cut short
# by SIGTERM or ^C, and cut short by a full disk (still valid, with a clear message).
. "$(dirname "$0")/lib.sh"

HELLO=$UT_BUILD/examples/hello
if ! command -v trace-cmd >/dev/null 2>&1; then
	skip "trace.dat read by trace-cmd" "no trace-cmd (make deps installs it)"
	exit 0
fi
ut_mount

# tc_events FILE: the event lines of trace-cmd report FILE (its header lines dropped)
tc_events() { trace-cmd report "$1" 2>/dev/null | grep -v -e '^cpus=' -e '^version ='; }
# count REGEX TEXT
count() { printf '%s\n' "$2" | grep -Ec -- "$1"; }

# --- function: the same calls as the text of the same run -----------------------------
"$UTRACE" record --text -p function -o "$UT_TMP/f.txt" -- "$HELLO" 5 x >/dev/null 2>&1
txt=$(grep -v '^#' "$UT_TMP/f.txt")
ftxt=$(printf '%s\n' "$txt" | grep -v 'hello, x')
out=$("$UTRACE" record -p function -o "$UT_TMP/f.dat" -- "$HELLO" 5 x 2>&1 >/dev/null); rc=$?
expect_eq "record -p function: status 0" 0 "$rc"
expect_match "record says where the trace went" "trace saved to $UT_TMP/f.dat" "$out"
dat=$(tc_events "$UT_TMP/f.dat")
expect_eq "trace-cmd report reads it: as many function events as the text has" \
	"$(count ': ' "$ftxt")" "$(count ' function: ' "$dat")"
expect_eq "the program's print is there" "$(count 'hello, x' "$txt")" "$(count 'hello, x' "$dat")"
expect_match "the comm and pid are the program's" '^ +hello-[0-9]+ +\[[0-9]{3}\] ' "$dat"
expect_eq "the header says the CPUs of the mount" "cpus=$(ls -d "$T"/per_cpu/cpu* | wc -l)" \
	"$(trace-cmd report "$UT_TMP/f.dat" 2>/dev/null | sed -n 's/^\(cpus=[0-9]*\)$/\1/p')"

expect_match "trace-cmd dump: version 7" '7[[:space:]]+\[Version\]' "$(trace-cmd dump "$UT_TMP/f.dat" 2>&1 | head -8)"
expect_eq "the tracer is put back" nop "$(cat "$T/current_tracer")"

# --- function_graph, v6 ----------------------------------------------------------------
"$UTRACE" record --text -p function_graph -o "$UT_TMP/g.txt" -- "$HELLO" 3 >/dev/null 2>&1
"$UTRACE" record -p function_graph --file-version 6 -o "$UT_TMP/g.dat" -- "$HELLO" 3 >/dev/null 2>&1
dat=$(tc_events "$UT_TMP/g.dat")
gtxt=$(grep -v '^#' "$UT_TMP/g.txt")
expect_eq "v6 function_graph: every call is an entry" \
	"$(count '[;{]$' "$gtxt")" "$(count 'funcgraph_entry: ' "$dat")"
expect_match "trace-cmd dump: version 6" '6[[:space:]]+\[Version\]' "$(trace-cmd dump "$UT_TMP/g.dat" 2>&1 | head -8)"
expect_match "v6: the TRACECLOCK option lists the clocks, the one used in brackets" \
	"^\\[$(sed 's/.*\[\(.*\)\].*/\1/' "$T/trace_clock")\\] " \
	"$(trace-cmd dump --options "$UT_TMP/g.dat" 2>&1 | grep -A1 'Option TRACECLOCK' | tail -1)"
sum=$("$UTRACE" report --summary - "$UT_TMP/g.dat")
expect_eq "report --summary: calls per function of the recording" "1 greet;1 main;3 square;1 sum_of_squares" \
	"$(printf '%s\n' "$sum" | awk '$NF ~ /^(main|greet|sum_of_squares|square)$/ { printf "%s%s %s", s, $(NF-1), $NF; s = ";" }' |
		tr ';' '\n' | sort -t' ' -k2 | awk '{ printf "%s%s", s, $0; s = ";" }')"
expect_match "report --summary: sorted by total time, main first" '^( +[0-9.]+ [mun ]s){5} +1  main$' \
	"$(printf '%s\n' "$sum" | sed -n 3p)"
out=$("$UTRACE" record --file-version 5 -p nop -- true 2>&1); rc=$?
expect_eq "--file-version 5: bad usage" "2 1" "$rc $(count 'file-version 5: 6 or 7' "$out")"

# --- to a pipe: the file is made aside and copied ---------------------------------------
# (CMD's own output kept out of it)
"$UTRACE" record -p function -o - -- sh -c "$HELLO 5 x >/dev/null" 2>"$UT_TMP/p.err" |
	cat >"$UT_TMP/p.dat"
expect_eq "-o -: only the closing count is said (sh has no sites, hello was traced)" \
	"utrace record: $(tc_events "$UT_TMP/p.dat" | wc -l) events, 0.0 MB, 0 lost" "$(cat "$UT_TMP/p.err")"
expect_eq "-o - through a pipe: the same events" "$(count ' function: ' "$(tc_events "$UT_TMP/f.dat")")" \
	"$(count ' function: ' "$(tc_events "$UT_TMP/p.dat")")"

# stdout appended to a file: written aside and copied after what the file held
printf 'kept\n' >"$UT_TMP/app.dat"
"$UTRACE" record -p function -o - -- sh -c "$HELLO 5 x >/dev/null" >>"$UT_TMP/app.dat" 2>/dev/null
expect_eq "-o - >> FILE: what FILE held stays, the recording after it" "kept $(($(wc -c <"$UT_TMP/p.dat") + 5))" \
	"$(head -1 "$UT_TMP/app.dat") $(wc -c <"$UT_TMP/app.dat")"
# a reader that goes away: EPIPE said, and the tracer put back all the same
"$UTRACE" record -p function -o - -- sh -c "$HELLO 5 x >/dev/null" 2>"$UT_TMP/pipe.err" | head -c 10 >/dev/null
expect_match "-o - into a closed pipe: said" 'Broken pipe' "$(cat "$UT_TMP/pipe.err")"
expect_eq "-o - into a closed pipe: the tracer is put back" nop "$(cat "$T/current_tracer")"

# --- extract: what the buffer holds now, taken out of it --------------------------------
echo function > "$T/current_tracer"
traced "$HELLO" 5 x >/dev/null
n=$(grep -vc '^#' "$T/trace")
out=$("$UTRACE" extract -o "$UT_TMP/e.dat" 2>&1); rc=$?
expect_eq "extract: status 0, the events it took said" "0 utrace extract: $n events, 0.0 MB, 0 lost" "$rc $out"
expect_eq "extract: the buffer's events" "$n" "$(count ': ' "$(tc_events "$UT_TMP/e.dat")")"
expect_eq "extract takes them out of the buffer" 0 "$(grep -vc '^#' "$T/trace")"
expect_eq "extract leaves the tracer" function "$(cat "$T/current_tracer")"
echo nop > "$T/current_tracer"

# --- trace_pipe_raw: a read of several pages' size gives the whole pages that are ready ---
echo function > "$T/current_tracer"
traced "$HELLO" 2000 x >/dev/null
most=0
for c in "$T"/per_cpu/cpu*; do
	n=$(dd if="$c/trace_pipe_raw" bs=65536 count=1 iflag=nonblock 2>/dev/null | wc -c)
	[ "$n" -gt "$most" ] && most=$n
done
echo nop > "$T/current_tracer"
if [ "$most" -gt 4096 ] && [ $((most % 4096)) = 0 ]; then
	pass "trace_pipe_raw: one read of 64 KB takes several whole pages ($most bytes)"
else
	fail "trace_pipe_raw: one read of 64 KB takes several whole pages" "$most bytes"
fi

# read_events: the events the recorder has taken out of the buffers so far
read_events() { cat "$T"/per_cpu/cpu*/stats | awk -F': ' '$1 == "read events" { n += $2 } END { print n + 0 }'; }
# wait_drained: until the recorder has taken events (at most 20 s)
wait_drained() {
	i=0; while [ "$(read_events)" -lt 1000 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
}

# --- SIGTERM: CMD stopped, the file finished and valid ----------------------------------
"$UTRACE" record -p function -o "$UT_TMP/term.dat" -- "$PROGS/e2e_calls" -l \
	>"$UT_TMP/term.out" 2>"$UT_TMP/term.err" &
rp=$!
wait_drained
kill -TERM "$rp"
i=0; while kill -0 "$rp" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
kill -0 "$rp" 2>/dev/null && { kill -KILL "$rp"; pkill -KILL -P "$rp"; fail "SIGTERM: record stops" "still running 30 s after"; }
wait "$rp"; rc=$?
expect_eq "record stopped by SIGTERM: CMD's status" 0 "$rc"
expect_match "stopped by SIGTERM: the file holds the calls" ' function: +work' "$(tc_events "$UT_TMP/term.dat" | head -50)"
expect_match "stopped by SIGTERM: says the trace was saved" 'its trace saved' "$(cat "$UT_TMP/term.err")"

# --- ^C: SIGINT to the terminal's process group (record and CMD) -------------------------
# record leads a process group of its own (setsid: a background job of this shell is no
# group leader, so setsid makes record one without forking), as a terminal's job is.
setsid "$UTRACE" record -p function -o "$UT_TMP/int.dat" -- "$PROGS/e2e_calls" -l \
	>"$UT_TMP/int.out" 2>"$UT_TMP/int.err" &
rp=$!
wait_drained
/bin/kill -s INT -- "-$rp"
# (bounded: a record the signal did not stop would trace a loop until the disk is full)
i=0; while kill -0 "$rp" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
if kill -0 "$rp" 2>/dev/null; then
	/bin/kill -s KILL -- "-$rp"
	fail "^C: record and CMD stop" "still running 30 s after SIGINT"
fi
wait "$rp"; rc=$?
expect_eq "^C: record's status is CMD's (killed by SIGINT: 130)" 130 "$rc"
expect_match "^C: the file is valid and holds the calls" ' function: +work' "$(tc_events "$UT_TMP/int.dat" | head -50)"
expect_match "^C: says the trace was saved" 'Interrupt: .*e2e_calls stopped, its trace saved' "$(cat "$UT_TMP/int.err")"
expect_eq "^C: the tracer is put back" nop "$(cat "$T/current_tracer")"

# --- a full disk ------------------------------------------------------------------------
if [ "$(id -u)" != 0 ]; then
	skip "a full disk: a valid file and a message" "needs root for a small tmpfs"
else
	mkdir -p "$UT_TMP/small"
	# A disk whose quarter (what record holds for the metadata) takes the metadata:
	# the mount's kallsyms is most of it, the functions of every object e2e_calls
	# maps (some 250 KB; 900 KB with a sanitizer's libraries), cached by a first run.
	# The rest is filled for sure: a buffer of 8 MB per CPU keeps more than it.
	traced "$PROGS/e2e_calls" -n 1 >/dev/null
	kb=$((($(wc -c <"$T/kallsyms") / 1024 + 128) * 4))
	mount -t tmpfs -o size=${kb}k utrace-test "$UT_TMP/small"
	out=$("$UTRACE" record -b 8192 -p function -o "$UT_TMP/small/full.dat" -- "$PROGS/e2e_calls" -n 400000 2>&1 >/dev/null); rc=$?
	expect_eq "ENOSPC: record fails" 1 "$rc"
	expect_match "ENOSPC: says so" 'No space left on device' "$out"
	n=$(count ' function: ' "$(tc_events "$UT_TMP/small/full.dat")")
	if trace-cmd report "$UT_TMP/small/full.dat" >/dev/null 2>&1 && [ "$n" -gt 0 ]; then
		pass "ENOSPC: the file is valid, with the events that fit ($n)"
	else
		fail "ENOSPC: the file is valid, with the events that fit" \
			"$(trace-cmd report "$UT_TMP/small/full.dat" 2>&1 | head -5)"
	fi
	expect_eq "ENOSPC: the tracer is put back" nop "$(cat "$T/current_tracer")"
	umount "$UT_TMP/small"
	# A disk whose quarter cannot hold the metadata: the pages fill the rest, the
	# metadata does not fit at the end, and the newest pages give way to it.
	kb=$(($(wc -c <"$T/kallsyms") * 3 / 2048 + 64))
	mount -t tmpfs -o size=${kb}k utrace-test "$UT_TMP/small"
	out=$("$UTRACE" record -b 8192 -p function -o "$UT_TMP/small/full.dat" -- "$PROGS/e2e_calls" -n 400000 2>&1 >/dev/null); rc=$?
	expect_eq "ENOSPC, no room for the metadata: record fails" 1 "$rc"
	expect_match "ENOSPC, no room for the metadata: says what was not kept" \
		'No space left on device: [0-9]+ pages \(4 KB\) of events not kept' "$out"
	n=$(count ' function: ' "$(tc_events "$UT_TMP/small/full.dat")")
	if trace-cmd report "$UT_TMP/small/full.dat" >/dev/null 2>&1 && [ "$n" -gt 0 ]; then
		pass "ENOSPC, no room for the metadata: the file is valid, with pages given up ($n events)"
	else
		fail "ENOSPC, no room for the metadata: the file is valid, with pages given up" \
			"$out $(trace-cmd report "$UT_TMP/small/full.dat" 2>&1 | head -5)"
	fi
	umount "$UT_TMP/small"
fi

ut_umount || fail "utracefs exited cleanly"

# --- names of processes long gone ---------------------------------------------------------
# A recording outlives the symbol cache's bound on processes (4 here instead of 1024):
# the objects its pages named stay until kallsyms is read at the end, so the first of
# 30 programs (each at a path of its own, so each is an object of its own) is named.
# Each program's events are drained before the next one starts (the loop waits on a
# FIFO with sh's builtin read: no process of its own to push the program out early).
UTRACEFS_TEST_SYM_MAX_PROCS=4 ut_mount
for i in $(seq 30); do
	mkdir -p "$UT_TMP/gone/$i" && cp "$HELLO" "$UT_TMP/gone/$i/hello" && mkfifo "$UT_TMP/gone/$i/go"
done
cat >"$UT_TMP/gone.sh" <<EOF
for i in \$(seq 30); do $UT_TMP/gone/\$i/hello 1 x >/dev/null; read x <$UT_TMP/gone/\$i/go; done
EOF
"$UTRACE" record -p function -o "$UT_TMP/gone.dat" -- sh "$UT_TMP/gone.sh" >/dev/null 2>&1 &
rp=$!
prev=0
for i in $(seq 30); do
	j=0; while [ "$(read_events)" -le "$prev" ] && [ $j -lt 400 ]; do sleep 0.05; j=$((j + 1)); done
	prev=$(read_events)
	echo go >"$UT_TMP/gone/$i/go"
done
wait "$rp"
n=$(count 'function: +greet$' "$(tc_events "$UT_TMP/gone.dat")")
expect_eq "every program's greet is named, the first one's too" 30 "$n"
ut_umount || fail "utracefs exited cleanly (eviction)"

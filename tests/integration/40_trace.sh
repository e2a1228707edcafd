#!/bin/sh
# 40_trace.sh - the files that show the rings, through a real mount: the trace
# header and trace_marker lines against the kernel's, per_cpu stats, trace_pipe
# (consuming, blocking, O_NONBLOCK, two readers at once), trace_pipe_raw pages.
. "$(dirname "$0")/lib.sh"

if [ ! -x "$UTRACEFS" ]; then
	skip "40_trace" "no utracefs in $UT_BUILD"
	exit 0
fi
ut_mount

# ---- the trace file against the kernel's -------------------------------------------
S=$UT_TMP/header.script
cat > "$S" <<'EOF'
echo > $T/trace
cat $T/trace
echo hi > $T/trace_marker
printf 'x' > $T/trace_marker
printf 'two\nlines\n' > $T/trace_marker
cat $T/trace
echo 0 > $T/options/irq-info
cat $T/trace
echo 1 > $T/options/record-tgid
cat $T/trace | sed -E 's/-[0-9]+ +\(/-PID (/'
echo 1 > $T/options/irq-info
cat $T/trace | sed -E 's/-[0-9]+ +\(/-PID (/'
echo 0 > $T/options/record-tgid
echo 0 > $T/options/context-info
cat $T/trace
echo 1 > $T/options/context-info
echo 1 > $T/options/raw
cat $T/trace | sed -E 's/^[0-9]+ [0-9]+ [0-9]+ # [0-9a-f]+ /PID CPU TS # IP /'
echo 0 > $T/options/raw
echo 1 > $T/options/printk-msg-only
cat $T/trace
echo 0 > $T/options/printk-msg-only
echo 1 > $T/options/latency-format
cat $T/trace | grep -c 'tracing_mark_write'
echo 0 > $T/options/latency-format
echo 1 > $T/options/verbose
cat $T/trace
echo 0 > $T/options/verbose
echo > $T/trace
cat $T/trace
echo 1 > $T/options/latency-format
cat $T/trace
echo 0 > $T/options/latency-format
EOF
tdiff "trace header and marker lines as the kernel's" "$S"

# ---- stats: layout, and the counters summed over the CPUs --------------------------------
S=$UT_TMP/stats.script
cat > "$S" <<'EOF'
echo > $T/trace
cat $T/per_cpu/cpu0/stats | sed -E 's/^(oldest event ts|now ts): +[0-9]+\.[0-9]{6}$/\1: TIME/'
echo hi > $T/trace_marker
printf 'ab' > $T/trace_marker
printf '\001\000\000\000abcd' > $T/trace_marker_raw
for c in $T/per_cpu/cpu*; do cat $c/stats; done | awk -F': ' '/^(entries|overrun|commit overrun|bytes|dropped events|read events):/ { s[$1] += $2 } END { print s["entries"], s["overrun"], s["commit overrun"], s["bytes"], s["dropped events"], s["read events"] }'
cat $T/trace | tail -1
echo > $T/trace
EOF
tdiff "per_cpu stats as the kernel's" "$S"

# once a consuming read took events, a clear leaves no oldest time (the kernel's head
# page is then its former reader page, empty)
echo > "$T/trace"
echo oldest > "$T/trace_marker"
cpu=$(sed -n 's/.*\[0*\([0-9][0-9]*\)\] .*tracing_mark_write: oldest$/\1/p' "$T/trace")
"$PROGS/file_ops" nbread "$T/per_cpu/cpu${cpu:-0}/trace_pipe" > /dev/null
echo > "$T/trace"
expect_eq "stats: oldest event ts is 0 after a read and a clear" "oldest event ts:     0.000000" \
	"$(grep '^oldest event ts' "$T/per_cpu/cpu${cpu:-0}/stats")"

# ---- trace_marker lines with sym-offset, sym-addr, raw --------------------------------------
echo > "$T/trace"
echo sym > "$T/trace_marker"
echo 1 > "$T/options/sym-offset"
expect_match "trace_marker with sym-offset: tracing_mark_write+OFF/SIZE" \
	' tracing_mark_write\+0x[0-9a-f]+/0x[0-9a-f]*[1-9a-f][0-9a-f]*: sym$' "$(cat "$T/trace")"
echo 1 > "$T/options/sym-addr"
expect_match "trace_marker with sym-offset and sym-addr" \
	' tracing_mark_write\+0x[0-9a-f]+/0x[0-9a-f]+ <[0-9a-f]{16}>: sym$' "$(cat "$T/trace")"
echo 0 > "$T/options/sym-offset"
expect_match "trace_marker with sym-addr: tracing_mark_write <ADDR>" \
	' tracing_mark_write <[0-9a-f]{16}>: sym$' "$(cat "$T/trace")"
echo 0 > "$T/options/sym-addr"
echo 1 > "$T/options/raw"
addr=$(sed -n 's/^[0-9]* [0-9]* [0-9]* # \([0-9a-f]*\) sym$/\1/p' "$T/trace")
echo 0 > "$T/options/raw"
echo 1 > "$T/options/sym-addr"
expect_eq "trace_marker with raw: the address sym-addr shows" "<$addr>" \
	"$(sed -n 's/.* tracing_mark_write \(<[0-9a-f]*>\): sym$/\1/p' "$T/trace" | sed 's/<0*/</')"
echo 0 > "$T/options/sym-addr"

# ---- trace_pipe ---------------------------------------------------------------------------
S=$UT_TMP/pipe.script
cat > "$S" <<'EOF'
echo > $T/trace
echo a > $T/trace_marker
echo b > $T/trace_marker
echo 0 > $T/tracing_on
timeout 2 cat $T/trace_pipe
echo 1 > $T/tracing_on
cat $T/trace
EOF
tdiff "trace_pipe: no header, EOF once read and tracing is off" "$S"

echo > "$T/trace"
for i in 1 2 3; do echo "pipe$i" > "$T/trace_marker"; done
out=$(timeout 1 cat "$T/trace_pipe"); rc=$?
expect_eq "trace_pipe hands out every event" "pipe1 pipe2 pipe3" \
	"$(printf '%s\n' "$out" | sed -n 's/.*tracing_mark_write: //p' | tr '\n' ' ' | sed 's/ $//')"
expect_eq "trace_pipe blocks until interrupted" 124 "$rc"
expect_eq "trace_pipe has no header" "" "$(printf '%s\n' "$out" | grep '^#')"
expect_eq "what trace_pipe read is gone from trace" "0" "$(grep -c tracing_mark_write "$T/trace")"
expect_eq "read events counts it" "3" \
	"$(cat "$T"/per_cpu/cpu*/stats | awk -F': ' '/^read events/ { s += $2 } END { print s }')"

err=$(dd if="$T/trace_pipe" of=/dev/null iflag=nonblock count=1 2>&1); rc=$?
if [ $rc -ne 0 ] && printf '%s' "$err" | grep -q "Resource temporarily unavailable"; then
	pass "trace_pipe with O_NONBLOCK: EAGAIN when empty"
else
	fail "trace_pipe with O_NONBLOCK: EAGAIN when empty" "rc $rc: $err"
fi
# O_NONBLOCK set with fcntl after open (trace-cmd extract does so): EAGAIN, not a read
# that blocks for ever (timeout: a failure, not a hang)
for f in trace_pipe per_cpu/cpu0/trace_pipe per_cpu/cpu0/trace_pipe_raw; do
	expect_eq "$f: O_NONBLOCK set by fcntl after open is honoured" "EAGAIN" \
		"$(timeout 10 "$PROGS/file_ops" nbread "$T/$f")"
done

cat "$T/trace_pipe" > "$UT_TMP/late" &
reader=$!
i=0 # the reader is blocked in its read (or at least has the file open)
until ls -l /proc/$reader/fd 2>/dev/null | grep -q trace_pipe || [ $i -ge 400 ]; do
	sleep 0.05; i=$((i + 1))
done
sleep 0.1
echo late > "$T/trace_marker"
i=0
until grep -q 'tracing_mark_write: late$' "$UT_TMP/late" || [ $i -ge 400 ]; do
	sleep 0.05; i=$((i + 1))
done
kill "$reader" 2>/dev/null; wait "$reader" 2>/dev/null
expect_match "a blocked trace_pipe read wakes up for new data" "tracing_mark_write: late$" \
	"$(cat "$UT_TMP/late")"

# two readers at once: disjoint, and together everything
echo > "$T/trace"
cat "$T/trace_pipe" > "$UT_TMP/r1" &
r1=$!
cat "$T/trace_pipe" > "$UT_TMP/r2" &
r2=$!
i=1
while [ $i -le 300 ]; do echo "m$i" > "$T/trace_marker"; i=$((i + 1)); done
i=0 # until the readers have taken everything (each line is written whole)
until [ "$(cat "$UT_TMP/r1" "$UT_TMP/r2" | grep -c 'tracing_mark_write: m')" -ge 300 ] ||
	[ $i -ge 400 ]; do
	sleep 0.05; i=$((i + 1))
done
kill "$r1" "$r2" 2>/dev/null; wait "$r1" "$r2" 2>/dev/null
sed -n 's/.*tracing_mark_write: //p' "$UT_TMP/r1" | sort > "$UT_TMP/s1"
sed -n 's/.*tracing_mark_write: //p' "$UT_TMP/r2" | sort > "$UT_TMP/s2"
expect_eq "two trace_pipe readers never get the same event" "" "$(comm -12 "$UT_TMP/s1" "$UT_TMP/s2")"
expect_eq "two trace_pipe readers together get every event" "300" \
	"$(cat "$UT_TMP/s1" "$UT_TMP/s2" | sort -u | wc -l | tr -d ' ')"

# A reader that is gone no longer holds current_tracer: the kernel releases a file at
# its last close, FUSE sends the release after close(2) returned.  A second daemon
# takes every release 200 ms late (a test hook): the tracer writes right after the
# reader exited must still succeed.
T4=$UT_TMP/t4
mkdir "$T4"
if UTRACEFS_TEST_RELEASE_DELAY_MS=200 "$UTRACEFS" "$T4"; then
	busy=0
	for tr in function nop function nop function nop; do
		cat "$T4/trace_pipe" > /dev/null &
		rp=$!
		n=0
		until ls -l /proc/$rp/fd 2>/dev/null | grep -q trace_pipe || [ $n -ge 500 ]; do
			sleep 0.01; n=$((n + 1))
		done
		kill $rp; wait $rp 2>/dev/null
		echo $tr > "$T4/current_tracer" 2>/dev/null || busy=$((busy + 1))
	done
	expect_eq "current_tracer right after a trace_pipe reader exited" 0 "$busy"
	fusermount3 -u "$T4"
else
	fail "a second utracefs did not start"
fi

# per_cpu files: one CPU each, and O_TRUNC of one CPU empties only that one
echo > "$T/trace"
for c in 0 1; do taskset -c $c sh -c "echo cpu$c > $T/trace_marker" 2>/dev/null; done
n0=$(grep -c tracing_mark_write "$T/per_cpu/cpu0/trace")
n1=$(grep -c tracing_mark_write "$T/per_cpu/cpu1/trace" 2>/dev/null)
n1=${n1:-0}
expect_eq "per_cpu traces split the events" "2" "$((n0 + n1))"
hdr=$(sed -n 3p "$T/per_cpu/cpu0/trace")
expect_eq "per_cpu trace header counts every CPU" "# entries-in-buffer/entries-written: 2/2   #P:$(ls -d "$T"/per_cpu/cpu* | wc -l)" "$hdr"
: > "$T/per_cpu/cpu0/trace"
expect_eq "O_TRUNC of per_cpu/cpu0/trace empties cpu0 only" "$n1" \
	"$(grep -c tracing_mark_write "$T/trace")"

# trace_marker events go on the writer's CPU, and tracing_cpumask applies to it
ncpu=$(ls -d "$T"/per_cpu/cpu* | wc -l)
if [ "$ncpu" -ge 2 ] && taskset -c 1 true 2>/dev/null; then
	for c in 0 1; do
		echo > "$T/trace"
		taskset -c $c sh -c "i=0; while [ \$i -lt 150 ]; do echo m\$i > $T/trace_marker; i=\$((i + 1)); done"
		expect_eq "150 markers from a writer on CPU $c are all in cpu$c's buffer" "150" \
			"$(grep -c 'tracing_mark_write: m' "$T/per_cpu/cpu$c/trace")"
		expect_eq "... and shown as [00$c]" "150" "$(grep -c "\[00$c\] .*tracing_mark_write: m" "$T/trace")"
	done
	echo > "$T/trace"
	echo 1 > "$T/tracing_cpumask"
	out=$( (taskset -c 1 /bin/echo off > "$T/trace_marker") 2>&1 ); rc=$?
	expect_eq "tracing_cpumask 1: a marker from CPU 1 is EBADF" "1 Bad file descriptor" \
		"$rc $(printf '%s' "$out" | sed 's/.*: //')"
	out=$( (printf 'ABCDxy' | taskset -c 1 dd of="$T/trace_marker_raw" 2>&1) ); rc=$?
	expect_eq "tracing_cpumask 1: trace_marker_raw from CPU 1 is EBADF too" "1" "$rc"
	taskset -c 0 /bin/echo on > "$T/trace_marker"
	expect_eq "tracing_cpumask 1: a marker from CPU 0 is kept" "on" \
		"$(sed -n 's/.*\[000\] .*tracing_mark_write: //p' "$T/trace")"
	printf '%x\n' $(( (1 << ncpu) - 1 )) > "$T/tracing_cpumask"
	echo > "$T/trace"
else
	skip "trace_marker on the writer's CPU" "one CPU"
fi

# trace_pipe_raw: whole 4096-byte pages in the kernel's layout
echo > "$T/trace"
echo rawpage > "$T/trace_marker"
: > "$UT_TMP/raw"
for c in "$T"/per_cpu/cpu*; do
	dd if="$c/trace_pipe_raw" bs=4096 count=1 iflag=nonblock >> "$UT_TMP/raw" 2>/dev/null
done
expect_eq "trace_pipe_raw gives one page" "4096" "$(wc -c < "$UT_TMP/raw" | tr -d ' ')"
# commit (bytes 8..15): 4-byte header + print entry of 16 + "rawpage\n\0" -> 28 + 4 = 32
expect_eq "trace_pipe_raw page commit" "32" \
	"$(od -A n -t u4 -j 8 -N 4 "$UT_TMP/raw" | tr -d ' ')"
expect_match "trace_pipe_raw page holds the text" "rawpage" "$(tr -c 'a-z\n' '.' < "$UT_TMP/raw")"
expect_eq "trace_pipe_raw consumed it" "0" "$(grep -c tracing_mark_write "$T/trace")"

# losses: overwrite mode reports them in trace_pipe, no-overwrite mode drops
sum_stat() { cat "$T"/per_cpu/cpu*/stats | awk -F': ' -v k="$1" '$1 == k { s += $2 } END { print s + 0 }'; }
echo 4 > "$T/buffer_size_kb"
echo > "$T/trace"
i=0
while [ $i -lt 2000 ]; do echo "line $i" > "$T/trace_marker"; i=$((i + 1)); done
entries=$(sum_stat entries) overrun=$(sum_stat overrun)
expect_eq "entries + overrun == written" 2000 "$((entries + overrun))"
out=$(timeout 1 cat "$T/trace_pipe")
expect_eq "trace_pipe reports every loss" "$overrun" \
	"$(printf '%s\n' "$out" | sed -n 's/^CPU:[0-9]* \[LOST \([0-9]*\) EVENTS\]$/\1/p' | awk '{ s += $1 } END { print s + 0 }')"
expect_eq "trace_pipe hands out what was left" "$entries" \
	"$(printf '%s\n' "$out" | grep -c tracing_mark_write)"
expect_eq "read events after the loss" "$entries" "$(sum_stat 'read events')"
echo 0 > "$T/options/overwrite"
echo > "$T/trace"
i=0
while [ $i -lt 2000 ]; do echo "line $i" > "$T/trace_marker" 2>/dev/null; i=$((i + 1)); done
expect_eq "no-overwrite: entries + dropped == written" 2000 \
	"$(($(sum_stat entries) + $(sum_stat 'dropped events')))"
expect_eq "no-overwrite: nothing overwritten" 0 "$(sum_stat overrun)"
expect_eq "no-overwrite: the oldest events stay" "line 0" \
	"$(grep -m1 -o 'tracing_mark_write: line [0-9]*$' "$T/trace" | sed 's/.*: //')"
echo 1 > "$T/options/overwrite"

# Small buffers hold what the kernel's hold, page for page: buffer_size_kb K kernel
# pages plus the reader page.  Without overwrite the reader page takes events only
# once a consuming read has swapped it in; with overwrite the page being written
# and the K - 1 before it are kept, and after a consuming read the unread rest of
# the page it read from too (the kernel's reader page, out of the writers' way).
# The same writes on CPU 0 go to a kernel instance (its own buffer: nobody else
# writes there; removed at the end) and to utrace.  Markers of 256 bytes fill 14
# to a page in both (the kernel's event takes 280 of 4080 bytes, ours 280 of 4064),
# markers of 64 bytes 46 (88 bytes in both, leaving 32 of the page unused).
# A case is "PRE READ POST": PRE markers, READ events taken (lines of trace_pipe
# read one byte at a time, or rN: N pages of trace_pipe_raw), POST markers; it
# prints entries, overrun, read events, dropped events and the lines of `trace`.
mtext=$(printf '%0255d' 0)
marks() { # DIR N
	taskset -c 0 sh -c "i=0; while [ \$i -lt $2 ]; do echo $mtext > $1/trace_marker 2>/dev/null; i=\$((i + 1)); done"
}
acct_case() { # DIR KB OW PRE READ POST
	echo "$2" > "$1/buffer_size_kb"
	echo "$3" > "$1/options/overwrite"
	echo > "$1/trace"
	marks "$1" "$4"
	case $5 in
	r*) dd if="$1/per_cpu/cpu0/trace_pipe_raw" of=/dev/null bs=4096 count="${5#r}" \
		iflag=nonblock 2>/dev/null ;;
	*) timeout 20 sh -c "i=0; while [ \$i -lt $5 ]; do read l || exit; i=\$((i + 1)); done" \
		< "$1/per_cpu/cpu0/trace_pipe" ;;
	esac
	marks "$1" "$6"
	echo "$2 $3 $4 $5 $6: $(awk -F': ' '$1 ~ /^(entries|overrun|read events|dropped events)$/ { printf "%s ", $2 }' \
		"$1/per_cpu/cpu0/stats")$(grep -c tracing_mark_write "$1/per_cpu/cpu0/trace")"
}
# fresh; one event read; part of a finished page; part of the page being written;
# a page read to its end; one more; one raw page taken from a finished page, from
# the page being written
ACCT_256="0 0 200|1 1 199|20 3 200|5 3 200|20 14 200|20 15 200|20 r1 200|5 r1 200"
ACCT_64="0 0 300|1 1 299|60 3 300|20 3 300|60 46 300|60 47 300|60 r1 300|20 r1 300"
bufacct() { # DIR OW CASES: one line per case
	for kb in 4 8 12; do
		printf '%s\n' "$3" | tr '|' '\n' | while read -r pre rd post; do
			acct_case "$1" $kb "$2" $pre $rd $post
		done
	done
}
bufcompare() { # CASES NAME: the kernel instance $KI against $T, in both modes
	for ow in 0 1; do
		expect_eq "$2 (overwrite $ow)" "$(bufacct "$KI" $ow "$1")" "$(bufacct "$T" $ow "$1")"
	done
}
if kt_available && KI=$KT/instances/ut40_$$ && mkdir "$KI" 2>/dev/null; then
	bufcompare "$ACCT_256" "small buffers hold what the kernel's hold, before and after reads"
	mtext=$(printf '%063d' 0)
	bufcompare "$ACCT_64" "the same with 64-byte markers, a page not a multiple of them"
	rmdir "$KI"
else
	skip "small buffers hold what the kernel's hold, before and after reads" "no kernel tracefs instance"
fi

# Markers and raw data fill a page as the kernel's do, so that a buffer holds as
# many: texts and payloads of several sizes, two and a half kernel pages' worth
# into 4 KB, entries compared (the sizes where a multiple of 8 can give the
# kernel's count; unit test test_marker_per_page goes through every size).
sizeacct() { # DIR
	echo 4 > "$1/buffer_size_kb"
	echo 1 > "$1/options/overwrite"
	for what in m8 m33 m64 m100 m200 m1000 m2000 m4000 r148 r200 r2000 r4000; do
		len=${what#?}
		if [ "${what%%[0-9]*}" = m ]; then
			file=trace_marker kd=$((16 + len + 2))
			printf "%0${len}d" 0 > "$UT_TMP/ev"
		else
			file=trace_marker_raw kd=$((12 + len - 4))
			{ printf '\001\000\000\000'; head -c $((len - 4)) /dev/zero; } > "$UT_TMP/ev"
		fi
		[ $kd -gt 112 ] && kd=$((kd + 4))
		n=$((5 * 4080 / ((kd + 7) / 4 * 4) / 2 + 1)) # two and a half pages
		echo > "$1/trace"
		taskset -c 0 sh -c "i=0; while [ \$i -lt $n ]; do cat $UT_TMP/ev > $1/$file; i=\$((i + 1)); done"
		echo "$what $n: $(awk -F': ' '$1 ~ /^(entries|overrun)$/ { printf "%s ", $2 }' \
			"$1/per_cpu/cpu0/stats")"
	done
}
if kt_available && KI=$KT/instances/ut40s_$$ && mkdir "$KI" 2>/dev/null; then
	kres=$(sizeacct "$KI")
	rmdir "$KI"
	ures=$(sizeacct "$T")
	expect_eq "markers and raw data of several sizes: as many to a buffer as the kernel's" \
		"$kres" "$ures"
else
	skip "markers and raw data of several sizes: as many to a buffer as the kernel's" \
		"no kernel tracefs instance"
fi
echo 1 > "$T/options/overwrite"
echo 1410 > "$T/buffer_size_kb"
echo > "$T/trace"

ut_umount || fail "utracefs exits cleanly"

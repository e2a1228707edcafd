#!/bin/sh
# 100_report.sh - `utrace report` on trace.dat files prints what `trace-cmd report`
# prints, byte for byte, with and without its filters; the exports (--chrome,
# --folded) nest calls as the recording does; old text recordings still print.
#
# Fixtures (tests/data/report/): kernel-sched.dat (v7) and kernel-sched-v6.dat,
# sched events of the kernel recorded by trace-cmd; kernel-instance.dat, sched_switch
# in the top buffer and sched_wakeup in an instance "utfoo"; utrace-graph.dat, hello and
# threads (examples/) under function_graph in a utracefs mount, and
# utrace-function.dat, hello under function, both taken by `trace-cmd extract` from
# that mount (no symbols: functions are addresses).  A live part does the same
# from a fresh mount when this runs as root.
#
# How the kernel ones were made (root, holding /tmp/utrace-kernel-tracefs.lock): sched
# events enabled in /sys/kernel/tracing for a `sleep 0.2`, then `trace-cmd extract` in
# a private mount namespace (unshare -m) where every events/SYSTEM directory but sched
# and ftrace, and /proc/kallsyms, are covered by empty bind mounts, so that the file
# holds what it needs and stays small; kernel-sched-v6.dat is `trace-cmd convert
# --file-version 6` of kernel-sched.dat.  (`trace-cmd record` itself cannot run here:
# /proc/sys/kernel/ftrace_enabled cannot be written.)  The uname they carry names the
# machine "ut".
. "$(dirname "$0")/lib.sh"

D=$UT_TOP/tests/data/report
K7=$D/kernel-sched.dat K6=$D/kernel-sched-v6.dat G=$D/utrace-graph.dat F=$D/utrace-function.dat

if ! command -v trace-cmd >/dev/null; then
	skip "utrace report against trace-cmd report" "no trace-cmd"
	exit 0
fi

# same NAME ARGS...: utrace report ARGS and trace-cmd report ARGS print the same
same() {
	name=$1; shift
	"$UTRACE" report "$@" >"$UT_TMP/u.out" 2>"$UT_TMP/u.err"; urc=$?
	trace-cmd report "$@" >"$UT_TMP/t.out" 2>/dev/null
	if [ $urc -eq 0 ] && [ -s "$UT_TMP/t.out" ] && cmp -s "$UT_TMP/u.out" "$UT_TMP/t.out"; then
		pass "$name"
	else
		fail "$name" "exit $urc $(cat "$UT_TMP/u.err")
$(diff "$UT_TMP/t.out" "$UT_TMP/u.out" | head -20)"
	fi
}

for f in "$K7" "$K6"; do
	v=v7; [ "$f" = "$K6" ] && v=v6
	same "kernel sched events ($v): every line" "$f"
	same "kernel sched events ($v): -i FILE" -i "$f"
	same "kernel sched events ($v): --cpu 1" --cpu 1 "$f"
	same "kernel sched events ($v): --cpu 0,1" --cpu 0,1 "$f"
	same "kernel sched events ($v): --pid 15" --pid 15 "$f"
	same "kernel sched events ($v): -F sched_switch" -F sched_switch "$f"
	same "kernel sched events ($v): a field filter" -F 'sched_switch:prev_state==1&&prev_pid>100' "$f"
	same "kernel sched events ($v): two -F, one -v" -F sched_wakeup -v -F 'sched_switch:next_pid==0' "$f"
	same "kernel sched events ($v): -l" -l "$f"
	same "kernel sched events ($v): -t" -t "$f"
	same "kernel sched events ($v): -R" -R "$f"
	same "kernel sched events ($v): --stat" --stat "$f"
done
expect_eq "the filters leave some events and drop others" "33 38 118" \
	"$("$UTRACE" report -F sched_switch "$K7" | wc -l) $("$UTRACE" report --pid 15 "$K7" | wc -l) $(
		"$UTRACE" report "$K7" | wc -l)"
same "kernel: -P, the printk formats" -P "$K7"

# A file with a second buffer (trace-cmd extract -B utfoo -t): its lines are
# merged in, "utfoo: " before them and blanks before the top buffer's
I=$D/kernel-instance.dat
same "an instance buffer: every line" "$I"
same "an instance buffer: -l" -l "$I"
same "an instance buffer: --cpu 1 (the top buffer alone, as trace-cmd)" --cpu 1 "$I"
same "an instance buffer: --stat" --stat "$I"
# trace-cmd report 3.1.6 crashes on -F with instances: the filter applies to all
expect_eq "an instance buffer: -F sched_wakeup keeps the instance's events" "0 50" \
	"$("$UTRACE" report -F sched_wakeup "$I" | sed 1d | grep -vc '^utfoo: ') $(
		"$UTRACE" report -F sched_wakeup "$I" | grep -c '^utfoo: .* sched_wakeup: ')"

same "function_graph from utracefs: every line" "$G"
same "function_graph from utracefs: -l" -l "$G"
same "function_graph from utracefs: --cpu 0" --cpu 0 "$G"
same "function_graph from utracefs: --cpu 1" --cpu 1 "$G"
same "function_graph from utracefs: calls at depth 0" -F 'funcgraph_entry:depth==0' "$G"
same "function from utracefs: every line" "$F"
same "function from utracefs: -O parent (a plugin's option)" -O parent "$F"
same "function_graph from utracefs: -O fgraph:depth, two -O" -O fgraph:tailprint -O fgraph:depth "$G"

# --from/--to (ours: trace-cmd report has no time range): the lines of the full
# report whose time stamp (-t: to the ns) is inside, bounds included
"$UTRACE" report -t "$K7" | awk 'NR > 1 && match($0, /\] [0-9]+\.[0-9]+:/) {
	t = substr($0, RSTART + 2, RLENGTH - 3) + 0
	if (t >= 21990.165096 && t <= 21990.165316) print }' >"$UT_TMP/range.want"
"$UTRACE" report -t --from 21990.165096 --to 21990.165316 "$K7" | sed 1d >"$UT_TMP/range.got"
expect_eq "--from/--to keep the events inside the range" "$(cat "$UT_TMP/range.want")" \
	"$(cat "$UT_TMP/range.got")"
expect_eq "the range is not empty" 9 "$(wc -l <"$UT_TMP/range.got")"

# The file recorded by default, and the operand form
def=$("$UTRACE" report -h | sed -n 's/.*-i FILE .*(default \(.*\))$/\1/p')
mkdir "$UT_TMP/cwd" && cp "$K7" "$UT_TMP/cwd/$def"
expect_eq "without -i, the file 'utrace record' writes ($def)" "$(trace-cmd report "$K7")" \
	"$(cd "$UT_TMP/cwd" && "$UTRACE" report)"

# Old text recordings print as they are; a text file with trace.dat options is refused
printf '# tracer: function\n#\n           hello-1       [000] ..... 1.000000: main <-start\n' \
	>"$UT_TMP/old.txt"
expect_eq "a text recording prints as it is" "$(cat "$UT_TMP/old.txt")" \
	"$("$UTRACE" report "$UT_TMP/old.txt")"
"$UTRACE" report -l "$UT_TMP/old.txt" >/dev/null 2>&1
expect_eq "trace.dat options on a text recording: a usage error" 2 $?
echo garbage >"$UT_TMP/junk"
out=$("$UTRACE" report "$UT_TMP/junk" 2>&1); rc=$?
expect_match "neither kind of recording: said, exit 1 ($rc)" "junk: neither a trace.dat" "$rc $out"
"$UTRACE" report -F 'no_such_event' "$K7" >/dev/null 2>&1
expect_eq "a filter naming no event: a usage error" 2 $?

# --chrome: valid JSON; per thread, calls nest (each slice inside the one it
# started in) and every slice's thread is named; the calls are the graph's.
"$UTRACE" report --chrome "$UT_TMP/g.json" "$G"
expect_eq "--chrome writes JSON that python's json.tool reads" 0 \
	"$(python3 -m json.tool "$UT_TMP/g.json" >/dev/null 2>&1; echo $?)"
cat >"$UT_TMP/nest.py" <<'EOF'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
ns = lambda v: round(v * 1000)
named, bad, slices = set(), [], {}
for e in ev:
    if e["ph"] == "M" and e["name"] == "thread_name":
        named.add(e["tid"])
    elif e["ph"] == "X":
        slices.setdefault(e["tid"], []).append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"]))
    elif e["ph"] not in ("i", "M"):
        bad.append("phase " + e["ph"])
depth = {}
for tid, s in slices.items():
    if tid not in named:
        bad.append("thread %d has no name" % tid)
    s.sort(key=lambda x: (x[0], -x[1]))
    stack = []
    for b, end, name in s:
        while stack and stack[-1][1] <= b:
            stack.pop()
        if stack and end > stack[-1][1]:
            bad.append("%d: %s overlaps %s" % (tid, name, stack[-1][2]))
        stack.append((b, end, name))
        depth[len(stack) - 1] = depth.get(len(stack) - 1, 0) + 1
print(" ".join(bad) or "nested", sum(len(s) for s in slices.values()), len(slices),
      " ".join("%d:%d" % (d, n) for d, n in sorted(depth.items())))
EOF
# 16 calls on 4 threads: hello's main, greet, sum_of_squares and 4 squares; threads'
# main, and in each of 2 workers a worker and its 3 checksums
expect_eq "--chrome: the graph's 16 calls, nested, on 4 named threads" \
	"nested 16 4 0:4 1:8 2:4" "$(python3 "$UT_TMP/nest.py" "$UT_TMP/g.json")"
expect_match "--chrome: events other than calls are instants" \
	'"name":"bprint","cat":"event","ph":"i"' "$(cat "$UT_TMP/g.json")"
# Only what the filters pass is exported
"$UTRACE" report --pid 5292 --chrome "$UT_TMP/h.json" "$G"
expect_eq "--chrome with --pid: hello's 7 calls alone" "nested 7 1 0:1 1:2 2:4" \
	"$(python3 "$UT_TMP/nest.py" "$UT_TMP/h.json")"

# --folded: hello (main 0x558c996a1070, greet ...1230, sum_of_squares ...11f0,
# square ...11e0) and threads (main 0x55e1f0653080, worker ...3280, checksum ...3240):
# self times in ns from the graph's durations (main: 247.592 us less its children's)
"$UTRACE" report --folded "$UT_TMP/g.folded" "$G"
expect_eq "--folded: the call tree with self times" "0x558c996a1070 101945
0x558c996a1070;0x558c996a11f0 130
0x558c996a1070;0x558c996a11f0;0x558c996a11e0 130
0x558c996a1070;0x558c996a1230 145387
0x55e1f0653080 1307912
0x55e1f0653280 8727
0x55e1f0653280;0x55e1f0653240 71266" "$(cat "$UT_TMP/g.folded")"
expect_eq "--folded: hello's stacks add up to its main's 247.592 us" 247592 \
	"$(awk '/^0x558c996a1070/ { s += $2 } END { print s }' "$UT_TMP/g.folded")"
# function events only: caller;function, one per call (callers are return addresses)
expect_eq "--folded from function events: calls counted under their callers" \
	"0x55a5a8d18098;0x55a5a8d18230 1
0x55a5a8d1809f;0x55a5a8d181f0 1
0x55a5a8d1821a;0x55a5a8d181e0 4
0x7fe5b0e4524a;0x55a5a8d18070 1" "$("$UTRACE" report --folded - "$F")"

ut_mount

# Files of utrace's own trace.dat writer (common/tracedat.c, through tests/progs/tdwrite)
# from a function_graph run of hello and threads.  Version 7 only: its version 6 files
# carry an empty TRACECLOCK option, which libtracecmd 3.1.6 parses past its end (valgrind
# sees it), so that trace-cmd report itself now and then takes the clock for a raw one.
if [ -x "$PROGS/tdwrite" ]; then
	echo function_graph >"$T/current_tracer"
	traced "$UT_BUILD/examples/hello" 5 >/dev/null
	traced "$UT_BUILD/examples/threads" >/dev/null
	echo 0 >"$T/tracing_on"
	files=
	for c in $(ls "$T/per_cpu" | sed 's/^cpu//' | sort -n); do
		# non-blocking: an empty CPU gives EAGAIN at once instead of waiting for events
		dd if="$T/per_cpu/cpu$c/trace_pipe_raw" of="$UT_TMP/raw$c" bs=4096 iflag=nonblock \
			2>/dev/null
		files="$files $UT_TMP/raw$c"
	done
	ksyms=
	[ -f "$T/kallsyms" ] && ksyms="-k $T/kallsyms"
	for v in 7; do
		# shellcheck disable=SC2086 # the CPU files are separate words
		if ! out=$("$PROGS/tdwrite" -V $v -s $ksyms -d "$T" -o "$UT_TMP/w$v.dat" $files 2>&1); then
			fail "utrace's writer, v$v: tdwrite" "$out"
			continue
		fi
		same "utrace's writer, v$v: every line" "$UT_TMP/w$v.dat"
		same "utrace's writer, v$v: -l" -l "$UT_TMP/w$v.dat"
		same "utrace's writer, v$v: --cpu 0" --cpu 0 "$UT_TMP/w$v.dat"
		"$UTRACE" report --chrome "$UT_TMP/w$v.json" "$UT_TMP/w$v.dat"
		# hello: main, greet, sum_of_squares, 5 squares; threads: main, 2 workers, 6 checksums
		expect_eq "utrace's writer, v$v: --chrome nests the 17 calls of 4 threads" \
			"nested 17 4 0:4 1:8 2:5" "$(python3 "$UT_TMP/nest.py" "$UT_TMP/w$v.json")"
	done
	echo nop >"$T/current_tracer"
	echo 1 >"$T/tracing_on"
else
	skip "files of utrace's writer" "no $PROGS/tdwrite"
fi

# Live: a function_graph run in a fresh mount, taken by trace-cmd extract in a private
# mount namespace where the mount stands in for the kernel's tracefs.
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	skip "report of a fresh utracefs recording" "needs root and unshare"
	exit 0
fi
echo function_graph >"$T/current_tracer"
LD_PRELOAD=$LIBUTRACE "$UT_BUILD/examples/hello" 5 >/dev/null
echo 0 >"$T/tracing_on"
: >"$UT_TMP/nosyms"
unshare -m sh -c "mount --bind '$T' /sys/kernel/tracing 2>/dev/null
	mount --bind '$T' /sys/kernel/debug/tracing 2>/dev/null
	mount --bind '$UT_TMP/nosyms' /proc/kallsyms 2>/dev/null
	trace-cmd extract -o '$UT_TMP/live.dat'" >"$UT_TMP/extract.log" 2>&1
if [ ! -s "$UT_TMP/live.dat" ]; then
	skip "report of a fresh utracefs recording" "trace-cmd extract: $(tail -1 "$UT_TMP/extract.log")"
	exit 0
fi
same "a fresh function_graph recording" "$UT_TMP/live.dat"
"$UTRACE" report --chrome "$UT_TMP/live.json" "$UT_TMP/live.dat"
expect_eq "a fresh recording: hello's 8 calls nested (main, greet, sum_of_squares, 5 squares)" \
	"nested 8 1 0:1 1:2 2:5" "$(python3 "$UT_TMP/nest.py" "$UT_TMP/live.json")"
expect_eq "a fresh recording: folded stacks of 1, 2, 2 and 3 frames" "1 2 2 3" \
	"$("$UTRACE" report --folded - "$UT_TMP/live.dat" | awk -F';' '{ print NF }' | sort | xargs)"
ut_umount

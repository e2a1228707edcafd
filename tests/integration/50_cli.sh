#!/bin/sh
# 50_cli.sh - the utrace command line end to end: every subcommand through a real
# utracefs mount and a traced program (examples/hello), and every misuse with its
# message and exit status (2 bad usage, 1 failure).
. "$(dirname "$0")/lib.sh"

HELLO=$UT_BUILD/examples/hello
M2=$UT_TMP/m2/sub/tracing # mounted by `utrace mount` itself
M3=$UT_TMP/m3/tracing	  # mounted and unmounted by `utrace record`
M4=$UT_TMP/rel/tracing	  # mounted through a relative UTRACE_TRACING

# Unmount what `utrace mount`/`record` may have left behind, then lib.sh's cleanup.
cli_cleanup() {
	for m in "$M2" "$M3" "$M4"; do
		if grep -q " $m " /proc/self/mountinfo 2>/dev/null; then
			fusermount3 -u -z "$m" 2>/dev/null
		fi
	done
	ut_cleanup
}
trap cli_cleanup EXIT

# expect_rc NAME RC REGEX CMD...: CMD exits with RC and its stderr matches REGEX
# (NOERR: stderr is empty).  CMD's stdout is left in $UT_TMP/out.
expect_rc() {
	name=$1 want=$2 re=$3
	shift 3
	"$@" >"$UT_TMP/out" 2>"$UT_TMP/err"; rc=$?
	if [ "$re" = NOERR ]; then
		[ -s "$UT_TMP/err" ] && rc="$rc, stderr not empty"
		re=
	fi
	if [ "$rc" = "$want" ] && { [ -z "$re" ] || grep -Eq -- "$re" "$UT_TMP/err"; }; then
		pass "$name"
	else
		fail "$name" "exit $rc (want $want), stderr: $(cat "$UT_TMP/err")"
	fi
}
is_mounted() { grep -q " $1 " /proc/self/mountinfo; }
# daemon_of DIR: the pid of the utracefs serving DIR (started by utrace mount).
daemon_of() {
	for p in /proc/[0-9]*; do
		case $(tr '\0' ' ' 2>/dev/null < "$p/cmdline") in
		*"utracefs $1 ") echo "${p#/proc/}"; return ;;
		esac
	done
}

# ---- help and bad usage (no mount needed) ---------------------------------------
expect_rc "no command: usage, 2" 2 "usage: utrace COMMAND" "$UTRACE"
expect_rc "unknown command: 2" 2 "unknown command 'frobnicate'" "$UTRACE" frobnicate
out=$("$UTRACE" help); rc=$?
for c in mount umount cflags record report show start stop reset list stat snapshot extract; do
	if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -Eq "^  $c "; then
		fail "help lists $c" "$out"; continue
	fi
	out2=$("$UTRACE" "$c" -h) && printf '%s' "$out2" | grep -q "^usage: utrace $c" &&
		[ "$("$UTRACE" help "$c")" = "$out2" ] || fail "$c -h prints its usage" "$out2"
done
pass "help lists every command; CMD -h and help CMD print the usage"
expect_rc "help of an unknown command: 2" 2 "unknown command 'nope'" "$UTRACE" help nope
expect_rc "--version" 0 NOERR "$UTRACE" --version
expect_match "--version prints the version" '^utrace [0-9]+\.[0-9]+\.[0-9]+$' "$(cat "$UT_TMP/out")"
expect_rc "record without -p: 2" 2 "no tracer given" "$UTRACE" record --text -- true
expect_rc "record without CMD: 2" 2 "no command to run" "$UTRACE" record --text -p function
expect_rc "record -p without value: 2" 2 "option '-p' needs an argument" "$UTRACE" record --text -p
expect_rc "record unknown option: 2" 2 "unknown option '-x'" "$UTRACE" record --text -x -p nop true
expect_rc "list unknown option: 2" 2 "unknown option '-z'" "$UTRACE" list -z
expect_rc "show bad CPU: 2" 2 "bad CPU number 'abc'" "$UTRACE" show -c abc
expect_rc "start with an argument: 2" 2 "unexpected argument 'now'" "$UTRACE" start now
expect_rc "stop with an option: 2" 2 "unknown option '-f'" "$UTRACE" stop -f
expect_rc "reset with an argument: 2" 2 "unexpected argument 'all'" "$UTRACE" reset all
expect_rc "stat with an argument: 2" 2 "unexpected argument 'x'" "$UTRACE" stat x
expect_rc "mount with two mount points: 2" 2 "unexpected argument 'b'" "$UTRACE" mount a b
expect_rc "cflags unknown option: 2" 2 "unknown option '--cxx'" "$UTRACE" cflags --cxx
expect_rc "report extra argument: 2" 2 "unexpected argument 'y'" "$UTRACE" report x y
expect_rc "report FILE, as trace-cmd report takes it: 1 when missing" 1 \
	"x: No such file or directory" "$UTRACE" report x
expect_rc "report of a missing file: 1" 1 "/nonexistent/rec.txt: No such file or directory" \
	"$UTRACE" report -i /nonexistent/rec.txt
printf 'hello\n' >"$UT_TMP/notrace.txt"
expect_rc "report of a non-recording: 1" 1 "neither a trace.dat nor a utrace text recording" \
	"$UTRACE" report -i "$UT_TMP/notrace.txt"

# ---- nothing mounted: every command that needs the mount says so -----------------
export UTRACE_TRACING=$UT_TMP/none
mkdir -p "$UTRACE_TRACING"
for c in show start stop reset stat "list -t" snapshot "snapshot -s"; do
	# shellcheck disable=SC2086
	expect_rc "$c without a mount: 1" 1 "no utracefs mounted at $UTRACE_TRACING" "$UTRACE" $c
done
expect_rc "umount without a mount: 1" 1 "no utracefs mounted there" "$UTRACE" umount

# ---- cflags ---------------------------------------------------------------------
cf=$("$UTRACE" cflags)
expect_match "cflags has the patchable-entry flag" '(^| )-fpatchable-function-entry=5( |$)' "$cf"
# shellcheck disable=SC2086
if cc $cf -O2 -o "$UT_TMP/hello" "$UT_TOP/examples/hello.c" 2>"$UT_TMP/err" &&
	objdump -d "$UT_TMP/hello" | grep -A1 '<square>:' | grep -q nop; then
	pass "a program builds with \$(utrace cflags) and has patchable entries"
else
	fail "a program builds with \$(utrace cflags)" "$(cat "$UT_TMP/err")"
fi
ld=$("$UTRACE" cflags --ldflags)
# shellcheck disable=SC2086
if cc $cf -O2 -o "$UT_TMP/hello-linked" "$UT_TOP/examples/hello.c" $ld 2>"$UT_TMP/err" &&
	readelf -d "$UT_TMP/hello-linked" | grep -q 'NEEDED.*libutrace.so' &&
	"$UT_TMP/hello-linked" >/dev/null; then
	pass "cflags --ldflags links the runtime and the program runs"
else
	fail "cflags --ldflags" "$ld: $(cat "$UT_TMP/err")"
fi

# ---- utrace mount / umount on the default place ($UTRACE_TRACING) -----------------
export UTRACE_TRACING=$M2
expect_rc "mount at \$UTRACE_TRACING" 0 NOERR "$UTRACE" mount
if is_mounted "$M2" && [ -e "$M2/trace" ]; then pass "mount is up when mount returns"; else
	fail "mount is up when mount returns" "$(grep utrace /proc/self/mountinfo)"
fi
expect_eq "mount prints the mount point" "utracefs mounted at $M2" "$(cat "$UT_TMP/out")"
expect_eq "created parents are private (0700)" "700 700" \
	"$(stat -c %a "$UT_TMP/m2" "$UT_TMP/m2/sub" | tr '\n' ' ' | sed 's/ $//')"
expect_rc "mount again is a no-op (0)" 0 NOERR "$UTRACE" mount
expect_eq "mount again says so" "utracefs already mounted at $M2" "$(cat "$UT_TMP/out")"
# A dead daemon leaves a stale mount: commands say so, mount repairs it.
# Right after its death too: stat() may still answer from FUSE's attribute cache.
pid=$(daemon_of "$M2")
if [ -n "$pid" ]; then
	stat "$M2" >/dev/null
	kill -9 "$pid"
	# dead once a zombie (its files closed): its reaper may take its time
	i=0; while [ $i -lt 100 ] && [ -e "/proc/$pid" ] &&
		[ "$(sed 's/.*) \(.\).*/\1/' "/proc/$pid/stat" 2>/dev/null)" != Z ]; do
		sleep 0.05; i=$((i + 1))
	done
	expect_rc "a stale mount is reported" 1 "is gone" "$UTRACE" show
	expect_rc "mount replaces a stale mount" 0 "unmounting the dead mount" "$UTRACE" mount
	[ -e "$M2/trace" ] && pass "the new mount answers" || fail "the new mount answers"
else
	fail "find the daemon started by utrace mount" "$(ps -ef | grep utracefs)"
fi
# A busy mount (a file open in it) needs -l.
command exec 8<"$M2/README" || fail "open a file in the mount"
expect_rc "umount of a busy mount: 1, suggests -l" 1 "utrace umount -l" "$UTRACE" umount
if is_mounted "$M2"; then pass "a failed umount leaves the mount"; else
	fail "a failed umount leaves the mount"
fi
expect_rc "umount -l of a busy mount" 0 NOERR "$UTRACE" umount -l
if is_mounted "$M2"; then fail "umount -l detaches the mount"; else
	pass "umount -l detaches the mount"
fi
exec 8<&-
# the daemon exits once the last file is closed (its socket goes with it)
i=0; while [ -n "$(daemon_of "$M2")" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
expect_eq "umount -l: the daemon exits once the mount is no longer used" "" "$(daemon_of "$M2")"
expect_rc "mount after umount -l" 0 NOERR "$UTRACE" mount
expect_rc "umount" 0 NOERR "$UTRACE" umount
if is_mounted "$M2"; then fail "umount removes the mount"; else pass "umount removes the mount"; fi
long=$UT_TMP/$(printf '%0100d' 0)
expect_rc "mount with a socket name too long: 1" 1 "name too long" "$UTRACE" mount "$long/tracing"
if [ -e "$long" ]; then fail "a mount point too long leaves no directory"; else
	pass "a mount point too long leaves no directory"
fi
expect_rc "umount again: 1" 1 "no utracefs mounted there" "$UTRACE" umount
expect_rc "umount of a plain directory: 1" 1 "no utracefs mounted there" "$UTRACE" umount "$UT_TMP"
expect_rc "mount over another file system: 1" 1 "another file system is mounted there" \
	"$UTRACE" mount /proc

# ---- a relative UTRACE_TRACING names one place: made absolute, or refused -----------
(cd "$UT_TMP" && UTRACE_TRACING=rel/tracing "$UTRACE" mount) >"$UT_TMP/out" 2>"$UT_TMP/err"
expect_eq "mount makes a relative UTRACE_TRACING absolute" "utracefs mounted at $M4" \
	"$(cat "$UT_TMP/out")"
expect_match "mount says which UTRACE_TRACING programs need" "need UTRACE_TRACING=$M4\$" \
	"$(cat "$UT_TMP/err")"
if is_mounted "$M4"; then pass "mounted at the absolute path"; else
	fail "mounted at the absolute path" "$(grep utrace /proc/self/mountinfo)"
fi
(cd "$UT_TMP" && UTRACE_TRACING=rel/tracing LD_PRELOAD=$LIBUTRACE "$HELLO" 2 rel) \
	>"$UT_TMP/out" 2>"$UT_TMP/err"
expect_eq "the runtime refuses a relative UTRACE_TRACING in one line" \
	"libutrace: UTRACE_TRACING=rel/tracing is not an absolute path: this program is not traced" \
	"$(cat "$UT_TMP/err")"
expect_eq "the refused program runs normally" "hello, rel
sum of the squares of 1..2 = 5" "$(cat "$UT_TMP/out")"
expect_rc "umount through the absolute path" 0 NOERR env UTRACE_TRACING="$M4" "$UTRACE" umount

# ---- record mounts and unmounts by itself ------------------------------------------
export UTRACE_TRACING=$M3
expect_rc "record with nothing mounted" 0 "trace saved to $UT_TMP/auto.txt" \
	"$UTRACE" record --text -p function -o "$UT_TMP/auto.txt" -- "$HELLO"
if is_mounted "$M3"; then fail "record unmounts what it mounted"; else
	pass "record unmounts what it mounted"
fi
expect_match "record (own mount) traced the program" 'sum_of_squares' "$(cat "$UT_TMP/auto.txt")"
expect_rc "record -B with nothing mounted" 0 "trace saved to $UT_TMP/auto-b.txt" \
	"$UTRACE" record --text -B auto -p function -o "$UT_TMP/auto-b.txt" -- "$HELLO"
if is_mounted "$M3"; then fail "record -B unmounts what it mounted"; else
	pass "record -B unmounts what it mounted"
fi
expect_match "record -B (own mount) traced the program" 'sum_of_squares' \
	"$(cat "$UT_TMP/auto-b.txt")"

# ---- everything else through lib.sh's mount -----------------------------------------
ut_mount # exports UTRACE_TRACING=$T

expect_rc "record -p function" 0 "trace saved to $UT_TMP/rec.txt" \
	"$UTRACE" record --text -p function -o "$UT_TMP/rec.txt" -- "$HELLO" 4 tester
expect_eq "the program's own output is untouched" "hello, tester
sum of the squares of 1..4 = 30" "$(cat "$UT_TMP/out")"
rec=$(cat "$UT_TMP/rec.txt")
expect_eq "the recording starts with the function tracer's header" "# tracer: function" \
	"$(printf '%s\n' "$rec" | head -1)"
expect_match "the recording has the program's functions" ' sum_of_squares( <-main)?$' "$rec"
expect_eq "square was called 4 times" 4 "$(printf '%s\n' "$rec" | grep -c ' square\( <-sum_of_squares\)\?$')"
expect_eq "record puts the tracer back to nop" nop "$(cat "$T/current_tracer")"
expect_eq "record leaves tracing on" 1 "$(cat "$T/tracing_on")"
expect_eq "report prints the recording" "$rec" "$("$UTRACE" report -i "$UT_TMP/rec.txt")"
(cd "$UT_TMP" && "$UTRACE" record --text -p function -- "$HELLO" >/dev/null 2>&1)
expect_match "record --text's default output is utrace.txt" 'sum_of_squares' \
	"$(cd "$UT_TMP" && "$UTRACE" report -i utrace.txt 2>&1)"

expect_rc "record returns CMD's exit status" 7 "" "$UTRACE" record --text -p nop -o - -- sh -c 'exit 7'
expect_rc "record of a missing program: 127" 127 "no-such-prog: No such file or directory" \
	"$UTRACE" record --text -p nop -o "$UT_TMP/x.txt" -- "$UT_TMP/no-such-prog"
# A program that cannot run leaves the output file as it was (or not there at all).
printf 'an older recording\n' >"$UT_TMP/keep.txt"
printf '#!/bin/sh\n' >"$UT_TMP/noexec.sh"
printf '#!/nonexistent/interpreter\n' >"$UT_TMP/badinterp.sh"
chmod +x "$UT_TMP/badinterp.sh"
rm -f "$UT_TMP/new.txt"
expect_rc "record of a missing program in PATH: 127" 127 "no-such-prog: No such file or directory" \
	"$UTRACE" record --text -p function -o "$UT_TMP/keep.txt" -- no-such-prog
expect_rc "record of a file that is not executable: 126" 126 "noexec.sh: Permission denied" \
	"$UTRACE" record --text -p function -o "$UT_TMP/keep.txt" -- "$UT_TMP/noexec.sh"
expect_rc "record of a program that exec cannot start: 127" 127 \
	"badinterp.sh: No such file or directory" \
	"$UTRACE" record --text -p function -o "$UT_TMP/keep.txt" -- "$UT_TMP/badinterp.sh"
expect_eq "a program that cannot run leaves the output file untouched" "an older recording" \
	"$(cat "$UT_TMP/keep.txt")"
"$UTRACE" record --text -p function -o "$UT_TMP/new.txt" -- "$UT_TMP/badinterp.sh" 2>/dev/null
if [ -e "$UT_TMP/new.txt" ]; then fail "a program that cannot run creates no output file"; else
	pass "a program that cannot run creates no output file"
fi
expect_eq "a program that cannot run leaves the tracer as it was" nop "$(cat "$T/current_tracer")"
expect_rc "record with an unknown tracer: 2" 2 "unknown tracer 'bogus'" \
	"$UTRACE" record --text -p bogus -o "$UT_TMP/x.txt" -- true
expect_rc "record to an unwritable file: 1" 1 "/nonexistent/x.txt: No such file or directory" \
	"$UTRACE" record --text -p nop -o /nonexistent/x.txt -- true
# (ASan accepts a preload only with its link-order check off)
LD_PRELOAD=libm.so.6 ASAN_OPTIONS=verify_asan_link_order=0 "$UTRACE" record --text -p nop \
	-o "$UT_TMP/x.txt" -- sh -c 'echo "$LD_PRELOAD"' >"$UT_TMP/out" 2>/dev/null
lib=$(cd "$(dirname "$LIBUTRACE")" && pwd -P)/libutrace.so
expect_eq "record appends the runtime to LD_PRELOAD" "libm.so.6:$lib" "$(cat "$UT_TMP/out")"

# A program without patch sites: record and the console say why its trace is empty.
expect_rc "record of a program without patch sites" 0 \
	"warning: /bin/true has no patch sites: none of its functions can be traced" \
	"$UTRACE" record --text -p function -o "$UT_TMP/x.txt" -- /bin/true
if grep -q 'no patch sites' "$UT_TMP/err" &&
	! "$UTRACE" record --text -p function -o "$UT_TMP/x.txt" -- "$HELLO" 2>&1 >/dev/null |
	grep -q 'no patch sites'; then
	pass "record says nothing of patch sites for a program that has them"
else
	fail "record says nothing of patch sites for a program that has them"
fi
"$UTRACE" record --text -p function -o "$UT_TMP/sh.txt" -- sh -c "$HELLO" >/dev/null 2>"$UT_TMP/err"
if ! grep -q 'no patch sites' "$UT_TMP/err" && grep -q sum_of_squares "$UT_TMP/sh.txt"; then
	pass "record of sh -c PROG: no warning, PROG is traced"
else
	fail "record of sh -c PROG: no warning, PROG is traced" "$(cat "$UT_TMP/err")"
fi
"$UTRACE" record --text -p nop -o "$UT_TMP/x.txt" -- /bin/true 2>/dev/null
"$UTRACE" record --text -p nop -o "$UT_TMP/x.txt" -- /bin/echo >/dev/null 2>&1
# the registry reads connections in order: echo's line comes after both of true's
i=0; while ! grep -q 'echo (pid' "$UT_TMP/utracefs.log" && [ $i -lt 200 ]; do
	sleep 0.05; i=$((i + 1))
done
expect_eq "the console says it once per program" \
	"1 1" "$(grep -c '/true (pid [0-9]*) has no patch sites' "$UT_TMP/utracefs.log") \
$(grep -c '/echo (pid [0-9]*) has no patch sites' "$UT_TMP/utracefs.log")"
expect_match "the console line names the flags" \
	"^utracefs: .*/true \\(pid [0-9]+\\) has no patch sites: none of its functions can be traced \\(build it with the flags of 'utrace cflags'\\)\$" \
	"$(cat "$UT_TMP/utracefs.log")"

# Events lost to a small buffer (-b): said per CPU, with -b; the size is put back.
kb=$(cat "$T/buffer_size_kb")
expect_rc "record -b with a buffer too small" 0 "CPU [0-9]+: [0-9]+ events lost \(overrun [0-9]+, dropped [0-9]+\)" \
	"$UTRACE" record --text -p function -b 8 -o "$UT_TMP/lost.txt" -- "$PROGS/e2e_calls" -n 100000
expect_match "record suggests -b when events were lost" "too small; -b KB makes it larger" \
	"$(cat "$UT_TMP/err")"
expect_eq "record puts buffer_size_kb back" "$kb" "$(cat "$T/buffer_size_kb")"
"$UTRACE" record --text -p function -o "$UT_TMP/x.txt" -- "$HELLO" 2>"$UT_TMP/err" >/dev/null
expect_eq "record says nothing of losses when there were none" "" "$(grep lost "$UT_TMP/err")"
expect_rc "record -b 0: 2" 2 "-b 0: not a buffer size" "$UTRACE" record --text -b 0 -p nop -- true

# SIGTERM (as timeout sends it) stops CMD, saves the trace and puts the tracer back.
"$UTRACE" record --text -p function -o "$UT_TMP/term.txt" -- "$PROGS/e2e_calls" -l \
	>"$UT_TMP/term.out" 2>"$UT_TMP/term.err" &
rp=$!
i=0; while ! grep -q ' work <-outer' "$T/trace" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
cp=$(pgrep -P "$rp")
kill -TERM "$rp"
wait "$rp"; rc=$?
expect_eq "record stopped by SIGTERM: CMD's exit status" 0 "$rc"
expect_match "record stopped by SIGTERM saves the trace" ' work <-outer$' "$(cat "$UT_TMP/term.txt")"
expect_match "record stopped by SIGTERM says so" 'Terminated: .*e2e_calls stopped, its trace saved' \
	"$(cat "$UT_TMP/term.err")"
expect_eq "record stopped by SIGTERM puts the tracer back" nop "$(cat "$T/current_tracer")"
if [ -n "$cp" ] && kill -0 "$cp" 2>/dev/null; then
	fail "record stopped by SIGTERM leaves no orphan" "$(ps -o pid,stat,cmd -p "$cp")"
	kill -KILL "$cp"
else
	pass "record stopped by SIGTERM leaves no orphan"
fi

# A program linked with the flags of `cflags --ldflags` loads the runtime by itself.
if [ -x "$UT_TMP/hello-linked" ]; then
	echo function > "$T/current_tracer"
	"$UT_TMP/hello-linked" >/dev/null
	linked=$(cat "$T/trace")
	echo nop > "$T/current_tracer"
	expect_match "a program linked with --ldflags is traced without LD_PRELOAD" \
		'hello-linked-[0-9]+ .* sum_of_squares' "$linked"
fi

# ---- start, stop, show ----------------------------------------------------------------
expect_rc "stop" 0 NOERR "$UTRACE" stop
expect_eq "stop writes tracing_on 0" 0 "$(cat "$T/tracing_on")"
expect_rc "start" 0 NOERR "$UTRACE" start
expect_eq "start writes tracing_on 1" 1 "$(cat "$T/tracing_on")"
echo function > "$T/current_tracer"
traced "$HELLO" >/dev/null
echo 0 > "$T/tracing_on"
expect_eq "show prints the trace file" "$(cat "$T/trace")" "$("$UTRACE" show)"
expect_match "show has the traced program" 'sum_of_squares' "$("$UTRACE" show)"
expect_eq "show -c 0 prints CPU 0's trace" "$(cat "$T/per_cpu/cpu0/trace")" "$("$UTRACE" show -c 0)"
expect_rc "show -c of a missing CPU: 1" 1 "per_cpu/cpu9999/trace: No such file or directory" \
	"$UTRACE" show -c 9999

# show -p streams trace_pipe until stopped.
echo 1 > "$T/tracing_on"
"$UTRACE" show -p >"$UT_TMP/pipe.out" 2>&1 &
sp=$!
sleep 0.2
echo pipe-marker > "$T/trace_marker"
i=0; while ! grep -q pipe-marker "$UT_TMP/pipe.out" && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
kill "$sp"; wait "$sp" 2>/dev/null
expect_match "show -p streams trace_pipe" 'tracing_mark_write: pipe-marker$' "$(cat "$UT_TMP/pipe.out")"

# ---- stat -------------------------------------------------------------------------------
echo 0 > "$T/options/overwrite"
echo 0 > "$T/tracing_on"
st=$("$UTRACE" stat); rc=$?
expect_eq "stat exits 0" 0 "$rc"
expect_match "stat shows the tracer" '^Tracer: function$' "$st"
expect_match "stat shows tracing off" '^Tracing on: 0$' "$st"
expect_match "stat shows the clock" "^Clock: $(sed 's/.*\[\(.*\)\].*/\1/' "$T/trace_clock")\$" "$st"
expect_eq "stat shows the buffer size" "$(cat "$T/buffer_size_kb")" \
	"$(printf '%s\n' "$st" | sed -n 's/^Buffer size (kb per CPU): //p')"
expect_match "stat shows a changed option" '^   nooverwrite$' "$st"
ncpu=$(ls -d "$T"/per_cpu/cpu* | wc -l)
expect_eq "stat has a row per CPU" "$ncpu" "$(printf '%s\n' "$st" | grep -cE '^ +[0-9]+ +[0-9]+ ')"
e0=$(sed -n 's/^entries: //p' "$T/per_cpu/cpu0/stats")
expect_match "stat shows CPU 0's entries" "^ +0 +$e0 " "$st"

# ---- reset --------------------------------------------------------------------------------
echo 1 > "$T/options/sym-offset"
echo 'sum_*' > "$T/set_ftrace_filter" # hello's, known since it ran
echo 'square:traceoff square:stacktrace:2' >> "$T/set_ftrace_filter"
echo 'gr*' > "$T/set_graph_notrace"
echo $$ > "$T/set_ftrace_pid"
echo 100 > "$T/tracing_thresh"
errs=$(wc -l <"$T/error_log")
expect_rc "reset" 0 NOERR "$UTRACE" reset
expect_eq "reset: removes only the kinds of probes there are (no error_log line)" "$errs" \
	"$(wc -l <"$T/error_log")"
expect_eq "reset: tracer nop" nop "$(cat "$T/current_tracer")"
expect_eq "reset: tracing on" 1 "$(cat "$T/tracing_on")"
expect_eq "reset: options back to defaults" "1 0" "$(cat "$T/options/overwrite") $(cat "$T/options/sym-offset")"
expect_eq "reset: buffer empty" "" "$(grep -v '^#' "$T/trace")"
expect_eq "reset: filters, pid lists and thresh back to empty" \
	"#### all functions enabled #### #### no functions disabled #### no pid 0" \
	"$(cat "$T/set_ftrace_filter" "$T/set_graph_notrace" "$T/set_ftrace_pid" "$T/tracing_thresh" | tr '\n' ' ' | sed 's/ $//')"
expect_match "stat after reset: no changed option" '^   \(none\)$' "$("$UTRACE" stat)"

# ---- instances: -B ------------------------------------------------------------------------
mkdir "$T/instances/one" "$T/instances/two"
echo inst-one > "$T/instances/one/trace_marker"
echo top-line > "$T/trace_marker"
expect_match "show -B: the instance's buffer" 'tracing_mark_write: inst-one$' "$("$UTRACE" show -B one)"
expect_eq "show -B: not the top's" "" "$("$UTRACE" show -B one | grep top-line)"
expect_rc "show -B of no instance: 1" 1 "no instance 'nosuch'" "$UTRACE" show -B nosuch
expect_rc "show -B with a slash: 2" 2 "bad instance name" "$UTRACE" show -B a/b
echo 0 > "$T/instances/two/tracing_on"
echo 0 > "$T/instances/two/options/overwrite"
st=$("$UTRACE" stat)
expect_match "stat lists each instance" '^Instance: one$' "$st"
expect_eq "stat: an instance's changed options only (its own defaults)" "   nooverwrite" \
	"$(printf '%s\n' "$st" | sed -n '/^Instance: two$/,$p' | sed -n '/^Options not/,/^$/p' | grep '^   ')"
expect_match "stat -B: that instance" '^Tracing on: 0$' "$("$UTRACE" stat -B two)"
expect_rc "reset -d alone: 2" 2 "-d removes" "$UTRACE" reset -d
expect_rc "reset -B of no instance: 1, nothing reset" 1 "no instance" "$UTRACE" reset -B two -B nosuch
expect_eq "reset -B of no instance: the others untouched" 0 "$(cat "$T/instances/two/tracing_on")"
expect_rc "reset -B two" 0 NOERR "$UTRACE" reset -B two
expect_eq "reset -B: the instance's tracing on, options back" "1 1 0 0" \
	"$(cat "$T/instances/two/tracing_on" "$T/instances/two/options/overwrite" \
		"$T/instances/two/options/trace_printk_dest" "$T/instances/two/options/copy_trace_marker" | tr '\n' ' ' | sed 's/ $//')"
expect_match "reset -B: the top untouched" 'tracing_mark_write: top-line$' "$(cat "$T/trace")"
expect_rc "reset -a -d" 0 NOERR "$UTRACE" reset -a -d
expect_eq "reset -a -d: every instance removed" "" "$(ls "$T/instances")"
expect_match "reset -a: the top untouched without -t" 'tracing_mark_write: top-line$' "$(cat "$T/trace")"

# ---- record -B: into an instance, the top level untouched ------------------------------------
echo nop > "$T/current_tracer"
: > "$T/trace"
echo top-before > "$T/trace_marker"
echo 0 > "$T/tracing_on"
top_kb=$(cat "$T/buffer_size_kb")
expect_rc "record -B into a new instance" 0 "trace saved to $UT_TMP/inst.txt" \
	"$UTRACE" record --text -B rec -p function -o "$UT_TMP/inst.txt" -- "$HELLO" 3 inst
rec=$(cat "$UT_TMP/inst.txt")
expect_eq "record -B: the instance's trace, with the tracer's header" "# tracer: function" \
	"$(printf '%s\n' "$rec" | head -1)"
expect_eq "record -B: square called 3 times" 3 \
	"$(printf '%s\n' "$rec" | grep -c ' square\( <-sum_of_squares\)\?$')"
expect_eq "record -B: the instance it made is removed" "" "$(ls "$T/instances")"
expect_eq "record -B: the top's tracer, tracing_on and size untouched" "nop 0 $top_kb" \
	"$(cat "$T/current_tracer") $(cat "$T/tracing_on") $(cat "$T/buffer_size_kb")"
expect_eq "record -B: nothing in the top's buffer but what was there" "tracing_mark_write: top-before" \
	"$(grep -v '^#' "$T/trace" | sed 's/.*: tracing_mark/tracing_mark/')"
mkdir "$T/instances/keep"
echo 0 > "$T/instances/keep/tracing_on"
keep_kb=$(cat "$T/instances/keep/buffer_size_kb")
expect_rc "record -B of an instance that is there, with -l and -b" 0 "" \
	"$UTRACE" record --text -B keep -l square -b 200 -o "$UT_TMP/keep.txt" -- "$HELLO" 2 keep
expect_eq "record -B -l: only the filtered function, in the instance" "square square" \
	"$(grep -v '^#' "$UT_TMP/keep.txt" | sed 's/.*: \([a-z_]*\).*/\1/' | tr '\n' ' ' | sed 's/ $//')"
expect_eq "record -B: an instance that was there stays, put back as it was" \
	"nop 0 $keep_kb #### all functions enabled ####" \
	"$(cat "$T/instances/keep/current_tracer" "$T/instances/keep/tracing_on" \
		"$T/instances/keep/buffer_size_kb" "$T/instances/keep/set_ftrace_filter" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "record -B -l: the top's filter untouched" "#### all functions enabled ####" \
	"$(cat "$T/set_ftrace_filter")"
expect_rc "record -B -P: only CMD and the pids, in the instance" 0 "" \
	"$UTRACE" record --text -B keep -P $$ -o "$UT_TMP/keep.txt" -- "$HELLO" 2 keep
expect_eq "record -B -P: CMD traced" 2 "$(grep -c ' square <-' "$UT_TMP/keep.txt")"
expect_eq "record -B -P: the instance's pid list put back, the top's untouched" "no pid no pid" \
	"$(cat "$T/instances/keep/set_ftrace_pid" "$T/set_ftrace_pid" | tr '\n' ' ' | sed 's/ $//')"
expect_rc "record: an option before -B (the top's): 2" 2 "-p before -B keep would set the top level" \
	"$UTRACE" record --text -p function -B keep -o "$UT_TMP/x.txt" -- true
expect_rc "record: two -B: 2" 2 "one -B per record" \
	"$UTRACE" record --text -B keep -B other -p function -o "$UT_TMP/x.txt" -- true
expect_rc "record -B with a bad name: 2" 2 "bad instance name 'a/b'" \
	"$UTRACE" record --text -B a/b -p function -o "$UT_TMP/x.txt" -- true
expect_rc "record -B with an unknown tracer: 2" 2 "unknown tracer 'bogus'" \
	"$UTRACE" record --text -B made -p bogus -o "$UT_TMP/x.txt" -- true
expect_eq "a failed record -B removes the instance it made, keeps the other" "keep" \
	"$(ls "$T/instances")"
rmdir "$T/instances/keep"
echo 1 > "$T/tracing_on"

# ---- snapshot --------------------------------------------------------------------------------
echo function > "$T/current_tracer"
traced "$HELLO" 2 snap >/dev/null
expect_eq "snapshot without options prints the snapshot file" "$(cat "$T/snapshot")" \
	"$("$UTRACE" snapshot)"
expect_match "snapshot: freed at first" '^# \* Snapshot is freed \*$' "$("$UTRACE" snapshot)"
expect_rc "snapshot -s" 0 NOERR "$UTRACE" snapshot -s
snap=$("$UTRACE" snapshot)
expect_eq "snapshot -s: the buffer's events are in the snapshot" 2 \
	"$(printf '%s\n' "$snap" | grep -c ' square <-sum_of_squares$')"
expect_eq "snapshot -s: and no longer in the buffer" 0 "$(grep -c ' square <-' "$T/trace")"
expect_eq "snapshot -c 0: CPU 0's part" "$(cat "$T/per_cpu/cpu0/snapshot")" \
	"$("$UTRACE" snapshot -c 0)"
expect_rc "snapshot -c 0 -f: the per-CPU file refuses 0, said with its name" 1 \
	"per_cpu/cpu0/snapshot: Invalid argument" "$UTRACE" snapshot -c 0 -f
expect_rc "snapshot -c of no such CPU: 1" 1 "per_cpu/cpu999/snapshot: No such file or directory" \
	"$UTRACE" snapshot -c 999 -s
expect_rc "snapshot -s -f: 2" 2 "not both" "$UTRACE" snapshot -s -f
expect_rc "snapshot -r" 0 NOERR "$UTRACE" snapshot -r
snap=$("$UTRACE" snapshot)
expect_match "snapshot -r: cleared, still allocated" '^# \* Snapshot is allocated \*$' "$snap"
expect_eq "snapshot -r: no event left" 0 "$(printf '%s\n' "$snap" | grep -c ' square <-')"
expect_rc "snapshot -f" 0 NOERR "$UTRACE" snapshot -f
expect_match "snapshot -f: freed" '^# \* Snapshot is freed \*$' "$("$UTRACE" snapshot)"
echo nop > "$T/current_tracer"
mkdir "$T/instances/snapi"
echo inst-snap > "$T/instances/snapi/trace_marker"
expect_rc "snapshot -B -s" 0 NOERR "$UTRACE" snapshot -B snapi -s
expect_match "snapshot -B: the instance's snapshot" 'tracing_mark_write: inst-snap$' \
	"$("$UTRACE" snapshot -B snapi)"
expect_eq "snapshot -B: the instance's buffer swapped out" "" \
	"$(grep -v '^#' "$T/instances/snapi/trace")"
expect_match "snapshot -B: the top's snapshot untouched" '^# \* Snapshot is freed \*$' \
	"$(cat "$T/snapshot")"
expect_rc "snapshot -B of no instance: 1" 1 "no instance 'nosuch'" "$UTRACE" snapshot -B nosuch -s
rmdir "$T/instances/snapi"

# ---- record -e ---------------------------------------------------------------------------------
# the program's own events, known only once it runs (it waits before main() meanwhile)
"$UTRACE" record --text -e 'ut_test:*' -o "$UT_TMP/ev.txt" "$PROGS/events_prog" bytes >/dev/null
expect_eq "record -e SYSTEM:*: that system's events from the first call, nothing else" \
	"# tracer: nop 1000 1000 0" \
	"$(head -1 "$UT_TMP/ev.txt") $(grep -c ': ints: ' "$UT_TMP/ev.txt") $(
		grep -c ': strs: ' "$UT_TMP/ev.txt") $(grep -c ': linked: ' "$UT_TMP/ev.txt")"
expect_eq "record -e: set_event emptied again" "" "$(cat "$T/set_event")"
"$UTRACE" record --text -p function -e ut_lib:linked -e ut_test:ints -o "$UT_TMP/ev.txt" \
	"$PROGS/events_prog" bytes >/dev/null
expect_eq "record -p function -e A -e B: both events and the function tracer" \
	"# tracer: function 1000 0 1000 yes" \
	"$(head -1 "$UT_TMP/ev.txt") $(grep -c ': ints: ' "$UT_TMP/ev.txt") $(
		grep -c ': strs: ' "$UT_TMP/ev.txt") $(grep -c ': linked: ' "$UT_TMP/ev.txt") $(
		grep -q ' <-' "$UT_TMP/ev.txt" && echo yes)"
"$UTRACE" record --text -e ut_lib:linked -f 'v < 52' -e ut_test:strs -o "$UT_TMP/ev.txt" \
	"$PROGS/events_prog" bytes >/dev/null
expect_eq "record -e EVENT -f FILTER: that event filtered, the other not" "10 1000" \
	"$(grep -c ': linked: ' "$UT_TMP/ev.txt") $(grep -c ': strs: ' "$UT_TMP/ev.txt")"
expect_eq "record -f: the filter set back to none" none \
	"$(cat "$T/events/ut_lib/linked/filter")"
"$UTRACE" record --text -e 'ut_lib:*' -f 'v >= 1040' -o "$UT_TMP/ev.txt" "$PROGS/events_prog" bytes \
	>/dev/null
expect_eq "record -e SYSTEM:* -f FILTER: the system's filter" 2 \
	"$(grep -c ': linked: ' "$UT_TMP/ev.txt")"
expect_rc "record -f of a bad filter: 1, the file named" 1 "linked/filter: Invalid argument" \
	"$UTRACE" record --text -e ut_lib:linked -f 'nosuch == 1' -o "$UT_TMP/ev.txt" "$PROGS/events_prog" bytes
expect_eq "record -f of a bad filter: set back to none" none \
	"$(cat "$T/events/ut_lib/linked/filter")"
expect_rc "record -f without -e before it: usage, 2" 2 "follows the -e EVENT" \
	"$UTRACE" record --text -f 'v < 1' -e ut_lib:linked "$PROGS/events_prog" bytes
expect_rc "record -e of no event: 1, named" 1 "no such event" \
	"$UTRACE" record --text -e nosuch:event -o "$UT_TMP/ev.txt" "$PROGS/events_prog" bytes
expect_eq "record -e of no event: set_event and the tracer as they were" "|nop" \
	"$(cat "$T/set_event")|$(cat "$T/current_tracer")"

# ---- list -----------------------------------------------------------------------------------
expect_eq "list -t: one tracer a line" "$(tr ' ' '\n' < "$T/available_tracers" | grep .)" \
	"$("$UTRACE" list -t)"
expect_eq "list -o: trace_options" "$(cat "$T/trace_options")" "$("$UTRACE" list -o)"
ev=$("$UTRACE" list -e)
expect_match "list -e: ftrace:function" '^ftrace:function$' "$ev"
expect_match "list -e: ftrace:print" '^ftrace:print$' "$ev"
expect_eq "list -e PATTERN: a glob on SYSTEM:EVENT" "ftrace:funcgraph_entry
ftrace:funcgraph_exit" "$("$UTRACE" list -e 'ftrace:funcgraph*')"
expect_eq "list -e PATTERN: or on the event's name alone" "ftrace:print" \
	"$("$UTRACE" list -e 'pri?t')"
expect_eq "list -e PATTERN: nothing matches, nothing printed" "" "$("$UTRACE" list -e 'nosuch*')"
all=$("$UTRACE" list)
expect_match "list: events, tracers and options under titles" '^tracers:$' "$all"
expect_match "list: options title" '^options:$' "$all"
if [ -e "$T/available_filter_functions" ]; then
	expect_eq "list -f: available_filter_functions" "$(cat "$T/available_filter_functions")" \
		"$("$UTRACE" list -f)"
else
	expect_rc "list -f without available_filter_functions: 1" 1 "not available yet" \
		"$UTRACE" list -f
fi

ut_umount && pass "utracefs exits cleanly after the CLI's use" || fail "utracefs exit status"

#!/bin/sh
# 80_filter.sh - function selection through a real mount: available_filter_functions,
# set_ftrace_filter, set_ftrace_notrace, set_graph_function, set_graph_notrace
# (reading, errors, append and truncate, line numbers, mod:), and the flags a
# process sees in the selection memfd.  The process is tests/progs/fake_sites: it
# registers like the runtime, sends the sites of five of its functions and prints
# its section of the memfd at every generation, before it acknowledges it (so the
# last line of its output is current when a filter write returns).
. "$(dirname "$0")/lib.sh"

ut_mount
OUT=$UT_TMP/fake.out
fake_sites "$OUT"
# the wait for the flags after a write (the ACK comes after the line)
flags() { tail -1 "$OUT" | sed 's/^gen [0-9]* //'; }

expect_eq "available_filter_functions lists the sites' functions" \
	"fs_alpha fs_alpha_two fs_beta fs_delta fs_gamma" \
	"$(sort "$T/available_filter_functions" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "no filter: every site traced" \
	"filtered 0 fs_alpha=1 fs_alpha_two=1 fs_beta=1 fs_gamma=1 fs_delta=1" "$(flags)"

expect_eq "empty reads" "#### all functions enabled ####
#### no functions disabled ####
#### all functions enabled ####
#### no functions disabled ####" \
	"$(cat "$T/set_ftrace_filter" "$T/set_ftrace_notrace" "$T/set_graph_function" "$T/set_graph_notrace")"

echo 'fs_alpha*' >"$T/set_ftrace_filter"
expect_eq "glob: read back in available order" \
	"$(grep '^fs_alpha' "$T/available_filter_functions")" "$(cat "$T/set_ftrace_filter")"
expect_eq "glob: flags" \
	"filtered 1 fs_alpha=1 fs_alpha_two=1 fs_beta=0 fs_gamma=0 fs_delta=0" "$(flags)"

echo fs_gamma >>"$T/set_ftrace_filter"
expect_eq "append adds" "fs_alpha fs_alpha_two fs_gamma" \
	"$(sort "$T/set_ftrace_filter" | tr '\n' ' ' | sed 's/ $//')"
expect_write_err "no match: EINVAL" "Invalid argument" nosuch_function "$T/set_ftrace_filter"
expect_eq "no match with >: EINVAL, the previous filter intact" "fs_alpha fs_alpha_two fs_gamma" \
	"$(sort "$T/set_ftrace_filter" | tr '\n' ' ' | sed 's/ $//')"
expect_match "no match: an error_log entry names the file and the pattern" \
	'set_ftrace_filter: error: No function matches.*Command: nosuch_function' \
	"$(tr '\n' ' ' < "$T/error_log")"
echo fs_beta >"$T/set_ftrace_filter"
out=$( (/bin/echo nosuch_function >>"$T/set_ftrace_filter") 2>&1 ); rc=$?
expect_eq "no match with >>: EINVAL, the previous filter intact" "1 fs_beta" \
	"$([ $rc -ne 0 ] && echo 1) $(cat "$T/set_ftrace_filter")"
echo '!fs_beta' >>"$T/set_ftrace_filter"
expect_eq "! removes" "#### all functions enabled ####" "$(cat "$T/set_ftrace_filter")"

third=$(sed -n 3p "$T/available_filter_functions")
echo 3 >"$T/set_ftrace_filter"
expect_eq "a number selects that line of available_filter_functions" "$third" \
	"$(cat "$T/set_ftrace_filter")"
expect_write_err "line 0: EINVAL" "Invalid argument" 0 "$T/set_ftrace_filter"
expect_write_err "a line past the end: EINVAL" "Invalid argument" 6 "$T/set_ftrace_filter"

echo '*:mod:fake_sites' >"$T/set_ftrace_filter"
expect_eq "mod: the executable's functions" 5 "$(wc -l <"$T/set_ftrace_filter")"
echo 'foo*:mod:libnothere.so' >"$T/set_ftrace_filter"
expect_eq "mod: an object not loaded is kept and read back" \
	"#### all functions enabled ####
foo*:mod:libnothere.so" "$(cat "$T/set_ftrace_filter")"
expect_eq "mod: a kept command alone filters everything out" \
	"filtered 1 fs_alpha=0 fs_alpha_two=0 fs_beta=0 fs_gamma=0 fs_delta=0" "$(flags)"
expect_write_err "an unknown command: EINVAL" "Invalid argument" fs_beta:nosuchcmd \
	"$T/set_ftrace_filter"
expect_write_err "a command not there yet (enable_event): EINVAL" "Invalid argument" \
	fs_beta:enable_event:sched:sched_switch "$T/set_ftrace_filter"

echo 'fs_*' >"$T/set_ftrace_filter"
echo 'fs_beta fs_delta' >"$T/set_ftrace_notrace"
expect_eq "notrace wins over filter" \
	"filtered 1 fs_alpha=1 fs_alpha_two=1 fs_beta=0 fs_gamma=1 fs_delta=0" "$(flags)"
echo >"$T/set_ftrace_filter"
echo >"$T/set_ftrace_notrace"
expect_eq "both cleared: every site again" \
	"filtered 0 fs_alpha=1 fs_alpha_two=1 fs_beta=1 fs_gamma=1 fs_delta=1" "$(flags)"

echo fs_beta >"$T/set_graph_function"
echo fs_gamma >"$T/set_graph_notrace"
expect_eq "graph files: read back" "fs_beta fs_gamma" \
	"$(cat "$T/set_graph_function" "$T/set_graph_notrace" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "graph files: flags" \
	"filtered 0 fs_alpha=1 fs_alpha_two=1 fs_beta=3 fs_gamma=5 fs_delta=1" "$(flags)"
expect_write_err "graph: ! of a function not in it: EINVAL" "Invalid argument" '!fs_alpha' \
	"$T/set_graph_function"
echo 1 >"$T/set_graph_function"
expect_eq "graph: line numbers, as in set_ftrace_filter" \
	"$(sed -n 1p "$T/available_filter_functions")" "$(cat "$T/set_graph_function")"
echo >"$T/set_graph_function"
echo >"$T/set_graph_notrace"

echo fs_alpha >"$T/set_ftrace_filter"
exec 7>&-
wait $FAKE
i=0
while [ $i -lt 100 ] && [ -s "$T/available_filter_functions" ]; do sleep 0.05; i=$((i + 1)); done
expect_eq "a process gone: its functions leave available_filter_functions" "" \
	"$(cat "$T/available_filter_functions")"
expect_eq "a process gone: the filter keeps its functions" "fs_alpha" \
	"$(cat "$T/set_ftrace_filter")"
echo >"$T/set_ftrace_filter"

# A real traced program: tests/progs/filter_many (1000 functions and a small tree)
# under the runtime, driven through stdin (a line of commands, answered by "done").
FMO=$UT_TMP/fm.out
mkfifo "$UT_TMP/fmin"
LD_PRELOAD=$LIBUTRACE "$PROGS/filter_many" -l <"$UT_TMP/fmin" >"$FMO" 2>&1 &
FM=$!
exec 8>"$UT_TMP/fmin"
# fm CMD...: send one command line, print what the program answered to it
fm() { ask "$FMO" 8 "$@"; }
# the functions in the trace (function or function_graph), sorted
fnames() {
	grep -v '^#' "$T/trace" | sed -n -e 's/.*: \([A-Za-z_0-9]*\) <-.*/\1/p' \
		-e 's/.*| *\([A-Za-z_0-9]*\)().*/\1/p' | sort -u | tr '\n' ' ' | sed 's/ $//'
}
# one round of calls, traced
fm_round() { echo > "$T/trace"; fm run > /dev/null; }
i=0
while [ $i -lt 200 ] && ! grep -q '^fm_999$' "$T/available_filter_functions"; do
	sleep 0.05; i=$((i + 1))
done
expect_eq "runtime: a real process's functions are listed" "1006" \
	"$(grep -c '^fm_' "$T/available_filter_functions")"
expect_eq "runtime: nop tracer, every site a 5-byte NOP" "fm_1 0f fm_500 0f fm_top 0f" \
	"$(fm fm_1 fm_500 fm_top | tr '\n' ' ' | sed 's/ $//')"

echo function > "$T/current_tracer"
fm_round
expect_eq "runtime: no filter, every function traced" 1006 "$(fnames | wc -w)"
echo 'fm_1 fm_500 fm_999' > "$T/set_ftrace_filter"
expect_eq "runtime: a filter of three patches them (call) and nothing else" \
	"fm_0 0f fm_1 e8 fm_2 0f fm_499 0f fm_500 e8 fm_998 0f fm_999 e8 fm_top 0f" \
	"$(fm fm_0 fm_1 fm_2 fm_499 fm_500 fm_998 fm_999 fm_top | tr '\n' ' ' | sed 's/ $//')"
fm_round
expect_eq "runtime: function traces exactly the three" "fm_1 fm_500 fm_999" "$(fnames)"
echo fm_500 > "$T/set_ftrace_notrace"
expect_eq "runtime: set_ftrace_notrace unpatches one" "fm_1 e8 fm_500 0f fm_999 e8" \
	"$(fm fm_1 fm_500 fm_999 | tr '\n' ' ' | sed 's/ $//')"
fm_round
expect_eq "runtime: notrace removes it from the trace" "fm_1 fm_999" "$(fnames)"
echo > "$T/set_ftrace_notrace"

echo function_graph > "$T/current_tracer"
expect_eq "runtime: function_graph patches the three (jmp)" "fm_0 0f fm_1 e9 fm_500 e9 fm_999 e9" \
	"$(fm fm_0 fm_1 fm_500 fm_999 | tr '\n' ' ' | sed 's/ $//')"
fm_round
expect_eq "runtime: function_graph traces exactly the three" "fm_1 fm_500 fm_999" "$(fnames)"
echo > "$T/set_ftrace_filter"
expect_eq "runtime: filter emptied, every site patched again" "fm_0 e9 fm_2 e9 fm_top e9" \
	"$(fm fm_0 fm_2 fm_top | tr '\n' ' ' | sed 's/ $//')"

echo fm_mid > "$T/set_graph_function"
fm_round
expect_eq "runtime: set_graph_function shows only its subtree, from depth 0" \
	"0 fm_mid|1 fm_leaf1|1 fm_leaf2" \
	"$(awk -f "$UT_TOP/tests/integration/graph_tree.awk" -v mode=graph "$T/trace" | sort -u)"
echo > "$T/set_graph_function"
echo fm_mid > "$T/set_graph_notrace"
fm_round
expect_eq "runtime: set_graph_notrace hides the function and its subtree" \
	"0 fm_top|1 fm_other|2 fm_leaf3" \
	"$(awk -f "$UT_TOP/tests/integration/graph_tree.awk" -v mode=graph "$T/trace" | grep -o '0 fm_top.*' | sort -u)"
echo > "$T/set_graph_notrace"

# Filters changed while the program runs its rounds without a pause.
fm spin > /dev/null
for f in 'fm_1*' 'fm_2* fm_top' '' 'fm_9*' 'fm_leaf*' ''; do
	echo "$f" > "$T/set_ftrace_filter"
	echo function > "$T/current_tracer"
	echo fm_5 > "$T/set_ftrace_notrace"
	echo function_graph > "$T/current_tracer"
	echo > "$T/set_ftrace_notrace"
done
echo 'fm_7*' > "$T/set_ftrace_filter"
expect_eq "runtime: live changes repatch a running program" "fm_6 0f fm_7 e9 fm_70 e9 fm_8 0f" \
	"$(fm stop fm_6 fm_7 fm_70 fm_8 | tr '\n' ' ' | sed 's/ $//')"
fm_round
expect_eq "runtime: ... which traces the new selection" 111 "$(fnames | wc -w)"
echo > "$T/set_ftrace_filter"
echo nop > "$T/current_tracer"
exec 8>&-
wait $FM
expect_eq "runtime: the program survived the live changes" 0 "$?"

# A hostile peer (tests/progs/bad_sites): malformed and out-of-order SITES packets
# end its connection and nothing else; odd but legal ones (restart, replace, unload,
# going away mid-object) keep it.
want_closed="before-hello len-mismatch nr-too-large path-unterminated path-relative
first-past-total nr-past-total total-huge unload-with-offsets chunk-out-of-order
chunk-other-total chunk-other-base chunk-never-started chunk-after-complete
short-packet oversized-packet"
out=$("$PROGS/bad_sites" hostile 2>&1)
expect_eq "hostile SITES: every bad packet closes the connection" \
	"$(for n in $want_closed; do echo "closed $n"; done; echo "open odd-but-legal")" "$out"
expect_eq "hostile SITES: utracefs still serves" "1 1" \
	"$(kill -0 "$UT_FS_PID" && echo 1) $(cat "$T/available_filter_functions" >/dev/null && echo 1)"
# Announcing huge objects costs nothing until their offsets come.
grew=$("$PROGS/bad_sites" huge "$UT_FS_PID" | sed -n 's/^grew \([0-9-]*\) MB$/\1/p')
expect_eq "huge totals announced without offsets: no memory taken" 1 \
	"$([ -n "$grew" ] && [ "$grew" -lt 256 ] && echo 1 || echo "grew $grew MB")"
# After an exec the new image may register before the old image's queued packets are
# read: those must not replace the new image's objects.
expect_eq "an exec'd image's objects are not replaced by the old image's" "sites 2" \
	"$("$PROGS/bad_sites" exec 2>&1)"

# The kernel as an oracle for the errors, where its function tracer can be read.
if kt_available && cat "$KT/set_ftrace_filter" >/dev/null 2>&1; then
	S=$UT_TMP/scripts
	mkdir -p "$S"
	cat >"$S/einval" <<'EOF'
echo nosuch_function_xyz >> $T/set_ftrace_filter
cat $T/set_ftrace_filter
echo nosuch_function_xyz > $T/set_ftrace_notrace
cat $T/set_ftrace_notrace
echo 'x:nosuchcommand' > $T/set_ftrace_filter
echo > $T/set_ftrace_filter
EOF
	tdiff "errors and reads of an unknown function" "$S/einval"
else
	skip "kernel set_ftrace_filter as oracle" "its function tracer cannot be read here"
fi
# A short program started while a filter is set is traced from its start: its
# runtime waits before main() until utracefs has published its selection.
echo function > "$T/current_tracer"
traced "$PROGS/e2e_calls" -n 5 > /dev/null # makes its functions known
echo work > "$T/set_ftrace_filter"
echo > "$T/trace"
traced "$PROGS/e2e_calls" -n 20 > /dev/null
expect_eq "filter: a short program is traced from its start" 20 \
	"$(grep -c ' work <-outer$' "$T/trace")"
expect_eq "filter: and only the filtered function" 0 "$(grep -c ' outer <-' "$T/trace")"
echo > "$T/set_ftrace_filter"
echo nop > "$T/current_tracer"
# however long utracefs takes to publish it (a loaded machine): a second daemon names
# every site packet 2.5 s late (a test hook), longer than a stopped utracefs is waited for
T4=$UT_TMP/t4
mkdir "$T4"
if UTRACEFS_TEST_SITES_DELAY_MS=2500 "$UTRACEFS" "$T4"; then
	UTRACE_TRACING=$T4 traced "$PROGS/e2e_calls" -n 5 > /dev/null
	echo function > "$T4/current_tracer"
	echo work > "$T4/set_ftrace_filter"
	UTRACE_TRACING=$T4 traced "$PROGS/e2e_calls" -n 20 > /dev/null
	expect_eq "filter: a program whose sites utracefs reads late is traced from its start" 20 \
		"$(grep -c ' work <-outer$' "$T4/trace")"
	fusermount3 -u "$T4"
else
	fail "a second utracefs did not start"
fi

# Filters are patterns: a program utracefs meets only after they were written (here
# exec'd by a traced program: tests/progs/launch runs tests/progs/abc, main -> a -> b
# -> c) gets them too, from its first call, on its first run as on the next.
graph_abc() { grep -c -e '^ *[0-9]) .*|      b() {$' -e '^ *[0-9]) .*|        c();$'; }
for run in first second; do
	out=$("$UTRACE" record --text -g main -o - "$PROGS/launch" "$PROGS/abc" 2>&1)
	expect_eq "record -g main: the exec'd program's main, $run run" 2 \
		"$(printf '%s\n' "$out" | graph_abc)"
done
# a function of a program not met yet: FUNC:mod:PROGRAM, kept pending until it comes
cp "$PROGS/abc" "$UT_TMP/abc_g"
out=$("$UTRACE" record --text -g 'c:mod:abc_g' -o - "$PROGS/launch" "$UT_TMP/abc_g" 2>&1)
expect_eq "record -g FUNC:mod:PROGRAM: a function of an exec'd program not run yet" \
	"c();" "$(printf '%s\n' "$out" | grep -v '^#' | grep -o '[a-z]*();$')"
# a program not met yet: a copy of abc under another name, and another for mod:
cp "$PROGS/abc" "$UT_TMP/abc_new"
cp "$PROGS/abc" "$UT_TMP/abc_mod"
echo function > "$T/current_tracer"
echo 'b c' > "$T/set_ftrace_filter"
echo c > "$T/set_ftrace_notrace"
echo > "$T/trace"
traced "$PROGS/launch" "$UT_TMP/abc_new" > /dev/null
expect_eq "set_ftrace_filter/notrace: the patterns select in a new program" \
	"abc_new b" "$(grep -v '^#' "$T/trace" | sed -n 's/^ *\([a-z_]*\)-[0-9]* .*: \([a-z]*\) <-.*/\1 \2/p' | sort -u | tr '\n' ' ' | sed 's/ $//')"
echo > "$T/set_ftrace_notrace"
echo '*:mod:abc_mod' > "$T/set_ftrace_filter"
expect_eq "FUNC:mod:PROGRAM for a program not run yet: kept pending" \
	"#### all functions enabled ####
*:mod:abc_mod" "$(cat "$T/set_ftrace_filter")"
echo > "$T/trace"
traced "$PROGS/launch" "$UT_TMP/abc_mod" > /dev/null
expect_eq "FUNC:mod:PROGRAM: applies when the program comes, and only there" \
	"abc_mod a abc_mod b abc_mod c abc_mod main" \
	"$(grep -v '^#' "$T/trace" | sed -n 's/^ *\([a-z_]*\)-[0-9]* .*: \([a-z]*\) <-.*/\1 \2/p' | sort -u | tr '\n' ' ' | sed 's/ $//')"
expect_eq "FUNC:mod:PROGRAM: no longer pending once it came" "a b c main" \
	"$(sort "$T/set_ftrace_filter" | tr '\n' ' ' | sed 's/ $//')"
echo > "$T/set_ftrace_filter"

# mod: takes the names a user types for a shared object: the soname, the file's
# name and the name without versions.
printf 'int ver_fn(int x) { return x + 1; }\n' >"$UT_TMP/ver.c"
printf 'int ver_fn(int);\nint main(void) { return ver_fn(1) == 2 ? 0 : 1; }\n' >"$UT_TMP/vmain.c"
CF=$("$UTRACE" cflags)
if cc $CF -shared -fPIC -Wl,-soname,libutver.so.1 -o "$UT_TMP/libutver.so.1.2.3" "$UT_TMP/ver.c" &&
	ln -s libutver.so.1.2.3 "$UT_TMP/libutver.so.1" &&
	cc $CF -o "$UT_TMP/vmain" "$UT_TMP/vmain.c" "$UT_TMP/libutver.so.1" -Wl,-rpath,"$UT_TMP"; then
	traced "$UT_TMP/vmain" # makes its functions known
	for m in libutver.so.1 libutver.so.1.2.3 libutver 'libutver.so*'; do
		echo "*:mod:$m" >"$T/set_ftrace_filter"
		expect_eq "mod: $m names libutver.so.1.2.3" "ver_fn [libutver.so.1.2.3]" \
			"$(cat "$T/set_ftrace_filter")"
	done
	echo '!*:mod:libutver.so.1' >>"$T/set_ftrace_filter"
	expect_eq "mod: ! with the soname removes" "#### all functions enabled ####" \
		"$(cat "$T/set_ftrace_filter")"
	expect_write_err "mod: a loaded object where nothing matches: EINVAL" "Invalid argument" \
		'nosuch:mod:libutver.so.1' "$T/set_ftrace_filter"
	echo > "$T/set_ftrace_filter"
else
	fail "mod: could not build a versioned shared object"
fi
echo nop > "$T/current_tracer"

# A program that ran and exited has its functions known to the next open of a
# control file, however late utracefs reads what it sent: a second daemon names
# every site packet 300 ms late (a test hook), and the filter is written at once.
T3=$UT_TMP/t3
mkdir "$T3"
if UTRACEFS_TEST_SITES_DELAY_MS=300 "$UTRACEFS" "$T3"; then
	UTRACE_TRACING=$T3 traced "$PROGS/filter_many" >/dev/null
	expect_eq "a program that exited: its functions are known at the next open" fm_999 \
		"$(/bin/echo fm_999 >"$T3/set_ftrace_filter" && cat "$T3/set_ftrace_filter")"
	fusermount3 -u "$T3"
else
	fail "a second utracefs did not start"
fi
ut_umount || fail "utracefs exit status"

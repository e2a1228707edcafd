#!/bin/sh
# 99_tracecmd.sh - Debian's trace-cmd on a utracefs mount through `utrace trace-cmd`:
# stat, list, start/stop/show, extract, record; then `trace-cmd report` (not
# preloaded: it reads the file alone) names every function event as the mount's
# trace text does, with the callers (-O parent=1), for function and
# function_graph, for two programs whose different functions sit at one address
# (ASLR off), for libraries dlclose()d during the trace, and the fields a
# program's event prints with %ps: raw pages carry
# flat addresses, and the mount's kallsyms file, which trace-cmd stores as its
# /proc/kallsyms, names them.
. "$(dirname "$0")/lib.sh"

if ! command -v trace-cmd >/dev/null 2>&1; then
	skip "trace-cmd on utracefs" "trace-cmd is not installed (Debian package trace-cmd)"
	exit 0
fi
ut_mount
HELLO=$UT_BUILD/examples/hello

# tc ARGS...: trace-cmd on the mount (bounded: a hang fails instead of stalling the suite)
tc() { timeout 300 "$UTRACE" trace-cmd "$@"; }
# text_funcs FILE: "comm-pid func parent" of every function line of a trace text
text_funcs() {
	grep -v '^#' "$1" | awk '$NF ~ /^<-/ { p = $NF; sub(/^<-/, "", p); print $1, $(NF - 1), p }'
}
# report_funcs FILE.dat: the same from trace-cmd report -O parent=1 ("func <-- parent")
report_funcs() {
	trace-cmd report -O parent=1 "$1" 2>/dev/null |
		awk '$0 ~ / function: / && $(NF - 1) == "<--" { print $1, $(NF - 2), $NF }'
}
# graph_calls: the functions entered, in order, of a function_graph text on stdin
graph_calls() { grep -v '^#' | grep -oE '[A-Za-z_][A-Za-z0-9_.]*\(\)'; }

# ---- files trace-cmd reads and writes --------------------------------------------------
expect_match "stat: tracing on, as the mount says" "^Tracing is enabled\$" "$(tc stat 2>&1)"
echo 0 >"$T/tracing_on"
expect_match "stat: tracing off, as the mount says" "^Tracing is disabled\$" "$(tc stat 2>&1)"
echo 1 >"$T/tracing_on"
expect_eq "list -t: the mount's tracers" "$(echo $(cat "$T/available_tracers"))" \
	"$(echo $(tc list -t 2>&1))"
expect_match "kallsyms: hello's main once it ran, at a flat address" \
	"^8[0-9a-f]{15} T main	\[hello\]\$" "$(traced "$HELLO" >/dev/null; cat "$T/kallsyms")"

# ---- start, stop, show, extract: function ------------------------------------------------
tc start -p function >/dev/null 2>&1
expect_eq "start -p function sets current_tracer" "function" "$(cat "$T/current_tracer")"
traced "$HELLO" >/dev/null
tc stop >/dev/null 2>&1
expect_eq "stop turns tracing_on off" "0" "$(cat "$T/tracing_on")"
cp "$T/trace" "$UT_TMP/f.txt"
tc show >"$UT_TMP/show.txt" 2>&1
expect_eq "show prints the mount's trace" "$(text_funcs "$UT_TMP/f.txt")" \
	"$(text_funcs "$UT_TMP/show.txt")"
tc extract -o "$UT_TMP/f.dat" >/dev/null 2>&1
expect_match "the trace has hello's main, called from libc" \
	"^hello-[0-9]+ main __libc_start_call_main\$" "$(text_funcs "$UT_TMP/f.txt")"
expect_eq "extract + report: every function and caller named as in trace" \
	"$(text_funcs "$UT_TMP/f.txt")" "$(report_funcs "$UT_TMP/f.dat")"

# ---- function_graph ------------------------------------------------------------------------
tc start -p function_graph >/dev/null 2>&1
traced "$HELLO" >/dev/null
tc stop >/dev/null 2>&1
cp "$T/trace" "$UT_TMP/g.txt"
tc extract -o "$UT_TMP/g.dat" >/dev/null 2>&1
expect_match "function_graph: the trace has sum_of_squares" "^sum_of_squares\(\)\$" \
	"$(graph_calls <"$UT_TMP/g.txt")"
expect_eq "function_graph: report enters the functions trace shows" \
	"$(graph_calls <"$UT_TMP/g.txt")" \
	"$(trace-cmd report "$UT_TMP/g.dat" 2>/dev/null | grep ' funcgraph_entry: ' | graph_calls)"

# ---- record ----------------------------------------------------------------------------------
tc record -p function -o "$UT_TMP/rec.dat" "$HELLO" >/dev/null 2>&1
expect_eq "record CMD: its run named as the same program's trace" \
	"$(text_funcs "$UT_TMP/f.txt" | cut -d' ' -f2-)" \
	"$(report_funcs "$UT_TMP/rec.dat" | cut -d' ' -f2-)"
expect_eq "record leaves the tracer as it found it" "nop" "$(cat "$T/current_tracer")"

# ---- two programs, different functions at one address -----------------------------------------
# names_ver2 has new_first and new_second where names_ver has old_one and old_two;
# with ASLR off (setarch -R) both programs load at the same base.
a1=$(nm "$PROGS/names_ver" | awk '$3 == "old_one" { print $1 }')
a2=$(nm "$PROGS/names_ver2" | awk '$3 == "new_first" { print $1 }')
if [ -z "$a1" ] || [ "$a1" != "$a2" ]; then
	fail "names_ver's old_one and names_ver2's new_first share an address" "$a1 / $a2"
elif ! setarch -R true 2>/dev/null; then
	skip "two programs at one address" "setarch -R is refused here"
else
	tc start -p function >/dev/null 2>&1
	traced setarch -R "$PROGS/names_ver" >/dev/null
	traced setarch -R "$PROGS/names_ver2" >/dev/null
	tc stop >/dev/null 2>&1
	cp "$T/trace" "$UT_TMP/v.txt"
	tc extract -o "$UT_TMP/v.dat" >/dev/null 2>&1
	expect_eq "two programs at one address: each function named by its own program" \
		"names_ver old_one old_two
names_ver old_two main
names_ver2 new_first new_second
names_ver2 new_second main
names_ver2 old_one old_two
names_ver2 old_two main" \
		"$(text_funcs "$UT_TMP/v.txt" | awk '$2 ~ /^(old|new)_/' | sed 's/-[0-9]* / /' | sort -u)"
	expect_eq "two programs at one address: report names them as trace does" \
		"$(text_funcs "$UT_TMP/v.txt")" "$(report_funcs "$UT_TMP/v.dat")"
fi

# ---- libraries dlclose()d during the trace (the second one loaded where the first was) ----------
tc start -p function >/dev/null 2>&1
traced "$PROGS/names_dl" "$PROGS" >"$UT_TMP/dl.out"
tc stop >/dev/null 2>&1
cp "$T/trace" "$UT_TMP/d.txt"
tc extract -o "$UT_TMP/d.dat" >/dev/null 2>&1
expect_eq "dlclose()d libraries: their functions in the trace" \
	"a_entry call_lib
a_leaf a_entry
b_entry call_lib
b_one b_entry
b_two b_entry" \
	"$(text_funcs "$UT_TMP/d.txt" | cut -d' ' -f2- | grep -E '^(a|b)_')"
expect_eq "dlclose()d libraries: report names them as trace does" \
	"$(text_funcs "$UT_TMP/d.txt")" "$(report_funcs "$UT_TMP/d.dat")"

# ---- a program's event: its fields printed with %ps/%pS are flat addresses too ------------------
traced "$PROGS/events_prog" fire >/dev/null # its events are known once it ran
tc start -e ut_test:ints >/dev/null 2>&1
traced "$PROGS/events_prog" fire >/dev/null
tc stop >/dev/null 2>&1
expect_match "program event: the trace names its %ps field" " ints: .* fn=print_sites at=print_sites\+" \
	"$(cat "$T/trace")"
tc extract -o "$UT_TMP/e.dat" >/dev/null 2>&1
expect_match "program event: report names its %ps and %pS field" \
	" ints: .* fn=print_sites at=print_sites\+0x0 " "$(trace-cmd report "$UT_TMP/e.dat" 2>/dev/null)"

tc reset >/dev/null 2>&1
expect_eq "reset: the tracer back to nop" "nop" "$(cat "$T/current_tracer")"
ut_umount || fail "utracefs exited cleanly"

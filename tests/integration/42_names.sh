#!/bin/sh
# 42_names.sh - every event named as the process had its code mapped when the
# event was written: a library closed with dlclose (and another loaded where it
# was), a program rebuilt in place (same path, same inode, other functions at the
# old addresses; its filters too), libc's frames and a return address one past a
# function's last byte (a call to a noreturn function at its end).
. "$(dirname "$0")/lib.sh"

ut_mount

# fn_lines PID: the "func <-parent" of the events of process PID, in order
fn_lines() { sed -n "s/^ *[^ ]*-$1 .*: \([^ ]* <-[^ ]*\)\$/\1/p" "$T/trace"; }

# ---- dlopen, call, dlclose; then another library at the same address -------------------
echo function > "$T/current_tracer"
same=
for try in 1 2 3; do
	echo > "$T/trace"
	out=$(traced "$PROGS/names_dl" "$PROGS")
	set -- $out # a BASE b BASE
	[ "$2" = "$4" ] && { same=1; break; }
done
pid=$(sed -n 's/^ *names_dl-\([0-9]*\) .* main <-.*/\1/p' "$T/trace" | head -1)
expect_eq "dlclose'd libraries: their functions named as they were mapped" \
	"a_entry <-call_lib
a_leaf <-a_entry
b_entry <-call_lib
b_one <-b_entry
b_two <-b_entry" \
	"$(fn_lines "$pid" | grep -E '^(a_|b_)')"
[ -n "$same" ] || skip "the second library loaded where the first was" "bases $out"
expect_eq "noreturn call at a function's end: the return address names that function" \
	"g_jump <-main
g_deep <-g_jump
g_after <-main" "$(fn_lines "$pid" | grep '^g_')"
# libc has .dynsym only: a static function there is named after the object (as the
# kernel names a module), or by its name when libc's debug symbols are installed
expect_match "main's caller in libc is named" \
	'^main <-(\[libc\.so\.6\+0x[0-9a-f]+\]|__libc_start_call_main)$' "$(fn_lines "$pid")"

echo 1 > "$T/options/func_stack_trace"
echo > "$T/trace"
traced "$PROGS/names_dl" "$PROGS" >/dev/null
echo 0 > "$T/options/func_stack_trace"
frames=$(awk '/a_leaf <-a_entry/ { s = 1; next } s && /^ => / { print $2 } s && !/^ => / && !/stack trace/ { s = 0 }' "$T/trace")
expect_eq "stack traces of a dlclose'd library: its frames named" "a_leaf a_entry" \
	"$(echo "$frames" | head -2 | tr '\n' ' ' | sed 's/ $//')"
expect_eq "stack traces: no frame left as a raw address (libc's included)" "" \
	"$(grep '^ => 0x' "$T/trace")"

echo function_graph > "$T/current_tracer"
echo > "$T/trace"
traced "$PROGS/names_dl" "$PROGS" >/dev/null
expect_eq "function_graph: dlclose'd libraries named" \
	"a_entry() {
a_leaf();
b_entry() {
b_one();
b_two();" "$(sed -n 's/^.*|  *//p' "$T/trace" | grep -E '^(a|b)_')"

# ---- a program rebuilt in place --------------------------------------------------------
V=$UT_TMP/names_prog
cp "$PROGS/names_ver" "$V"
ino=$(stat -c %i "$V")
echo function > "$T/current_tracer"
echo > "$T/trace"
pid1=$(traced "$V" | sed -n 's/^pid //p')
cp "$PROGS/names_ver2" "$V" # written in place: the same inode, another build
[ "$(stat -c %i "$V")" = "$ino" ] || skip "rebuilt in place keeps the inode" "$ino -> $(stat -c %i "$V")"
pid2=$(traced "$V" | sed -n 's/^pid //p')
expect_eq "rebuilt in place: the first build's events keep its names" \
	"main <-X
old_two <-main
old_one <-old_two" "$(fn_lines "$pid1" | sed 's/^main <-.*/main <-X/')"
expect_eq "rebuilt in place: the second build's events have its names" \
	"main <-X
new_second <-main
new_first <-new_second
old_two <-main
old_one <-old_two" "$(fn_lines "$pid2" | sed 's/^main <-.*/main <-X/')"

# a filter set on the first build's functions never selects the second build's
# functions that took their addresses
cp "$PROGS/names_ver" "$V"
mkfifo "$UT_TMP/ver_in"
traced "$V" wait <"$UT_TMP/ver_in" >"$UT_TMP/ver.out" &
exec 7>"$UT_TMP/ver_in"
i=0
while [ $i -lt 200 ] && ! grep -q '^old_two$' "$T/available_filter_functions"; do
	sleep 0.05; i=$((i + 1))
done
echo old_two > "$T/set_ftrace_filter"
echo go >&7
exec 7>&-
wait $!
echo > "$T/trace"
cp "$PROGS/names_ver2" "$V"
pid3=$(traced "$V" | sed -n 's/^pid //p')
expect_eq "rebuilt in place: the old build's filter selects no other function" "" \
	"$(fn_lines "$pid3" | grep -v '^old_two ')"
echo > "$T/set_ftrace_filter"
echo nop > "$T/current_tracer"

ut_umount || fail "utracefs exited cleanly"

# ---- a daemon that reads the maps late --------------------------------------------------
# /proc/PID/maps is read in pieces, and a process that exits meanwhile ends the file
# early.  With UTRACEFS_TEST_MAPS_LATE the reading after the dlopen waits, after its
# first line, until the process has exited: libc's frames of the events that followed
# must stay named (it was mapped all along), and so must those of a library without
# patch sites loaded meanwhile, which no reading showed.
export UTRACEFS_TEST_MAPS_LATE=1
ut_mount
unset UTRACEFS_TEST_MAPS_LATE
echo function > "$T/current_tracer"
echo 1 > "$T/options/func_stack_trace"
echo > "$T/trace"
mkfifo "$UT_TMP/late_in"
traced "$PROGS/names_dl" "$PROGS" wait <"$UT_TMP/late_in" >/dev/null &
late=$!
exec 7>"$UT_TMP/late_in"
i=0
while [ $i -lt 500 ] && ! grep -q "maps of [0-9]* are read late" "$UT_TMP/utracefs.log"; do
	sleep 0.02; i=$((i + 1))
done
echo go >&7
exec 7>&-
wait $late
echo 0 > "$T/options/func_stack_trace"
expect_match "maps read late: the reading waited for the exit" "maps of [0-9]+ are read late" \
	"$(cat "$UT_TMP/utracefs.log")"
expect_match "maps read late: stack traces taken" '^ => a_leaf$' "$(cat "$T/trace")"
expect_eq "maps read late: a library without patch sites named in the stack" \
	"plain_cb plain_call call_plain" \
	"$(awk '/plain_cb <-/ { s = 1; next } s && /^ => / { print $2 } s && !/^ => / && !/stack trace/ { s = 0 }' "$T/trace" | head -3 | tr '\n' ' ' | sed 's/ $//')"
expect_eq "maps read late: no frame left as a raw address (libc's included)" "" \
	"$(grep '^ => 0x' "$T/trace")"
echo nop > "$T/current_tracer"
ut_umount || fail "utracefs exited cleanly (maps read late)"

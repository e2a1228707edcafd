#!/bin/sh
# 84_events.sh - trace events a program defines (include/utrace/event.h): in the
# executable, in a linked library and in a dlopen()ed one (tests/progs/events_prog.c),
# and in C++ (events_cxx.cc).
# Disabled, each call site is a 5-byte NOP and nothing is written; enabled (through
# the test hook UTRACEFS_TEST_EVENTS; 85_event_files.sh uses the events/ files), the
# sites are jumps and every field comes back in `trace`.  Definitions and ids stay
# for the mount's life.  A hostile process's announcements are refused with a
# console line, and nothing else is affected.
. "$(dirname "$0")/lib.sh"

P=$PROGS/events_prog
LOG=$UT_TMP/utracefs.log

# -- disabled: the sites stay NOPs, nothing is written, the events are known ---------------
export UTRACEFS_TEST_EVENTS=none:none
ut_mount
out=$(traced "$P" bytes)
expect_eq "disabled: every site of the executable is a 5-byte NOP, before and after 1000 calls" \
	"before 0f 0f
after 0f 0f" "$out"
expect_eq "disabled: no event in the trace" 0 "$(grep -c ': ints: \|: strs: \|: linked: ' "$T/trace")"
expect_eq "disabled: the definitions were announced (three objects' events, one id each)" 3 \
	"$(grep -c 'trace event ut_[a-z]*:[a-z]* has id' "$LOG")"
ut_umount || fail "unmount"

# -- enabled: jumps, records with every field ----------------------------------------------------
export UTRACEFS_TEST_EVENTS='ut_test:*,ut_lib:*,ut_cxx:greet'
ut_mount
out=$(traced "$P" fire)
pid=$(echo "$out" | sed -n 's/^pid //p')
expect_eq "enabled: every event, the dlopen()ed library's too, reports enabled" "enabled 1 1 1 1" \
	"$(echo "$out" | grep '^enabled')"
expect_eq "enabled: the executable's sites are jumps" "sites e9 e9" "$(echo "$out" | grep '^sites')"
tr=$(cat "$T/trace")
expect_match "executable: integers of every width and sign, a pointer" \
	"events_prog-$pid +\[[0-9]+\] [^ ]+ +[0-9.]+: ints: s8=-5 u8=250 s16=-300 u16=65000 s32=-70000 u32=4000000000 s64=-5000000000 u64=18000000000000000000 ptr=0x1234\$" \
	"$tr"
expect_match "executable: an array, a dynamic string, a dynamic array" \
	"events_prog-$pid .*: strs: tag=tagged name=first vals=\{7,-8,9\} n=3\$" "$tr"
expect_match "linked library: its own event" "events_prog-$pid .*: linked: v=42 who=linked-lib\$" "$tr"
expect_match "dlopen()ed library: its own event" "events_prog-$pid .*: dl: v=77 who=dlopened-lib\$" "$tr"
expect_match "dlclose()d and dlopen()ed again: its event is found anew" \
	"events_prog-$pid .*: dl: v=78 who=dlopened-lib\$" "$tr"
expect_eq "each event once" 5 "$(echo "$tr" | grep -c "events_prog-$pid .*: \(ints\|strs\|linked\|dl\): ")"

# C++: an event in a namespace, fired from a template
out=$(traced "$PROGS/events_cxx")
pid=$(echo "$out" | sed -n 's/^enabled 1 pid //p')
expect_match "C++: an event in a namespace, fired from a template" \
	"events_cxx-$pid .*: greet: who=world n=3\$" "$(cat "$T/trace")"

# the definitions stay, with their ids, for the next process (and after this one exited)
ids=$(grep -c 'has id' "$LOG")
out=$(traced "$P" fire)
pid2=$(echo "$out" | sed -n 's/^pid //p')
expect_eq "a second run: enabled at once, no new id" "enabled 1 1 1 1 $ids" \
	"$(echo "$out" | grep '^enabled') $(grep -c 'has id' "$LOG")"
expect_eq "a second run: its events are written too" 5 \
	"$(grep -c "events_prog-$pid2 .*: \(ints\|strs\|linked\|dl\): " "$T/trace")"

# -- hostile announcements ---------------------------------------------------------------------
before=$(grep -c 'trace event refused' "$LOG")
out=$("$PROGS/hostile" "$T.sock" events 2>&1)
expect_eq "hostile: refused definitions and garbage leave the connection open; oversize ends it" \
	"bad open
garbage open
fine open
oversize closed
end" "$out"
# the connection's packets are handled in order: once the sound one is in, all are
i=0
while [ $i -lt 1000 ] && ! grep -q 'trace event ut_hostile:fine has id' "$LOG"; do
	sleep 0.02; i=$((i + 1))
done
refused=$(($(grep -c 'trace event refused' "$LOG") - before))
expect_eq "hostile: each bad definition refused on the console, a flood cut short" "16 1" \
	"$refused $(grep -c 'further refused trace events not shown' "$LOG")"
expect_eq "hostile: the sound definition after them is entered" 1 \
	"$(grep -c 'trace event ut_hostile:fine has id' "$LOG")"
expect_eq "hostile: nothing unprintable reached the console" 0 "$(grep -c "$(printf '\033')" "$LOG")"
out=$("$PROGS/hostile" "$T.sock" seal 2>&1)
expect_eq "hostile: the events memfd cannot be written either" "writable 0
end" "$out"
out=$(traced "$P" fire)
pid3=$(echo "$out" | sed -n 's/^pid //p')
expect_eq "hostile: another process's events still work" 5 \
	"$(grep -c "events_prog-$pid3 .*: \(ints\|strs\|linked\|dl\): " "$T/trace")"
if kill -0 "$UT_FS_PID" 2>/dev/null; then pass "hostile: utracefs lives"; else
	fail "hostile: utracefs lives" "$(tail -5 "$LOG")"
fi
unset UTRACEFS_TEST_EVENTS
ut_umount || fail "unmount"

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
# utracefs takes the announcements from its socket on its own time: wait for them
# (at most 20 s), then check there are exactly three
announced() { grep -c 'trace event ut_[a-z]*:[a-z]* has id' "$LOG"; }
i=0; while [ "$(announced)" -lt 3 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
expect_eq "disabled: the definitions were announced (three objects' events, one id each)" 3 \
	"$(announced)"
ut_umount || fail "unmount"

# -- enabled: jumps, records with every field ----------------------------------------------------
export UTRACEFS_TEST_EVENTS='ut_test:*,ut_lib:*,ut_cxx:greet'
ut_mount
out=$(traced "$P" fire)
pid=$(echo "$out" | sed -n 's/^pid //p')
expect_eq "enabled: every event, the dlopen()ed library's too, reports enabled" "enabled 1 1 1 1" \
	"$(echo "$out" | grep '^enabled')"
expect_eq "enabled: the executable's sites are jumps" "sites e9 e9" "$(echo "$out" | grep '^sites')"
fn=$(echo "$out" | sed -n 's/^fn //p')
tr=$(cat "$T/trace")
# the ints event's TP_printk uses the kernel's printf: every integer width and sign, a
# pointer hashed (option hash-ptr is on by default), a function by name, flags,
# widths and precision, __print_symbolic, __print_flags, arithmetic and ?:
expect_match "executable: the event's print format rendered as the kernel renders it" \
	"events_prog-$pid +\[[0-9]+\] [^ ]+ +[0-9.]+: ints: s8=-5 u8=250 s16=-300 u16=65000 s32=-70000 u32=4000000000 s64=-5000000000 u64=18000000000000000000 ptr=00000000[0-9a-f]{8} fn=print_sites at=print_sites\+0x0/0x[0-9a-f]+ hex=0xfde8/0000FDE8/372 pad=\[-300  \|  -300\|-005\] kind=MINUS_FIVE mode=HI\|SIXTY_FOUR\|TWO\|0x38 calc=114 big=yes\$" \
	"$tr"
expect_match "executable: a char array, a dynamic string, __print_array and __print_hex" \
	"events_prog-$pid .*: strs: tag=tagged name=first n=3 vals=\{0x7,0xfffffff8,0x9\} bytes=07 00 00 00 f8 ff ff ff 09 00 00 00\$" \
	"$tr"
expect_match "linked library: its own event" "events_prog-$pid .*: linked: v=42 who=linked-lib\$" "$tr"
expect_match "dlopen()ed library: its own event (by its fields: its format has sizeof)" "events_prog-$pid .*: dl: v=77 who=dlopened-lib\$" "$tr"
expect_match "dlclose()d and dlopen()ed again: its event is found anew" \
	"events_prog-$pid .*: dl: v=78 who=dlopened-lib\$" "$tr"
expect_eq "a format not understood: said once on the console, the fields shown instead" 1 \
	"$(grep -c '^utracefs: trace event ut_lib:dl: print format not understood (an unknown identifier or helper): its fields are shown instead$' "$LOG")"
expect_eq "each event once" 5 "$(echo "$tr" | grep -c "events_prog-$pid .*: \(ints\|strs\|linked\|dl\): ")"

expect_match "per-CPU trace files: the same rendered line" \
	"events_prog-$pid .*: ints: s8=-5 .* kind=MINUS_FIVE mode=HI\|SIXTY_FOUR\|TWO\|0x38 calc=114 big=yes\$" \
	"$(cat "$T"/per_cpu/cpu*/trace)"
expect_eq "hash-ptr: the pointer is hashed, not shown" 0 "$(echo "$tr" | grep -c "ptr=$fn")"
echo 0 > "$T/options/hash-ptr"
expect_match "nohash-ptr: %p shows the address, as the kernel's %px" \
	"events_prog-$pid .*: ints: .* ptr=$fn fn=print_sites " "$(cat "$T/trace")"
echo 1 > "$T/options/hash-ptr"

# -- the options raw, hex, bin and fields ---------------------------------------------------
ints_id=$(cat "$T/events/ut_test/ints/id")
echo 1 > "$T/options/fields"
tr=$(cat "$T/trace")
expect_match "fields: each field as the kernel's field printer shows it, numbers in hex and decimal" \
	"events_prog-$pid +\[[0-9]+\] [^ ]+ +[0-9.]+: ints: s8=\(251\) u8=\(250\) s16=0xfed4 \(65236\) u16=0xfde8 \(65000\) s32=0xfffeee90 \(-70000\) u32=0xee6b2800 \(-294967296\) s64=0xfffffffed5fa0e00 \(-5000000000\) u64=0xf9ccd8a1c5080000 \(-446744073709551616\) ptr=print_sites\+0x0/0x[0-9a-f]+ \(-?[0-9]+\)\$" \
	"$tr"
expect_match "fields: strings as text, a __data_loc array as its bytes" \
	"events_prog-$pid .*: strs: tag=tagged name=first vals=07,00,00,00,f8,ff,ff,ff,09,00,00,00 n=0x3 \(3\)\$" \
	"$tr"
echo 0 > "$T/options/fields"
echo 1 > "$T/options/raw"
expect_match "raw: a trace event has no raw printer: pid cpu time and type: ID" \
	"^$pid [0-9]+ [0-9]+ type: $ints_id\$" "$(cat "$T/trace")"
echo 0 > "$T/options/context-info"
expect_match "raw without context-info: type: ID alone" "^type: $ints_id\$" "$(cat "$T/trace")"
echo 1 > "$T/options/context-info"
echo 0 > "$T/options/raw"
echo 1 > "$T/options/hex"
hx=$(cat "$T/trace")
expect_match "hex: pid, cpu and time as hex fields, then type: ID" \
	"^$(printf %08x "$pid") 0000000[0-9a-f] [0-9a-f]{16} type: $ints_id\$" "$hx"
expect_eq "hex: each entry ends with an empty line of its own" "" \
	"$(echo "$hx" | grep -E -A1 "type: $ints_id\$" | sed -n 2p)"
echo 0 > "$T/options/hex"
# bin through trace_pipe (no header): pid, cpu, time as bytes, then type: ID; with
# tracing off, trace_pipe ends once it has handed out what there is
echo 1 > "$T/options/bin"
echo 0 > "$T/tracing_on"
timeout 30 cat "$T/trace_pipe" > "$UT_TMP/bin"
echo 1 > "$T/tracing_on"
echo 0 > "$T/options/bin"
one=$((16 + ${#ints_id} + 7))
expect_eq "bin: the first entry is the ints event: its pid as 4 bytes, then type: ID; the next entry follows" \
	"$pid|type: $ints_id|$pid" \
	"$(od -An -tu4 -N4 "$UT_TMP/bin" | tr -d ' ')|$(dd if="$UT_TMP/bin" bs=1 skip=16 count=$((one - 17)) 2>/dev/null)|$(od -An -tu4 -j$one -N4 "$UT_TMP/bin" | tr -d ' ')"
expect_eq "trace_pipe consumed the events" 0 "$(grep -c "events_prog-$pid " "$T/trace")"
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
echo 0 > "$T/tracing_on"
timeout 30 cat "$T/trace_pipe" > "$UT_TMP/pipe"
echo 1 > "$T/tracing_on"
expect_match "trace_pipe: the same rendered lines" \
	"events_prog-$pid2 .*: ints: s8=-5 .* kind=MINUS_FIVE mode=HI\|SIXTY_FOUR\|TWO\|0x38 calc=114 big=yes\$" \
	"$(cat "$UT_TMP/pipe")"

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

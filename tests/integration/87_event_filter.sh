#!/bin/sh
# 87_event_filter.sh - events/SYSTEM/EVENT/filter: the kernel's filter language on
# the events of tests/progs/events_prog (ut_lib:linked: v = 42..1041, who =
# "linked-lib"; ut_test:strs: tag "tagged", name "first" once then "second"),
# applied by the writing processes: an event a filter refuses is not written and not
# counted.  Bad filters: the kernel's errno, the error in the file and error_log,
# no filter in force.  A system's filter file sets each of its events.  Per instance.
. "$(dirname "$0")/lib.sh"

P=$PROGS/events_prog
ut_mount
traced "$P" load >/dev/null
F=$T/events/ut_lib/linked/filter
S=$T/events/ut_test/strs/filter
expect_eq "no filter: none" none "$(cat "$F")"
echo 'ut_lib:linked ut_test:strs' >"$T/set_event"

# run: the numbers of linked and strs lines in DIR/trace after one run
run() {
	echo >"$T/trace"
	traced "$P" bytes >/dev/null
	echo "$(grep -c ': linked: ' "${1:-$T}/trace") $(grep -c ': strs: ' "${1:-$T}/trace")"
}
written() { sed -n 's/^# entries-in-buffer\/entries-written: [0-9]*\/\([0-9]*\) .*/\1/p' "$T/trace"; }

echo 'v < 52' >"$F"
expect_eq "the filter reads back as written" "v < 52" "$(cat "$F")"
expect_eq "v < 52: ten of the thousand, strs untouched" "10 1000" "$(run)"
expect_eq "refused events are not counted as written" 1010 "$(written)"
echo 'v >= 1040 || v == 42' >"$F"
expect_eq "|| of two" "3 1000" "$(run)"
echo '!(v > 43) && v != 42' >"$F"
expect_eq "! of a group, && with !=" "1 1000" "$(run)"
echo 'v & 1 && v < 50' >"$F"
expect_eq "& and && (odd v below 50)" "4 1000" "$(run)"
echo 'who == "linked-lib"' >"$F"
echo 'name == "first"' >"$S"
expect_eq "strings: a __data_loc string, ==" "1000 1" "$(run)"
echo 'who ~ "*lib" && who != "x"' >"$F"
echo 'name ~ "sec*" && tag == "tagged"' >"$S"
expect_eq "strings: globs, != and a char array" "1000 999" "$(run)"
echo 'comm == "events_prog" && CPU < 4096' >"$F"
echo 0 >"$S"
expect_eq "the pseudo-fields COMM and CPU; 0 clears" "1000 1000" "$(run)"
expect_eq "a cleared filter reads none" none "$(cat "$S")"

# a bad filter: the kernel's errno and texts, and no filter in force
: >"$T/error_log"
out=$( (/bin/echo 'nosuch == 1' >"$F") 2>&1 ); rc=$?
expect_match "bad field: EINVAL" "Invalid argument" "$rc $out"
expect_eq "bad field: the file shows the error under the text" "nosuch == 1
       ^
parse_error: Field not found" "$(cat "$F")"
expect_eq "bad field: error_log, the caret under the place" \
	"event filter parse error: error: Field not found
  Command: nosuch == 1
                  ^" "$(sed 's/^\[ *[0-9.]*\] //' "$T/error_log")"
expect_eq "bad field: no filter in force" "1000 1000" "$(run)"
out=$( (/bin/echo '(v == 1' >"$F") 2>&1 )
expect_match "an unclosed (: ENOENT, as the kernel" "No such file or directory" "$out"
out=$( (/bin/echo 'v == 1 )' >"$F") 2>&1 )
expect_match "a ) too many: EPERM, as the kernel" "Operation not permitted" "$out"
out=$( (/bin/echo 'who == "x' >"$F") 2>&1 )
expect_match "a missing quote: ESRCH, as the kernel" "No such process" "$out"
echo 0 >"$F"

# a system's filter: set on each of its events that can take it, the others show why
# (as the kernel: the write succeeds, the system's file always reads its header)
: >"$T/error_log"
echo 's8 == -5' >"$T/events/ut_test/filter"
expect_eq "system filter: its file reads the kernel's header" "### global filter ###
# Use this to set filters for multiple events.
# Only events with the given fields will be affected.
# If no events are modified, an error message will be displayed here" \
	"$(cat "$T/events/ut_test/filter")"
expect_eq "system filter: an event with the field takes it" "s8 == -5" \
	"$(cat "$T/events/ut_test/ints/filter")"
expect_eq "system filter: one without shows the kernel's error" "s8 == -5
^
parse_error: Couldn't find or set field in one of a subsystem's events" \
	"$(cat "$S")"
expect_eq "system filter: error_log names it" \
	"event filter parse error: error: Couldn't find or set field in one of a subsystem's events
  Command: s8 == -5
           ^" "$(sed 's/^\[ *[0-9.]*\] //' "$T/error_log")"
expect_eq "system filter: no filter in force where it failed" "1000 1000" "$(run)"
echo 0 >"$T/events/ut_test/filter"
expect_eq "system filter 0: every event of the system cleared" "none none" \
	"$(cat "$T/events/ut_test/ints/filter") $(cat "$S")"

# per instance: the same run, each instance its own filter
mkdir "$T/instances/a"
echo 'ut_lib:linked' >"$T/instances/a/set_event"
echo 'v < 45' >"$T/instances/a/events/ut_lib/linked/filter"
echo 'v < 52' >"$F"
echo >"$T/instances/a/trace"
expect_eq "per instance: the top's filter and the instance's, in one run" "10 1000|3" \
	"$(run)|$(grep -c ': linked: ' "$T/instances/a/trace")"
expect_eq "per instance: each file reads its own" "v < 52|v < 45" \
	"$(cat "$F")|$(cat "$T/instances/a/events/ut_lib/linked/filter")"
rmdir "$T/instances/a"
mkdir "$T/instances/a"
expect_eq "a new instance in the slot starts with no filter" none \
	"$(cat "$T/instances/a/events/ut_lib/linked/filter")"
rmdir "$T/instances/a"

echo 0 >"$F"
echo >"$T/set_event"
ut_umount || fail "utracefs exit status"

#!/bin/sh
# 85_event_files.sh - the events/ tree of control files for the events programs
# define (the programs of 84_events.sh: tests/progs/events_prog.c and its libraries),
# through the mount with echo and cat only: available_events, set_event and its
# forms, enable at every level with its 0/1/X readings, format, id, filter and
# trigger, per instance, and an instance's removal.  Where this machine has the
# kernel's tracefs, the same writes get the same errnos on a kernel instance.
. "$(dirname "$0")/lib.sh"

P=$PROGS/events_prog

ut_mount
expect_eq "no event known yet: available_events is empty, events/enable reads 0" "0" \
	"$(cat "$T/available_events"; cat "$T/events/enable")"
traced "$P" load >/dev/null
# ut_test:strs and ints come from the executable, ut_lib:linked from a linked
# library, ut_lib:dl from a dlopen()ed one; ids follow the order they were announced.
# The runtime's own (sched, signal, task: 86_lifecycle.sh) come with any program.
# SDT probes of the system's libraries (95_sdt.sh) come with whatever the build loads
# (a sanitizer's runtime brings libstdc++'s libstdcxx:*): only ours are counted.
ours() { grep -E '^(enable|ftrace|header_|sched|signal|task|ut_)'; }
av=$(sort "$T/available_events" | ours)
expect_eq "available_events lists every event of every object" "sched:sched_process_exec
sched:sched_process_exit
sched:sched_process_fork
signal:signal_deliver
signal:signal_generate
task:task_newtask
task:task_rename
ut_lib:dl
ut_lib:linked
ut_test:ints
ut_test:strs" "$av"
expect_eq "events/ has the systems beside its own files" \
	"enable ftrace header_event header_page sched signal task ut_lib ut_test" \
	"$(ls "$T/events" | ours | tr '\n' ' ' | sed 's/ $//')"
expect_eq "a system's directory: enable, filter and its events" "dl enable filter linked" \
	"$(ls "$T/events/ut_lib" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "an event's directory: the kernel's five files" "enable filter format id trigger" \
	"$(ls "$T/events/ut_test/ints" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "available_events is the top level's only (as in the kernel)" "no" \
	"$(mkdir "$T/instances/a" && [ -e "$T/instances/a/available_events" ] && echo yes || echo no)"
rmdir "$T/instances/a"

# -- format and id ------------------------------------------------------------------------------
id=$(cat "$T/events/ut_test/strs/id")
expect_match "id: a number from 1024" '^10[0-9][0-9]$' "$id"
tab=$(printf '\t')
expect_eq "format: the kernel's layout; char arrays and __data_loc words as it prints them" \
"name: strs
ID: $id
format:
${tab}field:unsigned short common_type;${tab}offset:0;${tab}size:2;${tab}signed:0;
${tab}field:unsigned char common_flags;${tab}offset:2;${tab}size:1;${tab}signed:0;
${tab}field:unsigned char common_preempt_count;${tab}offset:3;${tab}size:1;${tab}signed:0;
${tab}field:int common_pid;${tab}offset:4;${tab}size:4;${tab}signed:1;

${tab}field:char tag[8];${tab}offset:8;${tab}size:8;${tab}signed:1;
${tab}field:__data_loc char[] name;${tab}offset:16;${tab}size:4;${tab}signed:1;
${tab}field:__data_loc int[] vals;${tab}offset:20;${tab}size:4;${tab}signed:1;
${tab}field:int n;${tab}offset:24;${tab}size:4;${tab}signed:1;

print fmt: \"tag=%s name=%s n=%d vals=%s bytes=%s\", REC->tag, __get_str(name), REC->n, __print_array(__get_dynamic_array(vals), __get_dynamic_array_len(vals) / 4, 4), __print_hex(__get_dynamic_array(vals), __get_dynamic_array_len(vals))" \
	"$(cat "$T/events/ut_test/strs/format")"
expect_match "format: integer fields with their sizes and signs" \
	"^${tab}field:uint64_t u64;${tab}offset:[0-9]+;${tab}size:8;${tab}signed:0;\$" \
	"$(cat "$T/events/ut_test/ints/format")"
expect_match "the ftrace system's formats are still there" '^name: print$' \
	"$(cat "$T/events/ftrace/print/format")"

# -- set_event forms, enable readings -------------------------------------------------------------
rd() { # the enable files: all, ut_test, ut_test:ints, ut_test:strs, ut_lib
	echo "$(cat "$1/events/enable") $(cat "$1/events/ut_test/enable")" \
		"$(cat "$1/events/ut_test/ints/enable") $(cat "$1/events/ut_test/strs/enable")" \
		"$(cat "$1/events/ut_lib/enable")"
}
expect_eq "nothing enabled: every enable file reads 0, set_event is empty" "0 0 0 0 0|" \
	"$(rd "$T")|$(cat "$T/set_event")"
echo 'ut_test:ints' > "$T/set_event"
expect_eq "set_event SYSTEM:EVENT: that event; its system and events/enable read X" \
	"X X 1 0 0|ut_test:ints" "$(rd "$T")|$(cat "$T/set_event")"
echo 'ut_lib:*' >> "$T/set_event"
expect_eq "set_event >> SYSTEM:* adds the whole system; reading lists each event" \
	"X X 1 0 1|ut_test:ints ut_lib:linked ut_lib:dl" "$(rd "$T")|$(cat "$T/set_event" | tr '\n' ' ' | sed 's/ $//')"
echo 'ut_test:strs' > "$T/set_event"
expect_eq "set_event > replaces what was enabled" "X X 0 1 0|ut_test:strs" \
	"$(rd "$T")|$(cat "$T/set_event")"
echo '!ut_test:strs' >> "$T/set_event"
expect_eq "set_event !SYSTEM:EVENT disables" "0 0 0 0 0|" "$(rd "$T")|$(cat "$T/set_event")"
echo 'ut_test' > "$T/set_event"
expect_eq "set_event WORD names a system (or an event)" "X 1 1 1 0" "$(rd "$T")"
echo 'linked' >> "$T/set_event"
expect_eq "set_event WORD names an event" "ut_test:strs ut_test:ints ut_lib:linked" \
	"$(cat "$T/set_event" | tr '\n' ' ' | sed 's/ $//')"
echo '*:*' > "$T/set_event"
expect_eq "set_event *:* enables everything: every enable reads 1" "1 1 1 1 1" "$(rd "$T")"
echo '!*:*' >> "$T/set_event"
expect_eq "set_event !*:* disables everything" "0 0 0 0 0" "$(rd "$T")"
echo 'ut_lib:dl ut_test:ints' > "$T/set_event"
expect_eq "set_event takes several tokens in one write" "ut_test:ints ut_lib:dl" \
	"$(cat "$T/set_event" | tr '\n' ' ' | sed 's/ $//')"
expect_write_err "set_event: an unknown event is EINVAL" "Invalid argument" 'ut_lib:nosuch' "$T/set_event"
echo 'ut_test:strs' > "$T/set_event"
for bad in 'nosuch:ints' 'nosuch' '*' '!ut_lib:nosuch' 'ut_test:ints ut_test:nosuch'; do
	out=$( (/bin/echo "$bad" >> "$T/set_event") 2>&1 ); rc=$?
	expect_eq "set_event >> '$bad': EINVAL, nothing changed" "1 Invalid argument|ut_test:strs" \
		"$rc $(echo "$out" | sed -n 's/.*: //p')|$(cat "$T/set_event")"
done
echo > "$T/set_event"
expect_eq "set_event > with nothing disables everything" "0 0 0 0 0|" "$(rd "$T")|$(cat "$T/set_event")"

echo 1 > "$T/events/ut_test/ints/enable"
expect_eq "EVENT/enable 1: the event, X above it" "X X 1 0 0" "$(rd "$T")"
echo 1 > "$T/events/ut_test/enable"
expect_eq "SYSTEM/enable 1: the system's events" "X 1 1 1 0" "$(rd "$T")"
echo 0 > "$T/events/ut_test/ints/enable"
expect_eq "EVENT/enable 0" "X X 0 1 0" "$(rd "$T")"
echo 1 > "$T/events/enable"
expect_eq "events/enable 1: everything" "1 1 1 1 1" "$(rd "$T")"
for f in events/enable events/ut_test/enable events/ut_test/ints/enable; do
	for v in 2 x ' 1' 1x -1; do
		expect_write_err "$f: '$v' is EINVAL" "Invalid argument" "$v" "$T/$f"
	done
done
expect_eq "bad enable writes changed nothing" "1 1 1 1 1" "$(rd "$T")"
echo 0 > "$T/events/ut_lib/enable"
echo 01 > "$T/events/ut_lib/enable"
expect_eq "enable takes the kernel's numbers (01 is 1)" "1 1 1 1 1" "$(rd "$T")"
echo 0 > "$T/events/enable"
expect_eq "events/enable 0: nothing" "0 0 0 0 0|" "$(rd "$T")|$(cat "$T/set_event")"

# -- filter and trigger: there, answering as the kernel does for what it cannot take ---------------
f=$T/events/ut_test/ints
expect_eq "filter reads none, trigger the (empty) list of triggers" "none
# Available triggers:
#" "$(cat "$f/filter" "$f/trigger")"
echo 0 > "$f/filter"
expect_eq "filter: 0 clears (nothing to clear)" "none" "$(cat "$f/filter")"
echo > "$T/error_log"
expect_write_err "filter: a bad filter is EINVAL (87_event_filter.sh: the filters)" "Invalid argument" \
	'nosuch == 1' "$f/filter"
expect_match "filter: ... with an error_log line" "event filter parse error: error: Field not found" \
	"$(cat "$T/error_log")"
echo 0 > "$f/filter"
expect_eq "SYSTEM/filter: reads the kernel's header" "### global filter ###" \
	"$(head -1 "$T/events/ut_test/filter")"
expect_write_err "trigger: a trigger is EINVAL (triggers come later)" "Invalid argument" traceon "$f/trigger"

# -- enabled events are written where they are enabled ----------------------------------------------
echo 'ut_test:* ut_lib:*' > "$T/set_event"
out=$(traced "$P" fire)
pid=$(echo "$out" | sed -n 's/^pid //p')
expect_eq "enabled through set_event: the events are written" 5 \
	"$(grep -c "events_prog-$pid .*: \(ints\|strs\|linked\|dl\): " "$T/trace")"
echo > "$T/set_event"
echo > "$T/trace"

# an instance has its own enable state
mkdir "$T/instances/a"
echo 'ut_test:*' > "$T/instances/a/set_event"
echo 1 > "$T/instances/a/events/ut_lib/enable"
expect_eq "instance: its own enable state (all: X, the runtime's are off); the top's is untouched" \
	"X 1 1 1 1|0 0 0 0 0" \
	"$(rd "$T/instances/a")|$(rd "$T")"
out=$(traced "$P" fire)
pid=$(echo "$out" | sed -n 's/^pid //p')
expect_eq "instance: the events go to its buffer, not the top's" "5 0" \
	"$(grep -c "events_prog-$pid .*: \(ints\|strs\|linked\|dl\): " "$T/instances/a/trace") $(grep -c ': \(ints\|strs\|linked\|dl\): ' "$T/trace")"
echo 0 > "$T/instances/a/events/ut_test/strs/enable"
expect_eq "instance: its 0/1/X readings" "X X 1 0 1" "$(rd "$T/instances/a")"

# rmdir clears its slot: a new instance in the same slot starts with nothing enabled,
# and processes no longer write there
rmdir "$T/instances/a"
mkdir "$T/instances/b"
expect_eq "a new instance after rmdir: nothing enabled" "0 0 0 0 0|" \
	"$(rd "$T/instances/b")|$(cat "$T/instances/b/set_event")"
echo '*:*' > "$T/set_event"
out=$(traced "$P" fire)
pid=$(echo "$out" | sed -n 's/^pid //p')
expect_eq "after rmdir: events go to the top only, none to the new instance" "5 0" \
	"$(grep -c "events_prog-$pid .*: \(ints\|strs\|linked\|dl\): " "$T/trace") $(grep -c ': \(ints\|strs\|linked\|dl\): ' "$T/instances/b/trace")"
rmdir "$T/instances/b"

# the events stay listed after their processes exited
expect_eq "events stay listed after every process exited" "$av" "$(sort "$T/available_events" | ours)"
ut_umount || fail "unmount"

# -- the kernel's answers to the same writes, on a kernel instance of our own ---------------------
if kt_available && [ -d "$KT/events/sched/sched_switch" ]; then
	KI=$KT/instances/ut85_$$
	if mkdir "$KI" 2>/dev/null; then
		for w in 'nosuch:sched_switch' 'sched:nosuch' 'nosuch' '*'; do
			expect_write_err "kernel: set_event '$w' is EINVAL too" "Invalid argument" "$w" "$KI/set_event"
		done
		for v in 2 x ' 1' 1x; do
			expect_write_err "kernel: events/enable '$v' is EINVAL too" "Invalid argument" "$v" "$KI/events/enable"
			expect_write_err "kernel: EVENT/enable '$v' is EINVAL too" "Invalid argument" "$v" \
				"$KI/events/sched/sched_switch/enable"
		done
		echo 'sched:sched_switch' > "$KI/set_event"
		expect_eq "kernel: the same X/1 readings" "X X 1" \
			"$(cat "$KI/events/enable") $(cat "$KI/events/sched/enable") $(cat "$KI/events/sched/sched_switch/enable")"
		echo 'sched:*' > "$KI/set_event"
		expect_eq "kernel: set_event after SYSTEM:* lists each event" \
			"$(ls "$KI/events/sched" | grep -cv '^enable$\|^filter$')" "$(grep -c '^sched:' "$KI/set_event")"
		expect_eq "kernel: filter reads none, an instance has no available_events" "none no" \
			"$(cat "$KI/events/sched/sched_switch/filter") $([ -e "$KI/available_events" ] && echo yes || echo no)"
		echo 0 > "$KI/events/enable"
		rmdir "$KI"
	else
		skip "kernel: set_event and enable errnos" "no kernel instance"
	fi
else
	skip "kernel: set_event and enable errnos" "no kernel tracefs with events"
fi

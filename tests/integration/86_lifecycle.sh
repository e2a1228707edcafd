#!/bin/sh
# 86_lifecycle.sh - the runtime's own events (runtime/lifecycle.c): the kernel's
# sched:sched_process_{exec,fork,exit}, task:task_{newtask,rename} and
# signal:signal_{generate,deliver}, emitted for a program that renames itself,
# signals itself, forks a child that renames itself and exits, and starts a thread
# that renames itself and returns (tests/progs/life_prog.c).  Known once a traced
# program has run, with the kernel's formats; enabled through set_event like any
# event; the runtime's own thread is not shown.
. "$(dirname "$0")/lib.sh"

P=$PROGS/life_prog
EVENTS="sched:sched_process_exec sched:sched_process_exit sched:sched_process_fork
signal:signal_deliver signal:signal_generate task:task_newtask task:task_rename"
listed() { grep -E '^(sched|task|signal):' "$T/available_events" | sort | tr '\n' ' '; }
want=$(printf '%s\n' $EVENTS | sort | tr '\n' ' ')

ut_mount
out=$(traced "$P")
expect_eq "a traced program runs as without the runtime" 0 $?
i=0
while [ "$(listed)" != "$want" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
expect_eq "the seven events are listed once a traced program ran" "$want" "$(listed)"
expect_eq "disabled: none of them is written" 0 \
	"$(grep -cE ': (sched_process|task_|signal_)' "$T/trace")"

# the formats are the kernel's (char arrays say signed:1 here: char is signed in user space)
if kt_available && [ -e "$KT/events/sched/sched_process_fork/format" ]; then
	for e in $EVENTS; do
		d=$(echo "$e" | tr : /)
		[ -e "$KT/events/$d/format" ] || continue
		expect_eq "format of $e: the kernel's" "$(sed '/^ID:/d' "$KT/events/$d/format")" \
			"$(sed -e '/^ID:/d' -e 's/^\(.field:char [^;]*;.*signed:\)1;$/\10;/' \
				-e 's/^\(.field:__data_loc char\[\] [^;]*;.*signed:\)1;$/\10;/' \
				"$T/events/$d/format")"
	done
else
	skip "formats against the kernel's" "no kernel tracefs"
fi

echo 'sched:* task:* signal:*' >"$T/set_event"
echo >"$T/trace"
out=$(traced "$P")
expect_eq "enabled: the program still runs as it should" 0 $?
pid=$(echo "$out" | sed -n 1p) child=$(echo "$out" | sed -n 2p) thr=$(echo "$out" | sed -n 3p)
# the events of one thread, in the order written: "EVENT: BODY"
of() { grep -v '^#' "$T/trace" | grep -E -- "-$1 +\[" | sed 's/^.*: \([a-z_]*: .*\)$/\1/'; }
expect_eq "the main thread: exec, rename, three signals sent and handled, fork, exit" \
	"sched_process_exec: filename=$P pid=$pid old_pid=$pid
task_rename: pid=$pid oldcomm=life_prog newcomm=lifemain oom_score_adj=0
signal_generate: sig=10 errno=0 code=-6 comm=lifemain pid=$pid grp=0 res=0
signal_deliver: sig=10 errno=0 code=-6 sa_handler=H sa_flags=4000000
signal_generate: sig=12 errno=0 code=0 comm=lifemain pid=$pid grp=1 res=0
signal_deliver: sig=12 errno=0 code=0 sa_handler=H sa_flags=4000000
signal_generate: sig=10 errno=0 code=-6 comm=lifemain pid=$pid grp=0 res=0
signal_deliver: sig=10 errno=0 code=-6 sa_handler=H sa_flags=4000000
task_newtask: pid=$child comm=lifemain clone_flags=1200011 oom_score_adj=0
sched_process_fork: comm=lifemain pid=$pid child_comm=lifemain child_pid=$child
sched_process_exit: comm=lifemain pid=$pid prio=120 group_dead=true" \
	"$(of "$pid" | sed 's/sa_handler=[0-9a-f]* /sa_handler=H /')"
expect_eq "the child: rename, exit" \
	"task_rename: pid=$child oldcomm=lifemain newcomm=lifechild oom_score_adj=0
sched_process_exit: comm=lifechild pid=$child prio=120 group_dead=true" "$(of "$child")"
expect_eq "the thread: created (said by itself), rename, exit" \
	"task_newtask: pid=$thr comm=lifemain clone_flags=3d0f00 oom_score_adj=0
sched_process_fork: comm=lifemain pid=$pid child_comm=lifemain child_pid=$thr
task_rename: pid=$thr oldcomm=lifemain newcomm=lifethr oom_score_adj=0
sched_process_exit: comm=lifethr pid=$thr prio=120 group_dead=false" "$(of "$thr")"
expect_eq "nothing else: the runtime's own thread is not shown" 17 \
	"$(grep -cE ': (sched_process|task_|signal_)' "$T/trace")"

echo '!signal:*' >>"$T/set_event"
echo >"$T/trace"
traced "$P" >/dev/null
expect_eq "signal:* off: the others only" "0 3" \
	"$(grep -c ': signal_' "$T/trace") $(grep -c ': sched_process_exit' "$T/trace")"
echo >"$T/set_event"
ut_umount || fail "utracefs exit status"

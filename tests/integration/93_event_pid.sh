#!/bin/sh
# 93_event_pid.sh - set_event_pid, set_event_notrace_pid and options/event-fork
# through a real mount: a program's event (pp:hit) is recorded only from the
# threads the lists take, by thread id as in the kernel (a process id names its
# main thread), in each instance by its own lists; event-fork adds the threads and
# children a listed thread creates and takes out the ones that end; trace_marker's
# lines are not events and are never filtered (tests/progs/pid_prog.c: who=1 its
# main thread, 2 its worker, 3 a new thread, 4 a fork child).
. "$(dirname "$0")/lib.sh"

ut_mount
I=$T/instances
start_driven pid_prog ev 7
OUT=$UT_TMP/ev.out
PID=$(driven_pid ev) WRK=$(driven_worker ev)
[ -n "$PID" ] && [ -n "$WRK" ] || fail "pid_prog started" "$(cat "$OUT")"
# until its section is there (its sites named) and its event is known
wait_listed pp_main
i=0
while [ $i -lt 1000 ] && ! [ -e "$T/events/pp/hit/enable" ]; do sleep 0.02; i=$((i + 1)); done
mkdir "$I/b"
echo 1 >"$T/events/pp/hit/enable"
echo 1 >"$I/b/events/pp/hit/enable"

# the who=N of the pp:hit lines of buffer $1 (the top's trace or an instance's), each once
hits() { grep -o 'hit: who=[0-9]*' "$1" | sed 's/hit: who=//' | sort -u | tr '\n' ' '; }
clear() { echo >"$T/trace"; echo >"$I/b/trace"; }

clear
ask "$OUT" 7 run >/dev/null
expect_eq "no lists: every thread" "1 2 " "$(hits "$T/trace")"

echo "$PID" >"$T/set_event_pid"
clear
ask "$OUT" 7 run >/dev/null
expect_eq "set_event_pid = the process id: its main thread alone" "1 " "$(hits "$T/trace")"
expect_eq "an instance without lists: every thread" "1 2 " "$(hits "$I/b/trace")"

echo "$WRK" >"$T/set_event_pid"
clear
ask "$OUT" 7 run >/dev/null
expect_eq "set_event_pid = the worker: the worker alone" "2 " "$(hits "$T/trace")"

echo "$WRK" >>"$T/set_event_pid"
echo "$PID" >>"$T/set_event_pid"
echo "$WRK" >"$T/set_event_notrace_pid"
clear
ask "$OUT" 7 run >/dev/null
expect_eq "listed in both: notrace wins" "1 " "$(hits "$T/trace")"

echo >"$T/set_event_pid"
clear
ask "$OUT" 7 run >/dev/null
expect_eq "set_event_notrace_pid alone: every thread but the worker" "1 " "$(hits "$T/trace")"
echo >"$T/set_event_notrace_pid"

# per instance: the top and b each by their own lists
echo "$PID" >"$T/set_event_pid"
echo "$WRK" >"$I/b/set_event_pid"
clear
echo marker-top >"$T/trace_marker"
echo marker-b >"$I/b/trace_marker"
ask "$OUT" 7 run >/dev/null
expect_eq "per instance: the top records the main thread" "1 " "$(hits "$T/trace")"
expect_eq "per instance: b records the worker" "2 " "$(hits "$I/b/trace")"
expect_match "trace_marker is not filtered (top)" 'tracing_mark_write: marker-top' \
	"$(cat "$T/trace")"
expect_match "trace_marker is not filtered (b)" 'tracing_mark_write: marker-b' \
	"$(cat "$I/b/trace")"
echo >"$I/b/set_event_pid"

# event-fork off: a new thread and a fork child of a listed thread are not listed
clear
thr=$(ask "$OUT" 7 thread | sed -n 's/^thread //p')
child=$(ask "$OUT" 7 fork | sed -n 's/^child //p')
expect_eq "event-fork off: neither the new thread nor the child records" "" \
	"$(hits "$T/trace")"
expect_eq "event-fork off: the list is unchanged" "$PID" "$(cat "$T/set_event_pid")"
ask "$OUT" 7 reap >/dev/null

# event-fork on: both are added, from their first event on
echo 1 >"$T/options/event-fork"
clear
thr=$(ask "$OUT" 7 thread | sed -n 's/^thread //p')
child=$(ask "$OUT" 7 fork | sed -n 's/^child //p')
expect_eq "event-fork: the new thread and the child record" "3 4 " "$(hits "$T/trace")"
expect_eq "event-fork: b (event-fork off there) takes every thread" "3 4 " \
	"$(hits "$I/b/trace")"
clear
ask "$OUT" 7 threads >/dev/null
expect_eq "event-fork: eight threads started at once all record" 8 \
	"$(grep -c 'hit: who=3' "$T/trace")"
# the threads have ended (joined), the child lives until reaped
both=$(printf '%s\n' "$PID" "$child" | sort -n | tr '\n' ' ')
i=0
while [ $i -lt 500 ] && [ "$(tr '\n' ' ' <"$T/set_event_pid")" != "$both" ]; do
	sleep 0.02; i=$((i + 1))
done
expect_eq "event-fork: the child is listed, the ended thread is not" "$both" \
	"$(tr '\n' ' ' <"$T/set_event_pid")"
ask "$OUT" 7 reap >/dev/null
i=0
while [ $i -lt 500 ] && [ "$(cat "$T/set_event_pid")" != "$PID" ]; do
	sleep 0.02; i=$((i + 1))
done
expect_eq "event-fork: the child that exited is taken out" "$PID" "$(cat "$T/set_event_pid")"

# event-fork with set_event_notrace_pid: the children of a notrace thread are notrace
echo >"$T/set_event_pid"
echo "$PID" >"$T/set_event_notrace_pid"
clear
child=$(ask "$OUT" 7 fork | sed -n 's/^child //p')
ask "$OUT" 7 run >/dev/null
expect_eq "event-fork, notrace: the child of a notrace thread is notrace" "2 " \
	"$(hits "$T/trace")"
expect_eq "event-fork, notrace: the child joins set_event_notrace_pid" \
	"$(printf '%s\n' "$PID" "$child" | sort -n | tr '\n' ' ')" \
	"$(tr '\n' ' ' <"$T/set_event_notrace_pid")"
ask "$OUT" 7 reap >/dev/null
echo 0 >"$T/options/event-fork"
echo >"$T/set_event_notrace_pid"

clear
ask "$OUT" 7 run >/dev/null
expect_eq "lists emptied: every thread again" "1 2 " "$(hits "$T/trace")"

# a program started under the lists waits for its answer: its first event is judged
echo sched:sched_process_exec >"$T/set_event"
echo "$PID" >"$T/set_event_pid"
clear
# shellcheck disable=SC2016
out=$(sh -c 'echo $$ >>"$1/set_event_pid"; LD_PRELOAD=$2 exec "$3"' sh "$T" "$LIBUTRACE" \
	"$PROGS/life_prog")
lp=$(echo "$out" | sed -n 1p)
expect_match "a program exec'd by a listed pid: its exec event is recorded" \
	"sched_process_exec: filename=[^ ]*life_prog pid=$lp " "$(cat "$T/trace")"
echo "$PID" >"$T/set_event_pid"
clear
traced "$PROGS/life_prog" >/dev/null
expect_eq "a program not listed: its exec event is not" 0 \
	"$(grep -c 'sched_process_exec' "$T/trace")"
echo >"$T/set_event"
echo >"$T/set_event_pid"

exec 7>&-
echo 0 >"$T/events/pp/hit/enable"
rmdir "$I/b"
ut_umount || fail "utracefs exit status"

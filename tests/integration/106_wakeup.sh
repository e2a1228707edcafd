#!/bin/sh
# 106_wakeup.sh - the wakeup tracers wakeup, wakeup_rt and wakeup_dl through a real
# mount, with tests/progs/wake_prog: a waker thread wakes a wakee through a
# condition variable ("c MS": the wakee returns at least MS ms after the signal,
# because the waker keeps the mutex that long), a semaphore ("s"), a contended
# mutex or rwlock handed over ("m", "w"), a futex word ("x"), a wakee running a
# signal handler while it waits ("h MS"), or a SCHED_FIFO or SCHED_DEADLINE wakee
# ("f MS", "d MS", root only).  Each command joins both threads, and the wakee reports before it ends, so
# the maximum is there once the command's "done" is.  Times are lower bounds only.
. "$(dirname "$0")/lib.sh"

ut_mount
O=$UT_TMP/wk.out
maxlat() { cat "$T/tracing_max_latency"; }
# run CMD MS: one wake; sets waker and wakee to the two threads' ids
run() {
	a=$(ask "$O" 3 "$1" "$2")
	waker=$(printf '%s\n' "$a" | sed -n 's/^waker //p')
	wakee=$(printf '%s\n' "$a" | sed -n 's/^wakee //p')
}
# at_least NAME MIN: tracing_max_latency is MIN us or more
at_least() {
	v=$(maxlat)
	if [ "$v" -ge "$2" ]; then pass "$1 ($v us)"; else fail "$1" "tracing_max_latency $v < $2"; fi
}
hdr() { sed -n "$1" "$T/trace"; }
body() { sed 1,18d "$T/trace"; } # after the header (no started/ended lines)
# the entries without their context: "waker:prio:R   + [cpu] wakee:prio:R comm" etc.
entries() { body | grep -v '^ =>' | sed 's/^.*us.: //'; }
# expect_entries NAME COMM WAKE_FUNC WAIT_FUNC: the six entries of a wake of COMM by
# the waker, in the kernel's order (the CPU numbers left out)
expect_entries() {
	expect_eq "$1" "$(printf ' %7d:120:R   + [CPU] %7d:120:R %s' "$waker" "$wakee" "$2")
<stack trace>
$3
$4
$(printf ' %7d:120:R ==> [CPU] %7d:120:R %s' "$waker" "$wakee" "$2")
<stack trace>" "$(entries | sed 's/\[[0-9]*\]/[CPU]/')"
}

expect_eq "available_tracers: the kernel's order" \
	"timerlat osnoise hwlat function_graph wakeup_dl wakeup_rt wakeup preemptirqsoff preemptoff irqsoff function nop" \
	"$(cat "$T/available_tracers")"
expect_eq "events/ftrace/wakeup/format: the kernel's ctx_switch_entry" "name: wakeup
ID: 3
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:unsigned int prev_pid;	offset:8;	size:4;	signed:0;
	field:unsigned int next_pid;	offset:12;	size:4;	signed:0;
	field:unsigned int next_cpu;	offset:16;	size:4;	signed:0;
	field:unsigned char prev_prio;	offset:20;	size:1;	signed:0;
	field:unsigned char prev_state;	offset:21;	size:1;	signed:0;
	field:unsigned char next_prio;	offset:22;	size:1;	signed:0;
	field:unsigned char next_state;	offset:23;	size:1;	signed:0;

print fmt: \"%u:%u:%u  ==+ %u:%u:%u [%03u]\", REC->prev_pid, REC->prev_prio, REC->prev_state, REC->next_pid, REC->next_prio, REC->next_state, REC->next_cpu" \
	"$(cat "$T/events/ftrace/wakeup/format")"
expect_match "events/ftrace/context_switch/format: ID 2, \"==>\"" '==> %u:%u:%u \[%03u\]' \
	"$(sed -n '2p;$p' "$T/events/ftrace/context_switch/format" | tr '\n' ' ')"

# ---- wakeup: a condition variable signalled 5 ms before the mutex is released ----
echo 77 >"$T/tracing_max_latency"
echo wakeup >"$T/current_tracer"
expect_eq "wakeup: tracing_max_latency is 0 at init" "0" "$(maxlat)"
expect_eq "wakeup: latency-format set" "1" "$(cat "$T/options/latency-format")"
expect_eq "wakeup: no maximum yet: the tracer line alone" "# tracer: wakeup
#" "$(cat "$T/trace")"
start_driven wake_prog wk 3
run c 5
at_least "wakeup: condvar: tracing_max_latency >= 5000 us" 5000
lat=$(maxlat)
expect_eq "wakeup: header line 1" "# wakeup latency trace v1.1.5 on $(uname -r)" "$(hdr 3p)"
n=$(body | grep -c '^[ a-z_]*-[0-9]')
expect_match "wakeup: latency, #entries/total, CPU, #P" \
	"^# latency: $lat us, #$n/$n, CPU#[0-9]+ \\| \\(M:[^ ]+ VP:0, KP:0, SP:0 HP:0 #P:$(nproc)\\)\$" \
	"$(hdr 5p)"
expect_eq "wakeup: the task is the wakee; no started/ended lines" \
	"#    -----------------
#    | task: wk_cond-$wakee (uid:$(id -u) nice:0 policy:0 rt_prio:0)
#    -----------------
#
#                    _------=> CPU#            " "$(hdr 6,10p)"
expect_match "wakeup: the wake entry first, in the waker's context" \
	"^wk_waker-$waker +[0-9]+\\.\\.\\.\\.\\. +[0-9]+us.: +$waker:120:R   \\+ \\[[0-9]{3}\\] +$wakee:120:R wk_cond\$" \
	"$(body | head -1)"
expect_entries "wakeup: the entries in the kernel's order" wk_cond \
	"pthread_cond_signal <-signal_it" "pthread_cond_wait <-wait_it"
expect_match "wakeup: the switch entry in the wakee's context" \
	"^ wk_cond-$wakee +[0-9]+\\.\\.\\.\\.\\. +[0-9]+us.: +$waker:120:R ==> " "$(body)"
expect_eq "wakeup: the waker's stack from the function that signalled" " => signal_it
 => waker" "$(body | sed -n '/<stack trace>$/,$p' | sed -n 2,3p)"
expect_eq "wakeup: the wakee's stack last" " => wait_it
 => wakee" "$(body | sed -n '/pthread_cond_wait/,$p' | sed -n '/<stack trace>$/,$p' | sed -n 2,3p)"
t=$(body | sed -n 's/^ wk_cond-[0-9]* *[0-9]*\.\.\.\.\. *\([0-9]*\)us.: pthread_cond_wait.*/\1/p')
if [ "${t:-0}" -ge 5000 ]; then pass "wakeup: the wakee returned 5 ms or more after the wake ($t us)"
else fail "wakeup: the wakee returned 5 ms or more after the wake" "at ${t:-?} us"; fi
expect_eq "wakeup: nothing outside the wake (outside_work, other threads)" "" \
	"$(body | grep -e outside_work -e 'wk_mutex\|wk_sem')"
expect_write_err "snapshot: EBUSY under wakeup" "Device or resource busy" 1 "$T/snapshot"

# echo 0 > tracing_max_latency re-arms: the next wake is the maximum, however short
echo 0 >"$T/tracing_max_latency"
run s 0
expect_match "re-armed: a semaphore wake is the new maximum, its task the wakee" "^#    \\| task: wk_sem-$wakee " "$(hdr 7p)"
expect_entries "semaphore: wake, sem_post, sem_wait, switch" wk_sem "sem_post <-post_it" \
	"sem_wait <-sem_wait_it"

# a contended mutex handed over: from the unlock to the lock's return
echo 0 >"$T/tracing_max_latency"
run m 2
expect_match "mutex hand-off: the task is the wakee" "^#    \\| task: wk_mutex-$wakee " "$(hdr 7p)"
expect_eq "mutex hand-off: unlock to lock" "pthread_mutex_unlock <-unlock_it
pthread_mutex_lock <-lock_it" "$(entries | grep ' <-')"

# an rwlock held for writing, released to a reader
echo 0 >"$T/tracing_max_latency"
run w 2
expect_match "rwlock: the task is the reader" "^#    \\| task: wk_rw-$wakee " "$(hdr 7p)"
expect_eq "rwlock: unlock to rdlock" "pthread_rwlock_unlock <-unlock_rw
pthread_rwlock_rdlock <-rdlock_it" "$(entries | grep ' <-')"

# the futex system call made through syscall(): FUTEX_WAKE to FUTEX_WAIT's return
echo 0 >"$T/tracing_max_latency"
run x 2
expect_match "futex: the task is the wakee" "^#    \\| task: wk_futex-$wakee " "$(hdr 7p)"
expect_entries "futex: wake, syscall, syscall, switch" wk_futex "syscall <-futex_wake_it" \
	"syscall <-futex_wait_it"

# function-trace: what the wakee ran between the wake and its return (a handler)
echo 0 >"$T/tracing_max_latency"
run h 2
expect_match "function-trace: the task is the wakee" "^#    \\| task: wk_sig-$wakee " "$(hdr 7p)"
expect_match "function-trace: the wakee's handler's function, in its context" \
	"^  wk_sig-$wakee +[0-9]+\\.\\.h\\.\\. +[0-9]+us.: handler_work <-on_usr2\$" "$(body)"
expect_eq "function-trace: ... between the wake and the return" "pthread_cond_signal <-signal_it
handler_work <-on_usr2
pthread_cond_wait <-wait_it" "$(entries | grep -e _it\$ -e handler_work)"

# tracing_thresh: every wake at least that long replaces the trace
echo 0 >"$T/tracing_max_latency"
run c 4
echo 1000 >"$T/tracing_thresh"
run c 2
at_least "thresh: a 2 ms wake above it is the maximum" 2000
v=$(maxlat)
if [ "$v" -lt 4000 ] || [ "$(hdr 7p | sed -n 's/.*wk_cond-\([0-9]*\) .*/\1/p')" = "$wakee" ]; then
	pass "thresh: ... and replaced the longer one"
else fail "thresh: ... and replaced the longer one" "$(hdr 7p), $v us"; fi
prev=$wakee
echo 100000000 >"$T/tracing_thresh"
run s 0
expect_match "thresh: a wake below it (100 s) is not taken" "^#    \\| task: wk_cond-$prev " \
	"$(hdr 7p)"
echo 0 >"$T/tracing_thresh"

# expect_rt_wake NAME CMD MS REFUSED WHY COMM POLICY RT_PRIO PRIO: run CMD MS, whose wakee
# has a real-time policy; it is measured, named in the task line with POLICY and RT_PRIO
# and in the switch entry with the kernel's PRIO (skipped with WHY when the program
# says REFUSED: the policy was not granted)
expect_rt_wake() {
	run "$2" "$3"
	if printf '%s\n' "$a" | grep -q "^$4\$"; then skip "$1" "$5"; return 0; fi
	at_least "$1: measured" "${3}000"
	expect_match "$1: its task line" \
		"^#    \\| task: $6-$wakee \\(uid:[0-9]+ nice:0 policy:$7 rt_prio:$8\\)\$" "$(hdr 7p)"
	expect_match "$1: its prio in the switch entry" \
		"^ +$waker:120:R ==> \\[[0-9]{3}\\] +$wakee:$9:R $6\$" "$(entries)"
}

# ---- wakeup_rt: SCHED_OTHER wakees are not measured ----
echo wakeup_rt >"$T/current_tracer"
run c 3
expect_eq "wakeup_rt: a SCHED_OTHER wakee is not measured" "0" "$(maxlat)"
expect_eq "wakeup_rt: ... and its waker writes nothing" "# tracer: wakeup_rt
#" "$(cat "$T/trace")"
expect_rt_wake "wakeup_rt: a SCHED_FIFO 5 wakee" f 3 nofifo \
	"SCHED_FIFO refused: needs root or CAP_SYS_NICE" wk_fifo 1 5 " 94"

# ---- wakeup_dl: only SCHED_DEADLINE wakees ----
echo wakeup_dl >"$T/current_tracer"
run c 2
run f 2
expect_eq "wakeup_dl: SCHED_OTHER and SCHED_FIFO wakees are not measured" "0" "$(maxlat)"
# (prio -1: 255 in the entry's byte)
expect_rt_wake "wakeup_dl: a SCHED_DEADLINE wakee" d 2 nodl \
	"SCHED_DEADLINE refused: needs root and room" wk_dl 6 0 255

# ---- function-trace off: the sites stay NOPs, the entries are the same ----
echo wakeup >"$T/current_tracer"
echo 0 >"$T/options/function-trace"
echo 0 >"$T/tracing_max_latency"
run c 2
at_least "function-trace off: still measured" 2000
expect_eq "function-trace off: the same six entries" "6" "$(entries | wc -l)"

# ---- another tracer current: the wrappers do nothing ----
echo irqsoff >"$T/current_tracer"
run c 3
run s 0
expect_eq "irqsoff current: no wake is measured" "0" "$(maxlat)"
expect_eq "irqsoff current: no wake entry" "" "$(grep -e '  + \[' -e '==> \[' "$T/trace")"
echo function >"$T/current_tracer"
run c 1
expect_eq "function current: no wake or switch entry" "" \
	"$(grep -e '  + \[' -e '==> \[' "$T/trace")"
echo 1 >"$T/options/function-trace"

# ---- back to nop: everything as before ----
echo wakeup >"$T/current_tracer"
echo nop >"$T/current_tracer"
expect_eq "nop: latency-format put back" "0" "$(cat "$T/options/latency-format")"
expect_match "nop: the max buffer is freed" "^# \\* Snapshot is freed \\*\$" "$(cat "$T/snapshot")"
expect_match "nop: trace has the usual header" \
	"^#           TASK-PID     CPU#  \\|\\|\\|\\|\\|  TIMESTAMP  FUNCTION\$" "$(cat "$T/trace")"
echo 0 >"$T/tracing_max_latency"
run c 2
expect_eq "nop: no wake is measured" "0" "$(maxlat)"
expect_eq "nop: no entry written" "" "$(grep -e '  + \[' -e '==> \[' "$T/trace")"

exec 3>&-
ut_umount

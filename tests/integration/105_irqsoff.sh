#!/bin/sh
# 105_irqsoff.sh - the latency tracers irqsoff, preemptoff and preemptirqsoff
# through a real mount, with tests/progs/lat_prog: a thread that blocks every
# signal for at least MS ms between hold_irqs() and release_irqs() ("i MS"), one
# that holds a mutex between take_lock() and drop_lock() ("l MS"), one that nests
# a mutex and a spinlock ("n MS"), one whose SIGUSR1 handler runs MS ms ("h MS").  Each command runs in a new thread; the thread
# reports its section to utracefs and waits for it before it ends, so the maximum
# is there once the command's "done" is.  Times are lower bounds only.
. "$(dirname "$0")/lib.sh"

ut_mount
O=$UT_TMP/lp.out
maxlat() { cat "$T/tracing_max_latency"; }
# run CMD MS: one section in a new thread; prints the thread's id
run() { ask "$O" 3 "$1" "$2" | sed -n 's/^worker //p'; }
# at_least NAME MIN: tracing_max_latency is MIN us or more
at_least() {
	v=$(maxlat)
	if [ "$v" -ge "$2" ]; then pass "$1 ($v us)"; else fail "$1" "tracing_max_latency $v < $2"; fi
}
hdr() { sed -n "$1" "$T/trace"; }
sites() { ask "$O" 3 s | grep -v '^pid ' | tr '\n' ' '; }
# expect_section NAME COMM TID START END: the header's task and critical section lines
expect_section() {
	expect_eq "$1" "#    | task: $2-$3 (uid:$(id -u) nice:0 policy:0 rt_prio:0)
#    -----------------
#  => started at: $4
#  => ended at:   $5" "$(hdr 7,10p)"
}

expect_eq "available_tracers: the kernel's order" \
	"timerlat osnoise hwlat function_graph wakeup_dl wakeup_rt wakeup preemptirqsoff preemptoff irqsoff function nop" \
	"$(cat "$T/available_tracers")"

# ---- irqsoff: signals blocked 5 ms in hold_irqs .. release_irqs ----
echo 77 >"$T/tracing_max_latency"
echo irqsoff >"$T/current_tracer"
expect_eq "irqsoff: tracing_max_latency is 0 at init" "0" "$(maxlat)"
expect_eq "irqsoff: latency-format set" "1" "$(cat "$T/options/latency-format")"
expect_eq "irqsoff: no maximum yet: the tracer line alone" "# tracer: irqsoff
#" "$(cat "$T/trace")"
start_driven lat_prog lp 3
expect_eq "function-trace on: the sites call the tracer" "inside_work e8 outside_work e8 " \
	"$(sites)"
tid=$(run i 5)
at_least "irqsoff: tracing_max_latency >= 5000 us" 5000
lat=$(maxlat)
expect_eq "irqsoff: header line 1" "# irqsoff latency trace v1.1.5 on $(uname -r)" "$(hdr 3p)"
expect_eq "irqsoff: header line 2" \
	"# --------------------------------------------------------------------" "$(hdr 4p)"
n=$(grep -c '^ *lat_irq-' "$T/trace")
expect_match "irqsoff: latency, #entries/total, CPU, #P" \
	"^# latency: $lat us, #$n/$n, CPU#[0-9]+ \\| \\(M:[^ ]+ VP:0, KP:0, SP:0 HP:0 #P:$(nproc)\\)\$" \
	"$(hdr 5p)"
expect_eq "irqsoff: the task is the thread" \
	"#    -----------------
#    | task: lat_irq-$tid (uid:$(id -u) nice:0 policy:0 rt_prio:0)
#    -----------------
#  => started at: hold_irqs
#  => ended at:   release_irqs
#
#" "$(hdr 6,12p)"
expect_eq "irqsoff: the kernel's column legend" "#                    _------=> CPU#            
#                   / _-----=> irqs-off/BH-disabled
#                  | / _----=> need-resched    
#                  || / _---=> hardirq/softirq 
#                  ||| / _--=> preempt-depth   
#                  |||| / _-=> migrate-disable 
#                  ||||| /     delay           
#  cmd     pid     |||||| time  |   caller     
#     \\   /        ||||||  \\    |    /       " "$(hdr 13,21p)"
body=$(sed 1,21d "$T/trace")
expect_match "irqsoff: the start entry, irqs off, at 0 us or a little after" \
	"^ lat_irq-$tid *[0-9]+d\\.\\.\\.\\. +[0-9]+us.: pthread_sigmask <-hold_irqs\$" \
	"$(printf '%s\n' "$body" | head -1)"
expect_match "irqsoff: function-trace: functions inside the section" \
	"^ lat_irq-$tid *[0-9]+d\\.\\.\\.\\. +[0-9]+us.: inside_work <-worker\$" "$body"
expect_eq "irqsoff: nothing outside the section" "" \
	"$(printf '%s\n' "$body" | grep -e outside_work -e take_lock)"
expect_match "irqsoff: the end entry" \
	"^ lat_irq-$tid *[0-9]+\\.\\.\\.\\.\\. +[0-9]+us.: pthread_sigmask <-release_irqs\$" "$body"
expect_eq "irqsoff: the stack at the end, from the function that ended it" \
	" => release_irqs
 => worker" "$(printf '%s\n' "$body" | sed -n '/<stack trace>$/,$p' | sed -n 2,3p)"
expect_match "irqsoff: the stack entry is the last line" "<stack trace>\$" \
	"$(printf '%s\n' "$body" | grep -v '^ =>' | tail -1)"
expect_write_err "snapshot: EBUSY under a latency tracer" "Device or resource busy" 1 \
	"$T/snapshot"
expect_write_err "snapshot: a bad number is still EINVAL" "Invalid argument" abc "$T/snapshot"

# > trace empties what trace shows: the max buffer; the maximum stays
: >"$T/trace"
expect_eq "> trace: the max buffer emptied" "# tracer: irqsoff
#" "$(cat "$T/trace")"
expect_eq "> trace: tracing_max_latency stays" "$lat" "$(maxlat)"

# echo 0 > tracing_max_latency: the next section is the maximum, however short
echo 0 >"$T/tracing_max_latency"
expect_eq "tracing_max_latency: 0 written" "0" "$(maxlat)"
tid2=$(run i 1)
at_least "re-armed: a 1 ms section is the new maximum" 1000
expect_match "re-armed: the trace is the new thread's" "^#    \\| task: lat_irq-$tid2 " \
	"$(hdr 7p)"

# a signal handler runs as a hard irq does: a section of its own
echo 0 >"$T/tracing_max_latency"
tid=$(run h 3)
at_least "irqsoff: a handler's run is a section" 3000
expect_section "irqsoff: the handler's section" lat_sig "$tid" on_usr1 on_usr1
body=$(sed 1,21d "$T/trace")
expect_match "irqsoff: the handler's entries carry the h flag" \
	"^ lat_sig-$tid *[0-9]+\\.\\.h\\.\\. +[0-9]+us.: inside_work <-on_usr1\$" "$body"
expect_match "irqsoff: its stack goes on into what it interrupted" "^ => worker\$" "$body"

# ---- function-trace off: sites stay NOPs, the section's edges alone ----
echo 0 >"$T/options/function-trace"
expect_eq "function-trace off: the sites are NOPs" "inside_work 0f outside_work 0f " "$(sites)"
echo 0 >"$T/tracing_max_latency"
run i 2 >/dev/null
at_least "function-trace off: still measured" 2000
expect_eq "function-trace off: start, end, stack" "pthread_sigmask <-hold_irqs
pthread_sigmask <-release_irqs
<stack trace>" "$(sed 1,21d "$T/trace" | grep -v '^ =>' | sed 's/^.*us.: //')"
echo 1 >"$T/options/function-trace"

# ---- preemptoff: a mutex held 3 ms ----
echo preemptoff >"$T/current_tracer"
expect_eq "preemptoff: the maximum starts over" "0" "$(maxlat)"
run i 5 >/dev/null
expect_eq "preemptoff: blocked signals are no section" "0" "$(maxlat)"
tid=$(run l 3)
at_least "preemptoff: tracing_max_latency >= 3000 us" 3000
expect_section "preemptoff: task, started and ended at" lat_lock "$tid" take_lock drop_lock
body=$(sed 1,21d "$T/trace")
expect_match "preemptoff: the lock's entry" \
	"^lat_lock-$tid *[0-9]+\\.\\.\\.\\.\\. +[0-9]+us.: pthread_mutex_lock <-take_lock\$" \
	"$(printf '%s\n' "$body" | head -1)"
expect_match "preemptoff: inside_work recorded" ": inside_work <-worker\$" "$body"
# nested locks: one section from the first lock to the last unlock
echo 0 >"$T/tracing_max_latency"
tid=$(run n 4)
at_least "preemptoff: nested locks, one section" 4000
expect_eq "preemptoff: nested: from the mutex to the spinlock's unlock" \
	"#  => started at: take_lock
#  => ended at:   drop_outer" "$(hdr 9,10p)"

# ---- preemptirqsoff: either ----
echo preemptirqsoff >"$T/current_tracer"
tid=$(run i 5)
at_least "preemptirqsoff: signals blocked" 5000
expect_match "preemptirqsoff: ... in lat_irq" "^#    \\| task: lat_irq-$tid " "$(hdr 7p)"
echo 0 >"$T/tracing_max_latency"
tid=$(run l 3)
at_least "preemptirqsoff: a lock held" 3000
expect_section "preemptirqsoff: ... from take_lock to drop_lock" lat_lock "$tid" take_lock drop_lock

# ---- tracing_thresh: every section above it replaces the trace ----
echo 1000 >"$T/tracing_thresh"
echo irqsoff >"$T/current_tracer"
run i 4 >/dev/null
at_least "thresh: a 4 ms section" 4000
tid=$(run i 2)
v=$(maxlat)
if [ "$v" -ge 2000 ]; then pass "thresh: the next one above it is the maximum ($v us)"; else
	fail "thresh: the next one above it is the maximum" "tracing_max_latency $v"; fi
expect_match "thresh: ... and its trace" "^#    \\| task: lat_irq-$tid " "$(hdr 7p)"
echo 0 >"$T/tracing_thresh"

# ---- instances: not there ----
mkdir "$T/instances/lat"
expect_write_err "an instance's irqsoff: EBUSY" "Device or resource busy" irqsoff \
	"$T/instances/lat/current_tracer"
expect_eq "the instance keeps nop" "nop" "$(cat "$T/instances/lat/current_tracer")"
rmdir "$T/instances/lat"

# ---- back to nop: everything as before ----
echo nop >"$T/current_tracer"
expect_eq "nop: latency-format put back" "0" "$(cat "$T/options/latency-format")"
expect_eq "nop: the sites are NOPs again" "inside_work 0f outside_work 0f " "$(sites)"
expect_match "nop: the max buffer is freed" "^# \\* Snapshot is freed \\*\$" \
	"$(cat "$T/snapshot")"
expect_match "nop: trace has the usual header" "^#           TASK-PID     CPU#  \\|\\|\\|\\|\\|  TIMESTAMP  FUNCTION\$" \
	"$(cat "$T/trace")"
echo 1 >"$T/snapshot" && pass "nop: snapshot works again" || fail "nop: snapshot works again"
echo 0 >"$T/snapshot"
echo 0 >"$T/tracing_max_latency"
run i 2 >/dev/null
expect_eq "nop: no section is measured" "0" "$(maxlat)"

exec 3>&-
ut_umount || fail "utracefs exited cleanly"

#!/bin/sh
# 108_osnoise.sh - the osnoise and timerlat tracers: osnoise/ with the kernel's
# defaults, rules and errnos, per-CPU threads only while one of them is current,
# one of the two at a time, their headers and lines in the kernel's format with
# sane fields, stop_tracing_us turning tracing off.  The machine is shared: only
# formats and bounds that hold whatever the load are asserted; waits are bounded.
. "$(dirname "$0")/lib.sh"
ut_mount
O=$T/osnoise
NCPU=$(nproc)

threads() { grep -l "^$1" /proc/"$UT_FS_PID"/task/*/comm 2>/dev/null | wc -l; }
# wait_lines N: until trace holds N sample lines (at most 30 s)
wait_lines() {
	i=0
	while [ "$(grep -vc '^#' "$T/trace")" -lt "$1" ] && [ $i -lt 600 ]; do
		sleep 0.05; i=$((i + 1))
	done
}
PREFIX='^ +<\.\.\.>-[0-9]+ +\[[0-9]{3}\] \.\.\.\.\. +[0-9]+\.[0-9]{6}: '

# -- the files ----------------------------------------------------------------------------
expect_eq "osnoise: defaults" "1000000 1000000 0 0 1000 0" \
	"$(cat "$O/period_us") $(cat "$O/runtime_us") $(cat "$O/stop_tracing_us") \
$(cat "$O/stop_tracing_total_us") $(cat "$O/timerlat_period_us") $(cat "$O/print_stack")"
expect_eq "osnoise: cpus: every CPU" "0-$((NCPU - 1))" "$(cat "$O/cpus")"
expect_eq "osnoise: options default" \
	"DEFAULTS OSNOISE_WORKLOAD NO_PANIC_ON_STOP NO_OSNOISE_PREEMPT_DISABLE NO_OSNOISE_IRQ_DISABLE NO_TIMERLAT_ALIGN " \
	"$(cat "$O/options")"
expect_write_err "osnoise: runtime over period" "Invalid argument" 1000001 "$O/runtime_us"
echo 200000 > "$O/period_us" 2>/dev/null
expect_eq "osnoise: period under runtime refused" 1000000 "$(cat "$O/period_us")"
expect_write_err "osnoise: timerlat_period_us under 100" "Invalid argument" 99 "$O/timerlat_period_us"
expect_write_err "osnoise: timerlat_period_us over 1 s" "Invalid argument" 1000001 \
	"$O/timerlat_period_us"
expect_write_err "osnoise: cpus backwards range" "Invalid argument" 1-0 "$O/cpus"
expect_write_err "osnoise: cpus past the last" "Numerical result out of range" "$NCPU" "$O/cpus"
expect_write_err "osnoise: unknown option" "Invalid argument" FAST "$O/options"
expect_write_err "osnoise: NO_DEFAULTS" "Invalid argument" NO_DEFAULTS "$O/options"
echo NO_OSNOISE_WORKLOAD > "$O/options"
expect_match "osnoise: option cleared" "^DEFAULTS|^NO_DEFAULTS NO_OSNOISE_WORKLOAD " \
	"$(cat "$O/options")"
expect_eq "osnoise: not the defaults" "NO_DEFAULTS" "$(cut -d' ' -f1 "$O/options")"
echo DEFAULTS > "$O/options"
expect_eq "osnoise: DEFAULTS puts them back" DEFAULTS "$(cut -d' ' -f1 "$O/options")"
echo 100000 > "$O/runtime_us"
echo 200000 > "$O/period_us"
echo 0 > "$O/cpus"
expect_eq "osnoise: settings" "200000 100000 0" \
	"$(cat "$O/period_us") $(cat "$O/runtime_us") $(cat "$O/cpus")"
for e in osnoise timerlat; do
	if kt_available && [ -e "$KT/events/ftrace/$e/format" ]; then
		expect_eq "$e: event format as the kernel's" \
			"$(cat "$KT/events/ftrace/$e/format")" "$(cat "$T/events/ftrace/$e/format")"
	else
		skip "$e: event format as the kernel's" "no kernel tracefs"
	fi
done
kt_restore

# -- osnoise -------------------------------------------------------------------------------
expect_eq "osnoise: no thread while nop" 0 "$(threads osnoise/)"
echo osnoise > "$T/current_tracer"
wait_lines 2
expect_eq "osnoise: one thread, on the CPU of osnoise/cpus" "osnoise/0" \
	"$(cat $(grep -l '^osnoise/' /proc/"$UT_FS_PID"/task/*/comm))"
tr=$(cat "$T/trace")
expect_eq "osnoise: header" "# tracer: osnoise
#
#                                _-----=> irqs-off
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable                         MAX
#                              |||| /     delay                                   SINGLE      Interference counters:
#                              |||||               RUNTIME      NOISE  % OF CPU  NOISE    +-----------------------------+
#           TASK-PID      CPU# |||||   TIMESTAMP    IN US       IN US  AVAILABLE  IN US     HW    NMI    IRQ   SIRQ THREAD
#              | |         |   |||||      |           |             |    |            |      |      |      |      |      |" \
	"$(printf '%s\n' "$tr" | sed -n '1,11p')"
body=$(printf '%s\n' "$tr" | grep -v '^#')
bad=$(printf '%s\n' "$body" |
	grep -Ev "$PREFIX[0-9]+ +[0-9]+ +[0-9]{1,3}\.[0-9]{5} +[0-9]+( +[0-9]+){5}\$" | head -3)
expect_eq "osnoise: lines in the kernel's format" "" "$bad"
# runtime >= runtime_us (the loop ends past it), noise <= runtime, single noise <= noise,
# and the percentage is what runtime and noise say
insane=$(printf '%s\n' "$body" | sed -E "s/$PREFIX//" | awk '{
	split($3, p, "."); pct = (($1 - $2) * 10000000 / $1)
	if ($1 < 100000 || $2 > $1 || $4 > $2 || p[1] != int(pct / 100000)) print }' | head -3)
expect_eq "osnoise: fields sane" "" "$insane"
expect_match "osnoise: on CPU 0 only" '\[000\]' "$body"
expect_eq "osnoise: nothing on other CPUs" "" "$(printf '%s\n' "$body" | grep -v '\[000\]')"
mkdir "$T/instances/i1"
expect_write_err "timerlat: refused while osnoise runs" "Device or resource busy" timerlat \
	"$T/instances/i1/current_tracer"
echo osnoise > "$T/instances/i1/current_tracer"
: > "$T/instances/i1/trace"
i=0
while [ "$(grep -vc '^#' "$T/instances/i1/trace")" -lt 1 ] && [ $i -lt 600 ]; do
	sleep 0.05; i=$((i + 1))
done
expect_match "osnoise: a second instance gets the samples too" "$PREFIX[0-9]+ " \
	"$(grep -v '^#' "$T/instances/i1/trace")"
echo nop > "$T/instances/i1/current_tracer"
echo nop > "$T/current_tracer"
expect_eq "osnoise: no thread after nop" 0 "$(threads osnoise/)"

# -- timerlat ------------------------------------------------------------------------------
echo 0-$((NCPU - 1)) > "$O/cpus"
echo 10000 > "$O/timerlat_period_us"
echo timerlat > "$T/current_tracer"
wait_lines $((2 * NCPU))
expect_eq "timerlat: one thread per CPU" "$NCPU" "$(threads timerlat/)"
tr=$(cat "$T/trace")
expect_eq "timerlat: header" "#                              |||||            ACTIVATION
#           TASK-PID      CPU# |||||   TIMESTAMP   ID            CONTEXT                 LATENCY
#              | |         |   |||||      |         |                  |                       |" \
	"$(printf '%s\n' "$tr" | sed -n '9,11p')"
body=$(printf '%s\n' "$tr" | grep -v '^#')
bad=$(printf '%s\n' "$body" |
	grep -Ev "$PREFIX#[0-9]+ +context +thread timer_latency +[0-9]+ ns\$" | head -3)
expect_eq "timerlat: lines in the kernel's format" "" "$bad"
expect_match "timerlat: numbered from #1 on each CPU" ': #1 +context' "$body"
echo nop > "$T/current_tracer"
expect_eq "timerlat: no thread after nop" 0 "$(threads timerlat/)"

# stop_tracing_us: a wake-up a microsecond late (every one is) turns tracing off
echo 1 > "$O/stop_tracing_us"
echo timerlat > "$T/current_tracer"
i=0
while [ "$(cat "$T/tracing_on")" = 1 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
expect_eq "timerlat: stop_tracing_us turns tracing off" 0 "$(cat "$T/tracing_on")"
expect_match "timerlat: the stop is said" "stop tracing hit on cpu [0-9]+\$" "$(cat "$T/trace")"
echo nop > "$T/current_tracer"
echo 1 > "$T/tracing_on"
if ut_umount; then pass "osnoise: unmount"; else fail "osnoise: unmount"; fi

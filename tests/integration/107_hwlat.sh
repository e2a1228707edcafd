#!/bin/sh
# 107_hwlat.sh - the hwlat tracer: hwlat_detector/ with the kernel's defaults,
# rules and errnos, tracing_thresh at 10 us while it is current and put back
# after, its threads only while it is current, one instance at a time, sample
# lines in the kernel's format, and a sampler stopped with SIGSTOP for a second
# while it samples found as a latency of at least that second.  The machine is
# shared: only formats and lower bounds are asserted, and every wait is bounded.
. "$(dirname "$0")/lib.sh"
ut_mount
H=$T/hwlat_detector

# threads NAME: how many of utracefs's threads are called NAME
threads() { grep -lx "$1" /proc/"$UT_FS_PID"/task/*/comm 2>/dev/null | wc -l; }
# wait_threads NAME N: until there are N of them (at most 10 s)
wait_threads() {
	i=0
	while [ "$(threads "$1")" -ne "$2" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}
LINE='^ +<\.\.\.>-[0-9]+ +\[[0-9]{3}\] d\.\.\.\. +[0-9]+\.[0-9]{6}: #[0-9]+ +inner/outer\(us\): +[0-9]+/[0-9]+ +ts:[0-9]+\.[0-9]{9} count:[0-9]+( nmi-total:[0-9]+ nmi-count:[0-9]+)?$'

# -- the files ----------------------------------------------------------------------------
expect_eq "hwlat: width default" 500000 "$(cat "$H/width")"
expect_eq "hwlat: window default" 1000000 "$(cat "$H/window")"
expect_eq "hwlat: mode default" "none [round-robin] per-cpu " "$(cat "$H/mode")"
expect_write_err "hwlat: width over window" "Invalid argument" 1000001 "$H/width"
expect_write_err "hwlat: window under width" "Invalid argument" 499999 "$H/window"
expect_write_err "hwlat: width not a number" "Invalid argument" 12ab "$H/width"
expect_write_err "hwlat: width too large" "Numerical result out of range" \
	99999999999999999999999 "$H/width"
expect_write_err "hwlat: unknown mode" "Invalid argument" fast "$H/mode"
echo 1000000 > "$H/width"
expect_eq "hwlat: width may equal window" 1000000 "$(cat "$H/width")"
echo per-cpu > "$H/mode"
expect_eq "hwlat: mode set" "none round-robin [per-cpu] " "$(cat "$H/mode")"
echo round-robin > "$H/mode"
echo 300000 > "$H/width"
echo 400000 > "$H/window"
expect_eq "hwlat: width and window set" "300000 400000" "$(cat "$H/width") $(cat "$H/window")"
if kt_available && [ -e "$KT/events/ftrace/hwlat/format" ]; then
	expect_eq "hwlat: event format as the kernel's" "$(cat "$KT/events/ftrace/hwlat/format")" \
		"$(cat "$T/events/ftrace/hwlat/format")"
	kt_restore
else
	skip "hwlat: event format as the kernel's" "no kernel tracefs"
fi

# -- current: the thread, tracing_thresh -----------------------------------------------------
expect_eq "hwlat: no thread while nop" 0 "$(threads hwlatd)"
echo hwlat > "$T/current_tracer"
expect_eq "hwlat: tracing_thresh 10 while current" 10 "$(cat "$T/tracing_thresh")"
wait_threads hwlatd 1
expect_eq "hwlat: one hwlatd thread (round-robin)" 1 "$(threads hwlatd)"
tid=$(grep -lx hwlatd /proc/"$UT_FS_PID"/task/*/comm | head -1 | cut -d/ -f5)

# Stop the sampler for a second while it spins (state R), then let it go on; a
# stop that lands in its sleep between windows shows nothing: try again.
found=
try=0
while [ -z "$found" ] && [ $try -lt 10 ]; do
	try=$((try + 1))
	i=0
	while [ "$(sed 's/.*) \(.\).*/\1/' /proc/"$tid"/stat)" != R ] && [ $i -lt 400 ]; do
		sleep 0.01; i=$((i + 1))
	done
	kill -STOP "$tid"
	sleep 1
	kill -CONT "$tid"
	i=0
	while [ -z "$found" ] && [ $i -lt 60 ]; do
		found=$(grep -E 'inner/outer' "$T/trace" |
			sed -E 's/.*inner\/outer\(us\): +([0-9]+)\/([0-9]+) .*/\1 \2/' |
			awk '$1 >= 1000000 || $2 >= 1000000 { print; exit }')
		[ -n "$found" ] || sleep 0.05
		i=$((i + 1))
	done
done
if [ -n "$found" ]; then pass "hwlat: a 1 s SIGSTOP is a sample of at least 1 s"; else
	fail "hwlat: a 1 s SIGSTOP is a sample of at least 1 s" "$(cat "$T/trace")"
fi
# the kernel keeps hwlat's maximum in us in a field read as ns: us / 1000 here
max=$(cat "$T/tracing_max_latency")
if [ "$max" -ge 1000 ]; then pass "hwlat: tracing_max_latency raised"; else
	fail "hwlat: tracing_max_latency raised" "$max"
fi
body=$(grep -v '^#' "$T/trace")
bad=$(printf '%s\n' "$body" | grep -Ev "$LINE" | head -5)
expect_eq "hwlat: every line in the kernel's format" "" "$bad"
head=$(sed -n 1p "$T/trace")
expect_eq "hwlat: header" "# tracer: hwlat" "$head"
expect_match "hwlat: numbered from #1" ': #1 +inner' "$body"

# tracing_on 0 stops the thread, 1 starts it again
echo 0 > "$T/tracing_on"
expect_eq "hwlat: tracing off stops hwlatd" 0 "$(threads hwlatd)"
echo 1 > "$T/tracing_on"
wait_threads hwlatd 1
expect_eq "hwlat: tracing on starts hwlatd" 1 "$(threads hwlatd)"

# round-robin: a thread someone else moved (taskset) makes the mode none, as in the kernel
if [ "$(nproc)" -ge 2 ]; then
	tid=$(grep -lx hwlatd /proc/"$UT_FS_PID"/task/*/comm | head -1 | cut -d/ -f5)
	taskset -p -c "0-$(($(nproc) - 1))" "$tid" > /dev/null
	i=0
	while ! grep -q '^\[none\]' "$H/mode" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	expect_eq "hwlat: a moved round-robin thread switches to mode none" \
		"[none] round-robin per-cpu " "$(cat "$H/mode")"
	echo round-robin > "$H/mode"
else
	skip "hwlat: a moved round-robin thread switches to mode none" "one CPU"
fi

# -- one instance at a time ------------------------------------------------------------------
mkdir "$T/instances/i1"
expect_write_err "hwlat: a second instance is refused" "Device or resource busy" hwlat \
	"$T/instances/i1/current_tracer"
expect_eq "hwlat: the refused instance stays nop" nop "$(cat "$T/instances/i1/current_tracer")"

echo nop > "$T/current_tracer"
expect_eq "hwlat: tracing_thresh put back" 0 "$(cat "$T/tracing_thresh")"
expect_eq "hwlat: no thread after nop" 0 "$(threads hwlatd)"

echo per-cpu > "$H/mode"
echo hwlat > "$T/instances/i1/current_tracer"
cpus=$(nproc)
wait_threads "hwlatd/0" 1
expect_eq "hwlat: per-cpu mode in an instance: one thread per CPU" "$cpus" \
	"$(grep -l '^hwlatd/' /proc/"$UT_FS_PID"/task/*/comm | wc -l)"
rmdir "$T/instances/i1"
expect_eq "hwlat: rmdir of its instance stops the threads" 0 \
	"$(grep -l '^hwlatd' /proc/"$UT_FS_PID"/task/*/comm 2>/dev/null | wc -l)"

# -- unmounting while it runs ends the threads and the daemon cleanly ---------------------------
echo round-robin > "$H/mode"
echo hwlat > "$T/current_tracer"
wait_threads hwlatd 1
if ut_umount; then pass "hwlat: unmount while current"; else fail "hwlat: unmount while current"; fi

#!/bin/sh
# 49_inst_route.sh - the function tracer in instances: the same traced programs
# (tests/progs/inst_prog: a main thread and a worker) write into the top level
# and two instances at once, each with its own tracer, filters and pid lists;
# an instance's tracing_on stops only it; rmdir of an instance that processes
# are writing into (they go on, its memory is given back).  function_graph in
# instances: 45_inst_graph.sh.
. "$(dirname "$0")/lib.sh"

ut_mount
I=$T/instances

start_ip() { start_driven inst_prog "$@"; } # NAME FD
ip() { name=$1; shift; ask "$UT_TMP/$name.out" "$@"; }
# "FUNC-TID" pairs of the ip_ functions in a trace file, sorted, on one line
calls() {
	grep -v '^#' "$1" | sed -n 's/^ *[^ ]*-\([0-9]*\) .*: \(ip_[a-z_]*\) <-.*/\2-\1/p' |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}
sorted() { printf '%s\n' "$@" | sort | tr '\n' ' ' | sed 's/ $//'; }
clear_all() { echo >"$T/trace"; echo >"$I/a/trace"; echo >"$I/b/trace"; }
round() { clear_all; ip P 7 run >/dev/null; ip Q 8 run >/dev/null; }

start_ip P 7
start_ip Q 8
PPID_=$(driven_pid P)
PW=$(driven_worker P)
QPID=$(driven_pid Q)
QW=$(driven_worker Q)
# both have registered (they print their pid after the runtime's constructor); the
# functions are listed once per program, and each open of a control file first takes
# in whatever the processes sent
wait_listed ip_baz

mkdir "$I/a" "$I/b"
echo 'ip_foo*' >"$I/a/set_ftrace_filter"
echo 'ip_bar* ip_foo_two' >"$I/b/set_ftrace_filter"
echo "$PW" >"$I/b/set_ftrace_pid"
out=$( (echo function >"$I/a/current_tracer") 2>&1 )
expect_eq "function in an instance is taken" "function" "$out$(cat "$I/a/current_tracer")"
echo function >"$I/b/current_tracer"

round
expect_eq "top nop: no function event in the top's trace" "" "$(calls "$T/trace")"
expect_eq "instance a (function, ip_foo*): its functions, every thread of both processes" \
	"$(sorted ip_foo_one-$PPID_ ip_foo_one-$PW ip_foo_one-$QPID ip_foo_one-$QW \
		ip_foo_two-$PPID_ ip_foo_two-$PW ip_foo_two-$QPID ip_foo_two-$QW)" \
	"$(calls "$I/a/trace")"
expect_eq "instance b (ip_bar* ip_foo_two, set_ftrace_pid one thread): that thread's only" \
	"$(sorted ip_bar_one-$PW ip_foo_two-$PW)" "$(calls "$I/b/trace")"
expect_eq "sites an instance takes are calls, the others NOPs" \
	"ip_foo_one e8 ip_foo_two e8 ip_bar_one e8 ip_baz 0f" \
	"$(ip P 7 ip_foo_one ip_foo_two ip_bar_one ip_baz | tr '\n' ' ' | sed 's/ $//')"
expect_eq "a site an instance that picks threads shares: the probe stub (C)" \
	"ip_foo_two probe" "$(ip P 7 entry ip_foo_two)"
expect_eq "a site one instance takes for every thread: that instance's entry" \
	"ip_foo_one inst" "$(ip P 7 entry ip_foo_one)"
expect_eq "a process b's pid list leaves out: ip_bar_one stays a NOP there" \
	"ip_bar_one 0f" "$(ip Q 8 ip_bar_one)"
expect_eq "each event once: a's count of lines" "8" \
	"$(grep -c ': ip_' "$I/a/trace")"

# the top traces too, with its own filter
echo ip_baz >"$T/set_ftrace_filter"
echo function >"$T/current_tracer"
round
expect_eq "top function (ip_baz) besides the instances: its own function only" \
	"$(sorted ip_baz-$PPID_ ip_baz-$PW ip_baz-$QPID ip_baz-$QW)" "$(calls "$T/trace")"
expect_eq "instance a unchanged by the top's tracer" "8" "$(grep -c ': ip_foo' "$I/a/trace")"
expect_eq "instance b unchanged by the top's tracer" "$(sorted ip_bar_one-$PW ip_foo_two-$PW)" \
	"$(calls "$I/b/trace")"
echo 'ip_baz ip_foo_one' >"$T/set_ftrace_filter"
round
expect_eq "a site both the top and an instance take: in both" \
	"8 4" "$(grep -c ': ip_foo' "$I/a/trace") $(grep -c ': ip_foo_one' "$T/trace")"
expect_eq "... through the entry of that set of spans (the assembly path)" \
	"ip_foo_one multi" "$(ip P 7 entry ip_foo_one)"
echo function_graph >"$T/current_tracer"
round
expect_eq "top function_graph and instance function at once: each its own events" \
	"4 4 8" "$(grep -c 'ip_baz();' "$T/trace") $(grep -c 'ip_foo_one();' "$T/trace") $(
		grep -c ': ip_foo' "$I/a/trace")"
expect_eq "... through the probe stub (C makes the top's graph frame)" \
	"ip_foo_one probe" "$(ip P 7 entry ip_foo_one)"
echo nop >"$T/current_tracer"
echo >"$T/set_ftrace_filter"

# tracing_on of one instance
echo 0 >"$I/a/tracing_on"
round
expect_eq "a's tracing_on 0: a records nothing" "" "$(calls "$I/a/trace")"
expect_eq "... b goes on" "$(sorted ip_bar_one-$PW ip_foo_two-$PW)" "$(calls "$I/b/trace")"
echo 1 >"$I/a/tracing_on"
echo 0 >"$I/b/tracing_on"
round
expect_eq "b's tracing_on 0: b records nothing, a does" "8" \
	"$(grep -c ': ip_' "$I/a/trace")$(calls "$I/b/trace")"
echo 1 >"$I/b/tracing_on"

# func_stack_trace of one instance: its events get their stacks, the others' not
echo 1 >"$I/a/options/func_stack_trace"
round
expect_eq "a's func_stack_trace: a stack after each of its 8 events, none in b" "8 0" \
	"$(grep -c '<stack trace>' "$I/a/trace") $(grep -c '<stack trace>' "$I/b/trace")"
expect_eq "... each naming the function it follows" "yes" \
	"$(grep -A1 '<stack trace>' "$I/a/trace" | grep -c '=> ip_foo' | sed 's/^8$/yes/')"
echo 0 >"$I/a/options/func_stack_trace"

# the instance's filters and pid list change what it takes
echo "$QPID" >"$I/b/set_ftrace_pid"
round
expect_eq "b's pid list moved to the other process (all its threads)" \
	"$(sorted ip_bar_one-$QPID ip_bar_one-$QW ip_foo_two-$QPID ip_foo_two-$QW)" \
	"$(calls "$I/b/trace")"
expect_eq "a site two instances take for every thread: the entry of that set" \
	"ip_foo_two multi" "$(ip Q 8 entry ip_foo_two)"
expect_eq "... and each event once in each (a: both processes, b: this one)" "4 2" \
	"$(grep -c ': ip_foo_two' "$I/a/trace") $(grep -c ': ip_foo_two' "$I/b/trace")"
echo nop >"$I/a/current_tracer"
round
expect_eq "a back to nop: nothing more in a, b as before" \
	"|$(sorted ip_bar_one-$QPID ip_bar_one-$QW ip_foo_two-$QPID ip_foo_two-$QW)" \
	"$(calls "$I/a/trace")|$(calls "$I/b/trace")"
expect_eq "... and a's functions that nobody takes are NOPs again" "ip_foo_one 0f" \
	"$(ip P 7 ip_foo_one)"

# rmdir while writing
echo function >"$I/a/current_tracer"
ip P 7 spin >/dev/null
i=0
while [ $i -lt 3000 ] && [ "$(grep -c ': ip_foo_one' "$I/a/trace")" -lt 100 ]; do
	sleep 0.02; i=$((i + 1))
done
expect_eq "a fills while the spinner runs" "yes" \
	"$([ "$(grep -c ': ip_foo_one' "$I/a/trace")" -ge 100 ] && echo yes)"
# the area memfd ("utrace"): its allocated blocks
area=$(ls -l /proc/$UT_FS_PID/fd 2>/dev/null |
	sed -n 's/.* \([0-9]*\) -> \/memfd:utrace (deleted)$/\1/p' | head -1)
blocks() { stat -L -c %b "/proc/$UT_FS_PID/fd/$area"; }
before=$(blocks)
rmdir "$I/a"
expect_eq "rmdir of an instance being written into" "gone" "$([ -e "$I/a" ] || echo gone)"
s1=$(ip P 7 | sed -n 's/^spins //p')
i=0
while [ $i -lt 3000 ] && [ "$(ip P 7 | sed -n 's/^spins //p')" -le "$((s1 + 1000))" ]; do
	sleep 0.02; i=$((i + 1))
done
s2=$(ip P 7 | sed -n 's/^spins //p')
expect_eq "the program goes on calling after the rmdir" "yes" \
	"$([ "$s2" -gt "$((s1 + 1000))" ] && echo yes)"
after=$(blocks)
expect_eq "its span's memory is given back (and stays so while the program runs)" "yes" \
	"$([ -n "$area" ] && [ "$after" -lt "$before" ] && echo yes)" 
expect_eq "the spinning site is a NOP again" "ip_foo_one 0f" "$(ip P 7 ip_foo_one | grep -v spins)"
ip P 7 stop >/dev/null
mkdir "$I/a"
expect_eq "a new instance in that slot starts empty, with nop" "nop|" \
	"$(cat "$I/a/current_tracer")|$(calls "$I/a/trace")"
round
expect_eq "b still right after all that" \
	"$(sorted ip_bar_one-$QPID ip_bar_one-$QW ip_foo_two-$QPID ip_foo_two-$QW)" \
	"$(calls "$I/b/trace")"

# a program that starts while only an instance traces is routed from its first call:
# it waits before main() for its routes, as it does under a filter
mkdir "$I/c"
echo function >"$I/c/current_tracer"
short=0
for k in 1 2 3 4 5 6 7 8 9 10; do
	echo >"$I/c/trace"
	out=$(LD_PRELOAD=$LIBUTRACE "$PROGS/rt_calls" calls 50)
	cpid=$(echo "$out" | sed -n 's/.* pid \([0-9]*\)$/\1/p')
	[ "$(grep -c "rt_calls-$cpid .* leaf <-caller\$" "$I/c/trace")" -eq 50 ] || short=$((short + 1))
done
expect_eq "a new program's every call reaches the instance (10 runs)" 0 "$short"
echo nop >"$I/c/current_tracer"
rmdir "$I/c"

exec 7>&- 8>&-
wait_i=0
while [ $wait_i -lt 250 ] && kill -0 "$PPID_" 2>/dev/null; do sleep 0.02; wait_i=$((wait_i + 1)); done
rmdir "$I/a" "$I/b"
ut_umount || fail "utracefs exited with an error"

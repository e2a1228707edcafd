#!/bin/sh
# 104_stack.sh - the stack tracer through a real mount: stack_tracer_enabled,
# stack_max_size, stack_trace, stack_trace_filter and `utrace stack`, with
# tests/progs/stack_prog (recurse(N): N frames of at least 512 bytes each) in the
# main thread, in a second thread and in a handler on a 64 KiB sigaltstack.
# A process reports a new maximum on its socket, after its command's "done":
# every check waits (bounded) for what it expects to arrive, and a report that
# must not come is shown absent by one that comes after it on the same socket.
. "$(dirname "$0")/lib.sh"

ut_mount
O=$UT_TMP/sp.out
max() { cat "$T/stack_max_size"; }
# wait_max MIN: until stack_max_size is at least MIN (at most 10 s)
wait_max() {
	i=0
	while [ $i -lt 500 ] && [ "$(max)" -lt "$1" ]; do sleep 0.02; i=$((i + 1)); done
}
# wait_trace FUNC: until stack_trace lists FUNC (at most 10 s)
wait_trace() {
	i=0
	while [ $i -lt 500 ] && ! grep -q " $1+0x" "$T/stack_trace"; do sleep 0.02; i=$((i + 1)); done
}
# frames of recurse in stack_trace whose size is at least 512
deep_frames() { awk '$4 ~ /^recurse\+0x/ && $3 >= 512' "$T/stack_trace" | wc -l; }
sites() { ask "$O" 3 s | grep -v '^pid ' | tr '\n' ' '; }

# ---- the files before anything ran ----
expect_eq "enabled: 0 at mount" "0" "$(cat "$T/stack_tracer_enabled")"
expect_eq "stack_max_size: 0 at mount" "0" "$(max)"
expect_eq "stack_trace: the kernel's text while disabled" "        Depth    Size   Location    (0 entries)
        -----    ----   --------
#
#  Stack tracer disabled
#
# To enable the stack tracer, either add 'stacktrace' to the
# kernel command line
# or 'echo 1 > /proc/sys/kernel/stack_tracer_enabled'
#" "$(cat "$T/stack_trace")"
expect_eq "stack_trace_filter: empty" "#### all functions enabled ####" \
	"$(cat "$T/stack_trace_filter")"
expect_write_err "stack_max_size: not a number" "Invalid argument" abc "$T/stack_max_size"
expect_write_err "stack_tracer_enabled: not a number" "Invalid argument" x \
	"$T/stack_tracer_enabled"

start_driven stack_prog sp 3
expect_eq "off: the sites stay NOPs" "recurse 0f shallow 0f " "$(sites)"

# ---- on, under the nop tracer: the maximum grows with depth ----
echo 1 >"$T/stack_tracer_enabled"
expect_eq "enabled reads 1" "1" "$(cat "$T/stack_tracer_enabled")"
expect_eq "on: the sites call the stack check" "recurse e8 shallow e8 " "$(sites)"
expect_eq "stack_trace: no comment once enabled" "0" "$(grep -c '^#' "$T/stack_trace")"
ask "$O" 3 m 5 >/dev/null
wait_max 2560
small=$(max)
ask "$O" 3 m 25 >/dev/null
wait_max $((25 * 512))
big=$(max)
if [ "$small" -ge 2560 ] && [ "$big" -gt "$small" ] && [ "$big" -ge $((25 * 512)) ] &&
	[ "$big" -lt 1048576 ]; then
	pass "stack_max_size grows with depth ($small, then $big)"
else
	fail "stack_max_size grows with depth" "depth 5: $small, depth 25: $big"
fi
n=$(deep_frames)
if [ "$n" -ge 20 ]; then pass "stack_trace: recurse $n times, 512 bytes or more each"; else
	fail "stack_trace: recurse at least 20 times" "$(cat "$T/stack_trace")"
fi
expect_match "stack_trace: the header counts the entries" \
	"^        Depth    Size   Location    \\($(($(wc -l <"$T/stack_trace") - 2)) entries\\)\$" \
	"$(head -1 "$T/stack_trace")"
# each line "%3ld) %8d   %5d   func+0xOFF/0xSIZE"; Size is Depth minus the next Depth,
# the last one's is its Depth; the first Depth is stack_max_size
bad=$(sed 1,2d "$T/stack_trace" | grep -Ev '^ {0,2}[0-9]+\) +[0-9]+ +[0-9]+   [^ ]+\+0x[0-9a-f]+/0x[0-9a-f]+$')
expect_eq "stack_trace: every line in the kernel's format" "" "$bad"
sums=$(sed 1,2d "$T/stack_trace" | awk -v max="$big" '
	NR == 1 && $2 != max { print "first depth " $2 " is not " max }
	NR > 1 && prev - $2 != psize { print "line " NR - 1 ": " prev " - " $2 " != " psize }
	{ prev = $2; psize = $3 }
	END { if (prev != psize) print "last size " psize " != depth " prev }')
expect_eq "stack_trace: sizes are the distances between frames" "" "$sums"

# ---- writing stack_max_size starts over ----
echo 0 >"$T/stack_max_size"
expect_eq "stack_max_size: 0 after writing 0" "0" "$(max)"
ask "$O" 3 m 5 >/dev/null
wait_max 2560
v=$(max)
if [ "$v" -ge 2560 ] && [ "$v" -lt "$big" ]; then pass "after a reset a shallower stack is the max ($v)"
else fail "after a reset a shallower stack is the max" "got $v, before $big"; fi

# ---- a second thread, measured against its own stack ----
echo 0 >"$T/stack_max_size"
ask "$O" 3 t 20 >/dev/null
wait_trace thread_run
v=$(max)
if [ "$v" -ge $((20 * 512)) ] && [ "$v" -lt 1048576 ]; then
	pass "a thread: against its own stack ($v)"
else fail "a thread: against its own stack" "stack_max_size $v$(cat "$T/stack_trace")"; fi

# ---- a handler on a sigaltstack, measured against that stack ----
echo 0 >"$T/stack_max_size"
ask "$O" 3 a 30 >/dev/null
wait_max $((30 * 512))
v=$(max)
if [ "$v" -ge $((30 * 512)) ] && [ "$v" -le 65536 ]; then
	pass "a handler on a sigaltstack: against that stack ($v)"
else fail "a handler on a sigaltstack: against that stack" "stack_max_size $v"; fi

# ---- stack_trace_filter: only its functions check ----
echo shallow >"$T/stack_trace_filter"
expect_eq "stack_trace_filter reads back" "shallow" "$(cat "$T/stack_trace_filter")"
expect_eq "filtered: only shallow's site calls" "recurse 0f shallow e8 " "$(sites)"
echo 0 >"$T/stack_max_size"
ask "$O" 3 m 25 >/dev/null # recurse(25), then shallow() from the same frame as recurse(25)
wait_trace shallow
if grep -q ' shallow+0x' "$T/stack_trace" && ! grep -q ' recurse+0x' "$T/stack_trace"; then
	pass "filtered: the deepest stack is shallow's, recurse did not check"
else fail "filtered: recurse did not check" "$(cat "$T/stack_trace")"; fi
expect_write_err "stack_trace_filter: no such function" "Invalid argument" nosuchfunc \
	"$T/stack_trace_filter"
echo >"$T/stack_trace_filter"
expect_eq "stack_trace_filter: emptied" "#### all functions enabled ####" \
	"$(cat "$T/stack_trace_filter")"

# ---- with the function tracer: both on the same sites ----
echo function >"$T/current_tracer"
echo 0 >"$T/stack_max_size"
ask "$O" 3 m 22 >/dev/null
wait_max $((22 * 512))
v=$(max)
if [ "$v" -ge $((22 * 512)) ] && grep -q ' recurse <-recurse' "$T/trace"; then
	pass "with the function tracer: traced and measured ($v)"
else fail "with the function tracer: traced and measured" "stack_max_size $v"; fi
# A coroutine's stack (makecontext, on the heap) is not the thread's: not measured,
# and nothing read past it, under function_graph too (its return addresses there are
# the tracer's, never found: the scan would run to the thread's stack top).
echo function_graph >"$T/current_tracer"
echo 0 >"$T/stack_max_size"
out=$(ask "$O" 3 c 10)
if [ "$out" = "" ] && kill -0 "$(sed -n 's/^pid //p' "$O")" 2>/dev/null; then
	pass "a coroutine under function_graph: the program lives"
else
	fail "a coroutine under function_graph: the program lives" "$out"
fi
v=$(max)
if [ "$v" -lt 1048576 ]; then pass "a coroutine: no bogus size ($v)"
else fail "a coroutine: no bogus size" "stack_max_size $v"; fi
echo nop >"$T/current_tracer"

# ---- off again: the sites go back to NOPs, the maximum stays ----
echo 0 >"$T/stack_tracer_enabled"
expect_eq "off again: the sites are NOPs" "recurse 0f shallow 0f " "$(sites)"
expect_eq "off: stack_max_size stays" "$v" "$(max)"

# ---- utrace stack ----
out=$("$UTRACE" stack)
expect_eq "utrace stack: not running, then the table" "(stack tracer not running)
$(cat "$T/stack_trace")" "$out"
"$UTRACE" stack --start
expect_eq "utrace stack --start" "1" "$(cat "$T/stack_tracer_enabled")"
expect_match "utrace stack: running" '^\(stack tracer running\)$' "$("$UTRACE" stack | head -1)"
"$UTRACE" stack --reset
expect_eq "utrace stack --reset" "0" "$(max)"
"$UTRACE" stack --stop
expect_eq "utrace stack --stop" "0" "$(cat "$T/stack_tracer_enabled")"
"$UTRACE" stack --bogus 2>/dev/null
expect_eq "utrace stack: bad option is a usage error" "2" "$?"

exec 3>&-
ut_umount

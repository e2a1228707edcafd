#!/bin/sh
# 30_runtime.sh - libutrace through a real utracefs mount: function events of an
# instrumented program (preloaded and linked), nop leaves no events, trace_printk,
# fork, vfork, glibc without rseq (the runtime registers its own), live switching while
# threads run, SIGKILL of a traced process.
. "$(dirname "$0")/lib.sh"

P=$PROGS/rt_calls
ut_mount

# site_bytes PID ADDR: the 5 bytes at ADDR in process PID, as "0f 1f 44 00 00"
site_bytes() {
	dd if=/proc/$1/mem iflag=skip_bytes skip=$(($2)) bs=5 count=1 2>/dev/null |
		od -An -tx1 | sed 's/^ *//;s/ *$//'
}

# -- no daemon: unchanged program, 5-byte NOPs -------------------------------------
out=$(UTRACE_TRACING=$UT_TMP/none/tracing traced "$P" bytes)
expect_eq "no daemon: sites become 5-byte NOPs" "0f 1f 44 00 00" "$out"

# -- function tracer ---------------------------------------------------------------
echo function > "$T/current_tracer"
out=$(traced "$P" calls 100)
pid=$(echo "$out" | sed -n 's/.* pid \([0-9]*\)$/\1/p')
n=$(grep -c "rt_calls-$pid .* leaf <-caller\$" "$T/trace")
expect_eq "function: one line per call" 100 "$n"
expect_match "function: caller traced" "rt_calls-$pid .* caller <-(main|do_calls)\$" \
	"$(cat "$T/trace")"

# -- nop ---------------------------------------------------------------------------
echo nop > "$T/current_tracer"
echo > "$T/trace"
traced "$P" calls 100 >/dev/null
n=$(grep -c "leaf" "$T/trace")
expect_eq "nop: no function events" 0 "$n"

# -- trace_printk, tracing_off -----------------------------------------------------
echo function > "$T/current_tracer"
echo > "$T/trace"
traced "$P" printk >/dev/null
tr=$(cat "$T/trace")
expect_match "trace_printk text" "hello 42 from printk" "$tr"
expect_match "trace_puts text" "a constant string" "$tr"
expect_match "trace_printk in main() is main's" ": (main|do_printk): hello 42 from printk$" "$tr"
expect_eq "tracing_off() sets tracing_on to 0" 0 "$(cat "$T/tracing_on")"
expect_eq "no events after tracing_off()" 10 "$(echo "$tr" | grep -c 'leaf <-caller$')"
echo 1 > "$T/tracing_on"
echo > "$T/trace"
traced "$P" printk-tail >/dev/null
tr=$(cat "$T/trace")
expect_match "trace_printk names its own function, in tail position too" \
	"rt_calls-[0-9]+ .*: report_tail: tail x=7$" "$tr"
expect_match "trace_puts names its own function, in tail position too" \
	"rt_calls-[0-9]+ .*: report_tail: tail puts$" "$tr"

# -- fork --------------------------------------------------------------------------
echo > "$T/trace"
out=$(traced "$P" fork 10)
child=$(echo "$out" | sed -n 's/.* child \([0-9]*\) .*/\1/p')
n=$(grep -c "rt_calls-$child .* leaf <-caller\$" "$T/trace")
expect_eq "fork: child's events carry its tid" 20 "$n"

# -- vfork: the child runs untraced until exec or _exit --------------------------------
# It shares the parent's memory, thread state and rseq registration: nothing it
# calls may be written (under the parent's tid), and the parent goes on as before.
for tracer in function function_graph; do
	grep -qw $tracer "$T/available_tracers" || continue
	echo $tracer > "$T/current_tracer"
	for how in exec exit; do
		echo > "$T/trace"
		out=$(traced "$PROGS/vfork_calls" $how); rc=$?
		tr=$(grep -v '^#' "$T/trace")
		expect_eq "$tracer: vfork child ($how) and parent end well" "0 parent ok" "$rc $out"
		expect_eq "$tracer: vfork child ($how) calls are not traced" 0 \
			"$(printf '%s\n' "$tr" | grep -c 'vf_child_')"
		expect_eq "$tracer: the parent's calls around vfork ($how) are" 2 \
			"$(printf '%s\n' "$tr" | grep -c 'vf_parent_work\( <-\|()\)')"
	done
done
echo nop > "$T/current_tracer"

# -- notrace: the runtime's own work is not traced ------------------------------------
# rt_notrace has its own free(); glibc calls it from the runtime's work in a fork child
# too (starting the control thread again): only the program's calls may show.
echo 1 > "$T/options/funcgraph-proc"
for tracer in function function_graph; do
	grep -qw $tracer "$T/available_tracers" || continue
	echo $tracer > "$T/current_tracer"
	echo > "$T/trace"
	out=$(traced "$PROGS/rt_notrace"); rc=$?
	child=$(echo "$out" | sed -n 's/^child \([0-9]*\)$/\1/p')
	tr=$(grep -v '^#' "$T/trace")
	# free() is a leaf: "free <-..." (function), "free();" or, when another
	# event came between its entry and exit on that CPU, "free() {" (function_graph)
	frees() { echo "$tr" | grep -E -- "-$1 .*( free <-| free\(\)(;| \{))" | grep -c .; }
	expect_eq "notrace, $tracer: the program's own free() calls only (3, then 1 in the child)" \
		"0 3 1" "$rc $(frees "$(echo "$out" | sed -n 's/^parent \([0-9]*\)$/\1/p')") $(frees "$child")"
	expect_eq "notrace, $tracer: nothing from the runtime's control thread" "" \
		"$(echo "$tr" | grep 'utrace-ctl')"
done
echo 0 > "$T/options/funcgraph-proc"
echo function > "$T/current_tracer"

# -- glibc without rseq: the runtime's own area, every thread exact -----------------
echo > "$T/trace"
out=$(GLIBC_TUNABLES=glibc.pthread.rseq=0 traced "$P" threads 4 2000)
expect_eq "no glibc rseq: glibc registered none" "rseq 0" "$(echo "$out" | grep -o 'rseq [0-9]*')"
tr=$(grep " leaf <-caller\$" "$T/trace")
expect_eq "no glibc rseq: 4 x 2000 calls, twice" 16000 "$(echo "$tr" | grep -c .)"
expect_eq "no glibc rseq: 2000 lines for each of 8 threads" "8 x 2000" \
	"$(echo "$tr" | awk '{print $1}' | sort | uniq -c | awk '{print $1}' | sort | uniq -c |
		awk '{print $1 " x " $2}')"
echo > "$T/trace"
GLIBC_TUNABLES=glibc.pthread.rseq=0 traced "$P" printk >/dev/null
tr=$(cat "$T/trace")
expect_match "no glibc rseq: trace_printk text" "hello 42 from printk" "$tr"
expect_eq "no glibc rseq: function events" 10 "$(echo "$tr" | grep -c 'leaf <-caller$')"
echo 1 > "$T/tracing_on"
echo > "$T/trace"
out=$(GLIBC_TUNABLES=glibc.pthread.rseq=0 traced "$P" fork 10)
child=$(echo "$out" | sed -n 's/.* child \([0-9]*\) .*/\1/p')
n=$(grep -c "rt_calls-$child .* leaf <-caller\$" "$T/trace")
expect_eq "no glibc rseq: fork child inherits the registration" 20 "$n"

# -- dlopen: a library's sites are live before its code runs -------------------------
# libutmod.so needs libutdep.so; both have constructors that call traced functions,
# which run inside dlopen(); mod_open() is then called as a Lua module's luaopen_
# function is.  The program keeps the library loaded until its stdin ends, so that
# the trace is read while its symbols are mapped.
cat > "$UT_TMP/utdep.c" <<'EOF'
volatile int dep_sink;
__attribute__((noinline)) void dep_fn(int x) { dep_sink += x; }
__attribute__((constructor)) static void dep_ctor(void) { dep_fn(1); dep_sink++; }
EOF
cat > "$UT_TMP/utmod.c" <<'EOF'
#include <pthread.h>
void dep_fn(int x);
volatile int mod_sink;
__attribute__((noinline)) int mod_helper(int x) { mod_sink += x; return x; }
__attribute__((noinline)) void mod_spin(int x) { mod_sink += x; }
static void *mod_thread(void *arg) { for (int i = 0; i < 500; i++) mod_spin(i); return arg; }
__attribute__((constructor)) static void mod_ctor(void)
{
	pthread_t t;

	mod_helper(1);
	mod_sink++;
	if (pthread_create(&t, 0, mod_thread, 0) == 0) /* runs the library's code at once */
		pthread_join(t, 0);
}
int mod_open(void) { dep_fn(2); return mod_helper(2) + 1; }
EOF
# dlinit_start NAME FD: rt_calls dlinit in the background (pid in dl_pid), its stdin
# the fifo $UT_TMP/NAME.in held open on descriptor FD (closing FD lets it end);
# returns once it has loaded the library and called mod_open().
dlinit_start() {
	rm -f "$UT_TMP/$1.in" "$UT_TMP/$1.out" # (no "ready" left from an earlier run)
	mkfifo "$UT_TMP/$1.in"
	traced "$P" dlinit "$UT_TMP/libutmod.so" <"$UT_TMP/$1.in" >"$UT_TMP/$1.out" &
	dl_pid=$!
	eval "exec $2>\"\$UT_TMP/$1.in\""
	i=0
	until grep -qs '^ready' "$UT_TMP/$1.out" || [ $i -ge 1500 ]; do
		sleep 0.02; i=$((i + 1))
	done
}
# dlinit_trace TRACER: rt_calls dlinit under TRACER, its trace in $UT_TMP/dl.trace
dlinit_trace() {
	echo "$1" > "$T/current_tracer"
	echo > "$T/trace"
	dlinit_start dl 7
	grep -v '^#' "$T/trace" > "$UT_TMP/dl.trace"
	exec 7>&-
	wait $dl_pid
}
if cc -O2 -shared -fPIC -fpatchable-function-entry=5 -o "$UT_TMP/libutdep.so" \
	"$UT_TMP/utdep.c" 2>"$UT_TMP/cc.log" &&
	cc -O2 -shared -fPIC -fpatchable-function-entry=5 -o "$UT_TMP/libutmod.so" \
		"$UT_TMP/utmod.c" -L"$UT_TMP" -lutdep -lpthread -Wl,-rpath,"$UT_TMP" 2>"$UT_TMP/cc.log"; then
	dlinit_trace function
	tr=$(cat "$UT_TMP/dl.trace")
	expect_match "dlopen: the library's constructor is traced" " mod_ctor <-" "$tr"
	expect_match "dlopen: what the constructor calls is traced" " mod_helper <-mod_ctor$" "$tr"
	expect_match "dlopen: the constructor of the library it needs is traced" \
		" dep_fn <-dep_ctor$" "$tr"
	expect_match "dlopen: its init function is traced" " mod_helper <-mod_open$" "$tr"
	expect_eq "dlopen: a thread the constructor starts (and joins) is traced from its start" \
		500 "$(echo "$tr" | grep -c ' mod_spin <-mod_thread$')"
	# named in set_ftrace_filter (known from a first process that has it loaded):
	# a second process's copy is filtered before its constructors run
	dlinit_start hold 8
	hold_pid=$dl_pid
	echo 'mod_ctor mod_helper dep_fn' > "$T/set_ftrace_filter"
	dlinit_trace function
	expect_eq "dlopen under set_ftrace_filter: the constructors' calls, then mod_open's" \
		"dep_fn <-dep_ctor|mod_ctor|mod_helper <-mod_ctor|dep_fn <-mod_open|mod_helper <-mod_open" \
		"$(sed -n 's/.*: \([a-z_]* <-[^ ]*\)$/\1/p' "$UT_TMP/dl.trace" |
			sed 's/^mod_ctor <-.*/mod_ctor/' | tr '\n' '|' | sed 's/|$//')"
	echo > "$T/set_ftrace_filter"
	exec 8>&-
	wait $hold_pid
	if grep -qw function_graph "$T/available_tracers"; then
		dlinit_trace function_graph
		for f in mod:mod_helper dep:dep_fn; do
			expect_eq "dlopen, function_graph: ${f%%:*}_ctor() { ${f#*:}(); }" 1 \
				"$(grep -A1 "  ${f%%:*}_ctor() {\$" "$UT_TMP/dl.trace" |
					grep -Ec "  ${f#*:}\(\)(;| \{)\$")"
		done
	fi
	# lld leaves the entries 0 until relocation (the addends are in the relocations).
	# (Counted, not named: utracefs does not always name an lld library's functions.)
	if cc -O2 -shared -fPIC -fpatchable-function-entry=5 -fuse-ld=lld -o "$UT_TMP/libutmod.so" \
		"$UT_TMP/utmod.c" -L"$UT_TMP" -lutdep -lpthread -Wl,-rpath,"$UT_TMP" 2>"$UT_TMP/cc.log"; then
		dlinit_trace function
		expect_eq "dlopen, linked by lld: main, both constructors and their calls, mod_open's" \
			509 "$(grep -c ' <-' "$UT_TMP/dl.trace")"
	else
		skip "dlopen, linked by lld" "no lld: $(cat "$UT_TMP/cc.log")"
	fi
	echo function > "$T/current_tracer"
else
	skip "dlopen: constructors traced" "cannot build the libraries: $(cat "$UT_TMP/cc.log")"
fi

# -- linked with -lutrace ----------------------------------------------------------
echo > "$T/trace"
if cc -O2 -fpatchable-function-entry=5 -I"$UT_TOP/include" -o "$UT_TMP/linked" \
	"$UT_TOP/tests/progs/rt_calls.c" -L"$UT_BUILD/lib" -Wl,-rpath,"$UT_BUILD/lib" -lutrace \
	-lpthread 2>"$UT_TMP/cc.log"; then
	out=$("$UT_TMP/linked" calls 50)
	pid=$(echo "$out" | sed -n 's/.* pid \([0-9]*\)$/\1/p')
	expect_eq "linked with -lutrace" 50 "$(grep -c "linked-$pid .* leaf <-caller\$" "$T/trace")"
else
	fail "linked with -lutrace" "$(cat "$UT_TMP/cc.log")"
fi

# -- switching while threads run, then SIGKILL --------------------------------------
echo nop > "$T/current_tracer"
LD_PRELOAD=$LIBUTRACE "$P" spin > "$UT_TMP/spin.out" & # $! must be the program itself
spin=$!
i=0
while [ ! -s "$UT_TMP/spin.out" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
leaf=$(sed -n 's/^leaf \(0x[0-9a-f]*\)$/\1/p' "$UT_TMP/spin.out")
i=0
while [ $i -lt 100 ]; do
	echo function > "$T/current_tracer"
	echo nop > "$T/current_tracer"
	i=$((i + 1))
done
if kill -0 $spin 2>/dev/null; then pass "switching 100 times: program alive"; else
	fail "switching 100 times: program alive"
fi
expect_eq "switching: site is a NOP at the end" "0f 1f 44 00 00" "$(site_bytes $spin "$leaf")"
echo function > "$T/current_tracer"
expect_eq "function on: site is a call" "e8" "$(site_bytes $spin "$leaf" | cut -c1-2)"
i=0
until grep -q "rt_calls-$spin .* leaf <-caller" "$T/trace" || [ $i -ge 400 ]; do
	sleep 0.05; i=$((i + 1))
done
kill -9 $spin
wait $spin 2>/dev/null
out=$(timeout 10 cat "$T/trace"); rc=$?
expect_eq "after SIGKILL: trace readable" 0 "$rc"
expect_match "after SIGKILL: the dead process's events remain" "rt_calls-$spin .* leaf <-caller" \
	"$out"
echo nop > "$T/current_tracer"

ut_umount || fail "utracefs exited cleanly"

#!/bin/sh
# 81_pid.sh - set_ftrace_pid, set_ftrace_notrace_pid, set_event_pid,
# set_event_notrace_pid through a real mount: parsing and read-back (all-or-nothing
# writes, `no pid`), and real traced programs (tests/progs/pid_prog: a main thread,
# a worker thread, fork children): only the selected processes and threads record,
# a process none of whose threads is selected keeps its sites as NOPs, and
# function-fork follows children and drops exited processes.
. "$(dirname "$0")/lib.sh"

ut_mount

for f in set_ftrace_pid set_ftrace_notrace_pid set_event_pid set_event_notrace_pid; do
	case $f in set_event*) none= ;; *) none="no pid" ;; esac
	expect_eq "$f: empty reads ${none:-nothing}" "$none" "$(cat "$T/$f")"
	echo '30 10 0x14' >"$T/$f"
	expect_eq "$f: ids read back sorted, one per line (0x14 is 20)" "10 20 30" \
		"$(tr '\n' ' ' <"$T/$f" | sed 's/ $//')"
	echo 5 >>"$T/$f"
	expect_eq "$f: >> appends" "5 10 20 30" "$(tr '\n' ' ' <"$T/$f" | sed 's/ $//')"
	expect_write_err "$f: a bad token is EINVAL" "Invalid argument" "7 abc" "$T/$f"
	case $f in
	set_event*) # the kernel's: > empties the list at open; add the ids back
		expect_eq "$f: > with a failed write empties it" "" "$(cat "$T/$f")"
		echo 5 10 20 30 >"$T/$f" ;;
	*) expect_eq "$f: a failed write changes nothing (not even >)" "5 10 20 30" \
		"$(tr '\n' ' ' <"$T/$f" | sed 's/ $//')" ;;
	esac
	out=$( (/bin/echo 8 -1 >>"$T/$f") 2>&1 ); rc=$?
	expect_eq "$f: a negative id is EINVAL, nothing added" "1 5 10 20 30" \
		"$([ $rc -ne 0 ] && echo 1) $(tr '\n' ' ' <"$T/$f" | sed 's/ $//')"
	case $f in
	set_event*) # the kernel's pid list takes ids below 2^30, and logs no error
		echo >"$T/error_log"
		echo 4194304 1073741823 >>"$T/$f"
		expect_eq "$f: ids up to 2^30 - 1 are taken" "5 10 20 30 4194304 1073741823" \
			"$(tr '\n' ' ' <"$T/$f" | sed 's/ $//')"
		out=$( (/bin/echo 1073741824 >>"$T/$f") 2>&1 )
		expect_match "$f: an id of 2^30 is EPERM" "Operation not permitted" "$out"
		expect_write_err "$f: a number past unsigned long is EINVAL" "Invalid argument" \
			18446744073709551616 "$T/$f"
		expect_eq "$f: failed writes leave no error_log line" "" "$(cat "$T/error_log")" ;;
	*) expect_write_err "$f: an id past PID_MAX_LIMIT is EINVAL" "Invalid argument" \
		4194304 "$T/$f" ;;
	esac
	echo 7 >"$T/$f"
	expect_eq "$f: > replaces" "7" "$(cat "$T/$f")"
	echo >"$T/$f"
	expect_eq "$f: an empty write with > empties it" "$none" "$(cat "$T/$f")"
done

# Two traced processes, driven through stdin like 80_filter.sh's filter_many.
start_pp() { start_driven pid_prog "$@"; } # NAME FD
pp() { # NAME FD CMD...: one command, print its answer
	name=$1; shift
	ask "$UT_TMP/$name.out" "$@"
}
# who called what: "FUNC-TID" pairs in the trace, sorted
calls() {
	grep -v '^#' "$T/trace" | sed -n 's/^ *[^ ]*-\([0-9]*\) .*: \(pp_[a-z]*\) <-.*/\2-\1/p' |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}
bytes() { pp "$@" | tr '\n' ' ' | sed 's/ $//'; }

start_pp A 7
start_pp B 8
APID=$(driven_pid A)
AW=$(driven_worker A)
BPID=$(driven_pid B)
BW=$(driven_worker B)
i=0
while [ $i -lt 200 ] && [ "$(grep -c '^pp_main$' "$T/available_filter_functions")" -lt 2 ]; do
	sleep 0.05; i=$((i + 1))
done
echo 'pp_*' >"$T/set_ftrace_filter"
echo function >"$T/current_tracer"
round() { echo >"$T/trace"; pp A 7 run >/dev/null; pp B 8 run >/dev/null; }

round
expect_eq "no pid filter: both processes, both threads" \
	"$(printf '%s\n' pp_main-$APID pp_main-$BPID pp_worker-$AW pp_worker-$BW | sort | tr '\n' ' ' | sed 's/ $//')" \
	"$(calls)"

echo "$APID" >"$T/set_ftrace_pid"
round
expect_eq "set_ftrace_pid PID: only that process, all its threads" \
	"pp_main-$APID pp_worker-$AW" "$(calls)"
expect_eq "set_ftrace_pid: the other process patches nothing (its sites stay NOPs)" \
	"pp_main 0f pp_worker 0f" "$(bytes B 8 pp_main pp_worker)"
expect_eq "set_ftrace_pid: the selected one is patched" "pp_main e8" "$(bytes A 7 pp_main)"

echo "$AW" >"$T/set_ftrace_pid"
round
expect_eq "set_ftrace_pid TID: only that thread" "pp_worker-$AW" "$(calls)"
expect_eq "set_ftrace_pid TID: its process is patched, the other not" "pp_main e8 pp_main 0f" \
	"$(bytes A 7 pp_main) $(bytes B 8 pp_main)"

echo "$BPID" >>"$T/set_ftrace_pid"
round
expect_eq "set_ftrace_pid TID + PID (>>)" \
	"$(printf '%s\n' pp_main-$BPID pp_worker-$AW pp_worker-$BW | sort | tr '\n' ' ' | sed 's/ $//')" \
	"$(calls)"

echo >"$T/set_ftrace_pid"
echo "$AW" >"$T/set_ftrace_notrace_pid"
round
expect_eq "set_ftrace_notrace_pid TID: every thread but that one" \
	"$(printf '%s\n' pp_main-$APID pp_main-$BPID pp_worker-$BW | sort | tr '\n' ' ' | sed 's/ $//')" \
	"$(calls)"
echo "$BPID" >"$T/set_ftrace_notrace_pid"
round
expect_eq "set_ftrace_notrace_pid PID: that process records nothing" \
	"pp_main-$APID pp_worker-$AW" "$(calls)"
expect_eq "set_ftrace_notrace_pid PID: and is not patched" "pp_main 0f" "$(bytes B 8 pp_main)"
echo "$APID $BPID" >"$T/set_ftrace_pid"
echo "$BW" >"$T/set_ftrace_notrace_pid"
round
expect_eq "notrace_pid wins over set_ftrace_pid" \
	"$(printf '%s\n' pp_main-$APID pp_main-$BPID pp_worker-$AW | sort | tr '\n' ' ' | sed 's/ $//')" \
	"$(calls)"
echo >"$T/set_ftrace_notrace_pid"

# fork: without function-fork the child is not selected
echo "$APID" >"$T/set_ftrace_pid"
echo >"$T/trace"
CH=$(pp A 7 fork | sed -n 's/^child //p')
sleep 0.5
pp A 7 reap >/dev/null
expect_eq "fork without function-fork: the child records nothing" "" \
	"$(calls | tr ' ' '\n' | grep "^pp_child")"
expect_eq "fork without function-fork: set_ftrace_pid unchanged" "$APID" "$(cat "$T/set_ftrace_pid")"

echo 1 >"$T/options/function-fork"
echo >"$T/trace"
CH=$(pp A 7 fork | sed -n 's/^child //p')
i=0
while [ $i -lt 1000 ] && ! grep -q "^$CH\$" "$T/set_ftrace_pid"; do sleep 0.02; i=$((i + 1)); done
expect_eq "function-fork: the child is added to set_ftrace_pid" \
	"$(printf '%s\n' "$APID" "$CH" | sort -n | tr '\n' ' ')" "$(tr '\n' ' ' <"$T/set_ftrace_pid")"
i=0
while [ $i -lt 1000 ] && ! calls | grep -q "pp_child-$CH"; do sleep 0.02; i=$((i + 1)); done
expect_eq "function-fork: the child records" "pp_child-$CH" \
	"$(calls | tr ' ' '\n' | grep "^pp_child")"
pp A 7 reap >/dev/null
i=0
while [ $i -lt 1000 ] && grep -q "^$CH\$" "$T/set_ftrace_pid"; do sleep 0.02; i=$((i + 1)); done
expect_eq "function-fork: the exited child is dropped" "$APID" "$(cat "$T/set_ftrace_pid")"
# a child of a listed process that goes before utracefs could answer its HELLO
echo $$ >>"$T/set_ftrace_pid"
for k in $(seq 20); do "$PROGS/bad_sites" hello-close >/dev/null; done
i=0
while [ $i -lt 1000 ] && [ "$(wc -l <"$T/set_ftrace_pid")" -gt 2 ]; do sleep 0.02; i=$((i + 1)); done
expect_eq "function-fork: children gone before WELCOME are dropped too" \
	"$(printf '%s\n' "$APID" $$ | sort -n | tr '\n' ' ')" "$(tr '\n' ' ' <"$T/set_ftrace_pid")"
echo "$APID" >"$T/set_ftrace_pid"
echo 0 >"$T/options/function-fork"

echo >"$T/set_ftrace_pid"
round
expect_eq "set_ftrace_pid emptied: everything again" \
	"$(printf '%s\n' pp_main-$APID pp_main-$BPID pp_worker-$AW pp_worker-$BW | sort | tr '\n' ' ' | sed 's/ $//')" \
	"$(calls)"

echo function_graph >"$T/current_tracer"
echo "$AW" >"$T/set_ftrace_pid"
round
expect_eq "function_graph: set_ftrace_pid TID, only that thread's calls" "pp_worker" \
	"$(grep -v '^#' "$T/trace" | sed -n 's/.*| *\(pp_[a-z]*\)().*/\1/p' | sort -u | tr '\n' ' ' | sed 's/ $//')"
expect_eq "function_graph: the unselected process stays unpatched" "pp_main 0f" "$(bytes B 8 pp_main)"
echo >"$T/set_ftrace_pid"
echo function >"$T/current_tracer"

echo "$BPID" >"$T/set_event_pid"
round
expect_eq "set_event_pid leaves function tracing alone" 4 "$(calls | wc -w)"
echo >"$T/set_event_pid"

# ftrace_enabled (the kernel's sysctl): 0 unpatches every site in every process
expect_eq "ftrace_enabled reads 1" "1" "$(cat "$T/ftrace_enabled")"
expect_eq "function tracer: patched" "pp_main e8 pp_main e8" "$(bytes A 7 pp_main) $(bytes B 8 pp_main)"
echo 0 >"$T/ftrace_enabled"
expect_eq "ftrace_enabled 0 reads back" "0" "$(cat "$T/ftrace_enabled")"
expect_eq "ftrace_enabled 0: every site a NOP again, in every process" \
	"pp_main 0f pp_worker 0f pp_main 0f pp_worker 0f" \
	"$(bytes A 7 pp_main pp_worker) $(bytes B 8 pp_main pp_worker)"
round
expect_eq "ftrace_enabled 0: nothing traced" "" "$(calls)"
expect_write_err "ftrace_enabled 2: EINVAL" "Invalid argument" 2 "$T/ftrace_enabled"
expect_write_err "ftrace_enabled -1: EINVAL" "Invalid argument" -1 "$T/ftrace_enabled"
expect_write_err "ftrace_enabled abc: EINVAL" "Invalid argument" abc "$T/ftrace_enabled"
expect_eq "ftrace_enabled: a failed write leaves 0" "0" "$(cat "$T/ftrace_enabled")"
echo 1 >"$T/ftrace_enabled"
expect_eq "ftrace_enabled 1: patched again" "pp_main e8 pp_main e8" \
	"$(bytes A 7 pp_main) $(bytes B 8 pp_main)"
round
expect_eq "ftrace_enabled 1: traced again" 4 "$(calls | wc -w)"

# enabled_functions: what is patched now, "name (users)" and blank flag columns
enabled() { sed 's/ *$//' "$T/enabled_functions" | sort | tr '\n' ',' | sed 's/,$//'; }
expect_eq "enabled_functions: the filtered functions, one user each" \
	"pp_child (1),pp_main (1),pp_worker (1)" "$(enabled)"
expect_eq "enabled_functions: the kernel's columns after the count" "pp_main (1)           " \
	"$(grep '^pp_main ' "$T/enabled_functions")"
echo pp_main >"$T/set_ftrace_filter"
expect_eq "enabled_functions follows set_ftrace_filter" "pp_main (1)" "$(enabled)"
echo 'pp_*' >"$T/set_ftrace_filter"
echo 0 >"$T/ftrace_enabled"
expect_eq "enabled_functions: empty with ftrace_enabled 0" "" "$(enabled)"
echo 1 >"$T/ftrace_enabled"
echo "$APID $BPID" >"$T/set_ftrace_notrace_pid"
expect_eq "enabled_functions: empty when no process is selected" "" "$(enabled)"
echo >"$T/set_ftrace_notrace_pid"

# available_filter_functions_addrs: "ADDR NAME", the address in a live process
line=$(grep ' pp_main$' "$T/available_filter_functions_addrs")
expect_match "available_filter_functions_addrs: address then name" '^[0-9a-f]* pp_main$' "$line"
addr=$((0x${line%% *}))
inside=$(cat "/proc/$APID/maps" "/proc/$BPID/maps" | grep pid_prog | while read -r range rest; do
	[ "$addr" -ge "$((0x${range%-*}))" ] && [ "$addr" -lt "$((0x${range#*-}))" ] && echo in
done | head -1)
expect_eq "available_filter_functions_addrs: the address is in the program's mapping" in "$inside"
expect_eq "available_filter_functions_addrs: as many lines as available_filter_functions" \
	"$(wc -l <"$T/available_filter_functions")" "$(wc -l <"$T/available_filter_functions_addrs")"
expect_eq "available_filter_functions_addrs: the same names, in the same order" \
	"$(cat "$T/available_filter_functions")" "$(cut -d' ' -f2- "$T/available_filter_functions_addrs")"
n=$(wc -l <"$T/available_filter_functions")
expect_match "dyn_ftrace_total_info: the kernel's layout, the number of records" \
	"^$n pages:[1-9][0-9]* groups: [1-9][0-9]* ftrace boot update time = [0-9]+ [(]ns[)] ftrace module total update time = [0-9]+ [(]ns[)] $" \
	"$(tr '\n' ' ' <"$T/dyn_ftrace_total_info")"

# utrace list -f PATTERN: available_filter_functions filtered by a glob on the name
expect_eq "list -f 'pp_*'" "pp_child pp_main pp_worker" \
	"$("$UTRACE" list -f 'pp_*' | sort | tr '\n' ' ' | sed 's/ $//')"
expect_eq "list -f 'pp_m?in'" "pp_main" "$("$UTRACE" list -f 'pp_m?in')"
out=$("$UTRACE" list -f 'nomatch_*'); rc=$?
expect_eq "list -f PATTERN matching nothing: empty, status 0" "0 " "$rc $out"
expect_eq "list -f without a pattern: every function" \
	"$(cat "$T/available_filter_functions")" "$("$UTRACE" list -f)"

# utrace record -l/-n/-P: the filters for one run, put back afterwards
echo nop >"$T/current_tracer"
expect_eq "enabled_functions: empty with the nop tracer" "" "$(enabled)"
echo >"$T/set_ftrace_filter"
rec=$UT_TMP/rec.txt
recnames() { grep -v '^#' "$rec" | sed -n 's/.*: \([A-Za-z_0-9]*\) <-.*/\1/p' | sort -u | tr '\n' ' ' | sed 's/ $//'; }
out=$("$UTRACE" record --text -l fm_1 -l fm_500 -o "$rec" -- "$PROGS/filter_many" 2>&1); rc=$?
expect_eq "record -l FUNC -l FUNC: runs the program" 0 "$rc"
expect_eq "record -l: only those functions (function tracer implied)" "fm_1 fm_500" "$(recnames)"
expect_eq "record -l: set_ftrace_filter emptied at the end" "#### all functions enabled ####" \
	"$(cat "$T/set_ftrace_filter")"
out=$("$UTRACE" record --text -p function -l 'fm_1*' -n fm_10 -n 'fm_1[5-9]*' -o "$rec" -- "$PROGS/filter_many" 2>&1); rc=$?
expect_eq "record -l GLOB -n FUNC -n GLOB: the 111 of fm_1* less 56" "0 55" \
	"$rc $(recnames | wc -w)"
expect_eq "record -n: set_ftrace_notrace emptied at the end" "#### no functions disabled ####" \
	"$(cat "$T/set_ftrace_notrace")"
out=$("$UTRACE" record --text -l no_such_function_xyz -o "$rec" -- "$PROGS/filter_many" 2>&1); rc=$?
expect_eq "record -l with a function that does not exist: 1" 1 "$rc"
expect_match "record -l names what matched nothing" "no_such_function_xyz" "$out"

echo "$BPID" >"$T/set_ftrace_pid"
out=$("$UTRACE" record --text -P "$APID" -o "$rec" -- "$PROGS/filter_many" 2>&1); rc=$?
expect_eq "record -P PID: CMD is traced too" "0 1006" "$rc $(recnames | tr " " "\n" | grep -c "^fm_")"
expect_eq "record -P: set_ftrace_pid put back as it was" "$BPID" "$(cat "$T/set_ftrace_pid")"
echo >"$T/set_ftrace_pid"
out=$("$UTRACE" record --text -P "$APID" -P 12x -o "$rec" -- true 2>&1); rc=$?
expect_eq "record -P not-a-pid: usage error 2" 2 "$rc"

exec 7>&- 8>&-
echo nop >"$T/current_tracer"
echo >"$T/set_ftrace_filter"
wait_jobs=$(jobs -p | grep -v "^$UT_FS_PID\$")
for p in $wait_jobs; do wait "$p" 2>/dev/null; done
ut_umount && pass "unmounted cleanly" || fail "unmount"

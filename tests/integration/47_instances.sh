#!/bin/sh
# 47_instances.sh - instances/ (issue 12): mkdir/rmdir with the kernel's errnos,
# 64 instances, EBUSY while a file is open, the files and defaults of an instance
# compared with a kernel instance, every per-instance file isolated from the
# other instances and from the top level, per-instance error_log, and rmdir while
# a writer loops on the instance's trace_marker (memory given back).
. "$(dirname "$0")/lib.sh"
ut_mount

I=$T/instances

# err CMD...: the strerror text of a failing command ("ok" when it succeeds)
err() {
	out=$("$@" 2>&1) && { echo ok; return; }
	case $out in
	*"File exists"*) echo EEXIST ;;
	*"No such file"*) echo ENOENT ;;
	*"busy"*) echo EBUSY ;;
	*"Cannot allocate memory"*) echo ENOMEM ;;
	*"File name too long"*) echo ENAMETOOLONG ;;
	*"not permitted"*) echo EPERM ;;
	*"Invalid argument"*) echo EINVAL ;;
	*) echo "other: $out" ;;
	esac
}
# last_marker FILE: the text of the trace_marker lines of a trace file
markers() { sed -n 's/.*tracing_mark_write: //p' "$1"; }

# ---- the directory --------------------------------------------------------------------
expect_eq "instances/ is listed and empty" "instances|" "$(ls "$T" | grep -x instances)|$(ls "$I")"
expect_eq "instances/ mode" "drwxr-x---" "$(stat -c %A "$I")"
expect_eq "mkdir makes an instance" "ok a" "$(err mkdir "$I/a") $(ls "$I")"
expect_eq "mkdir of an existing name: EEXIST" "EEXIST" "$(err mkdir "$I/a")"
expect_eq "instance dir mode" "drwxr-x---" "$(stat -c %A "$I/a")"
expect_eq "rmdir of a missing name: ENOENT" "ENOENT" "$(err rmdir "$I/nothere")"
long=$(printf 'x%.0s' $(seq 256))
expect_eq "a 256-byte name: ENAMETOOLONG" "ENAMETOOLONG" "$(err mkdir "$I/$long")"
ok255=$(printf 'y%.0s' $(seq 255))
expect_eq "a 255-byte name is taken" "ok ok" "$(err mkdir "$I/$ok255") $(err rmdir "$I/$ok255")"
expect_eq "mkdir inside an instance or elsewhere: EPERM" "EPERM EPERM EPERM" \
	"$(err mkdir "$I/a/sub") $(err mkdir "$T/per_cpu/x") $(err mkdir "$T/x")"
expect_eq "rmdir of a directory of an instance, of instances/: EPERM" "EPERM EPERM" \
	"$(err rmdir "$I/a/options") $(err rmdir "$I")"

# ---- the files of an instance -------------------------------------------------------------
expect_eq "instance defaults" "1410
2820
nop
1
[local] global counter uptime perf mono mono_raw boot tai x86-tsc
timerlat osnoise hwlat function_graph wakeup_dl wakeup_rt wakeup preemptirqsoff preemptoff irqsoff function nop" "$(cat "$I/a/buffer_size_kb"; cat "$I/a/buffer_total_size_kb" |
	sed "s/^$((1410 * $(ls "$T/per_cpu" | wc -l)))\$/2820/"; cat "$I/a/current_tracer" \
	"$I/a/tracing_on" "$I/a/trace_clock" "$I/a/available_tracers")"
expect_eq "instance per-CPU size" "1410" "$(cat "$I/a/per_cpu/cpu0/buffer_size_kb")"
expect_eq "the top still boots small" "7 (expanded: 1408)" "$(cat "$T/buffer_size_kb")"
expect_eq "instance trace is empty, header of nop" "# tracer: nop
# entries-in-buffer/entries-written: 0/0" "$(sed -n '1p;3p' "$I/a/trace" | sed 's/   #P:.*//')"
expect_eq "instance options: printk dest and marker copy off" "0 0 1 1" \
	"$(cat "$I/a/options/trace_printk_dest" "$I/a/options/copy_trace_marker" \
		"$T/options/trace_printk_dest" "$T/options/copy_trace_marker" | tr '\n' ' ' |
		sed 's/ $//')"
expect_eq "top-level-only options have no file in an instance" "" \
	"$(ls "$I/a/options" | grep -x -e record-cmd -e trace_printk -e printk-msg-only)"
expect_eq "top-level-only files are not in an instance" "" \
	"$(ls "$I/a" | grep -x -e README -e instances -e saved_cmdlines -e tracing_thresh \
		-e available_filter_functions -e max_graph_depth -e set_graph_function)"

if kt_available && [ -d "$KT/instances" ]; then
	kn=ut_cmp_$$
	if mkdir "$KT/instances/$kn" 2>/dev/null; then
		# names and modes of what exists in both
		k=$(cd "$KT/instances/$kn" && stat -c '%A %n' * options/* per_cpu/cpu0/* | sort -k2)
		u=$(cd "$I/a" && stat -c '%A %n' * options/* per_cpu/cpu0/* | sort -k2)
		printf '%s\n' "$k" | awk '{print $2}' | sort > "$UT_TMP/kn"
		printf '%s\n' "$u" | awk '{print $2}' | sort > "$UT_TMP/un"
		comm -12 "$UT_TMP/kn" "$UT_TMP/un" > "$UT_TMP/both"
		pick() { printf '%s\n' "$1" | awk 'NR == FNR { w[$1]; next } $2 in w' "$UT_TMP/both" -; }
		expect_eq "listing compared with a kernel instance (names and modes)" \
			"$(pick "$k")" "$(pick "$u")"
		expect_eq "every kernel instance file utrace has at the top exists in ours" "" \
			"$(for n in $(cd "$KT/instances/$kn" && ls); do
				[ -e "$T/$n" ] && [ ! -e "$I/a/$n" ] && echo "$n"
			done)"
		expect_eq "buffer sizes as a kernel instance's" \
			"$(cat "$KT/instances/$kn/buffer_size_kb" "$KT/instances/$kn/buffer_total_size_kb")" \
			"$(cat "$I/a/buffer_size_kb" "$I/a/buffer_total_size_kb")"
		expect_eq "trace_options as a kernel instance's" \
			"$(grep -v -e test_nop -e '^no*blk' "$KT/instances/$kn/trace_options")" \
			"$(grep -v -e test_nop -e demangle "$I/a/trace_options")"
		rmdir "$KT/instances/$kn"
	else
		skip "kernel instance comparison" "cannot mkdir a kernel instance"
	fi
else
	skip "kernel instance comparison" "no kernel tracefs instances"
fi

# ---- current_tracer in an instance ------------------------------------------------------------
echo function > "$I/a/current_tracer"
expect_eq "function in an instance (49_inst_route.sh traces into it)" "function nop" \
	"$(cat "$I/a/current_tracer") $(cat "$T/current_tracer")"
echo function_graph > "$I/a/current_tracer"
expect_eq "function_graph in an instance (45_inst_graph.sh graphs into it)" "function_graph nop" \
	"$(cat "$I/a/current_tracer") $(cat "$T/current_tracer")"
expect_write_err "unknown tracer in an instance: EINVAL" "Invalid argument" nosuch \
	"$I/a/current_tracer"
echo nop > "$I/a/current_tracer"
expect_eq "the instance keeps nop" "nop" "$(cat "$I/a/current_tracer")"

# ---- isolation ---------------------------------------------------------------------------------
mkdir "$I/b"
echo top-before > "$T/trace_marker"
echo 0 > "$I/a/tracing_on"
expect_eq "tracing_on is per instance" "0 1 1" \
	"$(cat "$I/a/tracing_on") $(cat "$I/b/tracing_on") $(cat "$T/tracing_on")"
expect_write_err "a marker into an instance that is off: EBADF" "Bad file descriptor" x \
	"$I/a/trace_marker"
echo 1 > "$I/a/tracing_on"
echo 100 > "$I/a/buffer_size_kb"
expect_eq "buffer_size_kb is per instance" "103 1410 7 (expanded: 1408)" \
	"$(cat "$I/a/buffer_size_kb") $(cat "$I/b/buffer_size_kb") $(cat "$T/buffer_size_kb")"
echo 0 > "$I/a/options/overwrite"
echo nomarkers > "$I/b/trace_options"
expect_eq "options are per instance" "0 1 1 | 1 0 1" \
	"$(cat "$I/a/options/overwrite") $(cat "$I/b/options/overwrite") $(cat "$T/options/overwrite") | $(cat "$I/a/options/markers") $(cat "$I/b/options/markers") $(cat "$T/options/markers")"
expect_eq "trace_options lists the instance's values" "nooverwrite overwrite" \
	"$(grep -x -e overwrite -e nooverwrite "$I/a/trace_options") $(grep -x -e overwrite \
		-e nooverwrite "$I/b/trace_options")"
expect_write_err "markers off in one instance: EINVAL there" "Invalid argument" x \
	"$I/b/trace_marker"
echo markers > "$I/b/trace_options"
echo counter > "$I/a/trace_clock"
expect_eq "trace_clock is per instance" "counter local local" \
	"$(sed 's/.*\[\([a-z0-9_-]*\)\].*/\1/' "$I/a/trace_clock") $(sed 's/.*\[\([a-z0-9_-]*\)\].*/\1/' \
		"$I/b/trace_clock") $(sed 's/.*\[\([a-z0-9_-]*\)\].*/\1/' "$T/trace_clock")"
all=$(cat "$T/tracing_cpumask")
echo 1 > "$I/a/tracing_cpumask"
expect_eq "tracing_cpumask is per instance" "1 $all $all" \
	"$(cat "$I/a/tracing_cpumask" | sed 's/^0*//') $(cat "$I/b/tracing_cpumask") $(cat "$T/tracing_cpumask")"
echo "$all" > "$I/a/tracing_cpumask"
echo only-a > "$I/a/trace_marker"
echo only-b > "$I/b/trace_marker"
echo only-top > "$T/trace_marker"
expect_eq "markers go to their instance only" "only-a|only-b|top-before only-top" \
	"$(markers "$I/a/trace" | tr '\n' ' ' | sed 's/ $//')|$(markers "$I/b/trace" | tr '\n' ' ' |
		sed 's/ $//')|$(markers "$T/trace" | tr '\n' ' ' | sed 's/ $//')"
expect_match "the counter clock prints counts in its instance" \
	'^ +<\.\.\.>-[0-9]+ +\[[0-9]{3}\] \.\.\.1\. +[0-9]+: tracing_mark_write: only-a$' \
	"$(cat "$I/a/trace")"
printf 'ABCDxyz' > "$I/b/trace_marker_raw"
expect_eq "trace_marker_raw into an instance" "1 0" \
	"$(grep -c 'buf: 78 79 7a' "$I/b/trace") $(grep -c 'buf: 78 79 7a' "$T/trace")"
# entries DIR: events readable in an instance (its per_cpu stats, summed)
entries() { cat "$1"/per_cpu/cpu*/stats 2>/dev/null | awk '/^entries:/ { n += $2 } END { print n + 0 }'; }
n=$(entries "$I/a")
expect_eq "per_cpu stats count the instance's events" "1" "$n"
# bounded: a reader the kill below misses must not hold the test up
timeout 60 cat "$I/b/trace_pipe" > "$UT_TMP/pipe_b" &
pp=$!
i=0
# (the reader's output file may not exist yet: count from cat, 0 then)
while [ $i -lt 400 ] && [ "$(cat "$UT_TMP/pipe_b" 2>/dev/null | grep -c only-b)" -eq 0 ]; do
	sleep 0.05; i=$((i + 1))
done
kill "$pp" 2>/dev/null; wait "$pp" 2>/dev/null
expect_eq "trace_pipe of an instance consumes its events" "1 0 1" \
	"$(grep -c only-b "$UT_TMP/pipe_b") $(markers "$I/b/trace" | grep -c only-b) $(markers \
		"$I/a/trace" | grep -c only-a)"
echo > "$I/a/trace"
expect_eq "clearing an instance's trace leaves the others" "0 top-before only-top" \
	"$(markers "$I/a/trace" | wc -l) $(markers "$T/trace" | tr '\n' ' ' | sed 's/ $//')"

# ---- pid lists per instance ----------------------------------------------------------------------
echo 1234 > "$I/a/set_ftrace_pid"
echo 77 > "$I/a/set_event_pid"
echo 4321 > "$I/b/set_ftrace_notrace_pid"
expect_eq "pid lists are per instance" "1234|77|no pid|no pid|4321|no pid|" \
	"$(cat "$I/a/set_ftrace_pid")|$(cat "$I/a/set_event_pid")|$(cat "$I/b/set_ftrace_pid")|$(cat \
		"$T/set_ftrace_pid")|$(cat "$I/b/set_ftrace_notrace_pid")|$(cat \
		"$T/set_ftrace_notrace_pid")|$(cat "$T/set_event_pid")"
expect_write_err "a bad pid in an instance: EINVAL" "Invalid argument" x "$I/a/set_ftrace_pid"
expect_eq "its error goes to the instance's error_log, the list stays" "1 0 1234" \
	"$(grep -c 'set_ftrace_pid: error: Invalid pid' "$I/a/error_log") $(grep -c 'Invalid pid' \
		"$T/error_log") $(cat "$I/a/set_ftrace_pid")"
echo > "$I/a/error_log"

# ---- error_log per instance ----------------------------------------------------------------------
/bin/echo nosuchfunction_xyz > "$T/set_ftrace_filter" 2>/dev/null
expect_eq "an error of the top goes to the top's error_log only" "1 0" \
	"$(grep -c 'No function matches' "$T/error_log") $(cat "$I/a/error_log" | wc -l)"
echo > "$I/a/error_log"
expect_eq "clearing an instance's error_log leaves the top's" "1" \
	"$(grep -c 'No function matches' "$T/error_log")"
echo > "$T/error_log"

# ---- function filters per instance ----------------------------------------------------------------
fake_sites "$UT_TMP/fake.out"
flags() { tail -1 "$UT_TMP/fake.out" | sed 's/^gen [0-9]* //'; }
echo 'fs_alpha*' > "$I/a/set_ftrace_filter"
echo fs_beta > "$I/a/set_ftrace_notrace"
expect_eq "set_ftrace_filter and set_ftrace_notrace are per instance" \
	"fs_alpha fs_alpha_two|fs_beta|#### all functions enabled ####|#### no functions disabled ####|#### all functions enabled ####" \
	"$(sort "$I/a/set_ftrace_filter" | tr '\n' ' ' | sed 's/ $//')|$(cat "$I/a/set_ftrace_notrace")|$(cat \
		"$T/set_ftrace_filter")|$(cat "$T/set_ftrace_notrace")|$(cat "$I/b/set_ftrace_filter")"
echo 0 > "$T/tracing_on"
echo 1 > "$T/tracing_on"
expect_eq "processes are told the top's filters only" \
	"filtered 0 fs_alpha=1 fs_alpha_two=1 fs_beta=1 fs_gamma=1 fs_delta=1" "$(flags)"
echo fs_gamma > "$T/set_ftrace_filter"
expect_eq "the top's filter leaves the instance's" "fs_alpha fs_alpha_two|fs_gamma" \
	"$(sort "$I/a/set_ftrace_filter" | tr '\n' ' ' | sed 's/ $//')|$(cat "$T/set_ftrace_filter")"
echo fs_beta:traceoff >> "$I/a/set_ftrace_filter"
expect_eq "a probe command in an instance is its own: listed there, not at the top" \
	"fs_beta:traceoff:unlimited|fs_gamma" \
	"$(grep ':traceoff' "$I/a/set_ftrace_filter")|$(cat "$T/set_ftrace_filter")"
echo '!fs_beta:traceoff' >> "$I/a/set_ftrace_filter"
expect_eq "... and removed there" "" "$(grep ':traceoff' "$I/a/set_ftrace_filter")"
echo > "$T/set_ftrace_filter"
echo > "$I/a/error_log"
expect_eq "the graph files stay at the top level" "" "$(ls "$I/a" | grep set_graph)"
exec 7>&-
wait "$FAKE" 2>/dev/null

# ---- EBUSY while a file is open ---------------------------------------------------------------------
exec 3< "$I/b/trace"
expect_eq "rmdir with an open file: EBUSY, the instance stays" "EBUSY b" \
	"$(err rmdir "$I/b") $(ls "$I" | grep -x b)"
exec 3<&-
chmod 600 "$I/b/trace"
expect_eq "rmdir once it is closed" "ok a" "$(err rmdir "$I/b") $(ls "$I")"
expect_eq "the removed instance's files are gone" "ENOENT" "$(err cat "$I/b/trace")"
mkdir "$I/b"
expect_eq "a new instance of the same name starts afresh" "0 1410 1 no pid -rw-r-----" \
	"$(markers "$I/b/trace" | wc -l) $(cat "$I/b/buffer_size_kb") $(cat "$I/b/options/markers") $(cat \
		"$I/b/set_ftrace_notrace_pid") $(stat -c %A "$I/b/trace")"
rmdir "$I/b"

# ---- 64 instances ----------------------------------------------------------------------------------
rmdir "$I/a"
made=0
for n in $(seq 1 64); do mkdir "$I/i$n" 2>/dev/null && made=$((made + 1)); done
expect_eq "64 instances" "64 64" "$made $(ls "$I" | wc -l)"
expect_eq "the 65th: ENOMEM" "ENOMEM" "$(err mkdir "$I/one-too-many")"
for n in 1 32 64; do echo "in-$n" > "$I/i$n/trace_marker"; done
expect_eq "each of them has its own rings" "in-1 in-32 in-64" \
	"$(markers "$I/i1/trace") $(markers "$I/i32/trace") $(markers "$I/i64/trace")"
gone=0
for n in $(seq 1 64); do rmdir "$I/i$n" 2>/dev/null && gone=$((gone + 1)); done
expect_eq "all removed" "64 " "$gone $(ls "$I")"

# ---- rmdir while a writer loops on the instance's trace_marker ------------------------------------------
# The shared area is a sparse memfd: its allocated blocks show what the rings use.
area_blocks() {
	for f in /proc/$UT_FS_PID/fd/*; do
		case $(readlink "$f") in "/memfd:utrace (deleted)") stat -L -c %b "$f" ;; esac
	done
}
b0=$(area_blocks)
mkdir "$I/w"
echo 4 > "$I/w/buffer_size_kb"
(
	while /bin/echo 0123456789abcdef0123456789abcdef > "$I/w/trace_marker" 2>/dev/null; do :; done
	echo stopped > "$UT_TMP/writer"
) 2>/dev/null &
wp=$!
i=0
while [ $i -lt 400 ] && [ "$(entries "$I/w")" -lt 50 ]; do
	sleep 0.05; i=$((i + 1))
done
b1=$(area_blocks)
i=0
while [ $i -lt 400 ] && ! rmdir "$I/w" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
expect_eq "rmdir while a writer loops succeeds" "" "$(ls "$I")"
i=0
while [ $i -lt 400 ] && [ ! -s "$UT_TMP/writer" ]; do sleep 0.05; i=$((i + 1)); done
kill "$wp" 2>/dev/null; wait "$wp" 2>/dev/null
expect_eq "the writer's next write failed, utracefs lives" "stopped alive" \
	"$(cat "$UT_TMP/writer") $(kill -0 "$UT_FS_PID" && echo alive)"
b2=$(area_blocks)
if [ -n "$b0" ] && [ "$b1" -gt "$b0" ] && [ "$b2" -le "$b0" ]; then
	pass "the instance's memory is given back ($b0 -> $b1 -> $b2 blocks)"
else
	fail "the instance's memory is given back" "blocks: before $b0, written $b1, removed $b2"
fi
expect_eq "the top's markers survived it all" "top-before only-top" \
	"$(markers "$T/trace" | tr '\n' ' ' | sed 's/ $//')"

# trace_printk_dest: one instance has it (the top at first); setting it moves it,
# clearing it gives it back to the top, the top's cannot be cleared, rmdir gives it
# back; a traced program's trace_printk() goes there (the kernel's table)
mkdir "$I/p" "$I/q"
dest() { cat "$T/options/trace_printk_dest" "$I/p/options/trace_printk_dest" \
	"$I/q/options/trace_printk_dest" | tr '\n' ' ' | sed 's/ $//'; }
expect_eq "trace_printk_dest: the top's at first" "1 0 0" "$(dest)"
echo 1 >"$I/p/options/trace_printk_dest"
expect_eq "trace_printk_dest: set in p, moved from the top" "0 1 0" "$(dest)"
echo 1 >"$I/q/options/trace_printk_dest"
expect_eq "trace_printk_dest: set in q, moved from p" "0 0 1" "$(dest)"
echo >"$T/trace"
traced "$PROGS/rt_calls" printk >/dev/null
expect_eq "trace_printk() goes to the instance holding trace_printk_dest" "0 0 2" \
	"$(grep -c 'hello 42 from printk\|a constant string' "$T/trace" "$I/p/trace" "$I/q/trace" |
		sed 's/.*://' | tr '\n' ' ' | sed 's/ $//')"
echo 0 >"$I/q/options/trace_printk_dest"
expect_eq "trace_printk_dest: cleared in q, back to the top" "1 0 0" "$(dest)"
expect_write_err "trace_printk_dest: the top's cannot be cleared" "Invalid argument" 0 \
	"$T/options/trace_printk_dest"
echo 0 >"$I/p/options/trace_printk_dest"
expect_eq "trace_printk_dest: clearing where it is not changes nothing" "1 0 0" "$(dest)"
echo 1 >"$I/p/options/trace_printk_dest"
rmdir "$I/p"
expect_eq "trace_printk_dest: rmdir of its instance gives it back to the top" "1 0" \
	"$(cat "$T/options/trace_printk_dest" "$I/q/options/trace_printk_dest" | tr '\n' ' ' |
		sed 's/ $//')"
echo >"$T/trace"
echo 1 >"$T/tracing_on" # rt_calls printk ends with tracing_off(), which stops the top
traced "$PROGS/rt_calls" printk >/dev/null
expect_eq "... and trace_printk() to the top's buffer again" 2 \
	"$(grep -c 'hello 42 from printk\|a constant string' "$T/trace")"
rmdir "$I/q"

ut_umount && pass "utracefs exits cleanly" || fail "utracefs exits cleanly"

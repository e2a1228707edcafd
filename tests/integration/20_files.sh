#!/bin/sh
# 20_files.sh - the settings files through a real mount: buffer sizes, free_buffer,
# tracing_cpumask, trace_options and options/, trace_clock, trace_marker(_raw),
# error_log, saved_cmdlines_size, events/ and lseek.  First what a fresh mount must
# read like (a freshly booted kernel); then the same scripts run against the
# kernel's tracefs and ours (tdiff), each ending with the writes that put the
# kernel back as it was.
#
# Known differences, left out of the scripts: a marker keeps 4046 bytes (kernel:
# 4054) and trace_marker_raw takes 4044 (kernel: 4064), as our events are larger.
. "$(dirname "$0")/lib.sh"

ut_mount
S=$UT_TMP/scripts
mkdir -p "$S"
ncpu=$(ls -d "$T"/per_cpu/cpu* | wc -l)

# ---- a fresh mount reads like a freshly booted kernel ----------------------------------
# (the kernel boots with 2 pages a CPU and grows to 1408 KB at the first tracer or
# size write; buffer_size.c models that, state.c must start unexpanded)
expect_eq "fresh buffer_size_kb" "7 (expanded: 1408)" "$(cat "$T/buffer_size_kb")"
expect_eq "fresh buffer_total_size_kb" "$((7 * ncpu)) (expanded: $((1408 * ncpu)))" \
	"$(cat "$T/buffer_total_size_kb")"
expect_eq "fresh per_cpu buffer_size_kb" "7" "$(cat "$T/per_cpu/cpu0/buffer_size_kb")"
expect_eq "fresh saved_cmdlines_size" "6552" "$(cat "$T/saved_cmdlines_size")"
expect_eq "fresh trace_clock" "[local] global counter uptime perf mono mono_raw boot tai x86-tsc" \
	"$(cat "$T/trace_clock")"
echo hello > "$T/trace_marker"
expect_eq "a marker does not expand the buffer" "7 (expanded: 1408)" "$(cat "$T/buffer_size_kb")"
echo nop > "$T/current_tracer"
expect_eq "setting a tracer expands the buffer" "1410" "$(cat "$T/buffer_size_kb")"
expect_match "README" "^utrace tracing mini-HOWTO:" "$(head -1 "$T/README")"
# what tools grep the README for (the ftrace selftests: full globs in set_ftrace_filter;
# a gid mount option, which utracefs does not have, so it must not be claimed)
expect_match "README: set_ftrace_filter accepts glob-matching-pattern" \
	'^[[:space:]]+accepts: .* glob-matching-pattern' "$(sed -n '/^  set_ftrace_filter/,/^  set_ftrace_notrace/p' "$T/README")"
expect_eq "README: the trigger format" "1" \
	"$(grep -cF 'Format: <function>:<trigger>[:count]' "$T/README")"
expect_eq "README: no [gid=<gid>] mount option" "0" "$(grep -cF '[gid=<gid>]' "$T/README")"

# ---- against the kernel ------------------------------------------------------------------
# per-tree saved values live in $S/saved (the kernel's run ends before ours starts)
cat > "$S/buffer_size" <<EOF
echo 1408 > \$T/buffer_size_kb
cat \$T/buffer_size_kb
echo 100 > \$T/buffer_size_kb
cat \$T/buffer_size_kb
cat \$T/buffer_total_size_kb
echo 0 > \$T/buffer_size_kb
echo abc > \$T/buffer_size_kb
echo ' 100' > \$T/buffer_size_kb
echo '100 ' > \$T/buffer_size_kb
echo 0x10 > \$T/buffer_size_kb
echo -1 > \$T/buffer_size_kb
echo 99999999999999999999 > \$T/buffer_size_kb
cat \$T/buffer_size_kb
echo 18014398509481984 > \$T/buffer_size_kb
cat \$T/buffer_size_kb
echo +50 > \$T/buffer_size_kb
cat \$T/buffer_size_kb
echo 1 > \$T/buffer_size_kb
cat \$T/buffer_size_kb
echo 010 > \$T/buffer_size_kb
cat \$T/buffer_size_kb
echo 1408 > \$T/buffer_size_kb
cat \$T/buffer_size_kb
cat \$T/buffer_total_size_kb
EOF
tdiff "buffer_size_kb rounding and errnos" "$S/buffer_size"

cat > "$S/per_cpu_size" <<'EOF'
echo 1408 > $T/buffer_size_kb
echo 100 > $T/per_cpu/cpu0/buffer_size_kb
cat $T/buffer_size_kb
cat $T/per_cpu/cpu0/buffer_size_kb
cat $T/buffer_total_size_kb
echo 0 > $T/per_cpu/cpu0/buffer_size_kb
echo abc > $T/per_cpu/cpu0/buffer_size_kb
cat $T/per_cpu/cpu0/buffer_size_kb
echo 1408 > $T/per_cpu/cpu0/buffer_size_kb
cat $T/buffer_size_kb
cat $T/buffer_total_size_kb
echo 1408 > $T/buffer_size_kb
EOF
tdiff "per_cpu buffer_size_kb and X" "$S/per_cpu_size"

cat > "$S/free_buffer" <<'EOF'
echo 1408 > $T/buffer_size_kb
cat $T/free_buffer
cat $T/buffer_size_kb
echo 1408 > $T/buffer_size_kb
echo whatever > $T/free_buffer
cat $T/buffer_size_kb
cat $T/tracing_on
echo 1 > $T/options/disable_on_free
echo 1408 > $T/buffer_size_kb
echo > $T/free_buffer
cat $T/buffer_size_kb
cat $T/tracing_on
echo 0 > $T/options/disable_on_free
echo 1 > $T/tracing_on
echo 1408 > $T/buffer_size_kb
EOF
tdiff "free_buffer and disable_on_free" "$S/free_buffer"

cat > "$S/cpumask" <<EOF
cat \$T/tracing_cpumask > $S/saved
echo 1 > \$T/tracing_cpumask
cat \$T/tracing_cpumask
echo ffffffff,ffffffff,ffffffff,ffffffff,ffffffff,ffffffff,ffffffff,ffffffff,1 > \$T/tracing_cpumask
echo 100000000 > \$T/tracing_cpumask
echo 0x1 > \$T/tracing_cpumask
echo g > \$T/tracing_cpumask
echo 1,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000 > \$T/tracing_cpumask
cat \$T/tracing_cpumask
echo ' 1 ' > \$T/tracing_cpumask
cat \$T/tracing_cpumask
echo ,1, > \$T/tracing_cpumask
cat \$T/tracing_cpumask
echo > \$T/tracing_cpumask
cat \$T/tracing_cpumask
echo 0000001 > \$T/tracing_cpumask
cat \$T/tracing_cpumask
cat $S/saved > \$T/tracing_cpumask
cat \$T/tracing_cpumask
EOF
tdiff "tracing_cpumask" "$S/cpumask"

cat > "$S/options" <<'EOF'
cat $T/trace_options
echo noprint-parent > $T/trace_options
cat $T/options/print-parent
echo print-parent > $T/trace_options
echo bogus > $T/trace_options
echo nobogus > $T/trace_options
echo '  sym-offset  ' > $T/trace_options
cat $T/options/sym-offset
echo 'print-parent sym-offset' > $T/trace_options
echo > $T/trace_options
echo nonoprint-parent > $T/trace_options
echo PRINT-PARENT > $T/trace_options
echo notrace_printk_dest > $T/trace_options
echo 0 > $T/options/trace_printk_dest
echo trace_printk_dest > $T/trace_options
echo test_nop_accept > $T/trace_options
cat $T/options/test_nop_accept
echo test_nop_refuse > $T/trace_options
echo notest_nop_refuse > $T/trace_options
echo 1 > $T/options/test_nop_refuse
echo 0 > $T/options/test_nop_refuse
echo func_stack_trace > $T/trace_options
echo 1 > $T/options/func_stack_trace
cat $T/options/func_stack_trace
echo 2 > $T/options/print-parent
echo abc > $T/options/print-parent
echo ' 1' > $T/options/print-parent
echo 0x1 > $T/options/print-parent
echo 99999999999999999999999 > $T/options/print-parent
echo +0 > $T/options/print-parent
cat $T/options/print-parent
echo 01 > $T/options/print-parent
echo 0 > $T/options/overwrite
cat $T/options/overwrite
echo record-tgid > $T/trace_options
cat $T/trace_options
echo 1 > $T/options/overwrite
echo 0 > $T/options/sym-offset
echo 0 > $T/options/test_nop_accept
echo 0 > $T/options/func_stack_trace
echo 0 > $T/options/record-tgid
cat $T/trace_options
EOF
tdiff "trace_options and options/" "$S/options"

cat > "$S/overwrite_keeps" <<'EOF'
echo > $T/trace
echo kept > $T/trace_marker
echo 0 > $T/options/overwrite
echo 1 > $T/options/overwrite
grep -c kept $T/trace
echo > $T/trace
EOF
tdiff "overwrite does not clear the buffer" "$S/overwrite_keeps"

# A resize keeps the newest events that fit (here all of them), in order.
cat > "$S/resize_keeps" <<'EOF'
echo 1408 > $T/buffer_size_kb
echo > $T/trace
for i in $(seq 1 50); do echo resized-$i > $T/trace_marker; done
echo 4 > $T/buffer_size_kb
grep -c resized- $T/trace
grep -o 'resized-[0-9]*' $T/trace | tr '\n' ' '
echo
sed -n 3p $T/trace
echo 1408 > $T/buffer_size_kb
echo > $T/trace
EOF
tdiff "a resize keeps the events" "$S/resize_keeps"

cat > "$S/clock" <<'EOF'
cat $T/trace_clock
echo global > $T/trace_clock
cat $T/trace_clock
echo '  counter  ' > $T/trace_clock
cat $T/trace_clock
echo bogus > $T/trace_clock
echo GLOBAL > $T/trace_clock
echo > $T/trace_clock
echo '[local]' > $T/trace_clock
echo x86-tsc > $T/trace_clock
echo mono_raw > $T/trace_clock
echo boot > $T/trace_clock
echo tai > $T/trace_clock
cat $T/trace_clock
echo uptime > $T/trace_clock
echo perf > $T/trace_clock
echo mono > $T/trace_clock
cat $T/trace_clock
echo hello > $T/trace_marker
echo mono > $T/trace_clock
grep -c hello $T/trace
echo local > $T/trace_clock
cat $T/trace_clock
EOF
tdiff "trace_clock" "$S/clock"

# The lines in `trace` are formatted by the reader's code (fs/output).
cat > "$S/marker" <<'EOF'
echo > $T/trace
echo hello world > $T/trace_marker
printf 'no newline' > $T/trace_marker
printf 'tab\there\n' > $T/trace_marker
echo 0 > $T/options/markers
echo refused > $T/trace_marker
printf '\001\000\000\000abcd' > $T/trace_marker_raw
echo 1 > $T/options/markers
echo 0 > $T/tracing_on
echo off > $T/trace_marker
printf '\001\000\000\000abcd' > $T/trace_marker_raw
echo 1 > $T/tracing_on
printf 'ab' > $T/trace_marker_raw
head -c 4065 /dev/zero > $T/trace_marker_raw
printf '\002\000\000\000wxyz' > $T/trace_marker_raw
cat $T/trace_marker
cat $T/trace_marker_raw
cat $T/trace
echo > $T/trace
EOF
tdiff "trace_marker and trace_marker_raw" "$S/marker"

cat > "$S/error_log" <<'EOF'
echo > $T/error_log
cat $T/error_log
echo something >> $T/error_log
cat $T/error_log
EOF
tdiff "error_log empty after O_TRUNC" "$S/error_log"

cat > "$S/cmdlines" <<'EOF'
echo 0 > $T/saved_cmdlines_size
echo abc > $T/saved_cmdlines_size
echo 1 > $T/saved_cmdlines_size
cat $T/saved_cmdlines_size
echo 6553 > $T/saved_cmdlines_size
cat $T/saved_cmdlines_size
echo 32768 > $T/saved_cmdlines_size
cat $T/saved_cmdlines_size
echo 32769 > $T/saved_cmdlines_size
echo 99999999999999999999999 > $T/saved_cmdlines_size
echo ' 5' > $T/saved_cmdlines_size
cat $T/saved_cmdlines_size
echo 128 > $T/saved_cmdlines_size
cat $T/saved_cmdlines_size
EOF
tdiff "saved_cmdlines_size" "$S/cmdlines"

cat > "$S/events" <<'EOF'
cat $T/events/header_page
cat $T/events/header_event
cat $T/events/ftrace/function/format
cat $T/events/ftrace/print/format
cat $T/events/ftrace/kernel_stack/format
cat $T/events/ftrace/raw_data/format
EOF
tdiff "events formats" "$S/events"

# lseek(SEEK_END): EINVAL where the kernel's file has seq_lseek (trace only when open
# for reading), ESPIPE on the files that are not seekable, else 0
: > "$S/seek"
for f in trace per_cpu/cpu0/trace error_log available_tracers trace_options trace_clock \
	saved_cmdlines saved_tgids set_event_pid events/ftrace/print/format trace_pipe \
	per_cpu/cpu0/trace_pipe_raw trace_marker trace_marker_raw saved_cmdlines_size \
	README current_tracer tracing_on buffer_size_kb per_cpu/cpu0/stats; do
	echo "$PROGS/file_ops seekend \$T/$f r; $PROGS/file_ops seekend \$T/$f w" >> "$S/seek"
done
tdiff "lseek SEEK_END as the kernel's" "$S/seek"
expect_eq "lseek SEEK_END on trace open for reading is EINVAL" "EINVAL" \
	"$("$PROGS/file_ops" seekend "$T/trace" r)"

# ---- function_graph's files ---------------------------------------------------------------
cat > "$S/graph_events" <<'EOF'
cat $T/events/ftrace/funcgraph_entry/format
cat $T/events/ftrace/funcgraph_exit/format
EOF
tdiff "funcgraph event formats" "$S/graph_events"

# tracing_thresh: microseconds, kstrtoul's rules; the script ends putting 0 back
cat > "$S/thresh" <<'EOF'
cat $T/tracing_thresh
echo 100 > $T/tracing_thresh
cat $T/tracing_thresh
echo abc > $T/tracing_thresh
echo -1 > $T/tracing_thresh
echo ' 5' > $T/tracing_thresh
echo 99999999999999999999 > $T/tracing_thresh
cat $T/tracing_thresh
echo +7 > $T/tracing_thresh
cat $T/tracing_thresh
echo 0 > $T/tracing_thresh
cat $T/tracing_thresh
EOF
tdiff "tracing_thresh" "$S/thresh"
expect_eq "tracing_thresh mode" "640" "$(stat -c %a "$T/tracing_thresh")"

# tracing_max_latency: the same rules, one per instance (this machine's kernel has
# no latency tracer, so no oracle: the values are the kernel's code's)
expect_eq "tracing_max_latency starts at 0" "0" "$(cat "$T/tracing_max_latency")"
echo 250 > "$T/tracing_max_latency"
expect_eq "tracing_max_latency reads back us" "250" "$(cat "$T/tracing_max_latency")"
expect_write_err "tracing_max_latency refuses abc" "Invalid argument" abc "$T/tracing_max_latency"
expect_write_err "tracing_max_latency: ERANGE" "Numerical result out of range" \
	99999999999999999999 "$T/tracing_max_latency"
expect_eq "a refused write changes nothing" "250" "$(cat "$T/tracing_max_latency")"
echo 18446744073709551 > "$T/tracing_max_latency" # kept in ns: * 1000 still fits
expect_eq "tracing_max_latency keeps large values" "18446744073709551" \
	"$(cat "$T/tracing_max_latency")"
mkdir "$T/instances/maxlat"
expect_eq "an instance's starts at 0" "0" "$(cat "$T/instances/maxlat/tracing_max_latency")"
echo 12 > "$T/instances/maxlat/tracing_max_latency"
expect_eq "an instance's is its own" "12" "$(cat "$T/instances/maxlat/tracing_max_latency")"
rmdir "$T/instances/maxlat"
echo 0 > "$T/tracing_max_latency"
expect_eq "tracing_max_latency back to 0" "0" "$(cat "$T/tracing_max_latency")"
expect_eq "tracing_max_latency mode" "640" "$(stat -c %a "$T/tracing_max_latency")"

expect_eq "available_tracers" "timerlat osnoise hwlat function_graph wakeup_dl wakeup_rt wakeup preemptirqsoff preemptoff irqsoff function nop" "$(cat "$T/available_tracers")"
expect_eq "max_graph_depth starts at 0" "0" "$(cat "$T/max_graph_depth")"
echo 3 > "$T/max_graph_depth"
expect_eq "max_graph_depth reads back" "3" "$(cat "$T/max_graph_depth")"
echo 4294967295 > "$T/max_graph_depth"
expect_eq "max_graph_depth is an int read with %d" "-1" "$(cat "$T/max_graph_depth")"
expect_write_err "max_graph_depth garbage" "Invalid argument" x "$T/max_graph_depth"
expect_write_err "max_graph_depth negative" "Invalid argument" -1 "$T/max_graph_depth"
echo 0 > "$T/max_graph_depth"

# the tracer's options show only while it is current, in the kernel's order
expect_eq "graph options hidden under nop" "" "$(grep -e funcgraph -e sleep-time "$T/trace_options")"
echo function_graph > "$T/current_tracer"
expect_eq "current_tracer function_graph" "function_graph" "$(cat "$T/current_tracer")"
expect_eq "graph options and defaults" \
	"nofuncgraph-overrun funcgraph-cpu funcgraph-overhead nofuncgraph-proc funcgraph-duration nofuncgraph-abstime funcgraph-irqs nofuncgraph-tail nofuncgraph-retval nofuncgraph-retval-hex nofuncgraph-retaddr sleep-time graph-time demangle" \
	"$(tail -14 "$T/trace_options" | tr '\n' ' ' | sed 's/ $//')"
for o in funcgraph-overrun funcgraph-tail funcgraph-retaddr sleep-time graph-time; do
	[ -e "$T/options/$o" ] || fail "options/$o exists"
done
echo funcgraph-proc > "$T/trace_options"
expect_eq "options/funcgraph-proc set through trace_options" "1" "$(cat "$T/options/funcgraph-proc")"
echo nofuncgraph-proc > "$T/trace_options"
expect_eq "empty function_graph trace" "# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |" "$(cat "$T/trace")"
echo funcgraph-abstime > "$T/trace_options"
echo funcgraph-proc > "$T/trace_options"
expect_eq "header with abstime and proc" "# tracer: function_graph
#
#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS
#      |          |     |    |           |   |                     |   |   |   |" "$(cat "$T/trace")"
echo nofuncgraph-abstime > "$T/trace_options"
echo nofuncgraph-proc > "$T/trace_options"
# a marker inside the graph is a comment
echo "graph note" > "$T/trace_marker"
expect_match "marker as a graph comment" '^ +[0-9]+\)               \|  /\* graph note \*/$' \
	"$(tail -1 "$T/trace")"
echo nop > "$T/current_tracer"
expect_eq "graph options hidden again" "" "$(grep -e funcgraph -e sleep-time "$T/trace_options")"

ut_umount || fail "utracefs exited cleanly"

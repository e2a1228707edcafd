#!/bin/sh
# 10_core.sh - the core of utracefs through a real mount: the tree and its modes,
# the errno of what tracefs refuses, current_tracer and tracing_on against the
# kernel, the daemon's life cycle (socket, unmount, daemon mode, bad usage).
. "$(dirname "$0")/lib.sh"

# write_err NAME ERRTEXT VALUE FILE: like lib.sh's expect_write_err, but through
# coreutils' echo, which names the errno (dash's builtin only says "I/O error").
write_err() {
	out=$( (/bin/echo "$3" > "$4") 2>&1 ); rc=$?
	if [ $rc -ne 0 ] && printf '%s' "$out" | grep -q "$2"; then pass "$1"; else
		fail "$1" "exit $rc, stderr: $out"
	fi
}

ut_mount

# ---- the tree -----------------------------------------------------------------------
# every file of the issue, with the kernel's permissions
files="README available_tracers current_tracer tracing_on trace trace_pipe trace_options
options tracing_cpumask buffer_size_kb buffer_total_size_kb free_buffer trace_clock
trace_marker trace_marker_raw saved_cmdlines saved_cmdlines_size saved_tgids error_log
per_cpu per_cpu/cpu0 per_cpu/cpu0/trace per_cpu/cpu0/trace_pipe per_cpu/cpu0/trace_pipe_raw
per_cpu/cpu0/stats per_cpu/cpu0/buffer_size_kb events events/header_page events/header_event
events/ftrace events/ftrace/function events/ftrace/function/format
events/ftrace/print/format events/ftrace/kernel_stack/format events/ftrace/raw_data/format"
missing=""
for f in $files; do [ -e "$T/$f" ] || missing="$missing $f"; done
expect_eq "tree: every file exists" "" "$missing"

ncpu=$(ls "$T/per_cpu" | wc -l)
possible=$(sed 's/.*-//' /sys/devices/system/cpu/possible)
expect_eq "per_cpu has a cpuN per possible CPU" "$((possible + 1))" "$ncpu"
expect_eq "per_cpu/cpuN names" "$(seq -f 'cpu%g' 0 "$possible")" "$(ls "$T/per_cpu")"
expect_eq "files have size 0 like tracefs" "0" "$(stat -c %s "$T/README")"
expect_eq "owned by the mounting user" "$(id -u):$(id -g)" "$(stat -c %u:%g "$T/trace")"
expect_eq "root is private" "drwx------" "$(stat -c %A "$T")"
expect_match "mounted as utracefs" "^utracefs on $T type fuse.utracefs" "$(mount)"

cat > "$UT_TMP/modes" <<EOS
cd \$T && stat -c '%A %n' $(echo $files | tr '\n' ' ')
cd \$T && stat -c '%A %n' options/overwrite options/print-parent options/func_stack_trace per_cpu/cpu1 per_cpu/cpu1/stats
EOS
tdiff "modes as the kernel's" "$UT_TMP/modes"

# defaults of a fresh mount, as this machine's kernel (nop, on).  The buffer's
# boot state ("7 (expanded: 1408)") is compared in 20_files: the kernel's here
# may have been expanded by earlier tests.
cat > "$UT_TMP/defaults" <<'EOS'
cat $T/current_tracer
cat $T/tracing_on
cat $T/saved_cmdlines_size
EOS
tdiff "defaults as the kernel's" "$UT_TMP/defaults"

# ---- what tracefs refuses -------------------------------------------------------------
cat > "$UT_TMP/refuse" <<'EOS'
touch $T/newfile
mkdir $T/newdir
mkdir $T/per_cpu/newdir
rm $T/README
rmdir $T/options
mv $T/README $T/README2
ln -s README $T/link
ln $T/README $T/hardlink
mknod $T/fifo p
echo x > $T/available_tracers
echo x > $T/README
truncate -s 0 $T/tracing_on
cat $T/tracing_on
chmod 600 $T/README
stat -c %A $T/README
chmod 440 $T/README
stat -c %A $T/README
EOS
tdiff "refused operations give the kernel's errno" "$UT_TMP/refuse"

# ---- current_tracer -----------------------------------------------------------------
expect_match "available_tracers lists nop" "(^| )nop$" "$(cat "$T/available_tracers")"
expect_eq "available_tracers: one line, single spaces" "" \
	"$(cat "$T/available_tracers" | grep -v '^[a-z_]\+\( [a-z_]\+\)*$')"
expect_eq "current_tracer starts as nop" "nop" "$(cat "$T/current_tracer")"
write_err "unknown tracer: EINVAL" "Invalid argument" bogus "$T/current_tracer"
expect_eq "unknown tracer leaves the tracer" "nop" "$(cat "$T/current_tracer")"

cat > "$UT_TMP/tracer" <<'EOS'
echo nop > $T/current_tracer
cat $T/current_tracer
echo '  nop  ' > $T/current_tracer
echo > $T/current_tracer
echo bogus > $T/current_tracer
echo 'nop x' > $T/current_tracer
printf nop > $T/current_tracer
cat $T/current_tracer
EOS
tdiff "current_tracer parsing" "$UT_TMP/tracer"

if grep -qw function "$T/available_tracers"; then
	echo function > "$T/current_tracer"
	expect_eq "switch to function" "function" "$(cat "$T/current_tracer")"
	echo nop > "$T/current_tracer"
	expect_eq "switch back to nop" "nop" "$(cat "$T/current_tracer")"
	exec 3<"$T/trace_pipe"
	write_err "EBUSY while trace_pipe is open" "Device or resource busy" function \
		"$T/current_tracer"
	echo nop > "$T/current_tracer"
	expect_eq "same tracer while trace_pipe is open: no error" "0" "$?"
	exec 3<&-
	sleep 0.1
	echo function > "$T/current_tracer" && echo nop > "$T/current_tracer"
	expect_eq "switching works again once trace_pipe is closed" "0" "$?"
else
	skip "function tracer switches" "no function tracer yet"
fi

# ---- tracing_on ------------------------------------------------------------------------
cat > "$UT_TMP/tracing_on" <<'EOS'
cat $T/tracing_on
echo 5 > $T/tracing_on
cat $T/tracing_on
echo 0 > $T/tracing_on
cat $T/tracing_on
echo +1 > $T/tracing_on
cat $T/tracing_on
echo ' 0' > $T/tracing_on
echo -1 > $T/tracing_on
echo 0x0 > $T/tracing_on
echo '0 ' > $T/tracing_on
echo abc > $T/tracing_on
echo > $T/tracing_on
printf '0\n\n' > $T/tracing_on
cat $T/tracing_on
echo 99999999999999999999999 > $T/tracing_on
echo 000000000000000000000000000000000000000000000000000000000000000 > $T/tracing_on
cat $T/tracing_on
printf 1 > $T/tracing_on
cat $T/tracing_on
echo 1 > $T/tracing_on
EOS
tdiff "tracing_on as the kernel's" "$UT_TMP/tracing_on"

# ---- a traced process registers ---------------------------------------------------------
if [ -f "$LIBUTRACE" ] && [ -x "$PROGS/e2e_calls" ]; then
	traced "$PROGS/e2e_calls" -n 1 > /dev/null
	expect_match "a traced process registers its tasks (saved_cmdlines)" "^[0-9]+ e2e_calls$" \
		"$(cat "$T/saved_cmdlines")"
else
	skip "a traced process registers" "no runtime or test program built"
fi

# ---- life cycle -------------------------------------------------------------------------
sock=$T.sock
[ -S "$sock" ] && pass "control socket next to the mount" || fail "control socket next to the mount"
expect_eq "socket is the owner's only" "srw-------" "$(stat -c %A "$sock" 2>&1)"
ut_umount; rc=$?
expect_eq "fusermount3 -u ends utracefs cleanly" "0" "$rc"
[ ! -e "$sock" ] && pass "unmount removes the socket" || fail "unmount removes the socket"

"$UTRACEFS" >/dev/null 2>&1
expect_eq "no mount point: usage, exit 2" "2" "$?"
"$UTRACEFS" -z "$T" >/dev/null 2>&1
expect_eq "bad option: exit 2" "2" "$?"
"$UTRACEFS" "$UT_TMP/nonexistent" >/dev/null 2>&1
expect_eq "missing mount point: exit 1" "1" "$?"

# daemon mode: the tree and the socket are there when the command returns
"$UTRACEFS" "$T" 2>"$UT_TMP/daemon.log"; rc=$?
expect_eq "daemon mode returns 0" "0" "$rc"
expect_eq "daemon mode: mounted when it returns" "nop" "$(cat "$T/current_tracer" 2>&1)"
[ -S "$sock" ] && pass "daemon mode: socket up when it returns" || fail "daemon mode: socket up"
fusermount3 -u "$T"
i=0; while [ -e "$sock" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
[ ! -e "$sock" ] && pass "daemon ends at unmount" || fail "daemon ends at unmount"

# SIGTERM: clean end too
"$UTRACEFS" -f "$T" 2>>"$UT_TMP/daemon.log" &
UT_FS_PID=$!
i=0; while [ ! -e "$T/trace" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM "$UT_FS_PID"; wait "$UT_FS_PID"; rc=$?
UT_FS_PID=
expect_eq "SIGTERM: exit 0" "0" "$rc"
[ ! -e "$sock" ] && pass "SIGTERM: socket removed" || fail "SIGTERM: socket removed"
mountpoint -q "$T" && fail "SIGTERM: unmounted" || pass "SIGTERM: unmounted"

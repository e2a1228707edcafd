# tests/integration/lib.sh - sourced by every integration test.
#
# UT_BUILD is the build directory (set by tests/run.sh).  ut_mount starts utracefs
# on a fresh mount point and exports T (the mount) and UTRACE_TRACING (so that the
# runtime and the CLI find it); everything is unmounted and stopped on exit.
# Results are lines "PASS: name", "FAIL: name" (with the difference) or "SKIP: name".
set -u
: "${UT_BUILD:?run through tests/run.sh or set UT_BUILD}"
: "${UT_TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
UTRACEFS=$UT_BUILD/bin/utracefs
UTRACE=$UT_BUILD/bin/utrace
LIBUTRACE=$UT_BUILD/lib/libutrace.so
PROGS=$UT_BUILD/tests/progs
UT_TMP=$(mktemp -d /tmp/utrace-it.XXXXXX)
UT_FS_PID=
UT_KT_MOUNTED=
UT_KT_LOCKED=
KT=/sys/kernel/tracing

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /'; return 0; }
skip() { echo "SKIP: $1${2:+ ($2)}"; }

# expect_eq NAME EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else
		fail "$1" "$(printf 'expected:\n%s\ngot:\n%s' "$2" "$3" | head -40)"
	fi
}
# expect_match NAME REGEX TEXT  (grep -E on the text)
expect_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then pass "$1"; else
		fail "$1" "$(printf 'no line matches /%s/ in:\n%s' "$2" "$3" | head -40)"
	fi
}
# expect_write_err NAME ERRTEXT VALUE FILE: "echo VALUE > FILE" must fail with
# strerror text ERRTEXT (e.g. "Invalid argument").  /bin/echo, because dash's
# built-in echo reports every failed write as "I/O error".
expect_write_err() {
	out=$( (/bin/echo "$3" > "$4") 2>&1 ); rc=$?
	if [ $rc -ne 0 ] && printf '%s' "$out" | grep -q "$2"; then pass "$1"; else
		fail "$1" "exit $rc, stderr: $out"
	fi
}

ut_cleanup() {
	for p in $(jobs -p); do kill -KILL "$p" 2>/dev/null; done
	if [ -n "${T:-}" ] && mountpoint -q "$T" 2>/dev/null; then
		fusermount3 -u "$T" 2>/dev/null || umount -l "$T" 2>/dev/null
	fi
	if [ -n "$UT_FS_PID" ]; then
		kill "$UT_FS_PID" 2>/dev/null; wait "$UT_FS_PID" 2>/dev/null
	fi
	kt_restore
	rm -rf "$UT_TMP"
}
trap ut_cleanup EXIT
trap 'exit 130' INT TERM

# ut_mount: start utracefs in the foreground (background job) and wait for the mount.
ut_mount() {
	T=$UT_TMP/tracing
	mkdir -p "$T"
	export UTRACE_TRACING=$T
	"$UTRACEFS" -f "$T" 2>"$UT_TMP/utracefs.log" &
	UT_FS_PID=$!
	i=0
	while [ $i -lt 100 ]; do
		[ -e "$T/trace" ] && return 0
		kill -0 "$UT_FS_PID" 2>/dev/null || break
		sleep 0.05; i=$((i + 1))
	done
	echo "FAIL: utracefs did not mount"; cat "$UT_TMP/utracefs.log"
	exit 1
}
# ut_umount: unmount and check utracefs exited cleanly.
ut_umount() {
	fusermount3 -u "$T" && wait "$UT_FS_PID"; rc=$?
	UT_FS_PID=
	return $rc
}

# fake_sites OUT: start tests/progs/fake_sites (it registers like the runtime,
# sends the sites of five of its functions and prints its section of the
# selection memfd to OUT at every generation), its input on descriptor 7, FAKE
# its pid; wait until its functions are listed.
fake_sites() {
	mkfifo "$UT_TMP/fake.in"
	"$PROGS/fake_sites" <"$UT_TMP/fake.in" >"$1" 2>&1 &
	FAKE=$!
	exec 7>"$UT_TMP/fake.in"
	i=0
	while [ $i -lt 200 ] && [ "$(wc -l <"$T/available_filter_functions")" -lt 5 ]; do
		sleep 0.05; i=$((i + 1))
	done
}

# traced PROG ARGS...: run a program with the runtime preloaded.
traced() { LD_PRELOAD=$LIBUTRACE "$@"; }
# wait_listed_event SYSTEM:EVENT [TRIES]: until available_events lists it (TRIES * 20 ms, 250
# unless given): utracefs enters a program's events as it reads the program's socket.
wait_listed_event() {
	i=0
	while [ $i -lt "${2:-250}" ] && ! grep -qx "$1" "$T/available_events"; do
		sleep 0.02; i=$((i + 1))
	done
}
# start_driven PROG NAME FD: start the traced test program PROG (-l: it reads commands)
# from the fifo $UT_TMP/NAME.in, held open on FD here, writing to $UT_TMP/NAME.out, and
# wait until it has said its pid (answers are read with ask).
start_driven() {
	mkfifo "$UT_TMP/$2.in"
	LD_PRELOAD=$LIBUTRACE "$PROGS/$1" -l <"$UT_TMP/$2.in" >"$UT_TMP/$2.out" 2>&1 &
	eval "exec $3>\"$UT_TMP/$2.in\""
	i=0
	while [ $i -lt 1000 ] && ! grep -q '^pid ' "$UT_TMP/$2.out"; do sleep 0.02; i=$((i + 1)); done
}

# driven_pid NAME, driven_worker NAME: the process id and the worker's thread id a
# program started by start_driven printed ("pid N worker M")
driven_pid() { sed -n 's/^pid \([0-9]*\) .*/\1/p' "$UT_TMP/$1.out"; }
driven_worker() { sed -n 's/^pid [0-9]* worker \([0-9]*\)/\1/p' "$UT_TMP/$1.out"; }
# wait_listed FUNC: until available_filter_functions lists FUNC (at most 100 s)
wait_listed() {
	i=0
	while [ $i -lt 2000 ] && ! grep -q "^$1\$" "$T/available_filter_functions"; do
		sleep 0.05; i=$((i + 1))
	done
}

# ask OUT FD CMD...: send one command line on descriptor FD to a test program that
# answers each line on its output file OUT, ending the answer with a line "done";
# print the answer (waits up to 5 s).
ask() {
	o=$1 fd=$2; shift 2
	n=$(grep -c '^done$' "$o")
	echo "$*" >&"$fd"
	i=0
	while [ $i -lt 250 ] && [ "$(grep -c '^done$' "$o")" -le "$n" ]; do
		sleep 0.02; i=$((i + 1))
	done
	awk -v n="$n" '/^done$/ { c++; next } c == n' "$o"
}

# The kernel's tracefs as an oracle.  kt_available mounts it if needed (and
# kt_restore unmounts it again); returns 1 when there is no kernel tracefs.
# Two test runs on one machine (a CI job beside another) share that tracefs: a
# script holds a lock on it (descriptor 6) from its first use to its end, so that
# no other mounts, unmounts or changes it meanwhile; one that cannot have it within
# 10 minutes (a leftover process holding it) skips its comparisons.
kt_available() {
	[ "$(id -u)" -eq 0 ] || return 1
	if [ -z "$UT_KT_LOCKED" ]; then
		exec 6>>/tmp/utrace-kernel-tracefs.lock
		flock -w 600 6 || { exec 6>&-; return 1; }
		UT_KT_LOCKED=1
	fi
	if [ ! -e "$KT/trace" ]; then
		grep -qw tracefs /proc/filesystems || return 1
		mount -t tracefs nodev "$KT" 2>/dev/null || return 1
		UT_KT_MOUNTED=1
	fi
	[ -w "$KT/trace_marker" ]
}
# Put back what the tests may have changed, then unmount if we mounted it.
kt_restore() {
	if [ -e "$KT/trace" ]; then
		echo nop > "$KT/current_tracer" 2>/dev/null
		echo 1 > "$KT/tracing_on" 2>/dev/null
		echo > "$KT/trace" 2>/dev/null
		if [ -n "$UT_KT_MOUNTED" ]; then umount "$KT" 2>/dev/null; UT_KT_MOUNTED=; fi
	fi
	if [ -n "$UT_KT_LOCKED" ]; then exec 6>&-; UT_KT_LOCKED=; fi
}
# tdiff NAME SCRIPT: run the script against the kernel and against $T with the
# shared tracefs-diff, normalising time stamps, pids and cpus.  tracefs-diff keeps
# the padding after a pid, which depends on how many digits the pid has; a
# difference in that padding alone is not a difference.  Nor is the kernel's
# need-resched flag ('n', 'N', 'p' in the second column of the flags after the
# CPU): it says whether the kernel happened to want to reschedule at that instant,
# which a user-space writer never sees.  SKIP without a kernel tracefs.
tdiff() {
	if ! kt_available; then skip "$1" "no kernel tracefs"; return; fi
	out=$("$UT_TOP/../shared/tools/tracefs-diff" -n "$2" "$KT" "$T" 2>&1); rc=$?
	if [ $rc -ne 0 ]; then
		body=$(printf '%s\n' "$out" | sed '1,2d') # past the ---/+++ lines
		norm='s/-PID +\[/-PID [/; s/(\[CPU\] .)[nNp.]/\1./'
		minus=$(printf '%s\n' "$body" | sed -n 's/^-//p' | sed -E "$norm")
		plus=$(printf '%s\n' "$body" | sed -n 's/^+//p' | sed -E "$norm")
		[ "$minus" = "$plus" ] && rc=0
	fi
	if [ $rc -eq 0 ]; then pass "$1"; else fail "$1" "$out"; fi
}

#!/bin/sh
# examples/demo.sh BUILD_DIR - what `make run` shows: mount utracefs on a private
# directory, trace examples/hello with the function tracer through the tracefs
# files (echo and cat, as with ftrace), then examples/threads with `utrace
# record`, and unmount.  Everything it mounts or creates is removed on exit,
# whether it succeeds, fails or is interrupted.
set -u
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: sh examples/demo.sh BUILD_DIR (a directory built by make)" >&2
	exit 2
fi
B=$(cd "$1" && pwd)
LIB=$B/lib/libutrace.so
PATH=$B/bin:$PATH # the utrace of this build
for f in "$B/bin/utrace" "$B/bin/utracefs" "$LIB" "$B/examples/hello" "$B/examples/threads"; do
	if [ ! -e "$f" ]; then echo "demo: $f is missing: run make first" >&2; exit 1; fi
done

work=$(mktemp -d /tmp/utrace-demo.XXXXXX) || exit 1
# A private mount: the demo never touches a mount of yours.  Traced programs and
# utrace find the mount through UTRACE_TRACING.
T=$work/tracing
export UTRACE_TRACING=$T

cleanup() {
	rc=$?
	trap - EXIT INT TERM HUP
	if grep -q " $T " /proc/self/mountinfo 2>/dev/null; then
		utrace umount "$T" >/dev/null 2>&1 || fusermount3 -u -z "$T" 2>/dev/null
	fi
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# step 'COMMAND': show it as typed (with $T for the mount), then run it; stop on failure.
if [ -t 1 ]; then bold=$(printf '\033[1m') plain=$(printf '\033[0m'); else bold= plain=; fi
step() {
	printf '\n%s$ %s%s\n' "$bold" "$1" "$plain"
	eval "$1" || { rc=$?; echo "demo: failed (exit status $rc): $1" >&2; exit 1; }
}

echo "utrace demo: ftrace for user-space programs"
echo "B=$B (the build)"
echo "T=$T (the mount; UTRACE_TRACING=\$T tells the runtime and utrace where it is)"
echo "LIB=$LIB (the runtime)"

step 'utrace mount "$T"'
step 'cat "$T/available_tracers"'
step 'echo function > "$T/current_tracer"'
step 'LD_PRELOAD="$LIB" "$B/examples/hello"'
step 'echo 0 > "$T/tracing_on"'
step 'cat "$T/trace"'
# The demo is only worth something if the trace shows the program's functions.
if ! grep -q 'sum_of_squares' "$T/trace"; then
	echo "demo: the trace shows no function of examples/hello" >&2
	exit 1
fi
step 'echo nop > "$T/current_tracer"; echo 1 > "$T/tracing_on"'

# record saves utrace.txt in the current directory: the demo's own.
cd "$work" || exit 1
step 'utrace record -p function -- "$B/examples/threads"'
step 'utrace report'
step 'utrace umount "$T"'
echo
echo "demo: done.  Read README.md and docs/user-guide.md for more."

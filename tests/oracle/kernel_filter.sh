#!/bin/sh
# tests/oracle/kernel_filter.sh - what the kernel's event filter parser answers to
# each line of tests/oracle/kernel_filter.in written to sched/sched_switch/filter of
# a fresh instance: the write's errno, the filter file read back (F|) and the
# instance's error_log (E|, time stamp removed).  The output, kept in
# tests/oracle/kernel_filter.out, is the specification utrace's event filters are
# checked against (issue 13, item 4).  Needs root and a kernel tracefs; holds the
# test suite's lock on it (tests/integration/lib.sh) while it runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
exec 6>>/tmp/utrace-kernel-tracefs.lock
flock -w 600 6 || exit 1
K=/sys/kernel/tracing
mounted=0
if [ ! -e "$K/trace" ]; then mount -t tracefs nodev "$K" || exit 1; mounted=1; fi
I=$K/instances/utrace_oracle_$$
mkdir "$I" || exit 1
F=$I/events/sched/sched_switch/filter
err=$(mktemp)
echo "# Linux $(uname -r)"
while IFS= read -r f; do
	echo >"$I/error_log"
	/bin/echo "$f" >"$F" 2>"$err"; rc=$?
	printf '=== [%s] rc=%s %s\n' "$f" "$rc" "$(sed 's/.*: //' "$err")"
	sed 's/^/F|/' "$F"
	sed -e 's/^\[ *[0-9.]*\]/[TS]/' -e 's/^/E|/' "$I/error_log"
done <"$here/kernel_filter.in"
rm -f "$err"
rmdir "$I"
[ "$mounted" = 1 ] && umount "$K"
exit 0

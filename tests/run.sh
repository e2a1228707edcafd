#!/bin/sh
# tests/run.sh BUILD_DIR... - run the unit tests (cmocka) and the integration tests
# (shell, through a real utracefs mount) against each build directory, and end with
# the line "N passed, N failed".  Integration scripts print PASS:/FAIL:/SKIP: lines.
# A build directory with libFuzzer harnesses (BUILD/fuzz/fuzz_NAME, make fuzz-build)
# replays each one's corpus tests/fuzz/corpus/NAME once.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0 skip=0 failed=""
log=$(mktemp -d /tmp/utrace-test.XXXXXX)
# ThreadSanitizer builds (make tsan-build) write their reports here, whichever
# process made them (the daemon, the CLI, a unit test): each fails the test that ran.
TSAN_OPTIONS="log_path=$log/tsan suppressions=$top/tests/tsan.supp ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS

# tsan_reports NAME: count the reports the last test left as one failure of NAME.
tsan_reports() {
	set -- "$1" "$log"/tsan.*
	[ -e "$2" ] || return 0
	n=$1; shift
	cat "$@"
	rm -f "$@"
	echo "FAIL: $n: ThreadSanitizer reports"
	fail=$((fail + 1)) failed="$failed $n"
}

count_cmocka() { # NAME LOGFILE RC
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$2" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$2" | tail -1)
	p=${p:-0} f=${f:-0}
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi # crashed before its summary
	pass=$((pass + p)) fail=$((fail + f))
	[ "$f" -gt 0 ] && failed="$failed $1"
}

for b in "$@"; do
	for t in "$top/$b"/tests/test_*; do
		[ -x "$t" ] || continue
		name="$b/$(basename "$t")"
		echo "== $name"
		timeout 300 "$t" >"$log/out" 2>&1; rc=$?
		cat "$log/out"
		count_cmocka "$name" "$log/out" "$rc"
		tsan_reports "$name"
	done
	# the fuzzing build (make fuzz-build): every corpus input once, as a regression test
	for f in "$top/$b"/fuzz/fuzz_*; do
		[ -x "$f" ] || continue
		n=${f##*/fuzz_} name="$b/fuzz_$n"
		echo "== $name"
		set -- "$top/tests/fuzz/corpus/$n"/*
		timeout 300 "$f" -runs=1 "$@" >"$log/out" 2>&1; rc=$?
		if [ "$rc" -eq 0 ]; then
			echo "PASS: $name replays its $# inputs"; pass=$((pass + 1))
		else
			grep -E '^(==[0-9]+==ERROR|SUMMARY|Running: )' "$log/out" | tail -3
			echo "FAIL: $name exited with $rc"; fail=$((fail + 1)); failed="$failed $name"
		fi
	done
	[ -x "$top/$b/bin/utracefs" ] || continue # a build of the harnesses only
	for s in "$top"/tests/integration/[0-9]*.sh; do
		[ -f "$s" ] || continue
		name="$b/$(basename "$s" .sh)"
		echo "== $name"
		UT_BUILD="$top/$b" UT_TOP="$top" timeout 600 sh "$s" >"$log/out" 2>&1; rc=$?
		cat "$log/out"
		p=$(grep -c '^PASS: ' "$log/out") f=$(grep -c '^FAIL: ' "$log/out") k=$(grep -c '^SKIP: ' "$log/out")
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			echo "FAIL: $name exited with $rc"; f=1
		fi
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + k))
		[ "$f" -gt 0 ] && failed="$failed $name"
		tsan_reports "$name"
	done
done
rm -rf "$log"
[ -n "$failed" ] && echo "failing:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

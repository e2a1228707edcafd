#!/bin/sh
# tests/run.sh BUILD_DIR... - run the unit tests (cmocka) and the integration tests
# (shell, through a real utracefs mount) against each build directory, and end with
# the line "N passed, N failed".  Integration scripts print PASS:/FAIL:/SKIP: lines.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0 skip=0 failed=""
log=$(mktemp -d /tmp/utrace-test.XXXXXX)

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
	done
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
	done
done
rm -rf "$log"
[ -n "$failed" ] && echo "failing:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

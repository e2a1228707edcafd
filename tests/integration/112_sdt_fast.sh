#!/bin/sh
# 112_sdt_fast.sh - what an enabled SDT probe leaves alone and reads right, through the
# mount with echo and cat (tests/progs/sdt_fast.c), as it comes and under
# UTRACE_TEST_XOL=trap:
#  - a loop built at -O2 holds sixteen vector values (ymm with AVX) and six general
#    registers across ut_fast:keep: none changes at any hit;
#  - every hit is in the trace, in order, with its arguments: a register (the
#    iteration), memory on the stack (a volatile local, 3 * i) and a global by %rip
#    (1000 + 7 * i);
#  - ut_fast:bad, whose note (written by hand) points at address 16 and into the
#    kernel's half: both read as 0, the program goes on, the register after them right.
. "$(dirname "$0")/lib.sh"

P=$PROGS/sdt_fast
N=2000
# hits PID: "KEEP BAD" - keep lines, and those not arg1 = 0, 1, ... with arg2 = 3 * arg1
# and arg3 = 1000 + 7 * arg1
hits() {
	grep "sdt_fast-$1 .* keep: " "$T/trace" | awk '
		{ for (f = 1; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] } }
		{ bad += v["arg1"] != n || v["arg2"] != 3 * n || v["arg3"] != 1000 + 7 * n; n++ }
		END { print n + 0, bad + 0 }'
}

ut_mount
traced "$P" list
wait_listed_event ut_fast:keep
expect_eq "both probes are listed" "ut_fast:bad
ut_fast:keep" "$(grep '^ut_fast:' "$T/available_events" | sort)"
echo 1 > "$T/events/ut_fast/enable"

for mode in jmp trap; do
	: > "$T/trace"
	if [ $mode = trap ]; then
		out=$(UTRACE_TEST_XOL=trap traced "$P" $N; echo "exit $?")
	else
		out=$(traced "$P" $N; echo "exit $?")
	fi
	pid=$(echo "$out" | sed -n 's/^pid //p')
	expect_match "$mode: the program ran (vectors $(echo "$out" | sed -n 's/^vectors //p'))" \
		'^vectors (ymm|xmm)$' "$(echo "$out" | grep '^vectors ')"
	expect_eq "$mode: every vector and general register held across the probe kept its value" \
		"changed 0
exit 0" "$(echo "$out" | grep '^\(changed\|not\|exit\) ')"
	expect_eq "$mode: every hit in the trace, in order: a register, a stack slot, a %rip global" \
		"$N 0" "$(hits "$pid")"
	expect_match "$mode: memory at 16 and in the kernel's half reads 0, the register after them 5" \
		"^ +sdt_fast-$pid +\[[0-9]+\] [^ ]+ +[0-9.]+: bad: \(0x[0-9a-f]+\) arg1=0 arg2=0 arg3=5\$" \
		"$(grep " bad: " "$T/trace")"
done

echo 0 > "$T/events/ut_fast/enable"
if kill -0 "$UT_FS_PID" 2>/dev/null; then pass "utracefs lives"; else
	fail "utracefs lives" "$(tail -5 "$UT_TMP/utracefs.log")"
fi
ut_umount || fail "unmount"

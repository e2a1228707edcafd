#!/bin/sh
# 111_sdt_window.sh - SDT probes where the jmp must start before the probe
# (runtime/xol_window.c), through the mount with echo and cat
# (tests/progs/sdt_loop.c):
#  - `if (semaphore) STAP_PROBE3(...)` in a loop at -O2, whose je skips the probe's
#    nop and lands right after it: armed with a jmp (the program reads its own code),
#    it runs with SIGTRAP blocked (an int3 there would kill it) and every hit is in
#    the trace, in order, with its three arguments;
#  - a probe that a je from too far before lands right after: no window, an int3,
#    every hit in the trace;
#  - utracefs's console hears of each site armed as an int3, once;
#  - UTRACE_TEST_XOL=trap: both int3s, every hit in the trace with SIGTRAP free,
#    and the program killed by SIGTRAP when it blocks it (what the first part rules out).
. "$(dirname "$0")/lib.sh"

P=$PROGS/sdt_loop
LOG=$UT_TMP/utracefs.log
N=1000
# the sum the program prints: 7 * (0 + ... + N-1) from the guarded loop, 1 + 6 (N - 1) from mid
SUM=$((7 * N * (N - 1) / 2 + 1 + 6 * (N - 1)))
# loc NAME: the probe's link-time address, from its note
loc() { LC_ALL=C readelf -n "$P" | awk -v n="$1" '$1 == "Name:" && $2 == n { getline; print $2 }'; }
G=$(loc guarded)
M=$(loc mid)
# hits PID: "GUARDED BAD MID BAD IPS" - guarded lines, those not arg1 = 0, 1, ... with
# arg2 = 7 and arg3 = 7 * arg1 * (arg1 - 1) / 2; mid lines, those not arg1 = 1, 2, ...;
# the distinct __probe_ip values of the two
hits() {
	grep "sdt_loop-$1 " "$T/trace" | awk '
		{ for (f = 1; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] } }
		/ guarded: / { g_bad += v["arg1"] != g || v["arg2"] != 7 || v["arg3"] != 7 * g * (g - 1) / 2
			       g++; ip[$6] = 1 }
		/ mid: / { m++; m_bad += v["arg1"] != m; ip[$6] = 1 }
		END { for (i in ip) ips++; print g + 0, g_bad + 0, m + 0, m_bad + 0, ips + 0 }'
}
# int3s PID COUNT: the probes the console says process PID armed as an int3, once it
# said COUNT of them (at most 5 s: the console is written as utracefs reads the socket)
int3s() {
	i=0
	while [ $i -lt 250 ] && [ "$(grep -c "process $1, .*SDT probe .* armed as an int3" "$LOG")" -lt "$2" ]; do
		sleep 0.02; i=$((i + 1))
	done
	sed -n "s/.*process $1, .*SDT probe \([^ ]*\) at 0x[0-9a-f]* armed as an int3 (a signal per hit)\$/\1/p" "$LOG" | sort
}

ut_mount
traced "$P" list
wait_listed_event ut_loop:mid
expect_eq "both probes are listed" "ut_loop:guarded
ut_loop:mid" "$(grep '^ut_loop:' "$T/available_events" | sort)"
echo 1 > "$T/events/ut_loop/enable"

out=$(traced "$P" $N "$G" "$M")
pid=$(echo "$out" | sed -n 's/^pid //p')
expect_eq "the semaphore-guarded probe is a jmp, the one a branch lands right after an int3" \
	"guarded jmp
mid trap" "$(echo "$out" | grep '^\(guarded\|mid\|not\) ')"
expect_eq "the program ran through the guarded loop with SIGTRAP blocked" "sum $SUM" \
	"$(echo "$out" | grep '^sum ')"
expect_eq "every hit of both in the trace, in order, with its arguments, one __probe_ip each" \
	"$N 0 $((N - 1)) 0 2" "$(hits "$pid")"
expect_eq "the console says which site is an int3" "ut_loop:mid" "$(int3s "$pid" 1)"

: > "$T/trace"
out=$(UTRACE_TEST_XOL=trap traced "$P" $N "$G" "$M" -t)
pid=$(echo "$out" | sed -n 's/^pid //p')
expect_eq "UTRACE_TEST_XOL=trap: both int3s, the same result" "guarded trap
mid trap
sum $SUM" "$(echo "$out" | grep '^\(guarded\|mid\|not\|sum\) ')"
expect_eq "UTRACE_TEST_XOL=trap: every hit of both in the trace, as in JMP mode" \
	"$N 0 $((N - 1)) 0 2" "$(hits "$pid")"
expect_eq "UTRACE_TEST_XOL=trap: the console says both are int3s" "ut_loop:guarded
ut_loop:mid" "$(int3s "$pid" 2)"
out=$(ulimit -c 0; UTRACE_TEST_XOL=trap traced "$P" $N "$G" "$M" 2>/dev/null; echo "exit $?")
expect_eq "UTRACE_TEST_XOL=trap: an int3 hit with SIGTRAP blocked kills the program" \
	"guarded trap
exit 133" "$(echo "$out" | grep '^\(guarded\|sum\|exit\) ')"

echo 0 > "$T/events/ut_loop/enable"
if kill -0 "$UT_FS_PID" 2>/dev/null; then pass "utracefs lives"; else
	fail "utracefs lives" "$(tail -5 "$UT_TMP/utracefs.log")"
fi
ut_umount || fail "unmount"

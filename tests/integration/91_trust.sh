#!/bin/sh
# 91_trust.sh - no squatting: another user who gets to the place where a user's
# utracefs is looked for first (a directory /tmp/utrace-UID of their own, a socket
# of their own in a sticky directory, a daemon of their own uid) receives nothing
# from the user's traced programs, and `utrace mount` and utracefs refuse such a
# place.  Needs root (a second user is created for the test and removed after).
. "$(dirname "$0")/lib.sh"

P=$PROGS/rt_calls
L=$PROGS/squat_listen
if [ "$(id -u)" -ne 0 ] || ! command -v useradd >/dev/null || ! command -v setpriv >/dev/null
then
	skip "trust: another user" "needs root, useradd and setpriv to run as a second user"
	exit 0
fi

U=utsq$$
LPIDS=
tr_cleanup() {
	for p in $LPIDS; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for m in "$UT_TMP"/run/utrace-0/tracing "$UT_TMP"/run/utrace-0/t2 "$UT_TMP"/run/tc \
		"$UT_TMP"/gw/tracing "$UT_TMP"/ao/tracing; do
		mountpoint -q "$m" 2>/dev/null && fusermount3 -u "$m"
	done
	# userdel refuses while a process of the user is still being torn down
	i=0
	while id "$U" >/dev/null 2>&1 && ! userdel "$U" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	ut_cleanup
}
trap tr_cleanup EXIT
if ! useradd -M -N -s /usr/sbin/nologin "$U" 2>"$UT_TMP/useradd.log"; then
	skip "trust: another user" "useradd failed: $(cat "$UT_TMP/useradd.log")"
	exit 0
fi
UID2=$(id -u "$U")
as_other() { setpriv --reuid="$UID2" --regid="$(id -g "$U")" --clear-groups "$@"; }

# BASE plays /tmp: root's, sticky, writable by everyone
chmod 755 "$UT_TMP"
BASE=$UT_TMP/run
mkdir -m 1777 "$BASE"

# wait_line FILE LINE: until FILE has the line (10 s at most)
wait_line() {
	i=0
	while [ $i -lt 500 ] && ! grep -qx "$2" "$1" 2>/dev/null; do
		sleep 0.02; i=$((i + 1))
	done
}
# listen NAME SOCKET [UID]: start a listener (as the other user unless UID is
# given: then root binds and becomes UID before listening); its log is $BASE/NAME.
listen() {
	# exec: $! is then the listener itself, which the clean-up kills and waits for
	if [ $# -gt 2 ]; then
		"$L" "$2" "$BASE/$1" "$3" >/dev/null 2>&1 &
	else
		(exec setpriv --reuid="$UID2" --regid="$(id -g "$U")" --clear-groups \
			"$L" "$2" "$BASE/$1" >/dev/null 2>&1) &
	fi
	LPIDS="$LPIDS $!"
	wait_line "$BASE/$1" ready
}
# leaked NAME SOCKET: the packets the listener got, once everything sent is in
leaked() {
	"$L" -s "$2" && wait_line "$BASE/$1" sync
	grep '^got ' "$BASE/$1"
}

# -- a directory utrace-0 made first by the other user -----------------------------
as_other mkdir -m 0777 "$BASE/utrace-0"
out=$(env -u UTRACE_TRACING XDG_RUNTIME_DIR="$BASE" "$UTRACE" mount 2>&1); rc=$?
if mountpoint -q "$BASE/utrace-0/tracing"; then
	fusermount3 -u "$BASE/utrace-0/tracing"
	fail "squatted directory: utrace mount refuses it" "it mounted there: $out"
elif [ $rc -ne 0 ] && printf '%s' "$out" | grep -q "refused: $BASE/utrace-0 is owned by uid $UID2" &&
     [ ! -e "$BASE/utrace-0/tracing" ]; then
	pass "squatted directory: utrace mount refuses it"
else
	fail "squatted directory: utrace mount refuses it" "exit $rc: $out; $(ls -la "$BASE/utrace-0")"
fi

as_other mkdir "$BASE/utrace-0/t2"
out=$("$UTRACEFS" "$BASE/utrace-0/t2" 2>&1); rc=$?
if mountpoint -q "$BASE/utrace-0/t2"; then
	fusermount3 -u "$BASE/utrace-0/t2"
	fail "squatted directory: utracefs refuses it" "it mounted there: $out"
else
	expect_match "squatted directory: utracefs refuses it" "^utracefs: .*refused: " "$out (exit $rc)"
fi

listen sq1 "$BASE/utrace-0/tracing.sock"
out=$(env -u UTRACE_TRACING XDG_RUNTIME_DIR="$BASE" LD_PRELOAD="$LIBUTRACE" "$P" calls 3 \
	2>"$UT_TMP/err1")
expect_match "squatted directory: the program runs" "^leaf .* pid [0-9]+$" "$out"
expect_eq "squatted directory: a traced program sends nothing" "" "$(leaked sq1 "$BASE/utrace-0/tracing.sock")"
expect_eq "squatted directory: the runtime stays silent" "" "$(cat "$UT_TMP/err1")"

# -- the other user's socket where ours would be, in a sticky directory ------------
listen sq2 "$BASE/tr.sock"
out=$(UTRACE_TRACING=$BASE/tr LD_PRELOAD="$LIBUTRACE" "$P" calls 3 2>"$UT_TMP/err2")
expect_match "another user's socket: the program runs" "^leaf .* pid [0-9]+$" "$out"
expect_eq "another user's socket: a traced program sends nothing" "" "$(leaked sq2 "$BASE/tr.sock")"
expect_eq "another user's socket: the runtime stays silent" "" "$(cat "$UT_TMP/err2")"

# the console file next to a mount point in a sticky directory, made by the other user
as_other sh -c "umask 0; : > '$BASE/tc.console'"
mkdir "$BASE/tc"
out=$("$UTRACEFS" "$BASE/tc" 2>&1); rc=$?
if mountpoint -q "$BASE/tc"; then
	fusermount3 -u "$BASE/tc"
	fail "another user's console file: utracefs refuses it" "it mounted: $out"
else
	expect_match "another user's console file: utracefs refuses it" \
		"refused: $BASE/tc.console is owned by uid $UID2" "$out (exit $rc)"
fi

# -- our socket file in our directory, but the daemon listening is another uid -----
mkdir -m 0700 "$UT_TMP/pc"
listen sq3 "$UT_TMP/pc/tracing.sock" "$UID2"
out=$(UTRACE_TRACING=$UT_TMP/pc/tracing LD_PRELOAD="$LIBUTRACE" "$P" calls 3 2>"$UT_TMP/err3")
expect_match "another user's daemon: the program runs" "^leaf .* pid [0-9]+$" "$out"
got=$(leaked sq3 "$UT_TMP/pc/tracing.sock")
expect_eq "another user's daemon: a traced program sends nothing (SO_PEERCRED)" "" "$got"
expect_match "another user's daemon: the program did connect (the check is the peer's uid)" \
	"^connected$" "$(cat "$BASE/sq3")"
expect_eq "another user's daemon: the runtime stays silent" "" "$(cat "$UT_TMP/err3")"

# -- a directory its group can write -----------------------------------------------
mkdir -m 0770 "$UT_TMP/gw"
out=$("$UTRACE" mount "$UT_TMP/gw/tracing" 2>&1); rc=$?
if mountpoint -q "$UT_TMP/gw/tracing"; then
	fusermount3 -u "$UT_TMP/gw/tracing"
	fail "group-writable directory: utrace mount refuses it" "it mounted there: $out"
else
	expect_match "group-writable directory: utrace mount refuses it" \
		"refused: $UT_TMP/gw is writable by its group" "$out (exit $rc)"
fi
out=$(UTRACE_TRACING=$UT_TMP/gw/tracing "$UTRACE" show 2>&1); rc=$?
expect_match "group-writable directory: other subcommands refuse it too" \
	"refused: $UT_TMP/gw is writable by its group" "$out (exit $rc)"

# -- a place of our own still works ------------------------------------------------
ut_mount
echo function > "$T/current_tracer"
out=$(LD_PRELOAD="$LIBUTRACE" "$P" calls 7)
pid=$(echo "$out" | sed -n 's/.* pid \([0-9]*\)$/\1/p')
expect_eq "our own mount: a traced program is traced" 7 \
	"$(grep -c "rt_calls-$pid .* leaf <-caller\$" "$T/trace")"
out=$("$UTRACE" mount 2>&1)
expect_eq "our own mount: utrace mount finds it" "utracefs already mounted at $T" "$out"

# -- -o allow_other: others only as far as the owner's modes let them --------------------
AO=$UT_TMP/ao/tracing
mkdir -p -m 0755 "$UT_TMP/ao"
out=$("$UTRACE" mount -o allow_other,fsname=aotrace "$AO" 2>&1)
expect_match "-o allow_other,fsname=: mounted with both" \
	" $AO .* fuse.utracefs aotrace .*allow_other" "$(grep " $AO " /proc/self/mountinfo)"
expect_eq "-o allow_other: the tree stays the owner's (another user cannot read trace)" "denied" \
	"$(as_other cat "$AO/trace" >/dev/null 2>&1 && echo read || echo denied)"
chmod 0755 "$AO"
chmod 0644 "$AO/trace"
expect_match "-o allow_other: once the owner opens the modes, the other user reads trace" \
	"^# tracer: nop" "$(as_other cat "$AO/trace" 2>&1 | head -1)"
expect_eq "-o allow_other: a file the owner left closed stays closed" "denied" \
	"$(as_other sh -c 'echo function > "$1"' sh "$AO/current_tracer" 2>/dev/null && echo written ||
		echo denied)"
expect_eq "... and its value is unchanged" "nop" "$(cat "$AO/current_tracer")"
fusermount3 -u "$AO"
out=$("$UTRACE" mount "$AO" 2>&1)
chmod 0755 "$AO"
chmod 0644 "$AO/trace"
expect_eq "without allow_other: another user is kept out even with open modes" "denied" \
	"$(as_other cat "$AO/trace" >/dev/null 2>&1 && echo read || echo denied)"
fusermount3 -u "$AO"
out=$("$UTRACEFS" -o subtype=x "$AO" 2>&1); rc=$?
expect_eq "-o: an option not offered is refused, nothing mounted" \
	"2 utracefs: mount option not supported: subtype=x no" \
	"$rc $(echo "$out" | head -1) $(mountpoint -q "$AO" && echo yes || echo no)"

#!/bin/sh
# 102_listen.sh - `utrace record -N HOST:PORT` sends the recording to Debian's
# `trace-cmd listen`, which saves it as a trace.dat holding the same events as an -o
# recording of the same run (v7 and v6); a port with no listener, or -N with -o, fail
# with a clear message and status 1 / 2, and leave the tracer put back.
. "$(dirname "$0")/lib.sh"

HELLO=$UT_BUILD/examples/hello
if ! command -v trace-cmd >/dev/null 2>&1; then
	skip "record -N to trace-cmd listen" "no trace-cmd (make deps installs it)"
	exit 0
fi
ut_mount

# listening PORT: is some socket listening on TCP port PORT (IPv4 or IPv6)?
listening() {
	hex=$(printf ':%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p="$hex" '$2 ~ p"$" && $4 == "0A"' |
		grep -q .
}

# start_listener: trace-cmd listen on a free port, as a job of this test; sets PORT and
# LPID.  A port taken meanwhile makes the listener exit: the next one is tried.
LDIR=$UT_TMP/collector
mkdir -p "$LDIR"
start_listener() {
	PORT=$((20000 + $$ % 20000))
	tries=0
	while [ $tries -lt 20 ]; do
		PORT=$((PORT + 1)) tries=$((tries + 1))
		listening "$PORT" && continue
		# (without the lock's descriptor: the lock is this script's)
		trace-cmd listen -p "$PORT" -d "$LDIR" -o lst >"$UT_TMP/listen.log" 2>&1 6>&- &
		LPID=$!
		i=0
		while [ $i -lt 200 ] && kill -0 "$LPID" 2>/dev/null && ! listening "$PORT"; do
			sleep 0.05; i=$((i + 1))
		done
		listening "$PORT" && kill -0 "$LPID" 2>/dev/null && return 0
		kill "$LPID" 2>/dev/null; wait "$LPID" 2>/dev/null
	done
	return 1
}

# collected NAME: wait until the listener has put the client's file together (its
# per-CPU temporary files are gone) and move it to $UT_TMP/NAME.
collected() {
	dst=$UT_TMP/$1 i=0
	while [ $i -lt 600 ]; do
		set -- "$LDIR"/lst.*.dat
		if [ -e "$1" ] && ! ls "$LDIR" | grep -q '\.cpu[0-9]*$'; then
			mv "$1" "$dst"
			return 0
		fi
		sleep 0.1; i=$((i + 1))
	done
	return 1
}

# funcs FILE: the function column of trace-cmd report's function events, in order
funcs() { trace-cmd report "$1" 2>/dev/null | awk '$4 == "function:" { print $5 }'; }

# trace-cmd listen reads the kernel's trace_clock (the clock it names in the files it
# saves): the kernel's tracefs is read under its lock, as the other tests use it; nothing
# there is changed, so nothing is to be put back.
if [ "$(id -u)" -eq 0 ]; then
	exec 6>>/tmp/utrace-kernel-tracefs.lock
	flock -w 600 6 && UT_KT_LOCKED=1
fi
if ! start_listener; then
	fail "trace-cmd listen started on a free port" "$(cat "$UT_TMP/listen.log")"
	exit 0
fi

# Address space randomization off: every run of hello has the same addresses, so the
# function columns of two recordings compare whether names resolve or not.
norand="setarch $(uname -m) -R"
for v in 7 6; do
	$norand "$UTRACE" record -p function --file-version $v -o "$UT_TMP/o$v.dat" -- \
		"$HELLO" 5 x >/dev/null 2>&1
	out=$($norand "$UTRACE" record -N "localhost:$PORT" -p function --file-version $v -- \
		"$HELLO" 5 x 2>&1 >/dev/null); rc=$?
	expect_eq "-N v$v: status 0" 0 "$rc"
	expect_match "-N v$v: says where the trace went" "trace sent to localhost:$PORT" "$out"
	if ! collected "n$v.dat"; then
		fail "-N v$v: the listener saved the file" "$(ls -l "$LDIR"; cat "$UT_TMP/listen.log")"
		continue
	fi
	expect_match "-N v$v: trace-cmd dump: version $v" "$v[[:space:]]+\[Version\]" \
		"$(trace-cmd dump "$UT_TMP/n$v.dat" 2>&1 | head -8)"
	want=$(funcs "$UT_TMP/o$v.dat")
	got=$(funcs "$UT_TMP/n$v.dat")
	if [ -n "$got" ]; then
		expect_eq "-N v$v: trace-cmd report: the function events of -o, in order" "$want" "$got"
	else
		fail "-N v$v: trace-cmd report: function events" \
			"$(ls -l "$UT_TMP/n$v.dat"; trace-cmd report "$UT_TMP/n$v.dat" 2>&1 | head
			echo "status $?"; cat "$UT_TMP/listen.log")"
	fi
	expect_eq "-N v$v: the program's print is there" \
		"$(trace-cmd report "$UT_TMP/o$v.dat" 2>/dev/null | grep -c 'hello, x')" \
		"$(trace-cmd report "$UT_TMP/n$v.dat" 2>/dev/null | grep -c 'hello, x')"
	if [ -e "$T/kallsyms" ]; then
		expect_match "-N v$v: names resolve (the mount's kallsyms went with it)" \
			'^main$' "$got"
	else
		skip "-N v$v: names resolve" "this utracefs serves no kallsyms"
	fi
	if rep=$("$UTRACE" report -i "$UT_TMP/o$v.dat" 2>/dev/null); then
		expect_eq "-N v$v: as many function events as utrace report of -o shows" \
			"$(printf '%s\n' "$rep" | grep -c ' function: ')" "$(printf '%s\n' "$got" | grep -c .)"
	else
		skip "-N v$v: compared with utrace report" "this utrace report does not read trace.dat"
	fi
done
expect_eq "the tracer is put back" nop "$(cat "$T/current_tracer")"

# --- nothing listening: status 1, the address and the errno said, nothing left -------------
kill -INT "$LPID"
i=0; while kill -0 "$LPID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -KILL "$LPID" 2>/dev/null; wait "$LPID" 2>/dev/null
if [ -n "$UT_KT_LOCKED" ]; then exec 6>&-; UT_KT_LOCKED=; fi
i=0; while listening "$PORT" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
mkdir -p "$UT_TMP/tmp"
out=$(TMPDIR=$UT_TMP/tmp "$UTRACE" record -N "localhost:$PORT" -p function -- "$HELLO" 2 x \
	2>&1 >/dev/null); rc=$?
expect_eq "-N, nothing listening: status 1" 1 "$rc"
expect_match "-N, nothing listening: names HOST:PORT and the errno" \
	"^utrace record: localhost:$PORT: connect: Connection refused" "$out"
expect_eq "-N, nothing listening: no CPU file left" "" "$(ls -A "$UT_TMP/tmp")"
expect_eq "-N, nothing listening: the tracer is put back" nop "$(cat "$T/current_tracer")"

# --- bad usage --------------------------------------------------------------------------------
out=$("$UTRACE" record -N "localhost:$PORT" -o "$UT_TMP/x.dat" -p function -- "$HELLO" 2>&1); rc=$?
expect_eq "-N with -o: bad usage, nothing run" "2 1" "$rc $(printf '%s\n' "$out" | grep -c -- '-N and -o')"
out=$("$UTRACE" record -N localhost -p function -- "$HELLO" 2>&1); rc=$?
expect_eq "-N without a port: bad usage" "2 1" "$rc $(printf '%s\n' "$out" | grep -c 'HOST:PORT')"

ut_umount || fail "utracefs exited cleanly"

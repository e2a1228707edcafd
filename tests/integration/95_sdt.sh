#!/bin/sh
# 95_sdt.sh - <sys/sdt.h> probes programs and libraries already carry, as trace events
# PROVIDER:NAME (tests/progs/sdt_prog.c, its libraries, sdt_cxx.cc and libstdc++'s own),
# through the mount with echo and cat: listed with the kernel's uprobe format, the
# nop left alone while disabled, every argument form right in `trace` once enabled,
# a semaphore counted up and down, filters on argN, an instance, and C++ exceptions.
. "$(dirname "$0")/lib.sh"

P=$PROGS/sdt_prog
LOG=$UT_TMP/utracefs.log

ut_mount

# -- disabled: the nops stay, nothing is written, the events are listed ----------------------
out=$(traced "$P" bytes)
expect_eq "disabled: every probe site of the executable is its nop, before and after 1000 hits" \
	"before forms=90 six=90 mem=90 zero=90 imm=90
after forms=90 six=90 mem=90 zero=90 imm=90
sem 0 computed 0" "$out"
expect_eq "disabled: nothing in the trace" 0 "$(grep -c ': \(zero\|six\|mem\|imm\|forms\|counted\): ' "$T/trace")"
traced "$P" load >/dev/null
expect_eq "available_events lists the probes of the executable, a linked and a dlopen()ed library" \
	"ut_sdt:forms
ut_sdt:imm
ut_sdt:mem
ut_sdt:six
ut_sdt:zero
ut_sdt_dl:hit
ut_sdt_lib:counted" "$(grep '^ut_sdt' "$T/available_events" | sort)"
expect_eq "the format: __probe_ip, then arg1..argN packed, typed from the operands (the kernel's uprobe events)" \
	"name: six
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:unsigned long __probe_ip;	offset:8;	size:8;	signed:0;
	field:s8 arg1;	offset:16;	size:1;	signed:1;
	field:u8 arg2;	offset:17;	size:1;	signed:0;
	field:s16 arg3;	offset:18;	size:2;	signed:1;
	field:u16 arg4;	offset:20;	size:2;	signed:0;
	field:s32 arg5;	offset:22;	size:4;	signed:1;
	field:u64 arg6;	offset:26;	size:8;	signed:0;

print fmt: \"(0x%lx) arg1=%d arg2=%u arg3=%d arg4=%u arg5=%d arg6=%Lu\", REC->__probe_ip, REC->arg1, REC->arg2, REC->arg3, REC->arg4, REC->arg5, REC->arg6" \
	"$(grep -v '^ID:' "$T/events/ut_sdt/six/format")"
expect_eq "a probe without arguments: __probe_ip alone" \
	"print fmt: \"(0x%lx)\", REC->__probe_ip" "$(tail -1 "$T/events/ut_sdt/zero/format")"
expect_eq "signed and unsigned 64-bit arguments print as the kernel's s64 and u64" \
	"print fmt: \"(0x%lx) arg1=%Lu arg2=%Lu arg3=%d arg4=%u arg5=%d arg6=%Lu arg7=%Ld arg8=%Lu\", REC->__probe_ip, REC->arg1, REC->arg2, REC->arg3, REC->arg4, REC->arg5, REC->arg6, REC->arg7, REC->arg8" \
	"$(tail -1 "$T/events/ut_sdt/forms/format")"

# -- enabled: armed sites, every field ---------------------------------------------------------
echo 1 > "$T/events/ut_sdt/enable"
echo 1 > "$T/events/ut_sdt_lib/counted/enable"
echo 'ut_sdt_dl:hit' >> "$T/set_event"
out=$(traced "$P" fire)
pid=$(echo "$out" | sed -n 's/^pid //p')
expect_eq "enabled: every site is armed (none waited for in vain)" 0 "$(echo "$out" | grep -c 'not armed')"
expect_eq "enabled: no site is its nop any more" 0 "$(echo "$out" | grep '^sites' | grep -c '=90')"
expect_eq "enabled: the semaphore counts each of its two sites" "sem 2" "$(echo "$out" | grep '^sem')"
tr=$(cat "$T/trace")
L="sdt_prog-$pid +\[[0-9]+\] \.\.\.\.\. +[0-9.]+:"
expect_match "no arguments: the probe's address alone" "$L zero: \(0x[0-9a-f]+\)\$" "$tr"
expect_match "register arguments of every size and sign (%dil %sil %dx %cx %r8d %r9)" \
	"$L six: \(0x[0-9a-f]+\) arg1=-5 arg2=250 arg3=-300 arg4=65000 arg5=-70000 arg6=18000000000000000000\$" "$tr"
expect_match "memory arguments: a stack slot and a global by %rip" \
	"$L mem: \(0x[0-9a-f]+\) arg1=-77 arg2=-123456789\$" "$tr"
expect_match "immediates" "$L imm: \(0x[0-9a-f]+\) arg1=5 arg2=-1\$" "$tr"
expect_match "the same event with other operand types in a library: its own record" \
	"$L imm: \(0x[0-9a-f]+\) arg1=77 arg2=1\$" "$tr"
expect_eq "... one event of the tree with two definitions, its format the first's" \
	"ut_sdt:imm 1
print fmt: \"(0x%lx) arg1=%d arg2=%d\", REC->__probe_ip, REC->arg1, REC->arg2" \
	"ut_sdt:imm $(grep -c '^ut_sdt:imm$' "$T/available_events")
$(tail -1 "$T/events/ut_sdt/imm/format")"
expect_match "index registers, sub-registers, a %rip global, an immediate, memory that faults (0); a note 0x1000 off as after prelink" \
	"$L forms: \(0x[0-9a-f]+\) arg1=33 arg2=22 arg3=-10 arg4=127 arg5=-9 arg6=1234605616436508552 arg7=-42 arg8=0\$" "$tr"
expect_match "a linked library's probe, computed under its semaphore (first site)" \
	"$L counted: \(0x[0-9a-f]+\) arg1=7000\$" "$tr"
expect_match "... and its second site" "$L counted: \(0x[0-9a-f]+\) arg1=8000\$" "$tr"
expect_match "a dlopen()ed library's probe" "$L hit: \(0x[0-9a-f]+\) arg1=77\$" "$tr"
expect_match "dlclose()d and dlopen()ed again: its probe is found and armed anew" \
	"$L hit: \(0x[0-9a-f]+\) arg1=78\$" "$tr"
expect_eq "each probe once" 10 "$(echo "$tr" | grep -c "sdt_prog-$pid .*: \(zero\|six\|mem\|imm\|forms\|counted\|hit\): ")"
ip=$(echo "$tr" | sed -n "s/.*sdt_prog-$pid .* zero: (0x\([0-9a-f]*\))\$/\1/p")
expect_match "__probe_ip is the site's address, in the executable" "^[0-9a-f]{6,}\$" "$ip"
expect_eq "the process is intact: it went on and said its pid" 1 "$(echo "$out" | grep -c '^pid ')"

# the same in trap mode (UTRACE_TEST_XOL=trap keeps every probe a trap)
: > "$T/trace"
out=$(UTRACE_TEST_XOL=trap traced "$P" fire)
pid=$(echo "$out" | sed -n 's/^pid //p')
expect_eq "trap mode: every probe once, the same fields" "10 1" \
	"$(grep -c "sdt_prog-$pid .*: \(zero\|six\|mem\|imm\|forms\|counted\|hit\): " "$T/trace") $(grep -c "sdt_prog-$pid .*: forms: (0x[0-9a-f]*) arg1=33 arg2=22 arg3=-10 arg4=127 arg5=-9 arg6=1234605616436508552 arg7=-42 arg8=0\$" "$T/trace")"

# -- the semaphore: counted up while enabled, down after ----------------------------------------
start_driven sdt_prog s 8
drv=$!
# sem_until N: ask for the semaphore until it reads N (at most 10 s); print the last answer
sem_until() {
	i=0
	a=$(ask "$UT_TMP/s.out" 8 sem)
	while [ $i -lt 500 ] && [ "${a%% computed*}" != "sem $1" ]; do
		sleep 0.02; i=$((i + 1)); a=$(ask "$UT_TMP/s.out" 8 sem)
	done
	echo "$a"
}
expect_eq "semaphore: counted up once per site while the event is enabled" "sem 2 computed 0" \
	"$(sem_until 2)"
expect_eq "semaphore: the program computes its argument at both sites" "fired
sem 2 computed 2" "$(ask "$UT_TMP/s.out" 8 fire; ask "$UT_TMP/s.out" 8 sem)"
echo 0 > "$T/events/ut_sdt_lib/counted/enable"
expect_eq "semaphore: counted down once disabled; nothing is computed any more" \
	"sem 0 computed 2
fired
sem 0 computed 2" "$(sem_until 0; ask "$UT_TMP/s.out" 8 fire; ask "$UT_TMP/s.out" 8 sem)"
exec 8>&-
wait "$drv"

# -- filters on argN ----------------------------------------------------------------------------
: > "$T/trace"
echo 1 > "$T/events/ut_sdt_lib/counted/enable"
echo 'arg1 == 8000' > "$T/events/ut_sdt_lib/counted/filter"
echo 'arg5 < -100000' > "$T/events/ut_sdt/six/filter"
out=$(traced "$P" fire)
pid=$(echo "$out" | sed -n 's/^pid //p')
expect_eq "filter arg1 == 8000: one of the two sites' records is kept" "1 1" \
	"$(grep -c "sdt_prog-$pid .*: counted: .* arg1=8000\$" "$T/trace") $(grep -c "sdt_prog-$pid .*: counted: " "$T/trace")"
expect_eq "filter arg5 < -100000 (a signed 32-bit argument): refused" 0 \
	"$(grep -c "sdt_prog-$pid .*: six: " "$T/trace")"
expect_eq "the other events are not filtered" 1 "$(grep -c "sdt_prog-$pid .*: zero: " "$T/trace")"
echo 0 > "$T/events/ut_sdt_lib/counted/filter"
echo 0 > "$T/events/ut_sdt/six/filter"

# -- an instance -------------------------------------------------------------------------------
echo 0 > "$T/events/enable"
: > "$T/trace"
mkdir "$T/instances/sdt"
echo 1 > "$T/instances/sdt/events/ut_sdt/imm/enable"
out=$(traced "$P" fire ut_sdt:imm)
pid=$(echo "$out" | sed -n 's/^pid //p')
expect_match "an instance: the event enabled there is written there" \
	"sdt_prog-$pid .*: imm: \(0x[0-9a-f]+\) arg1=5 arg2=-1\$" "$(cat "$T/instances/sdt/trace")"
expect_match "an instance: both definitions of the event" \
	"sdt_prog-$pid .*: imm: \(0x[0-9a-f]+\) arg1=77 arg2=1\$" "$(cat "$T/instances/sdt/trace")"
expect_eq "an instance: only that event, and nothing at the top level" "2 0" \
	"$(grep -c "sdt_prog-$pid " "$T/instances/sdt/trace") $(grep -c "sdt_prog-$pid .*: imm: " "$T/trace")"
echo 0 > "$T/instances/sdt/events/ut_sdt/imm/enable"
rmdir "$T/instances/sdt"

# -- C++: libstdc++'s own probes --------------------------------------------------------------
LIBSTDCXX=$(ldd "$PROGS/sdt_cxx" | sed -n 's/.*libstdc++.so.6 => \([^ ]*\).*/\1/p')
if [ -z "$LIBSTDCXX" ] || ! LC_ALL=C readelf -n "$LIBSTDCXX" 2>/dev/null | grep -q 'Name: throw'; then
	skip "C++: libstdcxx:throw and libstdcxx:catch" "libstdc++ here has no SDT probes"
else
	traced "$PROGS/sdt_cxx" >/dev/null 2>&1 & cxx=$!
	expect_eq "utrace list -e 'libstdcxx:*' lists libstdc++'s probes once a C++ program ran" \
		"libstdcxx:catch
libstdcxx:rethrow
libstdcxx:throw" "$(wait_listed_event libstdcxx:throw 500; "$UTRACE" list -e 'libstdcxx:*' | sort)"
	kill "$cxx" 2>/dev/null; wait "$cxx" 2>/dev/null
	echo 'libstdcxx:throw libstdcxx:catch' > "$T/set_event"
	out=$(traced "$PROGS/sdt_cxx")
	pid=$(echo "$out" | sed -n 's/^pid //p')
	obj=$(printf '%d' "0x$(echo "$out" | sed -n 's/^obj //p')")
	tinfo=$(printf '%d' "0x$(echo "$out" | sed -n 's/^tinfo //p')")
	tr=$(cat "$T/trace")
	expect_match "C++ throw: arg1 the exception object, arg2 its type_info" \
		"sdt_cxx-$pid .*: throw: \(0x[0-9a-f]+\) arg1=$obj arg2=$tinfo\$" "$tr"
	expect_match "C++ catch: the same object and type_info" \
		"sdt_cxx-$pid .*: catch: \(0x[0-9a-f]+\) arg1=$obj arg2=$tinfo\$" "$tr"
	echo > "$T/set_event"
fi

if kill -0 "$UT_FS_PID" 2>/dev/null; then pass "utracefs lives"; else
	fail "utracefs lives" "$(tail -5 "$LOG")"
fi
ut_umount || fail "unmount"

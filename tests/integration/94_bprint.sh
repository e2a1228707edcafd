#!/bin/sh
# 94_bprint.sh - trace_printk() as the kernel records it, through a real mount: a
# constant format with arguments is a bprint record (its text made when the trace
# is read), one without arguments and trace_puts() of a constant a bputs record,
# everything else a print record; printk_formats lists the formats; the options
# raw, hex, bin and fields on function, print, bprint and bputs lines; the same
# options on trace_marker lines against the kernel's tracefs.
. "$(dirname "$0")/lib.sh"

if [ ! -x "$UTRACEFS" ] || [ ! -x "$PROGS/bprint_prog" ]; then
	skip "94_bprint" "not built in $UT_BUILD"
	exit 0
fi
ut_mount

# the lines of the trace without their context (task, cpu, flags, time stamp)
body() { grep -v '^#' "$T/trace" | sed -E 's/^ *bprint_prog-[0-9]+ +\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: //'; }

# ---- every conversion, as the kernel prints it --------------------------------------
traced "$PROGS/bprint_prog" formats >"$UT_TMP/out"
TAB=$(printf '\t')
expect_eq "bprint: every conversion as the kernel prints it" "emit_formats: int -42 42 3000000000 beef BEEF 10
emit_formats: len hh=-5 hhu=250 h=-1234 hu=65000
emit_formats: len l=-1 lu=1099511627776 ll=-1234567890123 llu=18446744073709551615
emit_formats: len z=4096 zd=-3 t=-77 j=-9
emit_formats: flags [   42] [42   ] [00042] [+42] [ 42] [0xff] [010] [007]
emit_formats: star [     1] [2     ] [0003] [     abc]
emit_formats: kernel [0x0] [0]
emit_formats: chars abc [  x] [y  ]
emit_formats: str [hello] [     right] [left      ] [cu] [(null)]
emit_formats: mixed key=7 z variable 7
 99
emit_formats: percent 100% of 1
emit_formats: ptr 0000000000001234 0000000000000000
emit_formats: sym emit_formats emit_formats+0x0/SIZE
emit_formats: tab${TAB}quote\" back\\slash 1
emit_formats: no args 100%%
emit_formats: puts constant
emit_formats: variable 7
emit_fallbacks: count 5
emit_fallbacks: dynamic 3" "$(body | sed -E 's|\+0x0/0x[0-9a-f]+$|+0x0/SIZE|')"

# raw shows which record each line is: ": IP : " bprint and bputs, "# IP " print
echo 1 >"$T/options/raw"
expect_eq "bprint, bputs, and print for what cannot be packed or is not a constant" \
	"B B B B B B B B B B B B B B B B P P P" \
	"$(grep -v '^#' "$T/trace" | sed -nE 's/^[0-9]+ [0-9]+ [0-9]+ : [0-9a-f]+ : .*/B/p; s/^[0-9]+ [0-9]+ [0-9]+ # [0-9a-f]+ .*/P/p' | tr '\n' ' ' | sed 's/ $//')"
echo 0 >"$T/options/raw"

echo 1 >"$T/options/printk-msg-only"
expect_eq "printk-msg-only: the text alone" "kernel [0x0] [0]|no args 100%%|puts constant" \
	"$(grep -e '^kernel' -e '^no args' -e '^puts' "$T/trace" | tr '\n' '|' | sed 's/|$//')"
echo 0 >"$T/options/printk-msg-only"

# ---- printk_formats ------------------------------------------------------------------
F=$(cat "$T/printk_formats")
expect_match "printk_formats: a format, newline escaped" '^0x[0-9a-f]+ : "int %d %i %u %x %X %o\\n"$' "$F"
expect_match "printk_formats: tab and quote escaped, backslash as it is" \
	'^0x[0-9a-f]+ : "tab\\tquote\\" back\\slash %d\\n"$' "$F"
expect_match "printk_formats: trace_printk without arguments" '^0x[0-9a-f]+ : "no args 100%%\\n"$' "$F"
expect_match "printk_formats: trace_puts of a constant" '^0x[0-9a-f]+ : "puts constant\\n"$' "$F"
expect_eq "printk_formats: no text that is not a constant, each constant once" "16 0 0" \
	"$(printf '%s\n' "$F" | grep -c . | tr -d '\n'; printf ' '; printf '%s\n' "$F" | grep -c -e dynamic -e variable -e count | tr -d '\n'; printf ' '; printf '%s\n' "$F" | sort | uniq -d | grep -c .)"

# ---- a format used by two processes at one address ---------------------------------
echo >"$T/trace"
traced "$PROGS/bprint_prog" fork
expect_eq "a parent and its child: each its own text" "from child|from parent|from parent again" \
	"$(body | sed 's/^main: //' | sort | tr '\n' '|' | sed 's/|$//')"
expect_eq "printk_formats lists the format of each process" "2" \
	"$(grep -c -F ': "from %s\n"' "$T/printk_formats")"

# ---- options on function lines --------------------------------------------------------
echo >"$T/trace"
echo emit_fallbacks >"$T/set_ftrace_filter"
echo function >"$T/current_tracer"
echo 0 >"$T/options/trace_printk"
traced "$PROGS/bprint_prog" formats >/dev/null
echo 1 >"$T/options/raw"
expect_match "raw: function as 'IP PARENT' in hex" '^[0-9]+ [0-9]+ [0-9]+ [0-9a-f]+ [0-9a-f]+$' \
	"$(grep -v '^#' "$T/trace")"
echo 0 >"$T/options/context-info"
raw=$(grep -v '^#' "$T/trace")
echo 0 >"$T/options/raw"
echo 1 >"$T/options/bin"
# shellcheck disable=SC2046
set -- $(tail -c 16 "$T/trace" | od -An -tx8 -w16)
expect_eq "bin: function's ip and parent_ip as their bytes" "$raw" "$(printf '%x %x' "0x$1" "0x$2")"
echo 0 >"$T/options/bin"
echo 1 >"$T/options/context-info"
echo 1 >"$T/options/hex"
expect_match "hex: pid, cpu, ts, ip, parent_ip as hex fields, then a newline" \
	'^[0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{16} [0-9a-f]{16} [0-9a-f]{16} $' "$(grep -v '^#' "$T/trace" | head -1)"
expect_eq "hex: an empty line after each entry" "" "$(grep -v '^#' "$T/trace" | sed -n 2p)"
echo 0 >"$T/options/hex"
echo 1 >"$T/options/fields"
expect_match "fields: the kernel finds no fields for ftrace entries" \
	'^ *bprint_prog-[0-9]+ +\[[0-9]+\] [^ ]+ +[0-9.]+: UNKNOWN TYPE 1$' "$(grep -v '^#' "$T/trace")"
echo 0 >"$T/options/fields"
echo 1 >"$T/options/trace_printk"
echo nop >"$T/current_tracer"
: >"$T/set_ftrace_filter"

# ---- options on bprint and bputs lines -------------------------------------------------
traced "$PROGS/bprint_prog" formats >/dev/null
# how many lines end with type 6 (bprint) and with type 15 (bputs)
types() { printf '%s %s' "$(grep -c -E "$1 6\$" "$T/trace")" "$(grep -c -E "$1 15\$" "$T/trace")"; }
echo 1 >"$T/options/hex"
expect_eq "hex: bprint and bputs have no hex form (type: N)" "14 2" "$(types 'type:')"
echo 0 >"$T/options/hex"
echo 1 >"$T/options/fields"
expect_eq "fields: bprint and bputs (UNKNOWN TYPE N)" "14 2" "$(types 'UNKNOWN TYPE')"
echo 0 >"$T/options/fields"

# ---- function_graph: trace_printk as a comment -----------------------------------------
echo >"$T/trace"
echo function_graph >"$T/current_tracer"
traced "$PROGS/bprint_prog" formats >/dev/null
expect_match "function_graph: a bprint record is a comment" \
	'^ [0-9]+\) +\| +/\* kernel \[0x0\] \[0\] \*/$' "$(cat "$T/trace")"
expect_match "function_graph: a bputs record is a comment" \
	'^ [0-9]+\) +\| +/\* puts constant \*/$' "$(cat "$T/trace")"
echo nop >"$T/current_tracer"

# ---- events/ftrace/bprint and bputs: the kernel's formats ---------------------------------
HEAD="format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:unsigned long ip;	offset:8;	size:8;	signed:0;"
expect_eq "events/ftrace/bprint/format" "name: bprint
ID: 6
$HEAD
	field:const char * fmt;	offset:16;	size:8;	signed:0;
	field:u32 buf[];	offset:24;	size:0;	signed:0;

print fmt: \"%ps: %s\", (void *)REC->ip, REC->fmt" "$(cat "$T/events/ftrace/bprint/format")"
expect_eq "events/ftrace/bputs/format" "name: bputs
ID: 15
$HEAD
	field:const char * str;	offset:16;	size:8;	signed:0;

print fmt: \"%ps: %s\", (void *)REC->ip, REC->str" "$(cat "$T/events/ftrace/bputs/format")"

# ---- trace_marker lines under raw, hex, bin and fields, against the kernel's ------------
S=$UT_TMP/marker.script
cat >"$S" <<'EOF'
echo > $T/trace
cat $T/events/ftrace/bprint/format
cat $T/events/ftrace/bputs/format
echo 1 > $T/options/raw
echo hello raw > $T/trace_marker
printf 'nonl' > $T/trace_marker
cat $T/trace | grep -v '^#' | sed -E 's/^[0-9]+ [0-9]+ [0-9]+ # [0-9a-f]+ /PID CPU TS # IP /'
echo 0 > $T/options/raw
echo > $T/trace
echo 1 > $T/options/hex
echo hello hex > $T/trace_marker
cat $T/trace | grep -v '^#' | sed -E 's/^[0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{16} /PID CPU TS /'
echo 0 > $T/options/context-info
cat $T/trace | grep -v '^#'
echo 1 > $T/options/context-info
echo 0 > $T/options/hex
echo > $T/trace
echo 1 > $T/options/bin
echo hello bin > $T/trace_marker
cat $T/trace | tail -c 8
echo 0 > $T/options/context-info
cat $T/trace | grep -v '^#'
echo 1 > $T/options/context-info
echo 0 > $T/options/bin
echo > $T/trace
echo 1 > $T/options/fields
echo hello fields > $T/trace_marker
cat $T/trace | grep -v '^#' | sed -E 's/^ *<?[a-z.]*>?-/COMM-/'
echo 0 > $T/options/fields
echo > $T/trace
EOF
tdiff "trace_marker lines under raw, hex, bin and fields as the kernel's" "$S"

ut_umount

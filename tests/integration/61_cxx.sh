#!/bin/sh
# C++: names print demangled by default; the function tracer's option demangle off
# prints the mangled names; exceptions unwind through traced functions.
. "$(dirname "$0")/lib.sh"
ut_mount
P=$PROGS/cxx_names

echo function > "$T/current_tracer"
out=$(traced "$P"); rc=$?
expect_eq "a traced C++ program throws and catches normally" "0:total 10" "$rc:$out"
tr=$(cat "$T/trace")
expect_match "a method prints demangled" ': shapes::Widget::poke\(int\) <-main$' "$tr"
expect_match "a template prints demangled" ': int twice<int>\(int\) <-main$' "$tr"
expect_match "a static function prints by name" ': thrower\(int\)( \[clone [^]]*\])? <-main$' "$tr"

echo 0 > "$T/options/demangle"
expect_match "demangle off prints the mangled name" ': _ZN6shapes6Widget4pokeEi <-main$' "$(cat "$T/trace")"
echo 1 > "$T/options/demangle"
echo nop > "$T/current_tracer"

# function_graph has its own demangle option, behind the same options/demangle file.
echo function_graph > "$T/current_tracer"
traced "$P" > /dev/null
tr=$(cat "$T/trace")
expect_match "graph: a method prints demangled, its parameter list once" \
	'\| +shapes::Widget::poke\(int\);$' "$tr"
echo 0 > "$T/options/demangle"
expect_match "graph: demangle off prints the mangled name" '\| +_ZN6shapes6Widget4pokeEi\(\);$' \
	"$(cat "$T/trace")"
expect_eq "graph: the function tracer's own demangle stays on" 1 \
	"$(echo function > "$T/current_tracer"; cat "$T/options/demangle")"
echo 1 > "$T/options/demangle"
echo nop > "$T/current_tracer"

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

# A name of thousands of characters (a template over standard containers) prints
# whole, as the demangler gives it.
echo function_graph > "$T/current_tracer"
echo 1 > "$T/options/demangle" # function_graph's own, left off above
traced "$P" > /dev/null
long=$(nm "$P" | awk '/count_all/ { print $3 }' | c++filt)
expect_eq "graph: a 6,000-character template name prints whole" "$long;" \
	"$(grep -o '| *unsigned long count_all<.*' "$T/trace" | sed 's/^| *//')"
echo nop > "$T/current_tracer"

# The filter files take C++ names: demangled, with or without the parameter list,
# `::` inside a name, mangled names as before.
F=$T/set_ftrace_filter
echo 'shapes::Widget::*' > "$F"
expect_eq "filter: a scope glob, read back demangled" "shapes::Widget::poke(int)" "$(cat "$F")"
echo 'twice<int>' > "$F"
expect_eq "filter: a template by its name without return type and parameters" \
	"int twice<int>(int)" "$(cat "$F")"
echo 'thrower*' > "$F"
expect_match "filter: a static function by its name" '^thrower\(int\)' "$(cat "$F")"
echo 'shapes::Widget::poke:mod:cxx_names' > "$F"
expect_eq "filter: a scope before a command" "shapes::Widget::poke(int)" "$(cat "$F")"
echo _ZN6shapes6Widget4pokeEi > "$F"
expect_eq "filter: the mangled name still works" "shapes::Widget::poke(int)" "$(cat "$F")"
echo function > "$T/current_tracer"
traced "$P" > /dev/null
expect_eq "filter: only the C++ function named is traced" "shapes::Widget::poke(int)" \
	"$(grep -v '^#' "$T/trace" | sed -n 's/.*: \(.*\) <-main$/\1/p' | sort -u)"
echo 0 > "$T/options/demangle"
expect_eq "filter: demangle off reads back mangled" "_ZN6shapes6Widget4pokeEi" "$(cat "$F")"
expect_write_err "filter: demangle off, demangled names are not names" "Invalid argument" \
	'shapes::Widget::poke' "$F"
echo 1 > "$T/options/demangle"
echo > "$F"
echo nop > "$T/current_tracer"
ut_umount

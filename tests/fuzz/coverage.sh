#!/bin/sh
# tests/fuzz/coverage.sh COV_BUILD_DIR [CORPUS_DIR] - line coverage of the files each
# harness is for (make fuzz-cov): every harness of COV_BUILD_DIR (built with clang's
# source coverage) runs once over its seed corpus tests/fuzz/corpus/NAME and, when
# given, CORPUS_DIR/NAME (what make fuzz found); llvm-cov then reports those files.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
b=$top/$1 extra=${2:+$top/$2}
prof=$b/prof
mkdir -p "$prof"
for f in "$b"/fuzz/fuzz_*; do
	n=${f##*/fuzz_}
	# what each harness is for (the rest of what it runs is counted by others)
	case $n in
	cpumask) files="fs/control/cpumask.c" ;;
	pid) files="fs/control/ftrace_pid.c" ;;
	filter) files="fs/control/ftrace_filter.c fs/control/ftrace_glob.c fs/control/ftrace_probe.c" ;;
	files) files="fs/control/current_tracer.c fs/control/tracing_on.c fs/control/options.c
		fs/control/buffer_size.c fs/control/trace_clock.c fs/control/trace_marker.c
		fs/control/saved_cmdlines.c fs/control/error_log.c fs/control/graph_ctl.c
		fs/control/ftrace_enabled.c fs/control/parse.c" ;;
	wire) files="fs/registry.c" ;;
	ring) files="fs/ring_read.c fs/output/line.c fs/output/graph.c fs/output/header.c" ;;
	sites) files="runtime/sites.c" ;;
	insn) files="runtime/arch/x86_64/insn.c" ;;
	symfile) files="fs/symfile.c" ;;
	*) files="" ;;
	esac
	set -- "$top/tests/fuzz/corpus/$n"
	[ -n "$extra" ] && [ -d "$extra/$n" ] && set -- "$@" "$extra/$n"
	(cd "$prof" && LLVM_PROFILE_FILE="$prof/$n.profraw" "$f" -runs=0 "$@" >/dev/null 2>&1)
	llvm-profdata-14 merge -sparse -o "$prof/$n.profdata" "$prof/$n.profraw" || continue
	echo "== fuzz_$n"
	# shellcheck disable=SC2086
	(cd "$top" && llvm-cov-14 report "$f" -instr-profile="$prof/$n.profdata" $files) |
		awk -v top="$top/" '$1 ~ /\.c$/ || $1 == "TOTAL" {
			sub(top, "", $1)
			printf "%-24s lines %5d, missed %4d: %7s   branches %7s\n", $1, $8, $9, $10, $13
		}'
done

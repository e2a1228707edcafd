#!/bin/sh
# tests/fuzz/run.sh BUILD_DIR SECONDS [NAME...] - run each libFuzzer harness
# (BUILD_DIR/fuzz/fuzz_NAME, all when no NAME is given) for SECONDS on its seed
# corpus tests/fuzz/corpus/NAME.  New inputs go to BUILD_DIR/corpus/NAME (copy the
# ones worth keeping into the seed corpus), crashes to BUILD_DIR/crashes/NAME-*.
# Ends with one line per harness: the edges covered of those instrumented
# (libFuzzer's cov: against its counters) and the inputs run.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
b=$top/$1 secs=$2
shift 2
names=${*:-$(cd "$b/fuzz" && ls fuzz_* | sed 's/^fuzz_//')}
summary="" rc=0
mkdir -p "$b/crashes"
for n in $names; do
	# the ring harness takes whole rings; ELF files are a few KB
	case $n in
	ring) max=40000 ;;
	sites | symfile) max=20000 ;;
	*) max=4096 ;;
	esac
	mkdir -p "$b/corpus/$n"
	echo "== fuzz_$n for ${secs}s"
	"$b/fuzz/fuzz_$n" -max_total_time="$secs" -max_len=$max -print_final_stats=1 \
		-artifact_prefix="$b/crashes/$n-" "$b/corpus/$n" "$top/tests/fuzz/corpus/$n" \
		>"$b/fuzz-$n.log" 2>&1 || rc=1
	grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' "$b/fuzz-$n.log"
	total=$(sed -n 's/^INFO: Loaded 1 modules *(\([0-9]*\) inline.*/\1/p' "$b/fuzz-$n.log")
	last=$(grep -E '^#[0-9]+.*(DONE|cov:)' "$b/fuzz-$n.log" | tail -1)
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	runs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
	summary="$summary$(printf '%-8s cov %5s of %5s edges, %9s inputs' "$n" "${cov:-?}" "${total:-?}" "${runs:-?}")
"
done
printf '%s' "$summary"
exit $rc

# bench/real.sh - workload "real": real programs from Debian source packages.
#
# Sourced by bench/run.sh.  Lua 5.4 (the interpreter running bench/real/work.lua) and
# SQLite's speedtest1 (test/speedtest1.c of the sqlite3 source, linked with the
# amalgamation, on an in-memory database) are each built twice from Debian's sources:
# uninstrumented, and with the flags `utrace cflags` prints.  The builds are cached under
# bench/out/real-cache/ (a stamp file records the flags and the source; a change of either
# rebuilds), so that a rerun does not spend two minutes compiling.  The sources are fetched
# with `apt-get source --download-only` into bench/out/src/ (deb-src must be enabled:
# `make deps-bench` does it as shared/DESIGN.md says).
#
# Each configuration runs BENCH_REAL_REPEAT times (default 3), in rounds whose order is
# rotated by one each round.  The time is the wall time of the whole command, start-up
# and exit included (for uftrace, also writing its data), as a user would see it.
#
# Results, under $BENCH_OUT/real/:
#   runs.tsv      prog config round seconds written overrun dropped uftrace_bytes
#   rows.tsv      prog config status text
#   commands.tsv  prog config command
#   builds.tsv    prog variant status seconds text (what the build did: cached, built, failed)
#   why.txt       why a program could not be measured

BENCH_REAL_REPEAT=${BENCH_REAL_REPEAT:-3}
# Work per run: chosen so that the uninstrumented run takes a few tenths of a second
# and uftrace's data (16 bytes per entry and per exit) stays near a gigabyte of tmpfs.
BENCH_LUA_ARGS=${BENCH_LUA_ARGS:-6 32}
BENCH_SQLITE_SIZE=${BENCH_SQLITE_SIZE:-20}
REAL_PROGS="lua sqlite"
REAL_CONFIGS="plain fpe ut-dormant ut-function ut-graph uftrace"
REAL_CACHE=$BENCH_OUT/real-cache
REAL_SRC=$BENCH_OUT/src
REAL_PLAIN_CFLAGS="-O2 -g"
SQLITE_DEFS="-DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION"

# real_orig PACKAGE: the last (in glob order) upstream tarball of PACKAGE in $REAL_SRC;
# SQLite's second tarball, the web site (orig-www), is not it.
real_orig() {
	f=
	for t in "$REAL_SRC/$1"_*.orig.tar.*; do
		case $t in *orig-www*) ;; *) [ -f "$t" ] && f=$t ;; esac
	done
	echo "$f"
}

# real_fetch PACKAGE: the upstream tarball of PACKAGE's Debian source, fetched if
# missing; prints its path (nothing when it could not be had).
real_fetch() {
	mkdir -p "$REAL_SRC"
	f=$(real_orig "$1")
	if [ -z "$f" ]; then
		(cd "$REAL_SRC" && to 300 apt-get source --download-only "$1") \
			>"$REAL_OUT/fetch-$1.log" 2>&1
		f=$(real_orig "$1")
	fi
	[ -n "$f" ] && echo "$f"
}

# real_stamp_ok DIR STAMP: whether DIR holds a build made from exactly STAMP.
real_stamp_ok() { [ -f "$1/stamp" ] && [ "$(cat "$1/stamp")" = "$2" ]; }

# real_build_lua VARIANT CFLAGS: $REAL_CACHE/lua-VARIANT/lua from the orig tarball, with
# Lua's own makefile (target linux-noreadline; CFLAGS added through MYCFLAGS).
real_build_lua() {
	d=$REAL_CACHE/lua-$1
	stamp="$(basename "$LUA_TAR") $2"
	if real_stamp_ok "$d" "$stamp" && [ -x "$d/lua" ]; then
		echo "lua $1 cached 0 $stamp" >> "$REAL_OUT/builds.tsv"
		return 0
	fi
	rm -rf "$d"
	mkdir -p "$d/tree"
	t0=$(now_s)
	tar -xf "$LUA_TAR" -C "$d/tree" --strip-components=1 &&
		make -C "$d/tree/src" -j2 linux-noreadline MYCFLAGS="$2" >"$d/build.log" 2>&1 &&
		cp "$d/tree/src/lua" "$d/lua"
	rc=$?
	t1=$(now_s)
	rm -rf "$d/tree"
	if [ $rc -ne 0 ]; then
		echo "lua $1 failed 0 see bench/out/real-cache/lua-$1/build.log" >> "$REAL_OUT/builds.tsv"
		return 1
	fi
	echo "$stamp" > "$d/stamp"
	echo "lua $1 built $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') $stamp" \
		>> "$REAL_OUT/builds.tsv"
}

# real_sqlite_amalgamation: sqlite3.c from the full source tree (its makefile generates it
# with tclsh), once per source tarball; speedtest1.c is copied beside it.
real_sqlite_amalgamation() {
	d=$REAL_CACHE/sqlite-amalgamation
	stamp=$(basename "$SQLITE_TAR")
	real_stamp_ok "$d" "$stamp" && [ -f "$d/sqlite3.c" ] && return 0
	if ! command -v tclsh >/dev/null; then
		echo "tclsh is missing (package tcl8.6), which SQLite's makefile needs to generate sqlite3.c" \
			> "$REAL_OUT/sqlite-why.txt"
		return 1
	fi
	rm -rf "$d"
	mkdir -p "$d/tree" "$d/gen"
	tar -xf "$SQLITE_TAR" -C "$d/tree" --strip-components=1 &&
		(cd "$d/gen" && ../tree/configure --disable-tcl && make sqlite3.c) \
			>"$d/build.log" 2>&1 &&
		cp "$d/gen/sqlite3.c" "$d/gen/sqlite3.h" "$d/tree/test/speedtest1.c" "$d/"
	rc=$?
	rm -rf "$d/tree" "$d/gen"
	if [ $rc -ne 0 ]; then
		echo "generating sqlite3.c failed (bench/out/real-cache/sqlite-amalgamation/build.log)" \
			> "$REAL_OUT/sqlite-why.txt"
		return 1
	fi
	echo "$stamp" > "$d/stamp"
}

# real_build_sqlite VARIANT CFLAGS &: $REAL_CACHE/sqlite-VARIANT/speedtest1.  One
# translation unit, so the two variants are built at the same time (one per CPU).
real_build_sqlite() {
	a=$REAL_CACHE/sqlite-amalgamation
	d=$REAL_CACHE/sqlite-$1
	stamp="$(basename "$SQLITE_TAR") $SQLITE_DEFS $2"
	if real_stamp_ok "$d" "$stamp" && [ -x "$d/speedtest1" ]; then
		echo "sqlite $1 cached 0 $stamp" >> "$REAL_OUT/builds.tsv"
		return 0
	fi
	rm -rf "$d"
	mkdir -p "$d"
	t0=$(now_s)
	# shellcheck disable=SC2086
	gcc $2 $SQLITE_DEFS -I"$a" -o "$d/speedtest1" "$a/speedtest1.c" "$a/sqlite3.c" -lm \
		>"$d/build.log" 2>&1
	rc=$?
	t1=$(now_s)
	if [ $rc -ne 0 ]; then
		echo "sqlite $1 failed 0 see bench/out/real-cache/sqlite-$1/build.log" \
			>> "$REAL_OUT/builds.tsv"
		return 1
	fi
	echo "$stamp" > "$d/stamp"
	echo "sqlite $1 built $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') $stamp" \
		>> "$REAL_OUT/builds.tsv"
}

# real_builds: fetch and build both programs; sets REAL_OK_lua and REAL_OK_sqlite (1/0)
# and REAL_WHY_lua, REAL_WHY_sqlite.
real_builds() {
	REAL_OK_lua=0
	REAL_OK_sqlite=0
	REAL_WHY_lua="not built"
	REAL_WHY_sqlite="not built"
	if [ ! -x "$UTRACE_CLI" ]; then
		REAL_WHY_lua="${UTRACE_CLI#"$TOP"/} is missing, so there are no utrace cflags"
		REAL_WHY_sqlite=$REAL_WHY_lua
		return 0
	fi
	REAL_FPE_CFLAGS="$REAL_PLAIN_CFLAGS $("$UTRACE_CLI" cflags)"
	LUA_TAR=$(real_fetch lua5.4)
	if [ -z "$LUA_TAR" ]; then
		REAL_WHY_lua="apt-get source lua5.4 failed (deb-src not enabled? make deps-bench;"
		REAL_WHY_lua="$REAL_WHY_lua bench/out/real/fetch-lua5.4.log)"
	elif real_build_lua plain "$REAL_PLAIN_CFLAGS" && real_build_lua fpe "$REAL_FPE_CFLAGS"; then
		REAL_OK_lua=1
	else
		REAL_WHY_lua="the build failed (bench/out/real-cache/lua-*/build.log)"
	fi
	SQLITE_TAR=$(real_fetch sqlite3)
	if [ -z "$SQLITE_TAR" ]; then
		REAL_WHY_sqlite="apt-get source sqlite3 failed (deb-src not enabled? make deps-bench;"
		REAL_WHY_sqlite="$REAL_WHY_sqlite bench/out/real/fetch-sqlite3.log)"
	elif ! real_sqlite_amalgamation; then
		REAL_WHY_sqlite=$(cat "$REAL_OUT/sqlite-why.txt")
	else
		real_build_sqlite plain "$REAL_PLAIN_CFLAGS" &
		p1=$!
		real_build_sqlite fpe "$REAL_FPE_CFLAGS"
		r2=$?
		wait $p1
		r1=$?
		if [ $r1 -eq 0 ] && [ $r2 -eq 0 ]; then
			REAL_OK_sqlite=1
		else
			REAL_WHY_sqlite="the build failed (bench/out/real-cache/sqlite-*/build.log)"
		fi
	fi
}

# real_argv PROG VARIANT: the command line of PROG's build VARIANT (plain or fpe).
real_argv() {
	case $1 in
	lua) echo "$REAL_CACHE/lua-$2/lua $BENCH_DIR/real/work.lua $BENCH_LUA_ARGS" ;;
	sqlite) echo "$REAL_CACHE/sqlite-$2/speedtest1 --memdb --size $BENCH_SQLITE_SIZE" ;;
	esac
}

# real_command PROG CONFIG: the command as the report prints it.
real_command() {
	a=$(real_argv "$1" plain | sed "s|$TOP/||g")
	f=$(real_argv "$1" fpe | sed "s|$TOP/||g")
	case $2 in
	plain) echo "$a" ;;
	fpe) echo "$f" ;;
	ut-dormant) echo "UTRACE_TRACING=/nonexistent LD_PRELOAD=$LIBUTRACE_SHOWN $f" ;;
	ut-function) echo "echo function > \$MNT/current_tracer; UTRACE_TRACING=\$MNT" \
		"LD_PRELOAD=$LIBUTRACE_SHOWN $f; echo nop > \$MNT/current_tracer" ;;
	ut-graph) echo "echo function_graph > \$MNT/current_tracer; UTRACE_TRACING=\$MNT" \
		"LD_PRELOAD=$LIBUTRACE_SHOWN $f; echo nop > \$MNT/current_tracer" ;;
	uftrace) echo "uftrace record -d /dev/shm/DIR -P . $UFT_COMMON $f" ;;
	esac
}

# real_stats MOUNTPOINT: "written overrun dropped" summed over the CPUs' stats files.
real_stats() {
	for s in "$1"/per_cpu/cpu*/stats; do
		to 10 cat "$s"
	done 2>/dev/null | awk -F': ' '
		$1 == "entries" { e += $2 } $1 == "overrun" { o += $2 }
		$1 == "dropped events" { d += $2 }
		END { printf "%d %d %d\n", e + o, o, d }'
}

# real_run_one PROG CONFIG ROUND: one run; appends to runs.tsv, or to failed.tsv.
real_run_one() {
	# shellcheck disable=SC2046
	set -- "$1" "$2" "$3" $(real_argv "$1" "$([ "$2" = plain ] && echo plain || echo fpe)")
	prog=$1
	cfg=$2
	rnd=$3
	shift 3
	before=
	ubytes=0
	out=$BENCH_TMP/real.out
	case $cfg in
	plain | fpe)
		t0=$(now_s)
		to 600 "$@" >"$out" 2>&1
		rc=$? ;;
	ut-dormant)
		t0=$(now_s)
		UTRACE_TRACING=$BENCH_NOMOUNT LD_PRELOAD=$LIBUTRACE to 600 "$@" >"$out" 2>&1
		rc=$? ;;
	ut-function | ut-graph)
		tfs_write "$BENCH_MNT/trace" ""
		before=$(real_stats "$BENCH_MNT")
		[ "$cfg" = ut-function ] && tfs_write "$BENCH_MNT/current_tracer" function
		[ "$cfg" = ut-graph ] && tfs_write "$BENCH_MNT/current_tracer" function_graph
		t0=$(now_s)
		UTRACE_TRACING=$BENCH_MNT LD_PRELOAD=$LIBUTRACE to 600 "$@" >"$out" 2>&1
		rc=$? ;;
	uftrace)
		rm -rf "$BENCH_UDATA"
		t0=$(now_s)
		# shellcheck disable=SC2086
		to 600 uftrace record -d "$BENCH_UDATA" -P . $UFT_COMMON "$@" >"$out" 2>&1 </dev/null
		rc=$? ;;
	esac
	t1=$(now_s)
	if [ -n "$before" ]; then
		after=$(real_stats "$BENCH_MNT")
		tfs_write "$BENCH_MNT/current_tracer" nop
	fi
	if [ "$cfg" = uftrace ]; then
		ubytes=$(cat "$BENCH_UDATA"/*.dat 2>/dev/null | wc -c)
		rm -rf "$BENCH_UDATA"
	fi
	# A run counts only when it ended well and printed what the uninstrumented one did
	# (speedtest1 prints its timings, so only its exit status is checked).
	ok=1
	[ $rc -eq 0 ] || ok=0
	if [ "$prog" = lua ]; then
		res=$(grep '^result' "$out")
		[ -n "$res" ] || ok=0
		[ "$cfg" = plain ] && [ $ok = 1 ] && echo "$res" > "$REAL_OUT/lua-expected"
		[ -f "$REAL_OUT/lua-expected" ] && [ "$res" != "$(cat "$REAL_OUT/lua-expected")" ] && ok=0
	fi
	if [ $ok = 0 ]; then
		echo "bench: real $prog $cfg round $rnd failed (status $rc); not running it again" >&2
		echo "$prog $cfg $rnd $rc" >> "$REAL_OUT/failed.tsv"
		cp "$out" "$REAL_OUT/failed-$prog-$cfg.out"
		return 0
	fi
	ev="0 0 0"
	if [ -n "$before" ]; then
		ev=$(echo "$before $after" | awk '{ printf "%d %d %d", $4 - $1, $5 - $2, $6 - $3 }')
	fi
	echo "$prog $cfg $rnd $(echo "$t0 $t1" | awk '{ printf "%.4f", $2 - $1 }') $ev $ubytes" \
		>> "$REAL_OUT/runs.tsv"
}

# real_available PROG CONFIG: "ok" or "na WHY".
real_available() {
	eval "pok=\$REAL_OK_$1; pwhy=\$REAL_WHY_$1"
	if [ "$pok" != 1 ]; then
		echo "na $pwhy"
		return
	fi
	case $2 in
	ut-dormant) [ "$UT_RUNTIME_OK" = 1 ] && echo ok || echo "na $UT_RUNTIME_WHY" ;;
	ut-function) [ "$UT_FUNC_OK" = 1 ] && echo ok || echo "na $UT_FUNC_WHY" ;;
	ut-graph) [ "$UT_GRAPH_OK" = 1 ] && echo ok || echo "na $UT_GRAPH_WHY" ;;
	uftrace) command -v uftrace >/dev/null && echo ok || echo "na uftrace not installed" ;;
	*) echo ok ;;
	esac
}

workload_real() {
	REAL_OUT=$BENCH_OUT/real
	rm -rf "$REAL_OUT"
	mkdir -p "$REAL_OUT" "$REAL_CACHE"
	UTRACE_CLI=${BENCH_UTRACE_CLI:-$BUILD/bin/utrace}
	case $UTRACE_CLI in /*) ;; *) UTRACE_CLI=$TOP/$UTRACE_CLI ;; esac
	: > "$REAL_OUT/builds.tsv"
	: > "$REAL_OUT/runs.tsv"
	: > "$REAL_OUT/failed.tsv"
	: > "$REAL_OUT/rows.tsv"
	: > "$REAL_OUT/commands.tsv"
	echo "bench: real: fetching and building lua5.4 and sqlite3 (cached in bench/out/real-cache)" >&2
	real_builds
	if [ -z "${UT_FUNC_OK:-}" ]; then
		mkdir -p "$BENCH_OUT/bin"
		gcc $CALLS_CFLAGS -fpatchable-function-entry=5 -o "$BENCH_OUT/bin/calls-fpe" \
			"$CALLS_SRC" -lpthread || return 1
		utrace_probe "$BENCH_OUT/bin/calls-fpe"
	fi
	jobs=
	for p in $REAL_PROGS; do
		for c in $REAL_CONFIGS; do
			a=$(real_available "$p" "$c")
			echo "$p $c $a" >> "$REAL_OUT/rows.tsv"
			echo "$p $c $(real_command "$p" "$c")" >> "$REAL_OUT/commands.tsv"
			[ "$a" = ok ] && jobs="$jobs $p:$c"
		done
	done
	mounted=
	if [ "$UT_FUNC_OK" = 1 ] || [ "$UT_GRAPH_OK" = 1 ]; then
		tfs_mount "$BENCH_MNT" "$BENCH_OUT/utracefs-real.log" && mounted=1
	fi
	[ -n "$mounted" ] && REAL_BUFFER_KB=$(to 10 cat "$BENCH_MNT/buffer_size_kb")
	r=1
	while [ $r -le "$BENCH_REAL_REPEAT" ]; do
		echo "bench: real round $r/$BENCH_REAL_REPEAT" >&2
		# shellcheck disable=SC2086
		for j in $(rotated $r $jobs); do
			grep -q "^${j%%:*} ${j#*:} " "$REAL_OUT/failed.tsv" ||
				real_run_one "${j%%:*}" "${j#*:}" "$r"
		done
		r=$((r + 1))
	done
	if [ -n "$mounted" ]; then
		REAL_BUFFER_KB=$(to 10 cat "$BENCH_MNT/buffer_size_kb")
		REAL_OVERWRITE=$(to 10 cat "$BENCH_MNT/options/overwrite")
		tfs_umount "$BENCH_MNT"
	fi
	return 0
}

real_label() {
	case $1 in
	plain) echo "uninstrumented (-O2 -g)" ;;
	fpe) echo "instrumented (utrace cflags), no runtime" ;;
	ut-dormant) echo "instrumented, libutrace.so preloaded, no daemon" ;;
	ut-function) echo "utrace, tracer function" ;;
	ut-graph) echo "utrace, tracer function_graph" ;;
	uftrace) echo "uftrace record -P . (same build)" ;;
	esac
}

report_real() {
	echo "## Workload: real (Lua 5.4 and SQLite speedtest1, built from Debian sources)"
	echo
	echo "Each program is built twice from its Debian source package: with \`$REAL_PLAIN_CFLAGS\`"
	echo "and with \`$REAL_PLAIN_CFLAGS \$(utrace cflags)\` (\`${REAL_FPE_CFLAGS:-not available}\`)."
	echo "Lua: the interpreter built by its own makefile (\`make linux-noreadline"
	echo "MYCFLAGS=...\`) running bench/real/work.lua (a recursive Fibonacci, then rounds of"
	echo "string formatting, sorting, concatenation and pattern matching).  SQLite:"
	echo "test/speedtest1.c linked with the amalgamation (\`$SQLITE_DEFS\`), on an in-memory"
	echo "database.  Times are wall times of the whole command (start-up, patching and exit"
	echo "included), $BENCH_REAL_REPEAT runs of each configuration in rotated order; utrace's"
	echo "buffer is the default (buffer_size_kb ${REAL_BUFFER_KB:-?}, overwrite"
	echo "${REAL_OVERWRITE:-?}).  Events are counted by utracefs (per_cpu/cpu*/stats: written ="
	echo "entries + overrun, overwritten = overrun, lost = dropped events); for uftrace the"
	echo "size of its .dat files is given (16 bytes per entry or exit record)."
	echo
	echo "Builds this run:"
	echo
	while read -r p v st sec rest; do
		case $st in
		cached) echo "- $p $v: taken from the cache (\`$rest\`)" ;;
		built) echo "- $p $v: built in $sec s (\`$rest\`)" ;;
		*) echo "- $p $v: **failed**, $rest" ;;
		esac
	done < "$REAL_OUT/builds.tsv"
	echo
	for p in $REAL_PROGS; do
		case $p in
		lua) echo "### Lua 5.4: \`lua work.lua $BENCH_LUA_ARGS\`" ;;
		sqlite) echo "### SQLite: \`speedtest1 --memdb --size $BENCH_SQLITE_SIZE\`" ;;
		esac
		echo
		awk -v p="$p" '$1 == p { print $2, $4 }' "$REAL_OUT/runs.tsv" | stats_by_key \
			> "$REAL_OUT/stats-$p.tsv"
		base=$(awk '$1 == "plain" { print $4 }' "$REAL_OUT/stats-$p.tsv")
		echo "| configuration | runs | min s | median s | max s | × uninstrumented |" \
			"events written (median) | overwritten | lost | events/s | uftrace data MB |"
		echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		for c in $REAL_CONFIGS; do
			st=$(awk -v p="$p" -v c="$c" '$1 == p && $2 == c { $1 = $2 = ""; print substr($0, 3) }' \
				"$REAL_OUT/rows.tsv")
			if [ "$st" != ok ]; then
				echo "| $(real_label "$c") | 0 | not available: ${st#na } | | | | | | | | |"
				continue
			fi
			fl=$(awk -v p="$p" -v c="$c" '$1 == p && $2 == c { print "round " $3 ", status " $4 }' \
				"$REAL_OUT/failed.tsv")
			awk -v p="$p" -v c="$c" -v l="$(real_label "$c")" -v b="${base:-0}" -v fl="$fl" '
				$1 == p && $2 == c { n++; t[n] = $4; w[n] = $5; o[n] = $6; d[n] = $7; u[n] = $8 }
				function med(a, n,   i, j, x) {
					for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--)
						a[j + 1] = a[j]; a[j + 1] = x }
					return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
				END {
					if (!n) { printf "| %s | 0 | failed (%s) | | | | | | | | |\n", l, fl; exit }
					tm = med(t, n); mn = t[1]; mx = t[n]
					wm = med(w, n); om = med(o, n); dm = med(d, n); um = med(u, n)
					ev = (c ~ /^ut-(function|graph)/) ? sprintf("%d", wm) : "—"
					ov = (c ~ /^ut-(function|graph)/) ? sprintf("%d", om) : "—"
					ls = (c ~ /^ut-(function|graph)/) ? sprintf("%d", dm) : "—"
					eps = (c ~ /^ut-(function|graph)/ && tm > 0) ? sprintf("%.3g M", wm / tm / 1e6) : "—"
					ud = (c == "uftrace") ? sprintf("%.0f", um / 1e6) : "—"
					printf "| %s | %d | %.3f | %.3f | %.3f | %s | %s | %s | %s | %s | %s |\n", l, n,
						mn, tm, mx, (c == "plain") ? "1.00" : (b > 0) ? sprintf("%.2f", tm / b) : "—", ev, ov, ls, eps, ud
					if (fl != "") printf "| (%s also failed once: %s) | | | | | | | | | | |\n", c, fl
				}' "$REAL_OUT/runs.tsv"
		done
		echo
		# Ratios the issue asks for, from the medians.
		awk 'NR == FNR { m[$1] = $4; next } END {
			b = m["plain"]
			if (b > 0 && ("ut-function" in m)) printf "utrace function / uninstrumented: %.2f×. ", m["ut-function"] / b
			if (b > 0 && ("ut-graph" in m)) printf "utrace function_graph / uninstrumented: %.2f×. ", m["ut-graph"] / b
			if (("uftrace" in m) && ("ut-graph" in m) && m["ut-graph"] > b && b > 0)
				printf "uftrace overhead / utrace function_graph overhead (both record entries and exits): %.1f× (target ≥ 3×: %s). ",
					(m["uftrace"] - b) / (m["ut-graph"] - b),
					((m["uftrace"] - b) / (m["ut-graph"] - b) >= 3) ? "met" : "**not met**"
			if (("uftrace" in m) && ("ut-function" in m) && m["ut-function"] > b && b > 0)
				printf "uftrace overhead / utrace function overhead: %.1f× (uftrace records entries and exits, the function tracer entries only).", (m["uftrace"] - b) / (m["ut-function"] - b)
			print "" }' "$REAL_OUT/stats-$p.tsv" "$REAL_OUT/stats-$p.tsv"
		echo
		echo "Commands (\$MNT: the utracefs mount; the uftrace data directory is on tmpfs and"
		echo "removed after each run):"
		echo
		awk -v p="$p" '$1 == p { $1 = ""; c = $2; $2 = ""; sub(/^ +/, ""); printf "- %s: `%s`\n", c, $0 }' \
			"$REAL_OUT/commands.tsv"
		echo
	done
}

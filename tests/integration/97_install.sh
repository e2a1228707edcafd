#!/bin/sh
# 97_install.sh - make install DESTDIR=... PREFIX=/usr lays out a package that works
# from where it was put: the programs, libutrace.so with its soname, the headers, a
# utrace.pc with which examples/hello builds and is traced by the installed utrace,
# manual pages that render without a warning, the bash completion; make uninstall
# takes every file back.  Checked once, on the plain build (an install copies files
# and builds nothing).
. "$(dirname "$0")/lib.sh"

case $UT_BUILD in
*/build) ;;
*) skip "make install" "checked on the plain build only"; exit 0 ;;
esac
R=$UT_TMP/root
U=$R/usr
M=$UT_TMP/m/tracing # mounted and unmounted by the installed `utrace record`
inst_cleanup() {
	grep -q " $M " /proc/self/mountinfo 2>/dev/null && fusermount3 -u -z "$M"
	ut_cleanup
}
trap inst_cleanup EXIT

if ! make -s -C "$UT_TOP" install B="$UT_BUILD" PREFIX=/usr DESTDIR="$R" >"$UT_TMP/make.log" 2>&1; then
	fail "make install" "$(cat "$UT_TMP/make.log")"
	exit 0
fi
version=$("$UTRACE" --version | sed 's/^utrace //')
missing=
for f in bin/utrace bin/utracefs "lib/libutrace.so.$version" lib/libutrace.so.0 lib/libutrace.so \
	lib/libutrace-tracecmd.so share/man/man1/utrace-trace-cmd.1 \
	include/utrace/utrace.h include/utrace/event.h lib/pkgconfig/utrace.pc share/man/man1/utrace.1 \
	share/man/man1/utrace-record.1 share/man/man3/libutrace.3 share/man/man8/utracefs.8 \
	share/bash-completion/completions/utrace; do
	[ -e "$U/$f" ] || missing="$missing $f"
done
expect_eq "every file in its place under PREFIX" "" "$missing"
expect_eq "the library's soname, and its links" "libutrace.so.0 libutrace.so.$version libutrace.so.0" \
	"$(readelf -d "$U/lib/libutrace.so.$version" | sed -n 's/.*soname: \[\(.*\)\]/\1/p') $(
		readlink "$U/lib/libutrace.so.0") $(readlink "$U/lib/libutrace.so")"
ncmds=$("$UTRACE" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { n++ } on && /^$/ { exit } END { print n }')
expect_eq "a manual page for utrace and one for each of its commands" "$((ncmds + 1))" \
	"$(ls "$U"/share/man/man1/utrace*.1 | wc -l)"
warn=
for p in "$U"/share/man/man*/*; do
	w=$(groff -man -ww -z "$p" 2>&1) || w="$w (status $?)"
	[ -n "$w" ] && warn="$warn$(basename "$p"): $w
"
done
expect_eq "every manual page renders without a warning" "" "$warn"
expect_match "utrace-record(1) has the command's options" "^\.B \\\\-p TRACER$" \
	"$(cat "$U/share/man/man1/utrace-record.1")"

# pkg-config: --define-prefix finds the package where DESTDIR put it
pc() { PKG_CONFIG_PATH=$U/lib/pkgconfig pkg-config --define-prefix "$@" utrace; }
expect_eq "pkg-config: the tracing flag and the headers" "-fpatchable-function-entry=5 -I$U/include" \
	"$(pc --cflags | sed "s/ *$//")"
expect_match "pkg-config: the link line keeps the runtime NEEDED" \
	"^-L$U/lib -Wl,-rpath,$U/lib -Wl,--push-state,--no-as-needed -lutrace -Wl,--pop-state" "$(pc --libs)"
expect_eq "pkg-config: the version" "$version" "$(pc --modversion)"
bad=
for ex in "$UT_TOP"/examples/*.c; do
	# shellcheck disable=SC2046
	cc $(pc --cflags) -O2 -o "$UT_TMP/ex" "$ex" $(pc --libs) -lpthread 2>>"$UT_TMP/cc.log" ||
		bad="$bad $(basename "$ex")"
done
expect_eq "every program of examples/ builds with pkg-config's flags alone" "" "$bad"
# shellcheck disable=SC2046
if cc $(pc --cflags) -O2 -o "$UT_TMP/hello" "$UT_TOP/examples/hello.c" $(pc --libs) 2>"$UT_TMP/cc.log"; then
	expect_match "examples/hello built with pkg-config's flags alone needs libutrace.so.0" \
		"NEEDED.*\[libutrace\.so\.0\]" "$(readelf -d "$UT_TMP/hello")"
	mkdir -p "$(dirname "$M")"
	(cd "$UT_TMP" && UTRACE_TRACING=$M "$U/bin/utrace" record --text -p function -o "$UT_TMP/hello.txt" \
		./hello >"$UT_TMP/rec.out" 2>"$UT_TMP/rec.err")
	expect_match "the installed utrace (and its utracefs, and the installed runtime) traces it" \
		"hello-[0-9]+ .*: sum_of_squares <-main" "$(cat "$UT_TMP/hello.txt" "$UT_TMP/rec.err")"
else
	fail "examples/hello built with pkg-config's flags alone" "$(cat "$UT_TMP/cc.log")"
fi

# bash completion: commands from the help, a command's options from its help
comp() { # WORDS...: what completing the last word offers
	bash -c '. "$1/share/bash-completion/completions/utrace"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_utrace "$U/bin/utrace" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		echo "${COMPREPLY[*]}"' sh "$U" "$@"
}
export U
expect_eq "completion: the commands" "record report reset" "$(comp utrace re)"
expect_eq "completion: a command's options" "-s -r -f -c -B" "$(comp utrace snapshot -)"

make -s -C "$UT_TOP" uninstall B="$UT_BUILD" PREFIX=/usr DESTDIR="$R" >"$UT_TMP/make.log" 2>&1 ||
	fail "make uninstall" "$(cat "$UT_TMP/make.log")"
expect_eq "make uninstall takes every file back" "" "$(find "$R" ! -type d)"

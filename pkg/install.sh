#!/bin/sh
# pkg/install.sh install|uninstall BUILD VERSION - make install / make uninstall.
# PREFIX (default /usr/local) and DESTDIR (default empty) come from the environment,
# as the Makefile passes them.  The layout keeps utracefs and libutrace.so where the
# utrace command looks for them (bin/ and ../lib/ from itself):
#   PREFIX/bin/utrace, PREFIX/bin/utracefs
#   PREFIX/lib/libutrace.so.VERSION, libutrace.so.0 (the soname), libutrace.so
#   PREFIX/lib/libutrace-tracecmd.so (preloaded into trace-cmd by `utrace trace-cmd`)
#   PREFIX/include/utrace/*.h, PREFIX/lib/pkgconfig/utrace.pc
#   PREFIX/share/man/man1/utrace.1 and utrace-COMMAND.1 (BUILD/man, pkg/man/gen.sh),
#   man3/libutrace.3, man8/utracefs.8
#   PREFIX/share/bash-completion/completions/utrace
set -eu
what=$1 B=$2 VERSION=$3
PREFIX=${PREFIX:-/usr/local}
D=${DESTDIR:-}$PREFIX
top=$(cd "$(dirname "$0")/.." && pwd)
SONAME=libutrace.so.0

case $PREFIX in /*) ;; *) echo "install.sh: PREFIX must be an absolute path: $PREFIX" >&2; exit 2 ;; esac

case $what in
install)
	install -d "$D/bin" "$D/lib/pkgconfig" "$D/include/utrace" "$D/share/man/man1" \
		"$D/share/man/man3" "$D/share/man/man8" "$D/share/bash-completion/completions"
	install -m 755 "$B/bin/utrace" "$B/bin/utracefs" "$D/bin/"
	install -m 755 "$B/lib/libutrace.so" "$D/lib/libutrace.so.$VERSION"
	ln -sf "libutrace.so.$VERSION" "$D/lib/$SONAME"
	ln -sf "$SONAME" "$D/lib/libutrace.so"
	install -m 755 "$B/lib/libutrace-tracecmd.so" "$D/lib/"
	install -m 644 "$top"/include/utrace/*.h "$D/include/utrace/"
	sed -e "s|@PREFIX@|$PREFIX|" -e "s|@VERSION@|$VERSION|" \
		"$top/pkg/utrace.pc.in" > "$D/lib/pkgconfig/utrace.pc"
	chmod 644 "$D/lib/pkgconfig/utrace.pc"
	install -m 644 "$B"/man/*.1 "$D/share/man/man1/"
	install -m 644 "$top/pkg/man/libutrace.3" "$D/share/man/man3/"
	install -m 644 "$top/pkg/man/utracefs.8" "$D/share/man/man8/"
	install -m 644 "$top/pkg/utrace.bash" "$D/share/bash-completion/completions/utrace"
	;;
uninstall)
	rm -f "$D/bin/utrace" "$D/bin/utracefs" "$D/lib/libutrace.so.$VERSION" "$D/lib/$SONAME" \
		"$D/lib/libutrace.so" "$D/lib/libutrace-tracecmd.so" "$D/lib/pkgconfig/utrace.pc" \
		"$D/share/man/man1/utrace.1" \
		"$D"/share/man/man1/utrace-*.1 "$D/share/man/man3/libutrace.3" \
		"$D/share/man/man8/utracefs.8" "$D/share/bash-completion/completions/utrace"
	for h in "$top"/include/utrace/*.h; do rm -f "$D/include/utrace/$(basename "$h")"; done
	rmdir "$D/include/utrace" 2>/dev/null || true
	;;
*)
	echo "usage: pkg/install.sh install|uninstall BUILD VERSION" >&2
	exit 2
	;;
esac

#!/bin/sh
# pkg/man/gen.sh UTRACE OUTDIR - write the manual pages utrace.1 and utrace-COMMAND.1
# into OUTDIR from the CLI's own help (`utrace --help`, `utrace help COMMAND`), so
# that the pages and the help never disagree.  The layout of the help is the
# CLI's convention (cmd/): a "usage:" block, paragraphs, option blocks whose first
# line is "  -X ARG  text", and examples indented by four spaces.
set -eu
UTRACE=$1 OUT=$2
mkdir -p "$OUT"
version=$("$UTRACE" --version | sed 's/^utrace //')

# The help text of one command on stdin to roff on stdout (after the NAME section).
to_roff() {
	awk '
	function esc(s) {
		gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s)
		if (s ~ /^[.'"'"']/) s = "\\&" s
		return s
	}
	BEGIN { sec = "synopsis"; print ".SH SYNOPSIS"; print ".nf" }
	sec == "synopsis" && /^usage: / { sub(/^usage: /, ""); print esc($0); next }
	sec == "synopsis" && /^ +[^ ]/ { sub(/^ +/, "        "); print esc($0); next }
	sec == "synopsis" && /^$/ { print ".fi"; print ".SH DESCRIPTION"; sec = "text"; next }
	sec == "text" && /^$/ { if (ex) { print ".fi"; ex = 0 } print ".PP"; next }
	sec == "text" && /^    [^ ]/ && !opt { if (!ex) { print ".nf"; ex = 1 } sub(/^    /, "  "); print esc($0); next }
	sec == "text" && /^  -/ {
		if (ex) { print ".fi"; ex = 0 }
		line = $0; sub(/^  /, "", line)
		# the option and its argument end at the first run of two spaces
		i = index(line, "  ")
		head = i ? substr(line, 1, i - 1) : line
		rest = i ? substr(line, i) : ""
		sub(/^ +/, "", rest)
		print ".TP"; print ".B " esc(head)
		if (rest != "") print esc(rest)
		opt = 1; next
	}
	sec == "text" && opt && /^     +[^ ]/ { sub(/^ +/, ""); print esc($0); next }
	sec == "text" { opt = 0; if (ex) { print ".fi"; ex = 0 } sub(/^ +/, ""); print esc($0) }
	END { if (sec == "synopsis") print ".fi"; if (ex) print ".fi" }
	'
}

header() { # NAME SECTION
	printf '%s\n' ".\\\" Written by pkg/man/gen.sh from the CLI's help: change cmd/ instead."
	echo ".TH $(echo "$1" | tr a-z A-Z) $2 \"\" \"utrace $version\" \"utrace manual\""
}

# The commands and their summaries: the lines under "commands:" in --help.
cmds=$("$UTRACE" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print } on && /^$/ { exit }')

{
	header utrace 1
	cat <<'ROFF'
.SH NAME
utrace \- ftrace for user\-space programs
.SH SYNOPSIS
.B utrace
.I COMMAND
[\fIOPTIONS\fR] [\fIARGS\fR]
.SH DESCRIPTION
utrace traces the functions and events of programs compiled with
.B \-fpatchable\-function\-entry=5
(\fButrace cflags\fR prints the flags) through a file system of control files
that behaves as the kernel's ftrace (tracefs):
.BR utracefs (8)
serves it,
.BR libutrace (3)
runs inside each traced program, and this command drives both.
.SH COMMANDS
ROFF
	echo "$cmds" | while read -r c summary; do
		printf '.TP\n.BR utrace\\-%s (1)\n%s\n' "$c" "$(echo "$summary" | sed 's/-/\\-/g')"
	done
	cat <<'ROFF'
.SH ENVIRONMENT
.TP
.B UTRACE_TRACING
where utracefs is mounted (an absolute path); by default
\fB${XDG_RUNTIME_DIR:\-/tmp}/utrace\-$UID/tracing\fR.  Traced programs
(libutrace(3)) and utracefs(8) read it too: all three must agree.
.SH SEE ALSO
ROFF
	echo "$cmds" | while read -r c _; do printf '.BR utrace\\-%s (1),\n' "$c"; done
	printf '.BR utracefs (8),\n.BR libutrace (3)\n'
} > "$OUT/utrace.1"

echo "$cmds" | while read -r c summary; do
	{
		header "utrace-$c" 1
		printf '.SH NAME\nutrace\\-%s \\- %s\n' "$c" "$(echo "$summary" | sed 's/-/\\-/g')"
		"$UTRACE" help "$c" | to_roff
		echo ".SH SEE ALSO"
		echo ".BR utrace (1)"
	} > "$OUT/utrace-$c.1"
done

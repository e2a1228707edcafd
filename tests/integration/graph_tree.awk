# graph_tree.awk - call trees, one line per thread, from a function_graph trace, a
# function trace, or an expected-tree file (tests/progs/graph_*.tree), so that
# 70_graph.sh can compare them with `sort` and `=`.
#
#   awk -f graph_tree.awk [-v mode=graph|function|expect] [-v names=1]
#       [-v collapse=1] [-v ignore="f g"] [-v raw=1] FILE
#
# Output: for each thread (process), one line "D name|D name|..." listing the
# function entries in order with their depth (with names=1, "name|name|...").
# Times are ignored: only names and nesting count.
#
# mode=graph: the function_graph text of the kernel's format (CONFORMANCE.md):
#   " 0)               |  main() {", " 0)   0.123 us    |    leaf();", " 0) ... |  }".
#   The depth is the indentation after the duration column's "|  ", two spaces a
#   level.  Lines are told apart by thread with funcgraph-proc ("comm-pid" column);
#   without it, by the task-switch banners (" 1) a-12 => b-34"), per CPU.  Exits,
#   comments ("/* text */"), signal markers ("==========>") and headers are skipped.
#   The duration column must be on (funcgraph-duration, the default).
# mode=function: the function tracer's lines ("comm-pid [cpu] flags ts: f <-p");
#   only names (names=1 is implied), in the order of the lines of each thread.
# mode=expect: lines "DEPTH NAME"; "thread" starts a thread's tree; "#" comments;
#   the directives "collapse" and "ignore NAME..." are applied as the options are.
#
# Names are compared without the "()" the graph prints, without a C++ parameter
# list and without " [clone ...]" suffixes: "Guard::~Guard()" is "Guard::~Guard".
# collapse=1 turns a run of entries of one function, each one level below the
# last (recursion), into its first entry with "+" appended: "2 rec+" (mode=function:
# a run of the same name).  Entries
# of the functions named in ignore are left out, and so is what they called.
# raw=1 prints "THREAD DEPTH NAME" for each entry instead (after ignore, not
# collapsed), for checks on the depths themselves.

function norm(s,    i, c, d) {
	if (s ~ /\(\)$/)
		s = substr(s, 1, length(s) - 2)
	sub(/ +\[clone [^]]*\]$/, "", s)
	if (s ~ /\)$/) { # a C++ parameter list: from its "(" to the end
		d = 0
		for (i = length(s); i > 0; i--) {
			c = substr(s, i, 1)
			if (c == ")")
				d++
			else if (c == "(" && --d == 0)
				break
		}
		if (i > 1)
			s = substr(s, 1, i - 1)
	}
	return s
}

# An entry of function NAME at DEPTH in thread KEY.
function entry(key, depth, name) {
	name = norm(name)
	if (key in skipping) { # inside an ignored function: skip until we are back above it
		if (depth > skipping[key])
			return
		delete skipping[key]
	}
	if (index(" " ignore " ", " " name " ")) {
		skipping[key] = depth
		return
	}
	if (!(key in out)) {
		order[++nkeys] = key
		out[key] = ""
	}
	if (raw) {
		print key, depth, name
		return
	}
	# the function tracer has no depths: there a run is the same name repeated
	if (collapse && name == last_name[key] &&
	    (mode == "function" || depth == last_depth[key] + 1)) {
		if (!in_run[key])
			out[key] = out[key] "+"
		in_run[key] = 1
		last_depth[key] = depth
		return
	}
	in_run[key] = 0
	last_name[key] = name
	last_depth[key] = depth
	out[key] = out[key] (out[key] == "" ? "" : "|") (names ? name : depth " " name)
}

function graph_line(line,    cpu, key, pid, text, ind) {
	if (line ~ /^#/ || line ~ /^ *-+ *$/ || line ~ /^ *$/)
		return
	# task-switch banner: " CPU) prev-pid => next-pid"
	if (line ~ /^ *[0-9]+\) .*-[0-9]+ +=> +.*-[0-9]+ *$/) {
		cpu = line
		sub(/\).*/, "", cpu)
		gsub(/ /, "", cpu)
		pid = line
		sub(/ *$/, "", pid)
		sub(/.*-/, "", pid)
		current[cpu] = pid
		return
	}
	# funcgraph-abstime: "  360.774522 |  " before the CPU
	sub(/^ *[0-9]+(\.[0-9]+)? \| +/, "", line)
	cpu = "?"
	if (match(line, /^ *[0-9]+\) /)) {
		cpu = substr(line, 1, RLENGTH)
		gsub(/[ )]/, "", cpu)
		line = substr(line, RLENGTH + 1)
	}
	# funcgraph-proc: "comm-pid" centred, then " | "
	if (match(line, /^ *[^ |]+-[0-9]+ +\| /)) {
		pid = substr(line, 1, RLENGTH)
		sub(/ +\| $/, "", pid)
		sub(/.*-/, "", pid)
		key = pid
		line = substr(line, RLENGTH + 1)
	} else {
		key = (cpu in current) ? current[cpu] : "cpu" cpu
	}
	# the duration column, up to its "|", then two spaces and the indentation
	if (!match(line, /^[^|]*\|/))
		return
	line = substr(line, RLENGTH + 1)
	if (substr(line, 1, 2) != "  ")
		return
	line = substr(line, 3)
	match(line, /^ */)
	ind = RLENGTH
	text = substr(line, ind + 1)
	if (text ~ /^\/\*/ || text ~ /^}/ || text == "")
		return
	if (text ~ /;$/)
		entry(key, int(ind / 2), substr(text, 1, length(text) - 1))
	else if (text ~ / \{$/)
		entry(key, int(ind / 2), substr(text, 1, length(text) - 2))
	else
		entry(key, int(ind / 2), "?" text)
}

function function_line(line,    key, text) {
	if (line ~ /^#/ || !match(line, /-[0-9]+ +(\( *[0-9-]+\) +)?\[[0-9]+\] /))
		return
	key = substr(line, RSTART + 1)
	sub(/[^0-9].*/, "", key)
	text = substr(line, RSTART + RLENGTH)
	if (!match(text, /: /))
		return
	text = substr(text, RSTART + 2)
	if (text ~ /^tracing_mark_write: / || text ~ /^<stack trace>/)
		return
	sub(/ <-.*$/, "", text)
	sub(/\+0x[0-9a-f]+\/0x[0-9a-f]+$/, "", text)
	entry(key, 0, text)
}

function expect_line(line,    depth, name) {
	sub(/#.*/, "", line)
	if (line ~ /^ *$/)
		return
	if (line ~ /^collapse *$/) {
		collapse = 1
		return
	}
	if (line ~ /^ignore /) {
		sub(/^ignore +/, "", line)
		ignore = ignore " " line
		return
	}
	if (line ~ /^thread *$/) {
		nthreads++
		return
	}
	depth = line
	sub(/ .*/, "", depth)
	name = line
	sub(/^[0-9]+ +/, "", name)
	sub(/ *$/, "", name)
	if (sub(/\+$/, "", name)) { # a run: two entries stand for it
		entry("t" nthreads, depth + 0, name)
		entry("t" nthreads, depth + 1, name)
	} else {
		entry("t" nthreads, depth + 0, name)
	}
}

BEGIN {
	if (mode == "")
		mode = "graph"
	if (mode == "function")
		names = 1
}
mode == "graph" { graph_line($0) }
mode == "function" { function_line($0) }
mode == "expect" { expect_line($0) }
END {
	if (raw)
		exit
	for (i = 1; i <= nkeys; i++)
		print out[order[i]]
}

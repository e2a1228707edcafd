# graph_subtree.awk: from `trees` lines ("D NAME|D NAME|..." one per thread), the trees
# function_graph leaves with set_graph_function F (-v f=F): every call of F with what
# it calls, depths counted from F (0), a thread without F has none; or with
# set_graph_notrace F (-v f=F -v cut=1): everything but the calls of F and what they
# call.
{
	n = split($0, it, "|")
	out = ""
	in_f = 0
	for (i = 1; i <= n; i++) {
		d = it[i] + 0
		name = substr(it[i], index(it[i], " ") + 1)
		if (in_f && d <= base)
			in_f = 0
		if (!in_f && name == f) {
			in_f = 1
			base = d
		}
		if (in_f != (cut + 0))
			out = out (out == "" ? "" : "|") (cut ? d : d - base) " " name
	}
	if (out != "")
		print out
}

// SPDX-License-Identifier: MIT
/*
 * fuzz_filter.c - the filter and probe grammar (ftrace_filter.c, ftrace_glob.c,
 * ftrace_probe.c) over a small function table: globs, `!`, line numbers, mod:,
 * the probe commands and their counts, tokens cut across writes; then the
 * filter read back and the selection memfd rebuilt from it (sel.c).
 *
 * Input: byte 0 picks the file (bits 0-1: set_ftrace_filter, set_ftrace_notrace,
 * set_graph_function, set_graph_notrace; bit 2: O_TRUNC; bit 3: instances/f's,
 * where the graph files are the top's), byte 1 the size of each write (0: one
 * write); the rest is the text.
 */
#include "fuzz.h"

static struct tfs_instance *inst_f; /* instances/f: its filters and probes */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct tfs_inst_ref ref;

	fuzz_daemon_init();
	tfs_sel_init();
	if (tfs_inst_mkdir("f", 1) || tfs_inst_lookup("f", 1, &ref))
		abort();
	inst_f = ref.inst;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum tfs_filter which[] = {TFS_FILTER_TRACE, TFS_FILTER_NOTRACE,
						TFS_FILTER_GRAPH, TFS_FILTER_GRAPH_NOTRACE};
	struct tfs_buf b = {0};
	struct tfs_instance *inst;
	enum tfs_filter f;
	size_t chunk;
	void *p;

	if (size < 2)
		return 0;
	f = which[data[0] & 3];
	/* an instance has set_ftrace_filter and set_ftrace_notrace only */
	inst = (data[0] & 8) && f < TFS_FILTER_GRAPH ? inst_f : &tfs_top;
	chunk = data[1] ? data[1] : size;
	fuzz_functions();
	tfs_probes_reset();
	p = tfs_ft_open_priv_inst(inst, f, data[0] & 4);
	if (!p)
		return 0;
	for (size_t off = 2; off < size; off += chunk)
		tfs_ft_write(p, (const char *)data + off, off + chunk < size ? chunk : size - off);
	tfs_ft_close(p);
	tfs_ft_show_inst(inst, f, &b);
	tfs_buf_free(&b);
	tfs_sel_publish();
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * fuzz_ring.c - the ring reader (ring_read.c) and the formatters (output/,
 * tracers/) on arbitrary shared memory, as a hostile process could leave it:
 * CPU 0's write state and every page of its ring come from the input; then
 * `trace` is read whole, per_cpu/cpu0/stats shown, and trace_pipe and
 * trace_pipe_raw drained without blocking.
 *
 * Input: byte 0 the tracer (index into tfs_tracers), byte 1 options (bits:
 * latency-format, sym-offset, sym-addr, raw, hex, bin, record-tgid, annotate),
 * byte 2 bit 0 overwrite mode; then wpos, dropped and read_vpage (8 bytes each,
 * host order), then the pages of the ring from slot 0 on.
 *
 * With FUZZ_RING_SEED=FILE in the environment the harness writes such an input
 * made by the real writers (function, graph, print and raw events) and exits:
 * that is how corpus/ring/ got its seeds.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"
#include "ring_read.h"
#include "ut_ring_write.h"

#define HDR 27

static const enum tfs_opt opt_bits[8] = {
    TFS_OPT_LATENCY_FORMAT, TFS_OPT_SYM_OFFSET, TFS_OPT_SYM_ADDR,    TFS_OPT_RAW,
    TFS_OPT_HEX,	    TFS_OPT_BIN,	TFS_OPT_RECORD_TGID, TFS_OPT_ANNOTATE,
};
static uint64_t default_opts;

static unsigned int nr_tracers(void)
{
	unsigned int n = 0;

	while (tfs_tracers[n])
		n++;
	return n;
}

/* Read a file of the given ops whole, as cat does (O_NONBLOCK for the pipes). */
static void cat(const struct tfs_file_ops *ops, int cpu)
{
	struct tfs_file f = {.name = "f", .kind = TFS_FILE, .ops = ops};
	struct tfs_open o = {.inst = &tfs_top, .file = &f, .cpu = cpu, .flags = O_RDONLY | O_NONBLOCK,
			     .pid = (pid_t)gettid()};
	static char buf[8192];
	off_t off = 0;

	if (ops->open && ops->open(&o))
		return;
	if (ops->show)
		ops->show(&o);
	for (int i = 0; ops->read && i < 10000; i++) {
		ssize_t n = ops->read(&o, buf, sizeof(buf), off);

		if (n <= 0)
			break;
		off += n;
	}
	if (ops->release)
		ops->release(&o);
	tfs_buf_free(&o.content);
}

static void make_seed(const char *path)
{
	struct ut_ev_func fn = {.h = {.len = sizeof(fn), .type = UT_EV_FUNCTION}};
	struct ut_ev_gent ge = {.h = {.len = sizeof(ge), .type = UT_EV_GRAPH_ENT}};
	struct ut_ev_gret gr = {.h = {.len = sizeof(gr), .type = UT_EV_GRAPH_RET}};
	struct rb_cpu *rc = ut_rb_cpu(tfs.area, 0);
	uint8_t hdr[HDR] = {0};
	pid_t tid = (pid_t)gettid();
	FILE *f = fopen(path, "w");

	if (!f)
		exit(1);
	for (int i = 0; i < 40; i++) {
		uint64_t ts = __builtin_ia32_rdtsc();

		fn.h.tid = ge.h.tid = gr.h.tid = (uint32_t)tid;
		fn.h.ts = ge.h.ts = ts;
		fn.ip = ge.ip = gr.ip = (uint64_t)(uintptr_t)make_seed + 5;
		fn.parent_ip = (uint64_t)(uintptr_t)cat;
		tfs_ring_write(&tfs_top, 0, &fn.h);
		ge.depth = gr.depth = (uint32_t)i % 3;
		tfs_ring_write(&tfs_top, 0, &ge.h);
		gr.h.ts = ts + 1000;
		gr.calltime = ts;
		tfs_ring_write(&tfs_top, 0, &gr.h);
		tfs_write_print(&tfs_top, 0, tid, UT_IP_MARKER, "hello marker", 12, 0);
		tfs_write_raw(&tfs_top, 0, tid, "\1\0\0\0payload", 11, 0);
	}
	hdr[0] = 1;
	hdr[2] = 1;
	memcpy(hdr + 3, &rc->wpos, 8);
	memcpy(hdr + 11, &rc->dropped, 8);
	memcpy(hdr + 19, &rc->read_vpage, 8);
	fwrite(hdr, 1, HDR, f);
	for (unsigned int s = 0; s < rc->nr_pages && s <= rb_wpos_slot(rc->wpos); s++)
		fwrite(ut_rb_page(tfs.area, 0, s), 1, UT_RB_PAGE_SIZE, f);
	fclose(f);
	exit(0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_daemon_init();
	default_opts = tfs_top.opts;
	if (getenv("FUZZ_RING_SEED"))
		make_seed(getenv("FUZZ_RING_SEED"));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_cpu *rc;
	size_t room;
	uint64_t opts = default_opts;

	if (size < HDR)
		return 0;
	tfs_set_tracer(&tfs_top, tfs_tracers[data[0] % nr_tracers()]); /* empties the rings */
	for (unsigned int i = 0; i < 8; i++)
		if (data[1] & (1u << i))
			opts ^= 1ull << opt_bits[i];
	tfs_lock();
	tfs_top.opts = opts;
	tfs_unlock();
	tfs_ring_set_overwrite(&tfs_top, data[2] & 1);

	rc = ut_rb_cpu(tfs.area, 0);
	memcpy(&rc->wpos, data + 3, 8);
	memcpy(&rc->dropped, data + 11, 8);
	memcpy(&rc->read_vpage, data + 19, 8);
	room = (size_t)rc->nr_pages * UT_RB_PAGE_SIZE;
	memcpy(ut_rb_page(tfs.area, 0, 0), data + HDR, size - HDR < room ? size - HDR : room);

	cat(&tfs_trace_ops, -1);
	cat(&tfs_stats_ops, 0);
	cat(&tfs_trace_pipe_ops, -1);
	cat(&tfs_trace_pipe_raw_ops, 0);
	tfs_ring_reset(&tfs_top, -1);
	tfs_rr_reset(&tfs_top, -1);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * trace_marker.c - trace_marker and trace_marker_raw: users write events into
 * the buffer.  utracefs writes them on behalf of the writing thread (its tid,
 * preempt depth 1 as the kernel shows a write(2)), through the same ring writer
 * as the traced programs.
 *
 * The kernel's rules, checked on a 6.18 kernel:
 *   - option markers off: EINVAL (before anything else);
 *   - trace_marker keeps what fits one event and reports that count (a longer
 *     write is cut, not refused), adds a newline unless the text ends with one,
 *     and keeps embedded NULs (the text then prints up to the first one);
 *   - trace_marker_raw needs at least the 4-byte id and refuses (EINVAL) what
 *     does not fit one event: raw data is all or nothing;
 *   - the event goes into the ring of the writer's CPU (where the kernel's
 *     write(2) runs); utracefs finds it in /proc/TID/stat, the writer being
 *     blocked in write(2) meanwhile;
 *   - nothing recorded (tracing_on 0, the writer's CPU outside tracing_cpumask,
 *     the buffer full without overwrite): EBADF.
 * What fits is smaller here: our event header is 16 bytes against the kernel's
 * 8, and our pages hold 4064 bytes against 4080, so a marker keeps 4046 bytes
 * where the kernel keeps 4054, and a raw write takes 4044 bytes where the kernel
 * takes 4064.
 *
 * Both events are padded so that as many fill a page as the kernel's
 * (tfs_kfmt_fit_len): a marker in the marker form (ut_ring.h, struct
 * ut_ev_marker), which stores no ip.  Where no multiple of 8 gives the kernel's
 * count (short texts and payloads: our 16-byte header is the floor), a page
 * holds the nearest count below it.
 */
#include <errno.h>
#include <string.h>

#include "output/output.h"
#include "settings.h"
#include "tfs.h"
#include "ut_ring_write.h"

/* the kernel's limits with 4 KB sub-buffers */
#define KERNEL_MARKER_MAX 4054u
#define KERNEL_MARKER_RAW_MAX 4064u

size_t tfs_marker_max(void)
{
	/* the text, its newline and the NUL must fit one event in one page */
	size_t fit = UT_RB_PAGE_DATA - sizeof(struct ut_ev_marker) - 2;

	return fit < KERNEL_MARKER_MAX ? fit : KERNEL_MARKER_MAX;
}

size_t tfs_marker_raw_max(void)
{
	size_t fit = UT_RB_PAGE_DATA - sizeof(struct ut_ev_raw) + sizeof(uint32_t);

	return fit < KERNEL_MARKER_RAW_MAX ? fit : KERNEL_MARKER_RAW_MAX;
}

size_t tfs_marker_text(const char *buf, size_t size, char *out, size_t *len)
{
	size_t n = size < tfs_marker_max() ? size : tfs_marker_max();

	memcpy(out, buf, n);
	*len = n;
	if (!n || out[n - 1] != '\n')
		out[(*len)++] = '\n';
	return n;
}

/* Nothing could be recorded: the kernel's answer is EBADF whatever the cause. */
static int write_err(int err)
{
	switch (err) {
	case -EAGAIN:
	case -ENOSPC:
	case -EBUSY:   /* locked mode: the ring's lock could not be had */
	case -EDEADLK:
		return -EBADF;
	}
	return err;
}

static bool tracing_is_on(const struct tfs_instance *inst)
{
	return __atomic_load_n(&inst->tracing_on, __ATOMIC_RELAXED);
}

/* The CPU the writing thread is on (it waits in write(2)), -1 when unknown. */
static int writer_cpu(pid_t tid)
{
	long cpu;

	return tfs_proc_stat_field(tid, 39, &cpu) == 0 && cpu >= 0 ? (int)cpu : -1;
}

static ssize_t marker_read(struct tfs_open *o, char *buf, size_t size, off_t off)
{
	return -EINVAL; /* write-only, as in the kernel */
}

static ssize_t marker_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	char text[KERNEL_MARKER_MAX + 1];
	pid_t tid = tfs_caller(o);
	size_t len, taken;
	int err;

	if (!tfs_opt(o->inst, TFS_OPT_MARKERS))
		return -EINVAL;
	taken = tfs_marker_text(buf, size, text, &len);
	if (!tracing_is_on(o->inst))
		return -EBADF;
	/* the newline we add is not counted in `bytes`: the kernel adds it when printing */
	err = tfs_write_print(o->inst, writer_cpu(tid), tid, UT_IP_MARKER, text, len,
			      UT_EVF_PREEMPT1 | (len > taken ? UT_EVF_NL_ADDED : 0));
	return err ? write_err(err) : (ssize_t)taken;
}

uint64_t tfs_marker_ip(void)
{
	return (uint64_t)(uintptr_t)marker_write;
}

const struct tfs_file_ops tfs_trace_marker_ops = {
	.read = marker_read,
	.write = marker_write,
	.seek = TFS_SEEK_NONE,
};

/* ---- trace_marker_raw ----------------------------------------------------------------- */

int tfs_write_raw(struct tfs_instance *inst, int cpu, pid_t tid, const void *data, size_t len,
		  uint8_t flags)
{
	union {
		struct ut_ev_raw r;
		uint64_t align[UT_RB_PAGE_DATA / 8];
	} ev;
	size_t payload, evlen;
	int err;

	if (len < sizeof(uint32_t) || len > tfs_marker_raw_max())
		return -EINVAL;
	if (!inst->area)
		return -EAGAIN;
	payload = len - sizeof(uint32_t);
	evlen = (sizeof(struct ut_ev_raw) + payload + 7) & ~(size_t)7;
	ev.r.h.len = (uint16_t)evlen;
	ev.r.h.type = UT_EV_RAW_DATA;
	ev.r.h.flags = flags;
	ev.r.h.tid = (uint32_t)tid;
	ev.r.h.ts = tfs_clock_tsc(); /* the ring writer stamps it again in its sequence */
	memcpy(&ev.r.id, data, sizeof(uint32_t));
	ev.r.size = (uint32_t)payload;
	memcpy(ev.r.buf, (const char *)data + sizeof(uint32_t), payload);
	/* as many to a page as the kernel's; no stale bytes in the padding */
	ev.r.h.len = (uint16_t)tfs_kfmt_fit_len(evlen, tfs_kfmt_size(&ev.r.h));
	memset(ev.r.buf + payload, 0, ev.r.h.len - sizeof(struct ut_ev_raw) - payload);
	err = tfs_ring_write(inst, cpu, &ev.r.h);
	if (err == 0)
		tfs_ring_kick();
	return err;
}

static ssize_t marker_raw_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	pid_t tid = tfs_caller(o);
	int err;

	if (!tfs_opt(o->inst, TFS_OPT_MARKERS))
		return -EINVAL;
	if (size < sizeof(uint32_t) || size > tfs_marker_raw_max())
		return -EINVAL;
	if (!tracing_is_on(o->inst))
		return -EBADF;
	err = tfs_write_raw(o->inst, writer_cpu(tid), tid, buf, size, UT_EVF_PREEMPT1);
	return err ? write_err(err) : (ssize_t)size;
}

const struct tfs_file_ops tfs_trace_marker_raw_ops = {
	.read = marker_read,
	.write = marker_raw_write,
	.seek = TFS_SEEK_NONE,
};

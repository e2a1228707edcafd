// SPDX-License-Identifier: MIT
/*
 * clock.c - turning the writers' raw time stamps (TSC) into the trace clocks.
 *
 * Writers stamp events with rdtsc: the cheapest clock there is, monotonic on
 * each CPU and synchronised across CPUs on the machines we run on.  Every clock
 * the user can select is computed from it when events are read:
 *
 *   local global perf mono   CLOCK_MONOTONIC, in ns (the kernel's local clock
 *                            counts from boot too, so the numbers look alike)
 *   mono_raw, boot, tai      the same plus the offset of CLOCK_MONOTONIC_RAW,
 *                            CLOCK_BOOTTIME and CLOCK_TAI from CLOCK_MONOTONIC
 *                            taken at start (a time stamp must convert the same
 *                            on every reading, so a later step of the wall clock
 *                            is not followed)
 *   uptime                   ticks of 1/100 s (the kernel's jiffies shown in
 *                            USER_HZ), from the same CLOCK_MONOTONIC time
 *   x86-tsc                  the TSC itself
 *   counter                  see below
 *
 * TSC -> CLOCK_MONOTONIC.  A reading of `trace` must never change a time stamp
 * printed before, so the conversion of a given TSC value may never change once
 * it could have been used.  It is piecewise linear: segment i starts at tsc_i
 * with time ns_i and runs at mult_i (ns per tick, 32.32 fixed point).  At start
 * the rate is measured over ~20 ms.  About every 30 s a new segment starts at
 * "now": its ns is what the previous segment gives for now (so time stays
 * continuous and monotonic), and its rate is the rate measured over the whole
 * run so far (the long baseline, ever more precise) plus a correction, at most
 * 500 ppm, that brings the converted time back onto CLOCK_MONOTONIC by the end
 * of the next segment.  A finished segment never changes; events are always
 * older than the reading that converts them, so they are converted by the
 * segment that will always convert them.
 *
 * counter.  The kernel's counter clock is an atomic counter bumped by every
 * event: it orders events across CPUs and is stable.  Our writers cannot bump a
 * shared counter on the hot path (a locked add costs more than the rest of the
 * event), and numbering events while reading them would give an event a
 * different number on every reading as older events are overwritten or
 * consumed.  So counter is the TSC counted from the start of utracefs: it keeps
 * both properties that matter (a strict order of the events of a CPU, the same
 * order across CPUs, and the same value on every reading) but it does not step
 * by one per event.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "settings.h"
#include "tfs.h"

const char *const tfs_clock_names[TFS_CLOCK_NR] = {
	[TFS_CLOCK_LOCAL] = "local",   [TFS_CLOCK_GLOBAL] = "global",
	[TFS_CLOCK_COUNTER] = "counter", [TFS_CLOCK_UPTIME] = "uptime",
	[TFS_CLOCK_PERF] = "perf",     [TFS_CLOCK_MONO] = "mono",
	[TFS_CLOCK_MONO_RAW] = "mono_raw", [TFS_CLOCK_BOOT] = "boot",
	[TFS_CLOCK_TAI] = "tai",       [TFS_CLOCK_X86_TSC] = "x86-tsc",
};

#define NSEC_PER_SEC 1000000000ull
#define NSEC_PER_UPTIME_TICK 10000000ull /* USER_HZ = 100 */
#define CALIBRATE_NS 20000000ull
#define SEGMENT_NS (30 * NSEC_PER_SEC)
#define MAX_SEGMENTS 8192	/* 68 hours of 30 s segments; then the last rate stays */
#define MAX_CORRECTION 2000	/* rate correction at most 1/2000 = 500 ppm */

struct segment {
	uint64_t tsc;
	uint64_t ns;   /* CLOCK_MONOTONIC at tsc */
	uint64_t mult; /* ns per tick << 32 */
};

static struct segment segs[MAX_SEGMENTS];
static unsigned int nr_segs; /* published with release after the segment is written */
static pthread_mutex_t seg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t clock_once = PTHREAD_ONCE_INIT;
static uint64_t base_tsc, base_ns; /* first calibration point: the long baseline */
static uint64_t tsc_origin;	   /* counter clock's zero */
static uint64_t segment_ticks;
/* MONOTONIC_RAW, BOOTTIME and TAI minus MONOTONIC */
static int64_t raw_offset, boot_offset, tai_offset;

uint64_t tfs_clock_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
#endif
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* A (tsc, CLOCK_MONOTONIC) pair: the tightest of a few bracketed readings. */
static void sample(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 8; i++) {
		uint64_t t1 = tfs_clock_tsc(), n = clock_ns(CLOCK_MONOTONIC), t2 = tfs_clock_tsc();

		if (t2 - t1 < best) {
			best = t2 - t1;
			*tsc = t1 + (t2 - t1) / 2;
			*ns = n;
		}
	}
}

/*
 * id minus CLOCK_MONOTONIC, read between two readings of the latter.  An offset
 * within the reading error is 0: BOOTTIME equals MONOTONIC until a suspend.
 */
static int64_t offset_from_mono(clockid_t id)
{
	uint64_t m1 = clock_ns(CLOCK_MONOTONIC), v = clock_ns(id), m2 = clock_ns(CLOCK_MONOTONIC);
	int64_t off = (int64_t)(v - (m1 + (m2 - m1) / 2));

	return off <= (int64_t)(m2 - m1) && -off <= (int64_t)(m2 - m1) ? 0 : off;
}

static uint64_t rate(uint64_t dns, uint64_t dtsc)
{
	if (!dtsc)
		return 1ull << 32;
	return (uint64_t)(((unsigned __int128)dns << 32) / dtsc);
}

static uint64_t seg_convert(const struct segment *s, uint64_t tsc)
{
	if (tsc >= s->tsc)
		return s->ns + (uint64_t)(((unsigned __int128)(tsc - s->tsc) * s->mult) >> 32);
	return s->ns - (uint64_t)(((unsigned __int128)(s->tsc - tsc) * s->mult) >> 32);
}

static void clock_calibrate(void)
{
	struct timespec pause = {0, CALIBRATE_NS};
	uint64_t t0, n0, t1, n1;

	sample(&t0, &n0);
	nanosleep(&pause, NULL);
	sample(&t1, &n1);
	raw_offset = offset_from_mono(CLOCK_MONOTONIC_RAW);
	boot_offset = offset_from_mono(CLOCK_BOOTTIME);
	tai_offset = offset_from_mono(CLOCK_TAI);

	pthread_mutex_lock(&seg_lock);
	base_tsc = t0;
	base_ns = n0;
	tsc_origin = t0;
	segs[0] = (struct segment){t1, n1, rate(n1 - n0, t1 - t0)};
	segment_ticks = (uint64_t)(((unsigned __int128)SEGMENT_NS << 32) / segs[0].mult);
	__atomic_store_n(&nr_segs, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&seg_lock);
}

void tfs_clock_init(void)
{
	pthread_once(&clock_once, clock_calibrate);
}

/* Start a new segment at now if the last one is min_ticks old (see the top comment). */
static void clock_resegment(uint64_t min_ticks)
{
	unsigned int n;
	uint64_t tsc, ns;

	if (pthread_mutex_trylock(&seg_lock))
		return; /* someone else is doing it */
	n = nr_segs;
	sample(&tsc, &ns);
	if (n < MAX_SEGMENTS && tsc > segs[n - 1].tsc && tsc - segs[n - 1].tsc >= min_ticks) {
		const struct segment *last = &segs[n - 1];
		uint64_t now = seg_convert(last, tsc), mult = rate(ns - base_ns, tsc - base_tsc);
		int64_t err = (int64_t)(ns - now);
		/* fix err over the next segment's usual length */
		__int128 corr = ((__int128)err * ((__int128)1 << 32)) / (__int128)segment_ticks;
		__int128 cap = mult / MAX_CORRECTION;

		corr = corr > cap ? cap : corr < -cap ? -cap : corr;
		segs[n] = (struct segment){tsc, now, (uint64_t)((__int128)mult + corr)};
		__atomic_store_n(&nr_segs, n + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&seg_lock);
}

/* CLOCK_MONOTONIC time of tsc. */
static uint64_t tsc_to_mono(uint64_t tsc)
{
	unsigned int n, lo = 0, hi;

	tfs_clock_init();
	n = __atomic_load_n(&nr_segs, __ATOMIC_ACQUIRE);
	if (tsc - segs[n - 1].tsc >= segment_ticks && tsc > segs[n - 1].tsc && n < MAX_SEGMENTS) {
		clock_resegment(segment_ticks);
		n = __atomic_load_n(&nr_segs, __ATOMIC_ACQUIRE);
	}
	/* the last segment starting at or before tsc (the first one for older tsc) */
	hi = n;
	while (hi - lo > 1) {
		unsigned int mid = (lo + hi) / 2;

		if (segs[mid].tsc <= tsc)
			lo = mid;
		else
			hi = mid;
	}
	return seg_convert(&segs[lo], tsc);
}

unsigned int tfs_clock_resegment_now(void)
{
	tfs_clock_init();
	clock_resegment(0);
	return __atomic_load_n(&nr_segs, __ATOMIC_ACQUIRE);
}

uint64_t tfs_clock_ns(enum tfs_clock c, uint64_t tsc)
{
	switch (c) {
	case TFS_CLOCK_X86_TSC:
		return tsc;
	case TFS_CLOCK_COUNTER:
		tfs_clock_init();
		return tsc - tsc_origin;
	case TFS_CLOCK_UPTIME:
		return tsc_to_mono(tsc) / NSEC_PER_UPTIME_TICK;
	case TFS_CLOCK_MONO_RAW:
		return tsc_to_mono(tsc) + (uint64_t)raw_offset;
	case TFS_CLOCK_BOOT:
		return tsc_to_mono(tsc) + (uint64_t)boot_offset;
	case TFS_CLOCK_TAI:
		return tsc_to_mono(tsc) + (uint64_t)tai_offset;
	default:
		return tsc_to_mono(tsc);
	}
}

bool tfs_clock_is_counter(enum tfs_clock c)
{
	return c == TFS_CLOCK_COUNTER || c == TFS_CLOCK_UPTIME || c == TFS_CLOCK_X86_TSC;
}

uint64_t tfs_clock_from_tsc(const struct tfs_instance *inst, uint64_t tsc)
{
	return tfs_clock_ns(__atomic_load_n(&inst->clock, __ATOMIC_RELAXED), tsc);
}

uint64_t tfs_clock_now(const struct tfs_instance *inst)
{
	return tfs_clock_from_tsc(inst, tfs_clock_tsc());
}

int tfs_clock_find(const char *name)
{
	for (int i = 0; i < TFS_CLOCK_NR; i++)
		if (strcmp(tfs_clock_names[i], name) == 0)
			return i;
	return -1;
}

int tfs_clock_format(enum tfs_clock cur, struct tfs_buf *b)
{
	int err = 0;

	for (int i = 0; i < TFS_CLOCK_NR && !err; i++)
		err = tfs_buf_printf(b, i == (int)cur ? "%s[%s]" : "%s%s", i ? " " : "",
				     tfs_clock_names[i]);
	return err ? err : tfs_buf_printf(b, "\n");
}

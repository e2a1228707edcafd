// SPDX-License-Identifier: MIT
/*
 * samples.c - the lines of the hwlat, osnoise and timerlat samples and the
 * headers of the osnoise and timerlat tracers, as the kernel prints them
 * (its trace_output.c and trace_osnoise.c), byte for byte.  The samples are
 * written by utracefs's own threads (tracers/hwlat.c, tracers/osnoise.c).
 */
#include <inttypes.h>

#include "output.h"

static void hwlat_line(struct tfs_buf *b, const struct ut_ev_hwlat *h, bool raw)
{
	if (raw) {
		tfs_buf_printf(b, "%" PRIu64 " %" PRId64 " %" PRId64 " %09" PRId64 " %u\n",
			       h->duration, (int64_t)h->outer_duration, h->tv_sec, h->tv_nsec,
			       h->seqnum);
		return;
	}
	tfs_buf_printf(b,
		       "#%-5u inner/outer(us): %4" PRIu64 "/%-5" PRIu64 " ts:%" PRId64 ".%09" PRId64
		       " count:%d",
		       h->seqnum, h->duration, h->outer_duration, h->tv_sec, h->tv_nsec,
		       (int)h->count);
	if (h->nmi_count)
		tfs_buf_printf(b, " nmi-total:%" PRIu64 " nmi-count:%u", h->nmi_total_ts,
			       h->nmi_count);
	tfs_buf_append(b, "\n", 1);
}

static void osnoise_line(struct tfs_buf *b, const struct ut_ev_osnoise *n, bool raw)
{
	uint64_t ratio, ratio_dec;

	if (raw) {
		tfs_buf_printf(b, "%" PRId64 " %" PRIu64 " %" PRIu64 " %u %u %u %u %u\n",
			       (int64_t)n->runtime, n->noise, n->max_sample, n->hw_count,
			       n->nmi_count, n->irq_count, n->softirq_count, n->thread_count);
		return;
	}
	/* the share of the runtime the thread had, to five decimals of a percent */
	ratio = n->runtime ? (n->runtime - n->noise) * 10000000 / n->runtime : 0;
	ratio_dec = ratio % 100000;
	ratio /= 100000;
	tfs_buf_printf(b, "%" PRIu64 " %10" PRIu64 " %3" PRIu64 ".%05" PRIu64 " %7" PRIu64,
		       n->runtime, n->noise, ratio, ratio_dec, n->max_sample);
	tfs_buf_printf(b, " %6u %6u %6u %6u %6u\n", n->hw_count, n->nmi_count, n->irq_count,
		       n->softirq_count, n->thread_count);
}

static void timerlat_line(struct tfs_buf *b, const struct ut_ev_timerlat *t, bool raw)
{
	static const char *const context[] = {"irq", "thread", "user-ret"};

	if (raw) {
		tfs_buf_printf(b, "%u %d %" PRIu64 "\n", t->seqnum, t->context, t->timer_latency);
		return;
	}
	tfs_buf_printf(b, "#%-5u context %6s timer_latency %9" PRIu64 " ns\n", t->seqnum,
		       t->context >= 0 && t->context < 3 ? context[t->context] : "?",
		       t->timer_latency);
}

bool tfs_out_sample(struct tfs_buf *b, const struct ut_ev *ev, bool raw)
{
	switch (ev->type) {
	case UT_EV_HWLAT:
		hwlat_line(b, (const struct ut_ev_hwlat *)ev, raw);
		return true;
	case UT_EV_OSNOISE:
		osnoise_line(b, (const struct ut_ev_osnoise *)ev, raw);
		return true;
	case UT_EV_TIMERLAT:
		timerlat_line(b, (const struct ut_ev_timerlat *)ev, raw);
		return true;
	}
	return false;
}

/* The flag legend both headers open with (a kernel without PREEMPT_RT). */
static const char legend[] = "#                                _-----=> irqs-off\n"
			     "#                               / _----=> need-resched\n"
			     "#                              | / _---=> hardirq/softirq\n"
			     "#                              || / _--=> preempt-depth\n";

/* The kernel prints a tracer's own header whatever the options say. */
void tfs_out_osnoise_header(struct tfs_iter *it, struct tfs_buf *b)
{
	tfs_buf_append(b, legend, sizeof(legend) - 1);
	tfs_buf_printf(b, "#                              ||| / _-=> migrate-disable     "
			  "                    MAX\n"
			  "#                              |||| /     delay               "
			  "                    SINGLE      Interference counters:\n"
			  "#                              |||||               RUNTIME   "
			  "   NOISE  %% OF CPU  NOISE    +-----------------------------+\n"
			  "#           TASK-PID      CPU# |||||   TIMESTAMP    IN US    "
			  "   IN US  AVAILABLE  IN US     HW    NMI    IRQ   SIRQ THREAD\n"
			  "#              | |         |   |||||      |           |      "
			  "       |    |            |      |      |      |      |      |\n");
}

void tfs_out_timerlat_header(struct tfs_iter *it, struct tfs_buf *b)
{
	tfs_buf_append(b, legend, sizeof(legend) - 1);
	tfs_buf_printf(b, "#                              ||| / _-=> migrate-disable\n"
			  "#                              |||| /     delay\n"
			  "#                              |||||            ACTIVATION\n"
			  "#           TASK-PID      CPU# |||||   TIMESTAMP   ID      "
			  "      CONTEXT                 LATENCY\n"
			  "#              | |         |   |||||      |         |      "
			  "            |                       |\n");
}

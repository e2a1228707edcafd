// SPDX-License-Identifier: MIT
/*
 * hwlat.c - the hardware latency detector, as a thread of utracefs.
 *
 * The kernel's hwlat runs a kthread that, with interrupts off, reads the clock
 * back to back for `width` microseconds out of every `window`: a gap between
 * the two reads of a pair is an "inner" latency, a gap between one pair and
 * the next an "outer" one.  Nothing in the kernel runs there meanwhile, so a
 * gap is time the CPU was taken away: an SMI, a hypervisor stall.
 *
 * Here the thread (hwlatd, or hwlatd/N per CPU) does the same from user
 * space, with its signals blocked and at SCHED_FIFO 95 when the daemon may
 * (sampler.c): what takes the CPU away from it is the hardware and the
 * hypervisor, and also whatever the kernel runs there (interrupts, softirqs,
 * a higher-priority thread), and, without SCHED_FIFO, any thread the scheduler
 * prefers.  Every gap is reported: the numbers are upper bounds of what the
 * hardware did, and the user guide says how to read them.
 *
 * The kernel's rules kept: width and window in us (defaults 500000/1000000,
 * width <= window, EINVAL otherwise); mode none, round-robin (default: one
 * thread moving to the next CPU of tracing_cpumask every window) or per-cpu;
 * tracing_thresh set to 10 us (or what it was when hwlat last ran) while hwlat
 * is current if it was 0, and put back after; a sample over it is an event
 * (count, ts of the first latency, inner/outer in us) and raises
 * tracing_max_latency as the kernel does, with the microseconds stored in the
 * nanosecond field; one instance at a time (EBUSY for a second).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../graph_ctl.h"
#include "../latency.h"
#include "../output/output.h"
#include "../sampler.h"
#include "sampling.h"
#include "tracers.h"

#define DEFAULT_SAMPLE_WINDOW 1000000 /* us */
#define DEFAULT_SAMPLE_WIDTH 500000   /* us */
#define DEFAULT_LAT_THRESHOLD_NS 10000
#define HWLAT_FIFO_PRIO 95
#define MODE_TEXT_MAX 64 /* the kernel takes writes shorter than this */

enum { MODE_NONE, MODE_ROUND_ROBIN, MODE_PER_CPU, MODE_MAX };
static const char *const mode_str[MODE_MAX] = {"none", "round-robin", "per-cpu"};

static pthread_mutex_t data_lock = PTHREAD_MUTEX_INITIALIZER; /* width, window, mode */
static uint64_t sample_width = DEFAULT_SAMPLE_WIDTH, sample_window = DEFAULT_SAMPLE_WINDOW;
static int thread_mode = MODE_ROUND_ROBIN;

/* the kernel's trace_types_lock for hwlat: being current, the threads, tracing_thresh */
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tfs_instance *hwlat_inst; /* where hwlat is current, NULL: nowhere */
static bool running;
static uint64_t save_thresh, last_thresh = DEFAULT_LAT_THRESHOLD_NS;
static uint32_t seqnum; /* samples since it became current */
static struct tfs_sampler_set samplers = TFS_SAMPLER_SET_INIT;

const struct tfs_min_max tfs_hwlat_width = {&data_lock, &sample_width, NULL, &sample_window};
const struct tfs_min_max tfs_hwlat_window = {&data_lock, &sample_window, &sample_width, NULL};

/* What one width of spinning saw. */
struct sample {
	uint64_t inner, outer; /* largest gaps, us */
	struct timespec ts;    /* wall time of the first gap over the threshold */
	uint32_t count;	       /* pairs with a gap over the threshold */
};

/*
 * Spin for width us reading the clock in pairs.  False when the set is being
 * stopped (the sample is incomplete and dropped).
 */
static bool spin(struct tfs_sampler *s, uint64_t width, uint64_t thresh, struct sample *out)
{
	uint64_t start = tfs_sampler_now(), t1, t2, last_t2 = 0, total;
	uint64_t diff, outer_diff = 0;

	memset(out, 0, sizeof(*out));
	do {
		t1 = tfs_sampler_now();
		t2 = tfs_sampler_now();
		if (last_t2) {
			outer_diff = (t1 - last_t2) / 1000;
			if (outer_diff > out->outer)
				out->outer = outer_diff;
		}
		last_t2 = t2;
		total = (t2 - start) / 1000;
		diff = (t2 - t1) / 1000;
		if (diff > thresh || outer_diff > thresh) {
			if (!out->count)
				clock_gettime(CLOCK_REALTIME, &out->ts);
			out->count++;
		}
		if (diff > out->inner)
			out->inner = diff;
	} while (total <= width && !tfs_sampler_stopping(s));
	return !tfs_sampler_stopping(s);
}

static void record(struct tfs_instance *inst, const struct sample *sm)
{
	struct ut_ev_hwlat ev;
	uint64_t latency = sm->inner > sm->outer ? sm->inner : sm->outer;

	memset(&ev, 0, sizeof(ev));
	ev.h.type = UT_EV_HWLAT;
	/* the kernel samples with interrupts off: 'd' (here: every signal blocked) */
	ev.h.flags = UT_EVF_SIGBLOCKED;
	ev.h.tid = (uint32_t)gettid();
	ev.h.len = (uint16_t)tfs_kfmt_fit_len(sizeof(ev), tfs_kfmt_size(&ev.h));
	ev.duration = sm->inner;
	ev.outer_duration = sm->outer;
	ev.tv_sec = sm->ts.tv_sec;
	ev.tv_nsec = sm->ts.tv_nsec;
	ev.count = sm->count;
	ev.seqnum = __atomic_add_fetch(&seqnum, 1, __ATOMIC_RELAXED);
	tfs_sampler_write(inst, &ev.h);
	/* the kernel keeps hwlat's maximum in us in tr->max_latency (read as ns) */
	tfs_lat_max_raise(inst, latency);
}

/* The one CPU the thread may run on, -1 when it may run on several. */
static int pinned_cpu(void)
{
	cpu_set_t set;
	int cpu = -1;

	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) != 1)
		return -1;
	for (int i = 0; i < CPU_SETSIZE && cpu < 0; i++)
		if (CPU_ISSET(i, &set))
			cpu = i;
	return cpu;
}

/*
 * Round-robin: move to the next CPU of tracing_cpumask after the one this thread
 * is on, which is where the last move put it (*placed).  When someone else moved
 * it (taskset), the kernel's rule: mode none from then on, said on the console.
 */
static void move_to_next_cpu(struct tfs_instance *inst, int *placed)
{
	uint64_t mask[TFS_CPUMASK_WORDS], usable[TFS_CPUMASK_WORDS];
	int cur = sched_getcpu(), next = -1;

	if (pinned_cpu() != *placed) {
		pthread_mutex_lock(&data_lock);
		thread_mode = MODE_NONE;
		pthread_mutex_unlock(&data_lock);
		fprintf(stderr, "hwlat_detector: cpumask changed while in round-robin mode, "
				"switching to mode none\n");
		return;
	}

	tfs_lock();
	memcpy(mask, inst->cpumask, sizeof(mask));
	tfs_unlock();
	tfs_sampler_usable(mask, usable);
	for (unsigned int i = 1; i <= tfs.nr_cpus && next < 0; i++) {
		unsigned int cpu = (unsigned int)(cur < 0 ? 0 : cur) + i;

		if (tfs_cpu_in(usable, cpu % tfs.nr_cpus))
			next = (int)(cpu % tfs.nr_cpus);
	}
	if (next >= 0 && tfs_sampler_move(next) == 0)
		*placed = next;
}

static void hwlat_main(struct tfs_sampler *s)
{
	struct tfs_instance *inst = s->set->arg;
	int placed = pinned_cpu(); /* where start_locked put it */

	while (!tfs_sampler_stopping(s)) {
		uint64_t width, window, interval;
		struct sample sm;
		int mode;

		pthread_mutex_lock(&data_lock);
		width = sample_width;
		window = sample_window;
		mode = thread_mode;
		pthread_mutex_unlock(&data_lock);
		if (mode == MODE_ROUND_ROBIN && s->cpu < 0)
			move_to_next_cpu(inst, &placed);
		/* tracing_thresh in us, as the kernel compares it */
		uint64_t thresh = tfs_graph_thresh_ns() / 1000;

		if (!spin(s, width, thresh, &sm))
			break;
		if (sm.inner > thresh || sm.outer > thresh)
			record(inst, &sm);
		/* the rest of the window, in whole ms, at least 1 ms (msleep) */
		interval = (window - width) / 1000;
		if (interval < 1)
			interval = 1;
		if (tfs_sampler_sleep_until(s, tfs_sampler_now() + interval * 1000000ull))
			break;
	}
}

/* Start the threads the mode asks for on inst's tracing_cpumask; run_lock held. */
static void start_locked(struct tfs_instance *inst)
{
	uint64_t mask[TFS_CPUMASK_WORDS], usable[TFS_CPUMASK_WORDS];
	int mode;

	if (running)
		return;
	pthread_mutex_lock(&data_lock);
	mode = thread_mode;
	pthread_mutex_unlock(&data_lock);
	tfs_lock();
	memcpy(mask, inst->cpumask, sizeof(mask));
	tfs_unlock();
	if (mode == MODE_ROUND_ROBIN) {
		/* the first CPU to begin with; the thread moves on every window */
		tfs_sampler_usable(mask, usable);
		memset(mask, 0, sizeof(mask));
		for (unsigned int cpu = 0; cpu < tfs.nr_cpus; cpu++)
			if (tfs_cpu_in(usable, cpu)) {
				mask[cpu / 64] = 1ull << (cpu % 64);
				break;
			}
	}
	running = tfs_samplers_start(&samplers, mask, mode == MODE_PER_CPU, "hwlatd", hwlat_main,
				     inst, HWLAT_FIFO_PRIO) == 0;
}

static void stop_locked(void)
{
	tfs_samplers_stop(&samplers);
	running = false;
}

static int hwlat_init(struct tfs_instance *inst)
{
	bool on;

	pthread_mutex_lock(&run_lock);
	if (hwlat_inst) {
		pthread_mutex_unlock(&run_lock);
		return -EBUSY; /* one instance at a time, as the kernel's hwlat_busy */
	}
	hwlat_inst = inst;
	__atomic_store_n(&seqnum, 0, __ATOMIC_RELAXED);
	tfs_lat_max_set(inst, 0);
	save_thresh = tfs_graph_thresh_ns();
	if (!save_thresh)
		tfs_thresh_set_ns(last_thresh);
	tfs_lock();
	on = inst->tracing_on;
	tfs_unlock();
	if (on)
		start_locked(inst);
	pthread_mutex_unlock(&run_lock);
	return 0;
}

static void hwlat_reset(struct tfs_instance *inst)
{
	pthread_mutex_lock(&run_lock);
	if (hwlat_inst == inst) {
		stop_locked();
		/* the threshold a user set stays for the next run */
		last_thresh = tfs_graph_thresh_ns();
		tfs_thresh_set_ns(save_thresh);
		hwlat_inst = NULL;
	}
	pthread_mutex_unlock(&run_lock);
}

static void hwlat_start(struct tfs_instance *inst)
{
	pthread_mutex_lock(&run_lock);
	if (hwlat_inst == inst)
		start_locked(inst);
	pthread_mutex_unlock(&run_lock);
}

static void hwlat_stop(struct tfs_instance *inst)
{
	pthread_mutex_lock(&run_lock);
	if (hwlat_inst == inst)
		stop_locked();
	pthread_mutex_unlock(&run_lock);
}

/* ---- hwlat_detector/mode --------------------------------------------------------- */

static int mode_show(struct tfs_open *o)
{
	int err = 0;

	pthread_mutex_lock(&data_lock);
	for (int m = 0; m < MODE_MAX && !err; m++)
		err = tfs_buf_printf(&o->content, m == thread_mode ? "[%s] " : "%s ",
				     mode_str[m]) < 0;
	pthread_mutex_unlock(&data_lock);
	return err || tfs_buf_printf(&o->content, "\n") < 0 ? -ENOMEM : 0;
}

static ssize_t mode_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	char text[MODE_TEXT_MAX];
	int found = -1;
	bool was;

	if (size >= MODE_TEXT_MAX || tfs_strip(buf, size, text, sizeof(text)))
		return -EINVAL;
	for (int m = 0; m < MODE_MAX; m++)
		if (!strcmp(text, mode_str[m]))
			found = m;
	if (found < 0)
		return -EINVAL;
	/* the threads of the old mode stop, those of the new one start */
	pthread_mutex_lock(&run_lock);
	was = running;
	if (was)
		stop_locked();
	pthread_mutex_lock(&data_lock);
	thread_mode = found;
	pthread_mutex_unlock(&data_lock);
	if (was)
		start_locked(hwlat_inst);
	pthread_mutex_unlock(&run_lock);
	return (ssize_t)size;
}

const struct tfs_file_ops tfs_hwlat_mode_ops = {
	.show = mode_show,
	.write = mode_write,
	.seek = TFS_SEEK_SEQ,
};

/* ---- the tracer ------------------------------------------------------------------- */

const struct tracer tfs_hwlat_tracer = {
	.name = "hwlat",
	.id = UT_TRACER_NOP, /* traced processes do nothing for it */
	.init = hwlat_init,
	.reset = hwlat_reset,
	.start = hwlat_start,
	.stop = hwlat_stop,
	.print_header = tfs_out_default_header,
	.print_line = tfs_out_line,
	.allow_instances = true,
};

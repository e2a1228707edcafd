// SPDX-License-Identifier: MIT
/*
 * osnoise.c - the osnoise and timerlat tracers, as threads of utracefs.
 *
 * Both share the kernel's osnoise/ settings and one workload: a thread per CPU
 * of osnoise/cpus (osnoise/N or timerlat/N), started when the first instance
 * makes one of them current (with tracing on) and stopped when the last one
 * lets it go; every instance that has it current gets every sample.  One of
 * the two at a time: the other gives EBUSY.
 *
 * osnoise: each period_us, the thread reads the clock in a loop for runtime_us;
 * a gap of at least tracing_thresh (5 us when it is 0) between two reads is
 * noise: time the CPU was not the thread's.  The period ends with the kernel's
 * summary line: runtime, total noise, the share of CPU available, the largest
 * single noise, and the interference counters.  The kernel counts those with
 * its own tracepoints; a user thread sees instead, for its CPU over the
 * runtime: IRQ and NMI (/proc/interrupts, the CPU's column: every row but NMI,
 * ERR and MIS, and the NMI row), SIRQ (/proc/softirqs), THREAD (the times the
 * sampling thread was preempted: its involuntary context switches).  HW counts
 * the noise gaps during which the thread was not switched out: the hardware and
 * the hypervisor, but also interrupts and softirqs, which a user thread cannot
 * tell apart from them one gap at a time.
 *
 * timerlat: each thread (SCHED_FIFO 95 when permitted, as the kernel's) sleeps
 * with an absolute clock_nanosleep to the next multiple of timerlat_period_us
 * and reports how late it woke: the kernel's "thread" line.  The kernel's
 * "irq" line (the latency of the timer interrupt itself) has no user-space
 * counterpart and is never written.
 *
 * stop_tracing_us and stop_tracing_total_us turn tracing_on off in every
 * instance when a single noise (timerlat: a wake-up latency) or a period's
 * total noise (timerlat: a wake-up latency) exceeds them, after the kernel's
 * "stop tracing hit on cpu N" line.  print_stack, PANIC_ON_STOP and
 * OSNOISE_IRQ_DISABLE are kept and shown but change nothing here (there is no
 * interrupt stack, no kernel to panic, no interrupts to disable);
 * OSNOISE_PREEMPT_DISABLE runs the osnoise runtime at SCHED_FIFO when permitted;
 * NO_OSNOISE_WORKLOAD starts no thread (the kernel's user-space workloads use
 * per-CPU timerlat_fd files, which utracefs does not have).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../graph_ctl.h"
#include "../latency.h"
#include "../output/output.h"
#include "../sampler.h"
#include "sampling.h"
#include "tracers.h"

#define DEFAULT_SAMPLE_PERIOD 1000000  /* us */
#define DEFAULT_SAMPLE_RUNTIME 1000000 /* us */
#define DEFAULT_TIMERLAT_PERIOD 1000   /* us */
#define DEFAULT_TIMERLAT_PRIO 95
#define DEFAULT_THRESH_NS 5000
#define TEXT_MAX 256 /* the kernel refuses writes of cpus and options this long */

enum { OSN_DEFAULTS, OSN_WORKLOAD, OSN_PANIC_ON_STOP, OSN_PREEMPT_DISABLE, OSN_IRQ_DISABLE,
       OSN_TIMERLAT_ALIGN, OSN_MAX };
static const char *const option_str[OSN_MAX] = {
	"DEFAULTS",	       "OSNOISE_WORKLOAD",    "PANIC_ON_STOP",
	"OSNOISE_PREEMPT_DISABLE", "OSNOISE_IRQ_DISABLE", "TIMERLAT_ALIGN",
};
#define OSN_DEFAULT_OPTIONS (1ul << OSN_WORKLOAD)

/* the kernel's interface_lock: the settings */
static pthread_mutex_t iface_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t sample_period = DEFAULT_SAMPLE_PERIOD, sample_runtime = DEFAULT_SAMPLE_RUNTIME;
static uint64_t stop_tracing, stop_tracing_total, print_stack, timerlat_align;
static uint64_t timerlat_period = DEFAULT_TIMERLAT_PERIOD;
static const uint64_t timerlat_min_period = 100, timerlat_max_period = 1000000;
static unsigned long options = OSN_DEFAULT_OPTIONS;
static uint64_t osn_cpus[TFS_CPUMASK_WORDS];
static bool osn_cpus_set; /* false: every possible CPU, the kernel's default */

const struct tfs_min_max tfs_osn_period = {&iface_lock, &sample_period, &sample_runtime, NULL};
const struct tfs_min_max tfs_osn_runtime = {&iface_lock, &sample_runtime, NULL, &sample_period};
const struct tfs_min_max tfs_osn_stop_tracing = {&iface_lock, &stop_tracing, NULL, NULL};
const struct tfs_min_max tfs_osn_stop_tracing_total = {&iface_lock, &stop_tracing_total, NULL,
						       NULL};
const struct tfs_min_max tfs_osn_print_stack = {&iface_lock, &print_stack, NULL, NULL};
const struct tfs_min_max tfs_osn_timerlat_period = {&iface_lock, &timerlat_period,
						    &timerlat_min_period, &timerlat_max_period};
const struct tfs_min_max tfs_osn_timerlat_align = {&iface_lock, &timerlat_align, NULL, NULL};

/*
 * The kernel's trace_types_lock for these tracers: which instances have one
 * current, which of the two, the threads.  inst_lock guards only the list the
 * threads write to, so that stopping them (a join) never waits for a writer.
 */
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t inst_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tfs_instance *insts[UT_INST_MAX];
static unsigned int nr_insts;
static bool timerlat_mode; /* the instances run timerlat, not osnoise */
static bool running;
static uint64_t align_next; /* TIMERLAT_ALIGN: the next thread's first wake-up (ns) */
static struct tfs_sampler_set samplers = TFS_SAMPLER_SET_INIT;

static uint64_t setting(const uint64_t *v)
{
	uint64_t x;

	pthread_mutex_lock(&iface_lock);
	x = *v;
	pthread_mutex_unlock(&iface_lock);
	return x;
}

static bool option(int opt)
{
	return __atomic_load_n(&options, __ATOMIC_RELAXED) >> opt & 1;
}

/* ---- what the threads write ---------------------------------------------------------------- */

/* Write ev into every instance that has the tracer current (its tid, flags, length set here). */
static void write_all(struct ut_ev *ev, size_t size)
{
	ev->tid = (uint32_t)gettid();
	ev->len = (uint16_t)tfs_kfmt_fit_len((unsigned int)size, tfs_kfmt_size(ev));
	pthread_mutex_lock(&inst_lock);
	for (unsigned int i = 0; i < nr_insts; i++)
		tfs_sampler_write(insts[i], ev);
	pthread_mutex_unlock(&inst_lock);
}

/* A new largest latency (ns) for every instance (notify_new_max_latency). */
static void raise_max_all(uint64_t ns)
{
	pthread_mutex_lock(&inst_lock);
	for (unsigned int i = 0; i < nr_insts; i++)
		tfs_lat_max_raise(insts[i], ns);
	pthread_mutex_unlock(&inst_lock);
}

/* A stop condition: the kernel's line, then tracing off in every instance. */
static void stop_tracing_all(void)
{
	struct tfs_instance *off[UT_INST_MAX];
	unsigned int n;
	char text[64];
	int len = snprintf(text, sizeof(text), "stop tracing hit on cpu %d\n", sched_getcpu());

	pthread_mutex_lock(&inst_lock);
	n = nr_insts;
	memcpy(off, insts, n * sizeof(off[0]));
	for (unsigned int i = 0; i < n; i++) {
		tfs_write_print(off[i], -1, gettid(), UT_IP_MARKER, text, (size_t)len, 0);
		tfs_lock();
		off[i]->tracing_on = false;
		tfs_unlock();
	}
	pthread_mutex_unlock(&inst_lock);
	for (unsigned int i = 0; i < n; i++)
		tfs_apply(off[i]);
}

/* ---- the interference counters ------------------------------------------------------------- */

struct counts {
	uint64_t irq, nmi, softirq, thread;
};

/* Sum cpu's column of a /proc table ("CPU0 CPU1" then "NAME: n n ... text"). */
static void proc_table(const char *path, int cpu, uint64_t *sum, uint64_t *nmi)
{
	const size_t size = 65536; /* /proc/interrupts of a few hundred CPUs */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf, *line, *save = NULL;
	ssize_t n = 0, r;
	int col = -1;

	if (fd < 0)
		return;
	buf = malloc(size);
	while (buf && n < (ssize_t)size - 1 && (r = read(fd, buf + n, size - 1 - (size_t)n)) > 0)
		n += r;
	close(fd);
	if (!buf)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tok, *p = line, *name;
		uint64_t v = 0;

		if (col < 0) { /* the header: which column is CPU<cpu> */
			for (int i = 0; (tok = strtok_r(p, " \t", &p)); i++)
				if (!strncmp(tok, "CPU", 3) && atoi(tok + 3) == cpu)
					col = i;
			if (col < 0)
				break;
			continue;
		}
		name = strtok_r(p, " \t", &p);
		if (!name || !strcmp(name, "ERR:") || !strcmp(name, "MIS:"))
			continue;
		for (int i = 0; i <= col && (tok = strtok_r(p, " \t", &p)); i++)
			if (i == col)
				v = strtoull(tok, NULL, 10);
		if (nmi && !strcmp(name, "NMI:"))
			*nmi += v;
		else
			*sum += v;
	}
	free(buf);
}

static uint64_t thread_preemptions(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : (uint64_t)ru.ru_nivcsw;
}

static void read_counts(struct counts *c)
{
	int cpu = sched_getcpu();

	memset(c, 0, sizeof(*c));
	proc_table("/proc/interrupts", cpu, &c->irq, &c->nmi);
	proc_table("/proc/softirqs", cpu, &c->softirq, NULL);
	c->thread = thread_preemptions();
}

/* ---- osnoise ------------------------------------------------------------------------------ */

/* Set or drop SCHED_FIFO for OSNOISE_PREEMPT_DISABLE (refused without the privilege). */
static void preempt_disable(bool on)
{
	struct sched_param sp = {.sched_priority = on ? DEFAULT_TIMERLAT_PRIO : 0};

	pthread_setschedparam(pthread_self(), on ? SCHED_FIFO : SCHED_OTHER, &sp);
}

/* One runtime of sampling (the kernel's run_osnoise): false when stopped midway. */
static bool run_osnoise(struct tfs_sampler *s)
{
	uint64_t threshold = tfs_graph_thresh_ns() ? tfs_graph_thresh_ns() : DEFAULT_THRESH_NS;
	uint64_t runtime = setting(&sample_runtime) * 1000, stop_in = setting(&stop_tracing) * 1000;
	uint64_t start, sample, last_sample, total, noise, max_noise = 0, sum_noise = 0;
	uint64_t last_switches, total_stop;
	bool no_preempt = option(OSN_PREEMPT_DISABLE);
	struct counts before, after;
	struct ut_ev_osnoise ev;
	uint32_t hw_count = 0;

	read_counts(&before);
	last_switches = before.thread;
	if (no_preempt)
		preempt_disable(true);
	start = tfs_sampler_now();
	last_sample = tfs_sampler_now();
	do {
		sample = tfs_sampler_now();
		noise = sample - last_sample;
		total = sample - start;
		if (noise >= threshold) {
			uint64_t switches = thread_preemptions();

			if (noise > max_noise)
				max_noise = noise;
			/* not switched out meanwhile: nothing this thread can name took the CPU */
			if (switches == last_switches)
				hw_count++;
			last_switches = switches;
			sum_noise += noise;
			if (stop_in && noise > stop_in)
				stop_tracing_all();
			sample = tfs_sampler_now(); /* the counter read is not noise */
		}
		last_sample = sample;
	} while (total < runtime && !tfs_sampler_stopping(s));
	if (no_preempt)
		preempt_disable(false);
	if (tfs_sampler_stopping(s))
		return false;
	read_counts(&after);

	memset(&ev, 0, sizeof(ev));
	ev.h.type = UT_EV_OSNOISE;
	ev.noise = sum_noise / 1000;
	ev.runtime = total / 1000;
	ev.max_sample = max_noise / 1000;
	ev.hw_count = hw_count;
	ev.nmi_count = (uint32_t)(after.nmi - before.nmi);
	ev.irq_count = (uint32_t)(after.irq - before.irq);
	ev.softirq_count = (uint32_t)(after.softirq - before.softirq);
	ev.thread_count = (uint32_t)(after.thread - before.thread);
	write_all(&ev.h, sizeof(ev));
	raise_max_all(max_noise);
	total_stop = setting(&stop_tracing_total);
	if (total_stop && ev.noise > total_stop)
		stop_tracing_all();
	return true;
}

static void osnoise_main(struct tfs_sampler *s)
{
	while (!tfs_sampler_stopping(s)) {
		uint64_t interval;

		if (!run_osnoise(s))
			break;
		pthread_mutex_lock(&iface_lock);
		interval = sample_period - sample_runtime;
		pthread_mutex_unlock(&iface_lock);
		if (!interval) {
			sched_yield(); /* runs again at once, as the kernel's without a pause */
			continue;
		}
		if (tfs_sampler_sleep_until(s, tfs_sampler_now() + interval * 1000))
			break;
	}
}

/* ---- timerlat ----------------------------------------------------------------------------- */

/* The next wake-up after abs, skipping those already past (wait_next_period). */
static uint64_t next_period(uint64_t abs, uint64_t period, uint64_t now)
{
	abs += period;
	while (now > abs)
		abs += period;
	return abs;
}

static void timerlat_main(struct tfs_sampler *s)
{
	uint64_t period = setting(&timerlat_period) * 1000, abs = tfs_sampler_now();
	uint32_t count = 0;

	if (option(OSN_TIMERLAT_ALIGN)) {
		/* one CPU after the other, timerlat_align_us apart */
		uint64_t step = setting(&timerlat_align) * 1000;

		pthread_mutex_lock(&iface_lock);
		if (!align_next || align_next < abs)
			align_next = abs;
		abs = align_next;
		align_next += step;
		pthread_mutex_unlock(&iface_lock);
	}
	while (!tfs_sampler_stopping(s)) {
		struct ut_ev_timerlat ev;
		struct timespec t;
		uint64_t now, diff, us, stop_in, stop_total;

		abs = next_period(abs, period, tfs_sampler_now());
		t.tv_sec = (time_t)(abs / 1000000000ull);
		t.tv_nsec = (long)(abs % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
			;
		now = tfs_sampler_now();
		if (tfs_sampler_stopping(s))
			break;
		diff = now - abs;
		memset(&ev, 0, sizeof(ev));
		ev.h.type = UT_EV_TIMERLAT;
		ev.seqnum = ++count;
		ev.context = 1; /* thread: the only context a user thread has */
		ev.timer_latency = diff;
		write_all(&ev.h, sizeof(ev));
		raise_max_all(diff);
		us = diff / 1000;
		stop_in = setting(&stop_tracing);
		stop_total = setting(&stop_tracing_total);
		if ((stop_in && us >= stop_in) || (stop_total && us >= stop_total))
			stop_tracing_all();
		period = setting(&timerlat_period) * 1000;
	}
}

/* ---- the workload ------------------------------------------------------------------------- */

/* Start the threads on osnoise/cpus; run_lock held. */
static void workload_start_locked(void)
{
	uint64_t mask[TFS_CPUMASK_WORDS];

	if (running || !option(OSN_WORKLOAD))
		return;
	pthread_mutex_lock(&iface_lock);
	if (!osn_cpus_set)
		for (unsigned int cpu = 0; cpu < tfs.nr_cpus; cpu++)
			osn_cpus[cpu / 64] |= 1ull << (cpu % 64);
	osn_cpus_set = true;
	memcpy(mask, osn_cpus, sizeof(mask));
	align_next = 0;
	pthread_mutex_unlock(&iface_lock);
	running = tfs_samplers_start(&samplers, mask, true, timerlat_mode ? "timerlat" : "osnoise",
				     timerlat_mode ? timerlat_main : osnoise_main, NULL,
				     timerlat_mode ? DEFAULT_TIMERLAT_PRIO : 0) == 0;
}

static void workload_stop_locked(void)
{
	tfs_samplers_stop(&samplers);
	running = false;
}

static bool registered(const struct tfs_instance *inst)
{
	for (unsigned int i = 0; i < nr_insts; i++)
		if (insts[i] == inst)
			return true;
	return false;
}

/* The kernel's osnoise_tracer_start: register inst (once), the workload runs. */
static void tracer_start_locked(struct tfs_instance *inst)
{
	if (registered(inst))
		return;
	if (!nr_insts)
		workload_start_locked();
	pthread_mutex_lock(&inst_lock);
	insts[nr_insts++] = inst;
	pthread_mutex_unlock(&inst_lock);
}

/* osnoise_tracer_stop: inst gets no more samples; the last one stops the workload. */
static void tracer_stop_locked(struct tfs_instance *inst)
{
	pthread_mutex_lock(&inst_lock);
	for (unsigned int i = 0; i < nr_insts; i++)
		if (insts[i] == inst) {
			insts[i] = insts[--nr_insts];
			break;
		}
	pthread_mutex_unlock(&inst_lock);
	if (!nr_insts)
		workload_stop_locked();
}

/* Becoming current as timerlat (tl) or osnoise in inst. */
static int init_as(struct tfs_instance *inst, bool tl)
{
	pthread_mutex_lock(&run_lock);
	if (nr_insts && timerlat_mode != tl) {
		pthread_mutex_unlock(&run_lock);
		return -EBUSY; /* the other of the two runs */
	}
	timerlat_mode = tl;
	tfs_lat_max_set(inst, 0);
	/* as the kernel, whatever tracing_on says: samples are dropped while it is 0 */
	tracer_start_locked(inst);
	pthread_mutex_unlock(&run_lock);
	return 0;
}

static int osnoise_init(struct tfs_instance *inst)
{
	return init_as(inst, false);
}

static int timerlat_init(struct tfs_instance *inst)
{
	return init_as(inst, true);
}

static void noise_reset(struct tfs_instance *inst)
{
	pthread_mutex_lock(&run_lock);
	tracer_stop_locked(inst);
	pthread_mutex_unlock(&run_lock);
}

static void noise_start(struct tfs_instance *inst)
{
	pthread_mutex_lock(&run_lock);
	tracer_start_locked(inst);
	pthread_mutex_unlock(&run_lock);
}

/* ---- osnoise/cpus and osnoise/options ------------------------------------------------------ */

/* The kernel's "%*pbl": ranges "0-3,5". */
static int cpulist_format(const uint64_t *mask, struct tfs_buf *b)
{
	const char *sep = "";
	int err = 0;

	for (unsigned int cpu = 0; cpu < tfs.nr_cpus && !err; cpu++) {
		unsigned int end = cpu;

		if (!tfs_cpu_in(mask, cpu))
			continue;
		while (end + 1 < tfs.nr_cpus && tfs_cpu_in(mask, end + 1))
			end++;
		err = end > cpu ? tfs_buf_printf(b, "%s%u-%u", sep, cpu, end)
				: tfs_buf_printf(b, "%s%u", sep, cpu);
		sep = ",";
		cpu = end;
	}
	return err < 0 || tfs_buf_printf(b, "\n") < 0 ? -ENOMEM : 0;
}

/* The kernel's cpulist_parse: "N", "N-M", separated by commas; EINVAL, ERANGE. */
int tfs_cpulist_parse(const char *buf, size_t size, unsigned int nr_cpus, uint64_t *mask)
{
	uint64_t m[TFS_CPUMASK_WORDS] = {0};
	size_t i = 0;

	while (i < size && buf[i] != '\n' && buf[i] != '\0') {
		unsigned long a = 0, b;
		size_t d = i;

		for (; i < size && buf[i] >= '0' && buf[i] <= '9'; i++)
			a = a * 10 + (unsigned long)(buf[i] - '0');
		if (i == d || a > UINT32_MAX)
			return -EINVAL;
		b = a;
		if (i < size && buf[i] == '-') {
			d = ++i;
			for (b = 0; i < size && buf[i] >= '0' && buf[i] <= '9'; i++)
				b = b * 10 + (unsigned long)(buf[i] - '0');
			if (i == d || b < a || b > UINT32_MAX)
				return -EINVAL;
		}
		if (b >= nr_cpus)
			return -ERANGE;
		for (unsigned long c = a; c <= b; c++)
			m[c / 64] |= 1ull << (c % 64);
		if (i < size && buf[i] == ',')
			i++;
		else if (i < size && buf[i] != '\n' && buf[i] != '\0')
			return -EINVAL;
	}
	memcpy(mask, m, sizeof(m));
	return 0;
}

static int cpus_show(struct tfs_open *o)
{
	uint64_t mask[TFS_CPUMASK_WORDS] = {0};

	pthread_mutex_lock(&iface_lock);
	if (osn_cpus_set)
		memcpy(mask, osn_cpus, sizeof(mask));
	else
		for (unsigned int cpu = 0; cpu < tfs.nr_cpus; cpu++)
			mask[cpu / 64] |= 1ull << (cpu % 64);
	pthread_mutex_unlock(&iface_lock);
	return cpulist_format(mask, &o->content);
}

/* Change a setting the threads read once: they stop, it changes, they start again. */
static void restart_around(void (*change)(const void *), const void *arg)
{
	bool was;

	pthread_mutex_lock(&run_lock);
	was = running;
	if (was)
		workload_stop_locked();
	pthread_mutex_lock(&iface_lock);
	change(arg);
	pthread_mutex_unlock(&iface_lock);
	if (was || nr_insts)
		workload_start_locked();
	pthread_mutex_unlock(&run_lock);
}

static void set_cpus(const void *mask)
{
	memcpy(osn_cpus, mask, sizeof(osn_cpus));
	osn_cpus_set = true;
}

static ssize_t cpus_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	uint64_t mask[TFS_CPUMASK_WORDS];
	int err;

	if (size >= TEXT_MAX)
		return -EINVAL;
	err = tfs_cpulist_parse(buf, size, tfs.nr_cpus, mask);
	if (err)
		return err;
	restart_around(set_cpus, mask);
	return (ssize_t)size;
}

const struct tfs_file_ops tfs_osnoise_cpus_ops = {
	.show = cpus_show,
	.write = cpus_write,
};

static int options_show(struct tfs_open *o)
{
	unsigned long v = __atomic_load_n(&options, __ATOMIC_RELAXED);
	int err = 0;

	for (int i = 0; i < OSN_MAX && !err; i++) {
		bool set = i == OSN_DEFAULTS ? v == OSN_DEFAULT_OPTIONS : (v >> i & 1);

		err = tfs_buf_printf(&o->content, "%s%s ", set ? "" : "NO_", option_str[i]) < 0;
	}
	return err || tfs_buf_printf(&o->content, "\n") < 0 ? -ENOMEM : 0;
}

struct option_change {
	int opt;
	bool enable;
};

static void set_option(const void *arg)
{
	const struct option_change *c = arg;
	unsigned long v = __atomic_load_n(&options, __ATOMIC_RELAXED);

	if (c->opt == OSN_DEFAULTS)
		v = OSN_DEFAULT_OPTIONS;
	else if (c->enable)
		v |= 1ul << c->opt;
	else
		v &= ~(1ul << c->opt);
	__atomic_store_n(&options, v, __ATOMIC_RELAXED);
}

static ssize_t options_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	char text[TEXT_MAX];
	struct option_change c = {.opt = -1, .enable = true};
	size_t skip = 0;

	if (size >= TEXT_MAX)
		return -EINVAL;
	if (size >= 3 && !memcmp(buf, "NO_", 3)) {
		c.enable = false;
		skip = 3;
	}
	if (tfs_strip(buf + skip, size - skip, text, sizeof(text)))
		return -EINVAL;
	for (int i = 0; i < OSN_MAX; i++)
		if (!strcmp(text, option_str[i]))
			c.opt = i;
	if (c.opt < 0 || (c.opt == OSN_DEFAULTS && !c.enable))
		return -EINVAL;
	restart_around(set_option, &c);
	return (ssize_t)size;
}

const struct tfs_file_ops tfs_osnoise_options_ops = {
	.show = options_show,
	.write = options_write,
	.seek = TFS_SEEK_SEQ,
};

/* ---- the tracers -------------------------------------------------------------------------- */

const struct tracer tfs_osnoise_tracer = {
	.name = "osnoise",
	.id = UT_TRACER_NOP, /* traced processes do nothing for it */
	.init = osnoise_init,
	.reset = noise_reset,
	.start = noise_start,
	.stop = noise_reset,
	.print_header = tfs_out_osnoise_header,
	.print_line = tfs_out_line,
	.allow_instances = true,
};

const struct tracer tfs_timerlat_tracer = {
	.name = "timerlat",
	.id = UT_TRACER_NOP,
	.init = timerlat_init,
	.reset = noise_reset,
	.start = noise_start,
	.stop = noise_reset,
	.print_header = tfs_out_timerlat_header,
	.print_line = tfs_out_line,
	.allow_instances = true,
};

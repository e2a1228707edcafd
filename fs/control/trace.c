// SPDX-License-Identifier: MIT
/*
 * trace.c - the files that show the rings:
 *
 *   trace, per_cpu/cpuN/trace       a snapshot, not consuming; O_TRUNC empties the
 *                                   rings (all, or that CPU); writes are accepted
 *   trace_pipe, per_cpu/cpuN/...    consuming text; blocks until data, O_NONBLOCK
 *                                   gives EAGAIN, poll works; no header
 *   per_cpu/cpuN/trace_pipe_raw     consuming, binary: the kernel's 4096-byte pages
 *   per_cpu/cpuN/stats              the per-CPU counters
 *   snapshot, per_cpu/cpuN/snapshot the snapshot buffer, read as `trace` (writes:
 *                                   snapshot.c)
 *   per_cpu/cpuN/snapshot_raw       consuming, binary, from the snapshot buffer
 *
 * Under a latency tracer (print_max), `trace` is the max buffer: the snapshot
 * buffer, showing only the maximum's events (tracers/latency.c), and O_TRUNC
 * empties it.

 * `trace` is formatted lazily: the snapshot is taken at open and text is made
 * as reads advance (a read before the window starts the walk again), so a big
 * buffer never has to exist as text all at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"
#include "output/output.h"
#include "ring_read.h"

#define PIPE_WAIT_MS 100

static const struct tracer *cur_tracer(const struct tfs_instance *inst)
{
	const struct tracer *t = __atomic_load_n(&inst->tracer, __ATOMIC_ACQUIRE);

	return t ? t : tfs_tracer_find("nop");
}

static int print_line(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b)
{
	const struct tracer *t = cur_tracer(it->inst);

	if (t && t->print_line)
		return t->print_line(it, e, b);
	return tfs_out_line(it, e, b);
}

static bool readable(const struct tfs_open *o)
{
	return (o->flags & O_ACCMODE) != O_WRONLY;
}

/* ---- trace --------------------------------------------------------------------------------- */

struct trace_state {
	struct tfs_iter it;
	struct tfs_lat_max lat; /* a latency tracer's maximum, as it was at open */
	struct tfs_buf win; /* text from win_off on */
	uint64_t win_off;
	bool header_done, eof;
};

static void trace_iter_init(struct tfs_iter *it, struct tfs_instance *inst, int cpu)
{
	memset(it, 0, sizeof(*it));
	it->inst = inst;
	it->cpu_filter = cpu;
	it->lat_fmt = tfs_opt(inst, TFS_OPT_LATENCY_FORMAT);
}

/*
 * The maximum's events only (tfs_lat_shows): the header counts them alone, as
 * the kernel's counts leave out the entries before time_start.
 */
static bool lat_skip(const struct tfs_iter *it, const struct tfs_event *e)
{
	return it->lat_max && !tfs_lat_shows(it->lat_max, (pid_t)e->ev->tid, e->ev->ts);
}

static void lat_count(struct trace_state *st)
{
	struct tfs_event e;
	unsigned long n = 0;

	while (tfs_snap_next(st->it.snap, &st->it, &e))
		n += !lat_skip(&st->it, &e);
	tfs_snap_rewind(st->it.snap);
	st->it.entries = st->it.total = n;
	if (st->lat.valid)
		st->it.time_start = tfs_clock_from_tsc(st->it.inst, st->lat.start_tsc);
}

static int trace_snapshot(struct tfs_open *o)
{
	struct trace_state *st = o->priv;

	tfs_snap_free(st->it.snap);
	tfs_iter_release(&st->it);
	trace_iter_init(&st->it, o->inst, o->cpu);
	st->it.spare = o->file->ops == &tfs_snapshot_ops;
	if (cur_tracer(o->inst)->print_max) {
		tfs_lat_max_get(o->inst, &st->lat);
		st->it.spare = true; /* the max buffer */
		st->it.lat_max = &st->lat;
	}
	st->it.snap = tfs_snap_take(o->inst, o->cpu, &st->it);
	if (!st->it.snap)
		return -ENOMEM;
	if (st->it.lat_max)
		lat_count(st);
	tfs_buf_reset(&st->win);
	st->win_off = 0;
	st->header_done = st->eof = false;
	return 0;
}

static int trace_open(struct tfs_open *o)
{
	struct trace_state *st;

	if (!readable(o))
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	o->priv = st;
	return trace_snapshot(o);
}

static void trace_header(struct trace_state *st, struct tfs_buf *b)
{
	const struct tracer *t = cur_tracer(st->it.inst);

	tfs_buf_printf(b, "# tracer: %s\n#\n", t ? t->name : "nop");
	if (st->it.spare && !st->it.lat_max && tfs_snap_empty(st->it.snap))
		tfs_snapshot_help(st->it.inst, st->it.cpu_filter, b); /* the kernel's, instead */
	else if (t && t->print_header)
		t->print_header(&st->it, b);
	else
		tfs_out_default_header(&st->it, b);
}

/* Make text until the window reaches `until` or the snapshot ends. */
static int trace_fill(struct trace_state *st, uint64_t until)
{
	if (!st->header_done) {
		trace_header(st, &st->win);
		st->header_done = true;
	}
	while (!st->eof && st->win_off + st->win.len < until) {
		struct tfs_event e;

		if (!tfs_snap_next(st->it.snap, &st->it, &e)) {
			st->eof = true;
			break;
		}
		if (lat_skip(&st->it, &e))
			continue;
		if (print_line(&st->it, &e, &st->win) < 0)
			return -ENOMEM;
	}
	return 0;
}

static ssize_t trace_read(struct tfs_open *o, char *buf, size_t size, off_t off)
{
	struct trace_state *st = o->priv;
	uint64_t pos = (uint64_t)off;
	size_t n;

	if (!st || off < 0)
		return -EINVAL;
	if (pos < st->win_off) {
		/* going back: walk again from the start */
		tfs_snap_rewind(st->it.snap);
		memset(st->it.started, 0, sizeof(st->it.started));
		tfs_iter_release(&st->it); /* the graph's depth and pids start again too */
		tfs_buf_reset(&st->win);
		st->win_off = 0;
		st->header_done = st->eof = false;
	}
	if (pos > st->win_off) {
		size_t drop = pos - st->win_off < st->win.len ? pos - st->win_off : st->win.len;

		memmove(st->win.data, st->win.data + drop, st->win.len - drop);
		st->win.len -= drop;
		st->win_off += drop;
	}
	if (trace_fill(st, pos + size))
		return -ENOMEM;
	if (pos < st->win_off || pos - st->win_off >= st->win.len)
		return 0;
	n = st->win.len - (pos - st->win_off);
	if (n > size)
		n = size;
	memcpy(buf, st->win.data + (pos - st->win_off), n);
	return (ssize_t)n;
}

/* The kernel accepts and ignores writes to `trace` (only O_TRUNC clears). */
static ssize_t trace_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	return (ssize_t)size;
}

static int trace_truncate(struct tfs_open *o)
{
	int err;

	if (cur_tracer(o->inst)->print_max) {
		/* `trace` is the max buffer then, and that is what the kernel empties */
		tfs_spare_clear(o->inst, o->cpu);
		return o->priv ? trace_snapshot(o) : 0;
	}
	err = tfs_ring_reset(o->inst, o->cpu);
	if (err)
		return err;
	tfs_rr_reset(o->inst, o->cpu);
	if (o->priv)
		return trace_snapshot(o);
	return 0;
}

static int trace_release(struct tfs_open *o)
{
	struct trace_state *st = o->priv;

	if (st) {
		tfs_snap_free(st->it.snap);
		tfs_iter_release(&st->it);
		tfs_buf_free(&st->win);
		free(st);
		o->priv = NULL;
	}
	return 0;
}

const struct tfs_file_ops tfs_trace_ops = {
	.open = trace_open,
	.read = trace_read,
	.write = trace_write,
	.truncate = trace_truncate,
	.release = trace_release,
	.seek = TFS_SEEK_SEQ_READ,
};

/*
 * snapshot, per_cpu/cpuN/snapshot: the snapshot buffer read as `trace` reads the
 * rings; writes are snapshot.c's.
 */
const struct tfs_file_ops tfs_snapshot_ops = {
	.open = trace_open,
	.read = trace_read,
	.write = tfs_snapshot_write,
	.release = trace_release,
	.seek = TFS_SEEK_SEQ_READ,
};

/* ---- waiting for data ------------------------------------------------------------------------ */

/*
 * A blocked read must end when its caller is interrupted or gone: the caller's
 * signals are visible in /proc (pending and not blocked).
 */
static bool caller_interrupted(pid_t pid)
{
	char fn[64], line[256];
	unsigned long long pnd = 0, shd = 0, blk = 0;
	FILE *f;

	if (pid <= 0)
		return false;
	snprintf(fn, sizeof(fn), "/proc/%d/status", (int)pid);
	f = fopen(fn, "re");
	if (!f)
		return true;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "SigPnd: %llx", &pnd);
		sscanf(line, "ShdPnd: %llx", &shd);
		sscanf(line, "SigBlk: %llx", &blk);
	}
	fclose(f);
	return ((pnd | shd) & ~blk) != 0;
}

/*
 * Wait until `ready`: 0, -EAGAIN (O_NONBLOCK), -EINTR, or 1 for end of file:
 * with eof_when_off, a reader that already read something gets EOF once tracing
 * is off and nothing is left (the kernel's trace_pipe).
 */
static int wait_data(struct tfs_open *o, uint64_t *seen, bool (*ready)(struct tfs_open *),
		     bool eof_when_off)
{
	while (!ready(o)) {
		if (__atomic_load_n(&o->flags, __ATOMIC_RELAXED) & O_NONBLOCK)
			return -EAGAIN;
		if (eof_when_off && !__atomic_load_n(&o->inst->tracing_on, __ATOMIC_RELAXED))
			return 1;
		tfs_ring_wait(seen, PIPE_WAIT_MS);
		if (caller_interrupted(tfs_caller(o)))
			return -EINTR;
	}
	return 0;
}

/* ---- trace_pipe ------------------------------------------------------------------------------ */

/*
 * The state of one open trace_pipe.  Threads reading the same open file (FUSE
 * serves them in parallel) take `lock`; it is let go while waiting for data,
 * as the kernel lets go of its iterator's mutex.
 */
struct pipe_state {
	pthread_mutex_t lock;
	struct tfs_iter it;
	struct tfs_buf text; /* made but not yet read */
	size_t pos;
	size_t want;
	uint64_t seen;
	bool read_any; /* something was read: EOF once tracing is off */
};

/* current_tracer is refused (EBUSY) while a consuming reader is open */
static pthread_cond_t readers_cond = PTHREAD_COND_INITIALIZER;

static void pipe_readers_add(struct tfs_instance *inst, int delta)
{
	tfs_lock();
	inst->trace_pipe_readers += delta;
	if (!inst->trace_pipe_readers)
		pthread_cond_broadcast(&readers_cond);
	tfs_unlock();
}

bool tfs_trace_pipe_busy_locked(struct tfs_instance *inst)
{
	struct timespec end = tfs_deadline(CLOCK_REALTIME, TFS_RELEASE_WAIT_MS);

	while (inst->trace_pipe_readers > 0)
		if (pthread_cond_timedwait(&readers_cond, &tfs.lock, &end))
			break;
	return inst->trace_pipe_readers > 0;
}

static int pipe_open(struct tfs_open *o)
{
	struct pipe_state *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	pthread_mutex_init(&st->lock, NULL);
	st->it.inst = o->inst;
	st->it.cpu_filter = o->cpu;
	st->it.pipe = true;
	st->it.lat_fmt = tfs_opt(o->inst, TFS_OPT_LATENCY_FORMAT);
	st->it.time_start = tfs_rr_time_start(o->inst);
	o->priv = st;
	pipe_readers_add(o->inst, 1);
	return 0;
}

static int pipe_emit(struct tfs_iter *it, const struct tfs_event *e, void *arg)
{
	struct pipe_state *st = arg;

	if (st->text.len >= st->want)
		return 1; /* full: the event stays for the next read */
	return print_line(it, e, &st->text) < 0 ? -ENOMEM : 0;
}

/* Called without st->lock. */
static bool pipe_ready(struct tfs_open *o)
{
	struct pipe_state *st = o->priv;
	bool pending;

	pthread_mutex_lock(&st->lock);
	pending = st->pos < st->text.len;
	pthread_mutex_unlock(&st->lock);
	return pending || tfs_rr_ready(o->inst, o->cpu);
}

static ssize_t pipe_read(struct tfs_open *o, char *buf, size_t size, off_t off)
{
	struct pipe_state *st = o->priv;
	ssize_t n;

	if (!size)
		return 0;
	pthread_mutex_lock(&st->lock);
	while (st->pos >= st->text.len) {
		uint64_t seen = st->seen;
		bool eof_when_off = st->read_any;
		long got;
		int err;

		tfs_buf_reset(&st->text);
		st->pos = 0;
		st->want = size;
		got = tfs_rr_consume(o->inst, o->cpu, &st->it, LONG_MAX, pipe_emit, st);
		if (got < 0) {
			pthread_mutex_unlock(&st->lock);
			return got;
		}
		if (st->text.len)
			break;
		pthread_mutex_unlock(&st->lock);
		err = wait_data(o, &seen, pipe_ready, eof_when_off);
		pthread_mutex_lock(&st->lock);
		st->seen = seen;
		if (err) {
			pthread_mutex_unlock(&st->lock);
			return err < 0 ? err : 0;
		}
	}
	n = (ssize_t)(st->text.len - st->pos);
	if ((size_t)n > size)
		n = (ssize_t)size;
	memcpy(buf, st->text.data + st->pos, (size_t)n);
	st->pos += (size_t)n;
	st->read_any = true;
	pthread_mutex_unlock(&st->lock);
	return n;
}

static unsigned int pipe_poll(struct tfs_open *o)
{
	return pipe_ready(o) ? POLLIN | POLLRDNORM : 0;
}

static int pipe_release(struct tfs_open *o)
{
	struct pipe_state *st = o->priv;

	if (st) {
		tfs_iter_release(&st->it);
		tfs_buf_free(&st->text);
		pthread_mutex_destroy(&st->lock);
		free(st);
		o->priv = NULL;
		pipe_readers_add(o->inst, -1);
		tfs_sym_flat_pin(false);
	}
	return 0;
}

const struct tfs_file_ops tfs_trace_pipe_ops = {
	.open = pipe_open,
	.read = pipe_read,
	.poll = pipe_poll,
	.release = pipe_release,
	.seek = TFS_SEEK_NONE,
};

/* ---- trace_pipe_raw ---------------------------------------------------------------------------- */

/* One open trace_pipe_raw; `lock` as in struct pipe_state. */
struct raw_state {
	pthread_mutex_t lock;
	struct tfs_kpage kp;
	size_t len, pos; /* page bytes ready / already read */
	uint64_t seen;
};

static int raw_open(struct tfs_open *o)
{
	struct raw_state *st;

	if (o->cpu < 0)
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	pthread_mutex_init(&st->lock, NULL);
	o->priv = st;
	/* like trace_pipe, an open trace_pipe_raw keeps the tracer from changing */
	pipe_readers_add(o->inst, 1);
	tfs_sym_flat_pin(true);
	return 0;
}

static int raw_emit(struct tfs_iter *it, const struct tfs_event *e, void *arg)
{
	return tfs_kfmt_page_add(arg, e, it->lost);
}

/*
 * per_cpu/cpuN/snapshot_raw (arg TFS_RAW_SNAPSHOT): the same pages from the snapshot
 * buffer, taken out of it; an empty one waits for a swap to bring events.
 */
static bool raw_spare(const struct tfs_open *o)
{
	return o->file->arg == TFS_RAW_SNAPSHOT;
}

static int stop_at_first(struct tfs_iter *it, const struct tfs_event *e, void *arg)
{
	*(bool *)arg = true;
	return 1;
}

/* Build the next page from the consumer; false when there was no event. */
static bool raw_build(struct tfs_open *o, struct raw_state *st)
{
	struct tfs_iter it = {.inst = o->inst, .cpu_filter = o->cpu, .pipe = true};

	tfs_kfmt_page_init(&st->kp, o->inst);
	if (raw_spare(o))
		tfs_rr_spare_consume(o->inst, (unsigned int)o->cpu, &it, LONG_MAX, raw_emit, &st->kp);
	else
		tfs_rr_consume(o->inst, o->cpu, &it, LONG_MAX, raw_emit, &st->kp);
	if (!st->kp.events)
		return false;
	tfs_kfmt_page_finish(&st->kp);
	st->len = TFS_KPAGE_SIZE;
	st->pos = 0;
	return true;
}

/* Called without st->lock. */
static bool raw_ready(struct tfs_open *o)
{
	struct raw_state *st = o->priv;
	bool pending;

	pthread_mutex_lock(&st->lock);
	pending = st->pos < st->len;
	pthread_mutex_unlock(&st->lock);
	if (!pending && raw_spare(o)) {
		struct tfs_iter it = {.inst = o->inst, .cpu_filter = o->cpu, .pipe = true};

		tfs_rr_spare_consume(o->inst, (unsigned int)o->cpu, &it, 1, stop_at_first, &pending);
		return pending;
	}
	return pending || tfs_rr_ready(o->inst, o->cpu);
}

/*
 * A read waits for the first page as the kernel's does.  A read of several pages'
 * size then goes on with the pages ready now, whole ones only, where the kernel's
 * stops at the end of one page: the same bytes in the same order, in fewer trips
 * through FUSE, which is what a recorder's throughput is made of.
 */
static ssize_t raw_read(struct tfs_open *o, char *buf, size_t size, off_t off)
{
	struct raw_state *st = o->priv;
	size_t n, done = 0;

	if (!size)
		return 0;
	pthread_mutex_lock(&st->lock);
	while (st->pos >= st->len) {
		uint64_t seen = st->seen;
		int err;

		if (raw_build(o, st))
			break;
		pthread_mutex_unlock(&st->lock);
		err = wait_data(o, &seen, raw_ready, false);
		pthread_mutex_lock(&st->lock);
		st->seen = seen;
		if (err) {
			pthread_mutex_unlock(&st->lock);
			return err;
		}
	}
	do {
		n = st->len - st->pos;
		if (n > size - done)
			n = size - done;
		memcpy(buf + done, st->kp.page + st->pos, n);
		st->pos += n;
		done += n;
	} while (size - done >= TFS_KPAGE_SIZE && raw_build(o, st));
	pthread_mutex_unlock(&st->lock);
	return (ssize_t)done;
}

static unsigned int raw_poll(struct tfs_open *o)
{
	return raw_ready(o) ? POLLIN | POLLRDNORM : 0;
}

static int raw_release(struct tfs_open *o)
{
	struct raw_state *st = o->priv;

	if (st) {
		pthread_mutex_destroy(&st->lock);
		free(st);
		o->priv = NULL;
		pipe_readers_add(o->inst, -1);
		tfs_sym_flat_pin(false);
	}
	return 0;
}

const struct tfs_file_ops tfs_trace_pipe_raw_ops = {
	.open = raw_open,
	.read = raw_read,
	.poll = raw_poll,
	.release = raw_release,
	.seek = TFS_SEEK_NONE,
};

/* ---- stats --------------------------------------------------------------------------------- */

static void print_stat_time(const struct tfs_instance *inst, struct tfs_buf *b, const char *what,
			    uint64_t t)
{
	if (tfs_clock_is_counter(inst->clock)) {
		tfs_buf_printf(b, "%s: %" PRIu64 "\n", what, t);
	} else {
		uint64_t us = tfs_out_ns2us(t);

		tfs_buf_printf(b, "%s: %5" PRIu64 ".%06lu\n", what, us / 1000000,
			       (unsigned long)(us % 1000000));
	}
}

static int stats_show(struct tfs_open *o)
{
	struct tfs_cpu_stats st;
	struct tfs_buf *b = &o->content;
	int err;

	if (o->cpu < 0)
		return -EINVAL;
	err = tfs_rr_stats(o->inst, (unsigned int)o->cpu, &st);
	if (err)
		return err;
	tfs_buf_printf(b, "entries: %" PRIu64 "\n", st.entries);
	tfs_buf_printf(b, "overrun: %" PRIu64 "\n", st.overrun);
	tfs_buf_printf(b, "commit overrun: %" PRIu64 "\n", st.commit_overrun);
	tfs_buf_printf(b, "bytes: %" PRIu64 "\n", st.bytes);
	print_stat_time(o->inst, b, "oldest event ts",
			st.oldest_tsc ? tfs_clock_from_tsc(o->inst, st.oldest_tsc) : 0);
	print_stat_time(o->inst, b, "now ts", tfs_clock_now(o->inst));
	tfs_buf_printf(b, "dropped events: %" PRIu64 "\n", st.dropped);
	tfs_buf_printf(b, "read events: %" PRIu64 "\n", st.read);
	return 0;
}

const struct tfs_file_ops tfs_stats_ops = {
	.show = stats_show,
};

/* ---- the console dump of the dump and cpudump probes ------------------------------------- */

struct dump_state {
	struct tfs_buf line;
	unsigned long n;
};

static int dump_emit(struct tfs_iter *it, const struct tfs_event *e, void *arg)
{
	struct dump_state *d = arg;

	tfs_buf_reset(&d->line);
	if (print_line(it, e, &d->line) < 0)
		return -ENOMEM;
	if (!d->n++)
		fputs("---------------------------------\n", stderr);
	fwrite(d->line.data, 1, d->line.len, stderr);
	return 0;
}

static void dump_now(int cpu)
{
	struct tfs_iter it = {.inst = &tfs_top,
			      .cpu_filter = cpu,
			      .pipe = true,
			      .lat_fmt = true,
			      .time_start = tfs_rr_time_start(&tfs_top)};
	struct dump_state d = {0};

	fputs("Dumping ftrace buffer:\n", stderr);
	tfs_rr_consume(&tfs_top, cpu, &it, LONG_MAX, dump_emit, &d);
	fputs(d.n ? "---------------------------------\n" : "   (ftrace buffer empty)\n", stderr);
	fflush(stderr);
	tfs_iter_release(&it);
	tfs_buf_free(&d.line);
}

/*
 * Dumps are written by a thread of their own, in the order they were asked for:
 * the registry thread that asks must not wait on the console (nor on a pipe nobody
 * reads).  At most DUMP_QUEUE wait; more are dropped and counted in the console.
 */
#define DUMP_QUEUE 64
static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dump_cond = PTHREAD_COND_INITIALIZER;
static int dump_cpus[DUMP_QUEUE];
static unsigned int dump_head, dump_len;
static unsigned long dump_dropped;
static bool dump_started, dump_stop; /* dump_started: the thread runs */

static void *dump_thread(void *arg)
{
	(void)arg;
	for (;;) {
		unsigned long dropped;
		int cpu;

		pthread_mutex_lock(&dump_lock);
		while (!dump_len && !dump_stop)
			pthread_cond_wait(&dump_cond, &dump_lock);
		if (!dump_len) { /* stopping, and every dump asked for is written */
			dump_started = false;
			pthread_cond_broadcast(&dump_cond);
			pthread_mutex_unlock(&dump_lock);
			return NULL;
		}
		cpu = dump_cpus[dump_head];
		dump_head = (dump_head + 1) % DUMP_QUEUE;
		dump_len--;
		dropped = dump_dropped;
		dump_dropped = 0;
		pthread_mutex_unlock(&dump_lock);
		if (dropped)
			fprintf(stderr, "utracefs: %lu dumps not written (too many at once)\n",
				dropped);
		dump_now(cpu);
	}
	return NULL;
}

void tfs_trace_dump(int cpu)
{
	pthread_t th;
	bool now = false;

	pthread_mutex_lock(&dump_lock);
	if (!dump_started && !dump_stop) {
		pthread_attr_t a;

		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		dump_started = pthread_create(&th, &a, dump_thread, NULL) == 0;
		pthread_attr_destroy(&a);
	}
	if (!dump_started)
		now = true; /* no thread: here, then */
	else if (dump_len == DUMP_QUEUE)
		dump_dropped++;
	else
		dump_cpus[(dump_head + dump_len++) % DUMP_QUEUE] = cpu;
	pthread_cond_signal(&dump_cond);
	pthread_mutex_unlock(&dump_lock);
	if (now)
		dump_now(cpu);
}

void tfs_trace_dump_stop(void)
{
	pthread_mutex_lock(&dump_lock);
	dump_stop = true;
	pthread_cond_broadcast(&dump_cond);
	while (dump_started)
		pthread_cond_wait(&dump_cond, &dump_lock);
	pthread_mutex_unlock(&dump_lock);
}

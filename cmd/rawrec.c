// SPDX-License-Identifier: MIT
/*
 * rawrec.c - the binary recording of `utrace record` and `utrace extract`: every
 * CPU's per_cpu/cpuN/trace_pipe_raw drained into a file of its own while the
 * command runs, then one trace.dat (common/tracedat.c) made of them.
 *
 * Draining.  One thread reads the CPUs' pipes without blocking, up to
 * RAWREC_READ_PAGES pages per read (utracefs gives whole pages, as many as are
 * ready: one trip through FUSE for many pages), and appends them to the CPU's
 * file.  It reads a CPU until it has nothing more; when no CPU has anything it
 * sleeps.  How long: the time the busiest CPU takes, at the rate it was written
 * since the last pass, to fill a quarter of its buffer, between RAWREC_MIN_MS
 * and RAWREC_MAX_MS: a quiet program is read seldom (waiting fills the pages,
 * so that a slow trickle of events does not cost a page each), a busy one often
 * enough that its buffer does not overflow.  Memory is one read's pages: the
 * rest is on disk.
 *
 * The CPU files are unlinked temporary files in the output's directory, so that
 * nothing is left behind by a crash, and so that tracedat.c, which frees each as
 * it copies it (punching holes), makes the recording with about one copy of the
 * data on the disk.  A write that fails (ENOSPC above all) stops the keeping of
 * pages, not the draining: the pages that could not be kept are counted and said.
 * The file's metadata (formats, symbols) goes before the pages and is known only
 * at the end: room for it is held from the start (the output file allocated,
 * up to RAWREC_RESERVE_MAX, and given back just before the file is written), so
 * that a disk the pages filled still takes a valid file.
 *
 * Progress: on a terminal, one line on stderr rewritten every second (events,
 * MB, events the buffers lost), as a long recording must show it is alive; the
 * same line once at the end in any case.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "tcmsg.h"
#include "tracedat.h"
#include "ut_version.h"

#define RAWREC_PAGE 4096
#define RAWREC_READ_PAGES 16
#define RAWREC_MIN_MS 1
#define RAWREC_MAX_MS 100
#define RAWREC_MAX_CPUS 1024
#define RAWREC_RESERVE_MAX (4u << 20)
#define RAWREC_RESERVE_MIN (64u << 10)
/* record -N: the longest silence of a listener (it waits 2 s before it puts the file together) */
#define RAWREC_NET_WAIT_MS 60000

struct rawrec_cpu {
	int pipe; /* per_cpu/cpuN/trace_pipe_raw, non-blocking */
	int file;     /* the pages kept */
	int cpu;
	int read_err; /* the first error reading the pipe (not EAGAIN), said at the end */
};

struct cli_rawrec {
	struct rawrec_cpu *cpu;
	unsigned int ncpu;
	pthread_t thread;
	bool running;
	bool stop; /* set by the main thread, read by the drain thread (atomically) */
	bool progress;	    /* a line on a terminal */
	int write_err;	    /* the first error keeping a page (errno) */
	unsigned long long buffer_bytes; /* buffer_size_kb of one CPU, in bytes */
	unsigned char *chunk;		 /* RAWREC_READ_PAGES pages, one read's */
	unsigned long long pages, pages_dropped, events, lost;
	bool lost_unknown; /* a page said events were lost without their number */
	int reserved_fd;   /* the output, allocated to hold room for the metadata; -1: none */
	time_t shown;
};

/* ---- what a page holds ----------------------------------------------------------------- */

#define RB_TYPE_PADDING 29
#define RB_TYPE_TIME_EXTEND 30
#define RB_TYPE_TIME_STAMP 31
#define RB_COMMIT_MASK ((1ull << 27) - 1)
#define RB_MISSED_EVENTS (1ull << 31)
#define RB_MISSED_STORED (1ull << 30)

/*
 * The events of one page of the kernel's ring-buffer format (header_page,
 * header_event), and the events lost before it (-1: some, not counted).
 */
static unsigned int page_events(const unsigned char *page, long long *lost)
{
	uint64_t commit;
	size_t used, pos = 0;
	unsigned int n = 0;

	memcpy(&commit, page + 8, 8);
	used = commit & RB_COMMIT_MASK;
	if (used > RAWREC_PAGE - 16)
		used = RAWREC_PAGE - 16;
	*lost = 0;
	if (commit & RB_MISSED_EVENTS) {
		*lost = -1;
		if ((commit & RB_MISSED_STORED) && used + 8 <= RAWREC_PAGE - 16) {
			uint64_t v;

			memcpy(&v, page + 16 + used, 8);
			*lost = (long long)v;
		}
	}
	page += 16;
	while (pos + 4 <= used) {
		uint32_t hdr, len;
		unsigned int type;

		memcpy(&hdr, page + pos, 4);
		type = hdr & 31;
		if (type == RB_TYPE_PADDING || type == 0) {
			if (pos + 8 > used)
				break;
			memcpy(&len, page + pos + 4, 4);
			if (type == 0)
				n++;
			if (type == RB_TYPE_PADDING && !(hdr >> 5))
				break; /* the rest of the page is empty */
			pos += 4 + ((len + 3) & ~3u);
			if (!len)
				break;
		} else if (type == RB_TYPE_TIME_EXTEND || type == RB_TYPE_TIME_STAMP) {
			pos += 8;
		} else {
			n++;
			pos += 4 + type * 4;
		}
	}
	return n;
}

/* ---- draining -------------------------------------------------------------------------- */

static void show_progress(struct cli_rawrec *r, bool last)
{
	time_t now = time(NULL);

	if (!last && (!r->progress || now == r->shown))
		return;
	r->shown = now;
	fprintf(stderr, "%s%s: %llu events, %.1f MB, %llu%s lost%s", r->progress ? "\r" : "",
		cli_name(), r->events, (double)r->pages * RAWREC_PAGE / 1e6, r->lost,
		r->lost_unknown ? "+" : "", last ? "\n" : "  ");
	fflush(stderr);
}

/* Keep n pages of cpu c (after a failure, only count them). */
static void keep_pages(struct cli_rawrec *r, struct rawrec_cpu *c, const unsigned char *pages,
		       unsigned int n)
{
	size_t len = (size_t)n * RAWREC_PAGE, done = 0;

	for (unsigned int i = 0; i < n; i++) {
		long long lost;

		r->events += page_events(pages + (size_t)i * RAWREC_PAGE, &lost);
		if (lost < 0)
			r->lost_unknown = true;
		else
			r->lost += (unsigned long long)lost;
	}
	while (!r->write_err && done < len) {
		ssize_t w = write(c->file, pages + done, len - done);

		if (w <= 0)
			r->write_err = w < 0 ? errno : ENOSPC;
		else
			done += (size_t)w;
	}
	/* the writer takes whole pages only: the part of one that did not fit goes */
	if (done % RAWREC_PAGE && ftruncate(c->file, lseek(c->file, 0, SEEK_CUR) -
						     (off_t)(done % RAWREC_PAGE))) {
		/* then tracedat.c ignores it: it copies whole pages */
	}
	r->pages += done / RAWREC_PAGE;
	r->pages_dropped += n - done / RAWREC_PAGE;
}

/*
 * One pass over the CPUs, each read until it has nothing more.  Returns the pages
 * read, and through *most the bytes of the CPU that had the most.
 */
static unsigned long drain_pass(struct cli_rawrec *r, unsigned long long *most)
{
	unsigned long got = 0;

	*most = 0;
	for (unsigned int i = 0; i < r->ncpu; i++) {
		struct rawrec_cpu *c = &r->cpu[i];
		unsigned long long bytes = 0;

		for (;;) {
			ssize_t n = read(c->pipe, r->chunk, (size_t)RAWREC_READ_PAGES * RAWREC_PAGE);

			/* EAGAIN: nothing now; another error is said at the end */
			if (n < 0 && errno != EAGAIN && errno != EINTR && !c->read_err)
				c->read_err = errno;
			if (n < RAWREC_PAGE)
				break;
			n -= n % RAWREC_PAGE; /* (utracefs gives whole pages) */
			keep_pages(r, c, r->chunk, (unsigned int)(n / RAWREC_PAGE));
			bytes += (unsigned long long)n;
			got += (unsigned long)(n / RAWREC_PAGE);
		}
		if (bytes > *most)
			*most = bytes;
	}
	return got;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void *drain_thread(void *arg)
{
	struct cli_rawrec *r = arg;
	double last = now_ms();
	unsigned long long most;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		double t, ms = RAWREC_MAX_MS;

		drain_pass(r, &most);
		show_progress(r, false);
		t = now_ms();
		/* a quarter of the buffer at the rate the busiest CPU was written */
		if (most && t > last)
			ms = (double)r->buffer_bytes / 4 / ((double)most / (t - last));
		last = t;
		if (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
			sleep_ms(ms < RAWREC_MIN_MS   ? RAWREC_MIN_MS
				 : ms > RAWREC_MAX_MS ? RAWREC_MAX_MS
						      : (unsigned int)ms);
	}
	/* what was written before tracing went off */
	while (drain_pass(r, &most))
		;
	return NULL;
}

/* ---- the session's CPUs ---------------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The numbers of dir/per_cpu/cpuN, sorted; their count or -errno. */
static int session_cpus(const char *dir, int **out)
{
	char path[PATH_MAX];
	struct dirent *d;
	int *cpus = NULL, n = 0;
	DIR *dh;

	if (cli_path(path, sizeof(path), dir, "per_cpu"))
		return -ENAMETOOLONG;
	dh = opendir(path);
	if (!dh)
		return -errno;
	while ((d = readdir(dh))) {
		char *end;
		long v;

		if (strncmp(d->d_name, "cpu", 3))
			continue;
		v = strtol(d->d_name + 3, &end, 10);
		if (*end || end == d->d_name + 3 || v < 0 || n == RAWREC_MAX_CPUS)
			continue;
		int *more = realloc(cpus, sizeof(*cpus) * (size_t)(n + 1));

		if (!more) {
			free(cpus);
			closedir(dh);
			return -ENOMEM;
		}
		cpus = more;
		cpus[n++] = (int)v;
	}
	closedir(dh);
	if (!n) {
		free(cpus);
		return -ENOENT;
	}
	qsort(cpus, (size_t)n, sizeof(*cpus), cmp_int);
	*out = cpus;
	return n;
}

/* One CPU's buffer in bytes (buffer_size_kb: "1408", "7 (expanded: 1408)"). */
static unsigned long long session_buffer_bytes(const char *dir)
{
	unsigned long long kb = cli_buffer_kb(dir);

	return (kb ? kb : 1408) * 1024;
}

/* An unlinked file for one CPU's pages in the directory of output. */
static int temp_file(const char *output)
{
	char dir[PATH_MAX], tmpl[PATH_MAX];
	const char *slash = strrchr(output, '/');
	int fd;

	if (!strcmp(output, "-")) {
		const char *t = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s", t && *t ? t : "/tmp");
	} else if (slash) {
		snprintf(dir, sizeof(dir), "%.*s", slash == output ? 1 : (int)(slash - output),
			 output);
	} else {
		snprintf(dir, sizeof(dir), ".");
	}
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if (snprintf(tmpl, sizeof(tmpl), "%s/.utrace-cpu.XXXXXX", dir) >= (int)sizeof(tmpl))
		return -ENAMETOOLONG;
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(tmpl);
	return fd;
}

void cli_rawrec_free(struct cli_rawrec *r)
{
	if (!r)
		return;
	if (r->running)
		cli_rawrec_stop(r);
	/* never written (the run failed): no room held in an empty file */
	if (r->reserved_fd >= 0 && ftruncate(r->reserved_fd, 0)) {
		/* the file keeps zeros; the failure was said already */
	}
	for (unsigned int i = 0; i < r->ncpu; i++) {
		if (r->cpu[i].pipe >= 0)
			close(r->cpu[i].pipe);
		if (r->cpu[i].file >= 0)
			close(r->cpu[i].file);
	}
	free(r->cpu);
	free(r->chunk);
	free(r);
}

int cli_rawrec_open(struct cli_rawrec **out, const char *dir, const char *output, const char *raw,
		    bool progress)
{
	struct cli_rawrec *r = calloc(1, sizeof(*r));
	int *cpus = NULL, n = r ? session_cpus(dir, &cpus) : -ENOMEM;
	char path[PATH_MAX], rel[64];

	if (n < 0) {
		free(r);
		return cli_file_error(dir, n);
	}
	r->cpu = calloc((size_t)n, sizeof(*r->cpu));
	if (!r->cpu) {
		free(cpus);
		free(r);
		return cli_file_error(dir, -ENOMEM);
	}
	r->progress = progress;
	r->reserved_fd = -1;
	r->buffer_bytes = session_buffer_bytes(dir);
	r->chunk = malloc((size_t)RAWREC_READ_PAGES * RAWREC_PAGE);
	if (!r->chunk) {
		free(cpus);
		free(r->cpu);
		free(r);
		return cli_file_error(dir, -ENOMEM);
	}
	for (int i = 0; i < n; i++)
		r->cpu[i] = (struct rawrec_cpu){.pipe = -1, .file = -1, .cpu = cpus[i]};
	r->ncpu = (unsigned int)n;
	free(cpus);
	for (unsigned int i = 0; i < r->ncpu; i++) {
		struct rawrec_cpu *c = &r->cpu[i];

		cli_cpu_file(rel, sizeof(rel), c->cpu, raw);
		if (cli_path(path, sizeof(path), dir, rel)) {
			cli_rawrec_free(r);
			return cli_file_error(dir, -ENAMETOOLONG);
		}
		c->pipe = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->pipe < 0) {
			int err = -errno;

			cli_rawrec_free(r);
			return cli_file_error(path, err);
		}
		c->file = temp_file(output);
		if (c->file < 0) {
			int err = c->file;

			cli_rawrec_free(r);
			return cli_file_error(output, err);
		}
	}
	*out = r;
	return 0;
}

/*
 * Can the file be written where it is (td_write writes at absolute offsets and
 * cuts the file): a regular file at offset 0, not opened to append.  Anything
 * else (a pipe, `>> FILE`, a shared stdout further on) gets a copy.
 */
static bool in_place(int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	return !fstat(fd, &st) && S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_CUR) == 0 &&
	       fl >= 0 && !(fl & O_APPEND);
}

/*
 * Hold room for the metadata in the output (a regular file): as much as the
 * file system gives, up to RAWREC_RESERVE_MAX.
 */
void cli_rawrec_reserve(struct cli_rawrec *r, int fd)
{
	struct statvfs vfs;
	off_t max = RAWREC_RESERVE_MAX;

	if (!in_place(fd))
		return;
	/* a quarter of the free space at most: the rest is for the pages */
	if (!fstatvfs(fd, &vfs) && (unsigned long long)vfs.f_bavail * vfs.f_frsize / 4 < (unsigned long long)max)
		max = (off_t)((unsigned long long)vfs.f_bavail * vfs.f_frsize / 4);
	for (off_t len = max; len >= RAWREC_RESERVE_MIN; len /= 2)
		if (!fallocate(fd, 0, 0, len)) {
			r->reserved_fd = fd;
			return;
		}
}

unsigned long long cli_rawrec_events(const struct cli_rawrec *r)
{
	return r->events;
}

int cli_rawrec_start(struct cli_rawrec *r)
{
	sigset_t all, old;
	int err;

	/* the stop signals are the main thread's */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&r->thread, NULL, drain_thread, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return cli_file_error("trace_pipe_raw reader", -err);
	r->running = true;
	return 0;
}

void cli_rawrec_stop(struct cli_rawrec *r)
{
	unsigned long long most;

	if (r->running) {
		__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
		pthread_join(r->thread, NULL);
		r->running = false;
	} else {
		/*
		 * extract: what is there now.  Tracing goes on: a busy program could keep
		 * every pass busy, so at most twice what the buffers hold is taken.
		 */
		unsigned long long cap = r->ncpu * (r->buffer_bytes / RAWREC_PAGE * 2 + 64), got = 0;

		__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
		while (got < cap) {
			unsigned long n = drain_pass(r, &most);

			if (!n)
				break;
			got += n;
		}
	}
	show_progress(r, true);
	for (unsigned int i = 0; i < r->ncpu; i++) {
		close(r->cpu[i].pipe);
		r->cpu[i].pipe = -1;
	}
}

/* ---- the file -------------------------------------------------------------------------- */

/* The text of dir/per_cpu/cpuN/stats (NULL when it cannot be read). */
static char *cpu_stats(const char *dir, int cpu)
{
	char rel[64], *text;

	cli_cpu_file(rel, sizeof(rel), cpu, "stats");
	return cli_read_value(dir, rel, &text) ? NULL : text;
}

/* The selected word of trace_clock ("[local] global" -> "local"). */
static char *session_clock(const char *dir)
{
	char *text, *lb, *rb;

	if (cli_read_value(dir, "trace_clock", &text))
		return NULL;
	lb = strchr(text, '[');
	rb = lb ? strchr(lb, ']') : NULL;
	if (!rb) {
		free(text);
		return NULL;
	}
	memmove(text, lb + 1, (size_t)(rb - lb - 1));
	text[rb - lb - 1] = '\0';
	return text;
}

/* Copy a finished file from tmp to a descriptor that cannot seek (stdout, a pipe). */
static int copy_out(int tmp, int fd)
{
	char buf[65536];
	ssize_t n;

	if (lseek(tmp, 0, SEEK_SET))
		return -errno;
	while ((n = read(tmp, buf, sizeof(buf))) > 0)
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(fd, buf + done, (size_t)(n - done));

			if (w < 0)
				return -errno;
			done += w;
		}
	return n < 0 ? -errno : 0;
}

/* What a trace.dat of r is made of (the part td_opts points into). */
struct rawrec_meta {
	struct td_cpu *cpus;
	char **stats, *clock, kallsyms[PATH_MAX], uts[sizeof(struct utsname) + 8];
	struct td_opts td;
};

static void meta_free(struct rawrec_meta *m, unsigned int ncpu)
{
	for (unsigned int i = 0; m->stats && i < ncpu; i++)
		free(m->stats[i]);
	free(m->stats);
	free(m->cpus);
	free(m->clock);
}

/*
 * The writer's options for r's pages: formats, saved_cmdlines and kallsyms of the mount
 * (read now, after the last page, so that every object a page names is in kallsyms), the
 * session's clock and per-CPU stats.  0 or -ENOMEM.
 */
/* What every trace.dat of the session has: the mount's formats and kallsyms, the
 * session's clock, uname and utrace's version.  m->clock is allocated (meta_free). */
static void meta_common(const char *mnt, const char *dir, int version, struct rawrec_meta *m)
{
	struct utsname u;

	*m = (struct rawrec_meta){.clock = session_clock(dir)};
	uname(&u);
	snprintf(m->uts, sizeof(m->uts), "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
	cli_path(m->kallsyms, sizeof(m->kallsyms), mnt, "kallsyms");
	m->td = (struct td_opts){
		.version = version,
		.tracing_dir = mnt,
		.kallsyms = access(m->kallsyms, R_OK) ? NULL : m->kallsyms,
		.clock = m->clock,
		.page_size = RAWREC_PAGE,
		.uname = m->uts,
		.version_str = "utrace " UT_VERSION,
	};
}

static int meta_get(struct cli_rawrec *r, const char *mnt, const char *dir, int version,
		    struct rawrec_meta *m)
{
	meta_common(mnt, dir, version, m);
	m->cpus = calloc(r->ncpu, sizeof(*m->cpus));
	m->stats = calloc(r->ncpu, sizeof(*m->stats));
	if (!m->cpus || !m->stats) {
		meta_free(m, r->ncpu);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < r->ncpu; i++) {
		m->cpus[i].fd = r->cpu[i].file;
		m->stats[i] = cpu_stats(dir, r->cpu[i].cpu);
		if (lseek(r->cpu[i].file, 0, SEEK_SET))
			m->cpus[i].fd = -1;
	}
	m->td.cpus = r->ncpu;
	m->td.cpu = m->cpus;
	m->td.cpu_stats = (const char *const *)m->stats;
	m->td.punch = true;
	return 0;
}

/* Pages that could not be kept or read while recording: said; CLI_FAIL then. */
static int say_write_err(const struct cli_rawrec *r, const char *what)
{
	int rc = 0;

	for (unsigned int i = 0; i < r->ncpu; i++)
		if (r->cpu[i].read_err) {
			cli_error("%s: CPU %d: reading trace_pipe_raw: %s (its later events are "
				  "missing)",
				  what, r->cpu[i].cpu, strerror(r->cpu[i].read_err));
			rc = CLI_FAIL;
		}
	if (!r->write_err)
		return rc;
	cli_error("%s: %s: %llu pages (4 KB) of events not kept", what, strerror(r->write_err),
		  r->pages_dropped);
	return CLI_FAIL;
}

/*
 * td_write, and when a disk the pages filled has no room for the metadata, which goes
 * first (the file is then left empty): the newest half of the pages of the CPU that
 * has most go, until it fits.  Those pages are counted as not kept.
 */
static int write_fitting(struct cli_rawrec *r, int fd, const struct td_opts *td,
			 struct td_result *res)
{
	for (;;) {
		int err = td_write(fd, td, res), big = -1;
		off_t most = 0, keep;
		struct stat st;

		if (err != -ENOSPC || fstat(fd, &st) || st.st_size)
			return err;
		for (unsigned int i = 0; i < r->ncpu; i++)
			if (!fstat(r->cpu[i].file, &st) && st.st_size > most) {
				most = st.st_size;
				big = (int)i;
			}
		if (big < 0)
			return err;
		keep = most / 2 / RAWREC_PAGE * RAWREC_PAGE;
		if (ftruncate(r->cpu[big].file, keep) || ftruncate(fd, 0))
			return err;
		r->pages_dropped += (unsigned long long)(most - keep) / RAWREC_PAGE;
		r->pages -= (unsigned long long)(most - keep) / RAWREC_PAGE;
		if (!r->write_err)
			r->write_err = ENOSPC;
	}
}

int cli_rawrec_write(struct cli_rawrec *r, const struct cli_rawrec_out *o)
{
	struct rawrec_meta m;
	struct td_result res = {0};
	bool seekable = in_place(o->fd);
	int fd = o->fd, err, rc = 0;

	if (meta_get(r, o->mnt, o->dir, o->version, &m))
		return cli_file_error(o->path, -ENOMEM);
	if (!seekable)
		fd = temp_file("-");
	else if (r->reserved_fd == o->fd && ftruncate(o->fd, 0))
		fd = -errno; /* the room held for the metadata given back */
	r->reserved_fd = -1;
	err = fd < 0 ? fd : write_fitting(r, fd, &m.td, &res);
	if (!err && !seekable)
		err = copy_out(fd, o->fd);
	if (err) {
		if (res.pages_written || res.pages_dropped)
			cli_error("%s: %s: the recording was cut short (%llu pages kept, %llu lost)",
				  o->path, strerror(-err), res.pages_written, res.pages_dropped);
		else
			cli_file_error(o->path, err);
		rc = CLI_FAIL;
	}
	rc |= say_write_err(r, o->path);
	if (!seekable && fd >= 0)
		close(fd);
	meta_free(&m, r->ncpu);
	return rc;
}

int cli_latency_write(const struct cli_rawrec_out *o)
{
	struct rawrec_meta m;
	char path[PATH_MAX], *text = NULL;
	int *cpus = NULL, n = session_cpus(o->dir, &cpus), fd = o->fd, err;
	bool seekable = in_place(o->fd);
	size_t len = 0;

	free(cpus);
	cli_path(path, sizeof(path), o->dir, "trace");
	err = n < 0 ? n : cli_read_file(path, &text, &len);
	if (err)
		return cli_file_error(path, err);
	meta_common(o->mnt, o->dir, o->version, &m);
	m.td.cpus = (unsigned int)n;
	m.td.latency = text;
	m.td.latency_len = len;
	if (!seekable)
		fd = temp_file("-");
	err = fd < 0 ? fd : td_write(fd, &m.td, NULL);
	if (!err && !seekable)
		err = copy_out(fd, o->fd);
	if (!seekable && fd >= 0)
		close(fd);
	meta_free(&m, 0);
	free(text);
	return err ? cli_file_error(o->path, err) : 0;
}

int cli_rawrec_send(struct cli_rawrec *r, const struct cli_rawrec_net *o)
{
	struct rawrec_meta m;
	char why[512], *head = NULL;
	size_t len;
	int err, rc = 0;

	if (meta_get(r, o->mnt, o->dir, o->version, &m))
		return cli_file_error(o->dest, -ENOMEM);
	err = td_listener_head(&m.td, &head, &len);
	if (err) {
		cli_error("%s: the metadata: %s", o->dest, strerror(-err));
		rc = CLI_FAIL;
	} else {
		struct tcm_session s = {
			.host = o->host,
			.port = o->port,
			.head = head,
			.head_len = len,
			.cpus = r->ncpu,
			.page_size = RAWREC_PAGE,
			.timeout_ms = RAWREC_NET_WAIT_MS,
		};
		int *fds = calloc(r->ncpu ? r->ncpu : 1, sizeof(*fds));

		for (unsigned int i = 0; fds && i < r->ncpu; i++)
			fds[i] = m.cpus[i].fd;
		s.cpu_fd = fds;
		err = fds ? tcm_send(&s, why, sizeof(why)) : -ENOMEM;
		if (err == -ENOMEM && !fds)
			snprintf(why, sizeof(why), "%s", strerror(ENOMEM));
		if (err) {
			cli_error("%s: %s", o->dest, why);
			rc = CLI_FAIL;
		}
		free(fds);
	}
	rc |= say_write_err(r, o->dest);
	free(head);
	meta_free(&m, r->ncpu);
	return rc;
}

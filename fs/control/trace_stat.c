// SPDX-License-Identifier: MIT
/*
 * trace_stat.c - the function profiler's files at the root of the mount:
 * function_profile_enabled and trace_stat/functionN, one per CPU, as the
 * kernel's.
 *
 * function_profile_enabled: "0" or "1"; a write is read as a number (EINVAL
 * otherwise) and any nonzero value is 1.  1 starts the profiler whatever the
 * tracer (nop included): the counts start from zero (a new epoch); 0 stops it,
 * and the counts stay readable until it is enabled again.
 *
 * The counting is done in the traced processes (runtime/profile.c), which send
 * their counts (UT_MSG_PROFILE) when asked: opening a trace_stat file bumps
 * ut_ctl.profile_req and applies it like any other change, and every process
 * sends its counts before its ACK, so they are all here when the wait ends.  A
 * process also sends them at exit(), so an ended process's counts stay (a
 * killed one keeps what it sent last).  Counts are asked for, not pushed: calls
 * cost no message, and a read costs one round trip per process, which the
 * daemon already does for every change.
 *
 * Each process's latest set is kept with the functions named when it came (so
 * they outlive the process); a file sums the sets per function for its CPU and
 * prints them sorted by time, largest first, as the kernel's stat files do.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_ctl.h"
#include "tfs.h"
#include "trace_stat.h"
#include "ut_profile_fmt.h"
#include "ut_wire.h"

struct prof_proc {
	pid_t pid;
	size_t n, cap;
	struct ut_prof_row *rows;
};

static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;
static struct prof_proc *procs;
static size_t nprocs;
static bool prof_enabled;
static uint32_t prof_epoch;
static char stat_names[UT_RB_MAX_CPUS][16];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void names_init(void)
{
	for (unsigned int cpu = 0; cpu < UT_RB_MAX_CPUS; cpu++)
		snprintf(stat_names[cpu], sizeof(stat_names[cpu]), "function%u", cpu);
}

const char *tfs_trace_stat_name(unsigned int i)
{
	pthread_once(&names_once, names_init);
	return i < tfs.nr_cpus ? stat_names[i] : NULL;
}

/* The kernel's table for rows (merged and sorted). */
static int render(struct tfs_buf *b, const struct ut_prof_row *rows, size_t n, uint64_t thresh_ns)
{
	char line[512];
	int err = tfs_buf_printf(b, "%s", UT_PROF_HEADER);

	for (size_t i = 0; i < n && err >= 0; i++)
		err =
		    tfs_buf_append(b, line, ut_prof_line(line, sizeof(line), &rows[i], thresh_ns));
	return err < 0 ? -ENOMEM : 0;
}

/* ---- the counts processes sent ------------------------------------------------------ */

static struct prof_proc *proc_get(pid_t pid)
{
	struct prof_proc *p;

	for (size_t i = 0; i < nprocs; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	p = realloc(procs, (nprocs + 1) * sizeof(*procs));
	if (!p)
		return NULL;
	procs = p;
	p = &procs[nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

static void procs_clear(void)
{
	for (size_t i = 0; i < nprocs; i++)
		free(procs[i].rows);
	free(procs);
	procs = NULL;
	nprocs = 0;
}

static void name_of(pid_t pid, uint64_t ip, char *name, size_t size)
{
	uint64_t start, symsize;

	if (tfs_sym_lookup(pid, ip, false, name, size, &start, &symsize) == 0)
		return;
	snprintf(name, size, "0x%" PRIx64, ip);
}

int tfs_profile_msg(pid_t pid, const void *buf, size_t n)
{
	const struct ut_msg_profile *m = buf;
	struct prof_proc *p;
	int ret = 0;

	if (n < sizeof(*m) || m->nr > UT_PROFILE_PER_MSG ||
	    n != sizeof(*m) + m->nr * sizeof(struct ut_prof_rec))
		return -EPROTO;
	pthread_mutex_lock(&prof_lock);
	if (m->epoch != prof_epoch || !prof_epoch)
		goto out; /* counts of an earlier run of the profiler */
	p = proc_get(pid);
	if (!p) {
		ret = -ENOMEM;
		goto out;
	}
	if (m->first)
		p->n = 0;
	if (p->n + m->nr > p->cap) {
		size_t cap = (p->n + m->nr) * 2;
		struct ut_prof_row *r = realloc(p->rows, cap * sizeof(*r));

		if (!r) {
			ret = -ENOMEM;
			goto out;
		}
		p->rows = r;
		p->cap = cap;
	}
	for (uint32_t i = 0; i < m->nr; i++) {
		const struct ut_prof_rec *in = &m->rec[i];
		struct ut_prof_row *r = &p->rows[p->n];

		if (!in->hits || in->cpu >= tfs.nr_cpus)
			continue; /* nothing a process says is trusted */
		name_of(pid, in->ip, r->name, sizeof(r->name));
		r->cpu = in->cpu;
		r->hits = in->hits;
		r->time_ns = in->time_ns;
		r->sq_ns = in->sq_ns;
		p->n++;
	}
out:
	pthread_mutex_unlock(&prof_lock);
	return ret;
}

/* ---- the files ---------------------------------------------------------------------- */

/* Bump profile_req and apply: every live process has sent its counts on return. */
static void ask_counts(void)
{
	struct ut_ctl *ctl = tfs_top.ctl;

	if (!ctl || !tfs_registry_count())
		return;
	tfs_lock();
	__atomic_store_n(&ctl->profile_req, ctl->profile_req + 1, __ATOMIC_RELEASE);
	tfs_unlock();
	tfs_apply(&tfs_top);
}

static int stat_show(struct tfs_open *o)
{
	struct ut_prof_row *rows = NULL;
	size_t n = 0, total = 0;
	int ret;

	ask_counts();
	pthread_mutex_lock(&prof_lock);
	for (size_t i = 0; i < nprocs; i++)
		total += procs[i].n;
	if (total && !(rows = malloc(total * sizeof(*rows)))) {
		pthread_mutex_unlock(&prof_lock);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nprocs; i++)
		for (size_t j = 0; j < procs[i].n; j++)
			if (procs[i].rows[j].cpu == (uint32_t)o->cpu)
				rows[n++] = procs[i].rows[j];
	pthread_mutex_unlock(&prof_lock);
	n = ut_prof_merge(rows, n);
	ret = render(&o->content, rows, n, tfs_graph_thresh_ns());
	free(rows);
	return ret;
}

/*
 * ns per TSC tick << 32, from utracefs's own calibration: the runtime's fast
 * paths time calls with rdtsc (0: unknown, and they leave the work to C).
 */
static uint64_t tsc_mult(void)
{
	uint64_t ticks = tfs_graph_ns_to_tsc(1000000000u);

	return ticks ? (uint64_t)(((unsigned __int128)1000000000u << 32) / ticks) : 0;
}

static int enabled_show(struct tfs_open *o)
{
	bool on;

	pthread_mutex_lock(&prof_lock);
	on = prof_enabled;
	pthread_mutex_unlock(&prof_lock);
	return tfs_buf_printf(&o->content, "%d\n", on) < 0 ? -ENOMEM : 0;
}

static ssize_t enabled_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	struct ut_ctl *ctl = tfs_top.ctl;
	uint64_t mult = tsc_mult();
	unsigned long val;
	bool on, changed;
	int err = tfs_parse_ulong(buf, size, &val);

	if (err)
		return err;
	on = val != 0;
	/*
	 * The control page is written under prof_lock too (then tfs.lock: the
	 * order everywhere), so that of two racing writers the last one's value is
	 * both what the file says and what the processes see.
	 */
	pthread_mutex_lock(&prof_lock);
	changed = prof_enabled != on;
	prof_enabled = on;
	if (changed && on) { /* the counts start again from zero */
		procs_clear();
		prof_epoch++;
	}
	if (changed && ctl) {
		tfs_lock();
		__atomic_store_n(&ctl->profile_tsc_mult, mult, __ATOMIC_RELAXED);
		__atomic_store_n(&ctl->profile_epoch, prof_epoch, __ATOMIC_RELAXED);
		/* stopping: the processes send what they counted with the same change */
		if (!on)
			__atomic_store_n(&ctl->profile_req, ctl->profile_req + 1,
					 __ATOMIC_RELAXED);
		__atomic_store_n(&ctl->profile_on, on ? 1u : 0u, __ATOMIC_RELEASE);
		tfs_unlock();
	}
	pthread_mutex_unlock(&prof_lock);
	if (changed && ctl)
		tfs_apply(&tfs_top);
	return (ssize_t)size;
}

const struct tfs_file_ops tfs_function_profile_enabled_ops = {
    .show = enabled_show,
    .write = enabled_write,
};

const struct tfs_file_ops tfs_trace_stat_ops = {
    .show = stat_show,
    .seek = TFS_SEEK_SEQ,
};

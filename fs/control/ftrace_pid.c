// SPDX-License-Identifier: MIT
/*
 * ftrace_pid.c - set_ftrace_pid, set_ftrace_notrace_pid, set_event_pid and
 * set_event_notrace_pid: lists of thread or process ids.
 *
 * As in the kernel (kernel/trace/trace.c trace_pid_write, ftrace.c pid_write):
 *   - a write is cut into tokens at white space; each token is a number
 *     (strtoul base 0, so 0x10 and 010 work) below PID_MAX_LIMIT; anything else
 *     makes the write fail with EINVAL;
 *   - a write is all or nothing: a bad token anywhere leaves the list as it was;
 *   - `>` (O_TRUNC) replaces the list by what the writes of that open add, `>>`
 *     adds to it; an O_TRUNC open without any write (`: > set_ftrace_pid`)
 *     empties the list when it is closed.  Unlike the kernel, which empties the
 *     list at open, `echo bad > set_ftrace_pid` changes nothing at all;
 *   - reading lists the ids in ascending order, one per line, or `no pid`.
 *
 * set_event_pid and set_event_notrace_pid follow the kernel's trace_pid_write
 * (checked on a 6.18 kernel): an id is cut to 32 bits and refused with EPERM
 * from 2^30 on (the kernel's pid list holds ids below 1 << 30, not only those
 * below PID_MAX_LIMIT), an empty list reads as nothing, a failed write leaves
 * no error_log line, and `>` empties the list even when the write then fails.
 *
 * What an id means for set_ftrace_pid and set_ftrace_notrace_pid: the id of a
 * thread, or the id of a process, which then selects all of its threads
 * (user-space users think in process ids; the kernel only knows tasks).
 * set_ftrace_pid not empty: only the threads it selects record function and
 * function_graph events; set_ftrace_notrace_pid removes the threads it selects
 * (and wins).  set_event_pid and set_event_notrace_pid do the same for trace
 * events (not for trace_marker's print, as in the kernel), by thread id alone as
 * the kernel's: a process id names its main thread.  utracefs resolves both
 * pairs per process for the selection memfd (ut_sel.h): a process none of whose
 * threads is selected patches nothing; its threads' events are checked in the
 * process, by a per-thread answer cached until the lists change.
 *
 * Options function-fork and event-fork, each for its pair of lists, in each
 * instance that sets it (the kernel's fork and exit probes, one piece of code for
 * both here): a task created by a listed one joins that list, and a task that goes
 * leaves it.  A process is created when it registers (its HELLO names the thread
 * that forked it; /proc/PID/stat its parent process) and goes when its connection
 * closes; a thread is created and goes as the runtime says (UT_MSG_THREAD), which
 * it does only while some instance follows forks.
 *
 * Every instance has its four lists, as every trace_array has; the selection
 * memfd gives each process every instance's answer for it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "functab.h"
#include "ut_sel.h"

#define PID_LIMIT 4194304u /* the kernel's PID_MAX_LIMIT on 64-bit */
#define EVENT_PID_LIMIT (1u << 30) /* what the kernel's trace_pid_list can hold */
#define PID_TOKEN_MAX 64

struct pid_list {
	int32_t *ids; /* sorted, unique */
	unsigned int n, cap;
};

static pthread_mutex_t pid_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pid_list inst_lists[UT_INST_MAX][TFS_PID_NR]; /* by instance slot */
static struct pid_list *const lists = inst_lists[0];	      /* the top level's */

struct pid_open {
	enum tfs_pid_list which;
	bool writing, trunc, wrote, bad;
};

/* ---- sorted id lists ---------------------------------------------------------------- */

static unsigned int pl_index(const struct pid_list *l, int32_t id)
{
	unsigned int lo = 0, hi = l->n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (l->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool pl_has(const struct pid_list *l, int32_t id)
{
	unsigned int i = pl_index(l, id);

	return i < l->n && l->ids[i] == id;
}

static int pl_add(struct pid_list *l, int32_t id)
{
	unsigned int i = pl_index(l, id);

	if (i < l->n && l->ids[i] == id)
		return 0;
	if (l->n == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 16;
		int32_t *ids = realloc(l->ids, cap * sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		l->ids = ids;
		l->cap = cap;
	}
	memmove(&l->ids[i + 1], &l->ids[i], (l->n - i) * sizeof(*l->ids));
	l->ids[i] = id;
	l->n++;
	return 1;
}

static bool pl_del(struct pid_list *l, int32_t id)
{
	unsigned int i = pl_index(l, id);

	if (i >= l->n || l->ids[i] != id)
		return false;
	memmove(&l->ids[i], &l->ids[i + 1], (l->n - i - 1) * sizeof(*l->ids));
	l->n--;
	return true;
}

static void pl_free(struct pid_list *l)
{
	free(l->ids);
	*l = (struct pid_list){0};
}

/* ---- parsing ------------------------------------------------------------------------- */

/* The event lists: the kernel's limits and messages, not set_ftrace_pid's here. */
static bool event_list(enum tfs_pid_list which)
{
	return which == TFS_PID_EVENT || which == TFS_PID_EVENT_NOTRACE;
}

/*
 * Parse one write into a new list (all its ids); -EINVAL on any bad token, for an
 * event list -EPERM for an id the kernel's list cannot hold.
 */
static int parse_ids(enum tfs_pid_list which, const char *buf, size_t size,
		     struct pid_list *out)
{
	size_t i = 0;

	while (i < size) {
		char tok[PID_TOKEN_MAX + 1], *end;
		unsigned long v;
		size_t len = 0;
		int err;

		while (i < size && (!buf[i] || isspace((unsigned char)buf[i])))
			i++;
		while (i < size && buf[i] && !isspace((unsigned char)buf[i])) {
			if (len == PID_TOKEN_MAX)
				return -EINVAL;
			tok[len++] = buf[i++];
		}
		if (!len)
			break;
		tok[len] = '\0';
		if (!isdigit((unsigned char)tok[0]))
			return -EINVAL; /* kstrtoul: no sign, no space */
		errno = 0;
		v = strtoul(tok, &end, 0);
		if (errno || *end)
			return -EINVAL;
		if (event_list(which)) {
			v = (uint32_t)v; /* the kernel keeps a pid_t */
			if (v >= EVENT_PID_LIMIT)
				return -EPERM;
		} else if (v >= PID_LIMIT) {
			return -EINVAL;
		}
		err = pl_add(out, (int32_t)v);
		if (err < 0)
			return err;
	}
	return 0;
}

static const char *const pid_file_names[TFS_PID_NR] = {
    [TFS_PID_FTRACE] = "set_ftrace_pid",
    [TFS_PID_FTRACE_NOTRACE] = "set_ftrace_notrace_pid",
    [TFS_PID_EVENT] = "set_event_pid",
    [TFS_PID_EVENT_NOTRACE] = "set_event_notrace_pid",
};

/*
 * A list changed: rewrite the selection, apply it.  Event lists matter to every
 * instance (events go to each by its own mask), function lists to an instance
 * whose tracer takes function events.
 */
static void pid_publish(const struct tfs_instance *inst, enum tfs_pid_list which)
{
	if (event_list(which))
		tfs_sel_publish_all();
	else
		tfs_sel_publish_apply(inst);
}

ssize_t tfs_pid_write(const struct tfs_instance *inst, enum tfs_pid_list which, bool replace,
		      const char *buf, size_t size)
{
	struct pid_list *l = &inst_lists[inst->slot][which];
	struct pid_list add = {0};
	int err = parse_ids(which, buf, size, &add);

	if (err) {
		pl_free(&add);
		return err;
	}
	pthread_mutex_lock(&tfs_ft_lock); /* tfs_sel_build_locked reads the lists under it */
	pthread_mutex_lock(&pid_lock);
	if (replace) {
		pl_free(l);
		*l = add;
		add = (struct pid_list){0};
	}
	for (unsigned int i = 0; i < add.n && !err; i++)
		err = pl_add(l, add.ids[i]) < 0 ? -ENOMEM : 0;
	pthread_mutex_unlock(&pid_lock);
	pthread_mutex_unlock(&tfs_ft_lock);
	pl_free(&add);
	return err ? err : (ssize_t)size;
}

void tfs_pid_clear(const struct tfs_instance *inst, enum tfs_pid_list which)
{
	pthread_mutex_lock(&tfs_ft_lock);
	pthread_mutex_lock(&pid_lock);
	pl_free(&inst_lists[inst->slot][which]);
	pthread_mutex_unlock(&pid_lock);
	pthread_mutex_unlock(&tfs_ft_lock);
}

int tfs_pid_show(const struct tfs_instance *inst, enum tfs_pid_list which, struct tfs_buf *b)
{
	const struct pid_list *l = &inst_lists[inst->slot][which];
	int err = 0;

	pthread_mutex_lock(&pid_lock);
	for (unsigned int i = 0; i < l->n && !err; i++)
		err = tfs_buf_printf(b, "%d\n", l->ids[i]);
	if (!l->n && !event_list(which))
		err = tfs_buf_printf(b, "no pid\n");
	pthread_mutex_unlock(&pid_lock);
	return err;
}

/* ---- what the runtime is told ---------------------------------------------------------- */

/* Is id a thread of process pid (other than its main thread)? */
static bool thread_of(int32_t id, pid_t pid)
{
	char path[64];

	if (id == pid || id <= 0)
		return false;
	if (tfs_task_tgid(id) == pid)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)id);
	return access(path, F_OK) == 0;
}

bool tfs_pid_filtered_locked(void)
{
	bool on;

	pthread_mutex_lock(&pid_lock);
	on = lists[TFS_PID_FTRACE].n || lists[TFS_PID_FTRACE_NOTRACE].n;
	pthread_mutex_unlock(&pid_lock);
	return on;
}

/*
 * Collect the ids of l that are threads of pid (not in skip) into tids: the lowest
 * max of them; the others count as not listed (docs/user-guide.md, 5.3).  main:
 * pid itself is one of its threads (the event lists; in the function lists a
 * process id stands for the whole process instead).
 */
static uint32_t threads_in(const struct pid_list *l, const struct pid_list *skip, bool main,
			   pid_t pid, int32_t *tids, uint32_t max)
{
	uint32_t n = 0;

	for (unsigned int i = 0; i < l->n && n < max; i++) {
		int32_t id = l->ids[i];

		if (!((main && id == pid) || thread_of(id, pid)) || (skip && pl_has(skip, id)))
			continue;
		tids[n++] = id; /* l is sorted: so is tids */
	}
	return n;
}

/*
 * enum ut_sel_tasks of process pid under the pair of lists f (the pid file) and nt
 * (its notrace): whole, a process id in a list stands for all its threads
 * (set_ftrace_pid); else ids are threads alone (set_event_pid, the kernel's).
 */
static uint32_t pair_tasks_locked(const struct pid_list *f, const struct pid_list *nt, bool whole,
				  pid_t pid, int32_t *tids, uint32_t *nr)
{
	*nr = 0;
	if (!f->n && !nt->n)
		return UT_SEL_TASKS_ALL;
	if (whole && pl_has(nt, pid))
		return UT_SEL_TASKS_NONE;
	if (!f->n || (whole && pl_has(f, pid))) {
		*nr = threads_in(nt, NULL, !whole, pid, tids, UT_SEL_TIDS_MAX);
		return *nr ? UT_SEL_TASKS_EXCEPT : UT_SEL_TASKS_ALL;
	}
	*nr = threads_in(f, nt, !whole, pid, tids, UT_SEL_TIDS_MAX);
	return *nr ? UT_SEL_TASKS_ONLY : UT_SEL_TASKS_NONE;
}

/* The pair of lists that starts at first (TFS_PID_FTRACE or TFS_PID_EVENT) in slot. */
static uint32_t slot_tasks(unsigned int slot, enum tfs_pid_list first, pid_t pid, int32_t *tids,
			   uint32_t *nr)
{
	uint32_t ret;

	*nr = 0;
	if (slot >= UT_INST_MAX)
		return UT_SEL_TASKS_NONE;
	pthread_mutex_lock(&pid_lock);
	ret = pair_tasks_locked(&inst_lists[slot][first], &inst_lists[slot][first + 1],
				first == TFS_PID_FTRACE, pid, tids, nr);
	pthread_mutex_unlock(&pid_lock);
	return ret;
}

uint32_t tfs_pid_inst_tasks_locked(unsigned int slot, pid_t pid, int32_t *tids, uint32_t *nr)
{
	return slot_tasks(slot, TFS_PID_FTRACE, pid, tids, nr);
}

uint32_t tfs_pid_tasks_locked(pid_t pid, int32_t *tids, uint32_t *nr)
{
	return tfs_pid_inst_tasks_locked(0, pid, tids, nr);
}

uint32_t tfs_pid_event_tasks_locked(unsigned int slot, pid_t pid, int32_t *tids, uint32_t *nr)
{
	return slot_tasks(slot, TFS_PID_EVENT, pid, tids, nr);
}

/* Does the instance of slot follow forks for the pair of lists that starts at first? */
static bool slot_follows(unsigned int slot, enum tfs_pid_list first)
{
	const struct tfs_instance *inst = tfs_inst_slot(slot);

	return inst && tfs_opt(inst, first == TFS_PID_FTRACE ? TFS_OPT_FUNCTION_FORK
							     : TFS_OPT_EVENT_FORK);
}

/* Which instances follow forks, for each pair of lists ([s][1]: the event lists). */
static void slots_following(bool on[UT_INST_MAX][2])
{
	for (unsigned int s = 0; s < UT_INST_MAX; s++)
		for (int k = 0; k < 2; k++)
			on[s][k] = slot_follows(s, k ? TFS_PID_EVENT : TFS_PID_FTRACE);
}

void tfs_pid_event_slots_locked(struct tfs_pid_evslots *es)
{
	bool on[UT_INST_MAX][2];

	slots_following(on); /* before pid_lock: it takes the instances' lock */
	*es = (struct tfs_pid_evslots){0};
	pthread_mutex_lock(&pid_lock);
	for (unsigned int s = 0; s < UT_INST_MAX; s++) {
		const struct pid_list *l = inst_lists[s];
		uint64_t bit = 1ull << (s % 64);

		if (l[TFS_PID_EVENT].n || l[TFS_PID_EVENT_NOTRACE].n) {
			es->slots[s / 64] |= bit;
			es->fork[s / 64] |= on[s][1] ? bit : 0;
		}
		es->only[s / 64] |= l[TFS_PID_EVENT].n ? bit : 0;
		for (int k = 0; k < 2; k++)
			es->follow |= (l[2 * k].n || l[2 * k + 1].n) && on[s][k];
	}
	pthread_mutex_unlock(&pid_lock);
}

/* ---- following forks: the kernel's fork and exit probes ------------------------------ */

/* The last UT_MSG_THREAD serial of each registered process (1: its HELLO). */
struct pid_serial {
	pid_t pid;
	uint32_t serial;
};
static struct pid_serial *serials;
static unsigned int nr_serials;

static struct pid_serial *serial_of(pid_t pid)
{
	for (unsigned int i = 0; i < nr_serials; i++)
		if (serials[i].pid == pid)
			return &serials[i];
	return NULL;
}

static void serial_set(pid_t pid, uint32_t serial)
{
	struct pid_serial *ps = serial_of(pid), *v;

	if (ps) {
		if ((int32_t)(serial - ps->serial) > 0)
			ps->serial = serial;
		return;
	}
	v = realloc(serials, (nr_serials + 1) * sizeof(*v));
	if (!v)
		return; /* the process's new threads keep their creator's answer meanwhile */
	serials = v;
	serials[nr_serials++] = (struct pid_serial){pid, serial};
}

static void serial_forget(pid_t pid)
{
	struct pid_serial *ps = serial_of(pid);

	if (ps)
		*ps = serials[--nr_serials];
}

uint32_t tfs_pid_serial_locked(pid_t pid)
{
	const struct pid_serial *ps;
	uint32_t serial;

	pthread_mutex_lock(&pid_lock);
	ps = serial_of(pid);
	serial = ps ? ps->serial : 0;
	pthread_mutex_unlock(&pid_lock);
	return serial;
}

/*
 * One task comes or goes, in every instance and for each pair of lists whose fork
 * option is set there.  A task created (ptid: the thread that created it; ppid,
 * when it is a process: its parent process, which stands for its threads in the
 * function lists) joins each list that has its creator; a task that goes (ptid 0)
 * leaves every list, and with it the listed threads of a process that goes (gone).
 * True when a list changed.
 */
static bool follow(pid_t id, pid_t ptid, pid_t ppid, bool gone)
{
	bool on[UT_INST_MAX][2], changed = false;

	slots_following(on);
	pthread_mutex_lock(&tfs_ft_lock);
	pthread_mutex_lock(&pid_lock);
	for (unsigned int s = 0; s < UT_INST_MAX; s++)
		for (int w = 0; w < TFS_PID_NR; w++) {
			struct pid_list *l = &inst_lists[s][w];
			bool whole = w <= TFS_PID_FTRACE_NOTRACE;

			if (!on[s][!whole] || !l->n)
				continue;
			if (ptid) {
				if (pl_has(l, ptid) || (whole && ppid && pl_has(l, ppid)))
					changed |= pl_add(l, id) > 0;
				continue;
			}
			changed |= pl_del(l, id);
			for (unsigned int i = l->n; gone && i-- > 0;)
				if (tfs_task_tgid(l->ids[i]) == id)
					changed |= pl_del(l, l->ids[i]);
		}
	if (gone)
		serial_forget(id);
	pthread_mutex_unlock(&pid_lock);
	pthread_mutex_unlock(&tfs_ft_lock);
	return changed;
}

/* The parent of pid from /proc/PID/stat (field 4), 0 when unknown. */
static pid_t parent_of(pid_t pid)
{
	long ppid;

	return tfs_proc_stat_field(pid, 4, &ppid) == 0 ? (pid_t)ppid : 0;
}

bool tfs_pid_fork(pid_t pid, pid_t ptid)
{
	pid_t ppid = parent_of(pid);
	bool changed;

	pthread_mutex_lock(&pid_lock);
	serial_forget(pid); /* a new image (exec) numbers its threads afresh */
	serial_set(pid, 1);
	pthread_mutex_unlock(&pid_lock);
	if (ptid <= 0)
		ptid = ppid; /* not told (an older fork path): the parent process */
	changed = ptid > 0 && follow(pid, ptid, ppid, false);
	return changed;
}

bool tfs_pid_exit(pid_t pid)
{
	return follow(pid, 0, 0, true);
}

bool tfs_pid_thread(pid_t pid, pid_t tid, pid_t ptid, uint32_t serial, bool exit)
{
	bool changed = exit ? follow(tid, 0, 0, false) : ptid > 0 && follow(tid, ptid, 0, false);

	if (!exit) {
		pthread_mutex_lock(&pid_lock);
		serial_set(pid, serial);
		pthread_mutex_unlock(&pid_lock);
	}
	return changed;
}

bool tfs_pid_inst_clear(const struct tfs_instance *inst)
{
	bool events;

	pthread_mutex_lock(&pid_lock);
	events = inst_lists[inst->slot][TFS_PID_EVENT].n ||
		 inst_lists[inst->slot][TFS_PID_EVENT_NOTRACE].n;
	pthread_mutex_unlock(&pid_lock);
	for (int w = 0; w < TFS_PID_NR; w++)
		tfs_pid_clear(inst, (enum tfs_pid_list)w);
	return events;
}

void tfs_pid_reset(void)
{
	for (unsigned int s = 0; s < UT_INST_MAX; s++)
		for (int w = 0; w < TFS_PID_NR; w++) {
			pthread_mutex_lock(&pid_lock);
			pl_free(&inst_lists[s][w]);
			pthread_mutex_unlock(&pid_lock);
		}
}

/* ---- the files ----------------------------------------------------------------------- */

static enum tfs_pid_list pid_which(const struct tfs_open *o)
{
	return (enum tfs_pid_list)o->file->arg;
}

static int pid_open(struct tfs_open *o)
{
	struct pid_open *po = calloc(1, sizeof(*po));

	if (!po)
		return -ENOMEM;
	po->which = pid_which(o);
	po->writing = (o->flags & O_ACCMODE) != O_RDONLY;
	po->trunc = po->writing && (o->flags & O_TRUNC);
	o->priv = po;
	/* the kernel empties an event list at a `>` open, whatever is written then */
	if (po->trunc && event_list(po->which))
		tfs_pid_clear(o->inst, po->which);
	return 0;
}

static int pid_show(struct tfs_open *o)
{
	return tfs_pid_show(o->inst, pid_which(o), &o->content);
}

static ssize_t pid_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	struct pid_open *po = o->priv;
	ssize_t ret;

	(void)off;
	if (!po || !po->writing)
		return -EBADF;
	/* the first write of a `>` open replaces, the others add (the kernel: reset at open) */
	ret = tfs_pid_write(o->inst, po->which, po->trunc && !po->wrote, buf, size);
	if (ret < 0) {
		po->bad = true;
		if (!event_list(po->which))
			tfs_error_log(o->inst, pid_file_names[po->which], "Invalid pid", "", 0);
		else if (po->trunc && !po->wrote)
			pid_publish(o->inst, po->which); /* emptied at open, as the kernel's */
		return ret;
	}
	po->wrote = true;
	/* committed now, not at release (which FUSE sends after close returned) */
	pid_publish(o->inst, po->which);
	return ret;
}

static int pid_release(struct tfs_open *o)
{
	struct pid_open *po = o->priv;

	if (po && po->trunc && !po->wrote && !po->bad) {
		tfs_pid_clear(o->inst, po->which);
		pid_publish(o->inst, po->which);
	}
	free(po);
	o->priv = NULL;
	return 0;
}

/* `>` must not empty the list before the write is known to be good: no truncate op. */
const struct tfs_file_ops tfs_set_pid_ops = {
    .open = pid_open,
    .show = pid_show,
    .write = pid_write,
    .release = pid_release,
    .seek = TFS_SEEK_SEQ,
};

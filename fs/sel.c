// SPDX-License-Identifier: MIT
/*
 * sel.c - the selection memfd (ut_sel.h): per process, per object, one flag byte
 * per site saying whether to patch it (set_ftrace_filter, set_ftrace_notrace) and
 * how function_graph treats it (set_graph_function, set_graph_notrace), and which
 * of its threads record (set_ftrace_pid, set_ftrace_notrace_pid: ftrace_pid.c),
 * and its function probes (ftrace_probe.c, every instance's) site by site; then, for every
 * instance whose tracer is `function`, the same answers from that instance's
 * filters and pid lists (ut_sel_inst: the sites it takes function events from);
 * last, for every instance with event pid lists, which of its threads record
 * events there (ut_sel_evpid).
 *
 * The content is rebuilt whole from functab.h at every change (a filter file
 * closed, an object complete, a process gone) and copied in under hdr.seq: odd
 * while the copy runs, so that a reader that saw the same even value before and
 * after its own copy knows it read one consistent version.  The file only grows
 * (sealed against shrinking: a process holding it must not make us fault; our own
 * map grows with mremap), and it is sealed with F_SEAL_FUTURE_WRITE once we have
 * mapped it: nobody else can write it or map it writable, even through a
 * descriptor reopened read-write from /proc.  Processes get a read-only descriptor
 * of it (reopened through /proc/self/fd) besides.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "functab.h"
#include "ut_sel.h"

static pthread_mutex_t sel_lock = PTHREAD_MUTEX_INITIALIZER;
static int sel_fd = -1;
static char *sel_map;
static size_t sel_mapped;

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/*
 * The function probes of function id in the instance of slot:
 * tfs_ft.inst[slot].probes.v[first[id] .. first[id + 1]).
 */
static uint32_t *probes_by_func(unsigned int slot)
{
	const struct tfs_ft_probes *pr = &tfs_ft.inst[slot].probes;
	uint32_t *first = calloc(tfs_ft.nr_funcs + 1, sizeof(*first));

	if (!first)
		return NULL;
	/* the list is sorted by function: a counting pass, then prefix sums */
	for (unsigned int i = 0; i < pr->n; i++)
		if (pr->v[i].func < tfs_ft.nr_funcs)
			first[pr->v[i].func + 1]++;
	for (unsigned int id = 0; id < tfs_ft.nr_funcs; id++)
		first[id + 1] += first[id];
	return first;
}

/*
 * The index of each instance's probes (probes_by_func), NULL for an instance
 * that has none or is going (rmdir: its probes stop before its span goes).
 * False on ENOMEM.
 */
static bool probe_index(uint32_t *first[UT_INST_MAX], bool *any)
{
	*any = false;
	for (unsigned int slot = 0; slot < UT_INST_MAX; slot++) {
		first[slot] = NULL;
		if (!tfs_ft.inst[slot].probes.n || !tfs_inst_slot(slot))
			continue;
		if (!(first[slot] = probes_by_func(slot)))
			return false;
		*any = true;
	}
	return true;
}

static void probe_index_free(uint32_t *first[UT_INST_MAX])
{
	for (unsigned int slot = 0; slot < UT_INST_MAX; slot++)
		free(first[slot]);
}

/* Probes of a process's object, every instance's: how many, and (out) the entries. */
static uint32_t obj_probes(const struct tfs_ft_pobj *po, uint32_t *const first[UT_INST_MAX],
			   struct ut_sel_probe *out)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < po->total; s++) {
		uint32_t id = po->ids[s];

		if (id == UINT32_MAX || id >= tfs_ft.nr_funcs)
			continue;
		for (unsigned int slot = 0; slot < UT_INST_MAX; slot++) {
			const uint32_t *f = first[slot];

			for (uint32_t k = f ? f[id] : 0; f && k < f[id + 1]; k++, n++) {
				const struct tfs_ft_probe *e = &tfs_ft.inst[slot].probes.v[k];

				if (out)
					out[n] = (struct ut_sel_probe){.obj = po->obj,
								       .site = s,
								       .cmd = e->cmd,
								       .slot = e->slot,
								       .inst = slot};
			}
		}
	}
	return n;
}

/* What each process's threads do (set_ftrace_pid and co, ftrace_pid.c). */
struct sel_tasks {
	uint32_t tasks, nr;
	int32_t tids[UT_SEL_TIDS_MAX];
};

/*
 * The instances function events are routed to: slots (ascending) whose tracer is
 * function or function_graph (its id in tracer[k]), with whether their
 * set_ftrace_filter/notrace select (filt[k]).
 */
static unsigned int routed_slots(uint32_t *slots, bool *filt, uint32_t *tracer)
{
	unsigned int n = 0;

	for (unsigned int slot = 1; slot < UT_INST_MAX; slot++) {
		const struct tfs_instance *inst = tfs_inst_slot(slot);
		const struct tracer *t = inst ? __atomic_load_n(&inst->tracer, __ATOMIC_ACQUIRE) : NULL;

		if (!tfs_tracer_routed(t))
			continue;
		tracer[n] = (uint32_t)t->id;
		slots[n] = slot;
		filt[n++] = tfs_ft_inst_nonempty_locked(slot, TFS_FILTER_TRACE) ||
			    tfs_ft_inst_nonempty_locked(slot, TFS_FILTER_NOTRACE);
	}
	return n;
}

/* Does the instance of slot (filt: its filter selects) take function id's events? */
static bool inst_traces(unsigned int slot, bool filt, uint32_t id)
{
	uint8_t sel = id == UINT32_MAX ? 0 : tfs_ft_inst_sel_locked(slot, id);

	return (!filt || sel >> TFS_FILTER_TRACE & 1) && !(sel >> TFS_FILTER_NOTRACE & 1);
}

/* What each instance does with a process (tfs_sel_build_locked's first pass). */
struct sel_iroute {
	uint32_t tasks, nr;
};

/* The sites of process p the selection lists (objects complete). */
static size_t proc_sites(const struct tfs_ft_proc *p)
{
	size_t n = 0;

	for (unsigned int j = 0; j < p->n; j++)
		if (p->objs[j].fobj >= 0)
			n += p->objs[j].total;
	return n;
}

/*
 * Write process p's instance entries at out + *io (the entries) and their tids
 * and flags from out + *to on; routes: the first pass's answers (ir[k]).
 */
static uint32_t write_insts(char *out, size_t *io, size_t *to, const struct tfs_ft_proc *p,
			    const uint32_t *slots, const bool *filt, const uint32_t *tracer,
			    unsigned int nroute, const struct sel_iroute *ir)
{
	static int32_t tids[UT_SEL_TIDS_MAX];
	uint32_t n = 0;

	for (unsigned int k = 0; k < nroute; k++) {
		struct ut_sel_inst e = {.slot = slots[k], .tasks = ir[k].tasks, .tracer = tracer[k]};
		uint32_t nr;
		uint8_t *fl;

		if (ir[k].tasks == UT_SEL_TASKS_NONE)
			continue;
		tfs_pid_inst_tasks_locked(slots[k], p->pid, tids, &nr);
		e.nr_tids = nr < ir[k].nr ? nr : ir[k].nr; /* as sized (the lists are locked) */
		e.tids_off = *to;
		memcpy(out + *to, tids, e.nr_tids * sizeof(int32_t));
		*to = align8(*to + ir[k].nr * sizeof(int32_t));
		e.flags_off = *to;
		fl = (uint8_t *)out + *to;
		for (unsigned int j = 0; j < p->n; j++) {
			const struct tfs_ft_pobj *po = &p->objs[j];

			if (po->fobj < 0)
				continue;
			for (uint32_t st = 0; st < po->total; st++)
				*fl++ = inst_traces(slots[k], filt[k], po->ids[st]) ? UT_SEL_TRACE : 0;
		}
		*to = align8(*to + proc_sites(p));
		memcpy(out + *io, &e, sizeof(e));
		*io += sizeof(e);
		n++;
	}
	return n;
}

/*
 * Process p's event pid entries (one per slot of es->slots, ascending) at out + *eo,
 * their tids after them; nr[k]: how many tids the first pass (out NULL) found for
 * the k-th, which bounds what is written now (/proc may have changed meanwhile).
 * Returns the bytes they take.
 */
static size_t write_evpids(char *out, size_t eo, const struct tfs_ft_proc *p,
			   const struct tfs_pid_evslots *es, uint32_t *nr, uint32_t *count)
{
	static int32_t tids[UT_SEL_TIDS_MAX];
	unsigned int k = 0, n = 0;
	size_t start = eo, to;

	for (unsigned int s = 0; s < UT_INST_MAX; s++)
		n += es->slots[s / 64] >> (s % 64) & 1;
	to = eo + (size_t)n * sizeof(struct ut_sel_evpid);
	for (unsigned int s = 0; s < UT_INST_MAX; s++) {
		struct ut_sel_evpid e = {.slot = s, .fork = es->fork[s / 64] >> (s % 64) & 1};
		uint32_t got;

		if (!(es->slots[s / 64] >> (s % 64) & 1))
			continue;
		e.tasks = tfs_pid_event_tasks_locked(s, p->pid, tids, &got);
		if (!out) {
			nr[k++] = got;
			to = align8(to + got * sizeof(int32_t));
			continue;
		}
		e.nr_tids = got < nr[k] ? got : nr[k]; /* as sized */
		if (e.tasks != UT_SEL_TASKS_ALL && e.tasks != UT_SEL_TASKS_NONE && !e.nr_tids)
			e.tasks = e.tasks == UT_SEL_TASKS_ONLY ? UT_SEL_TASKS_NONE : UT_SEL_TASKS_ALL;
		e.tids_off = to;
		memcpy(out + to, tids, e.nr_tids * sizeof(int32_t));
		to = align8(to + nr[k++] * sizeof(int32_t));
		memcpy(out + eo, &e, sizeof(e));
		eo += sizeof(e);
	}
	*count = n;
	return to - start;
}

int tfs_sel_build_locked(struct tfs_buf *b)
{
	bool filtered = tfs_ft_nonempty_locked(TFS_FILTER_TRACE);
	bool stack_filtered = tfs_ft_nonempty_locked(TFS_FILTER_STACK);
	struct ut_sel_hdr h = {
	    .magic = UT_SEL_MAGIC,
	    .filtered = filtered || tfs_ft_nonempty_locked(TFS_FILTER_NOTRACE),
	    .graph_funcs = tfs_ft_nonempty_locked(TFS_FILTER_GRAPH),
	    .graph_notrace = tfs_ft_nonempty_locked(TFS_FILTER_GRAPH_NOTRACE),
	    .stack_filtered = stack_filtered,
	    .tasks_filtered = tfs_pid_filtered_locked(),
	    .procs_off = sizeof(struct ut_sel_hdr),
	};
	size_t objs_off, tids_off, probes_off, flags_off, end;
	unsigned int nobjs = 0, ntids = 0;
	uint64_t nprobes = 0;
	struct sel_tasks *tk = NULL;
	uint32_t *first[UT_INST_MAX], slots[UT_INST_MAX];
	uint32_t itracer[UT_INST_MAX];
	bool filt[UT_INST_MAX];
	unsigned int nroute = routed_slots(slots, filt, itracer), ninsts = 0;
	struct sel_iroute *ir = NULL;
	size_t insts_off, iextra = 0, ev_off, evextra = 0;
	struct tfs_pid_evslots es;
	unsigned int nev;
	uint32_t *evnr = NULL, cnt;
	bool any_probes;
	char *out;

	h.routed = nroute > 0;
	tfs_pid_event_slots_locked(&es);
	memcpy(h.ev_slots, es.slots, sizeof(h.ev_slots));
	memcpy(h.ev_only, es.only, sizeof(h.ev_only));
	memcpy(h.ev_fork, es.fork, sizeof(h.ev_fork));
	h.follow = es.follow;
	nev = (unsigned int)(__builtin_popcountll(es.slots[0]) + __builtin_popcountll(es.slots[1]));
	if (nev && tfs_ft.nr_procs && !(evnr = calloc((size_t)tfs_ft.nr_procs * nev, sizeof(*evnr))))
		return -ENOMEM;
	if (!probe_index(first, &any_probes)) {
		probe_index_free(first);
		free(evnr);
		return -ENOMEM;
	}
	h.probes = any_probes;
	if (h.tasks_filtered && tfs_ft.nr_procs) {
		tk = calloc(tfs_ft.nr_procs, sizeof(*tk));
		if (!tk) {
			probe_index_free(first);
			free(evnr);
			return -ENOMEM;
		}
	}
	if (nroute && tfs_ft.nr_procs) {
		ir = calloc((size_t)tfs_ft.nr_procs * nroute, sizeof(*ir));
		if (!ir) {
			free(tk);
			probe_index_free(first);
			free(evnr);
			return -ENOMEM;
		}
	}
	for (unsigned int i = 0; i < tfs_ft.nr_procs; i++) {
		unsigned int n = 0;

		for (unsigned int j = 0; j < tfs_ft.procs[i].n; j++) {
			const struct tfs_ft_pobj *po = &tfs_ft.procs[i].objs[j];

			n += po->fobj >= 0;
			if (po->fobj >= 0 && any_probes)
				nprobes += obj_probes(po, first, NULL);
		}
		h.nr_procs += n > 0;
		nobjs += n;
		if (evnr && n)
			evextra += write_evpids(NULL, 0, &tfs_ft.procs[i], &es,
						&evnr[(size_t)i * nev], &cnt);
		if (tk && n) {
			struct sel_tasks *t = &tk[i];

			t->tasks = tfs_pid_tasks_locked(tfs_ft.procs[i].pid, t->tids, &t->nr);
			ntids += t->nr;
		}
		for (unsigned int k = 0; ir && n && k < nroute; k++) {
			static int32_t tids[UT_SEL_TIDS_MAX];
			struct sel_iroute *r = &ir[(size_t)i * nroute + k];

			r->tasks = tfs_pid_inst_tasks_locked(slots[k], tfs_ft.procs[i].pid, tids,
							     &r->nr);
			if (r->tasks == UT_SEL_TASKS_NONE)
				continue;
			ninsts++;
			iextra += align8(r->nr * sizeof(int32_t)) + align8(proc_sites(&tfs_ft.procs[i]));
		}
	}
	objs_off = h.procs_off + h.nr_procs * sizeof(struct ut_sel_proc);
	tids_off = objs_off + (size_t)nobjs * sizeof(struct ut_sel_obj);
	probes_off = align8(tids_off + (size_t)ntids * sizeof(int32_t));
	insts_off = probes_off + (size_t)nprobes * sizeof(struct ut_sel_probe);
	flags_off = insts_off + (size_t)ninsts * sizeof(struct ut_sel_inst);
	end = flags_off + iextra;
	for (unsigned int i = 0; i < tfs_ft.nr_procs; i++)
		for (unsigned int j = 0; j < tfs_ft.procs[i].n; j++)
			if (tfs_ft.procs[i].objs[j].fobj >= 0)
				end += align8(tfs_ft.procs[i].objs[j].total);
	ev_off = end;
	end += evextra;
	h.size = end;

	tfs_buf_reset(b);
	if (end > b->cap) {
		char *d = realloc(b->data, end);

		if (!d) {
			free(ir);
			free(tk);
			probe_index_free(first);
			free(evnr);
			return -ENOMEM;
		}
		b->data = d;
		b->cap = end;
	}
	out = b->data;
	memset(out, 0, end);
	memcpy(out, &h, sizeof(h));

	struct ut_sel_proc *sp = (void *)(out + h.procs_off);
	struct ut_sel_obj *so = (void *)(out + objs_off);
	size_t fo = flags_off + iextra, to = tids_off, po_off = probes_off;
	size_t io = insts_off, ito = flags_off; /* instance entries; their tids and flags */
	size_t eo = ev_off;			 /* event pid entries and their tids */

	for (unsigned int i = 0; i < tfs_ft.nr_procs; i++) {
		const struct tfs_ft_proc *p = &tfs_ft.procs[i];
		struct ut_sel_proc proc = {.pid = p->pid, .objs_off = (uint64_t)((char *)so - out)};

		proc.probes_off = po_off;
		if (tk) {
			proc.tasks = tk[i].tasks;
			proc.nr_tids = tk[i].nr;
			proc.tids_off = to;
			memcpy(out + to, tk[i].tids, tk[i].nr * sizeof(int32_t));
			to += tk[i].nr * sizeof(int32_t);
		}
		for (unsigned int j = 0; j < p->n; j++) {
			const struct tfs_ft_pobj *po = &p->objs[j];
			uint8_t *fl = (uint8_t *)out + fo;

			if (po->fobj < 0)
				continue;
			*so++ = (struct ut_sel_obj){.obj = po->obj,
						    .nr_sites = po->total,
						    .base = po->base,
						    .flags_off = fo};
			proc.nr_objs++;
			for (uint32_t s = 0; s < po->total; s++) {
				uint32_t id = po->ids[s];
				uint8_t sel = id == UINT32_MAX ? 0 : tfs_ft.funcs[id].sel;
				bool in = !filtered || sel >> TFS_FILTER_TRACE & 1;

				fl[s] =
				    (uint8_t)((in && !(sel >> TFS_FILTER_NOTRACE & 1) ? UT_SEL_TRACE
										      : 0) |
					      (sel >> TFS_FILTER_GRAPH & 1 ? UT_SEL_GRAPH_FUNC
									   : 0) |
					      (sel >> TFS_FILTER_GRAPH_NOTRACE & 1
						   ? UT_SEL_GRAPH_NOTRACE
						   : 0) |
					      (sel >> TFS_FILTER_STACK & 1 ? UT_SEL_STACK : 0));
			}
			if (any_probes) {
				uint32_t n = obj_probes(po, first, (void *)(out + po_off));

				for (uint32_t k = 0; k < n; k++)
					fl[((struct ut_sel_probe *)(void *)(out + po_off))[k].site] |=
					    UT_SEL_PROBE;
				proc.nr_probes += n;
				po_off += n * sizeof(struct ut_sel_probe);
			}
			fo += align8(po->total);
		}
		if (proc.nr_probes > UT_SEL_PROBES_MAX)
			proc.nr_probes = 0; /* more than a process takes: none (never in practice) */
		proc.insts_off = io;
		if (ir && proc.nr_objs)
			proc.nr_insts = write_insts(out, &io, &ito, p, slots, filt, itracer, nroute,
						    &ir[(size_t)i * nroute]);
		proc.evpids_off = eo;
		proc.ev_serial = tfs_pid_serial_locked(p->pid);
		if (evnr && proc.nr_objs) {
			eo += write_evpids(out, eo, p, &es, &evnr[(size_t)i * nev], &cnt);
			proc.nr_evpids = cnt;
		}
		if (proc.nr_objs)
			*sp++ = proc;
	}
	free(ir);
	free(tk);
	probe_index_free(first);
	free(evnr);
	b->len = end;
	return 0;
}

/* Make the file and our map at least size bytes (sel_lock held). */
static int sel_grow(size_t size)
{
	size_t want = sel_mapped ? sel_mapped : 4096;
	void *m;

	if (size <= sel_mapped)
		return 0;
	while (want < size)
		want *= 2;
	if (ftruncate(sel_fd, (off_t)want))
		return -errno;
	m = sel_map ? mremap(sel_map, sel_mapped, want, MREMAP_MAYMOVE)
		    : mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_SHARED, sel_fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	sel_map = m;
	sel_mapped = want;
	return 0;
}

/* Copy content in under the sequence count (sel_lock held). */
static void sel_write(const char *data, size_t len)
{
	struct ut_sel_hdr *h = (void *)sel_map;
	uint32_t seq = __atomic_load_n(&h->seq, __ATOMIC_RELAXED);
	size_t skip = offsetof(struct ut_sel_hdr, size); /* magic and seq stay */

	__atomic_store_n(&h->seq, seq | 1u, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE); /* odd before any byte changes */
	memcpy(sel_map + skip, data + skip, len - skip);
	h->magic = UT_SEL_MAGIC;
	__atomic_store_n(&h->seq, (seq | 1u) + 1, __ATOMIC_RELEASE);
}

int tfs_sel_init(void)
{
	struct tfs_buf b = {0};
	int err = 0;

	pthread_mutex_lock(&sel_lock);
	if (sel_fd >= 0)
		goto out;
	sel_fd = memfd_create("utrace-sel", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (sel_fd < 0) {
		err = -errno;
		goto out;
	}
	/* our map first: after F_SEAL_FUTURE_WRITE no writable one can be made */
	err = sel_grow(4096);
	if (!err && fcntl(sel_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_FUTURE_WRITE))
		err = -errno;
	if (!err) {
		pthread_mutex_lock(&tfs_ft_lock);
		err = tfs_sel_build_locked(&b);
		pthread_mutex_unlock(&tfs_ft_lock);
	}
	if (!err)
		sel_write(b.data, b.len);
	if (err) {
		if (sel_map)
			munmap(sel_map, sel_mapped);
		sel_map = NULL;
		sel_mapped = 0;
		close(sel_fd);
		sel_fd = -1;
	}
out:
	pthread_mutex_unlock(&sel_lock);
	tfs_buf_free(&b);
	return err;
}

int tfs_fd_reopen_ro(int fd)
{
	char path[64];
	int ro;

	if (fd < 0)
		return -EBADF;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY | O_CLOEXEC);
	return ro < 0 ? -errno : ro;
}

int tfs_sel_fd_ro(void)
{
	int fd;

	pthread_mutex_lock(&sel_lock);
	fd = tfs_fd_reopen_ro(sel_fd);
	pthread_mutex_unlock(&sel_lock);
	return fd;
}

void tfs_sel_publish_apply(const struct tfs_instance *inst)
{
	const struct tracer *t = __atomic_load_n(&inst->tracer, __ATOMIC_ACQUIRE);

	/* an instance's filters and pid lists matter to processes under its routed tracers only */
	if (inst != &tfs_top && !tfs_tracer_routed(t))
		return;
	tfs_sel_publish_all();
}

void tfs_sel_publish_all(void)
{
	tfs_sel_publish();
	tfs_apply(&tfs_top);
}

int tfs_sel_publish(void)
{
	struct tfs_buf b = {0};
	int err;

	pthread_mutex_lock(&sel_lock);
	if (sel_fd < 0) {
		pthread_mutex_unlock(&sel_lock);
		return 0; /* not started (unit tests): nobody reads it */
	}
	pthread_mutex_lock(&tfs_ft_lock);
	err = tfs_sel_build_locked(&b);
	pthread_mutex_unlock(&tfs_ft_lock);
	if (!err)
		err = sel_grow(b.len);
	if (!err)
		sel_write(b.data, b.len);
	pthread_mutex_unlock(&sel_lock);
	tfs_buf_free(&b);
	return err;
}

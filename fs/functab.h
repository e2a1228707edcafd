/* SPDX-License-Identifier: MIT */
/*
 * functab.h - the functions utracefs knows by name, and the four selection
 * filters over them.  Private to available_filter_functions.c (the table),
 * ftrace_filter.c (the parser and the filter files) and sel.c (the memfd).
 *
 * A function is (object, offset): the object is a file path (the executable or a
 * shared object, as processes name it in UT_MSG_SITES), the offset its address
 * minus the load base.  Objects and functions are never forgotten, so that a
 * filter written while a program runs applies again when it is run again; only
 * what live processes have loaded is listed in available_filter_functions.  The
 * filters also keep the patterns written to them (tfs_ft_pat), which select among
 * the functions that appear later.
 *
 * Locking: tfs_ft_lock guards everything declared here.
 */
#ifndef TFS_FUNCTAB_H
#define TFS_FUNCTAB_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "tfs.h"
#include "ut_sel.h"

struct tfs_glob;

/* One bit per filter file in tfs_ft_func.sel (the committed filters). */
enum tfs_filter {
	TFS_FILTER_TRACE,	  /* set_ftrace_filter */
	TFS_FILTER_NOTRACE,	  /* set_ftrace_notrace */
	TFS_FILTER_GRAPH,	  /* set_graph_function */
	TFS_FILTER_GRAPH_NOTRACE, /* set_graph_notrace */
	TFS_FILTER_STACK,	  /* stack_trace_filter (the stack tracer's, top level only) */
	TFS_FILTER_NR
};

struct tfs_ft_func {
	uint32_t obj; /* index in tfs_ft.objs */
	uint64_t off;
	char *name;  /* as in the symbol table (mangled for C++) */
	char *dname; /* demangled ("ns::f(int) const"), NULL when it does not demangle */
	char *bare;  /* dname without return type, parameters and clones ("ns::f") */
	uint8_t cxx; /* dname and bare made (when first needed) */
	uint8_t sel; /* 1 << enum tfs_filter */
};

struct tfs_ft_obj {
	char *path;
	char *key;	 /* what the file holds (tfs_sym_file_key): a rebuild is another object */
	const char *mod; /* basename of path: the "module" of its functions */
	char **alias;	 /* other names mod: matches ("libz.so.1", "libz"), NULL-ended */
	bool exe;	 /* the executable of a process: its functions print plain */
	uint32_t *funcs; /* function ids sorted by offset */
	unsigned int n, cap;
	unsigned int live; /* objects of live processes that are this file */
	uint64_t died;	   /* when live last fell to 0 (tfs_ft.deaths), for forgetting */
};

/* One object of one live process, as it sent it. */
struct tfs_ft_pobj {
	uint32_t obj; /* the process's index */
	uint64_t base;
	uint32_t total, got;
	uint32_t *offs; /* the got offsets received so far (total once complete) */
	uint32_t *ids;	/* function id of each site, UINT32_MAX: unnamed */
	int fobj;	/* tfs_ft.objs index once complete, else -1 */
};

struct tfs_ft_proc {
	pid_t pid;
	struct tfs_ft_pobj *objs;
	unsigned int n;
};

/*
 * A pattern a filter file accepted (a glob token, `!` or not, with its `mod:` glob),
 * kept in the order written so that it applies to every function that appears
 * later: a new function's selection is what the list gives when replayed over it.
 * A positive `FUNC:mod:OBJ` whose OBJ names no object known yet is "pending": it
 * reads back as written (the kernel's cached mod commands).
 */
struct tfs_ft_pat {
	char *func;    /* the glob without `!`; "" (with mod) is every function */
	char *mod;     /* the mod: glob (a leading `!` excludes), NULL without mod: */
	bool neg;      /* `!`: removes */
	bool demangle; /* written with `demangle` on: C++ names match demangled too */
	uint8_t cmd;   /* a function probe's command (enum ut_probe_cmd), 0 in a filter */
	bool counted;  /* the probe's */
	int64_t count; /* a counted probe's count */
};

struct tfs_ft_pats {
	struct tfs_ft_pat *v;
	unsigned int n;
};

/*
 * A function probe: one command of set_ftrace_filter (traceon, traceoff,
 * stacktrace, dump, cpudump) on one function.  The kernel's probe "ops" is the
 * pair (cmd, counted): `f:traceoff` and `f:traceoff:5` are two probes on f.
 */
struct tfs_ft_probe {
	uint32_t func; /* function id */
	uint8_t cmd;   /* enum ut_probe_cmd */
	bool counted;
	uint32_t slot; /* its counter (ut_sel.h) once committed; UT_PROBE_UNLIMITED: none yet */
	int64_t init;  /* the count it starts with (counted) */
};

#define TFS_PROBE_OPS (2 * (UT_PROBE_CMD_MAX + 1)) /* index: cmd * 2 + counted */

struct tfs_ft_probes {
	struct tfs_ft_probe *v; /* sorted by (func, cmd, counted) */
	unsigned int n, cap;
	uint32_t ops_seq[TFS_PROBE_OPS]; /* when each ops got its first probe, 0: has none */
	uint32_t seq;
};

/*
 * An instance's set_ftrace_filter and set_ftrace_notrace (instances/NAME): its own
 * selection bits (sel[id], as tfs_ft_func.sel; ids from n on: none) and patterns.
 * The top level's are tfs_ft_func.sel and tfs_ft.pats (sel and pats of inst[0]
 * stay unused).  Function probes are kept by instance the same way, the top
 * level's included (inst[0]): the kernel registers a probe on the trace array
 * of the file it was written to, and each set_ftrace_filter lists and removes
 * its own.
 */
struct tfs_ft_isel {
	uint8_t *sel;
	unsigned int n;
	struct tfs_ft_pats pats[TFS_FILTER_NR];
	struct tfs_ft_probes probes;	/* its function probes (ftrace_probe.c) */
	struct tfs_ft_pats probe_pats; /* the probe commands, as patterns */
};

struct tfs_ft {
	struct tfs_ft_func *funcs;
	unsigned int nr_funcs, cap_funcs;
	struct tfs_ft_obj *objs; /* in order of first registration */
	unsigned int nr_objs, cap_objs;
	struct tfs_ft_proc *procs; /* sorted by pid */
	unsigned int nr_procs;
	struct tfs_ft_pats pats[TFS_FILTER_NR]; /* the patterns of each filter file */
	unsigned int writers;	     /* filter files open for writing: ids must not move */
	uint64_t deaths;	     /* objects whose last process went, ever */
	struct tfs_ft_isel inst[UT_INST_MAX]; /* by instance slot; [0]: the top's probes only */
};

extern struct tfs_ft tfs_ft;
extern pthread_mutex_t tfs_ft_lock;

/*
 * Record one UT_MSG_SITES packet of process pid (validated by the caller but for
 * its consistency with earlier packets).  is_exe: the path is the process's
 * executable.  Returns 1 when an object became complete or was dropped (the
 * selection must be published again), 0 when more packets are due, -EPROTO.
 * Names the sites with sym.c.
 */
int tfs_ft_sites(pid_t pid, uint32_t obj, const char *path, bool is_exe, uint64_t base,
		 uint32_t total, uint32_t first, uint32_t nr, const uint32_t *offsets);
/* The same for a whole object with its names given (unit tests): names[i] or NULL. */
int tfs_ft_add_named(pid_t pid, uint32_t obj, const char *path, bool is_exe, uint64_t base,
		     uint32_t total, const uint32_t *offsets, const char *const *names);
/* Forget a process's sites (it disconnected).  Returns true when it had some. */
bool tfs_ft_proc_gone(pid_t pid);
/* Forget everything (unit tests). */
void tfs_ft_reset(void);
/*
 * Objects no live process has loaded are kept for matching (a filter names a function
 * of a program that ran before), up to TFS_FT_DEAD_FUNCS functions in all; past it the
 * ones whose last process went first are forgotten, with their selections and probes
 * (the kept patterns select them again when they come back).  Ids move, so nothing
 * happens while a filter file is open for writing.  (tfs_ft_lock held.)  keep: the
 * bound (TFS_FT_DEAD_FUNCS; unit tests give others).
 */
#define TFS_FT_DEAD_FUNCS 65536u
void tfs_ft_trim_locked(unsigned int keep);
/* (tfs_ft_lock held) a filter file opened for writing, or closed after writing */
void tfs_ft_writer_locked(bool opened);

/* (tfs_ft_lock held) functions first.. are new: select them as the kept patterns say. */
void tfs_ft_apply_pats_locked(uint32_t first);
/* (tfs_ft_lock held) does mod: glob g name object ob (its file name or an alias)? */
bool tfs_ft_obj_hit(const struct tfs_ft_obj *ob, const struct tfs_glob *g);
/* (tfs_ft_lock held) does glob g name f (with demangle: its C++ names too)? */
bool tfs_ft_func_hit(struct tfs_ft_func *f, const struct tfs_glob *g, bool demangle);
/* (tfs_ft_lock held) the name f is listed under: demangled when demangle and it has one. */
const char *tfs_ft_func_name(struct tfs_ft_func *f, bool demangle);
/* Forget the kept patterns of filter f (tfs_ft_lock held). */
void tfs_ft_pats_free(struct tfs_ft_pats *p);
/* (tfs_ft_lock held) is any function in the top's filter f, or (TRACE/NOTRACE) a mod pending? */
bool tfs_ft_nonempty_locked(enum tfs_filter f);
/* (tfs_ft_lock held) the same for the instance of slot (0: the top). */
bool tfs_ft_inst_nonempty_locked(unsigned int slot, enum tfs_filter f);
/* (tfs_ft_lock held) the filter bits (1 << enum tfs_filter) of function id in slot's. */
uint8_t tfs_ft_inst_sel_locked(unsigned int slot, uint32_t id);
/* The instance goes: forget its filters (takes tfs_ft_lock). */
void tfs_ft_inst_clear(const struct tfs_instance *inst);
/* True when set_graph_function or set_graph_notrace selects something. */
bool tfs_ft_graph_select(void);

/* ftrace_glob.c: a pattern of the filter files (the kernel's filter_parse_regex). */
enum tfs_match {
	MATCH_FULL,
	MATCH_FRONT_ONLY,
	MATCH_MIDDLE_ONLY,
	MATCH_END_ONLY,
	MATCH_GLOB,
	MATCH_INDEX
};

struct tfs_glob {
	enum tfs_match type;
	const char *search;
	size_t len;
};

/* Parse a pattern in place (a trailing `*` is cut off); *not: it started with `!`. */
enum tfs_match tfs_parse_regex(char *buff, struct tfs_glob *g, int *not);
bool tfs_glob_hit(const char *str, const struct tfs_glob *g);
bool tfs_glob_match(const char *pat, const char *str); /* the kernel's glob_match */

/* ftrace_filter.c, also for unit tests: a private copy as an open for writing makes
 * it (NULL on ENOMEM), writes to it, its close (commits; true when the filter
 * changed), and the text a read shows. */
void *tfs_ft_open_priv(enum tfs_filter which, bool trunc);
void *tfs_ft_open_priv_inst(struct tfs_instance *inst, enum tfs_filter which, bool trunc);
ssize_t tfs_ft_write(void *priv, const char *buf, size_t size);
bool tfs_ft_close(void *priv);
int tfs_ft_show(enum tfs_filter which, struct tfs_buf *b); /* the top's */
int tfs_ft_show_inst(const struct tfs_instance *inst, enum tfs_filter which, struct tfs_buf *b);

/*
 * ftrace_probe.c: function probes.  A write to set_ftrace_filter edits a working
 * copy (tfs_probes_copy) that tfs_probes_commit_locked makes the probes once the
 * write succeeded.  set: set[id] for the n function ids a glob matched.
 */
const char *tfs_probe_name(uint32_t cmd);
int tfs_probes_copy(struct tfs_ft_probes *dst, const struct tfs_ft_probes *src);
void tfs_probes_free(struct tfs_ft_probes *p);
/* Add (cmd, counted) on the functions of set that lack it: 0, or -EINVAL when none. */
int tfs_probes_add(struct tfs_ft_probes *p, uint32_t cmd, bool counted, int64_t count,
		   const uint8_t *set, unsigned int n);
/* Remove (cmd, counted) from every function (all) or from those of set (NULL: none
 * matched): 0, -ENODEV when the ops has no probe, -EINVAL when it has none there. */
int tfs_probes_del(struct tfs_ft_probes *p, uint32_t cmd, bool counted, bool all,
		   const uint8_t *set, unsigned int n);
/* (tfs_ft_lock held) Make p the probes of the instance of slot inst (p is emptied):
 * counters of new probes set, counters of removed ones freed.  -ENOSPC when
 * counters ran out or there would be more than UT_SEL_PROBES_MAX probes (p kept). */
int tfs_probes_commit_locked(unsigned int inst, struct tfs_ft_probes *p);
/* (tfs_ft_lock held) function ids were renumbered: map[old] is the new id, or
 * UINT32_MAX for a function forgotten, whose probes go (their counters freed). */
void tfs_probes_renumber_locked(const uint32_t *map);
/* (tfs_ft_lock held) the probe lines of the set_ftrace_filter of instance slot inst. */
int tfs_probes_show_locked(unsigned int inst, struct tfs_buf *b, bool demangle);
/* (tfs_ft_lock held) how many probe ops are on function id, over every instance. */
unsigned int tfs_probes_on_locked(uint32_t id);
/* (tfs_ft_lock held) how many probes there are, over every instance. */
unsigned int tfs_probes_total_locked(void);
/* The instance of slot inst (> 0) goes: forget its probes and their commands
 * (takes tfs_ft_lock).  True when it had some. */
bool tfs_probes_inst_drop(unsigned int inst);
/* The counter of a slot (in the area; a private one without an area). */
int64_t *tfs_probe_counter(uint32_t slot);
/* Forget every probe (unit tests). */
void tfs_probes_reset(void);

/* ftrace_pid.c: the four pid files. */
enum tfs_pid_list {
	TFS_PID_FTRACE,		/* set_ftrace_pid */
	TFS_PID_FTRACE_NOTRACE, /* set_ftrace_notrace_pid */
	TFS_PID_EVENT,		/* set_event_pid */
	TFS_PID_EVENT_NOTRACE,	/* set_event_notrace_pid */
	TFS_PID_NR
};
extern const struct tfs_file_ops tfs_set_pid_ops; /* .arg = enum tfs_pid_list */
/*
 * Each instance has its four lists; the selection memfd says each instance's
 * answer for each process (tfs_pid_filtered_locked, tfs_pid_inst_tasks_locked).
 * A write: replace or add the ids of buf; size, or -EINVAL/-EPERM (nothing changed).
 */
ssize_t tfs_pid_write(const struct tfs_instance *inst, enum tfs_pid_list which, bool replace,
		      const char *buf, size_t size);
void tfs_pid_clear(const struct tfs_instance *inst, enum tfs_pid_list which);
/* All four (the instance goes); true when its event lists were not empty. */
bool tfs_pid_inst_clear(const struct tfs_instance *inst);
void tfs_pid_reset(void); /* every list of every instance (unit tests) */
int tfs_pid_show(const struct tfs_instance *inst, enum tfs_pid_list which, struct tfs_buf *b);
/* (tfs_ft_lock held) the top's set_ftrace_pid or set_ftrace_notrace_pid not empty. */
bool tfs_pid_filtered_locked(void);
/* (tfs_ft_lock held) enum ut_sel_tasks of process pid; tids: room for
 * UT_SEL_TIDS_MAX, filled sorted for ONLY/EXCEPT, *nr their number. */
uint32_t tfs_pid_tasks_locked(pid_t pid, int32_t *tids, uint32_t *nr);
/* (tfs_ft_lock held) the same for the lists of the instance of slot. */
uint32_t tfs_pid_inst_tasks_locked(unsigned int slot, pid_t pid, int32_t *tids, uint32_t *nr);
/* (tfs_ft_lock held) the same for the event lists of slot (thread ids alone). */
uint32_t tfs_pid_event_tasks_locked(unsigned int slot, pid_t pid, int32_t *tids, uint32_t *nr);
/* The event lists of every instance, as ut_sel_hdr says them (bit = slot). */
struct tfs_pid_evslots {
	uint64_t slots[2]; /* set_event_pid or set_event_notrace_pid not empty */
	uint64_t only[2];  /* set_event_pid not empty */
	uint64_t fork[2];  /* slots with event-fork set */
	bool follow;	   /* some instance follows forks (function-fork, event-fork) */
};
/* (tfs_ft_lock held) */
void tfs_pid_event_slots_locked(struct tfs_pid_evslots *es);
/* (tfs_ft_lock held) the last thread serial of process pid (ut_sel_proc.ev_serial). */
uint32_t tfs_pid_serial_locked(pid_t pid);
/*
 * function-fork and event-fork, each instance as its options say: a process
 * registered (ptid: the thread that forked it, 0: unknown; its parent's lists take
 * it) / went (with its threads); a thread of process pid started (created by ptid;
 * serial: UT_MSG_THREAD's) or ended (exit).  True when a list changed (publish
 * the selection).
 */
bool tfs_pid_fork(pid_t pid, pid_t ptid);
bool tfs_pid_exit(pid_t pid);
bool tfs_pid_thread(pid_t pid, pid_t tid, pid_t ptid, uint32_t serial, bool exit);

/* sel.c: the selection memfd. */
int tfs_sel_init(void);
/* A read-only descriptor of it for a process (close it after sending), or -errno. */
int tfs_sel_fd_ro(void);
/* A new read-only descriptor of the memfd at fd (through /proc), or -errno. */
int tfs_fd_reopen_ro(int fd);
/* Rewrite it from tfs_ft (takes tfs_ft_lock). */
int tfs_sel_publish(void);
/*
 * What instance inst routes changed (its filters, pid lists or tracer): rewrite
 * the selection and make every process apply it (processes wait on the top's
 * control page), returning once they did.
 */
void tfs_sel_publish_apply(const struct tfs_instance *inst);
/* The same for a change every instance's processes must see (event pid lists). */
void tfs_sel_publish_all(void);
/* The content, built into b (tfs_ft_lock held); exposed for unit tests. */
int tfs_sel_build_locked(struct tfs_buf *b);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * tfs.h - utracefs internals shared by its parts.
 *
 * utracefs is the "kernel" of utrace: it owns the tracing state and the shared
 * memory, serves the tracefs tree over FUSE and formats everything a reader sees.
 *
 * fs/, the daemon's core (knows the set of instances and the processes):
 *   state.c      the global state (struct tfs_trace), applying an instance's settings
 *                to its control page and waiting for every process to acknowledge
 *   instance.c   the instances (struct tfs_instance, the kernel's trace_array; the
 *                top level is tfs_top) and the instances/ directory
 *   area.c       the memfd: one span per instance, per-CPU reset/resize with the
 *                CPU barrier
 *   registry.c   the control socket: processes, their tasks (comm, tgid), their maps
 *   files.c      THE TABLE of control files: read it to learn the tree
 *   fuse_ops.c   FUSE glue: paths -> table entries (and their instance) -> the ops below
 *   ring_read.c  reading the rings: snapshots, consuming readers, statistics
 *   clock.c      trace_clock: TSC -> the selected clock
 *   sym.c        ip -> symbol, as each process had its objects mapped at the event's time
 *   symfile.c    one ELF file: its identity (build-id...), segments and symbols
 *   sel.c        the selection memfd (the top level's filters and pid lists)
 * fs/control/, the control files:
 *   one file per family (current_tracer.c, buffer_size.c, ...), named after the
 *   file: each acts on the instance of the open file (tfs_open.inst), never on a
 *   global; what processes are told (sel.c, the probes of ftrace_probe.c) is the
 *   top level's only for now.
 * The text:
 *   output/      text formatting: headers, line prefix, function lines, latency format
 *   tracers/     one file per tracer, each a struct tracer
 *
 * Locking: tfs.lock (a mutex) guards struct tfs_trace and every instance's
 * settings; it is never held while waiting for processes (tfs_apply) or while
 * blocking in trace_pipe.
 */
#ifndef TFS_H
#define TFS_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "ut_ctl.h"
#include "ut_ring.h"

struct tfs_instance;

/* ---- text buffers ------------------------------------------------------------ */

struct tfs_buf {
	char *data;
	size_t len, cap;
};
int tfs_buf_printf(struct tfs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tfs_buf_vprintf(struct tfs_buf *b, const char *fmt, va_list ap);
int tfs_buf_append(struct tfs_buf *b, const void *data, size_t len);
void tfs_buf_reset(struct tfs_buf *b); /* len = 0, keeps memory */
void tfs_buf_free(struct tfs_buf *b);

/* ---- options (trace_options, options/) -------------------------------------- */

/*
 * Core options in the kernel's order (as trace_options prints them), each with
 * its default.  Tracer-specific options (func_stack_trace, ...) are declared by
 * the tracer (struct tracer.opts) and shown only while it is current.
 */
enum tfs_opt {
	TFS_OPT_PRINT_PARENT,
	TFS_OPT_SYM_OFFSET,
	TFS_OPT_SYM_ADDR,
	TFS_OPT_VERBOSE,
	TFS_OPT_RAW,
	TFS_OPT_HEX,
	TFS_OPT_BIN,
	TFS_OPT_BLOCK,
	TFS_OPT_FIELDS,
	TFS_OPT_TRACE_PRINTK,
	TFS_OPT_ANNOTATE,
	TFS_OPT_USERSTACKTRACE,
	TFS_OPT_SYM_USEROBJ,
	TFS_OPT_PRINTK_MSG_ONLY,
	TFS_OPT_CONTEXT_INFO,
	TFS_OPT_LATENCY_FORMAT,
	TFS_OPT_RECORD_CMD,
	TFS_OPT_RECORD_TGID,
	TFS_OPT_OVERWRITE,
	TFS_OPT_DISABLE_ON_FREE,
	TFS_OPT_IRQ_INFO,
	TFS_OPT_MARKERS,
	TFS_OPT_EVENT_FORK,
	TFS_OPT_TRACE_PRINTK_DEST,
	TFS_OPT_COPY_TRACE_MARKER,
	TFS_OPT_PAUSE_ON_TRACE,
	TFS_OPT_HASH_PTR,
	TFS_OPT_FUNCTION_TRACE,
	TFS_OPT_FUNCTION_FORK,
	TFS_OPT_STACKTRACE,
	TFS_OPT_NR
};

struct tfs_opt_def {
	const char *name;
	bool def; /* default value */
};
extern const struct tfs_opt_def tfs_core_opts[TFS_OPT_NR];

/* True when inst has the core option set (reads inst->opts; no lock needed for a bit). */
bool tfs_opt(const struct tfs_instance *inst, enum tfs_opt o);
/* True when inst's current tracer has its option NAME set. */
bool tfs_tracer_opt(const struct tfs_instance *inst, const char *name);
/* The option bits of tracer t in inst (bit per entry of t->opts), kept for every tracer. */
struct tracer;
uint64_t tfs_tracer_opts_of(const struct tfs_instance *inst, const struct tracer *t);

/* ---- tracers ------------------------------------------------------------------ */

struct tfs_event;
struct tfs_iter;

struct tracer {
	const char *name;
	enum ut_tracer_id id;	       /* what the runtime does for it */
	/* becoming current in inst (buffer already cleared): 0 or -errno (EBUSY...) */
	int (*init)(struct tfs_instance *inst);
	void (*reset)(struct tfs_instance *inst); /* no longer current in inst */
	/* tracing_on of inst turned on or off while current (the kernel's start/stop) */
	void (*start)(struct tfs_instance *inst);
	void (*stop)(struct tfs_instance *inst);
	bool allow_instances; /* may be current in instances/NAME, not routed by processes */
	void (*print_header)(struct tfs_iter *it, struct tfs_buf *b);
	/* Format one event (context prefix included); returns 0 or -errno. */
	int (*print_line)(struct tfs_iter *it, const struct tfs_event *e, struct tfs_buf *b);
	const struct tfs_opt_def *opts; /* its own options, NULL-terminated, or NULL */
	/* Optional: accept (0) or refuse (-errno) a change of its option opts[idx]. */
	int (*set_opt)(unsigned int idx, bool set);
	/*
	 * The latency tracers (tracers/latency.c): use_max_tr, the snapshot buffer is
	 * its max buffer (`echo 1 > snapshot` is EBUSY); print_max, `trace` shows the
	 * max buffer; lat_mode, UT_LAT_* for the runtime (ut_ctl.lat_mode).
	 */
	bool use_max_tr;
	bool print_max;
	uint32_t lat_mode;
};

extern const struct tracer *const tfs_tracers[]; /* NULL-terminated, available_tracers order */
const struct tracer *tfs_tracer_find(const char *name);
/* The daemon ends: every instance's current tracer is reset (its threads joined). */
void tfs_tracers_shutdown(void);
/*
 * A tracer whose events the runtime routes to instances (function, function_graph):
 * what an instance may run, and whose filters and pid lists processes must know.
 */
static inline bool tfs_tracer_routed(const struct tracer *t)
{
	return t && (t->id == UT_TRACER_FUNCTION || t->id == UT_TRACER_FUNCTION_GRAPH);
}

/* ---- clocks (trace_clock) ----------------------------------------------------- */

enum tfs_clock {
	TFS_CLOCK_LOCAL,
	TFS_CLOCK_GLOBAL,
	TFS_CLOCK_COUNTER,
	TFS_CLOCK_UPTIME,
	TFS_CLOCK_PERF,
	TFS_CLOCK_MONO,
	TFS_CLOCK_MONO_RAW,
	TFS_CLOCK_BOOT,
	TFS_CLOCK_TAI,
	TFS_CLOCK_X86_TSC,
	TFS_CLOCK_NR
};
extern const char *const tfs_clock_names[TFS_CLOCK_NR];
/* True for clocks printed as plain counters ("%12llu"): counter, uptime, x86-tsc. */
bool tfs_clock_is_counter(enum tfs_clock c);
/* Time of a raw TSC value in inst's clock (ns, or ticks for counter clocks). */
uint64_t tfs_clock_from_tsc(const struct tfs_instance *inst, uint64_t tsc);
/* "Now" in inst's clock. */
uint64_t tfs_clock_now(const struct tfs_instance *inst);
/* Calibrate TSC against CLOCK_MONOTONIC; called once at start. */
void tfs_clock_init(void);

/* ---- the daemon's core state, and the instances ------------------------------------- */

#define TFS_CPUMASK_WORDS (UT_RB_MAX_CPUS / 64)
#define TFS_MAX_TRACERS 32

/*
 * What is truly global: the shared area (one memfd, one span per instance slot,
 * ut_ring.h), the registry's settings and the switches that have no instance
 * (ftrace_enabled, saved_cmdlines_size).  Everything a tracing session owns is
 * in struct tfs_instance.
 */
struct tfs_trace {
	pthread_mutex_t lock;

	/* the shared area */
	int area_fd;
	int ctl_fd; /* the control pages' own memfd, sealed against writes by others */
	void *area; /* the whole area; instance i's span at area + i * span */
	uint64_t area_size;
	uint64_t span;	      /* bytes of one instance's span (ut_inst_span) */
	unsigned int nr_cpus; /* possible CPUs */

	/* global settings */
	bool ftrace_enabled; /* the ftrace_enabled file (the kernel's sysctl) */
	unsigned int saved_cmdlines_size;
	unsigned int printk_slot; /* the instance with trace_printk_dest set (0: the top) */
};
extern struct tfs_trace tfs;

struct rr_cons;
struct tfs_elog;

/*
 * One tracing session, the kernel's trace_array (instance.c).  The top level is
 * instance 0, tfs_top; instances/NAME are slots 1..UT_INST_MAX - 1.  Every open
 * file knows its instance (tfs_open.inst); the functions that act on a session
 * take it.  Settings are guarded by tfs.lock, like the core's.
 */
struct tfs_instance {
	unsigned int slot;     /* 0: the top level */
	char name[256];	       /* instances/NAME; "" for the top */
	void *area;	       /* its span: laid out as ut_ring.h says (ctl, rb_cpu[], rings) */
	struct ut_ctl *ctl;    /* == area: control page slot of the ctl memfd mapped over it */

	/* settings */
	const struct tracer *tracer;
	bool tracing_on;
	uint64_t opts;	      /* bit per enum tfs_opt */
	uint64_t tracer_opts; /* bit per entry of tracer->opts (the current tracer's) */
	uint64_t tracer_vals[TFS_MAX_TRACERS]; /* every tracer's option bits (options.c), by tracer index */
	enum tfs_clock clock;
	unsigned int nr_kpages[UT_RB_MAX_CPUS]; /* buffer_size_kb in 4080-byte kernel pages */
	bool buffer_expanded;			/* the kernel's "(expanded: N)" state */
	uint64_t cpumask[TFS_CPUMASK_WORDS];

	/* readers */
	int trace_pipe_readers; /* current_tracer gives EBUSY while > 0 */
	struct rr_cons *rr_cons; /* ring_read.c: the consumer of each CPU */
	uint64_t rr_time_start;	 /* ring_read.c: latency format's time base */

	struct tfs_elog *elog; /* error_log.c: its entries */

	uint64_t max_latency; /* tracing_max_latency in ns (latency.h) */

	/*
	 * The snapshot buffer (the kernel's max_buffer; area.c makes and swaps it,
	 * snapshot.c serves the files): utracefs's private memory laid out as a span
	 * (rb_cpu[] and rings, ut_ring.h), whose contents a swap exchanges with a CPU's
	 * ring while no writer can write there.  NULL: not allocated.  spare_pages[cpu]: the page
	 * count of that CPU's copy, 0 when it holds nothing.  Changed with the
	 * readers held (tfs_rr_hold), read under it.
	 */
	void *spare;
	unsigned int spare_pages[UT_RB_MAX_CPUS];

	/* instance.c: open files (rmdir gives EBUSY while > 0), removal under way */
	unsigned int refs;
	bool dying;
};
extern struct tfs_instance tfs_top;

/* ---- instances/ (instance.c) ----------------------------------------------------- */

/* An instance found by name, to take a reference on later (it may go meanwhile). */
struct tfs_inst_ref {
	struct tfs_instance *inst;
	uint64_t gen;
};
/* Find the instance called name (len bytes): 0 or -ENOENT. */
int tfs_inst_lookup(const char *name, size_t len, struct tfs_inst_ref *ref);
/* Take a reference (an open file): 0, or -ENOENT when it went since the lookup. */
int tfs_inst_get(const struct tfs_inst_ref *ref);
void tfs_inst_put(struct tfs_instance *inst);
/* A reference on the live instance of slot (the top: none needed), NULL when the
 * slot is free or its instance going; tfs_inst_put it. */
struct tfs_instance *tfs_inst_hold(unsigned int slot);
/*
 * The instance object of a slot (NULL past the last), live or not: its storage
 * never goes, what it points to may (hold the lock that guards what you read).
 */
struct tfs_instance *tfs_inst_of_slot(unsigned int slot);
/* The instance in slot (0: the top), NULL when the slot is free. */
const struct tfs_instance *tfs_inst_slot(unsigned int slot);
/* The i-th instance's name (instances/ listing), NULL past the last. */
const char *tfs_inst_dir_name(unsigned int i);
/* mkdir/rmdir instances/NAME: 0 or the kernel's errno (instance.c). */
int tfs_inst_mkdir(const char *name, size_t len);
int tfs_inst_rmdir(const char *name, size_t len);

void tfs_lock(void);
void tfs_unlock(void);

/*
 * Publish inst's settings to its control page.  For the top level, then bump gen,
 * wake every process and wait (at most UT_ACK_TIMEOUT_MS) until each live one
 * acknowledged; processes act on the top's page only until the runtime routes
 * events to instances.  Call without tfs.lock held.  Returns 0 (a hung process is
 * not an error: it is reported in the daemon's log and left behind).
 */
int tfs_apply(struct tfs_instance *inst);
/* trace_printk_dest: give it to the instance of slot (0: the top), from all others;
 * tfs.lock held (options.c).  The caller then applies the top. */
void tfs_printk_dest_locked(unsigned int slot);

/* ---- the area and the rings (area.c) --------------------------------------------- */

/*
 * The snapshot buffer (tfs_instance.spare).  Alloc: 0 or -ENOMEM (allocated
 * already: 0).  Swap: allocate it if needed, then for cpu (all when cpu < 0),
 * while no writer can write there, exchange the ring's contents with the
 * snapshot's (or, when the snapshot holds none of the ring's size, copy the ring
 * and empty it).  0, -ENOMEM, or -EBUSY when some CPU's writers could not be
 * stopped (that CPU is left as it was).  Clear empties the snapshot's part of cpu
 * (all when < 0); free gives the memory back.
 */
int tfs_spare_alloc(struct tfs_instance *inst);
int tfs_spare_swap(struct tfs_instance *inst, int cpu);
void tfs_spare_clear(struct tfs_instance *inst, int cpu);
void tfs_spare_free(struct tfs_instance *inst);

int tfs_area_init(unsigned int nr_cpus);
/*
 * Empty one CPU's ring (cpu >= 0) or all of them (cpu < 0): the kernel's reset;
 * the consumers (trace_pipe) of those CPUs forget their positions.  0, or -EBUSY
 * when some CPU's writers could not be stopped (area.c: a CPU utracefs may not
 * run on, a lock holder that does not let go): that ring is left as it was.
 */
int tfs_ring_reset(struct tfs_instance *inst, int cpu);
/*
 * Give a CPU's ring room for nr_kpages kernel pages, keeping its newest events
 * that the consumer has not taken.  0, -ENOMEM, or -EBUSY as tfs_ring_reset.
 */
int tfs_ring_resize(struct tfs_instance *inst, unsigned int cpu, unsigned int nr_kpages);
/* Stop or restart writes on a CPU (tracing_cpumask). */
void tfs_ring_enable(struct tfs_instance *inst, unsigned int cpu, bool on);
/*
 * Wait until no write sequence that started before the call is still running on
 * cpu.  0, or -EBUSY when that cannot be known (see area.c).
 */
int tfs_cpu_barrier(struct tfs_instance *inst, unsigned int cpu);
/* Tests only: the write mode utracefs chose at start (UT_CTL_WRITE_*). */
void tfs_area_set_write_mode(uint32_t mode);
/* Wake trace_pipe readers and pollers (called when new data may be there). */
void tfs_ring_kick(void);
/*
 * Wait for a kick (new data may be there, or the rings changed).  *seen_seq is
 * the caller's last seen kick number (start with 0); returns 1 at once when a kick
 * happened since, else waits up to timeout_ms (< 0: forever) and returns 1 when
 * kicked, 0 on timeout.  *seen_seq is updated.  Never hold tfs.lock across it.
 */
int tfs_ring_wait(uint64_t *seen_seq, int timeout_ms);
/*
 * The kernel releases a file when its last close returns; FUSE sends the release
 * after close(2) has returned.  What the kernel refuses while a file is open
 * (EBUSY: current_tracer with a trace_pipe reader, rmdir of an instance) first
 * waits this long for releases on their way.
 */
#define TFS_RELEASE_WAIT_MS 500
/*
 * trace.c: is a consuming reader (trace_pipe) open, once the releases on their
 * way came (TFS_RELEASE_WAIT_MS)?  Called with tfs.lock held (released while waiting).
 */
bool tfs_trace_pipe_busy_locked(struct tfs_instance *inst);
/* Option overwrite: switch every ring's mode of inst without emptying it. */
void tfs_ring_set_overwrite(struct tfs_instance *inst, bool on);

/*
 * buffer_size.c: the kernel's first-use growth of the buffer.  At start every CPU
 * has TFS_BOOT_KPAGES (settings.h) and buffer_expanded is false ("7 (expanded:
 * 1408)"); the first tracer write (any tracer, even the current one) grows every
 * CPU to the kernel's 1408 KB.  No-op once expanded.  Call without tfs.lock.
 */
int tfs_buffer_expand(struct tfs_instance *inst);

/*
 * trace.c: a dump or cpudump function probe fired (the kernel's ftrace_dump):
 * write cpu's events (every CPU's when cpu < 0) to stderr, the console (the
 * daemon's stderr is the file MOUNTPOINT.console), in latency format, consuming
 * them; done by a thread of its own, in order.  Call without tfs.lock.
 */
void tfs_trace_dump(int cpu);

/* ---- processes and tasks (registry.c) --------------------------------------------- */

int tfs_registry_start(const char *socket_path); /* listen + accept thread */
void tfs_registry_stop(void);
/* Number of live registered processes. */
unsigned int tfs_registry_count(void);
/* The time ms milliseconds from now on clock clk (for timed condition waits). */
static inline struct timespec tfs_deadline(clockid_t clk, int ms)
{
	struct timespec t;

	clock_gettime(clk, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}
/* Wait (at most timeout_ms) until what processes already sent has been read. */
void tfs_registry_sync(int timeout_ms);
/*
 * Tasks seen (from HELLO/TASK messages and trace_marker writers that are known):
 * comm of a tid (0, or -ENOENT when unknown: printed "<...>"), tgid of a tid.
 */
int tfs_task_comm(pid_t tid, char comm[16]);
pid_t tfs_task_tgid(pid_t tid);
/* Iterate saved cmdlines in the order the kernel prints them. */
typedef void (*tfs_task_fn)(pid_t tid, pid_t tgid, const char *comm, void *arg);
void tfs_task_foreach(tfs_task_fn fn, void *arg);
/* Remember a task (tid, tgid, comm) as the kernel's saved_cmdlines does; 0 or -errno. */
int tfs_task_record(pid_t tid, pid_t tgid, const char *comm);
/*
 * A numeric field of /proc/TID/stat, numbered as in proc(5) (4: the parent,
 * 39: the CPU the task last ran on; the state, field 3, is not numeric).
 * 0 or -ENOENT.
 */
int tfs_proc_stat_field(pid_t tid, unsigned int field, long *val);

/* ---- symbols (sym.c) ------------------------------------------------------------------ */

/* (Re)load the memory map of a process now (at HELLO). */
int tfs_sym_load_maps(pid_t pid);
/*
 * The process says its mappings changed (UT_MSG_MAPS) at TSC tsc (taken after
 * the change): read them; what went ends at tsc.  0 or -errno.
 */
int tfs_sym_maps_changed(pid_t pid, uint64_t tsc);
/*
 * The process announced (UT_MSG_SITES, UT_MSG_OBJECT) the object path loaded at
 * base by its TSC tsc: its addresses are its own from tsc until its unload,
 * whatever the maps show when they are read.  ino: the inode the file must have
 * (0: any).  0 or -errno.
 */
int tfs_sym_object_mapped(pid_t pid, const char *path, uint64_t base, uint64_t tsc, ino_t ino);
/*
 * The object at base was unloaded by the process's TSC tsc (UT_MSG_SITES total 0,
 * UT_MSG_OBJECT unloaded).
 */
void tfs_sym_object_unmapped(pid_t pid, uint64_t base, uint64_t tsc);
/* The process is gone: its mappings end now (they stay for its events). */
void tfs_sym_proc_gone(pid_t pid);
/* Every ring was emptied at TSC tsc: mappings that ended before go. */
void tfs_sym_forget(uint64_t tsc);
/*
 * Resolve addr in the process that tid belongs to, as mapped at TSC tsc (an
 * event's time stamp).  Fills name (demangled when demangle is set), the
 * symbol's start and size (to the next symbol, as the kernel's kallsyms);
 * returns 0 or -ENOENT.  tfs_sym_lookup: as mapped now.
 */
int tfs_sym_lookup_at(pid_t tid, uint64_t tsc, uint64_t addr, bool demangle, char *name,
		      size_t size, uint64_t *start, uint64_t *symsize);
int tfs_sym_lookup(pid_t tid, uint64_t addr, bool demangle, char *name, size_t size,
		   uint64_t *start, uint64_t *symsize);
/*
 * Name an address no symbol covers after its object, as the kernel names a
 * module: "[libc.so.6+0x2724a]" (the address in the file).  0 or -ENOENT.
 */
int tfs_sym_object_at(pid_t tid, uint64_t tsc, uint64_t addr, char *name, size_t size);
/*
 * What the file mapped at addr in pid now holds (its build-id in hex, else its
 * size and mtime): a file rebuilt at the same path has another.  0 or -ENOENT.
 */
int tfs_sym_file_key(pid_t pid, uint64_t addr, char *key, size_t size);

/*
 * The function a patch site belongs to: the symbol (not demangled) that starts at
 * addr, or 4 bytes before it (an endbr64 ahead of the nops).  0 or -ENOENT.
 */
int tfs_sym_site_name(pid_t pid, uint64_t addr, char *name, size_t size);
/* The demangled form of a C++ name (malloc'ed), NULL when it is not one. */
char *tfs_sym_demangle(const char *name);
/*
 * The flat address an event of tid at TSC tsc names with addr: the object
 * mapped there then (as tfs_sym_lookup_at finds it) is number N of the cache,
 * never reused, and the address is 1 << 63 | N << 40 | the address in its file.
 * An address no object covers comes back as it is.  What trace_pipe_raw writes,
 * so that the kallsyms file names it; cheap when the mappings did not change.
 */
uint64_t tfs_sym_flat(pid_t tid, uint64_t tsc, uint64_t addr);
/* The kallsyms file: every cached object's functions at their flat addresses.  0 or -ENOMEM. */
int tfs_sym_kallsyms(struct tfs_buf *b);
/*
 * A trace_pipe_raw reader opens (true) or closes (false): the objects its pages
 * name stay cached while one is open and until kallsyms is read after the last.
 */
void tfs_sym_flat_pin(bool open);
/* Whether C++ names show demangled now: the tracer's `demangle` option (on for a
 * tracer without it), as the trace prints them. */
bool tfs_out_demangle(const struct tfs_instance *inst);

/* ---- writing events from utracefs (trace_marker) ------------------------------------- */

/*
 * Write ev into the ring of cpu (the current CPU's when cpu < 0) with the ring
 * writer of the area's write mode (ut_rb_write, or ut_rb_write_locked where the
 * kernel has no rseq); returns what it returns (-EAGAIN: cpu is not in
 * tracing_cpumask).
 */
int tfs_ring_write(struct tfs_instance *inst, int cpu, struct ut_ev *ev);
/*
 * Write a print event (text not NUL-terminated, len <= UT_PRINT_MAX) for task tid
 * into cpu's ring (as tfs_ring_write).
 */
int tfs_write_print(struct tfs_instance *inst, int cpu, pid_t tid, uint64_t ip, const char *text,
		    size_t len, uint8_t flags);
/*
 * trace_marker.c: write a raw_data event for task tid into cpu's ring: data is the
 * 4-byte id then the payload (len >= 4, at most what one event holds: -EINVAL
 * otherwise).  Returns 0 or what ut_rb_write returns (-EAGAIN, -ENOSPC, ...).
 */
int tfs_write_raw(struct tfs_instance *inst, int cpu, pid_t tid, const void *data, size_t len,
		  uint8_t flags);

/* ---- error_log ------------------------------------------------------------------------ */

/*
 * Add an entry: "[ts] loc: error: msg\n  Command: cmd\n" then a caret under column
 * pos of cmd.  Keeps the last 8 entries.
 */
void tfs_error_log(struct tfs_instance *inst, const char *loc, const char *msg, const char *cmd,
		   unsigned int pos);
/* The instance goes: free its log. */
void tfs_error_log_free(struct tfs_instance *inst);

/* ---- the file tree (files.c, fuse_ops.c) ---------------------------------------------- */

struct tfs_file;

/* One open file. */
struct tfs_open {
	const struct tfs_file *file;
	struct tfs_instance *inst; /* the instance the file belongs to (&tfs_top at the top) */
	int cpu;	/* per_cpu/cpuN/... : N; otherwise -1 */
	int flags;	/* open(2) flags */
	pid_t pid;	/* thread id of the caller (FUSE context) */
	struct tfs_buf content; /* made by ops->show at open: what reads return */
	struct tfs_buf wbuf;	/* writes gathered for commit-on-close files */
	void *priv;		/* the family's own state */
	uint64_t fh_id;
};

/*
 * The thread that made the read or write being served (FUSE context): the
 * opener may have handed the descriptor on.  o->pid outside a FUSE request.
 */
pid_t tfs_caller(const struct tfs_open *o);

/*
 * lseek(2) on a file, after the kernel's llseek of the file's fops.  Every file
 * has size 0; FUSE itself serves SEEK_SET and SEEK_CUR, and asks utracefs (a
 * getattr with the file handle) only for SEEK_END, SEEK_DATA and SEEK_HOLE.
 */
enum tfs_seek {
	TFS_SEEK_ANY,	   /* any offset; SEEK_END gives 0 (generic_file_llseek) */
	TFS_SEEK_SEQ,	   /* seq_lseek: SEEK_END (DATA, HOLE) is EINVAL */
	TFS_SEEK_SEQ_READ, /* tracing_lseek: seq_lseek when open for reading, else 0 */
	TFS_SEEK_NONE,	   /* not seekable: every lseek is ESPIPE */
};

struct tfs_file_ops {
	/* Optional: called at open, before show; -errno refuses the open. */
	int (*open)(struct tfs_open *o);
	/* Optional: make the whole content into o->content (called at open when readable). */
	int (*show)(struct tfs_open *o);
	/* Optional: streaming read (trace_pipe); without it reads serve o->content. */
	ssize_t (*read)(struct tfs_open *o, char *buf, size_t size, off_t off);
	/* Optional: a write(2); returns bytes taken or -errno.  Without it: EINVAL... as kernel. */
	ssize_t (*write)(struct tfs_open *o, const char *buf, size_t size, off_t off);
	/* Optional: last close (commit-on-close files apply o->wbuf here). */
	int (*release)(struct tfs_open *o);
	/* Optional: open with O_TRUNC or truncate(2) (o->cpu set); e.g. `trace` clears. */
	int (*truncate)(struct tfs_open *o);
	/* Optional: poll mask (POLLIN | POLLRDNORM when data is there). */
	unsigned int (*poll)(struct tfs_open *o);
	/* What lseek(2) does, as the kernel's fops->llseek (enum tfs_seek). */
	enum tfs_seek seek;
};

enum tfs_file_kind { TFS_FILE, TFS_DIR };

/* tfs_file.arg of the instances/ directory: its entries are instances (instance.c). */
#define TFS_ARG_INSTANCES (-1L)
/* tfs_file.inst: where a top-level entry is (0: the top level only) */
#define TFS_INST_BOTH 1 /* also in every instances/NAME */
#define TFS_INST_ONLY 2 /* in instances only */

struct tfs_file {
	const char *name;
	enum tfs_file_kind kind;
	unsigned int mode; /* permission bits, e.g. 0644 */
	const struct tfs_file_ops *ops;
	long arg;			   /* per-file argument (event id, ...) */
	const struct tfs_file *children;   /* TFS_DIR: terminated by a NULL name */
	const char *(*dyn_name)(unsigned int i); /* TFS_DIR with dynamic entries (options/, cpuN) */
	const struct tfs_file *dyn_template;	 /* what each dynamic entry is */
	/*
	 * TFS_DIR whose dynamic entries depend on the index of the directory above
	 * (events/SYSTEM/EVENT): the i-th entry of parent, NULL past the last, ""
	 * hidden; *index is what files below it are opened with (tfs_open.cpu).
	 */
	const char *(*dyn_entry)(int parent, unsigned int i, int *index);
	unsigned char inst;			 /* in the root: TFS_INST_* (0: top only) */
};

extern const struct tfs_file tfs_root;

/* Ops of each family, defined in their files. */
extern const struct tfs_file_ops tfs_readme_ops, tfs_available_tracers_ops,
	tfs_current_tracer_ops, tfs_tracing_on_ops, tfs_trace_ops, tfs_trace_pipe_ops,
	tfs_trace_pipe_raw_ops, tfs_stats_ops, tfs_trace_options_ops, tfs_option_file_ops,
	tfs_cpumask_ops, tfs_buffer_size_ops, tfs_buffer_total_ops, tfs_free_buffer_ops,
	tfs_trace_clock_ops, tfs_trace_marker_ops, tfs_trace_marker_raw_ops,
	tfs_saved_cmdlines_ops, tfs_saved_cmdlines_size_ops, tfs_saved_tgids_ops,
	tfs_error_log_ops, tfs_header_page_ops, tfs_header_event_ops, tfs_event_format_ops,
	tfs_available_filter_functions_ops, tfs_set_ftrace_filter_ops, tfs_set_ftrace_notrace_ops,
	tfs_set_graph_function_ops, tfs_set_graph_notrace_ops, tfs_ftrace_enabled_ops,
	tfs_available_filter_functions_addrs_ops, tfs_dyn_ftrace_total_info_ops,
	tfs_enabled_functions_ops, tfs_snapshot_ops, tfs_available_events_ops, tfs_set_event_ops,
	tfs_event_enable_ops, tfs_event_id_ops, tfs_event_filter_ops, tfs_event_trigger_ops,
	tfs_event_def_format_ops, tfs_printk_formats_ops, tfs_kallsyms_ops;
/* tfs_file.arg of per_cpu/cpuN/snapshot_raw (tfs_trace_pipe_raw_ops on the snapshot) */
#define TFS_RAW_SNAPSHOT 1

/* snapshot.c: a write to snapshot (o->cpu: a per_cpu file), and the text an empty one shows. */
ssize_t tfs_snapshot_write(struct tfs_open *o, const char *buf, size_t size, off_t off);
void tfs_snapshot_help(struct tfs_instance *inst, int cpu, struct tfs_buf *b);

/*
 * Parse a write to a one-value file the way the kernel does (kstrtoul on the
 * user's text with one trailing newline allowed).  Returns 0 or -EINVAL.
 */
int tfs_parse_ulong(const char *buf, size_t size, unsigned long *val);
/* The text of a write without surrounding whitespace, NUL-terminated, into out. */
int tfs_strip(const char *buf, size_t size, char *out, size_t outsize);

/* ---- reading the rings (ring_read.c) and formatting (output/) ------------------------- */

/* One event as the formatter sees it (a validated copy out of the ring). */
struct tfs_event {
	const struct ut_ev *ev; /* len, type, flags, tid checked; payload length checked */
	unsigned int cpu;
	uint64_t ts; /* in the instance's clock (tfs_clock_from_tsc) */
};

#endif

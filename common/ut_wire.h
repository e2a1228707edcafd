/* SPDX-License-Identifier: MIT */
/*
 * ut_wire.h - the control socket between a traced process and utracefs.
 *
 * An AF_UNIX SOCK_SEQPACKET socket at ut_socket_path() (ut_paths.h), mode 0600
 * in a 0700 directory; utracefs accepts only peers of its own uid (SO_PEERCRED).
 * Every message is one packet starting with struct ut_msg_hdr.  Any thread of the
 * process may send (a packet is atomic); only the control thread receives.
 *
 *   process                         utracefs
 *   HELLO {pid, comm, exe}   --->
 *                            <---   WELCOME {nr_cpus, area_size} + SCM_RIGHTS: the
 *                                   control page's memfd (sealed: nobody but utracefs
 *                                   can write it), the area's memfd (page 0 unused,
 *                                   the rest as ut_ring.h), the selection memfd
 *                                   (ut_sel.h; may be missing) and the events memfd
 *                                   (ut_event.h; may be missing)
 *   SITES {obj, path, base, offsets}  --->  (after WELCOME, dlopen, dlclose: ut_sel.h)
 *   (maps the area, applies ctl state)
 *   ACK {gen}                --->   (after applying every ctl generation)
 *   TASK {tid, comm}         --->   (a thread's first event, prctl name changes)
 *   MAPS {}                  --->   (after dlopen/dlclose: re-read /proc/PID/maps)
 *   OBJECT {path, base, ino} --->   (after WELCOME, dlopen, dlclose: every object the
 *                                   loader mapped or unmapped, sites or not)
 *   TRACING {on}             --->   (tracing_on()/tracing_off(): sets the tracing_on file)
 *   PROBE {cmd, cpu, inst, ip} --->  (a dump, cpudump or snapshot probe fired, or an
 *                                   instance's traceon/traceoff: utracefs acts)
 *   EVENT {system, name, fields, print fmt}  --->  (after WELCOME and dlopen: each
 *                                   trace event of each object, ut_event.h)
 *   PRINTK_FMT {addr, tsc, text}  --->  (the first time a trace_printk format or a
 *                                   trace_puts string is used, before its record)
 *   NOTE {tid, text}         --->   (what the runtime has to say: utracefs prints it on
 *                                   its console; the runtime never writes to the
 *                                   program's stdout or stderr)
 *   PROFILE {epoch, first, recs}  --->  (the function profiler's counts: when
 *                                   ut_ctl.profile_req moves, before the ACK, and at
 *                                   exit; `first` starts the process's whole set)
 *   THREAD {tid, ptid, serial, exit}  --->  (a thread starts or ends, while the
 *                                   selection says some instance follows forks:
 *                                   function-fork, event-fork)
 *   STACK {tid, size, frames}  --->  (the stack tracer saw a deeper stack than
 *                                   any before: utracefs keeps the deepest)
 *   LATENCY {tid, start, end, ips, flags}  --->  (a latency tracer's section, or a
 *                                   wakeup tracer's wake, longer than
 *                                   ut_ctl.lat_max_tsc, its events written: utracefs
 *                                   swaps them into the max buffer and bumps
 *                                   ut_ctl.lat_done, which the thread waits for)
 *
 * The connection closing (exit, exec with CLOEXEC, kill) unregisters the process;
 * its events stay in the buffers, its tasks stay in saved_cmdlines and its maps
 * stay known so that its events still print with symbols.
 * After fork the child closes the inherited socket and registers anew.
 */
#ifndef UT_WIRE_H
#define UT_WIRE_H

#include <stdint.h>

enum ut_msg_type {
	UT_MSG_HELLO = 1,
	UT_MSG_WELCOME = 2,
	UT_MSG_ACK = 3,
	UT_MSG_TASK = 4,
	UT_MSG_MAPS = 5,
	UT_MSG_TRACING = 6, /* tracing_on()/tracing_off() called by the program */
	UT_MSG_SITES = 7,   /* the sites of one object (ut_sel.h) */
	UT_MSG_PROBE = 8,   /* a dump/cpudump/snapshot function probe fired (ut_sel.h) */
	UT_MSG_NOTE = 9,    /* a message of the runtime for utracefs's console */
	UT_MSG_OBJECT = 10, /* an object the loader mapped or unmapped */
	UT_MSG_EVENT = 11,  /* one trace event a process defines (ut_event.h) */
	UT_MSG_PRINTK_FMT = 12, /* the text of a bprint format or bputs string (ut_ring.h) */
	UT_MSG_THREAD = 13, /* a thread started or ended (the kernel's fork and exit probes) */
	UT_MSG_STACK = 14,  /* the stack tracer's new maximum (struct ut_msg_stack) */
	UT_MSG_PROFILE = 15, /* the function profiler's counts (runtime/profile.c) */
	UT_MSG_LATENCY = 16, /* a latency tracer's new maximum (struct ut_msg_latency) */
};

struct ut_msg_hdr {
	uint32_t type;
	uint32_t len; /* whole packet */
};

struct ut_msg_hello {
	struct ut_msg_hdr h;
	uint32_t version; /* UT_PROTO_VERSION */
	int32_t pid;
	int32_t tid;
	int32_t ptid; /* a fork child: the thread that forked it; else 0 */
	char comm[16];
	char exe[256]; /* readlink /proc/self/exe, may be truncated */
};

struct ut_msg_welcome {
	struct ut_msg_hdr h;
	uint32_t version;
	uint32_t nr_cpus;
	uint64_t area_size; /* map this much of the memfd passed with SCM_RIGHTS */
};

struct ut_msg_ack {
	struct ut_msg_hdr h;
	uint32_t gen;
	uint32_t _pad;
};

struct ut_msg_task {
	struct ut_msg_hdr h;
	int32_t tid;
	int32_t pid;
	char comm[16];
};

/*
 * The process's mappings changed (after dlopen/dlclose): tsc is its TSC read
 * after the change, older than any event of what it mapped since and younger
 * than every event of what it unmapped.
 */
struct ut_msg_maps {
	struct ut_msg_hdr h;
	uint64_t tsc;
};

struct ut_msg_tracing {
	struct ut_msg_hdr h;
	uint32_t on;
	uint32_t _pad;
};

/*
 * dump, cpudump: utracefs turns the top level's tracing off (the sender has
 * stopped already), then dumps the top level's buffer, whatever inst says.
 * snapshot: utracefs swaps the buffer of instance inst into its snapshot.
 * traceon, traceoff: an instance's probe (inst > 0) turned that instance's
 * tracing on or off in the sender; utracefs sets its tracing_on file (the top
 * level's go as UT_MSG_TRACING, as the program's own tracing_on()).
 */
struct ut_msg_probe {
	struct ut_msg_hdr h;
	uint32_t cmd; /* UT_PROBE_DUMP, _CPUDUMP, _SNAPSHOT; _TRACEON, _TRACEOFF (inst > 0) */
	int32_t cpu;  /* the CPU it fired on (cpudump dumps only its buffer) */
	int32_t tid;
	uint32_t inst; /* the probe's instance slot (0: the top level) */
	uint64_t ip;   /* the function's site + 5 */
};

/*
 * A thread started (exit 0: tid was created by thread ptid of the same process) or
 * ends (exit 1).  serial numbers the starts of the process in the order they are
 * sent (its HELLO is 1); utracefs says in the process's section which it has seen
 * (ut_sel_proc.ev_serial), so that a new thread keeps its creator's answer until
 * then.
 */
struct ut_msg_thread {
	struct ut_msg_hdr h;
	int32_t tid;
	int32_t ptid;
	uint32_t serial;
	uint32_t exit;
};

/*
 * A stack deeper than any the sender knew of (ut_ctl.stack_max): size bytes from
 * the top of the stack it ran on to the traced function's return address, and
 * its frames innermost first: each return address with its depth, the bytes from
 * the top of the stack to where it was found (the kernel's stack_trace_index).
 * epoch: the ut_ctl.stack_epoch it was measured in; tsc: when (for the symbols).
 */
struct ut_msg_stack {
	struct ut_msg_hdr h;
	int32_t tid;
	uint32_t nr; /* <= UT_STACK_MAX */
	uint32_t epoch;
	uint32_t _pad;
	uint64_t size;
	uint64_t tsc;
	struct {
		uint64_t ip;
		uint64_t depth;
	} ent[64]; /* UT_STACK_MAX (ut_ring.h) */
};

/*
 * A section (or, for the wakeup tracers, a wake: start is the wake, tid the wakee)
 * longer than the maximum the sender knew of (runtime/latency.c): the
 * thread, the TSC at its start and end and after its last event was written (the
 * events of the section lie between start and last), the function entries that
 * began and ended it (ip: the primitive, parent: its caller, the kernel's
 * critical_start and critical_end), the CPU it ended on and the thread's
 * scheduling (nice, policy, rt_prio).  irqsoff and preemptoff send it
 * (runtime/latency.c, ut_lat_report); a tracer that measures across threads
 * sets UT_LATF_ALL_TASKS.
 */
struct ut_msg_latency {
	struct ut_msg_hdr h;
	int32_t tid;
	uint32_t cpu;
	uint64_t start_tsc;
	uint64_t end_tsc;
	uint64_t last_tsc;
	uint64_t start_ip, start_parent;
	uint64_t end_ip, end_parent;
	int32_t nice;
	uint32_t policy;
	uint32_t rt_prio;
	uint32_t flags; /* UT_LATF_* */
};
/* The max trace shows every task's events of the window, not the reporter's alone
 * (the wakeup tracers: waker and wakee; tid is then the wakee). */
#define UT_LATF_ALL_TASKS 0x1u

#define UT_NOTE_MAX 240
struct ut_msg_note {
	struct ut_msg_hdr h;
	int32_t tid;
	uint32_t _pad;
	char text[UT_NOTE_MAX]; /* NUL-terminated, one line without its newline */
};

/*
 * The sites of object `obj` (the process's index for it), in the order of the
 * process's site table; a large object takes several packets: `first` is the index
 * of offsets[0] among the object's `total` sites.  An object sent again (same obj)
 * replaces the old one; total 0 means it was unloaded.  path: the file (the real
 * path of the executable, not /proc/self/exe).  tsc: the process's TSC read when
 * it sent the object, mapped and (total 0) unmapped by then: older than every
 * event of an object it loaded since and younger than every event of one it
 * unloaded.
 */
/*
 * The function profiler's counts of one thread's table (runtime/profile.c): per
 * function (its address) and CPU, calls, total and squared durations in ns.  A
 * packet with `first` set starts the process's set anew (utracefs drops what it
 * had of it), for profile epoch `epoch`; the others add to it.
 */
#define UT_PROFILE_PER_MSG 512u
struct ut_prof_rec {
	uint64_t ip;
	uint32_t cpu;
	uint32_t _pad;
	uint64_t hits;
	uint64_t time_ns;
	uint64_t sq_ns; /* the sum of the squares of the durations */
};
struct ut_msg_profile {
	struct ut_msg_hdr h;
	uint32_t epoch;
	uint32_t first;
	uint32_t nr; /* records in this packet, <= UT_PROFILE_PER_MSG */
	uint32_t _pad;
	struct ut_prof_rec rec[]; /* nr of them: the packet is sizeof + nr * sizeof(rec) */
};

#define UT_SITES_PER_MSG 8192u
struct ut_msg_sites {
	struct ut_msg_hdr h;
	uint32_t obj;
	uint32_t total;
	uint32_t first;
	uint32_t nr; /* offsets in this packet, <= UT_SITES_PER_MSG */
	uint64_t base;
	uint64_t tsc;
	char path[256];
	uint32_t offsets[]; /* address - base */
};

/*
 * An object the dynamic loader mapped (loaded 1) or unmapped (loaded 0), whether
 * it has patch sites or not (libc, the loader, any uninstrumented library): all
 * utracefs needs to name its addresses without reading /proc/PID/maps, which a
 * slow utracefs may read only after the process exited.  base: the load bias;
 * path: the file's real path (loaded only); ino: its inode, which the file
 * utracefs opens must have (0: unknown).  tsc as in ut_msg_sites: read when sent,
 * after the (un)mapping, before any code of an object loaded since.
 */
struct ut_msg_object {
	struct ut_msg_hdr h;
	uint32_t loaded;
	uint32_t _pad;
	uint64_t base;
	uint64_t tsc;
	uint64_t ino;
	char path[256];
};

/*
 * The text at addr in the sender, which its bprint and bputs records name: a
 * packet of sizeof(struct ut_msg_printk_fmt) + strlen(text) + 1 bytes.  tsc: read
 * before the first record that uses it, so that a record finds the text its
 * process had there at its time (after an exec, or a dlclose and dlopen, the same
 * address may hold another text, sent again).
 */
#define UT_PRINTK_FMT_MAX 1024u /* text bytes with the NUL; a longer one is not sent */
struct ut_msg_printk_fmt {
	struct ut_msg_hdr h;
	uint64_t addr;
	uint64_t tsc;
	char text[]; /* NUL-terminated, the packet ends with the NUL */
};

#endif

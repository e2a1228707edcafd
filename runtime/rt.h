/* SPDX-License-Identifier: MIT */
/*
 * rt.h - libutrace internals shared by the runtime's files.
 *
 *   init.c       constructor, fork handling, the process-wide state below
 *   sites.c      finding patch sites (__patchable_function_entries of every object)
 *   patch.c      live patching (int3 + membarrier SYNC_CORE) and the SIGTRAP handler
 *   stubs.c      one stub page near each object: `jmp *slot`, slot = the trampoline
 *   route.c      which instances (instances/NAME) each site's function events go to
 *   control.c    the socket to utracefs, the control thread, attach/detach
 *   api.c        include/utrace/utrace.h and the trampoline's C slow paths
 *   events.c     include/utrace/event.h: trace events, their static keys, their writer
 *   evpid.c      set_event_pid: which threads record events in each instance
 *   sdt.c        <sys/sdt.h> probes (.note.stapsdt) as trace events, through xol.c
 *   rseq.c       each thread's rseq area: glibc's, or one registered by the runtime
 *   interpose.c  dlopen/dlclose, sigaction/signal, sigprocmask/pthread_sigmask,
 *                the waits with a mask (sigsuspend, ppoll, pselect, epoll_pwait),
 *                prctl/pthread_setname_np; for function_graph longjmp & co.,
 *                the unwinder entry points, backtrace, pthread_exit
 *   latency.c    irqsoff/preemptoff: sections, the pthread lock and condvar wrappers, the report
 *   wakeup.c     wakeup, wakeup_rt, wakeup_dl: futex-based wakes and their wakees
 *   graph.c      function_graph: the per-thread shadow return stack
 *   graph_ctx.c  function_graph across swapcontext/setcontext (coroutines)
 *   vfork.c      a vfork child runs untraced (with arch/x86_64/vfork.S)
 *   unwind.c     unwind information for the graph's landings (pthread_cancel)
 *   xol.c        probes at any instruction, run out of line (xol.h; with
 *                arch/x86_64/xol.S and the decoder arch/x86_64/insn.c)
 *   arch/x86_64/tramp.S   the function tracer's hot path
 *   arch/x86_64/graph.S   function_graph's entry and return trampolines
 *   arch/x86_64/vfork.S   vfork: the return address kept in a register
 *
 * Everything here is hidden (-fvisibility=hidden); only the public API and the
 * interposed libc functions are exported, with UT_EXPORT.
 */
#ifndef UT_RT_H
#define UT_RT_H

#include <elf.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ut_ctl.h"
#include "ut_ring.h"

#define UT_EXPORT __attribute__((visibility("default")))

/*
 * Per-thread state, initial-exec TLS.  tramp.S reads tid (offset 0), evflags
 * (offset 4) and rseq (offset 16), graph.S also guard (5), sigdepth (6) and the
 * shadow stack fields (24, 32, 36): keep them there.
 */
struct ut_thread {
	uint32_t tid;	    /* 0 until the thread's first event (then UT_MSG_TASK is sent) */
	uint8_t evflags;    /* UT_EVF_* of this thread right now */
	uint8_t guard;	    /* recursion guard of the slow paths */
	uint8_t sigdepth;   /* nesting of wrapped signal handlers */
	uint8_t sigblocked; /* all async signals blocked (outside handlers) */
	uint32_t printk_depth;
	struct rseq *rseq; /* the registered area events are written with, NULL: none (rseq.c) */
	struct ut_gframe *gframes; /* function_graph shadow stack, NULL until used (graph.c) */
	uint32_t gtop;		   /* frames in use */
	uint32_t goverrun;	   /* calls not traced because the stack was full */
	uint32_t gfuncs;	   /* open frames of set_graph_function functions */
	uint32_t gnotrace;	   /* open silent frames (set_graph_notrace functions) */
	/*
	 * set_ftrace_pid: this thread records while task_ok == ut_rt_task_gen and
	 * does not while task_no == ut_rt_task_gen; neither: ut_rt_task_check()
	 * decides for this generation (the trampolines' fast paths compare both).
	 */
	uint32_t task_ok; /* offset 48 (tramp.S, graph.S) */
	uint32_t task_no; /* offset 52 */
	/* the runtime's own work on this thread (ut_notrace_enter, below) */
	uint16_t notrace;		 /* nesting */
	uint8_t notrace_sig;		 /* sigdepth it began at: handlers inside are traced */
	uint8_t notrace_all;		 /* ... unless set: a vfork child (vfork.c) */
	uint32_t notrace_ok, notrace_no; /* task_ok, task_no before it, put back after */
	/*
	 * set_event_pid (evpid.c): ev_ok, the instance slots (bit slot % 64 of word
	 * slot / 64) this thread's events go to, is the answer for generation ev_gen
	 * of ut_rt_ev_gen.  A new thread or fork child keeps its creator's answer for
	 * the event-fork slots ev_fmask (ev_fok) until utracefs has seen it: the
	 * section's serial reached ev_pin (0: none).
	 */
	uint32_t ev_gen;
	uint32_t ev_pin;
	uint64_t ev_ok[2];
	uint64_t ev_fmask[2], ev_fok[2];
	/*
	 * The stack tracer (stack_tracer.c): ut_tramp_stack goes to C when rsp is
	 * below stk_limit or stk_epoch is not ut_stack_epoch; stk_top is the top of
	 * the thread's own stack (0: not known yet).
	 */
	uintptr_t stk_limit; /* offset 128 (stack.S) */
	uint32_t stk_epoch;  /* offset 136 */
	uint8_t stk_busy;
	uintptr_t stk_top;
	uintptr_t stk_lo; /* the lowest address of that stack (main thread: top - RLIMIT_STACK) */
	/*
	 * The latency tracers (latency.c): locks held (counted while one is on), in
	 * a section, since when and from where; lat_epoch: the run they were counted in.
	 */
	uint32_t lat_locks;
	uint32_t lat_epoch;
	uint8_t lat_in;
	struct ut_lat_sect {
		uint64_t start_tsc;		 /* when it began */
		uintptr_t start_ip, start_parent; /* its start entry: primitive, caller */
	} lat_sect;
	uintptr_t lat_stack; /* a handler's section: where its stack trace starts (the restorer) */
};
extern __thread struct ut_thread ut_thr;

/*
 * notrace, as the kernel's: what the runtime does on a program's thread (the
 * constructor, fork, dlopen's bookkeeping, the control thread's whole life) is not
 * traced, even when libc calls the program's own functions from there (a program
 * that defines free(), say).  The trampolines' fast paths already send a thread
 * whose task_ok/task_no is not the current generation to C (set_ftrace_pid), so
 * clearing both costs them nothing: ut_rt_task_check() and ut_rt_thread_first()
 * then say "not traced" without caching it, until ut_notrace_leave() puts the
 * cached answers back.  A wrapped signal handler that interrupts such work is
 * traced (its own answer is cached; the wrapper clears it when it returns).
 */
static inline int ut_notrace_now(void)
{
	return ut_thr.notrace && (ut_thr.sigdepth == ut_thr.notrace_sig || ut_thr.notrace_all);
}

static inline void ut_notrace_enter(void)
{
	if (!ut_thr.notrace++) {
		ut_thr.notrace_sig = ut_thr.sigdepth;
		ut_thr.notrace_ok = ut_thr.task_ok;
		ut_thr.notrace_no = ut_thr.task_no;
	}
	ut_thr.task_ok = ut_thr.task_no = 0;
}

static inline void ut_notrace_leave(void)
{
	if (ut_thr.notrace && !--ut_thr.notrace) {
		/* (an answer for an older generation is simply asked again) */
		ut_thr.task_ok = ut_thr.notrace_ok;
		ut_thr.task_no = ut_thr.notrace_no;
	}
}

/* ---- process-wide state read by the trampoline (init.c) --------------------------- */

extern struct ut_ctl *volatile ut_rt_ctl; /* the mapped area, NULL while detached */
extern uint32_t ut_rt_nr_cpus;		  /* min(ctl->nr_cpus, what the mapping holds) */
extern uint64_t ut_rt_area_size;	  /* bytes of the area mapped at ut_rt_ctl */
extern volatile uint32_t ut_rt_off;	  /* tracing_off() was called in this process */
/* Attached and the first selection of this connection applied (the sites patched):
 * what tracing_is_on() waits for besides tracing_on (control.c). */
extern volatile uint32_t ut_rt_applied;
/* Generation of the thread selection (set_ftrace_pid, control.c), never 0. */
extern volatile uint32_t ut_rt_task_gen;
/* Slow path: does this thread record (sets ut_thr.task_ok or task_no)? 1 or 0. */
int ut_rt_task_check(void);
/* Both together, for C paths (graph.c). */
static inline int ut_rt_task_ok(void)
{
	uint32_t g = __atomic_load_n(&ut_rt_task_gen, __ATOMIC_ACQUIRE);

	if (ut_thr.task_ok == g)
		return 1;
	if (ut_thr.task_no == g)
		return 0;
	return ut_rt_task_check();
}
extern volatile uint64_t ut_rt_lost;	  /* events not written: no rseq area (rseq.c) */
						  /* and no lock (api.c write_ev) */

/* How tramp.S saves the vector registers around C calls (computed from cpuid). */
enum { UT_XSAVE_FX = 0, UT_XSAVE = 1, UT_XSAVE_C = 2 };
extern uint64_t ut_rt_xsave_size; /* bytes of the save area */
extern uint32_t ut_rt_xsave_mode; /* UT_XSAVE_*: fxsave, xsave or xsavec */
extern uint32_t ut_rt_xsave_mask; /* XCR0 components saved (edx:eax = 0:mask) */

/* One lock for sites, objects, patching and the connection (never on the hot path). */
extern pthread_mutex_t ut_rt_lock;

/* ---- objects and sites (sites.c) --------------------------------------------------- */

enum ut_site_state {
	UT_SITE_NOP1X5 = 0, /* five 1-byte NOPs as GCC emits them (converted at once) */
	UT_SITE_NOP5,	    /* one 5-byte NOP 0f 1f 44 00 00 */
	UT_SITE_CALL,	    /* call rel32 to the object's stub */
	UT_SITE_JMP,	    /* function_graph: jmp rel32 to the site's own stub (stubs.c) */
	UT_SITE_PROBE,	    /* call rel32 to the object's probe stub (function probes, and
			     * sites routed to several instances: route.c) */
	UT_SITE_INST,	    /* call rel32 to the object's entry of one instance (route.c) */
	UT_SITE_MULTI,	    /* call rel32 to the object's entry of a set of spans (route.c) */
	UT_SITE_STACK,	    /* call rel32 to the object's stack entry: the stack tracer alone */
	UT_SITE_IJMP,	    /* jmp rel32 to the site's own entry of one function_graph
			     * instance (stubs.c, route.c) */
};

struct ut_site {
	uintptr_t addr;
	uint8_t state; /* enum ut_site_state, what the bytes are */
	uint8_t want;  /* what they are becoming (read by the SIGTRAP handler) */
	uint8_t busy;  /* in the current patch batch */
	uint8_t sel;   /* UT_SEL_* (ut_sel.h): patched only with UT_SEL_TRACE or _PROBE */
	uint8_t inst;  /* UT_SITE_INST: the instance slot its bytes call; UT_SITE_MULTI:
			* the stub page's entry of its set of spans (ut_stub_multi) */
	uint8_t inst_want; /* ... and the one they are becoming (the SIGTRAP handler) */
	uint8_t _pad[2];
};

#define UT_MAX_OBJS 1024u
#define UT_MAX_SITES (1u << 22)

struct ut_obj {
	uintptr_t base;		    /* load bias (dlpi_addr) */
	uintptr_t text_lo, text_hi; /* the executable PT_LOAD segments' span */
	uintptr_t stub;		    /* stub page, 0 if none could be placed near */
	uintptr_t gstub;	    /* per-site graph stubs (cap of them), 0: none */
	uint32_t first, nr;	    /* its sites: ut_sites[first .. first + nr), sorted */
	uint32_t cap;		    /* ut_sites[first .. first + cap) is this slot's range */
	uint32_t dead;		    /* unloaded (dlclose): its slot is for the next new one */
	uint32_t skipped;	    /* entries that were not patchable NOPs */
	char name[256];
};

extern struct ut_obj ut_objs[UT_MAX_OBJS];
extern volatile uint32_t ut_nr_objs;
extern struct ut_site *ut_sites; /* reserved once, never moves */
extern volatile uint32_t ut_nr_sites;

int ut_sites_init(void);
/*
 * Find new objects and their sites, converting GCC's NOPs and patching them for the
 * current tracer.  Returns how many objects were added.  Call with ut_rt_lock.
 */
int ut_sites_scan(void);
/* Mark objects that are no longer loaded as dead; how many.  Call with ut_rt_lock. */
int ut_sites_prune(void);
/*
 * Calls fn(addr, size, arg) for every allocated section called want of the ELF
 * file at path (addr: its link-time address).  Returns the number of sections or
 * a negative errno.  Reads section headers with pread: no libelf, no malloc.
 */
int ut_elf_sections(const char *path, const char *want, void (*fn)(uint64_t, uint64_t, void *),
		    void *arg);
/*
 * An ELF file open for its sections, read with pread (no libelf, no malloc):
 * ut_elf_open (0 or -errno) .. ut_elf_close.  ut_elf_find: the first section
 * called name, or NULL; ut_elf_read: its bytes (at most max; munmap them, sh_size
 * bytes), or NULL.
 */
struct ut_elf {
	int fd;
	Elf64_Shdr *sh;
	size_t shnum, sh_len;
	char *names;
	size_t names_len;
};
int ut_elf_open(struct ut_elf *e, const char *path);
void ut_elf_close(struct ut_elf *e);
const char *ut_elf_name(const struct ut_elf *e, const Elf64_Shdr *s);
const Elf64_Shdr *ut_elf_find(const struct ut_elf *e, const char *name);
void *ut_elf_read(const struct ut_elf *e, const Elf64_Shdr *s, size_t max);
/* The site at addr, or NULL; async-signal-safe. */
struct ut_site *ut_site_find(uintptr_t addr, struct ut_obj **objp);

/* ---- patching (patch.c) ---------------------------------------------------------- */

int ut_patch_init(void);
/*
 * Turn every live site into `want`: UT_SITE_NOP5, UT_SITE_CALL, or UT_SITE_JMP
 * (objects without per-site stubs get UT_SITE_CALL then), except the sites whose
 * sel lacks UT_SEL_TRACE, which become UT_SITE_NOP5.  While ut_probes_live, the
 * sites with UT_SEL_PROBE become UT_SITE_PROBE whatever want is.  Only the sites
 * whose bytes change are touched.  Call with ut_rt_lock.
 */
int ut_patch_all(enum ut_site_state want);
extern int ut_probes_live; /* function probes act (attached, ftrace_enabled) */
/* Convert the GCC NOP sites of objects [from_obj, ut_nr_objs) into 5-byte NOPs. */
int ut_patch_new_objs(uint32_t from_obj);
/*
 * Rewrite nr spots of live code (p[i].addr, sorted by address; 5 bytes, or len
 * when it is set: 1 for an int3 or the byte it replaced) with the breakpoint
 * protocol; a thread that meets one meanwhile continues at p[i].to (what the new
 * bytes do).  p must stay valid until the next batch after this one.  Call with
 * ut_rt_lock.  0, or -EPERM (nothing written) if a page could not be made writable.
 */
struct ut_poke {
	uintptr_t addr;
	uintptr_t to;
	unsigned char bytes[5];
};
int ut_poke_batch(const struct ut_poke *p, uint32_t nr);
/* The SIGTRAP handler the program installed (chained to), kept by interpose.c. */
int ut_sigtrap_set_chained(const struct sigaction *act, struct sigaction *old);
enum ut_site_state ut_patch_current_want(void);

/* ---- probes at any instruction (xol.c, xol.h) ------------------------------------- */

/*
 * The SIGTRAP handler met an int3 at addr: where the thread goes on (an XOL
 * probe's slot, or addr itself when the int3 is gone), 0 if no probe is there.
 */
uintptr_t ut_xol_trap(uintptr_t addr);
/* A SIGTRAP sent by tgkill: 1 if it was xol.c's question to this thread (answered). */
int ut_xol_tkill(void *ucontext);

/* ---- stubs (stubs.c) ------------------------------------------------------------- */

uintptr_t ut_stub_alloc(uintptr_t lo, uintptr_t hi);
/* The stub can be called from every byte of [lo, hi) (a new object in a dead one's slot). */
int ut_stub_reaches(uintptr_t stub, uintptr_t lo, uintptr_t hi);
void ut_stub_free(uintptr_t stub);
/* size bytes (read + write) placed within rel32 reach of [lo, hi), 0 if none (xol.c) */
uintptr_t ut_near_alloc(uintptr_t lo, uintptr_t hi, size_t size);
/* The per-site stubs (32 bytes each) of ut_sites[first .. first + nr), room for cap. */
uintptr_t ut_gstub_alloc(uintptr_t lo, uintptr_t hi, uint32_t first, uint32_t nr, uint32_t cap);
void ut_gstub_free(uintptr_t gstub, uint32_t cap);
#define UT_GSTUB_LEN 32u
#define UT_GSTUB_ILEN 16u /* a site's instance entry (UT_SITE_IJMP) */
/* Where site s of o jumps in state st (UT_SITE_JMP or UT_SITE_IJMP); o->gstub set. */
uintptr_t ut_gstub_entry(const struct ut_obj *o, const struct ut_site *s, uint8_t st);
void ut_tramp_function(void); /* tramp.S */
void ut_tramp_graph(void);    /* graph.S: from the object's stub */
void ut_tramp_graph_site(void); /* graph.S: from a site's own stub */
void ut_tramp_graph_isite(void); /* graph.S: from a site's instance entry */
void ut_tramp_probe(void);	/* probe.S: from an object's probe stub */
void ut_tramp_stack(void);	/* stack.S: the stack tracer's check alone */
#define UT_STACK_STUB_OFF 32u	/* its entry in the stub page (jmp *slot[SLOT_STACK]) */
#define UT_PROBE_STUB_OFF 16u	/* the probe stub's offset in the stub page */
/* tramp.S: ut_tramp_function after its load of the area, r11 = an instance's span */
void ut_tramp_function_inst(void);
/* The entry of instance slot (1 .. UT_INST_MAX - 1) in the stub page. */
#define UT_INST_STUB_OFF(slot) (64u + 16u * ((slot) - 1u))
/* Every stub's instance entries address the spans of area (NULL: detached). */
void ut_stubs_set_bases(struct ut_ctl *area);
/* The span of each instance slot (0: none), as the stubs' entries have them. */
extern uintptr_t ut_stub_bases[UT_INST_MAX];
/* tramp.S: from a stub page's entry of a set of spans, r11 = its {mask, top} */
void ut_tramp_function_multi(void);
/* The stub page's entries of sets of spans: up to UT_MULTI_MAX per object. */
#define UT_MULTI_STUB_OFF(j) (UT_INST_STUB_OFF(UT_INST_MAX) + 16u * (j))
#define UT_MULTI_MAX 188u
/* The entry (0 .. UT_MULTI_MAX - 1) of o's stub page that sends an event to the
 * instance slots of mask (bit slot - 1) and, with top, to the top level; -1 when
 * o's page has no room for one more set.  ut_rt_lock held. */
int ut_stub_multi(const struct ut_obj *o, uint64_t mask, int top);

/* ---- routing to instances (route.c) ---------------------------------------------- */

struct ut_sel_copy;
extern int ut_routes_live; /* ftrace_enabled: instances take function events */
/* The routes of every live site from section c (NULL: none); ut_rt_lock held. */
void ut_route_load(const struct ut_sel_copy *c, int top_records_all);
/* The sites first .. first + nr are new: no route until the selection says. */
void ut_route_clear(uint32_t first, uint32_t nr);
/* The function instances (bit slot - 1) site (index in ut_sites) feeds. */
uint64_t ut_route_mask(uint32_t site);
/* The function_graph instances (bit slot - 1) site feeds, 0 while ftrace_enabled is 0. */
uint64_t ut_route_gmask(uint32_t site);
/* Some instance runs function_graph here (a thread needs its shadow stack). */
int ut_route_graph_any(void);
/* The generation a graph frame keeps at its entry ... */
uint32_t ut_route_ggen(void);
/* ... and whether slot is still the graph instance it was at generation gen. */
int ut_route_graph_since(unsigned int slot, uint32_t gen);
/* Does the instance of slot record the calling thread (its pid lists)? */
int ut_route_records(unsigned int slot);
/* The slot a site of mask may call directly (UT_SITE_INST), or 0. */
unsigned int ut_route_single(uint64_t mask);
/* May a site of these masks (function, graph) jump to its instance entry (UT_SITE_IJMP)? */
int ut_route_graph_single(uint64_t fmask, uint64_t gmask);
/* What graph.S reads itself (route.c says what they mean). */
extern uint64_t *ut_route_masks;
extern uint8_t ut_route_gslot[UT_INST_MAX];
extern uint32_t ut_route_gen, ut_route_gone[UT_INST_MAX];
/* May a site of mask go through the several-spans entry (UT_SITE_MULTI)? */
int ut_route_multi(uint64_t mask);
/* Write the function event of frame into every instance site feeds (probe.c). */
void ut_route_write(uint32_t site, uintptr_t *frame, uintptr_t fp);
/* Where the object's stub sends calls now (the current tracer's trampoline). */
uintptr_t ut_stubs_tramp(void);
/* Point every stub (and the ones made later) at tramp.  Call with ut_rt_lock. */
void ut_stubs_set_tramp(void (*tramp)(void));

/* ---- control (control.c) --------------------------------------------------------- */

int ut_control_start(void);
void ut_control_after_fork_child(void);
int ut_send(const void *msg, size_t len); /* any thread; 0 or -errno */
void ut_send_task(uint32_t tid);
/* A packet that may be large: waits for room (SO_SNDTIMEO bounds it); 0 or -errno. */
int ut_send_wait(const void *msg, size_t len);
void ut_send_maps(void);
/* The executable's real path, as HELLO named it. */
const char *ut_exe_path(void);
/* ---- trace_printk formats (printk_fmt.c) ------------------------------------------- */

/*
 * Whether utracefs knows the text at this address (sent now if it was not): false
 * when it cannot be told at once, and the caller then writes a print record.
 */
bool ut_printk_fmt_known(const char *text);
/* Every text is to be sent again when next used (a new connection, an unloaded object). */
void ut_printk_fmt_forget(void);

/* A line for utracefs's console (UT_MSG_NOTE), printf-style; any thread. */
void ut_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Send UT_MSG_SITES for every object utracefs does not know as it is (new, gone). */
void ut_sites_announce(void);

/* ---- objects (objects.c) --------------------------------------------------------- */

/*
 * Send UT_MSG_OBJECT for every object the loader mapped or unmapped since the
 * last call (fresh: utracefs knows none of them, a new connection).
 */
void ut_objects_announce(int fresh);
/* New objects were found (ut_rt_lock held): their selection is not known yet. */
void ut_sel_objects_added(void);
/* After announcing them: under a selection, wait (bounded) until it covers them. */
void ut_sel_wait_objects(void);

/* The selection (ut_sel.h) as last read by the control thread. */
extern uint8_t ut_sel_default;		/* sel of sites utracefs does not know yet */
extern volatile uint32_t ut_sel_graph_funcs; /* set_graph_function is not empty */

/* ---- interposition (interpose.c) --------------------------------------------------- */

void *ut_real(const char *name);
/* Look the wrapped functions up now (the constructor, before anything else). */
void ut_real_init(void);
/* Break on the dynamic loader's debugger hook (after the SIGTRAP handler is set). */
void ut_dl_hook_install(void);
/* The SIGTRAP handler met an int3 at addr: 1 if it was the hook's (then handled). */
int ut_dl_hook_hit(uintptr_t addr, void *ucontext);
int ut_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
int ut_real_sigprocmask(int how, const sigset_t *set, sigset_t *old);
/* Recompute ut_thr.evflags from the signal state. */
void ut_evflags_update(void);
uint8_t ut_sigblocked_now(void);

/* ---- rseq (rseq.c) ---------------------------------------------------------------- */

struct rseq;
/* Choose (and if needed register) this thread's area; sets ut_thr.rseq.  Slow path. */
struct rseq *ut_rseq_thread_init(void);
/* common/arch/x86_64/rb_write.S: ut_rb_write with the caller's rseq area, reporting
 * the wpos committed (graph.c) */
int ut_rb_write_post(void *area, unsigned int nr_cpus, struct ut_ev *ev, struct rseq *rs,
		     uint64_t *post);
/* ut_thr.rseq, for ut_rb_write (rb_write.S) when glibc registered no area. */
struct rseq *ut_rb_rseq_fallback(void);

/* ---- events from C (api.c) ------------------------------------------------------- */

/*
 * Write ev into the current CPU's ring of the area at `area` (ctl's, or an
 * instance slot's: ut_rt_slot_area), with rseq or, in locked mode, the ring's
 * lock; an event that cannot be written is counted in ut_rt_lost.
 */
void ut_rt_write_ev(struct ut_ctl *ctl, void *area, struct ut_ev *ev);

/*
 * The area of tracing instance slot `slot` (0: the top level, at ctl itself): its
 * span, ut_inst_area (ut_ring.h).  NULL when this process has not mapped that far.
 */
static inline void *ut_rt_slot_area(struct ut_ctl *ctl, unsigned int slot)
{
	if (slot >= UT_INST_MAX ||
	    (uint64_t)(slot + 1) * ut_inst_span(ut_rt_nr_cpus) > ut_rt_area_size)
		return NULL;
	return ut_inst_area(ctl, ut_rt_nr_cpus, slot);
}

uint32_t ut_rt_thread_first(void); /* trampoline slow path: returns the tid or 0 */
/* Name this thread now (its tid, announced to utracefs): a fork child's thread. */
void ut_rt_thread_register(void);
/* The stack event of frame = &[site + 5, parent]; fp: rbp at the function's entry;
 * ctl: the span (instance) it goes to. */
void ut_rt_stack_event(uintptr_t *frame, uintptr_t fp, struct ut_ctl *ctl);
/* The caller chain of frame's function into ips (as ut_rt_stack_event takes it). */
int ut_rt_stack_ips(uint64_t *ips, uintptr_t *frame, uintptr_t fp);

/* ---- the latency tracers (latency.c) ---------------------------------------------- */

/* A latency tracer is on: UT_LAT_* of the sections it measures (0: off). */
extern uint32_t ut_lat_mode;
/* The lock wrappers' one test: a tracer that counts locks is on. */
extern int ut_lat_locks_live;
/* function-trace under a latency tracer: ut_rt_task_check says no outside a section. */
extern int ut_lat_gate;
/* The control thread applies ctl's tracer (ut_rt_lock held). */
void ut_lat_apply(const struct ut_ctl *ctl);
/* Is this thread inside a section of the current run (the gate opens for it)? */
int ut_lat_recording(void);
/*
 * The thread's signal or lock state changed (ut_lat_mode set): start or end its
 * section.  ip: the primitive that changed it (sigprocmask, the handler, ...),
 * parent: its caller (0: none).
 */
void ut_lat_update(uintptr_t ip, uintptr_t parent);
/*
 * A section (or, for a tracer built on this core, any measured stretch) ended at
 * end, longer than the maximum: write its end entry "ip <-parent", then extra if
 * any (the wakeup tracers' switch entry), and its stack, send UT_MSG_LATENCY
 * (flags: UT_LATF_*) and wait (bounded) until utracefs has swapped it into the max
 * buffer.  Called with ut_thr.guard set.
 */
void ut_lat_report(struct ut_ctl *ctl, const struct ut_lat_sect *sect, uint64_t end, uintptr_t ip,
		   uintptr_t parent, uint32_t flags, struct ut_ev *extra);
/* Fill the lock wrappers' pointers (the constructor). */
void ut_lat_resolve(void);
/* Every thread asks set_ftrace_pid's question again (a new generation). */
void ut_rt_task_invalidate(void);
/* The wrappers' one test: a latency tracer that counts locks or wakes is on. */
extern int ut_lat_wraps;
/* The thread records function entries from now on (open: a section began) or not. */
void ut_lat_gate_set(int open);
/* A function entry "ip <-parent" (ip: the primitive, as a site's). */
void ut_lat_write_func(struct ut_ctl *ctl, uintptr_t ip, uintptr_t parent);
/* A stack event from parent's function up (parent 0: a handler's section, ut_thr.lat_stack). */
void ut_lat_write_stack(struct ut_ctl *ctl, uintptr_t parent);
/* Is a latency of delta TSC ticks to be reported (tracing_thresh, tracing_max_latency)? */
int ut_lat_exceeds(const struct ut_ctl *ctl, uint64_t delta);
/* A wakee's wait (wakeup.c) opens (1) or closes (0) its function-trace gate. */
void ut_lat_wait_gate(int open);
/* Thread tid's nice, policy and rt_prio (the latency header's task line). */
void ut_lat_sched(int32_t tid, int32_t *nice, uint32_t *policy, uint32_t *rt_prio);
/* Is a call that returns to ret the program's (not libutrace's own, not its own work)? */
int ut_lat_is_program(uintptr_t ret);
/* The GLIBC_2.3.2 version of a pthread_cond_* function (what programs call today). */
void *ut_lat_cond_real(const char *name);

/* ---- the wakeup tracers (wakeup.c) ------------------------------------------------- */

/* UT_LAT_WAKEUP* of the tracer that is on, 0: off (the waits' and wakes' test). */
extern uint32_t ut_wake_mode;
/* A thread waiting in a wrapped primitive: on its stack, listed while it waits. */
struct ut_wake_wait {
	uintptr_t obj;	/* the object waited on (condvar, mutex, semaphore, rwlock) */
	uint64_t stamp; /* TSC of the wake that chose it, 0: not woken yet */
	int32_t tid;
	int32_t waker;	    /* the waker's tid */
	uint32_t cpu;	    /* where it waited from (the wake entry's [cpu]) */
	uint8_t prio;	    /* the kernel's prio of the wakee ... */
	uint8_t waker_prio; /* ... and of the waker */
};
/* The control thread applies the tracer (mode: UT_LAT_WAKEUP* or 0). */
void ut_wake_apply(uint32_t mode);
/* Before a wait on obj: list the thread if the tracer measures it; returns whether. */
int ut_wake_begin(struct ut_wake_wait *w, const void *obj);
/* After it (woken: it returned because it was, not by a timeout or an error). */
void ut_wake_end(struct ut_wake_wait *w, int woken, uintptr_t ip, uintptr_t ret);
/* Before a wake of obj's oldest waiter not yet woken (all: every waiter). */
void ut_wake_signal(const void *obj, int all, uintptr_t ip, uintptr_t ret);
/* Fill the wake wrappers' pointers (the constructor). */
void ut_wake_resolve(void);
/* In a fork's child: the parent's other threads wait no more (and may have held a slot). */
void ut_wake_fork_child(void);

/* ---- the stack tracer (stack_tracer.c) -------------------------------------------- */

/* stack_tracer_enabled (and ftrace_enabled): sites with UT_SEL_STACK check the stack */
extern int ut_stack_live;
/* stack_trace_filter is not empty: only sites with UT_SEL_STACK check */
extern int ut_stack_filtered;
/* Does site s check the stack now? */
#define ut_stack_site(s) (ut_stack_live && (!ut_stack_filtered || ((s)->sel & UT_SEL_STACK)))
/* ut_ctl.stack_epoch as the control thread last applied it (stack.S reads it) */
extern uint32_t ut_stack_epoch;
/* The control thread applies ctl's stack tracer fields (ut_rt_lock held). */
void ut_stack_apply(const struct ut_ctl *ctl);
/* Check the stack at a traced function's entry (frame = &[site + 5, parent]). */
void ut_stack_check(uintptr_t *frame, uintptr_t fp);
/* A new thread: the top of its stack from its attributes. */
void ut_stack_thread_start(void);
/* The top and lowest address of the thread's own stack, which sp is on, found
 * once (ut_thr.stk_top, stk_lo): async-signal-safe. */
void ut_stack_own(uintptr_t sp);
/* The function event (and its stack with func_stack_trace) from C, any write mode:
 * tramp.S for a thread without rseq in locked mode, probe.c. */
void ut_rt_func_locked(uintptr_t *frame, uintptr_t fp, struct ut_ctl *ctl);
/*
 * Does the instance of slot (> 0; ictl: its control page) record here: its
 * tracing_on, or what its traceon/traceoff probe made it in this process until
 * utracefs has written tracing_on again (probe.c)?
 */
int ut_rt_inst_on(const struct ut_ctl *ictl, unsigned int slot);
void utrace_tracing_on(void);  /* the public API: this process at once, utracefs after */
void utrace_tracing_off(void);

/* ---- trace events the program defines (events.c) ------------------------------------ */

/* Find the events of objects not scanned yet (relocated ones only). */
void ut_events_scan(void);
/* Forget the events of objects no longer loaded; ut_rt_lock held. */
void ut_events_prune(void);
/* Send UT_MSG_EVENT for every event utracefs was not told of on this connection. */
void ut_events_announce(void);
/* A new connection: the events memfd (fd, taken; -1: none), then scan and announce. */
void ut_events_attach(int fd);
/* Every static key after the events memfd; the control thread, ut_rt_lock held. */
void ut_events_apply(void);
/* Every key off, the memfd unmapped (the daemon went away). */
void ut_events_detach(void);
/* After dlopen() returned: the new objects' events. */
void ut_events_dl_opened(void);
struct utrace_event;
/*
 * utrace_event_write()'s body.  fast: the caller saved no vector state (an SDT
 * probe's fast path, xol.h): 1 and nothing written where the write needs more
 * (the thread's first event, event pid lists to reload, a filter on COMM, no
 * rseq); 0
 * otherwise.
 */
int ut_event_write(struct utrace_event *ev, void *buf, unsigned int size, int fast);

/* ---- which threads record events (evpid.c) ----------------------------------------------- */

/* Generation of the event pid lists here; 0: none, every thread records events. */
extern volatile uint32_t ut_rt_ev_gen;
/* The writer's slow path: this thread's ut_thr.ev_ok for generation gen. */
void ut_evpid_refresh(uint32_t gen);
/* The lists of section c (NULL: no selection; found: c has our section); the control
 * thread, ut_rt_lock held. */
void ut_evpid_load(const struct ut_sel_copy *c, int found);
/* What a new thread takes from its creator (ut_evpid_capture, in the creator). */
struct ut_evpid_from {
	int32_t ptid;	  /* the creator; 0: nobody follows forks, nothing to say */
	uint64_t fmask[2]; /* event-fork slots */
	uint64_t ok[2];	  /* the creator's answer there */
};
void ut_evpid_capture(struct ut_evpid_from *f);
void ut_evpid_thread_start(const struct ut_evpid_from *f); /* in the new thread */
void ut_evpid_thread_exit(void);			 /* the calling thread ends */
void ut_evpid_fork_prepare(void);			 /* fork(): before, in the parent */
void ut_evpid_fork_parent(void);			 /* after, in the parent */
void ut_evpid_fork_child(void);				 /* after, in the child */
/* HELLO's ptid: the thread that forked this process, 0 when it was not forked. */
int32_t ut_evpid_forked_by(void);
/* ---- SDT probes: <sys/sdt.h> notes as trace events (sdt.c) -------------------------------- */

struct utrace_event;
struct ut_sdt_probe;
struct dl_phdr_info;
/*
 * Read the stapsdt notes of the object info describes (its file at path) and call
 * add(ev, probe, arg) for each probe they describe whose site is in its code and
 * semaphore, if any, in its data; how many notes.  ut_rt_lock held.
 */
int ut_sdt_scan(const char *path, const struct dl_phdr_info *info,
		void (*add)(struct utrace_event *ev, struct ut_sdt_probe *p, void *arg), void *arg);
/* Arm (on) or disarm the probe's site and count its semaphore; ut_rt_lock held. */
void ut_sdt_set(struct ut_sdt_probe *p, int on);
/* Its object was unmapped: forget it, writing nothing; ut_rt_lock held. */
void ut_sdt_forget(struct ut_sdt_probe *p);

/* ---- the runtime's own events: process and thread lifecycle (lifecycle.c) -------------- */

void ut_life_exec(void);		  /* the runtime started in a new image */
void ut_life_forked(pid_t child);	  /* fork() returned child in the parent */
void ut_life_thread_exit(void);	  /* the calling thread ends */
void ut_life_process_exit(void);	  /* exit() */
/* pthread_create: replace start routine and argument by the announcing wrapper
 * (unchanged when memory is short); unwrap when pthread_create failed. */
void ut_life_thread_wrap(void *(**fn)(void *), void **arg);
void ut_life_thread_unwrap(void *arg);
bool ut_life_rename_wanted(void);
void ut_life_comm_get(char old[16]);
void ut_life_renamed(const char old[16]); /* the calling thread's comm changed */
bool ut_life_signal_wanted(int sig);
/* signal_generate: code SI_USER, SI_TKILL or SI_QUEUE; group: to the process */
void ut_life_signal(int sig, int code, pid_t pid, int group);
void ut_life_deliver(int sig, const siginfo_t *si, unsigned long handler, unsigned long flags);

/* ---- function probes (probe.c) ----------------------------------------------------- */

struct ut_sel_probe;
/* Replace the probe table with the nr entries of p (the process's section), and
 * those of the current table on the sites of objects i with keep[i] (NULL: none);
 * the control thread, ut_rt_lock held.  0 or -ENOMEM (then the table is empty). */
int ut_probes_set(const struct ut_sel_probe *p, uint32_t nr, const uint8_t *keep);
/* A fork child (one thread): no other thread is reading the table. */
void ut_probes_after_fork_child(void);
/* probe.S: frame = &[site + 5, parent], fp = rbp; acts, returns where to go on. */
uintptr_t ut_rt_probe_hit(uintptr_t *frame, uintptr_t fp);

/* ---- stack traces that cannot fault (stackwalk.c) ---------------------------------- */

/*
 * The return addresses of the frame-pointer chain from fp (rbp of a function's
 * entry: its caller's frame) into ips, at most max; every read is validated, the
 * walk stops at anything that is not a frame.  sp: an address below fp on the same
 * stack (the caller's own stack pointer).  Returns how many; async-signal-safe.
 */
int ut_stack_walk_fp(uint64_t *ips, int max, uintptr_t fp, uintptr_t sp);

/* ---- function_graph (graph.c, graph.S) ------------------------------------------ */

struct ut_gframe;
void ut_return_to_handler(void);
void ut_graph_init(void);
void ut_graph_after_fork_child(void);
void ut_graph_entry(uintptr_t *slot, uintptr_t ip, uintptr_t landing);
/*
 * probe.c: the entry of site (index in ut_sites) for the function_graph instances
 * it feeds, and for the top level's graph too when top is set; slot = where the
 * return address is, ip = site + 5.
 */
void ut_graph_entry_routed(uintptr_t *slot, uintptr_t ip, uint32_t site, int top);
/* graph.S's entry of one instance, when its fast path cannot: the same, landing its own. */
void ut_graph_entry_inst(uintptr_t *slot, uintptr_t ip, uintptr_t landing);
int ut_graph_return(uintptr_t *regs);
/* A wrapped signal handler starts (returns a marker to pass to leave) and ends. */
int ut_graph_sig_enter(void *ucontext, uint8_t old_sigdepth, uint8_t old_sigblocked);
void ut_graph_sig_leave(int marker);
uintptr_t ut_graph_jmpbuf_sp(const void *env);
void ut_graph_longjmp(uintptr_t sp);
void ut_graph_restore_all(void);
/* The original return address for val read at slot (a landing), else val; read only. */
uintptr_t ut_graph_real_ret(uintptr_t slot, uintptr_t val);
void ut_graph_rehijack(uintptr_t sp);
void ut_graph_close_all(void);
/*
 * Unwind information for the landings (unwind.c): glibc's cancellation unwinder
 * goes on through them.  A buffer of ut_unwind_size(nr) bytes (8-aligned, kept
 * until ut_unwind_remove) for the nr site stubs at g.
 */
#define UT_UNWIND_OBJ 128u /* room for libgcc's struct object at the buffer's start */
void ut_unwind_init(void);
size_t ut_unwind_size(uint32_t nr);
void ut_unwind_add_gstubs(void *buf, uintptr_t g, uint32_t nr);
void ut_unwind_remove(void *buf);
/* The program cancels a thread: register the records (unwind.c says why not before). */
void ut_unwind_arm(void);
/* Context switches (graph_ctx.c): swapcontext(save, to) before and after the
 * switch, setcontext(to) with to's stack pointer. */
void ut_graph_ctx_leave(const void *save, const void *to);
void ut_graph_ctx_resume(const void *save);
void ut_graph_ctx_jump(const void *to, uintptr_t sp);

#endif

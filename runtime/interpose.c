// SPDX-License-Identifier: MIT
/*
 * interpose.c - the libc functions the runtime wraps.
 *
 *  - dlopen/dlclose: new objects bring new sites and new symbols (UT_MSG_MAPS and
 *    UT_MSG_OBJECT tell utracefs, then UT_MSG_SITES sends their sites); objects
 *    that went away are never patched again (UT_MSG_SITES with total 0,
 *    UT_MSG_OBJECT unloaded).  The sites must be live
 *    before any code of the new objects runs, their constructors included, which
 *    run inside dlopen(): so the runtime also breaks on the dynamic loader's
 *    debugger hook (ut_dl_hook_install, below), which the loader calls once the
 *    new objects (the one named and those it needs) are mapped, before they are
 *    relocated and initialized; the wrappers of dlopen/dlclose stay as the
 *    fallback where the hook cannot be set.
 *  - sigaction/signal: user handlers run inside a wrapper that marks the thread
 *    "inside a signal handler" (UT_EVF_SIGHANDLER, 'h').  SIGTRAP stays ours: the
 *    program's disposition is remembered and chained to (patch.c).
 *  - prctl(PR_SET_NAME)/pthread_setname_np (own thread): a new comm is announced to
 *    utracefs (UT_MSG_TASK) once the thread has traced anything.
 *  - sigprocmask/pthread_sigmask: track "all async signals blocked"
 *    (UT_EVF_SIGBLOCKED, 'd'), and never let SIGTRAP be blocked (a blocked
 *    synchronous SIGTRAP from our int3 would kill the thread).  Under irqsoff
 *    the same change, and a wrapped handler's entry and exit, start and end the
 *    thread's sections (latency.c, which also wraps the pthread locks).
 *  - sigsuspend, ppoll (and __ppoll_chk), pselect, epoll_pwait, epoll_pwait2: the
 *    mask they wait with is also the mask a handler that interrupts the wait runs
 *    with, so SIGTRAP is taken out of it as well, and out of the mask a thread
 *    starts with (pthread_attr_setsigmask_np).  (sigwait, sigwaitinfo,
 *    sigtimedwait and signalfd take sets of signals to receive, not masks: no
 *    handler runs with them, and they are left alone.)
 *
 *  - function_graph (graph.c): a wrapped handler pushes a marker on the thread's
 *    shadow stack and pops back to it when it returns; longjmp, _longjmp,
 *    siglongjmp and __longjmp_chk close the frames they jump over first (and leave
 *    the handlers they jump out of: the thread is no longer "in a handler");
 *    _Unwind_RaiseException, _Unwind_Resume, _Unwind_Resume_or_Rethrow,
 *    _Unwind_ForcedUnwind, _Unwind_Backtrace and backtrace() see the original
 *    return addresses (put back for the call, hijacked again after the ones that
 *    return); __cxa_begin_catch closes the frames the exception unwound;
 *    pthread_exit restores them all and leaves the frames to the thread's end;
 *    swapcontext and setcontext fence and keep each context's frames (graph_ctx.c).
 *
 * Limitation: with the function tracer (or a handler entered before the graph
 * tracer was on), a handler left with siglongjmp() leaves the thread marked as
 * inside a handler until the next wrapped handler returns.  glibc's cancellation
 * unwinder calls libgcc directly and is not seen here: unwind.c lets it through
 * the landings.
 *
 * Limitation: dlopen() sees libutrace as its caller, so the program's own
 * DT_RUNPATH is not searched for relative names (uftrace has the same property).
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "rt.h"

static struct sigaction user_act[NSIG]; /* the program's handlers that we wrap */

/*
 * The next definition after ours.  When libc comes before libutrace.so in the
 * search order (LD_PRELOAD=libc.so.6:libutrace.so) there is none after us, and
 * then the first one in the global scope is libc's (it precedes ours).
 */
static void *lookup_next(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	return fn ? fn : dlsym(RTLD_DEFAULT, name);
}

/*
 * Looked up once by the constructor (ut_real_init): dlsym() takes the dynamic
 * loader's lock, which a thread inside dlopen() holds while the new library's
 * constructors run; a thread such a constructor starts and waits for must never
 * need it.  (The unwinder's functions may come later, with libgcc_s.)
 */
static struct {
	const char *name;
	void *fn;
} real_cache[] = {
    {"sigaction"},  {"pthread_sigmask"},    {"dlopen"},	   {"dlclose"},
    {"prctl"},	    {"pthread_setname_np"}, {"longjmp"},   {"_longjmp"},
    {"siglongjmp"}, {"__longjmp_chk"},	    {"backtrace"}, {"swapcontext"},
    {"setcontext"}, {"pthread_exit"},	    {"sigsuspend"}, {"ppoll"},
    {"__ppoll_chk"}, {"pselect"},	    {"epoll_pwait"}, {"epoll_pwait2"},
    {"pthread_cancel"}, {"fork"},	    {"pthread_create"}, {"kill"},
    {"tgkill"},	    {"raise"},		    {"pthread_kill"}, {"sigqueue"},
};

void ut_real_init(void)
{
	for (size_t i = 0; i < sizeof(real_cache) / sizeof(real_cache[0]); i++)
		real_cache[i].fn = lookup_next(real_cache[i].name);
}

void *ut_real(const char *name)
{
	for (size_t i = 0; i < sizeof(real_cache) / sizeof(real_cache[0]); i++)
		if (real_cache[i].fn && !strcmp(real_cache[i].name, name))
			return real_cache[i].fn;
	return lookup_next(name);
}

#define REAL(type, name)                                                                           \
	static type real_##name;                                                                   \
	if (!real_##name)                                                                          \
		real_##name = (type)ut_real(#name);

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef int (*sigmask_fn)(int, const sigset_t *, sigset_t *);
typedef void *(*dlopen_fn)(const char *, int);
typedef int (*dlclose_fn)(void *);
typedef int (*prctl_fn)(int, unsigned long, unsigned long, unsigned long, unsigned long);
typedef int (*setname_fn)(pthread_t, const char *);

int ut_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	REAL(sigaction_fn, sigaction);
	return real_sigaction(sig, act, old);
}

int ut_real_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	REAL(sigmask_fn, pthread_sigmask);
	return real_pthread_sigmask(how, set, old);
}

/* Every signal that can arrive asynchronously and can be blocked is blocked. */
static uint8_t all_async_blocked(const sigset_t *m)
{
	for (int s = 1; s < NSIG; s++) {
		switch (s) {
		case SIGKILL:
		case SIGSTOP:
		case SIGSEGV:
		case SIGBUS:
		case SIGILL:
		case SIGFPE:
		case SIGTRAP:
		case SIGSYS:
		case 32:
		case 33: /* glibc's own */
			continue;
		}
		if (!sigismember(m, s))
			return 0;
	}
	return 1;
}

uint8_t ut_sigblocked_now(void)
{
	sigset_t cur;

	if (ut_real_sigprocmask(SIG_BLOCK, NULL, &cur))
		return 0;
	return all_async_blocked(&cur);
}

void ut_evflags_update(void)
{
	ut_thr.evflags =
	    (ut_thr.sigdepth ? UT_EVF_SIGHANDLER : 0) | (ut_thr.sigblocked ? UT_EVF_SIGBLOCKED : 0);
}

static void wrap_handler(int sig, siginfo_t *si, void *ucv)
{
	struct sigaction a = user_act[sig];
	ucontext_t *uc = ucv;
	uint8_t old_blocked = ut_thr.sigblocked;
	sigset_t m = uc->uc_sigmask;

	if (a.sa_flags & SA_RESETHAND) /* the kernel has reset it already */
		user_act[sig].sa_handler = SIG_DFL;
	sigorset(&m, &m, &a.sa_mask);
	if (!(a.sa_flags & SA_NODEFER))
		sigaddset(&m, sig);
	uint8_t old_depth = ut_thr.sigdepth;
	int marker = ut_graph_sig_enter(ucv, old_depth, old_blocked);

	/* the stack tracer checks every call in a handler: it may run on another stack */
	uintptr_t old_limit = ut_thr.stk_limit;

	ut_thr.stk_limit = UINTPTR_MAX;
	ut_thr.sigdepth++;
	ut_thr.sigblocked = all_async_blocked(&m);
	ut_evflags_update();
	/* irqsoff: a handler runs as a hard irq does, a section of its own (latency.c) */
	if (ut_lat_mode)
		ut_lat_update((uintptr_t)a.sa_handler, 0);
	ut_life_deliver(sig, si, (unsigned long)a.sa_handler, (unsigned long)a.sa_flags);
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, ucv);
	else if (a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN)
		a.sa_handler(sig);
	ut_graph_sig_leave(marker);
	ut_thr.stk_limit = old_limit;
	ut_thr.sigdepth = old_depth;
	ut_thr.sigblocked = old_blocked;
	ut_evflags_update();
	if (ut_lat_mode) {
		/* its stack: from the signal's return into what it interrupted */
		ut_thr.lat_stack = (uintptr_t)__builtin_return_address(0);
		ut_lat_update((uintptr_t)a.sa_handler, 0);
		ut_thr.lat_stack = 0;
	}
	if (ut_thr.notrace) /* back in the runtime's own work: its answer is not the handler's */
		ut_thr.task_ok = ut_thr.task_no = 0;
}

UT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction prev = sig > 0 && sig < NSIG ? user_act[sig] : (struct sigaction){0};
	struct sigaction w, k;
	int ret;

	if (sig == SIGTRAP)
		return ut_sigtrap_set_chained(act, old);
	if (sig <= 0 || sig >= NSIG || !act || act->sa_handler == SIG_DFL ||
	    act->sa_handler == SIG_IGN) {
		ret = ut_real_sigaction(sig, act, &k);
	} else {
		user_act[sig] = *act;
		w = *act;
		w.sa_sigaction = wrap_handler;
		w.sa_flags |= SA_SIGINFO;
		/* the handler may run traced code while a site is an int3: keep SIGTRAP open */
		sigdelset(&w.sa_mask, SIGTRAP);
		ret = ut_real_sigaction(sig, &w, &k);
	}
	if (ret == 0 && old)
		*old = k.sa_sigaction == wrap_handler ? prev : k;
	return ret;
}

UT_EXPORT __sighandler_t signal(int sig, __sighandler_t handler)
{
	struct sigaction sa = {.sa_handler = handler, .sa_flags = SA_RESTART}, old;

	/* BSD semantics, as glibc's signal() */
	sigemptyset(&sa.sa_mask);
	if (sig > 0 && sig < NSIG)
		sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* The mask after how/set applied to old. */
static void mask_after(int how, const sigset_t *set, const sigset_t *old, sigset_t *out)
{
	if (how == SIG_SETMASK) {
		*out = *set;
	} else if (how == SIG_BLOCK) {
		sigorset(out, old, set);
	} else {
		*out = *old;
		for (int s = 1; s < NSIG; s++)
			if (sigismember(set, s))
				sigdelset(out, s);
	}
}

/* ip: the wrapper the program called, caller: where it returns (latency.c's section edges) */
static int set_mask(int how, const sigset_t *set, sigset_t *old, uintptr_t ip, uintptr_t caller)
{
	sigset_t s, o, now;
	int ret;

	if (set && how != SIG_UNBLOCK) {
		s = *set;
		sigdelset(&s, SIGTRAP);
		set = &s;
	}
	ret = ut_real_sigprocmask(how, set, &o);
	if (ret == 0) {
		if (set) {
			mask_after(how, set, &o, &now);
			ut_thr.sigblocked = all_async_blocked(&now);
			ut_evflags_update();
			if (ut_lat_mode)
				ut_lat_update(ip, caller);
		}
		if (old)
			*old = o;
	}
	return ret;
}

UT_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return set_mask(how, set, old, (uintptr_t)pthread_sigmask,
			(uintptr_t)__builtin_return_address(0));
}

UT_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int ret = set_mask(how, set, old, (uintptr_t)sigprocmask,
			   (uintptr_t)__builtin_return_address(0));

	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

/*
 * The waits that install a mask of their own for as long as they wait: a handler
 * that interrupts the wait runs with that mask (plus its sa_mask), so SIGTRAP must
 * not be in it either; nor in the mask a new thread starts with.
 */
static const sigset_t *without_sigtrap(const sigset_t *set, sigset_t *buf)
{
	if (!set || !sigismember(set, SIGTRAP))
		return set;
	*buf = *set;
	sigdelset(buf, SIGTRAP);
	return buf;
}

UT_EXPORT int pthread_attr_setsigmask_np(pthread_attr_t *attr, const sigset_t *set)
{
	typedef int (*fn)(pthread_attr_t *, const sigset_t *);
	REAL(fn, pthread_attr_setsigmask_np);
	sigset_t b;

	return real_pthread_attr_setsigmask_np(attr, without_sigtrap(set, &b));
}

UT_EXPORT int sigsuspend(const sigset_t *set)
{
	typedef int (*fn)(const sigset_t *);
	REAL(fn, sigsuspend);
	sigset_t b;

	return real_sigsuspend(without_sigtrap(set, &b));
}

UT_EXPORT int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *ts,
		    const sigset_t *set)
{
	typedef int (*fn)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
	REAL(fn, ppoll);
	sigset_t b;

	return real_ppoll(fds, nfds, ts, without_sigtrap(set, &b));
}

/* ppoll with _FORTIFY_SOURCE */
UT_EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *ts,
			  const sigset_t *set, size_t fdslen)
{
	typedef int (*fn)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *,
			  size_t);
	REAL(fn, __ppoll_chk);
	sigset_t b;

	return real___ppoll_chk(fds, nfds, ts, without_sigtrap(set, &b), fdslen);
}

UT_EXPORT int pselect(int n, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *ts,
		      const sigset_t *set)
{
	typedef int (*fn)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
			  const sigset_t *);
	REAL(fn, pselect);
	sigset_t b;

	return real_pselect(n, rd, wr, ex, ts, without_sigtrap(set, &b));
}

UT_EXPORT int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout,
			  const sigset_t *set)
{
	typedef int (*fn)(int, struct epoll_event *, int, int, const sigset_t *);
	REAL(fn, epoll_pwait);
	sigset_t b;

	return real_epoll_pwait(epfd, ev, max, timeout, without_sigtrap(set, &b));
}

UT_EXPORT int epoll_pwait2(int epfd, struct epoll_event *ev, int max, const struct timespec *ts,
			   const sigset_t *set)
{
	typedef int (*fn)(int, struct epoll_event *, int, const struct timespec *,
			  const sigset_t *);
	REAL(fn, epoll_pwait2);
	sigset_t b;

	if (!real_epoll_pwait2) {
		errno = ENOSYS;
		return -1;
	}
	return real_epoll_pwait2(epfd, ev, max, ts, without_sigtrap(set, &b));
}

/* ---- the dynamic loader's debugger hook ----------------------------------------------- */

/*
 * glibc calls the function at _r_debug.r_brk (_dl_debug_state, a bare `ret`) each
 * time the list of objects changes: r_state RT_ADD or RT_DELETE before, and
 * RT_CONSISTENT after, the change; debuggers break there, and so does the runtime:
 * an int3 on that `ret`, which the SIGTRAP handler (patch.c) hands to
 * ut_dl_hook_hit() and then emulates.  On RT_CONSISTENT after a load the new
 * objects are mapped and in the list (dl_iterate_phdr sees them), not yet
 * relocated (sites.c reads link-time addresses then) and none of their code has
 * run: their sites are found, converted and patched for the current tracer, and
 * announced; under a selection (filters, set_ftrace_pid, probes) the thread then
 * waits (bounded) until utracefs has published the new sites' flags and the
 * control thread has applied them.  The lock that keeps batches off objects being
 * unmapped is taken at RT_DELETE and given back at the RT_CONSISTENT that follows
 * (the same thread, inside dlclose), so that no thread ever waits for ut_rt_lock
 * while holding the loader's lock and the other way round.
 *
 * The work runs inside a signal handler (every signal blocked, the whole register
 * state saved by the kernel): only system calls and the runtime's own code.
 */
static uintptr_t dl_hook; /* the patched `ret`, 0: no hook */
static int dl_deleting;	  /* ut_rt_lock taken at RT_DELETE */

void ut_dl_hook_install(void)
{
	const unsigned char *p = (const unsigned char *)_r_debug.r_brk;
	uintptr_t at, page;

	if (!p || dl_hook)
		return;
	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) /* endbr64 */
		p += 4;
	if (p[0] != 0xc3)
		return; /* not the bare `ret` we know how to stand in for */
	at = (uintptr_t)p;
	page = at & ~4095ul;
	if (mprotect((void *)page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC))
		return;
	dl_hook = at;
	__atomic_store_n((unsigned char *)at, 0xcc, __ATOMIC_RELEASE);
	mprotect((void *)page, 4096, PROT_READ | PROT_EXEC);
}

/*
 * The list of objects is consistent again: the new objects' sites, live before
 * their code runs, and the objects that went (dlclose, or a dlopen that failed
 * after mapping them) never patched again.  utracefs hears of the change once:
 * UT_MSG_MAPS for every mapping, each object that came or went, with sites or
 * not (UT_MSG_OBJECT, objects.c), then each object with sites (UT_MSG_SITES),
 * all stamped.
 */
static void dl_changed(void)
{
	int added, gone;

	pthread_mutex_lock(&ut_rt_lock);
	ut_events_prune(); /* their descriptors are unmapped; new ones come after dlopen */
	gone = ut_sites_prune(); /* first: a reused address is a new object */
	added = ut_sites_scan();
	if (added)
		ut_sel_objects_added();
	pthread_mutex_unlock(&ut_rt_lock);
	ut_send_maps();
	ut_objects_announce(0); /* with sites or not: utracefs may read the maps too late */
	if (!added && !gone)
		return;
	ut_sites_announce();
	if (added)
		ut_sel_wait_objects();
}

/*
 * The loader's state over every namespace (dlmopen: r_version 2 chains one
 * r_debug per namespace, and the hook is shared): RT_DELETE if one is removing
 * objects, RT_ADD if one is adding some, else RT_CONSISTENT.
 */
static int dl_state(void)
{
	const struct r_debug_extended *r = (const struct r_debug_extended *)&_r_debug;
	int state = RT_CONSISTENT;

	for (int n = 0; r && n < 256; n++) {
		int s = __atomic_load_n(&r->base.r_state, __ATOMIC_RELAXED);

		if (s == RT_DELETE)
			return RT_DELETE;
		if (s == RT_ADD)
			state = RT_ADD;
		r = r->base.r_version >= 2 ? r->r_next : NULL;
	}
	return state;
}

/* The SIGTRAP handler (patch.c) met an int3 at addr: 1 if it was the hook (handled). */
int ut_dl_hook_hit(uintptr_t addr, void *ucv)
{
	greg_t *g = ((ucontext_t *)ucv)->uc_mcontext.gregs;
	int saved = errno;

	if (!dl_hook || addr != dl_hook)
		return 0;
	if (ut_sites) {
		int state = dl_state();

		ut_notrace_enter();
		if (state == RT_DELETE && !dl_deleting) {
			pthread_mutex_lock(&ut_rt_lock); /* until the objects are gone */
			dl_deleting = 1;
		} else if (state == RT_CONSISTENT) {
			dl_changed();
			if (dl_deleting) {
				dl_deleting = 0;
				pthread_mutex_unlock(&ut_rt_lock);
			}
		}
		ut_notrace_leave();
	}
	/* the `ret` */
	g[REG_RIP] = (greg_t) * (uintptr_t *)g[REG_RSP];
	g[REG_RSP] += 8;
	errno = saved;
	return 1;
}

UT_EXPORT void *dlopen(const char *file, int mode)
{
	REAL(dlopen_fn, dlopen);
	void *h = real_dlopen(file, mode);
	int saved = errno;

	/* the hook saw the load inside the loader; without it, the objects ran already */
	if (h && ut_sites && !dl_hook) {
		ut_notrace_enter();
		dl_changed();
		ut_notrace_leave();
	}
	/* trace events: their descriptors are read once relocated (events.c) */
	if (h && ut_sites) {
		ut_notrace_enter();
		ut_events_dl_opened();
		ut_notrace_leave();
	}
	errno = saved;
	return h;
}

UT_EXPORT int dlclose(void *h)
{
	REAL(dlclose_fn, dlclose);
	int ret, saved;

	if (dl_hook)
		return real_dlclose(h); /* the hook sees the unload inside the loader */
	/* held across the unload so that no batch patches an object being unmapped */
	pthread_mutex_lock(&ut_rt_lock);
	ret = real_dlclose(h);
	saved = errno;
	ut_notrace_enter();
	if (ut_sites)
		dl_changed(); /* total 0 for the objects unloaded */
	else
		ut_send_maps();
	pthread_mutex_unlock(&ut_rt_lock);
	ut_notrace_leave();
	errno = saved;
	return ret;
}

/* The thread's comm changed from old (task_rename): tell utracefs, if it already
 * knows the thread. */
static void comm_changed(const char *old)
{
	int saved = errno;

	if (old)
		ut_life_renamed(old);
	if (ut_thr.tid)
		ut_send_task(ut_thr.tid);
	errno = saved;
}

/* The calling thread's comm before a change, when task_rename wants it (else NULL). */
static const char *comm_before(char old[16])
{
	int saved = errno;

	if (!ut_life_rename_wanted())
		return NULL;
	ut_life_comm_get(old);
	errno = saved;
	return old;
}

UT_EXPORT int prctl(int option, ...)
{
	REAL(prctl_fn, prctl);
	unsigned long a2, a3, a4, a5;
	char oldbuf[16];
	const char *old;
	va_list ap;
	int ret;

	/* as glibc's own prctl: the kernel takes four more words whatever the option */
	va_start(ap, option);
	a2 = va_arg(ap, unsigned long);
	a3 = va_arg(ap, unsigned long);
	a4 = va_arg(ap, unsigned long);
	a5 = va_arg(ap, unsigned long);
	va_end(ap);
	old = option == PR_SET_NAME ? comm_before(oldbuf) : NULL;
	ret = real_prctl(option, a2, a3, a4, a5);
	if (ret == 0 && option == PR_SET_NAME)
		comm_changed(old);
	return ret;
}

UT_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
	REAL(setname_fn, pthread_setname_np);
	char oldbuf[16];
	bool self = pthread_equal(th, pthread_self());
	const char *old = self ? comm_before(oldbuf) : NULL;
	int ret = real_pthread_setname_np(th, name);

	if (ret == 0 && self)
		comm_changed(old);
	return ret;
}

/* ---- function_graph: jumps and unwinders ------------------------------------------ */

typedef void (*jmp_fn)(void *, int);

#define JUMP(name)                                                                                 \
	UT_EXPORT __attribute__((noreturn)) void name(void *env, int val)                          \
	{                                                                                          \
		static jmp_fn real;                                                                \
                                                                                                   \
		if (!real)                                                                         \
			real = (jmp_fn)ut_real(#name);                                             \
		ut_graph_longjmp(ut_graph_jmpbuf_sp(env));                                         \
		real(env, val);                                                                    \
		__builtin_unreachable();                                                           \
	}

/* (setjmp.h is not included here: its prototypes use jmp_buf, the ABI is the same) */
JUMP(longjmp)
JUMP(_longjmp)
JUMP(siglongjmp)
JUMP(__longjmp_chk)

struct _Unwind_Exception;
struct _Unwind_Context;
typedef int (*unwind_trace_fn)(struct _Unwind_Context *, void *);
typedef int (*unwind_stop_fn)(int, int, uint64_t, struct _Unwind_Exception *,
			      struct _Unwind_Context *, void *);

static void *real_or_die(const char *name)
{
	void *fn = ut_real(name);

	if (!fn)
		abort();
	return fn;
}

#define REAL_U(type, name)                                                                         \
	static type real_##name;                                                                   \
	if (!real_##name)                                                                          \
		real_##name = (type)real_or_die(#name);

UT_EXPORT int _Unwind_RaiseException(struct _Unwind_Exception *e)
{
	typedef int (*fn)(struct _Unwind_Exception *);
	REAL_U(fn, _Unwind_RaiseException);
	int r;

	ut_graph_restore_all();
	r = real__Unwind_RaiseException(e); /* returns only when nothing catches it */
	ut_graph_rehijack(0);
	return r;
}

UT_EXPORT void _Unwind_Resume(struct _Unwind_Exception *e)
{
	typedef void (*fn)(struct _Unwind_Exception *);
	REAL_U(fn, _Unwind_Resume);

	ut_graph_restore_all();
	real__Unwind_Resume(e);
	abort();
}

UT_EXPORT int _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
	typedef int (*fn)(struct _Unwind_Exception *);
	REAL_U(fn, _Unwind_Resume_or_Rethrow);
	int r;

	ut_graph_restore_all();
	r = real__Unwind_Resume_or_Rethrow(e);
	ut_graph_rehijack(0);
	return r;
}

UT_EXPORT int _Unwind_ForcedUnwind(struct _Unwind_Exception *e, unwind_stop_fn stop, void *arg)
{
	typedef int (*fn)(struct _Unwind_Exception *, unwind_stop_fn, void *);
	REAL_U(fn, _Unwind_ForcedUnwind);
	int r;

	ut_graph_restore_all();
	r = real__Unwind_ForcedUnwind(e, stop, arg);
	ut_graph_rehijack(0);
	return r;
}

/*
 * The real _Unwind_Backtrace starts at its caller, which would be this wrapper:
 * the program's callback is not shown that first frame, so it sees the frames it
 * would see without us, starting with its own.
 */
struct bt_skip {
	unwind_trace_fn trace;
	void *arg;
	int skipped;
};

static int bt_skip_first(struct _Unwind_Context *ctx, void *a)
{
	struct bt_skip *s = a;

	if (!s->skipped) {
		s->skipped = 1;
		return 0; /* _URC_NO_REASON */
	}
	return s->trace(ctx, s->arg);
}

UT_EXPORT __attribute__((noinline)) int _Unwind_Backtrace(unwind_trace_fn trace, void *arg)
{
	typedef int (*fn)(unwind_trace_fn, void *);
	REAL_U(fn, _Unwind_Backtrace);
	struct bt_skip s = {trace, arg, 0};
	int r;

	ut_graph_restore_all();
	r = real__Unwind_Backtrace(bt_skip_first, &s);
	ut_graph_rehijack(0);
	return r;
}

#define BT_STACK_MAX 256 /* frames fetched into a buffer on the stack; more: mmap */

/*
 * glibc's backtrace() starts at its caller, which would be this wrapper: ask it
 * for one frame more and drop ours, so that the program gets exactly what it
 * would get without us.  No malloc: backtrace() is called from SIGSEGV handlers.
 */
UT_EXPORT __attribute__((noinline)) int backtrace(void **buf, int size)
{
	typedef int (*fn)(void **, int);
	REAL(fn, backtrace);
	void *local[BT_STACK_MAX + 1], **tmp = local;
	size_t bytes = 0;
	int r;

	if (size <= 0 || !real_backtrace)
		return 0;
	if (size > BT_STACK_MAX) {
		bytes = ((size_t)size + 1) * sizeof(void *);
		tmp = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (tmp == MAP_FAILED)
			return 0;
	}
	ut_graph_restore_all();
	r = real_backtrace(tmp, size + 1);
	ut_graph_rehijack(0);
	if (r > 0) {
		r--;
		memcpy(buf, tmp + 1, (size_t)r * sizeof(void *));
	}
	if (bytes)
		munmap(tmp, bytes);
	return r;
}

/*
 * A catch block begins in the frame that caught: every frame below our caller's
 * stack pointer was unwound.
 */
UT_EXPORT void *__cxa_begin_catch(void *e)
{
	typedef void *(*fn)(void *);
	REAL_U(fn, __cxa_begin_catch);

	ut_graph_rehijack((uintptr_t)__builtin_frame_address(0) + 16);
	return real___cxa_begin_catch(e);
}

/* Coroutines: graph_ctx.c fences each switch and keeps a suspended context's frames. */
UT_EXPORT int swapcontext(ucontext_t *save, const ucontext_t *to)
{
	typedef int (*fn)(ucontext_t *, const ucontext_t *);
	REAL_U(fn, swapcontext);
	int r;

	ut_graph_ctx_leave(save, to);
	r = real_swapcontext(save, to);
	ut_graph_ctx_resume(save); /* save runs again (or the switch failed) */
	return r;
}

UT_EXPORT int setcontext(const ucontext_t *to)
{
	typedef int (*fn)(const ucontext_t *);
	REAL_U(fn, setcontext);

	if (to)
		ut_graph_ctx_jump(to, (uintptr_t)to->uc_mcontext.gregs[REG_RSP]);
	return real_setcontext(to);
}

/* A cancelled thread unwinds through libgcc directly: its landings need their records. */
UT_EXPORT int pthread_cancel(pthread_t t)
{
	typedef int (*fn)(pthread_t);
	REAL(fn, pthread_cancel);

	ut_unwind_arm();
	return real_pthread_cancel(t);
}

UT_EXPORT void pthread_exit(void *ret)
{
	typedef void (*fn)(void *);
	REAL(fn, pthread_exit);

	/*
	 * The unwinder needs the real return addresses, but the frames stay: the
	 * cleanup handlers it runs are called from the frames that pushed them, at
	 * their depth.  The thread-exit destructor closes what is left.
	 */
	ut_graph_restore_all();
	if (getpid() != (pid_t)syscall(SYS_gettid))
		ut_life_thread_exit(); /* the main thread's end is the process's (exit()) */
	real_pthread_exit(ret);
	abort();
}

/* ---- the process's lifecycle: fork, threads, signals (lifecycle.c's events) ------------- */

UT_EXPORT pid_t fork(void)
{
	typedef pid_t (*fn)(void);
	REAL(fn, fork);
	pid_t child = real_fork();

	if (child > 0) {
		int saved = errno;

		ut_life_forked(child);
		errno = saved;
	}
	return child;
}

typedef void *(*start_fn)(void *);

UT_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, start_fn start, void *arg)
{
	typedef int (*fn)(pthread_t *, const pthread_attr_t *, start_fn, void *);
	REAL(fn, pthread_create);
	void *warg = arg;
	start_fn wstart = start;
	int ret;

	if (!ut_notrace_now()) /* the runtime's own threads are not the program's */
		ut_life_thread_wrap(&wstart, &warg);
	ret = real_pthread_create(th, attr, wstart, warg);
	if (ret && warg != arg)
		ut_life_thread_unwrap(warg);
	return ret;
}

/*
 * signal_generate for a signal this process sends: before the system call when it
 * may come back to us at once (its handler's signal_deliver then follows it, as in
 * the kernel), after it otherwise, and only when it succeeded.
 */
#define SIGNAL_SENT(call, sig, code, target, group, to_us)                                         	do {                                                                                       		int wanted_ = ut_life_signal_wanted(sig), ret_, saved_;                                                                                                                               		if (wanted_ && (to_us)) {                                                          			saved_ = errno;                                                            			ut_life_signal(sig, code, target, group);                                  			errno = saved_;                                                            		}                                                                                  		ret_ = (call);                                                                     		if (wanted_ && !(to_us) && ret_ == 0) {                                            			saved_ = errno;                                                            			ut_life_signal(sig, code, target, group);                                  			errno = saved_;                                                            		}                                                                                  		return ret_;                                                                       	} while (0)

UT_EXPORT int kill(pid_t pid, int sig)
{
	typedef int (*fn)(pid_t, int);
	REAL(fn, kill);

	if (pid <= 0) /* a process group: one event per process in the kernel, unknown here */
		return real_kill(pid, sig);
	SIGNAL_SENT(real_kill(pid, sig), sig, SI_USER, pid, 1, pid == getpid());
}

UT_EXPORT int sigqueue(pid_t pid, int sig, const union sigval val)
{
	typedef int (*fn)(pid_t, int, const union sigval);
	REAL(fn, sigqueue);

	if (pid <= 0)
		return real_sigqueue(pid, sig, val);
	SIGNAL_SENT(real_sigqueue(pid, sig, val), sig, SI_QUEUE, pid, 1, pid == getpid());
}

UT_EXPORT int tgkill(pid_t tgid, pid_t tid, int sig)
{
	typedef int (*fn)(pid_t, pid_t, int);
	REAL(fn, tgkill);

	SIGNAL_SENT(real_tgkill(tgid, tid, sig), sig, SI_TKILL, tid, 0, tgid == getpid());
}

UT_EXPORT int raise(int sig)
{
	typedef int (*fn)(int);
	REAL(fn, raise);

	SIGNAL_SENT(real_raise(sig), sig, SI_TKILL, (pid_t)syscall(SYS_gettid), 0, 1);
}

UT_EXPORT int pthread_kill(pthread_t th, int sig)
{
	typedef int (*fn)(pthread_t, int);
	REAL(fn, pthread_kill);

	if (!pthread_equal(th, pthread_self())) /* its thread id is not known here */
		return real_pthread_kill(th, sig);
	SIGNAL_SENT(real_pthread_kill(th, sig), sig, SI_TKILL, (pid_t)syscall(SYS_gettid), 0, 1);
}

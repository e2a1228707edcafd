// SPDX-License-Identifier: MIT
/*
 * patch.c - changing live code: the breakpoint protocol and the SIGTRAP handler.
 *
 * A site is 5 bytes at a function's entry: GCC's five 1-byte NOPs, a 5-byte NOP,
 * `call stub`, `call` the probe stub (function probes), or (function_graph) `jmp`
 * to the site's own stub or to its entry of one graph instance (route.c).  Other
 * threads may execute a site while it changes, so every change of a batch of sites
 * goes, as the kernel's text_poke_bp() does:
 *
 *   1. write int3 (0xcc) on byte 0 of every site, sync all cores;
 *   2. write bytes 1-4, sync;
 *   3. write byte 0, sync.
 *
 * "sync" is membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE): every thread of
 * the process executes a core-serialising instruction before it returns, so no
 * core runs stale bytes.  A thread that reaches a site between steps 1 and 3
 * traps; our SIGTRAP handler emulates what the site is becoming (site.want): a
 * NOP (rip = site + 5), the call (push site + 5, rip = stub) or the graph
 * tracer's jmp to the site's own stub (rip = that stub).  A thread that
 * trapped but reaches the handler after step 3 finds no int3 any more and simply
 * re-executes the site.  Traps that are not ours go to the program's handler.
 *
 * A thread stopped in the middle of GCC's five 1-byte NOPs (bytes 1-4) while they
 * are converted could resume in the middle of the new instruction.  So the
 * conversion happens before any of the object's code has run: before main() for
 * the objects loaded with the program, and for those dlopen() loads at the
 * dynamic loader's debugger hook, before their relocation and constructors
 * (interpose.c); only where that hook cannot be set does it come after dlopen()
 * returns.
 *
 * Other 5-byte spots (the static keys of trace events, events.c, and the probes at
 * any instruction, xol.c) go through the same protocol with ut_poke_batch():
 * each poke says what a thread that traps there meanwhile does (go on after the
 * NOP, or take the jmp).  The handler finds pokes in the current batch and the
 * one before (two tables in turn), so a thread that trapped during a batch and
 * runs its handler a little later still finds its spot.  XOL probes are found
 * first (ut_xol_trap), and a SIGTRAP that xol.c sent with tgkill to ask a thread
 * where it is (ut_xol_tkill) is answered here too.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "rt.h"
#include "ut_sel.h"

static int sync_core_ok;
static struct sigaction chained; /* the program's SIGTRAP disposition */
static enum ut_site_state cur_want = UT_SITE_NOP5;
int ut_probes_live;

static const unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

static void sync_cores(void)
{
	if (sync_core_ok)
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* The pokes of the current batch and of the one before (ut_poke_batch). */
static struct {
	const struct ut_poke *p;
	uint32_t nr;
} poke_tab[2];

static const struct ut_poke *poke_find(uintptr_t addr)
{
	for (int t = 0; t < 2; t++) {
		const struct ut_poke *p = __atomic_load_n(&poke_tab[t].p, __ATOMIC_ACQUIRE);
		uint32_t nr = __atomic_load_n(&poke_tab[t].nr, __ATOMIC_ACQUIRE);

		for (uint32_t i = 0; p && i < nr; i++)
			if (p[i].addr == addr)
				return &p[i];
	}
	return NULL;
}

static void chain_sigtrap(int sig, siginfo_t *si, void *uc)
{
	struct sigaction sa = chained;

	if (sa.sa_flags & SA_SIGINFO) {
		if (sa.sa_sigaction)
			sa.sa_sigaction(sig, si, uc);
	} else if (sa.sa_handler == SIG_IGN) {
		return;
	} else if (sa.sa_handler == SIG_DFL) {
		/* The default action (core dump) once this handler returns. */
		struct sigaction dfl = {.sa_handler = SIG_DFL};

		ut_real_sigaction(SIGTRAP, &dfl, NULL);
		syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), SIGTRAP);
	} else {
		sa.sa_handler(sig);
	}
}

/* Does a site in state st call an entry of its object's stub? */
static int calls_stub(uint8_t st)
{
	return st == UT_SITE_CALL || st == UT_SITE_PROBE || st == UT_SITE_INST ||
	       st == UT_SITE_MULTI || st == UT_SITE_STACK;
}

/* Where a site in state st (calls_stub) calls: an entry of its object's stub. */
static uintptr_t stub_entry(const struct ut_obj *o, const struct ut_site *s, uint8_t st)
{
	unsigned int to = __atomic_load_n(&s->inst_want, __ATOMIC_ACQUIRE);

	if (st == UT_SITE_PROBE)
		return o->stub + UT_PROBE_STUB_OFF;
	if (st == UT_SITE_STACK)
		return o->stub + UT_STACK_STUB_OFF;
	if (st == UT_SITE_INST)
		return o->stub + UT_INST_STUB_OFF(to);
	if (st == UT_SITE_MULTI)
		return o->stub + UT_MULTI_STUB_OFF(to);
	return o->stub;
}

static void on_sigtrap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	uintptr_t addr = (uintptr_t)g[REG_RIP] - 1;
	struct ut_obj *o;
	/*
	 * Two SIGTRAPs pending at once merge into one, with the first one's siginfo:
	 * a SIGTRAP sent by tgkill (xol.c asking where a thread is) may stand for an
	 * int3 the thread met meanwhile.  rip just past a site's or the loader hook's
	 * int3 can mean nothing else (no instruction starts there), so it is that
	 * int3's (the question is asked again).
	 */
	int trapped = si->si_code == SI_KERNEL || si->si_code == SI_TKILL;
	struct ut_site *s = trapped ? ut_site_find(addr, &o) : NULL;
	uint8_t want;

	if (!s && trapped && ut_dl_hook_hit(addr, ucv))
		return; /* the dynamic loader's debugger hook (interpose.c) */
	if (!s && si->si_code == SI_KERNEL) {
		uintptr_t to = ut_xol_trap(addr); /* a probe at any instruction (xol.c) */
		const struct ut_poke *pk = to ? NULL : poke_find(addr);

		if (to) {
			g[REG_RIP] = (greg_t)to;
			return;
		}
		if (pk) { /* an event's static key in transition: what it becomes */
			g[REG_RIP] = (greg_t)(*(volatile unsigned char *)addr == 0xcc ? pk->to : addr);
			return;
		}
	}
	if (!s && si->si_code == SI_TKILL && ut_xol_tkill(ucv))
		return; /* xol.c asked this thread where it is */
	if (!s)
		return chain_sigtrap(sig, si, ucv);
	if (*(volatile unsigned char *)addr != 0xcc) {
		g[REG_RIP] = (greg_t)addr; /* the change finished meanwhile: run the new bytes */
		return;
	}
	want = __atomic_load_n(&s->want, __ATOMIC_ACQUIRE);
	if ((want == UT_SITE_JMP || want == UT_SITE_IJMP) && o->gstub) {
		g[REG_RIP] = (greg_t)ut_gstub_entry(o, s, want);
	} else if (calls_stub(want) && o->stub) {
		uintptr_t sp = (uintptr_t)g[REG_RSP] - 8;

		*(uintptr_t *)sp = addr + 5;
		g[REG_RSP] = (greg_t)sp;
		g[REG_RIP] = (greg_t)stub_entry(o, s, want);
	} else {
		g[REG_RIP] = (greg_t)(addr + 5);
	}
}

int ut_patch_init(void)
{
	struct sigaction sa = {.sa_sigaction = on_sigtrap, .sa_flags = SA_SIGINFO | SA_RESTART};
	sigset_t trap;

	sync_core_ok = syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
			       0, 0) == 0;
	/*
	 * Nothing may interrupt the handler: a signal handler run inside it would
	 * meet our int3 with SIGTRAP blocked, and the kernel kills the process then.
	 */
	sigfillset(&sa.sa_mask);
	if (ut_real_sigaction(SIGTRAP, &sa, &chained))
		return -errno;
	/* nor may it be blocked: a program may be started with it blocked (exec keeps masks) */
	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	ut_real_sigprocmask(SIG_UNBLOCK, &trap, NULL);
	return 0;
}

int ut_sigtrap_set_chained(const struct sigaction *act, struct sigaction *old)
{
	if (old)
		*old = chained;
	if (act)
		chained = *act;
	return 0;
}

enum ut_site_state ut_patch_current_want(void)
{
	return cur_want;
}

static void site_bytes(const struct ut_obj *o, const struct ut_site *s, enum ut_site_state st,
		       unsigned char out[5])
{
	if (calls_stub(st)) {
		uintptr_t to = stub_entry(o, s, st);
		int32_t rel = (int32_t)(to - (s->addr + 5));

		out[0] = 0xe8;
		memcpy(out + 1, &rel, 4);
	} else if (st == UT_SITE_JMP || st == UT_SITE_IJMP) {
		int32_t rel = (int32_t)(ut_gstub_entry(o, s, st) - (s->addr + 5));

		out[0] = 0xe9;
		memcpy(out + 1, &rel, 4);
	} else {
		memcpy(out, nop5, 5);
	}
}

static int text_protect(const struct ut_obj *o, int prot)
{
	uintptr_t lo = o->text_lo & ~4095ul, hi = (o->text_hi + 4095) & ~4095ul;

	return mprotect((void *)lo, hi - lo, prot);
}

/*
 * Mark the sites of objects [from, nr) that must change: to `want`, or to a NOP
 * when their selection leaves them out; returns how many.
 */
/*
 * A site that several spans take (inst: its function and function_graph
 * instances, fmask the function ones; sst: what the top wants of it) goes
 * through its object's entry of that set (ut_tramp_function_multi) when only
 * function tracers take it, the top's included, and each records every thread;
 * *to: the entry.  Otherwise the probe stub's C path serves it.
 */
static int multi_to(const struct ut_obj *o, enum ut_site_state sst, uint64_t inst,
		    uint64_t fmask, unsigned int *to)
{
	int top = sst == UT_SITE_CALL, j;

	if (inst != fmask || !ut_route_multi(fmask))
		return 0;
	if (sst != UT_SITE_NOP5 && !(top && ut_stubs_tramp() == (uintptr_t)ut_tramp_function))
		return 0; /* the top runs function_graph */
	j = ut_stub_multi(o, fmask, top);
	if (j < 0)
		return 0;
	*to = (unsigned int)j;
	return 1;
}

static uint32_t select_sites(uint32_t from, enum ut_site_state want, uint8_t *objs)
{
	uint32_t n = 0;

	for (uint32_t i = from; i < ut_nr_objs; i++) {
		struct ut_obj *o = &ut_objs[i];
		enum ut_site_state st = want;

		if (st == UT_SITE_JMP && !o->gstub)
			st = UT_SITE_CALL; /* no per-site stubs near: the object's stub */
		if (st == UT_SITE_CALL && !o->stub)
			st = UT_SITE_NOP5;

		objs[i] = 0;
		if (o->dead)
			continue;
		for (uint32_t k = 0; k < o->nr; k++) {
			struct ut_site *s = &ut_sites[o->first + k];
			/* filtered out (set_ftrace_filter, set_ftrace_notrace): stays a NOP */
			enum ut_site_state sst = s->sel & UT_SEL_TRACE ? st : UT_SITE_NOP5;
			uint64_t fmask = ut_route_mask(o->first + k); /* route.c */
			uint64_t gmask = ut_route_gmask(o->first + k), inst = fmask | gmask;
			unsigned int to = inst && sst == UT_SITE_NOP5 ? ut_route_single(inst) : 0;

			if (inst && sst == UT_SITE_NOP5 && o->gstub &&
			    ut_route_graph_single(fmask, gmask))
				sst = UT_SITE_IJMP; /* one graph instance: its own entry */
			else if (inst && o->stub)
				sst = to			  ? UT_SITE_INST
				      : multi_to(o, sst, inst, fmask, &to) ? UT_SITE_MULTI
									: UT_SITE_PROBE;
			/* the stack tracer: alone its own check, else probe.c checks first */
			if (ut_stack_site(s) && o->stub)
				sst = sst == UT_SITE_NOP5 ? UT_SITE_STACK : UT_SITE_PROBE;
			if (ut_probes_live && (s->sel & UT_SEL_PROBE) && o->stub)
				sst = UT_SITE_PROBE; /* probe.c goes on to the tracer */

			s->busy = s->state != sst ||
				  ((sst == UT_SITE_INST || sst == UT_SITE_MULTI) && s->inst != to);
			if (s->busy) {
				if (sst == UT_SITE_INST || sst == UT_SITE_MULTI)
					__atomic_store_n(&s->inst_want, (uint8_t)to, __ATOMIC_RELEASE);
				__atomic_store_n(&s->want, sst, __ATOMIC_RELEASE);
				objs[i] = 1;
				n++;
			}
		}
		if (objs[i] && text_protect(o, PROT_READ | PROT_WRITE | PROT_EXEC)) {
			for (uint32_t k = 0; k < o->nr; k++)
				ut_sites[o->first + k].busy = 0;
			objs[i] = 0;
		}
	}
	return n;
}

/* One step of the protocol on every busy site: 0 int3, 1 tail, 2 first byte. */
static void write_step(uint32_t from, const uint8_t *objs, int step)
{
	for (uint32_t i = from; i < ut_nr_objs; i++) {
		struct ut_obj *o = &ut_objs[i];

		if (!objs[i])
			continue;
		for (uint32_t k = 0; k < o->nr; k++) {
			struct ut_site *s = &ut_sites[o->first + k];
			volatile unsigned char *code = (volatile unsigned char *)s->addr;
			unsigned char b[5];

			if (!s->busy)
				continue;
			site_bytes(o, s, s->want, b);
			if (step == 0) {
				code[0] = 0xcc;
			} else if (step == 1) {
				for (int j = 1; j < 5; j++)
					code[j] = b[j];
			} else {
				code[0] = b[0];
				s->state = s->want;
				s->inst = s->inst_want;
				s->busy = 0;
			}
		}
	}
}

static int patch_batch(uint32_t from, enum ut_site_state want)
{
	static uint8_t objs[UT_MAX_OBJS];

	if (!select_sites(from, want, objs))
		return 0;
	for (int step = 0; step < 3; step++) {
		write_step(from, objs, step);
		sync_cores();
	}
	for (uint32_t i = from; i < ut_nr_objs; i++)
		if (objs[i])
			text_protect(&ut_objs[i], PROT_READ | PROT_EXEC);
	return 0;
}

int ut_patch_all(enum ut_site_state want)
{
	cur_want = want;
	return patch_batch(0, want);
}

/* mprotect the pages of every poke (prot), 0 or -errno. */
static int pokes_protect(const struct ut_poke *p, uint32_t nr, int prot)
{
	int err = 0;

	for (uint32_t i = 0; i < nr; i++) {
		uintptr_t lo = p[i].addr & ~4095ul, hi = (p[i].addr + 5 + 4095) & ~4095ul;

		if (mprotect((void *)lo, hi - lo, prot))
			err = -errno;
	}
	return err;
}

int ut_poke_batch(const struct ut_poke *p, uint32_t nr)
{
	static int turn;

	if (!nr)
		return 0;
	if (pokes_protect(p, nr, PROT_READ | PROT_WRITE | PROT_EXEC)) {
		pokes_protect(p, nr, PROT_READ | PROT_EXEC);
		return -EPERM;
	}
	turn ^= 1;
	__atomic_store_n(&poke_tab[turn].nr, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&poke_tab[turn].p, p, __ATOMIC_RELEASE);
	__atomic_store_n(&poke_tab[turn].nr, nr, __ATOMIC_RELEASE);
	for (int step = 0; step < 3; step++) {
		for (uint32_t i = 0; i < nr; i++) {
			volatile unsigned char *code = (volatile unsigned char *)p[i].addr;

			if (step == 0)
				code[0] = 0xcc;
			else if (step == 1)
				for (int j = 1; j < 5; j++)
					code[j] = p[i].bytes[j];
			else
				code[0] = p[i].bytes[0];
		}
		sync_cores();
	}
	pokes_protect(p, nr, PROT_READ | PROT_EXEC);
	return 0;
}

int ut_patch_new_objs(uint32_t from_obj)
{
	for (uint32_t i = from_obj; i < ut_nr_objs; i++)
		ut_route_clear(ut_objs[i].first, ut_objs[i].cap); /* a dead one's routes */
	return patch_batch(from_obj, cur_want);
}

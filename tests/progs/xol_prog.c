// SPDX-License-Identifier: MIT
/*
 * xol_prog.c - probes at any instruction (runtime/xol.c) in a live program, for
 * tests/unit/test_xol.c.  The runtime is linked in (not preloaded) so that this
 * program can call its hidden ut_xol_* API; without a daemon it stays dormant.
 *
 *   xol_prog CASE     one case below; prints "ok CASE ..." and exits 0, or says
 *                     what went wrong and exits 1
 *   xol_prog cost     not a test: the cost of a hit in each mode
 *
 * Under UTRACE_TEST_XOL=trap every probe must be in TRAP mode; otherwise each
 * case says which mode its probe must reach.
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"
#include "ut_sdt.h"
#include "xol.h"

extern char xf_regs[], xf_regs_at[], xf_call[], xf_call_at[], xf_call_ret[], xf_rip[], xf_rip_at[],
    xf_jcc[], xf_jcc_at[], xf_loop[], xf_loop_at[], xf_loop_head[], xf_switch[], xf_switch_at[],
    xf_sys[], xf_sys_at[], xf_work[], xf_work_at[], xf_int3[], xf_sdt[], xf_sdt_at[], xf_mid[],
    xf_mid_at[], xf_keep[], xf_keep_at[];
extern uint64_t xf_rsp_seen, xf_ret_seen, xf_data, xf_keep_in[48], xf_keep_out[49];
void xf_keep_fn(void) __asm__("xf_keep");
int xf_fast_clobber(void *ctx, const struct ut_xol_regs *regs);
long xf_regs_fn(void) __asm__("xf_regs");
long xf_call_fn(long) __asm__("xf_call");
long xf_rip_fn(long) __asm__("xf_rip");
long xf_jcc_fn(long) __asm__("xf_jcc");
long xf_loop_fn(long) __asm__("xf_loop");
long xf_switch_fn(long) __asm__("xf_switch");
long xf_sys_fn(void) __asm__("xf_sys");
long xf_work_fn(long) __asm__("xf_work");
long xf_sdt_fn(long, long) __asm__("xf_sdt");
long xf_mid_fn(long) __asm__("xf_mid");
long guarded_loop(long n, long k); /* xol_sdt.c */
extern unsigned short ut_loop_guarded_semaphore;
long cf_mul_pfe(long, long), cf_mul_plain(long, long);
long cf_print_pfe(char *, long), cf_print_plain(char *, long);

static int force_trap;
static int failed;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("FAIL %s:%d: %s: ", __func__, __LINE__, #cond);                     \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			failed = 1;                                                                \
		}                                                                                  \
	} while (0)

struct hit {
	long n;
	struct ut_xol_regs last;
	int want_bt;
	int nbt;
	void *bt[16];
};

static void on_hit(void *ctx, const struct ut_xol_regs *r)
{
	struct hit *h = ctx;

	__atomic_add_fetch(&h->n, 1, __ATOMIC_RELAXED);
	h->last = *r;
	if (h->want_bt)
		h->nbt = backtrace(h->bt, 16);
}

/* [lo, hi) of the function at f (its symbol: -rdynamic) */
static void bounds(const void *f, uintptr_t *lo, uintptr_t *hi)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;

	if (!dladdr1(f, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym) {
		printf("FAIL no symbol for %p\n", f);
		exit(1);
	}
	*lo = (uintptr_t)info.dli_saddr;
	*hi = *lo + sym->st_size;
}

/* The first instruction of a C function: after endbr64 and the patchable NOP. */
static void *first_insn(void *f)
{
	unsigned char *p = f;

	if (!memcmp(p, "\xf3\x0f\x1e\xfa", 4))
		p += 4;
	if (!memcmp(p, "\x0f\x1f\x44\x00\x00", 5))
		p += 5;
	return p;
}

/* Arm at `at` in the function fn (bounded: with its bounds) with handler(ctx). */
static int arm_with(void *at, void *fn, int bounded, ut_xol_fn handler, ut_xol_fast fast,
		    void *ctx, struct ut_xol **x)
{
	uintptr_t lo = 0, hi = 0;
	int err;

	if (bounded)
		bounds(fn, &lo, &hi);
	pthread_mutex_lock(&ut_rt_lock);
	err = ut_xol_arm((uintptr_t)at, lo, hi, handler, fast, ctx, x);
	pthread_mutex_unlock(&ut_rt_lock);
	return err;
}

static int arm(void *at, void *fn, int bounded, struct hit *h, struct ut_xol **x)
{
	return arm_with(at, fn, bounded, on_hit, NULL, h, x);
}

static int disarm(struct ut_xol *x)
{
	int err;

	pthread_mutex_lock(&ut_rt_lock);
	err = ut_xol_disarm(x);
	pthread_mutex_unlock(&ut_rt_lock);
	return err;
}

static const char *mode_name(int m)
{
	return m == UT_XOL_JMP ? "JMP" : m == UT_XOL_TRAP ? "TRAP" : "OFF";
}

static void expect_mode(struct ut_xol *x, int want)
{
	int m = ut_xol_mode(x);

	if (force_trap)
		want = UT_XOL_TRAP;
	CHECK(m == want, "mode %s, want %s", mode_name(m), mode_name(want));
}

/*
 * Arm, and where JMP mode is wanted, arm again (up to 20 times) while a thread
 * that did not answer in time (the runtime's control thread, preempted on a busy
 * machine) left the probe in TRAP mode: the verdict must not depend on scheduling.
 */
static int arm_mode_with(void *at, void *fn, ut_xol_fn handler, ut_xol_fast fast, void *ctx,
			 struct ut_xol **x,
			 int want)
{
	int err = arm_with(at, fn, 1, handler, fast, ctx, x);

	for (int i = 0;
	     !err && want == UT_XOL_JMP && !force_trap && i < 20 && ut_xol_mode(*x) == UT_XOL_TRAP;
	     i++) {
		disarm(*x);
		err = arm_with(at, fn, 1, handler, fast, ctx, x);
	}
	if (!err && want >= 0)
		expect_mode(*x, want);
	return err;
}

static int arm_mode(void *at, void *fn, struct hit *h, struct ut_xol **x, int want)
{
	return arm_mode_with(at, fn, on_hit, NULL, h, x, want);
}

/*
 * One probe: armed at `at` (mode want, -1: either), f(arg) called 1000 times
 * must give `result` and `per_call` hits each, every one an int3's SIGTRAP in
 * TRAP mode and none in JMP mode; disarmed, the bytes are back and no more hits
 * come.
 */
struct one {
	void *at, *fn;
	int want;
	long (*f)(long);
	long arg, result, per_call;
};

static void run_one(const char *name, const struct one *c)
{
	unsigned char before[16];
	struct hit h = {0};
	struct ut_xol *x;
	unsigned long traps;
	int err;

	memcpy(before, c->at, sizeof(before));
	err = arm_mode(c->at, c->fn, &h, &x, c->want);
	CHECK(err == 0, "%s: arm %d", name, err);
	if (err)
		return;
	printf("%s: %s\n", name, mode_name(ut_xol_mode(x)));
	traps = ut_xol_traps();
	for (int i = 0; i < 1000; i++) {
		long r = c->f(c->arg);

		if (r != c->result) {
			CHECK(r == c->result, "%s: result %ld, want %ld", name, r, c->result);
			break;
		}
	}
	CHECK(h.n == 1000 * c->per_call, "%s: %ld hits, want %ld", name, h.n, 1000 * c->per_call);
	traps = ut_xol_traps() - traps;
	CHECK(traps == (ut_xol_mode(x) == UT_XOL_TRAP ? (unsigned long)h.n : 0),
	      "%s: %lu traps for %ld hits in %s mode", name, traps, h.n, mode_name(ut_xol_mode(x)));
	CHECK(!c->per_call || h.last.rip == (uintptr_t)c->at, "%s: rip %#lx", name,
	      (long)h.last.rip);
	CHECK(disarm(x) == 0, "%s: disarm", name);
	CHECK(ut_xol_mode(x) == UT_XOL_OFF, "%s: mode after disarm", name);
	CHECK(!memcmp(before, c->at, sizeof(before)), "%s: bytes not restored", name);
	h.n = 0;
	CHECK(c->f(c->arg) == c->result && h.n == 0, "%s: after disarm", name);
	printf("ok %s\n", name);
}

static long call_regs(long unused)
{
	return xf_regs_fn();
}

static long call_sys(long unused)
{
	return xf_sys_fn();
}

static long sdt_on(long n)
{
	return xf_sdt_fn(n, 1);
}

static long sdt_off(long n)
{
	return xf_sdt_fn(n, 0);
}

static long mul_pfe(long a)
{
	return cf_mul_pfe(a, 3);
}

static long mul_plain(long a)
{
	return cf_mul_plain(a, 3);
}

static long print_pfe(long n)
{
	char buf[32];

	return cf_print_pfe(buf, n) + (strcmp(buf, "n=42") ? 1000 : 0);
}

static long print_plain(long n)
{
	char buf[32];

	return cf_print_plain(buf, n) + (strcmp(buf, "n=42") ? 1000 : 0);
}

/* The registers the handler sees, the flags kept, and an unwinder that walks on. */
void case_regs(void);
void case_regs(void)
{
	static const uint64_t want[16] = {0x1000, 0x2000, 0x3000, 0x4000, 0x5000, 0x6000,
					  0x7000, 0,	  0x8000, 0x9000, 0xa000, 0xb000,
					  0xc000, 0xd000, 0xe000, 0xf000};
	struct hit h = {.want_bt = 1};
	struct ut_xol *x;
	uintptr_t lo, hi, clo, chi;
	int in_fn = 0, in_caller = 0;
	long r;

	backtrace(h.bt, 16); /* its first call loads libgcc: not in the handler */
	CHECK(arm_mode(xf_regs_at, xf_regs, &h, &x, UT_XOL_JMP) == 0, "arm");
	r = xf_regs_fn();
	CHECK(r == 0x1001, "result %#lx (the carry flag lost?)", r);
	CHECK(h.n == 1, "%ld hits", h.n);
	for (int i = 0; i < 16; i++)
		if (i != 7)
			CHECK((&h.last.rax)[i] == want[i], "register %d: %#lx", i,
			      (long)(&h.last.rax)[i]);
	CHECK(h.last.rsp == xf_rsp_seen, "rsp %#lx, want %#lx", (long)h.last.rsp,
	      (long)xf_rsp_seen);
	CHECK(h.last.rip == (uintptr_t)xf_regs_at, "rip");
	CHECK(h.last.flags & 1, "CF not set in flags %#lx", (long)h.last.flags);
	bounds(xf_regs, &lo, &hi);
	bounds((void *)case_regs, &clo, &chi);
	for (int i = 0; i < h.nbt; i++) {
		uintptr_t a = (uintptr_t)h.bt[i];

		in_fn |= a >= lo && a < hi;
		in_caller |= a > clo && a <= chi;
	}
	CHECK(in_fn && in_caller,
	      "backtrace from the handler: %d frames, probed function %d, "
	      "its caller %d",
	      h.nbt, in_fn, in_caller);
	CHECK(disarm(x) == 0, "disarm");
	printf("ok regs\n");
}

/*
 * A probe with a fast fn (xf_fast_clobber, which changes every general register
 * the C ABI lets it): every general register, xmm0-15 and the flags as they were
 * after the hit; fn runs only when the fast fn answers 1, and then sees the
 * registers the program had.
 */
struct fast {
	int answer; /* what xf_fast_clobber answers: 0 done, 1 call fn too */
	long hits;
	uint64_t rip;
	struct hit h; /* fn's */
};

static void on_fast_fn(void *ctx, const struct ut_xol_regs *r)
{
	on_hit(&((struct fast *)ctx)->h, r);
}

static void case_fast(void)
{
	for (int answer = 0; answer < 2; answer++) {
		struct fast f = {.answer = answer};
		const struct hit *h = &f.h;
		struct ut_xol *x;

		for (int i = 0; i < 48; i++)
			xf_keep_in[i] = 0x0101010101010101ull * (uint64_t)(i + 1) ^ 0x8000000000000000ull;
		CHECK(arm_mode_with(xf_keep_at, xf_keep, on_fast_fn, xf_fast_clobber, &f, &x,
				    UT_XOL_JMP) == 0,
		      "arm");
		for (int r = 0; r < 3; r++) {
			memset(xf_keep_out, 0, sizeof(uint64_t) * 49);
			xf_keep_fn();
			for (int i = 0; i < 48; i++)
				CHECK(i == 7 || xf_keep_out[i] == xf_keep_in[i],
				      "answer %d: %s %d: %#lx, want %#lx", answer,
				      i < 16 ? "register" : "xmm quad", i < 16 ? i : i - 16,
				      (long)xf_keep_out[i], (long)xf_keep_in[i]);
			CHECK(xf_keep_out[48] & 1, "answer %d: CF lost (flags %#lx)", answer,
			      (long)xf_keep_out[48]);
			CHECK(!(xf_keep_out[48] & 0x400), "answer %d: DF set", answer);
		}
		CHECK(f.hits == 3 && f.rip == (uintptr_t)xf_keep_at, "answer %d: %ld fast hits, rip %#lx",
		      answer, f.hits, (long)f.rip);
		CHECK(h->n == (answer ? 3 : 0), "answer %d: fn ran %ld times", answer, h->n);
		for (int i = 0; answer && i < 16; i++)
			CHECK(i == 7 || (&h->last.rax)[i] == xf_keep_in[i], "fn's register %d: %#lx", i,
			      (long)(&h->last.rax)[i]);
		printf("fast, answer %d: %s\n", answer, mode_name(ut_xol_mode(x)));
		CHECK(disarm(x) == 0, "disarm");
	}
	printf("ok fast\n");
}

static void case_call(void)
{
	struct one c = {xf_call_at, xf_call, UT_XOL_JMP, xf_call_fn, 41, 42, 1};

	run_one("call", &c);
	{
		struct hit h = {0};
		struct ut_xol *x;

		CHECK(arm(xf_call_at, xf_call, 1, &h, &x) == 0, "arm");
		xf_ret_seen = 0;
		xf_call_fn(1);
		CHECK(xf_ret_seen == (uintptr_t)xf_call_ret, "the call returned to %#lx, not %p",
		      (long)xf_ret_seen, (void *)xf_call_ret);
		disarm(x);
	}
}

static void case_simple(void)
{
	const struct {
		const char *name;
		struct one c;
	} cases[] = {
	    {"rip", {xf_rip_at, xf_rip, UT_XOL_JMP, xf_rip_fn, 1, 0x1234567887654322, 1}},
	    {"jcc_taken", {xf_jcc_at, xf_jcc, UT_XOL_JMP, xf_jcc_fn, 5, 2, 1}},
	    {"jcc_not", {xf_jcc_at, xf_jcc, UT_XOL_JMP, xf_jcc_fn, 20, 1, 1}},
	    /* a branch target inside: the window takes its branch in, the loop runs in the slot */
	    {"loop_before_head", {xf_loop_at, xf_loop, UT_XOL_JMP, xf_loop_fn, 10, 55, 1}},
	    {"loop_head", {xf_loop_head, xf_loop, UT_XOL_JMP, xf_loop_fn, 10, 55, 10}},
	    /* an indirect jmp in the function (a jump table): TRAP */
	    {"switch", {xf_switch_at, xf_switch, UT_XOL_TRAP, xf_switch_fn, 6, 102, 1}},
	    /* a syscall among the displaced instructions: TRAP */
	    {"syscall", {xf_sys_at, xf_sys, UT_XOL_TRAP, call_sys, 0, getpid(), 1}},
	    /* `if (semaphore) STAP_PROBE()`: the window starts at the je (taken or not) */
	    {"sdt_on", {xf_sdt_at, xf_sdt, UT_XOL_JMP, sdt_on, 10, 10, 10}},
	    {"sdt_off", {xf_sdt_at, xf_sdt, UT_XOL_JMP, sdt_off, 10, 10, 0}},
	    /* a je from too far before lands right after the probe: no window, TRAP */
	    {"mid_hit", {xf_mid_at, xf_mid, UT_XOL_TRAP, xf_mid_fn, 1, 6, 1}},
	    {"mid_skip", {xf_mid_at, xf_mid, UT_XOL_TRAP, xf_mid_fn, 0, 1, 0}},
	    {"work", {xf_work_at, xf_work, UT_XOL_JMP, xf_work_fn, 20, 41, 1}},
	    {"regs_fn", {xf_regs_at, xf_regs, UT_XOL_JMP, call_regs, 0, 0x1001, 1}},
	    /* C, first instruction, with and without -fpatchable-function-entry */
	    {"c_mul_pfe", {NULL, (void *)cf_mul_pfe, -1, mul_pfe, 5, 22, 1}},
	    {"c_mul_plain", {NULL, (void *)cf_mul_plain, -1, mul_plain, 5, 22, 1}},
	    {"c_print_pfe", {NULL, (void *)cf_print_pfe, -1, print_pfe, 42, 46, 1}},
	    {"c_print_plain", {NULL, (void *)cf_print_plain, -1, print_plain, 42, 46, 1}},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct one c = cases[i].c;

		if (!c.at)
			c.at = first_insn(c.fn);
		run_one(cases[i].name, &c);
	}
}

/* Without the function's bounds: TRAP, and the API's errors. */
static void case_api(void)
{
	struct hit h = {0};
	struct ut_xol *x, *y;

	CHECK(arm(xf_work_at, xf_work, 0, &h, &x) == 0, "arm");
	CHECK(ut_xol_mode(x) == UT_XOL_TRAP, "unbounded: %s", mode_name(ut_xol_mode(x)));
	CHECK(xf_work_fn(1) == 3 && h.n == 1, "hits %ld", h.n);
	CHECK(arm(xf_work_at, xf_work, 0, &h, &y) == -EEXIST, "twice");
	CHECK(disarm(x) == 0, "disarm");
	CHECK(disarm(x) == 0, "disarm twice");
	/* armed again with its bounds: JMP mode is possible now */
	CHECK(arm_mode(xf_work_at, xf_work, &h, &x, UT_XOL_JMP) == 0, "arm with bounds");
	CHECK(xf_work_fn(2) == 5 && h.n == 2, "hits %ld", h.n);
	CHECK(disarm(x) == 0, "disarm");
	/* inside the displaced bytes of another probe */
	CHECK(arm(xf_regs_at, xf_regs, 1, &h, &x) == 0, "arm regs");
	CHECK(arm(xf_regs_at + 4, xf_regs, 1, &h, &y) == -EBUSY, "inside another");
	disarm(x);
	/* someone's int3 is not moved */
	CHECK(arm(xf_int3, xf_int3, 0, &h, &y) == -EINVAL, "int3");
	pthread_mutex_lock(&ut_rt_lock);
	ut_xol_forget((uintptr_t)xf_regs, (uintptr_t)xf_regs + 1000);
	pthread_mutex_unlock(&ut_rt_lock);
	h.n = 0;
	CHECK(arm(xf_regs_at, xf_regs, 1, &h, &x) == 0, "arm after forget");
	CHECK(xf_regs_fn() == 0x1001 && h.n == 1, "after forget");
	disarm(x);
	printf("ok api\n");
}

/* ---- a <sys/sdt.h> probe built by the compiler (xol_sdt.c) ------------------------ */

struct sdt_hits {
	long n, bad, k;
	struct ut_sdt_arg args[3];
};

static int read_direct(uint64_t addr, void *buf, size_t n)
{
	memcpy(buf, (const void *)(uintptr_t)addr, n);
	return 0;
}

/* ut_loop:guarded's handler: its arguments as sdt.c reads them, checked against the loop's */
static void on_sdt(void *ctx, const struct ut_xol_regs *r)
{
	struct sdt_hits *h = ctx;
	long i = h->n % 1000, v[3];
	int fault = 0;

	for (int a = 0; a < 3; a++)
		v[a] = (long)ut_sdt_fetch(&h->args[a], (const uint64_t *)r, 0, read_direct, &fault);
	h->bad += fault || v[0] != i || v[1] != h->k || v[2] != h->k * i * (i - 1) / 2;
	h->n++;
}

struct sdt_find {
	uint64_t pc;
	char args[128];
};

static void sdt_note(const struct ut_sdt_note *n, void *arg)
{
	struct sdt_find *f = arg;

	if (!strcmp(n->provider, "ut_loop") && !strcmp(n->name, "guarded")) {
		f->pc = n->pc;
		snprintf(f->args, sizeof(f->args), "%s", n->args);
	}
}

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(uintptr_t *)arg = info->dlpi_addr;
	return 1;
}

/* ut_loop:guarded's run-time address, from the executable's .note.stapsdt; 0: not found */
static uintptr_t sdt_site(struct ut_sdt_arg *args)
{
	struct sdt_find f = {0};
	const Elf64_Shdr *sec;
	struct ut_elf e;
	uintptr_t bias = 0;
	void *buf;

	if (ut_elf_open(&e, "/proc/self/exe"))
		return 0;
	sec = ut_elf_find(&e, ".note.stapsdt");
	buf = sec ? ut_elf_read(&e, sec, 1u << 20) : NULL;
	if (buf) {
		ut_sdt_notes(buf, sec->sh_size, sdt_note, &f);
		munmap(buf, sec->sh_size);
	}
	ut_elf_close(&e);
	dl_iterate_phdr(first_object, &bias);
	if (!f.pc || ut_sdt_args_parse(f.args, args, 3) != 3)
		return 0;
	return bias + f.pc;
}

/*
 * `if (semaphore) STAP_PROBE3(...)` in a loop at -O2: JMP mode (TRAP under
 * UTRACE_TEST_XOL=trap), no SIGTRAP in JMP mode and one a hit in TRAP mode, every
 * hit with its arguments; with the semaphore at 0 the loop still runs right
 * through the window and nothing is hit.
 */
static void case_sdt(void)
{
	long want = 3L * 999 * 1000 / 2;
	struct sdt_hits h = {.k = 3};
	unsigned char before[16];
	unsigned long traps;
	struct ut_xol *x;
	uintptr_t at = sdt_site(h.args);

	CHECK(at, "no note ut_loop:guarded with three arguments");
	if (!at)
		return;
	memcpy(before, (void *)at, sizeof(before));
	CHECK(arm_mode_with((void *)at, (void *)guarded_loop, on_sdt, NULL, &h, &x, UT_XOL_JMP) == 0,
	      "arm");
	ut_loop_guarded_semaphore = 1;
	traps = ut_xol_traps();
	for (int r = 0; r < 10; r++)
		CHECK(guarded_loop(1000, 3) == want, "result");
	traps = ut_xol_traps() - traps;
	CHECK(h.n == 10000 && h.bad == 0, "%ld hits, %ld with wrong arguments", h.n, h.bad);
	CHECK(traps == (force_trap ? 10000ul : 0), "%lu traps", traps);
	ut_loop_guarded_semaphore = 0;
	h.n = 0;
	CHECK(guarded_loop(1000, 3) == want && h.n == 0, "semaphore 0: %ld hits", h.n);
	printf("ok sdt (%s, %lu traps)\n", mode_name(ut_xol_mode(x)), traps);
	CHECK(disarm(x) == 0, "disarm");
	CHECK(!memcmp(before, (void *)at, sizeof(before)), "bytes not restored");
}

/* ---- threads --------------------------------------------------------------------- */

static volatile int stop;
static long per_thread;

/* A function the threads hammer: its probe, and how to tell a wrong result. */
struct target {
	const char *name;
	void *at, *fn;
	long (*wrong)(long i); /* call the function the i-th time: 1 if its result is wrong */
	long hits2;	       /* hits per two calls */
};

static long work_wrong(long i)
{
	return xf_work_fn(i) != 2 * i + 1;
}

/* the window starts before the probe (at the je), taken every other call */
static long sdt_wrong(long i)
{
	return xf_sdt_fn(3, i & 1) != 3;
}

static const struct target targets[] = {
    {"work", xf_work_at, xf_work, work_wrong, 2},
    {"sdt", xf_sdt_at, xf_sdt, sdt_wrong, 3},
};

static void *hammer(void *arg)
{
	const struct target *tg = arg;
	long bad = 0, n = per_thread;

	for (long i = 0; n ? i < n : !stop; i++)
		bad += tg->wrong(i);
	return (void *)bad;
}

/* arm/disarm while two threads run the function; then exact counts once armed */
static void threads_on(const struct target *tg)
{
	long calls = force_trap ? 100000 : 1000000;
	pthread_t t[2];
	struct hit h = {0};
	struct ut_xol *x;
	void *bad;
	int jmp = 0;

	stop = 0;
	per_thread = 0;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, hammer, (void *)tg);
	for (int k = 0; k < 200; k++) {
		CHECK(arm(tg->at, tg->fn, 1, &h, &x) == 0, "arm %d", k);
		jmp += ut_xol_mode(x) == UT_XOL_JMP;
		CHECK(disarm(x) == 0, "disarm %d", k);
	}
	stop = 1;
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], &bad);
		CHECK(bad == NULL, "%s: wrong results under arm/disarm: %ld", tg->name, (long)bad);
	}
	/* how many reach JMP depends on where the threads are: only counted */
	CHECK(!force_trap || jmp == 0, "%d of 200 arms reached JMP", jmp);
	printf("ok threads_cycle %s (%d of 200 in JMP)\n", tg->name, jmp);

	h.n = 0;
	CHECK(arm(tg->at, tg->fn, 1, &h, &x) == 0, "arm");
	per_thread = calls;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, hammer, (void *)tg);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], &bad);
		CHECK(bad == NULL, "%s: wrong results: %ld", tg->name, (long)bad);
	}
	CHECK(h.n == tg->hits2 * calls, "%s: %ld hits, want %ld", tg->name, h.n, tg->hits2 * calls);
	printf("ok threads_count %s (%ld calls, %s)\n", tg->name, 2 * calls,
	       mode_name(ut_xol_mode(x)));
	disarm(x);
}

static void case_threads(void)
{
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		threads_on(&targets[i]);
}

static volatile int spinning;

static void *spin_blocked(void *arg)
{
	uint64_t set = 1ull << (SIGTRAP - 1);

	/* the raw system call: the runtime keeps SIGTRAP out of sigprocmask's masks */
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 8);
	spinning = 1;
	while (!stop)
		__asm__ volatile("pause");
	syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, NULL, 8);
	return NULL;
}

/* a thread with SIGTRAP blocked never answers: the site stays TRAP */
static void case_blocked(void)
{
	struct hit h = {0};
	struct ut_xol *x;
	pthread_t t;

	stop = 0;
	spinning = 0;
	pthread_create(&t, NULL, spin_blocked, NULL);
	while (!spinning)
		usleep(1000);
	CHECK(arm(xf_work_at, xf_work, 1, &h, &x) == 0, "arm");
	CHECK(ut_xol_mode(x) == UT_XOL_TRAP, "mode %s", mode_name(ut_xol_mode(x)));
	CHECK(xf_work_fn(3) == 7 && h.n == 1, "hits %ld", h.n);
	stop = 1;
	pthread_join(t, NULL);
	disarm(x);
	printf("ok blocked\n");
}

static double ns_per_call(long n)
{
	struct timespec a, b;
	long bad = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		bad += xf_work_fn(i) != 2 * i + 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK(!bad, "wrong results");
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
}

/* not a test: what a hit costs in each mode (the best of 5 runs), for the docs */
static void case_cost(void)
{
	double best[2] = {1e9, 1e9}, off = 1e9;
	struct hit h = {0};
	struct ut_xol *x;

	for (int r = 0; r < 5; r++) {
		double t = ns_per_call(1000000);

		off = t < off ? t : off;
		for (int m = 0; m < 2; m++) {
			CHECK(arm(xf_work_at, xf_work, m, &h, &x) == 0, "arm");
			t = ns_per_call(m ? 1000000 : 100000);
			if (t < best[ut_xol_mode(x) == UT_XOL_JMP])
				best[ut_xol_mode(x) == UT_XOL_JMP] = t;
			disarm(x);
		}
	}
	printf("ok cost: %.1f ns a call unprobed, +%.1f ns a hit in JMP mode, +%.1f ns in TRAP "
	       "mode\n",
	       off, best[1] - off, best[0] - off);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} cases[] = {
	    {"regs", case_regs}, {"call", case_call},	    {"simple", case_simple},
	    {"api", case_api},	 {"threads", case_threads}, {"blocked", case_blocked},
	    {"sdt", case_sdt},	 {"cost", case_cost},	    {"fast", case_fast},
	};
	const char *e = getenv("UTRACE_TEST_XOL");

	force_trap = e && !strcmp(e, "trap");
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(argv[1], cases[i].name)) {
			cases[i].run();
			return failed;
		}
	return 2;
}

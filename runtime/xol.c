// SPDX-License-Identifier: MIT
/*
 * xol.c - probes at any instruction of a loaded object, run "out of line".
 *
 * A probe at addr gets a slot near the object (within jmp rel32 of addr) that
 * runs, in the program's place, a window [start, end) of the function's
 * instructions around addr (start <= addr < end):
 *
 *   copies of [start, addr)    relocated by insn.c; falls through into
 *   the probe's entry          ut_xol_entry (arch/x86_64/xol.S: saves the
 *                              general registers, calls the probe's fast fn if
 *                              it has one, else or when that asks, saves the
 *                              vector state too and calls its fn; restores)
 *   copies of [addr, end)      then a jmp back to end
 *
 * A branch among the window's instructions goes to the copy of its target (one
 * to addr, to the probe's entry).  addr itself is armed in one of two ways:
 *
 *   TRAP  an int3 at addr: the SIGTRAP handler (patch.c) sends the thread to the
 *         probe's entry.  Works for every instruction the relocator can move.
 *         Without a window the copy is addr's instruction alone; with one, it is
 *         [addr, end) (so that no thread runs those in place any more, and one
 *         still in the slot when JMP mode comes returns to end).
 *   JMP   a 5-byte jmp at start to the slot: no signal.  It overwrites what
 *         lies in [start, start + 5), addr's first byte included (a window starts
 *         at most 4 bytes before addr), so a window is taken only when safe:
 *           (a) xol_window.c: the function [lo, hi) is known and decodes
 *               linearly, has no indirect jmp (a jump table could land anywhere),
 *               and no direct branch from outside the window lands strictly
 *               inside (start, end); the window holds no call but as its last
 *               instruction (the return would come back inside), no syscall, int3
 *               or xbegin, and no patch site or other probe's window; an earlier
 *               start is an instruction of 2 bytes or more (rip = start + 1 can then
 *               only mean a thread met the int3 at start, merged_int3).  Windows
 *               that start at addr are tried first, shortest first, then earlier
 *               starts, nearest first: `if (semaphore) STAP_PROBE()` puts a je
 *               that skips the 1-byte nop right before it, so its target is
 *               addr + 1 and only a window that takes the je in works;
 *           (b) no thread is inside (start, end).  An earlier start first gets an
 *               int3 too (its thread goes to the copy of [start, addr)), so that
 *               with the int3s in place none can newly enter, and each thread is
 *               looked at once.  One blocked in a system call whose user pc
 *               (/proc/self/task/TID/syscall) is outside is safe; every other gets
 *               SIGTRAP (tgkill), and its handler moves its rip into the slot if it
 *               is inside and answers.  A thread that does not answer within 200
 *               ms (SIGTRAP blocked, stopped) leaves the site in TRAP mode.
 *
 * Every change of the code's bytes goes through ut_poke_batch (the breakpoint
 * protocol); a thread that meets the int3 meanwhile goes where it would have.  Slots
 * are never freed while their object is mapped: a thread may still be in one
 * after its probe is disarmed.  ut_xol_forget() drops an unmapped object's
 * probes without writing anything.
 *
 * UTRACE_TEST_XOL=trap keeps every probe in TRAP mode (tests cover both modes).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch/x86_64/insn.h"
#include "rt.h"
#include "xol.h"
#include "xol_window.h"

#define XOL_MAX 1024u
#define SLOT_LEN 256u /* code per probe */
#define SLOTS 16u     /* per chunk: one code page, one data page */
#define CHUNK_SIZE 8192u
#define MAX_CHUNKS 256u
#define ENTRY_LEN 23u		 /* the probe's entry in a slot (xol.S) */
#define DATA_ENTRY (SLOTS * 16u) /* the data page's pointer to ut_xol_entry */
#define JMP_LEN 5u
#define REACH ((int64_t)(1l << 31) - 2 * CHUNK_SIZE)
#define ANSWER_NS 200000000l /* (b): how long threads have to answer */

struct ut_xol {
	ut_xol_fast fast; /* first, then ctx: xol.S reads them */
	void *ctx;
	uintptr_t addr, lo, hi;
	ut_xol_fn fn;
	uintptr_t slot;	 /* its code; 0: a free entry (never used, or forgotten) */
	uintptr_t start; /* the window [start, start + disp) the slot stands for */
	uint8_t mode;	 /* enum ut_xol_mode: int3 at addr, or jmp at start */
	uint8_t disp;	 /* the window's bytes */
	uint8_t jmp_ok;	 /* the window is one JMP mode may take: (a) held */
	uint8_t probe;	 /* the probe's entry in the slot: where TRAP mode goes */
	uint8_t n;	 /* the window's instructions: at start + ioff, their copy at slot + coff */
	uint8_t len1;	 /* the length of addr's instruction */
	uint8_t ioff[UT_XOL_WIN_MAX], coff[UT_XOL_WIN_MAX]; /* addr's coff: the probe's entry */
	uint8_t orig[JMP_LEN]; /* start's bytes before it was armed (addr's among them) */
	struct ut_poke poke;   /* the last change (ut_poke_batch keeps a pointer) */
};

void ut_xol_entry(void); /* xol.S */
_Static_assert(offsetof(struct ut_xol, fast) == 0 && offsetof(struct ut_xol, ctx) == 8,
	       "xol.S's XOL_FAST and XOL_CTX");
void ut_xol_hit(struct ut_xol *x, const struct ut_xol_regs *regs);

static struct ut_xol xols[XOL_MAX];
static volatile uint32_t nr_xols;
static uintptr_t chunks[MAX_CHUNKS];
static uint16_t chunk_used[MAX_CHUNKS]; /* a bit per slot */
static uint32_t nr_chunks;
static int force_trap = -1; /* UTRACE_TEST_XOL=trap */
static unsigned long traps; /* int3s met that sent a thread to a slot */

/* The threads asked to step out of a range (b), and their answers. */
static struct {
	volatile int active;
	struct ut_xol *x;
	uint32_t n;
	pid_t tid[256];
	/* 0 none yet, 1 out of the range, 2 could not, 3 blocked outside or gone */
	volatile uint8_t answer[256];
} ask;

void ut_xol_hit(struct ut_xol *x, const struct ut_xol_regs *regs)
{
	int err = errno; /* the program's, live at any instruction */
	ut_xol_fn fn = __atomic_load_n(&x->fn, __ATOMIC_ACQUIRE);

	if (fn)
		fn(x->ctx, regs);
	errno = err;
}

enum ut_xol_mode ut_xol_mode(const struct ut_xol *x)
{
	return (enum ut_xol_mode)__atomic_load_n(&x->mode, __ATOMIC_ACQUIRE);
}

unsigned long ut_xol_traps(void)
{
	return __atomic_load_n(&traps, __ATOMIC_RELAXED);
}

static int64_t dist(uintptr_t a, uintptr_t b)
{
	return a > b ? (int64_t)(a - b) : (int64_t)(b - a);
}

/*
 * n bytes of code at a as they were before any probe: the int3 at a TRAP probe's
 * addr, the five bytes at a JMP probe's start put back.
 */
static void read_orig(uintptr_t a, uint8_t *buf, size_t n)
{
	memcpy(buf, (const void *)a, n);
	for (uint32_t i = 0; i < nr_xols; i++) {
		const struct ut_xol *y = &xols[i];
		uintptr_t from = y->mode == UT_XOL_JMP ? y->start : y->addr;
		uintptr_t to = y->mode == UT_XOL_JMP ? y->start + JMP_LEN : y->addr + 1;

		if (!y->slot || y->mode == UT_XOL_OFF)
			continue;
		for (uintptr_t p = from; p < to; p++)
			if (p >= a && p < a + n)
				buf[p - a] = y->orig[p - y->start];
	}
}

/* ---- slots ------------------------------------------------------------------------ */

static uintptr_t slot_alloc(uintptr_t addr)
{
	uint32_t c;

	for (c = 0; c < nr_chunks; c++)
		if (chunk_used[c] != 0xffff && dist(chunks[c], addr) < REACH)
			break;
	if (c == nr_chunks) {
		uintptr_t ch;

		if (nr_chunks == MAX_CHUNKS || !(ch = ut_near_alloc(addr, addr + 1, CHUNK_SIZE)))
			return 0;
		*(uintptr_t *)(ch + 4096 + DATA_ENTRY) = (uintptr_t)ut_xol_entry;
		memset((void *)ch, 0xcc, 4096);
		if (mprotect((void *)ch, 4096, PROT_READ | PROT_EXEC)) {
			munmap((void *)ch, CHUNK_SIZE);
			return 0;
		}
		chunks[c] = ch;
		chunk_used[c] = 0;
		nr_chunks++;
	}
	for (uint32_t k = 0; k < SLOTS; k++)
		if (!(chunk_used[c] & (1u << k))) {
			chunk_used[c] |= (uint16_t)(1u << k);
			return chunks[c] + k * SLOT_LEN;
		}
	return 0;
}

static void slot_free(uintptr_t slot)
{
	for (uint32_t c = 0; c < nr_chunks; c++)
		if (slot >= chunks[c] && slot < chunks[c] + 4096)
			chunk_used[c] &= (uint16_t) ~(1u << ((slot - chunks[c]) / SLOT_LEN));
}

/* pushq / call * / jmp * of the quad at data, RIP-relative (op 0x35, 0x15, 0x25) */
static void rip_op(uint8_t *code, uintptr_t slot, unsigned int at, uint8_t op, uintptr_t data)
{
	int32_t rel = (int32_t)((int64_t)data - (int64_t)(slot + at + 6));

	code[at] = 0xff;
	code[at + 1] = op;
	memcpy(code + at + 2, &rel, 4);
}

/* The slot's 16 bytes on its chunk's data page: the struct ut_xol, then addr. */
static uintptr_t slot_data(const struct ut_xol *x)
{
	uintptr_t page = x->slot & ~4095ul;

	return page + 4096 + (x->slot - page) / SLOT_LEN * 16;
}

/* The probe's entry (xol.S describes it) at code[at], for the slot at x->slot. */
static void entry_write(const struct ut_xol *x, uint8_t *code, unsigned int at)
{
	uintptr_t page = x->slot & ~4095ul, data = slot_data(x);

	memcpy(code + at, (const uint8_t[]){0x48, 0x8d, 0x64, 0x24, 0x80}, 5); /* lea -128(%rsp) */
	rip_op(code, x->slot, at + 5, 0x35, data);			       /* pushq site */
	rip_op(code, x->slot, at + 11, 0x35, data + 8);			       /* pushq addr */
	rip_op(code, x->slot, at + 17, 0x15, page + 4096 + DATA_ENTRY);	       /* call *entry */
}

/* The slot's code (SLOT_LEN bytes) and its data. */
static int slot_write(struct ut_xol *x, const uint8_t *code)
{
	uintptr_t page = x->slot & ~4095ul, data = slot_data(x);

	((uintptr_t *)data)[0] = (uintptr_t)x;
	((uintptr_t *)data)[1] = x->addr;
	/* the page stays executable throughout: other slots on it may be running */
	if (mprotect((void *)page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	memcpy((void *)x->slot, code, SLOT_LEN);
	mprotect((void *)page, 4096, PROT_READ | PROT_EXEC);
	return 0;
}

/* ---- the window ------------------------------------------------------------------- */

/*
 * The slot's code for the window [x->start, end) into code (SLOT_LEN bytes): the
 * copies of [start, addr), the probe's entry, the copies of [addr, end), the jmp
 * back to end.  Twice over: the first pass places the copies (a relocated
 * instruction's length does not depend on its target), the second aims the
 * branches between them.  Fills x's n, ioff, coff, probe, disp and len1; the
 * code's length, or -1 when an instruction cannot move or the copies do not fit.
 */
static int build_slot(struct ut_xol *x, uintptr_t end, uint8_t *code)
{
	uint8_t buf[UT_XOL_WIN_MAX];
	struct ut_insn in[UT_XOL_WIN_MAX];
	unsigned int len = (unsigned int)(end - x->start), off = 0, out = 0, i = 0;

	if (end <= x->addr || len > sizeof(buf))
		return -1;
	read_orig(x->start, buf, len);
	for (; off < len; off += in[i++].len) {
		if (i == UT_XOL_WIN_MAX ||
		    !ut_insn_decode(buf + off, len - off, x->start + off, &in[i]))
			return -1;
		x->ioff[i] = (uint8_t)off;
	}
	x->n = (uint8_t)i;
	memset(code, 0xcc, SLOT_LEN);
	for (int pass = 0; pass < 2; pass++) {
		out = 0;
		for (unsigned int k = 0; k < x->n; k++) {
			uintptr_t a = x->start + x->ioff[k];
			struct ut_insn r = in[k];
			int n;

			if (a == x->addr) {
				if (out + ENTRY_LEN > SLOT_LEN - JMP_LEN)
					return -1;
				x->probe = (uint8_t)out;
				x->len1 = r.len;
				entry_write(x, code, out);
				out += ENTRY_LEN;
			}
			if (pass && x->coff[k] != (a == x->addr ? x->probe : out))
				return -1; /* cannot be: the lengths are those of the first pass */
			x->coff[k] = (uint8_t)(a == x->addr ? x->probe : out);
			for (unsigned int j = 0; pass && r.rel_size && j < x->n; j++)
				if (r.target == x->start + x->ioff[j])
					r.target = x->slot + x->coff[j];
			n = ut_insn_relocate(buf + x->ioff[k], &r, a, code + out,
					     SLOT_LEN - JMP_LEN - out, x->slot + out);
			if (n < 0)
				return -1;
			out += (unsigned int)n;
		}
		if (ut_insn_jmp32(code + out, x->slot + out, end))
			return -1;
	}
	x->disp = (uint8_t)len;
	return (int)(out + JMP_LEN);
}

/* Does another armed probe's window hold a (other than at its addr: -EEXIST then)? */
static int displaced(const struct ut_xol *x, uintptr_t a)
{
	for (uint32_t i = 0; i < nr_xols; i++) {
		const struct ut_xol *y = &xols[i];

		if (y != x && y->slot && y->mode != UT_XOL_OFF && a >= y->start &&
		    a < y->start + y->disp && a != y->addr)
			return 1;
	}
	return 0;
}

/* xol_window.c's busy(): does [a, b) overlap a patch site or another armed probe's window? */
static int window_busy(uintptr_t a, uintptr_t b, void *arg)
{
	const struct ut_xol *x = arg;
	struct ut_obj *o;

	for (uintptr_t p = a - (JMP_LEN - 1); p < b; p++)
		if (ut_site_find(p, &o))
			return 1;
	for (uint32_t i = 0; i < nr_xols; i++) {
		const struct ut_xol *y = &xols[i];

		if (y != x && y->slot && y->mode != UT_XOL_OFF &&
		    ((y->start < b && a < y->start + y->disp) || (y->addr >= a && y->addr < b)))
			return 1;
	}
	return 0;
}

static void window_read(uintptr_t a, uint8_t *buf, size_t n, void *arg)
{
	(void)arg;
	read_orig(a, buf, n);
}

static struct ut_xol_code code_of(struct ut_xol *x)
{
	return (struct ut_xol_code){x->lo, x->hi, window_read, window_busy, x};
}

/* ---- (b): every thread out of the window ----------------------------------------- */

/* The first line of /proc/self/task/TID/FILE that starts with key (or the first
 * line, key ""), NUL-terminated in buf; 0, or -1. */
static int task_read(pid_t tid, const char *file, const char *key, char *buf, size_t size)
{
	char path[64], *p = buf;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", tid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	while (*key && p && strncmp(p, key, strlen(key)))
		p = (p = strchr(p, '\n')) ? p + 1 : NULL;
	if (!p)
		return -1;
	memmove(buf, p, strlen(p) + 1);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/*
 * Is thread tid blocked in a system call with its user pc outside [lo, hi)?  Then
 * it stays outside: the int3 at addr is in place, so it can enter only there.
 */
static int blocked_outside(pid_t tid, uintptr_t lo, uintptr_t hi)
{
	char buf[256], *last;
	unsigned long pc;

	/* "NR arg1 ... arg6 sp pc" in a system call; "-1 sp pc" or "running" otherwise */
	if (task_read(tid, "syscall", "", buf, sizeof(buf)) || buf[0] < '0' || buf[0] > '9')
		return 0;
	last = strrchr(buf, ' ');
	if (!last)
		return 0;
	pc = strtoul(last + 1, NULL, 16);
	return pc < lo || pc >= hi;
}

/* Does thread tid block SIGTRAP (the runtime's control thread blocks everything)? */
static int blocks_sigtrap(pid_t tid)
{
	char buf[2048];

	if (task_read(tid, "status", "SigBlk:", buf, sizeof(buf)))
		return 1;
	return (strtoull(buf + 7, NULL, 16) >> (SIGTRAP - 1)) & 1;
}

/*
 * Threads sent SIGTRAP by an ask that is over: one more SIGTRAP from tgkill to
 * them is a late one of ours (a ring: the oldest are forgotten).
 */
static pid_t late[64];
static uint32_t late_next;

static int late_take(pid_t tid)
{
	for (size_t i = 0; i < sizeof(late) / sizeof(late[0]); i++)
		if (__atomic_load_n(&late[i], __ATOMIC_ACQUIRE) == tid &&
		    __atomic_compare_exchange_n(&late[i], &tid, 0, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return 1;
	return 0;
}

static void late_add(pid_t tid)
{
	__atomic_store_n(&late[late_next++ % (sizeof(late) / sizeof(late[0]))], tid,
			 __ATOMIC_RELEASE);
}

/*
 * Have the other threads answer, or be seen blocked outside, within ANSWER_NS.
 * SIGTRAP goes to a thread only while it does not block it: one inside our own
 * SIGTRAP handler blocks it for a moment, the control thread for good, and a
 * SIGTRAP left pending would merge with the one of an int3 it meets later.  It
 * is sent again every 10 ms: one that merged into an int3's SIGTRAP (sent while
 * the thread was trapping) was taken for the int3.
 */
static int wait_answers(uintptr_t lo, uintptr_t hi, uint8_t *sent)
{
	struct timespec t0, now;
	pid_t pid = getpid();

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint32_t round = 0;; round++) {
		uint32_t done = 0;

		for (uint32_t i = 0; i < ask.n; i++) {
			if (__atomic_load_n(&ask.answer[i], __ATOMIC_ACQUIRE))
				;
			else if (blocked_outside(ask.tid[i], lo, hi))
				__atomic_store_n(&ask.answer[i], 3, __ATOMIC_RELEASE);
			else if ((!sent[i] || round % 10 == 0) && !blocks_sigtrap(ask.tid[i]) &&
				 (sent[i] = 1) && syscall(SYS_tgkill, pid, ask.tid[i], SIGTRAP) &&
				 errno == ESRCH)
				__atomic_store_n(&ask.answer[i], 3, __ATOMIC_RELEASE); /* gone */
			done += __atomic_load_n(&ask.answer[i], __ATOMIC_ACQUIRE) != 0;
		}
		if (done == ask.n)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000000000l + now.tv_nsec - t0.tv_nsec > ANSWER_NS)
			return 0;
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
}

/*
 * Ask every other thread to step out of (start, start + disp); 1 when all did.  A
 * thread that blocks SIGTRAP all along counts only if seen blocked in a system
 * call outside the range (the control thread, usually).
 */
static int threads_out(struct ut_xol *x)
{
	uintptr_t lo = x->start + 1, hi = x->start + x->disp;
	pid_t self = (pid_t)syscall(SYS_gettid);
	DIR *d = opendir("/proc/self/task");
	uint8_t sent[sizeof(ask.tid) / sizeof(ask.tid[0])];
	struct dirent *e;
	uint32_t n = 0;
	int ok = 1;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0 || tid == self || blocked_outside(tid, lo, hi))
			continue;
		if (n == sizeof(ask.tid) / sizeof(ask.tid[0])) {
			ok = 0;
			break;
		}
		ask.tid[n] = tid;
		ask.answer[n++] = 0;
	}
	closedir(d);
	if (!ok || !n)
		return ok;
	ask.x = x;
	ask.n = n;
	memset(sent, 0, sizeof(sent));
	__atomic_store_n(&ask.active, 1, __ATOMIC_RELEASE);
	ok = wait_answers(lo, hi, sent);
	__atomic_store_n(&ask.active, 0, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t a = __atomic_load_n(&ask.answer[i], __ATOMIC_ACQUIRE);

		if (sent[i])
			late_add(ask.tid[i]);
		ok &= a == 1 || a == 3;
	}
	return ok;
}

/*
 * The probe an int3 at a belongs to, armed ones first, and where it sends the
 * thread: addr's to the probe's entry, an earlier start's to the window's copy.
 */
static struct ut_xol *int3_owner(uintptr_t a, uintptr_t *to)
{
	uint32_t nr = __atomic_load_n(&nr_xols, __ATOMIC_ACQUIRE);
	struct ut_xol *found = NULL;

	for (uint32_t i = 0; i < nr; i++) {
		struct ut_xol *x = &xols[i];
		uintptr_t slot = __atomic_load_n(&x->slot, __ATOMIC_ACQUIRE);
		int off = __atomic_load_n(&x->mode, __ATOMIC_ACQUIRE) == UT_XOL_OFF;

		if (!slot || (a != x->addr && a != x->start) || (found && off))
			continue;
		found = x;
		*to = a == x->addr ? slot + x->probe : slot;
		if (!off)
			break;
	}
	return found;
}

/*
 * Our SIGTRAP was pending when the thread met an armed int3: the kernel merged the
 * two (one signal, the first one's siginfo), so rip is just past an int3 of ours.
 * Past an instruction longer than one byte that cannot be anything else (an
 * earlier start's always is: xol_window.c); past a one-byte one at addr it could
 * also be a thread that stood there when the int3 went in, but only the probe
 * being asked about is taken so (its copy never comes back to addr + 1): such a
 * thread then runs addr's instruction twice (for an SDT probe's nop, harmless).
 */
static void merged_int3(greg_t *g)
{
	uintptr_t a = (uintptr_t)g[REG_RIP] - 1, to = 0;
	const struct ut_xol *x = int3_owner(a, &to);

	if (!x || *(volatile uint8_t *)a != 0xcc)
		return;
	if (a != x->addr || x->len1 > 1 ||
	    (__atomic_load_n(&ask.active, __ATOMIC_ACQUIRE) && ask.x == x))
		g[REG_RIP] = (greg_t)to;
}

int ut_xol_tkill(void *ucv)
{
	greg_t *g = ((ucontext_t *)ucv)->uc_mcontext.gregs;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	uintptr_t rip;
	struct ut_xol *x;

	merged_int3(g);
	rip = (uintptr_t)g[REG_RIP];
	if (!__atomic_load_n(&ask.active, __ATOMIC_ACQUIRE))
		return late_take(tid);
	x = ask.x;
	for (uint32_t i = 0; i < ask.n; i++) {
		uint8_t answer = 1;

		if (ask.tid[i] != tid)
			continue;
		if (ask.answer[i])
			return 1; /* sent again, answered already */
		if (rip > x->start && rip < x->start + x->disp) {
			answer = 2; /* not at one of the copied instructions: cannot say */
			for (uint32_t k = 0; k < x->n; k++)
				if (rip == x->start + x->ioff[k]) {
					g[REG_RIP] = (greg_t)(x->slot + x->coff[k]);
					answer = 1;
				}
		}
		__atomic_store_n(&ask.answer[i], answer, __ATOMIC_RELEASE);
		return 1;
	}
	return late_take(tid);
}

uintptr_t ut_xol_trap(uintptr_t addr)
{
	uintptr_t to = 0;

	if (!int3_owner(addr, &to))
		return 0;
	/* not an int3 any more: the jmp, or the original, is in place */
	if (*(volatile uint8_t *)addr != 0xcc)
		return addr;
	__atomic_add_fetch(&traps, 1, __ATOMIC_RELAXED);
	return to;
}

/* ---- arming ----------------------------------------------------------------------- */

/* The 5 bytes at a become b (int3 first, ut_poke_batch). */
static int poke(struct ut_xol *x, uintptr_t a, const uint8_t *b)
{
	x->poke.addr = a;
	x->poke.to = a == x->addr ? x->slot + x->probe : x->slot;
	memcpy(x->poke.bytes, b, JMP_LEN);
	return ut_poke_batch(&x->poke, 1);
}

/* An int3 at an earlier start (on), or its byte back; addr's int3 is left alone. */
static int start_int3(struct ut_xol *x, int on)
{
	uint8_t b[JMP_LEN];

	memcpy(b, (const void *)x->start, JMP_LEN);
	b[0] = on ? 0xcc : x->orig[0];
	return poke(x, x->start, b);
}

static int try_jmp(struct ut_xol *x)
{
	struct ut_xol_code code = code_of(x);
	int early = x->start != x->addr;
	uint8_t b[JMP_LEN];

	if (!x->jmp_ok || force_trap ||
	    !ut_xol_window_ok(&code, x->addr, x->start, x->start + x->disp) ||
	    ut_insn_jmp32(b, x->start, x->slot))
		return 0;
	/* (b): with an int3 at start too, no thread newly enters [start, addr) */
	if (early && start_int3(x, 1))
		return 0;
	if (!threads_out(x) || poke(x, x->start, b)) {
		if (early)
			start_int3(x, 0);
		return 0;
	}
	__atomic_store_n(&x->mode, UT_XOL_JMP, __ATOMIC_RELEASE);
	return 1;
}

/* A new entry for addr (or the forgotten one it had), not published until ready. */
static struct ut_xol *entry_for(uintptr_t addr, int *fresh)
{
	struct ut_xol *free_one = NULL;

	for (uint32_t i = 0; i < nr_xols; i++) {
		if (xols[i].slot && xols[i].addr == addr) {
			*fresh = 0;
			return &xols[i];
		}
		if (!xols[i].slot && !free_one)
			free_one = &xols[i];
	}
	*fresh = 1;
	if (free_one)
		return free_one;
	return nr_xols < XOL_MAX ? &xols[nr_xols] : NULL;
}

/*
 * The slot of addr's instruction alone (TRAP mode only); its length or -1 (an
 * instruction that cannot move: someone's int3, xbegin).
 */
static int build_alone(struct ut_xol *x, uint8_t *code)
{
	uint8_t buf[UT_INSN_MAX];
	size_t avail =
	    x->hi > x->addr && x->hi - x->addr < sizeof(buf) ? x->hi - x->addr : sizeof(buf);
	struct ut_insn in;

	x->start = x->addr;
	read_orig(x->addr, buf, avail);
	if (!ut_insn_decode(buf, avail, x->addr, &in))
		return -1;
	return build_slot(x, x->addr + in.len, code);
}

/* A fresh entry: its window, its slot, and whether JMP mode may come. */
static int prepare(struct ut_xol *x, uintptr_t addr, uintptr_t lo, uintptr_t hi)
{
	struct ut_xol_code code;
	uint8_t slot[SLOT_LEN];
	uintptr_t start, end;
	int len = -1, err;

	memset(x, 0, sizeof(*x));
	x->addr = x->start = addr;
	x->lo = lo;
	x->hi = hi;
	x->slot = slot_alloc(addr);
	if (!x->slot)
		return -ENOMEM;
	code = code_of(x);
	if (lo && hi && !ut_xol_window(&code, addr, &start, &end)) {
		x->start = start;
		len = build_slot(x, end, slot);
		x->jmp_ok = len > 0;
	}
	if (len < 0)
		len = build_alone(x, slot);
	read_orig(x->start, x->orig, JMP_LEN);
	err = len < 0 ? -EINVAL : slot_write(x, slot);
	if (err) {
		slot_free(x->slot);
		x->slot = 0;
	}
	return err;
}

int ut_xol_arm(uintptr_t addr, uintptr_t lo, uintptr_t hi, ut_xol_fn fn, ut_xol_fast fast,
	       void *ctx, struct ut_xol **out)
{
	struct ut_xol *x;
	uint8_t b[JMP_LEN];
	int fresh, err;

	if (force_trap < 0) {
		const char *e = getenv("UTRACE_TEST_XOL");

		force_trap = e && !strcmp(e, "trap");
	}
	if (!addr || !fn)
		return -EINVAL;
	x = entry_for(addr, &fresh);
	if (!x)
		return -ENOMEM;
	if (!fresh && x->mode != UT_XOL_OFF)
		return -EEXIST;
	/*
	 * addr must not be inside a function's 5-byte patch site (its patching would
	 * overwrite the int3) nor inside what another probe runs out of line.
	 */
	for (uintptr_t a = addr - (JMP_LEN - 1); a <= addr; a++)
		if (ut_site_find(a, &(struct ut_obj *){0}))
			return -EBUSY;
	if (displaced(x, addr))
		return -EBUSY;
	/*
	 * Other bounds than last time: a new slot, as (a) may now say otherwise; the
	 * old one stays, a thread may still be in its copy.
	 */
	if (fresh || x->lo != lo || x->hi != hi) {
		err = prepare(x, addr, lo, hi);
		if (err)
			return err;
		if (x == &xols[nr_xols])
			__atomic_store_n(&nr_xols, nr_xols + 1, __ATOMIC_RELEASE);
	}
	x->ctx = ctx;
	__atomic_store_n(&x->fn, fn, __ATOMIC_RELEASE);
	__atomic_store_n(&x->fast, fast, __ATOMIC_RELEASE);
	__atomic_store_n(&x->mode, UT_XOL_TRAP, __ATOMIC_RELEASE);
	memcpy(b, (const void *)addr, JMP_LEN);
	b[0] = 0xcc;
	err = poke(x, addr, b);
	if (err) {
		__atomic_store_n(&x->mode, UT_XOL_OFF, __ATOMIC_RELEASE);
		return err;
	}
	try_jmp(x);
	*out = x;
	return 0;
}

int ut_xol_disarm(struct ut_xol *x)
{
	uint8_t b[JMP_LEN];
	int err;

	if (!x->slot || x->mode == UT_XOL_OFF)
		return 0;
	if (x->mode == UT_XOL_JMP) {
		err = poke(x, x->start, x->orig);
	} else {
		memcpy(b, (const void *)x->addr, JMP_LEN);
		b[0] = x->orig[x->addr - x->start];
		err = poke(x, x->addr, b);
	}
	if (!err)
		__atomic_store_n(&x->mode, UT_XOL_OFF, __ATOMIC_RELEASE);
	return err;
}

void ut_xol_forget(uintptr_t lo, uintptr_t hi)
{
	for (uint32_t i = 0; i < nr_xols; i++) {
		struct ut_xol *x = &xols[i];

		if (!x->slot || x->addr < lo || x->addr >= hi)
			continue;
		__atomic_store_n(&x->mode, UT_XOL_OFF, __ATOMIC_RELEASE);
		slot_free(x->slot);
		__atomic_store_n(&x->slot, 0, __ATOMIC_RELEASE);
	}
}

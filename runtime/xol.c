// SPDX-License-Identifier: MIT
/*
 * xol.c - probes at any instruction of a loaded object, run "out of line".
 *
 * A probe at addr gets a slot near the object (within jmp rel32 of addr): a
 * little code that enters ut_xol_entry (arch/x86_64/xol.S: saves every register,
 * calls the probe's fn, restores), then a copy of the instructions the probe
 * displaces, relocated by insn.c, and a jmp back to the first byte after them.
 * addr itself is armed in one of two ways:
 *
 *   TRAP  an int3: the SIGTRAP handler (patch.c) sends the thread to the slot.
 *         Works for every instruction the relocator can move.  The copy holds
 *         the one instruction at addr, or, when JMP mode is possible, all those
 *         JMP mode displaces (so that no thread runs them in place any more).
 *   JMP   a 5-byte jmp to the slot: no signal.  It overwrites every
 *         instruction that starts in [addr, addr + 5), so it is taken only when
 *         that is safe:
 *           (a) the function [lo, hi) is known and decodes linearly, none of its
 *               direct branches lands inside (addr, addr + displaced), it has no
 *               indirect jmp (a jump table could land there), the displaced
 *               instructions hold no call but as the last one (its return would
 *               come back inside), no syscall, int3 or xbegin, and no other
 *               probe or patch site;
 *           (b) no thread is inside (addr, addr + displaced): with the int3 in
 *               place none can newly enter, so each thread is looked at once.
 *               One blocked in a system call whose user pc (/proc/self/task/TID/
 *               syscall) is outside is safe; every other gets SIGTRAP (tgkill),
 *               and its handler moves its rip into the copy if it is inside and
 *               answers.  A thread that does not answer within 200 ms (SIGTRAP
 *               blocked, stopped) leaves the site in TRAP mode.
 *
 * Every change of addr's bytes goes through ut_poke_batch (the breakpoint
 * protocol); a thread that meets the int3 meanwhile goes to the slot.  Slots
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

#define XOL_MAX 1024u
#define SLOT_LEN 256u /* code per probe */
#define SLOTS 16u     /* per chunk: one code page, one data page */
#define CHUNK_SIZE 8192u
#define MAX_CHUNKS 256u
#define COPY_OFF 23u		 /* the copy in a slot (xol.S) */
#define DATA_ENTRY (SLOTS * 16u) /* the data page's pointer to ut_xol_entry */
#define JMP_LEN 5u
#define REACH ((int64_t)(1l << 31) - 2 * CHUNK_SIZE)
#define ANSWER_NS 200000000l /* (b): how long threads have to answer */

struct ut_xol {
	uintptr_t addr, lo, hi;
	ut_xol_fn fn;
	void *ctx;
	uintptr_t slot; /* its code; 0: a free entry (never used, or forgotten) */
	uint8_t mode;	/* enum ut_xol_mode: what addr holds now */
	uint8_t disp;	/* bytes of addr's instructions the copy stands for */
	uint8_t jmp_ok; /* the copy is the one JMP mode needs: (a) holds */
	uint8_t n;	/* instructions in the copy: at ioff in addr, coff in the copy */
	uint8_t len1;	/* the length of addr's instruction */
	uint8_t ioff[JMP_LEN], coff[JMP_LEN];
	uint8_t orig[JMP_LEN]; /* addr's bytes before it was armed */
	struct ut_poke poke;   /* the last change (ut_poke_batch keeps a pointer) */
};

void ut_xol_entry(void); /* xol.S */
void ut_xol_hit(struct ut_xol *x, const struct ut_xol_regs *regs);

static struct ut_xol xols[XOL_MAX];
static volatile uint32_t nr_xols;
static uintptr_t chunks[MAX_CHUNKS];
static uint16_t chunk_used[MAX_CHUNKS]; /* a bit per slot */
static uint32_t nr_chunks;
static int force_trap = -1; /* UTRACE_TEST_XOL=trap */

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

static int64_t dist(uintptr_t a, uintptr_t b)
{
	return a > b ? (int64_t)(a - b) : (int64_t)(b - a);
}

/*
 * n bytes of code at a as they were before any probe: the first byte of a TRAP
 * probe, all five of a JMP probe put back.
 */
static void read_orig(uintptr_t a, uint8_t *buf, size_t n)
{
	memcpy(buf, (const void *)a, n);
	for (uint32_t i = 0; i < nr_xols; i++) {
		const struct ut_xol *y = &xols[i];
		size_t len = y->mode == UT_XOL_JMP ? JMP_LEN : 1;

		if (!y->slot || y->mode == UT_XOL_OFF)
			continue;
		for (size_t k = 0; k < len; k++)
			if (y->addr + k >= a && y->addr + k < a + n)
				buf[y->addr + k - a] = y->orig[k];
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

/* The slot's entry (xol.S describes it) before the copy of len bytes; its data. */
static int slot_write(struct ut_xol *x, const uint8_t *copy, size_t len)
{
	uintptr_t page = x->slot & ~4095ul, data = page + 4096 + (x->slot - page) / SLOT_LEN * 16;
	uint8_t code[SLOT_LEN];

	memset(code, 0xcc, sizeof(code));
	memcpy(code, (const uint8_t[]){0x48, 0x8d, 0x64, 0x24, 0x80}, 5); /* lea -128(%rsp) */
	rip_op(code, x->slot, 5, 0x35, data);				  /* pushq site */
	rip_op(code, x->slot, 11, 0x35, data + 8);			  /* pushq addr */
	rip_op(code, x->slot, 17, 0x15, page + 4096 + DATA_ENTRY);	  /* call *entry */
	memcpy(code + COPY_OFF, copy, len);
	((uintptr_t *)data)[0] = (uintptr_t)x;
	((uintptr_t *)data)[1] = x->addr;
	/* the page stays executable throughout: other slots on it may be running */
	if (mprotect((void *)page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	memcpy((void *)x->slot, code, sizeof(code));
	mprotect((void *)page, 4096, PROT_READ | PROT_EXEC);
	return 0;
}

/* ---- what may be displaced -------------------------------------------------------- */

/*
 * Relocate the instructions that start in [addr, addr + want) into copy (for
 * the slot), then the jmp back.  want 1: only addr's.  Returns the copy's length,
 * or -1: one cannot move, or (want > 1) must not be displaced.
 */
static int build_copy(struct ut_xol *x, unsigned int want, uint8_t *copy)
{
	uintptr_t at = x->slot + COPY_OFF;
	size_t avail = x->hi > x->addr ? x->hi - x->addr : UT_INSN_MAX;
	uint8_t buf[JMP_LEN + UT_INSN_MAX];
	unsigned int off = 0, out = 0, i = 0;

	if (avail > sizeof(buf))
		avail = sizeof(buf);
	read_orig(x->addr, buf, avail);
	while (off < want) {
		struct ut_insn in;
		int n;

		if (!ut_insn_decode(buf + off, avail - off, x->addr + off, &in))
			return -1;
		if (in.kind == UT_INSN_INT3 || in.kind == UT_INSN_XBEGIN)
			return -1;
		if (want > 1 && (in.kind == UT_INSN_SYS ||
				 ((in.kind == UT_INSN_CALL || in.kind == UT_INSN_CALL_IND) &&
				  off + in.len < want)))
			return -1;
		n = ut_insn_relocate(buf + off, &in, x->addr + off, copy + out,
				     SLOT_LEN - COPY_OFF - JMP_LEN - out, at + out);
		if (n < 0)
			return -1;
		if (!off)
			x->len1 = in.len;
		x->ioff[i] = (uint8_t)off;
		x->coff[i++] = (uint8_t)out;
		off += in.len;
		out += (unsigned int)n;
	}
	if (ut_insn_jmp32(copy + out, at + out, x->addr + off))
		return -1;
	x->n = (uint8_t)i;
	x->disp = (uint8_t)off;
	return (int)(out + JMP_LEN);
}

/* Does another armed probe displace the instruction at a (a inside its copy)? */
static int displaced(const struct ut_xol *x, uintptr_t a)
{
	for (uint32_t i = 0; i < nr_xols; i++) {
		const struct ut_xol *y = &xols[i];

		if (y != x && y->slot && y->mode != UT_XOL_OFF && a > y->addr &&
		    a < y->addr + y->disp)
			return 1;
	}
	return 0;
}

/* Is a function's patch site or an armed probe at a? */
static int taken(const struct ut_xol *x, uintptr_t a)
{
	struct ut_obj *o;

	if (ut_site_find(a, &o))
		return 1;
	for (uint32_t i = 0; i < nr_xols; i++)
		if (&xols[i] != x && xols[i].slot && xols[i].mode != UT_XOL_OFF &&
		    xols[i].addr == a)
			return 1;
	return 0;
}

/* (a): does anything in [lo, hi) branch into (addr, addr + disp), or jump through a table? */
static int function_ok(const struct ut_xol *x)
{
	uintptr_t pc = x->lo, end = x->addr + x->disp;
	int seen = 0;

	if (x->addr + x->disp > x->hi)
		return 0;
	for (uintptr_t a = x->addr + 1; a < end; a++)
		if (taken(x, a))
			return 0;
	while (pc < x->hi) {
		uint8_t buf[UT_INSN_MAX];
		size_t avail = x->hi - pc < sizeof(buf) ? x->hi - pc : sizeof(buf);
		struct ut_insn in;

		read_orig(pc, buf, avail);
		if (!ut_insn_decode(buf, avail, pc, &in) || in.kind == UT_INSN_JMP_IND)
			return 0;
		if (in.rel_size && in.target > x->addr && in.target < end)
			return 0;
		seen |= pc == x->addr;
		pc += in.len;
	}
	return seen;
}

/* ---- (b): every thread out of the displaced range --------------------------------- */

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
 * Ask every other thread to step out of (addr, addr + disp); 1 when all did.  A
 * thread that blocks SIGTRAP all along counts only if seen blocked in a system
 * call outside the range (the control thread, usually).
 */
static int threads_out(struct ut_xol *x)
{
	uintptr_t lo = x->addr + 1, hi = x->addr + x->disp;
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
 * Our SIGTRAP was pending when the thread met an armed int3: the kernel merged the
 * two (one signal, the first one's siginfo), so rip is just past an int3 of ours.
 * Past an instruction longer than one byte that cannot be anything else; past a
 * one-byte one it could also be a thread that stood there when the int3 went in,
 * but only the probe being asked about is taken so (its copy never comes back to
 * addr + 1): such a thread then runs addr's instruction twice (for an SDT probe's
 * nop, harmless).
 */
static void merged_int3(greg_t *g)
{
	uintptr_t a = (uintptr_t)g[REG_RIP] - 1;
	uint32_t nr = __atomic_load_n(&nr_xols, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < nr; i++) {
		const struct ut_xol *x = &xols[i];

		if (x->addr != a || !__atomic_load_n(&x->slot, __ATOMIC_ACQUIRE) ||
		    *(volatile uint8_t *)a != 0xcc)
			continue;
		if (x->len1 > 1 || (__atomic_load_n(&ask.active, __ATOMIC_ACQUIRE) && ask.x == x))
			g[REG_RIP] = (greg_t)x->slot;
		return;
	}
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
		if (rip > x->addr && rip < x->addr + x->disp) {
			answer = 2; /* not at one of the copied instructions: cannot say */
			for (uint32_t k = 0; k < x->n; k++)
				if (rip == x->addr + x->ioff[k]) {
					g[REG_RIP] = (greg_t)(x->slot + COPY_OFF + x->coff[k]);
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
	uint32_t nr = __atomic_load_n(&nr_xols, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < nr; i++) {
		struct ut_xol *x = &xols[i];

		if (x->addr != addr || !__atomic_load_n(&x->slot, __ATOMIC_ACQUIRE))
			continue;
		/* not an int3 any more: the jmp, or the original, is in place */
		return *(volatile uint8_t *)addr == 0xcc ? x->slot : addr;
	}
	return 0;
}

/* ---- arming ----------------------------------------------------------------------- */

/* addr's 5 bytes become b (int3 first, ut_poke_batch); a thread that traps meanwhile
 * goes to the slot. */
static int poke(struct ut_xol *x, const uint8_t *b)
{
	x->poke.addr = x->addr;
	x->poke.to = x->slot;
	memcpy(x->poke.bytes, b, JMP_LEN);
	return ut_poke_batch(&x->poke, 1);
}

static int try_jmp(struct ut_xol *x)
{
	uint8_t b[JMP_LEN];

	if (!x->jmp_ok || force_trap || !function_ok(x) || ut_insn_jmp32(b, x->addr, x->slot) ||
	    !threads_out(x))
		return 0;
	if (poke(x, b))
		return 0;
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

/* A fresh entry: its slot, its copy, and whether JMP mode may come. */
static int prepare(struct ut_xol *x, uintptr_t addr, uintptr_t lo, uintptr_t hi)
{
	uint8_t copy[SLOT_LEN];
	int len = -1, err;

	memset(x, 0, sizeof(*x));
	x->addr = addr;
	x->lo = lo;
	x->hi = hi;
	read_orig(addr, x->orig, JMP_LEN);
	x->slot = slot_alloc(addr);
	if (!x->slot)
		return -ENOMEM;
	if (lo && hi && lo <= addr && addr + JMP_LEN <= hi) {
		len = build_copy(x, JMP_LEN, copy);
		x->jmp_ok = len > 0;
	}
	if (len < 0)
		len = build_copy(x, 1, copy);
	err = len < 0 ? -EINVAL : slot_write(x, copy, (size_t)len);
	if (err) {
		slot_free(x->slot);
		x->slot = 0;
	}
	return err;
}

int ut_xol_arm(uintptr_t addr, uintptr_t lo, uintptr_t hi, ut_xol_fn fn, void *ctx,
	       struct ut_xol **out)
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
	__atomic_store_n(&x->mode, UT_XOL_TRAP, __ATOMIC_RELEASE);
	memcpy(b, (const void *)addr, JMP_LEN);
	b[0] = 0xcc;
	err = poke(x, b);
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
	memcpy(b, (const void *)x->addr, JMP_LEN);
	if (x->mode == UT_XOL_JMP)
		memcpy(b, x->orig, JMP_LEN);
	else
		b[0] = x->orig[0];
	err = poke(x, b);
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

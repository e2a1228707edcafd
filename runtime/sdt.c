// SPDX-License-Identifier: MIT
/*
 * sdt.c - the <sys/sdt.h> probes objects already carry (.note.stapsdt), as trace
 * events PROVIDER:NAME of the events/ tree, with the shape of the kernel's uprobe
 * events:
 *
 *   common fields, unsigned long __probe_ip (the site), then arg1 .. argN packed
 *   one after the other, each typed from its operand (u8 .. u64, s8 .. s64);
 *   print fmt "(0x%lx) arg1=%Lu arg2=%d", REC->__probe_ip, REC->arg1, REC->arg2
 *
 * which renders as the kernel prints a uprobe event's line (its own format file
 * says "(%lx)" where its line says "(0x%lx)": the line is what people read).
 *
 * Finding.  events.c scans each object once it is relocated (at attach, after
 * dlopen) and hands its file to ut_sdt_scan(): the notes are read from the file
 * (the section is not loaded), each note's pc and semaphore are moved by the
 * difference between where .stapsdt.base is and where the note says it was (a
 * prelinked object), then by the load bias.  Each well-formed note becomes one
 * probe: a descriptor (struct utrace_event, built here in the layout the macros
 * give theirs) that events.c announces, switches and forgets like any other.
 * Two notes of one event with the same operand types are one definition for
 * utracefs; with other types, two definitions of one event (as two objects that
 * define one event differently).
 *
 * Switching.  When its descriptor's mask becomes non-zero (any instance), the
 * site is armed (xol.h: a jmp where a patch window is safe, else an int3, which
 * utracefs's console hears of once) and its semaphore, if it has one, counted up, so that
 * the program computes the arguments; when it becomes zero, counted down and
 * disarmed.  Several sites may share a semaphore: each counts once.  The mask is
 * stored before the site is armed (no thread reaches the probe before), so that
 * the first hit after arming is written; the semaphore says "enabled" last.
 *
 * Hitting.  A hit first runs sdt_fast, with only the general registers saved
 * (xol.S; this file is built not to touch the others): it builds the record on
 * its stack from the registers xol hands it, constants, and memory that is
 * surely mapped (the thread's own stack above its frame, a global the note names
 * inside the object's data), and writes it with ut_event_write(), the writer of
 * every program event.  Anything else (an operand elsewhere in memory, the
 * thread's first event, a filter on COMM, ...) sends the hit to sdt_hit, with
 * the whole state saved, which reads other memory with process_vm_readv() on
 * the own process (an address that faults gives 0, never a crash).
 *
 * Probes come from one mmap'd table and are reused once their object is gone.
 */
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "rt.h"
#include "ut_event.h"
#include "ut_sdt.h"
#include "utrace/event.h"
#include "xol.h"

#define SDT_MAX 4096u
#define SDT_FMT_MAX 512u
#define SDT_NOTES_MAX (16u << 20) /* a section larger than this is not read */
#define SDT_REC_MAX (16u + 8u * UT_SDT_ARGS_MAX)

struct ut_sdt_probe {
	struct utrace_event ev;
	struct utrace_event_field fields[2 + UT_SDT_ARGS_MAX]; /* __probe_ip, args, end */
	char system[UT_EVENT_NAME_MAX], name[UT_EVENT_NAME_MAX];
	char print_fmt[SDT_FMT_MAX];
	struct ut_sdt_arg args[UT_SDT_ARGS_MAX];
	uint64_t sym_addr[UT_SDT_ARGS_MAX];
	uint8_t direct[UT_SDT_ARGS_MAX]; /* a global in the object's data: read directly */
	uint32_t nargs;
	uint8_t used, armed, said, said_trap; /* said: not armed; said_trap: armed as an int3 */
	uintptr_t addr;
	uintptr_t lo, hi;	/* the function around addr, 0: unknown (TRAP mode only) */
	volatile uint16_t *sem; /* NULL: none */
	struct ut_xol *x;
};

static struct ut_sdt_probe *probes;

static const char *const arg_names[UT_SDT_ARGS_MAX] = {"arg1", "arg2",	"arg3",	 "arg4",
						       "arg5", "arg6",	"arg7",	 "arg8",
						       "arg9", "arg10", "arg11", "arg12"};

/* ---- finding ------------------------------------------------------------------------------ */

struct scan {
	struct ut_elf *elf;
	const struct dl_phdr_info *info;
	uintptr_t base;
	uint64_t sdt_base; /* the link-time address of .stapsdt.base, 0: none */
	void *syms;	   /* symbol and string tables, read at the first symbol an operand names */
	size_t syms_len, strs_len;
	char *strs;
	int syms_tried, full; /* full: .symtab (local symbols too), not .dynsym */
	void (*add)(struct utrace_event *ev, struct ut_sdt_probe *p, void *arg);
	void *arg;
};

/*
 * Does [addr, addr + len) lie in one of the object's loaded segments with flags
 * want (PF_X: code, PF_W: data, outside its read-only-after-relocation part; PF_R:
 * readable)?  A note is the file's word only: a site or a semaphore elsewhere is
 * not touched, a global elsewhere not read directly.
 */
static int in_segment(const struct scan *sc, uintptr_t addr, size_t len, unsigned int want)
{
	const struct dl_phdr_info *info = sc->info;
	int ok = 0;

	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t lo = sc->base + ph->p_vaddr, hi = lo + ph->p_memsz;

		if (ph->p_type == PT_LOAD && (ph->p_flags & want) == want && addr >= lo &&
		    addr + len <= hi && addr + len > addr)
			ok = 1;
		if (ph->p_type == PT_GNU_RELRO && (want & PF_W) && addr < hi && addr + len > lo)
			return 0;
	}
	return ok;
}

static int ident_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= UT_EVENT_NAME_MAX || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

/* .symtab, else .dynsym, and its string table (once per object). */
static void syms_load(struct scan *sc)
{
	const Elf64_Shdr *s = ut_elf_find(sc->elf, ".symtab");

	sc->syms_tried = 1;
	sc->full = s && s->sh_type == SHT_SYMTAB;
	if (!sc->full)
		s = ut_elf_find(sc->elf, ".dynsym");
	if (!s || s->sh_link >= sc->elf->shnum || s->sh_entsize != sizeof(Elf64_Sym))
		return;
	sc->syms = ut_elf_read(sc->elf, s, 256u << 20);
	sc->syms_len = sc->syms ? s->sh_size : 0;
	sc->strs = ut_elf_read(sc->elf, &sc->elf->sh[s->sh_link], 256u << 20);
	sc->strs_len = sc->strs ? sc->elf->sh[s->sh_link].sh_size : 0;
}

/* The run-time address of a defined symbol of the object, 0 if there is none. */
static uint64_t sym_lookup(struct scan *sc, const char *name)
{
	const Elf64_Sym *sym;

	if (!sc->syms_tried)
		syms_load(sc);
	if (!sc->syms || !sc->strs)
		return 0;
	sym = sc->syms;
	for (size_t i = 0; i < sc->syms_len / sizeof(*sym); i++)
		if (sym[i].st_shndx != SHN_UNDEF && sym[i].st_name < sc->strs_len &&
		    !strncmp(sc->strs + sym[i].st_name, name, sc->strs_len - sym[i].st_name) &&
		    sym[i].st_value)
			return sc->base + sym[i].st_value;
	return 0;
}

/*
 * The function around addr (run time), [*lo, *hi), for xol.c's check that nothing
 * branches into the bytes a jmp would cover; both 0 (the probe stays a trap) when
 * that cannot be known: no full symbol table, or the function has a part
 * elsewhere (GCC's NAME.cold, whose branches come back into the body unseen).
 */
static void func_bounds(struct scan *sc, uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
	const Elf64_Sym *sym;
	const char *name = NULL;
	size_t nsyms, len;

	*lo = *hi = 0;
	if (!sc->syms_tried)
		syms_load(sc);
	if (!sc->full || !sc->syms || !sc->strs)
		return;
	sym = sc->syms;
	nsyms = sc->syms_len / sizeof(*sym);
	for (size_t i = 0; i < nsyms && !name; i++)
		if (ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC && sym[i].st_shndx != SHN_UNDEF &&
		    sym[i].st_size && sym[i].st_name < sc->strs_len &&
		    addr - (sc->base + sym[i].st_value) < sym[i].st_size) {
			name = sc->strs + sym[i].st_name;
			*lo = sc->base + sym[i].st_value;
			*hi = *lo + sym[i].st_size;
		}
	if (!name || !memchr(name, 0, sc->strs_len - (size_t)(name - sc->strs))) {
		*lo = *hi = 0;
		return;
	}
	len = strlen(name);
	for (size_t i = 0; i < nsyms; i++) {
		const char *n = sym[i].st_name < sc->strs_len ? sc->strs + sym[i].st_name : "";

		if (sc->strs_len - sym[i].st_name > len + 5 && !strncmp(n, name, len) &&
		    !strncmp(n + len, ".cold", 5)) {
			*lo = *hi = 0;
			return;
		}
	}
}

static struct ut_sdt_probe *probe_alloc(void)
{
	if (!probes) {
		void *m = mmap(NULL, SDT_MAX * sizeof(*probes), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (m == MAP_FAILED)
			return NULL;
		probes = m;
	}
	for (uint32_t i = 0; i < SDT_MAX; i++)
		if (!probes[i].used) {
			memset(&probes[i], 0, sizeof(probes[i]));
			probes[i].used = 1;
			return &probes[i];
		}
	return NULL;
}

/* The descriptor of p: the kernel's uprobe layout and print format. */
static int describe(struct ut_sdt_probe *p)
{
	struct utrace_event *ev = &p->ev;
	size_t o = 0, room = sizeof(p->print_fmt);
	unsigned int off = 16;
	int n;

	p->fields[0] = (struct utrace_event_field){"unsigned long",   "__probe_ip", 8, 8, 8, 0,
						   UTRACE_FIELD_PLAIN};
	n = snprintf(p->print_fmt, room, "\"(0x%%lx)");
	for (uint32_t i = 0; i < p->nargs && n > 0; i++) {
		const struct ut_sdt_arg *a = &p->args[i];

		p->fields[i + 1] = (struct utrace_event_field){
		    ut_sdt_type_name(a), arg_names[i],	    (unsigned short)off, a->size, a->size,
		    a->is_signed,	 UTRACE_FIELD_PLAIN};
		off += a->size;
		o += (size_t)n;
		n = snprintf(p->print_fmt + o, room - o, " %s=%s", arg_names[i],
			     ut_sdt_type_fmt(a));
	}
	o += (size_t)n;
	n = snprintf(p->print_fmt + o, room - o, "\", REC->__probe_ip");
	for (uint32_t i = 0; i < p->nargs && n > 0 && o + (size_t)n < room; i++) {
		o += (size_t)n;
		n = snprintf(p->print_fmt + o, room - o, ", REC->%s", arg_names[i]);
	}
	if (n < 0 || o + (size_t)n >= room)
		return -ENAMETOOLONG;
	*ev = (struct utrace_event){.magic = UTRACE_EVENT_MAGIC,
				    .abi = UTRACE_EVENT_ABI,
				    .system = p->system,
				    .name = p->name,
				    .fields = p->fields,
				    .nr_fields = 1 + p->nargs,
				    .size = off,
				    .print_fmt = p->print_fmt};
	return 0;
}

static void add_note(const struct ut_sdt_note *n, void *arg)
{
	struct scan *sc = arg;
	struct ut_sdt_probe *p;
	/* where .stapsdt.base is minus where the note says it was: 0 unless prelinked */
	uint64_t delta = n->base && sc->sdt_base ? sc->sdt_base - n->base : 0;
	uintptr_t addr = sc->base + n->pc + delta;
	int nargs;

	if (!in_segment(sc, addr, 1, PF_X))
		return; /* not in the object's code: a note of something else */
	if (!ident_ok(n->provider) || !ident_ok(n->name)) {
		ut_note("SDT probe %.64s:%.64s not traced: its names are not identifiers",
			n->provider, n->name);
		return;
	}
	if (!(p = probe_alloc()))
		return;
	nargs = ut_sdt_args_parse(n->args, p->args, UT_SDT_ARGS_MAX);
	for (int i = 0; i < nargs; i++) {
		const struct ut_sdt_arg *a = &p->args[i];

		if (a->has_sym && !(p->sym_addr[i] = sym_lookup(sc, a->sym)))
			nargs = -ENOENT;
		else if (a->has_sym && a->index == UT_SDT_NOREG &&
			 (a->reg == UT_SDT_NOREG || a->reg == UT_SDT_RIP))
			p->direct[i] = in_segment(sc, p->sym_addr[i] + (uint64_t)a->disp, a->size,
						  PF_R);
	}
	strcpy(p->system, n->provider);
	strcpy(p->name, n->name);
	p->nargs = nargs > 0 ? (uint32_t)nargs : 0;
	if (nargs < 0 || describe(p)) {
		ut_note("SDT probe %s:%s not traced: arguments \"%.200s\" not understood",
			p->system, p->name, n->args);
		p->used = 0;
		return;
	}
	p->addr = addr;
	func_bounds(sc, addr, &p->lo, &p->hi);
	if (n->sem) {
		uintptr_t sem = sc->base + n->sem + delta;

		if (sem % 2 || !in_segment(sc, sem, 2, PF_W)) {
			ut_note("SDT probe %s:%s not traced: its semaphore is not in the object's "
				"data",
				p->system, p->name);
			p->used = 0;
			return;
		}
		p->sem = (volatile uint16_t *)sem;
	}
	sc->add(&p->ev, p, sc->arg);
}

int ut_sdt_scan(const char *path, const struct dl_phdr_info *info,
		void (*add)(struct utrace_event *ev, struct ut_sdt_probe *p, void *arg), void *arg)
{
	struct ut_elf e;
	struct scan sc = {.elf = &e, .info = info, .base = info->dlpi_addr, .add = add, .arg = arg};
	const Elf64_Shdr *notes, *sbase;
	void *buf;
	int n;

	if (ut_elf_open(&e, path))
		return 0;
	notes = ut_elf_find(&e, ".note.stapsdt");
	if (!notes || notes->sh_type != SHT_NOTE ||
	    !(buf = ut_elf_read(&e, notes, SDT_NOTES_MAX))) {
		ut_elf_close(&e);
		return 0;
	}
	sbase = ut_elf_find(&e, ".stapsdt.base");
	if (sbase && (sbase->sh_flags & SHF_ALLOC))
		sc.sdt_base = sbase->sh_addr;
	n = (int)ut_sdt_notes(buf, notes->sh_size, add_note, &sc);
	munmap(buf, notes->sh_size);
	if (sc.syms)
		munmap(sc.syms, sc.syms_len);
	if (sc.strs)
		munmap(sc.strs, sc.strs_len);
	ut_elf_close(&e);
	return n;
}

/* ---- hitting -------------------------------------------------------------------------------- */

/*
 * This file is built with -mgeneral-regs-only (Makefile: RT_GPR_SRC): sdt_fast
 * runs with only the general registers saved (xol.S), so nothing here may use a
 * vector or x87 register, nor call what does (libc's memcpy): copies of a size
 * known only at run time go through copy_small().
 */
static void copy_small(void *dst, const void *src, size_t n)
{
	switch (n) {
	case 1: __builtin_memcpy(dst, src, 1); break;
	case 2: __builtin_memcpy(dst, src, 2); break;
	case 4: __builtin_memcpy(dst, src, 4); break;
	default: __builtin_memcpy(dst, src, 8); break;
	}
}

/*
 * Is [addr, addr + n) on the thread's own stack, between the caller's frame and
 * the stack's top?  All of that is mapped (the stack tracer reads it the same
 * way), the probed frame and its red zone included; the top is not known for a
 * thread until sdt_hit or the stack tracer found it.
 */
static int on_own_stack(uint64_t addr, size_t n)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0), top = ut_thr.stk_top;

	return top && sp >= ut_thr.stk_lo && sp < top && addr >= sp && addr + n <= top &&
	       addr + n > addr;
}

/* The fast path's reads: the stack directly, anything else -EAGAIN (sdt_hit then). */
static int read_fast(uint64_t addr, void *buf, size_t n)
{
	if (!on_own_stack(addr, n))
		return -EAGAIN;
	copy_small(buf, (const void *)(uintptr_t)addr, n);
	return 0;
}

/* A global the note names, checked at scan time to lie in the object's data. */
static int read_static(uint64_t addr, void *buf, size_t n)
{
	copy_small(buf, (const void *)(uintptr_t)addr, n);
	return 0;
}

/*
 * sdt_hit's reads: the stack directly, other addresses with process_vm_readv() on
 * the own process, which faults for us: 0, or -EFAULT (the value is then 0).
 */
static int read_mem(uint64_t addr, void *buf, size_t n)
{
	struct iovec local = {buf, n}, remote = {(void *)(uintptr_t)addr, n};
	long got;

	if (!read_fast(addr, buf, n))
		return 0;
	got = syscall(SYS_process_vm_readv, (pid_t)syscall(SYS_getpid), &local, 1UL, &remote, 1UL,
		      0UL);
	return got == (long)n ? 0 : -EFAULT;
}

/*
 * Build p's record into buf (after UT_EVENT_HDR bytes) from regs, memory read
 * with rd (globals the note names directly), and write it: 0, or 1 when rd could
 * not read an operand or ut_event_write() answered 1 (fast only), nothing written.
 */
static int sdt_emit(struct ut_sdt_probe *p, const struct ut_xol_regs *regs,
		    int (*rd)(uint64_t addr, void *buf, size_t n), int fast)
{
	unsigned long long buf[(UT_EVENT_HDR + SDT_REC_MAX + 7) / 8];
	unsigned char *rec = (unsigned char *)buf + UT_EVENT_HDR;
	const uint64_t *r = (const uint64_t *)regs;
	int fault = 0;

	__builtin_memcpy(rec + 8, &regs->rip, 8);
	for (uint32_t i = 0; i < p->nargs; i++) {
		uint64_t v = ut_sdt_fetch(&p->args[i], r, p->sym_addr[i],
					  p->direct[i] ? read_static : rd, &fault);

		if (fault && fast)
			return 1;
		copy_small(rec + p->fields[i + 1].offset, &v, p->args[i].size); /* little-endian */
	}
	return ut_event_write(&p->ev, buf, p->ev.size, fast);
}

/* xol's fast fn: no system call, no vector register; 1 sends the hit to sdt_hit. */
static int sdt_fast(void *ctx, const struct ut_xol_regs *regs)
{
	struct ut_sdt_probe *p = ctx;

	if (!(p->ev.mask[0] | p->ev.mask[1]))
		return 0;
	return sdt_emit(p, regs, read_fast, 1);
}

/* xol's fn: any thread, possibly in signal context; errno is kept. */
static void sdt_hit(void *ctx, const struct ut_xol_regs *regs)
{
	struct ut_sdt_probe *p = ctx;
	int saved = errno;

	if (!(p->ev.mask[0] | p->ev.mask[1]))
		return;
	/* outside any handler the thread is on its own stack: find its top once */
	if (!ut_thr.stk_top && !ut_thr.sigdepth)
		ut_stack_own((uintptr_t)__builtin_frame_address(0));
	sdt_emit(p, regs, read_mem, 0);
	errno = saved;
}

_Static_assert(sizeof(struct ut_xol_regs) == UT_SDT_NREGS * 8, "ut_xol_regs is the fetch's array");
_Static_assert(offsetof(struct ut_xol_regs, rip) == UT_SDT_RIP * 8, "rip's index");
_Static_assert(offsetof(struct ut_xol_regs, r8) == UT_SDT_R8 * 8, "r8's index");

/* ---- switching ------------------------------------------------------------------------------ */

void ut_sdt_set(struct ut_sdt_probe *p, int on)
{
	int err;

	if (on && !p->armed) {
		err = ut_xol_arm(p->addr, p->lo, p->hi, sdt_hit, sdt_fast, p, &p->x);
		if (err) {
			if (!p->said)
				ut_note("SDT probe %s:%s at %#lx not armed (%s)", p->system,
					p->name, (unsigned long)p->addr, strerror(-err));
			p->said = 1;
			return;
		}
		p->armed = 1;
		/* a signal per hit: say so once, it explains the cost (bench/events.sh reads it) */
		if (ut_xol_mode(p->x) == UT_XOL_TRAP && !p->said_trap)
			ut_note("SDT probe %s:%s at %#lx armed as an int3 (a signal per hit)",
				p->system, p->name, (unsigned long)p->addr);
		p->said_trap |= ut_xol_mode(p->x) == UT_XOL_TRAP;
		if (p->sem)
			__atomic_add_fetch(p->sem, 1, __ATOMIC_RELAXED);
	} else if (!on && p->armed) {
		if (p->sem)
			__atomic_sub_fetch(p->sem, 1, __ATOMIC_RELAXED);
		ut_xol_disarm(p->x);
		p->armed = 0;
	}
}

void ut_sdt_forget(struct ut_sdt_probe *p)
{
	p->armed = 0; /* the object is gone: its code and semaphore with it */
	p->x = NULL;
	p->used = 0;
}

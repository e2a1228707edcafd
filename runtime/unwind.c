// SPDX-License-Identifier: MIT
/*
 * unwind.c - unwind information for function_graph's landings, so that glibc's
 * cancellation unwinder goes on through a swapped return address.
 *
 * A hijacked slot holds a landing instead of the caller's address R: a site
 * stub's C (stubs.c), or ut_return_to_handler.  The unwinders the program calls
 * through libc's symbols are interposed (interpose.c puts every R back first),
 * but glibc's cancellation (pthread_cancel) calls libgcc's _Unwind_ForcedUnwind
 * directly, and meets a landing as a return address.  For that address (minus
 * one, as unwinders look a return address up) libgcc finds here an FDE that
 * describes an empty frame: the CFA is the stack pointer (the slot + 8, where the
 * unwinder is), the return address is in the slot (CFA - 8), and every other
 * register is unchanged, with a personality routine, landing_personality.  The
 * unwinder calls it before it reads the slot: it puts the original return
 * addresses back into every hijacked slot of the thread (as pthread_exit's
 * wrapper does), so the unwinder reads R and goes on into the caller's real frame,
 * whose own cleanups (C++ destructors) run.  The thread's frames are left for the
 * thread-exit destructor to close.
 *
 * Where: the byte before ut_return_to_handler (an int3, no other unwind
 * information covers it: graph.S) and, in each site stub, the 4 bytes [B + 1, C)
 * inside `B: call D` (C - 1 is where a lookup lands; no instruction starts there,
 * so no interrupted program counter is ever described by these FDEs).  They are
 * registered with libgcc's __register_frame_info (from the libgcc_s that glibc
 * loads for its unwinder, which the constructor has loaded by then); without it
 * the unwinder stops at a landing as before (the thread still exits, without the
 * destructors above).
 *
 * Registered only once the program cancels a thread (pthread_cancel, interposed):
 * while anything is registered, every lookup of libgcc's unwinder (each C++ throw,
 * each backtrace()) takes libgcc's object lock, and an unwinder that runs in a
 * signal handler interrupting another one deadlocks on it.  Until then the records
 * are only written and kept in a list (the stub pages are few).
 *
 * The records (.eh_frame format): a CIE with augmentation "zPR" (personality and
 * FDE addresses as absolute 8-byte values), then one 32-byte FDE per range, then a
 * zero terminator.  The caller's buffer starts with room for libgcc's struct object.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "rt.h"

typedef void (*register_fn)(const void *begin, void *object);
typedef void *(*deregister_fn)(const void *begin);

typedef uintptr_t (*get_fn)(void *ctx);

static register_fn reg;
static deregister_fn dereg;

/* Written, not registered yet: the buffers (see ut_unwind_arm), under unwind_lock. */
#define UNWIND_PENDING_MAX 512
static pthread_mutex_t unwind_lock = PTHREAD_MUTEX_INITIALIZER;
static void *pending[UNWIND_PENDING_MAX];
static unsigned int nr_pending;
static int armed;

/* Register buf's records now if a thread was ever cancelled, else later. */
static void register_or_keep(void *buf)
{
	pthread_mutex_lock(&unwind_lock);
	if (armed || nr_pending == UNWIND_PENDING_MAX)
		reg((unsigned char *)buf + UT_UNWIND_OBJ, buf);
	else
		pending[nr_pending++] = buf;
	pthread_mutex_unlock(&unwind_lock);
}

/* buf was pending: forget it (1); it was registered (0). */
static int forget_pending(void *buf)
{
	int found = 0;

	pthread_mutex_lock(&unwind_lock);
	for (unsigned int i = 0; i < nr_pending; i++)
		if (pending[i] == buf) {
			pending[i] = pending[--nr_pending];
			found = 1;
			break;
		}
	pthread_mutex_unlock(&unwind_lock);
	return found;
}

void ut_unwind_arm(void)
{
	if (!reg || __atomic_load_n(&armed, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&unwind_lock);
	for (unsigned int i = 0; !armed && i < nr_pending; i++)
		reg((unsigned char *)pending[i] + UT_UNWIND_OBJ, pending[i]);
	nr_pending = 0;
	__atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&unwind_lock);
}
static get_fn get_cfa, get_ip; /* libgcc's _Unwind_GetCFA, _Unwind_GetIP */

#define CIE_LEN 32u
#define FDE_LEN 32u

/*
 * A frame that only holds the return address: see the top of the file.  A slot
 * that still holds the landing afterwards (no frame of the shadow stack knows it)
 * would bring the unwinder back here for ever: it is stopped instead (glibc then
 * aborts the thread's process), with a line on utracefs's console.
 */
static int landing_personality(int version, int actions, uint64_t cls, void *exc, void *ctx)
{
	uintptr_t slot;

	ut_graph_restore_all();
	slot = get_cfa(ctx) - 8;
	if (*(uintptr_t *)slot == get_ip(ctx)) {
		ut_note("function_graph: unwinding met a return address no frame knows (%#lx at %#lx)",
			(unsigned long)get_ip(ctx), (unsigned long)slot);
		return 2; /* _URC_FATAL_PHASE2_ERROR */
	}
	return 8; /* _URC_CONTINUE_UNWIND */
}

static unsigned char *put_u32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

static unsigned char *put_u64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

static void put_cie(unsigned char *cie)
{
	static const unsigned char head[] = {
	    1,		       /* version */
	    'z', 'P', 'R', 0,  /* augmentation */
	    1,		       /* code alignment */
	    0x78,	       /* data alignment -8 (sleb128) */
	    16,		       /* return address column: rip */
	    10,		       /* augmentation data: P (1 + 8), R (1) */
	    0x00,	       /* personality: DW_EH_PE_absptr */
	};
	unsigned char *p = put_u32(cie, CIE_LEN - 4);

	p = put_u32(p, 0); /* CIE id */
	memcpy(p, head, sizeof(head));
	p = put_u64(p + sizeof(head), (uintptr_t)landing_personality);
	*p++ = 0x00;	  /* FDE addresses: DW_EH_PE_absptr */
	*p++ = 0x0c;	  /* DW_CFA_def_cfa rsp, 0 */
	*p++ = 7;
	*p++ = 0;
	*p++ = 0x80 | 16; /* DW_CFA_offset rip, CFA - 8 */
	*p++ = 1;
}

static unsigned char *put_fde(unsigned char *fde, const unsigned char *cie, uintptr_t lo,
			      uintptr_t len)
{
	unsigned char *p = put_u32(fde, FDE_LEN - 4);

	p = put_u32(p, (uint32_t)(p - cie)); /* back to the CIE */
	p = put_u64(p, lo);
	p = put_u64(p, len);
	memset(p, 0, FDE_LEN - 24); /* no augmentation data, then DW_CFA_nop */
	return fde + FDE_LEN;
}

size_t ut_unwind_size(uint32_t nr)
{
	return UT_UNWIND_OBJ + CIE_LEN + (size_t)nr * FDE_LEN + 4;
}

/* Write and register the records of the site stubs at g (nr of them) into buf. */
void ut_unwind_add_gstubs(void *buf, uintptr_t g, uint32_t nr)
{
	unsigned char *cie = (unsigned char *)buf + UT_UNWIND_OBJ, *p = cie + CIE_LEN;

	if (!reg || !nr)
		return;
	put_cie(cie);
	for (uint32_t k = 0; k < nr; k++)
		p = put_fde(p, cie, g + (uintptr_t)k * UT_GSTUB_LEN + 7, 4);
	put_u32(p, 0);
	register_or_keep(buf);
}

void ut_unwind_remove(void *buf)
{
	unsigned char *cie = (unsigned char *)buf + UT_UNWIND_OBJ;

	if (dereg && !memcmp(cie, &(uint32_t){CIE_LEN - 4}, 4) && !forget_pending(buf))
		dereg(cie);
}

/*
 * The constructor, once glibc's unwinder is loaded: find libgcc's registration
 * (the instance glibc uses, in whatever scope it was loaded) and describe the byte
 * before ut_return_to_handler.
 */
void ut_unwind_init(void)
{
	static unsigned char rth[UT_UNWIND_OBJ + CIE_LEN + FDE_LEN + 4] __attribute__((aligned(16)));
	typedef void *(*dlopen_fn)(const char *, int);
	dlopen_fn real_dlopen = (dlopen_fn)ut_real("dlopen");
	void *h = real_dlopen ? real_dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NOLOAD) : NULL;
	unsigned char *cie = rth + UT_UNWIND_OBJ;

	if (!h)
		return;
	reg = (register_fn)dlsym(h, "__register_frame_info");
	dereg = (deregister_fn)dlsym(h, "__deregister_frame_info");
	get_cfa = (get_fn)dlsym(h, "_Unwind_GetCFA");
	get_ip = (get_fn)dlsym(h, "_Unwind_GetIP");
	if (!reg || !dereg || !get_cfa || !get_ip) {
		reg = NULL;
		return;
	}
	put_cie(cie);
	put_u32(put_fde(cie + CIE_LEN, cie, (uintptr_t)ut_return_to_handler - 1, 1), 0);
	register_or_keep(rth);
}

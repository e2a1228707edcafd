// SPDX-License-Identifier: MIT
/*
 * printk_fmt.c - which trace_printk() formats and trace_puts() strings utracefs
 * has been told (UT_MSG_PRINTK_FMT, ut_wire.h), so that each is sent once, before
 * the first bprint or bputs record that names it.
 *
 * The kernel keeps these texts in its own memory and lists them in printk_formats;
 * ours live in the traced process, where utracefs cannot read them.  A record
 * names its text by address only, so the text must reach utracefs first: the
 * packet goes on the control socket before the record goes into the ring, and
 * every open of a control file reads what the socket holds before it answers
 * (registry.c), so a reader of `trace` always has it.
 *
 * The table is bounded (FMT_SLOTS addresses, open addressing, FMT_PROBES tries):
 * a text it has no room for, or one whose packet cannot be sent at once (the
 * socket is full, no utracefs), is not known, and the caller then writes the
 * formatted text as a print record instead.  Slots are claimed with one
 * compare-and-swap, so threads and signal handlers may race: at worst a text is
 * sent twice, and utracefs keeps one.  A slot counts as sent only in the current
 * generation: a new connection (another utracefs, a fork child, which is another
 * process to it) and an unloaded object (its addresses may come back with other
 * texts) start a new one, and texts are sent again when next used.
 */
#include <errno.h>
#include <string.h>

#include "rt.h"
#include "ut_printf.h"
#include "ut_wire.h"

#define FMT_SLOTS 1024u /* the hash below gives 10 bits */
#define FMT_PROBES 16u
_Static_assert(FMT_SLOTS == 1u << 10, "slot hash");

static struct {
	uintptr_t addr;
	uint32_t gen;
} slots[FMT_SLOTS];
static uint32_t fmt_gen = 1;

void ut_printk_fmt_forget(void)
{
	__atomic_add_fetch(&fmt_gen, 1, __ATOMIC_RELEASE);
}

static int send_text(uintptr_t addr, const char *text)
{
	struct {
		struct ut_msg_printk_fmt m;
		char text[UT_PRINTK_FMT_MAX];
	} pk;
	size_t len = strnlen(text, UT_PRINTK_FMT_MAX);

	if (len == UT_PRINTK_FMT_MAX)
		return -E2BIG;
	pk.m =
	    (struct ut_msg_printk_fmt){.h = {UT_MSG_PRINTK_FMT, (uint32_t)(sizeof(pk.m) + len + 1)},
				       .addr = addr,
				       .tsc = __builtin_ia32_rdtsc()};
	memcpy(pk.text, text, len + 1);
	return ut_send(&pk, pk.m.h.len);
}

bool ut_printk_fmt_known(const char *text)
{
	uintptr_t a = (uintptr_t)text;
	uint32_t gen = __atomic_load_n(&fmt_gen, __ATOMIC_ACQUIRE);
	unsigned int h = (unsigned int)(((uint64_t)a * 0x9e3779b97f4a7c15ull) >> 54); /* 10 bits */

	for (unsigned int i = 0; i < FMT_PROBES; i++) {
		__typeof__(slots[0]) *s = &slots[(h + i) % FMT_SLOTS];
		uintptr_t cur = 0;

		if (!__atomic_compare_exchange_n(&s->addr, &cur, a, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE) &&
		    cur != a)
			continue; /* another text's slot */
		if (__atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) == gen)
			return true;
		if (send_text(a, text))
			return false;
		__atomic_store_n(&s->gen, gen, __ATOMIC_RELEASE);
		return true;
	}
	return false;
}

// SPDX-License-Identifier: MIT
/*
 * ctx.c - the wakeup tracers' two entries (the kernel's ctx_switch_entry, ids 2
 * and 3): the wake entry " waker:prio:S   + [cpu] wakee:prio:T comm" and the
 * switch entry with "==>" in place of "  +", pids in 7 columns, prio in 3,
 * the task state as one of "RSDTtXZPI", the cpu as [%03d], the comm of the
 * woken thread last; their raw form "%d %d %c %d %d %d %c" (the wake entry's
 * prev state shown as '+'), hex (each of those seven as a hex field) and bin
 * (the seven fields' bytes).
 */
#include "output.h"

/* The kernel's task_index_to_char: an index past the list is '?'. */
static char state_char(uint8_t idx)
{
	static const char states[] = "RSDTtXZPI";

	return idx < sizeof(states) - 1 ? states[idx] : '?';
}

void tfs_out_ctx(struct tfs_buf *b, const struct ut_ev_ctx *c)
{
	char comm[16];

	tfs_out_comm((pid_t)c->next_pid, comm);
	tfs_buf_printf(b, " %7d:%3d:%c %s [%03d] %7d:%3d:%c %s\n", (int)c->prev_pid, c->prev_prio,
		       state_char(c->prev_state), c->h.type == UT_EV_WAKE ? "  +" : "==>",
		       (int)c->next_cpu, (int)c->next_pid, c->next_prio, state_char(c->next_state),
		       comm);
}

void tfs_out_ctx_raw(struct tfs_buf *b, const struct ut_ev_ctx *c)
{
	char s = c->h.type == UT_EV_WAKE ? '+' : state_char(c->prev_state);

	tfs_buf_printf(b, "%d %d %c %d %d %d %c\n", (int)c->prev_pid, c->prev_prio, s,
		       (int)c->next_cpu, (int)c->next_pid, c->next_prio, state_char(c->next_state));
}

/* SEQ_PUT_HEX_FIELD: size * 2 hex digits, then a space; SEQ_PUT_FIELD: the bytes. */
static void field(struct tfs_buf *b, uint64_t v, unsigned int size, bool bin)
{
	if (bin)
		tfs_buf_append(b, &v, size);
	else
		tfs_buf_printf(b, "%0*llx ", (int)size * 2, (unsigned long long)v);
}

void tfs_out_ctx_hexbin(struct tfs_buf *b, const struct ut_ev_ctx *c, bool bin)
{
	/* hex shows the state characters (a char field), bin the state indexes */
	char s = c->h.type == UT_EV_WAKE ? '+' : state_char(c->prev_state);

	field(b, c->prev_pid, 4, bin);
	field(b, c->prev_prio, 1, bin);
	field(b, bin ? c->prev_state : (uint8_t)s, 1, bin);
	field(b, c->next_cpu, 4, bin);
	field(b, c->next_pid, 4, bin);
	field(b, c->next_prio, 1, bin);
	field(b, bin ? c->next_state : (uint8_t)state_char(c->next_state), 1, bin);
}

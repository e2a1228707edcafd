// SPDX-License-Identifier: MIT
/*
 * stack_trace.c - the stack tracer's files at the root of the mount (the kernel
 * has them at the top level only): stack_tracer_enabled (the kernel's
 * /proc/sys/kernel/stack_tracer_enabled), stack_max_size and stack_trace.
 * stack_trace_filter is a filter file like set_ftrace_filter (ftrace_filter.c,
 * TFS_FILTER_STACK); sel.c gives the sites it selects UT_SEL_STACK.
 *
 * Processes measure (runtime/stack_tracer.c) and send each maximum deeper than
 * any they knew of (UT_MSG_STACK); the kernel has one maximum for the whole
 * system, so this file keeps the deepest of every process, with its frames
 * named when it arrives (the process may be gone when stack_trace is read), and
 * publishes its size in the top's control page (ut_ctl.stack_max) so that
 * processes stop reporting smaller ones.  Writing stack_max_size sets the
 * maximum to the value written, as the kernel's does (0 starts over), and
 * moves ut_ctl.stack_epoch: processes then measure against that value, and
 * reports measured before are dropped.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "stack_trace.h"
#include "tfs.h"
#include "ut_wire.h"

static pthread_mutex_t st_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tfs_stack_max st_max; /* the deepest stack: what stack_trace shows */
static bool st_enabled;
static uint32_t st_epoch;

int tfs_stack_table(struct tfs_buf *b, const struct tfs_stack_max *m, bool enabled)
{
	int err = tfs_buf_printf(b,
				 "        Depth    Size   Location    (%u entries)\n"
				 "        -----    ----   --------\n",
				 m->nr);

	if (!err && !enabled && !m->size)
		err = tfs_buf_printf(
		    b, "#\n"
		       "#  Stack tracer disabled\n"
		       "#\n"
		       "# To enable the stack tracer, either add 'stacktrace' to the\n"
		       "# kernel command line\n"
		       "# or 'echo 1 > /proc/sys/kernel/stack_tracer_enabled'\n"
		       "#\n");
	for (uint32_t i = 0; i < m->nr && !err; i++) {
		/* a frame's size reaches the next frame's; the last one's, the top */
		uint64_t size = i + 1 == m->nr ? m->depth[i] : m->depth[i] - m->depth[i + 1];

		err = tfs_buf_printf(b, "%3" PRIu32 ") %8d   %5d   %s\n", i, (int)m->depth[i],
				     (int)size, m->loc[i]);
	}
	return err < 0 ? -ENOMEM : 0;
}

/*
 * Publish the state in the top's control page; processes apply it (tfs_apply).
 * st_lock held (then tfs.lock: the order everywhere), so that of two racing
 * writers the last one's state is both what the files say and what processes see.
 */
static void publish(void)
{
	tfs_lock();
	if (tfs_top.ctl) {
		__atomic_store_n(&tfs_top.ctl->stack_max, st_max.size, __ATOMIC_RELAXED);
		__atomic_store_n(&tfs_top.ctl->stack_epoch, st_epoch, __ATOMIC_RELAXED);
		__atomic_store_n(&tfs_top.ctl->stack_on, st_enabled ? 1u : 0u, __ATOMIC_RELEASE);
	}
	tfs_unlock();
}

int tfs_stack_msg(pid_t pid, const void *buf)
{
	const struct ut_msg_stack *m = buf;
	struct tfs_stack_max n = {.size = m->size, .nr = m->nr};
	/* named in the process, as it had them mapped when it measured */
	struct ut_ev ev = {.tid = (uint32_t)pid, .ts = m->tsc};
	bool deeper;

	if (m->nr > UT_STACK_MAX)
		return -EPROTO;
	for (uint32_t i = 0; i < m->nr; i++) {
		struct tfs_buf b = {0};

		/* depths grow outwards and stay within the size measured */
		if (m->ent[i].depth > m->size || (i && m->ent[i].depth >= m->ent[i - 1].depth))
			return -EPROTO;
		n.depth[i] = m->ent[i].depth;
		tfs_out_ip_sym(&b, &ev, m->ent[i].ip, TFS_SYM_OFFSET);
		snprintf(n.loc[i], sizeof(n.loc[i]), "%s", b.data ? b.data : "");
		free(b.data);
	}
	pthread_mutex_lock(&st_lock);
	deeper = m->epoch == st_epoch && m->size > st_max.size;
	if (deeper) {
		st_max = n;
		publish(); /* no new generation: processes read stack_max when they measure */
	}
	pthread_mutex_unlock(&st_lock);
	return 0;
}

static int trace_show(struct tfs_open *o)
{
	int err;

	pthread_mutex_lock(&st_lock);
	err = tfs_stack_table(&o->content, &st_max, st_enabled);
	pthread_mutex_unlock(&st_lock);
	return err;
}

/* stack_max_size and stack_tracer_enabled: one number (tfs_file.arg says which) */
static int number_show(struct tfs_open *o)
{
	uint64_t v;

	pthread_mutex_lock(&st_lock);
	v = o->file->arg == ST_ENABLED ? st_enabled : st_max.size;
	pthread_mutex_unlock(&st_lock);
	return tfs_buf_printf(&o->content, "%" PRIu64 "\n", v) < 0 ? -ENOMEM : 0;
}

/*
 * stack_max_size: the maximum becomes the value written (the kernel's
 * stack_max_size_write), and measuring starts over from it.
 * stack_tracer_enabled, as the kernel's sysctl: any number, non-zero turns it on;
 * the sites are patched or unpatched before the write returns.
 */
static ssize_t number_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	unsigned long val;
	int err = tfs_parse_ulong(buf, size, &val);
	bool apply = true;

	if (err)
		return err;
	pthread_mutex_lock(&st_lock);
	if (o->file->arg == ST_ENABLED) {
		apply = st_enabled != (val != 0);
		st_enabled = val != 0;
	} else {
		st_max.size = val;
	}
	/* threads start over: each one's next check measures again */
	if (apply) {
		st_epoch++;
		publish();
	}
	pthread_mutex_unlock(&st_lock);
	if (apply)
		tfs_apply(&tfs_top);
	return (ssize_t)size;
}

const struct tfs_file_ops tfs_stack_trace_ops = {.show = trace_show};
const struct tfs_file_ops tfs_stack_max_size_ops = {.show = number_show, .write = number_write};
const struct tfs_file_ops tfs_stack_tracer_enabled_ops = {.show = number_show,
							  .write = number_write};

// SPDX-License-Identifier: MIT
/*
 * header.c - the headers of the `trace` files, as the kernel prints them:
 * the entry counts, the column legends with and without irq-info and
 * record-tgid, and the latency-format header.  (The "# tracer: NAME" line is
 * printed by trace.c for every tracer; what follows is the tracer's header.)
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "../latency.h"
#include "output.h"

static void print_event_info(struct tfs_iter *it, struct tfs_buf *b)
{
	tfs_buf_printf(b, "# entries-in-buffer/entries-written: %lu/%lu   #P:%u\n", it->entries,
		       it->total, tfs.nr_cpus);
	tfs_buf_printf(b, "#\n");
}

/* Columns without irq-info; record-tgid adds a TGID column. */
static void print_func_header(struct tfs_iter *it, struct tfs_buf *b, bool tgid)
{
	print_event_info(it, b);
	tfs_buf_printf(b, "#           TASK-PID    %s CPU#     TIMESTAMP  FUNCTION\n",
		       tgid ? "   TGID   " : "");
	tfs_buf_printf(b, "#              | |      %s   |         |         |\n",
		       tgid ? "     |    " : "");
}

/* Columns with irq-info: the flag legend sits above the flag column. */
static void print_func_header_irq(struct tfs_iter *it, struct tfs_buf *b, bool tgid)
{
	static const char *const legend[] = {
		"  _-----=> irqs-off/BH-disabled", " / _----=> need-resched",
		"| / _---=> hardirq/softirq",	    "|| / _--=> preempt-depth",
		"||| / _-=> migrate-disable",	    "|||| /     delay",
	};
	int w = tgid ? 12 : 2; /* the TGID column widens everything */

	print_event_info(it, b);
	for (size_t i = 0; i < sizeof(legend) / sizeof(legend[0]); i++)
		tfs_buf_printf(b, "#                            %*s%s\n", w, "", legend[i]);
	tfs_buf_printf(b, "#           TASK-PID  %.*s CPU#  |||||  TIMESTAMP  FUNCTION\n", w,
		       "     TGID   ");
	tfs_buf_printf(b, "#              | |    %.*s   |   |||||     |         |\n", w,
		       "       |    ");
}

static void print_lat_help_header(struct tfs_buf *b)
{
	tfs_buf_printf(b, "#                    _------=> CPU#            \n"
			  "#                   / _-----=> irqs-off/BH-disabled\n"
			  "#                  | / _----=> need-resched    \n"
			  "#                  || / _---=> hardirq/softirq \n"
			  "#                  ||| / _--=> preempt-depth   \n"
			  "#                  |||| / _-=> migrate-disable \n"
			  "#                  ||||| /     delay           \n"
			  "#  cmd     pid     |||||| time  |   caller     \n"
			  "#     \\   /        ||||||  \\    |    /       \n");
}

const char *tfs_out_preempt_model(void)
{
	static char model[64];
	struct utsname u;

	if (model[0])
		return model;
	/* what user space can tell of the machine's kernel: its version string */
	if (uname(&u) == 0 && strstr(u.version, "PREEMPT_RT"))
		snprintf(model, sizeof(model), "PREEMPT_RT");
	else if (uname(&u) == 0 && strstr(u.version, "PREEMPT_DYNAMIC"))
		snprintf(model, sizeof(model), "PREEMPT(none)");
	else if (uname(&u) == 0 && strstr(u.version, "PREEMPT"))
		snprintf(model, sizeof(model), "PREEMPT");
	else
		snprintf(model, sizeof(model), "NONE");
	return model;
}

/* "#  => started at: " and "ended at:   " lines: the maximum's critical_start/_end. */
static void print_critical(struct tfs_iter *it, struct tfs_buf *b, const struct tfs_lat_max *m)
{
	/* named in the task, as it had them mapped during its section */
	struct ut_ev ev = {.tid = (uint32_t)m->tid, .ts = m->start_tsc};
	unsigned int sf = tfs_out_sym_flags(it->inst);

	tfs_buf_printf(b, "#  => started at: ");
	tfs_out_ip_sym(b, &ev, m->start_ip, sf);
	tfs_buf_printf(b, "\n#  => ended at:   ");
	tfs_out_ip_sym(b, &ev, m->end_ip, sf);
	tfs_buf_printf(b, "\n#\n");
}

/*
 * The latency tracers' header (print_trace_header): with a latency tracer's
 * maximum (it->lat_max), its latency, CPU, task and critical section; else the
 * zeros the kernel prints for a buffer no maximum was saved into.
 */
void tfs_out_lat_trace_header(struct tfs_iter *it, struct tfs_buf *b)
{
	static const struct tfs_lat_max none = {.comm = ""};
	const struct tfs_lat_max *m = it->lat_max && it->lat_max->valid ? it->lat_max : &none;
	const char *name = it->inst->tracer ? it->inst->tracer->name : "nop";
	struct utsname u;

	if (uname(&u))
		strcpy(u.release, "");
	tfs_buf_printf(b, "# %s latency trace v1.1.5 on %s\n", name, u.release);
	tfs_buf_printf(b, "# --------------------------------------------------------------------\n");
	tfs_buf_printf(b, "# latency: %lu us, #%lu/%lu, CPU#%u | (M:%s VP:%d, KP:%d, SP:%d HP:%d #P:%u)\n",
		       (unsigned long)(m->latency_ns / 1000), it->entries, it->total, m->cpu,
		       tfs_out_preempt_model(), 0, 0, 0, 0, tfs.nr_cpus);
	tfs_buf_printf(b, "#    -----------------\n");
	tfs_buf_printf(b, "#    | task: %.16s-%d (uid:%u nice:%ld policy:%ld rt_prio:%ld)\n", m->comm,
		       (int)m->tid, m->uid, m->nice, m->policy, m->rt_prio);
	tfs_buf_printf(b, "#    -----------------\n");
	if (m->start_ip)
		print_critical(it, b, m);
	tfs_buf_printf(b, "#\n");
}

void tfs_out_default_header(struct tfs_iter *it, struct tfs_buf *b)
{
	if (!tfs_opt(it->inst, TFS_OPT_CONTEXT_INFO))
		return;
	if (it->lat_fmt) {
		/* nothing at all when the buffer is empty */
		if ((it->snap && tfs_snap_empty(it->snap)) || (it->lat_max && !it->entries))
			return;
		tfs_out_lat_trace_header(it, b);
		if (!tfs_opt(it->inst, TFS_OPT_VERBOSE))
			print_lat_help_header(b);
		return;
	}
	if (tfs_opt(it->inst, TFS_OPT_VERBOSE))
		return;
	if (tfs_opt(it->inst, TFS_OPT_IRQ_INFO))
		print_func_header_irq(it, b, tfs_opt(it->inst, TFS_OPT_RECORD_TGID));
	else
		print_func_header(it, b, tfs_opt(it->inst, TFS_OPT_RECORD_TGID));
}

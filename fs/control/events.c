// SPDX-License-Identifier: MIT
/*
 * events.c - events/header_page, events/header_event and
 * events/ftrace/NAME/format: the binary layouts that readers of trace_pipe_raw
 * and trace.dat (trace-cmd) parse.
 *
 * They describe the KERNEL's layout (4096-byte sub-buffers with 4080 bytes of
 * data, compressed event headers, the ftrace event records), because that is
 * what utrace emits in its binary outputs; the text is the kernel's byte for
 * byte.  A format file's tfs_file.arg is the event's ftrace id.
 *
 * events/SYSTEM/EVENT/format of an event a program defines is made from its
 * (first) definition in the same layout: the common fields, a blank line, each
 * field as the program declared it (`char tag[8]`, `__data_loc char[] name` with
 * size 4), then `print fmt:` with the format as TP_printk wrote it, REC-> for
 * __entry->.  tfs_open.cpu is its number in the tree (event_tree.c).
 */
#include <errno.h>

#include "event_defs.h"
#include "tfs.h"

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

struct field {
	const char *decl; /* "type name" */
	unsigned int offset, size;
	bool is_signed;
};

struct event_format {
	const char *name;
	long id;
	struct field fields[8]; /* after the common ones; ends at a NULL decl */
	const char *print_fmt;
};

/* the fields every ftrace event starts with (struct trace_entry) */
static const struct field common_fields[] = {
	{"unsigned short common_type", 0, 2, false},
	{"unsigned char common_flags", 2, 1, false},
	{"unsigned char common_preempt_count", 3, 1, false},
	{"int common_pid", 4, 4, true},
};

/* the wakeup tracers' ctx_switch_entry, shared by context_switch and wakeup */
#define CTX_FIELDS                                                                                 \
	{{"unsigned int prev_pid", 8, 4, false},                                                   \
	 {"unsigned int next_pid", 12, 4, false},                                                  \
	 {"unsigned int next_cpu", 16, 4, false},                                                  \
	 {"unsigned char prev_prio", 20, 1, false},                                                \
	 {"unsigned char prev_state", 21, 1, false},                                               \
	 {"unsigned char next_prio", 22, 1, false},                                                \
	 {"unsigned char next_state", 23, 1, false}}
#define CTX_FMT(arrow)                                                                             \
	"\"%u:%u:%u  " arrow " %u:%u:%u [%03u]\", REC->prev_pid, REC->prev_prio, "                 \
	"REC->prev_state, REC->next_pid, REC->next_prio, REC->next_state, REC->next_cpu"

static const struct event_format formats[] = {
	{"function", UT_EV_FUNCTION,
	 {{"unsigned long ip", 8, 8, false},
	  {"unsigned long parent_ip", 16, 8, false},
	  {"unsigned long args[]", 24, 0, false}},
	 "\" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip"},
	/* as this machine's kernel has them: no retval field, args[] empty */
	{"funcgraph_entry", UT_EV_GRAPH_ENT,
	 {{"unsigned long func", 8, 8, false},
	  {"unsigned int depth", 16, 4, false},
	  {"unsigned long args[]", 24, 0, false}},
	 "\"--> %ps (%u)\", (void *)REC->func, REC->depth"},
	/* the kernel's print fmt shows depth for "over": kept as it is */
	{"funcgraph_exit", UT_EV_GRAPH_RET,
	 {{"unsigned long func", 8, 8, false},
	  {"unsigned int depth", 16, 4, false},
	  {"unsigned int overrun", 20, 4, false},
	  {"unsigned long long calltime", 24, 8, false},
	  {"unsigned long long rettime", 32, 8, false}},
	 "\"<-- %ps (%u) (start: %llx  end: %llx) over: %u\", (void *)REC->func, REC->depth, "
	 "REC->calltime, REC->rettime, REC->depth"},
	{"context_switch", UT_EV_CTX, CTX_FIELDS, CTX_FMT("==>")},
	{"wakeup", UT_EV_WAKE, CTX_FIELDS, CTX_FMT("==+")},
	{"kernel_stack", UT_EV_KERNEL_STACK,
	 {{"int size", 8, 4, true}, {"unsigned long caller[8]", 16, 64, false}},
	 "\"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" "
	 "\"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], "
	 "(void *)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], "
	 "(void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]"},
	{"print", UT_EV_PRINT,
	 {{"unsigned long ip", 8, 8, false}, {"char buf[]", 16, 0, false}},
	 "\"%ps: %s\", (void *)REC->ip, REC->buf"},
	{"bprint", UT_EV_BPRINT,
	 {{"unsigned long ip", 8, 8, false},
	  {"const char * fmt", 16, 8, false},
	  {"u32 buf[]", 24, 0, false}},
	 "\"%ps: %s\", (void *)REC->ip, REC->fmt"},
	{"bputs", UT_EV_BPUTS,
	 {{"unsigned long ip", 8, 8, false}, {"const char * str", 16, 8, false}},
	 "\"%ps: %s\", (void *)REC->ip, REC->str"},
	/* the samples utracefs's own threads write (hwlat, osnoise, timerlat) */
	{"hwlat", UT_EV_HWLAT,
	 {{"u64 duration", 8, 8, false},
	  {"u64 outer_duration", 16, 8, false},
	  {"u64 nmi_total_ts", 24, 8, false},
	  {"s64 tv_sec", 32, 8, true},
	  {"long tv_nsec", 40, 8, true},
	  {"unsigned int nmi_count", 48, 4, false},
	  {"unsigned int seqnum", 52, 4, false},
	  {"unsigned int count", 56, 4, false}},
	 "\"cnt:%u\\tts:%010llu.%010lu\\tinner:%llu\\touter:%llu\\tcount:%d\\tnmi-ts:%llu"
	 "\\tnmi-count:%u\\n\", "
	 "REC->seqnum, REC->tv_sec, REC->tv_nsec, REC->duration, REC->outer_duration, REC->count, "
	 "REC->nmi_total_ts, REC->nmi_count"},
	{"osnoise", UT_EV_OSNOISE,
	 {{"u64 noise", 8, 8, false},
	  {"u64 runtime", 16, 8, false},
	  {"u64 max_sample", 24, 8, false},
	  {"unsigned int hw_count", 32, 4, false},
	  {"unsigned int nmi_count", 36, 4, false},
	  {"unsigned int irq_count", 40, 4, false},
	  {"unsigned int softirq_count", 44, 4, false},
	  {"unsigned int thread_count", 48, 4, false}},
	 "\"noise:%llu\\tmax_sample:%llu\\thw:%u\\tnmi:%u\\tirq:%u\\tsoftirq:%u\\tthread:%u\\n\", "
	 "REC->noise, REC->max_sample, REC->hw_count, REC->nmi_count, REC->irq_count, "
	 "REC->softirq_count, REC->thread_count"},
	{"timerlat", UT_EV_TIMERLAT,
	 {{"unsigned int seqnum", 8, 4, false},
	  {"int context", 12, 4, true},
	  {"u64 timer_latency", 16, 8, false}},
	 "\"seq:%u\\tcontext:%d\\ttimer_latency:%llu\\n\", REC->seqnum, REC->context, "
	 "REC->timer_latency"},
	{"raw_data", UT_EV_RAW_DATA,
	 {{"unsigned int id", 8, 4, false}, {"char buf[]", 12, 0, false}},
	 "\"id:%04x %08x\", REC->id, (int)REC->buf[0]"},
};

static int field_line(struct tfs_buf *b, const struct field *f)
{
	return tfs_buf_printf(b, "\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", f->decl,
			      f->offset, f->size, f->is_signed);
}

/* "name:", "ID:", "format:", the common fields and the blank line after them. */
static int format_head(struct tfs_buf *b, const char *name, long id)
{
	int err = tfs_buf_printf(b, "name: %s\nID: %ld\nformat:\n", name, id);

	for (size_t i = 0; i < sizeof(common_fields) / sizeof(common_fields[0]) && !err; i++)
		err = field_line(b, &common_fields[i]);
	return err ? err : tfs_buf_printf(b, "\n");
}

static int format_show(struct tfs_open *o)
{
	const struct event_format *ev = NULL;
	struct tfs_buf *b = &o->content;
	int err;

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].id == o->file->arg)
			ev = &formats[i];
	if (!ev)
		return -ENOENT;
	err = format_head(b, ev->name, ev->id);
	for (size_t i = 0; i < 8 && ev->fields[i].decl && !err; i++)
		err = field_line(b, &ev->fields[i]);
	return err ? err : tfs_buf_printf(b, "\nprint fmt: %s\n", ev->print_fmt);
}

static int def_format_show(struct tfs_open *o)
{
	struct tfs_evtree_ent e;
	const struct tfs_event_def *d;
	struct tfs_buf *b = &o->content;
	int err = tfs_evtree_get((unsigned int)o->cpu, &e);

	if (err || !(d = tfs_event_def(e.id)))
		return -ENOENT;
	err = format_head(b, d->name, (long)d->id);
	for (uint32_t i = 0; i < d->nr_fields && !err; i++) {
		const struct tfs_event_field *f = &d->fields[i];

		err = tfs_buf_printf(b, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", f->type,
				     f->name, f->offset, f->size, f->is_signed);
	}
	return err ? err : tfs_buf_printf(b, "\nprint fmt: %s\n", d->print_fmt);
}

static int header_page_show(struct tfs_open *o)
{
	return tfs_buf_append(&o->content, header_page, sizeof(header_page) - 1);
}

static int header_event_show(struct tfs_open *o)
{
	return tfs_buf_append(&o->content, header_event, sizeof(header_event) - 1);
}

const struct tfs_file_ops tfs_event_format_ops = {.show = format_show, .seek = TFS_SEEK_SEQ};
const struct tfs_file_ops tfs_event_def_format_ops = {.show = def_format_show,
						      .seek = TFS_SEEK_SEQ};
const struct tfs_file_ops tfs_header_page_ops = {.show = header_page_show};
const struct tfs_file_ops tfs_header_event_ops = {.show = header_event_show};

// SPDX-License-Identifier: MIT
/*
 * readme.c - the README file: a short help of the files utracefs serves, laid
 * out like the kernel's tracing mini-HOWTO (a title, quick commands, then one
 * file a line: name, tabs, "- " and what it is for).  The text is utrace's own;
 * keep it in step with files.c when files are added.
 */
#include "tfs.h"

static const char readme_text[] =
	"utrace tracing mini-HOWTO:\n"
	"\n"
	"utracefs serves this tree for programs that run with libutrace.so.\n"
	"Only the user who mounted it can read or write it:\n"
	"\n"
	"\t e.g. utrace mount   or   utracefs <mountpoint>\n"
	"\n"
	"# echo 0 > tracing_on : stop recording (what was recorded stays)\n"
	"# echo 1 > tracing_on : record again\n"
	"\n"
	" Important files:\n"
	"  trace\t\t\t- The recorded events as text; reading leaves them there\n"
	"\t\t\t  Empty the buffer with: echo > trace\n"
	"  trace_pipe\t\t- Reading takes the events out, and waits for more\n"
	"  tracing_on\t\t- 1 while events are recorded, 0 while they are not\n"
	"  current_tracer\t- What traced programs record: nop, function or function_graph\n"
	"  available_tracers\t- The names current_tracer accepts\n"
	"  error_log\t- Why recent commands were refused\n"
	"  buffer_size_kb\t- KB of events each CPU keeps (X when CPUs differ)\n"
	"  buffer_total_size_kb  - The sum over all CPUs\n"
	"  free_buffer\t\t- Closing this file shrinks the buffers to the minimum\n"
	"\n"
	"  trace_clock\t\t- The clock time stamps are shown in\n"
	"       local:   CLOCK_MONOTONIC, from the time stamp counter\n"
	"      global:   The same as local for user space\n"
	"     counter:   Counter ticks since utracefs started; orders events\n"
	"      uptime:   Hundredths of a second since boot\n"
	"        perf:   The same as local\n"
	"        mono:   CLOCK_MONOTONIC\n"
	"    mono_raw:   CLOCK_MONOTONIC_RAW\n"
	"        boot:   CLOCK_BOOTTIME\n"
	"     x86-tsc:   The time stamp counter itself\n"
	"\n"
	"  trace_marker\t\t- Each write becomes one event in the buffer\n"
	"\n"
	"  trace_marker_raw\t\t- Each write (a 4-byte id, then data) becomes one binary event\n"
	"  tracing_cpumask\t- Hex mask of the CPUs whose buffers record\n"
	"  trace_options\t\t- One option a line; write NAME to set it\n"
	"\t\t\t  and noNAME to clear it\n"
	"  options/\t\t- The same options, one file each, holding 0 or 1\n"
	"  saved_cmdlines_size\t- How many task names are remembered\n"
	"  saved_cmdlines\t- The remembered names: PID COMM\n"
	"  saved_tgids\t\t- Thread group of remembered tasks: PID TGID\n"
	"  tracing_thresh\t- function_graph keeps only the functions that lasted\n"
	"\t\t\t  at least this many microseconds (0: all of them)\n"
	"  max_graph_depth\t- How deep function_graph follows nested calls (0: no limit)\n"
	"\n"
	"  available_filter_functions - The functions of running programs that can be\n"
	"\t\t\t  traced (func [object] for a shared object's)\n"
	"  available_filter_functions_addrs - The same with each function's address (in\n"
	"\t\t\t  the first running program that has it)\n"
	"  dyn_ftrace_total_info\t- How many functions can be traced (records, pages, groups)\n"
	"  enabled_functions\t- The functions traced right now: name (number of users)\n"
	"  ftrace_enabled\t- 0: no function is traced, every site unpatched; 1: as selected\n"
	"  set_ftrace_filter\t- Trace only these functions (all when empty)\n"
	"\t\t\t  accepts: func, glob* (*glob, *glob*, full globs), !func,\n"
	"\t\t\t  a line number of available_filter_functions,\n"
	"\t\t\t  func:mod:object (an object not loaded yet is kept)\n"
	"\t\t\t  > replaces, >> adds; the change applies when the file is closed\n"
	"  set_ftrace_notrace\t- Never trace these functions (wins over set_ftrace_filter)\n"
	"  set_graph_function\t- function_graph: graph only these functions and their callees\n"
	"  set_graph_notrace\t- function_graph: do not graph these functions nor their callees\n"
	"  set_ftrace_pid\t- Trace only these threads; a process id selects all its threads\n"
	"\t\t\t  (all when empty; `no pid`); options/function-fork adds children\n"
	"  set_ftrace_notrace_pid - Never trace these threads or processes\n"
	"  set_event_pid\t\t- Ids for event tracing (stored only: no events yet)\n"
	"  set_event_notrace_pid\t- Ids for event tracing (stored only: no events yet)\n"
	"\n"
	"  per_cpu/cpu<N>/\t- The files of one CPU only:\n"
	"      trace\t\t- Its events as text (echo > trace empties that CPU)\n"
	"      trace_pipe\t- Takes its events out as text\n"
	"      trace_pipe_raw\t- Takes its events out as binary pages\n"
	"      stats\t\t- Its counters: entries, overrun, bytes, ...\n"
	"      buffer_size_kb\t- Its buffer size in KB\n"
	"  events/\t\t- The binary layouts of the buffer:\n"
	"      header_page\t- A page of events\n"
	"      header_event\t- The header of one event\n"
	"  events/ftrace/<event>/\t- One directory per event utrace records:\n"
	"      format\t\t- Its fields, for readers of the binary data\n";

static int readme_show(struct tfs_open *o)
{
	return tfs_buf_append(&o->content, readme_text, sizeof(readme_text) - 1);
}

const struct tfs_file_ops tfs_readme_ops = {
	.show = readme_show,
};

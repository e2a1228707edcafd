// SPDX-License-Identifier: MIT
/*
 * files.c - THE TABLE of control files: the tracefs tree utracefs serves.
 *
 * Read it as the map of the tree.  Each entry is {name, kind, mode, ops}; modes
 * are the kernel's (tracefs removes every "other" bit).  Two directories have
 * entries that are not known at compile time; an entry found through dyn_name(i)
 * is opened with tfs_open.cpu = i, and so are the files below such a directory:
 *   options/      one file per core option, then the options of every tracer (the
 *                 kernel creates a tracer's option files when it registers it);
 *                 options/NAME is opened with cpu = its index in that list
 *   per_cpu/      one cpuN directory per possible CPU; the files below cpuN are
 *                 opened with cpu = N
 *   trace_stat/   functionN per possible CPU (the function profiler), cpu = N,
 *                 beside the fixed function_graph[.COL] files
 *   events/       one directory per system of the events programs define, and in
 *                 it one per event (a dyn_entry of the system's number: event_tree.c)
 *   instances/    one directory per instance (instance.c), each the tree of
 *                 inst_files below; a file is opened with tfs_open.inst = the
 *                 instance of its path (&tfs_top outside instances/)
 * An entry whose dyn_name is "" is hidden (options the kernel has at the top
 * level only).
 * The ops of each family live in the family's own file in fs/control/ (see fs/tfs.h).
 */
#include <stdio.h>
#include <string.h>

#include "event_defs.h" /* the events/ tree's systems and events */
#include "functab.h"
#include "control/stack_trace.h"
#include "graph_ctl.h"
#include "latency.h"
#include "settings.h" /* tfs_option_file_name: options/ as options.c sees it */
#include "tfs.h"
#include "trace_stat.h"
#include "tracers/sampling.h" /* hwlat_detector/ and osnoise/ */
#include "ut_fnstat.h"

#define FILE_(n, m, o, ...)                                                                        \
	{                                                                                          \
		.name = (n), .kind = TFS_FILE, .mode = (m), .ops = &(o), __VA_ARGS__               \
	}
#define DIR_(n, m, c)                                                                              \
	{                                                                                          \
		.name = (n), .kind = TFS_DIR, .mode = (m), .children = (c)                         \
	}
/* a directory whose entries are dyn_name(0), dyn_name(1), ... each like tmpl */
#define DYN_(n, m, names, tmpl)                                                                    \
	{                                                                                          \
		.name = (n), .kind = TFS_DIR, .mode = (m), .dyn_name = (names),                    \
		.dyn_template = (tmpl)                                                             \
	}

/* ---- dynamic names ---------------------------------------------------------------- */

static pthread_once_t names_once = PTHREAD_ONCE_INIT;
static char cpu_names[UT_RB_MAX_CPUS][8];

static void names_init(void)
{
	for (unsigned int cpu = 0; cpu < UT_RB_MAX_CPUS; cpu++)
		snprintf(cpu_names[cpu], sizeof(cpu_names[cpu]), "cpu%u", cpu);
}

static const char *cpu_name(unsigned int i)
{
	pthread_once(&names_once, names_init);
	return i < tfs.nr_cpus ? cpu_names[i] : NULL;
}

/* ---- the tree ---------------------------------------------------------------------- */

static const struct tfs_file option_file = FILE_("option", 0640, tfs_option_file_ops);

static const struct tfs_file per_cpu_files[] = {
    FILE_("buffer_size_kb", 0640, tfs_buffer_size_ops),
    FILE_("stats", 0440, tfs_stats_ops),
    FILE_("snapshot", 0640, tfs_snapshot_ops),
    FILE_("snapshot_raw", 0440, tfs_trace_pipe_raw_ops, .arg = TFS_RAW_SNAPSHOT),
    FILE_("trace", 0640, tfs_trace_ops),
    FILE_("trace_pipe", 0440, tfs_trace_pipe_ops),
    FILE_("trace_pipe_raw", 0440, tfs_trace_pipe_raw_ops),
    {NULL},
};

static const struct tfs_file cpu_dir = DIR_("cpu", 0750, per_cpu_files);

/* trace_stat/functionN: the function profiler's counts of CPU N (opened with cpu = N) */
static const struct tfs_file trace_stat_file = FILE_("function", 0440, tfs_trace_stat_ops);

/*
 * trace_stat/function_graph[.COL]: utrace's function-duration statistics of the
 * buffer, one file per order (arg: the column, common/ut_fnstat.h)
 */
#define GRAPH_STAT(suffix, col) FILE_("function_graph" suffix, 0440, tfs_graph_stat_ops, .arg = (col))
static const struct tfs_file trace_stat_files[] = {
    GRAPH_STAT("", UT_FNSTAT_TOTAL),	  GRAPH_STAT(".avg", UT_FNSTAT_AVG),
    GRAPH_STAT(".calls", UT_FNSTAT_CALLS), GRAPH_STAT(".max", UT_FNSTAT_MAX),
    GRAPH_STAT(".min", UT_FNSTAT_MIN),	  GRAPH_STAT(".name", UT_FNSTAT_NAME),
    GRAPH_STAT(".self", UT_FNSTAT_SELF),
    {NULL},
};

/* events/ftrace/NAME/format: arg is the event's ftrace id (ut_ring.h UT_EV_*) */
#define EVENT_DIR(n, id)                                                                           \
	static const struct tfs_file event_##n[] = {                                               \
	    FILE_("format", 0440, tfs_event_format_ops, .arg = (id)),                              \
	    {NULL},                                                                                \
	}
EVENT_DIR(function, UT_EV_FUNCTION);
EVENT_DIR(funcgraph_entry, UT_EV_GRAPH_ENT);
EVENT_DIR(funcgraph_exit, UT_EV_GRAPH_RET);
EVENT_DIR(context_switch, UT_EV_CTX);
EVENT_DIR(wakeup, UT_EV_WAKE);
EVENT_DIR(kernel_stack, UT_EV_KERNEL_STACK);
EVENT_DIR(print, UT_EV_PRINT);
EVENT_DIR(bprint, UT_EV_BPRINT);
EVENT_DIR(bputs, UT_EV_BPUTS);
EVENT_DIR(raw_data, UT_EV_RAW_DATA);
EVENT_DIR(hwlat, UT_EV_HWLAT);
EVENT_DIR(osnoise, UT_EV_OSNOISE);
EVENT_DIR(timerlat, UT_EV_TIMERLAT);

static const struct tfs_file ftrace_events[] = {
    DIR_("bprint", 0755, event_bprint),
    DIR_("bputs", 0755, event_bputs),
    DIR_("context_switch", 0755, event_context_switch),
    DIR_("function", 0755, event_function),
    DIR_("funcgraph_entry", 0755, event_funcgraph_entry),
    DIR_("funcgraph_exit", 0755, event_funcgraph_exit),
    DIR_("hwlat", 0755, event_hwlat),
    DIR_("kernel_stack", 0755, event_kernel_stack),
    DIR_("osnoise", 0755, event_osnoise),
    DIR_("print", 0755, event_print),
    DIR_("raw_data", 0755, event_raw_data),
    DIR_("timerlat", 0755, event_timerlat),
    DIR_("wakeup", 0755, event_wakeup),
    {NULL},
};

/*
 * The events programs define: events/SYSTEM/ (opened with cpu = the system's
 * number) and events/SYSTEM/EVENT/ (cpu = the event's number in the tree,
 * event_tree.c).  The enable and filter files' arg is their level.
 */
static const struct tfs_file event_files[] = {
    FILE_("enable", 0640, tfs_event_enable_ops, .arg = TFS_EVL_EVENT),
    FILE_("filter", 0640, tfs_event_filter_ops, .arg = TFS_EVL_EVENT),
    FILE_("format", 0440, tfs_event_def_format_ops),
    FILE_("id", 0440, tfs_event_id_ops),
    FILE_("trigger", 0640, tfs_event_trigger_ops),
    {NULL},
};

static const struct tfs_file event_dir = DIR_("event", 0755, event_files);

static const struct tfs_file system_files[] = {
    FILE_("enable", 0640, tfs_event_enable_ops, .arg = TFS_EVL_SYSTEM),
    FILE_("filter", 0640, tfs_event_filter_ops, .arg = TFS_EVL_SYSTEM),
    {NULL},
};

static const struct tfs_file system_dir = {.name = "system",
					   .kind = TFS_DIR,
					   .mode = 0755,
					   .children = system_files,
					   .dyn_entry = tfs_evtree_dir_entry,
					   .dyn_template = &event_dir};

static const struct tfs_file events_files[] = {
    FILE_("enable", 0640, tfs_event_enable_ops, .arg = TFS_EVL_ALL),
    FILE_("header_event", 0440, tfs_header_event_ops),
    FILE_("header_page", 0440, tfs_header_page_ops),
    DIR_("ftrace", 0755, ftrace_events),
    {NULL},
};

/*
 * The hwlat and osnoise/timerlat tracers' settings (tracers/hwlat.c,
 * tracers/osnoise.c): the one-number files' arg points at their bounds.
 */
#define MIN_MAX_(n, p) FILE_(n, 0640, tfs_min_max_ops, .arg = (long)&(p))
static const struct tfs_file hwlat_files[] = {
    FILE_("mode", 0640, tfs_hwlat_mode_ops),
    MIN_MAX_("width", tfs_hwlat_width),
    MIN_MAX_("window", tfs_hwlat_window),
    {NULL},
};

static const struct tfs_file osnoise_files[] = {
    FILE_("cpus", 0640, tfs_osnoise_cpus_ops),
    FILE_("options", 0640, tfs_osnoise_options_ops),
    MIN_MAX_("period_us", tfs_osn_period),
    MIN_MAX_("print_stack", tfs_osn_print_stack),
    MIN_MAX_("runtime_us", tfs_osn_runtime),
    MIN_MAX_("stop_tracing_total_us", tfs_osn_stop_tracing_total),
    MIN_MAX_("stop_tracing_us", tfs_osn_stop_tracing),
    MIN_MAX_("timerlat_align_us", tfs_osn_timerlat_align),
    MIN_MAX_("timerlat_period_us", tfs_osn_timerlat_period),
    {NULL},
};

static const struct tfs_file inst_dir;

/*
 * The top level.  `.inst` says where an entry is: 0 (the default) at the top
 * level only, TFS_INST_BOTH also in every instances/NAME, TFS_INST_ONLY in
 * instances only: an instance has the files the kernel gives one, where utrace
 * has them.  set_graph_function and set_graph_notrace are the top level's, as
 * the kernel creates them.
 */
static const struct tfs_file root_files[] = {
    FILE_("README", 0440, tfs_readme_ops),
    FILE_("available_tracers", 0440, tfs_available_tracers_ops, .inst = TFS_INST_BOTH),
    FILE_("current_tracer", 0640, tfs_current_tracer_ops, .inst = TFS_INST_BOTH),
    FILE_("tracing_on", 0640, tfs_tracing_on_ops, .inst = TFS_INST_BOTH),
    FILE_("trace", 0640, tfs_trace_ops, .inst = TFS_INST_BOTH),
    FILE_("trace_pipe", 0440, tfs_trace_pipe_ops, .inst = TFS_INST_BOTH),
    FILE_("snapshot", 0640, tfs_snapshot_ops, .inst = TFS_INST_BOTH),
    FILE_("trace_options", 0640, tfs_trace_options_ops, .inst = TFS_INST_BOTH),
    DYN_("options", 0750, tfs_option_file_name, &option_file),
    {.name = "options",
     .kind = TFS_DIR,
     .mode = 0750,
     .inst = TFS_INST_ONLY,
     .dyn_name = tfs_inst_option_file_name,
     .dyn_template = &option_file},
    FILE_("tracing_cpumask", 0640, tfs_cpumask_ops, .inst = TFS_INST_BOTH),
    FILE_("buffer_size_kb", 0640, tfs_buffer_size_ops, .inst = TFS_INST_BOTH),
    FILE_("buffer_total_size_kb", 0440, tfs_buffer_total_ops, .inst = TFS_INST_BOTH),
    FILE_("free_buffer", 0200, tfs_free_buffer_ops, .inst = TFS_INST_BOTH),
    FILE_("trace_clock", 0640, tfs_trace_clock_ops, .inst = TFS_INST_BOTH),
    FILE_("trace_marker", 0220, tfs_trace_marker_ops, .inst = TFS_INST_BOTH),
    FILE_("trace_marker_raw", 0220, tfs_trace_marker_raw_ops, .inst = TFS_INST_BOTH),
    FILE_("saved_cmdlines", 0440, tfs_saved_cmdlines_ops),
    FILE_("saved_cmdlines_size", 0640, tfs_saved_cmdlines_size_ops),
    FILE_("saved_tgids", 0440, tfs_saved_tgids_ops),
    FILE_("printk_formats", 0440, tfs_printk_formats_ops),
    FILE_("error_log", 0640, tfs_error_log_ops, .inst = TFS_INST_BOTH),
    FILE_("tracing_thresh", 0640, tfs_tracing_thresh_ops),
    FILE_("tracing_max_latency", 0640, tfs_tracing_max_latency_ops, .inst = TFS_INST_BOTH),
    DIR_("hwlat_detector", 0750, hwlat_files),
    DIR_("osnoise", 0750, osnoise_files),
    FILE_("max_graph_depth", 0640, tfs_max_graph_depth_ops),
    FILE_("available_filter_functions", 0440, tfs_available_filter_functions_ops),
    FILE_("available_filter_functions_addrs", 0440, tfs_available_filter_functions_addrs_ops),
    FILE_("dyn_ftrace_total_info", 0440, tfs_dyn_ftrace_total_info_ops),
    FILE_("enabled_functions", 0440, tfs_enabled_functions_ops),
    FILE_("ftrace_enabled", 0640, tfs_ftrace_enabled_ops),
    FILE_("function_profile_enabled", 0640, tfs_function_profile_enabled_ops),
    {.name = "trace_stat",
     .kind = TFS_DIR,
     .mode = 0750,
     .children = trace_stat_files,
     .dyn_name = tfs_trace_stat_name,
     .dyn_template = &trace_stat_file},
    FILE_("kallsyms", 0440, tfs_kallsyms_ops),
    FILE_("stack_tracer_enabled", 0640, tfs_stack_tracer_enabled_ops, .arg = ST_ENABLED),
    FILE_("stack_max_size", 0640, tfs_stack_max_size_ops),
    FILE_("stack_trace", 0440, tfs_stack_trace_ops),
    FILE_("stack_trace_filter", 0640, tfs_stack_trace_filter_ops, .arg = TFS_FILTER_STACK),
    FILE_("set_ftrace_filter", 0640, tfs_set_ftrace_filter_ops, .arg = TFS_FILTER_TRACE,
	  .inst = TFS_INST_BOTH),
    FILE_("set_ftrace_notrace", 0640, tfs_set_ftrace_notrace_ops, .arg = TFS_FILTER_NOTRACE,
	  .inst = TFS_INST_BOTH),
    FILE_("set_graph_function", 0640, tfs_set_graph_function_ops, .arg = TFS_FILTER_GRAPH),
    FILE_("set_graph_notrace", 0640, tfs_set_graph_notrace_ops,
	  .arg = TFS_FILTER_GRAPH_NOTRACE),
    FILE_("set_ftrace_pid", 0640, tfs_set_pid_ops, .arg = TFS_PID_FTRACE, .inst = TFS_INST_BOTH),
    FILE_("set_ftrace_notrace_pid", 0640, tfs_set_pid_ops, .arg = TFS_PID_FTRACE_NOTRACE,
	  .inst = TFS_INST_BOTH),
    FILE_("set_event_pid", 0640, tfs_set_pid_ops, .arg = TFS_PID_EVENT, .inst = TFS_INST_BOTH),
    FILE_("set_event_notrace_pid", 0640, tfs_set_pid_ops, .arg = TFS_PID_EVENT_NOTRACE,
	  .inst = TFS_INST_BOTH),
    {.name = "per_cpu",
     .kind = TFS_DIR,
     .mode = 0750,
     .inst = TFS_INST_BOTH,
     .dyn_name = cpu_name,
     .dyn_template = &cpu_dir},
    FILE_("available_events", 0440, tfs_available_events_ops),
    FILE_("set_event", 0640, tfs_set_event_ops, .inst = TFS_INST_BOTH),
    {.name = "events",
     .kind = TFS_DIR,
     .mode = 0755,
     .inst = TFS_INST_BOTH,
     .children = events_files,
     .dyn_name = tfs_evtree_sys_name,
     .dyn_template = &system_dir},
    {.name = "instances",
     .kind = TFS_DIR,
     .mode = 0750,
     .arg = TFS_ARG_INSTANCES,
     .dyn_name = tfs_inst_dir_name,
     .dyn_template = &inst_dir},
    {NULL},
};

const struct tfs_file tfs_root = DIR_("", 0700, root_files);

/* instances/NAME: the same table, seen from an instance (the entries with .inst set) */
static const struct tfs_file inst_dir = DIR_("instance", 0750, root_files);

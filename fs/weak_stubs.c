// SPDX-License-Identifier: MIT
/*
 * weak_stubs.c - TEMPORARY, for parallel development only: weak placeholders for
 * every cross-part symbol of tfs.h so that utracefs links while its parts are
 * written.  Every real definition overrides these.  This file is deleted when the
 * parts are integrated; nothing may depend on a placeholder's behaviour.
 */
#include <errno.h>
#include <string.h>

#include "tfs.h"

#define W __attribute__((weak))

W struct tfs_trace tfs = {.lock = PTHREAD_MUTEX_INITIALIZER};
W const struct tfs_opt_def tfs_core_opts[TFS_OPT_NR];
W const struct tracer *const tfs_tracers[] = {NULL};
W const char *const tfs_clock_names[TFS_CLOCK_NR];
W const struct tfs_file tfs_root = {.name = "", .kind = TFS_DIR};
W const struct tfs_file_ops tfs_readme_ops, tfs_available_tracers_ops, tfs_current_tracer_ops,
	tfs_tracing_on_ops, tfs_trace_ops, tfs_trace_pipe_ops, tfs_trace_pipe_raw_ops,
	tfs_stats_ops, tfs_trace_options_ops, tfs_option_file_ops, tfs_cpumask_ops,
	tfs_buffer_size_ops, tfs_buffer_total_ops, tfs_free_buffer_ops, tfs_trace_clock_ops,
	tfs_trace_marker_ops, tfs_trace_marker_raw_ops, tfs_saved_cmdlines_ops,
	tfs_saved_cmdlines_size_ops, tfs_saved_tgids_ops, tfs_error_log_ops,
	tfs_header_page_ops, tfs_header_event_ops, tfs_event_format_ops;

W bool tfs_opt(enum tfs_opt o) { return false; }
W bool tfs_tracer_opt(const char *name) { return false; }
W const struct tracer *tfs_tracer_find(const char *name) { return NULL; }
W bool tfs_clock_is_counter(enum tfs_clock c) { return false; }
W uint64_t tfs_clock_from_tsc(uint64_t tsc) { return tsc; }
W uint64_t tfs_clock_now(void) { return 0; }
W void tfs_clock_init(void) {}
W void tfs_lock(void) { pthread_mutex_lock(&tfs.lock); }
W void tfs_unlock(void) { pthread_mutex_unlock(&tfs.lock); }
W int tfs_apply(void) { return 0; }
W int tfs_area_init(unsigned int nr_cpus) { return -ENOSYS; }
W void tfs_ring_reset(int cpu) {}
W int tfs_ring_resize(unsigned int cpu, unsigned int nr_kpages) { return -ENOSYS; }
W void tfs_ring_enable(unsigned int cpu, bool on) {}
W void tfs_cpu_barrier(unsigned int cpu) {}
W void tfs_ring_kick(void) {}
W int tfs_registry_start(const char *socket_path) { return 0; }
W void tfs_registry_stop(void) {}
W unsigned int tfs_registry_count(void) { return 0; }
W int tfs_task_comm(pid_t tid, char comm[16]) { return -ENOENT; }
W pid_t tfs_task_tgid(pid_t tid) { return 0; }
W void tfs_task_foreach(tfs_task_fn fn, void *arg) {}
W int tfs_sym_load_maps(pid_t pid) { return 0; }
W int tfs_sym_lookup(pid_t tid, uint64_t addr, bool demangle, char *name, size_t size,
		     uint64_t *start, uint64_t *symsize) { return -ENOENT; }
W int tfs_write_print(pid_t tid, uint64_t ip, const char *text, size_t len, uint8_t flags)
{
	return -ENOSYS;
}
W void tfs_error_log(const char *loc, const char *msg, const char *cmd, unsigned int pos) {}
W int tfs_parse_ulong(const char *buf, size_t size, unsigned long *val) { return -EINVAL; }
W int tfs_strip(const char *buf, size_t size, char *out, size_t outsize) { return -EINVAL; }

/* Placeholder for the rseq writer (common/arch/x86_64/rb_write.S): NOT safe
 * against other writers on the same CPU; only so that utracefs links meanwhile. */
#include <sched.h>
#include "ut_ring_write.h"
W int ut_rb_write(void *area, unsigned int nr_cpus, struct ut_ev *ev)
{
	int cpu = sched_getcpu();

	if (cpu < 0 || (unsigned int)cpu >= nr_cpus)
		return -EAGAIN;
	return ut_rb_write_on_cpu(area, (unsigned int)cpu, ev);
}

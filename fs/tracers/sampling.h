/* SPDX-License-Identifier: MIT */
/*
 * sampling.h - the control files of the tracers utracefs runs itself:
 * hwlat_detector/ (hwlat.c) and osnoise/ (osnoise.c), and the kernel's
 * "min max" one-number files they share (control/min_max.c).
 */
#ifndef TFS_SAMPLING_H
#define TFS_SAMPLING_H

#include <pthread.h>
#include <stdint.h>

#include "../tfs.h"

/*
 * The kernel's trace_min_max_param: a u64 read as "%llu\n", written as
 * kstrtoull takes it, refused (EINVAL) below *min or above *max (NULL: no
 * bound), all under lock.  A file's tfs_file.arg points at its param.
 */
struct tfs_min_max {
	pthread_mutex_t *lock;
	uint64_t *val;
	const uint64_t *min, *max;
};
extern const struct tfs_file_ops tfs_min_max_ops;

/* hwlat_detector/ */
extern const struct tfs_min_max tfs_hwlat_width, tfs_hwlat_window;
extern const struct tfs_file_ops tfs_hwlat_mode_ops;

/* osnoise/ */
extern const struct tfs_min_max tfs_osn_period, tfs_osn_runtime, tfs_osn_stop_tracing,
	tfs_osn_stop_tracing_total, tfs_osn_timerlat_period, tfs_osn_print_stack,
	tfs_osn_timerlat_align;
extern const struct tfs_file_ops tfs_osnoise_cpus_ops, tfs_osnoise_options_ops;

/* The kernel's cpulist_parse ("0-3,5", a newline allowed): 0, EINVAL or ERANGE. */
int tfs_cpulist_parse(const char *buf, size_t size, unsigned int nr_cpus, uint64_t *mask);

/* Read or set a param's value under its lock (the tracers' own reads). */
uint64_t tfs_min_max_get(const struct tfs_min_max *p);

#endif

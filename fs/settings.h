/* SPDX-License-Identifier: MIT */
/*
 * settings.h - the pure parts of the settings families (options, tracing_cpumask,
 * buffer sizes, saved_cmdlines_size, trace_clock, error_log, trace_marker): how
 * each parses what users write and formats what they read, with the kernel's
 * rules.  They touch no global state, so unit tests call them directly; the
 * files' ops (declared in tfs.h) wrap them with locking and side effects.
 */
#ifndef TFS_SETTINGS_H
#define TFS_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tfs.h"

/* ---- options.c ------------------------------------------------------------------- */

/*
 * A write to trace_options: the kernel copies at most 63 bytes, stops at a NUL,
 * strips surrounding whitespace and takes what is left as one name, with an
 * optional "no" prefix.  Fills name (without the prefix) and *neg; -EINVAL for
 * an empty or too long write.
 */
int tfs_opt_parse(const char *buf, size_t size, char *name, size_t namesize, bool *neg);
/* A write to options/NAME: "0" or "1" as kstrtoul reads them; -EINVAL otherwise. */
int tfs_opt_parse_bool(const char *buf, size_t size, bool *val);
/* The core option called name, or -1. */
int tfs_opt_find(const char *name);
/* The bits of the top's opts that the kernel sets at boot. */
uint64_t tfs_opts_default(void);
/*
 * Give inst (its tracer set) the options a new instance has: the kernel's boot
 * defaults for the top, without trace_printk_dest and copy_trace_marker for an
 * instance; every tracer's options at their defaults.
 */
void tfs_opts_init(struct tfs_instance *inst, bool top);
/* options/ of an instance: the same list, the top-level-only options named "" (hidden). */
const char *tfs_inst_option_file_name(unsigned int i);
/* True once record-tgid has been set: the kernel keeps no tgids before. */
bool tfs_opt_tgid_recorded(void);
/*
 * The option files, in the order of the options/ listing (files.c builds the same
 * list: core options, then each tracer's, without repeating a name).  options/NAME
 * is opened with tfs_open.cpu = its index in that list.
 */
const char *tfs_option_file_name(unsigned int i);

/* ---- cpumask.c ----------------------------------------------------------------------- */

/*
 * tracing_cpumask text for nr_cpus bits: hex in 32-bit groups separated by
 * commas, the first group as wide as the bits it holds, as the kernel's "%*pb".
 */
int tfs_cpumask_format(const uint64_t *mask, unsigned int nr_cpus, struct tfs_buf *b);
/*
 * Parse a write the kernel's way (bitmap_parse): text up to the first newline or
 * NUL, 32-bit hex groups read from the right, separated by commas or blanks.
 * -EINVAL for a bad character, -EOVERFLOW for a group over 8 digits, more groups
 * than nr_cpus needs, or a bit at or above nr_cpus.  mask is left alone on error.
 */
int tfs_cpumask_parse(const char *buf, size_t size, unsigned int nr_cpus, uint64_t *mask);

/* ---- buffer_size.c --------------------------------------------------------------------- */

/* The kernel's trace_buf_size (bytes a CPU once expanded) and its boot page count. */
#define TFS_TRACE_BUF_SIZE 1441792ul
#define TFS_BOOT_KPAGES 2u
/*
 * Kernel data pages for a buffer_size_kb write of kb (already known non-zero):
 * the kernel's arithmetic, wrap-arounds included (a huge kb wraps to 2 pages).
 * Returns 0 when the count does not fit in an unsigned int (caller: -ENOMEM).
 */
unsigned int tfs_kb_to_kpages(unsigned long kb);
/* buffer_size_kb as a CPU shows it: kernel pages * 4080 / 1024. */
unsigned long tfs_kpages_to_kb(unsigned int nr_kpages);

/* ---- saved_cmdlines.c ------------------------------------------------------------------ */

/* saved_cmdlines_size limit (the kernel's PID_MAX_DEFAULT) */
#define TFS_CMDLINES_MAX 32768u
/* The size the kernel really keeps for a request of n (it fills whole page blocks). */
unsigned int tfs_cmdlines_rounded(unsigned int n);

/* ---- clock.c ------------------------------------------------------------------------------ */

/* Raw time stamp as the writers take it (rdtsc). */
uint64_t tfs_clock_tsc(void);
/* Time of tsc in clock c (ns, or ticks for counter, uptime and x86-tsc). */
uint64_t tfs_clock_ns(enum tfs_clock c, uint64_t tsc);
/*
 * Start the next conversion segment now instead of when the current one is 30 s
 * old (clock.c); returns the number of segments.  For tests.
 */
unsigned int tfs_clock_resegment_now(void);
/* The clock called name, or -1 (tai is not offered). */
int tfs_clock_find(const char *name);
/* trace_clock's text: every name, the current one in brackets. */
int tfs_clock_format(enum tfs_clock cur, struct tfs_buf *b);

/* ---- error_log.c ---------------------------------------------------------------------------- */

/* Format one entry (ts in ns of the local clock) as the kernel prints it. */
int tfs_error_log_format(struct tfs_buf *b, uint64_t ts, const char *loc, const char *msg,
			 const char *cmd, unsigned int pos);

/* ---- trace_marker.c ----------------------------------------------------------------------------- */

/*
 * The text a trace_marker write records: at most tfs_marker_max() bytes of the
 * write, then a newline unless it ends with one.  Returns the count the write
 * reports (the bytes taken) and sets *len to the text length in out (size at
 * least tfs_marker_max() + 1).
 */
size_t tfs_marker_text(const char *buf, size_t size, char *out, size_t *len);
size_t tfs_marker_max(void);
/* The largest trace_marker_raw write (id included) an event can hold. */
size_t tfs_marker_raw_max(void);
/*
 * The address a trace_marker event shows for "tracing_mark_write" (sym-offset,
 * sym-addr, raw): where the kernel shows its write op, utrace shows utracefs's.
 */
uint64_t tfs_marker_ip(void);

#endif

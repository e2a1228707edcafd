/* SPDX-License-Identifier: MIT */
/*
 * tracedat.h - write a trace-cmd data file (trace.dat, file versions 6 and 7) from a
 * tracefs tree and per-CPU files of raw ring-buffer pages, so that `trace-cmd report`,
 * KernelShark and anything else built on libtracecmd read a utrace recording.
 *
 * The metadata (event formats, symbols, command lines, options) is taken from a
 * tracefs tree: the utracefs mount, or the kernel's tracefs, whose files have the same
 * names and formats.  The pages are copied unchanged: the ring buffer's sub-buffer
 * format is the kernel's, and events/header_page describes it.
 *
 * The file is laid out metadata first, pages last, with every size computed before the
 * first page is copied.  So a disk that fills up (or a file size limit) while the pages
 * are copied costs only the pages that did not fit: the sizes are rewritten in place and
 * the file stays one that the readers open.  See docs/internals.md, "trace.dat".
 */
#ifndef UT_TRACEDAT_H
#define UT_TRACEDAT_H

#include <stdbool.h>

/* fd: raw ring-buffer pages of this CPU, page_size each, read from offset 0; -1: none.  A
 * regular file: its size (fstat, cut to whole pages) is what is copied. */
struct td_cpu {
	int fd;
};

struct td_opts {
	int version;		 /* 6 or 7 (7: compression "none") */
	const char *tracing_dir; /* a tracefs tree: events/header_page, events/header_event,
				    events/ftrace/ * /format, events/SYS/EV/format of every other
				    system, printk_formats (missing: empty), saved_cmdlines
				    (missing: empty) */
	const char *kallsyms;	 /* a file in /proc/kallsyms format; NULL: empty section */
	const char *clock;	 /* e.g. "local"; NULL: the [selected] word of
				    tracing_dir/trace_clock */
	unsigned int page_size;	 /* 4096 */
	unsigned int cpus;
	const struct td_cpu *cpu;     /* [cpus] */
	const char *const *cpu_stats; /* [cpus] text of per_cpu/cpuN/stats or NULL (a CPUSTAT
					 option each, "CPU: N\n" + text) */
	const char *uname;	      /* UNAME option or NULL */
	const char *version_str;      /* VERSION option, e.g. "utrace 0.1", or NULL */
	/*
	 * A latency file instead of pages (what trace-cmd record saves for a latency
	 * tracer): latency_len bytes of text, the `trace` file's, which `trace-cmd
	 * report` prints as they are.  cpu is not read; cpus is written as the CPU count.
	 * Version 6: "latency  " after the options, then the text to the end of the file;
	 * version 7: a BUFFER_TEXT option and its section ("buffer latency"), last.
	 */
	const char *latency;
	size_t latency_len;
	bool punch; /* free each CPU file's space as it is copied (fallocate PUNCH_HOLE |
		       KEEP_SIZE), so a recording does not need twice its size on disk; the
		       CPU fds must be open for writing, and a file system that cannot punch
		       holes keeps the space */
};

/* What went into the file: whole pages copied, and pages of the inputs left out because a
 * write failed. */
struct td_result {
	unsigned long long pages_written, pages_dropped;
};

/*
 * Write a complete trace.dat to out_fd (a regular file, empty).  0 or -errno.
 *
 * Errors of the inputs (no events/header_page: -ENOENT; a format file that is not one:
 * -EINVAL; -ENOMEM) are found before anything is written.  A write error while the
 * metadata goes out leaves out_fd empty.  A write error (ENOSPC, EFBIG, EIO) or a read
 * error while the pages are copied leaves a valid file: the pages copied so far, cut to
 * whole pages, with the CPU sizes rewritten to say so and every later CPU empty; the
 * errno is returned and res (may be NULL) says how many pages were written and dropped.
 * With o->punch, the inputs' space is freed as they are copied, whatever happens after.
 */
int td_write(int out_fd, const struct td_opts *o, struct td_result *res);

/*
 * The part of the file a `trace-cmd listen` server takes as its metadata (MSG_SEND_DATA)
 * before it appends the CPU data it received on its per-CPU connections, as *head (malloc'd,
 * the caller frees it) and *len.  The bytes are td_write's, cut where the listener takes
 * over:
 *   version 6: from the magic to the end of the options (their DONE); the listener adds
 *              "flyrecord", each CPU's offset and size, the clock and the pages;
 *   version 7: the magic, the six metadata sections and one options section (the parts'
 *              offsets, CPUCOUNT, the common options) ending with DONE whose next-options
 *              offset is 0; the listener points that at an options section of its own
 *              (with the BUFFER option), adds the buffer section and the strings.
 * o->cpu is not read (o->cpus is).  0 or -errno, as td_write's inputs.
 */
int td_listener_head(const struct td_opts *o, char **head, size_t *len);

#endif

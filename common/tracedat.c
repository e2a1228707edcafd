// SPDX-License-Identifier: MIT
/*
 * tracedat.c - see tracedat.h.  The layouts are those of `man 5 trace-cmd.dat.v6` and
 * `man 5 trace-cmd.dat.v7`; numbers are in the host's byte order, which the file's
 * endianness byte declares.
 *
 * How a file is made:
 *   1. Every input of the metadata is read into memory and the whole metadata is built
 *      in one buffer, up to the first page-aligned byte of CPU data, with each CPU's
 *      offset and size computed from the size of its page file.  Nothing is written
 *      before every input has been read and checked.
 *   2. The buffer is written at offset 0.  If that fails, the file is cut to 0 bytes: a
 *      header without its tables must not look like a trace.
 *   3. Each CPU's pages are copied to their place, 1 MiB at a time.  If a copy fails, the
 *      CPU that failed keeps its whole pages, the later ones become empty, and the table
 *      entries (and, in version 7, the size of the buffer section) are rewritten in place
 *      with pwrite, which needs no new space, and the file is cut after the last page.
 *
 * Version 7 keeps the same order (metadata, options, strings, then the flyrecord buffer
 * section last), so both versions survive a full disk the same way.
 *
 * A trace-cmd listener (record -N) is sent the first part of the same file, built by the
 * same code and cut where the listener takes over (td_listener_head): it appends the
 * CPU data and what describes it itself.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracedat.h"

#define TD_CHUNK (1u << 20) /* copied per call: big enough to be cheap, small to punch early */

/* Option and section ids of the format (the same numbers in both). */
enum {
	TD_OPT_DONE = 0,
	TD_OPT_CPUSTAT = 2,
	TD_OPT_BUFFER = 3,
	TD_OPT_TRACECLOCK = 4,
	TD_OPT_UNAME = 5,
	TD_OPT_CPUCOUNT = 8,
	TD_OPT_VERSION = 9,
	TD_OPT_STRINGS = 15,
	TD_OPT_HEADER_INFO = 16,
	TD_OPT_FTRACE_EVENTS = 17,
	TD_OPT_EVENT_FORMATS = 18,
	TD_OPT_KALLSYMS = 19,
	TD_OPT_PRINTK = 20,
	TD_OPT_CMDLINES = 21,
	TD_OPT_BUFFER_TEXT = 22,
};

/* A growing byte buffer; err keeps the first allocation failure so callers check once. */
struct td_buf {
	char *p;
	size_t len, cap;
	int err;
};

/* Where the CPU table lives in the metadata, to rewrite it after a failed copy. */
struct td_layout {
	size_t cpu_tab;	     /* offset of CPU 0's entry */
	size_t cpu_stride;   /* bytes from one entry to the next */
	size_t cpu_off_skip; /* from an entry's start to its u64 offset */
	size_t buf_sec_size; /* v7: offset of the buffer section's size field; 0: none (v6) */
	unsigned long long data_start;
	unsigned long long *off, *size; /* [cpus] */
	bool head_only; /* a listener's part only: what td_listener_head describes */
};

static void put(struct td_buf *b, const void *d, size_t n)
{
	if (b->err)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

/* Numbers in the host's order, which the file's endianness byte declares. */
#define put_u16(b, v) put(b, &(uint16_t){v}, 2)
#define put_u32(b, v) put(b, &(uint32_t){v}, 4)
#define put_u64(b, v) put(b, &(uint64_t){v}, 8)

static void put_str(struct td_buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

static void set_u64(struct td_buf *b, size_t at, uint64_t v)
{
	if (!b->err)
		memcpy(b->p + at, &v, 8);
}

/* ---- reading the inputs ------------------------------------------------------------------ */

/*
 * The whole of a file below dirfd.  tracefs and FUSE files say size 0 in stat, so read
 * to the end.  0 or -errno; *out is NUL-terminated (not counted in *len).
 */
static int slurp(int dirfd, const char *path, char **out, size_t *len)
{
	struct td_buf b = {0};
	char chunk[65536];
	ssize_t n;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			free(b.p);
			return (int)n;
		}
		put(&b, chunk, (size_t)n);
	}
	close(fd);
	put(&b, "", 1);
	if (b.err) {
		free(b.p);
		return b.err;
	}
	*out = b.p;
	*len = b.len - 1;
	return 0;
}

/* As slurp, but a missing file is an empty one (printk_formats, saved_cmdlines). */
static int slurp_optional(int dirfd, const char *path, char **out, size_t *len)
{
	int ret = slurp(dirfd, path, out, len);

	if (ret != -ENOENT)
		return ret;
	*out = strdup("");
	*len = 0;
	return *out ? 0 : -ENOMEM;
}

/*
 * Is this an event format file?  Readers parse every one and give up on the file at the
 * first they cannot, so refuse what is not one here, before anything is written.
 */
static bool format_ok(const char *t)
{
	return strncmp(t, "name: ", 6) == 0 && strstr(t, "\nID: ") && strstr(t, "\nformat:\n") &&
	       strstr(t, "\nprint fmt: ");
}

/* u64 size, then a format file that must be one. */
static int put_format(struct td_buf *b, int dirfd, const char *path)
{
	char *t;
	size_t len;
	int ret = slurp(dirfd, path, &t, &len);

	if (ret)
		return ret;
	if (!format_ok(t)) {
		free(t);
		return -EINVAL;
	}
	put_u64(b, len);
	put(b, t, len);
	free(t);
	return 0;
}

static int dir_filter(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/*
 * The formats of one system: u32 count, then each event's format, in name order.  An
 * entry without a format file (the system's enable and filter files) is not an event.
 * *count gets the number written.
 */
static int put_system(struct td_buf *b, int evfd, const char *sys, uint32_t *count)
{
	struct dirent **ents;
	char path[PATH_MAX];
	size_t count_at = b->len;
	int n = scandirat(evfd, sys, &ents, dir_filter, alphasort);
	int ret = 0;

	*count = 0;
	if (n < 0)
		return -errno;
	put_u32(b, 0);
	for (int i = 0; i < n; i++) {
		if (ret == 0) {
			snprintf(path, sizeof(path), "%s/%s/format", sys, ents[i]->d_name);
			ret = put_format(b, evfd, path);
			if (ret == -ENOENT || ret == -ENOTDIR)
				ret = 0;
			else if (ret == 0)
				(*count)++;
		}
		free(ents[i]);
	}
	free(ents);
	if (!b->err)
		memcpy(b->p + count_at, count, 4);
	return ret;
}

/* Every system but ftrace: u32 count of systems, then each with its name and formats.
 * A system without any event is left out. */
static int put_event_systems(struct td_buf *b, int evfd)
{
	struct dirent **ents;
	size_t nsys_at = b->len;
	uint32_t nsys = 0;
	int n = scandirat(evfd, ".", &ents, dir_filter, alphasort);
	int ret = 0;

	if (n < 0)
		return -errno;
	put_u32(b, 0);
	for (int i = 0; i < n; i++) {
		const char *sys = ents[i]->d_name;
		struct stat st;
		size_t start = b->len;
		uint32_t count;

		if (ret == 0 && strcmp(sys, "ftrace") != 0 && fstatat(evfd, sys, &st, 0) == 0 &&
		    S_ISDIR(st.st_mode)) {
			put_str(b, sys);
			ret = put_system(b, evfd, sys, &count);
			if (ret == 0 && count == 0)
				b->len = start;
			else
				nsys++;
		}
		free(ents[i]);
	}
	free(ents);
	if (!b->err)
		memcpy(b->p + nsys_at, &nsys, 4);
	return ret;
}

/* "header_page\0", u64 size, text, "header_event\0", u64 size, text. */
static int put_header_info(struct td_buf *b, int evfd)
{
	static const char *const names[] = {"header_page", "header_event"};

	for (int i = 0; i < 2; i++) {
		char *t;
		size_t len;
		int ret = slurp(evfd, names[i], &t, &len);

		if (ret)
			return ret;
		put_str(b, names[i]);
		put_u64(b, len);
		put(b, t, len);
		free(t);
	}
	return 0;
}

/* A text with its size before it, in 4 or 8 bytes as the format wants for that part. */
static void put_sized(struct td_buf *b, const char *t, size_t len, int size_bytes)
{
	if (size_bytes == 4 && len > UINT32_MAX && !b->err)
		b->err = -EFBIG; /* the format has no room for it */
	if (size_bytes == 4)
		put_u32(b, (uint32_t)len);
	else
		put_u64(b, len);
	put(b, t, len);
}

/* ---- the parts common to both versions --------------------------------------------------- */

/* Where the metadata comes from: the tree, its events/, the symbol file. */
struct td_meta {
	int evfd, dirfd;
	const char *kallsyms;
};

/* One of the six metadata parts (id: its section's id), laid out as both versions have it;
 * version 7 puts each in a section of its own (sec_begin/sec_end around it). */
static int put_part(struct td_buf *b, const struct td_meta *m, int id)
{
	char *t = NULL;
	size_t len = 0;
	int ret = 0;
	uint32_t n;

	switch (id) {
	case TD_OPT_HEADER_INFO:
		return put_header_info(b, m->evfd);
	case TD_OPT_FTRACE_EVENTS:
		/* the ftrace system's formats, without the system's name */
		ret = put_system(b, m->evfd, "ftrace", &n);
		if (ret == -ENOENT) {
			put_u32(b, 0);
			ret = 0;
		}
		return ret;
	case TD_OPT_EVENT_FORMATS:
		return put_event_systems(b, m->evfd);
	case TD_OPT_KALLSYMS:
		if (m->kallsyms)
			ret = slurp(AT_FDCWD, m->kallsyms, &t, &len);
		if (ret == 0)
			put_sized(b, t ? t : "", len, 4);
		break;
	case TD_OPT_PRINTK:
		ret = slurp_optional(m->dirfd, "printk_formats", &t, &len);
		if (ret == 0)
			put_sized(b, t, len, 4);
		break;
	case TD_OPT_CMDLINES:
		ret = slurp_optional(m->dirfd, "saved_cmdlines", &t, &len);
		if (ret == 0)
			put_sized(b, t, len, 8);
		break;
	}
	free(t);
	return ret;
}

static const int parts[] = {TD_OPT_HEADER_INFO, TD_OPT_FTRACE_EVENTS, TD_OPT_EVENT_FORMATS,
			    TD_OPT_KALLSYMS,	TD_OPT_PRINTK,	      TD_OPT_CMDLINES};
#define NPARTS (sizeof(parts) / sizeof(parts[0]))

/* The selected clock: o->clock, else the [word] of trace_clock. */
static int get_clock(const struct td_opts *o, int dirfd, char *out, size_t size)
{
	char *t, *l, *r;
	size_t len;
	int ret;

	if (o->clock) {
		if (strlen(o->clock) >= size)
			return -EINVAL;
		strcpy(out, o->clock);
		return 0;
	}
	ret = slurp(dirfd, "trace_clock", &t, &len);
	if (ret)
		return ret;
	l = strchr(t, '[');
	r = l ? strchr(l, ']') : NULL;
	if (!r || (size_t)(r - l - 1) >= size || r == l + 1) {
		free(t);
		return -EINVAL;
	}
	memcpy(out, l + 1, (size_t)(r - l - 1));
	out[r - l - 1] = '\0';
	free(t);
	return 0;
}

/* A string option: id, size with the NUL, the text with its NUL. */
static void put_opt_str(struct td_buf *b, uint16_t id, const char *s)
{
	put_u16(b, id);
	put_u32(b, (uint32_t)strlen(s) + 1);
	put_str(b, s);
}

/* The options both versions carry: CPUSTAT per CPU, UNAME, VERSION. */
static void put_common_options(struct td_buf *b, const struct td_opts *o)
{
	char head[32];

	for (unsigned int c = 0; o->cpu_stats && c < o->cpus; c++) {
		size_t hl, tl;

		if (!o->cpu_stats[c])
			continue;
		hl = (size_t)snprintf(head, sizeof(head), "CPU: %u\n", c);
		tl = strlen(o->cpu_stats[c]);
		put_u16(b, TD_OPT_CPUSTAT);
		put_u32(b, (uint32_t)(hl + tl + 1));
		put(b, head, hl);
		put_str(b, o->cpu_stats[c]);
	}
	if (o->uname)
		put_opt_str(b, TD_OPT_UNAME, o->uname);
	if (o->version_str)
		put_opt_str(b, TD_OPT_VERSION, o->version_str);
}

static unsigned long long align_up(unsigned long long v, unsigned int a)
{
	return (v + a - 1) / a * a;
}

/* Page the CPUs' data after the metadata: each CPU's offset, in order, from data_start. */
static void place_cpus(struct td_layout *l, unsigned int cpus)
{
	unsigned long long at = l->data_start;

	for (unsigned int c = 0; c < cpus; c++) {
		l->off[c] = at;
		at += l->size[c];
	}
}

/* Zeros up to data_start, where the first page goes. */
static void pad_to_data(struct td_buf *b, const struct td_layout *l)
{
	static const char zeros[4096];

	while (!b->err && b->len < l->data_start) {
		size_t n = l->data_start - b->len;

		put(b, zeros, n < sizeof(zeros) ? n : sizeof(zeros));
	}
}

static void put_magic(struct td_buf *b, const struct td_opts *o)
{
	static const uint16_t one = 1;

	put(b, "\x17\x08\x44tracing", 10);
	put_str(b, o->version == 6 ? "6" : "7");
	put(b, &(char){*(const char *)&one == 0}, 1); /* 0: little endian */
	put(b, &(char){sizeof(long)}, 1);
	put_u32(b, o->page_size);
}

/* ---- version 6 --------------------------------------------------------------------------- */

/*
 * The TRACECLOCK option: the words of trace_clock with clock in brackets (clock alone
 * when the tree has no trace_clock, or does not list it).  0 or -ENOMEM.
 */
static int put_clock_option(struct td_buf *b, const struct td_meta *m, const char *clock)
{
	char *t = NULL, *text, *save, *w;
	size_t len = 0, room;
	bool listed = false;
	int n = 0;

	if (slurp(m->dirfd, "trace_clock", &t, &len))
		t = NULL;
	room = len + strlen(clock) + 8;
	text = malloc(room);
	if (!text) {
		free(t);
		return -ENOMEM;
	}
	text[0] = '\0';
	for (w = t ? strtok_r(t, " \n[]", &save) : NULL; w; w = strtok_r(NULL, " \n[]", &save)) {
		bool sel = !strcmp(w, clock);

		listed |= sel;
		n += snprintf(text + n, room - (size_t)n, "%s%s%s%s", n ? " " : "", sel ? "[" : "",
			      w, sel ? "]" : "");
	}
	if (!listed)
		n = snprintf(text, room, "[%s]", clock);
	snprintf(text + n, room - (size_t)n, "\n");
	put_u16(b, TD_OPT_TRACECLOCK);
	put_u32(b, (uint32_t)strlen(text) + 1);
	put(b, text, strlen(text) + 1);
	free(text);
	free(t);
	return 0;
}

/* Parts in order, CPU count, options, "flyrecord" and the CPU table, then the clock. */
static int build_v6(struct td_buf *b, const struct td_opts *o, const struct td_meta *m,
		    const char *clock, struct td_layout *l)
{
	char clk[80];
	size_t table, clen;

	put_magic(b, o);
	for (size_t i = 0; i < NPARTS; i++) {
		int ret = put_part(b, m, parts[i]);

		if (ret)
			return ret;
	}
	put_u32(b, o->cpus);
	put(b, "options  ", 10);
	/* the clocks as trace_clock lists them, the one used in brackets: the readers
	 * parse this option's text for it.  Not in a latency file (trace-cmd writes none
	 * there): with it, libtracecmd reads a clock after "latency" and eats the text's
	 * first 8 bytes as its size. */
	if (!o->latency && put_clock_option(b, m, clock))
		return -ENOMEM;
	put_common_options(b, o);
	put_u16(b, TD_OPT_DONE);
	if (l->head_only)
		return b->err;
	if (o->latency) {
		/* the trace file's text to the end of the file */
		put(b, "latency  ", 10);
		put(b, o->latency, o->latency_len);
		return b->err;
	}
	put(b, "flyrecord", 10);
	table = b->len;
	clen = (size_t)snprintf(clk, sizeof(clk), "[%s]", clock);
	l->data_start = align_up(table + 16ull * o->cpus + 8 + clen, o->page_size);
	place_cpus(l, o->cpus);
	for (unsigned int c = 0; c < o->cpus; c++) {
		put_u64(b, l->off[c]);
		put_u64(b, l->size[c]);
	}
	put_sized(b, clk, clen, 8);
	l->cpu_tab = table;
	l->cpu_stride = 16;
	l->cpu_off_skip = 0;
	pad_to_data(b, l);
	return b->err;
}

/* ---- version 7 --------------------------------------------------------------------------- */

/* Every section's description, in the order the strings section holds them. */
enum { D_OPTIONS = NPARTS, D_STRINGS, D_FLYRECORD, ND };
static const char *const sec_desc[ND] = {"headers",  "ftrace events", "events format",
					 "kallsyms", "printk",	      "command lines",
					 "options",  "strings",	      "flyrecord"};

/* The description of section d: the last one is the buffer's, which a latency file has
 * as text (trace-cmd's name for it). */
static const char *desc_of(unsigned int d, const struct td_opts *o)
{
	return d == D_FLYRECORD && o->latency ? "buffer latency" : sec_desc[d];
}

/* Section header: u16 id, u16 flags, u32 description (its offset in the strings section),
 * u64 size; returns where the size goes, for sec_end. */
static size_t sec_begin(struct td_buf *b, uint16_t id, unsigned int desc)
{
	uint32_t off = 0;
	size_t at;

	for (unsigned int i = 0; i < desc; i++)
		off += (uint32_t)strlen(sec_desc[i]) + 1;
	put_u16(b, id);
	put_u16(b, 0);
	put_u32(b, off);
	at = b->len;
	put_u64(b, 0);
	return at;
}

static void sec_end(struct td_buf *b, size_t size_at)
{
	set_u64(b, size_at, b->len - size_at - 8);
}

static void put_opt_u64(struct td_buf *b, uint16_t id, uint64_t v)
{
	put_u16(b, id);
	put_u32(b, 8);
	put_u64(b, v);
}

static size_t buffer_option_size(const struct td_opts *o, const char *clock)
{
	return 6 + 8 + 1 + strlen(clock) + 1 + 4 + 4 + 20 * (size_t)o->cpus;
}

/* The BUFFER option of the top instance: where its section is, name "", the clock, page
 * size, CPU count and each CPU's id, offset and size. */
static void put_buffer_option(struct td_buf *b, const struct td_opts *o, const char *clock,
			      unsigned long long sec_off, struct td_layout *l)
{
	put_u16(b, TD_OPT_BUFFER);
	put_u32(b, (uint32_t)(buffer_option_size(o, clock) - 6));
	put_u64(b, sec_off);
	put_str(b, "");
	put_str(b, clock);
	put_u32(b, o->page_size);
	put_u32(b, o->cpus);
	l->cpu_tab = b->len;
	l->cpu_stride = 20;
	l->cpu_off_skip = 4;
	for (unsigned int c = 0; c < o->cpus; c++) {
		put_u32(b, c);
		put_u64(b, l->off[c]);
		put_u64(b, l->size[c]);
	}
}

static void put_strings(struct td_buf *b, const struct td_opts *o)
{
	size_t at = sec_begin(b, TD_OPT_STRINGS, D_STRINGS);

	for (unsigned int i = 0; i < ND; i++)
		put_str(b, desc_of(i, o));
	sec_end(b, at);
}

/*
 * A latency file's end (the options section is open at opt_at): the BUFFER_TEXT option
 * (where the text's section is, name "", the clock), DONE, the strings, and the section
 * of the text, the trace file's, last.
 */
static void put_latency_tail(struct td_buf *b, const struct td_opts *o, const char *clock,
			     size_t opt_at, unsigned long long strings_len)
{
	uint32_t opt_size = 8 + 1 + (uint32_t)strlen(clock) + 1;
	size_t at;

	put_u16(b, TD_OPT_BUFFER_TEXT);
	put_u32(b, opt_size);
	/* after this option, DONE (14 bytes) and the strings section (header 16 bytes) */
	put_u64(b, b->len + 8 + (opt_size - 8) + 14 + 16 + strings_len);
	put_str(b, "");
	put_str(b, clock);
	put_opt_u64(b, TD_OPT_DONE, 0);
	sec_end(b, opt_at);
	put_strings(b, o);
	at = sec_begin(b, TD_OPT_BUFFER_TEXT, D_FLYRECORD);
	put(b, o->latency, o->latency_len);
	sec_end(b, at);
}

/* The options section (each part's offset, CPU count, the common options, BUFFER), the
 * strings section, and the head of the buffer section, whose offset follows from the
 * sizes of the two before it. */
static void put_v7_tail(struct td_buf *b, const struct td_opts *o, const char *clock,
			const unsigned long long *part_off, struct td_layout *l)
{
	unsigned long long strings_len = 0, buf_sec, total = 0;
	size_t opt_at, at;

	for (unsigned int i = 0; i < ND; i++)
		strings_len += strlen(desc_of(i, o)) + 1;
	opt_at = sec_begin(b, TD_OPT_DONE, D_OPTIONS);
	for (size_t i = 0; i < NPARTS; i++)
		put_opt_u64(b, (uint16_t)parts[i], part_off[i]);
	put_u16(b, TD_OPT_CPUCOUNT);
	put_u32(b, 4);
	put_u32(b, o->cpus);
	put_common_options(b, o);
	if (l->head_only) {
		/* the listener links its own options section from this DONE */
		put_opt_u64(b, TD_OPT_DONE, 0);
		sec_end(b, opt_at);
		return;
	}
	if (o->latency) {
		put_latency_tail(b, o, clock, opt_at, strings_len);
		return;
	}
	/* then BUFFER, DONE (14 bytes), the strings section (header 16 bytes) */
	buf_sec = b->len + buffer_option_size(o, clock) + 14 + 16 + strings_len;
	l->data_start = align_up(buf_sec + 16, o->page_size);
	place_cpus(l, o->cpus);
	put_buffer_option(b, o, clock, buf_sec, l);
	put_opt_u64(b, TD_OPT_DONE, 0);
	sec_end(b, opt_at);

	put_strings(b, o);

	/* the buffer section holds the padding and every page */
	at = sec_begin(b, TD_OPT_BUFFER, D_FLYRECORD);
	for (unsigned int c = 0; c < o->cpus; c++)
		total += l->size[c];
	set_u64(b, at, l->data_start - (at + 8) + total);
	l->buf_sec_size = at;
}

/* Header, the six parts as sections, then put_v7_tail; the pages follow. */
static int build_v7(struct td_buf *b, const struct td_opts *o, const struct td_meta *m,
		    const char *clock, struct td_layout *l)
{
	unsigned long long part_off[NPARTS];
	size_t first_opt;

	put_magic(b, o);
	put_str(b, "none"); /* compression: name, version */
	put_str(b, "");
	first_opt = b->len;
	put_u64(b, 0);
	for (size_t i = 0; i < NPARTS; i++) {
		size_t at;
		int ret;

		part_off[i] = b->len;
		at = sec_begin(b, (uint16_t)parts[i], (unsigned int)i);
		ret = put_part(b, m, parts[i]);
		if (ret)
			return ret;
		sec_end(b, at);
	}
	set_u64(b, first_opt, b->len);
	put_v7_tail(b, o, clock, part_off, l);
	if (!l->head_only && !o->latency)
		pad_to_data(b, l);
	return b->err;
}

/* ---- writing ----------------------------------------------------------------------------- */

/* All of len bytes at off; 0 or -errno (a short write that cannot go on gives its errno). */
static int pwrite_all(int fd, const void *p, size_t len, unsigned long long off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p = (const char *)p + n;
		len -= (size_t)n;
		off += (unsigned long long)n;
	}
	return 0;
}

/*
 * Copy up to len bytes from in (at in_off) to out (at out_off): copy_file_range where
 * the kernel can (no trip through user space; a reflink on some file systems), read
 * and write otherwise.  Returns the bytes copied (0: the input ended) or -errno
 * (-EINTR: nothing happened, try again).
 */
static long copy_some(int in, unsigned long long in_off, int out, unsigned long long out_off,
		      size_t len, bool *plain, char **bounce)
{
	ssize_t n;

	if (!*plain) {
		loff_t io = (loff_t)in_off, oo = (loff_t)out_off;

		n = copy_file_range(in, &io, out, &oo, len, 0);
		if (n >= 0)
			return n;
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP &&
		    errno != EBADF)
			return -errno;
		*plain = true;
	}
	if (!*bounce && !(*bounce = malloc(TD_CHUNK)))
		return -ENOMEM;
	n = pread(in, *bounce, len, (off_t)in_off);
	if (n <= 0)
		return n < 0 ? -errno : 0;
	/* one write: what a short one stored counts, the next call gets the error */
	n = pwrite(out, *bounce, (size_t)n, (off_t)out_off);
	return n < 0 ? -errno : n;
}

/*
 * One CPU's pages to their place.  *done gets the bytes that reached the file; 0 or
 * -errno.  An input shorter than it was when the layout was made ends the copy early
 * with -EIO: what it said it had is not there.
 */
static int copy_cpu(int out, const struct td_opts *o, unsigned int c, const struct td_layout *l,
		    unsigned long long *done, bool *plain, char **bounce)
{
	int in = o->cpu[c].fd;
	size_t step = TD_CHUNK;

	*done = 0;
	while (*done < l->size[c]) {
		unsigned long long left = l->size[c] - *done;
		long n = copy_some(in, *done, out, l->off[c] + *done,
				   left < step ? (size_t)left : step, plain, bounce);

		if (n == -EINTR)
			continue;
		/*
		 * A full disk, when the inputs are on it and punched: a page at a time, each
		 * freeing the space the next one takes, so that all of them fit.
		 */
		if (n == -ENOSPC && o->punch && step > o->page_size) {
			step = o->page_size;
			continue;
		}
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -EIO;
		/* the pages are in the file now: their space in the input is not needed */
		if (o->punch && n > 0)
			fallocate(in, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)*done, n);
		*done += (unsigned long long)n;
	}
	return 0;
}

/*
 * After CPU c could store only `kept` bytes (whole pages): it and every later CPU are
 * rewritten in the table (later ones empty, placed at the end), and in version 7 the
 * buffer section's size; the file is cut after the last page.  These writes land on
 * bytes written before, so a full disk takes them.
 */
static int cut_short(int out, struct td_buf *b, const struct td_opts *o, struct td_layout *l,
		     unsigned int c, unsigned long long kept)
{
	unsigned long long end = l->off[c] + kept;
	size_t first = l->cpu_tab + c * l->cpu_stride;
	int ret;

	l->size[c] = kept;
	for (unsigned int k = c + 1; k < o->cpus; k++) {
		l->off[k] = end;
		l->size[k] = 0;
	}
	for (unsigned int k = c; k < o->cpus; k++) {
		size_t e = l->cpu_tab + k * l->cpu_stride + l->cpu_off_skip;

		set_u64(b, e, l->off[k]);
		set_u64(b, e + 8, l->size[k]);
	}
	ret = pwrite_all(out, b->p + first, (o->cpus - c) * l->cpu_stride, first);
	if (!ret && l->buf_sec_size) {
		set_u64(b, l->buf_sec_size, end - (l->buf_sec_size + 8));
		ret = pwrite_all(out, b->p + l->buf_sec_size, 8, l->buf_sec_size);
	}
	if (!ret && ftruncate(out, (off_t)end))
		ret = -errno;
	return ret;
}

/* Each CPU's size: its file's, in whole pages. */
static int size_cpus(const struct td_opts *o, struct td_layout *l)
{
	for (unsigned int c = 0; c < o->cpus; c++) {
		struct stat st;

		l->size[c] = 0;
		if (o->cpu[c].fd < 0)
			continue;
		if (fstat(o->cpu[c].fd, &st))
			return -errno;
		l->size[c] = (unsigned long long)st.st_size / o->page_size * o->page_size;
	}
	return 0;
}

/* The pages of every CPU, cut short at the first error (see cut_short). */
static int copy_pages(int out, struct td_buf *b, const struct td_opts *o, struct td_layout *l,
		      struct td_result *res)
{
	unsigned long long all = 0, done;
	char *bounce = NULL;
	bool plain = false;
	int ret = 0;

	for (unsigned int c = 0; c < o->cpus; c++)
		all += l->size[c] / o->page_size;
	res->pages_written = 0;
	for (unsigned int c = 0; c < o->cpus && !ret; c++) {
		ret = copy_cpu(out, o, c, l, &done, &plain, &bounce);
		if (ret) {
			done = done / o->page_size * o->page_size;
			int cut = cut_short(out, b, o, l, c, done);

			if (cut)
				ret = cut; /* the file is not valid: say why */
		}
		res->pages_written += done / o->page_size;
	}
	res->pages_dropped = all - res->pages_written;
	free(bounce);
	return ret;
}

static int check_opts(const struct td_opts *o, bool head_only)
{
	if (!o || !o->tracing_dir || (o->version != 6 && o->version != 7))
		return -EINVAL;
	if (o->page_size < 64 || (o->page_size & (o->page_size - 1)))
		return -EINVAL;
	if (o->cpus && !o->cpu && !head_only && !o->latency)
		return -EINVAL;
	return 0;
}

/*
 * Everything td_write and td_listener_head share: the inputs read and checked, and the
 * metadata built into b (l->head_only: a listener's part).  0 or -errno; b and l are the
 * caller's to free.
 */
static int build(const struct td_opts *o, struct td_buf *b, struct td_layout *l)
{
	struct td_meta m = {.evfd = -1, .dirfd = -1, .kallsyms = o->kallsyms};
	char clock[64];
	int ret = check_opts(o, l->head_only);

	if (ret)
		return ret;
	l->off = calloc(o->cpus + 1, sizeof(*l->off));
	l->size = calloc(o->cpus + 1, sizeof(*l->size));
	m.dirfd = open(o->tracing_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	m.evfd = m.dirfd < 0 ? -1 : openat(m.dirfd, "events", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!l->off || !l->size)
		ret = -ENOMEM;
	else if (m.evfd < 0)
		ret = -errno;
	if (!ret && !l->head_only && !o->latency)
		ret = size_cpus(o, l);
	if (!ret)
		ret = get_clock(o, m.dirfd, clock, sizeof(clock));
	if (!ret)
		ret = o->version == 6 ? build_v6(b, o, &m, clock, l) : build_v7(b, o, &m, clock, l);
	if (m.evfd >= 0)
		close(m.evfd);
	if (m.dirfd >= 0)
		close(m.dirfd);
	return ret;
}

int td_write(int out_fd, const struct td_opts *o, struct td_result *res)
{
	struct td_result dummy;
	struct td_buf b = {0};
	struct td_layout l = {0};
	int ret;

	if (!res)
		res = &dummy;
	*res = (struct td_result){0};
	ret = build(o, &b, &l);
	if (!ret) {
		ret = pwrite_all(out_fd, b.p, b.len, 0);
		if (ret) {
			/* a header without its tables must not pass for a trace; the write's
			 * errno is the one to report */
			if (ftruncate(out_fd, 0)) {
			}
			for (unsigned int c = 0; c < o->cpus; c++)
				res->pages_dropped += l.size[c] / o->page_size;
		} else if (!o->latency) {
			ret = copy_pages(out_fd, &b, o, &l, res);
		}
	}
	free(b.p);
	free(l.off);
	free(l.size);
	return ret;
}

int td_listener_head(const struct td_opts *o, char **head, size_t *len)
{
	struct td_buf b = {0};
	struct td_layout l = {.head_only = true};
	int ret = build(o, &b, &l);

	free(l.off);
	free(l.size);
	if (ret) {
		free(b.p);
		return ret;
	}
	*head = b.p;
	*len = b.len;
	return 0;
}

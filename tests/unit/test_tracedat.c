// SPDX-License-Identifier: MIT
/*
 * test_tracedat.c - the trace.dat writer (common/tracedat.c): files of version 6 and 7
 * made from a tracing tree built here (header_page, header_event and the ftrace formats
 * as utracefs serves them, tests/data/tracedat/, plus a system of our own) and pages
 * built by hand.  Each file is checked twice: by walking its layout here (magic,
 * version, sections and options inside the file, pages on page boundaries), and by
 * libtracecmd's own reader, which must give back every event with its CPU, pid, time
 * stamp and function name.  Then: inputs that are missing or wrong, a disk that fills
 * up (a 64 KiB tmpfs, as root) and a file size limit while the pages are copied, and
 * punching the inputs' space.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <trace-cmd.h>

#include "tracedat.h"

#define PAGE 4096u
#define T0 1000000000000ull /* the first time stamp: 1000 s */

static char dir[64];	  /* the fixture tracing tree */
static char kallsyms[96]; /* its symbol table */
static char work[64];	  /* outputs and page files */

/* ---- the fixture ------------------------------------------------------------------------ */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* tests/data/tracedat/REL (next to the build directory this test runs from) to dir/REL */
static void copy_fixture(const char *rel)
{
	char exe[PATH_MAX], src[PATH_MAX + 64], dst[PATH_MAX], buf[8192];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *in, *out;
	size_t got;

	assert_true(n > 0);
	exe[n] = 0;
	*strrchr(exe, '/') = 0; /* BUILD/tests */
	snprintf(src, sizeof(src), "%s/../../tests/data/tracedat/%s", exe, rel);
	snprintf(dst, sizeof(dst), "%s/%s", dir, rel);
	in = fopen(src, "r");
	assert_non_null(in);
	out = fopen(dst, "w");
	assert_non_null(out);
	while ((got = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, got, out), got);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static void mkdirf(const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	assert_int_equal(mkdir(path, 0755), 0);
}

static const char *const ftrace_events[] = {"function", "funcgraph_entry", "funcgraph_exit",
					    "print"};

static const char myev_format[] =
    "name: myev\nID: 500\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n"
    "print fmt: \"value=%d\", REC->value\n";

/* A tracing tree: the real headers and ftrace formats, a system "utest" with one event
 * and its enable file (not an event), saved_cmdlines, trace_clock; no printk_formats. */
static int setup(void **state)
{
	char path[PATH_MAX];

	strcpy(dir, "/tmp/ut-tracedat.XXXXXX");
	assert_non_null(mkdtemp(dir));
	strcpy(work, "/tmp/ut-tracedat-out.XXXXXX");
	assert_non_null(mkdtemp(work));
	mkdirf("%s/events", dir);
	mkdirf("%s/events/ftrace", dir);
	copy_fixture("events/header_page");
	copy_fixture("events/header_event");
	for (size_t i = 0; i < sizeof(ftrace_events) / sizeof(ftrace_events[0]); i++) {
		mkdirf("%s/events/ftrace/%s", dir, ftrace_events[i]);
		snprintf(path, sizeof(path), "events/ftrace/%s/format", ftrace_events[i]);
		copy_fixture(path);
	}
	mkdirf("%s/events/utest", dir);
	mkdirf("%s/events/utest/myev", dir);
	snprintf(path, sizeof(path), "%s/events/utest/myev/format", dir);
	write_file(path, myev_format);
	snprintf(path, sizeof(path), "%s/events/utest/enable", dir);
	write_file(path, "0\n");
	mkdirf("%s/events/empty", dir); /* a system without events: left out */
	snprintf(path, sizeof(path), "%s/saved_cmdlines", dir);
	write_file(path, "4242 worker\n4243 other\n");
	snprintf(path, sizeof(path), "%s/trace_clock", dir);
	write_file(path, "local [global] counter\n");
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", work);
	write_file(kallsyms, "0000000000401000 T main\t[prog]\n"
			     "0000000000401100 T work\t[prog]\n"
			     "0000000000401200 T leaf\t[prog]\n"
			     "0000000000401300 T prog.end\t[prog]\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "%s/small", work);
	umount2(cmd, MNT_DETACH); /* left mounted by a failed test_enospc */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", dir, work);
	return system(cmd);
}

/* ---- pages ------------------------------------------------------------------------------ */

/* One sub-buffer as the ring buffer writes it: u64 time stamp, u64 commit, events. */
struct page {
	unsigned char b[PAGE];
	size_t len; /* bytes of events */
	uint64_t ts;
};

static void page_init(struct page *p, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	p->ts = ts;
	memcpy(p->b, &ts, 8);
}

static void page_u32(struct page *p, uint32_t v)
{
	assert_true(16 + p->len + 4 <= PAGE);
	memcpy(p->b + 16 + p->len, &v, 4);
	p->len += 4;
	memcpy(p->b + 8, &(uint64_t){p->len}, 8);
}

/* An event of len bytes (a multiple of 4) at time ts; a time extend first if the delta
 * does not fit in 27 bits. */
static void page_event(struct page *p, uint64_t ts, const void *data, size_t len)
{
	uint64_t delta = ts - p->ts;

	if (delta >= (1u << 27)) {
		page_u32(p, 30 | (uint32_t)(delta & ((1u << 27) - 1)) << 5);
		page_u32(p, (uint32_t)(delta >> 27));
		delta = 0;
	}
	p->ts = ts;
	if (len <= 112) {
		page_u32(p, (uint32_t)(len / 4) | (uint32_t)delta << 5);
	} else {
		page_u32(p, (uint32_t)delta << 5);
		page_u32(p, (uint32_t)len + 4);
	}
	for (size_t i = 0; i < len; i += 4)
		page_u32(p, *(const uint32_t *)((const char *)data + i));
}

struct common {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
};

static void ev_function(struct page *p, uint64_t ts, int pid, uint64_t ip, uint64_t parent)
{
	struct {
		struct common c;
		uint64_t ip, parent;
	} e = {{1, 0, 0, pid}, ip, parent};

	page_event(p, ts, &e, sizeof(e));
}

static void ev_graph(struct page *p, uint64_t ts, int pid, uint64_t func, uint64_t call)
{
	struct {
		struct common c;
		uint64_t func;
		uint32_t depth, pad;
	} in = {{11, 0, 0, pid}, func, 0, 0};
	struct {
		struct common c;
		uint64_t func;
		uint32_t depth, overrun;
		uint64_t calltime, rettime;
	} out = {{10, 0, 0, pid}, func, 0, 0, call, ts};

	page_event(p, call, &in, sizeof(in));
	page_event(p, ts, &out, sizeof(out));
}

static void ev_print(struct page *p, uint64_t ts, int pid, uint64_t ip, const char *text)
{
	struct {
		struct common c;
		uint64_t ip;
		char buf[64];
	} e = {{5, 0, 0, pid}, ip, ""};
	size_t len = 16 + strlen(text) + 1;

	strcpy(e.buf, text);
	page_event(p, ts, &e, (len + 3) & ~(size_t)3);
}

static void ev_myev(struct page *p, uint64_t ts, int pid, int value)
{
	struct {
		struct common c;
		int32_t value, pad;
	} e = {{500, 0, 0, pid}, value, 0};

	page_event(p, ts, &e, 12);
}

/* A page file of work/NAME with n pages; returns an fd open for reading and writing. */
static int page_file(const char *name, const struct page *pages, size_t n)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", work, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(write(fd, pages[i].b, PAGE), PAGE);
	return fd;
}

/* ---- reading the file back ----------------------------------------------------------------- */

struct got {
	int cpu, pid;
	unsigned long long ts, ip;
	char event[32], func[32], comm[16];
};

/* Every record of every CPU, through libtracecmd; returns how many (at most max). */
static int read_back(const char *path, struct got *g, int max)
{
	struct tracecmd_input *h =
	    tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	struct tep_handle *tep;
	int n = 0;

	assert_non_null(h);
	tep = tracecmd_get_tep(h);
	for (int cpu = 0; cpu < 8; cpu++) {
		struct tep_record *r;

		while ((r = tracecmd_read_data(h, cpu))) {
			struct tep_event *ev = tep_find_event(tep, tep_data_type(tep, r));
			unsigned long long v = 0;
			const char *fn, *comm;

			assert_true(n < max);
			assert_non_null(ev);
			g[n] =
			    (struct got){.cpu = r->cpu, .pid = tep_data_pid(tep, r), .ts = r->ts};
			snprintf(g[n].event, sizeof(g[n].event), "%s", ev->name);
			if (tep_get_field_val(NULL, ev, "ip", r, &v, 0) &&
			    tep_get_field_val(NULL, ev, "func", r, &v, 0))
				v = 0;
			g[n].ip = v;
			fn = v ? tep_find_function(tep, v) : NULL;
			snprintf(g[n].func, sizeof(g[n].func), "%s", fn ? fn : "-");
			comm = tep_data_comm_from_pid(tep, g[n].pid);
			snprintf(g[n].comm, sizeof(g[n].comm), "%s", comm ? comm : "-");
			n++;
			tracecmd_free_record(r);
		}
	}
	tracecmd_close(h);
	return n;
}

static void expect(const struct got *g, int cpu, int pid, unsigned long long ts, const char *event,
		   const char *func, const char *comm)
{
	assert_int_equal(g->cpu, cpu);
	assert_int_equal(g->pid, pid);
	assert_int_equal(g->ts, ts);
	assert_string_equal(g->event, event);
	assert_string_equal(g->func, func);
	assert_string_equal(g->comm, comm);
}

/* ---- the layout, walked here -------------------------------------------------------------- */

struct file {
	unsigned char *p;
	size_t size, at;
};

static struct file load(const char *path)
{
	struct file f = {0};
	struct stat st;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	f.size = (size_t)st.st_size;
	f.p = malloc(f.size + 1);
	assert_non_null(f.p);
	assert_int_equal(read(fd, f.p, f.size), (ssize_t)f.size);
	close(fd);
	return f;
}

static uint64_t take(struct file *f, size_t n)
{
	uint64_t v = 0;

	assert_true(f->at + n <= f->size);
	memcpy(&v, f->p + f->at, n);
	f->at += n;
	return v;
}

/* n bytes at at, without moving */
static uint64_t peek(const struct file *f, size_t at, size_t n)
{
	struct file g = *f;

	g.at = at;
	return take(&g, n);
}

static const char *take_str(struct file *f)
{
	const char *s = (const char *)f->p + f->at;
	size_t len = strnlen(s, f->size - f->at);

	assert_true(f->at + len < f->size);
	f->at += len + 1;
	return s;
}

static void skip_bytes(struct file *f, uint64_t n)
{
	assert_true(n <= f->size - f->at);
	f->at += n;
}

/* magic, version, endianness, long size, page size */
static void check_start(struct file *f, const char *version)
{
	assert_memory_equal(f->p, "\x17\x08\x44tracing", 10);
	f->at = 10;
	assert_string_equal(take_str(f), version);
	assert_int_equal(take(f, 1), 0); /* little endian, as x86-64 */
	assert_int_equal(take(f, 1), 8);
	assert_int_equal(take(f, 4), PAGE);
}

/* Each CPU's {offset, size}: pages on page boundaries, in the file, sizes as expected. */
static void check_cpu(const struct file *f, uint64_t off, uint64_t size, uint64_t want)
{
	assert_int_equal(size, want);
	assert_int_equal(off % PAGE, 0);
	assert_true(off + size <= f->size);
}

static void check_v6(const char *path, unsigned int cpus, const uint64_t *sizes)
{
	struct file f = load(path);
	uint64_t n;

	check_start(&f, "6");
	assert_string_equal(take_str(&f), "header_page");
	skip_bytes(&f, take(&f, 8));
	assert_string_equal(take_str(&f), "header_event");
	skip_bytes(&f, take(&f, 8));
	n = take(&f, 4);
	assert_int_equal(n, 4); /* the ftrace formats of the fixture */
	while (n--)
		skip_bytes(&f, take(&f, 8));
	n = take(&f, 4);
	assert_int_equal(n, 1); /* utest; "empty" has no event */
	assert_string_equal(take_str(&f), "utest");
	assert_int_equal(take(&f, 4), 1);
	skip_bytes(&f, take(&f, 8));
	skip_bytes(&f, take(&f, 4));	  /* kallsyms */
	assert_int_equal(take(&f, 4), 0); /* printk_formats: missing, so empty */
	assert_int_equal(take(&f, 8), strlen("4242 worker\n4243 other\n"));
	skip_bytes(&f, strlen("4242 worker\n4243 other\n"));
	assert_int_equal(take(&f, 4), cpus);
	assert_memory_equal(f.p + f.at, "options  ", 10);
	f.at += 10;
	while ((n = take(&f, 2)) != 0)
		skip_bytes(&f, take(&f, 4));
	assert_memory_equal(f.p + f.at, "flyrecord", 10);
	f.at += 10;
	for (unsigned int c = 0; c < cpus; c++) {
		uint64_t off = take(&f, 8);

		check_cpu(&f, off, take(&f, 8), sizes[c]);
	}
	assert_int_equal(take(&f, 8), strlen("[global]"));
	assert_memory_equal(f.p + f.at, "[global]", 8);
	free(f.p);
}

/* The BUFFER option: its section is in the file and each CPU's pages too. */
static void check_buffer_option(const struct file *f, size_t at, unsigned int cpus,
				const uint64_t *sizes)
{
	struct file o = *f;
	uint64_t sec;

	o.at = at;
	sec = take(&o, 8);
	assert_true(sec + 16 <= f->size);
	assert_int_equal(peek(f, sec, 2), 3);
	assert_string_equal(take_str(&o), "");
	assert_string_equal(take_str(&o), "global");
	assert_int_equal(take(&o, 4), PAGE);
	assert_int_equal(take(&o, 4), cpus);
	for (unsigned int c = 0; c < cpus; c++) {
		uint64_t off;

		assert_int_equal(take(&o, 4), c);
		off = take(&o, 8);
		check_cpu(f, off, take(&o, 8), sizes[c]);
	}
}

/* Sections from the header to the end, each inside the file, the last ending at its end;
 * the options name every part's section at its offset. */
static void check_v7(const char *path, unsigned int cpus, const uint64_t *sizes)
{
	struct file f = load(path);
	uint64_t opts, sec_at[32] = {0}, seen = 0;

	check_start(&f, "7");
	assert_string_equal(take_str(&f), "none");
	take_str(&f);
	opts = take(&f, 8);
	while (f.at < f.size) {
		uint64_t id, at = f.at;

		id = take(&f, 2);
		assert_int_equal(take(&f, 2), 0); /* not compressed */
		take(&f, 4);
		assert_true(id < 32);
		sec_at[id] = at;
		seen |= 1ull << id;
		skip_bytes(&f, take(&f, 8));
	}
	assert_int_equal(f.at, f.size);
	/* options 0, buffer 3, strings 15, the six parts 16..21 */
	assert_int_equal(seen, 1ull << 0 | 1ull << 3 | 1ull << 15 | 0x3full << 16);
	assert_int_equal(opts, sec_at[0]);
	f.at = opts + 16;
	for (;;) {
		uint64_t id = take(&f, 2), size = take(&f, 4);

		if (id >= 16 && id <= 21)
			assert_int_equal(peek(&f, f.at, 8), sec_at[id]);
		if (id == 3)
			check_buffer_option(&f, f.at, cpus, sizes);
		if (id == 0) {
			assert_int_equal(take(&f, 8), 0); /* no further options section */
			break;
		}
		skip_bytes(&f, size);
	}
	free(f.p);
}

/* ---- the tests --------------------------------------------------------------------------- */

/* CPU 0: a function event, a funcgraph entry/exit pair and, 5 s later (a time extend), a
 * print; CPU 1: two pages, a function event and one of utest:myev, then a function event. */
static void make_pages(struct td_cpu cpu[3])
{
	struct page p0, p1[2];

	page_init(&p0, T0);
	ev_function(&p0, T0, 4242, 0x401000, 0x401300);
	ev_graph(&p0, T0 + 3000, 4242, 0x401100, T0 + 1000);
	ev_print(&p0, T0 + 5000000000ull, 4243, 0x401200, "hello tracedat\n");
	page_init(&p1[0], T0 + 500);
	ev_function(&p1[0], T0 + 500, 4243, 0x401208, 0x401100);
	ev_myev(&p1[0], T0 + 700, 4243, 42);
	page_init(&p1[1], T0 + 900);
	ev_function(&p1[1], T0 + 900, 4242, 0x401100, 0x401000);
	cpu[0].fd = page_file("cpu0", &p0, 1);
	cpu[1].fd = page_file("cpu1", p1, 2);
	cpu[2].fd = -1; /* a CPU without data */
}

static struct td_opts opts(int version, const struct td_cpu *cpu, unsigned int cpus)
{
	return (struct td_opts){.version = version,
				.tracing_dir = dir,
				.kallsyms = kallsyms,
				.page_size = PAGE,
				.cpus = cpus,
				.cpu = cpu,
				.uname = "Linux test",
				.version_str = "utrace test"};
}

/* The fixture's pages of make_pages written as work/NAME (res may be NULL); the options
 * used.  The CPU files stay open in cpu. */
static struct td_opts write_fixture(int version, struct td_cpu cpu[3], const char *name, char *out,
				    size_t out_size, struct td_result *res)
{
	static const char *const stats[3] = {"entries: 4\n", NULL, "entries: 0\n"};
	struct td_opts o;
	int fd;

	make_pages(cpu);
	o = opts(version, cpu, 3);
	o.cpu_stats = stats;
	snprintf(out, out_size, "%s/%s", work, name);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(td_write(fd, &o, res), 0);
	close(fd);
	return o;
}

/*
 * td_listener_head against td_write's file of the same inputs: the same bytes up to
 * where a trace-cmd listener takes over.  v6: a prefix of the file, the file going on
 * with "flyrecord".  v7: the same header and sections, then an options section of the
 * same start whose last option is DONE with no next section, and no BUFFER option.
 */
static void listener_head(int version)
{
	struct td_cpu cpu[3];
	struct td_opts o;
	struct file f, h = {0};
	char out[PATH_MAX], name[16], *head;
	size_t len;
	uint64_t opt_at;

	snprintf(name, sizeof(name), "h%d.dat", version);
	o = write_fixture(version, cpu, name, out, sizeof(out), NULL);
	f = load(out);
	o.cpu = NULL; /* not read */
	assert_int_equal(td_listener_head(&o, &head, &len), 0);
	assert_true(len < f.size);
	h.p = (unsigned char *)head;
	h.size = len;
	if (version == 6) {
		assert_memory_equal(head, f.p, len);
		assert_memory_equal(f.p + len, "flyrecord", 10);
		assert_int_equal(peek(&h, len - 2, 2), 0); /* the options' DONE */
	} else {
		check_start(&h, "7");
		assert_string_equal(take_str(&h), "none");
		take_str(&h);
		opt_at = take(&h, 8);
		assert_int_equal(opt_at, peek(&f, h.at - 8, 8));
		assert_memory_equal(head, f.p, opt_at); /* the six sections */
		assert_int_equal(peek(&h, opt_at, 2), 0);
		/* the section's size */
		assert_int_equal(peek(&h, opt_at + 8, 8), len - opt_at - 16);
		h.at = opt_at + 16;
		for (;;) {
			uint64_t id = take(&h, 2), size = take(&h, 4);

			assert_int_not_equal(id, 3); /* BUFFER: the listener's */
			if (id == 0) {
				assert_int_equal(size, 8);
				assert_int_equal(take(&h, 8), 0);
				break;
			}
			skip_bytes(&h, size);
		}
		assert_int_equal(h.at, len);
	}
	for (int c = 0; c < 3; c++)
		if (cpu[c].fd >= 0)
			close(cpu[c].fd);
	free(head);
	free(f.p);
}

static void test_listener_head(void **state)
{
	listener_head(6);
	listener_head(7);
}

static void write_and_read(int version)
{
	const uint64_t sizes[3] = {PAGE, 2 * PAGE, 0};
	struct td_cpu cpu[3];
	struct td_result res;
	struct got g[16];
	char out[PATH_MAX], name[16];

	snprintf(name, sizeof(name), "v%d.dat", version);
	write_fixture(version, cpu, name, out, sizeof(out), &res);
	assert_int_equal(res.pages_written, 3);
	assert_int_equal(res.pages_dropped, 0);
	if (version == 6)
		check_v6(out, 3, sizes);
	else
		check_v7(out, 3, sizes);

	assert_int_equal(read_back(out, g, 16), 7);
	expect(&g[0], 0, 4242, T0, "function", "main", "worker");
	expect(&g[1], 0, 4242, T0 + 1000, "funcgraph_entry", "work", "worker");
	expect(&g[2], 0, 4242, T0 + 3000, "funcgraph_exit", "work", "worker");
	expect(&g[3], 0, 4243, T0 + 5000000000ull, "print", "leaf", "other");
	expect(&g[4], 1, 4243, T0 + 500, "function", "leaf", "other"); /* inside leaf */
	assert_int_equal(g[4].ip, 0x401208);
	expect(&g[5], 1, 4243, T0 + 700, "myev", "-", "other");
	expect(&g[6], 1, 4242, T0 + 900, "function", "work", "worker");
	for (int c = 0; c < 2; c++)
		close(cpu[c].fd);
}

static void test_v6(void **state)
{
	write_and_read(6);
}

static void test_v7(void **state)
{
	write_and_read(7);
}

/* Exported by libtracecmd.so.1, not declared in Debian's trace-cmd.h (3.1.6). */
int tracecmd_latency_data_read(struct tracecmd_input *handle, char **buf, size_t *size);

/* A latency trace as the kernel's irqsoff tracer prints it (ftrace.rst's example). */
static const char latency_text[] =
    "# tracer: irqsoff\n"
    "#\n"
    "# irqsoff latency trace v1.1.5 on 4.0.0-rc4-test+\n"
    "# --------------------------------------------------------------------\n"
    "# latency: 259 us, #4/4, CPU#2 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:4)\n"
    "#    -----------------\n"
    "#    | task: ps-6143 (uid:0 nice:0 policy:0 rt_prio:0)\n"
    "#    -----------------\n"
    "#  => started at: __lock_task_sighand\n"
    "#  => ended at:   _raw_spin_unlock_irqrestore\n"
    "#\n"
    "#\n"
    "#                  _------=> CPU#            \n"
    "#                 / _-----=> irqs-off        \n"
    "#                | / _----=> need-resched    \n"
    "#                || / _---=> hardirq/softirq \n"
    "#                ||| / _--=> preempt-depth   \n"
    "#                |||| /     delay            \n"
    "#  cmd     pid   ||||| time  |   caller      \n"
    "#     \\   /      |||||  \\    |   /         \n"
    "      ps-6143    2d...    0us!: trace_hardirqs_off <-__lock_task_sighand\n"
    "      ps-6143    2d..1  259us+: trace_hardirqs_on <-_raw_spin_unlock_irqrestore\n"
    "      ps-6143    2d..1  263us+: time_hardirqs_on <-_raw_spin_unlock_irqrestore\n"
    "      ps-6143    2d..1  306us : <stack trace>\n"
    " => trace_hardirqs_on_caller\n"
    " => trace_hardirqs_on\n";

/*
 * A latency file (td_opts.latency): libtracecmd opens it as one, and its latency reader
 * gives the text back byte for byte, as `trace-cmd report` prints it.
 */
static void write_latency(int version)
{
	struct tracecmd_input *h;
	struct td_opts o = opts(version, NULL, 4);
	char out[PATH_MAX], *buf = NULL, *got = NULL;
	size_t size = 0, len = 0;
	int fd, r;

	o.latency = latency_text;
	o.latency_len = sizeof(latency_text) - 1;
	snprintf(out, sizeof(out), "%s/lat%d.dat", work, version);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(td_write(fd, &o, NULL), 0);
	close(fd);
	h = tracecmd_open(out, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	assert_non_null(h);
	/* it reads only a file whose data is latency text (-1 otherwise) */
	while ((r = tracecmd_latency_data_read(h, &buf, &size)) > 0) {
		got = realloc(got, len + (size_t)r + 1);
		assert_non_null(got);
		memcpy(got + len, buf, (size_t)r);
		len += (size_t)r;
	}
	assert_int_equal(r, 0);
	assert_non_null(got);
	got[len] = '\0';
	assert_string_equal(got, latency_text);
	free(got);
	free(buf);
	tracecmd_close(h);
}

static void test_latency(void **state)
{
	write_latency(6);
	write_latency(7);
}

/* Nothing is written when an input is missing or wrong. */
static void test_bad_inputs(void **state)
{
	char out[PATH_MAX], bad[PATH_MAX], path[PATH_MAX];
	struct td_cpu cpu[3];
	struct td_opts o;
	struct stat st;
	int fd;

	make_pages(cpu);
	snprintf(out, sizeof(out), "%s/bad.dat", work);
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0644);

	o = opts(5, cpu, 3);
	assert_int_equal(td_write(fd, &o, NULL), -EINVAL);

	/* a tree without events/header_page */
	snprintf(bad, sizeof(bad), "%s/nohdr", work);
	mkdirf("%s", bad);
	mkdirf("%s/events", bad);
	o = opts(7, cpu, 3);
	o.tracing_dir = bad;
	assert_int_equal(td_write(fd, &o, NULL), -ENOENT);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);

	/* a format file that is not one */
	mkdirf("%s/events/utest/broken", dir);
	snprintf(path, sizeof(path), "%s/events/utest/broken/format", dir);
	write_file(path, "name: broken\nno format here\n");
	for (int v = 6; v <= 7; v++) {
		o = opts(v, cpu, 3);
		assert_int_equal(td_write(fd, &o, NULL), -EINVAL);
		assert_int_equal(fstat(fd, &st), 0);
		assert_int_equal(st.st_size, 0);
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s/events/utest/broken", dir);
	rmdir(path);

	/* a kallsyms file that is not there */
	o = opts(7, cpu, 3);
	o.kallsyms = "/nonexistent/kallsyms";
	assert_int_equal(td_write(fd, &o, NULL), -ENOENT);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	close(fd);
	for (int c = 0; c < 2; c++)
		close(cpu[c].fd);
}

/* ---- a write that fails while the pages are copied ---------------------------------------- */

#define BIG_CPUS 3
static const unsigned int big_pages[BIG_CPUS] = {10, 20, 5};

/* One function event per page, 1000 ns apart on each CPU. */
static void make_big(struct td_cpu cpu[BIG_CPUS])
{
	static struct page pages[20];
	char name[16];

	for (unsigned int c = 0; c < BIG_CPUS; c++) {
		for (unsigned int i = 0; i < big_pages[c]; i++) {
			page_init(&pages[i], T0 + i * 1000);
			ev_function(&pages[i], T0 + i * 1000, 4242, 0x401100, 0x401000);
		}
		snprintf(name, sizeof(name), "big%u", c);
		cpu[c].fd = page_file(name, pages, big_pages[c]);
	}
}

/*
 * A file cut short by error err: the error returned, the pages written and dropped
 * adding up, CPUs filled in order (the one that failed keeps whole pages, the later
 * ones are empty), the layout still sound, and libtracecmd reading exactly the events
 * of the pages written.
 */
static void check_cut(const char *out, int version, int ret, const struct td_result *res, int err)
{
	unsigned long long left;
	uint64_t sizes[BIG_CPUS];
	struct got g[40];
	int n, k = 0;

	assert_int_equal(ret, -err);
	assert_int_equal(res->pages_written + res->pages_dropped, 35);
	assert_true(res->pages_written > 0);
	assert_true(res->pages_dropped > 0);
	left = res->pages_written;
	for (unsigned int c = 0; c < BIG_CPUS; c++) {
		unsigned long long here = left < big_pages[c] ? left : big_pages[c];

		sizes[c] = here * PAGE;
		left -= here;
	}
	if (version == 6)
		check_v6(out, BIG_CPUS, sizes);
	else
		check_v7(out, BIG_CPUS, sizes);
	n = read_back(out, g, 40);
	assert_int_equal(n, res->pages_written);
	for (unsigned int c = 0; c < BIG_CPUS; c++)
		for (uint64_t i = 0; i < sizes[c] / PAGE; i++, k++)
			expect(&g[k], (int)c, 4242, T0 + i * 1000, "function", "work", "worker");
}

/* A 64 KiB tmpfs fills up: ENOSPC (root only: it mounts one, a fresh one per version;
 * detached after, as the reader may keep the file mapped). */
static void test_enospc(void **state)
{
	char mnt[PATH_MAX], out[PATH_MAX + 16];
	struct td_cpu cpu[BIG_CPUS];
	struct td_result res;

	snprintf(mnt, sizeof(mnt), "%s/small", work);
	mkdirf("%s", mnt);
	make_big(cpu);
	for (int v = 6; v <= 7; v++) {
		struct td_opts o = opts(v, cpu, BIG_CPUS);
		int fd, ret;

		if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k") != 0) {
			fprintf(stderr, "skipped: cannot mount a tmpfs (%s): not root?\n",
				strerror(errno));
			skip();
		}
		o.clock = "global";
		snprintf(out, sizeof(out), "%s/v%d.dat", mnt, v);
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		ret = td_write(fd, &o, &res);
		close(fd);
		check_cut(out, v, ret, &res, ENOSPC);
		assert_int_equal(umount2(mnt, MNT_DETACH), 0);
	}
	for (int c = 0; c < BIG_CPUS; c++)
		close(cpu[c].fd);
}

/* A file size limit of 40 KiB (RLIMIT_FSIZE, SIGXFSZ ignored): EFBIG.  In a child, so
 * that the limit binds nothing else of this test's. */
static void test_efbig(void **state)
{
	struct td_cpu cpu[BIG_CPUS];
	char out[PATH_MAX];

	make_big(cpu);
	for (int v = 6; v <= 7; v++) {
		struct td_opts o = opts(v, cpu, BIG_CPUS);
		struct {
			int ret;
			struct td_result res;
		} r;
		int pfd[2], status;
		pid_t pid;

		snprintf(out, sizeof(out), "%s/fsize%d.dat", work, v);
		assert_int_equal(pipe(pfd), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct rlimit rl = {40960, 40960};
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			signal(SIGXFSZ, SIG_IGN);
			if (fd < 0 || setrlimit(RLIMIT_FSIZE, &rl))
				_exit(1);
			r.ret = td_write(fd, &o, &r.res);
			_exit(write(pfd[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
		}
		close(pfd[1]);
		assert_int_equal(read(pfd[0], &r, sizeof(r)), sizeof(r));
		close(pfd[0]);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_int_equal(status, 0);
		check_cut(out, v, r.ret, &r.res, EFBIG);
	}
	for (int c = 0; c < BIG_CPUS; c++)
		close(cpu[c].fd);
}

/* punch: the inputs' blocks are freed as they are copied, the output has every page. */
static void test_punch(void **state)
{
	struct td_cpu cpu[BIG_CPUS];
	struct td_result res;
	char out[PATH_MAX];
	struct stat st;
	struct td_opts o;
	struct got g[40];
	int fd;

	make_big(cpu);
	for (int c = 0; c < BIG_CPUS; c++) {
		assert_int_equal(fsync(cpu[c].fd), 0);
		assert_int_equal(fstat(cpu[c].fd, &st), 0);
		assert_true(st.st_blocks > 0);
	}
	o = opts(7, cpu, BIG_CPUS);
	o.punch = true;
	snprintf(out, sizeof(out), "%s/punch.dat", work);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(td_write(fd, &o, &res), 0);
	close(fd);
	assert_int_equal(res.pages_written, 35);
	for (int c = 0; c < BIG_CPUS; c++) {
		assert_int_equal(fstat(cpu[c].fd, &st), 0);
		assert_int_equal(st.st_blocks, 0);
		assert_int_equal(st.st_size, big_pages[c] * PAGE); /* KEEP_SIZE */
		close(cpu[c].fd);
	}
	assert_int_equal(read_back(out, g, 40), 35);
}

/*
 * punch on a disk too small for the inputs and the file together: the pages go a
 * page at a time, each freeing the space of the next, and all of them fit (root
 * only: a tmpfs of 48 pages holds the 35 pages of the inputs, the metadata and a
 * few pages more).
 */
static void test_punch_full_disk(void **state)
{
	char mnt[PATH_MAX], path[PATH_MAX + 16];
	struct td_cpu src[BIG_CPUS], cpu[BIG_CPUS];
	struct td_result res;
	struct td_opts o;
	struct got g[40];
	char buf[PAGE];
	int fd;

	snprintf(mnt, sizeof(mnt), "%s/tight", work);
	mkdirf("%s", mnt);
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=192k") != 0) {
		fprintf(stderr, "skipped: cannot mount a tmpfs (%s): not root?\n", strerror(errno));
		skip();
	}
	make_big(src);
	for (int c = 0; c < BIG_CPUS; c++) {
		snprintf(path, sizeof(path), "%s/cpu%d", mnt, c);
		cpu[c].fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		assert_true(cpu[c].fd >= 0);
		for (unsigned int i = 0; i < big_pages[c]; i++) {
			assert_int_equal(pread(src[c].fd, buf, PAGE, (off_t)i * PAGE), PAGE);
			assert_int_equal(write(cpu[c].fd, buf, PAGE), PAGE);
		}
		close(src[c].fd);
	}
	o = opts(7, cpu, BIG_CPUS);
	o.punch = true;
	snprintf(path, sizeof(path), "%s/out.dat", mnt);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(td_write(fd, &o, &res), 0);
	close(fd);
	assert_int_equal(res.pages_written, 35);
	assert_int_equal(res.pages_dropped, 0);
	assert_int_equal(read_back(path, g, 40), 35);
	for (int c = 0; c < BIG_CPUS; c++)
		close(cpu[c].fd);
	assert_int_equal(umount2(mnt, MNT_DETACH), 0);
}

/* (libtracecmd's leak of a v6 clock name is suppressed by cmd/lsan.c, linked in) */
int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_v6),	       cmocka_unit_test(test_v7),
	    cmocka_unit_test(test_bad_inputs), cmocka_unit_test(test_enospc),
	    cmocka_unit_test(test_efbig),      cmocka_unit_test(test_punch),
	    cmocka_unit_test(test_punch_full_disk), cmocka_unit_test(test_listener_head),
	    cmocka_unit_test(test_latency),
	};

	tracecmd_set_loglevel(TEP_LOG_NONE);
	return cmocka_run_group_tests(tests, setup, teardown);
}

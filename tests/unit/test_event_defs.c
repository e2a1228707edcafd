// SPDX-License-Identifier: MIT
/*
 * test_event_defs.c - the trace events utracefs learns from processes
 * (fs/event_defs.c): checking announcements, ids stable per definition, enabling
 * per instance slot in the events memfd, and reading the records back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "event_defs.h"
#include "output/output.h"
#include "settings.h"
#include "tracers/tracers.h"
#include "ut_wire.h"

static union {
	struct ut_msg_event m;
	char b[UT_EVENT_MSG_MAX + 64];
	uint64_t align;
} pk;

/* A valid announcement: myapp:req {int id; unsigned long len; char tag[8]; string path}. */
static size_t build(const char *sys, const char *name, const char *fmt)
{
	struct ut_msg_event *m = &pk.m;
	struct ut_msg_event_field *f = m->fields;
	size_t len;

	memset(&pk, 0, sizeof(pk));
	m->type = UT_MSG_EVENT;
	m->size = 40;
	strcpy(m->system, sys);
	strcpy(m->name, name);
	m->nr_fields = 4;
	f[0] = (struct ut_msg_event_field){.offset = 8, .size = 4, .elem_size = 4, .is_signed = 1};
	strcpy(f[0].type, "int");
	strcpy(f[0].name, "id");
	f[1] = (struct ut_msg_event_field){.offset = 16, .size = 8, .elem_size = 8};
	strcpy(f[1].type, "unsigned long");
	strcpy(f[1].name, "len");
	f[2] = (struct ut_msg_event_field){
	    .offset = 24, .size = 8, .elem_size = 1, .is_signed = 1, .kind = UT_EVF_KIND_ARRAY};
	strcpy(f[2].type, "char");
	strcpy(f[2].name, "tag[8]");
	f[3] = (struct ut_msg_event_field){
	    .offset = 32, .size = 4, .elem_size = 1, .is_signed = 1, .kind = UT_EVF_KIND_STRING};
	strcpy(f[3].type, "__data_loc char[]");
	strcpy(f[3].name, "path");
	m->fmt_len = (uint32_t)strlen(fmt) + 1;
	strcpy((char *)&f[4], fmt);
	len = sizeof(*m) + 4 * sizeof(*f) + m->fmt_len;
	m->len = (uint32_t)len;
	return len;
}

static const char *why_of(size_t n)
{
	struct tfs_event_def d;
	const char *why = NULL;

	if (tfs_event_def_parse(&pk, n, &d, &why) == 0)
		return NULL;
	assert_non_null(why);
	return why;
}

static int setup(void **state)
{
	tfs_event_test_hook(NULL);
	tfs_event_defs_reset();
	return tfs_event_defs_init();
}

static void test_parse(void **state)
{
	size_t n = build("myapp", "req", "\"id=%d len=%lu\", __entry->id, __entry->len");
	struct tfs_event_def d;
	const char *why = NULL;

	assert_int_equal(tfs_event_def_parse(&pk, n, &d, &why), 0);
	assert_string_equal(d.system, "myapp");
	assert_string_equal(d.name, "req");
	assert_int_equal(d.nr_fields, 4);
	assert_int_equal(d.size, 40);
	assert_string_equal(d.fields[2].name, "tag[8]");
	assert_int_equal(d.fields[3].kind, UT_EVF_KIND_STRING);
	/* the kernel shows the record as REC */
	assert_string_equal(d.print_fmt, "\"id=%d len=%lu\", REC->id, REC->len");
	assert_int_equal(d.fp, ut_event_fp(&pk, (uint32_t)n));
}

/* Every way an announcement can be wrong is refused, with a reason. */
static void test_refused(void **state)
{
	const char *fmt = "\"x\"";
	size_t n;

#define REFUSED(mutate, adj)                                                                       \
	do {                                                                                       \
		n = build("myapp", "req", fmt);                                                    \
		mutate;                                                                            \
		assert_non_null(why_of(n + (adj)));                                                \
	} while (0)
	REFUSED((void)0, 1);				     /* length not the packet's */
	REFUSED(pk.m.len = 3, 0);			     /* header lies */
	REFUSED(pk.m.nr_fields = UT_EVENT_FIELDS_MAX + 1, 0); /* too many fields */
	REFUSED(strcpy(pk.m.system, "my-app"), 0);	     /* not an identifier */
	REFUSED(strcpy(pk.m.system, "9app"), 0);
	REFUSED(pk.m.name[0] = 0, 0);			     /* empty */
	REFUSED(pk.m.name[40] = 'x', 0);		     /* garbage after the NUL */
	REFUSED(memset(pk.m.system, 'a', sizeof(pk.m.system)), 0); /* no NUL */
	REFUSED(strcpy(pk.m.system, "ftrace"), 0);		   /* the kernel's */
	REFUSED(pk.m.size = 4, 0);				   /* smaller than the common fields */
	REFUSED(pk.m.size = UT_EVENT_REC_MAX + 1, 0);
	REFUSED(pk.m.fields[0].offset = 4, 0);		    /* over the common fields */
	REFUSED(pk.m.fields[1].offset = 10, 0);		    /* overlaps the field before */
	REFUSED(pk.m.fields[3].offset = 38, 0);		    /* beyond the record */
	REFUSED(pk.m.fields[0].size = 3, 0);		    /* no such integer */
	REFUSED(pk.m.fields[0].elem_size = 8, 0);	    /* plain: elem_size = size */
	REFUSED(pk.m.fields[2].size = 7, 0);		    /* not what its name says */
	REFUSED(strcpy(pk.m.fields[2].name, "tag"), 0);	    /* an array without its length */
	REFUSED(strcpy(pk.m.fields[2].name, "tag[8"), 0);   /* bad array name */
	REFUSED(strcpy(pk.m.fields[1].name, "tag"), 0);	    /* duplicate name */
	REFUSED(strcpy(pk.m.fields[0].name, "common_pid"), 0);
	REFUSED(strcpy(pk.m.fields[0].type, "int;"), 0);    /* not type text */
	REFUSED(strcpy(pk.m.fields[3].type, "char *"), 0);  /* a string is a __data_loc */
	REFUSED(pk.m.fields[3].size = 8, 0);
	REFUSED(pk.m.fields[0].kind = 9, 0);
	REFUSED(pk.m.fields[0].is_signed = 2, 0);
	REFUSED(((char *)&pk.m.fields[4])[1] = '\n', 0);    /* control character in the format */
	REFUSED(((char *)&pk.m.fields[4])[1] = 0, 0);	    /* NUL inside the format */
	REFUSED(((char *)&pk.m.fields[4])[pk.m.fmt_len - 1] = 'x', 0); /* not terminated */
#undef REFUSED
	assert_int_equal(tfs_event_nr_defs(), 0);
	/* refused through the registry's entry point: nothing is entered */
	n = build("myapp", "req", fmt);
	pk.m.fields[1].offset = 10;
	assert_int_equal(tfs_event_announce(123, &pk, n), -EINVAL);
	assert_int_equal(tfs_event_nr_defs(), 0);
}

/* The runtime's lookup (runtime/events.c), over the memfd utracefs writes. */
static const struct ut_evt_ent *lookup(uint64_t fp)
{
	int fd = tfs_event_defs_fd_ro();
	static char buf[UT_EVT_SIZE];
	const struct ut_evt_ent *tab = ut_evt_table(buf);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	close(fd);
	assert_int_equal(((struct ut_evt_hdr *)buf)->magic, UT_EVT_MAGIC);
	for (uint32_t i = 0; i < UT_EVT_SLOTS; i++) {
		const struct ut_evt_ent *e = &tab[(fp + i) & (UT_EVT_SLOTS - 1)];

		if (!e->fp)
			return NULL;
		if (e->fp == fp)
			return e;
	}
	return NULL;
}

static void test_ids(void **state)
{
	size_t n1 = build("myapp", "req", "\"a\"");
	uint64_t fp1 = ut_event_fp(&pk, (uint32_t)n1);
	const struct ut_evt_ent *e;
	size_t n2;
	uint64_t fp2;

	assert_int_equal(tfs_event_announce(1, &pk, n1), 0);
	pk.m.obj = 77; /* another process's index: the same definition */
	assert_int_equal(tfs_event_announce(2, &pk, n1), 0);
	assert_int_equal(tfs_event_nr_defs(), 1);
	/* the same system:event with another format is another definition */
	n2 = build("myapp", "req", "\"b\"");
	fp2 = ut_event_fp(&pk, (uint32_t)n2);
	assert_int_equal(tfs_event_announce(3, &pk, n2), 0);
	build("myapp", "other", "\"a\"");
	assert_int_equal(tfs_event_announce(3, &pk, n1), 0);
	assert_int_equal(tfs_event_nr_defs(), 3);

	assert_string_equal(tfs_event_def(UT_EVENT_ID_BASE)->print_fmt, "\"a\"");
	assert_string_equal(tfs_event_def(UT_EVENT_ID_BASE + 1)->print_fmt, "\"b\"");
	assert_string_equal(tfs_event_def(UT_EVENT_ID_BASE + 2)->name, "other");
	assert_null(tfs_event_def(UT_EVENT_ID_BASE + 3));
	assert_null(tfs_event_def(UT_EVENT_ID_BASE - 1));
	/* the processes find the ids under the fingerprints */
	e = lookup(fp1);
	assert_non_null(e);
	assert_int_equal(e->id, UT_EVENT_ID_BASE);
	e = lookup(fp2);
	assert_non_null(e);
	assert_int_equal(e->id, UT_EVENT_ID_BASE + 1);
	assert_null(lookup(fp1 ^ 1));
}

static void test_enable(void **state)
{
	size_t n = build("myapp", "req", "\"a\"");
	uint64_t fp = ut_event_fp(&pk, (uint32_t)n);
	uint32_t id = UT_EVENT_ID_BASE;
	const struct ut_evt_ent *e;

	assert_int_equal(tfs_event_announce(1, &pk, n), 0);
	assert_false(tfs_event_enabled(id, 0));
	assert_int_equal(tfs_event_enable(id, 0, true), 0);
	assert_int_equal(tfs_event_enable(id, 3, true), 0);
	assert_int_equal(tfs_event_enable(id, 64, true), 0);
	assert_true(tfs_event_enabled(id, 0));
	assert_true(tfs_event_enabled(id, 64));
	assert_false(tfs_event_enabled(id, 1));
	e = lookup(fp);
	assert_int_equal(e->mask[0], (1ull << 0) | (1ull << 3));
	assert_int_equal(e->mask[1], 1);
	assert_int_equal(tfs_event_enable(id, 0, false), 0);
	assert_int_equal(tfs_event_enable(id, 64, false), 0);
	e = lookup(fp);
	assert_int_equal(e->mask[0], 1ull << 3);
	assert_int_equal(e->mask[1], 0);
	assert_int_equal(tfs_event_enable(id, 65, true), -EINVAL);
	assert_int_equal(tfs_event_enable(id + 1, 0, true), -ENOENT);
	/* a known definition announced again says it is enabled: a new generation is due */
	assert_int_equal(tfs_event_announce(2, &pk, n), 1);
}

static void test_hook(void **state)
{
	size_t n;

	tfs_event_test_hook("other:*,myapp:req");
	n = build("myapp", "req", "\"a\"");
	assert_int_equal(tfs_event_announce(1, &pk, n), 1);
	assert_true(tfs_event_enabled(UT_EVENT_ID_BASE, 0));
	n = build("myapp", "not", "\"a\"");
	assert_int_equal(tfs_event_announce(1, &pk, n), 0);
	n = build("other", "any", "\"a\"");
	assert_int_equal(tfs_event_announce(1, &pk, n), 1);
	tfs_event_test_hook(NULL);
}

/* A record as the macros and the runtime write it. */
static union {
	struct ut_ev_event e;
	unsigned char b[256];
	uint64_t align;
} ev;

static unsigned int record(uint32_t id, const char *path)
{
	unsigned char *r = ev.e.rec;
	uint16_t type = (uint16_t)id;
	int32_t pid = 4242, v = -7;
	uint64_t len = 512;
	uint32_t plen = (uint32_t)strlen(path) + 1, loc = 40 | (plen << 16);

	memset(&ev, 0, sizeof(ev));
	memcpy(r, &type, 2);
	memcpy(r + 4, &pid, 4);
	memcpy(r + 8, &v, 4);
	memcpy(r + 16, &len, 8);
	memcpy(r + 24, "tagged\0\0", 8);
	memcpy(r + 32, &loc, 4);
	memcpy(r + 40, path, plen);
	ev.e.id = id;
	ev.e.size = 40 + plen;
	ev.e.h = (struct ut_ev){.len = (uint16_t)((UT_EVENT_HDR + ev.e.size + 7) & ~7u),
				.type = UT_EV_EVENT, .tid = 4242};
	return ev.e.h.len;
}

static void test_records(void **state)
{
	size_t n = build("myapp", "req", "\"a\"");
	struct tfs_buf b = {0};
	unsigned int len;

	assert_int_equal(tfs_event_announce(1, &pk, n), 0);
	len = record(UT_EVENT_ID_BASE, "/index.html");
	assert_int_equal(tfs_event_check(&ev.e.h, len), (int)len);
	tfs_event_print(&b, &ev.e.h);
	assert_string_equal(b.data, "req: id=-7 len=512 tag=tagged path=/index.html\n");
	tfs_buf_reset(&b);

	/* forged: unknown id, common_type that is not the id, sizes out of bounds */
	len = record(UT_EVENT_ID_BASE + 5, "x");
	assert_int_equal(tfs_event_check(&ev.e.h, len), -1);
	len = record(UT_EVENT_ID_BASE, "x");
	ev.e.rec[0] ^= 1;
	assert_int_equal(tfs_event_check(&ev.e.h, len), -1);
	len = record(UT_EVENT_ID_BASE, "x");
	ev.e.size = len; /* more than the event holds */
	assert_int_equal(tfs_event_check(&ev.e.h, len), -1);
	len = record(UT_EVENT_ID_BASE, "x");
	ev.e.size = 36; /* shorter than the definition's fixed part */
	assert_int_equal(tfs_event_check(&ev.e.h, len), -1);
	/* a __data_loc pointing outside the record prints nothing, reads nothing */
	len = record(UT_EVENT_ID_BASE, "abc");
	ev.e.rec[34] = 0xff; /* length 0xff.. */
	assert_int_equal(tfs_event_check(&ev.e.h, len), (int)len);
	tfs_event_print(&b, &ev.e.h);
	assert_string_equal(b.data, "req: id=-7 len=512 tag=tagged path=\n");
	tfs_buf_free(&b);
}

/* The line of a record in each form the options select (fs/output/event.c). */
static const char *ev_line(struct tfs_buf *b)
{
	struct tfs_iter it = {.inst = &tfs_top};
	struct tfs_event e = {.ev = &ev.e.h, .cpu = 1, .ts = 820094216000ull};

	tfs_buf_reset(b);
	assert_int_equal(tfs_out_line(&it, &e, b), 0);
	return b->data;
}

/* Each option of test_lines is switched from its default and back. */
#define FLIP(o) (tfs_top.opts ^= 1ull << (o))

static void test_lines(void **state)
{
	size_t n = build("myapp", "req",
			 "\"id=%-4d len=%#lx tag=%s path=%s\", __entry->id, __entry->len, "
			 "__entry->tag, __get_str(path)");
	struct tfs_buf b = {0};
	char bin[64];

	tfs.nr_cpus = 2;
	tfs_top.clock = TFS_CLOCK_LOCAL;
	tfs_top.tracer = &tfs_nop_tracer;
	tfs_opts_init(&tfs_top, true);
	assert_int_equal(tfs_event_announce(1, &pk, n), 0);
	record(UT_EVENT_ID_BASE, "/index.html");
	assert_string_equal(ev_line(&b), "           <...>-4242    [001] .....   820.094216: "
					 "req: id=-7   len=0x200 tag=tagged path=/index.html\n");
	/* fields: the kernel's field printer, whatever the format */
	FLIP(TFS_OPT_FIELDS);
	assert_string_equal(ev_line(&b), "           <...>-4242    [001] .....   820.094216: "
					 "req: id=0xfffffff9 (-7) len=0x200 (512) tag=tagged "
					 "path=/index.html\n");
	/* raw, hex and bin win over fields, in the kernel's order: bin, hex, raw */
	FLIP(TFS_OPT_RAW);
	assert_string_equal(ev_line(&b), "4242 1 820094216000 type: 1024\n");
	FLIP(TFS_OPT_HEX);
	assert_string_equal(ev_line(&b), "00001092 00000001 000000bef16ca740 type: 1024\n\n");
	FLIP(TFS_OPT_BIN);
	ev_line(&b);
	memcpy(bin, "\x92\x10\0\0\1\0\0\0\x40\xa7\x6c\xf1\xbe\0\0\0type: 1024\n", 27);
	assert_int_equal(b.len, 27);
	assert_memory_equal(b.data, bin, 27);
	FLIP(TFS_OPT_CONTEXT_INFO);
	assert_string_equal(ev_line(&b), "type: 1024\n");
	FLIP(TFS_OPT_BIN);
	assert_string_equal(ev_line(&b), "type: 1024\n\n");
	FLIP(TFS_OPT_HEX);
	FLIP(TFS_OPT_RAW);
	FLIP(TFS_OPT_FIELDS);
	assert_string_equal(ev_line(&b), "req: id=-7   len=0x200 tag=tagged path=/index.html\n");

	/* a format not understood, and one a record cannot be evaluated on: the fields */
	n = build("myapp", "odd", "\"%d\", sizeof(__entry->id)");
	assert_int_equal(tfs_event_announce(1, &pk, n), 0);
	record(UT_EVENT_ID_BASE + 1, "/x");
	assert_string_equal(ev_line(&b), "odd: id=-7 len=512 tag=tagged path=/x\n");
	n = build("myapp", "div", "\"%d\", __entry->len / (__entry->id + 7)");
	assert_int_equal(tfs_event_announce(1, &pk, n), 0);
	record(UT_EVENT_ID_BASE + 2, "/y");
	assert_string_equal(ev_line(&b), "div: id=-7 len=512 tag=tagged path=/y\n");
	/* fields: a char pointer is a string the kernel reads; here only its address */
	n = build("myapp", "cp", "\"x\"");
	strcpy(pk.m.fields[1].type, "const char *");
	assert_int_equal(tfs_event_announce(1, &pk, n), 0);
	record(UT_EVENT_ID_BASE + 3, "/z");
	FLIP(TFS_OPT_FIELDS);
	assert_string_equal(ev_line(&b),
			    "cp: id=0xfffffff9 (-7) len=(0x0000000000000200) tag=tagged path=/z\n");
	FLIP(TFS_OPT_FIELDS);
	tfs_buf_free(&b);
}

/* set_event's tokens: the kernel's forms, no globs but `*` for a whole part */
static bool tok_matches(const char *tok, const char *sys, const char *name)
{
	struct tfs_set_event_tok t;

	assert_int_equal(tfs_set_event_parse(tok, strlen(tok), &t), 0);
	return tfs_set_event_match(&t, sys, name);
}

static void test_set_event_tokens(void **state)
{
	struct tfs_set_event_tok t;
	char longtok[200];

	assert_true(tok_matches("myapp:req", "myapp", "req"));
	assert_false(tok_matches("myapp:req", "myapp", "other"));
	assert_false(tok_matches("myapp:req", "other", "req"));
	assert_true(tok_matches("myapp:*", "myapp", "any"));
	assert_true(tok_matches("myapp:", "myapp", "any"));
	assert_false(tok_matches("myapp:*", "other", "any"));
	assert_true(tok_matches("*:req", "any", "req"));
	assert_true(tok_matches("*:*", "a", "b"));
	assert_true(tok_matches(":", "a", "b"));
	/* a bare word names an event or a system, without globs */
	assert_true(tok_matches("myapp", "myapp", "x"));
	assert_true(tok_matches("req", "x", "req"));
	assert_false(tok_matches("*", "x", "y"));
	assert_false(tok_matches("re*", "x", "req"));
	assert_int_equal(tfs_set_event_parse("!myapp:req", 10, &t), 0);
	assert_false(t.on);
	assert_true(tfs_set_event_match(&t, "myapp", "req"));
	assert_int_equal(tfs_set_event_parse("myapp:req", 9, &t), 0);
	assert_true(t.on);
	/* empty, `!` alone, and longer than the kernel's 127 bytes */
	assert_int_equal(tfs_set_event_parse("", 0, &t), -EINVAL);
	assert_int_equal(tfs_set_event_parse("!", 1, &t), -EINVAL);
	memset(longtok, 'a', sizeof(longtok));
	assert_int_equal(tfs_set_event_parse(longtok, 128, &t), -EINVAL);
	longtok[5] = ':';
	assert_int_equal(tfs_set_event_parse(longtok, 100, &t), -EINVAL); /* event name too long */
}

/* the tree: one event per system:name, whatever the number of definitions */
static void test_tree(void **state)
{
	struct tfs_evtree_ent e;
	size_t n;
	int idx;

	n = build("myapp", "req", "\"a\"");
	assert_int_equal(tfs_event_announce(1, &pk, n), 0);
	n = build("myapp", "req", "\"b\""); /* another definition of myapp:req */
	assert_int_equal(tfs_event_announce(2, &pk, n), 0);
	n = build("other", "req", "\"a\"");
	assert_int_equal(tfs_event_announce(2, &pk, n), 0);
	n = build("myapp", "more", "\"a\"");
	assert_int_equal(tfs_event_announce(2, &pk, n), 0);
	n = build("header_page", "hidden", "\"a\""); /* would shadow events/header_page */
	assert_int_equal(tfs_event_announce(2, &pk, n), 0);

	assert_int_equal(tfs_evtree_nr(), 4);
	assert_int_equal(tfs_evtree_get(0, &e), 0);
	assert_string_equal(e.system, "myapp");
	assert_string_equal(e.name, "req");
	assert_int_equal(e.id, UT_EVENT_ID_BASE); /* its first definition */
	assert_int_equal(tfs_evtree_get(4, &e), -ENOENT);
	assert_string_equal(tfs_evtree_sys_name(0), "myapp");
	assert_string_equal(tfs_evtree_sys_name(1), "other");
	assert_string_equal(tfs_evtree_sys_name(2), "");
	assert_null(tfs_evtree_sys_name(3));
	assert_string_equal(tfs_evtree_dir_entry(0, 0, &idx), "req");
	assert_int_equal(idx, 0);
	assert_string_equal(tfs_evtree_dir_entry(0, 1, &idx), "more");
	assert_int_equal(idx, 2);
	assert_null(tfs_evtree_dir_entry(0, 2, &idx));
	assert_string_equal(tfs_evtree_dir_entry(1, 0, &idx), "req");
	assert_int_equal(idx, 1);

	/* enabling the tree event enables both definitions, in that slot only */
	tfs_evtree_set(0, 5, true);
	assert_true(tfs_event_enabled(UT_EVENT_ID_BASE, 5));
	assert_true(tfs_event_enabled(UT_EVENT_ID_BASE + 1, 5));
	assert_false(tfs_event_enabled(UT_EVENT_ID_BASE + 2, 5));
	assert_false(tfs_event_enabled(UT_EVENT_ID_BASE, 0));
	assert_true(tfs_evtree_enabled(0, 5));
	assert_false(tfs_evtree_enabled(1, 5));
	/* a third definition announced later starts enabled where the others are */
	n = build("myapp", "req", "\"c\"");
	assert_int_equal(tfs_event_announce(3, &pk, n), 1);
	assert_true(tfs_event_enabled(UT_EVENT_ID_BASE + 5, 5));
	assert_int_equal(tfs_evtree_nr(), 4);
	/* an instance's removal clears its slot, and only its slot */
	tfs_evtree_set(1, 6, true);
	tfs_event_slot_clear(5);
	assert_false(tfs_evtree_enabled(0, 5));
	assert_false(tfs_event_enabled(UT_EVENT_ID_BASE + 5, 5));
	assert_true(tfs_evtree_enabled(1, 6));
	tfs_evtree_set(0, 5, false);
	tfs_evtree_set(1, 6, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_parse, setup),	 cmocka_unit_test_setup(test_refused, setup),
	    cmocka_unit_test_setup(test_ids, setup),	 cmocka_unit_test_setup(test_enable, setup),
	    cmocka_unit_test_setup(test_hook, setup),	 cmocka_unit_test_setup(test_records, setup),
	    cmocka_unit_test_setup(test_set_event_tokens, setup),
	    cmocka_unit_test_setup(test_tree, setup),
	    cmocka_unit_test_setup(test_lines, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

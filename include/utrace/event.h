/* SPDX-License-Identifier: MIT */
/*
 * utrace/event.h - trace events a C or C++ program defines, in the manner of the
 * kernel's TRACE_EVENT():
 *
 *   #include <utrace/event.h>
 *
 *   UTRACE_EVENT(myapp, request,
 *       TP_PROTO(int id, const char *path, unsigned long len),
 *       TP_ARGS(id, path, len),
 *       TP_STRUCT__entry(
 *           __field(int, id)
 *           __field(unsigned long, len)
 *           __array(char, tag, 8)
 *           __string(path, path)
 *       ),
 *       TP_fast_assign(
 *           __entry->id = id;
 *           __entry->len = len;
 *           memcpy(__entry->tag, "request", 8);
 *           __assign_str(path);
 *       ),
 *       TP_printk("id=%d path=%s len=%lu", __entry->id, __get_str(path), __entry->len)
 *   );
 *
 *   ... trace_request(7, "/index.html", 512);     (trace_NAME, as in the kernel)
 *   ... if (trace_request_enabled()) ...
 *
 * Fields: __field(type, name) (integers of 8 to 64 bits, signed or not, and
 * pointers), __array(type, name, len), __string(name, src) (a NUL-terminated
 * copy of src, "(null)" for NULL; __assign_str(name) copies it, __get_str(name)
 * reads it) and __dynamic_array(type, name, len) (len elements;
 * __get_dynamic_array(name), __get_dynamic_array_len(name) in bytes).
 *
 * Everything an event needs is `static` to the translation unit that expands the
 * macro: put it in a header included wherever the event is called; each unit
 * (and each object: executable, shared library, dlopen'ed library) carries its
 * own copy of the description, and utracefs gives identical definitions one id.
 *
 * Cost.  A call of a disabled event is one 5-byte NOP (asm goto: a static key);
 * the arguments are not even evaluated.  libutrace.so patches it into a jmp to
 * the code that builds the record when utracefs enables the event, with the same
 * breakpoint protocol as function sites.  Without libutrace.so, or without
 * utracefs, it stays a NOP.  The record (the kernel's layout: common fields, the
 * fields in order, dynamic data after them) is built on the stack and copied into
 * the ring of the current CPU of each tracing instance that enabled the event.
 *
 * The descriptor (struct utrace_event) goes into the section utrace_events (a
 * pointer per event) and each call site into utrace_jump (offsets relative to
 * the entry: no relocation needed); the runtime finds both by section headers.
 */
#ifndef UTRACE_EVENT_H
#define UTRACE_EVENT_H

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UTRACE_EVENT_MAGIC 0x76457475u /* "utEv" */
#define UTRACE_EVENT_ABI 1u
#define UTRACE_EVENT_HDR 24u	       /* room before the record for the ring's header */
#define UTRACE_EVENT_REC_MAX 4040u     /* a longer record is not written */

enum utrace_field_kind {
	UTRACE_FIELD_PLAIN = 0,
	UTRACE_FIELD_ARRAY = 1,
	UTRACE_FIELD_STRING = 2,
	UTRACE_FIELD_DYN_ARRAY = 3,
};

struct utrace_event_field {
	const char *type; /* the C type as written: "unsigned long", "const char *" */
	const char *name;
	unsigned short offset; /* in the record, common fields included */
	unsigned short size;   /* the whole field; 4 (the __data_loc word) for dynamic ones */
	unsigned short elem_size;
	unsigned char is_signed;
	unsigned char kind; /* enum utrace_field_kind */
};

/*
 * One event of one translation unit.  The runtime writes id and mask (the static
 * key: which tracing instances want the event; 0 while disabled).
 */
struct utrace_event {
	unsigned int magic, abi;
	const char *system;
	const char *name;
	const struct utrace_event_field *fields;
	unsigned int nr_fields;
	unsigned int size; /* the record's fixed part, common fields included */
	const char *print_fmt;
	volatile unsigned long long mask[2];
	volatile unsigned int id;
	unsigned int _rt;
};

/* A call site: offsets from each member's own address (the kernel's jump_entry). */
struct utrace_jump_entry {
	int site;
	int target;
	long long key;
};

/* libutrace.so: writes the record at buf + UTRACE_EVENT_HDR (size bytes). */
void utrace_event_write(struct utrace_event *ev, void *buf, unsigned int size)
    __attribute__((weak));

/* ---- fields, as sequences of (kind, type, name, arg) ----------------------------------- */

#define __field(type, item) (P, type, item, 1)
#define __array(type, item, len) (A, type, item, len)
#define __string(item, src) (S, char, item, src)
#define __dynamic_array(type, item, len) (D, type, item, len)

#define __UT_STR_(x) #x
#define __UT_STR(x) __UT_STR_(x)
#define __UT_SIGNED(type) ((type)-1 < (type)1)

/*
 * Apply op to every element of a sequence: two macros in turn, each leaving the
 * other's name behind; the name left last is pasted with _END, which is empty.
 */
#define __UT_EACH(op, seq) __UT_PASTE_END(__UT_##op##_A seq)
#define __UT_PASTE_END(...) __UT_PASTE_END_(__VA_ARGS__)
#define __UT_PASTE_END_(...) __VA_ARGS__##_END

/* the record's members */
#define __UT_MEM_P(t, n, x) t n;
#define __UT_MEM_A(t, n, x) t n[x];
#define __UT_MEM_S(t, n, x) unsigned int __data_loc_##n;
#define __UT_MEM_D(t, n, x) unsigned int __data_loc_##n;
#define __UT_MEM(k, t, n, x) __UT_MEM_##k(t, n, x)
#define __UT_MEMBERS_A(k, t, n, x) __UT_MEM(k, t, n, x) __UT_MEMBERS_B
#define __UT_MEMBERS_B(k, t, n, x) __UT_MEM(k, t, n, x) __UT_MEMBERS_A
#define __UT_MEMBERS_A_END
#define __UT_MEMBERS_B_END

/* the field descriptions (R: the record's type) */
#define __UT_FD(R, k, t, tn, n, sz, esz, sg)                                                       \
	{tn, #n, (unsigned short)__builtin_offsetof(R, n), (unsigned short)(sz),                  \
	 (unsigned short)(esz), (unsigned char)(sg), (unsigned char)(k)},
#define __UT_FLD_P(R, t, n, x)                                                                     \
	__UT_FD(R, UTRACE_FIELD_PLAIN, t, #t, n, sizeof(t), sizeof(t), __UT_SIGNED(t))
#define __UT_FLD_A(R, t, n, x)                                                                     \
	{#t, #n "[" __UT_STR(x) "]", (unsigned short)__builtin_offsetof(R, n),                     \
	 (unsigned short)sizeof(((R *)0)->n), (unsigned short)sizeof(t),                           \
	 (unsigned char)__UT_SIGNED(t), UTRACE_FIELD_ARRAY},
#define __UT_FLD_S(R, t, n, x)                                                                     \
	{"__data_loc char[]", #n, (unsigned short)__builtin_offsetof(R, __data_loc_##n), 4, 1,     \
	 (unsigned char)__UT_SIGNED(char), UTRACE_FIELD_STRING},
#define __UT_FLD_D(R, t, n, x)                                                                     \
	{"__data_loc " #t "[]", #n, (unsigned short)__builtin_offsetof(R, __data_loc_##n), 4,      \
	 (unsigned short)sizeof(t), (unsigned char)__UT_SIGNED(t), UTRACE_FIELD_DYN_ARRAY},
#define __UT_FLD(R, k, t, n, x) __UT_FLD_##k(R, t, n, x)
#define __UT_FIELDS_A(k, t, n, x) __UT_FLD(__UT_REC, k, t, n, x) __UT_FIELDS_B
#define __UT_FIELDS_B(k, t, n, x) __UT_FLD(__UT_REC, k, t, n, x) __UT_FIELDS_A
#define __UT_FIELDS_A_END
#define __UT_FIELDS_B_END

/* the dynamic parts' lengths, in bytes, as locals of the writer */
#define __UT_LEN_P(t, n, x)
#define __UT_LEN_A(t, n, x)
#define __UT_LEN_S(t, n, x)                                                                        \
	const char *__ut_src_##n = (x) ? (const char *)(x) : "(null)";                             \
	unsigned int __ut_len_##n = (unsigned int)strlen(__ut_src_##n) + 1;                        \
	__ut_dyn += __ut_len_##n;
#define __UT_LEN_D(t, n, x)                                                                        \
	unsigned int __ut_len_##n = (unsigned int)((x) * sizeof(t));                               \
	__ut_dyn += __ut_len_##n;
#define __UT_LEN(k, t, n, x) __UT_LEN_##k(t, n, x)
#define __UT_LENS_A(k, t, n, x) __UT_LEN(k, t, n, x) __UT_LENS_B
#define __UT_LENS_B(k, t, n, x) __UT_LEN(k, t, n, x) __UT_LENS_A
#define __UT_LENS_A_END
#define __UT_LENS_B_END

/* each dynamic part's __data_loc word: offset | length << 16 */
#define __UT_LOC_P(t, n, x)
#define __UT_LOC_A(t, n, x)
#define __UT_LOC_S(t, n, x)                                                                        \
	__entry->__data_loc_##n = __ut_off | (__ut_len_##n << 16);                                 \
	__ut_off += __ut_len_##n;
#define __UT_LOC_D(t, n, x) __UT_LOC_S(t, n, x)
#define __UT_LOC(k, t, n, x) __UT_LOC_##k(t, n, x)
#define __UT_LOCS_A(k, t, n, x) __UT_LOC(k, t, n, x) __UT_LOCS_B
#define __UT_LOCS_B(k, t, n, x) __UT_LOC(k, t, n, x) __UT_LOCS_A
#define __UT_LOCS_A_END
#define __UT_LOCS_B_END

/* what TP_fast_assign may use */
#define __get_dynamic_array(n) ((void *)((char *)__entry + (__entry->__data_loc_##n & 0xffff)))
#define __get_dynamic_array_len(n) (__entry->__data_loc_##n >> 16)
#define __get_str(n) ((char *)__get_dynamic_array(n))
#define __assign_str(n, ...) memcpy(__get_str(n), __ut_src_##n, __ut_len_##n)

#define TP_PROTO(...) __VA_ARGS__
#define TP_ARGS(...) __VA_ARGS__
#define TP_STRUCT__entry(...) __VA_ARGS__
#define TP_fast_assign(...) __VA_ARGS__
#define TP_printk(...) #__VA_ARGS__

/* ---- the static key --------------------------------------------------------------------- */

#if defined(__x86_64__) && !defined(UTRACE_NO_ASM_GOTO)
/*
 * A 5-byte NOP (0f 1f 44 00 00) that the runtime turns into `jmp label`, and
 * its entry in utrace_jump: the site, the label and the descriptor (sym, its
 * assembler name), each as an offset from the entry's own member.
 */
#define __UT_KEY(sym, label)                                                                       \
	__asm__ goto("1: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"                                 \
		     ".pushsection utrace_jump, \"a\"\n\t"                                        \
		     ".balign 8\n\t"                                                              \
		     ".long 1b - .\n\t"                                                           \
		     ".long %l[" #label "] - .\n\t"                                               \
		     ".quad " sym " - .\n\t"                                                      \
		     ".popsection"                                                                \
		     :                                                                            \
		     :                                                                            \
		     :                                                                            \
		     : label)
#define __UT_CALL(name, sym, ...)                                                                 \
	do {                                                                                       \
		__UT_KEY(sym, __ut_on);                                                            \
		break;                                                                             \
	__ut_on:                                                                                   \
		__ut_write_##name(__VA_ARGS__);                                                           \
	} while (0)
#else
#define __UT_CALL(name, sym, ...)                                                                 \
	do {                                                                                       \
		if (__builtin_expect(trace_##name##_enabled(), 0))                                \
			__ut_write_##name(__VA_ARGS__);                                                   \
	} while (0)
#endif

/* ---- the event ---------------------------------------------------------------------------- */

/*
 * The descriptor and its field table are static locals of an always-inline
 * function, so that the record's type has one name (__UT_REC) there; they exist
 * in every unit that calls the event (the asm label gives the descriptor the name
 * the call sites' jump entries use).
 */
#define UTRACE_EVENT(system, name, proto, args, fields, assign, print)                             \
	struct __ut_rec_##name {                                                                   \
		unsigned short common_type;                                                        \
		unsigned char common_flags;                                                        \
		unsigned char common_preempt_count;                                                \
		int common_pid;                                                                    \
		__UT_EACH(MEMBERS, fields)                                                         \
	};                                                                                         \
	static inline __attribute__((always_inline, unused)) struct utrace_event *                 \
	    __ut_desc_##name(void)                                                                 \
	{                                                                                          \
		typedef struct __ut_rec_##name __UT_REC;                                           \
		static const struct utrace_event_field __ut_fields[] = {                           \
		    __UT_EACH(FIELDS, fields){0, 0, 0, 0, 0, 0, 0}};                               \
		static struct utrace_event __ut_ev __asm__("__ut_ev_" #system "_" #name)           \
		    __attribute__((used, aligned(64))) = {                                         \
			UTRACE_EVENT_MAGIC,                                                        \
			UTRACE_EVENT_ABI,                                                          \
			#system,                                                                   \
			#name,                                                                     \
			__ut_fields,                                                               \
			sizeof(__ut_fields) / sizeof(__ut_fields[0]) - 1,                          \
			sizeof(__UT_REC),                                                          \
			print,                                                                     \
			{0, 0},                                                                    \
			0,                                                                         \
			0};                                                                        \
		static struct utrace_event *__ut_evp                                               \
		    __attribute__((used, section("utrace_events"), aligned(8))) = &__ut_ev;        \
		return &__ut_ev;                                                                   \
	}                                                                                          \
	static inline __attribute__((unused)) int trace_##name##_enabled(void)                     \
	{                                                                                          \
		struct utrace_event *__ut_e = __ut_desc_##name();                                  \
		return (__ut_e->mask[0] | __ut_e->mask[1]) != 0;                                   \
	}                                                                                          \
	static __attribute__((noinline, cold, unused)) void __ut_write_##name(proto)               \
	{                                                                                          \
		unsigned long long __ut_buf[(UTRACE_EVENT_HDR + UTRACE_EVENT_REC_MAX) / 8];       \
		struct __ut_rec_##name *__entry =                                                  \
		    (struct __ut_rec_##name *)((char *)__ut_buf + UTRACE_EVENT_HDR);               \
		unsigned int __ut_dyn = 0, __ut_off = sizeof(struct __ut_rec_##name);              \
		__UT_EACH(LENS, fields)                                                            \
		if (!utrace_event_write || __ut_off + __ut_dyn > UTRACE_EVENT_REC_MAX)             \
			return;                                                                    \
		__UT_EACH(LOCS, fields)                                                            \
		(void)__entry;                                                                     \
		{assign}                                                                           \
		utrace_event_write(__ut_desc_##name(), __ut_buf, __ut_off);                        \
	}                                                                                          \
	static inline __attribute__((always_inline, unused)) void trace_##name(proto)              \
	{                                                                                          \
		__UT_CALL(name, "__ut_ev_" #system "_" #name, args);                               \
	}                                                                                          \
	struct __ut_rec_##name

#ifdef __cplusplus
}
#endif

#endif

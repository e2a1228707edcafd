/* SPDX-License-Identifier: MIT */
/*
 * ut_event.h - trace events a program defines (include/utrace/event.h): how a
 * process announces them, how utracefs says which are enabled, and their records
 * in the ring.
 *
 *   1. The runtime finds each object's descriptors (section utrace_events, runtime/
 *      events.c) and sends one UT_MSG_EVENT per event (ut_wire.h): system, name,
 *      fields and print format, laid out below with every unused byte zero, so that
 *      one definition is always the same bytes.
 *   2. utracefs checks it (fs/event_defs.c: a bad one is refused with a line on the
 *      console, nothing else happens) and gives each distinct (system, name, fields,
 *      format) an id, from UT_EVENT_ID_BASE up, kept for the mount's life.  It enters
 *      the id in the *events memfd*, keyed by the definition's fingerprint
 *      (ut_event_fp: FNV-1a 64 of the packet after its header).
 *   3. The memfd (fourth descriptor of WELCOME) is written by utracefs alone and
 *      sealed like the selection memfd: a table of UT_EVT_SLOTS entries, open
 *      addressing on the fingerprint, each with the id and the mask of the instance
 *      slots that want the event (bit s of mask[s / 64]; slot 0 the top level, 65
 *      slots).  Entries are never removed; an entry's fp is stored last.
 *   4. At each generation (ut_ctl.gen) every process's control thread looks up the
 *      ids of its events, copies their masks into the descriptors and patches each
 *      call site's static key: a 5-byte NOP while the mask is 0, else a jmp to the
 *      code that builds the record.
 *
 * The record is the kernel's: common fields (common_type = id, common_flags,
 * common_preempt_count, common_pid), the event's fields in order, then the dynamic
 * data, reached by __data_loc words (offset in the low 16 bits, length in the high
 * 16, from the record's start).  In the ring it follows struct ut_ev_event.
 */
#ifndef UT_EVENT_H
#define UT_EVENT_H

#include <stdint.h>

#include "ut_ring.h"

/* Ids below are the ftrace system's (1-19) and utrace's built-in events to come. */
#define UT_EVENT_ID_BASE 1024u
#define UT_EVT_SLOTS 16384u	 /* table entries (a power of two) */
#define UT_EVT_MAX_DEFS 12288u	 /* definitions a mount takes: the table at most 3/4 full */
#define UT_EVT_INSTANCE_SLOTS UT_INST_MAX /* slot 0: the top level; 1..64 instances */

#define UT_EVENT_NAME_MAX 64u	/* system and event names, NUL included */
#define UT_EVENT_TYPE_MAX 64u	/* a field's C type text, NUL included */
#define UT_EVENT_FIELDS_MAX 64u /* fields per event */
#define UT_EVENT_FMT_MAX 2048u	/* print format text, NUL included */
#define UT_EVENT_COMMON_SIZE 8u /* common_type, common_flags, common_preempt_count, common_pid */

/* Field kinds (include/utrace/event.h UTRACE_FIELD_*). */
enum ut_event_kind {
	UT_EVF_KIND_PLAIN = 0,	   /* an integer or a pointer */
	UT_EVF_KIND_ARRAY = 1,	   /* type name[len] */
	UT_EVF_KIND_STRING = 2,	   /* __data_loc char[]: NUL-terminated text */
	UT_EVF_KIND_DYN_ARRAY = 3, /* __data_loc type[] */
};

struct ut_msg_event_field {
	char type[UT_EVENT_TYPE_MAX]; /* "unsigned long", "const char *" */
	char name[UT_EVENT_TYPE_MAX]; /* an identifier */
	uint16_t offset;	      /* in the record, common fields included */
	uint16_t size;		      /* the whole field (4 for a __data_loc word) */
	uint16_t elem_size;	      /* arrays: one element; plain: = size */
	uint8_t is_signed;
	uint8_t kind; /* enum ut_event_kind */
};
_Static_assert(sizeof(struct ut_msg_event_field) == 136, "ut_msg_event_field layout");

/*
 * UT_MSG_EVENT: one event of one object.  fields[nr_fields], then fmt_len bytes of
 * print format (NUL-terminated, no other NUL): the packet is exactly that long.
 * obj: the process's own index of the descriptor (for its notes only).
 */
struct ut_msg_event {
	uint32_t type; /* struct ut_msg_hdr, spelled out: this header stands alone */
	uint32_t len;
	uint32_t obj;
	uint32_t size; /* the record's fixed part, common fields included */
	char system[UT_EVENT_NAME_MAX];
	char name[UT_EVENT_NAME_MAX];
	uint32_t nr_fields;
	uint32_t fmt_len;
	struct ut_msg_event_field fields[];
};
#define UT_EVENT_MSG_MAX                                                                           \
	(sizeof(struct ut_msg_event) + UT_EVENT_FIELDS_MAX * sizeof(struct ut_msg_event_field) +  \
	 UT_EVENT_FMT_MAX)
/* The fingerprint covers everything from `size` on (obj differs between processes). */
#define UT_EVENT_FP_FROM 12u

/* FNV-1a 64 of a definition: msg bytes [UT_EVENT_FP_FROM, len); never 0. */
static inline uint64_t ut_event_fp(const void *msg, uint32_t len)
{
	const unsigned char *p = (const unsigned char *)msg;
	uint64_t h = 1469598103934665603ull;

	for (uint32_t i = UT_EVENT_FP_FROM; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h ? h : 1;
}

/* ---- the events memfd ------------------------------------------------------------------ */

#define UT_EVT_MAGIC 0x54564575u /* "uEVT" */

struct ut_evt_hdr {
	uint32_t magic;
	uint32_t nr_slots; /* UT_EVT_SLOTS */
	uint32_t nr_defs;  /* ids in use: UT_EVENT_ID_BASE .. + nr_defs - 1 */
	uint32_t _pad;
	uint64_t _reserved[6];
};

struct ut_evt_ent {
	uint64_t fp;	  /* 0: free; stored last */
	uint32_t id;
	uint32_t _pad;
	uint64_t mask[2]; /* instance slots that want the event */
};

#define UT_EVT_TABLE_SIZE                                                                          \
	(sizeof(struct ut_evt_hdr) + (uint64_t)UT_EVT_SLOTS * sizeof(struct ut_evt_ent))

/*
 * The event filters (events/.../filter), after the table: a directory of the
 * (event id, instance slot) pairs that have one, each naming its program
 * (ut_evfilter.h) in the heap by offset and length.  utracefs rewrites the whole
 * area under seq (odd while it writes) and then bumps the control page's
 * generation; each process copies the programs of its events and checks them.
 */
#define UT_EVF_DIR_MAX 4096u	/* filters at a time, all instances together */
#define UT_EVF_HEAP (4u << 20) /* bytes of programs */

struct ut_evf_dirent {
	uint32_t id, slot; /* the event's id, the instance slot */
	uint32_t off, len; /* its program in heap: 8-aligned */
};

struct ut_evf_area {
	uint32_t seq; /* odd while utracefs rewrites the area */
	uint32_t nr;  /* entries in use */
	uint32_t _pad[2];
	struct ut_evf_dirent ent[UT_EVF_DIR_MAX];
	unsigned char heap[UT_EVF_HEAP];
};

#define UT_EVT_SIZE (UT_EVT_TABLE_SIZE + sizeof(struct ut_evf_area))

static inline struct ut_evf_area *ut_evf_area_of(void *map)
{
	return (struct ut_evf_area *)((char *)map + UT_EVT_TABLE_SIZE);
}

static inline struct ut_evt_ent *ut_evt_table(void *map)
{
	return (struct ut_evt_ent *)((char *)map + sizeof(struct ut_evt_hdr));
}

/* ---- the ring record ----------------------------------------------------------------- */

/*
 * UT_EV_EVENT: h, then the id (= common_type) and the record's size in bytes, then
 * the record itself (8-aligned); h.len covers all three, rounded up to 8.
 */
struct ut_ev_event {
	struct ut_ev h;
	uint32_t id;
	uint32_t size;
	unsigned char rec[];
};
#define UT_EVENT_HDR 24u
_Static_assert(sizeof(struct ut_ev_event) == UT_EVENT_HDR, "ut_ev_event layout");
#define UT_EVENT_REC_MAX (UT_RB_PAGE_DATA - UT_EVENT_HDR) /* 4040 */

#endif

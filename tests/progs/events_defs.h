/* SPDX-License-Identifier: MIT */
/*
 * events_defs.h - the trace events of the events test programs (events_prog.c,
 * lib_events_a.c, lib_events_dl.c; tests/integration/84_events.sh): one event per
 * object, and in the executable every kind of field.
 */
#ifndef EVENTS_DEFS_H
#define EVENTS_DEFS_H

#include <stdint.h>
#include <utrace/event.h>

UTRACE_EVENT(ut_test, ints,
	TP_PROTO(int8_t a, uint8_t b, int16_t c, uint16_t d, int32_t e, uint32_t f, int64_t g,
		 uint64_t h, const void *p),
	TP_ARGS(a, b, c, d, e, f, g, h, p),
	TP_STRUCT__entry(
		__field(int8_t, s8)
		__field(uint8_t, u8)
		__field(int16_t, s16)
		__field(uint16_t, u16)
		__field(int32_t, s32)
		__field(uint32_t, u32)
		__field(int64_t, s64)
		__field(uint64_t, u64)
		__field(const void *, ptr)
	),
	TP_fast_assign(
		__entry->s8 = a;
		__entry->u8 = b;
		__entry->s16 = c;
		__entry->u16 = d;
		__entry->s32 = e;
		__entry->u32 = f;
		__entry->s64 = g;
		__entry->u64 = h;
		__entry->ptr = p;
	),
	/* the kernel's printf: flags, widths, %pS, helpers and C arithmetic on the fields */
	TP_printk("s8=%d u8=%u s16=%d u16=%u s32=%d u32=%u s64=%lld u64=%llu ptr=%p fn=%ps at=%pS "
		  "hex=%#x/%08X/%o pad=[%-6d|%6d|%+.3d] kind=%s mode=%s calc=%d big=%s",
		  __entry->s8, __entry->u8, __entry->s16, __entry->u16, __entry->s32,
		  __entry->u32, (long long)__entry->s64, (unsigned long long)__entry->u64,
		  __entry->ptr, __entry->ptr, __entry->ptr, __entry->u16, __entry->u16, __entry->u8,
		  __entry->s16, __entry->s16, __entry->s8,
		  __print_symbolic(__entry->s8, {-5, "MINUS_FIVE"}, {0, "ZERO"}),
		  __print_flags(__entry->u8, "|", {0x80, "HI"}, {0x40, "SIXTY_FOUR"}, {0x02, "TWO"}),
		  (__entry->s16 + 100) * 2 - __entry->s8 % 3 & 0xff,
		  __entry->u64 > 1000 ? "yes" : "no")
);

UTRACE_EVENT(ut_test, strs,
	TP_PROTO(const char *name, const int *vals, int n),
	TP_ARGS(name, vals, n),
	TP_STRUCT__entry(
		__array(char, tag, 8)
		__string(name, name)
		__dynamic_array(int, vals, n)
		__field(int, n)
	),
	TP_fast_assign(
		memcpy(__entry->tag, "tagged", 7);
		__assign_str(name);
		memcpy(__get_dynamic_array(vals), vals, n * sizeof(int));
		__entry->n = n;
	),
	TP_printk("tag=%s name=%s n=%d vals=%s bytes=%s", __entry->tag, __get_str(name), __entry->n,
		  __print_array(__get_dynamic_array(vals), __get_dynamic_array_len(vals) / 4, 4),
		  __print_hex(__get_dynamic_array(vals), __get_dynamic_array_len(vals)))
);

#endif

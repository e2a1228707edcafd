// SPDX-License-Identifier: MIT
/*
 * ut_printf.c - the runtime's packer of trace_printk() arguments (the kernel's
 * vbin_printf), in the layout ut_printf.h describes.  It lives here, beside the
 * layout, so that the unit tests hold it against the renderer that reads it back.
 *
 * It runs in the traced program on trace_printk's path: no allocation, no stdio,
 * only the arguments and the buffer it is given.
 */
#include <errno.h>
#include <string.h>

#include "ut_printf.h"

/* Store an argument of size bytes at *off when it fits; *off moves past it anyway. */
static void put(unsigned char *buf, uint32_t room, uint32_t *off, int size, uint64_t v)
{
	uint32_t at = ut_pf_align(*off, size);

	if (at <= room && (uint32_t)size <= room - at) {
		/* the alignment gap: no stale bytes in the record */
		memset(buf + *off, 0, at - *off);
		memcpy(buf + at, &v, (size_t)size); /* little-endian: the low bytes */
	}
	*off = at + (uint32_t)size;
}

int ut_pf_pack(void *out, uint32_t room, const char *fmt, va_list ap)
{
	unsigned char *buf = out;
	uint32_t off = 0, end;
	const char *s = fmt;

	while (*s) {
		struct ut_pf_conv c;
		int size;

		if (*s++ != '%')
			continue;
		if (!ut_pf_decode(&s, &c) || !ut_pf_ext_known(c.ext))
			return -EINVAL;
		if (c.width == UT_PF_STAR)
			put(buf, room, &off, 4, (uint32_t)va_arg(ap, int));
		if (c.prec == UT_PF_STAR)
			put(buf, room, &off, 4, (uint32_t)va_arg(ap, int));
		size = ut_pf_arg_size(&c);
		if (size < 0)
			continue; /* %% */
		if (size == 0) {
			const char *str = va_arg(ap, const char *);
			size_t len;

			if (!str)
				str = "(null)"; /* what the kernel's printf shows for it */
			len = strlen(str) + 1;
			if (len > UINT32_MAX - off)
				return -ENOSPC;
			if (len <= room - off)
				memcpy(buf + off, str, len);
			off += (uint32_t)len;
		} else if (c.conv == 'p') {
			put(buf, room, &off, 8, (uintptr_t)va_arg(ap, void *));
		} else if (size == 8) {
			put(buf, room, &off, 8, va_arg(ap, unsigned long long));
		} else { /* promoted to int, stored in its own size */
			put(buf, room, &off, size, (uint32_t)va_arg(ap, int));
		}
		if (off > room)
			return -ENOSPC;
	}
	end = off;
	off = ut_pf_align(off, 4);
	if (off > room)
		return -ENOSPC;
	memset(buf + end, 0, off - end);
	return (int)off;
}

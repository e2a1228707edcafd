// SPDX-License-Identifier: MIT
/* buf.c - growable text buffers for everything utracefs formats. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfs.h"

static int buf_reserve(struct tfs_buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int tfs_buf_append(struct tfs_buf *b, const void *data, size_t len)
{
	if (buf_reserve(b, len))
		return -ENOMEM;
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int tfs_buf_vprintf(struct tfs_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	char small[256];

	va_copy(ap2, ap);
	int n = vsnprintf(small, sizeof(small), fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n < sizeof(small))
		return tfs_buf_append(b, small, n);
	if (buf_reserve(b, n))
		return -ENOMEM;
	vsnprintf(b->data + b->len, n + 1, fmt, ap);
	b->len += n;
	return 0;
}

int tfs_buf_printf(struct tfs_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int err = tfs_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return err;
}

void tfs_buf_reset(struct tfs_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void tfs_buf_free(struct tfs_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

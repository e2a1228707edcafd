// SPDX-License-Identifier: MIT
/*
 * fuzz_print_fmt.c - a trace event's print format (fs/output/print_fmt.c) and its
 * rendering (print_fmt_render.c) on arbitrary input, as a hostile program could
 * announce the format and write the record: the format is parsed against a fixed
 * definition with a field of every kind, then rendered on the record.
 *
 * Input: byte 0 bit 0 the option hash-ptr; then the format text up to a NUL (the
 * form the format file shows: `"text", REC->field, ...`); the rest is the record
 * after its common fields (cut to 248 bytes, at least the definition's 64 with zeros).
 *
 * The same text is also a bprint record's format (a trace_printk format as a
 * process could send it) and the rest its packed arguments, rendered as the
 * kernel's bstr_printf (tfs_pfmt_render_bin): nothing may be read past them.
 */
#include "fuzz.h"
#include "event_defs.h"
#include "output/print_fmt.h"
#include "../unit/print_fmt_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tfs_event_def d;
	static unsigned char rec[256];
	struct tfs_pfmt_env env = {.rec = rec, .hash_key = 1};
	struct tfs_buf b = {0};
	const uint8_t *nul;
	struct tfs_pfmt *pf;
	const char *why;
	size_t flen, rlen;

	if (size < 1)
		return 0;
	env.hash_ptr = data[0] & 1;
	data++, size--;
	nul = memchr(data, 0, size);
	flen = nul ? (size_t)(nul - data) : size;
	if (flen >= sizeof(d.print_fmt))
		return 0;
	memset(&d, 0, sizeof(d));
	d.size = 64;
	d.nr_fields = sizeof(pf_fixture_fields) / sizeof(pf_fixture_fields[0]);
	memcpy(d.fields, pf_fixture_fields, sizeof(pf_fixture_fields));
	memcpy(d.print_fmt, data, flen);
	rlen = nul ? size - flen - 1 : 0;
	if (rlen > sizeof(rec) - 8)
		rlen = sizeof(rec) - 8;
	memset(rec, 0, sizeof(rec));
	if (rlen)
		memcpy(rec + 8, nul + 1, rlen);
	env.size = (unsigned int)(rlen + 8 < 64 ? 64 : rlen + 8);
	tfs_pfmt_render_bin(d.print_fmt, rec + 8, (uint32_t)rlen, &env, &b);
	tfs_buf_free(&b);
	pf = tfs_pfmt_parse(&d, &why);
	if (!pf)
		return 0;
	if (tfs_pfmt_render(pf, &d, &env, &b) && b.len)
		abort(); /* a failed line leaves nothing behind */
	tfs_buf_free(&b);
	tfs_pfmt_free(pf);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * cpumask.c - tracing_cpumask: which CPUs' rings record.
 *
 * The text is the kernel's bitmap format for nr_cpus bits (the possible CPUs):
 * hex digits in groups of 32 bits, most significant group first, separated by
 * commas; the first group is as wide as the bits it holds ("3" for 2 CPUs,
 * "ff,ffffffff" for 40).  Writes are parsed as the kernel's bitmap_parse does,
 * with its errnos (EINVAL for a bad character, EOVERFLOW for a bit beyond the
 * last CPU); a bad write leaves the mask as it was.  A CPU leaving the mask stops
 * its ring (writers there record nothing, count nothing); one coming back
 * restarts it, with its old contents.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "settings.h"
#include "tfs.h"

#define GROUP_BITS 32u

/* one write at a time, so that the rings end up as the mask says */
static pthread_mutex_t mask_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t mask_group(const uint64_t *mask, unsigned int bit)
{
	return (uint32_t)(mask[bit / 64] >> (bit % 64));
}

int tfs_cpumask_format(const uint64_t *mask, unsigned int nr_cpus, struct tfs_buf *b)
{
	unsigned int width = nr_cpus % GROUP_BITS ? nr_cpus % GROUP_BITS : GROUP_BITS;
	int err = 0;

	if (!nr_cpus)
		return tfs_buf_printf(b, "\n");
	for (int bit = (int)((nr_cpus + GROUP_BITS - 1) / GROUP_BITS - 1) * GROUP_BITS;
	     bit >= 0 && !err; bit -= GROUP_BITS) {
		uint32_t v = mask_group(mask, (unsigned int)bit);

		if (width < GROUP_BITS)
			v &= (1u << width) - 1;
		err = tfs_buf_printf(b, "%s%0*x", bit + GROUP_BITS < nr_cpus ? "," : "",
				     (int)(width + 3) / 4, v);
		width = GROUP_BITS;
	}
	return err ? err : tfs_buf_printf(b, "\n");
}

static bool group_end(char c)
{
	return isspace((unsigned char)c) || c == ',';
}

static int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Read one group of at most 8 hex digits ending at s[*end], backwards. */
static int parse_group(const char *s, long *end, uint32_t *out)
{
	uint32_t v = 0;

	for (unsigned int shift = 0; shift < GROUP_BITS; shift += 4) {
		int d = hex_val(s[(*end)--]);

		if (d < 0)
			return -EINVAL;
		v |= (uint32_t)d << shift;
		if (*end < 0 || group_end(s[*end])) {
			*out = v;
			return 0;
		}
	}
	if (hex_val(s[(*end)--]) >= 0)
		return -EOVERFLOW;
	*out = v; /* a stray character follows: the next group fails on it */
	return 0;
}

int tfs_cpumask_parse(const char *buf, size_t size, unsigned int nr_cpus, uint64_t *mask)
{
	uint64_t m[TFS_CPUMASK_WORDS] = {0};
	unsigned int groups = (nr_cpus + GROUP_BITS - 1) / GROUP_BITS, used = 0;
	size_t len = 0;

	if (!size)
		return -EINVAL;
	while (len < size && buf[len] != '\n' && buf[len] != '\0')
		len++;
	for (long end = (long)len - 1;;) {
		uint32_t v;
		int err;

		while (end >= 0 && group_end(buf[end]))
			end--;
		if (end < 0)
			break;
		if (used == groups)
			return -EOVERFLOW;
		err = parse_group(buf, &end, &v);
		if (err)
			return err;
		m[used * GROUP_BITS / 64] |= (uint64_t)v << (used * GROUP_BITS % 64);
		used++;
	}
	/* bits of the last group beyond the last CPU */
	for (unsigned int bit = nr_cpus; bit < used * GROUP_BITS; bit++)
		if (m[bit / 64] >> (bit % 64) & 1)
			return -EOVERFLOW;
	memcpy(mask, m, sizeof(m));
	return 0;
}

static int cpumask_show(struct tfs_open *o)
{
	uint64_t mask[TFS_CPUMASK_WORDS];

	tfs_lock();
	memcpy(mask, o->inst->cpumask, sizeof(mask));
	tfs_unlock();
	return tfs_cpumask_format(mask, tfs.nr_cpus, &o->content);
}

static ssize_t cpumask_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	uint64_t new[TFS_CPUMASK_WORDS], old[TFS_CPUMASK_WORDS];
	int err = tfs_cpumask_parse(buf, size, tfs.nr_cpus, new);

	if (err)
		return err;
	pthread_mutex_lock(&mask_lock);
	tfs_lock();
	memcpy(old, o->inst->cpumask, sizeof(old));
	memcpy(o->inst->cpumask, new, sizeof(new));
	tfs_unlock();
	for (unsigned int cpu = 0; cpu < tfs.nr_cpus; cpu++) {
		bool was = old[cpu / 64] >> (cpu % 64) & 1, now = new[cpu / 64] >> (cpu % 64) & 1;

		if (was != now)
			tfs_ring_enable(o->inst, cpu, now);
	}
	pthread_mutex_unlock(&mask_lock);
	return (ssize_t)size;
}

const struct tfs_file_ops tfs_cpumask_ops = {
	.show = cpumask_show,
	.write = cpumask_write,
};

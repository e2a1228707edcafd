// SPDX-License-Identifier: MIT
/*
 * max_latency.c - tracing_max_latency, one per instance as the kernel has it.
 *
 * Kept in ns, read back as ns / 1000 ("%ld\n", -1 for the all-ones value); a
 * write takes what kstrtoul takes, in microseconds, and stores N * 1000
 * (wrapping as the kernel's unsigned long does): writing 0 makes the next
 * latency a tracer measures the new maximum.
 */
#include <errno.h>
#include <stdio.h>

#include "latency.h"

uint64_t tfs_lat_max(const struct tfs_instance *inst)
{
	return __atomic_load_n(&inst->max_latency, __ATOMIC_ACQUIRE);
}

void tfs_lat_max_set(struct tfs_instance *inst, uint64_t ns)
{
	__atomic_store_n(&inst->max_latency, ns, __ATOMIC_RELEASE);
}

bool tfs_lat_max_raise(struct tfs_instance *inst, uint64_t ns)
{
	uint64_t cur = __atomic_load_n(&inst->max_latency, __ATOMIC_ACQUIRE);

	do {
		if (ns <= cur)
			return false;
	} while (!__atomic_compare_exchange_n(&inst->max_latency, &cur, ns, false,
					      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	return true;
}

int tfs_show_nsecs(struct tfs_buf *b, uint64_t ns)
{
	if (ns == UINT64_MAX)
		return tfs_buf_printf(b, "-1\n") < 0 ? -ENOMEM : 0;
	return tfs_buf_printf(b, "%ld\n", (long)(ns / 1000)) < 0 ? -ENOMEM : 0;
}

static int max_latency_show(struct tfs_open *o)
{
	return tfs_show_nsecs(&o->content, tfs_lat_max(o->inst));
}

static ssize_t max_latency_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	unsigned long us;
	int err = tfs_parse_ulong(buf, size, &us);

	if (err)
		return err;
	tfs_lat_max_set(o->inst, (uint64_t)us * 1000u);
	tfs_lat_publish(o->inst); /* processes compare their sections with it */
	return (ssize_t)size;
}

const struct tfs_file_ops tfs_tracing_max_latency_ops = {
	.show = max_latency_show,
	.write = max_latency_write,
};

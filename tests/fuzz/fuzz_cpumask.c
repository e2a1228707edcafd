// SPDX-License-Identifier: MIT
/*
 * fuzz_cpumask.c - the bitmap parser of tracing_cpumask (cpumask.c), for every
 * number of CPUs up to UT_RB_MAX_CPUS, and the format of what it parsed.
 *
 * Input: byte 0 is the number of CPUs (0-255, then + 1), the rest the text.
 */
#include "fuzz.h"
#include "settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t mask[TFS_CPUMASK_WORDS] = {0};
	struct tfs_buf b = {0};
	unsigned int nr_cpus;

	if (size < 1)
		return 0;
	nr_cpus = data[0] % UT_RB_MAX_CPUS + 1;
	if (tfs_cpumask_parse((const char *)data + 1, size - 1, nr_cpus, mask) == 0)
		tfs_cpumask_format(mask, nr_cpus, &b);
	tfs_buf_free(&b);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* ring_fixture.h - helpers shared by the unit tests that build rings in memory. */
#ifndef RING_FIXTURE_H
#define RING_FIXTURE_H

/* The buffer_size_kb setting (kernel pages) that gives a ring of nr pages. */
static inline unsigned int kpages_for(unsigned int nr)
{
	for (unsigned int k = 1; k < 100000; k++)
		if (tfs_kpages_to_rb_pages(k) == nr)
			return k;
	fail_msg("no buffer size gives %u pages", nr);
	return 0;
}

#endif

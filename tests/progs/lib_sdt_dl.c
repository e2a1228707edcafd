// SPDX-License-Identifier: MIT
/* lib_sdt_dl.c - a library sdt_prog dlopen()s: one SDT probe of its own. */
#include <sys/sdt.h>

void lib_sdt_dl_fire(unsigned long v)
{
	STAP_PROBE1(ut_sdt_dl, hit, v);
}

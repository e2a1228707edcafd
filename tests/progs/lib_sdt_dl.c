// SPDX-License-Identifier: MIT
/*
 * lib_sdt_dl.c - a library sdt_prog dlopen()s: a probe of its own, and another
 * definition of the executable's ut_sdt:imm (other operand types: one event of
 * the events/ tree with two definitions).
 */
#include <sys/sdt.h>

void lib_sdt_dl_fire(unsigned long v)
{
	STAP_PROBE1(ut_sdt_dl, hit, v);
}

void lib_sdt_dl_imm(long v)
{
	STAP_PROBE2(ut_sdt, imm, v, (signed char)1);
}

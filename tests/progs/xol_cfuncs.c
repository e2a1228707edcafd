// SPDX-License-Identifier: MIT
/*
 * xol_cfuncs.c - C functions for xol_prog, built twice: with
 * -fpatchable-function-entry (XC(name) = name_pfe) and without (name_plain), so
 * that probes at their first instruction meet both kinds of function entry.
 */
#include <stdio.h>

#define XC_(name, v) name##_##v
#define XC2(name, v) XC_(name, v)
#define XC(name) XC2(name, XC_VARIANT)

__attribute__((noinline)) long XC(cf_mul)(long a, long b)
{
	return a * b + 7;
}

/* a call right after the probed instruction, and a value used after it */
__attribute__((noinline)) long XC(cf_print)(char *buf, long n)
{
	return snprintf(buf, 32, "n=%ld", n) + n;
}

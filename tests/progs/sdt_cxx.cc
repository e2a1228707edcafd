// SPDX-License-Identifier: MIT
/*
 * sdt_cxx.cc - a C++ program that throws and catches, for the probes libstdc++
 * carries (libstdcxx:throw, libstdcxx:catch; 95_sdt.sh).  Waits (at most 20 s)
 * until libstdcxx:throw is armed, throws once, and prints the thrown object's
 * address ("obj ADDR"), its type_info's ("tinfo ADDR") and "pid PID".
 */
#include <cstdio>
#include <typeinfo>
#include <unistd.h>

#include "sdt_sites.h"

struct ut_sdt_error {
	int code;
};

static __attribute__((noinline)) void thrower(int code)
{
	throw ut_sdt_error{code};
}

int main()
{
	sdt_find();
	if (!sdt_wait_armed("libstdcxx", "throw") || !sdt_wait_armed("libstdcxx", "catch"))
		std::printf("not armed\n");
	try {
		thrower(42);
	} catch (ut_sdt_error &e) {
		std::printf("obj %lx\n", (unsigned long)&e);
	}
	std::printf("tinfo %lx\n", (unsigned long)&typeid(ut_sdt_error));
	std::printf("pid %d\n", (int)getpid());
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * graph_exc.cc - C++ exceptions thrown through traced frames and caught: in main's
 * callee, in a frame in the middle (which goes on calling), with a destructor that
 * runs while its frame unwinds, and rethrown from a catch block.  The unwinder must
 * see real return addresses; the unwound frames must be closed.  Expected tree:
 * graph_exc.tree.
 */
#include <cstdio>

#include "graph_common.h"

struct Guard {
	int v;
	~Guard();
};

NOINL Guard::~Guard()
{
	sink += v;
}

NOINL void leaf(int x)
{
	sink += x;
}

NOINL void caught(int x)
{
	sink += x;
}

NOINL void t3(int x)
{
	leaf(x);
	throw x;
}

NOINL void t2(int x)
{
	t3(x + 1);
	sink++;
}

NOINL void t1(int x)
{
	t2(x + 1);
	sink++;
}

NOINL void run_simple()
{
	try {
		t1(1);
	} catch (int e) {
		caught(e);
	}
}

NOINL void d2()
{
	throw 7;
}

/* The guard's destructor runs from d1's landing pad, one level below d1. */
NOINL void d1()
{
	Guard g{2};

	d2();
	sink++;
}

NOINL void run_dtor()
{
	try {
		d1();
	} catch (int e) {
		caught(e);
	}
}

NOINL void m3()
{
	throw 3;
}

NOINL void m2()
{
	m3();
	sink++;
}

NOINL void m1()
{
	try {
		m2();
	} catch (int e) {
		leaf(e);
	}
	leaf(4);
}

NOINL void note()
{
	sink++;
}

NOINL void r2()
{
	throw 5;
}

NOINL void r1()
{
	try {
		r2();
	} catch (...) {
		note();
		throw;
	}
}

NOINL void run_rethrow()
{
	try {
		r1();
	} catch (int e) {
		caught(e);
	}
}

int main()
{
	run_simple();
	run_dtor();
	m1();
	run_rethrow();
	leaf(9);
	std::printf("graph_exc: ok\n");
	return 0;
}

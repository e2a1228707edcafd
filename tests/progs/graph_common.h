/* SPDX-License-Identifier: MIT */
/*
 * graph_common.h - what the function_graph sample programs (graph_*.c, graph_*.cc)
 * share.  Each program calls small functions in a fixed pattern; its expected call
 * tree is in graph_NAME.tree next to it (tests/integration/70_graph.sh compares).
 *
 * The trees must be the same for gcc and clang at -O0 and -O2, so every traced
 * function is NOINL: never inlined, never cloned (a clone would be traced under
 * another name, "f.constprop.0"), never merged with a twin.  Every one touches
 * `sink`, a volatile, so that no compiler may drop a call whose result is unused.
 */
#ifndef GRAPH_COMMON_H
#define GRAPH_COMMON_H

#if defined(__clang__)
#define NOINL __attribute__((noinline))
#else
/* noinline alone still lets GCC clone (constprop, isra), split (.part) or fold twins. */
#define NOINL __attribute__((noipa))
#endif

/*
 * Helpers that are not part of the expected tree: always inlined, at -O0 too, so
 * they never have an entry of their own.
 */
#define HELPER static inline __attribute__((always_inline))

static volatile int sink;

#endif

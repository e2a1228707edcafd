// SPDX-License-Identifier: MIT
/*
 * graph_jmp.c - longjmp and siglongjmp out of nested traced frames: to main's
 * direct callee, to a frame in the middle (which then goes on calling), and out of
 * a signal handler raised three calls deep.  The frames jumped over must be closed:
 * the calls made afterwards show at their true depth.  Expected tree: graph_jmp.tree.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "graph_common.h"

static jmp_buf env;
static sigjmp_buf senv;

NOINL void leaf(int x)
{
	sink += x;
}

NOINL void jump3(void)
{
	leaf(3);
	longjmp(env, 1);
}

NOINL void jump2(void)
{
	jump3();
	sink++;
}

NOINL void jump1(void)
{
	jump2();
	sink++;
}

NOINL void jmp_simple(void)
{
	if (!setjmp(env))
		jump1();
	leaf(1);
}

NOINL void k2(void)
{
	longjmp(env, 2);
}

NOINL void k1(void)
{
	k2();
	sink++;
}

/* setjmp in a frame that stays: after the jump it is still on the stack. */
NOINL void mid_setjmp(void)
{
	if (!setjmp(env))
		k1();
	leaf(2);
}

NOINL void jmp_mid(void)
{
	mid_setjmp();
	leaf(4);
}

NOINL void s2(void)
{
	siglongjmp(senv, 1);
}

NOINL void s1(void)
{
	s2();
	sink++;
}

NOINL void sigjmp(void)
{
	if (!sigsetjmp(senv, 1))
		s1();
	leaf(5);
}

NOINL void on_usr1(int sig)
{
	leaf(sig);
	siglongjmp(senv, 1);
}

NOINL void h2(void)
{
	raise(SIGUSR1);
	sink++;
}

NOINL void h1(void)
{
	h2();
	sink++;
}

NOINL void handler_jmp(void)
{
	if (!sigsetjmp(senv, 1))
		h1();
	leaf(6);
}

int main(void)
{
	struct sigaction sa;
	sigset_t mask;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	jmp_simple();
	jmp_mid();
	sigjmp();
	handler_jmp();
	handler_jmp(); /* again: siglongjmp restored the mask, SIGUSR1 is deliverable */
	sigprocmask(SIG_BLOCK, NULL, &mask);
	if (sigismember(&mask, SIGUSR1)) {
		printf("graph_jmp: FAIL (SIGUSR1 left blocked)\n");
		return 1;
	}
	leaf(7);
	printf("graph_jmp: ok\n");
	return 0;
}

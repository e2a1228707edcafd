/* SPDX-License-Identifier: MIT */
/*
 * seccomp_deny.h - make one system call fail for the calling thread (and the
 * processes it starts afterwards), as a kernel or a sandbox would: tests use it to
 * stand for a kernel without rseq, or a cpuset that keeps a thread off a CPU.
 */
#ifndef SECCOMP_DENY_H
#define SECCOMP_DENY_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>

/* From now on system call nr fails with err in this thread.  0, or -1. */
static inline int deny_syscall(int nr, int err)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nr, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned int)err & SECCOMP_RET_DATA)),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) ? -1 : 0;
}

#endif

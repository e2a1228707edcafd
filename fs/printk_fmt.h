/* SPDX-License-Identifier: MIT */
/*
 * printk_fmt.h - the texts bprint and bputs records name (fs/printk_fmt.c): each
 * traced process tells utracefs the text at an address once (UT_MSG_PRINTK_FMT,
 * ut_wire.h) before its first record that uses it.
 *
 * Addresses are the process's own, so two processes (or one process before and
 * after an exec) may use one address for two texts: a text is kept under (pid,
 * address, tsc) and a record finds the one its process sent last before the
 * record's time.  Texts are kept for the mount's life, as the events' formats are,
 * up to TFS_PRINTK_FMT_MAX of them and TFS_PRINTK_FMT_BYTES bytes in all; a text
 * sent when the table is full is not learnt, and records that name it show what
 * the kernel shows for a pointer it cannot read.  A pointer returned stays valid
 * for the mount's life.
 */
#ifndef TFS_PRINTK_FMT_H
#define TFS_PRINTK_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TFS_PRINTK_FMT_MAX 65536u
#define TFS_PRINTK_FMT_BYTES (16u << 20)

/*
 * A packet of n bytes from process pid: learnt, 0 (also when there is no room
 * left: not learnt), or -EPROTO when it is not a sound UT_MSG_PRINTK_FMT.
 */
int tfs_printk_fmt_msg(pid_t pid, const void *msg, size_t n);
/* Learn text (NUL-terminated) at addr of pid, sent at tsc: 0 or -ENOSPC. */
int tfs_printk_fmt_add(pid_t pid, uint64_t addr, uint64_t tsc, const char *text);
/* The text a record of task tid written at tsc names by addr, or NULL. */
const char *tfs_printk_fmt_find(pid_t tid, uint64_t addr, uint64_t tsc);
/* Every text learnt, in the order they came. */
typedef void (*tfs_printk_fmt_fn)(uint64_t addr, const char *text, void *arg);
void tfs_printk_fmt_foreach(tfs_printk_fmt_fn fn, void *arg);
/* Tests: forget every text. */
void tfs_printk_fmt_reset(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * core.h - declarations shared only by the core of utracefs (main.c, state.c,
 * area.c, registry.c, fuse_ops.c, current_tracer.c): start-up, the FUSE
 * operations, the wake-ups between the rings and the poll handles, and the
 * acknowledgement bookkeeping between tfs_apply() and the registry.
 */
#ifndef TFS_CORE_H
#define TFS_CORE_H

#include <stdint.h>

#include "tfs.h"

/* state.c: fill `tfs` with the defaults (before tfs_area_init). */
void tfs_state_defaults(unsigned int nr_cpus);
/* state.c: copy the settings into the control page without waiting (lock held). */
void tfs_publish_locked(void);
/* Possible CPUs, from /sys/devices/system/cpu/possible (1 when unreadable). */
unsigned int tfs_possible_cpus(void);

/* area.c: kernel pages of buffer_size_kb -> ring pages (see area.c). */
unsigned int tfs_kpages_to_rb_pages(unsigned int nr_kpages);
/* area.c: the kicker thread (wakes trace_pipe readers and pollers). */
int tfs_kicker_start(void);
void tfs_kicker_stop(void);
/* area.c: unmap and close the area (end of the daemon or of a unit test). */
void tfs_area_fini(void);
/* area.c: set up inst's span (inst->slot set), rings sized and enabled as its settings say. */
void tfs_area_inst_init(struct tfs_instance *inst);
/* area.c: inst goes: stop its writers (CPU barrier) and give its span's memory back. */
void tfs_area_inst_release(struct tfs_instance *inst);

/* instance.c: fill inst with the settings a new instance has (the top's: at start). */
void tfs_inst_defaults(struct tfs_instance *inst, bool top);


/* registry.c: wait until every live process acknowledged gen (or timeout_ms). */
void tfs_registry_wait_acks(uint32_t gen, int timeout_ms);
/* registry.c: forget every task (saved_cmdlines_size changed, tests). */
void tfs_task_clear(void);

/*
 * registry.c, for the fuzzing harness (tests/fuzz/fuzz_wire.c): take fd, a
 * connected SOCK_SEQPACKET socket, as a connection the registry accepted from
 * process pid (0 or -ENOMEM); handle one packet of it as if the registry thread
 * had read it (< 0: the registry would close the connection, and it is dropped
 * and closed); drop and close it (EOF), if still there.  Without the registry
 * thread running.
 */
int tfs_registry_adopt(int fd, pid_t pid);
int tfs_registry_packet(int fd, const void *buf, size_t n);
void tfs_registry_drop(int fd);

/* fuse_ops.c: wake every pending poll(2) on the tree. */
void tfs_fuse_poll_wake(void);
/* fuse_ops.c: mount (NULL on failure), serve until unmounted or signalled, unmount. */
struct fuse;
/* opts: ",OPT,..." more FUSE mount options (main.c checked them), or "". */
struct fuse *tfs_fuse_mount(const char *mountpoint, bool debug, const char *opts);
int tfs_fuse_loop(struct fuse *f);
void tfs_fuse_unmount(struct fuse *f);

/*
 * trace.c: write the dumps asked for so far and end the dump thread: it reads the
 * rings, so before the area goes (the end of the daemon).  Later dumps are
 * written by the caller of tfs_trace_dump itself.
 */
void tfs_trace_dump_stop(void);

/* current_tracer.c: make a tracer current in inst (clears its rings, applies). */
int tfs_set_tracer(struct tfs_instance *inst, const struct tracer *t);

#endif

// SPDX-License-Identifier: MIT
/*
 * printk_fmt.c - the texts of trace_printk() formats and trace_puts() strings the
 * traced processes told utracefs (printk_fmt.h): an array in the order they came
 * (printk_formats lists them so) and a hash of (pid, address) chains into it.
 * The registry thread adds, readers of the trace look up: a read-write lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "printk_fmt.h"
#include "tfs.h"
#include "ut_wire.h"

#define HASH_SIZE 16384u

struct fmt_ent {
	pid_t pid;
	uint32_t next; /* the chain: index + 1, 0 at its end */
	uint64_t addr, tsc;
	char *text;
};

static pthread_rwlock_t fmt_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct fmt_ent *ents;
static uint32_t nents, cap;
static uint32_t heads[HASH_SIZE];
static size_t text_bytes;

static unsigned int hash(pid_t pid, uint64_t addr)
{
	return (unsigned int)(((addr ^ ((uint64_t)(uint32_t)pid << 40)) * 0x9e3779b97f4a7c15ull) >>
			      50) %
	       HASH_SIZE;
}

int tfs_printk_fmt_add(pid_t pid, uint64_t addr, uint64_t tsc, const char *text)
{
	unsigned int h = hash(pid, addr);
	size_t len = strlen(text) + 1;
	int ret = 0;

	pthread_rwlock_wrlock(&fmt_lock);
	for (uint32_t i = heads[h]; i; i = ents[i - 1].next) {
		const struct fmt_ent *e = &ents[i - 1];

		if (e->pid == pid && e->addr == addr && !strcmp(e->text, text))
			goto out; /* sent again (a race of two threads, a new generation) */
	}
	if (nents == TFS_PRINTK_FMT_MAX || text_bytes + len > TFS_PRINTK_FMT_BYTES) {
		ret = -ENOSPC;
		goto out;
	}
	if (nents == cap) {
		uint32_t ncap = cap ? cap * 2 : 256;
		struct fmt_ent *n = realloc(ents, ncap * sizeof(*n));

		if (!n) {
			ret = -ENOSPC;
			goto out;
		}
		ents = n, cap = ncap;
	}
	ents[nents] = (struct fmt_ent){
	    .pid = pid, .next = heads[h], .addr = addr, .tsc = tsc, .text = strdup(text)};
	if (!ents[nents].text) {
		ret = -ENOSPC;
		goto out;
	}
	heads[h] = ++nents;
	text_bytes += len;
out:
	pthread_rwlock_unlock(&fmt_lock);
	return ret;
}

int tfs_printk_fmt_msg(pid_t pid, const void *msg, size_t n)
{
	const struct ut_msg_printk_fmt *m = msg;
	size_t len;

	if (n <= sizeof(*m) || n > sizeof(*m) + UT_PRINTK_FMT_MAX)
		return -EPROTO;
	len = n - sizeof(*m); /* the text and its NUL, nothing after */
	if (strnlen(m->text, len) != len - 1)
		return -EPROTO;
	tfs_printk_fmt_add(pid, m->addr, m->tsc, m->text);
	return 0;
}

const char *tfs_printk_fmt_find(pid_t tid, uint64_t addr, uint64_t tsc)
{
	pid_t pid = tfs_task_tgid(tid);
	const struct fmt_ent *best = NULL, *first = NULL;

	if (pid <= 0)
		pid = tid; /* a thread never announced: the main thread */
	pthread_rwlock_rdlock(&fmt_lock);
	for (uint32_t i = heads[hash(pid, addr)]; i; i = ents[i - 1].next) {
		const struct fmt_ent *e = &ents[i - 1];

		if (e->pid != pid || e->addr != addr)
			continue;
		if (e->tsc <= tsc && (!best || e->tsc > best->tsc))
			best = e;
		if (!first || e->tsc < first->tsc)
			first = e;
	}
	pthread_rwlock_unlock(&fmt_lock);
	/*
	 * None sent before the record: the text and the record were written on two
	 * CPUs whose counters differ by a little; the first text is the one.
	 */
	return best ? best->text : first ? first->text : NULL;
}

void tfs_printk_fmt_foreach(tfs_printk_fmt_fn fn, void *arg)
{
	pthread_rwlock_rdlock(&fmt_lock);
	for (uint32_t i = 0; i < nents; i++)
		fn(ents[i].addr, ents[i].text, arg);
	pthread_rwlock_unlock(&fmt_lock);
}

void tfs_printk_fmt_reset(void)
{
	pthread_rwlock_wrlock(&fmt_lock);
	for (uint32_t i = 0; i < nents; i++)
		free(ents[i].text);
	free(ents);
	ents = NULL;
	nents = cap = 0;
	text_bytes = 0;
	memset(heads, 0, sizeof(heads));
	pthread_rwlock_unlock(&fmt_lock);
}

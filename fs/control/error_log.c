// SPDX-License-Identifier: MIT
/*
 * error_log.c - the error_log file and tfs_error_log(), through which control
 * files that parse commands explain a refused write.
 *
 * Entries read exactly as the kernel's:
 *
 *   [   42.123456] LOC: error: MESSAGE
 *     Command: THE COMMAND
 *               ^
 *
 * the caret under the position of the error in the command.  The last 8 entries
 * are kept; opening the file for writing with O_TRUNC (echo > error_log) clears
 * it; other writes are accepted and ignored.  The time stamp is the local clock
 * whatever trace_clock says, as the kernel takes local_clock().  Each instance
 * has its own log (inst->elog, made at its first entry), as each trace_array has.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"
#include "tfs.h"

#define ERR_LOG_MAX 8
#define ERR_LOC_MAX 128 /* the kernel's "LOC: error: " buffer, NUL included */
#define CMD_PREFIX "  Command: "

struct err_entry {
	uint64_t ts;
	char *loc, *msg, *cmd;
	unsigned int pos;
};

struct tfs_elog {
	struct err_entry entries[ERR_LOG_MAX];
	unsigned int first, count; /* oldest entry, number kept */
};

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER; /* every instance's log */

int tfs_error_log_format(struct tfs_buf *b, uint64_t ts, const char *loc, const char *msg,
			 const char *cmd, unsigned int pos)
{
	char where[ERR_LOC_MAX];
	int err;

	/* a long location cuts into ": error: " too, as in the kernel */
	snprintf(where, sizeof(where), "%s: error: ", loc);
	err = tfs_buf_printf(b, "[%5llu.%06u] %s%s\n" CMD_PREFIX "%s\n",
			     (unsigned long long)(ts / 1000000000ull),
			     (unsigned int)(ts % 1000000000ull / 1000), where, msg, cmd);

	for (unsigned int i = 0; i < sizeof(CMD_PREFIX) - 1 + pos && !err; i++)
		err = tfs_buf_append(b, " ", 1);
	return err ? err : tfs_buf_printf(b, "^\n");
}

static void entry_free(struct err_entry *e)
{
	free(e->loc);
	free(e->msg);
	free(e->cmd);
	e->loc = e->msg = e->cmd = NULL;
}

void tfs_error_log(struct tfs_instance *inst, const char *loc, const char *msg, const char *cmd,
		   unsigned int pos)
{
	uint64_t ts = tfs_clock_ns(TFS_CLOCK_LOCAL, tfs_clock_tsc());
	char *l = strdup(loc ? loc : ""), *m = strdup(msg ? msg : ""), *c = strdup(cmd ? cmd : "");
	struct err_entry *e;

	if (!l || !m || !c) {
		free(l);
		free(m);
		free(c);
		return;
	}
	pthread_mutex_lock(&log_lock);
	struct tfs_elog *lg = inst->elog ? inst->elog : (inst->elog = calloc(1, sizeof(*lg)));

	if (!lg) {
		pthread_mutex_unlock(&log_lock);
		free(l);
		free(m);
		free(c);
		return;
	}
	if (lg->count == ERR_LOG_MAX) {
		entry_free(&lg->entries[lg->first]);
		lg->first = (lg->first + 1) % ERR_LOG_MAX;
		lg->count--;
	}
	e = &lg->entries[(lg->first + lg->count++) % ERR_LOG_MAX];
	e->ts = ts;
	e->loc = l;
	e->msg = m;
	e->cmd = c;
	e->pos = pos > UINT16_MAX ? UINT16_MAX : pos; /* the kernel keeps a u16 */
	pthread_mutex_unlock(&log_lock);
}

static int error_log_show(struct tfs_open *o)
{
	const struct tfs_elog *lg;
	int err = 0;

	pthread_mutex_lock(&log_lock);
	lg = o->inst->elog;
	for (unsigned int i = 0; lg && i < lg->count && !err; i++) {
		const struct err_entry *e = &lg->entries[(lg->first + i) % ERR_LOG_MAX];

		err = tfs_error_log_format(&o->content, e->ts, e->loc, e->msg, e->cmd, e->pos);
	}
	pthread_mutex_unlock(&log_lock);
	return err;
}

static ssize_t error_log_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	return (ssize_t)size;
}

/* Empty inst's log; free: and forget it (the instance goes). */
static void elog_clear(struct tfs_instance *inst, bool free_it)
{
	struct tfs_elog *lg;

	pthread_mutex_lock(&log_lock);
	lg = inst->elog;
	for (unsigned int i = 0; lg && i < lg->count; i++)
		entry_free(&lg->entries[(lg->first + i) % ERR_LOG_MAX]);
	if (lg)
		lg->first = lg->count = 0;
	if (free_it) {
		free(lg);
		inst->elog = NULL;
	}
	pthread_mutex_unlock(&log_lock);
}

void tfs_error_log_free(struct tfs_instance *inst)
{
	elog_clear(inst, true);
}

static int error_log_truncate(struct tfs_open *o)
{
	elog_clear(o->inst, false);
	return 0;
}

const struct tfs_file_ops tfs_error_log_ops = {
	.show = error_log_show,
	.write = error_log_write,
	.truncate = error_log_truncate,
	.seek = TFS_SEEK_SEQ_READ,
};

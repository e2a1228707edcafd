// SPDX-License-Identifier: MIT
/*
 * fuzz_pid.c - the pid lists (ftrace_pid.c): set_ftrace_pid, set_ftrace_notrace_pid,
 * set_event_pid, set_event_notrace_pid written, read back, and resolved for a
 * process as the selection memfd does.
 *
 * Input: byte 0 picks the list (bits 0-1) and replace (`>`, bit 2); the rest is
 * the text of one write.
 */
#include <unistd.h>

#include "fuzz.h"
#include "ut_sel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tfs_buf b = {0};
	enum tfs_pid_list which;
	int32_t tids[UT_SEL_TIDS_MAX];
	uint32_t nr = 0;

	if (size < 1)
		return 0;
	which = (enum tfs_pid_list)((data[0] & 3) % TFS_PID_NR);
	tfs_pid_write(&tfs_top, which, data[0] & 4, (const char *)data + 1, size - 1);
	tfs_pid_show(&tfs_top, which, &b);
	tfs_buf_free(&b);
	pthread_mutex_lock(&tfs_ft_lock);
	tfs_pid_filtered_locked();
	tfs_pid_tasks_locked(getpid(), tids, &nr);
	pthread_mutex_unlock(&tfs_ft_lock);
	if (data[0] & 8)
		tfs_pid_reset();
	return 0;
}

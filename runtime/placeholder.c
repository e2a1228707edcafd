// SPDX-License-Identifier: MIT
/* placeholder.c - removed when the runtime lands. */
int ut_runtime_placeholder;

/* SPDX-License-Identifier: MIT */
/* ut_version.h - the version of utrace: the one place that says it. */
#ifndef UT_VERSION_H
#define UT_VERSION_H

#define UT_VERSION "0.10.0"

#endif

/*
 * bench/micro/calls_tp.c - instantiates the tracepoint provider of calls_tp.h (the probe
 * code and its registration), linked into the LTTng build of calls.c.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "calls_tp.h"

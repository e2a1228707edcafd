/*
 * bench/micro/events_tp.c - instantiates the tracepoint provider of events_tp.h, linked
 * into the LTTng build of events.c.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "events_tp.h"

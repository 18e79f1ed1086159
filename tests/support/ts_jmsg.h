/*
 * ts_jmsg: the comparison of two messages ConsPerf's JSON reader (consperf/jdecode.h) gave,
 * shared by the unit test of the reader and its fuzz target, which both read one frame twice
 * (the scan, and the full reader alone) and want the same messages.
 *
 * Header-only, so that fuzz targets (which do not link the test support library) can use it.
 */
#ifndef RWFPERF_TS_JMSG_H
#define RWFPERF_TS_JMSG_H

#include <stdbool.h>
#include <string.h>

#include "jdecode.h"

/* True when a and b say the same: kind, stream, domain, state, completion, post user, the
 * latency stamps, the sum of the values' lengths, and the same text of the same frame (the
 * views are compared by address, so both must come from one buffer). */
static inline bool ts_jmsg_same(const cons_jmsg *a, const cons_jmsg *b)
{
    return a->kind == b->kind && a->stream_id == b->stream_id && a->domain == b->domain &&
           a->has_state == b->has_state && a->state.stream_state == b->state.stream_state &&
           a->state.data_state == b->state.data_state && a->state.code == b->state.code &&
           a->state.text.data == b->state.text.data && a->state.text.len == b->state.text.len &&
           a->complete == b->complete && a->has_post_user == b->has_post_user &&
           a->post_user_addr == b->post_user_addr && a->post_user_id == b->post_user_id &&
           memcmp(a->st.t, b->st.t, sizeof(a->st.t)) == 0 && a->st.sum == b->st.sum &&
           a->text == b->text && a->text_len == b->text_len;
}

#endif

/*
 * rwf_msg_int: what the message decoder (rwf_msg_dec.c) and encoder (rwf_msg_enc.c) share.
 * Not for users of the codec.
 */
#ifndef RWFPERF_RWF_MSG_INT_H
#define RWFPERF_RWF_MSG_INT_H

#include <stdint.h>

#include "rwf_msg.h"

/* The class flag that says a msgKey is present; 0 for Request (a key always) and Close (no
 * key). */
static inline uint16_t rwf_msg_key_flag(int msg_class)
{
    switch (msg_class) {
    case RWF_MC_REFRESH:
        return RWF_RFMF_HAS_MSG_KEY;
    case RWF_MC_STATUS:
        return RWF_STMF_HAS_MSG_KEY;
    case RWF_MC_UPDATE:
        return RWF_UPMF_HAS_MSG_KEY;
    case RWF_MC_GENERIC:
        return RWF_GNMF_HAS_MSG_KEY;
    case RWF_MC_POST:
        return RWF_PSMF_HAS_MSG_KEY;
    case RWF_MC_ACK:
        return RWF_AKMF_HAS_MSG_KEY;
    default:
        return 0;
    }
}

#endif

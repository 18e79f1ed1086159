/*
 * rwf_value: the values of RWF primitives as C structs — Real, Date, Time, DateTime, QoS,
 * State and the rwf_value union — with the checks the encoders make and the packing of the
 * QoS and State bytes (defined here once, for the primitives and the message headers alike).
 */
#ifndef RWFPERF_RWF_VALUE_H
#define RWFPERF_RWF_VALUE_H

#include <stdint.h>

#include "rwf_types.h"
#include "rwf_wire.h"

/* ---- Value structs ----------------------------------------------------------------------- */

/* value * 10^(hint - 14) for hints 0..21, value / 2^(hint - 22) for 22..30; hints 33/34/35
 * are +Inf/-Inf/NaN (value 0). blank = 1 marks the blank Real. */
typedef struct rwf_real {
    int64_t value;
    uint8_t hint;
    uint8_t blank;
} rwf_real;

typedef struct rwf_date {
    uint8_t day;
    uint8_t month;
    uint16_t year;
} rwf_date; /* 0/0/0 is blank */

typedef struct rwf_time {
    uint8_t hour;
    uint8_t minute;
    uint8_t second;
    uint16_t millisecond;
    uint16_t microsecond; /* 0..999 (11 bits on the wire) */
    uint16_t nanosecond;  /* 0..999 (11 bits on the wire) */
} rwf_time;               /* blank pattern: 255/255/255/65535/2047/2047 */

typedef struct rwf_datetime {
    rwf_date date;
    rwf_time time;
} rwf_datetime;

typedef struct rwf_qos {
    uint8_t timeliness; /* RWF_QOS_TIME_* */
    uint8_t rate;       /* RWF_QOS_RATE_* */
    uint8_t dynamic;    /* 0 or 1 */
    uint16_t time_info; /* present on the wire when timeliness > DELAYED_UNKNOWN */
    uint16_t rate_info; /* present on the wire when rate > JIT_CONFLATED */
} rwf_qos;

typedef struct rwf_state {
    uint8_t stream_state; /* RWF_STREAM_* */
    uint8_t data_state;   /* RWF_DATA_* */
    uint8_t code;         /* RWF_SC_* */
    rwf_buf text;
} rwf_state;

/* A decoded primitive of any type. type is the base type (set-defined types decode into their
 * base type: RWF_DT_UINT_2 -> RWF_DT_UINT). For ARRAY, buf is the encoded array (decode it
 * with rwf_array_dec_init); for the four string/buffer types, buf is the bytes. */
typedef struct rwf_value {
    uint8_t type;
    union {
        int64_t i;
        uint64_t u;
        float f;
        double d;
        rwf_real real;
        rwf_date date;
        rwf_time time;
        rwf_datetime datetime;
        rwf_qos qos;
        rwf_state state;
        uint16_t enm;
        rwf_buf buf;
    };
} rwf_value;

/* Sets t to the blank time (255:255:255:65535:2047:2047). */
static inline void rwf_time_blank(rwf_time *t)
{
    t->hour = t->minute = t->second = 255;
    t->millisecond = 65535;
    t->microsecond = t->nanosecond = 2047;
}

/* Validity checks used by the encoders (1 = encodable). */
static inline int rwf_real_valid(const rwf_real *r)
{
    return r->blank || r->hint <= RWF_RH_FRACTION_256 || r->hint == RWF_RH_INFINITY ||
           r->hint == RWF_RH_NEG_INFINITY || r->hint == RWF_RH_NOT_A_NUMBER;
}

static inline int rwf_qos_valid(const rwf_qos *q)
{
    return q->timeliness != RWF_QOS_TIME_UNSPECIFIED && q->rate != RWF_QOS_RATE_UNSPECIFIED &&
           q->timeliness < 8 && q->rate < 16;
}

/* The first byte of a QoS: timeliness (3 bits), rate (4 bits), dynamic (1 bit). */
static inline uint8_t rwf_qos_byte(const rwf_qos *q)
{
    return (uint8_t)(q->timeliness << 5 | q->rate << 1 | (q->dynamic & 1));
}

static inline void rwf_qos_from_byte(rwf_qos *q, uint8_t b)
{
    q->timeliness = b >> 5;
    q->rate = (b >> 1) & 0x0F;
    q->dynamic = b & 1;
}

/* 1 when the QoS carries a u16 time info / rate info after its first byte. */
static inline int rwf_qos_has_time_info(const rwf_qos *q)
{
    return q->timeliness > RWF_QOS_TIME_DELAYED_UNKNOWN;
}

static inline int rwf_qos_has_rate_info(const rwf_qos *q)
{
    return q->rate > RWF_QOS_RATE_JIT_CONFLATED;
}

/* The first byte of a State: stream state (5 bits), data state (3 bits). */
static inline uint8_t rwf_state_byte(const rwf_state *s)
{
    return (uint8_t)(s->stream_state << 3 | (s->data_state & 7));
}

static inline void rwf_state_from_byte(rwf_state *s, uint8_t b)
{
    s->stream_state = b >> 3;
    s->data_state = b & 7;
}

#endif

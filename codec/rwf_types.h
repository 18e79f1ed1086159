/*
 * rwf_types: the numbers of RWF (wire format major 14, minor 1).
 *
 * Data-type ids, container ids, message classes, domains, every flag of every message class,
 * message key and container, entry actions, stream/data states, state codes, QoS values, Real
 * hints, and the status codes returned by every rwf_ function. Nothing here allocates or
 * runs: it is the vocabulary the other rwf_ headers speak.
 *
 * On the wire a container type is written as (id - 128) in message headers, map/vector/
 * series/filter headers and key attributes; primitive types (map keys, element entries,
 * arrays) are written with their full id. The encoder and decoder do the translation: every
 * struct field in this codec holds the full id.
 */
#ifndef RWFPERF_RWF_TYPES_H
#define RWFPERF_RWF_TYPES_H

#include <stdint.h>

/* ---- Status codes ------------------------------------------------------------------------
 * Every rwf_ function returns one of these. Negative codes are failures and come with text
 * in err_msg() saying what and where; positive codes are normal outcomes. */
enum {
    RWF_OK = 0,
    RWF_BLANK = 1,       /* a decoded value is blank (zero length or blank pattern) */
    RWF_END = 2,         /* a container iterator has no more entries */
    RWF_SET_SKIPPED = 3, /* set-defined data present but no definition given: skipped */

    RWF_E_NOSPACE = -2,     /* encoding: the output buffer is too small */
    RWF_E_MALFORMED = -3,   /* decoding: bytes that break the format (truncated, bad length) */
    RWF_E_INVALID = -4,     /* bad argument or call out of order (encoder state, bad value) */
    RWF_E_UNSUPPORTED = -5, /* a type or form this codec does not handle */
    RWF_E_NOTFOUND = -6,    /* lookup failed (unknown fid, enum value, set id) */
    RWF_E_IO = -7,          /* file could not be read */
    RWF_E_NOMEM = -8,       /* allocation failed (dictionary loading only) */
};

/* ---- Data types -------------------------------------------------------------------------- */
enum {
    RWF_DT_UNKNOWN = 0,
    RWF_DT_INT = 3,
    RWF_DT_UINT = 4,
    RWF_DT_FLOAT = 5,
    RWF_DT_DOUBLE = 6,
    RWF_DT_REAL = 8,
    RWF_DT_DATE = 9,
    RWF_DT_TIME = 10,
    RWF_DT_DATETIME = 11,
    RWF_DT_QOS = 12,
    RWF_DT_STATE = 13,
    RWF_DT_ENUM = 14,
    RWF_DT_ARRAY = 15,
    RWF_DT_BUFFER = 16,
    RWF_DT_ASCII_STRING = 17,
    RWF_DT_UTF8_STRING = 18,
    RWF_DT_RMTES_STRING = 19,

    /* Set-defined (fixed size) primitive types: inside set data and fixed-length arrays. */
    RWF_DT_INT_1 = 64,
    RWF_DT_UINT_1 = 65,
    RWF_DT_INT_2 = 66,
    RWF_DT_UINT_2 = 67,
    RWF_DT_INT_4 = 68,
    RWF_DT_UINT_4 = 69,
    RWF_DT_INT_8 = 70,
    RWF_DT_UINT_8 = 71,
    RWF_DT_FLOAT_4 = 72,
    RWF_DT_DOUBLE_8 = 73,
    RWF_DT_REAL_4RB = 74,
    RWF_DT_REAL_8RB = 75,
    RWF_DT_DATE_4 = 76,
    RWF_DT_TIME_3 = 77,
    RWF_DT_TIME_5 = 78,
    RWF_DT_DATETIME_7 = 79,
    RWF_DT_DATETIME_9 = 80,
    RWF_DT_DATETIME_11 = 81,
    RWF_DT_DATETIME_12 = 82,
    RWF_DT_TIME_7 = 83,
    RWF_DT_TIME_8 = 84,

    /* Containers (wire byte = id - 128). */
    RWF_DT_NO_DATA = 128,
    RWF_DT_OPAQUE = 130,
    RWF_DT_XML = 131,
    RWF_DT_FIELD_LIST = 132,
    RWF_DT_ELEMENT_LIST = 133,
    RWF_DT_ANSI_PAGE = 134,
    RWF_DT_FILTER_LIST = 135,
    RWF_DT_VECTOR = 136,
    RWF_DT_MAP = 137,
    RWF_DT_SERIES = 138,
    RWF_DT_MSG = 141,
    RWF_DT_JSON = 142,
};

#define RWF_DT_SET_PRIMITIVE_MIN 64
#define RWF_DT_SET_PRIMITIVE_MAX 84
#define RWF_DT_CONTAINER_MIN 128

/* ---- Message classes and domains --------------------------------------------------------- */
enum {
    RWF_MC_REQUEST = 1,
    RWF_MC_REFRESH = 2,
    RWF_MC_STATUS = 3,
    RWF_MC_UPDATE = 4,
    RWF_MC_CLOSE = 5,
    RWF_MC_ACK = 6,
    RWF_MC_GENERIC = 7,
    RWF_MC_POST = 8,
};

enum {
    RWF_DMT_LOGIN = 1,
    RWF_DMT_SOURCE = 4,
    RWF_DMT_DICTIONARY = 5,
    RWF_DMT_MARKET_PRICE = 6,
    RWF_DMT_MARKET_BY_ORDER = 7,
    RWF_DMT_MARKET_BY_PRICE = 8,
    RWF_DMT_MARKET_MAKER = 9,
    RWF_DMT_SYMBOL_LIST = 10,
    RWF_DMT_SERVICE_PROVIDER_STATUS = 11,
    RWF_DMT_HISTORY = 12,
    RWF_DMT_HEADLINE = 13,
    RWF_DMT_STORY = 14,
    RWF_DMT_REPLAYHEADLINE = 15,
    RWF_DMT_REPLAYSTORY = 16,
    RWF_DMT_TRANSACTION = 17,
    RWF_DMT_YIELD_CURVE = 22,
    RWF_DMT_CONTRIBUTION = 27,
    RWF_DMT_PROVIDER_ADMIN = 29,
    RWF_DMT_ANALYTICS = 30,
    RWF_DMT_REFERENCE = 31,
    RWF_DMT_NEWS_TEXT_ANALYTICS = 33,
    RWF_DMT_ECONOMIC_INDICATOR = 34,
    RWF_DMT_POLL = 35,
    RWF_DMT_FORECAST = 36,
    RWF_DMT_MARKET_BY_TIME = 37,
    RWF_DMT_SYSTEM = 127,
};

/* ---- Message flags (one set per class; u15rb on the wire) -------------------------------- */
enum { /* Request */
       RWF_RQMF_HAS_EXTENDED_HEADER = 0x0001,
       RWF_RQMF_HAS_PRIORITY = 0x0002,
       RWF_RQMF_STREAMING = 0x0004,
       RWF_RQMF_MSG_KEY_IN_UPDATES = 0x0008,
       RWF_RQMF_CONF_INFO_IN_UPDATES = 0x0010,
       RWF_RQMF_NO_REFRESH = 0x0020,
       RWF_RQMF_HAS_QOS = 0x0040,
       RWF_RQMF_HAS_WORST_QOS = 0x0080,
       RWF_RQMF_PRIVATE_STREAM = 0x0100,
       RWF_RQMF_PAUSE = 0x0200,
       RWF_RQMF_HAS_VIEW = 0x0400,
       RWF_RQMF_HAS_BATCH = 0x0800,
       RWF_RQMF_QUALIFIED_STREAM = 0x1000,
};

enum { /* Refresh */
       RWF_RFMF_HAS_EXTENDED_HEADER = 0x0001,
       RWF_RFMF_HAS_PERM_DATA = 0x0002,
       RWF_RFMF_HAS_MSG_KEY = 0x0008,
       RWF_RFMF_HAS_SEQ_NUM = 0x0010,
       RWF_RFMF_SOLICITED = 0x0020,
       RWF_RFMF_REFRESH_COMPLETE = 0x0040,
       RWF_RFMF_HAS_QOS = 0x0080,
       RWF_RFMF_CLEAR_CACHE = 0x0100,
       RWF_RFMF_DO_NOT_CACHE = 0x0200,
       RWF_RFMF_PRIVATE_STREAM = 0x0400,
       RWF_RFMF_HAS_POST_USER_INFO = 0x0800,
       RWF_RFMF_HAS_PART_NUM = 0x1000,
       RWF_RFMF_HAS_REQ_MSG_KEY = 0x2000,
       RWF_RFMF_QUALIFIED_STREAM = 0x4000,
};

enum { /* Status */
       RWF_STMF_HAS_EXTENDED_HEADER = 0x0001,
       RWF_STMF_HAS_PERM_DATA = 0x0002,
       RWF_STMF_HAS_MSG_KEY = 0x0008,
       RWF_STMF_HAS_GROUP_ID = 0x0010,
       RWF_STMF_HAS_STATE = 0x0020,
       RWF_STMF_CLEAR_CACHE = 0x0040,
       RWF_STMF_PRIVATE_STREAM = 0x0080,
       RWF_STMF_HAS_POST_USER_INFO = 0x0100,
       RWF_STMF_HAS_REQ_MSG_KEY = 0x0200,
       RWF_STMF_QUALIFIED_STREAM = 0x0400,
};

enum { /* Update */
       RWF_UPMF_HAS_EXTENDED_HEADER = 0x0001,
       RWF_UPMF_HAS_PERM_DATA = 0x0002,
       RWF_UPMF_HAS_MSG_KEY = 0x0008,
       RWF_UPMF_HAS_SEQ_NUM = 0x0010,
       RWF_UPMF_HAS_CONF_INFO = 0x0020,
       RWF_UPMF_DO_NOT_CACHE = 0x0040,
       RWF_UPMF_DO_NOT_CONFLATE = 0x0080,
       RWF_UPMF_DO_NOT_RIPPLE = 0x0100,
       RWF_UPMF_HAS_POST_USER_INFO = 0x0200,
       RWF_UPMF_DISCARDABLE = 0x0400,
};

enum { /* Close */
       RWF_CLMF_HAS_EXTENDED_HEADER = 0x01,
       RWF_CLMF_ACK = 0x02,
       RWF_CLMF_HAS_BATCH = 0x04,
};

enum { /* Ack */
       RWF_AKMF_HAS_EXTENDED_HEADER = 0x01,
       RWF_AKMF_HAS_TEXT = 0x02,
       RWF_AKMF_PRIVATE_STREAM = 0x04,
       RWF_AKMF_HAS_SEQ_NUM = 0x08,
       RWF_AKMF_HAS_MSG_KEY = 0x10,
       RWF_AKMF_HAS_NAK_CODE = 0x20,
       RWF_AKMF_QUALIFIED_STREAM = 0x40,
};

enum { /* Generic */
       RWF_GNMF_HAS_EXTENDED_HEADER = 0x0001,
       RWF_GNMF_HAS_PERM_DATA = 0x0002,
       RWF_GNMF_HAS_MSG_KEY = 0x0004,
       RWF_GNMF_HAS_SEQ_NUM = 0x0008,
       RWF_GNMF_MESSAGE_COMPLETE = 0x0010,
       RWF_GNMF_HAS_SECONDARY_SEQ_NUM = 0x0020,
       RWF_GNMF_HAS_PART_NUM = 0x0040,
       RWF_GNMF_HAS_REQ_MSG_KEY = 0x0080,
       RWF_GNMF_PROVIDER_DRIVEN = 0x4000,
};

enum { /* Post */
       RWF_PSMF_HAS_EXTENDED_HEADER = 0x0001,
       RWF_PSMF_HAS_POST_ID = 0x0002,
       RWF_PSMF_HAS_MSG_KEY = 0x0004,
       RWF_PSMF_HAS_SEQ_NUM = 0x0008,
       RWF_PSMF_POST_COMPLETE = 0x0020,
       RWF_PSMF_ACK = 0x0040,
       RWF_PSMF_HAS_PERM_DATA = 0x0080,
       RWF_PSMF_HAS_PART_NUM = 0x0100,
       RWF_PSMF_HAS_POST_USER_RIGHTS = 0x0200,
};

enum { /* Message key */
       RWF_MKF_HAS_SERVICE_ID = 0x01,
       RWF_MKF_HAS_NAME = 0x02,
       RWF_MKF_HAS_NAME_TYPE = 0x04,
       RWF_MKF_HAS_FILTER = 0x08,
       RWF_MKF_HAS_IDENTIFIER = 0x10,
       RWF_MKF_HAS_ATTRIB = 0x20,
};

/* ---- Container flags and entry actions --------------------------------------------------- */
enum { /* FieldList */
       RWF_FLF_HAS_FIELD_LIST_INFO = 0x01,
       RWF_FLF_HAS_SET_DATA = 0x02,
       RWF_FLF_HAS_SET_ID = 0x04,
       RWF_FLF_HAS_STANDARD_DATA = 0x08,
};

enum { /* ElementList */
       RWF_ELF_HAS_ELEMENT_LIST_INFO = 0x01,
       RWF_ELF_HAS_SET_DATA = 0x02,
       RWF_ELF_HAS_SET_ID = 0x04,
       RWF_ELF_HAS_STANDARD_DATA = 0x08,
};

enum { /* Map */
       RWF_MPF_HAS_SET_DEFS = 0x01,
       RWF_MPF_HAS_SUMMARY_DATA = 0x02,
       RWF_MPF_HAS_PER_ENTRY_PERM_DATA = 0x04,
       RWF_MPF_HAS_TOTAL_COUNT_HINT = 0x08,
       RWF_MPF_HAS_KEY_FIELD_ID = 0x10,
};

enum { /* Map entry */
       RWF_MPEF_HAS_PERM_DATA = 0x01,
};

enum { /* Map entry actions */
       RWF_MPEA_UPDATE_ENTRY = 1,
       RWF_MPEA_ADD_ENTRY = 2,
       RWF_MPEA_DELETE_ENTRY = 3,
};

enum { /* FilterList */
       RWF_FTF_HAS_PER_ENTRY_PERM_DATA = 0x01,
       RWF_FTF_HAS_TOTAL_COUNT_HINT = 0x02,
};

enum { /* FilterList entry */
       RWF_FTEF_HAS_PERM_DATA = 0x01,
       RWF_FTEF_HAS_CONTAINER_TYPE = 0x02,
};

enum { /* FilterList entry actions */
       RWF_FTEA_UPDATE_ENTRY = 1,
       RWF_FTEA_SET_ENTRY = 2,
       RWF_FTEA_CLEAR_ENTRY = 3,
};

enum { /* Vector */
       RWF_VTF_HAS_SET_DEFS = 0x01,
       RWF_VTF_HAS_SUMMARY_DATA = 0x02,
       RWF_VTF_HAS_PER_ENTRY_PERM_DATA = 0x04,
       RWF_VTF_HAS_TOTAL_COUNT_HINT = 0x08,
       RWF_VTF_SUPPORTS_SORTING = 0x10,
};

enum { /* Vector entry */
       RWF_VTEF_HAS_PERM_DATA = 0x01,
};

enum { /* Vector entry actions */
       RWF_VTEA_UPDATE_ENTRY = 1,
       RWF_VTEA_SET_ENTRY = 2,
       RWF_VTEA_CLEAR_ENTRY = 3,
       RWF_VTEA_INSERT_ENTRY = 4,
       RWF_VTEA_DELETE_ENTRY = 5,
};

enum { /* Series */
       RWF_SRF_HAS_SET_DEFS = 0x01,
       RWF_SRF_HAS_SUMMARY_DATA = 0x02,
       RWF_SRF_HAS_TOTAL_COUNT_HINT = 0x04,
};

/* ---- State ------------------------------------------------------------------------------- */
enum { /* stream state */
       RWF_STREAM_UNSPECIFIED = 0,
       RWF_STREAM_OPEN = 1,
       RWF_STREAM_NON_STREAMING = 2,
       RWF_STREAM_CLOSED_RECOVER = 3,
       RWF_STREAM_CLOSED = 4,
       RWF_STREAM_REDIRECTED = 5,
};

enum { /* data state */
       RWF_DATA_NO_CHANGE = 0,
       RWF_DATA_OK = 1,
       RWF_DATA_SUSPECT = 2,
};

enum { /* state code */
       RWF_SC_NONE = 0,
       RWF_SC_NOT_FOUND = 1,
       RWF_SC_TIMEOUT = 2,
       RWF_SC_NOT_ENTITLED = 3,
       RWF_SC_INVALID_ARGUMENT = 4,
       RWF_SC_USAGE_ERROR = 5,
       RWF_SC_PREEMPTED = 6,
       RWF_SC_JIT_CONFLATION_STARTED = 7,
       RWF_SC_REALTIME_RESUMED = 8,
       RWF_SC_FAILOVER_STARTED = 9,
       RWF_SC_FAILOVER_COMPLETED = 10,
       RWF_SC_GAP_DETECTED = 11,
       RWF_SC_NO_RESOURCES = 12,
       RWF_SC_TOO_MANY_ITEMS = 13,
       RWF_SC_ALREADY_OPEN = 14,
       RWF_SC_SOURCE_UNKNOWN = 15,
       RWF_SC_NOT_OPEN = 16,
       RWF_SC_NON_UPDATING_ITEM = 19,
       RWF_SC_UNSUPPORTED_VIEW_TYPE = 20,
       RWF_SC_INVALID_VIEW = 21,
       RWF_SC_FULL_VIEW_PROVIDED = 22,
       RWF_SC_UNABLE_TO_REQUEST_AS_BATCH = 23,
       RWF_SC_NO_BATCH_VIEW_SUPPORT_IN_REQ = 26,
       RWF_SC_EXCEEDED_MAX_MOUNTS_PER_USER = 27,
       RWF_SC_ERROR = 28,
       RWF_SC_DACS_DOWN = 29,
       RWF_SC_USER_UNKNOWN_TO_PERM_SYS = 30,
       RWF_SC_DACS_MAX_LOGINS_REACHED = 31,
       RWF_SC_DACS_USER_ACCESS_TO_APP_DENIED = 32,
       RWF_SC_GAP_FILL = 34,
       RWF_SC_APP_AUTHORIZATION_FAILED = 35,
};

/* ---- QoS --------------------------------------------------------------------------------- */
enum {
    RWF_QOS_TIME_UNSPECIFIED = 0,
    RWF_QOS_TIME_REALTIME = 1,
    RWF_QOS_TIME_DELAYED_UNKNOWN = 2,
    RWF_QOS_TIME_DELAYED = 3,
};

enum {
    RWF_QOS_RATE_UNSPECIFIED = 0,
    RWF_QOS_RATE_TICK_BY_TICK = 1,
    RWF_QOS_RATE_JIT_CONFLATED = 2,
    RWF_QOS_RATE_TIME_CONFLATED = 3,
};

/* ---- Real hints: value = mantissa * 10^(hint - 14), or mantissa / 2^(hint - 22) ---------- */
enum {
    RWF_RH_EXPONENT_14 = 0,
    RWF_RH_EXPONENT_13 = 1,
    RWF_RH_EXPONENT_12 = 2,
    RWF_RH_EXPONENT_11 = 3,
    RWF_RH_EXPONENT_10 = 4,
    RWF_RH_EXPONENT_9 = 5,
    RWF_RH_EXPONENT_8 = 6,
    RWF_RH_EXPONENT_7 = 7,
    RWF_RH_EXPONENT_6 = 8,
    RWF_RH_EXPONENT_5 = 9,
    RWF_RH_EXPONENT_4 = 10,
    RWF_RH_EXPONENT_3 = 11,
    RWF_RH_EXPONENT_2 = 12,
    RWF_RH_EXPONENT_1 = 13,
    RWF_RH_EXPONENT0 = 14,
    RWF_RH_EXPONENT1 = 15,
    RWF_RH_EXPONENT2 = 16,
    RWF_RH_EXPONENT3 = 17,
    RWF_RH_EXPONENT4 = 18,
    RWF_RH_EXPONENT5 = 19,
    RWF_RH_EXPONENT6 = 20,
    RWF_RH_EXPONENT7 = 21,
    RWF_RH_FRACTION_1 = 22,
    RWF_RH_FRACTION_2 = 23,
    RWF_RH_FRACTION_4 = 24,
    RWF_RH_FRACTION_8 = 25,
    RWF_RH_FRACTION_16 = 26,
    RWF_RH_FRACTION_32 = 27,
    RWF_RH_FRACTION_64 = 28,
    RWF_RH_FRACTION_128 = 29,
    RWF_RH_FRACTION_256 = 30,
    RWF_RH_INFINITY = 33,
    RWF_RH_NEG_INFINITY = 34,
    RWF_RH_NOT_A_NUMBER = 35,
};

/* ---- Names (static strings; "?" style fallbacks documented per function) ----------------- */

/* The ETA-style name of a data type ("RSSL_DT_UINT"), or NULL when the id is not one. */
const char *rwf_type_name(int type);

/* The data type of an ETA-style name ("RSSL_DT_REAL", also "REAL"), or -1 when unknown. */
int rwf_type_from_name(const char *name);

/* Short names for messages and states, for error text and dumps ("REFRESH", "OPEN", "OK",
 * "TOO_MANY_ITEMS"); "?" when the value is not a known one. Never NULL. */
const char *rwf_msg_class_name(int msg_class);
const char *rwf_stream_state_name(int state);
const char *rwf_data_state_name(int state);
const char *rwf_state_code_name(int code);

/* The base type of a set-defined type (RWF_DT_UINT_2 -> RWF_DT_UINT); other types unchanged. */
int rwf_base_type(int type);

/* 1 when type is a container id (128..255 with a decoder in this codec or opaque kind). */
static inline int rwf_is_container(int type)
{
    return type >= RWF_DT_CONTAINER_MIN && type <= 255;
}

/* 1 when type is a standard primitive type, INT..RMTES_STRING (7 is not a type). */
static inline int rwf_is_primitive(int type)
{
    return type >= RWF_DT_INT && type <= RWF_DT_RMTES_STRING && type != 7;
}

/* 1 when type is one of the buffer/string types: BUFFER, ASCII, UTF8 or RMTES string. */
static inline int rwf_is_buf_type(int type)
{
    return type >= RWF_DT_BUFFER && type <= RWF_DT_RMTES_STRING;
}

#endif

/*
 * rwf_names: the names of RWF data types, message classes, states and state codes (for error
 * text, dumps and MsgData.xml), and the base type of each set-defined type.
 */
#include <stddef.h>
#include <string.h>

#include "rwf_types.h"

/* ---- Names ------------------------------------------------------------------------------- */

static const struct {
    int type;
    const char *name;
} type_names[] = {
    {RWF_DT_UNKNOWN, "RSSL_DT_UNKNOWN"},
    {RWF_DT_INT, "RSSL_DT_INT"},
    {RWF_DT_UINT, "RSSL_DT_UINT"},
    {RWF_DT_FLOAT, "RSSL_DT_FLOAT"},
    {RWF_DT_DOUBLE, "RSSL_DT_DOUBLE"},
    {RWF_DT_REAL, "RSSL_DT_REAL"},
    {RWF_DT_DATE, "RSSL_DT_DATE"},
    {RWF_DT_TIME, "RSSL_DT_TIME"},
    {RWF_DT_DATETIME, "RSSL_DT_DATETIME"},
    {RWF_DT_QOS, "RSSL_DT_QOS"},
    {RWF_DT_STATE, "RSSL_DT_STATE"},
    {RWF_DT_ENUM, "RSSL_DT_ENUM"},
    {RWF_DT_ARRAY, "RSSL_DT_ARRAY"},
    {RWF_DT_BUFFER, "RSSL_DT_BUFFER"},
    {RWF_DT_ASCII_STRING, "RSSL_DT_ASCII_STRING"},
    {RWF_DT_UTF8_STRING, "RSSL_DT_UTF8_STRING"},
    {RWF_DT_RMTES_STRING, "RSSL_DT_RMTES_STRING"},
    {RWF_DT_INT_1, "RSSL_DT_INT_1"},
    {RWF_DT_UINT_1, "RSSL_DT_UINT_1"},
    {RWF_DT_INT_2, "RSSL_DT_INT_2"},
    {RWF_DT_UINT_2, "RSSL_DT_UINT_2"},
    {RWF_DT_INT_4, "RSSL_DT_INT_4"},
    {RWF_DT_UINT_4, "RSSL_DT_UINT_4"},
    {RWF_DT_INT_8, "RSSL_DT_INT_8"},
    {RWF_DT_UINT_8, "RSSL_DT_UINT_8"},
    {RWF_DT_FLOAT_4, "RSSL_DT_FLOAT_4"},
    {RWF_DT_DOUBLE_8, "RSSL_DT_DOUBLE_8"},
    {RWF_DT_REAL_4RB, "RSSL_DT_REAL_4RB"},
    {RWF_DT_REAL_8RB, "RSSL_DT_REAL_8RB"},
    {RWF_DT_DATE_4, "RSSL_DT_DATE_4"},
    {RWF_DT_TIME_3, "RSSL_DT_TIME_3"},
    {RWF_DT_TIME_5, "RSSL_DT_TIME_5"},
    {RWF_DT_DATETIME_7, "RSSL_DT_DATETIME_7"},
    {RWF_DT_DATETIME_9, "RSSL_DT_DATETIME_9"},
    {RWF_DT_DATETIME_11, "RSSL_DT_DATETIME_11"},
    {RWF_DT_DATETIME_12, "RSSL_DT_DATETIME_12"},
    {RWF_DT_TIME_7, "RSSL_DT_TIME_7"},
    {RWF_DT_TIME_8, "RSSL_DT_TIME_8"},
    {RWF_DT_NO_DATA, "RSSL_DT_NO_DATA"},
    {RWF_DT_OPAQUE, "RSSL_DT_OPAQUE"},
    {RWF_DT_XML, "RSSL_DT_XML"},
    {RWF_DT_FIELD_LIST, "RSSL_DT_FIELD_LIST"},
    {RWF_DT_ELEMENT_LIST, "RSSL_DT_ELEMENT_LIST"},
    {RWF_DT_ANSI_PAGE, "RSSL_DT_ANSI_PAGE"},
    {RWF_DT_FILTER_LIST, "RSSL_DT_FILTER_LIST"},
    {RWF_DT_VECTOR, "RSSL_DT_VECTOR"},
    {RWF_DT_MAP, "RSSL_DT_MAP"},
    {RWF_DT_SERIES, "RSSL_DT_SERIES"},
    {RWF_DT_MSG, "RSSL_DT_MSG"},
    {RWF_DT_JSON, "RSSL_DT_JSON"},
};

const char *rwf_type_name(int type)
{
    for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
        if (type_names[i].type == type)
            return type_names[i].name;
    return NULL;
}

int rwf_type_from_name(const char *name)
{
    const char *bare = strncmp(name, "RSSL_DT_", 8) == 0 ? name + 8 : name;
    for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
        if (strcmp(type_names[i].name + 8, bare) == 0)
            return type_names[i].type;
    return -1;
}

const char *rwf_msg_class_name(int c)
{
    static const char *const n[] = {"?",     "REQUEST", "REFRESH", "STATUS", "UPDATE",
                                    "CLOSE", "ACK",     "GENERIC", "POST"};
    return (c >= 1 && c <= 8) ? n[c] : "?";
}

const char *rwf_stream_state_name(int s)
{
    static const char *const n[] = {"UNSPECIFIED",    "OPEN",   "NON_STREAMING",
                                    "CLOSED_RECOVER", "CLOSED", "REDIRECTED"};
    return (s >= 0 && s <= 5) ? n[s] : "?";
}

const char *rwf_data_state_name(int s)
{
    static const char *const n[] = {"NO_CHANGE", "OK", "SUSPECT"};
    return (s >= 0 && s <= 2) ? n[s] : "?";
}

const char *rwf_state_code_name(int c)
{
    static const char *const n[] = {"NONE",
                                    "NOT_FOUND",
                                    "TIMEOUT",
                                    "NOT_ENTITLED",
                                    "INVALID_ARGUMENT",
                                    "USAGE_ERROR",
                                    "PREEMPTED",
                                    "JIT_CONFLATION_STARTED",
                                    "REALTIME_RESUMED",
                                    "FAILOVER_STARTED",
                                    "FAILOVER_COMPLETED",
                                    "GAP_DETECTED",
                                    "NO_RESOURCES",
                                    "TOO_MANY_ITEMS",
                                    "ALREADY_OPEN",
                                    "SOURCE_UNKNOWN",
                                    "NOT_OPEN",
                                    "?",
                                    "?",
                                    "NON_UPDATING_ITEM",
                                    "UNSUPPORTED_VIEW_TYPE",
                                    "INVALID_VIEW",
                                    "FULL_VIEW_PROVIDED",
                                    "UNABLE_TO_REQUEST_AS_BATCH",
                                    "?",
                                    "?",
                                    "NO_BATCH_VIEW_SUPPORT_IN_REQ",
                                    "EXCEEDED_MAX_MOUNTS_PER_USER",
                                    "ERROR",
                                    "DACS_DOWN",
                                    "USER_UNKNOWN_TO_PERM_SYS",
                                    "DACS_MAX_LOGINS_REACHED",
                                    "DACS_USER_ACCESS_TO_APP_DENIED",
                                    "?",
                                    "GAP_FILL",
                                    "APP_AUTHORIZATION_FAILED"};
    return (c >= 0 && c < (int)(sizeof(n) / sizeof(n[0]))) ? n[c] : "?";
}

int rwf_base_type(int type)
{
    switch (type) {
    case RWF_DT_INT_1:
    case RWF_DT_INT_2:
    case RWF_DT_INT_4:
    case RWF_DT_INT_8:
        return RWF_DT_INT;
    case RWF_DT_UINT_1:
    case RWF_DT_UINT_2:
    case RWF_DT_UINT_4:
    case RWF_DT_UINT_8:
        return RWF_DT_UINT;
    case RWF_DT_FLOAT_4:
        return RWF_DT_FLOAT;
    case RWF_DT_DOUBLE_8:
        return RWF_DT_DOUBLE;
    case RWF_DT_REAL_4RB:
    case RWF_DT_REAL_8RB:
        return RWF_DT_REAL;
    case RWF_DT_DATE_4:
        return RWF_DT_DATE;
    case RWF_DT_TIME_3:
    case RWF_DT_TIME_5:
    case RWF_DT_TIME_7:
    case RWF_DT_TIME_8:
        return RWF_DT_TIME;
    case RWF_DT_DATETIME_7:
    case RWF_DT_DATETIME_9:
    case RWF_DT_DATETIME_11:
    case RWF_DT_DATETIME_12:
        return RWF_DT_DATETIME;
    default:
        return type;
    }
}

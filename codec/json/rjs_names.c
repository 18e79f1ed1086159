#include "rjs_names.h"

#include <string.h>

#include "rwf_types.h"

#define N(v, s)                                                                                    \
    {                                                                                              \
        (v), (s), (uint8_t)(sizeof(s) - 1)                                                         \
    }
#define TABLE(var, what, ...)                                                                      \
    static const rjs_name_ent var##_ents[] = {__VA_ARGS__};                                        \
    const rjs_names var = {var##_ents, sizeof(var##_ents) / sizeof(var##_ents[0]), what}

TABLE(rjs_msg_classes, "message class", N(RWF_MC_REQUEST, "Request"), N(RWF_MC_REFRESH, "Refresh"),
      N(RWF_MC_STATUS, "Status"), N(RWF_MC_UPDATE, "Update"), N(RWF_MC_CLOSE, "Close"),
      N(RWF_MC_ACK, "Ack"), N(RWF_MC_GENERIC, "Generic"), N(RWF_MC_POST, "Post"));

TABLE(rjs_domains, "domain", N(RWF_DMT_LOGIN, "Login"), N(RWF_DMT_SOURCE, "Source"),
      N(RWF_DMT_DICTIONARY, "Dictionary"), N(RWF_DMT_MARKET_PRICE, "MarketPrice"),
      N(RWF_DMT_MARKET_BY_ORDER, "MarketByOrder"), N(RWF_DMT_MARKET_BY_PRICE, "MarketByPrice"),
      N(RWF_DMT_MARKET_MAKER, "MarketMaker"), N(RWF_DMT_SYMBOL_LIST, "SymbolList"),
      N(RWF_DMT_SERVICE_PROVIDER_STATUS, "ServiceProviderStatus"), N(RWF_DMT_HISTORY, "History"),
      N(RWF_DMT_HEADLINE, "Headline"), N(RWF_DMT_STORY, "Story"),
      N(RWF_DMT_REPLAYHEADLINE, "ReplayHeadline"), N(RWF_DMT_REPLAYSTORY, "ReplayStory"),
      N(RWF_DMT_TRANSACTION, "Transaction"), N(RWF_DMT_YIELD_CURVE, "YieldCurve"),
      N(RWF_DMT_CONTRIBUTION, "Contribution"), N(RWF_DMT_PROVIDER_ADMIN, "ProviderAdmin"),
      N(RWF_DMT_ANALYTICS, "Analytics"), N(RWF_DMT_REFERENCE, "Reference"),
      N(RWF_DMT_NEWS_TEXT_ANALYTICS, "NewsTextAnalytics"),
      N(RWF_DMT_ECONOMIC_INDICATOR, "EconomicIndicator"), N(RWF_DMT_POLL, "Poll"),
      N(RWF_DMT_FORECAST, "Forecast"), N(RWF_DMT_MARKET_BY_TIME, "MarketByTime"),
      N(RWF_DMT_SYSTEM, "System"));

TABLE(rjs_stream_states, "stream state", N(RWF_STREAM_UNSPECIFIED, "Unspecified"),
      N(RWF_STREAM_OPEN, "Open"), N(RWF_STREAM_NON_STREAMING, "NonStreaming"),
      N(RWF_STREAM_CLOSED_RECOVER, "ClosedRecover"), N(RWF_STREAM_CLOSED, "Closed"),
      N(RWF_STREAM_REDIRECTED, "Redirected"));

TABLE(rjs_data_states, "data state", N(RWF_DATA_NO_CHANGE, "NoChange"), N(RWF_DATA_OK, "Ok"),
      N(RWF_DATA_SUSPECT, "Suspect"));

TABLE(rjs_state_codes, "state code", N(RWF_SC_NONE, "None"), N(RWF_SC_NOT_FOUND, "NotFound"),
      N(RWF_SC_TIMEOUT, "Timeout"), N(RWF_SC_NOT_ENTITLED, "NotEntitled"),
      N(RWF_SC_INVALID_ARGUMENT, "InvalidArgument"), N(RWF_SC_USAGE_ERROR, "UsageError"),
      N(RWF_SC_PREEMPTED, "Preempted"), N(RWF_SC_JIT_CONFLATION_STARTED, "JitConflationStarted"),
      N(RWF_SC_REALTIME_RESUMED, "RealtimeResumed"), N(RWF_SC_FAILOVER_STARTED, "FailoverStarted"),
      N(RWF_SC_FAILOVER_COMPLETED, "FailoverCompleted"), N(RWF_SC_GAP_DETECTED, "GapDetected"),
      N(RWF_SC_NO_RESOURCES, "NoResources"), N(RWF_SC_TOO_MANY_ITEMS, "TooManyItems"),
      N(RWF_SC_ALREADY_OPEN, "AlreadyOpen"), N(RWF_SC_SOURCE_UNKNOWN, "SourceUnknown"),
      N(RWF_SC_NOT_OPEN, "NotOpen"), N(RWF_SC_NON_UPDATING_ITEM, "NonUpdatingItem"),
      N(RWF_SC_UNSUPPORTED_VIEW_TYPE, "UnsupportedViewType"), N(RWF_SC_INVALID_VIEW, "InvalidView"),
      N(RWF_SC_FULL_VIEW_PROVIDED, "FullViewProvided"),
      N(RWF_SC_UNABLE_TO_REQUEST_AS_BATCH, "UnableToRequestAsBatch"),
      N(RWF_SC_NO_BATCH_VIEW_SUPPORT_IN_REQ, "NoBatchViewSupportInReq"),
      N(RWF_SC_EXCEEDED_MAX_MOUNTS_PER_USER, "ExceededMaxMountsPerUser"), N(RWF_SC_ERROR, "Error"),
      N(RWF_SC_DACS_DOWN, "DacsDown"), N(RWF_SC_USER_UNKNOWN_TO_PERM_SYS, "UserUnknownToPermSys"),
      N(RWF_SC_DACS_MAX_LOGINS_REACHED, "MaxLoginsReached"),
      N(RWF_SC_DACS_USER_ACCESS_TO_APP_DENIED, "UserAccessToAppDenied"),
      N(RWF_SC_GAP_FILL, "GapFill"), N(RWF_SC_APP_AUTHORIZATION_FAILED, "AppAuthorizationFailed"));

TABLE(rjs_timeliness, "QoS timeliness", N(RWF_QOS_TIME_UNSPECIFIED, "Unspecified"),
      N(RWF_QOS_TIME_REALTIME, "Realtime"), N(RWF_QOS_TIME_DELAYED_UNKNOWN, "DelayedUnknown"),
      N(RWF_QOS_TIME_DELAYED, "Delayed"));

TABLE(rjs_rates, "QoS rate", N(RWF_QOS_RATE_UNSPECIFIED, "Unspecified"),
      N(RWF_QOS_RATE_TICK_BY_TICK, "TickByTick"), N(RWF_QOS_RATE_JIT_CONFLATED, "JitConflated"),
      N(RWF_QOS_RATE_TIME_CONFLATED, "TimeConflated"));

TABLE(rjs_update_types, "update type", N(0, "Unspecified"), N(1, "Quote"), N(2, "Trade"),
      N(3, "NewsAlert"), N(4, "VolumeAlert"), N(5, "OrderIndication"), N(6, "ClosingRun"),
      N(7, "Correction"), N(8, "MarketDigest"), N(9, "QuotesTrade"), N(10, "Multiple"),
      N(11, "Verify"));

TABLE(rjs_nak_codes, "NAK code", N(0, "None"), N(1, "AccessDenied"), N(2, "DeniedBySrc"),
      N(3, "SourceDown"), N(4, "SourceUnknown"), N(5, "NoResources"), N(6, "NoResponse"),
      N(7, "GatewayDown"), N(10, "SymbolUnknown"), N(11, "NotOpen"), N(12, "InvalidContent"));

TABLE(rjs_data_types, "data type", N(RWF_DT_INT, "Int"), N(RWF_DT_UINT, "UInt"),
      N(RWF_DT_FLOAT, "Float"), N(RWF_DT_DOUBLE, "Double"), N(RWF_DT_REAL, "Real"),
      N(RWF_DT_DATE, "Date"), N(RWF_DT_TIME, "Time"), N(RWF_DT_DATETIME, "DateTime"),
      N(RWF_DT_QOS, "Qos"), N(RWF_DT_STATE, "State"), N(RWF_DT_ENUM, "Enum"),
      N(RWF_DT_ARRAY, "Array"), N(RWF_DT_BUFFER, "Buffer"), N(RWF_DT_ASCII_STRING, "AsciiString"),
      N(RWF_DT_UTF8_STRING, "Utf8String"), N(RWF_DT_RMTES_STRING, "RmtesString"),
      N(RWF_DT_INT_1, "Int1"), N(RWF_DT_UINT_1, "UInt1"), N(RWF_DT_INT_2, "Int2"),
      N(RWF_DT_UINT_2, "UInt2"), N(RWF_DT_INT_4, "Int4"), N(RWF_DT_UINT_4, "UInt4"),
      N(RWF_DT_INT_8, "Int8"), N(RWF_DT_UINT_8, "UInt8"), N(RWF_DT_FLOAT_4, "Float4"),
      N(RWF_DT_DOUBLE_8, "Double8"), N(RWF_DT_REAL_4RB, "Real4RB"), N(RWF_DT_REAL_8RB, "Real8RB"),
      N(RWF_DT_DATE_4, "Date4"), N(RWF_DT_TIME_3, "Time3"), N(RWF_DT_TIME_5, "Time5"),
      N(RWF_DT_DATETIME_7, "DateTime7"), N(RWF_DT_DATETIME_9, "DateTime9"),
      N(RWF_DT_DATETIME_11, "DateTime11"), N(RWF_DT_DATETIME_12, "DateTime12"),
      N(RWF_DT_TIME_7, "Time7"), N(RWF_DT_TIME_8, "Time8"), N(RWF_DT_NO_DATA, "NoData"),
      N(RWF_DT_OPAQUE, "Opaque"), N(RWF_DT_XML, "Xml"), N(RWF_DT_FIELD_LIST, "FieldList"),
      N(RWF_DT_ELEMENT_LIST, "ElementList"), N(RWF_DT_ANSI_PAGE, "AnsiPage"),
      N(RWF_DT_FILTER_LIST, "FilterList"), N(RWF_DT_VECTOR, "Vector"), N(RWF_DT_MAP, "Map"),
      N(RWF_DT_SERIES, "Series"), N(RWF_DT_MSG, "Msg"), N(RWF_DT_JSON, "Json"));

TABLE(rjs_map_actions, "map entry action", N(RWF_MPEA_UPDATE_ENTRY, "Update"),
      N(RWF_MPEA_ADD_ENTRY, "Add"), N(RWF_MPEA_DELETE_ENTRY, "Delete"));

TABLE(rjs_filter_actions, "filter entry action", N(RWF_FTEA_UPDATE_ENTRY, "Update"),
      N(RWF_FTEA_SET_ENTRY, "Set"), N(RWF_FTEA_CLEAR_ENTRY, "Clear"));

TABLE(rjs_vector_actions, "vector entry action", N(RWF_VTEA_UPDATE_ENTRY, "Update"),
      N(RWF_VTEA_SET_ENTRY, "Set"), N(RWF_VTEA_CLEAR_ENTRY, "Clear"),
      N(RWF_VTEA_INSERT_ENTRY, "Insert"), N(RWF_VTEA_DELETE_ENTRY, "Delete"));

TABLE(rjs_login_name_types, "login name type", N(1, "Name"), N(2, "EmailAddress"), N(3, "Token"),
      N(4, "Cookie"), N(5, "AuthnToken"));

TABLE(rjs_instrument_name_types, "name type", N(0, "Unspecified"), N(1, "Ric"),
      N(2, "Contributor"));

const rjs_name_ent *rjs_name(const rjs_names *t, int value)
{
    for (unsigned i = 0; i < t->count; i++)
        if (t->ents[i].value == value)
            return &t->ents[i];
    return NULL;
}

int rjs_value(const rjs_names *t, const char *s, size_t len)
{
    for (unsigned i = 0; i < t->count; i++)
        if (t->ents[i].len == len && memcmp(t->ents[i].name, s, len) == 0)
            return t->ents[i].value;
    return -1;
}

static const rjs_name_ent container_keys[] = {
    N(RWF_DT_FIELD_LIST, "Fields"),
    N(RWF_DT_ELEMENT_LIST, "Elements"),
    N(RWF_DT_FILTER_LIST, "FilterList"),
    N(RWF_DT_MAP, "Map"),
    N(RWF_DT_VECTOR, "Vector"),
    N(RWF_DT_SERIES, "Series"),
    N(RWF_DT_MSG, "Message"),
    N(RWF_DT_OPAQUE, "Opaque"),
    N(RWF_DT_XML, "Xml"),
    N(RWF_DT_JSON, "Json"),
};

const char *rjs_container_key(int type)
{
    for (unsigned i = 0; i < sizeof(container_keys) / sizeof(container_keys[0]); i++)
        if (container_keys[i].value == type)
            return container_keys[i].name;
    return NULL;
}

int rjs_container_of_key(const char *s, size_t len)
{
    for (unsigned i = 0; i < sizeof(container_keys) / sizeof(container_keys[0]); i++)
        if (container_keys[i].len == len && memcmp(container_keys[i].name, s, len) == 0)
            return container_keys[i].value;
    return -1;
}

/*
 * rwf_rdm: the RDM admin traffic of the perf tools — Login, Source Directory, Dictionary —
 * and the item status messages a provider sends, encoded byte for byte as the ETA RDM
 * encoders do (docs/wire.md#admin-domains, #rejects, #niprovperf) and decoded into what the tools
 * need.
 *
 * Encoders write one whole message through an rwf_enc iterator (so they can be sized,
 * checked once, and packed like any other message). Decoders take a decoded rwf_msg and fill
 * plain structs whose buffers are views into the message: the message bytes must outlive
 * them. Nothing allocates, except applying dictionary messages to an rwf_dict (which copies
 * what it keeps).
 */
#ifndef RWFPERF_RWF_RDM_H
#define RWFPERF_RWF_RDM_H

#include <stdbool.h>
#include <stdint.h>

#include "rwf_dict.h"
#include "rwf_enc.h"
#include "rwf_msg.h"

/* ---- Login ------------------------------------------------------------------------------- */

/* Which optional members of rwf_login are present (encode: to write; decode: found). */
enum {
    RWF_LOGIN_HAS_NAME_TYPE = 0x0001,
    RWF_LOGIN_HAS_APP_ID = 0x0002,
    RWF_LOGIN_HAS_APP_NAME = 0x0004,
    RWF_LOGIN_HAS_POSITION = 0x0008,
    RWF_LOGIN_HAS_PASSWORD = 0x0010,
    RWF_LOGIN_HAS_INSTANCE_ID = 0x0020,
    RWF_LOGIN_HAS_SINGLE_OPEN = 0x0040,
    RWF_LOGIN_HAS_ALLOW_SUSPECT = 0x0080,
    RWF_LOGIN_HAS_ROLE = 0x0100,
    RWF_LOGIN_HAS_SUPPORT_POST = 0x0200,
    RWF_LOGIN_HAS_SUPPORT_BATCH = 0x0400,
    RWF_LOGIN_HAS_SUPPORT_VIEW = 0x0800,
    RWF_LOGIN_HAS_SUPPORT_DICT_DOWNLOAD = 0x1000,
    RWF_LOGIN_HAS_SUPPORT_STANDBY = 0x2000,      /* "SupportStandby" (warm standby) */
    RWF_LOGIN_HAS_SUPPORT_STANDBY_MODE = 0x4000, /* "SupportStandbyMode": 1 login, 2 service */
    RWF_LOGIN_SOLICITED = 0x10000,               /* refresh: solicited */
    RWF_LOGIN_HAS_STATE = 0x20000,               /* decode: a refresh or status carried a state */
    RWF_LOGIN_CLEAR_CACHE = 0x40000,             /* refresh: CLEAR_CACHE (encode and decode) */
};

typedef struct rwf_login {
    int32_t stream_id;
    uint32_t flags;                            /* RWF_LOGIN_* */
    uint8_t msg_class;                         /* decode: REQUEST, REFRESH, STATUS or CLOSE */
    uint8_t name_type;                         /* key name type (USER_NAME 1) */
    rwf_buf user;                              /* key name */
    rwf_state state;                           /* refresh (encode: as given), status */
    rwf_buf app_id;                            /* "ApplicationId" */
    rwf_buf app_name;                          /* "ApplicationName" */
    rwf_buf position;                          /* "Position" */
    rwf_buf password;                          /* "Password" */
    rwf_buf instance_id;                       /* "InstanceId" */
    uint64_t single_open, allow_suspect, role; /* "SingleOpen", "AllowSuspectData", "Role" */
    uint64_t support_post, support_batch, support_view, support_dict_download;
    uint64_t support_standby, support_standby_mode;
} rwf_login;

/* Login request: Request, streaming, no payload, key NAME[|NAME_TYPE]|ATTRIB, attributes in
 * the ETA encoder's order (ApplicationId, ApplicationName, Position, Password, InstanceId,
 * SingleOpen, SupportProviderDictionaryDownload, AllowSuspectData, Role). */
int rwf_rdm_login_request(rwf_enc *e, const rwf_login *l);

/* Login refresh: Refresh, HAS_MSG_KEY [|SOLICITED] | REFRESH_COMPLETE [|CLEAR_CACHE], state,
 * key NAME|ATTRIB, attributes in ETA order (ApplicationId, ApplicationName, Position,
 * SingleOpen, AllowSuspectData, SupportOMMPost, SupportBatchRequests,
 * SupportProviderDictionaryDownload, SupportViewRequests, SupportStandby, SupportStandbyMode). */
int rwf_rdm_login_refresh(rwf_enc *e, const rwf_login *l);

/* Fills out from a Login Request, Refresh, Status or Close (unknown attributes ignored).
 * Returns RWF_OK, or RWF_E_MALFORMED / RWF_E_INVALID (not a login message) with err text. */
int rwf_rdm_login_decode(const rwf_msg *m, rwf_login *out);

/* ---- Source Directory -------------------------------------------------------------------- */

enum { /* filter ids and bits */
       RWF_DIR_INFO_ID = 1,
       RWF_DIR_STATE_ID = 2,
       RWF_DIR_GROUP_ID = 3,
       RWF_DIR_LOAD_ID = 4,
       RWF_DIR_INFO = 0x01,
       RWF_DIR_STATE = 0x02,
       RWF_DIR_GROUP = 0x04,
       RWF_DIR_LOAD = 0x08,
       RWF_DIR_DATA = 0x10,
       RWF_DIR_LINK = 0x20,
};

enum { /* rwf_service.flags: filter entries and their optional elements */
       RWF_SVC_HAS_INFO = 0x0001,
       RWF_SVC_HAS_STATE = 0x0002,
       RWF_SVC_HAS_LOAD = 0x0008,
       RWF_SVC_HAS_VENDOR = 0x0010,
       RWF_SVC_HAS_IS_SOURCE = 0x0020,
       RWF_SVC_HAS_DICTS_PROVIDED = 0x0040,
       RWF_SVC_HAS_DICTS_USED = 0x0080,
       RWF_SVC_HAS_QOS = 0x0100,
       RWF_SVC_HAS_SUPPORT_QOS_RANGE = 0x0200,
       RWF_SVC_HAS_ITEM_LIST = 0x0400,
       RWF_SVC_HAS_SUPPORT_OOB_SNAPSHOTS = 0x0800,
       RWF_SVC_HAS_ACCEPTING_CONS_STATUS = 0x1000,
       RWF_SVC_HAS_ACCEPTING_REQS = 0x2000,
       RWF_SVC_HAS_STATUS = 0x4000,
       RWF_SVC_HAS_OPEN_LIMIT = 0x8000,
       RWF_SVC_HAS_OPEN_WINDOW = 0x10000,
       RWF_SVC_HAS_LOAD_FACTOR = 0x20000,
       RWF_SVC_HAS_NAME = 0x40000, /* decode: the Info filter carried Name */
};

#define RWF_SVC_MAX_LIST 16

typedef struct rwf_service {
    uint16_t id;
    uint8_t action; /* map entry action (RWF_MPEA_ADD_ENTRY ...) */
    uint32_t flags; /* RWF_SVC_* */
    /* Info (filter entry 1) */
    rwf_buf name, vendor, item_list;
    uint64_t is_source, supports_qos_range, supports_oob_snapshots, accepting_consumer_status;
    uint64_t capabilities[RWF_SVC_MAX_LIST];
    unsigned capability_count;
    rwf_buf dicts_provided[RWF_SVC_MAX_LIST];
    unsigned dicts_provided_count;
    rwf_buf dicts_used[RWF_SVC_MAX_LIST];
    unsigned dicts_used_count;
    rwf_qos qos[RWF_SVC_MAX_LIST];
    unsigned qos_count;
    /* State (filter entry 2) */
    uint64_t service_state, accepting_requests;
    rwf_state status;
    /* Load (filter entry 4) */
    uint64_t open_limit, open_window, load_factor;
} rwf_service;

/* Directory request: Request, streaming, no payload, key FILTER [|SERVICE_ID]. */
int rwf_rdm_directory_request(rwf_enc *e, int32_t stream_id, uint32_t filter, int has_service_id,
                              uint16_t service_id);

typedef struct rwf_directory {
    int32_t stream_id;
    uint32_t filter;    /* key filter */
    int has_service_id; /* key SERVICE_ID (NIProvPerf) */
    uint16_t service_id;
    int solicited;   /* refresh SOLICITED (ProvPerf: yes; NIProvPerf: no) */
    int clear_cache; /* refresh CLEAR_CACHE */
    rwf_state state;
    const rwf_service *services;
    unsigned service_count;
} rwf_directory;

/* Directory refresh: Refresh, HAS_MSG_KEY [|SOLICITED] | REFRESH_COMPLETE [|CLEAR_CACHE], Map
 * (UINT service id -> FilterList of ElementLists): Info, State, Load entries as the services
 * say, elements in the ETA encoder's order. List counts above RWF_SVC_MAX_LIST are cut to it. */
int rwf_rdm_directory_refresh(rwf_enc *e, const rwf_directory *d);

/* Fills services[0..max) from a Directory Refresh or Update (*count = services found, at most
 * max). Filter entries not understood are ignored; lists beyond RWF_SVC_MAX_LIST items are cut.
 * Returns RWF_OK or an error with err text. */
int rwf_rdm_directory_decode(const rwf_msg *m, rwf_service *services, unsigned max,
                             unsigned *count);

/* ---- Dictionary -------------------------------------------------------------------------- */

enum {
    RWF_DICT_FIELD_DEFINITIONS = 1, /* "Type" 1: RDMFieldDictionary */
    RWF_DICT_ENUM_TABLES = 2,       /* "Type" 2: enumtype.def */
};

enum { /* verbosity (the request key's filter) */
       RWF_DICT_INFO = 0x00,
       RWF_DICT_MINIMAL = 0x03,
       RWF_DICT_NORMAL = 0x07,
       RWF_DICT_VERBOSE = 0x0F,
};

/* Dictionary request: Request, streaming, no payload, key SERVICE_ID | NAME | FILTER. */
int rwf_rdm_dictionary_request(rwf_enc *e, int32_t stream_id, uint16_t service_id, rwf_buf name,
                               uint32_t verbosity);

typedef struct rwf_dict_request {
    int32_t stream_id;
    uint16_t service_id;
    rwf_buf name;
    uint32_t verbosity;
    int streaming;
} rwf_dict_request;

/* Reads a decoded dictionary request: stream, service id, name (a view into m's key, valid
 * while m's bytes are), verbosity (the key's filter, RWF_DICT_NORMAL when absent), streaming.
 * Returns RWF_OK, RWF_E_INVALID when m is not a Request on the DICTIONARY domain, or
 * RWF_E_MALFORMED when its key has no name; err_msg() says which. */
int rwf_rdm_dictionary_request_decode(const rwf_msg *m, rwf_dict_request *out);

/* Returned by rwf_rdm_dictionary_refresh while parts remain. */
enum { RWF_PART_MORE = 4 };

typedef struct rwf_dict_refresh {
    int32_t stream_id;
    rwf_buf name;       /* "RWFFld" / "RWFEnum" */
    uint32_t verbosity; /* RWF_DICT_* */
    uint16_t service_id;
    int solicited;
    int type; /* RWF_DICT_FIELD_DEFINITIONS or RWF_DICT_ENUM_TABLES */
} rwf_dict_refresh;

/* One part of a dictionary refresh. The caller sizes the encoder to the part size it wants
 * (ProvPerf: maxFragmentSize for fields, 128000 for enums) and calls again with the same
 * *next until the function returns RWF_OK (the last part, with REFRESH_COMPLETE); it returns
 * RWF_PART_MORE while parts remain, or the encoder's error (a part size too small for one
 * entry: RWF_E_NOSPACE). *next starts at 0 and is otherwise opaque (where the next part
 * continues). Refresh: HAS_MSG_KEY [|SOLICITED], state OPEN/OK/NONE, key NAME|FILTER|SERVICE_ID
 * (name, filter = verbosity, service_id), payload a Series of set-defined ElementLists exactly
 * as the ETA dictionary encoders write it. d is only read. */
int rwf_rdm_dictionary_refresh(rwf_enc *e, const rwf_dict_refresh *r, const rwf_dict *d,
                               int32_t *next);

/* Adds the content of one dictionary refresh part to d (fields or enum tables, the info of the
 * summary data). *type receives RWF_DICT_FIELD_DEFINITIONS / RWF_DICT_ENUM_TABLES when the part
 * says (first part), and is used to read later parts. Returns RWF_OK, RWF_E_MALFORMED,
 * RWF_E_INVALID (a field defined twice...) or RWF_E_NOMEM with err text. */
int rwf_rdm_dictionary_apply(rwf_dict *d, const rwf_msg *m, int *type);

/* Dictionary request reject: Status, CLOSED / SUSPECT / INVALID_ARGUMENT,
 * "Unknown dictionary name." */
int rwf_rdm_dictionary_reject(rwf_enc *e, int32_t stream_id);

/* ---- Item status ------------------------------------------------------------------------- */

enum {                            /* item request rejects (docs/wire.md#rejects) */
       RWF_REJECT_ITEM_COUNT = 1, /* CLOSED_RECOVER / SUSPECT / TOO_MANY_ITEMS */
       RWF_REJECT_SERVICE_ID,     /* CLOSED / SUSPECT / USAGE_ERROR */
       RWF_REJECT_QOS,            /* CLOSED / SUSPECT / USAGE_ERROR */
       RWF_REJECT_ALREADY_OPEN,   /* CLOSED_RECOVER / SUSPECT / ALREADY_OPEN */
       RWF_REJECT_STREAM_IN_USE,  /* CLOSED_RECOVER / SUSPECT / USAGE_ERROR */
       RWF_REJECT_DOMAIN,         /* CLOSED / SUSPECT / USAGE_ERROR */
};

/* Item request reject: Status, HAS_STATE, no payload, the state of the reason and the text
 * ProvPerf sends ("Item request rejected for stream id 5 - service id invalid"), with its
 * trailing NUL counted in the text length. */
int rwf_rdm_item_reject(rwf_enc *e, int32_t stream_id, uint8_t domain, int reason);

/* Text of a reject (without the NUL) into buf; returns its length. */
int rwf_rdm_item_reject_text(int32_t stream_id, uint8_t domain, int reason, char *buf, size_t cap);

/* Item close by the provider: Status, CLOSED / SUSPECT / NONE, "Stream closed". */
int rwf_rdm_item_close_status(rwf_enc *e, int32_t stream_id, uint8_t domain);

/* ---- Warm standby ------------------------------------------------------------------------ */

/* The role a warm-standby consumer gives a server (WarmStandbyMode). */
enum { RWF_WSB_ACTIVE = 0, RWF_WSB_STANDBY = 1 };

enum {                          /* rwf_wsb.kind */
       RWF_WSB_CONN_STATUS = 1, /* login stream: "ConsumerConnectionStatus" (login based) */
       RWF_WSB_CONSUMER_STATUS, /* directory stream: "ConsumerStatus" (service based) */
};

/* A consumer's warm-standby generic message, decoded. kind 0: the message is not one. */
typedef struct rwf_wsb {
    int kind;            /* RWF_WSB_CONN_STATUS, RWF_WSB_CONSUMER_STATUS or 0 */
    bool has_mode;       /* an entry carried WarmStandbyMode (not a DELETE) */
    uint64_t mode;       /* RWF_WSB_ACTIVE or RWF_WSB_STANDBY */
    uint16_t service_id; /* CONSUMER_STATUS: the entry's service */
} rwf_wsb;

/* Login-based role: Generic, LOGIN, HAS_MSG_KEY, key NAME "ConsumerConnectionStatus", a Map
 * (ASCII keys, ElementList entries) with one ADD entry "WarmStandbyInfo" holding the element
 * WarmStandbyMode UINT mode. (85 bytes for stream 1: docs/wire.md#warm-standby-messages.) */
int rwf_rdm_wsb_conn_status(rwf_enc *e, int32_t stream_id, uint64_t mode);

/* Service-based role of one service: Generic, SOURCE, HAS_MSG_KEY, key NAME "ConsumerStatus",
 * a Map (UINT keys, ElementList entries) with one ADD entry keyed by the service id holding
 * WarmStandbyMode UINT mode. (61 bytes for stream 2, service 1:
 * docs/wire.md#warm-standby-messages.) */
int rwf_rdm_wsb_consumer_status(rwf_enc *e, int32_t stream_id, uint16_t service_id, uint64_t mode);

/* Decodes either message into out (out->kind 0 when m is neither: another generic message).
 * The first entry carrying WarmStandbyMode gives mode and service. Returns RWF_OK, or
 * RWF_E_MALFORMED with err text saying what was wrong. */
int rwf_rdm_wsb_decode(const rwf_msg *m, rwf_wsb *out);

#endif

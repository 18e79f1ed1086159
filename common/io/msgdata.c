/*
 * msgdata: MsgData.xml -> pre-encoded templates. See msgdata.h.
 *
 * The file is small (a few hundred lines), so it is read whole with libxml2's tree parser and
 * walked once. Each message's entries are parsed into values, encoded with rwf_enc into a
 * scratch buffer, and the entry bytes copied into the msgdata's own memory.
 *
 * Differences from the ETA tools' parser, all on input those tools mishandle:
 *   - values must parse completely and fit their type (ETA's sscanf accepts "-1" as a UINT
 *     and wraps enums above 65535); fieldId and setId must be numbers in range;
 *   - qosDynamic sets the QoS's dynamic flag (ETA writes it into the rate);
 *   - a marketByOrderMsgList needs exactly one refreshMsg, like a marketPriceMsgList (ETA
 *     checks only the latter); a list may appear once;
 *   - a mapEntry's fieldList setId selects that set definition (HAS_SET_ID when it is not 0);
 *     ETA always encodes with set 0 — the same bytes for the setId 0 its samples use. A setId
 *     with no fieldSetDefs in the map is ignored (standard data), as in ETA; a setId the
 *     map's fieldSetDefs do not define is an error;
 *   - a DELETE mapEntry carries no data on the wire, so its fieldList may be left out (its
 *     fields, when present, are validated but not encoded);
 *   - fieldSetDefEntry fields must exist in the dictionary with the base type of their set
 *     type.
 */
#include "msgdata.h"

#include "err.h"
#include "rwf_types.h"

#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <limits.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Memory: blocks that never move, freed together ------------------------------------- */

typedef struct mem_block {
    struct mem_block *next;
    alignas(max_align_t) unsigned char data[];
} mem_block;

static void *md_alloc(msgdata *md, size_t size)
{
    mem_block *b = malloc(sizeof(*b) + (size ? size : 1));
    if (!b) {
        err_set("out of memory");
        return NULL;
    }
    b->next = md->mem;
    md->mem = b;
    return b->data;
}

static void *md_copy(msgdata *md, const void *p, size_t len)
{
    void *q = md_alloc(md, len);
    if (q && len)
        memcpy(q, p, len);
    return q;
}

/* ---- What the ETA parser's memory block would hold --------------------------------------
 * The ETA tools carve their parsed messages out of one block (6000 bytes, doubled and the
 * parse restarted until everything fits) and print how much of it is left. Reproducing the
 * number needs the sizes of their x86-64 structures and the order of their reservations,
 * which the walk below records. */

enum {
    ETA_MP_MSG = 24,       /* MarketPriceMsg */
    ETA_MBO_MSG = 32,      /* MarketByOrderMsg */
    ETA_FIELD = 56,        /* MarketField: RsslFieldEntry + RsslPrimitive + RsslBool */
    ETA_ORDER = 104,       /* MarketOrder */
    ETA_SET_DB = 272,      /* RsslLocalFieldSetDefDb */
    ETA_SET_ENTRY = 4,     /* RsslFieldSetDefEntry */
    ETA_FIRST_BLOCK = 6000 /* first block size */
};

typedef struct eta_reserve {
    uint32_t count, size;
} eta_reserve;

typedef struct eta_trace {
    eta_reserve *v;
    size_t n, cap;
    bool oom;
} eta_trace;

static void eta_note(eta_trace *t, uint32_t count, uint32_t size)
{
    if (t->oom)
        return;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        eta_reserve *v = realloc(t->v, cap * sizeof(*v));
        if (!v) {
            t->oom = true;
            return;
        }
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = (eta_reserve){count, size};
}

/* Replays the reservations into a block of cap bytes (16-aligned, as malloc gives): false when
 * one fails, else the bytes left in *left. Same rules as the ETA allocator: the position is
 * aligned to min(size rounded up to a power of two, 8), and a reservation needs strictly more
 * room than it takes. */
static bool eta_replay(const eta_trace *t, uint64_t cap, uint64_t *left)
{
    uint64_t pos = 0, len = cap;
    for (size_t i = 0; i < t->n; i++) {
        uint64_t size = t->v[i].size, mask;
        if (size >= 8) {
            mask = 7;
        } else {
            mask = size - 1;
            mask |= mask >> 1;
            mask |= mask >> 2;
        }
        if (pos & mask) {
            uint64_t aligned = (pos & ~mask) + mask + 1;
            if (aligned - pos >= len)
                return false;
            len -= aligned - pos;
            pos = aligned;
        }
        uint64_t total = (uint64_t)t->v[i].count * size;
        if (total >= len)
            return false;
        len -= total;
        pos += total;
    }
    *left = len;
    return true;
}

static uint32_t eta_memory(const eta_trace *t)
{
    uint64_t cap = ETA_FIRST_BLOCK, left = 0;
    while (!eta_replay(t, cap, &left) && cap < ((uint64_t)1 << 40))
        cap *= 2;
    return left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
}

/* ---- The walk ----------------------------------------------------------------------------- */

typedef struct parser {
    const char *name; /* the file, for errors */
    const rwf_dict *dict;
    msgdata *md;
    eta_trace trace;
} parser;

/* One parsed fieldEntry. */
typedef struct field {
    int16_t fid;
    uint8_t type;
    bool blank;
    int line;
    rwf_value v;
    xmlChar *text; /* owns the string a buffer/state value points into */
} field;

static int node_line(const xmlNode *n)
{
    return n ? (int)xmlGetLineNo((xmlNode *)n) : 0;
}

ERR_PRINTF(3, 4)
static int perr(const parser *p, const xmlNode *n, const char *fmt, ...)
{
    char text[ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return err_set("%s:%d: %s", p->name, node_line(n), text);
}

/* Prefixes the current error text with the place: "<file>:<line>: <text>". */
static int locate(const parser *p, const xmlNode *n)
{
    return err_push("%s:%d", p->name, node_line(n));
}

static const char *tname(int type)
{
    const char *n = rwf_type_name(type);
    return n ? n : "?";
}

static bool is_elem(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* The first child element called name, or NULL. */
static xmlNode *child(const xmlNode *n, const char *name)
{
    for (xmlNode *c = n->children; c; c = c->next)
        if (is_elem(c, name))
            return c;
    return NULL;
}

/* Children called name, of any node type (the ETA parser counts this way). */
static uint32_t count_named(const xmlNode *n, const char *name)
{
    uint32_t k = 0;
    for (xmlNode *c = n->children; c; c = c->next)
        if (c->name && strcmp((const char *)c->name, name) == 0)
            k++;
    return k;
}

static uint32_t count_elems(const xmlNode *n, const char *name)
{
    uint32_t k = 0;
    for (xmlNode *c = n->children; c; c = c->next)
        if (is_elem(c, name))
            k++;
    return k;
}

/* Attribute value (caller frees with xmlFree), or NULL when absent. */
static char *attr(const xmlNode *n, const char *name)
{
    return (char *)xmlGetProp((xmlNode *)n, (const xmlChar *)name);
}

typedef struct name_value {
    const char *name;
    int value;
} name_value;

static const name_value map_actions[] = {
    {"RSSL_MPEA_UPDATE_ENTRY", RWF_MPEA_UPDATE_ENTRY},
    {"RSSL_MPEA_ADD_ENTRY", RWF_MPEA_ADD_ENTRY},
    {"RSSL_MPEA_DELETE_ENTRY", RWF_MPEA_DELETE_ENTRY},
    {NULL, 0},
};

static const name_value qos_times[] = {
    {"RSSL_QOS_TIME_UNSPECIFIED", RWF_QOS_TIME_UNSPECIFIED},
    {"RSSL_QOS_TIME_REALTIME", RWF_QOS_TIME_REALTIME},
    {"RSSL_QOS_TIME_DELAYED_UNKNOWN", RWF_QOS_TIME_DELAYED_UNKNOWN},
    {"RSSL_QOS_TIME_DELAYED", RWF_QOS_TIME_DELAYED},
    {NULL, 0},
};

static const name_value qos_rates[] = {
    {"RSSL_QOS_RATE_UNSPECIFIED", RWF_QOS_RATE_UNSPECIFIED},
    {"RSSL_QOS_RATE_TICK_BY_TICK", RWF_QOS_RATE_TICK_BY_TICK},
    {"RSSL_QOS_RATE_JIT_CONFLATED", RWF_QOS_RATE_JIT_CONFLATED},
    {"RSSL_QOS_RATE_TIME_CONFLATED", RWF_QOS_RATE_TIME_CONFLATED},
    {NULL, 0},
};

static const name_value stream_states[] = {
    {"RSSL_STREAM_UNSPECIFIED", RWF_STREAM_UNSPECIFIED},
    {"RSSL_STREAM_OPEN", RWF_STREAM_OPEN},
    {"RSSL_STREAM_NON_STREAMING", RWF_STREAM_NON_STREAMING},
    {"RSSL_STREAM_CLOSED_RECOVER", RWF_STREAM_CLOSED_RECOVER},
    {"RSSL_STREAM_CLOSED", RWF_STREAM_CLOSED},
    {"RSSL_STREAM_REDIRECTED", RWF_STREAM_REDIRECTED},
    {NULL, 0},
};

static const name_value data_states[] = {
    {"RSSL_DATA_NO_CHANGE", RWF_DATA_NO_CHANGE},
    {"RSSL_DATA_OK", RWF_DATA_OK},
    {"RSSL_DATA_SUSPECT", RWF_DATA_SUSPECT},
    {NULL, 0},
};

static const name_value state_codes[] = {
    {"RSSL_SC_NONE", RWF_SC_NONE},
    {"RSSL_SC_NOT_FOUND", RWF_SC_NOT_FOUND},
    {"RSSL_SC_TIMEOUT", RWF_SC_TIMEOUT},
    {"RSSL_SC_NOT_ENTITLED", RWF_SC_NOT_ENTITLED},
    {"RSSL_SC_INVALID_ARGUMENT", RWF_SC_INVALID_ARGUMENT},
    {"RSSL_SC_USAGE_ERROR", RWF_SC_USAGE_ERROR},
    {"RSSL_SC_PREEMPTED", RWF_SC_PREEMPTED},
    {"RSSL_SC_JIT_CONFLATION_STARTED", RWF_SC_JIT_CONFLATION_STARTED},
    {"RSSL_SC_REALTIME_RESUMED", RWF_SC_REALTIME_RESUMED},
    {"RSSL_SC_FAILOVER_STARTED", RWF_SC_FAILOVER_STARTED},
    {"RSSL_SC_FAILOVER_COMPLETED", RWF_SC_FAILOVER_COMPLETED},
    {"RSSL_SC_GAP_DETECTED", RWF_SC_GAP_DETECTED},
    {"RSSL_SC_NO_RESOURCES", RWF_SC_NO_RESOURCES},
    {"RSSL_SC_TOO_MANY_ITEMS", RWF_SC_TOO_MANY_ITEMS},
    {"RSSL_SC_ALREADY_OPEN", RWF_SC_ALREADY_OPEN},
    {"RSSL_SC_SOURCE_UNKNOWN", RWF_SC_SOURCE_UNKNOWN},
    {"RSSL_SC_NOT_OPEN", RWF_SC_NOT_OPEN},
    {"RSSL_SC_NON_UPDATING_ITEM", RWF_SC_NON_UPDATING_ITEM},
    {"RSSL_SC_UNSUPPORTED_VIEW_TYPE", RWF_SC_UNSUPPORTED_VIEW_TYPE},
    {"RSSL_SC_INVALID_VIEW", RWF_SC_INVALID_VIEW},
    {"RSSL_SC_FULL_VIEW_PROVIDED", RWF_SC_FULL_VIEW_PROVIDED},
    {"RSSL_SC_UNABLE_TO_REQUEST_AS_BATCH", RWF_SC_UNABLE_TO_REQUEST_AS_BATCH},
    {"RSSL_SC_MAX_RESERVED", 127},
    {"RSSL_SC_NO_BATCH_VIEW_SUPPORT_IN_REQ", RWF_SC_NO_BATCH_VIEW_SUPPORT_IN_REQ},
    {"RSSL_SC_EXCEEDED_MAX_MOUNTS_PER_USER", RWF_SC_EXCEEDED_MAX_MOUNTS_PER_USER},
    {"RSSL_SC_ERROR", RWF_SC_ERROR},
    {"RSSL_SC_DACS_DOWN", RWF_SC_DACS_DOWN},
    {"RSSL_SC_USER_UNKNOWN_TO_PERM_SYS", RWF_SC_USER_UNKNOWN_TO_PERM_SYS},
    {"RSSL_SC_DACS_MAX_LOGINS_REACHED", RWF_SC_DACS_MAX_LOGINS_REACHED},
    {"RSSL_SC_DACS_USER_ACCESS_TO_APP_DENIED", RWF_SC_DACS_USER_ACCESS_TO_APP_DENIED},
    {"RSSL_SC_GAP_FILL", RWF_SC_GAP_FILL},
    {"RSSL_SC_APP_AUTHORIZATION_FAILED", RWF_SC_APP_AUTHORIZATION_FAILED},
    {NULL, 0},
};

/* The attributes that give a QoS or State value, with their names and largest numbers. */
typedef struct attr_spec {
    const char *name;
    const name_value *names;
    long max;
} attr_spec;

static const name_value no_names[] = {{NULL, 0}};

static const attr_spec qos_attrs[] = {
    {"qosTimeliness", qos_times, 7},  {"qosRate", qos_rates, 15},       {"qosDynamic", no_names, 1},
    {"qosTimeInfo", no_names, 65535}, {"qosRateInfo", no_names, 65535}, {NULL, NULL, 0},
};

static const attr_spec state_attrs[] = {
    {"streamState", stream_states, 31},
    {"dataState", data_states, 7},
    {"code", state_codes, 127},
    {NULL, NULL, 0},
};

/* A data type by its name ("RSSL_DT_...", the codec's table: rwf_type_from_name) or its
 * number 0..255. Returns the type or -1. */
static long type_of(const char *s)
{
    if (strncmp(s, "RSSL_DT_", 8) == 0)
        return rwf_type_from_name(s);
    uint64_t v;
    if (s[0] && rwf_uint_from_str(&v, s, strlen(s)) == RWF_OK && v <= 255)
        return (long)v;
    return -1;
}

/* A name of the table, or a decimal number 0..max (as the ETA parser also accepts).
 * Returns the value or -1. */
static long name_or_number(const name_value *t, const char *s, long max)
{
    for (; t->name; t++)
        if (strcmp(s, t->name) == 0)
            return t->value;
    uint64_t v;
    if (s[0] && rwf_uint_from_str(&v, s, strlen(s)) == RWF_OK && v <= (uint64_t)max)
        return (long)v;
    return -1;
}

/* A decimal integer attribute in [lo, hi]. Returns 0, or an error naming the attribute. */
static int int_attr(const parser *p, const xmlNode *n, const char *name, long lo, long hi,
                    bool required, long *out)
{
    char *s = attr(n, name);
    if (!s) {
        if (required)
            return perr(p, n, "<%s> has no %s attribute", (const char *)n->name, name);
        return 0;
    }
    int64_t v;
    int rc = 0;
    if (!s[0] || rwf_int_from_str(&v, s, strlen(s)) != RWF_OK || v < lo || v > hi)
        rc = perr(p, n, "%s \"%s\" is not a number from %ld to %ld", name, s, lo, hi);
    else
        *out = (long)v;
    xmlFree(s);
    return rc;
}

/* Parses the value of a fieldEntry of type f->type from its attributes. */
static int parse_value(const parser *p, const xmlNode *n, field *f)
{
    char *data = attr(n, "data");
    int rc = RWF_OK;
    size_t len = data ? strlen(data) : 0;
    rwf_value *v = &f->v;
    v->type = f->type;

    if (f->type == RWF_DT_QOS || f->type == RWF_DT_STATE) {
        /* Attributes carry the value; data, when present, must be empty and means blank. */
        if (data) {
            if (len)
                rc = perr(p, n,
                          "field %d: a %s value is given by attributes; data must be "
                          "empty (blank) or absent",
                          f->fid, tname(f->type));
            else
                f->blank = true;
            xmlFree(data);
            return rc;
        }
        const attr_spec *spec = f->type == RWF_DT_QOS ? qos_attrs : state_attrs;
        long val[5] = {0, 0, 0, 0, 0};
        for (int i = 0; spec[i].name; i++) {
            char *s = attr(n, spec[i].name);
            if (!s)
                continue;
            val[i] = name_or_number(spec[i].names, s, spec[i].max);
            if (val[i] < 0)
                rc = perr(p, n, "field %d: %s \"%s\" is not valid", f->fid, spec[i].name, s);
            xmlFree(s);
            if (rc < 0)
                return rc;
        }
        if (f->type == RWF_DT_QOS) {
            v->qos = (rwf_qos){.timeliness = (uint8_t)val[0],
                               .rate = (uint8_t)val[1],
                               .dynamic = (uint8_t)val[2],
                               .time_info = (uint16_t)val[3],
                               .rate_info = (uint16_t)val[4]};
        } else {
            v->state = (rwf_state){.stream_state = (uint8_t)val[0],
                                   .data_state = (uint8_t)val[1],
                                   .code = (uint8_t)val[2]};
            f->text = (xmlChar *)attr(n, "text");
            if (f->text)
                v->state.text = rwf_buf_cstr((const char *)f->text);
        }
        return RWF_OK;
    }

    if (!data)
        return perr(p, n, "field %d has no data attribute", f->fid);
    if (f->type >= RWF_DT_BUFFER && f->type <= RWF_DT_RMTES_STRING) {
        /* Taken literally; "" is an empty (blank) string. */
        f->text = (xmlChar *)data;
        v->buf = rwf_buf_make(data, len);
        f->blank = len == 0;
        return RWF_OK;
    }
    if (len == 0) {
        f->blank = true;
        xmlFree(data);
        return RWF_OK;
    }
    int r;
    switch (f->type) {
    case RWF_DT_INT:
        r = rwf_int_from_str(&v->i, data, len);
        break;
    case RWF_DT_UINT:
        r = rwf_uint_from_str(&v->u, data, len);
        break;
    case RWF_DT_ENUM:
        r = rwf_enum_from_str(&v->enm, data, len);
        break;
    case RWF_DT_FLOAT:
    case RWF_DT_DOUBLE: {
        char *end;
        errno = 0;
        double d = strtod(data, &end);
        r = (end == data || *end || errno == ERANGE) ? RWF_E_INVALID : RWF_OK;
        if (f->type == RWF_DT_FLOAT)
            v->f = (float)d;
        else
            v->d = d;
        break;
    }
    case RWF_DT_REAL:
        r = rwf_real_from_str(&v->real, data, len);
        break;
    case RWF_DT_DATE:
        r = rwf_date_from_str(&v->date, data, len);
        break;
    case RWF_DT_TIME:
        r = rwf_time_from_str(&v->time, data, len);
        break;
    case RWF_DT_DATETIME:
        r = rwf_datetime_from_str(&v->datetime, data, len);
        break;
    default:
        r = RWF_E_INVALID;
        break;
    }
    if (r == RWF_BLANK)
        f->blank = true;
    else if (r < 0)
        rc = perr(p, n, "field %d: \"%s\" is not a valid %s", f->fid, data, tname(f->type));
    xmlFree(data);
    return rc;
}

/* Parses a fieldEntry: fieldId, reserved fields, dataType, dictionary, value — in the order
 * the ETA parser checks them, so the first problem reported is the same. */
static int parse_field(parser *p, const xmlNode *n, field *f)
{
    long fid = 0;
    memset(f, 0, sizeof(*f));
    f->line = node_line(n);
    if (int_attr(p, n, "fieldId", INT16_MIN, INT16_MAX, true, &fid) < 0)
        return -1;
    f->fid = (int16_t)fid;
    if (fid == RWF_FID_TIM_TRK_1 || fid == RWF_FID_TIM_TRK_2 || fid == RWF_FID_TIM_TRK_3)
        return perr(p, n,
                    "field %ld is reserved for the latency stamps (TIM_TRK_1..3) and not "
                    "allowed in message data",
                    fid);
    char *dt = attr(n, "dataType");
    if (!dt)
        return perr(p, n, "field %ld has no dataType attribute", fid);
    long type = type_of(dt);
    if (type < 0 || !(type == RWF_DT_INT || type == RWF_DT_UINT || type == RWF_DT_FLOAT ||
                      type == RWF_DT_DOUBLE || (type >= RWF_DT_REAL && type <= RWF_DT_ENUM) ||
                      (type >= RWF_DT_BUFFER && type <= RWF_DT_RMTES_STRING))) {
        perr(p, n, "field %ld: dataType \"%s\" is not a primitive type name", fid, dt);
        xmlFree(dt);
        return -1;
    }
    xmlFree(dt);
    f->type = (uint8_t)type;
    int dict_type = rwf_dict_type(p->dict, f->fid);
    if (!dict_type)
        return perr(p, n, "field %ld is not in the dictionary", fid);
    if (dict_type != type)
        return perr(p, n, "field %ld: dataType mismatch with dictionary (%s instead of %s)", fid,
                    tname((int)type), tname(dict_type));
    if (parse_value(p, n, f) < 0)
        return -1;
    /* The ETA parser copies string values (and state texts) into its block. */
    if (f->type >= RWF_DT_BUFFER && f->type <= RWF_DT_RMTES_STRING)
        eta_note(&p->trace, f->v.buf.len + 1, 1);
    else if (f->type == RWF_DT_STATE && !f->blank && f->text)
        eta_note(&p->trace, f->v.state.text.len + 1, 1);
    return 0;
}

static void free_fields(field *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].text)
            xmlFree(v[i].text);
    free(v);
}

/* The ETA tools' payload estimate for a field list: 1 + per field 2 + the size of the value's
 * structure in their API on x86-64 (+ the bytes of strings and state texts). */
static uint32_t estimate_fields(const field *v, size_t n)
{
    uint32_t len = 1;
    for (size_t i = 0; i < n; i++) {
        len += 2;
        switch (v[i].type) {
        case RWF_DT_INT:
        case RWF_DT_UINT:
        case RWF_DT_DOUBLE:
            len += 8;
            break;
        case RWF_DT_FLOAT:
        case RWF_DT_DATE:
            len += 4;
            break;
        case RWF_DT_REAL:
            len += 16;
            break;
        case RWF_DT_TIME:
            len += 10;
            break;
        case RWF_DT_DATETIME:
            len += 14;
            break;
        case RWF_DT_QOS:
            len += 8;
            break;
        case RWF_DT_STATE:
            len += 24 + (v[i].blank ? 0 : v[i].v.state.text.len);
            break;
        case RWF_DT_ENUM:
            len += 2;
            break;
        default: /* buffers */
            len += 16 + v[i].v.buf.len;
            break;
        }
    }
    return len;
}

/* Parses the fieldEntry children of a fieldList into *out (caller frees with free_fields). */
static int parse_fields(parser *p, const xmlNode *list, field **out, size_t *n)
{
    size_t count = 0;
    for (xmlNode *c = list->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (!is_elem(c, "fieldEntry"))
            return perr(p, c, "fieldList contains an unknown element <%s>", (const char *)c->name);
        count++;
    }
    field *v = calloc(count ? count : 1, sizeof(*v));
    if (!v)
        return err_set("%s: out of memory", p->name);
    eta_note(&p->trace, (uint32_t)count, ETA_FIELD);
    size_t i = 0;
    for (xmlNode *c = list->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (parse_field(p, c, &v[i]) < 0) {
            free_fields(v, i + 1);
            return -1;
        }
        i++;
    }
    if (count > 0xFFFF) {
        free_fields(v, count);
        return perr(p, list, "fieldList holds %zu entries, more than 65535", count);
    }
    *out = v;
    *n = count;
    return 0;
}

/* Room any encoding of these fields needs, with headers and stamps. */
static size_t fields_room(const field *v, size_t n)
{
    size_t room = 64;
    for (size_t i = 0; i < n; i++)
        room += 8 + (v[i].blank ? 1 : rwf_value_max_size(&v[i].v));
    return room;
}

/* Writes the fields into the open FieldList, each error located at its field's line. */
static int encode_fields(parser *p, rwf_enc *e, const field *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (rwf_enc_fl_slow(e, v[i].fid, v[i].blank ? NULL : &v[i].v) < 0)
            return err_push("%s:%d: field %d", p->name, v[i].line, v[i].fid);
    }
    return 0;
}

/* A MarketPrice message: dataBody/fieldList -> field entries. */
static int parse_mp_body(parser *p, const xmlNode *body, msgdata_msg *m)
{
    const xmlNode *list = child(body, "fieldList");
    if (!list)
        return perr(p, body, "dataBody has no <fieldList>");
    field *v;
    size_t n;
    if (parse_fields(p, list, &v, &n) < 0)
        return -1;
    size_t room = fields_room(v, n);
    uint8_t *buf = malloc(room);
    int rc = -1;
    if (!buf) {
        err_set("%s: out of memory", p->name);
    } else {
        rwf_enc e;
        size_t len;
        rwf_enc_init(&e, buf, room);
        rwf_enc_fl_begin_std(&e);
        if (encode_fields(p, &e, v, n) == 0) {
            rwf_enc_fl_end(&e);
            if (rwf_enc_finish(&e, &len) < 0) {
                locate(p, list);
            } else {
                /* Skip the FieldList header: flags (1) and entry count (2). */
                m->entries_len = (uint32_t)(len - 3);
                m->entries = md_copy(p->md, buf + 3, m->entries_len);
                m->count = (uint16_t)n;
                m->estimated_len = estimate_fields(v, n);
                rc = m->entries ? 0 : -1;
            }
        }
    }
    free(buf);
    free_fields(v, n);
    return rc;
}

/* fieldSetDefs -> a set database in md's memory. */
static int parse_set_defs(parser *p, const xmlNode *defs, rwf_set_db **out)
{
    rwf_set_db *db = md_alloc(p->md, sizeof(*db));
    if (!db)
        return -1;
    rwf_set_db_init(db, RWF_DT_FIELD_LIST);
    for (xmlNode *d = defs->children; d; d = d->next) {
        if (d->type != XML_ELEMENT_NODE)
            continue;
        if (!is_elem(d, "fieldSetDef"))
            return perr(p, d, "fieldSetDefs contains an unknown element <%s>",
                        (const char *)d->name);
        long id = 0;
        if (int_attr(p, d, "setId", 0, RWF_SET_MAX_ID, true, &id) < 0)
            return -1;
        if (db->defs[id].used)
            return perr(p, d, "set %ld is defined twice", id);
        uint32_t count = count_elems(d, "fieldSetDefEntry");
        if (count == 0 || count > 255)
            return perr(p, d, "set %ld has %u entries (1 to 255 allowed)", id, count);
        rwf_set_entry *entries = md_alloc(p->md, count * sizeof(*entries));
        if (!entries)
            return -1;
        uint32_t k = 0;
        for (xmlNode *c = d->children; c; c = c->next) {
            if (c->type != XML_ELEMENT_NODE)
                continue;
            if (!is_elem(c, "fieldSetDefEntry"))
                return perr(p, c, "fieldSetDef contains an unknown element <%s>",
                            (const char *)c->name);
            long fid = 0;
            if (int_attr(p, c, "fieldId", INT16_MIN, INT16_MAX, true, &fid) < 0)
                return -1;
            char *dt = attr(c, "dataType");
            if (!dt)
                return perr(p, c, "fieldSetDefEntry has no dataType attribute");
            long type = type_of(dt);
            int base = type < 0 ? -1 : rwf_base_type((int)type);
            bool ok = type >= 0 && (rwf_set_type_size((int)type) >= 0) && type != RWF_DT_ARRAY &&
                      (type < RWF_DT_DATETIME_11 || type > RWF_DT_TIME_8);
            if (!ok) {
                perr(p, c, "fieldSetDefEntry: dataType \"%s\" is not a set definition type", dt);
                xmlFree(dt);
                return -1;
            }
            xmlFree(dt);
            int dict_type = rwf_dict_type(p->dict, (int16_t)fid);
            if (!dict_type)
                return perr(p, c, "set %ld: field %ld is not in the dictionary", id, fid);
            if (dict_type != base)
                return perr(p, c,
                            "set %ld: field %ld: dataType mismatch with dictionary (%s instead "
                            "of %s)",
                            id, fid, tname((int)type), tname(dict_type));
            entries[k++] = (rwf_set_entry){.fid = (int16_t)fid, .type = (uint8_t)type};
        }
        if (rwf_set_db_add(db, (uint16_t)id, entries, (uint8_t)count) < 0)
            return perr(p, d, "set %ld cannot be defined", id);
    }
    *out = db;
    return 0;
}

/* One mapEntry of a MarketByOrder map (key, action, fieldList) into the open map; adds the
 * ETA estimate of its field list to *estimate. */
static int encode_order(parser *p, rwf_enc *e, const xmlNode *n, const rwf_set_db *sets,
                        uint32_t *estimate)
{
    char *key = attr(n, "key");
    if (!key)
        return perr(p, n, "mapEntry has no key attribute");
    char *act = attr(n, "action");
    if (!act) {
        xmlFree(key);
        return perr(p, n, "mapEntry has no action attribute");
    }
    long action = name_or_number(map_actions, act, RWF_MPEA_DELETE_ENTRY);
    int rc = 0;
    if (action < RWF_MPEA_UPDATE_ENTRY)
        rc = perr(p, n, "mapEntry action \"%s\" is not a map entry action", act);
    xmlFree(act);

    const xmlNode *list = child(n, "fieldList");
    if (rc == 0 && !list && action != RWF_MPEA_DELETE_ENTRY)
        rc = perr(p, n, "mapEntry has no <fieldList>");
    long set_id = -1;
    field *v = NULL;
    size_t count = 0;
    if (rc == 0 && list) {
        rc = int_attr(p, list, "setId", 0, RWF_SET_MAX_ID, false, &set_id);
        if (rc == 0 && set_id >= 0 && sets && !rwf_set_db_find(sets, (uint16_t)set_id))
            rc = perr(p, list, "setId %ld is not defined in the map's fieldSetDefs", set_id);
        if (rc == 0)
            rc = parse_fields(p, list, &v, &count);
        if (rc == 0)
            *estimate += estimate_fields(v, count);
    }
    if (rc == 0 && rwf_enc_map_entry_buf(e, (int)action, rwf_buf_cstr(key)) < 0)
        rc = locate(p, n);
    if (rc == 0 && action != RWF_MPEA_DELETE_ENTRY) {
        rwf_fl_hdr h = {.flags = RWF_FLF_HAS_STANDARD_DATA};
        if (sets && set_id >= 0) {
            h.flags |= RWF_FLF_HAS_SET_DATA;
            h.set_id = (uint16_t)set_id;
            if (set_id)
                h.flags |= RWF_FLF_HAS_SET_ID;
        }
        if (rwf_enc_fl_begin(e, &h, sets) < 0)
            rc = locate(p, list);
        else if (encode_fields(p, e, v, count) < 0)
            rc = -1;
        else if (rwf_enc_fl_end(e) < 0)
            rc = locate(p, list);
    }
    if (v)
        free_fields(v, count);
    xmlFree(key);
    return rc;
}

/* Bytes of all attribute values of n (entities expanded). */
static size_t attrs_len(const xmlNode *n)
{
    size_t len = 0;
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        char *v = attr(n, (const char *)a->name);
        if (v) {
            len += strlen(v);
            xmlFree(v);
        }
    }
    return len;
}

/* Room the map entries of a MarketByOrder map need: per entry and per field, a fixed part
 * for heads, length prefixes and fixed-size values, plus the text of the attributes (an
 * encoded value is never longer than its text, QoS and State included). */
static size_t map_room(const xmlNode *map)
{
    size_t room = 64;
    for (const xmlNode *e = map->children; e; e = e->next) {
        if (!is_elem(e, "mapEntry"))
            continue;
        room += 32 + attrs_len(e);
        const xmlNode *list = child(e, "fieldList");
        if (!list)
            continue;
        for (const xmlNode *f = list->children; f; f = f->next)
            if (f->type == XML_ELEMENT_NODE)
                room += 32 + attrs_len(f);
    }
    return room;
}

/* A MarketByOrder message: dataBody/map -> set definitions and map entries. */
static int parse_mbo_body(parser *p, const xmlNode *body, msgdata_msg *m)
{
    const xmlNode *map = child(body, "map");
    if (!map)
        return perr(p, body, "dataBody has no <map>");
    uint32_t orders = 0;
    const xmlNode *defs = NULL;
    for (xmlNode *c = map->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (is_elem(c, "mapEntry")) {
            orders++;
        } else if (is_elem(c, "fieldSetDefs")) {
            if (defs)
                return perr(p, c, "map has a second <fieldSetDefs>");
            defs = c;
        } else {
            return perr(p, c, "map contains an unknown element <%s>", (const char *)c->name);
        }
    }
    if (orders > 0xFFFF)
        return perr(p, map, "map holds %u entries, more than 65535", orders);
    eta_note(&p->trace, orders, ETA_ORDER);

    /* The entries are encoded with the set definitions, wherever these stand in the map; the
     * ETA parser's reservations for them are noted in document order in the loop below. */
    rwf_set_db *sets = NULL;
    if (defs) {
        if (parse_set_defs(p, defs, &sets) < 0)
            return -1;
    }

    size_t room = map_room(map) + (sets ? rwf_set_db_encoded_size(sets) : 0);
    uint8_t *buf = malloc(room);
    if (!buf)
        return err_set("%s: out of memory", p->name);
    rwf_enc e;
    rwf_enc_init(&e, buf, room);
    rwf_map_hdr h = {.flags = RWF_MPF_HAS_KEY_FIELD_ID | (sets ? RWF_MPF_HAS_SET_DEFS : 0),
                     .key_type = RWF_DT_RMTES_STRING,
                     .ctype = RWF_DT_FIELD_LIST,
                     .key_fid = RWF_FID_ORDER_ID};
    rwf_enc_map_begin(&e, &h);
    if (sets)
        rwf_enc_set_db(&e, sets);
    size_t start = rwf_enc_len(&e); /* the entries start here (after the count) */
    int rc = rwf_enc_status(&e) < 0 ? locate(p, map) : 0;
    uint32_t estimate = 0;
    for (xmlNode *c = map->children; c && rc == 0; c = c->next) {
        if (is_elem(c, "mapEntry")) {
            rc = encode_order(p, &e, c, sets, &estimate);
        } else if (is_elem(c, "fieldSetDefs")) {
            /* Note the reservations of the set definitions in their place. */
            eta_note(&p->trace, 1, ETA_SET_DB);
            for (xmlNode *d = c->children; d; d = d->next)
                if (d->type == XML_ELEMENT_NODE)
                    eta_note(&p->trace, count_named(d, "fieldSetDefEntry"), ETA_SET_ENTRY);
        }
    }
    size_t len = 0;
    if (rc == 0) {
        rwf_enc_map_end(&e);
        if (rwf_enc_finish(&e, &len) < 0)
            rc = locate(p, map);
    }
    if (rc == 0) {
        m->count = (uint16_t)orders;
        m->estimated_len = estimate;
        m->entries_len = (uint32_t)(len - start);
        m->entries = md_copy(p->md, buf + start, m->entries_len);
        m->sets = sets;
        if (sets) {
            m->set_defs_len = (uint32_t)rwf_set_db_encoded_size(sets);
            uint8_t *sd = md_alloc(p->md, m->set_defs_len);
            if (sd)
                rwf_set_db_put(sd, sets);
            m->set_defs = sd;
        }
        if (!m->entries || (sets && !m->set_defs))
            rc = -1;
    }
    free(buf);
    return rc;
}

/* One message element of a list. */
static int parse_msg(parser *p, msgdata_list *l, const xmlNode *n, int kind, msgdata_msg *m)
{
    const xmlNode *container = n;
    memset(m, 0, sizeof(*m));
    m->domain = l->domain;
    m->line = node_line(n);
    if (kind == MSGDATA_POST) {
        container = child(n, "updateMsg");
        if (!container)
            return perr(p, n, "postMsg must contain an <updateMsg>");
    }
    const xmlNode *body = child(container, "dataBody");
    if (!body)
        return perr(p, container, "%s has no <dataBody>", (const char *)container->name);
    if (l->domain == RWF_DMT_MARKET_PRICE)
        return parse_mp_body(p, body, m);
    return parse_mbo_body(p, body, m);
}

static int parse_list(parser *p, msgdata_list *l, const xmlNode *list, int domain)
{
    if (l->present)
        return perr(p, list, "second <%s>", (const char *)list->name);
    l->present = true;
    l->domain = (uint8_t)domain;

    /* The ETA parser sizes its arrays by counting children by name, of any node type. */
    uint32_t nu = count_named(list, "updateMsg"), np = count_named(list, "postMsg"),
             ng = count_named(list, "genMsg");
    uint32_t msg_size = domain == RWF_DMT_MARKET_PRICE ? ETA_MP_MSG : ETA_MBO_MSG;
    eta_note(&p->trace, nu, msg_size);
    eta_note(&p->trace, np, msg_size);
    eta_note(&p->trace, ng, msg_size);
    l->updates = md_alloc(p->md, (nu ? nu : 1) * sizeof(msgdata_msg));
    l->posts = md_alloc(p->md, (np ? np : 1) * sizeof(msgdata_msg));
    l->generics = md_alloc(p->md, (ng ? ng : 1) * sizeof(msgdata_msg));
    if (!l->updates || !l->posts || !l->generics)
        return err_set("%s: out of memory", p->name);

    bool refresh = false;
    for (xmlNode *c = list->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        int rc;
        if (is_elem(c, "refreshMsg")) {
            if (refresh)
                return perr(p, c, "second <refreshMsg> in <%s> (one is allowed)",
                            (const char *)list->name);
            refresh = true;
            rc = parse_msg(p, l, c, MSGDATA_REFRESH, &l->refresh);
        } else if (is_elem(c, "updateMsg")) {
            rc = parse_msg(p, l, c, MSGDATA_UPDATE, &l->updates[l->update_count++]);
        } else if (is_elem(c, "postMsg")) {
            rc = parse_msg(p, l, c, MSGDATA_POST, &l->posts[l->post_count++]);
        } else if (is_elem(c, "genMsg")) {
            rc = parse_msg(p, l, c, MSGDATA_GENERIC, &l->generics[l->generic_count++]);
        } else {
            return perr(p, c, "unknown element <%s> in <%s>", (const char *)c->name,
                        (const char *)list->name);
        }
        if (rc < 0)
            return -1;
    }
    if (!refresh)
        return perr(p, list, "<%s> has no <refreshMsg>", (const char *)list->name);
    return 0;
}

static int parse_doc(parser *p, xmlDoc *doc)
{
    xmlNode *root = xmlDocGetRootElement(doc);
    if (!root)
        return err_set("%s: no root element", p->name);
    for (xmlNode *c = root->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        msgdata_list *l;
        int domain;
        if (is_elem(c, "marketPriceMsgList")) {
            l = &p->md->mp;
            domain = RWF_DMT_MARKET_PRICE;
        } else if (is_elem(c, "marketByOrderMsgList")) {
            l = &p->md->mbo;
            domain = RWF_DMT_MARKET_BY_ORDER;
        } else {
            return perr(p, c,
                        "unrecognized element <%s> (expected marketPriceMsgList or "
                        "marketByOrderMsgList)",
                        (const char *)c->name);
        }
        p->trace.n = 0;
        p->trace.oom = false;
        if (parse_list(p, l, c, domain) < 0)
            return -1;
        if (p->trace.oom)
            return err_set("%s: out of memory", p->name);
        l->eta_memory = eta_memory(&p->trace);
    }
    if (!p->md->mp.present && !p->md->mbo.present)
        return perr(p, root, "<%s> holds neither marketPriceMsgList nor marketByOrderMsgList",
                    (const char *)root->name);
    return 0;
}

/* Parses with ctxt's document already read (doc may be NULL on a syntax error). */
static int finish(msgdata *md, const char *name, xmlParserCtxtPtr ctxt, xmlDoc *doc,
                  const rwf_dict *dict)
{
    int rc;
    if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(ctxt);
        if (e && e->message) {
            char text[512];
            snprintf(text, sizeof(text), "%s", e->message);
            size_t n = strlen(text);
            while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
                text[--n] = '\0';
            if (e->code == XML_IO_LOAD_ERROR || e->code == XML_IO_ENOENT)
                rc = err_set("%s: cannot read the file", name);
            else
                rc = err_set("%s:%d: %s", name, e->line, text);
        } else {
            rc = err_set("%s: cannot read the file", name);
        }
    } else {
        parser p = {.name = name, .dict = dict, .md = md};
        rc = parse_doc(&p, doc);
        free(p.trace.v);
        xmlFreeDoc(doc);
    }
    xmlFreeParserCtxt(ctxt);
    if (rc < 0)
        msgdata_free(md);
    return rc < 0 ? -1 : 0;
}

static const int xml_options =
    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES;

int msgdata_load(msgdata *md, const char *path, const rwf_dict *dict)
{
    memset(md, 0, sizeof(*md));
    if (!dict)
        return err_set("%s: no dictionary to validate the fields against", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_set_errno(errno, "%s", path);
    fclose(f);
    xmlInitParser();
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt)
        return err_set("%s: cannot start the XML parser", path);
    xmlDoc *doc = xmlCtxtReadFile(ctxt, path, NULL, xml_options);
    return finish(md, path, ctxt, doc, dict);
}

int msgdata_parse(msgdata *md, const char *name, const char *buf, size_t len, const rwf_dict *dict)
{
    memset(md, 0, sizeof(*md));
    if (!dict)
        return err_set("%s: no dictionary to validate the fields against", name);
    if (len == 0)
        return err_set("%s: the file is empty", name);
    if (len > INT_MAX)
        return err_set("%s: too large", name);
    xmlInitParser();
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt)
        return err_set("%s: cannot start the XML parser", name);
    xmlDoc *doc = xmlCtxtReadMemory(ctxt, buf, (int)len, name, NULL, xml_options);
    return finish(md, name, ctxt, doc, dict);
}

void msgdata_free(msgdata *md)
{
    mem_block *b = md->mem;
    while (b) {
        mem_block *next = b->next;
        free(b);
        b = next;
    }
    memset(md, 0, sizeof(*md));
}

const msgdata_list *msgdata_list_of(const msgdata *md, int domain)
{
    const msgdata_list *l = domain == RWF_DMT_MARKET_PRICE      ? &md->mp
                            : domain == RWF_DMT_MARKET_BY_ORDER ? &md->mbo
                                                                : NULL;
    return l && l->present ? l : NULL;
}

int16_t msgdata_latency_fid(int kind)
{
    switch (kind) {
    case MSGDATA_UPDATE:
        return RWF_FID_TIM_TRK_1;
    case MSGDATA_POST:
        return RWF_FID_TIM_TRK_2;
    case MSGDATA_GENERIC:
        return RWF_FID_TIM_TRK_3;
    default:
        return 0;
    }
}

/* The latency fields of a payload: three blanks in a refresh, the stamp otherwise. */
static void encode_stamps(rwf_enc *e, int kind, const uint64_t *stamp)
{
    if (kind == MSGDATA_REFRESH) {
        rwf_enc_fl_blank(e, RWF_FID_TIM_TRK_1);
        rwf_enc_fl_blank(e, RWF_FID_TIM_TRK_2);
        rwf_enc_fl_blank(e, RWF_FID_TIM_TRK_3);
    } else if (stamp) {
        rwf_enc_fl_uint(e, msgdata_latency_fid(kind), *stamp);
    }
}

int msgdata_encode(rwf_enc *e, const msgdata_msg *m, int kind, const uint64_t *stamp)
{
    rwf_buf entries = rwf_buf_make(m->entries, m->entries_len);
    if (m->domain == RWF_DMT_MARKET_PRICE) {
        rwf_enc_fl_begin_std(e);
        rwf_enc_append(e, entries, m->count);
        encode_stamps(e, kind, stamp);
        return rwf_enc_fl_end(e);
    }
    bool summary = kind == MSGDATA_REFRESH || stamp;
    rwf_map_hdr h = {.flags =
                         (uint8_t)(RWF_MPF_HAS_KEY_FIELD_ID | (m->sets ? RWF_MPF_HAS_SET_DEFS : 0) |
                                   (summary ? RWF_MPF_HAS_SUMMARY_DATA : 0)),
                     .key_type = RWF_DT_RMTES_STRING,
                     .ctype = RWF_DT_FIELD_LIST,
                     .key_fid = RWF_FID_ORDER_ID};
    rwf_enc_map_begin(e, &h);
    if (m->sets)
        rwf_enc_set_db(e, m->sets);
    if (summary) {
        rwf_enc_fl_begin_std(e);
        encode_stamps(e, kind, stamp);
        rwf_enc_fl_end(e);
    }
    rwf_enc_append(e, entries, m->count);
    return rwf_enc_map_end(e);
}

uint32_t msgdata_estimated_len(const msgdata_msg *m, int kind, uint32_t key_len)
{
    uint32_t len = 64 + m->estimated_len + (kind == MSGDATA_REFRESH ? key_len : 0);
    return kind == MSGDATA_GENERIC ? len * 2 : len;
}

/* msgdata: the XML walk's helpers and the values of fieldEntry elements (msgdata_int.h). */
#include "msgdata_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int md_node_line(const xmlNode *n)
{
    return n ? (int)xmlGetLineNo((xmlNode *)n) : 0;
}

int md_perr(const parser *p, const xmlNode *n, const char *fmt, ...)
{
    char text[ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return err_set("%s:%d: %s", p->name, md_node_line(n), text);
}

/* Prefixes the current error text with the place: "<file>:<line>: <text>". */
int md_locate(const parser *p, const xmlNode *n)
{
    return err_push("%s:%d", p->name, md_node_line(n));
}

const char *md_tname(int type)
{
    const char *n = rwf_type_name(type);
    return n ? n : "?";
}

bool md_is_elem(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* The first child element called name, or NULL. */
xmlNode *md_child(const xmlNode *n, const char *name)
{
    for (xmlNode *c = n->children; c; c = c->next)
        if (md_is_elem(c, name))
            return c;
    return NULL;
}

/* Children called name, of any node type (the ETA parser counts this way). */
uint32_t md_count_named(const xmlNode *n, const char *name)
{
    uint32_t k = 0;
    for (xmlNode *c = n->children; c; c = c->next)
        if (c->name && strcmp((const char *)c->name, name) == 0)
            k++;
    return k;
}

uint32_t md_count_elems(const xmlNode *n, const char *name)
{
    uint32_t k = 0;
    for (xmlNode *c = n->children; c; c = c->next)
        if (md_is_elem(c, name))
            k++;
    return k;
}

/* Attribute value (caller frees with xmlFree), or NULL when absent. */
char *md_attr(const xmlNode *n, const char *name)
{
    return (char *)xmlGetProp((xmlNode *)n, (const xmlChar *)name);
}

const name_value md_map_actions[] = {
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
long md_type_of(const char *s)
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
long md_name_or_number(const name_value *t, const char *s, long max)
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
int md_int_attr(const parser *p, const xmlNode *n, const char *name, long lo, long hi,
                bool required, long *out)
{
    char *s = md_attr(n, name);
    if (!s) {
        if (required)
            return md_perr(p, n, "<%s> has no %s attribute", (const char *)n->name, name);
        return 0;
    }
    int64_t v;
    int rc = 0;
    if (!s[0] || rwf_int_from_str(&v, s, strlen(s)) != RWF_OK || v < lo || v > hi)
        rc = md_perr(p, n, "%s \"%s\" is not a number from %ld to %ld", name, s, lo, hi);
    else
        *out = (long)v;
    xmlFree(s);
    return rc;
}

/* A QoS or State value, given by attributes (qos_attrs, state_attrs); data, when present,
 * must be empty and means blank. Returns RWF_OK, or -1 with the place. */
static int parse_attr_value(const parser *p, const xmlNode *n, field *f, char *data, size_t len)
{
    int rc = RWF_OK;
    rwf_value *v = &f->v;
    if (data) {
        if (len)
            rc = md_perr(p, n,
                         "field %d: a %s value is given by attributes; data must be "
                         "empty (blank) or absent",
                         f->fid, md_tname(f->type));
        else
            f->blank = true;
        xmlFree(data);
        return rc;
    }
    const attr_spec *spec = f->type == RWF_DT_QOS ? qos_attrs : state_attrs;
    long val[5] = {0, 0, 0, 0, 0};
    for (int i = 0; spec[i].name; i++) {
        char *s = md_attr(n, spec[i].name);
        if (!s)
            continue;
        val[i] = md_name_or_number(spec[i].names, s, spec[i].max);
        if (val[i] < 0)
            rc = md_perr(p, n, "field %d: %s \"%s\" is not valid", f->fid, spec[i].name, s);
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
        f->text = (xmlChar *)md_attr(n, "text");
        if (f->text)
            v->state.text = rwf_buf_cstr((const char *)f->text);
    }
    return RWF_OK;
}

/* Parses the value of a fieldEntry of type f->type from its attributes. */
static int parse_value(const parser *p, const xmlNode *n, field *f)
{
    char *data = md_attr(n, "data");
    int rc = RWF_OK;
    size_t len = data ? strlen(data) : 0;
    rwf_value *v = &f->v;
    v->type = f->type;
    if (f->type == RWF_DT_QOS || f->type == RWF_DT_STATE)
        return parse_attr_value(p, n, f, data, len);
    if (!data)
        return md_perr(p, n, "field %d has no data attribute", f->fid);
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
        rc = md_perr(p, n, "field %d: \"%s\" is not a valid %s", f->fid, data, md_tname(f->type));
    xmlFree(data);
    return rc;
}

/* Parses a fieldEntry: fieldId, reserved fields, dataType, dictionary, value — in the order
 * the ETA parser checks them, so the first problem reported is the same. */
static int parse_field(parser *p, const xmlNode *n, field *f)
{
    long fid = 0;
    memset(f, 0, sizeof(*f));
    f->line = md_node_line(n);
    if (md_int_attr(p, n, "fieldId", INT16_MIN, INT16_MAX, true, &fid) < 0)
        return -1;
    f->fid = (int16_t)fid;
    if (fid == RWF_FID_TIM_TRK_1 || fid == RWF_FID_TIM_TRK_2 || fid == RWF_FID_TIM_TRK_3)
        return md_perr(p, n,
                       "field %ld is reserved for the latency stamps (TIM_TRK_1..3) and not "
                       "allowed in message data",
                       fid);
    char *dt = md_attr(n, "dataType");
    if (!dt)
        return md_perr(p, n, "field %ld has no dataType attribute", fid);
    long type = md_type_of(dt);
    if (type < 0 || !(type == RWF_DT_INT || type == RWF_DT_UINT || type == RWF_DT_FLOAT ||
                      type == RWF_DT_DOUBLE || (type >= RWF_DT_REAL && type <= RWF_DT_ENUM) ||
                      (type >= RWF_DT_BUFFER && type <= RWF_DT_RMTES_STRING))) {
        md_perr(p, n, "field %ld: dataType \"%s\" is not a primitive type name", fid, dt);
        xmlFree(dt);
        return -1;
    }
    xmlFree(dt);
    f->type = (uint8_t)type;
    int dict_type = rwf_dict_type(p->dict, f->fid);
    if (!dict_type)
        return md_perr(p, n, "field %ld is not in the dictionary", fid);
    if (dict_type != type)
        return md_perr(p, n, "field %ld: dataType mismatch with dictionary (%s instead of %s)", fid,
                       md_tname((int)type), md_tname(dict_type));
    if (parse_value(p, n, f) < 0)
        return -1;
    /* The ETA parser copies string values (and state texts) into its block. */
    if (f->type >= RWF_DT_BUFFER && f->type <= RWF_DT_RMTES_STRING)
        md_eta_note(&p->trace, f->v.buf.len + 1, 1);
    else if (f->type == RWF_DT_STATE && !f->blank && f->text)
        md_eta_note(&p->trace, f->v.state.text.len + 1, 1);
    return 0;
}

void md_free_fields(field *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].text)
            xmlFree(v[i].text);
    free(v);
}

/* The ETA tools' payload estimate for a field list: 1 + per field 2 + the size of the value's
 * structure in their API on x86-64 (+ the bytes of strings and state texts). */
uint32_t md_estimate_fields(const field *v, size_t n)
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
int md_parse_fields(parser *p, const xmlNode *list, field **out, size_t *n)
{
    size_t count = 0;
    for (xmlNode *c = list->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (!md_is_elem(c, "fieldEntry"))
            return md_perr(p, c, "fieldList contains an unknown element <%s>",
                           (const char *)c->name);
        count++;
    }
    field *v = calloc(count ? count : 1, sizeof(*v));
    if (!v)
        return err_set("%s: out of memory", p->name);
    md_eta_note(&p->trace, (uint32_t)count, ETA_FIELD);
    size_t i = 0;
    for (xmlNode *c = list->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (parse_field(p, c, &v[i]) < 0) {
            md_free_fields(v, i + 1);
            return -1;
        }
        i++;
    }
    if (count > 0xFFFF) {
        md_free_fields(v, count);
        return md_perr(p, list, "fieldList holds %zu entries, more than 65535", count);
    }
    *out = v;
    *n = count;
    return 0;
}

/* Room any encoding of these fields needs, with headers and stamps. */
size_t md_fields_room(const field *v, size_t n)
{
    size_t room = 64;
    for (size_t i = 0; i < n; i++)
        room += 8 + (v[i].blank ? 1 : rwf_value_max_size(&v[i].v));
    return room;
}

/* Writes the fields into the open FieldList, each error located at its field's line. */
int md_encode_fields(parser *p, rwf_enc *e, const field *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (rwf_enc_fl_slow(e, v[i].fid, v[i].blank ? NULL : &v[i].v) < 0)
            return err_push("%s:%d: field %d", p->name, v[i].line, v[i].fid);
    }
    return 0;
}

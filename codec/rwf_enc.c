/*
 * rwf_enc: the container encoder. A stack of frames, one per open container; each frame
 * knows what it expects next (RWF_ES_*) and where its back-filled lengths and counts live.
 */
#include "rwf_enc_int.h"

#include <stdarg.h>
#include <stdio.h>

static const char *kind_name(int kind)
{
    switch (kind) {
    case 0:
        return "top level";
    case RWF_DT_FIELD_LIST:
        return "FieldList";
    case RWF_DT_ELEMENT_LIST:
        return "ElementList";
    case RWF_DT_MAP:
        return "Map";
    case RWF_DT_FILTER_LIST:
        return "FilterList";
    case RWF_DT_VECTOR:
        return "Vector";
    case RWF_DT_SERIES:
        return "Series";
    case RWF_DT_ARRAY:
        return "Array";
    case RWF_DT_MSG:
        return "message";
    default:
        return rwf_type_name(kind) ? rwf_type_name(kind) : "container";
    }
}

static const char *state_name(int s)
{
    static const char *const n[] = {
        "nothing open", "entries",     "an entry value",  "set data",     "a set value",
        "a map key",    "entry data",  "set definitions", "summary data", "a key attribute",
        "a payload",    "array items", "its end"};
    return (s >= 0 && s <= RWF_ES_DONE) ? n[s] : "?";
}

int rwf_enc_err(rwf_enc *e, int code, const char *fmt, ...)
{
    if (e->err)
        return e->err;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    err_set("%s", msg);
    e->err = code;
    return code;
}

int rwf_enc_fail(rwf_enc *e, int err)
{
    if (!e->err)
        e->err = err;
    return e->err;
}

int rwf_enc_room_slow(rwf_enc *e, size_t n, const char *what)
{
    rwf_enc_err(e, RWF_E_NOSPACE, "no room for %s: %zu bytes needed, %zu left at offset %zu", what,
                n, (size_t)(e->end - e->pos), (size_t)(e->pos - e->buf));
    return 0;
}

void rwf_enc_init(rwf_enc *e, void *buf, size_t cap)
{
    e->buf = e->pos = buf;
    e->end = e->buf + cap;
    e->err = 0;
    e->depth = 0;
    e->stack[0] = (rwf_enc_frame){.state = RWF_ES_ROOT, .start = e->buf};
}

int rwf_enc_finish(rwf_enc *e, size_t *len)
{
    if (e->err)
        return e->err;
    if (e->depth != 0)
        return rwf_enc_err(e, RWF_E_INVALID, "%d container(s) still open (innermost: %s)", e->depth,
                           kind_name(rwf_enc_top(e)->kind));
    if (len)
        *len = rwf_enc_len(e);
    return RWF_OK;
}

/* ---- Frames ------------------------------------------------------------------------------ */

int rwf_enc_push(rwf_enc *e, int kind, rwf_enc_frame **out)
{
    if (e->err)
        return e->err;
    rwf_enc_frame *p = rwf_enc_top(e);
    int form, want = 0;

    switch (p->state) {
    case RWF_ES_ROOT:
        form = 0;
        break;
    case RWF_ES_VALUE:
    case RWF_ES_DATA:
        form = (p->len_hint && p->len_hint < 0xFE) ? 1 : 3;
        want = p->value_type;
        break;
    case RWF_ES_SET_VALUE: { /* an array (or container) in set data */
        form = (p->len_hint && p->len_hint < 0xFE) ? 1 : 3;
        want = p->set->entries[p->set_index].type;
        break;
    }
    case RWF_ES_SUMMARY:
        form = 2;
        want = p->ctype;
        break;
    case RWF_ES_ATTRIB:
    case RWF_ES_PAYLOAD:
        form = p->state == RWF_ES_ATTRIB ? 2 : 0;
        want = p->value_type;
        break;
    default:
        return rwf_enc_err(e, RWF_E_INVALID, "%s: a %s cannot begin where %s is expected",
                           kind_name(p->kind), kind_name(kind), state_name(p->state));
    }
    if (kind == RWF_DT_ARRAY && p->state != RWF_ES_VALUE && p->state != RWF_ES_ROOT &&
        p->state != RWF_ES_SET_VALUE)
        return rwf_enc_err(e, RWF_E_INVALID, "%s: an Array is only a field or element value",
                           kind_name(p->kind));
    if (want && want != kind)
        return rwf_enc_err(e, RWF_E_INVALID, "%s: a %s was announced, not a %s", kind_name(p->kind),
                           kind_name(want), kind_name(kind));
    if (e->depth >= RWF_ENC_MAX_DEPTH)
        return rwf_enc_err(e, RWF_E_INVALID, "containers nested deeper than %d", RWF_ENC_MAX_DEPTH);
    if (!rwf_enc_room(e, (size_t)form, kind_name(kind)))
        return e->err;

    p->len_hint = 0;
    rwf_enc_frame *f = &e->stack[++e->depth];
    /* field by field: cheaper than a memset of the frame */
    f->state = f->flags = f->ctype = f->key_type = f->value_type = 0;
    f->set_index = f->entry_perm = 0;
    f->len_hint = 0;
    f->item_len = f->count = f->msg_flags = 0;
    f->hint = 0;
    f->count_at = f->mark = NULL;
    f->set = NULL;
    f->msg = NULL;
    f->kind = (uint8_t)kind;
    f->len_form = (uint8_t)form;
    f->len_at = e->pos;
    e->pos += form;
    f->start = e->pos;
    *out = f;
    return RWF_OK;
}

/* Writes the total count hint and reserves the entry count: the last part of Map, Vector and
 * Series headers. */
static int dict_tail(rwf_enc *e, rwf_enc_frame *f)
{
    int has_hint = f->kind == RWF_DT_SERIES ? (f->flags & RWF_SRF_HAS_TOTAL_COUNT_HINT)
                                            : (f->flags & RWF_MPF_HAS_TOTAL_COUNT_HINT);
    if (!rwf_enc_room(e, 6, kind_name(f->kind)))
        return e->err;
    if (has_hint) {
        if (f->hint >= 0x40000000u)
            return rwf_enc_err(e, RWF_E_INVALID, "%s: total count hint %u is too large",
                               kind_name(f->kind), f->hint);
        e->pos = rwf_wr_u30rb(e->pos, f->hint);
    }
    f->count_at = e->pos;
    e->pos += 2;
    f->state = RWF_ES_ENTRIES;
    return RWF_OK;
}

/* After the set definitions of a Map/Vector/Series: summary data (pre-encoded summary is
 * copied, else the iterator waits for it), then the tail. */
static int dict_after_setdefs(rwf_enc *e, rwf_enc_frame *f, rwf_buf summary)
{
    if (f->flags & RWF_MPF_HAS_SUMMARY_DATA) { /* same bit for Vector and Series */
        if (summary.len == 0) {
            f->state = RWF_ES_SUMMARY;
            return RWF_OK;
        }
        if (summary.len > 0x7FFF)
            return rwf_enc_err(e, RWF_E_INVALID, "%s: summary data of %u bytes is too long",
                               kind_name(f->kind), (unsigned)summary.len);
        if (!rwf_enc_room(e, 2 + (size_t)summary.len, "summary data"))
            return e->err;
        e->pos = rwf_wr_u15rb(e->pos, (uint16_t)summary.len);
        memcpy(e->pos, summary.data, summary.len);
        e->pos += summary.len;
    }
    return dict_tail(e, f);
}

static int set_complete(rwf_enc *e, rwf_enc_frame *f);

/* The parent p of a container that just ended (or of encoded bytes just written) moves on. */
static int child_done(rwf_enc *e, rwf_enc_frame *p)
{
    switch (p->state) {
    case RWF_ES_VALUE:
    case RWF_ES_DATA:
        p->state = RWF_ES_ENTRIES;
        p->value_type = 0;
        return RWF_OK;
    case RWF_ES_SUMMARY:
        return dict_tail(e, p);
    case RWF_ES_ATTRIB:
        return rwf_msg_enc_attrib_done(e, p);
    case RWF_ES_PAYLOAD:
        p->state = RWF_ES_DONE;
        return RWF_OK;
    case RWF_ES_SET_VALUE:
        return set_complete(e, p);
    default:
        return RWF_OK;
    }
}

int rwf_enc_size_hint(rwf_enc *e, uint16_t max)
{
    if (e->err)
        return e->err;
    rwf_enc_top(e)->len_hint = max;
    return RWF_OK;
}

int rwf_enc_pop(rwf_enc *e)
{
    if (e->err)
        return e->err;
    rwf_enc_frame *f = rwf_enc_top(e);
    size_t len = (size_t)(e->pos - f->start);
    if (f->len_form == 1) {
        if (len >= 0xFE)
            return rwf_enc_err(e, RWF_E_INVALID, "%s of %zu bytes exceeds its size hint",
                               kind_name(f->kind), len);
        *f->len_at = (uint8_t)len;
    } else if (f->len_form == 3) {
        if (len > 0xFFFF)
            return rwf_enc_err(e, RWF_E_INVALID, "%s of %zu bytes exceeds 65535",
                               kind_name(f->kind), len);
        rwf_wr_u16ob3(f->len_at, (uint16_t)len);
    } else if (f->len_form == 2) {
        if (len > 0x7FFF)
            return rwf_enc_err(e, RWF_E_INVALID, "%s of %zu bytes exceeds 32767",
                               kind_name(f->kind), len);
        rwf_wr_u15rb2(f->len_at, (uint16_t)len);
    }
    e->depth--;
    return child_done(e, rwf_enc_top(e));
}

int rwf_enc_end(rwf_enc *e)
{
    if (e->err)
        return e->err;
    rwf_enc_frame *f = rwf_enc_top(e);
    if (e->depth == 0)
        return rwf_enc_err(e, RWF_E_INVALID, "end without an open container");
    switch (f->state) {
    case RWF_ES_ENTRIES:
    case RWF_ES_DONE:
    case RWF_ES_ITEMS:
        break;
    case RWF_ES_PAYLOAD: /* a message whose payload was left empty */
        if (f->kind == RWF_DT_MSG)
            break;
        /* fall through */
    default:
        if (f->state == RWF_ES_SET)
            return rwf_enc_err(e, RWF_E_INVALID, "%s: set data incomplete (%u of %u entries)",
                               kind_name(f->kind), f->set_index, f->set->count);
        return rwf_enc_err(e, RWF_E_INVALID, "%s: cannot end while %s is expected",
                           kind_name(f->kind), state_name(f->state));
    }
    if (f->count_at && f->kind != RWF_DT_MSG) { /* a message keeps its header length there */
        if (f->kind == RWF_DT_FILTER_LIST)
            *f->count_at = (uint8_t)f->count;
        else
            rwf_wr16(f->count_at, f->count);
    }
    return rwf_enc_pop(e);
}

static int end_kind(rwf_enc *e, int kind)
{
    if (e->err)
        return e->err;
    if (rwf_enc_top(e)->kind != kind)
        return rwf_enc_err(e, RWF_E_INVALID, "end of a %s, but the open container is a %s",
                           kind_name(kind), kind_name(rwf_enc_top(e)->kind));
    return rwf_enc_end(e);
}

int rwf_enc_fl_end(rwf_enc *e)
{
    return end_kind(e, RWF_DT_FIELD_LIST);
}
int rwf_enc_el_end(rwf_enc *e)
{
    return end_kind(e, RWF_DT_ELEMENT_LIST);
}
int rwf_enc_map_end(rwf_enc *e)
{
    return end_kind(e, RWF_DT_MAP);
}
int rwf_enc_filter_end(rwf_enc *e)
{
    return end_kind(e, RWF_DT_FILTER_LIST);
}
int rwf_enc_vector_end(rwf_enc *e)
{
    return end_kind(e, RWF_DT_VECTOR);
}
int rwf_enc_series_end(rwf_enc *e)
{
    return end_kind(e, RWF_DT_SERIES);
}
int rwf_enc_array_end(rwf_enc *e)
{
    return end_kind(e, RWF_DT_ARRAY);
}

/* ---- Values ------------------------------------------------------------------------------ */

/* Counts one more entry, refusing a 65536th (255th+1 for a FilterList). */
static int count_entry(rwf_enc *e, rwf_enc_frame *f)
{
    unsigned max = f->kind == RWF_DT_FILTER_LIST ? 0xFF : 0xFFFF;
    if (f->count >= max)
        return rwf_enc_err(e, RWF_E_INVALID, "%s holds more than %u entries", kind_name(f->kind),
                           max);
    f->count++;
    return RWF_OK;
}

/* A primitive in its length-prefixed form (v NULL: blank). */
static int put_prefixed(rwf_enc *e, const rwf_value *v)
{
    if (!v) {
        if (!rwf_enc_room(e, 1, "a blank value"))
            return e->err;
        *e->pos++ = 0;
        return RWF_OK;
    }
    if (!rwf_enc_room(e, rwf_value_max_size(v),
                      rwf_type_name(v->type) ? rwf_type_name(v->type) : "a value"))
        return e->err;
    uint8_t *p = rwf_put_value(e->pos, v);
    if (!p)
        return rwf_enc_fail(e, RWF_E_INVALID);
    e->pos = p;
    return RWF_OK;
}

static int put_set(rwf_enc *e, rwf_enc_frame *f, const rwf_value *v)
{
    int status, type = f->set->entries[f->set_index].type;
    uint8_t *p = rwf_put_set_value(e->pos, e->end, type, v, &status);
    if (!p)
        return rwf_enc_fail(e, status);
    e->pos = p;
    return set_complete(e, f);
}

/* One set entry was written: move to the next, or finish the set data. */
static int set_complete(rwf_enc *e, rwf_enc_frame *f)
{
    if (++f->set_index < f->set->count) {
        f->state = RWF_ES_SET;
        return RWF_OK;
    }
    if (f->mark) {
        size_t len = (size_t)(e->pos - f->mark - 2);
        if (len > 0x7FFF)
            return rwf_enc_err(e, RWF_E_INVALID, "%s: set data of %zu bytes exceeds 32767",
                               kind_name(f->kind), len);
        rwf_wr_u15rb2(f->mark, (uint16_t)len);
        f->mark = NULL;
    }
    if (f->flags & RWF_FLF_HAS_STANDARD_DATA) {
        if (!rwf_enc_room(e, 2, "the entry count"))
            return e->err;
        f->count_at = e->pos;
        e->pos += 2;
        f->count = 0;
        f->state = RWF_ES_ENTRIES;
    } else {
        f->state = RWF_ES_DONE;
    }
    return RWF_OK;
}

static int put_key(rwf_enc *e, rwf_enc_frame *f, const rwf_value *v)
{
    if (!v)
        return rwf_enc_err(e, RWF_E_INVALID, "a map key cannot be blank");
    if (!rwf_enc_type_fits(f->key_type, v->type))
        return rwf_enc_err(e, RWF_E_INVALID, "map key is a %s, the map's keys are %s",
                           rwf_type_name(v->type), rwf_type_name(f->key_type));
    if (v->type >= RWF_DT_BUFFER && v->type <= RWF_DT_RMTES_STRING) {
        if (v->buf.len > 0x7FFF)
            return rwf_enc_err(e, RWF_E_INVALID, "map key of %u bytes is too long",
                               (unsigned)v->buf.len);
        if (!rwf_enc_room(e, 2 + (size_t)v->buf.len, "a map key"))
            return e->err;
        e->pos = rwf_wr_u15rb(e->pos, (uint16_t)v->buf.len);
        if (v->buf.len)
            memcpy(e->pos, v->buf.data, v->buf.len);
        e->pos += v->buf.len;
        return RWF_OK;
    }
    return put_prefixed(e, v);
}

static int put_item(rwf_enc *e, rwf_enc_frame *f, const rwf_value *v)
{
    int r;
    if (v && !rwf_enc_type_fits(f->ctype, v->type))
        return rwf_enc_err(e, RWF_E_INVALID, "Array of %s: item is a %s", rwf_type_name(f->ctype),
                           rwf_type_name(v->type));
    if (f->item_len == 0) {
        r = put_prefixed(e, v);
    } else if (f->ctype >= RWF_DT_BUFFER && f->ctype <= RWF_DT_RMTES_STRING) {
        if (!v || v->buf.len > f->item_len)
            return rwf_enc_err(e, RWF_E_INVALID, "Array item of %u bytes: %s", f->item_len,
                               v ? "item too long" : "blank fixed items unsupported");
        if (!rwf_enc_room(e, f->item_len, "an array item"))
            return e->err;
        memcpy(e->pos, v->buf.data, v->buf.len);
        memset(e->pos + v->buf.len, 0, f->item_len - v->buf.len);
        e->pos += f->item_len;
        r = RWF_OK;
    } else if (f->ctype == RWF_DT_ENUM && (f->item_len == 1 || f->item_len == 2)) {
        if (!v)
            return rwf_enc_err(e, RWF_E_INVALID, "a fixed ENUM array item cannot be blank");
        if (f->item_len == 1 && v->enm > 0xFF)
            return rwf_enc_err(e, RWF_E_INVALID, "enum %u does not fit 1 byte", v->enm);
        if (!rwf_enc_room(e, f->item_len, "an array item"))
            return e->err;
        e->pos = rwf_wrn(e->pos, v->enm, f->item_len);
        r = RWF_OK;
    } else {
        int t = rwf_fixed_type(f->ctype, f->item_len), status;
        if (!t)
            return rwf_enc_err(e, RWF_E_INVALID, "Array of %s cannot have %u-byte items",
                               rwf_type_name(f->ctype), f->item_len);
        uint8_t *p = rwf_put_set_value(e->pos, e->end, t, v, &status);
        if (!p)
            return rwf_enc_fail(e, status);
        e->pos = p;
        r = RWF_OK;
    }
    return r < 0 ? r : count_entry(e, f);
}

int rwf_enc_value(rwf_enc *e, const rwf_value *v)
{
    if (e->err)
        return e->err;
    rwf_enc_frame *f = rwf_enc_top(e);
    int r;
    switch (f->state) {
    case RWF_ES_VALUE:
        if (f->value_type && v && !rwf_enc_type_fits(f->value_type, v->type))
            return rwf_enc_err(e, RWF_E_INVALID, "element announced as %s gets a %s value",
                               rwf_type_name(f->value_type), rwf_type_name(v->type));
        if ((r = put_prefixed(e, v)) < 0)
            return r;
        f->state = RWF_ES_ENTRIES;
        f->value_type = 0;
        return RWF_OK;
    case RWF_ES_SET_VALUE:
        return put_set(e, f, v);
    case RWF_ES_KEY:
        if ((r = put_key(e, f, v)) < 0)
            return r;
        f->state = f->value_type ? RWF_ES_DATA : RWF_ES_ENTRIES;
        return RWF_OK;
    case RWF_ES_ITEMS:
        return put_item(e, f, v);
    default:
        return rwf_enc_err(e, RWF_E_INVALID, "%s: a value cannot be written where %s is expected",
                           kind_name(f->kind), state_name(f->state));
    }
}

int rwf_enc_blank(rwf_enc *e)
{
    return rwf_enc_value(e, NULL);
}

int rwf_enc_int(rwf_enc *e, int64_t v)
{
    rwf_value x = {.type = RWF_DT_INT, .i = v};
    return rwf_enc_value(e, &x);
}

int rwf_enc_uint(rwf_enc *e, uint64_t v)
{
    rwf_value x = {.type = RWF_DT_UINT, .u = v};
    return rwf_enc_value(e, &x);
}

int rwf_enc_float(rwf_enc *e, float v)
{
    rwf_value x = {.type = RWF_DT_FLOAT, .f = v};
    return rwf_enc_value(e, &x);
}

int rwf_enc_double(rwf_enc *e, double v)
{
    rwf_value x = {.type = RWF_DT_DOUBLE, .d = v};
    return rwf_enc_value(e, &x);
}

int rwf_enc_real(rwf_enc *e, const rwf_real *v)
{
    rwf_value x = {.type = RWF_DT_REAL, .real = *v};
    return rwf_enc_value(e, &x);
}

int rwf_enc_date(rwf_enc *e, const rwf_date *v)
{
    rwf_value x = {.type = RWF_DT_DATE, .date = *v};
    return rwf_enc_value(e, &x);
}

int rwf_enc_time(rwf_enc *e, const rwf_time *v)
{
    rwf_value x = {.type = RWF_DT_TIME, .time = *v};
    return rwf_enc_value(e, &x);
}

int rwf_enc_datetime(rwf_enc *e, const rwf_datetime *v)
{
    rwf_value x = {.type = RWF_DT_DATETIME, .datetime = *v};
    return rwf_enc_value(e, &x);
}

int rwf_enc_qos(rwf_enc *e, const rwf_qos *v)
{
    rwf_value x = {.type = RWF_DT_QOS, .qos = *v};
    return rwf_enc_value(e, &x);
}

int rwf_enc_state(rwf_enc *e, const rwf_state *v)
{
    rwf_value x = {.type = RWF_DT_STATE, .state = *v};
    return rwf_enc_value(e, &x);
}

int rwf_enc_enum(rwf_enc *e, uint16_t v)
{
    rwf_value x = {.type = RWF_DT_ENUM, .enm = v};
    return rwf_enc_value(e, &x);
}

int rwf_enc_buf(rwf_enc *e, int type, rwf_buf v)
{
    if (type < RWF_DT_BUFFER || type > RWF_DT_RMTES_STRING)
        return rwf_enc_err(e, RWF_E_INVALID, "type %d is not a buffer or string type", type);
    rwf_value x = {.type = (uint8_t)type, .buf = v};
    return rwf_enc_value(e, &x);
}

/* Copies data behind a length of the given form (0 raw, 1 = u15rb minimal, 2 = u16ob). */
static int put_encoded(rwf_enc *e, rwf_buf data, int form, const char *what)
{
    size_t max = form == 1 ? 0x7FFF : form == 2 ? 0xFFFF : SIZE_MAX;
    if (data.len > max)
        return rwf_enc_err(e, RWF_E_INVALID, "%s of %u bytes is too long", what,
                           (unsigned)data.len);
    if (!rwf_enc_room(e, (size_t)data.len + (form ? 3 : 0), what))
        return e->err;
    if (form == 1)
        e->pos = rwf_wr_u15rb(e->pos, (uint16_t)data.len);
    else if (form == 2)
        e->pos = rwf_wr_u16ob(e->pos, (uint16_t)data.len);
    if (data.len)
        memcpy(e->pos, data.data, data.len);
    e->pos += data.len;
    return RWF_OK;
}

int rwf_enc_encoded(rwf_enc *e, rwf_buf data)
{
    if (e->err)
        return e->err;
    rwf_enc_frame *f = rwf_enc_top(e);
    int r;
    switch (f->state) {
    case RWF_ES_ROOT:
        return put_encoded(e, data, 0, "encoded bytes");
    case RWF_ES_VALUE:
    case RWF_ES_DATA:
        if ((r = put_encoded(e, data, 2, "an encoded value")) < 0)
            return r;
        return child_done(e, f);
    case RWF_ES_SET_VALUE: {
        int type = f->set->entries[f->set_index].type;
        if ((r = put_encoded(e, data, type < RWF_DT_SET_PRIMITIVE_MIN ? 2 : 0,
                             "an encoded set value")) < 0)
            return r;
        return set_complete(e, f);
    }
    case RWF_ES_KEY:
        if ((r = put_encoded(e, data, 1, "an encoded map key")) < 0)
            return r;
        f->state = f->value_type ? RWF_ES_DATA : RWF_ES_ENTRIES;
        return RWF_OK;
    case RWF_ES_SETDEFS:
        if ((r = put_encoded(e, data, 1, "encoded set definitions")) < 0)
            return r;
        return dict_after_setdefs(e, f, rwf_buf_make(NULL, 0));
    case RWF_ES_SUMMARY:
        if ((r = put_encoded(e, data, 1, "encoded summary data")) < 0)
            return r;
        return dict_tail(e, f);
    case RWF_ES_ATTRIB:
        if ((r = put_encoded(e, data, 1, "an encoded key attribute")) < 0)
            return r;
        return rwf_msg_enc_attrib_done(e, f);
    case RWF_ES_PAYLOAD:
        if ((r = put_encoded(e, data, 0, "an encoded payload")) < 0)
            return r;
        f->state = RWF_ES_DONE;
        return RWF_OK;
    case RWF_ES_ITEMS:
        if (f->item_len && data.len != f->item_len)
            return rwf_enc_err(e, RWF_E_INVALID, "encoded array item of %u bytes, items are %u",
                               (unsigned)data.len, f->item_len);
        if ((r = put_encoded(e, data, f->item_len ? 0 : 2, "an encoded array item")) < 0)
            return r;
        return count_entry(e, f);
    default:
        return rwf_enc_err(e, RWF_E_INVALID,
                           "%s: encoded bytes cannot be written where %s is expected",
                           kind_name(f->kind), state_name(f->state));
    }
}

/* ---- FieldList / ElementList ------------------------------------------------------------- */

/* Shared tail of FieldList/ElementList begin: set id, set data (pre-encoded or in place),
 * entry count. flags use the common bit values (HAS_SET_DATA 0x02, HAS_SET_ID 0x04,
 * HAS_STANDARD_DATA 0x08). */
static int list_begin_sets(rwf_enc *e, rwf_enc_frame *f, uint8_t flags, uint16_t set_id,
                           rwf_buf set_data, const rwf_set_db *sets, int kind)
{
    if (flags & RWF_FLF_HAS_SET_DATA) {
        if (flags & RWF_FLF_HAS_SET_ID) {
            if (set_id > 0x7FFF)
                return rwf_enc_err(e, RWF_E_INVALID, "set id %u is too large", set_id);
            e->pos = rwf_wr_u15rb(e->pos, set_id);
        }
        if (set_data.len) { /* pre-encoded set data */
            if (flags & RWF_FLF_HAS_STANDARD_DATA) {
                if (put_encoded(e, set_data, 1, "encoded set data") < 0)
                    return e->err;
                if (!rwf_enc_room(e, 2, "the entry count"))
                    return e->err;
                f->count_at = e->pos;
                e->pos += 2;
                f->state = RWF_ES_ENTRIES;
            } else {
                if (put_encoded(e, set_data, 0, "encoded set data") < 0)
                    return e->err;
                f->state = RWF_ES_DONE;
            }
            return RWF_OK;
        }
        const rwf_set_def *def = rwf_set_db_find(sets, set_id);
        if (!def || sets->kind != kind)
            return rwf_enc_err(e, RWF_E_INVALID, "%s: no %s set definition %u given",
                               kind_name(kind), kind == RWF_DT_FIELD_LIST ? "field" : "element",
                               set_id);
        f->set = def;
        if (flags & RWF_FLF_HAS_STANDARD_DATA) {
            if (!rwf_enc_room(e, 2, "the set data length"))
                return e->err;
            f->mark = e->pos;
            e->pos += 2;
        }
        f->state = RWF_ES_SET;
        return RWF_OK;
    }
    if (flags & RWF_FLF_HAS_STANDARD_DATA) {
        f->count_at = e->pos;
        e->pos += 2;
        f->state = RWF_ES_ENTRIES;
    } else {
        f->state = RWF_ES_DONE;
    }
    return RWF_OK;
}

int rwf_enc_fl_begin(rwf_enc *e, const rwf_fl_hdr *h, const rwf_set_db *sets)
{
    rwf_enc_frame *f;
    int r = rwf_enc_push(e, RWF_DT_FIELD_LIST, &f);
    if (r < 0)
        return r;
    if (!rwf_enc_room(e, 12, "a FieldList header"))
        return e->err;
    f->flags = h->flags;
    *e->pos++ = h->flags;
    if (h->flags & RWF_FLF_HAS_FIELD_LIST_INFO) {
        if (h->dict_id > 16383 || h->dict_id < -16384)
            return rwf_enc_err(e, RWF_E_INVALID, "FieldList dictionary id %d out of range",
                               h->dict_id);
        uint8_t *len_at = e->pos++;
        e->pos = rwf_wr_i15rb(e->pos, h->dict_id);
        e->pos = rwf_wr16(e->pos, h->fl_num);
        *len_at = (uint8_t)(e->pos - len_at - 1);
    }
    return list_begin_sets(e, f, h->flags, h->set_id, h->set_data, sets, RWF_DT_FIELD_LIST);
}

int rwf_enc_fl_begin_std(rwf_enc *e)
{
    rwf_enc_frame *f;
    int r = rwf_enc_push(e, RWF_DT_FIELD_LIST, &f);
    if (r < 0)
        return r;
    if (!rwf_enc_room(e, 3, "a FieldList header"))
        return e->err;
    f->flags = RWF_FLF_HAS_STANDARD_DATA;
    *e->pos++ = RWF_FLF_HAS_STANDARD_DATA;
    f->count_at = e->pos;
    e->pos += 2;
    f->state = RWF_ES_ENTRIES;
    return RWF_OK;
}

int rwf_enc_fl_entry(rwf_enc *e, int16_t fid)
{
    if (e->err)
        return e->err;
    rwf_enc_frame *f = rwf_enc_top(e);
    if (f->kind != RWF_DT_FIELD_LIST)
        return rwf_enc_err(e, RWF_E_INVALID, "field %d: the open container is a %s", fid,
                           kind_name(f->kind));
    if (f->state == RWF_ES_ENTRIES) {
        if (!rwf_enc_room(e, 2, "a field entry"))
            return e->err;
        int r = count_entry(e, f);
        if (r < 0)
            return r;
        e->pos = rwf_wr16(e->pos, (uint16_t)fid);
        f->state = RWF_ES_VALUE;
        f->value_type = 0;
        return RWF_OK;
    }
    if (f->state == RWF_ES_SET) {
        const rwf_set_entry *se = &f->set->entries[f->set_index];
        if (se->fid != fid)
            return rwf_enc_err(e, RWF_E_INVALID, "set entry %u is fid %d, not %d", f->set_index,
                               se->fid, fid);
        f->state = RWF_ES_SET_VALUE;
        return RWF_OK;
    }
    return rwf_enc_err(e, RWF_E_INVALID, "field %d: FieldList expects %s", fid,
                       state_name(f->state));
}

int rwf_enc_fl_slow(rwf_enc *e, int16_t fid, const rwf_value *v)
{
    int r = rwf_enc_fl_entry(e, fid);
    return r < 0 ? r : rwf_enc_value(e, v);
}

int rwf_enc_append(rwf_enc *e, rwf_buf entries, uint16_t count)
{
    if (e->err)
        return e->err;
    rwf_enc_frame *f = rwf_enc_top(e);
    switch (f->kind) {
    case RWF_DT_FIELD_LIST:
    case RWF_DT_ELEMENT_LIST:
    case RWF_DT_MAP:
    case RWF_DT_VECTOR:
    case RWF_DT_SERIES:
        break;
    default:
        return rwf_enc_err(e, RWF_E_INVALID, "pre-encoded entries cannot go into a %s",
                           kind_name(f->kind));
    }
    if (f->state != RWF_ES_ENTRIES)
        return rwf_enc_err(e, RWF_E_INVALID, "pre-encoded entries: the %s expects %s",
                           kind_name(f->kind), state_name(f->state));
    if ((unsigned)f->count + count > 0xFFFF)
        return rwf_enc_err(e, RWF_E_INVALID, "%s holds more than 65535 entries",
                           kind_name(f->kind));
    if (!rwf_enc_room(e, entries.len, "pre-encoded entries"))
        return e->err;
    if (entries.len)
        memcpy(e->pos, entries.data, entries.len);
    e->pos += entries.len;
    f->count = (uint16_t)(f->count + count);
    return RWF_OK;
}

int rwf_enc_fl_append(rwf_enc *e, rwf_buf entries, uint16_t count)
{
    if (!e->err && rwf_enc_top(e)->kind != RWF_DT_FIELD_LIST)
        return rwf_enc_err(e, RWF_E_INVALID, "pre-encoded fields need a FieldList, not a %s",
                           kind_name(rwf_enc_top(e)->kind));
    return rwf_enc_append(e, entries, count);
}

int rwf_enc_el_begin(rwf_enc *e, const rwf_el_hdr *h, const rwf_set_db *sets)
{
    rwf_enc_frame *f;
    int r = rwf_enc_push(e, RWF_DT_ELEMENT_LIST, &f);
    if (r < 0)
        return r;
    if (!rwf_enc_room(e, 11, "an ElementList header"))
        return e->err;
    f->flags = h->flags;
    *e->pos++ = h->flags;
    if (h->flags & RWF_ELF_HAS_ELEMENT_LIST_INFO) {
        *e->pos++ = 2;
        e->pos = rwf_wr16(e->pos, h->el_num);
    }
    return list_begin_sets(e, f, h->flags, h->set_id, h->set_data, sets, RWF_DT_ELEMENT_LIST);
}

int rwf_enc_el_begin_std(rwf_enc *e)
{
    rwf_el_hdr h = {.flags = RWF_ELF_HAS_STANDARD_DATA};
    return rwf_enc_el_begin(e, &h, NULL);
}

int rwf_enc_el_entry(rwf_enc *e, rwf_buf name, int type)
{
    if (e->err)
        return e->err;
    rwf_enc_frame *f = rwf_enc_top(e);
    if (f->kind != RWF_DT_ELEMENT_LIST)
        return rwf_enc_err(e, RWF_E_INVALID, "element %.*s: the open container is a %s",
                           (int)name.len, name.data, kind_name(f->kind));
    if (f->state == RWF_ES_SET) {
        const rwf_set_entry *se = &f->set->entries[f->set_index];
        if (!rwf_buf_eq(se->name, name) || rwf_base_type(se->type) != type)
            return rwf_enc_err(e, RWF_E_INVALID, "set entry %u is %.*s (%s), not %.*s (%s)",
                               f->set_index, (int)se->name.len, se->name.data,
                               rwf_type_name(se->type), (int)name.len, name.data,
                               rwf_type_name(type));
        f->state = RWF_ES_SET_VALUE;
        return RWF_OK;
    }
    if (f->state != RWF_ES_ENTRIES)
        return rwf_enc_err(e, RWF_E_INVALID, "element %.*s: ElementList expects %s", (int)name.len,
                           name.data, state_name(f->state));
    if (name.len > 0x7FFF || type < 0 || type > 255)
        return rwf_enc_err(e, RWF_E_INVALID, "element name of %u bytes or type %d invalid",
                           (unsigned)name.len, type);
    if (!rwf_enc_room(e, 3 + (size_t)name.len, "an element entry"))
        return e->err;
    int r = count_entry(e, f);
    if (r < 0)
        return r;
    e->pos = rwf_wr_u15rb(e->pos, (uint16_t)name.len);
    if (name.len)
        memcpy(e->pos, name.data, name.len);
    e->pos += name.len;
    *e->pos++ = (uint8_t)type;
    if (type != RWF_DT_NO_DATA) {
        f->state = RWF_ES_VALUE;
        f->value_type = (uint8_t)type;
    }
    return RWF_OK;
}

int rwf_enc_el_value(rwf_enc *e, rwf_buf name, const rwf_value *v)
{
    int r = rwf_enc_el_entry(e, name, v->type);
    return r < 0 ? r : rwf_enc_value(e, v);
}

int rwf_enc_el_uint(rwf_enc *e, rwf_buf name, uint64_t v)
{
    rwf_value x = {.type = RWF_DT_UINT, .u = v};
    return rwf_enc_el_value(e, name, &x);
}

int rwf_enc_el_int(rwf_enc *e, rwf_buf name, int64_t v)
{
    rwf_value x = {.type = RWF_DT_INT, .i = v};
    return rwf_enc_el_value(e, name, &x);
}

int rwf_enc_el_buf(rwf_enc *e, rwf_buf name, int type, rwf_buf v)
{
    rwf_value x = {.type = (uint8_t)type, .buf = v};
    return rwf_enc_el_value(e, name, &x);
}

/* ---- Map / Vector / Series --------------------------------------------------------------- */

/* Begins the set definitions of a Map/Vector/Series frame (flags in f->flags). */
static int dict_setdefs(rwf_enc *e, rwf_enc_frame *f, rwf_buf set_defs, rwf_buf summary)
{
    if (f->flags & RWF_MPF_HAS_SET_DEFS) { /* same bit for Vector and Series */
        if (set_defs.len == 0) {
            f->state = RWF_ES_SETDEFS;
            return RWF_OK;
        }
        if (put_encoded(e, set_defs, 1, "encoded set definitions") < 0)
            return e->err;
    }
    return dict_after_setdefs(e, f, summary);
}

int rwf_enc_set_db(rwf_enc *e, const rwf_set_db *db)
{
    if (e->err)
        return e->err;
    rwf_enc_frame *f = rwf_enc_top(e);
    if (f->state != RWF_ES_SETDEFS)
        return rwf_enc_err(e, RWF_E_INVALID, "%s: set definitions are not expected here",
                           kind_name(f->kind));
    if (db->kind != f->ctype)
        return rwf_enc_err(e, RWF_E_INVALID, "%s of %s: set definitions are for %s",
                           kind_name(f->kind), kind_name(f->ctype), kind_name(db->kind));
    size_t size = rwf_set_db_encoded_size(db);
    if (size > 0x7FFF)
        return rwf_enc_err(e, RWF_E_INVALID, "set definitions of %zu bytes are too long", size);
    if (!rwf_enc_room(e, 2 + size, "set definitions"))
        return e->err;
    e->pos = rwf_wr_u15rb2(e->pos, (uint16_t)size);
    e->pos = rwf_set_db_put(e->pos, db);
    return dict_after_setdefs(e, f, rwf_buf_make(NULL, 0));
}

static int check_ctype(rwf_enc *e, int ctype)
{
    if (ctype < RWF_DT_CONTAINER_MIN || ctype > 255)
        return rwf_enc_err(e, RWF_E_INVALID, "type %d is not a container type", ctype);
    return RWF_OK;
}

int rwf_enc_map_begin(rwf_enc *e, const rwf_map_hdr *h)
{
    rwf_enc_frame *f;
    int r;
    if (e->err)
        return e->err;
    if ((r = check_ctype(e, h->ctype)) < 0)
        return r;
    if (h->key_type < RWF_DT_INT || h->key_type > RWF_DT_RMTES_STRING ||
        h->key_type == RWF_DT_ARRAY)
        return rwf_enc_err(e, RWF_E_INVALID, "map key type %d is not a primitive type",
                           h->key_type);
    if ((r = rwf_enc_push(e, RWF_DT_MAP, &f)) < 0)
        return r;
    if (!rwf_enc_room(e, 5, "a Map header"))
        return e->err;
    f->flags = h->flags;
    f->key_type = h->key_type;
    f->ctype = h->ctype;
    f->hint = h->total_count_hint;
    *e->pos++ = h->flags;
    *e->pos++ = h->key_type;
    *e->pos++ = (uint8_t)(h->ctype - RWF_DT_CONTAINER_MIN);
    if (h->flags & RWF_MPF_HAS_KEY_FIELD_ID)
        e->pos = rwf_wr16(e->pos, (uint16_t)h->key_fid);
    return dict_setdefs(e, f, h->set_defs, h->summary);
}

/* Writes an entry's perm data (when given), marking the container's per-entry flag. */
static int put_perm(rwf_enc *e, rwf_enc_frame *f, const rwf_buf *perm, uint8_t list_flag)
{
    if (perm->len > 0x7FFF)
        return rwf_enc_err(e, RWF_E_INVALID, "perm data of %u bytes is too long",
                           (unsigned)perm->len);
    e->pos = rwf_wr_u15rb(e->pos, (uint16_t)perm->len);
    memcpy(e->pos, perm->data, perm->len);
    e->pos += perm->len;
    f->start[0] |= list_flag;
    f->flags |= list_flag;
    return RWF_OK;
}

static rwf_enc_frame *entries_of(rwf_enc *e, int kind)
{
    rwf_enc_frame *f = rwf_enc_top(e);
    if (e->err)
        return NULL;
    if (f->kind != kind || f->state != RWF_ES_ENTRIES) {
        rwf_enc_err(e, RWF_E_INVALID, "%s entry: the open container is a %s expecting %s",
                    kind_name(kind), kind_name(f->kind), state_name(f->state));
        return NULL;
    }
    return f;
}

int rwf_enc_map_entry(rwf_enc *e, int action, const rwf_buf *perm, const rwf_value *key)
{
    rwf_enc_frame *f = entries_of(e, RWF_DT_MAP);
    int has_perm = perm && perm->len, r;
    if (!f)
        return e->err;
    if (action < RWF_MPEA_UPDATE_ENTRY || action > RWF_MPEA_DELETE_ENTRY)
        return rwf_enc_err(e, RWF_E_INVALID, "map entry action %d invalid", action);
    if (!rwf_enc_room(e, 1 + (has_perm ? 2 + (size_t)perm->len : 0), "a map entry"))
        return e->err;
    if ((r = count_entry(e, f)) < 0)
        return r;
    *e->pos++ = (uint8_t)((has_perm ? RWF_MPEF_HAS_PERM_DATA << 4 : 0) | action);
    if (has_perm && put_perm(e, f, perm, RWF_MPF_HAS_PER_ENTRY_PERM_DATA) < 0)
        return e->err;
    f->value_type = (action == RWF_MPEA_DELETE_ENTRY || f->ctype == RWF_DT_NO_DATA) ? 0 : f->ctype;
    f->state = RWF_ES_KEY;
    return rwf_enc_value(e, key);
}

int rwf_enc_map_entry_uint(rwf_enc *e, int action, uint64_t key)
{
    rwf_value k = {.type = RWF_DT_UINT, .u = key};
    return rwf_enc_map_entry(e, action, NULL, &k);
}

int rwf_enc_map_entry_buf(rwf_enc *e, int action, rwf_buf key)
{
    rwf_value k = {.type = RWF_DT_BUFFER, .buf = key};
    if (e->stack[e->depth].kind == RWF_DT_MAP)
        k.type = e->stack[e->depth].key_type;
    return rwf_enc_map_entry(e, action, NULL, &k);
}

int rwf_enc_vector_begin(rwf_enc *e, const rwf_vector_hdr *h)
{
    rwf_enc_frame *f;
    int r;
    if (e->err)
        return e->err;
    if ((r = check_ctype(e, h->ctype)) < 0)
        return r;
    if ((r = rwf_enc_push(e, RWF_DT_VECTOR, &f)) < 0)
        return r;
    if (!rwf_enc_room(e, 2, "a Vector header"))
        return e->err;
    f->flags = h->flags;
    f->ctype = h->ctype;
    f->hint = h->total_count_hint;
    *e->pos++ = h->flags;
    *e->pos++ = (uint8_t)(h->ctype - RWF_DT_CONTAINER_MIN);
    return dict_setdefs(e, f, h->set_defs, h->summary);
}

int rwf_enc_vector_entry(rwf_enc *e, int action, uint32_t index, const rwf_buf *perm)
{
    rwf_enc_frame *f = entries_of(e, RWF_DT_VECTOR);
    int has_perm = perm && perm->len, r;
    if (!f)
        return e->err;
    if (action < RWF_VTEA_UPDATE_ENTRY || action > RWF_VTEA_DELETE_ENTRY || index >= 0x40000000u)
        return rwf_enc_err(e, RWF_E_INVALID, "vector entry action %d / index %u invalid", action,
                           index);
    if (!rwf_enc_room(e, 5 + (has_perm ? 2 + (size_t)perm->len : 0), "a vector entry"))
        return e->err;
    if ((r = count_entry(e, f)) < 0)
        return r;
    *e->pos++ = (uint8_t)((has_perm ? RWF_VTEF_HAS_PERM_DATA << 4 : 0) | action);
    e->pos = rwf_wr_u30rb(e->pos, index);
    if (has_perm && put_perm(e, f, perm, RWF_VTF_HAS_PER_ENTRY_PERM_DATA) < 0)
        return e->err;
    if (action != RWF_VTEA_CLEAR_ENTRY && action != RWF_VTEA_DELETE_ENTRY &&
        f->ctype != RWF_DT_NO_DATA) {
        f->state = RWF_ES_DATA;
        f->value_type = f->ctype;
    }
    return RWF_OK;
}

int rwf_enc_series_begin(rwf_enc *e, const rwf_series_hdr *h)
{
    rwf_enc_frame *f;
    int r;
    if (e->err)
        return e->err;
    if ((r = check_ctype(e, h->ctype)) < 0)
        return r;
    if ((r = rwf_enc_push(e, RWF_DT_SERIES, &f)) < 0)
        return r;
    if (!rwf_enc_room(e, 2, "a Series header"))
        return e->err;
    f->flags = h->flags;
    f->ctype = h->ctype;
    f->hint = h->total_count_hint;
    *e->pos++ = h->flags;
    *e->pos++ = (uint8_t)(h->ctype - RWF_DT_CONTAINER_MIN);
    return dict_setdefs(e, f, h->set_defs, h->summary);
}

int rwf_enc_series_entry(rwf_enc *e)
{
    rwf_enc_frame *f = entries_of(e, RWF_DT_SERIES);
    int r;
    if (!f)
        return e->err;
    if ((r = count_entry(e, f)) < 0)
        return r;
    if (f->ctype != RWF_DT_NO_DATA) {
        f->state = RWF_ES_DATA;
        f->value_type = f->ctype;
    }
    return RWF_OK;
}

/* ---- FilterList -------------------------------------------------------------------------- */

int rwf_enc_filter_begin(rwf_enc *e, const rwf_filter_hdr *h)
{
    rwf_enc_frame *f;
    int r;
    if (e->err)
        return e->err;
    if ((r = check_ctype(e, h->ctype)) < 0)
        return r;
    if ((r = rwf_enc_push(e, RWF_DT_FILTER_LIST, &f)) < 0)
        return r;
    if (!rwf_enc_room(e, 4, "a FilterList header"))
        return e->err;
    f->flags = h->flags;
    f->ctype = h->ctype;
    *e->pos++ = h->flags;
    *e->pos++ = (uint8_t)(h->ctype - RWF_DT_CONTAINER_MIN);
    if (h->flags & RWF_FTF_HAS_TOTAL_COUNT_HINT)
        *e->pos++ = h->total_count_hint;
    f->count_at = e->pos++;
    f->state = RWF_ES_ENTRIES;
    return RWF_OK;
}

int rwf_enc_filter_entry(rwf_enc *e, int action, uint8_t id, int ctype, const rwf_buf *perm)
{
    rwf_enc_frame *f = entries_of(e, RWF_DT_FILTER_LIST);
    int has_perm = perm && perm->len, r;
    if (!f)
        return e->err;
    if (action < RWF_FTEA_UPDATE_ENTRY || action > RWF_FTEA_CLEAR_ENTRY)
        return rwf_enc_err(e, RWF_E_INVALID, "filter entry action %d invalid", action);
    if (ctype && (r = check_ctype(e, ctype)) < 0)
        return r;
    if (!rwf_enc_room(e, 3 + (has_perm ? 2 + (size_t)perm->len : 0), "a filter entry"))
        return e->err;
    if ((r = count_entry(e, f)) < 0)
        return r;
    uint8_t flags = (uint8_t)((has_perm ? RWF_FTEF_HAS_PERM_DATA : 0) |
                              (ctype ? RWF_FTEF_HAS_CONTAINER_TYPE : 0));
    *e->pos++ = (uint8_t)(flags << 4 | action);
    *e->pos++ = id;
    if (ctype)
        *e->pos++ = (uint8_t)(ctype - RWF_DT_CONTAINER_MIN);
    if (has_perm && put_perm(e, f, perm, RWF_FTF_HAS_PER_ENTRY_PERM_DATA) < 0)
        return e->err;
    int entry_ctype = ctype ? ctype : f->ctype;
    if (action != RWF_FTEA_CLEAR_ENTRY && entry_ctype != RWF_DT_NO_DATA) {
        f->state = RWF_ES_DATA;
        f->value_type = (uint8_t)entry_ctype;
    }
    return RWF_OK;
}

/* ---- Array ------------------------------------------------------------------------------- */

int rwf_enc_array_begin(rwf_enc *e, int type, uint16_t item_len)
{
    rwf_enc_frame *f;
    int r;
    if (e->err)
        return e->err;
    if (type < RWF_DT_INT || type > RWF_DT_RMTES_STRING || type == 7 || type == RWF_DT_ARRAY)
        return rwf_enc_err(e, RWF_E_INVALID, "Array item type %d is not a primitive type", type);
    if ((r = rwf_enc_push(e, RWF_DT_ARRAY, &f)) < 0)
        return r;
    if (!rwf_enc_room(e, 6, "an Array header"))
        return e->err;
    f->ctype = (uint8_t)type;
    f->item_len = item_len;
    *e->pos++ = (uint8_t)type;
    e->pos = rwf_wr_u16ob(e->pos, item_len);
    f->count_at = e->pos;
    e->pos += 2;
    f->state = RWF_ES_ITEMS;
    return RWF_OK;
}

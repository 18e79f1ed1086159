/*
 * rwf_enc_value: primitive values, written where the innermost container expects one — an
 * entry's value, a set entry, a map key, an array item.
 */
#include "rwf_enc_int.h"

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
    return rwf_enc_set_complete(e, f);
}

static int put_key(rwf_enc *e, rwf_enc_frame *f, const rwf_value *v)
{
    if (!v)
        return rwf_enc_err(e, RWF_E_INVALID, "a map key cannot be blank");
    if (!rwf_enc_type_fits(f->key_type, v->type))
        return rwf_enc_err(e, RWF_E_INVALID, "map key is a %s, the map's keys are %s",
                           rwf_type_name(v->type), rwf_type_name(f->key_type));
    if (rwf_is_buf_type(v->type)) {
        if (v->buf.len > RWF_U15RB_MAX)
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
    } else if (rwf_is_buf_type(f->ctype)) {
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
    return r < 0 ? r : rwf_enc_count_entry(e, f);
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
                           rwf_enc_kind_name(f->kind), rwf_enc_state_name(f->state));
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

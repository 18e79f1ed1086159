/*
 * rwf_enc: the encoder's core. A stack of frames, one per open container; each frame knows
 * what it expects next (RWF_ES_*) and where its back-filled lengths and counts live. Here:
 * errors, the frames (open, close, end), pre-encoded bytes and entries. The values are written
 * by rwf_enc_value.c, the containers begun by rwf_enc_list.c (FieldList, ElementList and their
 * set data) and rwf_enc_map.c (Map, Vector, Series, FilterList, Array).
 */
#include "rwf_enc_int.h"

#include <stdarg.h>
#include <stdio.h>

const char *rwf_enc_kind_name(int kind)
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

const char *rwf_enc_state_name(int s)
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
                           rwf_enc_kind_name(rwf_enc_top(e)->kind));
    if (len)
        *len = rwf_enc_len(e);
    return RWF_OK;
}

/* ---- Frames ------------------------------------------------------------------------------ */

int rwf_enc_push_frame(rwf_enc *e, int kind, rwf_enc_frame **out)
{
    rwf_enc_frame *p = rwf_enc_top(e);
    int form, want = 0;

    switch (p->state) {
    case RWF_ES_ROOT:
        form = 0;
        break;
    case RWF_ES_VALUE:
    case RWF_ES_DATA:
        form = (p->len_hint && p->len_hint < RWF_U16OB_LONG) ? 1 : 3;
        want = p->value_type;
        break;
    case RWF_ES_SET_VALUE: { /* an array (or container) in set data */
        form = (p->len_hint && p->len_hint < RWF_U16OB_LONG) ? 1 : 3;
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
                           rwf_enc_kind_name(p->kind), rwf_enc_kind_name(kind),
                           rwf_enc_state_name(p->state));
    }
    if (kind == RWF_DT_ARRAY && p->state != RWF_ES_VALUE && p->state != RWF_ES_ROOT &&
        p->state != RWF_ES_SET_VALUE)
        return rwf_enc_err(e, RWF_E_INVALID, "%s: an Array is only a field or element value",
                           rwf_enc_kind_name(p->kind));
    if (want && want != kind)
        return rwf_enc_err(e, RWF_E_INVALID, "%s: a %s was announced, not a %s",
                           rwf_enc_kind_name(p->kind), rwf_enc_kind_name(want),
                           rwf_enc_kind_name(kind));
    if (e->depth >= RWF_ENC_MAX_DEPTH)
        return rwf_enc_err(e, RWF_E_INVALID, "containers nested deeper than %d", RWF_ENC_MAX_DEPTH);
    if (!rwf_enc_room(e, (size_t)form, rwf_enc_kind_name(kind)))
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
        return rwf_enc_dict_tail(e, p);
    case RWF_ES_ATTRIB:
        return rwf_msg_enc_attrib_done(e, p);
    case RWF_ES_PAYLOAD:
        p->state = RWF_ES_DONE;
        return RWF_OK;
    case RWF_ES_SET_VALUE:
        return rwf_enc_set_complete(e, p);
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
        if (len >= RWF_U16OB_LONG)
            return rwf_enc_err(e, RWF_E_INVALID, "%s of %zu bytes exceeds its size hint",
                               rwf_enc_kind_name(f->kind), len);
        *f->len_at = (uint8_t)len;
    } else if (f->len_form == 3) {
        if (len > RWF_U16OB_MAX)
            return rwf_enc_err(e, RWF_E_INVALID, "%s of %zu bytes exceeds 65535",
                               rwf_enc_kind_name(f->kind), len);
        rwf_wr_u16ob3(f->len_at, (uint16_t)len);
    } else if (f->len_form == 2) {
        if (len > RWF_U15RB_MAX)
            return rwf_enc_err(e, RWF_E_INVALID, "%s of %zu bytes exceeds 32767",
                               rwf_enc_kind_name(f->kind), len);
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
                               rwf_enc_kind_name(f->kind), f->set_index, f->set->count);
        return rwf_enc_err(e, RWF_E_INVALID, "%s: cannot end while %s is expected",
                           rwf_enc_kind_name(f->kind), rwf_enc_state_name(f->state));
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
                           rwf_enc_kind_name(kind), rwf_enc_kind_name(rwf_enc_top(e)->kind));
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

/* ---- Pre-encoded bytes ------------------------------------------------------------------- */

/* Copies data behind a length of the given form (0 raw, 1 = u15rb minimal, 2 = u16ob). */
int rwf_enc_put_encoded(rwf_enc *e, rwf_buf data, int form, const char *what)
{
    size_t max = form == 1 ? RWF_U15RB_MAX : form == 2 ? RWF_U16OB_MAX : SIZE_MAX;
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
        return rwf_enc_put_encoded(e, data, 0, "encoded bytes");
    case RWF_ES_VALUE:
    case RWF_ES_DATA:
        if ((r = rwf_enc_put_encoded(e, data, 2, "an encoded value")) < 0)
            return r;
        return child_done(e, f);
    case RWF_ES_SET_VALUE: {
        int type = f->set->entries[f->set_index].type;
        if ((r = rwf_enc_put_encoded(e, data, type < RWF_DT_SET_PRIMITIVE_MIN ? 2 : 0,
                                     "an encoded set value")) < 0)
            return r;
        return rwf_enc_set_complete(e, f);
    }
    case RWF_ES_KEY:
        if ((r = rwf_enc_put_encoded(e, data, 1, "an encoded map key")) < 0)
            return r;
        f->state = f->value_type ? RWF_ES_DATA : RWF_ES_ENTRIES;
        return RWF_OK;
    case RWF_ES_SETDEFS:
        if ((r = rwf_enc_put_encoded(e, data, 1, "encoded set definitions")) < 0)
            return r;
        return rwf_enc_dict_after_setdefs(e, f, rwf_buf_make(NULL, 0));
    case RWF_ES_SUMMARY:
        if ((r = rwf_enc_put_encoded(e, data, 1, "encoded summary data")) < 0)
            return r;
        return rwf_enc_dict_tail(e, f);
    case RWF_ES_ATTRIB:
        if ((r = rwf_enc_put_encoded(e, data, 1, "an encoded key attribute")) < 0)
            return r;
        return rwf_msg_enc_attrib_done(e, f);
    case RWF_ES_PAYLOAD:
        if ((r = rwf_enc_put_encoded(e, data, 0, "an encoded payload")) < 0)
            return r;
        f->state = RWF_ES_DONE;
        return RWF_OK;
    case RWF_ES_ITEMS:
        if (f->item_len && data.len != f->item_len)
            return rwf_enc_err(e, RWF_E_INVALID, "encoded array item of %u bytes, items are %u",
                               (unsigned)data.len, f->item_len);
        if ((r = rwf_enc_put_encoded(e, data, f->item_len ? 0 : 2, "an encoded array item")) < 0)
            return r;
        return rwf_enc_count_entry(e, f);
    default:
        return rwf_enc_err(e, RWF_E_INVALID,
                           "%s: encoded bytes cannot be written where %s is expected",
                           rwf_enc_kind_name(f->kind), rwf_enc_state_name(f->state));
    }
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
                           rwf_enc_kind_name(f->kind));
    }
    if (f->state != RWF_ES_ENTRIES)
        return rwf_enc_err(e, RWF_E_INVALID, "pre-encoded entries: the %s expects %s",
                           rwf_enc_kind_name(f->kind), rwf_enc_state_name(f->state));
    if ((unsigned)f->count + count > RWF_COUNT_MAX)
        return rwf_enc_err(e, RWF_E_INVALID, "%s holds more than 65535 entries",
                           rwf_enc_kind_name(f->kind));
    if (!rwf_enc_room(e, entries.len, "pre-encoded entries"))
        return e->err;
    if (entries.len)
        memcpy(e->pos, entries.data, entries.len);
    e->pos += entries.len;
    f->count = (uint16_t)(f->count + count);
    return RWF_OK;
}

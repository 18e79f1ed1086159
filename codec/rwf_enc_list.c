/*
 * rwf_enc_list: FieldList and ElementList — headers, entries, and their set data (written in
 * place from a set definition, or copied pre-encoded).
 */
#include "rwf_enc_int.h"

/* One set entry was written: move to the next, or finish the set data. */
int rwf_enc_set_complete(rwf_enc *e, rwf_enc_frame *f)
{
    if (++f->set_index < f->set->count) {
        f->state = RWF_ES_SET;
        return RWF_OK;
    }
    if (f->mark) {
        size_t len = (size_t)(e->pos - f->mark - 2);
        if (len > RWF_U15RB_MAX)
            return rwf_enc_err(e, RWF_E_INVALID, "%s: set data of %zu bytes exceeds 32767",
                               rwf_enc_kind_name(f->kind), len);
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

/* Shared tail of FieldList/ElementList begin: set id, set data (pre-encoded or in place),
 * entry count. flags use the common bit values (HAS_SET_DATA 0x02, HAS_SET_ID 0x04,
 * HAS_STANDARD_DATA 0x08). */
static int list_begin_sets(rwf_enc *e, rwf_enc_frame *f, uint8_t flags, uint16_t set_id,
                           rwf_buf set_data, const rwf_set_db *sets, int kind)
{
    if (flags & RWF_FLF_HAS_SET_DATA) {
        if (flags & RWF_FLF_HAS_SET_ID) {
            if (set_id > RWF_U15RB_MAX)
                return rwf_enc_err(e, RWF_E_INVALID, "set id %u is too large", set_id);
            e->pos = rwf_wr_u15rb(e->pos, set_id);
        }
        if (set_data.len) { /* pre-encoded set data */
            if (flags & RWF_FLF_HAS_STANDARD_DATA) {
                if (rwf_enc_put_encoded(e, set_data, 1, "encoded set data") < 0)
                    return e->err;
                if (!rwf_enc_room(e, 2, "the entry count"))
                    return e->err;
                f->count_at = e->pos;
                e->pos += 2;
                f->state = RWF_ES_ENTRIES;
            } else {
                if (rwf_enc_put_encoded(e, set_data, 0, "encoded set data") < 0)
                    return e->err;
                f->state = RWF_ES_DONE;
            }
            return RWF_OK;
        }
        const rwf_set_def *def = rwf_set_db_find(sets, set_id);
        if (!def || sets->kind != kind)
            return rwf_enc_err(e, RWF_E_INVALID, "%s: no %s set definition %u given",
                               rwf_enc_kind_name(kind),
                               kind == RWF_DT_FIELD_LIST ? "field" : "element", set_id);
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
                           rwf_enc_kind_name(f->kind));
    if (f->state == RWF_ES_ENTRIES) {
        if (!rwf_enc_room(e, 2, "a field entry"))
            return e->err;
        int r = rwf_enc_count_entry(e, f);
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
                       rwf_enc_state_name(f->state));
}

int rwf_enc_fl_slow(rwf_enc *e, int16_t fid, const rwf_value *v)
{
    int r = rwf_enc_fl_entry(e, fid);
    return r < 0 ? r : rwf_enc_value(e, v);
}

int rwf_enc_fl_append(rwf_enc *e, rwf_buf entries, uint16_t count)
{
    if (!e->err && rwf_enc_top(e)->kind != RWF_DT_FIELD_LIST)
        return rwf_enc_err(e, RWF_E_INVALID, "pre-encoded fields need a FieldList, not a %s",
                           rwf_enc_kind_name(rwf_enc_top(e)->kind));
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
                           (int)name.len, name.data, rwf_enc_kind_name(f->kind));
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
                           name.data, rwf_enc_state_name(f->state));
    if (name.len > RWF_U15RB_MAX || type < 0 || type > 255)
        return rwf_enc_err(e, RWF_E_INVALID, "element name of %u bytes or type %d invalid",
                           (unsigned)name.len, type);
    if (!rwf_enc_room(e, 3 + (size_t)name.len, "an element entry"))
        return e->err;
    int r = rwf_enc_count_entry(e, f);
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

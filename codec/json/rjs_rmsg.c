/*
 * rjs_rmsg: JSON -> RWF for messages, and the frame reader (rjs_reader_*).
 *
 * A message object is read in one pass when its payload ("Fields", "Map"...) is its last
 * member, as in everything the original writes: the header is encoded when the payload key is
 * reached and the payload is encoded straight from the text. A member found after the payload
 * restarts the message in two passes (members recorded first, then encoded), so any member
 * order is accepted.
 */
#include <stdio.h>

#include "rjs_names.h"
#include "rjs_rmsg.h"

/* The class from "Type": *cls an RWF class, or *kind RJS_PING / RJS_PONG / RJS_ERROR. */
static int class_of(const msg_in *in, int *cls, int *kind)
{
    *cls = RWF_MC_REQUEST;
    *kind = RJS_MSG;
    if (!in->at[K_TYPE])
        return RWF_OK;
    rjs_lex l = {in->lx->base, in->at[K_TYPE], in->lx->end};
    rjs_str s;
    const char *at = (rjs_ws(&l), l.p);
    if (rjs_kind(&l) == RJS_V_STR) {
        int rc = rjs_string(&l, &s);
        if (rc < 0)
            return rc;
        if (RJS_STR_IS(&s, "Ping"))
            *kind = RJS_PING;
        else if (RJS_STR_IS(&s, "Pong"))
            *kind = RJS_PONG;
        else if (RJS_STR_IS(&s, "Error"))
            *kind = RJS_ERROR;
        else if ((*cls = s.esc ? -1 : rjs_value(&rjs_msg_classes, s.s, s.len)) < 0)
            return rjs_lex_err(&l, at, "\"%.*s\" is not a message type", (int)s.len, s.s);
        return RWF_OK;
    }
    uint64_t v;
    int rc = rjs_r_uint(&l, RWF_MC_POST, &v);
    if (rc >= 0 && v < RWF_MC_REQUEST)
        rc = rjs_lex_err(&l, at, "message class 0 is not valid");
    *cls = (int)v;
    return rc;
}

/* Every member present must be in ok (the members a message of class cls may have; cls -1: a
 * Ping, Pong or Error). */
static int check_members(const msg_in *in, uint64_t ok, int cls)
{
    for (int k = 0; k < K_COUNT; k++) {
        if (!in->at[k] || (ok & ((uint64_t)1 << k)))
            continue;
        if (cls < 0)
            return rjs_lex_err(in->lx, in->at[k],
                               "key \"%s\" is not valid in a Ping, Pong or Error", rjs_key_name(k));
        const char *name = rjs_name(&rjs_msg_classes, cls)->name;
        return rjs_lex_err(in->lx, in->at[k], "key \"%s\" is not valid in a%s %s message",
                           rjs_key_name(k), strchr("AEIOU", name[0]) ? "n" : "", name);
    }
    return RWF_OK;
}

/* "ID": the stream id, or the ids of a batch close. */
static int id_of(const msg_in *in, msg_out *o)
{
    if (!in->at[K_ID])
        return rjs_lex_err(in->lx, in->start, "a message needs an \"ID\"");
    rjs_lex l = {in->lx->base, in->at[K_ID], in->lx->end};
    if (o->m.msg_class == RWF_MC_CLOSE && rjs_kind(&l) == RJS_V_ARR) {
        int64_t id = 0;
        int rc = rjs_arr_begin(&l);
        if (rc <= 0)
            return rc < 0 ? rc : rjs_lex_err(&l, in->at[K_ID], "a batch close without IDs");
        if ((rc = rjs_r_int(&l, INT32_MIN, INT32_MAX, &id)) < 0)
            return rc;
        o->m.stream_id = (int32_t)id; /* the first id is the message's */
        o->close_ids = in->at[K_ID];
        o->m.flags |= RWF_CLMF_HAS_BATCH;
        return RWF_OK;
    }
    int64_t id;
    int rc = rjs_r_int(&l, INT32_MIN, INT32_MAX, &id);
    if (rc < 0)
        return rc;
    o->m.stream_id = (int32_t)id;
    return RWF_OK;
}

/* The items of the JSON array at pos as an Array of type (ASCII_STRING or INT); with names,
 * strings are field names turned into their ids. */
static int enc_items(rjs_rd *rd, const rjs_lex *lx, const char *pos, int type, int names)
{
    rjs_lex l = {lx->base, pos, lx->end};
    int rc = rwf_enc_array_begin(&rd->e, type, 0);
    if (rc < 0)
        return rc;
    for (rc = rjs_arr_begin(&l); rc > 0; rc = rjs_arr_next(&l)) {
        uint8_t *mark = rjs_tail_mark(rd);
        const char *at = (rjs_ws(&l), l.p);
        if (type == RWF_DT_ASCII_STRING) {
            rwf_buf b;
            if ((rc = rjs_kind(&l) == RJS_V_STR ? rjs_r_string(rd, &l, &b)
                                                : rjs_r_expected(&l, "a string")) >= 0)
                rc = rwf_enc_buf(&rd->e, type, b);
        } else if (names && rjs_kind(&l) == RJS_V_STR) {
            rwf_buf b;
            const rwf_dict_field *def = NULL;
            if ((rc = rjs_r_string(rd, &l, &b)) >= 0 &&
                !(def = rjs_field_by_name(rd->c, (const char *)b.data, b.len, b.len)))
                rc = rjs_lex_err(&l, at, "field \"%.*s\" is not in the dictionary", (int)b.len,
                                 b.data);
            if (rc >= 0)
                rc = rwf_enc_int(&rd->e, def->fid);
        } else {
            int64_t v;
            if ((rc = rjs_r_int(&l, INT32_MIN, INT32_MAX, &v)) >= 0)
                rc = rwf_enc_int(&rd->e, v);
        }
        rjs_tail_release(rd, mark);
        if (rc < 0)
            return rc;
    }
    return rc < 0 ? rc : rwf_enc_array_end(&rd->e);
}

/* The ElementList payload of a batch and/or view request. */
static int enc_batch_view(rjs_rd *rd, const msg_in *in, const msg_out *o)
{
    rwf_enc *e = &rd->e;
    int rc = rwf_enc_el_begin_std(e);
    if (rc >= 0 && o->kx.names) {
        if ((rc = rwf_enc_el_entry(e, RWF_STR(":ItemList"), RWF_DT_ARRAY)) < 0 ||
            (rc = enc_items(rd, in->lx, o->kx.names, RWF_DT_ASCII_STRING, 0)) < 0)
            return rc;
    }
    if (rc >= 0 && o->view) {
        int t = o->view_type == 2 ? RWF_DT_ASCII_STRING : RWF_DT_INT;
        if ((rc = rwf_enc_el_uint(e, RWF_STR(":ViewType"), (uint64_t)o->view_type)) < 0 ||
            (rc = rwf_enc_el_entry(e, RWF_STR(":ViewData"), RWF_DT_ARRAY)) < 0 ||
            (rc = enc_items(rd, in->lx, o->view, t, 1)) < 0)
            return rc;
    }
    return rc < 0 ? rc : rwf_enc_el_end(e);
}

static int enc_close_batch(rjs_rd *rd, const msg_in *in, const msg_out *o)
{
    rwf_enc *e = &rd->e;
    int rc;
    if ((rc = rwf_enc_el_begin_std(e)) < 0 ||
        (rc = rwf_enc_el_entry(e, RWF_STR(":StreamIdList"), RWF_DT_ARRAY)) < 0 ||
        (rc = enc_items(rd, in->lx, o->close_ids, RWF_DT_INT, 0)) < 0)
        return rc;
    return rwf_enc_el_end(e);
}

/* Header: class, domain, members allowed, the class's members. *kind set. */
static int read_header(rjs_rd *rd, const msg_in *in, int nested, msg_out *o, int *kind,
                       rwf_buf *text)
{
    int cls, rc, v;
    memset(o, 0, sizeof(*o));
    if ((rc = class_of(in, &cls, kind)) < 0)
        return rc;
    if (*kind != RJS_MSG) {
        uint64_t ok = ((uint64_t)1 << K_ID) | ((uint64_t)1 << K_TYPE);
        if (*kind == RJS_ERROR)
            ok |= ((uint64_t)1 << K_TEXT) | ((uint64_t)1 << K_DEBUG);
        if (nested)
            return rjs_lex_err(in->lx, in->at[K_TYPE], "a Post carries a Ping, Pong or Error");
        if ((rc = check_members(in, ok, -1)) < 0)
            return rc;
        if (in->payload)
            return rjs_lex_err(in->lx, in->payload, "a Ping, Pong or Error has no payload");
        if (*kind == RJS_ERROR && in->at[K_TEXT] && text) {
            rjs_lex l = {in->lx->base, in->at[K_TEXT], in->lx->end};
            rjs_str s;
            if (rjs_kind(&l) == RJS_V_STR && rjs_string(&l, &s) >= 0)
                *text = rwf_buf_make(s.s, s.len);
        }
        return RWF_OK;
    }
    o->m.msg_class = (uint8_t)cls;
    o->m.domain = RWF_DMT_MARKET_PRICE;
    if (in->at[K_DOMAIN]) {
        rjs_lex l = {in->lx->base, in->at[K_DOMAIN], in->lx->end};
        if ((rc = rjs_r_named(&l, &rjs_domains, 255, &v)) < 0)
            return rc;
        o->m.domain = (uint8_t)v;
    }
    if ((rc = check_members(in, rjs_keys_allowed(cls), cls)) < 0 || (rc = id_of(in, o)) < 0 ||
        (rc = rjs_h_class(rd, in, o)) < 0)
        return rc;
    int synth = (o->m.flags & (RWF_RQMF_HAS_BATCH | RWF_RQMF_HAS_VIEW) && cls == RWF_MC_REQUEST) ||
                o->close_ids;
    if (synth && in->payload)
        return rjs_lex_err(in->lx, in->payload, "a batch or view message has no other payload");
    o->m.container_type = (uint8_t)(synth         ? RWF_DT_ELEMENT_LIST
                                    : in->payload ? in->ptype
                                                  : RWF_DT_NO_DATA);
    return RWF_OK;
}

/* Encodes the message recorded in in; its payload is read from plx when given (single pass),
 * else from its recorded position. */
static int encode(rjs_rd *rd, const msg_in *in, rjs_lex *plx, int nested, int *kind, rwf_buf *text)
{
    msg_out o;
    uint8_t *mark = rjs_tail_mark(rd);
    int rc = read_header(rd, in, nested, &o, kind, text);
    if (rc < 0 || *kind != RJS_MSG) {
        rjs_tail_release(rd, mark);
        return rc;
    }
    if ((rc = rwf_enc_msg_begin(&rd->e, &o.m)) >= 0 && o.kx.attrib) {
        rjs_lex l = {in->lx->base, o.kx.attrib, in->lx->end};
        if ((rc = rjs_r_container(rd, &l, RWF_DT_ELEMENT_LIST)) < 0 && rc != RWF_E_NOSPACE)
            err_push("\"Key\": \"Elements\"");
    }
    rjs_tail_release(rd, mark);
    if (rc < 0)
        return rc;
    if (o.m.container_type == RWF_DT_NO_DATA) {
        rc = RWF_OK;
    } else if (o.close_ids) {
        rc = enc_close_batch(rd, in, &o);
    } else if (o.m.msg_class == RWF_MC_REQUEST &&
               (o.m.flags & (RWF_RQMF_HAS_BATCH | RWF_RQMF_HAS_VIEW))) {
        rc = enc_batch_view(rd, in, &o);
    } else {
        rjs_lex l = {in->lx->base, in->payload, in->lx->end};
        rc = rjs_r_container(rd, plx ? plx : &l, in->ptype);
        if (rc < 0 && rc != RWF_E_NOSPACE)
            err_push("\"%s\"", rjs_container_key(in->ptype));
    }
    return rc < 0 ? rc : rwf_enc_msg_end(&rd->e);
}

int rjs_r_msg(rjs_rd *rd, rjs_lex *lx, int nested, int *kind, rwf_buf *text)
{
    msg_in in;
    rjs_str k;
    int rc, done = 0;
    memset(&in, 0, sizeof(in));
    in.lx = lx;
    in.start = (rjs_ws(lx), lx->p);
    if (rjs_kind(lx) != RJS_V_OBJ)
        return rjs_r_expected(lx, "a message (an object)");
    for (rc = rjs_obj_begin(lx); rc > 0; rc = rjs_obj_next(lx)) {
        if ((rc = rjs_obj_key(lx, &k)) < 0)
            return rc;
        int id = rjs_key_id(&k), ct = id < 0 && !k.esc ? rjs_container_of_key(k.s, k.len) : -1;
        const char *at = (rjs_ws(lx), lx->p);
        if (done && (id >= 0 || ct >= 0))
            return RJS_RESTART; /* a member after the payload: read again in two passes */
        if (id >= 0) {
            in.at[id] = at;
        } else if (ct >= 0) {
            if (in.payload)
                return rjs_lex_err(lx, k.s - 1, "a second payload \"%.*s\"", (int)k.len, k.s);
            in.payload = at;
            in.ptype = ct;
            if (!rd->deferred) { /* a failure may be a member still to come: read again */
                if ((rc = encode(rd, &in, lx, nested, kind, text)) < 0)
                    return RJS_RESTART;
                done = 1;
                continue;
            }
        } else if (!(rd->c->opts.flags & RJS_SKIP_UNKNOWN)) {
            return rjs_lex_err(lx, k.s - 1, "unknown key \"%.*s\"", (int)k.len, k.s);
        }
        if ((rc = rjs_skip(lx)) < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    return done ? RWF_OK : encode(rd, &in, NULL, nested, kind, text);
}

/* ---- The frame reader --------------------------------------------------------------------- */

void rjs_reader_init(rjs_reader *r, const char *text, size_t len)
{
    memset(r, 0, sizeof(*r));
    r->text = text;
    r->len = len;
}

/* Converts the message at lx into out. */
static int convert(const rjs_conv *c, rjs_lex *lx, void *out, size_t cap, size_t *len,
                   rwf_buf *text)
{
    rjs_lex start = *lx;
    int rc = RJS_RESTART, kind = RJS_MSG;
    for (int deferred = 0; deferred < 2 && rc == RJS_RESTART; deferred++) {
        rjs_rd rd;
        rd.c = c;
        rd.deferred = deferred;
        rd.depth = 0;
        rwf_enc_init(&rd.e, out, cap);
        *lx = start;
        rc = rjs_r_msg(&rd, lx, 0, &kind, text);
        if (rc >= 0 && rc != RJS_RESTART && kind == RJS_MSG)
            rc = rwf_enc_finish(&rd.e, len);
    }
    if (rc < 0)
        return rc;
    if (kind != RJS_MSG)
        *len = 0;
    return kind;
}

/* Ends a frame: after the last message only white space may follow. */
static int frame_end(rjs_reader *r, rjs_lex *lx)
{
    r->done = 1;
    rjs_ws(lx);
    r->pos = (size_t)(lx->p - r->text);
    if (lx->p != lx->end)
        return rjs_lex_err(lx, lx->p, "text after the end of the frame");
    return RWF_OK;
}

/* Moves past the message just read (or skips the one that failed): to the next one, or to the
 * end of the frame. */
static int next_message(rjs_reader *r, rjs_lex *lx)
{
    if (!r->array)
        return frame_end(r, lx);
    int rc = rjs_arr_next(lx);
    if (rc < 0) {
        r->done = 1;
        return rc;
    }
    r->pos = (size_t)(lx->p - r->text);
    return rc == 0 ? frame_end(r, lx) : RWF_OK;
}

/* The first call: is the frame an array or one object. */
static int frame_begin(rjs_reader *r, rjs_lex *lx)
{
    int k = rjs_kind(lx);
    if (k == RJS_V_ARR) {
        r->array = 1;
        int rc = rjs_arr_begin(lx);
        if (rc <= 0) {
            if (rc == 0)
                rc = frame_end(r, lx);
            r->done = 1;
            return rc < 0 ? rc : RWF_END;
        }
    } else if (k != RJS_V_OBJ) {
        r->done = 1;
        return rjs_r_expected(lx, "a JSON object or array of objects");
    }
    r->pos = (size_t)(lx->p - r->text);
    return RWF_OK;
}

int rjs_reader_next(const rjs_conv *c, rjs_reader *r, void *out, size_t cap, size_t *len)
{
    rjs_lex lx = {r->text, r->text + r->pos, r->text + r->len};
    int rc;
    *len = 0;
    if (r->done)
        return RWF_END;
    if (r->index == 0 && r->pos == 0 && (rc = frame_begin(r, &lx)) != RWF_OK) {
        if (rc < 0)
            err_push("JSON frame");
        return rc;
    }
    r->index++;
    const char *start = (rjs_ws(&lx), lx.p);
    r->text_view = rwf_buf_make(NULL, 0);
    int kind = convert(c, &lx, out, cap, len, &r->text_view);
    if (kind < 0) {
        err_push("JSON message %u (starts at offset %zu)", r->index, (size_t)(start - r->text));
        /* resume after the failed message when its text is well formed */
        char keep[ERR_MSG_MAX];
        snprintf(keep, sizeof(keep), "%s", err_msg());
        lx.p = start;
        if (rjs_skip(&lx) < 0 || next_message(r, &lx) < 0)
            r->done = 1;
        err_set("%s", keep);
        return kind;
    }
    if ((rc = next_message(r, &lx)) < 0) {
        err_push("JSON frame");
        return rc;
    }
    return kind;
}

int rjs_json_to_msg(const rjs_conv *c, const char *text, size_t len, void *out, size_t cap,
                    size_t *out_len)
{
    rjs_reader r;
    rjs_reader_init(&r, text, len);
    int rc = rjs_reader_next(c, &r, out, cap, out_len);
    if (rc == RWF_END) {
        err_set("JSON frame without a message");
        return RWF_E_MALFORMED;
    }
    if (rc >= 0 && !r.done) {
        err_set("JSON frame with more than one message");
        return RWF_E_INVALID;
    }
    return rc;
}

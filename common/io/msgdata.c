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
#include "msgdata_int.h"

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

void *md_alloc(msgdata *md, size_t size)
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

void *md_copy(msgdata *md, const void *p, size_t len)
{
    void *q = md_alloc(md, len);
    if (q && len)
        memcpy(q, p, len);
    return q;
}

/* ---- What the ETA parser's memory block would hold (msgdata_int.h) ---------------------- */

void md_eta_note(eta_trace *t, uint32_t count, uint32_t size)
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

uint32_t md_eta_memory(const eta_trace *t)
{
    uint64_t cap = ETA_FIRST_BLOCK, left = 0;
    while (!eta_replay(t, cap, &left) && cap < ((uint64_t)1 << 40))
        cap *= 2;
    return left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
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
        rc = md_parse_doc(&p, doc);
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

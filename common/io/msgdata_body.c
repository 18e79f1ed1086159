/* msgdata: message bodies, message lists and the document (msgdata_int.h). */
#include "msgdata_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A MarketPrice message: dataBody/fieldList -> field entries. */
static int parse_mp_body(parser *p, const xmlNode *body, msgdata_msg *m)
{
    const xmlNode *list = md_child(body, "fieldList");
    if (!list)
        return md_perr(p, body, "dataBody has no <fieldList>");
    field *v;
    size_t n;
    if (md_parse_fields(p, list, &v, &n) < 0)
        return -1;
    size_t room = md_fields_room(v, n);
    uint8_t *buf = malloc(room);
    int rc = -1;
    if (!buf) {
        err_set("%s: out of memory", p->name);
    } else {
        rwf_enc e;
        size_t len;
        rwf_enc_init(&e, buf, room);
        rwf_enc_fl_begin_std(&e);
        if (md_encode_fields(p, &e, v, n) == 0) {
            rwf_enc_fl_end(&e);
            if (rwf_enc_finish(&e, &len) < 0) {
                md_locate(p, list);
            } else {
                /* Skip the FieldList header: flags (1) and entry count (2). */
                m->entries_len = (uint32_t)(len - 3);
                m->entries = md_copy(p->md, buf + 3, m->entries_len);
                m->count = (uint16_t)n;
                m->estimated_len = md_estimate_fields(v, n);
                rc = m->entries ? 0 : -1;
            }
        }
    }
    free(buf);
    md_free_fields(v, n);
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
        if (!md_is_elem(d, "fieldSetDef"))
            return md_perr(p, d, "fieldSetDefs contains an unknown element <%s>",
                           (const char *)d->name);
        long id = 0;
        if (md_int_attr(p, d, "setId", 0, RWF_SET_MAX_ID, true, &id) < 0)
            return -1;
        if (db->defs[id].used)
            return md_perr(p, d, "set %ld is defined twice", id);
        uint32_t count = md_count_elems(d, "fieldSetDefEntry");
        if (count == 0 || count > 255)
            return md_perr(p, d, "set %ld has %u entries (1 to 255 allowed)", id, count);
        rwf_set_entry *entries = md_alloc(p->md, count * sizeof(*entries));
        if (!entries)
            return -1;
        uint32_t k = 0;
        for (xmlNode *c = d->children; c; c = c->next) {
            if (c->type != XML_ELEMENT_NODE)
                continue;
            if (!md_is_elem(c, "fieldSetDefEntry"))
                return md_perr(p, c, "fieldSetDef contains an unknown element <%s>",
                               (const char *)c->name);
            long fid = 0;
            if (md_int_attr(p, c, "fieldId", INT16_MIN, INT16_MAX, true, &fid) < 0)
                return -1;
            char *dt = md_attr(c, "dataType");
            if (!dt)
                return md_perr(p, c, "fieldSetDefEntry has no dataType attribute");
            long type = md_type_of(dt);
            int base = type < 0 ? -1 : rwf_base_type((int)type);
            bool ok = type >= 0 && (rwf_set_type_size((int)type) >= 0) && type != RWF_DT_ARRAY &&
                      (type < RWF_DT_DATETIME_11 || type > RWF_DT_TIME_8);
            if (!ok) {
                md_perr(p, c, "fieldSetDefEntry: dataType \"%s\" is not a set definition type", dt);
                xmlFree(dt);
                return -1;
            }
            xmlFree(dt);
            int dict_type = rwf_dict_type(p->dict, (int16_t)fid);
            if (!dict_type)
                return md_perr(p, c, "set %ld: field %ld is not in the dictionary", id, fid);
            if (dict_type != base)
                return md_perr(p, c,
                               "set %ld: field %ld: dataType mismatch with dictionary (%s instead "
                               "of %s)",
                               id, fid, md_tname((int)type), md_tname(dict_type));
            entries[k++] = (rwf_set_entry){.fid = (int16_t)fid, .type = (uint8_t)type};
        }
        if (rwf_set_db_add(db, (uint16_t)id, entries, (uint8_t)count) < 0)
            return md_perr(p, d, "set %ld cannot be defined", id);
    }
    *out = db;
    return 0;
}

/* One mapEntry of a MarketByOrder map (key, action, fieldList) into the open map; adds the
 * ETA estimate of its field list to *estimate. */
static int encode_order(parser *p, rwf_enc *e, const xmlNode *n, const rwf_set_db *sets,
                        uint32_t *estimate)
{
    char *key = md_attr(n, "key");
    if (!key)
        return md_perr(p, n, "mapEntry has no key attribute");
    char *act = md_attr(n, "action");
    if (!act) {
        xmlFree(key);
        return md_perr(p, n, "mapEntry has no action attribute");
    }
    long action = md_name_or_number(md_map_actions, act, RWF_MPEA_DELETE_ENTRY);
    int rc = 0;
    if (action < RWF_MPEA_UPDATE_ENTRY)
        rc = md_perr(p, n, "mapEntry action \"%s\" is not a map entry action", act);
    xmlFree(act);

    const xmlNode *list = md_child(n, "fieldList");
    if (rc == 0 && !list && action != RWF_MPEA_DELETE_ENTRY)
        rc = md_perr(p, n, "mapEntry has no <fieldList>");
    long set_id = -1;
    field *v = NULL;
    size_t count = 0;
    if (rc == 0 && list) {
        rc = md_int_attr(p, list, "setId", 0, RWF_SET_MAX_ID, false, &set_id);
        if (rc == 0 && set_id >= 0 && sets && !rwf_set_db_find(sets, (uint16_t)set_id))
            rc = md_perr(p, list, "setId %ld is not defined in the map's fieldSetDefs", set_id);
        if (rc == 0)
            rc = md_parse_fields(p, list, &v, &count);
        if (rc == 0)
            *estimate += md_estimate_fields(v, count);
    }
    if (rc == 0 && rwf_enc_map_entry_buf(e, (int)action, rwf_buf_cstr(key)) < 0)
        rc = md_locate(p, n);
    if (rc == 0 && action != RWF_MPEA_DELETE_ENTRY) {
        rwf_fl_hdr h = {.flags = RWF_FLF_HAS_STANDARD_DATA};
        if (sets && set_id >= 0) {
            h.flags |= RWF_FLF_HAS_SET_DATA;
            h.set_id = (uint16_t)set_id;
            if (set_id)
                h.flags |= RWF_FLF_HAS_SET_ID;
        }
        if (rwf_enc_fl_begin(e, &h, sets) < 0)
            rc = md_locate(p, list);
        else if (md_encode_fields(p, e, v, count) < 0)
            rc = -1;
        else if (rwf_enc_fl_end(e) < 0)
            rc = md_locate(p, list);
    }
    if (v)
        md_free_fields(v, count);
    xmlFree(key);
    return rc;
}

/* Bytes of all attribute values of n (entities expanded). */
static size_t attrs_len(const xmlNode *n)
{
    size_t len = 0;
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        char *v = md_attr(n, (const char *)a->name);
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
        if (!md_is_elem(e, "mapEntry"))
            continue;
        room += 32 + attrs_len(e);
        const xmlNode *list = md_child(e, "fieldList");
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
    const xmlNode *map = md_child(body, "map");
    if (!map)
        return md_perr(p, body, "dataBody has no <map>");
    uint32_t orders = 0;
    const xmlNode *defs = NULL;
    for (xmlNode *c = map->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (md_is_elem(c, "mapEntry")) {
            orders++;
        } else if (md_is_elem(c, "fieldSetDefs")) {
            if (defs)
                return md_perr(p, c, "map has a second <fieldSetDefs>");
            defs = c;
        } else {
            return md_perr(p, c, "map contains an unknown element <%s>", (const char *)c->name);
        }
    }
    if (orders > 0xFFFF)
        return md_perr(p, map, "map holds %u entries, more than 65535", orders);
    md_eta_note(&p->trace, orders, ETA_ORDER);

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
    int rc = rwf_enc_status(&e) < 0 ? md_locate(p, map) : 0;
    uint32_t estimate = 0;
    for (xmlNode *c = map->children; c && rc == 0; c = c->next) {
        if (md_is_elem(c, "mapEntry")) {
            rc = encode_order(p, &e, c, sets, &estimate);
        } else if (md_is_elem(c, "fieldSetDefs")) {
            /* Note the reservations of the set definitions in their place. */
            md_eta_note(&p->trace, 1, ETA_SET_DB);
            for (xmlNode *d = c->children; d; d = d->next)
                if (d->type == XML_ELEMENT_NODE)
                    md_eta_note(&p->trace, md_count_named(d, "fieldSetDefEntry"), ETA_SET_ENTRY);
        }
    }
    size_t len = 0;
    if (rc == 0) {
        rwf_enc_map_end(&e);
        if (rwf_enc_finish(&e, &len) < 0)
            rc = md_locate(p, map);
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
    m->line = md_node_line(n);
    if (kind == MSGDATA_POST) {
        container = md_child(n, "updateMsg");
        if (!container)
            return md_perr(p, n, "postMsg must contain an <updateMsg>");
    }
    const xmlNode *body = md_child(container, "dataBody");
    if (!body)
        return md_perr(p, container, "%s has no <dataBody>", (const char *)container->name);
    if (l->domain == RWF_DMT_MARKET_PRICE)
        return parse_mp_body(p, body, m);
    return parse_mbo_body(p, body, m);
}

static int parse_list(parser *p, msgdata_list *l, const xmlNode *list, int domain)
{
    if (l->present)
        return md_perr(p, list, "second <%s>", (const char *)list->name);
    l->present = true;
    l->domain = (uint8_t)domain;

    /* The ETA parser sizes its arrays by counting children by name, of any node type. */
    uint32_t nu = md_count_named(list, "updateMsg"), np = md_count_named(list, "postMsg"),
             ng = md_count_named(list, "genMsg");
    uint32_t msg_size = domain == RWF_DMT_MARKET_PRICE ? ETA_MP_MSG : ETA_MBO_MSG;
    md_eta_note(&p->trace, nu, msg_size);
    md_eta_note(&p->trace, np, msg_size);
    md_eta_note(&p->trace, ng, msg_size);
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
        if (md_is_elem(c, "refreshMsg")) {
            if (refresh)
                return md_perr(p, c, "second <refreshMsg> in <%s> (one is allowed)",
                               (const char *)list->name);
            refresh = true;
            rc = parse_msg(p, l, c, MSGDATA_REFRESH, &l->refresh);
        } else if (md_is_elem(c, "updateMsg")) {
            rc = parse_msg(p, l, c, MSGDATA_UPDATE, &l->updates[l->update_count++]);
        } else if (md_is_elem(c, "postMsg")) {
            rc = parse_msg(p, l, c, MSGDATA_POST, &l->posts[l->post_count++]);
        } else if (md_is_elem(c, "genMsg")) {
            rc = parse_msg(p, l, c, MSGDATA_GENERIC, &l->generics[l->generic_count++]);
        } else {
            return md_perr(p, c, "unknown element <%s> in <%s>", (const char *)c->name,
                           (const char *)list->name);
        }
        if (rc < 0)
            return -1;
    }
    if (!refresh)
        return md_perr(p, list, "<%s> has no <refreshMsg>", (const char *)list->name);
    return 0;
}

int md_parse_doc(parser *p, xmlDoc *doc)
{
    xmlNode *root = xmlDocGetRootElement(doc);
    if (!root)
        return err_set("%s: no root element", p->name);
    for (xmlNode *c = root->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        msgdata_list *l;
        int domain;
        if (md_is_elem(c, "marketPriceMsgList")) {
            l = &p->md->mp;
            domain = RWF_DMT_MARKET_PRICE;
        } else if (md_is_elem(c, "marketByOrderMsgList")) {
            l = &p->md->mbo;
            domain = RWF_DMT_MARKET_BY_ORDER;
        } else {
            return md_perr(p, c,
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
        l->eta_memory = md_eta_memory(&p->trace);
    }
    if (!p->md->mp.present && !p->md->mbo.present)
        return md_perr(p, root, "<%s> holds neither marketPriceMsgList nor marketByOrderMsgList",
                       (const char *)root->name);
    return 0;
}

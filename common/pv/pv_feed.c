#include "pv_feed.h"

#include "datafile.h"
#include "err.h"
#include "msgdata.h"
#include "opt.h"
#include "run_setup.h"

#include <stdlib.h>
#include <string.h>

struct pv_content {
    msgdata md;
    pv_tmpl *tmpl[PV_DOMS]; /* updates then generic messages of each domain */
    uint8_t **pre[PV_DOMS]; /* -preEnc: each update encoded whole */
    uint32_t *pre_len[PV_DOMS];
    rjs_tmpl *json[PV_DOMS]; /* pv_content_json: PV_JSON_FORMS per template */
    uint32_t json_n[PV_DOMS];
};

static pv_tmpl tmpl_of(const msgdata_msg *m)
{
    pv_tmpl t;
    memset(&t, 0, sizeof(t));
    t.domain = m->domain;
    t.entries = m->entries;
    t.entries_len = m->entries_len;
    t.count = m->count;
    t.set_defs = m->set_defs;
    t.set_defs_len = m->set_defs_len;
    return t;
}

static int build_domain(pv_content *c, int d, const msgdata_list *l, bool pre_enc, pv_dom *out)
{
    memset(out, 0, sizeof(*out));
    if (!l || !l->present)
        return 0;
    if (!l->update_count)
        return err_set("no %s update messages in the message data file",
                       d == PV_DOM_MP ? "MarketPrice" : "MarketByOrder");
    uint32_t n = l->update_count + l->generic_count;
    pv_tmpl *t = calloc(n, sizeof(*t));
    if (!t)
        return err_set("out of memory for %u templates", n);
    c->tmpl[d] = t;
    for (uint32_t i = 0; i < l->update_count; i++)
        t[i] = tmpl_of(&l->updates[i]);
    for (uint32_t i = 0; i < l->generic_count; i++)
        t[l->update_count + i] = tmpl_of(&l->generics[i]);
    out->present = true;
    out->refresh = tmpl_of(&l->refresh);
    out->updates = t;
    out->n_updates = (uint16_t)l->update_count;
    out->generics = t + l->update_count;
    out->n_generics = (uint16_t)l->generic_count;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = pv_msg_max_size(&t[i]);
        if (s > out->max_size)
            out->max_size = s;
    }
    if (!pre_enc)
        return 0;
    c->pre[d] = calloc(l->update_count, sizeof(*c->pre[d]));
    c->pre_len[d] = calloc(l->update_count, sizeof(*c->pre_len[d]));
    if (!c->pre[d] || !c->pre_len[d])
        return err_set("out of memory for pre-encoded updates");
    for (uint32_t i = 0; i < l->update_count; i++) {
        c->pre[d][i] = malloc(pv_msg_max_size(&t[i]));
        if (!c->pre[d][i])
            return err_set("out of memory for pre-encoded updates");
        c->pre_len[d][i] = pv_msg_update(c->pre[d][i], 0, &t[i], 0, 0);
    }
    out->pre = (const uint8_t *const *)c->pre[d];
    out->pre_len = c->pre_len[d];
    return 0;
}

pv_content *pv_content_load(const char *path, const rwf_dict *dict, bool pre_enc, pv_feed *f)
{
    pv_content *c = calloc(1, sizeof(*c));
    if (!c) {
        err_set("out of memory loading %s", path);
        return NULL;
    }
    if (msgdata_load(&c->md, path, dict) != 0) {
        free(c);
        return NULL;
    }
    if (build_domain(c, PV_DOM_MP, msgdata_list_of(&c->md, 6), pre_enc, &f->dom[PV_DOM_MP]) != 0 ||
        build_domain(c, PV_DOM_MBO, msgdata_list_of(&c->md, 7), pre_enc, &f->dom[PV_DOM_MBO]) !=
            0) {
        err_push("%s", path);
        pv_content_free(c);
        return NULL;
    }
    if (!f->dom[PV_DOM_MP].present && !f->dom[PV_DOM_MBO].present) {
        err_set("%s: no MarketPrice or MarketByOrder messages", path);
        pv_content_free(c);
        return NULL;
    }
    return c;
}

void pv_content_free(pv_content *c)
{
    if (!c)
        return;
    for (int d = 0; d < PV_DOMS; d++) {
        const msgdata_list *l = msgdata_list_of(&c->md, d == PV_DOM_MP ? 6 : 7);
        if (c->pre[d] && l)
            for (uint32_t i = 0; i < l->update_count; i++)
                free(c->pre[d][i]);
        free(c->pre[d]);
        free(c->pre_len[d]);
        free(c->tmpl[d]);
        for (uint32_t i = 0; c->json[d] && i < c->json_n[d]; i++)
            rjs_tmpl_free(&c->json[d][i]);
        free(c->json[d]);
    }
    msgdata_free(&c->md);
    free(c);
}

/* The values a template's JSON form is rendered with, each unlike any value of the content
 * (checked: rjs_tmpl_build finds each exactly once): the stream id, the send time, the
 * scheduled time. */
static const uint64_t json_marks[PV_JSON_VALS] = {1999999937u, 18446744073709551557u,
                                                  18446744073709551533u};

/* The JSON forms of template t (a generic message when generic) into forms[PV_JSON_FORMS],
 * rwf a scratch of pv_msg_max_size(t) bytes. A form that cannot be cut stays unbuilt. */
static int json_forms(const rjs_conv *conv, const pv_tmpl *t, bool generic, uint8_t *rwf,
                      rjs_tmpl *forms)
{
    for (unsigned v = 0; v < PV_JSON_FORMS; v++) {
        uint64_t marks[PV_JSON_VALS] = {json_marks[0], v & 1 ? json_marks[1] : 0,
                                        v & 2 ? json_marks[2] : 0};
        int32_t sid = (int32_t)marks[0];
        uint32_t len = generic ? pv_msg_generic(rwf, sid, t, marks[1], marks[2])
                               : pv_msg_update(rwf, sid, t, marks[1], marks[2]);
        int rc = rjs_tmpl_build(conv, rwf_buf_make(rwf, len), marks, PV_JSON_VALS, 1u, &forms[v]);
        if (rc == RWF_E_NOMEM || (rc < 0 && rc != RWF_E_NOTFOUND))
            return err_push("the JSON form of %s %s", generic ? "a generic message" : "an update",
                            "template");
    }
    return 0;
}

int pv_content_json(pv_content *c, const rjs_conv *conv, pv_feed *f)
{
    for (int d = 0; d < PV_DOMS; d++) {
        pv_dom *dom = &f->dom[d];
        if (!dom->present || c->json[d])
            continue;
        uint32_t n = (uint32_t)dom->n_updates + dom->n_generics;
        c->json[d] = calloc((size_t)n * PV_JSON_FORMS, sizeof(rjs_tmpl));
        uint8_t *rwf = malloc(dom->max_size);
        if (!c->json[d] || !rwf) {
            free(rwf);
            return err_set("out of memory for the JSON forms of the messages");
        }
        c->json_n[d] = n * PV_JSON_FORMS;
        int rc = 0;
        for (uint32_t i = 0; i < n && rc == 0; i++) {
            bool generic = i >= dom->n_updates;
            const pv_tmpl *t = generic ? &dom->generics[i - dom->n_updates] : &dom->updates[i];
            rc = json_forms(conv, t, generic, rwf, &c->json[d][i * PV_JSON_FORMS]);
        }
        free(rwf);
        if (rc != 0)
            return -1;
        dom->json = c->json[d];
    }
    return 0;
}

void pv_content_print_loaded(const pv_content *c, FILE *out)
{
    fprintf(out,
            "Data loaded from XML. Market Price Memory: %u bytes, Market By Order Memory: %u "
            "bytes\n",
            c->md.mp.present ? c->md.mp.eta_memory : 0,
            c->md.mbo.present ? c->md.mbo.eta_memory : 0);
}

/* The sizes of one domain, as the ETA providers print them. */
static void print_domain(const msgdata_list *l, const char *name, bool mbo, FILE *out)
{
    pv_tmpl t = tmpl_of(&l->refresh);
    /* The refresh of an item whose key has no name (service 0, name type RIC). */
    pv_item it;
    memset(&it, 0, sizeof(it));
    it.domain = l->domain;
    pv_key k;
    memset(&k, 0, sizeof(k));
    k.flags = PV_KEY_NAME_TYPE | PV_KEY_SERVICE_ID;
    k.name_type = 1;
    uint32_t cap = pv_msg_refresh_max_size(&t, 0, 0);
    uint8_t *buf = malloc(cap);
    if (!buf)
        return;
    uint32_t len = pv_msg_refresh(buf, cap, &it, &k, &t);
    fprintf(out,
            "  %s RefreshMsg(without name):%s\n"
            "         estimated length: %u bytes\n"
            "    approx encoded length: %u bytes\n",
            name, mbo ? " " : "", msgdata_estimated_len(&l->refresh, MSGDATA_REFRESH, 0), len);
    free(buf);
    for (uint32_t i = 0; i < l->update_count; i++) {
        t = tmpl_of(&l->updates[i]);
        buf = malloc(pv_msg_max_size(&t));
        if (!buf)
            return;
        len = pv_msg_update(buf, 0, &t, 0, 0);
        free(buf);
        fprintf(out,
                "  %s UpdateMsg %u:%s\n"
                "         estimated length: %u bytes\n"
                "    approx encoded length: %u bytes\n",
                name, i + 1, mbo ? "" : " ",
                msgdata_estimated_len(&l->updates[i], MSGDATA_UPDATE, 0), len);
    }
}

void pv_content_print_sizes(const pv_content *c, FILE *out)
{
    if (c->md.mp.present) {
        fprintf(out, "Approximate message sizes:\n");
        print_domain(&c->md.mp, "MarketPrice", false, out);
    }
    if (c->md.mbo.present)
        print_domain(&c->md.mbo, "MarketByOrder", true, out);
    fprintf(out, "\n");
}

pv_content *pv_content_open(rwf_dict **dict, const char *path, bool pre_enc, pv_feed *f)
{
    *dict = rwf_dict_new();
    if (!*dict)
        return NULL;
    char fields[1024], enums[1024], msgs[1024];
    const char *fields_at = data_locate("RDMFieldDictionary", fields, sizeof(fields));
    const char *enums_at = fields_at ? data_locate("enumtype.def", enums, sizeof(enums)) : NULL;
    if (!enums_at || rwf_dict_load_fields(*dict, fields_at) != RWF_OK ||
        rwf_dict_load_enums(*dict, enums_at) != RWF_OK) {
        err_push("Unable to load the dictionary");
        return NULL;
    }
    const char *msgs_at = data_locate(path, msgs, sizeof(msgs));
    if (!msgs_at) {
        err_push("Unable to load the message data");
        return NULL;
    }
    return pv_content_load(msgs_at, *dict, pre_enc, f);
}

void pv_feed_options(pv_feed *f, int refresh_burst, bool nano_time, bool sched_stamp,
                     bool measure_encode, bool pre_enc)
{
    f->refresh_burst = (uint32_t)refresh_burst;
    f->nano_time = nano_time;
    f->sched_stamp = sched_stamp;
    f->measure_encode = measure_encode;
    f->pre_enc = pre_enc;
}

pv_content *pv_content_start(rwf_dict **dict, pv_feed *f, const pv_config *pv)
{
    pv_content *c = pv_content_open(dict, pv->opts.msg_file, pv->pre_enc, f);
    if (!c)
        return NULL;
    pv_content_print_loaded(c, stdout);
    pv_feed_options(f, pv->refresh_burst_size, pv->opts.nano_time, pv->sched_stamp,
                    pv->measure_encode, pv->pre_enc);
    return c;
}

int pv_rates_updates(pv_rates *rates, lra *upd, const pv_config *pv, uint64_t seed)
{
    rates->updates = (uint64_t)pv->update_rate;
    bool on;
    if (run_stamps(upd, &on, pv->update_rate, pv->latency_update_rate, pv->opts.tick_rate, seed) !=
        0)
        return err_push("Config Error: -latencyUpdateRate");
    rates->upd_lat = on ? upd : NULL;
    return 0;
}

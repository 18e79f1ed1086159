/*
 * test_msgdata: MsgData.xml -> templates, and the project's data files.
 *
 *   - data/RDMFieldDictionary, data/enumtype.def and data/MsgData.xml load and validate; the
 *     dictionary holds every field the file uses, TIM_TRK_1..3 and the MarketByOrder fields,
 *     and every enum value the file uses (that each field is the one the original tools send,
 *     name, type and enum displays, is checked against their JSON frames by
 *     tests/codec/json/test_rjs_captures.c);
 *   - our templates are the messages the original tools send from their own MsgData.xml: the
 *     refresh, updates and generic messages of the original ProvPerf and the posts and generic
 *     messages of the original ConsPerf in captured sessions (consprov_default,
 *     ws_rwf/ws_rwf_post);
 *   - the refresh and update #1 encode to the bytes of docs/wire.md#examples, whole messages
 *     included;
 *   - the sizes and parser memory the ETA tools print (vectors: estimated 948/389, encoded
 *     413/140/153, 92 bytes);
 *   - MarketByOrder maps: set definitions, set data, summary data, keys, actions, bytes
 *     derived by hand from the map layout of docs/wire.md#containers;
 *   - errors: each rule of docs/tools.md#message-data with its file:line.
 */
#include "testsupport.h"

#include "err.h"
#include "msgdata.h"
#include "rwf.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codec/wire_examples.h"

static uint8_t want[8192], got[8192];

static size_t hex(const char *h)
{
    return ts_hex(h, want, sizeof(want));
}

static rwf_dict *load_dict(const char *fields, const char *enums)
{
    rwf_dict *d = rwf_dict_new();
    assert_non_null(d);
    if (rwf_dict_load_fields(d, fields) < 0 || rwf_dict_load_enums(d, enums) < 0)
        fail_msg("dictionary: %s", err_msg());
    return d;
}

static rwf_dict *project_dict(void)
{
    char f[1024]; /* ts_source_path returns a static buffer */
    snprintf(f, sizeof(f), "%s", ts_source_path("data/RDMFieldDictionary"));
    return load_dict(f, ts_source_path("data/enumtype.def"));
}

static void load_ok(msgdata *md, const char *path, const rwf_dict *d)
{
    if (msgdata_load(md, path, d) < 0)
        fail_msg("%s", err_msg());
}

static void parse_ok(msgdata *md, const char *xml, const rwf_dict *d)
{
    if (msgdata_parse(md, "test.xml", xml, strlen(xml), d) < 0)
        fail_msg("%s", err_msg());
}

/* Encodes template m of this kind as a message payload of msg (whose header is given) and
 * returns the length. */
static size_t encode_msg(const rwf_msg *hdr, const msgdata_msg *m, int kind, const uint64_t *stamp)
{
    rwf_enc e;
    size_t len = 0;
    rwf_enc_init(&e, got, sizeof(got));
    rwf_enc_msg_begin(&e, hdr);
    msgdata_encode(&e, m, kind, stamp);
    rwf_enc_msg_end(&e);
    if (rwf_enc_finish(&e, &len) < 0)
        fail_msg("encode: %s", err_msg());
    return len;
}

/* The header of a captured example (its payload is then re-encoded from a template). */
static rwf_msg header_of(size_t n)
{
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(want, n)), RWF_OK);
    m.payload = rwf_buf_make(NULL, 0);
    return m;
}

/* ---- The project's files ---------------------------------------------------------------- */

static void test_project_dictionary(void **state)
{
    (void)state;
    rwf_dict *d = project_dict();
    /* The latency fields and the MarketByOrder fields. */
    assert_int_equal(rwf_dict_type(d, 3902), RWF_DT_UINT);
    assert_int_equal(rwf_dict_type(d, 3903), RWF_DT_UINT);
    assert_int_equal(rwf_dict_type(d, 3904), RWF_DT_UINT);
    assert_int_equal(rwf_dict_type(d, 3426), RWF_DT_RMTES_STRING);
    assert_int_equal(rwf_dict_type(d, 3427), RWF_DT_REAL);
    assert_int_equal(rwf_dict_type(d, 3428), RWF_DT_ENUM);
    assert_int_equal(rwf_dict_type(d, 3429), RWF_DT_REAL);
    assert_int_equal(rwf_dict_type(d, 3855), RWF_DT_UINT);
    assert_int_equal(rwf_dict_type(d, 212), RWF_DT_RMTES_STRING);
    assert_true(rwf_buf_eq_cstr(rwf_dict_field_by_fid(d, 3902)->acronym, "TIM_TRK_1"));
    assert_true(rwf_buf_eq_cstr(rwf_dict_enum(d, 3428, 2)->display, "ASK"));
    assert_int_equal(d->info.dictionary_id, 1);
    /* Every ENUM field has a table. */
    for (uint32_t i = 0; i < d->field_count; i++)
        if (d->fields[i].rwf_type == RWF_DT_ENUM && !rwf_dict_enum_table(d, d->fields[i].fid))
            fail_msg("enum field %d has no table", d->fields[i].fid);
    rwf_dict_free(d);
}

static void test_project_msgdata(void **state)
{
    (void)state;
    rwf_dict *d = project_dict();
    msgdata md;
    load_ok(&md, ts_source_path("data/MsgData.xml"), d);
    assert_true(md.mp.present);
    assert_false(md.mbo.present);
    assert_null(msgdata_list_of(&md, RWF_DMT_MARKET_BY_ORDER));
    assert_ptr_equal(msgdata_list_of(&md, RWF_DMT_MARKET_PRICE), &md.mp);
    assert_int_equal(md.mp.refresh.count, 70);
    assert_int_equal(md.mp.update_count, 2);
    assert_int_equal(md.mp.post_count, 2);
    assert_int_equal(md.mp.generic_count, 2);
    for (uint32_t i = 0; i < 2; i++) {
        assert_int_equal(md.mp.updates[i].count, 23);
        assert_int_equal(md.mp.posts[i].count, 23);
        assert_int_equal(md.mp.generics[i].count, 23);
    }
    assert_int_equal(md.mp.refresh.domain, RWF_DMT_MARKET_PRICE);

    /* Every field decodes with the dictionary's type; every enum value has a display. */
    const msgdata_msg *all[7] = {&md.mp.refresh,    &md.mp.updates[0], &md.mp.updates[1],
                                 &md.mp.posts[0],   &md.mp.posts[1],   &md.mp.generics[0],
                                 &md.mp.generics[1]};
    for (int i = 0; i < 7; i++) {
        rwf_enc e;
        size_t len;
        rwf_enc_init(&e, got, sizeof(got));
        msgdata_encode(&e, all[i], MSGDATA_UPDATE, NULL);
        assert_int_equal(rwf_enc_finish(&e, &len), RWF_OK);
        rwf_fl_dec fl;
        rwf_field f;
        assert_int_equal(rwf_fl_dec_init(&fl, rwf_buf_make(got, len), NULL), RWF_OK);
        int n = 0, r;
        while ((r = rwf_fl_next(&fl, &f)) == RWF_OK) {
            rwf_value v;
            int type = rwf_dict_type(d, f.fid);
            assert_int_not_equal(type, 0);
            r = rwf_get_value(type, f.data, &v);
            assert_true(r == RWF_OK || r == RWF_BLANK);
            if (type == RWF_DT_ENUM && r == RWF_OK && !rwf_dict_enum(d, f.fid, v.enm))
                fail_msg("fid %d enum %u has no display", f.fid, v.enm);
            n++;
        }
        assert_int_equal(r, RWF_END);
        assert_int_equal(n, all[i]->count);
    }
    msgdata_free(&md);
    rwf_dict_free(d);
}

/* ---- The original tools' messages ---------------------------------------------------------- */

/* How many captured messages matched each template (and how many did not). */
typedef struct matched {
    unsigned refresh, updates[2], posts[2], generics[2], reflected[2], other;
} matched;

/* The field entries of a captured FieldList begin with those of template m, and what follows
 * them is nothing or the latency fields: extra more entries, each a UINT or blank
 * TIM_TRK_1..3. */
static bool same_fields(rwf_buf payload, const msgdata_msg *m, unsigned extra_max)
{
    rwf_fl_dec fl;
    if (rwf_fl_dec_init(&fl, payload, NULL) != RWF_OK)
        return false;
    size_t len = (size_t)(fl.end - fl.pos);
    if (len < m->entries_len || memcmp(fl.pos, m->entries, m->entries_len) != 0 ||
        fl.count < m->count || fl.count > m->count + extra_max)
        return false;
    fl.pos += m->entries_len;
    fl.index = m->count;
    rwf_field f;
    int r;
    while ((r = rwf_fl_next(&fl, &f)) == RWF_OK)
        if (f.fid < 3902 || f.fid > 3904)
            return false;
    return r == RWF_END;
}

static bool one_of(rwf_buf payload, const msgdata_msg *m, uint32_t n, unsigned extra_max,
                   unsigned *counts)
{
    for (uint32_t i = 0; i < n && i < 2; i++)
        if (same_fields(payload, &m[i], extra_max)) {
            counts[i]++;
            return true;
        }
    return false;
}

/* One RWF message of the capture against the templates; refreshes only when refresh says so
 * (the WebSocket runs' provider had 13 more fields in its refresh than the standard file). */
static void match_msg(const uint8_t *p, size_t n, const msgdata_list *mp, bool refresh, matched *mt)
{
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(p, n)), RWF_OK);
    if (m.domain != RWF_DMT_MARKET_PRICE || m.container_type != RWF_DT_FIELD_LIST) {
        if (m.msg_class == RWF_MC_POST && m.domain == RWF_DMT_MARKET_PRICE) {
            rwf_msg u; /* a post carries an update, which carries the fields */
            assert_int_equal(rwf_msg_decode(&u, m.payload), RWF_OK);
            assert_int_equal(u.msg_class, RWF_MC_UPDATE);
            if (!one_of(u.payload, mp->posts, mp->post_count, 3, mt->posts))
                fail_msg("a post of the original ConsPerf is not one of our post templates");
        } else {
            mt->other++;
        }
        return;
    }
    bool ok;
    switch (m.msg_class) {
    case RWF_MC_REFRESH:
        ok = !refresh || same_fields(m.payload, &mp->refresh, 3);
        mt->refresh += refresh && ok;
        break;
    case RWF_MC_UPDATE: /* an update, or a post the provider sends on as an update */
        ok = one_of(m.payload, mp->updates, mp->update_count, 3, mt->updates) ||
             ((m.flags & RWF_UPMF_HAS_POST_USER_INFO) &&
              one_of(m.payload, mp->posts, mp->post_count, 3, mt->reflected));
        break;
    case RWF_MC_GENERIC:
        ok = one_of(m.payload, mp->generics, mp->generic_count, 3, mt->generics);
        break;
    default:
        ok = true;
        mt->other++;
    }
    if (!ok)
        fail_msg("a captured %s on stream %d does not carry the fields of our templates",
                 rwf_msg_class_name(m.msg_class), m.stream_id);
}

/* The RIPC frames of a byte stream (2-byte length, flags): the RWF messages of its plain data
 * frames against the templates. */
static void match_frames(const uint8_t *p, size_t n, const msgdata_list *mp, bool refresh,
                         matched *mt)
{
    for (size_t off = 0; off + 3 <= n;) {
        size_t flen = (size_t)p[off] << 8 | p[off + 1];
        assert_true(flen >= 3 && off + flen <= n);
        if (p[off + 2] == 0x02 && flen > 3) /* a plain data frame */
            match_msg(p + off + 3, flen - 3, mp, refresh, mt);
        off += flen;
    }
}

/* Every BINARY frame of a WebSocket dump (rssl.rwf: RIPC frames inside, the hex after "| "):
 * the RWF messages of its plain data frames against the templates. */
static void match_dump(const char *rel, const msgdata_list *mp, matched *mt)
{
    uint8_t *text;
    size_t len;
    const char *path = ts_capture(rel);
    if (ts_read_file(path, &text, &len) != 0)
        fail_msg("cannot read %s", path);
    static uint8_t frame[65536];
    for (char *line = (char *)text; line && *line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *hexp = strstr(line, " | ");
        if (strstr(line, " BINARY ") && hexp) {
            size_t n = ts_hex(hexp + 3, frame, sizeof(frame));
            match_frames(frame, n, mp, false, mt);
        }
        line = next;
    }
    free(text);
}

static void test_same_as_original(void **state)
{
    (void)state;
    rwf_dict *d = project_dict();
    msgdata ours;
    load_ok(&ours, ts_source_path("data/MsgData.xml"), d);
    /* The refreshes and updates of the original ProvPerf (consprov_default), then its generic
     * messages and the posts and generic messages of the original ConsPerf (ws_rwf_post:
     * ProvPerf -updateRate 50 -genericMsgRate 10, ConsPerf -postingRate 10 -genericMsgRate 10). */
    matched prov = {0}, cons = {0};
    ts_tcp_streams st;
    assert_int_equal(
        ts_pcap_tcp_streams(ts_capture("consprov_default/consprov_default.pcap"), 14002, &st), 0);
    match_frames(st.server_to_client.data, st.server_to_client.len, &ours.mp, true, &prov);
    ts_tcp_streams_free(&st);
    match_dump("ws_rwf/ws_rwf_post.s2c.txt", &ours.mp, &prov);
    match_dump("ws_rwf/ws_rwf_post.c2s.txt", &ours.mp, &cons);
    print_message("original ProvPerf: %u refreshes, %u + %u updates, %u + %u generic messages, "
                  "%u + %u posts sent on; original ConsPerf: %u + %u posts, %u + %u generic "
                  "messages\n",
                  prov.refresh, prov.updates[0], prov.updates[1], prov.generics[0],
                  prov.generics[1], prov.reflected[0], prov.reflected[1], cons.posts[0],
                  cons.posts[1], cons.generics[0], cons.generics[1]);
    /* Each template was met, but for the second post: in this session the original ConsPerf
     * sent only the first post template, and only the second generic template to its one
     * generic-message item. */
    assert_int_equal(prov.refresh, 5);
    for (int i = 0; i < 2; i++) {
        assert_true(prov.updates[i] > 0);
        assert_true(prov.generics[i] > 0);
    }
    assert_true(cons.posts[0] > 0);
    assert_true(cons.generics[1] > 0);
    /* What ETA counts of the file (its "Market Price Memory") does not depend on comments. */
    assert_int_equal(ours.mp.eta_memory, 92);
    msgdata_free(&ours);
    rwf_dict_free(d);
}

/* ---- Bytes on the wire (docs/wire.md#examples) -------------------------------------------------
 */

static void test_wire_bytes(void **state)
{
    (void)state;
    rwf_dict *d = project_dict();
    msgdata md;
    load_ok(&md, ts_source_path("data/MsgData.xml"), d);

    /* Refresh: header as captured, payload = the template + blank TIM_TRK_1..3. */
    size_t n = hex(EX_MP_REFRESH_FULL);
    rwf_msg h = header_of(n);
    ts_assert_bytes_equal(got, encode_msg(&h, &md.mp.refresh, MSGDATA_REFRESH, NULL), want, n);

    /* Update #1, without and with a latency stamp. */
    n = hex(EX_MP_UPDATE1);
    h = header_of(n);
    ts_assert_bytes_equal(got, encode_msg(&h, &md.mp.updates[0], MSGDATA_UPDATE, NULL), want, n);
    n = hex(EX_MP_UPDATE1_TS);
    h = header_of(n);
    uint64_t stamp = 123456789012ULL;
    ts_assert_bytes_equal(got, encode_msg(&h, &md.mp.updates[0], MSGDATA_UPDATE, &stamp), want, n);

    /* The entries alone are the payload minus its FieldList header, ready to copy. */
    rwf_msg cap;
    assert_int_equal(rwf_msg_decode(&cap, rwf_buf_make(want, hex(EX_MP_UPDATE1))), RWF_OK);
    h = cap;
    rwf_fl_dec fl;
    assert_int_equal(rwf_fl_dec_init(&fl, h.payload, NULL), RWF_OK);
    assert_int_equal(fl.count, md.mp.updates[0].count);
    ts_assert_bytes_equal(fl.pos, (size_t)(fl.end - fl.pos), md.mp.updates[0].entries,
                          md.mp.updates[0].entries_len);

    /* Posts and generic messages: their latency fields at the end. */
    const struct {
        const msgdata_msg *m;
        int kind;
        int16_t fid;
    } cases[] = {{&md.mp.posts[1], MSGDATA_POST, 3903},
                 {&md.mp.generics[0], MSGDATA_GENERIC, 3904},
                 {&md.mp.updates[1], MSGDATA_UPDATE, 3902}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rwf_enc e;
        size_t len;
        stamp = 100 + i;
        rwf_enc_init(&e, got, sizeof(got));
        msgdata_encode(&e, cases[i].m, cases[i].kind, &stamp);
        assert_int_equal(rwf_enc_finish(&e, &len), RWF_OK);
        assert_int_equal(len, 3 + cases[i].m->entries_len + 4);
        assert_memory_equal(got + 3, cases[i].m->entries, cases[i].m->entries_len);
        assert_int_equal(rwf_rd16(got + 1), cases[i].m->count + 1);
        const uint8_t *tail = got + 3 + cases[i].m->entries_len;
        assert_int_equal((int16_t)rwf_rd16(tail), cases[i].fid);
        assert_int_equal(tail[2], 1);
        assert_int_equal(tail[3], 100 + i);
    }
    msgdata_free(&md);
    rwf_dict_free(d);
}

/* What the ETA tools print: "estimated length" 948 (refresh, key without name) and 389
 * (updates), "Market Price Memory: 92 bytes" (tests/data/captures/consprov_*). */
static void test_eta_numbers(void **state)
{
    (void)state;
    rwf_dict *d = project_dict();
    msgdata md;
    load_ok(&md, ts_source_path("data/MsgData.xml"), d);
    assert_int_equal(msgdata_estimated_len(&md.mp.refresh, MSGDATA_REFRESH, 0), 948);
    assert_int_equal(msgdata_estimated_len(&md.mp.refresh, MSGDATA_REFRESH, 4), 952);
    assert_int_equal(msgdata_estimated_len(&md.mp.updates[0], MSGDATA_UPDATE, 4), 389);
    assert_int_equal(msgdata_estimated_len(&md.mp.updates[1], MSGDATA_UPDATE, 0), 389);
    assert_int_equal(msgdata_estimated_len(&md.mp.posts[0], MSGDATA_POST, 0), 389);
    assert_int_equal(msgdata_estimated_len(&md.mp.generics[0], MSGDATA_GENERIC, 0), 778);
    assert_int_equal(md.mp.eta_memory, 92);

    /* "approx encoded length": the messages encoded as the providers send them, the refresh
     * with a key without name (as the size printout encodes it): 413, 140, 153. */
    rwf_msg h = header_of(hex(EX_MP_REFRESH_FULL));
    h.key.flags = RWF_MKF_HAS_SERVICE_ID;
    h.key.name = rwf_buf_make(NULL, 0);
    assert_int_equal(encode_msg(&h, &md.mp.refresh, MSGDATA_REFRESH, NULL), 413);
    h = header_of(hex(EX_MP_UPDATE1));
    assert_int_equal(encode_msg(&h, &md.mp.updates[0], MSGDATA_UPDATE, NULL), 140);
    assert_int_equal(encode_msg(&h, &md.mp.updates[1], MSGDATA_UPDATE, NULL), 153);
    assert_int_equal(md.mbo.eta_memory, 0);
    assert_int_equal(msgdata_latency_fid(MSGDATA_REFRESH), 0);
    assert_int_equal(msgdata_latency_fid(MSGDATA_UPDATE), 3902);
    assert_int_equal(msgdata_latency_fid(MSGDATA_POST), 3903);
    assert_int_equal(msgdata_latency_fid(MSGDATA_GENERIC), 3904);
    msgdata_free(&md);
    rwf_dict_free(d);
}

/* ---- MarketByOrder --------------------------------------------------------------------- */

static const char MBO_XML[] =
    "<msgFormat>\n"
    "<marketByOrderMsgList>\n"
    "  <refreshMsg><dataBody><map>\n"
    "    <fieldSetDefs>\n"
    "      <fieldSetDef setId=\"0\">\n"
    "        <fieldSetDefEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\"/>\n"
    "        <fieldSetDefEntry fieldId=\"3855\" dataType=\"RSSL_DT_UINT_4\"/>\n"
    "      </fieldSetDef>\n"
    "    </fieldSetDefs>\n"
    "    <mapEntry action=\"RSSL_MPEA_ADD_ENTRY\" key=\"100\">\n"
    "      <fieldList setId=\"0\">\n"
    "        <fieldEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\" data=\"13.25\"/>\n"
    "        <fieldEntry fieldId=\"3855\" dataType=\"RSSL_DT_UINT\" data=\"57132000\"/>\n"
    "      </fieldList>\n"
    "    </mapEntry>\n"
    "    <mapEntry action=\"RSSL_MPEA_ADD_ENTRY\" key=\"101\">\n"
    "      <fieldList setId=\"0\">\n"
    "        <fieldEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\" data=\"\"/>\n"
    "        <fieldEntry fieldId=\"3855\" dataType=\"RSSL_DT_UINT\" data=\"1\"/>\n"
    "        <fieldEntry fieldId=\"212\" dataType=\"RSSL_DT_RMTES_STRING\" data=\"MM1\"/>\n"
    "        <fieldEntry fieldId=\"3428\" dataType=\"RSSL_DT_ENUM\" data=\"2\"/>\n"
    "      </fieldList>\n"
    "    </mapEntry>\n"
    "  </map></dataBody></refreshMsg>\n"
    "  <updateMsg><dataBody><map>\n"
    "    <mapEntry action=\"RSSL_MPEA_UPDATE_ENTRY\" key=\"100\">\n"
    "      <fieldList><fieldEntry fieldId=\"3429\" dataType=\"RSSL_DT_REAL\" data=\"400\"/>"
    "</fieldList>\n"
    "    </mapEntry>\n"
    "    <mapEntry action=\"RSSL_MPEA_DELETE_ENTRY\" key=\"101\"/>\n"
    "  </map></dataBody></updateMsg>\n"
    "  <genMsg><dataBody><map>\n"
    "    <mapEntry action=\"1\" key=\"100\">\n"
    "      <fieldList><fieldEntry fieldId=\"3429\" dataType=\"RSSL_DT_REAL\" data=\"1\"/>"
    "</fieldList>\n"
    "    </mapEntry>\n"
    "  </map></dataBody></genMsg>\n"
    "</marketByOrderMsgList>\n"
    "</msgFormat>\n";

/* The refresh payload, byte by byte:
 *   13            map flags: HAS_KEY_FIELD_ID | HAS_SUMMARY_DATA | HAS_SET_DEFS
 *   13 04         key type RMTES_STRING, container FIELD_LIST (132 - 128)
 *   0D 62         key field 3426 (ORDER_ID)
 *   80 0A ...     set definitions, 2-byte length: flags 0, 1 set, id 0, 2 entries,
 *                 3427 REAL (08), 3855 UINT_4 (45)
 *   80 0C ...     summary FieldList 08, 3 entries: 3902/3903/3904 blank
 *   00 02         two entries
 *   02 03 "100"   ADD, key; FE 00 0D = entry data length (3-byte form)
 *     0A 80 08    FieldList SET_DATA | STANDARD, set data length (2-byte form)
 *     03 0C 05 2D   REAL 13.25 = 1325 hint EXPONENT_2, length-prefixed (a standard type)
 *     03 67 C3 E0   UINT_4 57132000
 *     00 00       no standard entries
 *   02 03 "101"   FE 00 14: set data 00 (blank REAL), 00 00 00 01 (UINT_4 1), then 2
 *                 standard entries: 212 "MM1", 3428 ENUM 2 */
static const char MBO_REFRESH_PAYLOAD[] =
    "13 13 04 0D 62 80 0A 00 01 00 02 0D 63 08 0F 0F 45"
    " 80 0C 08 00 03 0F 3E 00 0F 3F 00 0F 40 00"
    " 00 02"
    " 02 03 31 30 30 FE 00 0D 0A 80 08 03 0C 05 2D 03 67 C3 E0 00 00"
    " 02 03 31 30 31 FE 00 14 0A 80 05 00 00 00 00 01 00 02 00 D4 03 4D 4D 31 0D 64 01 02";

/* Update with TIM_TRK_1 = 5 in the summary: no set definitions; entries UPDATE 100 with a
 * standard FieldList (3429 = 400 = 4 hint EXPONENT2 (16)), DELETE 101 without data. */
static const char MBO_UPDATE_PAYLOAD[] = "12 13 04 0D 62 80 07 08 00 01 0F 3E 01 05"
                                         " 00 02"
                                         " 01 03 31 30 30 FE 00 08 08 00 01 0D 65 02 10 04"
                                         " 03 03 31 30 31";

static void test_mbo(void **state)
{
    (void)state;
    rwf_dict *d = project_dict();
    msgdata md;
    parse_ok(&md, MBO_XML, d);
    assert_false(md.mp.present);
    assert_true(md.mbo.present);
    assert_int_equal(md.mbo.refresh.domain, RWF_DMT_MARKET_BY_ORDER);
    assert_int_equal(md.mbo.refresh.count, 2);
    assert_non_null(md.mbo.refresh.sets);
    assert_int_equal(md.mbo.update_count, 1);
    assert_int_equal(md.mbo.generic_count, 1);
    assert_null(md.mbo.updates[0].sets);
    assert_int_equal(md.mbo.updates[0].set_defs_len, 0);

    rwf_enc e;
    size_t len, n;
    rwf_enc_init(&e, got, sizeof(got));
    assert_int_equal(msgdata_encode(&e, &md.mbo.refresh, MSGDATA_REFRESH, NULL), RWF_OK);
    assert_int_equal(rwf_enc_finish(&e, &len), RWF_OK);
    n = hex(MBO_REFRESH_PAYLOAD);
    ts_assert_bytes_equal(got, len, want, n);
    /* The pre-encoded pieces are the parts of those bytes. */
    ts_assert_bytes_equal(md.mbo.refresh.set_defs, md.mbo.refresh.set_defs_len, want + 7, 10);
    ts_assert_bytes_equal(md.mbo.refresh.entries, md.mbo.refresh.entries_len, want + 33, n - 33);

    uint64_t stamp = 5;
    rwf_enc_init(&e, got, sizeof(got));
    assert_int_equal(msgdata_encode(&e, &md.mbo.updates[0], MSGDATA_UPDATE, &stamp), RWF_OK);
    assert_int_equal(rwf_enc_finish(&e, &len), RWF_OK);
    ts_assert_bytes_equal(got, len, want, hex(MBO_UPDATE_PAYLOAD));

    /* Without a stamp, no summary data; the generic stamp is TIM_TRK_3. */
    rwf_enc_init(&e, got, sizeof(got));
    msgdata_encode(&e, &md.mbo.updates[0], MSGDATA_UPDATE, NULL);
    assert_int_equal(rwf_enc_finish(&e, &len), RWF_OK);
    assert_int_equal(got[0], RWF_MPF_HAS_KEY_FIELD_ID);
    assert_int_equal(len, 5 + 2 + md.mbo.updates[0].entries_len);
    rwf_enc_init(&e, got, sizeof(got));
    msgdata_encode(&e, &md.mbo.generics[0], MSGDATA_GENERIC, &stamp);
    assert_int_equal(rwf_enc_finish(&e, &len), RWF_OK);
    assert_int_equal(got[10], 0x0F);
    assert_int_equal(got[11], 0x40);

    /* Decoded back with the codec: the refresh's orders and their values. */
    rwf_enc_init(&e, got, sizeof(got));
    msgdata_encode(&e, &md.mbo.refresh, MSGDATA_REFRESH, NULL);
    assert_int_equal(rwf_enc_finish(&e, &len), RWF_OK);
    rwf_map_dec map;
    rwf_map_entry me;
    assert_int_equal(rwf_map_dec_init(&map, rwf_buf_make(got, len)), RWF_OK);
    assert_int_equal(map.hdr.key_fid, 3426);
    rwf_set_db sets;
    rwf_set_entry pool[16];
    assert_int_equal(rwf_set_db_decode(&sets, RWF_DT_FIELD_LIST, map.hdr.set_defs, pool, 16),
                     RWF_OK);
    assert_int_equal(rwf_map_next(&map, &me), RWF_OK);
    assert_true(rwf_buf_eq_cstr(me.key, "100"));
    assert_int_equal(me.action, RWF_MPEA_ADD_ENTRY);
    rwf_fl_dec fl;
    rwf_field f;
    rwf_value v;
    assert_int_equal(rwf_fl_dec_init(&fl, me.data, &sets), RWF_OK);
    assert_int_equal(rwf_fl_next(&fl, &f), RWF_OK);
    assert_int_equal(f.fid, 3427);
    assert_int_equal(rwf_get_value(RWF_DT_REAL, f.data, &v), RWF_OK);
    assert_int_equal(v.real.value, 1325);
    assert_int_equal(rwf_fl_next(&fl, &f), RWF_OK);
    assert_int_equal(f.fid, 3855);
    assert_int_equal(f.type, RWF_DT_UINT_4);
    assert_int_equal(rwf_fl_next(&fl, &f), RWF_END);

    /* The ETA estimate: per order 1 + per field 2 + the value structure's size. */
    assert_int_equal(md.mbo.refresh.estimated_len, (1 + 18 + 10) + (1 + 18 + 10 + 2 + 16 + 3 + 4));
    assert_int_equal(md.mbo.updates[0].estimated_len, 1 + 18);
    assert_true(md.mbo.eta_memory > 0);
    msgdata_free(&md);

    /* setId other than 0: HAS_SET_ID and that set's definition. */
    static const char xml2[] =
        "<m><marketByOrderMsgList><refreshMsg><dataBody><map>"
        "<fieldSetDefs><fieldSetDef setId=\"3\">"
        "<fieldSetDefEntry fieldId=\"3855\" dataType=\"RSSL_DT_UINT_2\"/></fieldSetDef>"
        "</fieldSetDefs>"
        "<mapEntry action=\"RSSL_MPEA_ADD_ENTRY\" key=\"7\"><fieldList setId=\"3\">"
        "<fieldEntry fieldId=\"3855\" dataType=\"RSSL_DT_UINT\" data=\"258\"/></fieldList>"
        "</mapEntry></map></dataBody></refreshMsg></marketByOrderMsgList></m>";
    parse_ok(&md, xml2, d);
    n = ts_hex("02 01 37 FE 00 08 0E 03 80 02 01 02 00 00", want, sizeof(want));
    ts_assert_bytes_equal(md.mbo.refresh.entries, md.mbo.refresh.entries_len, want, n);
    msgdata_free(&md);
    rwf_dict_free(d);
}

/* ---- Errors ------------------------------------------------------------------------------ */

/* A MarketPrice list around one field entry (line 4) or other content. */
#define MP_HEAD "<msgFormat>\n<marketPriceMsgList>\n<refreshMsg><dataBody><fieldList>\n"
#define MP_TAIL "\n</fieldList></dataBody></refreshMsg>\n</marketPriceMsgList>\n</msgFormat>\n"
#define FIELD(attrs) MP_HEAD "<fieldEntry " attrs "/>" MP_TAIL

static const struct {
    const char *xml;
    const char *want; /* start of the error text */
} bad[] = {
    {FIELD("fieldId=\"9999\" dataType=\"RSSL_DT_REAL\" data=\"1\""),
     "test.xml:4: field 9999 is not in the dictionary"},
    {FIELD("fieldId=\"22\" dataType=\"RSSL_DT_UINT\" data=\"1\""),
     "test.xml:4: field 22: dataType mismatch with dictionary (RSSL_DT_UINT instead of "
     "RSSL_DT_REAL)"},
    {FIELD("fieldId=\"3902\" dataType=\"RSSL_DT_UINT\" data=\"1\""),
     "test.xml:4: field 3902 is reserved"},
    {FIELD("fieldId=\"3904\" dataType=\"RSSL_DT_UINT\" data=\"1\""),
     "test.xml:4: field 3904 is reserved"},
    {FIELD("fieldId=\"22\" dataType=\"RSSL_DT_REAL\" data=\"abc\""),
     "test.xml:4: field 22: \"abc\" is not a valid RSSL_DT_REAL"},
    {FIELD("fieldId=\"16\" dataType=\"RSSL_DT_DATE\" data=\"15th of Nov\""),
     "test.xml:4: field 16: \"15th of Nov\" is not a valid RSSL_DT_DATE"},
    {FIELD("fieldId=\"5\" dataType=\"RSSL_DT_TIME\" data=\"ab:cd\""),
     "test.xml:4: field 5: \"ab:cd\" is not a valid RSSL_DT_TIME"},
    {FIELD("fieldId=\"4\" dataType=\"RSSL_DT_ENUM\" data=\"70000\""),
     "test.xml:4: field 4: \"70000\" is not a valid RSSL_DT_ENUM"},
    {FIELD("fieldId=\"1\" dataType=\"RSSL_DT_UINT\" data=\"-1\""),
     "test.xml:4: field 1: \"-1\" is not a valid RSSL_DT_UINT"},
    {FIELD("fieldId=\"1\" dataType=\"RSSL_DT_UINT\""), "test.xml:4: field 1 has no data"},
    {FIELD("dataType=\"RSSL_DT_UINT\" data=\"1\""),
     "test.xml:4: <fieldEntry> has no fieldId attribute"},
    {FIELD("fieldId=\"x1\" dataType=\"RSSL_DT_UINT\" data=\"1\""),
     "test.xml:4: fieldId \"x1\" is not a number"},
    {FIELD("fieldId=\"1\" data=\"1\""), "test.xml:4: field 1 has no dataType"},
    {FIELD("fieldId=\"1\" dataType=\"RSSL_DT_UINT_2\" data=\"1\""),
     "test.xml:4: field 1: dataType \"RSSL_DT_UINT_2\" is not a primitive type name"},
    {FIELD("fieldId=\"1\" dataType=\"4\" data=\"70000\""), NULL}, /* numeric type: fine */
    {MP_HEAD "<fieldEntry fieldId=\"1\" dataType=\"RSSL_DT_UINT\" data=\"1\"/>\n<foo/>" MP_TAIL,
     "test.xml:5: fieldList contains an unknown element <foo>"},
    {"<msgFormat>\n<marketPriceMsgList>\n<updateMsg><dataBody><fieldList/></dataBody>"
     "</updateMsg>\n</marketPriceMsgList>\n</msgFormat>\n",
     "test.xml:2: <marketPriceMsgList> has no <refreshMsg>"},
    {"<msgFormat>\n<marketPriceMsgList>\n<refreshMsg><dataBody><fieldList/></dataBody>"
     "</refreshMsg>\n<refreshMsg><dataBody><fieldList/></dataBody></refreshMsg>\n"
     "</marketPriceMsgList>\n</msgFormat>\n",
     "test.xml:4: second <refreshMsg>"},
    {"<msgFormat>\n<marketPriceMsgList>\n<refreshMsg><dataBody><fieldList/></dataBody>"
     "</refreshMsg>\n<statusMsg/>\n</marketPriceMsgList>\n</msgFormat>\n",
     "test.xml:4: unknown element <statusMsg> in <marketPriceMsgList>"},
    {"<msgFormat>\n<marketPriceMsgList>\n<refreshMsg><dataBody><fieldList/></dataBody>"
     "</refreshMsg>\n<postMsg>\n<dataBody/></postMsg>\n</marketPriceMsgList>\n</msgFormat>\n",
     "test.xml:4: postMsg must contain an <updateMsg>"},
    {"<msgFormat>\n<marketPriceMsgList>\n<refreshMsg>\n</refreshMsg>\n"
     "</marketPriceMsgList>\n</msgFormat>\n",
     "test.xml:3: refreshMsg has no <dataBody>"},
    {"<msgFormat>\n<marketPriceMsgList>\n<refreshMsg>\n<dataBody>\n<map/></dataBody>"
     "</refreshMsg>\n</marketPriceMsgList>\n</msgFormat>\n",
     "test.xml:4: dataBody has no <fieldList>"},
    {"<msgFormat>\n<marketPriceList/>\n</msgFormat>\n",
     "test.xml:2: unrecognized element <marketPriceList>"},
    {"<msgFormat>\n</msgFormat>\n", "test.xml:1: <msgFormat> holds neither"},
    {"<msgFormat>\n<marketPriceMsgList>\n<refreshMsg>\n</marketPriceMsgList>\n", "test.xml:5: "},
    {FIELD("fieldId=\"1\" dataType=\"RSSL_DT_UINT\" data=\"1\"") "<marketPriceMsgList/>",
     "test.xml:"},
    /* QoS / State values come from attributes. */
    {FIELD("fieldId=\"1\" dataType=\"RSSL_DT_QOS\" data=\"x\""),
     "test.xml:4: field 1: dataType mismatch"},
    /* MarketByOrder. */
    {"<m>\n<marketByOrderMsgList>\n<refreshMsg><dataBody><map>\n<fieldSetDefs>\n"
     "<fieldSetDef setId=\"0\"><fieldSetDefEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL_5\"/>"
     "</fieldSetDef>\n</fieldSetDefs>\n</map></dataBody></refreshMsg>\n"
     "</marketByOrderMsgList>\n</m>\n",
     "test.xml:5: fieldSetDefEntry: dataType \"RSSL_DT_REAL_5\" is not a set definition type"},
    {"<m>\n<marketByOrderMsgList>\n<refreshMsg><dataBody><map>\n<fieldSetDefs>\n"
     "<fieldSetDef setId=\"0\"><fieldSetDefEntry fieldId=\"3427\" dataType=\"RSSL_DT_UINT_4\"/>"
     "</fieldSetDef>\n</fieldSetDefs>\n</map></dataBody></refreshMsg>\n"
     "</marketByOrderMsgList>\n</m>\n",
     "test.xml:5: set 0: field 3427: dataType mismatch with dictionary"},
    {"<m>\n<marketByOrderMsgList>\n<refreshMsg><dataBody><map>\n<fieldSetDefs>\n"
     "<fieldSetDef setId=\"16\"/>\n</fieldSetDefs>\n</map></dataBody></refreshMsg>\n"
     "</marketByOrderMsgList>\n</m>\n",
     "test.xml:5: setId \"16\" is not a number from 0 to 15"},
    {"<m>\n<marketByOrderMsgList>\n<refreshMsg><dataBody><map>\n<fieldSetDefs>\n"
     "<fieldSetDef setId=\"0\"><fieldSetDefEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\"/>"
     "</fieldSetDef>\n</fieldSetDefs>\n<mapEntry action=\"RSSL_MPEA_ADD_ENTRY\" key=\"1\">\n"
     "<fieldList setId=\"2\"/></mapEntry>\n</map></dataBody></refreshMsg>\n"
     "</marketByOrderMsgList>\n</m>\n",
     "test.xml:8: setId 2 is not defined in the map's fieldSetDefs"},
    {"<m>\n<marketByOrderMsgList>\n<refreshMsg><dataBody><map>\n<fieldSetDefs>\n"
     "<fieldSetDef setId=\"0\"><fieldSetDefEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\"/>"
     "</fieldSetDef>\n</fieldSetDefs>\n<mapEntry action=\"RSSL_MPEA_ADD_ENTRY\" key=\"1\">\n"
     "<fieldList setId=\"0\">\n<fieldEntry fieldId=\"3429\" dataType=\"RSSL_DT_REAL\" "
     "data=\"1\"/>\n</fieldList></mapEntry>\n</map></dataBody></refreshMsg>\n"
     "</marketByOrderMsgList>\n</m>\n",
     "test.xml:9: field 3429: set entry 0 is fid 3427, not 3429"},
    {"<m>\n<marketByOrderMsgList>\n<refreshMsg><dataBody><map>\n<fieldSetDefs>\n"
     "<fieldSetDef setId=\"0\"><fieldSetDefEntry fieldId=\"3427\" dataType=\"RSSL_DT_REAL\"/>"
     "</fieldSetDef>\n</fieldSetDefs>\n<mapEntry action=\"RSSL_MPEA_ADD_ENTRY\" key=\"1\">\n"
     "<fieldList setId=\"0\"/></mapEntry>\n</map></dataBody></refreshMsg>\n"
     "</marketByOrderMsgList>\n</m>\n",
     "test.xml:8: "},
    {"<m>\n<marketByOrderMsgList>\n<refreshMsg><dataBody><map>\n"
     "<mapEntry action=\"RSSL_MPEA_ADD_ENTRY\">\n<fieldList/></mapEntry>\n"
     "</map></dataBody></refreshMsg>\n</marketByOrderMsgList>\n</m>\n",
     "test.xml:4: mapEntry has no key attribute"},
    {"<m>\n<marketByOrderMsgList>\n<refreshMsg><dataBody><map>\n"
     "<mapEntry action=\"RSSL_MPEA_CLEAR\" key=\"1\">\n<fieldList/></mapEntry>\n"
     "</map></dataBody></refreshMsg>\n</marketByOrderMsgList>\n</m>\n",
     "test.xml:4: mapEntry action \"RSSL_MPEA_CLEAR\" is not a map entry action"},
    {"<m>\n<marketByOrderMsgList>\n<refreshMsg><dataBody><map>\n"
     "<mapEntry action=\"RSSL_MPEA_ADD_ENTRY\" key=\"1\"/>\n"
     "</map></dataBody></refreshMsg>\n</marketByOrderMsgList>\n</m>\n",
     "test.xml:4: mapEntry has no <fieldList>"},
    {"<m>\n<marketByOrderMsgList>\n<refreshMsg><dataBody><map>\n<summary/>\n"
     "</map></dataBody></refreshMsg>\n</marketByOrderMsgList>\n</m>\n",
     "test.xml:4: map contains an unknown element <summary>"},
    {"<m>\n<marketByOrderMsgList>\n<refreshMsg><dataBody><fieldList/>\n"
     "</dataBody></refreshMsg>\n</marketByOrderMsgList>\n</m>\n",
     "test.xml:3: dataBody has no <map>"},
    {"<m>\n<marketByOrderMsgList>\n<updateMsg><dataBody><map/>\n"
     "</dataBody></updateMsg>\n</marketByOrderMsgList>\n</m>\n",
     "test.xml:2: <marketByOrderMsgList> has no <refreshMsg>"},
};

static void test_errors(void **state)
{
    (void)state;
    rwf_dict *d = project_dict();
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        msgdata md;
        int rc = msgdata_parse(&md, "test.xml", bad[i].xml, strlen(bad[i].xml), d);
        if (!bad[i].want) {
            if (rc < 0)
                fail_msg("case %zu: %s", i, err_msg());
            msgdata_free(&md);
            continue;
        }
        if (rc == 0)
            fail_msg("case %zu accepted, expected \"%s\"", i, bad[i].want);
        if (strncmp(err_msg(), bad[i].want, strlen(bad[i].want)) != 0)
            fail_msg("case %zu: got \"%s\", expected \"%s...\"", i, err_msg(), bad[i].want);
        assert_null(md.mem);
        assert_false(md.mp.present);
    }

    /* Files: missing, empty, no dictionary. */
    msgdata md;
    assert_int_equal(msgdata_load(&md, "/nonexistent/MsgData.xml", d), -1);
    assert_non_null(strstr(err_msg(), "/nonexistent/MsgData.xml"));
    assert_int_equal(msgdata_parse(&md, "e.xml", "", 0, d), -1);
    assert_string_equal(err_msg(), "e.xml: the file is empty");
    assert_int_equal(msgdata_parse(&md, "e.xml", "<a/>", 4, NULL), -1);
    msgdata_free(&md);
    rwf_dict_free(d);
}

/* Values of every primitive type, blanks, QoS and State from attributes. */
static void test_values(void **state)
{
    (void)state;
    rwf_dict *d = project_dict();
    /* Fields of other types, added for this test. */
    const struct {
        int16_t fid;
        uint8_t type;
    } extra[] = {{-1, RWF_DT_INT},      {-2, RWF_DT_FLOAT},        {-3, RWF_DT_DOUBLE},
                 {-4, RWF_DT_DATETIME}, {-5, RWF_DT_QOS},          {-6, RWF_DT_STATE},
                 {-7, RWF_DT_BUFFER},   {-8, RWF_DT_ASCII_STRING}, {-9, RWF_DT_UTF8_STRING},
                 {-10, RWF_DT_QOS}};
    for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
        rwf_dict_field f = {.acronym = RWF_STR("X"),
                            .fid = extra[i].fid,
                            .rwf_type = extra[i].type,
                            .mf_type = RWF_MF_NONE};
        char name[8];
        snprintf(name, sizeof(name), "X%d", -extra[i].fid);
        f.acronym = rwf_buf_cstr(name);
        assert_int_equal(rwf_dict_add_field(d, &f), RWF_OK);
    }
    static const char xml[] =
        MP_HEAD "<fieldEntry fieldId=\"-1\" dataType=\"RSSL_DT_INT\" data=\"-42\"/>\n"
                "<fieldEntry fieldId=\"-2\" dataType=\"RSSL_DT_FLOAT\" data=\"1.5\"/>\n"
                "<fieldEntry fieldId=\"-3\" dataType=\"RSSL_DT_DOUBLE\" data=\"-2.25\"/>\n"
                "<fieldEntry fieldId=\"-4\" dataType=\"RSSL_DT_DATETIME\" "
                "data=\"11/15/2005 15:52:12:000\"/>\n"
                "<fieldEntry fieldId=\"-5\" dataType=\"RSSL_DT_QOS\" "
                "qosTimeliness=\"RSSL_QOS_TIME_DELAYED\" qosRate=\"RSSL_QOS_RATE_TIME_CONFLATED\" "
                "qosDynamic=\"1\" qosTimeInfo=\"15\" qosRateInfo=\"500\"/>\n"
                "<fieldEntry fieldId=\"-6\" dataType=\"RSSL_DT_STATE\" "
                "streamState=\"RSSL_STREAM_OPEN\" dataState=\"RSSL_DATA_SUSPECT\" "
                "code=\"RSSL_SC_TIMEOUT\" text=\"late\"/>\n"
                "<fieldEntry fieldId=\"-7\" dataType=\"RSSL_DT_BUFFER\" data=\"ab\"/>\n"
                "<fieldEntry fieldId=\"-8\" dataType=\"RSSL_DT_ASCII_STRING\" data=\"\"/>\n"
                "<fieldEntry fieldId=\"-9\" dataType=\"RSSL_DT_UTF8_STRING\" data=\"&#233;\"/>\n"
                "<fieldEntry fieldId=\"-10\" dataType=\"RSSL_DT_QOS\" data=\"\"/>\n"
                "<fieldEntry fieldId=\"22\" dataType=\"RSSL_DT_REAL\" data=\"\"/>\n"
                "<fieldEntry fieldId=\"-6\" dataType=\"13\" code=\"12\"/>" MP_TAIL;
    msgdata md;
    parse_ok(&md, xml, d);
    const msgdata_msg *m = &md.mp.refresh;
    assert_int_equal(m->count, 12);
    rwf_fl_dec fl;
    rwf_field f;
    rwf_value v;
    rwf_enc e;
    size_t len;
    rwf_enc_init(&e, got, sizeof(got));
    msgdata_encode(&e, m, MSGDATA_UPDATE, NULL);
    assert_int_equal(rwf_enc_finish(&e, &len), RWF_OK);
    assert_int_equal(rwf_fl_dec_init(&fl, rwf_buf_make(got, len), NULL), RWF_OK);

#define NEXT(type_, want_rc)                                                                       \
    do {                                                                                           \
        assert_int_equal(rwf_fl_next(&fl, &f), RWF_OK);                                            \
        assert_int_equal(rwf_get_value(rwf_dict_type(d, f.fid), f.data, &v), want_rc);             \
        assert_int_equal(rwf_dict_type(d, f.fid), type_);                                          \
    } while (0)
    NEXT(RWF_DT_INT, RWF_OK);
    assert_int_equal(v.i, -42);
    NEXT(RWF_DT_FLOAT, RWF_OK);
    assert_true(v.f == 1.5f);
    NEXT(RWF_DT_DOUBLE, RWF_OK);
    assert_true(v.d == -2.25);
    NEXT(RWF_DT_DATETIME, RWF_OK);
    assert_int_equal(v.datetime.date.year, 2005);
    assert_int_equal(v.datetime.time.second, 12);
    NEXT(RWF_DT_QOS, RWF_OK);
    assert_int_equal(v.qos.timeliness, RWF_QOS_TIME_DELAYED);
    assert_int_equal(v.qos.rate, RWF_QOS_RATE_TIME_CONFLATED);
    assert_int_equal(v.qos.dynamic, 1);
    assert_int_equal(v.qos.time_info, 15);
    assert_int_equal(v.qos.rate_info, 500);
    NEXT(RWF_DT_STATE, RWF_OK);
    assert_int_equal(v.state.stream_state, RWF_STREAM_OPEN);
    assert_int_equal(v.state.data_state, RWF_DATA_SUSPECT);
    assert_int_equal(v.state.code, RWF_SC_TIMEOUT);
    assert_true(rwf_buf_eq_cstr(v.state.text, "late"));
    NEXT(RWF_DT_BUFFER, RWF_OK);
    assert_true(rwf_buf_eq_cstr(v.buf, "ab"));
    assert_int_equal(rwf_fl_next(&fl, &f), RWF_OK); /* "" string: blank */
    assert_int_equal(f.data.len, 0);
    NEXT(RWF_DT_UTF8_STRING, RWF_OK);
    assert_true(rwf_buf_eq_cstr(v.buf, "\xC3\xA9"));
    assert_int_equal(rwf_fl_next(&fl, &f), RWF_OK); /* blank QoS */
    assert_int_equal(f.data.len, 0);
    assert_int_equal(rwf_fl_next(&fl, &f), RWF_OK); /* blank REAL */
    assert_int_equal(f.data.len, 0);
    NEXT(RWF_DT_STATE, RWF_OK);
    assert_int_equal(v.state.code, RWF_SC_NO_RESOURCES);
    assert_int_equal(rwf_fl_next(&fl, &f), RWF_END);
#undef NEXT
    /* Estimate: 1 + 12 * 2 + 8 + 4 + 8 + 14 + 8 + (24 + 4) + (16 + 2) + 16 + (16 + 2) + 8 + 16
     * + 24. */
    assert_int_equal(m->estimated_len,
                     1 + 24 + 8 + 4 + 8 + 14 + 8 + 28 + 18 + 16 + 18 + 8 + 16 + 24);
    msgdata_free(&md);
    rwf_dict_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_project_dictionary),
        cmocka_unit_test(test_project_msgdata),
        cmocka_unit_test(test_same_as_original),
        cmocka_unit_test(test_wire_bytes),
        cmocka_unit_test(test_eta_numbers),
        cmocka_unit_test(test_mbo),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

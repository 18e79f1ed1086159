/*
 * The RWF traffic of the original ConsPerf <-> ProvPerf captures: every message (after the
 * RIPC framing is stripped — single, packed, fragmented and compressed frames) decodes
 * completely, every field id is in the original dictionary and decodes with the dictionary's
 * type, and decode + re-encode reproduces the captured bytes.
 */
#include "testsupport.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rwf.h"
#include "rwf_walk.h"

static rwf_dict *dict;

typedef struct stats {
    unsigned msgs, by_class[9], fields, roundtrips, frames, packed, compressed;
    unsigned refresh_fields, update_fields;
} stats;

/* One RWF message: decode everything with the dictionary, re-encode, compare. */
static void check_message(const uint8_t *p, size_t n, stats *st, const char *where)
{
    static uint8_t out[256 * 1024];
    rwf_enc e;
    walk_ctx w;
    rwf_msg m;

    if (rwf_msg_decode(&m, rwf_buf_make(p, n)) != RWF_OK)
        fail_msg("%s: %s", where, err_msg());
    memset(&w, 0, sizeof(w));
    w.dict = dict;
    w.enc = &e;
    rwf_enc_init(&e, out, sizeof(out));
    if (walk_msg(&w, rwf_buf_make(p, n), 0) < 0)
        fail_msg("%s: %s message on stream %d: %s", where, rwf_msg_class_name(m.msg_class),
                 m.stream_id, err_msg());
    if (w.unknown_fids)
        fail_msg("%s: %u field ids not in the dictionary", where, w.unknown_fids);
    size_t len = 0;
    if (rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("%s: re-encode: %s", where, err_msg());
    ts_assert_bytes_equal(out, len, p, n);
    st->msgs++;
    st->roundtrips++;
    st->fields += w.fields;
    if (m.msg_class <= 8)
        st->by_class[m.msg_class]++;
    if (m.msg_class == RWF_MC_REFRESH && m.domain == RWF_DMT_MARKET_PRICE)
        st->refresh_fields = w.fields;
    if (m.msg_class == RWF_MC_UPDATE && m.domain == RWF_DMT_MARKET_PRICE)
        st->update_fields = w.fields;
}

typedef struct direction {
    const ts_bytes *bytes;
    int client; /* 1: client -> server */
    int comp;   /* 0 none, 1 zlib, 2 lz4 */
    z_stream zs;
    int zs_ready;
    uint8_t *frag;
    size_t frag_len, frag_total;
    uint16_t frag_id;
} direction;

static uint8_t inflated[1 << 20];

/* Decompresses a compressed frame payload; returns the length. */
static size_t decompress(direction *d, const uint8_t *p, size_t n)
{
    if (d->comp == 2) {
        int r =
            LZ4_decompress_safe((const char *)p, (char *)inflated, (int)n, (int)sizeof(inflated));
        if (r < 0)
            fail_msg("lz4 frame of %zu bytes does not decompress", n);
        return (size_t)r;
    }
    if (!d->zs_ready) {
        memset(&d->zs, 0, sizeof(d->zs));
        assert_int_equal(inflateInit(&d->zs), Z_OK);
        d->zs_ready = 1;
    }
    d->zs.next_in = (Bytef *)p;
    d->zs.avail_in = (uInt)n;
    d->zs.next_out = inflated;
    d->zs.avail_out = sizeof(inflated);
    int r = inflate(&d->zs, Z_SYNC_FLUSH);
    if (r != Z_OK && r != Z_STREAM_END)
        fail_msg("zlib frame of %zu bytes does not inflate (%d)", n, r);
    return sizeof(inflated) - d->zs.avail_out;
}

/* A data payload: one message, or packed [u16 len][msg] entries. */
static void payload(direction *d, const uint8_t *p, size_t n, int packed, stats *st,
                    const char *where)
{
    if (!packed) {
        if (n)
            check_message(p, n, st, where);
        return;
    }
    st->packed++;
    size_t off = 0;
    while (off + 2 <= n) {
        size_t len = (size_t)p[off] << 8 | p[off + 1];
        off += 2;
        if (len == 0)
            continue;
        if (off + len > n)
            fail_msg("%s: packed entry of %zu bytes overruns its frame", where, len);
        check_message(p + off, len, st, where);
        off += len;
    }
    (void)d;
}

/* Walks the RIPC frames of one direction after the handshake. */
static void frames(direction *d, stats *st, const char *name)
{
    const uint8_t *s = d->bytes->data;
    size_t n = d->bytes->len, off;
    char where[256];

    assert_true(n >= 2);
    off = (size_t)s[0] << 8 | s[1]; /* ConnectReq / ConnectAck */
    if (d->client && off + 3 <= n && s[off + 2] == 0x08)
        off += (size_t)s[off] << 8 | s[off + 1]; /* v14 client key exchange */
    while (off + 3 <= n) {
        size_t len = (size_t)s[off] << 8 | s[off + 1];
        uint8_t flags = s[off + 2];
        if (len < 3 || off + len > n)
            fail_msg("%s: frame at %zu of length %zu", name, off, len);
        const uint8_t *p = s + off + 3, *end = s + off + len;
        snprintf(where, sizeof(where), "%s %s frame at offset %zu", name,
                 d->client ? "client->server" : "server->client", off);
        st->frames++;
        off += len;
        if (len == 3)
            continue; /* ping */
        uint8_t ext = 0;
        if (flags & 0x01)
            ext = *p++;
        if (ext & 0x08) { /* first fragment: total length, id */
            d->frag_total = rwf_rd32(p);
            d->frag_id = rwf_rd16(p + 4);
            p += 6;
            free(d->frag);
            d->frag = malloc(d->frag_total);
            d->frag_len = 0;
        } else if (ext & 0x04) {
            assert_int_equal(rwf_rd16(p), d->frag_id);
            p += 2;
        }
        const uint8_t *data = p;
        size_t dlen = (size_t)(end - p);
        if (flags & 0x04) {
            st->compressed++;
            dlen = decompress(d, p, dlen);
            data = inflated;
        } else if (!(flags & 0x02)) {
            fail_msg("%s: flags 0x%02x carry no data", where, flags);
        }
        if (ext & 0x0C) {
            assert_true(d->frag_len + dlen <= d->frag_total);
            memcpy(d->frag + d->frag_len, data, dlen);
            d->frag_len += dlen;
            if (d->frag_len == d->frag_total)
                payload(d, d->frag, d->frag_len, 0, st, where);
            continue;
        }
        payload(d, data, dlen, (flags & 0x10) != 0, st, where);
    }
    assert_int_equal(off, n);
    free(d->frag);
    d->frag = NULL;
    if (d->zs_ready)
        inflateEnd(&d->zs);
}

static void capture(const char *name, int comp, stats *st)
{
    char rel[256];
    ts_tcp_streams s;
    snprintf(rel, sizeof(rel), "%s/%s.pcap", name, name);
    assert_int_equal(ts_pcap_tcp_streams(ts_capture(rel), 14002, &s), 0);
    direction c = {.bytes = &s.client_to_server, .client = 1, .comp = comp};
    direction sv = {.bytes = &s.server_to_client, .client = 0, .comp = comp};
    memset(st, 0, sizeof(*st));
    frames(&c, st, name);
    frames(&sv, st, name);
    ts_tcp_streams_free(&s);
    /* Login, directory, 5 items requested; login, directory, 5 refreshes; updates. */
    assert_true(st->by_class[RWF_MC_REQUEST] >= 7);
    assert_true(st->by_class[RWF_MC_REFRESH] >= 7);
    assert_true(st->by_class[RWF_MC_UPDATE] > 0);
    assert_int_equal(st->refresh_fields, 73);
    assert_true(st->update_fields == 23 || st->update_fields == 24);
    printf("%s: %u frames (%u packed, %u compressed), %u messages (%u requests, %u refreshes, "
           "%u updates), %u fields, all re-encoded identically\n",
           name, st->frames, st->packed, st->compressed, st->msgs, st->by_class[RWF_MC_REQUEST],
           st->by_class[RWF_MC_REFRESH], st->by_class[RWF_MC_UPDATE], st->fields);
}

static void test_default(void **state)
{
    (void)state;
    stats st;
    capture("consprov_default", 0, &st);
    assert_int_equal(st.packed, 0);
}

static void test_tcpdelay(void **state)
{
    (void)state;
    stats st;
    capture("consprov_tcpdelay", 0, &st);
}

static void test_pack(void **state)
{
    (void)state;
    stats st;
    capture("consprov_pack", 0, &st);
    assert_true(st.packed > 0);
}

static void test_lz4(void **state)
{
    (void)state;
    stats st;
    capture("consprov_lz4", 2, &st);
    assert_true(st.compressed > 0);
}

static void test_zlib(void **state)
{
    (void)state;
    stats st;
    capture("consprov_zlib", 1, &st);
    assert_true(st.compressed > 0);
}

/* The first messages each way, encoded from scratch: login (user root), directory, items. */
static void test_requests_from_scratch(void **state)
{
    (void)state;
    ts_tcp_streams s;
    uint8_t buf[512];
    rwf_enc e;
    rwf_msg m;
    size_t len;
    assert_int_equal(
        ts_pcap_tcp_streams(ts_capture("consprov_default/consprov_default.pcap"), 14002, &s), 0);
    const uint8_t *c = s.client_to_server.data;
    size_t off = (size_t)c[0] << 8 | c[1];
    off += (size_t)c[off] << 8 | c[off + 1]; /* key exchange */

    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REQUEST;
    m.domain = RWF_DMT_LOGIN;
    m.stream_id = 1;
    m.flags = RWF_RQMF_STREAMING;
    m.container_type = RWF_DT_NO_DATA;
    m.key.flags = RWF_MKF_HAS_NAME | RWF_MKF_HAS_ATTRIB;
    m.key.name = RWF_STR("root");
    m.key.attrib_type = RWF_DT_ELEMENT_LIST;
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_msg_begin(&e, &m);
    rwf_enc_el_begin_std(&e);
    rwf_enc_el_buf(&e, RWF_STR("ApplicationId"), RWF_DT_ASCII_STRING, RWF_STR("256"));
    rwf_enc_el_buf(&e, RWF_STR("ApplicationName"), RWF_DT_ASCII_STRING, RWF_STR("ConsPerf"));
    rwf_enc_el_buf(&e, RWF_STR("Position"), RWF_DT_ASCII_STRING, RWF_STR("127.0.0.1/net"));
    rwf_enc_el_uint(&e, RWF_STR("Role"), 0);
    rwf_enc_el_end(&e);
    rwf_enc_msg_end(&e);
    assert_int_equal(rwf_enc_finish(&e, &len), RWF_OK);
    ts_assert_bytes_equal(buf, len, c + off + 3, ((size_t)c[off] << 8 | c[off + 1]) - 3);
    off += (size_t)c[off] << 8 | c[off + 1];

    memset(&m, 0, sizeof(m));
    m.msg_class = RWF_MC_REQUEST;
    m.domain = RWF_DMT_SOURCE;
    m.stream_id = 2;
    m.flags = RWF_RQMF_STREAMING;
    m.container_type = RWF_DT_NO_DATA;
    m.key.flags = RWF_MKF_HAS_FILTER;
    m.key.filter = 7;
    assert_int_equal(rwf_msg_encode(&m, buf, sizeof(buf), &len), RWF_OK);
    ts_assert_bytes_equal(buf, len, c + off + 3, ((size_t)c[off] << 8 | c[off + 1]) - 3);
    off += (size_t)c[off] << 8 | c[off + 1];

    for (int i = 1; i <= 5; i++) {
        char name[8];
        snprintf(name, sizeof(name), "RDT%d", i);
        memset(&m, 0, sizeof(m));
        m.msg_class = RWF_MC_REQUEST;
        m.domain = RWF_DMT_MARKET_PRICE;
        m.stream_id = 4 + i;
        m.flags = RWF_RQMF_STREAMING | RWF_RQMF_HAS_QOS;
        m.container_type = RWF_DT_NO_DATA;
        m.qos.timeliness = RWF_QOS_TIME_REALTIME;
        m.qos.rate = RWF_QOS_RATE_TICK_BY_TICK;
        m.key.flags = RWF_MKF_HAS_SERVICE_ID | RWF_MKF_HAS_NAME;
        m.key.service_id = 1;
        m.key.name = rwf_buf_cstr(name);
        assert_int_equal(rwf_msg_encode(&m, buf, sizeof(buf), &len), RWF_OK);
        ts_assert_bytes_equal(buf, len, c + off + 3, ((size_t)c[off] << 8 | c[off + 1]) - 3);
        off += (size_t)c[off] << 8 | c[off + 1];
    }
    ts_tcp_streams_free(&s);
}

static int setup(void **state)
{
    (void)state;
    dict = rwf_dict_new();
    if (rwf_dict_load_fields(dict, ts_source_path("data/RDMFieldDictionary")) != RWF_OK ||
        rwf_dict_load_enums(dict, ts_source_path("data/enumtype.def")) != RWF_OK) {
        fprintf(stderr, "%s\n", err_msg());
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rwf_dict_free(dict);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default), cmocka_unit_test(test_tcpdelay),
        cmocka_unit_test(test_pack),    cmocka_unit_test(test_lz4),
        cmocka_unit_test(test_zlib),    cmocka_unit_test(test_requests_from_scratch),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

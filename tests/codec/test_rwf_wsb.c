/*
 * Warm-standby generic messages: ConsumerConnectionStatus (login based) and ConsumerStatus
 * (service based) are the original consumer's bytes (docs/wire.md#warm-standby-messages, from the
 * warm-standby captures), both roles; decoding gives the role and the service back; other
 * generic messages are not taken for them; a malformed one is refused with a reason.
 */
#include "testsupport.h"

#include <string.h>

#include "rwf.h"

static uint8_t got[512];

static size_t enc_conn(int32_t stream, uint64_t mode)
{
    rwf_enc e;
    size_t len = 0;
    rwf_enc_init(&e, got, sizeof(got));
    if (rwf_rdm_wsb_conn_status(&e, stream, mode) < 0 || rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());
    return len;
}

static size_t enc_svc(int32_t stream, uint16_t service, uint64_t mode)
{
    rwf_enc e;
    size_t len = 0;
    rwf_enc_init(&e, got, sizeof(got));
    if (rwf_rdm_wsb_consumer_status(&e, stream, service, mode) < 0 ||
        rwf_enc_finish(&e, &len) != RWF_OK)
        fail_msg("encode: %s", err_msg());
    return len;
}

static rwf_wsb decode(size_t len)
{
    rwf_msg m;
    rwf_wsb w;
    if (rwf_msg_decode(&m, rwf_buf_make(got, len)) != RWF_OK)
        fail_msg("decode: %s", err_msg());
    if (rwf_rdm_wsb_decode(&m, &w) != RWF_OK)
        fail_msg("wsb decode: %s", err_msg());
    return w;
}

/* Appends a string's bytes. */
static size_t put(uint8_t *p, size_t at, const char *s)
{
    memcpy(p + at, s, strlen(s));
    return at + strlen(s);
}

static const uint8_t el_mode[] = {0xfe, 0x00, 0x16, 0x08, 0x00, 0x01, 0x0f};

static void test_conn_status(void **state)
{
    (void)state;
    uint8_t want[128];
    size_t n = 0;
    const uint8_t head[] = {0x00, 0x24, 0x07, 0x01, 0x00, 0x00, 0x00,
                            0x01, 0x04, 0x09, 0x80, 0x1a, 0x02, 0x18};
    memcpy(want, head, sizeof(head));
    n = put(want, sizeof(head), "ConsumerConnectionStatus");
    const uint8_t map[] = {0x00, 0x11, 0x05, 0x00, 0x01, 0x02, 0x0f};
    memcpy(want + n, map, sizeof(map));
    n = put(want, n + sizeof(map), "WarmStandbyInfo");
    memcpy(want + n, el_mode, sizeof(el_mode));
    n = put(want, n + sizeof(el_mode), "WarmStandbyMode");
    want[n++] = 0x04;
    want[n++] = 0x01;
    want[n++] = 0x00;
    assert_int_equal(n, 85);
    for (uint64_t mode = 0; mode <= 1; mode++) {
        want[n - 1] = (uint8_t)mode;
        size_t len = enc_conn(1, mode);
        ts_assert_bytes_equal(got, len, want, n);
        rwf_wsb w = decode(len);
        assert_int_equal(w.kind, RWF_WSB_CONN_STATUS);
        assert_true(w.has_mode);
        assert_int_equal(w.mode, mode);
    }
}

static void test_consumer_status(void **state)
{
    (void)state;
    uint8_t want[128];
    const uint8_t head[] = {0x00, 0x1a, 0x07, 0x04, 0x00, 0x00, 0x00,
                            0x02, 0x04, 0x09, 0x80, 0x10, 0x02, 0x0e};
    memcpy(want, head, sizeof(head));
    size_t n = put(want, sizeof(head), "ConsumerStatus");
    const uint8_t map[] = {0x00, 0x04, 0x05, 0x00, 0x01, 0x02, 0x01, 0x01};
    memcpy(want + n, map, sizeof(map));
    n += sizeof(map);
    memcpy(want + n, el_mode, sizeof(el_mode));
    n = put(want, n + sizeof(el_mode), "WarmStandbyMode");
    want[n++] = 0x04;
    want[n++] = 0x01;
    want[n++] = 0x01;
    assert_int_equal(n, 61);
    size_t len = enc_svc(2, 1, RWF_WSB_STANDBY);
    ts_assert_bytes_equal(got, len, want, n);
    rwf_wsb w = decode(len);
    assert_int_equal(w.kind, RWF_WSB_CONSUMER_STATUS);
    assert_int_equal(w.mode, RWF_WSB_STANDBY);
    assert_int_equal(w.service_id, 1);
    w = decode(enc_svc(2, 300, RWF_WSB_ACTIVE));
    assert_int_equal(w.service_id, 300);
    assert_int_equal(w.mode, RWF_WSB_ACTIVE);
}

static void test_other_and_bad(void **state)
{
    (void)state;
    size_t len = enc_conn(1, 0);
    rwf_msg m;
    rwf_wsb w;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(got, len)), RWF_OK);
    m.key.name = RWF_STR("SomethingElse"); /* another generic message */
    assert_int_equal(rwf_rdm_wsb_decode(&m, &w), RWF_OK);
    assert_int_equal(w.kind, 0);
    m.key.name = RWF_STR("ConsumerConnectionStatus");
    m.domain = RWF_DMT_SOURCE; /* the login name on the directory stream */
    assert_int_equal(rwf_rdm_wsb_decode(&m, &w), RWF_OK);
    assert_int_equal(w.kind, 0);
    m.domain = RWF_DMT_LOGIN;
    m.payload.len = 3; /* the map cut short */
    assert_true(rwf_rdm_wsb_decode(&m, &w) < 0);
    assert_true(strlen(err_msg()) > 0);
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(got, len)), RWF_OK);
    m.container_type = RWF_DT_ELEMENT_LIST;
    assert_int_equal(rwf_rdm_wsb_decode(&m, &w), RWF_E_MALFORMED);
    assert_non_null(strstr(err_msg(), "expected a Map"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conn_status),
        cmocka_unit_test(test_consumer_status),
        cmocka_unit_test(test_other_and_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

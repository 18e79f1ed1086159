/*
 * The tunnel's one-pass headers (tun_data_header, tun_ack_msg) against the codec's message
 * encoder: for DATA headers of stream versions 1 and 2, whole and fragmented, complete or not,
 * and for ACKs with and without a NAK range and the FIN flag, the bytes equal those
 * rwf_msg_encode writes for the same Generic message (the header alone: its payload follows),
 * and the members the tunnel changes after writing (TUN_AT_SEQ, TUN_AT_OPCODE) are where the
 * decoder reads them back.
 */
#include "tun_testutil.h"

#include <string.h>

/* The Generic message a tunnel header is, encoded by the message encoder into want. */
static size_t encoded(uint8_t *want, size_t cap, uint8_t domain, int32_t stream, uint16_t flags,
                      uint8_t ctype, const uint8_t *ext, size_t ext_len)
{
    rwf_msg m;
    rwf_msg_init(&m, RWF_MC_GENERIC, domain, stream, ctype);
    m.flags = flags;
    m.ext_header = rwf_buf_make(ext, ext_len);
    size_t len = 0;
    assert_int_equal(rwf_msg_encode(&m, want, cap, &len), RWF_OK);
    return len;
}

static void data_case(unsigned v, bool frag, bool complete)
{
    uint8_t got[TUN_HDR_MAX], want[64], ext[16];
    memset(got, 0xAA, sizeof(got));
    uint32_t n = tun_data_header(got, RWF_DMT_SYSTEM, 0x01020304, v, frag, complete, 70000, 3,
                                 0x1234, RWF_DT_FIELD_LIST);
    size_t e = 0;
    ext[e++] = TUN_OP_DATA;
    if (v >= 2) {
        ext[e++] = frag ? TUN_DF_FRAGMENTED : 0;
        if (frag) {
            rwf_wr32(ext + e, 70000);
            rwf_wr32(ext + e + 4, 3);
            rwf_wr16(ext + e + 8, 0x1234);
            ext[e + 10] = RWF_DT_FIELD_LIST - RWF_DT_CONTAINER_MIN;
            e += 11;
        }
    }
    uint16_t flags = RWF_GNMF_HAS_EXTENDED_HEADER | RWF_GNMF_HAS_SEQ_NUM |
                     (complete ? RWF_GNMF_MESSAGE_COMPLETE : 0);
    size_t len = encoded(want, sizeof(want), RWF_DMT_SYSTEM, 0x01020304, flags,
                         frag ? RWF_DT_OPAQUE : RWF_DT_MSG, ext, e);
    assert_int_equal(n, len);
    assert_memory_equal(got, want, len);

    /* The sequence number and the opcode are where the decoder finds them. */
    rwf_wr32(got + TUN_AT_SEQ, 77);
    got[TUN_AT_OPCODE] = TUN_OP_RETRANS;
    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(got, n)), RWF_OK);
    tun_hdr h;
    assert_int_equal(tun_hdr_decode(&m, v, &h), 0);
    assert_int_equal(h.seq, 77);
    assert_int_equal(h.opcode, TUN_OP_RETRANS);
    if (v >= 2 && frag) {
        assert_int_equal(h.total, 70000);
        assert_int_equal(h.frag_num, 3);
        assert_int_equal(h.msg_id, 0x1234);
        assert_int_equal(h.ctype, RWF_DT_FIELD_LIST);
    }
}

static void test_data_header(void **state)
{
    (void)state;
    for (unsigned v = 1; v <= 2; v++)
        for (int frag = 0; frag < 2; frag++)
            for (int complete = 0; complete < 2; complete++)
                data_case(v, frag, complete);
}

static void ack_case(uint16_t flags, unsigned nnak)
{
    const uint32_t nak[2] = {5, 9};
    uint8_t got[TUN_HDR_MAX + 16], want[64], ext[32];
    uint32_t n = tun_ack_msg(got, RWF_DMT_SYSTEM, -3, flags, 12, nak, nnak, 12288);
    uint8_t *q = ext;
    *q++ = TUN_OP_ACK;
    q = rwf_wr_u15rb(q, flags);
    q = rwf_wr32(q, 12);
    *q++ = (uint8_t)nnak;
    for (unsigned i = 0; i < 2 * nnak; i++)
        q = rwf_wr32(q, nak[i]);
    *q++ = 0;
    q = rwf_wr32(q, 12288);
    size_t len = encoded(want, sizeof(want), RWF_DMT_SYSTEM, -3,
                         RWF_GNMF_HAS_EXTENDED_HEADER | RWF_GNMF_MESSAGE_COMPLETE, RWF_DT_NO_DATA,
                         ext, (size_t)(q - ext));
    assert_int_equal(n, len);
    assert_memory_equal(got, want, len);

    rwf_msg m;
    assert_int_equal(rwf_msg_decode(&m, rwf_buf_make(got, n)), RWF_OK);
    tun_hdr h;
    assert_int_equal(tun_hdr_decode(&m, 2, &h), 0);
    assert_int_equal(h.opcode, TUN_OP_ACK);
    assert_int_equal(h.ack_flags, flags);
    assert_int_equal(h.seq, 12);
    assert_int_equal(h.nnak, nnak);
    assert_int_equal(h.window, 12288);
}

static void test_ack(void **state)
{
    (void)state;
    ack_case(0, 0);
    ack_case(0, 1);
    ack_case(TUN_ACKF_FIN, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_header),
        cmocka_unit_test(test_ack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

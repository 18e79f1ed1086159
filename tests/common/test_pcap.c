/* The pcap reassembler that other tests rely on: checked against the framing summary that
 * accompanies each capture (first ConnectReq length and the stream lengths). */
#include "testsupport.h"

#include <stdio.h>
#include <string.h>

static void test_consprov_default_streams(void **state)
{
    (void)state;
    const char *p = ts_capture("consprov_default/consprov_default.pcap");
    ts_tcp_streams s;
    assert_int_equal(ts_pcap_tcp_streams(p, 14002, &s), 0);
    /* hex.txt: "client -> server byte stream (316 bytes)", "server -> client (11483 bytes)" */
    assert_int_equal(s.client_to_server.len, 316);
    assert_int_equal(s.server_to_client.len, 11483);
    /* ConnectReq: length 0x41, opcode 0, connVersion 0x17 */
    uint8_t want[] = {0x00, 0x41, 0x00, 0x00, 0x00, 0x00, 0x17, 0x08};
    ts_assert_bytes_equal(s.client_to_server.data, sizeof(want), want, sizeof(want));
    /* ConnectAck: length 0x53, ext flags, CONNACK */
    assert_int_equal(s.server_to_client.data[0], 0x00);
    assert_int_equal(s.server_to_client.data[1], 0x53);
    assert_int_equal(s.server_to_client.data[3], 0x01);
    ts_tcp_streams_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_consprov_default_streams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* run_chan: the Channel Info block against the original tools' captured console output, the
 * "Channel Closed" wording, the hand-over of channels and the least-loaded choice. */
#include "testsupport.h"

#include "err.h"
#include "run_chan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first Channel Info block of a captured console output: its 14 lines (the header, twelve
 * "  name: value" lines and the blank line after them) into block, and the values into in/fd. */
static void capture_block(const char *text, char *block, size_t size, tp_info *in, int *fd)
{
    const char *p = strstr(text, " active. Channel Info:\n");
    assert_non_null(p);
    while (p > text && p[-1] != '\n')
        p--;
    const char *end = strstr(p, "\n\n");
    assert_non_null(end);
    end += 2;
    assert_true((size_t)(end - p) < size);
    memcpy(block, p, (size_t)(end - p));
    block[end - p] = '\0';

    memset(in, 0, sizeof(*in));
    assert_int_equal(sscanf(block, "Channel %d active.", fd), 1);
    const char *l = strchr(block, '\n') + 1;
    int send_seen = 0;
    while (*l && *l != '\n') {
        char name[64], value[sizeof(in->component)];
        assert_int_equal(sscanf(l, " %63[^:]: %255[^\n]", name, value), 2);
        if (!strcmp(name, "maxFragmentSize"))
            in->max_fragment_size = (uint32_t)atol(value);
        else if (!strcmp(name, "maxOutputBuffers"))
            in->max_output_buffers = (uint32_t)atol(value);
        else if (!strcmp(name, "guaranteedOutputBuffers"))
            in->guaranteed_output_buffers = (uint32_t)atol(value);
        else if (!strcmp(name, "numInputBuffers"))
            in->num_input_buffers = (uint32_t)atol(value);
        else if (!strcmp(name, "pingTimeout"))
            in->ping_timeout = (uint8_t)atoi(value);
        else if (!strcmp(name, "clientToServerPings"))
            in->client_to_server_pings = !strcmp(value, "true");
        else if (!strcmp(name, "serverToClientPings"))
            in->server_to_client_pings = !strcmp(value, "true");
        else if (!strcmp(name, "sysSendBufSize") && send_seen++ == 0)
            in->sys_send_buf_size = atoi(value);
        else if (!strcmp(name, "sysSendBufSize")) /* the original's label of the receive size */
            in->sys_recv_buf_size = atoi(value);
        else if (!strcmp(name, "compressionType")) {
            for (int c = TP_COMP_NONE; c <= TP_COMP_LZ4; c++)
                if (!strcmp(value, tp_comp_name((tp_comp)c)))
                    in->compression = (tp_comp)c;
        } else if (!strcmp(name, "compressionThreshold"))
            in->compression_threshold = (uint32_t)atol(value);
        else if (!strcmp(name, "ComponentInfo"))
            memcpy(in->component, value, sizeof(in->component));
        else
            fail_msg("unexpected line in the capture: %s", name);
        l = strchr(l, '\n') + 1;
    }
}

/* Our block for the captured values is the captured block, line for line. */
static void check_capture(const char *rel)
{
    const char *path = ts_capture(rel);
    uint8_t *text;
    size_t len;
    assert_int_equal(ts_read_file(path, &text, &len), 0);
    char want[2048];
    tp_info in;
    int fd;
    capture_block((const char *)text, want, sizeof(want), &in, &fd);
    free(text);

    char *got = NULL;
    size_t got_len = 0;
    FILE *f = open_memstream(&got, &got_len);
    assert_non_null(f);
    run_channel_info_print(f, fd, &in);
    fclose(f);
    char *g = got, *w = want;
    for (int line = 1; *g || *w; line++) {
        size_t gl = strcspn(g, "\n"), wl = strcspn(w, "\n");
        if (gl != wl || memcmp(g, w, gl) != 0)
            fail_msg("%s line %d of the block: got \"%.*s\", want \"%.*s\"", rel, line, (int)gl, g,
                     (int)wl, w);
        g += gl + (g[gl] == '\n');
        w += wl + (w[wl] == '\n');
    }
    free(got);
}

static void test_info_consperf_default(void **state)
{
    (void)state;
    check_capture("consprov_default/consprov_default.cons.stdout");
}

static void test_info_provperf_default(void **state)
{
    (void)state;
    check_capture("consprov_default/consprov_default.prov.stdout");
}

static void test_info_consperf_lz4(void **state)
{
    (void)state;
    check_capture("consprov_lz4/consprov_lz4.cons.stdout");
}

static void test_info_transportperf(void **state)
{
    (void)state;
    check_capture("transportperf_socket/transportperf_socket.server.stdout");
}

/* A channel with no component information says so. */
static void test_info_no_component(void **state)
{
    (void)state;
    tp_info in;
    memset(&in, 0, sizeof(in));
    char *got = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&got, &len);
    run_channel_info_print(f, 7, &in);
    fclose(f);
    assert_non_null(strstr(got, "Channel 7 active. Channel Info:\n"));
    assert_non_null(strstr(got, "  ComponentInfo: (No component info)\n\n"));
    assert_null(strstr(got, "sysRecvBufSize"));
    free(got);
}

/* An encrypted channel: the original's block, then (ours) the negotiated version and cipher;
 * a plain one has no such line. */
static void test_info_tls(void **state)
{
    (void)state;
    tp_info in;
    memset(&in, 0, sizeof(in));
    snprintf(in.tls_version, sizeof(in.tls_version), "TLSv1.3");
    snprintf(in.tls_cipher, sizeof(in.tls_cipher), "TLS_AES_256_GCM_SHA384");
    char *got = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&got, &len);
    run_channel_info_print(f, 7, &in);
    fclose(f);
    const char *end =
        "  ComponentInfo: (No component info)\n\nTLS: TLSv1.3, TLS_AES_256_GCM_SHA384\n\n";
    assert_true(len > strlen(end));
    assert_string_equal(got + len - strlen(end), end);
    free(got);

    memset(&in, 0, sizeof(in));
    f = open_memstream(&got, &len);
    run_channel_info_print(f, 7, &in);
    fclose(f);
    assert_null(strstr(got, "TLS"));
    free(got);
}

/* The closing line as the originals word it. */
static void test_closed(void **state)
{
    (void)state;
    char *got = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&got, &len);
    run_channel_closed(f, NULL);
    run_channel_closed(f, "peer reset");
    run_channel_closed(f, "shared memory reader lags writer by 9000 messages");
    /* The peer's orderly end, in words; the end in the middle of a frame stays a failure. */
    run_channel_closed(f, TP_PEER_CLOSED);
    run_channel_closed(f, TP_PEER_CLOSED " (WS Code 1000 Normal Closure)");
    run_channel_closed(f, "send of 12 queued bytes: " TP_PEER_CLOSED
                          " (send after its end: Broken pipe)");
    run_channel_closed(f, TP_PEER_CLOSED " in the middle of a frame (3 bytes of it received)");
    fclose(f);
    assert_string_equal(got, "Channel Closed.\n"
                             "Channel Closed: RSSL_RET_FAILURE(peer reset)\n"
                             "Channel Closed: RSSL_RET_SLOW_READER(shared memory reader lags "
                             "writer by 9000 messages)\n"
                             "Channel Closed: the peer closed the connection normally.\n"
                             "Channel Closed: the peer closed the connection normally (WS Code "
                             "1000 Normal Closure).\n"
                             "Channel Closed: the peer closed the connection normally (send of "
                             "12 queued bytes: send after its end: Broken pipe).\n"
                             "Channel Closed: RSSL_RET_FAILURE(connection closed by peer in the "
                             "middle of a frame (3 bytes of it received))\n");
    free(got);
}

/* The least-loaded worker gets the next channel. */
static void test_least_loaded(void **state)
{
    (void)state;
    run_handoff ws[3];
    memset(ws, 0, sizeof(ws));
    run_handoff *to[3] = {&ws[0], &ws[1], &ws[2]};
    atomic_init(&ws[0].open, 2);
    atomic_init(&ws[1].open, 1);
    atomic_init(&ws[2].open, 1);
    assert_ptr_equal(run_handoff_least(to, 3), &ws[1]);
    atomic_store(&ws[1].open, 3);
    assert_ptr_equal(run_handoff_least(to, 3), &ws[2]);
}

/* Channels handed over come out in order, in batches of at most max; the eventfd is readable
 * while some wait and emptied when none are left; an untaken channel is closed by free. */
static void test_handoff(void **state)
{
    (void)state;
    run_handoff h;
    assert_int_equal(run_handoff_init(&h, 0), 0);
    tp_channel *out[4];
    assert_int_equal(run_handoff_take(&h, out, 4), 0);
    /* Stand-in channel pointers: only their order is looked at (none is closed here). */
    tp_channel *fake[3] = {(tp_channel *)&h, (tp_channel *)&out[0], (tp_channel *)&out[1]};
    for (int i = 0; i < 3; i++)
        assert_int_equal(run_handoff_give(&h, fake[i]), 0);
    assert_int_equal(atomic_load(&h.open), 3);
    uint64_t v;
    assert_int_equal(run_handoff_take(&h, out, 2), 2);
    assert_ptr_equal(out[0], fake[0]);
    assert_ptr_equal(out[1], fake[1]);
    assert_int_equal(run_handoff_take(&h, out, 2), 1);
    assert_ptr_equal(out[0], fake[2]);
    assert_true(read(h.evfd, &v, sizeof(v)) < 0); /* emptied */
    run_handoff_closed(&h);
    assert_int_equal(atomic_load(&h.open), 2);
    run_handoff_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_info_consperf_default),
        cmocka_unit_test(test_info_provperf_default),
        cmocka_unit_test(test_info_consperf_lz4),
        cmocka_unit_test(test_info_transportperf),
        cmocka_unit_test(test_info_no_component),
        cmocka_unit_test(test_info_tls),
        cmocka_unit_test(test_closed),
        cmocka_unit_test(test_least_loaded),
        cmocka_unit_test(test_handoff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

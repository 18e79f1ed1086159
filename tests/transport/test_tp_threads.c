/* Channels are independent: four threads, each with its own server and client on
 * 127.0.0.1, move messages (plain, compressed, fragmented) at the same time. Run under
 * ThreadSanitizer this shows the transport keeps no shared mutable state. */
#include <pthread.h>

#include "tp_testutil.h"

typedef struct job {
    int id;
    int ok;
    char why[256];
} job;

static void *worker(void *arg)
{
    job *j = arg;
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    so.compression = co.compression = (tp_comp)(j->id % 3);
    so.compression_level = 6;
    tu_pair p;
    memset(&p, 0, sizeof(p));
    if (tp_bind(&so, &p.srv) != 0) {
        snprintf(j->why, sizeof(j->why), "bind: %s", err_msg());
        return NULL;
    }
    snprintf(p.port, sizeof(p.port), "%u", tp_server_port(p.srv));
    co.port = p.port;
    if (tp_connect(&co, &p.c) != 0) {
        snprintf(j->why, sizeof(j->why), "connect: %s", err_msg());
        tp_server_close(p.srv);
        return NULL;
    }
    int rs, rc;
    tu_handshake(&p, &rs, &rc, 5000);
    if (rs != TP_ACTIVE || rc != TP_ACTIVE) {
        snprintf(j->why, sizeof(j->why), "handshake: %s", err_msg());
        tu_close(&p);
        return NULL;
    }
    /* every error text is per thread: a failure here must not show up elsewhere */
    err_set("thread %d", j->id);
    for (int i = 0; i < 200; i++) {
        uint8_t msg[300];
        tu_pattern(msg, sizeof(msg), (uint32_t)(i + j->id * 1000));
        int w = tu_write(p.c, msg, sizeof(msg), TP_WRITE_DIRECT);
        tp_msg m;
        if (w < 0 || tu_read(p.s, &m, 5000) != 1 || m.len != sizeof(msg) ||
            memcmp(m.data, msg, sizeof(msg)) != 0) {
            snprintf(j->why, sizeof(j->why), "message %d: %s", i, err_msg());
            tu_close(&p);
            return NULL;
        }
    }
    tu_transfer(p.s, p.c, 100000, (uint32_t)j->id, 1);
    tu_close(&p);
    j->ok = 1;
    return NULL;
}

static void test_parallel_channels(void **state)
{
    (void)state;
    pthread_t t[4];
    job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (job){.id = i};
        assert_int_equal(pthread_create(&t[i], NULL, worker, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        if (!jobs[i].ok)
            fail_msg("thread %d: %s", i, jobs[i].why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parallel_channels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

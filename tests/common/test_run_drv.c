/*
 * run_drv: the session driver's loop with a fake tool. A server driver is handed channels over a
 * socketpair and reads them; a client driver connects over loopback, retries while nothing
 * listens, fails when its channel is lost, and fails at once on a failure that cannot heal
 * (said by the tool's connect_final, or by the driver); ticks run; a stop request ends the loop
 * (also in the middle of a read batch); ops->msgs takes the messages in batches, ops->frames
 * by frames (a packed frame's messages walked by the tool); a failure reaches
 * the slot with its text; a signal says "interrupted"; the Reactor backend ticks and hands over its
 * channels. Channels handed over come and go while the loop runs.
 */
#include "testsupport.h"

#include "clk.h"
#include "err.h"
#include "run_drv.h"
#include "sig.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The fake tool: counts what the driver tells it. */
typedef struct fake {
    run_drv d;
    run_fail fail;
    run_handoff hand;
    atomic_int ups, downs, downs_why, msgs, ticks, batches, connecting, failed_attempts, repeats,
        adopted, finals;
    atomic_int odd;              /* what a callback found wrong (asserted on the main thread) */
    atomic_int stop_after_msgs;  /* the msg callback asks a stop at this count (0: never) */
    atomic_int fail_after_ticks; /* the tick callback fails the thread at this count */
    atomic_int stop_after_ticks; /* the tick callback asks a stop at this count */
    atomic_bool fail_on_loss;    /* down with a reason fails the thread */
    atomic_int most_at_once;     /* the largest batch given to msgs */
    atomic_int close_after_msgs; /* msgs closes the channel at this count (0: never) */
    char last_why[256];
    int result;
    tp_channel *adopted_ch;
} fake;

static int f_tick(void *arg, const tick *t, int64_t now)
{
    fake *f = arg;
    if (tick_deadline(t) > now)
        atomic_fetch_add(&f->odd, 1);
    int n = atomic_fetch_add(&f->ticks, 1) + 1;
    if (n == atomic_load(&f->fail_after_ticks)) {
        err_set("tick %d went wrong", n);
        return run_drv_fail(&f->d, RUN_EXIT_FAILED, "the fake tool");
    }
    if (n == atomic_load(&f->stop_after_ticks))
        sig_request_stop();
    return 0;
}

static int f_up(void *arg, run_drv_ch *c)
{
    fake *f = arg;
    c->user = f;
    atomic_fetch_add(&f->ups, 1);
    return 0;
}

static int f_msg(void *arg, run_drv_ch *c, const tp_msg *m)
{
    fake *f = arg;
    if (c->user != f || m->len != 8)
        atomic_fetch_add(&f->odd, 1);
    int n = atomic_fetch_add(&f->msgs, 1) + 1;
    if (n == atomic_load(&f->stop_after_msgs))
        sig_request_stop();
    return 0;
}

/* The batch form: every message of the batch in order (send_msgs numbers them), the count of
 * the largest batch kept; a stop or a close asked for at a count. */
static int f_msgs(void *arg, run_drv_ch *c, const tp_msg *m, int n)
{
    fake *f = arg;
    if (c->user != f || n < 1 || n > RUN_DRV_VEC)
        atomic_fetch_add(&f->odd, 1);
    if (n > atomic_load(&f->most_at_once))
        atomic_store(&f->most_at_once, n);
    for (int i = 0; i < n; i++) {
        int had = atomic_fetch_add(&f->msgs, 1);
        if (m[i].len != 8 || m[i].data[0] != (uint8_t)had)
            atomic_fetch_add(&f->odd, 1);
        if (had + 1 == atomic_load(&f->stop_after_msgs))
            sig_request_stop();
        if (had + 1 == atomic_load(&f->close_after_msgs)) {
            err_set("message %d was the last", had + 1);
            return RUN_DRV_CLOSE;
        }
    }
    return 0;
}

/* The frame form: every message of every frame in order (send_msgs and send_packed number
 * them), walked with tp_frame_next(); a packed frame's count is its messages; the largest
 * packed frame kept in most_at_once; a close asked for at a count. */
static int f_frames(void *arg, run_drv_ch *c, const tp_frame *fr, int n)
{
    fake *f = arg;
    if (c->user != f || n < 1 || n > RUN_DRV_VEC)
        atomic_fetch_add(&f->odd, 1);
    for (int i = 0; i < n; i++) {
        if ((int)fr[i].packed > atomic_load(&f->most_at_once))
            atomic_store(&f->most_at_once, (int)fr[i].packed);
        const uint8_t *at = fr[i].data;
        tp_msg m;
        uint32_t k = 0;
        while (tp_frame_next(&fr[i], &at, &m)) {
            k++;
            int had = atomic_fetch_add(&f->msgs, 1);
            if (m.len != 8 || m.data[0] != (uint8_t)had || m.data[7] != (uint8_t)had)
                atomic_fetch_add(&f->odd, 1);
            if (had + 1 == atomic_load(&f->close_after_msgs)) {
                err_set("message %d was the last", had + 1);
                return RUN_DRV_CLOSE;
            }
        }
        if (k != (fr[i].packed ? fr[i].packed : 1u))
            atomic_fetch_add(&f->odd, 1);
    }
    return 0;
}

static void f_batch(void *arg, run_drv_ch *c)
{
    (void)c;
    atomic_fetch_add(&((fake *)arg)->batches, 1);
}

static void f_down(void *arg, run_drv_ch *c, const char *why)
{
    fake *f = arg;
    (void)c;
    atomic_fetch_add(&f->downs, 1);
    if (!why)
        return;
    snprintf(f->last_why, sizeof(f->last_why), "%s", why); /* before the count publishes it */
    atomic_fetch_add(&f->downs_why, 1);
    if (atomic_load(&f->fail_on_loss)) {
        err_set("%s", why);
        run_drv_fail(&f->d, RUN_EXIT_FAILED, "connection lost");
    }
}

static void f_connecting(void *arg)
{
    atomic_fetch_add(&((fake *)arg)->connecting, 1);
}

static void f_connect_failed(void *arg, run_drv_stage stage, const char *why, bool repeat)
{
    fake *f = arg;
    (void)stage;
    (void)why;
    if (repeat)
        atomic_fetch_add(&f->repeats, 1); /* before the count the test waits for */
    atomic_fetch_add(&f->failed_attempts, 1);
}

static void f_connect_final(void *arg, run_drv_stage stage, const char *why)
{
    fake *f = arg;
    if (stage != RUN_DRV_AT_CONNECT)
        atomic_fetch_add(&f->odd, 1);
    atomic_fetch_add(&f->finals, 1);
    err_set("the fake tool gave up: %s", why);
}

static void f_adopt(void *arg, tp_channel *ch)
{
    fake *f = arg;
    f->adopted_ch = ch;
    atomic_fetch_add(&f->adopted, 1);
}

static const run_drv_ops fake_ops = {.tick = f_tick,
                                     .up = f_up,
                                     .msg = f_msg,
                                     .batch = f_batch,
                                     .down = f_down,
                                     .connecting = f_connecting,
                                     .connect_failed = f_connect_failed,
                                     .adopt = f_adopt};

/* The same tool taking its messages in batches. */
static const run_drv_ops fake_vec_ops = {
    .tick = f_tick, .up = f_up, .msg = f_msg, .msgs = f_msgs, .batch = f_batch, .down = f_down};

/* The same tool taking its messages by frames (ops->msgs set too: used for shared memory
 * only). */
static const run_drv_ops fake_frame_ops = {.tick = f_tick,
                                           .up = f_up,
                                           .msg = f_msg,
                                           .msgs = f_msgs,
                                           .frames = f_frames,
                                           .batch = f_batch,
                                           .down = f_down};

/* The same tool saying a final failure itself. */
static const run_drv_ops fake_final_ops = {.tick = f_tick,
                                           .up = f_up,
                                           .msg = f_msg,
                                           .down = f_down,
                                           .connecting = f_connecting,
                                           .connect_failed = f_connect_failed,
                                           .connect_final = f_connect_final};

static void *f_thread(void *arg)
{
    fake *f = arg;
    f->result = run_drv_run(&f->d);
    return NULL;
}

/* A fake tool with a driver of cfg's kind (tool, ops and slot filled here). */
static fake *fake_new(run_drv_cfg cfg, bool server)
{
    fake *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    run_fail_init(&f->fail);
    if (server)
        assert_int_equal(run_handoff_init(&f->hand, 0), 0);
    else
        f->hand.evfd = -1;
    cfg.tool = f;
    cfg.ops = &fake_ops;
    cfg.fail = &f->fail;
    if (server)
        cfg.hand = &f->hand;
    assert_int_equal(run_drv_init(&f->d, &cfg), 0);
    return f;
}

static void fake_free(fake *f)
{
    assert_int_equal(atomic_load(&f->odd), 0);
    run_drv_free(&f->d);
    run_handoff_free(&f->hand);
    free(f);
}

/* Waits up to ms for *v to reach want. */
static bool wait_for(atomic_int *v, int want, int ms)
{
    for (int i = 0; i < ms && atomic_load(v) < want; i++)
        clk_sleep_until(clk_ns() + 1000000);
    return atomic_load(v) >= want;
}

/* A pair of channels over a socketpair, the server's end handed to f's driver; returns the
 * client's end, active. */
static tp_channel *hand_pair(fake *f)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    tp_opts o;
    tp_opts_init(&o);
    tp_channel *srv, *cli;
    assert_int_equal(tp_adopt(sv[0], true, &o, &srv), 0);
    assert_int_equal(tp_adopt(sv[1], false, &o, &cli), 0);
    assert_int_equal(run_handoff_give(&f->hand, srv), 0);
    assert_int_equal(tp_init_wait(cli, 5000), TP_ACTIVE);
    return cli;
}

/* Writes n 8-byte messages on ch and flushes them. */
static void send_msgs(tp_channel *ch, int n)
{
    for (int i = 0; i < n; i++) {
        tp_buf *b;
        while (tp_get_buffer(ch, 8, false, &b) == TP_ENOBUFS)
            tp_flush(ch);
        memset(b->data, i, 8);
        b->len = 8;
        assert_true(tp_write(ch, b, 0) >= 0);
    }
    while (tp_flush(ch) > 0)
        clk_sleep_until(clk_ns() + 100000);
}

/* Writes n 8-byte messages on ch numbered from `first`, packed `per` to a frame (the last
 * frame may hold fewer), and flushes them. */
static void send_packed(tp_channel *ch, int first, int n, int per)
{
    for (int i = 0; i < n;) {
        tp_buf *b;
        while (tp_get_buffer(ch, (uint32_t)per * 10, true, &b) == TP_ENOBUFS)
            tp_flush(ch);
        for (int k = 0; k < per && i < n; k++, i++) {
            memset(b->data, first + i, 8);
            b->len = 8;
            if (k + 1 < per && i + 1 < n)
                assert_int_equal(tp_pack(ch, b), 0);
        }
        assert_true(tp_write(ch, b, 0) >= 0);
    }
    while (tp_flush(ch) > 0)
        clk_sleep_until(clk_ns() + 100000);
}

/* A server: the channel handed over comes up, the ticks start, every message is read in
 * batches, a stop ends the loop and closes the channel in order. */
static void test_server(void **state)
{
    (void)state;
    sig_reset();
    fake *f = fake_new((run_drv_cfg){.tick_rate = 1000}, true);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    clk_sleep_until(clk_ns() + 50000000);
    assert_int_equal(atomic_load(&f->ticks), 0); /* no channel: no ticks */
    tp_channel *cli = hand_pair(f);
    assert_true(wait_for(&f->ups, 1, 5000));
    send_msgs(cli, 1000);
    assert_true(wait_for(&f->msgs, 1000, 5000));
    assert_true(wait_for(&f->ticks, 20, 5000));
    assert_true(atomic_load(&f->batches) >= 1);
    sig_request_stop();
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_STOPPED);
    assert_int_equal(atomic_load(&f->downs), 1);
    assert_int_equal(atomic_load(&f->downs_why), 0); /* an orderly close */
    assert_int_equal(run_fail_status(&f->fail), RUN_EXIT_OK);
    assert_int_equal(atomic_load(&f->hand.open), 0);
    tp_close(cli);
    fake_free(f);
    sig_reset();
}

/* A channel the peer closes goes down with the reason; the ticks stop with the last channel. */
static void test_server_loss(void **state)
{
    (void)state;
    sig_reset();
    fake *f = fake_new((run_drv_cfg){.tick_rate = 1000}, true);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    tp_channel *cli = hand_pair(f);
    assert_true(wait_for(&f->ups, 1, 5000));
    tp_close(cli);
    assert_true(wait_for(&f->downs_why, 1, 5000));
    int ticks = atomic_load(&f->ticks);
    clk_sleep_until(clk_ns() + 50000000);
    assert_int_equal(atomic_load(&f->ticks), ticks);
    sig_request_stop();
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_STOPPED);
    assert_int_equal(atomic_load(&f->downs), 1);
    fake_free(f);
    sig_reset();
}

/* Channels come and go while the loop runs: two at once are both read; after one is lost, the
 * next handed over (whose descriptors the system may give the numbers of the lost one's) is
 * read too, and the one that stayed is still read. */
static void test_server_churn(void **state)
{
    (void)state;
    sig_reset();
    fake *f = fake_new((run_drv_cfg){.tick_rate = 1000}, true);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    tp_channel *a = hand_pair(f);
    tp_channel *b = hand_pair(f);
    assert_true(wait_for(&f->ups, 2, 5000));
    send_msgs(a, 100);
    send_msgs(b, 100);
    assert_true(wait_for(&f->msgs, 200, 5000));
    tp_close(a);
    assert_true(wait_for(&f->downs_why, 1, 5000));
    tp_channel *c = hand_pair(f);
    assert_true(wait_for(&f->ups, 3, 5000));
    send_msgs(c, 100);
    assert_true(wait_for(&f->msgs, 300, 5000));
    send_msgs(b, 100);
    assert_true(wait_for(&f->msgs, 400, 5000));
    sig_request_stop();
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_STOPPED);
    assert_int_equal(atomic_load(&f->msgs), 400);
    assert_int_equal(atomic_load(&f->downs), 3);
    assert_int_equal(atomic_load(&f->downs_why), 1);
    tp_close(b);
    tp_close(c);
    fake_free(f);
    sig_reset();
}

/* A stop requested in the middle of a read batch ends the loop at the batch's next look. */
static void test_stop_in_batch(void **state)
{
    (void)state;
    sig_reset();
    fake *f = fake_new((run_drv_cfg){.tick_rate = 1000, .read_batch = 4}, true);
    atomic_store(&f->stop_after_msgs, 2);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    tp_channel *cli = hand_pair(f);
    send_msgs(cli, 500);
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_STOPPED);
    /* the stop is seen at the batch's next look (every 4 messages) or at the loop's top */
    assert_true(atomic_load(&f->msgs) >= 2);
    assert_true(atomic_load(&f->msgs) <= 5);
    tp_close(cli);
    fake_free(f);
    sig_reset();
}

/* ops->msgs: every message in order, several at once, none to ops->msg; a stop in the middle
 * of a batch is seen at the batch's next look; RUN_DRV_CLOSE closes the channel with the
 * tool's reason and nothing more is delivered. */
static void test_server_vec(void **state)
{
    (void)state;
    sig_reset();
    fake *f = fake_new((run_drv_cfg){.tick_rate = 1000, .read_on = true}, true);
    f->d.cfg.ops = &fake_vec_ops;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    tp_channel *cli = hand_pair(f);
    assert_true(wait_for(&f->ups, 1, 5000));
    send_msgs(cli, 1000);
    assert_true(wait_for(&f->msgs, 1000, 5000));
    assert_true(atomic_load(&f->most_at_once) > 1);
    assert_true(atomic_load(&f->batches) >= 1);
    sig_request_stop();
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_STOPPED);
    assert_int_equal(atomic_load(&f->msgs), 1000);
    assert_int_equal(atomic_load(&f->downs_why), 0);
    tp_close(cli);
    fake_free(f);
    sig_reset();

    f = fake_new((run_drv_cfg){.tick_rate = 1000, .read_batch = 4}, true);
    f->d.cfg.ops = &fake_vec_ops;
    atomic_store(&f->stop_after_msgs, 2);
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    cli = hand_pair(f);
    send_msgs(cli, 500);
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_STOPPED);
    /* the rest of that batch is delivered, then the stop is seen */
    assert_true(atomic_load(&f->msgs) >= 2);
    assert_true(atomic_load(&f->msgs) <= 2 + RUN_DRV_VEC);
    tp_close(cli);
    fake_free(f);
    sig_reset();

    f = fake_new((run_drv_cfg){.tick_rate = 1000}, true);
    f->d.cfg.ops = &fake_vec_ops;
    atomic_store(&f->close_after_msgs, 10);
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    cli = hand_pair(f);
    send_msgs(cli, 100);
    assert_true(wait_for(&f->downs_why, 1, 5000));
    assert_int_equal(atomic_load(&f->msgs), 10);
    assert_string_equal(f->last_why, "message 10 was the last");
    sig_request_stop();
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_STOPPED);
    tp_close(cli);
    fake_free(f);
    sig_reset();
}

/* ops->frames: plain and packed frames, every message in order with the bytes sent, a packed
 * frame's messages in one frame with their count, none to ops->msg or ops->msgs;
 * RUN_DRV_CLOSE in the middle of a packed frame closes the channel with the tool's reason and
 * nothing more is delivered. */
static void test_server_frames(void **state)
{
    (void)state;
    sig_reset();
    fake *f = fake_new((run_drv_cfg){.tick_rate = 1000}, true);
    f->d.cfg.ops = &fake_frame_ops;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    tp_channel *cli = hand_pair(f);
    assert_true(wait_for(&f->ups, 1, 5000));
    send_msgs(cli, 100);
    assert_true(wait_for(&f->msgs, 100, 5000));
    send_packed(cli, 100, 150, 50); /* 100 .. 249 in frames of 50 */
    assert_true(wait_for(&f->msgs, 250, 5000));
    assert_int_equal(atomic_load(&f->most_at_once), 50);
    sig_request_stop();
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_STOPPED);
    assert_int_equal(atomic_load(&f->msgs), 250);
    assert_int_equal(atomic_load(&f->odd), 0);
    tp_close(cli);
    fake_free(f);
    sig_reset();

    f = fake_new((run_drv_cfg){.tick_rate = 1000}, true);
    f->d.cfg.ops = &fake_frame_ops;
    atomic_store(&f->close_after_msgs, 30);
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    cli = hand_pair(f);
    send_packed(cli, 0, 100, 20);
    assert_true(wait_for(&f->downs_why, 1, 5000));
    assert_int_equal(atomic_load(&f->msgs), 30);
    assert_int_equal(atomic_load(&f->odd), 0);
    assert_string_equal(f->last_why, "message 30 was the last");
    sig_request_stop();
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_STOPPED);
    tp_close(cli);
    fake_free(f);
    sig_reset();
}

/* A tick that fails the thread: the loop ends, the slot has the text with its context, the
 * run is asked to stop. */
static void test_failure(void **state)
{
    (void)state;
    sig_reset();
    fake *f = fake_new((run_drv_cfg){.tick_rate = 1000, .name = "thread 1"}, true);
    atomic_store(&f->fail_after_ticks, 5);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    tp_channel *cli = hand_pair(f);
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_THREAD_FAILED);
    assert_int_equal(atomic_load(&f->ticks), 5);
    assert_true(sig_stop_requested());
    assert_int_equal(run_fail_status(&f->fail), RUN_EXIT_FAILED);
    assert_string_equal(run_fail_text(&f->fail), "the fake tool: tick 5 went wrong");
    tp_close(cli);
    fake_free(f);
    sig_reset();
}

/* The schedule's set-up is checked: a rate it refuses fails the thread when the first channel
 * comes up, with the thread's name in the text. */
static void test_bad_rate(void **state)
{
    (void)state;
    sig_reset();
    fake *f = fake_new((run_drv_cfg){.tick_rate = TICK_RATE_MAX + 1, .name = "thread 3"}, true);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    tp_channel *cli = hand_pair(f);
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_THREAD_FAILED);
    assert_int_equal(atomic_load(&f->ticks), 0);
    assert_non_null(strstr(run_fail_text(&f->fail), "thread 3: the tick schedule: "));
    tp_close(cli);
    fake_free(f);
    sig_reset();
}

/* A signal: the loop says it was interrupted. */
static void test_interrupted(void **state)
{
    (void)state;
    sig_reset();
    assert_int_equal(sig_install(), 0);
    fake *f = fake_new((run_drv_cfg){.tick_rate = 1000}, true);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    clk_sleep_until(clk_ns() + 20000000);
    raise(SIGINT);
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_INTERRUPTED);
    fake_free(f);
    sig_reset();
}

/* A client: while nothing listens, one attempt a second, each failure flagged when it repeats
 * the previous; once the server is there, the channel comes up; lost, it is not tried again,
 * and the tool's down fails the thread with the reason. */
static void test_client_retry(void **state)
{
    (void)state;
    sig_reset();
    tp_opts so;
    tp_opts_init(&so);
    so.port = "0";
    tp_server *srv;
    assert_int_equal(tp_bind(&so, &srv), 0);
    char port[16];
    snprintf(port, sizeof(port), "%u", tp_server_port(srv));
    tp_server_close(srv); /* nothing listens there now */

    run_opts co;
    run_opts_defaults(&co, "14002", "s.out", "stats");
    co.tcp_nodelay = false;
    fake *f = fake_new((run_drv_cfg){.tick_rate = 1000,
                                     .connect = &co,
                                     .link = {.side = RUN_SERVER, /* taken as a client */
                                              .protocol_type = TP_PROTOCOL_RWF,
                                              .host = "127.0.0.1",
                                              .port = port}},
                       false);
    /* the settings the driver made from the options and the link (run_conn_tp) */
    assert_int_equal(f->d.conn.conn_type, TP_CONN_SOCKET);
    assert_string_equal(f->d.conn.host, "127.0.0.1");
    assert_string_equal(f->d.conn.port, port);
    assert_false(f->d.conn.tcp_nodelay);
    atomic_store(&f->fail_on_loss, true);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    assert_true(wait_for(&f->failed_attempts, 2, 5000));
    assert_true(atomic_load(&f->repeats) >= 1); /* the same refusal, flagged */
    assert_true(atomic_load(&f->connecting) >= 2);
    assert_int_equal(atomic_load(&f->ups), 0);

    so.port = port;
    assert_int_equal(tp_bind(&so, &srv), 0);
    tp_channel *ch = NULL;
    for (int i = 0; i < 5000 && !ch; i++) {
        if (tp_accept(srv, &ch) == 1)
            break;
        ch = NULL;
        clk_sleep_until(clk_ns() + 1000000);
    }
    assert_non_null(ch);
    assert_int_equal(tp_init_wait(ch, 5000), TP_ACTIVE);
    assert_true(wait_for(&f->ups, 1, 5000));
    int attempts = atomic_load(&f->connecting);
    send_msgs(ch, 10);
    assert_true(wait_for(&f->msgs, 10, 5000));
    tp_close(ch); /* the loss */
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_THREAD_FAILED);
    assert_int_equal(atomic_load(&f->connecting), attempts); /* not tried again */
    assert_int_equal(run_fail_status(&f->fail), RUN_EXIT_FAILED);
    assert_non_null(strstr(run_fail_text(&f->fail), "connection lost: "));
    assert_non_null(strstr(run_fail_text(&f->fail), f->last_why));
    tp_server_close(srv);
    fake_free(f);
    sig_reset();
}

/* A client's failure that trying again cannot heal (a service name the resolver does not know):
 * one attempt, none again; the tool's connect_final says it and its text fails the thread, or
 * without one the driver's own line and the failure's text. */
static void test_client_final(void **state)
{
    (void)state;
    for (int own = 0; own < 2; own++) {
        sig_reset();
        run_opts co;
        run_opts_defaults(&co, "rwfperf-no-such-service", "s.out", "stats");
        strcpy(co.host, "127.0.0.1");
        fake *f = fake_new((run_drv_cfg){.tick_rate = 1000, .connect = &co}, false);
        assert_string_equal(f->d.conn.port, "rwfperf-no-such-service");
        if (own)
            f->d.cfg.ops = &fake_final_ops;
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
        pthread_join(t, NULL);
        assert_int_equal(f->result, RUN_DRV_THREAD_FAILED);
        assert_int_equal(atomic_load(&f->connecting), 1);
        assert_int_equal(atomic_load(&f->failed_attempts), 0);
        assert_int_equal(atomic_load(&f->finals), own);
        assert_int_equal(run_fail_status(&f->fail), RUN_EXIT_FAILED);
        const char *text = run_fail_text(&f->fail);
        assert_non_null(strstr(text, "cannot resolve"));
        assert_int_equal(strncmp(text, "the fake tool gave up: ", 23) == 0, own);
        fake_free(f);
        sig_reset();
    }
}

/* The Reactor backend: ticks from the start, channels handed over go to ops->adopt, a stop in a
 * tick ends the loop. */
static void test_reactor(void **state)
{
    (void)state;
    sig_reset();
    fake *f = fake_new((run_drv_cfg){.tick_rate = 1000}, true);
    rx_opts ro;
    rx_opts_init(&ro);
    rx_reactor *r;
    assert_int_equal(rx_create(&ro, &r), 0);
    run_drv_use_reactor(&f->d, r);
    atomic_store(&f->stop_after_ticks, 200);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    tp_opts o;
    tp_opts_init(&o);
    tp_channel *ch;
    assert_int_equal(tp_adopt(sv[0], true, &o, &ch), 0);
    assert_int_equal(run_handoff_give(&f->hand, ch), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, f_thread, f), 0);
    pthread_join(t, NULL);
    assert_int_equal(f->result, RUN_DRV_STOPPED);
    assert_int_equal(atomic_load(&f->ticks), 200);
    assert_int_equal(atomic_load(&f->adopted), 1);
    tp_close(f->adopted_ch);
    close(sv[1]);
    rx_destroy(r);
    fake_free(f);
    sig_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server),        cmocka_unit_test(test_server_loss),
        cmocka_unit_test(test_stop_in_batch), cmocka_unit_test(test_server_vec),
        cmocka_unit_test(test_failure),       cmocka_unit_test(test_interrupted),
        cmocka_unit_test(test_client_retry),  cmocka_unit_test(test_reactor),
        cmocka_unit_test(test_bad_rate),      cmocka_unit_test(test_client_final),
        cmocka_unit_test(test_server_churn),  cmocka_unit_test(test_server_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

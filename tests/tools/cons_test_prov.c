/*
 * A minimal interactive provider for ConsPerf's integration tests, built on our transport and
 * codec: small, predictable, and able to misbehave on purpose.
 *
 *     cons_test_prov <port file> [options]
 *       -updateRate N      updates per second per connection (default 1000)
 *       -genericRate N     generic messages per second per connection (default 0)
 *       -noRefresh         never answer item requests (images never arrive)
 *       -closeAfter N      answer the N+1th item request with a CLOSED status
 *       -runTime S         end after S seconds (default 60)
 *       -port P            listen on port P instead of an ephemeral one
 *       -pingTimeout S     the ping timeout it offers (default 60; the consumer pings every S/3)
 *       -silentAfter S     after S seconds, send nothing more (no updates, no pings) while
 *                          still reading, as a provider that hangs does
 *       -nanoTime          stamps in nanoseconds
 *
 * It listens on an ephemeral loopback port and writes the port number to <port file>. Each
 * connection gets the ProvPerf login refresh (SupportOMMPost) and directory refresh of
 * docs/wire.md#examples (service DIRECT_FEED, id 1, realtime QoS), a refresh per item request, and,
 * 100 times a second, its share of updates round robin over its streaming items. Every update
 * carries TIM_TRK_1 (the send time, CLOCK_MONOTONIC in us) and TIM_TRK_3 (the tick's
 * scheduled time); generic messages carry TIM_TRK_3 (send) and TIM_TRK_1 (scheduled). Posts
 * are reflected as updates with the post's user info, as ProvPerf reflects them. At the end it
 * prints "posts reflected N, generic received M" and exits 0.
 */
#include "cons_itest.h"

#include <inttypes.h>

#include "clk.h"
#include "err.h"
#include "rwf.h"
#include "tp.h"

#define MAX_CONNS 8
#define MAX_ITEMS 4096
#define TICKS 100

/* docs/wire.md#examples: ProvPerf's login refresh (user "user") and directory refresh. */
static const char login_refresh_hex[] =
    "00 81 02 01 00 00 00 01 68 00 09 00 00 02 00 00 80 71 22 04 75 73 65 72 05 80 68 08 00 05 "
    "0D 41 70 70 6C 69 63 61 74 69 6F 6E 49 64 11 03 32 35 36 0F 41 70 70 6C 69 63 61 74 69 6F "
    "6E 4E 61 6D 65 11 08 50 72 6F 76 50 65 72 66 08 50 6F 73 69 74 69 6F 6E 11 0D 31 32 37 2E "
    "30 2E 30 2E 31 2F 6E 65 74 0A 53 69 6E 67 6C 65 4F 70 65 6E 04 01 00 0E 53 75 70 70 6F 72 "
    "74 4F 4D 4D 50 6F 73 74 04 01 01";
static const char directory_refresh_hex[] =
    "00 16 02 04 00 00 00 02 81 68 09 09 00 00 02 00 00 80 05 08 00 00 00 07 00 04 07 00 01 02 "
    "01 01 FE 01 49 00 05 03 02 01 FE 00 FD 08 00 0A 04 4E 61 6D 65 11 0B 44 49 52 45 43 54 5F "
    "46 45 45 44 06 56 65 6E 64 6F 72 11 09 52 65 66 69 6E 69 74 69 76 08 49 73 53 6F 75 72 63 "
    "65 04 01 01 0C 43 61 70 61 62 69 6C 69 74 69 65 73 0F FE 00 0A 04 00 00 03 01 05 01 06 01 "
    "7F 14 44 69 63 74 69 6F 6E 61 72 69 65 73 50 72 6F 76 69 64 65 64 0F FE 00 13 11 00 00 02 "
    "06 52 57 46 46 6C 64 07 52 57 46 45 6E 75 6D 10 44 69 63 74 69 6F 6E 61 72 69 65 73 55 73 "
    "65 64 0F FE 00 13 11 00 00 02 06 52 57 46 46 6C 64 07 52 57 46 45 6E 75 6D 03 51 6F 53 0F "
    "FE 00 06 0C 00 00 01 01 22 10 53 75 70 70 6F 72 74 73 51 6F 53 52 61 6E 67 65 04 01 00 1A "
    "53 75 70 70 6F 72 74 73 4F 75 74 4F 66 42 61 6E 64 53 6E 61 70 73 68 6F 74 73 04 01 00 17 "
    "41 63 63 65 70 74 69 6E 67 43 6F 6E 73 75 6D 65 72 53 74 61 74 75 73 04 01 00 02 02 FE 00 "
    "28 08 00 02 0C 53 65 72 76 69 63 65 53 74 61 74 65 04 01 01 11 41 63 63 65 70 74 69 6E 67 "
    "52 65 71 75 65 73 74 73 04 01 01 02 04 FE 00 12 08 00 01 09 4F 70 65 6E 4C 69 6D 69 74 04 "
    "03 0F 42 40";

typedef struct item {
    int32_t stream;
    uint8_t domain;
    bool streaming;
    bool refreshed;
    bool priv;
} item;

typedef struct conn {
    tp_channel *ch;
    bool active;
    item items[MAX_ITEMS];
    int count;
    int next; /* round robin */
    unsigned requests;
} conn;

static struct {
    int update_rate, generic_rate, close_after, run_time, ping_timeout, silent_after;
    const char *port;
    bool nano;
    bool no_refresh;
    uint64_t posts, generics;
} opt = {.update_rate = 1000,
         .close_after = -1,
         .run_time = 60,
         .port = "0",
         .ping_timeout = 60,
         .silent_after = -1};

static uint8_t login_refresh[256], directory_refresh[512];
static size_t login_len, directory_len;

static int send_bytes(conn *c, const uint8_t *p, size_t n)
{
    tp_buf *b;
    int rc = tp_get_buffer(c->ch, (uint32_t)n, false, &b);
    if (rc < 0)
        return rc;
    memcpy(b->data, p, n);
    b->len = (uint32_t)n;
    rc = tp_write(c->ch, b, 0);
    if (rc == TP_ENOBUFS)
        tp_release(c->ch, b);
    return rc < 0 ? rc : 0;
}

/* Encodes m (payload as m->payload or the fields written by fill) and sends it. */
static int send_msg(conn *c, rwf_msg *m, void (*fill)(rwf_enc *, void *), void *arg)
{
    uint8_t buf[1024];
    rwf_enc e;
    rwf_enc_init(&e, buf, sizeof(buf));
    rwf_enc_msg_begin(&e, m);
    if (fill) {
        rwf_enc_fl_begin_std(&e);
        fill(&e, arg);
        rwf_enc_fl_end(&e);
    }
    rwf_enc_msg_end(&e);
    size_t len;
    if (rwf_enc_finish(&e, &len) != RWF_OK)
        ci_fail("encode: %s", err_msg());
    return send_bytes(c, buf, len);
}

static void fill_refresh(rwf_enc *e, void *arg)
{
    (void)arg;
    rwf_real bid = {.value = 284856, .hint = RWF_RH_EXPONENT_2};
    rwf_date d = {.day = 15, .month = 11, .year = 2005};
    rwf_time t = {.hour = 15, .minute = 52, .second = 12};
    rwf_enc_fl_uint(e, 1, 6560);                                     /* PROD_PERM */
    rwf_enc_fl_enum(e, 4, 11);                                       /* RDN_EXCHID */
    rwf_enc_fl_real(e, 22, &bid);                                    /* BID */
    rwf_enc_fl_real(e, 25, &bid);                                    /* ASK */
    rwf_enc_fl_date(e, 16, &d);                                      /* TRADE_DATE */
    rwf_enc_fl_time(e, 18, &t);                                      /* TRDTIM_1 */
    rwf_enc_fl_buf(e, 3, RWF_DT_RMTES_STRING, RWF_STR("TEST ITEM")); /* DSPLY_NAME */
    rwf_enc_fl_blank(e, 3902);
    rwf_enc_fl_blank(e, 3903);
    rwf_enc_fl_blank(e, 3904);
}

typedef struct stamps {
    int16_t send_fid, sched_fid;
    uint64_t send, sched;
} stamps;

static void fill_update(rwf_enc *e, void *arg)
{
    const stamps *s = arg;
    rwf_real bid = {.value = 284900, .hint = RWF_RH_EXPONENT_2};
    rwf_enc_fl_real(e, 22, &bid);
    rwf_enc_fl_real(e, 25, &bid);
    rwf_enc_fl_enum(e, 4, 11);
    rwf_enc_fl_uint(e, s->send_fid, s->send);
    rwf_enc_fl_uint(e, s->sched_fid, s->sched);
}

static int on_request(conn *c, const rwf_msg *m)
{
    switch (m->domain) {
    case RWF_DMT_LOGIN:
        return send_bytes(c, login_refresh, login_len);
    case RWF_DMT_SOURCE:
        return send_bytes(c, directory_refresh, directory_len);
    default:
        break;
    }
    if (m->stream_id < 5 || c->count >= MAX_ITEMS)
        ci_fail("unexpected request on stream %d", (int)m->stream_id);
    unsigned n = c->requests++;
    if (opt.no_refresh)
        return 0;
    rwf_msg r;
    if (opt.close_after >= 0 && n >= (unsigned)opt.close_after) {
        rwf_msg_init(&r, RWF_MC_STATUS, m->domain, m->stream_id, RWF_DT_NO_DATA);
        r.flags = RWF_STMF_HAS_STATE;
        r.state = (rwf_state){RWF_STREAM_CLOSED, RWF_DATA_SUSPECT, RWF_SC_NOT_FOUND,
                              RWF_STR("Item closed by the test provider")};
        return send_msg(c, &r, NULL, NULL);
    }
    bool streaming = m->flags & RWF_RQMF_STREAMING;
    rwf_msg_init(&r, RWF_MC_REFRESH, m->domain, m->stream_id, RWF_DT_FIELD_LIST);
    r.flags = RWF_RFMF_HAS_MSG_KEY | RWF_RFMF_SOLICITED | RWF_RFMF_REFRESH_COMPLETE |
              RWF_RFMF_HAS_QOS | RWF_RFMF_CLEAR_CACHE;
    if (m->flags & RWF_RQMF_PRIVATE_STREAM)
        r.flags |= RWF_RFMF_PRIVATE_STREAM;
    r.state = (rwf_state){streaming ? RWF_STREAM_OPEN : RWF_STREAM_NON_STREAMING,
                          RWF_DATA_OK,
                          RWF_SC_NONE,
                          {NULL, 0}};
    r.qos = (rwf_qos){.timeliness = RWF_QOS_TIME_REALTIME, .rate = RWF_QOS_RATE_TICK_BY_TICK};
    r.key = m->key;
    if (send_msg(c, &r, fill_refresh, NULL) < 0)
        return -1;
    if (streaming) {
        item *it = &c->items[c->count++];
        it->stream = m->stream_id;
        it->domain = m->domain;
        it->streaming = true;
        it->refreshed = true;
        it->priv = m->flags & RWF_RQMF_PRIVATE_STREAM;
    }
    return 0;
}

/* A post comes back as its nested update, on the post's stream, with its user info. */
static int on_post(conn *c, const rwf_msg *m)
{
    if (m->container_type != RWF_DT_MSG)
        ci_fail("post without a nested message");
    rwf_msg u;
    if (rwf_msg_decode(&u, m->payload) != RWF_OK)
        ci_fail("nested post message: %s", err_msg());
    rwf_msg r;
    rwf_msg_init(&r, RWF_MC_UPDATE, m->domain, m->stream_id, u.container_type);
    r.flags = RWF_UPMF_HAS_POST_USER_INFO;
    r.post_user_addr = m->post_user_addr;
    r.post_user_id = m->post_user_id;
    r.payload = u.payload;
    opt.posts++;
    return send_msg(c, &r, NULL, NULL);
}

static int on_message(conn *c, const tp_msg *tm)
{
    rwf_msg m;
    if (rwf_msg_decode(&m, rwf_buf_make(tm->data, tm->len)) != RWF_OK)
        ci_fail("consumer message: %s", err_msg());
    switch (m.msg_class) {
    case RWF_MC_REQUEST:
        return on_request(c, &m);
    case RWF_MC_POST:
        return on_post(c, &m);
    case RWF_MC_GENERIC:
        /* One on the login stream is ConsPerf's clock offset request (clksync.h): this
         * provider leaves it unanswered, and counts only the items' generic messages. */
        if (m.domain != RWF_DMT_LOGIN)
            opt.generics++;
        return 0;
    case RWF_MC_CLOSE:
        return 0;
    default:
        ci_fail("unexpected %s from the consumer", rwf_msg_class_name(m.msg_class));
    }
}

static int send_burst(conn *c, uint32_t index, int rate, bool generic, int64_t sched_ns)
{
    if (!rate || !c->count)
        return 0;
    uint64_t n = (uint64_t)rate / TICKS + (index < (uint32_t)rate % TICKS ? 1 : 0);
    for (uint64_t i = 0; i < n; i++) {
        item *it = &c->items[c->next++ % c->count];
        rwf_msg m;
        rwf_msg_init(&m, generic ? RWF_MC_GENERIC : RWF_MC_UPDATE, it->domain, it->stream,
                     RWF_DT_FIELD_LIST);
        stamps s = {generic ? 3904 : 3902, generic ? 3902 : 3904,
                    opt.nano ? (uint64_t)clk_ns() : (uint64_t)clk_us(),
                    opt.nano ? (uint64_t)sched_ns : (uint64_t)sched_ns / 1000};
        if (send_msg(c, &m, fill_update, &s) < 0)
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        ci_fail("usage: %s <port file> [options]", argv[0]);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : "0";
        if (!strcmp(a, "-updateRate"))
            opt.update_rate = atoi(v), i++;
        else if (!strcmp(a, "-genericRate"))
            opt.generic_rate = atoi(v), i++;
        else if (!strcmp(a, "-closeAfter"))
            opt.close_after = atoi(v), i++;
        else if (!strcmp(a, "-runTime"))
            opt.run_time = atoi(v), i++;
        else if (!strcmp(a, "-pingTimeout"))
            opt.ping_timeout = atoi(v), i++;
        else if (!strcmp(a, "-silentAfter"))
            opt.silent_after = atoi(v), i++;
        else if (!strcmp(a, "-nanoTime"))
            opt.nano = true;
        else if (!strcmp(a, "-port"))
            opt.port = v, i++;
        else if (!strcmp(a, "-noRefresh"))
            opt.no_refresh = true;
        else
            ci_fail("unknown option %s", a);
    }
    login_len = ts_hex(login_refresh_hex, login_refresh, sizeof(login_refresh));
    directory_len = ts_hex(directory_refresh_hex, directory_refresh, sizeof(directory_refresh));

    tp_opts o;
    tp_opts_init(&o);
    o.interface = "127.0.0.1";
    o.port = opt.port;
    o.guaranteed_output_buffers = 5000;
    o.ping_timeout = (uint8_t)opt.ping_timeout;
    o.min_ping_timeout = 1;
    tp_server *srv;
    if (tp_bind(&o, &srv) != 0)
        ci_fail("tp_bind: %s", err_msg());
    char tmp[1100];
    snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
    FILE *pf = fopen(tmp, "w");
    if (!pf)
        ci_fail("cannot write %s", tmp);
    fprintf(pf, "%u\n", tp_server_port(srv));
    fclose(pf);
    rename(tmp, argv[1]);

    static conn conns[MAX_CONNS];
    int nconns = 0;
    int64_t start = clk_ns(), end = start + (int64_t)opt.run_time * CLK_NS_PER_SEC;
    int64_t tick_ns = CLK_NS_PER_SEC / TICKS, next = start + tick_ns;
    uint64_t ticks = 0;
    while (clk_ns() < end) {
        struct pollfd f[MAX_CONNS + 1];
        f[0] = (struct pollfd){.fd = tp_server_fd(srv), .events = POLLIN};
        for (int i = 0; i < nconns; i++)
            f[i + 1] = (struct pollfd){.fd = conns[i].ch ? tp_fd(conns[i].ch) : -1,
                                       .events = conns[i].ch ? tp_events(conns[i].ch) : 0};
        int64_t wait = next - clk_ns();
        poll(f, (nfds_t)nconns + 1, wait > 0 ? (int)(wait / 1000000) + 1 : 0);
        if (nconns < MAX_CONNS) {
            tp_channel *ch = NULL;
            if (tp_accept(srv, &ch) == 1)
                conns[nconns++].ch = ch;
        }
        for (int i = 0; i < nconns; i++) {
            conn *c = &conns[i];
            if (!c->ch)
                continue;
            if (!c->active) {
                int rc = tp_init(c->ch);
                if (rc < 0) {
                    tp_close(c->ch);
                    c->ch = NULL;
                }
                c->active = rc == TP_ACTIVE;
                continue;
            }
            for (;;) {
                tp_msg m;
                int rc = tp_read(c->ch, &m);
                if (rc < 0) { /* the consumer left */
                    tp_close(c->ch);
                    c->ch = NULL;
                    break;
                }
                if ((rc & TP_READ_MSG) && on_message(c, &m) < 0)
                    ci_fail("writing to the consumer: %s", err_msg());
                if (rc == 0)
                    break;
            }
        }
        bool silent =
            opt.silent_after >= 0 && clk_ns() - start > (int64_t)opt.silent_after * CLK_NS_PER_SEC;
        while (clk_ns() >= next && silent)
            next += tick_ns;
        while (clk_ns() >= next) {
            uint32_t index = (uint32_t)(ticks % TICKS);
            for (int i = 0; i < nconns; i++) {
                conn *c = &conns[i];
                if (!c->ch || !c->active)
                    continue;
                if (send_burst(c, index, opt.update_rate, false, next) < 0 ||
                    send_burst(c, index, opt.generic_rate, true, next) < 0 ||
                    tp_tick(c->ch, (uint64_t)clk_ns()) < 0 || tp_flush(c->ch) < 0) {
                    tp_close(c->ch);
                    c->ch = NULL;
                }
            }
            ticks++;
            next += tick_ns;
        }
    }
    printf("posts reflected %" PRIu64 ", generic received %" PRIu64 "\n", opt.posts, opt.generics);
    for (int i = 0; i < nconns; i++)
        tp_close(conns[i].ch);
    tp_server_close(srv);
    return 0;
}

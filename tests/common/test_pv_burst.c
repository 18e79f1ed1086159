/*
 * pv_burst: refresh bursts (burst size, items move to the update ring, snapshots close),
 * update and generic bursts (round robin over the items in the ETA order, templates in turn per
 * item, the stamp at the latency position with our scheduled time after it, counters), and out
 * of buffers (the rest of the burst counted, the channel kept). What arrives at a real
 * transport client is decoded and checked.
 */
#include "testsupport.h"

#include "../transport/tp_testutil.h"
#include "lra.h"
#include "pv_burst.h"
#include "rwf.h"

#include <stdio.h>
#include <string.h>

/* Two update templates of one field each (fid 22 REAL, different values), one generic. */
static const uint8_t upd0[] = {0x00, 0x16, 0x02, 0x0E, 0x01};
static const uint8_t upd1[] = {0x00, 0x16, 0x02, 0x0E, 0x02};
static const uint8_t gen0[] = {0x00, 0x19, 0x02, 0x0E, 0x07};
static const uint8_t img[] = {0x00, 0x01, 0x02, 0x19, 0xA0};

static pv_tmpl updates[2], generics[1];

static void make_feed(pv_feed *f)
{
    memset(f, 0, sizeof(*f));
    updates[0] = (pv_tmpl){.domain = 6, .entries = upd0, .entries_len = 5, .count = 1};
    updates[1] = (pv_tmpl){.domain = 6, .entries = upd1, .entries_len = 5, .count = 1};
    generics[0] = (pv_tmpl){.domain = 6, .entries = gen0, .entries_len = 5, .count = 1};
    pv_dom *d = &f->dom[PV_DOM_MP];
    d->present = true;
    d->refresh = (pv_tmpl){.domain = 6, .entries = img, .entries_len = 5, .count = 1};
    d->updates = updates;
    d->n_updates = 2;
    d->generics = generics;
    d->n_generics = 1;
    d->max_size = pv_msg_max_size(&updates[0]);
    f->refresh_burst = 3;
    f->sched_stamp = true;
}

typedef struct fixture {
    tu_pair p;
    pv_sess s;
    pv_stats st;
    pv_feed f;
} fixture;

static void setup(fixture *x, uint32_t out_bufs)
{
    tp_opts so, co;
    tu_opts(&so);
    tu_opts(&co);
    so.guaranteed_output_buffers = out_bufs;
    tu_connect(&x->p, &so, &co);
    memset(&x->s, 0, sizeof(x->s));
    x->s.ch = x->p.s;
    run_out_init_tp(&x->s.out, x->p.s, 1, 0, 0);
    assert_int_equal(pv_items_init(&x->s.items, 8), 0);
    assert_int_equal(pv_stats_init(&x->st, 0), 0);
    make_feed(&x->f);
}

static void teardown(fixture *x)
{
    pv_items_free(&x->s.items);
    pv_stats_free(&x->st);
    tu_close(&x->p);
}

static void add_items(fixture *x, int n, uint8_t flags)
{
    char name[16];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "RDT%d", i + 1);
        pv_key k = {.flags = PV_KEY_NAME | PV_KEY_SERVICE_ID,
                    .service_id = 1,
                    .name = (const uint8_t *)name,
                    .name_len = (uint16_t)strlen(name)};
        uint32_t idx;
        assert_int_equal(pv_items_add(&x->s.items, 5 + i, 6, &k, flags, &idx), 0);
    }
}

/* Reads one message (flushing the writer) and decodes its header. */
static void next_msg(fixture *x, rwf_msg *m, uint8_t *copy)
{
    tp_msg tm;
    int got = 0;
    for (int i = 0; i < 1000 && got != 1; i++) {
        assert_true(tp_flush(x->p.s) >= 0);
        got = tu_read(x->p.c, &tm, 2);
    }
    assert_int_equal(got, 1);
    memcpy(copy, tm.data, tm.len);
    assert_int_equal(rwf_msg_decode(m, rwf_buf_make(copy, tm.len)), RWF_OK);
}

/* The fields of a message's field list: fids and uint values (-1 for non-uints). */
static int fields(const rwf_msg *m, int16_t *fids, int64_t *vals)
{
    rwf_fl_dec d;
    assert_int_equal(rwf_fl_dec_init(&d, m->payload, NULL), RWF_OK);
    rwf_field f;
    int n = 0;
    while (rwf_fl_next(&d, &f) == RWF_OK) {
        fids[n] = f.fid;
        uint64_t v = 0;
        vals[n] =
            f.data.len && f.fid >= 3902 && rwf_get_uint(f.data, &v) == RWF_OK ? (int64_t)v : -1;
        n++;
    }
    return n;
}

static void test_refresh_then_updates(void **state)
{
    (void)state;
    fixture x;
    setup(&x, 50);
    add_items(&x, 4, PV_ITEM_STREAMING | PV_ITEM_SOLICITED);
    /* A snapshot item: refreshed, then closed. */
    pv_key k = {.flags = PV_KEY_NAME, .name = (const uint8_t *)"SNAP", .name_len = 4};
    uint32_t idx;
    assert_int_equal(pv_items_add(&x.s.items, 9, 6, &k, PV_ITEM_SOLICITED, &idx), 0);

    uint8_t buf[4096];
    rwf_msg m;
    /* Bursts of 3: streams 5 6 7, then 8 9. */
    assert_int_equal(pv_burst_refreshes(&x.s, &x.f, &x.st), 0);
    assert_int_equal(x.s.items.refresh.count, 2);
    assert_int_equal(pv_burst_refreshes(&x.s, &x.f, &x.st), 0);
    assert_int_equal(x.s.items.refresh.count, 0);
    assert_int_equal(counter_total(&x.st.refreshes), 5);
    for (int i = 0; i < 5; i++) {
        next_msg(&x, &m, buf);
        assert_int_equal(m.msg_class, RWF_MC_REFRESH);
        assert_int_equal(m.stream_id, 5 + i);
        assert_int_equal(m.state.stream_state, i < 4 ? RWF_STREAM_OPEN : RWF_STREAM_NON_STREAMING);
    }
    assert_int_equal(x.s.items.count, 4); /* the snapshot is gone */
    assert_int_equal(x.s.items.update.count, 4);

    /* 10 updates with the stamp on the 4th: streams 6 7 8 5 6 7 8 5 6 7, templates
     * alternating per item. */
    assert_int_equal(pv_burst_updates(&x.s, &x.f, &x.st, 10, 3, 5000000000LL), 0);
    assert_int_equal(counter_total(&x.st.updates), 10);
    const int32_t sids[] = {6, 7, 8, 5, 6, 7, 8, 5, 6, 7};
    for (int i = 0; i < 10; i++) {
        next_msg(&x, &m, buf);
        assert_int_equal(m.msg_class, RWF_MC_UPDATE);
        assert_int_equal(m.stream_id, sids[i]);
        int16_t fid[8];
        int64_t val[8];
        int n = fields(&m, fid, val);
        assert_int_equal(fid[0], 22);
        if (i == 3) {
            assert_int_equal(n, 3);
            assert_int_equal(fid[1], 3902);
            assert_true(val[1] > 0);
            assert_int_equal(fid[2], 3904);
            assert_int_equal(val[2], 5000000); /* microseconds */
        } else {
            assert_int_equal(n, 1);
        }
        /* Template in turn per item: the first visit of an item uses update 0. */
        rwf_fl_dec d;
        rwf_field f;
        rwf_fl_dec_init(&d, m.payload, NULL);
        rwf_fl_next(&d, &f);
        assert_int_equal(((const uint8_t *)f.data.data)[1], i < 4 ? 1 : i < 8 ? 2 : 1);
    }

    /* Generic messages: TIM_TRK_3 = send time, then our TIM_TRK_1 = scheduled time. */
    x.f.nano_time = true;
    assert_int_equal(pv_burst_generics(&x.s, &x.f, &x.st, 2, LRA_ALL, 123), 0);
    assert_int_equal(counter_total(&x.st.genmsgs_sent), 2);
    assert_int_equal(counter_total(&x.st.genmsg_lat_sent), 2);
    assert_true(pv_stats_time(&x.st.first_genmsg_sent_ns) > 0);
    for (int i = 0; i < 2; i++) {
        next_msg(&x, &m, buf);
        assert_int_equal(m.msg_class, RWF_MC_GENERIC);
        int16_t fid[8];
        int64_t val[8];
        assert_int_equal(fields(&m, fid, val), 3);
        assert_int_equal(fid[1], 3904);
        assert_int_equal(fid[2], 3902);
        assert_int_equal(val[2], 123);
    }
    /* Without the scheduled stamp: the original's messages exactly. */
    x.f.sched_stamp = false;
    assert_int_equal(pv_burst_updates(&x.s, &x.f, &x.st, 1, 0, 1), 0);
    next_msg(&x, &m, buf);
    int16_t fid[8];
    int64_t val[8];
    assert_int_equal(fields(&m, fid, val), 2);
    assert_int_equal(fid[1], 3902);
    teardown(&x);
}

static void test_packed_burst(void **state)
{
    (void)state;
    fixture x;
    setup(&x, 50);
    run_out_init_tp(&x.s.out, x.p.s, 10, 6000, 0);
    add_items(&x, 5, PV_ITEM_STREAMING | PV_ITEM_SOLICITED);
    assert_int_equal(pv_burst_refreshes(&x.s, &x.f, &x.st), 0); /* one packed frame of 3 */
    assert_int_equal(pv_burst_refreshes(&x.s, &x.f, &x.st), 0); /* one of 2 */
    assert_int_equal(pv_burst_updates(&x.s, &x.f, &x.st, 25, LRA_NONE, 1), 0);
    assert_int_equal(x.s.out.packs, 2 + 3);
    assert_int_equal(x.s.out.packed_msgs, 30);
    uint8_t buf[4096];
    rwf_msg m;
    for (int i = 0; i < 30; i++)
        next_msg(&x, &m, buf);
    teardown(&x);
}

/* The reader does not read: updates run out of buffers, the rest of each burst is counted,
 * the channel stays up. */
static void test_out_of_buffers(void **state)
{
    (void)state;
    fixture x;
    setup(&x, 2);
    add_items(&x, 2, PV_ITEM_STREAMING | PV_ITEM_SOLICITED);
    assert_int_equal(pv_burst_refreshes(&x.s, &x.f, &x.st), 0);
    int rc = 0;
    uint64_t offered = 0;
    for (int i = 0; i < 100000 && rc == 0; i++) {
        rc = pv_burst_updates(&x.s, &x.f, &x.st, 1000, LRA_NONE, 1);
        offered += 1000;
    }
    assert_int_equal(rc, TP_ENOBUFS);
    assert_int_equal(counter_total(&x.st.updates) + counter_total(&x.st.out_of_bufs), offered);
    assert_true(counter_total(&x.st.out_of_bufs) > 0);
    assert_int_equal(tp_get_state(x.p.s), TP_STATE_ACTIVE);
    teardown(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refresh_then_updates),
        cmocka_unit_test(test_packed_burst),
        cmocka_unit_test(test_out_of_buffers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* ConsPerf's main-thread statistics (collect.c): what reaches the summary from the workers'
 * latency hand-overs. */
#include "tools_test.h"

#include "clk.h"
#include "collect.h"
#include "config.h"

typedef struct fixture {
    cons_config cfg;
    items list;
    cons_run run;
    cons_thread t;
    cons_collector col;
    char stats[600];
} fixture;

/* One consumer thread with one item, its statistics file in the temporary folder; the
 * configuration is f->cfg as the caller filled it. */
static void fixture_init_cfg(fixture *f)
{
    snprintf(f->cfg.opts.stats_file, sizeof(f->cfg.opts.stats_file), "%s", tt_tmp("CollectStats"));
    snprintf(f->stats, sizeof(f->stats), "%s1.csv", f->cfg.opts.stats_file);
    f->cfg.opts.item_count = 1;
    f->run.cfg = &f->cfg;
    f->run.list = &f->list;
    f->run.thread_count = 1;
    f->run.threads = &f->t;
    f->t.run = &f->run;
    f->t.share.count = 1;
    assert_int_equal(latbuf_init(&f->t.lat, CONS_LAT_KINDS), 0);
    assert_int_equal(cons_collect_init(&f->col, &f->run), 0);
}

/* The same with the default configuration. */
static void fixture_init(fixture *f)
{
    memset(f, 0, sizeof(*f));
    cons_config_defaults(&f->cfg);
    fixture_init_cfg(f);
}

static void fixture_free(fixture *f)
{
    cons_collect_free(&f->col);
    latbuf_free(&f->t.lat);
    unlink(f->stats);
}

/* An interval's hand-over times out, the worker acknowledges it afterwards, records more and
 * ends: the summary holds the samples of both sets. */
static void test_final_after_late_handover(void **state)
{
    (void)state;
    static fixture f;
    fixture_init(&f);
    lat_record(&latbuf_cur(&f.t.lat)[CONS_LAT_UPD], 100 * 1000);
    assert_null(latbuf_collect(&f.t.lat, 0)); /* the worker is busy: no answer in time */
    assert_true(latbuf_poll(&f.t.lat));       /* ... it acknowledges later */
    lat_record(&latbuf_cur(&f.t.lat)[CONS_LAT_UPD], 300 * 1000);
    latbuf_close(&f.t.lat);

    cons_collect_final(&f.col);
    cons_result r;
    cons_stats thread[1];
    assert_int_equal(cons_collect_result(&f.col, &r, thread, (uint64_t)clk_ns()), 0);
    assert_int_equal(r.total.overall_lat.count, 2);
    assert_true(r.total.overall_lat.avg > 199.9 && r.total.overall_lat.avg < 200.1);
    assert_true(r.total.overall_lat.max > 299.9);
    fixture_free(&f);
}

/* A worker that never ran (its thread failed to start) does not hold the summary up. */
static void test_final_without_worker(void **state)
{
    (void)state;
    static fixture f;
    fixture_init(&f);
    int64_t t0 = clk_ns();
    cons_collect_final(&f.col);
    assert_true(clk_ns() - t0 < 5 * CLK_NS_PER_SEC);
    cons_result r;
    cons_stats thread[1];
    assert_int_equal(cons_collect_result(&f.col, &r, thread, (uint64_t)clk_ns()), 0);
    assert_int_equal(r.total.overall_lat.count, 0);
    fixture_free(&f);
}

/* With -latencyFile, samples queued between two drains go to the log; those the ring could
 * not hold are counted, not lost silently. */
static void test_latency_log_drops_counted(void **state)
{
    (void)state;
    static fixture f;
    memset(&f, 0, sizeof(f));
    char log[600];
    cons_config_defaults(&f.cfg);
    snprintf(f.cfg.opts.latency_file, sizeof(f.cfg.opts.latency_file), "%s", tt_tmp("CollectLat"));
    snprintf(log, sizeof(log), "%s1.csv", f.cfg.opts.latency_file);
    fixture_init_cfg(&f);
    assert_int_equal(latring_init(&f.t.ring, 4), 0);
    f.t.has_ring = true;
    for (int i = 0; i < 6; i++)
        latring_push(&f.t.ring, CONS_SAMPLE_UPD, 1000 + i, 1100 + i);
    cons_collect_samples(&f.col);
    assert_int_equal(f.col.col.t[0].dropped, 2);
    latring_push(&f.t.ring, CONS_SAMPLE_POST, 2000, 2300);
    cons_collect_samples(&f.col);
    assert_int_equal(f.col.col.t[0].dropped, 2);
    cons_collect_free(&f.col);
    char *text = tt_file(log);
    assert_non_null(strstr(text, "Upd, 1003, 1103, 100\n"));
    assert_non_null(strstr(text, "Pst, 2000, 2300, 300\n"));
    assert_null(strstr(text, "Upd, 1004,"));
    free(text);
    latring_free(&f.t.ring);
    latbuf_free(&f.t.lat);
    unlink(log);
    unlink(f.stats);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_final_after_late_handover),
        cmocka_unit_test(test_final_without_worker),
        cmocka_unit_test(test_latency_log_drops_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

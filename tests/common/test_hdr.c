/* hdr: HdrHistogram layouts against the format's arithmetic, the V2 encoding against byte
 * vectors worked out by hand from the format description, base64, the compressed wrapper
 * (a zlib stream built by hand with a stored block), round trips and malformed input. */
#include "testsupport.h"

#include "err.h"
#include "hdr.h"
#include "lat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deterministic generator (splitmix64). */
static uint64_t rnd_state = 42;
static uint64_t rnd(void)
{
    uint64_t z = (rnd_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* ------------------------------------------------------------------------------------------ */
/* Layouts                                                                                    */

static void test_layout_numbers(void **state)
{
    (void)state;
    hdr_layout l;
    /* d = 2: 2 * 10^2 = 200 -> S = 256; 2^42 - 1 needs buckets for 2^8 .. 2^41 + 1 = 35,
     * (35 + 1) * 128 = 4608 counts: the latency recorder's array. */
    hdr_layout_lat(&l);
    assert_int_equal(l.sub_mag, 8);
    assert_int_equal(l.unit_mag, 0);
    assert_int_equal(l.len, 4608);
    assert_int_equal(l.len, LAT_BUCKETS);
    /* d = 3, one hour in ns: S = 2048 (2000 -> 2^11); 2^(11+k) <= 3.6e12 up to k = 30, so 32
     * buckets, (32 + 1) * 1024 = 33792 counts. */
    assert_int_equal(hdr_layout_init(&l, 1, INT64_C(3600000000000), 3), 0);
    assert_int_equal(l.sub_mag, 11);
    assert_int_equal(l.len, 33792);
    /* L = 1000: unit 2^9 = 512; d = 1: 20 -> S = 32. */
    assert_int_equal(hdr_layout_init(&l, 1000, 1000000, 1), 0);
    assert_int_equal(l.unit_mag, 9);
    assert_int_equal(l.sub_mag, 5);
    /* 32 * 512 = 16384 untrackable by bucket 0; 16384 * 2^k <= 1e6 up to k = 5: 7 buckets. */
    assert_int_equal(l.len, 8 * 16);
    /* Full int64 range with d = 2: the last bucket reaches INT64_MAX. */
    assert_int_equal(hdr_layout_init(&l, 1, INT64_MAX, 2), 0);
    assert_int_equal(hdr_index_high(&l, l.len - 1), INT64_MAX);

    assert_int_equal(hdr_layout_init(&l, 0, 1000, 2), -1);
    assert_non_null(strstr(err_msg(), "lowest"));
    assert_int_equal(hdr_layout_init(&l, 1, 1000, 6), -1);
    assert_non_null(strstr(err_msg(), "digits"));
    assert_int_equal(hdr_layout_init(&l, 10, 19, 2), -1);
    assert_non_null(strstr(err_msg(), "highest"));
    /* The largest layout there is: d = 5 (S = 2^18) over the whole range, 46 buckets. */
    assert_int_equal(hdr_layout_init(&l, 1, INT64_MAX, 5), 0);
    assert_int_equal(l.len, 47 << 17);
}

/* Every index's range is contiguous with the next, and values map back to their index. */
static void check_ranges(const hdr_layout *l)
{
    for (int32_t i = 0; i < l->len; i++) {
        int64_t lo = hdr_index_low(l, i), hi = hdr_index_high(l, i);
        assert_true(lo <= hi);
        assert_int_equal(hdr_index(l, lo), i);
        assert_int_equal(hdr_index(l, hi), i);
        if (i > 0)
            assert_int_equal(lo, hdr_index_high(l, i - 1) + 1);
        /* Resolution: a range is at most 1/(S/2) of its values beyond the first bucket. */
        if (lo >= ((int64_t)1 << (l->sub_mag + l->unit_mag)))
            assert_true((hi - lo + 1) * ((int64_t)1 << l->half_mag) <= lo);
    }
}

static void test_layout_ranges(void **state)
{
    (void)state;
    hdr_layout l;
    hdr_layout_lat(&l);
    check_ranges(&l);
    assert_int_equal(hdr_layout_init(&l, 1000, 3600000000, 3), 0);
    check_ranges(&l);
    assert_int_equal(hdr_layout_init(&l, 1, 1000000, 1), 0);
    check_ranges(&l);
    /* Below the unit, values share the first counter. */
    assert_int_equal(hdr_layout_init(&l, 1000, 3600000000, 3), 0);
    assert_int_equal(hdr_index(&l, 0), 0);
    assert_int_equal(hdr_index(&l, 511), 0);
    assert_int_equal(hdr_index(&l, 512), 1);
}

/* The recorder's bucket function and the lat layout agree on every value tried. */
static void test_lat_is_hdr(void **state)
{
    (void)state;
    hdr_layout l;
    hdr_layout_lat(&l);
    for (int64_t v = 0; v < 100000; v++)
        assert_int_equal(hdr_index(&l, v), (int32_t)lat_bucket(v));
    hdr_layout n;
    hdr_layout_lat_neg(&n);
    assert_int_equal(n.len, LAT_NEG_BUCKETS);
    for (int64_t v = 1; v < 100000; v++)
        assert_int_equal(hdr_index(&n, v), (int32_t)lat_neg_bucket((uint64_t)v));
    for (int k = 0; k < 200000; k++) {
        int64_t v = (int64_t)(rnd() >> (22 + rnd() % 40));
        if (v > 0 && v < LAT_RANGE_LIMIT)
            assert_int_equal(hdr_index(&n, v), (int32_t)lat_neg_bucket((uint64_t)v));
        if (v >= LAT_RANGE_LIMIT)
            continue;
        uint32_t b = lat_bucket(v);
        assert_int_equal(hdr_index(&l, v), (int32_t)b);
        assert_int_equal(hdr_index_low(&l, (int32_t)b), lat_bucket_low(b));
        assert_int_equal(hdr_index_high(&l, (int32_t)b), lat_bucket_high(b));
    }
}

/* ------------------------------------------------------------------------------------------ */
/* ZigZag LEB128 and the V2 encoding                                                          */

static void zz_case(int64_t v, const char *hex)
{
    uint8_t want[16], got[16];
    size_t wn = ts_hex(hex, want, sizeof(want));
    size_t gn = hdr_zz_put(got, v);
    ts_assert_bytes_equal(got, gn, want, wn);
    int64_t back;
    assert_int_equal(hdr_zz_get(got, gn, &back), gn);
    assert_true(back == v);
    assert_int_equal(hdr_zz_get(got, gn - 1, &back), 0); /* one byte short: cut off */
}

static void test_zigzag(void **state)
{
    (void)state;
    zz_case(0, "00");
    zz_case(-1, "01");
    zz_case(1, "02");
    zz_case(63, "7e");
    zz_case(-64, "7f");
    zz_case(64, "80 01");
    zz_case(-272, "9f 04");    /* 543 = 0x21f */
    zz_case(8191, "fe 7f");    /* 16382 */
    zz_case(8192, "80 80 01"); /* 16384 */
    /* The 9th byte carries 8 bits whole. */
    zz_case(INT64_MAX, "fe ff ff ff ff ff ff ff ff");
    zz_case(INT64_MIN, "ff ff ff ff ff ff ff ff ff");
    zz_case((int64_t)1 << 55, "80 80 80 80 80 80 80 80 01");
}

/* 3 x 5 ns, 1 x 300 ns, 2 x 1000 ns in the recorder's layout (L 1, H 2^42 - 1, d 2).
 * Indexes: 5 -> 5; 300 -> bucket 1, 300 >> 1 = 150, 2*128 + 150 - 128 = 278; 1000 -> bucket 2,
 * 1000 >> 2 = 250, 3*128 + 250 - 128 = 506. Counts: 5 zeros (-5 -> 09), 3 (06), 272 zeros
 * (-272 -> 9f 04), 1 (02), 227 zeros (-227 -> 453 -> c5 03), 2 (04). */
static const char v2_vector[] = "1c849313 00000008 00000000 00000002"
                                "0000000000000001 000003ffffffffff 3ff0000000000000"
                                "09 06 9f04 02 c503 04";

static void fill_vector(uint64_t *counts)
{
    memset(counts, 0, LAT_BUCKETS * sizeof(uint64_t));
    counts[5] = 3;
    counts[278] = 1;
    counts[506] = 2;
}

static void test_v2_vector(void **state)
{
    (void)state;
    hdr_layout l;
    hdr_layout_lat(&l);
    uint64_t *counts = calloc(LAT_BUCKETS, sizeof(uint64_t));
    uint8_t *out = malloc(hdr_v2_bound(&l));
    uint8_t want[64];
    fill_vector(counts);
    assert_int_equal(hdr_index(&l, 300), 278);
    assert_int_equal(hdr_index(&l, 1000), 506);
    size_t wn = ts_hex(v2_vector, want, sizeof(want));
    size_t n = hdr_v2_encode(&l, counts, out);
    ts_assert_bytes_equal(out, n, want, wn);

    hdr_hist h = {0};
    assert_int_equal(hdr_v2_decode(want, wn, &h), 0);
    assert_true(hdr_layout_same(&h.lay, &l));
    assert_int_equal(h.total, 6);
    assert_memory_equal(h.counts, counts, LAT_BUCKETS * sizeof(uint64_t));

    /* An empty histogram: one zero count (runs of one zero are written as 0, as HdrHistogram's
     * Java writer does). */
    memset(counts, 0, LAT_BUCKETS * sizeof(uint64_t));
    n = hdr_v2_encode(&l, counts, out);
    assert_int_equal(n, 41);
    assert_int_equal(out[7], 1);
    assert_int_equal(out[40], 0);
    assert_int_equal(hdr_v2_decode(out, n, &h), 0);
    assert_int_equal(h.total, 0);
    /* Single zeros between counts. */
    counts[0] = 1;
    counts[2] = 1;
    n = hdr_v2_encode(&l, counts, out);
    ts_hex("02 00 02", want, sizeof(want));
    ts_assert_bytes_equal(out + 40, n - 40, want, 3);
    hdr_hist_free(&h);
    free(out);
    free(counts);
}

static void expect_v2_error(const char *hex, const char *what)
{
    uint8_t b[128];
    size_t n = ts_hex(hex, b, sizeof(b));
    hdr_hist h = {0};
    err_clear();
    assert_int_equal(hdr_v2_decode(b, n, &h), -1);
    if (!strstr(err_msg(), what))
        fail_msg("error \"%s\" does not mention \"%s\"", err_msg(), what);
    hdr_hist_free(&h);
}

static void test_v2_malformed(void **state)
{
    (void)state;
    const char *head = "00000002 0000000000000001 000003ffffffffff 3ff0000000000000";
    char hex[512];
    expect_v2_error("1c849313 0000", "shorter");
    snprintf(hex, sizeof(hex), "1c849301 00000001 00000000 %s 00", head);
    expect_v2_error(hex, "cookie");
    snprintf(hex, sizeof(hex), "1c849313 00000002 00000000 %s 00", head);
    expect_v2_error(hex, "payload length 2");
    /* A run of zeros past the 4608 counts: -5000 -> 9999 = 0x270f -> 8f 4e. */
    snprintf(hex, sizeof(hex), "1c849313 00000002 00000000 %s 8f4e", head);
    expect_v2_error(hex, "goes past");
    /* An integer cut off by the end of the payload. */
    snprintf(hex, sizeof(hex), "1c849313 00000001 00000000 %s 80", head);
    expect_v2_error(hex, "cut off");
    /* Bad header numbers. */
    expect_v2_error("1c849313 00000001 00000000 00000009 0000000000000001 000003ffffffffff "
                    "3ff0000000000000 00",
                    "digits");
    expect_v2_error("1c849313 00000001 00000000 00000002 0000000000000000 000003ffffffffff "
                    "3ff0000000000000 00",
                    "lowest");
}

/* ------------------------------------------------------------------------------------------ */
/* Base64 and the compressed form                                                             */

static void test_base64(void **state)
{
    (void)state;
    char out[64];
    uint8_t back[64];
    size_t n;
    /* RFC 4648 section 10. */
    const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *code[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        size_t len = strlen(plain[i]);
        assert_int_equal(hdr_b64_encode((const uint8_t *)plain[i], len, out), strlen(code[i]));
        assert_string_equal(out, code[i]);
        assert_int_equal(hdr_b64_len(len), strlen(code[i]));
        assert_int_equal(hdr_b64_decode(code[i], strlen(code[i]), back, &n), 0);
        assert_int_equal(n, len);
        assert_memory_equal(back, plain[i], len);
    }
    assert_int_equal(hdr_b64_decode("Zm9", 3, back, &n), -1);
    assert_non_null(strstr(err_msg(), "multiple of 4"));
    assert_int_equal(hdr_b64_decode("Zm!v", 4, back, &n), -1);
    assert_non_null(strstr(err_msg(), "character 3: '!'"));
    assert_int_equal(hdr_b64_decode("Zm=vYmFy", 8, back, &n), -1);
    assert_non_null(strstr(err_msg(), "padding"));
    assert_int_equal(hdr_b64_decode("Zm9v\nmFy", 8, back, &n), -1);
    assert_non_null(strstr(err_msg(), "0x0a"));
}

/* The known vector inside a zlib stream made of one stored block (RFC 1950/1951: header 78 01,
 * block 01 LEN NLEN, the 48 bytes, Adler-32 b49408ff), in the compressed wrapper (cookie
 * 1c849314, length 59), as base64. HdrHistogram's compressed histograms start "HISTFAAAA". */
static const char stored_text[] = "HISTFAAAADt4AQEwAM//HISTEwAAAAgAAAAAAAAAAgAAAAAAAAABAAAD//////8/"
                                  "8AAAAAAAAAkGnwQCxQMEtJQI/w==";

static void test_compressed_vector(void **state)
{
    (void)state;
    hdr_codec c = {0};
    hdr_hist h = {0};
    hdr_layout l;
    hdr_layout_lat(&l);
    uint64_t *counts = calloc(LAT_BUCKETS, sizeof(uint64_t));
    fill_vector(counts);
    assert_int_equal(hdr_decode_text(&c, stored_text, strlen(stored_text), &h), 0);
    assert_int_equal(h.total, 6);
    assert_memory_equal(h.counts, counts, LAT_BUCKETS * sizeof(uint64_t));

    /* Our own compressed form: the wrapper, then a zlib stream that inflates to the vector. */
    const uint8_t *bin;
    size_t n;
    assert_int_equal(hdr_compress(&c, &l, counts, &bin, &n), 0);
    uint8_t want[8];
    ts_hex("1c849314", want, 4);
    assert_memory_equal(bin, want, 4);
    assert_int_equal(((size_t)bin[4] << 24 | bin[5] << 16 | bin[6] << 8 | bin[7]), n - 8);
    assert_int_equal(bin[8], 0x78); /* zlib header: deflate, 32 KiB window */
    const char *text;
    assert_int_equal(hdr_encode_text(&c, &l, counts, &text), 0);
    assert_memory_equal(text, "HISTFAAAA", 9);
    hdr_hist_reset(&h);
    assert_int_equal(hdr_decode_text(&c, text, strlen(text), &h), 0);
    assert_memory_equal(h.counts, counts, LAT_BUCKETS * sizeof(uint64_t));

    hdr_hist_free(&h);
    hdr_codec_free(&c);
    free(counts);
}

static void expect_text_error(hdr_codec *c, const char *text, const char *what)
{
    hdr_hist h = {0};
    err_clear();
    assert_int_equal(hdr_decode_text(c, text, strlen(text), &h), -1);
    if (!strstr(err_msg(), what))
        fail_msg("error \"%s\" does not mention \"%s\"", err_msg(), what);
    hdr_hist_free(&h);
}

static void test_compressed_malformed(void **state)
{
    (void)state;
    hdr_codec c = {0};
    char t[256];
    size_t n = strlen(stored_text);
    /* Cut off: the base64 is no longer a multiple of 4, or (cut at 4) the stream ends early. */
    snprintf(t, sizeof(t), "%.*s", (int)(n - 6), stored_text);
    expect_text_error(&c, t, "multiple of 4");
    snprintf(t, sizeof(t), "%.*s", (int)(n - 8), stored_text);
    expect_text_error(&c, t, "compressed bytes");
    /* A character changed inside the zlib stream (the data): the Adler-32 check fails. */
    snprintf(t, sizeof(t), "%s", stored_text);
    t[40] = t[40] == 'A' ? 'B' : 'A';
    expect_text_error(&c, t, "zlib");
    /* Not a compressed histogram: the V1 wrapper cookie 1c849302 -> "HISTAg". */
    snprintf(t, sizeof(t), "%s", stored_text);
    memcpy(t, "HISTAg", 6);
    expect_text_error(&c, t, "cookie");
    expect_text_error(&c, "HIST", "shorter");
    expect_text_error(&c, "HISTFAAAADt4AQEwAM//HI*TEwAA", "'*'");
    hdr_codec_free(&c);
}

/* Random histograms of several layouts survive the compressed text round trip. */
static void test_round_trip(void **state)
{
    (void)state;
    hdr_codec c = {0};
    hdr_hist a = {0}, b = {0};
    const int64_t lows[] = {1, 1, 1000, 1};
    const int64_t highs[] = {(INT64_C(1) << 42) - 1, INT64_C(3600000000000), 60000000000, 1000000};
    const int digits[] = {2, 3, 3, 1};
    for (int k = 0; k < 4; k++) {
        hdr_layout l;
        assert_int_equal(hdr_layout_init(&l, lows[k], highs[k], digits[k]), 0);
        hdr_hist_free(&a);
        assert_int_equal(hdr_hist_init(&a, &l), 0);
        for (int round = 0; round < 20; round++) {
            hdr_hist_reset(&a);
            int samples = (int)(rnd() % 5000);
            for (int i = 0; i < samples; i++) {
                int64_t v = (int64_t)(rnd() % (uint64_t)highs[k]) >> (rnd() % 30);
                assert_int_equal(hdr_hist_record(&a, v, 1 + rnd() % 3), 0);
            }
            if (round == 1)
                assert_int_equal(hdr_hist_record(&a, highs[k], UINT64_C(1) << 40), 0);
            const char *text;
            assert_int_equal(hdr_encode_text(&c, &l, a.counts, &text), 0);
            assert_int_equal(hdr_decode_text(&c, text, strlen(text), &b), 0);
            assert_true(hdr_layout_same(&a.lay, &b.lay));
            assert_int_equal(a.total, b.total);
            assert_memory_equal(a.counts, b.counts, (size_t)l.len * sizeof(uint64_t));
        }
    }
    hdr_hist_free(&a);
    hdr_hist_free(&b);
    hdr_codec_free(&c);
}

/* ------------------------------------------------------------------------------------------ */
/* Histogram reading                                                                          */

/* The same samples in the recorder and in an hdr_hist give the same percentiles. */
static void test_percentiles_match_lat(void **state)
{
    (void)state;
    lat *rec = malloc(sizeof(lat));
    lat_reset(rec);
    hdr_layout l;
    hdr_layout_lat(&l);
    hdr_hist h = {0};
    assert_int_equal(hdr_hist_init(&h, &l), 0);
    for (int i = 0; i < 100000; i++) {
        int64_t v = 20000 + (int64_t)(rnd() % 30000) + ((rnd() % 100) == 0 ? 500000 : 0);
        lat_record(rec, v);
    }
    assert_int_equal(hdr_hist_add_counts(&h, &l, rec->hist), 0);
    assert_int_equal(h.total, rec->count);
    const double ps[] = {1, 10, 50, 90, 99, 99.9, 99.99, 100};
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
        assert_true(hdr_hist_percentile(&h, ps[i], rec->max) == lat_percentile(rec, ps[i]));
    assert_true(hdr_hist_percentile(&h, 100, -1) ==
                (double)hdr_index_high(&l, lat_bucket(rec->max)));

    /* Adding into another layout keeps the samples within the coarser precision. */
    hdr_layout l3;
    hdr_hist h3 = {0};
    assert_int_equal(hdr_layout_init(&l3, 1000, INT64_C(3600000000000), 1), 0);
    assert_int_equal(hdr_hist_init(&h3, &l3), 0);
    assert_int_equal(hdr_hist_add(&h3, &h), 0);
    assert_int_equal(h3.total, h.total);
    double p50 = hdr_hist_percentile(&h3, 50, -1), want = lat_percentile(rec, 50);
    assert_true(p50 > want * 0.9 && p50 < want * 1.1);
    /* A value beyond the range is refused. */
    assert_int_equal(hdr_hist_record(&h3, INT64_C(4000000000000) * 2, 1), -1);
    assert_int_equal(hdr_hist_record(&h3, -1, 1), -1);
    hdr_hist_free(&h);
    hdr_hist_free(&h3);
    free(rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_numbers),
        cmocka_unit_test(test_layout_ranges),
        cmocka_unit_test(test_lat_is_hdr),
        cmocka_unit_test(test_zigzag),
        cmocka_unit_test(test_v2_vector),
        cmocka_unit_test(test_v2_malformed),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_compressed_vector),
        cmocka_unit_test(test_compressed_malformed),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_percentiles_match_lat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

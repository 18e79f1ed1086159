/*
 * Primitives: length encodings, the wire form of every primitive type (values from
 * docs/wire.md#lengths, #primitives), set-defined forms, and the text conversions MsgData.xml
 * needs, with ETA's rules for Real hints, dates and times.
 */
#include "testsupport.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rwf.h"

static uint8_t buf[64], want[64];

#define EXPECT_BYTES(end, hexstr)                                                                  \
    ts_assert_bytes_equal(buf, (size_t)((end)-buf), want, ts_hex(hexstr, want, sizeof(want)))

static int time_eq(const rwf_time *a, const rwf_time *b)
{
    return a->hour == b->hour && a->minute == b->minute && a->second == b->second &&
           a->millisecond == b->millisecond && a->microsecond == b->microsecond &&
           a->nanosecond == b->nanosecond;
}

static int date_eq(const rwf_date *a, const rwf_date *b)
{
    return a->day == b->day && a->month == b->month && a->year == b->year;
}

static void test_length_encodings(void **state)
{
    (void)state;
    static const struct {
        uint32_t v;
        const char *u15, *u16, *u30;
    } cases[] = {
        {0, "00", "00", "00"},
        {0x3F, "3F", "3F", "3F"},
        {0x40, "40", "40", "80 40"},
        {0x7F, "7F", "7F", "80 7F"},
        {0x80, "80 80", "80", "80 80"},
        {0xFD, "80 FD", "FD", "80 FD"},
        {0xFE, "80 FE", "FE 00 FE", "80 FE"},
        {0x3FFF, "BF FF", "FE 3F FF", "BF FF"},
        {0x4000, "C0 00", "FE 40 00", "40 40 00"},
        {0x7FFF, "FF FF", "FE 7F FF", "40 7F FF"},
        {0xFFFF, NULL, "FE FF FF", "40 FF FF"},
        {0x3FFFFF, NULL, NULL, "7F FF FF"},
        {0x400000, NULL, NULL, "C0 40 00 00"},
        {0x3FFFFFFF, NULL, NULL, "FF FF FF FF"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint16_t v16;
        uint32_t v32;
        uint8_t *e;
        if (cases[i].u15) {
            e = rwf_wr_u15rb(buf, (uint16_t)cases[i].v);
            EXPECT_BYTES(e, cases[i].u15);
            assert_ptr_equal(rwf_rd_u15rb(buf, e, &v16), e);
            assert_int_equal(v16, cases[i].v);
            assert_null(rwf_rd_u15rb(buf, e - 1, &v16));
        }
        if (cases[i].u16) {
            e = rwf_wr_u16ob(buf, (uint16_t)cases[i].v);
            EXPECT_BYTES(e, cases[i].u16);
            assert_ptr_equal(rwf_rd_u16ob(buf, e, &v16), e);
            assert_int_equal(v16, cases[i].v);
            assert_null(rwf_rd_u16ob(buf, e - 1, &v16));
        }
        e = rwf_wr_u30rb(buf, cases[i].v);
        EXPECT_BYTES(e, cases[i].u30);
        assert_ptr_equal(rwf_rd_u30rb(buf, e, &v32), e);
        assert_int_equal(v32, cases[i].v);
        assert_null(rwf_rd_u30rb(buf, e - 1, &v32));
    }
    /* the in-place (largest) forms decode to the same values */
    uint16_t v;
    rwf_wr_u15rb2(buf, 5);
    assert_non_null(rwf_rd_u15rb(buf, buf + 2, &v));
    assert_int_equal(v, 5);
    rwf_wr_u16ob3(buf, 5);
    assert_non_null(rwf_rd_u16ob(buf, buf + 3, &v));
    assert_int_equal(v, 5);
    /* i15rb */
    static const int16_t ivals[] = {0, 1, -1, 63, -64, 64, -65, 16383, -16384};
    for (size_t i = 0; i < sizeof(ivals) / sizeof(ivals[0]); i++) {
        int16_t x;
        uint8_t *e = rwf_wr_i15rb(buf, ivals[i]);
        assert_int_equal(e - buf, (ivals[i] >= -64 && ivals[i] < 64) ? 1 : 2);
        assert_ptr_equal(rwf_rd_i15rb(buf, e, &x), e);
        assert_int_equal(x, ivals[i]);
    }
}

static void test_integers(void **state)
{
    (void)state;
    static const struct {
        uint64_t v;
        const char *hex;
    } u[] = {{0, "01 00"},
             {255, "01 FF"},
             {256, "02 01 00"},
             {39815, "02 9B 87"},
             {1ULL << 32, "05 01 00 00 00 00"},
             {UINT64_MAX, "08 FF FF FF FF FF FF FF FF"}};
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
        uint64_t x;
        uint8_t *e = rwf_put_uint(buf, u[i].v);
        EXPECT_BYTES(e, u[i].hex);
        assert_int_equal(rwf_get_uint(rwf_buf_make(buf + 1, buf[0]), &x), RWF_OK);
        assert_true(x == u[i].v);
    }
    static const struct {
        int64_t v;
        const char *hex;
    } s[] = {{0, "01 00"},
             {-1, "01 FF"},
             {127, "01 7F"},
             {128, "02 00 80"},
             {-128, "01 80"},
             {-129, "02 FF 7F"},
             {INT64_MIN, "08 80 00 00 00 00 00 00 00"},
             {INT64_MAX, "08 7F FF FF FF FF FF FF FF"}};
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
        int64_t x;
        uint8_t *e = rwf_put_int(buf, s[i].v);
        EXPECT_BYTES(e, s[i].hex);
        assert_int_equal(rwf_get_int(rwf_buf_make(buf + 1, buf[0]), &x), RWF_OK);
        assert_true(x == s[i].v);
    }
    uint16_t en;
    EXPECT_BYTES(rwf_put_enum(buf, 4), "01 04");
    EXPECT_BYTES(rwf_put_enum(buf, 840), "02 03 48");
    assert_int_equal(rwf_get_enum(rwf_buf_make(buf + 1, 2), &en), RWF_OK);
    assert_int_equal(en, 840);
    assert_int_equal(rwf_get_enum(rwf_buf_make(buf, 0), &en), RWF_BLANK);
}

static void test_reals(void **state)
{
    (void)state;
    static const struct {
        int64_t v;
        uint8_t hint;
        const char *hex;
    } r[] = {
        {39815, RWF_RH_EXPONENT_2, "04 0C 00 9B 87"}, /* a 3-byte mantissa: sign bit */
        {0, RWF_RH_EXPONENT0, "02 0E 00"},
        {1, RWF_RH_EXPONENT0, "02 0E 01"},
        {-1, RWF_RH_EXPONENT_2, "02 0C FF"},
        {2848560000LL, RWF_RH_EXPONENT_6, "06 08 00 A9 C9 93 80"},
        {3910033, RWF_RH_EXPONENT1, "04 0F 3B A9 91"},
        {INT64_MIN, RWF_RH_EXPONENT0, "09 0E 80 00 00 00 00 00 00 00"},
        {3, RWF_RH_FRACTION_4, "02 18 03"},
    };
    for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
        rwf_real in = {.value = r[i].v, .hint = r[i].hint}, out;
        uint8_t *e = rwf_put_real(buf, &in);
        EXPECT_BYTES(e, r[i].hex);
        assert_int_equal(rwf_get_real(rwf_buf_make(buf + 1, buf[0]), &out), RWF_OK);
        assert_true(out.value == r[i].v);
        assert_int_equal(out.hint, r[i].hint);
        assert_int_equal(out.blank, 0);
    }
    rwf_real b = {.blank = 1}, inf = {.hint = RWF_RH_INFINITY}, out;
    EXPECT_BYTES(rwf_put_real(buf, &b), "00");
    EXPECT_BYTES(rwf_put_real(buf, &inf), "01 21");
    assert_int_equal(rwf_get_real(rwf_buf_make(buf + 1, 1), &out), RWF_OK);
    assert_int_equal(out.hint, RWF_RH_INFINITY);
    buf[0] = 0x22;
    assert_int_equal(rwf_get_real(rwf_buf_make(buf, 1), &out), RWF_OK);
    assert_int_equal(out.hint, RWF_RH_NEG_INFINITY);
    buf[0] = 0x0E; /* hint only, not a special one: blank */
    assert_int_equal(rwf_get_real(rwf_buf_make(buf, 1), &out), RWF_BLANK);
    buf[0] = 0x2E; /* blank bit */
    buf[1] = 0x05;
    assert_int_equal(rwf_get_real(rwf_buf_make(buf, 2), &out), RWF_BLANK);
    assert_int_equal(out.blank, 1);
    assert_int_equal(rwf_get_real(rwf_buf_make(buf, 0), &out), RWF_BLANK);
    rwf_real d = {.value = 12345, .hint = RWF_RH_EXPONENT_2};
    assert_true(fabs(rwf_real_to_double(&d) - 123.45) < 1e-9);
    d.hint = RWF_RH_FRACTION_8;
    assert_true(fabs(rwf_real_to_double(&d) - 12345.0 / 8) < 1e-9);
}

static void test_dates_and_times(void **state)
{
    (void)state;
    rwf_date d = {.day = 15, .month = 11, .year = 2005}, od;
    EXPECT_BYTES(rwf_put_date(buf, &d), "04 0F 0B 07 D5");
    assert_int_equal(rwf_get_date(rwf_buf_make(buf + 1, 4), &od), RWF_OK);
    assert_int_equal(od.year, 2005);
    memset(buf, 0, 4);
    assert_int_equal(rwf_get_date(rwf_buf_make(buf, 4), &od), RWF_BLANK);

    static const struct {
        rwf_time t;
        const char *hex;
    } t[] = {
        {{21, 0, 1, 0, 0, 0}, "03 15 00 01"},
        {{21, 0, 0, 0, 0, 0}, "02 15 00"},
        {{15, 52, 12, 345, 0, 0}, "05 0F 34 0C 01 59"},
        {{15, 52, 12, 345, 678, 0}, "07 0F 34 0C 01 59 02 A6"},
        /* ns 999 = 0x3E7: bits 8-10 (0x300) land in bits 11-13 of the us word */
        {{15, 52, 12, 345, 678, 999}, "08 0F 34 0C 01 59 1A A6 E7"},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        rwf_time o;
        uint8_t *e = rwf_put_time(buf, &t[i].t);
        EXPECT_BYTES(e, t[i].hex);
        assert_int_equal(rwf_get_time(rwf_buf_make(buf + 1, buf[0]), &o), RWF_OK);
        assert_true(time_eq(&o, &t[i].t));
    }
    rwf_time o;
    memset(buf, 0xFF, 3);
    assert_int_equal(rwf_get_time(rwf_buf_make(buf, 3), &o), RWF_BLANK);
    assert_int_equal(o.millisecond, 65535);
    /* the blank pattern encodes as FF FF; a time that only starts like it is never shortened
     * into a form that reads back as blank */
    EXPECT_BYTES(rwf_put_time(buf, &o), "02 FF FF");
    rwf_time almost = {255, 255, 255, 65535, 0, 0};
    EXPECT_BYTES(rwf_put_time(buf, &almost), "07 FF FF FF FF FF 00 00");
    assert_int_equal(rwf_get_time(rwf_buf_make(buf + 1, 7), &o), RWF_OK);
    assert_true(time_eq(&o, &almost));
    rwf_time early = {255, 255, 0, 0, 0, 0};
    EXPECT_BYTES(rwf_put_time(buf, &early), "03 FF FF 00");

    rwf_datetime dt = {{15, 11, 2005}, {15, 52, 12, 0, 0, 0}}, odt;
    EXPECT_BYTES(rwf_put_datetime(buf, &dt), "07 0F 0B 07 D5 0F 34 0C");
    assert_int_equal(rwf_get_datetime(rwf_buf_make(buf + 1, 7), &odt), RWF_OK);
    assert_true(date_eq(&odt.date, &dt.date) && time_eq(&odt.time, &dt.time));
}

static void test_qos_state_float(void **state)
{
    (void)state;
    rwf_qos q = {.timeliness = RWF_QOS_TIME_REALTIME, .rate = RWF_QOS_RATE_TICK_BY_TICK}, oq;
    EXPECT_BYTES(rwf_put_qos(buf, &q), "01 22");
    rwf_qos q2 = {.timeliness = RWF_QOS_TIME_DELAYED,
                  .rate = RWF_QOS_RATE_TIME_CONFLATED,
                  .dynamic = 1,
                  .time_info = 500,
                  .rate_info = 1000};
    EXPECT_BYTES(rwf_put_qos(buf, &q2), "05 67 01 F4 03 E8");
    assert_int_equal(rwf_get_qos(rwf_buf_make(buf + 1, 5), &oq), RWF_OK);
    assert_true(oq.timeliness == q2.timeliness && oq.rate == q2.rate && oq.dynamic == 1 &&
                oq.time_info == 500 && oq.rate_info == 1000);
    rwf_qos unspecified = {0};
    assert_false(rwf_qos_valid(&unspecified));

    rwf_state s = {.stream_state = RWF_STREAM_OPEN, .data_state = RWF_DATA_OK}, os;
    EXPECT_BYTES(rwf_put_state(buf, &s), "03 09 00 00");
    s.text = RWF_STR("hi");
    EXPECT_BYTES(rwf_put_state(buf, &s), "05 09 00 02 68 69");
    assert_int_equal(rwf_get_state(rwf_buf_make(buf + 1, 5), &os), RWF_OK);
    assert_true(rwf_buf_eq_cstr(os.text, "hi"));

    float f;
    double dd;
    EXPECT_BYTES(rwf_put_float(buf, 1.5f), "04 3F C0 00 00");
    assert_int_equal(rwf_get_float(rwf_buf_make(buf + 1, 4), &f), RWF_OK);
    assert_true(f == 1.5f);
    EXPECT_BYTES(rwf_put_double(buf, -2.0), "08 C0 00 00 00 00 00 00 00");
    assert_int_equal(rwf_get_double(rwf_buf_make(buf + 1, 8), &dd), RWF_OK);
    assert_true(dd == -2.0);
}

static void test_set_forms(void **state)
{
    (void)state;
    static const struct {
        int type;
        rwf_value v;
        const char *hex;
    } c[] = {
        {RWF_DT_INT_1, {.type = RWF_DT_INT, .i = -2}, "FE"},
        {RWF_DT_UINT_2, {.type = RWF_DT_UINT, .u = 3855}, "0F 0F"},
        {RWF_DT_INT_4, {.type = RWF_DT_INT, .i = -1}, "FF FF FF FF"},
        {RWF_DT_UINT_8, {.type = RWF_DT_UINT, .u = 1}, "00 00 00 00 00 00 00 01"},
        {RWF_DT_REAL_4RB, {.type = RWF_DT_REAL, .real = {1, 14, 0}}, "0E 01"},
        {RWF_DT_REAL_4RB, {.type = RWF_DT_REAL, .real = {1000, 12, 0}}, "4C 03 E8"},
        {RWF_DT_REAL_4RB, {.type = RWF_DT_REAL, .real = {-100000, 12, 0}}, "8C FE 79 60"},
        {RWF_DT_REAL_4RB, {.type = RWF_DT_REAL, .real = {0, 0, 1}}, "20"},
        {RWF_DT_REAL_8RB, {.type = RWF_DT_REAL, .real = {1, 14, 0}}, "0E 00 01"},
        {RWF_DT_REAL_8RB,
         {.type = RWF_DT_REAL, .real = {36028797018963967LL, 12, 0}},
         "CC 00 7F FF FF FF FF FF FF"},
        {RWF_DT_DATE_4, {.type = RWF_DT_DATE, .date = {15, 11, 2005}}, "0F 0B 07 D5"},
        {RWF_DT_TIME_3, {.type = RWF_DT_TIME, .time = {15, 52, 12, 0, 0, 0}}, "0F 34 0C"},
        {RWF_DT_TIME_5, {.type = RWF_DT_TIME, .time = {15, 52, 12, 345, 0, 0}}, "0F 34 0C 01 59"},
        {RWF_DT_DATETIME_7,
         {.type = RWF_DT_DATETIME, .datetime = {{15, 11, 2005}, {15, 52, 12, 0, 0, 0}}},
         "0F 0B 07 D5 0F 34 0C"},
        {RWF_DT_UINT, {.type = RWF_DT_UINT, .u = 256}, "02 01 00"},
        {RWF_DT_ASCII_STRING, {.type = RWF_DT_ASCII_STRING, .buf = {"NAME", 4}}, "04 4E 41 4D 45"},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        int st;
        rwf_value o;
        uint8_t *e = rwf_put_set_value(buf, buf + sizeof(buf), c[i].type, &c[i].v, &st);
        assert_non_null(e);
        EXPECT_BYTES(e, c[i].hex);
        int size = rwf_set_type_size(c[i].type);
        rwf_buf v = size > 0 || c[i].type == RWF_DT_REAL_4RB || c[i].type == RWF_DT_REAL_8RB
                        ? rwf_buf_make(buf, (size_t)(e - buf))
                        : rwf_buf_make(buf + 1, (size_t)(e - buf - 1));
        int r = rwf_get_value(c[i].type, v, &o);
        assert_true(r == RWF_OK || r == RWF_BLANK);
        assert_int_equal(o.type, c[i].v.type);
        if (o.type == RWF_DT_REAL) {
            assert_int_equal(o.real.blank, c[i].v.real.blank);
            if (!o.real.blank) {
                assert_true(o.real.value == c[i].v.real.value);
                assert_int_equal(o.real.hint, c[i].v.real.hint);
            }
        } else if (o.type == RWF_DT_ASCII_STRING) {
            assert_true(rwf_buf_eq(o.buf, c[i].v.buf));
        } else if (o.type == RWF_DT_DATE) {
            assert_true(date_eq(&o.date, &c[i].v.date));
        } else if (o.type == RWF_DT_TIME) {
            assert_true(time_eq(&o.time, &c[i].v.time));
        } else if (o.type == RWF_DT_DATETIME) {
            assert_true(date_eq(&o.datetime.date, &c[i].v.datetime.date) &&
                        time_eq(&o.datetime.time, &c[i].v.datetime.time));
        } else {
            assert_true(o.u == c[i].v.u);
        }
    }
    /* blanks of fixed types are their blank patterns */
    int st;
    EXPECT_BYTES(rwf_put_set_value(buf, buf + 8, RWF_DT_TIME_3, NULL, &st), "FF FF FF");
    EXPECT_BYTES(rwf_put_set_value(buf, buf + 8, RWF_DT_DATE_4, NULL, &st), "00 00 00 00");
    /* values that do not fit are refused */
    rwf_value big = {.type = RWF_DT_UINT, .u = 256};
    assert_null(rwf_put_set_value(buf, buf + 8, RWF_DT_UINT_1, &big, &st));
    assert_int_equal(st, RWF_E_INVALID);
    assert_null(rwf_put_set_value(buf, buf + 1, RWF_DT_UINT_2, &big, &st));
    assert_int_equal(st, RWF_E_NOSPACE);
    rwf_value wrong = {.type = RWF_DT_REAL};
    assert_null(rwf_put_set_value(buf, buf + 8, RWF_DT_UINT_2, &wrong, &st));
}

static void real_text(const char *s, int want_r, int64_t v, int hint)
{
    rwf_real r;
    int got = rwf_real_from_str(&r, s, strlen(s));
    if (got != want_r)
        fail_msg("\"%s\": status %d, expected %d", s, got, want_r);
    if (got == RWF_OK && (r.value != v || r.hint != hint))
        fail_msg("\"%s\": %lld hint %d, expected %lld hint %d", s, (long long)r.value, r.hint,
                 (long long)v, hint);
}

static void test_real_text(void **state)
{
    (void)state;
    /* docs/wire.md#primitives */
    real_text("9000.00", RWF_OK, 900000, RWF_RH_EXPONENT_2);
    real_text("2848.560000", RWF_OK, 2848560000LL, RWF_RH_EXPONENT_6);
    real_text("392.8", RWF_OK, 3928, RWF_RH_EXPONENT_1);
    real_text("1266750", RWF_OK, 126675, RWF_RH_EXPONENT1);
    real_text("39100330", RWF_OK, 3910033, RWF_RH_EXPONENT1);
    real_text("16844", RWF_OK, 16844, RWF_RH_EXPONENT0);
    real_text("0", RWF_OK, 0, RWF_RH_EXPONENT0);
    real_text("100", RWF_OK, 1, RWF_RH_EXPONENT2);
    real_text("10000000", RWF_OK, 1, RWF_RH_EXPONENT7);
    real_text("100000000", RWF_OK, 10, RWF_RH_EXPONENT7); /* more than 7 zeros: refolded */
    real_text("100.5", RWF_OK, 1005, RWF_RH_EXPONENT_1);
    real_text("0.01", RWF_OK, 1, RWF_RH_EXPONENT_2);
    real_text("-5.35", RWF_OK, -535, RWF_RH_EXPONENT_2);
    real_text("  -7", RWF_OK, -7, RWF_RH_EXPONENT0);
    real_text("360287970189639.67", RWF_OK, 36028797018963967LL, RWF_RH_EXPONENT_2);
    real_text("3/4", RWF_OK, 3, RWF_RH_FRACTION_4);
    real_text("12 3/4", RWF_OK, 51, RWF_RH_FRACTION_4);
    real_text("Inf", RWF_OK, 0, RWF_RH_INFINITY);
    real_text("-Inf", RWF_OK, 0, RWF_RH_NEG_INFINITY);
    real_text("NaN", RWF_OK, 0, RWF_RH_NOT_A_NUMBER);
    real_text("", RWF_BLANK, 0, 0);
    real_text("   ", RWF_BLANK, 0, 0);
    real_text("+0", RWF_BLANK, 0, 0);
    real_text("+0.000", RWF_BLANK, 0, 0);
    real_text("1.5x", RWF_E_INVALID, 0, 0);
    real_text("12x", RWF_E_INVALID, 0, 0);
    real_text("1/3", RWF_E_INVALID, 0, 0);
    /* A whole part and a fraction whose sum in 1/den units does not fit 64 bits. */
    real_text("4611686018427387903 1/2", RWF_OK, INT64_MAX, RWF_RH_FRACTION_2);
    real_text("-4611686018427387903 1/2", RWF_OK, -INT64_MAX, RWF_RH_FRACTION_2);
    real_text("4611686018427387904 1/2", RWF_E_INVALID, 0, 0);
    real_text("9223372036854775807 255/256", RWF_E_INVALID, 0, 0);
    real_text("0.000000000000001", RWF_E_INVALID, 0, 0); /* 15 decimals */
    real_text("abc", RWF_E_INVALID, 0, 0);
    assert_non_null(strstr(err_msg(), "\"abc\""));
    /* The 64-bit extremes, as rwf_real_to_str writes them. */
    real_text("9223372036854775807", RWF_OK, INT64_MAX, RWF_RH_EXPONENT0);
    real_text("-9223372036854775808", RWF_OK, INT64_MIN, RWF_RH_EXPONENT0);
    real_text("-92233720368547758.08", RWF_OK, INT64_MIN, RWF_RH_EXPONENT_2);
    real_text("-92233720368547758080", RWF_OK, INT64_MIN, RWF_RH_EXPONENT1);
    real_text("9223372036854775808", RWF_E_INVALID, 0, 0);
    real_text("-9223372036854775809", RWF_E_INVALID, 0, 0);
    /* Inf/NaN are whole words; text without a digit is not a number. */
    real_text("Inf  ", RWF_OK, 0, RWF_RH_INFINITY);
    real_text("Infinity", RWF_E_INVALID, 0, 0);
    real_text("NaN1", RWF_E_INVALID, 0, 0);
    real_text("-Inf-Inf", RWF_E_INVALID, 0, 0);
    real_text(".", RWF_E_INVALID, 0, 0);
    real_text("-.", RWF_E_INVALID, 0, 0);
    real_text("/4", RWF_E_INVALID, 0, 0);
    real_text("- 3/4", RWF_E_INVALID, 0, 0);
    real_text(".5", RWF_OK, 5, RWF_RH_EXPONENT_1);
    real_text("5.", RWF_OK, 5, RWF_RH_EXPONENT0);

    char s[64];
    static const struct {
        int64_t v;
        uint8_t h;
        const char *text;
    } out[] = {{2848560000LL, RWF_RH_EXPONENT_6, "2848.560000"},
               {3910033, RWF_RH_EXPONENT1, "39100330"},
               {-535, RWF_RH_EXPONENT_2, "-5.35"},
               {1, RWF_RH_EXPONENT_2, "0.01"},
               {51, RWF_RH_FRACTION_4, "12 3/4"},
               {3, RWF_RH_FRACTION_4, "3/4"},
               {0, RWF_RH_INFINITY, "Inf"},
               {INT64_MIN, RWF_RH_EXPONENT0, "-9223372036854775808"},
               {INT64_MIN, RWF_RH_EXPONENT_14, "-92233.72036854775808"}};
    for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
        rwf_real r = {.value = out[i].v, .hint = out[i].h};
        assert_int_equal(rwf_real_to_str(&r, s, sizeof(s)), (int)strlen(out[i].text));
        assert_string_equal(s, out[i].text);
        rwf_real back;
        assert_int_equal(rwf_real_from_str(&back, s, strlen(s)), RWF_OK);
        assert_true(back.value == out[i].v && back.hint == out[i].h);
    }
    rwf_real r = {.value = 1, .hint = 14};
    assert_int_equal(rwf_real_to_str(&r, s, 1), RWF_E_NOSPACE);
}

static void date_text(const char *s, int want_r, int day, int month, int year)
{
    rwf_date d;
    int got = rwf_date_from_str(&d, s, strlen(s));
    if (got != want_r)
        fail_msg("\"%s\": status %d, expected %d (%s)", s, got, want_r, err_msg());
    if (got == RWF_OK && (d.day != day || d.month != month || d.year != year))
        fail_msg("\"%s\": %d/%d/%d", s, d.day, d.month, d.year);
}

static void time_text(const char *s, int want_r, int h, int m, int sec, int ms, int us, int ns)
{
    rwf_time t;
    int got = rwf_time_from_str(&t, s, strlen(s));
    if (got != want_r)
        fail_msg("\"%s\": status %d, expected %d (%s)", s, got, want_r, err_msg());
    if (got == RWF_OK && (t.hour != h || t.minute != m || t.second != sec || t.millisecond != ms ||
                          t.microsecond != us || t.nanosecond != ns))
        fail_msg("\"%s\": %d:%d:%d %d %d %d", s, t.hour, t.minute, t.second, t.millisecond,
                 t.microsecond, t.nanosecond);
}

static void test_date_time_text(void **state)
{
    (void)state;
    date_text("11/15/2005", RWF_OK, 15, 11, 2005);
    date_text("11/15/05", RWF_OK, 15, 11, 1905);
    date_text("2005/11/15", RWF_OK, 15, 11, 2005);
    date_text("11 15 2005", RWF_OK, 15, 11, 2005);
    date_text("15 NOV 2005", RWF_OK, 15, 11, 2005);
    date_text("15 nov 05", RWF_OK, 15, 11, 1905);
    date_text("2005-11-15", RWF_OK, 15, 11, 2005);
    date_text("2005-11", RWF_OK, 0, 11, 2005);
    date_text("2005", RWF_OK, 0, 0, 2005);
    date_text("20051115", RWF_OK, 15, 11, 2005);
    date_text("--11-15", RWF_OK, 15, 11, 0);
    date_text("--1115", RWF_OK, 15, 11, 0);
    date_text("", RWF_BLANK, 0, 0, 0);
    date_text("  ", RWF_BLANK, 0, 0, 0);
    date_text("15 FOO 2005", RWF_E_INVALID, 0, 0, 0);
    date_text("11/15", RWF_E_INVALID, 0, 0, 0);
    date_text("2005-1-15", RWF_E_INVALID, 0, 0, 0);
    date_text("11/15/2005x", RWF_E_INVALID, 0, 0, 0);

    time_text("15:52:12:000:000:000", RWF_OK, 15, 52, 12, 0, 0, 0);
    time_text("15:52:12:123:456:789", RWF_OK, 15, 52, 12, 123, 456, 789);
    time_text("15:52:12:123", RWF_OK, 15, 52, 12, 123, 0, 0);
    time_text("15:52:12", RWF_OK, 15, 52, 12, 0, 0, 0);
    time_text("15:52", RWF_OK, 15, 52, 0, 0, 0, 0);
    time_text(" 21:00:01:000", RWF_OK, 21, 0, 1, 0, 0, 0);
    time_text(" 23:35:32:000", RWF_OK, 23, 35, 32, 0, 0, 0);
    time_text(" 14:40:32:000", RWF_OK, 14, 40, 32, 0, 0, 0);
    time_text("15:52:12.123456789", RWF_OK, 15, 52, 12, 123, 456, 789);
    time_text("15:52:12.5", RWF_OK, 15, 52, 12, 500, 0, 0);
    time_text("155212", RWF_OK, 15, 52, 12, 0, 0, 0);
    time_text("1552", RWF_OK, 15, 52, 0, 0, 0, 0);
    time_text("155212,25Z", RWF_OK, 15, 52, 12, 250, 0, 0);
    time_text("", RWF_BLANK, 0, 0, 0, 0, 0, 0);
    time_text("   ", RWF_BLANK, 0, 0, 0, 0, 0, 0);
    time_text("15:5", RWF_E_INVALID, 0, 0, 0, 0, 0, 0);
    time_text("15:52:12:12", RWF_E_INVALID, 0, 0, 0, 0, 0, 0);
    time_text("15:52x", RWF_E_INVALID, 0, 0, 0, 0, 0, 0);
    time_text(" 15", RWF_E_INVALID, 0, 0, 0, 0, 0, 0);
    /* A zone suffix is a zone or nothing: "Z", "+hh", "+hhmm", "+hh:mm". */
    time_text("15:52:12Z", RWF_OK, 15, 52, 12, 0, 0, 0);
    time_text("15:52:12+05:30", RWF_OK, 15, 52, 12, 0, 0, 0);
    time_text("155212-0500", RWF_OK, 15, 52, 12, 0, 0, 0);
    time_text("15:52-01", RWF_OK, 15, 52, 0, 0, 0, 0);
    time_text("15:52:12.5+01:00", RWF_OK, 15, 52, 12, 500, 0, 0);
    time_text("15:52+junk", RWF_E_INVALID, 0, 0, 0, 0, 0, 0);
    time_text("0000001", RWF_E_INVALID, 0, 0, 0, 0, 0, 0);
    time_text(" 21 0000001", RWF_E_INVALID, 0, 0, 0, 0, 0, 0);
    time_text(" 21 00 01 000", RWF_OK, 21, 0, 1, 0, 0, 0);
    time_text("15:52:12Zulu", RWF_E_INVALID, 0, 0, 0, 0, 0, 0);
    time_text("155212-", RWF_E_INVALID, 0, 0, 0, 0, 0, 0);
    time_text("15:52:12.5-1", RWF_E_INVALID, 0, 0, 0, 0, 0, 0);
    time_text("15:52:12+05:3", RWF_E_INVALID, 0, 0, 0, 0, 0, 0);

    rwf_datetime dt;
    const char *s = "11/15/2005 15:52:12:000";
    assert_int_equal(rwf_datetime_from_str(&dt, s, strlen(s)), RWF_OK);
    assert_int_equal(dt.date.year, 2005);
    assert_int_equal(dt.time.second, 12);
    s = "2005-11-15T15:52:12.250";
    assert_int_equal(rwf_datetime_from_str(&dt, s, strlen(s)), RWF_OK);
    assert_int_equal(dt.date.day, 15);
    assert_int_equal(dt.time.millisecond, 250);
    s = "15 NOV 2005 15:52";
    assert_int_equal(rwf_datetime_from_str(&dt, s, strlen(s)), RWF_OK);
    assert_int_equal(dt.date.month, 11);
    assert_int_equal(dt.time.minute, 52);
    assert_int_equal(rwf_datetime_from_str(&dt, "", 0), RWF_BLANK);

    char text[32];
    rwf_date d = {15, 11, 2005};
    assert_int_equal(rwf_date_to_str(&d, text, sizeof(text)), 11);
    assert_string_equal(text, "15 NOV 2005");
    rwf_time t = {21, 0, 1, 0, 0, 0};
    rwf_time_to_str(&t, text, sizeof(text));
    assert_string_equal(text, "21:00:01");
    t.nanosecond = 5;
    rwf_time_to_str(&t, text, sizeof(text));
    assert_string_equal(text, "21:00:01:000:000:005");
}

static void test_integer_text(void **state)
{
    (void)state;
    uint64_t u;
    int64_t i;
    uint16_t e;
    assert_int_equal(rwf_uint_from_str(&u, "75601000", 8), RWF_OK);
    assert_int_equal(u, 75601000);
    assert_int_equal(rwf_uint_from_str(&u, " 18446744073709551615 ", 22), RWF_OK);
    assert_true(u == UINT64_MAX);
    assert_int_equal(rwf_uint_from_str(&u, "18446744073709551616", 20), RWF_E_INVALID);
    assert_int_equal(rwf_uint_from_str(&u, "-1", 2), RWF_E_INVALID);
    assert_int_equal(rwf_uint_from_str(&u, "", 0), RWF_BLANK);
    assert_int_equal(rwf_int_from_str(&i, "-9223372036854775808", 20), RWF_OK);
    assert_true(i == INT64_MIN);
    assert_int_equal(rwf_int_from_str(&i, "9223372036854775808", 19), RWF_E_INVALID);
    assert_int_equal(rwf_int_from_str(&i, "12a", 3), RWF_E_INVALID);
    assert_int_equal(rwf_enum_from_str(&e, "840", 3), RWF_OK);
    assert_int_equal(e, 840);
    assert_int_equal(rwf_enum_from_str(&e, "65536", 5), RWF_E_INVALID);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(rwf_type_name(RWF_DT_REAL), "RSSL_DT_REAL");
    assert_string_equal(rwf_type_name(RWF_DT_UINT_2), "RSSL_DT_UINT_2");
    assert_int_equal(rwf_type_from_name("RSSL_DT_RMTES_STRING"), RWF_DT_RMTES_STRING);
    assert_int_equal(rwf_type_from_name("DATETIME_9"), RWF_DT_DATETIME_9);
    assert_int_equal(rwf_type_from_name("RSSL_DT_NOPE"), -1);
    assert_null(rwf_type_name(200));
    assert_string_equal(rwf_msg_class_name(RWF_MC_POST), "POST");
    assert_string_equal(rwf_state_code_name(RWF_SC_TOO_MANY_ITEMS), "TOO_MANY_ITEMS");
    assert_string_equal(rwf_stream_state_name(RWF_STREAM_CLOSED_RECOVER), "CLOSED_RECOVER");
    assert_string_equal(rwf_dict_mf_type_name(RWF_MF_PRICE), "PRICE");
    assert_int_equal(rwf_dict_rwf_type_from_name("REAL64", 6), RWF_DT_REAL);
    assert_int_equal(rwf_base_type(RWF_DT_TIME_8), RWF_DT_TIME);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_length_encodings),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_reals),
        cmocka_unit_test(test_dates_and_times),
        cmocka_unit_test(test_qos_state_float),
        cmocka_unit_test(test_set_forms),
        cmocka_unit_test(test_real_text),
        cmocka_unit_test(test_date_time_text),
        cmocka_unit_test(test_integer_text),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

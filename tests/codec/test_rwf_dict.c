/*
 * Dictionary files: the project's RDMFieldDictionary and enumtype.def (data/) load (and how
 * fast), lookups by fid, by name, ripple-to and enum displays (including #hex# displays) are right,
 * and every kind of bad line is an error naming the file and the line; the decoder's per-fid
 * entries (type, enum display lengths) agree with those lookups.
 */
#include "testsupport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rwf.h"

/* What data/RDMFieldDictionary and data/enumtype.def hold: their field lines and tables. */
#define FIELD_LINES 93
#define ENUM_TABLES 18

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_dictionary_files(void **state)
{
    (void)state;
    const char *fields = ts_source_path("data/RDMFieldDictionary");
    char fpath[4096];
    snprintf(fpath, sizeof(fpath), "%s", fields);
    const char *enums = ts_source_path("data/enumtype.def");

    double best_f = 1e9, best_e = 1e9;
    rwf_dict *d = NULL;
    for (int i = 0; i < 3; i++) {
        rwf_dict_free(d);
        d = rwf_dict_new();
        double t0 = now_ms();
        assert_int_equal(rwf_dict_load_fields(d, fpath), RWF_OK);
        double t1 = now_ms();
        if (rwf_dict_load_enums(d, enums) != RWF_OK)
            fail_msg("%s", err_msg());
        double t2 = now_ms();
        best_f = t1 - t0 < best_f ? t1 - t0 : best_f;
        best_e = t2 - t1 < best_e ? t2 - t1 : best_e;
    }
    printf("RDMFieldDictionary: %u fields in %.1f ms; enumtype.def: %u tables in %.1f ms "
           "(best of 3)\n",
           d->field_count, best_f, d->table_count, best_e);
    assert_int_equal(d->field_count, FIELD_LINES);
    assert_int_equal(d->table_count, ENUM_TABLES);
    assert_true(rwf_buf_eq_cstr(d->info.field_version, "4.20.51"));
    assert_true(rwf_buf_eq_cstr(d->info.enum_rt_version, "4.20.51"));
    assert_true(rwf_buf_eq_cstr(d->info.enum_dt_version, "22.21"));
    assert_int_equal(d->info.dictionary_id, 1);

    const rwf_dict_field *f = rwf_dict_field_by_fid(d, 6);
    assert_non_null(f);
    assert_true(rwf_buf_eq_cstr(f->acronym, "TRDPRC_1"));
    assert_true(rwf_buf_eq_cstr(f->dde_acronym, "LAST"));
    assert_int_equal(f->rwf_type, RWF_DT_REAL);
    assert_int_equal(f->mf_type, RWF_MF_PRICE);
    assert_int_equal(f->length, 17);
    assert_int_equal(f->rwf_len, 7);
    assert_int_equal(f->ripple_to, 0); /* the project's file carries no ripple chains */
    {
        static const char chain[] = "A  \"A\"  1  B     PRICE 17 REAL64 7\n"
                                    "B  \"B\"  2  NULL  PRICE 17 REAL64 7\n";
        rwf_dict *r = rwf_dict_new();
        assert_int_equal(rwf_dict_parse_fields(r, "F", chain, sizeof(chain) - 1), RWF_OK);
        assert_int_equal(rwf_dict_field_by_fid(r, 1)->ripple_to, 2);
        assert_int_equal(rwf_dict_field_by_fid(r, 2)->ripple_to, 0);
        rwf_dict_free(r);
    }
    assert_int_equal(rwf_dict_type(d, 3902), RWF_DT_UINT);
    assert_int_equal(rwf_dict_type(d, 3903), RWF_DT_UINT);
    assert_int_equal(rwf_dict_type(d, 3904), RWF_DT_UINT);
    assert_int_equal(rwf_dict_type(d, 3426), RWF_DT_RMTES_STRING);
    assert_int_equal(rwf_dict_type(d, 0), RWF_DT_UNKNOWN);
    assert_int_equal(rwf_dict_type(d, 32767), RWF_DT_UNKNOWN);
    assert_null(rwf_dict_field_by_fid(d, -32768));

    f = rwf_dict_field_by_name(d, RWF_STR("RDN_EXCHID"));
    assert_non_null(f);
    assert_int_equal(f->fid, 4);
    assert_int_equal(f->rwf_type, RWF_DT_ENUM);
    assert_int_equal(f->enum_length, 3);
    assert_null(rwf_dict_field_by_name(d, RWF_STR("NO_SUCH_FIELD")));

    const rwf_enum_value *ev = rwf_dict_enum(d, 4, 3);
    assert_non_null(ev);
    assert_true(rwf_buf_eq_cstr(ev->display, "BOS"));
    assert_true(rwf_buf_eq_cstr(ev->meaning, "Boston Stock Exchange"));
    ev = rwf_dict_enum(d, 4, 0);
    assert_true(rwf_buf_eq_cstr(ev->display, "   "));
    ev = rwf_dict_enum(d, 14, 1); /* PRCTCK_1: #DE# */
    assert_non_null(ev);
    assert_int_equal(ev->display.len, 1);
    assert_int_equal((uint8_t)ev->display.data[0], 0xDE);
    assert_null(rwf_dict_enum(d, 4, 65535));
    assert_null(rwf_dict_enum(d, 6, 1)); /* not an enum field */
    /* Sparse and dense tables both answer every value they hold. */
    unsigned checked = 0;
    for (uint32_t t = 0; t < d->table_count; t++) {
        const rwf_enum_table *tb = &d->tables[t];
        for (uint32_t i = 0; i < tb->count; i++, checked++)
            assert_ptr_equal(rwf_enum_find(tb, tb->values[i].value), &tb->values[i]);
    }
    printf("%u enum values looked up\n", checked);
    rwf_dict_free(d);
}

/* Parses text as a field dictionary (enums = 0) or enum file; returns the status. */
static int parse(int enums, const char *text)
{
    rwf_dict *d = rwf_dict_new();
    static const char fields[] =
        "!tag Version 1.0\n"
        "PROD_PERM  \"PERMISSION\"             1  NULL        INTEGER             5  UINT64  "
        "         2\n"
        "RDN_EXCHID \"IDN EXCHANGE ID\"        4  NULL        ENUMERATED    3 ( 3 )  ENUM     "
        "        1\n";
    int r = enums ? rwf_dict_parse_fields(d, "F", fields, sizeof(fields) - 1) : RWF_OK;
    assert_int_equal(r, RWF_OK);
    r = enums ? rwf_dict_parse_enums(d, "E", text, strlen(text))
              : rwf_dict_parse_fields(d, "F", text, strlen(text));
    rwf_dict_free(d);
    return r;
}

static void expect_error(int enums, const char *text, const char *where, const char *what)
{
    int r = parse(enums, text);
    if (r != RWF_E_MALFORMED && r != RWF_E_INVALID)
        fail_msg("no error for: %s", text);
    if (!strstr(err_msg(), where) || !strstr(err_msg(), what))
        fail_msg("error \"%s\" lacks \"%s\" / \"%s\"", err_msg(), where, what);
}

static void test_field_errors(void **state)
{
    (void)state;
    const char *ok = "! comment\n"
                     "\n"
                     "A  \"A\"  1  B  INTEGER  5  UINT64  2\r\n"
                     "B  \"B B\" 2  NULL PRICE 17 ( 2) REAL64 7\n"
                     "C  \"C\"  -3 NULL ALPHANUM_XTND 9 (3) ASCII_STRING 9";
    assert_int_equal(parse(0, ok), RWF_OK);
    expect_error(0, "A \"A\" 1 NULL INTEGER 5 UINT64 2\nB B 2 NULL INTEGER 5 UINT64 2\n",
                 "F:2:", "missing DDE acronym");
    expect_error(0, "A \"A\" 1x NULL INTEGER 5 UINT64 2\n", "F:1:", "fid '1x'");
    expect_error(0, "A \"A\" 0 NULL INTEGER 5 UINT64 2\n", "F:1:", "fid '0'");
    expect_error(0, "A \"A\" 40000 NULL INTEGER 5 UINT64 2\n", "F:1:", "fid '40000'");
    expect_error(0, "A \"A\" 1 NULL INTEGR 5 UINT64 2\n", "F:1:", "unknown field type 'INTEGR'");
    expect_error(0, "A \"A\" 1 NULL INTEGER x UINT64 2\n", "F:1:", "length 'x'");
    expect_error(0, "A \"A\" 1 NULL INTEGER 5 UINT65 2\n", "F:1:", "unknown RWF type 'UINT65'");
    expect_error(0, "A \"A\" 1 NULL INTEGER 5 UINT64\n", "F:1:", "RWF length");
    expect_error(0, "A \"A\" 1 NULL ENUMERATED 5 ( 3 ENUM 1\n", "F:1:", "no ')'");
    expect_error(0, "A \"A\" 1 NULL INTEGER 5 UINT64 2 extra\n", "F:1:", "unexpected 'extra'");
    expect_error(0, "A \"A\" 1 NULL INTEGER 5 UINT64 2\nB \"B\" 1 NULL INTEGER 5 UINT64 2\n",
                 "F:2:", "fid 1 is defined twice");
    expect_error(0, "\"A\" 1 NULL INTEGER 5 UINT64 2\n", "F:1:", "missing acronym");
    expect_error(0, "!tag Type 2\n", "F:1:", "not a field dictionary");
    expect_error(0, "!tag DictionaryId 1\n!tag DictionaryId 2\n", "F:2:", "DictionaryId 2");
}

static void test_enum_errors(void **state)
{
    (void)state;
    const char *ok = "!tag DT_Version 1.2\n"
                     "RDN_EXCHID 4\n"
                     "  0 \"   \" undefined\n"
                     "  3 \"BOS\" Boston\n"
                     "  9 #41DE#\n"
                     "OTHER 10\n"
                     "OTHER2 11\n"
                     "  1 \"x\"\n";
    assert_int_equal(parse(1, ok), RWF_OK);
    expect_error(1, "  1 \"x\"\n", "E:1:", "before any referencing field");
    expect_error(1, "RDN_EXCHID four\n", "E:1:", "fid 'four'");
    expect_error(1, "RDN_EXCHID 4\n 1 x\n", "E:2:", "missing display");
    expect_error(1, "RDN_EXCHID 4\n 1 \"x\n", "E:2:", "missing display");
    expect_error(1, "RDN_EXCHID 4\n 1 #4#\n", "E:2:", "odd-length hex");
    expect_error(1, "RDN_EXCHID 4\n 1 #4G#\n", "E:2:", "invalid hex");
    expect_error(1, "RDN_EXCHID 4\n 70000 \"x\"\n", "E:2:", "out of 0..65535");
    expect_error(1, "RDN_EXCHID 4\n 1 \"x\"\n 1 \"y\"\n", "E:1:", "value 1 twice");
    expect_error(1, "WRONG_NAME 4\n 1 \"x\"\n", "E:1:", "WRONG_NAME");
    expect_error(1, "A 10\n 1 \"x\"\nB 10\n 2 \"y\"\n", "E:3:", "two enum tables");
    expect_error(1, "A 10\n", "E:1:", "without values");
    expect_error(1, "! nothing\n", "E:1:", "no enum table");
    expect_error(1, "\"x\" 1\n", "E:1:", "quote");
}

static void test_files(void **state)
{
    (void)state;
    rwf_dict *d = rwf_dict_new();
    assert_int_equal(rwf_dict_load_fields(d, "/nonexistent/RDMFieldDictionary"), RWF_E_IO);
    assert_non_null(strstr(err_msg(), "/nonexistent/RDMFieldDictionary: cannot open"));
    assert_int_equal(rwf_dict_load_enums(d, "/"), RWF_E_IO);
    rwf_dict_free(d);

    /* Enum file first, field file second: the tables attach, acronyms are checked. */
    d = rwf_dict_new();
    const char *e = "A 10\n 1 \"one\"\n";
    assert_int_equal(rwf_dict_parse_enums(d, "E", e, strlen(e)), RWF_OK);
    const char *bad = "B \"B\" 10 NULL ENUMERATED 3 ( 3 ) ENUM 1\n";
    assert_int_equal(rwf_dict_parse_fields(d, "F", bad, strlen(bad)), RWF_E_INVALID);
    assert_non_null(strstr(err_msg(), "F:1:"));
    rwf_dict_free(d);
    d = rwf_dict_new();
    assert_int_equal(rwf_dict_parse_enums(d, "E", e, strlen(e)), RWF_OK);
    const char *good = "A \"A\" 10 NULL ENUMERATED 3 ( 3 ) ENUM 1\n";
    assert_int_equal(rwf_dict_parse_fields(d, "F", good, strlen(good)), RWF_OK);
    assert_true(rwf_buf_eq_cstr(rwf_dict_enum(d, 10, 1)->display, "one"));

    /* Fields and tables added one by one (as from dictionary messages). */
    rwf_dict_field f = {.acronym = RWF_STR("TIM_TRK_1"),
                        .dde_acronym = RWF_STR("TIME TRACKER 1"),
                        .fid = 3902,
                        .mf_type = RWF_MF_INTEGER,
                        .rwf_type = RWF_DT_UINT,
                        .length = 15,
                        .rwf_len = 8};
    assert_int_equal(rwf_dict_add_field(d, &f), RWF_OK);
    assert_int_equal(rwf_dict_add_field(d, &f), RWF_E_INVALID);
    assert_int_equal(rwf_dict_type(d, 3902), RWF_DT_UINT);
    assert_non_null(rwf_dict_field_by_name(d, RWF_STR("TIM_TRK_1")));
    int16_t fids[] = {3903};
    rwf_enum_value vals[] = {{.value = 7, .display = RWF_STR("seven")},
                             {.value = 2, .display = RWF_STR("two")}};
    assert_int_equal(rwf_dict_add_enum_table(d, fids, NULL, 1, vals, 2), RWF_OK);
    assert_true(rwf_buf_eq_cstr(rwf_dict_enum(d, 3903, 7)->display, "seven"));
    assert_true(rwf_buf_eq_cstr(rwf_dict_enum(d, 3903, 2)->display, "two"));

    /* A table with every 16-bit value: each one is found, the last included. */
    rwf_enum_value *all = calloc(65536, sizeof(*all));
    for (uint32_t v = 0; v < 65536; v++) {
        all[v].value = (uint16_t)(65535 - v);
        all[v].display = v & 1 ? RWF_STR("odd") : RWF_STR("even");
    }
    int16_t full_fid[] = {3904};
    assert_int_equal(rwf_dict_add_enum_table(d, full_fid, NULL, 1, all, 65536), RWF_OK);
    free(all);
    for (uint32_t v = 0; v < 65536; v++) {
        const rwf_enum_value *ev = rwf_dict_enum(d, 3904, (uint16_t)v);
        if (!ev || ev->value != v)
            fail_msg("value %u of a full table not found", v);
    }
    rwf_dict_free(d);
}

/* Every fid's decoder entry agrees with rwf_dict_type and rwf_dict_enum: the type, the kind of
 * its enum table, and the display length (or RWF_DICT_ENUM_NO_VALUE) of every value up to past
 * the table's end. */
static void check_entries(const rwf_dict *d)
{
    unsigned dense = 0, sparse = 0;
    for (int fid = -32768; fid <= 32767; fid++) {
        rwf_dict_entry e = rwf_dict_entry_of(d, (int16_t)fid);
        assert_int_equal(e.type, rwf_dict_type(d, (int16_t)fid));
        const rwf_enum_table *t = rwf_dict_enum_table(d, (int16_t)fid);
        if (!t) {
            assert_int_equal(e.enum_kind, RWF_DICT_ENUM_NONE);
            continue;
        }
        if (e.enum_kind == RWF_DICT_ENUM_SPARSE) {
            sparse++;
            continue;
        }
        assert_int_equal(e.enum_kind, RWF_DICT_ENUM_DENSE);
        assert_int_equal(e.enum_max, t->max_value);
        dense++;
        for (uint32_t v = 0; v <= (uint32_t)t->max_value + 2 && v < 65536; v++) {
            const rwf_enum_value *ev = rwf_dict_enum(d, (int16_t)fid, (uint16_t)v);
            unsigned want = ev ? ev->display.len : RWF_DICT_ENUM_NO_VALUE;
            if (rwf_dict_entry_enum_len(d, e, (uint16_t)v) != want)
                fail_msg("fid %d value %u: entry gives %u, the table %u", fid, v,
                         rwf_dict_entry_enum_len(d, e, (uint16_t)v), want);
        }
        assert_int_equal(rwf_dict_entry_enum_len(d, e, 65535),
                         rwf_dict_enum(d, (int16_t)fid, 65535) ? 1u : RWF_DICT_ENUM_NO_VALUE);
    }
    printf("%u dense and %u sparse enum fields checked\n", dense, sparse);
}

static void test_entries(void **state)
{
    (void)state;
    rwf_dict *d = rwf_dict_new();
    const char *fields = ts_source_path("data/RDMFieldDictionary");
    char fpath[4096];
    snprintf(fpath, sizeof(fpath), "%s", fields);
    const char *enums = ts_source_path("data/enumtype.def");
    assert_int_equal(rwf_dict_load_enums(d, enums), RWF_OK); /* tables before their fields */
    assert_int_equal(rwf_dict_load_fields(d, fpath), RWF_OK);
    /* a sparse table, a table with a value it leaves out, one with a display left empty */
    rwf_dict_field f = {.acronym = RWF_STR("X1"), .fid = -2001, .rwf_type = RWF_DT_ENUM};
    assert_int_equal(rwf_dict_add_field(d, &f), RWF_OK);
    int16_t sp[] = {-2001};
    rwf_enum_value sv[] = {{.value = 3, .display = RWF_STR("three")},
                           {.value = 60000, .display = RWF_STR("far")}};
    assert_int_equal(rwf_dict_add_enum_table(d, sp, NULL, 1, sv, 2), RWF_OK);
    assert_int_equal(rwf_dict_entry_of(d, -2001).enum_kind, RWF_DICT_ENUM_SPARSE);
    int16_t dn[] = {-2002, -2003};
    rwf_enum_value dv[] = {{.value = 0, .display = RWF_STR("")},
                           {.value = 2, .display = RWF_STR("two")}};
    assert_int_equal(rwf_dict_add_enum_table(d, dn, NULL, 2, dv, 2), RWF_OK);
    rwf_dict_entry e = rwf_dict_entry_of(d, -2003);
    assert_int_equal(e.type, RWF_DT_UNKNOWN); /* a table may come before its field */
    assert_int_equal(e.enum_kind, RWF_DICT_ENUM_DENSE);
    assert_int_equal(rwf_dict_entry_enum_len(d, e, 0), 0);
    assert_int_equal(rwf_dict_entry_enum_len(d, e, 1), RWF_DICT_ENUM_NO_VALUE);
    assert_int_equal(rwf_dict_entry_enum_len(d, e, 2), 3);
    assert_int_equal(rwf_dict_entry_enum_len(d, e, 3), RWF_DICT_ENUM_NO_VALUE);
    f = (rwf_dict_field){.acronym = RWF_STR("X3"), .fid = -2003, .rwf_type = RWF_DT_ENUM};
    assert_int_equal(rwf_dict_add_field(d, &f), RWF_OK);
    assert_int_equal(rwf_dict_entry_of(d, -2003).type, RWF_DT_ENUM);
    check_entries(d);
    rwf_dict_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dictionary_files), cmocka_unit_test(test_field_errors),
        cmocka_unit_test(test_enum_errors),      cmocka_unit_test(test_files),
        cmocka_unit_test(test_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * fuzz_msgdata: MsgData.xml parsing and template encoding on arbitrary input.
 *
 * Each input is parsed as a message data file against the project's dictionary (data/).
 * Accepted files must give templates that encode for every kind of message and decode back
 * field by field with the dictionary's types; rejected ones must say where ("fuzz.xml...").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "msgdata.h"
#include "rwf.h"

static rwf_dict *dict;

/* The project's data folder, found from this file's place in the source tree. */
static void data_path(char *out, size_t cap, const char *name)
{
    const char *slash = strrchr(__FILE__, '/');
    int dir = slash ? (int)(slash - __FILE__) : 0;
    snprintf(out, cap, "%.*s/../../data/%s", dir, __FILE__, name);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char f[4096], e[4096];
    data_path(f, sizeof(f), "RDMFieldDictionary");
    data_path(e, sizeof(e), "enumtype.def");
    dict = rwf_dict_new();
    if (!dict || rwf_dict_load_fields(dict, f) < 0 || rwf_dict_load_enums(dict, e) < 0) {
        fprintf(stderr, "fuzz_msgdata: %s\n", err_msg());
        abort();
    }
    return 0;
}

static uint8_t out[1 << 20];

/* Encodes m as each kind and decodes the result. */
static void check_msg(const msgdata_msg *m)
{
    static const int kinds[] = {MSGDATA_REFRESH, MSGDATA_UPDATE, MSGDATA_POST, MSGDATA_GENERIC};
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        uint64_t stamp = 0x123456789ULL;
        rwf_enc e;
        size_t len;
        rwf_enc_init(&e, out, sizeof(out));
        msgdata_encode(&e, m, kinds[k], kinds[k] == MSGDATA_REFRESH ? NULL : &stamp);
        if (rwf_enc_finish(&e, &len) < 0) {
            if (m->entries_len + m->set_defs_len + 64 < sizeof(out)) {
                fprintf(stderr, "template does not encode: %s\n", err_msg());
                abort();
            }
            continue;
        }
        rwf_buf fl_data = rwf_buf_make(out, len);
        rwf_map_dec map;
        rwf_map_entry me;
        rwf_set_db sets;
        static rwf_set_entry pool[16 * 255];
        int more = 1;
        if (m->domain == RWF_DMT_MARKET_BY_ORDER) {
            if (rwf_map_dec_init(&map, fl_data) < 0 ||
                (m->sets &&
                 rwf_set_db_decode(&sets, RWF_DT_FIELD_LIST, map.hdr.set_defs, pool, 16 * 255) < 0))
                abort();
            more = rwf_map_next(&map, &me) == RWF_OK;
            fl_data = me.data;
        }
        while (more) {
            rwf_fl_dec fl;
            rwf_field f;
            int r;
            if (fl_data.len) {
                if (rwf_fl_dec_init(&fl, fl_data, m->sets ? &sets : NULL) < 0)
                    abort();
                while ((r = rwf_fl_next(&fl, &f)) == RWF_OK) {
                    rwf_value v;
                    int type = f.type ? f.type : rwf_dict_type(dict, f.fid);
                    if (!type)
                        abort();
                    r = rwf_get_value(type, f.data, &v);
                    if (r != RWF_OK && r != RWF_BLANK)
                        abort();
                }
                if (r != RWF_END)
                    abort();
            }
            if (m->domain != RWF_DMT_MARKET_BY_ORDER)
                break;
            int r2 = rwf_map_next(&map, &me);
            if (r2 != RWF_OK && r2 != RWF_END)
                abort();
            more = r2 == RWF_OK;
            fl_data = me.data;
        }
    }
}

static void check_list(const msgdata_list *l)
{
    if (!l->present)
        return;
    check_msg(&l->refresh);
    for (uint32_t i = 0; i < l->update_count; i++)
        check_msg(&l->updates[i]);
    for (uint32_t i = 0; i < l->post_count; i++)
        check_msg(&l->posts[i]);
    for (uint32_t i = 0; i < l->generic_count; i++)
        check_msg(&l->generics[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    msgdata md;
    if (msgdata_parse(&md, "fuzz.xml", (const char *)data, size, dict) < 0) {
        if (strncmp(err_msg(), "fuzz.xml", 8) != 0) {
            fprintf(stderr, "error without the file name: %s\n", err_msg());
            abort();
        }
        return 0;
    }
    check_list(&md.mp);
    check_list(&md.mbo);
    msgdata_free(&md);
    return 0;
}

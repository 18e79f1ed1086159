/*
 * bench_codec: what the RWF codec costs per message, on the messages the tools exchange.
 *
 *   bench_codec [iterations [folder]]   (default 1000000 per run; 5 runs per case, best and
 *                                         median)
 *
 * Cases, for the MsgData.xml MarketPrice refresh (73 fields) and update (23 fields):
 *   decode  - message header + every field decoded with its dictionary type, enum values
 *             looked up in the enum tables (what ConsPerf does for every message)
 *   encode  - message header + every field encoded from values (ProvPerf without templates)
 *   template- message header + pre-encoded fields copied + the latency field (ProvPerf's path)
 *   msgdata - header + msgdata_encode() of the template loaded from data/MsgData.xml
 *             (+ TIM_TRK_1): what the providers do with the project's files
 * and the time to load the dictionary files and MsgData.xml. The dictionary is the project's
 * (data/RDMFieldDictionary and data/enumtype.def), or that of the folder given: a full RDM
 * dictionary there shows what loading one costs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "msgdata.h"
#include "rwf.h"
#include "../codec/wire_examples.h"
#include "bench_util.h"

#define RUNS 5

static size_t unhex(const char *h, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int hi = -1;
    for (; *h && n < cap; h++) {
        int v = (*h >= '0' && *h <= '9')   ? *h - '0'
                : (*h >= 'A' && *h <= 'F') ? *h - 'A' + 10
                : (*h >= 'a' && *h <= 'f') ? *h - 'a' + 10
                                           : -1;
        if (v < 0)
            continue;
        if (hi < 0) {
            hi = v;
        } else {
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    return n;
}

static const rwf_dict *dict;
static volatile uint64_t sink;

/* ---- Decoding every field --------------------------------------------------------------- */

static int decode_all(const uint8_t *p, size_t n)
{
    rwf_msg m;
    rwf_fl_dec d;
    rwf_field f;
    uint64_t sum = 0;
    int r;

    if (rwf_msg_decode(&m, rwf_buf_make(p, n)) != RWF_OK)
        return -1;
    if (rwf_fl_dec_init(&d, m.payload, NULL) != RWF_OK)
        return -1;
    while ((r = rwf_fl_next(&d, &f)) == RWF_OK) {
        switch (rwf_dict_type(dict, f.fid)) {
        case RWF_DT_REAL: {
            rwf_real v;
            r = rwf_get_real(f.data, &v);
            sum += (uint64_t)v.value + v.hint;
            break;
        }
        case RWF_DT_UINT: {
            uint64_t v;
            r = rwf_get_uint(f.data, &v);
            sum += v;
            break;
        }
        case RWF_DT_INT: {
            int64_t v;
            r = rwf_get_int(f.data, &v);
            sum += (uint64_t)v;
            break;
        }
        case RWF_DT_ENUM: {
            uint16_t v;
            r = rwf_get_enum(f.data, &v);
            const rwf_enum_value *ev = rwf_dict_enum(dict, f.fid, v);
            sum += v + (ev ? ev->display.len : 0);
            break;
        }
        case RWF_DT_TIME: {
            rwf_time v;
            r = rwf_get_time(f.data, &v);
            sum += v.hour + v.minute + v.second + v.millisecond;
            break;
        }
        case RWF_DT_DATE: {
            rwf_date v;
            r = rwf_get_date(f.data, &v);
            sum += v.day + v.month + v.year;
            break;
        }
        case RWF_DT_BUFFER:
        case RWF_DT_ASCII_STRING:
        case RWF_DT_UTF8_STRING:
        case RWF_DT_RMTES_STRING:
            sum += f.data.len;
            break;
        case RWF_DT_UNKNOWN:
            return -1;
        default: {
            rwf_value v;
            r = rwf_get_value(rwf_dict_type(dict, f.fid), f.data, &v);
            sum += v.u;
            break;
        }
        }
        if (r < 0)
            return -1;
    }
    sink += sum;
    return r == RWF_END ? 0 : -1;
}

/* ---- Encoding from values ---------------------------------------------------------------- */

typedef struct field_value {
    int16_t fid;
    uint8_t type;
    uint8_t blank;
    rwf_value v;
} field_value;

typedef struct template
{
    rwf_msg hdr;
    field_value fields[128];
    int count;
    rwf_buf entries; /* the pre-encoded entries */
    uint16_t entry_count;
}
template;

static int load_template(const uint8_t *p, size_t n, template *t)
{
    rwf_fl_dec d;
    rwf_field f;
    memset(t, 0, sizeof(*t));
    if (rwf_msg_decode(&t->hdr, rwf_buf_make(p, n)) != RWF_OK ||
        rwf_fl_dec_init(&d, t->hdr.payload, NULL) != RWF_OK)
        return -1;
    t->entries = rwf_buf_make(d.pos, (size_t)(d.end - d.pos));
    t->entry_count = d.count;
    while (rwf_fl_next(&d, &f) == RWF_OK && t->count < 128) {
        field_value *fv = &t->fields[t->count++];
        fv->fid = f.fid;
        fv->type = (uint8_t)rwf_dict_type(dict, f.fid);
        fv->blank = rwf_get_value(fv->type, f.data, &fv->v) == RWF_BLANK;
    }
    t->hdr.payload = rwf_buf_make(NULL, 0);
    return 0;
}

static size_t encode_all(const template *t, uint8_t *buf, size_t cap, uint64_t stamp)
{
    rwf_enc e;
    size_t len;
    rwf_enc_init(&e, buf, cap);
    rwf_enc_msg_begin(&e, &t->hdr);
    rwf_enc_fl_begin_std(&e);
    for (int i = 0; i < t->count; i++) {
        const field_value *fv = &t->fields[i];
        if (fv->blank) {
            rwf_enc_fl_blank(&e, fv->fid);
            continue;
        }
        switch (fv->type) {
        case RWF_DT_REAL:
            rwf_enc_fl_real(&e, fv->fid, &fv->v.real);
            break;
        case RWF_DT_UINT:
            rwf_enc_fl_uint(&e, fv->fid, fv->v.u);
            break;
        case RWF_DT_INT:
            rwf_enc_fl_int(&e, fv->fid, fv->v.i);
            break;
        case RWF_DT_ENUM:
            rwf_enc_fl_enum(&e, fv->fid, fv->v.enm);
            break;
        case RWF_DT_TIME:
            rwf_enc_fl_time(&e, fv->fid, &fv->v.time);
            break;
        case RWF_DT_DATE:
            rwf_enc_fl_date(&e, fv->fid, &fv->v.date);
            break;
        default:
            rwf_enc_fl_buf(&e, fv->fid, fv->type, fv->v.buf);
            break;
        }
    }
    if (stamp)
        rwf_enc_fl_uint(&e, 3902, stamp);
    rwf_enc_fl_end(&e);
    rwf_enc_msg_end(&e);
    return rwf_enc_finish(&e, &len) == RWF_OK ? len : 0;
}

static size_t encode_template(const template *t, uint8_t *buf, size_t cap, uint64_t stamp)
{
    rwf_enc e;
    size_t len;
    rwf_enc_init(&e, buf, cap);
    rwf_enc_msg_begin(&e, &t->hdr);
    rwf_enc_fl_begin_std(&e);
    rwf_enc_fl_append(&e, t->entries, t->entry_count);
    if (stamp)
        rwf_enc_fl_uint(&e, 3902, stamp);
    rwf_enc_fl_end(&e);
    rwf_enc_msg_end(&e);
    return rwf_enc_finish(&e, &len) == RWF_OK ? len : 0;
}

static const msgdata_msg *md_update, *md_refresh;

static size_t encode_msgdata(const template *t, const msgdata_msg *m, int kind, uint8_t *buf,
                             size_t cap, uint64_t stamp)
{
    rwf_enc e;
    size_t len;
    rwf_enc_init(&e, buf, cap);
    rwf_enc_msg_begin(&e, &t->hdr);
    msgdata_encode(&e, m, kind, stamp ? &stamp : NULL);
    rwf_enc_msg_end(&e);
    return rwf_enc_finish(&e, &len) == RWF_OK ? len : 0;
}

/* ---- Runner ------------------------------------------------------------------------------ */

enum { DECODE, ENCODE, TEMPLATE, TEMPLATE_STAMP, MSGDATA, MSGDATA_STAMP };

static void run(const char *what, int kind, const uint8_t *msg, size_t n, const template *t,
                long iters)
{
    double ns[RUNS];
    uint8_t out[2048];
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_mono_ns();
        for (long i = 0; i < iters; i++) {
            size_t len = 0;
            switch (kind) {
            case DECODE:
                if (decode_all(msg, n) < 0) {
                    fprintf(stderr, "bench_codec: decode failed: %s\n", err_msg());
                    exit(1);
                }
                break;
            case ENCODE:
                len = encode_all(t, out, sizeof(out), 0);
                break;
            case TEMPLATE:
                len = encode_template(t, out, sizeof(out), 0);
                break;
            case TEMPLATE_STAMP:
                len = encode_template(t, out, sizeof(out), 1700000000000000ULL + (uint64_t)i);
                break;
            case MSGDATA:
                len = encode_msgdata(t, md_refresh, MSGDATA_REFRESH, out, sizeof(out), 0);
                break;
            case MSGDATA_STAMP:
                len = encode_msgdata(t, md_update, MSGDATA_UPDATE, out, sizeof(out),
                                     1700000000000000ULL + (uint64_t)i);
                break;
            }
            if (kind != DECODE && !len) {
                fprintf(stderr, "bench_codec: encode failed: %s\n", err_msg());
                exit(1);
            }
            sink += len;
        }
        ns[r] = (bench_mono_ns() - t0) / (double)iters;
    }
    qsort(ns, RUNS, sizeof(double), bench_cmp_double);
    printf("  %-44s %7.1f ns/msg  (best of %d; median %.1f; %.2f M msg/s)\n", what, ns[0], RUNS,
           ns[RUNS / 2], 1e3 / ns[0]);
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 1000000;
    const char *folder = argc > 2 ? argv[2] : RWFPERF_SOURCE_DIR "/data";
    char fpath[4096], epath[4096];
    snprintf(fpath, sizeof(fpath), "%s/RDMFieldDictionary", folder);
    snprintf(epath, sizeof(epath), "%s/enumtype.def", folder);

    double best_f = 1e18, best_e = 1e18;
    rwf_dict *d = NULL;
    for (int r = 0; r < RUNS; r++) {
        rwf_dict_free(d);
        d = rwf_dict_new();
        double t0 = bench_mono_ns();
        if (rwf_dict_load_fields(d, fpath) != RWF_OK) {
            fprintf(stderr, "bench_codec: %s\n", err_msg());
            return 2;
        }
        double t1 = bench_mono_ns();
        if (rwf_dict_load_enums(d, epath) != RWF_OK) {
            fprintf(stderr, "bench_codec: %s\n", err_msg());
            return 2;
        }
        double t2 = bench_mono_ns();
        best_f = t1 - t0 < best_f ? t1 - t0 : best_f;
        best_e = t2 - t1 < best_e ? t2 - t1 : best_e;
    }
    dict = d;
    printf("bench_codec: %ld messages per run, %d runs per case\n", iters, RUNS);
    printf("  dictionary load: RDMFieldDictionary (%u fields) %.1f ms, enumtype.def (%u tables) "
           "%.1f ms (best of %d)\n",
           d->field_count, best_f / 1e6, d->table_count, best_e / 1e6, RUNS);

    static uint8_t refresh[1024], update[1024];
    size_t rn = unhex(EX_MP_REFRESH_FULL, refresh, sizeof(refresh));
    size_t un = unhex(EX_MP_UPDATE1, update, sizeof(update));
    static template rt, ut;
    if (load_template(refresh, rn, &rt) < 0 || load_template(update, un, &ut) < 0) {
        fprintf(stderr, "bench_codec: %s\n", err_msg());
        return 1;
    }
    /* The project's MsgData.xml, loaded and checked against the same messages. */
    msgdata md;
    double best_md = 1e18;
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_mono_ns();
        if (msgdata_load(&md, RWFPERF_SOURCE_DIR "/data/MsgData.xml", d) < 0) {
            fprintf(stderr, "bench_codec: %s\n", err_msg());
            return 1;
        }
        double t1 = bench_mono_ns();
        best_md = t1 - t0 < best_md ? t1 - t0 : best_md;
        if (r < RUNS - 1)
            msgdata_free(&md);
    }
    printf("  MsgData.xml load and encode: %.2f ms (best of %d)\n", best_md / 1e6, RUNS);
    md_refresh = &md.mp.refresh;
    md_update = &md.mp.updates[0];

    /* the encoders reproduce the messages */
    uint8_t out[2048];
    if (encode_all(&rt, out, sizeof(out), 0) != rn || memcmp(out, refresh, rn) != 0 ||
        encode_all(&ut, out, sizeof(out), 0) != un || memcmp(out, update, un) != 0 ||
        encode_msgdata(&rt, md_refresh, MSGDATA_REFRESH, out, sizeof(out), 0) != rn ||
        memcmp(out, refresh, rn) != 0 ||
        encode_msgdata(&ut, md_update, MSGDATA_UPDATE, out, sizeof(out), 0) != un ||
        memcmp(out, update, un) != 0) {
        fprintf(stderr, "bench_codec: re-encoding does not reproduce the messages\n");
        return 1;
    }

    printf("MarketPrice update (%d fields, %zu bytes):\n", ut.count, un);
    run("decode, all fields with dictionary types", DECODE, update, un, &ut, iters);
    run("encode from values", ENCODE, update, un, &ut, iters);
    run("encode from template + TIM_TRK_1", TEMPLATE_STAMP, update, un, &ut, iters);
    run("msgdata_encode + TIM_TRK_1", MSGDATA_STAMP, update, un, &ut, iters);
    printf("MarketPrice refresh (%d fields, %zu bytes):\n", rt.count, rn);
    run("decode, all fields with dictionary types", DECODE, refresh, rn, &rt, iters / 3);
    run("encode from values", ENCODE, refresh, rn, &rt, iters / 3);
    run("encode from template", TEMPLATE, refresh, rn, &rt, iters / 3);
    run("msgdata_encode (+ blank TIM_TRK_1..3)", MSGDATA, refresh, rn, &rt, iters / 3);
    msgdata_free(&md);
    rwf_dict_free(d);
    return 0;
}

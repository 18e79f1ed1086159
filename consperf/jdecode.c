/* ConsPerf's native JSON reading: see jdecode.h. */
#include "jdecode.h"

#include "err.h"
#include "rjs_names.h"

#include <arpa/inet.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <string.h>

void cons_jreader_init(cons_jreader *r, const char *text, size_t len)
{
    memset(r, 0, sizeof(*r));
    r->lx.base = r->lx.p = text;
    r->lx.end = text + len;
    rjs_ws(&r->lx);
    r->array = r->lx.p < r->lx.end && *r->lx.p == '[';
}

/* An integer value (no fraction or exponent) into *v. */
static int read_int(rjs_lex *lx, const char *key, int64_t *v)
{
    const char *at = lx->p, *s;
    size_t n;
    if (rjs_kind(lx) != RJS_V_NUM)
        return rjs_lex_err(lx, at, "\"%s\" is %s, not a number", key, rjs_kind_name(rjs_kind(lx)));
    if (rjs_number(lx, &s, &n) < 0)
        return -1;
    size_t i = s[0] == '-';
    int64_t x = 0;
    if (i == n)
        return rjs_lex_err(lx, at, "\"%s\" is not an integer", key);
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || x > (INT64_MAX - 9) / 10)
            return rjs_lex_err(lx, at, "\"%s\" is not an integer of 63 bits", key);
        x = x * 10 + (s[i] - '0');
    }
    *v = s[0] == '-' ? -x : x;
    return 0;
}

/* A string value naming an entry of table t (or, for domains, a number). */
static int read_name(rjs_lex *lx, const rjs_names *t, const char *key, int *v)
{
    const char *at = lx->p;
    if (rjs_kind(lx) == RJS_V_NUM) {
        int64_t x;
        if (read_int(lx, key, &x) < 0)
            return -1;
        *v = (int)x;
        return 0;
    }
    rjs_str s;
    if (rjs_kind(lx) != RJS_V_STR)
        return rjs_lex_err(lx, at, "\"%s\" is %s, not a string", key, rjs_kind_name(rjs_kind(lx)));
    if (rjs_string(lx, &s) < 0)
        return -1;
    *v = s.esc ? -1 : rjs_value(t, s.s, s.len);
    if (*v < 0)
        return rjs_lex_err(lx, at, "\"%s\": unknown %s \"%.*s\"", key, t->what,
                           (int)(s.len > 40 ? 40 : s.len), s.s);
    return 0;
}

static int read_state(rjs_lex *lx, rwf_state *st)
{
    rjs_str k;
    int rc = rjs_obj_begin(lx), v;
    while (rc > 0) {
        if (rjs_obj_key(lx, &k) < 0)
            return -1;
        if (RJS_STR_IS(&k, "Stream")) {
            if (read_name(lx, &rjs_stream_states, "Stream", &v) < 0)
                return -1;
            st->stream_state = (uint8_t)v;
        } else if (RJS_STR_IS(&k, "Data")) {
            if (read_name(lx, &rjs_data_states, "Data", &v) < 0)
                return -1;
            st->data_state = (uint8_t)v;
        } else if (RJS_STR_IS(&k, "Code")) {
            if (read_name(lx, &rjs_state_codes, "Code", &v) < 0)
                return -1;
            st->code = (uint8_t)v;
        } else if (RJS_STR_IS(&k, "Text") && rjs_kind(lx) == RJS_V_STR) {
            rjs_str t;
            if (rjs_string(lx, &t) < 0)
                return -1;
            st->text = rwf_buf_make(t.s, t.len);
        } else if (rjs_skip(lx) < 0) {
            return -1;
        }
        rc = rjs_obj_next(lx);
    }
    return rc;
}

static int read_post_user(rjs_lex *lx, cons_jmsg *m)
{
    rjs_str k;
    int rc = rjs_obj_begin(lx);
    while (rc > 0) {
        if (rjs_obj_key(lx, &k) < 0)
            return -1;
        if (RJS_STR_IS(&k, "Address") && rjs_kind(lx) == RJS_V_STR) {
            const char *at = lx->p;
            rjs_str a;
            char ip[64];
            struct in_addr in;
            if (rjs_string(lx, &a) < 0)
                return -1;
            snprintf(ip, sizeof(ip), "%.*s", (int)(a.len > 60 ? 60 : a.len), a.s);
            if (inet_pton(AF_INET, ip, &in) != 1)
                return rjs_lex_err(lx, at, "\"Address\" \"%s\" is not an IPv4 address", ip);
            m->post_user_addr = ntohl(in.s_addr);
        } else if (RJS_STR_IS(&k, "UserID")) {
            int64_t v;
            if (read_int(lx, "UserID", &v) < 0)
                return -1;
            m->post_user_id = (uint32_t)v;
        } else if (rjs_skip(lx) < 0) {
            return -1;
        }
        rc = rjs_obj_next(lx);
    }
    m->has_post_user = true;
    return rc;
}

/* "TIM_TRK_n" with n in 1..3: its index, else -1. */
static inline int stamp_index(const rjs_str *k)
{
    if (k->len != 9 || k->esc || memcmp(k->s, "TIM_TRK_", 8) != 0)
        return -1;
    int i = k->s[8] - '1';
    return i >= 0 && i < 3 ? i : -1;
}

static inline const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

static inline bool is_digit(char c)
{
    return (unsigned)(c - '0') < 10;
}

/* The end of the JSON number at p (its grammar checked), or NULL when there is none. */
static inline const char *number_end(const char *p, const char *end)
{
    if (p < end && *p == '-')
        p++;
    if (p >= end || !is_digit(*p))
        return NULL;
    if (*p == '0')
        p++;
    else
        while (p < end && is_digit(*p))
            p++;
    if (p < end && *p == '.') {
        if (++p >= end || !is_digit(*p))
            return NULL;
        while (p < end && is_digit(*p))
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        if (++p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || !is_digit(*p))
            return NULL;
        while (p < end && is_digit(*p))
            p++;
    }
    return p;
}

/* The end of the string whose contents start at p (after its '"'), past the closing quote, or
 * NULL when it holds an escape or a control byte or is not terminated. */
static inline const char *plain_string_end(const char *p, const char *end)
{
    p = rjs_plain_run(p, end);
    return p < end && *p == '"' ? p + 1 : NULL;
}

#ifdef __SSE2__
/* The quotes (*q) and the bytes a plain string may not hold (*sp: backslash, control bytes)
 * among p[0..32), one bit per byte. */
static inline void masks32(const char *p, uint64_t *q, uint64_t *sp)
{
    const __m128i qq = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), c = _mm_set1_epi8(0x1F);
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    *q = (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, qq)) |
         (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, qq)) << 16;
    __m128i sa = _mm_or_si128(_mm_cmpeq_epi8(a, bs), _mm_cmpeq_epi8(_mm_max_epu8(a, c), c));
    __m128i sb = _mm_or_si128(_mm_cmpeq_epi8(b, bs), _mm_cmpeq_epi8(_mm_max_epu8(b, c), c));
    *sp = (uint64_t)(uint32_t)_mm_movemask_epi8(sa) | (uint64_t)(uint32_t)_mm_movemask_epi8(sb)
                                                          << 16;
}
#endif

/* The fast reading of a "Fields" object at p ('{'), what read_fields does for the usual text:
 * keys without escapes, values that are numbers, strings without escapes, or null, no syntax
 * error. Returns the end of the object and updates *st and *blank; NULL when the object holds
 * anything else (then *st and *blank may have changed: the caller reads it again from the
 * start with read_fields, which says what is wrong). Walks the text once, nothing else. */
static const char *fast_fields(const char *p, const char *end, payload_stamps *st, bool *blank)
{
    p = skip_ws(p + 1, end);
    if (p < end && *p == '}')
        return p + 1;
    for (;;) {
        if (p >= end || *p != '"')
            return NULL;
        const char *key = p + 1, *v = NULL, *ve = NULL;
#ifdef __SSE2__
        /* The usual field, "KEY":"VALUE" or "KEY":number, from the quotes of 32 bytes at once:
         * the key's end, and a string value's end when it lies there too. */
        if (end - p >= 32) {
            uint64_t q, sp;
            masks32(p, &q, &sp);
            uint64_t kq = q & ~1ull;
            if (kq) {
                unsigned kc = (unsigned)__builtin_ctzll(kq);
                if (sp & ((1ull << kc) - 1))
                    return NULL; /* an escape or a control byte in the key */
                v = p + kc + 1;
                if (kc + 2 < 32 && v[0] == ':' && v[1] == '"' && (q >> (kc + 3))) {
                    unsigned n = (unsigned)__builtin_ctzll(q >> (kc + 3));
                    if ((sp >> (kc + 3)) & ((1ull << n) - 1))
                        return NULL; /* ... or in the value */
                    ve = v + 2 + n + 1;
                }
            }
        }
#endif
        if (!v && !(v = plain_string_end(key, end)))
            return NULL;
        size_t klen = (size_t)(v - 1 - key);
        if (ve) {
            st->sum += (size_t)(ve - v - 3);
            p = ve;
            goto next;
        }
        v = skip_ws(v, end);
        if (v >= end || *v != ':')
            return NULL;
        v = skip_ws(v + 1, end);
        if (v >= end)
            return NULL;
        if (*v == '"') {
            if (!(p = plain_string_end(v + 1, end)))
                return NULL;
            st->sum += (size_t)(p - v - 2);
        } else if (*v == 'n') {
            if (end - v < 4 || memcmp(v, "null", 4) != 0)
                return NULL;
            p = v + 4;
            *blank = true;
        } else {
            if (!(p = number_end(v, end)))
                return NULL;
            st->sum += (size_t)(p - v);
            if (klen == 9 && memcmp(key, "TIM_TRK_", 8) == 0 && (unsigned)(key[8] - '1') < 3 &&
                !*blank) {
                uint64_t x = 0;
                for (const char *d = v; d < p && is_digit(*d); d++)
                    x = x * 10 + (uint64_t)(*d - '0');
                st->t[key[8] - '1'] = x;
            }
        }
    next:
        p = skip_ws(p, end);
        if (p >= end)
            return NULL;
        if (*p == '}')
            return p + 1;
        if (*p != ',')
            return NULL;
        p = skip_ws(p + 1, end);
    }
}

/* The members of a "Fields" object: numbers and strings are values, null a blank; stamps are
 * taken while no blank was seen. */
static int read_fields(rjs_lex *lx, cons_jmsg *m, bool *blank)
{
    payload_stamps st = m->st;
    bool b = *blank;
    const char *e = fast_fields(lx->p, lx->end, &st, &b);
    if (e) {
        m->st = st;
        *blank = b;
        lx->p = e;
        return 0;
    }
    rjs_str k;
    int rc = rjs_obj_begin(lx);
    while (rc > 0) {
        if (rjs_obj_key(lx, &k) < 0)
            return -1;
        const char *at = lx->p, *s;
        size_t n;
        switch (rjs_kind(lx)) {
        case RJS_V_NUM: {
            if (rjs_number(lx, &s, &n) < 0)
                return -1;
            m->st.sum += n;
            int i = stamp_index(&k);
            if (i >= 0 && !*blank) {
                uint64_t v = 0;
                for (size_t j = 0; j < n && s[j] >= '0' && s[j] <= '9'; j++)
                    v = v * 10 + (uint64_t)(s[j] - '0');
                m->st.t[i] = v;
            }
            break;
        }
        case RJS_V_STR: {
            rjs_str v;
            if (rjs_string(lx, &v) < 0)
                return -1;
            m->st.sum += v.len;
            break;
        }
        case RJS_V_NULL:
            if (rjs_literal(lx, RJS_V_NULL) < 0)
                return -1;
            *blank = true;
            break;
        default:
            return rjs_lex_err(lx, at, "Unhandled JSON data type (%s) in JSON field %.*s",
                               rjs_kind_name(rjs_kind(lx)), (int)(k.len > 60 ? 60 : k.len), k.s);
        }
        rc = rjs_obj_next(lx);
    }
    return rc;
}

/* A MarketByOrder "Map": the stamps are in its "Summary" "Fields". */
static int read_map(rjs_lex *lx, cons_jmsg *m, bool *blank)
{
    rjs_str k;
    int rc = rjs_obj_begin(lx);
    while (rc > 0) {
        if (rjs_obj_key(lx, &k) < 0)
            return -1;
        if (RJS_STR_IS(&k, "Summary") && rjs_kind(lx) == RJS_V_OBJ) {
            rjs_str k2;
            int r2 = rjs_obj_begin(lx);
            while (r2 > 0) {
                if (rjs_obj_key(lx, &k2) < 0)
                    return -1;
                if (RJS_STR_IS(&k2, "Fields") && rjs_kind(lx) == RJS_V_OBJ) {
                    if (read_fields(lx, m, blank) < 0)
                        return -1;
                } else if (rjs_skip(lx) < 0) {
                    return -1;
                }
                r2 = rjs_obj_next(lx);
            }
            if (r2 < 0)
                return -1;
        } else if (rjs_skip(lx) < 0) {
            return -1;
        }
        rc = rjs_obj_next(lx);
    }
    return rc;
}

/* The "Type" value: a message class, or Ping, Pong, Error. */
static int read_type(rjs_lex *lx, cons_jmsg *m)
{
    const char *at = lx->p;
    rjs_str s;
    if (rjs_kind(lx) != RJS_V_STR)
        return rjs_lex_err(lx, at, "\"Type\" is %s, not a string", rjs_kind_name(rjs_kind(lx)));
    if (rjs_string(lx, &s) < 0)
        return -1;
    if (RJS_STR_IS(&s, "Ping"))
        m->kind = CONS_JMSG_PING;
    else if (RJS_STR_IS(&s, "Pong"))
        m->kind = CONS_JMSG_PONG;
    else if (RJS_STR_IS(&s, "Error"))
        m->kind = CONS_JMSG_ERROR;
    else if ((m->kind = s.esc ? -1 : rjs_value(&rjs_msg_classes, s.s, s.len)) < 0)
        return rjs_lex_err(lx, at, "\"Type\": unknown message type \"%.*s\"",
                           (int)(s.len > 40 ? 40 : s.len), s.s);
    return 0;
}

/* One member of a message object. */
static int read_member(rjs_lex *lx, const rjs_str *k, cons_jmsg *m, bool *blank)
{
    int64_t v;
    int d;
    if (RJS_STR_IS(k, "ID")) {
        if (read_int(lx, "ID", &v) < 0)
            return -1;
        m->stream_id = (int32_t)v;
    } else if (RJS_STR_IS(k, "Type")) {
        return read_type(lx, m);
    } else if (RJS_STR_IS(k, "Domain")) {
        if (read_name(lx, &rjs_domains, "Domain", &d) < 0)
            return -1;
        m->domain = (uint8_t)d;
    } else if (RJS_STR_IS(k, "State") && rjs_kind(lx) == RJS_V_OBJ) {
        m->has_state = true;
        return read_state(lx, &m->state);
    } else if (RJS_STR_IS(k, "Complete")) {
        int kind = rjs_kind(lx);
        if (kind != RJS_V_TRUE && kind != RJS_V_FALSE)
            return rjs_lex_err(lx, lx->p, "\"Complete\" is %s, not a boolean", rjs_kind_name(kind));
        m->complete = kind == RJS_V_TRUE;
        return rjs_literal(lx, kind);
    } else if (RJS_STR_IS(k, "Fields") && rjs_kind(lx) == RJS_V_OBJ) {
        return read_fields(lx, m, blank);
    } else if (RJS_STR_IS(k, "Map") && rjs_kind(lx) == RJS_V_OBJ) {
        return read_map(lx, m, blank);
    } else if (RJS_STR_IS(k, "PostUserInfo") && rjs_kind(lx) == RJS_V_OBJ) {
        return read_post_user(lx, m);
    } else {
        return rjs_skip(lx);
    }
    return 0;
}

/* 1 when the key k[0..n) is the literal lit. */
#define KEY_IS(k, n, lit) ((n) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

/* The fast reading of the value of member k[0..n) at v (after the ':' and white space) of a
 * message: "ID" (an integer of at most 18 digits), "Type" (a message class), "Domain" (a
 * name), "Fields" (fast_fields), and the members read_member skips whose value is a string
 * without escapes, a number or a literal. Returns the end of the value, or NULL for anything
 * else (the members read_member reads otherwise, pings, errors, unusual text). */
static const char *fast_member(const char *k, size_t n, const char *v, const char *end,
                               cons_jmsg *m, bool *blank)
{
    if (KEY_IS(k, n, "Fields"))
        return *v == '{' ? fast_fields(v, end, &m->st, blank) : NULL;
    if (KEY_IS(k, n, "ID")) {
        const char *d = v + (*v == '-'), *e = d;
        uint64_t x = 0;
        while (e < end && is_digit(*e) && e - d < 18)
            x = x * 10 + (uint64_t)(*e++ - '0');
        if (e == d || (*d == '0' && e - d > 1) ||
            (e < end && (is_digit(*e) || *e == '.' || *e == 'e' || *e == 'E')))
            return NULL;
        m->stream_id = (int32_t)(*v == '-' ? -(int64_t)x : (int64_t)x);
        return e;
    }
    bool type = KEY_IS(k, n, "Type"), domain = !type && KEY_IS(k, n, "Domain");
    if (type || domain) {
        const char *e = *v == '"' ? plain_string_end(v + 1, end) : NULL;
        int x =
            e ? rjs_value(type ? &rjs_msg_classes : &rjs_domains, v + 1, (size_t)(e - v - 2)) : -1;
        if (x < 0)
            return NULL; /* pings, errors, unknown names: the full path */
        if (type)
            m->kind = x;
        else
            m->domain = (uint8_t)x;
        return e;
    }
    if (KEY_IS(k, n, "State") || KEY_IS(k, n, "Complete") || KEY_IS(k, n, "Map") ||
        KEY_IS(k, n, "PostUserInfo"))
        return NULL;
    if (*v == '"')
        return plain_string_end(v + 1, end);
    if (*v == 't' || *v == 'f' || *v == 'n') {
        const char *lit = *v == 't' ? "true" : *v == 'f' ? "false" : "null";
        size_t ln = strlen(lit);
        return (size_t)(end - v) >= ln && memcmp(v, lit, ln) == 0 ? v + ln : NULL;
    }
    return number_end(v, end);
}

/* The fast reading of a message object at p ('{'): its members by fast_member. Returns the
 * end of the object, or NULL when the full path must read it (*m may have changed). */
static const char *fast_object(const char *p, const char *end, cons_jmsg *m)
{
    bool blank = false;
    p = skip_ws(p + 1, end);
    if (p < end && *p == '}')
        return p + 1;
    for (;;) {
        if (p >= end || *p != '"')
            return NULL;
        const char *key = p + 1, *v = plain_string_end(key, end);
        if (!v)
            return NULL;
        size_t klen = (size_t)(v - 1 - key);
        v = skip_ws(v, end);
        if (v >= end || *v != ':')
            return NULL;
        v = skip_ws(v + 1, end);
        if (v >= end || !(p = fast_member(key, klen, v, end, m, &blank)))
            return NULL;
        p = skip_ws(p, end);
        if (p >= end)
            return NULL;
        if (*p == '}')
            return p + 1;
        if (*p != ',')
            return NULL;
        p = skip_ws(p + 1, end);
    }
}

/* A message's defaults: a MarketPrice request, complete. */
static void msg_defaults(cons_jmsg *m)
{
    memset(m, 0, sizeof(*m));
    m->kind = RWF_MC_REQUEST;
    m->domain = RWF_DMT_MARKET_PRICE;
    m->complete = true;
}

static int read_object(cons_jreader *r, cons_jmsg *m)
{
    rjs_lex *lx = &r->lx;
    msg_defaults(m);
    int kind = rjs_kind(lx);
    if (kind != RJS_V_OBJ)
        return rjs_lex_err(lx, lx->p, "the message is %s, not an object", rjs_kind_name(kind));
    m->text = lx->p;
    const char *e = fast_object(lx->p, lx->end, m);
    if (e) {
        lx->p = e;
        m->text_len = (size_t)(e - m->text);
        return 0;
    }
    msg_defaults(m); /* the full path reads it again */
    m->text = lx->p;
    bool blank = false;
    rjs_str k;
    int rc = rjs_obj_begin(lx);
    while (rc > 0) {
        if (rjs_obj_key(lx, &k) < 0 || read_member(lx, &k, m, &blank) < 0)
            return -1;
        rc = rjs_obj_next(lx);
    }
    if (rc < 0)
        return -1;
    m->text_len = (size_t)(lx->p - m->text);
    return 0;
}

int cons_jreader_next(cons_jreader *r, cons_jmsg *m)
{
    if (r->done)
        return 0;
    rjs_lex *lx = &r->lx;
    int rc = 1;
    if (r->array)
        rc = r->index == 0 ? rjs_arr_begin(lx) : rjs_arr_next(lx);
    else if (r->index > 0)
        rc = 0;
    if (rc == 0) {
        r->done = true;
        rjs_ws(lx);
        if (lx->p != lx->end) {
            rjs_lex_err(lx, lx->p, "text after the end of the frame's JSON");
            goto fail;
        }
        return 0;
    }
    if (rc < 0 || read_object(r, m) < 0)
        goto fail;
    r->index++;
    return 1;
fail:
    r->done = true;
    err_push("JSON message %u", r->index + 1);
    return -1;
}

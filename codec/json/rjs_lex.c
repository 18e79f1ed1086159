/*
 * rjs_lex: the JSON tokenizer (see rjs_lex.h).
 */
#include "rjs_lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

int rjs_lex_err(const rjs_lex *lx, const char *at, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    err_set("offset %zu: %s", (size_t)(at - lx->base), what);
    return RWF_E_MALFORMED;
}

int rjs_kind(rjs_lex *lx)
{
    rjs_ws(lx);
    if (lx->p >= lx->end)
        return RJS_V_BAD;
    switch (*lx->p) {
    case '"':
        return RJS_V_STR;
    case '{':
        return RJS_V_OBJ;
    case '[':
        return RJS_V_ARR;
    case 't':
        return RJS_V_TRUE;
    case 'f':
        return RJS_V_FALSE;
    case 'n':
        return RJS_V_NULL;
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
        return RJS_V_NUM;
    }
    return RJS_V_BAD;
}

const char *rjs_kind_name(int kind)
{
    static const char *const names[] = {"no value", "a string", "a number", "an object",
                                        "an array", "true",     "false",    "null"};
    return kind >= 0 && kind <= RJS_V_NULL ? names[kind] : "?";
}

/* What stands at the current position, for error text. */
static const char *found(rjs_lex *lx)
{
    if (lx->p >= lx->end)
        return "the end of the text";
    int k = rjs_kind(lx);
    return k == RJS_V_BAD ? "a byte that starts no JSON value" : rjs_kind_name(k);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int rjs_string(rjs_lex *lx, rjs_str *out)
{
    rjs_ws(lx);
    const char *start = lx->p, *p = start + 1, *end = lx->end;
    if (start >= end || *start != '"')
        return rjs_lex_err(lx, start, "expected a string, found %s", found(lx));
    uint8_t esc = 0;
    for (;;) {
        p = rjs_plain_run(p, end);
        if (p >= end)
            return rjs_lex_err(lx, start, "string not terminated");
        if (*p == '"')
            break;
        if (*p != '\\')
            return rjs_lex_err(lx, p, "control byte 0x%02x inside a string", (uint8_t)*p);
        esc = 1;
        if (++p >= end)
            return rjs_lex_err(lx, start, "string not terminated");
        switch (*p) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
            p++;
            break;
        case 'u':
            if (end - p < 5 || hexval(p[1]) < 0 || hexval(p[2]) < 0 || hexval(p[3]) < 0 ||
                hexval(p[4]) < 0)
                return rjs_lex_err(lx, p - 1, "bad \\u escape");
            p += 5;
            break;
        default:
            return rjs_lex_err(lx, p - 1, "bad escape \\%c", *p);
        }
    }
    out->s = start + 1;
    out->len = (uint32_t)(p - start - 1);
    out->esc = esc;
    lx->p = p + 1;
    return RWF_OK;
}

int rjs_number(rjs_lex *lx, const char **s, size_t *len)
{
    rjs_ws(lx);
    const char *start = lx->p, *p = start, *end = lx->end;
    if (p < end && *p == '-')
        p++;
    if (p >= end || *p < '0' || *p > '9')
        return p > start ? rjs_lex_err(lx, start, "'-' without digits")
                         : rjs_lex_err(lx, start, "expected a number, found %s", found(lx));
    if (*p == '0')
        p++;
    else
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    if (p < end && *p == '.') {
        if (++p >= end || *p < '0' || *p > '9')
            return rjs_lex_err(lx, start, "number without digits after its '.'");
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || *p < '0' || *p > '9')
            return rjs_lex_err(lx, start, "number without digits in its exponent");
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    *s = start;
    *len = (size_t)(p - start);
    lx->p = p;
    return RWF_OK;
}

int rjs_literal(rjs_lex *lx, int kind)
{
    static const char *const lit[] = {
        [RJS_V_TRUE] = "true", [RJS_V_FALSE] = "false", [RJS_V_NULL] = "null"};
    rjs_ws(lx);
    const char *t = lit[kind];
    size_t n = strlen(t);
    if ((size_t)(lx->end - lx->p) < n || memcmp(lx->p, t, n) != 0)
        return rjs_lex_err(lx, lx->p, "expected %s", t);
    lx->p += n;
    return RWF_OK;
}

static int skip_depth(rjs_lex *lx, int depth);

static int skip_object(rjs_lex *lx, int depth)
{
    rjs_str key;
    int rc = rjs_obj_begin(lx);
    while (rc > 0) {
        if ((rc = rjs_obj_key(lx, &key)) < 0 || (rc = skip_depth(lx, depth + 1)) < 0)
            return rc;
        rc = rjs_obj_next(lx);
    }
    return rc;
}

static int skip_array(rjs_lex *lx, int depth)
{
    int rc = rjs_arr_begin(lx);
    while (rc > 0) {
        if ((rc = skip_depth(lx, depth + 1)) < 0)
            return rc;
        rc = rjs_arr_next(lx);
    }
    return rc;
}

static int skip_depth(rjs_lex *lx, int depth)
{
    const char *s;
    size_t n;
    rjs_str str;
    if (depth > RJS_LEX_MAX_DEPTH)
        return rjs_lex_err(lx, lx->p, "values nested deeper than %d", RJS_LEX_MAX_DEPTH);
    int k = rjs_kind(lx);
    switch (k) {
    case RJS_V_STR:
        return rjs_string(lx, &str);
    case RJS_V_NUM:
        return rjs_number(lx, &s, &n);
    case RJS_V_OBJ:
        return skip_object(lx, depth);
    case RJS_V_ARR:
        return skip_array(lx, depth);
    case RJS_V_TRUE:
    case RJS_V_FALSE:
    case RJS_V_NULL:
        return rjs_literal(lx, k);
    }
    return rjs_lex_err(lx, lx->p, "expected a value, found %s", found(lx));
}

int rjs_skip(rjs_lex *lx)
{
    int rc = skip_depth(lx, 0);
    return rc < 0 ? rc : RWF_OK;
}

int rjs_obj_begin(rjs_lex *lx)
{
    rjs_ws(lx);
    if (lx->p >= lx->end || *lx->p != '{')
        return rjs_lex_err(lx, lx->p, "expected an object, found %s", found(lx));
    lx->p++;
    rjs_ws(lx);
    if (lx->p < lx->end && *lx->p == '}') {
        lx->p++;
        return 0;
    }
    return 1;
}

int rjs_obj_key(rjs_lex *lx, rjs_str *key)
{
    rjs_ws(lx);
    if (lx->p >= lx->end || *lx->p != '"')
        return rjs_lex_err(lx, lx->p, "expected a key (a string), found %s", found(lx));
    int rc = rjs_string(lx, key);
    if (rc < 0)
        return rc;
    rjs_ws(lx);
    if (lx->p >= lx->end || *lx->p != ':')
        return rjs_lex_err(lx, lx->p, "expected ':' after a key");
    lx->p++;
    return RWF_OK;
}

int rjs_obj_next(rjs_lex *lx)
{
    rjs_ws(lx);
    if (lx->p < lx->end) {
        if (*lx->p == ',') {
            lx->p++;
            return 1;
        }
        if (*lx->p == '}') {
            lx->p++;
            return 0;
        }
    }
    return rjs_lex_err(lx, lx->p, "expected ',' or '}' in an object");
}

int rjs_arr_begin(rjs_lex *lx)
{
    rjs_ws(lx);
    if (lx->p >= lx->end || *lx->p != '[')
        return rjs_lex_err(lx, lx->p, "expected an array, found %s", found(lx));
    lx->p++;
    rjs_ws(lx);
    if (lx->p < lx->end && *lx->p == ']') {
        lx->p++;
        return 0;
    }
    return 1;
}

int rjs_arr_next(rjs_lex *lx)
{
    rjs_ws(lx);
    if (lx->p < lx->end) {
        if (*lx->p == ',') {
            lx->p++;
            return 1;
        }
        if (*lx->p == ']') {
            lx->p++;
            return 0;
        }
    }
    return rjs_lex_err(lx, lx->p, "expected ',' or ']' in an array");
}

/* The code point of the \u escape at p (p at the 'u'), with a surrogate pair joined; *adv:
 * bytes consumed after the backslash. */
static uint32_t code_point(const char *p, const char *end, size_t *adv)
{
    uint32_t c =
        (uint32_t)(hexval(p[1]) << 12 | hexval(p[2]) << 8 | hexval(p[3]) << 4 | hexval(p[4]));
    *adv = 5;
    if (c >= 0xD800 && c < 0xDC00 && end - p >= 11 && p[5] == '\\' && p[6] == 'u') {
        int h1 = hexval(p[7]), h2 = hexval(p[8]), h3 = hexval(p[9]), h4 = hexval(p[10]);
        if (h1 >= 0 && h2 >= 0 && h3 >= 0 && h4 >= 0) {
            uint32_t lo = (uint32_t)(h1 << 12 | h2 << 8 | h3 << 4 | h4);
            if (lo >= 0xDC00 && lo < 0xE000) {
                *adv = 11;
                return 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
            }
        }
    }
    if (c >= 0xD800 && c < 0xE000) /* lone surrogate */
        c = 0xFFFD;
    return c;
}

static size_t utf8_len(uint32_t c)
{
    return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

static char *put_utf8(char *o, uint32_t c)
{
    if (c < 0x80) {
        *o++ = (char)c;
    } else if (c < 0x800) {
        *o++ = (char)(0xC0 | c >> 6);
        *o++ = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        *o++ = (char)(0xE0 | c >> 12);
        *o++ = (char)(0x80 | ((c >> 6) & 0x3F));
        *o++ = (char)(0x80 | (c & 0x3F));
    } else {
        *o++ = (char)(0xF0 | c >> 18);
        *o++ = (char)(0x80 | ((c >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((c >> 6) & 0x3F));
        *o++ = (char)(0x80 | (c & 0x3F));
    }
    return o;
}

size_t rjs_unescaped_len(const rjs_str *s)
{
    if (!s->esc)
        return s->len;
    const char *p = s->s, *end = p + s->len;
    size_t n = 0, adv;
    while (p < end) {
        if (*p != '\\') {
            p++;
            n++;
        } else if (p[1] == 'u') {
            n += utf8_len(code_point(p + 1, end, &adv));
            p += 1 + adv;
        } else {
            p += 2;
            n++;
        }
    }
    return n;
}

char *rjs_unescape(const rjs_str *s, char *out)
{
    const char *p = s->s, *end = p + s->len;
    size_t adv;
    if (!s->esc) {
        memcpy(out, p, s->len);
        return out + s->len;
    }
    while (p < end) {
        if (*p != '\\') {
            *out++ = *p++;
            continue;
        }
        switch (p[1]) {
        case 'b':
            *out++ = '\b';
            break;
        case 'f':
            *out++ = '\f';
            break;
        case 'n':
            *out++ = '\n';
            break;
        case 'r':
            *out++ = '\r';
            break;
        case 't':
            *out++ = '\t';
            break;
        case 'u':
            out = put_utf8(out, code_point(p + 1, end, &adv));
            p += 1 + adv;
            continue;
        default: /* " \ / */
            *out++ = p[1];
        }
        p += 2;
    }
    return out;
}

int rjs_json_check(const char *text, size_t len)
{
    rjs_lex lx = {text, text, text + len};
    int rc = rjs_skip(&lx);
    if (rc < 0)
        return rc;
    rjs_ws(&lx);
    if (lx.p != lx.end)
        return rjs_lex_err(&lx, lx.p, "text after the JSON value");
    return RWF_OK;
}

/*
 * rwf_text_time: date, time and date-time text in the forms MsgData.xml and the summaries use.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "err.h"
#include "rwf_text.h"
#include "rwf_text_int.h"

/* ---- Text: dates and times --------------------------------------------------------------- */

static const char *const month_names[12] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                            "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};

static int month_from_name(const char *p, const char *end)
{
    if (end - p < 3)
        return 0;
    for (int i = 0; i < 12; i++)
        if (strncasecmp(p, month_names[i], 3) == 0)
            return i + 1;
    return 0;
}

/* Copies [s, s+len) into a NUL-terminated scratch buffer; 0 when it does not fit. */
static int scratch(char *out, size_t cap, const char *s, size_t len)
{
    if (len >= cap)
        return 0;
    memcpy(out, s, len);
    out[len] = '\0';
    return 1;
}

/* Reads up to max digits; returns the count read (0 = none) and the value in *v. */
static int take_digits(const char **pp, int max, long *v)
{
    const char *p = *pp;
    long x = 0;
    int n = 0;
    while (n < max && rwf_text_digit(*p)) {
        x = x * 10 + (*p - '0');
        p++;
        n++;
    }
    *pp = p;
    *v = x;
    return n;
}

static int set_date(rwf_date *d, long day, long month, long year, const char *s, size_t len)
{
    if (day < 0 || day > 255 || month < 0 || month > 255 || year < 0 || year > 65535)
        return rwf_text_invalid("date", s, len);
    d->day = (uint8_t)day;
    d->month = (uint8_t)month;
    d->year = (uint16_t)year;
    return RWF_OK;
}

/* Three numbers a, b, c in either order: yyyy/m/d when a > 255, else m/d/yy(yy). */
static int date_from_three(rwf_date *d, long a, long b, long c, const char *s, size_t len)
{
    if (a > 255)
        return set_date(d, c, b, a, s, len);
    if (c < 100)
        return set_date(d, b, a, c + 1900, s, len);
    return set_date(d, b, a, c, s, len);
}

int rwf_date_from_str(rwf_date *d, const char *s, size_t len)
{
    char tmp[64];
    const char *p;
    long a, b, c;
    int n;

    memset(d, 0, sizeof(*d));
    if (!scratch(tmp, sizeof(tmp), s, len))
        return rwf_text_invalid("date", s, len);
    p = tmp;
    while (*p == ' ')
        p++;
    if (*p == '\0')
        return RWF_BLANK;

    const char *start = p;
    n = take_digits(&p, 9, &a);
    if (n == 4 && *p == '\0')
        return set_date(d, 0, 0, a, s, len); /* yyyy */
    if (n == 4 && *p == '-') {               /* yyyy-mm[-dd] */
        p++;
        if (take_digits(&p, 3, &b) != 2)
            return rwf_text_invalid("date", s, len);
        if (*p == '\0')
            return set_date(d, 0, b, a, s, len);
        if (*p++ != '-' || take_digits(&p, 3, &c) != 2 || *p != '\0')
            return rwf_text_invalid("date", s, len);
        return set_date(d, c, b, a, s, len);
    }
    if (n == 8 && *p == '\0') { /* yyyymmdd */
        return set_date(d, (start[6] - '0') * 10 + (start[7] - '0'),
                        (start[4] - '0') * 10 + (start[5] - '0'),
                        ((start[0] - '0') * 10 + (start[1] - '0')) * 100 + (start[2] - '0') * 10 +
                            (start[3] - '0'),
                        s, len);
    }
    if (n == 0 && p[0] == '-' && p[1] == '-') { /* --mm-dd or --mmdd */
        p += 2;
        if (take_digits(&p, 2, &b) != 2)
            return rwf_text_invalid("date", s, len);
        if (*p == '-')
            p++;
        if (take_digits(&p, 3, &c) != 2 || *p != '\0')
            return rwf_text_invalid("date", s, len);
        return set_date(d, c, b, 0, s, len);
    }
    if (n > 0 && (*p == '/' || *p == ' ')) {
        char sep = *p;
        const char *q = p;
        while (*q == ' ')
            q++;
        if (sep == '/')
            q = p + 1;
        if (rwf_text_digit(*q)) { /* a/b/c or a b c */
            p = q;
            if (take_digits(&p, 9, &b) == 0)
                return rwf_text_invalid("date", s, len);
            if (sep == '/') {
                if (*p != '/')
                    return rwf_text_invalid("date", s, len);
                p++;
            } else {
                while (*p == ' ')
                    p++;
            }
            if (take_digits(&p, 9, &c) == 0)
                return rwf_text_invalid("date", s, len);
            while (*p == ' ')
                p++;
            if (*p != '\0')
                return rwf_text_invalid("date", s, len);
            return date_from_three(d, a, b, c, s, len);
        }
        if (sep == ' ') { /* dd MON yyyy */
            int m = month_from_name(q, tmp + len);
            if (!m)
                return rwf_text_invalid("date", s, len);
            p = q + 3;
            while (*p == ' ')
                p++;
            if (take_digits(&p, 9, &c) == 0)
                return rwf_text_invalid("date", s, len);
            while (*p == ' ')
                p++;
            if (*p != '\0')
                return rwf_text_invalid("date", s, len);
            return set_date(d, a, m, c < 100 ? c + 1900 : c, s, len);
        }
    }
    return rwf_text_invalid("date", s, len);
}

int rwf_date_to_str(const rwf_date *d, char *buf, size_t cap)
{
    int n;
    if (!d->day && !d->month && !d->year)
        n = snprintf(buf, cap, "%s", "");
    else if (d->month >= 1 && d->month <= 12)
        n = snprintf(buf, cap, "%02u %s %04u", d->day, month_names[d->month - 1], d->year);
    else
        n = snprintf(buf, cap, "%02u %02u %04u", d->day, d->month, d->year);
    if (n < 0 || (size_t)n >= cap) {
        err_set("text buffer of %zu bytes too small for a DATE", cap);
        return RWF_E_NOSPACE;
    }
    return n;
}

/* 1 when p (NUL-terminated) is the end of a time: nothing, "Z", or a UTC offset "+hh",
 * "+hhmm" or "+hh:mm" (or with '-'). The zone is checked, not applied. */
static int time_tail(const char *p)
{
    if (*p == 'Z')
        return p[1] == '\0';
    if (*p != '+' && *p != '-')
        return *p == '\0';
    p++;
    if (!rwf_text_digit(p[0]) || !rwf_text_digit(p[1]))
        return 0;
    p += 2;
    if (*p == ':')
        p++;
    else if (*p == '\0')
        return 1;
    return rwf_text_digit(p[0]) && rwf_text_digit(p[1]) && p[2] == '\0';
}

/* Sub-second digits after '.' or ',': up to 9, filling ms, us, ns from the left. */
static int time_fraction(const char *p, rwf_time *t)
{
    long part[3] = {0, 0, 0};
    for (int i = 0; i < 9 && rwf_text_digit(*p); i++, p++)
        part[i / 3] += (*p - '0') * (i % 3 == 0 ? 100 : i % 3 == 1 ? 10 : 1);
    if (!time_tail(p))
        return 0;
    t->millisecond = (uint16_t)part[0];
    t->microsecond = (uint16_t)part[1];
    t->nanosecond = (uint16_t)part[2];
    return 1;
}

static int set_time(rwf_time *t, long h, long m, long sec, long ms, long us, long ns, const char *s,
                    size_t len)
{
    if (h > 255 || m > 255 || sec > 255 || ms > 65535 || us > 2047 || ns > 2047)
        return rwf_text_invalid("time", s, len);
    t->hour = (uint8_t)h;
    t->minute = (uint8_t)m;
    t->second = (uint8_t)sec;
    t->millisecond = (uint16_t)ms;
    t->microsecond = (uint16_t)us;
    t->nanosecond = (uint16_t)ns;
    return RWF_OK;
}

int rwf_time_from_str(rwf_time *t, const char *s, size_t len)
{
    char tmp[64];
    const char *p;
    long v[6] = {0, 0, 0, 0, 0, 0};
    int n;

    memset(t, 0, sizeof(*t));
    if (!scratch(tmp, sizeof(tmp), s, len))
        return rwf_text_invalid("time", s, len);
    p = tmp;
    n = take_digits(&p, 7, &v[0]);

    if (n == 2 && *p == ':') { /* hh:mm[:ss[:mmm[:uuu[:nnn]]]] or hh:mm:ss.fffffffff */
        p++;
        if (take_digits(&p, 3, &v[1]) != 2)
            return rwf_text_invalid("time", s, len);
        if (time_tail(p))
            return set_time(t, v[0], v[1], 0, 0, 0, 0, s, len);
        if (*p++ != ':' || take_digits(&p, 3, &v[2]) != 2)
            return rwf_text_invalid("time", s, len);
        if (time_tail(p))
            return set_time(t, v[0], v[1], v[2], 0, 0, 0, s, len);
        if (*p == '.' || *p == ',') {
            if (!time_fraction(p + 1, t) || p[1] == '\0')
                return rwf_text_invalid("time", s, len);
            t->hour = (uint8_t)v[0];
            t->minute = (uint8_t)v[1];
            t->second = (uint8_t)v[2];
            return RWF_OK;
        }
        for (int i = 3; i < 6; i++) {
            if (*p++ != ':' || take_digits(&p, 4, &v[i]) != 3)
                return rwf_text_invalid("time", s, len);
            if (*p == '\0')
                return set_time(t, v[0], v[1], v[2], v[3], v[4], v[5], s, len);
        }
        return rwf_text_invalid("time", s, len);
    }
    if ((n == 4 || n == 6) && (time_tail(p) || (n == 6 && (*p == '.' || *p == ',')))) {
        const char *q = tmp; /* hhmm or hhmmss[.fffffffff] */
        long h = (q[0] - '0') * 10 + (q[1] - '0'), m = (q[2] - '0') * 10 + (q[3] - '0');
        long sec = n == 6 ? (q[4] - '0') * 10 + (q[5] - '0') : 0;
        if (set_time(t, h, m, sec, 0, 0, 0, s, len) != RWF_OK)
            return RWF_E_INVALID;
        if (*p == '.' || *p == ',') {
            if (p[1] == '\0' || !time_fraction(p + 1, t))
                return rwf_text_invalid("time", s, len);
        }
        return RWF_OK;
    }

    /* Lenient form: leading spaces, parts separated by ':' or spaces (" 21:00:01:000"). */
    p = tmp;
    while (*p == ' ')
        p++;
    if (*p == '\0') {
        rwf_time_blank(t);
        return RWF_BLANK;
    }
    int parts = 0;
    while (parts < 6) {
        if (!rwf_text_digit(*p))
            break;
        if (take_digits(&p, 6, &v[parts]) == 0)
            break;
        if (rwf_text_digit(*p)) /* a part of more than 6 digits is not two parts */
            return rwf_text_invalid("time", s, len);
        parts++;
        while (*p == ':' || *p == ' ')
            p++;
    }
    if (parts < 2 || *p != '\0')
        return rwf_text_invalid("time", s, len);
    return set_time(t, v[0], v[1], v[2], v[3], v[4], v[5], s, len);
}

int rwf_datetime_from_str(rwf_datetime *dt, const char *s, size_t len)
{
    size_t i, split = len;
    int r;

    memset(dt, 0, sizeof(*dt));
    for (i = 0; i < len && s[i] != ' '; i++) {
        if (s[i] == 'T') { /* ISO 8601: date 'T' time */
            if ((r = rwf_date_from_str(&dt->date, s, i)) != RWF_OK)
                return r < 0 ? r : rwf_text_invalid("date and time", s, len);
            if (i + 1 >= len)
                return rwf_text_invalid("date and time", s, len);
            r = rwf_time_from_str(&dt->time, s + i + 1, len - i - 1);
            return r == RWF_BLANK ? rwf_text_invalid("date and time", s, len) : r;
        }
    }
    /* "<date> <time>": the time starts after the last space before the first ':'. */
    const char *colon = memchr(s, ':', len);
    if (colon) {
        for (split = (size_t)(colon - s); split > 0 && s[split - 1] != ' '; split--)
            ;
        if (split == 0)
            return rwf_text_invalid("date and time", s, len);
    }
    r = rwf_date_from_str(&dt->date, s, split);
    if (r == RWF_BLANK && !colon) {
        rwf_time_blank(&dt->time);
        return RWF_BLANK;
    }
    if (r < 0)
        return r;
    if (!colon)
        return RWF_OK;
    r = rwf_time_from_str(&dt->time, s + split, len - split);
    return r < 0 ? r : RWF_OK;
}

int rwf_time_to_str(const rwf_time *t, char *buf, size_t cap)
{
    int n;
    if (t->hour == 255 && t->minute == 255)
        n = snprintf(buf, cap, "%s", "");
    else if (t->nanosecond)
        n = snprintf(buf, cap, "%02u:%02u:%02u:%03u:%03u:%03u", t->hour, t->minute, t->second,
                     t->millisecond, t->microsecond, t->nanosecond);
    else if (t->microsecond)
        n = snprintf(buf, cap, "%02u:%02u:%02u:%03u:%03u", t->hour, t->minute, t->second,
                     t->millisecond, t->microsecond);
    else if (t->millisecond)
        n = snprintf(buf, cap, "%02u:%02u:%02u:%03u", t->hour, t->minute, t->second,
                     t->millisecond);
    else
        n = snprintf(buf, cap, "%02u:%02u:%02u", t->hour, t->minute, t->second);
    if (n < 0 || (size_t)n >= cap) {
        err_set("text buffer of %zu bytes too small for a TIME", cap);
        return RWF_E_NOSPACE;
    }
    return n;
}

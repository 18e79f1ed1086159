/* hdr_log: HdrHistogram interval log writer and reader (see hdr_log.h). */
#include "hdr_log.h"

#include "err.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LEGEND                                                                                     \
    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\""
#define ID_PREFIX "#[rwfperf histogram log: "
#define HOST_PREFIX "#[Host: "
#define VALUES_PREFIX "#[Values: "
#define CLOCK_PREFIX "#[Clock: "
#define COMMENT_MAX 120 /* longest comment line we write, line end excluded */

/* ------------------------------------------------------------------------------------------ */
/* Writing                                                                                    */

/* Copies at most max characters of s into out (of size > max), NUL-terminated, replacing the
 * characters that would break a header line (']', line breaks) with '_'. */
static void clean_copy(char *out, size_t max, const char *s)
{
    size_t i = 0;
    for (; s && s[i] && i < max; i++)
        out[i] = (s[i] == ']' || s[i] == '\n' || s[i] == '\r' || s[i] == ',') ? '_' : s[i];
    out[i] = '\0';
}

int hdr_log_open(hdr_log_writer *w, const char *path, const hdr_log_id *id, double start_epoch)
{
    memset(w, 0, sizeof(*w));
    snprintf(w->path, sizeof(w->path), "%s", path);
    w->base = start_epoch;
    char tool[24], version[24], rev[44], host[64];
    clean_copy(tool, sizeof(tool) - 1, id->tool);
    clean_copy(version, sizeof(version) - 1, id->version);
    clean_copy(rev, sizeof(rev) - 1, id->git_rev ? id->git_rev : "unknown");
    clean_copy(host, sizeof(host) - 1, id->host);
    time_t secs = (time_t)floor(start_epoch);
    struct tm tm;
    char date[64] = "";
    if (gmtime_r(&secs, &tm))
        strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm);

    w->f = fopen(path, "w");
    if (!w->f)
        return err_set_errno(errno, "cannot create the histogram log %s", path);
    fprintf(w->f, ID_PREFIX "%s %s %s]\n", tool, version, rev);
    fprintf(w->f, HOST_PREFIX "%s, pid %d, thread %d]\n", host, id->pid, id->thread);
    if (id->clock) {
        char clock[24];
        clean_copy(clock, sizeof(clock) - 1, id->clock);
        fprintf(w->f, CLOCK_PREFIX "%s]\n", clock);
    }
    fprintf(w->f, VALUES_PREFIX HDR_LOG_UNITS ", Interval_Max in milliseconds]\n");
    fprintf(w->f, "#[Histogram log format version 1.3]\n");
    fprintf(w->f, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_epoch, date);
    fprintf(w->f, "#[BaseTime: %.3f (seconds since epoch)]\n", start_epoch);
    fprintf(w->f, "%s\n", LEGEND);
    if (fflush(w->f) != 0 || ferror(w->f))
        return err_set_errno(errno, "cannot write the histogram log %s", path);
    return 0;
}

int hdr_log_write(hdr_log_writer *w, const char *tag, double start_epoch, double length,
                  int64_t max_ns, const hdr_layout *lay, const uint64_t *counts)
{
    if (tag && strpbrk(tag, ", \r\n"))
        return err_set("histogram log %s: tag \"%s\" has a comma, space or line break", w->path,
                       tag);
    if (tag && strlen(tag) >= HDR_LOG_TAG_MAX)
        return err_set("histogram log %s: tag \"%s\" is too long", w->path, tag);
    const char *text;
    if (hdr_encode_text(&w->codec, lay, counts, &text) != 0)
        return err_push("histogram log %s", w->path);
    double start = start_epoch - w->base;
    if (start < 0)
        start = 0; /* HdrHistogram's C reader reads no sign */
    if (tag && tag[0])
        fprintf(w->f, "Tag=%s,", tag);
    fprintf(w->f, "%.3f,%.3f,%.6f,%s\n", start, length < 0 ? 0 : length,
            max_ns > 0 ? (double)max_ns / 1e6 : 0.0, text);
    if (ferror(w->f))
        return err_set("cannot write the histogram log %s", w->path);
    return 0;
}

int hdr_log_flush(hdr_log_writer *w)
{
    if (w->f && (fflush(w->f) != 0 || ferror(w->f)))
        return err_set_errno(errno, "cannot write the histogram log %s", w->path);
    return 0;
}

int hdr_log_close(hdr_log_writer *w)
{
    int rc = 0;
    if (w->f) {
        bool bad = ferror(w->f) != 0;
        if (fclose(w->f) != 0 || bad)
            rc = err_set("cannot write the histogram log %s", w->path);
        w->f = NULL;
    }
    hdr_codec_free(&w->codec);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Reading                                                                                    */

void hdr_log_reader_open_stream(hdr_log_reader *r, const char *name, FILE *f)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->path, sizeof(r->path), "%s", name);
    r->info.pid = -1;
    r->info.thread = -1;
    r->info.start = -1;
    r->info.base = -1;
    r->info.format_major = -1;
    r->info.format_minor = -1;
    r->f = f;
}

int hdr_log_reader_open(hdr_log_reader *r, const char *path)
{
    FILE *f = fopen(path, "r");
    hdr_log_reader_open_stream(r, path, f);
    if (!f)
        return err_set_errno(errno, "cannot open %s", path);
    return 0;
}

void hdr_log_reader_close(hdr_log_reader *r)
{
    if (r->f)
        fclose(r->f);
    r->f = NULL;
    free(r->buf);
    r->buf = NULL;
    hdr_codec_free(&r->codec);
}

/* Copies the text of s up to the first character of stop (or its end) into out. */
static void copy_until(char *out, size_t size, const char *s, const char *stop)
{
    size_t n = strcspn(s, stop);
    if (n >= size)
        n = size - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

/* Takes in a comment line: ours, the format version, StartTime, BaseTime; others are ignored. */
static void header_line(hdr_log_reader *r, const char *s)
{
    hdr_log_info *in = &r->info;
    size_t n;
    if (strncmp(s, ID_PREFIX, n = strlen(ID_PREFIX)) == 0) {
        char tool[32] = "", version[32] = "", rev[48] = "";
        if (sscanf(s + n, "%31s %31s %47[^]]", tool, version, rev) >= 2) {
            in->rwfperf = true;
            memcpy(in->tool, tool, sizeof(tool));
            memcpy(in->version, version, sizeof(version));
            memcpy(in->git_rev, rev, sizeof(rev));
        }
    } else if (strncmp(s, HOST_PREFIX, n = strlen(HOST_PREFIX)) == 0) {
        copy_until(in->host, sizeof(in->host), s + n, ",]");
        const char *p = strstr(s + n, ", pid ");
        if (p)
            sscanf(p, ", pid %d, thread %d", &in->pid, &in->thread);
    } else if (strncmp(s, CLOCK_PREFIX, n = strlen(CLOCK_PREFIX)) == 0) {
        copy_until(in->clock, sizeof(in->clock), s + n, "]");
    } else if (strncmp(s, VALUES_PREFIX, n = strlen(VALUES_PREFIX)) == 0) {
        copy_until(in->units, sizeof(in->units), s + n, ",]");
        in->units_line = r->line;
    } else if (strncmp(s, "#[Histogram log format version ", 31) == 0) {
        sscanf(s + 31, "%d.%d", &in->format_major, &in->format_minor);
    } else if (strncmp(s, "#[StartTime: ", 13) == 0) {
        sscanf(s + 13, "%lf", &in->start);
    } else if (strncmp(s, "#[BaseTime: ", 12) == 0) {
        sscanf(s + 12, "%lf", &in->base);
    }
}

/* Parses a number field [s, end). Returns 0, or -1 (err_set) naming the field. */
static int number_field(const char *s, const char *end, const char *name, double *out)
{
    char tmp[64];
    size_t n = (size_t)(end - s);
    if (n == 0 || n >= sizeof(tmp))
        return err_set("%s \"%.*s\" is not a number", name, (int)(n < 40 ? n : 40), s);
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *stop;
    errno = 0;
    double v = strtod(tmp, &stop);
    if (*stop || errno || !isfinite(v))
        return err_set("%s \"%s\" is not a number", name, tmp);
    *out = v;
    return 0;
}

/* Parses an interval line s (no line end) into e. Returns 0, or -1 (err_set). */
static int interval_line(hdr_log_reader *r, char *s, hdr_log_entry *e)
{
    e->tag[0] = '\0';
    if (strncmp(s, "Tag=", 4) == 0) {
        size_t n = strcspn(s + 4, ",");
        if (s[4 + n] != ',')
            return err_set("a tag with nothing after it");
        if (n == 0 || n >= sizeof(e->tag))
            return err_set("a tag of %zu characters (1 to %d)", n, HDR_LOG_TAG_MAX - 1);
        memcpy(e->tag, s + 4, n);
        e->tag[n] = '\0';
        s += 4 + n + 1;
    }
    const char *f[4];
    f[0] = s;
    int k = 1;
    for (char *p = s; *p && k < 4; p++)
        if (*p == ',')
            f[k++] = p + 1;
    if (k < 4)
        return err_set("%d fields where an interval line has 4 (start, length, max, histogram)", k);
    if (number_field(f[0], f[1] - 1, "start time", &e->start) != 0 ||
        number_field(f[1], f[2] - 1, "interval length", &e->length) != 0 ||
        number_field(f[2], f[3] - 1, "interval max", &e->max) != 0)
        return -1;
    if (strchr(f[3], ','))
        return err_set("more than 4 fields (start, length, max, histogram)");
    if (hdr_decode_text(&r->codec, f[3], strlen(f[3]), &e->hist) != 0)
        return err_push("histogram");
    return 0;
}

int hdr_log_next(hdr_log_reader *r, hdr_log_entry *e)
{
    for (;;) {
        errno = 0;
        ssize_t n = getline(&r->buf, &r->cap, r->f);
        if (n < 0) {
            if (ferror(r->f))
                return err_set_errno(errno, "line %d: read error", r->line + 1);
            return 0;
        }
        r->line++;
        char *s = r->buf;
        if (memchr(s, '\0', (size_t)n))
            return err_set("line %d: a NUL byte (not a text file)", r->line);
        if (s[n - 1] != '\n')
            return err_set("line %d: no line end (the file was cut off)", r->line);
        s[--n] = '\0';
        if (n > 0 && s[n - 1] == '\r')
            s[--n] = '\0';
        if (n == 0 || s[0] == '"')
            continue; /* blank line, legend */
        if (s[0] == '#') {
            header_line(r, s);
            continue;
        }
        e->line = r->line;
        if (interval_line(r, s, e) != 0)
            return err_push("line %d", r->line);
        return 1;
    }
}

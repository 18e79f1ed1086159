#include "opt.h"
#include "datafile.h"

#include "cpu.h"
#include "err.h"
#include "version.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const opt_name opt_compression_names[] = {
    {"none", 0, NULL}, {"zlib", 1, NULL}, {"lz4", 2, NULL}, {"0", 0, NULL},
    {"1", 1, NULL},    {"2", 2, NULL},    {NULL, 0, NULL},
};

const char *opt_compression_name(int type)
{
    switch (type) {
    case 0:
        return "none";
    case 1:
        return "zlib";
    case 2:
        return "lz4";
    default:
        return "unknown";
    }
}

static bool is_end(const opt_def *d)
{
    return d->name == NULL && d->kind != OPT_SECTION;
}

static const opt_def *find(const opt_def *defs, const char *word)
{
    for (const opt_def *d = defs; !is_end(d); d++) {
        if (d->kind == OPT_SECTION)
            continue;
        if (strcmp(d->name, word) == 0 || (d->alias && strcmp(d->alias, word) == 0))
            return d;
    }
    return NULL;
}

static bool takes_arg(const opt_def *d)
{
    switch (d->kind) {
    case OPT_FLAG:
    case OPT_SECTION:
        return false;
    case OPT_CUSTOM:
    case OPT_REFUSED:
        return d->has_arg;
    default:
        return true;
    }
}

/* Reads a whole decimal integer (optional sign). Returns 0, or -1 when arg is not one or does
 * not fit a long long. */
static int read_integer(const char *arg, long long *out)
{
    const char *p = arg;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\0')
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (errno != 0 || end == p)
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0')
        return -1;
    *out = v;
    return 0;
}

static int range_error(const opt_def *d, const char *arg)
{
    if (d->max == INT32_MAX || d->max == LLONG_MAX)
        return err_set("Config Error: %s %s: value must be %lld or more.", d->name, arg, d->min);
    return err_set("Config Error: %s %s: value must be from %lld to %lld.", d->name, arg, d->min,
                   d->max);
}

static int parse_int(const opt_def *d, const char *arg, long long *out)
{
    if (read_integer(arg, out) != 0)
        return err_set("Config Error: %s %s: value is not an integer.", d->name, arg);
    if (*out < d->min || *out > d->max)
        return range_error(d, arg);
    return 0;
}

static int parse_u64(const opt_def *d, const char *arg, uint64_t *out)
{
    const char *p = arg;
    while (isspace((unsigned char)*p))
        p++;
    if (!isdigit((unsigned char)*p))
        return err_set("Config Error: %s %s: value is not a non-negative integer.", d->name, arg);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (errno != 0 || *end != '\0')
        return err_set("Config Error: %s %s: value is not a non-negative integer.", d->name, arg);
    if (v < (unsigned long long)d->min || v > (unsigned long long)d->max)
        return range_error(d, arg);
    *out = v;
    return 0;
}

int opt_check_port(const char *name, const char *arg)
{
    long long v;
    if (arg[0] == '\0')
        return err_set("Config Error: %s: the port is empty (a number 0-65535 or a service name).",
                       name);
    if (isdigit((unsigned char)arg[0]) || arg[0] == '-' || arg[0] == '+' ||
        isspace((unsigned char)arg[0])) {
        if (read_integer(arg, &v) != 0)
            return err_set("Config Error: %s %s: not a port (a number 0-65535 or a service name).",
                           name, arg);
        if (v < 0 || v > 65535)
            return err_set("Config Error: %s %s: a port is from 0 to 65535.", name, arg);
    } else if (!getservbyname(arg, NULL)) {
        return err_set("Config Error: %s %s: not a port number (0-65535) nor a service name this "
                       "machine knows (/etc/services).",
                       name, arg);
    }
    return 0;
}

/* A port option's value (opt_check_port), copied into field. */
static int parse_port(const opt_def *d, const char *arg, char *field)
{
    if (opt_check_port(d->name, arg) != 0)
        return -1;
    size_t len = strlen(arg);
    if (len >= d->size)
        return err_set("Config Error: %s: value is longer than %zu characters.", d->name,
                       d->size - 1);
    memcpy(field, arg, len + 1);
    return 0;
}

static int parse_threads(const opt_def *d, const char *arg, opt_threads *t)
{
    opt_threads out = {0};
    size_t used = 0;
    const char *p = arg;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        size_t blank = 0;
        while (blank < len && isspace((unsigned char)p[blank]))
            blank++;
        if (blank < len) { /* an entry of spaces only is an empty one, as cpu_parse sees it */
            char entry[OPT_THREADS_LEN];
            if (len >= sizeof(entry) || used + len + 2 > sizeof(out.list))
                return err_set("Config Error: -threads list is too long.");
            memcpy(entry, p, len);
            entry[len] = '\0';
            if (++out.count > d->max)
                return err_set("Config Error: Too many threads specified (at most %lld).", d->max);
            if (used > 0)
                out.list[used++] = ',';
            memcpy(out.list + used, entry, len + 1);
            used += len;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    if (out.count == 0)
        return err_set("Config Error: %s '%s': no thread entries.", d->name, arg);
    /* Resolve every entry against this machine now, so that a CPU, core or package that does
     * not exist is a configuration error (exit 2) before anything starts. */
    cpu_list *cpus = malloc(sizeof(*cpus));
    if (!cpus)
        return err_set("Config Error: out of memory");
    int rc = cpu_parse(cpus, out.list);
    free(cpus);
    if (rc != 0)
        return err_push("Config Error");
    *t = out;
    return 0;
}

static int parse_enum(const opt_def *d, const char *arg, int *out)
{
    for (const opt_name *n = d->names; n->name; n++) {
        if (strcmp(n->name, arg) != 0)
            continue;
        if (n->refused)
            return err_set("Config Error: %s %s is not available in this build (%s).", d->name, arg,
                           n->refused);
        *out = n->value;
        return 0;
    }
    char list[512];
    size_t used = 0;
    list[0] = '\0';
    for (const opt_name *n = d->names; n->name && used < sizeof(list); n++) {
        int w = snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "", n->name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return err_set("Config Error: %s %s: unknown value (expected one of: %s).", d->name, arg, list);
}

static int apply(const opt_def *d, const char *arg, void *cfg)
{
    char *field = (char *)cfg + d->off;
    long long v;
    switch (d->kind) {
    case OPT_FLAG:
        *(bool *)field = !d->clear;
        return 0;
    case OPT_INT:
        if (parse_int(d, arg, &v) != 0)
            return -1;
        *(int *)field = (int)v;
        return 0;
    case OPT_U64:
        return parse_u64(d, arg, (uint64_t *)field);
    case OPT_RATE:
        if (strcmp(arg, "all") == 0) {
            *(int *)field = OPT_RATE_ALL;
            return 0;
        }
        if (read_integer(arg, &v) != 0)
            return err_set("Config Error: %s %s: value is not a rate (an integer, or \"all\").",
                           d->name, arg);
        if (v < d->min || v > d->max)
            return range_error(d, arg);
        *(int *)field = (int)v;
        return 0;
    case OPT_STR: {
        size_t len = strlen(arg);
        if (len >= d->size)
            return err_set("Config Error: %s: value is longer than %zu characters.", d->name,
                           d->size - 1);
        memcpy(field, arg, len + 1);
        return 0;
    }
    case OPT_PORT:
        return parse_port(d, arg, field);
    case OPT_ENUM:
        return parse_enum(d, arg, (int *)field);
    case OPT_THREADS:
        return parse_threads(d, arg, (opt_threads *)field);
    case OPT_CUSTOM:
        return d->parse(cfg, d, arg);
    case OPT_REFUSED:
        return err_set("Config Error: %s is not available in this build (%s).", d->name, d->help);
    case OPT_SECTION:
        break;
    }
    return err_set("Config Error: %s: bad option table entry.", d->name);
}

int opt_parse(const opt_def *defs, int argc, char **argv, void *cfg)
{
    for (int i = 1; i < argc; i++) {
        const char *word = argv[i];
        if (strcmp(word, "-?") == 0 || strcmp(word, "-help") == 0 || strcmp(word, "--help") == 0)
            return OPT_HELP;
        if (strcmp(word, "-version") == 0 || strcmp(word, "--version") == 0)
            return OPT_VERSION;
        const opt_def *d = find(defs, word);
        if (!d)
            return err_set("Config Error: Unrecognized option: %s", word);
        const char *arg = NULL;
        if (takes_arg(d)) {
            if (d->kind == OPT_REFUSED)
                return apply(d, NULL, cfg);
            if (i + 1 >= argc)
                return err_set("Config error: %s missing argument.", word);
            arg = argv[++i];
        }
        if (apply(d, arg, cfg) != 0)
            return -1;
    }
    return 0;
}

int opt_check_total_rate(const char *name, int rate, int tick_rate)
{
    if (rate != 0 && rate < tick_rate)
        return err_set("Config Error: %s %d is less than -tickRate %d (it must be 0, or at least "
                       "the tick rate).",
                       name, rate, tick_rate);
    return 0;
}

int opt_check_latency_rate(const char *name, int rate, const char *total_name, int total,
                           int tick_rate)
{
    if (rate == OPT_RATE_ALL)
        return 0;
    if (rate > total)
        return err_set("Config Error: %s %d is greater than %s %d.", name, rate, total_name, total);
    if (rate > tick_rate)
        return err_set("Config Error: %s %d is greater than -tickRate %d (at most one latency "
                       "message is sent per tick).",
                       name, rate, tick_rate);
    return 0;
}

int opt_fail(FILE *err, const char *prog)
{
    fprintf(err, "%s\nRun '%s -?' to see usage.\n\n", err_msg(), prog ? prog : "");
    fflush(err);
    return OPT_EXIT_INVALID;
}

/* ---------------------------------------------------------------------------------------- */
/* Usage text                                                                                */

static size_t lhs_text(const opt_def *d, char *buf, size_t size)
{
    char placeholder[128];
    const char *arg = d->arg;
    if (!arg && d->kind == OPT_ENUM && d->names) {
        size_t used = 0;
        placeholder[0] = '\0';
        for (const opt_name *n = d->names; n->name; n++) {
            if (n->refused || isdigit((unsigned char)n->name[0]))
                continue;
            bool spelt = false; /* another spelling of a word already listed (webSocket) */
            for (const opt_name *m = d->names; m != n; m++)
                spelt |= !m->refused && strcasecmp(m->name, n->name) == 0;
            if (spelt)
                continue;
            int w = snprintf(placeholder + used, sizeof(placeholder) - used, "%s%s",
                             used ? "|" : "<", n->name);
            if (w < 0 || (size_t)w >= sizeof(placeholder) - used)
                break;
            used += (size_t)w;
        }
        if (used + 2 <= sizeof(placeholder))
            memcpy(placeholder + used, ">", 2);
        arg = placeholder;
    }
    int w =
        snprintf(buf, size, "%s%s%s%s%s", d->name, d->alias ? ", " : "", d->alias ? d->alias : "",
                 takes_arg(d) && arg ? " " : "", takes_arg(d) && arg ? arg : "");
    return w < 0 ? 0 : (size_t)w;
}

static void default_text(const opt_def *d, const void *cfg, char *buf, size_t size)
{
    const char *field = (const char *)cfg + d->off;
    buf[0] = '\0';
    switch (d->kind) {
    case OPT_INT:
        snprintf(buf, size, " (default: %d)", *(const int *)field);
        break;
    case OPT_U64:
        snprintf(buf, size, " (default: %" PRIu64 ")", *(const uint64_t *)field);
        break;
    case OPT_RATE:
        if (*(const int *)field == OPT_RATE_ALL)
            snprintf(buf, size, " (default: all)");
        else
            snprintf(buf, size, " (default: %d)", *(const int *)field);
        break;
    case OPT_STR:
    case OPT_PORT:
        if (field[0])
            snprintf(buf, size, " (default: %s)", field);
        break;
    case OPT_ENUM:
        for (const opt_name *n = d->names; n->name; n++)
            if (!n->refused && n->value == *(const int *)field) {
                snprintf(buf, size, " (default: %s)", n->name);
                break;
            }
        break;
    default:
        break;
    }
}

/* True for the options that set how many messages per second carry a latency stamp
 * (-latencyUpdateRate, -postingLatencyRate, -genericMsgLatencyRate, -latencyMsgRate). */
static bool is_latency_rate(const opt_def *d)
{
    size_t n = d->name ? strlen(d->name) : 0;
    return d->kind != OPT_SECTION && d->kind != OPT_REFUSED && n > 4 &&
           strstr(d->name, "atency") != NULL && strcmp(d->name + n - 4, "Rate") == 0;
}

/* The usage paragraph on percentiles and sample counts (out.h, "Honest percentiles"), naming
 * the table's latency-rate options; nothing when it has none. A consumer's table (posts but no
 * stamped updates of its own: ConsPerf) also names where its update latency comes from. */
static void usage_samples_note(FILE *out, const opt_def *defs)
{
    char names[256] = "";
    int count = 0;
    for (const opt_def *d = defs; !is_end(d); d++)
        if (is_latency_rate(d)) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof(names) - used, "%s%s", count ? ", " : "", d->name);
            count++;
        }
    if (!count)
        return;
    fprintf(out,
            "\nLatency percentiles and samples:\n"
            "  The p-th percentile needs 100 / (100 - p) latency samples: p99 100, p99.9 1,000,\n"
            "  p99.99 10,000. On fewer it is simply the largest sample, and the summary, console\n"
            "  and JSON say so (\"only 110 samples: this is the maximum\"; the CSV leaves it\n"
            "  blank). Samples are the latency-stamped messages: stamps per second x seconds x\n"
            "  connections. For more of them, run longer or raise\n"
            "    %s\n"
            "%s"
            "  e.g. 1,000 stamps per second for 10 s give the 10,000 that p99.99 needs.\n",
            names,
            find(defs, "-postingLatencyRate") && !find(defs, "-latencyUpdateRate")
                ? "    and for update latency the provider's -latencyUpdateRate (10/s by default)\n"
                : "");
}

/* Writes text as lines of at most OPT_USAGE_COLUMNS columns, words kept whole: the first
 * line goes on from column `at` (where the caller's output stands), the others start after
 * `indent` spaces. A word longer than a line gets a line of its own. Ends with a newline. */
static void usage_wrap(FILE *out, const char *text, size_t at, size_t indent)
{
    size_t col = at;
    bool line_start = true;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, " ");
        if (!line_start && col + 1 + n > OPT_USAGE_COLUMNS) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = indent;
            line_start = true;
        }
        if (!line_start) {
            fputc(' ', out);
            col++;
        }
        fwrite(p, 1, n, out);
        col += n;
        line_start = false;
        p += n;
    }
    fputc('\n', out);
}

/* One entry: the option (lhs) in a column of `width`, its text wrapped beside it; an option
 * wider than the column stands on its own line, the text below it. */
static void usage_entry(FILE *out, const char *lhs, size_t width, const char *text)
{
    const size_t indent = 2 + width + 2;
    if (strlen(lhs) > width) {
        fprintf(out, "  %s\n%*s", lhs, (int)indent, "");
    } else {
        fprintf(out, "  %-*s  ", (int)width, lhs);
    }
    usage_wrap(out, text, indent, indent);
}

void opt_usage(FILE *out, const char *prog, const opt_def *defs, const void *defaults)
{
    char lhs[256], def[300], text[1200];
    size_t width = strlen("-?, -help");
    for (const opt_def *d = defs; !is_end(d); d++) {
        if (d->kind == OPT_SECTION || d->kind == OPT_REFUSED)
            continue;
        size_t n = lhs_text(d, lhs, sizeof(lhs));
        if (n > width)
            width = n;
    }
    if (width > OPT_USAGE_LHS_MAX)
        width = OPT_USAGE_LHS_MAX;

    fprintf(out, "Usage: %s [options]\n\nOptions:\n", prog ? prog : "");
    usage_entry(out, "-?, -help", width, "Shows this usage");
    usage_entry(out, "-version", width,
                "Shows the version, git revision, build and the libraries' versions");
    for (const opt_def *d = defs; !is_end(d); d++) {
        if (d->kind == OPT_SECTION) {
            fprintf(out, "\n");
            usage_wrap(out, d->help, 0, 2);
            continue;
        }
        if (d->kind == OPT_REFUSED)
            continue;
        lhs_text(d, lhs, sizeof(lhs));
        def[0] = '\0';
        if (defaults)
            default_text(d, defaults, def, sizeof(def));
        snprintf(text, sizeof(text), "%s%s", d->help ? d->help : "", def);
        usage_entry(out, lhs, width, text);
    }

    usage_samples_note(out, defs);

    /* Refused options: those refused for the same reason together, the reason once. */
    bool heading = false;
    for (const opt_def *d = defs; !is_end(d); d++) {
        if (d->kind != OPT_REFUSED)
            continue;
        bool seen = false;
        for (const opt_def *e = defs; e != d; e++)
            seen |= e->kind == OPT_REFUSED && e->help && d->help && strcmp(e->help, d->help) == 0;
        if (seen)
            continue;
        if (!heading) {
            fprintf(out, "\nRecognised but not available in this build (refused):\n");
            heading = true;
        }
        size_t used = 0;
        text[0] = '\0';
        for (const opt_def *e = d; !is_end(e); e++) {
            if (e->kind != OPT_REFUSED || !e->help || !d->help || strcmp(e->help, d->help) != 0)
                continue;
            int w = snprintf(text + used, sizeof(text) - used, "%s%s", used ? ", " : "", e->name);
            if (w < 0 || (size_t)w >= sizeof(text) - used)
                break;
            used += (size_t)w;
        }
        snprintf(text + used, sizeof(text) - used, ": %s", d->help ? d->help : "");
        fprintf(out, "  ");
        usage_wrap(out, text, 2, 4);
    }
    fprintf(out, "\n");
}

/* ---------------------------------------------------------------------------------------- */
/* JSON form of the inputs                                                                   */

int opt_threads_entry(const opt_threads *t, int i, char *out, size_t size)
{
    if (size > 0)
        out[0] = '\0';
    if (i < 0 || i >= t->count)
        return -1;
    if (!t->list[0]) {
        /* Not given: one thread, not bound. */
        snprintf(out, size, "-1");
        return 0;
    }
    const char *p = t->list;
    for (int k = 0; k < i; k++) {
        p = strchr(p, ',');
        if (!p)
            return -1;
        p++;
    }
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    while (len > 0 && isspace((unsigned char)*p)) {
        p++;
        len--;
    }
    while (len > 0 && isspace((unsigned char)p[len - 1]))
        len--;
    if (len >= size)
        return -1;
    memcpy(out, p, len);
    out[len] = '\0';
    return 0;
}

const char *opt_threads_text(const opt_threads *t, const char *none)
{
    return t->list[0] ? t->list : none;
}

const char *opt_threads_reactor_text(const opt_threads *t, const opt_threads *workers, char *buf,
                                     size_t cap)
{
    if (!workers)
        snprintf(buf, cap, "%s", opt_threads_text(t, "(non)"));
    else
        snprintf(buf, cap, "%s {%s}", opt_threads_text(t, "(non)"),
                 opt_threads_text(workers, "(non)"));
    return buf;
}

static json_object *value_json(const opt_def *d, const void *cfg)
{
    const char *field = (const char *)cfg + d->off;
    switch (d->kind) {
    case OPT_FLAG:
        /* A "turn off" flag (-tcpDelay clears tcp_nodelay) reports whether it was given. */
        return json_object_new_boolean(*(const bool *)field != d->clear);
    case OPT_INT:
        return json_object_new_int(*(const int *)field);
    case OPT_U64:
        return json_object_new_uint64(*(const uint64_t *)field);
    case OPT_RATE:
        if (*(const int *)field == OPT_RATE_ALL)
            return json_object_new_string("all");
        return json_object_new_int(*(const int *)field);
    case OPT_STR:
    case OPT_PORT:
        return json_object_new_string(field);
    case OPT_ENUM:
        for (const opt_name *n = d->names; n->name; n++)
            if (!n->refused && n->value == *(const int *)field)
                return json_object_new_string(n->name);
        return json_object_new_int(*(const int *)field);
    case OPT_THREADS: {
        const opt_threads *t = (const opt_threads *)field;
        json_object *a = json_object_new_array();
        char entry[OPT_THREADS_LEN];
        for (int i = 0; a && t->list[0] && i < t->count; i++)
            if (opt_threads_entry(t, i, entry, sizeof(entry)) == 0)
                json_object_array_add(a, json_object_new_string(entry));
        return a;
    }
    default:
        return NULL;
    }
}

json_object *opt_to_json(const opt_def *defs, const void *cfg)
{
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    for (const opt_def *d = defs; !is_end(d); d++) {
        if (d->kind == OPT_SECTION || d->kind == OPT_REFUSED || d->kind == OPT_CUSTOM)
            continue;
        json_object *v = value_json(d, cfg);
        if (!v)
            continue;
        json_object_object_add(o, d->json ? d->json : d->name + 1, v);
    }
    return o;
}

/* The input-file options of a table that the data folder serves ("-itemFile, -msgFile"), NULL
 * when it has none. Static storage. */
static const char *input_options(const opt_def *defs)
{
    static char text[64];
    text[0] = '\0';
    static const char *const names[] = {"-itemFile", "-msgFile"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (find(defs, names[i])) {
            size_t used = strlen(text);
            snprintf(text + used, sizeof(text) - used, "%s%s", used ? ", " : "", names[i]);
        }
    return text[0] ? text : NULL;
}

int opt_tool_init(const opt_tool *t, void *cfg, int argc, char **argv, FILE *out, FILE *err)
{
    const char *prog = argc > 0 && argv[0] ? argv[0] : t->name;
    t->defaults(cfg);
    int rc = opt_parse(t->defs, argc, argv, cfg);
    if (rc == OPT_HELP) {
        void *defaults = malloc(t->size);
        if (defaults)
            t->defaults(defaults);
        opt_usage(out, prog, t->defs, defaults);
        free(defaults);
        if (t->data_files)
            data_usage(out, input_options(t->defs));
        fflush(out);
        return 0;
    }
    if (rc == OPT_VERSION) {
        fprintf(out, "%s %s %s\n", t->name, RWFPERF_VERSION, rwfperf_git_rev());
        if (t->version)
            t->version(out);
        fflush(out);
        return 0;
    }
    if (rc != 0 || t->check(cfg) != 0)
        return opt_fail(err, prog);
    return OPT_CONTINUE;
}

int opt_threads_count(const opt_threads *t)
{
    return t->count > 0 ? t->count : 1;
}

int opt_rate_of(int latency_rate, int total_rate)
{
    return latency_rate == OPT_RATE_ALL ? total_rate : latency_rate;
}

int opt_threads_with_workers(const opt_threads *threads, const opt_threads *workers)
{
    if (!threads->list[0] && workers->list[0])
        return workers->count;
    return opt_threads_count(threads);
}

int opt_check_workers(const opt_threads *threads, const opt_threads *workers, const char *what)
{
    if (workers->list[0] && threads->list[0] && workers->count != threads->count)
        return err_set("Config Error: %s thread count (%d in -workerThreads) not equal to thread "
                       "count (%d in -threads).",
                       what, workers->count, threads->count);
    return 0;
}

json_object *opt_inputs_json(const opt_def *defs, const void *cfg, int threads)
{
    json_object *o = opt_to_json(defs, cfg);
    json_object *n = json_object_new_int(threads);
    if (o && n)
        json_object_object_add(o, "threadCount", n);
    else
        json_object_put(n);
    return o;
}

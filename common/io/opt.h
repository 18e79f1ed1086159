/*
 * opt: command-line options described by a table.
 *
 * Each tool describes its options once, in a static table of opt_def entries that name a
 * field of its configuration struct by offset. From that one table come the parser, the usage
 * text (-? / -help), and the JSON form of the inputs, so the three never disagree.
 *
 * Conventions are those of the ETA performance tools: single-dash words, matched exactly and
 * case-sensitively; an option's argument is the next argv element; flags take none; the last
 * occurrence of an option wins. Options of features this build does not have are still
 * recognised, and refused with a message that says so, so that a command line written for
 * another build fails clearly instead of as an "unrecognised option".
 *
 * Parsing stops at the first problem. The message is left in err_msg(), already phrased for the
 * user ("Config Error: Unrecognized option: -foo"); the tools print it, then the hint
 * "Run '<prog> -?' to see usage.", and exit with status 2 (OPT_EXIT_INVALID).
 *
 * Integer arguments are read strictly: the whole argument must be a decimal integer within the
 * option's range. (The original tools read them with atoi(), so "-tickRate abc" silently meant
 * 0; here it is an error that names the option and the value.)
 */
#ifndef RWFPERF_OPT_H
#define RWFPERF_OPT_H

#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Value stored by an OPT_RATE option given as "all" (a latency stamp in every message). */
#define OPT_RATE_ALL (-1)

/* Returned by the tools' <tool>_config_init() when the program should go on running; any other
 * value is the exit status to end with (0 after -?, OPT_EXIT_INVALID after an error). */
#define OPT_CONTINUE (-1)
#define OPT_EXIT_INVALID 2

/* Returned by opt_parse() when -? or -help was given. */
#define OPT_HELP 1
/* Returned by opt_parse() when -version was given (ours: "<tool> <version> <git revision>"). */
#define OPT_VERSION 3

/* -threads: at most this many entries in any tool (ConsPerf allows fewer). */
#define OPT_THREADS_MAX 128
#define OPT_THREADS_LEN 1024

/* The -threads list as given: entries separated by commas, empty entries dropped. Parsing
 * checks every entry against this machine with cpu_parse() (common/cpu.h), which the tools call
 * again on `list` to bind their threads. */
typedef struct opt_threads {
    int count;                  /* number of entries; 1 (one unbound thread) when not given */
    char list[OPT_THREADS_LEN]; /* the entries joined by ','; "" when -threads was not given */
} opt_threads;

typedef enum opt_kind {
    OPT_SECTION, /* not an option: a heading in the usage text (help = the heading) */
    OPT_FLAG,    /* no argument; stores true in a bool (false when .clear is set) */
    OPT_INT,     /* int within [min, max] */
    OPT_U64,     /* uint64_t within [min, max] (min, max >= 0) */
    OPT_RATE,    /* int within [min, max], or "all" which stores OPT_RATE_ALL */
    OPT_STR,     /* char[size], copied; a longer argument is an error */
    OPT_PORT,    /* char[size]: a port number 0-65535 or a service name this machine knows */
    OPT_ENUM,    /* int: the value of the matching entry of .names */
    OPT_THREADS, /* opt_threads; at most .max entries */
    OPT_CUSTOM,  /* .parse(cfg, def, arg) does the work (arg is NULL when !.has_arg) */
    OPT_REFUSED, /* recognised but not available in this build; .help names the feature */
} opt_kind;

/* One accepted word of an OPT_ENUM option. A word with a non-NULL `refused` is recognised but
 * refused, `refused` naming the missing feature ("WebSocket transport"). */
typedef struct opt_name {
    const char *name;
    int value;
    const char *refused;
} opt_name;

typedef struct opt_def opt_def;

/* Parses arg for def into cfg. Returns 0, or -1 after err_set() with the complete message. */
typedef int (*opt_parse_fn)(void *cfg, const opt_def *def, const char *arg);

struct opt_def {
    const char *name;      /* "-tickRate"; NULL for OPT_SECTION and for the table's end */
    const char *alias;     /* a second spelling ("-i" for "-if"), or NULL */
    opt_kind kind;         /* what the option stores */
    size_t off;            /* offset of the field in the configuration struct */
    size_t size;           /* OPT_STR: size of the char array */
    long long min, max;    /* OPT_INT, OPT_U64, OPT_RATE range; OPT_THREADS: max entries */
    const opt_name *names; /* OPT_ENUM: accepted words, ending with {NULL} */
    opt_parse_fn parse;    /* OPT_CUSTOM */
    bool has_arg;          /* OPT_CUSTOM, OPT_REFUSED: takes an argument */
    bool clear;            /* OPT_FLAG: stores false (for "turn off" flags like -tcpDelay) */
    const char *arg;       /* argument placeholder in the usage text ("<ticks/sec>") */
    const char *help;      /* usage text; OPT_REFUSED: the feature this build lacks */
    const char *json;      /* key in the JSON inputs; NULL = the name without its dash */
};

/*
 * Table helpers. T is the configuration struct type, f a field of it. Each checks at compile
 * time that the field has the C type the kind stores, so a table cannot write an int into a
 * bool or a uint64_t.
 */
#define OPT_FIELD_(T, f, ctype)                                                                    \
    (offsetof(T, f) + 0 * sizeof(struct {                                                          \
                          int opt_field_type_mismatch : _Generic(((T *)0)->f, ctype : 1, default   \
                                                                 : -1);                            \
                      }))

#define OPT_SECTION_(title)                                                                        \
    {                                                                                              \
        .kind = OPT_SECTION, .help = (title)                                                       \
    }
#define OPT_FLAG_(nm, T, f, h)                                                                     \
    {                                                                                              \
        .name = (nm), .kind = OPT_FLAG, .off = OPT_FIELD_(T, f, bool), .help = (h)                 \
    }
#define OPT_FLAG_OFF_(nm, T, f, h)                                                                 \
    {                                                                                              \
        .name = (nm), .kind = OPT_FLAG, .off = OPT_FIELD_(T, f, bool), .clear = true, .help = (h)  \
    }
#define OPT_INT_(nm, T, f, lo, hi, a, h)                                                           \
    {                                                                                              \
        .name = (nm), .kind = OPT_INT, .off = OPT_FIELD_(T, f, int), .min = (lo), .max = (hi),     \
        .arg = (a), .help = (h)                                                                    \
    }
#define OPT_U64_(nm, T, f, lo, hi, a, h)                                                           \
    {                                                                                              \
        .name = (nm), .kind = OPT_U64, .off = OPT_FIELD_(T, f, uint64_t), .min = (lo),             \
        .max = (hi), .arg = (a), .help = (h)                                                       \
    }
#define OPT_RATE_(nm, T, f, a, h)                                                                  \
    {                                                                                              \
        .name = (nm), .kind = OPT_RATE, .off = OPT_FIELD_(T, f, int), .min = 0, .max = INT32_MAX,  \
        .arg = (a), .help = (h)                                                                    \
    }
#define OPT_STR_(nm, T, f, a, h)                                                                   \
    {                                                                                              \
        .name = (nm), .kind = OPT_STR, .off = OPT_FIELD_(T, f, char *),                            \
        .size = sizeof(((T *)0)->f), .arg = (a), .help = (h)                                       \
    }
#define OPT_PORT_(nm, T, f, h)                                                                     \
    {                                                                                              \
        .name = (nm), .kind = OPT_PORT, .off = OPT_FIELD_(T, f, char *),                           \
        .size = sizeof(((T *)0)->f), .arg = "<port>", .help = (h)                                  \
    }
#define OPT_ENUM_(nm, T, f, nms, a, h)                                                             \
    {                                                                                              \
        .name = (nm), .kind = OPT_ENUM, .off = OPT_FIELD_(T, f, int), .names = (nms), .arg = (a),  \
        .help = (h)                                                                                \
    }
/* OPT_ENUM_ for a field of an enumeration type E (whose values the names give); E must have the
 * size of an int, which the parser stores. */
#define OPT_ENUM_T_(nm, T, f, E, nms, a, h)                                                        \
    {                                                                                              \
        .name = (nm), .kind = OPT_ENUM,                                                            \
        .off = OPT_FIELD_(T, f, E) + 0 * sizeof(char[sizeof(E) == sizeof(int) ? 1 : -1]),          \
        .names = (nms), .arg = (a), .help = (h)                                                    \
    }
#define OPT_THREADS_(nm, T, f, most, a, h)                                                         \
    {                                                                                              \
        .name = (nm), .kind = OPT_THREADS, .off = OPT_FIELD_(T, f, opt_threads), .max = (most),    \
        .arg = (a), .help = (h)                                                                    \
    }
#define OPT_REFUSED_(nm, takes_arg, feature)                                                       \
    {                                                                                              \
        .name = (nm), .kind = OPT_REFUSED, .has_arg = (takes_arg), .help = (feature)               \
    }
#define OPT_END_                                                                                   \
    {                                                                                              \
        .name = NULL, .kind = OPT_FLAG                                                             \
    }

/*
 * Entries every tool's table has alike, for a configuration type T and the fields named:
 * OPT_SOCKET_SIZES_: -sendBufSize, -recvBufSize, -highWaterMark (0: the system's or the
 * transport's default); OPT_STATS_OUTPUT_: -writeStatsInterval, -noDisplayStats;
 * OPT_RUN_TICK_: -runTime, -tickRate.
 */
#define OPT_SOCKET_SIZES_(T, sndbuf, rcvbuf, hwm)                                                  \
    OPT_INT_("-sendBufSize", T, sndbuf, 0, INT_MAX, "<bytes>",                                     \
             "Socket send buffer size (0: the system's)"),                                         \
        OPT_INT_("-recvBufSize", T, rcvbuf, 0, INT_MAX, "<bytes>",                                 \
                 "Socket receive buffer size (0: the system's)"),                                  \
        OPT_INT_("-highWaterMark", T, hwm, 0, INT_MAX, "<bytes>",                                  \
                 "Queued bytes at which output is flushed (0: 64 KiB for a sending "               \
                 "tool's plain socket, else the transport's 6,000)")
#define OPT_STATS_OUTPUT_(T, interval, display)                                                    \
    OPT_INT_("-writeStatsInterval", T, interval, 1, INT_MAX, "<sec>",                              \
             "Seconds between statistics lines"),                                                  \
        OPT_FLAG_OFF_("-noDisplayStats", T, display, "Do not print statistics on the console")
#define OPT_RUN_TICK_(T, run_time, tick_rate)                                                      \
    OPT_INT_("-runTime", T, run_time, 0, INT_MAX, "<sec>", "Run time"),                            \
        OPT_INT_("-tickRate", T, tick_rate, 1, INT_MAX, "<ticks/sec>", "Ticks per second")

/* Why two connection types of the original are refused in every tool that names them (the
 * text of the refusal; see the README). */
#define OPT_WHY_RELIABLE_MCAST                                                                     \
    "reliable multicast: a closed-source protocol of the original SDK with no public "             \
    "description"
#define OPT_WHY_HTTP "HTTP tunnelling: Windows only in the original"

/* Words accepted by -compressionType in every tool: none/zlib/lz4 and their numbers 0/1/2. */
extern const opt_name opt_compression_names[];

/* The name of a compression type number ("none", "zlib", "lz4"; "unknown" otherwise). */
const char *opt_compression_name(int type);

/*
 * Parses argv[1..argc-1] into cfg, which the caller has filled with defaults. The table ends
 * with an entry whose name is NULL and kind is not OPT_SECTION (OPT_END_).
 * Returns 0 when every argument was consumed, OPT_HELP as soon as -? or -help is seen,
 * OPT_VERSION as soon as -version is seen, or -1
 * with the user-facing message in err_msg(). argv is not modified.
 */
int opt_parse(const opt_def *defs, int argc, char **argv, void *cfg);

/* The usage text's width: no line is longer, but for a word that is (a long path). */
#define OPT_USAGE_COLUMNS 100
/* The widest option column; a longer option stands on a line of its own. */
#define OPT_USAGE_LHS_MAX 30

/*
 * Writes the usage text generated from the table to out, within OPT_USAGE_COLUMNS: each option
 * with its argument placeholder, help text and, when defaults is not NULL, the default taken
 * from it (once: help texts do not repeat it), under the table's sections in their order;
 * refused options are listed last under their own heading, those refused for the same reason
 * together.
 */
void opt_usage(FILE *out, const char *prog, const opt_def *defs, const void *defaults);

/*
 * Returns a new JSON object holding every accepted option's value in cfg (refused options and
 * sections left out), keyed by the option name without its dash. Rates given as "all" appear as
 * the string "all", enums as their word, -threads as an array of entries. The caller owns the
 * object (json_object_put). NULL only when out of memory.
 */
json_object *opt_to_json(const opt_def *defs, const void *cfg);

/* Copies entry i (0-based) of a -threads list into out, spaces around it trimmed. Returns 0, or
 * -1 when i is out of range (out is then ""). */
int opt_threads_entry(const opt_threads *t, int i, char *out, size_t size);

/* The text the summaries print for a -threads list: the list as given, or `none` (the tools
 * print "(non)" or "-1") when -threads was not given. */
const char *opt_threads_text(const opt_threads *t, const char *none);

/* The Thread List the tools print in their reactor modes: the -threads list (or "(non)"), then
 * the reactor workers' bindings in braces, "(non) {(non)}", "0,1 {2,3}" (workers NULL: the
 * -threads list alone). Written into buf; returns buf. */
const char *opt_threads_reactor_text(const opt_threads *t, const opt_threads *workers, char *buf,
                                     size_t cap);

/*
 * The rate rules every tool applies after parsing (docs/tools.md#options). Each returns 0, or -1
 * after err_set() with a message naming the options and their values.
 *
 * opt_check_total_rate: a total message rate is 0 (off) or at least the tick rate, since every
 * tick sends at least one message.
 * opt_check_latency_rate: a latency rate (OPT_RATE_ALL allowed, meaning every message) is at
 * most the total rate and at most the tick rate (one latency message per tick at most).
 */
int opt_check_total_rate(const char *name, int rate, int tick_rate);

/* The check of a port option `name` (OPT_PORT does it as it parses): arg is a decimal number
 * from 0 to 65535, or a service name this machine's services database knows. Returns 0, or -1
 * after err_set() with a message naming the option and the value. */
int opt_check_port(const char *name, const char *arg);
int opt_check_latency_rate(const char *name, int rate, const char *total_name, int total,
                           int tick_rate);

/* What opt_tool_init() needs to know about a tool's configuration. */
typedef struct opt_tool {
    const char *name;              /* the program's name when argv[0] is missing */
    const opt_def *defs;           /* its option table */
    size_t size;                   /* sizeof its configuration */
    void (*defaults)(void *cfg);   /* fills the defaults */
    int (*check)(const void *cfg); /* checks the options together: 0, or -1 with err_msg() */
    bool data_files;               /* reads input files that may come from the data folder */
    void (*version)(FILE *out);    /* writes what -version shows after its first line */
} opt_tool;

/*
 * The command line of a tool: fills the defaults, parses argv into cfg and checks it. With
 * -? prints the usage to out (the defaults, and where input files are found when the tool
 * reads any) and returns 0; with -version prints "<tool> <version> <git revision>", then what
 * opt_tool.version adds, to out and returns 0; with an invalid command line prints why to err
 * (opt_fail) and returns OPT_EXIT_INVALID; otherwise returns OPT_CONTINUE.
 */
int opt_tool_init(const opt_tool *t, void *cfg, int argc, char **argv, FILE *out, FILE *err);

/* Defines `int fn(type *cfg, int argc, char **argv, FILE *out, FILE *err)`, a tool's command
 * line (opt_tool_init) for its configuration type, option table defs, defaults(type *) and
 * check(const type *), named name; data says whether it reads input files (datafile.h),
 * version writes what -version shows after its first line (opt_tool.version). */
#define OPT_DEFINE_TOOL_INIT(fn, type, name, defs, defaults, check, data, version)                 \
    static void fn##_defaults(void *c)                                                             \
    {                                                                                              \
        defaults((type *)c);                                                                       \
    }                                                                                              \
    static int fn##_check(const void *c)                                                           \
    {                                                                                              \
        return check((const type *)c);                                                             \
    }                                                                                              \
    int fn(type *cfg, int argc, char **argv, FILE *out, FILE *err)                                 \
    {                                                                                              \
        static const opt_tool tool = {name,       defs, sizeof(type), fn##_defaults,               \
                                      fn##_check, data, version};                                  \
        return opt_tool_init(&tool, cfg, argc, argv, out, err);                                    \
    }

/* Threads of a -threads list: its entries, 1 when none were given. */
int opt_threads_count(const opt_threads *t);

/* A latency rate as a number: the total rate when it is OPT_RATE_ALL. */
int opt_rate_of(int latency_rate, int total_rate);

/* Threads of a tool with reactor workers: the -threads entries (1 by default), or, as the
 * originals, the -workerThreads entries when only those were given. */
int opt_threads_with_workers(const opt_threads *threads, const opt_threads *workers);

/* -workerThreads and -threads both given with different counts is an error: "Config Error:
 * <what> thread count (<n> in -workerThreads) not equal to thread count (<m> in -threads)."
 * Returns 0, or -1 after err_set(). */
int opt_check_workers(const opt_threads *threads, const opt_threads *workers, const char *what);

/* The JSON form of a tool's inputs: opt_to_json(defs, cfg) with "threadCount": threads added.
 * The caller owns the result (NULL only when out of memory). */
json_object *opt_inputs_json(const opt_def *defs, const void *cfg, int threads);

/* Prints the standard trailer of a configuration error to err: err_msg(), then
 * "Run '<prog> -?' to see usage." and a blank line. Returns OPT_EXIT_INVALID. */
int opt_fail(FILE *err, const char *prog);

#endif

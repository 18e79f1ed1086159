/*
 * out: the writers every tool shares for its reports.
 *
 *  - a report (out_report) that writes the same text to the console and the summary file at
 *    once, with the right-justified "Label: value" lines of the TEST INPUTS block;
 *  - the statistics blocks of the summaries: latency (avg / std dev / max / min exactly as the
 *    ETA tools print them, then our percentile lines), the scheduled-time latency view, the
 *    CPU/Memory block, and the offered-versus-achieved rate check;
 *  - CSV files (header first, ", " separated, flushed after every row), the latency log files
 *    and the extra trailing percentile columns of the statistics files;
 *  - the JSON summary (json-c): program version and git revision, the host, the inputs and the
 *    results.
 *
 * What we add to the original formats is always placed so that a parser of the original keeps
 * working: extra "Label: value" lines come after the block's original lines, extra CSV columns
 * at the end of each row. The added lines are, everywhere:
 *
 *     <Name> p50 (usec): 181.0            after "<Name> min (usec)", one per percentile:
 *     <Name> p90 (usec): 250.0            p50, p90, p99, p99.9, p99.99 (max is the line above)
 *     ...
 *     Sched <name> avg (usec): 190.2      the same latency measured from the time the message
 *     ...                                 was due by the sender's tick schedule (the sender's
 *                                         own stalls included: no coordinated omission)
 *     <Name> p99.99 (usec): 612.0 (only 110 samples: this is the maximum)
 *                                         a percentile on too few samples says so (see
 *                                         out_pct_needs); so do the console, JSON and CSV
 *     Offered <what> rate: 100000         the configured rate and the rate achieved, per
 *     Achieved <what> rate: 97012         connection, and a warning line below 99%
 *     Warning: achieved <what> rate is 97.02% of the offered rate (below 99%).
 *
 * Writers allocate nothing except the JSON functions. They report write errors through the
 * stream's error flag (ferror), checked by out_report_error() / out_csv_close().
 */
#ifndef RWFPERF_OUT_H
#define RWFPERF_OUT_H

#include "opt.h"
#include "stats.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#if defined(__GNUC__)
#define OUT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define OUT_PRINTF(a, b)
#endif

/* ------------------------------------------------------------------------------------------ */
/* Report: console and summary file at once                                                   */

/* Up to two streams that receive the same text; the first is the console. Either may be NULL.
 * The report does not own the streams. */
typedef struct out_report {
    FILE *console;
    FILE *file;
} out_report;

/* Sets up a report writing to console and file (either may be NULL). */
void out_report_init(out_report *r, FILE *console, FILE *file);

/* Writes the formatted text to both streams. */
void out_printf(out_report *r, const char *fmt, ...) OUT_PRINTF(2, 3);

/* Writes the formatted text to the console stream only (the originals print some lines, such
 * as the blank lines after ProvPerf's summary, on the console alone). */
void out_console(out_report *r, const char *fmt, ...) OUT_PRINTF(2, 3);

/* Writes "<label right-justified to width>: <formatted value>\n" to both streams: the line of a
 * TEST INPUTS block. A label longer than width is written whole. */
void out_input(out_report *r, int width, const char *label, const char *fmt, ...) OUT_PRINTF(4, 5);

/* "Yes" or "No", as the TEST INPUTS blocks print a flag. */
const char *out_yes_no(bool b);

/* The TEST INPUTS line of a size in bytes that 0 leaves to the system: "<n> bytes", or
 * "0(use default)" (the ETA tools' words). */
void out_input_bytes(out_report *r, int width, const char *label, int bytes);

/* The TEST INPUTS line of a name that "" leaves to the system: the name, or "(use default)". */
void out_input_name(out_report *r, int width, const char *label, const char *name);

/* Flushes both streams. Returns 0, or -1 (err_set) when either stream has had a write error. */
int out_report_flush(out_report *r);

/* Our inputs that the originals do not print, shown after their TEST INPUTS lines. */
typedef struct out_extra {
    double clock_cost_ns;       /* cost of one clock read; < 0 = not measured, line omitted */
    double clock_resolution_ns; /* clock resolution; < 0 = not measured, line omitted */
    const char *clock;          /* the clock stamps are taken with ("monotonic"); NULL: omitted */
    int64_t clock_skew_ns;      /* the test-only skew added to them; 0: line omitted */
} out_extra;

/* An out_extra with nothing measured. */
#define OUT_EXTRA_NONE ((out_extra){-1.0, -1.0, NULL, 0})

/* Writes our additional TEST INPUTS lines (the clock, its test-only skew when there is one, the
 * cost and resolution of a read when measured, the JSON summary file name), right-justified to
 * width like the block they end. */
void out_extra_inputs(out_report *r, int width, const out_extra *extra, const char *json_file);

/* Ends a TEST INPUTS block: our additional lines (out_extra_inputs, naming the JSON summary
 * that goes beside summary_file), then the block's blank line. */
void out_inputs_end(out_report *r, int width, const out_extra *extra, const char *summary_file);

/* The "Thread List" line: the -threads list (or "(non)"), then with workers (the reactor
 * modes; NULL otherwise) the workers' bindings in braces (opt_threads_reactor_text). */
void out_input_threads(out_report *r, int width, const opt_threads *threads,
                       const opt_threads *workers);

/* The providers' "Packing" line: "Yes(max <n> per pack, <size> buffer size)" when more than
 * one message goes into a buffer, else "No". */
void out_input_packing(out_report *r, int width, int max_pack_count, int pack_buf_size);

/* ------------------------------------------------------------------------------------------ */
/* Summary blocks                                                                             */

/*
 * Writes a latency block for name ("Latency", "Posting latency", "GenMsg latency"):
 *     "  <name> avg (usec): %.*f" / std dev / max / min         (the original's four lines)
 *     "  <name> p50 (usec): %.*f" / p90 / p99 / p99.9 / p99.99   (ours)
 * with `decimals` digits (1 for the OMM tools, 3 for TransportPerf). A percentile that rests on
 * too few samples (out_pct_note) gets its note after the value:
 *     "  Latency p99.99 (usec): 612.0 (only 110 samples: this is the maximum)"
 * The caller prints the original's replacement line itself when l->count == 0.
 */
void out_lat_block(out_report *r, const char *name, const stat_lat *l, int decimals);

/*
 * Writes the scheduled-time view of a latency block, "  Sched <name> avg (usec): ..." and the
 * same eight lines as out_lat_block, when sched is not NULL and has samples; nothing otherwise.
 * `name` is the lower-case form used after "Sched" ("latency", "posting latency",
 * "GenMsg latency").
 */
void out_lat_sched_block(out_report *r, const char *name, const stat_lat *sched, int decimals);

/* One latency kind of a summary block: when l has samples, its block (out_lat_block for name)
 * and its scheduled-time view (out_lat_sched_block for sched_name); else the original's line
 * `none` ("  No latency information was received.\n"...), written as it is. */
void out_lat_blocks(out_report *r, const char *name, const char *sched_name, const stat_lat *l,
                    const stat_lat *sched, int decimals, const char *none);

/* Writes the CPU/Memory block (samples, CPU max/min/avg %, memory max/min/avg MB) when
 * res->samples > 0; nothing otherwise. */
void out_res_block(out_report *r, const stat_res *res);

/*
 * Writes the offered-versus-achieved lines for one kind of message ("update", "post",
 * "GenMsg", "msg"), both rates per connection, when offered > 0:
 *     "  Offered <what> rate: %.0f" and "  Achieved <what> rate: %.0f",
 * then "  Warning: achieved <what> rate is <p>% (2 decimals) of the offered rate (below 99%)." when
 * achieved < 0.99 × offered. Returns true when the warning was written.
 */
bool out_rate_check(out_report *r, const char *what, double offered, double achieved);

/*
 * Honest percentiles. The p-th percentile of n samples is the sample of rank ceil(p/100 * n)
 * (nearest rank). When n < 1 / (1 - p/100) that rank is n: the "percentile" is simply the
 * largest sample and says nothing about the tail. So a percentile needs at least
 *     out_pct_needs(p) = ceil(100 / (100 - p)) samples:
 *     p50: 2, p90: 10, p99: 100, p99.9: 1,000, p99.99: 10,000
 * and every writer marks one that has fewer: the summary and console with a note, the JSON
 * with a "<key>_note" member, the CSV with a blank cell. The samples counted are those at or
 * above zero (the percentiles leave negative samples out, see stat_lat).
 */

/* The samples percentile p (0 < p < 100) needs so that it is not simply the maximum. */
uint64_t out_pct_needs(double p);

/* The samples l's percentiles rest on: count - negative. */
uint64_t out_pct_samples(const stat_lat *l);

/* When percentile p of l rests on too few samples (and l has samples at all), writes the note
 * "only <n> samples: this is the maximum" ("only 1 sample: ...", or "no samples at or above
 * zero") into buf of `size` bytes and returns true; otherwise buf is "" and it returns false. */
bool out_pct_note(char *buf, size_t size, const stat_lat *l, double p);

/* count / secs, or 0 when secs is not positive (where the originals would print nan/inf). */
double out_rate(double count, double secs);

/* (end_ns - start_ns) in seconds; 0 when start_ns is 0 (never started). end_ns 0 is taken as
 * now_ns. */
double out_secs(uint64_t start_ns, uint64_t end_ns, uint64_t now_ns);

/* What a summary block says of generic messages (ConsPerf, ProvPerf): the counts, and the
 * rates per second from the first one sent or received to the block's end. */
typedef struct out_genmsg {
    uint64_t sent, recv, lat_sent, lat_recv;
    double send_rate, recv_rate, lat_send_rate, lat_recv_rate;
} out_genmsg;

/* The figures of a block: the counts, the sending rates from first_sent_ns, the receiving
 * rates from first_recv_ns (0 = none: rate 0), each to end_ns. */
out_genmsg out_genmsg_of(uint64_t sent, uint64_t recv, uint64_t lat_sent, uint64_t lat_recv,
                         uint64_t first_sent_ns, uint64_t first_recv_ns, uint64_t end_ns);

/* The block's generic-message count lines, as the ETA tools print them: "GenMsgs sent" when
 * rate_on (-genericMsgRate), "GenMsgs received" when any, "GenMsg latencies sent" when
 * lat_rate_on (-genericMsgLatencyRate), "GenMsg latencies received" when any. */
void out_genmsg_counts(out_report *r, const out_genmsg *g, bool rate_on, bool lat_rate_on);

/* The block's average rate lines, under the same conditions as out_genmsg_counts. */
void out_genmsg_rates(out_report *r, const out_genmsg *g, bool rate_on, bool lat_rate_on);

/* ------------------------------------------------------------------------------------------ */
/* Console interval lines                                                                     */

/*
 * Writes the ETA tools' interval statistics line for label ("  Latency(usec)",
 * "  PostLat(usec)", "  Latency (usec)"...):
 *     "<label>: Avg:%6.1f StdDev:%6.1f Max:%6.0f Min:%6.0f, <unit>: <count>"
 * or, with thousandths, every value as %8.3f. unit is "Msgs" (or "Samples").
 */
void out_console_stat(FILE *f, const char *label, const stat_lat *l, bool thousandths,
                      const char *unit);

/*
 * Our console lines after an interval latency line (nothing when l has no samples):
 *     "<label> p50:%6.0f p90:%6.0f p99:%6.0f p99.9:%6.0f p99.99:%6.0f"   (%8.3f: thousandths)
 * followed, when some of them rest on too few samples (out_pct_needs), by
 *     " (only 10 samples: p99, p99.9, p99.99 are the maximum)"
 * and, when sched has samples, the scheduled-time view in the original line's format:
 *     "  Sched <label without its leading spaces>: Avg: ... Max: ... Min: ..., Msgs: <count>"
 */
void out_console_lat_extra(FILE *f, const char *label, const stat_lat *l, const stat_lat *sched,
                           bool thousandths);

/* An interval's lines for one latency kind, when l has samples (nothing otherwise): the
 * original's line (out_console_stat, unit "Msgs"), then ours (out_console_lat_extra). */
void out_console_lat(FILE *f, const char *label, const stat_lat *l, const stat_lat *sched,
                     bool thousandths);

/* An interval's generic-message lines (ConsPerf, ProvPerf), each only when it has something to
 * say: "  GenMsgs: sent <n>, received <n>, latencies sent <n>, latencies received <n>" (the
 * count of lat), "  - <n> gen msgs not sent due to lack of output buffers.", then the latency
 * lines ("  GenMsgLat(usec)", out_console_lat). */
void out_console_genmsgs(FILE *f, uint64_t sent, uint64_t recv, uint64_t lat_sent,
                         uint64_t out_of_bufs, const stat_lat *lat, const stat_lat *sched);

/* ------------------------------------------------------------------------------------------ */
/* CSV files                                                                                  */

/* A CSV file written a row at a time, flushed after each row. f is NULL while no file is open
 * (rows are then ignored); path is the file's name for error text, set by out_csv_open. */
typedef struct out_csv {
    FILE *f;
    char path[512];
    bool with_type; /* a latency log with the message type column (out_latlog_open) */
} out_csv;

/* Creates (truncates) path and writes the header line. Returns 0, or -1 (err_set naming the
 * file) when it cannot be created or written. */
int out_csv_open(out_csv *c, const char *path, const char *header);

/* Writes one formatted row (the caller gives the line without its newline) and flushes.
 * Returns 0, or -1 (err_set naming the file) on a write error. A closed/unopened csv ignores
 * rows (returns 0). */
int out_csv_row(out_csv *c, const char *fmt, ...) OUT_PRINTF(2, 3);

/* Closes the file. Returns 0, or -1 (err_set naming the file) when a write had failed. */
int out_csv_close(out_csv *c);

/* Formats t as the UTC "YYYY-MM-DD HH:MM:SS" of the statistics files (clk_utc_format) into buf
 * of `size` bytes (20 hold it whole; less truncates it, NUL-terminated). */
void out_utc(char *buf, size_t size, time_t t);

/* Appends to buf (NUL-terminated, of the given size) the header columns we add for one latency
 * kind ("Latency", "Posting Latency", "GenMsg Latency"):
 *     ", <Name> p50 (usec), <Name> p90 (usec), <Name> p99 (usec), <Name> p99.9 (usec),
 *      <Name> p99.99 (usec), Sched <Name> avg (usec), Sched <Name> p99 (usec),
 *      Sched <Name> max (usec)"
 * Returns 0, or -1 when buf is too small (buf is then left unchanged). */
int out_csv_lat_header(char *buf, size_t size, const char *name);

/* Writes a statistics file's header into buf (of the given size): the tool's own columns (the
 * original's), then out_csv_lat_header's columns for each latency kind of lat_kinds, a list
 * ended by NULL (NULL: none). Returns 0, or -1 when buf is too small. */
int out_csv_header(char *buf, size_t size, const char *columns, const char *const *lat_kinds);

/* Appends the eight values matching out_csv_lat_header for an interval: the percentiles of l
 * and avg / p99 / max of sched (zeros when sched is NULL or empty, and for an empty l), each
 * with `decimals` digits. A percentile that rests on too few samples (out_pct_needs) is left
 * blank (", , "): the columns stay where they are, a spreadsheet or gnuplot takes the cell as
 * missing rather than as text or as a figure, and the value it would have held is the row's
 * max, which has its own column. Returns 0, or -1 when buf is too small (left unchanged). */
int out_csv_lat_values(char *buf, size_t size, const stat_lat *l, const stat_lat *sched,
                       int decimals);

/* Latency log files (-latencyFile). The OMM tools' form has a message-type column:
 *     "Message type, Send time, Receive time, Latency (usec)"  rows "Upd, <send>, <recv>, <lat>"
 * and TransportPerf's has none, in nanoseconds:
 *     "Send Time, Receive Time, Latency(nsec)"                 rows "<send>, <recv>, <lat>"
 * The latency is printed signed (receive - send), so a negative value from unsynchronised
 * clocks shows as negative rather than as a huge unsigned number. */
int out_latlog_open(out_csv *c, const char *path, bool with_type);

/* Writes one latency log row; type is "Upd", "Pst", "Gen", or NULL for TransportPerf's form.
 * Not flushed: call out_latlog_flush() once per statistics interval. */
int out_latlog_row(out_csv *c, const char *type, uint64_t send, uint64_t recv);

/* Flushes a latency log. Returns 0, or -1 (err_set) on a write error. */
int out_latlog_flush(out_csv *c);

/* ------------------------------------------------------------------------------------------ */
/* JSON summary                                                                               */

/* What the JSON summary says about the machine. */
typedef struct out_host {
    char name[256];      /* host name */
    char kernel[400];    /* "<sysname> <release> <version> <machine>" */
    char cpu_model[256]; /* "model name" of /proc/cpuinfo, "" when unknown */
    int cores;           /* online logical CPUs */
} out_host;

/* Fills h with this machine's description. Never fails: unknown parts stay empty. */
void out_host_get(out_host *h);

/* The JSON summary's file name for a summary file name: a trailing ".out" replaced by ".json",
 * else ".json" appended ("ConsSummary.out" -> "ConsSummary.json"). Writes into buf; returns 0,
 * or -1 when it does not fit. */
int out_json_path(char *buf, size_t size, const char *summary_file);

/* A new JSON document with the members every tool's summary starts with:
 *     {"tool", "version", "git_revision", "host": {"name", "kernel", "cpu_model", "cores"},
 *      "pid", "written_utc", "clock": {"source", "clock_id"[, "test_skew_ns"]}}
 * ("clock": the process's clock, clk.h: "monotonic" or "realtime", and the skew when a test
 * set one)
 * host may be NULL (then filled with out_host_get). The caller owns the result. */
json_object *out_json_doc(const char *tool, const out_host *host, int pid, time_t now);

/* A new JSON object for a latency summary: {"count", "avg", "stddev", "min", "max", "p50",
 * "p90", "p99", "p99_9", "p99_99"} in microseconds, and "negative" (samples below zero) when
 * there are any. A percentile that rests on too few samples (out_pct_note) keeps its number
 * and gets "<key>_note" beside it: "p99_99_note": "only 110 samples: this is the maximum". */
json_object *out_json_lat(const stat_lat *l);

/* A new JSON object for the resource samples: {"samples", "cpu_max", "cpu_min", "cpu_avg",
 * "mem_max_mb", "mem_min_mb", "mem_avg_mb"}. */
json_object *out_json_res(const stat_res *r);

/* A JSON number for v written with up to 15 significant digits (184.6, not 184.59999999999999);
 * NaN and infinities, which JSON cannot hold, become 0. */
json_object *out_json_double(double v);

/* Adds key: value to obj, ignoring a NULL value (json-c allocation failure). */
void out_json_add(json_object *obj, const char *key, json_object *value);

/* Members of a JSON object given as a table, name beside value: a count (a JSON integer) or a
 * figure (a number as out_json_double writes it). */
typedef struct out_json_count {
    const char *key;
    uint64_t value;
} out_json_count;

typedef struct out_json_figure {
    const char *key;
    double value;
} out_json_figure;

/* The number of entries of an array, such as a table of members. */
#define OUT_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Adds the n members m[0..n) to obj in their order. */
void out_json_add_counts(json_object *obj, const out_json_count *m, size_t n);
void out_json_add_figures(json_object *obj, const out_json_figure *m, size_t n);

/* Adds key: out_json_lat(l) to obj when l has samples (nothing otherwise). */
void out_json_add_lat(json_object *obj, const char *key, const stat_lat *l);

/* Adds "offered_<what>_rate": offered and "achieved_<what>_rate": achieved (per connection) to
 * obj; what is "update", "genmsg", "msg"... */
void out_json_add_rates(json_object *obj, const char *what, int offered, double achieved);

/* Makes the JSON object of one thread's figures (thread 0-based), or of every thread together
 * when thread is -1. */
typedef json_object *(*out_json_stats_fn)(const void *ctx, int thread);

/* Builds a tool's JSON summary: out_json_doc's members, "inputs" (taken over; released when
 * the document cannot be made), then "results" {"overall": stats(ctx, -1), "threads": one
 * stats(ctx, i) per thread, "resources"}. Sets *results (when results is not NULL) to the
 * results object, to which the tool may add members after those. The caller owns the result;
 * NULL when out of memory. */
json_object *out_json_summary(const char *tool, const out_host *host, int pid, time_t now,
                              json_object *inputs, int thread_count, out_json_stats_fn stats,
                              const void *ctx, const stat_res *res, json_object **results);

/* Writes doc to path as indented JSON followed by a newline. Returns 0, or -1 (err_set naming
 * the file). Does not release doc. */
int out_json_write(const char *path, json_object *doc);

#endif

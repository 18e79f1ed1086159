/*
 * report: the model of rwfperf-report, which turns result folders into one HTML page.
 *
 * A result folder holds what the tools write (JSON summaries, summaries, statistics CSVs,
 * histogram logs), in it or in subfolders (a run with several processes, a fleet's
 * results/<run id>/<host>/...), or a rate sweep of scripts/bench.sh (its bench.csv and the
 * runs/ folder of each row's files). Everything found is read into one `rpt`:
 *
 *   - processes, told apart by tool, host and pid as rwfperf-merge does: a JSON summary and
 *     the histogram logs that name the same tool, host and pid are one process; a statistics
 *     CSV belongs to the process of the JSON summary in its folder whose statistics file name
 *     it carries (a CSV without one, the original tools' for instance, is a process of its
 *     own, named by its folder);
 *   - the histogram logs' intervals, kept per latency kind for the latency over time;
 *   - the statistics CSVs' rows, for the rates, CPU and memory over time;
 *   - sweeps: the rows of each bench.csv.
 *
 * Figures are never recomputed differently from the tools: counts, rates, verdicts and
 * percentiles of one process are its JSON summary's; several processes are combined by the
 * merge library (merge.h), as rwfperf-merge combines them; percentiles over time and the
 * percentile distributions are read from the histograms with the merge's code
 * (hdr_hist_percentile).
 *
 * Bad input (a file cut off or malformed, files of two different runs mixed, a folder with no
 * results) is recorded with its file and line (rpt_bad); the page is then not written.
 */
#ifndef RWFPERF_REPORT_H
#define RWFPERF_REPORT_H

#include "hdr.h"
#include "merge.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define RPT_PATH 1024

/* The four tools, in the order the page shows them (the first present is the headline). */
enum { RPT_CONS, RPT_TRANSPORT, RPT_NIPROV, RPT_PROV, RPT_TOOLS };

/* Name of tool t ("ConsPerf" ...); rpt_tool_of gives the index of a name, -1 if none. */
const char *rpt_tool_name(int t);
int rpt_tool_of(const char *name);

/* ------------------------------------------------------------------------------------------ */
/* Statistics CSV files                                                                       */

typedef struct rpt_csv {
    char path[RPT_PATH];
    int tool;    /* from the header's columns */
    int thread;  /* from the name (ConsStats<n>.csv, TransportStats<n>_<pid>.csv); 0: none */
    int pid;     /* TransportStats<n>_<pid>.csv; 0: none */
    int ncols;   /* header columns, UTC included */
    char **cols; /* their names, trimmed */
    int nrows;
    double *t; /* each row's UTC stamp, seconds since the epoch (its interval's end) */
    double *v; /* nrows x ncols values; column 0 unused; NAN for a blank cell */
    int *line; /* each row's line number */
    int proc;  /* the process it belongs to */
} rpt_csv;

/* The column named name (case-insensitive), or -1. */
int rpt_csv_col(const rpt_csv *c, const char *name);

/* Releases what c holds. */
void rpt_csv_free(rpt_csv *c);

/* ------------------------------------------------------------------------------------------ */
/* Histogram logs                                                                             */

/* One interval of one latency kind, its non-zero counters in the latency layout. */
typedef struct rpt_iv {
    double start, end; /* seconds since the epoch */
    int64_t max_ns;    /* exact maximum, -1 when none */
    uint64_t total;
    int32_t n;     /* non-zero counters */
    int32_t *idx;  /* their indexes (hdr_layout_lat) */
    uint64_t *cnt; /* their counts */
} rpt_iv;

typedef struct rpt_kind_ivs {
    char tag[64];
    rpt_iv *iv;
    int n, cap;
} rpt_kind_ivs;

typedef struct rpt_log {
    char path[RPT_PATH];
    char tool[32], host[128], version[32], git_rev[48];
    int pid, thread;
    int host_line;     /* the "#[Host: ..." line, 0 when absent */
    int first_line;    /* the first interval's line */
    double start, end; /* span of its intervals */
    rpt_kind_ivs *kinds;
    int nkinds;
    int proc;
} rpt_log;

/* ------------------------------------------------------------------------------------------ */
/* Processes                                                                                  */

enum { RPT_UNKNOWN, RPT_PASSED, RPT_FAILED, RPT_INTERRUPTED };

typedef struct rpt_proc {
    int tool;
    char host[256];
    int pid;
    char folder[RPT_PATH];
    char label[128];   /* "ConsPerf 23210", with its host when there are several */
    json_object *json; /* its JSON summary, NULL when none */
    char json_path[RPT_PATH];
    int json_line_written; /* line of "written_utc" in it (for messages) */
    double written;        /* written_utc, seconds since the epoch; -1 when unknown */
    char *test_inputs;     /* the TEST INPUTS block of its summary file, NULL when none */
    int *csvs, ncsv;       /* indexes into rpt.csvs, thread order */
    int *logs, nlog;       /* indexes into rpt.logs */
    double start, end;     /* span of its files' times; end < 0: none */
    /* Its verdict (report_verdict.c). */
    int status;
    char reason[512];
    char **warnings;
    int nwarn;
} rpt_proc;

/* ------------------------------------------------------------------------------------------ */
/* Sweeps (scripts/bench.sh)                                                                  */

typedef struct rpt_sweep_row {
    char mode[16], pair[8], pack[8];
    double offered;
    double received; /* NAN: none (no images, or the run failed) */
    char received_text[24];
    double p50, p99, p999, sched_p99; /* usec; NAN when none */
    double cons_cpu, cons_mem, cons_ns, prov_cpu, prov_mem, prov_ns;
    bool held;
    double load;
    char run[RPT_PATH]; /* its files' folder, relative to the sweep's */
    int line;
} rpt_sweep_row;

typedef struct rpt_sweep {
    char path[RPT_PATH];
    char folder[RPT_PATH];
    rpt_sweep_row *rows;
    int nrows, cap;
    json_object *env; /* a JSON summary of one of its runs (ours), for the environment */
    char env_path[RPT_PATH];
} rpt_sweep;

/* Did row i miss its steady state (no images) at a rate above one its configuration (mode,
 * pair, packing) held? Its limit, what a sweep looks for, not a failure of the sweep. */
bool rpt_sweep_beyond(const rpt_sweep *s, int i);

/* ------------------------------------------------------------------------------------------ */
/* The whole input                                                                            */

typedef struct rpt_bad {
    char file[RPT_PATH];
    int line; /* 0: the whole file */
    char what[512];
} rpt_bad;

typedef struct rpt {
    const char *const *folders;
    int nfolders;
    rpt_proc *procs;
    int nprocs, proc_cap;
    rpt_csv *csvs;
    int ncsvs, csv_cap;
    rpt_log *logs;
    int nlogs, log_cap;
    rpt_sweep *sweeps;
    int nsweeps, sweep_cap;
    char **ignored; /* result-like files that are not results (another program's JSON ...) */
    int nignored;
    char **clock_files; /* host clock files (the fleet playbook's host_clock.json) */
    int nclock_files;
    char **hosts; /* distinct host names, first-seen order */
    int nhosts;
    rpt_bad *bad;
    int nbad, bad_cap;
    char **warnings; /* run-wide warnings (versions that differ, ...) */
    int nwarn;
    double start, end; /* span of every process */
    /* Combined figures: one merge per tool present (files of that tool only), one per host
     * when there are several hosts. NULL when absent. */
    merge *by_tool[RPT_TOOLS];
    merge **by_host;
    /* The verdict of the whole input (report_verdict.c). */
    int status;
    char reason[1024];
} rpt;

/* Records a bad input (file, line 0 for the whole file). Returns -1. */
int rpt_bad_add(rpt *r, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Appends a formatted line to a list of strings (*list, *n). Out of memory drops it. */
void rpt_list_add(char ***list, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "YYYY-MM-DD HH:MM:SS" (UTC) into seconds since the epoch. Returns 0, or -1 when it is not
 * such a time. */
int rpt_utc_parse(const char *s, double *t);

/* The UTC time t (seconds since the epoch) written with strftime's fmt into buf; "?" when t
 * is not a time from 1970 to 9999. */
void rpt_utc_format(char *buf, size_t size, double t, const char *fmt);

/* The statistics interval of process p in seconds: its JSON summary's -writeStatsInterval,
 * else the most common step between its CSV rows, else 5 (the tools' default). */
double rpt_proc_interval(const rpt *r, const rpt_proc *p);

/* Grows *p (of *cap elements of size sz) to hold n + 1. Returns 0, or -1 when out of memory. */
int rpt_grow(void *p, int *cap, int n, size_t sz);

/* Reads everything under the folders into r (report_scan.c). Returns 0, or -1 when something
 * was bad (recorded in r->bad); fails (-2) only when out of memory. */
int rpt_scan(rpt *r, const char *const *folders, int nfolders);

/* Reads one statistics CSV file (report_csv.c) into c, its tool told by its header. Returns 0,
 * 1 when the file is not a statistics CSV (nothing recorded), or -1 after rpt_bad_add. */
int rpt_csv_read(rpt *r, const char *path, rpt_csv *c);

/* Reads a bench.csv (report_csv.c). Returns 0, 1 when not one, or -1 after rpt_bad_add. */
int rpt_sweep_read(rpt *r, const char *path, rpt_sweep *s);

/* Reads one histogram log's intervals (report_hlog.c). Returns 0, or -1 after rpt_bad_add. */
int rpt_log_read(rpt *r, const char *path, rpt_log *l);

/* Checks that the files are of one run (report_check.c): logs and CSVs against the JSON
 * summary of their folder, and every process's time against the others'. Returns 0, or -1
 * after rpt_bad_add. */
int rpt_check(rpt *r);

/* Builds the combined figures (r->by_tool, r->by_host) by reading the processes' JSON
 * summaries and logs with the merge library. Returns 0, -1 after rpt_bad_add, -2 when out of
 * memory. */
int rpt_combine(rpt *r);

/* Sets each process's verdict and warnings and the whole input's (report_verdict.c). */
void rpt_verdict(rpt *r);

/* The name of a status ("passed" ...). */
const char *rpt_status_name(int status);

/* Latency over time of one kind of one tool (report_hlog.c): every process's intervals summed
 * per time slot (the most common interval length), each slot's p50 and p99 read from the sum
 * as rwfperf-merge reads percentiles, its max the largest exact interval maximum. */
typedef struct rpt_slot {
    double t; /* the slot's end, seconds since the epoch */
    uint64_t samples;
    double p50, p99, max; /* usec */
} rpt_slot;

/* Fills *out (malloc'ed, *n slots with samples) for the kind tag of tool. Returns 0, or -1
 * when out of memory. */
int rpt_slots(const rpt *r, int tool, const char *tag, rpt_slot **out, int *n);

/* The kinds (tags) the logs of tool hold, in the merge's report order, into tags (at most
 * max). Returns the count. Negative-sample series are left out. */
int rpt_log_kinds(const rpt *r, int tool, const char **tags, int max);

/* Releases everything r holds. */
void rpt_free(rpt *r);

/* ------------------------------------------------------------------------------------------ */
/* Charts and page                                                                            */

/* A chart: the SVG gnuplot drew for it, or why there is none. */
typedef struct rpt_chart {
    char id[128]; /* its id in the page ("rates-updates") */
    char title[160];
    char *svg;     /* the SVG text, ids made unique in the page; NULL when not drawn */
    char *caption; /* how to read it */
} rpt_chart;

typedef struct rpt_charts {
    rpt_chart *c;
    int n, cap;
    char gnuplot_error[512]; /* "" when every chart was drawn */
} rpt_charts;

/* Builds and draws every chart of r (report_figs.c defines them, report_plot.c draws them
 * with gnuplot in tmpdir). Returns 0, or -1 when out of memory. A gnuplot that is missing or
 * fails is not an error here: the charts are then left without SVG and gnuplot_error says
 * why. */
int rpt_charts_make(const rpt *r, rpt_charts *out, const char *tmpdir);

void rpt_charts_free(rpt_charts *c);

/* Writes the page to f (report_html.c). Returns 0, or -1 on a write error. */
int rpt_html_write(const rpt *r, const rpt_charts *charts, FILE *f);

/* ------------------------------------------------------------------------------------------ */
/* Drawing (report_plot.c)                                                                    */

/* One series of a chart being defined. */
typedef struct rpt_series {
    char title[96];
    char colour[16]; /* "" for the palette's */
    int dash;        /* 0 for the cycle's */
    int marker;      /* 0 for the cycle's, -1 none (marks: the marker, 7 filled, 6 hollow) */
    double *x, *y;
    int n, cap;
} rpt_series;

typedef struct rpt_plot {
    char title[160], xlabel[96], ylabel[96], note[256];
    const char *xmode; /* "time", "linear", "log", "percentile" */
    double xmin, xmax; /* a "time" chart's x range when xmax > xmin (shared by a page's charts) */
    bool logy, diag, steps;
    rpt_series *lines;
    int nlines, lines_cap;
    rpt_series *marks;
    int nmarks, marks_cap;
} rpt_plot;

/* A new series of p (a line, or marks). NULL when out of memory. */
rpt_series *rpt_plot_line(rpt_plot *p, const char *title);
rpt_series *rpt_plot_mark(rpt_plot *p, const char *title, const char *colour, int marker);

/* Adds a point; a NAN y breaks the line there. Returns 0, or -1 when out of memory. */
int rpt_series_add(rpt_series *s, double x, double y);

/* Marks each line series that has the same values as an earlier one (values at the same x,
 * equal within 0.5% of the larger) with " (= <that series' title>)" in its title. */
void rpt_plot_same(rpt_plot *p);

/* True when p has a point to draw. */
bool rpt_plot_any(const rpt_plot *p);

void rpt_plot_free(rpt_plot *p);

/* Draws the plots with gnuplot into SVG text (*svgs[i], malloc'ed; NULL for a plot that has
 * nothing to draw), using the chart template, in tmpdir. id_prefix[i] makes the SVG's ids
 * unique in a page. Returns 0, or -1 with err text in errbuf (gnuplot missing or failing);
 * -2 when out of memory. */
int rpt_plot_draw(rpt_plot *const *plots, const char *const *id_prefix, int n, const char *tmpdir,
                  char **svgs, char *errbuf, size_t errsize);

/* The chart template (chart.gp), built into the program. */
extern const char rpt_chart_gp[];

#endif

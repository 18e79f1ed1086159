/*
 * merge: the model of rwfperf-merge, which combines the JSON summaries and histogram logs
 * (-histogramLog) of any number of runs into one report.
 *
 * Inputs are grouped into processes: a JSON summary and the histogram logs whose header names
 * the same tool, host and pid belong to one process (a consumer's threads each write a log).
 * For every latency kind (the log's tag: update, sched-update, post, genmsg, oneway, rtt, ...)
 * a process holds the sum of its logs' interval histograms; the combined report holds the sum
 * over the processes. Percentiles are read from those summed histograms only (never averaged);
 * a kind known from JSON summaries alone gets its exact count, mean, min and max, and no
 * percentiles. A "<kind>-negative" series, and the "negative" member of a JSON latency object,
 * count samples below zero (clocks of two hosts that disagree).
 *
 * An input that cannot be read whole (a cut-off or corrupt log, another program's file, other
 * units) is reported with its file and line and left out entirely; the others are merged.
 *
 * Clocks: each process's clock ("monotonic", "realtime") comes from its summary or logs, the
 * consumers' measured offset to their provider from their summaries, and each host's clock
 * synchronisation from a host clock file (a JSON document {"host_clock": {"host", "sync",
 * "synchronised", "offset_ns", "detail"}}, written by the multi-host playbook from chrony or
 * ptp4l). One-way latency (a receiver's clock minus a sender's stamp) between different hosts
 * is valid only when every process stamps with the realtime clock and every host's clock is
 * known to be synchronised; merge_clocks says whether it is, and why not. Round-trip measures
 * (posting latency, TransportPerf's rtt) are valid whatever the clocks.
 */
#ifndef RWFPERF_MERGE_H
#define RWFPERF_MERGE_H

#include "hdr.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define MERGE_KINDS 16 /* latency kinds per process */
#define MERGE_TOTALS 24

/* One latency kind of a process, or of the combination. */
typedef struct merge_kind {
    char tag[64];
    /* From histogram logs. */
    bool has_hist;
    hdr_hist hist;     /* summed interval histograms (non-negative samples) */
    int64_t max_ns;    /* largest Interval_Max, exact ns; -1 when none */
    uint64_t negative; /* samples below zero ("<tag>-negative" series) */
    int hist_procs;    /* processes whose logs had this kind */
    /* From JSON summaries (microseconds, exact): pooled count, mean and squared deviations. */
    bool has_json;
    uint64_t j_count;
    double j_mean, j_m2, j_min, j_max;
    uint64_t j_negative;
    int json_procs; /* processes whose summary had this kind */
    int procs;      /* processes having it either way */
} merge_kind;

/* The summed counters of a JSON summary's results (see merge_report.c's table). */
typedef struct merge_totals {
    bool have[MERGE_TOTALS];
    double v[MERGE_TOTALS];
} merge_totals;

/* A consumer's measured clock offset to its provider (ConsSummary.json results.clock_offset). */
typedef struct merge_offset {
    bool measured;
    double offset_usec, bound_usec;
    bool larger_than_latency; /* the consumer found it as large as its update latency */
    char why[96];             /* when not measured: the summary's reason */
} merge_offset;

/* One process: its JSON summary and/or its histogram logs. */
typedef struct merge_proc {
    char tool[32];
    char host[256];
    int pid;
    char clock[16];  /* its clock, "" when no input named it (older tools: monotonic) */
    bool has_offset; /* its summary held results.clock_offset */
    merge_offset offset;
    char files[2048]; /* the inputs read for it, ", " separated */
    int logs;         /* histogram logs read */
    bool has_json;
    merge_totals totals;
    double start, end; /* span of its intervals, seconds since the epoch; end < 0: none */
    merge_kind kinds[MERGE_KINDS];
    int nkinds;
} merge_proc;

/* A host's clock synchronisation, from a host clock file. */
typedef struct merge_host {
    char host[256];
    char sync[32];     /* "chrony", "ptp4l", "unknown" */
    bool synchronised; /* the host reports its clock synchronised */
    bool has_offset;
    double offset_ns; /* its reported offset from its reference */
    char detail[256];
    char file[512];
} merge_host;

/* Whether one-way latency between hosts is valid, and why not. */
typedef struct merge_clock_verdict {
    int hosts;       /* distinct hosts among the processes */
    bool one_way_ok; /* one host, or realtime clocks everywhere, all hosts synchronised */
    char why[1024];  /* when not: "clock monotonic on a, b; synchronisation unknown on c" */
} merge_clock_verdict;

/* A bad input: what and where. */
typedef struct merge_bad {
    char file[512];
    int line; /* 0 when the whole file is concerned */
    char what[1024];
} merge_bad;

typedef struct merge {
    merge_proc *procs;
    int nprocs, cap;
    merge_bad *bad;
    int nbad, badcap;
    char **warnings;
    int nwarn;
    merge_host *hosts; /* host clock files read */
    int nhosts;
    hdr_codec codec;
    merge_proc combined; /* filled by merge_combine */
} merge;

/* Reads one input file (a histogram log or a JSON summary, told apart by its content) into m.
 * Returns 0, or -1 after recording it in m->bad (the file is then left out). Fails (-2) only
 * when out of memory. */
int merge_read_file(merge *m, const char *path);

/* Reads the rest of stream f into a new NUL-terminated buffer (*text, *len bytes before the NUL;
 * the caller frees it). Does not close f. Returns 0; -1 on a read error; -2 out of memory (nothing
 * allocated is left behind in either failure). */
int merge_slurp(FILE *f, char **text, size_t *len);

/* The same from f, a file or a buffer opened with fmemopen, read from its start and closed
 * here; path names it in what m records. */
int merge_read_stream(merge *m, const char *path, FILE *f);

/* Sums the processes into m->combined. Returns 0, or -1 (err_set) when out of memory. */
int merge_combine(merge *m);

/* Adds a warning line (formatted) to m. */
void merge_warn(merge *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The kind of tag in p, added when absent (NULL when the table is full). */
merge_kind *merge_kind_get(merge_proc *p, const char *tag);

/* The percentile p of a kind from its histogram, in ns (see hdr_hist_percentile). */
double merge_kind_pct(const merge_kind *k, double p);

/* The host clock file read for host, or NULL. */
const merge_host *merge_host_of(const merge *m, const char *host);

/* Whether one-way latency between the processes' hosts is valid (see above). */
merge_clock_verdict merge_clocks(const merge *m);

/* A kind that is a one-way measure (a receiver's clock minus a sender's stamp): update,
 * sched-update, genmsg, sched-genmsg, oneway, sched-oneway. */
bool merge_kind_one_way(const char *tag);

/* Releases everything m holds. */
void merge_free(merge *m);

/* The summary label of a kind ("Latency" for update, "Sched latency", "Posting latency", ...)
 * and the decimals its values are printed with. */
const char *merge_kind_label(const char *tag, int *decimals);

/* The position of a kind in the report order (update, sched-update, post, ...; unknown tags
 * after every known one). */
int merge_kind_rank(const char *tag);

/* Writes the combined report as text to f (stdout and <prefix>.txt). */
void merge_write_text(const merge *m, FILE *f);

/* The report as a JSON document (caller releases it). */
json_object *merge_json(const merge *m);

/* Writes <path>: the percentile distribution of every kind combined and of each process's main
 * kind, for the plot script. Returns 0, or -1 (err_set). */
int merge_write_percentiles(const merge *m, const char *path);

/* The names and labels of the summed totals. */
int merge_total_count(void);
const char *merge_total_key(int i);
const char *merge_total_label(int i);

#endif

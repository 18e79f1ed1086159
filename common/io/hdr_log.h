/*
 * hdr_log: HdrHistogram interval logs (the text format of HdrHistogram's HistogramLogWriter
 * and HistogramLogReader), written by the tools (-histogramLog) and read by rwfperf-merge.
 *
 * A log we write:
 *
 *     #[rwfperf histogram log: ConsPerf 1.0.0 1a2b3c4d5e6f]
 *     #[Host: apphost1, pid 23210, thread 1]
 *     #[Clock: monotonic]
 *     #[Values: nanoseconds, Interval_Max in milliseconds]
 *     #[Histogram log format version 1.3]
 *     #[StartTime: 1764188769.123 (seconds since epoch), Wed Nov 26 20:26:09 UTC 2026]
 *     #[BaseTime: 1764188769.123 (seconds since epoch)]
 *     "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *     Tag=update,0.000,5.000,0.091354,HISTFAAAAC...
 *     Tag=sched-update,0.000,5.000,0.788021,HISTFAAAAD...
 *
 * Every '#' line is a comment to HdrHistogram's readers; the first four are ours and tell
 * rwfperf-merge which tool, process and thread wrote the log, with which clock (clk.h: the
 * stamps' clock; logs written before it was named have no such line) and in what unit. StartTime
 * and BaseTime are the run's start (wall clock); an interval's start is in seconds from BaseTime.
 * Each interval line: an optional "Tag=<tag>," then start, length (seconds, 3 decimals), the
 * interval's exact maximum (in milliseconds, as HdrHistogram's writers put it for values in
 * nanoseconds, with 6 decimals so that it stays exact to the nanosecond) and the base64 of the
 * compressed V2 histogram (hdr.h). Comment lines stay under 127 characters and all come before
 * the legend: HdrHistogram's C reader reads header lines into a 128-byte buffer and accepts
 * comments only there.
 *
 * The writer belongs to one thread (the collector) and writes at interval ends only; it keeps
 * its codec, so a line allocates nothing once the codec's buffers have grown.
 */
#ifndef RWFPERF_HDR_LOG_H
#define RWFPERF_HDR_LOG_H

#include "hdr.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HDR_LOG_UNITS "nanoseconds"
#define HDR_LOG_TAG_MAX 64 /* longest tag, NUL included */

/* Who writes a log: the identification lines of its header. */
typedef struct hdr_log_id {
    const char *tool;    /* "ConsPerf" ... */
    const char *version; /* "1.0.0" */
    const char *git_rev; /* short revision, or "unknown" */
    const char *host;    /* host name (cut to fit the line) */
    int pid;
    int thread;        /* 1-based thread of the tool's files (ConsStats<n>.csv), 0 for none */
    const char *clock; /* the clock of the tool's stamps ("monotonic"), NULL: not written */
} hdr_log_id;

typedef struct hdr_log_writer {
    FILE *f;
    char path[512];
    double base; /* BaseTime, seconds since the epoch */
    hdr_codec codec;
} hdr_log_writer;

/* Creates (truncates) path and writes the header with StartTime = BaseTime = start_epoch
 * (seconds since the epoch). Returns 0, or -1 (err_set naming the file). */
int hdr_log_open(hdr_log_writer *w, const char *path, const hdr_log_id *id, double start_epoch);

/*
 * Writes one interval line: tag (NULL or "" for none; no comma, space or line break), the
 * interval's start (seconds since the epoch) and length in seconds, its exact maximum in ns
 * (< 0: none, written as 0), and the histogram's counts of layout lay. Returns 0, or -1 (err_set
 * naming the file) on a bad tag, an encoding failure or a write error. Not flushed.
 */
int hdr_log_write(hdr_log_writer *w, const char *tag, double start_epoch, double length,
                  int64_t max_ns, const hdr_layout *lay, const uint64_t *counts);

/* Flushes the file. Returns 0, or -1 (err_set naming the file) when a write failed. */
int hdr_log_flush(hdr_log_writer *w);

/* Closes the file and releases the codec. Returns 0, or -1 (err_set) when a write failed.
 * Safe on a writer never opened (f == NULL). */
int hdr_log_close(hdr_log_writer *w);

/* ------------------------------------------------------------------------------------------ */
/* Reading                                                                                    */

/* What a log's header lines said. Strings are "" and numbers -1 when the line was absent. */
typedef struct hdr_log_info {
    bool rwfperf; /* our identification line was read */
    char tool[32];
    char version[32];
    char git_rev[48];
    char host[128];
    int pid;
    int thread;
    char clock[16];   /* from "#[Clock: <clock>]" ("" when absent) */
    char units[32];   /* from "#[Values: <units>, ..." */
    int units_line;   /* its line number */
    double start;     /* StartTime, seconds since the epoch */
    double base;      /* BaseTime */
    int format_major; /* "Histogram log format version <major>.<minor>" */
    int format_minor;
} hdr_log_info;

/* One interval line. */
typedef struct hdr_log_entry {
    char tag[HDR_LOG_TAG_MAX]; /* "" when untagged */
    double start;              /* as written: seconds from BaseTime (or absolute) */
    double length;             /* seconds */
    double max;                /* Interval_Max as written */
    hdr_hist hist;             /* the decoded histogram; reused, release with hdr_hist_free */
    int line;                  /* its line number */
} hdr_log_entry;

typedef struct hdr_log_reader {
    FILE *f;
    char path[512];
    char *buf;
    size_t cap;
    int line; /* lines read so far */
    hdr_log_info info;
    hdr_codec codec;
} hdr_log_reader;

/* Opens path for reading. Returns 0, or -1 (err_set naming the file). */
int hdr_log_reader_open(hdr_log_reader *r, const char *path);

/* Reads the log from f (a file, or a buffer opened with fmemopen) from where it stands; name
 * stands for it in error text. The reader owns f from here on: hdr_log_reader_close closes it. */
void hdr_log_reader_open_stream(hdr_log_reader *r, const char *name, FILE *f);

/*
 * Reads lines up to the next interval line, taking in the header lines on the way (r->info).
 * Returns 1 with the interval in e, 0 at the end of the file, or -1 with err text
 * "line <n>: <what>" on a malformed line: fields missing or not numbers, a bad tag, bad
 * base64, a histogram that does not decode, or a last line with no line end (a cut-off file).
 */
int hdr_log_next(hdr_log_reader *r, hdr_log_entry *e);

/* Closes the file and releases the reader's buffers. */
void hdr_log_reader_close(hdr_log_reader *r);

#endif

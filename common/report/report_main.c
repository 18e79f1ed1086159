/*
 * rwfperf-report: one self-contained HTML page from result folders: a run (one or several
 * processes), a fleet's results (a folder of per-host folders), or a scripts/bench.sh sweep.
 * See report.h for what is read and docs/report.md for what the page shows.
 *
 *   rwfperf-report [-o FILE] FOLDER...
 *
 * Exit status: 0 the page was written; 1 it could not be written, or it was written without
 * its charts (gnuplot missing or failing: said on stderr and on the page); 2 invalid command
 * line or bad input (each bad file named with its line; no page is written).
 */
#include "err.h"
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
    "Usage: rwfperf-report [-o FILE] FOLDER...\n"
    "\n"
    "Turns result folders into one HTML page that needs nothing else to be viewed: the verdict\n"
    "and why, the figures (the JSON summaries'; several processes combined as rwfperf-merge\n"
    "combines them), the environment and TEST INPUTS, then charts: rates over time per process\n"
    "and in total, latency over time, the latency distribution by percentile, CPU and memory;\n"
    "a table per host for a fleet; offered against received rate, CPU per update and p99 for\n"
    "a scripts/bench.sh sweep (a folder holding bench.csv).\n"
    "\n"
    "A folder holds one run's files (ConsSummary.json, ConsStats1.csv, hist1.hlog, ...), in it\n"
    "or in subfolders (one per process or per host). Charts are drawn with gnuplot.\n"
    "\n"
    "  -o FILE   the page (default: FOLDER/report.html, the first folder's)\n"
    "  -h, -?    this text\n"
    "\n"
    "Exit status: 0 written; 1 not written, or written without charts (gnuplot missing or\n"
    "failing); 2 invalid command line or bad input (a file cut off or malformed, files of two\n"
    "runs mixed, a folder with no results: named with file and line, and no page written).\n";

/* Removes the files of folder dir (flat, as the charts leave it) and the folder. */
static void remove_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[PATH_MAX];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
                (size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < sizeof(path))
                unlink(path);
        closedir(d);
    }
    rmdir(dir);
}

/* Prints each bad input as "rwfperf-report: file:line: what". */
static void print_bad(const rpt *r)
{
    for (int b = 0; b < r->nbad; b++) {
        if (r->bad[b].line > 0)
            fprintf(stderr, "rwfperf-report: %s:%d: %s\n", r->bad[b].file, r->bad[b].line,
                    r->bad[b].what);
        else
            fprintf(stderr, "rwfperf-report: %s: %s\n", r->bad[b].file, r->bad[b].what);
    }
}

/* Writes the page to out through a temporary file beside it, renamed at the end, so that no
 * half-written page is ever left. Returns 0, or -1 after saying why. */
static int write_page(const rpt *r, const rpt_charts *ch, const char *out)
{
    char tmp[PATH_MAX];
    const char *slash = strrchr(out, '/');
    if ((size_t)snprintf(tmp, sizeof(tmp), "%.*s%s.%s.XXXXXX", slash ? (int)(slash - out) : 0, out,
                         slash ? "/" : "", slash ? slash + 1 : out) >= sizeof(tmp)) {
        fprintf(stderr, "rwfperf-report: %s: path too long\n", out);
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "rwfperf-report: cannot create a file beside %s: %s\n", out,
                strerror(errno));
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        fprintf(stderr, "rwfperf-report: %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    int rc = rpt_html_write(r, ch, f);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0)
        rc = -1;
    if (fclose(f) != 0)
        rc = -1;
    if (rc == 0 && chmod(tmp, 0644) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, out) != 0)
        rc = -1;
    if (rc != 0) {
        fprintf(stderr, "rwfperf-report: cannot write %s: %s\n", out, strerror(errno));
        unlink(tmp);
    }
    return rc;
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc && argv[i + 1][0]) {
            out = argv[++i];
        } else if (strcmp(argv[i], "-?") == 0 || strcmp(argv[i], "-h") == 0 ||
                   strcmp(argv[i], "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else {
            fprintf(stderr, "rwfperf-report: %s: %s\n%s", argv[i],
                    strcmp(argv[i], "-o") == 0 ? "needs a file name" : "unknown option",
                    usage_text);
            return 2;
        }
    }
    if (i == argc) {
        fprintf(stderr, "rwfperf-report: no folder given\n%s", usage_text);
        return 2;
    }
    char def[PATH_MAX];
    if (!out) {
        snprintf(def, sizeof(def), "%s/report.html", argv[i]);
        out = def;
    }
    rpt r = {0};
    int rc = rpt_scan(&r, (const char *const *)argv + i, argc - i);
    if (rc == 0)
        rc = rpt_check(&r);
    if (rc == 0)
        rc = rpt_combine(&r);
    if (rc == -2) {
        fprintf(stderr, "rwfperf-report: out of memory\n");
        rpt_free(&r);
        return 1;
    }
    if (rc != 0 || r.nbad) {
        print_bad(&r);
        fprintf(stderr, "rwfperf-report: bad input: no report written\n");
        rpt_free(&r);
        return 2;
    }
    rpt_verdict(&r);

    char tmpdir[PATH_MAX];
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof(tmpdir), "%s/rwfperf-report.XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "rwfperf-report: cannot make a temporary folder %s: %s\n", tmpdir,
                strerror(errno));
        rpt_free(&r);
        return 1;
    }
    rpt_charts ch;
    rc = rpt_charts_make(&r, &ch, tmpdir);
    remove_tmp(tmpdir);
    int status = 0;
    if (rc != 0) {
        fprintf(stderr, "rwfperf-report: out of memory\n");
        status = 1;
    } else {
        if (ch.gnuplot_error[0]) {
            fprintf(stderr, "rwfperf-report: %s\n", ch.gnuplot_error);
            status = 1;
        }
        if (write_page(&r, &ch, out) != 0)
            status = 1;
        else
            printf("wrote %s (%s)\n", out, rpt_status_name(r.status));
    }
    rpt_charts_free(&ch);
    rpt_free(&r);
    return status;
}

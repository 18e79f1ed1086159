/*
 * rwfperf-merge: one report from the JSON summaries and histogram logs of any number of runs
 * (processes, hosts, items). See merge.h for what is combined and how; the README for use.
 *
 *   rwfperf-merge [-o <prefix>] <file>...
 *
 * Writes the report to standard output and to <prefix>.txt, <prefix>.json, the percentile
 * table <prefix>_percentiles.csv and its plot <prefix>.png (drawn by scripts/plot.sh).
 * Exit status: 0 merged; 1 an output could not be written or drawn; 2 invalid command line,
 * nothing to merge, or a bad input (named with its file and line; the others are merged).
 */
#include "err.h"
#include "merge.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char usage_text[] =
    "Usage: rwfperf-merge [-o <prefix>] <file>...\n"
    "\n"
    "Combines the JSON summaries (ConsSummary.json, ...) and the histogram logs (-histogramLog)\n"
    "of any number of runs into one report: total counts and rates, exact latency percentiles\n"
    "of the merged histograms, a line per process, and the samples below zero (clocks that\n"
    "disagree). Files are recognised by their content; a summary and the logs that name the\n"
    "same tool, host and pid are one process.\n"
    "\n"
    "  -o <prefix>  write <prefix>.txt, <prefix>.json, <prefix>_percentiles.csv and\n"
    "               <prefix>.png (default: merged)\n"
    "  -?, -h       this text\n"
    "\n"
    "Exit status: 0 merged; 1 an output could not be written or drawn; 2 invalid command line,\n"
    "nothing to merge, or a bad input (named with its file and line; the other inputs are\n"
    "merged all the same).\n";

/* The plot script: $RWFPERF_PLOT, else beside an installed or built executable, else in the
 * source tree this was built from. Returns 0 with the path in buf, or -1 (err_set). */
static int find_plot(char *buf, size_t size)
{
    const char *env = getenv("RWFPERF_PLOT");
    if (env && env[0]) {
        snprintf(buf, size, "%s", env);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        const char *dir = dirname(exe);
        const char *rel[] = {"../share/rwfperf/plot.sh", "../../scripts/plot.sh"};
        for (size_t i = 0; i < 2; i++) {
            snprintf(buf, size, "%s/%s", dir, rel[i]);
            if (access(buf, R_OK) == 0)
                return 0;
        }
    }
#ifdef RWFPERF_SOURCE_DIR
    snprintf(buf, size, "%s/scripts/plot.sh", RWFPERF_SOURCE_DIR);
    if (access(buf, R_OK) == 0)
        return 0;
#endif
    return err_set("the plot script (plot.sh) was not found: set RWFPERF_PLOT to its path");
}

/* Draws the percentile table csv into png with the plot script. Returns 0, or -1 (err_set). */
static int plot(const char *csv, const char *png)
{
    char script[PATH_MAX];
    if (find_plot(script, sizeof(script)) != 0)
        return -1;
    char *argv[] = {"bash", script, "-f", (char *)png, "-t", "rwfperf-merge", (char *)csv, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "bash", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return err_set_errno(rc, "cannot start %s", script);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return err_set_errno(errno, "waiting for %s", script);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return err_set("%s could not draw %s (status %d)", script, png,
                       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}

/* Writes the text, JSON, table and image outputs. Returns 0, or -1 after printing why. */
static int write_outputs(const merge *m, const char *prefix)
{
    char path[PATH_MAX], csv[PATH_MAX];
    int rc = 0;
    merge_write_text(m, stdout);
    fflush(stdout);
    snprintf(path, sizeof(path), "%s.txt", prefix);
    FILE *f = fopen(path, "w");
    if (!f || (merge_write_text(m, f), ferror(f)) || fclose(f) != 0) {
        fprintf(stderr, "rwfperf-merge: cannot write %s\n", path);
        rc = -1;
    }
    snprintf(path, sizeof(path), "%s.json", prefix);
    json_object *doc = merge_json(m);
    if (!doc || json_object_to_file_ext(path, doc, JSON_C_TO_STRING_PRETTY) != 0) {
        fprintf(stderr, "rwfperf-merge: cannot write %s\n", path);
        rc = -1;
    }
    json_object_put(doc);
    snprintf(csv, sizeof(csv), "%s_percentiles.csv", prefix);
    snprintf(path, sizeof(path), "%s.png", prefix);
    bool any = false;
    for (int i = 0; i < m->combined.nkinds; i++)
        any |= m->combined.kinds[i].has_hist && m->combined.kinds[i].hist.total > 0;
    if (merge_write_percentiles(m, csv) != 0) {
        fprintf(stderr, "rwfperf-merge: %s\n", err_msg());
        rc = -1;
    } else if (!any) {
        fprintf(stderr, "rwfperf-merge: no latency histogram to draw: %s not written\n", path);
    } else if (plot(csv, path) != 0) {
        fprintf(stderr, "rwfperf-merge: %s\n", err_msg());
        rc = -1;
    }
    return rc;
}

int main(int argc, char **argv)
{
    const char *prefix = "merged";
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            prefix = argv[++i];
        } else if (strcmp(argv[i], "-?") == 0 || strcmp(argv[i], "-h") == 0 ||
                   strcmp(argv[i], "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else {
            fprintf(stderr, "rwfperf-merge: %s: %s\n%s", argv[i],
                    strcmp(argv[i], "-o") == 0 ? "needs a prefix" : "unknown option", usage_text);
            return 2;
        }
    }
    if (i == argc || !prefix[0]) {
        fprintf(stderr, "rwfperf-merge: %s\n%s", prefix[0] ? "no input file" : "empty -o prefix",
                usage_text);
        return 2;
    }
    merge m = {0};
    for (; i < argc; i++) {
        int before = m.nbad, rc = merge_read_file(&m, argv[i]);
        if (rc == -2) {
            fprintf(stderr, "rwfperf-merge: %s: out of memory\n", argv[i]);
            return 1;
        }
        for (int b = before; b < m.nbad; b++) {
            if (m.bad[b].line > 0)
                fprintf(stderr, "rwfperf-merge: %s:%d: %s\n", m.bad[b].file, m.bad[b].line,
                        m.bad[b].what);
            else
                fprintf(stderr, "rwfperf-merge: %s: %s\n", m.bad[b].file, m.bad[b].what);
        }
    }
    if (m.nprocs == 0) {
        fprintf(stderr, "rwfperf-merge: nothing to merge (no input could be read)\n");
        merge_free(&m);
        return 2;
    }
    if (merge_combine(&m) != 0) {
        fprintf(stderr, "rwfperf-merge: %s\n", err_msg());
        merge_free(&m);
        return 1;
    }
    for (int w = 0; w < m.nwarn; w++)
        fprintf(stderr, "rwfperf-merge: warning: %s\n", m.warnings[w]);
    int out = write_outputs(&m, prefix);
    int status = m.nbad ? 2 : out != 0 ? 1 : 0;
    merge_free(&m);
    return status;
}

/*
 * The replay driver of a fuzz target in a plain build (no libFuzzer): runs
 * LLVMFuzzerInitialize, when the target has one, and then LLVMFuzzerTestOneInput once on
 * every file of the folders and files named on the command line, in name order, so that the
 * test suite (and its ASan/UBSan pass) replays the kept corpora and seeds.
 *
 *     replay_<target> <folder or file>...
 *
 * Prints the number of inputs replayed ("<target>: replayed N inputs from M paths"). Exit
 * status 0; 2 when a path cannot be read, or when no input was found at all (an empty
 * corpus is a mistake in the tree); a crash ends the process as it would under the fuzzer.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* Reads path whole into a new buffer; returns it (size in *n), or NULL with a message. */
static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) {
            uint8_t *b2 = realloc(buf, cap * 2);
            if (!b2) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b2;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        fprintf(stderr, "replay: cannot read '%s'\n", path);
        free(buf);
        return NULL;
    }
    *n = len;
    return buf;
}

/* Runs the target on one file. Returns 0, or -1 when it cannot be read. The input is given in
 * a buffer of exactly its size, so that ASan sees a read past its end. */
static int replay_file(const char *path)
{
    size_t n = 0;
    uint8_t *buf = slurp(path, &n);
    if (!buf)
        return -1;
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Replays a file, or every regular file of a folder (not recursive). Adds to *count. Returns 0
 * or -1. */
static int replay_path(const char *path, long *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: '%s': %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        (*count)++;
        return replay_file(path);
    }
    struct dirent **list;
    int n = scandir(path, &list, NULL, by_name);
    if (n < 0) {
        fprintf(stderr, "replay: cannot list '%s': %s\n", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char full[4096];
        snprintf(full, sizeof(full), "%s/%s", path, list[i]->d_name);
        if (list[i]->d_name[0] != '.' && stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
            (*count)++;
            if (replay_file(full) != 0)
                rc = -1;
        }
        free(list[i]);
    }
    free(list);
    return rc;
}

int main(int argc, char **argv)
{
    const char *name = strrchr(argv[0], '/');
    name = name ? name + 1 : argv[0];
    if (argc < 2) {
        fprintf(stderr, "usage: %s <corpus folder or file>...\n", name);
        return 2;
    }
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    long count = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++)
        if (replay_path(argv[i], &count) != 0)
            rc = 2;
    printf("%s: replayed %ld inputs from %d paths\n", name, count, argc - 1);
    if (count == 0) {
        fprintf(stderr, "%s: no inputs found\n", name);
        rc = 2;
    }
    return rc;
}

/*
 * fuzz_merge_input: rwfperf-merge's readers on arbitrary files: a histogram interval log
 * (header lines, interval lines, base64 and compressed histograms) or a JSON summary, told
 * apart by their content as the merge does. The input is written to an in-memory file and
 * read with merge_read_file, twice (two processes or one, as the content says), then merged
 * and reported as text and JSON. A file that cannot be read must be recorded as bad with a
 * reason; nothing may crash, leak or overrun.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    int fd = memfd_create("fuzz_merge", 0);
    if (fd < 0)
        return 0;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    merge m = {0};
    for (int i = 0; i < 2; i++) {
        int before = m.nbad;
        int rc = merge_read_file(&m, path);
        if (rc == -1 && (m.nbad != before + 1 || m.bad[m.nbad - 1].what[0] == '\0')) {
            fprintf(stderr, "a refused input without its reason\n");
            abort();
        }
    }
    if (merge_combine(&m) == 0) {
        if (devnull)
            merge_write_text(&m, devnull);
        json_object *doc = merge_json(&m);
        if (doc) {
            (void)json_object_to_json_string(doc);
            json_object_put(doc);
        }
    }
    merge_free(&m);
    close(fd);
    return 0;
}

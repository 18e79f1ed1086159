/*
 * fuzz_merge_input: rwfperf-merge's readers on arbitrary files: a histogram interval log
 * (header lines, interval lines, base64 and compressed histograms) or a JSON summary, told
 * apart by their content as the merge does. The input is read from memory (fmemopen) with
 * merge_read_stream, as merge_read_file reads a file, twice (two processes or one, as the
 * content says), then merged
 * and reported as text and JSON. A file that cannot be read must be recorded as bad with a
 * reason; nothing may crash, leak or overrun.
 */
#include <stdio.h>
#include <stdlib.h>

#include "merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char empty[1]; /* fmemopen's buffer for an empty input (size 0 reads as EOF) */
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    merge m = {0};
    for (int i = 0; i < 2; i++) {
        FILE *f = fmemopen(size ? (void *)data : empty, size, "rb");
        if (!f)
            abort();
        static char iobuf[8192]; /* the stream's buffer, not one allocated per input */
        setvbuf(f, iobuf, _IOFBF, sizeof(iobuf));
        int before = m.nbad;
        int rc = merge_read_stream(&m, "fuzz", f);
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
    return 0;
}

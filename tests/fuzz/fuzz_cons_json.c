/*
 * fuzz_cons_json: ConsPerf's native reading of rssl.json.v2 frames (consperf/jdecode.h) on
 * arbitrary text. The input is one text frame, read message by message three times: by the
 * reader as ConsPerf runs it (the scan of the usual text in the widest forms the CPU has, the
 * full reader for the rest), by the same with the scan's SSE2 forms (cons_jscan_sse2), and by
 * the full reader alone. All must give the same messages (type, stream, domain, state, stamps,
 * the sum of the values' lengths, the message's text) and end the same way: at the end of the
 * frame, or with the same error text, which must say something; both forms of the scan must
 * read the same messages alone. Nothing may crash or read out of bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "jdecode.h"
#include "ts_jmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the frame in a buffer of its own size, so that ASan sees any read past its end */
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    cons_jreader a, b, c;
    cons_jreader_init(&a, text, size);
    cons_jreader_init(&b, text, size);
    cons_jreader_init(&c, text, size);
    b.full = 1;
    static char ea[ERR_MSG_MAX], ec[ERR_MSG_MAX];
    for (unsigned n = 1;; n++) {
        cons_jmsg ma, mb, mc;
        memset(&ma, 0, sizeof(ma));
        memset(&mb, 0, sizeof(mb));
        memset(&mc, 0, sizeof(mc));
        err_clear();
        int ra = cons_jreader_next(&a, &ma);
        snprintf(ea, sizeof(ea), "%s", ra < 0 ? err_msg() : "");
        err_clear();
        cons_jscan_sse2(1);
        int rc = cons_jreader_next(&c, &mc);
        cons_jscan_sse2(0);
        snprintf(ec, sizeof(ec), "%s", rc < 0 ? err_msg() : "");
        if (ra != rc || strcmp(ea, ec) != 0 || (ra > 0 && !ts_jmsg_same(&ma, &mc)) ||
            a.scanned != c.scanned) {
            fprintf(stderr, "message %u: the reader %d \"%s\", with SSE2 %d \"%s\"\n", n, ra, ea,
                    rc, ec);
            abort();
        }
        err_clear();
        int rb = cons_jreader_next(&b, &mb);
        if (ra != rb || (ra < 0 && (strcmp(ea, err_msg()) != 0 || ea[0] == '\0')) ||
            (ra > 0 && !ts_jmsg_same(&ma, &mb))) {
            fprintf(stderr, "message %u: the reader %d \"%s\", the full reader %d \"%s\"\n", n, ra,
                    ea, rb, rb < 0 ? err_msg() : "");
            abort();
        }
        if (ra <= 0)
            break;
    }
    if (b.scanned != 0) {
        fprintf(stderr, "the full reader alone scanned %u messages\n", b.scanned);
        abort();
    }
    free(text);
    return 0;
}

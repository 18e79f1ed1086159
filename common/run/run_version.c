/* A tool's -version: see run_version.h. */
#include "run_version.h"

#include "version.h"

#include <json-c/json_c_version.h>
#include <libxml/parser.h>
#include <libxml/xmlversion.h>
#include <lz4.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* libxml2's run-time version "20914" as "2.9.14". */
static void xml_dotted(char *buf, size_t size)
{
    long v = strtol(xmlParserVersion, NULL, 10);
    snprintf(buf, size, "%ld.%ld.%ld", v / 10000, v / 100 % 100, v % 100);
}

void run_version_print(FILE *out)
{
    fprintf(out, "  build: %s%s%s, %s %s\n", RWFPERF_BUILD_TYPE[0] ? RWFPERF_BUILD_TYPE : "default",
            RWFPERF_SANITIZERS[0] ? ", sanitizers " : "", RWFPERF_SANITIZERS,
#if defined(__clang__)
            "clang",
#else
            "gcc",
#endif
            __VERSION__);

    const char *ssl = OpenSSL_version(OPENSSL_VERSION);
    fprintf(out, "  %s", ssl);
    if (strcmp(ssl, OPENSSL_VERSION_TEXT) != 0)
        fprintf(out, " (built with %s)", OPENSSL_VERSION_TEXT);
    fprintf(out, "\n");

    char xml[32];
    xml_dotted(xml, sizeof(xml));
    fprintf(out, "  libxml2 %s", xml);
    if (strcmp(xml, LIBXML_DOTTED_VERSION) != 0)
        fprintf(out, " (built with %s)", LIBXML_DOTTED_VERSION);
    fprintf(out, "\n");

    fprintf(out, "  zlib %s", zlibVersion());
    if (strcmp(zlibVersion(), ZLIB_VERSION) != 0)
        fprintf(out, " (built with %s)", ZLIB_VERSION);
    fprintf(out, "\n");

    fprintf(out, "  lz4 %s", LZ4_versionString());
    if (LZ4_versionNumber() != LZ4_VERSION_NUMBER)
        fprintf(out, " (built with %s)", LZ4_VERSION_STRING);
    fprintf(out, "\n");

    fprintf(out, "  json-c %s", json_c_version());
    if (strcmp(json_c_version(), JSON_C_VERSION) != 0)
        fprintf(out, " (built with %s)", JSON_C_VERSION);
    fprintf(out, "\n");
}

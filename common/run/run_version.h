/*
 * run_version: what a tool's -version shows.
 */
#ifndef RWFPERF_RUN_VERSION_H
#define RWFPERF_RUN_VERSION_H

#include <stdio.h>

/*
 * Writes what -version shows after its first line ("<tool> <version> <git revision>",
 * opt_tool_init's), one line each, indented: the build (type, sanitizers, compiler), and the
 * versions of the libraries in use as the running program reports them (OpenSSL, libxml2,
 * zlib, lz4, json-c; where the one it was built with differs, that one too). For
 * opt_tool.version.
 */
void run_version_print(FILE *out);

#endif

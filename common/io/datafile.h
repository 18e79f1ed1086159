/*
 * datafile: where the tools find their input files (the field dictionary RDMFieldDictionary,
 * the enum table enumtype.def, the item list -itemFile, the message data -msgFile).
 *
 * As the ETA tools do, they read them from the working folder. When a file named without a
 * folder is not there, they read the one installed with the tools: <prefix>/share/rwfperf,
 * found from the executable's own place (<prefix>/bin), so an installed tree works wherever it
 * was put; $RWFPERF_DATA_DIR names another folder instead.
 */
#ifndef RWFPERF_DATAFILE_H
#define RWFPERF_DATAFILE_H

#include <stddef.h>
#include <stdio.h>

/* The folder of the installed data files ($RWFPERF_DATA_DIR, else <executable's folder>/
 * ../share/rwfperf), or NULL when it does not exist. */
const char *data_dir(void);

/* The file to open for `name`: name itself when it exists or names a folder too (contains a
 * '/'), else "<data_dir()>/<name>" when that exists (written into buf), else name (so that
 * the caller's error names what was asked for). */
const char *data_find(const char *name, char *buf, size_t size);

/* Writes the paragraph of the usage text (-?) that says where input files are found. */
void data_usage(FILE *out);

#endif

/*
 * datafile: where the tools find their input files (the field dictionary RDMFieldDictionary,
 * the enum table enumtype.def, the item list -itemFile, the message data -msgFile).
 *
 * As the ETA tools do, they read them from the working folder. When a file named without a
 * folder is not there, they read the one in the data folder: <prefix>/share/rwfperf, found from
 * the executable's own place (<prefix>/bin), so an installed tree works wherever it was put,
 * and so does the build tree (<build>/bin and <build>/share/rwfperf); $RWFPERF_DATA_DIR names
 * another folder instead.
 */
#ifndef RWFPERF_DATAFILE_H
#define RWFPERF_DATAFILE_H

#include <stddef.h>
#include <stdio.h>

/* The data folder ($RWFPERF_DATA_DIR, else <executable's folder>/../share/rwfperf, resolved),
 * or NULL when it does not exist. */
const char *data_dir(void);

/*
 * The file to open for `name`: name itself when it exists or names a folder too (contains a
 * '/'), else "<data_dir()>/<name>" (written into buf) when that exists. When it is in neither,
 * returns NULL after err_set() with every place looked in:
 *   "350k.xml not found; looked in /home/u/350k.xml (working folder),
 *    /opt/rwfperf/share/rwfperf/350k.xml (data folder)"
 * (a data folder that does not exist is named as such, with where it was looked for).
 */
const char *data_locate(const char *name, char *buf, size_t size);

/* Writes the paragraph of the usage text (-?) that says where input files are found, naming
 * the tool's own input options (`options`, e.g. "-itemFile, -msgFile"; NULL: none). */
void data_usage(FILE *out, const char *options);

#endif

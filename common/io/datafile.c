#include "datafile.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *data_dir(void)
{
    static char dir[PATH_MAX];
    const char *env = getenv("RWFPERF_DATA_DIR");
    if (env && *env)
        return is_dir(env) ? env : NULL;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0'; /* <prefix>/bin */
    if (snprintf(dir, sizeof(dir), "%s/../share/rwfperf", exe) >= (int)sizeof(dir))
        return NULL;
    char real[PATH_MAX];
    if (!realpath(dir, real) || !is_dir(real))
        return NULL;
    memcpy(dir, real, strlen(real) + 1);
    return dir;
}

const char *data_find(const char *name, char *buf, size_t size)
{
    if (access(name, F_OK) == 0 || strchr(name, '/'))
        return name;
    const char *dir = data_dir();
    if (!dir)
        return name;
    int w = snprintf(buf, size, "%s/%s", dir, name);
    if (w < 0 || (size_t)w >= size || access(buf, F_OK) != 0)
        return name;
    return buf;
}

void data_usage(FILE *out)
{
    const char *dir = data_dir();
    fprintf(out,
            "Input files (RDMFieldDictionary, enumtype.def, -itemFile, -msgFile) are read from\n"
            "the working folder; one named without a folder that is not there is read from\n"
            "the data folder installed with the tools, %s%s.\n\n",
            dir ? dir : "<prefix>/share/rwfperf (none found)",
            dir ? "" : "; $RWFPERF_DATA_DIR names another");
}

#include "datafile.h"

#include "err.h"

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

/* Where the data folder is looked for: $RWFPERF_DATA_DIR, else <executable's folder>/../share/
 * rwfperf, written into buf (its ".." resolved when the folder exists). Returns 0, or -1 when
 * the executable's place is unknown. *from_env says which. */
static int data_dir_candidate(char *buf, size_t size, bool *from_env)
{
    const char *env = getenv("RWFPERF_DATA_DIR");
    *from_env = env && *env;
    if (*from_env)
        return snprintf(buf, size, "%s", env) < (int)size ? 0 : -1;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0'; /* <prefix>/bin */
    char *bin = strrchr(exe, '/');
    if (bin && strcmp(bin + 1, "bin") == 0) {
        /* <prefix>/share/rwfperf, named without "bin/.." also when it does not exist */
        *bin = '\0';
        return snprintf(buf, size, "%s/share/rwfperf", exe) < (int)size ? 0 : -1;
    }
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s/../share/rwfperf", exe);
    char real[PATH_MAX];
    const char *use = realpath(dir, real) ? real : dir;
    return snprintf(buf, size, "%s", use) < (int)size ? 0 : -1;
}

const char *data_dir(void)
{
    static char dir[PATH_MAX];
    bool from_env;
    if (data_dir_candidate(dir, sizeof(dir), &from_env) != 0 || !is_dir(dir))
        return NULL;
    if (!from_env) {
        char real[PATH_MAX];
        if (realpath(dir, real))
            memcpy(dir, real, strlen(real) + 1);
    }
    return dir;
}

/* The working folder for a message ("." when it cannot be read). */
static const char *work_dir(char *buf, size_t size)
{
    return getcwd(buf, size) ? buf : ".";
}

const char *data_locate(const char *name, char *buf, size_t size)
{
    if (access(name, F_OK) == 0)
        return name;
    char cwd[PATH_MAX];
    if (strchr(name, '/')) {
        if (name[0] == '/')
            return err_set("%s not found", name), NULL;
        return err_set("%s not found; looked in %s/%s", name, work_dir(cwd, sizeof(cwd)), name),
               NULL;
    }
    const char *dir = data_dir();
    if (dir) {
        int w = snprintf(buf, size, "%s/%s", dir, name);
        if (w >= 0 && (size_t)w < size && access(buf, F_OK) == 0)
            return buf;
        return err_set("%s not found; looked in %s/%s (working folder), %s/%s (data folder)", name,
                       work_dir(cwd, sizeof(cwd)), name, dir, name),
               NULL;
    }
    char where[PATH_MAX];
    bool from_env;
    if (data_dir_candidate(where, sizeof(where), &from_env) != 0)
        return err_set("%s not found; looked in %s/%s (working folder); no data folder (the "
                       "executable's place is unknown; $RWFPERF_DATA_DIR names one)",
                       name, work_dir(cwd, sizeof(cwd)), name),
               NULL;
    return err_set("%s not found; looked in %s/%s (working folder), %s/%s (data folder%s, which "
                   "does not exist)",
                   name, work_dir(cwd, sizeof(cwd)), name, where, name,
                   from_env ? " named by $RWFPERF_DATA_DIR" : ""),
           NULL;
}

void data_usage(FILE *out, const char *options)
{
    const char *dir = data_dir();
    char where[PATH_MAX];
    bool from_env = false;
    if (!dir && data_dir_candidate(where, sizeof(where), &from_env) != 0)
        snprintf(where, sizeof(where), "<prefix>/share/rwfperf");
    fprintf(out,
            "Input files (RDMFieldDictionary, enumtype.def%s%s) are read from the working\n"
            "folder; one named without a folder that is not there is read from the data folder\n"
            "(%s):\n  %s%s\n\n",
            options ? ", " : "", options ? options : "",
            from_env ? "$RWFPERF_DATA_DIR" : "$RWFPERF_DATA_DIR, else <bin>/../share/rwfperf",
            dir ? dir : where, dir ? "" : " (does not exist)");
}

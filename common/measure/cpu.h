/*
 * cpu: the -threads list (docs/tools.md#options): how many worker threads a tool runs and where
 * each one is bound.
 *
 * The value is a comma-separated list; each entry is one thread:
 *   -1             not bound
 *   N              bound to logical CPU N (the number the kernel, taskset and top use)
 *   P:X C:Y T:Z    bound by position in the machine, as hwloc sees it: package X (0 = the
 *                  first), core Y within that package, hardware thread Z within that core.
 *                  A part given as '#' or left out means "all": "P:0 C:1" is every hardware
 *                  thread of core 1 of package 0, "P:0" (or "P:0 C:#") every CPU of package
 *                  0, "P:0 C:# T:0" the first hardware thread of each of its cores.
 * Every entry is resolved against this machine's topology when parsed, so an entry naming a
 * CPU, core or package that does not exist (or that this process may not use) is an error that
 * names the entry, before any thread starts.
 *
 * Without -threads a tool runs one unbound thread, and its summary prints the list as
 * "(non)", as the ETA tools do; otherwise the entries as given, joined by commas.
 */
#ifndef RWFPERF_CPU_H
#define RWFPERF_CPU_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#define CPU_MAX_ENTRIES 128
#define CPU_ENTRY_LEN 64

typedef struct cpu_entry {
    char text[CPU_ENTRY_LEN]; /* the entry as given, surrounding spaces removed */
    bool bound;               /* false for -1 (and the default thread) */
    cpu_set_t set;            /* the CPUs the thread may run on, when bound */
} cpu_entry;

typedef struct cpu_list {
    int count;  /* number of threads, >= 1 */
    bool given; /* false: no list was given (one unbound thread) */
    cpu_entry entry[CPU_MAX_ENTRIES];
} cpu_list;

/* Parses and resolves a -threads value. NULL or "" gives the default: one unbound thread.
 * Empty entries (",,") are skipped. Returns 0, or -1 with err_msg() saying which entry is
 * wrong and why (syntax, a CPU/core/package that does not exist, more than CPU_MAX_ENTRIES
 * entries, an entry longer than CPU_ENTRY_LEN - 1). */
int cpu_parse(cpu_list *out, const char *list);

/* Binds the calling thread to the entry's CPUs; does nothing for an unbound entry. Returns 0,
 * or -1 with err_msg() set. */
int cpu_bind(const cpu_entry *e);

/* Writes the list as the summaries print it: "(non)" for the default, else the entries
 * joined by ','. Returns what snprintf returns. */
int cpu_list_text(const cpu_list *l, char *buf, size_t cap);

/* Writes the CPUs of an entry in list form ("0", "0-3,8"), or "any" when unbound. Returns
 * what snprintf returns. */
int cpu_entry_cpus(const cpu_entry *e, char *buf, size_t cap);

#endif

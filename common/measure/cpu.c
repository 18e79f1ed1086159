#include "cpu.h"

#include "err.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One of the three parts of "P:X C:Y T:Z": ANY when '#' or left out. */
#define ANY (-1)

typedef struct pos {
    long p, c, t;
} pos;

/* Reads "P:X C:Y T:Z" (parts in any order, each at most once, '#' for all, spaces optional
 * between parts). Returns 0, or -1 with err_msg() set. */
static int parse_pos(const char *s, pos *out)
{
    out->p = out->c = out->t = ANY;
    bool seen[3] = {false, false, false};
    const char *q = s;
    int parts = 0;
    while (*q) {
        if (isspace((unsigned char)*q)) {
            q++;
            continue;
        }
        int which;
        switch (toupper((unsigned char)*q)) {
        case 'P':
            which = 0;
            break;
        case 'C':
            which = 1;
            break;
        case 'T':
            which = 2;
            break;
        default:
            return err_set("expected -1, a CPU number, or \"P:X C:Y T:Z\"");
        }
        if (q[1] != ':')
            return err_set("expected ':' after '%c'", *q);
        if (seen[which])
            return err_set("'%c' given twice", *q);
        seen[which] = true;
        q += 2;
        long v;
        if (*q == '#') {
            v = ANY;
            q++;
        } else if (isdigit((unsigned char)*q)) {
            char *end;
            errno = 0;
            v = strtol(q, &end, 10);
            if (errno || v > 100000)
                return err_set("number out of range after '%c:'", toupper((unsigned char)q[-2]));
            q = end;
        } else {
            return err_set("expected a number or '#' after '%c:'", toupper((unsigned char)q[-2]));
        }
        if (which == 0)
            out->p = v;
        else if (which == 1)
            out->c = v;
        else
            out->t = v;
        parts++;
    }
    if (parts == 0)
        return err_set("empty position");
    return 0;
}

static const char *plural(int n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* "P:0" for one, "P:0 to P:3" for four: the indexes that exist, for error messages. */
static const char *range_text(char *buf, size_t cap, char part, int n)
{
    if (n == 1)
        snprintf(buf, cap, "%c:0", part);
    else
        snprintf(buf, cap, "%c:0 to %c:%d", part, part, n - 1);
    return buf;
}

static int count_inside(hwloc_topology_t t, hwloc_const_cpuset_t set, hwloc_obj_type_t type)
{
    return hwloc_get_nbobjs_inside_cpuset_by_type(t, set, type);
}

/* Resolves a position to a set of PUs. A machine that shows no Package object counts as one
 * package, and one that shows no Core object as one core per PU. Returns 0, or -1 with
 * err_msg() set. */
static int resolve_pos(hwloc_topology_t t, const pos *ps, hwloc_bitmap_t out)
{
    hwloc_obj_t root = hwloc_get_root_obj(t);
    int npkg = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
    int pkgs = npkg > 0 ? npkg : 1;
    char range[40];
    if (ps->p != ANY && ps->p >= pkgs)
        return err_set("no package P:%ld: this machine has %d %s (%s)", ps->p, pkgs,
                       plural(pkgs, "package", "packages"),
                       range_text(range, sizeof(range), 'P', pkgs));
    hwloc_bitmap_zero(out);
    int core_hits = 0, pu_hits = 0;
    for (int pi = 0; pi < pkgs; pi++) {
        if (ps->p != ANY && pi != ps->p)
            continue;
        hwloc_obj_t pkg =
            npkg > 0 ? hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, (unsigned)pi) : root;
        int ncore = count_inside(t, pkg->cpuset, HWLOC_OBJ_CORE);
        bool cores_are_pus = ncore == 0; /* no Core objects: each PU stands for a core */
        if (cores_are_pus)
            ncore = count_inside(t, pkg->cpuset, HWLOC_OBJ_PU);
        if (ps->c != ANY && ps->c >= ncore) {
            if (ps->p != ANY)
                return err_set("no core C:%ld in package P:%d: it has %d %s (%s)", ps->c, pi, ncore,
                               plural(ncore, "core", "cores"),
                               range_text(range, sizeof(range), 'C', ncore));
            continue;
        }
        for (int ci = 0; ci < ncore; ci++) {
            if (ps->c != ANY && ci != ps->c)
                continue;
            hwloc_obj_t core = hwloc_get_obj_inside_cpuset_by_type(
                t, pkg->cpuset, cores_are_pus ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE, (unsigned)ci);
            core_hits++;
            int npu = count_inside(t, core->cpuset, HWLOC_OBJ_PU);
            if (ps->t != ANY && ps->t >= npu) {
                if (ps->p != ANY && ps->c != ANY)
                    return err_set("no hardware thread T:%ld in core C:%d of package P:%d: it "
                                   "has %d (%s)",
                                   ps->t, ci, pi, npu, range_text(range, sizeof(range), 'T', npu));
                continue;
            }
            for (int ti = 0; ti < npu; ti++) {
                if (ps->t != ANY && ti != ps->t)
                    continue;
                hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(t, core->cpuset, HWLOC_OBJ_PU,
                                                                     (unsigned)ti);
                hwloc_bitmap_set(out, pu->os_index);
                pu_hits++;
            }
        }
    }
    if (core_hits == 0)
        return err_set("no package has a core C:%ld", ps->c);
    if (pu_hits == 0)
        return err_set("no core has a hardware thread T:%ld", ps->t);
    return 0;
}

/* Resolves one trimmed entry into e. */
static int resolve_entry(hwloc_topology_t t, cpu_entry *e)
{
    const char *s = e->text;
    CPU_ZERO(&e->set);
    if (strcmp(s, "-1") == 0) {
        e->bound = false;
        return 0;
    }
    e->bound = true;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return err_set("out of memory");
    int rc = 0;
    if (isdigit((unsigned char)s[0])) {
        char *end;
        errno = 0;
        long n = strtol(s, &end, 10);
        if (*end != '\0') {
            rc = err_set("expected -1, a CPU number, or \"P:X C:Y T:Z\"");
        } else if (errno || n > 1000000 || !hwloc_get_pu_obj_by_os_index(t, (unsigned)n)) {
            char cpus[256];
            hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), hwloc_topology_get_allowed_cpuset(t));
            rc = err_set("no logical CPU %s on this machine (CPUs %s)", s, cpus);
        } else {
            hwloc_bitmap_only(set, (unsigned)n);
        }
    } else {
        pos ps;
        rc = parse_pos(s, &ps);
        if (rc == 0)
            rc = resolve_pos(t, &ps, set);
    }
    if (rc == 0 && hwloc_cpuset_to_glibc_sched_affinity(t, set, &e->set, sizeof(e->set)) != 0)
        rc = err_set("cannot express the CPU set for the scheduler");
    hwloc_bitmap_free(set);
    return rc;
}

int cpu_parse(cpu_list *out, const char *list)
{
    memset(out, 0, sizeof(*out));
    if (!list || !*list) {
        out->count = 1;
        return 0;
    }

    /* Split first, so that syntax and count errors come before loading the topology. */
    const char *p = list;
    int n = 0;
    while (*p) {
        const char *start = p;
        while (*p && *p != ',')
            p++;
        const char *end = p;
        if (*p == ',')
            p++;
        while (start < end && isspace((unsigned char)*start))
            start++;
        while (end > start && isspace((unsigned char)end[-1]))
            end--;
        if (start == end)
            continue;
        if (n == CPU_MAX_ENTRIES)
            return err_set("-threads: too many threads specified (at most %d)", CPU_MAX_ENTRIES);
        size_t len = (size_t)(end - start);
        if (len >= CPU_ENTRY_LEN)
            return err_set("-threads entry %d \"%.*s...\": too long", n + 1, 20, start);
        memcpy(out->entry[n].text, start, len);
        out->entry[n].text[len] = '\0';
        n++;
    }
    if (n == 0) {
        out->count = 1;
        return 0;
    }
    out->count = n;
    out->given = true;

    bool need_topology = false;
    for (int i = 0; i < n; i++)
        if (strcmp(out->entry[i].text, "-1") != 0)
            need_topology = true;
    if (!need_topology)
        return 0;

    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0)
        return err_set_errno(errno, "-threads: hwloc_topology_init");
    if (hwloc_topology_load(t) != 0) {
        int saved = errno;
        hwloc_topology_destroy(t);
        return err_set_errno(saved, "-threads: cannot read the machine's topology");
    }
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (resolve_entry(t, &out->entry[i]) != 0)
            rc = err_push("-threads entry %d \"%s\"", i + 1, out->entry[i].text);
    }
    hwloc_topology_destroy(t);
    return rc;
}

int cpu_bind(const cpu_entry *e)
{
    if (!e->bound)
        return 0;
    int rc = pthread_setaffinity_np(pthread_self(), sizeof(e->set), &e->set);
    if (rc != 0)
        return err_set_errno(rc, "binding thread to \"%s\"", e->text);
    return 0;
}

int cpu_list_text(const cpu_list *l, char *buf, size_t cap)
{
    if (!l->given)
        return snprintf(buf, cap, "(non)");
    size_t used = 0;
    int total = 0;
    for (int i = 0; i < l->count; i++) {
        int n = snprintf(buf + used, cap > used ? cap - used : 0, "%s%s", i ? "," : "",
                         l->entry[i].text);
        if (n < 0)
            return n;
        total += n;
        used = (size_t)total < cap ? (size_t)total : cap;
    }
    if (cap > 0 && used == cap)
        buf[cap - 1] = '\0';
    return total;
}

int cpu_entry_cpus(const cpu_entry *e, char *buf, size_t cap)
{
    if (!e->bound)
        return snprintf(buf, cap, "any");
    size_t used = 0;
    int total = 0;
    int cpu = 0;
    while (cpu < CPU_SETSIZE) {
        if (!CPU_ISSET(cpu, &e->set)) {
            cpu++;
            continue;
        }
        int last = cpu;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &e->set))
            last++;
        int n = last > cpu ? snprintf(buf + used, cap > used ? cap - used : 0, "%s%d-%d",
                                      total ? "," : "", cpu, last)
                           : snprintf(buf + used, cap > used ? cap - used : 0, "%s%d",
                                      total ? "," : "", cpu);
        if (n < 0)
            return n;
        total += n;
        used = (size_t)total < cap ? (size_t)total : cap;
        cpu = last + 1;
    }
    if (cap > 0 && used == cap)
        buf[cap - 1] = '\0';
    return total;
}

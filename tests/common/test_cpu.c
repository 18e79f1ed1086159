/* -threads parsing and binding, checked against hwloc's own view of this machine. */
#include "testsupport.h"

#include "cpu.h"
#include "err.h"

#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static hwloc_topology_t topo;

static int setup(void **state)
{
    (void)state;
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    hwloc_topology_destroy(topo);
    return 0;
}

/* The CPUs of a hwloc cpuset as a glibc set. */
static void to_set(hwloc_const_cpuset_t hs, cpu_set_t *out)
{
    CPU_ZERO(out);
    unsigned i;
    hwloc_bitmap_foreach_begin(i, hs) CPU_SET(i, out);
    hwloc_bitmap_foreach_end();
}

static void expect_set(const char *list, hwloc_const_cpuset_t want)
{
    cpu_list l;
    if (cpu_parse(&l, list) != 0) {
        print_error("'%s': %s\n", list, err_msg());
        fail();
    }
    assert_int_equal(l.count, 1);
    assert_true(l.entry[0].bound);
    cpu_set_t w;
    to_set(want, &w);
    if (!CPU_EQUAL(&w, &l.entry[0].set)) {
        char got[256], exp[256];
        cpu_entry_cpus(&l.entry[0], got, sizeof(got));
        hwloc_bitmap_list_snprintf(exp, sizeof(exp), want);
        print_error("'%s': CPUs %s, expected %s\n", list, got, exp);
        fail();
    }
}

static void expect_error(const char *list, const char *text)
{
    cpu_list l;
    assert_int_equal(cpu_parse(&l, list), -1);
    if (!strstr(err_msg(), text)) {
        print_error("'%s': error '%s' lacks '%s'\n", list, err_msg(), text);
        fail();
    }
}

static void test_default_and_unbound(void **state)
{
    (void)state;
    cpu_list l;
    char text[256];
    assert_int_equal(cpu_parse(&l, NULL), 0);
    assert_int_equal(l.count, 1);
    assert_false(l.given);
    assert_false(l.entry[0].bound);
    cpu_list_text(&l, text, sizeof(text));
    assert_string_equal(text, "(non)");
    assert_int_equal(cpu_parse(&l, ""), 0);
    assert_int_equal(l.count, 1);
    assert_int_equal(cpu_parse(&l, ","), 0);
    assert_int_equal(l.count, 1);
    assert_false(l.given);

    assert_int_equal(cpu_parse(&l, "-1,-1, -1"), 0);
    assert_int_equal(l.count, 3);
    assert_true(l.given);
    for (int i = 0; i < 3; i++)
        assert_false(l.entry[i].bound);
    cpu_list_text(&l, text, sizeof(text));
    assert_string_equal(text, "-1,-1,-1");
    cpu_entry_cpus(&l.entry[0], text, sizeof(text));
    assert_string_equal(text, "any");
    assert_int_equal(cpu_bind(&l.entry[0]), 0); /* nothing to do */
}

/* Every logical CPU hwloc knows is accepted by number, and means exactly that CPU. */
static void test_logical_numbers(void **state)
{
    (void)state;
    hwloc_obj_t pu = NULL;
    int n = 0;
    while ((pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu))) {
        char list[32];
        snprintf(list, sizeof(list), "%u", pu->os_index);
        expect_set(list, pu->cpuset);
        n++;
    }
    assert_true(n >= 1);

    cpu_list l;
    char text[256];
    assert_int_equal(cpu_parse(&l, " 0 ,-1,,0"), 0);
    assert_int_equal(l.count, 3);
    cpu_list_text(&l, text, sizeof(text));
    assert_string_equal(text, "0,-1,0");
}

/* P:/C:/T: positions resolve to what hwloc lists for each package, core and thread. */
static void test_positions(void **state)
{
    (void)state;
    int npkg = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    if (npkg == 0) {
        print_message("no Package objects on this machine: P:0 is the whole machine\n");
        expect_set("P:0", hwloc_get_root_obj(topo)->cpuset);
        return;
    }
    for (int p = 0; p < npkg; p++) {
        hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, (unsigned)p);
        char list[64];
        snprintf(list, sizeof(list), "P:%d", p);
        expect_set(list, pkg->cpuset);
        snprintf(list, sizeof(list), "P:%d C:#", p);
        expect_set(list, pkg->cpuset);
        snprintf(list, sizeof(list), "P:%d C:# T:#", p);
        expect_set(list, pkg->cpuset);
        int ncore = hwloc_get_nbobjs_inside_cpuset_by_type(topo, pkg->cpuset, HWLOC_OBJ_CORE);
        hwloc_bitmap_t first_threads = hwloc_bitmap_alloc();
        for (int c = 0; c < ncore; c++) {
            hwloc_obj_t core =
                hwloc_get_obj_inside_cpuset_by_type(topo, pkg->cpuset, HWLOC_OBJ_CORE, (unsigned)c);
            snprintf(list, sizeof(list), "P:%d C:%d", p, c);
            expect_set(list, core->cpuset);
            snprintf(list, sizeof(list), "P:%d C:%d T:#", p, c);
            expect_set(list, core->cpuset);
            int npu = hwloc_get_nbobjs_inside_cpuset_by_type(topo, core->cpuset, HWLOC_OBJ_PU);
            for (int t = 0; t < npu; t++) {
                hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(topo, core->cpuset,
                                                                     HWLOC_OBJ_PU, (unsigned)t);
                snprintf(list, sizeof(list), "P:%d C:%d T:%d", p, c, t);
                expect_set(list, pu->cpuset);
                snprintf(list, sizeof(list), "p:%dc:%dt:%d", p, c, t); /* compact, lower case */
                expect_set(list, pu->cpuset);
                if (t == 0)
                    hwloc_bitmap_or(first_threads, first_threads, pu->cpuset);
            }
        }
        snprintf(list, sizeof(list), "P:%d C:# T:0", p);
        expect_set(list, first_threads);
        hwloc_bitmap_free(first_threads);
    }
    /* A package left out means every package. */
    expect_set("C:0 T:0",
               hwloc_get_obj_inside_cpuset_by_type(
                   topo, hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0)->cpuset, HWLOC_OBJ_PU, 0)
                   ->cpuset);

    /* Two threads, as in the guide's example, when this machine has two CPUs in package 0. */
    hwloc_obj_t pkg0 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    if (hwloc_get_nbobjs_inside_cpuset_by_type(topo, pkg0->cpuset, HWLOC_OBJ_CORE) >= 2) {
        cpu_list l;
        assert_int_equal(cpu_parse(&l, "P:0 C:0 T:0, P:0 C:1 T:0"), 0);
        assert_int_equal(l.count, 2);
        assert_string_equal(l.entry[1].text, "P:0 C:1 T:0");
        assert_false(CPU_EQUAL(&l.entry[0].set, &l.entry[1].set));
        char text[256];
        cpu_list_text(&l, text, sizeof(text));
        assert_string_equal(text, "P:0 C:0 T:0,P:0 C:1 T:0");
    }
}

/* Entries naming what this machine does not have are errors naming the entry: the ETA tools
 * crash here. */
static void test_errors(void **state)
{
    (void)state;
    expect_error("9999", "-threads entry 1 \"9999\": no logical CPU 9999 on this machine (CPUs ");
    expect_error("0,9999", "-threads entry 2 \"9999\"");
    expect_error("99999999999999999999", "no logical CPU");
    expect_error("P:99", "-threads entry 1 \"P:99\": no package P:99: this machine has ");
    expect_error("P:0 C:9999", "no core C:9999 in package P:0: it has ");
    expect_error("P:0 C:0 T:99", "no hardware thread T:99 in core C:0 of package P:0: it has ");
    expect_error("C:9999", "no package has a core C:9999");
    expect_error("P:# C:# T:99", "no core has a hardware thread T:99");
    expect_error("abc", "-threads entry 1 \"abc\": expected -1, a CPU number, or \"P:X C:Y T:Z\"");
    expect_error("-2", "expected -1, a CPU number");
    expect_error("1x", "expected -1, a CPU number");
    expect_error("P0", "expected ':' after 'P'");
    expect_error("P:0 P:0", "'P' given twice");
    expect_error("P:x", "expected a number or '#' after 'P:'");
    expect_error("P:0 X:1", "expected -1, a CPU number");

    char many[1024] = "";
    for (int i = 0; i < CPU_MAX_ENTRIES + 1; i++)
        strcat(many, "-1,");
    expect_error(many, "too many threads specified (at most 128)");
    many[strlen(many) - 3] = '\0'; /* exactly 128 */
    cpu_list l;
    assert_int_equal(cpu_parse(&l, many), 0);
    assert_int_equal(l.count, CPU_MAX_ENTRIES);

    char longer[200];
    memset(longer, '1', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    expect_error(longer, "too long");
}

typedef struct bind_job {
    const cpu_entry *e;
    int rc;
    cpu_set_t after;
} bind_job;

static void *bind_thread(void *arg)
{
    bind_job *j = arg;
    j->rc = cpu_bind(j->e);
    pthread_getaffinity_np(pthread_self(), sizeof(j->after), &j->after);
    return NULL;
}

/* A thread bound to an entry runs on exactly the entry's CPUs. */
static void test_bind(void **state)
{
    (void)state;
    hwloc_obj_t last = hwloc_get_obj_by_type(
        topo, HWLOC_OBJ_PU, (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU) - 1);
    char list[32];
    snprintf(list, sizeof(list), "%u", last->os_index);
    cpu_list l;
    assert_int_equal(cpu_parse(&l, list), 0);
    bind_job j = {.e = &l.entry[0]};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, bind_thread, &j), 0);
    pthread_join(th, NULL);
    assert_int_equal(j.rc, 0);
    assert_int_equal(CPU_COUNT(&j.after), 1);
    assert_true(CPU_ISSET((int)last->os_index, &j.after));
    char text[64];
    cpu_entry_cpus(&l.entry[0], text, sizeof(text));
    assert_string_equal(text, list);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_and_unbound),
        cmocka_unit_test(test_logical_numbers),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_bind),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

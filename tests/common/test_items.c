/* The item list: values read, every validation rule with its file:line, the thread split,
 * the generator script, and the original's data files when present. */
#include "testsupport.h"

#include "err.h"
#include "items.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/rwfperf_items_XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes text to <dir>/<name> and returns the path (static buffer). */
static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void expect_error(const char *text, size_t need, const char *want)
{
    const char *path = write_file("bad.xml", text);
    items l;
    if (items_load(&l, path, need) == 0) {
        print_error("accepted: %s\n", text);
        fail();
    }
    assert_null(l.v);
    char full[600];
    snprintf(full, sizeof(full), "%s%s", want[0] == ':' ? path : "", want);
    if (!strstr(err_msg(), full)) {
        print_error("error '%s' lacks '%s'\n", err_msg(), full);
        fail();
    }
}

static void test_values(void **state)
{
    (void)state;
    const char *path =
        write_file("ok.xml", "<?xml version=\"1.0\"?>\n"
                             "<!-- a comment -->\n"
                             "<itemList>\n"
                             "  <item domain=\"MarketPrice\" name=\"RDT1\" post=\"true\" "
                             "generic=\"true\"/>\n"
                             "  <item domain=\"MarketByOrder\" name=\"IBM.N\" snapshot=\"true\" "
                             "latency=\"x\"></item>\n"
                             "  <item name=\"RDT3\" domain=\"MarketPrice\" genMsg=\"true\" "
                             "post=\"false\"/>\n"
                             "  text is ignored\n"
                             "  <item domain=\"MarketPrice\" name=\"RDT4\"/>\n"
                             "</itemList>\n");
    items l;
    assert_int_equal(items_load(&l, path, 4), 0);
    assert_int_equal(l.count, 4);
    assert_int_equal(l.post_count, 1);
    assert_int_equal(l.generic_count, 2);
    assert_string_equal(l.v[0].name, "RDT1");
    assert_int_equal(l.v[0].name_len, 4);
    assert_int_equal(l.v[0].domain, ITEMS_DOMAIN_MARKET_PRICE);
    assert_true(l.v[0].post && l.v[0].generic && !l.v[0].snapshot);
    assert_string_equal(l.v[1].name, "IBM.N");
    assert_int_equal(l.v[1].domain, ITEMS_DOMAIN_MARKET_BY_ORDER);
    assert_true(!l.v[1].post && !l.v[1].generic && l.v[1].snapshot);
    assert_true(!l.v[2].post && l.v[2].generic);
    assert_string_equal(l.v[3].name, "RDT4");

    /* The same list from memory. */
    uint8_t *text;
    size_t len;
    assert_int_equal(ts_read_file(path, &text, &len), 0);
    items m;
    assert_int_equal(items_parse(&m, "mem.xml", (const char *)text, len, 4), 0);
    assert_int_equal(m.count, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_string_equal(m.v[i].name, l.v[i].name);
        assert_int_equal(m.v[i].domain, l.v[i].domain);
        assert_int_equal(m.v[i].post, l.v[i].post);
        assert_int_equal(m.v[i].generic, l.v[i].generic);
        assert_int_equal(m.v[i].snapshot, l.v[i].snapshot);
    }
    items_free(&m);
    assert_int_equal(items_parse(&m, "mem.xml", (const char *)text, len, 5), -1);
    assert_string_equal(err_msg(), "mem.xml: 4 items found, 5 needed");
    assert_int_equal(items_parse(&m, "mem.xml", (const char *)text, 40, 1), -1);
    assert_non_null(strstr(err_msg(), "mem.xml:"));
    free(text);
    items_free(&l);

    /* Only the first N are read: what comes after them is not looked at. */
    path = write_file("partial.xml", "<itemList>\n"
                                     "<item domain=\"MarketPrice\" name=\"A\"/>\n"
                                     "<item domain=\"MarketPrice\" name=\"B\"/>\n"
                                     "<bogus/>\n");
    assert_int_equal(items_load(&l, path, 2), 0);
    assert_int_equal(l.count, 2);
    assert_string_equal(l.v[1].name, "B");
    items_free(&l);
}

static void test_errors(void **state)
{
    (void)state;
    const char *head = "<itemList>\n";
    char buf[2048];
#define BAD(body, need, want)                                                                      \
    do {                                                                                           \
        snprintf(buf, sizeof(buf), "%s%s", head, body);                                            \
        expect_error(buf, need, want);                                                             \
    } while (0)

    BAD("<item domain=\"MarketPrice\" name=\"A\"/>\n<item name=\"B\"/>\n</itemList>\n", 2,
        ":3: item without a domain attribute (domain and name are required)");
    BAD("<item domain=\"MarketPrice\"/>\n", 1, ":2: item without a name attribute");
    BAD("\n\n<item domain=\"MarketPrice\" name=\"A\" post=\"yes\"/>\n", 1,
        ":4: post=\"yes\": expected \"true\" or \"false\"");
    BAD("<item domain=\"MarketPrice\" name=\"A\" snapshot=\"1\"/>\n", 1,
        ":2: snapshot=\"1\": expected");
    BAD("<item domain=\"MarketPrice\" name=\"A\" generic=\"True\"/>\n", 1, ":2: generic=\"True\"");
    BAD("<item domain=\"Quote\" name=\"A\"/>\n", 1, ":2: unknown domain \"Quote\"");
    BAD("<item domain=\"MarketPrice\" name=\"A\" post=\"true\" snapshot=\"true\"/>\n", 1,
        ":2: item 'A' is set for both post and snapshot");
    BAD("<item domain=\"MarketPrice\" name=\"G\" genMsg=\"true\" snapshot=\"true\"/>\n", 1,
        ":2: item 'G' is set for both generic and snapshot");
    BAD("<item domain=\"MarketPrice\" name=\"A\" generic=\"true\" genMsg=\"true\"/>\n", 1,
        ":2: both generic and genMsg given");
    BAD("<item domain=\"MarketPrice\" name=\"\"/>\n", 1, ":2: the item name is empty");
    BAD("<items/>\n", 1, ":2: unknown element <items> in <itemList>; expected <item>");
    BAD("<item domain=\"MarketPrice\" name=\"A\"><sub/></item>\n", 1,
        ":2: unexpected element <sub> inside <item>");
    /* Duplicate attributes are not well-formed XML: libxml2's message, with the line. */
    BAD("\n<item domain=\"MarketPrice\" name=\"A\" post=\"true\" post=\"false\"/>\n", 1,
        ":3: Attribute post redefined");
    BAD("<item domain=\"MarketPrice\" name=\"A\"\n", 1, ":");
    BAD("<item domain=\"MarketPrice\" name=\"A\"/>\n<item domain=\"MarketPrice\" "
        "name=\"B\"/>\n</itemList>\n",
        3, ": 2 items found, 3 needed");
    BAD("</itemList>\n", 1, ": 0 items found, 1 needed");

    char longname[400];
    memset(longname, 'N', 256);
    longname[256] = '\0';
    snprintf(buf, sizeof(buf), "<itemList><item domain=\"MarketPrice\" name=\"%s\"/></itemList>",
             longname);
    expect_error(buf, 1, ":1: the item name is 256 bytes long (at most 255)");
    longname[255] = '\0';
    snprintf(buf, sizeof(buf), "<itemList><item domain=\"MarketPrice\" name=\"%s\"/></itemList>",
             longname);
    items l;
    assert_int_equal(items_load(&l, write_file("long.xml", buf), 1), 0);
    assert_int_equal(l.v[0].name_len, 255);
    items_free(&l);

    expect_error("<list><item domain=\"MarketPrice\" name=\"A\"/></list>", 1,
                 ":1: the root element is <list>; expected <itemList>");
    expect_error("", 1, ": the file is empty");
    expect_error("  \n", 1, ":");
    expect_error("<itemList>\n<item domain=\"MarketPrice\" name=\"A\"/>\n<item "
                 "domain=\"MarketPrice\" name=\"B\" post=\"true\" & />\n</itemList>\n",
                 2, ":3: ");

    assert_int_equal(items_load(&l, "/nonexistent/items.xml", 1), -1);
    assert_string_equal(err_msg(), "/nonexistent/items.xml: No such file or directory");
    assert_int_equal(items_load(&l, write_file("zero.xml", "<itemList/>"), 0), -1);
    assert_non_null(strstr(err_msg(), "no items asked for"));
}

/* docs/tools.md#threads-and-items with its worked numbers, and the rule for every small case. */
static void test_split(void **state)
{
    (void)state;
    items_share s;
    /* 10 items, 3 threads, 2 common: counts 4,3,3; own ranges start at 2, 4, 5. */
    assert_int_equal(items_split(10, 2, 3, 0, &s), 0);
    assert_int_equal(s.count, 4);
    assert_int_equal(s.common, 2);
    assert_int_equal(s.first, 2);
    assert_int_equal(items_split(10, 2, 3, 1, &s), 0);
    assert_int_equal(s.count, 3);
    assert_int_equal(s.first, 4);
    assert_int_equal(items_split(10, 2, 3, 2, &s), 0);
    assert_int_equal(s.count, 3);
    assert_int_equal(s.first, 5);
    assert_int_equal(items_needed(10, 2, 3), 6);

    for (size_t count = 0; count < 40; count++)
        for (size_t threads = 1; threads < 9; threads++)
            for (size_t common = 0; common <= count / threads; common++) {
                size_t next = common, total = 0;
                for (size_t t = 0; t < threads; t++) {
                    assert_int_equal(items_split(count, common, threads, t, &s), 0);
                    assert_int_equal(s.first, next); /* contiguous, in thread order */
                    assert_true(s.count >= common);
                    next += s.count - common;
                    total += s.count;
                }
                assert_int_equal(total, count);
                assert_int_equal(next, items_needed(count, common, threads));
            }

    assert_int_equal(items_split(10, 4, 3, 0, &s), -1);
    assert_non_null(strstr(err_msg(), "common item count (4) is greater than the item count per "
                                      "thread (3)"));
    assert_int_equal(items_split(10, 0, 0, 0, &s), -1);
    assert_int_equal(items_split(10, 0, 2, 2, &s), -1);
}

static void test_generator(void **state)
{
    (void)state;
    char cmd[1024], path[512];
    snprintf(path, sizeof(path), "%s/350k.xml", dir);
    snprintf(cmd, sizeof(cmd), "'%s' 350000 > '%s'", ts_source_path("data/gen_items.sh"), path);
    assert_int_equal(system(cmd), 0);

    uint8_t *text;
    size_t len;
    assert_int_equal(ts_read_file(path, &text, &len), 0);
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    assert_int_equal(lines, 350002);
    const char *want_head =
        "<itemList>\n"
        "    <item domain=\"MarketPrice\" name=\"RDT1\" post=\"true\" generic=\"true\"/>\n"
        "    <item domain=\"MarketPrice\" name=\"RDT2\" post=\"true\"/>\n"
        "    <item domain=\"MarketPrice\" name=\"RDT3\" post=\"true\"/>\n"
        "    <item domain=\"MarketPrice\" name=\"RDT4\" post=\"true\"/>\n"
        "    <item domain=\"MarketPrice\" name=\"RDT5\" post=\"true\"/>\n"
        "    <item domain=\"MarketPrice\" name=\"RDT6\" post=\"true\"/>\n"
        "    <item domain=\"MarketPrice\" name=\"RDT7\" post=\"true\"/>\n"
        "    <item domain=\"MarketPrice\" name=\"RDT8\"/>\n";
    assert_memory_equal(text, want_head, strlen(want_head));
    const char *want_tail = "    <item domain=\"MarketPrice\" name=\"RDT350000\"/>\n</itemList>\n";
    assert_memory_equal(text + len - strlen(want_tail), want_tail, strlen(want_tail));
    free(text);

    items l;
    assert_int_equal(items_load(&l, path, 350000), 0);
    assert_int_equal(l.count, 350000);
    assert_int_equal(l.post_count, 7);
    assert_int_equal(l.generic_count, 1);
    assert_string_equal(l.v[0].name, "RDT1");
    assert_string_equal(l.v[349999].name, "RDT350000");
    for (size_t i = 0; i < l.count; i += 9973) {
        char want[32];
        snprintf(want, sizeof(want), "RDT%zu", i + 1);
        assert_string_equal(l.v[i].name, want);
        assert_int_equal(l.v[i].domain, ITEMS_DOMAIN_MARKET_PRICE);
    }
    items_free(&l);
    assert_int_equal(items_load(&l, path, 350001), -1);
    assert_non_null(strstr(err_msg(), "350000 items found, 350001 needed"));

    /* Bad counts: usage on stderr, exit status 2. */
    const char *bad[] = {"0", "abc", "-5", "1e3", ""};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(cmd, sizeof(cmd), "'%s' '%s' >/dev/null 2>&1", ts_source_path("data/gen_items.sh"),
                 bad[i]);
        int status = system(cmd);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 2);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_generator),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

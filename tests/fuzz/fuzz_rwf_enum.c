/*
 * fuzz_rwf_enum: the enumtype.def loader on arbitrary text.
 *
 * Each input is parsed as an enum type file into a new, empty dictionary, and (inputs whose
 * last byte is odd) again into one that holds the project's fields first. A rejected input
 * must say where ("fuzz:<line>: ..."); an accepted one must give tables whose lookups agree
 * with themselves: every value is found by its number (values are unique in a table) and
 * every field a table names points back to it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "rwf.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fields_text[1 << 20];
static size_t fields_len;

/* The project's field dictionary, found from this file's place in the source tree. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *slash = strrchr(__FILE__, '/');
    int dir = slash ? (int)(slash - __FILE__) : 0;
    char path[4096];
    snprintf(path, sizeof(path), "%.*s/../../data/RDMFieldDictionary", dir, __FILE__);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_rwf_enum: cannot open %s\n", path);
        abort();
    }
    fields_len = fread(fields_text, 1, sizeof(fields_text), f);
    fclose(f);
    return 0;
}

static void check_error(void)
{
    if (strncmp(err_msg(), "fuzz", 4) != 0) {
        fprintf(stderr, "error without the file name: %s\n", err_msg());
        abort();
    }
}

static void check_enums(const rwf_dict *d)
{
    for (uint32_t t = 0; t < d->table_count; t++) {
        const rwf_enum_table *tab = &d->tables[t];
        for (uint32_t v = 0; v < tab->count; v++) {
            if (rwf_enum_find(tab, tab->values[v].value) != &tab->values[v])
                abort();
        }
        for (uint32_t k = 0; k < tab->fid_count; k++)
            if (rwf_dict_enum_table(d, tab->fids[k]) != tab)
                abort();
    }
}

static void parse(bool with_fields, const uint8_t *data, size_t size)
{
    rwf_dict *d = rwf_dict_new();
    if (!d)
        return;
    if (with_fields && rwf_dict_parse_fields(d, "fields", fields_text, fields_len) < 0)
        abort();
    if (rwf_dict_parse_enums(d, "fuzz", (const char *)data, size) < 0)
        check_error();
    else
        check_enums(d);
    rwf_dict_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parse(false, data, size);
    if (size && (data[size - 1] & 1))
        parse(true, data, size);
    return 0;
}

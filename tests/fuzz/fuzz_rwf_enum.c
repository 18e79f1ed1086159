/*
 * fuzz_rwf_enum: the enumtype.def loader on arbitrary text.
 *
 * Each input is parsed as an enum type file into a new, empty dictionary, and (inputs whose
 * last byte is odd) again into one that holds the project's fields first. A rejected input
 * must say where ("fuzz:<line>: ..."); an accepted one must give tables whose lookups agree
 * with themselves: every value is found by its number (values are unique in a table) and
 * every field a table names points back to it.
 *
 * The two dictionaries are made once and reused: after each input its enum tables are taken
 * out again (table count, the fid-to-table index and the header information back to what they
 * were), so that every input meets an empty enum side, as in a new dictionary, without
 * allocating 330 KB and parsing the whole field dictionary per input. Each is made anew after
 * REUSE inputs, so that the memory the inputs' text and tables took is given back.
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

/* A dictionary kept across inputs: its state after the fields (none or the project's). */
typedef struct kept {
    rwf_dict *d;
    rwf_dict_info info;
    unsigned uses;
    bool with_fields;
} kept;

#define REUSE 256

static kept plain = {.with_fields = false}, fielded = {.with_fields = true};

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

/* k's dictionary, with its fields and no enum tables (made anew every REUSE uses). */
static rwf_dict *take(kept *k)
{
    if (k->d && k->uses >= REUSE) {
        rwf_dict_free(k->d);
        k->d = NULL;
    }
    if (!k->d) {
        k->d = rwf_dict_new();
        if (!k->d)
            abort();
        if (k->with_fields && rwf_dict_parse_fields(k->d, "fields", fields_text, fields_len) < 0)
            abort();
        k->info = k->d->info;
        k->uses = 0;
    }
    k->uses++;
    return k->d;
}

/* Takes the enum tables an input added (whole or before an error) out of k's dictionary. */
static void give_back(kept *k)
{
    rwf_dict *d = k->d;
    for (uint32_t t = 0; t < d->table_count; t++)
        for (uint32_t i = 0; i < d->tables[t].fid_count; i++)
            d->enum_at[rwf_dict_slot(d->tables[t].fids[i])] = 0;
    d->table_count = 0;
    d->info = k->info;
}

static void parse(kept *k, const uint8_t *data, size_t size)
{
    rwf_dict *d = take(k);
    if (rwf_dict_parse_enums(d, "fuzz", (const char *)data, size) < 0)
        check_error();
    else
        check_enums(d);
    give_back(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parse(&plain, data, size);
    if (size && (data[size - 1] & 1))
        parse(&fielded, data, size);
    return 0;
}

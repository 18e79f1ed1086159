/*
 * fuzz_rwf_dict: the RDMFieldDictionary loader on arbitrary text (fuzz_rwf_enum does the
 * enumtype.def loader).
 *
 * Each input is parsed as a field dictionary into an empty dictionary. A rejected input must
 * say where ("fuzz:<line>: ..."); an accepted one must give a dictionary whose lookups agree
 * with its own tables.
 *
 * The dictionary is made once and reused: after each input the fields it added (whole or
 * before an error) are taken out again (the per-fid tables, the name index, the fid range
 * and the header information back to those of a new dictionary), so that every input meets
 * an empty dictionary without allocating its 330 KB per input. It is made anew after REUSE
 * inputs, so that the memory the inputs' text and strings took is given back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "rwf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REUSE 256

static rwf_dict *dict;
static unsigned uses;

static void check_error(const char *name)
{
    if (strncmp(err_msg(), name, strlen(name)) != 0) {
        fprintf(stderr, "error without the file name: %s\n", err_msg());
        abort();
    }
}

static void check_fields(const rwf_dict *d)
{
    for (uint32_t i = 0; i < d->field_count; i++) {
        const rwf_dict_field *f = &d->fields[i];
        if (rwf_dict_field_by_fid(d, f->fid) != f || rwf_dict_type(d, f->fid) != f->rwf_type ||
            rwf_dict_field_by_name(d, f->acronym) == NULL)
            abort();
    }
}

/* The dictionary, empty (made anew every REUSE uses). */
static rwf_dict *take(void)
{
    if (dict && uses >= REUSE) {
        rwf_dict_free(dict);
        dict = NULL;
    }
    if (!dict) {
        dict = rwf_dict_new();
        if (!dict)
            abort();
        uses = 0;
    }
    uses++;
    return dict;
}

/* Takes the fields an input added out of the dictionary: empty as rwf_dict_new made it (the
 * arrays keep their size; strings stay in the arena until the dictionary is made anew). */
static void give_back(rwf_dict *d)
{
    if (d->table_count)
        abort(); /* a field file adds no enum tables */
    for (uint32_t i = 0; i < d->field_count; i++) {
        unsigned s = rwf_dict_slot(d->fields[i].fid);
        d->field_at[s] = 0;
        d->type_of[s] = 0;
    }
    d->field_count = 0;
    if (d->name_hash)
        memset(d->name_hash, 0, d->name_hash_cap * sizeof(*d->name_hash));
    d->min_fid = 32767;
    d->max_fid = -32768;
    memset(&d->info, 0, sizeof(d->info));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rwf_dict *d = take();
    if (rwf_dict_parse_fields(d, "fuzz", (const char *)data, size) < 0)
        check_error("fuzz");
    else
        check_fields(d);
    give_back(d);
    return 0;
}

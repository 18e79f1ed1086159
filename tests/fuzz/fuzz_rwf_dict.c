/*
 * fuzz_rwf_dict: the RDMFieldDictionary loader on arbitrary text (fuzz_rwf_enum does the
 * enumtype.def loader).
 *
 * Each input is parsed as a field dictionary into a new dictionary. A rejected input must say
 * where ("fuzz:<line>: ..."); an accepted one must give a dictionary whose lookups agree with
 * its own tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "rwf.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rwf_dict *d = rwf_dict_new();
    if (!d)
        return 0;
    if (rwf_dict_parse_fields(d, "fuzz", (const char *)data, size) < 0)
        check_error("fuzz");
    else
        check_fields(d);
    rwf_dict_free(d);
    return 0;
}

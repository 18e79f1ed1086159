/*
 * rwf_dict_int: what the file loader (rwf_dict_load.c) uses of the in-memory dictionary
 * (rwf_dict.c). Not for users of the codec.
 */
#ifndef RWFPERF_RWF_DICT_INT_H
#define RWFPERF_RWF_DICT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "rwf_dict.h"

/* n bytes aligned to align (a power of two) in the dictionary's memory, freed with it; NULL
 * when out of memory. */
void *rwf_dict_arena_alloc(rwf_dict *d, size_t n, size_t align);

/* Adds field f, keeping its views as given (they must point into the dictionary's memory).
 * Returns what rwf_dict_add_field does. */
int rwf_dict_add_field_view(rwf_dict *d, const rwf_dict_field *f);

/* Adds an enum table: values, fids and acronyms are copied into the dictionary's memory, the
 * strings they view are not. Returns what rwf_dict_add_enum_table does. */
int rwf_dict_add_table_view(rwf_dict *d, const int16_t *fids, const rwf_buf *acronyms,
                            uint32_t fid_count, const rwf_enum_value *values, uint32_t count);

#endif

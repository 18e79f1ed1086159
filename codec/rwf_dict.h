/*
 * rwf_dict: the field dictionary (RDMFieldDictionary) and enumerated types (enumtype.def).
 *
 * A dictionary maps a field id to its definition: acronym, DDE acronym, ripple-to field,
 * Marketfeed type and length, RWF type and length, and (for ENUM fields) the table that turns
 * an enum value into its display text. Lookups by fid are O(1) array reads, the type lookup a
 * single byte load (rwf_dict_type): that is what a consumer does for every field it decodes.
 * Enum displays are O(1) (direct index) for dense tables and O(log n) for sparse ones.
 *
 * Loading reads a whole file into memory owned by the dictionary; acronyms, displays and
 * meanings are views into it. Every malformed line is an error "<file>:<line>: <what>"
 * (RWF_E_MALFORMED); an unreadable file is RWF_E_IO. The two files may be loaded in either
 * order; loading more than one file of a kind adds to the dictionary (duplicates are errors).
 *
 * A dictionary is built once (by one thread) and then only read; reads need no lock.
 */
#ifndef RWFPERF_RWF_DICT_H
#define RWFPERF_RWF_DICT_H

#include <stddef.h>
#include <stdint.h>

#include "rwf_prim.h"

/* Marketfeed field types (column 5). */
enum {
    RWF_MF_NONE = -1,
    RWF_MF_TIME_SECONDS = 0,
    RWF_MF_INTEGER = 1,
    RWF_MF_NUMERIC = 2,
    RWF_MF_DATE = 3,
    RWF_MF_PRICE = 4,
    RWF_MF_ALPHANUMERIC = 5,
    RWF_MF_ENUMERATED = 6,
    RWF_MF_TIME = 7,
    RWF_MF_BINARY = 8,
    RWF_MF_LONG_ALPHANUMERIC = 9,
    RWF_MF_OPAQUE = 10,
};

typedef struct rwf_dict_field {
    rwf_buf acronym;     /* "TRDPRC_1" */
    rwf_buf dde_acronym; /* "LAST" (without the quotes) */
    int16_t fid;
    int16_t ripple_to; /* fid of the ripple-to field, 0 for NULL or unresolved */
    int8_t mf_type;    /* RWF_MF_* */
    uint8_t rwf_type;  /* RWF_DT_* */
    uint16_t length;   /* Marketfeed length */
    uint8_t enum_length;
    uint16_t rwf_len;
} rwf_dict_field;

typedef struct rwf_enum_value {
    uint16_t value;
    rwf_buf display; /* quoted text, or the bytes of a #hex# display */
    rwf_buf meaning; /* rest of the line, may be empty */
} rwf_enum_value;

typedef struct rwf_enum_table {
    const rwf_enum_value *values; /* sorted by value */
    uint32_t count;
    uint16_t max_value;
    const uint16_t *direct;  /* when not NULL: index + 1 by value (0 = absent), 0..max_value */
    const int16_t *fids;     /* referencing fields, in file order */
    const rwf_buf *acronyms; /* their acronyms as written in enumtype.def */
    uint32_t fid_count;
} rwf_enum_table;

typedef struct rwf_dict rwf_dict;

/* How an enum field's values are found (rwf_dict_entry.enum_kind). */
enum {
    RWF_DICT_ENUM_NONE = 0,  /* no enum table: no value has a display */
    RWF_DICT_ENUM_DENSE = 1, /* display lengths by value in d->enum_len (rwf_dict_entry_enum_len) */
    RWF_DICT_ENUM_SPARSE = 2, /* a table searched through rwf_dict_enum */
};

/* Display length of a value its table does not define, in d->enum_len. */
#define RWF_DICT_ENUM_NO_VALUE 0xFFFFu

/* Everything a decoder reads of a field, in one 8-byte entry by fid (rwf_dict_entry): its
 * type and where the display lengths of its enum values are, so that a field costs one
 * lookup. Kept in step with type_of and enum_at as fields and tables are added. */
typedef struct rwf_dict_entry {
    uint8_t type;      /* RWF_DT_*; RWF_DT_UNKNOWN (0) when the dictionary does not define fid */
    uint8_t enum_kind; /* RWF_DICT_ENUM_* */
    uint16_t enum_max; /* _DENSE: largest value of the table */
    uint32_t enum_at;  /* _DENSE: index in d->enum_len of value 0 */
} rwf_dict_entry;

/* Dictionary information from the "!tag" lines (views; empty when absent). */
typedef struct rwf_dict_info {
    rwf_buf field_filename, field_desc, field_version, field_build, field_date;
    rwf_buf enum_filename, enum_desc, enum_rt_version, enum_dt_version, enum_date;
    int dictionary_id;
} rwf_dict_info;

struct rwf_dict {
    uint8_t type_of[65536];      /* RWF type by fid + 32768; 0 = no such field */
    uint16_t field_at[65536];    /* index + 1 into fields by fid + 32768; 0 = none */
    uint16_t enum_at[65536];     /* index + 1 into tables by fid + 32768; 0 = none */
    rwf_dict_entry entry[65536]; /* by fid + 32768: type and enum display lengths */
    uint16_t *enum_len; /* display length by value of each dense table (RWF_DICT_ENUM_NO_VALUE
                         * where the table defines none), the tables one after another */
    uint32_t enum_len_count, enum_len_cap;
    rwf_dict_field *fields; /* in load order */
    uint32_t field_count, field_cap;
    rwf_enum_table *tables;
    uint32_t table_count, table_cap;
    uint32_t *name_hash; /* open addressing on acronyms: field index + 1 */
    uint32_t name_hash_cap;
    int16_t min_fid, max_fid;
    rwf_dict_info info;
    void *arena; /* memory the views point into */
};

/* A new, empty dictionary (about 850 KB of address space, mostly untouched zero pages), or NULL
 * when out of memory (err text set). */
rwf_dict *rwf_dict_new(void);

/* Frees d and everything its views point into. NULL is fine. */
void rwf_dict_free(rwf_dict *d);

/* Loads an RDMFieldDictionary / enumtype.def file into d. Returns RWF_OK, RWF_E_IO,
 * RWF_E_MALFORMED or RWF_E_NOMEM with err text "<path>:<line>: <what>". On error d keeps
 * what earlier loads gave it, plus possibly part of the failed file: discard it. */
int rwf_dict_load_fields(rwf_dict *d, const char *path);
int rwf_dict_load_enums(rwf_dict *d, const char *path);

/* The same from text in memory (copied; less than 4 GiB, else RWF_E_INVALID); name is used
 * in error text. */
int rwf_dict_parse_fields(rwf_dict *d, const char *name, const char *text, size_t len);
int rwf_dict_parse_enums(rwf_dict *d, const char *name, const char *text, size_t len);

/* Adds one field (strings copied). Returns RWF_OK, or RWF_E_INVALID for fid 0, a fid already
 * defined, or RWF_DT_UNKNOWN type. ripple_to is taken as given. */
int rwf_dict_add_field(rwf_dict *d, const rwf_dict_field *f);

/* Adds one enum table (values and fids copied; values need not be sorted). Returns RWF_OK or
 * RWF_E_INVALID (no fids, duplicate value, a fid that already has a table). */
int rwf_dict_add_enum_table(rwf_dict *d, const int16_t *fids, const rwf_buf *acronyms,
                            uint32_t fid_count, const rwf_enum_value *values, uint32_t count);

/* Copies text into the dictionary's memory; returns the view (empty on allocation failure). */
rwf_buf rwf_dict_strdup(rwf_dict *d, rwf_buf text);

/* The index of fid in the dictionary's per-fid tables (type_of, field_at, enum_at): fid + 32768,
 * 0..65535 for every fid. */
static inline unsigned rwf_dict_slot(int16_t fid)
{
    return (unsigned)((int)fid + 32768);
}

/* RWF type of fid, RWF_DT_UNKNOWN (0) when the dictionary does not define it. */
static inline int rwf_dict_type(const rwf_dict *d, int16_t fid)
{
    return d->type_of[rwf_dict_slot(fid)];
}

/* The decoder's entry of fid (type RWF_DT_UNKNOWN when the dictionary does not define it). */
static inline rwf_dict_entry rwf_dict_entry_of(const rwf_dict *d, int16_t fid)
{
    return d->entry[rwf_dict_slot(fid)];
}

/* Display length of enum value v of a field whose entry e is RWF_DICT_ENUM_DENSE, or
 * RWF_DICT_ENUM_NO_VALUE when its table does not define v: what rwf_dict_enum(d, fid, v)
 * gives as display.len, or NULL. */
static inline unsigned rwf_dict_entry_enum_len(const rwf_dict *d, rwf_dict_entry e, uint16_t v)
{
    return v <= e.enum_max ? d->enum_len[e.enum_at + v] : RWF_DICT_ENUM_NO_VALUE;
}

/* Definition of fid, or NULL. */
static inline const rwf_dict_field *rwf_dict_field_by_fid(const rwf_dict *d, int16_t fid)
{
    unsigned i = d->field_at[rwf_dict_slot(fid)];
    return i ? &d->fields[i - 1] : NULL;
}

/* Definition by acronym, or NULL. */
const rwf_dict_field *rwf_dict_field_by_name(const rwf_dict *d, rwf_buf acronym);

/* The enum table of fid, or NULL. */
static inline const rwf_enum_table *rwf_dict_enum_table(const rwf_dict *d, int16_t fid)
{
    unsigned i = d->enum_at[rwf_dict_slot(fid)];
    return i ? &d->tables[i - 1] : NULL;
}

/* The entry of value in table t, or NULL. */
const rwf_enum_value *rwf_enum_find_slow(const rwf_enum_table *t, uint16_t value);

/* The entry of value in table t, or NULL when the table does not define it: one lookup in the
 * table's direct index when it has one (dense values), else rwf_enum_find_slow's search. The
 * entry belongs to the dictionary. */
static inline const rwf_enum_value *rwf_enum_find(const rwf_enum_table *t, uint16_t value)
{
    if (t->direct) {
        if (value > t->max_value || !t->direct[value])
            return NULL;
        return &t->values[t->direct[value] - 1];
    }
    return rwf_enum_find_slow(t, value);
}

/* Display of value for enum field fid, or NULL when fid has no table or the value is not in
 * it. */
static inline const rwf_enum_value *rwf_dict_enum(const rwf_dict *d, int16_t fid, uint16_t value)
{
    const rwf_enum_table *t = rwf_dict_enum_table(d, fid);
    return t ? rwf_enum_find(t, value) : NULL;
}

/* Name of an RWF type as the dictionary writes it ("REAL64", "UINT64", "RMTES_STRING"...),
 * and the type of such a name (-1 when unknown). */
const char *rwf_dict_rwf_type_name(int type);
int rwf_dict_rwf_type_from_name(const char *name, size_t len);

/* Name of a Marketfeed type ("PRICE") and back (RWF_MF_NONE - 1 = -2 when unknown). */
const char *rwf_dict_mf_type_name(int mf_type);
int rwf_dict_mf_type_from_name(const char *name, size_t len);

#endif

/*
 * msgdata_int: what the parts of the MsgData.xml reader share (not part of msgdata.h):
 *
 *   msgdata.c        the msgdata's memory, the record of what the ETA parser's memory block
 *                    would hold, loading, and the encoding of templates with their stamps;
 *   msgdata_value.c  the XML walk's helpers and the values of fieldEntry elements;
 *   msgdata_body.c   the message bodies (MarketPrice field lists, MarketByOrder maps with
 *                    their set definitions), the message lists and the document.
 */
#ifndef RWFPERF_MSGDATA_INT_H
#define RWFPERF_MSGDATA_INT_H

#include "err.h"
#include "msgdata.h"
#include "rwf_types.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- What the ETA parser's memory block would hold (msgdata.c) ----------------------------
 * The ETA tools carve their parsed messages out of one block (6000 bytes, doubled and the
 * parse restarted until everything fits) and print how much of it is left. Reproducing the
 * number needs the sizes of their x86-64 structures and the order of their reservations,
 * which the walk records. */

enum {
    ETA_MP_MSG = 24,       /* MarketPriceMsg */
    ETA_MBO_MSG = 32,      /* MarketByOrderMsg */
    ETA_FIELD = 56,        /* MarketField: RsslFieldEntry + RsslPrimitive + RsslBool */
    ETA_ORDER = 104,       /* MarketOrder */
    ETA_SET_DB = 272,      /* RsslLocalFieldSetDefDb */
    ETA_SET_ENTRY = 4,     /* RsslFieldSetDefEntry */
    ETA_FIRST_BLOCK = 6000 /* first block size */
};

typedef struct eta_reserve {
    uint32_t count, size;
} eta_reserve;

typedef struct eta_trace {
    eta_reserve *v;
    size_t n, cap;
    bool oom;
} eta_trace;

/* Records one reservation of count structures of size bytes. */
void md_eta_note(eta_trace *t, uint32_t count, uint32_t size);

/* The bytes the ETA parser's final block has left after the recorded reservations. */
uint32_t md_eta_memory(const eta_trace *t);

/* Memory of md that never moves and is freed with it: size bytes, or a copy of len bytes of p.
 * NULL (err_msg() set) when memory runs out. */
void *md_alloc(msgdata *md, size_t size);
void *md_copy(msgdata *md, const void *p, size_t len);

/* ---- The walk (msgdata_value.c) ------------------------------------------------------------ */

typedef struct parser {
    const char *name; /* the file, for errors */
    const rwf_dict *dict;
    msgdata *md;
    eta_trace trace;
} parser;

/* One parsed fieldEntry. */
typedef struct field {
    int16_t fid;
    uint8_t type;
    bool blank;
    int line;
    rwf_value v;
    xmlChar *text; /* owns the string a buffer/state value points into */
} field;

typedef struct name_value {
    const char *name;
    int value;
} name_value;
;

/* The line of node n (0 when n is NULL). */
int md_node_line(const xmlNode *n);

/* Sets the error "<file>:<line>: <formatted text>" for node n. Returns -1. */
int md_perr(const parser *p, const xmlNode *n, const char *fmt, ...) ERR_PRINTF(3, 4);

/* Prefixes the current error text with the place: "<file>:<line>: <text>". Returns -1. */
int md_locate(const parser *p, const xmlNode *n);

/* The name of a data type, "?" when it has none. */
const char *md_tname(int type);

/* Whether n is the element called name; its first child element called name (or NULL); how
 * many children are called name (any node type, as the ETA parser counts); how many child
 * elements are. */
bool md_is_elem(const xmlNode *n, const char *name);
xmlNode *md_child(const xmlNode *n, const char *name);
uint32_t md_count_named(const xmlNode *n, const char *name);
uint32_t md_count_elems(const xmlNode *n, const char *name);

/* Attribute value (caller frees with xmlFree), or NULL when absent. */
char *md_attr(const xmlNode *n, const char *name);

/* The map entry actions by name ("RSSL_MPEA_..."), ended by a NULL name. */
extern const name_value md_map_actions[];

/* A data type by its name ("RSSL_DT_...") or number 0..255; a name of table t or a decimal
 * number 0..max. Return the value or -1. */
long md_type_of(const char *s);
long md_name_or_number(const name_value *t, const char *s, long max);

/* A decimal integer attribute in [lo, hi] into *out (left alone when absent and not required).
 * Returns 0, or -1 with an error naming the attribute. */
int md_int_attr(const parser *p, const xmlNode *n, const char *name, long lo, long hi,
                bool required, long *out);

/* The fieldEntry elements of list, parsed and validated against the dictionary into *out (n
 * of them; free with md_free_fields). Returns 0 or -1 (error set with the place). */
int md_parse_fields(parser *p, const xmlNode *list, field **out, size_t *n);
void md_free_fields(field *v, size_t n);

/* What the ETA tools estimate for the fields' encoded size; the room their encoding needs. */
uint32_t md_estimate_fields(const field *v, size_t n);
size_t md_fields_room(const field *v, size_t n);

/* Encodes the fields as entries of the FieldList e is in. Returns 0 or -1. */
int md_encode_fields(parser *p, rwf_enc *e, const field *v, size_t n);

/* ---- The document (msgdata_body.c) -------------------------------------------------------- */

/* Walks the whole document into p->md. Returns 0, or -1 with the error's place. */
int md_parse_doc(parser *p, xmlDoc *doc);

#endif

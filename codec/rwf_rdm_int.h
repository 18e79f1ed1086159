/*
 * rwf_rdm_int: what the RDM message files (rwf_rdm_login.c, rwf_rdm_directory.c,
 * rwf_rdm_dictionary.c, rwf_rdm.c) share: element helpers. Not for users of the codec.
 */
#ifndef RWFPERF_RWF_RDM_INT_H
#define RWFPERF_RWF_RDM_INT_H

#include "rwf_rdm.h"

/* The view of an element name given as a string literal (or a macro naming one); NAME_INIT
 * is the same as a static initializer. */
#define NAME(lit) RWF_STR(lit)
#define NAME_INIT(lit)                                                                             \
    {                                                                                              \
        (lit), sizeof(lit) - 1                                                                     \
    }

/* Writes an ASCII_STRING element (errors stay in the encoder's sticky status). */
static inline void rwf_rdm_put_ascii(rwf_enc *e, rwf_buf name, rwf_buf v)
{
    rwf_enc_el_buf(e, name, RWF_DT_ASCII_STRING, v);
}

/* Reads a UINT (or INT) element into *v; another type is RWF_E_MALFORMED with err text naming
 * the element. */
int rwf_rdm_get_uint(const rwf_element *el, uint64_t *v);

/* Reads a buffer/string element into *v (a view into the element); another type is
 * RWF_E_MALFORMED with err text naming the element. */
int rwf_rdm_get_string(const rwf_element *el, rwf_buf *v);

#endif

/*
 * rwf_enc_int: the encoder's frame machinery, shared by the encoder's files (rwf_enc.c, the
 * frames; rwf_enc_value.c, rwf_enc_list.c, rwf_enc_map.c) and the message encoder
 * (rwf_msg_enc.c). Not for users of the codec.
 */
#ifndef RWFPERF_RWF_ENC_INT_H
#define RWFPERF_RWF_ENC_INT_H

#include "err.h"
#include "rwf_enc.h"

/* Sets the sticky error (the first one wins) with formatted text; returns the sticky error. */
int rwf_enc_err(rwf_enc *e, int code, const char *fmt, ...) ERR_PRINTF(3, 4);

/* 1 when n bytes fit at pos; else sets RWF_E_NOSPACE (naming what) and returns 0. */
int rwf_enc_room_slow(rwf_enc *e, size_t n, const char *what);

static inline int rwf_enc_room(rwf_enc *e, size_t n, const char *what)
{
    return (size_t)(e->end - e->pos) >= n ? 1 : rwf_enc_room_slow(e, n, what);
}

/* Names for error text: a frame's kind ("FieldList", "top level", ...) and what a frame
 * expects (RWF_ES_*: "entries", "a map key", ...). Never NULL. */
const char *rwf_enc_kind_name(int kind);
const char *rwf_enc_state_name(int state);

/* Out of line: rwf_enc_push once it is known that no error is pending. */
int rwf_enc_push_frame(rwf_enc *e, int kind, rwf_enc_frame **out);

/* Opens a container of kind where the innermost frame allows one, reserving its length in the
 * form the position requires. The new frame is zeroed except kind, len_form, len_at and start;
 * the caller sets its state. Returns RWF_OK or the sticky error. */
static inline int rwf_enc_push(rwf_enc *e, int kind, rwf_enc_frame **out)
{
    return e->err ? e->err : rwf_enc_push_frame(e, kind, out);
}

/* Closes the innermost frame: back-fills its own length, pops it, and moves the parent on
 * (the parent's entry, summary, attribute or payload is complete). */
int rwf_enc_pop(rwf_enc *e);

/* Counts one more entry of frame f, refusing a 65536th (a 256th in a FilterList). Returns
 * RWF_OK or the sticky error. */
static inline int rwf_enc_count_entry(rwf_enc *e, rwf_enc_frame *f)
{
    unsigned max = f->kind == RWF_DT_FILTER_LIST ? RWF_FILTER_COUNT_MAX : RWF_COUNT_MAX;
    if (f->count >= max)
        return rwf_enc_err(e, RWF_E_INVALID, "%s holds more than %u entries",
                           rwf_enc_kind_name(f->kind), max);
    f->count++;
    return RWF_OK;
}

/* Copies data behind a length of the given form (0 raw, 1 = u15rb minimal, 2 = u16ob); what
 * names it in error text. Returns RWF_OK or the sticky error. */
int rwf_enc_put_encoded(rwf_enc *e, rwf_buf data, int form, const char *what);

/* One set entry of FieldList/ElementList frame f was written: moves to the next, or ends the
 * set data (back-filling its length) and goes on to the standard entries. Defined in
 * rwf_enc_list.c. */
int rwf_enc_set_complete(rwf_enc *e, rwf_enc_frame *f);

/* Map/Vector/Series frame f: after its set definitions, summary data (copied when given, else
 * awaited) then the tail; the tail is the total count hint and the reserved entry count.
 * Defined in rwf_enc_map.c. */
int rwf_enc_dict_after_setdefs(rwf_enc *e, rwf_enc_frame *f, rwf_buf summary);
int rwf_enc_dict_tail(rwf_enc *e, rwf_enc_frame *f);

/* Called by rwf_enc_pop / rwf_enc_encoded when the key attribute of the message frame f is
 * complete: writes the rest of the message header. Defined in rwf_msg_enc.c. */
int rwf_msg_enc_attrib_done(rwf_enc *e, rwf_enc_frame *f);

/* The types that may fill a slot announced as want (same type, or both buffer/string). */
static inline int rwf_enc_type_fits(int want, int got)
{
    if (want == got)
        return 1;
    return rwf_is_buf_type(want) && rwf_is_buf_type(got);
}

#endif

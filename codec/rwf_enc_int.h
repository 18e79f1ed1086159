/*
 * rwf_enc_int: the encoder's frame machinery, shared by rwf_enc.c and the message encoder in
 * rwf_msg.c. Not for users of the codec.
 */
#ifndef RWFPERF_RWF_ENC_INT_H
#define RWFPERF_RWF_ENC_INT_H

#include "rwf_enc.h"
#include "err.h"

/* Sets the sticky error (the first one wins) with formatted text; returns the sticky error. */
int rwf_enc_err(rwf_enc *e, int code, const char *fmt, ...) ERR_PRINTF(3, 4);

/* 1 when n bytes fit at pos; else sets RWF_E_NOSPACE (naming what) and returns 0. */
int rwf_enc_room_slow(rwf_enc *e, size_t n, const char *what);

static inline int rwf_enc_room(rwf_enc *e, size_t n, const char *what)
{
    return (size_t)(e->end - e->pos) >= n ? 1 : rwf_enc_room_slow(e, n, what);
}

/* Opens a container of kind where the innermost frame allows one, reserving its length in the
 * form the position requires. The new frame is zeroed except kind, len_form, len_at and start;
 * the caller sets its state. Returns RWF_OK or the sticky error. */
int rwf_enc_push(rwf_enc *e, int kind, rwf_enc_frame **out);

/* Closes the innermost frame: back-fills its own length, pops it, and moves the parent on
 * (the parent's entry, summary, attribute or payload is complete). */
int rwf_enc_pop(rwf_enc *e);

/* Called by rwf_enc_pop / rwf_enc_encoded when the key attribute of the message frame f is
 * complete: writes the rest of the message header. Defined in rwf_msg.c. */
int rwf_msg_enc_attrib_done(rwf_enc *e, rwf_enc_frame *f);

/* The types that may fill a slot announced as want (same type, or both buffer/string). */
static inline int rwf_enc_type_fits(int want, int got)
{
    if (want == got)
        return 1;
    return want >= RWF_DT_BUFFER && want <= RWF_DT_RMTES_STRING && got >= RWF_DT_BUFFER &&
           got <= RWF_DT_RMTES_STRING;
}

#endif

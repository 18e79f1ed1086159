/*
 * rwf_text: text conversions of RWF primitives, used by MsgData.xml and the summaries —
 * numeric string <-> Real with ETA's hint rules, dates, times, integers.
 *
 * Every parser takes (s, len), need not be NUL-terminated, allocates nothing, and on invalid
 * text returns RWF_E_INVALID with err text quoting the text.
 */
#ifndef RWFPERF_RWF_TEXT_H
#define RWFPERF_RWF_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "rwf_value.h"

/* Numeric text -> Real with ETA's hint rules (docs/wire.md#primitives): decimal digits are all kept
 * ("9000.00" -> 900000 hint EXPONENT_2), integer trailing zeros fold into the exponent
 * ("1266750" -> 126675 hint EXPONENT1, up to 7 zeros), "n/d" and "w n/d" give fraction hints,
 * "Inf"/"-Inf"/"NaN" (whole words), leading spaces skipped, "" / spaces / a lone sign / "+0"
 * blank. The mantissa takes the full int64 range (INT64_MIN included); text without a digit
 * or with anything after the number but spaces is invalid. Returns RWF_OK, RWF_BLANK
 * (r->blank set) or RWF_E_INVALID with err text naming the text. */
int rwf_real_from_str(rwf_real *r, const char *s, size_t len);

/* Real -> text ("2848.560000", "39100330", "12 3/4", "Inf", "" for blank), NUL-terminated.
 * Returns the length, or RWF_E_NOSPACE when cap is too small (cap >= 32 always suffices). */
int rwf_real_to_str(const rwf_real *r, char *buf, size_t cap);

/* Real -> double (blank -> 0, Inf/NaN as IEEE). */
double rwf_real_to_double(const rwf_real *r);

/* Date text: "11/15/2005" (m/d/yyyy; yyyy/m/d when the first part > 255; 2-digit years add
 * 1900), "15 NOV 2005", "2005-11-15", "2005-11", "2005", "20051115", "--11-15", "--1115".
 * "" is blank. Returns RWF_OK, RWF_BLANK or RWF_E_INVALID (err text). */
int rwf_date_from_str(rwf_date *d, const char *s, size_t len);

/* Time text: "15:52:12:000:000:000" (hh:mm[:ss[:mmm[:uuu[:nnn]]]]), "15:52:12.123456789",
 * "155212", "1552", and the lenient form with leading spaces and ':'/space separators
 * (" 21:00:01:000"). The strict forms may end with a zone, "Z", "+hh", "+hhmm" or "+hh:mm"
 * (or '-'), which is checked and ignored; anything else after the time is invalid. "" or
 * spaces is blank. Returns RWF_OK, RWF_BLANK or RWF_E_INVALID. */
int rwf_time_from_str(rwf_time *t, const char *s, size_t len);

/* DateTime text: "<date> <time>" with the forms above, or ISO "2005-11-15T15:52:12". */
int rwf_datetime_from_str(rwf_datetime *dt, const char *s, size_t len);

/* "15 NOV 2005" (blank -> ""); "15:52:12:000:000:000" trimmed of zero sub-second groups
 * ("21:00:01"); NUL-terminated. Return the length or RWF_E_NOSPACE (cap >= 32 suffices). */
int rwf_date_to_str(const rwf_date *d, char *buf, size_t cap);
int rwf_time_to_str(const rwf_time *t, char *buf, size_t cap);

/* Decimal integers with optional sign and surrounding spaces; the whole text must be the
 * number. "" is blank. Out of range -> RWF_E_INVALID. Enum accepts 0..65535. */
int rwf_uint_from_str(uint64_t *v, const char *s, size_t len);
int rwf_int_from_str(int64_t *v, const char *s, size_t len);
int rwf_enum_from_str(uint16_t *v, const char *s, size_t len);

#endif

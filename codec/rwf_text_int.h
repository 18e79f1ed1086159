/*
 * rwf_text_int: what the text conversions of rwf_text_num.c and rwf_text_time.c share. Not for
 * users of the codec.
 */
#ifndef RWFPERF_RWF_TEXT_INT_H
#define RWFPERF_RWF_TEXT_INT_H

#include <stddef.h>

/* 1 when c is a decimal digit. */
static inline int rwf_text_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Sets err text "\"<text>\" is not a valid <what>" (the text cut at 64 bytes) and returns
 * RWF_E_INVALID. */
int rwf_text_invalid(const char *what, const char *s, size_t len);

#endif

/*
 * err: error text that travels with a failure.
 *
 * A function that fails sets the text once, where the failure is understood
 * ("truncated field entry at offset 12"), and returns its status. Each caller on the
 * way up may prefix its own context ("RDT5 refresh", "channel 7") before returning in
 * turn, so the text printed at the top reads from the widest context to the narrowest:
 *
 *     channel 7: RDT5 refresh: field 22: truncated REAL at offset 12
 *
 * The text is thread-local: worker threads never see each other's errors. Setting it
 * formats a string, so it belongs on error paths only, never in a hot loop's success path.
 */
#ifndef RWFPERF_ERR_H
#define RWFPERF_ERR_H

#include <stdbool.h>
#include <stddef.h>

#define ERR_MSG_MAX 1024

#if defined(__GNUC__)
#define ERR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ERR_PRINTF(a, b)
#endif

/* Replaces the current text with the formatted message. Returns -1, so that a failing
 * function can end with `return err_set(...)`. */
int err_set(const char *fmt, ...) ERR_PRINTF(1, 2);

/* Like err_set, then appends ": <strerror(errnum)>". Returns -1. */
int err_set_errno(int errnum, const char *fmt, ...) ERR_PRINTF(2, 3);

/* Prefixes the current text with "<formatted context>: ". Returns -1. Text that would not
 * fit is truncated at the end, never at the front. */
int err_push(const char *fmt, ...) ERR_PRINTF(1, 2);

/* Marks the current failure as final: trying the same thing again cannot heal it (a host name
 * that does not resolve, a certificate the check refused, a sub-protocol the server refused),
 * where other failures (a connection refused, reset) may heal by themselves. err_set() and
 * err_set_errno() clear the mark, err_push() keeps it: it travels up with the text. Returns
 * -1, for `return err_set(...), err_final();`. */
int err_final(void);

/* Whether the current failure was marked final (err_final) since the text was last set. */
bool err_is_final(void);

/* The current text of this thread; "" when none was set. Never NULL. */
const char *err_msg(void);

/* Forgets the current text. */
void err_clear(void);

#endif

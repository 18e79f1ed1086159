#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char err_text[ERR_MSG_MAX];
static _Thread_local bool err_final_mark;

int err_set(const char *fmt, ...)
{
    err_final_mark = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_text, sizeof(err_text), fmt, ap);
    va_end(ap);
    return -1;
}

int err_set_errno(int errnum, const char *fmt, ...)
{
    err_final_mark = false;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err_text, sizeof(err_text), fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof(err_text))
        snprintf(err_text + n, sizeof(err_text) - (size_t)n, ": %s", strerror(errnum));
    return -1;
}

int err_push(const char *fmt, ...)
{
    char out[ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, sizeof(out), fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    size_t used = strlen(out);
    size_t old_len = strlen(err_text);
    if (old_len > 0 && used + 2 < sizeof(out)) {
        memcpy(out + used, ": ", 2);
        used += 2;
        size_t room = sizeof(out) - 1 - used;
        size_t take = old_len < room ? old_len : room;
        memcpy(out + used, err_text, take);
        used += take;
        out[used] = '\0';
    }
    memcpy(err_text, out, used + 1);
    return -1;
}

int err_final(void)
{
    err_final_mark = true;
    return -1;
}

bool err_is_final(void)
{
    return err_final_mark;
}

const char *err_msg(void)
{
    return err_text;
}

void err_clear(void)
{
    err_final_mark = false;
    err_text[0] = '\0';
}

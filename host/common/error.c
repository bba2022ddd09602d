#include "common/error.h"

#include <stdio.h>

int cn_vfail(cn_error *err, int code, const char *fmt, va_list ap)
{
    if (err && err->code == 0) {
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return code;
}

/* (the name in parentheses: error.h makes cn_fail a macro for the static analyser) */
int (cn_fail)(cn_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cn_vfail(err, code, fmt, ap);
    va_end(ap);
    return code;
}

void cn_error_clear(cn_error *err)
{
    err->code = 0;
    err->msg[0] = '\0';
    err->device = NULL;
}

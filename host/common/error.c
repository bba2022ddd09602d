#include "common/error.h"

#include <stdio.h>
#include <string.h>

/* Writes S into BUF with its control characters escaped; a sequence is never cut. */
static void escape_into(const char *s, char *buf, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    size_t used = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char plain[2] = {*s, '\0'}, coded[5] = {'\\', 'x', hex[c >> 4], hex[c & 15], '\0'};
        const char *seq = plain;
        if (c == '\n')
            seq = "\\n";
        else if (c == '\t')
            seq = "\\t";
        else if (c == '\r')
            seq = "\\r";
        else if (c < 0x20 || c == 0x7f)
            seq = coded;
        size_t n = strlen(seq);
        if (used + n >= size)
            break;
        memcpy(buf + used, seq, n);
        used += n;
    }
    buf[used] = '\0';
}

const char *cn_escape(const char *s, char *buf, size_t size)
{
    if (size > 0)
        escape_into(s ? s : "", buf, size);
    return buf;
}

int cn_vfail(cn_error *err, int code, const char *fmt, va_list ap)
{
    if (err && err->code == 0) {
        /* Messages quote what the user wrote (values, keys, lines, paths, arguments): a
         * control character in it must not reach the terminal raw nor break the one line. */
        char raw[sizeof err->msg];
        vsnprintf(raw, sizeof raw, fmt, ap);
        err->code = code;
        escape_into(raw, err->msg, sizeof err->msg);
    }
    return code;
}

void cn_append_raw(cn_error *err, const char *text)
{
    size_t used = strlen(err->msg);
    snprintf(err->msg + used, sizeof err->msg - used, "%s", text);
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

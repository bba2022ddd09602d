/* What both fuzz targets demand of a refusal (docs/when-things-go-wrong.md): an input error
 * (status 2) of one non-empty line. A broken promise aborts, which libFuzzer reports with
 * the input. FUZZ_TARGET names the target in the message. */
#ifndef CLNETSIM_FUZZ_CHECKS_H
#define CLNETSIM_FUZZ_CHECKS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

static void broken(const char *what, const char *detail)
{
    fprintf(stderr, "%s: %s%s%s\n", FUZZ_TARGET, what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static void check_one_line_refusal(int rc, const cn_error *err)
{
    if (rc != CN_ERR_INPUT)
        broken("a refusal that is not an input error", err->msg);
    if (err->msg[0] == '\0')
        broken("a refusal without a message", NULL);
    if (strchr(err->msg, '\n'))
        broken("a message of more than one line", err->msg);
}

#endif

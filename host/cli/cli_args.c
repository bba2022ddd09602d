#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_args.h"

const char *cli_option_value(int argc, char **argv, int *i, const char *name)
{
    const char *a = argv[*i];
    size_t len = strlen(name);
    if (!strncmp(a, name, len) && a[len] == '=')
        return a + len + 1;
    if (*i + 1 < argc)
        return argv[++*i];
    return NULL;
}

int cli_is_opt(const char *a, const char *s, const char *l)
{
    size_t n = strlen(l);
    return (s && !strcmp(a, s)) || !strcmp(a, l) || (!strncmp(a, l, n) && a[n] == '=');
}

int cli_parse_int(const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!*text || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

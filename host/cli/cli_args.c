#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
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

int cli_open_devices(const char *spec, size_t work_group, int max, device_list *list,
                     device_ctx *devs, int *n_open, int known_answers, int tune, FILE *log,
                     cn_error *err)
{
    *n_open = 0;
    int rc = device_enumerate(list, err);
    if (rc)
        return rc;
    int idx[64];
    int n = device_select(list, spec, idx, max < 64 ? max : 64, err);
    if (n <= 0)
        return err->code ? err->code : cn_fail(err, CN_ERR_INPUT, "no device selected");
    for (int d = 0; d < n; d++) {
        rc = device_open(&devs[d], &list->items[idx[d]], err);
        if (rc)
            return rc;
        ++*n_open;
        devs[d].local_size_override = work_group;
        if (known_answers && (rc = device_selftest(&devs[d], err)) != 0)
            return rc;
        if (tune && (rc = tune_ensure(&devs[d], log, err)) != 0)
            return rc;
    }
    return 0;
}

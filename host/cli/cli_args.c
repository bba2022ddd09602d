#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "cli/cli_args.h"
#include "common/files.h"

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

/* Opens, self-tests and tunes device D of the selection, for each of the MODELS. */
static int open_one(device_ctx *dev, const device_entry *entry, int d, size_t work_group,
                    int known_answers, int tune, const model_ops *const *models, int n_models,
                    FILE *log, cn_error *err)
{
    int rc = device_open(dev, entry, err);
    /* after device_open, which clears the context; also for a device that failed to open,
     * which is reported by its place */
    device_fault_arm(dev, d);
    if (rc)
        return rc;
    dev->local_size_override = work_group;
    if ((known_answers & CLI_CHECK_PHILOX) && (rc = device_selftest(dev, err)) != 0)
        return rc;
    for (int m = 0; tune && m < n_models; m++)
        if ((rc = tune_ensure(dev, models[m], log, err)) != 0)
            return rc;
    /* every shape a run may choose, the tuned sizes among them, against the reference (once:
     * cached), before the device runs anything whose results count */
    for (int m = 0; (known_answers & CLI_CHECK_SHAPES) && m < n_models; m++)
        if ((rc = shapes_ensure(dev, models[m], log, stderr, err)) != 0)
            return rc;
    return 0;
}

int cli_open_devices(const char *spec, size_t work_group, int max, device_list *list,
                     device_ctx *devs, int *n_open, int known_answers, int tune,
                     const model_ops *const *models, int n_models, FILE *log, FILE *drop,
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
    int working = 0, first_rc = 0;
    for (int d = 0; d < n; d++) {
        cn_error one = {0};
        rc = open_one(&devs[d], &list->items[idx[d]], d, work_group, known_answers, tune,
                      models, n_models, log, &one);
        ++*n_open; /* closing a device that failed to open is harmless */
        if (rc == 0) {
            working++;
            continue;
        }
        if (first_rc == 0) { /* the first failure is the one reported if none is left */
            first_rc = rc;
            *err = one;
            /* ONE.device pointed into DEVS[d], which stays where it is */
        }
        if (!drop)
            return rc;
        device_mark_failed(&devs[d], one.msg);
        fprintf(drop, "clnetsim: warning: device %d '%s' failed at set-up and is left out: "
                "%s\n", d, devs[d].info.name, devs[d].failure);
    }
    if (working == 0)
        return first_rc;
    cn_error_clear(err);
    return 0;
}

int cli_check_distinct(const cli_file *files, int n, cn_error *err)
{
    file_id *ids = calloc(n > 0 ? (size_t)n : 1, sizeof *ids);
    int *known = calloc(n > 0 ? (size_t)n : 1, sizeof *known);
    int rc = ids && known ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    /* a path that cannot be identified is reported by whatever opens it */
    for (int i = 0; !rc && i < n; i++)
        known[i] = files[i].path && file_identify(files[i].path, &ids[i]) == 0;
    for (int j = 1; !rc && j < n; j++) {
        for (int i = 0; !rc && i < j; i++) {
            const cli_file *a = &files[i], *b = &files[j];
            if (!known[i] || !known[j] || (a->input && b->input) ||
                (a->group && a->group == b->group) || !file_same(&ids[i], &ids[j]))
                continue;
            const cli_file *out = b->input ? a : b, *other = b->input ? b : a;
            rc = cn_fail(err, CN_ERR_INPUT, "cannot write %s '%s': it is the same file as %s "
                         "'%s'", out->option, out->path, other->option, other->path);
        }
    }
    free(ids);
    free(known);
    return rc;
}

static int stdout_errno;

void cli_flush_stdout(void)
{
    errno = 0;
    if (fflush(stdout) != 0 && !stdout_errno)
        stdout_errno = errno ? errno : EIO;
}

int cli_stdout_errno(void)
{
    return stdout_errno;
}

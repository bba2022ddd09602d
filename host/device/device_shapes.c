/* Kernel shapes that failed the self-test on a device, and their cache. A shape is a kernel at
 * one work-group size: a compiler can get one right and another wrong (Mesa's llvmpipe ends a
 * work-item's loops after 65535 iterations, which only the work-groups of one item of whole
 * packets reach), so the verdict is kept per shape and a run moves off the bad ones instead of
 * refusing the whole device (host/bench/shapes.c runs the test). */
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "version.h"
#include "device/device_internal.h"

int device_shape_bad(const device_ctx *dev, const char *kernel, size_t size)
{
    for (int i = 0; i < dev->n_bad; i++)
        if (dev->bad[i].size == size && !strcmp(dev->bad[i].kernel, kernel))
            return 1;
    return 0;
}

int device_shape_put(device_shape **items, int *n, int *cap, const char *kernel, size_t size,
                     int by_kernel)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp((*items)[i].kernel, kernel) && (by_kernel || (*items)[i].size == size)) {
            (*items)[i].size = size;
            return 0;
        }
    if (*n == *cap) {
        int grown_cap = *cap ? 2 * *cap : 16;
        device_shape *grown = realloc(*items, (size_t)grown_cap * sizeof *grown);
        if (!grown)
            return -1;
        *items = grown;
        *cap = grown_cap;
    }
    snprintf((*items)[*n].kernel, sizeof (*items)[*n].kernel, "%s", kernel);
    (*items)[(*n)++].size = size;
    return 0;
}

/* Out of memory, a verdict or a note is lost: the self-test then tests or blames less, which
 * a run of that size fails on before long anyway. */
void device_shape_mark_bad(device_ctx *dev, const char *kernel, size_t size)
{
    (void)device_shape_put(&dev->bad, &dev->n_bad, &dev->cap_bad, kernel, size, 0);
}

void device_shape_note(device_ctx *dev, const char *kernel, size_t size)
{
    (void)device_shape_put(&dev->noted, &dev->n_noted, &dev->cap_noted, kernel, size, 0);
}

size_t device_shape_avoid(const device_ctx *dev, const char *kernel, size_t size, size_t limit)
{
    if (!device_shape_bad(dev, kernel, size))
        return size;
    for (size_t s = size / 2; s >= 1; s /= 2)
        if (!device_shape_bad(dev, kernel, s))
            return s;
    for (size_t s = size * 2; s <= limit && s <= 4096; s *= 2)
        if (!device_shape_bad(dev, kernel, s))
            return s;
    return size;
}

/* ---- the cache file ---- */

int device_shapes_path(const device_ctx *dev, const char *model, const char *sizes, char *buf,
                       size_t cap)
{
    /* What the verdicts depend on: the model (whose cases ran), the compiler (device, driver),
     * the kernels' source, the build options (the test hook's defines among them) and the
     * profile's kernel choices. Files of clnetsim before the models' own cases had no model in
     * the key, and before the choices none of them: never found, the device is tested again
     * on its first use. */
    cache_key k;
    cache_key_init(&k);
    cache_key_add_str(&k, "clnetsim kernel shapes self-test");
    cache_key_add_str(&k, model);
    cache_key_add_device(&k, dev);
    cache_key_add_str(&k, dev->profile.build_options);
    /* the profile's kernel choices build other kernels (a team of 16 is not a team of 1);
     * the test hooks that override them (CLNETSIM_TEST_TEAM) are not in the key: tests that
     * set them give each setting its own cache directory */
    for (int i = 0; i < dev->profile.n_choices; i++) {
        char choice[96];
        snprintf(choice, sizeof choice, "%s=%ld", dev->profile.choices[i].key,
                 dev->profile.choices[i].value);
        cache_key_add_str(&k, choice);
    }
    char mask[32];
    snprintf(mask, sizeof mask, "%u", dev->fault.break_mask);
    cache_key_add_str(&k, mask);
    cache_key_add_str(&k, sizes);
    return cache_ini_path(&k, "shapes", buf, cap);
}

typedef struct shapes_reader {
    device_ctx *dev;
    const char *model;
    char *refused;
    size_t cap;
    int tested; /* the [selftest] section says the test ran to its end */
    int model_ok; /* and for this model */
} shapes_reader;

/* [selftest] done = 1, model = NAME, refused = TEXT; [bad] KERNEL = SIZE SIZE ... */
static int on_shapes_entry(void *user, const char *section, const char *name, const char *value)
{
    shapes_reader *r = user;
    if (!strcmp(section, "selftest")) {
        if (!strcmp(name, "done"))
            r->tested = !strcmp(value, "1");
        else if (!strcmp(name, "model"))
            r->model_ok = !strcmp(value, r->model);
        else if (!strcmp(name, "refused"))
            snprintf(r->refused, r->cap, "%s", value);
        return 1;
    }
    if (strcmp(section, "bad") || strlen(name) >= sizeof r->dev->bad[0].kernel)
        return 0;
    const char *p = value;
    while (*p) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || v == 0 || v > 4096 || (v & (v - 1)))
            return 0;
        device_shape_mark_bad(r->dev, name, v);
        p = end;
        while (*p == ' ')
            p++;
    }
    return 1;
}

int device_shapes_load(device_ctx *dev, const char *model, const char *sizes, char *refused,
                       size_t cap)
{
    char path[4300];
    refused[0] = '\0';
    if (!device_shapes_path(dev, model, sizes, path, sizeof path))
        return -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    shapes_reader r = {dev, model, refused, cap, 0, 0};
    int saved = dev->n_bad;
    int rc = ini_parse_file(f, on_shapes_entry, &r);
    fclose(f);
    /* damaged, cut short or another model's: tested again, and rewritten */
    if (rc != 0 || !r.tested || !r.model_ok) {
        dev->n_bad = saved;
        refused[0] = '\0';
        return -1;
    }
    return 0;
}

int device_shapes_store(const device_ctx *dev, const char *model, int from, const char *sizes,
                        const char *refused)
{
    char path[4300], tmp[4400];
    if (!device_shapes_path(dev, model, sizes, path, sizeof path))
        return 0;
    FILE *f = cache_file_begin(path, tmp, sizeof tmp);
    if (!f)
        return -1;
    fprintf(f, "; kernel shapes of the %s model self-tested by clnetsim %s on %s (%s, driver %s)\n",
            model, CLNETSIM_VERSION, dev->info.name, dev->info.platform_name, dev->info.driver);
    fprintf(f, "[selftest]\ndone = 1\nmodel = %s\n; work-group sizes tested: %s\n", model,
            sizes);
    if (refused && *refused)
        fprintf(f, "refused = %s\n", refused);
    fprintf(f, "; shapes that differed from the sequential reference: never used here\n[bad]\n");
    for (int i = from < 0 ? 0 : from; i < dev->n_bad; i++) {
        int first = 1;
        for (int j = from < 0 ? 0 : from; j < i && first; j++)
            first = strcmp(dev->bad[j].kernel, dev->bad[i].kernel) != 0;
        if (!first)
            continue;
        fprintf(f, "%s =", dev->bad[i].kernel);
        for (int j = i; j < dev->n_bad; j++)
            if (!strcmp(dev->bad[j].kernel, dev->bad[i].kernel))
                fprintf(f, " %zu", dev->bad[j].size);
        fprintf(f, "\n");
    }
    return cache_file_commit(f, tmp, path);
}

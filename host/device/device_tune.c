/* The tuning cache (work-group sizes measured on this device) and the per-kernel launch timer
 * the tuner measures with. */
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "version.h"
#include "device/device_internal.h"

/* ---- the cache file ---- */

int device_tune_path(const device_ctx *dev, char *buf, size_t cap)
{
    /* What the best sizes depend on: the device and its driver, and the kernels' source (any
     * change of a kernel measures again). */
    cache_key k;
    cache_key_init(&k);
    cache_key_add_str(&k, "clnetsim work-group tuning");
    cache_key_add_device(&k, dev);
    return cache_ini_path(&k, "tune", buf, cap);
}

/* [work_group] KERNEL = SIZE; [tuned] models = NAME NAME ... */
static int on_tune_entry(void *user, const char *section, const char *name, const char *value)
{
    device_ctx *dev = user;
    if (!strcmp(section, "tuned") && !strcmp(name, "models")) {
        snprintf(dev->tuned_models, sizeof dev->tuned_models, "%s", value);
        return 1;
    }
    if (strcmp(section, "work_group"))
        return 0;
    char *end;
    unsigned long v = strtoul(value, &end, 10);
    if (*end || v == 0 || v > 4096 || (v & (v - 1)) || strlen(name) >= sizeof dev->tuned[0].kernel)
        return 0;
    return device_shape_put(&dev->tuned, &dev->n_tuned, &dev->cap_tuned, name, v, 1) == 0;
}

int device_tune_load(device_ctx *dev)
{
    char path[4300];
    dev->n_tuned = 0;
    dev->tuned_models[0] = '\0';
    if (!device_tune_path(dev, path, sizeof path))
        return -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int rc = ini_parse_file(f, on_tune_entry, dev);
    fclose(f);
    if (rc != 0) {
        dev->n_tuned = 0; /* damaged: measured again, and rewritten */
        dev->tuned_models[0] = '\0';
        return -1;
    }
    return 0;
}

int device_tune_store(const device_ctx *dev, const char *note)
{
    char path[4300], tmp[4400];
    if (!device_tune_path(dev, path, sizeof path))
        return 0;
    FILE *f = cache_file_begin(path, tmp, sizeof tmp);
    if (!f)
        return -1;
    fprintf(f, "; work-group sizes measured by clnetsim %s on %s (%s, driver %s)\n",
            CLNETSIM_VERSION, dev->info.name, dev->info.platform_name, dev->info.driver);
    if (note && *note)
        fprintf(f, "; %s\n", note);
    /* the models whose kernels were measured: another model's first use measures its own */
    if (dev->tuned_models[0])
        fprintf(f, "[tuned]\nmodels = %s\n", dev->tuned_models);
    fprintf(f, "[work_group]\n");
    for (int i = 0; i < dev->n_tuned; i++)
        fprintf(f, "%s = %zu\n", dev->tuned[i].kernel, dev->tuned[i].size);
    return cache_file_commit(f, tmp, path);
}

/* ---- the launch timer ---- */

#define TIMER_PENDING 1024

struct device_kernel_timer {
    int n_kernels, cap_kernels; /* grows with the kernels launched */
    struct timed_kernel { char name[64]; double seconds; long launches; } *kernels;
    int n_pending;
    struct { int kernel; cl_event ev; } pending[TIMER_PENDING];
};

int device_kernel_timer_start(device_ctx *dev, cn_error *err)
{
    if (dev->timer)
        return 0;
    dev->timer = calloc(1, sizeof *dev->timer);
    return dev->timer ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of memory");
}

/* Waits for every pending launch and adds its time to its kernel. */
static void timer_drain(struct device_kernel_timer *t)
{
    for (int i = 0; i < t->n_pending; i++) {
        cl_event ev = t->pending[i].ev;
        if (clWaitForEvents(1, &ev) == CL_SUCCESS) {
            t->kernels[t->pending[i].kernel].seconds += device_event_seconds(ev);
            t->kernels[t->pending[i].kernel].launches++;
        }
        clReleaseEvent(ev);
    }
    t->n_pending = 0;
}

void device_kernel_timer_add(device_ctx *dev, const char *kernel, cl_event ev)
{
    struct device_kernel_timer *t = dev->timer;
    if (!t || !ev)
        return;
    int k = 0;
    while (k < t->n_kernels && strcmp(t->kernels[k].name, kernel))
        k++;
    if (k == t->n_kernels) {
        if (k == t->cap_kernels) {
            int cap = t->cap_kernels ? 2 * t->cap_kernels : 16;
            struct timed_kernel *grown = realloc(t->kernels, (size_t)cap * sizeof *grown);
            if (!grown)
                return; /* a measurement only: out of memory, the launch goes untimed */
            t->kernels = grown;
            t->cap_kernels = cap;
        }
        t->n_kernels++;
        snprintf(t->kernels[k].name, sizeof t->kernels[k].name, "%s", kernel);
        t->kernels[k].seconds = 0;
        t->kernels[k].launches = 0;
    }
    if (t->n_pending == TIMER_PENDING)
        timer_drain(t);
    if (clRetainEvent(ev) != CL_SUCCESS)
        return;
    t->pending[t->n_pending].kernel = k;
    t->pending[t->n_pending++].ev = ev;
}

double device_kernel_timer_seconds(device_ctx *dev, const char *kernel)
{
    struct device_kernel_timer *t = dev->timer;
    if (!t)
        return 0;
    timer_drain(t);
    for (int k = 0; k < t->n_kernels; k++)
        if (!strcmp(t->kernels[k].name, kernel))
            return t->kernels[k].launches ? t->kernels[k].seconds : -1;
    return -1;
}

void device_kernel_timer_reset(device_ctx *dev)
{
    struct device_kernel_timer *t = dev->timer;
    if (!t)
        return;
    timer_drain(t);
    for (int k = 0; k < t->n_kernels; k++) {
        t->kernels[k].seconds = 0;
        t->kernels[k].launches = 0;
    }
}

static int by_seconds(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

void device_kernel_timer_print(device_ctx *dev, FILE *out)
{
    struct device_kernel_timer *t = dev->timer;
    if (!t)
        return;
    timer_drain(t);
    /* (seconds, index) pairs sorted by time, most first */
    double (*order)[2] = calloc((size_t)t->n_kernels + 1, sizeof *order);
    if (!order)
        return;
    double total = 0;
    long launches = 0;
    for (int k = 0; k < t->n_kernels; k++) {
        order[k][0] = t->kernels[k].seconds;
        order[k][1] = k;
        total += t->kernels[k].seconds;
        launches += t->kernels[k].launches;
    }
    qsort(order, (size_t)t->n_kernels, sizeof order[0], by_seconds);
    fprintf(out, "kernel times on %s: %.6f s in %ld launches\n", dev->info.name, total,
            launches);
    for (int i = 0; i < t->n_kernels; i++) {
        int k = (int)order[i][1];
        fprintf(out, "  %-24s %10ld launches %12.6f s %6.1f%%\n", t->kernels[k].name,
                t->kernels[k].launches, t->kernels[k].seconds,
                total > 0 ? 100.0 * t->kernels[k].seconds / total : 0.0);
    }
    free(order);
}

void device_kernel_timer_stop(device_ctx *dev)
{
    if (!dev->timer)
        return;
    timer_drain(dev->timer);
    free(dev->timer->kernels);
    free(dev->timer);
    dev->timer = NULL;
}

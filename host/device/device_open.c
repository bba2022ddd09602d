/* Opening a device (context, queue, profile), work-group sizes, kernels and event timings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_internal.h"

int device_open(device_ctx *dev, const device_entry *entry, cn_error *err)
{
    memset(dev, 0, sizeof *dev);
    dev->info = *entry;
    if (!entry->usable)
        return cn_fail(err, CN_ERR_RUNTIME, "device '%s' cannot be used: %s", entry->name,
                       entry->reason);
    if (platform_profile_load(entry, &dev->profile, err))
        return CN_ERR_RUNTIME;

    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)entry->platform,
                                     0};
    cl_int st = CL_SUCCESS;
    dev->context = clCreateContext(props, 1, &entry->id, NULL, NULL, &st);
    if (cl_check(st, "clCreateContext", entry->name, err))
        goto fail;
    /* In order: dependent event sets keep their order without explicit waits. Profiling: the
     * injector's feedback table is fed with device-side times, not host guesses. */
    dev->queue = clCreateCommandQueue(dev->context, entry->id, CL_QUEUE_PROFILING_ENABLE, &st);
    if (cl_check(st, "clCreateCommandQueue", entry->name, err))
        goto fail;
    return 0;
fail:
    device_close(dev);
    return CN_ERR_RUNTIME;
}

void device_close(device_ctx *dev)
{
    device_kernel_timer_stop(dev);
    device_kernels_forget(dev);
    platform_profile_free(&dev->profile);
    free(dev->local_used);
    free(dev->tuned);
    free(dev->bad);
    free(dev->noted);
    dev->local_used = dev->tuned = dev->bad = dev->noted = NULL;
    dev->n_local_used = dev->n_tuned = dev->n_bad = dev->n_noted = 0;
    dev->cap_local_used = dev->cap_tuned = dev->cap_bad = dev->cap_noted = 0;
    /* Finish first, so that buffers released by the caller afterwards are not in use; errors
     * are ignored because closing happens on error paths too. */
    if (dev->queue) {
        (void)clFinish(dev->queue);
        (void)clReleaseCommandQueue(dev->queue);
    }
    if (dev->context)
        (void)clReleaseContext(dev->context);
    dev->queue = NULL;
    dev->context = NULL;
}

void device_mark_failed(device_ctx *dev, const char *msg)
{
    dev->failed = 1;
    /* the report keeps one line: a build failure goes on with its build log */
    size_t n = strcspn(msg, "\n");
    if (n >= sizeof dev->failure)
        n = sizeof dev->failure - 1;
    memcpy(dev->failure, msg, n);
    dev->failure[n] = '\0';
}

static size_t round_down_pow2(size_t n)
{
    size_t p = 1;
    while (p <= n / 2)
        p *= 2;
    return p;
}

static size_t device_local_size_for(const device_ctx *dev, const char *kernel,
                                    cl_kernel kernel_obj, int avoid);

static void record_local_size(device_ctx *dev, const char *kernel, size_t size)
{
    /* a report only: out of memory, the kernel is left out of it */
    (void)device_shape_put(&dev->local_used, &dev->n_local_used, &dev->cap_local_used, kernel,
                           size, 1);
}

static int by_kernel_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void device_local_sizes_text(const device_ctx *dev, char *buf, size_t cap)
{
    size_t used = 0;
    if (cap)
        buf[0] = '\0';
    const char **names = calloc((size_t)dev->n_local_used + 1, sizeof *names);
    if (!names)
        return;
    for (int i = 0; i < dev->n_local_used; i++)
        names[i] = dev->local_used[i].kernel;
    qsort(names, (size_t)dev->n_local_used, sizeof names[0], by_kernel_name);
    for (int i = 0; i < dev->n_local_used; i++) {
        size_t size = 0;
        for (int j = 0; j < dev->n_local_used; j++)
            if (!strcmp(dev->local_used[j].kernel, names[i]))
                size = dev->local_used[j].size;
        int w = snprintf(buf + used, cap - used, "%s%s=%zu", i ? " " : "", names[i], size);
        if (w < 0 || (size_t)w >= cap - used)
            break; /* truncated at the buffer's end */
        used += (size_t)w;
    }
    free(names);
}

/* The size for KERNEL: the profile's, tuned or --work-group's (device_local_size_for), cut to
 * CAP (0: none), then halved until the kernel's own local memory and its __local arguments
 * (LOCAL_ARGS, NULL: none) fit the device; with AVOID, moved off a size that failed the
 * kernel-shape self-test (to a smaller good one: it fits too) and noted as a shape the run
 * launches. Recorded for reports. */
static size_t choose_local_size(device_ctx *dev, const char *kernel, cl_kernel kernel_obj,
                                size_t cap, local_args_fn local_args, const void *user,
                                int avoid)
{
    size_t chosen = device_local_size_for(dev, kernel, kernel_obj, avoid);
    if (!dev->local_size_override && cap >= 1 && chosen > cap)
        chosen = round_down_pow2(cap);
    /* Local memory grows with the size for most kernels here (per-item reduction areas): a
     * size whose total does not fit would fail at launch (CL_OUT_OF_RESOURCES) */
    cl_ulong own = kernel_obj ? device_kernel_local_own(dev, kernel_obj) : 0;
    cl_ulong limit = device_local_limit(dev);
    size_t fitted = chosen;
    while (fitted > 1 && own + (local_args ? local_args(fitted, user) : 0) > limit)
        fitted /= 2;
    if (avoid && kernel && fitted != chosen)
        fitted = device_shape_avoid(dev, kernel, fitted, fitted);
    record_local_size(dev, kernel, fitted);
    if (avoid && kernel)
        device_shape_note(dev, kernel, fitted);
    return fitted;
}

size_t device_local_size(device_ctx *dev, const char *kernel, cl_kernel kernel_obj)
{
    return choose_local_size(dev, kernel, kernel_obj, 0, NULL, NULL, 1);
}

size_t device_local_size_capped(device_ctx *dev, const char *kernel, cl_kernel kernel_obj,
                                size_t cap)
{
    return choose_local_size(dev, kernel, kernel_obj, cap, NULL, NULL, 0);
}

size_t device_local_size_fit(device_ctx *dev, const char *kernel, cl_kernel kernel_obj,
                             size_t cap, local_args_fn local_args, const void *user)
{
    return choose_local_size(dev, kernel, kernel_obj, cap, local_args, user, 1);
}

size_t device_local_size_variants(device_ctx *dev, const char *kernel, cl_kernel kernel_obj,
                                  size_t cap, local_args_fn local_args, const void *user)
{
    return choose_local_size(dev, kernel, kernel_obj, cap, local_args, user, 0);
}

size_t device_local_size_natural(const device_ctx *dev, const char *kernel)
{
    return device_local_size_for(dev, kernel, NULL, 0);
}

/* The choice itself, without the record; AVOID: moved off a size that failed the self-test
 * (the callers that pick among variants of a kernel do that themselves). */
static size_t device_local_size_for(const device_ctx *dev, const char *kernel,
                                    cl_kernel kernel_obj, int avoid)
{
    size_t size = dev->local_size_override;
    if (!size)
        size = platform_profile_entry(&dev->profile, kernel);
    for (int i = 0; !size && kernel && i < dev->n_tuned; i++)
        if (!strcmp(dev->tuned[i].kernel, kernel))
            size = dev->tuned[i].size;
    if (!size)
        size = platform_profile_local_size(&dev->profile, kernel);
    size_t limit = dev->info.max_work_group > 0 ? dev->info.max_work_group : 4096;
    /* The first dimension may have a lower limit than the whole group (CPUs report e.g. 8192
     * and 4096); kernels here are one-dimensional. */
    size_t item_sizes[3] = {0, 0, 0};
    if (dev->info.id &&
        clGetDeviceInfo(dev->info.id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof item_sizes, item_sizes,
                        NULL) == CL_SUCCESS &&
        item_sizes[0] > 0 && limit > item_sizes[0])
        limit = item_sizes[0];
    /* A kernel using many registers or much local memory allows less than the device. */
    size_t kernel_max = 0;
    if (kernel_obj && dev->info.id &&
        clGetKernelWorkGroupInfo(kernel_obj, dev->info.id, CL_KERNEL_WORK_GROUP_SIZE,
                                 sizeof kernel_max, &kernel_max, NULL) == CL_SUCCESS &&
        kernel_max > 0 && limit > kernel_max)
        limit = kernel_max;
    if (size > limit)
        size = limit;
    /* Powers of two keep the scan kernels' tree reductions simple and fit every warp and
     * wavefront width. */
    size = size >= 1 ? round_down_pow2(size) : 1;
    return avoid && kernel ? device_shape_avoid(dev, kernel, size, limit) : size;
}

int device_create_kernel(device_ctx *dev, cl_program program, const char *name, cl_kernel *out,
                         cn_error *err)
{
    cl_int st = CL_SUCCESS;
    char what[128], c_name[64];
    /* a key names its kernel by family: the program knows it by its C name */
    if (!strchr(name, '.') || device_kernel_c_name(name, c_name, sizeof c_name))
        snprintf(c_name, sizeof c_name, "%s", name);
    *out = clCreateKernel(program, c_name, &st);
    snprintf(what, sizeof what, "clCreateKernel(%s)", name);
    if (cl_check(st, what, dev->info.name, err)) {
        *out = NULL;
        return CN_ERR_RUNTIME;
    }
    if (device_kernel_register(dev, *out, err)) {
        clReleaseKernel(*out);
        *out = NULL;
        return CN_ERR_RUNTIME;
    }
    return 0;
}

double device_event_seconds(cl_event ev)
{
    cl_ulong start = 0, end = 0;
    if (!ev ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) !=
            CL_SUCCESS ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) !=
            CL_SUCCESS ||
        end < start)
        return 0.0;
    return (double)(end - start) * 1e-9;
}

static cl_ulong bytes_per_item(size_t size, const void *user)
{
    return (cl_ulong)size * *(const size_t *)user;
}

size_t device_reduce_size(device_ctx *dev, const char *kernel, cl_kernel kernel_obj,
                          size_t item_bytes)
{
    size_t fit = device_local_size_fit(dev, kernel, kernel_obj, 0, bytes_per_item, &item_bytes);
    size_t p = 1;
    while (p * 2 <= fit)
        p *= 2;
    return p;
}

/* What a kernel needs of its device beyond global memory, and whether a launch fits: the
 * work-group limit of the kernel (CL_KERNEL_WORK_GROUP_SIZE, which an implementation lowers
 * for a kernel that needs many registers or much private memory) and of the device, and local
 * memory: the kernel's own (CL_KERNEL_LOCAL_MEM_SIZE, asked before any __local argument is
 * set, so that it counts the kernel's __local variables and what the implementation needs)
 * plus the __local arguments the host passes. OpenCL reports no private-memory limit of a
 * device: private memory enters through CL_KERNEL_WORK_GROUP_SIZE.
 * A launch that would not fit fails here with one sentence naming the kernel, the device and
 * the limit, instead of a bare CL_OUT_OF_RESOURCES (or worse) from the driver. */
#include <stdlib.h>
#include <string.h>

#include "device/device_internal.h"

struct device_kernel_need {
    cl_kernel kernel;
    cl_ulong local_own;  /* CL_KERNEL_LOCAL_MEM_SIZE before any __local argument */
    size_t max_group;    /* CL_KERNEL_WORK_GROUP_SIZE; 0 when the driver did not say */
    int n_args;
    struct { cl_uint index; size_t bytes; } args[DEVICE_MAX_LOCAL_ARGS];
};

/* DEV's record of KERNEL, or NULL. */
static struct device_kernel_need *need_of(const device_ctx *dev, cl_kernel kernel)
{
    for (int i = 0; i < dev->n_needs; i++)
        if (dev->needs[i].kernel == kernel)
            return &dev->needs[i];
    return NULL;
}

/* The kernel's own local memory and work-group limit, asked once. */
static void query_need(const device_ctx *dev, cl_kernel kernel, cl_ulong *local, size_t *group)
{
    *local = 0;
    *group = 0;
    if (!dev->info.id || !kernel)
        return;
    if (clGetKernelWorkGroupInfo(kernel, dev->info.id, CL_KERNEL_LOCAL_MEM_SIZE, sizeof *local,
                                 local, NULL) != CL_SUCCESS)
        *local = 0;
    if (clGetKernelWorkGroupInfo(kernel, dev->info.id, CL_KERNEL_WORK_GROUP_SIZE, sizeof *group,
                                 group, NULL) != CL_SUCCESS)
        *group = 0;
}

int device_kernel_register(device_ctx *dev, cl_kernel kernel, cn_error *err)
{
    /* a handle the driver gives again after a release is a new kernel: its record restarts */
    struct device_kernel_need *n = need_of(dev, kernel);
    if (!n) {
        if (dev->n_needs == dev->cap_needs) {
            int cap = dev->cap_needs ? 2 * dev->cap_needs : 32;
            struct device_kernel_need *grown = realloc(dev->needs, (size_t)cap * sizeof *grown);
            if (!grown)
                return cn_fail(err, CN_ERR_RUNTIME, "out of memory");
            dev->needs = grown;
            dev->cap_needs = cap;
        }
        n = &dev->needs[dev->n_needs++];
    }
    memset(n, 0, sizeof *n);
    n->kernel = kernel;
    query_need(dev, kernel, &n->local_own, &n->max_group);
    return 0;
}

void device_kernel_local_arg(device_ctx *dev, cl_kernel kernel, cl_uint index, size_t bytes)
{
    struct device_kernel_need *n = need_of(dev, kernel);
    if (!n)
        return;
    int i = 0;
    while (i < n->n_args && n->args[i].index != index)
        i++;
    if (i == n->n_args) {
        if (i == DEVICE_MAX_LOCAL_ARGS)
            return; /* (no kernel of cl/ has that many) */
        n->n_args++;
        n->args[i].index = index;
    }
    n->args[i].bytes = bytes;
}

void device_kernels_forget(device_ctx *dev)
{
    free(dev->needs);
    dev->needs = NULL;
    dev->n_needs = dev->cap_needs = 0;
}

cl_ulong device_local_limit(const device_ctx *dev)
{
    return dev->info.local_mem;
}

cl_ulong device_kernel_local_own(const device_ctx *dev, cl_kernel kernel)
{
    const struct device_kernel_need *n = need_of(dev, kernel);
    cl_ulong local = 0;
    size_t group = 0;
    if (n)
        return n->local_own;
    query_need(dev, kernel, &local, &group);
    return local;
}

int device_launch_fits(device_ctx *dev, cl_kernel kernel, const char *name, size_t local,
                       cn_error *err)
{
    const struct device_kernel_need *n = need_of(dev, kernel);
    if (!n)
        return 0; /* not made by device_create_kernel: nothing known to check */
    if (dev->info.max_work_group > 0 && local > dev->info.max_work_group)
        return device_fail(err, dev->info.name, CN_ERR_RUNTIME,
                           "kernel %s cannot run on device '%s' with work-groups of %zu: the "
                           "device allows at most %zu (CL_DEVICE_MAX_WORK_GROUP_SIZE)",
                           name, dev->info.name, local, dev->info.max_work_group);
    if (n->max_group > 0 && local > n->max_group)
        return device_fail(err, dev->info.name, CN_ERR_RUNTIME,
                           "kernel %s cannot run on device '%s' with work-groups of %zu: it "
                           "allows at most %zu there (CL_KERNEL_WORK_GROUP_SIZE)",
                           name, dev->info.name, local, n->max_group);
    cl_ulong need = n->local_own;
    for (int i = 0; i < n->n_args; i++)
        need += n->args[i].bytes;
    cl_ulong have = device_local_limit(dev);
    if (need > have)
        return device_fail(err, dev->info.name, CN_ERR_RUNTIME,
                           "kernel %s needs %llu bytes of local memory with work-groups of "
                           "%zu, more than the %llu of device '%s' (CL_DEVICE_LOCAL_MEM_SIZE)",
                           name, (unsigned long long)need, local, (unsigned long long)have,
                           dev->info.name);
    return 0;
}

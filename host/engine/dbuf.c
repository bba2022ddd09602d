#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/dbuf.h"

int dbuf_alloc(device_ctx *dev, dbuf *b, size_t bytes, dbuf_account *acc, const char *what,
               cn_error *err)
{
    cl_int st;
    if (bytes == 0)
        bytes = 4;
    if ((cl_ulong)bytes > dev->info.max_alloc)
        return device_fail(err, dev->info.name, CN_ERR_RUNTIME,
                           "the %s buffer needs %zu bytes but device '%s' allows at most %llu "
                           "in one allocation; use a smaller scenario or a device with more "
                           "memory",
                           what, bytes, dev->info.name, (unsigned long long)dev->info.max_alloc);
    /* CLNETSIM_TEST_FAIL=alloc@D:N: this allocation fails as on a device out of memory */
    if (device_fault_alloc(dev)) {
        b->mem = NULL;
        st = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    } else {
        b->mem = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, bytes, NULL, &st);
    }
    if (st != CL_SUCCESS) {
        char what_call[128];
        snprintf(what_call, sizeof what_call, "clCreateBuffer(%s, %zu bytes)", what, bytes);
        return cl_check(st, what_call, dev->info.name, err);
    }
    b->bytes = bytes;
    if (acc) {
        acc->current += bytes;
        if (acc->current > acc->peak)
            acc->peak = acc->current;
    }
    return 0;
}

void dbuf_release(dbuf *b, dbuf_account *acc)
{
    if (b->mem) {
        clReleaseMemObject(b->mem);
        if (acc)
            acc->current -= b->bytes;
    }
    b->mem = NULL;
    b->bytes = 0;
}

int dbuf_grow(device_ctx *dev, dbuf *b, size_t new_bytes, size_t keep, dbuf_account *acc,
              const char *what, cn_error *err)
{
    dbuf nb = {0};
    int rc = dbuf_alloc(dev, &nb, new_bytes, acc, what, err);
    if (rc)
        return rc;
    if (keep > 0 && b->mem) {
        cl_int st = clEnqueueCopyBuffer(dev->queue, b->mem, nb.mem, 0, 0, keep, 0, NULL, NULL);
        if (st != CL_SUCCESS) {
            dbuf_release(&nb, acc);
            return cl_check(st, "clEnqueueCopyBuffer", dev->info.name, err);
        }
    }
    dbuf_release(b, acc);
    *b = nb;
    return 0;
}

int dbuf_zero(device_ctx *dev, dbuf *b, size_t offset, size_t bytes, cn_error *err)
{
    if (bytes == 0)
        return 0;
    cl_uint zero = 0;
    cl_int st = device_fault_transfer(dev); /* CLNETSIM_TEST_FAIL=lost@D:W */
    if (st == CL_SUCCESS)
        st = clEnqueueFillBuffer(dev->queue, b->mem, &zero, sizeof zero, offset, bytes, 0, NULL,
                                 NULL);
    return cl_check(st, "clEnqueueFillBuffer", dev->info.name, err);
}

int dbuf_write(device_ctx *dev, dbuf *b, size_t offset, size_t bytes, const void *src,
               int blocking, cn_error *err)
{
    if (bytes == 0)
        return 0;
    cl_int st = device_fault_transfer(dev);
    if (st == CL_SUCCESS)
        st = clEnqueueWriteBuffer(dev->queue, b->mem, blocking ? CL_TRUE : CL_FALSE, offset,
                                  bytes, src, 0, NULL, NULL);
    return cl_check(st, "clEnqueueWriteBuffer", dev->info.name, err);
}

int dbuf_read(device_ctx *dev, dbuf *b, size_t offset, size_t bytes, void *dst, int blocking,
              cn_error *err)
{
    return dbuf_read_event(dev, b, offset, bytes, dst, blocking, NULL, err);
}

int dbuf_read_event(device_ctx *dev, dbuf *b, size_t offset, size_t bytes, void *dst,
                    int blocking, cl_event *ev, cn_error *err)
{
    if (ev)
        *ev = NULL;
    if (bytes == 0)
        return 0;
    cl_int st = device_fault_transfer(dev);
    if (st == CL_SUCCESS)
        st = clEnqueueReadBuffer(dev->queue, b->mem, blocking ? CL_TRUE : CL_FALSE, offset,
                                 bytes, dst, 0, NULL, ev);
    return cl_check(st, "clEnqueueReadBuffer", dev->info.name, err);
}

/* Returns 1 when argument I already holds (SIZE, VALUE); otherwise records them. */
static int cache_hit(karg_cache *c, int i, size_t size, const void *value)
{
    if (!c || i >= KARG_CACHE_MAX || size > sizeof c->value[0])
        return 0;
    unsigned char v[sizeof c->value[0]] = {0};
    if (value)
        memcpy(v, value, size);
    if (c->set[i] && c->size[i] == size && memcmp(c->value[i], v, sizeof v) == 0)
        return 1;
    c->set[i] = 1;
    c->size[i] = size;
    memcpy(c->value[i], v, sizeof v);
    return 0;
}

static int kernel_args_v(device_ctx *dev, cl_kernel k, karg_cache *cache,
                         const char *kernel_name, cn_error *err, int first, int n,
                         va_list *ap)
{
    int rc = 0;
    for (int i = first; i < first + n && rc == 0; i++) {
        size_t size = va_arg(*ap, size_t);
        const void *ptr = va_arg(*ap, const void *);
        if (size == 0) { /* a buffer */
            size = sizeof(cl_mem);
            ptr = &((const dbuf *)ptr)->mem;
        } else if (!ptr) { /* a __local area: the launch check counts it */
            device_kernel_local_arg(dev, k, (cl_uint)i, size);
        }
        if (cache_hit(cache, i, size, ptr))
            continue;
        cl_int st = clSetKernelArg(k, (cl_uint)i, size, ptr);
        if (st != CL_SUCCESS) {
            if (cache && i < KARG_CACHE_MAX)
                cache->set[i] = 0;
            char what[128];
            snprintf(what, sizeof what, "clSetKernelArg(%s, argument %d)", kernel_name, i);
            rc = cl_check(st, what, dev->info.name, err);
        }
    }
    return rc;
}

int kernel_args_cached(device_ctx *dev, cl_kernel k, karg_cache *cache, const char *kernel_name,
                       cn_error *err, int first, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    int rc = kernel_args_v(dev, k, cache, kernel_name, err, first, n, &ap);
    va_end(ap);
    return rc;
}

int kernel_args(device_ctx *dev, cl_kernel k, const char *kernel_name, cn_error *err, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    int rc = kernel_args_v(dev, k, NULL, kernel_name, err, 0, n, &ap);
    va_end(ap);
    return rc;
}

int kernel_args_from(device_ctx *dev, cl_kernel k, const char *kernel_name, cn_error *err,
                     int first, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    int rc = kernel_args_v(dev, k, NULL, kernel_name, err, first, n, &ap);
    va_end(ap);
    return rc;
}

int enqueue_1d(device_ctx *dev, cl_kernel k, const char *kernel_name, size_t n, size_t local,
               cl_event *ev, cn_error *err)
{
    return enqueue_1d_from(dev, k, kernel_name, 0, n, local, ev, err);
}

int enqueue_1d_from(device_ctx *dev, cl_kernel k, const char *kernel_name, size_t first,
                    size_t n, size_t local, cl_event *ev, cn_error *err)
{
    if (ev)
        *ev = NULL;
    if (n == 0)
        return 0;
    if (local == 0)
        local = 1;
    size_t global = (n + local - 1) / local * local;
    size_t offset[1] = {first};
    /* The tuner times every launch: an event of its own where the caller wants none. */
    cl_event own = NULL;
    cl_event *use = ev ? ev : dev->timer ? &own : NULL;
    /* CLNETSIM_TEST_FAIL=enqueue@D:W, lost@D:W: the launch fails as on a device out of
     * resources, or gone */
    int rc = device_launch_fits(dev, k, kernel_name, local, err);
    if (rc)
        return rc;
    cl_int st = device_fault_launch(dev);
    if (st == CL_SUCCESS)
        st = clEnqueueNDRangeKernel(dev->queue, k, 1, first ? offset : NULL, &global, &local, 0,
                                    NULL, use);
    if (st != CL_SUCCESS) {
        char what[128];
        snprintf(what, sizeof what, "clEnqueueNDRangeKernel(%s, %zu work-items)", kernel_name,
                 global);
        return cl_check(st, what, dev->info.name, err);
    }
    if (dev->timer && use)
        device_kernel_timer_add(dev, kernel_name, *use);
    if (own)
        clReleaseEvent(own);
    return 0;
}

void *host_area_alloc(device_ctx *dev, size_t bytes, cl_mem *mem)
{
    cl_int st;
    void *map = NULL;
    *mem = clCreateBuffer(dev->context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, NULL,
                          &st);
    if (st == CL_SUCCESS) {
        map = clEnqueueMapBuffer(dev->queue, *mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                 0, NULL, NULL, &st);
        if (st != CL_SUCCESS)
            map = NULL, clReleaseMemObject(*mem);
    }
    if (map)
        return map;
    *mem = NULL;
    return malloc(bytes ? bytes : 1);
}

void host_area_free(device_ctx *dev, cl_mem mem, void *area)
{
    if (!mem) {
        free(area);
        return;
    }
    if (area && clEnqueueUnmapMemObject(dev->queue, mem, area, 0, NULL, NULL) == CL_SUCCESS)
        clFinish(dev->queue);
    clReleaseMemObject(mem);
}

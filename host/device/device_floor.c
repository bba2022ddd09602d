/* The empty window's cost on a device (cl/core/floor.cl): what a window of any model costs at
 * least, launched and read back as the models do it (a kernel with an event, then a
 * non-blocking read-back waited for). Windows whose own work is short run at this floor, so
 * `bench` reports it beside each device's time per window. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device/device_internal.h"

#define FLOOR_WARMUP 20
#define FLOOR_WINDOWS 201

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_us(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2] * 1e6;
}

/* One empty window with VALUE: its launch's host time in *LAUNCH_S, the whole window's in
 * *WINDOW_S; the word read back must be VALUE. */
static int one_window(device_ctx *dev, cl_kernel k, cl_mem word, cl_uint value,
                      double *launch_s, double *window_s, cn_error *err)
{
    size_t one = 1;
    cl_uint got = ~value;
    cl_event run = NULL, read = NULL;
    double t0 = now_s();
    int rc = cl_check(clSetKernelArg(k, 1, sizeof value, &value),
                      "clSetKernelArg(core.window_floor, 1)", dev->info.name, err);
    if (!rc)
        rc = cl_check(clEnqueueNDRangeKernel(dev->queue, k, 1, NULL, &one, &one, 0, NULL, &run),
                      "clEnqueueNDRangeKernel(core.window_floor)", dev->info.name, err);
    double t1 = now_s();
    if (!rc)
        rc = cl_check(clEnqueueReadBuffer(dev->queue, word, CL_FALSE, 0, sizeof got, &got, 0,
                                          NULL, &read),
                      "clEnqueueReadBuffer(core.window_floor)", dev->info.name, err);
    if (!rc)
        rc = cl_check(clWaitForEvents(1, &read), "clWaitForEvents(core.window_floor)",
                      dev->info.name, err);
    double t2 = now_s();
    if (run)
        clReleaseEvent(run);
    if (read)
        clReleaseEvent(read);
    if (!rc && got != value)
        return cn_fail(err, CN_ERR_RUNTIME, "device '%s' read back %u from the empty window, "
                       "expected %u", dev->info.name, got, value);
    *launch_s = t1 - t0;
    *window_s = t2 - t0;
    return rc;
}

int device_window_floor(device_ctx *dev, device_floor *out, cn_error *err)
{
    const char *sources[] = {"core/floor.cl"};
    cl_program program = NULL;
    cl_kernel k = NULL;
    cl_mem word = NULL;
    cl_int st = CL_SUCCESS;
    double *launch = calloc(2 * FLOOR_WINDOWS, sizeof *launch);
    double *window = launch ? launch + FLOOR_WINDOWS : NULL;
    int rc = launch ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    memset(out, 0, sizeof *out);
    if (!rc)
        rc = device_build_program(dev, sources, 1, "", &program, err);
    if (!rc)
        rc = device_create_kernel(dev, program, "core.window_floor", &k, err);
    if (!rc) {
        word = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL, &st);
        rc = cl_check(st, "clCreateBuffer(core.window_floor)", dev->info.name, err);
    }
    if (!rc)
        rc = cl_check(clSetKernelArg(k, 0, sizeof(cl_mem), &word),
                      "clSetKernelArg(core.window_floor, 0)", dev->info.name, err);
    double l = 0, w = 0;
    for (int i = 0; !rc && i < FLOOR_WARMUP; i++)
        rc = one_window(dev, k, word, (cl_uint)i, &l, &w, err);
    for (int i = 0; !rc && i < FLOOR_WINDOWS; i++)
        rc = one_window(dev, k, word, (cl_uint)(FLOOR_WARMUP + i), &launch[i], &window[i], err);
    if (!rc) {
        out->launch_us = median_us(launch, FLOOR_WINDOWS);
        out->window_us = median_us(window, FLOOR_WINDOWS);
    }
    free(launch);
    if (word)
        clReleaseMemObject(word);
    if (k)
        clReleaseKernel(k);
    if (program)
        clReleaseProgram(program);
    return rc;
}

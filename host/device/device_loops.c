/* The loop probe (cl/core/loops.cl): whether a device runs a work-item's loops to their end.
 *
 * OpenCL promises that a loop runs until its condition says otherwise. Mesa's llvmpipe (the
 * CPU device of rusticl) instead ends every loop of a work-item once its loops have run 65535
 * iterations in all, without an error: a whole-packet flood then stops early and its counts
 * are wrong (platforms/rusticl.ini). The probe measures such a limit, once per opened device, so
 * that the kernels whose loops are long run in bounded launches there (flood_packets.c).
 *
 * Testing hook: CLNETSIM_TEST_LOOP_LIMIT=N makes a device's limit at most N iterations, so
 * that the bounded launches can be exercised on any device (tests/flood/). */
#include <stdlib.h>
#include <string.h>

#include "device/device_internal.h"

/* Iterations probed: twice llvmpipe's limit, cheap everywhere (a millisecond on a CPU; about
 * a second under an instruction-level simulator such as oclgrind). */
#define PROBE_ITERATIONS (1u << 17)
#define LOOP_LIMIT_ENV "CLNETSIM_TEST_LOOP_LIMIT"

static uint32_t expected_value(uint32_t n)
{
    uint32_t x = 1u;
    for (uint32_t i = 0; i < n; i++)
        x = x * 1664525u + 1013904223u;
    return x;
}

static int run_probe(device_ctx *dev, uint32_t got[2], cn_error *err)
{
    const char *sources[] = {"core/loops.cl"};
    cl_program program = NULL;
    cl_kernel k = NULL;
    cl_mem out = NULL;
    cl_uint n = PROBE_ITERATIONS;
    size_t one = 1;
    cl_int st = CL_SUCCESS;
    int rc = device_build_program(dev, sources, 1, "", &program, err);
    if (!rc)
        rc = device_create_kernel(dev, program, "core.probe_loops", &k, err);
    if (!rc) {
        out = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, 2 * sizeof(cl_uint), NULL, &st);
        rc = cl_check(st, "clCreateBuffer(probe_loops)", dev->info.name, err);
    }
    if (!rc)
        rc = cl_check(clSetKernelArg(k, 0, sizeof(cl_mem), &out),
                      "clSetKernelArg(probe_loops, 0)", dev->info.name, err);
    if (!rc)
        rc = cl_check(clSetKernelArg(k, 1, sizeof n, &n), "clSetKernelArg(probe_loops, 1)",
                      dev->info.name, err);
    if (!rc)
        rc = cl_check(clEnqueueNDRangeKernel(dev->queue, k, 1, NULL, &one, &one, 0, NULL, NULL),
                      "clEnqueueNDRangeKernel(probe_loops)", dev->info.name, err);
    if (!rc)
        rc = cl_check(clEnqueueReadBuffer(dev->queue, out, CL_TRUE, 0, 2 * sizeof(cl_uint), got,
                                          0, NULL, NULL),
                      "clEnqueueReadBuffer(probe_loops)", dev->info.name, err);
    if (out)
        clReleaseMemObject(out);
    if (k)
        clReleaseKernel(k);
    if (program)
        clReleaseProgram(program);
    return rc;
}

int device_loop_limit(device_ctx *dev, uint32_t *limit, cn_error *err)
{
    if (!dev->loops_probed) {
        uint32_t got[2] = {0, 0};
        int rc = run_probe(dev, got, err);
        if (rc)
            return rc;
        if (got[0] > PROBE_ITERATIONS || (got[0] == PROBE_ITERATIONS &&
                                          got[1] != expected_value(PROBE_ITERATIONS)))
            return cn_fail(err, CN_ERR_RUNTIME,
                           "device '%s' failed the loop self-test: a loop of %u iterations "
                           "counted %u and ended on %08x, expected %08x; this device is refused",
                           dev->info.name, PROBE_ITERATIONS, got[0], got[1],
                           expected_value(PROBE_ITERATIONS));
        /* a limit: the iterations run before the loop was ended */
        dev->loop_limit = got[0] < PROBE_ITERATIONS ? got[0] : 0;
        const char *hook = getenv(LOOP_LIMIT_ENV);
        if (hook && *hook) {
            char *end;
            unsigned long v = strtoul(hook, &end, 10);
            if (*end || v == 0 || v > UINT32_MAX)
                return cn_fail(err, CN_ERR_INPUT, "%s must be a number of iterations from 1 to "
                               "%u, not '%s'", LOOP_LIMIT_ENV, UINT32_MAX, hook);
            if (dev->loop_limit == 0 || v < dev->loop_limit)
                dev->loop_limit = (uint32_t)v;
        }
        dev->loops_probed = 1;
    }
    *limit = dev->loop_limit;
    return 0;
}

/* The per-device known-answer self-test (cl/core/selftest.cl). A device whose compiler or hardware
 * gets Philox, 64-bit integer arithmetic or global atomics wrong would give different results
 * from the other devices without any error, so it is refused before it runs anything.
 *
 * Testing hook: CLNETSIM_TEST_FAIL_SELFTEST=1 in the environment makes the test expect a wrong
 * first Philox word, so that the refusal path can be exercised on a correct device
 * (tests/device/). Nothing else reads it. */
#include <stdlib.h>
#include <string.h>

#include "common/philox.h"
#include "device/device_internal.h"

#define N_ANSWERS     3
#define INTEGER_ITEMS 64
#define N_INTEGER     8
#define N_COUNTERS    5

/* docs/model.md, "Randomness": ctr[4], key[2] -> out[4]. */
static const uint32_t known_input[N_ANSWERS][6] = {
    {0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
    {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
    {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u},
};
static const uint32_t known_output[N_ANSWERS][4] = {
    {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
    {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu},
    {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u},
};

/* Operands of selftest_integer; the division, shift and signed cases use a negative value
 * that is not a multiple of 3 or 8, so that truncation and rounding directions show. */
static const uint64_t integer_operands[8] = {
    0xfffffffbu,
    0xfffffff1u,
    1000000007u,
    0x9e3779b97f4a7c15ull,
    0xbf58476d1ce4e5b9ull,
    (uint64_t)-7000000001ll,
    3u,
    77u,
};
static const char *const integer_checks[N_INTEGER] = {
    "32 x 32 -> 64-bit product", "(w * n) >> 32",         "mul_hi",
    "wrapping 64-bit product",   "signed division",       "signed remainder",
    "arithmetic right shift",    "signed 64-bit product",
};
static const char *const counter_checks[N_COUNTERS] = {
    "atomic_or", "atomic_inc", "atomic_min", "atomic_max", "atomic_add",
};

static void expected_integers(uint64_t out[N_INTEGER], uint32_t counters[N_COUNTERS])
{
    const uint64_t *a = integer_operands;
    uint32_t x = (uint32_t)a[0], y = (uint32_t)a[1];
    out[0] = (uint64_t)x * y;
    out[1] = philox_uniform(x, a[2]);
    out[2] = ((uint64_t)x * y) >> 32;
    out[3] = a[3] * a[4];
    /* Written out: C leaves the right shift of a negative value to the implementation. */
    out[4] = (uint64_t)-2333333333ll;
    out[5] = (uint64_t)-2ll;
    out[6] = (uint64_t)-875000001ll;
    out[7] = (uint64_t)-539000000077ll;
    counters[0] = 0xffffffffu;
    counters[1] = INTEGER_ITEMS;
    counters[2] = 1000u - (INTEGER_ITEMS - 1);
    counters[3] = (INTEGER_ITEMS - 1) * 7u;
    counters[4] = INTEGER_ITEMS * (INTEGER_ITEMS - 1) / 2;
}

/* ---- small checked OpenCL steps ---- */

static int make_buffer(device_ctx *dev, cl_mem_flags flags, size_t size, const void *init,
                       cl_mem *out, cn_error *err)
{
    cl_int st = CL_SUCCESS;
    *out = clCreateBuffer(dev->context, flags, size, (void *)init, &st);
    return cl_check(st, "clCreateBuffer(self-test)", dev->info.name, err);
}

static int set_buffers(device_ctx *dev, cl_kernel k, const char *kernel, const cl_mem *bufs, int n,
                       cn_error *err)
{
    char what[96];
    for (int i = 0; i < n; i++) {
        snprintf(what, sizeof what, "clSetKernelArg(%s, %d)", kernel, i);
        if (cl_check(clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &bufs[i]), what, dev->info.name,
                     err))
            return CN_ERR_RUNTIME;
    }
    return 0;
}

/* Global size only: the driver picks the work-group, since 3 items fit no profile size. */
static int launch(device_ctx *dev, cl_kernel k, const char *kernel, size_t global, cn_error *err)
{
    char what[96];
    snprintf(what, sizeof what, "clEnqueueNDRangeKernel(%s)", kernel);
    if (cl_check(clEnqueueNDRangeKernel(dev->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL), what,
                 dev->info.name, err))
        return CN_ERR_RUNTIME;
    snprintf(what, sizeof what, "clFinish(%s)", kernel);
    return cl_check(clFinish(dev->queue), what, dev->info.name, err);
}

static int read_back(device_ctx *dev, cl_mem buf, void *host, size_t size, const char *kernel,
                     cn_error *err)
{
    char what[96];
    snprintf(what, sizeof what, "clEnqueueReadBuffer(%s)", kernel);
    return cl_check(clEnqueueReadBuffer(dev->queue, buf, CL_TRUE, 0, size, host, 0, NULL, NULL),
                    what, dev->info.name, err);
}

static void release(cl_kernel k, cl_mem *bufs, int n)
{
    for (int i = 0; i < n; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    if (k)
        clReleaseKernel(k);
}

/* ---- the two tests ---- */

static int run_philox(device_ctx *dev, cl_program program, uint32_t got[N_ANSWERS][4],
                      cn_error *err)
{
    const char *name = "core.selftest_philox";
    cl_kernel k = NULL;
    cl_mem bufs[2] = {NULL, NULL};
    int rc = device_create_kernel(dev, program, name, &k, err);
    if (!rc)
        rc = make_buffer(dev, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof known_input,
                         known_input, &bufs[0], err);
    if (!rc)
        rc = make_buffer(dev, CL_MEM_WRITE_ONLY, sizeof(uint32_t) * N_ANSWERS * 4, NULL, &bufs[1],
                         err);
    if (!rc)
        rc = set_buffers(dev, k, name, bufs, 2, err);
    if (!rc)
        rc = launch(dev, k, name, N_ANSWERS, err);
    if (!rc)
        rc = read_back(dev, bufs[1], got, sizeof(uint32_t) * N_ANSWERS * 4, name, err);
    release(k, bufs, 2);
    return rc;
}

static int run_integer(device_ctx *dev, cl_program program, uint64_t got[N_INTEGER],
                       uint32_t counters[N_COUNTERS], cn_error *err)
{
    const char *name = "core.selftest_integer";
    const uint32_t init[N_COUNTERS] = {0, 0, 0xffffffffu, 0, 0};
    cl_kernel k = NULL;
    cl_mem bufs[3] = {NULL, NULL, NULL};
    int rc = device_create_kernel(dev, program, name, &k, err);
    if (!rc)
        rc = make_buffer(dev, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof integer_operands,
                         integer_operands, &bufs[0], err);
    if (!rc)
        rc = make_buffer(dev, CL_MEM_WRITE_ONLY, sizeof(uint64_t) * N_INTEGER, NULL, &bufs[1], err);
    if (!rc)
        rc = make_buffer(dev, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof init, init, &bufs[2],
                         err);
    if (!rc)
        rc = set_buffers(dev, k, name, bufs, 3, err);
    if (!rc)
        rc = launch(dev, k, name, INTEGER_ITEMS, err);
    if (!rc)
        rc = read_back(dev, bufs[1], got, sizeof(uint64_t) * N_INTEGER, name, err);
    if (!rc)
        rc = read_back(dev, bufs[2], counters, sizeof(uint32_t) * N_COUNTERS, name, err);
    release(k, bufs, 3);
    return rc;
}

/* ---- comparisons ---- */

static int forced_failure(void)
{
    const char *v = getenv(SELFTEST_FAIL_ENV);
    return v && strcmp(v, "1") == 0;
}

/* The host implementation must agree with docs/model.md too: otherwise host-side draws (placement
 * on the host, the reference checks of the tests) would silently differ from the devices. */
static int check_host_philox(cn_error *err)
{
    for (int a = 0; a < N_ANSWERS; a++) {
        const uint32_t *in = known_input[a];
        philox4x32 r = philox4x32_10((philox4x32){{in[0], in[1], in[2], in[3]}}, in[4], in[5]);
        for (int w = 0; w < 4; w++)
            if (r.v[w] != known_output[a][w])
                return cn_fail(err, CN_ERR_RUNTIME,
                               "the host Philox (host/common/philox.c) is wrong: word %d of answer "
                               "%d is %08x, expected %08x (docs/model.md)",
                               w, a + 1, r.v[w], known_output[a][w]);
    }
    return 0;
}

static int check_philox(const device_ctx *dev, uint32_t got[N_ANSWERS][4], cn_error *err)
{
    uint32_t expect[N_ANSWERS][4];
    memcpy(expect, known_output, sizeof expect);
    if (forced_failure())
        expect[0][0] ^= 1u;
    for (int a = 0; a < N_ANSWERS; a++)
        for (int w = 0; w < 4; w++)
            if (got[a][w] != expect[a][w])
                return cn_fail(err, CN_ERR_RUNTIME,
                               "device '%s' failed the Philox self-test: word %d of answer %d is "
                               "%08x, expected %08x; this device is refused",
                               dev->info.name, w, a + 1, got[a][w], expect[a][w]);
    return 0;
}

static int check_integer(const device_ctx *dev, const uint64_t got[N_INTEGER],
                         const uint32_t counters[N_COUNTERS], cn_error *err)
{
    uint64_t expect[N_INTEGER];
    uint32_t expect_counters[N_COUNTERS];
    expected_integers(expect, expect_counters);
    for (int i = 0; i < N_INTEGER; i++)
        if (got[i] != expect[i])
            return cn_fail(err, CN_ERR_RUNTIME,
                           "device '%s' failed the integer self-test: %s gave %016llx, expected "
                           "%016llx; this device is refused",
                           dev->info.name, integer_checks[i], (unsigned long long)got[i],
                           (unsigned long long)expect[i]);
    for (int i = 0; i < N_COUNTERS; i++)
        if (counters[i] != expect_counters[i])
            return cn_fail(err, CN_ERR_RUNTIME,
                           "device '%s' failed the atomics self-test: %s on global memory gave "
                           "%u, expected %u; this device is refused",
                           dev->info.name, counter_checks[i], counters[i], expect_counters[i]);
    return 0;
}

int device_selftest(device_ctx *dev, cn_error *err)
{
    const char *sources[] = {"core/selftest.cl"};
    cl_program program = NULL;
    uint32_t philox_got[N_ANSWERS][4];
    uint64_t integer_got[N_INTEGER];
    uint32_t counters[N_COUNTERS];
    if (check_host_philox(err) || device_build_program(dev, sources, 1, "", &program, err))
        return CN_ERR_RUNTIME;
    int rc = run_philox(dev, program, philox_got, err);
    if (!rc)
        rc = check_philox(dev, philox_got, err);
    if (!rc)
        rc = run_integer(dev, program, integer_got, counters, err);
    if (!rc)
        rc = check_integer(dev, integer_got, counters, err);
    clReleaseProgram(program);
    return rc;
}

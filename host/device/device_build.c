/* Program builds: sources assembled from the embedded files, options from the platform
 * profile, binaries reused through the cache (device_cache.c). A cached binary that the driver
 * refuses (driver update, damaged file) falls back to a source build without a word, and the
 * fresh binary replaces the entry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device/device_internal.h"
#include "version.h"

/* The build log is for the user; the first errors are what matters, and the message must fit
 * in one cn_error. */
#define LOG_LIMIT 1200

static char *join_options(const char *a, const char *b)
{
    a = a ? a : "";
    b = b ? b : "";
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s", a, a[0] && b[0] ? " " : "", b);
    return s;
}

/* Everything that changes the binary: the exact source, the options, which compiler (device,
 * driver and platform versions) and which clnetsim. */
static void build_key(const device_ctx *dev, const char *source, const char *options, cache_key *k)
{
    char platform_version[256] = "";
    if (dev->info.platform)
        (void)clGetPlatformInfo(dev->info.platform, CL_PLATFORM_VERSION, sizeof platform_version,
                                platform_version, NULL);
    platform_version[sizeof platform_version - 1] = '\0';
    cache_key_init(k);
    cache_key_add_str(k, "clnetsim kernel binary");
    cache_key_add_str(k, source);
    cache_key_add_str(k, options);
    cache_key_add_str(k, dev->info.name);
    cache_key_add_str(k, dev->info.version);
    cache_key_add_str(k, dev->info.driver);
    cache_key_add_str(k, platform_version);
    cache_key_add_str(k, CLNETSIM_VERSION);
    cache_key_add_str(k, CLNETSIM_GIT_COMMIT);
}

static int build_from_cache(device_ctx *dev, const cache_key *key, const char *options,
                            cl_program *out)
{
    unsigned char *binary = NULL;
    size_t size = 0;
    if (cache_load(key, &binary, &size))
        return -1;
    cl_int st = CL_SUCCESS, binary_status = CL_SUCCESS;
    const unsigned char *bin = binary;
    cl_program p =
        clCreateProgramWithBinary(dev->context, 1, &dev->info.id, &size, &bin, &binary_status, &st);
    free(binary);
    if (st != CL_SUCCESS || binary_status != CL_SUCCESS) {
        if (p)
            clReleaseProgram(p);
        return -1;
    }
    if (clBuildProgram(p, 1, &dev->info.id, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(p);
        return -1;
    }
    *out = p;
    return 0;
}

static void store_binary(cl_program p, const cache_key *key)
{
    size_t size = 0;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
        size == 0)
        return;
    unsigned char *binary = malloc(size);
    if (!binary)
        return;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) == CL_SUCCESS)
        cache_store(key, binary, size);
    free(binary);
}

/* The build log, trimmed: drivers pad it with blank lines, and a log of thousands of lines is
 * cut after its beginning, where the first error is. */
static void build_log(const device_ctx *dev, cl_program p, char *buf, size_t cap)
{
    size_t size = 0;
    buf[0] = '\0';
    if (clGetProgramBuildInfo(p, dev->info.id, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
            CL_SUCCESS ||
        size == 0)
        return;
    char *log = calloc(size + 1, 1);
    if (!log)
        return;
    if (clGetProgramBuildInfo(p, dev->info.id, CL_PROGRAM_BUILD_LOG, size, log, NULL) ==
        CL_SUCCESS) {
        str_copy_trimmed(buf, cap, log);
        if (strlen(log) >= cap && cap > 32)
            snprintf(buf + cap - 32, 32, "\n[... build log truncated]");
    }
    free(log);
}

static void describe_program(const char *const *sources, int n, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used + 1 < cap; i++) {
        int w = snprintf(buf + used, cap - used, "%s%s", i ? "+" : "", sources[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static int build_from_source(device_ctx *dev, const char *source, const char *options,
                             const char *program_name, cl_program *out, cn_error *err)
{
    cl_int st = CL_SUCCESS;
    char what[300];
    snprintf(what, sizeof what, "clCreateProgramWithSource(%s)", program_name);
    cl_program p = clCreateProgramWithSource(dev->context, 1, &source, NULL, &st);
    if (cl_check(st, what, dev->info.name, err))
        return CN_ERR_RUNTIME;
    st = clBuildProgram(p, 1, &dev->info.id, options, NULL, NULL);
    if (st != CL_SUCCESS) {
        char log[LOG_LIMIT + 1];
        build_log(dev, p, log, sizeof log);
        clReleaseProgram(p);
        int fresh = err && err->code == 0;
        device_fail(err, dev->info.name, CN_ERR_RUNTIME,
                    "building the OpenCL program %s failed on device '%s': %s (%d), with "
                    "options '%s'; build log:",
                    program_name, dev->info.name, cl_status_name(st), (int)st, options);
        if (fresh) { /* the log as the compiler wrote it, on the lines that follow */
            cn_append_raw(err, "\n");
            cn_append_raw(err, log[0] ? log : "(empty)");
        }
        return CN_ERR_RUNTIME;
    }
    *out = p;
    return 0;
}

static double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int build_program(device_ctx *dev, const char *const *sources, int n_sources,
                         const char *options, cl_program *out, cn_error *err)
{
    char *source = NULL, *all_options = NULL;
    char name[256];
    cache_key key;
    int rc = 0;
    *out = NULL;
    dev->last_build_cached = 0;
    describe_program(sources, n_sources, name, sizeof name);
    /* CLNETSIM_TEST_FAIL=build@D: the build fails as a broken compiler's would */
    if (device_fault_build(dev))
        return device_fail(err, dev->info.name, CN_ERR_RUNTIME,
                           "building the OpenCL program %s failed on device '%s': "
                           "CL_BUILD_PROGRAM_FAILURE (%d), forced by CLNETSIM_TEST_FAIL=build@%d",
                           name, dev->info.name, (int)CL_BUILD_PROGRAM_FAILURE, dev->ordinal);
    if (device_expand_sources(sources, n_sources, NULL, NULL, &source, err))
        return CN_ERR_RUNTIME;
    all_options = join_options(dev->profile.build_options, options);
    if (all_options && dev->fault.break_mask) {
        /* CLNETSIM_TEST_BREAK_KERNEL: this device's kernels built wrong
         * (cl/common/test_break.clh) */
        char define[48];
        snprintf(define, sizeof define, "-DTEST_BREAK=%uu", dev->fault.break_mask);
        char *joined = join_options(all_options, define);
        free(all_options);
        all_options = joined;
    }
    if (!all_options) {
        free(source);
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory while building %s", name);
    }
    build_key(dev, source, all_options, &key);
    int use_cache = !cache_disabled();
    if (use_cache && build_from_cache(dev, &key, all_options, out) == 0) {
        dev->last_build_cached = 1;
    } else {
        rc = build_from_source(dev, source, all_options, name, out, err);
        if (rc == 0 && use_cache)
            store_binary(*out, &key);
    }
    free(source);
    free(all_options);
    return rc;
}

int device_build_program(device_ctx *dev, const char *const *sources, int n_sources,
                         const char *options, cl_program *out, cn_error *err)
{
    double t0 = monotonic_seconds();
    int rc = build_program(dev, sources, n_sources, options, out, err);
    dev->build_s += monotonic_seconds() - t0;
    return rc;
}

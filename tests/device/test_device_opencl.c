/* Device layer tests on real OpenCL devices (PoCL with POCL_DEVICES="pthread basic" in ctest):
 * enumeration, open, self-test and its forced failure, the binary cache, build failures,
 * kernels, work-group sizes and event timings. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test_device.h"

static const char *const selftest_source[] = {"core/selftest.cl"};

static char cache_root[256]; /* a fresh XDG_CACHE_HOME for the cache tests */

/* The path of the only cache file in the test cache directory, or "" when there is none or
 * several. */
static int only_cache_file(char *path, size_t cap)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/clnetsim", cache_root);
    DIR *d = opendir(dir);
    int n = 0;
    path[0] = '\0';
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        n++;
        snprintf(path, cap, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n != 1)
        path[0] = '\0';
    return n;
}

static void remove_cache_files(void)
{
    char dir[512], path[800];
    snprintf(dir, sizeof dir, "%s/clnetsim", cache_root);
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* Builds the self-test with OPTIONS; returns whether it succeeded and came from the cache
 * in *CACHED. The program must be usable either way. */
static int build(device_ctx *dev, const char *options, int *cached)
{
    cl_program p = NULL;
    cl_kernel k = NULL;
    cn_error err = {0};
    int rc = device_build_program(dev, selftest_source, 1, options, &p, &err);
    CHECK_ERR(rc == 0, err);
    if (rc)
        return rc;
    *cached = dev->last_build_cached;
    CHECK_ERR(device_create_kernel(dev, p, "selftest_philox", &k, &err) == 0, err);
    if (k)
        clReleaseKernel(k);
    clReleaseProgram(p);
    return 0;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void flip_byte(const char *path, long offset)
{
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (!f)
        return;
    fseek(f, offset, SEEK_SET);
    int c = fgetc(f);
    fseek(f, offset, SEEK_SET);
    fputc(c ^ 0x5a, f);
    fclose(f);
}

/* Keeps the header (so the key matches) but replaces the payload with garbage whose length
 * and hash are right: only the driver can refuse it, and the fallback must be silent. */
static void replace_payload_with_garbage(const char *path)
{
    unsigned char header[56];
    FILE *f = fopen(path, "rb");
    CHECK(f && fread(header, 1, sizeof header, f) == sizeof header);
    if (f)
        fclose(f);
    unsigned char garbage[100];
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < sizeof garbage; i++) {
        garbage[i] = (unsigned char)(i * 37 + 11);
        h = (h ^ garbage[i]) * 0x100000001b3ull;
    }
    for (int i = 0; i < 8; i++) {
        header[40 + i] = (unsigned char)((uint64_t)sizeof garbage >> (8 * i));
        header[48 + i] = (unsigned char)(h >> (8 * i));
    }
    f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    fwrite(header, 1, sizeof header, f);
    fwrite(garbage, 1, sizeof garbage, f);
    fclose(f);
}

static void test_cache(device_ctx *dev)
{
    char path[800], saved_xdg[1024] = "";
    int cached = -1;
    const char *xdg = getenv("XDG_CACHE_HOME");
    int had_xdg = xdg != NULL;
    snprintf(saved_xdg, sizeof saved_xdg, "%s", xdg ? xdg : "");
    snprintf(cache_root, sizeof cache_root, "/tmp/clnetsim-test-cache-XXXXXX");
    CHECK(mkdtemp(cache_root) != NULL);
    setenv("XDG_CACHE_HOME", cache_root, 1);
    unsetenv("CLNETSIM_NO_CACHE");
    char dir[512], want_dir[512];
    CHECK(device_cache_dir(dir, sizeof dir));
    snprintf(want_dir, sizeof want_dir, "%s/clnetsim", cache_root);
    CHECK(strcmp(dir, want_dir) == 0);

    /* Miss, then hit. */
    CHECK(build(dev, "-DCACHE_TEST=1", &cached) == 0 && cached == 0);
    CHECK(only_cache_file(path, sizeof path) == 1);
    CHECK(build(dev, "-DCACHE_TEST=1", &cached) == 0 && cached == 1);
    /* Other options, other entry. */
    CHECK(build(dev, "-DCACHE_TEST=2", &cached) == 0 && cached == 0);
    remove_cache_files();

    /* A damaged payload is noticed and rebuilt silently; the entry is replaced. */
    CHECK(build(dev, "-DCACHE_TEST=3", &cached) == 0 && cached == 0);
    CHECK(only_cache_file(path, sizeof path) == 1);
    long size = file_size(path);
    CHECK(size > 100);
    flip_byte(path, size / 2);
    CHECK(build(dev, "-DCACHE_TEST=3", &cached) == 0 && cached == 0);
    CHECK(build(dev, "-DCACHE_TEST=3", &cached) == 0 && cached == 1);
    /* A damaged header, a truncated file, an empty file. */
    flip_byte(path, 3);
    CHECK(build(dev, "-DCACHE_TEST=3", &cached) == 0 && cached == 0);
    CHECK(truncate(path, size / 3) == 0);
    CHECK(build(dev, "-DCACHE_TEST=3", &cached) == 0 && cached == 0);
    CHECK(truncate(path, 0) == 0);
    CHECK(build(dev, "-DCACHE_TEST=3", &cached) == 0 && cached == 0);
    CHECK(build(dev, "-DCACHE_TEST=3", &cached) == 0 && cached == 1);
    /* A well-formed entry that the driver refuses. */
    replace_payload_with_garbage(path);
    CHECK(build(dev, "-DCACHE_TEST=3", &cached) == 0 && cached == 0);
    CHECK(build(dev, "-DCACHE_TEST=3", &cached) == 0 && cached == 1);
    CHECK(only_cache_file(path, sizeof path) == 1); /* no temporary files left behind */
    remove_cache_files();

    /* CLNETSIM_NO_CACHE=1: neither read nor written. */
    setenv("CLNETSIM_NO_CACHE", "1", 1);
    CHECK(!device_cache_dir(dir, sizeof dir));
    CHECK(build(dev, "-DCACHE_TEST=4", &cached) == 0 && cached == 0);
    CHECK(build(dev, "-DCACHE_TEST=4", &cached) == 0 && cached == 0);
    CHECK(only_cache_file(path, sizeof path) == 0);
    unsetenv("CLNETSIM_NO_CACHE");

    /* A cache directory that cannot be created (its parent is a file): silently uncached. */
    char file_parent[300];
    snprintf(file_parent, sizeof file_parent, "%s/plainfile", cache_root);
    FILE *f = fopen(file_parent, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    setenv("XDG_CACHE_HOME", file_parent, 1);
    CHECK(build(dev, "-DCACHE_TEST=5", &cached) == 0 && cached == 0);
    CHECK(build(dev, "-DCACHE_TEST=5", &cached) == 0 && cached == 0);
    unlink(file_parent);
    rmdir(cache_root);
    if (had_xdg)
        setenv("XDG_CACHE_HOME", saved_xdg, 1);
    else
        unsetenv("XDG_CACHE_HOME");
}

static void test_build_failure(device_ctx *dev)
{
    cl_program p = NULL;
    cn_error err = {0};
    /* Turning a kernel's name into a number through -D breaks the source without touching it. */
    CHECK(device_build_program(dev, selftest_source, 1, "-Dselftest_philox=42", &p, &err) ==
          CN_ERR_RUNTIME);
    CHECK(p == NULL);
    char want[400];
    snprintf(want, sizeof want,
             "building the OpenCL program core/selftest.cl failed on device '%s': "
             "CL_BUILD_PROGRAM_FAILURE (-11)",
             dev->info.name);
    CHECK_CONTAINS(err.msg, want);
    CHECK_CONTAINS(err.msg, "build log:");
    CHECK_CONTAINS(err.msg, "error");
    CHECK_CONTAINS(err.msg, "'-cl-std=CL1.2 -Dselftest_philox=42'");

    cn_error_clear(&err);
    const char *missing[] = {"no_such_file.cl"};
    CHECK(device_build_program(dev, missing, 1, "", &p, &err) == CN_ERR_RUNTIME);
    CHECK_CONTAINS(err.msg, "'no_such_file.cl' is not embedded");
}

static void test_kernel_and_timing(device_ctx *dev)
{
    cl_program p = NULL;
    cl_kernel k = NULL;
    cn_error err = {0};
    CHECK_ERR(device_build_program(dev, selftest_source, 1, "", &p, &err) == 0, err);
    if (!p)
        return;
    CHECK(device_create_kernel(dev, p, "nope", &k, &err) == CN_ERR_RUNTIME && k == NULL);
    char want[400];
    snprintf(want, sizeof want,
             "clCreateKernel(nope) failed on device '%s': CL_INVALID_KERNEL_NAME (-46)",
             dev->info.name);
    CHECK_CONTAINS(err.msg, want);
    cn_error_clear(&err);
    CHECK_ERR(device_create_kernel(dev, p, "selftest_integer", &k, &err) == 0, err);

    /* Clamped to the kernel's own limit and the device's, and a power of two. */
    size_t kernel_max = 0;
    CHECK(clGetKernelWorkGroupInfo(k, dev->info.id, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max,
                                   &kernel_max, NULL) == CL_SUCCESS);
    for (size_t request = 1; request <= 70000; request = request * 3 + 1) {
        dev->local_size_override = request;
        size_t got = device_local_size(dev, "selftest_integer", k);
        CHECK(got >= 1 && (got & (got - 1)) == 0 && got <= request && got <= kernel_max &&
              got <= dev->info.max_work_group);
        CHECK(got * 2 > request || got * 2 > kernel_max || got * 2 > dev->info.max_work_group);
    }
    dev->local_size_override = 0;
    CHECK(device_local_size(dev, "flood.transmit", k) == 256);

    clReleaseKernel(k);

    /* Timing of a real launch (Philox on zero counters: no operand can trap). */
    CHECK_ERR(device_create_kernel(dev, p, "selftest_philox", &k, &err) == 0, err);
    enum { ITEMS = 4096 };
    cl_int st = CL_SUCCESS;
    cl_mem bufs[2];
    bufs[0] =
        clCreateBuffer(dev->context, CL_MEM_READ_WRITE, ITEMS * 6 * sizeof(cl_uint), NULL, &st);
    CHECK(st == CL_SUCCESS);
    bufs[1] =
        clCreateBuffer(dev->context, CL_MEM_READ_WRITE, ITEMS * 4 * sizeof(cl_uint), NULL, &st);
    CHECK(st == CL_SUCCESS);
    cl_uint zero = 0;
    CHECK(clEnqueueFillBuffer(dev->queue, bufs[0], &zero, sizeof zero, 0,
                              ITEMS * 6 * sizeof(cl_uint), 0, NULL, NULL) == CL_SUCCESS);
    for (int i = 0; i < 2; i++)
        CHECK(clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &bufs[i]) == CL_SUCCESS);
    size_t global = ITEMS;
    cl_event ev = NULL;
    CHECK(clEnqueueNDRangeKernel(dev->queue, k, 1, NULL, &global, NULL, 0, NULL, &ev) ==
          CL_SUCCESS);
    CHECK(clWaitForEvents(1, &ev) == CL_SUCCESS);
    double s = device_event_seconds(ev);
    CHECK(s > 0.0 && s < 10.0);
    CHECK(device_event_seconds(NULL) == 0.0);
    clReleaseEvent(ev);
    for (int i = 0; i < 2; i++)
        clReleaseMemObject(bufs[i]);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

static void test_selftest(device_ctx *dev)
{
    cn_error err = {0};
    CHECK_ERR(device_selftest(dev, &err) == 0, err);

    /* The refusal path, with a deliberately wrong expected word. */
    cn_error_clear(&err);
    setenv(SELFTEST_FAIL_ENV, "1", 1);
    CHECK(device_selftest(dev, &err) == CN_ERR_RUNTIME);
    unsetenv(SELFTEST_FAIL_ENV);
    char want[512];
    snprintf(want, sizeof want,
             "device '%s' failed the Philox self-test: word 0 of answer 1 is "
             "6627e8d5, expected 6627e8d4; this device is refused",
             dev->info.name);
    CHECK(err.code == CN_ERR_RUNTIME);
    if (strcmp(err.msg, want) != 0) {
        test_failures++;
        fprintf(stderr, "forced self-test failure said:\n  %s\nexpected:\n  %s\n", err.msg, want);
    }
}

/* The shapes verdicts' cache key follows the profile's kernel choices: a device whose profile
 * builds teams of 16 was tested on other kernels than one that builds teams of 1. */
static void test_shapes_key(device_ctx *dev)
{
    char base[1024], changed[1024], restored[1024];
    CHECK(device_shapes_path(dev, "flood", "256", base, sizeof base));
    int n = dev->profile.n_choices;
    CHECK(n < PLATFORM_MAX_CHOICES);
    if (n >= PLATFORM_MAX_CHOICES)
        return;
    snprintf(dev->profile.choices[n].key, sizeof dev->profile.choices[n].key, "%s",
             "flood.transmit_mobile_team");
    dev->profile.choices[n].value = 16;
    dev->profile.n_choices = n + 1;
    CHECK(device_shapes_path(dev, "flood", "256", changed, sizeof changed));
    CHECK(strcmp(base, changed) != 0);
    dev->profile.choices[n].value = 8;
    char other[1024];
    CHECK(device_shapes_path(dev, "flood", "256", other, sizeof other));
    CHECK(strcmp(other, changed) != 0 && strcmp(other, base) != 0);
    dev->profile.n_choices = n;
    CHECK(device_shapes_path(dev, "flood", "256", restored, sizeof restored));
    CHECK(strcmp(base, restored) == 0);
}

static void test_enumeration(device_list *list)
{
    cn_error err = {0};
    CHECK_ERR(device_enumerate(list, &err) == 0, err);
    int pocl = 0;
    for (int i = 0; i < list->count; i++) {
        const device_entry *e = &list->items[i];
        CHECK(e->index == i);
        if (!str_icontains(e->platform_name, "Portable Computing Language"))
            continue;
        pocl++;
        if (!e->usable) {
            test_failures++;
            fprintf(stderr, "PoCL device '%s' is marked unusable: %s\n", e->name, e->reason);
        }
        CHECK(e->id != NULL && e->platform != NULL);
        CHECK(e->name[0] && e->driver[0] && e->version[0]);
        CHECK(strncmp(e->c_version, "OpenCL C 1.2", 12) == 0 ||
              strncmp(e->c_version, "OpenCL C 3", 10) == 0 ||
              strncmp(e->c_version, "OpenCL C 2", 10) == 0);
        CHECK(e->type & CL_DEVICE_TYPE_CPU);
        CHECK(e->compute_units > 0 && e->global_mem > 0 && e->max_alloc > 0 &&
              e->max_work_group > 0);
    }
    /* POCL_DEVICES="pthread basic" (set by ctest) gives two devices. */
    if (pocl < 2) {
        test_failures++;
        fprintf(stderr, "expected at least 2 PoCL devices, found %d (is POCL_DEVICES set?)\n",
                pocl);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    device_print_listing(list, f);
    fclose(f);
    printf("%s", text);
    CHECK_CONTAINS(text, "Portable Computing Language");
    free(text);

    /* PoCL names its devices after the driver ("pthread-..." in 3.x, "cpu-..." in 5.x). */
    int idx[8];
    char spec[300];
    for (int i = 0; i < list->count; i++)
        if (str_icontains(list->items[i].platform_name, "Portable Computing Language")) {
            snprintf(spec, sizeof spec, "pocl:%s", list->items[i].name);
            CHECK_ERR(device_select(list, spec, idx, 8, &err) == 1 && idx[0] == i, err);
            break;
        }
    CHECK_ERR(device_select(list, "cpu", idx, 8, &err) >= 2, err);
}

static cl_uint context_references(const device_ctx *dev)
{
    cl_uint n = 0;
    CHECK(clGetContextInfo(dev->context, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL) ==
          CL_SUCCESS);
    return n;
}

/* The context's references once the driver has let go of finished work: PoCL's worker threads
 * can drop a completed command's reference to the context a moment after clFinish returns
 * (seen once, in a sanitizer build under a parallel test run). A reference that is still held
 * after a second is a leak. */
static cl_uint settled_references(const device_ctx *dev, cl_uint expected)
{
    CHECK(clFinish(dev->queue) == CL_SUCCESS);
    cl_uint n = context_references(dev);
    for (int i = 0; i < 100 && n != expected; i++) {
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
        n = context_references(dev);
    }
    return n;
}

void test_opencl(void)
{
    device_list list = {0};
    test_enumeration(&list);
    int first_pocl = 1;
    for (int i = 0; i < list.count; i++) {
        const device_entry *e = &list.items[i];
        if (!e->usable || !str_icontains(e->platform_name, "Portable Computing Language"))
            continue;
        device_ctx dev;
        cn_error err = {0};
        CHECK_ERR(device_open(&dev, e, &err) == 0, err);
        if (err.code)
            continue;
        printf("testing device %d '%s'\n", e->index, e->name);
        CHECK(dev.context && dev.queue);
        CHECK(strcmp(dev.profile.name, "pocl.ini") == 0);
        cl_uint refs_before = context_references(&dev);
        test_selftest(&dev);
        test_kernel_and_timing(&dev);
        if (first_pocl) {
            /* Once is enough for the device-independent paths. */
            test_cache(&dev);
            test_build_failure(&dev);
            test_shapes_key(&dev);
            first_pocl = 0;
        }
        /* Programs, kernels and buffers hold their context: an OpenCL object that the layer
         * forgot to release on any path above shows here (LeakSanitizer cannot see it, since
         * the memory belongs to the driver). */
        cl_uint refs_after = settled_references(&dev, refs_before);
        if (refs_after != refs_before) {
            test_failures++;
            fprintf(stderr, "context references went from %u to %u: an OpenCL object leaked\n",
                    refs_before, refs_after);
        }
        device_close(&dev);
        device_close(&dev); /* closing twice is harmless */
    }
    device_list_free(&list);
}

/* Device layer tests that need no OpenCL device: status names, cl_check messages, selection
 * on synthetic lists (every form and every error), the listing, profiles, include expansion
 * and work-group clamping. main() then runs the PoCL tests of test_device_opencl.c. */
#include <stdlib.h>

#include "common/embedded.h"
#include "test_device.h"

int test_failures;

/* ---- status names and messages ---- */

static void test_status(void)
{
    CHECK(strcmp(cl_status_name(CL_SUCCESS), "CL_SUCCESS") == 0);
    CHECK(strcmp(cl_status_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES") == 0);
    CHECK(strcmp(cl_status_name(CL_INVALID_DEVICE_PARTITION_COUNT),
                 "CL_INVALID_DEVICE_PARTITION_COUNT") == 0);
    CHECK(strcmp(cl_status_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR") == 0);
    CHECK(strcmp(cl_status_name(-12345), "unknown OpenCL status") == 0);
    /* Every OpenCL 1.2 code has a name: 0 to -19 and -30 to -68. */
    for (int code = 0; code >= -68; code--) {
        if (code < -19 && code > -30)
            continue;
        const char *name = cl_status_name(code);
        if (strncmp(name, "CL_", 3) != 0) {
            test_failures++;
            fprintf(stderr, "status %d has no name\n", code);
        }
    }

    cn_error err = {0};
    CHECK(cl_check(CL_SUCCESS, "clFinish", "dev", &err) == 0 && err.code == 0);
    CHECK(cl_check(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel(transmit)", "GPU X", &err) ==
          CN_ERR_RUNTIME);
    CHECK(err.code == CN_ERR_RUNTIME);
    CHECK_CONTAINS(err.msg, "clEnqueueNDRangeKernel(transmit) failed on device 'GPU X': "
                            "CL_OUT_OF_RESOURCES (-5), ");
    CHECK(strchr(err.msg, '\n') == NULL);
    cn_error_clear(&err);
    cl_check(-9876, "clFoo", NULL, &err);
    CHECK_CONTAINS(err.msg, "clFoo failed: unknown OpenCL status (-9876), ");
}

/* ---- selection on a synthetic list ---- */

static device_entry synthetic(const char *platform, const char *vendor, const char *name,
                              cl_device_type type, const char *unusable_reason)
{
    device_entry e;
    memset(&e, 0, sizeof e);
    snprintf(e.platform_name, sizeof e.platform_name, "%s", platform);
    snprintf(e.platform_vendor, sizeof e.platform_vendor, "%s", vendor);
    snprintf(e.name, sizeof e.name, "%s", name);
    snprintf(e.c_version, sizeof e.c_version, "OpenCL C 1.2");
    snprintf(e.driver, sizeof e.driver, "1.0");
    e.type = type;
    e.compute_units = 8;
    e.global_mem = (cl_ulong)3 << 30;
    e.max_alloc = (cl_ulong)512 << 20;
    e.max_work_group = 1024;
    e.usable = unusable_reason == NULL;
    snprintf(e.reason, sizeof e.reason, "%s", unusable_reason ? unusable_reason : "");
    return e;
}

static device_entry machine[5];
static device_list machine_list = {machine, 5};

static void make_machine(void)
{
    machine[0] =
        synthetic("NVIDIA CUDA", "NVIDIA Corporation", "NVIDIA H200", CL_DEVICE_TYPE_GPU, NULL);
    machine[1] = synthetic("Portable Computing Language", "The pocl project",
                           "pthread-skylake-avx512", CL_DEVICE_TYPE_CPU, NULL);
    machine[2] = synthetic("Portable Computing Language", "The pocl project",
                           "basic-skylake-avx512", CL_DEVICE_TYPE_CPU, NULL);
    machine[3] = synthetic("AMD Accelerated Parallel Processing", "Advanced Micro Devices, Inc.",
                           "gfx90a:sramecc+:xnack-", CL_DEVICE_TYPE_GPU,
                           "embedded profile without 64-bit integers");
    machine[4] = synthetic("Intel(R) OpenCL Graphics", "Intel(R) Corporation",
                           "Intel(R) Arc(TM) A770 Graphics",
                           CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT, NULL);
    for (int i = 0; i < 5; i++)
        machine[i].index = i;
}

/* Selects SPEC on LIST and compares with the expected positions (terminated by -1). */
static void expect_selection(const device_list *list, const char *spec, int max, const int *want)
{
    int got[16];
    cn_error err = {0};
    int n = device_select(list, spec, got, max, &err);
    int n_want = 0;
    while (want[n_want] >= 0)
        n_want++;
    int same = n == n_want;
    for (int i = 0; same && i < n; i++)
        same = got[i] == want[i];
    if (!same) {
        test_failures++;
        fprintf(stderr, "device_select('%s') gave %d:", spec ? spec : "(null)", n);
        for (int i = 0; i < n; i++)
            fprintf(stderr, " %d", got[i]);
        fprintf(stderr, " (error: %s)\n", err.msg);
    }
}

static void expect_select_error(const device_list *list, const char *spec, const char *part1,
                                const char *part2)
{
    int got[16];
    cn_error err = {0};
    int n = device_select(list, spec, got, 16, &err);
    if (n >= 0 || err.code != CN_ERR_INPUT) {
        test_failures++;
        fprintf(stderr, "device_select('%s') should fail but gave %d (code %d)\n", spec, n,
                err.code);
        return;
    }
    CHECK_CONTAINS(err.msg, part1);
    if (part2)
        CHECK_CONTAINS(err.msg, part2);
}

static void test_select(void)
{
    make_machine();
    const device_list *m = &machine_list;
    expect_selection(m, NULL, 16, (int[]){0, 4, -1});
    expect_selection(m, "", 16, (int[]){0, 4, -1});
    expect_selection(m, "   ", 16, (int[]){0, 4, -1});
    expect_selection(m, "gpu", 16, (int[]){0, 4, -1});
    expect_selection(m, "GPU", 16, (int[]){0, 4, -1});
    expect_selection(m, "cpu", 16, (int[]){1, 2, -1});
    /* @local: one process is the only rank of its machine, and keeps the whole selection */
    expect_selection(m, "gpu@local", 16, (int[]){0, 4, -1});
    expect_selection(m, " 1,2@local ", 16, (int[]){1, 2, -1});
    expect_select_error(m, "tpu@local", "tpu", NULL);
    /* the shares of the ranks of a machine: contiguous runs, or devices shared round */
    int four[4], kept;
    for (int local = 0; local < 2; local++) {
        int ids[4] = {10, 11, 12, 13};
        kept = device_select_share(ids, 4, local, 2);
        CHECK(kept == 2 && ids[0] == 10 + 2 * local && ids[1] == 11 + 2 * local);
    }
    for (int local = 0; local < 3; local++) {
        int ids[2] = {7, 9};
        kept = device_select_share(ids, 2, local, 3);
        CHECK(kept == 1 && ids[0] == (local % 2 ? 9 : 7));
    }
    four[0] = 5;
    CHECK(device_select_share(four, 1, 0, 1) == 1 && four[0] == 5);
    for (int local = 0; local < 3; local++) { /* 4 over 3 ranks: 1, 1, 2 */
        int ids[4] = {0, 1, 2, 3};
        kept = device_select_share(ids, 4, local, 3);
        CHECK(kept == (local == 2 ? 2 : 1) && ids[0] == local);
    }
    expect_selection(m, "all", 16, (int[]){0, 1, 2, 4, -1});
    expect_selection(m, "all", 2, (int[]){0, 1, -1});
    expect_selection(m, "2,0", 16, (int[]){2, 0, -1});
    expect_selection(m, "0,0,2,0", 16, (int[]){0, 2, -1});
    expect_selection(m, " 1 , 2 ", 16, (int[]){1, 2, -1});
    expect_selection(m, "4", 16, (int[]){4, -1});
    expect_selection(m, "pocl:", 16, (int[]){1, 2, -1});
    expect_selection(m, ":pthread", 16, (int[]){1, -1});
    expect_selection(m, "portable:BASIC", 16, (int[]){2, -1});
    expect_selection(m, ":", 16, (int[]){0, 1, 2, 4, -1});
    expect_selection(m, "nvidia", 16, (int[]){0, -1});
    expect_selection(m, "NVIDIA Corporation:h200", 16, (int[]){0, -1});
    expect_selection(m, "skylake", 16, (int[]){1, 2, -1});
    expect_selection(m, "intel", 16, (int[]){4, -1});
    /* Text matches skip unusable devices when a usable one matches. */
    expect_selection(m, ":a", 16, (int[]){0, 1, 2, 4, -1});

    expect_select_error(m, "accelerator", "no usable OpenCL device matches the class 'accelerator'",
                        "0 'NVIDIA H200' (NVIDIA CUDA, gpu)");
    expect_select_error(m, "0,,2", "device list '0,,2' is malformed", "empty element");
    expect_select_error(m, "0,x1", "device list '0,x1' is malformed: 'x1' is not a device index",
                        NULL);
    expect_select_error(m, "1x", "'1x' is not a device index", NULL);
    expect_select_error(m, "0,", "empty element", NULL);
    expect_select_error(m, "99999999999999999999", "is not a device index", NULL);
    expect_select_error(m, "7", "device index 7 in '7' is out of range", "numbered 0 to 4");
    expect_select_error(m, "0,5", "device index 5 in '0,5' is out of range", NULL);
    expect_select_error(m, "3",
                        "device 3 'gfx90a:sramecc+:xnack-' is selected by '3' but cannot be used",
                        "embedded profile without 64-bit integers");
    expect_select_error(m, "amd",
                        "device 3 'gfx90a:sramecc+:xnack-' matches 'amd' but cannot be used",
                        "embedded profile without 64-bit integers");
    expect_select_error(m, "amd:gfx90a:sramecc+", "cannot be used", NULL);
    expect_select_error(m, "nosuch", "no usable OpenCL device matches the text 'nosuch'",
                        "1 'pthread-skylake-avx512' (Portable Computing Language, cpu)");
    expect_select_error(m, "intel:nvidia", "matches the text 'intel:nvidia'", "unusable");

    /* No usable GPU: the default takes every usable device. */
    device_entry cpus[3] = {machine[1], machine[2], machine[3]};
    for (int i = 0; i < 3; i++)
        cpus[i].index = i;
    device_list cpu_list = {cpus, 3};
    expect_selection(&cpu_list, NULL, 16, (int[]){0, 1, -1});
    expect_select_error(&cpu_list, "gpu", "no usable OpenCL device matches the class 'gpu'", NULL);

    /* Nothing usable at all, and nothing at all. */
    device_entry broken[1] = {machine[3]};
    broken[0].index = 0;
    device_list broken_list = {broken, 1};
    cn_error err = {0};
    int idx[4];
    CHECK(device_select(&broken_list, NULL, idx, 4, &err) < 0 && err.code == CN_ERR_INPUT);
    CHECK_CONTAINS(err.msg, "no usable OpenCL device was found");
    device_list empty = {NULL, 0};
    cn_error_clear(&err);
    CHECK(device_select(&empty, NULL, idx, 4, &err) < 0 && err.code == CN_ERR_INPUT);
    CHECK_CONTAINS(err.msg, "no OpenCL platform was found");
    CHECK_CONTAINS(err.msg, "apt-get install pocl-opencl-icd");
    expect_select_error(&empty, "gpu", "no device can be selected by 'gpu'", NULL);
}

/* ---- listing ---- */

static char *listing_of(const device_list *list)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    device_print_listing(list, f);
    fclose(f);
    return text;
}

static void test_listing(void)
{
    make_machine();
    char *text = listing_of(&machine_list);
    CHECK_CONTAINS(text, "platform");
    CHECK_CONTAINS(text, "OpenCL C");
    CHECK_CONTAINS(text, "NVIDIA H200");
    CHECK_CONTAINS(text, "3.0 GiB");
    CHECK_CONTAINS(text, "512 MiB");
    CHECK_CONTAINS(text, "unusable: embedded profile without 64-bit integers");
    CHECK_CONTAINS(text, "5 devices, 4 usable.");
    /* Aligned: the device column starts at the same place on the header and on every row. */
    const char *header_device = strstr(text, "device");
    size_t column = (size_t)(header_device - text);
    const char *line = strchr(text, '\n') + 1;
    for (int i = 0; i < 5; i++) {
        CHECK(strncmp(line + column, machine[i].name, strlen(machine[i].name)) == 0);
        line = strchr(line, '\n') + 1;
    }
    free(text);

    device_list empty = {NULL, 0};
    text = listing_of(&empty);
    CHECK_CONTAINS(text, "No OpenCL platform");
    CHECK_CONTAINS(text, "apt-get install pocl-opencl-icd");
    free(text);
}

/* ---- profiles ---- */

/* PLATFORM's profile is WANT, whose [kernel] flood.transmit_mobile_step (the next window's
 * mobility step inside the transmit launch, host/models/flood/flood_fuse.c) is FUSE_STEP, or
 * absent for -1. */
static void expect_profile(const char *platform, const char *vendor, const char *want,
                           long fuse_step)
{
    device_entry e = synthetic(platform, vendor, "some device", CL_DEVICE_TYPE_GPU, NULL);
    platform_profile p;
    cn_error err = {0};
    CHECK_ERR(platform_profile_load(&e, &p, &err) == 0, err);
    if (strcmp(p.name, want) != 0) {
        test_failures++;
        fprintf(stderr, "platform '%s' got profile %s, expected %s\n", platform, p.name, want);
    }
    /* The determinism contract holds in every profile. */
    CHECK(strstr(p.build_options, "-cl-fast-relaxed-math") == NULL);
    CHECK(strstr(p.build_options, "-cl-mad-enable") == NULL);
    CHECK(p.default_local_size >= 1);
    if (platform_profile_choice(&p, "flood.transmit_mobile_step", -1) != fuse_step) {
        test_failures++;
        fprintf(stderr, "profile %s gives flood.transmit_mobile_step = %ld, expected %ld\n",
                p.name, platform_profile_choice(&p, "flood.transmit_mobile_step", -1),
                fuse_step);
    }
    platform_profile_free(&p);
}

static void expect_profile_error(const char *text, const char *part1, const char *part2)
{
    platform_profile p;
    char match[128];
    cn_error err = {0};
    CHECK(platform_profile_parse("bad.ini", text, &p, match, sizeof match, &err) == CN_ERR_RUNTIME);
    CHECK(err.code == CN_ERR_RUNTIME);
    CHECK_CONTAINS(err.msg, part1);
    if (part2)
        CHECK_CONTAINS(err.msg, part2);
}

static void test_profiles(void)
{
    /* only NVIDIA's profile fuses the step (measured there); the others leave it out: 0 */
    expect_profile("Portable Computing Language", "The pocl project", "pocl.ini", -1);
    expect_profile("NVIDIA CUDA", "NVIDIA Corporation", "nvidia.ini", 1);
    expect_profile("AMD Accelerated Parallel Processing", "Advanced Micro Devices, Inc.",
                   "amd.ini", -1);
    expect_profile("Intel(R) OpenCL Graphics", "Intel(R) Corporation", "intel.ini", -1);
    expect_profile("rusticl", "Mesa/X.org", "rusticl.ini", -1);
    expect_profile("Clover", "Mesa", "default.ini", -1);
    expect_profile("Some Future Platform", "Nobody", "default.ini", -1);
    /* NVIDIA fuses the step up to 12 288 nodes (beyond, the fused kernel is the slower) */
    {
        device_entry nv = synthetic("NVIDIA CUDA", "NVIDIA Corporation", "some device",
                                    CL_DEVICE_TYPE_GPU, NULL);
        platform_profile q;
        cn_error qerr = {0};
        CHECK_ERR(platform_profile_load(&nv, &q, &qerr) == 0, qerr);
        CHECK(platform_profile_choice(&q, "flood.transmit_mobile_step_nodes", -1) == 12288);
        platform_profile_free(&q);
    }

    device_entry pocl = synthetic("Portable Computing Language", "The pocl project", "cpu",
                                  CL_DEVICE_TYPE_CPU, NULL);
    platform_profile p;
    cn_error err = {0};
    CHECK_ERR(platform_profile_load(&pocl, &p, &err) == 0, err);
    CHECK_CONTAINS(p.build_options, "-cl-std=CL1.2");
    CHECK(platform_profile_local_size(&p, "flood.transmit") == 256);
    CHECK(platform_profile_local_size(&p, "no_such_kernel") == p.default_local_size);
    CHECK(platform_profile_local_size(&p, NULL) == p.default_local_size);
    /* CPUs keep one work-item per transmission; NVIDIA's GPUs take a team (its [kernel]) */
    CHECK(platform_profile_choice(&p, "flood.transmit_mobile_team", 0) == 1);
    /* a CPU builds its cell lists with many groups; NVIDIA's GPUs in one up to 12288 nodes */
    CHECK(platform_profile_choice(&p, "cells.one_group_nodes", 7) == 0);
    /* nor from the mobility step's ranks; NVIDIA's GPUs up to 12288 cells */
    CHECK(platform_profile_choice(&p, "cells.ranked_cells", 7) == 0);
    platform_profile_free(&p);
    device_entry nv = synthetic("NVIDIA CUDA", "NVIDIA Corporation", "gpu", CL_DEVICE_TYPE_GPU,
                                NULL);
    CHECK_ERR(platform_profile_load(&nv, &p, &err) == 0, err);
    CHECK(platform_profile_choice(&p, "flood.transmit_mobile_team", 0) == 16);
    CHECK(platform_profile_choice(&p, "cells.one_group_nodes", 0) == 12288);
    CHECK(platform_profile_choice(&p, "cells.ranked_cells", 0) == 12288);
    CHECK(platform_profile_choice(&p, "flood.no_such_choice", 3) == 3);
    CHECK(platform_profile_choice(&p, NULL, 5) == 5);
    platform_profile_free(&p);

    char match[128];
    const char *good = "; comment\n[match]\nplatform = Foo Corp ,  bar \n[build]\noptions = -DX=1\n"
                       "[work_group]\ndefault = 32\nflood.transmit = 128 ; inline comment\n";
    CHECK_ERR(platform_profile_parse("good.ini", good, &p, match, sizeof match, &err) == 0, err);
    CHECK(strcmp(p.build_options, "-DX=1") == 0);
    CHECK(p.default_local_size == 32 && platform_profile_local_size(&p, "flood.transmit") == 128);
    CHECK(p.n_choices == 0 && platform_profile_choice(&p, "flood.transmit_mobile_team", 1) == 1);
    platform_profile_free(&p);
    const char *chosen = "[work_group]\ndefault = 32\n[kernel]\nflood.transmit_mobile_team = 16\n"
                         "phold.other = 2 ; a comment\n";
    char no_match[128];
    CHECK_ERR(platform_profile_parse("kernel.ini", chosen, &p, no_match, sizeof no_match, &err) ==
                  0,
              err);
    CHECK(p.n_choices == 2);
    CHECK(platform_profile_choice(&p, "flood.transmit_mobile_team", 1) == 16);
    CHECK(platform_profile_choice(&p, "phold.other", 1) == 2);
    /* a choice is not a work-group size: the kernel keeps the default */
    CHECK(platform_profile_entry(&p, "flood.transmit_mobile_team") == 0);
    platform_profile_free(&p);
    device_entry bar = synthetic("The Bar Platform", "x", "d", CL_DEVICE_TYPE_GPU, NULL);
    device_entry foo = synthetic("x", "FOO CORP.", "d", CL_DEVICE_TYPE_GPU, NULL);
    device_entry other = synthetic("Foo", "Corp", "d", CL_DEVICE_TYPE_GPU, NULL);
    CHECK(platform_profile_matches(match, &bar));
    CHECK(platform_profile_matches(match, &foo));
    CHECK(!platform_profile_matches(match, &other));
    CHECK(!platform_profile_matches("", &foo));
    CHECK(!platform_profile_matches(" , ", &foo));

    expect_profile_error("[work_group]\ndefault = 64\n\n\nfoo_bar = 12x\n",
                         "platform profile bad.ini, line 5: work-group size '12x'", NULL);
    expect_profile_error("[work_group]\ndefault = 64\n[build]\nflags = -O2\n",
                         "bad.ini, line 4: unknown key 'flags' in [build]", NULL);
    expect_profile_error("[match]\nplatform = x\nthis is not ini\n[work_group]\ndefault = 64\n",
                         "bad.ini, line 3: expected '[section]' or 'key = value'", NULL);
    expect_profile_error("[tuning]\nx = 1\n", "line 2: unknown section [tuning]", NULL);
    expect_profile_error(
        "[build]\noptions = -cl-std=CL1.2 -cl-fast-relaxed-math\n[work_group]\ndefault = 64\n",
        "line 2: build option -cl-fast-relaxed-math is not allowed", "determinism");
    expect_profile_error("[build]\noptions = -cl-mad-enable\n", "-cl-mad-enable is not allowed",
                         NULL);
    expect_profile_error("[work_group]\ndefault = 0\n", "line 2", "not an integer from 1 to 65536");
    expect_profile_error("[work_group]\ndefault = 64\ndefault = 32\n",
                         "line 3: 'default' is given twice", NULL);
    expect_profile_error("[work_group]\ndefault = 64\n9lives = 32\n",
                         "line 3: '9lives' is not a kernel name", NULL);
    expect_profile_error("[build]\noptions =\n", "bad.ini: [work_group] has no 'default' size",
                         NULL);
    expect_profile_error("[work_group]\ndefault = 64\n[kernel]\nteam = 8\n",
                         "line 4: 'team' is not a kernel choice's key (FAMILY.NAME", NULL);
    expect_profile_error("[work_group]\ndefault = 64\n[kernel]\nflood.transmit_mobile_team = 0\n",
                         "line 4: '0' for 'flood.transmit_mobile_team' is not an integer from 1 "
                         "to 65536", NULL);
    /* the one-group cell lists' node count takes 0 (never) and more than a work-group size */
    const char *cells = "[work_group]\ndefault = 32\n[kernel]\ncells.one_group_nodes = 0\n";
    CHECK_ERR(platform_profile_parse("cells.ini", cells, &p, no_match, sizeof no_match, &err) ==
                  0,
              err);
    CHECK(p.n_choices == 1 && platform_profile_choice(&p, "cells.one_group_nodes", 9) == 0);
    platform_profile_free(&p);
    cells = "[work_group]\ndefault = 32\n[kernel]\ncells.one_group_nodes = 2147483647\n";
    CHECK_ERR(platform_profile_parse("cells.ini", cells, &p, no_match, sizeof no_match, &err) ==
                  0,
              err);
    CHECK(platform_profile_choice(&p, "cells.one_group_nodes", 9) == 2147483647L);
    platform_profile_free(&p);
    expect_profile_error("[work_group]\ndefault = 64\n[kernel]\ncells.one_group_nodes = 2147483648\n",
                         "line 4: '2147483648' for 'cells.one_group_nodes' is not a whole number "
                         "from 0 to 2147483647", NULL);
    expect_profile_error("[work_group]\ndefault = 64\n[kernel]\ncells.one_group_nodes = -1\n",
                         "line 4: '-1' for 'cells.one_group_nodes' is not a whole number", NULL);
    expect_profile_error("[kernel]\ncells.one_group_nodes = 99999999999999999999999\n",
                         "line 2: '99999999999999999999999' for 'cells.one_group_nodes' is not",
                         NULL);
    /* the ranked cell lists' cell count likewise */
    cells = "[work_group]\ndefault = 32\n[kernel]\ncells.ranked_cells = 2147483647\n";
    CHECK_ERR(platform_profile_parse("cells.ini", cells, &p, no_match, sizeof no_match, &err) ==
                  0,
              err);
    CHECK(platform_profile_choice(&p, "cells.ranked_cells", 9) == 2147483647L);
    platform_profile_free(&p);
    expect_profile_error("[work_group]\ndefault = 64\n[kernel]\ncells.ranked_cells = 2147483648\n",
                         "line 4: '2147483648' for 'cells.ranked_cells' is not a whole number "
                         "from 0 to 2147483647", NULL);
    /* the fused mobility step is on or off: 0 is a value (its own launch), 2 none */
    cells = "[work_group]\ndefault = 32\n[kernel]\nflood.transmit_mobile_step = 0\n";
    CHECK_ERR(platform_profile_parse("fuse.ini", cells, &p, no_match, sizeof no_match, &err) ==
                  0,
              err);
    CHECK(platform_profile_choice(&p, "flood.transmit_mobile_step", 9) == 0);
    platform_profile_free(&p);
    expect_profile_error("[work_group]\ndefault = 64\n[kernel]\nflood.transmit_mobile_step = 2\n",
                         "line 4: '2' for 'flood.transmit_mobile_step' is not a whole number "
                         "from 0 to 1", NULL);
    /* the fused step's node limit: any whole number (0: never fused) */
    cells = "[work_group]\ndefault = 32\n[kernel]\nflood.transmit_mobile_step_nodes = 0\n";
    CHECK_ERR(platform_profile_parse("fuse.ini", cells, &p, no_match, sizeof no_match, &err) ==
                  0,
              err);
    CHECK(platform_profile_choice(&p, "flood.transmit_mobile_step_nodes", 9) == 0);
    platform_profile_free(&p);
    expect_profile_error("[work_group]\ndefault = 64\n[kernel]\n"
                         "flood.transmit_mobile_step_nodes = -1\n",
                         "line 4: '-1' for 'flood.transmit_mobile_step_nodes' is not a whole "
                         "number from 0 to 2147483647", NULL);
    expect_profile_error("[kernel]\nflood.a = 2\nflood.a = 4\n", "line 3: 'flood.a' is given twice",
                         NULL);
    expect_profile_error("[kernel]\nf.a = 1\nf.b = 1\nf.c = 1\nf.d = 1\nf.e = 1\nf.f = 1\n"
                         "f.g = 1\nf.h = 1\nf.i = 1\n",
                         "line 10: [kernel] has more than 8 entries", NULL);
    expect_profile_error("[tunings]\nx = 1\n", "unknown section [tunings]", "[kernel])");
}

/* ---- include expansion ---- */

static const char *const fake_files[][2] = {
    {"a.cl", "#include \"b.clh\"\nkernel A\n#include \"b.clh\"\n"},
    {"b.clh", "  #  include \"c.clh\"  \nB\n"},
    {"c.clh", "C"}, /* no final newline */
    {"crlf.cl", "#include \"c.clh\"\r\nD\r\n"},
    {"bad.cl", "x\ny\n#include \"missing.clh\"\n"},
    {"deep.cl", "#include \"bad.cl\"\n"},
    {"angle.cl", "#include <stdio.h>\n"},
};

static const char *fake_lookup(const char *name, size_t *len, void *user)
{
    (void)user;
    for (size_t i = 0; i < sizeof fake_files / sizeof fake_files[0]; i++)
        if (strcmp(fake_files[i][0], name) == 0) {
            if (len)
                *len = strlen(fake_files[i][1]);
            return fake_files[i][1];
        }
    return NULL;
}

static void test_expand(void)
{
    char *out = NULL;
    cn_error err = {0};
    const char *a[] = {"a.cl"};
    CHECK_ERR(device_expand_sources(a, 1, fake_lookup, NULL, &out, &err) == 0, err);
    const char *want =
        "#line 1 \"a.cl\"\n#line 1 \"b.clh\"\n#line 1 \"c.clh\"\nC\n#line 2 \"b.clh\"\n"
        "B\n#line 2 \"a.cl\"\nkernel A\n#line 4 \"a.cl\"\n";
    if (!out || strcmp(out, want) != 0) {
        test_failures++;
        fprintf(stderr, "expansion of a.cl:\n%s\nexpected:\n%s\n", out ? out : "(null)", want);
    }
    free(out);

    /* A top-level source that is also included goes in once. */
    const char *two[] = {"c.clh", "b.clh"};
    CHECK_ERR(device_expand_sources(two, 2, fake_lookup, NULL, &out, &err) == 0, err);
    CHECK(out &&
          strcmp(out, "#line 1 \"c.clh\"\nC\n#line 1 \"b.clh\"\n#line 2 \"b.clh\"\nB\n") == 0);
    free(out);

    const char *crlf[] = {"crlf.cl"};
    CHECK_ERR(device_expand_sources(crlf, 1, fake_lookup, NULL, &out, &err) == 0, err);
    CHECK(out && strstr(out, "#line 1 \"c.clh\"\nC\n#line 2 \"crlf.cl\"\nD\r\n"));
    free(out);

    const char *angle[] = {"angle.cl"};
    CHECK_ERR(device_expand_sources(angle, 1, fake_lookup, NULL, &out, &err) == 0, err);
    CHECK(out && strstr(out, "#include <stdio.h>\n"));
    free(out);

    const char *bad[] = {"deep.cl"};
    out = (char *)1;
    CHECK(device_expand_sources(bad, 1, fake_lookup, NULL, &out, &err) == CN_ERR_RUNTIME);
    CHECK(out == NULL);
    CHECK_CONTAINS(err.msg, "bad.cl, line 3: #include \"missing.clh\" names no embedded file");
    cn_error_clear(&err);
    const char *missing[] = {"a.cl", "nofile.cl"};
    CHECK(device_expand_sources(missing, 2, fake_lookup, NULL, &out, &err) == CN_ERR_RUNTIME);
    CHECK_CONTAINS(err.msg, "OpenCL source 'nofile.cl' is not embedded");
    cn_error_clear(&err);

    /* The real, embedded self-test pulls in the Philox header. */
    const char *selftest[] = {"core/selftest.cl"};
    CHECK_ERR(device_expand_sources(selftest, 1, NULL, NULL, &out, &err) == 0, err);
    CHECK(out && strstr(out, "inline uint4 philox4x32_10") &&
          strstr(out, "__kernel void selftest_philox"));
    CHECK(out && !strstr(out, "#include \"philox.clh\""));
    free(out);
}

/* ---- work-group sizes without a device ---- */

static void test_local_size_synthetic(void)
{
    device_ctx dev;
    memset(&dev, 0, sizeof dev);
    dev.info = synthetic("Portable Computing Language", "The pocl project", "cpu",
                         CL_DEVICE_TYPE_CPU, NULL);
    cn_error err = {0};
    CHECK_ERR(platform_profile_load(&dev.info, &dev.profile, &err) == 0, err);
    dev.info.max_work_group = 4096;
    CHECK(device_local_size(&dev, "flood.transmit", NULL) == 256);
    dev.info.max_work_group = 100; /* below the profile: clamped, then a power of two */
    CHECK(device_local_size(&dev, "flood.transmit", NULL) == 64);
    dev.info.max_work_group = 4096;
    dev.local_size_override = 48;
    CHECK(device_local_size(&dev, "flood.transmit", NULL) == 32);
    dev.local_size_override = 3000;
    CHECK(device_local_size(&dev, "flood.transmit", NULL) == 2048);
    dev.local_size_override = 1;
    CHECK(device_local_size(&dev, "flood.transmit", NULL) == 1);
    dev.local_size_override = 1u << 20;
    CHECK(device_local_size(&dev, "flood.transmit", NULL) == 4096);
    dev.info.max_work_group = 0; /* unknown limit: the value itself, still a power of two */
    dev.local_size_override = 0;
    CHECK(device_local_size(&dev, "cells.cell_count", NULL) == 512);
    device_close(&dev);
}

/* Kernel keys: FAMILY.NAME from the folder under cl/ (the file's stem in cl/common) and the C
 * name without a leading "FAMILY_"; both directions, from the embedded sources. */
static void expect_key(const char *c_name, const char *key)
{
    char got[128];
    CHECK(device_kernel_key(c_name, got, sizeof got) == 0 && strcmp(got, key) == 0);
    CHECK(device_kernel_c_name(key, got, sizeof got) == 0 && strcmp(got, c_name) == 0);
}

static void test_kernel_keys(void)
{
    expect_key("transmit", "flood.transmit");
    expect_key("flood_packets", "flood.packets");
    expect_key("flood_packets_one", "flood.packets_one");
    expect_key("res_link", "flood.res_link");
    expect_key("scan_blocks", "cells.scan_blocks");
    expect_key("phold_execute", "phold.execute");
    expect_key("selftest_philox", "core.selftest_philox");
    expect_key("probe_loops", "core.probe_loops");
    char got[128];
    CHECK(device_kernel_key("scan_sums", got, sizeof got) == -1);
    CHECK(device_kernel_c_name("flood.scan_blocks", got, sizeof got) == -1);
    CHECK(device_kernel_c_name("transmit", got, sizeof got) == -1);

    /* a dotted key is accepted and sizes its kernel, others keep the default */
    const char *text = "[work_group]\ndefault = 64\nphold.execute = 32\ncells.scan_blocks = 512\n";
    device_ctx dev;
    memset(&dev, 0, sizeof dev);
    char match[128];
    cn_error err = {0};
    CHECK_ERR(
        platform_profile_parse("keys.ini", text, &dev.profile, match, sizeof match, &err) == 0,
        err);
    dev.info.max_work_group = 4096;
    CHECK(device_local_size(&dev, "phold.execute", NULL) == 32);
    CHECK(device_local_size(&dev, "cells.scan_blocks", NULL) == 512);
    CHECK(device_local_size(&dev, "phold.min", NULL) == 64);
    device_close(&dev);

    /* an entry of the old bare names is refused with the key that replaced it */
    expect_profile_error("[work_group]\ndefault = 64\n\ntransmit = 128\n",
                         "platform profile bad.ini, line 4: 'transmit' is a bare kernel name: "
                         "[work_group] keys name the kernel's family, write 'flood.transmit'",
                         NULL);
    expect_profile_error("[work_group]\ndefault = 64\nflood_packets = 1\n",
                         "line 3: 'flood_packets' is a bare kernel name", "write 'flood.packets'");
    expect_profile_error("[work_group]\ndefault = 64\nscan_sums = 256\n",
                         "line 3: 'scan_sums' is not a kernel key (FAMILY.KERNEL, such as "
                         "flood.transmit)", NULL);
    expect_profile_error("[work_group]\ndefault = 64\nflood. = 1\n",
                         "line 3: 'flood.' is not a kernel name", NULL);

    /* every entry of the shipped profiles names a kernel of cl/ (none tunes nothing) */
    for (size_t i = 0; i < embedded_count(); i++) {
        const struct embedded_entry *f = embedded_at(i);
        size_t n = strlen(f->name);
        if (n < 4 || strcmp(f->name + n - 4, ".ini") != 0 || strchr(f->name, '/'))
            continue;
        platform_profile p;
        CHECK_ERR(platform_profile_parse(f->name, f->data, &p, match, sizeof match, &err) == 0,
                  err);
        for (int k = 0; k < p.n_kernels; k++) {
            int named = device_kernel_c_name(p.work_group[k].kernel, got, sizeof got) == 0;
            if (!named)
                fprintf(stderr, "%s: '%s' names no kernel\n", f->name, p.work_group[k].kernel);
            CHECK(named);
        }
        platform_profile_free(&p);
    }
}

/* No table of kernels has a fixed size: a profile of 100 entries (more than the programs
 * hold today) keeps each, and a device records the size of each of 100 kernels it sizes. */
static void test_many_kernels(void)
{
    enum { N = 100 };
    char text[N * 32 + 64] = "[work_group]\ndefault = 64\n";
    for (int i = 0; i < N; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "t.k%d = %d\n", i, 1 << (i % 8));
    device_ctx dev;
    memset(&dev, 0, sizeof dev);
    char match[128];
    cn_error err = {0};
    CHECK_ERR(platform_profile_parse("many.ini", text, &dev.profile, match, sizeof match, &err) == 0,
              err);
    CHECK(dev.profile.n_kernels == N);
    dev.info.max_work_group = 4096;
    char name[16], want[16], sizes[4096];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "t.k%d", i);
        CHECK(device_local_size(&dev, name, NULL) == (size_t)1 << (i % 8));
        device_shape_mark_bad(&dev, name, 4);
    }
    CHECK(dev.n_local_used == N && dev.n_bad == N && dev.n_noted == N);
    CHECK(device_shape_bad(&dev, "t.k99", 4) && !device_shape_bad(&dev, "t.k99", 8));
    device_local_sizes_text(&dev, sizes, sizeof sizes);
    snprintf(want, sizeof want, " t.k99=%d", 1 << (99 % 8));
    CHECK(strstr(sizes, want) != NULL && strncmp(sizes, "t.k0=1 t.k1=2 t.k10=4 ", 22) == 0);
    device_close(&dev);
    CHECK(dev.local_used == NULL && dev.n_bad == 0 && dev.profile.work_group == NULL);
}

/* Run with OCL_ICD_VENDORS pointing at an empty directory: the ICD loader then finds no
 * driver at all, which must be an empty list and a helpful message, not an error. */
static int test_no_platform(void)
{
    device_list list = {0};
    cn_error err = {0};
    CHECK_ERR(device_enumerate(&list, &err) == 0, err);
    if (list.count > 0) {
        /* Debian's ocl-icd honours OCL_ICD_VENDORS; some other loaders (the one of NVIDIA's
         * images, for one) ignore it, and then there is no way to hide the drivers here. */
        printf("test_device --no-platform: skipped, this ICD loader ignores OCL_ICD_VENDORS\n");
        device_list_free(&list);
        return 77;
    }
    CHECK(list.count == 0 && list.items == NULL);
    char *text = listing_of(&list);
    CHECK_CONTAINS(text, "No OpenCL platform");
    free(text);
    int idx[4];
    CHECK(device_select(&list, NULL, idx, 4, &err) < 0 && err.code == CN_ERR_INPUT);
    CHECK_CONTAINS(err.msg, "apt-get install pocl-opencl-icd");
    device_list_free(&list);
    printf("test_device --no-platform: %s\n", test_failures ? "FAILED" : "all checks passed");
    return test_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--no-platform") == 0)
        return test_no_platform();
    test_status();
    test_select();
    test_listing();
    test_profiles();
    test_expand();
    test_local_size_synthetic();
    test_many_kernels();
    test_kernel_keys();
    test_opencl();
    if (test_failures) {
        fprintf(stderr, "test_device: %d check(s) failed\n", test_failures);
        return 1;
    }
    printf("test_device: all checks passed\n");
    return 0;
}

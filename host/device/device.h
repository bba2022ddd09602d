/* OpenCL device layer: enumeration, selection, contexts and queues, program builds with a
 * persistent binary cache, platform profiles, and the per-device known-answer self-test.
 * Everything that talks to OpenCL for setup lives here; models only enqueue kernels on the
 * queues they are handed. */
#ifndef CLNETSIM_DEVICE_H
#define CLNETSIM_DEVICE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <CL/cl.h>

#include "common/error.h"

/* Name of an OpenCL status code, e.g. "CL_OUT_OF_RESOURCES". */
const char *cl_status_name(cl_int status);

/* Checks an OpenCL status: on failure fills ERR with "WHAT failed on device DEV: NAME (code)"
 * plus what it usually means, and returns CN_ERR_RUNTIME; returns 0 on CL_SUCCESS. */
int cl_check(cl_int status, const char *what, const char *device_name, cn_error *err);
/* cn_fail for a failure on the device whose device_ctx's info.name is DEVICE_NAME: when this
 * sets ERR, ERR->device names the device too (common/error.h), so that a run can go on
 * without it. */
int device_fail(cn_error *err, const char *device_name, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

typedef struct device_entry {
    int index;                 /* position in the listing of `clnetsim devices` */
    cl_platform_id platform;
    cl_device_id id;
    char platform_name[128];
    char platform_vendor[128];
    char name[256];
    char vendor[128];
    char version[128];         /* CL_DEVICE_VERSION */
    char c_version[128];       /* CL_DEVICE_OPENCL_C_VERSION */
    char driver[128];          /* CL_DRIVER_VERSION */
    cl_device_type type;
    cl_uint compute_units;
    cl_ulong global_mem;
    cl_ulong max_alloc;
    cl_ulong local_mem;        /* CL_DEVICE_LOCAL_MEM_SIZE */
    int host_memory;           /* its memory is the host's: a CPU device, or
                                * CL_DEVICE_HOST_UNIFIED_MEMORY */
    size_t max_work_group;
    int usable;                /* 0: listed but cannot run clnetsim, see reason */
    char reason[256];
} device_entry;

typedef struct device_list {
    device_entry *items;
    int count;
} device_list;

/* Enumerates every platform and device. No platform at all is not an error here: the list is
 * empty and device_select() explains. Devices that cannot be used (no 64-bit integers, no
 * compiler, OpenCL < 1.2, no global atomics) are listed with usable = 0 and a reason. */
int device_enumerate(device_list *out, cn_error *err);
void device_list_free(device_list *list);
const char *device_type_name(cl_device_type type); /* "cpu", "gpu", "accelerator", ... */
/* The host memory available to new allocations, in bytes: MemAvailable of /proc/meminfo,
 * else the free physical pages (sysconf); 0 when neither is known. The test hook
 * CLNETSIM_TEST_HOST_MEMORY=SIZE (bytes, or with a K, M, G or T suffix) replaces it. */
uint64_t device_host_available(void);

/* The table of `clnetsim devices`: index, platform, name, type, compute units, global memory,
 * max allocation, OpenCL C version, driver version; unusable devices with their reason. An
 * empty list prints a clear "no OpenCL platform" message with what to install. */
void device_print_listing(const device_list *list, FILE *out);

/* Selects devices by SPEC: "cpu", "gpu", "all", comma-separated indices ("0,2"), or
 * "platform-text:device-text" (case-insensitive substrings, either may be empty). NULL or ""
 * means the default: every usable GPU, else every usable device. Writes up to MAX indices
 * into the listing, returns the number selected (> 0) or a negative value with ERR set
 * (CN_ERR_INPUT) when nothing usable matches. */
int device_select(const device_list *list, const char *spec, int *indices, int max, cn_error *err);
/* SPEC ending in "@local" ("gpu@local", "0,1@local"): of the devices the rest selects, the
 * share of this process among the MPI ranks of its machine (dist_local_rank), as
 * device_select_share gives it: one GPU per rank on a machine with as many GPUs as ranks.
 * device_select applies it; this is the rule alone. With N selected devices, in order, and
 * LOCAL_SIZE ranks on the machine: when N >= LOCAL_SIZE, rank LOCAL gets the contiguous run
 * [LOCAL N / LOCAL_SIZE, (LOCAL + 1) N / LOCAL_SIZE); otherwise device LOCAL mod N (ranks
 * share devices). Narrows INDICES in place and returns the count kept (>= 1 when N >= 1). */
int device_select_share(int *indices, int n, int local, int local_size);

/* Per-platform tuning profile (an embedded platforms/NAME.ini file). */
#define PLATFORM_MAX_CHOICES 8
typedef struct platform_profile {
    char name[64];             /* profile file, e.g. "pocl.ini" */
    char build_options[512];   /* extra options for clBuildProgram */
    int n_kernels, cap_kernels; /* [work_group] entries: as many as the file gives */
    struct platform_work_group { char kernel[64]; size_t local_size; } *work_group;
    size_t default_local_size; /* for kernels without an entry */
    /* [kernel] entries: a kernel's compile-time choices other than its work-group size, by
     * key FAMILY.KERNEL_CHOICE (flood.transmit_mobile_team), each a whole number that the
     * model reading it checks */
    int n_choices;
    struct platform_choice { char key[64]; long value; } choices[PLATFORM_MAX_CHOICES];
} platform_profile;

/* Finds the profile whose [match] platform/vendor substrings fit the device; falls back to
 * default.ini. */
int platform_profile_load(const device_entry *dev, platform_profile *out, cn_error *err);

/* Frees P's [work_group] table (device_close frees its device's profile). */
void platform_profile_free(platform_profile *p);

/* Work-group size for KERNEL from the profile (never above the device maximum). */
size_t platform_profile_local_size(const platform_profile *p, const char *kernel);
/* The profile's own entry for KERNEL, or 0 when it only has its default for it. */
size_t platform_profile_entry(const platform_profile *p, const char *kernel);
/* The profile's [kernel] entry KEY, or FALLBACK when it has none. */
long platform_profile_choice(const platform_profile *p, const char *key, long fallback);

#define DEVICE_MAX_LOCAL_ARGS 8 /* __local arguments of one kernel */

/* Failures a test asks for through CLNETSIM_TEST_FAIL (device_fault.c), so that the real
 * error paths of a build, an allocation and a launch run on a healthy device. */
typedef struct device_fault {
    int armed;              /* CLNETSIM_TEST_FAIL names this device (else nothing below) */
    int build;              /* every program build fails */
    int64_t alloc_at;       /* the allocation of this number (1: the first) fails; 0: none */
    int64_t allocs;         /* allocations counted so far */
    int64_t enqueue_at;     /* the first kernel launch in this window fails; -1: none */
    int64_t lost_at;        /* the device is lost after its first launch here; -1: never */
    int64_t window;         /* the window (or round of whole packets) under way */
    int enqueue_fired, lost;
    /* CLNETSIM_TEST_BREAK_KERNEL: kernels built wrong on purpose on this device (a mask of
     * the TEST_BREAK bits of cl/common/test_break.clh; 0: none), passed as -DTEST_BREAK=MASK to its
     * programs only */
    unsigned break_mask;
} device_fault;

/* A kernel shape: a kernel run in work-groups of one size. The self-test (host/bench/shapes.c)
 * compares every shape a run may choose with the sequential reference; those that differ are
 * kept per device, and the places that choose a shape consult them. */
typedef struct device_shape {
    char kernel[64];
    size_t size;
} device_shape;

/* The lists of shapes below grow with the kernels a run uses: the programs hold as many
 * kernels as their models need, so no table of them has a fixed size. Puts (KERNEL, SIZE) in
 * the list *ITEMS of *N entries and room for *CAP: with BY_KERNEL, an entry for KERNEL gets
 * SIZE; otherwise the pair is added unless it is there. Returns -1 when out of memory (the
 * list is left as it was). */
int device_shape_put(device_shape **items, int *n, int *cap, const char *kernel, size_t size,
                     int by_kernel);

/* One opened device: context, in-order profiling queue, profile. */
typedef struct device_ctx {
    device_entry info;
    cl_context context;
    cl_command_queue queue;
    platform_profile profile;
    size_t local_size_override; /* 0: profile; else --work-group for every kernel */
    int last_build_cached;      /* 1 when the last device_build_program came from the cache */
    double build_s;             /* seconds spent in device_build_program: builds, cache loads */
    /* The work-group size device_local_size chose for each kernel, for reports (bench). */
    int n_local_used, cap_local_used;
    device_shape *local_used;
    /* Sizes measured by the tuner (host/bench/tune.c) for kernels the profile has no entry
     * for; loaded from the tuning cache. */
    int n_tuned, cap_tuned;
    device_shape *tuned;
    /* The models whose kernels the tuner measured ("flood phold"): those tuned[] covers. */
    char tuned_models[128];
    /* Kernel timing for the tuner: when on, every launch is profiled per kernel name. */
    struct device_kernel_timer *timer;
    int ordinal;                /* its place among the devices the command opened, from 0 */
    device_fault fault;
    /* Shapes that failed the self-test on this device: never used here. */
    int n_bad, cap_bad;
    device_shape *bad;
    /* Shapes launched since the self-test last cleared the list (device_shape_note). */
    int n_noted, cap_noted;
    device_shape *noted;
    /* The run went on without it ([devices] on_failure = continue): why, its error's first
     * line (kept for the report). */
    int failed;
    char failure[512];
    /* The loop probe (device_loops.c): whether it ran, and the iterations after which the
     * device ends a work-item's loops (0: it runs them to their end). */
    int loops_probed;
    uint32_t loop_limit;
    /* What each kernel made by device_create_kernel needs of the device (device_fit.c). */
    struct device_kernel_need *needs;
    int n_needs, cap_needs;
} device_ctx;

int device_open(device_ctx *dev, const device_entry *entry, cn_error *err);
void device_close(device_ctx *dev);
/* Records that the run goes on without DEV because of the error MSG (its first line). */
void device_mark_failed(device_ctx *dev, const char *msg);

/* ---- test hooks (device_fault.c, docs/user-guide.md "Environment") ----
 * CLNETSIM_TEST_FAIL="ENTRY[,ENTRY...]" makes calls on the device of ordinal D fail as a
 * broken or lost device would: `build@D` every program build (CL_BUILD_PROGRAM_FAILURE),
 * `alloc@D:N` its N-th buffer allocation, counted from 1 (CL_MEM_OBJECT_ALLOCATION_FAILURE),
 * `enqueue@D:W` its first kernel launch in window W, or round W of whole packets
 * (CL_OUT_OF_RESOURCES), `lost@D:W` every read, write and launch after its first launch in
 * window W, which is enqueued (CL_DEVICE_NOT_AVAILABLE: the device vanished while it ran).
 * Entries that do not parse are ignored. */

/* Gives DEV its ORDINAL and the failures CLNETSIM_TEST_FAIL asks of it (after device_open). */
void device_fault_arm(device_ctx *dev, int ordinal);
/* Whether the build or the allocation about to be made must fail (allocations are counted:
 * one fails). */
int device_fault_build(const device_ctx *dev);
int device_fault_alloc(device_ctx *dev);
/* The status a kernel launch, or a read, write or fill, about to be made must fail with;
 * CL_SUCCESS: make the call. */
cl_int device_fault_launch(device_ctx *dev);
cl_int device_fault_transfer(const device_ctx *dev);
/* The engine's window (or round) under way, for enqueue@D:W and lost@D:W. */
void device_fault_window(device_ctx *dev, int64_t window);

/* CLNETSIM_TEST_BREAK_KERNEL="NAME@D[,NAME@D...]" builds kernel NAME wrong on the device of
 * ordinal D (it ignores odd-numbered neighbours), so that the self-test's detection of a
 * miscompiled kernel can be tested on a healthy device. NAME is a kernel key: flood.packets,
 * flood.packets_one, flood.packets_local, flood.packets_scheme, flood.transmit,
 * flood.transmit_mobile, phold.results, cells.rank_nodes (the cell lists' ranks: node 0 in
 * the wrong cell, there and in every kernel that ranks as it moves), or all (every one of
 * them). Entries that do not parse are ignored. Read by device_fault_arm. */

/* ---- kernel shapes (device_shapes.c) ---- */

/* Whether KERNEL at work-group size SIZE failed the self-test on DEV. */
int device_shape_bad(const device_ctx *dev, const char *kernel, size_t size);
/* Records that KERNEL at SIZE failed (once; the list grows as needed). */
void device_shape_mark_bad(device_ctx *dev, const char *kernel, size_t size);
/* Records that KERNEL ran at SIZE, for the self-test's blame (DEV->noted). */
void device_shape_note(device_ctx *dev, const char *kernel, size_t size);
/* SIZE when KERNEL is not known bad there, else the nearest power of two that is not, below
 * SIZE first, then above it up to LIMIT; SIZE again when every one is bad. */
size_t device_shape_avoid(const device_ctx *dev, const char *kernel, size_t size, size_t limit);
/* The self-test's verdicts for DEV and the model MODEL, cached like the tuning
 * (shapes-HASH.ini, keyed by the model's name, the device, its driver, clnetsim's version, the
 * kernels' source, the build options and SIZES, the work-group sizes tested): path in BUF, 0
 * when there is no cache directory (CLNETSIM_NO_CACHE=1). */
int device_shapes_path(const device_ctx *dev, const char *model, const char *sizes, char *buf,
                       size_t cap);
/* Adds the cached verdicts of MODEL to DEV->bad, and puts into REFUSED the kernel that failed
 * in every shape when the device was refused ("" otherwise): 0 when loaded, -1 when there is
 * no usable cache (none, damaged, or written for another model). */
int device_shapes_load(device_ctx *dev, const char *model, const char *sizes, char *refused,
                       size_t cap);
/* Writes MODEL's verdicts, DEV->bad from index FROM on, and REFUSED (a kernel name, or NULL or
 * "") atomically; -1 when it could not. */
int device_shapes_store(const device_ctx *dev, const char *model, int from, const char *sizes,
                        const char *refused);

/* ---- tuning: the measured work-group sizes of kernels the profile has no entry for ----
 * Cached next to the kernel binaries, one file per device, driver, clnetsim version and kernel
 * source ("tune-HASH.ini", an INI [work_group] section, and [tuned] models = the models whose
 * kernels were measured, each model's kernels named by their keys). */

/* Path of DEV's tuning cache in BUF; 0 when there is no cache directory. */
int device_tune_path(const device_ctx *dev, char *buf, size_t cap);
/* Loads DEV's tuning cache into DEV->tuned and DEV->tuned_models ("" for a file written
 * before the list): 0 when loaded, -1 when there is none or it cannot be used (a damaged
 * cache is ignored: it is measured again). */
int device_tune_load(device_ctx *dev);
/* Writes DEV->tuned and DEV->tuned_models atomically (nothing when there is no cache
 * directory); NOTE is written as a comment. Returns 0, or -1 when the file could not be
 * written. */
int device_tune_store(const device_ctx *dev, const char *note);

/* Per-kernel device time of every launch while on (the tuner's measurement). */
int device_kernel_timer_start(device_ctx *dev, cn_error *err);
/* Called by the launch helper for each enqueued kernel: takes a reference on EV. */
void device_kernel_timer_add(device_ctx *dev, const char *kernel, cl_event ev);
/* Waits for the launches so far and gives the seconds of KERNEL since the last reset, or -1
 * when it was not launched. */
double device_kernel_timer_seconds(device_ctx *dev, const char *kernel);
/* Clears the sums (the timer stays on). */
void device_kernel_timer_reset(device_ctx *dev);
void device_kernel_timer_stop(device_ctx *dev);
/* Prints the time each kernel took on DEV since the timer started (profiling events: device
 * time, start to end), most first, as a table under a heading naming the device. */
void device_kernel_timer_print(device_ctx *dev, FILE *out);

/* Work-group size to use for KERNEL on DEV: --work-group, else the profile's entry for the
 * kernel, else the tuned size, else the profile's default; clamped to the device and the
 * kernel's own limit when KERNEL_OBJ is given, and moved off a size at which KERNEL failed the
 * self-test (device_shape_avoid); recorded in DEV->local_used and noted as a shape. */
size_t device_local_size(device_ctx *dev, const char *kernel, cl_kernel kernel_obj);

/* Same, for a kernel with at most CAP useful work-items per group: a larger choice from the
 * profile or the tuning is cut to the power of two at or below CAP (--work-group is not).
 * Not noted as a shape: the caller picks among kernel variants at this size and notes the one
 * it runs (whole packets, host/models/flood/flood_packets.c). */
size_t device_local_size_capped(device_ctx *dev, const char *kernel, cl_kernel kernel_obj,
                                size_t cap);

/* Bytes of the __local arguments the host gives a kernel launched with work-groups of SIZE
 * (USER: the caller's data). */
typedef cl_ulong (*local_args_fn)(size_t size, const void *user);

/* Same, for a kernel whose __local arguments take LOCAL_ARGS(SIZE, USER) bytes (NULL: none):
 * the size is also halved until the kernel's own local memory (CL_KERNEL_LOCAL_MEM_SIZE)
 * plus those arguments fit the device's (CL_DEVICE_LOCAL_MEM_SIZE), --work-group's included;
 * at 1 it stays, and the launch check (device_launch_fits) says what does not fit. CAP 0:
 * no cap. A size the tuner offers that a kernel cannot take is thus recorded smaller, and
 * the tuner skips it. A size that failed the kernel-shape self-test is avoided, as by
 * device_local_size. */
size_t device_local_size_fit(device_ctx *dev, const char *kernel, cl_kernel kernel_obj,
                             size_t cap, local_args_fn local_args, const void *user);
/* The work-group size of a tree reduction whose work-items each take ITEM_BYTES of __local
 * memory: device_local_size_fit's, down to a power of two (each step halves the group). */
size_t device_reduce_size(device_ctx *dev, const char *kernel, cl_kernel kernel_obj,
                          size_t item_bytes);
/* The same without avoiding the self-test's failed sizes, for a caller that picks among
 * variants of a kernel itself (whole packets, flood_packets.c). */
size_t device_local_size_variants(device_ctx *dev, const char *kernel, cl_kernel kernel_obj,
                                  size_t cap, local_args_fn local_args, const void *user);

/* The size device_local_size would choose for KERNEL before the device's limits for that
 * kernel object and the self-test's verdicts, without recording it. */
size_t device_local_size_natural(const device_ctx *dev, const char *kernel);

/* "name=size name=size ..." of DEV->local_used in BUF, kernels sorted by name. */
void device_local_sizes_text(const device_ctx *dev, char *buf, size_t cap);

/* Builds the program made of the embedded files SOURCES (in order; `#include "x.clh"` lines
 * are expanded from the embedded files) with OPTIONS plus the profile's options, using the
 * binary cache: $XDG_CACHE_HOME/clnetsim, else ~/.cache/clnetsim, keyed by a hash of the
 * expanded source, the options, the device name, the driver version and the clnetsim version.
 * CLNETSIM_NO_CACHE=1 disables the cache. A build failure reports the device and the log. */
int device_build_program(device_ctx *dev, const char *const *sources, int n_sources,
                         const char *options, cl_program *out, cn_error *err);

/* Directory of the binary cache ($XDG_CACHE_HOME/clnetsim, else $HOME/.cache/clnetsim) in
 * BUF; returns 0 when there is none (CLNETSIM_NO_CACHE=1, no HOME, or BUF too small). */
int device_cache_dir(char *buf, size_t cap);

/* Runs the Philox known-answer kernel of cl/core/selftest.cl on DEV; a mismatch refuses the device
 * with a message naming it and the first wrong word. */
int device_selftest(device_ctx *dev, cn_error *err);

/* Sets *LIMIT to the number of loop iterations after which DEV ends a work-item's loops in
 * all, 0 when it runs them to their end (measured once per opened device by cl/core/loops.cl;
 * CLNETSIM_TEST_LOOP_LIMIT lowers it, for the tests). A device whose loops compute wrong
 * values is refused. */
int device_loop_limit(device_ctx *dev, uint32_t *limit, cn_error *err);

/* The empty window's cost on a device (device_floor.c, cl/core/floor.cl), medians of 201
 * windows after 20 untimed ones: WINDOW_US from a one-item kernel's launch (with an event, as
 * models launch) to its result read back (non-blocking, waited for); LAUNCH_US the host's time
 * in that launch call. */
typedef struct device_floor {
    double window_us, launch_us;
} device_floor;
int device_window_floor(device_ctx *dev, device_floor *out, cn_error *err);

/* Kernel keys (device_keys.c): FAMILY.NAME, the kernel's folder under cl/ (or its file's stem
 * in cl/common) and its C name without a leading "FAMILY_" (flood.transmit, flood.packets,
 * cells.scan_blocks, phold.execute). The key of the kernel of C name C_NAME, or the C name of
 * KEY, from the embedded sources; 0, or -1 when no kernel has it. */
int device_kernel_key(const char *c_name, char *key, size_t cap);
int device_kernel_c_name(const char *key, char *c_name, size_t cap);

/* Kernel creation with a checked status; the kernel's own needs are recorded for the launch
 * check (device_kernel_register). NAME is a kernel key (or, without a dot, the C name). */
int device_create_kernel(device_ctx *dev, cl_program program, const char *name, cl_kernel *out,
                         cn_error *err);

/* ---- what kernels need of the device (device_fit.c) ---- */

/* Records KERNEL's own local memory (CL_KERNEL_LOCAL_MEM_SIZE, before any __local argument)
 * and work-group limit (CL_KERNEL_WORK_GROUP_SIZE); a handle given again starts afresh. */
int device_kernel_register(device_ctx *dev, cl_kernel kernel, cn_error *err);
/* Records that argument INDEX of KERNEL is a __local area of BYTES (kernel_args does). */
void device_kernel_local_arg(device_ctx *dev, cl_kernel kernel, cl_uint index, size_t bytes);
/* KERNEL's own local memory: recorded, else asked. */
cl_ulong device_kernel_local_own(const device_ctx *dev, cl_kernel kernel);
/* The device's local memory (CL_DEVICE_LOCAL_MEM_SIZE, or less under
 * CLNETSIM_TEST_LOCAL_MEMORY). */
cl_ulong device_local_limit(const device_ctx *dev);
/* Whether a launch of KERNEL (named NAME) with work-groups of LOCAL fits DEV: the device's and
 * the kernel's work-group limits, and local memory (its own plus the __local arguments set).
 * Returns 0, or fails with one sentence naming the kernel, the device and the limit. Kernels
 * not made by device_create_kernel are not checked. */
int device_launch_fits(device_ctx *dev, cl_kernel kernel, const char *name, size_t local,
                       cn_error *err);
/* Forgets every record (device_close). */
void device_kernels_forget(device_ctx *dev);

/* Elapsed seconds between START and END of a profiled event (0 if unavailable). */
double device_event_seconds(cl_event ev);

#endif

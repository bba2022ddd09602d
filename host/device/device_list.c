/* Enumeration of every OpenCL platform and device, and the table of `clnetsim devices`.
 *
 * Enumeration never gives up on the whole machine because one driver misbehaves: a platform
 * whose devices cannot be queried, or a device that does not answer a query, becomes a row
 * marked unusable with the reason, and the other devices stay selectable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/device_internal.h"

/* Returned by the ICD loader when no driver is registered (cl_khr_icd); not in the 1.2
 * headers that we build against. */
#define STATUS_PLATFORM_NOT_FOUND_KHR (-1001)

const char *device_type_name(cl_device_type type)
{
    /* A device may carry several bits (e.g. DEFAULT together with GPU); the kind of hardware
     * is what users select by. */
    if (type & CL_DEVICE_TYPE_GPU)
        return "gpu";
    if (type & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    if (type & CL_DEVICE_TYPE_CPU)
        return "cpu";
    if (type & CL_DEVICE_TYPE_CUSTOM)
        return "custom";
    return "other";
}

/* Fetches a string of any length (some drivers return long version strings), trimmed and
 * truncated to CAP. */
static cl_int platform_string(cl_platform_id p, cl_platform_info what, char *buf, size_t cap)
{
    size_t size = 0;
    cl_int st = clGetPlatformInfo(p, what, 0, NULL, &size);
    if (st != CL_SUCCESS)
        return st;
    char *tmp = calloc(size + 1, 1);
    if (!tmp)
        return CL_OUT_OF_HOST_MEMORY;
    st = clGetPlatformInfo(p, what, size, tmp, NULL);
    if (st == CL_SUCCESS)
        str_copy_trimmed(buf, cap, tmp);
    free(tmp);
    return st;
}

static cl_int device_string(cl_device_id d, cl_device_info what, char *buf, size_t cap)
{
    size_t size = 0;
    cl_int st = clGetDeviceInfo(d, what, 0, NULL, &size);
    if (st != CL_SUCCESS)
        return st;
    char *tmp = calloc(size + 1, 1);
    if (!tmp)
        return CL_OUT_OF_HOST_MEMORY;
    st = clGetDeviceInfo(d, what, size, tmp, NULL);
    if (st == CL_SUCCESS)
        str_copy_trimmed(buf, cap, tmp);
    free(tmp);
    return st;
}

/* Marks E unusable with the first reason found: the first is the most fundamental one. */
static void mark_unusable(device_entry *e, const char *reason)
{
    if (!e->usable)
        return;
    e->usable = 0;
    snprintf(e->reason, sizeof e->reason, "%s", reason);
}

static void query_failed(device_entry *e, const char *param, cl_int st)
{
    char reason[256];
    snprintf(reason, sizeof reason, "the driver did not answer clGetDeviceInfo(%s): %s (%d)", param,
             cl_status_name(st), (int)st);
    mark_unusable(e, reason);
}

#define DEVICE_STRING(e, param, field)                                                             \
    do {                                                                                           \
        cl_int st_ = device_string((e)->id, param, (e)->field, sizeof(e)->field);                  \
        if (st_ != CL_SUCCESS)                                                                     \
            query_failed(e, #param, st_);                                                          \
    } while (0)

#define DEVICE_VALUE(e, param, var)                                                                \
    do {                                                                                           \
        cl_int st_ = clGetDeviceInfo((e)->id, param, sizeof(var), &(var), NULL);                   \
        if (st_ != CL_SUCCESS)                                                                     \
            query_failed(e, #param, st_);                                                          \
    } while (0)

/* One size of CLNETSIM_TEST_DEVICE_MEMORY: bytes, or with a K, M, G or T suffix (powers of
 * 1024); 0 when it does not parse. */
static cl_ulong parse_size(const char *text, char **end)
{
    unsigned long long v = strtoull(text, end, 10);
    if (*end == text)
        return 0;
    const char *units = "KMGT";
    const char *u = **end ? strchr(units, **end) : NULL;
    if (u) {
        for (const char *q = units; q <= u; q++)
            v = v > (~0ULL >> 10) ? ~0ULL : v << 10;
        ++*end;
    }
    return (cl_ulong)v;
}

/* Test hook CLNETSIM_TEST_DEVICE_MEMORY=GLOBAL[,MAX_ALLOC]: every device reports at most
 * GLOBAL bytes of global memory and at most MAX_ALLOC (else GLOBAL) per allocation, so that
 * the tests can make a scenario too large for a device. Anything that does not parse is
 * ignored. */
static void lower_memory(device_entry *e)
{
    const char *v = getenv("CLNETSIM_TEST_DEVICE_MEMORY");
    char *end = NULL;
    cl_ulong global = v ? parse_size(v, &end) : 0, alloc;
    if (!global)
        return;
    alloc = global;
    if (*end == ',' && !(alloc = parse_size(end + 1, &end)))
        return;
    if (*end)
        return;
    if (global < e->global_mem)
        e->global_mem = global;
    if (alloc < e->max_alloc)
        e->max_alloc = alloc;
}

/* Test hook CLNETSIM_TEST_LOCAL_MEMORY=SIZE (the same units): every device reports at most
 * SIZE bytes of local memory, as a device with little of it (oclgrind's 32 KiB) would, so
 * that work-group sizes must be chosen to fit it. Anything that does not parse is ignored. */
static void lower_local_memory(device_entry *e)
{
    const char *v = getenv("CLNETSIM_TEST_LOCAL_MEMORY");
    char *end = NULL;
    cl_ulong local = v ? parse_size(v, &end) : 0;
    if (local && !*end && local < e->local_mem)
        e->local_mem = local;
}

uint64_t device_host_available(void)
{
    const char *v = getenv("CLNETSIM_TEST_HOST_MEMORY");
    char *end = NULL;
    if (v) {
        cl_ulong test = parse_size(v, &end);
        if (test && !*end)
            return test;
    }
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    uint64_t avail = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "MemAvailable:", 13) == 0) {
            unsigned long long kib = strtoull(line + 13, &end, 10);
            avail = kib > UINT64_MAX / 1024 ? UINT64_MAX : (uint64_t)kib * 1024;
            break;
        }
    if (f)
        fclose(f);
    if (avail)
        return avail;
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

static void query_properties(device_entry *e)
{
    DEVICE_STRING(e, CL_DEVICE_NAME, name);
    DEVICE_STRING(e, CL_DEVICE_VENDOR, vendor);
    DEVICE_STRING(e, CL_DEVICE_VERSION, version);
    DEVICE_STRING(e, CL_DRIVER_VERSION, driver);
    DEVICE_VALUE(e, CL_DEVICE_TYPE, e->type);
    DEVICE_VALUE(e, CL_DEVICE_MAX_COMPUTE_UNITS, e->compute_units);
    DEVICE_VALUE(e, CL_DEVICE_GLOBAL_MEM_SIZE, e->global_mem);
    DEVICE_VALUE(e, CL_DEVICE_MAX_MEM_ALLOC_SIZE, e->max_alloc);
    DEVICE_VALUE(e, CL_DEVICE_LOCAL_MEM_SIZE, e->local_mem);
    DEVICE_VALUE(e, CL_DEVICE_MAX_WORK_GROUP_SIZE, e->max_work_group);
    /* deprecated since OpenCL 2.0, and then possibly unanswered: a CPU device is enough */
    cl_bool unified = CL_FALSE;
    if (clGetDeviceInfo(e->id, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL) !=
        CL_SUCCESS)
        unified = CL_FALSE;
    e->host_memory = (e->type & CL_DEVICE_TYPE_CPU) != 0 || unified == CL_TRUE;
    lower_memory(e);
    lower_local_memory(e);
}

/* Whether VERSION ("OpenCL C <major>.<minor> ...") is 1.2 or later. Read with strtol: sscanf's
 * %d has undefined behaviour on a number too large for an int. */
static int opencl_c_1_2(const char *version)
{
    const char *prefix = "OpenCL C ";
    if (strncmp(version, prefix, strlen(prefix)) != 0)
        return 0;
    const char *at = version + strlen(prefix);
    char *end;
    long major = strtol(at, &end, 10);
    if (end == at || *end != '.')
        return 0;
    at = end + 1;
    long minor = strtol(at, &end, 10);
    return end != at && (major > 1 || (major == 1 && minor >= 2));
}

/* Why the device cannot run clnetsim, in the order a user would fix things. Address bits do
 * not matter (buffers use explicit 32/64-bit types); 32-bit global atomics are core in 1.1. */
static void check_usable(device_entry *e)
{
    cl_bool available = CL_FALSE, compiler = CL_FALSE, little = CL_FALSE;
    DEVICE_VALUE(e, CL_DEVICE_AVAILABLE, available);
    if (!available)
        mark_unusable(e,
                      "not available (CL_DEVICE_AVAILABLE is false: busy, disabled or reserved)");
    DEVICE_VALUE(e, CL_DEVICE_COMPILER_AVAILABLE, compiler);
    if (!compiler)
        mark_unusable(e, "the driver has no OpenCL C compiler for it");

    cl_int st = device_string(e->id, CL_DEVICE_OPENCL_C_VERSION, e->c_version, sizeof e->c_version);
    if (st != CL_SUCCESS)
        mark_unusable(
            e, "no OpenCL C version reported (an OpenCL 1.0 device); clnetsim needs OpenCL C 1.2");
    else if (!opencl_c_1_2(e->c_version)) {
        char reason[256];
        snprintf(reason, sizeof reason, "OpenCL C version '%.100s' is below 1.2", e->c_version);
        mark_unusable(e, reason);
    }

    char profile[64] = "", extensions[4096] = "";
    st = device_string(e->id, CL_DEVICE_PROFILE, profile, sizeof profile);
    if (st != CL_SUCCESS)
        query_failed(e, "CL_DEVICE_PROFILE", st);
    /* Only needed for the embedded-profile exception; a truncated list can only miss it. */
    (void)device_string(e->id, CL_DEVICE_EXTENSIONS, extensions, sizeof extensions);
    if (strcmp(profile, "EMBEDDED_PROFILE") == 0 && !strstr(extensions, "cles_khr_int64"))
        mark_unusable(
            e,
            "embedded profile without 64-bit integers (clnetsim's times and positions are 64-bit)");

    DEVICE_VALUE(e, CL_DEVICE_ENDIAN_LITTLE, little);
    if (!little)
        mark_unusable(
            e, "big-endian device (clnetsim shares buffers with the host in little-endian layout)");
}

static void fill_entry(device_entry *e, cl_platform_id platform, cl_device_id id,
                       const char *platform_name, const char *platform_vendor)
{
    memset(e, 0, sizeof *e);
    e->platform = platform;
    e->id = id;
    e->usable = 1;
    snprintf(e->platform_name, sizeof e->platform_name, "%s", platform_name);
    snprintf(e->platform_vendor, sizeof e->platform_vendor, "%s", platform_vendor);
    query_properties(e);
    check_usable(e);
}

static device_entry *append(device_list *list, cn_error *err)
{
    device_entry *grown = realloc(list->items, (size_t)(list->count + 1) * sizeof *grown);
    if (!grown) {
        cn_fail(err, CN_ERR_RUNTIME, "out of host memory while listing OpenCL devices");
        return NULL;
    }
    list->items = grown;
    device_entry *e = &grown[list->count];
    memset(e, 0, sizeof *e);
    e->index = list->count++;
    return e;
}

/* A platform whose device list cannot be read still appears, as one unusable row, so that
 * `clnetsim devices` shows the broken driver instead of hiding it. */
static int add_broken_platform(device_list *list, cl_platform_id p, const char *name,
                               const char *vendor, cl_int st, cn_error *err)
{
    device_entry *e = append(list, err);
    if (!e)
        return CN_ERR_RUNTIME;
    e->platform = p;
    snprintf(e->platform_name, sizeof e->platform_name, "%s", name);
    snprintf(e->platform_vendor, sizeof e->platform_vendor, "%s", vendor);
    snprintf(e->name, sizeof e->name, "(devices could not be listed)");
    snprintf(e->reason, sizeof e->reason, "clGetDeviceIDs failed: %s (%d)", cl_status_name(st),
             (int)st);
    return 0;
}

static int add_platform(device_list *list, cl_platform_id p, cn_error *err)
{
    char name[128] = "(unnamed platform)", vendor[128] = "";
    (void)platform_string(p, CL_PLATFORM_NAME, name, sizeof name);
    (void)platform_string(p, CL_PLATFORM_VENDOR, vendor, sizeof vendor);

    cl_uint n = 0;
    cl_int st = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
    if (st == CL_DEVICE_NOT_FOUND || (st == CL_SUCCESS && n == 0))
        return 0;
    if (st != CL_SUCCESS)
        return add_broken_platform(list, p, name, vendor, st, err);
    cl_device_id *ids = calloc(n, sizeof(cl_device_id));
    if (!ids)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory while listing OpenCL devices");
    st = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids, &n);
    int rc = st == CL_SUCCESS ? 0 : add_broken_platform(list, p, name, vendor, st, err);
    for (cl_uint i = 0; st == CL_SUCCESS && i < n && rc == 0; i++) {
        device_entry *e = append(list, err);
        if (!e) {
            rc = CN_ERR_RUNTIME;
            break;
        }
        int index = e->index;
        fill_entry(e, p, ids[i], name, vendor);
        e->index = index;
    }
    free(ids);
    return rc;
}

int device_enumerate(device_list *out, cn_error *err)
{
    out->items = NULL;
    out->count = 0;
    cl_uint n = 0;
    cl_int st = clGetPlatformIDs(0, NULL, &n);
    /* No driver at all is a normal situation (a fresh machine): the listing explains it. */
    if (st == STATUS_PLATFORM_NOT_FOUND_KHR || (st == CL_SUCCESS && n == 0))
        return 0;
    if (cl_check(st, "clGetPlatformIDs", NULL, err))
        return CN_ERR_RUNTIME;
    cl_platform_id *platforms = calloc(n, sizeof(cl_platform_id));
    if (!platforms)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory while listing OpenCL platforms");
    int rc = cl_check(clGetPlatformIDs(n, platforms, &n), "clGetPlatformIDs", NULL, err);
    for (cl_uint i = 0; rc == 0 && i < n; i++)
        rc = add_platform(out, platforms[i], err);
    free(platforms);
    if (rc)
        device_list_free(out);
    return rc;
}

void device_list_free(device_list *list)
{
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

/* ---- the listing ---- */

enum {
    COL_INDEX,
    COL_PLATFORM,
    COL_NAME,
    COL_TYPE,
    COL_UNITS,
    COL_MEM,
    COL_ALLOC,
    COL_CVER,
    COL_DRIVER,
    N_COLS
};

static const char *const headers[N_COLS] = {"#",      "platform",  "device",   "type",  "units",
                                            "memory", "max alloc", "OpenCL C", "driver"};
static const int right_aligned[N_COLS] = {1, 0, 0, 0, 1, 1, 1, 0, 0};

static void format_bytes(cl_ulong bytes, char *buf, size_t cap)
{
    const cl_ulong mib = (cl_ulong)1 << 20, gib = (cl_ulong)1 << 30;
    if (bytes >= gib)
        snprintf(buf, cap, "%.1f GiB", (double)bytes / (double)gib);
    else
        snprintf(buf, cap, "%llu MiB", (unsigned long long)(bytes / mib));
}

/* "OpenCL C 1.2 PoCL" -> "1.2": the vendor suffix adds nothing to the table. */
static void format_c_version(const char *c_version, char *buf, size_t cap)
{
    const char *prefix = "OpenCL C ";
    const char *v =
        strncmp(c_version, prefix, strlen(prefix)) == 0 ? c_version + strlen(prefix) : c_version;
    size_t n = strcspn(v, " ");
    snprintf(buf, cap, "%.*s", (int)n, v);
}

typedef char row_cells[N_COLS][256];

static void format_row(const device_entry *e, row_cells cells)
{
    snprintf(cells[COL_INDEX], 256, "%d", e->index);
    snprintf(cells[COL_PLATFORM], 256, "%s", e->platform_name);
    snprintf(cells[COL_NAME], 256, "%s", e->name);
    snprintf(cells[COL_TYPE], 256, "%s", e->type ? device_type_name(e->type) : "-");
    snprintf(cells[COL_UNITS], 256, "%u", (unsigned)e->compute_units);
    format_bytes(e->global_mem, cells[COL_MEM], 256);
    format_bytes(e->max_alloc, cells[COL_ALLOC], 256);
    format_c_version(e->c_version, cells[COL_CVER], 256);
    snprintf(cells[COL_DRIVER], 256, "%s", e->driver);
}

static void print_cells(FILE *out, const char *const *cells, const int *width, const char *note)
{
    for (int c = 0; c < N_COLS; c++) {
        int last = c == N_COLS - 1 && !note;
        if (right_aligned[c])
            fprintf(out, "%*s", width[c], cells[c]);
        else if (last)
            fputs(cells[c], out);
        else
            fprintf(out, "%-*s", width[c], cells[c]);
        if (!last)
            fputs("  ", out);
    }
    if (note)
        fprintf(out, "unusable: %s", note);
    fputc('\n', out);
}

void device_print_listing(const device_list *list, FILE *out)
{
    if (list->count == 0) {
        fputs("No OpenCL platform with a device was found, so clnetsim has nothing to run on.\n"
              "Install an OpenCL driver (ICD): on Debian or Ubuntu, "
              "`apt-get install pocl-opencl-icd` gives a CPU device;\n"
              "for a GPU, install its vendor's OpenCL driver.\n",
              out);
        return;
    }
    row_cells *rows = calloc((size_t)list->count, sizeof *rows);
    if (!rows) {
        fputs("out of host memory while printing the device listing\n", out);
        return;
    }
    int width[N_COLS];
    for (int c = 0; c < N_COLS; c++)
        width[c] = (int)strlen(headers[c]);
    int usable = 0;
    for (int i = 0; i < list->count; i++) {
        format_row(&list->items[i], rows[i]);
        usable += list->items[i].usable != 0;
        for (int c = 0; c < N_COLS; c++)
            if ((int)strlen(rows[i][c]) > width[c])
                width[c] = (int)strlen(rows[i][c]);
    }
    print_cells(out, headers, width, NULL);
    for (int i = 0; i < list->count; i++) {
        const char *cells[N_COLS];
        for (int c = 0; c < N_COLS; c++)
            cells[c] = rows[i][c];
        print_cells(out, cells, width, list->items[i].usable ? NULL : list->items[i].reason);
    }
    fprintf(out, "%d device%s, %d usable.\n", list->count, list->count == 1 ? "" : "s", usable);
    free(rows);
}

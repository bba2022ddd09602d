/* Device buffers with checked calls and an account of the bytes a model holds on a device
 * (reported as device_bytes). */
#ifndef CLNETSIM_DBUF_H
#define CLNETSIM_DBUF_H
#include <stddef.h>
#include <stdint.h>

#include <CL/cl.h>

#include "common/error.h"
#include "device/device.h"

typedef struct dbuf_account {
    uint64_t current, peak;
} dbuf_account;

typedef struct dbuf {
    cl_mem mem;
    size_t bytes;
} dbuf;

/* Allocates BYTES (at least 1) on DEV; WHAT names the buffer in messages. */
int dbuf_alloc(device_ctx *dev, dbuf *b, size_t bytes, dbuf_account *acc, const char *what,
               cn_error *err);
void dbuf_release(dbuf *b, dbuf_account *acc);
/* Replaces B by a buffer of NEW_BYTES holding B's first KEEP bytes. */
int dbuf_grow(device_ctx *dev, dbuf *b, size_t new_bytes, size_t keep, dbuf_account *acc,
              const char *what, cn_error *err);
int dbuf_zero(device_ctx *dev, dbuf *b, size_t offset, size_t bytes, cn_error *err);
int dbuf_write(device_ctx *dev, dbuf *b, size_t offset, size_t bytes, const void *src,
               int blocking, cn_error *err);
int dbuf_read(device_ctx *dev, dbuf *b, size_t offset, size_t bytes, void *dst, int blocking,
              cn_error *err);
/* The same, with the read's event in *EV (the caller releases it; NULL when nothing was read). */
int dbuf_read_event(device_ctx *dev, dbuf *b, size_t offset, size_t bytes, void *dst,
                    int blocking, cl_event *ev, cn_error *err);

/* A host area of BYTES that DEV's queue copies into and from: pinned memory of DEV's context
 * (CL_MEM_ALLOC_HOST_PTR, mapped until freed), which drivers copy directly, several times
 * faster than plain memory, with *MEM its buffer; plain memory (*MEM NULL) when the driver has
 * none to give. NULL when there is neither. */
void *host_area_alloc(device_ctx *dev, size_t bytes, cl_mem *mem);
/* Frees an area of host_area_alloc (NULL is a no-op); no copy may still use it. */
void host_area_free(device_ctx *dev, cl_mem mem, void *area);

/* Sets N kernel arguments from (size, pointer) pairs: size 0 with a pointer to a dbuf sets
 * the buffer; a NULL pointer with size s reserves s bytes of local memory. */
int kernel_args(device_ctx *dev, cl_kernel k, const char *kernel_name, cn_error *err, int n,
                ...);
/* Values last given to a kernel's arguments: kernel_args_cached skips the clSetKernelArg calls
 * that would not change anything (on some drivers each call costs microseconds, and a window
 * changes only a few arguments). */
#define KARG_CACHE_MAX 80
typedef struct karg_cache {
    unsigned char set[KARG_CACHE_MAX];
    size_t size[KARG_CACHE_MAX];
    unsigned char value[KARG_CACHE_MAX][32]; /* long4 arguments fit */
} karg_cache;

int kernel_args_cached(device_ctx *dev, cl_kernel k, karg_cache *cache, const char *kernel_name,
                       cn_error *err, int first, int n, ...);

/* Same, starting at argument FIRST (for kernels that share a leading argument list). */
int kernel_args_from(device_ctx *dev, cl_kernel k, const char *kernel_name, cn_error *err,
                     int first, int n, ...);
#define KARG(v) sizeof(v), (const void *)&(v)
#define KBUF(b) (size_t)0, (const void *)&(b)
#define KLOCAL(bytes) (size_t)(bytes), (const void *)NULL

/* Enqueues a 1-D range of at least N work-items (rounded up to the work-group size chosen for
 * the kernel); nothing when N is 0. EV (optional) receives the profiling event. */
int enqueue_1d(device_ctx *dev, cl_kernel k, const char *kernel_name, size_t n, size_t local,
               cl_event *ev, cn_error *err);
/* Same for work-items FIRST .. FIRST + N - 1 (and the rounding): get_global_id(0) starts at
 * FIRST, so a kernel can serve one run of ids. */
int enqueue_1d_from(device_ctx *dev, cl_kernel k, const char *kernel_name, size_t first,
                    size_t n, size_t local, cl_event *ev, cn_error *err);

#endif

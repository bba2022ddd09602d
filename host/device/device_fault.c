/* Test hooks that make a healthy device fail like a broken or lost one: a program build, a
 * buffer allocation or a kernel launch returns the error status a driver would, at the point
 * where the real call is made, so that the tests run the real error paths (the message, the
 * exit status, no output file, no leak, and [devices] on_failure = continue). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "device/device.h"

#define FAIL_ENV "CLNETSIM_TEST_FAIL"

/* Applies one ENTRY of CLNETSIM_TEST_FAIL to DEV when it names DEV's ordinal. */
static void arm_entry(device_ctx *dev, const char *entry, size_t len)
{
    char text[64];
    if (len >= sizeof text)
        return;
    memcpy(text, entry, len);
    text[len] = '\0';
    /* KIND@DEVICE or KIND@DEVICE:N, read with strtol and strtoll (sscanf's %d and %lld have
     * undefined behaviour on a number out of range) */
    char *at = strchr(text, '@'), *end;
    if (!at)
        return;
    *at = '\0';
    long d = strtol(at + 1, &end, 10);
    if (end == at + 1 || d != dev->ordinal)
        return;
    int counted = *end == ':';
    long long n = 0;
    if (counted) {
        const char *count = end + 1;
        n = strtoll(count, &end, 10);
        if (end == count)
            return;
    }
    if (*end != '\0')
        return;
    if (!strcmp(text, "build") && !counted)
        dev->fault.build = 1;
    else if (!strcmp(text, "alloc") && counted && n >= 1)
        dev->fault.alloc_at = n;
    else if (!strcmp(text, "enqueue") && counted && n >= 0)
        dev->fault.enqueue_at = n;
    else if (!strcmp(text, "lost") && counted && n >= 0)
        dev->fault.lost_at = n;
    else
        return;
    dev->fault.armed = 1;
}

static void arm_breaks(device_ctx *dev);

void device_fault_arm(device_ctx *dev, int ordinal)
{
    memset(&dev->fault, 0, sizeof dev->fault);
    dev->ordinal = ordinal;
    dev->fault.enqueue_at = dev->fault.lost_at = -1;
    dev->fault.window = -1; /* set-up launches come before the first window */
    const char *v = getenv(FAIL_ENV);
    /* CLNETSIM_TEST_RANK=R: the hooks act on MPI rank R only (a rank that fails alone) */
    const char *only = getenv("CLNETSIM_TEST_RANK");
    if (only && *only && strtol(only, NULL, 10) != dist_rank())
        v = NULL;
    while (v && *v) {
        const char *end = strchr(v, ',');
        size_t len = end ? (size_t)(end - v) : strlen(v);
        arm_entry(dev, v, len);
        v = end ? end + 1 : NULL;
    }
    arm_breaks(dev);
}

/* CLNETSIM_TEST_BREAK_KERNEL: the kernels built wrong, by name; bits of TEST_BREAK in
 * cl/common/test_break.clh, in the same order. */
static const char *const breakable[] = {"flood.packets",       "flood.packets_one",
                                        "flood.packets_local", "flood.packets_scheme",
                                        "flood.transmit",      "flood.transmit_mobile",
                                        "phold.results",       "cells.rank_nodes"};

/* Applies one NAME@D entry of CLNETSIM_TEST_BREAK_KERNEL to DEV when D is its ordinal. */
static void arm_break(device_ctx *dev, const char *entry, size_t len)
{
    char text[64];
    if (len >= sizeof text)
        return;
    memcpy(text, entry, len);
    text[len] = '\0';
    char *at = strchr(text, '@'), *end;
    if (!at)
        return;
    *at = '\0';
    long d = strtol(at + 1, &end, 10);
    if (end == at + 1 || *end != '\0' || d != dev->ordinal)
        return;
    size_t n = sizeof breakable / sizeof breakable[0];
    for (size_t i = 0; i < n; i++)
        if (!strcmp(text, breakable[i]) || !strcmp(text, "all"))
            dev->fault.break_mask |= 1u << i;
}

static void arm_breaks(device_ctx *dev)
{
    const char *v = getenv("CLNETSIM_TEST_BREAK_KERNEL");
    while (v && *v) {
        const char *end = strchr(v, ',');
        size_t len = end ? (size_t)(end - v) : strlen(v);
        arm_break(dev, v, len);
        v = end ? end + 1 : NULL;
    }
}

/* A device opened without device_fault_arm (a test of the device layer) has its fault
 * cleared to zero, which ARMED keeps from meaning anything. */
int device_fault_build(const device_ctx *dev)
{
    return dev->fault.armed && dev->fault.build;
}

int device_fault_alloc(device_ctx *dev)
{
    return dev->fault.armed && dev->fault.alloc_at > 0 &&
           ++dev->fault.allocs == dev->fault.alloc_at;
}

cl_int device_fault_launch(device_ctx *dev)
{
    device_fault *f = &dev->fault;
    if (!f->armed)
        return CL_SUCCESS;
    if (f->lost)
        return CL_DEVICE_NOT_AVAILABLE;
    if (f->window >= 0 && f->window == f->lost_at) {
        f->lost = 1; /* this launch is enqueued; whatever comes after fails */
        return CL_SUCCESS;
    }
    if (f->enqueue_fired || f->window < 0 || f->window != f->enqueue_at)
        return CL_SUCCESS;
    f->enqueue_fired = 1;
    return CL_OUT_OF_RESOURCES;
}

cl_int device_fault_transfer(const device_ctx *dev)
{
    return dev->fault.armed && dev->fault.lost ? CL_DEVICE_NOT_AVAILABLE : CL_SUCCESS;
}

void device_fault_window(device_ctx *dev, int64_t window)
{
    dev->fault.window = window;
}

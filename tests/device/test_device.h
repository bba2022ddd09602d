/* Shared by the two files of test_device: a minimal check macro that counts failures and
 * carries on, so that one run reports every broken check. */
#ifndef CLNETSIM_TEST_DEVICE_H
#define CLNETSIM_TEST_DEVICE_H
#include <stdio.h>
#include <string.h>

#include "device/device_internal.h"

extern int test_failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

/* COND, and on failure print the error message that explains it. */
#define CHECK_ERR(cond, err)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: check failed: %s (error: %s)\n", __FILE__, __LINE__, #cond,    \
                    (err).msg);                                                                    \
        }                                                                                          \
    } while (0)

#define CHECK_CONTAINS(text, part)                                                                 \
    do {                                                                                           \
        if (!strstr((text), (part))) {                                                             \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: '%s' does not contain '%s'\n", __FILE__, __LINE__, (text),     \
                    (part));                                                                       \
        }                                                                                          \
    } while (0)

void test_opencl(void);

#endif

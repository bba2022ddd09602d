/* The device memory a flood run needs, estimated from the scenario before the first
 * allocation and compared with each device's global memory and largest allocation, so that a
 * scenario too large for a device is refused with the numbers instead of failing halfway
 * through its set-up (or, on drivers that allocate lazily, in its first window). */
#ifndef CLNETSIM_FLOOD_MEMORY_H
#define CLNETSIM_FLOOD_MEMORY_H
#include <stdint.h>

#include "common/error.h"
#include "device/device.h"

struct flood_model;

#define FLOOD_MEMORY_PARTS 12

/* One group of buffers: its bytes on the device, its largest single buffer, and whether the
 * figure depends on what the run will find (links, relays) rather than on the scenario
 * alone. */
typedef struct flood_memory_part {
    const char *what;
    uint64_t bytes, largest;
    int estimated;
} flood_memory_part;

typedef struct flood_memory {
    int n;
    flood_memory_part part[FLOOD_MEMORY_PARTS];
    uint64_t total;
    int largest;            /* the part with the largest single buffer */
} flood_memory;

/* What device DEV will hold of model M (set up to its cell grid, nothing allocated yet) at the
 * start of the run: every replicated flow, the neighbour lists, the seen bitsets of the first
 * slots, the frontiers at the size the window loop lets them grow to, and with whole packets
 * the work-groups' state. PACKETS: the packets the run floods. */
void flood_memory_estimate(struct flood_model *m, const device_ctx *dev, int64_t packets,
                           flood_memory *out);
/* Refuses, before anything is allocated, a device of M that cannot hold the estimate: too
 * little global memory, or a buffer larger than one allocation may be. CN_ERR_INPUT (the
 * scenario does not fit the device), with the numbers and the device named
 * (cn_error.device). */
int flood_memory_check(struct flood_model *m, cn_error *err);

#endif

/* The Kademlia model's values: what [kademlia] holds once a scenario is loaded
 * (docs/models/kademlia.md, exact semantics there). A kademlia scenario keeps them in its model
 * values (host/config/config.h); kademlia_values_of reads them there. */
#ifndef CLNETSIM_KADEMLIA_VALUES_H
#define CLNETSIM_KADEMLIA_VALUES_H
#include <stdint.h>

#include "config/config.h"

#define KADEMLIA_MAX_PEERS ((int64_t)2147483647) /* peer indices are 31-bit on the devices */
#define KADEMLIA_MAX_BITS 160
#define KADEMLIA_MAX_K 64
/* l_max - l_min: a latency is l_min plus a 32-bit draw scaled to that span */
#define KADEMLIA_MAX_LATENCY_SPAN ((int64_t)4294967295)

enum kademlia_targets { KAD_TARGETS_RANDOM = 0, KAD_TARGETS_PEERS = 1 };

/* Its keys' offsets (kademlia_config.c) point into this struct. */
typedef struct kademlia_values {
    int64_t peers;            /* N >= 2 */
    int64_t id_bits;          /* B, 32 .. 160 */
    int64_t bucket_size;      /* k, 1 .. 64 */
    int64_t alpha;            /* requests in flight, 1 .. k */
    int64_t gap_max_ns;       /* D > 0 */
    int64_t latency_min_ns;   /* l_min > 0, the lookahead */
    int64_t latency_max_ns;   /* l_max, l_min .. l_min + 2^32 - 1 */
    int targets;              /* enum kademlia_targets */
    int64_t windows_per_launch; /* W: a launch runs W windows of latency_min (results
                                 * unchanged); 0: chosen by the run */
    /* churn ("Churn"): S, the mean online period (0: no churn); O, the mean offline period
     * (0 in the file: S); R, the requests' timeout */
    int64_t session_ns, offline_ns, timeout_ns;
} kademlia_values;

/* The values of SC, a scenario of the kademlia model (sc->model is "kademlia"). */
static inline const kademlia_values *kademlia_values_of(const scenario *sc)
{
    return (const kademlia_values *)(const void *)sc->model_values.bytes;
}

#endif

/* The Kademlia model (docs/models/kademlia.md): an overlay of peers running iterative
 * FIND_NODE lookups over converged routing tables, on event-driven windows. Host glue to
 * cl/kademlia/kademlia.cl. */
#ifndef CLNETSIM_KADEMLIA_H
#define CLNETSIM_KADEMLIA_H

#include "config/model_config.h"
#include "engine/engine.h"
#include "models/kademlia/kademlia_values.h"

extern const model_ops kademlia_model_ops;
/* Its option group: [kademlia], its keys and rules (kademlia_config.c). */
extern const model_config kademlia_config;
/* What selftest and bench need of it: its reference and sizes (kademlia_bench.c). */
extern const model_bench kademlia_bench;

/* Event kinds: one, a window of a partition's peers. */
enum kademlia_kind { KADEMLIA_WINDOW = 0, KADEMLIA_N_KINDS };

/* Test hook (environment), results unchanged: CLNETSIM_TEST_KADEMLIA_RECORDS=n starts every
 * peer with n lookup records, so that their growth runs (the default is 1). */

#endif

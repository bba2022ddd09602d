/* Kademlia checkpoints: the records' layout and their checks against a scenario
 * (docs/when-things-go-wrong.md, "Checkpoints and resuming"; docs/models/kademlia.md).
 *
 * At a window boundary a peer's whole state is its own: its next start, the lookups it has
 * started, its statistics and the records of its lookups still open or still waiting for a
 * response (nothing crosses peers: a request is answered where its lookup runs, from tables
 * that never change). The ids and the tables are the scenario's and are built again. So the
 * checkpoint depends on no device, partition count, rank count or record count, and the same
 * state always gives the same bytes: each peer's records in the order of their numbers, the
 * words a lookup no longer uses zeroed, the histograms summed over the devices' blocks, the
 * rows (--lookups) by (origin, number).
 *
 * Records (besides the engine's ENXT, EWIN, ETIM and RECS):
 *   KSHP  kad_ckpt_shape
 *   KPER  kad_ckpt_peer[peers]
 *   KHIS  uint64[KAD_HOPS_BINS + KAD_LATENCY_BINS]: the hops' bins, then the latencies'
 *   KLOK  uint32[records][record_words]: the lookup records of cl/kademlia/kademlia_layout.clh,
 *         peer after peer, each peer's by number
 *   KROW  uint32[rows][ROW_WORDS]: with --lookups, the rows of the lookups ended so far, the
 *         devices' row words (kademlia_layout.clh), by (origin, number) */
#ifndef CLNETSIM_KADEMLIA_CKPT_FORMAT_H
#define CLNETSIM_KADEMLIA_CKPT_FORMAT_H
#include <stdint.h>

#include "cl/kademlia/kademlia_layout.clh"
#include "config/config.h"
#include "engine/checkpoint.h"

#define KT_SHAPE CKPT_TAG('K', 'S', 'H', 'P')
#define KT_PEERS CKPT_TAG('K', 'P', 'E', 'R')
#define KT_HIST CKPT_TAG('K', 'H', 'I', 'S')
#define KT_LOOKUPS CKPT_TAG('K', 'L', 'O', 'K')
#define KT_ROWS CKPT_TAG('K', 'R', 'O', 'W')

#define KAD_CKPT_BINS (KAD_HOPS_BINS + KAD_LATENCY_BINS)
/* A peer's lookup records at most (a device's records are counted in 16 bits) */
#define KAD_CKPT_MAX_RECORDS 65535u

typedef struct kad_ckpt_shape {
    uint64_t peers, id_bits, bucket_size, alpha, targets; /* the scenario's */
    uint64_t windows;       /* windows run */
    uint64_t record_words;  /* LK_WORDS(W, K, ALPHA) */
    uint64_t records;       /* KLOK's records */
    uint64_t rows;          /* KROW's rows (0 without --lookups) */
} kad_ckpt_shape;

typedef struct kad_ckpt_peer {
    int64_t next_start;     /* PS_NEXT_START */
    int64_t started;        /* PS_STARTED */
    uint64_t stats[KS_WORDS];
    uint64_t records;       /* its lookup records in KLOK */
} kad_ckpt_peer;
_Static_assert(sizeof(kad_ckpt_peer) == 8 * (KS_WORDS + 3), "a peer is 8-byte words");

/* The check of a kademlia checkpoint IN against SC (model_ops.check_checkpoint): every record
 * there, of the lengths the scenario gives, and every field within what a run of it can
 * reach (the devices index with them: no peer beyond the run's, no depth of 0, no pending time
 * before the time reached). Returns 0 or CN_ERR_INPUT with a sentence naming the file and the
 * record. */
int kad_checkpoint_check(const ckpt_file *in, const scenario *sc, cn_error *err);

#endif

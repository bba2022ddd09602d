/* The flood model's checkpoint records (flood_checkpoint.c writes and restores them,
 * flood_ckpt_check.c checks them against each other and the scenario before anything is
 * sized or indexed by them). */
#ifndef CLNETSIM_FLOOD_CKPT_FORMAT_H
#define CLNETSIM_FLOOD_CKPT_FORMAT_H
#include <stdint.h>

#include "models/flood/flood_values.h"
#include "engine/checkpoint.h"

/* One packet's outcome, kept as packets retire when the run asks for rows (`run --packets`,
 * docs/models.md "Traffic") and saved as is in checkpoints (T_RECORDS); the flood hands them
 * to the report as its rows at the end of the run (flood_traffic_results). */
typedef struct flood_packet_record {
    int64_t packet, created_ns;
    uint32_t flow, source;
    int64_t delivered;       /* deliveries (0 or 1 for unicast) */
    int64_t latency_ns, hops; /* of the last delivery; -1 when none */
} flood_packet_record;

#define T_SHAPE CKPT_TAG('F', 'S', 'H', 'P')     /* flood_shape */
#define T_SCALARS CKPT_TAG('F', 'S', 'C', 'L')   /* flood_scalars */
#define T_COUNTERS CKPT_TAG('F', 'C', 'T', 'R')  /* 2 uint64 (low, high) per counter */
#define T_DEPS CKPT_TAG('F', 'D', 'E', 'P')      /* the traffic generator */
#define T_PEND CKPT_TAG('F', 'P', 'N', 'D')      /* departures waiting for their window */
#define T_FLOWS CKPT_TAG('F', 'F', 'L', 'W')     /* int64[FLOOD_CKPT_FLOW_SUMS][MAX_FLOWS] */
#define T_RECORDS CKPT_TAG('F', 'R', 'E', 'C')   /* flood_packet_record[] */
#define T_SLOT_PKT CKPT_TAG('F', 'S', 'P', 'K')  /* int64 per slot */
#define T_SLOT_BORN CKPT_TAG('F', 'S', 'B', 'W') /* int64 per slot */
#define T_FREE CKPT_TAG('F', 'S', 'F', 'R')      /* uint32[]: the free slots, in order */
#define T_DIRTY CKPT_TAG('F', 'S', 'D', 'R')     /* uint32[]: the retired slots */
#define T_SLOT_TIME CKPT_TAG('F', 'S', 'T', 'M') /* int64 per slot */
#define T_SLOT_FLOW CKPT_TAG('F', 'S', 'F', 'T') /* FLOOD_CKPT_SLOT_FLOW_BYTES per slot */
#define T_SEEN CKPT_TAG('F', 'S', 'E', 'N')      /* uint32[slots][words] */
#define T_ENTRIES CKPT_TAG('F', 'E', 'N', 'T')   /* uint2 per transmission of window NEXT */
#define T_MOBILITY CKPT_TAG('F', 'M', 'O', 'B')  /* the five mobility buffers, one after another */
#define T_ENERGY CKPT_TAG('F', 'R', 'E', 'N')    /* int64 per node: energy left, nJ */
#define T_DEATH CKPT_TAG('F', 'R', 'D', 'T')     /* int64 per node: death time */
#define T_PARTS CKPT_TAG('F', 'P', 'R', 'T')     /* moving nodes' tiles: uint16 per node */
#define T_SCHEME CKPT_TAG('F', 'S', 'C', 'H')    /* schemes: uint32[slots][nodes][4] states */
#define T_TX_NEXT CKPT_TAG('F', 'T', 'X', 'N')   /* schemes: a byte per slot */
#define T_ROWS CKPT_TAG('F', 'P', 'K', 'R')      /* whole packets: int64[PS_ROW], the rows summed */

/* What the model was: a checkpoint resumes only into a model of the same shape. */
typedef struct flood_shape {
    uint32_t n, words, whole, mobile, flows, records, resources, energy, parts, slots;
    uint32_t scheme_window, entry_bytes;
} flood_shape;

typedef struct flood_scalars {
    int64_t next_packet, end_time, any_tx, longest_life, pk_next, pk_rounds, relays, moved;
    int64_t scheme_waiting;
} flood_scalars;

/* Bytes of the mobility state of a node (positions, waypoints, speeds, legs, pause ends). */
#define FLOOD_CKPT_MOBILITY_BYTES 84u
/* Bytes of a slot's flow tables: source, destination and flow (uint32), deliveries, their
 * hops and the last one's (int64), the latency sum (128 bits), the last latency (int64). */
#define FLOOD_CKPT_SLOT_FLOW_BYTES (3u * 4u + 3u * 8u + 16u + 8u)
/* The flows' sums (T_FLOWS), each int64[SCENARIO_MAX_FLOWS]: generated, deliverable,
 * delivered, then the hop and the latency sums as low and high 64 bits. */
#define FLOOD_CKPT_FLOW_SUMS 7
/* Bytes of a node's forwarding-scheme state in a slot (SCHEME_NODE_WORDS words). */
#define FLOOD_CKPT_SCHEME_NODE_BYTES 16u

/* Every record of the flood model in IN checked against the others and against SC, the
 * scenario the checkpoint holds, with no device: the counts (nodes, slots, partitions,
 * transmissions, packets) against the scenario, every record's length against the counts,
 * and every node, slot, partition and flow number against its count. The windows and times
 * (ENXT, EWIN, ETIM) are checked too, the next window against the scenario's last. Refusals
 * name the file, the record and the field (ckpt_refuse), status CN_ERR_INPUT. */
int flood_checkpoint_check(const ckpt_file *in, const scenario *sc, cn_error *err);

#endif

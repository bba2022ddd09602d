/* Packet departures of a scenario's traffic, in packet id order (docs/models.md, "Traffic"):
 * every flow's sources with their start and interval laws, merged by (time, flow, source,
 * index) through a heap of one entry per (flow, source). Without [traffic.flow] sections the
 * one source of [traffic] (docs/model.md) is the only flow, called "traffic". */
#ifndef CLNETSIM_DEPARTURES_H
#define CLNETSIM_DEPARTURES_H
#include <stdint.h>

#include "common/error.h"
#include "models/flood/flood_values.h"

/* What "destination" holds for a broadcast packet on the device and in records. */
#define DEPARTURE_BROADCAST 0xffffffffu

typedef struct departure {
    int64_t t;             /* creation time, ns */
    uint32_t flow, source;
    uint32_t destination;  /* node id, or DEPARTURE_BROADCAST */
    int64_t index;         /* m: the source's packet number in its flow */
} departure;

typedef struct departures departures;

/* Sources and their first departures for SC (whose n_flows may be 0: [traffic] alone). */
int departures_open(departures **out, const scenario *sc, cn_error *err);
void departures_close(departures *d);
/* The next departure (the one with the next packet id) into *OUT: 1, or 0 when none is left. */
int departures_peek(const departures *d, departure *out);
/* Removes the next departure and schedules that source's following one. */
void departures_pop(departures *d);

/* Checkpoints: the generator's state (every source's next departure) as bytes, and the same
 * state put back into D, opened for the same scenario; -1 when STATE cannot be D's. */
size_t departures_state_bytes(const departures *d);
void departures_state(const departures *d, void *out);
int departures_restore(departures *d, const void *state, size_t bytes);
/* The flows as the engine sees them: SC's, or [traffic] as one flow named "traffic". Writes
 * at most SCENARIO_MAX_FLOWS to OUT and returns their number. */
int traffic_flows(const scenario *sc, traffic_flow *out);

/* Source S's first departure in flow F, and its interval after packet M (the draw laws of
 * docs/models.md), for SEED. */
int64_t traffic_start(const traffic_flow *fl, uint64_t seed, uint32_t f, uint32_t s);
int64_t traffic_interval(const traffic_flow *fl, uint64_t seed, uint32_t f, uint32_t s,
                         int64_t m);
/* log2(x) with 16 fraction bits, 1 <= x <= 2^32, by the exact rule of docs/models.md. */
uint32_t traffic_lg_q16(uint64_t x);

#endif

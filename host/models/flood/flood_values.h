/* The flood model's values: what its sections ([topology], [areas], [connectivity],
 * [mobility] and its groups, [traffic] and its flows, [flood], [resources]) hold once a
 * scenario is loaded, with the flood's types, limits and the questions its code and tools ask
 * of them (node count, time horizon, mobility segments, resources). A flood scenario keeps
 * them in its model values (host/config/config.h); flood_values_of reads them there. */
#ifndef CLNETSIM_FLOOD_VALUES_H
#define CLNETSIM_FLOOD_VALUES_H
#include <stdint.h>

#include "config/config.h"
#include "config/model_config.h" /* the laws of its keys: prob_law, time_law, energy_law */

/* areas: [areas] count grids of rows x cols side by side, linked in a chain (docs/models.md) */
enum placement_kind { PLACEMENT_GRID = 0, PLACEMENT_UNIFORM = 1, PLACEMENT_AREAS = 2 };
enum connectivity_kind { CONNECTIVITY_UDG = 0, CONNECTIVITY_QUDG = 1 };
enum forwarding_scheme { SCHEME_PROBABILISTIC = 0, SCHEME_COUNTER = 1, SCHEME_DISTANCE = 2 };
enum mobility_kind {
    MOBILITY_STATIC = 0,
    MOBILITY_RWP = 1,
    MOBILITY_LINEAR = 2,
    MOBILITY_RANDOM_WALK = 3,
    MOBILITY_RANDOM_DIRECTION = 4,
    MOBILITY_GRID_WALK = 5
};
enum boundary_kind { BOUNDARY_STOP = 0, BOUNDARY_SLIDE = 1, BOUNDARY_BOUNCE = 2, BOUNDARY_WRAP = 3 };

/* Largest area side and range accepted, in mm: squared distances of three such coordinates
 * must fit in 64 bits (see docs/model.md "Units and time"). */
#define SCENARIO_MAX_SIDE_MM ((int64_t)2147483647)
#define SCENARIO_MAX_NODES CONFIG_MAX_IDS
#define SCENARIO_MAX_PACKETS ((int64_t)2000000000)

/* How a node moves: the keys of [mobility] and of each [mobility.group NAME]. */
typedef struct mobility_params {
    int model;                /* enum mobility_kind */
    int64_t speed_min_mm_s, speed_max_mm_s;
    int64_t pause_min_ms, pause_max_ms;
    int64_t travel_min_ms, travel_max_ms; /* random_direction: time of one leg */
    int64_t street_spacing_mm; /* grid_walk: distance between parallel streets */
    int boundary;             /* enum boundary_kind: walks and random_direction at the sides */
} mobility_params;

/* Mobility groups: nodes named by id ranges move by their group's parameters. */
#define SCENARIO_MAX_GROUPS 16
#define GROUP_MAX_RANGES CONFIG_MAX_RANGES
#define GROUP_NAME_MAX CONFIG_NAME_MAX

typedef struct mobility_group {
    char name[GROUP_NAME_MAX];
    int n_ranges;
    int64_t first[GROUP_MAX_RANGES], last[GROUP_MAX_RANGES]; /* node ids, both included */
    mobility_params mob;      /* keys the section does not set are those of [mobility] */
} mobility_group;

/* A run of consecutive node ids [first, end) that move by the same parameters. */
typedef struct mobility_segment {
    int64_t first, end;
    const mobility_params *mob; /* points into the flood values */
    int group;                  /* index into groups[], -1 for [mobility] */
} mobility_segment;

/* Traffic flows: [traffic.flow NAME] sections (docs/models.md, "Traffic"). Without any,
 * [traffic] is the one source of docs/model.md and n_flows is 0. */
#define SCENARIO_MAX_FLOWS 16
#define FLOW_MAX_RANGES CONFIG_MAX_RANGES
enum interval_draw_kind { DRAW_PACKET = 0, DRAW_NODE = 1 };

typedef struct traffic_flow {
    char name[GROUP_NAME_MAX];
    int all_sources;          /* source = all (every node but a unicast destination) */
    int n_ranges;             /* else the sources: ids first[r] .. last[r], both included */
    int64_t first[FLOW_MAX_RANGES], last[FLOW_MAX_RANGES];
    int64_t destination;      /* node id (-1 resolved to the last node), or FLOW_BROADCAST */
    int64_t packets;          /* per source; 0: until simulation.duration */
    time_law interval;        /* between two departures of a source */
    int interval_draw;        /* enum interval_draw_kind */
    time_law start;           /* first departure (TLAW_CONSTANT or TLAW_UNIFORM) */
    int64_t size_bytes;
} traffic_flow;

/* Largest energy accepted for a budget or the cost of one event, in nJ (10^9 J): a node's
 * energy and every cost then fit in int64 with room to spare. */
#define SCENARIO_MAX_ENERGY_NJ ((int64_t)1000000000 * 1000000000)

/* Largest max_neighbors: the kernels keep each node's K nearest in private memory. */
#define SCENARIO_MAX_NEIGHBORS 1024
#define SCENARIO_MAX_SEGMENTS (2 * SCENARIO_MAX_GROUPS * GROUP_MAX_RANGES + 1)

/* Its keys' offsets (flood_config.c) point into this struct. */
typedef struct flood_values {
    /* [topology] */
    int placement;            /* enum placement_kind */
    int64_t rows, cols;       /* grid */
    int64_t spacing_mm;       /* grid */
    int64_t nodes;            /* uniform; for grid it is set to rows * cols */
    int64_t width_mm, height_mm, depth_mm; /* uniform; mobility area (grid: bounding box if 0) */

    /* [areas]: placement = areas, activity areas of rows x cols nodes each */
    int64_t areas;            /* A, the number of areas */
    double border_links;      /* b, the chance of each border link between two areas */
    uint64_t border_threshold; /* floor(b * 2^32), 2^32 for b = 1 */

    /* [connectivity] */
    int connectivity;         /* enum connectivity_kind */
    int64_t range_mm;         /* udg: the range; qudg: r_max */
    int64_t range_min_mm;     /* qudg: r_min, always linked within it */
    double link_probability;  /* qudg: q, the chance of a link between r_min and r_max */
    uint64_t link_threshold;  /* floor(q * 2^32), 2^32 for q = 1 */
    int64_t max_neighbors;    /* 0: no cap; else each node keeps its K nearest (mutual) */

    /* [mobility]: every node that no group names */
    mobility_params mob;
    /* [mobility.group NAME] sections, in the order they first appear */
    int n_groups;
    mobility_group groups[SCENARIO_MAX_GROUPS];

    /* [traffic] */
    int64_t source;           /* node id */
    int64_t destination;      /* node id, -1 in the INI means the last node (resolved here) */
    int64_t packets;
    int64_t interval_ns;
    int64_t start_ns;
    int64_t size_bytes;

    /* [traffic.flow NAME] sections, in the order they first appear (0: none) */
    int n_flows;
    traffic_flow flows[SCENARIO_MAX_FLOWS];

    /* [flood] */
    int64_t relay_delay_ns;   /* the lookahead: window length */
    prob_law drop;            /* a constant, or uniform(a, b): each node draws its own */
    uint64_t drop_threshold;  /* floor(p * 2^32), 2^32 for p = 1 (uniform: of a) */
    uint64_t drop_threshold_max; /* uniform: thr(b); a constant: = drop_threshold */
    int64_t ttl;              /* 0: none */
    /* forwarding scheme (docs/models.md, "Forwarding schemes"): enum forwarding_scheme */
    int scheme;
    int64_t counter_threshold;   /* counter: relay when fewer than C copies were heard */
    int64_t distance_threshold_mm; /* distance: relay when every sender was farther */
    int64_t assessment_delay_ns; /* counter, distance: the longest assessment delay */
    int64_t assessment_windows;  /* = assessment_delay_ns / relay_delay_ns (a whole number) */

    /* [resources] (docs/models.md, "Node resources") */
    int64_t rx_capacity;      /* copies a node accepts per window; 0: no limit */
    energy_law energy_budget; /* each node's budget in nJ; the constant 0: no energy model */
    int64_t tx_fixed_nj, tx_per_byte_nj; /* cost of a transmission: fixed + per byte x size */
    int64_t rx_fixed_nj, rx_per_byte_nj; /* cost of an accepted copy, likewise */
} flood_values;

/* The flood values of SC, a scenario of the flood model (sc->model is "flood"). */
static inline const flood_values *flood_values_of(const scenario *sc)
{
    return (const flood_values *)(const void *)sc->model_values.bytes;
}
/* The same, to change them (tests and tools that build a scenario in code). */
static inline flood_values *flood_values_edit(scenario *sc)
{
    return (flood_values *)(void *)sc->model_values.bytes;
}

/* Number of nodes (rows * cols for grids, count * rows * cols for areas). */
int64_t flood_node_count(const flood_values *sc);

/* A bound on every simulated time (ns) a run of SC can reach when no duration stops it: the
 * latest departure, then at most one relay per node (or ttl relays) of relay_delay plus the
 * longest assessment delay, then one window. At most 2^62 for every scenario the
 * configuration accepts without a duration (flood_config_checks.c, check_horizon); INT64_MAX
 * when it passes that. */
int64_t flood_horizon(const flood_values *sc);

/* The mobility parameters of node ID: its group's, or [mobility]'s. */
const mobility_params *flood_node_mobility(const flood_values *sc, int64_t id);

/* Cuts [0, nodes) into maximal runs of ids with the same parameters, in id order: writes at
 * most SCENARIO_MAX_SEGMENTS entries to OUT and returns their number. */
int flood_mobility_segments(const flood_values *sc, mobility_segment *out);

/* Node resources (docs/models.md): whether the energy model is on (a budget other than the
 * constant 0), and whether a receive capacity or the energy model is (the window loop then
 * couples the packets). */
int flood_has_energy(const flood_values *sc);
int flood_has_resources(const flood_values *sc);

/* Whether any node moves; the largest speed_max of the nodes that move (0 if none); whether
 * any moving node can wrap around the area (so a step can cross it). */
int flood_is_mobile(const flood_values *sc);
int64_t flood_speed_max(const flood_values *sc);
int flood_wraps(const flood_values *sc);

#endif

/* Scenario configuration: INI (inih) and -s overrides -> one typed, validated scenario.
 *
 * A schema table (config.c) lists every section and key with its type, range, default and
 * help. It drives parsing, overrides, defaults, --dump-config and the key reference in
 * docs/. All lengths and times are converted once, here, to the integers of docs/model.md:
 * metres -> millimetres and seconds -> nanoseconds, rounded to nearest (ties away from zero),
 * parsed from the decimal text exactly (no binary floating point on the way). */
#ifndef CLNETSIM_CONFIG_H
#define CLNETSIM_CONFIG_H
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

/* areas: [areas] count grids of rows x cols side by side, linked in a chain (docs/models.md) */
enum placement_kind { PLACEMENT_GRID = 0, PLACEMENT_UNIFORM = 1, PLACEMENT_AREAS = 2 };
enum connectivity_kind { CONNECTIVITY_UDG = 0, CONNECTIVITY_QUDG = 1 };
enum forwarding_scheme { SCHEME_PROBABILISTIC = 0, SCHEME_COUNTER = 1, SCHEME_DISTANCE = 2 };
/* Laws of values drawn per node (docs/models.md, "Laws"). */
enum law_kind { LAW_CONSTANT = 0, LAW_UNIFORM = 1 };

/* A probability given as a constant P, or as uniform(P, P_MAX): drawn per node at the start. */
typedef struct prob_law {
    int law;                  /* enum law_kind */
    double p;                 /* the constant, or the lower bound */
    double p_max;             /* uniform: the upper bound; a constant: = p */
} prob_law;
enum mobility_kind {
    MOBILITY_STATIC = 0,
    MOBILITY_RWP = 1,
    MOBILITY_LINEAR = 2,
    MOBILITY_RANDOM_WALK = 3,
    MOBILITY_RANDOM_DIRECTION = 4,
    MOBILITY_GRID_WALK = 5
};
enum boundary_kind { BOUNDARY_STOP = 0, BOUNDARY_SLIDE = 1, BOUNDARY_BOUNCE = 2, BOUNDARY_WRAP = 3 };
enum policy_kind { POLICY_STATIC = 0, POLICY_RAPID = 1, POLICY_ADVANCED = 2, POLICY_HYBRID = 3 };
enum on_failure_kind { ON_FAILURE_STOP = 0, ON_FAILURE_CONTINUE = 1 };

/* Largest area side and range accepted, in mm: squared distances of three such coordinates
 * must fit in 64 bits (see docs/model.md "Units and time"). */
#define SCENARIO_MAX_SIDE_MM ((int64_t)2147483647)
#define SCENARIO_MAX_NODES ((int64_t)2000000000)
#define SCENARIO_MAX_PACKETS ((int64_t)2000000000)
/* No simulated time a run computes reaches 2^62 ns (about 146 years): host/config/checks.c,
 * check_horizon. Every time key is at most half of it, so that a time and one key's value
 * (start + interval, duration + interval) always fit int64 too. */
#define SCENARIO_MAX_TIME_NS ((int64_t)1 << 62)
#define KEY_TIME_MAX ((int64_t)1 << 61)

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
#define GROUP_MAX_RANGES 8
#define GROUP_NAME_MAX 32

typedef struct mobility_group {
    char name[GROUP_NAME_MAX];
    int n_ranges;
    int64_t first[GROUP_MAX_RANGES], last[GROUP_MAX_RANGES]; /* node ids, both included */
    mobility_params mob;      /* keys the section does not set are those of [mobility] */
} mobility_group;

/* A run of consecutive node ids [first, end) that move by the same parameters. */
typedef struct mobility_segment {
    int64_t first, end;
    const mobility_params *mob; /* points into the scenario */
    int group;                  /* index into groups[], -1 for [mobility] */
} mobility_segment;
/* Traffic flows: [traffic.flow NAME] sections (docs/models.md, "Traffic"). Without any,
 * [traffic] is the one source of docs/model.md and n_flows is 0. */
#define SCENARIO_MAX_FLOWS 16
#define FLOW_MAX_RANGES 8
#define FLOW_BROADCAST ((int64_t)-2) /* destination = broadcast */
/* Laws of a time: a constant, uniform(a, b), exponential(mean). */
enum time_law_kind { TLAW_CONSTANT = 0, TLAW_UNIFORM = 1, TLAW_EXPONENTIAL = 2 };
enum interval_draw_kind { DRAW_PACKET = 0, DRAW_NODE = 1 };

typedef struct time_law {
    int law;                  /* enum time_law_kind */
    int64_t a_ns;             /* the constant, uniform's lower bound, or exponential's mean */
    int64_t b_ns;             /* uniform's upper bound; otherwise = a_ns */
} time_law;

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

/* An energy given as a constant or as uniform(a, b) drawn per node, in integer nanojoules
 * (docs/models.md, "Node resources"). */
typedef struct energy_law {
    int law;                  /* enum law_kind */
    int64_t a_nj;             /* the constant, or the lower bound */
    int64_t b_nj;             /* uniform: the upper bound; a constant: = a_nj */
} energy_law;

/* Largest energy accepted for a budget or the cost of one event, in nJ (10^9 J): a node's
 * energy and every cost then fit in int64 with room to spare. */
#define SCENARIO_MAX_ENERGY_NJ ((int64_t)1000000000 * 1000000000)

/* Largest max_neighbors: the kernels keep each node's K nearest in private memory. */
#define SCENARIO_MAX_NEIGHBORS 1024
#define SCENARIO_MAX_SEGMENTS (2 * SCENARIO_MAX_GROUPS * GROUP_MAX_RANGES + 1)

/* [phold]: the PHOLD model of docs/models/phold.md (exact semantics there). */
#define PHOLD_MAX_LPS ((int64_t)2147483647)   /* LP ids are 32-bit on the devices */
#define PHOLD_MAX_POPULATION ((int64_t)1048576)
typedef struct phold_params {
    int64_t lps;              /* N >= 1 */
    int64_t population;       /* E >= 1: events per LP at the start */
    double remote;            /* r: the chance that a new event goes to another LP */
    uint64_t remote_threshold; /* thr(r) = floor(r * 2^32), 2^32 for r = 1 */
    int64_t lookahead_ns;     /* A > 0: the least delay of a new event, the window length */
    int64_t mean_ns;          /* M >= 0: the mean of the exponential part of the delay */
} phold_params;

typedef struct scenario {
    char path[1024];          /* file it came from ("" when built in code) */

    /* [simulation] */
    char model[32];           /* "flood" */
    uint64_t seed;
    int64_t duration_ns;      /* 0: until no event remains */

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
    /* not a key: `clnetsim run --packets` asks the model for a record of every packet */
    int record_packets;

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

    /* [partition] */
    int64_t partitions;       /* spatial partitions; 0: chosen from nodes and devices */
    int64_t retile;           /* mobile: windows between re-tilings; 0: never */

    /* [inject]: where event sets run; never changes a result */
    int policy;               /* enum policy_kind */
    int64_t history;          /* samples kept per (kind, device) */
    int64_t hold;             /* windows a hybrid choice is held */
    int64_t threshold;        /* rapid: multiplicity from which sets go to GPUs; 0: learnt */
    int64_t busy;             /* hybrid: sets per device in a window above which it is rapid */
    double calibration_share; /* the most of the measured device time migrating trials cost */

    /* [phold] (model = phold) */
    phold_params phold;

    /* [devices]: what a run does when a device fails; never changes a result */
    int on_failure;           /* enum on_failure_kind */
} scenario;

/* One "-s section.key=value" override, applied after the file, in order. */
typedef struct config_override {
    const char *text;         /* SECTION.KEY=VALUE */
    /* How messages name it: NULL for an -s argument ("-s argument 'TEXT'"), else this text
     * (an override the program made from an option: "--sizes '2,3' (2 nodes: ...)"). */
    const char *source;
} config_override;

/* Reads PATH (NULL: defaults only), applies the overrides, checks every value and every
 * cross-key rule. A file that sets no key (empty, or only comments and section lines) is
 * refused unless an override sets one. On error returns CN_ERR_INPUT with one message naming the file and line (or
 * the -s argument), the section and key, and what was expected. */
int config_load(const char *path, const config_override *overrides, int n_overrides,
                scenario *out, cn_error *err);

/* Same, from INI text in memory (NAME is used in messages as the file name). */
int config_load_string(const char *name, const char *text, const config_override *overrides,
                       int n_overrides, scenario *out, cn_error *err);

/* Prints the effective configuration as an INI file that config_load reads back to the same
 * scenario (values in the INI units: metres, seconds, m/s). */
void config_dump(const scenario *sc, FILE *out);
/* The same text in a malloc'ed string; NULL only when memory runs out. */
char *config_dump_string(const scenario *sc);

/* Prints the key reference (section, key, type, range, default, help) as Markdown. */
void config_print_reference(FILE *out);

/* Number of nodes of the scenario (rows * cols for grids, count * rows * cols for areas). */
int64_t scenario_node_count(const scenario *sc);

/* A bound on every simulated time (ns) a run of SC can reach when no duration stops it: the
 * latest departure, then at most one relay per node (or ttl relays) of relay_delay plus the
 * longest assessment delay, then one window. At most 2^62 for every scenario the
 * configuration accepts without a duration (host/config/checks.c, check_horizon); INT64_MAX
 * when it passes that. */
int64_t scenario_flood_horizon(const scenario *sc);

/* The mobility parameters of node ID: its group's, or [mobility]'s. */
const mobility_params *scenario_node_mobility(const scenario *sc, int64_t id);

/* Cuts [0, nodes) into maximal runs of ids with the same parameters, in id order: writes at
 * most SCENARIO_MAX_SEGMENTS entries to OUT and returns their number. */
int scenario_mobility_segments(const scenario *sc, mobility_segment *out);

/* Node resources (docs/models.md): whether the energy model is on (a budget other than the
 * constant 0), and whether a receive capacity or the energy model is (the window loop then
 * couples the packets). */
int scenario_has_energy(const scenario *sc);
int scenario_has_resources(const scenario *sc);

/* Whether any node moves; the largest speed_max of the nodes that move (0 if none); whether
 * any moving node can wrap around the area (so a step can cross it). */
int scenario_is_mobile(const scenario *sc);
int64_t scenario_speed_max(const scenario *sc);
int scenario_wraps(const scenario *sc);

/* Exact decimal conversions used for the INI units (exposed for tests): TEXT is a decimal
 * number with optional sign, fraction and exponent ("1.5", "-2e-3"); the result is
 * TEXT * 10^SCALE rounded to nearest, ties away from zero. Returns 0 on success, -1 when the
 * text is not a number, -2 when the result does not fit in int64. */
int decimal_to_scaled_int(const char *text, int scale, int64_t *out);

#endif

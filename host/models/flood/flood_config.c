/* The flood model's option group: its sections and keys ([topology], [areas],
 * [connectivity], [mobility] and its groups, [traffic] and its flows, [flood], [resources]),
 * the text of its part of docs/keys.md, and its callbacks (the rules in flood_config_checks.c,
 * the named sections in flood_config_groups.c and flood_config_flows.c). Its values are a
 * flood_values (flood_values.h), kept in a flood scenario's model values, where the flood's
 * code and its oracle read them (flood_values_of). Help texts end up in a Markdown table: no
 * '|' in them. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/philox.h"
#include "models/flood/flood_config.h"

#define FIELD(f) offsetof(flood_values, f)
_Static_assert(sizeof(flood_values) <= SCENARIO_MODEL_BYTES,
               "the flood's values must fit a scenario's model values (host/config/config.h)");
#define FLOW_FIELD(f) offsetof(traffic_flow, f)

/* Largest speed and pause: the draws of docs/model.md compute (w * (max - min + 1)) >> 32 with a
 * 64-bit product, so the span must stay below 2^32. */
#define SPAN32_MAX ((int64_t)4294967295)
/* Node ids and hop counts are 32-bit on the devices. */
#define INT32_LIMIT ((int64_t)2147483647)
/* A flow's largest interval (10^6 s) and latest start (10^9 s), in ns: a source's departure
 * time plus one interval never overflows int64. */
#define FLOW_INTERVAL_MAX_NS ((int64_t)1000000 * 1000000000)
#define FLOW_START_MAX_NS ((int64_t)1000000000 * 1000000000)

static const char *const placement_choices[] = {"grid", "uniform", "areas", NULL};
static const char *const connectivity_choices[] = {"udg", "qudg", NULL};
static const char *const mobility_choices[] = {"static", "rwp", "linear", "random_walk",
                                               "random_direction", "grid_walk", NULL};
static const char *const boundary_choices[] = {"stop", "slide", "bounce", "wrap", NULL};
static const char *const draw_choices[] = {"packet", "node", NULL};
static const char *const scheme_choices[] = {"probabilistic", "counter", "distance", NULL};

static const config_key flood_keys[FK_COUNT] = {
    [FK_PLACEMENT] = {"topology", "placement", KT_CHOICE, FIELD(placement), 0, 0, 0, NULL,
                     placement_choices, "grid",
                     "How nodes are placed: grid (rows x cols, spacing apart, in the plane z = 0), "
                     "uniform (nodes drawn uniformly in width x height x depth) or areas "
                     "([areas] count grids of rows x cols side by side, linked in a chain; "
                     "exact rules: docs/models.md)."},
    [FK_ROWS] = {"topology", "rows", KT_INT, FIELD(rows), 0, SCENARIO_MAX_NODES, 0, NULL, NULL,
                "10",
                "Grid rows (along y); grid and areas placement need rows >= 1. Node id = r * "
                "cols + c (areas: plus a * rows * cols in area a)."},
    [FK_COLS] = {"topology", "cols", KT_INT, FIELD(cols), 0, SCENARIO_MAX_NODES, 0, NULL, NULL,
                "10", "Grid columns (along x); grid and areas placement need cols >= 1."},
    [FK_SPACING] = {"topology", "spacing", KT_LENGTH_MM, FIELD(spacing_mm), 0,
                   SCENARIO_MAX_SIDE_MM, 0, NULL, NULL, "100",
                   "Distance between grid neighbours; grid and areas placement need spacing > "
                   "0. With spacing = range the udg graph is the 4-neighbour grid."},
    [FK_NODES] = {"topology", "nodes", KT_INT, FIELD(nodes), 0, SCENARIO_MAX_NODES, 0, NULL, NULL,
                 "100",
                 "Number of nodes of uniform placement (>= 2). For grid placement it is rows x "
                 "cols, for areas count x rows x cols; setting it to anything else is an "
                 "error."},
    [FK_WIDTH] = {"topology", "width", KT_LENGTH_MM, FIELD(width_mm), 0, SCENARIO_MAX_SIDE_MM, 0,
                 NULL, NULL, "0",
                 "Area side along x (uniform placement and rwp waypoints). Uniform placement "
                 "needs width > 0; for grid placement with rwp mobility, 0 means the grid's "
                 "bounding box, (cols - 1) x spacing."},
    [FK_HEIGHT] = {"topology", "height", KT_LENGTH_MM, FIELD(height_mm), 0, SCENARIO_MAX_SIDE_MM,
                  0, NULL, NULL, "0",
                  "Area side along y. Uniform placement needs height > 0; for grid placement "
                  "with rwp mobility, 0 means the grid's bounding box, (rows - 1) x spacing."},
    [FK_DEPTH] = {"topology", "depth", KT_LENGTH_MM, FIELD(depth_mm), 0, SCENARIO_MAX_SIDE_MM, 0,
                 NULL, NULL, "0", "Area side along z. 0 means a 2-D area (every z is 0)."},

    [FK_AREAS] = {"areas", "count", KT_INT, FIELD(areas), 2, 1024, 0, "areas", NULL, "6",
                 "placement = areas: the number of activity areas, each a grid of [topology] "
                 "rows x cols nodes, side by side along x, 2 x range apart so that no udg link "
                 "joins two of them. The last node of each area is linked to the first of the "
                 "next. Needs static nodes, udg without max_neighbors and one partition. Exact "
                 "rules: docs/models.md."},
    [FK_BORDER_LINKS] = {"areas", "border_links", KT_PROBABILITY, FIELD(border_links), 0, 0, 0,
                        NULL, NULL, "0.1",
                        "placement = areas: the probability that a node of the last column of "
                        "an area is linked to the node of the same row in the first column of "
                        "the next area (a draw per pair, once), besides the chain link."},

    [FK_CONNECTIVITY] = {"connectivity", "model", KT_CHOICE, FIELD(connectivity), 0, 0, 0, NULL,
                        connectivity_choices, "udg",
                        "Link model: udg (unit disk graph: nodes within range of each other "
                        "are neighbours) or qudg (quasi unit disk graph: always linked within "
                        "range_min, never beyond range, in between with link_probability, drawn "
                        "per pair and window). Exact rules: docs/models.md."},
    [FK_RANGE] = {"connectivity", "range", KT_LENGTH_MM, FIELD(range_mm), 0, SCENARIO_MAX_SIDE_MM,
                 KEY_MIN_OPEN, NULL, NULL, "100",
                 "Radio range: i and j are neighbours when their distance is <= range (qudg: "
                 "r_max, the farthest a link reaches)."},
    [FK_RANGE_MIN] = {"connectivity", "range_min", KT_LENGTH_MM, FIELD(range_min_mm), 0,
                     SCENARIO_MAX_SIDE_MM, 0, NULL, NULL, "0",
                     "qudg: r_min (<= range); nodes this close are always linked. Ignored by "
                     "udg."},
    [FK_LINK_PROBABILITY] = {"connectivity", "link_probability", KT_PROBABILITY,
                            FIELD(link_probability), 0, 0, 0, NULL, NULL, "0.5",
                            "qudg: probability q that two nodes between range_min and range "
                            "are linked in a window (a fresh draw per pair and window). "
                            "Ignored by udg."},
    [FK_MAX_NEIGHBORS] = {"connectivity", "max_neighbors", KT_INT, FIELD(max_neighbors), 0,
                         SCENARIO_MAX_NEIGHBORS, 0, NULL, NULL, "0",
                         "Neighbour cap K (0: none). Each node ranks its links by (distance, "
                         "id) and keeps the K first; a link stays when both ends keep it, so "
                         "no node has more than K. The JSON then reports the links of the "
                         "first window and those the cap cut. Exact rules: docs/models.md."},

    [FK_MOBILITY] = {"mobility", "model", KT_CHOICE, FIELD(mob.model), 0, 0, 0, NULL,
                    mobility_choices, "static",
                    "static (nodes never move), rwp (random waypoint in width x height x "
                    "depth), linear (a constant velocity drawn once), random_walk (a new "
                    "direction and speed every window), random_direction (a direction and "
                    "speed for a drawn travel time, then a pause) or grid_walk (along the "
                    "streets of a Manhattan grid, turning at random at intersections); the "
                    "moving ones need speed_max > 0. Exact rules: docs/models.md."},
    [FK_SPEED_MIN] = {"mobility", "speed_min", KT_SPEED_MM_S, FIELD(mob.speed_min_mm_s), 0,
                     SPAN32_MAX, 0, NULL, NULL, "1",
                     "Slowest speed drawn (<= speed_max): rwp per leg, linear once, random_walk "
                     "per window; resolution 1 mm/s. 0 lets a node draw speed 0 (an rwp node "
                     "then stays on its leg for ever)."},
    [FK_SPEED_MAX] = {"mobility", "speed_max", KT_SPEED_MM_S, FIELD(mob.speed_max_mm_s), 0,
                     SPAN32_MAX, 0, NULL, NULL, "5",
                     "Fastest speed drawn; speeds are uniform in [speed_min, speed_max]."},
    [FK_PAUSE_MIN] = {"mobility", "pause_min", KT_TIME_MS, FIELD(mob.pause_min_ms), 0, SPAN32_MAX, 0,
                     NULL, NULL, "0",
                     "Shortest pause (<= pause_max): rwp at a waypoint, random_direction after "
                     "a leg; resolution 1 ms."},
    [FK_PAUSE_MAX] = {"mobility", "pause_max", KT_TIME_MS, FIELD(mob.pause_max_ms), 0, SPAN32_MAX, 0,
                     NULL, NULL, "0", "Longest pause (rwp, random_direction); resolution 1 ms."},
    [FK_TRAVEL_MIN] = {"mobility", "travel_min", KT_TIME_MS, FIELD(mob.travel_min_ms), 1, SPAN32_MAX,
                      0, NULL, NULL, "10",
                      "Shortest random_direction leg (<= travel_max, > 0); resolution 1 ms."},
    [FK_TRAVEL_MAX] = {"mobility", "travel_max", KT_TIME_MS, FIELD(mob.travel_max_ms), 1, SPAN32_MAX,
                      0, NULL, NULL, "60", "Longest random_direction leg; resolution 1 ms."},
    [FK_STREET_SPACING] = {"mobility", "street_spacing", KT_LENGTH_MM, FIELD(mob.street_spacing_mm), 1,
                          SCENARIO_MAX_SIDE_MM, 0, NULL, NULL, "100",
                          "grid_walk: distance between parallel streets (> 0); streets run "
                          "along x and y at multiples of it inside the area. A node may pass "
                          "at most 64 intersections per window."},
    [FK_BOUNDARY] = {"mobility", "boundary", KT_CHOICE, FIELD(mob.boundary), 0, 0, 0, NULL,
                    boundary_choices, "bounce",
                    "What linear, random_walk and random_direction nodes do at a side of the "
                    "area: stop (cancel "
                    "the excess: stay on the side), slide (cancel the move across that axis), "
                    "bounce (reflect) or wrap (come back in at the opposite side; distances "
                    "stay planar). rwp never leaves the area. Exact rules: docs/models.md."},

    [FK_GROUP_NODES] = {"mobility.group NAME", "nodes", KT_IDS, 0, 0, SCENARIO_MAX_NODES - 1, 0,
                       "node ids", NULL, NULL,
                       "The nodes of a mobility group: ranges of ids such as 0-99, 250, "
                       "300-399 (at most 8), each node in at most one group. The section may "
                       "set every key of [mobility]; those it does not set are [mobility]'s. "
                       "Nodes of no group move by [mobility]. At most 16 groups; NAME is "
                       "letters, digits, '_' and '-'."},

    [FK_SOURCE] = {"traffic", "source", KT_INT, FIELD(source), 0, SCENARIO_MAX_NODES - 1, 0,
                  "node id", NULL, "0", "Node that creates every packet; must be < nodes."},
    [FK_DESTINATION] = {"traffic", "destination", KT_INT, FIELD(destination), -1,
                       SCENARIO_MAX_NODES - 1, 0, "node id", NULL, "-1",
                       "Node whose first receptions count as deliveries; -1 means the last node "
                       "(nodes - 1). Must differ from source."},
    [FK_PACKETS] = {"traffic", "packets", KT_INT, FIELD(packets), 1, SCENARIO_MAX_PACKETS, 0,
                   "packets", NULL, "1", "Number of packets the source creates."},
    [FK_INTERVAL] = {"traffic", "interval", KT_TIME_NS, FIELD(interval_ns), 0, KEY_TIME_MAX, 0, NULL,
                    NULL, "1",
                    "Time between two packets: packet k is created at start + k x interval. "
                    "Must be > 0 when packets > 1."},
    [FK_START] = {"traffic", "start", KT_TIME_NS, FIELD(start_ns), 0, KEY_TIME_MAX, 0, NULL, NULL, "0",
                 "Creation time of the first packet."},
    [FK_SIZE] = {"traffic", "size", KT_INT, FIELD(size_bytes), 1, INT32_LIMIT, 0, "bytes", NULL,
                "512", "Packet size, reported with the results (flooding itself ignores it)."},

    [FK_FLOW_SOURCE] = {FLOW_SECTION, "source", KT_SOURCES, FLOW_FIELD(all_sources), 0,
                       SCENARIO_MAX_NODES - 1, 0, "node ids", NULL, "[traffic] source",
                       "A traffic flow's sources, each sending its own packets: all (every node "
                       "but a unicast destination) or id ranges such as 0-99, 250 (at most 8, "
                       "no overlap, without a unicast destination). With any flow, [traffic] "
                       "only gives the values of the keys a flow does not set. At most 16 "
                       "flows, numbered in the order they appear; NAME is letters, digits, '_' "
                       "and '-'. Exact rules: docs/models.md."},
    [FK_FLOW_DESTINATION] = {FLOW_SECTION, "destination", KT_DESTINATION,
                            FLOW_FIELD(destination), -1, SCENARIO_MAX_NODES - 1, 0, "node id",
                            NULL, "[traffic] destination",
                            "A node id, -1 (the last node) or broadcast (every first reception "
                            "by another node is a delivery)."},
    [FK_FLOW_PACKETS] = {FLOW_SECTION, "packets", KT_INT, FLOW_FIELD(packets), 0,
                        SCENARIO_MAX_PACKETS, 0, "packets", NULL, "[traffic] packets",
                        "Packets each source sends; 0: no limit, until simulation.duration "
                        "(which must then be > 0)."},
    [FK_FLOW_INTERVAL] = {FLOW_SECTION, "interval", KT_TIME_LAW, FLOW_FIELD(interval), 0,
                         FLOW_INTERVAL_MAX_NS, 0, NULL, NULL, "[traffic] interval",
                         "Time between two departures of a source: a constant, uniform(a, b) "
                         "(0 <= a <= b) or exponential(mean) (mean > 0), in seconds. An "
                         "interval that is always 0 (b = 0) needs packets = 1."},
    [FK_FLOW_INTERVAL_DRAW] = {FLOW_SECTION, "interval_draw", KT_CHOICE,
                              FLOW_FIELD(interval_draw), 0, 0, 0, NULL, draw_choices, "packet",
                              "packet: a new interval drawn for every packet; node: each source "
                              "draws its interval once and keeps it."},
    [FK_FLOW_START] = {FLOW_SECTION, "start", KT_TIME_LAW, FLOW_FIELD(start), 0,
                      FLOW_START_MAX_NS, KEY_NO_EXPONENTIAL, NULL, NULL, "[traffic] start",
                      "First departure of each source: a constant or uniform(a, b) (0 <= a <= "
                      "b, drawn once per source), in seconds."},
    [FK_FLOW_SIZE] = {FLOW_SECTION, "size", KT_INT, FLOW_FIELD(size_bytes), 1, INT32_LIMIT, 0,
                     "bytes", NULL, "[traffic] size",
                     "Packet size, reported with the results (flooding itself ignores it)."},

    [FK_RELAY_DELAY] = {"flood", "relay_delay", KT_TIME_NS, FIELD(relay_delay_ns), 0, KEY_TIME_MAX,
                       KEY_MIN_OPEN, NULL, NULL, "1",
                       "Delay between the first reception of a packet and its relay. It is the "
                       "lookahead: the window length of the parallel engine."},
    [FK_DROP_PROBABILITY] = {"flood", "drop_probability", KT_PROB_LAW, FIELD(drop), 0, 0, 0,
                            NULL, NULL, "0",
                            "Probability that a node does not relay a packet it received for "
                            "the first time (the source never drops its own packets). "
                            "uniform(a, b): each node draws its own probability in [a, b) at "
                            "the start (exact rule: docs/models.md)."},
    [FK_TTL] = {"flood", "ttl", KT_INT, FIELD(ttl), 0, INT32_LIMIT, 0, "hops", NULL, "0",
               "A packet received with hop count h >= ttl is not relayed. 0 means no limit."},
    [FK_SCHEME] = {"flood", "scheme", KT_CHOICE, FIELD(scheme), 0, 0, 0, NULL, scheme_choices,
                  "probabilistic",
                  "Forwarding scheme: probabilistic (relay after relay_delay unless the relay "
                  "draw drops it), counter (relay only if fewer than counter_threshold copies "
                  "were heard during the assessment delay) or distance (relay only if every copy "
                  "heard came from farther than distance_threshold). drop_probability and ttl "
                  "apply under every scheme; the keys of the other schemes are ignored. Exact "
                  "rules: docs/models.md."},
    [FK_COUNTER_THRESHOLD] = {"flood", "counter_threshold", KT_INT, FIELD(counter_threshold), 2,
                             INT32_LIMIT, 0, "copies", NULL, "3",
                             "Used by scheme = counter: a node relays only if it heard fewer "
                             "than this many copies of the packet during its assessment delay "
                             "(its first reception included)."},
    [FK_DISTANCE_THRESHOLD] = {"flood", "distance_threshold", KT_LENGTH_MM,
                              FIELD(distance_threshold_mm), 0, SCENARIO_MAX_SIDE_MM, 0, NULL,
                              NULL, "0",
                              "Used by scheme = distance, which needs 0 < distance_threshold "
                              "<= range (0: unset): a node relays only if every copy it heard "
                              "during its assessment delay came from farther than this."},
    [FK_ASSESSMENT_DELAY] = {"flood", "assessment_delay", KT_TIME_NS, FIELD(assessment_delay_ns),
                            0, KEY_TIME_MAX, 0, NULL, NULL, "0",
                            "Used by scheme = counter and distance: the longest assessment "
                            "delay, which each node draws per packet in whole relay delays "
                            "from 0 to this. Must be a whole number of relay delays, at most "
                            "1000000 of them."},

    [FK_RX_CAPACITY] = {"resources", "rx_capacity", KT_INT, FIELD(rx_capacity), 0, INT32_LIMIT, 0,
                       "copies", NULL, "0",
                       "Receive capacity M: of the copies that reach a node in one window it "
                       "accepts the first M in the order (time, packet, sender) and refuses the "
                       "others (counted in capacity_drops). 0: no limit. Exact rules: "
                       "docs/models.md."},
    [FK_ENERGY_BUDGET] = {"resources", "energy_budget", KT_ENERGY_LAW, FIELD(energy_budget), 0,
                         SCENARIO_MAX_ENERGY_NJ, KEY_NO_EXPONENTIAL, NULL, NULL, "0",
                         "Energy of each node at the start, in joules (resolution 1 nJ), or "
                         "uniform(a, b) drawn per node. A node pays for its transmissions and "
                         "accepted copies and dies at the first it cannot pay. 0: no energy "
                         "model. Exact rules: docs/models.md."},
    [FK_TX_FIXED] = {"resources", "tx_fixed", KT_ENERGY_NJ, FIELD(tx_fixed_nj), 0,
                    SCENARIO_MAX_ENERGY_NJ, 0, NULL, NULL, "0",
                    "Energy of one transmission, fixed part (with an energy budget)."},
    [FK_TX_PER_BYTE] = {"resources", "tx_per_byte", KT_ENERGY_NJ, FIELD(tx_per_byte_nj), 0,
                       SCENARIO_MAX_ENERGY_NJ, 0, NULL, NULL, "0",
                       "Energy of one transmission per byte of the packet's size."},
    [FK_RX_FIXED] = {"resources", "rx_fixed", KT_ENERGY_NJ, FIELD(rx_fixed_nj), 0,
                    SCENARIO_MAX_ENERGY_NJ, 0, NULL, NULL, "0",
                    "Energy of one accepted copy, fixed part (with an energy budget)."},
    [FK_RX_PER_BYTE] = {"resources", "rx_per_byte", KT_ENERGY_NJ, FIELD(rx_per_byte_nj), 0,
                       SCENARIO_MAX_ENERGY_NJ, 0, NULL, NULL, "0",
                       "Energy of one accepted copy per byte of the packet's size."},

};

int flood_first_key;

/* For a grid or areas, nodes is derived from rows x cols: written as a comment so that the
 * dump stays editable (changing rows must not clash with a stale nodes line). */
static int dump_line(const scenario *scn, int key, const char *value, FILE *out)
{
    const flood_values *sc = flood_values_of(scn);
    if (key == K_NODES && sc->placement == PLACEMENT_GRID) {
        fprintf(out, "; nodes = %s (rows x cols, derived for grid placement)\n", value);
        return 1;
    }
    if (key == K_NODES && sc->placement == PLACEMENT_AREAS) {
        fprintf(out, "; nodes = %s ([areas] count x rows x cols, derived for areas "
                     "placement)\n", value);
        return 1;
    }
    return 0;
}

/* The groups, each with its full set of keys, where [mobility.group NAME] stands; the flows
 * come after the core's sections (dump_tail). */
static void dump_named(const scenario *sc, int key, FILE *out)
{
    if (key == K_GROUP_NODES)
        config_dump_groups(flood_values_of(sc), out);
}

static void dump_tail(const scenario *sc, FILE *out) { config_dump_flows(flood_values_of(sc), out); }

static void strays(const load_ctx *ctx, config_stray *s)
{
    const flood_values *sc = flood_load_values(ctx);
    const flood_load *st = flood_load_of(ctx);
    char label[GROUP_NAME_MAX + 24];
    for (int g = 0; g < sc->n_groups; g++) {
        snprintf(label, sizeof label, "mobility.group %s", sc->groups[g].name);
        for (int k = 0; k < config_key_count(); k++)
            config_stray_consider(s, &st->groups[g].keys[k], label, config_key_at(k)->name);
    }
    for (int f = 0; f < sc->n_flows; f++) {
        snprintf(label, sizeof label, "traffic.flow %s", sc->flows[f].name);
        int keys = 0;
        for (int k = 0; k < config_key_count(); k++) {
            config_stray_consider(s, &st->flows[f].keys[k], label, config_key_at(k)->name);
            keys += st->flows[f].keys[k].origin != ORIGIN_DEFAULT;
        }
        if (keys == 0) /* a section line alone makes a flow */
            config_stray_consider(s, &st->flows[f].opened, label, NULL);
    }
}

static int has_named(const load_ctx *ctx)
{
    const flood_values *sc = flood_load_values(ctx);
    return sc->n_flows > 0 || sc->n_groups > 0;
}

/* The thresholds of its probabilities (config_finish). */
static void derive(void *values)
{
    flood_values *sc = values;
    sc->drop_threshold = philox_threshold(sc->drop.p);
    sc->drop_threshold_max = philox_threshold(sc->drop.p_max);
    sc->link_threshold = philox_threshold(sc->link_probability);
    sc->border_threshold = philox_threshold(sc->border_links);
}

static const config_named_section flood_named[] = {
    {"mobility.group", NULL, config_assign_group},
    {"traffic.flow", config_open_flow, config_assign_flow},
};

const model_config flood_config = {
    .model = "flood",
    .summary = "packets flooded over a network of nodes, docs/model.md",
    .keys = flood_keys,
    .n_keys = FK_COUNT,
    .first_key = &flood_first_key,
    .named = flood_named,
    .n_named = (int)(sizeof flood_named / sizeof flood_named[0]),
    .values_size = sizeof(flood_values),
    .load_state_size = sizeof(flood_load),
    .check = flood_config_check,
    .derive = derive,
    .dump_line = dump_line,
    .dump_named = dump_named,
    .dump_tail = dump_tail,
    .strays = strays,
    .has_named = has_named,
    .reference = "`model = flood` (the default): packets flooded over a network of static or\n"
                 "mobile nodes (docs/model.md, docs/models.md).\n\n",
};

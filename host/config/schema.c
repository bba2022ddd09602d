/* The schema: every key a scenario may hold. This one table drives parsing, -s overrides,
 * defaults, --dump-config and docs/keys.md, so a key added here is complete everywhere. Help
 * texts end up in a Markdown table: no '|' in them. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

#define FIELD(f) offsetof(scenario, f)
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

static const char *const model_choices[] = {"flood", "phold", NULL};
static const char *const placement_choices[] = {"grid", "uniform", "areas", NULL};
static const char *const connectivity_choices[] = {"udg", "qudg", NULL};
static const char *const mobility_choices[] = {"static", "rwp", "linear", "random_walk",
                                               "random_direction", "grid_walk", NULL};
static const char *const boundary_choices[] = {"stop", "slide", "bounce", "wrap", NULL};
static const char *const policy_choices[] = {"static", "rapid", "advanced", "hybrid", NULL};
static const char *const draw_choices[] = {"packet", "node", NULL};
static const char *const scheme_choices[] = {"probabilistic", "counter", "distance", NULL};
static const char *const failure_choices[] = {"stop", "continue", NULL};

const char *const config_sections[] = {"simulation", "topology",  "areas",     "connectivity",
                                       "mobility",   "traffic",   "flood",     "resources",
                                       "partition",  "inject",    "devices",   "phold",
                                       NULL};

/* The sections of each model; the others (and only they) are the core's. */
static const char *const flood_sections[] = {"topology",  "areas",           "connectivity",
                                             "mobility",  "mobility.group NAME", "traffic",
                                             "traffic.flow NAME", "flood", "resources", NULL};
static const char *const phold_sections[] = {"phold", NULL};

const config_key config_keys[K_COUNT] = {
    [K_MODEL] = {"simulation", "model", KT_NAME, FIELD(model), 0, 0, 0, NULL, model_choices,
                 "flood",
                 "Model to simulate: flood (packets flooded over a network of nodes, "
                 "docs/model.md) or phold (the PHOLD benchmark of parallel simulators: "
                 "logical processes passing events, docs/models/phold.md). A scenario may set "
                 "the core sections and those of its model only; a key of another model's "
                 "section is an error."},
    [K_SEED] = {"simulation", "seed", KT_SEED, FIELD(seed), 0, 0, 0, NULL, NULL, "1",
                "Key of every random draw (Philox4x32-10). Same scenario and seed give the same "
                "results on every device."},
    [K_DURATION] = {"simulation", "duration", KT_TIME_NS, FIELD(duration_ns), 0, KEY_TIME_MAX, 0,
                    NULL, NULL, "0",
                    "Simulated time at which the run stops (events at or after it are not "
                    "executed). 0 runs until no event remains."},

    [K_PLACEMENT] = {"topology", "placement", KT_CHOICE, FIELD(placement), 0, 0, 0, NULL,
                     placement_choices, "grid",
                     "How nodes are placed: grid (rows x cols, spacing apart, in the plane z = 0), "
                     "uniform (nodes drawn uniformly in width x height x depth) or areas "
                     "([areas] count grids of rows x cols side by side, linked in a chain; "
                     "exact rules: docs/models.md)."},
    [K_ROWS] = {"topology", "rows", KT_INT, FIELD(rows), 0, SCENARIO_MAX_NODES, 0, NULL, NULL,
                "10",
                "Grid rows (along y); grid and areas placement need rows >= 1. Node id = r * "
                "cols + c (areas: plus a * rows * cols in area a)."},
    [K_COLS] = {"topology", "cols", KT_INT, FIELD(cols), 0, SCENARIO_MAX_NODES, 0, NULL, NULL,
                "10", "Grid columns (along x); grid and areas placement need cols >= 1."},
    [K_SPACING] = {"topology", "spacing", KT_LENGTH_MM, FIELD(spacing_mm), 0,
                   SCENARIO_MAX_SIDE_MM, 0, NULL, NULL, "100",
                   "Distance between grid neighbours; grid and areas placement need spacing > "
                   "0. With spacing = range the udg graph is the 4-neighbour grid."},
    [K_NODES] = {"topology", "nodes", KT_INT, FIELD(nodes), 0, SCENARIO_MAX_NODES, 0, NULL, NULL,
                 "100",
                 "Number of nodes of uniform placement (>= 2). For grid placement it is rows x "
                 "cols, for areas count x rows x cols; setting it to anything else is an "
                 "error."},
    [K_WIDTH] = {"topology", "width", KT_LENGTH_MM, FIELD(width_mm), 0, SCENARIO_MAX_SIDE_MM, 0,
                 NULL, NULL, "0",
                 "Area side along x (uniform placement and rwp waypoints). Uniform placement "
                 "needs width > 0; for grid placement with rwp mobility, 0 means the grid's "
                 "bounding box, (cols - 1) x spacing."},
    [K_HEIGHT] = {"topology", "height", KT_LENGTH_MM, FIELD(height_mm), 0, SCENARIO_MAX_SIDE_MM,
                  0, NULL, NULL, "0",
                  "Area side along y. Uniform placement needs height > 0; for grid placement "
                  "with rwp mobility, 0 means the grid's bounding box, (rows - 1) x spacing."},
    [K_DEPTH] = {"topology", "depth", KT_LENGTH_MM, FIELD(depth_mm), 0, SCENARIO_MAX_SIDE_MM, 0,
                 NULL, NULL, "0", "Area side along z. 0 means a 2-D area (every z is 0)."},

    [K_AREAS] = {"areas", "count", KT_INT, FIELD(areas), 2, 1024, 0, "areas", NULL, "6",
                 "placement = areas: the number of activity areas, each a grid of [topology] "
                 "rows x cols nodes, side by side along x, 2 x range apart so that no udg link "
                 "joins two of them. The last node of each area is linked to the first of the "
                 "next. Needs static nodes, udg without max_neighbors and one partition. Exact "
                 "rules: docs/models.md."},
    [K_BORDER_LINKS] = {"areas", "border_links", KT_PROBABILITY, FIELD(border_links), 0, 0, 0,
                        NULL, NULL, "0.1",
                        "placement = areas: the probability that a node of the last column of "
                        "an area is linked to the node of the same row in the first column of "
                        "the next area (a draw per pair, once), besides the chain link."},

    [K_CONNECTIVITY] = {"connectivity", "model", KT_CHOICE, FIELD(connectivity), 0, 0, 0, NULL,
                        connectivity_choices, "udg",
                        "Link model: udg (unit disk graph: nodes within range of each other "
                        "are neighbours) or qudg (quasi unit disk graph: always linked within "
                        "range_min, never beyond range, in between with link_probability, drawn "
                        "per pair and window). Exact rules: docs/models.md."},
    [K_RANGE] = {"connectivity", "range", KT_LENGTH_MM, FIELD(range_mm), 0, SCENARIO_MAX_SIDE_MM,
                 KEY_MIN_OPEN, NULL, NULL, "100",
                 "Radio range: i and j are neighbours when their distance is <= range (qudg: "
                 "r_max, the farthest a link reaches)."},
    [K_RANGE_MIN] = {"connectivity", "range_min", KT_LENGTH_MM, FIELD(range_min_mm), 0,
                     SCENARIO_MAX_SIDE_MM, 0, NULL, NULL, "0",
                     "qudg: r_min (<= range); nodes this close are always linked. Ignored by "
                     "udg."},
    [K_LINK_PROBABILITY] = {"connectivity", "link_probability", KT_PROBABILITY,
                            FIELD(link_probability), 0, 0, 0, NULL, NULL, "0.5",
                            "qudg: probability q that two nodes between range_min and range "
                            "are linked in a window (a fresh draw per pair and window). "
                            "Ignored by udg."},
    [K_MAX_NEIGHBORS] = {"connectivity", "max_neighbors", KT_INT, FIELD(max_neighbors), 0,
                         SCENARIO_MAX_NEIGHBORS, 0, NULL, NULL, "0",
                         "Neighbour cap K (0: none). Each node ranks its links by (distance, "
                         "id) and keeps the K first; a link stays when both ends keep it, so "
                         "no node has more than K. The JSON then reports the links of the "
                         "first window and those the cap cut. Exact rules: docs/models.md."},

    [K_MOBILITY] = {"mobility", "model", KT_CHOICE, FIELD(mob.model), 0, 0, 0, NULL,
                    mobility_choices, "static",
                    "static (nodes never move), rwp (random waypoint in width x height x "
                    "depth), linear (a constant velocity drawn once), random_walk (a new "
                    "direction and speed every window), random_direction (a direction and "
                    "speed for a drawn travel time, then a pause) or grid_walk (along the "
                    "streets of a Manhattan grid, turning at random at intersections); the "
                    "moving ones need speed_max > 0. Exact rules: docs/models.md."},
    [K_SPEED_MIN] = {"mobility", "speed_min", KT_SPEED_MM_S, FIELD(mob.speed_min_mm_s), 0,
                     SPAN32_MAX, 0, NULL, NULL, "1",
                     "Slowest speed drawn (<= speed_max): rwp per leg, linear once, random_walk "
                     "per window; resolution 1 mm/s. 0 lets a node draw speed 0 (an rwp node "
                     "then stays on its leg for ever)."},
    [K_SPEED_MAX] = {"mobility", "speed_max", KT_SPEED_MM_S, FIELD(mob.speed_max_mm_s), 0,
                     SPAN32_MAX, 0, NULL, NULL, "5",
                     "Fastest speed drawn; speeds are uniform in [speed_min, speed_max]."},
    [K_PAUSE_MIN] = {"mobility", "pause_min", KT_TIME_MS, FIELD(mob.pause_min_ms), 0, SPAN32_MAX, 0,
                     NULL, NULL, "0",
                     "Shortest pause (<= pause_max): rwp at a waypoint, random_direction after "
                     "a leg; resolution 1 ms."},
    [K_PAUSE_MAX] = {"mobility", "pause_max", KT_TIME_MS, FIELD(mob.pause_max_ms), 0, SPAN32_MAX, 0,
                     NULL, NULL, "0", "Longest pause (rwp, random_direction); resolution 1 ms."},
    [K_TRAVEL_MIN] = {"mobility", "travel_min", KT_TIME_MS, FIELD(mob.travel_min_ms), 1, SPAN32_MAX,
                      0, NULL, NULL, "10",
                      "Shortest random_direction leg (<= travel_max, > 0); resolution 1 ms."},
    [K_TRAVEL_MAX] = {"mobility", "travel_max", KT_TIME_MS, FIELD(mob.travel_max_ms), 1, SPAN32_MAX,
                      0, NULL, NULL, "60", "Longest random_direction leg; resolution 1 ms."},
    [K_STREET_SPACING] = {"mobility", "street_spacing", KT_LENGTH_MM, FIELD(mob.street_spacing_mm), 1,
                          SCENARIO_MAX_SIDE_MM, 0, NULL, NULL, "100",
                          "grid_walk: distance between parallel streets (> 0); streets run "
                          "along x and y at multiples of it inside the area. A node may pass "
                          "at most 64 intersections per window."},
    [K_BOUNDARY] = {"mobility", "boundary", KT_CHOICE, FIELD(mob.boundary), 0, 0, 0, NULL,
                    boundary_choices, "bounce",
                    "What linear, random_walk and random_direction nodes do at a side of the "
                    "area: stop (cancel "
                    "the excess: stay on the side), slide (cancel the move across that axis), "
                    "bounce (reflect) or wrap (come back in at the opposite side; distances "
                    "stay planar). rwp never leaves the area. Exact rules: docs/models.md."},

    [K_GROUP_NODES] = {"mobility.group NAME", "nodes", KT_IDS, 0, 0, SCENARIO_MAX_NODES - 1, 0,
                       "node ids", NULL, NULL,
                       "The nodes of a mobility group: ranges of ids such as 0-99, 250, "
                       "300-399 (at most 8), each node in at most one group. The section may "
                       "set every key of [mobility]; those it does not set are [mobility]'s. "
                       "Nodes of no group move by [mobility]. At most 16 groups; NAME is "
                       "letters, digits, '_' and '-'."},

    [K_SOURCE] = {"traffic", "source", KT_INT, FIELD(source), 0, SCENARIO_MAX_NODES - 1, 0,
                  "node id", NULL, "0", "Node that creates every packet; must be < nodes."},
    [K_DESTINATION] = {"traffic", "destination", KT_INT, FIELD(destination), -1,
                       SCENARIO_MAX_NODES - 1, 0, "node id", NULL, "-1",
                       "Node whose first receptions count as deliveries; -1 means the last node "
                       "(nodes - 1). Must differ from source."},
    [K_PACKETS] = {"traffic", "packets", KT_INT, FIELD(packets), 1, SCENARIO_MAX_PACKETS, 0,
                   "packets", NULL, "1", "Number of packets the source creates."},
    [K_INTERVAL] = {"traffic", "interval", KT_TIME_NS, FIELD(interval_ns), 0, KEY_TIME_MAX, 0, NULL,
                    NULL, "1",
                    "Time between two packets: packet k is created at start + k x interval. "
                    "Must be > 0 when packets > 1."},
    [K_START] = {"traffic", "start", KT_TIME_NS, FIELD(start_ns), 0, KEY_TIME_MAX, 0, NULL, NULL, "0",
                 "Creation time of the first packet."},
    [K_SIZE] = {"traffic", "size", KT_INT, FIELD(size_bytes), 1, INT32_LIMIT, 0, "bytes", NULL,
                "512", "Packet size, reported with the results (flooding itself ignores it)."},

    [K_FLOW_SOURCE] = {FLOW_SECTION, "source", KT_SOURCES, FLOW_FIELD(all_sources), 0,
                       SCENARIO_MAX_NODES - 1, 0, "node ids", NULL, "[traffic] source",
                       "A traffic flow's sources, each sending its own packets: all (every node "
                       "but a unicast destination) or id ranges such as 0-99, 250 (at most 8, "
                       "no overlap, without a unicast destination). With any flow, [traffic] "
                       "only gives the values of the keys a flow does not set. At most 16 "
                       "flows, numbered in the order they appear; NAME is letters, digits, '_' "
                       "and '-'. Exact rules: docs/models.md."},
    [K_FLOW_DESTINATION] = {FLOW_SECTION, "destination", KT_DESTINATION,
                            FLOW_FIELD(destination), -1, SCENARIO_MAX_NODES - 1, 0, "node id",
                            NULL, "[traffic] destination",
                            "A node id, -1 (the last node) or broadcast (every first reception "
                            "by another node is a delivery)."},
    [K_FLOW_PACKETS] = {FLOW_SECTION, "packets", KT_INT, FLOW_FIELD(packets), 0,
                        SCENARIO_MAX_PACKETS, 0, "packets", NULL, "[traffic] packets",
                        "Packets each source sends; 0: no limit, until simulation.duration "
                        "(which must then be > 0)."},
    [K_FLOW_INTERVAL] = {FLOW_SECTION, "interval", KT_TIME_LAW, FLOW_FIELD(interval), 0,
                         FLOW_INTERVAL_MAX_NS, 0, NULL, NULL, "[traffic] interval",
                         "Time between two departures of a source: a constant, uniform(a, b) "
                         "(0 <= a <= b) or exponential(mean) (mean > 0), in seconds. An "
                         "interval that is always 0 (b = 0) needs packets = 1."},
    [K_FLOW_INTERVAL_DRAW] = {FLOW_SECTION, "interval_draw", KT_CHOICE,
                              FLOW_FIELD(interval_draw), 0, 0, 0, NULL, draw_choices, "packet",
                              "packet: a new interval drawn for every packet; node: each source "
                              "draws its interval once and keeps it."},
    [K_FLOW_START] = {FLOW_SECTION, "start", KT_TIME_LAW, FLOW_FIELD(start), 0,
                      FLOW_START_MAX_NS, KEY_NO_EXPONENTIAL, NULL, NULL, "[traffic] start",
                      "First departure of each source: a constant or uniform(a, b) (0 <= a <= "
                      "b, drawn once per source), in seconds."},
    [K_FLOW_SIZE] = {FLOW_SECTION, "size", KT_INT, FLOW_FIELD(size_bytes), 1, INT32_LIMIT, 0,
                     "bytes", NULL, "[traffic] size",
                     "Packet size, reported with the results (flooding itself ignores it)."},

    [K_RELAY_DELAY] = {"flood", "relay_delay", KT_TIME_NS, FIELD(relay_delay_ns), 0, KEY_TIME_MAX,
                       KEY_MIN_OPEN, NULL, NULL, "1",
                       "Delay between the first reception of a packet and its relay. It is the "
                       "lookahead: the window length of the parallel engine."},
    [K_DROP_PROBABILITY] = {"flood", "drop_probability", KT_PROB_LAW, FIELD(drop), 0, 0, 0,
                            NULL, NULL, "0",
                            "Probability that a node does not relay a packet it received for "
                            "the first time (the source never drops its own packets). "
                            "uniform(a, b): each node draws its own probability in [a, b) at "
                            "the start (exact rule: docs/models.md)."},
    [K_TTL] = {"flood", "ttl", KT_INT, FIELD(ttl), 0, INT32_LIMIT, 0, "hops", NULL, "0",
               "A packet received with hop count h >= ttl is not relayed. 0 means no limit."},
    [K_SCHEME] = {"flood", "scheme", KT_CHOICE, FIELD(scheme), 0, 0, 0, NULL, scheme_choices,
                  "probabilistic",
                  "Forwarding scheme: probabilistic (relay after relay_delay unless the relay "
                  "draw drops it), counter (relay only if fewer than counter_threshold copies "
                  "were heard during the assessment delay) or distance (relay only if every copy "
                  "heard came from farther than distance_threshold). drop_probability and ttl "
                  "apply under every scheme; the keys of the other schemes are ignored. Exact "
                  "rules: docs/models.md."},
    [K_COUNTER_THRESHOLD] = {"flood", "counter_threshold", KT_INT, FIELD(counter_threshold), 2,
                             INT32_LIMIT, 0, "copies", NULL, "3",
                             "Used by scheme = counter: a node relays only if it heard fewer "
                             "than this many copies of the packet during its assessment delay "
                             "(its first reception included)."},
    [K_DISTANCE_THRESHOLD] = {"flood", "distance_threshold", KT_LENGTH_MM,
                              FIELD(distance_threshold_mm), 0, SCENARIO_MAX_SIDE_MM, 0, NULL,
                              NULL, "0",
                              "Used by scheme = distance, which needs 0 < distance_threshold "
                              "<= range (0: unset): a node relays only if every copy it heard "
                              "during its assessment delay came from farther than this."},
    [K_ASSESSMENT_DELAY] = {"flood", "assessment_delay", KT_TIME_NS, FIELD(assessment_delay_ns),
                            0, KEY_TIME_MAX, 0, NULL, NULL, "0",
                            "Used by scheme = counter and distance: the longest assessment "
                            "delay, which each node draws per packet in whole relay delays "
                            "from 0 to this. Must be a whole number of relay delays, at most "
                            "1000000 of them."},

    [K_RX_CAPACITY] = {"resources", "rx_capacity", KT_INT, FIELD(rx_capacity), 0, INT32_LIMIT, 0,
                       "copies", NULL, "0",
                       "Receive capacity M: of the copies that reach a node in one window it "
                       "accepts the first M in the order (time, packet, sender) and refuses the "
                       "others (counted in capacity_drops). 0: no limit. Exact rules: "
                       "docs/models.md."},
    [K_ENERGY_BUDGET] = {"resources", "energy_budget", KT_ENERGY_LAW, FIELD(energy_budget), 0,
                         SCENARIO_MAX_ENERGY_NJ, KEY_NO_EXPONENTIAL, NULL, NULL, "0",
                         "Energy of each node at the start, in joules (resolution 1 nJ), or "
                         "uniform(a, b) drawn per node. A node pays for its transmissions and "
                         "accepted copies and dies at the first it cannot pay. 0: no energy "
                         "model. Exact rules: docs/models.md."},
    [K_TX_FIXED] = {"resources", "tx_fixed", KT_ENERGY_NJ, FIELD(tx_fixed_nj), 0,
                    SCENARIO_MAX_ENERGY_NJ, 0, NULL, NULL, "0",
                    "Energy of one transmission, fixed part (with an energy budget)."},
    [K_TX_PER_BYTE] = {"resources", "tx_per_byte", KT_ENERGY_NJ, FIELD(tx_per_byte_nj), 0,
                       SCENARIO_MAX_ENERGY_NJ, 0, NULL, NULL, "0",
                       "Energy of one transmission per byte of the packet's size."},
    [K_RX_FIXED] = {"resources", "rx_fixed", KT_ENERGY_NJ, FIELD(rx_fixed_nj), 0,
                    SCENARIO_MAX_ENERGY_NJ, 0, NULL, NULL, "0",
                    "Energy of one accepted copy, fixed part (with an energy budget)."},
    [K_RX_PER_BYTE] = {"resources", "rx_per_byte", KT_ENERGY_NJ, FIELD(rx_per_byte_nj), 0,
                       SCENARIO_MAX_ENERGY_NJ, 0, NULL, NULL, "0",
                       "Energy of one accepted copy per byte of the packet's size."},

    [K_PARTITIONS] = {"partition", "count", KT_INT, FIELD(partitions), 0, 4096, 0, "partitions",
                      NULL, "0",
                      "Spatial partitions (tiles with equal node counts at the start); each "
                      "lives on one device. 0: static scenarios flood whole packets and split "
                      "the run between devices by packet; mobile ones take one partition per "
                      "device when the devices are all CPUs or all GPUs (fewer for small "
                      "scenarios), one when they are mixed. Results never depend on it."},
    [K_RETILE] = {"partition", "retile", KT_INT, FIELD(retile), 0, 1000000, 0, "windows", NULL,
                  "8",
                  "Mobile scenarios with several partitions: every this many windows each node "
                  "joins the partition of the tile it is in, so that partitions stay compact "
                  "and the border exchanged between devices thin. 0 keeps the first tiling. "
                  "Results never depend on it."},
    [K_POLICY] = {"inject", "policy", KT_CHOICE, FIELD(policy), 0, 0, 0, NULL, policy_choices,
                  "hybrid",
                  "Which device runs each event set: static (partitions stay where placed), "
                  "rapid (a multiplicity threshold sends large sets to GPUs), advanced "
                  "(predicted finish time, with migration) or hybrid (rapid or advanced by how "
                  "full the input is). Results never depend on it. See docs/injector.md."},
    [K_HISTORY] = {"inject", "history", KT_INT, FIELD(history), 2, 4096, 0, "samples", NULL, "32",
                   "Measured launches kept per (event kind, device) in the feedback table."},
    [K_HOLD] = {"inject", "hold", KT_INT, FIELD(hold), 1, 1000000, 0, "windows", NULL, "16",
                "Windows for which hybrid keeps a choice between rapid and advanced."},
    [K_THRESHOLD] = {"inject", "threshold", KT_INT, FIELD(threshold), 0, INT64_MAX, 0, "events",
                     NULL, "0",
                     "rapid: multiplicity from which a set goes to a GPU. 0 learns it from the "
                     "feedback table and recalibrates it during the run."},
    [K_BUSY] = {"inject", "busy", KT_INT, FIELD(busy), 1, 1000000, 0, "sets per device", NULL,
                "4",
                "hybrid: above this many event sets per device in a window the input counts as "
                "full and rapid decides; at or below it, advanced."},
    [K_CALIBRATION_SHARE] = {"inject", "calibration_share", KT_PROBABILITY,
                             FIELD(calibration_share), 0, 0, 0, NULL, NULL, "0.05",
                             "The most that calibration trials which move a partition may cost, "
                             "as a share of the device time measured so far: such a trial waits "
                             "until the run has measured its cost divided by this share. 0 tries "
                             "every device at once."},

    [K_ON_FAILURE] = {"devices", "on_failure", KT_CHOICE, FIELD(on_failure), 0, 0, 0, NULL,
                      failure_choices, "stop",
                      "What a run does when one of several devices fails (a kernel build, too "
                      "little memory, an allocation, a launch, a lost device): stop (the run "
                      "ends with the error) or continue (the device is left out and the run "
                      "goes on on the others, with the same results; the JSON marks it "
                      "failed). See docs/when-things-go-wrong.md."},

    [K_PHOLD_LPS] = {"phold", "lps", KT_INT, FIELD(phold.lps), 1, PHOLD_MAX_LPS, 0, "LPs", NULL,
                     "1000",
                     "Number N of logical processes (LPs), numbered 0 to N - 1. The model's "
                     "definition gives no default; 1000 is clnetsim's."},
    [K_PHOLD_POPULATION] = {"phold", "population", KT_INT, FIELD(phold.population), 1,
                            PHOLD_MAX_POPULATION, 0, "events per LP", NULL, "16",
                            "Events E that each LP holds at the start. Each executed event "
                            "creates exactly one new event, so N x E events stay pending for "
                            "the whole run."},
    [K_PHOLD_REMOTE] = {"phold", "remote", KT_PROBABILITY, FIELD(phold.remote), 0, 0, 0, NULL,
                        NULL, "0.1",
                        "Probability r that the new event of an executed event goes to another "
                        "LP, drawn uniformly among the N - 1 others; otherwise it stays on the "
                        "LP that executed it (always, when N = 1)."},
    [K_PHOLD_LOOKAHEAD] = {"phold", "lookahead", KT_TIME_NS, FIELD(phold.lookahead_ns), 0,
                           KEY_TIME_MAX, KEY_MIN_OPEN, NULL, NULL, "0.1",
                           "Fixed part A of every delay: a new event lands at least A after the "
                           "event that created it (the first events at A plus a draw). It is "
                           "the lookahead: the window length of the parallel engine."},
    [K_PHOLD_MEAN] = {"phold", "mean", KT_TIME_NS, FIELD(phold.mean_ns), 0, KEY_TIME_MAX, 0,
                      NULL, NULL, "0.9",
                      "Mean M of the exponential part of every delay, added to lookahead: a "
                      "draw from a table of 65536 quantiles of the exponential law (at most "
                      "about 11.8 x M). 0: every delay is exactly lookahead. Exact rules: "
                      "docs/models/phold.md."},
};

static int listed(const char *const *list, const char *name)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

const char *config_section_model(const char *section)
{
    if (listed(flood_sections, section))
        return "flood";
    if (listed(phold_sections, section))
        return "phold";
    return NULL;
}

int config_section_known(const char *section)
{
    for (int i = 0; config_sections[i]; i++)
        if (strcmp(config_sections[i], section) == 0)
            return 1;
    return 0;
}

int config_find_key(const char *section, const char *name)
{
    for (int k = 0; k < K_COUNT; k++)
        if (strcmp(config_keys[k].section, section) == 0 && strcmp(config_keys[k].name, name) == 0)
            return k;
    return -1;
}

int key_type_scale(enum key_type type)
{
    switch (type) {
    case KT_TIME_NS:
    case KT_ENERGY_NJ:
        return 9;
    case KT_TIME_MS:
    case KT_LENGTH_MM:
    case KT_SPEED_MM_S:
        return 3;
    default:
        return 0;
    }
}

/* "in [0, 2147483.647]", "in (0, 2147483.647]", ">= 0" or "> 0" (no upper bound shown when it
 * is only the int64 limit, which has its own message). */
static void range_text(const config_key *k, char *buf, size_t size)
{
    char lo[32], hi[32];
    int scale = key_type_scale(k->type);
    format_scaled(k->min, scale, lo, sizeof lo);
    format_scaled(k->max, scale, hi, sizeof hi);
    int open = (k->flags & KEY_MIN_OPEN) != 0;
    if (k->max == INT64_MAX)
        snprintf(buf, size, "%s %s", open ? ">" : ">=", lo);
    else
        snprintf(buf, size, "in %s%s, %s]", open ? "(" : "[", lo, hi);
}

static void choices_text(const config_key *k, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; k->choices[i] && used < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", k->choices[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

void config_expected(int key, char *buf, size_t size)
{
    const config_key *k = &config_keys[key];
    char range[96], list[128];
    switch (k->type) {
    case KT_CHOICE:
    case KT_NAME:
        choices_text(k, list, sizeof list);
        snprintf(buf, size, "one of: %s", list);
        break;
    case KT_SEED:
        snprintf(buf, size, "an integer in [0, 18446744073709551615], decimal or 0x hex");
        break;
    case KT_INT:
        range_text(k, range, sizeof range);
        snprintf(buf, size, "an integer %s%s%s%s", range, k->unit ? " (" : "",
                 k->unit ? k->unit : "", k->unit ? ")" : "");
        break;
    case KT_TIME_NS:
    case KT_TIME_MS:
        range_text(k, range, sizeof range);
        snprintf(buf, size, "a time in seconds %s", range);
        break;
    case KT_LENGTH_MM:
        range_text(k, range, sizeof range);
        snprintf(buf, size, "a length in metres %s", range);
        break;
    case KT_SPEED_MM_S:
        range_text(k, range, sizeof range);
        snprintf(buf, size, "a speed in m/s %s", range);
        break;
    case KT_ENERGY_NJ:
        range_text(k, range, sizeof range);
        snprintf(buf, size, "an energy in joules %s", range);
        break;
    case KT_ENERGY_LAW: {
        char hi[32];
        format_scaled(k->max, 9, hi, sizeof hi);
        snprintf(buf, size, "an energy in joules in [0, %s] or uniform(a, b) with 0 <= a <= b "
                            "<= %s (joules)", hi, hi);
        break;
    }
    case KT_PROBABILITY:
        snprintf(buf, size, "a probability in [0, 1]");
        break;
    case KT_PROB_LAW:
        snprintf(buf, size, "a probability in [0, 1] or uniform(a, b) with 0 <= a <= b <= 1");
        break;
    case KT_IDS:
        snprintf(buf, size, "node id ranges such as 0-99, 250, 300-399 (first <= last, at most "
                            "%d ranges)", GROUP_MAX_RANGES);
        break;
    case KT_SOURCES:
        snprintf(buf, size, "all, or node id ranges such as 0-99, 250, 300-399 (first <= last, "
                            "at most %d ranges)", FLOW_MAX_RANGES);
        break;
    case KT_DESTINATION:
        range_text(k, range, sizeof range);
        snprintf(buf, size, "an integer %s (node id; -1: the last node) or broadcast", range);
        break;
    case KT_TIME_LAW: {
        char hi[32];
        format_scaled(k->max, 9, hi, sizeof hi);
        if (k->flags & KEY_NO_EXPONENTIAL)
            snprintf(buf, size, "a time in seconds in [0, %s] or uniform(a, b) with 0 <= a <= b "
                                "<= %s (seconds)", hi, hi);
        else
            snprintf(buf, size, "a time in seconds in [0, %s], uniform(a, b) with 0 <= a <= b "
                                "<= %s or exponential(mean) with 0 < mean <= %s (seconds)",
                     hi, hi, hi);
        break;
    }
    }
}

/* Type column of the reference. */
static const char *type_text(const config_key *k)
{
    switch (k->type) {
    case KT_CHOICE:
    case KT_NAME:
        return "choice";
    case KT_SEED:
        return "uint64";
    case KT_INT:
        return "integer";
    case KT_TIME_NS:
        return "time (s)";
    case KT_TIME_MS:
        return "time (s, kept in ms)";
    case KT_LENGTH_MM:
        return "length (m)";
    case KT_SPEED_MM_S:
        return "speed (m/s)";
    case KT_PROBABILITY:
        return "probability";
    case KT_PROB_LAW:
        return "probability law";
    case KT_IDS:
        return "id ranges";
    case KT_SOURCES:
        return "id ranges or all";
    case KT_DESTINATION:
        return "node id or broadcast";
    case KT_TIME_LAW:
        return "time law (s)";
    case KT_ENERGY_NJ:
        return "energy (J)";
    case KT_ENERGY_LAW:
        return "energy law (J)";
    }
    return "";
}

static void reference_range(const config_key *k, char *buf, size_t size)
{
    switch (k->type) {
    case KT_CHOICE:
    case KT_NAME:
        choices_text(k, buf, size);
        break;
    case KT_SEED:
        snprintf(buf, size, "0 .. 2^64 - 1, decimal or 0x hex");
        break;
    case KT_PROBABILITY:
        snprintf(buf, size, "[0, 1]");
        break;
    case KT_PROB_LAW:
        snprintf(buf, size, "[0, 1], or uniform(a, b) per node");
        break;
    case KT_IDS:
        snprintf(buf, size, "first-last, ..., ids < nodes");
        break;
    case KT_SOURCES:
        snprintf(buf, size, "all, or first-last, ..., ids < nodes");
        break;
    case KT_DESTINATION:
        snprintf(buf, size, "[-1, %lld] node id, or broadcast", (long long)k->max);
        break;
    case KT_TIME_LAW: {
        char hi[32];
        format_scaled(k->max, 9, hi, sizeof hi);
        snprintf(buf, size, "[0, %s]%s", hi,
                 (k->flags & KEY_NO_EXPONENTIAL) ? ", or uniform(a, b)"
                                                 : ", uniform(a, b) or exponential(mean)");
        break;
    }
    case KT_ENERGY_LAW: {
        char hi[32];
        format_scaled(k->max, 9, hi, sizeof hi);
        snprintf(buf, size, "[0, %s], or uniform(a, b) per node", hi);
        break;
    }
    default: {
        char range[96];
        range_text(k, range, sizeof range);
        /* "in [0, 5]" reads as a sentence in messages; the table wants just the interval. */
        const char *r = strncmp(range, "in ", 3) == 0 ? range + 3 : range;
        snprintf(buf, size, "%s%s%s", r, k->unit ? " " : "", k->unit ? k->unit : "");
    }
    }
}

/* One table: the keys of the sections that belong to MODEL (NULL: the core's), in table
 * order. */
static void print_reference_table(FILE *out, const char *model)
{
    fprintf(out, "| Section | Key | Type | Range | Default | Description |\n"
                 "|---|---|---|---|---|---|\n");
    for (int i = 0; i < K_COUNT; i++) {
        const config_key *k = &config_keys[i];
        const char *owner = config_section_model(k->section);
        if (model ? !owner || strcmp(owner, model) != 0 : owner != NULL)
            continue;
        char range[128];
        reference_range(k, range, sizeof range);
        fprintf(out, "| %s | %s | %s | %s | %s | %s |\n", k->section, k->name, type_text(k), range,
                k->def ? k->def : "(required)", k->help);
    }
}

void config_print_reference(FILE *out)
{
    fprintf(out,
            "# Scenario keys\n\n"
            "Every key a clnetsim scenario file may hold. Lengths are in metres (kept in\n"
            "millimetres), times in seconds (kept in nanoseconds, pauses in milliseconds) and\n"
            "speeds in m/s (kept in mm/s); decimal values are converted exactly, rounded to the\n"
            "nearest unit, ties away from zero. Any key can be set on the command line with\n"
            "`-s section.key=value`, which replaces the value of the file; for a named section,\n"
            "`-s \"traffic.flow NAME.key=value\"` or `-s traffic.flow.NAME.key=value` (which may\n"
            "create it). Unknown sections or keys, repeated keys and values out of range are\n"
            "errors.\n\n"
            "The core sections hold what every scenario has; the other sections belong to one\n"
            "model, the one `[simulation] model` names, and a scenario of another model that\n"
            "sets one of their keys (in the file or with `-s`) is refused.\n\n"
            "## Core sections\n\n"
            "`[partition] retile` concerns mobile flood scenarios only.\n\n");
    print_reference_table(out, NULL);
    fprintf(out, "\n## Model flood\n\n"
                 "`model = flood` (the default): packets flooded over a network of static or\n"
                 "mobile nodes (docs/model.md, docs/models.md).\n\n");
    print_reference_table(out, "flood");
    fprintf(out, "\n## Model phold\n\n"
                 "`model = phold`: the PHOLD benchmark (docs/models/phold.md). Its events never run\n"
                 "out, so it needs `[simulation] duration` > 0, the end time of the run.\n\n");
    print_reference_table(out, "phold");
}

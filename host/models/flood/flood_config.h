/* The flood model's option group (flood_config.c): its key ids and the state its named
 * sections, [mobility.group NAME] and [traffic.flow NAME], keep during one load. Private to
 * the flood's configuration code (flood_config*.c). */
#ifndef CLNETSIM_FLOOD_CONFIG_H
#define CLNETSIM_FLOOD_CONFIG_H

#include "config/config_internal.h"
#include "models/flood/flood_values.h"

extern const model_config flood_config;

/* The flood's keys, in the order of docs/model.md ("Keys"): the index of each in its table. */
enum flood_key {
    FK_PLACEMENT,
    FK_ROWS,
    FK_COLS,
    FK_SPACING,
    FK_NODES,
    FK_WIDTH,
    FK_HEIGHT,
    FK_DEPTH,
    FK_AREAS,
    FK_BORDER_LINKS,
    FK_CONNECTIVITY,
    FK_RANGE,
    FK_RANGE_MIN,
    FK_LINK_PROBABILITY,
    FK_MAX_NEIGHBORS,
    FK_MOBILITY,
    FK_SPEED_MIN,
    FK_SPEED_MAX,
    FK_PAUSE_MIN,
    FK_PAUSE_MAX,
    FK_TRAVEL_MIN,
    FK_TRAVEL_MAX,
    FK_STREET_SPACING,
    FK_BOUNDARY,
    FK_GROUP_NODES,
    FK_SOURCE,
    FK_DESTINATION,
    FK_PACKETS,
    FK_INTERVAL,
    FK_START,
    FK_SIZE,
    FK_FLOW_SOURCE,
    FK_FLOW_DESTINATION,
    FK_FLOW_PACKETS,
    FK_FLOW_INTERVAL,
    FK_FLOW_INTERVAL_DRAW,
    FK_FLOW_START,
    FK_FLOW_SIZE,
    FK_RELAY_DELAY,
    FK_DROP_PROBABILITY,
    FK_TTL,
    FK_SCHEME,
    FK_COUNTER_THRESHOLD,
    FK_DISTANCE_THRESHOLD,
    FK_ASSESSMENT_DELAY,
    FK_RX_CAPACITY,
    FK_ENERGY_BUDGET,
    FK_TX_FIXED,
    FK_TX_PER_BYTE,
    FK_RX_FIXED,
    FK_RX_PER_BYTE,
    FK_COUNT
};

/* Their ids in the registry (model_config.first_key): K_ROWS and the like, as every config
 * function takes them. */
extern int flood_first_key;
#define K_PLACEMENT (flood_first_key + FK_PLACEMENT)
#define K_ROWS (flood_first_key + FK_ROWS)
#define K_COLS (flood_first_key + FK_COLS)
#define K_SPACING (flood_first_key + FK_SPACING)
#define K_NODES (flood_first_key + FK_NODES)
#define K_WIDTH (flood_first_key + FK_WIDTH)
#define K_HEIGHT (flood_first_key + FK_HEIGHT)
#define K_DEPTH (flood_first_key + FK_DEPTH)
#define K_AREAS (flood_first_key + FK_AREAS)
#define K_BORDER_LINKS (flood_first_key + FK_BORDER_LINKS)
#define K_CONNECTIVITY (flood_first_key + FK_CONNECTIVITY)
#define K_RANGE (flood_first_key + FK_RANGE)
#define K_RANGE_MIN (flood_first_key + FK_RANGE_MIN)
#define K_LINK_PROBABILITY (flood_first_key + FK_LINK_PROBABILITY)
#define K_MAX_NEIGHBORS (flood_first_key + FK_MAX_NEIGHBORS)
#define K_MOBILITY (flood_first_key + FK_MOBILITY)
#define K_SPEED_MIN (flood_first_key + FK_SPEED_MIN)
#define K_SPEED_MAX (flood_first_key + FK_SPEED_MAX)
#define K_PAUSE_MIN (flood_first_key + FK_PAUSE_MIN)
#define K_PAUSE_MAX (flood_first_key + FK_PAUSE_MAX)
#define K_TRAVEL_MIN (flood_first_key + FK_TRAVEL_MIN)
#define K_TRAVEL_MAX (flood_first_key + FK_TRAVEL_MAX)
#define K_STREET_SPACING (flood_first_key + FK_STREET_SPACING)
#define K_BOUNDARY (flood_first_key + FK_BOUNDARY)
#define K_GROUP_NODES (flood_first_key + FK_GROUP_NODES)
#define K_SOURCE (flood_first_key + FK_SOURCE)
#define K_DESTINATION (flood_first_key + FK_DESTINATION)
#define K_PACKETS (flood_first_key + FK_PACKETS)
#define K_INTERVAL (flood_first_key + FK_INTERVAL)
#define K_START (flood_first_key + FK_START)
#define K_SIZE (flood_first_key + FK_SIZE)
#define K_FLOW_SOURCE (flood_first_key + FK_FLOW_SOURCE)
#define K_FLOW_DESTINATION (flood_first_key + FK_FLOW_DESTINATION)
#define K_FLOW_PACKETS (flood_first_key + FK_FLOW_PACKETS)
#define K_FLOW_INTERVAL (flood_first_key + FK_FLOW_INTERVAL)
#define K_FLOW_INTERVAL_DRAW (flood_first_key + FK_FLOW_INTERVAL_DRAW)
#define K_FLOW_START (flood_first_key + FK_FLOW_START)
#define K_FLOW_SIZE (flood_first_key + FK_FLOW_SIZE)
#define K_RELAY_DELAY (flood_first_key + FK_RELAY_DELAY)
#define K_DROP_PROBABILITY (flood_first_key + FK_DROP_PROBABILITY)
#define K_TTL (flood_first_key + FK_TTL)
#define K_SCHEME (flood_first_key + FK_SCHEME)
#define K_COUNTER_THRESHOLD (flood_first_key + FK_COUNTER_THRESHOLD)
#define K_DISTANCE_THRESHOLD (flood_first_key + FK_DISTANCE_THRESHOLD)
#define K_ASSESSMENT_DELAY (flood_first_key + FK_ASSESSMENT_DELAY)
#define K_RX_CAPACITY (flood_first_key + FK_RX_CAPACITY)
#define K_ENERGY_BUDGET (flood_first_key + FK_ENERGY_BUDGET)
#define K_TX_FIXED (flood_first_key + FK_TX_FIXED)
#define K_TX_PER_BYTE (flood_first_key + FK_TX_PER_BYTE)
#define K_RX_FIXED (flood_first_key + FK_RX_FIXED)
#define K_RX_PER_BYTE (flood_first_key + FK_RX_PER_BYTE)

/* The section of the flow keys, and whether KEY is one of them. */
#define FLOW_SECTION "traffic.flow NAME"
static inline int config_is_flow_key(int key) { return key >= K_FLOW_SOURCE && key <= K_FLOW_SIZE; }

/* What a [mobility.group NAME] section set: its values sit in VALUES at the offsets of the
 * [mobility] keys; KEYS says which of them the section set (the others are inherited). */
typedef struct group_state {
    flood_values values;
    key_state keys[CONFIG_MAX_KEYS]; /* keys[K_GROUP_NODES]: where nodes was set */
    key_state opened;            /* where the group was first named */
} group_state;

/* What a [traffic.flow NAME] section set: its values sit in flows[f] as they are read;
 * KEYS says which of them the section set (the others are [traffic]'s, filled in once every
 * value is in). */
typedef struct flow_state {
    key_state keys[CONFIG_MAX_KEYS]; /* only the K_FLOW_* entries are used */
    key_state opened;            /* where the flow was first named */
} flow_state;

/* The flood's state of one load (config_load_state). */
typedef struct flood_load {
    group_state groups[SCENARIO_MAX_GROUPS]; /* n_groups of them */
    flow_state flows[SCENARIO_MAX_FLOWS];    /* n_flows of them */
} flood_load;

static inline flood_load *flood_load_of(const load_ctx *ctx)
{
    return config_load_state(ctx, &flood_config);
}

/* The flood's values during one load (config_values): what its keys set so far. */
static inline flood_values *flood_load_values(const load_ctx *ctx)
{
    return config_values(ctx, &flood_config);
}

/* ---- mobility groups (flood_config_groups.c) ---- */

/* Whether SECTION is meant as a group: it starts with "mobility.group". */
int config_is_group_section(const char *section);
/* Assigns NAME = VALUE in the group SECTION names ("mobility.group NAME", or
 * "mobility.group.NAME" as -s writes it), creating the group on first use. */
int config_assign_group(load_ctx *ctx, const char *section, const char *name,
                        const char *value, const char *where, key_state origin);
/* Once the node count is known: every group has nodes within it and no node is in two
 * groups; keys a group did not set take [mobility]'s values. */
int config_finish_groups(load_ctx *ctx);
/* Where a group's KEY came from (its own line, or [mobility]'s when inherited). */
const char *config_group_key_where(const load_ctx *ctx, int g, int key, char *buf, size_t size);
/* Writes the groups' sections as config_dump does for the fixed ones. */
void config_dump_groups(const flood_values *sc, FILE *out);
/* "0-99, 200" for group G's ranges. */
void config_format_ranges(const mobility_group *g, char *buf, size_t size);

/* ---- traffic flows (flood_config_flows.c) ---- */

/* Whether SECTION is meant as a flow: it starts with "traffic.flow". */
int config_is_flow_section(const char *section);
/* Creates the flow of the section line [SECTION] (first seen at WHERE) when it names one, so
 * that a section without keys is a flow too; other sections and bad names are left to their
 * keys. CN_ERR_INPUT with CTX->err set beyond SCENARIO_MAX_FLOWS. */
int config_open_flow(load_ctx *ctx, const char *section, const char *where, key_state origin);
/* Assigns NAME = VALUE in the flow SECTION names ("traffic.flow NAME", or "traffic.flow.NAME"
 * as -s writes it), creating the flow on first use. */
int config_assign_flow(load_ctx *ctx, const char *section, const char *name, const char *value,
                       const char *where, key_state origin);
/* Once [traffic] is final (destination -1 resolved): keys a flow did not set take [traffic]'s
 * values, then every flow's rules are checked. */
int config_finish_flows(load_ctx *ctx);
/* Writes the flows' sections, every key with its effective value. */
void config_dump_flows(const flood_values *sc, FILE *out);

/* ---- the rules (flood_config_checks.c) ---- */

/* The cross-key rules of a flood scenario and its derived fields (node count, destination -1,
 * area of a mobile grid, flows, assessment windows). */
int flood_config_check(load_ctx *ctx);

#endif

/* The flood's rules between keys, checked once the file and every override are in, and its
 * derived fields (node count of a grid, destination -1, area of a mobile grid). The limits
 * keep every later integer computation of docs/model.md inside int64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/flood/flood_config.h"

/* WHERE(K_A, K_B, ...): the location for a rule about those keys, in the local buffer
 * `where` of the calling check. */
#define WHERE(...) CONFIG_WHERE(ctx, where, __VA_ARGS__)

/* A field in its INI unit, for messages. */
static const char *value_text(const load_ctx *ctx, int key, char *buf, size_t size)
{
    config_format_loaded(ctx, key, buf, size);
    return buf;
}

/* The lattice of grid and areas placement (PLACEMENT names it in messages): at least one row
 * and one column, a spacing > 0. */
static int check_lattice(load_ctx *ctx, const char *placement)
{
    const flood_values *sc = flood_load_values(ctx);
    char where[300];
    if (sc->rows < 1 || sc->cols < 1)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [topology] rows = %lld, cols = %lld: %s placement needs rows >= 1 "
                       "and cols >= 1",
                       WHERE(K_PLACEMENT, K_ROWS, K_COLS), (long long)sc->rows,
                       (long long)sc->cols, placement);
    if (sc->spacing_mm <= 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [topology] spacing = 0: %s placement needs spacing > 0 m",
                       WHERE(K_PLACEMENT, K_SPACING), placement);
    return 0;
}

static int check_grid(load_ctx *ctx)
{
    flood_values *sc = flood_load_values(ctx);
    char where[300], a[64], b[64];
    int rc = check_lattice(ctx, "grid");
    if (rc)
        return rc;
    int64_t n = 0;
    if (__builtin_mul_overflow(sc->rows, sc->cols, &n) || n > SCENARIO_MAX_NODES)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [topology] rows x cols = %lld x %lld nodes: expected at most %lld "
                       "nodes",
                       WHERE(K_ROWS, K_COLS), (long long)sc->rows, (long long)sc->cols,
                       (long long)SCENARIO_MAX_NODES);
    if (n < 2)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [topology] rows x cols = 1 x 1 is a single node: expected at least "
                       "2 nodes",
                       WHERE(K_PLACEMENT, K_ROWS, K_COLS));
    int64_t extent_x = 0, extent_y = 0;
    if (__builtin_mul_overflow(sc->cols - 1, sc->spacing_mm, &extent_x) ||
        __builtin_mul_overflow(sc->rows - 1, sc->spacing_mm, &extent_y) ||
        extent_x > SCENARIO_MAX_SIDE_MM || extent_y > SCENARIO_MAX_SIDE_MM) {
        format_scaled(SCENARIO_MAX_SIDE_MM, 3, b, sizeof b);
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [topology] the grid of rows = %lld, cols = %lld, spacing = %s m is "
                       "too large: expected (rows - 1) x spacing and (cols - 1) x spacing <= %s m",
                       WHERE(K_ROWS, K_COLS, K_SPACING), (long long)sc->rows, (long long)sc->cols,
                       value_text(ctx, K_SPACING, a, sizeof a), b);
    }
    if (ctx->keys[K_NODES].origin != ORIGIN_DEFAULT && sc->nodes != n)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [topology] nodes = %lld but rows x cols = %lld: for grid placement "
                       "the node count is rows x cols, so remove nodes or set it to %lld",
                       WHERE(K_NODES), (long long)sc->nodes, (long long)n, (long long)n);
    sc->nodes = n;
    return 0;
}

/* Activity areas (docs/models.md): count grids of rows x cols side by side along x, each
 * (cols - 1) x spacing wide and 2 x range from the next, so that udg never links two areas.
 * Every coordinate must stay within the side limit of the squared distances. */
static int check_areas(load_ctx *ctx)
{
    flood_values *sc = flood_load_values(ctx);
    char where[300], a[64], b[64];
    int rc = check_lattice(ctx, "areas");
    if (rc)
        return rc;
    int64_t per = 0, n = 0;
    if (__builtin_mul_overflow(sc->rows, sc->cols, &per) ||
        __builtin_mul_overflow(per, sc->areas, &n) || n > SCENARIO_MAX_NODES)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [areas] count x [topology] rows x cols = %lld x %lld x %lld nodes: "
                       "expected at most %lld nodes",
                       WHERE(K_AREAS, K_ROWS, K_COLS, K_PLACEMENT), (long long)sc->areas,
                       (long long)sc->rows, (long long)sc->cols, (long long)SCENARIO_MAX_NODES);
    /* the whole row of areas: (A - 1) x ((cols - 1) x spacing + 2 x range) + (cols - 1) x
     * spacing along x, (rows - 1) x spacing along y */
    int64_t width = 0, height = 0, gap = 0, pitch = 0, span = 0, extent = 0;
    if (__builtin_mul_overflow(sc->cols - 1, sc->spacing_mm, &width) ||
        __builtin_mul_overflow(sc->rows - 1, sc->spacing_mm, &height) ||
        __builtin_mul_overflow(sc->range_mm, 2, &gap) ||
        __builtin_add_overflow(width, gap, &pitch) ||
        __builtin_mul_overflow(sc->areas - 1, pitch, &span) ||
        __builtin_add_overflow(span, width, &extent) || extent > SCENARIO_MAX_SIDE_MM ||
        height > SCENARIO_MAX_SIDE_MM) {
        format_scaled(SCENARIO_MAX_SIDE_MM, 3, b, sizeof b);
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [areas] count = %lld areas of [topology] rows = %lld, cols = %lld, "
                       "spacing = %s m, 2 x range apart, are too large: expected the row of "
                       "areas and each area's height within %s m",
                       WHERE(K_AREAS, K_ROWS, K_COLS, K_SPACING, K_RANGE), (long long)sc->areas,
                       (long long)sc->rows, (long long)sc->cols,
                       value_text(ctx, K_SPACING, a, sizeof a), b);
    }
    if (ctx->keys[K_NODES].origin != ORIGIN_DEFAULT && sc->nodes != n)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [topology] nodes = %lld but [areas] count x rows x cols = %lld: for "
                       "areas placement the node count is derived, so remove nodes or set it to "
                       "%lld",
                       WHERE(K_NODES), (long long)sc->nodes, (long long)n, (long long)n);
    sc->nodes = n;
    return 0;
}

/* What activity areas do not combine with, checked once groups and every key are in: their
 * links are a fixed graph (static nodes, plain udg inside each area), and the links between
 * areas cross any spatial partition's reach box, so the run keeps one partition. */
static int check_areas_restrictions(load_ctx *ctx)
{
    flood_values *sc = flood_load_values(ctx);
    char where[300], a[64];
    static const char *const mob_names[] = {"static", "rwp", "linear", "random_walk",
                                            "random_direction", "grid_walk"};
    if (sc->mob.model != MOBILITY_STATIC)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [mobility] model = %s: placement = areas needs static nodes "
                       "(model = static)",
                       WHERE(K_MOBILITY, K_PLACEMENT), mob_names[sc->mob.model]);
    for (int g = 0; g < sc->n_groups; g++)
        if (sc->groups[g].mob.model != MOBILITY_STATIC)
            return cn_fail(ctx->err, CN_ERR_INPUT,
                           "%s: [mobility.group %s] model = %s: placement = areas needs static "
                           "nodes (model = static in every group)",
                           config_group_key_where(ctx, g, K_MOBILITY, where, sizeof where),
                           sc->groups[g].name, mob_names[sc->groups[g].mob.model]);
    if (sc->connectivity != CONNECTIVITY_UDG)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [connectivity] model = qudg: placement = areas needs model = udg",
                       WHERE(K_CONNECTIVITY, K_PLACEMENT));
    if (sc->max_neighbors != 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [connectivity] max_neighbors = %s: placement = areas needs "
                       "max_neighbors = 0 (no cap)",
                       WHERE(K_MAX_NEIGHBORS, K_PLACEMENT),
                       value_text(ctx, K_MAX_NEIGHBORS, a, sizeof a));
    if (ctx->sc.partitions > 1)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [partition] count = %lld: placement = areas runs in one partition "
                       "(the links between areas reach beyond any partition's tile); expected "
                       "count = 0 or 1",
                       WHERE(K_PARTITIONS, K_PLACEMENT), (long long)ctx->sc.partitions);
    return 0;
}

/* A mobile grid needs an area for its waypoints: by default the one the grid covers. */
static void default_grid_area(flood_values *sc)
{
    if (sc->placement != PLACEMENT_GRID || !flood_is_mobile(sc))
        return;
    if (sc->width_mm == 0)
        sc->width_mm = (sc->cols - 1) * sc->spacing_mm;
    if (sc->height_mm == 0)
        sc->height_mm = (sc->rows - 1) * sc->spacing_mm;
}

static int check_uniform(load_ctx *ctx)
{
    flood_values *sc = flood_load_values(ctx);
    char where[300], a[64], b[64];
    if (sc->nodes < 2)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [topology] nodes = %lld: uniform placement needs nodes >= 2",
                       WHERE(K_PLACEMENT, K_NODES), (long long)sc->nodes);
    if (sc->width_mm <= 0 || sc->height_mm <= 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [topology] width = %s m, height = %s m: uniform placement needs "
                       "width > 0 and height > 0 (depth 0 means a 2-D area)",
                       WHERE(K_PLACEMENT, K_WIDTH, K_HEIGHT),
                       value_text(ctx, K_WIDTH, a, sizeof a),
                       value_text(ctx, K_HEIGHT, b, sizeof b));
    return 0;
}

static int check_traffic(load_ctx *ctx)
{
    flood_values *sc = flood_load_values(ctx);
    char where[300], a[64], b[64];
    int64_t n = sc->nodes;
    if (sc->source >= n)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [traffic] source = %lld: expected a node id in [0, %lld] (the "
                       "scenario has %lld nodes)",
                       WHERE(K_SOURCE, K_NODES, K_ROWS, K_COLS, K_PLACEMENT),
                       (long long)sc->source, (long long)(n - 1), (long long)n);
    int last = sc->destination == -1;
    if (last)
        sc->destination = n - 1;
    else if (sc->destination >= n)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [traffic] destination = %lld: expected a node id in [0, %lld] or -1 "
                       "(the last node; the scenario has %lld nodes)",
                       WHERE(K_DESTINATION, K_NODES, K_ROWS, K_COLS, K_PLACEMENT),
                       (long long)sc->destination, (long long)(n - 1), (long long)n);
    /* With flows, [traffic] only gives the defaults of their keys: its rules between keys
     * are checked on each flow that inherits the values (flows.c). */
    if (sc->n_flows > 0)
        return 0;
    if (sc->source == sc->destination)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [traffic] source = %lld and destination = %s are the same node: "
                       "expected two different nodes",
                       WHERE(K_SOURCE, K_DESTINATION), (long long)sc->source,
                       last ? "-1 (the last node)" : value_text(ctx, K_DESTINATION, a, sizeof a));
    if (sc->packets > 1 && sc->interval_ns == 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [traffic] interval = 0 with packets = %lld: expected interval > 0 s "
                       "when packets > 1",
                       WHERE(K_INTERVAL, K_PACKETS), (long long)sc->packets);
    int64_t span = 0, last_ns = 0;
    if (__builtin_mul_overflow(sc->packets - 1, sc->interval_ns, &span) ||
        __builtin_add_overflow(sc->start_ns, span, &last_ns))
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [traffic] start + (packets - 1) x interval = %s + %lld x %s s does "
                       "not fit in int64 nanoseconds: expected the last packet before "
                       "9223372036.854775807 s",
                       WHERE(K_START, K_PACKETS, K_INTERVAL), value_text(ctx, K_START, a, sizeof a),
                       (long long)(sc->packets - 1), value_text(ctx, K_INTERVAL, b, sizeof b));
    return 0;
}

/* The rules of one set of mobility keys: CTX->sc.mob, named LABEL ("[mobility]" or
 * "[mobility.group NAME]") in messages. */
static int check_mobility(load_ctx *ctx, const char *label)
{
    flood_values *sc = flood_load_values(ctx);
    char where[300], a[64], b[64];
    if (sc->mob.speed_min_mm_s > sc->mob.speed_max_mm_s)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: %s speed_min = %s m/s is above speed_max = %s m/s: expected "
                       "speed_min <= speed_max",
                       WHERE(K_SPEED_MIN, K_SPEED_MAX), label, value_text(ctx, K_SPEED_MIN, a, sizeof a),
                       value_text(ctx, K_SPEED_MAX, b, sizeof b));
    if (sc->mob.pause_min_ms > sc->mob.pause_max_ms)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: %s pause_min = %s s is above pause_max = %s s: expected "
                       "pause_min <= pause_max",
                       WHERE(K_PAUSE_MIN, K_PAUSE_MAX), label, value_text(ctx, K_PAUSE_MIN, a, sizeof a),
                       value_text(ctx, K_PAUSE_MAX, b, sizeof b));
    if (sc->mob.model == MOBILITY_STATIC)
        return 0;
    static const char *const names[] = {"static", "rwp", "linear", "random_walk",
                                        "random_direction", "grid_walk"};
    if (sc->mob.travel_min_ms > sc->mob.travel_max_ms)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: %s travel_min = %s s is above travel_max = %s s: expected "
                       "travel_min <= travel_max",
                       WHERE(K_TRAVEL_MIN, K_TRAVEL_MAX), label,
                       value_text(ctx, K_TRAVEL_MIN, a, sizeof a),
                       value_text(ctx, K_TRAVEL_MAX, b, sizeof b));
    if (sc->mob.speed_max_mm_s <= 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: %s model = %s with speed_max = 0: expected speed_max > 0 m/s "
                       "(or model = static)",
                       WHERE(K_MOBILITY, K_SPEED_MAX), label, names[sc->mob.model]);
    /* docs/model.md, "Mobility": each window moves a node by v * L / 10^9 mm, computed in int64. */
    int64_t budget = 0;
    if (__builtin_mul_overflow(sc->mob.speed_max_mm_s, sc->relay_delay_ns, &budget))
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: %s speed_max = %s m/s with [flood] relay_delay = %s s: the "
                       "distance moved per window (speed_max x relay_delay in mm x ns) does not "
                       "fit in int64; expected a smaller speed_max or relay_delay",
                       WHERE(K_SPEED_MAX, K_RELAY_DELAY, K_MOBILITY), label,
                       value_text(ctx, K_SPEED_MAX, a, sizeof a),
                       value_text(ctx, K_RELAY_DELAY, b, sizeof b));
    /* grid_walk turns at every intersection it passes: at most 64 a window keeps a step
     * bounded (docs/models.md) */
    if (sc->mob.model == MOBILITY_GRID_WALK && budget / 1000000000 > 64 * sc->mob.street_spacing_mm)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: %s model = grid_walk with speed_max = %s m/s and [flood] "
                       "relay_delay = %s s passes more than 64 street intersections per window: "
                       "expected speed_max x relay_delay <= 64 x street_spacing",
                       WHERE(K_MOBILITY, K_SPEED_MAX, K_STREET_SPACING, K_RELAY_DELAY), label,
                       value_text(ctx, K_SPEED_MAX, a, sizeof a),
                       value_text(ctx, K_RELAY_DELAY, b, sizeof b));
    return 0;
}

static int check_connectivity(load_ctx *ctx)
{
    flood_values *sc = flood_load_values(ctx);
    char where[300], a[64], b[64];
    if (sc->connectivity == CONNECTIVITY_QUDG && sc->range_min_mm > sc->range_mm)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [connectivity] range_min = %s m is above range = %s m: expected "
                       "range_min <= range (qudg links nodes within range_min always, beyond "
                       "range never)",
                       WHERE(K_RANGE_MIN, K_RANGE, K_CONNECTIVITY),
                       value_text(ctx, K_RANGE_MIN, a, sizeof a),
                       value_text(ctx, K_RANGE, b, sizeof b));
    return 0;
}

/* The bound of docs/models.md on a = A / L: the draw r = (w0 * (a + 1)) >> 32 of a 32-bit
 * w0 needs a + 1 < 2^32, and 10^6 leaves a wide margin. */
#define ASSESSMENT_WINDOWS_MAX ((int64_t)1000000)

/* counter and distance wait a whole number of windows before deciding (docs/models.md,
 * "Forwarding schemes"), so the delay must be a multiple of the window length. */
static int check_assessment(load_ctx *ctx)
{
    flood_values *sc = flood_load_values(ctx);
    char where[300], a[64], b[64];
    /* relay_delay > 0: its key refuses 0 */
    if (sc->assessment_delay_ns % sc->relay_delay_ns != 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [flood] assessment_delay = %s s is not a whole number of relay "
                       "delays (relay_delay = %s s): expected a multiple of relay_delay",
                       WHERE(K_ASSESSMENT_DELAY, K_RELAY_DELAY, K_SCHEME),
                       value_text(ctx, K_ASSESSMENT_DELAY, a, sizeof a),
                       value_text(ctx, K_RELAY_DELAY, b, sizeof b));
    int64_t windows = sc->assessment_delay_ns / sc->relay_delay_ns;
    if (windows > ASSESSMENT_WINDOWS_MAX)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [flood] assessment_delay = %s s is %lld relay delays (relay_delay = "
                       "%s s): expected at most %lld relay delays",
                       WHERE(K_ASSESSMENT_DELAY, K_RELAY_DELAY, K_SCHEME),
                       value_text(ctx, K_ASSESSMENT_DELAY, a, sizeof a), (long long)windows,
                       value_text(ctx, K_RELAY_DELAY, b, sizeof b),
                       (long long)ASSESSMENT_WINDOWS_MAX);
    sc->assessment_windows = windows;
    return 0;
}

/* distance_threshold defaults to 0, unset: distance has no sensible default, so it must be
 * given. Every copy comes from a neighbour, within the range (qudg: r_max), so a threshold
 * beyond it would stop every relay. */
static int check_distance(load_ctx *ctx)
{
    flood_values *sc = flood_load_values(ctx);
    char where[300], a[64], b[64];
    if (sc->distance_threshold_mm == 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [flood] distance_threshold = 0 (unset): scheme = distance needs "
                       "distance_threshold > 0 m, at most [connectivity] range = %s m",
                       WHERE(K_SCHEME, K_DISTANCE_THRESHOLD),
                       value_text(ctx, K_RANGE, a, sizeof a));
    if (sc->distance_threshold_mm > sc->range_mm)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [flood] distance_threshold = %s m is above [connectivity] range = "
                       "%s m: expected distance_threshold <= range with scheme = distance (a "
                       "threshold beyond the range stops every relay)",
                       WHERE(K_DISTANCE_THRESHOLD, K_RANGE, K_SCHEME),
                       value_text(ctx, K_DISTANCE_THRESHOLD, a, sizeof a),
                       value_text(ctx, K_RANGE, b, sizeof b));
    return 0;
}

/* The keys of a scheme are checked only under that scheme: under probabilistic they are
 * ignored, so that -s flood.scheme=probabilistic runs a scenario written for another one. */
static int check_scheme(load_ctx *ctx)
{
    flood_values *sc = flood_load_values(ctx);
    sc->assessment_windows = 0; /* probabilistic relays L after the first reception */
    if (sc->scheme == SCHEME_PROBABILISTIC)
        return 0;
    int rc = check_assessment(ctx);
    if (rc == 0 && sc->scheme == SCHEME_DISTANCE)
        rc = check_distance(ctx);
    return rc;
}

static int check_partitions(load_ctx *ctx)
{
    flood_values *sc = flood_load_values(ctx);
    char where[300];
    if (ctx->sc.partitions > sc->nodes)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [partition] count = %lld: a scenario of %lld nodes has at most %lld "
                       "partitions (one node each)",
                       WHERE(K_PARTITIONS, K_NODES, K_ROWS, K_COLS), (long long)ctx->sc.partitions,
                       (long long)sc->nodes, (long long)sc->nodes);
    return 0;
}

/* What of [resources] is on, for messages: "rx_capacity = 2", "energy_budget = 5" or both. */
static const char *resources_text(const load_ctx *ctx, char *buf, size_t size)
{
    const flood_values *sc = flood_load_values(ctx);
    char m[48] = "", e[96] = "";
    if (sc->rx_capacity > 0)
        snprintf(m, sizeof m, "rx_capacity = %lld", (long long)sc->rx_capacity);
    if (flood_has_energy(sc)) {
        char v[64];
        config_format_loaded(ctx, K_ENERGY_BUDGET, v, sizeof v);
        snprintf(e, sizeof e, "energy_budget = %s", v);
    }
    snprintf(buf, size, "%s%s%s", m, m[0] && e[0] ? " and " : "", e);
    return buf;
}

/* The largest cost of one event (FIXED + PER_BYTE x the largest packet size in use) within
 * SCENARIO_MAX_ENERGY_NJ; NAME is "tx" or "rx". */
static int check_cost(load_ctx *ctx, const char *name, int k_fixed, int k_per_byte,
                      int64_t fixed, int64_t per_byte)
{
    const flood_values *sc = flood_load_values(ctx);
    char where[300], a[64], b[64], c[64];
    int64_t size = sc->size_bytes, cost = 0;
    for (int f = 0; f < sc->n_flows; f++)
        size = f == 0 || sc->flows[f].size_bytes > size ? sc->flows[f].size_bytes : size;
    if (!__builtin_mul_overflow(per_byte, size, &cost) &&
        !__builtin_add_overflow(cost, fixed, &cost) && cost <= SCENARIO_MAX_ENERGY_NJ)
        return 0;
    format_scaled(SCENARIO_MAX_ENERGY_NJ, 9, c, sizeof c);
    return cn_fail(ctx->err, CN_ERR_INPUT,
                   "%s: [resources] %s_fixed = %s J with %s_per_byte = %s J and packets of %lld "
                   "bytes: one event would cost more than %s J; expected a smaller cost",
                   WHERE(k_fixed, k_per_byte, K_SIZE), name, value_text(ctx, k_fixed, a, sizeof a),
                   name, value_text(ctx, k_per_byte, b, sizeof b), (long long)size, c);
}

/* Node resources run in the window loop of one partition under the relay rule of docs/model.md
 * (docs/models.md, "Node resources"); the budgets of all nodes together must fit the
 * energy_spent_nj counter. */
static int check_resources(load_ctx *ctx)
{
    flood_values *sc = flood_load_values(ctx);
    char where[300], on[160], a[64];
    if (!flood_has_resources(sc))
        return 0;
    resources_text(ctx, on, sizeof on);
    if (ctx->sc.partitions > 1)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [partition] count = %lld with [resources] %s: node resources are "
                       "decided in one partition; expected [partition] count = 0 or 1",
                       WHERE(K_PARTITIONS, K_RX_CAPACITY, K_ENERGY_BUDGET),
                       (long long)ctx->sc.partitions, on);
    if (!flood_has_energy(sc))
        return 0;
    int64_t total = 0;
    if (__builtin_mul_overflow(sc->energy_budget.b_nj, sc->nodes, &total))
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [resources] energy_budget = %s for %lld nodes: the budgets together "
                       "exceed 9223372036.854775807 J; expected a smaller budget",
                       WHERE(K_ENERGY_BUDGET, K_NODES, K_ROWS, K_COLS),
                       value_text(ctx, K_ENERGY_BUDGET, a, sizeof a), (long long)sc->nodes);
    int rc = check_cost(ctx, "tx", K_TX_FIXED, K_TX_PER_BYTE, sc->tx_fixed_nj,
                        sc->tx_per_byte_nj);
    if (rc == 0)
        rc = check_cost(ctx, "rx", K_RX_FIXED, K_RX_PER_BYTE, sc->rx_fixed_nj,
                        sc->rx_per_byte_nj);
    return rc;
}

/* A group's keys are checked as [mobility]'s would be: on a copy of the load in which the
 * group's values and origins stand in for [mobility]'s. */
static int check_group_mobility(load_ctx *ctx, int g)
{
    const flood_values *sc = flood_load_values(ctx);
    load_ctx *view = malloc(sizeof *view);
    flood_values *values = malloc(sizeof *values);
    if (!view || !values) {
        free(view);
        free(values);
        return cn_fail(ctx->err, CN_ERR_RUNTIME, "out of memory checking the mobility groups");
    }
    memcpy(view, ctx, sizeof *view);
    memcpy(values, sc, sizeof *values);
    values->mob = sc->groups[g].mob;
    view->group_values[config_key_group_index(K_MOBILITY)] = values;
    const group_state *st = &flood_load_of(ctx)->groups[g];
    for (int k = 0; k < config_key_count(); k++)
        if (strcmp(config_key_at(k)->section, "mobility") == 0 &&
            st->keys[k].origin != ORIGIN_DEFAULT)
            view->keys[k] = st->keys[k];
    char label[GROUP_NAME_MAX + 24];
    snprintf(label, sizeof label, "[mobility.group %s]", sc->groups[g].name);
    int rc = check_mobility(view, label);
    free(values);
    free(view);
    return rc;
}

/* Simulated time is int64 nanoseconds everywhere (kernels, host, oracle): every event time,
 * window end and latency a run computes stays below SCENARIO_MAX_TIME_NS when the scenario
 * passes this check, which leaves room for the sums of a time and a few windows
 * (docs/when-things-go-wrong.md, "Overflow audit"). The bound: the last departure, then a
 * chain of relays that each node joins at most once per packet (so at most nodes, or ttl,
 * links), each link relay_delay plus the longest assessment delay, then one more window;
 * or, with a duration, the duration and one more link and window. Computed in 128 bits. */
typedef unsigned __int128 wide;

/* The longest interval LAW can draw: uniform's b; exponential's draw (departures.c) is at
 * most floor(mean * 2^21 * 744261118 / 2^46), about 22.2 means. */
static wide interval_max(const time_law *law)
{
    if (law->law == TLAW_EXPONENTIAL)
        return ((wide)law->a_ns * ((wide)1 << 21) * 744261118u) >> 46;
    return (wide)(law->law == TLAW_UNIFORM ? law->b_ns : law->a_ns);
}

/* The latest departure any source can make, or 2^100 when a flow has no packet limit. */
static wide last_departure(const flood_values *sc)
{
    if (sc->n_flows == 0)
        return (wide)sc->start_ns + (wide)(sc->packets - 1) * (wide)sc->interval_ns;
    wide last = 0;
    for (int f = 0; f < sc->n_flows; f++) {
        const traffic_flow *fl = &sc->flows[f];
        wide start = (wide)(fl->start.law == TLAW_UNIFORM ? fl->start.b_ns : fl->start.a_ns);
        wide t = fl->packets == 0 ? (wide)1 << 100
                                  : start + (wide)(fl->packets - 1) * interval_max(&fl->interval);
        last = t > last ? t : last;
    }
    return last;
}

static void format_wide_seconds(wide ns, char *buf, size_t size)
{
    if (ns > (wide)INT64_MAX)
        snprintf(buf, size, "%.4g", (double)ns * 1e-9);
    else
        format_scaled((int64_t)ns, 9, buf, size);
}

/* The chain of relays after the last departure: at most LINKS of STEP ns each. */
static void relay_chain(const flood_values *sc, wide *links, wide *step)
{
    *step = (wide)sc->relay_delay_ns +
            (sc->scheme == SCHEME_PROBABILISTIC ? 0 : (wide)sc->assessment_delay_ns);
    *links = (wide)(sc->ttl > 0 && sc->ttl < sc->nodes ? sc->ttl : sc->nodes);
}

int64_t flood_horizon(const flood_values *sc)
{
    wide links, step;
    relay_chain(sc, &links, &step);
    wide end = last_departure(sc) + links * step + (wide)sc->relay_delay_ns;
    return end < (wide)INT64_MAX ? (int64_t)end : INT64_MAX;
}

static int check_horizon(load_ctx *ctx)
{
    const flood_values *sc = flood_load_values(ctx);
    char where[300], a[64], b[64], c[64], d[64];
    const wide limit = (wide)SCENARIO_MAX_TIME_NS;
    wide links, step;
    relay_chain(sc, &links, &step);
    wide last = last_departure(sc);
    wide flood_end = last + links * step + (wide)sc->relay_delay_ns;
    wide stop_end = (wide)ctx->sc.duration_ns + step + (wide)sc->relay_delay_ns;
    if (flood_end <= limit || (ctx->sc.duration_ns > 0 && stop_end <= limit))
        return 0;
    format_scaled(SCENARIO_MAX_TIME_NS, 9, c, sizeof c);
    format_wide_seconds(step, b, sizeof b);
    if (ctx->sc.duration_ns > 0) {
        wide room = limit - (step + (wide)sc->relay_delay_ns < limit
                                 ? step + (wide)sc->relay_delay_ns : limit);
        format_wide_seconds(room, d, sizeof d);
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [simulation] duration = %s s with [flood] relay_delay (plus "
                       "assessment_delay) = %s s: simulated time could pass %s s (2^62 ns, "
                       "about 146 years), the limit of the simulation clock; expected "
                       "duration <= %s s",
                       WHERE(K_DURATION, K_RELAY_DELAY, K_ASSESSMENT_DELAY),
                       value_text(ctx, K_DURATION, a, sizeof a), b, c, d);
    }
    /* flows without a packet limit need a duration (flows.c), so LAST is finite here */
    format_wide_seconds(last, a, sizeof a);
    return cn_fail(ctx->err, CN_ERR_INPUT,
                   "%s: simulated time could pass %s s (2^62 ns, about 146 years), the limit "
                   "of the simulation clock: the last packet may leave at up to %s s, then take "
                   "up to %llu relays (%s) of [flood] relay_delay (plus assessment_delay) = %s "
                   "s each; expected a [simulation] duration, a [flood] ttl, a smaller "
                   "relay_delay or an earlier last packet",
                   WHERE(K_RELAY_DELAY, K_ASSESSMENT_DELAY, K_TTL, K_DURATION, K_NODES, K_ROWS,
                         K_COLS, K_PACKETS, K_INTERVAL, K_START),
                   c, a, (unsigned long long)links,
                   sc->ttl > 0 && sc->ttl < sc->nodes ? "the ttl" : "one per node", b);
}

/* The rules of the flood model, and its derived fields (node count, destination -1, area of a
 * mobile grid, flows, assessment windows). */
int flood_config_check(load_ctx *ctx)
{
    const flood_values *sc = flood_load_values(ctx);
    int rc = sc->placement == PLACEMENT_GRID    ? check_grid(ctx)
             : sc->placement == PLACEMENT_AREAS ? check_areas(ctx)
                                                : check_uniform(ctx);
    if (rc == 0)
        rc = config_finish_groups(ctx);
    if (rc == 0)
        default_grid_area(flood_load_values(ctx));
    if (rc == 0)
        rc = check_traffic(ctx);
    if (rc == 0)
        rc = config_finish_flows(ctx);
    if (rc == 0)
        rc = check_mobility(ctx, "[mobility]");
    for (int g = 0; rc == 0 && g < sc->n_groups; g++)
        rc = check_group_mobility(ctx, g);
    if (rc == 0)
        rc = check_partitions(ctx);
    if (rc == 0 && sc->placement == PLACEMENT_AREAS)
        rc = check_areas_restrictions(ctx);
    if (rc == 0)
        rc = check_connectivity(ctx);
    if (rc == 0)
        rc = check_scheme(ctx);
    if (rc == 0)
        rc = check_resources(ctx);
    if (rc == 0)
        rc = check_horizon(ctx);
    return rc;
}

int flood_has_energy(const flood_values *sc)
{
    return sc->energy_budget.law != LAW_CONSTANT || sc->energy_budget.a_nj > 0;
}

int flood_has_resources(const flood_values *sc)
{
    return sc->rx_capacity > 0 || flood_has_energy(sc);
}

int64_t flood_node_count(const flood_values *sc)
{
    if (sc->placement == PLACEMENT_AREAS)
        return sc->areas * sc->rows * sc->cols;
    return sc->placement == PLACEMENT_GRID ? sc->rows * sc->cols : sc->nodes;
}

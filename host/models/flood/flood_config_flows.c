/* Traffic flows: [traffic.flow NAME] sections (docs/models.md, "Traffic"). Each names its
 * sources and destination and may set every key of a flow; what it leaves out is [traffic]'s
 * (after every -s override), as [mobility] is for the mobility groups. With any flow,
 * [traffic] only gives those defaults, and its rules between keys are checked on each flow
 * that inherits its values. Without any flow, n_flows stays 0 and [traffic] is the source of
 * docs/model.md. */
#include <stdio.h>
#include <string.h>

#include "models/flood/flood_config.h"

#define FLOW_PREFIX "traffic.flow"

int config_is_flow_section(const char *section)
{
    return strncmp(section, FLOW_PREFIX, strlen(FLOW_PREFIX)) == 0;
}

/* The [traffic] key whose value a flow key takes when the flow does not set it, or -1
 * (interval_draw has its own default). */
static int traffic_key(int key)
{
    static const int pairs[][2] = {{FK_FLOW_SOURCE, FK_SOURCE},
                                   {FK_FLOW_DESTINATION, FK_DESTINATION},
                                   {FK_FLOW_PACKETS, FK_PACKETS},
                                   {FK_FLOW_INTERVAL, FK_INTERVAL},
                                   {FK_FLOW_START, FK_START},
                                   {FK_FLOW_SIZE, FK_SIZE}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (key == flood_first_key + pairs[i][0])
            return flood_first_key + pairs[i][1];
    return -1;
}

/* The flow called NAME, created on first use; -1 with the error set when there are already
 * SCENARIO_MAX_FLOWS. */
static int flow_index(load_ctx *ctx, const char *name, const char *where, key_state origin)
{
    flood_values *sc = flood_load_values(ctx);
    for (int f = 0; f < sc->n_flows; f++)
        if (strcmp(sc->flows[f].name, name) == 0)
            return f;
    if (sc->n_flows == SCENARIO_MAX_FLOWS) {
        cn_fail(ctx->err, CN_ERR_INPUT,
                "%s: [traffic.flow %s] would be flow %d: expected at most %d traffic flows", where,
                name, SCENARIO_MAX_FLOWS + 1, SCENARIO_MAX_FLOWS);
        return -1;
    }
    int f = sc->n_flows++;
    memset(&sc->flows[f], 0, sizeof sc->flows[f]);
    snprintf(sc->flows[f].name, sizeof sc->flows[f].name, "%s", name);
    flow_state *st = &flood_load_of(ctx)->flows[f];
    memset(st, 0, sizeof *st);
    st->opened = origin;
    return f;
}

int config_open_flow(load_ctx *ctx, const char *section, const char *where, key_state origin)
{
    char fname[GROUP_NAME_MAX];
    if (!config_is_flow_section(section) ||
        config_section_name(section, FLOW_PREFIX, fname) != 0)
        return 0; /* not a flow, or a bad name: its keys say what is wrong */
    return flow_index(ctx, fname, where, origin) < 0 ? CN_ERR_INPUT : 0;
}

/* ---- one key of a flow ----------------------------------------------------------------- */

static int flow_key(const char *name)
{
    for (int k = K_FLOW_SOURCE; k <= K_FLOW_SIZE; k++)
        if (strcmp(config_key_at(k)->name, name) == 0)
            return k;
    return -1;
}

static int fail_flow_key(load_ctx *ctx, const char *flow, const char *name, const char *where)
{
    int best = -1, best_score = 99;
    for (int k = K_FLOW_SOURCE; k <= K_FLOW_SIZE; k++) {
        int s = config_name_nearness(name, config_key_at(k)->name);
        if (s >= 0 && s < best_score) {
            best = k;
            best_score = s;
        }
    }
    if (best >= 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [traffic.flow %s] unknown key '%.64s'; did you mean '%s'?", where,
                       flow, name, config_key_at(best)->name);
    return cn_fail(ctx->err, CN_ERR_INPUT,
                   "%s: [traffic.flow %s] unknown key '%.64s'; a flow takes the keys source, "
                   "destination, packets, interval, interval_draw, start, size",
                   where, flow, name);
}

/* source = all, or id ranges. */
static int set_sources(load_ctx *ctx, traffic_flow *fl, const char *label, const char *text,
                       const char *where)
{
    if (strcmp(text, "all") == 0) {
        fl->all_sources = 1;
        fl->n_ranges = 0;
        memset(fl->first, 0, sizeof fl->first);
        memset(fl->last, 0, sizeof fl->last);
        return 0;
    }
    int rc = config_parse_id_ranges(ctx, label, K_FLOW_SOURCE, text, where, FLOW_MAX_RANGES,
                                    fl->first, fl->last, &fl->n_ranges);
    if (rc == 0)
        fl->all_sources = 0;
    return rc;
}

int config_assign_flow(load_ctx *ctx, const char *section, const char *name, const char *value,
                       const char *where, key_state origin)
{
    char fname[GROUP_NAME_MAX];
    if (config_section_name(section, FLOW_PREFIX, fname) != 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: section [%.64s] (key '%.64s'): expected [traffic.flow NAME], NAME "
                       "of 1 to %d letters, digits, '_' or '-'",
                       where, section, name, GROUP_NAME_MAX - 1);
    if (name[0] == '\0')
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [traffic.flow %s] '= %.200s' has no key name before '='", where,
                       fname, value);
    int key = flow_key(name);
    if (key < 0)
        return fail_flow_key(ctx, fname, name, where);
    int f = flow_index(ctx, fname, where, origin);
    if (f < 0)
        return CN_ERR_INPUT;
    flow_state *st = &flood_load_of(ctx)->flows[f];
    if (origin.origin == ORIGIN_FILE && st->keys[key].origin == ORIGIN_FILE)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [traffic.flow %s] %s is set twice (first on line %d); keep only "
                       "one of them",
                       where, fname, name, st->keys[key].line);
    char label[GROUP_NAME_MAX + 16];
    snprintf(label, sizeof label, "traffic.flow %s", fname);
    traffic_flow *fl = &flood_load_values(ctx)->flows[f];
    int rc = key == K_FLOW_SOURCE ? set_sources(ctx, fl, label, value, where)
                                  : config_set_value_at(ctx, fl, label, key, value, where);
    if (rc != 0)
        return CN_ERR_INPUT;
    st->keys[key] = origin;
    return 0;
}

/* ---- where a flow's value came from ------------------------------------------------------ */

/* The origin of KEY for flow F: its own line, else [traffic]'s key it inherits; for keys of
 * other sections (duration), theirs. */
static const key_state *flow_origin(const load_ctx *ctx, int f, int key)
{
    if (!config_is_flow_key(key))
        return &ctx->keys[key];
    const key_state *st = &flood_load_of(ctx)->flows[f].keys[key];
    int t = traffic_key(key);
    return st->origin == ORIGIN_DEFAULT && t >= 0 ? &ctx->keys[t] : st;
}


/* For a rule about several keys: the value set last (checks.c's where_of, over the flow's
 * effective origins). */
static const char *flow_where(const load_ctx *ctx, int f, const int *keys, int n, char *buf,
                              size_t size)
{
    const key_state *best = flow_origin(ctx, f, keys[0]);
    int best_rank = -1;
    for (int i = 0; i < n; i++) {
        const key_state *st = flow_origin(ctx, f, keys[i]);
        int rank = st->origin == ORIGIN_OVERRIDE ? 1 << 30
                   : st->origin == ORIGIN_FILE   ? st->line
                                                 : 0;
        if (rank > best_rank) {
            best = st;
            best_rank = rank;
        }
    }
    return config_origin_where(ctx, best, buf, size);
}

#define KEY_LIST CONFIG_KEY_LIST
#define WHERE(...)                                                                          \
    flow_where(ctx, f, KEY_LIST(__VA_ARGS__),                                               \
               (int)(sizeof KEY_LIST(__VA_ARGS__) / sizeof(int)), where, sizeof where)

/* " (from [traffic])" when flow F took KEY from [traffic], else "". */
static const char *from_traffic(const load_ctx *ctx, int f, int key)
{
    return flood_load_of(ctx)->flows[f].keys[key].origin == ORIGIN_DEFAULT && traffic_key(key) >= 0
               ? " (from [traffic])"
               : "";
}

static void format_sources(const traffic_flow *fl, char *buf, size_t size)
{
    if (fl->all_sources)
        snprintf(buf, size, "all");
    else
        config_format_id_ranges(fl->first, fl->last, fl->n_ranges, buf, size);
}

/* ---- once every value is in ------------------------------------------------------------ */

/* Fills in what flow F did not set from [traffic] (whose destination is resolved). */
static void inherit(load_ctx *ctx, int f)
{
    const flood_values *sc = flood_load_values(ctx);
    traffic_flow *fl = &flood_load_values(ctx)->flows[f];
    const key_state *own = flood_load_of(ctx)->flows[f].keys;
    if (own[K_FLOW_SOURCE].origin == ORIGIN_DEFAULT) {
        fl->all_sources = 0;
        fl->n_ranges = 1;
        fl->first[0] = fl->last[0] = sc->source;
    }
    if (own[K_FLOW_DESTINATION].origin == ORIGIN_DEFAULT)
        fl->destination = sc->destination;
    if (own[K_FLOW_PACKETS].origin == ORIGIN_DEFAULT)
        fl->packets = sc->packets;
    if (own[K_FLOW_INTERVAL].origin == ORIGIN_DEFAULT)
        fl->interval = (time_law){TLAW_CONSTANT, sc->interval_ns, sc->interval_ns};
    if (own[K_FLOW_START].origin == ORIGIN_DEFAULT)
        fl->start = (time_law){TLAW_CONSTANT, sc->start_ns, sc->start_ns};
    if (own[K_FLOW_SIZE].origin == ORIGIN_DEFAULT)
        fl->size_bytes = sc->size_bytes;
    /* interval_draw: its own default, packet (0, as the flow was created) */
}

/* The ranges of a flow that name a node twice: the first such node, or -1. */
static int64_t overlap(const traffic_flow *fl)
{
    int64_t a[FLOW_MAX_RANGES], b[FLOW_MAX_RANGES];
    int n = fl->n_ranges;
    for (int i = 0; i < n; i++) { /* insertion sort by first id */
        int j = i;
        for (; j > 0 && a[j - 1] > fl->first[i]; j--) {
            a[j] = a[j - 1];
            b[j] = b[j - 1];
        }
        a[j] = fl->first[i];
        b[j] = fl->last[i];
    }
    for (int i = 1; i < n; i++)
        if (a[i] <= b[i - 1])
            return a[i];
    return -1;
}

/* Flow F's time law KEY (interval or start), whose largest value is B_NS, within the key's
 * maximum; WHAT names that maximum in the message. */
static int check_law_max(load_ctx *ctx, int f, int64_t b_ns, int key, const char *what)
{
    if (b_ns <= config_key_at(key)->max)
        return 0;
    char where[300], a[96], b[32];
    config_format_value_at(&flood_load_values(ctx)->flows[f], key, a, sizeof a);
    format_scaled(config_key_at(key)->max, 9, b, sizeof b);
    return cn_fail(ctx->err, CN_ERR_INPUT,
                   "%s: [traffic.flow %s] %s = %s s%s: expected at most %s s (the %s of a flow)",
                   WHERE(key), flood_load_values(ctx)->flows[f].name, config_key_at(key)->name, a,
                   from_traffic(ctx, f, key), b, what);
}

static int check_flow(load_ctx *ctx, int f)
{
    const flood_values *sc = flood_load_values(ctx);
    traffic_flow *fl = &flood_load_values(ctx)->flows[f];
    const char *name = fl->name;
    int64_t nodes = sc->nodes;
    char where[300], src[256], a[96];
    format_sources(fl, src, sizeof src);
    for (int r = 0; r < fl->n_ranges; r++)
        if (fl->last[r] >= nodes)
            return cn_fail(ctx->err, CN_ERR_INPUT,
                           "%s: [traffic.flow %s] source = %s: node %lld does not exist; "
                           "expected ids in [0, %lld] (the scenario has %lld nodes)",
                           WHERE(K_FLOW_SOURCE), name, src, (long long)fl->last[r],
                           (long long)(nodes - 1), (long long)nodes);
    int64_t twice = overlap(fl);
    if (twice >= 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [traffic.flow %s] source = %s: node %lld is in two of its ranges; "
                       "expected ranges that do not overlap",
                       WHERE(K_FLOW_SOURCE), name, src, (long long)twice);
    if (fl->destination == -1)
        fl->destination = nodes - 1;
    else if (fl->destination != FLOW_BROADCAST && fl->destination >= nodes)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [traffic.flow %s] destination = %lld: expected a node id in [0, "
                       "%lld], -1 (the last node) or broadcast (the scenario has %lld nodes)",
                       WHERE(K_FLOW_DESTINATION), name, (long long)fl->destination,
                       (long long)(nodes - 1), (long long)nodes);
    /* [traffic]'s interval and start may be larger than a flow's may */
    if (check_law_max(ctx, f, fl->interval.b_ns, K_FLOW_INTERVAL, "largest interval") != 0 ||
        check_law_max(ctx, f, fl->start.b_ns, K_FLOW_START, "latest start") != 0)
        return CN_ERR_INPUT;
    int unicast = fl->destination != FLOW_BROADCAST;
    for (int r = 0; unicast && r < fl->n_ranges; r++)
        if (fl->first[r] <= fl->destination && fl->destination <= fl->last[r])
            return cn_fail(ctx->err, CN_ERR_INPUT,
                           "%s: [traffic.flow %s] source = %s%s includes destination = %lld%s: "
                           "expected sources without the destination of a unicast flow "
                           "(source = all leaves it out)",
                           WHERE(K_FLOW_SOURCE, K_FLOW_DESTINATION), name, src,
                           from_traffic(ctx, f, K_FLOW_SOURCE), (long long)fl->destination,
                           from_traffic(ctx, f, K_FLOW_DESTINATION));
    /* every node but a unicast destination; unreachable while a scenario has >= 2 nodes */
    if (fl->all_sources && nodes - unicast < 1)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [traffic.flow %s] source = all has no node but the destination: "
                       "expected at least one source",
                       WHERE(K_FLOW_SOURCE, K_FLOW_DESTINATION), name);
    if (fl->packets == 0 && ctx->sc.duration_ns == 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [traffic.flow %s] packets = 0 (no limit) with [simulation] duration "
                       "= 0: expected duration > 0 s when packets = 0",
                       WHERE(K_FLOW_PACKETS, K_DURATION), name);
    int always_zero = fl->interval.law != TLAW_EXPONENTIAL && fl->interval.b_ns == 0;
    if (always_zero && fl->packets != 1) {
        config_format_value_at(fl, K_FLOW_INTERVAL, a, sizeof a);
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [traffic.flow %s] interval = %s%s with packets = %lld%s: expected an "
                       "interval that is not always 0 (> 0 s, or uniform(a, b) with b > 0) when "
                       "packets is not 1",
                       WHERE(K_FLOW_INTERVAL, K_FLOW_PACKETS), name, a,
                       from_traffic(ctx, f, K_FLOW_INTERVAL), (long long)fl->packets,
                       from_traffic(ctx, f, K_FLOW_PACKETS));
    }
    return 0;
}

int config_finish_flows(load_ctx *ctx)
{
    for (int f = 0; f < flood_load_values(ctx)->n_flows; f++) {
        inherit(ctx, f);
        int rc = check_flow(ctx, f);
        if (rc != 0)
            return rc;
    }
    return 0;
}

void config_dump_flows(const flood_values *sc, FILE *out)
{
    for (int f = 0; f < sc->n_flows; f++) {
        const traffic_flow *fl = &sc->flows[f];
        fprintf(out, "\n[traffic.flow %s]\n", fl->name);
        /* every key, so that the dump does not depend on [traffic] staying as it is */
        for (int k = K_FLOW_SOURCE; k <= K_FLOW_SIZE; k++) {
            char text[256];
            if (k == K_FLOW_SOURCE)
                format_sources(fl, text, sizeof text);
            else
                config_format_value_at(fl, k, text, sizeof text);
            fprintf(out, "%s = %s\n", config_key_at(k)->name, text);
        }
    }
}

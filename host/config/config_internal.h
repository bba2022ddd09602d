/* Private to host/config: the schema table and the pieces shared by the loader (config.c),
 * the value parsers (values.c, decimal.c) and the cross-key checks (checks.c). */
#ifndef CLNETSIM_CONFIG_INTERNAL_H
#define CLNETSIM_CONFIG_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

/* How a key's text becomes a field of struct scenario. The four physical types parse the
 * decimal text exactly and store it scaled (see key_type_scale). */
enum key_type {
    KT_CHOICE,      /* one of CHOICES, stored as its index (an enum value) in an int */
    KT_NAME,        /* one of CHOICES, stored as the text itself in a char[32] */
    KT_SEED,        /* uint64, decimal or 0x hex */
    KT_INT,         /* int64, plain decimal integer */
    KT_TIME_NS,     /* seconds in the INI, int64 nanoseconds in the struct */
    KT_TIME_MS,     /* seconds in the INI, int64 milliseconds in the struct */
    KT_LENGTH_MM,   /* metres in the INI, int64 millimetres in the struct */
    KT_SPEED_MM_S,  /* m/s in the INI, int64 mm/s in the struct */
    KT_PROBABILITY, /* double in [0, 1] */
    KT_IDS,         /* node id ranges "0-99, 200": a mobility group's nodes (groups.c) */
    KT_PROB_LAW,    /* a probability, or uniform(a, b) drawn per node: a prob_law */
    KT_SOURCES,     /* a flow's sources: "all" or node id ranges (flows.c) */
    KT_DESTINATION, /* int64 node id, -1 (the last node) or "broadcast" (FLOW_BROADCAST) */
    KT_TIME_LAW,    /* seconds, uniform(a, b) or exponential(mean): a time_law in ns */
    KT_ENERGY_NJ,   /* joules in the INI, int64 nanojoules in the struct */
    KT_ENERGY_LAW,  /* joules or uniform(a, b): an energy_law in nJ */
};

/* Key ids: the index of each key in config_keys[], in the order of docs/model.md ("Keys"),
 * then the keys of the later models. Within a section this is the order of --dump-config and
 * of docs/keys.md; the sections themselves are written core first, by model (config_dump,
 * config_print_reference). */
enum key_id {
    K_MODEL,
    K_SEED,
    K_DURATION,
    K_PLACEMENT,
    K_ROWS,
    K_COLS,
    K_SPACING,
    K_NODES,
    K_WIDTH,
    K_HEIGHT,
    K_DEPTH,
    K_AREAS,
    K_BORDER_LINKS,
    K_CONNECTIVITY,
    K_RANGE,
    K_RANGE_MIN,
    K_LINK_PROBABILITY,
    K_MAX_NEIGHBORS,
    K_MOBILITY,
    K_SPEED_MIN,
    K_SPEED_MAX,
    K_PAUSE_MIN,
    K_PAUSE_MAX,
    K_TRAVEL_MIN,
    K_TRAVEL_MAX,
    K_STREET_SPACING,
    K_BOUNDARY,
    K_GROUP_NODES,
    K_SOURCE,
    K_DESTINATION,
    K_PACKETS,
    K_INTERVAL,
    K_START,
    K_SIZE,
    K_FLOW_SOURCE, /* the keys of [traffic.flow NAME]: offsets into traffic_flow */
    K_FLOW_DESTINATION,
    K_FLOW_PACKETS,
    K_FLOW_INTERVAL,
    K_FLOW_INTERVAL_DRAW,
    K_FLOW_START,
    K_FLOW_SIZE,
    K_RELAY_DELAY,
    K_DROP_PROBABILITY,
    K_TTL,
    K_SCHEME,
    K_COUNTER_THRESHOLD,
    K_DISTANCE_THRESHOLD,
    K_ASSESSMENT_DELAY,
    K_RX_CAPACITY,
    K_ENERGY_BUDGET,
    K_TX_FIXED,
    K_TX_PER_BYTE,
    K_RX_FIXED,
    K_RX_PER_BYTE,
    K_PARTITIONS,
    K_RETILE,
    K_POLICY,
    K_HISTORY,
    K_HOLD,
    K_THRESHOLD,
    K_BUSY,
    K_CALIBRATION_SHARE,
    K_ON_FAILURE,
    K_PHOLD_LPS, /* [phold]: the PHOLD model */
    K_PHOLD_POPULATION,
    K_PHOLD_REMOTE,
    K_PHOLD_LOOKAHEAD,
    K_PHOLD_MEAN,
    K_COUNT
};

/* The minimum itself is not allowed: the value must be > min (relay_delay, range). */
#define KEY_MIN_OPEN 1u
/* KT_TIME_LAW, KT_ENERGY_LAW: exponential(mean) is refused (a flow's start, a budget). */
#define KEY_NO_EXPONENTIAL 2u

/* The section of the flow keys, and whether KEY is one of them. */
#define FLOW_SECTION "traffic.flow NAME"
static inline int config_is_flow_key(int key) { return key >= K_FLOW_SOURCE && key <= K_FLOW_SIZE; }

typedef struct config_key {
    const char *section;
    const char *name;
    enum key_type type;
    size_t offset;               /* of the field in struct scenario (flow keys: traffic_flow) */
    int64_t min, max;            /* in the stored unit (ns, ms, mm, mm/s); KT_INT, KT_* units */
    unsigned flags;              /* KEY_MIN_OPEN, KEY_NO_EXPONENTIAL */
    const char *unit;            /* KT_INT: what is counted, for the reference ("bytes") */
    const char *const *choices;  /* KT_CHOICE, KT_NAME: NULL-terminated, index = enum value */
    const char *def;             /* default, as INI text (parsed like any value); flow keys:
                                    what the reference shows (the defaults are [traffic]'s) */
    const char *help;
} config_key;

extern const config_key config_keys[K_COUNT];

/* Distinct section names in table order, NULL-terminated. */
extern const char *const config_sections[];

/* How near WORD is to the known NAME: a small score, or -1 when it is not a likely typo. */
int config_name_nearness(const char *word, const char *name);

/* The model a section belongs to: "flood", "phold", or NULL for the core sections that every
 * scenario may set (simulation, partition, inject, devices). SECTION is a name of
 * config_sections or a named section ("mobility.group NAME", "traffic.flow NAME"). */
const char *config_section_model(const char *section);

/* Key of SECTION and NAME, or -1. */
int config_find_key(const char *section, const char *name);
int config_section_known(const char *section);

/* Where a key's value came from, for messages. */
enum key_origin { ORIGIN_DEFAULT = 0, ORIGIN_FILE, ORIGIN_OVERRIDE };

typedef struct key_state {
    enum key_origin origin;
    int line;                    /* ORIGIN_FILE */
    const char *override;        /* ORIGIN_OVERRIDE: the -s text */
    const char *source;          /* ORIGIN_OVERRIDE: how messages name it, NULL for -s */
    int seq;                     /* not default: the rank of the assignment (or section line)
                                    in the load, file lines first, then overrides, from 1 */
} key_state;

/* What a [mobility.group NAME] section set: its values sit in SC at the offsets of the
 * [mobility] keys; KEYS says which of them the section set (the others are inherited). */
typedef struct group_state {
    scenario sc;
    key_state keys[K_COUNT];     /* keys[K_GROUP_NODES]: where nodes was set */
    key_state opened;            /* where the group was first named */
} group_state;

/* What a [traffic.flow NAME] section set: its values sit in sc.flows[f] as they are read;
 * KEYS says which of them the section set (the others are [traffic]'s, filled in once every
 * value is in). */
typedef struct flow_state {
    key_state keys[K_COUNT];     /* only the K_FLOW_* entries are used */
    key_state opened;            /* where the flow was first named */
} flow_state;

/* State of one load: shared by the loader and the cross-key checks. */
typedef struct load_ctx {
    const char *name;            /* file name used in messages */
    scenario sc;
    key_state keys[K_COUNT];
    group_state groups[SCENARIO_MAX_GROUPS]; /* sc.n_groups of them */
    flow_state flows[SCENARIO_MAX_FLOWS];    /* sc.n_flows of them */
    int n_set;                   /* values assigned from the text and the overrides */
    int seq;                     /* key_state.seq of the last assignment or section line */
    cn_error *err;
} load_ctx;

/* Location of KEY's value for messages: "a.ini:12", "-s argument 'x=y'" or "a.ini" when the
 * key kept its default. Returns BUF. */
const char *config_key_where(const load_ctx *ctx, int key, char *buf, size_t size);
/* The same for any value's origin ST (a group's or a flow's key). */
const char *config_origin_where(const load_ctx *ctx, const key_state *st, char *buf,
                                size_t size);

/* Parses TEXT as the value of KEY into CTX->sc; on error fills CTX->err naming WHERE. */
int config_set_value(load_ctx *ctx, int key, const char *text, const char *where);
/* Same into SC, with SECTION in messages (a group's section name). */
int config_set_value_in(load_ctx *ctx, scenario *sc, const char *section, int key,
                        const char *text, const char *where);
/* Same into the struct at BASE that KEY's offset refers to (a traffic_flow for flow keys). */
int config_set_value_at(load_ctx *ctx, void *base, const char *section, int key,
                        const char *text, const char *where);

/* Formats the value of KEY in SC as INI text (reads back to the same field). */
void config_format_value(const scenario *sc, int key, char *buf, size_t size);
/* Same from the struct at BASE (a traffic_flow for flow keys). */
void config_format_value_at(const void *base, int key, char *buf, size_t size);

/* Node id ranges "0-99, 250" (ids <= SCENARIO_MAX_NODES - 1, first <= last, at most MAX) into
 * FIRST, LAST (MAX entries each, those after the N_OUT read set to 0). On error fills
 * CTX->err: "WHERE: [SECTION] KEY = TEXT: why; expected (config_expected of KEY)". */
int config_parse_id_ranges(load_ctx *ctx, const char *section, int key, const char *text,
                           const char *where, int max, int64_t *first, int64_t *last,
                           int *n_out);
/* "0-99, 200" for N ranges. */
void config_format_id_ranges(const int64_t *first, const int64_t *last, int n, char *buf,
                             size_t size);

/* Formats V / 10^SCALE exactly, without trailing zeros ("0.1", "-2", "0.000000001"). */
void format_scaled(int64_t v, int scale, char *buf, size_t size);

/* Decimal places between the INI unit and the stored unit of a physical type, else 0. */
int key_type_scale(enum key_type type);

/* "expected ..." text for KEY: "a time in seconds > 0", "one of: grid, uniform". */
void config_expected(int key, char *buf, size_t size);

/* Strict number syntax shared by the parsers: [+-]digits for integers, the decimal grammar of
 * decimal_to_scaled_int for the rest. No spaces, no hex, no "nan" or "inf". */
int parse_int64_strict(const char *text, int64_t *out);          /* 0, -1 syntax, -2 range */
int parse_uint64_seed(const char *text, uint64_t *out);          /* 0, -1 syntax, -2 range */
int decimal_syntax_ok(const char *text);

/* ---- mobility groups (groups.c) ---- */

/* The NAME of a named section "PREFIX NAME" or "PREFIX.NAME" (-s), NAME of 1 to
 * GROUP_NAME_MAX - 1 letters, digits, '_' or '-': 0, or -1 when SECTION holds none. */
int config_section_name(const char *section, const char *prefix, char name[GROUP_NAME_MAX]);

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
void config_dump_groups(const scenario *sc, FILE *out);
/* "0-99, 200" for group G's ranges. */
void config_format_ranges(const mobility_group *g, char *buf, size_t size);

/* ---- traffic flows (flows.c) ---- */

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
void config_dump_flows(const scenario *sc, FILE *out);

/* Where to point for a rule about the N keys KEYS: where the one set last was set (an
 * override beats a file line, a later line an earlier one); the file name when none was. */
const char *config_where_latest(const load_ctx *ctx, const int *keys, int n, char *buf,
                                size_t size);

/* ---- sections by model (models.c) ---- */

/* Every key set (in the file or by an override) and every named section opened belongs to the
 * core or to the scenario's model: the first one, in the order they were set, that belongs to
 * another model is refused, naming where it was set. */
int config_check_model_sections(load_ctx *ctx);
/* The cross-key rules of the phold model ([simulation] duration > 0, the clock's limit). */
int config_check_phold(load_ctx *ctx);
/* Whether the scenario of CTX (or SC) is of the phold model. */
int config_is_phold(const scenario *sc);

/* Cross-key rules and derived fields (nodes of a grid, destination -1, grid area for rwp,
 * drop threshold). Run once after the file and the overrides. */
int config_finish(load_ctx *ctx);

#endif

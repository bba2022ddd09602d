/* A model's option group: the sections and keys a model adds to a scenario, described as data
 * so that the configuration core (parser, units, typo hints, -s, --dump-config, the key
 * reference, the "section belongs to model X" rule) works over them without knowing the
 * model. A model writes its group in its own folder and names it in the model table
 * (host/models/models.c); the core reads the table once, at the first load. */
#ifndef CLNETSIM_MODEL_CONFIG_H
#define CLNETSIM_MODEL_CONFIG_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"

/* ---- what the key types store (the fields a model's values struct holds for them) ---- */

/* Laws of values drawn per entity (docs/models.md, "Laws"): KT_PROB_LAW, KT_ENERGY_LAW. */
enum law_kind { LAW_CONSTANT = 0, LAW_UNIFORM = 1 };

/* KT_PROB_LAW: a probability given as a constant P, or as uniform(P, P_MAX). */
typedef struct prob_law {
    int law;                  /* enum law_kind */
    double p;                 /* the constant, or the lower bound */
    double p_max;             /* uniform: the upper bound; a constant: = p */
} prob_law;

/* KT_TIME_LAW: a constant, uniform(a, b), exponential(mean), in ns. */
enum time_law_kind { TLAW_CONSTANT = 0, TLAW_UNIFORM = 1, TLAW_EXPONENTIAL = 2 };
typedef struct time_law {
    int law;                  /* enum time_law_kind */
    int64_t a_ns;             /* the constant, uniform's lower bound, or exponential's mean */
    int64_t b_ns;             /* uniform's upper bound; otherwise = a_ns */
} time_law;

/* KT_ENERGY_LAW: an energy given as a constant or as uniform(a, b), in integer nanojoules. */
typedef struct energy_law {
    int law;                  /* enum law_kind */
    int64_t a_nj;             /* the constant, or the lower bound */
    int64_t b_nj;             /* uniform: the upper bound; a constant: = a_nj */
} energy_law;

/* KT_DESTINATION's "broadcast". */
#define FLOW_BROADCAST ((int64_t)-2)

/* KT_IDS, KT_SOURCES: ids are below CONFIG_MAX_IDS (the most entities a scenario may have:
 * they are 31-bit on the devices), at most CONFIG_MAX_RANGES ranges of them; a named
 * section's NAME has fewer characters than CONFIG_NAME_MAX. */
#define CONFIG_MAX_IDS ((int64_t)2000000000)
#define CONFIG_MAX_RANGES 8
#define CONFIG_NAME_MAX 32

/* How a key's text becomes a field. The four physical types parse the decimal text exactly
 * and store it scaled (see key_type_scale). */
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
    KT_IDS,         /* node id ranges "0-99, 200": set by a named section's own code */
    KT_PROB_LAW,    /* a probability, or uniform(a, b) drawn per node: a prob_law */
    KT_SOURCES,     /* "all" or node id ranges: set by a named section's own code */
    KT_DESTINATION, /* int64 node id, -1 (the last node) or "broadcast" (FLOW_BROADCAST) */
    KT_TIME_LAW,    /* seconds, uniform(a, b) or exponential(mean): a time_law in ns */
    KT_ENERGY_NJ,   /* joules in the INI, int64 nanojoules in the struct */
    KT_ENERGY_LAW,  /* joules or uniform(a, b): an energy_law in nJ */
};

/* The minimum itself is not allowed: the value must be > min (relay_delay, range). */
#define KEY_MIN_OPEN 1u
/* KT_TIME_LAW, KT_ENERGY_LAW: exponential(mean) is refused (a flow's start, a budget). */
#define KEY_NO_EXPONENTIAL 2u

/* One key. A section written "PREFIX NAME" is a named section ([traffic.flow NAME]): its keys
 * are set by the group's named-section callbacks, and get no default of their own. */
typedef struct config_key {
    const char *section;
    const char *name;
    enum key_type type;
    size_t offset;               /* where the value goes: the core's keys, the field in struct
                                    scenario; a model's, the field in its values struct (a
                                    named section's keys: in the struct its code gives) */
    int64_t min, max;            /* in the stored unit (ns, ms, mm, mm/s); KT_INT, KT_* units */
    unsigned flags;              /* KEY_MIN_OPEN, KEY_NO_EXPONENTIAL */
    const char *unit;            /* KT_INT: what is counted, for the reference ("bytes") */
    const char *const *choices;  /* KT_CHOICE, KT_NAME: NULL-terminated, index = enum value */
    const char *def;             /* default, as INI text (parsed like any value); named
                                    sections: what the reference shows */
    const char *help;
} config_key;

/* The state of one load (host/config/config_internal.h); a group's callbacks receive it and
 * reach it through the functions below and those of config_internal.h. */
typedef struct load_ctx load_ctx;

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

/* A named section's handlers ([traffic.flow NAME], [mobility.group NAME]). SECTION is what the
 * file or -s wrote ("traffic.flow a", "traffic.flow.a"); every callback returns 0 or
 * CN_ERR_INPUT with the load's error set. */
typedef struct config_named_section {
    const char *prefix;          /* "traffic.flow": a section that starts with it is one */
    /* The section line [SECTION] at WHERE (NULL: a section line alone means nothing). */
    int (*open)(load_ctx *ctx, const char *section, const char *where, key_state origin);
    /* NAME = VALUE in SECTION. */
    int (*assign)(load_ctx *ctx, const char *section, const char *name, const char *value,
                  const char *where, key_state origin);
} config_named_section;

/* The first assignment a scenario of another model may not make: config_check_model_sections
 * hands each group's named sections to its `strays` callback, which calls this for every key
 * state ST of the named section LABEL ("traffic.flow a") and KEY (NULL: the section line). */
typedef struct config_stray config_stray;
void config_stray_consider(config_stray *s, const key_state *st, const char *label,
                           const char *key);

/* The option group of one model. */
typedef struct model_config {
    const char *model;           /* the name [simulation] model takes */
    /* What [simulation] model's help says of it, completing "NAME (...)": "packets flooded
     * over a network of nodes, docs/model.md". */
    const char *summary;
    const config_key *keys;      /* its keys, in the order of --dump-config and docs/keys.md */
    int n_keys;
    int *first_key;              /* the registry writes here the id of keys[0]: key I of the
                                    group is key id *first_key + I in every config function */
    const config_named_section *named; /* its named sections, N_NAMED of them */
    int n_named;
    /* Bytes of its values struct, where its keys' offsets point: at most SCENARIO_MODEL_BYTES
     * (config.h). During a load each group's values are zeroed, get its defaults and the keys
     * of its sections (config_values); the selected model's are then copied into the
     * scenario's model_values, where the model's accessor reads them. */
    size_t values_size;
    /* Bytes of state the group keeps during one load (its named sections' origins), zeroed at
     * the start: config_load_state. */
    size_t load_state_size;
    /* The cross-key rules and derived fields of a scenario of this model, once the file and
     * every override are in: 0, or CN_ERR_INPUT with the load's error set. */
    int (*check)(load_ctx *ctx);
    /* Fields that follow from the group's keys alone (probability thresholds), set in VALUES
     * (its values struct) once the rules passed, so that a scenario is a function of its keys;
     * NULL: none. */
    void (*derive)(void *values);
    /* --dump-config, all optional: DUMP_LINE writes the line of key KEY of a fixed section
     * itself (returns 1) when it is not "key = VALUE" (a derived key written as a comment);
     * DUMP_NAMED writes, at the place of named-section key KEY, what that section holds;
     * DUMP_TAIL writes what comes after the core's sections. */
    int (*dump_line)(const scenario *sc, int key, const char *value, FILE *out);
    void (*dump_named)(const scenario *sc, int key, FILE *out);
    void (*dump_tail)(const scenario *sc, FILE *out);
    /* Calls config_stray_consider for what its named sections set; NULL: none. */
    void (*strays)(const load_ctx *ctx, config_stray *s);
    /* Whether the load made a named section (a flow with no key counts as something set). */
    int (*has_named)(const load_ctx *ctx);
    /* docs/keys.md: the text between "## Model NAME" and its table (Markdown, ends with a
     * blank line). */
    const char *reference;
} model_config;

/* The model table's option groups (host/models/models.c), in table order; the first is the
 * default of [simulation] model. */
const model_config *const *model_config_table(int *n);

/* Adds GROUP after the table's (a test's model). Call before any load; not thread-safe.
 * CN_ERR_RUNTIME with ERR set, and GROUP left out, when its values do not fit a scenario's
 * SCENARIO_MODEL_BYTES or the registry is full. */
int config_register_model(const model_config *group, cn_error *err);

#endif

/* The configuration core's own interface: the registry of keys (the core's table and the
 * model table's option groups), the state of one load, and the value parsers, formatters and
 * message helpers that the loader (config.c), the checks (checks.c, models.c) and the option
 * groups' callbacks (host/models/X) share. */
#ifndef CLNETSIM_CONFIG_INTERNAL_H
#define CLNETSIM_CONFIG_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "config/model_config.h"

/* 0, or CN_ERR_RUNTIME with ERR set when GROUP's values do not fit SCENARIO_MODEL_BYTES: checked
 * when a group is registered and at every load (a model of the table too). */
int config_check_values_size(const model_config *group, cn_error *err);

/* Key ids. The core's keys are the first, in the order of its table (schema.c); each model's
 * option group follows, in the order of the model table, its key I at *first_key + I
 * (model_config.h). The order of --dump-config, of docs/keys.md and of every search for a name
 * is config_key_in_order's, not that of the ids. */
enum core_key_id {
    K_MODEL,
    K_SEED,
    K_DURATION,
    K_PARTITIONS,
    K_RETILE,
    K_REBALANCE,
    K_POLICY,
    K_HISTORY,
    K_HOLD,
    K_THRESHOLD,
    K_BUSY,
    K_CALIBRATION_SHARE,
    K_ON_FAILURE,
    K_CORE_COUNT
};

/* The most keys of the core and every option group together, and the most groups. */
#define CONFIG_MAX_KEYS 128
#define CONFIG_MAX_MODELS 8

/* The core's table (schema.c). */
extern const config_key config_core_keys[K_CORE_COUNT];

/* ---- the registry: the core's keys and the option groups of the model table ---- */

/* Number of keys, and key ID (0 <= ID < config_key_count()). */
int config_key_count(void);
const config_key *config_key_at(int id);
/* The id of the I-th key in the order of the reference, the dump and name searches:
 * [simulation], the default model's sections, the other core sections, then the other models'
 * sections; each group's keys in its own order. */
int config_key_in_order(int i);
/* The option group key ID belongs to, NULL for the core's. */
const model_config *config_key_group(int id);
/* The option groups, in the model table's order (the first is the default model). */
int config_group_count(void);
const model_config *config_group_at(int i);
/* The group of model NAME, or NULL. */
const model_config *config_group_of(const char *model);
/* Whether KEY belongs to a named section ("traffic.flow NAME"). */
int config_is_named_key(int key);

/* Distinct fixed section names in key order, NULL-terminated; and the same with the named
 * sections ("traffic.flow NAME") in their places, as messages list them. */
const char *const *config_section_names(void);
const char *config_section_list(void);

/* How near WORD is to the known NAME: a small score, or -1 when it is not a likely typo. */
int config_name_nearness(const char *word, const char *name);

/* The model a section belongs to, or NULL for the core sections that every scenario may set
 * (simulation, partition, inject, devices). SECTION is a fixed section's name or a named
 * section's ("traffic.flow NAME"). */
const char *config_section_model(const char *section);

/* Key of SECTION and NAME, or -1. */
int config_find_key(const char *section, const char *name);
int config_section_known(const char *section);

/* State of one load: shared by the loader and the cross-key checks. */
struct load_ctx {
    const char *name;            /* file name used in messages */
    scenario sc;
    key_state keys[CONFIG_MAX_KEYS];
    void *group_values[CONFIG_MAX_MODELS]; /* each option group's values_size bytes */
    void *group_state[CONFIG_MAX_MODELS]; /* each option group's load_state_size bytes */
    int n_set;                   /* values assigned from the text and the overrides */
    int seq;                     /* key_state.seq of the last assignment or section line */
    cn_error *err;
};

/* Location of KEY's value for messages: "a.ini:12", "-s argument 'x=y'" or "a.ini" when the
 * key kept its default. Returns BUF. */
const char *config_key_where(const load_ctx *ctx, int key, char *buf, size_t size);
/* The same for any value's origin ST (a group's or a flow's key). */
const char *config_origin_where(const load_ctx *ctx, const key_state *st, char *buf,
                                size_t size);

/* Parses TEXT as the value of KEY into the load: a core key into CTX->sc, a model's into its
 * group's values (config_values); on error fills CTX->err naming WHERE. */
int config_set_value(load_ctx *ctx, int key, const char *text, const char *where);
/* Same into the struct at BASE that KEY's offset refers to (a group's copy of its values, a
 * traffic_flow for flow keys), with SECTION in messages (a named section's name). */
int config_set_value_at(load_ctx *ctx, void *base, const char *section, int key,
                        const char *text, const char *where);

/* Formats the value of KEY in SC as INI text (reads back to the same field). A model's key is
 * read from SC's model values: SC must be a scenario of that model. */
void config_format_value(const scenario *sc, int key, char *buf, size_t size);
/* Same for the value the load holds now (a core key's in CTX->sc, a model's in its group's
 * values), for the messages of the rules. */
void config_format_loaded(const load_ctx *ctx, int key, char *buf, size_t size);
/* Same from the struct at BASE (a traffic_flow for flow keys). */
void config_format_value_at(const void *base, int key, char *buf, size_t size);

/* Node id ranges "0-99, 250" (ids <= CONFIG_MAX_IDS - 1, first <= last, at most MAX) into
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

/* The NAME of a named section "PREFIX NAME" or "PREFIX.NAME" (-s), NAME of 1 to
 * CONFIG_NAME_MAX - 1 letters, digits, '_' or '-': 0, or -1 when SECTION holds none. */
int config_section_name(const char *section, const char *prefix, char name[CONFIG_NAME_MAX]);

/* The zeroed per-load state GROUP asked for (model_config.load_state_size). */
void *config_load_state(const load_ctx *ctx, const model_config *group);
/* GROUP's values during the load (model_config.values_size bytes): its defaults, then what the
 * file and the overrides set; the selected model's become the scenario's model values. */
void *config_values(const load_ctx *ctx, const model_config *group);
/* Where a group's values go: that group's GROUP_INDEX in the registry (config_group_at), or
 * -1 for a key of the core. */
int config_key_group_index(int id);

/* Where to point for a rule about the N keys KEYS: where the one set last was set (an
 * override beats a file line, a later line an earlier one); the file name when none was. */
const char *config_where_latest(const load_ctx *ctx, const int *keys, int n, char *buf,
                                size_t size);
/* CONFIG_WHERE(CTX, BUF, K_A, K_B, ...): config_where_latest of those keys into the char array
 * BUF (the groups' checks name the key of a rule that was set last). */
#define CONFIG_KEY_LIST(...) ((const int[]){__VA_ARGS__})
#define CONFIG_WHERE(ctx, buf, ...)                                                          \
    config_where_latest((ctx), CONFIG_KEY_LIST(__VA_ARGS__),                                \
                        (int)(sizeof CONFIG_KEY_LIST(__VA_ARGS__) / sizeof(int)), (buf),    \
                        sizeof(buf))

/* ---- sections by model (models.c) ---- */

/* Every key set (in the file or by an override) and every named section opened belongs to the
 * core or to the scenario's model: the first one, in the order they were set, that belongs to
 * another model is refused, naming where it was set. */
int config_check_model_sections(load_ctx *ctx);
/* The scenario's model's cross-key rules and derived fields; then its values are copied into
 * the scenario's model_values. Run once after the file and the overrides. */
int config_finish(load_ctx *ctx);

#endif

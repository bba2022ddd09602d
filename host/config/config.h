/* Scenario configuration: INI (inih) and -s overrides -> one typed, validated scenario.
 *
 * A schema table (config.c) lists every section and key with its type, range, default and
 * help. It drives parsing, overrides, defaults, --dump-config and the key reference in
 * docs/. All lengths and times are converted once, here, to the integers of docs/model.md:
 * metres -> millimetres and seconds -> nanoseconds, rounded to nearest (ties away from zero),
 * parsed from the decimal text exactly (no binary floating point on the way).
 *
 * This header is the core's: the keys every scenario has. Each model's keys, values, types
 * and helpers are in its folder (host/models/X: X_values.h), reached from here only through
 * the model table's option groups (model_config.h). */
#ifndef CLNETSIM_CONFIG_H
#define CLNETSIM_CONFIG_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

enum policy_kind { POLICY_STATIC = 0, POLICY_RAPID = 1, POLICY_ADVANCED = 2, POLICY_HYBRID = 3 };
enum on_failure_kind { ON_FAILURE_STOP = 0, ON_FAILURE_CONTINUE = 1 };

/* No simulated time a run computes reaches 2^62 ns (about 146 years): each model's rules
 * check that its scenarios stay below it (the flood's check_horizon, PHOLD's check). Every
 * time key is at most half of it, so that a time and one key's value (start + interval,
 * duration + interval) always fit int64 too. */
#define SCENARIO_MAX_TIME_NS ((int64_t)1 << 62)
#define KEY_TIME_MAX ((int64_t)1 << 61)

/* Bytes a scenario keeps for its model's values. A model's option group declares the size of
 * its values struct (model_config.values_size); one larger than this is refused when the group
 * is registered and by a _Static_assert in the model's folder. The flood's are the largest
 * (its mobility groups and traffic flows, about 9 KiB). */
#define SCENARIO_MODEL_BYTES 12288

/* A scenario: what every scenario has, whatever its model, and the values of its model in
 * storage the core does not interpret. Those are the selected model's values struct (the
 * flood's flood_values, PHOLD's phold_values, each in its folder), read through the model's
 * accessor (flood_values_of, phold_values_of). The storage is inside the struct, not behind a
 * pointer, so that a scenario stays a plain value: code and tests copy it with `=`, compare it
 * with memcmp, and nothing is ever freed. Bytes past the model's values are zero. */
typedef struct scenario {
    char path[1024];          /* file it came from ("" when built in code) */

    /* [simulation] */
    char model[32];           /* the name of a model of the model table: "flood", "phold" */
    uint64_t seed;
    int64_t duration_ns;      /* 0: until no event remains */

    /* not a key: `clnetsim run --packets` asks the model for a record of every packet */
    int record_packets;

    /* [partition] */
    int64_t partitions;       /* partitions; 0: chosen from the model's size and the devices */
    int64_t retile;           /* mobile: windows between re-tilings; 0: never */
    int64_t rebalance;        /* over ranks: windows between the coordinator's looks; 0: never */

    /* [inject]: where event sets run; never changes a result */
    int policy;               /* enum policy_kind */
    int64_t history;          /* samples kept per (kind, device) */
    int64_t hold;             /* windows a hybrid choice is held */
    int64_t threshold;        /* rapid: multiplicity from which sets go to GPUs; 0: learnt */
    int64_t busy;             /* hybrid: sets per device in a window above which it is rapid */
    double calibration_share; /* the most of the measured device time migrating trials cost */

    /* [devices]: what a run does when a device fails; never changes a result */
    int on_failure;           /* enum on_failure_kind */

    /* The model's values: its keys' offsets are relative to this block (model_config.h). The
     * union aligns it for any struct a model keeps there; only the model's accessor reads it,
     * always as that model's struct, and copies of a whole scenario move it as bytes. */
    union {
        max_align_t align;
        unsigned char bytes[SCENARIO_MODEL_BYTES];
    } model_values;
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

/* Exact decimal conversions used for the INI units (exposed for tests): TEXT is a decimal
 * number with optional sign, fraction and exponent ("1.5", "-2e-3"); the result is
 * TEXT * 10^SCALE rounded to nearest, ties away from zero. Returns 0 on success, -1 when the
 * text is not a number, -2 when the result does not fit in int64. */
int decimal_to_scaled_int(const char *text, int scale, int64_t *out);

#endif

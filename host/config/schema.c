/* The schema: the core's keys, and what is said of any key (expected values, the reference).
 * The core's table and the models' option groups drive parsing, -s overrides, defaults,
 * --dump-config and docs/keys.md, so a key added to a table is complete everywhere. Help
 * texts end up in a Markdown table: no '|' in them. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

#define FIELD(f) offsetof(scenario, f)

static const char *const policy_choices[] = {"static", "rapid", "advanced", "hybrid", NULL};
static const char *const failure_choices[] = {"stop", "continue", NULL};

/* The core's keys: those of every scenario, whatever its model. The models' keys are in their
 * option groups (host/models/X), gathered by the registry (registry.c). */
const config_key config_core_keys[K_CORE_COUNT] = {
    [K_MODEL] = {"simulation", "model", KT_NAME, FIELD(model), 0, 0, 0, NULL, NULL, NULL,
                 NULL}, /* choices, default and help: the model table's (registry.c) */
    [K_SEED] = {"simulation", "seed", KT_SEED, FIELD(seed), 0, 0, 0, NULL, NULL, "1",
                "Key of every random draw (Philox4x32-10). Same scenario and seed give the same "
                "results on every device."},
    [K_DURATION] = {"simulation", "duration", KT_TIME_NS, FIELD(duration_ns), 0, KEY_TIME_MAX, 0,
                    NULL, NULL, "0",
                    "Simulated time at which the run stops (events at or after it are not "
                    "executed). 0 runs until no event remains."},

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
    [K_REBALANCE] = {"partition", "rebalance", KT_INT, FIELD(rebalance), 0, 1000000, 0,
                     "windows", NULL, "16",
                     "PHOLD, and the flood's window loop when the ranks mix CPU and GPU "
                     "devices, over several MPI ranks: every this many windows (the flood's: "
                     "that transmitted) the ranks compare the time each took for its "
                     "partitions, and each boundary between neighbouring ranks moves half the "
                     "way toward shares in proportion to their speeds (at least one "
                     "partition; none while the slowest rank is within an eighth of the "
                     "mean). 0 keeps the first shares. Results never depend on it."},
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

};

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
    const config_key *k = config_key_at(key);
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
                            "%d ranges)", CONFIG_MAX_RANGES);
        break;
    case KT_SOURCES:
        snprintf(buf, size, "all, or node id ranges such as 0-99, 250, 300-399 (first <= last, "
                            "at most %d ranges)", CONFIG_MAX_RANGES);
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

/* One table: the keys of GROUP (NULL: the core's), in the registry's order. */
static void print_reference_table(FILE *out, const model_config *group)
{
    fprintf(out, "| Section | Key | Type | Range | Default | Description |\n"
                 "|---|---|---|---|---|---|\n");
    for (int i = 0; i < config_key_count(); i++) {
        int id = config_key_in_order(i);
        const config_key *k = config_key_at(id);
        if (config_key_group(id) != group)
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
            "`[partition] retile` concerns mobile flood scenarios only, `[partition] "
            "rebalance` runs over several MPI ranks.\n\n");
    print_reference_table(out, NULL);
    for (int g = 0; g < config_group_count(); g++) {
        const model_config *group = config_group_at(g);
        fprintf(out, "\n## Model %s\n\n%s", group->model, group->reference);
        print_reference_table(out, group);
    }
}

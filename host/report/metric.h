/* A model's metrics as a description (docs/architecture.md, "Metrics"): what each result
 * member is, how partial values combine, whether the determinism contract holds it and how
 * the summary shows it. The JSON writer, the summary, bench, selftest and json_compare work
 * from these declarations, never from a model's own field names.
 *
 * This header and a model's table of metrics depend on nothing but common/wide.h, so that a
 * tool such as json_compare can compile a model's declaration in (tools/json_compare.c). */
#ifndef CLNETSIM_METRIC_H
#define CLNETSIM_METRIC_H
#include <stdint.h>
#include <stdio.h>

#include "common/wide.h"

/* What a value is. Every integer kind is carried as a wide_int and written in decimal. */
enum metric_kind {
    METRIC_U64 = 0,  /* unsigned 64-bit; a sum wraps modulo 2^64 (PHOLD's checksums) */
    METRIC_I64,      /* signed 64-bit counter */
    METRIC_WIDE,     /* 128-bit sum (common/wide.h): sums that can pass 2^63 */
    METRIC_LOSS,     /* derived, not stored: 1 - NUM / DEN (the first of DEN, DEN_ALT the run
                      * has), 0 when that is 0; written as %.17g */
};

/* How the partial values of partitions, devices or ranks combine into the run's. */
enum metric_reduce { METRIC_SUM = 0, METRIC_MIN, METRIC_MAX };

/* Where the human summary shows a metric. */
enum metric_summary {
    METRIC_SUMMARY_HEAD = 0, /* a line of its own after the model line: "name  value" */
    METRIC_SUMMARY_LINE,     /* a line of its own after the simulated time */
    METRIC_SUMMARY_MODEL,    /* in the model's own words (metric_set.summary_head/tail) */
};

typedef struct model_metric {
    const char *name;        /* the JSON member */
    unsigned char kind;      /* enum metric_kind */
    unsigned char reduce;    /* enum metric_reduce */
    unsigned char contract;  /* 1: a determinism-contract member (compared by bench, selftest,
                              * json_compare); 0: written after the "contract" list */
    unsigned char optional;  /* 1: present only in the runs that set it (an extension in use) */
    unsigned char summary;   /* enum metric_summary */
    const char *num, *den, *den_alt; /* METRIC_LOSS's operands, names of the same table */
    /* > 1: an array of this many values of the kind (a histogram's counts), written as a
     * JSON array and combined element by element; 0 or 1: one value */
    unsigned short elements;
    /* 1: a METRIC_MIN or METRIC_MAX of which no part may exist anywhere (Kademlia's least
     * hops when no lookup completed): 0 then, where the reduction over ranks would refuse it */
    unsigned char absent_zero;
} model_metric;

/* Records of one shape under one member, e.g. the flood's per-flow results: a JSON array of
 * objects {"name": ..., COLUMNS...}, one per line, part of the contract when present. */
typedef struct metric_table {
    const char *name;        /* the JSON member, e.g. "flows" */
    const model_metric *cols;
    int n_cols;
} metric_table;

struct run_results;

/* A model's results as declared: its metrics in JSON order, an optional table written after
 * them, and optional printers of the summary lines in the model's words. */
typedef struct metric_set {
    const model_metric *metrics;
    int n_metrics;
    const metric_table *table;  /* NULL: none */
    /* NULL: nothing more than the generic lines. HEAD comes after the scenario line (instead
     * of the generic model line), TAIL after the simulated time and the METRIC_SUMMARY_LINE
     * members. Both read the values through report.h's results_* helpers. */
    void (*summary_head)(const struct run_results *r, FILE *out);
    void (*summary_tail)(const struct run_results *r, FILE *out);
} metric_set;

/* A and B combined as M says (sum, least, greatest; U64 sums wrap modulo 2^64). The one
 * rule of reduction: the core applies it to the partial values a model hands it
 * (results_reduce, report.h), and the reduction over MPI ranks will apply it to the ranks'
 * values, in any order and grouping. */
wide_int metric_combine(const model_metric *m, wide_int a, wide_int b);

/* Index of NAME in the N metrics of LIST, or -1. */
int metric_index(const model_metric *list, int n, const char *name);

#endif

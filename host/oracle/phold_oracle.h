/* Sequential reference implementation ("oracle") of the PHOLD model of docs/models/phold.md.
 *
 * Written from the model's definition only, sharing no code with the engine or with the flood
 * oracle: it carries its own Philox4x32-10 and its own table of exponential delays, so that a
 * mistake in a shared piece cannot hide in both sides of a comparison. It is also the
 * sequential yardstick that the parallel engine's speed is quoted against, so it is built for
 * speed (see the comment on the event queues in phold_oracle.c).
 *
 * It depends on nothing but the C library: the parameters come in a struct of their own (the
 * phold_oracle executable fills it from a loaded scenario). */
#ifndef CLNETSIM_PHOLD_ORACLE_H
#define CLNETSIM_PHOLD_ORACLE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Which event queue runs the model (both give the same results; tests compare them). */
typedef enum phold_oracle_queue {
    PHOLD_QUEUE_AUTO = 0, /* buckets one lookahead wide when they fit, else the heap */
    PHOLD_QUEUE_HEAP,     /* one binary heap of every pending event */
    PHOLD_QUEUE_BUCKETS,  /* a ring of time buckets one lookahead wide (refused if too many) */
} phold_oracle_queue;

typedef struct phold_oracle_params {
    uint64_t seed;
    int64_t lps;               /* N, 1 .. 2^32 */
    int64_t population;        /* E, events per LP at the start, 1 .. 2^32 */
    uint64_t remote_threshold; /* thr(r) = floor(r * 2^32), 0 .. 2^32 */
    int64_t lookahead_ns;      /* A > 0 */
    int64_t mean_ns;           /* M >= 0 */
    int64_t duration_ns;       /* T > 0: only events with t < T execute */
    phold_oracle_queue queue;  /* 0 (AUTO) unless a test wants one queue */
} phold_oracle_params;

/* The determinism-contract outputs of docs/models/phold.md ("Outputs"). */
typedef struct phold_oracle_result {
    int64_t events;           /* executed events (t < T) */
    int64_t remote;           /* executed events whose new event went to another LP */
    uint64_t time_sum_ns;     /* sum of t over executed events, mod 2^64 */
    uint64_t lp_weighted_sum; /* sum of (lp + 1) * (t mod 2^32), mod 2^64 */
    int64_t lp_events_min;    /* fewest events executed by one LP */
    int64_t lp_events_max;    /* most events executed by one LP */
    int64_t last_time_ns;     /* largest executed t, 0 if none */
} phold_oracle_result;

/* Return codes. */
enum {
    PHOLD_ORACLE_OK = 0,
    PHOLD_ORACLE_ERR_INPUT = -1, /* parameters outside what the model defines */
    PHOLD_ORACLE_ERR_NOMEM = -2, /* the pending events do not fit in memory */
};

/* Runs the model. R is zeroed first. On error, ERR (CAP bytes, may be NULL when CAP is 0)
 * gets one sentence saying why. */
int phold_oracle_run(const phold_oracle_params *p, phold_oracle_result *r, char *err, size_t cap);

/* The parameters of a loaded scenario (its seed, duration and [phold] keys), queue AUTO. */
struct scenario;
void phold_oracle_params_from(const struct scenario *sc, phold_oracle_params *p);

/* The JSON object of docs/models/phold.md ("Outputs"), member for member as the simulator
 * prints it, "contract" last. Returns 0, or -1 on a write error. */
int phold_oracle_write_json(FILE *f, const phold_oracle_params *p, const phold_oracle_result *r);

/* The same written to PATH through a temporary file in the same folder, renamed over PATH
 * only once complete ("-": stdout). Returns 0, or -1 with a sentence in ERR. */
int phold_oracle_save_json(const char *path, const phold_oracle_params *p,
                           const phold_oracle_result *r, char *err, size_t cap);

/* ---- Pieces exposed for the tests ---- */

/* Philox4x32-10 with counter CTR and key (seed & 0xffffffff, seed >> 32). */
void phold_oracle_philox(uint64_t seed, const uint32_t ctr[4], uint32_t out[4]);

/* The 65536-entry table of exponential delays for mean MEAN_NS (>= 0): entry j is
 * llround(-mean * log1p(-(j + 0.5) / 65536)). Returns PHOLD_ORACLE_ERR_INPUT when an entry
 * would not fit in int64. */
enum { PHOLD_EXP_SIZE = 65536 };
int phold_oracle_exp_table(int64_t mean_ns, int64_t table[PHOLD_EXP_SIZE]);

#endif

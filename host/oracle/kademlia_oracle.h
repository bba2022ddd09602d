/* Sequential reference implementation ("oracle") of the Kademlia model of
 * docs/models/kademlia.md.
 *
 * Written from the model's definition only, sharing no code with the engine or with the other
 * oracles: its own Philox4x32-10, its own ids and tables. Its routing tables come from the ids
 * sorted once (a bucket's range is a run of them, its k closest found by descending the run's
 * implicit binary trie), so that it runs networks of millions of peers; the plain Python
 * reference (tests/oracle/kademlia_reference.py) compares every pair instead, and the two are
 * compared on small networks (tests/oracle/kademlia_crosscheck.py).
 *
 * It depends on nothing but the C library: the parameters come in a struct of their own. */
#ifndef CLNETSIM_KADEMLIA_ORACLE_H
#define CLNETSIM_KADEMLIA_ORACLE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KAD_ORACLE_MAX_BITS 160
#define KAD_ORACLE_MAX_K 64
#define KAD_ORACLE_HOPS_BINS 32
#define KAD_ORACLE_LATENCY_BINS 64

typedef struct kad_oracle_params {
    uint64_t seed;
    int64_t peers;          /* N, 2 .. 2^31 - 1 */
    int id_bits;            /* B, 32 .. 160 */
    int k;                  /* bucket size, 1 .. 64 */
    int alpha;              /* requests in flight, 1 .. k */
    int64_t gap_max_ns;     /* D > 0 */
    int64_t lat_min_ns;     /* l_min > 0 */
    int64_t lat_max_ns;     /* l_max >= l_min, l_max - l_min < 2^32 */
    int64_t duration_ns;    /* T > 0 */
    int targets_peers;      /* 0: random ids; 1: the ids of peers */
    /* Churn ("Churn" in docs/models/kademlia.md): S, the mean online period (0: no churn), O,
     * the mean offline period, and R, the requests' timeout (>= l_max + l_min), in ns */
    int64_t session_ns, offline_ns, timeout_ns;
} kad_oracle_params;

/* The determinism-contract outputs ("Outputs" in docs/models/kademlia.md). */
typedef struct kad_oracle_result {
    int64_t lookups_started, lookups_completed, lookups_failed, lookups_found;
    int64_t messages, events;
    int64_t hops_sum, hops_min, hops_max;
    int64_t latency_sum_ns, latency_min_ns, latency_max_ns;
    int64_t hops_histogram[KAD_ORACLE_HOPS_BINS];
    int64_t latency_histogram[KAD_ORACLE_LATENCY_BINS];
    int64_t peers_alive, last_time_ns;
    int64_t id_redraws;     /* ids drawn again (not a contract member) */
    int64_t table_entries;  /* contacts in every table together (not a contract member) */
} kad_oracle_result;

enum {
    KAD_ORACLE_OK = 0,
    KAD_ORACLE_ERR_INPUT = -1, /* parameters outside what the model defines */
    KAD_ORACLE_ERR_NOMEM = -2,
    KAD_ORACLE_ERR_IO = -3,    /* the lookups' file could not be written */
};

/* Runs the model; with LOOKUPS, writes its --lookups rows there (header included). R is
 * zeroed first. On error, ERR (CAP bytes) gets one sentence saying why. */
int kad_oracle_run(const kad_oracle_params *p, kad_oracle_result *r, FILE *lookups, char *err,
                   size_t cap);

/* Writes R as the model's JSON object (the contract members, in order, then "contract"). */
void kad_oracle_write_json(const kad_oracle_params *p, const kad_oracle_result *r, FILE *out);

#endif

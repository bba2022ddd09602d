/* Sequential reference implementation ("oracle") of the flood model of MODEL.md.
 *
 * It is written from MODEL.md and the project's documented choices only, independently of the
 * OpenCL engine, so that the tests and `clnetsim selftest` can check the engine's counters
 * number for number. It favours obviousness over speed: brute-force neighbour lists, one packet
 * frontier at a time, mobility stepped one window at a time. It carries its own Philox4x32-10 so that a mistake in
 * the shared host implementation cannot hide in both sides of a comparison.
 *
 * Only the `scenario` struct of host/config/config.h is used (no function of the core
 * library), so the oracle can be checked on scenarios built in code. */
#ifndef CLNETSIM_FLOOD_ORACLE_H
#define CLNETSIM_FLOOD_ORACLE_H
#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"

/* Return codes of the oracle's functions. */
enum {
    ORACLE_OK = 0,
    ORACLE_ERR_INPUT = -1, /* the scenario is outside what the model defines */
    ORACLE_ERR_NOMEM = -2,
};

/* The determinism-contract counters of MODEL.md "Outputs" (loss is derived when printing). */
typedef struct flood_oracle_result {
    uint64_t seed;
    int64_t nodes;
    int64_t generated;        /* = packets, always */
    int64_t delivered;
    int64_t transmissions;
    int64_t receptions;       /* duplicates included */
    int64_t first_receptions;
    int64_t hops_sum;         /* over delivered packets */
    int64_t latency_sum_ns;   /* over delivered packets */
    int64_t end_time_ns;      /* time of the last executed transmission, 0 if none */
    int64_t windows;          /* floor(end_time_ns / L) + 1 if anything executed, else 0 */
    /* with [connectivity] max_neighbors > 0 (CAPPED): window 0's links after the cap, and
     * those it cut (docs/models.md) */
    bool capped;
    int64_t links, links_cut;
} flood_oracle_result;

/* Runs the flood model of SC. Returns ORACLE_OK or ORACLE_ERR_*; OUT is zeroed first. */
int flood_oracle_run(const scenario *sc, flood_oracle_result *out);

/* ---- Pieces exposed so that other tests can compare intermediate state ---- */

/* Philox4x32-10 draw of MODEL.md: ctr {a, b, s, 0}, key (seed lo32, seed hi32). */
void oracle_philox(uint64_t seed, uint32_t a, uint32_t b, uint32_t s, uint32_t w[4]);

/* The raw block function, for the known-answer tests. */
void oracle_philox4x32_10(const uint32_t ctr[4], uint32_t key0, uint32_t key1, uint32_t out[4]);

/* floor(sqrt(x)), exact for every 64-bit x. */
uint64_t oracle_isqrt_u64(uint64_t x);

/* Number of nodes of SC (rows * cols for grids), or -1 when it is not a valid count. */
int64_t oracle_node_count(const scenario *sc);

/* Initial positions (mm) of all nodes of SC: POS has oracle_node_count(sc) rows. */
int oracle_place(const scenario *sc, int64_t (*pos)[3]);

/* CSR neighbour lists under udg with range RANGE_MM: the neighbours of node i are
 * (*list)[(*offsets)[i] .. (*offsets)[i + 1] - 1], sorted ascending; *offsets has n + 1
 * entries. Brute force over all pairs. Both arrays are malloc'ed; free them with free(). */
int oracle_neighbours(const int64_t (*pos)[3], int64_t n, int64_t range_mm, int64_t **offsets,
                      int32_t **list);

/* The neighbour cap (docs/models.md, max_neighbors = K > 0) applied to the graph OFF/LST of
 * positions POS (each list sorted by id, as oracle_neighbours makes them): node i ranks its
 * links by (squared distance, id) and keeps the first K; a link stays when both ends keep it.
 * The lists are filtered in place (still sorted); *LINKS and *CUT (if not NULL) get the
 * unordered links kept and cut. Returns ORACLE_OK or ORACLE_ERR_NOMEM. */
int oracle_cap_filter(const int64_t (*pos)[3], int64_t n, int64_t k, int64_t *off, int32_t *lst,
                      int64_t *links, int64_t *cut);

/* Mobility state of every node, stepped one window at a time. */
typedef struct oracle_mobility {
    int64_t n;
    int64_t (*pos)[3];      /* current positions, mm */
    uint32_t *leg;          /* rwp leg counter m */
    int64_t *pause_end_ns;  /* the node moves in window w only if w * L >= pause_end_ns */
    int64_t (*dir)[3];      /* linear: each node's direction (docs/models.md) */
    int64_t *speed;         /* linear: each node's speed, mm/s */
    const mobility_params **params; /* what each node moves by (its group's or [mobility]'s) */
    bool mobile;            /* some node moves */
    int64_t window;         /* the window whose positions POS holds */
} oracle_mobility;

/* Places the nodes (window 0: no mobility step yet, every node on leg 0, not pausing). */
int oracle_mobility_init(oracle_mobility *m, const scenario *sc);
void oracle_mobility_free(oracle_mobility *m);

/* Applies the rwp step of the start of window W (>= 1, T_w = W * L) to every rwp node, whatever
 * M->window is, and sets M->window = W. Callers normally use oracle_mobility_advance. */
void oracle_move_rwp(const scenario *sc, oracle_mobility *m, int64_t w);

/* Brings M to window W (>= M->window) by applying the step of every window in between, in
 * order. A no-op on positions for static mobility. */
void oracle_mobility_advance(const scenario *sc, oracle_mobility *m, int64_t w);

#endif

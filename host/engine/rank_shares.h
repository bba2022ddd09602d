/* The coordinator's rule over MPI ranks (CMW's coordinator, one level above each rank's
 * injector; docs/architecture.md, "Several ranks"): which contiguous range of a model's
 * partitions each rank holds next, from the time each rank spent on its own partitions since
 * the last look. Every rank computes the same ranges from the same gathered integers, so the
 * ranks never disagree about a boundary; where a partition lives never changes a result. */
#ifndef CLNETSIM_RANK_SHARES_H
#define CLNETSIM_RANK_SHARES_H
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* What each rank says at a look (gathered from every rank). */
typedef struct rank_look {
    int64_t failed;         /* non-zero: the rank failed; nobody moves */
    int64_t busy_ns;        /* its own work since the last look */
    int64_t held;           /* partitions it holds */
} rank_look;

/* The ranges after a look: rank r holds [FIRST[r], FIRST[r + 1]) of FIRST[R] partitions now,
 * and [NEXT[r], NEXT[r + 1]) after it. When the slowest rank took more than an eighth over
 * the mean, each boundary between neighbouring ranks moves half the way (at least one
 * partition) toward shares in proportion to the ranks' speeds (partitions a nanosecond), when
 * its target is a whole partition or more away; a rank gives only partitions it held before
 * the look (none passes through a rank in one look) and keeps at least one. Otherwise NEXT is
 * FIRST. A rank holding none, or measuring nothing, weighs as the mean of the others. */
void rank_shares_plan(const rank_look *look, int R, const uint32_t *first, uint32_t *next);

/* One partition changing ranks, and the moves from ranges FIRST to NEXT (R ranks), boundary
 * by boundary, into MOVES (room for FIRST[R]); returns how many. */
typedef struct rank_move {
    uint32_t p;
    int from, to;
} rank_move;
uint32_t rank_shares_moves(const uint32_t *first, const uint32_t *next, int R, rank_move *moves);

/* Where this rank puts partition P it takes: the device holding the partition nearest to P
 * among those it holds, [LO, HI) (HOME[q] the device of q, -1 for one not here yet), or
 * device 0 when none is. */
int rank_shares_receiver(const int *home, uint32_t lo, uint32_t hi, uint32_t p);

/* Stops every rank with this rank's sentence, for a rank that cannot go on while the others
 * wait for the partitions it moves. */
__attribute__((noreturn)) void rank_shares_stop(const cn_error *err);

/* calloc(N, SIZE) for a coordinator's moves, or every rank stopped (rank_shares_stop) with
 * an out-of-memory sentence in ERR. */
void *rank_shares_alloc(size_t n, size_t size, cn_error *err);

#endif

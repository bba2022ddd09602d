/* PHOLD's coordinator over MPI ranks (CMW's coordinator, one level above each rank's
 * injector; docs/architecture.md, "Several ranks"). Every [partition] rebalance windows the
 * ranks gather the time each spent on its own partitions since the last look, and move the
 * boundaries between them by the core's rule (engine/rank_shares.h): every rank computes the
 * same moves from the same gathered integers; a moved partition's block goes from its rank's
 * device to the other rank's through MPI. Results never depend on where a partition lives. */
#include <stdlib.h>
#include <string.h>

#include "cl/phold/phold_layout.clh"
#include "dist/dist.h"
#include "engine/rank_shares.h"
#include "models/phold/phold_model.h"

/* What a moved partition's block travels with: its number, the blob's shape, its least
 * pending time. */
typedef struct move_head {
    uint32_t p, n, rows, pad;
    uint64_t stat_bytes, row_bytes, bytes;
    int64_t part_min;
} move_head;

static uint64_t lps_held(const phold_model *pm)
{
    uint64_t lo = (uint64_t)pm->p_lo * pm->part_lps, hi = (uint64_t)pm->p_hi * pm->part_lps;
    return (hi < pm->N ? hi : pm->N) - (lo < pm->N ? lo : pm->N);
}

/* A partition on its way: to or from RANK, its block, its header, and where it lived. */
typedef struct move {
    uint32_t p;
    int rank, dev;
    uint32_t block;
    phold_blob blob;
    move_head head;
} move;

/* The moves from FIRST to NEXT carried out: this rank sends the blocks it gives up and takes
 * those it gains (each boundary's partitions between its old place and its new). */
static int carry_out(phold_model *pm, const uint32_t *first, const uint32_t *next, int R,
                     cn_error *err)
{
    int me = dist_rank(), n_out = 0, n_in = 0, rc = 0;
    size_t most = (size_t)pm->n_parts + 1;
    move *out = rank_shares_alloc(most, sizeof *out, err);
    move *in = rank_shares_alloc(most, sizeof *in, err);
    dist_piece *pieces = rank_shares_alloc(2 * most, sizeof *pieces, err);
    rank_move *moves = rank_shares_alloc(most, sizeof *moves, err);
    uint32_t n_moves = rank_shares_moves(first, next, R, moves);
    for (uint32_t i = 0; i < n_moves; i++) {
        uint32_t p = moves[i].p;
        if (moves[i].from == me)
            out[n_out++] = (move){.p = p, .rank = moves[i].to, .dev = pm->home[p],
                                  .block = pm->block[p]};
        if (moves[i].to == me)
            in[n_in++] = (move){.p = p, .rank = moves[i].from};
        pm->rank_of[p] = moves[i].to;
    }
    pm->rank_moves += n_moves;
    free(moves);
    for (int i = 0; i < n_out && rc == 0; i++) {
        move *o = &out[i];
        rc = phold_block_read(pm, o->p, &o->blob, err);
        o->head = (move_head){o->p, o->blob.n, o->blob.rows, 0, o->blob.stat_bytes,
                              o->blob.row_bytes, o->blob.bytes, pm->part_min[o->p]};
    }
    if (rc)
        rank_shares_stop(err);
    for (int i = 0; i < n_out; i++)
        pieces[i] = (dist_piece){out[i].rank, &out[i].head, sizeof out[i].head};
    for (int i = 0; i < n_in; i++)
        pieces[n_out + i] = (dist_piece){in[i].rank, &in[i].head, sizeof in[i].head};
    rc = dist_transfer(pieces, n_out, pieces + n_out, n_in, err);
    for (int i = 0; i < n_in && rc == 0; i++) {
        move *m = &in[i];
        if (m->head.p != m->p || m->head.stat_bytes != 8 * STAT_WORDS * pm->part_lps)
            rc = cn_fail(err, CN_ERR_RUNTIME, "internal error: MPI rank %d expected phold "
                         "partition %u from rank %d and got %u", me, m->p, m->rank, m->head.p);
        m->blob = (phold_blob){m->head.n, m->head.rows, m->head.stat_bytes, m->head.row_bytes,
                               m->head.bytes, NULL};
        if (!rc && !(m->blob.data = malloc(m->blob.bytes ? m->blob.bytes : 1)))
            rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for phold partition %u",
                         m->p);
    }
    if (rc)
        rank_shares_stop(err);
    for (int i = 0; i < n_out; i++)
        pieces[i] = (dist_piece){out[i].rank, out[i].blob.data, out[i].blob.bytes};
    for (int i = 0; i < n_in; i++)
        pieces[n_out + i] = (dist_piece){in[i].rank, in[i].blob.data, in[i].blob.bytes};
    rc = dist_transfer(pieces, n_out, pieces + n_out, n_in, err);
    /* the blocks given up: free for the next partitions that arrive */
    for (int i = 0; i < n_out && rc == 0; i++) {
        uint32_t p = out[i].p;
        rc = exchange_partition_here(&pm->ex, (int)p, out[i].dev, 0, err);
        phold_give_block(pm, &pm->dev[out[i].dev], out[i].block);
        pm->home[p] = -1;
        pm->part_min[p] = INT64_MAX; /* another rank's: never planned here */
    }
    /* the blocks taken, each on the device holding the nearest partition here */
    pm->p_lo = next[me];
    pm->p_hi = next[me + 1];
    for (int i = 0; i < n_in && rc == 0; i++) {
        uint32_t p = in[i].p;
        int dev = rank_shares_receiver(pm->home, pm->p_lo, pm->p_hi, p);
        rc = phold_block_write(pm, p, dev, &in[i].blob, err);
        if (!rc)
            rc = exchange_partition_here(&pm->ex, (int)p, dev, 1, err);
        pm->part_min[p] = in[i].head.part_min;
        if (pm->part_min[p] < pm->next_begin)
            pm->next_begin = pm->part_min[p];
    }
    for (int i = 0; i < n_out; i++)
        free(out[i].blob.data);
    for (int i = 0; i < n_in; i++)
        free(in[i].blob.data);
    free(out);
    free(in);
    free(pieces);
    return rc;
}

int phold_balance(phold_model *pm, int rc, cn_error *err)
{
    int R = dist_size();
    if (R < 2 || pm->sc.rebalance <= 0)
        return rc;
    if (++pm->busy_windows < pm->sc.rebalance)
        return rc;
    /* test hook (dist_test_slower): a microsecond for each LP held a window, F on one rank */
    int64_t slower = dist_test_slower();
    rank_look mine = {rc != 0,
                      slower ? (int64_t)lps_held(pm) * pm->busy_windows * 1000 * slower
                             : (int64_t)(pm->busy_s * 1e9),
                      (int64_t)(pm->p_hi - pm->p_lo)};
    pm->busy_s = 0;
    pm->busy_windows = 0;
    rank_look *look = calloc((size_t)R, sizeof *look);
    uint32_t *next = calloc((size_t)R + 1, sizeof *next);
    if (!look || !next) { /* the others wait in the gather: this rank cannot leave them there */
        cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the coordinator");
        rank_shares_stop(err);
    }
    cn_error own = {0};
    int grc = dist_allgather(&mine, look, sizeof mine, &own);
    int failed = 0;
    for (int r = 0; r < R && !grc; r++)
        failed |= look[r].failed != 0;
    if (!grc && !failed && !rc) {
        rank_shares_plan(look, R, pm->rank_first, next);
        pm->rank_looks++;
        rc = carry_out(pm, pm->rank_first, next, R, err);
        memcpy(pm->rank_first, next, ((size_t)R + 1) * sizeof *next);
    }
    free(look);
    free(next);
    if (grc && !rc) {
        cn_error_clear(err);
        *err = own;
        return grc;
    }
    return rc;
}

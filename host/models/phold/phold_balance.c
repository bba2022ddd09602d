/* PHOLD's coordinator over MPI ranks (CMW's coordinator, one level above each rank's
 * injector; docs/architecture.md, "Several ranks"). Every [partition] rebalance windows the
 * ranks gather the time each spent on its own partitions since the last look; when the
 * slowest took more than an eighth over the mean, each boundary between neighbouring ranks
 * moves half the way (at least one partition) toward shares in proportion to the ranks'
 * speeds (partitions a second), when its target is a whole partition or more away, every
 * rank keeping at least one partition it had. Every rank computes the same moves from the
 * same gathered integers; a moved partition's block goes from its rank's device to the other
 * rank's through MPI. Results never depend on where a partition lives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl/phold/phold_layout.clh"
#include "dist/dist.h"
#include "models/phold/phold_model.h"

/* What each rank says at a look. */
typedef struct rank_look {
    int64_t failed;
    int64_t busy_ns;        /* its own work since the last look */
    int64_t held;           /* partitions it holds */
} rank_look;

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

/* The new boundaries NEXT (R + 1) from FIRST and the ranks' looks (see the file's head). */
static void plan_moves(const rank_look *look, int R, const uint32_t *first, uint32_t *next)
{
    memcpy(next, first, ((size_t)R + 1) * sizeof *next);
    /* the ranks' weights: partitions a nanosecond, scaled by 2^32; a rank holding none (or
     * measuring nothing) weighs as the mean of the others */
    uint64_t w[4096 + 1], sum = 0, n_w = 0;
    int64_t busy_sum = 0, busy_max = 0, n_busy = 0;
    if (R > 4096)
        return;
    for (int r = 0; r < R; r++) {
        w[r] = 0;
        if (look[r].held > 0 && look[r].busy_ns > 0) {
            w[r] = ((uint64_t)look[r].held << 32) / (uint64_t)look[r].busy_ns;
            w[r] = w[r] ? w[r] : 1;
            sum += w[r];
            n_w++;
            busy_sum += look[r].busy_ns;
            busy_max = look[r].busy_ns > busy_max ? look[r].busy_ns : busy_max;
            n_busy++;
        }
    }
    /* nothing measured, or the slowest within an eighth of the mean: no move */
    if (n_w == 0 || busy_max * 8 * n_busy <= busy_sum * 9)
        return;
    uint64_t mean = sum / n_w;
    for (int r = 0; r < R; r++)
        if (w[r] == 0)
            w[r] = mean ? mean : 1;
    sum = 0;
    for (int r = 0; r < R; r++)
        sum += w[r];
    uint32_t P = first[R];
    unsigned __int128 cum = 0;
    for (int k = 1; k < R; k++) {
        cum += w[k - 1];
        /* boundary k's target: P * cum / sum partitions before rank k */
        unsigned __int128 num = (unsigned __int128)P * cum, den = sum;
        /* a rank gives only partitions it held before this look (none passes through a
         * rank in one look), keeping one: what rank k - 1 has left after boundary k - 1, and
         * rank k before boundary k + 1 */
        uint32_t b = next[k];
        uint32_t left_lo = next[k - 1] > first[k - 1] ? next[k - 1] : first[k - 1];
        uint32_t left = first[k] > left_lo ? first[k] - left_lo : 0;
        uint32_t right = first[k + 1] - first[k];
        unsigned __int128 at = (unsigned __int128)b * den;
        /* a target a whole partition or more away: half the way there, at least one */
        if (num >= at + den && right > 1) { /* rank k gives its first ones to rank k - 1 */
            uint64_t half = (uint64_t)((num - at) / (2 * den));
            half = half < 1 ? 1 : half;
            next[k] = b + (uint32_t)(half < right - 1 ? half : right - 1);
        } else if (num + den <= at && left > 1) { /* rank k - 1 gives its last ones to k */
            uint64_t half = (uint64_t)((at - num) / (2 * den));
            half = half < 1 ? 1 : half;
            next[k] = b - (uint32_t)(half < left - 1 ? half : left - 1);
        }
    }
}

/* The device of this rank that takes partition P: the one holding the nearest partition
 * held here (device 0 when none is). */
static int receiving_device(const phold_model *pm, uint32_t p)
{
    int best = 0;
    uint32_t dist = UINT32_MAX;
    for (uint32_t q = pm->p_lo; q < pm->p_hi; q++) {
        uint32_t d = q > p ? q - p : p - q;
        if (pm->home[q] >= 0 && d < dist)
            best = pm->home[q], dist = d;
    }
    return best;
}

/* Stops every rank: this one cannot go on while the others wait for its blocks. */
__attribute__((noreturn)) static void stop_all(const cn_error *err)
{
    fprintf(stderr, "clnetsim: error: MPI rank %d of %d: %s\n", dist_rank(), dist_size(),
            err->msg);
    dist_abort(CN_ERR_RUNTIME);
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
    move *out = calloc(most, sizeof *out), *in = calloc(most, sizeof *in);
    dist_piece *pieces = calloc(2 * most, sizeof *pieces);
    if (!out || !in || !pieces) {
        cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the coordinator");
        stop_all(err);
    }
    for (int k = 1; k < R; k++) {
        /* up: [first, next) from rank k to k - 1; down: [next, first) from k - 1 to k */
        int up = next[k] > first[k];
        uint32_t lo = up ? first[k] : next[k], hi = up ? next[k] : first[k];
        int from = up ? k : k - 1, to = up ? k - 1 : k;
        for (uint32_t p = lo; p < hi; p++) {
            if (from == me)
                out[n_out++] = (move){.p = p, .rank = to, .dev = pm->home[p],
                                      .block = pm->block[p]};
            if (to == me)
                in[n_in++] = (move){.p = p, .rank = from};
            pm->rank_of[p] = to;
            pm->rank_moves++;
        }
    }
    for (int i = 0; i < n_out && rc == 0; i++) {
        move *o = &out[i];
        rc = phold_block_read(pm, o->p, &o->blob, err);
        o->head = (move_head){o->p, o->blob.n, o->blob.rows, 0, o->blob.stat_bytes,
                              o->blob.row_bytes, o->blob.bytes, pm->part_min[o->p]};
    }
    if (rc)
        stop_all(err);
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
        stop_all(err);
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
        int dev = receiving_device(pm, p);
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
        stop_all(err);
    }
    cn_error own = {0};
    int grc = dist_allgather(&mine, look, sizeof mine, &own);
    int failed = 0;
    for (int r = 0; r < R && !grc; r++)
        failed |= look[r].failed != 0;
    if (!grc && !failed && !rc) {
        plan_moves(look, R, pm->rank_first, next);
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

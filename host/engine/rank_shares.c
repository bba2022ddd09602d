/* The coordinator's rule over MPI ranks (rank_shares.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "engine/rank_shares.h"

void rank_shares_plan(const rank_look *look, int R, const uint32_t *first, uint32_t *next)
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

int rank_shares_receiver(const int *home, uint32_t lo, uint32_t hi, uint32_t p)
{
    int best = 0;
    uint32_t dist = UINT32_MAX;
    for (uint32_t q = lo; q < hi; q++) {
        uint32_t d = q > p ? q - p : p - q;
        if (home[q] >= 0 && d < dist)
            best = home[q], dist = d;
    }
    return best;
}

void rank_shares_stop(const cn_error *err)
{
    fprintf(stderr, "clnetsim: error: MPI rank %d of %d: %s\n", dist_rank(), dist_size(),
            err->msg);
    dist_abort(CN_ERR_RUNTIME);
}

void *rank_shares_alloc(size_t n, size_t size, cn_error *err)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the coordinator");
        rank_shares_stop(err);
    }
    return p;
}

uint32_t rank_shares_moves(const uint32_t *first, const uint32_t *next, int R, rank_move *moves)
{
    uint32_t n = 0;
    for (int k = 1; k < R; k++) {
        /* up: [first, next) from rank k to k - 1; down: [next, first) from k - 1 to k */
        int up = next[k] > first[k];
        uint32_t lo = up ? first[k] : next[k], hi = up ? next[k] : first[k];
        for (uint32_t p = lo; p < hi; p++)
            moves[n++] = (rank_move){p, up ? k : k - 1, up ? k - 1 : k};
    }
    return n;
}

/* The flood over several MPI ranks (docs/architecture.md, "Several ranks").
 *
 * Static scenarios flood whole packets (flood_packets.c), and packets never meet: a round's
 * packets can be flooded anywhere, and every result is a sum over packets or a maximum. So
 * each rank floods a contiguous share of every round on its own devices (its chunks, which
 * its injector places), every rank advances through the same rounds, and the results are
 * the ranks' rows combined as the metrics declare. Only traffic flows' per-packet records
 * cross ranks: every rank gets every share's, once per round, and adds them to the flows'
 * sums as one process would (so those results are whole on every rank).
 *
 * The coordinator's rule (CMW's, one level above the injector): a rank's share of a round is
 * proportional to its weight, the packets per second it flooded so far (measured from its
 * round's plan to its rows read back, halved into the last estimate each round), agreed at
 * every round's end. The first round is shared by the ranks' work-groups (flood_start_ranks),
 * which also size the rounds: a whole multiple of every rank's groups together. Shares change the work's placement,
 * never the results (sums of integers, and a maximum). The weights travel as integers, and
 * every rank computes the shares from the same integers, so that no two ranks can disagree
 * about a boundary through floating point. */
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "models/flood/flood_model.h"

/* Test hook: CLNETSIM_TEST_RANK_SLOWER=F (a whole number from 1 to 1000) makes the rank
 * named by CLNETSIM_TEST_RANK measure its rounds F times longer than they took, as a rank F
 * times slower would, so that tests see the shares follow the measured speeds. */
static double test_slower(void)
{
    const char *v = getenv("CLNETSIM_TEST_RANK_SLOWER");
    const char *only = getenv("CLNETSIM_TEST_RANK");
    if (!v || !*v || !only || !*only || strtol(only, NULL, 10) != dist_rank())
        return 1;
    char *end;
    long f = strtol(v, &end, 10);
    return *end == '\0' && f >= 1 && f <= 1000 ? (double)f : 1;
}

int flood_ranks_init(flood_model *m, cn_error *err)
{
    m->rank_end = -1;
    m->rank_rate = 0;
    m->rank_slower = test_slower();
    m->rank_weight = malloc((size_t)dist_size() * sizeof *m->rank_weight);
    m->share_at = malloc(((size_t)dist_size() + 1) * sizeof *m->share_at);
    if (!m->rank_weight || !m->share_at)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (int r = 0; r < dist_size(); r++)
        m->rank_weight[r] = 1;
    return 0;
}

int flood_ranks_check(const flood_model *m, cn_error *err)
{
    if (dist_size() == 1)
        return 0;
    if (!m->whole)
        return cn_fail(err, CN_ERR_INPUT, "this flood scenario runs in the window loop (moving "
                       "nodes, node resources, a neighbour cap on a qudg graph, or [partition] "
                       "count above 1), which does not run over several MPI ranks yet; only "
                       "static scenarios flooded as whole packets do: start it as one process "
                       "(docs/user-guide.md, \"Several processes\")");
    return 0;
}

void flood_ranks_share(flood_model *m, int64_t k0, uint64_t count, int64_t *first, uint64_t *n)
{
    int me = dist_rank(), ranks = dist_size();
    unsigned __int128 total = 0, before = 0;
    for (int r = 0; r < ranks; r++)
        total += m->rank_weight[r];
    if (total == 0) { /* (weights are at least 1: flood_end_ranks) */
        for (int r = 0; r < ranks; r++)
            m->rank_weight[r] = 1;
        total = ranks > 0 ? (unsigned)ranks : 1;
    }
    for (int r = 0; r <= ranks; r++) {
        m->share_at[r] = (uint64_t)(count * before / total);
        if (r < ranks)
            before += m->rank_weight[r];
    }
    *first = k0 + (int64_t)m->share_at[me];
    *n = m->share_at[me + 1] - m->share_at[me];
    m->share_open = 1;
    m->pk_share_k0 = *first;
    m->pk_share_n = (int64_t)*n;
    m->pk_share_t0 = wall_seconds();
}

void flood_ranks_measured(flood_model *m)
{
    double dt = (wall_seconds() - m->pk_share_t0) * m->rank_slower;
    if (m->pk_share_n <= 0 || dt <= 0)
        return;
    double rate = (double)m->pk_share_n / dt;
    m->rank_rate = m->rank_rate > 0 ? (m->rank_rate + rate) / 2 : rate;
}

int flood_start_ranks(struct model_state *state, cn_error *err)
{
    flood_model *m = flood_of(state);
    if (!m->whole)
        return 0;
    /* every rank's work-groups: the rounds fill every rank's devices, and the first round
     * is shared by them (a rank's capacity before anything is measured) */
    int ranks = dist_size();
    uint64_t mine = m->pk_groups, *all = malloc((size_t)ranks * sizeof *all);
    if (!all) /* the others wait in the gather: no way back */
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    int rc = dist_allgather(&mine, all, sizeof mine, err);
    uint64_t sum = 0;
    for (int r = 0; r < ranks && !rc; r++) {
        m->rank_weight[r] = all[r] ? all[r] : 1;
        sum += m->rank_weight[r];
    }
    free(all);
    if (!rc)
        rc = flood_packets_size_rounds(m, sum, err);
    return dist_agree(rc, err);
}

/* What a rank tells the others at a round's end. */
enum { SAY_FAILED, SAY_LAST, SAY_WEIGHT, SAY_WORDS };

int flood_end_ranks(struct model_state *state, const window_plan *plan, int failed,
                    window_outcome *out, cn_error *err)
{
    flood_model *m = flood_of(state);
    (void)plan;
    int ranks = dist_size();
    /* packets per second, from 1 to 2^40 (0: not measured, a rank whose share was empty),
     * so that a round's count times their sum stays within 128 bits */
    double rate = m->rank_rate;
    int64_t mine[SAY_WORDS] = {failed != 0, failed ? -1 : flood_packets_last(m),
                               rate <= 0 ? 0 : rate >= 0x1p40 ? (int64_t)1 << 40
                                         : rate < 1 ? 1 : (int64_t)rate};
    int64_t *all = malloc((size_t)ranks * sizeof mine);
    int rc = all ? dist_allgather(mine, all, sizeof mine, err)
                 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    int any_failed = 0;
    for (int r = 0; r < ranks && !rc; r++)
        any_failed |= all[r * SAY_WORDS + SAY_FAILED] != 0;
    if (!rc && !any_failed) {
        /* ranks not measured yet weigh as the mean of those that were */
        unsigned __int128 sum = 0;
        uint64_t known = 0;
        for (int r = 0; r < ranks; r++) {
            int64_t v = all[r * SAY_WORDS + SAY_WEIGHT];
            if (v > 0)
                sum += (uint64_t)v, known++;
            if (all[r * SAY_WORDS + SAY_LAST] > m->rank_end)
                m->rank_end = all[r * SAY_WORDS + SAY_LAST];
        }
        uint64_t mean = known ? (uint64_t)(sum / known) : 1;
        for (int r = 0; r < ranks; r++) {
            int64_t v = all[r * SAY_WORDS + SAY_WEIGHT];
            m->rank_weight[r] = v > 0 ? (uint64_t)v : mean;
        }
    }
    free(all);
    int shared = m->share_open;
    m->share_open = 0;
    if (rc)
        return rc;
    if (failed)
        return failed;
    if (any_failed)
        return DIST_PEER_FAILED;
    /* traffic flows: the round's records of every share, on every rank */
    if (m->flows && shared) {
        uint64_t *counts = malloc((size_t)ranks * sizeof *counts);
        if (!counts) /* the others wait in the gather: no way back */
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
        for (int r = 0; r < ranks; r++)
            counts[r] = m->share_at[r + 1] - m->share_at[r];
        rc = flood_packets_share_records(m, counts, err);
        free(counts);
        if (rc)
            return rc;
    }
    *out = m->rank_out;
    return 0;
}

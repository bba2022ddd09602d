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
#include "engine/rank_shares.h"
#include "models/flood/flood_model.h"

int flood_ranks_init(flood_model *m, cn_error *err)
{
    m->rank_end = -1;
    m->rank_rate = 0;
    m->rank_slower = (double)dist_test_slower(); /* test hook, 0: the clock */
    m->rank_weight = malloc((size_t)dist_size() * sizeof *m->rank_weight);
    m->share_at = malloc(((size_t)dist_size() + 1) * sizeof *m->share_at);
    if (!m->rank_weight || !m->share_at)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (int r = 0; r < dist_size(); r++)
        m->rank_weight[r] = 1;
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
    double dt = m->rank_slower > 0 ? (double)m->pk_share_n * 1e-6 * m->rank_slower
                                   : wall_seconds() - m->pk_share_t0;
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

/* ---- the window loop over several ranks ----
 * Each rank runs its own partitions' transmit sets (its replicas hold every node's position
 * and cell lists, as every device does), and its replicas export the relays that a partition
 * held elsewhere may hear, as with several devices. At the window's end every rank reads its
 * window back (end_window), then here: one all-gather of what each rank says of the window
 * (failure, whether it transmitted, its relays, whether its borders can go) and of its
 * slots' liveness merged over its replicas; then the borders (or, when any rank's cannot go,
 * every relay) to every other replica of every rank (exchange_window_carry_ranks,
 * flood_exchange_whole); then the window applied with the run's relays and liveness, the
 * same on every rank, so that every rank plans the same next window. */
enum { LOOP_FAILED, LOOP_RAN, LOOP_RELAYS, LOOP_WHOLE, LOOP_SLOTS, LOOP_DEVS, LOOP_BUSY,
       LOOP_HELD, LOOP_WORDS };

/* Traffic flows: every replica's deliveries of window RB->window on every rank (N_DEVS[r]
 * replicas of rank r), added in rank order and replica order, as one process adds its
 * replicas'. */
static int add_ranks_deliveries(flood_model *m, const struct flood_readback *rb, int idx,
                                const uint64_t *n_devs, cn_error *err)
{
    int ranks = dist_size();
    size_t unit = (size_t)m->slots * flood_deliv_words(m) * 4;
    uint64_t all = 0;
    for (int r = 0; r < ranks; r++)
        all += n_devs[r];
    uint32_t *mine = malloc(rb->n_dev ? (size_t)rb->n_dev * unit : 1);
    uint32_t *got = malloc(all ? (size_t)all * unit : 1);
    if (!mine || !got) { /* the others wait in the gather: no way back */
        free(mine);
        free(got);
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the window's deliveries");
    }
    for (int k = 0; k < rb->n_dev; k++) {
        const flood_replica *r = &m->rep[rb->dev[k]];
        memcpy((unsigned char *)mine + (size_t)k * unit,
               r->pinned_map + (size_t)idx * r->area + CTL_WORDS + m->slots, unit);
    }
    int rc = dist_allgatherv(mine, n_devs, unit, got, err);
    for (uint64_t k = 0; k < all && !rc; k++)
        flood_add_deliveries(m, rb->window,
                             (const uint32_t *)(const void *)((unsigned char *)got + k * unit));
    free(mine);
    free(got);
    return rc;
}

static int loop_end_ranks(flood_model *m, const window_plan *plan, int failed,
                          window_outcome *out, cn_error *err)
{
    int64_t w = plan->index;
    int ranks = dist_size();
    int rc = failed, idx = 0, ran = 0;
    flood_window_counts c;
    memset(&c, 0, sizeof c);
    if (!rc && m->rb_count > 0) {
        if (m->rb_count != 1 || m->rb[m->rb_head].window != w)
            rc = cn_fail(err, CN_ERR_RUNTIME, "internal error: window %lld ended over the ranks "
                         "with %d read-backs queued", (long long)w, m->rb_count);
        if (!rc)
            rc = flood_readback_wait(m, &idx, err);
        if (!rc)
            rc = flood_readback_collect(m, &m->rb[idx], idx, &c, err);
        ran = 1;
        flood_balance_ran(m);
    }
    /* a rank holding no partition (fewer partitions than ranks) ran nothing: it takes part
     * with no relays, no liveness and no replicas, and applies the others' window as they do */
    struct flood_readback none;
    memset(&none, 0, sizeof none);
    none.window = w;
    const struct flood_readback *rb = ran ? &m->rb[idx] : &none;
    if (!ran)
        memset(m->alive, 0, (size_t)m->slots * sizeof *m->alive);
    /* the coordinator looks at this window's end (every rank alike: all ran it, or none) */
    int look = ran && flood_balance_look_due(m);
    int64_t mine[LOOP_WORDS] = {rc != 0, ran, (int64_t)c.total,
                                ran && !(rb->exported && !c.spilled && !c.unsent),
                                (int64_t)m->slots, rb->n_dev,
                                look ? flood_balance_busy_ns(m) : 0,
                                (int64_t)(m->p_hi - m->p_lo)};
    int64_t *all = malloc((size_t)ranks * sizeof mine);
    rank_look *looks = calloc((size_t)ranks, sizeof *looks);
    uint32_t *next = malloc(((size_t)ranks + 1) * sizeof *next);
    if (!all || !looks || !next) { /* the others wait in the gather: no way back */
        free(all);
        free(looks);
        free(next);
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    }
    int crc = dist_allgather(mine, all, sizeof mine, err);
    if (crc) {
        free(all);
        free(looks);
        free(next);
        return crc;
    }
    int any_failed = 0, any_ran = 0, all_ran = 1, whole = 0, slots_differ = 0;
    uint64_t total = 0, *totals = calloc(2 * (size_t)ranks, sizeof *totals);
    for (int r = 0; r < ranks; r++) {
        const int64_t *a = all + (size_t)r * LOOP_WORDS;
        if (totals)
            totals[ranks + r] = (uint64_t)a[LOOP_DEVS];
        any_failed |= a[LOOP_FAILED] != 0;
        any_ran |= a[LOOP_RAN] != 0;
        all_ran &= a[LOOP_RAN] != 0;
        whole |= a[LOOP_WHOLE] != 0;
        slots_differ |= a[LOOP_SLOTS] != (int64_t)m->slots;
        if (totals)
            totals[r] = (uint64_t)a[LOOP_RELAYS];
        total += (uint64_t)a[LOOP_RELAYS];
        looks[r] = (rank_look){a[LOOP_FAILED], a[LOOP_BUSY], a[LOOP_HELD]};
    }
    free(all);
    /* partitions about to move: this window's relays go whole to every rank, so that a rank
     * taking a partition has all its nodes hear next */
    int moving = look && all_ran && !any_failed && flood_balance_plan(m, looks, next);
    free(looks);
    whole |= moving;
    if (!moving)
        free(next);
    if (rc || any_failed || !totals) {
        if (moving) /* (out of host memory for the totals: no rank moves, each fails) */
            free(next);
        free(totals);
        return rc ? rc : any_failed ? DIST_PEER_FAILED
                                    : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    }
    /* every rank plans the same windows from the same agreements: all ran it, or none */
    if (any_ran && !ran && m->p_hi > m->p_lo)
        rc = cn_fail(err, CN_ERR_RUNTIME, "internal error: window %lld ran on another rank and "
                     "not on rank %d", (long long)w, dist_rank());
    if (!rc && slots_differ)
        rc = cn_fail(err, CN_ERR_RUNTIME, "internal error: the ranks hold different packet "
                     "slots after window %lld", (long long)w);
    if (!rc && total > 0xffffffffu)
        rc = cn_fail(err, CN_ERR_RUNTIME, "more than 2^32 transmissions in one window");
    if (rc || !any_ran) {
        if (moving) /* (every rank finds the same, and none moves) */
            free(next);
        free(totals);
        if (rc) /* (every rank finds the same) */
            return rc;
        /* Windows without transmissions have nothing to read back. */
        if (m->processed < w && w <= m->planned)
            m->relays_known = 0, m->processed = w;
        out->drained = 0;
        return flood_window_done(m, plan, out, err);
    }
    /* the slots' liveness over every rank, merged as over replicas */
    uint32_t *live = malloc((size_t)ranks * m->slots * sizeof *live);
    if (!live) {
        free(totals);
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    }
    rc = dist_allgather(m->alive, live, (size_t)m->slots * sizeof *live, err);
    for (int r = 0; r < ranks && !rc; r++)
        flood_merge_alive(m, (cl_uint)(w + 1), live + (size_t)r * m->slots);
    free(live);
    if (!rc && m->flows)
        rc = add_ranks_deliveries(m, rb, idx, totals + ranks, err);
    if (!rc)
        rc = whole ? flood_exchange_whole(m, rb, c.relays, totals, err)
                   : flood_exchange_border(m, rb, c.relays, c.exports, err);
    free(totals);
    if (!rc)
        rc = flood_readback_apply(m, rb, &c, total, err);
    if (!rc) {
        out->drained = m->transmitted;
        rc = flood_window_done(m, plan, out, err);
    }
    /* the coordinator's moves, once the window is applied and its re-tiling done (a rank
     * that failed above stops every rank there: the others wait for its partitions) */
    if (moving) {
        if (rc)
            rank_shares_stop(err);
        rc = flood_balance_carry(m, next, w, err);
        free(next);
    }
    return rc;
}

int flood_end_ranks(struct model_state *state, const window_plan *plan, int failed,
                    window_outcome *out, cn_error *err)
{
    flood_model *m = flood_of(state);
    if (!m->whole)
        return loop_end_ranks(m, plan, failed, out, err);
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

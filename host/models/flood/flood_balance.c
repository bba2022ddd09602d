/* The flood's coordinator over MPI ranks, the window loop (CMW's coordinator, one level above
 * each rank's injector; docs/architecture.md, "Several ranks").
 *
 * Each rank holds a contiguous range of the partitions (tiles). When the ranks' devices mix
 * CPUs and GPUs, every [partition] rebalance windows that transmitted, the ranks say, in the
 * window's own all-gather (flood_ranks.c), the time each spent on its own partitions since
 * the last look: from planning a window to its read-back waited for, the waits for the other
 * ranks left out.
 * The core's rule (engine/rank_shares.h) gives the new ranges, the same on every rank. A
 * window whose end moves partitions exchanges every relay with every rank (not only the
 * borders), so that a rank taking a partition has whatever its nodes hear next; then each
 * moved partition's node data goes from its rank's device to the other rank's through MPI:
 * the seen bits and, under a forwarding scheme, the nodes' states of the partition's nodes
 * (a re-tiled moving scenario: the re-tiling's records of them, gathered and scattered by its
 * kernels; otherwise every node's arrays, merged there for the partition's nodes as a
 * migration between devices does). Static scenarios build the partition's lists where it
 * arrives. Results never depend on where a partition lives. */
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "engine/rank_shares.h"
#include "models/flood/flood_model.h"

int flood_balance_init(flood_model *m, cn_error *err)
{
    int ranks = dist_size();
    m->rank_first = malloc(((size_t)ranks + 1) * sizeof *m->rank_first);
    if (!m->rank_first)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (int r = 0; r <= ranks; r++)
        m->rank_first[r] = (uint32_t)dist_range_first(r, m->n_parts);
    return 0;
}

void flood_balance_ran(flood_model *m)
{
    m->busy_s += wall_seconds() - m->busy_t0;
    m->busy_windows++;
}

int flood_balance_look_due(const flood_model *m)
{
    /* only where the ranks' devices differ in kind (a CPU's speed beside a GPU's rules what
     * a rank takes), or under the test hook: between devices of one kind the flood's load,
     * which moves with its packets, rules the busy times, and chasing it cost more than it
     * saved (docs/benchmarks.md) */
    /* (fewer partitions than ranks: every holder holds one, which it keeps, so nothing can
     * move) */
    return dist_size() > 1 && !m->whole && m->rank_first && m->sc.rebalance > 0 &&
           m->n_parts >= (uint32_t)dist_size() &&
           (m->all_mixed || dist_test_slower()) && m->busy_windows >= m->sc.rebalance;
}

int64_t flood_balance_busy_ns(const flood_model *m)
{
    /* test hook (dist_test_slower): a millisecond a partition held and window, F on one rank */
    int64_t slower = dist_test_slower();
    if (slower)
        return (int64_t)(m->p_hi - m->p_lo) * m->busy_windows * 1000000 * slower;
    return (int64_t)(m->busy_s * 1e9);
}

int flood_balance_plan(flood_model *m, const rank_look *look, uint32_t *next)
{
    int R = dist_size();
    rank_shares_plan(look, R, m->rank_first, next);
    m->ranks_looks++;
    m->busy_s = 0;
    m->busy_windows = 0;
    return memcmp(next, m->rank_first, ((size_t)R + 1) * sizeof *next) != 0;
}

static size_t seen_bytes(const flood_model *m)
{
    return (size_t)m->slots * m->words * 4;
}

static size_t states_bytes(const flood_model *m)
{
    return (size_t)m->slots * flood_scheme_slot_bytes(m);
}

/* Replica R's node data, every node's: its seen bits, then under a scheme its states. */
static int data_read(flood_model *m, flood_replica *r, unsigned char *buf, cn_error *err)
{
    int rc = dbuf_read(r->dev, &r->seen, 0, seen_bytes(m), buf, 1, err);
    if (!rc && states_bytes(m))
        rc = dbuf_read(r->dev, &r->scheme_state, 0, states_bytes(m), buf + seen_bytes(m), 1,
                       err);
    return rc;
}

/* Partition P's nodes take their data from GOT (data_read's layout, from another rank) on
 * replica R; its other nodes keep theirs. */
static int data_merge(flood_model *m, flood_replica *r, uint32_t p, const unsigned char *got,
                      cn_error *err)
{
    size_t sb = seen_bytes(m), tb = states_bytes(m);
    unsigned char *have = malloc(sb + tb ? sb + tb : 1);
    int rc = have ? data_read(m, r, have, err)
                  : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    if (!rc)
        rc = flood_merge_part_seen(m, p, (const uint32_t *)(const void *)got,
                                   (uint32_t *)(void *)have, err);
    if (!rc && tb)
        flood_scheme_merge_part(m, p, (const uint32_t *)(const void *)(got + sb),
                                (uint32_t *)(void *)(have + sb));
    if (!rc)
        rc = dbuf_write(r->dev, &r->seen, 0, sb, have, 1, err);
    if (!rc && tb) {
        rc = dbuf_write(r->dev, &r->scheme_state, 0, tb, have + sb, 1, err);
        r->pend_broken = 1; /* its lists lack the partition's waiting nodes */
    }
    free(have);
    return rc;
}

/* Static scenarios: partition P's lists built on replica R, where it arrived, and the degree
 * bound raised by its transmitters' degrees in it. */
static int arrive_lists(flood_model *m, flood_replica *r, uint32_t p, cn_error *err)
{
    uint32_t *deg = calloc(m->n, sizeof *deg);
    int rc = deg ? flood_build_csr(m, r, p, &m->offsets[p], &m->neighbours[p], deg, err)
                 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %u degrees", m->n);
    for (uint32_t i = 0; !rc && i < m->n; i++)
        m->max_degree = deg[i] > m->max_degree ? deg[i] : m->max_degree;
    free(deg);
    flood_forget_args(r);
    return rc;
}

/* A partition on its way: to or from RANK, from or to replica DEV, its nodes (moving
 * scenarios: their records go, not every node's data) and its data. */
typedef struct move {
    uint32_t p;
    int rank, dev;
    uint32_t *nodes, n_nodes;
    size_t bytes;
    unsigned char *data;
} move;

/* Partition P's nodes, in index order, into MV (moving scenarios), and the bytes its data
 * takes (the same on every rank: the nodes' partitions are). */
static int move_size(flood_model *m, move *mv, cn_error *err)
{
    if (!flood_records_can(m)) {
        mv->bytes = seen_bytes(m) + states_bytes(m);
        return 0;
    }
    uint32_t n = 0;
    for (uint32_t j = 0; j < m->n; j++)
        n += m->part_host[j] == mv->p;
    mv->nodes = malloc(n ? (size_t)n * 4 : 4);
    if (!mv->nodes)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for flood partition %u", mv->p);
    n = 0;
    for (uint32_t j = 0; j < m->n; j++)
        if (m->part_host[j] == mv->p)
            mv->nodes[n++] = j;
    mv->n_nodes = n;
    mv->bytes = (size_t)n * flood_record_bytes(m);
    return 0;
}

int flood_balance_carry(flood_model *m, const uint32_t *next, int64_t w, cn_error *err)
{
    int R = dist_size(), me = dist_rank(), n_out = 0, n_in = 0;
    size_t most = (size_t)m->n_parts + 1;
    move *out = rank_shares_alloc(most, sizeof *out, err);
    move *in = rank_shares_alloc(most, sizeof *in, err);
    dist_piece *pieces = rank_shares_alloc(2 * most, sizeof *pieces, err);
    rank_move *moves = rank_shares_alloc(most, sizeof *moves, err);
    uint32_t n_moves = rank_shares_moves(m->rank_first, next, R, moves);
    for (uint32_t i = 0; i < n_moves; i++) {
        const rank_move *mv = &moves[i];
        if (mv->from == me)
            out[n_out++] = (move){.p = mv->p, .rank = mv->to, .dev = m->home[mv->p]};
        if (mv->to == me)
            in[n_in++] = (move){.p = mv->p, .rank = mv->from};
    }
    m->ranks_moved += n_moves;
    free(moves);
    /* the nodes' partitions as of the next window (a re-tiling at this window's end moved
     * some), which say whose data each rank keeps */
    int rc = flood_part_host_current(m, w + 1, err);
    for (int i = 0; i < n_out && !rc; i++) {
        move *o = &out[i];
        rc = move_size(m, o, err);
        if (!rc && !(o->data = malloc(o->bytes ? o->bytes : 1)))
            rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for flood partition %u",
                         o->p);
        if (!rc && flood_records_can(m))
            rc = flood_records_gather(m, &m->rep[o->dev], o->nodes, o->n_nodes, o->data, err);
        else if (!rc)
            rc = data_read(m, &m->rep[o->dev], o->data, err);
    }
    for (int i = 0; i < n_in && !rc; i++) {
        rc = move_size(m, &in[i], err);
        if (!rc && !(in[i].data = malloc(in[i].bytes ? in[i].bytes : 1)))
            rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for flood partition %u",
                         in[i].p);
    }
    if (rc)
        rank_shares_stop(err);
    for (int i = 0; i < n_out; i++) {
        pieces[i] = (dist_piece){out[i].rank, out[i].data, out[i].bytes};
        m->rank_sent += out[i].bytes;
    }
    for (int i = 0; i < n_in; i++)
        pieces[n_out + i] = (dist_piece){in[i].rank, in[i].data, in[i].bytes};
    rc = dist_transfer(pieces, n_out, pieces + n_out, n_in, err);
    /* the partitions given up: another rank's from now on */
    for (int i = 0; i < n_out && !rc; i++) {
        uint32_t p = out[i].p;
        if (!m->mobile) {
            dbuf_release(&m->offsets[p], &m->acc);
            dbuf_release(&m->neighbours[p], &m->acc);
            flood_forget_args(&m->rep[out[i].dev]);
        }
        m->home[p] = -1;
    }
    m->p_lo = next[me];
    m->p_hi = next[me + 1];
    /* the partitions taken, each on the replica holding the nearest partition here (homes
     * set first: the records land where their partitions are held, the lists are built
     * where it lives) */
    for (int i = 0; i < n_in; i++)
        in[i].dev = rank_shares_receiver(m->home, m->p_lo, m->p_hi, in[i].p);
    for (int i = 0; i < n_in; i++)
        m->home[in[i].p] = in[i].dev;
    if (n_out || n_in)
        m->placement++;
    for (int i = 0; i < n_in && !rc; i++) {
        uint32_t p = in[i].p;
        flood_replica *r = &m->rep[in[i].dev];
        if (flood_records_can(m)) {
            rc = flood_part_of_current(m, r, w + 1, err);
            if (!rc)
                rc = flood_held_current(m, r, err);
            if (!rc)
                rc = flood_records_scatter(m, r, in[i].data, in[i].n_nodes, err);
        } else {
            rc = data_merge(m, r, p, in[i].data, err);
        }
        if (!rc && !m->mobile)
            rc = arrive_lists(m, r, p, err);
        /* its entries hold the border of the partitions it had, not all that P hears: it is
         * given every relay of the window (all exchanged) before it runs P */
        r->synced = -1;
        r->prepared = -1;
    }
    memcpy(m->rank_first, next, ((size_t)R + 1) * sizeof *next);
    for (int i = 0; i < n_out; i++)
        free(out[i].data), free(out[i].nodes);
    for (int i = 0; i < n_in; i++)
        free(in[i].data), free(in[i].nodes);
    free(out);
    free(in);
    free(pieces);
    return rc;
}

/* Flood model: mobile partitions that follow their nodes.
 *
 * A mobile scenario's partitions are tiles of the plane (partition_cuts). A device must hear
 * every transmitter within range of the nodes it handles; with tiles chosen once, nodes wander
 * away from their tile and the reach box of a partition (its tile widened by the farthest move
 * since, and by the range) grows by a step every window, until every device reads nearly every
 * transmission and the border exchanged is most of the window. So every [partition] retile
 * windows each node joins the tile it is in: at the end of window W (W + 1 a multiple of
 * retile), every replica holding partitions runs `retile` on window W's positions, which are
 * equal on all of them, so all agree on the new partitions without a transfer. A node that
 * joins a partition held on another device takes its state there: its seen bits, gathered as
 * records by the device it leaves, read back and scattered by the devices it joins. Reach
 * boxes then only widen by the moves since the last tiling (flood_reach_box).
 * Replicas that hold no partition do not re-tile; they take the current partitions from the
 * host (PART_HOST, read from a replica that holds them) before they next run a transmit set. */
#include <stdlib.h>
#include <string.h>

#include "cl/flood/flood_layout.clh"
#include "dist/dist.h"
#include "models/flood/flood_model.h"

static int retiles(const flood_model *m)
{
    return m->mobile && m->n_parts > 1 && m->retile > 0;
}

int64_t flood_epoch(const flood_model *m, int64_t w)
{
    return retiles(m) && w >= m->retile ? w / m->retile : 0;
}

int64_t flood_epoch_positions(const flood_model *m, int64_t w)
{
    int64_t e = flood_epoch(m, w);
    return e > 0 ? e * m->retile - 1 : 0;
}

int flood_retile_due(const flood_model *m, int64_t w)
{
    return retiles(m) && w >= 0 && (w + 1) % m->retile == 0;
}

int flood_stamp_parts(flood_model *m, flood_replica *r, cn_error *err)
{
    if (!m->mobile || m->n_parts <= 1)
        return 0;
    int rc = kernel_args(r->dev, r->k_stamp, "flood.stamp_parts", err, 3, KBUF(r->pos),
                         KBUF(r->params), KBUF(r->part_of));
    if (!rc)
        rc = enqueue_1d(r->dev, r->k_stamp, "flood.stamp_parts", m->n, r->ls_retile, NULL, err);
    return rc;
}

int flood_retile_setup(flood_model *m, cn_error *err)
{
    if (!m->mobile || m->n_parts <= 1)
        return 0;
    int rc = 0;
    for (int d = 0; d < m->n_rep && !rc; d++)
        rc = flood_stamp_parts(m, &m->rep[d], err);
    if (rc)
        return rc;
    const partition_cuts *c = &m->cuts;
    size_t n_cuts = (size_t)c->px + 1 + (size_t)c->px * (c->py + 1);
    cl_long *cuts = malloc(n_cuts * sizeof *cuts);
    rc = cuts ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (uint32_t s = 0; !rc && s <= c->px; s++)
        cuts[s] = c->x[s];
    for (size_t q = 0; !rc && q < (size_t)c->px * (c->py + 1); q++)
        cuts[c->px + 1 + q] = c->y[q];
    for (int d = 0; d < m->n_rep && !rc; d++) {
        flood_replica *r = &m->rep[d];
        r->held_host = calloc(m->n_parts, 1);
        rc = r->held_host ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
        /* the partitions it holds: its cell lists list their nodes only (flood_catch_up) */
        if (!rc)
            rc = dbuf_alloc(r->dev, &r->held, m->n_parts, &m->acc, "held partitions", err);
        if (rc || m->retile <= 0)
            continue;
        r->record_cap = m->record_test ? m->record_test : 1024;
        rc = dbuf_alloc(r->dev, &r->cuts, n_cuts * sizeof *cuts, &m->acc, "tile cuts", err);
        if (!rc)
            rc = dbuf_write(r->dev, &r->cuts, 0, n_cuts * sizeof *cuts, cuts, 1, err);
        if (!rc)
            rc = dbuf_alloc(r->dev, &r->leaving, (size_t)m->n * 4, &m->acc, "moved nodes", err);
        if (!rc)
            rc = dbuf_alloc(r->dev, &r->records, 4, &m->acc, "moved node records", err);
    }
    free(cuts);
    return rc;
}

/* uints of a node's state per slot under a scheme (0 without: cl/flood/flood.cl, SCHEME_WORDS) */
static cl_uint state_words(const flood_model *m)
{
    return m->scheme_window ? 4u : 0u;
}

/* uint words of one record: the node, then a bit per slot, then under a scheme its states.
 * Computed in 64 bits: the kernels index a record with a uint, so gather refuses a record
 * of 2^32 words or more (2^30 slots under a scheme) instead of letting it wrap. */
static uint64_t record_words(const flood_model *m)
{
    return 1 + ((uint64_t)m->slots + 31) / 32 + (uint64_t)m->slots * state_words(m);
}

/* Records of replica R for up to R->record_cap moved nodes (its records buffer sized for
 * them). */
static int gather(flood_model *m, flood_replica *r, cn_error *err)
{
    if (record_words(m) > UINT32_MAX)
        return cn_fail(err, CN_ERR_RUNTIME, "the re-tiling records of %u packet slots would "
                       "need %llu words a node, beyond the kernels' 2^32; use fewer packets "
                       "in flight or one partition", m->slots,
                       (unsigned long long)record_words(m));
    cl_uint rec = (cl_uint)record_words(m), cap = r->record_cap, sw = state_words(m);
    size_t bytes = (size_t)cap * rec * 4;
    int rc = 0;
    if (bytes > r->records.bytes) {
        dbuf_release(&r->records, &m->acc);
        rc = dbuf_alloc(r->dev, &r->records, bytes, &m->acc, "moved node records", err);
    }
    if (!rc)
        rc = kernel_args(r->dev, r->k_gather_moved, "flood.gather_moved", err, 10,
                         KBUF(r->leaving), KBUF(r->ctl), KARG(cap), KBUF(r->seen),
                         KBUF(r->params), KARG(m->slots), KARG(rec), KBUF(r->records),
                         KBUF(*flood_scheme_state_buffer(r)), KARG(sw));
    if (!rc)
        rc = enqueue_1d(r->dev, r->k_gather_moved, "flood.gather_moved", cap, r->ls_retile, NULL,
                        err);
    return rc;
}

/* 8-byte area entries that hold N records. */
static uint32_t record_entries(const flood_model *m, uint64_t n)
{
    uint64_t e = (n * record_words(m) + 1) / 2;
    return e < 0xffffffffu ? (uint32_t)e : 0xffffffffu;
}

/* Several MPI ranks: partitions held on other ranks, which nodes may join. */
static int ranks_spread(const flood_model *m)
{
    return m->ranked;
}

int flood_retile_queue(flood_model *m, int64_t w, int before_readback, cn_error *err)
{
    if (m->retile_queued == w)
        return 0;
    m->retile_mask = 0;
    m->retile_in_rb = -1;
    if (!flood_retile_due(m, w))
        return 0;
    m->retile_queued = w;
    static const cl_uint zero = 0;
    const partition_cuts *c = &m->cuts;
    int rc = 0, n_holders = 0;
    m->retile_mask = flood_holders(m);
    for (int d = 0; d < m->n_rep; d++) {
        for (uint32_t q = 0; q < m->n_parts; q++)
            m->rep[d].held_host[q] = m->home[q] == d;
        n_holders += (m->retile_mask >> d) & 1;
    }
    /* nodes can leave for another device, or (several ranks) another rank's partition */
    int hand = n_holders > 1 || ranks_spread(m);
    /* window W's positions and partitions, as every holder has them (all of them first:
     * one that lacks the partitions takes them from another) */
    for (int d = 0; d < m->n_rep && !rc; d++)
        if (m->retile_mask & (1 << d)) {
            rc = flood_catch_up(m, &m->rep[d], w, 0, NULL, NULL, err);
            if (!rc)
                rc = flood_part_of_current(m, &m->rep[d], w, err);
        }
    for (int d = 0; d < m->n_rep && !rc; d++) {
        flood_replica *r = &m->rep[d];
        if (!(m->retile_mask & (1 << d)))
            continue;
        /* not blocking: HELD_HOST changes only at the next re-tiling, after a read-back */
        rc = dbuf_write(r->dev, &r->held, 0, m->n_parts, r->held_host, 0, err);
        r->held_version = m->placement;
        if (!rc)
            rc = dbuf_write(r->dev, &r->ctl, CTL_RETILE * 4, 4, &zero, 0, err);
        cl_uint px = c->px, py = c->py;
        if (!rc)
            rc = kernel_args(r->dev, r->k_retile, "flood.retile", err, 9, KBUF(r->pos),
                             KBUF(r->params), KBUF(r->cuts), KARG(px), KARG(py), KBUF(r->part_of),
                             KBUF(r->held), KBUF(r->ctl), KBUF(r->leaving));
        if (!rc)
            rc = enqueue_1d(r->dev, r->k_retile, "flood.retile", m->n, r->ls_retile, NULL, err);
        /* with one holder no node can leave for another device */
        if (!rc && hand)
            rc = gather(m, r, err);
        /* read with the counters: as many records as last time and as many again, rarely
         * too few (the rest is read once their number is known) */
        r->rarea_spec = 0;
        if (!rc && hand && before_readback) {
            uint64_t guess =
                m->record_test ? m->record_test : 2 * (uint64_t)r->last_retile + 256;
            if (guess > r->record_cap)
                guess = r->record_cap;
            rc = flood_area_quiet(r, &r->rarea, err);
            if (!rc)
                rc = flood_area_reserve(r, &r->rarea, record_entries(m, guess), 0, err);
            cl_int st = rc ? CL_SUCCESS
                           : clEnqueueReadBuffer(r->dev->queue, r->records.mem, CL_FALSE, 0,
                                                 (size_t)guess * record_words(m) * 4,
                                                 r->rarea.map, 0, NULL, NULL);
            if (st != CL_SUCCESS)
                rc = cl_check(st, "clEnqueueReadBuffer(moved node records)", r->dev->info.name,
                              err);
            r->rarea_spec = (uint32_t)guess;
        }
        if (!rc)
            rc = cl_check(clFlush(r->dev->queue), "clFlush", r->dev->info.name, err);
        if (!rc)
            r->part_epoch = flood_epoch(m, w + 1);
    }
    if (!hand)
        m->retile_mask = 0; /* nothing to hand over */
    /* the read-back that follows covers every holder: it ran the window */
    if (before_readback && hand && (m->retile_mask & ~m->ran_mask) == 0)
        m->retile_in_rb = w;
    return rc;
}

/* Several ranks: this rank's records of the nodes leaving its holders (COUNT[d] each, in
 * their areas) to every other rank, and the other ranks' records, in rank order, into
 * m->rank_records (*REMOTE of them). FAILED: this rank failed before; it only takes part. */
static int ranks_records(flood_model *m, int mask, const uint32_t *count, cl_uint rec,
                         int failed, uint64_t *remote, cn_error *err)
{
    int ranks = dist_size(), me = dist_rank();
    size_t unit = (size_t)rec * 4;
    uint64_t mine = 0;
    for (int d = 0; d < m->n_rep; d++)
        if (mask & (1 << d))
            mine += count[d];
    uint64_t *n = malloc((size_t)ranks * sizeof *n), said = failed ? UINT64_MAX : mine;
    if (!n) /* the others wait in the gather: no way back */
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    int rc = dist_allgather(&said, n, sizeof said, err);
    uint64_t all = 0;
    int any_failed = 0;
    for (int r = 0; r < ranks && !rc; r++) {
        any_failed |= n[r] == UINT64_MAX;
        all += n[r] == UINT64_MAX ? 0 : n[r];
    }
    if (rc || any_failed) {
        free(n);
        return rc ? rc : failed ? failed : DIST_PEER_FAILED;
    }
    unsigned char *send = malloc(mine ? (size_t)mine * unit : 1);
    unsigned char *got = malloc(all ? (size_t)all * unit : 1);
    if (!send || !got) {
        free(n);
        free(send);
        free(got);
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %llu moved node records",
                       (unsigned long long)all);
    }
    size_t at = 0;
    for (int d = 0; d < m->n_rep; d++)
        if ((mask & (1 << d)) && count[d]) {
            memcpy(send + at, m->rep[d].rarea.map, (size_t)count[d] * unit);
            at += (size_t)count[d] * unit;
        }
    rc = dist_allgatherv(send, n, unit, got, err);
    /* the others' in rank order, this rank's left out */
    free(m->rank_records);
    m->rank_records = got;
    *remote = 0;
    size_t from = 0, to = 0;
    for (int r = 0; r < ranks && !rc; r++) {
        size_t b = (size_t)n[r] * unit;
        if (r != me) {
            memmove(got + to, got + from, b);
            to += b;
            *remote += n[r];
        }
        from += b;
    }
    m->rank_sent += mine * unit;
    free(send);
    free(n);
    return rc;
}

int flood_retile_finish(flood_model *m, int64_t w, cn_error *err)
{
    int mask = m->retile_mask;
    m->retile_mask = 0;
    /* (several ranks: a rank holding no partition takes part in the records' collective) */
    if (!flood_retile_due(m, w) || (!mask && !ranks_spread(m)))
        return 0;
    cl_uint rec = (cl_uint)record_words(m); /* below 2^32: gather checked it */
    uint32_t count[FLOOD_MAX_REPLICAS] = {0};
    uint64_t total = 0;
    int rc = 0;
    double t0 = wall_seconds();
    /* how many nodes leave each holder (in the window's counters when they were read with
     * them); records beyond its room are gathered again, and read whole */
    for (int d = 0; d < m->n_rep && !rc; d++) {
        flood_replica *r = &m->rep[d];
        if (!(mask & (1 << d)))
            continue;
        if (m->retile_in_rb == w) {
            count[d] = r->counters[CTL_RETILE];
        } else {
            rc = dbuf_read(r->dev, &r->ctl, CTL_RETILE * 4, 4, &count[d], 1, err);
            r->rarea_spec = 0;
        }
        if (!rc && count[d] > r->record_cap) {
            r->record_cap = count[d] + count[d] / 2;
            r->rarea_spec = 0;
            rc = gather(m, r, err);
        }
        total += count[d];
    }
    /* the records not read with the counters; the writes from the area of the last
     * re-tiling finished long ago, but are waited for before it is overwritten */
    for (int d = 0; d < m->n_rep && !rc; d++) {
        flood_replica *r = &m->rep[d];
        if (!(mask & (1 << d)))
            continue;
        uint32_t have = r->rarea_spec < count[d] ? r->rarea_spec : count[d];
        r->last_retile = count[d];
        if (count[d] == have)
            continue;
        rc = flood_area_quiet(r, &r->rarea, err);
        if (!rc)
            rc = flood_area_reserve(r, &r->rarea, record_entries(m, count[d]),
                                    record_entries(m, have), err);
        if (!rc)
            rc = dbuf_read(r->dev, &r->records, (size_t)have * rec * 4,
                           (size_t)(count[d] - have) * rec * 4,
                           (uint8_t *)r->rarea.map + (size_t)have * rec * 4, 1, err);
    }
    m->wait_s += wall_seconds() - t0;
    /* several ranks: every rank's records to every rank (a collective, as every rank
     * re-tiles at the same windows, whether it holds partitions or not) */
    uint64_t remote = 0;
    if (ranks_spread(m))
        rc = ranks_records(m, mask, count, rec, rc, &remote, err);
    if (rc || total + remote == 0)
        return rc;
    /* each holder gets every other holder's records and keeps those of its partitions; the
     * writes go straight from the pinned areas, without blocking (the areas stay untouched
     * until the next re-tiling, which waits for them first) */
    for (int d = 0; d < m->n_rep && !rc; d++) {
        flood_replica *r = &m->rep[d];
        uint64_t others = total - count[d] + remote;
        if (!(mask & (1 << d)) || others == 0)
            continue;
        size_t bytes = (size_t)others * rec * 4;
        if (bytes > r->records.bytes) {
            dbuf_release(&r->records, &m->acc);
            rc = dbuf_alloc(r->dev, &r->records, bytes, &m->acc, "moved node records", err);
            r->record_cap = (uint32_t)(bytes / 4 / rec);
        }
        size_t at = 0;
        for (int j = 0; j < m->n_rep && !rc; j++) {
            struct export_area *a = &m->rep[j].rarea;
            if (j == d || !(mask & (1 << j)) || count[j] == 0)
                continue;
            size_t n_bytes = (size_t)count[j] * rec * 4;
            cl_int st = clEnqueueWriteBuffer(r->dev->queue, r->records.mem, CL_FALSE, at,
                                             n_bytes, a->map, 0, NULL, &a->writes[a->n_writes]);
            if (st != CL_SUCCESS)
                rc = cl_check(st, "clEnqueueWriteBuffer(moved node records)", r->dev->info.name,
                              err);
            else
                a->n_writes++;
            at += n_bytes;
        }
        /* the other ranks' (blocking: their buffer is reused at the next re-tiling) */
        if (!rc && remote)
            rc = dbuf_write(r->dev, &r->records, at, (size_t)remote * rec * 4, m->rank_records,
                            1, err);
        cl_uint n_in = (cl_uint)others, sw = state_words(m);
        if (!rc)
            rc = kernel_args(r->dev, r->k_scatter_moved, "flood.scatter_moved", err, 10,
                             KBUF(r->records), KARG(n_in), KARG(rec), KBUF(r->part_of),
                             KBUF(r->held), KBUF(r->seen), KBUF(r->params), KARG(m->slots),
                             KBUF(*flood_scheme_state_buffer(r)), KARG(sw));
        if (!rc)
            rc = enqueue_1d(r->dev, r->k_scatter_moved, "flood.scatter_moved", n_in, r->ls_retile,
                            NULL, err);
        r->pend_broken = 1; /* its pending lists lack the arrivals' waiting nodes */
        m->exchanged += (int64_t)bytes;
    }
    m->exchanged += (int64_t)total * rec * 4;
    return rc;
}

int flood_records_can(const flood_model *m)
{
    return retiles(m);
}

size_t flood_record_bytes(const flood_model *m)
{
    return (size_t)record_words(m) * 4;
}

int flood_records_gather(flood_model *m, flood_replica *r, const uint32_t *nodes, uint32_t n,
                         void *out, cn_error *err)
{
    if (n == 0)
        return 0;
    cl_uint count = n;
    /* the list and its count where a re-tiling puts them (between windows both are free: the
     * next re-tiling clears the count first) */
    int rc = dbuf_write(r->dev, &r->leaving, 0, (size_t)n * 4, nodes, 1, err);
    if (!rc)
        rc = dbuf_write(r->dev, &r->ctl, CTL_RETILE * 4, 4, &count, 1, err);
    if (!rc && n > r->record_cap)
        r->record_cap = n;
    if (!rc)
        rc = gather(m, r, err);
    if (!rc)
        rc = dbuf_read(r->dev, &r->records, 0, (size_t)n * flood_record_bytes(m), out, 1, err);
    return rc;
}

int flood_records_scatter(flood_model *m, flood_replica *r, const void *records, uint32_t n,
                          cn_error *err)
{
    if (n == 0)
        return 0;
    size_t bytes = (size_t)n * flood_record_bytes(m);
    cl_uint rec = (cl_uint)record_words(m), sw = state_words(m);
    int rc = 0;
    if (bytes > r->records.bytes) {
        dbuf_release(&r->records, &m->acc);
        rc = dbuf_alloc(r->dev, &r->records, bytes, &m->acc, "moved node records", err);
        r->record_cap = n;
    }
    if (!rc)
        rc = dbuf_write(r->dev, &r->records, 0, bytes, records, 1, err);
    if (!rc)
        rc = kernel_args(r->dev, r->k_scatter_moved, "flood.scatter_moved", err, 10,
                         KBUF(r->records), KARG(n), KARG(rec), KBUF(r->part_of), KBUF(r->held),
                         KBUF(r->seen), KBUF(r->params), KARG(m->slots),
                         KBUF(*flood_scheme_state_buffer(r)), KARG(sw));
    if (!rc)
        rc = enqueue_1d(r->dev, r->k_scatter_moved, "flood.scatter_moved", n, r->ls_retile, NULL,
                        err);
    r->pend_broken = 1; /* its pending lists lack the arrivals' waiting nodes */
    return rc;
}

int flood_part_host_current(flood_model *m, int64_t w, cn_error *err)
{
    int64_t e = flood_epoch(m, w);
    if (m->n_parts <= 1 || m->host_epoch == e)
        return 0;
    for (int d = 0; d < m->n_rep; d++) {
        flood_replica *r = &m->rep[d];
        if (r->part_epoch != e)
            continue;
        int rc = dbuf_read(r->dev, &r->part_of, 0, (size_t)m->n * 2, m->part_host, 1, err);
        if (!rc)
            m->host_epoch = e;
        m->exchanged += (int64_t)m->n * 2;
        return rc;
    }
    return cn_fail(err, CN_ERR_RUNTIME, "internal error: no device holds the partitions of "
                   "window %lld", (long long)w);
}

int flood_part_of_current(flood_model *m, flood_replica *r, int64_t w, cn_error *err)
{
    int64_t e = flood_epoch(m, w);
    if (m->n_parts <= 1 || r->part_epoch == e)
        return 0;
    int rc = flood_part_host_current(m, w, err);
    if (!rc)
        rc = dbuf_write(r->dev, &r->part_of, 0, (size_t)m->n * 2, m->part_host, 1, err);
    if (!rc)
        rc = flood_stamp_parts(m, r, err);
    if (!rc)
        r->part_epoch = e;
    m->exchanged += (int64_t)m->n * 2;
    return rc;
}

int flood_held_current(flood_model *m, flood_replica *r, cn_error *err)
{
    if (r->held_version == m->placement)
        return 0;
    uint8_t *held = malloc(m->n_parts);
    if (!held)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    int d = (int)(r - m->rep);
    for (uint32_t q = 0; q < m->n_parts; q++)
        held[q] = m->home[q] == d;
    /* blocking: HELD_HOST may still be read by a queued write of the last re-tiling */
    int rc = dbuf_write(r->dev, &r->held, 0, m->n_parts, held, 1, err);
    free(held);
    if (!rc)
        r->held_version = m->placement;
    return rc;
}

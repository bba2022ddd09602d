/* Forwarding schemes in the window loop (docs/models.md, "Forwarding schemes").
 *
 * Under counter and distance a node decides a whole number of windows after its first
 * reception, from the copies it heard until then. Each window therefore runs, per partition,
 * the transmit kernel (which only counts the copies and takes first receptions, with the
 * least hop count among them) and then scheme_decide (cl/flood/flood.cl), which settles the
 * window's first receptions and the decisions that fall due, and appends the relays, each
 * carrying its hop count. The per-node state between the two (least hop count, copies, the
 * near flag, the decision window) lives per packet slot on the device that holds the node's
 * partition, like its seen bits: migrations and re-tilings carry it along, and a retired
 * slot's states are cleared with its bits. A packet whose nodes still wait for their
 * decision is alive without transmitting; the liveness word says so (SCHEME_WAIT_MARK), and
 * the loop keeps running windows for it. Under node resources the copies are taken by the
 * resource kernels (cl/flood/flood_resources.cl), which hear only those that happen, and the word
 * gathers marks instead (SLOT_MARKS): a packet may transmit, relay and wait in one window. */
#include <stdlib.h>
#include <string.h>

#include "cl/flood/flood_layout.clh"
#include "models/flood/flood_model.h"

/* uints of one node's state in one slot (SCHEME_WORDS in cl/flood/flood.cl) */
#define SCHEME_NODE_WORDS 4

size_t flood_scheme_slot_bytes(const flood_model *m)
{
    return m->scheme_window ? (size_t)m->n * SCHEME_NODE_WORDS * 4 : 0;
}

const dbuf *flood_scheme_state_buffer(const flood_replica *r)
{
    /* without a scheme the kernels never read it: any valid buffer will do */
    return r->scheme_state.mem ? &r->scheme_state : &r->spill;
}

const dbuf *flood_scheme_pend_buffer(const flood_replica *r)
{
    return r->pend.mem ? &r->pend : &r->spill;
}

int flood_scheme_alloc_pending(flood_model *m, flood_replica *r, cn_error *err)
{
    r->pend_ran = r->pend_full = r->pend_seen = -2;
    r->pend_broken = 1;
    if (!m->scheme_window)
        return 0;
    /* a pair is listed as slot x n + node, a uint */
    uint64_t cap = (uint64_t)m->slots * m->n;
    if (cap > 0xffffffffu)
        return cn_fail(err, CN_ERR_RUNTIME, "%u packets in flight among %u nodes make more "
                       "than 2^32 pending decisions to list; use fewer packets at a time",
                       m->slots, m->n);
    dbuf_release(&r->pend, &m->acc);
    memset(&r->decide_args, 0, sizeof r->decide_args);
    r->pend_cap = (uint32_t)cap;
    return dbuf_alloc(r->dev, &r->pend, (size_t)cap * 2 * 4, &m->acc, "pending decisions",
                      err);
}

/* The lists hold every pair to decide in window W when the device decided window W - 1
 * itself from lists that did (or from every pair), and no state came to it since: each
 * window's decisions list those still waiting, and its transmit launches list the first
 * receptions. Otherwise window W visits every pair and lists the waiting ones afresh. */
int flood_scheme_prepare(flood_model *m, flood_replica *r, int64_t w, cn_error *err)
{
    if (!m->scheme_window || r->pend_seen == w)
        return 0;
    r->pend_seen = w;
    if (!r->pend_broken && r->pend_ran == w - 1)
        return 0;
    r->pend_full = w;
    r->pend_broken = 0;
    /* the lengths of this window's list, the next one's and the one after (in-order queue:
     * after every earlier use) */
    static const cl_uint zero[CTL_ROTATION] = {0};
    return dbuf_write(r->dev, &r->ctl, CTL_PEND * 4, sizeof zero, zero, 0, err);
}

int flood_scheme_decide(flood_model *m, uint32_t part, flood_replica *r, int64_t w,
                        cl_event *evs, int *n_evs, cn_error *err)
{
    device_ctx *d = r->dev;
    const transmit_prep *p = &m->prep;
    const window_args *a = &p->a;
    int nxt = m->cur ^ 1;
    cl_uint slots = m->slots, parity = (cl_uint)(w & 1), nparts = m->n_parts;
    const dbuf *ftime = m->flows ? &r->slot_time : &r->spill;
    const dbuf *froute = m->flows ? &r->slot_route : &r->spill;
    const dbuf *fdeliv = m->flows ? &r->deliv : &r->spill;
    /* mobile partitions on several devices: the relays the others may need, as
     * transmit_mobile exports its own (no box exports nothing) */
    const dbuf *xarea = exchange_window_area(&m->xw, (int)(r - m->rep));
    int exporting = m->mobile && r->x_active && xarea->mem;
    const dbuf *xbuf = exporting ? xarea : &r->spill;
    cl_uint xcap = exporting ? exchange_window_capacity(&m->xw, (int)(r - m->rep)) : 0;
    cl_uint xword = CTL_EXPORT + (cl_uint)(w & 1);
    const dbuf *xboxes = flood_export_boxes(r);
    cl_uint x_n = exporting ? r->x_n : 0;
    /* every pair at the start of a run of windows, or after states came from elsewhere */
    cl_uint full = r->pend_full == w || r->pend_broken;
    /* the scenario's constants (the node count, times, key, thresholds, the counter's and
     * the assessment's) are in the parameter block */
    int rc = kernel_args_cached(d, r->k_decide, &r->decide_args, "flood.scheme_decide", err, 0, 30,
                                KBUF(r->ctl), KBUF(r->scheme_state), KBUF(r->params),
                                KARG(slots), KBUF(r->slot_packet), KBUF(*ftime), KBUF(*froute),
                                KBUF(*fdeliv), KARG(parity), KARG(a->T),
                                KBUF(*flood_node_drop_buffer(r)), KBUF(r->part_of), KARG(part),
                                KARG(nparts), KBUF(r->frontier[nxt]),
                                KARG(r->capacity[nxt]), KARG(p->out_word), KBUF(r->spill),
                                KARG(p->stamp), KBUF(r->pos), KBUF(*xboxes), KARG(x_n),
                                KBUF(*xbuf), KARG(xcap), KARG(xword), KBUF(r->pend),
                                KARG(r->pend_cap), KARG(p->pend_word),
                                KARG(p->next_pend_word), KARG(full));
    /* work-items stride over the nodes or the list: a GPU gets as many as fill it, a CPU a
     * few groups per core (there every group costs a pass of PoCL's work-group loop; a
     * window's list is short) */
    size_t ls = r->ls_decide ? r->ls_decide : 1;
    size_t groups = ((size_t)m->n + ls - 1) / ls;
    size_t most = r->cpu ? (size_t)d->info.compute_units * 4 : r->max_groups;
    if (groups > most)
        groups = most;
    if (!rc)
        rc = enqueue_1d(d, r->k_decide, "flood.scheme_decide", groups * ls, ls,
                        evs ? &evs[(*n_evs)++] : NULL, err);
    if (!rc)
        r->pend_ran = w;
    return rc;
}

void flood_scheme_merge_part(const flood_model *m, uint32_t part, const uint32_t *from,
                             uint32_t *into)
{
    /* the partition's nodes take FROM's states; the others keep INTO's */
    size_t per = SCHEME_NODE_WORDS;
    for (uint32_t j = 0; j < m->n; j++) {
        if (m->n_parts > 1 && m->part_host[j] != part)
            continue;
        for (uint32_t s = 0; s < m->slots; s++)
            memcpy(into + ((size_t)s * m->n + j) * per, from + ((size_t)s * m->n + j) * per,
                   per * 4);
    }
}

int flood_scheme_migrate(flood_model *m, flood_replica *from, flood_replica *to,
                         uint32_t part, uint64_t *bytes, cn_error *err)
{
    if (!m->scheme_window)
        return 0;
    size_t per = SCHEME_NODE_WORDS, total = (size_t)m->slots * m->n * per;
    uint32_t *a = malloc(total * 4), *b = malloc(total * 4);
    int rc = a && b ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory for scheme states");
    if (!rc)
        rc = dbuf_read(from->dev, &from->scheme_state, 0, total * 4, a, 1, err);
    if (!rc)
        rc = dbuf_read(to->dev, &to->scheme_state, 0, total * 4, b, 1, err);
    if (!rc)
        flood_scheme_merge_part(m, part, a, b);
    if (!rc)
        rc = dbuf_write(to->dev, &to->scheme_state, 0, total * 4, b, 1, err);
    to->pend_broken = 1; /* its lists lack the partition's waiting nodes */
    if (!rc)
        *bytes += 3 * (uint64_t)total * 4;
    free(a);
    free(b);
    return rc;
}

uint64_t flood_scheme_bytes(const flood_model *m)
{
    return 3 * (uint64_t)m->slots * flood_scheme_slot_bytes(m);
}

/* Whether the packet of slot S transmits in window W (W read back): a new packet at its
 * creation, any other when some node decided in window W - 1 to relay it (TX_NEXT). */
static int transmits(const flood_model *m, uint32_t s, int64_t w)
{
    return m->born_window[s] == w || m->tx_next[s];
}

int flood_scheme_window_done(flood_model *m, int64_t w, uint32_t s, int in_time, int *sent,
                             int *alive)
{
    cl_uint stamp = (cl_uint)(w + 1);
    int relays, waits;
    if (m->resources) { /* marks gathered in the window (SLOT_MARKS): what happened */
        cl_uint marks = ((m->alive[s] ^ stamp) & ~(cl_uint)SLOT_MARKS) == 0
                            ? m->alive[s] ^ stamp
                            : 0;
        *sent = (marks & RES_TX_MARK) != 0;
        relays = (marks & SLOT_RELAY_MARK) != 0;
        waits = (marks & SCHEME_WAIT_MARK) != 0;
    } else { /* a relay overwrites the waiting mark */
        *sent = transmits(m, s, w) && in_time;
        relays = m->alive[s] == stamp;
        waits = m->alive[s] == (stamp ^ SCHEME_WAIT_MARK);
    }
    *alive = relays || waits;
    m->tx_next[s] = (uint8_t)relays;
    if (waits)
        m->scheme_waiting++;
    return 0;
}

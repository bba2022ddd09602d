/* Node resources ([resources], docs/models.md "Node resources"): a receive capacity and an
 * energy budget per node, on the window loop of one partition.
 *
 * The rules order every node's events of a window (its transmissions by (time, packet), then
 * its copies by (time, packet, sender)), so the window's transmissions run as four kernels of
 * cl/flood/flood_resources.cl instead of transmit: lists of each transmitter's entries, payment in
 * order, copies counted and taken per receiver (in order where the rules bind), the lists
 * emptied. The per-node state (energy left, time of death) lives on the device that holds the
 * partition and moves with it; the counters are the control words of flood_layout.clh, read
 * back with the window's. Under counter and distance the copies taken are only heard, and
 * the window's scheme_decide (flood_scheme.c) settles them, as without resources. */
#include <stdlib.h>
#include <string.h>

#include "cl/flood/flood_layout.clh"
#include "models/flood/flood_model.h"

/* Work-groups for ITEMS work-items of LS: the kernels stride over any number of items and
 * have their only barriers at the end (the sums), so a CPU, which runs a group's items one
 * after another on one thread, gets a few groups per core, each item taking a long run (the
 * per-group sums cost more than the items of a sparse window); a GPU as many as fill it. */
static size_t groups_for(const flood_replica *r, uint64_t items, size_t ls)
{
    uint64_t most = r->cpu ? (uint64_t)r->dev->info.compute_units * 4 : r->max_groups;
    uint64_t g = (items + ls - 1) / ls;
    if (g > most)
        g = most;
    return g ? (size_t)g : 1;
}

/* The __local arguments of res_charge and res_receive with work-groups of SIZE: a row of
 * sums per item (res_flush); res_link and res_reset have none. */
static cl_ulong sums_local_args(size_t size, const void *user)
{
    (void)user;
    return (cl_ulong)size * 6 * 8;
}

static int make(flood_replica *r, const char *name, cl_kernel *k, size_t *ls, cn_error *err)
{
    int rc = device_create_kernel(r->dev, r->prog, name, k, err);
    int sums = !strcmp(name, "flood.res_charge") || !strcmp(name, "flood.res_receive");
    if (!rc)
        *ls = device_local_size_fit(r->dev, name, *k, 0, sums ? sums_local_args : NULL, NULL);
    return rc;
}

/* Each flow's costs (nJ): a transmission, then an accepted copy, of a packet of its size. */
static int write_costs(flood_model *m, flood_replica *r, cn_error *err)
{
    const flood_values *sc = flood_values_of(&m->sc);
    int n = sc->n_flows > 0 ? sc->n_flows : 1;
    cl_long costs[2 * SCENARIO_MAX_FLOWS];
    for (int f = 0; f < n; f++) {
        int64_t size = sc->n_flows > 0 ? sc->flows[f].size_bytes : sc->size_bytes;
        /* within int64: the configuration checks the largest size's costs */
        costs[2 * f] = sc->tx_fixed_nj + sc->tx_per_byte_nj * size;
        costs[2 * f + 1] = sc->rx_fixed_nj + sc->rx_per_byte_nj * size;
    }
    size_t bytes = (size_t)n * 2 * sizeof costs[0];
    int rc = dbuf_alloc(r->dev, &r->res.costs, bytes, &m->acc, "resource costs", err);
    if (!rc)
        rc = dbuf_write(r->dev, &r->res.costs, 0, bytes, costs, 1, err);
    return rc;
}

static int setup_replica(flood_model *m, flood_replica *r, cn_error *err)
{
    struct flood_res_replica *s = &r->res;
    device_ctx *d = r->dev;
    size_t n = m->n;
    int rc = make(r, "flood.res_link", &s->k_link, &s->ls_link, err);
    if (!rc)
        rc = make(r, "flood.res_charge", &s->k_charge, &s->ls_charge, err);
    if (!rc)
        rc = make(r, "flood.res_receive", &s->k_receive, &s->ls_receive, err);
    if (!rc)
        rc = make(r, "flood.res_reset", &s->k_reset, &s->ls_reset, err);
    if (!rc)
        rc = dbuf_alloc(d, &s->energy, n * 8, &m->acc, "energy", err);
    if (!rc)
        rc = dbuf_alloc(d, &s->death, n * 8, &m->acc, "death times", err);
    if (!rc)
        rc = dbuf_alloc(d, &s->head, n * 4, &m->acc, "transmission lists", err);
    if (!rc) /* windows are stamped from 1 on */
        rc = dbuf_alloc(d, &s->reached, n * 4, &m->acc, "nodes reached", err);
    if (!rc)
        rc = dbuf_zero(d, &s->reached, 0, n * 4, err);
    if (!rc)
        rc = dbuf_alloc(d, &s->txnodes, n * 4, &m->acc, "transmitters", err);
    s->ent_cap = r->capacity[0] > 256 ? r->capacity[0] : 256;
    if (!rc)
        rc = dbuf_alloc(d, &s->ent, (size_t)s->ent_cap * 16, &m->acc, "entries", err);
    if (!rc)
        rc = write_costs(m, r, err);
    /* every replica draws the same budgets (a function of the seed); the one that holds the
     * partition then carries them (without an energy model they are 0 and never read) */
    cl_kernel k = NULL;
    if (!rc)
        rc = device_create_kernel(d, r->prog, "flood.res_init", &k, err);
    /* the budget's law is in the parameter block (0 without an energy model) */
    if (!rc)
        rc = kernel_args(d, k, "flood.res_init", err, 4, KBUF(r->params), KBUF(s->energy),
                         KBUF(s->death), KBUF(s->head));
    if (!rc)
        rc = enqueue_1d(d, k, "flood.res_init", m->n, r->ls_place, NULL, err);
    if (k)
        clReleaseKernel(k);
    s->clean = 0; /* the control words start at zero */
    return rc;
}

int flood_resources_setup(flood_model *m, cn_error *err)
{
    int rc = 0;
    for (int d = 0; d < m->n_rep && !rc; d++)
        rc = setup_replica(m, &m->rep[d], err);
    return rc;
}

/* Room for ENTRIES window entries in R's list arrays (their content is the window's only). */
static int ensure_entries(flood_model *m, flood_replica *r, uint64_t entries, cn_error *err)
{
    struct flood_res_replica *s = &r->res;
    if (entries <= s->ent_cap)
        return 0;
    if (entries > 0xffffffffu)
        return cn_fail(err, CN_ERR_RUNTIME, "more than 2^32 transmissions in one window");
    uint64_t cap = entries + entries / 2;
    if (cap > 0xfffffffeu)
        cap = 0xfffffffeu;
    memset(&s->link_args, 0, sizeof s->link_args);
    memset(&s->charge_args, 0, sizeof s->charge_args);
    memset(&s->receive_args, 0, sizeof s->receive_args);
    int rc = dbuf_grow(r->dev, &s->ent, (size_t)cap * 16, 0, &m->acc, "entries", err);
    if (!rc)
        s->ent_cap = (uint32_t)cap;
    return rc;
}

/* The neighbour arguments of res_charge and res_receive from argument FIRST: the window's
 * cell lists (mobile; the range and the cell grid are in the parameter block) or the static
 * lists of partition 0. */
static int link_args(flood_model *m, flood_replica *r, cl_kernel k, karg_cache *cache,
                     const char *name, int first, cn_error *err)
{
    if (!m->mobile)
        return kernel_args_cached(r->dev, k, cache, name, err, first, 3, KBUF(m->offsets[0]),
                                  KBUF(m->neighbours[0]), KBUF(r->pos));
    return kernel_args_cached(r->dev, k, cache, name, err, first, 3, KBUF(r->pos),
                              KBUF(r->cells.start), KBUF(r->cells.nodes));
}

int flood_resources_transmit(flood_model *m, flood_replica *r, const transmit_prep *p,
                             int64_t w, cl_event *evs, int *n_evs, cn_error *err)
{
    struct flood_res_replica *s = &r->res;
    device_ctx *d = r->dev;
    const window_args *a = &p->a;
    int cur = m->cur, nxt = cur ^ 1, rc = 0;
    /* the list lengths: zero unless this device ran the last window (which cleared this one's) */
    if (s->clean != w)
        rc = dbuf_zero(d, &r->ctl, CTL_RES_TXN * 4, 2 * 4, err);
    if (!rc)
        rc = ensure_entries(m, r, m->entries_bound, err);
    if (rc)
        return rc;
    cl_uint n_new = m->n_new, n_import = r->import_window == w ? r->n_import : 0;
    cl_uint parity = (cl_uint)(w & 1), slots = m->slots, ent_cap = s->ent_cap;
    const dbuf *ftime = m->flows ? &r->slot_time : &r->spill;
    const dbuf *froute = m->flows ? &r->slot_route : &r->spill;
    const dbuf *fdeliv = m->flows ? &r->deliv : &r->spill;
    /* the scenario's constants (times, key, thresholds, the capacity, qudg's and the
     * distance scheme's) are in the parameter block; the window's start is an argument */

    const dbuf *state = flood_scheme_state_buffer(r);
    rc = kernel_args_cached(d, s->k_link, &s->link_args, "flood.res_link", err, 0, 24,
                            KBUF(r->frontier[cur]), KARG(p->in_word), KARG(n_new),
                            KARG(p->n_clear), KARG(p->inline_desc), KBUF(r->desc),
                            KARG(p->clear_word), KBUF(r->ctl), KBUF(r->seen), KBUF(r->params),
                            KBUF(r->slot_packet), KARG(a->T), KARG(n_import), KARG(parity),
                            KBUF(s->head), KBUF(s->ent), KARG(ent_cap), KBUF(s->txnodes),
                            KBUF(s->death), KBUF(*ftime), KBUF(*froute), KBUF(*fdeliv),
                            KARG(slots), KBUF(*state));
    size_t ls = s->ls_link;
    if (!rc)
        rc = enqueue_1d(d, s->k_link, "flood.res_link", groups_for(r, m->entries_bound, ls) * ls,
                        ls, &evs[(*n_evs)++], err);

    ls = s->ls_charge;
    if (!rc)
        rc = kernel_args_cached(d, s->k_charge, &s->charge_args, "flood.res_charge", err, 0, 17,
                                KBUF(r->ctl), KARG(parity), KARG(p->stamp), KBUF(s->head),
                                KBUF(s->ent), KBUF(s->txnodes), KBUF(s->reached),
                                KBUF(s->energy), KBUF(s->death), KBUF(s->costs),
                                KBUF(r->slot_packet), KBUF(*ftime), KBUF(*froute),
                                KBUF(r->params), KARG(a->T), KBUF(*flood_cap_buffer(r)),
                                KLOCAL(ls * 6 * 8));
    if (!rc)
        rc = link_args(m, r, s->k_charge, &s->charge_args, "flood.res_charge", 17, err);
    if (!rc)
        rc = enqueue_1d(d, s->k_charge, "flood.res_charge",
                        groups_for(r, m->entries_bound, ls) * ls, ls, &evs[(*n_evs)++], err);

    /* one work-item per node: those the window's copies reached take them */
    ls = s->ls_receive;
    if (!rc)
        rc = kernel_args_cached(d, s->k_receive, &s->receive_args, "flood.res_receive", err, 0, 28,
                                KBUF(r->ctl), KARG(p->stamp), KBUF(s->head), KBUF(s->ent),
                                KBUF(s->reached), KBUF(s->energy), KBUF(s->death),
                                KBUF(s->costs), KBUF(r->slot_packet), KBUF(*ftime),
                                KBUF(*froute), KBUF(*fdeliv), KARG(slots), KARG(parity),
                                KBUF(r->seen), KBUF(r->frontier[nxt]), KARG(r->capacity[nxt]),
                                KARG(p->out_word), KBUF(r->spill), KBUF(r->params), KARG(a->T),
                                KBUF(*flood_cap_buffer(r)), KBUF(*flood_node_drop_buffer(r)),
                                KBUF(*state), KBUF(*flood_scheme_pend_buffer(r)),
                                KARG(r->pend_cap), KARG(p->pend_word), KLOCAL(ls * 6 * 8));
    if (!rc)
        rc = link_args(m, r, s->k_receive, &s->receive_args, "flood.res_receive", 28, err);
    if (!rc)
        rc = enqueue_1d(d, s->k_receive, "flood.res_receive", groups_for(r, m->n, ls) * ls, ls,
                        &evs[(*n_evs)++], err);

    ls = s->ls_reset;
    if (!rc)
        rc = kernel_args_cached(d, s->k_reset, &s->reset_args, "flood.res_reset", err, 0, 4,
                                KBUF(r->ctl), KARG(parity), KBUF(s->head), KBUF(s->txnodes));
    if (!rc)
        rc = enqueue_1d(d, s->k_reset, "flood.res_reset", groups_for(r, m->entries_bound, ls) * ls,
                        ls, &evs[(*n_evs)++], err);
    if (!rc)
        s->clean = w + 1; /* res_link cleared the next window's list lengths */
    return rc;
}

int flood_resources_migrate(flood_model *m, flood_replica *from, flood_replica *to,
                            uint64_t *bytes, cn_error *err)
{
    if (!m->energy)
        return 0;
    dbuf *src[2] = {&from->res.energy, &from->res.death};
    dbuf *dst[2] = {&to->res.energy, &to->res.death};
    size_t size = (size_t)m->n * 8;
    int64_t *stage = malloc(size);
    int rc = stage ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (int i = 0; i < 2 && !rc; i++) {
        rc = dbuf_read(from->dev, src[i], 0, size, stage, 1, err);
        if (!rc)
            rc = dbuf_write(to->dev, dst[i], 0, size, stage, 1, err);
        *bytes += 2 * (uint64_t)size;
    }
    free(stage);
    return rc;
}

uint64_t flood_resources_bytes(const flood_model *m)
{
    return m->energy ? 4 * (uint64_t)m->n * 8 : 0;
}

/* The earliest death time (-1: none), from the replica that holds the partition (a rank
 * holding none has no part of it: *HELD 0). */
static int first_death(flood_model *m, int64_t *t, size_t *held, cn_error *err)
{
    *t = -1;
    *held = m->home[0] >= 0;
    if (!*held)
        return 0;
    flood_replica *r = &m->rep[m->home[0]];
    size_t size = (size_t)m->n * 8;
    int64_t *death = malloc(size);
    if (!death)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    int rc = dbuf_read(r->dev, &r->res.death, 0, size, death, 1, err);
    *t = -1;
    for (uint32_t j = 0; !rc && j < m->n; j++)
        if (death[j] != INT64_MAX && (*t < 0 || death[j] < *t))
            *t = death[j];
    free(death);
    return rc;
}

int flood_resources_results(flood_model *m, run_results *r, cn_error *err)
{
    if (!m->resources)
        return 0;
    int rc = 0;
    if (flood_values_of(&m->sc)->rx_capacity > 0 &&
        (rc = flood_reduce_counter(m, r, CTL_RES_DROPS, "capacity_drops", err)) != 0)
        return rc;
    if (!m->energy)
        return 0;
    int64_t t = -1;
    size_t held = 0;
    if ((rc = first_death(m, &t, &held, err)) != 0 ||
        (rc = flood_reduce_counter(m, r, CTL_RES_DEAD, "dead_nodes", err)) != 0)
        return rc;
    wide_int first = t;
    if ((rc = results_reduce(r, "first_death_ns", &first, held, err)) != 0)
        return rc;
    /* the budgets together fit int64 (config/checks.c), and nobody spends beyond its own */
    return flood_reduce_counter(m, r, CTL_RES_ENERGY, "energy_spent_nj", err);
}

void flood_resources_free(flood_model *m, flood_replica *r)
{
    struct flood_res_replica *s = &r->res;
    dbuf *bufs[] = {&s->energy, &s->death, &s->head, &s->reached, &s->txnodes, &s->ent,
                    &s->costs};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        dbuf_release(bufs[i], &m->acc);
    cl_kernel ks[] = {s->k_link, s->k_charge, s->k_receive, s->k_reset};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (ks[i])
            clReleaseKernel(ks[i]);
    memset(s, 0, sizeof *s);
}

/* Flood model: allocation of the flows, placement, static neighbour lists, packet slots. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl/flood/flood_layout.clh"
#include "engine/partition.h"
#include "models/flood/flood_memory.h"
#include "dist/dist.h"
#include "models/flood/flood_model.h"

static uint32_t env_u32(const char *name, uint32_t fallback)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return fallback;
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    return (*end == '\0' && x > 0 && x < 0x7fffffffUL) ? (uint32_t)x : fallback;
}

static void release_pinned(flood_replica *r)
{
    host_area_free(r->dev, r->pinned, r->pinned_map);
    r->pinned = NULL;
    r->pinned_map = NULL;
}

int flood_readback_areas(flood_model *m, flood_replica *r, cn_error *err)
{
    release_pinned(r);
    /* the control words and liveness, then with flows the window's deliveries per slot */
    r->area = (size_t)CTL_WORDS + m->slots +
              (m->flows ? (size_t)m->slots * flood_deliv_words(m) : 0);
    size_t bytes = 2 * r->area * 4;
    r->pinned_map = host_area_alloc(r->dev, bytes, &r->pinned);
    if (!r->pinned_map)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the read-back areas of "
                       "device '%s'", r->dev->info.name);
    memset(r->pinned_map, 0, bytes);
    return 0;
}

void flood_forget_args(flood_replica *r)
{
    memset(&r->res.link_args, 0, sizeof r->res.link_args);
    memset(&r->res.charge_args, 0, sizeof r->res.charge_args);
    memset(&r->res.receive_args, 0, sizeof r->res.receive_args);
    memset(&r->res.reset_args, 0, sizeof r->res.reset_args);
    memset(&r->transmit_args, 0, sizeof r->transmit_args);
    memset(&r->move_args, 0, sizeof r->move_args);
    memset(&r->export_args, 0, sizeof r->export_args);
    memset(&r->decide_args, 0, sizeof r->decide_args);
}

int flood_holders(const flood_model *m)
{
    int mask = 0;
    for (uint32_t q = 0; q < m->n_parts; q++)
        if (m->home[q] >= 0)
            mask |= 1 << m->home[q];
    return mask;
}

/* Every replica counts the events it ran: the totals are sums. */
static unsigned __int128 counter_u64(const uint32_t *words, int at)
{
    return (unsigned __int128)words[at] | ((unsigned __int128)words[at + 1] << 32);
}

wide_int flood_counter(const flood_model *m, int word)
{
    unsigned __int128 sum = 0;
    for (int d = 0; d < m->n_rep; d++)
        sum += counter_u64(m->rep[d].counters, word) |
               counter_u64(m->rep[d].counters, CTL_HI(word)) << 64;
    return (wide_int)sum;
}

int flood_reduce_counter(const flood_model *m, run_results *r, int word, const char *name,
                         cn_error *err)
{
    wide_int parts[FLOOD_MAX_REPLICAS];
    for (int d = 0; d < m->n_rep; d++)
        parts[d] = (wide_int)(counter_u64(m->rep[d].counters, word) |
                              counter_u64(m->rep[d].counters, CTL_HI(word)) << 64);
    return results_reduce(r, name, parts, (size_t)m->n_rep, err);
}

int flood_replica_index(const flood_model *m, const device_ctx *dev)
{
    for (int d = 0; d < m->n_rep; d++)
        if (m->rep[d].dev == dev)
            return d;
    return -1;
}

static int make_kernel(flood_replica *r, const char *name, cl_kernel *k, size_t *ls,
                       cn_error *err)
{
    int rc = device_create_kernel(r->dev, r->prog, name, k, err);
    if (rc == 0 && ls)
        *ls = device_local_size(r->dev, name, *k);
    return rc;
}

/* The __local arguments of transmit and transmit_mobile with work-groups of SIZE
 * (flood_window.c): the relay count and the flush pair, a sum row per item, and the relay
 * buffer of 2 x SIZE entries (choose_shapes; the test hook only shrinks it). */
static cl_ulong transmit_local_args(size_t size, const void *user)
{
    const flood_model *m = user;
    return 4 + 2 * 4 + (cl_ulong)size * 32 + (cl_ulong)2 * size * m->entry_bytes;
}

/* The placement kernel of each topology.placement (PLACEMENT_GRID, _UNIFORM, _AREAS). */
static const char *const place_kernels[] = {"flood.place_grid", "flood.place_uniform",
                                            "flood.place_areas"};

/* Kernels of each mobility model (cl/flood/flood.cl); random_walk needs no initial draw. */
static const char *mobility_init_kernel(int mobility)
{
    return mobility == MOBILITY_RWP ? "flood.rwp_init"
         : mobility == MOBILITY_RANDOM_DIRECTION ? "flood.direction_init"
         : mobility == MOBILITY_GRID_WALK ? "flood.grid_init"
         : mobility == MOBILITY_LINEAR ? "flood.walk_init" : NULL;
}

static const char *mobility_move_kernel(int mobility)
{
    return mobility == MOBILITY_RWP ? "flood.move_rwp"
         : mobility == MOBILITY_RANDOM_DIRECTION ? "flood.move_direction"
         : mobility == MOBILITY_GRID_WALK ? "flood.move_grid" : "flood.move_walk";
}

/* The kernel of the window's mobility step: the model's own when a single run of ids moves. */
static const char *move_kernel_name(const flood_model *m)
{
    return m->n_moving == 1 ? mobility_move_kernel(m->segs[m->moving_seg].mob->model)
                            : "flood.move_groups";
}

/* The runs of ids that move alike (mobility groups), and what bounds a step. */
static void mobility_plan(flood_model *m)
{
    m->n_segs = flood_mobility_segments(flood_values_of(&m->sc), m->segs);
    m->n_moving = 0;
    m->move_first = m->move_end = 0;
    for (int i = 0; i < m->n_segs; i++) {
        if (m->segs[i].mob->model == MOBILITY_STATIC)
            continue;
        if (m->n_moving++ == 0) {
            m->moving_seg = i;
            m->move_first = m->segs[i].first;
        }
        m->move_end = m->segs[i].end;
    }
    m->mobile = m->n_moving > 0;
    m->speed_max = flood_speed_max(flood_values_of(&m->sc));
    m->wraps = flood_wraps(flood_values_of(&m->sc));
}

/* The team of work-items per entry of transmit_mobile on R's device (cl/flood/flood.cl,
 * FLOOD_TEAM): the test hook CLNETSIM_TEST_TEAM=T when set, so that one binary can compare
 * teams on one device, else the platform profile's [kernel] flood.transmit_mobile_team (a
 * choice per device: NVIDIA's profile gives one, CPUs keep 1), else 1. A power of two up to
 * 256; a work-group smaller than the team, or one it does not divide, runs teams of the
 * largest power of two that divides it (the kernel sees to that). */
#define TEAM_KEY "flood.transmit_mobile_team"
#define TEAM_MAX 256
static int choose_team(flood_replica *r, cn_error *err)
{
    const char *v = getenv("CLNETSIM_TEST_TEAM");
    long team = 1;
    if (v && *v) {
        char *end;
        team = strtol(v, &end, 10);
        if (*end != '\0' || team < 1 || team > TEAM_MAX || (team & (team - 1)))
            return cn_fail(err, CN_ERR_INPUT,
                           "CLNETSIM_TEST_TEAM='%s' is not a power of two from 1 to %d", v,
                           TEAM_MAX);
    } else {
        team = platform_profile_choice(&r->dev->profile, TEAM_KEY, 1);
        if (team > TEAM_MAX || (team & (team - 1)))
            return cn_fail(err, CN_ERR_RUNTIME,
                           "platform profile %s: [kernel] " TEAM_KEY " = %ld is not a power "
                           "of two from 1 to %d", r->dev->profile.name, team, TEAM_MAX);
    }
    r->team = (uint32_t)team;
    return 0;
}

static int create_kernels(flood_model *m, flood_replica *r, cn_error *err)
{
    /* node resources add their kernels, built only for the scenarios that use them */
    const char *sources[] = {"common/cells.cl", "flood/flood.cl", "flood/flood_resources.cl"};
    /* qudg draws its links in the kernels, and the cap sizes private arrays: without them
     * the kernels build without that code (cl/flood/flood.cl) */
    char options[256] = "";
    if (flood_values_of(&m->sc)->connectivity == CONNECTIVITY_QUDG)
        snprintf(options, sizeof options, "-DFLOOD_QUDG=1");
    if (m->cap)
        snprintf(options + strlen(options), sizeof options - strlen(options), "%s-DFLOOD_CAP=%u",
                 options[0] ? " " : "", m->cap);
    if (flood_values_of(&m->sc)->drop.law == LAW_UNIFORM)
        snprintf(options + strlen(options), sizeof options - strlen(options),
                 "%s-DFLOOD_NODE_DROP=1", options[0] ? " " : "");
    if (m->flows)
        snprintf(options + strlen(options), sizeof options - strlen(options),
                 "%s-DFLOOD_FLOWS=1", options[0] ? " " : "");
    if (m->scheme)
        snprintf(options + strlen(options), sizeof options - strlen(options),
                 "%s-DFLOOD_SCHEME=%d", options[0] ? " " : "", flood_values_of(&m->sc)->scheme);
    if (m->resources)
        snprintf(options + strlen(options), sizeof options - strlen(options),
                 "%s-DFLOOD_RESOURCES=1 -DFLOOD_ENERGY=%d -DFLOOD_RES_MOBILE=%d",
                 options[0] ? " " : "", m->energy, m->mobile);
    /* teams only where the device's choice is one: a team of 1 builds the kernel it was */
    r->team = 1;
    int rc = m->mobile ? choose_team(r, err) : 0;
    if (!rc && r->team > 1)
        snprintf(options + strlen(options), sizeof options - strlen(options),
                 "%s-DFLOOD_TEAM=%u", options[0] ? " " : "", r->team);
    /* teams read the positions that ranked builds place in cell order, where they may */
    if (!rc && r->team > 1 && flood_lists_may_rank(m, r->dev))
        snprintf(options + strlen(options), sizeof options - strlen(options),
                 "%s-DFLOOD_SORTED=1", options[0] ? " " : "");
    /* the next window's step inside transmit_mobile: only its model's code is built */
    if (!rc)
        rc = flood_fuse_code(m, r, &r->fuse_code, err);
    if (!rc && r->fuse_code)
        snprintf(options + strlen(options), sizeof options - strlen(options),
                 "%s-DFLOOD_STEP=%d -DFLOOD_FIXED=1", options[0] ? " " : "", r->fuse_code);
    if (!rc)
        rc = device_build_program(r->dev, sources, m->resources ? 3 : 2, options, &r->prog,
                                  err);
    if (!rc)
        rc = make_kernel(r, place_kernels[flood_values_of(&m->sc)->placement], &r->k_place, &r->ls_place, err);
    /* the mobility models' kernels: each model's initial draw, and the step */
    for (int i = 0; i < m->n_segs && !rc; i++) {
        int model = m->segs[i].mob->model;
        const char *init = mobility_init_kernel(model);
        if (init && !r->k_init[model])
            rc = make_kernel(r, init, &r->k_init[model], NULL, err);
    }
    if (!rc && m->mobile)
        rc = make_kernel(r, move_kernel_name(m), &r->k_move, &r->ls_move, err);
    if (!rc)
        rc = make_kernel(r, "flood.csr_count", &r->k_csr_count, &r->ls_csr, err);
    if (!rc)
        rc = make_kernel(r, "flood.csr_fill", &r->k_csr_fill, NULL, err);
    if (!rc && m->cap)
        rc = make_kernel(r, "flood.cap_select", &r->k_cap_select, &r->ls_cap, err);
    if (!rc && m->cap)
        rc = make_kernel(r, "flood.cap_count", &r->k_cap_count, NULL, err);
    const char *tx = m->mobile ? "flood.transmit_mobile" : "flood.transmit";
    if (!rc)
        rc = device_create_kernel(r->dev, r->prog, tx, &r->k_transmit, err);
    if (!rc)
        r->ls_transmit = device_local_size_fit(r->dev, tx, r->k_transmit, 0,
                                               transmit_local_args, m);
    if (!rc)
        rc = make_kernel(r, "flood.gather_spill", &r->k_gather, &r->ls_gather, err);
    /* (several devices, or ranks: borders to export) */
    if (!rc && (m->n_rep > 1 || dist_size() > 1))
        rc = make_kernel(r, "flood.export_border", &r->k_export, &r->ls_export, err);
    if (!rc && m->mobile)
        rc = make_kernel(r, "flood.retile", &r->k_retile, &r->ls_retile, err);
    if (!rc && m->mobile)
        rc = make_kernel(r, "flood.gather_moved", &r->k_gather_moved, NULL, err);
    if (!rc && m->mobile)
        rc = make_kernel(r, "flood.scatter_moved", &r->k_scatter_moved, NULL, err);
    if (!rc && m->mobile)
        rc = make_kernel(r, "flood.stamp_parts", &r->k_stamp, NULL, err);
    if (!rc && m->scheme)
        rc = make_kernel(r, "flood.scheme_decide", &r->k_decide, &r->ls_decide, err);
    return rc;
}

/* The initial draws of the run of ids SEG (cl/flood/flood.cl, *_init), if its model has any. */
static int mobility_init_run(flood_model *m, flood_replica *r, const mobility_segment *seg,
                             cn_error *err)
{
    device_ctx *d = r->dev;
    const mobility_params *mp = seg->mob;
    const char *name = mobility_init_kernel(mp->model);
    if (!name)
        return 0;
    cl_kernel k = r->k_init[mp->model];
    /* the run's own speeds and times (runs of one model may differ), the scenario's key and
     * area in the parameter block */
    cl_ulong W = m->extent[0], H = m->extent[1];
    cl_long vmin = mp->speed_min_mm_s, vmax = mp->speed_max_mm_s;
    cl_long tmin = mp->travel_min_ms, tmax = mp->travel_max_ms;
    cl_uint end = (cl_uint)seg->end;
    int rc;
    if (mp->model == MOBILITY_RWP) /* the first leg */
        rc = kernel_args(d, k, name, err, 8, KARG(end), KBUF(r->params), KARG(vmin),
                         KARG(vmax), KBUF(r->waypoint), KBUF(r->speed), KBUF(r->leg),
                         KBUF(r->pause_end));
    else if (mp->model == MOBILITY_LINEAR) /* the direction (in WAYPOINT) and speed */
        rc = kernel_args(d, k, name, err, 6, KARG(end), KBUF(r->params), KARG(vmin),
                         KARG(vmax), KBUF(r->waypoint), KBUF(r->speed));
    else if (mp->model == MOBILITY_RANDOM_DIRECTION) /* leg 0, its phase in LEG, PAUSE_END */
        rc = kernel_args(d, k, name, err, 10, KARG(end), KBUF(r->params), KARG(vmin),
                         KARG(vmax), KARG(tmin), KARG(tmax), KBUF(r->waypoint), KBUF(r->speed),
                         KBUF(r->leg), KBUF(r->pause_end));
    else { /* grid_walk: to the nearest intersection, a speed and a first heading */
        cl_long s = mp->street_spacing_mm, xm = (cl_long)W / s * s, ym = (cl_long)H / s * s;
        rc = kernel_args(d, k, name, err, 11, KBUF(r->pos), KARG(end), KBUF(r->params),
                         KARG(s), KARG(xm), KARG(ym), KARG(vmin), KARG(vmax), KBUF(r->waypoint),
                         KBUF(r->speed), KBUF(r->leg));
    }
    if (!rc)
        rc = enqueue_1d_from(d, k, name, (size_t)seg->first, (size_t)(seg->end - seg->first),
                             r->ls_move, NULL, err);
    return rc;
}

/* [flood] drop_probability = uniform(a, b): each node's threshold, drawn on the device
 * (node_drop_init); every replica draws the same ones. */
static int draw_node_drops(flood_model *m, flood_replica *r, cn_error *err)
{
    device_ctx *d = r->dev;
    cl_kernel k = NULL;
    int rc = dbuf_alloc(d, &r->node_drop, (size_t)m->n * 8, &m->acc, "drop thresholds", err);
    if (!rc)
        rc = make_kernel(r, "flood.node_drop_init", &k, NULL, err);
    if (!rc) /* the law's bounds are in the parameter block */
        rc = kernel_args(d, k, "flood.node_drop_init", err, 2, KBUF(r->params),
                         KBUF(r->node_drop));
    if (!rc)
        rc = enqueue_1d(d, k, "flood.node_drop_init", m->n, r->ls_place, NULL, err);
    if (k)
        clReleaseKernel(k);
    return rc;
}

const dbuf *flood_node_drop_buffer(const flood_replica *r)
{
    /* under a constant probability the kernels never read it: any valid buffer will do */
    return r->node_drop.mem ? &r->node_drop : &r->pos;
}

/* move_groups' table: a row of SEG_WORDS longs per run of ids (cl/flood/flood.cl). */
static int write_segment_table(flood_model *m, flood_replica *r, cn_error *err)
{
    enum { WORDS = 12 };
    int64_t rows[SCENARIO_MAX_SEGMENTS][WORDS];
    for (int i = 0; i < m->n_segs; i++) {
        const mobility_params *mp = m->segs[i].mob;
        int64_t s = mp->street_spacing_mm > 0 ? mp->street_spacing_mm : 1;
        int64_t row[WORDS] = {m->segs[i].first, mp->model, mp->speed_min_mm_s,
                              mp->speed_max_mm_s, mp->pause_min_ms, mp->pause_max_ms,
                              mp->travel_min_ms, mp->travel_max_ms, s,
                              (int64_t)m->extent[0] / s * s, (int64_t)m->extent[1] / s * s,
                              mp->boundary};
        memcpy(rows[i], row, sizeof row);
    }
    size_t bytes = (size_t)m->n_segs * sizeof rows[0];
    int rc = dbuf_alloc(r->dev, &r->segtab, bytes, &m->acc, "mobility groups", err);
    if (!rc)
        rc = dbuf_write(r->dev, &r->segtab, 0, bytes, rows, 1, err);
    return rc;
}

/* Every replica places the nodes itself: the placement is a function of the seed, so the
 * copies are equal without any transfer. */
static int place_nodes(flood_model *m, flood_replica *r, cn_error *err)
{
    device_ctx *d = r->dev;
    const flood_values *sc = flood_values_of(&m->sc);
    int rc = dbuf_alloc(d, &r->pos, (size_t)m->n * 32, &m->acc, "positions", err);
    if (rc)
        return rc;
    /* each placement kernel reads its constants from the parameter block */
    rc = kernel_args(d, r->k_place, place_kernels[sc->placement], err, 2, KBUF(r->pos),
                     KBUF(r->params));
    if (!rc)
        rc = enqueue_1d(d, r->k_place, place_kernels[sc->placement], m->n, r->ls_place, NULL, err);
    if (rc || !m->mobile)
        return rc;

    rc = dbuf_alloc(d, &r->waypoint, (size_t)m->n * 32, &m->acc, "waypoints", err);
    if (!rc)
        rc = dbuf_alloc(d, &r->speed, (size_t)m->n * 8, &m->acc, "speeds", err);
    if (!rc)
        rc = dbuf_alloc(d, &r->leg, (size_t)m->n * 4, &m->acc, "legs", err);
    if (!rc)
        rc = dbuf_alloc(d, &r->pause_end, (size_t)m->n * 8, &m->acc, "pause ends", err);
    for (int i = 0; i < m->n_segs && !rc; i++)
        rc = mobility_init_run(m, r, &m->segs[i], err);
    if (!rc && m->n_moving > 1)
        rc = write_segment_table(m, r, err);
    r->moved = 0;
    r->ranked = -1;
    r->pre_window = -1;
    return rc;
}

/* The step of window WINDOW for the run of ids SEG, with its model's kernel K (set up as
 * flood_move's K_MOVE); *NARGS gets its own arguments' count (the ranks follow). */
static int move_run_args(flood_model *m, flood_replica *r, const mobility_segment *seg,
                         int64_t window, int *nargs, cn_error *err)
{
    /* the run's model, speeds, pauses and boundary are in the parameter block (params_mobility);
     * the window's start (or number) is the argument that changes */
    const mobility_params *mp = seg->mob;
    const char *name = mobility_move_kernel(mp->model);
    cl_long T = window * m->L;
    cl_uint end = (cl_uint)seg->end;
    if (mp->model == MOBILITY_GRID_WALK) {
        *nargs = 6;
        return kernel_args_cached(r->dev, r->k_move, &r->move_args, name, err, 0, 6,
                                  KBUF(r->pos), KARG(end), KBUF(r->params), KBUF(r->waypoint),
                                  KBUF(r->speed), KBUF(r->leg));
    }
    if (mp->model == MOBILITY_RANDOM_DIRECTION || mp->model == MOBILITY_RWP) {
        *nargs = 8;
        return kernel_args_cached(r->dev, r->k_move, &r->move_args, name, err, 0, 8,
                                  KBUF(r->pos), KARG(end), KBUF(r->params), KARG(T),
                                  KBUF(r->waypoint), KBUF(r->speed), KBUF(r->leg),
                                  KBUF(r->pause_end));
    }
    /* random_walk draws its step from the window number, modulo 2^32 (docs/models.md) */
    cl_uint w = (cl_uint)window;
    *nargs = 6;
    return kernel_args_cached(r->dev, r->k_move, &r->move_args, name, err, 0, 6, KBUF(r->pos),
                              KARG(end), KBUF(r->params), KARG(w), KBUF(r->waypoint),
                              KBUF(r->speed));
}

int flood_move(flood_model *m, flood_replica *r, int64_t window, cl_event *ev, cn_error *err)
{
    int rc, nargs = 11;
    const char *name = move_kernel_name(m);
    if (m->n_moving == 1) {
        rc = move_run_args(m, r, &m->segs[m->moving_seg], window, &nargs, err);
    } else {
        cl_long T = window * m->L;
        cl_uint w = (cl_uint)window, end = (cl_uint)m->move_end, nseg = (cl_uint)m->n_segs;
        rc = kernel_args_cached(r->dev, r->k_move, &r->move_args, name, err, 0, 11,
                                KBUF(r->pos), KARG(end), KBUF(r->params), KARG(T), KARG(w),
                                KBUF(r->segtab), KARG(nseg), KBUF(r->waypoint), KBUF(r->speed),
                                KBUF(r->leg), KBUF(r->pause_end));
    }
    /* the step ranks every node for its cell lists where they are built from ranks */
    int rank = m->rank_moves && r->cells.ranked;
    if (!rc)
        rc = cell_lists_rank_args(&r->cells, r->dev, r->k_move, &r->move_args, name, nargs, rank,
                                  err);
    if (!rc)
        rc = enqueue_1d_from(r->dev, r->k_move, name, (size_t)m->move_first,
                             (size_t)(m->move_end - m->move_first), r->ls_move, ev, err);
    if (!rc && rank)
        cell_lists_ranked_moved(&r->cells);
    if (!rc) {
        r->moved = window;
        r->ranked = rank ? window : -1;
    }
    return rc;
}

/* CSR neighbour lists of partition PART at the current positions: degrees, prefix sum, fill.
 * The cell lists must be built. */
int flood_build_csr(flood_model *m, flood_replica *r, uint32_t part, dbuf *offsets,
                    dbuf *neighbours, uint32_t *deg_sum, cn_error *err)
{
    /* activity areas: links that no distance test finds, in their one partition */
    if (flood_values_of(&m->sc)->placement == PLACEMENT_AREAS)
        return flood_areas_csr(m, r, offsets, neighbours, deg_sum, err);
    device_ctx *d = r->dev;
    cl_uint nparts = m->n_parts;
    dbuf degree = {0};
    int rc = dbuf_alloc(d, &degree, (size_t)m->n * 4, &m->acc, "degrees", err);
    if (!rc)
        rc = dbuf_alloc(d, offsets, ((size_t)m->n + 1) * 4, &m->acc, "neighbour offsets", err);
    if (!rc)
        rc = kernel_args(d, r->k_csr_count, "flood.csr_count", err, 9, KBUF(r->pos),
                         KBUF(r->params), KBUF(r->cells.start), KBUF(r->cells.nodes), KBUF(degree),
                         KBUF(r->part_of), KARG(part), KARG(nparts),
                         KBUF(*flood_cap_buffer(r)));
    if (!rc)
        rc = enqueue_1d(d, r->k_csr_count, "flood.csr_count", m->n, r->ls_csr, NULL, err);
    if (!rc)
        rc = scan_run(&r->node_scan, d, &degree, m->n, offsets, m->n + 1, NULL, err);
    /* The device sums degrees in 32 bits; the host sums them in 64 to refuse a graph whose
     * link count would wrap (the offsets would then be wrong). */
    uint64_t total = 0;
    uint32_t *deg = rc ? NULL : malloc((size_t)m->n * 4);
    if (!rc && !deg)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %u degrees", m->n);
    if (!rc)
        rc = dbuf_read(d, &degree, 0, (size_t)m->n * 4, deg, 1, err);
    for (uint32_t i = 0; !rc && i < m->n; i++) {
        total += deg[i];
        if (deg_sum)
            deg_sum[i] += deg[i];
    }
    free(deg);
    dbuf_release(&degree, &m->acc);
    if (rc)
        return rc;
    if (total > 0xffffffffu)
        return cn_fail(err, CN_ERR_INPUT, "the scenario has %llu directed links, more than the "
                       "2^32-1 the neighbour lists hold; lower the range or the density",
                       (unsigned long long)total);
    if (!rc)
        rc = dbuf_alloc(d, neighbours, total ? (size_t)total * 4 : 4, &m->acc, "neighbour lists",
                        err);
    if (!rc)
        rc = kernel_args(d, r->k_csr_fill, "flood.csr_fill", err, 10, KBUF(r->pos),
                         KBUF(r->params), KBUF(r->cells.start), KBUF(r->cells.nodes), KBUF(*offsets),
                         KBUF(*neighbours), KBUF(r->part_of), KARG(part), KARG(nparts),
                         KBUF(*flood_cap_buffer(r)));
    if (!rc)
        rc = enqueue_1d(d, r->k_csr_fill, "flood.csr_fill", m->n, r->ls_csr, NULL, err);
    return rc;
}

/* Splits the nodes into the scenario's partitions (tiles of their initial positions; mobile
 * nodes change tiles as they move, flood_retile.c), places them on the replicas in contiguous
 * blocks of tiles, and gives every replica each node's partition. */
static int make_partitions(flood_model *m, cn_error *err)
{
    /* By default one partition per device when the devices are of one kind. A CPU beside a
     * GPU is usually several times slower, and an equal split would leave the GPU waiting
     * for it: there the run keeps one partition, which the injector places on the device it
     * measures fastest (docs/injector.md). */
    int ranks = dist_size();
    m->n_parts = m->sc.partitions > 0 ? (uint32_t)m->sc.partitions
                                      : partition_default_count(m->n, m->all_mixed ? 1
                                                                                   : m->all_reps);
    /* several ranks: a partition for each at least (the window loop; whole packets keep
     * one, which every rank holds) */
    if (ranks > 1 && m->sc.partitions == 0 && m->n_parts < (uint32_t)ranks)
        m->n_parts = (uint32_t)ranks;
    /* Static scenarios flood whole packets, spread over the devices by packet, not by space
     * (flood_packets.c): one partition, unless the scenario asks for more. Node resources
     * are decided in one partition (the configuration refuses more). */
    if ((!m->mobile && m->sc.partitions == 0 && flood_packets_enabled() && !m->cap_live) ||
        m->resources)
        m->n_parts = 1;
    /* Activity areas keep one partition on any number of devices: their links between areas
     * join nodes 2 x range apart, beyond the reach a partition's tile is widened by (the
     * configuration refuses count > 1). */
    if (flood_values_of(&m->sc)->placement == PLACEMENT_AREAS)
        m->n_parts = 1;
    m->offsets = calloc(m->n_parts, sizeof *m->offsets);
    m->neighbours = calloc(m->n_parts, sizeof *m->neighbours);
    m->home = calloc(m->n_parts, sizeof *m->home);
    if (!m->offsets || !m->neighbours || !m->home)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %u partitions", m->n_parts);
    /* Partition p of P starts on device floor(p D / P) of the devices listed GPUs first: a
     * lone partition starts where it is likely fastest, and the injector only has to try the
     * CPUs, not to move the whole run to the GPU first. */
    int order[FLOOD_MAX_REPLICAS] = {0}, n_order = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < m->n_rep; d++)
            if (m->rep[d].cpu == pass)
                order[n_order++] = d;
    /* several ranks: this rank's contiguous range of them (whole packets: every rank holds
     * the one partition). With fewer partitions than ranks the ranks after the holders hold
     * none and take part in every window's exchange and agreement (flood_ranks.c). */
    int spread = m->ranked = ranks > 1 && !flood_packets_wanted(m);
    m->p_lo = spread ? (uint32_t)dist_range_first(dist_rank(), m->n_parts) : 0;
    m->p_hi = spread ? (uint32_t)dist_range_first(dist_rank() + 1, m->n_parts) : m->n_parts;
    if (spread) { /* every rank's range, which the coordinator moves (flood_balance.c) */
        int rc = flood_balance_init(m, err);
        if (rc)
            return rc;
    }
    uint64_t n_local = m->p_hi - m->p_lo;
    for (uint32_t p = 0; p < m->n_parts; p++)
        m->home[p] = p < m->p_lo || p >= m->p_hi
                         ? -1
                         : order[(uint64_t)(p - m->p_lo) * (uint64_t)m->n_rep / n_local];
    int rc = 0;
    if (m->n_parts == 1) { /* kernels never read it */
        for (int d = 0; d < m->n_rep && !rc; d++)
            rc = dbuf_alloc(m->rep[d].dev, &m->rep[d].part_of, 4, &m->acc, "partitions", err);
        return rc;
    }
    int64_t *xy = calloc((size_t)m->n * 2, sizeof *xy);
    cl_long *p = malloc((size_t)m->n * 32);
    m->part_host = malloc((size_t)m->n * sizeof *m->part_host);
    rc = xy && p && m->part_host ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    if (!rc)
        rc = dbuf_read(m->dev, &m->rep[0].pos, 0, (size_t)m->n * 32, p, 1, err);
    for (uint32_t i = 0; !rc && i < m->n; i++) {
        xy[2 * (size_t)i] = p[4 * (size_t)i];
        xy[2 * (size_t)i + 1] = p[4 * (size_t)i + 1];
    }
    /* mobile: tiles of the plane, which nodes join as they move (flood_retile.c) */
    if (!rc && m->mobile)
        rc = partition_make_cuts(xy, m->n, m->n_parts, &m->cuts, err);
    for (uint32_t i = 0; !rc && m->mobile && i < m->n; i++)
        m->part_host[i] = (uint16_t)partition_cut_tile(&m->cuts, xy[2 * (size_t)i],
                                                       xy[2 * (size_t)i + 1]);
    if (!rc && !m->mobile)
        rc = partition_tiles(xy, m->n, m->n_parts, m->part_host, err);
    if (!rc && !(m->box = malloc(m->n_parts * sizeof *m->box)))
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (uint32_t q = 0; !rc && q < m->n_parts; q++)
        for (int c = 0; c < 3; c++)
            m->box[q][0][c] = INT64_MAX, m->box[q][1][c] = INT64_MIN;
    for (uint32_t i = 0; !rc && i < m->n; i++) {
        int64_t (*b)[3] = m->box[m->part_host[i]];
        for (int c = 0; c < 3; c++) {
            int64_t v = p[4 * (size_t)i + (size_t)c];
            b[0][c] = v < b[0][c] ? v : b[0][c];
            b[1][c] = v > b[1][c] ? v : b[1][c];
        }
    }
    for (int d = 0; d < m->n_rep && !rc; d++) {
        flood_replica *r = &m->rep[d];
        rc = dbuf_alloc(r->dev, &r->part_of, (size_t)m->n * 2, &m->acc, "partitions", err);
        if (!rc)
            rc = dbuf_write(r->dev, &r->part_of, 0, (size_t)m->n * 2, m->part_host, 1, err);
    }
    free(xy);
    free(p);
    if (!rc)
        rc = flood_retile_setup(m, err);
    return rc;
}

/* Launch shapes and test overrides of replica R. */
static void choose_shapes(flood_model *m, flood_replica *r)
{
    device_ctx *d = r->dev;
    r->lcap = (uint32_t)(2 * r->ls_transmit);
    uint32_t lcap = env_u32("CLNETSIM_TEST_RELAY_BUFFER", r->lcap);
    if (lcap < r->lcap)
        r->lcap = lcap;
    /* GPUs: enough work-groups to fill every compute unit several times, the kernel striding
     * over any number of entries with them. CPUs: one work-group per slice of entries, the
     * kernel's loop then runs once (PoCL pays for barriers inside loops). */
    r->max_groups = r->cpu ? ((size_t)1 << 31) / (r->ls_transmit ? r->ls_transmit : 1)
                           : (size_t)d->info.compute_units * 8;
    if (r->max_groups < 8)
        r->max_groups = 8;
    uint64_t budget = d->info.max_alloc / 16;
    if (budget < m->lag_budget)
        m->lag_budget = budget;
}

/* The kernels read flood_params as OpenCL C lays it out: every member at a multiple of its
 * size, no hole the two compilers could fill apart; the first 88 bytes are the transmit and
 * whole-packet kernels' (flood_layout.clh says why they keep their offsets). */
_Static_assert(sizeof(flood_params) == FLOOD_PARAMS_BYTES, "flood_params: its size");
_Static_assert(offsetof(flood_params, L) == 0 && offsetof(flood_params, start) == 8 &&
                   offsetof(flood_params, interval) == 16 &&
                   offsetof(flood_params, duration) == 24,
               "flood_params: the times");
_Static_assert(offsetof(flood_params, drop_threshold) == 32 &&
                   offsetof(flood_params, rmin2) == 40 && offsetof(flood_params, link_thr) == 48,
               "flood_params: the thresholds");
_Static_assert(offsetof(flood_params, key_lo) == 56 && offsetof(flood_params, key_hi) == 60 &&
                   offsetof(flood_params, source) == 64 &&
                   offsetof(flood_params, destination) == 68 &&
                   offsetof(flood_params, ttl) == 72 && offsetof(flood_params, words) == 76 &&
                   offsetof(flood_params, nodes) == 80 && offsetof(flood_params, counter_c) == 84,
               "flood_params: the key, the traffic and the counts");
_Static_assert(offsetof(flood_params, near2) == 88 &&
                   offsetof(flood_params, drop_threshold_max) == 96 &&
                   offsetof(flood_params, range2) == 104,
               "flood_params: the other thresholds");
_Static_assert(offsetof(flood_params, width) == 112 && offsetof(flood_params, height) == 120 &&
                   offsetof(flood_params, depth) == 128 && offsetof(flood_params, side) == 136 &&
                   offsetof(flood_params, spacing) == 144 && offsetof(flood_params, pitch) == 152,
               "flood_params: the area, the cell grid and the placement");
_Static_assert(offsetof(flood_params, vmin) == 160 && offsetof(flood_params, vmax) == 168 &&
                   offsetof(flood_params, pmin_ms) == 176 &&
                   offsetof(flood_params, pmax_ms) == 184 &&
                   offsetof(flood_params, tmin_ms) == 192 &&
                   offsetof(flood_params, tmax_ms) == 200 &&
                   offsetof(flood_params, street) == 208 && offsetof(flood_params, xm) == 216 &&
                   offsetof(flood_params, ym) == 224,
               "flood_params: the moving run's mobility");
_Static_assert(offsetof(flood_params, energy_a) == 232 &&
                   offsetof(flood_params, energy_b) == 240,
               "flood_params: the energy budget");
_Static_assert(offsetof(flood_params, assess_a) == 248 && offsetof(flood_params, nx) == 252 &&
                   offsetof(flood_params, ny) == 256 && offsetof(flood_params, nz) == 260 &&
                   offsetof(flood_params, cols) == 264 && offsetof(flood_params, per_area) == 268 &&
                   offsetof(flood_params, policy) == 272 && offsetof(flood_params, fresh) == 276 &&
                   offsetof(flood_params, capacity_m) == 280 &&
                   offsetof(flood_params, energy_uniform) == 284,
               "flood_params: the other 32-bit members");

/* The moving run's mobility into P when one run of ids moves (its model's step kernel reads
 * it; move_groups reads its table, and the *_init kernels take each run's own values). */
static void params_mobility(const flood_model *m, flood_params *p)
{
    if (m->n_moving != 1)
        return;
    const mobility_params *mp = m->segs[m->moving_seg].mob;
    p->vmin = mp->speed_min_mm_s;
    p->vmax = mp->speed_max_mm_s;
    p->pmin_ms = mp->pause_min_ms;
    p->pmax_ms = mp->pause_max_ms;
    p->tmin_ms = mp->travel_min_ms;
    p->tmax_ms = mp->travel_max_ms;
    p->policy = (cl_uint)mp->boundary;
    p->fresh = mp->model == MOBILITY_RANDOM_WALK;
    if (mp->model == MOBILITY_GRID_WALK) { /* the last streets within the area */
        cl_long s = mp->street_spacing_mm;
        p->street = s;
        p->xm = (cl_long)p->width / s * s;
        p->ym = (cl_long)p->height / s * s;
    }
}

/* The parameter block of the scenario: every constant of the run that a flood kernel reads
 * (the values their positional arguments used to carry). */
static flood_params flood_params_of(const flood_model *m)
{
    const flood_values *sc = flood_values_of(&m->sc);
    flood_params p;
    memset(&p, 0, sizeof p);
    p.L = m->L;
    p.start = sc->start_ns;
    p.interval = sc->interval_ns;
    p.duration = m->sc.duration_ns;
    p.drop_threshold = sc->drop_threshold;
    p.drop_threshold_max = sc->drop_threshold_max;
    /* qudg: links beyond range_min are drawn per pair and window (docs/models.md) */
    p.rmin2 = (cl_ulong)sc->range_min_mm * (cl_ulong)sc->range_min_mm;
    p.link_thr = sc->link_threshold;
    p.range2 = (cl_ulong)sc->range_mm * (cl_ulong)sc->range_mm;
    p.near2 = (cl_ulong)sc->distance_threshold_mm * (cl_ulong)sc->distance_threshold_mm;
    p.width = m->extent[0];
    p.height = m->extent[1];
    p.depth = m->extent[2];
    p.side = m->grid.side;
    p.nx = m->grid.nx;
    p.ny = m->grid.ny;
    p.nz = m->grid.nz;
    p.spacing = sc->spacing_mm;
    if (sc->placement == PLACEMENT_AREAS) {
        p.pitch = flood_areas_pitch(&m->sc);
        p.per_area = (cl_uint)(sc->rows * sc->cols);
    }
    p.cols = (cl_uint)sc->cols;
    params_mobility(m, &p);
    if (m->energy) { /* without an energy model every budget is 0, and never read */
        p.energy_a = sc->energy_budget.a_nj;
        p.energy_b = sc->energy_budget.b_nj;
        p.energy_uniform = sc->energy_budget.law == LAW_UNIFORM;
    }
    p.key_lo = (cl_uint)m->sc.seed;
    p.key_hi = (cl_uint)(m->sc.seed >> 32);
    p.source = (cl_uint)sc->source;
    p.destination = (cl_uint)sc->destination;
    p.ttl = sc->ttl > 0xffffffffLL ? 0xffffffffu : (cl_uint)sc->ttl;
    p.words = m->words;
    p.nodes = m->n;
    /* the configuration bounds both below 2^31 */
    p.counter_c = (cl_uint)sc->counter_threshold;
    p.assess_a = (cl_uint)sc->assessment_windows;
    p.capacity_m = (cl_uint)sc->rx_capacity;
    return p;
}

/* Replica R's parameter block: a read-only buffer created with its contents, which never
 * change during a run (the window's start, which does, stays an argument), so no write is
 * ever queued. Made with clCreateBuffer rather than dbuf_alloc: its 288 bytes stay out of
 * the memory figures and of CLNETSIM_TEST_FAIL=alloc's count, which the results and the
 * tests give for the model's own buffers. */
static int write_params(const flood_model *m, flood_replica *r, cn_error *err)
{
    flood_params p = flood_params_of(m);
    cl_int st;
    r->params.mem = clCreateBuffer(r->dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   sizeof p, &p, &st);
    if (st != CL_SUCCESS) {
        r->params.mem = NULL;
        return cl_check(st, "clCreateBuffer(flood parameters)", r->dev->info.name, err);
    }
    r->params.bytes = sizeof p;
    return 0;
}

static int alloc_replica_packets(flood_model *m, flood_replica *r, cn_error *err)
{
    device_ctx *d = r->dev;
    uint32_t s = m->slots;
    size_t slot_bytes = (size_t)m->words * 4;
    uint32_t cap = env_u32("CLNETSIM_TEST_FRONTIER_CAPACITY", m->n / 8 > 256 ? m->n / 8 : 256);
    r->capacity[0] = r->capacity[1] = cap;
    r->counts_clean = 0; /* all zero at the start */
    r->exports_clean = 0;
    r->import_window = -1;
    r->x_window = -1;
    r->synced = 0;       /* window 0 starts with no relays on every replica */
    r->prepared = -1;
    r->binned = -1;
    r->held_version = -1;
    int rc = dbuf_alloc(d, &r->seen, s * slot_bytes, &m->acc, "seen bitsets", err);
    if (!rc)
        rc = dbuf_zero(d, &r->seen, 0, s * slot_bytes, err);
    if (!rc)
        rc = dbuf_alloc(d, &r->spill, s * slot_bytes, &m->acc, "spill bitsets", err);
    if (!rc)
        rc = dbuf_zero(d, &r->spill, 0, s * slot_bytes, err);
    if (!rc)
        rc = dbuf_alloc(d, &r->slot_packet, (size_t)s * 4, &m->acc, "slot packets", err);
    if (!rc && m->scheme_window)
        rc = dbuf_alloc(d, &r->scheme_state, s * flood_scheme_slot_bytes(m), &m->acc,
                        "scheme states", err);
    if (!rc && m->scheme_window)
        rc = dbuf_zero(d, &r->scheme_state, 0, s * flood_scheme_slot_bytes(m), err);
    if (!rc)
        rc = flood_scheme_alloc_pending(m, r, err);
    if (!rc)
        rc = dbuf_alloc(d, &r->ctl, ((size_t)CTL_WORDS + s) * 4, &m->acc, "counters", err);
    if (!rc)
        rc = dbuf_zero(d, &r->ctl, 0, ((size_t)CTL_WORDS + s) * 4, err);
    for (int b = 0; b < 2 && !rc; b++)
        rc = dbuf_alloc(d, &r->frontier[b], (size_t)cap * m->entry_bytes, &m->acc, "frontier",
                        err);
    if (!rc)
        rc = dbuf_alloc(d, &r->desc, 64 * 4, &m->acc, "window descriptors", err);
    if (!rc && m->flows)
        rc = flood_flow_buffers(m, r, err);
    if (!rc)
        rc = flood_readback_areas(m, r, err);
    return rc;
}

int flood_flow_buffers(flood_model *m, flood_replica *r, cn_error *err)
{
    device_ctx *d = r->dev;
    size_t s = m->slots, had = r->slot_time.bytes / 8;
    if (had > s)
        had = s;
    flood_forget_args(r);
    /* the tables keep their live slots' entries; the counts have all been read back */
    int rc = dbuf_grow(d, &r->slot_time, s * 8, had * 8, &m->acc, "slot times", err);
    if (!rc)
        rc = dbuf_grow(d, &r->slot_route, s * 8, had * 8, &m->acc, "slot routes", err);
    size_t dw = flood_deliv_words(m);
    if (!rc)
        rc = dbuf_grow(d, &r->deliv, 2 * s * 4 * dw, 0, &m->acc, "deliveries", err);
    if (!rc)
        rc = dbuf_zero(d, &r->deliv, 0, 2 * s * 4 * dw, err);
    r->deliv_clean = FLOOD_DELIV_ZERO;
    return rc;
}

/* The host's per-slot traffic arrays for S slots (entries from OLD on are new). */
static int traffic_slot_arrays(flood_model *m, uint32_t old, uint32_t s)
{
    int ok = 1;
    void **arrays[] = {(void **)&m->slot_time, (void **)&m->slot_src, (void **)&m->slot_dst,
                       (void **)&m->slot_flow, (void **)&m->slot_deliv, (void **)&m->slot_hops,
                       (void **)&m->slot_last_h, (void **)&m->slot_lat,
                       (void **)&m->slot_last_lat};
    size_t sizes[] = {8, 4, 4, 4, 8, 8, 8, sizeof *m->slot_lat, 8};
    int n = m->flows ? 9 : 1;
    for (int i = 0; i < n; i++) {
        void *q = realloc(*arrays[i], (size_t)s * sizes[i]);
        if (!q) {
            ok = 0;
            continue;
        }
        memset((char *)q + (size_t)old * sizes[i], 0, (size_t)(s - old) * sizes[i]);
        *arrays[i] = q;
    }
    return ok;
}

static int alloc_packets(flood_model *m, cn_error *err)
{
    uint32_t s = env_u32("CLNETSIM_TEST_SLOTS", 32);
    if (flood_values_of(&m->sc)->n_flows == 0 && (int64_t)s > flood_values_of(&m->sc)->packets)
        s = (uint32_t)flood_values_of(&m->sc)->packets;
    m->slots = s;
    /* Running a window ahead hides the read-back on devices with their own processors; on a
     * CPU device the host thread would only compete with the device's threads (measured in
     * docs/benchmarks.md). CLNETSIM_TEST_RUN_AHEAD=0|1 overrides, for the tests. */
    m->run_ahead_env = -1;
    m->replay_steps = env_u32("CLNETSIM_TEST_REPLAY_STEPS", FLOOD_REPLAY_STEPS);
    const char *ra = getenv("CLNETSIM_TEST_RUN_AHEAD");
    if (ra && (ra[0] == '0' || ra[0] == '1') && ra[1] == '\0')
        m->run_ahead_env = ra[0] - '0';
    /* the read-backs of up to FLOOD_READ_EVERY - 1 windows in a row deferred to the next
     * one's (flood_exchange.c); CLNETSIM_TEST_READ_EVERY=K reads every K-th window back */
    _Static_assert(FLOOD_MAX_DEFER == 2, "the message below names the values");
    const char *re = getenv("CLNETSIM_TEST_READ_EVERY");
    m->read_every = FLOOD_READ_EVERY;
    if (re && *re) {
        if (re[1] != '\0' || re[0] < '1' || re[0] > '0' + FLOOD_MAX_DEFER + 1)
            return cn_fail(err, CN_ERR_INPUT, "CLNETSIM_TEST_READ_EVERY='%s' is not 1, 2 or 3",
                           re);
        m->read_every = re[0] - '0';
    }
    m->n_deferred = 0;
    m->last_read = -1;
    m->planned = m->processed = -1;
    m->entries_window = -1;
    m->prep_window = -1;
    /* A frontier bound above this (entries) makes the loop read each window back instead:
     * 32 MiB per frontier buffer, or more for scenarios whose nodes alone need more. */
    m->lag_budget = (uint64_t)4 << 20;
    if ((uint64_t)m->n > m->lag_budget)
        m->lag_budget = m->n;
    for (int d = 0; d < m->n_rep; d++)
        choose_shapes(m, &m->rep[d]);
    int rc = 0;
    for (int d = 0; d < m->n_rep && !rc; d++)
        rc = alloc_replica_packets(m, &m->rep[d], err);
    if (rc)
        return rc;
    m->desc_cap[0] = m->desc_cap[1] = 64;
    m->slot_pkt = malloc((size_t)s * sizeof *m->slot_pkt);
    m->born_window = malloc((size_t)s * sizeof *m->born_window);
    m->free_slots = malloc((size_t)s * sizeof *m->free_slots);
    m->alive = calloc(s, sizeof *m->alive);
    m->tx_next = m->scheme_window ? calloc(s, 1) : NULL;
    m->desc_host[0] = malloc((size_t)64 * sizeof *m->desc_host[0]);
    m->desc_host[1] = malloc((size_t)64 * sizeof *m->desc_host[1]);
    m->dirty_slots = malloc((size_t)s * sizeof *m->dirty_slots);
    if (!m->slot_pkt || !m->born_window || !m->free_slots || !m->desc_host[0] ||
        !m->desc_host[1] || !m->dirty_slots || !m->alive || (m->scheme_window && !m->tx_next) ||
        !traffic_slot_arrays(m, 0, s))
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for packet slots");
    for (uint32_t i = 0; i < s; i++) {
        m->slot_pkt[i] = -1;
        m->free_slots[i] = s - 1 - i; /* lowest slot first */
    }
    m->n_free = s;
    return 0;
}

static int grow_replica_slots(flood_model *m, flood_replica *r, uint32_t old, cn_error *err)
{
    device_ctx *d = r->dev;
    uint32_t s = old * 2;
    size_t slot_bytes = (size_t)m->words * 4;
    flood_forget_args(r);
    int rc = dbuf_grow(d, &r->seen, s * slot_bytes, old * slot_bytes, &m->acc, "seen bitsets",
                       err);
    if (!rc) /* the new slots go straight to the free list: clear */
        rc = dbuf_zero(d, &r->seen, old * slot_bytes, (s - old) * slot_bytes, err);
    if (!rc)
        rc = dbuf_grow(d, &r->spill, s * slot_bytes, 0, &m->acc, "spill bitsets", err);
    if (!rc)
        rc = dbuf_zero(d, &r->spill, 0, s * slot_bytes, err);
    if (!rc)
        rc = dbuf_grow(d, &r->slot_packet, (size_t)s * 4, (size_t)old * 4, &m->acc,
                       "slot packets", err);
    size_t state_bytes = flood_scheme_slot_bytes(m);
    if (!rc && m->scheme_window) /* the states of the new slots start clear */
        rc = dbuf_grow(d, &r->scheme_state, s * state_bytes, old * state_bytes, &m->acc,
                       "scheme states", err);
    if (!rc && m->scheme_window)
        rc = dbuf_zero(d, &r->scheme_state, old * state_bytes, (s - old) * state_bytes, err);
    /* counters kept, liveness of the new slots cleared (a stale word could equal a stamp) */
    if (!rc)
        rc = dbuf_grow(d, &r->ctl, ((size_t)CTL_WORDS + s) * 4, ((size_t)CTL_WORDS + old) * 4,
                       &m->acc, "counters", err);
    if (!rc)
        rc = dbuf_zero(d, &r->ctl, ((size_t)CTL_WORDS + old) * 4, (size_t)(s - old) * 4, err);
    return rc;
}

static int grow_flow_buffers(flood_model *m, cn_error *err)
{
    int rc = 0;
    for (int d = 0; d < m->n_rep && !rc && m->flows; d++)
        rc = flood_flow_buffers(m, &m->rep[d], err);
    return rc;
}

/* Resizes host array ARR to N elements; on failure ARR is kept and OK cleared. */
#define GROW_ARRAY(arr, n, ok)                                                              \
    do {                                                                                    \
        void *q_ = realloc((arr), (size_t)(n) * sizeof *(arr));                             \
        if (q_)                                                                             \
            (arr) = q_;                                                                     \
        else                                                                                \
            (ok) = 0;                                                                       \
    } while (0)

/* More packets in flight than slots: double them. Called with no read-back pending (the caller
 * drained them), so the read-back areas can be remade. Seen bitsets and slot packets are copied;
 * spill bits are always clear between windows; liveness is only compared with the stamp of
 * the window under way, which no new slot can hold. */
int flood_grow_slots(flood_model *m, cn_error *err)
{
    uint32_t old = m->slots, s = old * 2;
    if (s <= old || s > (1u << 30))
        return cn_fail(err, CN_ERR_RUNTIME, "too many packets in flight (%u)", old);
    int rc = 0;
    for (int d = 0; d < m->n_rep && !rc; d++)
        rc = grow_replica_slots(m, &m->rep[d], old, err);
    if (rc)
        return rc;
    int ok = 1;
    GROW_ARRAY(m->slot_pkt, s, ok);
    GROW_ARRAY(m->born_window, s, ok);
    GROW_ARRAY(m->free_slots, s, ok);
    GROW_ARRAY(m->dirty_slots, s, ok);
    GROW_ARRAY(m->alive, s, ok);
    if (m->scheme_window)
        GROW_ARRAY(m->tx_next, s, ok);
    if (ok)
        ok = traffic_slot_arrays(m, old, s);
    if (!ok)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for packet slots");
    for (uint32_t i = old; i < s; i++) {
        m->slot_pkt[i] = -1;
        if (m->scheme_window)
            m->tx_next[i] = 0;
    }
    for (uint32_t i = s; i > old; i--)
        m->free_slots[m->n_free++] = i - 1;
    m->slots = s;
    rc = grow_flow_buffers(m, err);
    for (int d = 0; d < m->n_rep && !rc; d++) /* (they start over, from every pair) */
        rc = flood_scheme_alloc_pending(m, &m->rep[d], err);
    for (int d = 0; d < m->n_rep && !rc; d++)
        rc = flood_readback_areas(m, &m->rep[d], err);
    return rc;
}

static void area_extent(flood_model *m)
{
    const flood_values *sc = flood_values_of(&m->sc);
    if (sc->placement == PLACEMENT_AREAS) { /* static: the row of areas */
        m->extent[0] = (uint64_t)((sc->areas - 1) * flood_areas_pitch(&m->sc) +
                                  (sc->cols - 1) * sc->spacing_mm);
        m->extent[1] = (uint64_t)((sc->rows - 1) * sc->spacing_mm);
        m->extent[2] = 0;
    } else if (sc->placement == PLACEMENT_GRID) {
        m->extent[0] = (uint64_t)((sc->cols - 1) * sc->spacing_mm);
        m->extent[1] = (uint64_t)((sc->rows - 1) * sc->spacing_mm);
        m->extent[2] = 0;
        if (m->mobile) { /* waypoints are drawn in the mobility area */
            m->extent[0] = (uint64_t)sc->width_mm;
            m->extent[1] = (uint64_t)sc->height_mm;
            m->extent[2] = (uint64_t)sc->depth_mm;
        }
    } else {
        m->extent[0] = (uint64_t)sc->width_mm;
        m->extent[1] = (uint64_t)sc->height_mm;
        m->extent[2] = (uint64_t)sc->depth_mm;
    }
}

/* Where one launch moves every node and the cell lists hold them all, the steps rank the
 * nodes and the lists are built from the ranks (host/engine/cell_lists.h): on the replicas
 * whose device takes ranked builds of this grid (the others count, as before). */
static int ranked_lists(flood_model *m, cn_error *err)
{
    m->rank_moves = m->mobile && m->move_first == 0 && m->move_end == (int64_t)m->n &&
                    !flood_lists_filtered(m);
    /* the hook CLNETSIM_TEST_CELLS_RANKED is checked on every run, whether or not it ranks */
    uint32_t most = 0;
    int rc = m->n_rep > 0 ? cell_lists_ranked_cells(m->rep[0].dev, &most, NULL, err) : 0;
    for (int d = 0; d < m->n_rep && m->rank_moves && !rc; d++)
        rc = cell_lists_ranked_init(&m->rep[d].cells, m->rep[d].dev, m->rep[d].prog, &m->acc,
                                    err);
    return rc;
}

/* Static scenarios: cell lists on every replica (a migration rebuilds nothing, but the test
 * hooks read them), each partition's lists on its home, and the degree bound. */
static int build_static_lists(flood_model *m, cn_error *err)
{
    int rc = 0;
    for (int d = 0; d < m->n_rep && !rc; d++) {
        cl_event evs[4];
        int n_evs = 0;
        rc = cell_lists_build(&m->rep[d].cells, m->rep[d].dev, &m->rep[d].pos, NULL, evs,
                              &n_evs, err);
        for (int i = 0; i < n_evs; i++)
            if (evs[i])
                clReleaseEvent(evs[i]);
        /* the cap of a graph that never changes: the lists are capped once (flood_cap.c) */
        if (!rc && m->cap && !m->cap_live)
            rc = flood_cap_select(m, &m->rep[d], 0, NULL, err);
    }
    /* The degree bound is over all partitions: a transmitter's relays in every partition
     * together. */
    uint32_t *deg = calloc(m->n, sizeof *deg);
    if (!rc && !deg)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %u degrees", m->n);
    for (uint32_t p = m->p_lo; !rc && p < m->p_hi; p++)
        rc = flood_build_csr(m, &m->rep[m->home[p]], p, &m->offsets[p], &m->neighbours[p], deg,
                             err);
    for (uint32_t i = 0; !rc && i < m->n; i++)
        m->max_degree = deg[i] > m->max_degree ? deg[i] : m->max_degree;
    free(deg);
    return rc;
}

int flood_create(struct model_state **out, const scenario *scn, device_ctx *const *devs,
                 int n_devs, cn_error *err)
{
    const flood_values *sc = flood_values_of(scn);
    flood_model *m = calloc(1, sizeof *m);
    if (!m)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    *out = (struct model_state *)(void *)m;
    m->sc = *scn;
    if (n_devs < 1 || n_devs > FLOOD_MAX_REPLICAS)
        return cn_fail(err, CN_ERR_INPUT, "the flood model runs on 1 to %d devices, not %d",
                       FLOOD_MAX_REPLICAS, n_devs);
    m->n_rep = n_devs;
    int has_cpu = 0, has_gpu = 0;
    for (int d = 0; d < n_devs; d++) {
        m->rep[d].dev = devs[d];
        m->rep[d].cpu = (devs[d]->info.type & CL_DEVICE_TYPE_CPU) != 0;
        has_cpu |= m->rep[d].cpu;
        has_gpu |= !m->rep[d].cpu;
    }
    /* the partitions' count is the run's, whatever the ranks: every rank's devices count
     * (a collective: every rank comes here, past the same checks of the same scenario) */
    int64_t all[3] = {n_devs, has_cpu, has_gpu};
    if (dist_size() > 1) {
        const dist_op how[3] = {DIST_SUM, DIST_MAX, DIST_MAX};
        int arc = dist_allreduce_each(all, how, 3, err);
        if (arc)
            return arc;
    }
    m->all_reps = (int)all[0];
    m->all_mixed = all[1] && all[2];
    m->dev = devs[0];
    int64_t n = flood_node_count(sc);
    if (n < 1 || n > (int64_t)0x7fffffff)
        return cn_fail(err, CN_ERR_INPUT, "the flood model runs 1 to 2^31-1 nodes, not %lld",
                       (long long)n);
    m->n = (uint32_t)n;
    m->words = (m->n + 31) / 32;
    mobility_plan(m);
    m->cap = (uint32_t)sc->max_neighbors;
    m->cap_live = m->cap && (m->mobile || sc->connectivity == CONNECTIVITY_QUDG);
    m->retile = scn->retile;
    m->retile_queued = m->retile_in_rb = -1;
    /* CLNETSIM_TEST_RECORDS=K: room for K moved-node records at first, and K read with the
     * counters each time (the paths that read the rest and gather again) */
    m->record_test = env_u32("CLNETSIM_TEST_RECORDS", 0);
    m->L = sc->relay_delay_ns;
    area_extent(m);
    m->scheme = sc->scheme != SCHEME_PROBABILISTIC;
    /* under a scheme a frontier entry carries its hop count (cl/flood/flood.cl, entry_t) */
    m->entry_bytes = m->scheme ? 16 : 8;
    /* the border relays between devices go through the core's exchange, whose records are
     * frontier entries; it holds nothing on a device until a border is exported */
    exchange_window_sink sink = {.ctx = m, .make_room = flood_make_room};
    int xrc = exchange_window_init(&m->xw, m->entry_bytes, devs, n_devs, &m->acc, sink, err);
    if (xrc)
        return xrc;
    m->resources = flood_has_resources(sc);
    m->energy = flood_has_energy(sc);
    int rc = flood_traffic_setup(m, err);
    if (rc)
        return rc;
    int64_t ext[3];
    /* The cell grid covers every position a node can take: placements and waypoints. */
    ext[0] = (int64_t)m->extent[0];
    ext[1] = (int64_t)m->extent[1];
    ext[2] = (int64_t)m->extent[2];
    if (sc->placement == PLACEMENT_GRID) {
        if ((sc->cols - 1) * sc->spacing_mm > ext[0])
            ext[0] = (sc->cols - 1) * sc->spacing_mm;
        if ((sc->rows - 1) * sc->spacing_mm > ext[1])
            ext[1] = (sc->rows - 1) * sc->spacing_mm;
    }
    rc = cell_grid_choose(&m->grid, ext, sc->range_mm, m->n, err);
    /* a scenario too large for a device is refused before anything is allocated */
    if (!rc)
        rc = flood_memory_check(m, err);
    for (int d = 0; d < n_devs && !rc; d++) {
        flood_replica *r = &m->rep[d];
        r->capped = -1;
        uint32_t limit = 0;
        rc = device_loop_limit(r->dev, &limit, err);
        m->loops_limited |= limit != 0;
        if (!rc)
            rc = create_kernels(m, r, err);
        if (!rc)
            rc = write_params(m, r, err);
        if (!rc)
            rc = place_nodes(m, r, err);
        if (!rc && flood_values_of(&m->sc)->drop.law == LAW_UNIFORM)
            rc = draw_node_drops(m, r, err);
        if (!rc)
            rc = cell_lists_init(&r->cells, r->dev, r->prog, &m->grid, m->n, &m->acc, err);
        if (!rc)
            rc = scan_init(&r->node_scan, r->dev, r->prog, (size_t)m->n + 1, &m->acc, err);
    }
    if (!rc)
        rc = make_partitions(m, err);
    if (!rc)
        rc = ranked_lists(m, err);
    /* counter and distance flood whole packets where whole packets run (static scenarios in
     * one partition, flood_packets_scheme), and run in the window loop everywhere else
     * (flood_scheme.c) */
    if (!rc)
        m->scheme_window = m->scheme && !flood_packets_wanted(m);
    if (!rc)
        rc = flood_fuse_setup(m, err);
    if (!rc && !m->mobile)
        rc = build_static_lists(m, err);
    if (!rc && m->cap)
        rc = flood_cap_count(m, err);
    if (!rc)
        rc = alloc_packets(m, err);
    if (!rc && m->resources)
        rc = flood_resources_setup(m, err);
    if (!rc && (m->whole = flood_packets_wanted(m)) != 0)
        rc = flood_packets_setup(m, err);
    if (!rc)
        rc = flood_ranks_init(m, err);
    for (int d = 0; d < n_devs && !rc; d++)
        rc = cl_check(clFinish(m->rep[d].dev->queue), "clFinish", m->rep[d].dev->info.name,
                      err);
    return rc;
}

static void destroy_replica(flood_model *m, flood_replica *r)
{
    flood_resources_free(m, r);
    flood_premove_release(r);
    flood_release_export_areas(r);
    dbuf_release(&r->params, NULL); /* (not counted: write_params) */
    dbuf *bufs[] = {&r->pos, &r->waypoint, &r->speed, &r->leg, &r->pause_end, &r->segtab,
                    &r->part_of, &r->cap_thr, &r->node_drop, &r->slot_time,
                    &r->slot_route, &r->deliv, &r->scheme_state, &r->pend,
                    &r->seen, &r->spill, &r->slot_packet, &r->ctl, &r->desc,
                    &r->frontier[0], &r->frontier[1],
                    &r->boxes, &r->xboxes, &r->cuts, &r->held, &r->leaving, &r->records};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        dbuf_release(bufs[i], &m->acc);
    cell_lists_free(&r->cells, &m->acc);
    scan_free(&r->node_scan, &m->acc);
    for (int i = 0; i < 6; i++)
        if (r->k_init[i])
            clReleaseKernel(r->k_init[i]);
    cl_kernel ks[] = {r->k_place, r->k_move, r->k_csr_count, r->k_csr_fill,
                      r->k_transmit, r->k_gather, r->k_export, r->k_retile,
                      r->k_gather_moved, r->k_scatter_moved, r->k_stamp, r->k_cap_select,
                      r->k_cap_count, r->k_decide};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (ks[i])
            clReleaseKernel(ks[i]);
    if (r->prog)
        clReleaseProgram(r->prog);
    release_pinned(r);
    free(r->box_host);
    free(r->xbox_host);
    free(r->held_host);
}

void flood_destroy(struct model_state *state)
{
    flood_model *m = flood_of(state);
    if (!m)
        return;
    /* A run that failed may have left commands queued that read host arrays freed below (the
     * non-blocking writes of descriptors and round tables): they finish first. Errors are
     * ignored: a lost device has nothing left to finish. */
    for (int d = 0; d < m->n_rep; d++)
        if (m->rep[d].dev && m->rep[d].dev->queue)
            (void)clFinish(m->rep[d].dev->queue);
    for (uint32_t p = 0; p < m->n_parts && m->offsets && m->neighbours; p++) {
        dbuf_release(&m->offsets[p], &m->acc);
        dbuf_release(&m->neighbours[p], &m->acc);
    }
    free(m->offsets);
    free(m->neighbours);
    free(m->home);
    free(m->rank_weight);
    free(m->rank_first);
    free(m->rank_records);
    free(m->share_at);
    free(m->part_host);
    free(m->box);
    partition_cuts_free(&m->cuts);
    for (int b = 0; b < 2; b++)
        for (int d = 0; d < m->rb[b].n_dev; d++)
            if (m->rb[b].ev[d])
                clReleaseEvent(m->rb[b].ev[d]);
    flood_release_entries(m); /* before the replicas: it may wait for their queues */
    if (m->n_rep > 0)
        flood_packets_free(m);
    exchange_window_release(&m->xw); /* it waits for the writes from its stages */
    for (int d = 0; d < m->n_rep; d++)
        flood_release_export_areas(&m->rep[d]);
    for (int d = 0; d < m->n_rep; d++)
        destroy_replica(m, &m->rep[d]);
    flood_traffic_free(m);
    free(m->slot_pkt);
    free(m->born_window);
    free(m->free_slots);
    free(m->alive);
    free(m->tx_next);
    free(m->desc_host[0]);
    free(m->desc_host[1]);
    free(m->dirty_slots);
    free(m);
}

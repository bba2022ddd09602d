/* The next window's mobility step fused into this window's transmit_mobile launch
 * (cl/flood/flood.cl, TRANSMIT_STEP_ARGS). A moving window on a GPU is a chain of launches
 * each too small to fill the device: the step (about 7 us on an H100 for mobile_flood), the
 * cell lists and the transmit (about 30 us, a fraction of the device busy). The step of window
 * w + 1 needs nothing from the transmit of window w, so the launch that transmits window w
 * gives its first work-groups to the step, which then runs beside the transmit instead of
 * after it; the cell lists of w + 1 follow in one launch (cells.scatter_ranked).
 *
 * The step must not write the positions that the transmit reads in the same launch, so it
 * moves a second array of them, POS_NEXT, which equals POS whenever a step starts: every
 * ranked build copies one into the other (cell_lists_build_ranked), POS to POS_NEXT after a
 * step of its own launch, POS_NEXT to POS after a fused one. A window is fused only when the
 * arrays are known equal (R->TWIN) and its lists came from that window's ranks; every other
 * window steps as before, and no result depends on which launch moved the nodes. */
#include <stdlib.h>
#include <string.h>

#include "models/flood/flood_model.h"

/* FLOOD_STEP's code of the window's step kernel (flood_setup.c's choice of kernel). */
static int step_code(const flood_model *m)
{
    if (m->n_moving != 1)
        return 5;
    int model = m->segs[m->moving_seg].mob->model;
    return model == MOBILITY_RWP                ? 1
         : model == MOBILITY_RANDOM_DIRECTION   ? 3
         : model == MOBILITY_GRID_WALK          ? 4
                                                : 2;
}

/* Whether R's device fuses: the test hook CLNETSIM_TEST_FUSE_STEP=0|1 when set, else the
 * platform profile's [kernel] flood.transmit_mobile_step (1 on NVIDIA, 0 elsewhere). */
#define FUSE_KEY "flood.transmit_mobile_step"
static int fuse_wanted(const device_ctx *dev, int *out, cn_error *err)
{
    const char *v = getenv("CLNETSIM_TEST_FUSE_STEP");
    if (v && *v) {
        if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
            return cn_fail(err, CN_ERR_INPUT, "CLNETSIM_TEST_FUSE_STEP='%s' is not 0 or 1", v);
        *out = v[0] == '1';
        return 0;
    }
    /* 0 or 1: the profile's reader bounds the key (device_profile.c) */
    *out = platform_profile_choice(&dev->profile, FUSE_KEY, 0) == 1;
    return 0;
}

int flood_lists_may_rank(const flood_model *m, const device_ctx *dev)
{
    uint32_t most = 0;
    cn_error ignored = {0};
    int64_t parts = m->sc.partitions > 1 ? m->sc.partitions : 1;
    return m->mobile && m->move_first == 0 && m->move_end == (int64_t)m->n &&
           (parts == 1 || m->cap) && cell_lists_ranked_cells(dev, &most, NULL, &ignored) == 0 &&
           m->grid.n_cells <= most;
}

/* Lists from ranks in one partition without a cap, one device (the step of w + 1 then surely
 * runs where window w transmits), no node resources and no forwarding scheme (their kernels
 * read the positions). */
static int fuse_fits(const flood_model *m, const device_ctx *dev)
{
    return flood_lists_may_rank(m, dev) && m->sc.partitions <= 1 && !m->cap && m->n_rep == 1 &&
           !m->resources && !m->scheme;
}

int flood_fuse_possible(const flood_model *m, const device_ctx *dev)
{
    int want = 0;
    cn_error ignored = {0};
    return fuse_fits(m, dev) && fuse_wanted(dev, &want, &ignored) == 0 && want;
}

int flood_fuse_code(flood_model *m, flood_replica *r, int *code, cn_error *err)
{
    *code = 0;
    if (!m->mobile)
        return 0;
    /* the hook is checked on every moving run, whether or not this one could fuse */
    int want = 0;
    int rc = fuse_wanted(r->dev, &want, err);
    if (!rc && want && fuse_fits(m, r->dev))
        *code = step_code(m);
    return rc;
}

int flood_fuse_setup(flood_model *m, cn_error *err)
{
    flood_replica *r = &m->rep[0];
    m->fuse = r->fuse_code != 0 && m->rank_moves && r->cells.ranked && m->n_parts == 1 &&
              !m->cap && !m->scheme_window;
    r->twin = -1;
    r->fused = -1;
    if (!m->fuse)
        return 0;
    return dbuf_alloc(r->dev, &r->pos_next, (size_t)m->n * 32, &m->acc, "next positions", err);
}

/* transmit_mobile's step arguments from index FIRST: the step of window W + 1 when FUSE, else
 * placeholders and no step group (any buffer will do: the kernel reads none). */
static int step_args(flood_model *m, flood_replica *r, int first, int64_t w, int fuse,
                     cl_uint groups, cn_error *err)
{
    const char *name = "flood.transmit_mobile";
    /* without a step the window's values stay 0, so the cached arguments are not set again */
    int64_t next = fuse ? w + 1 : 0;
    cl_long T = next * m->L;
    cl_uint window = (cl_uint)next, n = m->n, nseg = (cl_uint)m->n_segs;
    const dbuf *any = &r->pos;
    const dbuf *moved = fuse ? &r->pos_next : any;
    const dbuf *seg = m->n_moving > 1 && r->segtab.mem ? &r->segtab : any;
    const dbuf *wp = r->waypoint.mem ? &r->waypoint : any, *sp = r->speed.mem ? &r->speed : any;
    const dbuf *leg = r->leg.mem ? &r->leg : any, *pe = r->pause_end.mem ? &r->pause_end : any;
    int rc = kernel_args_cached(r->dev, r->k_transmit, &r->transmit_args, name, err, first, 11,
                                KARG(groups), KBUF(*moved), KARG(n), KARG(T), KARG(window),
                                KBUF(*seg), KARG(nseg), KBUF(*wp), KBUF(*sp), KBUF(*leg),
                                KBUF(*pe));
    if (!rc)
        rc = cell_lists_rank_args(&r->cells, r->dev, r->k_transmit, &r->transmit_args, name,
                                  first + 11, fuse, err);
    return rc;
}

int flood_fuse_args(flood_model *m, flood_replica *r, int first, int64_t w, size_t ls,
                    size_t *step_groups, cn_error *err)
{
    /* this window's lists came from its own step's ranks, and the two arrays are equal */
    int fuse = m->fuse && r == &m->rep[0] && r->moved == w && r->ranked == w &&
               r->binned == w && r->twin == w;
    cl_uint groups = fuse ? (cl_uint)((m->n + ls - 1) / ls) : 0;
    *step_groups = groups;
    if (!m->mobile)
        return 0;
    return step_args(m, r, first, w, fuse, groups, err);
}

void flood_fuse_launched(flood_model *m, flood_replica *r, int64_t w)
{
    (void)m;
    cell_lists_ranked_moved(&r->cells);
    r->moved = r->ranked = r->fused = w + 1;
}

int flood_fuse_build(flood_model *m, flood_replica *r, int64_t w, cl_event *evs, int *n_evs,
                     cn_error *err)
{
    dbuf *from = NULL, *to = NULL;
    if (m->fuse && r == &m->rep[0]) {
        /* after a fused step POS_NEXT holds the positions; else the step moved POS */
        from = r->fused == w ? &r->pos_next : &r->pos;
        to = r->fused == w ? &r->pos : &r->pos_next;
    }
    int rc = cell_lists_build_ranked(&r->cells, r->dev, &r->pos, from, to, evs, n_evs, err);
    r->twin = !rc && from ? w : -1;
    return rc;
}

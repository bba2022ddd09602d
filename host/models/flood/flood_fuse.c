/* The next window's mobility step fused into this window's transmit_mobile launch
 * (cl/flood/flood.cl, TRANSMIT_STEP_ARGS), and cell lists with no launch of their own. A
 * moving window on a GPU is a chain of launches each too small to fill the device: the step
 * (about 7 us on an H100 for mobile_flood), the cell lists and the transmit (about 30 us, a
 * fraction of the device busy). The step of window w + 1 needs nothing from the transmit of
 * window w, so the launch that transmits window w gives its first work-groups to it, which
 * then runs beside the transmit instead of after it.
 *
 * The lists are fixed cells (host/engine/cell_lists.h, cl/common/cells.clh): every ranking,
 * the fused step's or any other, writes them, so that a window is one launch and its
 * read-back. The transmit reads the nodes' positions only from the lists, never from POS,
 * so the step moves POS in place: no work-item of the launch reads what another writes. A
 * window fuses when its lists came from the ranking of its own positions; every other
 * window steps in its own launch (which ranks as well), or ranks positions that no step
 * moved (the first window, a checkpoint's), and no result depends on which launch moved or
 * ranked the nodes. */
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
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

/* Whether a run of N nodes fuses on DEV: the test hook CLNETSIM_TEST_FUSE_STEP=0|1 when set
 * (whatever N), else the platform profile's [kernel] flood.transmit_mobile_step (1 on NVIDIA,
 * 0 elsewhere) up to its flood.transmit_mobile_step_nodes (absent: any N). */
#define FUSE_KEY "flood.transmit_mobile_step"
#define FUSE_NODES_KEY "flood.transmit_mobile_step_nodes"
static int fuse_wanted(const device_ctx *dev, uint32_t n, int *out, cn_error *err)
{
    const char *v = getenv("CLNETSIM_TEST_FUSE_STEP");
    if (v && *v) {
        if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
            return cn_fail(err, CN_ERR_INPUT, "CLNETSIM_TEST_FUSE_STEP='%s' is not 0 or 1", v);
        *out = v[0] == '1';
        return 0;
    }
    /* 0 or 1, and a whole number: the profile's reader bounds the keys (device_profile.c) */
    long most = platform_profile_choice(&dev->profile, FUSE_NODES_KEY, -1);
    *out = platform_profile_choice(&dev->profile, FUSE_KEY, 0) == 1 &&
           (most < 0 || (long)n <= most);
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

/* Lists from ranks in one partition without a cap, one device and one process (the step of
 * w + 1 then surely runs where window w transmits; over several ranks the window loop has a
 * partition a rank at least), no node resources and no forwarding scheme (their kernels read
 * the positions). */
static int fuse_fits(const flood_model *m, const device_ctx *dev)
{
    return flood_lists_may_rank(m, dev) && m->sc.partitions <= 1 && !m->cap && m->n_rep == 1 &&
           dist_size() == 1 && !m->resources && !m->scheme;
}

int flood_fuse_possible(const flood_model *m, const device_ctx *dev)
{
    int want = 0;
    cn_error ignored = {0};
    return fuse_fits(m, dev) && fuse_wanted(dev, m->n, &want, &ignored) == 0 && want;
}

int flood_fuse_code(flood_model *m, flood_replica *r, int *code, cn_error *err)
{
    *code = 0;
    if (!m->mobile)
        return 0;
    /* the hooks are checked on every moving run, whether or not this one could fuse */
    int want = 0;
    uint32_t cap = 0;
    int rc = fuse_wanted(r->dev, m->n, &want, err);
    if (!rc)
        rc = cell_lists_fixed_capacity(m->n, 1, &cap, err);
    if (!rc && want && fuse_fits(m, r->dev))
        *code = step_code(m);
    return rc;
}

int flood_fuse_setup(flood_model *m, cn_error *err)
{
    flood_replica *r = &m->rep[0];
    m->fuse = r->fuse_code != 0 && m->rank_moves && m->n_parts == 1 && !m->cap &&
              !m->scheme_window;
    /* the program's transmit reads fixed cells (FLOOD_FIXED) wherever it was built to step */
    if (r->fuse_code != 0 && !m->fuse)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: transmit_mobile was built for a "
                       "fused step that this run cannot take on device '%s'", r->dev->info.name);
    if (!m->fuse)
        return 0;
    uint32_t cap = 0;
    int rc = cell_lists_fixed_capacity(m->n, m->grid.n_cells, &cap, err);
    if (!rc)
        rc = cell_lists_fixed_init(&r->cells, r->dev, r->prog, cap, &m->acc, err);
    return rc;
}

/* transmit_mobile's step arguments from index FIRST: the step of window W + 1 when FUSE, else
 * placeholders and no step group (any buffer will do: the kernel reads none). The ranks'
 * arguments are real whenever the windows may fuse: the transmit reads its lists there. */
static int step_args(flood_model *m, flood_replica *r, int first, int64_t w, int fuse,
                     cl_uint groups, cn_error *err)
{
    const char *name = "flood.transmit_mobile";
    /* without a step the window's values stay 0, so the cached arguments are not set again */
    int64_t next = fuse ? w + 1 : 0;
    cl_long T = next * m->L;
    cl_uint window = (cl_uint)next, n = m->n, nseg = (cl_uint)m->n_segs;
    const dbuf *any = &r->pos;
    const dbuf *seg = m->n_moving > 1 && r->segtab.mem ? &r->segtab : any;
    const dbuf *wp = r->waypoint.mem ? &r->waypoint : any, *sp = r->speed.mem ? &r->speed : any;
    const dbuf *leg = r->leg.mem ? &r->leg : any, *pe = r->pause_end.mem ? &r->pause_end : any;
    int rc = kernel_args_cached(r->dev, r->k_transmit, &r->transmit_args, name, err, first, 11,
                                KARG(groups), KBUF(r->pos), KARG(n), KARG(T), KARG(window),
                                KBUF(*seg), KARG(nseg), KBUF(*wp), KBUF(*sp), KBUF(*leg),
                                KBUF(*pe));
    if (!rc)
        rc = cell_lists_rank_args(&r->cells, r->dev, r->k_transmit, &r->transmit_args, name,
                                  first + 11, m->fuse && r == &m->rep[0], err);
    return rc;
}

int flood_fuse_args(flood_model *m, flood_replica *r, int first, int64_t w, size_t ls,
                    size_t *step_groups, cn_error *err)
{
    /* this window's lists are the last ranking's, of this window's positions */
    int fuse = m->fuse && r == &m->rep[0] && r->moved == w && r->ranked == w && r->binned == w;
    cl_uint groups = fuse ? (cl_uint)((m->n + ls - 1) / ls) : 0;
    *step_groups = groups;
    if (!m->mobile)
        return 0;
    return step_args(m, r, first, w, fuse, groups, err);
}

int flood_fuse_launched(flood_model *m, flood_replica *r, int64_t w, cn_error *err)
{
    (void)m;
    cell_lists_ranked_moved(&r->cells);
    r->moved = r->ranked = r->binned = w + 1;
    /* CLNETSIM_TEST_CELLS_RANKED=check: the lists the step wrote, against a counted build */
    return cell_lists_fixed_check(&r->cells, r->dev, &r->pos, err);
}

int flood_fixed_bin(flood_model *m, flood_replica *r, int64_t w, cl_event *evs, int *n_evs,
                    cn_error *err)
{
    (void)m;
    int rc = 0;
    /* a step that ranked as it moved to W wrote the lists; else rank where the nodes are */
    if (r->ranked != w || r->moved != w)
        rc = cell_lists_rank_positions(&r->cells, r->dev, &r->pos, evs, n_evs, err);
    if (!rc)
        r->ranked = w;
    if (!rc)
        rc = cell_lists_fixed_check(&r->cells, r->dev, &r->pos, err);
    return rc;
}

/* Flood model: the neighbour cap ([connectivity] max_neighbors, docs/models.md).
 *
 * Node i ranks its links of a window by (squared distance, id) and keeps the first K; a link
 * survives when both ends keep it. cap_select (cl/flood/flood.cl) gives every node the key of its
 * K-th link, its threshold, after which the test of one link reads two thresholds.
 *   - udg, static: the graph never changes, so the thresholds of window 0 filter the CSR lists
 *     once (csr_count, csr_fill) and every flooding path reads capped lists.
 *   - qudg or mobile: the graph changes with the window, so each replica computes the
 *     thresholds of every window it transmits in, after its cell lists (flood_catch_up, or
 *     run_transmit for static qudg), and the transmit kernels test each link. Their cell lists
 *     then hold every node, with several partitions too: a threshold needs all of a node's
 *     links, not only those into the partitions a device holds. */
#include <stdlib.h>

#include "models/flood/flood_model.h"

/* The arguments cap_select and cap_count share (0 to 4): positions, the parameter block
 * (range, cell grid, key, qudg's constants), the cell lists of R and the graph's window W
 * (qudg draws its links with the window number modulo 2^32). */
static int graph_args(flood_replica *r, cl_kernel k, const char *name, int64_t w, cn_error *err)
{
    cl_uint win = (cl_uint)w;
    return kernel_args(r->dev, k, name, err, 5, KBUF(r->pos), KBUF(r->params),
                       KBUF(r->cells.start), KBUF(r->cells.nodes), KARG(win));
}

int flood_cap_select(flood_model *m, flood_replica *r, int64_t w, cl_event *ev, cn_error *err)
{
    device_ctx *d = r->dev;
    int rc = 0;
    if (!r->cap_thr.mem)
        rc = dbuf_alloc(d, &r->cap_thr, (size_t)m->n * 16, &m->acc, "neighbour cap thresholds",
                        err);
    if (!rc)
        rc = graph_args(r, r->k_cap_select, "flood.cap_select", w, err);
    if (!rc)
        rc = kernel_args_from(d, r->k_cap_select, "flood.cap_select", err, 5, 1, KBUF(r->cap_thr));
    if (!rc)
        rc = enqueue_1d(d, r->k_cap_select, "flood.cap_select", m->n, r->ls_cap, ev, err);
    if (!rc)
        r->capped = w;
    return rc;
}

int flood_cap_count(flood_model *m, cn_error *err)
{
    flood_replica *r = &m->rep[0];
    device_ctx *d = r->dev;
    int rc = 0;
    /* mobile scenarios bin per window later; window 0's lists are made here */
    if (m->mobile) {
        cl_event evs[4];
        int n_evs = 0;
        rc = cell_lists_build(&r->cells, d, &r->pos, NULL, evs, &n_evs, err);
        for (int i = 0; i < n_evs; i++)
            if (evs[i])
                clReleaseEvent(evs[i]);
    }
    if (!rc && r->capped != 0)
        rc = flood_cap_select(m, r, 0, NULL, err);
    dbuf counts = {0};
    if (!rc)
        rc = dbuf_alloc(d, &counts, (size_t)m->n * 8, &m->acc, "link counts", err);
    if (!rc)
        rc = graph_args(r, r->k_cap_count, "flood.cap_count", 0, err);
    if (!rc)
        rc = kernel_args_from(d, r->k_cap_count, "flood.cap_count", err, 5, 2, KBUF(r->cap_thr),
                              KBUF(counts));
    if (!rc)
        rc = enqueue_1d(d, r->k_cap_count, "flood.cap_count", m->n, r->ls_cap, NULL, err);
    cl_uint *host = rc ? NULL : malloc((size_t)m->n * 8);
    if (!rc && !host)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %u link counts", m->n);
    if (!rc)
        rc = dbuf_read(d, &counts, 0, (size_t)m->n * 8, host, 1, err);
    m->links = m->links_cut = 0;
    for (uint32_t i = 0; !rc && i < m->n; i++) {
        m->links += host[2 * (size_t)i];
        m->links_cut += host[2 * (size_t)i + 1];
    }
    free(host);
    dbuf_release(&counts, &m->acc);
    return rc;
}

const dbuf *flood_cap_buffer(const flood_replica *r)
{
    /* without a cap the kernels never read it, but the argument must be a valid buffer */
    return r->cap_thr.mem ? &r->cap_thr : &r->pos;
}
